import Foundation
import XCFleetModel

/// The run's figures, computed once (docs/reporting.md, "The figures"): every test of every job in
/// one `TestCategory`, summed per job, per suite and for the run. Renderers print what `fill`
/// stored and never count on their own.
package enum ReportFigures {
    /// One job's figures from its outcomes; a mutant job has none (its failures kill the mutant).
    package static func figures(_ job: JobReport) -> TestFigures {
        var f = TestFigures()
        guard job.planned.mutant == nil else { return f }
        for o in ReportFacts.outcomes(job) { f[o.category] += 1 }
        return f
    }

    /// Stores the figures on every job and suite and in `totals.tests`.
    package static func fill(_ report: inout RunReport) {
        var run = TestFigures()
        for s in report.suites.indices {
            var suite = TestFigures()
            for j in report.suites[s].jobs.indices {
                let f = figures(report.suites[s].jobs[j])
                report.suites[s].jobs[j].figures = f
                suite += f
            }
            report.suites[s].figures = suite
            run += suite
        }
        report.totals.tests = run
    }
}

extension RunReport {
    /// The suite's figures as stored by `ReportFigures.fill` (zero for a record without them).
    package func figures(_ suite: SuiteReport) -> TestFigures { suite.figures ?? TestFigures() }
}
