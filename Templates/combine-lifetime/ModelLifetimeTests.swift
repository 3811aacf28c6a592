#if canImport(Combine)
import Combine
import XCTest

/// K4, K6, K8: object lifetime, leaving the view, one condition per case.
final class ModelLifetimeTests: XCTestCase {
    func testK4_weakCaptureReleasesModelAndItsInnerSubscription() {
        let source = ControllableSubject<Int, Never>()
        weak var weakModel: ScreenModel?
        var outer: AnyCancellable?

        do {
            let model = ScreenModel(source: source)
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

    func testK6_leavingTheViewKeepsVisibleStateOnLateResponse() {
        let source = ControllableSubject<String, RequestFailure>()
        let model = RequestViewModel()
        let id = model.start(source)

        model.leave()
        source.send("late")
        model.receive("late", for: id)

        XCTAssertEqual(model.state, "idle", model.probe.summary)
        XCTAssertEqual(source.cancelCount, 1, model.probe.summary)
        XCTAssertEqual(model.probe.finalState, "idle", model.probe.summary)
    }

    func testK6_backgroundWorkContinuesWhileViewCallbacksStop() {
        let source = ControllableSubject<String, Never>()
        let service = BackgroundService()
        service.start(source)
        var seenByView: [String] = []
        var observation: AnyCancellable? = service.observe { seenByView.append($0) }

        source.send("step-1")
        observation?.cancel()
        observation = nil
        source.send("step-2")

        XCTAssertEqual(service.progress.value, "step-2", "events=\(source.events) cancels=\(source.cancelCount) state=service")
        XCTAssertEqual(seenByView, ["idle", "step-1"], "events=\(source.events) cancels=\(source.cancelCount) state=view-\(seenByView.count)")
        XCTAssertEqual(source.cancelCount, 0, "events=\(source.events) cancels=\(source.cancelCount)")
    }

    func testK8_singleSubscription() {
        let source = ControllableSubject<String, RequestFailure>()
        let model = RequestViewModel()
        model.start(source)
        source.send("one")

        XCTAssertEqual(source.subscriptionCount, 1, model.probe.summary)
        XCTAssertEqual(source.requestCount, 1, model.probe.summary)
        XCTAssertEqual(source.liveCount, 1, model.probe.summary)
        XCTAssertEqual(model.state, "one", model.probe.summary)
    }

    func testK8_fastResubscribeKeepsOneLiveSubscription() {
        let source = ControllableSubject<String, RequestFailure>()
        let model = RequestViewModel()
        model.restart(source)
        model.restart(source)
        model.restart(source)

        XCTAssertEqual(source.subscriptionCount, 3, model.probe.summary)
        XCTAssertEqual(source.cancelCount, 2, model.probe.summary)
        XCTAssertEqual(source.liveCount, 1, model.probe.summary)
        XCTAssertEqual(model.inFlightCount, 1, model.probe.summary)
    }

    func testK8_completionWithErrorEndsTheRequest() {
        let source = ControllableSubject<String, RequestFailure>()
        let model = RequestViewModel()
        model.start(source)
        source.fail(RequestFailure(code: 1))

        XCTAssertEqual(model.inFlightCount, 0, model.probe.summary)
        XCTAssertEqual(source.cancelCount, 0, model.probe.summary)
        XCTAssertEqual(model.probe.events.last, "fail#1", model.probe.summary)
        XCTAssertEqual(model.state, "idle", model.probe.summary)
    }

    func testK8_viewReleaseCancelsTheRequest() {
        let source = ControllableSubject<String, RequestFailure>()
        weak var weakModel: RequestViewModel?
        do {
            let model = RequestViewModel()
            weakModel = model
            model.start(source)
        }

        XCTAssertNil(weakModel, "events=\(source.events) cancels=\(source.cancelCount) state=model-retained")
        XCTAssertEqual(source.cancelCount, 1, "events=\(source.events) cancels=\(source.cancelCount)")
        XCTAssertEqual(source.liveCount, 0, "events=\(source.events) cancels=\(source.cancelCount)")
    }
}
#endif
