import XCTest
@testable import XCFleetCore
import XCFleetTestSupport

/// Every transition of the pure host-recovery machine: probation, backoff, set-aside, rejoin.
final class HostRecoveryTests: XCTestCase {
    private let timing = HostRecovery.Timing(probationSeconds: 15, firstDelay: 0.5, maxDelay: 8)

    func testSuspectedHostIsProbedAtOnceAndRejoinsWhenTheProbePasses() {
        var r = HostRecovery(timing: timing)
        XCTAssertFalse(r.isRecovering)
        XCTAssertEqual(r.suspected(reason: "connection lost", now: 100), [.markUnreachable(reason: "connection lost"), .wait(seconds: 0.5)])
        XCTAssertTrue(r.isOnProbation)
        XCTAssertEqual(r.suspected(reason: "again", now: 100.1), [], "one probation at a time")
        XCTAssertEqual(r.waited(now: 100.5, workQueued: false), [.probe], "on probation the host is probed even with nothing queued")
        XCTAssertEqual(r.waited(now: 100.6, workQueued: false), [], "a probe is already out")
        XCTAssertEqual(r.probePassed(), [.rejoin(wasSetAside: false)])
        XCTAssertFalse(r.isRecovering)
        XCTAssertEqual(r.probePassed(), [], "stale")
    }

    func testBackoffDoublesUpToTheCap() {
        var r = HostRecovery(timing: timing)
        var waits: [Double] = []
        var now = 0.0
        var actions = r.suspected(reason: "lost", now: now)
        for _ in 0..<6 {
            guard case .wait(let s)? = actions.last else { return XCTFail("\(actions)") }
            waits.append(s)
            now += s
            XCTAssertEqual(r.waited(now: now, workQueued: true), [.probe])
            actions = r.probeFailed("refused", now: now)
        }
        XCTAssertEqual(waits, [0.5, 1, 2, 4, 8, 8])
    }

    func testProbationEndsInSetAsideThenProbesOnlyWhileWorkIsQueued() {
        var r = HostRecovery(timing: timing)
        _ = r.suspected(reason: "lost", now: 0)
        _ = r.waited(now: 0.5, workQueued: true)
        XCTAssertEqual(r.probeFailed("refused", now: 10), [.wait(seconds: 1)], "still within the probation")
        _ = r.waited(now: 11, workQueued: true)
        XCTAssertEqual(r.probeFailed("refused", now: 16), [.setAside(reason: "unreachable for 16 s after a lost connection: refused"), .wait(seconds: 2)])
        XCTAssertTrue(r.isSetAside)
        XCTAssertEqual(r.waited(now: 18, workQueued: false), [.wait(seconds: 4)], "nothing queued: no probe, a longer wait")
        XCTAssertEqual(r.waited(now: 22, workQueued: true), [.probe])
        XCTAssertEqual(r.probeFailed("refused", now: 23), [.wait(seconds: 8)], "set aside once only")
        XCTAssertEqual(r.waited(now: 31, workQueued: true), [.probe])
        XCTAssertEqual(r.probePassed(), [.rejoin(wasSetAside: true)])
    }

    func testUnreachableAtAdmissionStartsSetAside() {
        var r = HostRecovery(timing: timing)
        XCTAssertEqual(r.unreachable(), [.wait(seconds: 0.5)])
        XCTAssertTrue(r.isSetAside)
        XCTAssertEqual(r.unreachable(), [], "already recovering")
        XCTAssertEqual(r.suspected(reason: "x", now: 1), [], "not in the scheduler: nothing to put on probation")
        XCTAssertEqual(r.waited(now: 1, workQueued: true), [.probe])
        XCTAssertEqual(r.probePassed(), [.rejoin(wasSetAside: true)])
        XCTAssertEqual(r.suspected(reason: "lost later", now: 50), [.markUnreachable(reason: "lost later"), .wait(seconds: 0.5)], "healthy again: can be suspected")
    }

    func testStopEndsEverything() {
        var r = HostRecovery(timing: timing)
        _ = r.suspected(reason: "lost", now: 0)
        XCTAssertEqual(r.stop(), [])
        XCTAssertEqual(r.waited(now: 1, workQueued: true), [])
        XCTAssertEqual(r.probeFailed("x", now: 100), [])
        XCTAssertEqual(r.probePassed(), [])
        XCTAssertEqual(r.suspected(reason: "y", now: 101), [])
        XCTAssertFalse(r.isRecovering)
    }

    func testStaleProbeReportsAreIgnored() {
        var r = HostRecovery(timing: timing)
        XCTAssertEqual(r.probeFailed("x", now: 0), [], "healthy: no probe was out")
        _ = r.suspected(reason: "lost", now: 0)
        XCTAssertEqual(r.probeFailed("x", now: 1), [], "waiting, not probing")
        XCTAssertEqual(r.probePassed(), [])
    }
}
