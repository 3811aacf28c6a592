import Foundation
import XCTest
@testable import XCFleetKit
import XCFleetTestSupport

/// The renderers' side of attachments (docs/attachments.md), on the full sample report with a
/// failing test given a screenshot, a hostile name, a path an edited `events.jsonl` could hold, and
/// files left out; and headless Chromium proving the page's policy shows the run directory's image.
final class AttachmentReportTests: XCTestCase {
    private let shot = AttachmentFile(name: "LoginTests/shot.png", path: "attachments/cache-gate/1/LoginTests/shot.png", bytes: 1536, kind: .image)

    /// The full sample with attachments on its first failing test and on that job's attempt.
    private func report() throws -> (RunReport, TestIdentifier) {
        var r = SampleReports.full
        for s in r.suites.indices {
            for j in r.suites[s].jobs.indices {
                guard var a = r.suites[s].jobs[j].attempts.last, let t = a.tests.firstIndex(where: { $0.status == .failed }) else { continue }
                var mine = shot
                mine.test = a.tests[t].id.shortDescription
                a.tests[t].attachments = [mine, AttachmentFile(name: "run.mov", path: "attachments/cache-gate/1/run.mov", bytes: 3 << 20, kind: .video)]
                a.attachments = AttachmentsCollected(
                    files: [AttachmentFile(name: "<img src=x onerror=alert(1)>.log", path: "attachments/cache-gate/1/_img_.log", bytes: 10, kind: .text),
                            AttachmentFile(name: "edited.png", path: "../../../etc/passwd", bytes: 1, kind: .image)],
                    leftOut: [AttachmentLeftOut(name: "huge.bin", bytes: 30 << 20, reason: "over the per-file cap of 20 MiB"),
                              AttachmentLeftOut(name: "<b>link</b>", reason: "a symbolic link (links are not followed)")])
                r.suites[s].jobs[j].attempts[r.suites[s].jobs[j].attempts.count - 1] = a
                return (r, a.tests[t].id)
            }
        }
        throw XCTSkip("the sample report has no failing test")
    }

    func testEveryRendererShowsTheFilesBesideTheTestAndNeverLinksAnUnsafePath() throws {
        let (r, _) = try report()
        let html = HTMLReportRenderer().html(r)
        XCTAssertTrue(html.contains("<a href=\"attachments/cache-gate/1/LoginTests/shot.png\"><img src=\"attachments/cache-gate/1/LoginTests/shot.png\""), "the image inline")
        XCTAssertTrue(html.contains("<a class=\"mono\" href=\"attachments/cache-gate/1/run.mov\">run.mov (3 MiB)</a> (video)"))
        XCTAssertTrue(html.contains("&lt;img src=x onerror=alert(1)&gt;.log (10 bytes)"))
        XCTAssertFalse(html.contains("<img src=x"))
        XCTAssertFalse(html.contains("etc/passwd\""), "a path xcfleet never writes is not a link")
        XCTAssertTrue(html.contains("<span class=\"mono\">edited.png (1 bytes)</span>"))
        XCTAssertTrue(html.contains("not fetched: huge.bin (30 MiB): over the per-file cap of 20 MiB"))
        XCTAssertTrue(html.contains("not fetched: &lt;b&gt;link&lt;/b&gt;: a symbolic link"))
        XCTAssertTrue(html.contains("default-src 'none'; img-src 'self'; style-src"), "images of the page's own origin only")

        let md = MarkdownSummaryRenderer().markdown(r)
        XCTAssertTrue(md.contains(" · attachments: [LoginTests/shot.png (1.5 KiB)](attachments/cache-gate/1/LoginTests/shot.png), [run.mov (3 MiB)](attachments/cache-gate/1/run.mov)"), md)
        XCTAssertTrue(md.contains("[&lt;img src=x onerror=alert(1)&gt;.log (10 bytes)](attachments/cache-gate/1/_img_.log), edited.png (1 bytes)"), md)
        XCTAssertFalse(md.contains("](../"))
        XCTAssertTrue(md.contains("attachments not fetched: huge.bin (30 MiB): over the per-file cap of 20 MiB; &lt;b&gt;link&lt;/b&gt;: a symbolic link"), md)

        let junit = JUnitReportRenderer().xml(r)
        XCTAssertTrue(junit.contains("<system-out>[[ATTACHMENT|attachments/cache-gate/1/LoginTests/shot.png]]\n[[ATTACHMENT|attachments/cache-gate/1/run.mov]]</system-out>"), junit)
        XCTAssertTrue(junit.contains("<system-out>[[ATTACHMENT|attachments/cache-gate/1/_img_.log]]</system-out>"))
        XCTAssertFalse(junit.contains("etc/passwd"))
        XCTAssertTrue(junit.contains("attachment not fetched: &lt;b&gt;link&lt;/b&gt;: a symbolic link (links are not followed)"))
        let file = try ReportingTestSupport.tempDir("att-junit").appendingPathComponent("junit.xml")
        try Data(junit.utf8).write(to: file)
        if let xmllint = ReportingTestSupport.which("xmllint") {
            let xsd = ReportingTestSupport.sharedDir.appendingPathComponent("fixtures/junit/junit-10.xsd")
            if FileManager.default.fileExists(atPath: xsd.path) {
                let v = try ReportingTestSupport.run(xmllint, ["--noout", "--schema", xsd.path, file.path])
                XCTAssertEqual(v.status, 0, v.stderr)
            } else {
                print("AttachmentReportTests: \(xsd.path) is absent; junit.xml not validated against the schema")
            }
        }

        // report.json carries them and reads back; a report without attachments has no such keys.
        let data = try JSONReportRenderer().render(r)
        XCTAssertEqual(try JSONReportRenderer.decode(data), r)
        XCTAssertTrue(String(decoding: data, as: UTF8.self).contains("\"kind\" : \"image\""))
        XCTAssertFalse(String(decoding: try JSONReportRenderer().render(SampleReports.full), as: UTF8.self).contains("\"attachments\""))
    }

    /// A test that failed, left a screenshot and passed on a retry: the earlier attempt's file is
    /// shown beside that attempt's failure in every renderer (the evidence of a flaky test).
    func testAFlakyTestShowsTheFilesOfTheAttemptThatFailed() throws {
        var r = SampleReports.full
        guard let s = r.suites.indices.first(where: { r.suites[$0].jobs.contains { ($0.attempts.last?.tests ?? []).contains { $0.status == .passed } } }),
              let j = r.suites[s].jobs.firstIndex(where: { ($0.attempts.last?.tests ?? []).contains { $0.status == .passed } }),
              var last = r.suites[s].jobs[j].attempts.last, let t = last.tests.firstIndex(where: { $0.status == .passed })
        else { throw XCTSkip("the sample report has no passing test") }
        var first = last
        first.number = 1
        first.host = "mac-earlier"
        first.tests[t].status = .failed
        first.tests[t].failures = [FailureDetail(file: "LoginTests.swift", line: 12, message: "timed out waiting for the button")]
        first.tests[t].attachments = [AttachmentFile(name: "button.png", path: "attachments/job/1/button.png", bytes: 2048, kind: .image,
                                                     test: first.tests[t].id.shortDescription)]
        last.number = 2
        r.suites[s].jobs[j].attempts = [first, last]

        let html = HTMLReportRenderer().html(r)
        XCTAssertTrue(html.contains("attempt 1 on mac-earlier failed:</div><div class=\"fail\">"), html)
        XCTAssertTrue(html.contains("<img src=\"attachments/job/1/button.png\""), "the earlier attempt's image inline")
        let md = MarkdownSummaryRenderer().markdown(r)
        let line = try XCTUnwrap(md.split(separator: "\n").first { $0.hasPrefix("- ") && $0.contains("failed in attempt 1 on mac-earlier") }, md)
        XCTAssertTrue(line.contains("attachments: [button.png (2 KiB)](attachments/job/1/button.png)"), String(line))
        let junit = JUnitReportRenderer().xml(r)
        XCTAssertTrue(junit.contains("[[ATTACHMENT|attachments/job/1/button.png]]"), junit)
        // Without the file, none of them mentions it (control).
        r.suites[s].jobs[j].attempts[0].tests[t].attachments = nil
        XCTAssertFalse(HTMLReportRenderer().html(r).contains("button.png"))
        XCTAssertFalse(MarkdownSummaryRenderer().markdown(r).contains("button.png"))
        XCTAssertFalse(JUnitReportRenderer().xml(r).contains("button.png"))
    }

    /// Headless Chromium: with the page's policy the run directory's image is drawn; a policy
    /// without `img-src 'self'` would block it (control), and a missing file draws the same as a blocked one.
    func testChromiumShowsTheAttachmentImageUnderThePolicy() throws {
        guard let chromium = ReportingTestSupport.which("chromium") ?? ReportingTestSupport.which("chromium-browser") else {
            if ProcessInfo.processInfo.environment["CI"] != nil { XCTFail("chromium is required in CI: apt-get install -y chromium"); return }
            throw XCTSkip("chromium not found (apt-get install -y chromium); set CI to make this a failure")
        }
        guard let python = ReportingTestSupport.which("python3") else { throw XCTSkip("python3 not found (it draws the test image)") }
        let dir = try ReportingTestSupport.tempDir("att-csp")
        let image = dir.appendingPathComponent(self.shot.path)
        try FileManager.default.createDirectory(at: image.deletingLastPathComponent(), withIntermediateDirectories: true)
        // A 200×150 solid red PNG.
        let draw = "import sys,zlib,struct\nw,h=200,150\nraw=b''.join(b'\\x00'+b'\\xff\\x00\\x00'*w for _ in range(h))\n"
            + "c=lambda t,d:struct.pack('>I',len(d))+t+d+struct.pack('>I',zlib.crc32(t+d)&0xffffffff)\n"
            + "open(sys.argv[1],'wb').write(b'\\x89PNG\\r\\n\\x1a\\n'+c(b'IHDR',struct.pack('>IIBBBBB',w,h,8,2,0,0,0))+c(b'IDAT',zlib.compress(raw))+c(b'IEND',b''))"
        XCTAssertEqual(try ReportingTestSupport.run(python, ["-c", draw, image.path]).status, 0)
        let (r, _) = try report()
        let html = HTMLReportRenderer().html(r)
        try Data(html.utf8).write(to: dir.appendingPathComponent("page.html"))
        try Data(html.replacingOccurrences(of: "img-src 'self'; ", with: "").utf8).write(to: dir.appendingPathComponent("blocked.html"))
        let other = dir.appendingPathComponent("empty")
        try FileManager.default.createDirectory(at: other, withIntermediateDirectories: true)
        try Data(html.utf8).write(to: other.appendingPathComponent("page.html"))
        let common = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
                      "--user-data-dir=\(dir.appendingPathComponent("profile").path)"]
        func shot(_ page: URL) throws -> Data {
            let png = dir.appendingPathComponent(UUID().uuidString + ".png")
            let r = try ReportingTestSupport.run(chromium, common + ["--screenshot=\(png.path)", "--window-size=1280,4000", page.absoluteString])
            XCTAssertEqual(r.status, 0, r.stderr)
            return try Data(contentsOf: png)
        }
        let shown = try shot(dir.appendingPathComponent("page.html"))
        let missing = try shot(other.appendingPathComponent("page.html"))
        let blocked = try shot(dir.appendingPathComponent("blocked.html"))
        XCTAssertNotEqual(shown, missing, "the policy blocked the run directory's own image")
        XCTAssertEqual(blocked, missing, "control: without img-src 'self' the image must not load")
    }
}
