import Foundation

/// C10: deterministic dictionary-backed cache double; with `.alwaysMiss` it models a cache
/// whose entries were all evicted (C6).
@MainActor
public final class DictionaryCache: CacheStoring {
    /// How the double answers reads.
    public enum Mode: Sendable, Equatable {
        /// Keeps every value until `clear()`; never evicts.
        case remember
        /// Accepts writes but every read misses.
        case alwaysMiss
    }

    public let mode: Mode
    private var entries: [MemoryKey: Data]
    /// Number of `read` calls, hits and misses alike.
    public private(set) var readCount = 0
    /// Number of `store` calls.
    public private(set) var storeCount = 0

    public init(mode: Mode = .remember, entries: [MemoryKey: Data] = [:]) {
        self.mode = mode
        self.entries = entries
    }

    /// A double whose every read misses (C6).
    public static func alwaysMiss() -> DictionaryCache { DictionaryCache(mode: .alwaysMiss) }

    /// Number of values held (0 after `clear()`).
    public var count: Int { entries.count }

    public func store(_ data: Data, for key: MemoryKey) {
        storeCount += 1
        entries[key] = data
    }

    public func read(_ key: MemoryKey) -> Data? {
        readCount += 1
        switch mode {
        case .remember: return entries[key]
        case .alwaysMiss: return nil
        }
    }

    public func clear() {
        entries.removeAll()
    }
}
