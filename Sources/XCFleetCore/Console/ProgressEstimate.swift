import Foundation

/// The live view's time-to-finish estimate.
///
/// Each job's expected wall time comes from `--history` (the suite's median attempt time,
/// else the sum of its tests' seconds) or, without history, from the jobs already finished in
/// this run (or, before any finished, from the projected length of the running ones). A running job's remaining time is its expectation minus its elapsed time, or the
/// projection of its observed test rate when that is longer (or the only thing known). The
/// remaining work is shared by the host slots in use, but the run cannot end before its
/// longest running job does. Pure arithmetic over a snapshot.
public enum ProgressEstimate {
    public struct Job: Equatable, Sendable {
        public enum State: Equatable, Sendable {
            case pending
            /// `started`: when the attempt began; `testPhaseStarted`: when its test phase began.
            case running(started: Double, testPhaseStarted: Double?, testsDone: Int)
            /// `seconds`: the wall time of its last attempt (nil when it never ran).
            case done(seconds: Double?)
        }

        public var suite: String
        public var expectedTests: Int
        /// Seconds from history, when known.
        public var historySeconds: Double?
        public var state: State

        public init(suite: String, expectedTests: Int, historySeconds: Double? = nil, state: State) {
            self.suite = suite
            self.expectedTests = expectedTests
            self.historySeconds = historySeconds
            self.state = state
        }
    }

    /// Expected wall seconds of one attempt of `suite` according to `history`
    /// (`attemptSeconds`, else the sum of the shard's test seconds); nil when history knows nothing.
    public static func historySeconds(_ history: DurationHistory?, suite: String, tests: [String]) -> Double? {
        guard let history else { return nil }
        if let wall = history.attemptSeconds[suite], wall.isFinite, wall > 0 { return wall }
        if let sum = history.expectedSeconds(suite: suite, tests: tests), sum.isFinite, sum > 0 { return sum }
        return nil
    }

    /// Seconds until every job is done, nil while nothing allows a guess.
    public static func remaining(jobs: [Job], now: Double, slots: Int) -> Double? {
        var finished: [String: [Double]] = [:]
        var all: [Double] = []
        for job in jobs {
            if case .done(let s?) = job.state, s.isFinite, s > 0 {
                finished[job.suite, default: []].append(s)
                all.append(s)
            }
        }
        func mean(_ xs: [Double]) -> Double? { xs.isEmpty ? nil : xs.reduce(0, +) / Double(xs.count) }
        func expectation(_ job: Job) -> Double? {
            job.historySeconds ?? mean(finished[job.suite] ?? []) ?? mean(all)
        }

        var known: [Double] = []
        var unknown = 0
        var longestRunning = 0.0
        /// Whole-job durations projected for running jobs (elapsed + remaining), a basis for jobs with none.
        var projectedTotals: [Double] = []
        for job in jobs {
            switch job.state {
            case .done:
                continue
            case .pending:
                if let e = expectation(job) { known.append(e) } else { unknown += 1 }
            case .running(let started, let testStart, let done):
                var projection: Double?
                if let testStart, done > 0, job.expectedTests > done, now > testStart {
                    projection = (now - testStart) / Double(done) * Double(job.expectedTests - done)
                }
                let fromExpectation = expectation(job).map { max(0, $0 - max(0, now - started)) }
                let r: Double?
                switch (fromExpectation, projection) {
                case let (e?, p?): r = max(e, p)
                case let (e?, nil): r = e
                case let (nil, p?): r = p
                case (nil, nil): r = nil
                }
                if let r {
                    known.append(r)
                    longestRunning = max(longestRunning, r)
                    projectedTotals.append(max(0, now - started) + r)
                } else {
                    unknown += 1
                }
            }
        }
        if unknown > 0 {
            // Jobs with no basis of their own count as the average known one; none known: no guess.
            guard let m = mean(all) ?? mean(jobs.compactMap(\.historySeconds)) ?? mean(projectedTotals) else { return nil }
            known += Array(repeating: m, count: unknown)
        }
        let total = known.reduce(0, +)
        guard total.isFinite else { return nil }
        return max(longestRunning, total / Double(max(1, slots)))
    }
}
