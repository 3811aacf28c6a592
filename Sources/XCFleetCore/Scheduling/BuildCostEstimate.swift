import Foundation

/// What the scheduler assumes a build costs (`SchedulerJob.Build`), by where it comes from. Pure.
///
/// Rule: the history's medians per origin (`DurationHistory.buildSeconds`, see
/// `ComparableDurations`) where recorded, else the defaults (cold 30 s, incremental 5 s, cached
/// 0.5 s). Kept in order (cached ≤ incremental ≤ cold), since placement compares them.
public struct BuildCostEstimate: Equatable, Sendable {
    public static let defaults = BuildCostEstimate(cold: 30, incremental: 5, cached: 0.5)

    public var cold: Double
    public var incremental: Double
    public var cached: Double

    public init(cold: Double, incremental: Double, cached: Double) {
        self.cold = cold
        self.incremental = incremental
        self.cached = cached
    }

    public init(history: DurationHistory?) {
        let d = Self.defaults, seconds = history?.buildSeconds ?? [:]
        cold = seconds[.cold] ?? d.cold
        incremental = min(seconds[.incremental] ?? min(d.incremental, cold), cold)
        cached = min(seconds[.cached] ?? min(d.cached, incremental), incremental)
    }
}
