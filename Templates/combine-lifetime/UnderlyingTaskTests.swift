#if canImport(Combine)
import Combine
import XCTest

/// K9: when a real task is attached, cancel must reach it and its end state is checked; no
/// business state is written after termination.
final class UnderlyingTaskTests: XCTestCase {
    override func setUpWithError() throws { try ContractClaims.require(self) }

    func testK9_cancelReachesTheUnderlyingTask() async {
        var feed: AsyncStream<Int>.Continuation?
        let stream = AsyncStream<Int> { feed = $0 }  // not makeStream(): that needs macOS 14
        let work = Task<Int, Error> {
            var total = 0
            for await value in stream { total += value }
            try Task.checkCancellation()
            return total
        }
        let source = ControllableSubject<Int, Never>()
        var state: [Int] = []
        let token = source
            .handleEvents(receiveCancel: { work.cancel() })
            .sink { value in state.append(value) }

        source.send(1)
        feed?.yield(1)
        token.cancel()
        let outcome = await work.result
        source.send(2)
        feed?.finish()

        XCTAssertTrue(work.isCancelled, "request=1 events=\(source.events) cancels=\(source.cancelCount) state=task-running")
        switch outcome {
        case .success:
            XCTFail("request=1 events=\(source.events) cancels=\(source.cancelCount) state=task-succeeded")
        case .failure(let error):
            XCTAssertTrue(error is CancellationError, "request=1 events=\(source.events) cancels=\(source.cancelCount) state=task-failed")
        }
        XCTAssertEqual(state, [1], "request=1 events=\(source.events) cancels=\(source.cancelCount) state=written-\(state.count)")
        XCTAssertEqual(source.cancelCount, 1, "request=1 events=\(source.events) cancels=\(source.cancelCount)")
    }

    func testK9_completedTaskThenCancelWritesNothingMore() async {
        let work = Task<Int, Error> { 42 }
        let source = ControllableSubject<Int, Never>()
        var state: [Int] = []
        let token = source
            .handleEvents(receiveCancel: { work.cancel() })
            .sink { value in state.append(value) }

        let outcome = await work.result
        if case .success(let value) = outcome { source.send(value) }
        token.cancel()
        source.send(43)

        XCTAssertEqual(state, [42], "request=1 events=\(source.events) cancels=\(source.cancelCount) state=written-\(state.count)")
        XCTAssertEqual(source.cancelCount, 1, "request=1 events=\(source.events) cancels=\(source.cancelCount)")
    }
}
#endif
