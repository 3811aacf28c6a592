import Foundation

/// A test's identity as printed by a runner: `suite` is the class or suite
/// (`Module.Class` on Apple, `Module.Class` or `Class` on Linux, `""` when a
/// Swift Testing line names no suite), `name` the test function.
public struct TestIdentifier: Hashable, Codable, Sendable, Comparable, CustomStringConvertible {
    public var suite: String
    public var name: String

    public init(suite: String, name: String) {
        self.suite = suite
        self.name = name
    }

    /// `Suite/name`, the form `swift test list` prints and manifests use.
    public var description: String { suite.isEmpty ? name : "\(suite)/\(name)" }

    /// `Class/name` without the module, or just the name of a Swift Testing test outside a suite
    /// (`overwrite()`, `Loader miss path`): the short form reasons and lists print.
    public var shortDescription: String { className.isEmpty ? name : "\(className)/\(name)" }

    /// The class part without a module prefix (`Module.Class` → `Class`).
    public var className: String {
        guard let dot = suite.lastIndex(of: ".") else { return suite }
        return String(suite[suite.index(after: dot)...])
    }

    /// Contract ids (`C1`, `K11`, …) carried in the test name, e.g. `testC4_overwrite`.
    public var contractIDs: [String] { ContractID.find(in: name) }

    public static func < (lhs: TestIdentifier, rhs: TestIdentifier) -> Bool {
        (lhs.suite, lhs.name) < (rhs.suite, rhs.name)
    }
}

extension TestIdentifier {
    /// The synthesized encoding with its keys in sorted order (as every encoder of xcfleet writes them).
    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(name, forKey: .name)
        try c.encode(suite, forKey: .suite)
    }
}

public enum TestStatus: String, Codable, Sendable, CaseIterable {
    case passed, failed, skipped
}

/// Which framework printed a line.
public enum TestFramework: String, Codable, Sendable {
    case xctest, swiftTesting
}

/// Something a test runner's output said, typed. Produced by `OutputParser`.
public enum TestEvent: Equatable, Codable, Sendable {
    /// `Test Suite 'X' started`.
    case suiteStarted(name: String)
    /// `Test Suite 'X' passed|failed`.
    case suiteFinished(name: String, passed: Bool)
    /// `Test Case '…' started` / Swift Testing `◇ Test x() started.`
    case testStarted(TestIdentifier, framework: TestFramework)
    /// A test's end. `clone` names the parallel-testing clone (`Clone 1 of …`) when printed.
    case testFinished(TestIdentifier, status: TestStatus, seconds: Double?, framework: TestFramework, clone: String?)
    /// An assertion failure or recorded issue, with source location where printed.
    case testFailure(TestIdentifier?, file: String?, line: Int?, message: String)
    /// A skip message (`…: Test skipped - reason`).
    case testSkipped(TestIdentifier?, reason: String?)
    /// XCTest `Executed N tests, with S tests skipped and F failures (U unexpected) in T (W) seconds`.
    case xctestSummary(executed: Int, skipped: Int, failures: Int, unexpected: Int, seconds: Double?)
    /// Swift Testing `Test run with N tests [in M suites] passed|failed after … with K issues`.
    case swiftTestingSummary(tests: Int, suites: Int?, passed: Bool, issues: Int?, seconds: Double?)
    /// The test process died or restarted: `Fatal error:`, `exited with unexpected signal code`,
    /// `Restarting after unexpected exit, crash, or test timeout`, `Could not cast value`, …
    case crash(message: String)
    /// A compiler or build error (`file:line:col: error: …`, `error: …`).
    case buildError(file: String?, line: Int?, message: String)
    /// A probe metric line: `XCFLEET-METRIC name=value unit=U key=value …`.
    case metric(Metric)
    /// xcodebuild's own word on the run: `** TEST SUCCEEDED **` (`failed: false`), or one of its
    /// failure statements (`** TEST FAILED **`, `Testing failed:`, `… encountered an error (…)`,
    /// `Failed to install or launch the test runner …`), which make the attempt red on their own.
    case runnerStatement(failed: Bool, message: String)
    /// A test named in xcodebuild's `Failing tests:` block.
    case failingTestListed(TestIdentifier)
    /// A line that looks like a test result but could not be read (1-based line number in the
    /// stream). Keeps a gate from green: a result was printed that xcfleet could not count.
    case unreadableResult(line: Int, text: String)
    /// The streamed output and the result bundle disagree about a test (the reconciler's words).
    case witnessDisagreement(String)
    /// A frame of a crash backtrace that names a source location (the Swift backtracer's
    /// `N 0x… symbol + K in image at /path/File.swift:35:9`).
    case backtraceFrame(index: Int, symbol: String, file: String, line: Int)
    /// Swift Testing `⎙ Attached 'NAME' to TEST.`: the test recorded an attachment (the file of that
    /// name in the attachments folder is attributed to it; docs/attachments.md).
    case attachmentRecorded(TestIdentifier?, name: String)
}

/// One probe measurement. Probes print them; they never decide a verdict.
public struct Metric: Equatable, Codable, Sendable {
    public var name: String
    public var value: Double
    public var unit: String
    /// Extra `key=value` pairs from the line (e.g. `size=4096`, `rep=2`), sorted by key when encoded.
    public var labels: [String: String]

    public init(name: String, value: Double, unit: String, labels: [String: String] = [:]) {
        self.name = name
        self.value = value
        self.unit = unit
        self.labels = labels
    }
}

/// Contract requirement ids as named in CONTRACT.md (`C1`…`C13`, `K1`…`K11`).
public enum ContractID {
    /// Finds ids in a test name: `testC4_overwriteReturnsSecond` → `["C4"]`,
    /// `test_C1_C2_x` → `["C1","C2"]`. An id is `C` or `K` followed by digits, preceded by a
    /// non-letter (or `test`) and not followed by another digit.
    public static func find(in name: String) -> [String] {
        // Most names hold no `C` or `K` followed by a digit: no scalars array, no letter table.
        var candidate = false
        var previous: UInt8 = 0
        for b in name.utf8 {
            if (previous == UInt8(ascii: "C") || previous == UInt8(ascii: "K")) && b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9") { candidate = true; break }
            previous = b
        }
        guard candidate else { return [] }
        if name.utf8.allSatisfy({ $0 < 0x80 }) { return findASCII(Array(name.utf8)) }
        let scalars = Array(name.unicodeScalars)
        var ids: [String] = []
        var i = 0
        while i < scalars.count {
            let c = scalars[i]
            if c == "C" || c == "K" {
                let prevOK = i == 0 || !CharacterSet.letters.contains(scalars[i - 1])
                    || (i >= 4 && String(String.UnicodeScalarView(scalars[(i - 4)..<i])) == "test")
                var j = i + 1
                while j < scalars.count, ("0"..."9").contains(scalars[j]) { j += 1 }
                if prevOK, j > i + 1, j - i <= 3 {
                    let id = String(String.UnicodeScalarView(scalars[i..<j]))
                    if !ids.contains(id) { ids.append(id) }
                }
                i = max(j, i + 1)
            } else {
                i += 1
            }
        }
        return ids
    }

    /// `find` for an ASCII name, on its bytes (the letters of ASCII are `A`–`Z` and `a`–`z`).
    private static func findASCII(_ b: [UInt8]) -> [String] {
        func isLetter(_ c: UInt8) -> Bool { (c | 0x20) >= UInt8(ascii: "a") && (c | 0x20) <= UInt8(ascii: "z") }
        func isDigit(_ c: UInt8) -> Bool { c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9") }
        var ids: [String] = []
        var i = 0
        while i < b.count {
            let c = b[i]
            if c == UInt8(ascii: "C") || c == UInt8(ascii: "K") {
                let prevOK = i == 0 || !isLetter(b[i - 1]) || (i >= 4 && b[i - 4] == UInt8(ascii: "t") && b[i - 3] == UInt8(ascii: "e")
                                                               && b[i - 2] == UInt8(ascii: "s") && b[i - 1] == UInt8(ascii: "t"))
                var j = i + 1
                while j < b.count, isDigit(b[j]) { j += 1 }
                if prevOK, j > i + 1, j - i <= 3 {
                    let id = String(decoding: b[i..<j], as: UTF8.self)
                    if !ids.contains(id) { ids.append(id) }
                }
                i = max(j, i + 1)
            } else {
                i += 1
            }
        }
        return ids
    }
}
