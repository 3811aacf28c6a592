import Foundation

/// Where items really come from (the app's API client).
public protocol ItemFetching: Sendable {
    func fetch(_ key: ItemKey) async throws -> Data
}

/// Reads items through a store; a miss always fetches.
@MainActor
public final class ItemRepository {
    public struct Fetched: Sendable {
        public let bytes: Data
        public let cached: Bool
    }

    private let store: any ItemStoring
    private let fetcher: any ItemFetching

    public init(store: any ItemStoring, fetcher: any ItemFetching) {
        self.store = store
        self.fetcher = fetcher
    }

    /// `allowCached: false` always fetches and refreshes the store.
    public func item(_ key: ItemKey, allowCached: Bool = true) async throws -> Fetched {
        if allowCached, let bytes = store.value(at: key) {
            return Fetched(bytes: bytes, cached: true)
        }
        let bytes = try await fetcher.fetch(key)
        store.put(bytes, at: key)
        return Fetched(bytes: bytes, cached: false)
    }
}
