import Foundation

extension Verdict {
    /// True when the attempt's failures are all quarantined tests' own failed executions: at least
    /// one quarantined test failed, no other test failed, no failure is unattributed, nothing
    /// crashed or failed to build, and every test the runner lists as failing is quarantined.
    /// Only then are the runner's own failure signals (exit status 1/65, `** TEST FAILED **`)
    /// put down to the quarantine; any other failure keeps them as reasons.
    static func quarantineForgives(_ attempt: AttemptReport, failedAll: [TestResult], quarantined: [QuarantineEntry]) -> Bool {
        guard !quarantined.isEmpty, !failedAll.isEmpty, failedAll.allSatisfy({ quarantined.contains($0.id) }) else { return false }
        guard attempt.unattributedFailures.isEmpty, attempt.crashes.isEmpty, attempt.buildErrors.isEmpty else { return false }
        return (attempt.evidence?.failingTests ?? []).allSatisfy { quarantined.contains($0) }
    }
}
