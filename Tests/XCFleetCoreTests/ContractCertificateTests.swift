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

    private func suite(_ jobs: [JobReport], subject: SubjectSpec?, template: String = "cache-contract") -> SuiteReport {
        SuiteReport(spec: SuiteSpec(name: "gate", template: template, subject: subject), status: .green, reasons: [], jobs: jobs)
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

    /// A Combine subject: K ids under the combine-lifetime contract version, the tests behind each id.
    func testACombineSubjectIsCertifiedAgainstTheKIds() throws {
        let feed = SubjectSpec(package: "..", module: "AppFeed", adapter: "A.swift", claims: ["K2", "K4", "K5"],
                               mutants: [MutantSpec(id: "strong-sink", fault: "f", contract: "K4", template: "combine-lifetime",
                                                    edits: [MutantEdit(file: "a", find: "b", replace: "c")])],
                               packageDirectory: "/r/AppFeed", adapterPath: "/r/AppFeed/A.swift")
        let gate = job([("testK2_a", .passed), ("testK4_a", .passed), ("testK5_a", .passed), ("testK5_b", .failed), ("testK9_a", .passed)],
                       expected: [], state: .failed)
        let killed = job([("testK4_a", .failed)], expected: [], mutant: "strong-sink", state: .failed)
        let certificate = try XCTUnwrap(ContractCertificate.make(suite([gate, killed], subject: feed, template: "combine-lifetime")))
        XCTAssertEqual(certificate.contract, "combine-lifetime/1")
        XCTAssertEqual(certificate.module, "AppFeed")
        XCTAssertEqual(certificate.claimed, ["K2", "K4", "K5"])
        XCTAssertEqual(certificate.ids.map(\.id), (1...11).map { "K\($0)" })
        let status = Dictionary(uniqueKeysWithValues: certificate.ids.map { ($0.id, $0.status) })
        XCTAssertEqual(status["K2"], .passed)
        XCTAssertEqual(status["K4"], .passed)
        XCTAssertEqual(status["K5"], .failed)
        XCTAssertEqual(status["K9"], .notClaimed, "its test passed, but K9 is not claimed")
        XCTAssertEqual(certificate.ids.first { $0.id == "K5" }?.tests.map(\.test), ["MemoryKeyTests/testK5_a", "MemoryKeyTests/testK5_b"])
        XCTAssertEqual(certificate.mutants, [.init(id: "strong-sink", contract: "K4", killed: true)])
        XCTAssertEqual(certificate.problems, ["K5 failed"])
        let markdown = CertificateSections.markdown(RunReportFixture.with(certificates: [certificate])).joined(separator: "\n")
        XCTAssertTrue(markdown.contains("### Certificate: AppFeed under combine-lifetime/1 — does not hold: K5 failed"), markdown)
    }

    /// No Mac for a Combine subject: nothing ran, so no id passed, none failed and no mutant survived.
    func testASuiteNoHostCouldRunIsNotRunNeverPassedNorSurvived() throws {
        let feed = SubjectSpec(package: "..", module: "AppFeed", adapter: "A.swift", claims: ["K4", "K5"],
                               mutants: [MutantSpec(id: "strong-sink", fault: "f", contract: "K4", template: "combine-lifetime",
                                                    edits: [MutantEdit(file: "a", find: "b", replace: "c")])],
                               packageDirectory: "/r/AppFeed", adapterPath: "/r/AppFeed/A.swift")
        var gate = job([], expected: ["ModelLifetimeTests/testK4_a", "RequestOrderingTests/testK5_a"], state: .unschedulable)
        gate.attempts = []
        var mutant = job([], expected: [], mutant: "strong-sink", state: .unschedulable)
        mutant.attempts = []
        let certificate = try XCTUnwrap(ContractCertificate.make(suite([gate, mutant], subject: feed, template: "combine-lifetime")))
        let status = Dictionary(uniqueKeysWithValues: certificate.ids.map { ($0.id, $0.status) })
        XCTAssertEqual(status["K4"], .notRun)
        XCTAssertEqual(status["K5"], .notRun)
        XCTAssertEqual(status["K1"], .notClaimed)
        XCTAssertEqual(certificate.mutants, [.init(id: "strong-sink", contract: "K4", killed: false, notRun: true)])
        XCTAssertEqual(certificate.mutants.first?.killed, false, "a mutant that never ran is not killed")
        XCTAssertEqual(certificate.problems, ["K4 not run", "K5 not run", "mutant strong-sink not run"])
        // As planned now: no manifest, and no attempt listed the tests. Still "not run", never "no gate tests".
        var unlisted = job([], expected: [], state: .unschedulable)
        unlisted.attempts = []
        let plain = try XCTUnwrap(ContractCertificate.make(suite([unlisted, mutant], subject: feed, template: "combine-lifetime")))
        XCTAssertEqual(plain.problems, ["K4 not run", "K5 not run", "mutant strong-sink not run"])
        XCTAssertTrue(plain.ids.allSatisfy { $0.tests.isEmpty })
        let markdown = CertificateSections.markdown(RunReportFixture.with(certificates: [certificate])).joined(separator: "\n")
        XCTAssertTrue(markdown.contains("does not hold: K4 not run, K5 not run, mutant strong-sink not run"), markdown)
        XCTAssertFalse(markdown.contains("survived"), markdown)
        XCTAssertTrue(CertificateSections.html(RunReportFixture.with(certificates: [certificate])).contains("<strong>not run</strong>"))
        // Encoded only when true: a report of a mutant that ran keeps its earlier shape.
        let ran = try JSONEncoder().encode(ContractCertificate.MutantResult(id: "m", contract: "K4", killed: true))
        XCTAssertFalse(String(decoding: ran, as: UTF8.self).contains("notRun"))
    }

    func testASuiteWithoutASubjectHasNoCertificate() {
        XCTAssertNil(ContractCertificate.make(suite([job([("testC1_a", .passed)], expected: [], state: .passed)], subject: nil)))
    }
}

private enum RunReportFixture {
    static func with(certificates: [ContractCertificate]) -> RunReport {
        var r = RunReport(runID: "r", planName: "p", planPath: "p.json", startedAt: "", xcfleetVersion: "", duration: 1, interrupted: false,
                          hosts: [], hostsSetAside: [:], suites: [], totals: Totals(jobs: 0, jobsByState: [:], attempts: 0),
                          exitCode: 0, verdictLine: "", notes: [])
        r.certificates = certificates
        return r
    }
}
