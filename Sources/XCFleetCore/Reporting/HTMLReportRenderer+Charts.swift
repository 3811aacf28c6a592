import Foundation
import XCFleetModel

/// Inline SVG: probe charts and the per-slot timeline. Coordinates are fixed to one decimal so
/// the output is byte-stable.
extension HTMLReportRenderer {
    package static let sharedBuildColor = "#e8dcf5"
    package static let phaseColors: [Phase: String] = [
        .provision: "#8c959f", .connect: "#54aeff", .push: "#0969da", .build: "#d4a72c",
        .test: "#2da44e", .fetch: "#8250df", .cleanup: "#c4cbd3",
    ]

    private func n(_ v: Double) -> String { ReportText.fixed(v, 1) }

    /// Tick positions for `lo...hi`, about `target` of them, on 1-2-5 steps.
    package static func ticks(_ lo: Double, _ hi: Double, target: Int = 5, unit: String = "") -> [Double] {
        guard hi > lo, hi.isFinite, lo.isFinite else { return [lo] }
        if unit == "bytes" {
            // Steps in whole KiB/MiB/GiB so labels read 1 MiB, 2 MiB, … rather than 1.91 MiB.
            let span = max(abs(lo), abs(hi))
            let scale = span >= 1_073_741_824 ? 1_073_741_824.0 : span >= 1_048_576 ? 1_048_576.0 : span >= 1024 ? 1024.0 : 1.0
            if scale > 1 { return ticks(lo / scale, hi / scale, target: target).map { $0 * scale } }
        }
        let raw = (hi - lo) / Double(max(1, target))
        let mag = pow(10, floor(log10(raw)))
        let step = [1.0, 2, 2.5, 5, 10].map { $0 * mag }.first { $0 >= raw } ?? raw
        var t = (lo / step).rounded(.up) * step
        var out: [Double] = []
        while t <= hi + step * 1e-9, out.count < 50 {
            out.append(abs(t) < step * 1e-9 ? 0 : t)
            t += step
        }
        return out
    }

    /// An axis tick in its unit without needless zeros (`2 MiB`, `40%`).
    package static func tickLabel(_ v: Double, unit: String) -> String {
        var s = ReportText.metric(v, unit: unit)
        for zeros in [".00 ", ".0 ", ".0%"] where s.contains(zeros) {
            s = s.replacingOccurrences(of: zeros, with: zeros.hasSuffix("%") ? "%" : " ")
        }
        return s
    }

    private func axisLabel(_ v: Double, key: String) -> String {
        if key.contains("bytes") || key.contains("size") { return ReportText.metric(v, unit: "bytes").replacingOccurrences(of: ".0 ", with: " ") }
        return ReportText.fixed(v, v == v.rounded() ? 0 : 2)
    }

    package func chart(_ g: ProbeSummary.Group, palette: HostPalette) -> String {
        var b = "<figure><figcaption>\(h(g.name)) <span class=\"note\">(\(h(g.unit)))</span></figcaption>\n"
        b += g.axis == nil ? barChart(g, palette: palette) : lineChart(g, palette: palette)
        b += "<div class=\"legend\">" + g.hosts.map { "<span><i style=\"background:\(palette.color($0))\"></i>\(h($0))</span>" }.joined()
        b += "<span>● mean · ┃ min–max over repetitions</span></div>\n"
        b += table(g)
        b += "</figure>\n"
        return b
    }

    private func table(_ g: ProbeSummary.Group) -> String {
        var b = "<details><summary class=\"note\">Values</summary><div class=\"table-wrap\"><table><thead><tr><th>Host</th><th>Labels</th><th class=\"num\">n</th><th class=\"num\">Mean</th><th class=\"num\">Min</th><th class=\"num\">Max</th></tr></thead><tbody>\n"
        for s in g.series {
            b += "<tr><td>\(h(s.host))</td><td class=\"mono\">\(h(s.labelText))</td><td class=\"num\">\(s.values.count)</td>"
            b += "<td class=\"num\">\(h(ReportText.metric(s.mean, unit: s.unit)))</td><td class=\"num\">\(h(ReportText.metric(s.min, unit: s.unit)))</td><td class=\"num\">\(h(ReportText.metric(s.max, unit: s.unit)))</td></tr>\n"
        }
        b += "</tbody></table></div></details>\n"
        return b
    }

    private func valueRange(_ g: ProbeSummary.Group) -> (Double, Double) {
        let mins = g.series.map(\.min).filter(\.isFinite)
        let maxs = g.series.map(\.max).filter(\.isFinite)
        var lo = min(0, mins.min() ?? 0)
        var hi = max(0, maxs.max() ?? 1)
        if g.unit == "ratio" { lo = min(lo, 0); hi = max(hi, 1) }
        if hi <= lo { hi = lo + 1 }
        // Extend to the next tick so the largest whisker is inside the grid.
        let t = Self.ticks(lo, hi, unit: g.unit)
        if let last = t.last, last < hi, t.count >= 2 { hi = last + (t[1] - t[0]) }
        return (lo, hi)
    }

    /// Mean per axis value, one line per host (and other labels), min–max whiskers.
    private func lineChart(_ g: ProbeSummary.Group, palette: HostPalette) -> String {
        let axis = g.axis ?? ""
        let W = 720.0, H = 280.0, L = 70.0, R = 20.0, T = 14.0, B = 44.0
        let xs = Array(Set(g.series.compactMap { ProbeSummary.axisValue($0, g.axis) })).sorted()
        guard let xmin = xs.first, let xmax = xs.last else { return "" }
        let useLog = xmin > 0 && xmax / xmin >= 8
        func xpos(_ v: Double) -> Double {
            if xmax == xmin { return L + (W - L - R) / 2 }
            let f = useLog ? (log2(v) - log2(xmin)) / (log2(xmax) - log2(xmin)) : (v - xmin) / (xmax - xmin)
            return L + 12 + f * (W - L - R - 24)
        }
        let (lo, hi) = valueRange(g)
        func ypos(_ v: Double) -> Double { T + (1 - (v - lo) / (hi - lo)) * (H - T - B) }
        var b = "<svg viewBox=\"0 0 \(n(W)) \(n(H))\" width=\"\(n(W))\" role=\"img\" aria-label=\"\(h(g.name)) by \(h(axis)) per host\">\n"
        for t in Self.ticks(lo, hi, unit: g.unit) {
            let y = ypos(t)
            b += "<line x1=\"\(n(L))\" y1=\"\(n(y))\" x2=\"\(n(W - R))\" y2=\"\(n(y))\" stroke=\"#eaeef2\"/>"
            b += "<text x=\"\(n(L - 6))\" y=\"\(n(y + 4))\" font-size=\"11\" text-anchor=\"end\" fill=\"#57606a\">\(h(Self.tickLabel(t, unit: g.unit)))</text>\n"
        }
        for x in xs {
            let px = xpos(x)
            b += "<line x1=\"\(n(px))\" y1=\"\(n(H - B))\" x2=\"\(n(px))\" y2=\"\(n(H - B + 4))\" stroke=\"#57606a\"/>"
            b += "<text x=\"\(n(px))\" y=\"\(n(H - B + 17))\" font-size=\"11\" text-anchor=\"middle\" fill=\"#57606a\">\(h(axisLabel(x, key: axis)))</text>\n"
        }
        b += "<line x1=\"\(n(L))\" y1=\"\(n(H - B))\" x2=\"\(n(W - R))\" y2=\"\(n(H - B))\" stroke=\"#8c959f\"/>"
        b += "<text x=\"\(n((L + W - R) / 2))\" y=\"\(n(H - 6))\" font-size=\"12\" text-anchor=\"middle\" fill=\"#1f2328\">\(h(axis))\(useLog ? " (log scale)" : "")</text>\n"
        // One line per host × other labels.
        var lines: [String: [ProbeSummary.Series]] = [:]
        var lineOrder: [String] = []
        for s in g.series {
            let key = s.host + "\u{1}" + ProbeSummary.otherLabels(s, g.axis)
            if lines[key] == nil { lineOrder.append(key) }
            lines[key, default: []].append(s)
        }
        let hosts = g.hosts
        for key in lineOrder {
            guard let series = lines[key], let host = series.first?.host else { continue }
            let color = palette.color(host)
            let hi = Double(hosts.firstIndex(of: host) ?? 0)
            let dodge = (hi - Double(hosts.count - 1) / 2) * 7
            let pts = series.compactMap { s -> (Double, ProbeSummary.Series)? in
                guard let v = ProbeSummary.axisValue(s, g.axis), s.mean.isFinite else { return nil }
                return (xpos(v) + dodge, s)
            }.sorted { $0.0 < $1.0 }
            if pts.count > 1 {
                b += "<polyline fill=\"none\" stroke=\"\(color)\" stroke-width=\"2\" points=\"" + pts.map { "\(n($0.0)),\(n(ypos($0.1.mean)))" }.joined(separator: " ") + "\"/>\n"
            }
            for (x, s) in pts {
                let tip = "\(s.host) · \(s.labelText) · mean \(ReportText.metric(s.mean, unit: s.unit)), min \(ReportText.metric(s.min, unit: s.unit)), max \(ReportText.metric(s.max, unit: s.unit)), n=\(s.values.count)"
                b += "<g><title>\(h(tip))</title>"
                if s.min.isFinite, s.max.isFinite, s.max > s.min {
                    b += "<line x1=\"\(n(x))\" y1=\"\(n(ypos(s.min)))\" x2=\"\(n(x))\" y2=\"\(n(ypos(s.max)))\" stroke=\"\(color)\" stroke-width=\"1.5\"/>"
                    b += "<line x1=\"\(n(x - 4))\" y1=\"\(n(ypos(s.min)))\" x2=\"\(n(x + 4))\" y2=\"\(n(ypos(s.min)))\" stroke=\"\(color)\" stroke-width=\"1.5\"/>"
                    b += "<line x1=\"\(n(x - 4))\" y1=\"\(n(ypos(s.max)))\" x2=\"\(n(x + 4))\" y2=\"\(n(ypos(s.max)))\" stroke=\"\(color)\" stroke-width=\"1.5\"/>"
                }
                b += "<circle cx=\"\(n(x))\" cy=\"\(n(ypos(s.mean)))\" r=\"4\" fill=\"\(color)\" stroke=\"#fff\" stroke-width=\"1\"/></g>\n"
            }
        }
        b += "</svg>\n"
        return b
    }

    /// One horizontal bar per labels × host: mean, with min–max whiskers.
    private func barChart(_ g: ProbeSummary.Group, palette: HostPalette) -> String {
        let W = 720.0, L = 200.0, R = 90.0, T = 8.0, row = 30.0, B = 28.0
        let H = T + row * Double(g.series.count) + B
        let (lo, hi) = valueRange(g)
        func xpos(_ v: Double) -> Double { L + (v - lo) / (hi - lo) * (W - L - R) }
        var b = "<svg viewBox=\"0 0 \(n(W)) \(n(H))\" width=\"\(n(W))\" role=\"img\" aria-label=\"\(h(g.name)) per host\">\n"
        for t in Self.ticks(lo, hi, target: 4, unit: g.unit) {
            let x = xpos(t)
            b += "<line x1=\"\(n(x))\" y1=\"\(n(T))\" x2=\"\(n(x))\" y2=\"\(n(H - B))\" stroke=\"\(t == 0 ? "#8c959f" : "#eaeef2")\"/>"
            b += "<text x=\"\(n(x))\" y=\"\(n(H - B + 16))\" font-size=\"11\" text-anchor=\"middle\" fill=\"#57606a\">\(h(Self.tickLabel(t, unit: g.unit)))</text>\n"
        }
        for (i, s) in g.series.enumerated() {
            let y = T + row * Double(i)
            let color = palette.color(s.host)
            let label = s.labelText.isEmpty ? s.host : "\(s.host) · \(s.labelText)"
            let tip = "\(s.host) · \(s.labelText) · mean \(ReportText.metric(s.mean, unit: s.unit)), min \(ReportText.metric(s.min, unit: s.unit)), max \(ReportText.metric(s.max, unit: s.unit)), n=\(s.values.count)"
            b += "<g><title>\(h(tip))</title>"
            b += "<text x=\"\(n(L - 8))\" y=\"\(n(y + 19))\" font-size=\"12\" text-anchor=\"end\" fill=\"#1f2328\">\(h(ReportText.clip(label, 30)))</text>"
            if s.mean.isFinite {
                let x0 = xpos(0), x1 = xpos(s.mean)
                b += "<rect x=\"\(n(min(x0, x1)))\" y=\"\(n(y + 7))\" width=\"\(n(max(1, abs(x1 - x0))))\" height=\"16\" rx=\"3\" fill=\"\(color)\" fill-opacity=\"0.8\"/>"
                if s.max > s.min {
                    let ym = y + 15
                    b += "<line x1=\"\(n(xpos(s.min)))\" y1=\"\(n(ym))\" x2=\"\(n(xpos(s.max)))\" y2=\"\(n(ym))\" stroke=\"#1f2328\" stroke-width=\"1.5\"/>"
                    b += "<line x1=\"\(n(xpos(s.min)))\" y1=\"\(n(ym - 5))\" x2=\"\(n(xpos(s.min)))\" y2=\"\(n(ym + 5))\" stroke=\"#1f2328\" stroke-width=\"1.5\"/>"
                    b += "<line x1=\"\(n(xpos(s.max)))\" y1=\"\(n(ym - 5))\" x2=\"\(n(xpos(s.max)))\" y2=\"\(n(ym + 5))\" stroke=\"#1f2328\" stroke-width=\"1.5\"/>"
                }
                b += "<text x=\"\(n(W - R + 6))\" y=\"\(n(y + 19))\" font-size=\"12\" fill=\"#1f2328\">\(h(ReportText.metric(s.mean, unit: s.unit)))</text>"
            }
            b += "</g>\n"
        }
        b += "</svg>\n"
        return b
    }

    /// One lane per host slot; each attempt's phases as coloured bars, the attempt as an outline
    /// (red when it failed for infrastructure or had problems).
    package func timeline(_ r: RunReport) -> String {

        struct Item { var job: JobReport; var attempt: AttemptReport }
        var lanes: [String: [Item]] = [:]
        var laneKeys: [(host: String, slot: Int)] = []
        var tMax = r.duration.isFinite ? max(0, r.duration) : 0
        for s in r.suites {
            for j in s.jobs {
                for a in j.attempts {
                    let key = "\(a.host)\u{1}\(a.slot)"
                    if lanes[key] == nil { laneKeys.append((a.host, a.slot)) }
                    lanes[key, default: []].append(Item(job: j, attempt: a))
                    var times: [Double] = [a.start, a.end ?? 0]
                    for p in a.phases { times.append(p.start); times.append(p.end ?? 0) }
                    for v in times where v.isFinite { tMax = max(tMax, v) }
                }
            }
        }
        guard !laneKeys.isEmpty else { return "<p class=\"note\">No attempt ran.</p>\n" }
        laneKeys.sort { $0.host != $1.host ? $0.host < $1.host : $0.slot < $1.slot }
        if tMax <= 0 { tMax = 1 }
        let W = 1000.0, L = 150.0, R = 14.0, T = 24.0, lane = 40.0
        let H = T + lane * Double(laneKeys.count) + 6
        func x(_ t: Double) -> Double { L + max(0, min(t, tMax)) / tMax * (W - L - R) }
        var b = "<div class=\"table-wrap\"><svg viewBox=\"0 0 \(n(W)) \(n(H))\" width=\"\(n(W))\" style=\"min-width:640px\" role=\"img\" aria-label=\"timeline of job phases per host slot\">\n"
        for t in Self.ticks(0, tMax, target: 8) {
            b += "<line x1=\"\(n(x(t)))\" y1=\"\(n(T - 4))\" x2=\"\(n(x(t)))\" y2=\"\(n(H - 4))\" stroke=\"#eaeef2\"/>"
            b += "<text x=\"\(n(x(t)))\" y=\"\(n(T - 8))\" font-size=\"11\" text-anchor=\"middle\" fill=\"#57606a\">\(ReportText.fixed(t, t == t.rounded() ? 0 : 1)) s</text>\n"
        }
        for (i, k) in laneKeys.enumerated() {
            let y = T + lane * Double(i)
            if i % 2 == 0 { b += "<rect x=\"0\" y=\"\(n(y))\" width=\"\(n(W))\" height=\"\(n(lane))\" fill=\"#f6f8fa\"/>" }
            b += "<text x=\"\(n(L - 8))\" y=\"\(n(y + 18))\" font-size=\"12\" text-anchor=\"end\" fill=\"#1f2328\">\(h(ReportText.clip(k.host, 18))) #\(k.slot)</text>\n"
            for item in lanes["\(k.host)\u{1}\(k.slot)"] ?? [] {
                let a = item.attempt
                // An attempt that never ended is drawn up to its last recorded phase change.
                let lastSeen = a.phases.map { $0.end ?? $0.start }.max() ?? a.start
                let end = a.end ?? max(lastSeen, a.start)
                let bad = a.infraError != nil || a.lost || a.timedOutPhase != nil || !a.problems.isEmpty
                let tip = "\(item.job.planned.suite) · job \(item.job.planned.jobID) · attempt \(a.number) · \(ReportText.fixed(a.start, 1))–\(ReportText.fixed(end, 1)) s" + (bad ? " · " + (a.infraError ?? a.problems.first ?? "problem") : "")
                b += "<g><title>\(h(tip))</title>"
                b += "<rect x=\"\(n(x(a.start)))\" y=\"\(n(y + 4))\" width=\"\(n(max(1, x(end) - x(a.start))))\" height=\"20\" rx=\"3\" fill=\"#fff\" stroke=\"\(bad ? "#cf222e" : "#8c959f")\" stroke-width=\"\(bad ? "2" : "1")\"/>"
                // The job id under the bar when it fits (phones cannot hover).
                let label = "\(item.job.planned.jobID)\(a.number > 1 ? " #\(a.number)" : "")"
                if x(end) - x(a.start) >= Double(label.count) * 5.6 + 2 {
                    b += "<text x=\"\(n(x(a.start) + 1))\" y=\"\(n(y + 35))\" font-size=\"10\" fill=\"\(bad ? "#cf222e" : "#57606a")\">\(h(label))</text>"
                }
                for p in a.phases {
                    let pe = p.end ?? end
                    // A build this job only waited for or found cached is drawn pale: the shared build
                    // shows once per host, in the job that compiled it.
                    let shared = p.phase == .build && a.build?.origin == .cached
                    let color = shared ? Self.sharedBuildColor : Self.phaseColors[p.phase] ?? "#8c959f"
                    let what = p.phase == .build ? a.build.map { " · " + $0.originText + ($0.waitedSeconds >= 0.05 ? ", waited \(ReportText.fixed($0.waitedSeconds, 1)) s" : "") } ?? "" : ""
                    b += "<rect x=\"\(n(x(p.start)))\" y=\"\(n(y + 7))\" width=\"\(n(max(1, x(pe) - x(p.start))))\" height=\"14\" fill=\"\(color)\"><title>\(h("\(item.job.planned.jobID) #\(a.number) · \(p.phase.rawValue)\(what) · \(ReportText.fixed(p.start, 1))–\(ReportText.fixed(pe, 1)) s"))</title></rect>"
                }
                b += "</g>\n"
            }
        }
        b += "</svg></div>\n"
        b += "<div class=\"legend\">" + Phase.allCases.map { "<span><i style=\"background:\(Self.phaseColors[$0] ?? "#8c959f")\"></i>\($0.rawValue)</span>" }.joined()
        if BuildSummary(r).count(.cached) > 0 { b += "<span><i style=\"background:\(Self.sharedBuildColor)\"></i>shared build (cached)</span>" }
        b += "<span><i style=\"background:#fff;border:2px solid #cf222e\"></i>attempt with a problem</span></div>\n"
        return b
    }
}
