import Foundation
import XCFleetBasics
import XCFleetModel

/// `report.html`: one self-contained page (inline CSS and SVG, no script, no external asset)
/// for a reviewer — verdict banner, gates, probes with charts, a timeline of every job's
/// phases per host slot, infrastructure notes and the C13 review checklist. Every string
/// from a host or a test is HTML-escaped.
public struct HTMLReportRenderer: ReportRendering {
    public let fileName = "report.html"
    /// Adds a "Compared with" section (from `RunComparison.compare`).
    public var comparison: RunComparison?
    /// The report's forge while rendering: locations link to the file at the run's commit.
    private var forge: ForgeLink?
    /// Known-flaky tests from the run's history context (suite + `Class/name`).
    private var knownFlaky: [String: HistoryContext.KnownFlaky] = [:]

    public init(comparison: RunComparison? = nil) {
        self.comparison = comparison
    }

    public func render(_ report: RunReport) throws -> Data {
        Data(html(report).utf8)
    }

    package func h(_ s: String) -> String { ReportText.html(s) }

    /// The page's Content-Security-Policy: nothing may load or run but the one `<style>` element
    /// it carries (by its SHA-256), its `style` attributes and images of its own origin (the run
    /// directory's attachments) — no script at all, no remote image, no font, frame, form target
    /// or base URL. An injected `<script>` or `javascript:` link does nothing.
    /// `style-src 'unsafe-inline'` is only for browsers without `style-src-elem`/`-attr` (CSP 3):
    /// a browser that knows hashes ignores it.
    static func contentSecurityPolicy(style: String) -> String {
        let hash = Data(SHA256.hash(Array(style.utf8))).base64EncodedString()
        let policy = "default-src 'none'; img-src 'self'; style-src 'unsafe-inline' 'sha256-\(hash)'; style-src-elem 'sha256-\(hash)'; style-src-attr 'unsafe-inline'; base-uri 'none'; form-action 'none'"
        return "<meta http-equiv=\"Content-Security-Policy\" content=\"\(policy)\">\n"
    }

    public func html(_ report: RunReport) -> String {
        var me = self
        me.forge = report.forge
        me.knownFlaky = TrendSummary.flakyIndex(report)
        return me.page(report)
    }

    private func page(_ report: RunReport) -> String {
        let palette = HostPalette(report)
        var b = ""
        b += "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        b += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
        b += "<title>xcfleet · \(h(report.planName)) · \(h(report.runID))</title>\n"
        let style = "\n\(Self.css)\n\(report.history == nil ? "" : Self.trendsCSS + "\n")"
        b += Self.contentSecurityPolicy(style: style)
        b += "<style>\(style)</style>\n</head>\n<body>\n"
        b += banner(report)
        b += "<main>\n"
        b += "<nav class=\"toc\"><a href=\"#gates\">Gates</a><a href=\"#probes\">Probes</a>\(historyLinks(report))<a href=\"#timeline\">Timeline</a><a href=\"#infra\">Infrastructure</a><a href=\"#checklist\">Review checklist</a>\(report.quarantine == nil ? "" : "<a href=\"#quarantine\">Quarantine</a>")\(report.certificates == nil ? "" : "<a href=\"#certificate\">Certificate</a>")\(comparison == nil ? "" : "<a href=\"#comparison\">Comparison</a>")</nav>\n"
        b += cards(report)
        b += gates(report)
        b += QuarantineSections.html(report)
        b += CertificateSections.html(report)
        b += probes(report, palette: palette)
        b += historySections(report)
        b += "<section id=\"timeline\">\n<h2>Timeline</h2>\n"
        b += "<p class=\"note\">Every attempt's phases on each host slot, in seconds since the run started. Hover a bar for details.</p>\n"
        b += timeline(report)
        b += buildsTable(report)
        b += PushSummary(report).html
        b += "</section>\n"
        b += infra(report)
        b += checklist(report)
        if let comparison {
            b += RunComparisonRenderer.htmlSection(comparison)
        }
        b += "<footer>xcfleet \(h(report.xcfleetVersion)) · plan \(h(report.planPath)) · run \(h(report.runID)) · started \(h(report.startedAt))</footer>\n"
        b += "</main>\n</body>\n</html>\n"
        return b
    }

    // MARK: Banner and cards

    private func banner(_ r: RunReport) -> String {
        let headline = Verdict.headline(r)
        var b = "<header id=\"verdict\" class=\"banner \(headline.tone.rawValue)\"><div class=\"inner\">\n"
        let gateCount = r.gates.count
        let redGates = r.gates.filter { $0.status != .green }
        b += "<h1>\(headline.symbol) \(headline.title)</h1>\n"
        if redGates.isEmpty {
            b += "<div class=\"line\">\(h(r.verdictLine))</div>\n"
        } else {
            b += "<ul>"
            for g in redGates {
                let why = g.reasons.isEmpty ? g.status.rawValue : g.reasons.joined(separator: "; ")
                b += "<li><strong>\(h(g.spec.name))</strong> — \(h(g.status.rawValue)): \(h(why))</li>"
            }
            b += "</ul>\n"
        }
        b += "<div class=\"meta\"><span>plan <strong>\(h(r.planName))</strong></span><span>run \(h(r.runID))</span>"
        b += "<span>started \(h(r.startedAt))</span><span>\(ReportText.duration(r.duration))</span>"
        b += "<span>\(gateCount) gate\(gateCount == 1 ? "" : "s"), \(r.probes.count) probe\(r.probes.count == 1 ? "" : "s")</span>"
        b += "<span>\(r.hosts.count) host\(r.hosts.count == 1 ? "" : "s")</span><span>exit code \(r.exitCode)</span></div>\n"
        b += "</div></header>\n"
        return b
    }

    private func cards(_ r: RunReport) -> String {
        let t = r.totals
        let f = t.tests
        func card(_ n: Int, _ k: String, _ cls: String) -> String {
            "<div class=\"card \(n > 0 ? cls : "")\"><div class=\"n\">\(n)</div><div class=\"k\">\(k)</div></div>"
        }
        // The run's figures (ReportFigures), every category, as every other report prints them.
        var b = "<div class=\"cards\">"
        b += card(f.passed, "passed", "ok")
        b += card(f.failed, "failed", "bad")
        b += card(f.crashed, "crashed", "bad")
        b += card(f.timedOut, "timed out", "bad")
        b += card(f.notRun, "not run", "bad")
        b += card(f.quarantined, "quarantined failures", "")
        b += card(f.flaky, "flaky", "warn")
        b += card(f.skipped, "skipped", "")
        b += card(t.jobs, "jobs", "")
        b += card(t.attempts, "attempts", "")
        let infraFailed = t.jobsByState[JobFinalState.infraFailed.rawValue] ?? 0
        let unsched = t.jobsByState[JobFinalState.unschedulable.rawValue] ?? 0
        b += card(infraFailed + unsched, "infra / unschedulable", "warn")
        b += "</div>\n"
        return b
    }

    // MARK: Suites

    private func gates(_ r: RunReport) -> String {
        var b = "<section id=\"gates\">\n<h2>Gates</h2>\n"
        b += "<p class=\"note\">Merge gates: their verdict is the exit code. Green only when proven green — exit 0, every expected test observed, no failure, crash or timeout.</p>\n"
        if r.gates.isEmpty { b += "<p class=\"note\">No gate suites in this plan.</p>\n" }
        for s in r.gates { b += suite(s) }
        b += "</section>\n"
        return b
    }

    private func probes(_ r: RunReport, palette: HostPalette) -> String {
        var b = "<section id=\"probes\">\n<h2>Probes</h2>\n"
        b += "<p class=\"note\">Diagnostics (C8, C9): hit rate and memory change under pressure, per host. They never change the exit code. Dots are means over repetitions, whiskers the min–max spread.</p>\n"
        if r.probes.isEmpty { b += "<p class=\"note\">No probe suites in this plan.</p>\n" }
        let summary = ProbeSummary(r)
        for s in r.probes {
            let groups = summary.groups.filter { $0.suite == s.spec.name }
            var charts = ""
            for g in groups { charts += chart(g, palette: palette) }
            if !groups.isEmpty { charts = "<div class=\"charts\">\n" + charts + "</div>\n" }
            if groups.isEmpty { charts = "<p class=\"note\">No metrics were recorded.</p>\n" }
            b += suite(s, extra: charts)
        }
        b += "</section>\n"
        return b
    }

    private func suite(_ s: SuiteReport, extra: String = "") -> String {
        var killed = 0, survived = 0
        var hosts: [String] = []
        var jobsByHost: [String: [JobReport]] = [:]
        for job in s.jobs {
            let host = job.decisive?.host ?? "unscheduled"
            if jobsByHost[host] == nil { hosts.append(host) }
            jobsByHost[host, default: []].append(job)
            if job.planned.mutant != nil {
                if ReportFacts.isRed(job) { survived += 1 } else { killed += 1 }
            }
        }
        let f = s.figures ?? TestFigures()
        let open = s.status != .green && s.status != .measured || !extra.isEmpty
        var b = "<details class=\"suite\"\(open ? " open" : "")><summary>"
        b += "<span class=\"pill \(s.status.rawValue)\">\(h(s.status.rawValue))</span>"
        b += "<span class=\"name\">\(h(s.spec.name))</span>"
        b += "<span class=\"cls\">\(h(s.spec.template))</span>"
        var counts = killed + survived > 0 && f.total == 0 ? "\(killed) killed" : f.text
        if killed + survived > 0 && f.total > 0 { counts += " · \(killed) killed" }
        if survived > 0 { counts += " · \(survived) not killed" }
        counts += " · \(s.jobs.count) job\(s.jobs.count == 1 ? "" : "s")"
        b += "<span class=\"counts\">\(counts)</span></summary>\n<div class=\"body\">\n"
        var props: [String] = []
        if let d = s.spec.destination { props.append("destination \(h(d))") }
        if let x = s.spec.xcode { props.append("Xcode \(h(x))") }
        if s.spec.shards > 1 { props.append("\(s.spec.shards) shards") }
        if s.spec.repetitions > 1 { props.append("\(s.spec.repetitions) repetitions") }
        if !s.spec.requires.isEmpty { props.append("requires \(h(s.spec.requires.joined(separator: ", ")))") }
        if !props.isEmpty { b += "<div class=\"props\">\(props.joined(separator: " · "))</div>\n" }
        if !s.reasons.isEmpty, s.status != .green, s.status != .measured {
            b += "<div class=\"reasons\"><ul>" + s.reasons.map { "<li>\(h($0))</li>" }.joined() + "</ul></div>\n"
        }
        b += extra
        for host in hosts {
            let jobs = jobsByHost[host] ?? []
            b += hostBlock(host: host, jobs: jobs, spec: s.spec, collapse: !extra.isEmpty)
        }
        b += "</div></details>\n"
        return b
    }

    private func hostBlock(host: String, jobs: [JobReport], spec: SuiteSpec, collapse: Bool) -> String {
        let regular = jobs.filter { $0.planned.mutant == nil }
        let mutants = jobs.filter { $0.planned.mutant != nil }
        var b = ""
        if collapse { b += "<details><summary>Tests on \(h(host))</summary>\n" } else { b += "<h4>on \(h(host))</h4>\n" }
        if !regular.isEmpty {
            let head = "<div class=\"table-wrap\"><table class=\"tests\"><thead><tr><th class=\"st\">Status</th><th>Test</th><th class=\"num dur\">Duration</th><th class=\"num hide-sm att\">Attempts</th></tr></thead><tbody>\n"
            b += head
            // A large block keeps its plain passes in a closed <details>: the browser does not lay
            // them out until opened (20,000 tests render in about a second; bench/report).
            let fold = regular.reduce(0) { $0 + max($1.planned.expectedTests.count, $1.decisive?.tests.count ?? 0) } > Self.foldPassedAbove
            var passedRows = "", passedCount = 0
            // Failures first across the block's jobs (crashed, timed out, failed, not run, …); a job's
            // not-run tests are one row under their cause, not one row each.
            var rows: [(rank: Int, order: Int, html: String, plainPass: Bool)] = []
            for job in regular {
                let label = ReportFacts.jobLabel(job, suite: spec)
                let retries = ReportFacts.infraRetries(job)
                let outcomes = ReportFacts.outcomes(job)
                let notRun = outcomes.filter { $0.category == .notRun }
                let attached = ReportAttachments.byTest(job)
                for o in outcomes where o.category != .notRun {
                    let plain = o.category == .passed && retries.isEmpty && knownFlaky[TrendSummary.key(suite: job.planned.suite, test: o.id)] == nil
                    rows.append((o.rank, rows.count, testRow(o, job: job, label: label, retries: retries, attached: attached[o.id] ?? []), plain))
                }
                if !notRun.isEmpty { rows.append((3, rows.count, notRunRow(notRun, job: job, label: label), false)) }
                let details = ReportFacts.jobLevelDetails(job)
                if !details.isEmpty {
                    var row = "<tr><td><span class=\"pill error\">\(h(job.finalState.rawValue))</span></td><td class=\"test\">job \(h(job.planned.jobID))"
                    if !label.isEmpty { row += " <span class=\"cls\">\(h(label))</span>" }
                    row += "<div class=\"fail\">" + details.map { h($0) }.joined(separator: "\n") + "</div>" + logLinks(job) + "</td>"
                    row += "<td class=\"num\">\(ReportText.duration(job.decisive.flatMap { a in a.end.map { $0 - a.start } }))</td><td class=\"num hide-sm\">\(job.attempts.count)</td></tr>\n"
                    rows.append((-1, rows.count, row, false))
                }
                if let row = attachmentsRow(job, label: label) { rows.append((3, rows.count, row, false)) }
            }
            // Ranks -1 (a job's own problems) to 7 (passed), in the order added within a rank.
            for row in ReportFacts.byRank(rows, ranks: 9, { $0.rank + 1 }) {
                if fold, row.plainPass {
                    passedRows += row.html
                    passedCount += 1
                } else {
                    b += row.html
                }
            }
            b += "</tbody></table></div>\n"
            if passedCount > 0 { b += "<details class=\"passes\"><summary>\(passedCount) passed test\(passedCount == 1 ? "" : "s") on \(h(host))</summary>\n" + head + passedRows + "</tbody></table></div></details>\n" }
        }
        if !mutants.isEmpty {
            b += "<div class=\"table-wrap\"><table class=\"tests\"><thead><tr><th class=\"st\">Result</th><th>Mutant</th><th>Killed by</th></tr></thead><tbody>\n"
            for job in mutants {
                let killed = !ReportFacts.isRed(job)
                let by = (job.decisive?.tests ?? []).filter { $0.status == .failed }.map { h($0.id.description) }
                let result = killed ? "<span class=\"pill killed\">killed</span>"
                    : (job.finalState == .failed ? "<span class=\"pill survived\">survived</span>" : "<span class=\"pill error\">\(h(job.finalState.rawValue))</span>")
                b += "<tr><td>\(result)</td><td class=\"test\"><span class=\"mono\">\(h(job.planned.mutant ?? ""))</span>\(killed ? "" : "<div class=\"fail\">\(h(ReportFacts.reason(job)))</div>")</td><td class=\"test\">\(by.isEmpty ? "—" : by.joined(separator: "<br>"))</td></tr>\n"
            }
            b += "</tbody></table></div>\n"
        }
        if collapse { b += "</details>\n" }
        return b
    }

    /// The raw output of each attempt of the job, as the run directory keeps it (`logs/`).
    private func logLinks(_ job: JobReport) -> String {
        guard !job.attempts.isEmpty else { return "" }
        let links = job.attempts.map { a in
            "<a href=\"\(h(ReportText.attemptLogPath(jobID: job.planned.jobID, attempt: a.number)))\">attempt \(a.number) log</a>"
        }
        return "<div class=\"note\">raw output: " + links.joined(separator: " · ") + "</div>"
    }

    /// One row for every expected test of a job that did not run, under their one cause.
    private func notRunRow(_ tests: [TestOutcome], job: JobReport, label: String) -> String {
        var b = "<tr><td><span class=\"pill notrun\">not run</span></td><td class=\"test\">"
        b += "<strong>\(tests.count) test\(tests.count == 1 ? "" : "s") not run</strong>"
        if !label.isEmpty { b += " <span class=\"cls\">\(h(label))</span>" }
        // A job that never started: the suite's reasons above say why, once.
        if job.decisive != nil {
            b += "<div class=\"fail\">\(h(ReportText.notRunLine(count: tests.count, reason: tests[0].notRunReason ?? ReportFacts.notRunReason(job))))</div>"
        } else {
            b += "<div class=\"note\">the job never started (the suite's reasons say why)</div>"
        }
        b += "<details><summary>the \(tests.count) test\(tests.count == 1 ? "" : "s")</summary><ul class=\"mono\">"
        b += tests.map { t in
            "<li>\(h(t.id.description)) " + t.contractIDs.map { "<span class=\"chip \($0.hasPrefix("K") ? "k" : "c")\">\(h($0))</span>" }.joined() + "</li>"
        }.joined()
        b += "</ul></details>" + logLinks(job)
        b += "</td><td class=\"num\">—</td><td class=\"num hide-sm\">\(job.attempts.count)</td></tr>\n"
        return b
    }

    private func testRow(_ o: TestOutcome, job: JobReport, label: String, retries: [AttemptReport], attached: [AttachmentFile]) -> String {
        let pillClass: String
        switch o.category {
        case .passed: pillClass = "passed"
        case .failed, .crashed, .timedOut: pillClass = "failed"
        case .skipped: pillClass = "skipped"
        case .quarantined: pillClass = "quarantined"
        case .notRun: pillClass = "notrun"
        case .flaky: pillClass = "flaky"
        }
        var b = "<tr\(o.quarantined ? " class=\"quarantined\"" : "")><td><span class=\"pill \(pillClass)\">\(o.category.rawValue)</span>"
        if o.quarantined, o.category != .quarantined { b += " <span class=\"pill quarantined\" title=\"in the quarantine file: its failure does not make the gate red\">quarantined</span>" }
        if o.flaky, o.category != .flaky { b += " <span class=\"pill flaky\" title=\"failed in an earlier attempt, then passed\">flaky</span>" }
        if let f = knownFlaky[TrendSummary.key(suite: job.planned.suite, test: o.id)] { b += knownFlakyPill(f) }
        if !retries.isEmpty { b += " <span class=\"pill retry\" title=\"an earlier attempt hit an infrastructure failure and was retried\">infra retry</span>" }
        b += "</td><td class=\"test\">"
        if !o.id.suite.isEmpty { b += "<span class=\"cls\">\(h(o.id.suite)) / </span>" }
        b += "<span class=\"mono\">\(h(o.id.name))</span> "
        for c in o.contractIDs { b += "<span class=\"chip \(c.hasPrefix("K") ? "k" : "c")\">\(h(c))</span>" }
        if !label.isEmpty { b += " <span class=\"cls\">\(h(label))</span>" }
        switch o.status {
        case .failed:
            let fs = o.failures.isEmpty ? [FailureDetail(message: "failed")] : o.failures
            for f in fs { b += failureBox(f) }
            if o.category == .crashed, let trace = ReportText.backtraceExcerpt(job.decisive?.backtrace) {
                b += "<div class=\"note\">backtrace: <span class=\"mono\">\(h(trace))</span></div>"
            }
            if o.category != .quarantined { b += logLinks(job) }
        case .notRun:
            b += "<div class=\"fail\">\(h(o.notRunReason ?? ""))</div>" + logLinks(job)
        case .skipped:
            if let r = o.skipReason { b += "<div class=\"note\">skipped: \(h(r))</div>" }
        case .passed:
            break
        }
        b += attachmentsBlock(attached)
        for e in o.earlier {
            let f = e.failures.first ?? FailureDetail(message: "failed")
            b += "<div class=\"note\">attempt \(e.attempt) on \(h(e.host)) failed:</div>" + failureBox(f) + attachmentsBlock(e.attachments)
        }
        for a in retries {
            let problem = a.infraError ?? a.timedOutPhase.map { "timed out in \($0.rawValue)" } ?? "did not finish"
            b += "<div class=\"note\">attempt \(a.number) on \(h(a.host)): \(h(problem)) — retried</div>"
        }
        b += "</td><td class=\"num\">\(ReportText.duration(o.seconds))</td><td class=\"num hide-sm\">\(job.attempts.count)</td></tr>\n"
        return b
    }

    private func failureBox(_ f: FailureDetail) -> String {
        var loc = ReportText.location(f).map { "<span class=\"loc\">\(h($0))</span>: " } ?? ""
        if let forge, let l = f.location, let path = l.repositoryPath, let url = forge.url(path: path, line: l.line).flatMap(ForgeLink.webURL) {
            loc = "<a class=\"loc\" href=\"\(h(url))\">\(h(l.display))</a>: "
        }
        return "<div class=\"fail\">\(loc)\(h(f.message))</div>"
    }

    /// Host blocks with more tests than this fold their plain passes into a closed `<details>`.
    package static let foldPassedAbove = 200

    // MARK: Builds

    /// Where each attempt's build came from and what it cost (docs/builds.md).
    package func buildsTable(_ r: RunReport) -> String {
        let builds = BuildSummary(r)
        guard !builds.rows.isEmpty else { return "" }
        var b = "<details><summary>Builds: \(h(builds.line))</summary><div class=\"table-wrap\"><table><thead><tr><th>Job</th><th class=\"num\">Attempt</th><th>Host</th><th>Build</th><th class=\"num\">Time</th><th class=\"num\">Waited</th><th>Key</th></tr></thead><tbody>\n"
        for row in builds.rows {
            let x = row.build
            b += "<tr><td>\(h(row.jobID))</td><td class=\"num\">\(row.attempt)</td><td>\(h(x.host))</td><td>\(h(x.originText))"
            if let u = x.untrusted { b += "<div class=\"fail\">rebuilt: \(h(u))</div>" }
            b += "</td><td class=\"num\">\(ReportText.fixed(x.seconds, 1)) s</td><td class=\"num\">\(ReportText.fixed(x.waitedSeconds, 1)) s</td><td class=\"mono\">\(h(String(x.key.prefix(12))))</td></tr>\n"
        }
        return b + "</tbody></table></div></details>\n"
    }

    // MARK: Infrastructure and checklist

    private func infra(_ r: RunReport) -> String {
        var items: [String] = []
        for (host, why) in r.hostsSetAside.sorted(by: { $0.key < $1.key }) {
            items.append("<li>host <strong>\(h(host))</strong> set aside: \(h(why))</li>")
        }
        for s in r.suites {
            for job in s.jobs {
                for a in ReportFacts.infraRetries(job) {
                    let problem = a.infraError ?? a.timedOutPhase.map { "timed out in \($0.rawValue)" } ?? "did not finish"
                    items.append("<li>job \(h(job.planned.jobID)) attempt \(a.number) on <strong>\(h(a.host))</strong>: \(h(problem)) — retried on \(h(job.decisive?.host ?? "-"))</li>")
                }
                if job.finalState == .unschedulable || job.finalState == .infraFailed {
                    items.append("<li>job \(h(job.planned.jobID)) (\(h(s.spec.name))) \(h(job.finalState.rawValue)): \(h(ReportFacts.reason(job)))</li>")
                }
            }
        }
        var b = "<section id=\"infra\">\n<h2>Infrastructure</h2>\n"
        b += "<p class=\"note\">Hosts: \(r.hosts.map { h($0) }.joined(separator: ", "))</p>\n"
        if items.isEmpty {
            b += "<p class=\"note\">No infrastructure problems.</p>\n"
        } else {
            b += "<ul>\(items.joined(separator: "\n"))</ul>\n"
        }
        if !r.notes.isEmpty {
            b += "<details><summary>Run log notes (\(r.notes.count))</summary><pre class=\"mono\">\(r.notes.map { h($0) }.joined(separator: "\n"))</pre></details>\n"
        }
        b += "</section>\n"
        return b
    }

    /// C13: the four review questions, with the gate tests that carry the related contract ids.
    package static let checklistItems: [(question: String, ids: [String])] = [
        ("Is the key's account taken from a trusted session?", ["C1", "C7"]),
        ("Does the revision change when content changes?", ["C1"]),
        ("Can an old request write back after logout?", ["C7"]),
        ("Does loading succeed on a miss?", ["C6"]),
    ]

    private func checklist(_ r: RunReport) -> String {
        var b = "<section id=\"checklist\">\n<h2>Review checklist (C13)</h2>\n"
        b += "<p class=\"note\">Questions for the reviewer of the cache code. The evidence column counts gate tests carrying the related contract ids in this run; the answer is the reviewer's.</p>\n"
        b += "<ol class=\"checklist\">\n"
        // Each gate test once (not once per question): only the ones carrying contract ids matter,
        // counted per question as they come (no list of them).
        let items = Self.checklistItems
        var passed = [Int](repeating: 0, count: items.count), failed = passed
        for s in r.gates {
            for job in s.jobs where job.planned.mutant == nil {
                for o in ReportFacts.outcomes(job) where !o.contractIDs.isEmpty {
                    for (q, item) in items.enumerated() where o.contractIDs.contains(where: item.ids.contains) {
                        if o.status == .passed { passed[q] += 1 } else if o.isProblem { failed[q] += 1 }
                    }
                }
            }
        }
        for (q, item) in items.enumerated() {
            let passed = passed[q], failed = failed[q]
            let chips = item.ids.map { "<span class=\"chip c\">\($0)</span>" }.joined()
            var evidence = passed + failed == 0 ? "no test in this run" : "\(passed) passed"
            if failed > 0 { evidence += ", <strong style=\"color:var(--bad)\">\(failed) failed or not run</strong>" }
            b += "<li><span class=\"q\">☐ \(h(item.question))</span> \(chips) <span class=\"note\">— \(evidence)</span></li>\n"
        }
        b += "</ol>\n</section>\n"
        return b
    }
}

/// A stable colour per host across every chart of a page.
package struct HostPalette {
    package static let colors = ["#0969da", "#e16f24", "#1a7f37", "#8250df", "#cf222e", "#1b7c83", "#9a6700", "#bf3989"]
    private var index: [String: Int] = [:]

    package init(_ report: RunReport) {
        var names = report.hosts
        for s in report.suites { for j in s.jobs { for a in j.attempts where !names.contains(a.host) { names.append(a.host) } } }
        for (i, n) in names.enumerated() where index[n] == nil { index[n] = i }
    }

    package func color(_ host: String) -> String {
        Self.colors[(index[host] ?? 0) % Self.colors.count]
    }
}
