import Foundation

/// Prices for cost accounting, from the fleet file.
public struct HistoryPricing: Sendable, Equatable {
    public var perHost: [String: Double]
    public var defaultPrice: Double?
    public init(perHost: [String: Double] = [:], defaultPrice: Double? = nil) {
        self.perHost = perHost
        self.defaultPrice = defaultPrice
    }
}
