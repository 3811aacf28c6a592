import AppCache
import Foundation

// Maps AppCache's own types onto xcfleet's cache contract surface (docs/templates.md).
// The contract tests call only `ContractSubject`; nothing here decides a contract rule, it only
// translates: (account, resource, revision) ↔ ItemKey(owner:item:etag:), store ↔ put/value/removeAll.
// AppCache has no session coordinator and no request gate, so the plan claims neither C7 nor K5/K6.

@MainActor
enum ContractSubject: CacheContractSubject {
    static func makeKey(_ account: String, _ resource: String, _ revision: String) -> any ContractKey {
        AppKey(ItemKey(owner: AccountID(account), item: resource, etag: revision))
    }

    static func makeCache(totalCostLimit: Int?, countLimit: Int?) -> any ContractCache {
        let cache = ItemCache()
        if let totalCostLimit { cache.byteLimit = totalCostLimit }
        if let countLimit { cache.entryLimit = countLimit }
        return AppStore(cache)
    }

    static func makeDouble(alwaysMiss: Bool, entries: [(any ContractKey, Data)]) -> (any ContractDouble)? {
        var items: [ItemKey: Data] = [:]
        for (key, data) in entries { items[AppKey.unwrap(key)] = data }
        return AppDouble(InMemoryItemStore(forgetful: alwaysMiss, items: items))
    }

    static func makeLoader(cache: any ContractCache, source: any ContractSource) -> (any ContractLoader)? {
        AppLoader(ItemRepository(store: AppStore.storing(cache), fetcher: AppFetcher(source)))
    }
}

struct AppKey: ContractKey {
    let key: ItemKey
    init(_ key: ItemKey) { self.key = key }

    var account: String { key.owner.raw }
    func isEqualKey(_ other: any ContractKey) -> Bool { (other as? AppKey).map { $0.key == key } ?? false }
    var keyHash: Int { key.hashValue }

    static func unwrap(_ key: any ContractKey) -> ItemKey {
        (key as? AppKey)?.key ?? ItemKey(owner: AccountID("\u{0}foreign"), item: "", etag: "")
    }
}

@MainActor
class AppStore: ContractHintedCache {
    let store: any ItemStoring
    init(_ store: any ItemStoring) { self.store = store }

    /// A surface cache as the ItemStoring AppCache takes (a test's own cache is bridged).
    static func storing(_ cache: any ContractCache) -> any ItemStoring {
        (cache as? AppStore)?.store ?? Bridge(cache)
    }

    func store(_ data: Data, for key: any ContractKey) { store.put(data, at: AppKey.unwrap(key)) }
    func read(_ key: any ContractKey) -> Data? { store.value(at: AppKey.unwrap(key)) }
    func clear() { store.removeAll() }

    var totalCostLimit: Int {
        get { (store as? ItemCache)?.byteLimit ?? 0 }
        set { (store as? ItemCache)?.byteLimit = newValue }
    }
    var countLimit: Int {
        get { (store as? ItemCache)?.entryLimit ?? 0 }
        set { (store as? ItemCache)?.entryLimit = newValue }
    }

    private final class Bridge: ItemStoring {
        let inner: any ContractCache
        init(_ inner: any ContractCache) { self.inner = inner }
        func put(_ value: Data, at key: ItemKey) { inner.store(value, for: AppKey(key)) }
        func value(at key: ItemKey) -> Data? { inner.read(AppKey(key)) }
        func removeAll() { inner.clear() }
    }
}

@MainActor
final class AppDouble: AppStore, ContractDouble {
    private let double: InMemoryItemStore
    init(_ double: InMemoryItemStore) {
        self.double = double
        super.init(double)
    }

    var storeCount: Int { double.writes }
    var readCount: Int { double.lookups }
    var count: Int { double.itemCount }
    var alwaysMisses: Bool { double.forgetful }
}

final class AppFetcher: ItemFetching {
    let source: any ContractSource
    init(_ source: any ContractSource) { self.source = source }
    func fetch(_ key: ItemKey) async throws -> Data { try await source.load(AppKey(key)) }
}

@MainActor
final class AppLoader: ContractLoader {
    let repository: ItemRepository
    init(_ repository: ItemRepository) { self.repository = repository }

    func load(_ key: any ContractKey, useCache: Bool) async throws -> (data: Data, origin: ContractOrigin) {
        let fetched = try await repository.item(AppKey.unwrap(key), allowCached: useCache)
        return (fetched.bytes, fetched.cached ? .cache : .source)
    }
}
