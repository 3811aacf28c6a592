import Foundation
import XCFleetModel

/// `junit.xml` in the surefire dialect (validates against Jenkins' `junit-10.xsd`).
///
/// Shape: a `testsuites` root with totals; one `testsuite` per plan suite × host (`suite@host`,
/// the host of each job's decisive attempt; `suite@unscheduled` for jobs that never ran).
/// - a test's result in the decisive attempt → `testcase` (`failure` text is `file:line: message`);
///   failures in earlier attempts of the same job → `flakyFailure` (it passed at last) or
///   `rerunFailure` (it failed again);
/// - an expected manifest test the decisive attempt never reported, in a red job → `error`
///   `not run: <reason>` (type `not-run`);
/// - problems no test carries (infra failure, timeout, crash, build error, unattributed failure)
///   → one extra `testcase` named `xcfleet job <id>` with an `error`;
/// - a mutant job → one `testcase` `mutant <name>`: passes when the job failed (mutant killed),
///   fails when it passed (survived); the mutant's individual test failures are expected and go to `system-out`.
/// - a quarantined test (docs/history.md, "Quarantine") that failed → `skipped` with message
///   `quarantined: REASON (owner O, expires D) — failed: MESSAGE` and the failure lines as text
///   (CI test views list skipped tests with their message; a failure there would read as red);
///   one that passed → passes, with the quarantine in `system-out`; entries never seen → suite
///   properties `quarantine.not-seen`.
/// Probe suites are reported the same way (property `kind=probe`); their failures are real
/// test failures even though probes never change xcfleet's exit code.
public struct JUnitReportRenderer: ReportRendering {
    public let fileName = "junit.xml"

    public init() {}

    public func render(_ report: RunReport) throws -> Data {
        Data(xml(report).utf8)
    }

    private struct Case {
        var classname: String
        var name: String
        var time: Double?
        /// Child elements, already rendered.
        var body: [String] = []
        var failures = 0
        var errors = 0
        var skipped = 0
    }

    private struct Block {
        var suite: SuiteReport
        var host: String
        var jobs: [JobReport] = []
    }

    /// The document as a string (UTF-8, LF line ends, two-space indent).
    public func xml(_ report: RunReport) -> String {
        var blocks: [Block] = []
        for suite in report.suites {
            var byHost: [String: Int] = [:]
            for job in suite.jobs {
                let host = job.decisive?.host ?? "unscheduled"
                if let i = byHost[host] {
                    blocks[i].jobs.append(job)
                } else {
                    byHost[host] = blocks.count
                    blocks.append(Block(suite: suite, host: host, jobs: [job]))
                }
            }
        }
        var suitesXML: [String] = []
        var total = (tests: 0, failures: 0, errors: 0)
        for block in blocks {
            let cases = block.jobs.flatMap { testCases(for: $0, suite: block.suite.spec, report: report) }
            let failures = cases.reduce(0) { $0 + $1.failures }
            let errors = cases.reduce(0) { $0 + $1.errors }
            let skipped = cases.reduce(0) { $0 + $1.skipped }
            let time = cases.reduce(0.0) { $0 + (($1.time ?? 0).isFinite ? max(0, $1.time ?? 0) : 0) }
            total.tests += cases.count
            total.failures += failures
            total.errors += errors
            let suiteAttributes: [(String, String)] = [
                ("name", "\(block.suite.spec.name)@\(block.host)"),
                ("tests", String(cases.count)), ("failures", String(failures)), ("errors", String(errors)),
                ("skipped", String(skipped)), ("time", ReportText.junitSeconds(time)), ("hostname", block.host),
            ]
            var x = "  <testsuite" + attrs(suiteAttributes) + ">\n"
            x += "    <properties>\n"
            for (name, value) in properties(block) + quarantineProperties(report, suite: block.suite.spec.name) {
                x += "      <property" + attrs([("name", name), ("value", value)]) + "/>\n"
            }
            x += "    </properties>\n"
            for c in cases {
                var open = "    <testcase" + attrs([("name", c.name), ("classname", c.classname), ("time", ReportText.junitSeconds(c.time))])
                if c.body.isEmpty {
                    open += "/>\n"
                    x += open
                } else {
                    x += open + ">\n"
                    for b in c.body { x += "      " + b + "\n" }
                    x += "    </testcase>\n"
                }
            }
            let retried = block.jobs.flatMap { job in ReportFacts.infraRetries(job).map { (job, $0) } }
            let elsewhere = retriedElsewhere(report: report, suite: block.suite, host: block.host)
            // What no test carries (a crash no test was running, build errors, an abnormal exit), per job.
            let jobLines = block.jobs.filter { $0.planned.mutant == nil && ReportFacts.isRed($0) }.flatMap { job in
                ReportFacts.jobLevelDetails(job).map { "job \(job.planned.jobID): \($0)" }
            }
            // Attachments no test claimed: the suite's own (the readers give them to each of its cases).
            let unclaimed = block.jobs.flatMap { ReportAttachments.junitLines(ReportAttachments.unclaimed($0)) }
            let leftOut = block.jobs.flatMap { job in ReportAttachments.leftOut(job).map { "job \(job.planned.jobID): attachment not fetched: " + ReportAttachments.label($0) } }
            if !unclaimed.isEmpty { x += "    <system-out>" + ReportText.xmlText(unclaimed.joined(separator: "\n")) + "</system-out>\n" }
            if !retried.isEmpty || !elsewhere.isEmpty || !jobLines.isEmpty || !leftOut.isEmpty {
                var text: [String] = jobLines
                for (job, a) in retried {
                    text.append("job \(job.planned.jobID) attempt \(a.number) on \(a.host) was retried: \(attemptProblem(a))")
                }
                text.append(contentsOf: elsewhere)
                text.append(contentsOf: leftOut)
                x += "    <system-err>" + ReportText.xmlText(text.joined(separator: "\n")) + "</system-err>\n"
            }
            x += "  </testsuite>\n"
            suitesXML.append(x)
        }
        var out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        let rootAttributes: [(String, String)] = [
            ("name", report.planName), ("tests", String(total.tests)), ("failures", String(total.failures)),
            ("errors", String(total.errors)), ("time", ReportText.junitSeconds(report.duration)),
        ]
        out += "<testsuites" + attrs(rootAttributes) + ">\n"
        out += suitesXML.joined()
        out += "</testsuites>\n"
        return out
    }

    /// Infra attempts on `host` of jobs whose decisive attempt ran on another host.
    private func retriedElsewhere(report: RunReport, suite: SuiteReport, host: String) -> [String] {
        var lines: [String] = []
        for job in suite.jobs where (job.decisive?.host ?? "unscheduled") != host {
            for a in ReportFacts.infraRetries(job) where a.host == host {
                lines.append("job \(job.planned.jobID) attempt \(a.number) on \(a.host) failed and was retried on \(job.decisive?.host ?? "-"): \(attemptProblem(a))")
            }
        }
        return lines
    }

    private func attemptProblem(_ a: AttemptReport) -> String {
        if let e = a.infraError { return e }
        if let p = a.timedOutPhase { return "timed out in \(p.rawValue)" }
        if !a.problems.isEmpty { return a.problems.joined(separator: "; ") }
        return "did not finish"
    }

    private func properties(_ block: Block) -> [(String, String)] {
        let spec = block.suite.spec
        var p: [(String, String)] = [("host", block.host), ("kind", spec.kind.rawValue), ("suite", spec.name),
                                     ("suite-status", block.suite.status.rawValue)]
        if let d = spec.destination { p.append(("destination", d)) }
        if let x = spec.xcode { p.append(("toolchain", "Xcode \(x)")) }
        for job in block.jobs {
            let j = job.planned
            let id = j.jobID
            p.append(("job", id))
            p.append(("\(id).state", job.finalState.rawValue))
            p.append(("\(id).attempt", "\(job.attempts.count)"))
            p.append(("\(id).shard", "\(j.shard &+ 1)/\(j.shardCount)"))
            p.append(("\(id).repetition", "\(j.repetition &+ 1)"))
            if let m = j.mutant { p.append(("\(id).mutant", m)) }
        }
        return p
    }

    private func testCases(for job: JobReport, suite: SuiteSpec, report: RunReport) -> [Case] {
        let suffix: String = {
            var parts: [String] = []
            if suite.repetitions > 1 { parts.append("run \(job.planned.repetition &+ 1)/\(suite.repetitions)") }
            return parts.isEmpty ? "" : " [" + parts.joined(separator: ", ") + "]"
        }()
        if let mutant = job.planned.mutant { return [mutantCase(job, suite: suite, mutant: mutant)] }
        var cases: [Case] = []
        let attached = ReportAttachments.byTest(job)
        for o in ReportFacts.ordered(ReportFacts.outcomes(job)) {
            var c = Case(classname: o.id.suite.isEmpty ? suite.name : o.id.suite, name: o.id.name + suffix, time: o.seconds)
            let entry = o.quarantined ? report.quarantineEntry(suite: suite.name, id: o.id) : nil
            let note = entry.map { "quarantined (not forgiven: \(o.category.rawValue)): \($0.reason) (owner \($0.owner), expires \($0.expires))" }
            let text = o.failures.map(ReportText.failureLine).joined(separator: "\n")
            switch o.category {
            case .passed, .flaky:
                for e in o.earlier { c.body.append(rerun("flakyFailure", e)) }
                if let entry { c.body.append("<system-out>" + ReportText.xmlText("quarantined: \(entry.reason) (owner \(entry.owner), expires \(entry.expires)) — passed") + "</system-out>") }
            case .quarantined:
                if let entry { quarantined(&c, o, entry) } else {
                    c.body.append(element("skipped", [("message", "quarantined — failed"), ("type", "quarantined")], text: text))
                    c.skipped = 1
                }
            case .failed:
                let first = o.failures.first ?? FailureDetail(message: "failed")
                // Never an empty element: a failure with no printed line still says what failed.
                c.body.append(element("failure", [("message", first.message), ("type", failureType(first))],
                                      text: ([note].compactMap { $0 } + [text.isEmpty ? first.message : text]).filter { !$0.isEmpty }.joined(separator: "\n")))
                c.failures = 1
                for e in o.earlier { c.body.append(rerun("rerunFailure", e)) }
            case .crashed, .timedOut:
                var first = o.failures.first?.message ?? o.notRunReason ?? o.category.rawValue
                if first.hasPrefix("crashed: ") { first.removeFirst("crashed: ".count) }
                let type = o.category == .crashed ? "crashed" : "timed-out"
                let trace = o.category == .crashed ? ReportText.backtraceExcerpt(job.decisive?.backtrace, limit: AttemptReport.backtraceLimit).map { "backtrace: " + $0 } : nil
                c.body.append(element("error", [("message", "\(o.category.rawValue): \(first)"), ("type", type)],
                                      text: ([note].compactMap { $0 } + [text.isEmpty ? first : text] + [trace].compactMap { $0 }).joined(separator: "\n")))
                c.errors = 1
                for e in o.earlier { c.body.append(rerun("rerunFailure", e)) }
            case .skipped:
                c.body.append(element("skipped", [("message", o.skipReason ?? "skipped")], text: nil))
                c.skipped = 1
            case .notRun:
                let reason = "not run: " + (o.notRunReason ?? job.finalState.rawValue)
                c.body.append(element("error", [("message", reason), ("type", "not-run")], text: reason))
                c.errors = 1
            }
            // The decisive execution's files, then those of earlier failed attempts (a flaky test's evidence).
            let lines = ReportAttachments.junitLines((attached[o.id] ?? []) + o.earlier.flatMap(\.attachments))
            if !lines.isEmpty { c.body.append("<system-out>" + ReportText.xmlText(lines.joined(separator: "\n")) + "</system-out>") }
            cases.append(c)
        }
        // A red job none of whose tests is red (infra failure, build error, an abnormal exit after
        // every test passed) gets one extra testcase carrying why; otherwise its tests carry it.
        let anyRed = cases.contains { $0.failures + $0.errors > 0 }
        if ReportFacts.isRed(job) && !anyRed {
            let details = ReportFacts.jobLevelDetails(job)
            var c = Case(classname: suite.name, name: "xcfleet job \(job.planned.jobID)\(suffix)",
                         time: job.decisive.flatMap { a in a.end.map { $0 - a.start } })
            let message = "\(job.finalState.rawValue): \(ReportFacts.reason(job))"
            c.body.append(element("error", [("message", message), ("type", job.finalState.rawValue)],
                                  text: (details.isEmpty ? [message] : details).joined(separator: "\n")))
            c.errors = 1
            cases.append(c)
        }
        return cases
    }

    /// A quarantined test's forgiven failure: skipped-with-reason (CI test views list skipped tests
    /// with their message; a failure there would read as red).
    private func quarantined(_ c: inout Case, _ o: TestOutcome, _ entry: QuarantineEntry) {
        let what = "quarantined: \(entry.reason) (owner \(entry.owner), expires \(entry.expires))"
        let first = o.failures.first ?? FailureDetail(message: "failed")
        c.body.append(element("skipped", [("message", "\(what) — failed: \(first.message)"), ("type", "quarantined")],
                              text: o.failures.map(ReportText.failureLine).joined(separator: "\n")))
        c.skipped = 1
    }

    /// `quarantine.not-seen`: the suite's entries whose test the run never reported.
    private func quarantineProperties(_ report: RunReport, suite: String) -> [(String, String)] {
        (report.quarantine?.tests ?? []).filter { $0.entry.suite == suite && $0.outcome == .notSeen }.map {
            ("quarantine.not-seen", "\($0.entry.test): \($0.entry.reason) (owner \($0.entry.owner), expires \($0.entry.expires))")
        }
    }

    private func mutantCase(_ job: JobReport, suite: SuiteSpec, mutant: String) -> Case {
        var c = Case(classname: suite.name, name: "mutant \(mutant)",
                     time: job.decisive.flatMap { a in a.end.map { $0 - a.start } })
        let killedBy = (job.decisive?.tests ?? []).filter { $0.status == .failed }
        switch job.finalState {
        case .failed:
            break // killed: the gate suite failed against the mutant, as it must
        case .passed, .flaky:
            c.body.append(element("failure", [("message", "mutant \(mutant) survived: \(ReportFacts.reason(job))"), ("type", "mutant-survived")],
                                  text: ReportFacts.reason(job)))
            c.failures = 1
        case .timedOut, .infraFailed, .unschedulable, .interrupted:
            let message = "\(job.finalState.rawValue): \(ReportFacts.reason(job))"
            c.body.append(element("error", [("message", message), ("type", job.finalState.rawValue)], text: message))
            c.errors = 1
        }
        if !killedBy.isEmpty {
            let text = killedBy.map { t in
                "killed by \(t.id): " + (t.failures.first.map(ReportText.failureLine) ?? "failed")
            }.joined(separator: "\n")
            c.body.append("<system-out>" + ReportText.xmlText(text) + "</system-out>")
        }
        return c
    }

    private func rerun(_ name: String, _ e: TestOutcome.EarlierRun) -> String {
        let first = e.failures.first ?? FailureDetail(message: "failed")
        let text = "attempt \(e.attempt) on \(e.host)\n" + e.failures.map(ReportText.failureLine).joined(separator: "\n")
        return element(name, [("message", first.message), ("type", failureType(first))], text: text)
    }

    private func failureType(_ f: FailureDetail) -> String {
        f.file == nil ? "failure" : "assertion"
    }

    private func element(_ name: String, _ attributes: [(String, String)], text: String?) -> String {
        let open = "<\(name)" + attrs(attributes)
        guard let text, !text.isEmpty else { return open + "/>" }
        return open + ">" + ReportText.xmlText(text) + "</\(name)>"
    }

    private func attrs(_ pairs: [(String, String)]) -> String {
        var b = ""
        for (name, value) in pairs { b += " \(name)=\"\(ReportText.xmlAttribute(value))\"" }
        return b
    }
}
