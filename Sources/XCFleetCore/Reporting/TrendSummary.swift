import Foundation
import XCFleetModel

/// Text shared by the renderers and the terminal for a run's history context (cost, trends,
/// known-flaky tests). Pure; callers escape for their output language.
public enum TrendSummary {
    /// `trends: 2 regressions against the recent median (diagnostics, exit code unchanged): …`, or nil.
    public static func terminalLine(_ report: RunReport) -> String? {
        guard let regressions = report.history?.trends?.regressions, !regressions.isEmpty else { return nil }
        let n = regressions.count
        return "trends: \(n) regression\(n == 1 ? "" : "s") against the recent median (diagnostics, exit code unchanged): "
            + regressions.joined(separator: "; ")
    }

    /// `$0.42 · 1234 host-s` or `1234 host-s (no price)`.
    package static func costTotal(_ c: RunCost) -> String {
        let seconds = "\(ReportText.fixed(c.hostSeconds, 0)) host-s"
        guard let total = c.total else { return "\(seconds) (no price per hour in the fleet file)" }
        return money(total, c.currency) + " · " + seconds
    }

    package static func money(_ value: Double, _ currency: String) -> String {
        (currency == "USD" ? "$" : currency + " ") + ReportText.fixed(value, value != 0 && abs(value) < 0.01 ? 4 : 2)
    }

    /// Phase → (host-seconds, cost), phases in a fixed order (largest first, then by name).
    package static func byPhase(_ c: RunCost) -> [(phase: String, seconds: Double, cost: Double?)] {
        var rows: [String: (Double, Double?)] = [:]
        for l in c.lines {
            let old = rows[l.phase] ?? (0, nil)
            rows[l.phase] = (old.0 + l.hostSeconds, l.cost.map { (old.1 ?? 0) + $0 } ?? old.1)
        }
        return rows.map { ($0.key, $0.value.0, $0.value.1) }.sorted { ($1.seconds, $0.phase) < ($0.seconds, $1.phase) }
    }

    /// Host → (host-seconds, cost), by host name.
    package static func byHost(_ c: RunCost) -> [(host: String, seconds: Double, cost: Double?)] {
        var rows: [String: (Double, Double?)] = [:]
        for l in c.lines {
            let old = rows[l.host] ?? (0, nil)
            rows[l.host] = (old.0 + l.hostSeconds, l.cost.map { (old.1 ?? 0) + $0 } ?? old.1)
        }
        return rows.map { ($0.key, $0.value.0, $0.value.1) }.sorted { $0.host < $1.host }
    }

    /// `flaky 12% (3/25, last 2026-11-30)` for a known-flaky mark.
    package static func flakyMark(_ f: HistoryContext.KnownFlaky) -> String {
        "known flaky \(ReportText.fixed(f.rate * 100, 0))% (\(f.flakes)/\(f.executions), last \(f.lastSeen.prefix(10)))"
    }

    /// Suite + `Class/name` → the test's known-flaky entry.
    package static func flakyIndex(_ report: RunReport) -> [String: HistoryContext.KnownFlaky] {
        var index: [String: HistoryContext.KnownFlaky] = [:]
        for f in report.history?.knownFlaky ?? [] { index[f.suite + "\u{1F}" + f.test] = f }
        return index
    }

    package static func key(suite: String, test: TestIdentifier) -> String { suite + "\u{1F}" + test.description }
}
