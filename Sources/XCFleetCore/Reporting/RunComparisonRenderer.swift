import Foundation
import XCFleetBasics
import XCFleetModel

/// Renders a `RunComparison` as JSON, Markdown, or HTML (a section for report.html or a page).
public enum RunComparisonRenderer {
    public static func json(_ c: RunComparison) throws -> Data {
        try SortedJSONEncoder().encode(c)
    }

    public static func markdown(_ c: RunComparison) -> String {
        func md(_ s: String) -> String { ReportText.markdown(s) }
        var out: [String] = []
        out.append("## \(c.isClean ? "✅" : "⚠️") xcfleet: \(md(c.headRunID)) compared with \(md(c.baseRunID))")
        out.append("")
        out.append("Exit code \(c.baseExitCode) → \(c.headExitCode) · tests \(c.baseFigures.text) → \(c.headFigures.text)")
        out.append("")
        out.append("Newly red: \(c.newFailures.isEmpty ? "none" : c.newlyRed.text) · \(c.fixed.count) fixed · \(c.newlyFlaky.count) newly flaky · \(c.slower.count) slower")
        out.append("")
        if let x = c.builds {
            out.append("Builds: \(md(x.base)) → \(md(x.head)) (\(buildDelta(x)))")
            out.append("")
        }
        if let x = c.cost {
            out.append(md(costLine(x)))
            out.append("")
        }
        func list(_ title: String, _ items: [RunComparison.TestChange]) {
            guard !items.isEmpty else { return }
            out.append("### \(title) (\(items.count))")
            for g in grouped(items) {
                if g.count == 1, let i = g.first {
                    var line = "- **\(md(i.suite))** · \(md(i.test)) — \(md(i.baseStatus)) → \(md(i.headStatus))"
                    if let m = i.message { line += ": \(md(ReportText.clip(m, 200)))" }
                    out.append(line)
                } else if let i = g.first {
                    out.append("- **\(md(i.suite))** · \(md(ReportText.notRunLine(count: g.count, reason: i.message ?? "not run"))): " +
                               md(ReportText.clip(g.map(\.test).joined(separator: ", "), 300)))
                }
            }
            out.append("")
        }
        list("New failures", c.newFailures)
        list("Fixed", c.fixed)
        list("Newly flaky", c.newlyFlaky)
        if !c.slower.isEmpty {
            out.append("### Slower by more than \(ReportText.fixed(c.slowerThreshold * 100, 0))% (\(c.slower.count))")
            out.append("| Suite | Test | Base | Head | Change |")
            out.append("|---|---|--:|--:|--:|")
            for s in c.slower {
                out.append("| \(md(s.suite)) | \(md(s.test)) | \(ReportText.duration(s.baseSeconds)) | \(ReportText.duration(s.headSeconds)) | +\(ReportText.fixed(s.relative * 100, 0))% |")
            }
            out.append("")
        }
        if !c.metricChanges.isEmpty {
            out.append("### Probe metrics (mean over repetitions)")
            out.append("| Suite | Metric | Host | Labels | Base | Head | Change |")
            out.append("|---|---|---|---|--:|--:|--:|")
            for m in c.metricChanges {
                out.append("| \(md(m.suite)) | \(md(m.metric)) | \(md(m.host)) | \(md(m.labels)) | \(md(value(m.baseMean, m.unit))) | \(md(value(m.headMean, m.unit))) | \(md(change(m))) |")
            }
            out.append("")
        }
        return out.joined(separator: "\n") + "\n"
    }

    /// `compile time −12.3 s`.
    package static func buildDelta(_ x: RunComparison.BuildChange) -> String {
        let d = x.headCompileSeconds - x.baseCompileSeconds
        return "compile time \(d >= 0 ? "+" : "−")\(ReportText.fixed(abs(d), 1)) s"
    }

    /// `Cost: $0.40 → $0.52 (+$0.12, +30%) · host-s 1200 → 1500 · build phase 300 → 420 host-s (+120)`.
    package static func costLine(_ x: RunComparison.CostChange) -> String {
        func pair(_ a: Double?, _ b: Double?, _ f: (Double) -> String, relative: Bool) -> String {
            var s = "\(a.map(f) ?? "—") → \(b.map(f) ?? "—")"
            if let a, let b {
                let d = b - a
                s += " (\(d >= 0 ? "+" : "−")\(f(abs(d)))"
                if relative, a != 0 { s += ", \(d >= 0 ? "+" : "−")\(ReportText.fixed(abs(b / a - 1) * 100, 0))%" }
                s += ")"
            }
            return s
        }
        let money: (Double) -> String = { TrendSummary.money($0, x.currency) }
        let seconds: (Double) -> String = { ReportText.fixed($0, 0) }
        var line = "Cost: " + (x.baseCost == nil && x.headCost == nil ? "no price per hour" : pair(x.baseCost, x.headCost, money, relative: true))
        line += " · host-s " + pair(x.baseHostSeconds, x.headHostSeconds, seconds, relative: true)
        line += " · build phase host-s " + pair(x.baseBuildSeconds, x.headBuildSeconds, seconds, relative: false)
        return line
    }

    package static func value(_ v: Double?, _ unit: String) -> String {
        v.map { ReportText.metric($0, unit: unit) } ?? "—"
    }

    package static func change(_ m: RunComparison.MetricChange) -> String {
        guard let d = m.delta else { return m.baseMean == nil ? "new" : "gone" }
        var s = ReportText.signedMetric(d, unit: m.unit == "ratio" ? "ratio" : m.unit)
        if m.unit == "ratio" { s = s.replacingOccurrences(of: "%", with: " pt") }
        if let r = m.relative, m.unit != "ratio" { s += " (\(r >= 0 ? "+" : "")\(ReportText.fixed(r * 100, 1))%)" }
        return s
    }

    /// Changes in order, with tests that became "not run" for the same reason in one suite as one group.
    package static func grouped(_ items: [RunComparison.TestChange]) -> [[RunComparison.TestChange]] {
        var groups: [[RunComparison.TestChange]] = []
        var index: [String: Int] = [:]
        for i in items {
            guard i.headStatus == TestCategory.notRun.rawValue else { groups.append([i]); continue }
            let k = i.suite + "\u{1}" + i.baseStatus + "\u{1}" + (i.message ?? "")
            if let g = index[k] { groups[g].append(i) } else {
                index[k] = groups.count
                groups.append([i])
            }
        }
        return groups
    }

    /// A `<section id="comparison">` for report.html.
    public static func htmlSection(_ c: RunComparison) -> String {
        func h(_ s: String) -> String { ReportText.html(s) }
        var b = "<section id=\"comparison\">\n<h2>Compared with \(h(c.baseRunID))</h2>\n"
        b += "<p class=\"note\">exit code \(c.baseExitCode) → \(c.headExitCode) · tests \(h(c.baseFigures.text)) → \(h(c.headFigures.text)) · newly red: \(h(c.newFailures.isEmpty ? "none" : c.newlyRed.text)) · \(c.fixed.count) fixed · \(c.newlyFlaky.count) newly flaky · \(c.slower.count) slower (more than \(ReportText.fixed(c.slowerThreshold * 100, 0))% and \(ReportText.fixed(c.minimumSlowerSeconds, 2)) s)</p>\n"
        if let x = c.builds { b += "<p class=\"note\">Builds: \(h(x.base)) → \(h(x.head)) (\(h(buildDelta(x))))</p>\n" }
        if let x = c.cost { b += "<p class=\"note\">\(h(costLine(x)))</p>\n" }
        func tests(_ title: String, _ items: [RunComparison.TestChange], _ cls: String) {
            guard !items.isEmpty else { return }
            b += "<h3>\(title)</h3><div class=\"table-wrap\"><table><thead><tr><th>Suite</th><th>Test</th><th>Base</th><th>Head</th></tr></thead><tbody>\n"
            for g in grouped(items) {
                guard let i = g.first else { continue }
                if g.count == 1 {
                    b += "<tr><td>\(h(i.suite))</td><td class=\"test mono\">\(h(i.test))"
                    if let m = i.message { b += "<div class=\"fail\">\(h(m))</div>" }
                } else {
                    b += "<tr><td>\(h(i.suite))</td><td class=\"test\"><strong>\(h(ReportText.notRunLine(count: g.count, reason: i.message ?? "not run")))</strong>"
                    b += "<details><summary>the \(g.count) tests</summary><ul class=\"mono\">" + g.map { "<li>\(h($0.test))</li>" }.joined() + "</ul></details>"
                }
                b += "</td><td>\(h(i.baseStatus))</td><td><span class=\"pill \(cls)\">\(h(i.headStatus))</span></td></tr>\n"
            }
            b += "</tbody></table></div>\n"
        }
        tests("New failures", c.newFailures, "failed")
        tests("Fixed", c.fixed, "passed")
        tests("Newly flaky", c.newlyFlaky, "flaky")
        if !c.slower.isEmpty {
            b += "<h3>Slower</h3><div class=\"table-wrap\"><table><thead><tr><th>Suite</th><th>Test</th><th class=\"num\">Base</th><th class=\"num\">Head</th><th class=\"num\">Change</th></tr></thead><tbody>\n"
            for s in c.slower {
                b += "<tr><td>\(h(s.suite))</td><td class=\"test mono\">\(h(s.test))</td><td class=\"num\">\(ReportText.duration(s.baseSeconds))</td><td class=\"num\">\(ReportText.duration(s.headSeconds))</td><td class=\"num\">+\(ReportText.fixed(s.relative * 100, 0))%</td></tr>\n"
            }
            b += "</tbody></table></div>\n"
        }
        if !c.metricChanges.isEmpty {
            b += "<details open><summary>Probe metrics (mean over repetitions)</summary><div class=\"table-wrap\"><table><thead><tr><th>Suite</th><th>Metric</th><th>Host</th><th>Labels</th><th class=\"num\">Base</th><th class=\"num\">Head</th><th class=\"num\">Change</th></tr></thead><tbody>\n"
            for m in c.metricChanges {
                b += "<tr><td>\(h(m.suite))</td><td>\(h(m.metric))</td><td>\(h(m.host))</td><td class=\"mono\">\(h(m.labels))</td><td class=\"num\">\(h(value(m.baseMean, m.unit)))</td><td class=\"num\">\(h(value(m.headMean, m.unit)))</td><td class=\"num\">\(h(change(m)))</td></tr>\n"
            }
            b += "</tbody></table></div></details>\n"
        }
        if c.newFailures.isEmpty && c.fixed.isEmpty && c.newlyFlaky.isEmpty && c.slower.isEmpty && c.metricChanges.isEmpty {
            b += "<p class=\"note\">No differences.</p>\n"
        }
        b += "</section>\n"
        return b
    }

    /// A standalone, self-contained HTML page for the comparison.
    public static func htmlPage(_ c: RunComparison) -> String {
        let h = ReportText.html
        return "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>xcfleet · \(h(c.headRunID)) vs \(h(c.baseRunID))</title>\n" + HTMLReportRenderer.contentSecurityPolicy(style: "\n\(HTMLReportRenderer.css)\n") + "<style>\n\(HTMLReportRenderer.css)\n</style>\n</head>\n<body>\n<header class=\"banner \(c.isClean ? "green" : "red")\"><div class=\"inner\"><h1>\(c.isClean ? "✔ Nothing got worse" : "✘ Regressions")</h1><div class=\"line\">\(h(c.headRunID)) compared with \(h(c.baseRunID))</div></div></header>\n<main>\n" + htmlSection(c) + "</main>\n</body>\n</html>\n"
    }
}
