import Foundation
import XCTest

// The surface the cache contract tests call: a few protocols and one factory. The tests never
// name an implementation's types; an implementation plugs in through ONE adapter file that
// declares `enum ContractSubject: CacheContractSubject` and maps its own types onto these
// protocols. xcfleet's own `CacheContract` is plugged in the same way
// (`Templates/adapters/cache-contract/ReferenceAdapter.swift`). docs/templates.md shows an adapter.

/// C1: a key the subject built from (account, resource id, content revision).
protocol ContractKey: Sendable {
    /// The account field as the subject holds it.
    var account: String { get }
    /// The subject's own key equality, the one its cache uses (false for a key of another kind).
    func isEqualKey(_ other: any ContractKey) -> Bool
    /// The subject's own hash: equal keys must hash equal.
    var keyHash: Int { get }
}

/// C2–C5 (and C11 when claimed): the subject's cache as business logic sees it.
@MainActor
protocol ContractCache: AnyObject, Sendable {
    /// Stores a snapshot of `data` (C2); a second store to an equal key replaces it (C4).
    func store(_ data: Data, for key: any ContractKey)
    /// The stored value, or nil for a miss (C5: empty `Data` is a hit).
    func read(_ key: any ContractKey) -> Data?
    /// After this every key misses (C3).
    func clear()
}

/// C8: a cache whose capacity limits are configurable hints (negative means no limit, read back as 0).
@MainActor
protocol ContractHintedCache: ContractCache {
    var totalCostLimit: Int { get set }
    var countLimit: Int { get set }
}

/// C10: the subject's deterministic dictionary-backed double.
@MainActor
protocol ContractDouble: ContractCache {
    var storeCount: Int { get }
    var readCount: Int { get }
    /// Values held (0 after `clear()`).
    var count: Int { get }
    /// True for the double whose every read misses (C6).
    var alwaysMisses: Bool { get }
}

/// C6: the authoritative source the tests hand to the subject's loader.
@MainActor
protocol ContractSource: AnyObject, Sendable {
    func load(_ key: any ContractKey) async throws -> Data
}

/// C6: where a loaded value came from.
enum ContractOrigin: Equatable, Sendable { case cache, source }

/// C6: the subject's read-through loader.
@MainActor
protocol ContractLoader: AnyObject {
    /// `useCache: false` is the reload branch: always ask the source, then refresh the cache.
    func load(_ key: any ContractKey, useCache: Bool) async throws -> (data: Data, origin: ContractOrigin)
}

/// C7: the subject's load coordination across logout. Tickets are the subject's own values.
@MainActor
protocol ContractCoordinator: AnyObject {
    var generation: UInt64 { get }
    var inFlightCount: Int { get }
    /// A key for the signed-in account; nil when nobody is signed in (C13: trusted account).
    func key(resource: String, revision: String) -> (any ContractKey)?
    func begin(onStop: @escaping @MainActor () -> Void) -> AnyHashable
    func isCurrent(_ ticket: AnyHashable) -> Bool
    /// Writes only when the ticket's generation is still current; returns whether it wrote.
    func complete(_ ticket: AnyHashable, storing data: Data, for key: any ContractKey) -> Bool
    func abandon(_ ticket: AnyHashable)
    func logout()
    func login(account: String)
}

/// K5/K6 without Combine: only the latest request writes the visible state.
@MainActor
protocol ContractRequestGate: AnyObject {
    var state: String { get }
    func begin() -> UInt64
    func deliver(_ value: String, for id: UInt64) -> Bool
    func close()
}

/// The factory the tests call. Parts an implementation does not have return nil (the default);
/// their contract ids must then be left out of the suite's `claims`, and their tests skip.
@MainActor
protocol CacheContractSubject {
    static func makeKey(_ account: String, _ resource: String, _ revision: String) -> any ContractKey
    /// A fresh cache (no singleton) with the plan's hints; nil hints mean the subject's defaults.
    static func makeCache(totalCostLimit: Int?, countLimit: Int?) -> any ContractCache
    static func makeDouble(alwaysMiss: Bool, entries: [(any ContractKey, Data)]) -> (any ContractDouble)?
    static func makeLoader(cache: any ContractCache, source: any ContractSource) -> (any ContractLoader)?
    static func makeCoordinator(account: String?, cache: any ContractCache) -> (any ContractCoordinator)?
    static func makeRequestGate(initial: String) -> (any ContractRequestGate)?
}

extension CacheContractSubject {
    static func makeDouble(alwaysMiss: Bool, entries: [(any ContractKey, Data)]) -> (any ContractDouble)? { nil }
    static func makeLoader(cache: any ContractCache, source: any ContractSource) -> (any ContractLoader)? { nil }
    static func makeCoordinator(account: String?, cache: any ContractCache) -> (any ContractCoordinator)? { nil }
    static func makeRequestGate(initial: String) -> (any ContractRequestGate)? { nil }
}
