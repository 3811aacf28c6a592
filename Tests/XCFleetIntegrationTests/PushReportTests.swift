import Foundation
import XCTest
import XCFleetCore
import XCFleetKit
import XCFleetTestSupport

/// What a push sent, from events.jsonl to report.json, report.html and summary.md, rebuilt by
/// `xcfleet report DIR`; a run recorded before push records still reports (without them).
final class PushReportTests: XCTestCase {
    private func writeRun(pushes: [PushRecord?]) throws -> URL {
        let run = try TestPaths.temporaryDirectory().appendingPathComponent("run")
        try FileManager.default.createDirectory(at: run, withIntermediateDirectories: true)
        var events: [RunEvent] = []
        func add(_ body: RunEvent.Body) { events.append(RunEvent(seq: events.count + 1, t: Double(events.count), body: body)) }
        add(.runStarted(RunStarted(runID: "r", planName: "p", planPath: "p.json", startedAt: "2026-12-01T00:00:00Z", xcfleetVersion: "0",
                                   suites: [SuiteSpec(name: "gate", template: "cache-contract")], hosts: ["mac-1"])))
        add(.jobPlanned(JobPlanned(jobID: "gate", suite: "gate", kind: .gate, expectedTests: ["KeyTests/testC1_a"])))
        for (i, push) in pushes.enumerated() {
            let ref = AttemptRef(jobID: "gate", attempt: i + 1)
            add(.attemptStarted(ref, host: "mac-1", slot: 0))
            if let push { add(.push(ref, push)) } else { add(.note("gate attempt \(i + 1): pushed 120 bytes to mac-1")) }
            let id = TestIdentifier(suite: "CacheContractTests.KeyTests", name: "testC1_a")
            add(.test(ref, event: .testStarted(id, framework: .xctest)))
            add(.test(ref, event: .testFinished(id, status: .passed, seconds: 0.01, framework: .xctest, clone: nil)))
            add(.attemptEnded(ref, AttemptEnded(termination: .exited(0))))
        }
        add(.runFinished(interrupted: false))
        let encoder = JSONEncoder()
        let lines = try events.map { String(decoding: try encoder.encode($0), as: UTF8.self) + "\n" }.joined()
        try lines.write(to: run.appendingPathComponent("events.jsonl"), atomically: true, encoding: .utf8)
        return run
    }

    private func report(_ run: URL) throws -> (json: String, html: String, summary: String) {
        let r = try runCommand(TestPaths.xcfleetBinary, ["report", run.path], cwd: TestPaths.packageRoot, environment: ["NO_COLOR": "1", "GITHUB_STEP_SUMMARY": ""])
        XCTAssertEqual(r.status, 0, r.stdout + r.stderr)
        func text(_ name: String) throws -> String { try String(contentsOf: run.appendingPathComponent(name), encoding: .utf8) }
        return (try text("report.json"), try text("report.html"), try text("summary.md"))
    }

    func testBytesAndFilesSentAreInEveryReport() throws {
        let partial = PushRecord(host: "mac-1", bytesSent: 12_345, filesSent: 5, totalFiles: 2_000, totalBytes: 8_000_000)
        let run = try writeRun(pushes: [partial, PushRecord(host: "mac-1", bytesSent: 0, filesSent: 0, totalFiles: 2_000, totalBytes: 8_000_000)])
        let (json, html, summary) = try report(run)
        XCTAssertTrue(summary.contains("<details><summary>Pushes: 2 pushes · 12.3 kB sent: 5 of 4,000 files (the hosts had the rest)</summary>"), summary)
        XCTAssertTrue(summary.contains("| gate | 1 | mac-1 | pushed 12.3 kB: 5 of 2,000 files (the host had the rest) |"), summary)
        XCTAssertTrue(summary.contains("| gate | 2 | mac-1 | pushed nothing: the host had all 2,000 files |"), summary)
        XCTAssertTrue(html.contains("<td>pushed 12.3 kB: 5 of 2,000 files (the host had the rest)</td><td class=\"num\">12345</td>"), html)
        let decoded = try JSONReportRenderer.decode(Data(json.utf8))
        XCTAssertEqual(decoded.suites.first?.jobs.first?.attempts.map(\.push), [partial, PushRecord(host: "mac-1", bytesSent: 0, filesSent: 0, totalFiles: 2_000, totalBytes: 8_000_000)])

        // Rebuilt from events.jsonl alone: the same files again.
        let again = try report(run)
        XCTAssertEqual(again.summary, summary)
        XCTAssertEqual(again.json, json)
    }

    func testARunRecordedBeforePushRecordsStillReports() throws {
        let (json, html, summary) = try report(try writeRun(pushes: [nil]))
        XCTAssertFalse(summary.contains("Pushes:"), summary)
        XCTAssertFalse(html.contains("Pushes:"))
        XCTAssertNil(try JSONReportRenderer.decode(Data(json.utf8)).suites.first?.jobs.first?.attempts.first?.push)
        XCTAssertTrue(summary.contains("pushed 120 bytes to mac-1"), "the old note is still shown")
    }

    func testSummaryWordsAndUnits() {
        func record(_ bytes: Int, _ sent: Int, _ total: Int) -> String {
            PushRecord(host: "h", bytesSent: bytes, filesSent: sent, totalFiles: total, totalBytes: 0).summary
        }
        XCTAssertEqual(record(950, 1, 1), "pushed 950 B: all 1 file")
        XCTAssertEqual(record(1_234_567, 40, 40), "pushed 1.2 MB: all 40 files")
        XCTAssertEqual(record(12_345, 5, 2_000), "pushed 12.3 kB: 5 of 2,000 files (the host had the rest)")
        XCTAssertEqual(record(0, 0, 1_234_567), "pushed nothing: the host had all 1,234,567 files")
        XCTAssertEqual(PushRecord.bytes(3_400_000_000), "3.4 GB")
        XCTAssertEqual(PushRecord.count(999), "999")
        XCTAssertEqual(PushRecord.count(1_000), "1,000")
    }
}
