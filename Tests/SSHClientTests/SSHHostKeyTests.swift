import Foundation
import SSHClient
import XCTest
import XCFleetTestSupport

/// Host-key verification and authentication against real sshd hosts.
final class SSHHostKeyTests: XCTestCase {
    var hosts: [TestHosts.Host] = []
    var scratch = ""

    override func setUpWithError() throws {
        hosts = try TestHosts.hosts()
        scratch = NSTemporaryDirectory() + "xcfleet-hk-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: scratch)
    }

    private func fingerprint(_ pubFile: String) throws -> String {
        // "256 SHA256:xxxx comment (ED25519)"
        let line = try TestHosts.shell(["ssh-keygen", "-l", "-E", "sha256", "-f", pubFile])
        return String(line.split(separator: " ")[1])
    }

    private func connectExpectingError(_ host: TestHosts.Host, knownHosts: String, policy: SSHHostKeyPolicy = .strict,
                                       auth: SSHAuthMethod? = nil, deadlines: SSHDeadlines = SSHDeadlines(),
                                       port: Int? = nil) async -> SSHError? {
        var target = host.target
        if let port { target.port = port }
        do {
            let c = try await SSHConnection.connect(to: target, auth: auth ?? host.auth, knownHostsFile: knownHosts,
                                                    hostKeyPolicy: policy, deadlines: deadlines)
            await c.close()
            return nil
        } catch let e as SSHError {
            return e
        } catch {
            XCTFail("unexpected error type \(error)")
            return nil
        }
    }

    func testUnknownHostKeyIsRefusedWithFingerprintAndLineToAdd() async throws {
        let h = hosts[0]
        let known = scratch + "/known_hosts"
        let error = await connectExpectingError(h, knownHosts: known)
        XCTAssertEqual(error?.kind, .hostKeyUnknown)
        let message = error?.message ?? ""
        XCTAssertTrue(message.contains(try fingerprint(h.hostPublicKeyFile)), message)
        XCTAssertFalse(FileManager.default.fileExists(atPath: known), "strict must not write known_hosts")
        // The printed line is exactly what makes a strict connect pass.
        let hostKey = try String(contentsOfFile: h.hostPublicKeyFile, encoding: .utf8).split(separator: " ").prefix(2).joined(separator: " ")
        let expectedLine = "[127.0.0.1]:\(h.port) \(hostKey)"
        let printedLine = message.split(separator: "\n").map(String.init).first { $0.hasPrefix("[127.0.0.1]") }
        XCTAssertEqual(printedLine, expectedLine)
        try (expectedLine + "\n").write(toFile: known, atomically: true, encoding: .utf8)
        let conn = try await SSHConnection.connect(to: h.target, auth: h.auth, knownHostsFile: known)
        let r = try await conn.run("echo ok")
        XCTAssertEqual(r.result, .exited(0))
        await conn.close()
    }

    func testRefusedBeforeAuthenticationSoNoCommandRuns() async throws {
        // The refusal happens before auth: no session exists, so nothing can run. Prove it with
        // a host whose login would create a marker file (a forced command in authorized_keys).
        let h = hosts[1]
        let marker = scratch + "/marker"
        let keyDir = scratch + "/forced"
        try FileManager.default.createDirectory(atPath: keyDir, withIntermediateDirectories: true)
        try TestHosts.shell(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", keyDir + "/id"])
        let pub = try String(contentsOfFile: keyDir + "/id.pub", encoding: .utf8)
        let authorized = h.directory + "/\(h.name)/authorized_keys"
        let original = try String(contentsOfFile: authorized, encoding: .utf8)
        try (original + "command=\"touch \(marker)\" " + pub).write(toFile: authorized, atomically: true, encoding: .utf8)
        defer { try? original.write(toFile: authorized, atomically: true, encoding: .utf8) }
        let auth = SSHAuthMethod.keyFile(path: keyDir + "/id", passphrase: nil)
        let error = await connectExpectingError(h, knownHosts: scratch + "/empty_known_hosts", auth: auth)
        XCTAssertEqual(error?.kind, .hostKeyUnknown)
        try await Task.sleep(nanoseconds: 300_000_000)
        XCTAssertFalse(FileManager.default.fileExists(atPath: marker), "the remote command must not have run")
        // Control: with the right known_hosts the same key does log in and run the forced command.
        let conn = try await SSHConnection.connect(to: h.target, auth: auth, knownHostsFile: h.knownHostsFile)
        _ = try await conn.run("true")
        await conn.close()
        XCTAssertTrue(FileManager.default.fileExists(atPath: marker), "control: forced command should create the marker")
    }

    func testChangedHostKeyIsRefusedWithBothFingerprints() async throws {
        let h = hosts[0]
        try TestHosts.shell(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", scratch + "/other"])
        let other = try String(contentsOfFile: scratch + "/other.pub", encoding: .utf8).split(separator: " ").prefix(2).joined(separator: " ")
        let known = scratch + "/known_hosts"
        try "[127.0.0.1]:\(h.port) \(other)\n".write(toFile: known, atomically: true, encoding: .utf8)
        try TestHosts.shell(["ssh-keygen", "-q", "-H", "-f", known])
        for policy in [SSHHostKeyPolicy.strict, .acceptNew] {
            let error = await connectExpectingError(h, knownHosts: known, policy: policy)
            XCTAssertEqual(error?.kind, .hostKeyChanged)
            let message = error?.message ?? ""
            XCTAssertTrue(message.contains(try fingerprint(scratch + "/other.pub")), "old fingerprint: \(message)")
            XCTAssertTrue(message.contains(try fingerprint(h.hostPublicKeyFile)), "new fingerprint: \(message)")
        }
    }

    func testBareHostLineDoesNotCountForNonStandardPort() async throws {
        let h = hosts[0]
        let hostKey = try String(contentsOfFile: h.hostPublicKeyFile, encoding: .utf8).split(separator: " ").prefix(2).joined(separator: " ")
        let known = scratch + "/known_hosts"
        try "127.0.0.1 \(hostKey)\n".write(toFile: known, atomically: true, encoding: .utf8)
        let error = await connectExpectingError(h, knownHosts: known)
        XCTAssertEqual(error?.kind, .hostKeyUnknown)
        // Same check hashed.
        try TestHosts.shell(["ssh-keygen", "-q", "-H", "-f", known])
        let error2 = await connectExpectingError(h, knownHosts: known)
        XCTAssertEqual(error2?.kind, .hostKeyUnknown)
    }

    /// A host with both ECDSA and ed25519 keys, known by one of them only: the connection must ask
    /// for the known type (libssh2 1.10 would otherwise negotiate ECDSA first).
    func testHostKeyAlgorithmFollowsKnownHostsTypes() async throws {
        let h = hosts[3]
        let dir = scratch + "/dual"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        try TestHosts.shell(["ssh-keygen", "-q", "-t", "ecdsa", "-N", "", "-f", dir + "/host_ecdsa"])
        let port = try freePort()
        var config = try String(contentsOfFile: h.directory + "/\(h.name)/sshd_config", encoding: .utf8)
        config = config.split(separator: "\n").filter { !$0.hasPrefix("Port ") && !$0.hasPrefix("PidFile ") }.joined(separator: "\n")
        config += "\nPort \(port)\nPidFile \(dir)/sshd.pid\nHostKey \(dir)/host_ecdsa\n"
        try config.write(toFile: dir + "/sshd_config", atomically: true, encoding: .utf8)
        try TestHosts.shell(["/usr/sbin/sshd", "-f", dir + "/sshd_config", "-E", dir + "/sshd.log"])
        defer {
            if let pid = try? String(contentsOfFile: dir + "/sshd.pid", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines) {
                _ = try? TestHosts.shell(["kill", pid], check: false)
            }
        }
        try await Task.sleep(nanoseconds: 300_000_000)
        var target = h.target
        target.port = port
        for (keyFile, type) in [(h.hostPublicKeyFile, "ssh-ed25519"), (dir + "/host_ecdsa.pub", "ecdsa-sha2-nistp256")] {
            let key = try String(contentsOfFile: keyFile, encoding: .utf8).split(separator: " ").prefix(2).joined(separator: " ")
            XCTAssertTrue(key.hasPrefix(type))
            let known = dir + "/known_\(type)"
            try "[127.0.0.1]:\(port) \(key)\n".write(toFile: known, atomically: true, encoding: .utf8)
            let c = try await SSHConnection.connect(to: target, auth: h.auth, knownHostsFile: known)
            let r = try await c.run("true")
            XCTAssertEqual(r.result, .exited(0), type)
            await c.close()
        }
    }

    func testAcceptNewAppendsHashedLineThenStrictPasses() async throws {
        let h = hosts[2]
        let known = scratch + "/sub/known_hosts"
        let first = await connectExpectingError(h, knownHosts: known, policy: .acceptNew)
        XCTAssertNil(first)
        let text = try String(contentsOfFile: known, encoding: .utf8)
        XCTAssertTrue(text.hasPrefix("|1|"), text)
        XCTAssertEqual(text.split(separator: "\n").count, 1)
        XCTAssertFalse(text.contains("127.0.0.1"), "the name must be hashed")
        // OpenSSH understands the line.
        let found = try TestHosts.shell(["ssh-keygen", "-F", "[127.0.0.1]:\(h.port)", "-f", known])
        XCTAssertTrue(found.contains("ssh-ed25519"), found)
        let second = await connectExpectingError(h, knownHosts: known, policy: .strict)
        XCTAssertNil(second)
        XCTAssertEqual(try String(contentsOfFile: known, encoding: .utf8), text, "no second line")
    }

    func testWrongClientKeyIsAnAuthenticationErrorNamingTheHost() async throws {
        let h = hosts[0]
        try TestHosts.shell(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", scratch + "/stranger"])
        let error = await connectExpectingError(h, knownHosts: h.knownHostsFile, auth: .keyFile(path: scratch + "/stranger", passphrase: nil))
        XCTAssertEqual(error?.kind, .authentication)
        XCTAssertTrue(error?.description.contains("127.0.0.1:\(h.port)") ?? false, error?.description ?? "")
        XCTAssertTrue(error?.message.contains("authorized_keys") ?? false)
    }

    func testPassphraseProtectedKey() async throws {
        let h = hosts[3]
        let key = scratch + "/locked"
        try TestHosts.shell(["ssh-keygen", "-q", "-t", "ed25519", "-N", "s3cret-pass", "-f", key])
        let authorized = h.directory + "/\(h.name)/authorized_keys"
        let original = try String(contentsOfFile: authorized, encoding: .utf8)
        try (original + (try String(contentsOfFile: key + ".pub", encoding: .utf8))).write(toFile: authorized, atomically: true, encoding: .utf8)
        defer { try? original.write(toFile: authorized, atomically: true, encoding: .utf8) }
        let wrong = await connectExpectingError(h, knownHosts: h.knownHostsFile, auth: .keyFile(path: key, passphrase: "nope"))
        XCTAssertEqual(wrong?.kind, .keyFile)
        XCTAssertFalse(wrong?.message.contains("nope") ?? true, "passphrase must never appear in messages")
        let right = await connectExpectingError(h, knownHosts: h.knownHostsFile, auth: .keyFile(path: key, passphrase: "s3cret-pass"))
        XCTAssertNil(right)
    }

    func testRSAKeyGivesClearMessage() async throws {
        let h = hosts[3]
        let key = scratch + "/rsa"
        try TestHosts.shell(["ssh-keygen", "-q", "-t", "rsa", "-b", "2048", "-N", "", "-f", key])
        let authorized = h.directory + "/\(h.name)/authorized_keys"
        let original = try String(contentsOfFile: authorized, encoding: .utf8)
        try (original + (try String(contentsOfFile: key + ".pub", encoding: .utf8))).write(toFile: authorized, atomically: true, encoding: .utf8)
        defer { try? original.write(toFile: authorized, atomically: true, encoding: .utf8) }
        let error = await connectExpectingError(h, knownHosts: h.knownHostsFile, auth: .keyFile(path: key, passphrase: nil))
        XCTAssertEqual(error?.kind, .rsaUnsupported)
        XCTAssertTrue(error?.message.contains("ed25519") ?? false, error?.message ?? "")
    }

    func testAgentAuthenticationAndAgentWithOnlyRSAKeys() async throws {
        let h = hosts[2]
        let socket = scratch + "/agent.sock"
        // Foreground agent (-D): a daemonizing one confuses Foundation's Process.waitUntilExit.
        let agent = try TestHosts.launchBackground(["ssh-agent", "-D", "-a", socket])
        defer { kill(agent.processIdentifier, SIGKILL) }
        let until = Date().addingTimeInterval(5)
        while !FileManager.default.fileExists(atPath: socket) && Date() < until { try await Task.sleep(nanoseconds: 50_000_000) }
        // Empty agent: a clear message.
        let empty = await connectExpectingError(h, knownHosts: h.knownHostsFile, auth: .agent(socketPath: socket))
        XCTAssertEqual(empty?.kind, .authentication)
        XCTAssertTrue(empty?.message.contains("no keys") ?? false, empty?.message ?? "")
        // Only an RSA key (authorized on the host): libssh2 1.10 cannot use it.
        try TestHosts.shell(["ssh-keygen", "-q", "-t", "rsa", "-b", "2048", "-N", "", "-f", scratch + "/agent_rsa"])
        let authorized = h.directory + "/\(h.name)/authorized_keys"
        let original = try String(contentsOfFile: authorized, encoding: .utf8)
        try (original + (try String(contentsOfFile: scratch + "/agent_rsa.pub", encoding: .utf8))).write(toFile: authorized, atomically: true, encoding: .utf8)
        defer { try? original.write(toFile: authorized, atomically: true, encoding: .utf8) }
        try TestHosts.shell(["env", "SSH_AUTH_SOCK=\(socket)", "ssh-add", "-q", scratch + "/agent_rsa"])
        let rsaOnly = await connectExpectingError(h, knownHosts: h.knownHostsFile, auth: .agent(socketPath: socket))
        XCTAssertEqual(rsaOnly?.kind, .rsaUnsupported, rsaOnly?.message ?? "")
        // Add the ed25519 client key: now it works.
        try TestHosts.shell(["env", "SSH_AUTH_SOCK=\(socket)", "ssh-add", "-q", h.identityFile])
        let ok = await connectExpectingError(h, knownHosts: h.knownHostsFile, auth: .agent(socketPath: socket))
        XCTAssertNil(ok, ok?.message ?? "")
    }

    func testClosedPortFailsFastWithConnectError() async throws {
        let port = try freePort()
        let start = Date()
        let error = await connectExpectingError(hosts[0], knownHosts: hosts[0].knownHostsFile,
                                                deadlines: SSHDeadlines(connect: 2), port: port)
        XCTAssertEqual(error?.kind, .connect)
        XCTAssertLessThan(Date().timeIntervalSince(start), 2.5)
    }

    func testSilentListenerHitsHandshakeDeadline() async throws {
        let listener = try SilentListener()
        listener.start()
        defer { listener.stop() }
        let start = Date()
        let error = await connectExpectingError(hosts[0], knownHosts: hosts[0].knownHostsFile,
                                                deadlines: SSHDeadlines(connect: 2, handshake: 1), port: listener.port)
        let elapsed = Date().timeIntervalSince(start)
        XCTAssertEqual(error?.kind, .timeout)
        XCTAssertTrue(error?.message.contains("handshake") ?? false, error?.message ?? "")
        XCTAssertGreaterThanOrEqual(elapsed, 0.9)
        XCTAssertLessThan(elapsed, 3)
        XCTAssertGreaterThanOrEqual(listener.accepted, 1, "the listener really accepted the TCP connection")
    }

    func testResolvesNamesAndIPv6Literal() async throws {
        let h = hosts[0]
        // "localhost" resolves (maybe to ::1 first, refused, then 127.0.0.1); the known_hosts name differs.
        var target = h.target
        target.host = "localhost"
        do {
            let c = try await SSHConnection.connect(to: target, auth: h.auth, knownHostsFile: h.knownHostsFile)
            await c.close()
            XCTFail("[localhost]:port is not in known_hosts")
        } catch let e as SSHError {
            XCTAssertEqual(e.kind, .hostKeyUnknown, e.message)
            XCTAssertTrue(e.message.contains("[localhost]:\(h.port)"))
        }
        target.host = "::1"
        do {
            let c = try await SSHConnection.connect(to: target, auth: h.auth, knownHostsFile: h.knownHostsFile,
                                                    deadlines: SSHDeadlines(connect: 2))
            await c.close()
            XCTFail("sshd listens on 127.0.0.1 only")
        } catch let e as SSHError {
            XCTAssertEqual(e.kind, .connect, e.message)
        }
        target.host = "no-such-host.invalid"
        do {
            _ = try await SSHConnection.connect(to: target, auth: h.auth, knownHostsFile: h.knownHostsFile)
            XCTFail("must not resolve")
        } catch let e as SSHError {
            XCTAssertEqual(e.kind, .resolve, e.message)
        }
    }
}

