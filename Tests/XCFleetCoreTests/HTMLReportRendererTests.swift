import XCTest
@testable import XCFleetBasics
@testable import XCFleetModel
@testable import XCFleetCore
import XCFleetTestSupport

final class HTMLReportRendererTests: XCTestCase {
    func testDeterministic() {
        XCTAssertEqual(HTMLReportRenderer().html(SampleReports.full), HTMLReportRenderer().html(SampleReports.full))
    }

    /// The richest sample report, byte for byte (the summary.md and junit.xml goldens use it too).
    func testFullReportMatchesGolden() throws {
        let html = String(decoding: try HTMLReportRenderer().render(SampleReports.full), as: UTF8.self)
        try GoldenFile.assertMatches(html, "report-full.html", what: "report.html")
    }

    func testSectionsPresent() {
        let html = HTMLReportRenderer().html(SampleReports.full)
        for id in ["verdict", "gates", "probes", "timeline", "infra", "checklist"] {
            XCTAssertTrue(html.contains("id=\"\(id)\""), "section \(id) missing")
        }
        for (q, _) in HTMLReportRenderer.checklistItems {
            XCTAssertTrue(html.contains(ReportText.html(q)), q)
        }
        XCTAssertTrue(html.contains("class=\"banner red\""))
        XCTAssertTrue(html.contains("Tests/CacheContractTests/CacheStoreTests.swift:42</span>: XCTAssertEqual failed"))
        XCTAssertTrue(html.contains(">flaky</span>"))
        XCTAssertTrue(html.contains(">infra retry</span>"))
        XCTAssertTrue(html.contains("<span class=\"chip c\">C4</span>"))
        XCTAssertTrue(html.contains("<span class=\"chip k\">K1</span>"))
        // Probe chart: one polyline per host, whiskers, log axis for object sizes.
        XCTAssertTrue(html.contains("object_bytes (log scale)"))
        XCTAssertEqual(html.components(separatedBy: "<polyline").count - 1, 2)
        // Timeline legend names every phase.
        for p in Phase.allCases { XCTAssertTrue(html.contains("</i>\(p.rawValue)</span>"), p.rawValue) }
        XCTAssertTrue(HTMLReportRenderer().html(SampleReports.green).contains("class=\"banner green\""))
    }

    func testSelfContainedAndEscaped() {
        let html = HTMLReportRenderer().html(SampleReports.full)
        XCTAssertFalse(html.lowercased().contains("<script"), "no script element, and none from data")
        XCTAssertFalse(html.contains("<b>bold"))
        XCTAssertFalse(html.contains("]]>"))
        XCTAssertTrue(html.contains("test&lt;script&gt;alert(1)&lt;/script&gt;"))
        XCTAssertTrue(html.contains("&quot;]]&gt;&quot; &amp; &#39;quotes&#39;"))
        XCTAssertFalse(html.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" && $0 != "\t" && $0 != "\r" })
        for external in ["http://", "https://", "src=", "<link", "@import", "url("] {
            XCTAssertFalse(html.contains(external), "external reference \(external)")
        }
    }

    func testComparisonSection() {
        let c = RunComparison.compare(base: SampleReports.green, head: SampleReports.red)
        let html = HTMLReportRenderer(comparison: c).html(SampleReports.red)
        XCTAssertTrue(html.contains("id=\"comparison\""))
        XCTAssertTrue(html.contains("testC1/revisionChangeMisses") || html.contains("testC1_revisionChangeMisses"))
    }

    /// Renders in headless Chromium: the screenshot is non-trivial and the DOM holds the sections
    /// and the hostile test name as text (not as an element).
    func testRendersInHeadlessChromium() throws {
        guard let chromium = ReportingTestSupport.which("chromium") ?? ReportingTestSupport.which("chromium-browser") else {
            if ProcessInfo.processInfo.environment["CI"] != nil {
                XCTFail("chromium is required in CI: apt-get install -y chromium")
                return
            }
            throw XCTSkip("chromium not found (apt-get install -y chromium); set CI to make this a failure")
        }
        let dir = try ReportingTestSupport.tempDir("html")
        let page = dir.appendingPathComponent("report.html")
        try HTMLReportRenderer().render(SampleReports.full).write(to: page)
        let common = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
                      "--user-data-dir=\(dir.appendingPathComponent("profile").path)"]
        for (name, size) in [("laptop.png", "1280,2000"), ("phone.png", "390,1600")] {
            let png = dir.appendingPathComponent(name)
            let r = try ReportingTestSupport.run(chromium, common + ["--screenshot=\(png.path)", "--window-size=\(size)", page.absoluteString])
            XCTAssertEqual(r.status, 0, r.stderr)
            let data = try Data(contentsOf: png)
            XCTAssertGreaterThan(data.count, 20_000, "screenshot \(name) looks empty")
            XCTAssertEqual(Array(data.prefix(4)), [0x89, 0x50, 0x4E, 0x47], "not a PNG")
        }
        let dom = try ReportingTestSupport.run(chromium, common + ["--dump-dom", page.absoluteString])
        XCTAssertEqual(dom.status, 0, dom.stderr)
        for id in ["verdict", "gates", "probes", "timeline", "checklist"] {
            XCTAssertTrue(dom.stdout.contains("id=\"\(id)\""), "DOM lacks section \(id)")
        }
        XCTAssertTrue(dom.stdout.contains("test&lt;script&gt;alert(1)&lt;/script&gt;"), "hostile name not shown as text")
        XCTAssertFalse(dom.stdout.contains("<script>alert("), "hostile name became an element")
        XCTAssertTrue(dom.stdout.contains("<svg"), "charts missing")
    }
}
