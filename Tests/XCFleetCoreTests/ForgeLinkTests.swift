import XCTest
@testable import XCFleetBasics
@testable import XCFleetModel
@testable import XCFleetCore
import XCFleetTestSupport

/// report.html links a repository location to the file at the run's commit on the forge, only
/// from plausible GitHub Actions variables, with every part escaped.
final class ForgeLinkTests: XCTestCase {
    let sha = "0123456789abcdef0123456789abcdef01234567"

    func testLinksOnlyFromPlausibleVariables() {
        let env = ["GITHUB_SERVER_URL": "https://github.com/", "GITHUB_REPOSITORY": "acme/app", "GITHUB_SHA": sha]
        let forge = ForgeLink.fromEnvironment(env)
        XCTAssertEqual(forge, ForgeLink(server: "https://github.com", repository: "acme/app", sha: sha))
        XCTAssertEqual(forge?.url(path: "Templates/cache-contract/My Tests#1.swift", line: 7),
                       "https://github.com/acme/app/blob/\(sha)/Templates/cache-contract/My%20Tests%231.swift#L7")
        XCTAssertNil(forge?.url(path: "../etc/passwd", line: 1))
        XCTAssertNil(forge?.url(path: "/etc/passwd", line: 1))
        for (key, bad) in [("GITHUB_SERVER_URL", "javascript:alert(1)"), ("GITHUB_SERVER_URL", "https://x\"onmouseover=\"a"),
                           ("GITHUB_REPOSITORY", "acme/app/../x"), ("GITHUB_REPOSITORY", "acme"), ("GITHUB_SHA", "main\"><script>")] {
            var e = env
            e[key] = bad
            XCTAssertNil(ForgeLink.fromEnvironment(e), "\(key)=\(bad)")
        }
        XCTAssertNil(ForgeLink.fromEnvironment([:]))
    }

    func testReportHTMLLinksRepositoryLocationsEscaped() throws {
        let loc = SourceLocation(kind: .repository, hostFile: "/tmp/j/Tests/T/A.swift", hostLine: 3, path: "Templates/cache-contract/A&B.swift", line: 3)
        let generated = SourceLocation(kind: .generated, hostFile: "/tmp/j/Tests/T/XCFleetSettings.swift", hostLine: 2, generated: "XCFleetSettings.swift")
        let tests = [
            TestResult(id: TestIdentifier(suite: "T.A", name: "testA"), status: .failed,
                       failures: [FailureDetail(file: "Templates/cache-contract/A&B.swift", line: 3, message: "m", location: loc)]),
            TestResult(id: TestIdentifier(suite: "T.A", name: "testB"), status: .failed,
                       failures: [FailureDetail(file: generated.hostFile, line: 2, message: "g", location: generated)]),
        ]
        let spec = SuiteSpec(name: "cache-gate", template: "cache-contract")
        let job = JobReport(planned: JobPlanned(jobID: "j", suite: "cache-gate", kind: .gate, expectedTests: []),
                            attempts: [SampleReports.attempt(1, host: "mac-a", start: 0, tests: tests, phases: [])], finalState: .failed, reasons: [])
        var report = SampleReports.report("r", suites: [SuiteReport(spec: spec, status: .red, reasons: [], jobs: [job])], hosts: ["mac-a"])
        report.forge = ForgeLink(server: "https://github.com", repository: "acme/app", sha: sha)
        let html = HTMLReportRenderer().html(report)
        XCTAssertTrue(html.contains("<a class=\"loc\" href=\"https://github.com/acme/app/blob/\(sha)/Templates/cache-contract/A%26B.swift#L3\">Templates/cache-contract/A&amp;B.swift:3</a>"), html)
        XCTAssertTrue(html.contains("<span class=\"loc\">generated: XCFleetSettings.swift:2</span>"))
        XCTAssertFalse(html.contains("/tmp/j/"))
        report.forge = nil
        XCTAssertFalse(HTMLReportRenderer().html(report).contains("github.com"))
    }
}
