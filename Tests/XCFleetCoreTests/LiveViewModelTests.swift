import XCTest
@testable import XCFleetBasics
@testable import XCFleetModel
@testable import XCFleetCore
import XCFleetTestSupport

/// Builds run events with increasing sequence numbers.
struct RunEventScript {
    private var seq = 0

    mutating func at(_ t: Double, _ body: RunEvent.Body) -> RunEvent {
        seq += 1
        return RunEvent(seq: seq, t: t, body: body)
    }

    static func planned(_ id: String, suite: String = "gate", tests: Int, mutant: String? = nil) -> RunEvent.Body {
        .jobPlanned(JobPlanned(jobID: id, suite: suite, kind: .gate, mutant: mutant,
                               expectedTests: (0..<tests).map { "T/test\($0)" }))
    }

    static func finished(_ id: String, attempt: Int = 1, test: Int, _ status: TestStatus = .passed) -> RunEvent.Body {
        .test(AttemptRef(jobID: id, attempt: attempt),
              event: .testFinished(TestIdentifier(suite: "Mod.T", name: "test\(test)"), status: status, seconds: 0.5, framework: .xctest, clone: nil))
    }
}

final class LiveViewModelTests: XCTestCase {
    private let esc = "\u{1B}"

    /// Two jobs on two slots of host `mac1`: `a` (4 tests) is testing, `b` (2 tests) is building.
    private func midRun(color: Bool = false, history: DurationHistory? = nil) -> (LiveViewModel, [ConsoleLine]) {
        var model = LiveViewModel(color: color, history: history)
        var s = RunEventScript()
        var scrollback: [ConsoleLine] = []
        let a = AttemptRef(jobID: "a", attempt: 1), b = AttemptRef(jobID: "b", attempt: 1)
        let events: [RunEvent] = [
            s.at(0, .runStarted(RunStarted(runID: "r1", planName: "p", planPath: "p.json", startedAt: "x", xcfleetVersion: "0",
                                           suites: [], hosts: ["mac1"]))),
            s.at(0, RunEventScript.planned("a", tests: 4)),
            s.at(0, RunEventScript.planned("b", tests: 2)),
            s.at(1, .attemptStarted(a, host: "mac1", slot: 0)),
            s.at(1, .attemptStarted(b, host: "mac1", slot: 1)),
            s.at(1, .phaseStarted(a, phase: .build)),
            s.at(2, .phaseStarted(b, phase: .build)),
            s.at(10, .phaseStarted(a, phase: .test)),
            s.at(11, RunEventScript.finished("a", test: 0)),
            s.at(12, .test(a, event: .testFailure(TestIdentifier(suite: "Mod.T", name: "test1"), file: "T.swift", line: 7, message: "XCTAssertEqual failed"))),
            s.at(12, RunEventScript.finished("a", test: 1, .failed)),
        ]
        for e in events { scrollback += model.apply(e) }
        return (model, scrollback)
    }

    func testASequenceOfEventsDrawsOneLinePerSlotAndTheProgressLine() {
        let (model, scrollback) = midRun()
        let frame = model.frame(width: 120, height: 30, now: 75)
        XCTAssertEqual(frame.count, 3, frame.joined(separator: "\n"))
        XCTAssertTrue(frame[0].hasPrefix("mac1#0  a"), frame[0])
        XCTAssertTrue(frame[0].contains("test"), frame[0])
        XCTAssertTrue(frame[0].contains("2/4 tests"), frame[0])
        XCTAssertTrue(frame[0].hasSuffix("1:14"), "elapsed since the attempt started: \(frame[0])")
        XCTAssertTrue(frame[1].hasPrefix("mac1#1  b"), frame[1])
        XCTAssertTrue(frame[1].contains("build"), frame[1])
        XCTAssertTrue(frame[1].contains("0/2 tests"), frame[1])
        let progress = frame[2]
        for part in ["0/2 jobs", "2/6 tests", "✘ 1 failed", "elapsed 1:15", "ETA "] {
            XCTAssertTrue(progress.contains(part), "\(part) in \(progress)")
        }
        XCTAssertTrue(progress.hasPrefix("[█"), "a bar, partly filled: \(progress)")
        XCTAssertEqual(model.testCounts.done, 2)
        XCTAssertEqual(model.testCounts.expected, 6)
        XCTAssertEqual(model.failedTests, 1)

        // Scrollback: the run line, then the failed test before its message; no per-phase lines on a TTY.
        XCTAssertEqual(scrollback.map(\.text), [
            "run r1: plan p (0 suites) on mac1",
            "a ✘ T/test1 (0.500s)",
            "a   T.swift:7: XCTAssertEqual failed",
        ])
        XCTAssertEqual(scrollback[1].style, .failure)
    }

    /// Jobs plan no tests: each job's count is `0/?` until its attempt lists what was built, and the
    /// run's total carries a `+` until every job has.
    func testTotalsComeFromTheDiscoveredListsAsTheyArrive() {
        var model = LiveViewModel(color: false)
        var s = RunEventScript()
        let a = AttemptRef(jobID: "a", attempt: 1), b = AttemptRef(jobID: "b", attempt: 1)
        for e in [s.at(0, RunEventScript.planned("a", tests: 0)), s.at(0, RunEventScript.planned("b", tests: 0)),
                  s.at(1, .attemptStarted(a, host: "mac1", slot: 0)), s.at(1, .attemptStarted(b, host: "mac1", slot: 1))] {
            _ = model.apply(e)
        }
        var frame = model.frame(width: 120, height: 30, now: 2)
        XCTAssertTrue(frame[0].contains("0/? tests"), frame[0])
        XCTAssertTrue(frame[2].contains("0/0+ tests"), frame[2])
        XCTAssertFalse(model.testCounts.complete)
        _ = model.apply(s.at(3, .testsDiscovered(a, TestsDiscovered(tests: ["Mod.T/test0", "Mod.T/test1", "Mod.T/test2"],
                                                                    selected: ["Mod.T/test0", "Mod.T/test1"]))))
        _ = model.apply(s.at(4, RunEventScript.finished("a", test: 0)))
        frame = model.frame(width: 120, height: 30, now: 5)
        XCTAssertTrue(frame[0].contains("1/2 tests"), "the shard's part, not the whole list: \(frame[0])")
        XCTAssertTrue(frame[2].contains("1/2+ tests"), frame[2])
        _ = model.apply(s.at(6, .testsDiscovered(b, TestsDiscovered(tests: ["Mod.T/test0", "Mod.T/test1", "Mod.T/test2"], selected: ["Mod.T/test2"]))))
        frame = model.frame(width: 120, height: 30, now: 7)
        XCTAssertTrue(frame[2].contains("1/3 tests"), frame[2])
        XCTAssertTrue(model.testCounts.complete)
    }

    func testAttemptEndFreesTheSlotAndCountsTheJobDone() {
        var (model, _) = midRun()
        var s = RunEventScript()
        let a = AttemptRef(jobID: "a", attempt: 1)
        _ = model.apply(s.at(13, RunEventScript.finished("a", test: 2)))
        _ = model.apply(s.at(14, RunEventScript.finished("a", test: 3)))
        let end = model.apply(s.at(15, .attemptEnded(a, AttemptEnded(termination: .exited(1)))))
        XCTAssertEqual(end.map(\.text), ["✘ a attempt 1: exit 1, 3 passed, 1 failed of 4 in 0:14"])
        XCTAssertEqual(end.first?.style, .failure)
        let frame = model.frame(width: 100, height: 30, now: 16)
        XCTAssertTrue(frame[0].hasPrefix("mac1#1  b"), "busy slots first: \(frame)")
        XCTAssertEqual(frame[1], "mac1#0  idle")
        XCTAssertTrue(frame[2].contains("1/2 jobs"), frame[2])
        XCTAssertEqual(model.jobCounts.done, 1)

        // A retry on another slot resets that job's counts; a late event of the old attempt is ignored.
        let retry = AttemptRef(jobID: "a", attempt: 2)
        _ = model.apply(s.at(16, .attemptStarted(retry, host: "mac2", slot: 0)))
        _ = model.apply(s.at(17, RunEventScript.finished("a", attempt: 1, test: 0)))
        XCTAssertEqual(model.jobCounts.done, 0)
        XCTAssertEqual(model.testCounts.done, 0)
        let retryLine = model.frame(width: 100, height: 30, now: 18).first { $0.hasPrefix("mac2#0") }
        XCTAssertTrue(retryLine?.contains("a (attempt 2)") == true, "\(String(describing: retryLine))")
    }

    func testMutantFailuresAreNotNarratedAsFailures() {
        var model = LiveViewModel(color: false)
        var s = RunEventScript()
        let m = AttemptRef(jobID: "gate~key", attempt: 1)
        _ = model.apply(s.at(0, RunEventScript.planned("gate~key", tests: 2, mutant: "key")))
        _ = model.apply(s.at(0, .attemptStarted(m, host: "h", slot: 0)))
        XCTAssertEqual(model.apply(s.at(1, RunEventScript.finished("gate~key", test: 0, .failed))), [])
        let end = model.apply(s.at(2, .attemptEnded(m, AttemptEnded(termination: .exited(1)))))
        XCTAssertEqual(end.map(\.text), ["✔ gate~key attempt 1: mutant key killed (exit 1, 1 failed, 1 not run of 2) in 0:02"])
        XCTAssertEqual(model.failedTests, 0, "a killed mutant is not a failure")
        XCTAssertTrue(model.frame(width: 100, height: 10, now: 3).last?.contains("mutants 1/1 killed") == true)
    }

    func testEveryLineFitsTheWidthAndNeverWraps() {
        var (model, _) = midRun()
        var s = RunEventScript()
        // A long, wide and hostile job name on a third slot.
        let hostile = "漢字漢字-very-long-job-name-\u{1B}[2J-with-escape-and-more-words-to-be-cut"
        _ = model.apply(s.at(20, RunEventScript.planned(hostile, tests: 3)))
        _ = model.apply(s.at(20, .attemptStarted(AttemptRef(jobID: hostile, attempt: 1), host: "mac-with-a-long-host-name", slot: 12)))
        for width in [1, 2, 5, 12, 20, 40, 60, 80, 200] {
            let frame = model.frame(width: width, height: 30, now: 30)
            XCTAssertEqual(frame.count, 4)
            for line in frame {
                XCTAssertLessThanOrEqual(TerminalText.columns(line), max(1, width - 1), "width \(width): \(line)")
                XCTAssertFalse(line.contains(esc), "no escape codes without colour, none from the job name: \(line)")
            }
        }
        let narrow = model.frame(width: 40, height: 30, now: 30)
        XCTAssertTrue(narrow.contains { $0.hasSuffix("…") }, "cut lines end in an ellipsis: \(narrow)")
        XCTAssertFalse(narrow[2].hasPrefix("["), "no room for the bar at 40 columns: \(narrow[2])")
        XCTAssertTrue(model.frame(width: 200, height: 30, now: 30).contains { $0.contains("漢字漢字-very-long-job-name-?[2J") })
    }

    func testTheLiveAreaFitsTheTerminalHeight() {
        var model = LiveViewModel(color: false)
        var s = RunEventScript()
        for i in 0..<10 {
            _ = model.apply(s.at(0, RunEventScript.planned("j\(i)", tests: 1)))
            _ = model.apply(s.at(0, .attemptStarted(AttemptRef(jobID: "j\(i)", attempt: 1), host: "h", slot: i)))
        }
        let frame = model.frame(width: 80, height: 6, now: 1)
        XCTAssertEqual(frame.count, 5, "height - 1 lines: \(frame)")
        XCTAssertEqual(frame[3], "… 7 more slots (7 busy)")
        XCTAssertTrue(frame[4].contains("0/10 jobs"))
        XCTAssertEqual(model.frame(width: 80, height: 1, now: 1).count, 1, "only the progress line")
    }

    func testNoColorMeansNoEscapeCodesAtAll() {
        let (plain, plainLines) = midRun(color: false)
        let (colored, coloredLines) = midRun(color: true)
        let plainText = plain.frame(width: 100, height: 20, now: 20) + plainLines.map { plain.render($0, at: 12) }
        let coloredText = colored.frame(width: 100, height: 20, now: 20) + coloredLines.map { colored.render($0, at: 12) }
        XCTAssertFalse(plainText.joined().contains(esc), plainText.joined(separator: "\n"))
        XCTAssertTrue(coloredText.joined().contains("\(esc)[31m"), "failures are red with colour on")
        // Colour never changes the visible text.
        func strip(_ s: String) -> String { s.replacingOccurrences(of: "\(esc)\\[[0-9;]*m", with: "", options: .regularExpression) }
        XCTAssertEqual(coloredText.map(strip), plainText)
        XCTAssertEqual(plain.render(ConsoleLine("x", .failure), at: 1.25), "    1.2s  x")
    }

    func testETAWithoutHistoryFollowsTheObservedRate() {
        var model = LiveViewModel(color: false)
        var s = RunEventScript()
        for id in ["a", "b", "c"] { _ = model.apply(s.at(0, RunEventScript.planned(id, tests: 4))) }
        let a = AttemptRef(jobID: "a", attempt: 1)
        _ = model.apply(s.at(0, .attemptStarted(a, host: "h", slot: 0)))
        _ = model.apply(s.at(0, .phaseStarted(a, phase: .build)))
        XCTAssertNil(model.eta(now: 5), "nothing finished yet: no basis")
        XCTAssertTrue(model.frame(width: 100, height: 10, now: 5).last?.hasSuffix("ETA --:--") == true)
        _ = model.apply(s.at(10, .phaseStarted(a, phase: .test)))
        _ = model.apply(s.at(12, RunEventScript.finished("a", test: 0)))
        // 1 test in 2 s, 3 to go → 6 s more for a, 18 s in all; b and c are expected to take as long.
        XCTAssertEqual(try XCTUnwrap(model.eta(now: 12)), 6 + 18 + 18, accuracy: 0.001)
        _ = model.apply(s.at(20, .attemptEnded(a, AttemptEnded(termination: .exited(0)))))
        // a took 20 s: b and c are expected to take as long, one slot.
        XCTAssertEqual(try XCTUnwrap(model.eta(now: 20)), 40, accuracy: 0.001)
        XCTAssertTrue(model.frame(width: 100, height: 10, now: 20).last?.hasSuffix("ETA 0:40") == true)
    }

    func testETAWithHistoryIsKnownFromTheStart() {
        let history = DurationHistory(report: historyReport(suite: "gate", attemptSeconds: 30))
        var model = LiveViewModel(color: false, history: history)
        var s = RunEventScript()
        for id in ["a", "b"] { _ = model.apply(s.at(0, RunEventScript.planned(id, suite: "gate", tests: 2))) }
        XCTAssertEqual(try XCTUnwrap(model.eta(now: 0)), 60, accuracy: 0.001, "two 30 s jobs, one slot")
        _ = model.apply(s.at(0, .attemptStarted(AttemptRef(jobID: "a", attempt: 1), host: "h", slot: 0)))
        _ = model.apply(s.at(0, .attemptStarted(AttemptRef(jobID: "b", attempt: 1), host: "h", slot: 1)))
        XCTAssertEqual(try XCTUnwrap(model.eta(now: 10)), 20, accuracy: 0.001, "both running on two slots, 10 s in")
        XCTAssertTrue(model.frame(width: 100, height: 10, now: 10).last?.hasSuffix("ETA 0:20") == true)
    }

    /// A report whose suite's one attempt took `attemptSeconds`.
    private func historyReport(suite: String, attemptSeconds: Double) -> RunReport {
        let attempt = AttemptReport(number: 1, host: "h", slot: 0, start: 0, end: attemptSeconds, phases: [], termination: nil, infraError: nil,
                                    timedOutPhase: nil, tests: [], unattributedFailures: [], crashes: [], buildErrors: [], metrics: [],
                                    problems: [], lost: false)
        let job = JobReport(planned: JobPlanned(jobID: "x", suite: suite, kind: .gate, expectedTests: []), attempts: [attempt],
                            finalState: .passed, reasons: [])
        let totals = Totals(jobs: 1, jobsByState: ["passed": 1], attempts: 1)
        return RunReport(runID: "r", planName: "p", planPath: "p.json", startedAt: "2026-01-01T00:00:00Z", xcfleetVersion: "0",
                         duration: attemptSeconds, interrupted: false, hosts: ["h"], hostsSetAside: [:],
                         suites: [SuiteReport(spec: SuiteSpec(name: suite, template: "cache-contract"), status: .green, reasons: [], jobs: [job])],
                         totals: totals, exitCode: 0, verdictLine: "all gates green", notes: [])
    }
}
