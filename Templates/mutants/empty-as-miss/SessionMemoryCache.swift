// MUTANT empty-as-miss (C5): empty value treated as miss. Deliberately broken; the cache contract suite must fail against it.
import Foundation

/// C2–C5, C8, C11: main-actor wrapper around `NSCache<MemoryKey, NSData>` with byte costs.
///
/// Confined to the main actor to stay consistent with UI state (`NSCache` itself is
/// thread-safe); background callers hop to the main actor. Create one per session or test
/// process — there is no shared singleton.
@MainActor
public final class SessionMemoryCache: CacheStoring {
    /// The seeds' default cost limit: 4 MiB of stored bytes.
    public static let defaultTotalCostLimit = 4 * 1024 * 1024

    private let storage = NSCache<MemoryKey, NSData>()

    /// C8: `totalCostLimit` (bytes, summed `data.count`) and `countLimit` are hints to
    /// `NSCache`, not hard limits; eviction order is unspecified. 0 means no limit.
    public init(totalCostLimit: Int = SessionMemoryCache.defaultTotalCostLimit, countLimit: Int = 0) {
        storage.totalCostLimit = max(0, totalCostLimit)
        storage.countLimit = max(0, countLimit)
    }

    /// C8: cost hint in bytes; negative values are treated as 0 (no limit).
    public var totalCostLimit: Int {
        get { storage.totalCostLimit }
        set { storage.totalCostLimit = max(0, newValue) }
    }

    /// C8: count hint; negative values are treated as 0 (no limit).
    public var countLimit: Int {
        get { storage.countLimit }
        set { storage.countLimit = max(0, newValue) }
    }

    /// C2/C4: stores a byte copy of `data` (the caller's buffer is never referenced), cost `data.count`.
    public func store(_ data: Data, for key: MemoryKey) {
        let snapshot = data.withUnsafeBytes { bytes in
            NSData(bytes: bytes.baseAddress, length: bytes.count)
        }
        storage.setObject(snapshot, forKey: key, cost: data.count)
    }

    /// C1/C5: looks up with field-by-field key equality; `nil` only for a miss.
    public func read(_ key: MemoryKey) -> Data? {
        guard let value = storage.object(forKey: key), value.length > 0 else { return nil }
        return Data(referencing: value)
    }

    /// C3: after this every key misses.
    public func clear() {
        storage.removeAllObjects()
    }
}
