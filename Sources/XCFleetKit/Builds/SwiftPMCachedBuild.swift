import Foundation
import XCFleetModel
import XCFleetHostScripts

/// A SwiftPM job's build through the host build cache: the key and the cache script's command
/// (the built bundle is listed and run by `PackageTestCommands`). Pure (no I/O).
struct SwiftPMCachedBuild: Sendable {
    var job: PlannedJob
    var shell: any RemoteShell
    var directory: String
    var driver: SwiftPMDriver

    /// Where SwiftPM puts the test bundle, relative to the package.
    static let productGlob = ".build/debug/*PackageTests.xctest"

    /// This package's test bundle: `<Package>PackageTests.xctest` (an incremental build from another
    /// package's build also holds that package's bundle).
    var productGlob: String { Self.productGlob(of: job) }

    static func productGlob(of job: PlannedJob) -> String {
        if let dir = job.source.packageDirectory {
            // A team's package: its own name names the bundle (any package's, when it cannot be read).
            let prefix = dir.isEmpty ? "" : dir + "/"
            let name = job.workspace.file(prefix + "Package.swift")
                .flatMap { PackageSuite.declaredName(manifest: String(decoding: $0.contents, as: UTF8.self)) } ?? "*"
            return prefix + ".build/debug/\(name)PackageTests.xctest"
        }
        let manifest = job.workspace.file("xcfleet-manifest.json").flatMap { try? JSONDecoder().decode(SuiteManifest.self, from: $0.contents) }
        guard let suite = manifest?.suite else { return Self.productGlob }
        return ".build/debug/\(Renderer.packageName(for: suite))PackageTests.xctest"
    }

    /// `swift build --build-tests`, with `--package-path` for a package below the repository's top.
    var buildArguments: [String] { Self.buildArguments(of: job, driver: driver) }

    static func buildArguments(of job: PlannedJob, driver: SwiftPMDriver) -> [String] {
        let dir = job.source.packageDirectory ?? ""
        return driver.buildCommand().arguments + (dir.isEmpty ? [] : ["--package-path", dir])
    }

    func key(toolchain: String) -> BuildKey { Self.key(of: job, driver: driver, toolchain: toolchain) }

    /// The job's build key on a host of `toolchain` (no host needed: the package and the toolchain make it).
    static func key(of job: PlannedJob, driver: SwiftPMDriver, toolchain: String) -> BuildKey {
        BuildKey.compute(workspace: job.workspace, toolchain: toolchain, destination: nil,
                         buildCommand: buildArguments(of: job, driver: driver) + ["product=" + productGlob(of: job)])
    }

    /// `trusted`: the product digests xcfleet recorded for its builds on this host (`BuildTrust`).
    /// The finished build is made read-only: its bundle runs from the job directory.
    /// `pending`: keys other jobs of the run are building on this host now (`BuildCacheScript.Input.pending`).
    func buildCommand(toolchain: String, trusted: [String: String] = [:], pending: [String] = []) -> ShellCommand {
        BuildCacheScript.command(BuildCacheScript.Input(
            workRoot: shell.host.workRoot, key: key(toolchain: toolchain), toolchainDigest: BuildKey.toolchainDigest(toolchain),
            productGlob: productGlob, manifest: BuildKey.sourceManifest(of: job.workspace), jobDirectory: directory,
            limits: shell.host.cache ?? CacheLimits(), command: buildArguments, trusted: trusted, pending: pending, readOnly: true))
    }
}
