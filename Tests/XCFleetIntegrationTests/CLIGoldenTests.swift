import XCTest
import XCFleetTestSupport

/// What a user sees in the terminal, through the real `xcfleet` binary, byte for byte: the exit
/// code, stdout and stderr of a few commands on checked-in fixtures are compared with golden files
/// under `Tests/Fixtures/golden/cli` (`XCFLEET_UPDATE_GOLDEN=1` rewrites them; review the diff).
/// The environment is plain and fixed (no colour, dumb terminal, not CI, UTC) and every path
/// given is relative to the working directory, so nothing in the output varies between machines.
final class CLIGoldenTests: XCTestCase {
    /// Plain, stable output: no colour or live view, no CI annotations, no history, fixed zone.
    private static let environment = [
        "NO_COLOR": "1", "TERM": "dumb", "TZ": "UTC", "LC_ALL": "C",
        "CI": "", "GITHUB_ACTIONS": "", "GITHUB_STEP_SUMMARY": "",
        "XCFLEET_NO_HISTORY": "1", "XCFLEET_HISTORY_DB": "", "XCFLEET_HISTORY_URL": "",
    ]

    /// Runs `xcfleet args` in `cwd` and compares exit code, stdout and stderr with
    /// `golden/cli/<name>.stdout` / `.stderr` (a stream left empty has no file and must stay empty).
    @discardableResult
    private func assertGolden(_ args: [String], _ name: String, exit: Int32, cwd: URL = TestPaths.packageRoot,
                              environment: [String: String] = [:],
                              file: StaticString = #filePath, line: UInt = #line) throws -> CommandResult {
        let r = try runCommand(TestPaths.xcfleetBinary, args, cwd: cwd, environment: Self.environment.merging(environment) { $1 })
        let command = "`xcfleet \(args.joined(separator: " "))`"
        XCTAssertEqual(r.status, exit, "\(command) exit code; stderr: \(r.stderr)", file: file, line: line)
        for (stream, text) in [("stdout", r.stdout), ("stderr", r.stderr)] {
            let golden = "cli/\(name).\(stream)"
            if text.isEmpty && !FileManager.default.fileExists(atPath: GoldenFile.url(golden).path) { continue }
            try GoldenFile.assertMatches(text, golden, what: "\(stream) of \(command)", file: file, line: line)
        }
        return r
    }

    // MARK: plan check

    /// A plan with many problems: exit 2, and every problem on its own line with file:line:col.
    func testPlanCheckListsEveryProblem() throws {
        try assertGolden(["plan", "check", "Tests/Fixtures/plans/many-problems.json"], "plan-check-many-problems", exit: 2)
    }

    // MARK: parse

    /// An xcodebuild log with a pass, a failure at file:line, a skip, a thrown error and a restart.
    func testParsePlain() throws {
        try assertGolden(["parse", "Tests/Fixtures/logs/apple_xctest.txt"], "parse-apple-xctest", exit: 1)
    }

    /// Inside GitHub Actions: one annotation per failure; `file=` only for a plain repository-relative
    /// path with a real line (a host path or `<unknown>` goes into the message); a crash told on
    /// the test it killed is not annotated again.
    func testParseAnnotationsOnGitHub() throws {
        let r = try assertGolden(["parse", "Tests/Fixtures/logs/apple_xctest.txt"], "parse-apple-xctest-github", exit: 1,
                                 environment: ["GITHUB_ACTIONS": "true"])
        let annotations = r.stdout.split(separator: "\n").filter { $0.hasPrefix("::") }
        XCTAssertFalse(annotations.isEmpty)
        XCTAssertFalse(annotations.contains { $0.contains("file=/") || $0.contains("file=<unknown>") || $0.contains("line=0") }, r.stdout)
        XCTAssertEqual(annotations.filter { $0.contains("Restarting after unexpected exit") }.count, 1, r.stdout)
        XCTAssertTrue(annotations.contains { $0.contains("::at /Users/ci/work/Cache/Tests/CacheTests/StoreTests.swift:42: XCTAssertEqual failed") }, r.stdout)
    }

    func testParseJSON() throws {
        try assertGolden(["parse", "Tests/Fixtures/logs/apple_xctest.txt", "--json"], "parse-apple-xctest-json", exit: 1)
    }

    // MARK: report

    /// `report RUN_DIR` on a checked-in events.jsonl (copied: report writes its artifacts into the
    /// run directory), named relative to the working directory so no temporary path is printed.
    private func copiedRun() throws -> URL {
        let work = try TestPaths.temporaryDirectory()
        addTeardownBlock { try? FileManager.default.removeItem(at: work) }
        let run = work.appendingPathComponent("run-golden")
        try FileManager.default.createDirectory(at: run, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: TestPaths.fixtures.appendingPathComponent("runs/golden/events.jsonl"),
                                         to: run.appendingPathComponent("events.jsonl"))
        return work
    }

    func testReportPlain() throws {
        let work = try copiedRun()
        try assertGolden(["report", "run-golden"], "report-golden", exit: 1, cwd: work)
        for artifact in ["report.json", "junit.xml", "summary.md", "report.html"] {
            XCTAssertTrue(FileManager.default.fileExists(atPath: work.appendingPathComponent("run-golden/\(artifact)").path), artifact)
        }
    }

    func testReportJSON() throws {
        try assertGolden(["report", "run-golden", "--json"], "report-golden-json", exit: 1, cwd: try copiedRun())
    }
}
