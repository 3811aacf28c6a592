import Foundation
import XCTest

/// Real `sshd` hosts, each in its own network namespace (`scripts/testhosts.sh start-ns`), for
/// fault injection: links can be taken down and hosts killed for real. Each instance has its own
/// folder, namespace names and addresses (derived from the folder), and is stopped by `stop()`,
/// or at process exit if a test forgot or crashed out of its tearDown.
///
/// Needs root and `ip netns`: otherwise `require()` skips, or fails when `CI` is set.
package final class NamespaceHosts: @unchecked Sendable {
    package let directory: String
    package let count: Int
    private static let lock = NSLock()
    nonisolated(unsafe) private static var live: Set<String> = []
    nonisolated(unsafe) private static var atexitInstalled = false
    nonisolated(unsafe) private static var counter = 0

    package static var script: String { TestHosts.packageRoot.appendingPathComponent("scripts/testhosts.sh").path }

    /// Skips (or, on CI, fails) unless this process is root with a working `ip netns` and `sshd`.
    package static func require() throws {
        var problem: String?
        if getuid() != 0 {
            problem = "not root (network namespaces need root)"
        } else if !["/usr/sbin/ip", "/sbin/ip", "/usr/bin/ip", "/bin/ip"].contains(where: { FileManager.default.isExecutableFile(atPath: $0) }) {
            problem = "`ip` is missing (apt-get install iproute2)"
        } else if !FileManager.default.isExecutableFile(atPath: "/usr/sbin/sshd") {
            problem = "sshd is missing (apt-get install openssh-server)"
        } else if (try? TestHosts.shell(["ip", "netns", "list"])) == nil {
            problem = "`ip netns list` does not work here"
        }
        guard let problem else { return }
        if ProcessInfo.processInfo.environment["CI"] != nil {
            throw NSError(domain: "NamespaceHosts", code: 1,
                          userInfo: [NSLocalizedDescriptionKey: "fault-injection tests must run on CI but cannot: \(problem)"])
        }
        throw XCTSkip("fault-injection tests need root, ip netns and sshd: \(problem)")
    }

    /// Starts `count` namespace hosts whose fleet entries name `swiftPath` as toolchain.
    package init(count: Int, swiftPath: String) throws {
        try Self.require()
        Self.lock.lock()
        Self.counter += 1
        let n = Self.counter
        let dir = NSTemporaryDirectory() + "xcf-ns-\(getpid())-\(n)"
        Self.live.insert(dir)
        if !Self.atexitInstalled {
            Self.atexitInstalled = true
            atexit { NamespaceHosts.stopAllLive() }
        }
        Self.lock.unlock()
        directory = dir
        self.count = count
        do {
            try Self.run(["env", "TESTHOSTS_SWIFT=\(swiftPath)", Self.script, "start-ns", String(count), dir])
        } catch {
            stop()
            throw error
        }
    }

    /// Deletes the namespaces, veths and routes, and the folder. Idempotent.
    package func stop() {
        _ = try? Self.run([Self.script, "stop", directory])
        try? FileManager.default.removeItem(atPath: directory)
        Self.lock.lock()
        Self.live.remove(directory)
        Self.lock.unlock()
    }

    private static func stopAllLive() {
        lock.lock()
        let dirs = live
        live = []
        lock.unlock()
        for dir in dirs {
            _ = try? run([script, "stop", dir])
            try? FileManager.default.removeItem(atPath: dir)
        }
    }

    package func address(_ i: Int) -> String {
        ((try? String(contentsOfFile: "\(directory)/h\(i)/address", encoding: .utf8)) ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
    }

    package var identityFile: String { "\(directory)/client_ed25519" }
    package var knownHostsFile: String { "\(directory)/known_hosts" }
    package var tag: String { ((try? String(contentsOfFile: "\(directory)/ns-tag", encoding: .utf8)) ?? "").trimmingCharacters(in: .whitespacesAndNewlines) }
    package func workRoot(_ i: Int) -> String { "/tmp/xcfleet-\(tag)-h\(i)" }

    /// Pulls host `i`'s cable (its namespace-side veth goes down): packets vanish, no reset, connects hang.
    package func linkDown(_ i: Int) throws { try Self.run([Self.script, "link-down", directory, String(i)]) }

    /// Plugs host `i`'s cable back in.
    package func linkUp(_ i: Int) throws { try Self.run([Self.script, "link-up", directory, String(i)]) }

    /// Starts host `i`'s sshd again after `killHost` (waits until it accepts connections).
    package func reviveHost(_ i: Int) throws { try Self.run([Self.script, "revive-host", directory, String(i)]) }

    /// Processes in host `i`'s namespace other than sshd (the listener and its sessions): test
    /// commands, wrappers, anything a run left behind. Each as `pid state cmdline`.
    package func nonSSHDProcesses(_ i: Int) -> [String] {
        pids(i).compactMap { pid in
            guard let raw = try? Data(contentsOf: URL(fileURLWithPath: "/proc/\(pid)/cmdline")), !raw.isEmpty else { return nil }
            let cmd = String(decoding: raw.map { $0 == 0 ? 0x20 : $0 }, as: UTF8.self).trimmingCharacters(in: .whitespaces)
            if cmd.hasPrefix("sshd") || cmd.hasPrefix("/usr/sbin/sshd") { return nil }
            let stat = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)) ?? ""
            let state = stat.split(separator: ")").last?.split(separator: " ").first.map(String.init) ?? "?"
            if state == "Z" { return nil }
            return "\(pid) \(state) \(cmd)"
        }
    }

    /// sshd session processes in host `i`'s namespace (`sshd: user@notty` and the like), beyond the listener.
    package func sshdSessions(_ i: Int) -> Int {
        pids(i).filter { pid in
            let cmd = (try? String(contentsOfFile: "/proc/\(pid)/cmdline", encoding: .utf8)) ?? ""
            return cmd.hasPrefix("sshd:") && !cmd.contains("listener")
        }.count
    }

    /// SIGKILLs every process in host `i`'s namespace: sshd and all its sessions.
    package func killHost(_ i: Int) throws { try Self.run([Self.script, "kill-host", directory, String(i)]) }

    /// Pids of every process in host `i`'s namespace.
    package func pids(_ i: Int) -> [Int32] {
        let out = (try? Self.run([Self.script, "ns-pids", directory, String(i)])) ?? ""
        return out.split(whereSeparator: \.isNewline).compactMap { Int32($0.trimmingCharacters(in: .whitespaces)) }
    }

    /// A fleet entry (JSON object text) for host `i`.
    package func hostJSON(_ i: Int, slots: Int = 1, swiftPath: String, environment: [String: String] = [:], deadPeerSeconds: Double? = nil,
                  name: String? = nil) -> String {
        FleetJSON.host(name: name ?? "h\(i)", address: address(i), port: 22, identityFile: identityFile, knownHostsFile: knownHostsFile,
                       slots: slots, workRoot: workRoot(i), swiftPath: swiftPath, environment: environment, deadPeerSeconds: deadPeerSeconds)
    }

    @discardableResult
    package static func run(_ args: [String]) throws -> String { try TestHosts.shell(args) }
}

/// Small JSON writers for the fleet and plan files of the fault and scale tests.
package enum FleetJSON {
    package static func quote(_ s: String) -> String {
        String(decoding: (try? JSONEncoder().encode(s)) ?? Data("\"\"".utf8), as: UTF8.self)
    }

    package static func host(name: String, address: String, port: Int, identityFile: String, knownHostsFile: String, slots: Int,
                     workRoot: String, swiftPath: String, environment: [String: String] = [:], deadPeerSeconds: Double? = nil) -> String {
        var parts = [
            "\"name\": \(quote(name))", "\"address\": \(quote(address))", "\"port\": \(port)", "\"user\": \(quote(NSUserName()))",
            "\"identityFile\": \(quote(identityFile))", "\"knownHostsFile\": \(quote(knownHostsFile))",
            "\"labels\": [\"platform:linux\", \"swift\"]", "\"slots\": \(slots)", "\"workRoot\": \(quote(workRoot))",
            "\"toolchain\": {\"swiftPath\": \(quote(swiftPath))}",
        ]
        if !environment.isEmpty {
            parts.append("\"environment\": {" + environment.sorted { $0.key < $1.key }
                .map { "\(quote($0.key)): {\"value\": \(quote($0.value))}" }.joined(separator: ", ") + "}")
        }
        if let deadPeerSeconds { parts.append("\"deadPeerSeconds\": \(deadPeerSeconds)") }
        return "{" + parts.joined(separator: ", ") + "}"
    }

    package static func fleet(_ hosts: [String]) -> String { "{\"hosts\": [\n  " + hosts.joined(separator: ",\n  ") + "\n]}\n" }

    /// A plan of gate suites on the cache-contract template (36 tests each).
    package static func plan(suites: [String], repetitions: Int = 1, infraRetries: Int = 2, silence: Int = 30, test: Int = 120, connect: Int = 5) -> String {
        let list = suites.map { name in
            """
            {"name": \(quote(name)), "template": "cache-contract", "kind": "gate", "repetitions": \(repetitions),
             "retries": {"infrastructure": \(infraRetries), "testFailures": 0},
             "timeouts": {"connect": \(connect), "push": 30, "build": 30, "test": \(test), "silence": \(silence), "cleanup": 10}}
            """
        }
        return "{\"name\": \"faults\", \"suites\": [\n" + list.joined(separator: ",\n") + "\n]}\n"
    }
}

extension NamespaceHosts {
    /// The test process in host `i`'s namespace: the cached test bundle (docs/builds.md), or
    /// `swift test` where a package is tested in place. Never the `sh -c` that starts the bundle
    /// (`PackageTestCommands`: it names the bundle too, and waits for it).
    package func testProcess(_ i: Int) -> Int32? {
        pids(i).first { pid in
            let cmd = (try? String(contentsOfFile: "/proc/\(pid)/cmdline", encoding: .utf8)) ?? ""
            let args = cmd.split(separator: "\u{0}", omittingEmptySubsequences: false)
            let shell = args.count > 1 && (args[0] == "sh" || args[0].hasSuffix("/sh")) && args[1] == "-c"
            return !shell && (cmd.contains("/bin/swift\u{0}test") || cmd.contains("PackageTests.xctest"))
        }
    }
}

extension NamespaceHosts {
    /// A fresh work folder `<tmp>/<prefix>-<pid>-<id>` holding `bin/swift`, a copy of
    /// `scripts/fake-swift.sh`. Named `swift`: xcfleet puts the toolchain's folder first on PATH
    /// and runs `swift`. Returns the folder and the fake toolchain's path.
    package static func fakeToolchainWork(_ prefix: String) throws -> (work: URL, swiftPath: String) {
        let work = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("\(prefix)-\(getpid())-\(UUID().uuidString.prefix(6))")
        let bin = work.appendingPathComponent("bin")
        try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
        let swiftPath = bin.appendingPathComponent("swift").path
        try FileManager.default.copyItem(at: TestHosts.packageRoot.appendingPathComponent("scripts/fake-swift.sh"), to: URL(fileURLWithPath: swiftPath))
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: swiftPath)
        return (work, swiftPath)
    }
}
