import Foundation
import XCTest

// Shared helpers for the cache contract tests. Failure messages carry only the test case
// name and the hit/miss status (C12); fixtures are short texts, never secrets.

/// "hit" or "miss" — the only thing a failure message says about a cached value.
func hitStatus(_ value: Data?) -> String {
    value == nil ? "miss" : "hit"
}

/// Asserts a hit carrying `expected`, without printing the value.
func assertHit(_ actual: Data?, _ expected: Data, _ test: String, file: StaticString = #filePath, line: UInt = #line) {
    let status = actual == nil ? "miss" : (actual == expected ? "hit" : "hit with another value")
    XCTAssertTrue(actual == expected, "\(test): expected hit, got \(status)", file: file, line: line)
}

/// Asserts a miss, without printing the value.
func assertMiss(_ actual: Data?, _ test: String, file: StaticString = #filePath, line: UInt = #line) {
    XCTAssertTrue(actual == nil, "\(test): expected miss, got \(hitStatus(actual))", file: file, line: line)
}

/// A fresh cache of the subject per test (no singleton), with the plan's hints when given.
@MainActor
func makeSessionCache() -> any ContractCache {
    ContractSubject.makeCache(totalCostLimit: XCFleetSettings.ints["costLimitBytes"], countLimit: XCFleetSettings.ints["countLimit"])
}

/// The subject's key for (account, resource, revision).
@MainActor
func key(_ account: String, _ resource: String, _ revision: String) -> any ContractKey {
    ContractSubject.makeKey(account, resource, revision)
}

/// A key built from brand-new string storage, so a read never reuses the writer's objects (C1).
@MainActor
func freshKey(_ account: String, _ resource: String, _ revision: String) -> any ContractKey {
    ContractSubject.makeKey(String(decoding: Array(account.utf8), as: UTF8.self),
                            String(decoding: Array(resource.utf8), as: UTF8.self),
                            String(decoding: Array(revision.utf8), as: UTF8.self))
}

/// The subject's dictionary double (C10); a test of a claimed id fails when the adapter has none.
@MainActor
func makeDouble(alwaysMiss: Bool = false, entries: [(any ContractKey, Data)] = []) throws -> any ContractDouble {
    try provided(ContractSubject.makeDouble(alwaysMiss: alwaysMiss, entries: entries), "dictionary double (makeDouble)")
}

@MainActor
func makeLoader(cache: any ContractCache, source: any ContractSource) throws -> any ContractLoader {
    try provided(ContractSubject.makeLoader(cache: cache, source: source), "loader (makeLoader)")
}

@MainActor
func makeCoordinator(account: String?, cache: any ContractCache) throws -> any ContractCoordinator {
    try provided(ContractSubject.makeCoordinator(account: account, cache: cache), "session coordinator (makeCoordinator)")
}

@MainActor
func makeRequestGate(initial: String) throws -> any ContractRequestGate {
    try provided(ContractSubject.makeRequestGate(initial: initial), "request gate (makeRequestGate)")
}

/// Short text fixture.
func text(_ value: String) -> Data { Data(value.utf8) }

/// C6 test source: counts loads and answers with a fixed short value.
@MainActor
final class CountingSource: ContractSource {
    private(set) var loads = 0
    private let value: Data

    init(value: Data) { self.value = value }

    func load(_ key: any ContractKey) async throws -> Data {
        loads += 1
        return value
    }
}

/// C6 test source that always fails.
@MainActor
final class FailingSource: ContractSource {
    struct Unavailable: Error {}
    private(set) var loads = 0

    func load(_ key: any ContractKey) async throws -> Data {
        loads += 1
        throw Unavailable()
    }
}

/// C7 test cache: the subject's double, reporting each clear to an observer.
@MainActor
final class RecordingCache: ContractCache {
    private let inner: any ContractDouble
    var onClear: () -> Void = {}

    init() throws { inner = try makeDouble() }

    func store(_ data: Data, for key: any ContractKey) { inner.store(data, for: key) }
    func read(_ key: any ContractKey) -> Data? { inner.read(key) }
    func clear() {
        onClear()
        inner.clear()
    }
}
