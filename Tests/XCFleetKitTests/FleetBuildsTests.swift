import Foundation
import XCTest
@testable import XCFleetKit

/// Who builds each key in a run: the first claim builds, a claim from another host while that
/// build runs waits for it and then receives it; a failed or lost build lets the next claim build.
final class FleetBuildsTests: XCTestCase {
    func testTheFirstHostBuildsAndAnotherWaitsThenReceives() async {
        let fleet = FleetBuilds()
        let first = await fleet.claim(key: "k", host: "a", seconds: 60)
        XCTAssertEqual(first, .build)
        let waiting = Task { await fleet.claim(key: "k", host: "b", seconds: 60) }
        try? await Task.sleep(nanoseconds: 50_000_000)
        await fleet.finished(key: "k", host: "a", digest: "d1")
        let second = await waiting.value
        XCTAssertEqual(second, .relay(from: "a", digest: "d1"))
        // The builder itself, and a later claim, see it built.
        let own = await fleet.claim(key: "k", host: "a", seconds: 60)
        XCTAssertEqual(own, .build, "its own cache holds it")
        let later = await fleet.claim(key: "k", host: "c", seconds: 60)
        XCTAssertEqual(later, .relay(from: "a", digest: "d1"))
    }

    func testAFailedBuildLetsTheWaiterBuildAndAWaitEndsAtItsDeadline() async {
        let fleet = FleetBuilds()
        _ = await fleet.claim(key: "k", host: "a", seconds: 60)
        let waiting = Task { await fleet.claim(key: "k", host: "b", seconds: 60) }
        try? await Task.sleep(nanoseconds: 50_000_000)
        await fleet.finished(key: "k", host: "a", digest: nil)
        let after = await waiting.value
        XCTAssertEqual(after, .build, "nobody built it: the waiter builds")
        // b now builds k: a claim from c waits at most its deadline, then builds itself.
        let started = Date()
        let timedOut = await fleet.claim(key: "k", host: "c", seconds: 0.2)
        XCTAssertEqual(timedOut, .build)
        XCTAssertLessThan(Date().timeIntervalSince(started), 5)
    }

    func testAChainedBuildIsNotStartedWhereAnotherHostBuildsAndALostHostsBuildsAreForgotten() async {
        let fleet = FleetBuilds()
        let claimedA = await fleet.claimNow(key: "k", host: "a")
        XCTAssertTrue(claimedA)
        let claimedB = await fleet.claimNow(key: "k", host: "b")
        XCTAssertFalse(claimedB, "b waits for a's build instead")
        await fleet.finished(key: "k", host: "a", digest: "d1")
        await fleet.hostGone("a")
        let afterLoss = await fleet.claimNow(key: "k", host: "b")
        XCTAssertTrue(afterLoss, "a's build cannot be received any more: b builds")
    }
}
