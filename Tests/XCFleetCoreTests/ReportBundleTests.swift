import XCTest
@testable import XCFleetBasics
@testable import XCFleetModel
@testable import XCFleetCore
import XCFleetTestSupport

final class ReportBundleTests: XCTestCase {
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
            try Data(HTMLReportRenderer().html(SampleReports.green).utf8).write(to: URL(fileURLWithPath: dir).appendingPathComponent("green.html"))
            try Data(GitHubAnnotations.lines(SampleReports.full).joined(separator: "\n").utf8).write(to: URL(fileURLWithPath: dir).appendingPathComponent("annotations.txt"))
        }
    }

    /// Absurd values from a broken or hostile event log never trap, and the JUnit stays valid.
    func testExtremeValuesDoNotTrap() throws {
        var r = SampleReports.full
        r.duration = 1e300
        r.suites[0].jobs[0].planned.shard = Int.max
        r.suites[0].jobs[0].planned.repetition = Int.max
        r.suites[0].jobs[0].attempts[0].start = -5
        r.suites[0].jobs[0].attempts[0].end = .nan
        r.suites[0].jobs[0].attempts[0].tests[0].seconds = -.infinity
        r.suites[0].jobs[0].attempts[0].tests[1].seconds = .nan
        r.suites[0].jobs[0].attempts[0].phases.append(PhaseSpan(phase: .test, start: .infinity, end: nil))
        r.suites[4].jobs[0].attempts[0].metrics += [
            Metric(name: "hit_rate", value: .nan, unit: "ratio", labels: ["object_bytes": "1e308"]),
            Metric(name: "memory_delta", value: -.infinity, unit: "bytes", labels: ["source": "statm"]),
            Metric(name: "weird", value: 1e300, unit: "", labels: [:]),
        ]
        let files = try ReportBundle.render(r)
        XCTAssertEqual(files.count, 4)
        let junit = String(decoding: files["junit.xml"] ?? Data(), as: UTF8.self)
        XCTAssertFalse(junit.contains("time=\"-"), "negative JUnit time")
        XCTAssertFalse(junit.contains("nan"), "NaN JUnit time")
        let c = RunComparison.compare(base: r, head: SampleReports.full)
        _ = try RunComparisonRenderer.json(c)
        _ = RunComparisonRenderer.htmlPage(c)
        _ = GitHubAnnotations.lines(r)
        if let xmllint = ReportingTestSupport.which("xmllint") {
            let xsd = ReportingTestSupport.sharedDir.appendingPathComponent("fixtures/junit/junit-10.xsd")
            let dir = try ReportingTestSupport.tempDir("extreme")
            let url = dir.appendingPathComponent("junit.xml")
            try files["junit.xml"]?.write(to: url)
            var args = ["--noout", url.path]
            if FileManager.default.fileExists(atPath: xsd.path) { args = ["--noout", "--schema", xsd.path, url.path] }
            let v = try ReportingTestSupport.run(xmllint, args)
            XCTAssertEqual(v.status, 0, v.stderr)
        }
    }
}
