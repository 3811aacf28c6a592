import Foundation
import XCFleetModel

/// report.html's history sections: Trends (per gate pass/fail and duration, per probe metric,
/// inline SVG sparklines, regressions in words) and Cost (total, by phase, by host). Both come
/// from the run's `historyContext` event, so a rebuilt report is the same.
extension HTMLReportRenderer {
    /// Table-of-contents links for the sections present.
    package func historyLinks(_ r: RunReport) -> String {
        var b = ""
        if let t = r.history?.trends, t.hasSeries { b += "<a href=\"#trends\">Trends</a>" }
        if r.history?.cost != nil { b += "<a href=\"#cost\">Cost</a>" }
        return b
    }

    package func historySections(_ r: RunReport) -> String {
        guard let context = r.history else { return "" }
        var b = ""
        if let t = context.trends, t.hasSeries { b += trendsSection(t, flaky: context.knownFlaky ?? [], plan: r.planName) }
        if let c = context.cost { b += costSection(c) }
        return b
    }

    private func trendsSection(_ t: HistoryContext.Trends, flaky: [HistoryContext.KnownFlaky], plan: String) -> String {
        var b = "<section id=\"trends\">\n<h2>Trends</h2>\n"
        b += "<p class=\"note\">The last \(t.runs) run\(t.runs == 1 ? "" : "s") of plan \(h(plan)) in the history (at most \(t.window), oldest left, this run last, ringed). "
        b += "A value is called out when it is worse than the median of the earlier runs by more than 10% of the median and 3 median absolute deviations (at least \(TrendRule.minimumEarlierRuns) earlier runs). Diagnostics only: the exit code is unchanged.</p>\n"
        let regressions = t.regressions
        if regressions.isEmpty {
            b += "<p class=\"note\">No regressions against the recent median.</p>\n"
        } else {
            b += "<div class=\"regress\"><strong>\(regressions.count) regression\(regressions.count == 1 ? "" : "s") against the recent median</strong> (not a failure)<ul>"
            b += regressions.map { "<li>\(h($0))</li>" }.joined()
            b += "</ul></div>\n"
        }
        if !t.gates.isEmpty {
            b += "<h3>Gates</h3>\n<div class=\"table-wrap\"><table class=\"trends\"><thead><tr><th>Gate</th><th>Passed</th><th class=\"num\">Pass rate</th><th>Duration</th><th class=\"num\">This run</th><th class=\"num\">Median</th></tr></thead><tbody>\n"
            for g in t.gates {
                let current = g.seconds.points.last.map { ReportText.duration($0.value) } ?? "-"
                b += "<tr\(g.seconds.regression == nil ? "" : " class=\"regressed\"")><td>\(h(g.name))</td><td>\(passBars(g.passed))</td>"
                b += "<td class=\"num\">\(ReportText.fixed(g.passRate * 100, 0))% (\(Int(g.passed.reduce(0) { $0 + $1.value }))/\(g.passed.count))</td>"
                b += "<td>\(sparkline(g.seconds) { ReportText.duration($0) })</td><td class=\"num\">\(h(current))</td>"
                b += "<td class=\"num\">\(h(g.seconds.median.map { ReportText.duration($0) } ?? "-"))</td></tr>\n"
            }
            b += "</tbody></table></div>\n"
        }
        if !t.metrics.isEmpty {
            b += "<h3>Probe metrics</h3>\n<p class=\"note\">Median over the run's measurements of each metric (all hosts and conditions).</p>\n"
            b += "<div class=\"table-wrap\"><table class=\"trends\"><thead><tr><th>Metric</th><th>Values</th><th class=\"num\">This run</th><th class=\"num\">Median</th><th>Worse when</th></tr></thead><tbody>\n"
            for m in t.metrics {
                let unit = TrendRule.unit(of: m.name)
                let fmt: (Double) -> String = { ReportText.metric($0, unit: unit) }
                b += "<tr\(m.regression == nil ? "" : " class=\"regressed\"")><td>\(h(m.name))</td><td>\(sparkline(m, format: fmt))</td>"
                b += "<td class=\"num\">\(h(m.points.last.map { fmt($0.value) } ?? "-"))</td><td class=\"num\">\(h(m.median.map(fmt) ?? "-"))</td>"
                b += "<td>\(m.higherIsWorse ? "higher" : "lower")</td></tr>\n"
            }
            b += "</tbody></table></div>\n"
        }
        if !flaky.isEmpty {
            b += "<details><summary>Known flaky tests in this run (\(flaky.count), last \(HistoryContext.flakyDays) days)</summary><div class=\"table-wrap\"><table><thead><tr><th>Suite</th><th>Test</th><th class=\"num\">Flake rate</th><th class=\"num\">Flakes / executions</th><th>Last seen</th></tr></thead><tbody>\n"
            for f in flaky {
                b += "<tr><td>\(h(f.suite))</td><td class=\"test mono\">\(h(f.test))</td><td class=\"num\">\(ReportText.fixed(f.rate * 100, 1))%</td><td class=\"num\">\(f.flakes)/\(f.executions)</td><td>\(h(f.lastSeen))</td></tr>\n"
            }
            b += "</tbody></table></div></details>\n"
        }
        b += "</section>\n"
        return b
    }

    private func costSection(_ c: RunCost) -> String {
        var b = "<section id=\"cost\">\n<h2>Cost</h2>\n"
        b += "<p><strong>\(h(TrendSummary.costTotal(c)))</strong></p>\n"
        b += "<p class=\"note\">A host that ran attempts is billed from admission to the end of the run; its seconds are split by phase in proportion to its attempts' slot-seconds, the rest is idle. Prices come from the fleet file's <code>pricePerHour</code>.</p>\n"
        func table(_ title: String, _ rows: [(String, Double, Double?)]) -> String {
            var t = "<div class=\"table-wrap\"><table class=\"cost\"><thead><tr><th>\(title)</th><th class=\"num\">Host-seconds</th><th class=\"num\">Share</th><th class=\"num\">Cost</th></tr></thead><tbody>\n"
            for (name, seconds, cost) in rows {
                let share = c.hostSeconds > 0 ? seconds / c.hostSeconds * 100 : 0
                t += "<tr><td>\(h(name))</td><td class=\"num\">\(ReportText.fixed(seconds, 1))</td><td class=\"num\">\(ReportText.fixed(share, 0))%</td><td class=\"num\">\(h(cost.map { TrendSummary.money($0, c.currency) } ?? "-"))</td></tr>\n"
            }
            return t + "</tbody></table></div>\n"
        }
        if !c.lines.isEmpty {
            b += "<div class=\"charts\">\n<figure><figcaption>By phase</figcaption>\n" + table("Phase", TrendSummary.byPhase(c).map { ($0.phase, $0.seconds, $0.cost) }) + "</figure>\n"
            b += "<figure><figcaption>By host</figcaption>\n" + table("Host", TrendSummary.byHost(c).map { ($0.host, $0.seconds, $0.cost) }) + "</figure>\n</div>\n"
        }
        b += "</section>\n"
        return b
    }

    /// One bar per run: green passed, red not; the last (this run) outlined.
    private func passBars(_ points: [HistoryTrends.Point]) -> String {
        let w = 8.0, gap = 2.0, height = 22.0
        let width = max(1, Double(points.count) * (w + gap))
        var b = "<svg class=\"spark\" width=\"\(ReportText.fixed(width, 0))\" height=\"\(ReportText.fixed(height, 0))\" viewBox=\"0 0 \(ReportText.fixed(width, 0)) \(ReportText.fixed(height, 0))\" role=\"img\" aria-label=\"passed per run\">"
        for (i, p) in points.enumerated() {
            let ok = p.value >= 1
            let x = Double(i) * (w + gap)
            let last = i == points.count - 1
            b += "<rect x=\"\(ReportText.fixed(x, 1))\" y=\"\(ok ? "2" : "10")\" width=\"\(ReportText.fixed(w, 0))\" height=\"\(ok ? "18" : "10")\" rx=\"1.5\" fill=\"\(ok ? "#2da44e" : "#cf222e")\"\(last ? " stroke=\"#1f2328\" stroke-width=\"1.2\"" : "")>"
            b += "<title>\(h(p.runID)): \(ok ? "passed" : "not passed")</title></rect>"
        }
        return b + "</svg>"
    }

    /// A line over the runs with the earlier runs' median dashed; this run ringed (red when it regressed).
    private func sparkline(_ s: HistoryContext.Series, format: (Double) -> String) -> String {
        let width = 180.0, height = 36.0, pad = 4.0
        let values = s.points.map(\.value).filter(\.isFinite)
        guard !values.isEmpty else { return "<span class=\"note\">no values</span>" }
        var lo = values.min()!, hi = values.max()!
        if let m = s.median { lo = min(lo, m); hi = max(hi, m) }
        if hi - lo < 1e-12 { lo -= 1; hi += 1 }
        let n = s.points.count
        func x(_ i: Int) -> Double { n <= 1 ? width / 2 : pad + Double(i) * (width - 2 * pad) / Double(n - 1) }
        func y(_ v: Double) -> Double { height - pad - (v - lo) / (hi - lo) * (height - 2 * pad) }
        var b = "<svg class=\"spark\" width=\"\(ReportText.fixed(width, 0))\" height=\"\(ReportText.fixed(height, 0))\" viewBox=\"0 0 \(ReportText.fixed(width, 0)) \(ReportText.fixed(height, 0))\" role=\"img\" aria-label=\"\(h(s.name)) per run\">"
        if let m = s.median {
            b += "<line x1=\"\(ReportText.fixed(pad, 1))\" x2=\"\(ReportText.fixed(width - pad, 1))\" y1=\"\(ReportText.fixed(y(m), 1))\" y2=\"\(ReportText.fixed(y(m), 1))\" stroke=\"#8c959f\" stroke-dasharray=\"3 3\" stroke-width=\"1\"><title>median of earlier runs: \(h(format(m)))</title></line>"
        }
        let coords = s.points.enumerated().filter { $0.element.value.isFinite }.map { "\(ReportText.fixed(x($0.offset), 1)),\(ReportText.fixed(y($0.element.value), 1))" }
        b += "<polyline fill=\"none\" stroke=\"#0969da\" stroke-width=\"1.5\" points=\"\(coords.joined(separator: " "))\"/>"
        for (i, p) in s.points.enumerated() where p.value.isFinite {
            let last = i == n - 1
            let color = last && s.regression != nil ? "#cf222e" : "#0969da"
            b += "<circle cx=\"\(ReportText.fixed(x(i), 1))\" cy=\"\(ReportText.fixed(y(p.value), 1))\" r=\"\(last ? "3.2" : "1.8")\" fill=\"\(last ? "#fff" : color)\" stroke=\"\(color)\" stroke-width=\"\(last ? "1.8" : "0")\"><title>\(h(p.runID)): \(h(format(p.value)))</title></circle>"
        }
        return b + "</svg>"
    }

    /// The known-flaky pill beside a test.
    package func knownFlakyPill(_ f: HistoryContext.KnownFlaky) -> String {
        " <span class=\"pill flaky known\" title=\"measured flaky over the last \(HistoryContext.flakyDays) days: \(f.flakes) of \(f.executions) executions, last \(h(f.lastSeen))\">known flaky \(ReportText.fixed(f.rate * 100, 0))%</span>"
    }

    package static let trendsCSS = """
    .regress{margin:8px 0;padding:8px 12px;background:var(--warn-bg);border-left:3px solid var(--warn);border-radius:6px}
    .regress ul{margin:4px 0 0;padding-left:18px}
    tr.regressed td:first-child{font-weight:600;color:var(--warn)}
    svg.spark{display:inline-block;vertical-align:middle}
    """
}
