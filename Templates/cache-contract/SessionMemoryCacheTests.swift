import Foundation
import XCTest

/// C2–C5, C8, C11 on the NSCache wrapper (small values, normal memory: no eviction is asserted).
final class SessionMemoryCacheTests: XCTestCase {
    override func setUpWithError() throws { try ContractClaims.require(self) }

    @MainActor
    func testC2_mutatingCallersVariableAfterStoreKeepsSnapshot() async {
        let name = "testC2_mutatingCallersVariableAfterStoreKeepsSnapshot"
        let cache = makeSessionCache()
        var source = Data([1, 2])
        cache.store(source, for: key("account-a", "card", "v1"))
        source.append(3)

        assertHit(cache.read(freshKey("account-a", "card", "v1")), Data([1, 2]), name)
    }

    @MainActor
    func testC2_callerOwnedBufferChangedAfterStoreKeepsSnapshot() async {
        // The caller's Data refers to a buffer the caller owns and later rewrites; only a
        // byte copy taken by `store` keeps the cached value stable.
        let name = "testC2_callerOwnedBufferChangedAfterStoreKeepsSnapshot"
        let count = 64
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: count, alignment: 1)
        defer { buffer.deallocate() }
        buffer.initializeMemory(as: UInt8.self, repeating: 7)
        let cache = makeSessionCache()
        if let base = buffer.baseAddress {
            cache.store(Data(bytesNoCopy: base, count: count, deallocator: .none), for: key("account-a", "card", "v1"))
        }
        for index in 0..<count { buffer[index] = 9 }

        assertHit(cache.read(freshKey("account-a", "card", "v1")), Data(repeating: 7, count: count), name)
        cache.clear()
    }

    @MainActor
    func testC2_mutatingAReadValueDoesNotChangeTheCache() async {
        let name = "testC2_mutatingAReadValueDoesNotChangeTheCache"
        let cache = makeSessionCache()
        cache.store(text("card"), for: key("account-a", "card", "v1"))
        var first = cache.read(freshKey("account-a", "card", "v1"))
        first?.append(contentsOf: [0xFF])

        assertHit(cache.read(freshKey("account-a", "card", "v1")), text("card"), name)
    }

    @MainActor
    func testC3_clearMakesEveryKeyMiss() async {
        let name = "testC3_clearMakesEveryKeyMiss"
        let cache = makeSessionCache()
        cache.store(text("a1"), for: key("account-a", "card", "v1"))
        cache.store(text("a2"), for: key("account-a", "list", "v7"))
        cache.store(Data(), for: key("account-b", "card", "v1"))
        assertHit(cache.read(freshKey("account-a", "card", "v1")), text("a1"), name)

        cache.clear()

        assertMiss(cache.read(freshKey("account-a", "card", "v1")), name)
        assertMiss(cache.read(freshKey("account-a", "list", "v7")), name)
        assertMiss(cache.read(freshKey("account-b", "card", "v1")), name)
    }

    @MainActor
    func testC3_storeAfterClearHitsAgain() async {
        let name = "testC3_storeAfterClearHitsAgain"
        let cache = makeSessionCache()
        cache.store(text("before"), for: key("account-a", "card", "v1"))
        cache.clear()
        cache.store(text("after"), for: key("account-a", "card", "v1"))

        assertHit(cache.read(freshKey("account-a", "card", "v1")), text("after"), name)
    }

    @MainActor
    func testC4_secondWriteToOneKeyWins() async {
        let name = "testC4_secondWriteToOneKeyWins"
        let cache = makeSessionCache()
        cache.store(text("first"), for: key("account-a", "card", "v1"))
        cache.store(text("second"), for: freshKey("account-a", "card", "v1"))

        assertHit(cache.read(freshKey("account-a", "card", "v1")), text("second"), name)
    }

    @MainActor
    func testC5_emptyDataIsAHit() async {
        let name = "testC5_emptyDataIsAHit"
        let cache = makeSessionCache()
        cache.store(Data(), for: key("account-a", "card", "v1"))

        assertHit(cache.read(freshKey("account-a", "card", "v1")), Data(), name)
    }

    @MainActor
    func testC5_missIsNil() async {
        let name = "testC5_missIsNil"
        let cache = makeSessionCache()
        cache.store(Data(), for: key("account-a", "card", "v1"))

        assertMiss(cache.read(freshKey("account-a", "other", "v1")), name)
    }

    @MainActor
    func testC8_capacityLimitsAreConfigurableHints() async {
        // Only the configuration is checked; nothing here asserts eviction (C8).
        let name = "testC8_capacityLimitsAreConfigurableHints"
        guard let cache = ContractSubject.makeCache(totalCostLimit: 1024, countLimit: 3) as? any ContractHintedCache else {
            return XCTFail("\(name): the subject's cache exposes no capacity hints (ContractHintedCache), yet C8 is claimed")
        }
        XCTAssertEqual(cache.totalCostLimit, 1024, "\(name): cost hint")
        XCTAssertEqual(cache.countLimit, 3, "\(name): count hint")
        cache.totalCostLimit = -5
        cache.countLimit = -1
        XCTAssertEqual(cache.totalCostLimit, 0, "\(name): negative cost hint means no limit")
        XCTAssertEqual(cache.countLimit, 0, "\(name): negative count hint means no limit")
    }

    @MainActor
    func testC11_backgroundCallersHopToTheMainActor() async {
        let name = "testC11_backgroundCallersHopToTheMainActor"
        let cache = makeSessionCache()
        await withTaskGroup(of: Void.self) { group in
            for index in 0..<8 {
                group.addTask {
                    await cache.store(Data([UInt8(index)]), for: key("account-a", "card-\(index)", "v1"))
                }
            }
        }
        for index in 0..<8 {
            assertHit(cache.read(freshKey("account-a", "card-\(index)", "v1")), Data([UInt8(index)]), name)
        }
        let fromBackground = await Task.detached {
            await cache.read(key("account-a", "card-3", "v1"))
        }.value
        assertHit(fromBackground, Data([3]), name)
    }

    @MainActor
    func testC11_eachCacheIsIndependent() async {
        let name = "testC11_eachCacheIsIndependent"
        let first = makeSessionCache()
        let second = makeSessionCache()
        first.store(text("card"), for: key("account-a", "card", "v1"))

        assertMiss(second.read(freshKey("account-a", "card", "v1")), name)
    }
}
