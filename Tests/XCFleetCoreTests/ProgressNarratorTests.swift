import XCTest
@testable import XCFleetBasics
@testable import XCFleetModel
@testable import XCFleetCore
import XCFleetTestSupport

final class ProgressNarratorTests: XCTestCase {
    private func narrate(_ verbosity: ConsoleVerbosity, live: Bool) -> [String] {
        var narrator = ProgressNarrator(verbosity: verbosity, live: live)
        var s = RunEventScript()
        let a = AttemptRef(jobID: "a", attempt: 1)
        let events: [RunEvent] = [
            s.at(0, RunEventScript.planned("a", tests: 2)),
            s.at(0, .attemptStarted(a, host: "h", slot: 0)),
            s.at(0, .phaseStarted(a, phase: .push)),
            s.at(1, .phaseStarted(a, phase: .build)),
            s.at(5, .phaseStarted(a, phase: .test)),
            s.at(6, RunEventScript.finished("a", test: 0)),
            s.at(6, .test(a, event: .testFailure(nil, file: nil, line: nil, message: "stray \u{1B}[31missue\nsecond line"))),
            s.at(7, .test(a, event: .crash(message: "Fatal error: boom"))),
            s.at(8, .attemptEnded(a, AttemptEnded(termination: .signaled("SIGILL")))),
            s.at(8, .hostSetAside(host: "h", reason: "lost")),
            s.at(9, .note("a note")),
            s.at(9, .runFinished(interrupted: true)),
        ]
        return events.flatMap { narrator.lines(for: $0) }.map(\.text)
    }

    func testPlainNormalNarratesPhasesFailuresAndOutcomes() {
        XCTAssertEqual(narrate(.normal, live: false), [
            "a attempt 1 on h#0",
            "a build…",
            "a test…",
            "a   stray ?[31missue second line",
            "a crash: Fatal error: boom",
            "✘ a attempt 1: killed by SIGILL, 1 passed, 1 not run of 2 in 0:08",
            "host h set aside: lost",
            "run interrupted",
        ])
    }

    func testLiveLeavesAttemptsAndPhasesToTheLiveArea() {
        let lines = narrate(.normal, live: true)
        XCTAssertFalse(lines.contains { $0.hasSuffix("…") || $0.contains(" on h#0") }, "\(lines)")
        XCTAssertTrue(lines.contains("a crash: Fatal error: boom"))
    }

    func testVerboseSaysEverythingAndQuietNothing() {
        let verbose = narrate(.verbose, live: true)
        for expected in ["planned a (2 tests)", "a attempt 1 on h#0", "a push…", "a ✔ T/test0 (0.500s)", "a note"] {
            XCTAssertTrue(verbose.contains(expected), "\(expected) in \(verbose)")
        }
        XCTAssertEqual(narrate(.quiet, live: false), [])
        XCTAssertEqual(narrate(.quiet, live: true), [])
    }

    func testCleanAttemptIsASuccessLine() {
        var narrator = ProgressNarrator(verbosity: .normal, live: true)
        var s = RunEventScript()
        let a = AttemptRef(jobID: "a", attempt: 1)
        _ = narrator.lines(for: s.at(0, RunEventScript.planned("a", tests: 1)))
        _ = narrator.lines(for: s.at(0, .attemptStarted(a, host: "h", slot: 0)))
        _ = narrator.lines(for: s.at(3, RunEventScript.finished("a", test: 0)))
        let end = narrator.lines(for: s.at(65, .attemptEnded(a, AttemptEnded(termination: .exited(0)))))
        XCTAssertEqual(end, [ConsoleLine("✔ a attempt 1: 1 passed of 1 in 1:05", .success)])
        let infra = narrator.lines(for: s.at(70, .attemptEnded(AttemptRef(jobID: "a", attempt: 2), AttemptEnded(infraError: "host gone"))))
        XCTAssertEqual(infra, [ConsoleLine("⚠ a attempt 2: infrastructure failure: host gone", .warning)])
    }
}
