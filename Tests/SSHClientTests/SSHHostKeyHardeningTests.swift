import Foundation
import SSHClient
import XCTest
import XCFleetTestSupport

/// Accept-new with a non-empty known_hosts, and host
/// names matched case-insensitively in hashed entries (OpenSSH lower-cases before hashing).
final class SSHHostKeyHardeningTests: XCTestCase {
    var hosts: [TestHosts.Host] = []
    var scratch = ""

    override func setUpWithError() throws {
        hosts = try TestHosts.hosts()
        scratch = NSTemporaryDirectory() + "xcfleet-hkh-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: scratch)
    }

    private func connect(_ target: SSHTarget, _ host: TestHosts.Host, knownHosts: String, policy: SSHHostKeyPolicy) async -> SSHError? {
        do {
            let c = try await SSHConnection.connect(to: target, auth: host.auth, knownHostsFile: knownHosts, hostKeyPolicy: policy)
            let r = try await c.run("echo ok")
            XCTAssertEqual(r.result, .exited(0))
            await c.close()
            return nil
        } catch let e as SSHError {
            return e
        } catch {
            XCTFail("unexpected error type \(error)")
            return nil
        }
    }

    private func publicKey(_ file: String) throws -> String {
        try String(contentsOfFile: file, encoding: .utf8).split(separator: " ").prefix(2).joined(separator: " ")
    }

    func testAcceptNewAppendsToANonEmptyKnownHostsFile() async throws {
        let h = hosts[0]
        let known = scratch + "/known_hosts"
        // Someone else's pinned host, without a final newline (as editors sometimes leave it).
        let existing = "github.example ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl"
        try existing.write(toFile: known, atomically: true, encoding: .utf8)
        let first = await connect(h.target, h, knownHosts: known, policy: .acceptNew)
        XCTAssertNil(first, first?.message ?? "")
        let lines = try String(contentsOfFile: known, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
        XCTAssertEqual(lines.count, 3, "old line, new hashed line, final newline: \(lines)")
        XCTAssertEqual(String(lines[0]), existing)
        XCTAssertTrue(lines[1].hasPrefix("|1|"), String(lines[1]))
        let found = try TestHosts.shell(["ssh-keygen", "-F", "[127.0.0.1]:\(h.port)", "-f", known])
        XCTAssertTrue(found.contains("ssh-ed25519"), found)
        let strict = await connect(h.target, h, knownHosts: known, policy: .strict)
        XCTAssertNil(strict, strict?.message ?? "")
    }

    /// `LocalHost` against a hashed `[localhost]:PORT` entry with another key: HOST KEY CHANGED,
    /// with either policy, and accept-new adds nothing.
    func testMixedCaseNameAgainstAChangedHashedLowerCaseEntryIsHostKeyChanged() async throws {
        let h = hosts[1]
        try TestHosts.shell(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", scratch + "/other"])
        let known = scratch + "/known_hosts"
        try "[localhost]:\(h.port) \(try publicKey(scratch + "/other.pub"))\n".write(toFile: known, atomically: true, encoding: .utf8)
        try TestHosts.shell(["ssh-keygen", "-q", "-H", "-f", known])
        let before = try String(contentsOfFile: known, encoding: .utf8)
        var target = h.target
        target.host = "LocalHost"
        for policy in [SSHHostKeyPolicy.strict, .acceptNew] {
            let error = await connect(target, h, knownHosts: known, policy: policy)
            XCTAssertEqual(error?.kind, .hostKeyChanged, "\(policy): \(error?.message ?? "connected")")
            XCTAssertEqual(try String(contentsOfFile: known, encoding: .utf8), before, "\(policy) must not trust on first use")
        }
    }

    /// The pinned right key under the lower-case name matches a mixed-case target, and what
    /// accept-new writes for a mixed-case name is what OpenSSH looks up (lower-cased).
    func testMixedCaseNameMatchesAndIsWrittenLowerCased() async throws {
        let h = hosts[2]
        let known = scratch + "/known_hosts"
        try "[localhost]:\(h.port) \(try publicKey(h.hostPublicKeyFile))\n".write(toFile: known, atomically: true, encoding: .utf8)
        try TestHosts.shell(["ssh-keygen", "-q", "-H", "-f", known])
        var target = h.target
        target.host = "LOCALHOST"
        let strict = await connect(target, h, knownHosts: known, policy: .strict)
        XCTAssertNil(strict, strict?.message ?? "")
        let fresh = scratch + "/fresh_known_hosts"
        target.host = "LocalHost"
        let accepted = await connect(target, h, knownHosts: fresh, policy: .acceptNew)
        XCTAssertNil(accepted, accepted?.message ?? "")
        let found = try TestHosts.shell(["ssh-keygen", "-F", "[localhost]:\(h.port)", "-f", fresh])
        XCTAssertTrue(found.contains("ssh-ed25519"), "OpenSSH finds the lower-cased name: \(found)")
    }
}

extension SSHHostKeyHardeningTests {
    /// An identity file or known_hosts that is a link to a FIFO
    /// fails at once with a message instead of hanging the connection.
    func testIdentityFileAndKnownHostsBehindAFIFOLinkFailFast() async throws {
        let h = hosts[0]
        let fifo = scratch + "/fifo"
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        try FileManager.default.createSymbolicLink(atPath: scratch + "/id_link", withDestinationPath: fifo)
        try FileManager.default.createSymbolicLink(atPath: scratch + "/kh_link", withDestinationPath: fifo)
        let start = Date()
        do {
            let c = try await SSHConnection.connect(to: h.target, auth: .keyFile(path: scratch + "/id_link", passphrase: nil), knownHostsFile: h.knownHostsFile)
            await c.close()
            XCTFail("connected with a FIFO as identity file")
        } catch let e as SSHError {
            XCTAssertEqual(e.kind, .keyFile, e.message)
            XCTAssertTrue(e.message.contains("not a regular file (it is a FIFO"), e.message)
        }
        do {
            let c = try await SSHConnection.connect(to: h.target, auth: h.auth, knownHostsFile: scratch + "/kh_link")
            await c.close()
            XCTFail("connected with a FIFO as known_hosts")
        } catch let e as SSHError {
            XCTAssertEqual(e.kind, .hostKeyFile, e.message)
        }
        XCTAssertLessThan(Date().timeIntervalSince(start), 10)
    }
}
