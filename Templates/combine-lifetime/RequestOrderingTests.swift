#if canImport(Combine)
import Combine
import XCTest

/// K5, K10, K11: latest request wins, quiet failure logs, cancel is not rollback.
final class RequestOrderingTests: XCTestCase {
    override func setUpWithError() throws { try ContractClaims.require(self) }

    func testK5_latestRequestWinsOutOfOrder() throws {
        let sourceA = ControllableSubject<String, RequestFailure>()
        let sourceB = ControllableSubject<String, RequestFailure>()
        let probe = LifetimeProbe()
        let model = try requestModel(probe)

        let a = model.start(sourceA)
        let b = model.start(sourceB)
        sourceB.send("result-B")
        sourceA.send("result-A")

        XCTAssertLessThan(a, b, probe.summary)
        XCTAssertEqual(model.state, "result-B", probe.summary)
        XCTAssertEqual(probe.finalState, "shows#\(b)", probe.summary)
        XCTAssertEqual(probe.events, ["start#1", "start#2", "deliver#2", "deliver#1", "drop#1"], probe.summary)
    }

    func testK5_alreadyQueuedWriteAfterCancelIsDropped() throws {
        // A cancel is no barrier for work already queued elsewhere; the id check is.
        let sourceA = ControllableSubject<String, RequestFailure>()
        let sourceB = ControllableSubject<String, RequestFailure>()
        let probe = LifetimeProbe()
        let model = try requestModel(probe)

        let a = model.start(sourceA)
        model.cancel(a)
        model.start(sourceB)
        model.receive("result-A", for: a)

        XCTAssertEqual(model.state, "idle", probe.summary)
        sourceB.send("result-B")
        XCTAssertEqual(model.state, "result-B", probe.summary)
    }

    func testK10_failureSummaryCarriesOnlyIdsEventsCancelsAndState() throws {
        let sourceA = ControllableSubject<String, RequestFailure>()
        let sourceB = ControllableSubject<String, RequestFailure>()
        let probe = LifetimeProbe()
        let model = try requestModel(probe)
        let marker = "payload-marker-not-for-logs"

        let a = model.start(sourceA)
        model.start(sourceB)
        sourceB.send(marker)
        model.cancel(a)

        let summary = probe.summary
        XCTAssertEqual(summary, "request=2 events=[start#1,start#2,deliver#2,cancel#1] cancels=1 state=shows#2")
        XCTAssertFalse(summary.contains(marker), "request=2 cancels=\(probe.cancelCount) state=\(probe.finalState)")
    }

    func testK11_cancelDoesNotRollBackWrittenState() throws {
        let source = ControllableSubject<String, RequestFailure>()
        let probe = LifetimeProbe()
        let model = try requestModel(probe)
        let id = model.start(source)

        source.send("written")
        model.cancel(id)
        source.send("after-cancel")

        XCTAssertEqual(model.state, "written", probe.summary)
        XCTAssertEqual(probe.finalState, "shows#\(id)", probe.summary)
        XCTAssertEqual(source.cancelCount, 1, probe.summary)
    }
}
#endif
