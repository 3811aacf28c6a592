import Foundation
import XCTest
@testable import XCFleetKit
import XCFleetTestSupport

/// Trends, cost and known-flaky marks end to end: the real binary on the built-in local host
/// (with the fake `swift`, scripts/fake-swift.sh), a temporary SQLite history, three runs of
/// Plans/cache-contract.json; the third run's reports carry the data and `xcfleet report RUN_DIR`
/// rebuilds them byte for byte from events.jsonl.
final class TrendsRunTests: XCTestCase {
    private var dir: URL!
    private var fleet: URL!

    override func setUpWithError() throws {
        dir = try TestPaths.temporaryDirectory()
        fleet = try FakeToolchain.localFleet(in: dir, hostKeys: #""pricePerHour": 7.2, "#)
    }

    private func xcfleet(_ args: [String], env: [String: String] = [:]) throws -> CommandResult {
        try FakeToolchain.xcfleet(args, env: env)
    }

    private func run(_ id: String, _ extra: [String] = [], env: [String: String] = [:]) throws -> CommandResult {
        try xcfleet(["run", "Plans/cache-contract.json", "--fleet", fleet.path, "--runs", dir.appendingPathComponent("runs").path,
                     "--run-id", id, "--quiet"] + extra, env: env)
    }

    private func read(_ run: String, _ file: String) throws -> String {
        try String(contentsOf: dir.appendingPathComponent("runs/\(run)/\(file)"), encoding: .utf8)
    }

    private let flakyTest = "CachedLoaderTests/testC6_alwaysMissDoubleStillLoadsFromSource"

    func testThirdRunShowsTrendsCostAndKnownFlakyAndRebuildsByteIdentically() throws {
        XCTAssertEqual(try run("r1").status, 0)
        // Same code, one test fails: the history measures it as flaky across runs.
        XCTAssertEqual(try run("r2", env: ["FAKE_SWIFT_FAIL": flakyTest]).status, 1)
        let third = try run("r3")
        XCTAssertEqual(third.status, 0, third.stderr)
        XCTAssertEqual(third.stderr, "", "a healthy history prints nothing")
        XCTAssertTrue(third.stdout.contains("cost: $"), third.stdout)

        let html = try read("r3", "report.html")
        XCTAssertTrue(html.contains("<section id=\"trends\">"))
        XCTAssertTrue(html.contains("The last 3 runs of plan"), "r1, r2 and this run")
        XCTAssertTrue(html.contains("<title>r2: not passed</title>"), "r2's red gate is in the pass bars")
        XCTAssertTrue(html.contains("<title>r3: passed</title>"))
        XCTAssertTrue(html.contains("67% (2/3)"), "gate pass rate over the 3 runs")
        XCTAssertTrue(html.contains("<section id=\"cost\">"))
        XCTAssertTrue(html.contains(">known flaky 50%</span>"), "the test that failed in r2 and passed in r1 is marked")
        let md = try read("r3", "summary.md")
        XCTAssertTrue(md.contains("### Trends (last 3 runs)"), md)
        XCTAssertTrue(md.contains("**Cost:** $"), md)
        XCTAssertTrue(md.contains("### Known flaky (1, last 30 days)"), md)
        let json = try JSONReportRenderer.decode(Data(contentsOf: dir.appendingPathComponent("runs/r3/report.json")))
        XCTAssertEqual(json.history?.trends?.runs, 3)
        XCTAssertNotNil(json.history?.cost?.total)
        XCTAssertEqual(json.history?.knownFlaky?.map(\.test).contains { $0.hasSuffix("testC6_alwaysMissDoubleStillLoadsFromSource") }, true)

        // The first run had no history yet: cost, an empty-history trend (this run only), no flaky marks.
        XCTAssertTrue(try read("r1", "report.html").contains("The last 1 run of plan"))

        // Rebuilt from events.jsonl alone — even after the history is gone — byte for byte.
        let before = try ["report.html", "summary.md", "report.json", "junit.xml"].map { try read("r3", $0) }
        try FileManager.default.removeItem(at: dir.appendingPathComponent("history.sqlite"))
        let rebuilt = try xcfleet(["report", dir.appendingPathComponent("runs/r3").path])
        XCTAssertEqual(rebuilt.status, 0, rebuilt.stderr)
        let after = try ["report.html", "summary.md", "report.json", "junit.xml"].map { try read("r3", $0) }
        XCTAssertEqual(before, after, "xcfleet report reproduces the reports byte for byte")

        // A regression in the snapshot is called out (report, summary, terminal) and the exit code stays 0.
        let eventsURL = dir.appendingPathComponent("runs/r3/events.jsonl")
        var events = try EventLog.read(eventsURL)
        guard case .historyContext(var context) = events.last?.body else { return XCTFail("the context is the last event") }
        context.trends?.metrics = [HistoryContext.Series(name: "memory_delta (bytes)", points: [
            .init(runID: "a", value: 100), .init(runID: "b", value: 101), .init(runID: "c", value: 99), .init(runID: "r3", value: 500)])]
        let judged = TrendRule.judge("memory_delta (bytes)", points: context.trends!.metrics[0].points, currentRunID: "r3", higherIsWorse: true) { "\($0)" }
        context.trends?.metrics[0].median = judged.median
        context.trends?.metrics[0].regression = judged.regression
        events[events.count - 1].body = .historyContext(context)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        try Data(try events.map { String(decoding: try encoder.encode($0), as: UTF8.self) + "\n" }.joined().utf8).write(to: eventsURL)
        let regressed = try xcfleet(["report", dir.appendingPathComponent("runs/r3").path])
        XCTAssertEqual(regressed.status, 0, "a regression never fails the run: \(regressed.stderr)")
        XCTAssertTrue(regressed.stdout.contains("trends: 1 regression against the recent median (diagnostics, exit code unchanged): memory_delta (bytes): 500.0 against a median of 100.0"), regressed.stdout)
        XCTAssertTrue(try read("r3", "report.html").contains("1 regression against the recent median</strong>"))
        XCTAssertTrue(try read("r3", "summary.md").contains("⚠️ 1 regression against the recent median"))

        // Comparing r3 with r2 shows the cost change.
        let compare = try xcfleet(["report", dir.appendingPathComponent("runs/r3").path, "--compare", dir.appendingPathComponent("runs/r2").path])
        XCTAssertTrue(compare.stdout.contains("Cost: $"), compare.stdout)
        XCTAssertTrue(compare.stdout.contains("build phase host-s"), compare.stdout)
    }

    func testNoHistoryHasNoTrendsButStillACostAndDoesNotFail() throws {
        let off = try run("off", ["--no-history"])
        XCTAssertEqual(off.status, 0, off.stderr)
        XCTAssertEqual(off.stderr, "")
        let html = try read("off", "report.html")
        XCTAssertFalse(html.contains("id=\"trends\""))
        XCTAssertFalse(html.contains("known flaky"))
        XCTAssertTrue(html.contains("<section id=\"cost\">"), "cost needs no history")
        XCTAssertFalse(try read("off", "summary.md").contains("### Trends"))
    }

    func testAnUnreadableHistoryIsANoteAndNoTrends() throws {
        let db = dir.appendingPathComponent("foreign.sqlite")
        try Data("not a database at all, just text long enough to be a header".utf8).write(to: db)
        let r = try run("broken", ["--history-db", db.path])
        XCTAssertEqual(r.status, 0, "history never changes the exit code")
        XCTAssertFalse(r.stderr.contains("no trends"), "the history failed at the start: not asked again, no third note: \(r.stderr)")
        XCTAssertFalse(try read("broken", "report.html").contains("id=\"trends\""))
        XCTAssertTrue(try read("broken", "report.html").contains("id=\"cost\""))
        // With --history RUN_DIR the durations do not come from the database: the trends step notes it itself.
        let r2 = try run("broken2", ["--history-db", db.path, "--history", dir.appendingPathComponent("runs/broken").path])
        XCTAssertEqual(r2.status, 0, r2.stderr)
        XCTAssertTrue(r2.stderr.contains("xcfleet: history: no trends or flaky marks in this run's report"), r2.stderr)
        XCTAssertFalse(try read("broken2", "report.html").contains("id=\"trends\""))
    }
}
