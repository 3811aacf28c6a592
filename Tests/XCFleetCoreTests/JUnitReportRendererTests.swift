import XCTest
@testable import XCFleetBasics
@testable import XCFleetModel
@testable import XCFleetCore
import XCFleetTestSupport

final class JUnitReportRendererTests: XCTestCase {
    private func write(_ report: RunReport) throws -> URL {
        let dir = try ReportingTestSupport.tempDir("junit")
        let url = dir.appendingPathComponent("junit.xml")
        try JUnitReportRenderer().render(report).write(to: url)
        return url
    }

    /// Same report → same bytes, also across processes (the golden file pins it).
    func testDeterministicAndMatchesGolden() throws {
        let a = try JUnitReportRenderer().render(SampleReports.full)
        let b = try JUnitReportRenderer().render(SampleReports.full)
        XCTAssertEqual(a, b)
        try GoldenFile.assertMatches(String(decoding: a, as: UTF8.self), "junit-full.xml", what: "junit.xml")
    }

    func testEveryStateIsRepresented() {
        let xml = JUnitReportRenderer().xml(SampleReports.full)
        // Failure at file:line with the message as text.
        XCTAssertTrue(xml.contains("Tests/CacheContractTests/CacheStoreTests.swift:42: XCTAssertEqual failed"))
        // Expected test never reported by a red job.
        XCTAssertTrue(xml.contains("<error message=\"not run: "), xml)
        // A crash no test carries: in the suite's system-err, not an extra testcase (its tests carry the red).
        XCTAssertFalse(xml.contains("name=\"xcfleet job cache-contract#0\""))
        XCTAssertTrue(xml.contains("<system-err>job cache-contract#0: crash: Fatal error: Unexpectedly found nil"), xml)
        // Flaky rerun in surefire form, naming the earlier host.
        XCTAssertTrue(xml.contains("<flakyFailure message=\"late write was stored\" type=\"assertion\">attempt 1 on mac-a"))
        // Unschedulable combine tests as errors with the reason.
        XCTAssertTrue(xml.contains("not run: unschedulable: no host has the capabilities combine, platform:macos"))
        XCTAssertTrue(xml.contains("name=\"combine-lifetime@unscheduled\""))
        // Infra attempt retried elsewhere is noted on the host where it failed.
        XCTAssertTrue(xml.contains("<system-err>job cache-contract#1 attempt 1 on mac-c was retried: connection lost during push"))
        // Mutants: one testcase each; the survivor fails.
        XCTAssertTrue(xml.contains("type=\"mutant-survived\""))
        // Properties.
        XCTAssertTrue(xml.contains("<property name=\"toolchain\" value=\"Xcode 16.4\"/>"))
        XCTAssertTrue(xml.contains("<property name=\"destination\" value=\"platform=macOS\"/>"))
        XCTAssertTrue(xml.contains("<property name=\"cache-contract#1.attempt\" value=\"2\"/>"))
        XCTAssertTrue(xml.contains("<property name=\"cache-contract-mutants\"") == false)
        XCTAssertTrue(xml.contains("<property name=\"mutants#keyWithoutAccount.mutant\" value=\"keyWithoutAccount\"/>"))
    }

    func testEscaping() {
        let xml = JUnitReportRenderer().xml(SampleReports.hostile)
        XCTAssertFalse(xml.contains("<script>"), "raw markup from data")
        XCTAssertFalse(xml.contains("]]>"), "a CDATA end sequence from data")
        for bad: Unicode.Scalar in ["\u{0}", "\u{1}", "\u{7}", "\u{1B}", "\u{FFFE}"] {
            XCTAssertFalse(xml.unicodeScalars.contains(bad), "illegal XML character U+\(String(bad.value, radix: 16))")
        }
        XCTAssertTrue(xml.contains("test&lt;script&gt;alert(1)&lt;/script&gt;"))
        XCTAssertTrue(xml.contains("🚀"))
        XCTAssertTrue(xml.contains("&quot;]]&gt;&quot; &amp; &apos;quotes&apos;"))
    }

    func testWellFormedAndValidAgainstXSD() throws {
        guard let xmllint = ReportingTestSupport.which("xmllint") else {
            throw XCTSkip("xmllint not found: apt-get install libxml2-utils")
        }
        let xsd = ReportingTestSupport.sharedDir.appendingPathComponent("fixtures/junit/junit-10.xsd")
        for report in [SampleReports.full, SampleReports.green, SampleReports.hostile, SampleReports.unschedulable] {
            let url = try write(report)
            let wf = try ReportingTestSupport.run(xmllint, ["--noout", url.path])
            XCTAssertEqual(wf.status, 0, "not well-formed: \(wf.stderr)")
            if FileManager.default.fileExists(atPath: xsd.path) {
                let v = try ReportingTestSupport.run(xmllint, ["--noout", "--schema", xsd.path, url.path])
                XCTAssertEqual(v.status, 0, "XSD validation failed for \(report.runID): \(v.stderr)")
            }
        }
        if !FileManager.default.fileExists(atPath: xsd.path) {
            throw XCTSkip("junit-10.xsd not found at \(xsd.path): only well-formedness was checked")
        }
    }

    func testXMLLintRejectsBrokenDocument() throws {
        // The well-formedness check above can fail: a document with raw markup is rejected.
        guard let xmllint = ReportingTestSupport.which("xmllint") else { throw XCTSkip("xmllint not found: apt-get install libxml2-utils") }
        let dir = try ReportingTestSupport.tempDir("junit-bad")
        let url = dir.appendingPathComponent("bad.xml")
        try Data("<testsuites><testsuite name=\"a<b\"></testsuites>".utf8).write(to: url)
        XCTAssertNotEqual(try ReportingTestSupport.run(xmllint, ["--noout", url.path]).status, 0)
    }

    /// Reads the file back with the third-party `junitparser` and checks counts per suite.
    func testJunitparserReadsCounts() throws {
        if ProcessInfo.processInfo.environment["XCFLEET_SKIP_PY"] == "1" { throw XCTSkip("XCFLEET_SKIP_PY=1") }
        guard let python = ReportingTestSupport.which("python3") else {
            XCTFail("python3 not found; install it and `pip install junitparser` (or set XCFLEET_SKIP_PY=1)")
            return
        }
        let url = try write(SampleReports.full)
        let script = """
        import sys
        try:
            from junitparser import JUnitXml, Failure, Error, Skipped
        except ImportError:
            print("MISSING"); sys.exit(3)
        xml = JUnitXml.fromfile(sys.argv[1])
        for s in xml:
            f = e = k = 0
            for c in s:
                for r in c.result:
                    if isinstance(r, Failure): f += 1
                    elif isinstance(r, Error): e += 1
                    elif isinstance(r, Skipped): k += 1
            print(f"{s.name}|{s.tests}|{s.failures}|{s.errors}|{s.skipped}|{len(list(s))}|{f}|{e}|{k}")
        """
        let r = try ReportingTestSupport.run(python, ["-c", script, url.path])
        if r.status == 3 {
            XCTFail("junitparser is missing: pip install junitparser (or set XCFLEET_SKIP_PY=1)")
            return
        }
        XCTAssertEqual(r.status, 0, r.stderr)
        var rows: [String: [Int]] = [:]
        for line in r.stdout.split(separator: "\n") {
            let parts = line.split(separator: "|", omittingEmptySubsequences: false).map(String.init)
            guard parts.count == 9 else { continue }
            rows[parts[0]] = parts[1...].compactMap { Int($0) }
        }
        // name: tests, failures, errors, skipped (attributes), cases, failures, errors, skipped (elements)
        let expected: [String: [Int]] = [
            // 1 passed, 1 failed, 1 not run (error), + job-level crash error
            "cache-contract@mac-a": [3, 1, 1, 0, 3, 1, 1, 0],
            "cache-contract@mac-b": [2, 0, 0, 0, 2, 0, 0, 0],
            "cache-contract-retry@mac-b": [2, 0, 0, 0, 2, 0, 0, 0],
            "combine-lifetime@unscheduled": [3, 0, 3, 0, 3, 0, 3, 0],
            "cache-contract-mutants@mac-a": [1, 0, 0, 0, 1, 0, 0, 0],
            "cache-contract-mutants@mac-b": [1, 1, 0, 0, 1, 1, 0, 0],
            "pressure-probes@mac-a": [6, 0, 0, 0, 6, 0, 0, 0],
            "pressure-probes@mac-b": [6, 0, 0, 0, 6, 0, 0, 0],
            "hostile & <suite>@mac-\"q\"&<h>": [2, 1, 0, 1, 2, 1, 0, 1],
        ]
        XCTAssertEqual(rows, expected, r.stdout)
    }
}
