import Foundation
import XCFleetBasics
#if canImport(Glibc)
import Glibc
#endif

/// An OpenSSH known_hosts file, parsed: plain and hashed (`|1|salt|hash`) names, patterns with
/// `*`/`?`/`!`, `@revoked` markers (`@cert-authority` lines are ignored: no certificates here).
///
/// Lookup follows OpenSSH, not libssh2: the caller passes the exact name (`host` on port 22,
/// `[host]:port` otherwise) and only that name matches — libssh2's `knownhost_checkp` would also
/// accept a bare `host` line for another port.
struct KnownHosts {
    struct Entry: Equatable {
        var revoked: Bool
        var hostField: String
        var keyType: String
        var keyBlob: [UInt8]
        /// 1-based line number in the file.
        var line: Int
    }

    enum Verdict: Equatable {
        case match
        /// No line for this name.
        case unknown
        /// Lines exist for this name, none with the server's key.
        case changed(known: [Entry])
        /// The server's key is marked `@revoked`.
        case revoked
    }

    private(set) var entries: [Entry] = []

    init(text: String) {
        // Like OpenSSH, lines and fields are split on bytes, not on grapheme clusters: a name
        // ending in a "prepend" character (U+0600…) would otherwise swallow the space after it.
        // Only spaces and tabs separate or surround fields; a name may hold any other character,
        // Unicode spaces too (a written line must read back as its own name).
        let isBlank: (UInt8) -> Bool = { $0 == 0x20 || $0 == 0x09 }
        var lineNumber = 0
        for raw in text.utf8.split(separator: 0x0A, omittingEmptySubsequences: false) {
            lineNumber += 1
            var line = raw[...]
            while let b = line.first, isBlank(b) || b == 0x0D { line = line.dropFirst() }
            while let b = line.last, isBlank(b) || b == 0x0D { line = line.dropLast() }
            if line.isEmpty || line.first == UInt8(ascii: "#") { continue }
            var fields = line.split(whereSeparator: isBlank).map { String(decoding: $0, as: UTF8.self) }
            var revoked = false
            if let first = fields.first, first.hasPrefix("@") {
                if first == "@revoked" { revoked = true } else { continue }
                fields.removeFirst()
            }
            guard fields.count >= 3, let blob = Data(base64Encoded: fields[2]) else { continue }
            entries.append(Entry(revoked: revoked, hostField: fields[0], keyType: fields[1],
                                 keyBlob: [UInt8](blob), line: lineNumber))
        }
    }

    /// Reads `path` (through `InputFile`: links resolved, regular files only, size-capped, never
    /// blocks on a FIFO); a missing file is an empty list.
    static func load(path: String) throws -> KnownHosts {
        guard FileManager.default.fileExists(atPath: path) else { return KnownHosts(text: "") }
        let data = try InputFile.read(path, limit: 16 << 20)
        return KnownHosts(text: String(decoding: data, as: UTF8.self))
    }

    /// The name as OpenSSH looks it up and hashes it: host names are lower-cased first
    /// (`ssh LocalHost` finds and writes `localhost`), so every lookup and every written line uses this.
    static func canonicalName(_ name: String) -> String { name.lowercased() }

    /// Non-revoked lines whose host field matches `name` exactly (or by pattern).
    func entries(for name: String) -> [Entry] {
        entries.filter { !$0.revoked && Self.hostField($0.hostField, matches: name) }
    }

    /// Key types known for `name`, in file order, without duplicates (for the host-key method preference).
    func keyTypes(for name: String) -> [String] {
        var seen: [String] = []
        for e in entries(for: name) where !seen.contains(e.keyType) { seen.append(e.keyType) }
        return seen
    }

    func verify(name: String, keyBlob: [UInt8]) -> Verdict {
        if entries.contains(where: { $0.revoked && $0.keyBlob == keyBlob }) { return .revoked }
        let known = entries(for: name)
        if known.isEmpty { return .unknown }
        if known.contains(where: { $0.keyBlob == keyBlob }) { return .match }
        return .changed(known: known)
    }

    /// `SHA256:` + unpadded base64 of the SHA-256 of the key blob, as `ssh-keygen -l` prints it.
    static func fingerprint(_ keyBlob: [UInt8]) -> String {
        let b64 = Data(Digest.sha256(keyBlob)).base64EncodedString()
        return "SHA256:" + b64.replacingOccurrences(of: "=", with: "")
    }

    /// The plain line OpenSSH would accept for `name` (shown to users to add by hand).
    static func plainLine(name: String, keyType: String, keyBlob: [UInt8]) -> String {
        "\(canonicalName(name)) \(keyType) \(Data(keyBlob).base64EncodedString())"
    }

    /// A hashed line `|1|base64(salt)|base64(HMAC-SHA1(salt, name)) type key`, as `ssh-keygen -H` writes.
    static func hashedLine(name: String, keyType: String, keyBlob: [UInt8], salt: [UInt8]) -> String {
        let mac = Digest.hmacSHA1(key: salt, message: Array(canonicalName(name).utf8))
        return "|1|\(Data(salt).base64EncodedString())|\(Data(mac).base64EncodedString()) \(keyType) \(Data(keyBlob).base64EncodedString())"
    }

    /// Appends `line` to the file at `path`, creating it (0600) and its directory if needed.
    /// The file is opened read-write (the last byte is read to know whether a newline is
    /// missing) and every write goes to the end (`O_APPEND`), never truncating what is there.
    static func append(line: String, to path: String) throws {
        let fm = FileManager.default
        let dir = (path as NSString).deletingLastPathComponent
        if !dir.isEmpty { try fm.createDirectory(atPath: dir, withIntermediateDirectories: true) }
        let fd = open(path, O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC | O_NONBLOCK, 0o600)
        guard fd >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        let handle = FileHandle(fileDescriptor: fd, closeOnDealloc: true)
        defer { try? handle.close() }
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { throw InputFileError(path: path, kind: .notRegular("something else")) }
        var text = line + "\n"
        if info.st_size > 0 {
            var last: UInt8 = 0
            if pread(fd, &last, 1, off_t(info.st_size - 1)) == 1, last != 0x0A { text = "\n" + text }
        }
        try handle.write(contentsOf: Data(text.utf8))
    }

    // MARK: - Matching

    static func hostField(_ field: String, matches name: String) -> Bool {
        if field.hasPrefix("|1|") {
            let parts = field.split(separator: "|", omittingEmptySubsequences: false)
            // "", "1", salt, hash
            guard parts.count == 4, let salt = Data(base64Encoded: String(parts[2])),
                  let hash = Data(base64Encoded: String(parts[3])) else { return false }
            return Digest.hmacSHA1(key: [UInt8](salt), message: Array(canonicalName(name).utf8)) == [UInt8](hash)
        }
        var matched = false
        let lowered = name.lowercased()
        for pattern in field.unicodeScalars.split(separator: ",").map({ String(String.UnicodeScalarView($0)) }) {
            if pattern.hasPrefix("!") {
                if glob(Array(pattern.dropFirst().lowercased().unicodeScalars), Array(lowered.unicodeScalars)) { return false }
            } else if glob(Array(pattern.lowercased().unicodeScalars), Array(lowered.unicodeScalars)) {
                matched = true
            }
        }
        return matched
    }

    /// `*` and `?` wildcards over Unicode scalars (no canonical-equivalence surprises), iterative with one backtrack point (linear-ish, no recursion).
    static func glob(_ p: [Unicode.Scalar], _ s: [Unicode.Scalar]) -> Bool {
        var pi = 0, si = 0, star = -1, mark = 0
        while si < s.count {
            if pi < p.count && (p[pi] == "?" || p[pi] == s[si]) {
                pi += 1; si += 1
            } else if pi < p.count && p[pi] == "*" {
                star = pi; mark = si; pi += 1
            } else if star >= 0 {
                pi = star + 1; mark += 1; si = mark
            } else {
                return false
            }
        }
        while pi < p.count && p[pi] == "*" { pi += 1 }
        return pi == p.count
    }
}
