import Foundation

/// Per-host bounds of the build and push caches (fleet key `cache`).
public struct CacheLimits: Equatable, Codable, Sendable {
    /// Total size of finished builds plus push-cache entries above which the least recently
    /// used entries are removed.
    public var maxBytes: Int64
    /// Free disk under the work root below which entries are removed too.
    public var minFreeBytes: Int64

    public init(maxBytes: Int64 = CacheLimits.defaultMaxBytes, minFreeBytes: Int64 = CacheLimits.defaultMinFreeBytes) {
        self.maxBytes = maxBytes
        self.minFreeBytes = minFreeBytes
    }

    public static let defaultMaxBytes: Int64 = 20 << 30
    public static let defaultMinFreeBytes: Int64 = 4 << 30
}
