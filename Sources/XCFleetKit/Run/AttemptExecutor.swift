import Foundation
#if canImport(Glibc)
import Glibc
#endif
import XCFleetBasics
import XCFleetModel
import XCFleetCore
import XCFleetHostScripts

/// Runs one attempt of one job on one leased host slot: push, build, test, cleanup. Every phase
/// change and parsed event goes to the event log as it happens; raw output goes to `logs/`.
struct AttemptExecutor: Sendable {
    var job: PlannedJob
    var ref: AttemptRef
    var shell: any RemoteShell
    var log: EventLog
    var logsDirectory: URL
    var driver = SwiftPMDriver()
    /// Where the attempt's commands record their process groups on the host (nil: not recorded).
    var record: ProcessRecord? = nil
    /// The quarantine's entries for this job: their failures alone do not fail the attempt, so they
    /// are not retried (a retry would only spend host time on a result that cannot change the gate).
    var quarantined: [QuarantineEntry] = []

    /// An attempt's process record on its host (`ProcessRecordScript`).
    struct ProcessRecord: Sendable {
        var leaseRoot: String
        var lease: String
        var runID: String
        var token: String

        func wrap(_ command: ShellCommand) -> ShellCommand {
            ProcessRecordScript.wrap(command, directory: ProcessRecordScript.directory(leaseRoot: leaseRoot, lease: lease),
                                     token: token, runID: runID, lease: lease)
        }
    }
    /// Toolchain identities for build keys, shared by the run's attempts.
    var toolchains = ToolchainIdentityCache()
    /// The builds xcfleet made per host, shared by the run's attempts: what a cached build must match.
    var buildTrust = BuildTrust()

    /// Runs the attempt (its end is in the event log) and returns the outcome the scheduler needs.
    func execute() async -> Scheduler.AttemptOutcome {
        let timeouts = job.spec.timeouts
        let collector = EventCollector(ref: ref, log: log, secrets: log.secrets + shell.host.secrets,
                                       logsDirectory: logsDirectory, logName: AttemptExecutor.logName(ref))
        defer { collector.close() }
        var directory: String?
        var ended = AttemptEnded()

        func phase<T>(_ p: Phase, _ body: () async throws -> T) async rethrows -> T {
            log.append(.phaseStarted(ref, phase: p))
            defer { log.append(.phaseFinished(ref, phase: p)) }
            return try await body()
        }

        do {
            let dir = try await phase(.push) { () async throws -> String in
                let dir = try await withDeadline(timeouts.push, phase: .push, host: shell.host.name) { try await shell.makeJobDirectory(jobID: ref.jobID) }
                let outcome = try await withDeadline(timeouts.push, phase: .push, host: shell.host.name) { try await shell.push(job.workspace, to: dir) }
                switch outcome {
                case .pushed(let bytes): log.append(.note("\(ref.jobID) attempt \(ref.attempt): pushed \(bytes) bytes to \(shell.host.name)"))
                case .unchanged: log.append(.note("\(ref.jobID) attempt \(ref.attempt): \(shell.host.name) already had this package"))
                }
                return dir
            }
            directory = dir
            log.append(.hostPaths(ref, prefixes: [dir]))
            if job.spec.destination != nil {
                // Apple hosts: toolchain check, build-for-testing once per key through the host build
                // cache, simulator, test-without-building, xcresult (see XcodebuildJob, XcodeCachedBuild).
                var cache = XcodeCachedBuild(workspace: job.workspace, workRoot: shell.host.workRoot,
                                             limits: shell.host.cache ?? CacheLimits(), jobDirectory: dir)
                cache.trusted = buildTrust.digests(host: shell.host.name)
                let xcode = XcodebuildJob(shell: shell, directory: dir, input: XcodebuildJob.Input(job: job),
                                          deadlines: XcodebuildJob.Deadlines(timeouts: timeouts), cache: cache)
                let outcome = await xcode.run(output: { collector.consume($0) }, progress: { p in
                    switch p {
                    case .phaseStarted(let ph): log.append(.phaseStarted(ref, phase: ph))
                    case .phaseFinished(let ph): log.append(.phaseFinished(ref, phase: ph))
                    case .note(let text): log.append(.note("\(ref.jobID) attempt \(ref.attempt): \(text)"))
                    }
                })
                collector.finishStream()
                if let record = outcome.build {
                    buildTrust.record(record)
                    log.append(.build(ref, record))
                }
                for e in outcome.extraEvents { collector.inject(e) }
                ended = outcome.ended
            } else {
                // Build through the host's build cache (docs/builds.md), then run the cached test product.
                let cached = SwiftPMCachedBuild(job: job, shell: shell, directory: dir, driver: driver)
                let scanner = BuildProtocolScanner()
                phases: for p in [Phase.build, .test] {
                    let termination = try await phase(p) { () async throws -> CommandTermination in
                        let command: ShellCommand
                        if p == .build {
                            let identity = try await toolchains.identity(for: shell)
                            command = cached.buildCommand(toolchain: identity, trusted: buildTrust.digests(host: shell.host.name))
                        } else {
                            command = try cached.testCommand(products: scanner.products, toolchain: try await toolchains.identity(for: shell))
                        }
                        let started = Date()
                        let t = try await shell.run(record?.wrap(command) ?? command, in: dir, deadlines: CommandDeadlines(total: p == .build ? timeouts.build : timeouts.test,
                                                                                             silence: timeouts.silence)) { chunk in
                            if p == .build { scanner.consume(chunk) }
                            collector.consume(chunk)
                        }
                        if p == .build, t == .exited(0) {
                            let identity = try await toolchains.identity(for: shell)
                            if let record = scanner.record(host: shell.host.name, key: cached.key(toolchain: identity), started: started) {
                                buildTrust.record(record)
                                log.append(.build(ref, record))
                                if let why = record.untrusted {
                                    log.append(.note("\(ref.jobID) attempt \(ref.attempt): the build \(record.key.prefix(12)) on \(shell.host.name) was not trusted (\(why)); rebuilt"))
                                }
                            }
                        }
                        return t
                    }
                    collector.finishStream()
                    ended.termination = termination
                    switch termination {
                    case .exited(0):
                        continue phases
                    case .exited(BuildCacheScript.unusableStatus) where p == .build:
                        ended.infraError = "build cache on \(shell.host.name) unusable: " + (scanner.problems.first ?? "see the attempt's log")
                    case .timedOut:
                        ended.timedOutPhase = p
                    case .connectionLost(let why):
                        ended.infraError = "connection to \(shell.host.name) lost during \(p.rawValue): \(why)"
                    case .exited(let code) where p == .build:
                        if !collector.events.contains(where: { if case .buildError = $0 { return true } else { return false } }) {
                            collector.inject(.buildError(file: nil, line: nil, message: "swift build exited with status \(code)"))
                        }
                    case .signaled("SIGKILL"):
                        // Nothing in a test run sends SIGKILL itself: the host did (OOM killer, reboot, an operator).
                        ended.infraError = "\(p.rawValue) process on \(shell.host.name) was killed by the host (SIGKILL)"
                    case .cancelled, .exited, .signaled:
                        break
                    }
                    break phases
                }
            }
        } catch let error as RemoteShellError {
            if error.kind == .timeout { ended.timedOutPhase = .push }
            ended.infraError = error.description
        } catch is CancellationError {
            ended.termination = .cancelled
        } catch {
            ended.infraError = "\(shell.host.name): \(error)"
        }

        if let dir = directory {
            // After a lost connection the host may be unreachable: a reconnect would hang until the
            // connect deadline and hold back the rerun elsewhere, so it gets a few seconds only.
            var lost = false
            if case .connectionLost? = ended.termination { lost = true }
            let limit = lost ? min(timeouts.cleanup, Self.cleanupAfterLostConnection) : timeouts.cleanup
            await phase(.cleanup) {
                do {
                    // Cleanup runs even when the attempt was cancelled (Ctrl-C): detached, so it
                    // does not inherit the cancellation, but still under its own deadline.
                    let shell = self.shell
                    let record = self.record
                    try await Task.detached {
                        try await withDeadline(limit, phase: .cleanup, host: shell.host.name) {
                            // Leftovers of the attempt's process group first (a lost connection
                            // could not kill it), then the folder; the record goes with them.
                            if let record {
                                let lines = try await HostLeaseManager.perform(ProcessRecordScript.finish(leaseRoot: record.leaseRoot, lease: record.lease, token: record.token),
                                                                               on: shell, deadlines: CommandDeadlines(total: limit, silence: limit))
                                for case .ignored(let token, let why) in ProcessRecordReport.reports(in: lines) {
                                    log.append(.note("\(shell.host.name): ignored the process record \(token): \(why)"))
                                }
                            }
                            try await shell.removeJobDirectory(dir)
                        }
                    }.value
                } catch {
                    log.append(.note("\(ref.jobID) attempt \(ref.attempt): cleanup on \(shell.host.name) failed: \(error)"))
                }
            }
        }
        log.append(.attemptEnded(ref, ended))

        let report = Collator.attemptReport(events: collector.events, ended: ended, host: shell.host.name, slot: 0, number: ref.attempt)
        let problems = Verdict.problems(of: report, expected: job.planned.expectedTests, quarantined: quarantined)
        let outcome: Scheduler.AttemptOutcome
        if let infra = ended.infraError { outcome = .infraFailure(infra) }
        else if let phase = ended.timedOutPhase {
            // A deadline in connect or push is the host's fault: rerun elsewhere.
            outcome = phase == .push || phase == .connect ? .infraFailure("\(phase.rawValue) deadline expired") : .timedOut(phase: phase)
        }
        else if ended.termination == .cancelled { outcome = .infraFailure("cancelled") }
        else if problems.isEmpty { outcome = .passed }
        else { outcome = .testsFailed }
        return outcome
    }

    /// Seconds the job directory's removal may take after the connection was lost (then it is left).
    static let cleanupAfterLostConnection: Double = 3

    /// `logs/` file of an attempt: the job id encoded injectively (`SafePath.encodedComponent`),
    /// so jobs `a.b` and `a_b` never share a log.
    static func logName(_ ref: AttemptRef) -> String {
        SafePath.encodedComponent(ref.jobID) + "-a\(ref.attempt).log"
    }
}

/// Runs `body`, failing with a timeout `RemoteShellError` when it takes longer than `seconds`.
func withDeadline<T: Sendable>(_ seconds: Double, phase: Phase, host: String, _ body: @escaping @Sendable () async throws -> T) async throws -> T {
    try await withThrowingTaskGroup(of: T.self) { group in
        group.addTask { try await body() }
        group.addTask {
            try await Task.sleep(nanoseconds: UInt64(max(0, seconds) * 1_000_000_000))
            throw RemoteShellError(.timeout, host: host, "\(phase.rawValue) took longer than \(Int(seconds)) s")
        }
        defer { group.cancelAll() }
        guard let first = try await group.next() else { throw CancellationError() }
        return first
    }
}

/// Receives output chunks (serially), redacts, writes the raw log, parses, and appends events.
final class EventCollector: @unchecked Sendable {
    private let lock = NSLock()
    private var parser = OutputParser()
    private var redactor: Redactor
    private let ref: AttemptRef
    private let log: EventLog
    private let raw: FileHandle?
    private(set) var eventsStore: [TestEvent] = []

    /// The raw log is created new (never an existing file or a link) strictly inside `logsDirectory`.
    init(ref: AttemptRef, log: EventLog, secrets: [String], logsDirectory: URL, logName: String) {
        self.ref = ref
        self.log = log
        redactor = Redactor(secrets: secrets)
        var handle: FileHandle?
        if let url = try? SafePath.child(logName, of: logsDirectory, what: "log name") {
            try? FileManager.default.createDirectory(at: logsDirectory, withIntermediateDirectories: true)
            if (try? SafePath.requireInside(url, parent: logsDirectory)) != nil {
                let fd = open(url.path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
                if fd >= 0 { handle = FileHandle(fileDescriptor: fd, closeOnDealloc: true) }
            }
        }
        raw = handle
    }

    var events: [TestEvent] { lock.lock(); defer { lock.unlock() }; return eventsStore }

    func consume(_ chunk: OutputChunk) {
        lock.lock(); defer { lock.unlock() }
        let bytes = redactor.consume(chunk.bytes)
        feed(bytes)
    }

    /// End of one command's output: flush partial lines so the next command starts clean.
    func finishStream() {
        lock.lock(); defer { lock.unlock() }
        feed(redactor.flush())
        for e in parser.finish() { record(e) }
        parser = OutputParser()
    }

    func close() {
        lock.lock(); defer { lock.unlock() }
        try? raw?.close()
    }

    /// Records an event the runner concluded itself (not parsed from output).
    func inject(_ e: TestEvent) {
        lock.lock(); defer { lock.unlock() }
        record(e)
    }

    private func feed(_ bytes: [UInt8]) {
        guard !bytes.isEmpty else { return }
        raw?.write(Data(bytes))
        for e in parser.consume(bytes) { record(e) }
    }

    private func record(_ e: TestEvent) {
        eventsStore.append(e)
        log.append(.test(ref, event: e))
    }
}
