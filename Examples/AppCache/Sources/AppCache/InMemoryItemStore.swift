import Foundation

/// The deterministic store business-logic tests inject: a dictionary, never evicting; or, with
/// `forgetful`, one that accepts writes and never answers (everything evicted).
@MainActor
public final class InMemoryItemStore: ItemStoring {
    public let forgetful: Bool
    private var items: [ItemKey: Data]
    public private(set) var writes = 0
    public private(set) var lookups = 0

    public init(forgetful: Bool = false, items: [ItemKey: Data] = [:]) {
        self.forgetful = forgetful
        self.items = items
    }

    public var itemCount: Int { items.count }

    public func put(_ value: Data, at key: ItemKey) {
        writes += 1
        items[key] = value
    }

    public func value(at key: ItemKey) -> Data? {
        lookups += 1
        return forgetful ? nil : items[key]
    }

    public func removeAll() {
        items.removeAll()
    }
}
