import Foundation

/// The run history, whichever database holds it. Every call may fail with `HistoryError`; callers
/// that run tests go through `HistoryRecorder`, which turns any failure into a one-line note.
public protocol HistoryStore: Sendable {
    var location: HistoryLocation { get }
    /// Writes (or rewrites) one run.
    func record(_ record: HistoryRecord) async throws
    /// Durations for the scheduler (see `HistoryQueries.durations`).
    func durations(suites: [String], lastRuns: Int) async throws -> DurationHistory
    /// Durations preferring executions on hosts of the same class as `hosts` (`ComparableDurations`).
    func durations(suites: [String], lastRuns: Int, comparableTo hosts: [String]) async throws -> DurationHistory
    /// Every execution of every test that failed at least once since `since` (epoch seconds).
    func flakyCandidates(since: Double) async throws -> [FlakyExecution]
    /// Recorded runs, newest first.
    func runs(limit: Int) async throws -> [HistoryRun]
    /// Per-host figures over the runs since `since`.
    func hostHistory(since: Double) async throws -> [HostHistory]
    /// Per-gate pass/duration and per-metric values over the last runs of a plan.
    func trends(planName: String, lastRuns: Int) async throws -> HistoryTrends
    func close() async
}

/// Why the history could not be used; one line, never with credentials.
public struct HistoryError: Error, CustomStringConvertible, Equatable {
    public enum Kind: Equatable, Sendable { case foreign, corrupt, newerSchema, locked, full, unreachable, timeout, other }
    public var kind: Kind
    public var message: String
    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }
    public var description: String { message }

    init(_ error: SQLError, location: HistoryLocation) {
        switch error.kind {
        case .busy: self.init(.locked, "\(error.message) (another process holds the history database)")
        case .notADatabase: self.init(.corrupt, "\(location) is not a readable SQLite database (\(error.message)); move it away or pass --history-db")
        case .full: self.init(.full, "\(error.message) (disk full?)")
        case .connect: self.init(.unreachable, error.message)
        case .timeout: self.init(.timeout, error.message)
        case .readOnly, .other: self.init(.other, error.message)
        }
    }
}

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
}

/// Values over the last runs (oldest first) for the report's trends section.
public struct HistoryTrends: Equatable, Codable, Sendable {
    public struct Point: Equatable, Codable, Sendable {
        public var runID: String
        public var value: Double
        public init(runID: String, value: Double) {
            self.runID = runID
            self.value = value
        }
    }
    /// Gate name → pass (1) / not (0) per run.
    public var gatePassed: [String: [Point]] = [:]
    /// Gate name → seconds (longest job attempt) per run.
    public var gateSeconds: [String: [Point]] = [:]
    /// Metric name (with unit) → median value per run.
    public var metrics: [String: [Point]] = [:]
    public init() {}
}
