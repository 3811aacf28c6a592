import Foundation
import XCTest

/// C10: the dictionary double keeps the same contract deterministically; `.alwaysMiss` models eviction.
final class DictionaryCacheTests: XCTestCase {
    override func setUpWithError() throws { try ContractClaims.require(self) }

    @MainActor
    func testC10_doubleKeepsTheContractDeterministically() async throws {
        let name = "testC10_doubleKeepsTheContractDeterministically"
        let cache: any ContractCache = try makeDouble()
        cache.store(text("card a"), for: key("account-a", "card", "v1"))
        cache.store(Data(), for: key("account-a", "empty", "v1"))
        cache.store(text("first"), for: key("account-a", "list", "v1"))
        cache.store(text("second"), for: key("account-a", "list", "v1"))

        assertHit(cache.read(freshKey("account-a", "card", "v1")), text("card a"), name)
        assertMiss(cache.read(freshKey("account-b", "card", "v1")), name)
        assertMiss(cache.read(freshKey("account-a", "card", "v2")), name)
        assertHit(cache.read(freshKey("account-a", "empty", "v1")), Data(), name)
        assertHit(cache.read(freshKey("account-a", "list", "v1")), text("second"), name)

        cache.clear()
        assertMiss(cache.read(freshKey("account-a", "card", "v1")), name)
    }

    @MainActor
    func testC10_doubleNeverEvicts() async throws {
        let name = "testC10_doubleNeverEvicts"
        let cache = try makeDouble()
        for index in 0..<1_000 {
            cache.store(Data(count: 64), for: key("account-a", "item-\(index)", "v1"))
        }
        XCTAssertEqual(cache.count, 1_000, "\(name): every entry held")
        assertHit(cache.read(freshKey("account-a", "item-0", "v1")), Data(count: 64), name)
        XCTAssertEqual(cache.storeCount, 1_000, "\(name): store count")
        XCTAssertEqual(cache.readCount, 1, "\(name): read count")
    }

    @MainActor
    func testC10_alwaysMissDoubleMissesAfterStore() async throws {
        let name = "testC10_alwaysMissDoubleMissesAfterStore"
        let cache = try makeDouble(alwaysMiss: true)
        cache.store(text("card"), for: key("account-a", "card", "v1"))

        assertMiss(cache.read(freshKey("account-a", "card", "v1")), name)
        XCTAssertTrue(cache.alwaysMisses, "\(name): mode")
    }

    @MainActor
    func testC10_seededDoubleHitsWithoutAStore() async throws {
        let name = "testC10_seededDoubleHitsWithoutAStore"
        let cache = try makeDouble(entries: [(key("account-a", "card", "v1"), text("seeded"))])

        assertHit(cache.read(freshKey("account-a", "card", "v1")), text("seeded"), name)
        XCTAssertEqual(cache.storeCount, 0, "\(name): no store")
    }
}
