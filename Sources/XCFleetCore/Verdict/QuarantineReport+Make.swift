import Foundation
import XCFleetModel

extension QuarantineReport {
    /// The outcomes of `entries` in the collated suites. Pure.
    package static func make(entries: [QuarantineEntry], suites: [SuiteReport]) -> QuarantineReport {
        var out: [Test] = []
        for entry in entries {
            var t = Test(entry: entry, outcome: .notSeen, executions: 0, failed: 0, passed: 0, firstFailure: nil)
            var skipped = 0
            for suite in suites where suite.spec.name == entry.suite {
                for job in suite.jobs where job.planned.mutant == nil {
                    for attempt in job.attempts {
                        for result in attempt.tests where entry.matches(result.id) {
                            // A result stands for all of its executions in the attempt.
                            let runs = result.executions ?? 1
                            let failedRuns = result.failedExecutions ?? (result.status == .failed ? 1 : 0)
                            t.executions += runs
                            t.failed += failedRuns
                            if failedRuns > 0 {
                                t.firstFailure = result.failures.first.map(ReportText.failureLine) ?? t.firstFailure ?? "failed"
                            }
                            if result.status == .skipped && failedRuns == 0 { skipped += runs } else { t.passed += runs - failedRuns }
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
