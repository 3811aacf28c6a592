import Foundation
import XCFleetBasics
import XCFleetModel

/// Builds a run's trends from the history's earlier runs plus the run itself, and decides what
/// counts as a regression. Pure.
///
/// Regression rule: with at least `minimumEarlierRuns` earlier values in the window, let `m` be
/// their median and `mad` their median absolute deviation from `m`. This run regressed when its
/// value is worse than `m` by more than `max(10% of |m|, 3 × mad)` — so a noisy metric needs a
/// larger change. "Worse" is higher for durations, memory, sizes and everything else, and lower
/// when the metric's name or unit says it is a rate, ratio, hit count, percentage or throughput
/// (`hit_rate (ratio)`, `requests (ops/s)`; see `higherIsWorse`). A regression is called out; it never changes the exit code.
public enum TrendRule {
    public static let minimumEarlierRuns = 3
    public static let relativeTolerance = 0.10
    public static let deviations = 3.0

    /// Whether a higher value is worse, from the metric's key `name (unit)`: lower is worse for a
    /// unit `ratio`, `%`, `percent`, `score` or `…/s`, or a name with a word starting with `hit`,
    /// ending in `rate` or `ratio`, or `throughput`, `score` — unless a word starts with
    /// `fail`, `error` or `miss` (words: runs of letters, lowercased).
    public static func higherIsWorse(_ key: String) -> Bool {
        let unit = self.unit(of: key).lowercased()
        let name = (unit.isEmpty ? key : String(key.dropLast(unit.count + 3))).lowercased()
        let words = name.split { !$0.isLetter }.map(String.init)
        if words.contains(where: { w in ["fail", "error", "miss"].contains { w.hasPrefix($0) } }) { return true }
        if ["ratio", "%", "percent", "score"].contains(unit) || unit.hasSuffix("/s") || unit.hasSuffix("per second") { return false }
        return !words.contains { $0.hasPrefix("hit") || $0.hasSuffix("rate") && $0 != "duration" || $0.hasSuffix("ratio") || $0 == "throughput" || $0 == "score" }
    }

    /// The unit of a trend key `name (unit)` (`""` without one).
    public static func unit(of key: String) -> String {
        guard key.hasSuffix(")"), let open = key.range(of: " (", options: .backwards) else { return "" }
        return String(key[open.upperBound..<key.index(before: key.endIndex)])
    }

    /// Median and regression line of `points` (oldest first, the last one this run's).
    public static func judge(_ name: String, points: [HistoryTrends.Point], currentRunID: String, higherIsWorse: Bool,
                             format: (Double) -> String) -> (median: Double?, regression: String?) {
        guard let last = points.last, last.runID == currentRunID, last.value.isFinite else { return (nil, nil) }
        let earlier = points.dropLast().map(\.value).filter(\.isFinite)
        guard earlier.count >= minimumEarlierRuns, let m = Statistics.median(earlier) else { return (nil, nil) }
        let mad = Statistics.median(earlier.map { abs($0 - m) }) ?? 0
        let tolerance = max(relativeTolerance * abs(m), deviations * mad)
        let worseBy = higherIsWorse ? last.value - m : m - last.value
        guard worseBy > tolerance, worseBy > 1e-9 * max(1, abs(m)) else { return (m, nil) }
        let relative = m != 0 ? " (\(last.value >= m ? "+" : "−")\(ReportText.fixed(abs(last.value / m - 1) * 100, 0))%)" : ""
        let line = "\(name): \(format(last.value)) against a median of \(format(m)) over the last \(earlier.count) runs\(relative); \(higherIsWorse ? "higher" : "lower") is worse"
        return (m, line)
    }

    /// The run's own gate results and metric values, keyed as `HistoryDatabase.trends` keys them.
    public static func current(_ report: RunReport) -> HistoryTrends {
        var t = HistoryTrends()
        let id = report.runID
        for suite in report.gates {
            let jobs = suite.jobs.filter { $0.planned.mutant == nil }
            guard !jobs.isEmpty else { continue }
            let ok = jobs.allSatisfy { $0.finalState == .passed }
            let seconds = jobs.flatMap(\.attempts).compactMap { a in a.end.map { $0 - a.start } }.max() ?? 0
            t.gatePassed[suite.spec.name] = [.init(runID: id, value: ok ? 1 : 0)]
            t.gateSeconds[suite.spec.name] = [.init(runID: id, value: seconds)]
        }
        var metrics: [String: [Double]] = [:]
        for suite in report.suites {
            for job in suite.jobs {
                var seen = Set<Int>()
                for a in job.attempts where seen.insert(a.number).inserted {
                    for m in a.metrics { metrics[m.unit.isEmpty ? m.name : "\(m.name) (\(m.unit))", default: []].append(m.value) }
                }
            }
        }
        for (name, values) in metrics {
            if let m = Statistics.median(values) { t.metrics[name] = [.init(runID: id, value: m)] }
        }
        return t
    }

    /// The window: the history's earlier runs (without this one) followed by this run.
    public static func trends(earlier: HistoryTrends, report: RunReport, window: Int = HistoryContext.window) -> HistoryContext.Trends {
        let now = current(report)
        let id = report.runID
        func merged(_ old: [HistoryTrends.Point]?, _ new: [HistoryTrends.Point]?) -> [HistoryTrends.Point] {
            Array(((old ?? []).filter { $0.runID != id } + (new ?? [])).suffix(window))
        }
        var seen: Set<String> = [id]
        for series in earlier.gatePassed.values.map({ $0 }) + earlier.metrics.values.map({ $0 }) {
            for p in series.suffix(window - 1) { seen.insert(p.runID) }
        }
        let gateNames = Set(earlier.gatePassed.keys).union(now.gatePassed.keys).sorted()
        let gates = gateNames.map { name -> HistoryContext.GateTrend in
            let seconds = merged(earlier.gateSeconds[name], now.gateSeconds[name])
            let judged = judge("gate \(name) duration", points: seconds, currentRunID: id, higherIsWorse: true) { ReportText.duration($0) }
            return HistoryContext.GateTrend(name: name, passed: merged(earlier.gatePassed[name], now.gatePassed[name]),
                                            seconds: .init(name: name, points: seconds, median: judged.median, higherIsWorse: true, regression: judged.regression))
        }
        let metricNames = Set(earlier.metrics.keys).union(now.metrics.keys).sorted()
        let metrics = metricNames.map { name -> HistoryContext.Series in
            let points = merged(earlier.metrics[name], now.metrics[name])
            let worse = higherIsWorse(name)
            let unit = self.unit(of: name)
            let judged = judge(name, points: points, currentRunID: id, higherIsWorse: worse) { ReportText.metric($0, unit: unit) }
            return .init(name: name, points: points, median: judged.median, higherIsWorse: worse, regression: judged.regression)
        }
        return .init(window: window, runs: min(window, seen.count), gates: gates, metrics: metrics)
    }
}
