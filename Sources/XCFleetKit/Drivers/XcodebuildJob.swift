import Foundation
import XCFleetModel
import XCFleetCore
import XCFleetHostScripts

/// Runs one attempt of a suite with an Apple `destination` on a Mac, over a `RemoteShell`, in a job
/// directory that already holds the pushed package:
///
/// 1. toolchain: resolve the Xcode (`XcodeToolchain`), check `xcodebuild -version`;
/// 2. build, only when `Input.needsBuild`: `xcodebuild -list -json` (scheme), then
///    `xcodebuild build-for-testing -derivedDataPath <Input.derivedDataPath>` (generic destination);
/// 3. simulator (not for macOS): list, pick or create, erase, boot, `bootstatus -b` under a deadline;
/// 4. `ls -1t <DerivedData>/Build/Products`, pick the `.xctestrun` (`XctestrunPicker`), then
///    `xcodebuild test-without-building -xctestrun …` with the job's own result bundle, streamed to `output`;
/// 5. read the result bundle with `xcresulttool` and reconcile it with the streamed events;
/// 6. shut down the simulator, delete it if this job created it (also after cancellation).
///
/// The seam for a shared build: whoever owns the host's build cache runs `build(…)` once per build
/// key (under its lock, into `<workRoot>/builds/<key>/DerivedData`), then every shard, repetition
/// and retry runs `run(…)` with that `derivedDataPath` and `needsBuild: false`. Without a cache,
/// `Input(job:)` builds into `<job directory>/DerivedData` in the same attempt (`needsBuild: true`).
/// With `cache` (`XcodeCachedBuild`, what `AttemptExecutor` passes) step 2 runs `build-for-testing`
/// through the host build cache instead (once per key; later jobs find it finished) and steps 4–5
/// read `<workRoot>/builds/<key>/DerivedData`.
///
/// The steps are those of the attempt machine (`AttemptMachine`: build, test, collect, cleanup;
/// `XcodebuildJob+Steps.swift`), which sequences and judges them exactly as for SwiftPM jobs. Never
/// throws: problems come back in `XcodebuildJob.Outcome`. Host problems (wrong Xcode, missing
/// runtime, wedged simulator, lost connection) are a typed `failure` (`AttemptFailure`), so the job
/// moves to another host; a destination the plan got wrong becomes a `.buildError` event in
/// `extraEvents` (red, not retried).
public struct XcodebuildJob: Sendable {
    /// What to run, from the planned job.
    public struct Input: Equatable, Sendable {
        public var jobID: String
        public var suite: SuiteSpec
        /// The rendered package's name (`Renderer.packageName(for:)`).
        public var packageName: String
        public var testTarget: String
        /// Where `build-for-testing` writes (and `test-without-building` reads) the build; nil:
        /// `<job directory>/DerivedData`. The host build cache passes `<workRoot>/builds/<key>/DerivedData`.
        public var derivedDataPath: String?
        /// Whether this attempt runs `build-for-testing` first. false: `derivedDataPath` already holds
        /// a complete build of this package for the destination's platform (only the tests run).
        public var needsBuild: Bool
        /// Variables for the test process (`TestRunEnvironment`), forwarded as `TEST_RUNNER_<NAME>`.
        public var testEnvironment: [String: String]
        /// A team's own workspace or project (nil: the rendered package). Either way its tests come
        /// from the build (`discover`), this attempt's part chosen by `selection`.
        public var project: XcodeProjectSuite? = nil
        /// Which of the discovered tests this attempt runs, and the configuration (project jobs).
        public var selection = Selection()

        /// A job's place among its suite's jobs, for `PackageSelection`.
        public struct Selection: Equatable, Sendable {
            public var configuration: String?
            public var shard = 0
            public var shardCount = 1
            public var durations: [String: Double] = [:]
            /// A rerun after test failures: only these discovered tests.
            public var rerun: [String]?

            public init(configuration: String? = nil, shard: Int = 0, shardCount: Int = 1, durations: [String: Double] = [:], rerun: [String]? = nil) {
                self.configuration = configuration
                self.shard = shard
                self.shardCount = shardCount
                self.durations = durations
                self.rerun = rerun
            }
        }

        public init(jobID: String, suite: SuiteSpec, packageName: String, testTarget: String,
                    derivedDataPath: String? = nil, needsBuild: Bool = true, testEnvironment: [String: String] = [:]) {
            self.jobID = jobID
            self.suite = suite
            self.packageName = packageName
            self.testTarget = testTarget
            self.derivedDataPath = derivedDataPath
            self.needsBuild = needsBuild
            self.testEnvironment = testEnvironment
        }

        /// From a planned job: the test target comes from the rendered `xcfleet-manifest.json`.
        public init(job: PlannedJob) {
            var target = "Tests"
            if let data = job.workspace.file("xcfleet-manifest.json")?.contents,
               let manifest = try? JSONDecoder().decode(SuiteManifest.self, from: data) { target = manifest.testTarget }
            self.init(jobID: job.planned.jobID, suite: job.spec, packageName: Renderer.packageName(for: job.spec.name),
                      testTarget: target, testEnvironment: TestRunEnvironment.variables(for: job.planned))
            project = job.source.xcodeProject
            selection = Selection(configuration: job.planned.configuration, shard: job.planned.shard, shardCount: job.planned.shardCount,
                                  durations: job.shardDurations, rerun: job.rerun)
        }
    }

    /// Deadlines of each kind of command.
    public struct Deadlines: Equatable, Sendable {
        /// `xcodebuild -version`, listings, `simctl create/erase/boot/shutdown`, `xcresulttool`.
        public var query: CommandDeadlines
        /// `simctl bootstatus -b`: past it the simulator counts as wedged.
        public var boot: CommandDeadlines
        /// `xcodebuild build-for-testing` (the plan's build deadline).
        public var build: CommandDeadlines
        /// `xcodebuild test-without-building` (the plan's test deadline).
        public var test: CommandDeadlines
        /// Simulator shutdown and delete.
        public var cleanup: CommandDeadlines

        public init(query: CommandDeadlines, boot: CommandDeadlines, build: CommandDeadlines, test: CommandDeadlines, cleanup: CommandDeadlines) {
            self.query = query
            self.boot = boot
            self.build = build
            self.test = test
            self.cleanup = cleanup
        }

        public init(timeouts: PhaseTimeouts, bootSeconds: Double = 300) {
            self.init(query: CommandDeadlines(total: 300, silence: 300),
                      boot: CommandDeadlines(total: bootSeconds, silence: bootSeconds),
                      build: CommandDeadlines(total: timeouts.build, silence: timeouts.silence),
                      test: CommandDeadlines(total: timeouts.test, silence: timeouts.silence),
                      cleanup: CommandDeadlines(total: timeouts.cleanup, silence: timeouts.cleanup))
        }
    }

    /// Progress reported while running, for the event log.
    public enum Progress: Equatable, Sendable {
        case phaseStarted(Phase)
        case phaseFinished(Phase)
        case note(String)
    }

    /// How the attempt went.
    public struct Outcome: Equatable, Sendable {
        /// How the last xcodebuild command that ran ended (`build-for-testing` when the build failed,
        /// else `test-without-building`); nil when neither ran.
        public var termination: CommandTermination?
        /// The phase `termination` belongs to: `.build` or `.test`.
        public var terminationPhase: Phase = .test
        /// The scheme that was built (nil when this attempt did not build).
        public var scheme: String?
        /// The `.xctestrun` the tests ran from.
        public var xctestrun: String?
        /// The result bundle of each `test-without-building` run (several when the selection ran in
        /// parts); empty: the job directory's one `result.xcresult`.
        public var resultBundles: [String] = []
        /// A host problem a command of the driver raised (the text `failure` shows).
        public var infraError: RemoteShellError?
        /// The attempt's infrastructure failure, typed (`AttemptMachine` judged it): the job goes to another host.
        public var failure: AttemptFailure?
        /// Events to record after the streamed ones: the bundle's corrections, or a plan error.
        public var extraEvents: [TestEvent] = []
        /// Differences between the streamed output and the result bundle (each makes the attempt red).
        public var disagreements: [String] = []
        public var xcode: XcodeVersion?
        public var developerDir: String?
        /// The simulator used, if any, and whether this job created it.
        public var simulatorUDID: String?
        public var createdSimulator = false
        /// The host build cache's record of this attempt's build (with `cache`), for the event log.
        public var build: BuildRecord?

        /// The attempt's end as the attempt machine judged it (termination, infra text, timed-out phase).
        public var ended = AttemptEnded()
        /// The discovered tests and this attempt's part (set by the discover step).
        public var discovery: TestsDiscovered?
    }

    public var shell: any RemoteShell
    /// The job directory holding the pushed package (absolute).
    public var directory: String
    public var input: Input
    public var deadlines: Deadlines
    /// The host build cache (nil: an attempt with `needsBuild` builds into `derivedDataPath` itself).
    public var cache: XcodeCachedBuild?
    /// Called when this attempt's build takes the host's build lock (it compiles: no cached build).
    public var buildStarted: (@Sendable () -> Void)?
    /// Build once per fleet (with `cache`): before the cache script, receive the key from another
    /// host of the class; returns the product digest now recorded for this host, nil to build here.
    var receiveBuild: (@Sendable (BuildKey, _ identity: String) async -> String?)?
    /// The cache script ended: the product digest of the build (nil: no build came of it).
    var buildEnded: (@Sendable (BuildKey, _ product: String?) -> Void)?

    public init(shell: any RemoteShell, directory: String, input: Input, deadlines: Deadlines, cache: XcodeCachedBuild? = nil) {
        self.shell = shell
        self.directory = directory
        self.input = input
        self.deadlines = deadlines
        self.cache = cache
    }

    var hostName: String { shell.host.name }

    /// The DerivedData the build goes into and the tests run from.
    public var derivedDataPath: String {
        input.derivedDataPath ?? XcodebuildDriver.join(directory, XcodebuildDriver.derivedDataName)
    }

    /// Lists `<DerivedData>/Build/Products` and picks the `.xctestrun`. None: after a build in this
    /// attempt a build error (the package built but produced no test run for this destination: red,
    /// not retried); from a build made earlier (the cache) an infra error (that build is unusable).
    func findXctestrun(_ destination: XcodeDestination, _ outcome: inout Outcome, derivedDataPath: String, builtHere: Bool,
                       preferredSchemes: [String] = [], progress: @Sendable (Progress) -> Void) async throws -> Result<String, StepStop> {
        let products = XcodebuildDriver.productsPath(derivedDataPath: derivedDataPath)
        let listing = try await capture(XcodebuildDriver.productsListingCommand(derivedDataPath: derivedDataPath), deadlines.query)
        if case .connectionLost(let why) = listing.termination {
            throw RemoteShellError(.connect, host: hostName, "connection lost while listing \(products): \(why)")
        }
        var preferred = [input.packageName + "-Package", input.testTarget]
        if let scheme = outcome.scheme { preferred.insert(scheme, at: 0) }
        preferred = preferredSchemes + preferred
        do {
            let name = try XctestrunPicker.choose(listing: listing.termination == .exited(0) ? listing.stdout : "",
                                                  destination: destination, preferredSchemes: preferred, productsPath: products)
            let path = XcodebuildDriver.join(products, name)
            outcome.xctestrun = path
            progress(.note("\(hostName): testing from \(name)"))
            return .success(path)
        } catch let error as XctestrunError {
            if builtHere { return .failure(StepStop(.planError("xcfleet: \(error)"))) }
            let infra = RemoteShellError(.command, host: hostName, "the cached build is unusable: \(error)")
            outcome.infraError = infra
            return .failure(StepStop(.failed(.host(infra.description))))
        }
    }

    func selectXcode(progress: @Sendable (Progress) -> Void) async throws -> (String?, XcodeVersion, String) {
        let toolchain = try XcodeToolchain.resolve(suite: input.suite, host: shell.host)
        var candidates: [String?]
        switch toolchain.selection {
        case .selected: candidates = [nil]
        case .developerDir, .search:
            var listing = ""
            if let ls = toolchain.listingCommand {
                let r = try await capture(ls, deadlines.query)
                listing = r.stdout
            }
            candidates = toolchain.candidates(listing: listing).map(Optional.some)
        }
        if case .developerDir = toolchain.selection, let only = candidates.first {
            let r = try await capture(toolchain.versionCommand(developerDir: only), deadlines.query)
            return (only, try toolchain.check(versionOutput: r.stdout + "\n" + r.stderr, developerDir: only), r.stdout)
        }
        var tried: [(String, String)] = []
        for dir in candidates {
            let r = try await capture(toolchain.versionCommand(developerDir: dir), deadlines.query)
            do {
                return (dir, try toolchain.check(versionOutput: r.stdout, developerDir: dir), r.stdout)
            } catch {
                if case .selected = toolchain.selection { throw error }
                tried.append((dir ?? "xcode-select", XcodeVersion.parse(r.stdout).map { "Xcode \($0)" } ?? "no version (\(r.termination))"))
            }
        }
        throw toolchain.noMatch(tried: tried)
    }

    func prepareSimulator(_ control: SimulatorControl, destination: XcodeDestination, outcome: inout Outcome,
                                  progress: @Sendable (Progress) -> Void) async throws -> (String, Bool) {
        let devices = try SimctlJSON.devices(Data(try await checked(control.listDevicesCommand).utf8))
        var types: [SimDeviceType] = []
        var runtimes: [SimRuntime] = []
        if case .simulator = destination {
            types = try SimctlJSON.deviceTypes(Data(try await checked(control.listDeviceTypesCommand).utf8))
            runtimes = try SimctlJSON.runtimes(Data(try await checked(control.listRuntimesCommand).utf8))
        }
        let decision = try control.decide(destination: destination, devices: devices, deviceTypes: types, runtimes: runtimes,
                                          reuse: shell.host.slots <= 1, createName: SimulatorControl.deviceName(jobID: input.jobID))
        let udid: String
        let created: Bool
        switch decision {
        case .useExisting(let id, let name):
            udid = id
            created = false
            progress(.note("\(hostName): using simulator \(name) (\(id))"))
        case .create(let name, let type, let runtime):
            let out = try await checked(control.createCommand(name: name, deviceType: type, runtime: runtime))
            guard let id = SimulatorControl.parseCreatedUDID(out) else {
                throw RemoteShellError(.command, host: hostName, "`simctl create` printed no device id: \(out.prefix(200))")
            }
            udid = id
            created = true
            progress(.note("\(hostName): created simulator \(name) (\(id)) of \(type) on \(runtime)"))
        }
        outcome.simulatorUDID = udid
        outcome.createdSimulator = created
        for (command, mayFail) in control.prepareCommands(udid: udid, existing: !created) {
            let r = try await capture(command, deadlines.query)
            if let marker = SimulatorControl.wedgeMarker(in: r.stdout + r.stderr) {
                throw SimulatorWedged(host: hostName, "simulator wedged: `\(command.arguments.dropFirst().joined(separator: " "))` said \"\(marker)\"")
            }
            if !mayFail, r.termination != .exited(0) {
                throw RemoteShellError(.command, host: hostName, "`\(command.arguments.joined(separator: " "))` ended with \(r.termination): \(r.stderr.prefix(300))")
            }
        }
        let boot = try await capture(control.bootStatusCommand(udid), deadlines.boot)
        switch boot.termination {
        case .exited(0):
            if let marker = SimulatorControl.wedgeMarker(in: boot.stdout + boot.stderr) {
                throw SimulatorWedged(host: hostName, "simulator wedged: bootstatus said \"\(marker)\"")
            }
            return (udid, created)
        case .timedOut:
            throw SimulatorWedged(host: hostName, "simulator wedged: \(udid) did not finish booting within \(Int(deadlines.boot.total)) s")
        case .connectionLost(let why):
            throw RemoteShellError(.connect, host: hostName, "connection lost while booting the simulator: \(why)")
        case .cancelled:
            throw CancellationError()
        case .exited, .signaled:
            throw SimulatorWedged(host: hostName, "simulator wedged: `simctl bootstatus` ended with \(boot.termination): \(boot.stderr.prefix(300))")
        }
    }

    /// The result bundles the test step wrote (one per run of its selection).
    func resultBundles(_ outcome: Outcome) -> [String] {
        outcome.resultBundles.isEmpty ? [XcodebuildDriver(developerDir: outcome.developerDir).resultBundlePath(jobDirectory: directory)]
            : outcome.resultBundles
    }

    /// Reads every result bundle of the test step and reconciles their tests, together, with the
    /// streamed events (the runs of a split selection ran disjoint parts).
    func readBundle(streamed: [TestEvent], outcome: inout Outcome, progress: @Sendable (Progress) -> Void) async {
        do {
            var all: [TestResult] = []
            for bundle in resultBundles(outcome) { all += try await readResults(bundle, outcome: outcome, progress: progress) }
            let merged = XCResultReconciler.reconcile(streamed: streamed, bundle: XCResultParser.events(all))
            outcome.extraEvents += merged.events.dropFirst(streamed.count)
            outcome.disagreements += merged.disagreements
        } catch {
            outcome.disagreements.append("the result bundle could not be read (\(error)); the streamed output stands")
        }
        for d in outcome.disagreements { progress(.note("\(hostName): \(d)")) }
    }

    /// One bundle's tests: `xcresulttool get test-results tests` (Xcode 16+), else the legacy form.
    private func readResults(_ bundle: String, outcome: Outcome, progress: @Sendable (Progress) -> Void) async throws -> [TestResult] {
        let dir = outcome.developerDir
        let modern = XCResultParser.hasTestResultsCommand(outcome.xcode)
        var results: [TestResult]?
        if modern {
            let r = try await capture(XCResultParser.testResultsCommand(bundle: bundle, developerDir: dir), deadlines.query)
            if r.termination == .exited(0) { results = try XCResultParser.parseTestResults(Data(r.stdout.utf8)) }
            else { progress(.note("\(hostName): xcresulttool test-results ended with \(r.termination); trying the legacy form")) }
        }
        if results == nil {
            let top = try await checked(XCResultParser.legacyCommand(bundle: bundle, developerDir: dir, xcode16OrLater: modern), deadlines.query)
            let refs = try XCResultParser.legacyTestsRefs(Data(top.utf8))
            guard !refs.isEmpty else {
                throw XCResultError(what: "xcresulttool get", detail: "the result bundle has no tests summary")
            }
            var docs: [Data] = []
            for ref in refs {
                let tests = try await checked(XCResultParser.legacyCommand(bundle: bundle, id: ref, developerDir: dir, xcode16OrLater: modern), deadlines.query)
                docs.append(Data(tests.utf8))
            }
            results = try XCResultParser.parseLegacy(invocation: Data(top.utf8), tests: docs)
        }
        return results ?? []
    }

    /// Shuts down (and deletes, if created) the job's simulator. Runs detached so a cancelled
    /// attempt still cleans up, each command under the cleanup deadline; failures become notes.
    func cleanUpSimulator(_ control: SimulatorControl?, outcome: Outcome, progress: @escaping @Sendable (Progress) -> Void) async {
        guard let control, let udid = outcome.simulatorUDID else { return }
        let commands = control.cleanupCommands(udid: udid, created: outcome.createdSimulator)
        let shell = self.shell
        let directory = self.directory
        let limit = deadlines.cleanup
        await Task.detached {
            for command in commands {
                do {
                    let t = try await shell.run(command, in: directory, deadlines: limit) { _ in }
                    if t != .exited(0), command.arguments.contains("delete") {
                        progress(.note("\(shell.host.name): `\(command.arguments.joined(separator: " "))` ended with \(t)"))
                    }
                } catch {
                    progress(.note("\(shell.host.name): simulator cleanup failed: \(error)"))
                }
            }
        }.value
    }

    // MARK: Shell helpers

    struct Captured {
        var termination: CommandTermination
        var stdout: String
        var stderr: String
    }

    /// Runs a command, keeping at most 64 MiB of stdout and 64 KiB of stderr.
    func capture(_ command: ShellCommand, _ limits: CommandDeadlines) async throws -> Captured {
        let sink = CaptureSink()
        let termination = try await shell.run(command, in: directory, deadlines: limits) { sink.add($0) }
        if termination == .cancelled { throw CancellationError() }
        return Captured(termination: termination, stdout: sink.text(.stdout), stderr: sink.text(.stderr))
    }

    /// Runs a command that must succeed; returns its stdout.
    func checked(_ command: ShellCommand, _ limits: CommandDeadlines? = nil) async throws -> String {
        let r = try await capture(command, limits ?? deadlines.query)
        if let marker = SimulatorControl.wedgeMarker(in: r.stderr) {
            throw SimulatorWedged(host: hostName, "simulator wedged: `\(command.arguments.joined(separator: " "))` said \"\(marker)\"")
        }
        switch r.termination {
        case .exited(0): return r.stdout
        case .connectionLost(let why): throw RemoteShellError(.connect, host: hostName, "connection lost: \(why)")
        default:
            let err = r.stderr.trimmingCharacters(in: .whitespacesAndNewlines).prefix(300)
            throw RemoteShellError(.command, host: hostName, "`\(command.arguments.joined(separator: " "))` ended with \(r.termination)\(err.isEmpty ? "" : ": \(err)")")
        }
    }

    /// A thrown problem as the host error it shows and the typed failure the machine judges by.
    func asInfra(_ error: Error, doing what: String) -> (RemoteShellError, AttemptFailure) {
        if let w = error as? SimulatorWedged { return (w.error, .simulatorWedged(w.error.description)) }
        let e: RemoteShellError
        if let r = error as? RemoteShellError { e = r }
        else if error is CancellationError { e = RemoteShellError(.command, host: hostName, "cancelled while \(what)") }
        else { e = RemoteShellError(.command, host: hostName, "\(what): \(error)") }
        return (e, e.kind == .connect ? .hostLost(e.description) : .host(e.description))
    }
}

/// A simulator that will not boot, install or launch: thrown by the steps, typed as
/// `AttemptFailure.simulatorWedged` (the host error's text is what the reports show).
struct SimulatorWedged: Error {
    var error: RemoteShellError
    init(host: String, _ message: String) { error = RemoteShellError(.command, host: host, message) }
}

/// Collects a command's output (bounded), from the shell's serial output callback.
final class CaptureSink: @unchecked Sendable {
    private let lock = NSLock()
    private var out: [UInt8] = []
    private var err: [UInt8] = []

    func add(_ chunk: OutputChunk) {
        lock.lock(); defer { lock.unlock() }
        switch chunk.stream {
        case .stdout: if out.count < 64 << 20 { out += chunk.bytes.prefix((64 << 20) - out.count) }
        case .stderr: if err.count < 64 << 10 { err += chunk.bytes.prefix((64 << 10) - err.count) }
        }
    }

    func text(_ stream: OutputStreamKind) -> String {
        lock.lock(); defer { lock.unlock() }
        return String(decoding: stream == .stdout ? out : err, as: UTF8.self)
    }
}

/// Whether build output contained a compiler error line (then the parsed errors speak for the build).
final class BuildErrorWatcher: @unchecked Sendable {
    private let lock = NSLock()
    private var parser = OutputParser()
    private var sawError = false

    func consume(_ chunk: OutputChunk) {
        lock.lock(); defer { lock.unlock() }
        for e in parser.consume(chunk.bytes) { if case .buildError = e { sawError = true } }
    }

    var found: Bool {
        lock.lock(); defer { lock.unlock() }
        for e in parser.finish() { if case .buildError = e { sawError = true } }
        return sawError
    }
}

/// Watches `xcodebuild test` output: parses it (for reconciliation) and looks for wedge markers.
final class StreamWatcher: @unchecked Sendable {
    private let lock = NSLock()
    private var parser = OutputParser()
    private var parsed: [TestEvent] = []
    private var wedge = WedgeDetector()

    func consume(_ chunk: OutputChunk) {
        lock.lock(); defer { lock.unlock() }
        parsed += parser.consume(chunk.bytes)
        wedge.consume(chunk.bytes)
    }

    var wedgeMarker: String? { lock.lock(); defer { lock.unlock() }; return wedge.found }

    /// Everything parsed, including a last unterminated line.
    func events() -> [TestEvent] {
        lock.lock(); defer { lock.unlock() }
        parsed += parser.finish()
        return parsed
    }
}
