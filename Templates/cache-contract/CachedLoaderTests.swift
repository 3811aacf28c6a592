import CacheContract
import Foundation
import XCTest

/// C6: a miss is always allowed — both loader paths tested directly with doubles, no eviction waited for.
final class CachedLoaderTests: XCTestCase {
    @MainActor
    func testC6_alwaysMissDoubleStillLoadsFromSource() async throws {
        let name = "testC6_alwaysMissDoubleStillLoadsFromSource"
        let source = CountingSource(value: text("from source"))
        let loader = CachedLoader(cache: DictionaryCache.alwaysMiss(), source: source)

        let first = try await loader.load(freshKey("account-a", "card", "v1"))
        let second = try await loader.load(freshKey("account-a", "card", "v1"))

        XCTAssertTrue(first.data == text("from source"), "\(name): miss must load the source value")
        XCTAssertEqual(first.origin, .source, "\(name): first load origin")
        XCTAssertEqual(second.origin, .source, "\(name): second load origin (still a miss)")
        XCTAssertEqual(source.loads, 2, "\(name): source loads")
    }

    @MainActor
    func testC6_heldValueSkipsReloadOnCacheBranch() async throws {
        let name = "testC6_heldValueSkipsReloadOnCacheBranch"
        let cache = DictionaryCache(entries: [MemoryKey("account-a", "card", "v1"): text("cached")])
        let source = CountingSource(value: text("from source"))
        let loader = CachedLoader(cache: cache, source: source)

        let result = try await loader.load(freshKey("account-a", "card", "v1"), policy: .useCache)

        XCTAssertEqual(result.origin, .cache, "\(name): hit expected")
        XCTAssertTrue(result.data == text("cached"), "\(name): hit value")
        XCTAssertEqual(source.loads, 0, "\(name): source loads")
    }

    @MainActor
    func testC6_reloadBranchAsksSourceAndRefreshesCache() async throws {
        let name = "testC6_reloadBranchAsksSourceAndRefreshesCache"
        let cache = DictionaryCache(entries: [MemoryKey("account-a", "card", "v1"): text("cached")])
        let source = CountingSource(value: text("fresh"))
        let loader = CachedLoader(cache: cache, source: source)

        let result = try await loader.load(freshKey("account-a", "card", "v1"), policy: .reload)

        XCTAssertEqual(result.origin, .source, "\(name): reload origin")
        XCTAssertEqual(source.loads, 1, "\(name): source loads")
        assertHit(cache.read(freshKey("account-a", "card", "v1")), text("fresh"), name)
    }

    @MainActor
    func testC6_missStoresThenNextLoadHits() async throws {
        let name = "testC6_missStoresThenNextLoadHits"
        let cache = DictionaryCache()
        let source = CountingSource(value: text("card"))
        let loader = CachedLoader(cache: cache, source: source)

        let first = try await loader.load(freshKey("account-a", "card", "v1"))
        let second = try await loader.load(freshKey("account-a", "card", "v1"))

        XCTAssertEqual(first.origin, .source, "\(name): first load")
        XCTAssertEqual(second.origin, .cache, "\(name): second load")
        XCTAssertEqual(source.loads, 1, "\(name): source loads")
    }

    @MainActor
    func testC6_sourceFailureIsRethrownAndNothingStored() async {
        let name = "testC6_sourceFailureIsRethrownAndNothingStored"
        let cache = DictionaryCache()
        let source = FailingSource()
        let loader = CachedLoader(cache: cache, source: source)

        do {
            _ = try await loader.load(freshKey("account-a", "card", "v1"))
            XCTFail("\(name): expected the source error")
        } catch {
            XCTAssertTrue(error is FailingSource.Unavailable, "\(name): error type")
        }
        XCTAssertEqual(source.loads, 1, "\(name): source loads")
        XCTAssertEqual(cache.storeCount, 0, "\(name): nothing stored")
    }

    @MainActor
    func testC6_realCacheMissAfterClearStillLoads() async throws {
        let name = "testC6_realCacheMissAfterClearStillLoads"
        let cache = makeSessionCache()
        let source = CountingSource(value: text("card"))
        let loader = CachedLoader(cache: cache, source: source)

        _ = try await loader.load(freshKey("account-a", "card", "v1"))
        cache.clear()
        let again = try await loader.load(freshKey("account-a", "card", "v1"))

        XCTAssertEqual(again.origin, .source, "\(name): miss after clear")
        XCTAssertEqual(source.loads, 2, "\(name): source loads")
    }
}
