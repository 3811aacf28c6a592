import Foundation
import XCFleetModel

/// Which of the files a test left in its attachments folder are fetched, decided from the host's
/// listing (`AttachmentScript.list`) before any byte of them is sent: regular files only (a link
/// is never followed), each under the per-file cap, at most `filesPerAttempt`, and the run's total
/// under the run cap. What is left out is kept with why.
public enum AttachmentSelection {
    /// One entry of the host's listing.
    public struct Entry: Equatable, Sendable {
        public enum Kind: Equatable, Sendable { case file, link, other }
        /// Relative to the attachments folder, `/`-separated, as the host spelled it.
        public var name: String
        public var kind: Kind
        public var bytes: Int

        public init(name: String, kind: Kind, bytes: Int) {
            self.name = name
            self.kind = kind
            self.bytes = bytes
        }
    }

    /// The host's listing: entries, and whether the host stopped listing early (too many entries).
    public struct Listing: Equatable, Sendable {
        public var entries: [Entry]
        public var truncated: Bool
    }

    /// What to fetch and what not.
    public struct Decision: Equatable, Sendable {
        public var take: [Entry] = []
        public var leftOut: [AttachmentLeftOut] = []
        /// Bytes of `take`.
        public var bytes = 0
    }

    /// Reads `attachments-list.pl`'s output: `f|l|o <TAB> size <TAB> hex of the name` per line,
    /// `t` when it stopped early. Lines that do not read so are ignored; a name that is not UTF-8
    /// or holds a control character is kept as unusable (left out with that reason).
    public static func parseListing(_ text: String) -> Listing {
        var entries: [Entry] = []
        var truncated = false
        for line in text.split(separator: "\n") {
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false)
            if fields.first == "t" { truncated = true; continue }
            guard fields.count == 3, let bytes = Int(fields[1]), bytes >= 0, let raw = hexBytes(fields[2]), !raw.isEmpty else { continue }
            let kind: Entry.Kind
            switch fields[0] {
            case "f": kind = .file
            case "l": kind = .link
            case "o": kind = .other
            default: continue
            }
            let name = String(decoding: raw, as: UTF8.self)
            entries.append(Entry(name: name, kind: kind, bytes: bytes))
        }
        return Listing(entries: entries.sorted { $0.name < $1.name }, truncated: truncated)
    }

    /// The decision for one attempt's listing, `runBytesUsed` already fetched by the run's other
    /// attempts. Entries are taken in name order, so the same listing gives the same decision.
    public static func decide(_ listing: Listing, limits: AttachmentLimits, runBytesUsed: Int) -> Decision {
        var d = Decision()
        for e in listing.entries {
            func leave(_ why: String) { d.leftOut.append(AttachmentLeftOut(name: e.name, bytes: e.kind == .file ? e.bytes : nil, reason: why)) }
            switch e.kind {
            case .link: leave("a symbolic link (links are not followed)"); continue
            case .other: leave("not a regular file"); continue
            case .file: break
            }
            if AttachmentNames.unusable(e.name) { leave("its name is not plain text"); continue }
            if e.bytes > limits.fileBytes { leave("over the per-file cap of \(size(limits.fileBytes))"); continue }
            if d.take.count >= limits.filesPerAttempt { leave("over the cap of \(limits.filesPerAttempt) files per attempt"); continue }
            if runBytesUsed + d.bytes + e.bytes > limits.runBytes {
                leave("over the run's cap of \(size(limits.runBytes)) (\(size(runBytesUsed + d.bytes)) already fetched)")
                continue
            }
            d.take.append(e)
            d.bytes += e.bytes
        }
        if listing.truncated {
            d.leftOut.append(AttachmentLeftOut(name: "…", reason: "the folder holds more entries than the host lists (\(AttachmentNames.listLimit))"))
        }
        return d
    }

    /// `1.5 MiB`, `20 MiB`, `512 bytes`: locale-free.
    public static func size(_ bytes: Int) -> String {
        if bytes < 1024 { return "\(bytes) bytes" }
        if bytes < 1 << 20 { return trimmed(Double(bytes) / 1024) + " KiB" }
        return trimmed(Double(bytes) / Double(1 << 20)) + " MiB"
    }

    private static func trimmed(_ v: Double) -> String {
        let tenths = Int((v * 10).rounded())
        return tenths % 10 == 0 ? "\(tenths / 10)" : "\(tenths / 10).\(tenths % 10)"
    }

    private static func hexBytes(_ s: Substring) -> [UInt8]? {
        let u = Array(s.utf8)
        guard u.count % 2 == 0 else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(u.count / 2)
        var i = 0
        while i < u.count {
            guard let hi = nibble(u[i]), let lo = nibble(u[i + 1]) else { return nil }
            out.append(hi << 4 | lo)
            i += 2
        }
        return out
    }

    private static func nibble(_ c: UInt8) -> UInt8? {
        switch c {
        case 0x30...0x39: return c - 0x30
        case 0x61...0x66: return c - 0x61 + 10
        case 0x41...0x46: return c - 0x41 + 10
        default: return nil
        }
    }
}
