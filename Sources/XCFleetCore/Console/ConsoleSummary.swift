import Foundation
import XCFleetBasics
import XCFleetModel

/// What the terminal prints when a run (or `xcfleet report`) ends.
package enum ConsoleSummary {
    /// The short summary printed at the end of a run (stdout), one `ConsoleLine` per line: the
    /// caller prints it through `TerminalOutput` (sanitized, then coloured), so a test name with
    /// a newline or escape sequences can never make a line of its own. `runDirectory` is printed
    /// as given: `report` passes the directory as the user named it.
    package static func lines(_ report: RunReport, runDirectory: String) -> [ConsoleLine] {
        var lines: [ConsoleLine] = []
        // The same words as report.html's banner and summary.md's headline (Verdict.headline).
        let headline = Verdict.headline(report)
        let style: ConsoleStyle
        switch headline.tone {
        case .green: style = .success
        case .red: style = .failure
        case .notRun, .interrupted: style = .warning
        }
        lines.append(ConsoleLine("xcfleet \(headline.word): \(report.verdictLine)", style))
        for suite in report.suites {
            // The suite's figures, as every report prints them; mutants are counted apart.
            let hosts = Array(Set(suite.jobs.flatMap { $0.attempts.map(\.host) })).sorted().joined(separator: ",")
            let mutants = suite.jobs.filter { $0.planned.mutant != nil }
            var line = "  \(suite.spec.kind.rawValue.padding(toLength: 5, withPad: " ", startingAt: 0)) \(suite.spec.name): \(suite.status.rawValue)"
            if suite.status != .unschedulable { line += ", \(report.figures(suite).text)" }
            if !mutants.isEmpty { line += ", mutants killed \(mutants.filter { $0.finalState == .failed }.count)/\(mutants.count)" }
            if !hosts.isEmpty { line += " [\(hosts)]" }
            lines.append(ConsoleLine(line))
            for reason in suite.reasons.prefix(6) { lines.append(ConsoleLine("      \(reason)")) }
            if suite.spec.kind == .probe {
                let metrics = suite.jobs.compactMap(\.decisive).flatMap(\.metrics)
                if !metrics.isEmpty { lines.append(ConsoleLine("      \(metrics.count) metric values recorded")) }
            }
        }
        if let q = report.quarantine, !q.tests.isEmpty { lines.append(ConsoleLine("  " + TerminalText.sanitize(q.summaryLine))) }
        for (host, reason) in report.hostsSetAside.sorted(by: { $0.key < $1.key }) { lines.append(ConsoleLine("  host \(host) set aside: \(reason)")) }
        for change in report.hostChanges ?? [] where change.change == .rejoined {
            lines.append(ConsoleLine("  host \(change.host) rejoined at \(String(format: "%.1f", change.t)) s"))
        }
        lines.append(ConsoleLine("report: \(runDirectory)/ (report.json, junit.xml, summary.md, report.html, events.jsonl)"))
        return lines
    }
}
