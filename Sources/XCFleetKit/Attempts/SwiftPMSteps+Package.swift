import Foundation
import XCFleetModel
import XCFleetCore

/// Every SwiftPM source (a rendered template, a contract harness, a team's package): after the
/// cached build, `discover` lists the built bundle's tests and chooses this attempt's part
/// (`PackageSelection`), logged as `testsDiscovered` — that list is the attempt's manifest; `test`
/// runs exactly that part from the bundle (`PackageTestCommands`). Both run in the package's folder
/// of the job directory; nothing is rebuilt and nothing is written into the build. A template job
/// on a warm host listed and ran its tests in the push's exec (`SwiftPMSteps+Chain.swift`): these
/// steps then read that exec's listing and its end.
extension SwiftPMSteps {
    func discover() async -> AttemptMachine.StepResult {
        // A template job's listing that ran in the push's exec (`SwiftPMSteps+Chain.swift`).
        if let test = runningTest { return await chainedDiscover(test) }
        let job = executor.job, shell = executor.shell
        let timeouts = job.spec.timeouts
        do {
            let identity = try await executor.toolchains.identity(for: shell)
            let (bundle, buildFolder) = try builtBundle()
            let sink = OutputSink(limit: 16 << 20)
            let list = ShellCommand(PackageTestCommands.list(bundle: bundle, packageFolder: buildFolder, records: packageFolder + "/.xcfleet-tests.jsonl",
                                                             darwin: ToolchainIdentity.os(of: identity) == "Darwin"))
            let termination = try await shell.run(executor.record?.wrap(list) ?? list, in: packageFolder,
                                                  deadlines: CommandDeadlines(total: timeouts.test, silence: timeouts.silence)) { sink.add($0) }
            switch termination {
            // A deadline, a lost host or a SIGKILL from the host: the machine judges it like any step's.
            case .timedOut, .connectionLost, .cancelled, .signaled("SIGKILL"): return .ended(termination)
            case .exited, .signaled: return discovered(sink, termination: termination, bundle: bundle, key: cached.key(toolchain: identity).hex)
            }
        } catch let stop as StepStop {
            return stop.result
        } catch let error as RemoteShellError {
            return .failed(error.kind == .connect ? .hostLost(error.description) : .host(error.description), timedOut: error.kind == .timeout)
        } catch is CancellationError {
            return .cancelled
        } catch {
            return .failed(.host("\(shell.host.name): \(error)"))
        }
    }

    /// A listing that ended on its own (`termination`): its tests, this attempt's part of them,
    /// logged as `testsDiscovered`. A listing that exited 0 is known for the key from then on
    /// (`KnownListings`: a later shard or rerun chains its part behind its push).
    func discovered(_ sink: OutputSink, termination: CommandTermination, bundle: String, key: String?) -> AttemptMachine.StepResult {
        let failure = termination == .exited(0) ? nil
            : "listing the built tests (\((bundle as NSString).lastPathComponent) --list-tests) ended \(termination.consoleText)"
                + (sink.stderrTail.isEmpty ? "" : ": " + sink.stderrTail)
        let listing = KnownListings.Parsed(sink.stdoutText)
        let (found, testing) = selection(listing, listFailure: failure)
        discovery = found
        swiftTesting = testing
        if failure == nil, let key { executor.listings.record(listing, key: key) }
        executor.log.append(.testsDiscovered(executor.ref, found))
        return .discovered(problem: found.problem)
    }

    /// This attempt's part of a listing, and which of its tests are Swift Testing's.
    func selection(_ listing: KnownListings.Parsed, listFailure: String?) -> (found: TestsDiscovered, swiftTesting: Set<String>) {
        let job = executor.job
        let found = PackageSelection.select(listed: listing.listed, listFailure: listFailure, package: job.spec.package, shard: job.planned.shard,
                                            shardCount: job.planned.shardCount, durations: job.shardDurations, rerun: job.rerun,
                                            displayNames: listing.displayNames)
        return (found, Set(listing.listed.filter(\.isSwiftTesting).map { "\($0.target).\($0.name)" }))
    }

    func runDiscoveredTests() async -> AttemptMachine.StepResult {
        let job = executor.job, shell = executor.shell
        let timeouts = job.spec.timeouts
        guard let found = discovery else { return .failed(.host("the test step ran before the tests were discovered")) }
        // A shard whose part is empty (more shards than tests) has nothing to run.
        guard !found.selected.isEmpty else { return .ended(.exited(0)) }
        do {
            let identity = try await executor.toolchains.identity(for: shell)
            let (bundle, buildFolder) = try builtBundle()
            let everything = found.selected.count == found.tests.count
            let tests = PackageTestCommands.run(bundle: bundle, packageFolder: buildFolder, darwin: ToolchainIdentity.os(of: identity) == "Darwin",
                                                selected: everything ? nil : found.selected, all: found.tests, swiftTesting: swiftTesting)
            // The attachments folder is the job directory's, as for every attempt (docs/attachments.md).
            let command = executor.withAttachmentsFolder(ShellCommand(SwiftPMDriver.lineBuffered + tests.arguments, environment: TestRunEnvironment.variables(for: job.planned),
                                                                      input: tests.input),
                                                         jobDirectory: directory)
            let collector = self.collector
            let termination = try await shell.run(executor.record?.wrap(command) ?? command, in: packageFolder,
                                                  deadlines: CommandDeadlines(total: timeouts.test, silence: timeouts.silence)) { collector.consume($0) }
            collector.finishStream()
            return .ended(termination)
        } catch let stop as StepStop {
            return stop.result
        } catch let error as RemoteShellError {
            return .failed(error.kind == .connect ? .hostLost(error.description) : .host(error.description), timedOut: error.kind == .timeout)
        } catch is CancellationError {
            return .cancelled
        } catch {
            return .failed(.host("\(shell.host.name): \(error)"))
        }
    }

    /// The package's folder in the job directory (where its tests run, as `swift test` would).
    private var packageFolder: String { packageFolder(in: directory) }

    /// The package's folder in a job directory.
    func packageFolder(in jobDirectory: String) -> String {
        let dir = executor.job.source.packageDirectory ?? ""
        return dir.isEmpty ? jobDirectory : jobDirectory + "/" + dir
    }

    /// The cached build's test bundle and the package folder of that build.
    private func builtBundle() throws -> (bundle: String, packageFolder: String) {
        let products = scanner.products
        guard products.count == 1, let bundle = products.first else {
            throw StepStop(.failed(.host("the build cache on \(executor.shell.host.name) reported \(products.count) test bundles (expected one matching \(cached.productGlob))")))
        }
        return (bundle, Self.packageFolder(ofBundle: bundle))
    }
}
