import Foundation
import XCFleetModel

extension Verdict {
    /// A test's failure came from a crash attributed to it (the collator's `crashed: …` failure).
    package static func isCrash(_ test: TestResult) -> Bool {
        test.status == .failed && test.failures.contains { $0.message.hasPrefix("crashed: ") }
    }

    /// The runner printed its own totals for the attempt (XCTest's closing `Executed …` of `All
    /// tests` / `Selected tests`, or Swift Testing's `Test run with …`): the test process got to its end.
    package static func runnerTotalsSeen(_ attempt: AttemptReport) -> Bool {
        guard let e = attempt.evidence else { return false }
        return e.xctest?.overall == true || e.swiftTesting != nil
    }

    /// Whether a quarantined test's failed execution is forgiven: it failed and printed its end, it
    /// did not crash, and the attempt ran to its end (exited with a status, no timeout, no lost
    /// host) with the runner's totals seen. An exit, crash or hang while it ran stays red.
    package static func forgives(_ test: TestResult, in attempt: AttemptReport, quarantined: Bool) -> Bool {
        guard quarantined, test.status == .failed, test.unfinished != true, !isCrash(test) else { return false }
        guard attempt.infraError == nil, attempt.timedOutPhase == nil, !attempt.lost, attempt.crashes.isEmpty else { return false }
        guard case .exited? = attempt.termination else { return false }
        return runnerTotalsSeen(attempt)
    }

    /// True when the attempt's failures are all quarantined tests' own forgiven executions
    /// (`forgives`): at least one quarantined test failed, no other test failed, no failure is
    /// unattributed, nothing crashed or failed to build, and every test the runner lists as failing
    /// is quarantined. Only then are the runner's own failure signals (exit status 1/65, `** TEST
    /// FAILED **`) put down to the quarantine; any other failure keeps them as reasons.
    /// Every failed execution counts, also one a later execution in the attempt recovered from.
    package static func quarantineForgives(_ attempt: AttemptReport, quarantined: [QuarantineEntry]) -> Bool {
        // A failed execution a later one recovered from counts too (the test is then passed, not finished failed).
        let failed = attempt.tests.filter { $0.status == .failed || ($0.failedExecutions ?? 0) > 0 }
        guard !quarantined.isEmpty, !failed.isEmpty,
              failed.allSatisfy({ t in
                  let q = quarantined.contains(t.id)
                  return t.status == .failed ? forgives(t, in: attempt, quarantined: q) : q
              }) else { return false }
        guard attempt.unattributedFailures.isEmpty, attempt.crashes.isEmpty, attempt.buildErrors.isEmpty else { return false }
        return (attempt.evidence?.failingTests ?? []).allSatisfy { quarantined.contains($0) }
    }
}
