import Foundation
import XCFleetModel
import XCFleetCore
import XCFleetHostScripts

/// The Xcode driver's steps of the attempt machine: build (Xcode, `build-for-testing`, simulator),
/// discover (`-enumerate-tests` of the built `.xctestrun`), test (`test-without-building` of the
/// discovered part), collect (the result bundle), and the simulator's cleanup. The
/// machine sequences and judges them; these only run commands and say how they ended.
extension XcodebuildJob {
    /// What one attempt's steps carry from one to the next. Used by one task at a time.
    public final class Session: @unchecked Sendable {
        public internal(set) var outcome = Outcome()
        var destination: XcodeDestination?
        var simulator: SimulatorControl?
        /// Where the tests read the build, and whether this attempt compiled it.
        var built: (derivedDataPath: String, here: Bool)
        /// The build step also prepares the simulator (false for the build alone).
        let withSimulator: Bool
        /// The build step goes through the host build cache (when the job has one).
        let useCache: Bool
        let watcher = StreamWatcher()

        init(built: (derivedDataPath: String, here: Bool), withSimulator: Bool, useCache: Bool) {
            self.built = built
            self.withSimulator = withSimulator
            self.useCache = useCache
        }
    }

    /// A session for one attempt (build, simulator, test, bundle).
    public func makeSession() -> Session {
        Session(built: (derivedDataPath, input.needsBuild), withSimulator: true, useCache: true)
    }

    /// The machine's plan for this driver's steps alone (the package is already in `directory`).
    func machinePlan(_ steps: [AttemptStep]) -> AttemptMachine.Plan {
        AttemptMachine.Plan(steps: steps, buildToolName: JobSource.Driver.xcodebuild(destination: "").buildToolName,
                            host: hostName, cleanupSeconds: deadlines.cleanup.total)
    }

    /// Runs the whole sequence (build, simulator, test enumeration, test, result bundle, simulator cleanup) through
    /// the attempt machine. `output` receives the output chunks of `build-for-testing` (when it
    /// runs) and `test-without-building` (serially, in order); `progress` receives phase changes and notes.
    public func run(output: @escaping @Sendable (OutputChunk) -> Void,
                    progress: @escaping @Sendable (Progress) -> Void = { _ in }) async -> Outcome {
        let session = makeSession()
        var machine = AttemptMachine(machinePlan([.build, .discover, .test, .collect]))
        machine.directoryCreated(directory)
        await drive(&machine, session, output: output, progress: progress)
        return session.outcome
    }

    /// The build alone, for the owner of a shared build (see the type's comment): toolchain, scheme,
    /// `build-for-testing` into `derivedDataPath`. No simulator, no tests. A failed build comes back
    /// as `termination` (phase `.build`) with a `.buildError` in `extraEvents`; a host problem as
    /// `failure`. `output` receives the build's output.
    public func build(output: @escaping @Sendable (OutputChunk) -> Void,
                      progress: @escaping @Sendable (Progress) -> Void = { _ in }) async -> Outcome {
        let session = Session(built: (derivedDataPath, true), withSimulator: false, useCache: false)
        var machine = AttemptMachine(machinePlan([.build]))
        await drive(&machine, session, output: output, progress: progress)
        return session.outcome
    }

    private func drive(_ machine: inout AttemptMachine, _ session: Session, output: @escaping @Sendable (OutputChunk) -> Void,
                       progress: @escaping @Sendable (Progress) -> Void) async {
        let ended = await driveAttempt(&machine, perform: { step in
            (await self.perform(step, in: session, output: output, progress: progress), nil)
        }, cleanUp: { _, _ in
            await self.cleanUp(session, progress: progress)
        }, note: { action in
            switch action {
            case .phaseStarted(let p): progress(.phaseStarted(p))
            case .phaseFinished(let p): progress(.phaseFinished(p))
            case .recordBuildError(let message): session.outcome.extraEvents.append(.buildError(file: nil, line: nil, message: message))
            case .resetSimulators: await self.resetSimulators(session)
            case .recordHostPath, .perform, .cleanUp, .finish: break
            }
        })
        session.outcome.ended = ended
        session.outcome.failure = machine.attemptFailure
    }

    /// Performs one step of the attempt machine. Push is the runner's (the package is in `directory`).
    public func perform(_ step: AttemptStep, in session: Session, output: @escaping @Sendable (OutputChunk) -> Void,
                        progress: @escaping @Sendable (Progress) -> Void) async -> AttemptMachine.StepResult {
        switch step {
        case .push: return .pushed(directory: directory)
        case .build: return await buildStep(session, output: output, progress: progress)
        case .test: return await testStep(session, output: output, progress: progress)
        case .collect:
            await readBundle(streamed: session.watcher.events(), outcome: &session.outcome, progress: progress)
            return .collected
        case .discover: return await discoverStep(session, progress: progress)
        }
    }

    /// Shuts down (and deletes, if this job created it) the session's simulator.
    public func cleanUp(_ session: Session, progress: @escaping @Sendable (Progress) -> Void) async {
        await cleanUpSimulator(session.simulator, outcome: session.outcome, progress: progress)
    }

    /// After a wedge: `simctl shutdown all`, so the next attempt on the host starts clean.
    public func resetSimulators(_ session: Session) async {
        if let sim = session.simulator { _ = try? await capture(sim.shutdownAllCommand, deadlines.cleanup) }
    }

    // MARK: - Steps

    /// Xcode, then `build-for-testing` (through the host build cache when there is one, only when
    /// `Input.needsBuild`), then the simulator. Preparation failures are host problems.
    private func buildStep(_ session: Session, output: @escaping @Sendable (OutputChunk) -> Void,
                           progress: @escaping @Sendable (Progress) -> Void) async -> AttemptMachine.StepResult {
        do {
            guard let text = input.suite.destination else { throw XcodeDestinationError(destination: "", problem: "the suite has no destination") }
            let destination = try XcodeDestination.parse(text)
            session.destination = destination
            let identity = try await selectXcode(&session.outcome, progress: progress)
            if input.needsBuild, let project = input.project {
                session.built = try await projectBuild(project, session.useCache ? cache : nil, destination, identity: identity, session,
                                                       output: output, progress: progress)
            } else if input.needsBuild, session.useCache, let cache {
                session.built = try await cachedBuild(cache, destination, identity: identity, session, output: output, progress: progress)
            } else if input.needsBuild {
                try await plainBuild(destination, session, output: output, progress: progress)
            }
            if destination.needsSimulator, session.withSimulator {
                let control = SimulatorControl(developerDir: session.outcome.developerDir, host: hostName)
                session.simulator = control
                _ = try await prepareSimulator(control, destination: destination, outcome: &session.outcome, progress: progress)
            }
            return .ended(.exited(0))
        } catch let stop as StepStop {
            return stop.result
        } catch let error as XcodeDestinationError {
            return .planError("xcfleet: suite '\(input.suite.name)': \(error)")
        } catch is CancellationError {
            session.outcome.termination = .cancelled
            return .cancelled
        } catch {
            let (shown, failure) = asInfra(error, doing: "preparing the Xcode run")
            session.outcome.infraError = shown
            return .failed(failure)
        }
    }

    /// `test-without-building` of the discovered part (`XcodebuildJob+Project.swift`).
    private func testStep(_ session: Session, output: @escaping @Sendable (OutputChunk) -> Void,
                          progress: @escaping @Sendable (Progress) -> Void) async -> AttemptMachine.StepResult {
        guard let destination = session.destination else { return .planError("xcfleet: suite '\(input.suite.name)': no destination") }
        return await discoveredTestStep(session, destination, output: output, progress: progress)
    }

    /// Runs a `test-without-building` command, streamed to `output`, and says how it ended: a
    /// wedge marker in its output with a simulator is a wedged simulator (retried elsewhere).
    func runTests(_ command: ShellCommand, _ session: Session, output: @escaping @Sendable (OutputChunk) -> Void,
                  progress: @escaping @Sendable (Progress) -> Void) async -> AttemptMachine.StepResult {
        progress(.note("\(hostName): \(XcodeProjectCommands.display(command))"))
        let watcher = session.watcher
        do {
            session.outcome.terminationPhase = .test
            let termination = try await shell.run(command, in: directory, deadlines: deadlines.test) { chunk in
                watcher.consume(chunk)
                output(chunk)
            }
            session.outcome.termination = termination
            if case .connectionLost = termination { return .ended(termination) }
            if let marker = watcher.wedgeMarker, session.simulator != nil {
                let shown = RemoteShellError(.command, host: hostName, "simulator wedged during xcodebuild test-without-building (\"\(marker)\"); reset with `xcrun simctl shutdown all`")
                session.outcome.infraError = shown
                return .failed(.simulatorWedged(shown.description), termination: termination)
            }
            return .ended(termination)
        } catch is CancellationError {
            session.outcome.termination = .cancelled
            return .cancelled
        } catch {
            let (shown, failure) = asInfra(error, doing: "running xcodebuild test-without-building")
            session.outcome.infraError = shown
            return .failed(failure)
        }
    }

    /// `xcodebuild -list -json` (scheme), then `build-for-testing` through the host build cache.
    /// Returns the finished build's DerivedData and whether this attempt compiled it. A failed build
    /// stops the step with its termination (the machine judges it); an unusable cache is a host problem.
    private func cachedBuild(_ cache: XcodeCachedBuild, _ destination: XcodeDestination, identity: String, _ session: Session,
                             output: @escaping @Sendable (OutputChunk) -> Void,
                             progress: @Sendable (Progress) -> Void) async throws -> (derivedDataPath: String, here: Bool) {
        let dev = session.outcome.developerDir
        let list = try await capture(XcodebuildDriver(developerDir: dev).listCommand, deadlines.query)
        let scheme = XcodebuildDriver.chooseScheme(listOutput: list.stdout, packageName: input.packageName, testTarget: input.testTarget)
        session.outcome.scheme = scheme
        let build = XcodeCachedBuild.buildForTesting(scheme: scheme, destination: destination.buildValue, developerDir: dev)
        return try await throughBuildCache(cache, build: build, destination: destination.buildValue, identity: identity, scheme: scheme,
                                           session, output: output, progress: progress)
    }

    /// Runs `build` (a `build-for-testing` into `DerivedData` of the staged tree) through the host
    /// build cache: once per key, later jobs find it finished. Returns the finished build's
    /// DerivedData and whether this attempt compiled it; a failed build stops the step with its
    /// termination, an unusable cache is a host problem.
    func throughBuildCache(_ cache: XcodeCachedBuild, build: ShellCommand, destination: String, identity: String, scheme: String,
                           _ session: Session, output: @escaping @Sendable (OutputChunk) -> Void,
                           progress: @Sendable (Progress) -> Void) async throws -> (derivedDataPath: String, here: Bool) {
        var cache = cache
        let key = cache.key(toolchain: identity, build: build, destination: destination)
        if let received = await receiveBuild?(key, identity) { cache.trusted[key.hex] = received }
        progress(.note("\(hostName): xcodebuild scheme \(scheme); build \(key.short) through the host build cache: \(XcodeCommandLine.render(build))"))
        let scanner = BuildProtocolScanner()
        scanner.onLocked = buildStarted
        let sawError = BuildErrorWatcher()
        let started = Date()
        let termination = try await shell.run(cache.command(toolchain: identity, build: build, destination: destination),
                                              in: directory, deadlines: deadlines.build) { chunk in
            scanner.consume(chunk)
            sawError.consume(chunk)
            output(chunk)
        }
        let record = termination == .exited(0) ? scanner.record(host: hostName, key: key, started: started) : nil
        buildEnded?(key, record?.product)
        if termination == .exited(BuildCacheScript.unusableStatus) {
            let shown = RemoteShellError(.command, host: hostName, "build cache unusable: " + (scanner.problems.first ?? "see the attempt's log"))
            session.outcome.infraError = shown
            throw StepStop(.failed(.buildCacheUnusable(shown.description)))
        }
        try stopUnlessBuilt(termination, sawError, session)
        guard let record else {
            throw RemoteShellError(.command, host: hostName, "the build cache reported no build for \(key.short)")
        }
        session.outcome.build = record
        if let why = record.untrusted { progress(.note("\(hostName): the build \(key.short) was not trusted (\(why)); rebuilt")) }
        return (cache.derivedDataPath(key: key), record.origin != .cached)
    }

    /// `xcodebuild -list -json`, then `build-for-testing` into `derivedDataPath`.
    private func plainBuild(_ destination: XcodeDestination, _ session: Session,
                            output: @escaping @Sendable (OutputChunk) -> Void, progress: @Sendable (Progress) -> Void) async throws {
        let driver = XcodebuildDriver(developerDir: session.outcome.developerDir)
        let list = try await capture(driver.listCommand, deadlines.query)
        let scheme = XcodebuildDriver.chooseScheme(listOutput: list.stdout, packageName: input.packageName, testTarget: input.testTarget)
        session.outcome.scheme = scheme
        progress(.note("\(hostName): xcodebuild scheme \(scheme)"))
        let command = driver.buildForTestingCommand(scheme: scheme, destination: destination.buildValue, derivedDataPath: derivedDataPath)
        progress(.note("\(hostName): \(XcodeCommandLine.render(command))"))
        let sawError = BuildErrorWatcher()
        let termination = try await shell.run(command, in: directory, deadlines: deadlines.build) { chunk in
            sawError.consume(chunk)
            output(chunk)
        }
        try stopUnlessBuilt(termination, sawError, session)
    }

    /// A `build-for-testing` that did not exit 0 stops the step; the machine judges how it ended.
    func stopUnlessBuilt(_ termination: CommandTermination, _ sawError: BuildErrorWatcher, _ session: Session) throws {
        guard termination != .exited(0) else { return }
        session.outcome.termination = termination
        session.outcome.terminationPhase = .build
        throw StepStop(.ended(termination, sawBuildError: sawError.found))
    }

    /// `selectXcode` recording the choice in the outcome; returns the toolchain identity (`XcodeCachedBuild.identity`).
    private func selectXcode(_ outcome: inout Outcome, progress: @Sendable (Progress) -> Void) async throws -> String {
        let (developerDir, version, versionOutput) = try await selectXcode(progress: progress)
        outcome.developerDir = developerDir
        outcome.xcode = version
        progress(.note("\(hostName): Xcode \(version)\(developerDir.map { " at \($0)" } ?? " (xcode-select)")"))
        return XcodeCachedBuild.identity(versionOutput: versionOutput, developerDir: developerDir)
    }
}
