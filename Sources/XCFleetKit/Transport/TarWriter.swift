import Foundation
import XCFleetBasics
import XCFleetModel

/// Writes a POSIX ustar archive as a stream of chunks: directories and regular files with
/// modes. Paths that do not fit ustar's name/prefix fields get a PAX `path` record (GNU tar and
/// macOS bsdtar both read it). Unsafe paths are rejected before anything is produced.
public struct TarWriter: Sendable {
    public enum Entry: Equatable, Sendable {
        case directory(path: String, mode: Int)
        case file(path: String, contents: Data, mode: Int)

        var path: String {
            switch self {
            case .directory(let p, _), .file(let p, _, _): return p
            }
        }
    }

    public enum TarError: Error, Equatable, CustomStringConvertible {
        case unsafePath(String, String)
        case tooLarge(String)

        public var description: String {
            switch self {
            case .unsafePath(let p, let why): return "refusing workspace entry \(p.debugDescription): \(why)"
            case .tooLarge(let p): return "workspace file \(p.debugDescription) is larger than 8 GiB"
            }
        }
    }

    private let entries: [Entry]
    private let mtime: Int
    private var index = 0
    private var finished = false

    /// `mtime` is the modification time written for every entry (seconds since 1970).
    public init(entries: [Entry], mtime: Int = Int(Date().timeIntervalSince1970)) throws {
        for e in entries {
            if let problem = Workspace.pathProblem(e.path) { throw TarError.unsafePath(e.path, problem) }
            if case .file(let p, let contents, _) = e, contents.count >= 0o77777777777 { throw TarError.tooLarge(p) }
        }
        self.entries = entries
        self.mtime = max(0, mtime)
    }

    /// A workspace as entries: every parent directory (0755) first, then files (0755 executable, else 0644).
    public init(workspace: Workspace, mtime: Int = Int(Date().timeIntervalSince1970)) throws {
        var entries: [Entry] = []
        var dirs = Set<String>()
        for f in workspace.files {
            if let problem = Workspace.pathProblem(f.path) { throw TarError.unsafePath(f.path, problem) }
            var parts = f.path.split(separator: "/").map(String.init)
            parts.removeLast()
            var prefix = ""
            for part in parts {
                prefix = prefix.isEmpty ? part : prefix + "/" + part
                if dirs.insert(prefix).inserted { entries.append(.directory(path: prefix, mode: 0o755)) }
            }
            entries.append(.file(path: f.path, contents: f.contents, mode: f.executable ? 0o755 : 0o644))
        }
        try self.init(entries: entries, mtime: mtime)
    }

    /// The next chunk (one entry: headers, contents, padding), then the end-of-archive blocks, then nil.
    public mutating func next() -> [UInt8]? {
        if index < entries.count {
            defer { index += 1 }
            return encode(entries[index])
        }
        if finished { return nil }
        finished = true
        return [UInt8](repeating: 0, count: 1024)
    }

    /// The whole archive at once (tests, small trees).
    public mutating func archive() -> [UInt8] {
        var out: [UInt8] = []
        while let chunk = next() { out += chunk }
        return out
    }

    private func encode(_ entry: Entry) -> [UInt8] {
        var out: [UInt8] = []
        let path: String
        let mode: Int
        let type: UInt8
        var size = 0
        switch entry {
        case .directory(let p, let m): path = p + "/"; mode = m; type = UInt8(ascii: "5")
        case .file(let p, let c, let m): path = p; mode = m; type = UInt8(ascii: "0"); size = c.count
        }
        let pathBytes = Array(path.utf8)
        var name = pathBytes
        var prefix: [UInt8] = []
        if pathBytes.count > 100 {
            if let split = Self.splitForUstar(pathBytes) {
                prefix = Array(pathBytes[..<split])
                name = Array(pathBytes[(split + 1)...])
            } else {
                // PAX extended header carrying the full path; the ustar name is a truncated stand-in.
                let record = Self.paxRecord(key: "path", value: pathBytes)
                out += header(name: Array("PaxHeaders/".utf8) + Array(pathBytes.suffix(80)), prefix: [], mode: 0o644,
                              size: record.count, type: UInt8(ascii: "x"))
                out += record + Self.padding(record.count)
                name = Array(pathBytes.suffix(100))
            }
        }
        out += header(name: name, prefix: prefix, mode: mode, size: size, type: type)
        if case .file(_, let contents, _) = entry {
            out += contents
            out += Self.padding(contents.count)
        }
        return out
    }

    private func header(name: [UInt8], prefix: [UInt8], mode: Int, size: Int, type: UInt8) -> [UInt8] {
        var h = [UInt8](repeating: 0, count: 512)
        func put(_ bytes: [UInt8], at offset: Int, max: Int) {
            for (i, b) in bytes.prefix(max).enumerated() { h[offset + i] = b }
        }
        func octal(_ value: Int, width: Int) -> [UInt8] {
            var s = String(value, radix: 8)
            while s.count < width - 1 { s = "0" + s }
            return Array(s.utf8) + [0]
        }
        put(name, at: 0, max: 100)
        put(octal(mode, width: 8), at: 100, max: 8)
        put(octal(0, width: 8), at: 108, max: 8)
        put(octal(0, width: 8), at: 116, max: 8)
        put(octal(size, width: 12), at: 124, max: 12)
        put(octal(mtime, width: 12), at: 136, max: 12)
        put(Array(repeating: UInt8(ascii: " "), count: 8), at: 148, max: 8)
        h[156] = type
        put(Array("ustar".utf8) + [0], at: 257, max: 6)
        put(Array("00".utf8), at: 263, max: 2)
        put(Array("root".utf8), at: 265, max: 32)
        put(Array("root".utf8), at: 297, max: 32)
        put(prefix, at: 345, max: 155)
        let sum = h.reduce(0) { $0 + Int($1) }
        var chk = String(sum, radix: 8)
        while chk.count < 6 { chk = "0" + chk }
        put(Array(chk.utf8) + [0, UInt8(ascii: " ")], at: 148, max: 8)
        return h
    }

    /// Index of a `/` that splits `path` into prefix (≤ 155 bytes) and name (≤ 100 bytes, non-empty).
    static func splitForUstar(_ path: [UInt8]) -> Int? {
        let slash = UInt8(ascii: "/")
        var candidate: Int?
        for i in path.indices where path[i] == slash {
            // For a directory path ending in "/", the trailing slash is part of the name.
            if i == path.count - 1 { continue }
            if i <= 155 && path.count - i - 1 <= 100 { candidate = i; break }
        }
        return candidate
    }

    /// `"<len> key=value\n"` where len counts the whole record, itself included.
    static func paxRecord(key: String, value: [UInt8]) -> [UInt8] {
        let body = Array(" \(key)=".utf8) + value + [0x0A]
        var length = body.count + 1
        while String(length).utf8.count + body.count != length { length = String(length).utf8.count + body.count }
        return Array(String(length).utf8) + body
    }

    static func padding(_ count: Int) -> [UInt8] {
        let r = count % 512
        return r == 0 ? [] : [UInt8](repeating: 0, count: 512 - r)
    }
}

extension TarWriter.TarError: UserFacingError {
    // A workspace entry comes from the templates or the plan: input to fix.
    public var userMessage: String { description }
    public var exitCode: Int32 { UserFacingErrors.ExitCode.usage }
}
