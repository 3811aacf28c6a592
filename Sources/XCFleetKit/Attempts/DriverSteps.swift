import Foundation
import XCFleetModel
import XCFleetCore
import XCFleetHostScripts

/// How the steps of the attempt machine are performed for a job source's driver (push is the
/// same for every driver and done by `AttemptExecutor`). One per attempt, used by its task only.
enum DriverSteps: Sendable {
    case swiftPM(SwiftPMSteps)
    case xcode(XcodeSteps)

    init(_ driver: JobSource.Driver, executor: AttemptExecutor, collector: EventCollector) {
        switch driver {
        case .swiftPM: self = .swiftPM(SwiftPMSteps(executor: executor, collector: collector))
        case .xcodebuild: self = .xcode(XcodeSteps(executor: executor, collector: collector))
        }
    }

    /// The discovered tests and this attempt's part (nil before `discover`).
    var discovery: TestsDiscovered? {
        switch self {
        case .swiftPM(let s): return s.discovery
        case .xcode(let s): return s.discovery
        }
    }

    /// The push made the job directory: the later steps run there.
    func use(directory: String) {
        switch self {
        case .swiftPM(let s): s.directory = directory
        case .xcode(let s): s.directory = directory
        }
    }

    /// The build to run in the push's round trip (SwiftPM: the cache script, and the test listing
    /// and the test when they can follow in the same exec), or nil.
    func chainedBuild() async -> ChainedBuild? {
        switch self {
        case .swiftPM(let s): return await s.chainedBuild()
        case .xcode: return nil // the Xcode build needs the Xcode chosen first
        }
    }

    /// The chained build ran in the push's round trip and ended so: the build step reports it.
    func chainedBuildEnded(_ termination: CommandTermination) {
        switch self {
        case .swiftPM(let s): s.chainedBuildEnded(termination)
        case .xcode: break
        }
    }

    /// The chained build exited 0 and the listing (then the test) runs on in the same exec: the
    /// discover and test steps await them.
    func chainedListingStarted(_ test: ChainedTest) {
        if case .swiftPM(let s) = self { s.chainedListingStarted(test) }
    }

    func perform(_ step: AttemptStep) async -> AttemptMachine.StepResult {
        switch self {
        case .swiftPM(let s): return await s.perform(step)
        case .xcode(let s): return await s.perform(step)
        }
    }

    /// A build this attempt claimed for the fleet and did not finish (push failed, cancelled): others may build it.
    func releaseBuildClaim() async {
        switch self {
        case .swiftPM(let s): await s.fleetClaim.release()
        case .xcode(let s): await s.fleetClaim.release()
        }
    }

    /// What the driver itself set up (a simulator), before the job directory goes.
    func cleanUp() async {
        switch self {
        case .swiftPM(let s): await s.abandonChainedTest()
        case .xcode(let s): await s.cleanUp()
        }
    }

    func resetSimulators() async {
        switch self {
        case .swiftPM: break
        case .xcode(let s): await s.resetSimulators()
        }
    }
}

/// SwiftPM: the build through the host build cache (docs/builds.md), then the cached test bundle.
final class SwiftPMSteps: @unchecked Sendable {
    let executor: AttemptExecutor
    let collector: EventCollector
    var directory = ""
    let scanner = BuildProtocolScanner()
    /// The discovered tests and this attempt's part (set by the discover step).
    var discovery: TestsDiscovered?
    /// Which discovered tests are Swift Testing's (they run through the other library).
    var swiftTesting: Set<String> = []
    /// Build once per fleet: the key this attempt builds for the fleet, or receives (`FleetBuildClaim`).
    let fleetClaim: FleetBuildClaim

    init(executor: AttemptExecutor, collector: EventCollector) {
        self.executor = executor
        self.collector = collector
        fleetClaim = FleetBuildClaim(executor: executor)
    }

    /// A build that already ran in the push's round trip (its result, judged like any other).
    var pending: AttemptMachine.StepResult?
    var chainIdentity: String?
    var chainStarted = Date()
    /// The listing and test running in the push's exec (`ChainedTest`), until the test step takes it.
    var runningTest: ChainedTest?
    /// What the chained listing printed (read by the discover step).
    let chainedListing = OutputSink(limit: 16 << 20)

    var cached: SwiftPMCachedBuild {
        SwiftPMCachedBuild(job: executor.job, shell: executor.shell, directory: directory, driver: executor.driver)
    }

    func buildCommand(_ cached: SwiftPMCachedBuild, identity: String) -> ShellCommand {
        scanner.onLocked = executor.buildStarted
        let command = unwrappedBuildCommand(cached, identity: identity)
        return executor.record?.wrap(command) ?? command
    }

    /// The cache script's command with the host's trusted builds (always this job's key's own).
    func unwrappedBuildCommand(_ cached: SwiftPMCachedBuild, identity: String) -> ShellCommand {
        let host = executor.shell.host.name
        return cached.buildCommand(toolchain: identity, trusted: executor.buildTrust.digests(host: host, including: cached.key(toolchain: identity).hex),
                                   pending: Array(executor.fleetBuilds?.building(on: host) ?? []))
    }

    /// The cache script for the push's round trip, once the toolchain identity is known (admission
    /// seeds it); nil when it is not (the build step then asks for it and runs the build itself).
    /// A template job's test listing and test ride the same exec (`ChainedTest`).
    func chainedBuild() async -> ChainedBuild? {
        guard let identity = try? await executor.toolchains.identity(for: executor.shell) else { return nil }
        // Another host builds or built this key: receive it in the build step instead.
        guard await fleetClaim.claimNow(key: cached.key(toolchain: identity).hex) else { return nil }
        chainIdentity = identity
        chainStarted = Date()
        let job = executor.job, shell = executor.shell, driver = executor.driver
        let scanner = self.scanner, collector = self.collector
        let buildOutput: @Sendable (OutputChunk) -> Void = { chunk in
            scanner.consume(chunk)
            collector.consume(chunk)
        }
        let test = chainableTest(identity: identity, buildOutput: buildOutput)
        return ChainedBuild(command: { [self] dir in
            let cached = SwiftPMCachedBuild(job: job, shell: shell, directory: dir, driver: driver)
            if let test, let both = chainedCommand(cached, identity: identity, test: test) { return both }
            return buildCommand(cached, identity: identity)
        }, output: { chunk in if let test { test.route(chunk) } else { buildOutput(chunk) } }, test: test)
    }

    func chainedBuildEnded(_ termination: CommandTermination) {
        guard let identity = chainIdentity else { return }
        pending = buildEnded(termination, identity: identity, started: chainStarted)
    }

    /// What one SSH exec request can carry, with room to spare (libssh2 sends packets of at most
    /// 35,000 bytes; the environment and PATH settings go in front of the command).
    static let sshExecLimit = 30_000

    /// The push check in front of a chained build (its manifest goes on stdin).
    var pushCheckBytes: Int {
        ShellQuote.join(PushCacheScript.check(workRoot: executor.shell.host.workRoot, directory: directory, createDirectory: true,
                                              chained: true).arguments).utf8.count + 200
    }

    func perform(_ step: AttemptStep) async -> AttemptMachine.StepResult {
        if step == .build, let pending {
            self.pending = nil
            return pending
        }
        switch step {
        case .push: return .collected // the executor's step
        case .build: return await build()
        case .discover: return await discover()
        case .test:
            if let test = runningTest {
                runningTest = nil
                // The chained test runs every listed test, or the part chosen from the key's known
                // listing; a fresh listing that chose otherwise runs its part on its own.
                guard let found = discovery, test.runs(found) else {
                    await stopChainedTest(test)
                    return await runDiscoveredTests()
                }
                return await chainedTestEnded(test)
            }
            return await runDiscoveredTests()
        case .collect:
            await executor.collectAttachments(jobDirectory: directory, events: collector.events)
            return .collected
        }
    }

    /// The build through the host build cache (or the fleet's products received first).
    private func build() async -> AttemptMachine.StepResult {
        let shell = executor.shell
        let timeouts = executor.job.spec.timeouts
        let cached = self.cached
        let scanner = self.scanner, collector = self.collector
        do {
            let identity = try await executor.toolchains.identity(for: shell)
            await fleetClaim.receive(cached.key(toolchain: identity), identity: identity, productGlob: cached.productGlob, readOnly: true)
            let command = buildCommand(cached, identity: identity)
            let started = Date()
            let termination = try await shell.run(command, in: directory,
                                                  deadlines: CommandDeadlines(total: timeouts.build, silence: timeouts.silence)) { chunk in
                scanner.consume(chunk)
                collector.consume(chunk)
            }
            return buildEnded(termination, identity: identity, started: started)
        } catch let error as RemoteShellError {
            return .failed(error.kind == .connect ? .hostLost(error.description) : .host(error.description), timedOut: error.kind == .timeout)
        } catch is CancellationError {
            return .cancelled
        } catch {
            return .failed(.host("\(shell.host.name): \(error)"))
        }
    }

    /// A build command ended: its record (for the trust and the log), an unusable cache, a compiler error seen.
    func buildEnded(_ termination: CommandTermination, identity: String, started: Date) -> AttemptMachine.StepResult {
        let shell = executor.shell, ref = executor.ref, log = executor.log
        collector.finishStream()
        let record = termination == .exited(0) ? scanner.record(host: shell.host.name, key: cached.key(toolchain: identity), started: started) : nil
        fleetClaim.finished(key: cached.key(toolchain: identity).hex, product: record?.product)
        if let record {
            executor.buildTrust.record(record)
            log.append(.build(ref, record))
            executor.buildFinished?()
            if let why = record.untrusted {
                log.append(.note("\(ref.jobID) attempt \(ref.attempt): the build \(record.key.prefix(12)) on \(shell.host.name) was not trusted (\(why)); rebuilt"))
            }
        }
        if termination == .exited(BuildCacheScript.unusableStatus) {
            return .failed(.buildCacheUnusable("build cache on \(shell.host.name) unusable: " + (scanner.problems.first ?? "see the attempt's log")),
                           termination: termination)
        }
        let sawBuildError = collector.events.contains { if case .buildError = $0 { return true } else { return false } }
        return .ended(termination, sawBuildError: sawBuildError)
    }
}

/// Xcode: the steps of `XcodebuildJob` (toolchain, build-for-testing through the host build cache,
/// simulator, test-without-building, result bundle, simulator cleanup; see docs/xcode.md).
final class XcodeSteps: @unchecked Sendable {
    let executor: AttemptExecutor
    let collector: EventCollector
    var directory = ""
    private var job: XcodebuildJob?
    private var session: XcodebuildJob.Session?
    private var injected = 0
    /// The discovered tests and this attempt's part (after `discover`).
    var discovery: TestsDiscovered? { session?.outcome.discovery }
    /// Build once per fleet: the key this attempt builds for the fleet, or receives.
    let fleetClaim: FleetBuildClaim

    init(executor: AttemptExecutor, collector: EventCollector) {
        self.executor = executor
        self.collector = collector
        fleetClaim = FleetBuildClaim(executor: executor)
    }

    private func prepared() -> (XcodebuildJob, XcodebuildJob.Session) {
        if let job, let session { return (job, session) }
        let shell = executor.shell
        var cache = XcodeCachedBuild(workspace: executor.job.workspace, workRoot: shell.host.workRoot,
                                     limits: shell.host.cache ?? CacheLimits(), jobDirectory: directory)
        cache.trusted = executor.buildTrust.digests(host: shell.host.name, newest: BuildTrust.sentLimit)
        cache.pending = Array(executor.fleetBuilds?.building(on: shell.host.name) ?? [])
        var made = XcodebuildJob(shell: shell, directory: directory, input: XcodebuildJob.Input(job: executor.job),
                                 deadlines: XcodebuildJob.Deadlines(timeouts: executor.job.spec.timeouts), cache: cache)
        made.buildStarted = executor.buildStarted
        // Another host of the class builds or built the key: its products folder is received instead.
        let claim = fleetClaim
        made.receiveBuild = { key, identity in
            await claim.receive(key, identity: identity, productGlob: XcodeCachedBuild.productGlob, readOnly: false)
        }
        made.buildEnded = { key, product in claim.finished(key: key.hex, product: product) }
        made.input.testEnvironment[AttachmentScript.variable] = AttemptExecutor.attachmentsFolder(jobDirectory: directory)
        let s = made.makeSession()
        job = made
        session = s
        return (made, s)
    }

    private var progress: @Sendable (XcodebuildJob.Progress) -> Void {
        let log = executor.log, ref = executor.ref
        return { p in
            switch p {
            case .note(let text): log.append(.note("\(ref.jobID) attempt \(ref.attempt): \(text)"))
            case .phaseStarted, .phaseFinished: break // the machine's phases are logged by the executor
            }
        }
    }

    func perform(_ step: AttemptStep) async -> AttemptMachine.StepResult {
        let (xcode, session) = prepared()
        let collector = self.collector
        if step == .test { await makeAttachmentsFolder() }
        let result = await xcode.perform(step, in: session, output: { collector.consume($0) }, progress: progress)
        collector.finishStream()
        if step == .build, let record = session.outcome.build {
            executor.buildTrust.record(record)
            executor.log.append(.build(executor.ref, record))
            executor.buildFinished?()
            session.outcome.build = nil
        }
        if step == .discover, let found = session.outcome.discovery { executor.log.append(.testsDiscovered(executor.ref, found)) }
        // The result bundle's corrections and the disagreements follow the streamed events.
        for e in session.outcome.extraEvents.dropFirst(injected) { collector.inject(e) }
        injected = session.outcome.extraEvents.count
        if step == .collect {
            let exported = await xcode.exportFailureAttachments(session, progress: progress)
            await executor.collectAttachments(jobDirectory: directory, events: collector.events, extra: exported)
        }
        return result
    }

    /// The test process writes into the attachments folder (the simulator's processes run as the
    /// login user and see the Mac's file system): it must exist before the run.
    private func makeAttachmentsFolder() async {
        let folder = AttemptExecutor.attachmentsFolder(jobDirectory: directory)
        _ = try? await executor.shell.run(ShellCommand(["mkdir", "-p", "-m", "700", "--", folder]), in: directory,
                                          deadlines: CommandDeadlines(total: 30, silence: 30)) { _ in }
    }

    func cleanUp() async {
        guard let job, let session else { return }
        await job.cleanUp(session, progress: progress)
    }

    func resetSimulators() async {
        guard let job, let session else { return }
        await job.resetSimulators(session)
    }
}
