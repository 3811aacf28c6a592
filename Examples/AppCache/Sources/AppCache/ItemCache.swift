import Foundation

/// The app's in-memory cache: NSCache behind a main-actor wrapper, cost in bytes.
@MainActor
public final class ItemCache: ItemStoring {
    private final class Box: NSObject {
        let key: ItemKey
        init(_ key: ItemKey) { self.key = key }
        override var hash: Int { key.hashValue }
        override func isEqual(_ object: Any?) -> Bool { (object as? Box)?.key == key }
    }

    private let storage = NSCache<Box, NSData>()

    public init(byteLimit: Int = 8 << 20, entryLimit: Int = 0) {
        self.byteLimit = byteLimit
        self.entryLimit = entryLimit
    }

    /// Hints for NSCache; negative means no limit.
    public var byteLimit: Int {
        get { storage.totalCostLimit }
        set { storage.totalCostLimit = max(0, newValue) }
    }

    public var entryLimit: Int {
        get { storage.countLimit }
        set { storage.countLimit = max(0, newValue) }
    }

    public func put(_ value: Data, at key: ItemKey) {
        let copy = value.withUnsafeBytes { NSData(bytes: $0.baseAddress, length: $0.count) }
        storage.setObject(copy, forKey: Box(key), cost: value.count)
    }

    public func value(at key: ItemKey) -> Data? {
        storage.object(forKey: Box(key)).map { Data(referencing: $0) }
    }

    public func removeAll() {
        storage.removeAllObjects()
    }
}
