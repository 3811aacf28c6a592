import Foundation
import XCFleetModel
import XCFleetCore
import XCFleetHostScripts

/// An Xcode job's build through the host build cache (docs/builds.md, docs/xcode.md): the key,
/// the cache script's command running `xcodebuild build-for-testing` in the staged package with
/// DerivedData inside it, and where the finished DerivedData is for `test-without-building`.
/// Shards, repetitions and retries with one key share one build; a mutant's files change the key.
/// Pure (no I/O).
public struct XcodeCachedBuild: Equatable, Sendable {
    /// The rendered package as pushed (its build files make the key and the manifest).
    public var workspace: Workspace
    /// The host's work root (`<workRoot>/builds/<key>`).
    public var workRoot: String
    public var limits: CacheLimits
    /// The job directory holding the pushed package.
    public var jobDirectory: String
    /// Product digests xcfleet recorded for its builds on the host (`BuildTrust`): a cached build
    /// is used only when it matches. Not made read-only: test-without-building writes into DerivedData.
    public var trusted: [String: String] = [:]
    /// Keys other jobs of the run are building on the host now (`BuildCacheScript.Input.pending`).
    public var pending: [String] = []

    public init(workspace: Workspace, workRoot: String, limits: CacheLimits, jobDirectory: String) {
        self.workspace = workspace
        self.workRoot = workRoot
        self.limits = limits
        self.jobDirectory = jobDirectory
    }

    /// DerivedData relative to the staged package, so it moves with it into `builds/<key>`.
    public static let derivedDataName = XcodebuildDriver.derivedDataName
    /// The test product: the whole products folder build-for-testing writes — the `.xctestrun`
    /// files and everything they name under `__TESTROOT__` (apps, `.xctest` bundles, frameworks).
    /// The cache's product digest covers every regular file in it (path and contents), and a build
    /// relayed to another host of the class is this folder (docs/builds.md). The tests read only it
    /// (through the `.xctestrun`); the rest of DerivedData (intermediates, module caches, logs) is
    /// neither hashed nor relayed.
    public static let productGlob = derivedDataName + "/Build/Products"

    /// The toolchain identity of the chosen Xcode: `xcodebuild -version` output and `DEVELOPER_DIR`.
    public static func identity(versionOutput: String, developerDir: String?) -> String {
        ToolchainIdentity.text(system: "Darwin", versionLines: versionOutput.split(separator: "\n").map(String.init),
                               developerDir: developerDir)
    }

    /// `xcodebuild build-for-testing … -derivedDataPath DerivedData`, run in the staged package.
    /// `destination` is the build destination (`XcodeDestination.buildValue`).
    public static func buildForTesting(scheme: String, destination: String, developerDir: String?) -> ShellCommand {
        XcodebuildDriver(developerDir: developerDir).buildForTestingCommand(scheme: scheme, destination: destination, derivedDataPath: derivedDataName)
    }

    public func key(toolchain: String, scheme: String, destination: String, developerDir: String?) -> BuildKey {
        key(toolchain: toolchain, build: Self.buildForTesting(scheme: scheme, destination: destination, developerDir: developerDir),
            destination: destination)
    }

    /// The key of any `build-for-testing` command (a team's workspace or project: `XcodeProjectCommands`).
    public func key(toolchain: String, build: ShellCommand, destination: String) -> BuildKey {
        BuildKey.compute(workspace: workspace, toolchain: toolchain, destination: destination,
                         buildCommand: build.arguments + ["product=" + Self.productGlob])
    }

    /// The cache script with the build-for-testing command; `DEVELOPER_DIR` reaches xcodebuild through its environment.
    public func command(toolchain: String, scheme: String, destination: String, developerDir: String?) -> ShellCommand {
        command(toolchain: toolchain, build: Self.buildForTesting(scheme: scheme, destination: destination, developerDir: developerDir),
                destination: destination)
    }

    /// The cache script running `build` (into `DerivedData` of the staged tree) for `destination`.
    public func command(toolchain: String, build: ShellCommand, destination: String) -> ShellCommand {
        var command = BuildCacheScript.command(BuildCacheScript.Input(
            workRoot: workRoot, key: key(toolchain: toolchain, build: build, destination: destination),
            toolchainDigest: BuildKey.toolchainDigest(toolchain), productGlob: Self.productGlob,
            manifest: BuildKey.sourceManifest(of: workspace), jobDirectory: jobDirectory, limits: limits, command: build.arguments,
            trusted: trusted, pending: pending))
        command.environment = build.environment
        return command
    }

    /// The finished build's DerivedData: `<workRoot>/builds/<key>/DerivedData`.
    public func derivedDataPath(key: BuildKey) -> String {
        XcodebuildDriver.join(XcodebuildDriver.join(XcodebuildDriver.join(workRoot, "builds"), key.hex), Self.derivedDataName)
    }
}
