import XCTest
@testable import XCFleetBasics
@testable import XCFleetModel
@testable import XCFleetCore
import XCFleetTestSupport

/// summary.md goes into pull-request comments: text from tests must not ping anyone or become a link.
final class MarkdownNeutralizingTests: XCTestCase {
    private let zwsp = "\u{200B}"

    func testMentionsURLsAndIssueReferencesAreBrokenInvisibly() {
        let md = ReportText.markdown("ping @octocat and @org/team, mail ops@example.com, see https://evil.example/x?a=1, WWW.evil.com, http://x and #123")
        XCTAssertFalse(md.range(of: #"@[A-Za-z0-9]"#, options: .regularExpression) != nil, md)
        XCTAssertTrue(md.contains("@\(zwsp)octocat"), md)
        XCTAssertTrue(md.contains("@\(zwsp)org/team"), md)
        XCTAssertFalse(md.contains("://"), md)
        XCTAssertTrue(md.contains("https:\(zwsp)//evil.example/x?a=1"), md)
        XCTAssertFalse(md.lowercased().contains("www."), md)
        XCTAssertTrue(md.contains("WWW\(zwsp).evil.com"), md)
        XCTAssertTrue(md.contains("#\(zwsp)123"), md)
        // Removing the invisible breaks gives back the text (escapes aside): it reads the same.
        XCTAssertEqual(ReportText.markdown("a @b c").replacingOccurrences(of: zwsp, with: ""), "a @b c")
        // Plain text is left alone.
        XCTAssertEqual(ReportText.markdown("www is fine, so is a # 1, job#0 and a:b//c"), "www is fine, so is a # 1, job#0 and a:b//c")
    }

    func testSummaryOfAFailingTestNeutralizesItsMessage() {
        var report = SampleReports.red
        let message = "assigned to @security-team, details at https://tracker.example/issue/9 or www.example.org"
        report.suites[0].jobs[0].attempts[0].tests[0].failures = [FailureDetail(file: "K.swift", line: 1, message: message)]
        report.suites[0].jobs[0].attempts[0].tests[0].status = .failed
        let md = MarkdownSummaryRenderer().markdown(report)
        XCTAssertTrue(md.contains("@\(zwsp)security-team"), md)
        XCTAssertFalse(md.contains("@security-team"), md)
        XCTAssertFalse(md.contains("https://"), md)
        XCTAssertFalse(md.contains("www.example.org"), md)
    }
}
