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

        package init(entry: QuarantineEntry, outcome: Outcome, executions: Int, failed: Int, passed: Int, firstFailure: String? = nil) {
            self.entry = entry
            self.outcome = outcome
            self.executions = executions
            self.failed = failed
            self.passed = passed
            self.firstFailure = firstFailure
        }
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

    package init(tests: [Test]) {
        self.tests = tests
    }
}

extension RunReport {
    /// The quarantine entry a test of `suite` ran under, if any.
    package func quarantineEntry(suite: String, id: TestIdentifier) -> QuarantineEntry? {
        quarantine?.tests.lazy.map(\.entry).first { $0.suite == suite && $0.matches(id) }
    }
}
