import XCTest
@testable import XCFleetKit
import XCFleetTestSupport

/// Builds event logs by hand and checks the collated report: verdict rules (DESIGN decision 6),
/// retries, flaky, lost attempts, unschedulable jobs and totals that add up.
final class CollatorTests: XCTestCase {
    private var seq = 0
    private var events: [RunEvent] = []

    override func setUp() {
        seq = 0
        events = []
    }

    private func add(_ body: RunEvent.Body, t: Double = 0) {
        seq += 1
        events.append(RunEvent(seq: seq, t: t, body: body))
    }

    private func start(_ suites: [SuiteSpec], hosts: [String] = ["h1", "h2"]) {
        add(.runStarted(RunStarted(runID: "r", planName: "p", planPath: "p.json", startedAt: "2026-11-29T00:00:00Z", xcfleetVersion: "0", suites: suites, hosts: hosts)))
    }

    private func attempt(_ job: String, _ n: Int, host: String = "h1", tests: [(String, TestStatus)], ended: AttemptEnded = AttemptEnded(termination: .exited(0)), extra: [TestEvent] = []) {
        let ref = AttemptRef(jobID: job, attempt: n)
        add(.attemptStarted(ref, host: host, slot: 0))
        for e in extra { add(.test(ref, event: e)) }
        for (name, status) in tests {
            let id = TestIdentifier(suite: "CacheContractTests.KeyTests", name: name)
            add(.test(ref, event: .testStarted(id, framework: .xctest)))
            if status == .failed {
                add(.test(ref, event: .testFailure(id, file: "/x/KeyTests.swift", line: 12, message: "XCTAssertEqual failed")))
            }
            add(.test(ref, event: .testFinished(id, status: status, seconds: 0.01, framework: .xctest, clone: nil)))
        }
        add(.attemptEnded(ref, ended))
    }

    private let expected = ["KeyTests/testC1_a", "KeyTests/testC4_b"]

    func testGreenGateNeedsEveryExpectedTestPassing() {
        let gate = SuiteSpec(name: "g", template: "cache-contract")
        start([gate])
        add(.jobPlanned(JobPlanned(jobID: "g", suite: "g", kind: .gate, expectedTests: expected)))
        attempt("g", 1, tests: [("testC1_a", .passed), ("testC4_b", .passed)])
        add(.runFinished(interrupted: false))
        let report = Collator().collate(events)
        XCTAssertEqual(report.suites.first?.status, .green)
        XCTAssertEqual(report.exitCode, 0)
        XCTAssertEqual(report.totals.tests.passed, 2)
        XCTAssertEqual(report.suites.first?.jobs.first?.decisive?.tests.first?.contractIDs, ["C1"])
    }

    func testMissingExpectedTestIsRed() {
        start([SuiteSpec(name: "g", template: "cache-contract")])
        add(.jobPlanned(JobPlanned(jobID: "g", suite: "g", kind: .gate, expectedTests: expected)))
        attempt("g", 1, tests: [("testC1_a", .passed)])
        add(.runFinished(interrupted: false))
        let report = Collator().collate(events)
        XCTAssertEqual(report.suites.first?.status, .red)
        XCTAssertEqual(report.exitCode, 1)
        XCTAssertTrue(report.suites[0].reasons.joined().contains("KeyTests/testC4_b"), "\(report.suites[0].reasons)")
    }

    func testFailureCarriesLocationAndContractID() {
        start([SuiteSpec(name: "g", template: "cache-contract")])
        add(.jobPlanned(JobPlanned(jobID: "g", suite: "g", kind: .gate, expectedTests: expected)))
        attempt("g", 1, tests: [("testC1_a", .passed), ("testC4_b", .failed)], ended: AttemptEnded(termination: .exited(1)))
        add(.runFinished(interrupted: false))
        let report = Collator().collate(events)
        let failed = report.suites[0].jobs[0].decisive?.tests.first { $0.status == .failed }
        XCTAssertEqual(failed?.failures.first?.line, 12)
        XCTAssertEqual(failed?.contractIDs, ["C4"])
        XCTAssertEqual(report.suites[0].jobs[0].finalState, .failed)
        XCTAssertEqual(report.exitCode, 1)
        XCTAssertTrue(report.verdictLine.contains("testC4_b"), report.verdictLine)
    }

    /// The Linux shape: XCTest crashes before any test, Swift Testing still says "passed".
    func testCrashBeforeTestsIsRedEvenWithSwiftTestingPassedLine() {
        start([SuiteSpec(name: "g", template: "cache-contract")])
        add(.jobPlanned(JobPlanned(jobID: "g", suite: "g", kind: .gate, expectedTests: expected)))
        attempt("g", 1, tests: [], ended: AttemptEnded(termination: .exited(0)), extra: [
            .crash(message: "Could not cast value of type '(KeyTests) -> @MainActor () -> ()'"),
            .swiftTestingSummary(tests: 0, suites: 0, passed: true, issues: nil, seconds: 0.001),
        ])
        add(.runFinished(interrupted: false))
        let report = Collator().collate(events)
        XCTAssertEqual(report.suites[0].status, .red)
        XCTAssertTrue(report.suites[0].reasons.contains { $0.contains("crashed before tests ran") }, "\(report.suites[0].reasons)")
        XCTAssertEqual(report.exitCode, 1)
    }

    func testInfraFailureThenPassOnAnotherHostKeepsBothAttempts() {
        start([SuiteSpec(name: "g", template: "cache-contract")])
        add(.jobPlanned(JobPlanned(jobID: "g", suite: "g", kind: .gate, expectedTests: expected)))
        attempt("g", 1, host: "h1", tests: [("testC1_a", .passed)], ended: AttemptEnded(termination: .connectionLost("eof"), infraError: "connection to h1 lost"))
        attempt("g", 2, host: "h2", tests: [("testC1_a", .passed), ("testC4_b", .passed)])
        add(.runFinished(interrupted: false))
        let job = Collator().collate(events).suites[0].jobs[0]
        XCTAssertEqual(job.attempts.count, 2)
        XCTAssertTrue(job.attempts[0].lost, "the lost attempt is labelled")
        XCTAssertEqual(job.attempts[0].tests.count, 1, "its events stay with it, not merged into the retry")
        XCTAssertEqual(job.finalState, .passed)
    }

    func testFailThenPassIsFlakyAndRedUnlessAllowed() {
        for allow in [false, true] {
            setUp()
            var spec = SuiteSpec(name: "g", template: "cache-contract")
            spec.allowFlaky = allow
            start([spec])
            add(.jobPlanned(JobPlanned(jobID: "g", suite: "g", kind: .gate, expectedTests: expected)))
            attempt("g", 1, tests: [("testC1_a", .failed), ("testC4_b", .passed)], ended: AttemptEnded(termination: .exited(1)))
            attempt("g", 2, tests: [("testC1_a", .passed), ("testC4_b", .passed)])
            add(.runFinished(interrupted: false))
            let report = Collator().collate(events)
            XCTAssertEqual(report.suites[0].jobs[0].finalState, .flaky)
            XCTAssertEqual(report.totals.tests.flaky, 1)
            XCTAssertEqual(report.suites[0].status, allow ? .green : .red)
            XCTAssertEqual(report.exitCode, allow ? 0 : 1)
        }
    }

    func testUnschedulableGateIsNeverGreenAndProbesNeverChangeTheExitCode() {
        let combine = SuiteSpec(name: "combine", template: "combine-lifetime", requires: ["combine"])
        let probe = SuiteSpec(name: "probes", template: "pressure-probes", kind: .probe)
        start([combine, probe])
        add(.jobPlanned(JobPlanned(jobID: "combine", suite: "combine", kind: .gate, expectedTests: ["A/testK1_x"])))
        add(.jobPlanned(JobPlanned(jobID: "probes", suite: "probes", kind: .probe, expectedTests: ["P/testProbe"])))
        add(.jobUnschedulable(jobID: "combine", reason: "needs combine"))
        attempt("probes", 1, tests: [], ended: AttemptEnded(termination: .exited(1)), extra: [.metric(Metric(name: "hit_rate", value: 0.5, unit: "ratio", labels: ["object_bytes": "4096"]))])
        add(.runFinished(interrupted: false))
        let report = Collator().collate(events)
        XCTAssertEqual(report.suites[0].status, .unschedulable)
        XCTAssertEqual(report.suites[0].reasons, ["needs combine"])
        XCTAssertEqual(report.verdictLine, "infrastructure: combine (unschedulable: needs combine)")
        XCTAssertEqual(report.suites[1].status, .measured)
        XCTAssertEqual(report.exitCode, 3, "an unschedulable gate is an infrastructure verdict, never green")
        XCTAssertEqual(report.suites[1].jobs[0].decisive?.metrics.count, 1)
    }

    func testEveryHostSetAsideNamesTheHostsNotThePlan() {
        start([SuiteSpec(name: "gate", template: "cache-contract")])
        add(.jobPlanned(JobPlanned(jobID: "gate", suite: "gate", kind: .gate, expectedTests: expected)))
        add(.hostSetAside(host: "h2", reason: "h2: connect: cannot connect to 10.0.0.2:22: Connection refused"))
        add(.hostSetAside(host: "h1", reason: "unhealthy: swift --version failed"))
        add(.jobUnschedulable(jobID: "gate", reason: "needs a host"))
        add(.runFinished(interrupted: false))
        let report = Collator().collate(events)
        XCTAssertEqual(report.exitCode, 3)
        XCTAssertEqual(report.verdictLine, "infrastructure: no host could be used (every host was set aside) — "
                       + "h1: unhealthy: swift --version failed; h2: connect: cannot connect to 10.0.0.2:22: Connection refused")
        // One usable host left: the verdict is about the suite again.
        setUp()
        start([SuiteSpec(name: "gate", template: "cache-contract")])
        add(.jobPlanned(JobPlanned(jobID: "gate", suite: "gate", kind: .gate, expectedTests: expected)))
        add(.hostSetAside(host: "h2", reason: "h2: connect: refused"))
        add(.jobUnschedulable(jobID: "gate", reason: "needs combine"))
        add(.runFinished(interrupted: false))
        XCTAssertEqual(Collator().collate(events).verdictLine, "infrastructure: gate (unschedulable: needs combine)")
    }

    func testSurvivingMutantTurnsTheGateRedNamingTheFault() {
        start([SuiteSpec(name: "g", template: "cache-contract", mutants: true)])
        add(.jobPlanned(JobPlanned(jobID: "g", suite: "g", kind: .gate, expectedTests: expected)))
        add(.jobPlanned(JobPlanned(jobID: "g#mutant-m1", suite: "g", kind: .gate, mutant: "m1", expectedTests: expected)))
        add(.jobPlanned(JobPlanned(jobID: "g#mutant-m2", suite: "g", kind: .gate, mutant: "m2", expectedTests: expected)))
        attempt("g", 1, tests: [("testC1_a", .passed), ("testC4_b", .passed)])
        attempt("g#mutant-m1", 1, tests: [("testC1_a", .failed), ("testC4_b", .passed)], ended: AttemptEnded(termination: .exited(1)))
        attempt("g#mutant-m2", 1, tests: [("testC1_a", .passed), ("testC4_b", .passed)])
        add(.runFinished(interrupted: false))
        let report = Collator(mutantFaults: ["m2": "clear that does nothing"]).collate(events)
        XCTAssertEqual(report.suites[0].status, .red)
        XCTAssertEqual(report.suites[0].reasons, ["the suite does not catch: clear that does nothing (mutant m2 survived)"])
        XCTAssertEqual(report.exitCode, 1)
        XCTAssertEqual(report.totals.tests.passed, 2, "mutant runs do not count as the suite's test results")
    }

    /// The fault text travels in `jobPlanned`, so `report` rebuilds the reason from `events.jsonl`
    /// alone, with no templates to read (an installed binary, another machine).
    func testSurvivingMutantReasonComesFromTheEventLogAlone() throws {
        start([SuiteSpec(name: "g", template: "cache-contract", mutants: true)])
        add(.jobPlanned(JobPlanned(jobID: "g", suite: "g", kind: .gate, expectedTests: expected)))
        add(.jobPlanned(JobPlanned(jobID: "g#mutant-m2", suite: "g", kind: .gate, mutant: "m2", mutantFault: "clear that does nothing",
                                   expectedTests: expected)))
        attempt("g", 1, tests: [("testC1_a", .passed), ("testC4_b", .passed)])
        attempt("g#mutant-m2", 1, tests: [("testC1_a", .passed), ("testC4_b", .passed)])
        add(.runFinished(interrupted: false))
        let reason = ["the suite does not catch: clear that does nothing (mutant m2 survived)"]
        XCTAssertEqual(Collator().collate(events).suites[0].reasons, reason)

        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("xcfleet-mutant-log-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let lines = try events.map { String(decoding: try JSONEncoder().encode($0), as: UTF8.self) }
        try (lines.joined(separator: "\n") + "\n").write(to: dir.appendingPathComponent("events.jsonl"), atomically: true, encoding: .utf8)
        let noTemplates = TemplateRoot(url: dir)   // holds no Templates/: nothing to look the fault up in
        XCTAssertEqual(try ReportWriter.rebuild(runDirectory: dir, root: noTemplates).suites[0].reasons, reason)
    }

    func testRunWithoutFinalEventIsInterruptedAndTotalsAddUp() {
        start([SuiteSpec(name: "g", template: "cache-contract")])
        add(.jobPlanned(JobPlanned(jobID: "g1", suite: "g", kind: .gate, expectedTests: expected)))
        add(.jobPlanned(JobPlanned(jobID: "g2", suite: "g", kind: .gate, expectedTests: expected)))
        attempt("g1", 1, tests: [("testC1_a", .passed), ("testC4_b", .passed)])
        add(.attemptStarted(AttemptRef(jobID: "g2", attempt: 1), host: "h2", slot: 1))
        let report = Collator().collate(events)
        XCTAssertTrue(report.interrupted)
        XCTAssertEqual(report.exitCode, 130)
        XCTAssertEqual(report.totals.jobs, 2)
        XCTAssertEqual(report.totals.jobsByState.values.reduce(0, +), report.totals.jobs)
        XCTAssertEqual(report.suites[0].jobs[1].finalState, .interrupted)
        XCTAssertTrue(report.suites[0].jobs[1].attempts[0].lost)
    }

    func testSameEventsGiveTheSameReport() throws {
        start([SuiteSpec(name: "g", template: "cache-contract")])
        add(.jobPlanned(JobPlanned(jobID: "g", suite: "g", kind: .gate, expectedTests: expected)))
        attempt("g", 1, tests: [("testC1_a", .passed), ("testC4_b", .failed)], ended: AttemptEnded(termination: .exited(1)))
        add(.runFinished(interrupted: false))
        let a = try ReportWriter.json(Collator().collate(events))
        let b = try ReportWriter.json(Collator().collate(events.reversed()))
        XCTAssertEqual(a, b)
    }
}
