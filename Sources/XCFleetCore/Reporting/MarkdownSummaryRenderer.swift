import Foundation
import XCFleetModel

/// `summary.md`: a short Markdown summary for a pull-request comment or a CI job summary —
/// verdict, counts per suite, failures with `file:line`, probe highlights per host, infra notes.
/// No links; every string from a host or a test is escaped.
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

        // Counts per suite.
        out.append("| Suite | Kind | Status | Passed | Failed | Skipped | Not run | Flaky | Jobs |")
        out.append("|---|---|---|--:|--:|--:|--:|--:|--:|")
        var failures: [(suite: String, host: String, line: String)] = []
        var flaky: [String] = []
        let knownFlaky = TrendSummary.flakyIndex(report)
        for suite in report.suites {
            var n = (passed: 0, failed: 0, skipped: 0, notRun: 0, flaky: 0)
            // Tests of jobs that never started: one line per suite and reason, not one per test.
            var neverStarted: [(reason: String, count: Int)] = []
            for job in suite.jobs {
                let host = job.decisive?.host ?? "unscheduled"
                if let mutant = job.planned.mutant {
                    if ReportFacts.isRed(job) {
                        n.failed += 1
                        failures.append((suite.spec.name, host, "mutant \(md(mutant)) — \(md(ReportText.clip(ReportFacts.reason(job), maxMessageLength)))"))
                    } else {
                        n.passed += 1
                    }
                    continue
                }
                for o in ReportFacts.outcomes(job) {
                    switch o.status {
                    case .passed: n.passed += 1
                    case .skipped: n.skipped += 1
                    case .failed where o.quarantined:
                        break // the Quarantined section shows it
                    case .failed:
                        n.failed += 1
                        let f = o.failures.first ?? FailureDetail(message: "failed")
                        let loc = ReportText.location(f).map { "\(md($0)) — " } ?? ""
                        failures.append((suite.spec.name, host, "\(md(o.id.description)) — \(loc)\(md(ReportText.clip(f.message, maxMessageLength)))"
                                         + Self.flakySuffix(knownFlaky, suite: job.planned.suite, test: o.id)))
                    case .notRun:
                        n.notRun += 1
                        if ReportFacts.isRed(job) && job.decisive == nil {
                            let why = o.notRunReason ?? job.finalState.rawValue
                            if let i = neverStarted.firstIndex(where: { $0.reason == why }) { neverStarted[i].count += 1 } else { neverStarted.append((why, 1)) }
                        } else if ReportFacts.isRed(job) {
                            failures.append((suite.spec.name, host, "\(md(o.id.description)) — not run: \(md(ReportText.clip(o.notRunReason ?? "", maxMessageLength)))"))
                        }
                    }
                    if o.flaky {
                        n.flaky += 1
                        let hosts = o.earlier.map { "attempt \($0.attempt) on \(md($0.host))" }.joined(separator: ", ")
                        flaky.append("\(md(suite.spec.name)) · \(md(o.id.description)) — failed in \(hosts.isEmpty ? "an earlier attempt" : hosts), passed on \(md(host))")
                    }
                }
                let details = ReportFacts.jobLevelDetails(job)
                if ReportFacts.isRed(job) || !(job.decisive?.crashes.isEmpty ?? true) {
                    for d in details {
                        failures.append((suite.spec.name, host, "job \(md(job.planned.jobID)) — \(md(ReportText.clip(d, maxMessageLength)))"))
                    }
                }
            }
            for (why, count) in neverStarted {
                failures.append((suite.spec.name, "unscheduled", "\(count) test\(count == 1 ? "" : "s") not run: \(md(ReportText.clip(why, maxMessageLength)))"))
            }
            let status = Self.statusText(suite.status)
            out.append("| \(md(suite.spec.name)) | \(suite.spec.kind.rawValue) | \(status) | \(n.passed) | \(n.failed) | \(n.skipped) | \(n.notRun) | \(n.flaky) | \(suite.jobs.count) |")
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
            out.append("### Failures (\(failures.count))")
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
        out += historyLines(report)
        out.append("Totals: \(report.totals.jobs) jobs, \(report.totals.attempts) attempts · tests \(report.totals.testsPassed) passed, \(report.totals.countedFailed) failed, \(report.totals.quarantinedFailed.map { "\($0) quarantined failed, " } ?? "")\(report.totals.testsSkipped) skipped, \(report.totals.flakyTests) flaky")
        return out.joined(separator: "\n") + "\n"
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
