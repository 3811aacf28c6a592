import Foundation
import SSHClient
import XCTest
import XCFleetKit

/// The one shared helper for integration tests against real OpenSSH `sshd` hosts on 127.0.0.1,
/// started by `scripts/testhosts.sh` once per test process and stopped at exit.
/// Skips (XCTSkip) only when `sshd` is not installed — and fails instead when `CI` is set.
package enum TestHosts {
    package struct Host {
        package var name: String
        package var port: Int
        package var user: String
        package var directory: String
        package var identityFile: String
        package var knownHostsFile: String
        package var hostPublicKeyFile: String

        package var target: SSHTarget { SSHTarget(host: "127.0.0.1", port: port, user: user) }
        package var auth: SSHAuthMethod { .keyFile(path: identityFile, passphrase: nil) }

        package var spec: HostSpec {
            HostSpec(name: name, transport: .ssh, address: "127.0.0.1", port: port, user: user,
                     identityFile: identityFile, knownHostsFile: knownHostsFile, hostKeyPolicy: .strict,
                     labels: ["platform:linux", "swift"], slots: 2, workRoot: "\(directory)/\(name)/work",
                     toolchain: ToolchainSpec(swiftPath: "/opt/swift/usr/bin/swift"))
        }

        package func connect(deadlines: SSHDeadlines = SSHDeadlines()) async throws -> SSHConnection {
            try await SSHConnection.connect(to: target, auth: auth, knownHostsFile: knownHostsFile, deadlines: deadlines)
        }

        package init(name: String, port: Int, user: String, directory: String, identityFile: String, knownHostsFile: String, hostPublicKeyFile: String) {
            self.name = name
            self.port = port
            self.user = user
            self.directory = directory
            self.identityFile = identityFile
            self.knownHostsFile = knownHostsFile
            self.hostPublicKeyFile = hostPublicKeyFile
        }
    }

    package static let count = 4
    nonisolated(unsafe) private static var started: Result<[Host], Error>?
    private static let lock = NSLock()

    package static var packageRoot: URL { TestPaths.packageRoot }

    /// The running hosts (started on first use). Call from a synchronous context (setUp).
    package static func hosts() throws -> [Host] {
        lock.lock()
        defer { lock.unlock() }
        if let started { return try started.get() }
        let result = Result { try start() }
        started = result
        return try result.get()
    }

    /// An `SSHShell` to test host `index` with `workRoot` as its work root (the caller closes it).
    package static func shell(_ index: Int = 0, workRoot: String) async throws -> SSHShell {
        let all = try hosts()
        guard index < all.count else { throw XCTSkip("test host \(index) is not running (\(all.count) started)") }
        var spec = all[index].spec
        spec.workRoot = workRoot
        return try await SSHShell.connect(spec, timeouts: PhaseTimeouts(connect: 10, push: 30, cleanup: 10))
    }

    private static func start() throws -> [Host] {
        let hasSSHD = FileManager.default.isExecutableFile(atPath: "/usr/sbin/sshd")
        if !hasSSHD {
            if ProcessInfo.processInfo.environment["CI"] != nil {
                throw NSError(domain: "TestHosts", code: 1, userInfo: [NSLocalizedDescriptionKey: "sshd missing on CI (apt-get install openssh-server)"])
            }
            throw XCTSkip("sshd is not installed (apt-get install openssh-server); skipping SSH integration tests")
        }
        let dir = NSTemporaryDirectory() + "xcfleet-testhosts-\(getpid())"
        let script = packageRoot.appendingPathComponent("scripts/testhosts.sh").path
        try shell([script, "start", String(count), dir])
        atexit { TestHosts.stopAll() }
        var hosts: [Host] = []
        for i in 1...count {
            let portText = try String(contentsOfFile: "\(dir)/h\(i)/port", encoding: .utf8)
            guard let port = Int(portText.trimmingCharacters(in: .whitespacesAndNewlines)) else {
                throw NSError(domain: "TestHosts", code: 2, userInfo: [NSLocalizedDescriptionKey: "bad port file"])
            }
            hosts.append(Host(name: "h\(i)", port: port, user: NSUserName(), directory: dir,
                              identityFile: "\(dir)/client_ed25519", knownHostsFile: "\(dir)/known_hosts",
                              hostPublicKeyFile: "\(dir)/h\(i)/host_ed25519.pub"))
        }
        return hosts
    }

    private static func stopAll() {
        let dir = NSTemporaryDirectory() + "xcfleet-testhosts-\(getpid())"
        let script = packageRoot.appendingPathComponent("scripts/testhosts.sh").path
        _ = try? shell([script, "stop", dir])
        try? FileManager.default.removeItem(atPath: dir)
    }

    /// Starts a long-running foreground process (e.g. `ssh-agent -D`) without pipes; the caller terminates it.
    package static func launchBackground(_ args: [String]) throws -> Process {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = args
        p.standardInput = FileHandle.nullDevice
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        try p.run()
        return p
    }

    /// Runs a local command to completion (test setup only, never on the concurrency pool).
    @discardableResult
    package static func shell(_ args: [String], check: Bool = true) throws -> String {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = args
        let out = Pipe()
        p.standardOutput = out
        p.standardError = out
        try p.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        let text = String(decoding: data, as: UTF8.self)
        if check && p.terminationStatus != 0 {
            throw NSError(domain: "TestHosts", code: Int(p.terminationStatus),
                          userInfo: [NSLocalizedDescriptionKey: "\(args.joined(separator: " ")) failed: \(text)"])
        }
        return text
    }
}

/// Thread-safe byte collector for output callbacks.
package final class OutputCollector: @unchecked Sendable {
    private let lock = NSLock()
    private var out: [UInt8] = []
    private var err: [UInt8] = []
    private var chunks = 0

    package init() {}

    package func append(_ stream: SSHStream, _ bytes: [UInt8]) {
        lock.lock()
        defer { lock.unlock() }
        chunks += 1
        switch stream {
        case .stdout: out += bytes
        case .stderr: err += bytes
        }
    }

    package var stdout: [UInt8] { lock.lock(); defer { lock.unlock() }; return out }
    package var stderr: [UInt8] { lock.lock(); defer { lock.unlock() }; return err }
    package var stdoutText: String { String(decoding: stdout, as: UTF8.self) }
    package var stderrText: String { String(decoding: stderr, as: UTF8.self) }
    package var chunkCount: Int { lock.lock(); defer { lock.unlock() }; return chunks }
}
