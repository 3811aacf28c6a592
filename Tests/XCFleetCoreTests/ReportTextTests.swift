import XCTest
@testable import XCFleetBasics
@testable import XCFleetModel
@testable import XCFleetCore
import XCFleetTestSupport

final class ReportTextTests: XCTestCase {
    func testFixed() {
        XCTAssertEqual(ReportText.fixed(1.23456, 3), "1.235")
        XCTAssertEqual(ReportText.fixed(-0.0004, 3), "0.000")
        XCTAssertEqual(ReportText.fixed(-2.5, 1), "-2.5")
        XCTAssertEqual(ReportText.fixed(12, 0), "12")
        XCTAssertEqual(ReportText.fixed(.nan, 2), "-")
        XCTAssertEqual(ReportText.fixed(.infinity, 2), "-")
        XCTAssertEqual(ReportText.fixed(1e300, 2), "1e+300")
        XCTAssertEqual(ReportText.junitSeconds(-1), "0.000")
        XCTAssertEqual(ReportText.junitSeconds(nil), "0.000")
        XCTAssertEqual(ReportText.junitSeconds(2.0005), "2.001")
    }

    func testUnits() {
        XCTAssertEqual(ReportText.metric(0.875, unit: "ratio"), "87.5%")
        XCTAssertEqual(ReportText.metric(1_572_864, unit: "bytes"), "1.50 MiB")
        XCTAssertEqual(ReportText.metric(-2048, unit: "bytes"), "-2.0 KiB")
        XCTAssertEqual(ReportText.metric(3, unit: "count"), "3")
        XCTAssertEqual(ReportText.duration(125), "2 min 05 s")
        XCTAssertEqual(ReportText.duration(0.0421), "0.042 s")
    }

    func testEscaping() {
        XCTAssertEqual(ReportText.xmlText("a<b>&]]>\u{0}\u{FFFF}\t"), "a&lt;b&gt;&amp;]]&gt;\u{FFFD}\u{FFFD}\t")
        XCTAssertEqual(ReportText.xmlAttribute("\"'\n\t\r"), "&quot;&apos;&#10;&#9;&#13;")
        XCTAssertEqual(ReportText.html("<a href='x'>&\u{1}"), "&lt;a href=&#39;x&#39;&gt;&amp;\u{FFFD}")
        XCTAssertEqual(ReportText.markdown("a|b*c_d\n<x>"), "a\\|b\\*c\\_d &lt;x&gt;")
        XCTAssertEqual(ReportText.legal("ok 🚀"), "ok 🚀")
    }

    func testTicks() {
        let unit = HTMLReportRenderer.ticks(0, 1)
        XCTAssertEqual(unit.count, 6)
        XCTAssertEqual(unit.last ?? 0, 1, accuracy: 1e-9)
        XCTAssertEqual(HTMLReportRenderer.ticks(0, 6 * 1_048_576, unit: "bytes").map { $0 / 1_048_576 }, [0, 2, 4, 6])
        XCTAssertEqual(HTMLReportRenderer.ticks(5, 5), [5])
    }
}
