import Foundation
import XCFleetBasics
import XCFleetModel

/// Which recorded durations the scheduler uses: those from comparable hosts when there are enough.
/// Pure.
///
/// Rule: hosts are comparable when they have the same `HostProfile.hostClass` (toolchain identity
/// and CPU). The classes wanted are the ones the run's fleet hosts had when last recorded. Per test
/// (and per suite, for an attempt's wall-clock), the median of its durations over the last N runs
/// of the suite that ran on a host of those classes, counting only executions on such hosts —
/// when there are at least `minimumSamples` of them; otherwise the median over the last N runs on
/// any host (the rule without classes). A fleet whose hosts were never recorded uses every host.
/// Build costs for the scheduler follow the same preference: per origin (cold, incremental,
/// cached), the median of the last 30 builds of the plan's suites (lock waits left out).
public enum ComparableDurations {
    public static let minimumSamples = 3
    /// How many recent builds of each origin the scheduler's build costs come from.
    public static let buildSamples = 30

    /// Durations by suite → `Class/test`, and attempt wall-clocks by suite.
    public struct Samples: Equatable, Sendable {
        public var tests: [String: [String: [Double]]] = [:]
        public var attempts: [String: [Double]] = [:]
        /// Build origin (`BuildOrigin.rawValue`) → build seconds.
        public var builds: [String: [Double]] = [:]
        public init(tests: [String: [String: [Double]]] = [:], attempts: [String: [Double]] = [:], builds: [String: [Double]] = [:]) {
            self.tests = tests
            self.attempts = attempts
            self.builds = builds
        }
    }

    public struct Choice: Equatable, Sendable {
        public var history: DurationHistory
        /// How many tests (and suites' attempt times) came from comparable hosts.
        public var comparableTests = 0
        public var comparableSuites = 0
    }

    public static func choose(comparable: Samples, all: Samples, minimumSamples: Int = minimumSamples) -> Choice {
        func pick(_ preferred: [Double]?, _ fallback: [Double]?) -> (Double?, Bool) {
            if let preferred, preferred.count >= minimumSamples { return (Statistics.median(preferred), true) }
            if let fallback, !fallback.isEmpty { return (Statistics.median(fallback), false) }
            return (preferred.flatMap { Statistics.median($0) }, preferred?.isEmpty == false)
        }
        var tests: [String: [String: Double]] = [:]
        var attempts: [String: Double] = [:]
        var comparableTests = 0, comparableSuites = 0
        for suite in Set(comparable.tests.keys).union(all.tests.keys) {
            let c = comparable.tests[suite] ?? [:], a = all.tests[suite] ?? [:]
            for key in Set(c.keys).union(a.keys) {
                let (value, fromComparable) = pick(c[key], a[key])
                guard let value else { continue }
                tests[suite, default: [:]][key] = value
                if fromComparable { comparableTests += 1 }
            }
        }
        for suite in Set(comparable.attempts.keys).union(all.attempts.keys) {
            let (value, fromComparable) = pick(comparable.attempts[suite], all.attempts[suite])
            guard let value else { continue }
            attempts[suite] = value
            if fromComparable { comparableSuites += 1 }
        }
        var history = DurationHistory(testSeconds: tests, attemptSeconds: attempts)
        for origin in Set(comparable.builds.keys).union(all.builds.keys) {
            guard let kind = BuildOrigin(rawValue: origin), let value = pick(comparable.builds[origin], all.builds[origin]).0 else { continue }
            history.buildSeconds[kind] = value
        }
        return Choice(history: history,
                      comparableTests: comparableTests, comparableSuites: comparableSuites)
    }
}
