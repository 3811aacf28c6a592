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

    private var manifest: SuiteManifest? {
        job.workspace.file("xcfleet-manifest.json").flatMap { try? JSONDecoder().decode(SuiteManifest.self, from: $0.contents) }
    }

    /// This package's test bundle: `<Package>PackageTests.xctest` (an incremental build from another
    /// package's build also holds that package's bundle).
    var productGlob: String {
        if let dir = job.source.packageDirectory {
            // A team's package: its own name names the bundle (any package's, when it cannot be read).
            let prefix = dir.isEmpty ? "" : dir + "/"
            let name = job.workspace.file(prefix + "Package.swift")
                .flatMap { PackageSuite.declaredName(manifest: String(decoding: $0.contents, as: UTF8.self)) } ?? "*"
            return prefix + ".build/debug/\(name)PackageTests.xctest"
        }
        guard let suite = manifest?.suite else { return Self.productGlob }
        return ".build/debug/\(Renderer.packageName(for: suite))PackageTests.xctest"
    }

    /// `swift build --build-tests`, with `--package-path` for a package below the repository's top.
    var buildArguments: [String] {
        let dir = job.source.packageDirectory ?? ""
        return driver.buildCommand().arguments + (dir.isEmpty ? [] : ["--package-path", dir])
    }

    func key(toolchain: String) -> BuildKey {
        BuildKey.compute(workspace: job.workspace, toolchain: toolchain, destination: nil,
                         buildCommand: buildArguments + ["product=" + productGlob])
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
