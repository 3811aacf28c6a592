import Foundation

/// Replaces secret values (fleet environment and plan parameters marked `secret`) with
/// `[redacted]` in streamed bytes, whatever the chunking and line boundaries.
///
/// The patterns are every secret and, for a multi-line secret (a PEM key), each of its lines of
/// at least `minimumLength` bytes too, so a key printed line by line (or re-wrapped with `\r\n`)
/// is caught line by line. Matching is leftmost-longest over all patterns. While the bytes at
/// the end of the stream could still be the start of a pattern they are held back — never more
/// than the longest pattern's length minus one — and released (or masked) when the next chunk
/// or `flush()` decides them.
///
/// Loaders refuse secrets shorter than `minimumLength` (a one- or two-character value cannot be
/// told apart from ordinary output); lines of a multi-line secret shorter than that are not
/// patterns of their own.
public struct Redactor: Sendable {
    public static let minimumLength = 3
    public static let mask = Array("[redacted]".utf8)

    /// Longest first.
    public let patterns: [[UInt8]]
    private let maxLength: Int
    /// `starts[b]`: indices of the patterns starting with byte `b`.
    private let starts: [[Int]]
    private var pending: [UInt8] = []

    public init(secrets: [String]) {
        var set = Set<[UInt8]>()
        for s in secrets where !s.isEmpty {
            set.insert(Array(s.utf8))
            if s.contains(where: \.isNewline) {
                for line in s.split(whereSeparator: \.isNewline) where line.utf8.count >= Redactor.minimumLength {
                    set.insert(Array(line.utf8))
                }
            }
        }
        self.init(patterns: Array(set))
    }

    /// Exact byte patterns (no line splitting), e.g. secrets as they look inside JSON strings.
    public init(patterns: [[UInt8]]) {
        let sorted = Array(Set(patterns.filter { !$0.isEmpty })).sorted { $0.count != $1.count ? $0.count > $1.count : $0.lexicographicallyPrecedes($1) }
        self.patterns = sorted
        maxLength = sorted.first?.count ?? 0
        var starts = [[Int]](repeating: [], count: 256)
        for (i, p) in sorted.enumerated() { starts[Int(p[0])].append(i) }
        self.starts = starts
    }

    public var isEmpty: Bool { patterns.isEmpty }

    /// Bytes held back right now (at most the longest pattern's length minus one).
    public var heldBack: Int { pending.count }

    /// Redacts a whole string.
    public func redact(_ text: String) -> String {
        guard !patterns.isEmpty else { return text }
        var copy = self
        copy.pending = []
        var out = copy.consume(Array(text.utf8))
        out += copy.flush()
        return String(decoding: out, as: UTF8.self)
    }

    /// Redacts a whole byte string.
    public func redact(_ bytes: [UInt8]) -> [UInt8] {
        guard !patterns.isEmpty else { return bytes }
        var copy = self
        copy.pending = []
        return copy.consume(bytes) + copy.flush()
    }

    /// Feeds a chunk; returns the bytes that are safe to pass on (redacted).
    public mutating func consume(_ bytes: [UInt8]) -> [UInt8] {
        if patterns.isEmpty { return bytes }
        pending += bytes
        return scan(final: false)
    }

    /// End of the stream: releases everything held back (redacted).
    public mutating func flush() -> [UInt8] {
        if patterns.isEmpty { let rest = pending; pending = []; return rest }
        return scan(final: true)
    }

    private mutating func scan(final: Bool) -> [UInt8] {
        let data = pending
        var out: [UInt8] = []
        out.reserveCapacity(data.count)
        var i = 0
        var copyFrom = 0
        scanning: while i < data.count {
            let candidates = starts[Int(data[i])]
            if candidates.isEmpty { i += 1; continue }
            let available = data.count - i
            var matched = 0
            for index in candidates {
                let p = patterns[index]
                if p.count <= available {
                    if matched == 0, data[i..<(i + p.count)].elementsEqual(p) { matched = p.count }
                } else if !final, data[i...].elementsEqual(p.prefix(available)) {
                    // A longer pattern may still complete here: decide when more bytes come.
                    out += data[copyFrom..<i]
                    pending = Array(data[i...])
                    return out
                }
            }
            if matched > 0 {
                out += data[copyFrom..<i]
                out += Redactor.mask
                i += matched
                copyFrom = i
            } else {
                i += 1
            }
            continue scanning
        }
        out += data[copyFrom...]
        pending = []
        return out
    }
}
