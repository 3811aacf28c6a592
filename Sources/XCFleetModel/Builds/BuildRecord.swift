import Foundation

/// Where an attempt's build came from.
public enum BuildOrigin: String, Codable, Sendable {
    /// A finished build with the same key was on the host (no compiler ran).
    case cached
    /// Built from nothing.
    case cold
    /// Built from a copy of the nearest finished build (`BuildRecord.base`), recompiling what changed.
    case incremental
}

/// One attempt's build, as recorded in events.jsonl (`RunEvent.Body.build`) and report.json.
public struct BuildRecord: Equatable, Codable, Sendable {
    public var host: String
    /// `BuildKey.hex`.
    public var key: String
    public var origin: BuildOrigin
    /// The key an incremental build started from.
    public var base: String?
    /// Wall time of the build phase's command, lock wait included.
    public var seconds: Double
    /// Of `seconds`, the time spent waiting for another job's build on this host.
    public var waitedSeconds: Double
    /// Why a build found on the host was not trusted and rebuilt (tampered, half-written).
    public var untrusted: String?
    /// Cache entries removed to respect the host's bounds (`builds/<key>`, `.cache/<hash>`).
    public var evicted: [String]?
    /// SHA-256 of the test product (`BuildCacheScript`): for a build made here, what xcfleet then
    /// trusts a later reuse of this key on this host to be (`BuildTrust`, the history).
    public var product: String?

    public init(host: String, key: String, origin: BuildOrigin, base: String? = nil, seconds: Double, waitedSeconds: Double,
                untrusted: String? = nil, evicted: [String]? = nil, product: String? = nil) {
        self.host = host
        self.key = key
        self.origin = origin
        self.base = base
        self.seconds = seconds
        self.waitedSeconds = waitedSeconds
        self.untrusted = untrusted
        self.evicted = evicted
        self.product = product
    }

    /// `cached`, `cold`, `incremental from 3fa2…`.
    public var originText: String {
        switch origin {
        case .incremental: return "incremental from \(base.map { String($0.prefix(12)) } ?? "?")"
        case .cached, .cold: return origin.rawValue
        }
    }

    /// `cold 12.4 s`, `cached 0.1 s (waited 11.9 s)`.
    public var summary: String {
        var s = "build \(originText) \(String(format: "%.1f", seconds)) s"
        if waitedSeconds >= 0.05 { s += " (waited \(String(format: "%.1f", waitedSeconds)) s)" }
        return s
    }
}
