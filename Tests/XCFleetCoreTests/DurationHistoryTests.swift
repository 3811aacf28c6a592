import XCTest
@testable import XCFleetBasics
@testable import XCFleetModel
@testable import XCFleetCore
import XCFleetTestSupport

final class DurationHistoryTests: XCTestCase {
    private func attempt(_ number: Int, start: Double, end: Double?, lost: Bool = false, tests: [(String, String, Double?)]) -> AttemptReport {
        AttemptReport(number: number, host: "h", slot: 0, start: start, end: end, phases: [], termination: nil, infraError: nil,
                      timedOutPhase: nil,
                      tests: tests.map { TestResult(id: TestIdentifier(suite: $0.0, name: $0.1), status: .passed, seconds: $0.2) },
                      unattributedFailures: [], crashes: [], buildErrors: [], metrics: [], problems: [], lost: lost)
    }

    private func report() -> RunReport {
        let spec = SuiteSpec(name: "contract", template: "cache-contract")
        let job1 = JobReport(planned: JobPlanned(jobID: "contract#0", suite: "contract", kind: .gate, expectedTests: []),
                             attempts: [attempt(1, start: 0, end: 100, lost: true, tests: [("CacheTests", "testA", 99)]),
                                        attempt(2, start: 100, end: 130, tests: [("CacheTests", "testA", 2), ("CacheTests", "testB", 3)])],
                             finalState: .passed, reasons: [])
        let job2 = JobReport(planned: JobPlanned(jobID: "contract#1", suite: "contract", kind: .gate, repetition: 1, expectedTests: []),
                             attempts: [attempt(1, start: 0, end: 50, tests: [("CacheTests", "testA", 4), ("CacheTests", "testC", nil)])],
                             finalState: .passed, reasons: [])
        let totals = Totals(jobs: 2, jobsByState: ["passed": 2], attempts: 3)
        return RunReport(runID: "r", planName: "p", planPath: "p.json", startedAt: "2026-01-01T00:00:00Z", xcfleetVersion: "0",
                         duration: 130, interrupted: false, hosts: ["h"], hostsSetAside: [:],
                         suites: [SuiteReport(spec: spec, status: .green, reasons: [], jobs: [job1, job2])],
                         totals: totals, exitCode: 0, verdictLine: "all gates green", notes: [])
    }

    private func temporaryDirectory() throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("xcfleet-history-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: dir) }
        return dir
    }

    func testReadsTestSecondsFromAReportFileOrRunDirectory() throws {
        let dir = try temporaryDirectory()
        try JSONEncoder().encode(report()).write(to: dir.appendingPathComponent("report.json"))
        for path in [dir.path, dir.appendingPathComponent("report.json").path] {
            let history = try DurationHistory(contentsOf: path)
            XCTAssertEqual(history.expectedSeconds(suite: "contract", test: "CacheTests/testA"), 3, "mean of 2 and 4; the lost attempt is skipped")
            XCTAssertEqual(history.expectedSeconds(suite: "contract", test: "CacheTests/testB"), 3)
            XCTAssertNil(history.expectedSeconds(suite: "contract", test: "CacheTests/testC"), "no seconds recorded")
            XCTAssertEqual(history.expectedSeconds(suite: "contract"), 6)
            XCTAssertEqual(history.expectedSeconds(suite: "contract", tests: ["CacheTests/testB", "CacheTests/unknown"]), 3)
            XCTAssertNil(history.expectedSeconds(suite: "other"))
            XCTAssertEqual(history.attemptSeconds["contract"], 40, "median of 30 and 50")
            XCTAssertEqual(history.durations(suite: "contract").count, 2)
        }
    }

    func testBadInputSaysWhatToFix() throws {
        let dir = try temporaryDirectory()
        XCTAssertThrowsError(try DurationHistory(contentsOf: dir.appendingPathComponent("nope").path)) { error in
            XCTAssertEqual(error as? DurationHistoryError, .missing(path: dir.appendingPathComponent("nope").path))
        }
        XCTAssertThrowsError(try DurationHistory(contentsOf: dir.path)) { error in
            guard case .unreadable? = error as? DurationHistoryError else { return XCTFail("\(error)") }
            XCTAssertTrue(error.localizedDescription.contains("report.json"))
        }
        let bad = dir.appendingPathComponent("report.json")
        try Data("{\"runID\": 3}".utf8).write(to: bad)
        XCTAssertThrowsError(try DurationHistory(contentsOf: bad.path)) { error in
            guard case .notAReport? = error as? DurationHistoryError else { return XCTFail("\(error)") }
            XCTAssertTrue(error.localizedDescription.hasPrefix("history: \(bad.path) is not an xcfleet report.json"))
        }
        XCTAssertTrue(DurationHistory().isEmpty)
    }
}
