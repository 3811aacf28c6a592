import CacheContract
import Foundation

// xcfleet's own CacheContract plugged into the cache contract's surface, exactly as a team's
// adapter plugs in its code (docs/templates.md, "A contract against your implementation").
// Rendered into the test target of every cache-contract suite that names no subject.

@MainActor
enum ContractSubject: CacheContractSubject {
    static func makeKey(_ account: String, _ resource: String, _ revision: String) -> any ContractKey {
        ReferenceKey(MemoryKey(account, resource, revision))
    }

    static func makeCache(totalCostLimit: Int?, countLimit: Int?) -> any ContractCache {
        ReferenceCache(SessionMemoryCache(totalCostLimit: totalCostLimit ?? SessionMemoryCache.defaultTotalCostLimit,
                                          countLimit: countLimit ?? 0))
    }

    static func makeDouble(alwaysMiss: Bool, entries: [(any ContractKey, Data)]) -> (any ContractDouble)? {
        var seeded: [MemoryKey: Data] = [:]
        for (key, data) in entries { seeded[ReferenceKey.unwrap(key)] = data }
        return ReferenceDouble(DictionaryCache(mode: alwaysMiss ? .alwaysMiss : .remember, entries: seeded))
    }

    static func makeLoader(cache: any ContractCache, source: any ContractSource) -> (any ContractLoader)? {
        ReferenceLoader(CachedLoader(cache: ReferenceCacheBridge.of(cache), source: ReferenceSourceBridge(source)))
    }

    static func makeCoordinator(account: String?, cache: any ContractCache) -> (any ContractCoordinator)? {
        ReferenceCoordinator(SessionCoordinator(account: account, cache: ReferenceCacheBridge.of(cache)))
    }

    static func makeRequestGate(initial: String) -> (any ContractRequestGate)? {
        ReferenceGate(LatestRequestGate(initial: initial))
    }
}

struct ReferenceKey: ContractKey {
    let key: MemoryKey
    init(_ key: MemoryKey) { self.key = key }

    var account: String { key.account }
    func isEqualKey(_ other: any ContractKey) -> Bool { (other as? ReferenceKey).map { key.isEqual($0.key) } ?? false }
    var keyHash: Int { key.hash }

    /// The MemoryKey behind a surface key (a key of another kind becomes one that equals nothing stored).
    static func unwrap(_ key: any ContractKey) -> MemoryKey {
        (key as? ReferenceKey)?.key ?? MemoryKey("\u{0}foreign", "", "")
    }
}

@MainActor
class ReferenceCache: ContractHintedCache {
    let cache: any CacheStoring
    init(_ cache: any CacheStoring) { self.cache = cache }

    func store(_ data: Data, for key: any ContractKey) { cache.store(data, for: ReferenceKey.unwrap(key)) }
    func read(_ key: any ContractKey) -> Data? { cache.read(ReferenceKey.unwrap(key)) }
    func clear() { cache.clear() }

    var totalCostLimit: Int {
        get { (cache as? SessionMemoryCache)?.totalCostLimit ?? 0 }
        set { (cache as? SessionMemoryCache)?.totalCostLimit = newValue }
    }
    var countLimit: Int {
        get { (cache as? SessionMemoryCache)?.countLimit ?? 0 }
        set { (cache as? SessionMemoryCache)?.countLimit = newValue }
    }
}

@MainActor
final class ReferenceDouble: ReferenceCache, ContractDouble {
    private let double: DictionaryCache
    init(_ double: DictionaryCache) {
        self.double = double
        super.init(double)
    }

    var storeCount: Int { double.storeCount }
    var readCount: Int { double.readCount }
    var count: Int { double.count }
    var alwaysMisses: Bool { double.mode == .alwaysMiss }
}

/// A surface cache (made here, or a test's own) as the CacheStoring the reference code takes.
@MainActor
final class ReferenceCacheBridge: CacheStoring {
    private let inner: any ContractCache
    private init(_ inner: any ContractCache) { self.inner = inner }

    static func of(_ cache: any ContractCache) -> any CacheStoring {
        (cache as? ReferenceCache)?.cache ?? ReferenceCacheBridge(cache)
    }

    func store(_ data: Data, for key: MemoryKey) { inner.store(data, for: ReferenceKey(key)) }
    func read(_ key: MemoryKey) -> Data? { inner.read(ReferenceKey(key)) }
    func clear() { inner.clear() }
}

/// A surface source as the reference's AuthoritativeSource.
final class ReferenceSourceBridge: AuthoritativeSource {
    private let inner: any ContractSource
    init(_ inner: any ContractSource) { self.inner = inner }

    func load(_ key: MemoryKey) async throws -> Data { try await inner.load(ReferenceKey(key)) }
}

@MainActor
final class ReferenceLoader: ContractLoader {
    private let loader: CachedLoader
    init(_ loader: CachedLoader) { self.loader = loader }

    func load(_ key: any ContractKey, useCache: Bool) async throws -> (data: Data, origin: ContractOrigin) {
        let result = try await loader.load(ReferenceKey.unwrap(key), policy: useCache ? .useCache : .reload)
        return (result.data, result.origin == .cache ? .cache : .source)
    }
}

@MainActor
final class ReferenceCoordinator: ContractCoordinator {
    private let coordinator: SessionCoordinator
    init(_ coordinator: SessionCoordinator) { self.coordinator = coordinator }

    var generation: UInt64 { coordinator.generation }
    var inFlightCount: Int { coordinator.inFlightCount }
    func key(resource: String, revision: String) -> (any ContractKey)? {
        coordinator.key(resource: resource, revision: revision).map { ReferenceKey($0) }
    }
    func begin(onStop: @escaping @MainActor () -> Void) -> AnyHashable { AnyHashable(coordinator.begin(onStop: onStop)) }
    func isCurrent(_ ticket: AnyHashable) -> Bool {
        guard let t = ticket.base as? SessionCoordinator.Ticket else { return false }
        return coordinator.isCurrent(t)
    }
    func complete(_ ticket: AnyHashable, storing data: Data, for key: any ContractKey) -> Bool {
        guard let t = ticket.base as? SessionCoordinator.Ticket else { return false }
        return coordinator.complete(t, storing: data, for: ReferenceKey.unwrap(key))
    }
    func abandon(_ ticket: AnyHashable) {
        if let t = ticket.base as? SessionCoordinator.Ticket { coordinator.abandon(t) }
    }
    func logout() { coordinator.logout() }
    func login(account: String) { coordinator.login(account: account) }
}

@MainActor
final class ReferenceGate: ContractRequestGate {
    private var gate: LatestRequestGate<String>
    init(_ gate: LatestRequestGate<String>) { self.gate = gate }

    var state: String { gate.state }
    func begin() -> UInt64 { gate.begin() }
    func deliver(_ value: String, for id: UInt64) -> Bool { gate.deliver(value, for: id) }
    func close() { gate.close() }
}
