import Foundation

/// C10/C11: what business logic needs from a cache; the main-actor wrapper and the
/// dictionary double both conform, so no gate depends on the system keeping objects cached.
@MainActor
public protocol CacheStoring {
    /// Stores a snapshot of `data` (C2); a second store to an equal key replaces it (C4).
    func store(_ data: Data, for key: MemoryKey)
    /// The stored value, or `nil` for a miss (C5: empty `Data` is a hit). A miss is always allowed (C6).
    func read(_ key: MemoryKey) -> Data?
    /// Removes every entry (C3).
    func clear()
}
