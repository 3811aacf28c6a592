import Foundation
import XCFleetModel

/// Which of a suite's discovered tests one attempt runs. The same pure function runs in every
/// shard's attempt over the same list, so the parts are disjoint and together cover the list.
public enum PackageSelection {
    /// What one attempt runs: the tests `listed` (the built products' `swift test list`), after the
    /// suite's `filter` and `skip`, split into `shardCount` parts by `Sharder` (earlier `durations`
    /// longest first, else equal counts) and this attempt's part taken; a rerun after test failures
    /// (`rerun`) runs only those tests of it. `listFailure`: why the listing could not be read.
    public static func select(listed: [DiscoveredTest], listFailure: String? = nil, package: PackageSuite?, shard: Int, shardCount: Int,
                              durations: [String: Double] = [:], rerun: [String]? = nil, displayNames: [String: String] = [:]) -> TestsDiscovered {
        var found = select(listed: listed, listFailure: listFailure, filter: package?.filter, skip: package?.skip, shard: shard,
                           shardCount: shardCount, durations: durations, rerun: rerun,
                           noTests: "the built products list no tests (swift test list printed none); a suite needs at least one XCTest or Swift Testing test")
        let listedNames = Set(found.tests)
        let shown = displayNames.filter { listedNames.contains($0.key) && $0.value != TestsDiscovered.functionName(of: $0.key) }
        found.displayNames = shown.isEmpty ? nil : shown
        return found
    }

    /// The same choice with the suite's `filter` and `skip` given directly (Xcode project suites);
    /// `noTests` says why an empty list is red.
    public static func select(listed: [DiscoveredTest], listFailure: String? = nil, filter: [String]?, skip: [String]?, shard: Int, shardCount: Int,
                              durations: [String: Double] = [:], rerun: [String]? = nil, noTests: String) -> TestsDiscovered {
        let all = listed.map { "\($0.target).\($0.name)" }
        if let listFailure { return TestsDiscovered(tests: all, selected: [], problem: listFailure) }
        if all.isEmpty {
            return TestsDiscovered(tests: [], selected: [], problem: noTests)
        }
        let chosen = TestSelection.apply(filter: filter, skip: skip, to: all)
        if chosen.isEmpty {
            return TestsDiscovered(tests: all, selected: [], problem: "filter and skip select none of the \(all.count) discovered tests (for example \(all[0]))")
        }
        var note: String?
        var rerunning: Bool?
        var part = chosen
        if shardCount > 1 {
            let byName = Dictionary(chosen.map { ($0, seconds(of: $0, in: durations)) }, uniquingKeysWith: { a, _ in a })
            let known = byName.compactMapValues { $0 }
            let parts = Sharder.split(tests: chosen, durations: known, shards: shardCount)
            part = shard < parts.count ? parts[shard] : []
            note = "shard \(shard + 1) of \(shardCount): \(part.count) of \(chosen.count) tests" + (known.isEmpty ? "" : ", split by earlier durations")
        }
        if let rerun {
            let wanted = Set(rerun)
            part = part.filter(wanted.contains)
            note = "rerun of the \(part.count) test\(part.count == 1 ? "" : "s") that did not pass"
            rerunning = true
        }
        return TestsDiscovered(tests: all, selected: part, note: note, rerun: rerunning)
    }

    /// The tests of `discovery.selected` that `attempt` did not see passing (what a rerun after
    /// test failures runs again).
    public static func notPassed(_ discovery: TestsDiscovered, attempt: AttemptReport) -> [String] {
        let passed = Set(attempt.tests.filter { $0.status == .passed }.map { Verdict.key($0.id.className, $0.id.name) })
        let skipped = Set(attempt.tests.filter { $0.status == .skipped }.map { Verdict.key($0.id.className, $0.id.name) })
        let keys = Verdict.discoveredRequirementKeys(discovery)
        return discovery.selected.filter { name in
            let result = discovery.resultName(of: name)
            let k = keys[result] ?? resultKey(result)
            return !passed.contains(k) && !skipped.contains(k)
        }
    }

    /// `Class/test` (XCTest, module dropped) or `/test()` (Swift Testing): how results key a test by its result name.
    static func resultKey(_ name: String) -> String {
        let parts = name.split(separator: "/", maxSplits: 1).map(String.init)
        guard parts.count == 2 else { return Verdict.key("", name) }
        return Verdict.key(parts[0].split(separator: ".").last.map(String.init) ?? parts[0], parts[1])
    }

    /// An earlier duration under any of the names results have used for the test.
    private static func seconds(of test: String, in durations: [String: Double]) -> Double? {
        guard !durations.isEmpty else { return nil }
        let key = resultKey(TestsDiscovered.functionName(of: test))
        return durations[test] ?? durations[key] ?? durations[String(key.drop { $0 == "/" })]
    }
}
