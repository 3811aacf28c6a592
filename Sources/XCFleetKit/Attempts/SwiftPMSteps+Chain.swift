import Foundation
import XCFleetBasics
import XCFleetModel
import XCFleetCore

/// What runs in the push's round trip after the push check (`RemoteShell.prepareJob`): the build's
/// command for the job directory, where its output goes, and the test following it in the same
/// exec (`ChainedTest`), if any.
struct ChainedBuild: Sendable {
    var command: @Sendable (String) throws -> ShellCommand?
    var output: @Sendable (OutputChunk) -> Void
    var test: ChainedTest?
}

/// A template job's test in the exec of its push check and build cache (`ChainedTest`): a warm
/// attempt costs one round trip before its test. A team's package is not chained (its tests are
/// discovered first), nor is a product glob that could match more than one bundle.
extension SwiftPMSteps {
    func chainableTest(identity: String, buildOutput: @escaping @Sendable (OutputChunk) -> Void) -> ChainedTest? {
        let job = executor.job
        guard job.source.packageDirectory == nil, job.source.steps == [.push, .build, .test, .collect] else { return nil }
        let glob = cached.productGlob
        guard !glob.contains(where: { "*?[]\\".contains($0) }) else { return nil }
        let key = cached.key(toolchain: identity)
        let bundle = executor.shell.host.workRoot + "/builds/" + key.hex + "/" + glob
        let collector = self.collector
        return ChainedTest(bundle: bundle, buildSeconds: job.spec.timeouts.build, testSeconds: job.spec.timeouts.test,
                           buildOutput: buildOutput, testOutput: { collector.consume($0) })
    }

    /// The build cache's command with the test behind it, wrapped in the attempt's process record;
    /// nil when they cannot share one exec request (too long, or an environment that cannot be
    /// exported): the build then runs alone.
    func chainedCommand(_ cached: SwiftPMCachedBuild, identity: String, test: ChainedTest) -> ShellCommand? {
        let darwin = ToolchainIdentity.os(of: identity) == "Darwin"
        let args = PackageTestCommands.run(bundle: test.bundle, packageFolder: cached.directory, darwin: darwin, selected: nil, all: [], swiftTesting: [])
        let run = ShellCommand(SwiftPMDriver.lineBuffered + args, environment: TestRunEnvironment.variables(for: executor.job.planned))
        let build = unwrappedBuildCommand(cached, identity: identity)
        guard let both = test.command(build: build, test: executor.withAttachmentsFolder(run, jobDirectory: cached.directory)) else { return nil }
        scanner.onLocked = executor.buildStarted
        let wrapped = executor.record?.wrap(both) ?? both
        guard ShellQuote.join(wrapped.arguments).utf8.count + pushCheckBytes <= Self.sshExecLimit else { return nil }
        return wrapped
    }

    /// The build part exited 0 and the test started: the build step reports the build, the test
    /// step the rest of the exec.
    func chainedTestStarted(_ test: ChainedTest) {
        runningTest = test
        guard let identity = chainIdentity else { return }
        pending = buildEnded(.exited(0), identity: identity, started: chainStarted)
    }

    /// The test step of a chained test: the rest of the exec (the push is logged with it).
    func chainedTestEnded(_ test: ChainedTest) async -> AttemptMachine.StepResult {
        let shell = executor.shell
        test.open()
        let (result, timedOut) = await test.execEnded()
        collector.finishStream()
        switch result {
        case .success(let prepared):
            executor.log.append(.push(executor.ref, AttemptExecutor.pushRecord(prepared.push, workspace: executor.job.workspace, host: shell.host.name)))
            guard scanner.products == [test.bundle] else {
                return .failed(.host("the build cache on \(shell.host.name) reported \(scanner.products.count) test bundles (expected \(test.bundle))"))
            }
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

    /// An attempt that ends before its test step took the chained test (cancelled): the exec is
    /// stopped before the job directory goes.
    func abandonChainedTest() async {
        guard let test = runningTest else { return }
        runningTest = nil
        await test.abandon()
    }
}
