import Foundation

/// The phases of a job attempt, in order. Each has its own deadline.
public enum Phase: String, Codable, Sendable, CaseIterable {
    case provision, connect, push, build, test, fetch, cleanup
}

/// Names one attempt of one job.
public struct AttemptRef: Hashable, Codable, Sendable {
    public var jobID: String
    public var attempt: Int

    public init(jobID: String, attempt: Int) {
        self.jobID = jobID
        self.attempt = attempt
    }
}

/// Written once at the start of a run.
public struct RunStarted: Equatable, Codable, Sendable {
    public var runID: String
    public var planName: String
    public var planPath: String
    /// ISO-8601 wall-clock start; every other event carries seconds since this instant.
    public var startedAt: String
    public var xcfleetVersion: String
    public var suites: [SuiteSpec]
    public var hosts: [String]
    /// The commit's forge (GitHub Actions), for links from report.html to repository files.
    public var forge: ForgeLink?

    public init(runID: String, planName: String, planPath: String, startedAt: String, xcfleetVersion: String, suites: [SuiteSpec], hosts: [String], forge: ForgeLink? = nil) {
        self.forge = forge
        self.runID = runID
        self.planName = planName
        self.planPath = planPath
        self.startedAt = startedAt
        self.xcfleetVersion = xcfleetVersion
        self.suites = suites
        self.hosts = hosts
    }
}

/// A job: one suite × shard × repetition (× mutant). Written when the job is created.
public struct JobPlanned: Equatable, Codable, Sendable {
    public var jobID: String
    public var suite: String
    public var kind: SuiteKind
    public var shard: Int
    public var shardCount: Int
    public var repetition: Int
    /// The mutant this job runs the gate against (`nil`: the real code).
    public var mutant: String?
    /// What the mutant breaks, in words (its `fault`): logged so that `report` rebuilds the
    /// "does not catch" reason from `events.jsonl` alone (absent in runs recorded before it was).
    public var mutantFault: String?
    /// `Suite/test` names a planned manifest says this job must run and see pass. Empty for every
    /// job xcfleet plans now (each attempt discovers its tests in what it built); runs recorded
    /// before discovery carry one, and are judged by it.
    public var expectedTests: [String]
    /// SHA-256 of the pushed workspace (absent in runs recorded before history existed).
    public var contentHash: String?
    /// The test-plan configuration an Xcode project job runs (`-only-test-configuration`; nil: all).
    public var configuration: String? = nil

    public init(jobID: String, suite: String, kind: SuiteKind, shard: Int = 0, shardCount: Int = 1, repetition: Int = 0, mutant: String? = nil, mutantFault: String? = nil,
                expectedTests: [String], contentHash: String? = nil) {
        self.jobID = jobID
        self.suite = suite
        self.kind = kind
        self.shard = shard
        self.shardCount = shardCount
        self.repetition = repetition
        self.mutant = mutant
        self.mutantFault = mutantFault
        self.expectedTests = expectedTests
        self.contentHash = contentHash
    }
}

/// How an attempt ended, as the runner saw it.
public struct AttemptEnded: Equatable, Codable, Sendable {
    /// The test command's termination (nil when it never ran).
    public var termination: CommandTermination?
    /// An infrastructure failure (connect, host key, push, toolchain, connection lost, …).
    public var infraError: String?
    /// The phase whose deadline expired, if any.
    public var timedOutPhase: Phase?

    public init(termination: CommandTermination? = nil, infraError: String? = nil, timedOutPhase: Phase? = nil) {
        self.termination = termination
        self.infraError = infraError
        self.timedOutPhase = timedOutPhase
    }
}

/// One line of `events.jsonl`. Appended as things happen (DESIGN decision 7), so a crash or
/// Ctrl-C of xcfleet loses nothing already observed; every report is rebuilt from these alone.
public struct RunEvent: Equatable, Codable, Sendable {
    /// Strictly increasing within a run.
    public var seq: Int
    /// Seconds since the run started.
    public var t: Double
    public var body: Body

    public init(seq: Int, t: Double, body: Body) {
        self.seq = seq
        self.t = t
        self.body = body
    }

    public enum Body: Equatable, Codable, Sendable {
        case runStarted(RunStarted)
        case jobPlanned(JobPlanned)
        case attemptStarted(AttemptRef, host: String, slot: Int)
        case phaseStarted(AttemptRef, phase: Phase)
        case phaseFinished(AttemptRef, phase: Phase)
        case test(AttemptRef, event: TestEvent)
        case attemptEnded(AttemptRef, AttemptEnded)
        case jobUnschedulable(jobID: String, reason: String)
        case hostSetAside(host: String, reason: String)
        /// A connection to the host was lost: no new attempts there until a fresh health check passes.
        case hostProbation(host: String, reason: String)
        /// A host on probation or set aside passed its health check again and takes jobs.
        case hostRejoined(host: String)
        /// A free-form line for the report's log section (already redacted).
        case note(String)
        /// Where an attempt's build came from and what it cost (see docs/builds.md).
        case build(AttemptRef, BuildRecord)
        /// What an attempt's push sent (absent in runs recorded before incremental pushes).
        case push(AttemptRef, PushRecord)
        case runFinished(interrupted: Bool)
        /// Where each file of a job's rendered package came from (written after `jobPlanned`).
        case sourceMap(jobID: String, map: SourceMap)
        /// Host folders an attempt's package lives in (its job folder, build folders): the
        /// prefixes `LocationMapper` strips from paths the host prints.
        case hostPaths(AttemptRef, prefixes: [String])
        /// The history's view of the run when it ended (cost, trends, known-flaky tests), written
        /// after `runFinished` so the reports rebuild from the events alone (docs/history.md).
        case historyContext(HistoryContext)
        /// A host passed admission and leased its slots (its lease, and its bill, start here); what
        /// it is, for comparable durations (`HostProfile`).
        case hostAdmitted(HostProfile)
        /// The provisioner's create command made `host` in `seconds` (ending now): billed as `provision`.
        case hostProvisioned(host: String, seconds: Double)
        /// The quarantine in force (written after `runStarted`; see docs/history.md, "Quarantine").
        case quarantine([QuarantineEntry])
        /// The tests an attempt found in what was built, and the part it runs (after
        /// the build, before the test run; absent in older runs).
        case testsDiscovered(AttemptRef, TestsDiscovered)
        /// What an attempt's collect step fetched into `attachments/` and what it left out (docs/attachments.md).
        case attachments(AttemptRef, AttachmentsCollected)
    }
}
