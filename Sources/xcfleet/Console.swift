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

    /// The short summary printed at the end of a run (stdout): `ConsoleSummary.lines`.
    static func summary(_ report: RunReport, runDirectory: String) -> [ConsoleLine] {
        ConsoleSummary.lines(report, runDirectory: runDirectory)
    }
}
