import Foundation
import XCFleetBasics
import XCFleetModel

/// GitHub Actions workflow commands for a run: `::error` for gate failures, `::warning` for flaky
/// tests and probe problems. Print them to stdout inside a GitHub Actions step.
///
/// GitHub shows at most 10 errors and 10 warnings per step (50 annotations per job), so the most
/// useful come first and one broken rule never turns into hundreds of lines: build errors; then one
/// annotation per failing test, where tests failing at the same line are grouped into one; then
/// crashes and unattributed failures; surviving mutants; not-run tests (one per job); jobs that
/// ended without a verdict. What does not fit is counted in a final `::notice` that points to the report.
/// `file=` is only ever a repository path (see `SourceLocation`); other locations go into the message.
public enum GitHubAnnotations {
    /// GitHub's display limits per step.
    public struct Limits: Equatable, Sendable {
        public var errors: Int
        public var warnings: Int

        public init(errors: Int, warnings: Int) {
            self.errors = errors
            self.warnings = warnings
        }

        public static let github = Limits(errors: 10, warnings: 10)
    }

    private struct Annotation {
        var level: String
        var location: FailureDetail?
        var title: String
        var message: String
    }

    public static func lines(_ report: RunReport, limits: Limits = .github) -> [String] {
        var build: [Annotation] = [], tests: [Annotation] = [], other: [Annotation] = [], warnings: [Annotation] = []
        for suite in report.suites {
            let gate = suite.spec.kind == .gate
            func add(_ a: Annotation, _ list: inout [Annotation]) {
                if gate { list.append(a) } else { var w = a; w.level = "warning"; warnings.append(w) }
            }
            for job in suite.jobs {
                let host = job.decisive?.host ?? "unscheduled"
                let prefix = "\(suite.spec.name) @ \(host)"
                let (testsBefore, warningsBefore) = (tests.count, warnings.count)
                if let mutant = job.planned.mutant {
                    if ReportFacts.isRed(job) {
                        add(Annotation(level: "error", location: nil, title: "\(suite.spec.name): mutant \(mutant) not killed",
                                       message: ReportFacts.reason(job)), &other)
                    }
                    continue
                }
                // Failing tests, grouped by the line they failed at.
                var groups: [(key: String, first: FailureDetail, ids: [TestIdentifier], extra: Int)] = []
                var notRun: [TestIdentifier] = []
                var notRunReason = ""
                for o in ReportFacts.outcomes(job) {
                    switch o.status {
                    case .failed where o.quarantined:
                        let f = o.failures.first ?? FailureDetail(message: "failed")
                        warnings.append(Annotation(level: "warning", location: f, title: "Quarantined: \(prefix): \(o.id)",
                                                   message: "failed (quarantined, does not make the gate red): \(f.message)"))
                    case .failed:
                        let f = o.failures.first ?? FailureDetail(message: "failed")
                        let key = locationKey(f).map { "@" + $0 } ?? "#\(o.id)"
                        if let i = groups.firstIndex(where: { $0.key == key }) { groups[i].ids.append(o.id) }
                        else { groups.append((key, f, [o.id], max(0, o.failures.count - 1))) }
                    case .notRun where ReportFacts.isRed(job):
                        notRun.append(o.id)
                        notRunReason = o.notRunReason ?? notRunReason
                    case .passed where o.flaky:
                        let f = o.earlier.first?.failures.first
                        warnings.append(Annotation(level: "warning", location: f, title: "Flaky: \(prefix): \(o.id)",
                                                   message: "failed in an earlier attempt, then passed: \(f?.message ?? "")"))
                    case .passed, .skipped, .notRun:
                        break
                    }
                }
                for g in groups {
                    if g.ids.count == 1 {
                        let more = g.extra > 0 ? " (and \(g.extra) more failure\(g.extra == 1 ? "" : "s") of this test)" : ""
                        add(Annotation(level: "error", location: g.first, title: "\(prefix): \(g.ids[0])", message: g.first.message + more), &tests)
                    } else {
                        let names = g.ids.prefix(5).map(\.description).joined(separator: ", ") + (g.ids.count > 5 ? ", …" : "")
                        add(Annotation(level: "error", location: g.first, title: "\(prefix): \(g.ids.count) tests failed here",
                                       message: "\(g.first.message)\n(\(names))"), &tests)
                    }
                }
                if !notRun.isEmpty {
                    let names = notRun.prefix(5).map(\.description).joined(separator: ", ") + (notRun.count > 5 ? ", …" : "")
                    let title = notRun.count == 1 ? "\(prefix): \(notRun[0])" : "\(prefix): \(notRun.count) tests not run"
                    add(Annotation(level: "error", location: nil, title: title,
                                   message: "not run: \(notRunReason)" + (notRun.count == 1 ? "" : "\n(\(names))")), &other)
                }
                if let d = job.decisive {
                    for b in d.buildErrors {
                        add(Annotation(level: "error", location: b, title: "\(prefix): build error", message: b.message), &build)
                    }
                    // A crash already told on the test it killed is not annotated a second time.
                    let told = tests[testsBefore...].map(\.message) + warnings[warningsBefore...].map(\.message)
                    for c in d.crashes where !told.contains(where: { $0.contains(c) }) {
                        add(Annotation(level: "error", location: nil, title: "\(prefix): crash", message: c), &tests)
                    }
                    for u in d.unattributedFailures {
                        add(Annotation(level: "error", location: u, title: "\(prefix): failure", message: u.message), &tests)
                    }
                }
                switch job.finalState {
                case .infraFailed, .unschedulable, .timedOut, .interrupted:
                    add(Annotation(level: "error", location: nil, title: "\(suite.spec.name): job \(job.planned.jobID) \(job.finalState.rawValue)",
                                   message: ReportFacts.reason(job)), &other)
                case .passed, .flaky, .failed:
                    break
                }
            }
        }
        let errors = build + tests + other
        var out = errors.prefix(max(0, limits.errors)).map(render)
        out += warnings.prefix(max(0, limits.warnings)).map(render)
        let hiddenErrors = max(0, errors.count - limits.errors)
        let hiddenWarnings = max(0, warnings.count - limits.warnings)
        if hiddenErrors + hiddenWarnings > 0 {
            var parts: [String] = []
            if hiddenErrors > 0 { parts.append("\(hiddenErrors) more error\(hiddenErrors == 1 ? "" : "s")") }
            if hiddenWarnings > 0 { parts.append("\(hiddenWarnings) more warning\(hiddenWarnings == 1 ? "" : "s")") }
            out.append(command("notice", file: nil, line: nil, title: "xcfleet: more in the report",
                               message: "\(parts.joined(separator: " and ")) not annotated here (GitHub shows \(limits.errors) per step): see summary.md and report.html of run \(report.runID)"))
        }
        return out
    }

    /// Tests failing at the same place share an annotation: the repository path and line, or the printed file and line.
    private static func locationKey(_ f: FailureDetail) -> String? {
        if let loc = f.location { return loc.line != nil || loc.hostLine != nil ? loc.display : nil }
        guard let file = f.file, let line = f.line else { return nil }
        return "\(file):\(line)"
    }

    private static func render(_ a: Annotation) -> String {
        guard let f = a.location else { return command(a.level, file: nil, line: nil, title: a.title, message: a.message) }
        if let loc = f.location {
            if let path = loc.repositoryPath {
                let note = loc.kind == .mutant ? " [\(loc.display)]" : ""
                return command(a.level, file: path, line: loc.line, column: loc.line == nil ? nil : loc.column, title: a.title, message: a.message + note)
            }
            return command(a.level, file: nil, line: nil, title: a.title, message: "at \(loc.display): \(a.message)")
        }
        // Not mapped: only a plain relative path with a real line may be `file=`; a host path
        // (`/Users/ci/…`), `<unknown>` or line 0 goes into the message, or is dropped.
        guard let file = f.file, !file.isEmpty, file != "<unknown>" else {
            return command(a.level, file: nil, line: nil, title: a.title, message: a.message)
        }
        let printed = file + (f.line.map { $0 > 0 ? ":\($0)" : "" } ?? "")
        let plain = !file.hasPrefix("/") && !file.hasPrefix("~") && !file.split(separator: "/").contains("..")
        guard plain, let line = f.line, line > 0 else {
            return command(a.level, file: nil, line: nil, title: a.title, message: "at \(printed): \(a.message)")
        }
        return command(a.level, file: file, line: line, title: a.title, message: a.message)
    }

    /// `::level file=…,line=…,col=…,title=…::message` with GitHub's escaping.
    package static func command(_ level: String, file: String?, line: Int?, column: Int? = nil, title: String, message: String) -> String {
        var props: [String] = []
        if let file, !file.isEmpty { props.append("file=" + escapeProperty(file)) }
        if let line, file != nil {
            props.append("line=\(line)")
            if let column { props.append("col=\(column)") }
        }
        props.append("title=" + escapeProperty(title))
        return "::\(level) \(props.joined(separator: ","))::\(escapeData(message))"
    }

    /// Message text: `%`, CR and LF as `%25`, `%0D`, `%0A` (GitHub's rules).
    public static func escapeData(_ s: String) -> String {
        var out = ""
        for ch in TerminalText.neutralizeLayout(ReportText.legal(s)).unicodeScalars {
            switch ch {
            case "%": out += "%25"
            case "\r": out += "%0D"
            case "\n": out += "%0A"
            default: out.unicodeScalars.append(ch)
            }
        }
        return out
    }

    /// Property values: as data, plus `:` and `,` as `%3A`, `%2C`.
    public static func escapeProperty(_ s: String) -> String {
        escapeData(s).replacingOccurrences(of: ":", with: "%3A").replacingOccurrences(of: ",", with: "%2C")
    }
}
