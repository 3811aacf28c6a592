import XCTest
import XCFleetTestSupport

/// Every command's `--json` output, through the real binary, validated against
/// `docs/json-output.schema.json` by python3's `jsonschema` (Debian `python3-jsonschema`,
/// `scripts/install-deps.sh --test`): run, report, parse, history, flaky and hosts check, and the
/// document a command that cannot start (exit 2) still writes.
final class JSONOutputSchemaTests: XCTestCase {
    private static let schema = TestPaths.packageRoot.appendingPathComponent("docs/json-output.schema.json")

    private func validator() throws -> URL {
        guard let path = ReportingTestSupport.which("python3") else { throw XCTSkip("python3 not found") }
        let python = URL(fileURLWithPath: path)
        let probe = try runCommand(python, ["-c", "import jsonschema"])
        guard probe.status == 0 else { throw XCTSkip("python3 jsonschema not installed: apt-get install python3-jsonschema (scripts/install-deps.sh --test)") }
        return python
    }

    /// Problems `jsonschema` finds in `document` (empty when it validates).
    private func problems(_ document: String) throws -> String {
        let python = try validator()
        let script = """
        import json, sys, jsonschema
        schema = json.load(open(sys.argv[1]))
        jsonschema.Draft202012Validator.check_schema(schema)
        errors = sorted(jsonschema.Draft202012Validator(schema).iter_errors(json.loads(sys.stdin.read())), key=str)
        print("\\n".join(e.message for e in errors))
        sys.exit(1 if errors else 0)
        """
        let r = try runCommand(python, ["-c", script, Self.schema.path], stdin: Data(document.utf8))
        return r.status == 0 ? "" : (r.stdout + r.stderr).isEmpty ? "invalid (exit \(r.status))" : r.stdout + r.stderr
    }

    private func xcfleet(_ args: [String], cwd: URL = TestPaths.packageRoot, environment: [String: String] = [:]) throws -> CommandResult {
        var env = ["NO_COLOR": "1", "TERM": "dumb", "CI": "", "GITHUB_ACTIONS": "", "XCFLEET_NO_HISTORY": "1"]
        env.merge(environment) { $1 }
        return try runCommand(TestPaths.xcfleetBinary, args, cwd: cwd, environment: env)
    }

    private func assertValid(_ args: [String], exit: Int32, cwd: URL = TestPaths.packageRoot, environment: [String: String] = [:],
                             file: StaticString = #filePath, line: UInt = #line) throws {
        let r = try xcfleet(args, cwd: cwd, environment: environment)
        XCTAssertEqual(r.status, exit, "xcfleet \(args.joined(separator: " ")): \(r.stderr)", file: file, line: line)
        XCTAssertFalse(r.stdout.isEmpty, "xcfleet \(args.joined(separator: " ")) wrote no JSON", file: file, line: line)
        let found = try problems(r.stdout)
        XCTAssertEqual(found, "", "xcfleet \(args.joined(separator: " ")): \(r.stdout)", file: file, line: line)
    }

    func testEveryCommandsJSONValidatesAgainstTheSchema() throws {
        _ = try validator()
        let work = try TestPaths.temporaryDirectory()
        addTeardownBlock { try? FileManager.default.removeItem(at: work) }
        let run = work.appendingPathComponent("run-golden")
        try FileManager.default.createDirectory(at: run, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: TestPaths.fixtures.appendingPathComponent("runs/golden/events.jsonl"), to: run.appendingPathComponent("events.jsonl"))

        try assertValid(["parse", "Tests/Fixtures/logs/apple_xctest.txt", "--json"], exit: 1)
        try assertValid(["report", "run-golden", "--json"], exit: 1, cwd: work)
        // Exit 2: the problems, still as a document.
        try assertValid(["parse", "no-such.log", "--json"], exit: 2)
        try assertValid(["report", "no-such-run", "--json"], exit: 2, cwd: work)
        try assertValid(["run", "no-such-plan.json", "--json"], exit: 2)
        // History and flaky over a history of their own (empty, then after an import of the run).
        let env = ["XCFLEET_NO_HISTORY": ""]
        let db = work.appendingPathComponent("history.sqlite").path
        try assertValid(["history", "--json", "--history-db", db], exit: 0, environment: env)
        try assertValid(["flaky", "--json", "--history-db", db], exit: 0, environment: env)
        let imported = try xcfleet(["history", "import", run.path, "--history-db", db], environment: env)
        XCTAssertEqual(imported.status, 0, imported.stdout + imported.stderr)
        try assertValid(["history", "--json", "--history-db", db], exit: 0, environment: env)
        // The history prints the run's figures, as its reports do.
        let listed = try xcfleet(["history", "--history-db", db], environment: env)
        XCTAssertTrue(listed.stdout.contains("tests 3 passed, 1 failed of 4"), listed.stdout)
        let report = try xcfleet(["report", "run-golden"], cwd: work)
        XCTAssertTrue(report.stdout.contains("gate  cache-contract: red, 2 passed, 1 failed of 3"), report.stdout)
        // hosts check of the built-in local host (read-only probes) and of a fleet file that does not exist.
        try assertValid(["hosts", "check", "--json"], exit: 0, environment: ["XCFLEET_WORK_ROOT": work.appendingPathComponent("root").path])
        try assertValid(["hosts", "check", "--json", "--fleet", "no-such-fleet.json"], exit: 2)
        // hosts check --deep (a toolchain whose build fails: quick, and the steps are in the document).
        let swift = work.appendingPathComponent("swift")
        try Data("#!/bin/sh\n[ \"$1\" = --version ] && { echo 'Swift version 6.3.1'; exit 0; }\necho 'error: no'; exit 1\n".utf8).write(to: swift)
        XCTAssertEqual(chmod(swift.path, 0o755), 0)
        let deepRoot = work.appendingPathComponent("deep-root")
        try FileManager.default.createDirectory(at: deepRoot, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let deepFleet = work.appendingPathComponent("deep-fleet.json")
        try Data(#"{"hosts": [{"name": "local", "transport": "local", "workRoot": "\#(deepRoot.path)", "toolchain": {"swiftPath": "\#(swift.path)"}}]}"#.utf8).write(to: deepFleet)
        try assertValid(["hosts", "check", "--json", "--deep", "--fleet", deepFleet.path], exit: 3)
    }

    /// The validator does fail: a run document with a float duration and no verdict word.
    func testTheSchemaRejectsAnOffShapeDocument() throws {
        let bad = #"{"schemaVersion": 1, "command": "parse", "runID": "p", "startedAt": "1764000000", "durationSeconds": -1, "verdict": {"exitCode": 1, "line": "x", "interrupted": false}, "figures": {}, "jobs": 1, "attempts": 1, "jobsByState": {}, "suites": [], "failures": []}"#
        XCTAssertNotEqual(try problems(bad), "")
    }

    /// A location the runner did not know is absent, never `<unknown>:0`: the real output has none,
    /// and the schema refuses one.
    func testAnUnknownLocationIsAbsentFromParseJSON() throws {
        _ = try validator()
        let r = try xcfleet(["parse", "Tests/Fixtures/logs/apple_xctest.txt", "--json"])
        XCTAssertFalse(r.stdout.contains("<unknown>"), r.stdout)
        XCTAssertTrue(r.stdout.contains(#""message":"failed: caught error: \"boom\"""#), r.stdout)
        let forged = r.stdout.replacingOccurrences(of: #""message":"failed: caught error"#, with: #""location":"<unknown>:0","message":"failed: caught error"#)
        XCTAssertNotEqual(forged, r.stdout)
        XCTAssertNotEqual(try problems(forged), "", "the schema must refuse <unknown>:0")
        XCTAssertEqual(try problems(r.stdout), "")
    }
}
