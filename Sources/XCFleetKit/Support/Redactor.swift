import Foundation

/// Replaces secret values (fleet environment marked `secret`, passphrases) with `[redacted]` in
/// streamed output. Works on whole lines so that a secret split across chunks is still caught.
public struct Redactor: Sendable {
    private let secrets: [[UInt8]]
    private var pending: [UInt8] = []
    private static let mask = Array("[redacted]".utf8)

    public init(secrets: [String]) {
        self.secrets = Array(Set(secrets.filter { $0.count >= 3 })).sorted { $0.count > $1.count }.map { Array($0.utf8) }
    }

    public var isEmpty: Bool { secrets.isEmpty }

    /// Redacts a whole string.
    public func redact(_ text: String) -> String {
        var out = text
        for s in secrets { out = out.replacingOccurrences(of: String(decoding: s, as: UTF8.self), with: "[redacted]") }
        return out
    }

    /// Feeds a chunk; returns the bytes that are safe to pass on (complete lines, redacted).
    public mutating func consume(_ bytes: [UInt8]) -> [UInt8] {
        if secrets.isEmpty { return bytes }
        pending += bytes
        guard let lastNewline = pending.lastIndex(of: 0x0A) else {
            // Bound the buffer for output without newlines; a secret straddling this cut may escape
            // redaction only inside a line longer than 1 MiB.
            if pending.count > 1 << 20 { return flush() }
            return []
        }
        let lines = Array(pending[...lastNewline])
        pending = Array(pending[(lastNewline + 1)...])
        return redactBytes(lines)
    }

    public mutating func flush() -> [UInt8] {
        let rest = pending
        pending = []
        return redactBytes(rest)
    }

    private func redactBytes(_ bytes: [UInt8]) -> [UInt8] {
        var data = bytes
        for s in secrets where !s.isEmpty {
            var out: [UInt8] = []
            out.reserveCapacity(data.count)
            var i = 0
            while i < data.count {
                if data[i] == s[0], i + s.count <= data.count, data[i..<(i + s.count)].elementsEqual(s) {
                    out += Redactor.mask
                    i += s.count
                } else {
                    out.append(data[i])
                    i += 1
                }
            }
            data = out
        }
        return data
    }
}
