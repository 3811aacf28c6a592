import Foundation
import XCTest

/// C7: logout stops requests, advances the generation, then clears; late writes are dropped.
final class SessionCoordinatorTests: XCTestCase {
    override func setUpWithError() throws { try ContractClaims.require(self) }

    @MainActor
    func testC7_lateWriteAfterLogoutIsDropped() async throws {
        let name = "testC7_lateWriteAfterLogoutIsDropped"
        let cache = makeSessionCache()
        let coordinator = try makeCoordinator(account: "account-a", cache: cache)
        guard let key = coordinator.key(resource: "card", revision: "v1") else {
            return XCTFail("\(name): signed-in account must give a key")
        }
        let ticket = coordinator.begin {}

        coordinator.logout()
        let wrote = coordinator.complete(ticket, storing: text("late"), for: key)

        XCTAssertFalse(wrote, "\(name): late write must be dropped")
        assertMiss(cache.read(freshKey("account-a", "card", "v1")), name)
    }

    @MainActor
    func testC7_lateWriteAfterAccountSwitchIsDropped() async throws {
        let name = "testC7_lateWriteAfterAccountSwitchIsDropped"
        let cache = try makeDouble()
        let coordinator = try makeCoordinator(account: "account-a", cache: cache)
        let oldKey = key("account-a", "card", "v1")
        let ticket = coordinator.begin {}

        coordinator.login(account: "account-b")
        let wrote = coordinator.complete(ticket, storing: text("late"), for: oldKey)

        XCTAssertFalse(wrote, "\(name): late write must be dropped")
        XCTAssertEqual(cache.storeCount, 0, "\(name): store count")
        assertMiss(cache.read(freshKey("account-a", "card", "v1")), name)
    }

    @MainActor
    func testC7_currentRequestWrites() async throws {
        let name = "testC7_currentRequestWrites"
        let cache = makeSessionCache()
        let coordinator = try makeCoordinator(account: "account-a", cache: cache)
        guard let key = coordinator.key(resource: "card", revision: "v1") else {
            return XCTFail("\(name): signed-in account must give a key")
        }
        let ticket = coordinator.begin {}

        XCTAssertTrue(coordinator.complete(ticket, storing: text("card"), for: key), "\(name): write expected")
        assertHit(cache.read(freshKey("account-a", "card", "v1")), text("card"), name)
        XCTAssertEqual(coordinator.inFlightCount, 0, "\(name): in flight")
    }

    @MainActor
    func testC7_logoutStopsRequestsThenAdvancesGenerationThenClears() async throws {
        let name = "testC7_logoutStopsRequestsThenAdvancesGenerationThenClears"
        let cache = try RecordingCache()
        let coordinator = try makeCoordinator(account: "account-a", cache: cache)
        var steps: [String] = []
        cache.onClear = { [unowned coordinator] in steps.append("clear@\(coordinator.generation)") }
        _ = coordinator.begin { [unowned coordinator] in steps.append("stop1@\(coordinator.generation)") }
        _ = coordinator.begin { [unowned coordinator] in steps.append("stop2@\(coordinator.generation)") }
        cache.store(text("card"), for: key("account-a", "card", "v1"))

        coordinator.logout()

        XCTAssertEqual(steps, ["stop1@0", "stop2@0", "clear@1"], "\(name): logout order")
        XCTAssertEqual(coordinator.generation, 1, "\(name): generation")
        XCTAssertEqual(coordinator.inFlightCount, 0, "\(name): in flight")
        assertMiss(cache.read(freshKey("account-a", "card", "v1")), name)
        coordinator.logout()
        XCTAssertEqual(steps.count, 4, "\(name): a stopped request is not stopped again")
    }

    @MainActor
    func testC7_keysComeFromTheSignedInAccountOnly() async throws {
        let name = "testC7_keysComeFromTheSignedInAccountOnly"
        let coordinator = try makeCoordinator(account: "account-a", cache: try makeDouble())
        XCTAssertEqual(coordinator.key(resource: "card", revision: "v1")?.account, "account-a", "\(name): key account")
        coordinator.logout()
        XCTAssertNil(coordinator.key(resource: "card", revision: "v1"), "\(name): no key after logout")
        coordinator.login(account: "account-b")
        XCTAssertEqual(coordinator.key(resource: "card", revision: "v1")?.account, "account-b", "\(name): key account")
    }

    @MainActor
    func testC7_abandonedRequestWritesNothing() async throws {
        let name = "testC7_abandonedRequestWritesNothing"
        let cache = try makeDouble()
        let coordinator = try makeCoordinator(account: "account-a", cache: cache)
        let ticket = coordinator.begin {}
        coordinator.abandon(ticket)

        XCTAssertEqual(coordinator.inFlightCount, 0, "\(name): in flight")
        XCTAssertEqual(cache.storeCount, 0, "\(name): store count")
        XCTAssertTrue(coordinator.isCurrent(ticket), "\(name): same generation")
    }
}
