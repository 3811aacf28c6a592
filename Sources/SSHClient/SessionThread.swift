import Foundation

/// One dedicated OS thread that runs submitted closures one at a time, in order. Every blocking
/// libssh2 call of a connection runs here, never on Swift's cooperative pool (2 threads here).
final class SessionThread: @unchecked Sendable {
    private let condition = NSCondition()
    // Guarded by `condition`.
    private var queue: [() -> Void] = []
    private var stopping = false

    init(name: String) {
        let thread = Thread { [self] in self.loop() }
        thread.name = name
        thread.stackSize = 1 << 20
        thread.start()
    }

    /// Queues `work`; false when the thread is stopping (the work will never run).
    @discardableResult
    func submit(_ work: @escaping @Sendable () -> Void) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        if stopping { return false }
        queue.append(work)
        condition.signal()
        return true
    }

    /// Runs what is queued, then ends the thread. Later `submit`s are refused.
    func stop() {
        condition.lock()
        stopping = true
        condition.signal()
        condition.unlock()
    }

    private func loop() {
        while true {
            condition.lock()
            while queue.isEmpty && !stopping { condition.wait() }
            if queue.isEmpty && stopping {
                condition.unlock()
                return
            }
            let work = queue.removeFirst()
            condition.unlock()
            work()
        }
    }
}

/// A cancellation flag shared between an async caller and the connection thread.
final class CancelFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var cancelled = false

    func cancel() {
        lock.lock()
        cancelled = true
        lock.unlock()
    }

    var isCancelled: Bool {
        lock.lock()
        defer { lock.unlock() }
        return cancelled
    }
}

/// Holds a value that is only ever touched on one `SessionThread` (the reason it is `@unchecked Sendable`).
final class ThreadConfined<Value>: @unchecked Sendable {
    var value: Value
    init(_ value: Value) { self.value = value }
}
