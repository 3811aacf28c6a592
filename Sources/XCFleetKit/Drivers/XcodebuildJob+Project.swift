import Foundation
import XCFleetModel
import XCFleetCore
import XCFleetHostScripts

/// A team's own workspace or project (`XcodeProjectSuite`, docs/xcode.md): `build-for-testing`
/// of its scheme and test plan (through the host build cache, once per key), then `discover` —
/// `test-without-building -enumerate-tests` of the built `.xctestrun`, read as
/// `XcodeTestEnumeration` and narrowed to this attempt's part by `PackageSelection` — then
/// `test-without-building` of exactly that part with `-only-testing:` (never the `.xctestrun`'s
/// `OnlyTestIdentifiers`, which does not filter Swift Testing) and `-only-test-configuration`.
/// None of this has run on a Mac here: the commands are golden-tested over a scripted shell.
extension XcodebuildJob {
    /// The file the enumeration is written to, in the job directory.
    static let enumerationName = "xcfleet-enumeration.json"

    func projectCommands(_ project: XcodeProjectSuite) -> XcodeProjectCommands {
        let container: XcodeProjectCommands.Container = project.kind == .workspace ? .workspace(project.container) : .project(project.container)
        return XcodeProjectCommands(container: container, scheme: project.scheme, testPlan: project.testPlan)
    }

    /// `build-for-testing` of the team's scheme: through the host build cache when there is one
    /// (DerivedData inside the staged tree, so it moves into `builds/<key>`), else into `derivedDataPath`.
    func projectBuild(_ project: XcodeProjectSuite, _ cache: XcodeCachedBuild?, _ destination: XcodeDestination, identity: String,
                      _ session: Session, output: @escaping @Sendable (OutputChunk) -> Void,
                      progress: @Sendable (Progress) -> Void) async throws -> (derivedDataPath: String, here: Bool) {
        let dev = session.outcome.developerDir
        session.outcome.scheme = project.scheme
        let commands = projectCommands(project)
        var build = commands.buildForTesting(destination: destination.buildValue,
                                             derivedDataPath: cache == nil ? derivedDataPath : XcodeCachedBuild.derivedDataName)
        if let dev { build.environment["DEVELOPER_DIR"] = dev }
        let sawError = BuildErrorWatcher()
        guard let cache else {
            progress(.note("\(hostName): \(XcodeCommandLine.render(build))"))
            let termination = try await shell.run(build, in: directory, deadlines: deadlines.build) { chunk in
                sawError.consume(chunk)
                output(chunk)
            }
            try stopUnlessBuilt(termination, sawError, session)
            return (derivedDataPath, true)
        }
        return try await throughBuildCache(cache, build: build, destination: destination.buildValue, identity: identity,
                                           scheme: project.scheme, session, output: output, progress: progress)
    }

    /// The `.xctestrun` of the scheme and test plan (a rendered package's: of the scheme that was
    /// built), then `-enumerate-tests` into the job directory, read back and narrowed to this
    /// attempt's part. An `errors` entry, an unreadable file or no enabled test is red with the
    /// reason (the attempt ends; nothing is retried for it).
    func discoverStep(_ session: Session, progress: @escaping @Sendable (Progress) -> Void) async -> AttemptMachine.StepResult {
        guard let destination = session.destination else {
            return .planError("xcfleet: suite '\(input.suite.name)': nothing to discover")
        }
        let project = input.project
        do {
            let xctestrun: String
            var preferred: [String] = []
            if let project {
                preferred = [project.scheme]
                if let plan = project.testPlan { preferred.insert(project.scheme + "_" + plan, at: 0) }
            }
            switch try await findXctestrun(destination, &session.outcome, derivedDataPath: session.built.derivedDataPath,
                                           builtHere: session.built.here, preferredSchemes: preferred, progress: progress) {
            case .success(let path): xctestrun = path
            case .failure(let stop): return stop.result
            }
            let output = XcodebuildDriver.join(directory, Self.enumerationName)
            var command = XcodeProjectCommands.enumerateTests(xctestrun: xctestrun,
                                                              destination: destination.xcodebuildValue(udid: session.outcome.simulatorUDID),
                                                              outputPath: output, configuration: input.selection.configuration)
            if let dev = session.outcome.developerDir { command.environment["DEVELOPER_DIR"] = dev }
            progress(.note("\(hostName): \(XcodeCommandLine.render(command))"))
            let listing = try await capture(command, deadlines.query)
            var failure: String?
            var listed: [DiscoveredTest] = []
            switch listing.termination {
            case .exited(0):
                let data = try await shell.fetch(Self.enumerationName, in: directory)
                do {
                    let enumeration = try XcodeTestEnumeration.parse(data, file: Self.enumerationName)
                    if !enumeration.errors.isEmpty {
                        failure = "xcodebuild -enumerate-tests reported: " + enumeration.errors.prefix(3).joined(separator: "; ")
                    }
                    listed = enumeration.tests.filter(\.enabled)
                } catch {
                    failure = "the test enumeration could not be read: \(error)"
                }
            case .timedOut, .connectionLost, .cancelled:
                return .ended(listing.termination)
            case .exited, .signaled:
                let why = listing.stderr.trimmingCharacters(in: .whitespacesAndNewlines).prefix(300)
                failure = "xcodebuild -enumerate-tests ended \(listing.termination.consoleText)" + (why.isEmpty ? "" : ": \(why)")
            }
            let s = input.selection
            let scheme = project.map { p in "scheme \(p.scheme)" + (p.testPlan.map { ", test plan \($0)" } ?? "") }
                ?? "the rendered package" + (session.outcome.scheme.map { " (scheme \($0))" } ?? "")
            let found = PackageSelection.select(listed: listed, listFailure: failure, filter: project?.filter, skip: project?.skip,
                                                shard: s.shard, shardCount: s.shardCount, durations: s.durations, rerun: s.rerun,
                                                noTests: "the built products of \(scheme) enable no tests (xcodebuild -enumerate-tests listed none)")
            session.outcome.discovery = found
            return .discovered(problem: found.problem)
        } catch is CancellationError {
            return .cancelled
        } catch {
            let (shown, failure) = asInfra(error, doing: "listing the built tests")
            session.outcome.infraError = shown
            return .failed(failure)
        }
    }

    /// `test-without-building` of this attempt's part, streamed to `output`, its own result bundle.
    func discoveredTestStep(_ session: Session, _ destination: XcodeDestination, output: @escaping @Sendable (OutputChunk) -> Void,
                         progress: @escaping @Sendable (Progress) -> Void) async -> AttemptMachine.StepResult {
        guard let found = session.outcome.discovery, let xctestrun = session.outcome.xctestrun else {
            return .failed(.host("the test step ran before the tests were discovered"))
        }
        // A shard whose part is empty (more shards than tests) has nothing to run.
        guard !found.selected.isEmpty else { return .ended(.exited(0)) }
        let everything = found.selected.count == found.tests.count
        let bundle = XcodebuildDriver(developerDir: session.outcome.developerDir).resultBundlePath(jobDirectory: directory)
        let only = everything ? [] : found.selected.map(Self.onlyTestingIdentifier)
        // A selection too long for one run's arguments runs in parts, each with its own result bundle.
        session.outcome.resultBundles = XcodeProjectCommands.resultBundles(resultBundlePath: bundle, only: only)
        var command = XcodeProjectCommands.testWithoutBuilding(
            xctestrun: xctestrun, destination: destination.xcodebuildValue(udid: session.outcome.simulatorUDID),
            resultBundlePath: bundle, only: only, configuration: input.selection.configuration,
            environment: input.testEnvironment)
        if let dev = session.outcome.developerDir { command.environment["DEVELOPER_DIR"] = dev }
        return await runTests(command, session, output: output, progress: progress)
    }

    /// A discovered name (`Target.Class/test`, `Target.Suite/test()`) as `-only-testing:` takes it:
    /// `Target/Class/test`, `Target/Suite/test()`.
    static func onlyTestingIdentifier(_ discovered: String) -> String {
        guard let dot = discovered.firstIndex(of: ".") else { return discovered }
        return discovered[..<dot] + "/" + discovered[discovered.index(after: dot)...]
    }
}
