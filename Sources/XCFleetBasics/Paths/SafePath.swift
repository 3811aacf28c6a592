import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The one place that decides whether a name taken from input may become a path, and that
/// proves a directory xcfleet is about to remove or write is strictly inside its parent.
/// Every removal or write of a directory derived from input (render output, run directories,
/// logs, job directories) goes through here.
public enum SafePath {
    /// Longest plain component accepted (bytes; file systems allow 255).
    public static let maxComponentBytes = 255

    /// Why `name` is not a plain path component, or nil when it is one: not empty, not `.` or
    /// `..`, no `/`, no NUL or other control character, at most 255 bytes.
    public static func componentProblem(_ name: String) -> String? {
        if name.isEmpty { return "is empty" }
        if name == "." || name == ".." { return "'\(name)' names a directory itself, not an entry inside one" }
        if name.utf8.count > maxComponentBytes { return "is longer than \(maxComponentBytes) bytes" }
        if name.contains("/") { return "contains '/'" }
        if name.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) { return "contains a control character" }
        return nil
    }

    public static func isPlainComponent(_ name: String) -> Bool { componentProblem(name) == nil }

    /// Lexical check for local and remote paths: `path`, after removing `.` components, has
    /// every component of `parent` as a strict prefix and no `..` anywhere. Both must be absolute
    /// or both relative.
    public static func isStrictlyInside(_ path: String, parent: String) -> Bool {
        func parts(_ p: String) -> [Substring]? {
            let all = p.split(separator: "/", omittingEmptySubsequences: true).filter { $0 != "." }
            return all.contains("..") ? nil : all
        }
        guard path.hasPrefix("/") == parent.hasPrefix("/"), let c = parts(path), let p = parts(parent) else { return false }
        return c.count > p.count && Array(c.prefix(p.count)) == p
    }

    /// An injective file-name encoding of any string: ASCII letters, digits and '-' stay, every
    /// other byte becomes `_` and two hex digits (`a.b` → `a_2eb`, `a_b` → `a_5fb`), so two
    /// different names never share a file. Cut at 200 bytes, with a hash suffix when cut.
    public static func encodedComponent(_ name: String) -> String {
        var out = ""
        for b in name.utf8 {
            switch b {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"):
                out.unicodeScalars.append(Unicode.Scalar(b))
            default:
                out += "_" + (b < 16 ? "0" : "") + String(b, radix: 16)
            }
        }
        if out.isEmpty { return "_" }
        if out.utf8.count > 200 {
            // FNV-1a 64 of the whole name keeps long names distinct.
            var h: UInt64 = 0xcbf29ce484222325
            for b in name.utf8 { h = (h ^ UInt64(b)) &* 0x100000001b3 }
            out = String(out.prefix(183)) + "~" + String(h, radix: 16)
        }
        return out
    }

    /// `parent/name`, after proving `name` is a plain component (so the result is strictly
    /// inside `parent`). `what` names the value in the message ("suite name", "run id").
    public static func child(_ name: String, of parent: URL, what: String) throws(SafePathError) -> URL {
        if let problem = componentProblem(name) {
            throw SafePathError(path: parent.path + "/" + name, message: "\(what) '\(sanitizedForMessage(name))' \(problem); it must be a plain file name")
        }
        return parent.appendingPathComponent(name, isDirectory: false)
    }

    /// Throws unless `target` is strictly inside `parent`, both lexically and after resolving
    /// the symbolic links of every existing directory above `target` (the target itself may be
    /// a link: removing it removes the link, never what it points to).
    public static func requireInside(_ target: URL, parent: URL) throws(SafePathError) {
        let t = target.standardizedFileURL.path, p = parent.standardizedFileURL.path
        guard isStrictlyInside(t, parent: p) else {
            throw SafePathError(path: t, message: "refusing to touch \(t): it is not strictly inside \(p)")
        }
        let resolvedParent = resolvedExisting(p)
        let resolvedContainer = resolvedExisting((t as NSString).deletingLastPathComponent)
        guard resolvedContainer == resolvedParent || isStrictlyInside(resolvedContainer, parent: resolvedParent) else {
            throw SafePathError(path: t, message: "refusing to touch \(t): a symbolic link above it leads outside \(p)")
        }
    }

    /// Removes `target` (recursively; a link is removed itself) after `requireInside`. A target
    /// that does not exist is fine.
    public static func remove(_ target: URL, inside parent: URL) throws {
        try requireInside(target, parent: parent)
        var info = stat()
        guard lstat(target.path, &info) == 0 else { return }
        try FileManager.default.removeItem(at: target)
    }

    /// Creates `target` (one new directory, mode 0700 unless given) after `requireInside`; fails
    /// with `EEXIST` when anything is already there, so an existing directory is never reused.
    public static func createExclusively(_ target: URL, inside parent: URL, mode: mode_t = 0o755) throws {
        try FileManager.default.createDirectory(at: parent, withIntermediateDirectories: true)
        try requireInside(target, parent: parent)
        if mkdir(target.path, mode) != 0 {
            let code = errno
            if code == EEXIST { throw SafePathError(path: target.path, message: "\(target.path) already exists; refusing to reuse it", exists: true) }
            throw SafePathError(path: target.path, message: "cannot create \(target.path): \(String(cString: strerror(code)))")
        }
    }

    /// `path` with symbolic links resolved for its longest existing prefix (the rest appended as is).
    package static func resolvedExisting(_ path: String) -> String {
        var head = path, tail: [String] = []
        while !head.isEmpty, head != "/" {
            if let real = realpath(head, nil) {
                defer { free(real) }
                let base = String(cString: real)
                return tail.isEmpty ? base : (base == "/" ? "" : base) + "/" + tail.reversed().joined(separator: "/")
            }
            tail.append((head as NSString).lastPathComponent)
            head = (head as NSString).deletingLastPathComponent
        }
        return "/" + tail.reversed().joined(separator: "/")
    }

    /// Names in messages: control characters shown as `?`, cut to 80 characters.
    package static func sanitizedForMessage(_ s: String) -> String {
        let clean = String(String.UnicodeScalarView(s.unicodeScalars.map { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) ? "?" : $0 }))
        return clean.count > 80 ? String(clean.prefix(80)) + "…" : clean
    }
}

/// A path derived from input that xcfleet refuses to remove or write.
public struct SafePathError: Error, CustomStringConvertible, Equatable {
    public var path: String
    public var message: String
    /// The refusal is "already exists" (callers may pick another name).
    public var exists = false
    public var description: String { message }

    package init(path: String, message: String, exists: Bool = false) {
        self.path = path
        self.message = message
        self.exists = exists
    }
}

extension SafePathError: UserFacingError {
    public var userMessage: String { description }
    public var exitCode: Int32 { UserFacingErrors.ExitCode.usage }
}
