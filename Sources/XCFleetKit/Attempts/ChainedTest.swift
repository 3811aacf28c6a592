import Foundation
import XCFleetBasics
import XCFleetModel

/// The discover and test steps of a SwiftPM template job riding the exec of the push check and
/// the build cache (one round trip before the test on a warm host). The chained command runs the
/// build cache script; only when it exits 0 (the build verified: cached with the digest xcfleet
/// recorded, or just built) and the test bundle is there does it print a listing marker line with
/// a fresh nonce on stdout and on stderr and list the bundle's tests (`PackageTestCommands.list`,
/// into a file of the job directory and then onto stdout); only when the listing exited 0 does it
/// print a test marker line the same way and `exec` the test, which runs every test that listing
/// names (`PackageTestCommands.runListed`). Output before a stream's listing marker is the build's,
/// then the listing's up to the test marker, after it the test's. Once both listing markers
/// arrived the push and build steps end (judged as always); the discover step reads the listing
/// once both test markers arrived, or, when the exec ended before them, with the exec's status as
/// the listing's; the test step awaits the rest of the same exec. Without the listing markers the
/// exec ended with the build: the discover and test steps then run on their own as before.
///
/// Deadlines: the exec's own total covers all three; each part's total is kept here (`timer`): the
/// build's until the listing markers, the listing's until the test markers, the test's from then
/// on. When one expires the exec is cancelled (its process group killed) and that step ends
/// `timedOut("total")`.
final class ChainedTest: @unchecked Sendable {
    /// The parts of the exec, in order.
    enum Part: Int, Comparable {
        case build, listing, test
        static func < (a: Part, b: Part) -> Bool { a.rawValue < b.rawValue }
    }

    /// The part of the listing a shard or a rerun runs, chosen before the push from the listing
    /// known for the key (`KnownListings`): the same tests as the fresh listing must choose, or the
    /// test step stops the chained test and runs its part on its own.
    struct Selection: Sendable {
        var selected: [String]
        var all: [String]
        var swiftTesting: Set<String>
    }

    let nonce: String
    /// The test bundle the chained test runs (the build cache's product for the key).
    let bundle: String
    /// Nil: every test the fresh listing names runs.
    let selection: Selection?
    private let lock = NSLock()
    /// Held while test output is handed on, so that held chunks and new ones keep their order.
    private let delivery = NSLock()
    private var out: PartSplitter
    private var err: PartSplitter
    private var waiters: [Part: CheckedContinuation<Bool, Never>] = [:]
    /// How far the exec got (both streams past that part's marker).
    private var reached: Part = .build
    private var execTask: Task<Result<JobPreparation, Error>, Never>?
    private var timer: Task<Void, Never>?
    /// Which deadline is armed: an older timer that wakes late changes nothing.
    private var generation = 0
    private var expired = false
    private var finished = false
    /// Test output waits here until the test step begins (the build is judged and its phases logged first).
    private var held: [OutputChunk] = []
    private var opened = false
    private let seconds: [Part: Double]
    private let buildOutput: @Sendable (OutputChunk) -> Void
    private let listingOutput: @Sendable (OutputChunk) -> Void
    private let testOutput: @Sendable (OutputChunk) -> Void

    init(bundle: String, selection: Selection? = nil, buildSeconds: Double, listSeconds: Double, testSeconds: Double,
         buildOutput: @escaping @Sendable (OutputChunk) -> Void, listingOutput: @escaping @Sendable (OutputChunk) -> Void,
         testOutput: @escaping @Sendable (OutputChunk) -> Void) {
        var rng = SystemRandomNumberGenerator()
        nonce = (0..<4).map { _ in String(format: "%08x", UInt32.random(in: .min ... .max, using: &rng)) }.joined()
        let markers = [Self.marker("LIST", nonce), Self.marker("TEST", nonce)]
        out = PartSplitter(markers: markers)
        err = PartSplitter(markers: markers)
        self.bundle = bundle
        self.selection = selection
        seconds = [.build: buildSeconds, .listing: listSeconds, .test: testSeconds]
        self.buildOutput = buildOutput
        self.listingOutput = listingOutput
        self.testOutput = testOutput
    }

    private static func marker(_ word: String, _ nonce: String) -> [UInt8] { Array(("XCFLEET-" + word + " " + nonce + "\n").utf8) }

    /// The shell text that ends the build part, lists the tests and starts the test: `build` is the
    /// build cache's command (its arguments follow the script as `"$@"`), `list` the listing's
    /// (its output goes to `listing`, a file, then onto stdout), `test` the test's, which reads
    /// that file. The listing runs only when the build exited 0 and the bundle exists, the test only
    /// when the listing exited 0. The exit status is the build's when it failed, else the
    /// listing's when it failed (a signal re-raised, `PackageTestCommands.reraise`), else the
    /// test's (0 when the listing did not start). Nil when the commands cannot be joined so (a
    /// command that reads an input of its own does not share the exec's; the listing reads none).
    func command(build: ShellCommand, list: ShellCommand, listing: String, test: ShellCommand) -> ShellCommand? {
        guard build.environment.isEmpty, list.environment.isEmpty, build.input == nil, list.input == nil, test.input == nil,
              test.environment.keys.allSatisfy(ShellQuote.isValidName) else { return nil }
        let exports = test.environment.keys.sorted().map { "\($0)=\(ShellQuote.quote(test.environment[$0] ?? "")); export \($0); " }.joined()
        let file = ShellQuote.quote(listing)
        func mark(_ word: String) -> String { "printf 'XCFLEET-\(word) %s\\n' \(nonce); printf 'XCFLEET-\(word) %s\\n' \(nonce) >&2; " }
        let script = PackageTestCommands.reraise + #""$@"; st=$?; [ "$st" -eq 0 ] || exit "$st"; [ -e "# + ShellQuote.quote(bundle) + " ] || exit 0; "
            + mark("LIST") + ShellQuote.join(list.arguments) + " < /dev/null > " + file + "; st=$?; cat " + file + #"; [ "$st" -eq 0 ] || end "$st"; "#
            + mark("TEST") + exports + "exec " + ShellQuote.join(test.arguments)
        return ShellCommand(["sh", "-c", script, "sh"] + build.arguments)
    }

    /// Whether the chained test runs exactly the part the fresh listing chose (`found`).
    func runs(_ found: TestsDiscovered) -> Bool {
        guard let selection else { return found.selected.count == found.tests.count }
        return found.selected.count == selection.selected.count && Set(found.selected) == Set(selection.selected)
    }

    /// Routes one chunk of the exec's output to the build's, the listing's or the test's consumer.
    func route(_ chunk: OutputChunk) {
        lock.lock()
        let parts = chunk.stream == .stdout ? out.consume(chunk.bytes) : err.consume(chunk.bytes)
        let both = Part(rawValue: min(out.part, err.part)) ?? .build
        lock.unlock()
        for (index, bytes) in parts.enumerated() {
            hand(bytes, of: index, stream: chunk.stream)
            // A part's markers on both streams: it has begun (once the output before them was handed on).
            if index < both.rawValue, let next = Part(rawValue: index + 1) { advance(to: next) }
        }
    }

    /// Hands on one part's bytes: the build's and the listing's at once, the test's once its step began.
    private func hand(_ bytes: [UInt8], of index: Int, stream: OutputStreamKind) {
        guard !bytes.isEmpty else { return }
        let piece = OutputChunk(stream: stream, bytes: bytes)
        switch Part(rawValue: index) ?? .test {
        case .build: buildOutput(piece)
        case .listing: listingOutput(piece)
        case .test: deliver(piece)
        }
    }

    /// Starts the exec (the push with the chained command) and the build's deadline.
    func start(_ exec: @escaping @Sendable () async throws -> JobPreparation) {
        // Armed before the exec starts: a marker that arrives at once arms the next part's deadline
        // after this one, never before it (which would leave the build's deadline on the test).
        arm(seconds[.build] ?? 0)
        let task = Task { () -> Result<JobPreparation, Error> in
            let r: Result<JobPreparation, Error>
            do { r = .success(try await exec()) } catch { r = .failure(error) }
            self.markExecFinished()
            return r
        }
        lock.lock()
        execTask = task
        let cancelNow = expired
        lock.unlock()
        if cancelNow { task.cancel() }
    }

    /// Waits until the listing started in the exec (true) or the exec ended before it (false).
    /// Cancelling the caller cancels the exec.
    func waitForListing() async -> Bool { await wait(for: .listing) }

    /// Waits until the test started in the exec (true) or the exec ended before it (false).
    /// Cancelling the caller cancels the exec.
    func waitForTest() async -> Bool { await wait(for: .test) }

    private func wait(for part: Part) async -> Bool {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (c: CheckedContinuation<Bool, Never>) in
                lock.lock()
                if reached >= part || finished { let r = reached >= part; lock.unlock(); c.resume(returning: r); return }
                waiters[part] = c
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

    /// The exec's end (the push's, and the listing's and test's when they started), with what was
    /// held back (a last line without a newline) handed on. `timedOut`: a part's deadline cancelled
    /// it. Cancelling the caller cancels the exec.
    func execEnded() async -> (result: Result<JobPreparation, Error>, timedOut: Bool) {
        guard let task = lock.withLock({ execTask }) else { return (.failure(CancellationError()), false) }
        let result = await withTaskCancellationHandler { await task.value } onCancel: { task.cancel() }
        let (timedOut, o, e) = lock.withLock { () -> (Bool, [[UInt8]], [[UInt8]]) in
            timer?.cancel()
            return (expired, out.flush(), err.flush())
        }
        for (parts, stream) in [(o, OutputStreamKind.stdout), (e, .stderr)] {
            for (index, bytes) in parts.enumerated() { hand(bytes, of: index, stream: stream) }
        }
        return (result, timedOut)
    }

    /// Stops the exec (an attempt that ended before its test step took the chained test, or whose
    /// fresh listing chose another part) and waits for it: how it ended. The test's output is held
    /// until the test step opens it, so none of a stopped test's is handed on.
    @discardableResult
    func abandon() async -> Result<JobPreparation, Error> {
        cancel()
        return await execEnded().result
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

    /// The exec returned: no deadline applies any more, and a part not reached never will be. A
    /// part whose marker came on stdout has run (its status is the exec's).
    private func markExecFinished() {
        lock.lock()
        finished = true
        if let seen = Part(rawValue: out.part), seen > reached { reached = seen }
        let ready = waiters
        waiters = [:]
        let at = reached
        lock.unlock()
        for (part, w) in ready { w.resume(returning: at >= part) }
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

    /// Both streams are past `part`'s marker: its deadline is armed and whoever waits for it goes on.
    private func advance(to part: Part) {
        lock.lock()
        guard part > reached else { lock.unlock(); return }
        reached = part
        let ready = waiters.filter { $0.key <= part }
        for key in ready.keys { waiters[key] = nil }
        lock.unlock()
        arm(seconds[part] ?? 0)
        for w in ready.values { w.resume(returning: true) }
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

/// One stream's split at a sequence of marker lines: the bytes of each part (before the first
/// marker, between the first and the second, …, after the last).
struct PartSplitter {
    private var splitters: [MarkerSplitter]
    /// The part now being read (0: before the first marker).
    private(set) var part = 0

    init(markers: [[UInt8]]) { splitters = markers.map(MarkerSplitter.init(marker:)) }

    /// The bytes for each part, indexed by part (`markers.count + 1` entries).
    mutating func consume(_ bytes: [UInt8]) -> [[UInt8]] {
        var parts = Array(repeating: [UInt8](), count: splitters.count + 1)
        var rest = bytes
        while part < splitters.count {
            let (before, after) = splitters[part].consume(rest)
            parts[part] += before
            guard splitters[part].switched else { return parts }
            part += 1
            rest = after
        }
        parts[part] += rest
        return parts
    }

    /// What is held back (a line that may still become a marker), by part.
    mutating func flush() -> [[UInt8]] {
        var parts = Array(repeating: [UInt8](), count: splitters.count + 1)
        if part < splitters.count { parts[part] = splitters[part].flush() }
        return parts
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
