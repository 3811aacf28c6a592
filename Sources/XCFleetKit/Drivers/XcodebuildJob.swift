import Foundation

/// Runs one attempt of a suite with an Apple `destination` on a Mac, over a `RemoteShell`, in a job
/// directory that already holds the pushed package:
///
/// 1. toolchain: resolve the Xcode (`XcodeToolchain`), check `xcodebuild -version`;
/// 2. simulator (not for macOS): list, pick or create, erase, boot, `bootstatus -b` under a deadline;
/// 3. `xcodebuild -list -json` (scheme), then `xcodebuild test`, streamed to `output`;
/// 4. read the result bundle with `xcresulttool` and reconcile it with the streamed events;
/// 5. shut down the simulator, delete it if this job created it (also after cancellation).
///
/// Never throws: problems come back in `XcodebuildJob.Outcome`. Host problems (wrong Xcode, missing
/// runtime, wedged simulator, lost connection) are `infraError`, so the job moves to another host;
/// a destination the plan got wrong becomes a `.buildError` event in `extraEvents` (red, not retried).
public struct XcodebuildJob: Sendable {
    /// What to run, from the planned job.
    public struct Input: Equatable, Sendable {
        public var jobID: String
        public var suite: SuiteSpec
        /// The rendered package's name (`Renderer.packageName(for:)`).
        public var packageName: String
        public var testTarget: String
        /// `Class/test` names of a shard; nil runs every test.
        public var onlyTesting: [String]?

        public init(jobID: String, suite: SuiteSpec, packageName: String, testTarget: String, onlyTesting: [String]? = nil) {
            self.jobID = jobID
            self.suite = suite
            self.packageName = packageName
            self.testTarget = testTarget
            self.onlyTesting = onlyTesting
        }

        /// From a planned job: the test target comes from the rendered `xcfleet-manifest.json`.
        public init(job: PlannedJob) {
            var target = "Tests"
            if let data = job.workspace.file("xcfleet-manifest.json")?.contents,
               let manifest = try? JSONDecoder().decode(SuiteManifest.self, from: data) { target = manifest.testTarget }
            self.init(jobID: job.planned.jobID, suite: job.spec, packageName: Renderer.packageName(for: job.spec.name),
                      testTarget: target, onlyTesting: job.filter)
        }
    }

    /// Deadlines of each kind of command.
    public struct Deadlines: Equatable, Sendable {
        /// `xcodebuild -version`, listings, `simctl create/erase/boot/shutdown`, `xcresulttool`.
        public var query: CommandDeadlines
        /// `simctl bootstatus -b`: past it the simulator counts as wedged.
        public var boot: CommandDeadlines
        /// `xcodebuild test` (builds and tests: the plan's build + test deadlines together).
        public var test: CommandDeadlines
        /// Simulator shutdown and delete.
        public var cleanup: CommandDeadlines

        public init(query: CommandDeadlines, boot: CommandDeadlines, test: CommandDeadlines, cleanup: CommandDeadlines) {
            self.query = query
            self.boot = boot
            self.test = test
            self.cleanup = cleanup
        }

        public init(timeouts: PhaseTimeouts, bootSeconds: Double = 300) {
            self.init(query: CommandDeadlines(total: 300, silence: 300),
                      boot: CommandDeadlines(total: bootSeconds, silence: bootSeconds),
                      test: CommandDeadlines(total: timeouts.build + timeouts.test, silence: timeouts.silence),
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
        /// How `xcodebuild test` ended; nil when it never ran.
        public var termination: CommandTermination?
        /// A host problem: the attempt is infra-failed and the job goes to another host.
        public var infraError: RemoteShellError?
        /// Events to record after the streamed ones: the bundle's corrections, or a plan error.
        public var extraEvents: [TestEvent] = []
        /// Differences between the streamed output and the result bundle (each makes the attempt red).
        public var disagreements: [String] = []
        public var xcode: XcodeVersion?
        public var developerDir: String?
        /// The simulator used, if any, and whether this job created it.
        public var simulatorUDID: String?
        public var createdSimulator = false

        /// The attempt's end in the runner's terms: infra error text, or the test phase's deadline.
        public var ended: AttemptEnded {
            var timedOut: Phase?
            if case .timedOut? = termination { timedOut = .test }
            return AttemptEnded(termination: termination, infraError: infraError?.description, timedOutPhase: timedOut)
        }
    }

    public var shell: any RemoteShell
    /// The job directory holding the pushed package (absolute).
    public var directory: String
    public var input: Input
    public var deadlines: Deadlines

    public init(shell: any RemoteShell, directory: String, input: Input, deadlines: Deadlines) {
        self.shell = shell
        self.directory = directory
        self.input = input
        self.deadlines = deadlines
    }

    private var hostName: String { shell.host.name }

    /// Runs the whole sequence. `output` receives `xcodebuild test`'s output chunks (serially, in order);
    /// `progress` receives phase changes and notes.
    public func run(output: @escaping @Sendable (OutputChunk) -> Void,
                    progress: @escaping @Sendable (Progress) -> Void = { _ in }) async -> Outcome {
        var outcome = Outcome()
        let destination: XcodeDestination
        do {
            guard let text = input.suite.destination else { throw XcodeDestinationError(destination: "", problem: "the suite has no destination") }
            destination = try XcodeDestination.parse(text)
        } catch {
            outcome.extraEvents = [.buildError(file: nil, line: nil, message: "xcfleet: suite '\(input.suite.name)': \(error)")]
            return outcome
        }

        var simulator: SimulatorControl?
        do {
            // 1–2. Preparation counts as the build phase (its deadline failures are infra).
            progress(.phaseStarted(.build))
            defer { progress(.phaseFinished(.build)) }
            let (developerDir, version) = try await selectXcode(progress: progress)
            outcome.developerDir = developerDir
            outcome.xcode = version
            progress(.note("\(hostName): Xcode \(version)\(developerDir.map { " at \($0)" } ?? " (xcode-select)")"))
            if destination.needsSimulator {
                let control = SimulatorControl(developerDir: developerDir, host: hostName)
                simulator = control
                let (udid, created) = try await prepareSimulator(control, destination: destination, outcome: &outcome, progress: progress)
                outcome.simulatorUDID = udid
                outcome.createdSimulator = created
            }
        } catch let error as XcodeDestinationError {
            outcome.extraEvents = [.buildError(file: nil, line: nil, message: "xcfleet: suite '\(input.suite.name)': \(error)")]
            await cleanUp(simulator, outcome: &outcome, progress: progress)
            return outcome
        } catch is CancellationError {
            outcome.termination = .cancelled
            await cleanUp(simulator, outcome: &outcome, progress: progress)
            return outcome
        } catch {
            outcome.infraError = asInfra(error, doing: "preparing the Xcode run")
            if let sim = simulator, outcome.infraError?.message.hasPrefix("simulator wedged") == true {
                _ = try? await capture(sim.shutdownAllCommand, deadlines.cleanup)
            }
            await cleanUp(simulator, outcome: &outcome, progress: progress)
            return outcome
        }

        // 3. xcodebuild test.
        let driver = XcodebuildDriver(developerDir: outcome.developerDir)
        let watcher = StreamWatcher()
        do {
            progress(.phaseStarted(.test))
            defer { progress(.phaseFinished(.test)) }
            let list = try await capture(driver.listCommand, deadlines.query)
            let scheme = XcodebuildDriver.chooseScheme(listOutput: list.stdout, packageName: input.packageName, testTarget: input.testTarget)
            progress(.note("\(hostName): xcodebuild scheme \(scheme)"))
            let command = driver.testCommand(scheme: scheme, destination: destination.xcodebuildValue(udid: outcome.simulatorUDID),
                                             jobDirectory: directory, testTarget: input.testTarget, onlyTesting: input.onlyTesting)
            progress(.note("\(hostName): \(XcodeCommandLine.render(command))"))
            let termination = try await shell.run(command, in: directory, deadlines: deadlines.test) { chunk in
                watcher.consume(chunk)
                output(chunk)
            }
            outcome.termination = termination
            if case .connectionLost(let why) = termination {
                outcome.infraError = RemoteShellError(.connect, host: hostName, "connection lost during xcodebuild test: \(why)")
            } else if let marker = watcher.wedgeMarker, simulator != nil {
                outcome.infraError = RemoteShellError(.command, host: hostName, "simulator wedged during xcodebuild test (\"\(marker)\"); reset with `xcrun simctl shutdown all`")
            }
        } catch is CancellationError {
            outcome.termination = .cancelled
        } catch {
            outcome.infraError = asInfra(error, doing: "running xcodebuild test")
        }
        if let sim = simulator, outcome.infraError?.message.hasPrefix("simulator wedged") == true {
            _ = try? await capture(sim.shutdownAllCommand, deadlines.cleanup)
        }

        // 4. Result bundle (not after a lost connection or a cancellation: nothing reliable to read).
        switch outcome.termination {
        case .exited?, .signaled?, .timedOut?:
            progress(.phaseStarted(.fetch))
            await readBundle(streamed: watcher.events(), outcome: &outcome, progress: progress)
            progress(.phaseFinished(.fetch))
        case .connectionLost?, .cancelled?, nil:
            break
        }

        // 5. Simulator cleanup.
        await cleanUp(simulator, outcome: &outcome, progress: progress)
        return outcome
    }

    // MARK: Steps

    private func selectXcode(progress: @Sendable (Progress) -> Void) async throws -> (String?, XcodeVersion) {
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
            return (only, try toolchain.check(versionOutput: r.stdout + "\n" + r.stderr, developerDir: only))
        }
        var tried: [(String, String)] = []
        for dir in candidates {
            let r = try await capture(toolchain.versionCommand(developerDir: dir), deadlines.query)
            do {
                return (dir, try toolchain.check(versionOutput: r.stdout, developerDir: dir))
            } catch {
                if case .selected = toolchain.selection { throw error }
                tried.append((dir ?? "xcode-select", XcodeVersion.parse(r.stdout).map { "Xcode \($0)" } ?? "no version (\(r.termination))"))
            }
        }
        throw toolchain.noMatch(tried: tried)
    }

    private func prepareSimulator(_ control: SimulatorControl, destination: XcodeDestination, outcome: inout Outcome,
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
                throw RemoteShellError(.command, host: hostName, "simulator wedged: `\(command.arguments.dropFirst().joined(separator: " "))` said \"\(marker)\"")
            }
            if !mayFail, r.termination != .exited(0) {
                throw RemoteShellError(.command, host: hostName, "`\(command.arguments.joined(separator: " "))` ended with \(r.termination): \(r.stderr.prefix(300))")
            }
        }
        let boot = try await capture(control.bootStatusCommand(udid), deadlines.boot)
        switch boot.termination {
        case .exited(0):
            if let marker = SimulatorControl.wedgeMarker(in: boot.stdout + boot.stderr) {
                throw RemoteShellError(.command, host: hostName, "simulator wedged: bootstatus said \"\(marker)\"")
            }
            return (udid, created)
        case .timedOut:
            throw RemoteShellError(.command, host: hostName, "simulator wedged: \(udid) did not finish booting within \(Int(deadlines.boot.total)) s")
        case .connectionLost(let why):
            throw RemoteShellError(.connect, host: hostName, "connection lost while booting the simulator: \(why)")
        case .cancelled:
            throw CancellationError()
        case .exited, .signaled:
            throw RemoteShellError(.command, host: hostName, "simulator wedged: `simctl bootstatus` ended with \(boot.termination): \(boot.stderr.prefix(300))")
        }
    }

    private func readBundle(streamed: [TestEvent], outcome: inout Outcome, progress: @Sendable (Progress) -> Void) async {
        let bundle = XcodebuildDriver(developerDir: outcome.developerDir).resultBundlePath(jobDirectory: directory)
        let dir = outcome.developerDir
        let modern = XCResultParser.hasTestResultsCommand(outcome.xcode)
        do {
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
            let merged = XCResultReconciler.reconcile(streamed: streamed, bundle: XCResultParser.events(results ?? []))
            outcome.extraEvents += merged.events.dropFirst(streamed.count)
            outcome.disagreements += merged.disagreements
        } catch {
            outcome.disagreements.append("the result bundle could not be read (\(error)); the streamed output stands")
        }
        for d in outcome.disagreements { progress(.note("\(hostName): \(d)")) }
    }

    /// Shuts down (and deletes, if created) the job's simulator. Runs detached so a cancelled
    /// attempt still cleans up, each command under the cleanup deadline; failures become notes.
    private func cleanUp(_ control: SimulatorControl?, outcome: inout Outcome, progress: @escaping @Sendable (Progress) -> Void) async {
        guard let control, let udid = outcome.simulatorUDID else { return }
        progress(.phaseStarted(.cleanup))
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
        progress(.phaseFinished(.cleanup))
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
            throw RemoteShellError(.command, host: hostName, "simulator wedged: `\(command.arguments.joined(separator: " "))` said \"\(marker)\"")
        }
        switch r.termination {
        case .exited(0): return r.stdout
        case .connectionLost(let why): throw RemoteShellError(.connect, host: hostName, "connection lost: \(why)")
        default:
            let err = r.stderr.trimmingCharacters(in: .whitespacesAndNewlines).prefix(300)
            throw RemoteShellError(.command, host: hostName, "`\(command.arguments.joined(separator: " "))` ended with \(r.termination)\(err.isEmpty ? "" : ": \(err)")")
        }
    }

    private func asInfra(_ error: Error, doing what: String) -> RemoteShellError {
        if let e = error as? RemoteShellError { return e }
        if error is CancellationError { return RemoteShellError(.command, host: hostName, "cancelled while \(what)") }
        return RemoteShellError(.command, host: hostName, "\(what): \(error)")
    }
}

/// Collects a command's output (bounded), from the shell's serial output callback.
private final class CaptureSink: @unchecked Sendable {
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

/// Watches `xcodebuild test` output: parses it (for reconciliation) and looks for wedge markers.
private final class StreamWatcher: @unchecked Sendable {
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
