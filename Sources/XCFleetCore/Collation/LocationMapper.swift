import Foundation
import XCFleetModel

/// Translates a location a host printed into the user's repository, the one way every report,
/// annotation and console line shows locations. Pure.
///
/// A path is matched, in order: against explicit source roots (`xcfleet parse --source-root
/// HOST=REPO`); against the host folders the package lived in (job folder, build folders,
/// recorded in the events), then looked up in the package's `SourceMap`; else by its longest
/// trailing run of path components that names one file of the map (so a prefix nobody told us
/// about — a symlinked work root, a build cache folder — still maps). `file://` URLs (with
/// Xcode's `#StartingLineNumber=` fragment, 0-based), percent-encoding, `.`/`..`, doubled
/// slashes and macOS's `/private/var` ⇄ `/var` are normalised first.
public struct LocationMapper: Sendable {
    /// `HOST_PREFIX=REPO_DIR` of `xcfleet parse --source-root`; `repository` is relative to the
    /// repository root (`""` for the root itself).
    public struct SourceRoot: Equatable, Sendable {
        public var hostPrefix: String
        public var repository: String

        public init(hostPrefix: String, repository: String) {
            self.hostPrefix = hostPrefix
            self.repository = repository
        }
    }

    public var sourceMap: SourceMap?
    public var hostPrefixes: [String]
    public var sourceRoots: [SourceRoot]

    public init(sourceMap: SourceMap? = nil, hostPrefixes: [String] = [], sourceRoots: [SourceRoot] = []) {
        self.sourceMap = sourceMap
        self.hostPrefixes = hostPrefixes.map { Self.normalize($0).path }.sorted { $0.count > $1.count }
        self.sourceRoots = sourceRoots.map { SourceRoot(hostPrefix: Self.normalize($0.hostPrefix).path, repository: $0.repository) }
            .sorted { $0.hostPrefix.count > $1.hostPrefix.count }
    }

    /// Nothing to map with: details stay as the host printed them.
    public var isEmpty: Bool { sourceMap == nil && sourceRoots.isEmpty }

    // MARK: Mapping

    public func map(file: String, line: Int?, column: Int? = nil) -> SourceLocation {
        let n = Self.normalize(file)
        let line = line ?? n.line
        let column = column ?? n.column
        let host = SourceLocation(kind: .host, hostFile: file, hostLine: line, column: column)
        for root in sourceRoots {
            if let rest = Self.strip(n.path, prefix: root.hostPrefix), !rest.isEmpty {
                let path = root.repository.isEmpty ? rest : root.repository + "/" + rest
                return SourceLocation(kind: .repository, hostFile: file, hostLine: line, column: column, path: path, line: line)
            }
        }
        guard let map = sourceMap else { return host }
        var found: SourceMapEntry?
        for prefix in hostPrefixes {
            if let rest = Self.strip(n.path, prefix: prefix) ?? Self.stripByName(n.path, prefix: prefix), let e = map.entry(rest) { found = e; break }
        }
        if found == nil { found = Self.suffixMatch(n.path, in: map) }
        guard let entry = found else { return host }
        var loc = host
        switch entry.origin {
        case .template(let p), .core(let p):
            loc.kind = map.base == .repository ? .repository : .templates
            loc.path = p
            loc.line = line
        case .repository(let p):
            loc.kind = .repository
            loc.path = p
            loc.line = line
        case .generated(let name):
            loc.kind = .generated
            loc.generated = name
        case .mutant(let id, let original, let replacement):
            loc.kind = .mutant
            loc.mutant = id
            if map.base == .templates {
                loc.original = "xcfleet templates: " + original
            } else if let replacement {
                loc.original = original
                loc.path = replacement
                loc.line = line
            } else {
                loc.original = original
                if let l = line {
                    if case .some(let mapped?) = entry.originalLine(l) { loc.path = original; loc.line = mapped }
                } else {
                    loc.path = original
                }
            }
        }
        return loc
    }

    /// The detail with its location mapped (`file`/`line` become the repository path and line when
    /// there is one) and host paths inside its message rewritten.
    public func map(_ d: FailureDetail) -> FailureDetail {
        guard !isEmpty, d.location == nil else { return d }
        var out = d
        out.message = rewrite(d.message)
        guard let file = d.file, !file.isEmpty else { return out }
        let loc = map(file: file, line: d.line)
        out.location = loc
        switch loc.kind {
        case .repository, .templates, .mutant:
            if let p = loc.path { out.file = p; out.line = loc.line }
        case .generated, .host:
            break
        }
        return out
    }

    /// Free text (a crash report, a failure message) with every path of the package (absolute,
    /// `file://`, or a relative `Module/File.swift` as `#fileID` prints it), with its `:line[:col]`,
    /// replaced by how the location is shown. Words that are no file of the package stay as they are.
    public func rewrite(_ text: String) -> String {
        guard !isEmpty, text.contains("/") || text.contains(".swift") else { return text }
        let chars = Array(text)
        var out = ""
        var i = 0
        let openers: Set<Character> = [" ", "\t", "\n", "\"", "'", "(", "<", "[", "=", "`"]
        let closers: Set<Character> = [" ", "\t", "\n", "\r", "\"", "'", ")", ">", "]", ",", ";", "`"]
        while i < chars.count {
            let boundary = i == 0 || openers.contains(chars[i - 1])
            if boundary, !closers.contains(chars[i]) {
                var j = i
                while j < chars.count, !closers.contains(chars[j]) { j += 1 }
                var token = String(chars[i..<j])
                // Absolute paths and file URLs, or relative ones naming a Swift file (`CacheContract/K.swift:12:`, `#fileID`).
                guard chars[i] == "/" || Self.hasFileScheme(chars, at: i) || token.contains(".swift") else {
                    out += token
                    i = j
                    continue
                }
                var trailing = ""
                while token.hasSuffix(":") || token.hasSuffix(".") { trailing = String(token.removeLast()) + trailing }
                let (path, line, column) = Self.splitLineSuffix(token)
                let loc = map(file: path, line: line, column: column)
                if loc.kind != .host {
                    out += loc.display + trailing
                } else if let (glued, inner) = gluedLocation(path, line: line, column: column) {
                    out += glued + inner.display + trailing
                } else if let rest = hostFolderPath(path) {
                    out += "(job folder)/" + rest + String(token.dropFirst(path.count)) + trailing
                } else {
                    out += String(chars[i..<j])
                }
                i = j
                continue
            }
            out.append(chars[i])
            i += 1
        }
        return out
    }

    /// A relative Swift path glued to other output (stdout and stderr interleave mid-line when a
    /// test process crashes: `…started at 12:00:00.123CacheContract/K.swift:66`): the text before
    /// the package path, and the location, when a start inside the first component maps.
    private func gluedLocation(_ path: String, line: Int?, column: Int?) -> (String, SourceLocation)? {
        guard !path.hasPrefix("/"), path.hasSuffix(".swift"), let slash = path.firstIndex(of: "/"),
              path.distance(from: path.startIndex, to: slash) <= 200 else { return nil }
        var i = path.index(after: path.startIndex)
        while i < slash {
            let loc = map(file: String(path[i...]), line: line, column: column)
            if loc.kind != .host { return (String(path[..<i]), loc) }
            i = path.index(after: i)
        }
        return nil
    }

    /// The part of a host path below one of the package's host folders (a binary, a build product).
    private func hostFolderPath(_ path: String) -> String? {
        let n = Self.normalize(path).path
        for prefix in hostPrefixes { if let rest = Self.strip(n, prefix: prefix) ?? Self.stripByName(n, prefix: prefix), !rest.isEmpty { return rest } }
        return nil
    }

    // MARK: Paths

    /// Absolute path (or relative, lexically cleaned) with the line and column a `file://` fragment carried.
    package static func normalize(_ raw: String) -> (path: String, line: Int?, column: Int?) {
        var s = raw
        var line: Int?, column: Int?
        if s.hasPrefix("file://") {
            s = String(s.dropFirst(7))
            if s.hasPrefix("localhost/") { s = String(s.dropFirst(9)) }
            if let hash = s.firstIndex(of: "#") {
                for pair in s[s.index(after: hash)...].split(separator: "&") {
                    let kv = pair.split(separator: "=", maxSplits: 1)
                    guard kv.count == 2, let n = Int(kv[1]), n >= 0, n < Int.max else { continue }
                    if kv[0] == "StartingLineNumber" { line = n + 1 }
                    if kv[0] == "StartingColumnNumber" { column = n + 1 }
                }
                s = String(s[..<hash])
            }
            if let q = s.firstIndex(of: "?") { s = String(s[..<q]) }
            s = s.removingPercentEncoding ?? s
        }
        let absolute = s.hasPrefix("/")
        var parts: [Substring] = []
        for c in s.split(separator: "/", omittingEmptySubsequences: true) {
            if c == "." { continue }
            if c == ".." { if !parts.isEmpty, parts.last != ".." { parts.removeLast() } else if !absolute { parts.append(c) }; continue }
            parts.append(c)
        }
        if absolute, parts.count > 1, parts[0] == "private", ["var", "tmp", "etc"].contains(parts[1]) { parts.removeFirst() }
        return ((absolute ? "/" : "") + parts.joined(separator: "/"), line, column)
    }

    package static func strip(_ path: String, prefix: String) -> String? {
        guard !prefix.isEmpty, prefix != "/" else { return nil }
        guard path.hasPrefix(prefix + "/") else { return nil }
        return String(path.dropFirst(prefix.count + 1))
    }

    /// The part after the prefix's own folder name anywhere in `path`: job and build folders have
    /// unique names (`cache-gate-3f2a9c1d`), so a work root reached through a symlink, or printed
    /// resolved, still matches. Short, generic names (`work`, `.stage`) only match as a whole prefix.
    package static func stripByName(_ path: String, prefix: String) -> String? {
        guard let name = prefix.split(separator: "/").last, name.count >= 10, !name.hasPrefix("."),
              name.contains(where: { $0 == "-" || $0 == "." }) else { return nil }
        guard let r = path.range(of: "/" + name + "/", options: .backwards) else { return nil }
        return String(path[r.upperBound...])
    }

    /// The entry sharing the most trailing path components with `path`: the entry's whole path,
    /// or the whole of a relative `path` (`CacheContract/MemoryKey.swift`, `MemoryKeyTests.swift`). Ambiguous → nil.
    package static func suffixMatch(_ path: String, in map: SourceMap) -> SourceMapEntry? {
        let input = path.split(separator: "/")
        guard let last = input.last else { return nil }
        let relative = !path.hasPrefix("/")
        var best: SourceMapEntry?
        var bestK = 0
        var tie = false
        for e in map.entries {
            let comps = e.path.split(separator: "/")
            guard comps.last == last else { continue }
            var k = 0
            while k < comps.count, k < input.count, comps[comps.count - 1 - k] == input[input.count - 1 - k] { k += 1 }
            guard k == comps.count || (relative && k == input.count) else { continue }
            if k > bestK { best = e; bestK = k; tie = false } else if k == bestK { tie = true }
        }
        return tie ? nil : best
    }

    /// `a/b.swift:12:5` → (`a/b.swift`, 12, 5).
    package static func splitLineSuffix(_ token: String) -> (String, Int?, Int?) {
        var parts = token.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        var numbers: [Int] = []
        while parts.count > 1, numbers.count < 2, let n = Int(parts[parts.count - 1]), n >= 0 {
            numbers.insert(n, at: 0)
            parts.removeLast()
        }
        let path = parts.joined(separator: ":")
        return (path, numbers.first, numbers.count > 1 ? numbers[1] : nil)
    }

    private static func hasFileScheme(_ chars: [Character], at i: Int) -> Bool {
        guard i + 7 <= chars.count else { return false }
        return String(chars[i..<(i + 7)]) == "file://"
    }
}
