import CacheContract
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

/// A fresh cache per test (no singleton), with the plan's cost hint when given.
@MainActor
func makeSessionCache() -> SessionMemoryCache {
    SessionMemoryCache(totalCostLimit: XCFleetSettings.ints["costLimitBytes"] ?? SessionMemoryCache.defaultTotalCostLimit,
                       countLimit: XCFleetSettings.ints["countLimit"] ?? 0)
}

/// A key built from brand-new string storage, so a read never reuses the writer's objects (C1).
func freshKey(_ account: String, _ resource: String, _ revision: String) -> MemoryKey {
    MemoryKey(String(decoding: Array(account.utf8), as: UTF8.self),
              String(decoding: Array(resource.utf8), as: UTF8.self),
              String(decoding: Array(revision.utf8), as: UTF8.self))
}

/// Short text fixture.
func text(_ value: String) -> Data { Data(value.utf8) }

/// C6 test source: counts loads and answers with a fixed short value.
@MainActor
final class CountingSource: AuthoritativeSource {
    private(set) var loads = 0
    private let value: Data

    init(value: Data) { self.value = value }

    func load(_ key: MemoryKey) async throws -> Data {
        loads += 1
        return value
    }
}

/// C6 test source that always fails.
@MainActor
final class FailingSource: AuthoritativeSource {
    struct Unavailable: Error {}
    private(set) var loads = 0

    func load(_ key: MemoryKey) async throws -> Data {
        loads += 1
        throw Unavailable()
    }
}

/// C7 test cache: a dictionary double that reports each clear to an observer.
@MainActor
final class RecordingCache: CacheStoring {
    private let inner = DictionaryCache()
    var onClear: () -> Void = {}

    func store(_ data: Data, for key: MemoryKey) { inner.store(data, for: key) }
    func read(_ key: MemoryKey) -> Data? { inner.read(key) }
    func clear() {
        onClear()
        inner.clear()
    }
}
