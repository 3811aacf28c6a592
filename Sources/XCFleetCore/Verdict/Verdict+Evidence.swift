import Foundation
import XCFleetModel

/// The cross-check of what the runner said about itself against what xcfleet parsed
/// (docs/verdict.md, "Not proven"). Every string here is a reason a gate is red; the words are
/// the ones docs/verdict.md lists.
extension Verdict {
    /// Reasons from an attempt's `RunnerEvidence`; empty when the runner's word and the parsed
    /// results agree.
    /// `quarantineOnly`: every failure in the attempt is a quarantined test's (`quarantineForgives`),
    /// so xcodebuild's `** TEST FAILED **` is about them and is not a reason.
    public static func evidenceProblems(_ attempt: AttemptReport, quarantineOnly: Bool = false) -> [String] {
        guard let e = attempt.evidence else { return [] }
        var out: [String] = []
        if let claim = e.xctest, let why = xctestMismatch(claim, e.sawXCTest, slack: e.failedWithoutEnd) {
            out.append(why)
        }
        if let claim = e.swiftTesting, let why = swiftTestingMismatch(claim, e.sawSwiftTesting) {
            out.append(why)
        }
        if !e.failureStatements.isEmpty && !quarantineOnly {
            out.append("xcodebuild reports failure: " + e.failureStatements.prefix(3).joined(separator: "; "))
        }
        if let listed = e.failingTests {
            // A test that failed in one of its executions (then passed: flaky) was seen failing.
            let failedKeys = Set(attempt.tests.filter { $0.status == .failed || ($0.failedExecutions ?? 0) > 0 }.map { testKey($0.id) })
            let missing = listed.filter { !failedKeys.contains(testKey($0)) }
            if !missing.isEmpty {
                out.append("not proven: xcodebuild lists \(missing.count) failing test\(missing.count == 1 ? "" : "s") xcfleet did not see fail: \(names(missing))")
            }
        }
        if !e.unreadable.isEmpty {
            out.append("unreadable result \(e.unreadable[0])\(e.unreadable.count > 1 ? " (and \(e.unreadable.count - 1) more)" : "")")
        }
        if !e.unfinished.isEmpty {
            out.append("\(e.unfinished.count) test\(e.unfinished.count == 1 ? "" : "s") started and never finished: \(names(e.unfinished))")
        }
        for d in e.disagreements.prefix(5) {
            out.append("the output and the result bundle disagree: \(d)")
        }
        if e.disagreements.count > 5 {
            out.append("the output and the result bundle disagree on \(e.disagreements.count - 5) more tests")
        }
        return out
    }

    /// `X/test failed, then passed within attempt N`.
    package static func flakyWithinAttempt(_ keys: [String], attempt: Int) -> String {
        "flaky: \(keys.prefix(3).joined(separator: ", "))\(keys.count > 3 ? ", …" : "") failed, then passed within attempt \(attempt)"
    }

    /// XCTest's `Executed N tests, with F failures` against the executions parsed. `slack` tests
    /// failed without an end line: the runner may or may not have counted them.
    package static func xctestMismatch(_ claim: RunnerCount, _ saw: ObservedCount, slack: Int) -> String? {
        let seen = saw.executions
        let countsDiffer = claim.overall
            ? (claim.tests < seen || claim.tests > seen + slack)
            : claim.tests > seen + slack
        let failuresUnseen = claim.failures > 0 && saw.failed + slack == 0
        guard countsDiffer || failuresUnseen else { return nil }
        let skipped = claim.skipped > 0 ? ", \(claim.skipped) skipped," : ""
        return "not proven: the runner reports \(claim.tests) test\(claim.tests == 1 ? "" : "s")\(skipped) with \(claim.failures) failure\(claim.failures == 1 ? "" : "s"); xcfleet saw \(seenText(saw, slack: slack))"
    }

    /// Swift Testing's `Test run with N tests … passed|failed` against the results parsed. N counts
    /// tests, not executions, and Swift Testing lines carry no suite, so N must lie between the
    /// distinct names seen and the executions seen.
    package static func swiftTestingMismatch(_ claim: RunnerCount, _ saw: ObservedCount) -> String? {
        let countsDiffer = claim.tests > saw.executions || claim.tests < saw.distinct
        let failureUnseen = claim.failed && saw.failed == 0
        guard countsDiffer || failureUnseen else { return nil }
        return "not proven: the runner reports \(claim.tests) Swift Testing test\(claim.tests == 1 ? "" : "s"), \(claim.failed ? "failed" : "passed"); xcfleet saw \(seenText(saw, slack: 0))"
    }

    private static func seenText(_ saw: ObservedCount, slack: Int) -> String {
        var s = "\(saw.passed) passed, \(saw.failed + slack) failed"
        if saw.skipped > 0 { s += ", \(saw.skipped) skipped" }
        return s
    }

    /// `Class/test` without module prefix, `/` path or `()`: the same test in every printed form.
    public static func testKey(_ id: TestIdentifier) -> String { id.testKey }

    private static func names(_ ids: [TestIdentifier]) -> String {
        ids.prefix(3).map(\.shortDescription).joined(separator: ", ") + (ids.count > 3 ? ", …" : "")
    }
}
