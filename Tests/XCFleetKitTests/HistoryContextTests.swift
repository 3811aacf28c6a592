import Foundation
import XCTest
@testable import XCFleetKit
import XCFleetTestSupport

/// The run's history context (cost, trends, known-flaky tests): the event round-trips, old events
/// still read, the regression rule, and every renderer shows it (escaped, well-formed, exit code unchanged).
final class HistoryContextTests: XCTestCase {
    private func points(_ values: [Double], current: String = "run-now") -> [HistoryTrends.Point] {
        values.enumerated().map { .init(runID: $0.offset == values.count - 1 ? current : "run-\($0.offset)", value: $0.element) }
    }

    /// A context with one gate, one regressed metric (name hostile), a known-flaky test and a cost.
    static func context(for report: RunReport, evil: String = SampleReports.hostileName) -> HistoryContext {
        var earlier = HistoryTrends()
        let gate = report.gates.first?.spec.name ?? "cache-contract"
        earlier.gatePassed[gate] = (0..<5).map { .init(runID: "old-\($0)", value: $0 == 2 ? 0 : 1) }
        earlier.gateSeconds[gate] = (0..<5).map { .init(runID: "old-\($0)", value: 10 + Double($0 % 2)) }
        earlier.metrics["\(evil) (bytes)"] = (0..<5).map { .init(runID: "old-\($0)", value: 1000 + Double($0)) }
        earlier.metrics["hit_rate (ratio)"] = (0..<5).map { .init(runID: "old-\($0)", value: 0.9) }
        var trends = TrendRule.trends(earlier: earlier, report: report)
        // This run's metric values: memory far above the median, hit rate steady.
        for i in trends.metrics.indices {
            let value = trends.metrics[i].name.hasPrefix("hit_rate") ? 0.9 : 5000
            trends.metrics[i].points.append(.init(runID: report.runID, value: value))
            let judged = TrendRule.judge(trends.metrics[i].name, points: trends.metrics[i].points, currentRunID: report.runID,
                                         higherIsWorse: trends.metrics[i].higherIsWorse) { ReportText.fixed($0, 0) }
            trends.metrics[i].median = judged.median
            trends.metrics[i].regression = judged.regression
        }
        let flaky = HistoryContext.KnownFlaky(suite: "cache-contract", test: "CacheContractTests.LogoutTests/testC7_lateWriteDropped",
                                              rate: 0.25, flakes: 2, executions: 8, lastSeen: "2026-11-28T09:00:00Z")
        let cost = RunCost(lines: [.init(host: "mac-a", phase: "test", hostSeconds: 3000, cost: 1.0),
                                   .init(host: "mac-a", phase: "idle", hostSeconds: 600, cost: 0.2),
                                   .init(host: evil, phase: "build", hostSeconds: 1800, cost: 0.6)])
        return HistoryContext(cost: cost, trends: trends, knownFlaky: [flaky])
    }

    // MARK: Event

    func testContextEventRoundTripsAndDoesNotLengthenTheRun() throws {
        let started = RunStarted(runID: "r1", planName: "p", planPath: "p.json", startedAt: "2026-12-01T00:00:00Z", xcfleetVersion: "0.1.0",
                                 suites: [SampleReports.spec("g")], hosts: ["local"], forge: nil)
        var events = [RunEvent(seq: 1, t: 0, body: .runStarted(started)), RunEvent(seq: 2, t: 4.5, body: .runFinished(interrupted: false))]
        let old = Collator(mutantFaults: [:]).collate(events)
        XCTAssertNil(old.history, "events without a context read as before")
        let context = Self.context(for: SampleReports.red)
        let event = RunEvent(seq: 3, t: 9.25, body: .historyContext(context))
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let line = try encoder.encode(event)
        XCTAssertEqual(try JSONDecoder().decode(RunEvent.self, from: line), event)
        events.append(event)
        let new = try EventLog.decode(Data((try events.map { String(decoding: try encoder.encode($0), as: UTF8.self) }.joined(separator: "\n") + "\n").utf8), path: "x")
        let report = Collator(mutantFaults: [:]).collate(new)
        XCTAssertEqual(report.history, context)
        XCTAssertEqual(report.duration, old.duration, "the context is written after the run: it does not count in its duration")
        XCTAssertEqual(report.exitCode, old.exitCode)
        // An old report.json (no `history` key) still decodes.
        var plain = try JSONSerialization.jsonObject(with: JSONReportRenderer().render(report)) as! [String: Any]
        XCTAssertNotNil(plain.removeValue(forKey: "history"))
        XCTAssertNil(try JSONReportRenderer.decode(JSONSerialization.data(withJSONObject: plain)).history)
    }

    // MARK: Rule

    func testRegressionRuleKnowsDirectionAndNoise() {
        func judge(_ v: [Double], worse: Bool) -> String? {
            TrendRule.judge("m", points: points(v), currentRunID: "run-now", higherIsWorse: worse) { ReportText.fixed($0, 2) }.regression
        }
        XCTAssertNotNil(judge([100, 102, 98, 101, 130], worse: true), "memory 30% above the median")
        XCTAssertNil(judge([100, 102, 98, 101, 105], worse: true), "within 10%")
        XCTAssertNil(judge([100, 102, 98, 101, 60], worse: true), "lower memory is better")
        XCTAssertNotNil(judge([0.9, 0.91, 0.9, 0.7], worse: false), "hit rate fell")
        XCTAssertNil(judge([0.9, 0.91, 0.9, 1.0], worse: false))
        XCTAssertNil(judge([100, 101, 130], worse: true), "fewer than 3 earlier runs: no judgement")
        XCTAssertNil(judge([100, 200, 50, 150, 100, 240], worse: true), "a noisy metric needs more than 3 MADs (150 here)")
        XCTAssertNotNil(judge([100, 200, 50, 150, 100, 260], worse: true))
        XCTAssertNil(TrendRule.judge("m", points: points([1, 1, 1, 9], current: "other"), currentRunID: "run-now", higherIsWorse: true) { "\($0)" }.regression,
                     "a series without this run's value is not judged")
        XCTAssertTrue(TrendRule.higherIsWorse("memory_delta (bytes)"))
        XCTAssertTrue(TrendRule.higherIsWorse("gate duration"))
        XCTAssertFalse(TrendRule.higherIsWorse("hit_rate (ratio)"))
        XCTAssertFalse(TrendRule.higherIsWorse("requests (ops/s)"))
        XCTAssertTrue(TrendRule.higherIsWorse("miss_rate (ratio)"))
        XCTAssertTrue(TrendRule.higherIsWorse("</script> (bytes)"), "a slash in a name is not a unit")
        XCTAssertEqual(TrendRule.unit(of: "memory_delta (bytes)"), "bytes")
        XCTAssertEqual(TrendRule.unit(of: "plain"), "")
    }

    func testTrendsAppendThisRunAndKeepTheWindow() {
        var earlier = HistoryTrends()
        earlier.gatePassed["cache-contract"] = (0..<25).map { .init(runID: "old-\($0)", value: 1) }
        earlier.gateSeconds["cache-contract"] = (0..<25).map { .init(runID: "old-\($0)", value: 10) }
        let report = SampleReports.red
        let t = TrendRule.trends(earlier: earlier, report: report)
        let gate = try! XCTUnwrap(t.gates.first { $0.name == "cache-contract" })
        XCTAssertEqual(gate.passed.count, HistoryContext.window)
        XCTAssertEqual(gate.passed.last, .init(runID: report.runID, value: 0), "this run's gate is red")
        XCTAssertEqual(gate.passRate, 19.0 / 20.0, accuracy: 1e-9)
        XCTAssertEqual(t.runs, HistoryContext.window)
    }

    // MARK: Renderers

    func testHTMLShowsTrendsCostAndFlakyMarksEscapedAndWellFormed() throws {
        var report = SampleReports.red
        let before = report
        report.history = Self.context(for: report)
        let html = HTMLReportRenderer().html(report)
        XCTAssertTrue(html.contains("<section id=\"trends\">"))
        XCTAssertTrue(html.contains("<section id=\"cost\">"))
        XCTAssertTrue(html.contains("<a href=\"#trends\">Trends</a><a href=\"#cost\">Cost</a>"))
        XCTAssertTrue(html.contains("1 regression against the recent median"), "the memory jump is called out")
        XCTAssertTrue(html.contains("test&lt;script&gt;alert(1)&lt;/script&gt; (bytes): 5000 against a median of 1002"))
        XCTAssertTrue(html.contains(">known flaky 25%</span>"), "flaky mark beside the test")
        XCTAssertTrue(html.contains("$1.80 · 5400 host-s"))
        XCTAssertFalse(html.contains("<script>"), "names are escaped")
        XCTAssertTrue(html.contains("class=\"spark\""))
        for external in ["http://", "https://", "src=", "<link", "@import", "url("] { XCTAssertFalse(html.contains(external), external) }
        XCTAssertEqual(report.exitCode, before.exitCode, "a regression never changes the exit code")
        XCTAssertEqual(try JUnitReportRenderer().render(report), try JUnitReportRenderer().render(before), "junit is unaffected")
        XCTAssertEqual(HTMLReportRenderer().html(report), html, "deterministic")
        // Without a context: no section, no link, no extra CSS (reports of old runs are unchanged).
        let plain = HTMLReportRenderer().html(before)
        XCTAssertFalse(plain.contains("id=\"trends\"") || plain.contains("id=\"cost\"") || plain.contains(".regress{"))

        // The new sections are well-formed XML on their own (xmllint), as the rest of the page.
        guard let xmllint = ReportingTestSupport.which("xmllint") else { throw XCTSkip("xmllint not found: apt-get install libxml2-utils") }
        let start = try XCTUnwrap(html.range(of: "<section id=\"trends\">")).lowerBound
        let end = try XCTUnwrap(html.range(of: "<section id=\"timeline\">")).lowerBound
        let dir = try ReportingTestSupport.tempDir("trends-html")
        let fragment = dir.appendingPathComponent("fragment.xml")
        try Data(("<div>" + html[start..<end] + "</div>").utf8).write(to: fragment)
        let r = try ReportingTestSupport.run(xmllint, ["--noout", fragment.path])
        XCTAssertEqual(r.status, 0, r.stderr)
        let broken = dir.appendingPathComponent("broken.xml")
        try Data(("<div>" + html[start..<end]).utf8).write(to: broken)
        XCTAssertNotEqual(try ReportingTestSupport.run(xmllint, ["--noout", broken.path]).status, 0, "the check can fail")
    }

    func testSummaryAndJSONCarryTheSameData() throws {
        var report = SampleReports.red
        report.history = Self.context(for: report)
        let md = MarkdownSummaryRenderer().markdown(report)
        XCTAssertTrue(md.contains("### Trends (last 6 runs)"), md)
        XCTAssertTrue(md.contains("⚠️ 1 regression against the recent median (diagnostics, exit code unchanged):"), md)
        XCTAssertTrue(md.contains("test\\<script\\>alert(1)\\</script\\>") || md.contains("test&lt;script&gt;"), "neutralized: \(md)")
        XCTAssertFalse(md.contains("<script>"), md)
        XCTAssertTrue(md.contains("### Known flaky (1, last 30 days)"), md)
        XCTAssertTrue(md.contains("**Cost:** $1.80 · 5400 host-s (test 3000, build 1800, idle 600)"), md)
        let json = try JSONSerialization.jsonObject(with: JSONReportRenderer().render(report)) as! [String: Any]
        let history = try XCTUnwrap(json["history"] as? [String: Any])
        XCTAssertNotNil(history["cost"])
        XCTAssertEqual((history["knownFlaky"] as? [Any])?.count, 1)
        XCTAssertEqual(try JSONReportRenderer.decode(JSONReportRenderer().render(report)).history, report.history)
        XCTAssertEqual(TrendSummary.terminalLine(report)?.hasPrefix("trends: 1 regression against the recent median"), true)
        XCTAssertNil(TrendSummary.terminalLine(SampleReports.red))
        XCTAssertFalse(MarkdownSummaryRenderer().markdown(SampleReports.red).contains("Cost:"))
    }

    func testComparisonShowsCostAndBuildPhaseChanges() {
        var base = SampleReports.green, head = SampleReports.red
        base.history = HistoryContext(cost: RunCost(lines: [.init(host: "a", phase: "build", hostSeconds: 100, cost: 0.5),
                                                            .init(host: "a", phase: "test", hostSeconds: 300, cost: 1.5)]))
        head.history = Self.context(for: head)
        let c = RunComparison.compare(base: base, head: head)
        XCTAssertEqual(c.cost?.baseCost, 2.0)
        XCTAssertEqual(c.cost?.headCost ?? 0, 1.8, accuracy: 1e-9)
        let md = RunComparisonRenderer.markdown(c)
        XCTAssertTrue(md.contains("Cost: $2.00 → $1.80 (−$0.20, −10%) · host-s 400 → 5400 (+5000, +1250%) · build phase host-s 100 → 1800 (+1700)"), md)
        XCTAssertTrue(RunComparisonRenderer.htmlSection(c).contains("Cost: $2.00 → $1.80"))
        XCTAssertNil(RunComparison.compare(base: SampleReports.green, head: SampleReports.red).cost)
    }
}

/// Large host blocks keep their plain passes in a closed `<details>` (so a 20,000-test page renders
/// fast), while failures, flaky and known-flaky tests stay in the open table.
final class HTMLFoldedPassesTests: XCTestCase {
    func testLargeBlocksFoldPlainPassesOnly() {
        let spec = SampleReports.spec("big")
        var tests = (0..<250).map { SampleReports.test("Big.Tests/test\($0)") }
        tests[3] = SampleReports.test("Big.Tests/test3", .failed, failures: [FailureDetail(message: "boom")])
        let a = SampleReports.attempt(1, host: "mac-a", start: 0, tests: tests, termination: .exited(1), problems: ["1 test failed"])
        let j = SampleReports.job("big#0", suite: spec, expected: tests.map(\.id.description), attempts: [a], state: .failed)
        var report = SampleReports.report("run-big", suites: [SuiteReport(spec: spec, status: .red, reasons: ["1 test failed"], jobs: [j])], hosts: ["mac-a"])
        report.history = HistoryContext(knownFlaky: [.init(suite: "big", test: "Big.Tests/test7", rate: 0.1, flakes: 1, executions: 10, lastSeen: "2026-11-30T00:00:00Z")])
        let html = HTMLReportRenderer().html(report)
        let fold = html.range(of: "<details class=\"passes\"><summary>248 passed tests on mac-a</summary>")
        XCTAssertNotNil(fold, "248 plain passes folded")
        let failure = html.range(of: ">test3</span>"), known = html.range(of: ">test7</span>"), plain = html.range(of: ">test8</span>")
        XCTAssertLessThan(failure!.lowerBound, fold!.lowerBound, "the failure stays in the open table")
        XCTAssertLessThan(known!.lowerBound, fold!.lowerBound, "so does the known-flaky test")
        XCTAssertGreaterThan(plain!.lowerBound, fold!.lowerBound)
        // A small block is not folded.
        XCTAssertFalse(HTMLReportRenderer().html(SampleReports.full).contains("class=\"passes\""))
    }
}

extension HistoryContextTests {
    func testEmptyTrendsShowNoSection() {
        var report = SampleReports.green
        report.history = HistoryContext(cost: nil, trends: .init(window: 20, runs: 1, gates: [], metrics: []), knownFlaky: [])
        XCTAssertFalse(HTMLReportRenderer().html(report).contains("id=\"trends\""))
        XCTAssertFalse(MarkdownSummaryRenderer().markdown(report).contains("### Trends"))
    }
}

extension HistoryContextTests {
    /// With a real SQLite history: a finished run gets trends; an interrupted one (Ctrl-C) does not
    /// wait for the history again and gets its cost only; no recorder: cost only.
    func testRunContextAsksTheHistoryOnlyForAFinishedRun() async throws {
        let dir = try TestPaths.temporaryDirectory()
        let recorder = HistoryRecorder(location: .sqlite(path: dir.appendingPathComponent("history.sqlite").path), deadline: 10)
        let pricing = HistoryPricing(perHost: ["mac-a": 3.6])
        let (finished, note) = await HistoryRecorder.runContext(SampleReports.green, pricing: pricing, recorder: recorder)
        XCTAssertNil(note)
        XCTAssertEqual(finished.trends?.gates.map(\.name), ["cache-contract"], "this run's own point")
        XCTAssertEqual(finished.knownFlaky, [])
        XCTAssertNotNil(finished.cost?.total)
        var interrupted = SampleReports.green
        interrupted.interrupted = true
        let (cut, cutNote) = await HistoryRecorder.runContext(interrupted, pricing: pricing, recorder: recorder)
        XCTAssertNil(cutNote)
        XCTAssertNil(cut.trends)
        XCTAssertNil(cut.knownFlaky)
        XCTAssertEqual(cut.cost, finished.cost)
        let (off, _) = await HistoryRecorder.runContext(SampleReports.green, pricing: pricing, recorder: nil)
        XCTAssertNil(off.trends)
        XCTAssertNotNil(off.cost)
    }
}
