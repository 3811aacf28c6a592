import Foundation
import XCFleetModel

extension Verdict {
    /// True when the attempt's failures are all quarantined tests' own failed executions: at least
    /// one quarantined test failed, no other test failed, no failure is unattributed, nothing
    /// crashed or failed to build, and every test the runner lists as failing is quarantined.
    /// Only then are the runner's own failure signals (exit status 1/65, `** TEST FAILED **`)
    /// put down to the quarantine; any other failure keeps them as reasons.
    /// Every failed execution counts, also one a later execution in the attempt recovered from.
    package static func quarantineForgives(_ attempt: AttemptReport, quarantined: [QuarantineEntry]) -> Bool {
        let failed = attempt.tests.filter { $0.status == .failed || ($0.failedExecutions ?? 0) > 0 }
        guard !quarantined.isEmpty, !failed.isEmpty, failed.allSatisfy({ quarantined.contains($0.id) }) else { return false }
        guard attempt.unattributedFailures.isEmpty, attempt.crashes.isEmpty, attempt.buildErrors.isEmpty else { return false }
        return (attempt.evidence?.failingTests ?? []).allSatisfy { quarantined.contains($0) }
    }
}
