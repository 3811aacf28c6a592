import XCTest
@testable import XCFleetBasics
@testable import XCFleetModel
@testable import XCFleetCore
import XCFleetTestSupport

final class JSONReportRendererTests: XCTestCase {
    func testDeterministicSortedAndRoundTrips() throws {
        let r = JSONReportRenderer()
        let a = try r.render(SampleReports.full)
        XCTAssertEqual(a, try r.render(SampleReports.full))
        let text = String(decoding: a, as: UTF8.self)
        XCTAssertTrue(text.contains("\"planPath\" : \"Plans/cache-contract.json\""), "slashes unescaped, pretty printed")
        // Keys sorted: "duration" before "exitCode" before "hosts".
        let d = try XCTUnwrap(text.range(of: "\"duration\""))
        let e = try XCTUnwrap(text.range(of: "\"exitCode\""))
        XCTAssertLessThan(d.lowerBound, e.lowerBound)
        XCTAssertEqual(try JSONReportRenderer.decode(a), SampleReports.full)
    }

    /// The richest sample report, byte for byte (the summary.md and junit.xml goldens use it too).
    func testFullReportMatchesGolden() throws {
        let json = String(decoding: try JSONReportRenderer().render(SampleReports.full), as: UTF8.self)
        try GoldenFile.assertMatches(json, "report-full.json", what: "report.json")
    }

    func testNonFiniteMetricDoesNotThrow() throws {
        var report = SampleReports.probe
        report.suites[0].jobs[0].attempts[0].metrics.append(Metric(name: "odd", value: .nan, unit: "ratio"))
        let data = try JSONReportRenderer().render(report)
        XCTAssertTrue(String(decoding: data, as: UTF8.self).contains("\"nan\""))
        let back = try JSONReportRenderer.decode(data)
        XCTAssertTrue(back.suites[0].jobs[0].attempts[0].metrics.last?.value.isNaN ?? false)
    }

    func testDecodeRejectsGarbage() {
        XCTAssertThrowsError(try JSONReportRenderer.decode(Data("{\"runID\": 1}".utf8)))
    }
}
