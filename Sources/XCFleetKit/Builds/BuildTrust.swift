import Foundation

/// What the orchestrator holds about the builds it made: per host, build key → SHA-256 of the test
/// product when it was built. A finished build on a host is reused only when its product, hashed
/// afresh on the host, equals this record (`BuildCacheScript.Input.trusted`); the host's own marker
/// is not trusted. Seeded from the history (`HistoryDatabase.trustedBuilds`, shared by a team on
/// PostgreSQL) and filled in as the run's builds finish. Thread-safe.
public final class BuildTrust: @unchecked Sendable {
    private let lock = NSLock()
    private var digests: [String: [String: String]] = [:]
    /// When each host's key was last recorded (a counter): the newest are the ones sent.
    private var recorded: [String: [String: Int]] = [:]
    private var counter = 0

    /// Records sent to a host with one build command (`digests(host:newest:including:)`): each is a
    /// 130-byte argument line, and the command shares one SSH exec request (about 32 KB) with the push
    /// check; a history of every build a host ever made would overflow it.
    public static let sentLimit = 48

    public init(_ records: [Entry] = []) {
        for r in records { record(host: r.host, key: r.key, product: r.product) }
    }

    /// One recorded build: the host it was made on, its key, its product's SHA-256.
    public struct Entry: Equatable, Sendable {
        public var host: String
        public var key: String
        public var product: String
        public init(host: String, key: String, product: String) {
            self.host = host
            self.key = key
            self.product = product
        }
    }

    /// Records a build xcfleet made (or a later record of the same key: the newest wins).
    public func record(host: String, key: String, product: String) {
        guard BuildCacheScript.isDigest(key), BuildCacheScript.isDigest(product) else { return }
        lock.lock(); defer { lock.unlock() }
        digests[host, default: [:]][key] = product
        counter += 1
        recorded[host, default: [:]][key] = counter
    }

    /// Records what a finished build phase reported, for the rest of the run: a build this attempt
    /// made, or a cached one it was allowed to use (checked against a record, or finished by another
    /// process while this attempt waited for the host's build lock). The history trusts only the
    /// builds themselves (`HistoryDatabase.trustedBuilds`).
    public func record(_ build: BuildRecord) {
        guard let product = build.product else { return }
        record(host: build.host, key: build.key, product: product)
    }

    /// Every key → product digest recorded for `host`.
    public func digests(host: String) -> [String: String] {
        lock.lock(); defer { lock.unlock() }
        return digests[host] ?? [:]
    }

    /// The `limit` newest records for `host`, and `key`'s own when there is one: what one build
    /// command carries. An older build is then not reused or built upon there (it is rebuilt).
    public func digests(host: String, newest limit: Int = BuildTrust.sentLimit, including key: String? = nil) -> [String: String] {
        lock.lock(); defer { lock.unlock() }
        let all = digests[host] ?? [:]
        let order = recorded[host] ?? [:]
        var out: [String: String] = [:]
        for k in all.keys.sorted(by: { (order[$0] ?? 0) > (order[$1] ?? 0) }).prefix(max(0, limit)) { out[k] = all[k] }
        if let key, let own = all[key] { out[key] = own }
        return out
    }
}
