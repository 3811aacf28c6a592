import Foundation

/// GitHub Actions workflow commands for a run: `::error` for every gate failure (test failure
/// at `file:line`, not-run test, crash, build error, infra failure of a red job), `::warning`
/// for flaky tests and probe problems. Print them to stdout inside a GitHub Actions step.
public enum GitHubAnnotations {
    public static func lines(_ report: RunReport) -> [String] {
        var out: [String] = []
        for suite in report.suites {
            let level = suite.spec.kind == .gate ? "error" : "warning"
            for job in suite.jobs {
                let host = job.decisive?.host ?? "unscheduled"
                if let mutant = job.planned.mutant {
                    if ReportFacts.isRed(job) {
                        out.append(command(level, file: nil, line: nil, title: "\(suite.spec.name): mutant \(mutant) not killed",
                                           message: ReportFacts.reason(job)))
                    }
                    continue
                }
                for o in ReportFacts.outcomes(job) {
                    let title = "\(suite.spec.name) @ \(host): \(o.id)"
                    switch o.status {
                    case .failed:
                        let fs = o.failures.isEmpty ? [FailureDetail(message: "failed")] : o.failures
                        for f in fs {
                            out.append(command(level, file: f.file, line: f.line, title: title, message: f.message))
                        }
                    case .notRun where ReportFacts.isRed(job):
                        out.append(command(level, file: nil, line: nil, title: title, message: "not run: \(o.notRunReason ?? "")"))
                    case .passed where o.flaky:
                        let f = o.earlier.first?.failures.first
                        out.append(command("warning", file: f?.file, line: f?.line, title: "Flaky: \(title)",
                                           message: "failed in an earlier attempt, then passed: \(f?.message ?? "")"))
                    case .passed, .skipped, .notRun:
                        break
                    }
                }
                if let d = job.decisive {
                    for b in d.buildErrors {
                        out.append(command(level, file: b.file, line: b.line, title: "\(suite.spec.name) @ \(host): build error", message: b.message))
                    }
                    for u in d.unattributedFailures {
                        out.append(command(level, file: u.file, line: u.line, title: "\(suite.spec.name) @ \(host): failure", message: u.message))
                    }
                    for c in d.crashes {
                        out.append(command(level, file: nil, line: nil, title: "\(suite.spec.name) @ \(host): crash", message: c))
                    }
                }
                switch job.finalState {
                case .infraFailed, .unschedulable, .timedOut, .interrupted:
                    out.append(command(level, file: nil, line: nil, title: "\(suite.spec.name): job \(job.planned.jobID) \(job.finalState.rawValue)",
                                       message: ReportFacts.reason(job)))
                case .passed, .flaky, .failed:
                    break
                }
            }
        }
        return out
    }

    /// `::level file=…,line=…,title=…::message` with GitHub's escaping.
    static func command(_ level: String, file: String?, line: Int?, title: String, message: String) -> String {
        var props: [String] = []
        if let file, !file.isEmpty { props.append("file=" + escapeProperty(file)) }
        if let line, file != nil { props.append("line=\(line)") }
        props.append("title=" + escapeProperty(title))
        return "::\(level) \(props.joined(separator: ","))::\(escapeData(message))"
    }

    /// Message text: `%`, CR and LF as `%25`, `%0D`, `%0A` (GitHub's rules).
    public static func escapeData(_ s: String) -> String {
        var out = ""
        for ch in ReportText.legal(s).unicodeScalars {
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
