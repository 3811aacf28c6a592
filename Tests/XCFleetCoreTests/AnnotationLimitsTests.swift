import XCTest
@testable import XCFleetBasics
@testable import XCFleetModel
@testable import XCFleetCore
import XCFleetTestSupport

/// GitHub shows 10 error annotations per step: the most useful come first, tests failing at one
/// line share one annotation, and a notice counts the rest. Locations are repository paths only.
final class AnnotationLimitsTests: XCTestCase {
    private func loc(_ path: String, _ line: Int, column: Int? = nil, kind: SourceLocation.Kind = .repository) -> FailureDetail {
        let l = SourceLocation(kind: kind, hostFile: "/tmp/j/" + path, hostLine: line, column: column, path: kind == .generated ? nil : path,
                               line: line, generated: kind == .generated ? "XCFleetSettings.swift" : nil)
        return FailureDetail(file: path, line: line, message: "failed at \(line)", location: l)
    }

    private func report(_ tests: [TestResult], buildErrors: [FailureDetail] = []) -> RunReport {
        let spec = SuiteSpec(name: "cache-gate", template: "cache-contract")
        var a = SampleReports.attempt(1, host: "mac-a", start: 0, tests: tests, phases: [])
        a.buildErrors = buildErrors
        let job = JobReport(planned: JobPlanned(jobID: "cache-gate", suite: "cache-gate", kind: .gate, expectedTests: tests.map { "\($0.id.className)/\($0.id.name)" }),
                            attempts: [a], finalState: .failed, reasons: ["tests failed"])
        return SampleReports.report("r", suites: [SuiteReport(spec: spec, status: .red, reasons: [], jobs: [job])], hosts: ["mac-a"])
    }

    func testOneBrokenRuleNeverFloodsTheStep() throws {
        // 40 tests fail at one shared helper line, 14 more each at its own line, one build error.
        var tests: [TestResult] = []
        for i in 0..<40 { tests.append(TestResult(id: TestIdentifier(suite: "T.Shared", name: "test\(i)"), status: .failed, failures: [loc("Templates/cache-contract/ContractSupport.swift", 50)])) }
        for i in 0..<14 { tests.append(TestResult(id: TestIdentifier(suite: "T.Own", name: "test\(i)"), status: .failed, failures: [loc("Templates/cache-contract/MemoryKeyTests.swift", 100 + i, column: 9)])) }
        let lines = GitHubAnnotations.lines(report(tests, buildErrors: [loc("Sources/CacheContract/MemoryKey.swift", 3, column: 5)]))
        let errors = lines.filter { $0.hasPrefix("::error ") }
        XCTAssertEqual(errors.count, 10, lines.joined(separator: "\n"))
        XCTAssertTrue(errors[0].hasPrefix("::error file=Sources/CacheContract/MemoryKey.swift,line=3,col=5,title=cache-gate @ mac-a%3A build error::"), errors[0])
        XCTAssertTrue(errors[1].contains("file=Templates/cache-contract/ContractSupport.swift,line=50,title=cache-gate @ mac-a%3A 40 tests failed here"), errors[1])
        XCTAssertTrue(errors[2].contains("file=Templates/cache-contract/MemoryKeyTests.swift,line=100,col=9,"), errors[2])
        XCTAssertEqual(lines.last, "::notice title=xcfleet%3A more in the report::6 more errors not annotated here (GitHub shows 10 per step): see summary.md and report.html of run r")
        XCTAssertEqual(lines.count, 11)
    }

    func testFewFailuresGetNoNoticeAndNonRepositoryLocationsGoIntoTheMessage() {
        let tests = [
            TestResult(id: TestIdentifier(suite: "T.A", name: "testGenerated"), status: .failed, failures: [loc("x", 3, kind: .generated)]),
            TestResult(id: TestIdentifier(suite: "T.A", name: "testRepo"), status: .failed, failures: [loc("Templates/cache-contract/A.swift", 4), loc("Templates/cache-contract/A.swift", 5)]),
        ]
        let lines = GitHubAnnotations.lines(report(tests))
        XCTAssertEqual(lines, [
            "::error title=cache-gate @ mac-a%3A T.A/testGenerated::at generated: XCFleetSettings.swift:3: failed at 3",
            "::error file=Templates/cache-contract/A.swift,line=4,title=cache-gate @ mac-a%3A T.A/testRepo::failed at 4 (and 1 more failure of this test)",
        ])
    }
}
