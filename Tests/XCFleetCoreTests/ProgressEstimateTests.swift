import XCTest
@testable import XCFleetBasics
@testable import XCFleetModel
@testable import XCFleetCore
import XCFleetTestSupport

final class ProgressEstimateTests: XCTestCase {
    typealias Job = ProgressEstimate.Job

    func testNoBasisMeansNoGuess() {
        XCTAssertNil(ProgressEstimate.remaining(jobs: [Job(suite: "s", expectedTests: 3, state: .pending)], now: 5, slots: 1))
        XCTAssertNil(ProgressEstimate.remaining(jobs: [Job(suite: "s", expectedTests: 3, state: .running(started: 0, testPhaseStarted: nil, testsDone: 0))], now: 5, slots: 1))
        XCTAssertEqual(ProgressEstimate.remaining(jobs: [], now: 5, slots: 1), 0)
    }

    func testHistoryDrivesTheEstimateAndSlotsShareTheWork() throws {
        let jobs = (0..<4).map { _ in Job(suite: "s", expectedTests: 2, historySeconds: 30, state: .pending) }
        XCTAssertEqual(try XCTUnwrap(ProgressEstimate.remaining(jobs: jobs, now: 0, slots: 1)), 120, accuracy: 1e-9)
        XCTAssertEqual(try XCTUnwrap(ProgressEstimate.remaining(jobs: jobs, now: 0, slots: 4)), 30, accuracy: 1e-9)
        // The run cannot end before its longest running job, however many slots.
        let one = [Job(suite: "s", expectedTests: 2, historySeconds: 30, state: .running(started: 0, testPhaseStarted: nil, testsDone: 0))]
        XCTAssertEqual(try XCTUnwrap(ProgressEstimate.remaining(jobs: one, now: 10, slots: 8)), 20, accuracy: 1e-9)
    }

    func testAnOverrunningJobFollowsItsTestRate() throws {
        // History says 30 s, but 40 s in only 1 of 4 tests is done, 10 s after the test phase began.
        let job = Job(suite: "s", expectedTests: 4, historySeconds: 30, state: .running(started: 0, testPhaseStarted: 30, testsDone: 1))
        XCTAssertEqual(try XCTUnwrap(ProgressEstimate.remaining(jobs: [job], now: 40, slots: 1)), 30, accuracy: 1e-9)
    }

    func testFinishedJobsOfTheSameSuiteAreTheBasisWithoutHistory() throws {
        let jobs = [Job(suite: "a", expectedTests: 1, state: .done(seconds: 10)),
                    Job(suite: "b", expectedTests: 1, state: .done(seconds: 50)),
                    Job(suite: "a", expectedTests: 1, state: .pending),
                    Job(suite: "c", expectedTests: 1, state: .pending)]
        // a: 10 (its suite's mean); c: 30 (the mean of every finished job).
        XCTAssertEqual(try XCTUnwrap(ProgressEstimate.remaining(jobs: jobs, now: 60, slots: 1)), 40, accuracy: 1e-9)
    }

    func testHistorySecondsPrefersAttemptWallTime() {
        XCTAssertNil(ProgressEstimate.historySeconds(nil, suite: "s", tests: []))
        XCTAssertNil(ProgressEstimate.historySeconds(DurationHistory(), suite: "s", tests: ["T/a"]))
    }
}
