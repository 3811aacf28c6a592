import XCTest
@testable import XCFleetBasics
@testable import XCFleetModel
@testable import XCFleetCore
import XCFleetTestSupport

/// A crash run, a quarantine run, a flaky run and a timeout run, each from real XCTest output
/// through the parser and the collator, rendered into every output: the terminal's attempt and
/// suite lines, report.html's cards and suite row, summary.md's table and totals, junit.xml's
/// counts, report.json, the `--json` document and a comparison with a green run. Every one of
/// them must print the same figures, and the figures must be the ones a reader counts by hand.
final class ReportAgreementTests: XCTestCase {
    static let tests = (1...5).map { "CacheTests.DictionaryCacheTests/testC\($0)" }

    struct Scenario {
        var name: String
        var attempts: [(log: String, ended: AttemptEnded)]
        var quarantine: [QuarantineEntry] = []
        var allowFlaky = false
        /// Counted by hand from the log.
        var want: TestFigures
        var exitCode: Int32
    }

    static func line(_ s: String) -> String { s + "\n" }

    static func started(_ n: Int) -> String { "Test Case 'DictionaryCacheTests.testC\(n)' started at 2026-12-01 10:00:00.000\n" }
    static func passed(_ n: Int) -> String { started(n) + "Test Case 'DictionaryCacheTests.testC\(n)' passed (0.010 seconds)\n" }
    static func failed(_ n: Int, _ message: String = "XCTAssertEqual failed: (\"1\") is not equal to (\"2\")") -> String {
        started(n) + "/src/Tests/CacheTests/DictionaryCacheTests.swift:\(20 + n): error: DictionaryCacheTests.testC\(n) : \(message)\n"
            + "Test Case 'DictionaryCacheTests.testC\(n)' failed (0.020 seconds)\n"
    }
    static let head = "Test Suite 'All tests' started at 2026-12-01 10:00:00.000\nTest Suite 'DictionaryCacheTests' started at 2026-12-01 10:00:00.000\n"
    static func tail(_ executed: Int, failures: Int) -> String {
        "Test Suite 'DictionaryCacheTests' \(failures > 0 ? "failed" : "passed") at 2026-12-01 10:00:01.000\n"
            + "\t Executed \(executed) tests, with \(failures) failures (0 unexpected) in 0.1 (0.1) seconds\n"
            + "Test Suite 'All tests' \(failures > 0 ? "failed" : "passed") at 2026-12-01 10:00:01.000\n"
            + "\t Executed \(executed) tests, with \(failures) failures (0 unexpected) in 0.1 (0.1) seconds\n"
    }

    static func figures(passed: Int = 0, failed: Int = 0, crashed: Int = 0, timedOut: Int = 0, notRun: Int = 0, skipped: Int = 0,
                        quarantined: Int = 0, flaky: Int = 0) -> TestFigures {
        var f = TestFigures()
        f.passed = passed; f.failed = failed; f.crashed = crashed; f.timedOut = timedOut
        f.notRun = notRun; f.skipped = skipped; f.quarantined = quarantined; f.flaky = flaky
        return f
    }

    static let entry = QuarantineEntry(suite: "cache-gate", test: "DictionaryCacheTests/testC2", reason: "races on shared hosts",
                                       owner: "cache-team", expires: "2026-12-31")

    static let scenarios: [Scenario] = [
        // testC3 traps in the middle of the gate; testC4 and testC5 never run.
        Scenario(name: "crash", attempts: [(head + passed(1) + failed(2) + started(3)
                    + "/src/Sources/CacheContract/DictionaryCache.swift:35: Fatal error: Index out of range\n"
                    + "\n💣 Program crashed: System trap at 0x00005581a2b3c4d5\n\nThread 0 crashed:\n"
                    + "0 0x00005581a2b3c4d5 DictionaryCache.subscript.getter + 120 in CachePackageTests.xctest at /src/Sources/CacheContract/DictionaryCache.swift:35:9\n"
                    + "1 0x00005581a2b3c500 DictionaryCacheTests.testC3() + 80 in CachePackageTests.xctest at /src/Tests/CacheTests/DictionaryCacheTests.swift:31:5\n"
                    + "\nerror: Exited with unexpected signal code 5\n",
                 AttemptEnded(termination: .exited(1)))],
                 want: figures(passed: 1, failed: 1, crashed: 1, notRun: 2), exitCode: 1),
        // testC2 is quarantined and fails; XCTest ends normally with its totals.
        Scenario(name: "quarantine", attempts: [(head + passed(1) + failed(2) + passed(3) + passed(4) + passed(5) + tail(5, failures: 1),
                                                 AttemptEnded(termination: .exited(1)))],
                 quarantine: [entry], want: figures(passed: 4, quarantined: 1), exitCode: 0),
        // testC2 fails in attempt 1 and passes in attempt 2; the plan does not allow flaky.
        Scenario(name: "flaky", attempts: [
            (head + passed(1) + failed(2) + passed(3) + passed(4) + passed(5) + tail(5, failures: 1), AttemptEnded(termination: .exited(1))),
            (head + (1...5).map { passed($0) }.joined() + tail(5, failures: 0), AttemptEnded(termination: .exited(0))),
        ], want: figures(passed: 4, flaky: 1), exitCode: 1),
        // testC3 hangs until the test deadline; testC4 and testC5 never run.
        Scenario(name: "timeout", attempts: [(head + passed(1) + passed(2) + started(3),
                                              AttemptEnded(termination: .timedOut("test"), timedOutPhase: .test))],
                 want: figures(passed: 2, timedOut: 1, notRun: 2), exitCode: 1),
    ]

    static func spec(_ s: Scenario) -> SuiteSpec {
        SuiteSpec(name: "cache-gate", template: "cache-contract", kind: .gate, requires: [], shards: 1, repetitions: 1,
                  retries: RetryPolicy(infrastructure: 1, testFailures: s.attempts.count - 1), allowFlaky: s.allowFlaky, mutants: false,
                  destination: nil, xcode: nil)
    }

    static func events(_ s: Scenario) -> [RunEvent] {
        var seq = 0
        var out: [RunEvent] = []
        func add(_ t: Double, _ body: RunEvent.Body) { seq += 1; out.append(RunEvent(seq: seq, t: t, body: body)) }
        add(0, .runStarted(RunStarted(runID: "r-\(s.name)", planName: "agreement", planPath: "Plans/agreement.json",
                                      startedAt: "2026-12-01T10:00:00Z", xcfleetVersion: "0.1.0", suites: [spec(s)], hosts: ["local"])))
        if !s.quarantine.isEmpty { add(0, .quarantine(s.quarantine)) }
        add(0, .jobPlanned(JobPlanned(jobID: "cache-gate", suite: "cache-gate", kind: .gate, expectedTests: tests)))
        var t = 1.0
        for (i, a) in s.attempts.enumerated() {
            let ref = AttemptRef(jobID: "cache-gate", attempt: i + 1)
            add(t, .attemptStarted(ref, host: "local", slot: 0))
            add(t, .phaseStarted(ref, phase: .test))
            for e in OutputParser.parse(a.log) { add(t + 0.5, .test(ref, event: e)) }
            add(t + 1, .phaseFinished(ref, phase: .test))
            add(t + 1, .attemptEnded(ref, a.ended))
            t += 2
        }
        add(t, .runFinished(interrupted: false))
        return out
    }

    /// The figures every output prints, read back from each of them.
    func testEveryOutputPrintsTheSameFigures() throws {
        for s in Self.scenarios {
            let events = Self.events(s)
            let report = Collator().collate(events)
            let f = report.totals.tests
            XCTAssertEqual(f, s.want, "\(s.name): the collated figures")
            XCTAssertEqual(report.exitCode, s.exitCode, "\(s.name): \(report.verdictLine)")
            XCTAssertEqual(report.suites[0].figures, f, s.name)
            XCTAssertEqual(f.total, Self.tests.count, "\(s.name): every expected test in one category")

            // Terminal: the decisive attempt's end line and the suite line.
            var narrator = ProgressNarrator(verbosity: .normal, live: false)
            let narrated = events.flatMap { narrator.lines(for: $0) }
            let attemptLine = try XCTUnwrap(narrated.last { $0.text.contains("cache-gate attempt \(s.attempts.count)") }, s.name)
            XCTAssertTrue(attemptLine.text.contains(f.text), "\(s.name): \(attemptLine.text) — want \(f.text)")
            XCTAssertEqual(attemptLine.style == .success, s.exitCode == 0 || s.name == "flaky",
                           "\(s.name): ✘ only for what the verdict counts red: \(attemptLine.text)")
            let summary = ConsoleSummary.lines(report, runDirectory: "runs/x").map(\.text)
            let suiteLine = try XCTUnwrap(summary.first { $0.contains("gate  cache-gate:") }, s.name)
            XCTAssertTrue(suiteLine.contains(f.text), "\(s.name): \(suiteLine)")

            // report.html: the cards, one per category, and the suite's row.
            let html = String(decoding: try HTMLReportRenderer().render(report), as: UTF8.self)
            for (category, label) in [(TestCategory.passed, "passed"), (.failed, "failed"), (.crashed, "crashed"), (.timedOut, "timed out"),
                                      (.notRun, "not run"), (.quarantined, "quarantined failures"), (.flaky, "flaky"), (.skipped, "skipped")] {
                XCTAssertTrue(html.contains("<div class=\"n\">\(f[category])</div><div class=\"k\">\(label)</div>"), "\(s.name): card \(label) ≠ \(f[category])")
            }
            XCTAssertTrue(html.contains("<span class=\"counts\">\(ReportText.html(f.text))"), "\(s.name): suite row")

            // summary.md: the suite's row and the totals line.
            let md = MarkdownSummaryRenderer().markdown(report)
            let row = "| \(f.passed) | \(f.failed) | \(f.crashed) | \(f.timedOut) | \(f.notRun) | \(f.quarantined) | \(f.flaky) | \(f.skipped) | 1 |"
            XCTAssertTrue(md.contains(row), "\(s.name): \(row) in\n\(md)")
            XCTAssertTrue(md.contains("tests \(f.text)"), "\(s.name): totals line")
            XCTAssertFalse(md.contains("not run: not run"), s.name)

            // junit.xml: the documented mapping.
            let junit = JUnitReportRenderer().xml(report)
            let suiteAttributes = "tests=\"\(f.total)\" failures=\"\(f.failed)\" errors=\"\(f.crashed + f.timedOut + f.notRun)\" skipped=\"\(f.skipped + f.quarantined)\""
            XCTAssertTrue(junit.contains(suiteAttributes), "\(s.name): \(suiteAttributes) in\n\(junit)")
            XCTAssertTrue(junit.contains("<testsuites name=\"agreement\" tests=\"\(f.total)\" failures=\"\(f.failed)\" errors=\"\(f.crashed + f.timedOut + f.notRun)\""), s.name)
            try ReportingTestSupport.assertValidJUnit(junit)

            // report.json, read back.
            let decoded = try JSONReportRenderer.decode(try JSONReportRenderer().render(report))
            XCTAssertEqual(decoded.totals.tests, f, s.name)

            // The --json document.
            let document = RunSummaryDocument(report: report, runDirectory: "runs/x")
            XCTAssertEqual(document.figures, f, s.name)
            XCTAssertEqual(document.verdict.exitCode, report.exitCode, s.name)
            XCTAssertEqual(document.failures.count, f.red, "\(s.name): one failure entry per red test")

            // Compared with a run where every test passed: the newly red tests are the red figures.
            let green = Collator().collate(Self.events(Scenario(name: "green", attempts: [(Self.head + (1...5).map { Self.passed($0) }.joined() + Self.tail(5, failures: 0), AttemptEnded(termination: .exited(0)))],
                                                               want: TestFigures(), exitCode: 0)))
            let comparison = RunComparison.compare(base: green, head: report)
            var red = f
            red.passed = 0; red.flaky = 0; red.skipped = 0; red.quarantined = 0
            XCTAssertEqual(comparison.newlyRed, red, s.name)
            XCTAssertEqual(comparison.headFigures, f, s.name)
            XCTAssertTrue(RunComparisonRenderer.markdown(comparison).contains("→ \(f.text)"), s.name)
        }
    }

    /// Cause first: the crash names its test and message, and the tests it prevented are one line.
    func testCrashIsNamedOnceWithTheTestsItPrevented() throws {
        // Paths under /src are the repository's (as `parse --source-root /src=.` maps them).
        let report = Collator(sourceRoots: [LocationMapper.SourceRoot(hostPrefix: "/src", repository: "")]).collate(Self.events(Self.scenarios[0]))
        let md = MarkdownSummaryRenderer().markdown(report)
        XCTAssertTrue(md.contains("testC3 — **crashed** — Sources/CacheContract/DictionaryCache.swift:35 — "), md)
        let trace = "Sources/CacheContract/DictionaryCache.swift:35 DictionaryCache.subscript.getter ← Tests/CacheTests/DictionaryCacheTests.swift:31 DictionaryCacheTests.testC3()"
        XCTAssertTrue(md.contains("backtrace: " + ReportText.markdown(trace)), md)
        XCTAssertTrue(md.contains("2 tests not run because of this crash (the test process crashed in DictionaryCacheTests/testC3)"), md)
        XCTAssertFalse(md.contains("testC4 —"), "not-run tests are listed once, under their cause:\n\(md)")
        XCTAssertTrue(md.contains("[attempt 1](logs/cache-gate-a1.log)"), md)
        let html = String(decoding: try HTMLReportRenderer().render(report), as: UTF8.self)
        XCTAssertTrue(html.contains("2 tests not run because of this crash"))
        XCTAssertTrue(html.contains("backtrace: <span class=\"mono\">\(ReportText.html(trace))</span>"), html)
        XCTAssertTrue(JUnitReportRenderer().xml(report).contains("backtrace: " + ReportText.xmlText(trace)))
        XCTAssertEqual(RunSummaryDocument(report: report, runDirectory: nil).failures.first?.backtrace, trace)
        XCTAssertTrue(html.contains("<a href=\"logs/cache-gate-a1.log\">attempt 1 log</a>"))
        // Failures come first: the crashed row before the failed one before the passes.
        let crashed = try XCTUnwrap(html.range(of: ">crashed</span>")), failed = try XCTUnwrap(html.range(of: ">failed</span></td>"))
        let passed = try XCTUnwrap(html.range(of: ">passed</span></td>"))
        XCTAssertLessThan(crashed.lowerBound, failed.lowerBound)
        XCTAssertLessThan(failed.lowerBound, passed.lowerBound)
    }

    /// A flaky red names the flaky test and its attempts.
    func testFlakyRedNamesTheTestAndItsAttempts() {
        let report = Collator().collate(Self.events(Self.scenarios[2]))
        XCTAssertEqual(report.suites[0].reasons,
                       ["cache-gate@local: flaky: DictionaryCacheTests/testC2 (failed in attempt 1 on local, passed in attempt 2 on local) (the plan does not allow flaky)"])
        XCTAssertTrue(report.verdictLine.contains("DictionaryCacheTests/testC2"), report.verdictLine)
    }

    /// A quarantined test that fails and then ends the process (no end line, no totals) stays red.
    func testQuarantineDoesNotForgiveAnExitOrAHang() {
        let exit = Scenario(name: "exit", attempts: [(Self.head + Self.passed(1) + Self.started(2)
                                + "/src/Tests/CacheTests/DictionaryCacheTests.swift:22: error: DictionaryCacheTests.testC2 : XCTAssertTrue failed\n",
                                AttemptEnded(termination: .exited(1)))],
                            quarantine: [Self.entry], want: TestFigures(), exitCode: 1)
        let report = Collator().collate(Self.events(exit))
        XCTAssertEqual(report.exitCode, 1, report.verdictLine)
        XCTAssertEqual(report.totals.tests.crashed, 1)
        XCTAssertEqual(report.totals.tests.quarantined, 0)
        var hang = exit
        hang.attempts[0].ended = AttemptEnded(termination: .timedOut("test"), timedOutPhase: .test)
        let hung = Collator().collate(Self.events(hang))
        XCTAssertEqual(hung.exitCode, 1, hung.verdictLine)
        XCTAssertEqual(hung.totals.tests.timedOut, 1)
        // The same failure with its end line and XCTest's totals is forgiven.
        let report2 = Collator().collate(Self.events(Self.scenarios[1]))
        XCTAssertEqual(report2.exitCode, 0, report2.verdictLine)
    }
}
