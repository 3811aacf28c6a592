import Foundation
import XCFleetBasics

/// One file of a rendered workspace. `path` is relative, `/`-separated.
public struct WorkspaceFile: Equatable, Sendable {
    public var path: String
    public var contents: Data { didSet { digest = FileDigest() } }
    public var executable: Bool
    /// The SHA-256 of `contents`, worked out once per contents: the push, the build key and the
    /// build cache's manifest all name a file by it (copies of the value share it).
    private var digest: FileDigest

    public init(path: String, contents: Data, executable: Bool = false) {
        self.path = path
        self.contents = contents
        self.executable = executable
        self.digest = FileDigest()
    }

    /// A file whose contents' SHA-256 is already known (`sha256`: 64 lower-case hex digits), e.g.
    /// from a cache of the hashes of files unchanged on disk since they were hashed.
    package init(path: String, contents: Data, executable: Bool, sha256: String) {
        self.init(path: path, contents: contents, executable: executable)
        digest = FileDigest(sha256)
    }

    /// Hex SHA-256 of `contents`.
    public var sha256: String { digest.value(of: contents) }

    public static func == (a: WorkspaceFile, b: WorkspaceFile) -> Bool {
        a.path == b.path && a.executable == b.executable && a.contents == b.contents
    }
}

/// A file's SHA-256, computed on first use and then kept (shared by the copies of one value).
private final class FileDigest: @unchecked Sendable {
    private let lock = NSLock()
    private var hex: String?

    init(_ hex: String? = nil) { self.hex = hex }

    func value(of contents: Data) -> String {
        lock.lock()
        if let hex { lock.unlock(); return hex }
        lock.unlock()
        var h = SHA256()
        h.update(contents)
        let computed = h.finalizeHex()
        lock.lock()
        hex = computed
        lock.unlock()
        return computed
    }
}

/// An in-memory file tree: what gets pushed to a host. Files are kept sorted by path so
/// that the content hash (SHA-256 over paths, modes and contents) is stable.
public struct Workspace: Equatable, Sendable {
    public private(set) var files: [WorkspaceFile]

    public init(files: [WorkspaceFile]) {
        self.files = files.sorted { $0.path < $1.path }
    }

    public var totalBytes: Int { files.reduce(0) { $0 + $1.contents.count } }

    public func file(_ path: String) -> WorkspaceFile? { files.first { $0.path == path } }

    /// Hex SHA-256 of the whole tree; equal trees hash equal. A warm host compares it to skip a push.
    public var contentHash: String {
        var h = SHA256()
        for f in files {
            h.update(Array(f.path.utf8))
            h.update([0, f.executable ? 1 : 0])
            var n = UInt64(f.contents.count).bigEndian
            withUnsafeBytes(of: &n) { h.update(Array($0)) }
            h.update(f.contents)
        }
        return h.finalizeHex()
    }

    /// Hex SHA-256 of each file's contents, by path: what a build cache compares to find the cached
    /// build nearest to this tree (the fewest differing files) and what an incremental copy must replace.
    public var fileHashes: [String: String] {
        var out: [String: String] = [:]
        for f in files { out[f.path] = f.sha256 }
        return out
    }

    /// The tree without `paths` (e.g. `Renderer.runOnlyPaths`, to hash only what affects a build).
    public func excluding(_ paths: Set<String>) -> Workspace {
        Workspace(files: files.filter { !paths.contains($0.path) })
    }

    /// Problems that make a path unsafe to send: absolute, `..`, empty components, control characters.
    public static func pathProblem(_ path: String) -> String? {
        if path.isEmpty { return "empty path" }
        if path.hasPrefix("/") { return "absolute path" }
        if path.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) { return "control character in path" }
        for component in path.split(separator: "/", omittingEmptySubsequences: false) {
            if component == ".." { return "'..' in path" }
            if component.isEmpty || component == "." { return "empty or '.' component" }
        }
        return nil
    }
}

public enum WorkspaceError: Error, Equatable, CustomStringConvertible {
    case unsafePath(String, String)

    public var description: String {
        switch self {
        case .unsafePath(let p, let why): return "refusing workspace entry '\(p.debugDescription.dropFirst().dropLast())': \(why)"
        }
    }
}

extension WorkspaceError: UserFacingError {
    public var userMessage: String { description }
    public var exitCode: Int32 { UserFacingErrors.ExitCode.usage }
}
