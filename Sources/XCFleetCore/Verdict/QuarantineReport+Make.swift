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
