import Foundation
import XCTest

/// C6: a miss is always allowed — both loader paths tested directly with doubles, no eviction waited for.
final class CachedLoaderTests: XCTestCase {
    override func setUpWithError() throws { try ContractClaims.require(self) }

    @MainActor
    func testC6_alwaysMissDoubleStillLoadsFromSource() async throws {
        let name = "testC6_alwaysMissDoubleStillLoadsFromSource"
        let source = CountingSource(value: text("from source"))
        let loader = try makeLoader(cache: try makeDouble(alwaysMiss: true), source: source)

        let first = try await loader.load(freshKey("account-a", "card", "v1"), useCache: true)
        let second = try await loader.load(freshKey("account-a", "card", "v1"), useCache: true)

        XCTAssertTrue(first.data == text("from source"), "\(name): miss must load the source value")
        XCTAssertEqual(first.origin, .source, "\(name): first load origin")
        XCTAssertEqual(second.origin, .source, "\(name): second load origin (still a miss)")
        XCTAssertEqual(source.loads, 2, "\(name): source loads")
    }

    @MainActor
    func testC6_heldValueSkipsReloadOnCacheBranch() async throws {
        let name = "testC6_heldValueSkipsReloadOnCacheBranch"
        let cache = try makeDouble(entries: [(key("account-a", "card", "v1"), text("cached"))])
        let source = CountingSource(value: text("from source"))
        let loader = try makeLoader(cache: cache, source: source)

        let result = try await loader.load(freshKey("account-a", "card", "v1"), useCache: true)

        XCTAssertEqual(result.origin, .cache, "\(name): hit expected")
        XCTAssertTrue(result.data == text("cached"), "\(name): hit value")
        XCTAssertEqual(source.loads, 0, "\(name): source loads")
    }

    @MainActor
    func testC6_reloadBranchAsksSourceAndRefreshesCache() async throws {
        let name = "testC6_reloadBranchAsksSourceAndRefreshesCache"
        let cache = try makeDouble(entries: [(key("account-a", "card", "v1"), text("cached"))])
        let source = CountingSource(value: text("fresh"))
        let loader = try makeLoader(cache: cache, source: source)

        let result = try await loader.load(freshKey("account-a", "card", "v1"), useCache: false)

        XCTAssertEqual(result.origin, .source, "\(name): reload origin")
        XCTAssertEqual(source.loads, 1, "\(name): source loads")
        assertHit(cache.read(freshKey("account-a", "card", "v1")), text("fresh"), name)
    }

    @MainActor
    func testC6_missStoresThenNextLoadHits() async throws {
        let name = "testC6_missStoresThenNextLoadHits"
        let cache = try makeDouble()
        let source = CountingSource(value: text("card"))
        let loader = try makeLoader(cache: cache, source: source)

        let first = try await loader.load(freshKey("account-a", "card", "v1"), useCache: true)
        let second = try await loader.load(freshKey("account-a", "card", "v1"), useCache: true)

        XCTAssertEqual(first.origin, .source, "\(name): first load")
        XCTAssertEqual(second.origin, .cache, "\(name): second load")
        XCTAssertEqual(source.loads, 1, "\(name): source loads")
    }

    @MainActor
    func testC6_sourceFailureIsRethrownAndNothingStored() async throws {
        let name = "testC6_sourceFailureIsRethrownAndNothingStored"
        let cache = try makeDouble()
        let source = FailingSource()
        let loader = try makeLoader(cache: cache, source: source)

        do {
            _ = try await loader.load(freshKey("account-a", "card", "v1"), useCache: true)
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
        let loader = try makeLoader(cache: cache, source: source)

        _ = try await loader.load(freshKey("account-a", "card", "v1"), useCache: true)
        cache.clear()
        let again = try await loader.load(freshKey("account-a", "card", "v1"), useCache: true)

        XCTAssertEqual(again.origin, .source, "\(name): miss after clear")
        XCTAssertEqual(source.loads, 2, "\(name): source loads")
    }
}
