import Foundation

/// Where every file of one rendered package came from, so a location a host prints inside the
/// package (`<job dir>/Tests/CacheContractTests/MemoryKeyTests.swift:72`) can be shown as the
/// user's file (`Templates/cache-contract/MemoryKeyTests.swift:72`). Recorded per job in
/// `events.jsonl` (`RunEvent.Body.sourceMap`), so reports rebuild from the events alone.
public struct SourceMap: Equatable, Codable, Sendable {
    /// What the `origin` paths are relative to.
    public enum Base: String, Codable, Sendable {
        /// The repository root (a checkout: the git top level above the templates, or the templates root itself).
        case repository
        /// An installed xcfleet's templates root (`share/xcfleet`): not the user's repository.
        case templates
    }

    public var base: Base
    /// Sorted by `path`.
    public var entries: [SourceMapEntry]

    public init(base: Base, entries: [SourceMapEntry]) {
        self.base = base
        self.entries = entries.sorted { $0.path < $1.path }
    }

    public func entry(_ packagePath: String) -> SourceMapEntry? {
        var lo = 0, hi = entries.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if entries[mid].path < packagePath { lo = mid + 1 } else { hi = mid }
        }
        return lo < entries.count && entries[lo].path == packagePath ? entries[lo] : nil
    }
}

/// One file of a rendered package and its origin.
public struct SourceMapEntry: Equatable, Codable, Sendable {
    /// Path inside the rendered package (`Sources/CacheContract/MemoryKey.swift`).
    public var path: String
    public var origin: SourceOrigin
    /// Line changes between the rendered file and the origin's file (a patched mutant); nil: line for line.
    public var edits: [LineEdit]?

    public init(path: String, origin: SourceOrigin, edits: [LineEdit]? = nil) {
        self.path = path
        self.origin = origin
        self.edits = edits
    }

    /// The origin file's line for a rendered line: `.some(nil)` inside an edit (no original line).
    public func originalLine(_ rendered: Int) -> Int?? {
        guard let edits else { return .some(rendered) }
        var offset = 0
        for e in edits.sorted(by: { $0.renderedStart < $1.renderedStart }) {
            if rendered < e.renderedStart { break }
            if rendered < e.renderedStart + e.renderedCount { return .some(nil) }
            offset += e.originalCount - e.renderedCount
        }
        return .some(rendered + offset)
    }
}

/// A block of lines an edit replaced: `originalCount` lines from `originalStart` became
/// `renderedCount` lines from `renderedStart` (1-based).
public struct LineEdit: Equatable, Codable, Sendable {
    public var renderedStart: Int
    public var renderedCount: Int
    public var originalStart: Int
    public var originalCount: Int

    public init(renderedStart: Int, renderedCount: Int, originalStart: Int, originalCount: Int) {
        self.renderedStart = renderedStart
        self.renderedCount = renderedCount
        self.originalStart = originalStart
        self.originalCount = originalCount
    }
}

extension LineEdit {
    /// The blocks of lines that differ between `original` and `rendered` (a longest-common-subsequence
    /// line diff; files too large for it give one block from the first to the last differing line).
    public static func between(original: Data, rendered: Data) -> [LineEdit] {
        let a = String(decoding: original, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        let b = String(decoding: rendered, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        var head = 0
        while head < a.count, head < b.count, a[head] == b[head] { head += 1 }
        var tail = 0
        while tail < a.count - head, tail < b.count - head, a[a.count - 1 - tail] == b[b.count - 1 - tail] { tail += 1 }
        let x = Array(a[head..<(a.count - tail)]), y = Array(b[head..<(b.count - tail)])
        if x.isEmpty && y.isEmpty { return [] }
        guard x.count * y.count <= 1_000_000, !x.isEmpty, !y.isEmpty else {
            return [LineEdit(renderedStart: head + 1, renderedCount: y.count, originalStart: head + 1, originalCount: x.count)]
        }
        // lcs[i][j]: common lines of x[i...] and y[j...].
        var lcs = Array(repeating: Array(repeating: 0, count: y.count + 1), count: x.count + 1)
        for i in stride(from: x.count - 1, through: 0, by: -1) {
            for j in stride(from: y.count - 1, through: 0, by: -1) {
                lcs[i][j] = x[i] == y[j] ? lcs[i + 1][j + 1] + 1 : max(lcs[i + 1][j], lcs[i][j + 1])
            }
        }
        var out: [LineEdit] = []
        var i = 0, j = 0, si = 0, sj = 0
        func flush() {
            if i > si || j > sj { out.append(LineEdit(renderedStart: head + sj + 1, renderedCount: j - sj, originalStart: head + si + 1, originalCount: i - si)) }
        }
        while i < x.count || j < y.count {
            if i < x.count, j < y.count, x[i] == y[j] {
                flush()
                i += 1; j += 1
                si = i; sj = j
            } else if j < y.count, i == x.count || lcs[i][j + 1] >= lcs[i + 1][j] {
                j += 1
            } else {
                i += 1
            }
        }
        flush()
        return out
    }
}

/// Where a rendered file came from; paths are relative to the map's base.
public enum SourceOrigin: Equatable, Codable, Sendable {
    /// A template file (`Templates/cache-contract/MemoryKeyTests.swift`, `Templates/package/Package.swift`).
    case template(String)
    /// A core source file (`Sources/CacheContract/MemoryKey.swift`).
    case core(String)
    /// Generated by xcfleet (`XCFleetSettings.swift`, `xcfleet-manifest.json`).
    case generated(String)
    /// A file of the user's repository as it is — a team's package, Xcode project or contract
    /// subject file — by its path in the git repository that holds it: always shown as a
    /// repository location, whatever the map's `base`.
    case repository(String)
    /// A mutant's version of `original`. `replacement` is the repository file whose lines the
    /// rendered file has (a whole-file mutant); nil for a patch, whose lines map to `original` through the entry's `edits`.
    case mutant(id: String, original: String, replacement: String?)

    private enum CodingKeys: String, CodingKey { case kind, path, name, mutant, original, replacement }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        switch try c.decode(String.self, forKey: .kind) {
        case "template": self = .template(try c.decode(String.self, forKey: .path))
        case "core": self = .core(try c.decode(String.self, forKey: .path))
        case "generated": self = .generated(try c.decode(String.self, forKey: .name))
        case "repository": self = .repository(try c.decode(String.self, forKey: .path))
        case "mutant":
            self = .mutant(id: try c.decode(String.self, forKey: .mutant), original: try c.decode(String.self, forKey: .original),
                           replacement: try c.decodeIfPresent(String.self, forKey: .replacement))
        case let other:
            throw DecodingError.dataCorruptedError(forKey: .kind, in: c, debugDescription: "unknown source origin '\(other)'")
        }
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .template(let p): try c.encode("template", forKey: .kind); try c.encode(p, forKey: .path)
        case .core(let p): try c.encode("core", forKey: .kind); try c.encode(p, forKey: .path)
        case .generated(let n): try c.encode("generated", forKey: .kind); try c.encode(n, forKey: .name)
        case .repository(let p): try c.encode("repository", forKey: .kind); try c.encode(p, forKey: .path)
        case .mutant(let id, let original, let replacement):
            try c.encode("mutant", forKey: .kind)
            try c.encode(id, forKey: .mutant)
            try c.encode(original, forKey: .original)
            try c.encodeIfPresent(replacement, forKey: .replacement)
        }
    }
}

extension SourceMap {
    /// File kinds a compiler, a test runner or a crash report names in a location.
    static let sourceExtensions: Set<String> = ["swift", "m", "mm", "h", "hh", "hpp", "c", "cc", "cpp", "cxx", "metal", "s"]

    /// The map of a package or project pushed as it is (`Workspace` paths are the repository's):
    /// each source file maps to itself. Other files (resources, data, docs) are left out: no
    /// location points into them, and a large repository's map stays small in the event log.
    public static func identity(of paths: [String]) -> SourceMap {
        var entries: [SourceMapEntry] = []
        for path in paths {
            guard let dot = path.lastIndex(of: "."), !path[dot...].contains("/"),
                  sourceExtensions.contains(path[path.index(after: dot)...].lowercased()) else { continue }
            entries.append(SourceMapEntry(path: path, origin: .repository(path)))
        }
        return SourceMap(base: .repository, entries: entries)
    }
}
