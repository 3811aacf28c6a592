import Foundation
import SSHClient
import XCTest
@testable import XCFleetKit
import XCFleetTestSupport

final class SSHShellTests: XCTestCase {
    var hosts: [TestHosts.Host] = []

    override func setUpWithError() throws {
        hosts = try TestHosts.hosts()
    }

    private func sample() -> Workspace {
        Workspace(files: [
            WorkspaceFile(path: "Package.swift", contents: Data("// swift-tools-version:5.9\n".utf8)),
            WorkspaceFile(path: "Sources/Lib/Lib.swift", contents: Data("public let x = \"é\"\n".utf8)),
            WorkspaceFile(path: "Tests/LibTests/LibTests.swift", contents: Data(repeating: 0x41, count: 100_000)),
            WorkspaceFile(path: "bin/run.sh", contents: Data("#!/bin/sh\necho ran\n".utf8), executable: true),
            WorkspaceFile(path: String(repeating: "n", count: 120) + "/" + String(repeating: "m", count: 120) + ".txt", contents: Data("long".utf8)),
        ])
    }

    func testPushWarmPushRunFetchRemove() async throws {
        var spec = hosts[0].spec
        spec.workRoot = NSTemporaryDirectory() + "xcfleet-shell-\(UUID().uuidString)"
        spec.environment = ["XCF_GREETING": EnvironmentValue("hello 'quoted' $world", secret: false),
                            "XCF_TOKEN": EnvironmentValue("s3cr3t", secret: true)]
        defer { try? FileManager.default.removeItem(atPath: spec.workRoot) }
        let shell = try await SSHShell.connect(spec, timeouts: PhaseTimeouts(connect: 10, push: 30, cleanup: 10))
        let dir = try await shell.makeJobDirectory(jobID: "suite/a b#1")
        XCTAssertTrue(dir.hasPrefix(spec.workRoot + "/suite_a_b_1."), dir)
        var isDir: ObjCBool = false
        XCTAssertTrue(FileManager.default.fileExists(atPath: dir, isDirectory: &isDir) && isDir.boolValue)

        let ws = sample()
        let outcome = try await shell.push(ws, to: dir)
        guard case .pushed(let bytes, let files) = outcome else { return XCTFail("cold push must send, got \(outcome)") }
        XCTAssertGreaterThan(bytes, ws.totalBytes)
        XCTAssertEqual(files, ws.files.count)
        for f in ws.files {
            XCTAssertEqual(FileManager.default.contents(atPath: dir + "/" + f.path), f.contents, f.path)
            let mode = (try FileManager.default.attributesOfItem(atPath: dir + "/" + f.path)[.posixPermissions] as? Int) ?? 0
            XCTAssertEqual(mode & 0o111 != 0, f.executable, f.path)
        }

        // Warm: a second job directory gets the same tree without sending it.
        let dir2 = try await shell.makeJobDirectory(jobID: "second")
        XCTAssertNotEqual(dir, dir2)
        let warm = try await shell.push(ws, to: dir2)
        XCTAssertEqual(warm, .unchanged)
        for f in ws.files {
            XCTAssertEqual(FileManager.default.contents(atPath: dir2 + "/" + f.path), f.contents, "warm copy \(f.path)")
        }
        XCTAssertTrue(FileManager.default.isExecutableFile(atPath: dir2 + "/bin/run.sh"))

        // Run: working directory, environment (quoted), toolchain on PATH, exit status.
        let out = OutputCollectorChunks()
        let termination = try await shell.run(
            ShellCommand(["sh", "-c", "pwd; echo \"$XCF_GREETING\"; echo \"$XCF_EXTRA\"; command -v swift; ./bin/run.sh; exit 4"],
                         environment: ["XCF_EXTRA": "x;y"]),
            in: dir2, deadlines: CommandDeadlines(total: 30, silence: 30)) { out.add($0) }
        XCTAssertEqual(termination, .exited(4))
        let lines = out.stdoutText.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines, [dir2, "hello 'quoted' $world", "x;y", "/opt/swift/usr/bin/swift", "ran"])

        // Fetch.
        let fetched = try await shell.fetch("Sources/Lib/Lib.swift", in: dir)
        XCTAssertEqual(fetched, ws.file("Sources/Lib/Lib.swift")?.contents)
        do {
            _ = try await shell.fetch("missing.txt", in: dir)
            XCTFail("fetch of a missing file must throw")
        } catch let e as RemoteShellError {
            XCTAssertEqual(e.kind, .fetch)
        }

        // Remove.
        try await shell.removeJobDirectory(dir)
        try await shell.removeJobDirectory(dir2)
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir))
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir2))
        do {
            try await shell.removeJobDirectory("/etc")
            XCTFail("removing outside the work root must be refused")
        } catch let e as RemoteShellError {
            XCTAssertEqual(e.kind, .cleanup)
        }
        await shell.close()
    }

    func testConcurrentColdPushesOfTheSameTreeLeaveOneCleanStore() async throws {
        var spec = hosts[3].spec
        spec.workRoot = NSTemporaryDirectory() + "xcfleet-shell-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: spec.workRoot) }
        let shell = try await SSHShell.connect(spec, timeouts: PhaseTimeouts())
        let ws = sample()
        let d1 = try await shell.makeJobDirectory(jobID: "a")
        let d2 = try await shell.makeJobDirectory(jobID: "b")
        async let o1 = shell.push(ws, to: d1)
        async let o2 = shell.push(ws, to: d2)
        let outcomes = try await [o1, o2]
        XCTAssertTrue(outcomes.contains { if case .pushed = $0 { return true } else { return false } }, "\(outcomes)")
        let blobs = try FileManager.default.contentsOfDirectory(atPath: spec.workRoot + "/.cache/blobs").sorted()
        XCTAssertEqual(blobs, Set(ws.fileHashes.values).sorted(), "one blob per content, no stray temporary file")
        let top = ["Package.swift", "Sources", "Tests", "bin", String(repeating: "n", count: 120)].sorted()
        for d in [d1, d2] { XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: d).sorted(), top) }
        let d3 = try await shell.makeJobDirectory(jobID: "c")
        let warm = try await shell.push(ws, to: d3)
        XCTAssertEqual(warm, .unchanged)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: d3).sorted(), top)
        await shell.close()
    }

    func testUnsafeWorkspacePathIsRejectedBeforeSending() async throws {
        var spec = hosts[1].spec
        spec.workRoot = NSTemporaryDirectory() + "xcfleet-shell-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: spec.workRoot) }
        let shell = try await SSHShell.connect(spec, timeouts: PhaseTimeouts())
        let dir = try await shell.makeJobDirectory(jobID: "unsafe")
        let ws = Workspace(files: [WorkspaceFile(path: "ok.txt", contents: Data("ok".utf8)),
                                   WorkspaceFile(path: "../escape.txt", contents: Data("bad".utf8))])
        do {
            _ = try await shell.push(ws, to: dir)
            XCTFail("unsafe path must be rejected")
        } catch let e as RemoteShellError {
            XCTAssertEqual(e.kind, .push)
            XCTAssertTrue(e.message.contains(".."), e.message)
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir), [], "nothing was sent")
        XCTAssertFalse(FileManager.default.fileExists(atPath: spec.workRoot + "/.cache"), "no push happened")
        XCTAssertFalse(FileManager.default.fileExists(atPath: (dir as NSString).deletingLastPathComponent + "/escape.txt"))
        await shell.close()
    }

    func testCancelledRunKillsTheCommand() async throws {
        let shell = try await SSHShell.connect(hosts[2].spec, timeouts: PhaseTimeouts())
        let out = OutputCollectorChunks()
        let task = Task {
            try await shell.run(ShellCommand(["sh", "-c", "echo go; sleep 347"]), in: "/tmp",
                                deadlines: CommandDeadlines(total: 60, silence: 60)) { out.add($0) }
        }
        let until = Date().addingTimeInterval(10)
        while out.stdoutText.isEmpty && Date() < until { try await Task.sleep(nanoseconds: 50_000_000) }
        task.cancel()
        let result = try await task.value
        XCTAssertEqual(result, .cancelled)
        let ps = try TestHosts.shell(["ps", "-eo", "stat=,cmd="])
        XCTAssertFalse(ps.split(separator: "\n").contains { $0.contains("sleep 347") && !$0.hasPrefix("Z") }, ps)
        await shell.close()
    }

    func testDeadPeerLimitComesFromTheFleetHostAndKeepalivesFitInsideIt() {
        var spec = HostSpec(name: "a")
        XCTAssertEqual(SSHShell.deadPeerSeconds(spec), 30)
        XCTAssertEqual(SSHShell.keepaliveInterval(deadPeer: 30), 5)
        spec.deadPeerSeconds = 6
        XCTAssertEqual(SSHShell.deadPeerSeconds(spec), 6)
        XCTAssertEqual(SSHShell.keepaliveInterval(deadPeer: 6), 2)
        spec.deadPeerSeconds = 0.5
        XCTAssertEqual(SSHShell.deadPeerSeconds(spec), 3, "clamped: a live host must have time to answer a keepalive")
        XCTAssertEqual(SSHShell.keepaliveInterval(deadPeer: 3), 1)
        spec.deadPeerSeconds = .infinity
        XCTAssertEqual(SSHShell.deadPeerSeconds(spec), 30)
        spec.deadPeerSeconds = 1e12
        XCTAssertEqual(SSHShell.deadPeerSeconds(spec), 86_400)
    }

    func testMissingPassphraseVariableAndAuthErrorsMapToRemoteShellError() async throws {
        var spec = hosts[0].spec
        spec.passphraseEnv = "XCF_NO_SUCH_PASSPHRASE_VAR"
        do {
            _ = try await SSHShell.connect(spec, timeouts: PhaseTimeouts(), environment: [:])
            XCTFail("must throw")
        } catch let e as RemoteShellError {
            XCTAssertEqual(e.kind, .authentication)
            XCTAssertTrue(e.message.contains("XCF_NO_SUCH_PASSPHRASE_VAR"))
        }
        var unknown = hosts[0].spec
        unknown.knownHostsFile = NSTemporaryDirectory() + "no-such-known-hosts-\(UUID().uuidString)"
        do {
            _ = try await SSHShell.connect(unknown, timeouts: PhaseTimeouts())
            XCTFail("must throw")
        } catch let e as RemoteShellError {
            XCTAssertEqual(e.kind, .hostKey)
            XCTAssertEqual(e.host, unknown.name)
        }
    }
}

final class OutputCollectorChunks: @unchecked Sendable {
    private let lock = NSLock()
    private var out: [UInt8] = []
    private var err: [UInt8] = []
    func add(_ c: OutputChunk) {
        lock.lock(); defer { lock.unlock() }
        if c.stream == .stdout { out += c.bytes } else { err += c.bytes }
    }
    var stdoutText: String { lock.lock(); defer { lock.unlock() }; return String(decoding: out, as: UTF8.self) }
}
