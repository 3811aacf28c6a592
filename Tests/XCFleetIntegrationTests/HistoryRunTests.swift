import Foundation
import XCTest
@testable import XCFleetKit
import XCFleetTestSupport

/// `xcfleet run` / `history` / `flaky` as a user runs them: the real binary, the built-in local
/// host with the fake `swift` (scripts/fake-swift.sh; the compiler is not what these tests are
/// about), real SQLite and PostgreSQL. History never changes a run's exit code.
final class HistoryRunTests: XCTestCase {
    private var dir: URL!
    private var fleet: URL!

    override func setUpWithError() throws {
        dir = try TestPaths.temporaryDirectory()
        fleet = try FakeToolchain.localFleet(in: dir)
    }

    private func xcfleet(_ args: [String], env: [String: String] = [:]) throws -> CommandResult {
        try FakeToolchain.xcfleet(args, env: env)
    }

    private func runPlan(_ extra: [String] = [], env: [String: String] = [:]) throws -> CommandResult {
        try xcfleet(["run", "Plans/cache-contract.json", "--fleet", fleet.path, "--runs", dir.appendingPathComponent("runs").path, "--quiet"] + extra, env: env)
    }

    private let failing = ["FAKE_SWIFT_FAIL": "CachedLoaderTests/testC6_alwaysMissDoubleStillLoadsFromSource"]

    func testEveryRunIsRecordedByDefaultAndNoHistoryOptsOut() throws {
        let green = try runPlan()
        XCTAssertEqual(green.status, 0, green.stderr)
        XCTAssertEqual(green.stderr, "", "a healthy history prints nothing")
        let red = try runPlan(env: failing)
        XCTAssertEqual(red.status, 1)
        let db = dir.appendingPathComponent("history.sqlite")
        XCTAssertTrue(FileManager.default.fileExists(atPath: db.path), "default: beside the runs directory")
        let listing = try xcfleet(["history", "--runs", dir.appendingPathComponent("runs").path, "--json"])
        XCTAssertEqual(listing.status, 0, listing.stderr)
        let document = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(listing.stdout.utf8)) as? [String: Any], listing.stdout)
        let runs = try XCTUnwrap(document["runs"] as? [[String: Any]], listing.stdout)
        XCTAssertEqual(runs.map { ($0["verdict"] as? [String: Any])?["exitCode"] as? Int }, [1, 0])
        XCTAssertEqual(runs.first?["tests"] as? Int, 36)

        let off = try xcfleet(["run", "Plans/cache-contract.json", "--fleet", fleet.path, "--runs", dir.appendingPathComponent("off/runs").path, "--quiet", "--no-history"])
        XCTAssertEqual(off.status, 0)
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir.appendingPathComponent("off/history.sqlite").path))
    }

    func testFlakyListsATestThatFailedAndPassedWithTheSameCode() throws {
        XCTAssertEqual(try runPlan().status, 0)
        XCTAssertEqual(try runPlan(env: failing).status, 1)
        let flaky = try xcfleet(["flaky", "--runs", dir.appendingPathComponent("runs").path])
        XCTAssertEqual(flaky.status, 0, flaky.stderr)
        XCTAssertTrue(flaky.stdout.contains("testC6_alwaysMissDoubleStillLoadsFromSource"), flaky.stdout)
        XCTAssertTrue(flaky.stdout.contains("50.0%"), flaky.stdout)
        let suggest = try xcfleet(["flaky", "--suggest", "--runs", dir.appendingPathComponent("runs").path])
        XCTAssertTrue(suggest.stdout.contains(#""expires""#), suggest.stdout)
        XCTAssertTrue(suggest.stdout.contains("testC6_alwaysMissDoubleStillLoadsFromSource"), suggest.stdout)

        // A test the quarantine file already holds is not suggested again.
        let quarantine = dir.appendingPathComponent("quarantine.json")
        try Data(#"{"tests": [{"suite": "cache-gate", "test": "CachedLoaderTests/testC6_alwaysMissDoubleStillLoadsFromSource", "reason": "flaky", "owner": "ana", "expires": "\#(QuarantineRunTests.soon)"}]}"#.utf8).write(to: quarantine)
        let again = try xcfleet(["flaky", "--suggest", "--quarantine", quarantine.path, "--runs", dir.appendingPathComponent("runs").path])
        XCTAssertEqual(again.status, 0, again.stderr)
        XCTAssertFalse(again.stdout.contains("testC6_alwaysMissDoubleStillLoadsFromSource"), again.stdout)
        XCTAssertTrue(again.stdout.contains("// 1 flaky test is already quarantined and left out"), again.stdout)
        let missing = try xcfleet(["flaky", "--suggest", "--quarantine", dir.appendingPathComponent("nope.json").path, "--runs", dir.appendingPathComponent("runs").path])
        XCTAssertEqual(missing.status, 2, missing.stdout + missing.stderr)
    }

    func testABrokenHistoryNeverChangesTheExitCode() throws {
        let db = dir.appendingPathComponent("broken.sqlite")
        try Data("not a database at all, just text".utf8).write(to: db)
        for (env, expected) in [([String: String](), Int32(0)), (failing, Int32(1))] {
            let result = try runPlan(["--history-db", db.path], env: env)
            XCTAssertEqual(result.status, expected, result.stderr)
            let notes = result.stderr.split(separator: "\n").filter { $0.contains("history") }
            XCTAssertEqual(notes.count, 2, "one line for durations, one for recording: \(result.stderr)")
            XCTAssertTrue(notes.allSatisfy { $0.contains("not a readable SQLite database") }, result.stderr)
        }
        // A newer schema: refused with one line, the run completes.
        let newer = dir.appendingPathComponent("newer.sqlite")
        XCTAssertEqual(try runPlan(["--history-db", newer.path]).status, 0)
        let c = try SQLiteConnection(path: newer.path)
        try c.execute("UPDATE meta SET value = '99' WHERE key = 'schema_version'")
        c.close()
        let result = try runPlan(["--history-db", newer.path], env: failing)
        XCTAssertEqual(result.status, 1)
        XCTAssertTrue(result.stderr.contains("schema version 99, newer than this xcfleet"), result.stderr)
    }

    /// A history every user may write (its rows could be anyone's): the run says so in one line,
    /// goes on with its exit code, neither reads it (no known-flaky marks from it) nor writes it.
    func testAHistoryOthersCanWriteIsNeitherReadNorWrittenByARun() throws {
        XCTAssertEqual(try runPlan(["--run-id", "r1"]).status, 0)
        XCTAssertEqual(try runPlan(["--run-id", "r2"], env: failing).status, 1)
        let db = dir.appendingPathComponent("history.sqlite").path
        func summary(_ id: String) throws -> String {
            try String(contentsOf: dir.appendingPathComponent("runs/\(id)/summary.md"), encoding: .utf8)
        }
        // Control: our own history marks the flaky test in the next run's report.
        XCTAssertEqual(try runPlan(["--run-id", "r3"]).status, 0)
        let own = try summary("r3")
        XCTAssertTrue(own.contains("Known flaky"), own)
        XCTAssertEqual(chmod(db, 0o666), 0)
        let before = try Data(contentsOf: URL(fileURLWithPath: db))
        let result = try runPlan(["--run-id", "r4"], env: failing)
        XCTAssertEqual(result.status, 1, result.stderr)
        let notes = result.stderr.split(separator: "\n").filter { $0.contains("history") }
        XCTAssertFalse(notes.isEmpty, result.stderr)
        XCTAssertTrue(notes.allSatisfy { $0.contains("can be written by every user") && $0.contains("chmod o-w") }, result.stderr)
        XCTAssertFalse(try summary("r4").contains("Known flaky"), "rows of a file others can write reached the report")
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: db)), before, "the run wrote into a history others can write")
    }

    func testServerDownIsANoteWithoutCredentialsAndTheRunIsQueued() throws {
        let result = try runPlan(env: ["XCFLEET_HISTORY_URL": "postgresql://ci-user:s3cr3t-pw@127.0.0.1:1/history", "XCFLEET_HISTORY_TIMEOUT": "5"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertFalse((result.stdout + result.stderr).contains("s3cr3t-pw"))
        XCTAssertFalse((result.stdout + result.stderr).contains("ci-user"))
        XCTAssertTrue(result.stderr.contains("queued in"), result.stderr)
        let pending = try String(contentsOf: dir.appendingPathComponent("history-pending.txt"), encoding: .utf8)
        XCTAssertEqual(pending.split(separator: "\n").count, 1)
    }

    func testTwoProcessesImportingAtOnceBothLand() throws {
        let runs = dir.appendingPathComponent("old")
        let tests = (0..<2000).map { HistoryFixtures.Test(name: "A/test\($0)", statuses: [.passed], seconds: 0.01) }
        let a = try HistoryFixtures.writeRun(in: runs, runID: "a", startedAt: Date(), tests: tests)
        let b = try HistoryFixtures.writeRun(in: runs, runID: "b", startedAt: Date(), tests: tests)
        let db = dir.appendingPathComponent("shared.sqlite").path
        let results = [a, b].map { run -> Process in
            let p = Process()
            p.executableURL = TestPaths.xcfleetBinary
            p.arguments = ["history", "import", run.path, "--history-db", db]
            p.standardOutput = FileHandle.nullDevice
            try? p.run()
            return p
        }
        for p in results { p.waitUntilExit(); XCTAssertEqual(p.terminationStatus, 0) }
        let c = try SQLiteConnection(path: db)
        XCTAssertEqual(try c.query("SELECT COUNT(*) FROM tests", []).first?.first?.int, 4000)
        XCTAssertEqual(try c.query("SELECT run_id FROM runs ORDER BY run_id", []).compactMap { $0.first?.string }, ["a", "b"])
        c.close()
    }
}

extension HistoryRunTests {
    /// A host whose recent record is over the fleet's threshold is set aside at admission, with the figures.
    func testAHostWithABadRecordIsSetAsideAtAdmission() throws {
        let runs = dir.appendingPathComponent("runs")
        for i in 0..<3 {
            try HistoryFixtures.writeRun(in: runs, runID: "bad\(i)", startedAt: Date() - Double(i) * 3600, host: "local",
                                         tests: [.init(name: "A/testX", statuses: [.passed], seconds: 1)], infraErrorFirst: true)
            XCTAssertEqual(try xcfleet(["history", "import", runs.appendingPathComponent("bad\(i)").path, "--runs", runs.path]).status, 0)
        }
        // 3 infra failures in 6 attempts = 50%: not above 0.5, admitted.
        let strictFleet = dir.appendingPathComponent("strict.json")
        let swift = dir.appendingPathComponent("toolchain/swift").path
        try Data(#"{"maxInfraFailureRate": 0.5, "hosts": [{"name": "local", "transport": "local", "toolchain": {"swiftPath": "\#(swift)"}}]}"#.utf8).write(to: fleet)
        XCTAssertEqual(try runPlan().status, 0)
        try Data(#"{"maxInfraFailureRate": 0.3, "hosts": [{"name": "local", "transport": "local", "toolchain": {"swiftPath": "\#(swift)"}}]}"#.utf8).write(to: strictFleet)
        let result = try xcfleet(["run", "Plans/cache-contract.json", "--fleet", strictFleet.path, "--runs", runs.path, "--json", "--run-id", "strict"])
        XCTAssertEqual(result.status, Verdict.ExitCode.infrastructure, result.stdout + result.stderr)
        let report = try JSONDecoder().decode(RunReport.self, from: Data(contentsOf: runs.appendingPathComponent("strict/report.json")))
        let reason = try XCTUnwrap(report.hostsSetAside["local"])
        XCTAssertTrue(reason.hasPrefix("history: infra-failure rate 43%"), reason)
        XCTAssertTrue(reason.contains("3 infra failures in 7 attempts"), reason)
    }
}
