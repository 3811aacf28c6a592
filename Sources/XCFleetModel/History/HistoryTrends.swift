import Foundation

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
