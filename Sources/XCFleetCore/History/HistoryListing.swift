import Foundation
import XCFleetBasics
import XCFleetModel

/// `xcfleet history`: recorded runs, newest first, with duration, verdict and cost; `--compare`
/// adds each run's change in cost and build time against the run before it.
public enum HistoryListing {
    public static func format(_ runs: [HistoryRun], location: HistoryLocation, compare: Bool) -> String {
        guard !runs.isEmpty else { return "no runs recorded in \(location) yet" }
        var lines = ["\(runs.count) most recent run(s) in \(location):"]
        for (index, run) in runs.enumerated() {
            let cost = run.cost.map { String(format: "$%.4f", $0) } ?? "-"
            let hostSeconds = run.hostSeconds.map { "\(Int($0.rounded())) host-s" } ?? "-"
            var line = "\(run.runID)  \(run.startedAt.prefix(19))  \(TerminalText.clock(run.duration))  exit \(run.exitCode)\(run.interrupted ? " (interrupted)" : "")"
                + "  \(run.figures.map { "tests \($0.text)" } ?? "\(run.tests) results")  \(cost) (\(hostSeconds))  \(TerminalText.sanitize(run.planName)): \(TerminalText.sanitize(run.verdict))"
            if compare, index + 1 < runs.count {
                let before = runs[index + 1]
                line += "  | vs \(before.runID): cost \(delta(run.cost, before.cost, money: true)), build \(delta(run.buildSeconds, before.buildSeconds, money: false))"
            }
            lines.append(line)
        }
        return lines.joined(separator: "\n")
    }

    package static func delta(_ now: Double?, _ before: Double?, money: Bool) -> String {
        guard let now, let before else { return "n/a" }
        let d = now - before
        let pct = before > 0 ? String(format: " (%+.0f%%)", d / before * 100) : ""
        return (money ? String(format: "%+.2f$", d) : String(format: "%+.1fs", d)) + pct
    }
}
