#if canImport(Combine)
import Combine
import Dispatch
import XCTest

/// K7: no sleeping. The synchronous core is asserted right after each action; the
/// `receive(on:)` boundary is driven by a queue the test suspends and drains, or by an
/// explicit completion signal. A delay would never prove that no late event arrives.
final class SchedulerBoundaryTests: XCTestCase {
    override func setUpWithError() throws { try ContractClaims.require(self) }

    func testK7_synchronousCoreNeedsNoWaiting() {
        let source = ControllableSubject<Int, Never>()
        var received: [Int] = []
        let token = source.map { $0 * 2 }.sink { received.append($0) }

        source.send(1)
        XCTAssertEqual(received, [2], "request=1 events=\(source.events) cancels=\(source.cancelCount)")
        source.send(2)
        XCTAssertEqual(received, [2, 4], "request=1 events=\(source.events) cancels=\(source.cancelCount)")
        token.cancel()
    }

    func testK7_boundaryDrivenByASuspendedQueue() {
        let queue = DispatchQueue(label: "xcfleet.k7.boundary")
        let source = ControllableSubject<Int, Never>()
        var received: [Int] = []
        let token = source.receive(on: queue).sink { received.append($0) }
        queue.sync {}

        queue.suspend()
        source.send(1)
        XCTAssertEqual(received, [], "held at the boundary: events=\(source.events) cancels=\(source.cancelCount)")
        queue.resume()
        queue.sync {}

        XCTAssertEqual(received, [1], "after drain: events=\(source.events) cancels=\(source.cancelCount)")
        token.cancel()
    }

    func testK7_boundaryDrivenByAnExplicitSignal() {
        let queue = DispatchQueue(label: "xcfleet.k7.signal")
        let source = ControllableSubject<Int, Never>()
        let delivered = expectation(description: "value crossed the boundary")
        var received: [Int] = []
        let token = source.receive(on: queue).sink { value in
            received.append(value)
            delivered.fulfill()
        }

        source.send(5)
        wait(for: [delivered], timeout: 10)

        XCTAssertEqual(received, [5], "events=\(source.events) cancels=\(source.cancelCount)")
        token.cancel()
    }
}
#endif
