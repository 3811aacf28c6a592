import Foundation

/// Reads the entries of a tar stream the host's `tar -c` wrote (ustar, with GNU `L` long names or
/// PAX `path` records, as GNU tar and macOS bsdtar write them). Pure and total: a bad checksum, a
/// truncated stream or an unknown header ends the reading, never traps; sizes are bounded by the
/// bytes actually present. Only what the caller asked for is used (names are checked there).
public struct TarReader {
    public struct Entry: Equatable, Sendable {
        public enum Kind: Equatable, Sendable { case file, directory, link, other }
        public var name: String
        public var kind: Kind
        public var contents: [UInt8]
        /// The stream ended inside this entry's contents (`contents` is what arrived).
        public var truncated: Bool
    }

    /// Every entry of `bytes`, in stream order; the reading stops at the end-of-archive block or at
    /// the first header that is not one.
    public static func entries(_ bytes: [UInt8]) -> [Entry] {
        var out: [Entry] = []
        var at = 0
        var longName: String?
        var paxPath: String?
        while at + 512 <= bytes.count {
            let header = bytes[at..<at + 512]
            if header.allSatisfy({ $0 == 0 }) { break }
            guard checksumMatches(header) else { break }
            guard let size = octal(header, 124, 12), size >= 0 else { break }
            let type = header[header.startIndex + 156]
            let dataStart = at + 512
            let available = max(0, min(size, bytes.count - dataStart))
            let data = Array(bytes[dataStart..<dataStart + available])
            let truncated = available < size
            at = dataStart + (size + 511) / 512 * 512
            switch type {
            case UInt8(ascii: "L"):
                longName = cString(data[...])
                continue
            case UInt8(ascii: "x"):
                paxPath = paxRecord("path", in: data) ?? paxPath
                continue
            case UInt8(ascii: "g"):
                continue
            default:
                break
            }
            var name = ustarName(header)
            if let n = paxPath ?? longName { name = n }
            paxPath = nil
            longName = nil
            let kind: Entry.Kind
            switch type {
            case 0, UInt8(ascii: "0"), UInt8(ascii: "7"): kind = .file
            case UInt8(ascii: "5"): kind = .directory
            case UInt8(ascii: "1"), UInt8(ascii: "2"): kind = .link
            default: kind = .other
            }
            out.append(Entry(name: normalized(name), kind: kind, contents: kind == .file ? data : [], truncated: truncated))
            if truncated { break }
        }
        return out
    }

    /// `./a/b` and `a/b/` → `a/b`.
    static func normalized(_ name: String) -> String {
        var n = Substring(name)
        while n.hasPrefix("./") { n = n.dropFirst(2) }
        while n.hasSuffix("/") { n = n.dropLast() }
        return String(n)
    }

    private static func ustarName(_ h: ArraySlice<UInt8>) -> String {
        let name = cString(h[h.startIndex..<h.startIndex + 100])
        let magic = h[h.startIndex + 257..<h.startIndex + 262]
        guard Array(magic) == Array("ustar".utf8) else { return name }
        let prefix = cString(h[h.startIndex + 345..<h.startIndex + 500])
        return prefix.isEmpty ? name : prefix + "/" + name
    }

    private static func cString(_ s: ArraySlice<UInt8>) -> String {
        let end = s.firstIndex(of: 0) ?? s.endIndex
        return String(decoding: s[s.startIndex..<end], as: UTF8.self)
    }

    /// An octal field (or GNU's base-256 form for large sizes).
    private static func octal(_ h: ArraySlice<UInt8>, _ offset: Int, _ length: Int) -> Int? {
        let field = h[h.startIndex + offset..<h.startIndex + offset + length]
        if let first = field.first, first & 0x80 != 0 {
            var v = 0
            for (i, b) in field.enumerated() {
                v = (v << 8) | Int(i == 0 ? b & 0x7F : b)
                if v > 1 << 40 { return nil }
            }
            return v
        }
        var v = 0
        var digits = 0
        for b in field {
            if b == 0 || b == 32 { if digits > 0 { break } else { continue } }
            guard b >= 0x30 && b <= 0x37 else { return nil }
            v = v * 8 + Int(b - 0x30)
            digits += 1
            if v > 1 << 40 { return nil }
        }
        return v
    }

    private static func checksumMatches(_ h: ArraySlice<UInt8>) -> Bool {
        guard let stored = octal(h, 148, 8) else { return false }
        var sum = 0
        for (i, b) in h.enumerated() { sum += (148..<156).contains(i) ? 32 : Int(b) }
        return sum == stored
    }

    /// A PAX extended header's `key=value` record (`LEN key=value\n` …).
    private static func paxRecord(_ key: String, in data: [UInt8]) -> String? {
        var at = 0
        var found: String?
        while at < data.count {
            guard let space = data[at...].firstIndex(of: 32), let len = Int(String(decoding: data[at..<space], as: UTF8.self)),
                  len > 0, at + len <= data.count, at + len - 1 > space else { break }
            let record = data[(space + 1)..<(at + len - 1)]
            if let eq = record.firstIndex(of: UInt8(ascii: "=")), String(decoding: record[record.startIndex..<eq], as: UTF8.self) == key {
                found = String(decoding: record[(eq + 1)...], as: UTF8.self)
            }
            at += len
        }
        return found
    }
}
