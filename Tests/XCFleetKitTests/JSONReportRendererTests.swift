import XCTest
@testable import XCFleetKit

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

    /// Every standard artifact renders; with XCFLEET_REPORT_DUMP=DIR they are written there to look at.
    func testBundleRendersEveryArtifact() throws {
        let files = try ReportBundle.render(SampleReports.full)
        XCTAssertEqual(Set(files.keys), ["report.json", "junit.xml", "summary.md", "report.html"])
        for (name, data) in files { XCTAssertGreaterThan(data.count, 500, name) }
        if let dir = ProcessInfo.processInfo.environment["XCFLEET_REPORT_DUMP"], !dir.isEmpty {
            try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
            for (name, data) in files { try data.write(to: URL(fileURLWithPath: dir).appendingPathComponent(name)) }
            let c = RunComparison.compare(base: SampleReports.green, head: SampleReports.full)
            try Data(RunComparisonRenderer.htmlPage(c).utf8).write(to: URL(fileURLWithPath: dir).appendingPathComponent("compare.html"))
            try Data(RunComparisonRenderer.markdown(c).utf8).write(to: URL(fileURLWithPath: dir).appendingPathComponent("compare.md"))
            try Data(GitHubAnnotations.lines(SampleReports.full).joined(separator: "\n").utf8).write(to: URL(fileURLWithPath: dir).appendingPathComponent("annotations.txt"))
        }
    }
}
