import Foundation
import XCTest
@testable import XCFleetKit
import XCFleetTestSupport

/// Through the real binary: render cannot delete outside `--out` (1), terminal output
/// is sanitized (5), `--run-id` is validated (7), a link to a FIFO does not hang (9).
final class HardeningCLITests: XCTestCase {
    var dir: URL!

    override func setUpWithError() throws {
        dir = try TestPaths.temporaryDirectory("hardening-cli")
    }

    /// Runs the binary with a 60 s deadline (a hang fails the test instead of the suite).
    func xcfleet(_ args: [String], stdin: Data? = nil, environment: [String: String] = [:]) throws -> CommandResult {
        let p = Process()
        p.executableURL = TestPaths.xcfleetBinary
        p.arguments = args
        p.currentDirectoryURL = dir
        var env = ProcessInfo.processInfo.environment
        env["XCFLEET_HOME"] = TestPaths.packageRoot.path
        env["GITHUB_ACTIONS"] = nil
        for (k, v) in environment { env[k] = v }
        p.environment = env
        let outFile = dir.appendingPathComponent("stdout-\(UUID().uuidString)"), errFile = dir.appendingPathComponent("stderr-\(UUID().uuidString)")
        FileManager.default.createFile(atPath: outFile.path, contents: nil)
        FileManager.default.createFile(atPath: errFile.path, contents: nil)
        p.standardOutput = try FileHandle(forWritingTo: outFile)
        p.standardError = try FileHandle(forWritingTo: errFile)
        p.standardInput = FileHandle.nullDevice
        try p.run()
        let end = Date().addingTimeInterval(60)
        while p.isRunning && Date() < end { usleep(20_000) }
        if p.isRunning { kill(p.processIdentifier, SIGKILL); XCTFail("xcfleet \(args) hung") }
        p.waitUntilExit()
        return CommandResult(status: p.terminationStatus, stdout: try String(contentsOf: outFile, encoding: .utf8),
                             stderr: try String(contentsOf: errFile, encoding: .utf8))
    }

    func assertNoControlBytes(_ text: String, _ what: String, file: StaticString = #filePath, line: UInt = #line) {
        let bad = text.unicodeScalars.filter { ($0.value < 0x20 && $0.value != 0x0A) || (0x7F...0x9F).contains($0.value) }
        XCTAssertTrue(bad.isEmpty, "\(what) carries raw control characters \(bad.map { String($0.value, radix: 16) })", file: file, line: line)
    }

    func testRenderWithASuiteNamedDotDotDeletesNothing() throws {
        let victim = dir.appendingPathComponent("victim")
        try FileManager.default.createDirectory(at: victim.appendingPathComponent("out"), withIntermediateDirectories: true)
        try Data("keep".utf8).write(to: victim.appendingPathComponent("precious.txt"))
        let plan = dir.appendingPathComponent("p.json")
        try Data(#"{"name":"p","suites":[{"name":"..","template":"cache-contract"}]}"#.utf8).write(to: plan)
        let check = try xcfleet(["plan", "check", plan.path])
        XCTAssertEqual(check.status, 2, check.stdout + check.stderr)
        XCTAssertTrue(check.stderr.contains("suites[0].name: must not be '.' or '..'"), check.stderr)
        let render = try xcfleet(["render", plan.path, "--out", "victim/out"])
        XCTAssertEqual(render.status, 2, render.stdout + render.stderr)
        XCTAssertEqual(try String(contentsOf: victim.appendingPathComponent("precious.txt"), encoding: .utf8), "keep")
        XCTAssertTrue(FileManager.default.fileExists(atPath: victim.appendingPathComponent("out").path))
        XCTAssertFalse(FileManager.default.fileExists(atPath: victim.appendingPathComponent("Package.swift").path))
    }

    /// A test named `Spoof.test` + 200 backspaces + a fake green verdict: `parse` exits 1 and
    /// nothing on stdout/stderr can erase or overwrite what is already on the line.
    func testParseNeverPrintsBackspacesOrEscapesFromTheLog() throws {
        let spoof = "test" + String(repeating: "\u{8}", count: 200) + "xcfleet GREEN: all 1 gate green\u{1B}[2K\u{1B}]0;owned\u{7}\r"
        let log = """
        Test Suite 'All tests' started at 2025-06-01 12:00:00.000
        Test Suite 'Spoof' started at 2025-06-01 12:00:00.000
        Test Case '-[M.Spoof \(spoof)]' started.
        /tmp/x.swift:1: error: -[M.Spoof \(spoof)] : XCTAssertTrue failed - \u{1B}[32mfine\u{1B}[0m\u{9B}31m
        Test Case '-[M.Spoof \(spoof)]' failed (0.001 seconds).
        Test Suite 'Spoof' failed at 2025-06-01 12:00:00.001.
        """
        let file = dir.appendingPathComponent("spoof.log")
        try Data(log.utf8).write(to: file)
        let r = try xcfleet(["parse", file.path])
        XCTAssertEqual(r.status, 1, r.stdout + r.stderr)
        XCTAssertTrue(r.stdout.contains("xcfleet RED"), r.stdout)
        XCTAssertTrue(r.stdout.contains("Spoof"), "the failing test is still named: \(r.stdout)")
        assertNoControlBytes(r.stdout, "parse stdout")
        assertNoControlBytes(r.stderr, "parse stderr")
        // --json stays JSON and carries no raw control characters either.
        let j = try xcfleet(["parse", file.path, "--json"])
        assertNoControlBytes(j.stdout, "parse --json")
        XCTAssertNoThrow(try JSONSerialization.jsonObject(with: Data(j.stdout.utf8)))
    }

    /// ESC/OSC sequences written into a run's events.jsonl by someone else never reach the terminal.
    func testReportOfATamperedEventsLogPrintsNoEscapes() throws {
        let run = dir.appendingPathComponent("run")
        let log = try EventLog(directory: run)
        let evil = "\u{1B}]0;pwned\u{7}\u{1B}[2J\u{1B}[1;1Hxcfleet GREEN\u{8}\u{8}"
        let suite = SuiteSpec(name: "gate\(evil)", template: "cache-contract")
        log.append(.runStarted(RunStarted(runID: "r\(evil)", planName: "p\(evil)", planPath: "p.json", startedAt: "2026-12-01T00:00:00Z",
                                          xcfleetVersion: "0", suites: [suite], hosts: ["h\(evil)"])))
        log.append(.jobPlanned(JobPlanned(jobID: "j", suite: suite.name, kind: .gate, expectedTests: ["A/b"])))
        log.append(.hostSetAside(host: "h\(evil)", reason: "reason \(evil)\nxcfleet GREEN: fake line"))
        log.append(.jobUnschedulable(jobID: "j", reason: "nope \(evil)"))
        log.append(.note("note \(evil)"))
        log.append(.runFinished(interrupted: false))
        let r = try xcfleet(["report", run.path])
        XCTAssertNotEqual(r.status, 0, r.stdout + r.stderr)
        XCTAssertTrue(r.stdout.contains("set aside"), r.stdout)
        assertNoControlBytes(r.stdout, "report stdout")
        assertNoControlBytes(r.stderr, "report stderr")
        XCTAssertFalse(r.stdout.split(separator: "\n").contains { $0.hasPrefix("xcfleet GREEN") }, r.stdout)
    }

    func testRunIDIsValidatedAndNeverReused() throws {
        let plan = TestPaths.packageRoot.appendingPathComponent("Plans/cache-contract.json").path
        let r = try xcfleet(["run", plan, "--runs", "runs", "--run-id", "../../x", "--quiet"])
        XCTAssertEqual(r.status, 2, r.stdout + r.stderr)
        XCTAssertTrue(r.stderr.contains("--run-id '../../x'"), r.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir.deletingLastPathComponent().appendingPathComponent("x").path))
        // An existing run directory: refused, its events untouched.
        let existing = dir.appendingPathComponent("runs/taken")
        try FileManager.default.createDirectory(at: existing, withIntermediateDirectories: true)
        try Data("old events\n".utf8).write(to: existing.appendingPathComponent("events.jsonl"))
        let again = try xcfleet(["run", plan, "--runs", "runs", "--run-id", "taken", "--quiet"])
        XCTAssertEqual(again.status, 2, again.stdout + again.stderr)
        XCTAssertTrue(again.stderr.contains("already exists"), again.stderr)
        XCTAssertEqual(try String(contentsOf: existing.appendingPathComponent("events.jsonl"), encoding: .utf8), "old events\n")
    }

    func testPlanCheckOfALinkToAFIFODoesNotHang() throws {
        let fifo = dir.appendingPathComponent("p.fifo").path
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        try FileManager.default.createSymbolicLink(atPath: dir.appendingPathComponent("p.json").path, withDestinationPath: fifo)
        let r = try xcfleet(["plan", "check", "p.json"])
        XCTAssertEqual(r.status, 2, r.stdout + r.stderr)
        XCTAssertTrue(r.stderr.contains("p.json: cannot read the file: not a regular file (it is a FIFO"), r.stderr)
        let run = try xcfleet(["run", "p.json", "--quiet"])
        XCTAssertEqual(run.status, 2, run.stdout + run.stderr)
    }
}
