import Foundation
import XCFleetBasics

/// Splits a suite's tests into shards of about equal expected time.
public enum Sharder {
    /// Longest-processing-time greedy: tests sorted by expected seconds (longest first, ties by name)
    /// each go to the shard with the least time so far (ties: the lower shard index).
    ///
    /// Tests without a duration count as the median of the known ones (1 s when none is known);
    /// non-finite or negative durations count as unknown. Duplicate names are kept once.
    /// Returns `min(shards, distinct tests)` non-empty shards (at least one shard when `shards < 1`),
    /// each sorted by name; no tests gives no shards. Deterministic for equal input.
    public static func split(tests: [String], durations: [String: Double], shards: Int) -> [[String]] {
        let unique = Array(Set(tests)).sorted()
        guard !unique.isEmpty else { return [] }
        let count = min(max(1, shards), unique.count)
        let seconds = expectedSeconds(of: unique, durations: durations)
        let order = unique.indices.sorted { a, b in
            seconds[a] != seconds[b] ? seconds[a] > seconds[b] : unique[a] < unique[b]
        }
        var buckets = Array(repeating: [String](), count: count)
        var loads = Array(repeating: 0.0, count: count)
        for t in order {
            var target = 0
            for b in 1..<count where loads[b] < loads[target] { target = b }
            buckets[target].append(unique[t])
            loads[target] += seconds[t]
        }
        return buckets.map { $0.sorted() }
    }

    /// Expected seconds of each shard, computed the way `split` counts them.
    public static func loads(of shards: [[String]], durations: [String: Double]) -> [Double] {
        let all = Array(Set(shards.flatMap { $0 })).sorted()
        let seconds = expectedSeconds(of: all, durations: durations)
        let byName = Dictionary(uniqueKeysWithValues: zip(all, seconds))
        return shards.map { $0.reduce(0) { $0 + (byName[$1] ?? 0) } }
    }

    private static func expectedSeconds(of tests: [String], durations: [String: Double]) -> [Double] {
        func known(_ name: String) -> Double? {
            guard let s = durations[name], s.isFinite, s >= 0 else { return nil }
            return s
        }
        let fallback = Statistics.median(tests.compactMap(known)) ?? 1
        return tests.map { known($0) ?? fallback }
    }
}
