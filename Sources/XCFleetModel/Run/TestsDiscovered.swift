import Foundation

/// What an attempt found in what was built (the `discover` step): the list of
/// tests, and the part of it this attempt runs. For a job with no planned manifest it is the
/// manifest: green means every selected test that is not disabled was seen passing.
public struct TestsDiscovered: Equatable, Codable, Sendable {
    /// Every test the built products list, as `swift test list` names them: `Target.Class/test`,
    /// `Target.Suite/test()`, `Target.test()`.
    public var tests: [String]
    /// What this attempt runs: `tests` after the suite's `filter` and `skip`, then its shard's part,
    /// or, in a rerun after test failures, the tests that failed.
    public var selected: [String]
    /// Why there is nothing to run (the listing failed, the list is empty, the filter selects
    /// nothing): the attempt is red with this reason.
    public var problem: String?
    /// How `selected` was chosen ("shard 2 of 3", "rerun of the 1 test that failed"), for reports.
    public var note: String?
    /// A rerun after test failures: `selected` is what did not pass in the attempt before (nil: not a rerun).
    public var rerun: Bool?
    /// Swift Testing tests whose display name differs from their function's: results name them by it
    /// (`@Test("Adds two values") func add()` runs as "Adds two values"). Nil when there are none.
    public var displayNames: [String: String]?

    public init(tests: [String], selected: [String], problem: String? = nil, note: String? = nil, rerun: Bool? = nil) {
        self.tests = tests
        self.selected = selected
        self.problem = problem
        self.note = note
        self.rerun = rerun
    }

    /// The name a test run's results give the discovered test `name`: XCTest `Target.Class/test` as
    /// it is; Swift Testing by its display name, else its function alone (`test()`, `fill(capacity:)`),
    /// because its console output names no suite.
    public func resultName(of name: String) -> String {
        if let display = displayNames?[name] { return display }
        return TestsDiscovered.functionName(of: name)
    }

    /// `Target.Suite/test()` and `Target.test()` → `test()` (Swift Testing); XCTest names unchanged.
    public static func functionName(of name: String) -> String {
        guard name.hasSuffix(")"), let open = name.firstIndex(of: "(") else { return name }
        let path = name[..<open]
        let start = path.lastIndex(where: { $0 == "/" || $0 == "." }).map { name.index(after: $0) } ?? name.startIndex
        return String(name[start...])
    }

    /// True when nothing is missing: the list was read, and this attempt's part of it is empty only
    /// because its shard got no tests.
    public var emptyShard: Bool { problem == nil && selected.isEmpty && !tests.isEmpty }
}
