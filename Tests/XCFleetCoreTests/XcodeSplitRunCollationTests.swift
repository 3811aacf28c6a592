import Foundation
import XCTest
@testable import XCFleetCore
import XCFleetModel

/// A selection too long for one xcodebuild run runs in parts (`XcodeProjectCommands.selectionParts`):
/// one attempt's output then holds several runs, each closing its own `Selected tests` with its own
/// total and `** TEST SUCCEEDED **`. The collator adds the totals up, as for SwiftPM's XCTest parts,
/// so the runner's word and the parsed results agree.
final class XcodeSplitRunCollationTests: XCTestCase {
    private func run(_ tests: [String], failing: String? = nil) -> String {
        var out = "Test Suite 'Selected tests' started at 2026-12-02 12:00:00.000\nTest Suite 'AppTests.xctest' started at 2026-12-02 12:00:00.001\n"
        out += "Test Suite 'CacheTests' started at 2026-12-02 12:00:00.001\n"
        for t in tests {
            out += "Test Case '-[AppTests.CacheTests \(t)]' started.\n"
            if t == failing {
                out += "/Users/ci/job/Tests/CacheTests.swift:12: error: -[AppTests.CacheTests \(t)] : XCTAssertEqual failed: (\"1\") is not equal to (\"2\")\n"
                out += "Test Case '-[AppTests.CacheTests \(t)]' failed (0.002 seconds).\n"
            } else {
                out += "Test Case '-[AppTests.CacheTests \(t)]' passed (0.001 seconds).\n"
            }
        }
        let failures = failing == nil ? 0 : 1
        let executed = "\t Executed \(tests.count) test\(tests.count == 1 ? "" : "s"), with \(failures) failure\(failures == 1 ? "" : "s") (0 unexpected) in 0.004 (0.005) seconds\n"
        let verdict = failures == 0 ? "passed" : "failed"
        out += "Test Suite 'CacheTests' \(verdict) at 2026-12-02 12:00:00.005.\n" + executed
        out += "Test Suite 'AppTests.xctest' \(verdict) at 2026-12-02 12:00:00.005.\n" + executed
        out += "Test Suite 'Selected tests' \(verdict) at 2026-12-02 12:00:00.006.\n" + executed
        out += failures == 0 ? "\n** TEST SUCCEEDED **\n\n" : "\nFailing tests:\n\tCacheTests.\(failing!)()\n\n** TEST FAILED **\n\n"
        return out
    }

    private func report(_ output: String) -> AttemptReport {
        var parser = OutputParser()
        let events = parser.consume(Array(output.utf8)) + parser.finish()
        return Collator.attemptReport(events: events, ended: AttemptEnded(termination: .exited(0)), host: "mac-1", slot: 0, number: 1)
    }

    func testTheRunsOfASplitSelectionAddUp() {
        let r = report(run(["testA", "testB"]) + run(["testC"]))
        XCTAssertEqual(r.tests.map(\.id.name).sorted(), ["testA", "testB", "testC"])
        XCTAssertEqual(r.evidence?.xctest, RunnerCount(tests: 3, failures: 0, failed: false, overall: true), "both runs' totals, added")
        XCTAssertEqual(Verdict.evidenceProblems(r), [])
    }

    func testAFailureInOneRunIsTheAttemptsFailure() {
        let r = report(run(["testA", "testB"]) + run(["testC"], failing: "testC"))
        XCTAssertEqual(r.tests.first { $0.id.name == "testC" }?.status, .failed)
        XCTAssertEqual(r.evidence?.xctest?.tests, 3)
        XCTAssertEqual(r.evidence?.xctest?.failures, 1)
        XCTAssertTrue(Verdict.evidenceProblems(r).contains { $0.hasPrefix("xcodebuild reports failure") }, "\(Verdict.evidenceProblems(r))")
        XCTAssertFalse(Verdict.evidenceProblems(r).contains { $0.hasPrefix("not proven") }, "\(Verdict.evidenceProblems(r))")
    }
}
