#if canImport(Combine)
import Combine
import XCTest

/// K1–K3: cancel stops delivery, reaches upstream once, and is not a completion.
final class SubscriptionCancelTests: XCTestCase {
    override func setUpWithError() throws { try ContractClaims.require(self) }

    func testK1_cancelStopsDeliveryAndKeepsEarlierValue() {
        let source = ControllableSubject<Int, Never>()
        var received: [Int] = []
        let token = source.sink { value in received.append(value) }

        source.send(1)
        XCTAssertEqual(received, [1], "request=1 events=\(source.events) cancels=\(source.cancelCount) state=before-cancel")
        token.cancel()
        source.send(2)

        XCTAssertEqual(received, [1], "request=1 events=\(source.events) cancels=\(source.cancelCount) state=after-cancel")
        XCTAssertEqual(source.liveCount, 0, "request=1 events=\(source.events) cancels=\(source.cancelCount)")
    }

    func testK2_doubleCancelOfSinkReachesUpstreamOnce() {
        let source = ControllableSubject<Int, Never>()
        var received: [Int] = []
        var cancellations = 0
        let token = source
            .handleEvents(receiveCancel: { cancellations += 1 })
            .sink { value in received.append(value) }

        source.send(1)
        token.cancel()
        token.cancel()
        source.send(2)

        XCTAssertEqual(cancellations, 1, "request=1 events=\(source.events) cancels=\(cancellations)")
        XCTAssertEqual(source.cancelCount, 1, "request=1 events=\(source.events) cancels=\(source.cancelCount)")
        XCTAssertEqual(received, [1], "request=1 events=\(source.events) state=received-\(received.count)")
    }

    func testK2_requestSubscriberCancelsUpstreamOnce() throws {
        let source = ControllableSubject<Int, Never>()
        var received: [Int] = []
        let subscriber = try provided(ContractSubject.subscribeRequest(source, onValue: { value in received.append(value) }),
                                      "request subscriber (subscribeRequest)")

        source.send(1)
        subscriber.cancel()
        subscriber.cancel()
        source.send(2)

        XCTAssertEqual(source.cancelCount, 1, "request=1 events=\(source.events) cancels=\(source.cancelCount)")
        XCTAssertEqual(received, [1], "request=1 events=\(source.events) state=received-\(received.count)")
    }

    func testK3_normalCompletionIsNotACancel() {
        let source = ControllableSubject<Int, RequestFailure>()
        var completions: [String] = []
        var cancellations = 0
        let token = source
            .handleEvents(receiveCancel: { cancellations += 1 })
            .sink(receiveCompletion: { completion in
                switch completion {
                case .finished: completions.append("finished")
                case .failure: completions.append("failure")
                }
            }, receiveValue: { _ in })

        source.send(1)
        source.finish()

        XCTAssertEqual(completions, ["finished"], "request=1 events=\(source.events) cancels=\(source.cancelCount)")
        XCTAssertEqual(cancellations, 0, "request=1 events=\(source.events) cancels=\(cancellations)")
        XCTAssertEqual(source.cancelCount, 0, "request=1 events=\(source.events) cancels=\(source.cancelCount)")
        XCTAssertEqual(source.liveCount, 0, "request=1 events=\(source.events) state=completed")
        withExtendedLifetime(token) {}
    }

    func testK3_errorCompletionIsNotACancel() {
        let source = ControllableSubject<Int, RequestFailure>()
        var completions: [String] = []
        var cancellations = 0
        let token = source
            .handleEvents(receiveCancel: { cancellations += 1 })
            .sink(receiveCompletion: { completion in
                switch completion {
                case .finished: completions.append("finished")
                case .failure(let failure): completions.append("failure-\(failure.code)")
                }
            }, receiveValue: { _ in })

        source.fail(RequestFailure(code: 7))

        XCTAssertEqual(completions, ["failure-7"], "request=1 events=\(source.events) cancels=\(source.cancelCount)")
        XCTAssertEqual(cancellations, 0, "request=1 events=\(source.events) cancels=\(cancellations)")
        XCTAssertEqual(source.cancelCount, 0, "request=1 events=\(source.events) cancels=\(source.cancelCount)")
        withExtendedLifetime(token) {}
    }
}
#endif
