import Foundation
import XCFleetModel

/// Reads the build cache script's `XCFLEET-BUILD …` lines (stdout) and `xcfleet: …` lines
/// (stderr) out of the build phase's output stream, timing the lock wait. Chunks arrive serially.
package final class BuildProtocolScanner: @unchecked Sendable {
    private let lock = NSLock()
    private var partial: [OutputStreamKind: [UInt8]] = [:]
    private var lockedAt: Date?
    private var sawWaiting = false
    private(set) var originLine: String?
    package private(set) var products: [String] = []
    private(set) var untrusted: String?
    /// SHA-256 of the test product the script used (computed on the host from the files, then).
    private(set) var digest: String?
    private(set) var evicted: [String] = []
    package private(set) var problems: [String] = []

    /// Called once when the script says `locked`: this job holds the build lock and compiles.
    package var onLocked: (@Sendable () -> Void)?

    package init() {}

    package func consume(_ chunk: OutputChunk) {
        lock.lock(); defer { lock.unlock() }
        var buffer = partial[chunk.stream, default: []] + chunk.bytes
        while let nl = buffer.firstIndex(of: 0x0A) {
            line(String(decoding: buffer[..<nl], as: UTF8.self), stream: chunk.stream)
            buffer.removeSubrange(...nl)
        }
        partial[chunk.stream] = buffer.count > 65_536 ? [] : buffer
    }

    private func line(_ text: String, stream: OutputStreamKind) {
        if stream == .stderr {
            if text.hasPrefix("xcfleet: ") { problems.append(String(text.dropFirst(9).prefix(500))) }
            return
        }
        guard text.hasPrefix("XCFLEET-BUILD ") else { return }
        let rest = text.dropFirst(14)
        let word = rest.prefix { $0 != " " }
        let value = rest.dropFirst(word.count).drop { $0 == " " }
        switch word {
        case "waiting": sawWaiting = true
        case "locked":
            if lockedAt == nil {
                lockedAt = Date()
                onLocked?()
            }
        case "origin": originLine = String(value)
        case "product": products.append(String(value))
        case "untrusted": untrusted = String(value.prefix(300))
        case "digest": digest = BuildCacheScript.isDigest(String(value)) ? String(value) : nil
        case "evicted": if let name = value.split(separator: " ").first { evicted.append(String(name)) }
        default: break
        }
    }

    /// Whether a builder on this host held the lock when this job asked for it.
    package var isWaiting: Bool { lock.lock(); defer { lock.unlock() }; return sawWaiting && lockedAt == nil }

    /// The record of a build that ended with status 0 (nil when the script said nothing usable).
    package func record(host: String, key: BuildKey, started: Date, ended: Date = Date()) -> BuildRecord? {
        lock.lock(); defer { lock.unlock() }
        guard let originLine else { return nil }
        let parts = originLine.split(separator: " ")
        guard let first = parts.first, let origin = BuildOrigin(rawValue: String(first)) else { return nil }
        let base = origin == .incremental && parts.count > 1 ? String(parts[1]) : nil
        let seconds = ended.timeIntervalSince(started)
        // Waiting is the time until the lock was ours, when someone else held it.
        let waited = sawWaiting ? lockedAt.map { $0.timeIntervalSince(started) } ?? seconds : 0
        return BuildRecord(host: host, key: key.hex, origin: origin, base: base, seconds: (seconds * 1000).rounded() / 1000,
                           waitedSeconds: (max(0, waited) * 1000).rounded() / 1000,
                           untrusted: untrusted, evicted: evicted.isEmpty ? nil : evicted, product: digest)
    }
}
