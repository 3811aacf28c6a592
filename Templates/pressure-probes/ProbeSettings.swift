import Foundation

/// C8/C9: probe parameters from the plan, clamped so that the total allocation stays bounded
/// (never allocate without bound to force eviction).
struct ProbeSettings {
    /// Hard ceiling for the bytes one probe allocates, whatever the plan says.
    static let hardMaxTotalBytes = 256 * 1024 * 1024

    let costLimitBytes: Int
    let countLimit: Int
    let objectSizes: [Int]
    let maxTotalBytes: Int
    let requestedObjectsPerSize: Int?
    let repetition: Int

    /// The repetition comes from the test process's environment (`XCFLEET_REPETITION`, set by xcfleet
    /// for each run; on Apple hosts xcodebuild forwards it as `TEST_RUNNER_XCFLEET_REPETITION`), so
    /// every repetition runs the same build. Without it: `ints["repetition"]`, else 0.
    init(strings: [String: String] = XCFleetSettings.strings, ints: [String: Int] = XCFleetSettings.ints,
         environment: [String: String] = ProcessInfo.processInfo.environment) {
        costLimitBytes = min(max(ints["costLimitBytes"] ?? 4 * 1024 * 1024, 1024), 512 * 1024 * 1024)
        countLimit = max(ints["countLimit"] ?? 0, 0)
        let parsed = (strings["objectSizes"] ?? "1024,16384,262144")
            .split(separator: ",")
            .compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }
            .filter { $0 > 0 }
            .map { min($0, 16 * 1024 * 1024) }
        objectSizes = parsed.isEmpty ? [1024, 16384, 262144] : Array(parsed.prefix(16))
        maxTotalBytes = min(max(ints["maxTotalBytes"] ?? 64 * 1024 * 1024, 1024), ProbeSettings.hardMaxTotalBytes)
        requestedObjectsPerSize = ints["objectsPerSize"].map { max($0, 1) }
        repetition = environment["XCFLEET_REPETITION"].flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }.map { max($0, 0) }
            ?? ints["repetition"] ?? 0
    }

    /// Objects written for one size: by default enough for twice the cost limit, within the budget.
    func objectCount(forSize size: Int) -> Int {
        let wanted = requestedObjectsPerSize ?? max(1, (2 * costLimitBytes) / size)
        let budget = max(1, (maxTotalBytes / max(objectSizes.count, 1)) / size)
        return min(wanted, budget, 100_000)
    }
}
