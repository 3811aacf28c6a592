import Foundation
@testable import XCFleetKit

// events.jsonl reader → Collator → every renderer. The first byte picks the input form:
// even: the rest is an events.jsonl; odd: the rest is a list of strings (0-separated) put into a
// fixed run (suite, test, host names, failure messages, metrics, notes), so hostile text reaches
// every renderer on every execution. Invariants: junit.xml is well-formed XML, report.html has
// only the renderer's own tags and attributes, summary.md has no raw HTML and no live mention,
// report.json reads back, annotations stay one line each; no report holds a bidi control or a
// line separator raw; report.html links only to its own anchors, http(s) URLs and the attempts' raw logs, under a CSP.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzReports(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    var input = FuzzInput(data, size)
    let events: [RunEvent]
    let mode = input.byte()
    if mode % 2 == 0 {
        guard let decoded = try? EventLog.decode(Data(input.remaining), path: "fuzz/events.jsonl") else { return 0 }
        events = decoded
    } else {
        events = SyntheticRun.events(&input)
        // How the events.jsonl seeds were made: XCFLEET_FUZZ_DUMP=FILE fuzz-reports SYNTHETIC_INPUT.
        if let dump = ProcessInfo.processInfo.environment["XCFLEET_FUZZ_DUMP"] {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            let lines = events.compactMap { try? encoder.encode($0) }.map { String(decoding: $0, as: UTF8.self) + "\n" }
            try? Data(("0" + lines.joined()).utf8).write(to: URL(fileURLWithPath: dump))
        }
    }
    let report = Collator().collate(events)
    check(report, compare: mode & 2 != 0)
    return 0
}

/// `compare`: also the comparison renderers (slow, so only for half the inputs: mode bit 1).
func check(_ report: RunReport, compare: Bool) {
    let junit = JUnitReportRenderer().xml(report)
    if let problem = MarkupCheck.xmlProblem(junit) { invariant(false, "junit.xml is not well-formed: \(problem)") }
    let html = HTMLReportRenderer().html(report)
    if let problem = MarkupCheck.htmlProblem(html) { invariant(false, "report.html: \(problem)") }
    let markdown = MarkdownSummaryRenderer().markdown(report)
    invariant(!markdown.contains("<"), "summary.md holds a raw '<'")
    let scalars = Array(markdown.unicodeScalars)
    for (i, s) in scalars.enumerated() where s == "@" && i + 1 < scalars.count {
        invariant(!(scalars[i + 1].properties.isAlphabetic || scalars[i + 1].properties.numericType != nil), "summary.md holds a live @mention")
    }
    invariant(!markdown.contains("://"), "summary.md holds a live URL")
    do {
        let json = try JSONReportRenderer().render(report)
        _ = try JSONReportRenderer.decode(json)
    } catch {
        invariant(false, "report.json does not round-trip: \(error)")
    }
    for line in GitHubAnnotations.lines(report) {
        invariant(!line.contains("\n") && !line.contains("\r"), "an annotation spans lines")
    }
    if compare {
        let comparison = RunComparison.compare(base: report, head: report)
        let md = RunComparisonRenderer.markdown(comparison)
        invariant(!md.contains("<"), "compare.md holds a raw '<'")
        if let problem = MarkupCheck.htmlProblem(RunComparisonRenderer.htmlPage(comparison)) { invariant(false, "comparison html: \(problem)") }
        if let problem = MarkupCheck.htmlProblem(HTMLReportRenderer(comparison: comparison).html(report)) { invariant(false, "report.html with comparison: \(problem)") }
    }
    // Links: only the page's own anchors, http(s) URLs and raw logs (a forge from an edited events.jsonl
    // must not become `javascript:`); scripts are forbidden by the page's policy.
    // The one relative link: an attempt's raw log inside the run directory, `logs/<encoded job>-aN.log`
    // (`SafePath.encodedComponent`: letters, digits, `-`, `_`, and `~` before the hash of a long name).
    func isAttemptLog(_ link: String) -> Bool {
        guard link.hasPrefix("logs/"), link.hasSuffix(".log") else { return false }
        let name = link.dropFirst(5).dropLast(4)
        guard let dash = name.range(of: "-a", options: .backwards), !name[..<dash.lowerBound].isEmpty,
              let n = Int(name[dash.upperBound...]), n >= 1 else { return false }
        return name[..<dash.lowerBound].unicodeScalars.allSatisfy { $0.isASCII && (CharacterSet.alphanumerics.contains($0) || $0 == "-" || $0 == "_" || $0 == "~") }
    }
    for link in MarkupCheck.hrefs(html) {
        let lower = link.lowercased()
        invariant(link.hasPrefix("#") || lower.hasPrefix("https://") || lower.hasPrefix("http://") || isAttemptLog(link)
                  || ReportAttachments.linkablePath(link) == link, "report.html links to \(link)")
    }
    // Images: only the run directory's attachments (the policy's `img-src 'self'`).
    for source in MarkupCheck.attributeValues("src", in: html) {
        invariant(ReportAttachments.linkablePath(source) == source, "report.html shows an image from \(source)")
    }
    invariant(html.contains("<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none';"), "report.html has no policy")
    for (name, text) in [("junit.xml", junit), ("report.html", html), ("summary.md", markdown),
                         ("annotations", GitHubAnnotations.lines(report).joined(separator: "\n"))] {
        if let u = MarkupCheck.invisibleControl(in: text) { invariant(false, "\(name) holds U+\(String(u.value, radix: 16, uppercase: true)) raw") }
    }
    if compare {
        let comparison = RunComparison.compare(base: report, head: report)
        for (name, text) in [("compare.md", RunComparisonRenderer.markdown(comparison)), ("compare.html", RunComparisonRenderer.htmlPage(comparison))] {
            if let u = MarkupCheck.invisibleControl(in: text) { invariant(false, "\(name) holds U+\(String(u.value, radix: 16, uppercase: true)) raw") }
        }
    }
    let headline = Verdict.headline(report)
    invariant(markdown.hasPrefix("## \(headline.emoji) xcfleet \(headline.word):"), "summary.md headline disagrees with the exit code")
    invariant(html.contains("<h1>\(headline.symbol) \(headline.title)</h1>"), "report.html banner disagrees with the exit code")
}

/// A run whose every name and message comes from the fuzzer.
enum SyntheticRun {
    static func events(_ input: inout FuzzInput) -> [RunEvent] {
        var out: [RunEvent] = []
        func add(_ body: RunEvent.Body) { out.append(RunEvent(seq: out.count + 1, t: Double(out.count), body: body)) }
        let gate = SuiteSpec(name: input.string(), template: "cache-contract")
        let probe = SuiteSpec(name: input.string(), template: "pressure-probes", kind: .probe)
        let unschedulable = SuiteSpec(name: input.string(), template: "combine-lifetime", requires: ["combine"])
        let hosts = [input.string(), input.string()]
        add(.runStarted(RunStarted(runID: input.string(), planName: input.string(), planPath: input.string(), startedAt: input.string(),
                                   xcfleetVersion: input.string(), suites: [gate, probe, unschedulable], hosts: hosts)))
        let expected = [input.string(), input.string()]
        add(.jobPlanned(JobPlanned(jobID: gate.name, suite: gate.name, kind: .gate, expectedTests: expected)))
        add(.jobPlanned(JobPlanned(jobID: probe.name + "#p", suite: probe.name, kind: .probe, expectedTests: [input.string()])))
        add(.jobPlanned(JobPlanned(jobID: unschedulable.name + "#u", suite: unschedulable.name, kind: .gate, expectedTests: [input.string(), input.string()])))
        add(.jobUnschedulable(jobID: unschedulable.name + "#u", reason: input.string()))
        var attempt = 0
        for job in [gate.name, probe.name + "#p"] {
            attempt += 1
            let ref = AttemptRef(jobID: job, attempt: 1)
            add(.attemptStarted(ref, host: hosts[attempt % 2], slot: Int(input.byte() % 3)))
            add(.phaseStarted(ref, phase: .test))
            var steps = 0
            while !input.isEmpty && steps < 24 {
                steps += 1
                let id = TestIdentifier(suite: input.string(), name: input.string())
                switch input.byte() % 8 {
                case 0: add(.test(ref, event: .testStarted(id, framework: .xctest)))
                case 1: add(.test(ref, event: .testFinished(id, status: [.passed, .failed, .skipped][Int(input.byte() % 3)], seconds: Double(input.byte()) / 7, framework: .swiftTesting, clone: nil)))
                case 2: add(.test(ref, event: .testFailure(id, file: input.string(), line: Int(input.byte()), message: input.string())))
                case 3: add(.test(ref, event: .crash(message: input.string())))
                case 4: add(.test(ref, event: .buildError(file: input.string(), line: nil, message: input.string())))
                case 5: add(.test(ref, event: .metric(Metric(name: input.string(), value: Double(Int8(bitPattern: input.byte())) / 3, unit: input.string(), labels: [input.string(): input.string()]))))
                case 6: add(.test(ref, event: .testSkipped(id, reason: input.string())))
                default: add(.note(input.string()))
                }
            }
            add(.phaseFinished(ref, phase: .test))
            if input.byte() % 2 == 0 {
                // Attachments as an edited events.jsonl may name them: any name, any path, any test.
                let file = AttachmentFile(name: input.string(), path: input.byte() % 2 == 0 ? "attachments/j/1/" + input.string() : input.string(),
                                          bytes: Int(input.byte()), kind: AttachmentKind.allCases[Int(input.byte()) % AttachmentKind.allCases.count],
                                          test: input.byte() % 2 == 0 ? input.string() : nil)
                add(.attachments(ref, AttachmentsCollected(files: [file], leftOut: [AttachmentLeftOut(name: input.string(), bytes: nil, reason: input.string())])))
            }
            let b = input.byte()
            add(.attemptEnded(ref, AttemptEnded(termination: b % 3 == 0 ? .exited(Int32(b % 5)) : b % 3 == 1 ? .connectionLost(input.string()) : nil,
                                                infraError: b & 8 != 0 ? input.string() : nil)))
        }
        if input.byte() % 2 == 1 { add(.hostSetAside(host: hosts[0], reason: input.string())) }
        let end = input.byte()
        if end % 4 != 3 { add(.runFinished(interrupted: end % 4 == 1)) }
        return out
    }
}
