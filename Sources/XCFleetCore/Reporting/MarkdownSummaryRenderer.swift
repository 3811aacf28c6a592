import Foundation
import XCFleetModel

/// `summary.md`: a short Markdown summary for a pull-request comment or a CI job summary —
/// verdict, counts per suite, failures with `file:line`, probe highlights per host, infra notes.
/// Its only links are relative ones to each failing attempt's raw output in the run directory
/// (`logs/…`); every string from a host or a test is escaped.
public struct MarkdownSummaryRenderer: ReportRendering {
    public let fileName = "summary.md"
    /// At most this many failures are listed; the rest are counted.
    public var maxFailures: Int
    /// Failure messages are clipped to this many characters.
    public var maxMessageLength: Int

    public init(maxFailures: Int = 20, maxMessageLength: Int = 200) {
        self.maxFailures = maxFailures
        self.maxMessageLength = maxMessageLength
    }

    public func render(_ report: RunReport) throws -> Data {
        Data(markdown(report).utf8)
    }

    private func md(_ s: String) -> String { ReportText.markdown(s) }

    public func markdown(_ report: RunReport) -> String {
        var out: [String] = []
        let headline = Verdict.headline(report)
        out.append("## \(headline.emoji) xcfleet \(headline.word): \(md(report.verdictLine))")
        out.append("")
        let hostCount = report.hosts.count
        out.append("Plan **\(md(report.planName))** · run \(md(report.runID)) · \(hostCount) host\(hostCount == 1 ? "" : "s") · \(ReportText.duration(report.duration)) · exit code \(report.exitCode)\(report.interrupted ? " · **interrupted**" : "")")
        out.append("")

        // The figures per suite (ReportFigures), as every report prints them.
        out.append("| Suite | Kind | Status | Passed | Failed | Crashed | Timed out | Not run | Quarantined failures | Flaky | Skipped | Jobs |")
        out.append("|---|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|")
        var failures: [(suite: String, host: String, line: String)] = []
        var flaky: [String] = []
        let knownFlaky = TrendSummary.flakyIndex(report)
        for suite in report.suites {
            for job in suite.jobs {
                let host = job.decisive?.host ?? "unscheduled"
                if let mutant = job.planned.mutant {
                    if ReportFacts.isRed(job) {
                        failures.append((suite.spec.name, host, "mutant \(md(mutant)) — \(md(ReportText.clip(ReportFacts.reason(job), maxMessageLength)))"))
                    }
                    continue
                }
                let log = logLinks(job)
                // Cause first: crashed, timed out and failed tests, then the tests that did not run
                // because of them, once, then what no test carries.
                let outcomes = ReportFacts.ordered(ReportFacts.outcomes(job))
                let attached = ReportAttachments.byTest(job)
                for o in outcomes {
                    switch o.category {
                    case .failed, .crashed, .timedOut:
                        let f = o.failures.first ?? FailureDetail(message: o.category == .timedOut ? (o.notRunReason ?? "timed out") : (o.notRunReason ?? "failed"))
                        let loc = ReportText.location(f).map { "\(md($0)) — " } ?? ""
                        let message = o.category == .crashed && f.message.hasPrefix("crashed: ") ? String(f.message.dropFirst("crashed: ".count)) : f.message
                        let label = o.category == .failed ? "" : "**\(o.category.rawValue)** — "
                        let trace = o.category == .crashed ? ReportText.backtraceExcerpt(job.decisive?.backtrace).map { " · backtrace: \(md(ReportText.clip($0, maxMessageLength)))" } ?? "" : ""
                        failures.append((suite.spec.name, host, "\(md(o.id.description)) — \(label)\(loc)\(md(ReportText.clip(message, maxMessageLength)))"
                                         + trace + Self.flakySuffix(knownFlaky, suite: job.planned.suite, test: o.id)
                                         + Self.attachmentLinks(attached[o.id] ?? []) + log))
                    case .flaky:
                        let hosts = o.earlier.map { "attempt \($0.attempt) on \(md($0.host))" }.joined(separator: ", ")
                        flaky.append("\(md(suite.spec.name)) · \(md(o.id.description)) — failed in \(hosts.isEmpty ? "an earlier attempt" : hosts), passed on \(md(host))"
                                 + Self.attachmentLinks(o.earlier.flatMap(\.attachments)))
                    case .notRun, .passed, .skipped, .quarantined:
                        break // not run: one line below; quarantined: the Quarantined section
                    }
                }
                let notRun = outcomes.filter { $0.category == .notRun }
                if !notRun.isEmpty {
                    let line = ReportText.notRunLine(count: notRun.count, reason: notRun[0].notRunReason ?? ReportFacts.notRunReason(job))
                    failures.append((suite.spec.name, host, md(ReportText.clip(line, maxMessageLength)) + log))
                }
                if ReportFacts.isRed(job) {
                    for d in ReportFacts.jobLevelDetails(job) {
                        failures.append((suite.spec.name, host, "job \(md(job.planned.jobID)) — \(md(ReportText.clip(d, maxMessageLength)))"))
                    }
                    for line in Self.attachmentLines(job) { failures.append((suite.spec.name, host, line)) }
                }
            }
            let f = suite.figures ?? TestFigures()
            var status = Self.statusText(suite.status)
            let mutants = suite.jobs.filter { $0.planned.mutant != nil }
            if !mutants.isEmpty { status += " · mutants killed \(mutants.filter { !ReportFacts.isRed($0) }.count)/\(mutants.count)" }
            out.append("| \(md(suite.spec.name)) | \(suite.spec.kind.rawValue) | \(status) | \(f.passed) | \(f.failed) | \(f.crashed) | \(f.timedOut) | \(f.notRun) | \(f.quarantined) | \(f.flaky) | \(f.skipped) | \(suite.jobs.count) |")
        }
        out.append("")

        let redReasons = report.suites.filter { $0.status == .red || $0.status == .unschedulable || $0.status == .interrupted }
        if !redReasons.isEmpty {
            out.append("### Why")
            for s in redReasons {
                let why = s.reasons.isEmpty ? s.status.rawValue : s.reasons.map { md($0) }.joined(separator: "; ")
                out.append("- **\(md(s.spec.name))** (\(s.spec.kind.rawValue)): \(why)")
            }
            out.append("")
        }

        if !failures.isEmpty {
            out.append("### Failures")
            for f in failures.prefix(maxFailures) {
                out.append("- **\(md(f.suite))** @ \(md(f.host)): \(f.line)")
            }
            if failures.count > maxFailures {
                out.append("- … and \(failures.count - maxFailures) more (see report.html)")
            }
            out.append("")
        }

        if !flaky.isEmpty {
            out.append("### Flaky (\(flaky.count))")
            for f in flaky.prefix(maxFailures) { out.append("- \(f)") }
            if flaky.count > maxFailures { out.append("- … and \(flaky.count - maxFailures) more") }
            out.append("")
        }

        out += QuarantineSections.markdown(report, maxMessageLength: maxMessageLength)
        out += CertificateSections.markdown(report)

        let probes = ProbeSummary(report)
        if !probes.groups.isEmpty {
            out.append("### Probes (diagnostics, never gate)")
            for g in probes.groups {
                out.append("")
                out.append("**\(md(g.suite)) · \(md(g.name))** (\(md(g.unit))) — mean (min–max) over repetitions")
                out.append("")
                let hosts = g.hosts
                let conditionHeader = g.axis ?? "labels"
                out.append("| \(md(conditionHeader)) | " + hosts.map { md($0) }.joined(separator: " | ") + " |")
                out.append("|---|" + hosts.map { _ in "--:|" }.joined())
                var rows: [String] = []
                var cells: [String: [String: String]] = [:]
                for s in g.series {
                    let row = g.axis.flatMap { a in s.labels.first { $0.key == a }?.value }.map { v in
                        let rest = ProbeSummary.otherLabels(s, g.axis)
                        return rest.isEmpty ? v : "\(v) \(rest)"
                    } ?? (s.labelText.isEmpty ? "—" : s.labelText)
                    if cells[row] == nil { rows.append(row); cells[row] = [:] }
                    cells[row]?[s.host] = Self.stat(s)
                }
                for row in rows {
                    out.append("| \(md(row)) | " + hosts.map { cells[row]?[$0] ?? "—" }.joined(separator: " | ") + " |")
                }
            }
            out.append("")
        }

        var infra: [String] = []
        for (host, why) in report.hostsSetAside.sorted(by: { $0.key < $1.key }) {
            infra.append("host \(md(host)) set aside: \(md(why))")
        }
        // Hosts that left and came back: when, and why they left.
        for change in report.hostChanges ?? [] {
            let at = String(format: "%.1f s", change.t)
            switch change.change {
            case .probation: infra.append("host \(md(change.host)) on probation at \(at): \(md(ReportText.clip(change.reason ?? "", maxMessageLength)))")
            case .rejoined: infra.append("host \(md(change.host)) rejoined at \(at)")
            case .setAside: if report.hostsSetAside[change.host] == nil { infra.append("host \(md(change.host)) set aside at \(at): \(md(ReportText.clip(change.reason ?? "", maxMessageLength)))") }
            }
        }
        for suite in report.suites {
            for job in suite.jobs {
                for a in ReportFacts.infraRetries(job) {
                    let problem = a.infraError ?? a.timedOutPhase.map { "timed out in \($0.rawValue)" } ?? "did not finish"
                    infra.append("job \(md(job.planned.jobID)) attempt \(a.number) on \(md(a.host)): \(md(ReportText.clip(problem, maxMessageLength))) → retried on \(md(job.decisive?.host ?? "-"))")
                }
                if job.finalState == .unschedulable {
                    infra.append("job \(md(job.planned.jobID)) (\(md(suite.spec.name))) unschedulable: \(md(ReportFacts.reason(job)))")
                }
                if job.finalState == .infraFailed {
                    infra.append("job \(md(job.planned.jobID)) (\(md(suite.spec.name))) infra-failed: \(md(ReportFacts.reason(job)))")
                }
            }
        }
        for note in report.notes { infra.append(md(ReportText.clip(note, maxMessageLength))) }
        if !infra.isEmpty {
            out.append("### Infrastructure")
            for line in infra.prefix(maxFailures) { out.append("- \(line)") }
            if infra.count > maxFailures { out.append("- … and \(infra.count - maxFailures) more") }
            out.append("")
        }
        let builds = BuildSummary(report)
        if !builds.rows.isEmpty {
            out.append("<details><summary>Builds: \(md(builds.line))</summary>")
            out.append("")
            out.append("| Job | Attempt | Host | Build | Time | Waited |")
            out.append("|---|--:|---|---|--:|--:|")
            for r in builds.rows.prefix(maxFailures) {
                out.append("| \(md(r.jobID)) | \(r.attempt) | \(md(r.build.host)) | \(md(r.build.originText)) | \(ReportText.fixed(r.build.seconds, 1)) s | \(ReportText.fixed(r.build.waitedSeconds, 1)) s |")
            }
            if builds.rows.count > maxFailures { out.append("| … and \(builds.rows.count - maxFailures) more | | | | | |") }
            out.append("")
            out.append("</details>")
            out.append("")
        }
        out += PushSummary(report).markdown(limit: maxFailures)
        out += historyLines(report)
        out.append("Totals: \(report.totals.jobs) jobs, \(report.totals.attempts) attempts · tests \(report.totals.tests.text)")
        return out.joined(separator: "\n") + "\n"
    }

    /// ` · raw output: [attempt 1](logs/…-a1.log)`: links into the run directory (summary.md sits in it).
    private func logLinks(_ job: JobReport) -> String {
        guard !job.attempts.isEmpty else { return "" }
        return " · raw output: " + job.attempts.map { "[attempt \($0.number)](\(ReportText.attemptLogPath(jobID: job.planned.jobID, attempt: $0.number)))" }.joined(separator: ", ")
    }

    package static func statusText(_ s: SuiteStatus) -> String {
        switch s {
        case .green: return "🟢 green"
        case .red: return "🔴 red"
        case .measured: return "📏 measured"
        case .incomplete: return "⚠️ incomplete"
        case .unschedulable: return "⛔ unschedulable"
        case .interrupted: return "⏹ interrupted"
        }
    }

    package static func stat(_ s: ProbeSummary.Series) -> String {
        let mean = ReportText.metric(s.mean, unit: s.unit)
        guard s.finite.count > 1 else { return ReportText.markdown(mean) }
        return ReportText.markdown("\(mean) (\(ReportText.metric(s.min, unit: s.unit))–\(ReportText.metric(s.max, unit: s.unit)))")
    }
}
