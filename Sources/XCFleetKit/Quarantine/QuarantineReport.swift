import Foundation

/// What the quarantined tests did in a run (report.json `quarantine`; every report's own section).
public struct QuarantineReport: Equatable, Codable, Sendable {
    public struct Test: Equatable, Codable, Sendable {
        public enum Outcome: String, Codable, Sendable {
            case passed, failed, flaky, skipped
            /// The run never reported the test (renamed, deleted, or its suite did not run).
            case notSeen = "not seen"
        }

        public var entry: QuarantineEntry
        public var outcome: Outcome
        /// Executions in the suite's jobs (all attempts, mutant jobs not counted).
        public var executions: Int
        public var failed: Int
        public var passed: Int
        /// The first failure message of the latest failed execution.
        public var firstFailure: String?
    }

    /// Entries in file order.
    public var tests: [Test]

    public var ran: Int { tests.filter { $0.outcome != .notSeen }.count }
    public var failing: Int { tests.filter { $0.outcome == .failed || $0.outcome == .flaky }.count }

    /// `quarantined: 2 tests ran, 1 failed (CacheTests/testX: ana, expires 2026-12-31), 1 not seen`.
    public var summaryLine: String {
        var s = "quarantined: \(ran) test\(ran == 1 ? "" : "s") ran, \(failing) failed"
        let failingTests = tests.filter { $0.outcome == .failed || $0.outcome == .flaky }
        if !failingTests.isEmpty {
            s += " (" + failingTests.prefix(3).map { "\($0.entry.test): \($0.entry.owner), expires \($0.entry.expires)" }.joined(separator: "; ")
            s += failingTests.count > 3 ? "; …)" : ")"
        }
        let unseen = tests.count - ran
        if unseen > 0 { s += ", \(unseen) not seen" }
        return s
    }

    /// The outcomes of `entries` in the collated suites. Pure.
    static func make(entries: [QuarantineEntry], suites: [SuiteReport]) -> QuarantineReport {
        var out: [Test] = []
        for entry in entries {
            var t = Test(entry: entry, outcome: .notSeen, executions: 0, failed: 0, passed: 0, firstFailure: nil)
            var skipped = 0
            for suite in suites where suite.spec.name == entry.suite {
                for job in suite.jobs where job.planned.mutant == nil {
                    for attempt in job.attempts {
                        for result in attempt.tests where entry.matches(result.id) {
                            t.executions += 1
                            switch result.status {
                            case .passed: t.passed += 1
                            case .failed:
                                t.failed += 1
                                t.firstFailure = result.failures.first.map(ReportText.failureLine) ?? t.firstFailure ?? "failed"
                            case .skipped: skipped += 1
                            }
                        }
                    }
                }
            }
            if t.failed > 0 { t.outcome = t.passed > 0 ? .flaky : .failed }
            else if t.passed > 0 { t.outcome = .passed }
            else if skipped > 0 { t.outcome = .skipped }
            out.append(t)
        }
        return QuarantineReport(tests: out)
    }
}

extension RunReport {
    /// The quarantine entry a test of `suite` ran under, if any.
    func quarantineEntry(suite: String, id: TestIdentifier) -> QuarantineEntry? {
        quarantine?.tests.lazy.map(\.entry).first { $0.suite == suite && $0.matches(id) }
    }
}
