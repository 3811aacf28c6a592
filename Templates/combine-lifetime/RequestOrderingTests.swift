#if canImport(Combine)
import Combine
import XCTest

/// K5, K10, K11: latest request wins, quiet failure logs, cancel is not rollback.
final class RequestOrderingTests: XCTestCase {
    func testK5_latestRequestWinsOutOfOrder() {
        let sourceA = ControllableSubject<String, RequestFailure>()
        let sourceB = ControllableSubject<String, RequestFailure>()
        let model = RequestViewModel()

        let a = model.start(sourceA)
        let b = model.start(sourceB)
        sourceB.send("result-B")
        sourceA.send("result-A")

        XCTAssertLessThan(a, b, model.probe.summary)
        XCTAssertEqual(model.state, "result-B", model.probe.summary)
        XCTAssertEqual(model.probe.finalState, "shows#\(b)", model.probe.summary)
        XCTAssertEqual(model.probe.events, ["start#1", "start#2", "deliver#2", "deliver#1", "drop#1"], model.probe.summary)
    }

    func testK5_alreadyQueuedWriteAfterCancelIsDropped() {
        // A cancel is no barrier for work already queued elsewhere; the id check is.
        let sourceA = ControllableSubject<String, RequestFailure>()
        let sourceB = ControllableSubject<String, RequestFailure>()
        let model = RequestViewModel()

        let a = model.start(sourceA)
        model.cancel(a)
        model.start(sourceB)
        model.receive("result-A", for: a)

        XCTAssertEqual(model.state, "idle", model.probe.summary)
        sourceB.send("result-B")
        XCTAssertEqual(model.state, "result-B", model.probe.summary)
    }

    func testK10_failureSummaryCarriesOnlyIdsEventsCancelsAndState() {
        let sourceA = ControllableSubject<String, RequestFailure>()
        let sourceB = ControllableSubject<String, RequestFailure>()
        let model = RequestViewModel()
        let marker = "payload-marker-not-for-logs"

        let a = model.start(sourceA)
        model.start(sourceB)
        sourceB.send(marker)
        model.cancel(a)

        let summary = model.probe.summary
        XCTAssertEqual(summary, "request=2 events=[start#1,start#2,deliver#2,cancel#1] cancels=1 state=shows#2")
        XCTAssertFalse(summary.contains(marker), "request=2 cancels=\(model.probe.cancelCount) state=\(model.probe.finalState)")
    }

    func testK11_cancelDoesNotRollBackWrittenState() {
        let source = ControllableSubject<String, RequestFailure>()
        let model = RequestViewModel()
        let id = model.start(source)

        source.send("written")
        model.cancel(id)
        source.send("after-cancel")

        XCTAssertEqual(model.state, "written", model.probe.summary)
        XCTAssertEqual(model.probe.finalState, "shows#\(id)", model.probe.summary)
        XCTAssertEqual(source.cancelCount, 1, model.probe.summary)
    }
}
#endif
