import Foundation
import XCFleetModel

/// summary.md's history lines: cost, regressions against the recent median, known-flaky tests
/// (from the run's `historyContext` event). Every name is neutralized like the rest of the summary.
extension MarkdownSummaryRenderer {
    package func historyLines(_ report: RunReport) -> [String] {
        guard let context = report.history else { return [] }
        func md(_ s: String) -> String { ReportText.markdown(s) }
        var out: [String] = []
        if let t = context.trends, t.hasSeries {
            let regressions = t.regressions
            out.append("### Trends (last \(t.runs) run\(t.runs == 1 ? "" : "s"))")
            if regressions.isEmpty {
                out.append("No regressions against the recent median.")
            } else {
                out.append("⚠️ \(regressions.count) regression\(regressions.count == 1 ? "" : "s") against the recent median (diagnostics, exit code unchanged):")
                for line in regressions.prefix(maxFailures) { out.append("- \(md(ReportText.clip(line, maxMessageLength)))") }
                if regressions.count > maxFailures { out.append("- … and \(regressions.count - maxFailures) more (see report.html)") }
            }
            let rates = t.gates.map { "\(md($0.name)) \(ReportText.fixed($0.passRate * 100, 0))%" }
            if !rates.isEmpty { out.append(""); out.append("Gate pass rate: " + rates.prefix(maxFailures).joined(separator: " · ") + (rates.count > maxFailures ? " · …" : "")) }
            out.append("")
        }
        if let flaky = context.knownFlaky, !flaky.isEmpty {
            out.append("### Known flaky (\(flaky.count), last \(HistoryContext.flakyDays) days)")
            for f in flaky.prefix(maxFailures) {
                out.append("- \(md(f.suite)) · \(md(f.test)) — \(md(TrendSummary.flakyMark(f)))")
            }
            if flaky.count > maxFailures { out.append("- … and \(flaky.count - maxFailures) more") }
            out.append("")
        }
        if let c = context.cost {
            let phases = TrendSummary.byPhase(c).map { "\(md($0.phase)) \(ReportText.fixed($0.seconds, 0))" }.joined(separator: ", ")
            out.append("**Cost:** \(md(TrendSummary.costTotal(c)))\(phases.isEmpty ? "" : " (\(phases))")")
            out.append("")
        }
        return out
    }

    /// ` (known flaky 12% …)` after a failure line, or "".
    package static func flakySuffix(_ index: [String: HistoryContext.KnownFlaky], suite: String, test: TestIdentifier) -> String {
        guard let f = index[TrendSummary.key(suite: suite, test: test)] else { return "" }
        return " _(\(ReportText.markdown(TrendSummary.flakyMark(f))))_"
    }
}
