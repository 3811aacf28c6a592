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
    /// The test listings the run's attempts printed, by build key (shared by them).
    var listings = KnownListings()
    /// The run's builds across hosts (build once per fleet); nil: every host builds for itself.
    var fleetBuilds: FleetBuilds? = nil
    /// Opens a shell to another host of the run (the source of a relayed build).
    var openShell: (@Sendable (String) async throws -> any RemoteShell)? = nil
    /// What the run's attempts fetched as attachments so far, shared by them: the run cap.
    var attachmentBudget = AttachmentBudget()

    /// Called when the attempt's build takes the host's build lock (it compiles: nothing cached).
    var buildStarted: (@Sendable () -> Void)? = nil
    /// Called when the attempt's build step has the job's build (cached, built or received): other
    /// jobs of its key may start on the host now, before this attempt's tests end.
    var buildFinished: (@Sendable () -> Void)? = nil
    /// Called once with the attempt's outcome, as soon as it is known. Set, an attempt whose host is
    /// fine gets its verdict before its cleanup (`AttemptMachine.Plan.cleanupAfterVerdict`), which
    /// then still runs before `execute` returns: the caller keeps the slot until then.
    var verdict: (@Sendable (Scheduler.AttemptOutcome, _ notPassed: [String]?) async -> Void)? = nil

    /// Asked as the attempt's cleanup starts: slot leases the run no longer needs, released by the
    /// cleanup's own exec after the job directory is gone (one round trip less at the run's end),
    /// and told how that went (nil reply: the release did not report).
    var leaseRelease: LeaseReleaseHandOff? = nil
    struct LeaseReleaseHandOff: Sendable {
        var take: @Sendable () async -> SlotRelease?
        var settle: @Sendable (SlotRelease, _ reply: (lines: [[String]], status: Int32)?) async -> Void
    }

    /// Runs the attempt through the `AttemptMachine` (its end is in the event log) and returns the
    /// outcome the scheduler needs. The job's source decides the steps; this loop only performs them.
    func execute() async -> Scheduler.AttemptOutcome { await executeForRerun().outcome }

    /// `execute`, plus the discovered tests this attempt did not see passing:
    /// what a rerun after test failures runs again.
    func executeForRerun() async -> (outcome: Scheduler.AttemptOutcome, notPassed: [String]?) {
        let collector = EventCollector(ref: ref, log: log, secrets: log.secrets + shell.host.secrets,
                                       logsDirectory: logsDirectory, logName: AttemptExecutor.logName(ref))
        defer { collector.close() }
        var machine = AttemptMachine(AttemptMachine.Plan(source: job.source, host: shell.host.name, cleanupSeconds: job.spec.timeouts.cleanup,
                                                         cleanupAfterLostConnectionSeconds: Self.cleanupAfterLostConnection,
                                                         cleanupAfterVerdict: verdict != nil))
        let steps = DriverSteps(job.source.driver, executor: self, collector: collector)
        var concluded: (outcome: Scheduler.AttemptOutcome, notPassed: [String]?)?
        _ = await driveAttempt(&machine, perform: { step in
            if step == .push { return await push(steps) }
            return (await steps.perform(step), nil)
        }, cleanUp: { directory, seconds in
            await steps.cleanUp()
            if let directory { await removeJobDirectory(directory, seconds: seconds) }
        }, note: { action in
            switch action {
            case .phaseStarted(let p): log.append(.phaseStarted(ref, phase: p))
            case .phaseFinished(let p): log.append(.phaseFinished(ref, phase: p))
            case .recordHostPath(let dir): log.append(.hostPaths(ref, prefixes: [dir]))
            case .recordBuildError(let message): collector.inject(.buildError(file: nil, line: nil, message: message))
            case .resetSimulators: await steps.resetSimulators()
            case .finish, .perform, .cleanUp: break
            }
        }, finished: { done in
            let result = await conclude(done, steps: steps, collector: collector)
            concluded = result
            await verdict?(result.outcome, result.notPassed)
        })
        if let concluded { return concluded }
        // The machine always finishes; this is only for a machine that somehow did not.
        let none: (outcome: Scheduler.AttemptOutcome, notPassed: [String]?) = (.infraFailure(.host("\(shell.host.name): the attempt ended without a verdict")), nil)
        await verdict?(none.outcome, none.notPassed)
        return none
    }

    /// The attempt's end: the fleet's build claim released, `attemptEnded` logged, the outcome judged.
    private func conclude(_ machine: AttemptMachine, steps: DriverSteps, collector: EventCollector) async
        -> (outcome: Scheduler.AttemptOutcome, notPassed: [String]?) {
        await steps.releaseBuildClaim()
        log.append(.attemptEnded(ref, machine.ended))
        var report = Collator.attemptReport(events: collector.events, ended: machine.ended, host: shell.host.name, slot: 0, number: ref.attempt)
        report.discovery = steps.discovery
        let problems = Verdict.problems(of: report, expected: job.planned.expectedTests, quarantined: quarantined)
        return (machine.outcome(testsPassed: problems.isEmpty), steps.discovery.map { PackageSelection.notPassed($0, attempt: report) })
    }

    /// The push step: a fresh job directory with the workspace in it. On a warm SSH host the
    /// driver's build (a cache check, usually) runs in the same round trip (`RemoteShell.prepareJob`),
    /// and a template job's test listing and test after it (`ChainedTest`): the push then ends when
    /// the listing starts.
    private func push(_ steps: DriverSteps) async -> (AttemptMachine.StepResult, createdDirectory: String?) {
        let timeouts = job.spec.timeouts
        let created = CreatedDirectory()
        let chain = await steps.chainedBuild()
        let then: @Sendable (String) throws -> ShellCommand? = chain?.command ?? { @Sendable _ in nil }
        let output: @Sendable (OutputChunk) -> Void = chain?.output ?? { @Sendable _ in }
        let shell = self.shell, job = self.job, ref = self.ref
        // With a chained test the exec's own deadline covers build, listing and test; each part's is
        // kept by `ChainedTest`.
        let total = timeouts.build + (chain?.test == nil ? 0 : 2 * timeouts.test)
        let exec: @Sendable () async throws -> JobPreparation = {
            try await shell.prepareJob(jobID: ref.jobID, workspace: job.workspace, pushSeconds: timeouts.push,
                                       directoryCreated: { created.path = $0 }, then: then,
                                       deadlines: CommandDeadlines(total: total, silence: timeouts.silence), output: output)
        }
        guard let test = chain?.test else {
            do { return pushed(.success(try await exec()), steps: steps, created: created) } catch { return pushed(.failure(error), steps: steps, created: created) }
        }
        test.start(exec)
        if await test.waitForListing(), let dir = created.path {
            steps.use(directory: dir)
            steps.chainedListingStarted(test)
            return (.pushed(directory: dir), dir)
        }
        let (result, timedOut) = await test.execEnded()
        return pushed(result, steps: steps, created: created, timedOut: timedOut)
    }

    /// The push's exec ended (with the chained build, if any). `timedOut`: the build's deadline cancelled it.
    private func pushed(_ result: Result<JobPreparation, Error>, steps: DriverSteps, created: CreatedDirectory,
                        timedOut: Bool = false) -> (AttemptMachine.StepResult, createdDirectory: String?) {
        do {
            let prepared = try result.get()
            log.append(.push(ref, Self.pushRecord(prepared.push, workspace: job.workspace, host: shell.host.name)))
            steps.use(directory: prepared.directory)
            if let built = prepared.chained { steps.chainedBuildEnded(timedOut && built == .cancelled ? .timedOut("total") : built) }
            return (.pushed(directory: prepared.directory), prepared.directory)
        } catch let error as RemoteShellError {
            return (.failed(error.kind == .connect ? .hostLost(error.description) : .host(error.description), timedOut: error.kind == .timeout), created.path)
        } catch is CancellationError where timedOut {
            return (.failed(.host("\(shell.host.name): the push and build did not finish within \(Int(job.spec.timeouts.build)) s"), timedOut: true), created.path)
        } catch is CancellationError {
            return (.cancelled, created.path)
        } catch {
            return (.failed(.host("\(shell.host.name): \(error)")), created.path)
        }
    }

    static func pushRecord(_ outcome: PushOutcome, workspace: Workspace, host: String) -> PushRecord {
        var record = PushRecord(host: host, bytesSent: 0, filesSent: 0, totalFiles: workspace.files.count, totalBytes: workspace.totalBytes)
        if case .pushed(let bytes, let files) = outcome {
            record.bytesSent = bytes
            record.filesSent = files
        }
        return record
    }

    /// Leftovers of the attempt's process group first (a lost connection could not kill it), then
    /// the folder; the record goes with them. Runs even when the attempt was cancelled (Ctrl-C):
    /// detached, so it does not inherit the cancellation, but still under its own deadline.
    private func removeJobDirectory(_ dir: String, seconds limit: Double) async {
        let shell = self.shell
        let record = self.record
        let log = self.log
        // Only the cleanup that ends the attempt's process record carries a release (after it, in
        // the same exec); the slots are settled whatever happens to that exec.
        let release = record == nil ? nil : await leaseRelease?.take()
        let released = ReleaseReply()
        do {
            try await Task.detached {
                try await withDeadline(limit, phase: .cleanup, host: shell.host.name) {
                    guard let record else { return try await shell.removeJobDirectory(dir) }
                    // One round trip where the transport can: the record's leftovers, then the folder.
                    let sink = OutputSink(limit: 1 << 20)
                    let finish = ProcessRecordScript.finish(leaseRoot: record.leaseRoot, lease: record.lease, token: record.token)
                    let termination = try await shell.finishAndRemoveJobDirectory(dir, finish: finish, release: release?.command,
                                                                                   deadlines: CommandDeadlines(total: limit, silence: limit)) { sink.add($0) }
                    let reply = CleanupReply.split(sink.stdoutText)
                    if release != nil, let status = reply.releaseStatus { released.reply = (reply.release, status) }
                    let lines = reply.finish
                    for case .ignored(let token, let why) in ProcessRecordReport.reports(in: lines) {
                        log.append(.note("\(shell.host.name): ignored the process record \(token): \(why)"))
                    }
                    if let fatal = lines.first(where: { $0.first == "fatal" }) {
                        throw HostLeaseError(host: shell.host.name, fatal.dropFirst().joined(separator: " "))
                    }
                    guard termination == .exited(0) else {
                        throw HostLeaseError(host: shell.host.name, "the process record's finish ended \(termination): \(sink.stderrTail)")
                    }
                }
            }.value
        } catch {
            log.append(.note("\(ref.jobID) attempt \(ref.attempt): cleanup on \(shell.host.name) failed: \(error)"))
        }
        if let release, let handOff = leaseRelease { await handOff.settle(release, released.reply) }
    }

    /// What the cleanup's release printed, once its exec reported it.
    private final class ReleaseReply: @unchecked Sendable {
        private let lock = NSLock()
        private var value: (lines: [[String]], status: Int32)?
        var reply: (lines: [[String]], status: Int32)? {
            get { lock.lock(); defer { lock.unlock() }; return value }
            set { lock.lock(); value = newValue; lock.unlock() }
        }
    }

    /// Seconds the job directory's removal may take after the connection was lost (then it is left).
    static let cleanupAfterLostConnection: Double = 3

    /// `logs/` file of an attempt: the job id encoded injectively (`SafePath.encodedComponent`),
    /// so jobs `a.b` and `a_b` never share a log.
    static func logName(_ ref: AttemptRef) -> String {
        SafePath.encodedComponent(ref.jobID) + "-a\(ref.attempt).log"
    }
}

/// The job directory a push made, told from the shell's callback.
private final class CreatedDirectory: @unchecked Sendable {
    private let lock = NSLock()
    private var value: String?
    var path: String? {
        get { lock.lock(); defer { lock.unlock() }; return value }
        set { lock.lock(); value = newValue; lock.unlock() }
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
