import Foundation
import XCFleetBasics
import XCFleetModel

/// The test step of a SwiftPM template job riding the exec of the push check and the build cache
/// (one round trip before the test on a warm host). The chained command runs the build cache
/// script; only when it exits 0 (the build verified: cached with the digest xcfleet recorded, or
/// just built) and the test bundle is there does it print a marker line with a fresh nonce on
/// stdout and on stderr and `exec` the test. Output before a stream's marker is the build's, after
/// it the test's; once both markers arrived the push and build steps end (judged as always) and
/// the test step awaits the rest of the same exec. Without the markers the exec ended with the
/// build: the test step then runs on its own as before.
///
/// Deadlines: the exec's own total covers build and test; the build's and the test's totals are
/// kept here (`timer`): the build's until the markers, the test's from then on. When one expires
/// the exec is cancelled (its process group killed) and that step ends `timedOut("total")`.
final class ChainedTest: @unchecked Sendable {
    let nonce: String
    /// The test bundle the chained test runs (the build cache's product for the key).
    let bundle: String
    private let lock = NSLock()
    /// Held while test output is handed on, so that held chunks and new ones keep their order.
    private let delivery = NSLock()
    private var out: MarkerSplitter
    private var err: MarkerSplitter
    private var waiter: CheckedContinuation<Bool, Never>?
    private var reached: Bool?
    private var execTask: Task<Result<JobPreparation, Error>, Never>?
    private var timer: Task<Void, Never>?
    /// Which deadline is armed: an older timer that wakes late changes nothing.
    private var generation = 0
    private var expired = false
    private var finished = false
    /// Test output waits here until the test step begins (the build is judged and its phases logged first).
    private var held: [OutputChunk] = []
    private var opened = false
    private let buildSeconds: Double
    private let testSeconds: Double
    private let buildOutput: @Sendable (OutputChunk) -> Void
    private let testOutput: @Sendable (OutputChunk) -> Void

    init(bundle: String, buildSeconds: Double, testSeconds: Double,
         buildOutput: @escaping @Sendable (OutputChunk) -> Void, testOutput: @escaping @Sendable (OutputChunk) -> Void) {
        var rng = SystemRandomNumberGenerator()
        nonce = (0..<4).map { _ in String(format: "%08x", UInt32.random(in: .min ... .max, using: &rng)) }.joined()
        let marker = Array(("XCFLEET-TEST " + nonce + "\n").utf8)
        out = MarkerSplitter(marker: marker)
        err = MarkerSplitter(marker: marker)
        self.bundle = bundle
        self.buildSeconds = buildSeconds
        self.testSeconds = testSeconds
        self.buildOutput = buildOutput
        self.testOutput = testOutput
    }

    /// The shell text that ends the build part and starts the test: `build` is the build cache's
    /// command (its arguments follow the script as `"$@"`), `test` the test's, run only when the
    /// build exited 0 and the bundle exists. The exit status is the build's when it failed, else
    /// the test's (0 when the test did not start). Nil when the commands cannot be joined so (a
    /// command that reads an input of its own does not share the exec's).
    func command(build: ShellCommand, test: ShellCommand) -> ShellCommand? {
        guard build.environment.isEmpty, build.input == nil, test.input == nil,
              test.environment.keys.allSatisfy(ShellQuote.isValidName) else { return nil }
        let exports = test.environment.keys.sorted().map { "\($0)=\(ShellQuote.quote(test.environment[$0] ?? "")); export \($0); " }.joined()
        let script = #""$@"; st=$?; [ "$st" -eq 0 ] || exit "$st"; [ -e "# + ShellQuote.quote(bundle) + " ] || exit 0; "
            + "printf 'XCFLEET-TEST %s\\n' \(nonce); printf 'XCFLEET-TEST %s\\n' \(nonce) >&2; "
            + exports + "exec " + ShellQuote.join(test.arguments)
        return ShellCommand(["sh", "-c", script, "sh"] + build.arguments)
    }

    /// Routes one chunk of the exec's output to the build's or the test's consumer.
    func route(_ chunk: OutputChunk) {
        lock.lock()
        let (before, after) = chunk.stream == .stdout ? out.consume(chunk.bytes) : err.consume(chunk.bytes)
        let both = out.switched && err.switched
        lock.unlock()
        if !before.isEmpty { buildOutput(OutputChunk(stream: chunk.stream, bytes: before)) }
        if both { resolve(true) }
        if !after.isEmpty { deliver(OutputChunk(stream: chunk.stream, bytes: after)) }
    }

    /// Starts the exec (the push with the chained command) and the build's deadline.
    func start(_ exec: @escaping @Sendable () async throws -> JobPreparation) {
        // Armed before the exec starts: a marker that arrives at once arms the test's deadline
        // after this one, never before it (which would leave the build's deadline on the test).
        arm(buildSeconds)
        let task = Task { () -> Result<JobPreparation, Error> in
            let r: Result<JobPreparation, Error>
            do { r = .success(try await exec()) } catch { r = .failure(error) }
            self.resolve(self.markExecFinished())
            return r
        }
        lock.lock()
        execTask = task
        let cancelNow = expired
        lock.unlock()
        if cancelNow { task.cancel() }
    }

    /// Waits until the test started in the exec (true) or the exec ended without it (false).
    /// Cancelling the caller cancels the exec.
    func waitForTest() async -> Bool {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (c: CheckedContinuation<Bool, Never>) in
                lock.lock()
                if let reached { lock.unlock(); c.resume(returning: reached); return }
                waiter = c
                lock.unlock()
            }
        } onCancel: { self.cancel() }
    }

    /// The test step began: its output (held until now) goes on.
    func open() {
        delivery.lock()
        defer { delivery.unlock() }
        lock.lock()
        let chunks = held
        held = []
        opened = true
        lock.unlock()
        for c in chunks { testOutput(c) }
    }

    /// The exec's end (the push's, and the test's when it started), with what was held back
    /// (a last line without a newline) handed on. `timedOut`: a step's deadline cancelled it.
    /// Cancelling the caller cancels the exec.
    func execEnded() async -> (result: Result<JobPreparation, Error>, timedOut: Bool) {
        guard let task = lock.withLock({ execTask }) else { return (.failure(CancellationError()), false) }
        let result = await withTaskCancellationHandler { await task.value } onCancel: { task.cancel() }
        let (timedOut, o, e, outTest, errTest) = lock.withLock { () -> (Bool, [UInt8], [UInt8], Bool, Bool) in
            timer?.cancel()
            return (expired, out.flush(), err.flush(), out.switched, err.switched)
        }
        for (bytes, stream, test) in [(o, OutputStreamKind.stdout, outTest), (e, .stderr, errTest)] where !bytes.isEmpty {
            if test { deliver(OutputChunk(stream: stream, bytes: bytes)) } else { buildOutput(OutputChunk(stream: stream, bytes: bytes)) }
        }
        return (result, timedOut)
    }

    /// Stops the exec (an attempt that ended before its test step) and waits for it.
    func abandon() async {
        cancel()
        _ = await execEnded()
    }

    private func deliver(_ chunk: OutputChunk) {
        delivery.lock()
        defer { delivery.unlock() }
        lock.lock()
        if !opened {
            held.append(chunk)
            lock.unlock()
            return
        }
        lock.unlock()
        testOutput(chunk)
    }

    /// The exec returned: no deadline applies any more. True when the test had started.
    private func markExecFinished() -> Bool {
        lock.lock()
        defer { lock.unlock() }
        finished = true
        return out.switched
    }

    private func expire(_ armed: Int) {
        lock.lock()
        if finished || armed != generation { lock.unlock(); return }
        expired = true
        let task = execTask
        lock.unlock()
        task?.cancel()
    }

    private func cancel() {
        lock.lock()
        let task = execTask
        lock.unlock()
        task?.cancel()
    }

    private func resolve(_ value: Bool) {
        lock.lock()
        guard reached == nil else { lock.unlock(); return }
        reached = value
        let w = waiter
        waiter = nil
        lock.unlock()
        if value { arm(testSeconds) }
        w?.resume(returning: value)
    }

    /// The running part's total deadline: when it expires, the exec is cancelled.
    private func arm(_ seconds: Double) {
        lock.lock()
        generation += 1
        let armed = generation
        timer?.cancel()
        timer = Task { [weak self] in
            try? await Task.sleep(nanoseconds: UInt64(max(0, seconds) * 1_000_000_000))
            guard !Task.isCancelled, let self else { return }
            self.expire(armed)
        }
        lock.unlock()
    }
}

/// One stream's split at a marker line: bytes before it (whole lines, so that a marker is only
/// ever seen at the start of a line), then everything after it.
struct MarkerSplitter {
    let marker: [UInt8]
    private(set) var switched = false
    private var line: [UInt8] = []
    /// The current line was already forwarded in part (longer than the marker): it is not the marker.
    private var forwarding = false

    init(marker: [UInt8]) { self.marker = marker }

    /// (before the marker, after it).
    mutating func consume(_ bytes: [UInt8]) -> ([UInt8], [UInt8]) {
        if switched { return ([], bytes) }
        var before: [UInt8] = []
        var i = bytes.startIndex
        while i < bytes.endIndex {
            let b = bytes[i]
            i += 1
            if forwarding {
                before.append(b)
                if b == 0x0A { forwarding = false }
                continue
            }
            line.append(b)
            if line == marker {
                switched = true
                line = []
                return (before, Array(bytes[i...]))
            }
            if b == 0x0A || line.count >= marker.count || !marker.starts(with: line) {
                before += line
                forwarding = b != 0x0A
                line = []
            }
        }
        return (before, [])
    }

    mutating func flush() -> [UInt8] {
        defer { line = [] }
        return line
    }
}
