import Foundation
import XCFleetBasics
import XCFleetModel
import XCFleetCore

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

extension HistoryError: UserFacingError {
    public var userMessage: String { "history: \(message)" }
    public var exitCode: Int32 { UserFacingErrors.ExitCode.infrastructure }
}
