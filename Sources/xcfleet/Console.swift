import Foundation
import XCFleetKit
#if canImport(Glibc)
import Glibc
#endif

/// How much the console says during a run.
typealias Verbosity = ConsoleVerbosity

/// Progress on stderr while a run goes: a live view redrawn in place on a terminal
/// (`LiveConsole`), plain timestamped lines off a TTY or under CI (`PlainConsole`), nothing in
/// quiet mode. Event handling is cheap and never blocks the concurrency pool: terminal writes
/// happen on the backend's own serial queue.
final class ConsoleProgress: Sendable {
    private let backend: ConsoleBackend?

    init(verbosity: Verbosity, history: DurationHistory? = nil,
         environment: [String: String] = ProcessInfo.processInfo.environment) {
        if verbosity == .quiet {
            backend = nil
        } else if ConsoleProgress.wantsLiveView(environment: environment) {
            backend = LiveConsole(verbosity: verbosity, color: ConsoleProgress.colorAllowed(fd: STDERR_FILENO, environment: environment),
                                  history: history)
        } else {
            backend = PlainConsole(verbosity: verbosity)
        }
    }

    /// Takes one run event (called by the event log, under its lock: must stay cheap).
    func handle(_ event: RunEvent) { backend?.handle(event) }

    /// A message of xcfleet's own (Ctrl-C), printed at once, above the live area when there is one.
    func announce(_ text: String) {
        if let backend { backend.announce(text) } else { TerminalOutput.printErr(text) }
    }

    /// Ends the progress output: clears the live area, flushes pending lines. Call before the summary.
    func finish() { backend?.finish() }

    /// Live view only on a terminal that can take it: stderr is a TTY, `CI` is not set
    /// (empty, `0` or `false` count as unset) and `TERM` is set and not `dumb`.
    static func wantsLiveView(environment: [String: String], isTTY: Bool = isatty(STDERR_FILENO) == 1) -> Bool {
        guard isTTY, !runningUnderCI(environment) else { return false }
        guard let term = environment["TERM"], !term.isEmpty, term != "dumb" else { return false }
        return true
    }

    /// Colour on `fd` only for a terminal outside CI, never with `NO_COLOR` set to anything non-empty.
    static func colorAllowed(fd: Int32, environment: [String: String] = ProcessInfo.processInfo.environment) -> Bool {
        guard isatty(fd) == 1, !runningUnderCI(environment) else { return false }
        if let noColor = environment["NO_COLOR"], !noColor.isEmpty { return false }
        return environment["TERM"] != "dumb"
    }

    static func runningUnderCI(_ environment: [String: String]) -> Bool {
        guard let ci = environment["CI"] else { return false }
        return !(ci.isEmpty || ci == "0" || ci.lowercased() == "false")
    }

    /// The short summary printed at the end of a run (stdout), one `ConsoleLine` per line: the
    /// caller prints it through `TerminalOutput` (sanitized, then coloured), so a test name with
    /// a newline or escape sequences can never make a line of its own. `runDirectory` is printed
    /// as given: `report` passes the directory as the user named it.
    static func summary(_ report: RunReport, runDirectory: String) -> [ConsoleLine] {
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
