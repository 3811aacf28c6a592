import Foundation
import SSHClient
import XCTest
@testable import XCFleetKit
import XCFleetTestSupport

/// Text and links a report did not write itself: bidi controls and line separators from test
/// names, messages, hosts, quarantine entries and the history are neutralised by every renderer;
/// links are http/https only wherever they are rendered; report.html forbids scripts (CSP).
final class ReportInputHardeningTests: XCTestCase {
    /// Every scalar that must never reach a report raw.
    static let invisible: [Unicode.Scalar] = [
        "\u{202A}", "\u{202B}", "\u{202C}", "\u{202D}", "\u{202E}", "\u{2066}", "\u{2067}", "\u{2068}", "\u{2069}",
        "\u{200E}", "\u{200F}", "\u{061C}", "\u{2028}", "\u{2029}", "\u{0085}",
    ]
    /// One of each, between visible words.
    static let evil = "cfg" + invisible.map { String($0) + "x" }.joined() + "exe"

    func assertClean(_ text: String, _ what: String, file: StaticString = #filePath, line: UInt = #line) {
        let found = text.unicodeScalars.filter { Self.invisible.contains($0) }
        XCTAssertTrue(found.isEmpty, "\(what) carries \(Set(found.map { "U+" + String($0.value, radix: 16, uppercase: true) }).sorted())", file: file, line: line)
    }

    /// A red run whose test name, failure message, skip reason, host, notes, quarantine entry
    /// (reason, owner, test) and history (known flaky test, metric name) all carry `evil`.
    static func poisoned() -> RunReport {
        let s = SampleReports.spec("cache-gate")
        let a = SampleReports.attempt(1, host: "mac-\(evil)", start: 0, tests: [
            TestResult(id: TestIdentifier(suite: "T.K\(evil)", name: "test_\(evil)"), status: .failed, seconds: 0.5,
                       failures: [FailureDetail(file: "Tests/\(evil).swift", line: 7, message: "expected \(evil)")]),
            SampleReports.test("T.K/testSkip", .skipped, 0, skip: "skipped: \(evil)"),
        ], termination: .exited(1), problems: ["1 test failed \(evil)"])
        let j = SampleReports.job("cache-gate", suite: s, expected: [], attempts: [a], state: .failed, reasons: ["1 test failed: \(evil)"])
        var report = SampleReports.report("run-1", suites: [SuiteReport(spec: s, status: .red, reasons: ["red \(evil)"], jobs: [j])],
                                          hosts: ["mac-\(evil)"], setAside: ["mac-\(evil)": "lost \(evil)"], notes: ["note \(evil)"])
        let entry = QuarantineEntry(suite: "cache-gate", test: "K\(evil)/test_\(evil)", reason: "races \(evil)", owner: "ana\(evil)", expires: "2026-12-31")
        report.quarantine = QuarantineReport(tests: [.init(entry: entry, outcome: .failed, executions: 1, failed: 1, passed: 0, firstFailure: "boom \(evil)")])
        report.history = HistoryContextTests.context(for: report, evil: "metric \(evil)")
        return report
    }

    func testTheSharedRuleNeutralisesBidiControlsAndLineSeparators() {
        for u in Self.invisible {
            XCTAssertNotNil(TerminalText.layoutReplacement(u), "U+\(String(u.value, radix: 16))")
        }
        XCTAssertEqual(TerminalText.neutralizeLayout("a\u{202E}b\u{2028}c\u{0085}d"), "a\u{FFFD}b c d")
        XCTAssertEqual(TerminalText.neutralizeLayout("plain ✔ 漢字 e\u{301}"), "plain ✔ 漢字 e\u{301}")
        XCTAssertEqual(TerminalText.sanitize("x\u{202E}y\u{2066}z"), "x\u{FFFD}y\u{FFFD}z")
        assertClean(TerminalText.sanitize(Self.evil), "terminal")
    }

    func testHTMLReportNeutralisesEveryPoisonedString() {
        let html = HTMLReportRenderer().html(Self.poisoned())
        assertClean(html, "report.html")
        XCTAssertTrue(html.contains("races cfg\u{FFFD}x"), "quarantine reason not shown")
        XCTAssertTrue(html.contains("ana cfg") || html.contains("anacfg\u{FFFD}"), "owner not shown")
    }

    func testMarkdownSummaryNeutralisesEveryPoisonedString() {
        let md = MarkdownSummaryRenderer().markdown(Self.poisoned())
        assertClean(md, "summary.md")
        XCTAssertTrue(md.contains("races cfg\u{FFFD}x"), md)
    }

    func testJUnitNeutralisesEveryPoisonedString() {
        let xml = JUnitReportRenderer().xml(Self.poisoned())
        assertClean(xml, "junit.xml")
        XCTAssertTrue(xml.contains("expected cfg\u{FFFD}x"), xml)
    }

    func testComparisonAndAnnotationsNeutraliseEveryPoisonedString() {
        var base = Self.poisoned()
        base.runID = "run-0"
        base.suites[0].jobs[0].attempts[0].tests[0].status = .passed
        base.suites[0].jobs[0].attempts[0].tests[0].failures = []
        let c = RunComparison.compare(base: base, head: Self.poisoned())
        assertClean(RunComparisonRenderer.markdown(c), "compare.md")
        assertClean(RunComparisonRenderer.htmlPage(c), "compare.html")
        assertClean(HTMLReportRenderer(comparison: c).html(Self.poisoned()), "report.html with a comparison")
        assertClean(GitHubAnnotations.lines(Self.poisoned()).joined(separator: "\n"), "annotations")
    }

    // MARK: Links and the Content-Security-Policy

    func testOnlyPlainWebURLsAreLinks() {
        XCTAssertEqual(ForgeLink.webURL("https://github.com/a/b/blob/0123abc/x.swift#L3"), "https://github.com/a/b/blob/0123abc/x.swift#L3")
        XCTAssertEqual(ForgeLink.webURL("HTTP://ghe.example:8080/a"), "HTTP://ghe.example:8080/a")
        for bad in ["javascript:alert(1)//", "JavaScript:alert(1)", "data:text/html,<script>", "vbscript:x", "//evil.example/x",
                    "https:///x", "https://\"onmouseover=x", "https://a b", "https://a/\u{202E}b", "https://a/\nb", "file:///etc/passwd",
                    " https://a", "https://a<b", "https://a\\b", "https://é.example"] {
            XCTAssertNil(ForgeLink.webURL(bad), bad)
        }
        let tampered = ForgeLink(server: "javascript:alert(1)//", repository: "acme/app", sha: "0123abcd")
        XCTAssertFalse(tampered.isPlausible)
        XCTAssertNil(tampered.url(path: "Templates/x.swift", line: 1))
        XCTAssertNil(ForgeLink(server: "https://github.com", repository: "../x/y", sha: "0123abcd").url(path: "a.swift", line: 1))
        XCTAssertNil(ForgeLink(server: "https://github.com", repository: "a/b", sha: "not-hex!").url(path: "a.swift", line: 1))
        XCTAssertNotNil(ForgeLink(server: "https://github.com", repository: "a/b", sha: "0123abcd").url(path: "a.swift", line: 1))
    }

    func testReportHTMLCarriesAPolicyThatAllowsOnlyItsOwnStyle() throws {
        for html in [HTMLReportRenderer().html(SampleReports.full), HTMLReportRenderer().html(Self.poisoned()),
                     RunComparisonRenderer.htmlPage(RunComparison.compare(base: SampleReports.green, head: SampleReports.red))] {
            let meta = try XCTUnwrap(html.range(of: #"<meta http-equiv="Content-Security-Policy" content="[^"]*">"#, options: .regularExpression))
            let policy = String(html[meta])
            XCTAssertTrue(policy.contains("default-src 'none'"), policy)
            XCTAssertFalse(policy.contains("script-src"), "no script source may be allowed: \(policy)")
            XCTAssertFalse(policy.contains("unsafe-eval"), policy)
            // The hash names exactly the page's one <style> element.
            let open = try XCTUnwrap(html.range(of: "<style>")), close = try XCTUnwrap(html.range(of: "</style>"))
            XCTAssertLessThan(meta.upperBound, open.lowerBound, "the policy must come before the style")
            let style = String(html[open.upperBound..<close.lowerBound])
            let hash = Data(SHA256.hash(Array(style.utf8))).base64EncodedString()
            XCTAssertTrue(policy.contains("style-src-elem 'sha256-\(hash)'"), policy)
            XCTAssertEqual(html.components(separatedBy: "<style").count, 2, "one style element")
            XCTAssertFalse(html.contains("<script"), "the page carries no script")
            XCTAssertFalse(html.contains("javascript:"))
        }
    }

    /// Headless Chromium: a script put into the page (as if an escape had failed) does not run,
    /// while the same page without the policy runs it; the page looks the same with and without
    /// the policy (its style is allowed), and different with a wrong hash (so the check can fail).
    func testChromiumRunsNoInjectedScriptAndStillAppliesTheStyle() throws {
        guard let chromium = ReportingTestSupport.which("chromium") ?? ReportingTestSupport.which("chromium-browser") else {
            if ProcessInfo.processInfo.environment["CI"] != nil { XCTFail("chromium is required in CI: apt-get install -y chromium"); return }
            throw XCTSkip("chromium not found (apt-get install -y chromium); set CI to make this a failure")
        }
        let dir = try ReportingTestSupport.tempDir("csp")
        let html = HTMLReportRenderer().html(SampleReports.full)
        let metaLine = try XCTUnwrap(html.split(separator: "\n").first { $0.contains("Content-Security-Policy") })
        let injected = html.replacingOccurrences(of: "</body>", with: "<script>document.body.setAttribute('data-pwned','yes')</script></body>")
        let pages: [String: String] = [
            "csp.html": html, "plain.html": html.replacingOccurrences(of: metaLine + "\n", with: ""),
            "wrong-hash.html": html.replacingOccurrences(of: "style-src-elem 'sha256-", with: "style-src-elem 'sha256-AAAA"),
            "injected.html": injected, "injected-plain.html": injected.replacingOccurrences(of: metaLine + "\n", with: ""),
        ]
        for (name, text) in pages { try Data(text.utf8).write(to: dir.appendingPathComponent(name)) }
        let common = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
                      "--user-data-dir=\(dir.appendingPathComponent("profile").path)"]
        func dom(_ name: String) throws -> String {
            let r = try ReportingTestSupport.run(chromium, common + ["--dump-dom", dir.appendingPathComponent(name).absoluteString])
            XCTAssertEqual(r.status, 0, r.stderr)
            return r.stdout
        }
        func shot(_ name: String) throws -> Data {
            let png = dir.appendingPathComponent(name + ".png")
            // Every compositor stage before the shot, after the page settled: without these a loaded
            // machine sometimes shoots a page half painted.
            let r = try ReportingTestSupport.run(chromium, common + ["--screenshot=\(png.path)", "--window-size=1280,1600",
                                                                     "--virtual-time-budget=3000", "--run-all-compositor-stages-before-draw",
                                                                     dir.appendingPathComponent(name).absoluteString])
            XCTAssertEqual(r.status, 0, r.stderr)
            return try Data(contentsOf: png)
        }
        XCTAssertTrue(try dom("injected-plain.html").contains("data-pwned=\"yes\""), "control: without the policy the script runs")
        XCTAssertFalse(try dom("injected.html").contains("data-pwned=\"yes\""), "an injected script ran despite the policy")
        // Up to three shots of each: one equal pair shows the style applies under the policy (a
        // half-drawn shot on a loaded machine is not a blocked style); a wrong hash differs from all.
        var styled: [Data] = []
        var plain: [Data] = []
        for _ in 0..<3 where Set(styled).isDisjoint(with: plain) {
            styled.append(try shot("csp.html"))
            plain.append(try shot("plain.html"))
        }
        XCTAssertFalse(Set(styled).isDisjoint(with: plain), "the policy blocked the page's own style")
        let wrong = try shot("wrong-hash.html")
        XCTAssertFalse(styled.contains(wrong), "control: a wrong hash must block the style")
    }
}
