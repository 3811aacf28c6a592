import Foundation
import XCFleetModel
import XCFleetHostScripts

/// Receives a finished build from another host of the same class (build once per fleet,
/// docs/builds.md): lists the build's test product on the source host (a SwiftPM test bundle with
/// its resources, or an Xcode build's products folder with its `.xctestrun`; regular files only:
/// a symbolic link in it refuses the relay), fetches those files, pushes
/// them with the package's files to the target host, where `build-relay.sh` installs them as
/// `builds/<key>` only if the sources match the key's manifest and the product's SHA-256 is the one
/// xcfleet recorded when it built the key on the source host. The target's build step then finds a
/// trusted cached build and compiles nothing.
struct BuildRelay: Sendable {
    var key: BuildKey
    /// The product's SHA-256 as xcfleet recorded it on the source host (`BuildTrust`).
    var digest: String
    var toolchainDigest: String
    var productGlob: String
    /// The job's workspace: its build files are the build's sources.
    var workspace: Workspace
    /// Make the installed build read-only (SwiftPM).
    var readOnly: Bool

    /// Largest product relayed (a bigger one is built where it is needed).
    static let byteLimit = 2 << 30

    struct Relayed: Sendable {
        var files: Int
        var bytes: Int
    }

    /// Fetches the product from `source` and installs it on `target`. Throws `RemoteShellError`
    /// (transport) or `BuildRelayError` (the product was refused or could not be listed).
    func run(from source: any RemoteShell, to target: any RemoteShell, deadlines: CommandDeadlines) async throws -> Relayed {
        let buildDir = source.host.workRoot + "/builds/" + key.hex
        let listing = OutputSink(limit: 4 << 20)
        let listed = try await source.run(BuildCacheScript.productListingCommand(workRoot: source.host.workRoot, key: key, productGlob: productGlob),
                                          in: source.host.workRoot, deadlines: deadlines) { listing.add($0) }
        guard listed == .exited(0) else {
            throw BuildRelayError("\(source.host.name) no longer holds the build \(key.short) (\(listed.consoleText))")
        }
        var files = workspace.files.filter { !BuildKey.testSteeringFiles.contains($0.path) }
        var bytes = 0
        for line in listing.stdoutText.split(separator: "\n") {
            guard line.count > 2, let mode = line.first, mode == "x" || mode == "-" || mode == "l" else { continue }
            let path = String(line.dropFirst(2))
            let relative = path.hasPrefix("./") ? String(path.dropFirst(2)) : path
            if let problem = Workspace.pathProblem(relative) { throw BuildRelayError("\(source.host.name) listed '\(relative.prefix(120))' (\(problem))") }
            if mode == "l" {
                throw BuildRelayError("the product of \(key.short) holds a symbolic link (\(relative.prefix(120))), which a relay does not carry")
            }
            let data = try await source.fetch(relative, in: buildDir)
            bytes += data.count
            guard bytes <= Self.byteLimit else { throw BuildRelayError("the product of \(key.short) is larger than \(Self.byteLimit >> 20) MiB") }
            files.append(WorkspaceFile(path: relative, contents: data, executable: mode == "x"))
        }
        guard files.count > workspace.files.count - workspace.files.filter({ BuildKey.testSteeringFiles.contains($0.path) }).count else {
            throw BuildRelayError("\(source.host.name) listed no test product for \(key.short)")
        }
        let staging = try await target.makeJobDirectory(jobID: "relay-" + key.short)
        do {
            _ = try await target.push(Workspace(files: files), to: staging)
            let out = OutputSink(limit: 1 << 20)
            let install = BuildCacheScript.relayCommand(workRoot: target.host.workRoot, key: key, toolchainDigest: toolchainDigest,
                                                        productGlob: productGlob, manifest: BuildKey.sourceManifest(of: workspace),
                                                        source: staging, digest: digest, readOnly: readOnly)
            let ended = try await target.run(install, in: staging, deadlines: deadlines) { out.add($0) }
            try? await target.removeJobDirectory(staging)
            guard ended == .exited(0) else {
                let said = out.stdoutText.split(separator: "\n").first { $0.hasPrefix("XCFLEET-BUILD relay refused") }
                    .map { String($0.dropFirst("XCFLEET-BUILD relay refused ".count)) }
                throw BuildRelayError("\(target.host.name) refused the build \(key.short) from \(source.host.name): "
                                      + (said ?? "\(ended.consoleText) \(out.stderrTail)"))
            }
        } catch {
            try? await target.removeJobDirectory(staging)
            throw error
        }
        return Relayed(files: files.count, bytes: bytes)
    }
}

/// A relay that did not happen (the target then builds the key itself).
struct BuildRelayError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
