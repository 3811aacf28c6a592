import Foundation

/// What the history said about a run when it ended, snapshotted into the run's own events
/// (`RunEvent.Body.historyContext`) so that `xcfleet report RUN_DIR` rebuilds the same report
/// byte for byte, whatever the database holds later.
///
/// - `cost`: the run's host-seconds by phase and price (fleet `pricePerHour`); present even without a history.
/// - `trends`: per gate pass/fail and duration, per probe metric the value, over the last
///   `window` runs of the plan including this one (nil when the history is off or unreadable).
/// - `knownFlaky`: this run's tests that the history measured as flaky (`FlakyAnalysis`) over the
///   last `flakyDays` days (nil when the history is off or unreadable).
public struct HistoryContext: Equatable, Codable, Sendable {
    /// Runs in a trend, this one included.
    public static let window = 20
    /// Days of history the known-flaky marks come from (as `xcfleet flaky`'s default).
    public static let flakyDays = 30

    public struct KnownFlaky: Equatable, Codable, Sendable {
        public var suite: String
        /// `Class/name`, as the history keys tests.
        public var test: String
        public var rate: Double
        public var flakes: Int
        public var executions: Int
        /// Last flaky execution, ISO 8601 (UTC, seconds).
        public var lastSeen: String
        public init(suite: String, test: String, rate: Double, flakes: Int, executions: Int, lastSeen: String) {
            self.suite = suite
            self.test = test
            self.rate = rate
            self.flakes = flakes
            self.executions = executions
            self.lastSeen = lastSeen
        }
    }

    /// Values over the window, oldest first; the last point is this run's when it has one.
    public struct Series: Equatable, Codable, Sendable {
        public var name: String
        public var points: [HistoryTrends.Point]
        /// Median of the earlier runs' values (nil with fewer than `TrendRule.minimumEarlierRuns`).
        public var median: Double?
        public var higherIsWorse: Bool
        /// One line when this run is worse than the median by `TrendRule` (never fails the run).
        public var regression: String?
        public init(name: String, points: [HistoryTrends.Point], median: Double? = nil, higherIsWorse: Bool = true, regression: String? = nil) {
            self.name = name
            self.points = points
            self.median = median
            self.higherIsWorse = higherIsWorse
            self.regression = regression
        }
    }

    public struct GateTrend: Equatable, Codable, Sendable {
        public var name: String
        /// 1 = the gate passed in that run, 0 = it did not.
        public var passed: [HistoryTrends.Point]
        /// Seconds of the gate's longest job attempt per run.
        public var seconds: Series
        public var passRate: Double {
            passed.isEmpty ? 0 : passed.reduce(0) { $0 + $1.value } / Double(passed.count)
        }

        package init(name: String, passed: [HistoryTrends.Point], seconds: Series) {
            self.name = name
            self.passed = passed
            self.seconds = seconds
        }
    }

    public struct Trends: Equatable, Codable, Sendable {
        public var window: Int
        /// Runs with at least one value in the window, this one included.
        public var runs: Int
        public var gates: [GateTrend]
        public var metrics: [Series]
        /// Whether there is anything to show (a plan without gates or metrics has no trends).
        public var hasSeries: Bool { !gates.isEmpty || !metrics.isEmpty }
        /// Every regression line (gate durations, then metrics).
        public var regressions: [String] {
            gates.compactMap(\.seconds.regression) + metrics.compactMap(\.regression)
        }

        package init(window: Int, runs: Int, gates: [GateTrend], metrics: [Series]) {
            self.window = window
            self.runs = runs
            self.gates = gates
            self.metrics = metrics
        }
    }

    public var cost: RunCost?
    public var trends: Trends?
    public var knownFlaky: [KnownFlaky]?

    public init(cost: RunCost? = nil, trends: Trends? = nil, knownFlaky: [KnownFlaky]? = nil) {
        self.cost = cost
        self.trends = trends
        self.knownFlaky = knownFlaky
    }

    /// The known-flaky entry of a test of `suite` (`id.description`), if any.
    public func flaky(suite: String, test: String) -> KnownFlaky? {
        knownFlaky?.first { $0.suite == suite && $0.test == test }
    }
}
