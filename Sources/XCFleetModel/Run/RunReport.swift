import Foundation

/// Every job ends in exactly one of these.
public enum JobFinalState: String, Codable, Sendable, CaseIterable {
    case passed, failed, flaky, timedOut = "timed-out", infraFailed = "infra-failed", unschedulable, interrupted
}

/// A failure message with its source location, where printed.
public struct FailureDetail: Equatable, Codable, Sendable {
    public var file: String?
    public var line: Int?
    public var message: String
    /// Where it points in the repository, with the host's original path (set by `LocationMapper`).
    public var location: SourceLocation?

    public init(file: String? = nil, line: Int? = nil, message: String, location: SourceLocation? = nil) {
        self.file = file
        self.line = line
        self.message = message
        self.location = location
    }
}

/// One test's result within one attempt.
public struct TestResult: Equatable, Codable, Sendable {
    public var id: TestIdentifier
    public var status: TestStatus
    public var seconds: Double?
    public var failures: [FailureDetail]
    public var skipReason: String?
    public var clone: String?
    /// Contract ids carried by the name (`C4`, `K2`).
    public var contractIDs: [String]
    /// Failed in an earlier attempt of the same job and passed in this one.
    public var flaky: Bool
    /// The test is in the run's quarantine (its failures do not make the gate red); nil otherwise.
    public var quarantined: Bool? = nil
    /// Executions of the test folded into this result when it ran more than once in the attempt
    /// (`-test-iterations`, retries, a clone relaunching it); nil for one execution.
    public var executions: Int? = nil
    /// Executions among those that failed, when more than one execution ran and some failed.
    public var failedExecutions: Int? = nil
    /// An execution exceeded its execution time allowance (the result is failed); nil otherwise.
    public var timedOut: Bool? = nil
    /// True when the test printed failures and never its end line (the process crashed, exited or
    /// hung while it ran); nil when it ended normally.
    public var unfinished: Bool? = nil
    /// The files the test left for the reader (docs/attachments.md); nil when none.
    public var attachments: [AttachmentFile]? = nil

    public init(id: TestIdentifier, status: TestStatus, seconds: Double? = nil, failures: [FailureDetail] = [], skipReason: String? = nil, clone: String? = nil, flaky: Bool = false) {
        self.id = id
        self.status = status
        self.seconds = seconds
        self.failures = failures
        self.skipReason = skipReason
        self.clone = clone
        self.contractIDs = id.contractIDs
        self.flaky = flaky
    }
}

extension TestResult {
    /// The synthesized encoding with its keys in sorted order (every report's encoder sorts them):
    /// report.json's writer then puts no test's entries in order after writing them.
    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encodeIfPresent(attachments, forKey: .attachments)
        try c.encodeIfPresent(clone, forKey: .clone)
        try c.encode(contractIDs, forKey: .contractIDs)
        try c.encodeIfPresent(executions, forKey: .executions)
        try c.encodeIfPresent(failedExecutions, forKey: .failedExecutions)
        try c.encode(failures, forKey: .failures)
        try c.encode(flaky, forKey: .flaky)
        try c.encode(id, forKey: .id)
        try c.encodeIfPresent(quarantined, forKey: .quarantined)
        try c.encodeIfPresent(seconds, forKey: .seconds)
        try c.encodeIfPresent(skipReason, forKey: .skipReason)
        try c.encode(status, forKey: .status)
        try c.encodeIfPresent(timedOut, forKey: .timedOut)
        try c.encodeIfPresent(unfinished, forKey: .unfinished)
    }
}

/// Start and end of one phase, in seconds since the run started.
public struct PhaseSpan: Equatable, Codable, Sendable {
    public var phase: Phase
    public var start: Double
    public var end: Double?

    package init(phase: Phase, start: Double, end: Double? = nil) {
        self.phase = phase
        self.start = start
        self.end = end
    }
}

/// One attempt of a job on one host slot.
public struct AttemptReport: Equatable, Codable, Sendable {
    public var number: Int
    public var host: String
    public var slot: Int
    public var start: Double
    public var end: Double?
    public var phases: [PhaseSpan]
    public var termination: CommandTermination?
    public var infraError: String?
    public var timedOutPhase: Phase?
    public var tests: [TestResult]
    /// Failures that no test could be named for.
    public var unattributedFailures: [FailureDetail]
    public var crashes: [String]
    /// The first crash's backtrace frames that name a source location (at most
    /// `AttemptReport.backtraceLimit`; `message` is the symbol); nil when none was printed.
    public var backtrace: [FailureDetail]? = nil
    public var buildErrors: [FailureDetail]
    public var metrics: [Metric]
    /// Why this attempt is not green (empty when it is). Computed by `Verdict`.
    public var problems: [String]
    /// The attempt did not finish normally (host lost, interrupted, never ended); its events are
    /// kept and labelled, never merged into a retry's results.
    public var lost: Bool
    /// Where its build came from (absent in runs recorded before build caching, and when the
    /// build phase did not finish).
    public var build: BuildRecord? = nil
    /// What the runner itself said (totals, xcodebuild's statements, unreadable lines, …), for the
    /// cross-check in `Verdict`; nil when it said nothing of the kind.
    public var evidence: RunnerEvidence? = nil
    /// The discovered tests and this attempt's part of them (nil in event logs written before discovery).
    public var discovery: TestsDiscovered? = nil
    /// What its push sent (absent in runs recorded before incremental pushes, and when the push failed).
    public var push: PushRecord? = nil
    /// Attachments of the attempt no test claimed (each test's own are on the test), and what
    /// was left out; nil when the attempt fetched none.
    public var attachments: AttachmentsCollected? = nil

    package init(number: Int, host: String, slot: Int, start: Double, end: Double? = nil, phases: [PhaseSpan], termination: CommandTermination? = nil, infraError: String? = nil, timedOutPhase: Phase? = nil, tests: [TestResult], unattributedFailures: [FailureDetail], crashes: [String], buildErrors: [FailureDetail], metrics: [Metric], problems: [String], lost: Bool, build: BuildRecord? = nil, evidence: RunnerEvidence? = nil) {
        self.number = number
        self.host = host
        self.slot = slot
        self.start = start
        self.end = end
        self.phases = phases
        self.termination = termination
        self.infraError = infraError
        self.timedOutPhase = timedOutPhase
        self.tests = tests
        self.unattributedFailures = unattributedFailures
        self.crashes = crashes
        self.buildErrors = buildErrors
        self.metrics = metrics
        self.problems = problems
        self.lost = lost
        self.build = build
        self.evidence = evidence
    }
}

extension AttemptReport {
    /// Frames kept of a crash's backtrace.
    public static let backtraceLimit = 8
}

/// One job with all its attempts.
public struct JobReport: Equatable, Codable, Sendable {
    public var planned: JobPlanned
    public var attempts: [AttemptReport]
    public var finalState: JobFinalState
    /// Why it ended that way (one line each).
    public var reasons: [String]
    /// The attempt whose results count (the last one), if any ran.
    public var decisive: AttemptReport? { attempts.last }
    /// Its tests by category (set by `ReportFigures.fill`; zero for a mutant job; nil in records
    /// written before the figures existed).
    public var figures: TestFigures? = nil

    package init(planned: JobPlanned, attempts: [AttemptReport], finalState: JobFinalState, reasons: [String]) {
        self.planned = planned
        self.attempts = attempts
        self.finalState = finalState
        self.reasons = reasons
    }
}

public enum SuiteStatus: String, Codable, Sendable {
    /// Gate proven green.
    case green
    /// Gate red: the reasons say why.
    case red
    /// Probe ran (its figures are diagnostics).
    case measured
    /// Probe could not produce figures (infra); still no effect on the exit code.
    case incomplete
    case unschedulable
    case interrupted
}

public struct SuiteReport: Equatable, Codable, Sendable {
    public var spec: SuiteSpec
    public var status: SuiteStatus
    public var reasons: [String]
    public var jobs: [JobReport]
    /// The sum of its jobs' figures (set by `ReportFigures.fill`; nil in older records).
    public var figures: TestFigures? = nil

    package init(spec: SuiteSpec, status: SuiteStatus, reasons: [String], jobs: [JobReport]) {
        self.spec = spec
        self.status = status
        self.reasons = reasons
        self.jobs = jobs
    }
}

/// Counts that must add up: every job in exactly one final state, every test in one `TestCategory`.
public struct Totals: Equatable, Codable, Sendable {
    public var jobs: Int
    public var jobsByState: [String: Int]
    public var attempts: Int
    /// The run's figures (mutant jobs not counted: their failures are the mutant being killed).
    public var tests: TestFigures

    package init(jobs: Int, jobsByState: [String: Int], attempts: Int, tests: TestFigures = TestFigures()) {
        self.jobs = jobs
        self.jobsByState = jobsByState
        self.attempts = attempts
        self.tests = tests
    }

    private enum CodingKeys: String, CodingKey { case jobs, jobsByState, attempts, tests }

    /// A report.json written before the figures existed reads with zero figures.
    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        jobs = try c.decode(Int.self, forKey: .jobs)
        jobsByState = try c.decode([String: Int].self, forKey: .jobsByState)
        attempts = try c.decode(Int.self, forKey: .attempts)
        tests = try c.decodeIfPresent(TestFigures.self, forKey: .tests) ?? TestFigures()
    }
}

/// The collated run: rebuilt from `events.jsonl` alone by `Collator`.
public struct RunReport: Equatable, Codable, Sendable {
    public var runID: String
    public var planName: String
    public var planPath: String
    public var startedAt: String
    public var xcfleetVersion: String
    /// Seconds from start to the last event.
    public var duration: Double
    public var interrupted: Bool
    public var hosts: [String]
    public var hostsSetAside: [String: String]
    public var suites: [SuiteReport]
    public var totals: Totals
    public var exitCode: Int32
    /// One line: "all gates green", or why not.
    public var verdictLine: String
    public var notes: [String]
    /// Where report.html links repository locations to (from the run's start event).
    public var forge: ForgeLink? = nil
    /// When hosts left (set aside, on probation) and rejoined, in order; nil when none did.
    public var hostChanges: [HostChange]? = nil
    /// Cost, trends and known-flaky tests from the run's `historyContext` event; nil in runs without one.
    public var history: HistoryContext? = nil
    /// Hosts' provisioning, admission and class, in order of first appearance; nil in runs recorded before them.
    public var hostTimelines: [HostTimeline]? = nil
    /// The quarantine's tests and what they did; nil when the run had no quarantine.
    public var quarantine: QuarantineReport? = nil
    /// One per suite that runs a contract against a team's implementation; nil when none does.
    public var certificates: [ContractCertificate]? = nil

    public var gates: [SuiteReport] { suites.filter { $0.spec.kind == .gate } }
    public var probes: [SuiteReport] { suites.filter { $0.spec.kind == .probe } }

    package init(runID: String, planName: String, planPath: String, startedAt: String, xcfleetVersion: String, duration: Double, interrupted: Bool, hosts: [String], hostsSetAside: [String: String], suites: [SuiteReport], totals: Totals, exitCode: Int32, verdictLine: String, notes: [String], forge: ForgeLink? = nil, hostChanges: [HostChange]? = nil, history: HistoryContext? = nil, hostTimelines: [HostTimeline]? = nil, quarantine: QuarantineReport? = nil) {
        self.runID = runID
        self.planName = planName
        self.planPath = planPath
        self.startedAt = startedAt
        self.xcfleetVersion = xcfleetVersion
        self.duration = duration
        self.interrupted = interrupted
        self.hosts = hosts
        self.hostsSetAside = hostsSetAside
        self.suites = suites
        self.totals = totals
        self.exitCode = exitCode
        self.verdictLine = verdictLine
        self.notes = notes
        self.forge = forge
        self.hostChanges = hostChanges
        self.history = history
        self.hostTimelines = hostTimelines
        self.quarantine = quarantine
    }
}

/// A host leaving or rejoining the run (from `hostSetAside`, `hostProbation`, `hostRejoined` events).
public struct HostChange: Equatable, Codable, Sendable {
    public enum Change: String, Codable, Sendable {
        case setAside = "set-aside", probation, rejoined
    }

    /// Seconds since the run started.
    public var t: Double
    public var host: String
    public var change: Change
    public var reason: String?

    public init(t: Double, host: String, change: Change, reason: String?) {
        self.t = t
        self.host = host
        self.change = change
        self.reason = reason
    }
}
