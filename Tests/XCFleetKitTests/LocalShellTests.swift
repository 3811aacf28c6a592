import XCTest
@testable import XCFleetKit
import XCFleetTestSupport

/// The built-in local host, with real processes: streaming, exit status and signals, deadlines
/// that kill the whole process group, cancellation, and the per-job directory lifecycle.
final class LocalShellTests: XCTestCase {
    private final class Sink: @unchecked Sendable {
        private let lock = NSLock()
        private var out: [UInt8] = []
        private var err: [UInt8] = []
        func add(_ c: OutputChunk) { lock.lock(); if c.stream == .stdout { out += c.bytes } else { err += c.bytes }; lock.unlock() }
        var stdout: String { lock.lock(); defer { lock.unlock() }; return String(decoding: out, as: UTF8.self) }
        var stderr: String { lock.lock(); defer { lock.unlock() }; return String(decoding: err, as: UTF8.self) }
    }

    private func shell() throws -> LocalShell {
        var host = HostSpec.local
        host.workRoot = try TestPaths.temporaryDirectory().path
        return LocalShell(host: host)
    }

    private let generous = CommandDeadlines(total: 60, silence: 60)

    func testStreamsBothStreamsAndExitStatus() async throws {
        let shell = try shell()
        let dir = try await shell.makeJobDirectory(jobID: "j/1")
        let sink = Sink()
        let result = try await shell.run(ShellCommand(["sh", "-c", "echo out; echo err >&2; exit 3"]), in: dir, deadlines: generous) { sink.add($0) }
        XCTAssertEqual(result, .exited(3))
        XCTAssertEqual(sink.stdout, "out\n")
        XCTAssertEqual(sink.stderr, "err\n")
    }

    func testSignalIsReportedNotAsAnExitStatus() async throws {
        let shell = try shell()
        let dir = try await shell.makeJobDirectory(jobID: "sig")
        let result = try await shell.run(ShellCommand(["sh", "-c", "kill -SEGV $$"]), in: dir, deadlines: generous) { _ in }
        XCTAssertEqual(result, .signaled("SIGSEGV"))
    }

    func testSilenceDeadlineKillsTheWholeProcessGroup() async throws {
        let shell = try shell()
        let dir = try await shell.makeJobDirectory(jobID: "silent")
        let marker = "xcfleet-silence-\(UUID().uuidString.prefix(8))"
        let started = Date()
        // A child in the background that would outlive a plain kill of the parent.
        let result = try await shell.run(ShellCommand(["sh", "-c", "sleep 300 & exec -a \(marker) sleep 300"]), in: dir,
                                         deadlines: CommandDeadlines(total: 60, silence: 1)) { _ in }
        XCTAssertEqual(result, .timedOut("silence"))
        XCTAssertLessThan(Date().timeIntervalSince(started), 10)
        let ps = try runCommand(URL(fileURLWithPath: "/bin/sh"), ["-c", "ps -eo pgid,args | grep -c '[\(marker.prefix(1))]\(marker.dropFirst())' || true"])
        XCTAssertEqual(ps.stdout.trimmingCharacters(in: .whitespacesAndNewlines), "0", "the process group is gone")
    }

    func testCancellingTheTaskKillsTheCommand() async throws {
        let shell = try shell()
        let dir = try await shell.makeJobDirectory(jobID: "cancel")
        let started = Date()
        let deadlines = generous
        let task = Task { try await shell.run(ShellCommand(["sleep", "300"]), in: dir, deadlines: deadlines) { _ in } }
        try await Task.sleep(nanoseconds: 300_000_000)
        task.cancel()
        let result = try await task.value
        XCTAssertEqual(result, .cancelled)
        XCTAssertLessThan(Date().timeIntervalSince(started), 10)
    }

    func testPushFetchAndRemove() async throws {
        let shell = try shell()
        let dir = try await shell.makeJobDirectory(jobID: "push")
        let ws = Workspace(files: [WorkspaceFile(path: "a/b.txt", contents: Data("hi".utf8)),
                                   WorkspaceFile(path: "run.sh", contents: Data("#!/bin/sh\necho ran\n".utf8), executable: true)])
        let outcome = try await shell.push(ws, to: dir)
        guard case .pushed(let bytes, files: 2) = outcome else { return XCTFail("a first push sends both files, got \(outcome)") }
        XCTAssertGreaterThan(bytes, 21, "the contents and the file list")
        let fetched = try await shell.fetch("a/b.txt", in: dir)
        XCTAssertEqual(fetched, Data("hi".utf8))
        let sink = Sink()
        let status = try await shell.run(ShellCommand(["./run.sh"]), in: dir, deadlines: generous) { sink.add($0) }
        XCTAssertEqual(status, .exited(0))
        XCTAssertEqual(sink.stdout, "ran\n")
        try await shell.removeJobDirectory(dir)
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir))
    }

    func testUnsafeWorkspacePathsAreRejected() async throws {
        let shell = try shell()
        let dir = try await shell.makeJobDirectory(jobID: "unsafe")
        for bad in ["../escape", "/etc/passwd", "a/\u{1B}[31m", "a//b"] {
            do {
                _ = try await shell.push(Workspace(files: [WorkspaceFile(path: bad, contents: Data())]), to: dir)
                XCTFail("pushed \(bad.debugDescription)")
            } catch let error as RemoteShellError {
                XCTAssertEqual(error.kind, .push)
            }
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir), [])
    }

    /// Children start with no blocked and no ignored signals, whatever thread started them.
    func testCommandsStartWithACleanSignalState() async throws {
        let shell = try shell()
        let dir = try await shell.makeJobDirectory(jobID: "signals")
        let sink = Sink()
        let result = try await shell.run(ShellCommand(["sh", "-c", "grep -E '^Sig(Blk|Ign)' /proc/self/status; sleep 0.1 & wait; echo waited"]),
                                         in: dir, deadlines: generous) { sink.add($0) }
        XCTAssertEqual(result, .exited(0))
        XCTAssertTrue(sink.stdout.contains("SigBlk:\t0000000000000000"), sink.stdout)
        XCTAssertTrue(sink.stdout.hasSuffix("waited\n"), sink.stdout)
    }

    func testSecretsAreRedactedAcrossChunkBoundaries() {
        var r = Redactor(secrets: ["hunter2-token"])
        var out: [UInt8] = []
        for piece in ["pass=hun", "ter2-to", "ken ok\nnext ", "line\n"] { out += r.consume(Array(piece.utf8)) }
        out += r.flush()
        XCTAssertEqual(String(decoding: out, as: UTF8.self), "pass=[redacted] ok\nnext line\n")
    }
}
