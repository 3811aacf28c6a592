import Foundation
import XCFleetBasics
import XCFleetModel

/// The state behind the live terminal view: fed with run events, it returns the lines to print
/// above the live area (they stay in scrollback) and draws the live area itself for a given
/// terminal size and clock. Pure value type; the executable owns the terminal I/O.
///
/// The live area is one line per host slot (`host#slot  job  phase  done/expected tests  elapsed`)
/// and an overall progress line (bar, jobs, tests, failures, elapsed, ETA). No line is ever
/// wider than `width - 1` columns, so a terminal never wraps it.
public struct LiveViewModel: Sendable {
    /// ANSI colour in the drawn lines (false with `NO_COLOR`: no escape codes at all).
    public let color: Bool
    private let history: DurationHistory?
    private var narrator: ProgressNarrator

    private var planName = ""
    private var jobs: [String: JobState] = [:]
    private var jobOrder: [String] = []
    private var slots: [Slot: String] = [:]
    private var knownSlots: Set<Slot> = []
    public private(set) var finished = false

    package struct Slot: Hashable, Comparable, Sendable {
        package var host: String
        package var index: Int
        package var label: String { "\(host)#\(index)" }
        package static func < (a: Slot, b: Slot) -> Bool { (a.host, a.index) < (b.host, b.index) }
    }

    package struct JobState: Sendable {
        package var suite: String
        package var expected: [String]
        /// The planned manifest (empty for every job xcfleet plans: `expected` then comes from the
        /// attempt's discovery; event logs written before discovery may carry one).
        package var planned: [String]
        /// `expected` is known: planned, or listed by an attempt's discover step.
        package var listed = false
        package var mutant: String?
        package var historySeconds: Double?
        package var attempt = 0
        package var running = false
        package var everRan = false
        package var unschedulable = false
        package var phase: Phase?
        package var started = 0.0
        package var testPhaseStarted: Double?
        package var lastSeconds: Double?
        package var done: Set<TestIdentifier> = []
        package var failed: Set<TestIdentifier> = []
    }

    public init(verbosity: ConsoleVerbosity = .normal, color: Bool, history: DurationHistory? = nil) {
        self.color = color
        self.history = history
        narrator = ProgressNarrator(verbosity: verbosity, live: true)
    }

    // MARK: Events

    /// Takes one event; returns the lines to print above the live area (failures, attempt
    /// outcomes; every test in verbose mode).
    public mutating func apply(_ event: RunEvent) -> [ConsoleLine] {
        switch event.body {
        case .runStarted(let s):
            planName = s.planName
        case .jobPlanned(let p):
            if jobs[p.jobID] == nil { jobOrder.append(p.jobID) }
            jobs[p.jobID] = JobState(suite: p.suite, expected: p.expectedTests, planned: p.expectedTests, listed: !p.expectedTests.isEmpty,
                                     mutant: p.mutant, historySeconds: ProgressEstimate.historySeconds(history, suite: p.suite, tests: p.expectedTests))
        case .attemptStarted(let ref, let host, let slot):
            let key = Slot(host: host, index: slot)
            knownSlots.insert(key)
            for (k, job) in slots where job == ref.jobID { slots[k] = nil }
            slots[key] = ref.jobID
            update(ref.jobID) {
                $0.attempt = ref.attempt
                $0.running = true
                $0.everRan = true
                $0.phase = nil
                $0.started = event.t
                $0.testPhaseStarted = nil
                $0.done = []
                $0.failed = []
            }
        case .phaseStarted(let ref, let phase):
            update(ref.jobID, attempt: ref.attempt) {
                $0.phase = phase
                if phase == .test { $0.testPhaseStarted = event.t }
            }
        case .phaseFinished:
            break
        case .test(let ref, .testFinished(let id, let status, _, _, _)):
            update(ref.jobID, attempt: ref.attempt) {
                $0.done.insert(id)
                if status == .failed { $0.failed.insert(id) }
            }
        case .test:
            break
        case .attemptEnded(let ref, _):
            update(ref.jobID, attempt: ref.attempt) {
                $0.running = false
                $0.phase = nil
                $0.lastSeconds = max(0, event.t - $0.started)
            }
            for (k, job) in slots where job == ref.jobID { slots[k] = nil }
        case .jobUnschedulable(let jobID, _):
            update(jobID) { $0.unschedulable = true; $0.running = false }
        case .hostSetAside, .hostProbation, .hostRejoined, .note, .sourceMap, .hostPaths, .build, .push, .hostAdmitted, .hostProvisioned, .quarantine, .attachments:
            break
        case .runFinished:
            finished = true
        case .historyContext:
            break
        case .testsDiscovered(let ref, let d):
            // A job's tests are known once its attempt listed what was built.
            update(ref.jobID, attempt: ref.attempt) {
                if $0.planned.isEmpty {
                    $0.expected = d.selected.map(d.resultName(of:))
                    $0.listed = true
                }
            }
        }
        return narrator.lines(for: event)
    }

    private mutating func update(_ jobID: String, attempt: Int? = nil, _ change: (inout JobState) -> Void) {
        guard var job = jobs[jobID] else { return }
        if let attempt, attempt != job.attempt { return }
        change(&job)
        jobs[jobID] = job
    }

    // MARK: Figures

    /// Jobs whose latest attempt ended (or that can never run), and all jobs.
    public var jobCounts: (done: Int, total: Int) {
        (jobs.values.filter { !$0.running && ($0.everRan || $0.unschedulable) }.count, jobs.count)
    }

    /// Tests seen finishing in each job's latest attempt, and tests the jobs' lists expect;
    /// `complete`: every job that can run has listed its tests (until then `expected` grows).
    public var testCounts: (done: Int, expected: Int, complete: Bool) {
        jobs.values.reduce((0, 0, true)) { ($0.0 + $1.done.count, $0.1 + $1.expected.count, $0.2 && ($1.listed || $1.unschedulable)) }
    }

    /// Failed tests in the latest attempts of jobs that are not mutants.
    public var failedTests: Int {
        jobs.values.filter { $0.mutant == nil }.reduce(0) { $0 + $1.failed.count }
    }

    /// Seconds until the run should end, nil while there is no basis for a guess.
    public func eta(now: Double) -> Double? {
        let snapshot = jobOrder.compactMap { id -> ProgressEstimate.Job? in
            guard let j = jobs[id] else { return nil }
            let state: ProgressEstimate.Job.State
            if j.running {
                state = .running(started: j.started, testPhaseStarted: j.testPhaseStarted, testsDone: j.done.count)
            } else if j.everRan || j.unschedulable {
                state = .done(seconds: j.unschedulable ? nil : j.lastSeconds)
            } else {
                state = .pending
            }
            return ProgressEstimate.Job(suite: j.suite, expectedTests: j.expected.count, historySeconds: j.historySeconds, state: state)
        }
        return ProgressEstimate.remaining(jobs: snapshot, now: now, slots: max(1, knownSlots.count))
    }

    // MARK: Drawing

    /// A scrollback line as printed above the live area: timestamp, then the styled text.
    public func render(_ line: ConsoleLine, at t: Double) -> String {
        ProgressNarrator.timestamp(t) + "  " + TerminalText.paint(line.text, line.style, color: color)
    }

    /// The live area for a terminal `width` columns wide and `height` rows high, at `now`
    /// seconds since the run started. Every line is at most `width - 1` columns.
    public func frame(width: Int, height: Int, now: Double) -> [String] {
        let avail = max(1, width - 1)
        let maxLines = max(1, height - 1)
        var lines: [String] = []
        let ordered = knownSlots.sorted()
        let busy = ordered.filter { slots[$0] != nil }
        let idle = ordered.filter { slots[$0] == nil }
        var shown = busy + idle
        var overflow: String?
        if shown.count + 1 > maxLines {
            let room = max(0, maxLines - 2)
            let hidden = shown.count - room
            let hiddenBusy = max(0, busy.count - room)
            shown = Array(shown.prefix(room))
            overflow = "… \(hidden) more slot\(hidden == 1 ? "" : "s") (\(hiddenBusy) busy)"
            if maxLines < 2 { overflow = nil }
        }
        let hostWidth = min(24, shown.map { TerminalText.columns(TerminalText.sanitize($0.label)) }.max() ?? 0)
        let jobWidth = shown.compactMap { slots[$0] }.map { TerminalText.columns(displayName($0)) }.max() ?? 4
        let testWidth = shown.compactMap { slots[$0].flatMap { jobs[$0] } }
            .map { Self.testCount($0).count }.max() ?? 3
        for slot in shown {
            lines.append(slotLine(slot, hostWidth: hostWidth, jobWidth: jobWidth, testWidth: testWidth, avail: avail, now: now))
        }
        if let overflow { lines.append(Self.fit([(overflow, .dim)], width: avail, color: color)) }
        lines.append(progressLine(avail: avail, now: now))
        return lines
    }

    /// `done/expected`; `done/?` until the job's tests were listed.
    private static func testCount(_ job: JobState) -> String {
        "\(job.done.count)/" + (job.listed ? "\(job.expected.count)" : "?")
    }

    private func slotLine(_ slot: Slot, hostWidth: Int, jobWidth: Int, testWidth: Int, avail: Int, now: Double) -> String {
        let host = TerminalText.pad(TerminalText.sanitize(slot.label), to: hostWidth)
        guard let jobID = slots[slot], let job = jobs[jobID] else {
            return Self.fit([(host, .plain), ("  idle", .dim)], width: avail, color: color)
        }
        // One build at a time per host (the host's build lock): the others in their build phase wait for it.
        let building = job.phase == .build ? slots.filter { $0.key.host == slot.host && jobs[$0.value]?.phase == .build }.count : 0
        let phaseText = building > 1 ? "build (shared, \(building - 1) waiting)" : job.phase?.rawValue ?? "start"
        let phaseWidth = max(9, TerminalText.columns(phaseText))
        let phase = TerminalText.pad(phaseText, to: phaseWidth)
        let tests = TerminalText.padLeft(Self.testCount(job), to: testWidth) + " tests"
        let elapsed = TerminalText.padLeft(TerminalText.clock(max(0, now - job.started)), to: 7)
        // Everything but the job name has a fixed width; the name gets what is left (at least 6).
        let fixed = hostWidth + 2 + 2 + phaseWidth + 2 + TerminalText.columns(tests) + 1 + 7
        let nameWidth = max(6, min(jobWidth, avail - fixed))
        let name = TerminalText.pad(displayName(jobID), to: nameWidth)
        let testStyle: ConsoleStyle = job.failed.isEmpty ? .plain : (job.mutant == nil ? .failure : .dim)
        return Self.fit([(host, .bold), ("  ", .plain), (name, .plain), ("  ", .plain), (phase, .plain), ("  ", .plain),
                         (tests, testStyle), (" ", .plain), (elapsed, .dim)], width: avail, color: color)
    }

    /// The job id as shown in a slot line, with the attempt number from the second attempt on.
    private func displayName(_ jobID: String) -> String {
        let attempt = jobs[jobID]?.attempt ?? 1
        return TerminalText.sanitize(jobID) + (attempt > 1 ? " (attempt \(attempt))" : "")
    }

    private func progressLine(avail: Int, now: Double) -> String {
        let (jobsDone, jobsTotal) = jobCounts
        let (testsDone, testsExpected, complete) = testCounts
        let failed = failedTests
        let mutantJobs = jobs.values.filter { $0.mutant != nil }
        var parts: [(String, ConsoleStyle)] = [(" \(jobsDone)/\(jobsTotal) jobs", .plain), ("  \(testsDone)/\(testsExpected)\(complete ? "" : "+") tests", .plain)]
        if failed > 0 { parts.append(("  ✘ \(failed) failed", .failure)) }
        if !mutantJobs.isEmpty {
            let killed = mutantJobs.filter { !$0.running && $0.everRan && !$0.failed.isEmpty }.count
            parts.append(("  mutants \(killed)/\(mutantJobs.count) killed", .plain))
        }
        parts.append(("  elapsed \(TerminalText.clock(now))", .plain))
        parts.append(("  ETA \(eta(now: now).map { TerminalText.clock($0.rounded(.up)) } ?? "--:--")", .bold))
        let infoWidth = parts.reduce(0) { $0 + TerminalText.columns($1.0) }
        let barWidth = min(30, avail - infoWidth - 2)
        if barWidth >= 6 {
            let fraction = Self.fraction(jobsDone: jobsDone, jobsTotal: jobsTotal, testsDone: testsDone, testsExpected: testsExpected)
            let filled = min(barWidth, max(0, Int((fraction * Double(barWidth)).rounded(.down))))
            let barStyle: ConsoleStyle = failed > 0 ? .failure : .success
            parts.insert(contentsOf: [("[", .plain), (String(repeating: "█", count: filled), barStyle),
                                      (String(repeating: "░", count: barWidth - filled), .dim), ("]", .plain)], at: 0)
        }
        return Self.fit(parts, width: avail, color: color)
    }

    /// Progress as a fraction: tests where manifests list them, else jobs.
    package static func fraction(jobsDone: Int, jobsTotal: Int, testsDone: Int, testsExpected: Int) -> Double {
        let byJobs = jobsTotal > 0 ? Double(jobsDone) / Double(jobsTotal) : 0
        let byTests = testsExpected > 0 ? Double(testsDone) / Double(testsExpected) : byJobs
        return min(1, max(0, max(byJobs, min(byTests, 1))))
    }

    /// Joins styled segments, cutting them to `width` columns (the cut one ends in `…`).
    package static func fit(_ segments: [(String, ConsoleStyle)], width: Int, color: Bool) -> String {
        var out = ""
        var left = width
        let total = segments.reduce(0) { $0 + TerminalText.columns($1.0) }
        var remainingTotal = total
        for (text, style) in segments where left > 0 {
            let w = TerminalText.columns(text)
            let piece: String
            if w <= left && (remainingTotal <= left || w < left) {
                piece = text
            } else {
                piece = TerminalText.truncate(text, to: left)
            }
            out += TerminalText.paint(piece, style, color: color)
            left -= TerminalText.columns(piece)
            remainingTotal -= w
            if piece != text { break }
        }
        return out
    }
}
