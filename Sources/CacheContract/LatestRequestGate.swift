import Foundation

/// K5: latest request wins — each request gets an increasing id and only the latest id may
/// write state (start A, start B, deliver B, deliver A → B's state).
///
/// A value type: keep it inside one actor or serial context so that id changes and state
/// writes are serialized.
public struct LatestRequestGate<Value> {
    /// The visible state; written only by the latest request.
    public private(set) var state: Value
    /// The id of the latest request; 0 before the first.
    public private(set) var latestID: UInt64 = 0
    private var closed = false

    public init(initial: Value) {
        self.state = initial
    }

    /// Starts a request and returns its id (increasing); reopens a closed gate for this request.
    public mutating func begin() -> UInt64 {
        latestID &+= 1
        closed = false
        return latestID
    }

    /// Delivers a response; writes it only if `id` is the latest and the gate is open.
    /// Returns whether the state was written.
    @discardableResult
    public mutating func deliver(_ value: Value, for id: UInt64) -> Bool {
        guard !closed, id == latestID, id != 0 else { return false }
        state = value
        return true
    }

    /// Leaving the view: no request started so far may write any more (K6). Written state stays (K11).
    public mutating func close() {
        closed = true
    }
}

extension LatestRequestGate: Sendable where Value: Sendable {}
extension LatestRequestGate: Equatable where Value: Equatable {}
