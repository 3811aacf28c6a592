import Foundation
import XCFleetBasics
import XCFleetModel
import XCFleetCore

/// What runs in the push's round trip after the push check (`RemoteShell.prepareJob`): the build's
/// command for the job directory, where its output goes, and the listing and test following it in
/// the same exec (`ChainedTest`), if any.
struct ChainedBuild: Sendable {
    var command: @Sendable (String) throws -> ShellCommand?
    var output: @Sendable (OutputChunk) -> Void
    var test: ChainedTest?
}

/// A template job's test listing and test in the exec of its push check and build cache
/// (`ChainedTest`): a warm attempt costs one round trip before its test, and its tests are still
/// discovered from what was built before any runs. A job that runs every test its bundle lists is
/// chained (one shard, no rerun selection, no filter or skip); a job that runs a part of the list
/// (a shard, a rerun, a filter or skip) is chained once the run knows the key's listing
/// (`KnownListings`): its part is chosen from it before the push, and the fresh listing must choose
/// the same. A template and a team's package are chained alike (the test runs in the package's
/// folder of the job directory, as on its own exec); a product glob that could match more than one
/// bundle is not.
extension SwiftPMSteps {
    func chainableTest(identity: String, buildOutput: @escaping @Sendable (OutputChunk) -> Void) -> ChainedTest? {
        let job = executor.job
        guard job.source.steps == [.push, .build, .discover, .test, .collect] else { return nil }
        let glob = cached.productGlob
        guard !glob.contains(where: { "*?[]\\".contains($0) }) else { return nil }
        let key = cached.key(toolchain: identity)
        var selection: ChainedTest.Selection?
        if job.planned.shardCount > 1 || job.rerun != nil || job.spec.package?.filter != nil || job.spec.package?.skip != nil {
            // A part of the list: chosen from the key's known listing, if there is one.
            guard let known = executor.listings.listing(key: key.hex) else { return nil }
            let (found, testing) = self.selection(known, listFailure: nil)
            // Nothing to run, or a problem to report: the discover step says so on its own.
            guard found.problem == nil, !found.selected.isEmpty else { return nil }
            if found.selected.count != found.tests.count {
                selection = ChainedTest.Selection(selected: found.selected, all: found.tests, swiftTesting: testing)
            }
        }
        let bundle = executor.shell.host.workRoot + "/builds/" + key.hex + "/" + glob
        let collector = self.collector, listing = self.chainedListing
        return ChainedTest(bundle: bundle, selection: selection, buildSeconds: job.spec.timeouts.build, listSeconds: job.spec.timeouts.test,
                           testSeconds: job.spec.timeouts.test, buildOutput: buildOutput, listingOutput: { listing.add($0) },
                           testOutput: { collector.consume($0) })
    }

    /// The build cache's command with the listing and the test behind it, wrapped in the attempt's
    /// process record; nil when they cannot share one exec request (too long, or an environment
    /// that cannot be exported): the build then runs alone.
    func chainedCommand(_ cached: SwiftPMCachedBuild, identity: String, test: ChainedTest) -> ShellCommand? {
        let darwin = ToolchainIdentity.os(of: identity) == "Darwin"
        let folder = Self.packageFolder(ofBundle: test.bundle), listing = cached.directory + "/.xcfleet-listing"
        let list = ShellCommand(PackageTestCommands.list(bundle: test.bundle, packageFolder: folder, records: cached.directory + "/.xcfleet-tests.jsonl",
                                                         darwin: darwin))
        let environment = TestRunEnvironment.variables(for: executor.job.planned)
        let run: ShellCommand
        if let part = test.selection {
            // The part's selection on the command line (written to a file of the job directory, the
            // test's input): the exec's own input is the push's manifest.
            let tests = PackageTestCommands.run(bundle: test.bundle, packageFolder: folder, darwin: darwin, selected: part.selected,
                                                all: part.all, swiftTesting: part.swiftTesting)
            guard let carried = PackageTestCommands.inputAsArguments(ShellCommand(SwiftPMDriver.lineBuffered + tests.arguments, environment: environment,
                                                                                  input: tests.input),
                                                                     file: cached.directory + "/.xcfleet-selection") else { return nil }
            run = carried
        } else {
            let args = PackageTestCommands.runListed(bundle: test.bundle, packageFolder: folder, darwin: darwin, listing: listing)
            run = ShellCommand(SwiftPMDriver.lineBuffered + args, environment: environment)
        }
        let build = unwrappedBuildCommand(cached, identity: identity)
        // The test runs where it runs on its own exec: in the package's folder (a team's package may
        // be in a folder of its repository; the exec starts in the job directory).
        var inFolder = run
        let folderOfPackage = packageFolder(in: cached.directory)
        if folderOfPackage != cached.directory {
            inFolder.arguments = ["sh", "-c", #"cd "$1" || exit 70; shift; exec "$@""#, "sh", folderOfPackage] + run.arguments
        }
        guard let all = test.command(build: build, list: list, listing: listing,
                                     test: executor.withAttachmentsFolder(inFolder, jobDirectory: cached.directory)) else { return nil }
        scanner.onLocked = executor.buildStarted
        let wrapped = executor.record?.wrap(all) ?? all
        guard ShellQuote.join(wrapped.arguments).utf8.count + pushCheckBytes <= Self.sshExecLimit else { return nil }
        return wrapped
    }

    /// The chained build's key (nil before the push's round trip chose one).
    var chainKey: String? { chainIdentity.map { cached.key(toolchain: $0).hex } }

    /// The build part exited 0 and the listing started: the build step reports the build, the
    /// discover and test steps the rest of the exec.
    func chainedListingStarted(_ test: ChainedTest) {
        runningTest = test
        guard let identity = chainIdentity else { return }
        pending = buildEnded(.exited(0), identity: identity, started: chainStarted)
    }

    /// The discover step of a chained test: the listing the exec printed, once the test started
    /// (the listing exited 0) or the exec ended (its status is the listing's).
    func chainedDiscover(_ test: ChainedTest) async -> AttemptMachine.StepResult {
        let shell = executor.shell
        guard scanner.products == [test.bundle] else {
            return .failed(.host("the build cache on \(shell.host.name) reported \(scanner.products.count) test bundles (expected \(test.bundle))"))
        }
        if await test.waitForTest() {
            let result = discovered(chainedListing, termination: .exited(0), bundle: test.bundle, key: chainKey)
            // Nothing to run (the listing named no test, so `runListed` starts no library): the exec
            // ends at once, and its end logs the push.
            if case .discovered(.some) = result {
                runningTest = nil
                _ = await chainEnded(test)
            }
            return result
        }
        // The exec ended in the listing: no test step follows it in this exec.
        runningTest = nil
        switch await chainEnded(test) {
        case .ended(let termination, _):
            switch termination {
            case .timedOut, .connectionLost, .cancelled, .signaled("SIGKILL"): return .ended(termination)
            case .exited, .signaled: return discovered(chainedListing, termination: termination, bundle: test.bundle, key: chainKey)
            }
        case let other: return other
        }
    }

    /// The test step of a chained test: the rest of the exec (the push is logged with it).
    func chainedTestEnded(_ test: ChainedTest) async -> AttemptMachine.StepResult {
        test.open()
        let result = await chainEnded(test)
        collector.finishStream()
        return result
    }

    /// The chained exec's end, as the step that waited for it ends: its status (a part's deadline:
    /// `timedOut("total")`), the push logged.
    private func chainEnded(_ test: ChainedTest) async -> AttemptMachine.StepResult {
        let shell = executor.shell
        let (result, timedOut) = await test.execEnded()
        switch result {
        case .success(let prepared):
            executor.log.append(.push(executor.ref, AttemptExecutor.pushRecord(prepared.push, workspace: executor.job.workspace, host: shell.host.name)))
            let termination = prepared.chained ?? .exited(0)
            if timedOut, termination == .cancelled { return .ended(.timedOut("total")) }
            return .ended(termination)
        case .failure(let error as RemoteShellError):
            return .failed(error.kind == .connect ? .hostLost(error.description) : .host(error.description), timedOut: error.kind == .timeout)
        case .failure(let error):
            if timedOut { return .ended(.timedOut("total")) }
            if error is CancellationError { return .cancelled }
            return .failed(.host("\(shell.host.name): \(error)"))
        }
    }

    /// The fresh listing chose another part than the chained test runs: the exec is stopped and
    /// the push it carried is logged; the part then runs on its own exec.
    func stopChainedTest(_ test: ChainedTest) async {
        if case .success(let prepared) = await test.abandon() {
            executor.log.append(.push(executor.ref, AttemptExecutor.pushRecord(prepared.push, workspace: executor.job.workspace, host: executor.shell.host.name)))
        }
        executor.log.append(.note("\(executor.ref.jobID) attempt \(executor.ref.attempt): the tests chained behind its push are not the part its fresh listing chose; that part ran on its own"))
    }

    /// An attempt that ends before its test step took the chained test (cancelled, or its listing
    /// found nothing to run): the exec is stopped before the job directory goes.
    func abandonChainedTest() async {
        guard let test = runningTest else { return }
        runningTest = nil
        await test.abandon()
    }

    /// The package folder of a build holding `bundle` (`<build>/<package>/.build/debug/<Name>PackageTests.xctest`).
    static func packageFolder(ofBundle bundle: String) -> String {
        ((((bundle as NSString).deletingLastPathComponent as NSString).deletingLastPathComponent as NSString).deletingLastPathComponent)
    }
}
