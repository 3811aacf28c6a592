import Foundation
import XCFleetBasics
import XCFleetModel

/// Test and job durations from an earlier run's `report.json` (`--history RUN_DIR_OR_REPORT`),
/// used to order jobs longest first and to split suites into equal-time shards.
///
/// Only attempts that ended normally count (attempts marked `lost` are skipped). A test seen more
/// than once (repetitions, retries) counts with the mean of its durations.
public struct DurationHistory: Equatable, Sendable {
    /// Suite name → `Suite/test` → seconds.
    public private(set) var testSeconds: [String: [String: Double]] = [:]
    /// Suite name → median wall-clock seconds of one job attempt (build and push included).
    public private(set) var attemptSeconds: [String: Double] = [:]
    /// Median seconds of a build by where it came from (the history database; empty otherwise).
    public var buildSeconds: [BuildOrigin: Double] = [:]

    /// No history: every duration is unknown.
    public init() {}

    /// Durations worked out elsewhere (the history database: medians over recent runs).
    public init(testSeconds: [String: [String: Double]], attemptSeconds: [String: Double]) {
        self.testSeconds = testSeconds
        self.attemptSeconds = attemptSeconds
    }

    public init(report: RunReport) {
        var tests: [String: [String: [Double]]] = [:]
        var walls: [String: [Double]] = [:]
        for suite in report.suites {
            for job in suite.jobs {
                for attempt in job.attempts where !attempt.lost {
                    if let end = attempt.end, end.isFinite, attempt.start.isFinite, end >= attempt.start {
                        walls[suite.spec.name, default: []].append(end - attempt.start)
                    }
                    for test in attempt.tests {
                        guard let s = test.seconds, s.isFinite, s >= 0 else { continue }
                        tests[suite.spec.name, default: [:]][test.id.description, default: []].append(s)
                    }
                }
            }
        }
        testSeconds = tests.mapValues { $0.mapValues { $0.reduce(0, +) / Double($0.count) } }
        attemptSeconds = walls.compactMapValues { Statistics.median($0) }
    }

    public var isEmpty: Bool { testSeconds.isEmpty && attemptSeconds.isEmpty && buildSeconds.isEmpty }

    /// Seconds one test took (`test` in manifest form `Suite/test`), nil when unknown.
    public func expectedSeconds(suite: String, test: String) -> Double? {
        testSeconds[suite]?[test]
    }

    /// Sum of the suite's test seconds (one whole pass), nil when no test of it is known.
    public func expectedSeconds(suite: String) -> Double? {
        guard let tests = testSeconds[suite], !tests.isEmpty else { return nil }
        return tests.values.reduce(0, +)
    }

    /// Sum of the known seconds of `tests` (one shard); nil when none is known.
    public func expectedSeconds(suite: String, tests: [String]) -> Double? {
        let known = Set(tests).compactMap { testSeconds[suite]?[$0] }
        return known.isEmpty ? nil : known.reduce(0, +)
    }

    /// `Suite/test` → seconds for one suite, the input `Sharder.split` takes.
    public func durations(suite: String) -> [String: Double] {
        testSeconds[suite] ?? [:]
    }
}

/// Why a history file could not be used; each message says what to fix.
public enum DurationHistoryError: Error, Equatable, LocalizedError {
    case missing(path: String)
    case unreadable(path: String, reason: String)
    case notAReport(path: String, reason: String)

    public var errorDescription: String? {
        switch self {
        case let .missing(path):
            return "history: \(path) does not exist; pass a run directory or its report.json"
        case let .unreadable(path, reason):
            return "history: cannot read \(path) (\(reason)); pass a run directory that holds report.json"
        case let .notAReport(path, reason):
            return "history: \(path) is not an xcfleet report.json (\(reason)); pass report.json of an earlier run"
        }
    }
}

extension DurationHistoryError: UserFacingError {
    // A bad --history file is bad input, not an infrastructure failure.
    public var userMessage: String { errorDescription ?? "history: unusable file" }
    public var exitCode: Int32 { UserFacingErrors.ExitCode.usage }
}
