import Foundation
import XCFleetBasics
import XCFleetModel

/// Turns run events into the lines a person reads as a run goes by: the plain, timestamped log
/// off a TTY, and the lines printed above the live view on a TTY (where they stay in scrollback).
///
/// Pure: feed events in order, get lines back. Host-controlled text is sanitised.
/// Failures of a mutant job are what the mutant is for, so they are not narrated as failures
/// (only in verbose mode); the attempt's end says whether the mutant was killed.
public struct ProgressNarrator: Sendable {
    public let verbosity: ConsoleVerbosity
    /// On a TTY the live view already shows attempts and phases; only verbose mode repeats them.
    public let live: Bool

    private var mutantOf: [String: String] = [:]
    private var planned: [String: JobPlanned] = [:]
    private var quarantine: [QuarantineEntry] = []
    /// Each running attempt's test events: its end line counts them as the collated report does.
    private var events: [AttemptRef: [TestEvent]] = [:]
    /// A package attempt's discovered part: its manifest when the job planned none.
    private var discovered: [AttemptRef: TestsDiscovered] = [:]
    /// Each job's ended attempts: a retry's line counts a test that failed before as flaky.
    private var ended: [String: [AttemptReport]] = [:]
    private var attempts: [AttemptRef: Tally] = [:]
    /// Failure messages waiting for their test's `testFinished`, so the ✘ line comes first.
    private var pendingMessages: [AttemptRef: [TestIdentifier: [String]]] = [:]
    /// Source maps by job and host folders by attempt: locations are shown as the repository names them.
    private var sourceMaps: [String: SourceMap] = [:]
    private var mappers: [AttemptRef: LocationMapper] = [:]

    private struct Tally: Sendable {
        var start: Double
        var slot: String
        var passed: Set<TestIdentifier> = []
        var failed: Set<TestIdentifier> = []
        var problems = 0
    }

    public init(verbosity: ConsoleVerbosity, live: Bool) {
        self.verbosity = verbosity
        self.live = live
    }

    private var verbose: Bool { verbosity == .verbose }

    /// `   12.3s`: seconds since the run started, right-aligned, as every narrated line begins.
    public static func timestamp(_ t: Double) -> String {
        TerminalText.padLeft(TerminalText.seconds(max(0, t)), to: 8)
    }

    /// The lines `event` calls for (none in quiet mode).
    public mutating func lines(for event: RunEvent) -> [ConsoleLine] {
        var out: [ConsoleLine] = []
        func say(_ text: String, _ style: ConsoleStyle = .plain) { out.append(ConsoleLine(TerminalText.sanitize(text), style)) }
        switch event.body {
        case .runStarted(let s):
            say("run \(s.runID): plan \(s.planName) (\(s.suites.count) suite\(s.suites.count == 1 ? "" : "s")) on \(s.hosts.joined(separator: ", "))")
        case .jobPlanned(let p):
            mutantOf[p.jobID] = p.mutant
            planned[p.jobID] = p
            let tests = p.expectedTests.isEmpty ? "tests discovered after the build" : "\(p.expectedTests.count) tests"
            if verbose { say("planned \(p.jobID) (\(tests)\(p.mutant.map { ", mutant \($0)" } ?? ""))") }
        case .attemptStarted(let ref, let host, let slot):
            attempts[ref] = Tally(start: event.t, slot: "\(host)#\(slot)")
            if !live || verbose { say("\(ref.jobID) attempt \(ref.attempt) on \(host)#\(slot)") }
        case .phaseStarted(let ref, let phase):
            if verbose || (!live && (phase == .build || phase == .test)) { say("\(ref.jobID) \(phase.rawValue)…") }
        case .phaseFinished:
            break
        case .test(let ref, let e):
            events[ref, default: []].append(e)
            testLines(ref: ref, event: e, say: say)
        case .attemptEnded(let ref, let ended):
            flushMessages(ref, say: say)
            let end = attemptEndLine(ref: ref, ended: ended, t: event.t)
            if let report = lastAttempt { self.ended[ref.jobID, default: []].append(report) }
            lastAttempt = nil
            say(end.text, end.style)
            attempts[ref] = nil
            mappers[ref] = nil
            events[ref] = nil
            discovered[ref] = nil
        case .jobUnschedulable(let jobID, let reason):
            say("\(jobID) unschedulable: \(reason)", .warning)
        case .hostSetAside(let host, let reason):
            say("host \(host) set aside: \(reason)", .warning)
        case .hostProbation(let host, let reason):
            say("host \(host) on probation: \(reason)", .warning)
        case .hostRejoined(let host):
            say("host \(host) rejoined")
        case .note(let text):
            if verbose { say(text, .dim) }
        case .build(let ref, let record):
            if verbose { say("\(ref.jobID) \(record.summary)", .dim) }
        case .push(let ref, let record):
            if verbose { say("\(ref.jobID) \(record.summary)", .dim) }
        case .runFinished(let interrupted):
            if interrupted { say("run interrupted", .warning) }
        case .sourceMap(let jobID, let map):
            sourceMaps[jobID] = map
        case .historyContext:
            break
        case .hostPaths(let ref, let prefixes):
            mappers[ref] = LocationMapper(sourceMap: sourceMaps[ref.jobID], hostPrefixes: (mappers[ref]?.hostPrefixes ?? []) + prefixes)
        case .hostAdmitted(let profile):
            if verbose, let label = profile.label { say("host \(profile.host): \(label)", .dim) }
        case .hostProvisioned(let host, let seconds):
            if verbose { say("host \(host) provisioned in \(TerminalText.seconds(seconds))", .dim) }
        case .quarantine(let entries):
            quarantine = entries
            if !entries.isEmpty { say("quarantine: \(entries.count) test\(entries.count == 1 ? "" : "s") (they run; their failures do not make a gate red)", .dim) }
        case .testsDiscovered(let ref, let d):
            discovered[ref] = d
            if let problem = d.problem {
                say("\(ref.jobID) attempt \(ref.attempt): test discovery: \(TerminalText.sanitize(problem))", .failure)
            } else if verbose {
                say("\(ref.jobID) discovered \(d.tests.count) tests; runs \(d.selected.count)\(d.note.map { " (\(TerminalText.sanitize($0)))" } ?? "")", .dim)
            }
        case .attachments(let ref, let collected):
            if !collected.isEmpty { say(Self.attachmentsLine(ref, collected), .dim) }
        }
        return verbosity == .quiet ? [] : out
    }

    private mutating func testLines(ref: AttemptRef, event: TestEvent, say: (String, ConsoleStyle) -> Void) {
        let isMutant = mutantOf[ref.jobID] != nil
        let showFailures = !isMutant || verbose
        let mapper = mappers[ref] ?? LocationMapper(sourceMap: sourceMaps[ref.jobID])
        func located(_ file: String?, _ line: Int?, _ message: String) -> String {
            let d = mapper.map(FailureDetail(file: file, line: line, message: message))
            return ReportText.failureLine(d)
        }
        switch event {
        case .testFinished(let id, let status, let secs, _, _):
            let took = secs.map { " (\(TerminalText.seconds($0, digits: 3)))" } ?? ""
            switch status {
            case .failed:
                attempts[ref]?.failed.insert(id)
                attempts[ref]?.passed.remove(id)
                if showFailures { say("\(ref.jobID) ✘ \(id.shortDescription)\(took)", isMutant ? .dim : .failure) }
            case .passed, .skipped:
                if status == .passed, attempts[ref]?.failed.contains(id) != true { attempts[ref]?.passed.insert(id) }
                if verbose { say("\(ref.jobID) \(status == .passed ? "✔" : "−") \(id.shortDescription)\(took)", .plain) }
            }
            if let messages = pendingMessages[ref]?.removeValue(forKey: id), showFailures {
                for m in messages { say(m, isMutant ? .dim : .failure) }
            }
        case .testFailure(let id, let file, let line, let message):
            let text = "\(ref.jobID)   \(located(file, line, message))"
            if let id {
                pendingMessages[ref, default: [:]][id, default: []].append(text)
            } else if showFailures {
                say(text, isMutant ? .dim : .failure)
            }
        case .crash(let message):
            attempts[ref]?.problems += 1
            if showFailures { say("\(ref.jobID) crash: \(mapper.rewrite(message))", isMutant ? .dim : .failure) }
        case .buildError(let file, let line, let message):
            attempts[ref]?.problems += 1
            if showFailures { say("\(ref.jobID) build error: \(located(file, line, message))", isMutant ? .dim : .failure) }
        case .metric(let m):
            if verbose { say("\(ref.jobID) metric \(m.name)=\(m.value) \(m.unit)", .dim) }
        case .testSkipped(let id, let reason):
            if verbose, let id { say("\(ref.jobID) − \(id.shortDescription) skipped\(reason.map { ": \($0)" } ?? "")", .dim) }
        case .testStarted, .suiteStarted, .suiteFinished, .xctestSummary, .swiftTestingSummary,
             .runnerStatement, .failingTestListed, .unreadableResult, .witnessDisagreement, .backtraceFrame, .attachmentRecorded:
            break
        }
    }

    private mutating func flushMessages(_ ref: AttemptRef, say: (String, ConsoleStyle) -> Void) {
        guard let pending = pendingMessages.removeValue(forKey: ref) else { return }
        let isMutant = mutantOf[ref.jobID] != nil
        guard !isMutant || verbose else { return }
        for id in pending.keys.sorted() { for m in pending[id] ?? [] { say(m, isMutant ? .dim : .failure) } }
    }

    /// One line per attempt end: outcome, the attempt's figures (counted as the collated report
    /// counts them: `ReportFigures`) and wall time. ✘ only when the verdict finds a problem, so a
    /// quarantined failure alone never reads red.
    private var lastAttempt: AttemptReport?

    private mutating func attemptEndLine(ref: AttemptRef, ended: AttemptEnded, t: Double) -> ConsoleLine {
        let tally = attempts[ref]
        let took = tally.map { " in \(TerminalText.clock(max(0, t - $0.start)))" } ?? ""
        let job = planned[ref.jobID] ?? JobPlanned(jobID: ref.jobID, suite: "", kind: .gate, shard: 0, shardCount: 1, repetition: 0, mutant: nil, expectedTests: [])
        let entries = job.mutant == nil ? quarantine.filter { $0.suite == job.suite } : []
        var report = Collator.attemptReport(events: events[ref] ?? [], ended: ended, host: "", slot: 0, number: ref.attempt)
        report.discovery = discovered[ref]
        for i in report.tests.indices where entries.contains(report.tests[i].id) { report.tests[i].quarantined = true }
        let problems = Verdict.problems(of: report, expected: job.expectedTests, quarantined: entries)
        var counted = job
        counted.mutant = nil   // a mutant's attempt line counts its tests too
        if ended.infraError != nil { report.lost = true }
        lastAttempt = report
        let counts = ReportFigures.figures(JobReport(planned: counted, attempts: (self.ended[ref.jobID] ?? []) + [report], finalState: .passed, reasons: [])).text
        let head = "\(ref.jobID) attempt \(ref.attempt)"
        if let infra = ended.infraError { return ConsoleLine("⚠ \(head): infrastructure failure: \(infra)", .warning) }
        if let phase = ended.timedOutPhase { return ConsoleLine("✘ \(head): timed out in \(phase.rawValue) (\(counts))\(took)", .failure) }
        let how = ended.termination.map(\.consoleText) ?? "ended"
        let clean = problems.isEmpty
        if let mutant = mutantOf[ref.jobID] {
            if ended.termination == .cancelled { return ConsoleLine("− \(head): cancelled (mutant \(mutant))", .warning) }
            return clean ? ConsoleLine("✘ \(head): mutant \(mutant) survived: \(counts)\(took)", .failure)
                         : ConsoleLine("✔ \(head): mutant \(mutant) killed (\(how), \(counts))\(took)", .success)
        }
        if ended.termination == .cancelled { return ConsoleLine("− \(head): cancelled (\(counts))\(took)", .warning) }
        return clean ? ConsoleLine("✔ \(head): \(counts)\(took)", .success)
                     : ConsoleLine("✘ \(head): \(how), \(counts)\(took)", .failure)
    }
}

extension CommandTermination {
    /// `exit 1`, `killed by SIGKILL`, `timed out (…)`: how a command ended, for console lines.
    public var consoleText: String {
        switch self {
        case .exited(let c): return "exit \(c)"
        case .signaled(let s): return "killed by \(s)"
        case .timedOut(let w): return "timed out (\(w))"
        case .connectionLost(let w): return "connection lost (\(w))"
        case .cancelled: return "cancelled"
        }
    }
}

extension ProgressNarrator {
    /// `job attempt 1: 2 attachments fetched (1.5 MiB), 1 left out: big.mov (over the per-file cap of 20 MiB)`.
    static func attachmentsLine(_ ref: AttemptRef, _ c: AttachmentsCollected) -> String {
        let bytes = c.files.reduce(0) { $0 + $1.bytes }
        var line = "\(ref.jobID) attempt \(ref.attempt): \(c.files.count) attachment\(c.files.count == 1 ? "" : "s") fetched"
        if !c.files.isEmpty { line += " (\(AttachmentSelection.size(bytes)))" }
        if let first = c.leftOut.first {
            line += ", \(c.leftOut.count) left out: \(first.name) (\(first.reason))" + (c.leftOut.count > 1 ? ", …" : "")
        }
        return line
    }
}
