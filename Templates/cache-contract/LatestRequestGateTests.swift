import Foundation
import XCTest

/// K5 (and K6/K11) on the Combine-free gate, so that the rule also runs on Linux.
final class LatestRequestGateTests: XCTestCase {
    override func setUpWithError() throws { try ContractClaims.require(self) }

    @MainActor
    func testK5_latestRequestWinsOutOfOrder() async throws {
        let gate = try makeRequestGate(initial: "idle")
        let a = gate.begin()
        let b = gate.begin()

        XCTAssertTrue(gate.deliver("B", for: b), "request=\(b) events=[startA,startB,deliverB] state=\(gate.state)")
        XCTAssertFalse(gate.deliver("A", for: a), "request=\(a) events=[startA,startB,deliverB,deliverA] state=\(gate.state)")
        XCTAssertEqual(gate.state, "B", "events=[startA,startB,deliverB,deliverA] final state")
        XCTAssertLessThan(a, b, "ids increase")
    }

    @MainActor
    func testK5_inOrderDeliveryWritesEachLatest() async throws {
        let gate = try makeRequestGate(initial: "0")
        let first = gate.begin()
        XCTAssertTrue(gate.deliver("1", for: first), "request=\(first)")
        let second = gate.begin()
        XCTAssertTrue(gate.deliver("2", for: second), "request=\(second)")
        XCTAssertFalse(gate.deliver("99", for: 0), "request=0 never written")
        XCTAssertEqual(gate.state, "2", "final state")
    }

    @MainActor
    func testK6_closedGateDropsLateResponseAndKeepsWrittenState() async throws {
        let gate = try makeRequestGate(initial: "idle")
        let a = gate.begin()
        XCTAssertTrue(gate.deliver("A", for: a), "request=\(a)")
        let b = gate.begin()
        gate.close()

        XCTAssertFalse(gate.deliver("B", for: b), "request=\(b) events=[startA,deliverA,startB,close,deliverB]")
        XCTAssertEqual(gate.state, "A", "final state: written state stays (K11)")
    }
}
