import Foundation

/// One recorded run in a listing.
public struct HistoryRun: Equatable, Codable, Sendable {
    public var runID: String
    public var planName: String
    public var startedAt: String
    public var duration: Double
    public var verdict: String
    public var exitCode: Int
    public var interrupted: Bool
    public var gitCommit: String?
    public var hostSeconds: Double?
    public var cost: Double?
    /// Seconds spent in `build` phases (slot-seconds), for `--compare`.
    public var buildSeconds: Double?
    public var tests: Int
    /// The run's figures as its reports printed them; nil for runs recorded before they were kept.
    public var figures: TestFigures?

    package init(runID: String, planName: String, startedAt: String, duration: Double, verdict: String, exitCode: Int, interrupted: Bool, gitCommit: String? = nil, hostSeconds: Double? = nil, cost: Double? = nil, buildSeconds: Double? = nil, tests: Int, figures: TestFigures? = nil) {
        self.figures = figures
        self.runID = runID
        self.planName = planName
        self.startedAt = startedAt
        self.duration = duration
        self.verdict = verdict
        self.exitCode = exitCode
        self.interrupted = interrupted
        self.gitCommit = gitCommit
        self.hostSeconds = hostSeconds
        self.cost = cost
        self.buildSeconds = buildSeconds
        self.tests = tests
    }
}

/// One execution of a test, as `flaky` needs it.
public struct FlakyExecution: Equatable, Sendable {
    public var testKey: String
    public var suite: String
    public var runID: String
    public var jobID: String
    public var attempt: Int
    public var passed: Bool
    public var failed: Bool
    public var host: String
    public var contentHash: String?
    public var startedEpoch: Double
    public var gitCommit: String?

    package init(testKey: String, suite: String, runID: String, jobID: String, attempt: Int, passed: Bool, failed: Bool, host: String, contentHash: String? = nil, startedEpoch: Double, gitCommit: String? = nil) {
        self.testKey = testKey
        self.suite = suite
        self.runID = runID
        self.jobID = jobID
        self.attempt = attempt
        self.passed = passed
        self.failed = failed
        self.host = host
        self.contentHash = contentHash
        self.startedEpoch = startedEpoch
        self.gitCommit = gitCommit
    }
}

/// A host's record over recent runs.
public struct HostHistory: Equatable, Codable, Sendable {
    public var host: String
    public var attempts: Int
    public var infraFailures: Int
    public var deadPeerEvents: Int
    public var setAside: Int
    public var runs: Int
    public var medianConnectSeconds: Double?
    public var medianPushSeconds: Double?
    public var medianBuildSeconds: Double?
    /// Attempts with a recorded build, and how many of them found it in the host's build cache.
    public var builds: Int = 0
    public var cachedBuilds: Int = 0
    /// The host's latest recorded class and label (`HostProfile`).
    public var hostClass: String? = nil
    public var label: String? = nil
    /// Cached builds over all builds (nil without builds).
    public var buildCacheHitRate: Double? { builds == 0 ? nil : Double(cachedBuilds) / Double(builds) }
    public var infraFailureRate: Double { attempts == 0 ? 0 : Double(infraFailures) / Double(attempts) }

    package init(host: String, attempts: Int, infraFailures: Int, deadPeerEvents: Int, setAside: Int, runs: Int, medianConnectSeconds: Double? = nil, medianPushSeconds: Double? = nil, medianBuildSeconds: Double? = nil, builds: Int = 0, cachedBuilds: Int = 0, hostClass: String? = nil, label: String? = nil) {
        self.host = host
        self.attempts = attempts
        self.infraFailures = infraFailures
        self.deadPeerEvents = deadPeerEvents
        self.setAside = setAside
        self.runs = runs
        self.medianConnectSeconds = medianConnectSeconds
        self.medianPushSeconds = medianPushSeconds
        self.medianBuildSeconds = medianBuildSeconds
        self.builds = builds
        self.cachedBuilds = cachedBuilds
        self.hostClass = hostClass
        self.label = label
    }
}
