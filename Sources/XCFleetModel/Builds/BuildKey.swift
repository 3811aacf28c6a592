import Foundation
import XCFleetBasics

/// What determines a build, hashed: the files of the rendered package that the compiler sees,
/// the host's toolchain identity, the destination and the build command. Jobs with equal keys on
/// one host share one build (shards, repetitions and retries of a suite). Pure.
public struct BuildKey: Hashable, Codable, Sendable, CustomStringConvertible {
    /// 64 lower-case hex digits (SHA-256).
    public var hex: String

    public init(hex: String) { self.hex = hex }

    /// The first 12 digits, for reports.
    public var short: String { String(hex.prefix(12)) }
    public var description: String { hex }

    /// Files that only steer the test run (which tests, what to expect) and so never change the
    /// build: they are pushed with the package but not part of the key.
    public static let testSteeringFiles: Set<String> = ["xcfleet-manifest.json", sourcesFileName]

    /// The source manifest as a file pushed with the job (`sourcesText`): the host's build cache
    /// reads it there, checked against `sourcesDigest` on its command line. A repository of a few
    /// thousand files would overflow a command line (an SSH exec request carries about 32 KB, one
    /// Linux argument 128 KiB).
    public static let sourcesFileName = ".xcfleet-sources"

    /// The manifest file's contents: each `sha256  path` line ended by a newline.
    public static func sourcesText(_ manifest: [String]) -> Data {
        Data(manifest.map { $0 + "\n" }.joined().utf8)
    }

    /// SHA-256 of `sourcesText(manifest)`: what the host checks the pushed file against.
    public static func sourcesDigest(_ manifest: [String]) -> String {
        var h = SHA256()
        h.update(sourcesText(manifest))
        return h.finalizeHex()
    }

    /// The manifest file of `workspace`'s build.
    public static func sourcesFile(of workspace: Workspace) -> WorkspaceFile {
        WorkspaceFile(path: sourcesFileName, contents: sourcesText(sourceManifest(of: workspace)))
    }

    /// `workspace` as it is pushed for a build: with its source manifest file (replacing a file of that name).
    public static func withSourcesFile(_ workspace: Workspace) -> Workspace {
        Workspace(files: workspace.files.filter { $0.path != sourcesFileName } + [sourcesFile(of: workspace)])
    }

    /// `sha256  path` lines (the `sha256sum` format, sorted by path) of the files that affect the
    /// build: the manifest the host verifies a cached tree against.
    public static func sourceManifest(of workspace: Workspace) -> [String] {
        workspace.files.filter { !testSteeringFiles.contains($0.path) }.map { f in
            var h = SHA256()
            h.update(f.contents)
            return h.finalizeHex() + "  " + f.path
        }
    }

    /// The key of `workspace` built by `buildCommand` with `toolchain` (the host's identity text,
    /// see `ToolchainIdentity`) for `destination` (nil: the host itself).
    public static func compute(workspace: Workspace, toolchain: String, destination: String?, buildCommand: [String]) -> BuildKey {
        var h = SHA256()
        func field(_ name: String, _ value: String) {
            h.update(Array(name.utf8) + [0])
            var n = UInt64(value.utf8.count).bigEndian
            withUnsafeBytes(of: &n) { h.update(Array($0)) }
            h.update(Array(value.utf8))
        }
        field("xcfleet-build-key", "1")
        field("toolchain", toolchain)
        field("destination", destination ?? "")
        field("command", buildCommand.joined(separator: "\u{0}"))
        for f in workspace.files where !testSteeringFiles.contains(f.path) {
            field(f.executable ? "file+x" : "file", f.path)
            var c = SHA256()
            c.update(f.contents)
            field("sha256", c.finalizeHex())
        }
        return BuildKey(hex: h.finalizeHex())
    }

    /// SHA-256 of a toolchain identity text (what the host's marker records).
    public static func toolchainDigest(_ identity: String) -> String {
        var h = SHA256()
        h.update(Array(identity.utf8))
        return h.finalizeHex()
    }
}
