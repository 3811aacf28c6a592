import Foundation
import XCFleetCore

/// The test listings the run's attempts printed, by build key: a build verified for a key is the
/// same bundle on every host, so it lists the same tests. A later shard or a rerun of the key
/// chooses its part from the listing before its push, and runs it in the push's exec behind the
/// fresh listing (`ChainedTest.Selection`), as a job that runs every test does. Kept parsed: each
/// later attempt only chooses its part.
final class KnownListings: @unchecked Sendable {
    /// What a listing printed: the listed tests, and Swift Testing's display names from its records.
    struct Parsed: Sendable {
        var listed: [DiscoveredTest]
        var displayNames: [String: String]

        /// The plain lists, then, after `PackageTestCommands.recordsMarker`, Swift Testing's records of its tests.
        init(_ text: String) {
            let marker = text.range(of: "\n" + PackageTestCommands.recordsMarker + "\n")
            listed = SwiftTestList.parse(marker.map { String(text[..<$0.lowerBound]) } ?? text)
            displayNames = marker.map { SwiftTestingRecords.displayNames(text[$0.upperBound...].split(separator: "\n")) } ?? [:]
        }
    }

    private let lock = NSLock()
    private var byKey: [String: Parsed] = [:]

    init() {}

    /// A listing that exited 0 for the key, if any.
    func listing(key: String) -> Parsed? {
        lock.lock()
        defer { lock.unlock() }
        return byKey[key]
    }

    func record(_ listing: Parsed, key: String) {
        lock.lock()
        byKey[key] = listing
        lock.unlock()
    }
}
