import XCTest
@testable import SSHClient
import XCFleetTestSupport

/// The exec loop's deadline decisions, driven with made-up times (no connection, no clock).
final class ExecDeadlineTests: XCTestCase {
    private let d = ExecDeadline(start: 100, total: 60, silence: 10, deadPeer: 30)

    func testNothingIsDueWhileOutputAndTrafficKeepComing() {
        XCTAssertEqual(d.decide(now: 105, lastOutput: 104, lastReceived: 104, cancelled: false), .keepGoing)
        XCTAssertEqual(d.decide(now: 159, lastOutput: 158, lastReceived: 158, cancelled: false), .keepGoing)
    }

    func testEachDeadlineFiresJustAfterItsLimit() {
        XCTAssertEqual(d.decide(now: 160, lastOutput: 159, lastReceived: 159, cancelled: false), .keepGoing, "exactly at the limit is not over it")
        XCTAssertEqual(d.decide(now: 160.01, lastOutput: 159, lastReceived: 159, cancelled: false), .timedOut(.total))
        XCTAssertEqual(d.decide(now: 120.01, lastOutput: 110, lastReceived: 120, cancelled: false), .timedOut(.silence))
        let quiet = ExecDeadline(start: 100, total: nil, silence: nil, deadPeer: 30)
        XCTAssertEqual(quiet.decide(now: 140, lastOutput: 100, lastReceived: 110, cancelled: false), .keepGoing)
        XCTAssertEqual(quiet.decide(now: 140.5, lastOutput: 100, lastReceived: 110, cancelled: false), .deadPeer(seconds: 30))
    }

    func testPrecedenceCancelThenTotalThenSilenceThenDeadPeer() {
        // Everything is overdue at once: the order decides which one is reported.
        let now = 1_000.0
        XCTAssertEqual(d.decide(now: now, lastOutput: 0, lastReceived: 0, cancelled: true), .cancelled)
        XCTAssertEqual(d.decide(now: now, lastOutput: 0, lastReceived: 0, cancelled: false), .timedOut(.total))
        let noTotal = ExecDeadline(start: 100, total: nil, silence: 10, deadPeer: 30)
        XCTAssertEqual(noTotal.decide(now: now, lastOutput: 0, lastReceived: 0, cancelled: false), .timedOut(.silence))
    }

    func testKeepaliveTrafficKeepsASilentCommandAliveUntilItsSilenceLimit() {
        // A quiet command on a live peer: keepalive replies count as traffic, not as output.
        let noSilence = ExecDeadline(start: 0, total: nil, silence: nil, deadPeer: 30)
        for t in stride(from: 0.0, through: 300, by: 15) {
            XCTAssertEqual(noSilence.decide(now: t, lastOutput: 0, lastReceived: t, cancelled: false), .keepGoing)
        }
    }
}
