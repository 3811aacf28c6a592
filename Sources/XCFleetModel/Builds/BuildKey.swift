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
    public static let testSteeringFiles: Set<String> = ["xcfleet-manifest.json"]

    /// SHA-256 of the manifest as the host lists it from the pushed job directory: its lines sorted
    /// by the bytes of their paths (`LC_ALL=C sort`), each ended by a newline. The build cache
    /// hashes the job directory's files itself (the manifest of a repository of a few thousand
    /// files would overflow a command line: an SSH exec request carries about 32 KB, one Linux
    /// argument 128 KiB) and builds only when they hash to this digest, its one argument.
    public static func sourcesDigest(_ manifest: [String]) -> String {
        let sorted = manifest.sorted { Array($0.utf8.dropFirst(66)).lexicographicallyPrecedes(Array($1.utf8.dropFirst(66))) }
        var h = SHA256()
        h.update(Array(sorted.map { $0 + "\n" }.joined().utf8))
        return h.finalizeHex()
    }

    /// `sha256  path` lines (the `sha256sum` format, sorted by path) of the files that affect the
    /// build: the manifest the host verifies a cached tree against.
    public static func sourceManifest(of workspace: Workspace) -> [String] {
        workspace.files.filter { !testSteeringFiles.contains($0.path) }.map { $0.sha256 + "  " + $0.path }
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
            field("sha256", f.sha256)
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
