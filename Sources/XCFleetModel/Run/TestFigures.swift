import Foundation

/// The one category every test of a run falls in (docs/reporting.md, "The figures"). Each test of a
/// job is counted once, from the job's decisive attempt and its manifest; every report prints
/// these and nothing derived on the side.
public enum TestCategory: String, Codable, Sendable, CaseIterable {
    /// Passed in the decisive attempt, with no failed execution before it.
    case passed
    /// Failed in the decisive attempt (an assertion, an issue, a thrown error) and finished.
    case failed
    /// Was running when the test process crashed or ended (signal, fatal error, `exit()`).
    case crashed
    /// Was running when the attempt hit its deadline.
    case timedOut = "timed out"
    /// Expected (the manifest lists it) and never reported by the decisive attempt.
    case notRun = "not run"
    /// Skipped by the test itself (`XCTSkip`, `.disabled`).
    case skipped
    /// Failed, finished, and is in the run's quarantine: it does not make its gate red.
    case quarantined = "quarantined failure"
    /// Passed at last after a failed execution of the same job (an earlier attempt or within the attempt).
    case flaky

    /// The categories that make a gate red.
    public var countsAgainstGate: Bool {
        switch self {
        case .failed, .crashed, .timedOut, .notRun: return true
        case .passed, .skipped, .quarantined, .flaky: return false
        }
    }
}

/// How many tests fell in each `TestCategory`: for a job, a suite and the run (`Totals.tests`).
public struct TestFigures: Equatable, Codable, Sendable {
    public var passed = 0
    public var failed = 0
    public var crashed = 0
    public var timedOut = 0
    public var notRun = 0
    public var skipped = 0
    public var quarantined = 0
    public var flaky = 0

    public init() {}

    public subscript(category: TestCategory) -> Int {
        get {
            switch category {
            case .passed: return passed
            case .failed: return failed
            case .crashed: return crashed
            case .timedOut: return timedOut
            case .notRun: return notRun
            case .skipped: return skipped
            case .quarantined: return quarantined
            case .flaky: return flaky
            }
        }
        set {
            switch category {
            case .passed: passed = newValue
            case .failed: failed = newValue
            case .crashed: crashed = newValue
            case .timedOut: timedOut = newValue
            case .notRun: notRun = newValue
            case .skipped: skipped = newValue
            case .quarantined: quarantined = newValue
            case .flaky: flaky = newValue
            }
        }
    }

    /// Every test, each in one category.
    public var total: Int { TestCategory.allCases.reduce(0) { $0 + self[$1] } }
    /// Tests that make a gate red: failed, crashed, timed out, not run.
    public var red: Int { failed + crashed + timedOut + notRun }

    public static func + (a: TestFigures, b: TestFigures) -> TestFigures {
        var out = a
        for c in TestCategory.allCases { out[c] += b[c] }
        return out
    }

    public static func += (a: inout TestFigures, b: TestFigures) { a = a + b }

    /// `7 passed, 1 crashed, 27 not run of 36`: the non-zero categories in a fixed order, then the
    /// total; `0 tests` when there are none. The one wording every terminal line and table uses.
    public var text: String {
        let parts = TestCategory.allCases.compactMap { c -> String? in self[c] > 0 ? "\(self[c]) \(c.rawValue)" : nil }
        if parts.isEmpty { return "0 tests" }
        return parts.joined(separator: ", ") + " of \(total)"
    }
}
