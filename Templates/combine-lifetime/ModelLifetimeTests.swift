#if canImport(Combine)
import Combine
import XCTest

/// K4, K6, K8: object lifetime, leaving the view, one condition per case.
final class ModelLifetimeTests: XCTestCase {
    override func setUpWithError() throws { try ContractClaims.require(self) }

    func testK4_weakCaptureReleasesModelAndItsInnerSubscription() throws {
        let source = ControllableSubject<Int, Never>()
        weak var weakModel: (any ContractScreenModel)?
        var outer: AnyCancellable?

        do {
            let model = try provided(ContractSubject.makeScreenModel(source: source), "screen model (makeScreenModel)")
            weakModel = model
            outer = source.sink { [weak model] value in model?.show(value) }
            source.send(1)
            XCTAssertEqual(model.value, 1, "request=1 events=\(source.events) cancels=\(source.cancelCount)")
        }

        XCTAssertNil(weakModel, "request=1 events=\(source.events) cancels=\(source.cancelCount) state=model-retained")
        XCTAssertEqual(source.cancelCount, 1, "inner: request=1 events=\(source.events) cancels=\(source.cancelCount)")
        XCTAssertEqual(source.liveCount, 1, "outer still live: request=2 events=\(source.events) cancels=\(source.cancelCount)")

        outer?.cancel()
        XCTAssertEqual(source.cancelCount, 2, "outer: request=2 events=\(source.events) cancels=\(source.cancelCount)")
        XCTAssertEqual(source.liveCount, 0, "request=2 events=\(source.events) cancels=\(source.cancelCount)")
    }

    func testK6_leavingTheViewKeepsVisibleStateOnLateResponse() throws {
        let source = ControllableSubject<String, RequestFailure>()
        let probe = LifetimeProbe()
        let model = try requestModel(probe)
        let id = model.start(source)

        model.leave()
        source.send("late")
        model.receive("late", for: id)

        XCTAssertEqual(model.state, "idle", probe.summary)
        XCTAssertEqual(source.cancelCount, 1, probe.summary)
        XCTAssertEqual(probe.finalState, "idle", probe.summary)
    }

    func testK6_backgroundWorkContinuesWhileViewCallbacksStop() throws {
        let source = ControllableSubject<String, Never>()
        let service = try provided(ContractSubject.makeBackgroundService(), "background service (makeBackgroundService)")
        service.start(source)
        var seenByView: [String] = []
        var observation: AnyCancellable? = service.observe { seenByView.append($0) }

        source.send("step-1")
        observation?.cancel()
        observation = nil
        source.send("step-2")

        XCTAssertEqual(service.latestProgress, "step-2", "events=\(source.events) cancels=\(source.cancelCount) state=service")
        XCTAssertEqual(seenByView, ["idle", "step-1"], "events=\(source.events) cancels=\(source.cancelCount) state=view-\(seenByView.count)")
        XCTAssertEqual(source.cancelCount, 0, "events=\(source.events) cancels=\(source.cancelCount)")
    }

    func testK8_singleSubscription() throws {
        let source = ControllableSubject<String, RequestFailure>()
        let probe = LifetimeProbe()
        let model = try requestModel(probe)
        model.start(source)
        source.send("one")

        XCTAssertEqual(source.subscriptionCount, 1, probe.summary)
        XCTAssertEqual(source.requestCount, 1, probe.summary)
        XCTAssertEqual(source.liveCount, 1, probe.summary)
        XCTAssertEqual(model.state, "one", probe.summary)
    }

    func testK8_fastResubscribeKeepsOneLiveSubscription() throws {
        let source = ControllableSubject<String, RequestFailure>()
        let probe = LifetimeProbe()
        let model = try requestModel(probe)
        model.restart(source)
        model.restart(source)
        model.restart(source)

        XCTAssertEqual(source.subscriptionCount, 3, probe.summary)
        XCTAssertEqual(source.cancelCount, 2, probe.summary)
        XCTAssertEqual(source.liveCount, 1, probe.summary)
        XCTAssertEqual(model.inFlightCount, 1, probe.summary)
    }

    func testK8_completionWithErrorEndsTheRequest() throws {
        let source = ControllableSubject<String, RequestFailure>()
        let probe = LifetimeProbe()
        let model = try requestModel(probe)
        model.start(source)
        source.fail(RequestFailure(code: 1))

        XCTAssertEqual(model.inFlightCount, 0, probe.summary)
        XCTAssertEqual(source.cancelCount, 0, probe.summary)
        XCTAssertEqual(probe.events.last, "fail#1", probe.summary)
        XCTAssertEqual(model.state, "idle", probe.summary)
    }

    func testK8_viewReleaseCancelsTheRequest() throws {
        let source = ControllableSubject<String, RequestFailure>()
        weak var weakModel: (any ContractRequestModel)?
        do {
            let model = try requestModel(LifetimeProbe())
            weakModel = model
            model.start(source)
        }

        XCTAssertNil(weakModel, "events=\(source.events) cancels=\(source.cancelCount) state=model-retained")
        XCTAssertEqual(source.cancelCount, 1, "events=\(source.events) cancels=\(source.cancelCount)")
        XCTAssertEqual(source.liveCount, 0, "events=\(source.events) cancels=\(source.cancelCount)")
    }
}
#endif
