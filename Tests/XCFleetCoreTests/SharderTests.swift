import XCTest
@testable import XCFleetBasics
@testable import XCFleetModel
@testable import XCFleetCore
import XCFleetTestSupport

final class SharderTests: XCTestCase {
    func testLongestFirstGreedyGivesEqualTimeBuckets() {
        let durations = ["S/a": 8.0, "S/b": 7, "S/c": 6, "S/d": 5, "S/e": 4, "S/f": 3, "S/g": 2, "S/h": 1]
        let shards = Sharder.split(tests: Array(durations.keys), durations: durations, shards: 3)
        XCTAssertEqual(shards.count, 3)
        XCTAssertEqual(Set(shards.flatMap { $0 }), Set(durations.keys), "every test in exactly one shard")
        XCTAssertEqual(shards.flatMap { $0 }.count, durations.count)
        let loads = Sharder.loads(of: shards, durations: durations)
        XCTAssertEqual(loads.reduce(0, +), 36)
        XCTAssertEqual(loads, [13, 12, 11])
        // LPT trace (ties: lower shard): a→0, b→1, c→2, d→2, e→1, f→0, g→0, h→1.
        XCTAssertEqual(shards, [["S/a", "S/f", "S/g"], ["S/b", "S/e", "S/h"], ["S/c", "S/d"]])
    }

    func testBalanceOnManyRandomDurations() {
        var rng = SeededGenerator(seed: 42)
        for _ in 0..<50 {
            let count = Int.random(in: 20...200, using: &rng)
            var durations: [String: Double] = [:]
            for i in 0..<count { durations["S/t\(i)"] = Double.random(in: 0.01...10, using: &rng) }
            let shardCount = Int.random(in: 2...8, using: &rng)
            let shards = Sharder.split(tests: Array(durations.keys), durations: durations, shards: shardCount)
            let loads = Sharder.loads(of: shards, durations: durations)
            let longest = durations.values.max() ?? 0
            let ideal = durations.values.reduce(0, +) / Double(shardCount)
            // LPT bound: no shard exceeds the ideal by more than the longest test.
            XCTAssertLessThanOrEqual(loads.max() ?? 0, ideal + longest + 1e-9)
            XCTAssertLessThanOrEqual((loads.max() ?? 0) - (loads.min() ?? 0), longest + 1e-9)
        }
    }

    func testDeterministicWhateverTheInputOrder() {
        let tests = (0..<30).map { "S/t\($0)" }
        let durations = Dictionary(uniqueKeysWithValues: tests.map { ($0, 5.0) })
        let a = Sharder.split(tests: tests, durations: durations, shards: 4)
        let b = Sharder.split(tests: tests.reversed(), durations: durations, shards: 4)
        XCTAssertEqual(a, b)
        XCTAssertEqual(a.map(\.count), [8, 8, 7, 7])
    }

    func testUnknownDurationsCountAsTheMedianAndEdgeCases() {
        let durations = ["S/known1": 10.0, "S/known2": 10, "S/bad": -3]
        let shards = Sharder.split(tests: ["S/known1", "S/known2", "S/new", "S/bad"], durations: durations, shards: 2)
        XCTAssertEqual(Sharder.loads(of: shards, durations: durations).count, 2)
        XCTAssertEqual(shards.map(\.count), [2, 2], "unknown and invalid durations weigh the median (10)")

        XCTAssertEqual(Sharder.split(tests: [], durations: [:], shards: 3), [])
        XCTAssertEqual(Sharder.split(tests: ["S/a", "S/b"], durations: [:], shards: 5), [["S/a"], ["S/b"]], "no empty shards")
        XCTAssertEqual(Sharder.split(tests: ["S/a", "S/a", "S/b"], durations: [:], shards: 0), [["S/a", "S/b"]], "shards < 1 is one shard; duplicates once")
    }
}
