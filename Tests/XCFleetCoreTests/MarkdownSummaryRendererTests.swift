import XCTest
@testable import XCFleetBasics
@testable import XCFleetModel
@testable import XCFleetCore
import XCFleetTestSupport

final class MarkdownSummaryRendererTests: XCTestCase {
    func testGreenVerdictAndCounts() {
        let md = MarkdownSummaryRenderer().markdown(SampleReports.green)
        XCTAssertTrue(md.hasPrefix("## ✅ xcfleet GREEN: all gates green\n"), md)
        XCTAssertTrue(md.contains("| cache-contract | gate | 🟢 green | 4 | 0 | 0 | 0 | 0 | 0 | 0 | 0 | 1 |"), md)
        XCTAssertFalse(md.contains("### Failures"))
    }

    func testRedListsFailuresWithLocation() {
        let md = MarkdownSummaryRenderer().markdown(SampleReports.red)
        XCTAssertTrue(md.hasPrefix("## ❌ xcfleet RED: "))
        XCTAssertTrue(md.contains("Tests/CacheContractTests/CacheStoreTests.swift:42 — XCTAssertEqual failed"), md)
        XCTAssertTrue(md.contains("1 test not run because of this crash"), md)
        XCTAssertTrue(md.contains("crash: Fatal error"), md)
        XCTAssertTrue(md.contains("### Infrastructure"))
        XCTAssertTrue(md.contains("attempt 1 on mac-c: connection lost during push"), md)
    }

    func testFailureListIsCapped() {
        let md = MarkdownSummaryRenderer(maxFailures: 2).markdown(SampleReports.full)
        XCTAssertTrue(md.contains("- … and "), md)
    }

    func testProbesTablePerHost() {
        let md = MarkdownSummaryRenderer().markdown(SampleReports.probe)
        XCTAssertTrue(md.contains("| object\\_bytes | mac-a | mac-b |"), md)
        XCTAssertTrue(md.contains("| 1024 | 98.0% (97.0%–99.0%) | 92.0% (91.0%–93.0%) |"), md)
        XCTAssertTrue(md.contains("3.25 MiB (3.00 MiB–3.50 MiB)"), md)
    }

    func testEscapesHostileText() {
        let md = MarkdownSummaryRenderer().markdown(SampleReports.hostile)
        XCTAssertFalse(md.contains("<script>"))
        XCTAssertFalse(md.contains("<b>"))
        XCTAssertTrue(md.contains("test&lt;script&gt;alert(1)&lt;/script&gt;"))
        XCTAssertFalse(md.unicodeScalars.contains("\u{0}"))
        XCTAssertFalse(md.unicodeScalars.contains("\u{1B}"))
        for line in md.split(separator: "\n") where line.hasPrefix("|") {
            // A `|` from data never splits a table cell: every data pipe is escaped.
            XCTAssertFalse(line.contains("| |  |"))
        }
    }

    func testDeterministicAndMatchesGolden() throws {
        let md = MarkdownSummaryRenderer().markdown(SampleReports.full)
        XCTAssertEqual(md, MarkdownSummaryRenderer().markdown(SampleReports.full))
        try GoldenFile.assertMatches(md, "summary-full.md", what: "summary.md")
    }
}
