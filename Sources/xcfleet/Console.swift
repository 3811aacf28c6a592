import Foundation
import XCFleetKit
#if canImport(Glibc)
import Glibc
#endif

/// How much the console says during a run.
enum Verbosity { case quiet, normal, verbose }

/// Plain, timestamped progress lines (no cursor movement): what CI logs and pipes get.
/// Colour only on a TTY, never with `NO_COLOR` set.
final class ConsoleProgress: @unchecked Sendable {
    private let lock = NSLock()
    private let verbosity: Verbosity
    private let color: Bool
    private var hostOf: [String: String] = [:]

    init(verbosity: Verbosity, environment: [String: String] = ProcessInfo.processInfo.environment) {
        self.verbosity = verbosity
        color = isatty(STDERR_FILENO) == 1 && environment["NO_COLOR"] == nil && environment["TERM"] != "dumb"
    }

    private func paint(_ s: String, _ code: String) -> String { color ? "\u{1B}[\(code)m\(s)\u{1B}[0m" : s }

    func handle(_ event: RunEvent) {
        guard verbosity != .quiet else { return }
        lock.lock(); defer { lock.unlock() }
        let t = String(format: "%7.1fs", event.t)
        var line: String?
        switch event.body {
        case .runStarted(let s):
            line = "run \(s.runID): plan \(s.planName) (\(s.suites.count) suite\(s.suites.count == 1 ? "" : "s")) on \(s.hosts.joined(separator: ", "))"
        case .jobPlanned(let p):
            if verbosity == .verbose { line = "planned \(p.jobID) (\(p.expectedTests.count) tests)" }
        case .attemptStarted(let ref, let host, let slot):
            hostOf[ref.jobID] = "\(host)#\(slot)"
            line = "\(ref.jobID) attempt \(ref.attempt) on \(host)#\(slot)"
        case .phaseStarted(let ref, let phase):
            if verbosity == .verbose || phase == .build || phase == .test { line = "\(ref.jobID) \(phase.rawValue)…" }
        case .phaseFinished:
            break
        case .test(let ref, let e):
            switch e {
            case .testFinished(let id, .failed, _, _, _):
                line = paint("\(ref.jobID) ✘ \(id.className)/\(id.name)", "31")
            case .testFinished(let id, let status, let secs, _, _) where verbosity == .verbose:
                line = "\(ref.jobID) \(status == .passed ? "✔" : "−") \(id.className)/\(id.name)" + (secs.map { String(format: " (%.3fs)", $0) } ?? "")
            case .testFailure(_, let file, let l, let message):
                line = paint("\(ref.jobID)   \(file.map { "\($0):\(l ?? 0): " } ?? "")\(message)", "31")
            case .crash(let message):
                line = paint("\(ref.jobID) crash: \(message)", "31")
            case .buildError(let file, let l, let message):
                line = paint("\(ref.jobID) build error: \(file.map { "\($0):\(l ?? 0): " } ?? "")\(message)", "31")
            case .metric(let m) where verbosity == .verbose:
                line = "\(ref.jobID) metric \(m.name)=\(m.value) \(m.unit)"
            default: break
            }
        case .attemptEnded(let ref, let ended):
            var what = "ended"
            if let infra = ended.infraError { what = "infra failure: \(infra)" }
            else if let p = ended.timedOutPhase { what = "timed out in \(p.rawValue)" }
            else if let term = ended.termination { what = "ended: \(term.consoleText)" }
            line = "\(ref.jobID) attempt \(ref.attempt) \(what)"
        case .jobUnschedulable(let jobID, let reason):
            line = paint("\(jobID) unschedulable: \(reason)", "33")
        case .hostSetAside(let host, let reason):
            line = paint("host \(host) set aside: \(reason)", "33")
        case .note(let text):
            if verbosity == .verbose { line = text }
        case .runFinished(let interrupted):
            if interrupted { line = "run interrupted" }
        }
        if let line { FileHandle.standardError.write(Data("\(t)  \(line)\n".utf8)) }
    }

    /// The short summary printed at the end of a run (stdout).
    static func summary(_ report: RunReport, runDirectory: URL, color: Bool) -> String {
        func paint(_ s: String, _ code: String) -> String { color ? "\u{1B}[\(code)m\(s)\u{1B}[0m" : s }
        var lines: [String] = []
        let verdict = report.exitCode == 0 ? paint("GREEN", "32;1") : paint(report.exitCode == 130 ? "INTERRUPTED" : "RED", "31;1")
        lines.append("xcfleet \(verdict): \(report.verdictLine)")
        for suite in report.suites {
            let passed = suite.jobs.compactMap(\.decisive).reduce(0) { $0 + $1.tests.filter { $0.status == .passed }.count }
            let failed = suite.jobs.compactMap(\.decisive).reduce(0) { $0 + $1.tests.filter { $0.status == .failed }.count }
            let hosts = Array(Set(suite.jobs.flatMap { $0.attempts.map(\.host) })).sorted().joined(separator: ",")
            let mutants = suite.jobs.filter { $0.planned.mutant != nil }
            var line = "  \(suite.spec.kind.rawValue.padding(toLength: 5, withPad: " ", startingAt: 0)) \(suite.spec.name): \(suite.status.rawValue)"
            if suite.status != .unschedulable { line += ", \(passed) passed, \(failed) failed" }
            if !mutants.isEmpty { line += ", mutants killed \(mutants.filter { $0.finalState == .failed }.count)/\(mutants.count)" }
            if !hosts.isEmpty { line += " [\(hosts)]" }
            lines.append(line)
            for reason in suite.reasons.prefix(6) { lines.append("      \(reason)") }
            if suite.spec.kind == .probe {
                let metrics = suite.jobs.compactMap(\.decisive).flatMap(\.metrics)
                if !metrics.isEmpty { lines.append("      \(metrics.count) metric values recorded") }
            }
        }
        for (host, reason) in report.hostsSetAside.sorted(by: { $0.key < $1.key }) { lines.append("  host \(host) set aside: \(reason)") }
        lines.append("report: \(runDirectory.path)/ (report.json, junit.xml, summary.md, report.html, events.jsonl)")
        return lines.joined(separator: "\n")
    }
}

extension CommandTermination {
    var consoleText: String {
        switch self {
        case .exited(let c): return "exit \(c)"
        case .signaled(let s): return "killed by \(s)"
        case .timedOut(let w): return "timed out (\(w))"
        case .connectionLost(let w): return "connection lost (\(w))"
        case .cancelled: return "cancelled"
        }
    }
}
