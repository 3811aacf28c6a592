#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One line of output as raw bytes (no terminator, ANSI codes removed, trimmed), with the
/// small matching helpers the line kinds need. Valid only inside the closure that made it.
/// Every helper is bounds-checked against `count` and never traps on arbitrary bytes.
package struct ByteLine {
    package let bytes: UnsafeBufferPointer<UInt8>
    /// 1-based line number in the stream (LF-terminated lines), for "unreadable result line N".
    package var number: Int = 0

    package init(bytes: UnsafeBufferPointer<UInt8>, number: Int = 0) {
        self.bytes = bytes
        self.number = number
    }

    /// The same line from `offset` on (for output spliced into the middle of a line).
    package func suffix(from offset: Int) -> ByteLine {
        let lo = min(max(offset, 0), bytes.count)
        return ByteLine(bytes: UnsafeBufferPointer(rebasing: bytes[lo...]), number: number)
    }

    package var count: Int { bytes.count }

    /// The byte at `i`, or 0 past the end (0 never matches anything we look for).
    @inline(__always)
    package subscript(_ i: Int) -> UInt8 {
        i >= 0 && i < bytes.count ? bytes[i] : 0
    }

    /// Whether the bytes at `offset` equal `pattern`.
    @inline(__always)
    package func has(_ pattern: StaticString, at offset: Int) -> Bool {
        let n = pattern.utf8CodeUnitCount
        guard offset >= 0, n <= bytes.count - offset, let base = bytes.baseAddress else { return false }
        return memcmp(base + offset, pattern.utf8Start, n) == 0
    }

    /// First index `>= from` where `pattern` starts. `anchor` is the index inside the pattern
    /// of a rare byte that `memchr` looks for first (keeps the search linear and fast).
    package func find(_ pattern: StaticString, from: Int = 0, anchor: Int = 0) -> Int? {
        let n = pattern.utf8CodeUnitCount
        guard n > 0, anchor < n, let base = bytes.baseAddress else { return nil }
        let anchorByte = pattern.utf8Start[anchor]
        var i = max(from, 0) + anchor
        let last = bytes.count - n + anchor  // last index the anchor byte may sit at
        while i <= last {
            guard let hit = memchr(base + i, Int32(anchorByte), last - i + 1) else { return nil }
            let at = base.distance(to: hit.assumingMemoryBound(to: UInt8.self))
            if memcmp(base + at - anchor, pattern.utf8Start, n) == 0 { return at - anchor }
            i = at + 1
        }
        return nil
    }

    /// First index `>= from` holding `byte`.
    package func index(of byte: UInt8, from: Int) -> Int? {
        guard from >= 0, from < bytes.count, let base = bytes.baseAddress else { return nil }
        guard let hit = memchr(base + from, Int32(byte), bytes.count - from) else { return nil }
        return base.distance(to: hit.assumingMemoryBound(to: UInt8.self))
    }

    /// Decodes `from..<to` (clamped) as UTF-8, replacing invalid sequences.
    package func string(_ from: Int, _ to: Int) -> String {
        let lo = min(max(from, 0), bytes.count)
        let hi = min(max(to, lo), bytes.count)
        return String(decoding: UnsafeBufferPointer(rebasing: bytes[lo..<hi]), as: UTF8.self)
    }

    package func string(from: Int) -> String { string(from, bytes.count) }

    /// Parses decimal digits at `i`, advancing it. Nil when no digit or more than 18 digits.
    package func int(at i: inout Int) -> Int? {
        var value = 0
        var j = i
        while j < bytes.count, bytes[j] &- 48 < 10 {
            if j - i >= 18 { return nil }
            value = value * 10 + Int(bytes[j] &- 48)
            j += 1
        }
        guard j > i else { return nil }
        i = j
        return value
    }

    /// Parses `digits[.digits]` at `i`, advancing it. Correctly rounded for up to 15
    /// significant digits (one exact division); longer numbers go through `Double(String)`.
    package func double(at i: inout Int) -> Double? {
        var j = i
        var mantissa: UInt64 = 0
        var digits = 0
        var fraction = 0
        var sawDot = false
        while j < bytes.count {
            let b = bytes[j]
            if b &- 48 < 10 {
                if digits < 19 { mantissa = mantissa &* 10 &+ UInt64(b &- 48) }
                digits += 1
                if sawDot { fraction += 1 }
            } else if b == UInt8(ascii: "."), !sawDot, self[j + 1] &- 48 < 10 {
                sawDot = true
            } else {
                break
            }
            j += 1
        }
        guard digits > 0 else { return nil }
        let start = i
        i = j
        if digits <= 15, fraction < ByteLine.powersOfTen.count {
            return Double(mantissa) / ByteLine.powersOfTen[fraction]
        }
        return Double(string(start, j))
    }

    private static let powersOfTen: [Double] = (0...22).map { e in
        var p = 1.0
        for _ in 0..<e { p *= 10 }
        return p
    }

    /// Bytes of an invisible format character at `i` (zero-width space, non-joiner and joiner,
    /// the direction marks and embeddings, word joiner and invisible operators, byte-order mark,
    /// soft hyphen), 0 when there is none.
    @inline(__always)
    package func invisibleLength(at i: Int) -> Int {
        ByteLine.invisibleLength(self[i], self[i + 1], self[i + 2])
    }

    @inline(__always)
    package static func invisibleLength(_ b0: UInt8, _ b1: UInt8, _ b2: UInt8) -> Int {
        switch b0 {
        case 0xE2:
            if b1 == 0x80, (0x8B...0x8F).contains(b2) || (0xAA...0xAE).contains(b2) { return 3 }
            if b1 == 0x81, (0xA0...0xA4).contains(b2) { return 3 }
            return 0
        case 0xEF: return b1 == 0xBB && b2 == 0xBF ? 3 : 0
        case 0xC2: return b1 == 0xAD ? 2 : 0
        default: return 0
        }
    }

    /// Length of the UTF-8 sequence a lead byte announces (1 for ASCII and stray bytes).
    @inline(__always)
    package static func scalarLength(lead: UInt8) -> Int {
        switch lead {
        case 0xF0...0xF7: return 4
        case 0xE0...0xEF: return 3
        case 0xC0...0xDF: return 2
        default: return 1
        }
    }
}
