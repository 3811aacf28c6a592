import XCTest
@testable import XCFleetKit
import XCFleetTestSupport

/// The live view on a real terminal: the built `xcfleet` binary runs a tiny plan inside a
/// detached tmux pane; `capture-pane` shows what a person sees, `pipe-pane` records the raw
/// bytes the program wrote (cursor movement, colour codes).
///
/// The plan runs a template root made here: the package scaffold, a one-file `CacheContract`
/// and four tests that sleep briefly (one fails on purpose), split into two shards on a local
/// host with two slots. A run takes about 10–15 s.
final class LiveConsoleTests: XCTestCase {
    private var tmuxPath: URL!
    private var socket = ""
    private var root: URL!

    override func setUpWithError() throws {
        guard let tmux = Self.findExecutable("tmux") else {
            if let ci = ProcessInfo.processInfo.environment["CI"], !ci.isEmpty {
                throw TmuxMissing(reason: "tmux is required to check the live view under CI: apt-get install tmux")
            }
            throw XCTSkip("tmux is not installed (apt-get install tmux): the live terminal view is not checked")
        }
        tmuxPath = tmux
        root = try makeTinyRoot()
        socket = root.appendingPathComponent("tmux.sock").path
        // A tmux server of our own, in the foreground (-D). A daemonizing server started by the
        // first client would inherit the descriptor Foundation's Process watches for that client's
        // exit, and `waitUntilExit` would never return.
        let server = Process()
        server.executableURL = tmux
        server.arguments = ["-S", socket, "-D"]
        server.standardInput = FileHandle.nullDevice
        server.standardOutput = FileHandle.nullDevice
        server.standardError = FileHandle.nullDevice
        try server.run()
        addTeardownBlock { [weak self] in
            _ = try? self?.tmux(["kill-server"])
            if server.isRunning { server.terminate() }
            server.waitUntilExit()
        }
        let deadline = Date().addingTimeInterval(10)
        while !FileManager.default.fileExists(atPath: socket), Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        guard FileManager.default.fileExists(atPath: socket) else { throw TmuxMissing(reason: "the tmux server did not start (no \(socket))") }
    }

    func testLiveViewRedrawsInPlaceThenLeavesTheSummary() throws {
        let run = try startInTmux(name: "live", environment: "unset CI; export NO_COLOR=1", width: 72, height: 24)

        // Mid-run: one line per slot and the progress line, redrawn in place.
        var mid: [String] = []
        let midDeadline = Date().addingTimeInterval(240)
        while Date() < midDeadline {
            let lines = try capture(run.session)
            if lines.contains(where: { $0.hasPrefix("local#0") }), lines.contains(where: { $0.hasPrefix("local#1") }),
               lines.contains(where: { $0.contains(" jobs") && $0.contains("ETA") }) {
                mid = lines
                break
            }
            if lines.contains(where: { $0.hasPrefix("EXIT=") }) { break }
            Thread.sleep(forTimeInterval: 0.2)
        }
        let seen = try capture(run.session).joined(separator: "\n")
        XCTAssertFalse(mid.isEmpty, "the live view never showed both slots and the progress line:\n\(seen)")
        let live = mid.filter { $0.hasPrefix("local#") || $0.contains("ETA") }
        XCTAssertEqual(live.count, 3, mid.joined(separator: "\n"))
        for line in live {
            XCTAssertLessThanOrEqual(TerminalText.columns(line), 71, "a live line must never wrap: \(line)")
            XCTAssertTrue(line.contains("tiny-gate#s") || line.contains("ETA") || line.contains("idle"), line)
        }
        let progress = try XCTUnwrap(live.last)
        XCTAssertTrue(progress.hasPrefix("["), "the bar fits at 72 columns: \(progress)")
        // The total is what the jobs have listed so far ("+" while a job has not listed its tests yet).
        XCTAssertTrue(progress.contains("/2 jobs") && progress.range(of: #"/(4|[0-3]\+) tests"#, options: .regularExpression) != nil
                      && progress.contains("elapsed 0:"), progress)
        XCTAssertTrue(live[0].contains(" tests "), "slot line shows done/expected tests: \(live[0])")

        // After: the live area is gone; the failure stayed in scrollback above the summary.
        let final = try waitForExit(run.session)
        let text = final.joined(separator: "\n")
        XCTAssertTrue(final.contains("EXIT=1"), text)
        XCTAssertTrue(text.contains("xcfleet RED"), text)
        XCTAssertTrue(text.contains("✘ TinyTests/testThree"), "the failure is printed above the live area: \(text)")
        XCTAssertTrue(text.contains("tiny failure on purpose"), text)
        XCTAssertFalse(final.contains { $0.hasPrefix("local#") || $0.contains("ETA") }, "the live area was cleared:\n\(text)")
        let failureLine = try XCTUnwrap(final.firstIndex { $0.contains("✘ TinyTests/testThree") })
        let summaryLine = try XCTUnwrap(final.firstIndex { $0.hasPrefix("xcfleet RED") })
        XCTAssertLessThan(failureLine, summaryLine)

        // The raw bytes: in-place redraws (cursor up, clear to end), no colour (NO_COLOR), at most ~10 frames/s.
        let raw = try rawOutput(run)
        XCTAssertTrue(raw.range(of: "\u{1B}\\[[0-9]+A\u{1B}\\[J", options: .regularExpression) != nil, "redrawn in place")
        XCTAssertNil(raw.range(of: "\u{1B}\\[[0-9;]*m", options: .regularExpression), "NO_COLOR: no colour codes")
        let frames = raw.components(separatedBy: "\u{1B}[J").count - 1
        let seconds = try runSeconds(run)
        XCTAssertLessThanOrEqual(Double(frames), seconds * 10 + 3, "\(frames) redraws in \(seconds) s")
    }

    func testCIGetsPlainLinesWithoutEscapeSequencesOnATerminal() throws {
        let run = try startInTmux(name: "ci", environment: "export CI=1; unset NO_COLOR", width: 100, height: 30)
        let final = try waitForExit(run.session)
        let text = final.joined(separator: "\n")
        XCTAssertTrue(final.contains("EXIT=1"), text)
        XCTAssertFalse(final.contains { $0.hasPrefix("local#") || $0.contains("ETA") }, "no live view under CI:\n\(text)")
        let stamped = final.filter { $0.range(of: #"^ +[0-9]+\.[0-9]s  "#, options: .regularExpression) != nil }
        XCTAssertTrue(stamped.contains { $0.hasSuffix("build…") }, "timestamped phase lines:\n\(text)")
        XCTAssertTrue(stamped.contains { $0.contains("✘ TinyTests/testThree") }, text)
        XCTAssertTrue(text.contains("xcfleet RED"), text)
        let raw = try rawOutput(run)
        XCTAssertFalse(raw.contains("\u{1B}"), "no escape sequence at all under CI: \(raw.debugDescription.prefix(400))")
    }

    // MARK: Helpers

    private struct TmuxRun {
        var session: String
        var raw: URL
        var times: URL
    }

    /// Starts the plan in a detached pane; raw output is recorded from the first byte on.
    private func startInTmux(name: String, environment: String, width: Int, height: Int) throws -> TmuxRun {
        let dir = root.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let raw = dir.appendingPathComponent("raw.log"), times = dir.appendingPathComponent("times")
        let script = """
        \(environment)
        read -r go
        date +%s.%N > '\(times.path)'
        '\(TestPaths.xcfleetBinary.path)' run '\(root.appendingPathComponent("plan.json").path)' --fleet '\(root.appendingPathComponent("fleet.json").path)' --templates '\(root.path)' --runs '\(dir.appendingPathComponent("runs").path)'
        status=$?
        date +%s.%N >> '\(times.path)'
        echo "EXIT=$status"
        sleep 600
        """
        let scriptURL = dir.appendingPathComponent("run.sh")
        try Data(script.utf8).write(to: scriptURL)
        try tmux(["new-session", "-d", "-s", name, "-x", "\(width)", "-y", "\(height)", "sh '\(scriptURL.path)'"])
        try tmux(["pipe-pane", "-t", name, "-o", "cat >> '\(raw.path)'"])
        try tmux(["send-keys", "-t", name, "Enter"])
        return TmuxRun(session: name, raw: raw, times: times)
    }

    /// Runs one tmux command. Its output goes to files, not pipes: the tmux server that
    /// `new-session` starts inherits the client's descriptors and would hold a pipe open forever.
    @discardableResult
    private func tmux(_ args: [String]) throws -> String {
        let dir = try TestPaths.temporaryDirectory("tmux")
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("out"), err = dir.appendingPathComponent("err")
        _ = FileManager.default.createFile(atPath: out.path, contents: nil)
        _ = FileManager.default.createFile(atPath: err.path, contents: nil)
        let outHandle = try FileHandle(forWritingTo: out), errHandle = try FileHandle(forWritingTo: err)
        let p = Process()
        p.executableURL = tmuxPath
        p.arguments = ["-S", socket] + args
        p.standardInput = FileHandle.nullDevice
        p.standardOutput = outHandle
        p.standardError = errHandle
        try p.run()
        p.waitUntilExit()
        try? outHandle.close()
        try? errHandle.close()
        let stderr = String(decoding: (try? Data(contentsOf: err)) ?? Data(), as: UTF8.self)
        XCTAssertEqual(p.terminationStatus, 0, "tmux \(args.joined(separator: " ")): \(stderr)")
        return String(decoding: try Data(contentsOf: out), as: UTF8.self)
    }

    /// The pane's lines, scrollback included, wrapped lines joined, trailing blanks dropped.
    private func capture(_ session: String) throws -> [String] {
        let text = try tmux(["capture-pane", "-p", "-J", "-S", "-", "-t", session])
        var lines = text.components(separatedBy: "\n").map { String($0.reversed().drop { $0 == " " }.reversed()) }
        while lines.last == "" { lines.removeLast() }
        return lines
    }

    private func waitForExit(_ session: String) throws -> [String] {
        let deadline = Date().addingTimeInterval(300)
        var lines: [String] = []
        while Date() < deadline {
            lines = try capture(session)
            if lines.contains(where: { $0.hasPrefix("EXIT=") }) { return lines }
            Thread.sleep(forTimeInterval: 0.3)
        }
        XCTFail("the run did not end within 300 s:\n\(lines.joined(separator: "\n"))")
        return lines
    }

    private func rawOutput(_ run: TmuxRun) throws -> String {
        // pipe-pane writes asynchronously: give it a moment after EXIT= showed.
        Thread.sleep(forTimeInterval: 0.5)
        return String(decoding: try Data(contentsOf: run.raw), as: UTF8.self)
    }

    private func runSeconds(_ run: TmuxRun) throws -> Double {
        let stamps = try String(contentsOf: run.times, encoding: .utf8).split(separator: "\n").compactMap { Double($0) }
        guard stamps.count == 2 else { throw XCTSkip("could not time the run: \(stamps)") }
        return stamps[1] - stamps[0]
    }

    /// A template root with a tiny `cache-contract` template: four tests, 0.6 s each, one failing.
    private func makeTinyRoot() throws -> URL {
        let root = try TestPaths.temporaryDirectory("tinyroot")
        addTeardownBlock { try? FileManager.default.removeItem(at: root) }
        let fm = FileManager.default
        try fm.createDirectory(at: root.appendingPathComponent("Templates"), withIntermediateDirectories: true)
        try fm.copyItem(at: TestPaths.packageRoot.appendingPathComponent("Templates/package"), to: root.appendingPathComponent("Templates/package"))
        let core = root.appendingPathComponent("Sources/CacheContract")
        try fm.createDirectory(at: core, withIntermediateDirectories: true)
        try Data("public enum Tiny { public static func twice(_ x: Int) -> Int { x * 2 } }\n".utf8).write(to: core.appendingPathComponent("Tiny.swift"))
        let tests = root.appendingPathComponent("Templates/cache-contract")
        try fm.createDirectory(at: tests, withIntermediateDirectories: true)
        try Data("""
        import XCTest
        import CacheContract
        #if canImport(Glibc)
        import Glibc
        #endif

        final class TinyTests: XCTestCase {
            // Output through a pipe is block-buffered: flush so results leave as they happen.
            override func setUp() { super.setUp(); fflush(nil) }
            func testOne() throws { Thread.sleep(forTimeInterval: 0.6); XCTAssertEqual(Tiny.twice(1), 2) }
            func testTwo() throws { Thread.sleep(forTimeInterval: 0.6); XCTAssertEqual(Tiny.twice(2), 4) }
            func testThree() throws { Thread.sleep(forTimeInterval: 0.6); XCTAssertEqual(Tiny.twice(3), 7, "tiny failure on purpose") }
            func testFour() throws { Thread.sleep(forTimeInterval: 0.6); XCTAssertEqual(Tiny.twice(4), 8) }
        }

        """.utf8).write(to: tests.appendingPathComponent("TinyTests.swift"))
        try Data(#"{"name": "tiny", "suites": [{"name": "tiny-gate", "template": "cache-contract", "kind": "gate", "shards": 2}]}"#.utf8)
            .write(to: root.appendingPathComponent("plan.json"))
        let work = root.appendingPathComponent("work").path
        try Data(#"{"hosts": [{"name": "local", "transport": "local", "slots": 2, "workRoot": "\#(work)"}]}"#.utf8)
            .write(to: root.appendingPathComponent("fleet.json"))
        return root
    }

    private struct TmuxMissing: Error, CustomStringConvertible {
        var reason: String
        var description: String { reason }
    }

    private static func findExecutable(_ name: String) -> URL? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for dir in path.split(separator: ":").map(String.init) + ["/usr/bin", "/usr/local/bin"] {
            let url = URL(fileURLWithPath: dir).appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: url.path) { return url }
        }
        return nil
    }
}
