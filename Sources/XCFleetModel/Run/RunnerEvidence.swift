import Foundation

/// What the test runner itself said about one attempt, kept so the verdict can cross-check it
/// against the results xcfleet parsed (docs/verdict.md). Collected by the `Collator`, judged by
/// `Verdict.evidenceProblems`.
public struct RunnerEvidence: Equatable, Codable, Sendable {
    /// XCTest's own total: the sum of the `Executed …` lines that close `All tests` /
    /// `Selected tests` (one per test process), else the largest `Executed …` line seen.
    public var xctest: RunnerCount?
    /// Swift Testing's own total: the sum of the `Test run with N tests …` lines.
    public var swiftTesting: RunnerCount?
    /// What xcfleet parsed, per framework, counted once per execution.
    public var sawXCTest: ObservedCount
    public var sawSwiftTesting: ObservedCount
    /// Tests failed without an end line (a crash while they ran, or a lost end line): the runner's
    /// totals may or may not count them.
    public var failedWithoutEnd: Int
    /// xcodebuild's failure statements (`** TEST FAILED **`, `Testing failed`, …), in order, once each.
    public var failureStatements: [String]
    /// `** TEST SUCCEEDED **` was printed.
    public var succeeded: Bool
    /// Tests named in the `Failing tests:` block, when there was one.
    public var failingTests: [TestIdentifier]?
    /// `line N: text` of each line that looked like a result and could not be read.
    public var unreadable: [String]
    /// Tests that printed a start and never an end (and no crash explains it).
    public var unfinished: [TestIdentifier]
    /// Differences between the streamed output and the result bundle.
    public var disagreements: [String]
    /// Tests that failed and then passed within this attempt (`Class/test`).
    public var flakyInAttempt: [String]

    public init() {
        sawXCTest = ObservedCount()
        sawSwiftTesting = ObservedCount()
        failedWithoutEnd = 0
        failureStatements = []
        succeeded = false
        unreadable = []
        unfinished = []
        disagreements = []
        flakyInAttempt = []
    }

    /// Nothing was recorded (the attempt keeps `evidence == nil` then).
    package var isEmpty: Bool { self == RunnerEvidence() }
}

/// A runner's own count of what it ran.
public struct RunnerCount: Equatable, Codable, Sendable {
    /// Tests executed (XCTest: including skipped) or, for Swift Testing, tests in the run.
    public var tests: Int
    /// XCTest failures (assertion failures, not failed tests); Swift Testing issues.
    public var failures: Int
    public var skipped: Int
    /// The runner called the run failed (Swift Testing `… failed after …`, XCTest failures > 0).
    public var failed: Bool
    /// True when this total closes a whole test process (`All tests` / `Selected tests` /
    /// `Test run with …`); false when it is only the largest per-suite line (a trimmed log).
    public var overall: Bool

    public init(tests: Int, failures: Int, skipped: Int = 0, failed: Bool, overall: Bool) {
        self.tests = tests
        self.failures = failures
        self.skipped = skipped
        self.failed = failed
        self.overall = overall
    }
}

/// Executions xcfleet parsed for one framework.
public struct ObservedCount: Equatable, Codable, Sendable {
    public var passed = 0
    public var failed = 0
    public var skipped = 0
    /// Distinct test names (Swift Testing counts tests, not executions, in its total).
    public var distinct = 0

    public init() {}

    public var executions: Int { passed + failed + skipped }
}
