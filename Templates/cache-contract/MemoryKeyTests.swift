import Foundation
import XCTest

/// C1: key identity is (account, resource, revision), field by field; reads use fresh equal keys.
final class MemoryKeyTests: XCTestCase {
    override func setUpWithError() throws { try ContractClaims.require(self) }

    @MainActor
    func testC1_sameResourceOtherAccountMisses() async {
        let name = "testC1_sameResourceOtherAccountMisses"
        let cache = makeSessionCache()
        cache.store(text("card a"), for: key("account-a", "card", "v1"))

        assertMiss(cache.read(freshKey("account-b", "card", "v1")), name)
        assertHit(cache.read(freshKey("account-a", "card", "v1")), text("card a"), name)
    }

    @MainActor
    func testC1_twoAccountsKeepTheirOwnValues() async {
        let name = "testC1_twoAccountsKeepTheirOwnValues"
        let cache = makeSessionCache()
        cache.store(text("card a"), for: key("account-a", "card", "v1"))
        cache.store(text("card b"), for: key("account-b", "card", "v1"))

        assertHit(cache.read(freshKey("account-a", "card", "v1")), text("card a"), name)
        assertHit(cache.read(freshKey("account-b", "card", "v1")), text("card b"), name)
    }

    @MainActor
    func testC1_revisionChangeNeverReturnsOldValue() async {
        let name = "testC1_revisionChangeNeverReturnsOldValue"
        let cache = makeSessionCache()
        cache.store(text("old"), for: key("account-a", "card", "v1"))

        assertMiss(cache.read(freshKey("account-a", "card", "v2")), name)
        cache.store(text("new"), for: key("account-a", "card", "v2"))
        assertHit(cache.read(freshKey("account-a", "card", "v2")), text("new"), name)
        assertHit(cache.read(freshKey("account-a", "card", "v1")), text("old"), name)
    }

    @MainActor
    func testC1_freshEqualKeyHits() async {
        let name = "testC1_freshEqualKeyHits"
        let cache = makeSessionCache()
        let writer = key("account-a", "card", "v1")
        cache.store(text("card"), for: writer)

        let reader = freshKey("account-a", "card", "v1")
        assertHit(cache.read(reader), text("card"), name)
    }

    @MainActor
    func testC1_fieldsAreNotJoinedWithASeparator() async {
        let name = "testC1_fieldsAreNotJoinedWithASeparator"
        let cache = makeSessionCache()
        cache.store(text("first"), for: key("a-b", "c", "v1"))

        assertMiss(cache.read(freshKey("a", "b-c", "v1")), name)
        assertMiss(cache.read(freshKey("a-b-c", "", "v1")), name)
        assertMiss(cache.read(freshKey("a", "b", "c-v1")), name)
        assertHit(cache.read(freshKey("a-b", "c", "v1")), text("first"), name)
    }

    @MainActor
    func testC1_equalityComparesEveryField() async {
        let name = "testC1_equalityComparesEveryField"
        let first = key("account-a", "card", "v1")
        let same = freshKey("account-a", "card", "v1")

        XCTAssertTrue(first.isEqualKey(same), "\(name): equal fields must be equal keys")
        XCTAssertTrue(same.isEqualKey(first), "\(name): equality is symmetric")
        XCTAssertEqual(first.keyHash, same.keyHash, "\(name): equal keys must hash equal")
        XCTAssertFalse(first.isEqualKey(freshKey("account-b", "card", "v1")), "\(name): account differs")
        XCTAssertFalse(first.isEqualKey(freshKey("account-a", "other", "v1")), "\(name): resource differs")
        XCTAssertFalse(first.isEqualKey(freshKey("account-a", "card", "v2")), "\(name): revision differs")
        XCTAssertFalse(first.isEqualKey(freshKey("account-a|card|v1", "", "")), "\(name): a joined string is not the key")
        XCTAssertEqual(first.account, "account-a", "\(name): account field")
    }
}
