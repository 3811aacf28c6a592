import Foundation

/// The test listings the run's attempts printed, by build key: a build verified for a key is the
/// same bundle on every host, so it lists the same tests. A later shard or a rerun of the key
/// chooses its part from the listing before its push, and runs it in the push's exec behind the
/// fresh listing (`ChainedTest.Selection`), as a job that runs every test does.
final class KnownListings: @unchecked Sendable {
    private let lock = NSLock()
    private var byKey: [String: String] = [:]

    init() {}

    /// What a listing that exited 0 printed for the key (the text `discovered` reads), if any.
    func listing(key: String) -> String? {
        lock.lock()
        defer { lock.unlock() }
        return byKey[key]
    }

    func record(_ text: String, key: String) {
        lock.lock()
        byKey[key] = text
        lock.unlock()
    }
}
