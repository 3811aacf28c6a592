import Foundation

/// C6: the source of truth a loader falls back to on a miss (network, database, …).
public protocol AuthoritativeSource: Sendable {
    /// Loads the value for `key`; throws when the source cannot provide it.
    func load(_ key: MemoryKey) async throws -> Data
}

/// C6: reads through a cache; a miss always loads from the authoritative source, a hit on
/// the branch allowed to use the cache skips the reload. Logs and records nothing.
@MainActor
public final class CachedLoader {
    /// Whether a call may answer from the cache.
    public enum Policy: Sendable, Equatable {
        /// A hit is returned without asking the source.
        case useCache
        /// Always asks the source, then refreshes the cache.
        case reload
    }

    /// Where a loaded value came from.
    public enum Origin: Sendable, Equatable {
        case cache
        case source
    }

    /// A loaded value and its origin.
    public struct LoadResult: Sendable, Equatable {
        public let data: Data
        public let origin: Origin
    }

    private let cache: any CacheStoring
    private let source: any AuthoritativeSource

    public init(cache: any CacheStoring, source: any AuthoritativeSource) {
        self.cache = cache
        self.source = source
    }

    /// Loads `key`. Correctness never depends on an entry staying cached: on a miss (or with
    /// `.reload`) the source is asked and the cache refreshed; a source error is rethrown and
    /// nothing is stored.
    public func load(_ key: MemoryKey, policy: Policy = .useCache) async throws -> LoadResult {
        if policy == .useCache, let hit = cache.read(key) {
            return LoadResult(data: hit, origin: .cache)
        }
        let data = try await source.load(key)
        cache.store(data, for: key)
        return LoadResult(data: data, origin: .source)
    }
}
