import XCTest
@testable import XCFleetCore
import XCFleetModel
import XCFleetTestSupport

/// The certificate of a suite that runs the cache contract against a team's subject: claimed ids
/// pass only when every test behind them passed; an unclaimed id is never passed, even when its
/// tests ran and passed; claimed ids without gate tests say so; mutants are killed or survived.
final class ContractCertificateTests: XCTestCase {
    private let subject = SubjectSpec(package: "..", module: "AppCache", adapter: "A.swift", claims: ["C1", "C5", "C12"],
                                      mutants: [MutantSpec(id: "m1", fault: "f", contract: "C1", template: "cache-contract",
                                                           edits: [MutantEdit(file: "a", find: "b", replace: "c")])],
                                      packageDirectory: "/r/App", adapterPath: "/r/App/A.swift")

    private func job(_ tests: [(String, TestStatus)], expected: [String], mutant: String? = nil, state: JobFinalState) -> JobReport {
        let results = tests.map { TestResult(id: TestIdentifier(suite: "CacheContractTests.MemoryKeyTests", name: $0.0), status: $0.1) }
        let attempt = AttemptReport(number: 1, host: "local", slot: 0, start: 0, end: 1, phases: [], termination: .exited(0),
                                    tests: results, unattributedFailures: [], crashes: [], buildErrors: [], metrics: [], problems: [], lost: false)
        return JobReport(planned: JobPlanned(jobID: mutant.map { "gate#mutant-\($0)" } ?? "gate", suite: "gate", kind: .gate, mutant: mutant,
                                             expectedTests: expected),
                         attempts: [attempt], finalState: state, reasons: [])
    }

    private func suite(_ jobs: [JobReport], subject: SubjectSpec?) -> SuiteReport {
        SuiteReport(spec: SuiteSpec(name: "gate", template: "cache-contract", subject: subject), status: .green, reasons: [], jobs: jobs)
    }

    func testClaimedIdsPassOnlyWithEveryTestPassedAndUnclaimedIdsAreNeverPassed() throws {
        let gate = job([("testC1_a", .passed), ("testC1_b", .passed), ("testC5_a", .failed), ("testC7_a", .passed)],
                       expected: ["MemoryKeyTests/testC1_a", "MemoryKeyTests/testC1_b", "MemoryKeyTests/testC5_a", "MemoryKeyTests/testC5_missing"],
                       state: .failed)
        let survivor = job([("testC1_a", .passed)], expected: [], mutant: "m1", state: .passed)
        let certificate = try XCTUnwrap(ContractCertificate.make(suite([gate, survivor], subject: subject)))
        let status = Dictionary(uniqueKeysWithValues: certificate.ids.map { ($0.id, $0.status) })
        XCTAssertEqual(certificate.contract, "cache-contract/2")
        XCTAssertEqual(certificate.claimed, ["C1", "C5", "C12"])
        XCTAssertEqual(status["C1"], .passed)
        XCTAssertEqual(status["C5"], .failed)
        XCTAssertEqual(status["C7"], .notClaimed, "its test passed, but C7 is not claimed")
        XCTAssertEqual(status["C12"], .noGateTests)
        XCTAssertEqual(certificate.ids.first { $0.id == "C5" }?.tests.map(\.status), ["failed", "not run"])
        XCTAssertEqual(certificate.mutants, [.init(id: "m1", contract: "C1", killed: false)])
        XCTAssertEqual(certificate.problems, ["C5 failed", "mutant m1 survived"])

        let markdown = CertificateSections.markdown(RunReportFixture.with(certificates: [certificate])).joined(separator: "\n")
        XCTAssertTrue(markdown.contains("### Certificate: AppCache under cache-contract/2 — does not hold: C5 failed, mutant m1 survived"), markdown)
        XCTAssertTrue(markdown.contains("| C7 | not claimed |"), markdown)
    }

    func testASuiteWithoutASubjectHasNoCertificate() {
        XCTAssertNil(ContractCertificate.make(suite([job([("testC1_a", .passed)], expected: [], state: .passed)], subject: nil)))
    }
}

private enum RunReportFixture {
    static func with(certificates: [ContractCertificate]) -> RunReport {
        var r = RunReport(runID: "r", planName: "p", planPath: "p.json", startedAt: "", xcfleetVersion: "", duration: 1, interrupted: false,
                          hosts: [], hostsSetAside: [:], suites: [], totals: Totals(jobs: 0, jobsByState: [:], testsPassed: 0, testsFailed: 0,
                                                                                       testsSkipped: 0, flakyTests: 0, attempts: 0),
                          exitCode: 0, verdictLine: "", notes: [])
        r.certificates = certificates
        return r
    }
}
