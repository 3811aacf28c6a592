import Foundation
// TEMPORARY stub; replaced by the scheduler branch.
public struct DurationHistory: Sendable {
    public var testSeconds: [String: Double] = [:]
    public func expectedSeconds(tests: [String]) -> Double? { nil }
}
extension DurationHistory {
    public static func load(path: String) throws -> DurationHistory { DurationHistory() }
}
