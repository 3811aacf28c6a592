import XCTest
@testable import XCFleetBasics
@testable import XCFleetModel
@testable import XCFleetCore
import XCFleetTestSupport

/// The verdict line names the cause of the exit code first.
final class VerdictLineTests: XCTestCase {
    private func attempt(host: String, infra: String? = nil, timedOut: Phase? = nil, passed: Bool = false) -> AttemptReport {
        AttemptReport(number: 1, host: host, slot: 0, start: 0, end: 1, phases: [],
                      termination: infra == nil ? .exited(passed ? 0 : 1) : .connectionLost("dead peer"),
                      infraError: infra, timedOutPhase: timedOut, tests: [], unattributedFailures: [], crashes: [], buildErrors: [],
                      metrics: [], problems: [], lost: infra != nil)
    }

    private func job(_ id: String, suite: String, _ state: JobFinalState, reason: String, attempts: [AttemptReport]) -> JobReport {
        JobReport(planned: JobPlanned(jobID: id, suite: suite, kind: .gate, expectedTests: []), attempts: attempts,
                  finalState: state, reasons: state == .passed ? [] : [reason])
    }

    private func suite(_ name: String, _ jobs: [JobReport]) -> SuiteReport {
        let spec = SuiteSpec(name: name, template: "cache-contract")
        let (status, reasons) = Verdict.suiteStatus(spec: spec, jobs: jobs, mutantFaults: [:])
        return SuiteReport(spec: spec, status: status, reasons: reasons, jobs: jobs)
    }

    /// A mutant is killed by a failing test, never by a listing that found none (no test ran).
    func testAMutantWhoseListingFailedIsNotKilled() {
        let spec = SuiteSpec(name: "gate", template: "cache-contract")
        func mutant(_ id: String, problem: String?, failed: Bool) -> JobReport {
            var a = attempt(host: "h1")
            a.discovery = TestsDiscovered(tests: problem == nil ? ["T.C/testA"] : [], selected: problem == nil ? ["T.C/testA"] : [], problem: problem)
            if failed { a.tests = [SampleReports.test("C/testA", .failed)] }
            return JobReport(planned: JobPlanned(jobID: "gate#mutant-\(id)", suite: "gate", kind: .gate, mutant: id, expectedTests: []),
                             attempts: [a], finalState: .failed, reasons: ["red"])
        }
        let green = JobReport(planned: JobPlanned(jobID: "gate", suite: "gate", kind: .gate, expectedTests: []),
                              attempts: [attempt(host: "h1", passed: true)], finalState: .passed, reasons: [])
        let killed = Verdict.suiteStatus(spec: spec, jobs: [green, mutant("m1", problem: nil, failed: true)], mutantFaults: [:])
        XCTAssertEqual(killed.0, .green, "\(killed.1)")
        let unlisted = Verdict.suiteStatus(spec: spec, jobs: [green, mutant("m2", problem: "the built products list no tests", failed: false)], mutantFaults: [:])
        XCTAssertEqual(unlisted.0, .red)
        XCTAssertEqual(unlisted.1, ["mutant m2 could not be checked: test discovery: the built products list no tests"])
    }

    /// Exit 1 comes from a timed-out job: the line names it first, not the infra-failed job before it.
    func testExitOneNamesTheTimedOutJobNotTheInfraFailedOne() {
        let s = suite("gate", [
            job("gate#0", suite: "gate", .infraFailed, reason: "infra-failed after 3 attempts: h1: connect: refused",
                attempts: [attempt(host: "h1", infra: "h1: connect: refused")]),
            job("gate#1", suite: "gate", .timedOut, reason: "timed out in phase test", attempts: [attempt(host: "h2", timedOut: .test)]),
        ])
        XCTAssertEqual(s.status, .red)
        XCTAssertTrue(s.reasons.first?.contains("infra-failed") ?? false, "the suite's own first reason is the infra one: \(s.reasons)")
        let (code, line) = Verdict.exitCode(suites: [s], interrupted: false)
        XCTAssertEqual(code, 1)
        XCTAssertEqual(line, "gates red: gate (gate#1@h2: timed out in phase test)")
    }

    /// Every host was set aside by the end, but they ran jobs first (13 of 16 passed): exit 3
    /// with the infra-failed jobs, never "no host could be used".
    func testHostsThatRanJobsAreNotCalledUnusable() {
        var jobs = (0..<13).map { job("s#\($0)", suite: "s", .passed, reason: "", attempts: [attempt(host: "h\($0 % 2 + 1)", passed: true)]) }
        jobs += (13..<16).map { job("s#\($0)", suite: "s", .infraFailed, reason: "infra-failed after 2 attempts: host h1 lost: dead peer",
                                    attempts: [attempt(host: "h1", infra: "host h1 lost: dead peer")]) }
        let (code, line) = Verdict.exitCode(suites: [suite("s", jobs)], interrupted: false,
                                            unusableHosts: ["h1": "h1: connect: timed out", "h2": "h2: connect: refused"])
        XCTAssertEqual(code, 3)
        XCTAssertFalse(line.contains("no host could be used"), line)
        XCTAssertTrue(line.hasPrefix("infrastructure: s (s#13@h1: infra-failed after 2 attempts"), line)
        XCTAssertTrue(line.hasSuffix("hosts lost during the run: h1, h2"), line)
    }

    /// When no job ever started anywhere, "no host could be used" is the truth and stays.
    func testNoHostCouldBeUsedOnlyWhenNothingRan() {
        let s = suite("s", [job("s", suite: "s", .unschedulable, reason: "unschedulable: needs a host", attempts: [])])
        let (code, line) = Verdict.exitCode(suites: [s], interrupted: false, unusableHosts: ["h1": "h1: connect: refused"])
        XCTAssertEqual(code, 3)
        XCTAssertEqual(line, "infrastructure: no host could be used (every host was set aside) — h1: connect: refused")
    }

    /// A failed job and a surviving mutant: exit 1, the failed job's own reason.
    func testExitOneWithFailedTestsNamesTheFailure() {
        let s = suite("gate", [
            job("gate#0", suite: "gate", .infraFailed, reason: "infra-failed after 1 attempt: lost", attempts: [attempt(host: "h1", infra: "lost")]),
            job("gate#1", suite: "gate", .failed, reason: "2 tests failed: A/x, A/y", attempts: [attempt(host: "h2")]),
        ])
        let (code, line) = Verdict.exitCode(suites: [s], interrupted: false)
        XCTAssertEqual(code, 1)
        XCTAssertEqual(line, "gates red: gate (gate#1@h2: 2 tests failed: A/x, A/y)")
    }

    /// The problem line counts red tests in the figures' categories: a crashed test is not "failed".
    func testRedTestsAreCountedInTheFiguresCategories() {
        var a = attempt(host: "h")
        let failed = FailureDetail(file: "A.swift", line: 3, message: "XCTAssertTrue failed")
        a.tests = [
            TestResult(id: TestIdentifier(suite: "S", name: "testA"), status: .failed, failures: [failed]),
            TestResult(id: TestIdentifier(suite: "S", name: "testB"), status: .failed, failures: [FailureDetail(message: "crashed: signal 11")]),
            TestResult(id: TestIdentifier(suite: "S", name: "testC"), status: .failed, failures: [failed]),
            TestResult(id: TestIdentifier(suite: "S", name: "testP"), status: .passed),
        ]
        let problems = Verdict.problems(of: a, expected: [])
        XCTAssertTrue(problems.contains("2 tests failed, 1 crashed: S/testA, S/testC, S/testB"), "\(problems)")
        a.tests[1].status = .passed
        XCTAssertTrue(Verdict.problems(of: a, expected: []).contains("2 tests failed: S/testA, S/testC"))
        a.tests[0].failures = [FailureDetail(message: "crashed: exit 1")]
        a.tests[2].timedOut = true
        XCTAssertTrue(Verdict.problems(of: a, expected: []).contains("1 test crashed, 1 timed out: S/testA, S/testC"),
                      "\(Verdict.problems(of: a, expected: []))")
        let categories = ReportFacts.outcomes(job("j", suite: "s", .failed, reason: "red", attempts: [a])).map(\.category)
        XCTAssertEqual(categories.filter { $0 == .crashed }.count, 1, "the figures agree with the line")
        XCTAssertEqual(categories.filter { $0 == .timedOut }.count, 1, "the figures agree with the line")
    }

    /// A location the runner did not know (`<unknown>:0`) is no location in any output.
    func testAnUnknownLocationIsNoLocation() {
        XCTAssertNil(ReportText.location(FailureDetail(file: "<unknown>", line: 0, message: "m")))
        XCTAssertEqual(ReportText.location(FailureDetail(file: "A.swift", line: 0, message: "m")), "A.swift")
        XCTAssertEqual(ReportText.location(FailureDetail(file: "A.swift", line: 7, message: "m")), "A.swift:7")
        XCTAssertEqual(ReportText.failureLine(FailureDetail(file: "<unknown>", line: 0, message: "boom")), "boom")
    }
}

/// Hosts that left and rejoined are in summary.md.
final class HostChangesSummaryTests: XCTestCase {
    func testSummaryShowsWhenHostsLeftAndRejoined() {
        var report = SampleReports.green
        report.hostChanges = [HostChange(t: 4.25, host: "mac-b", change: .probation, reason: "connection to mac-b lost during test: dead peer"),
                              HostChange(t: 9.5, host: "mac-b", change: .rejoined, reason: nil)]
        let md = MarkdownSummaryRenderer().markdown(report)
        XCTAssertTrue(md.contains("host mac-b on probation at 4.2 s: connection to mac-b lost during test: dead peer"), md)
        XCTAssertTrue(md.contains("host mac-b rejoined at 9.5 s"), md)
        // Old reports (no hostChanges) read and render as before.
        let data = try? JSONEncoder().encode(SampleReports.green)
        XCTAssertFalse(String(decoding: data ?? Data(), as: UTF8.self).contains("hostChanges"))
    }
}
