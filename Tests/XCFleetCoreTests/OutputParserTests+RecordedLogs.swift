import Foundation
import XCTest
@testable import XCFleetBasics
@testable import XCFleetModel
@testable import XCFleetCore
import XCFleetTestSupport

/// The parser over the recorded logs in `../shared/fixtures/logs`. Every expected number here
/// was counted from the files independently of the parser (grep/awk over the raw lines, e.g.
/// `grep -c -E "^Test [Cc]ase '.*' passed( |\.|$)"` for XCTest, and for Swift Testing
/// `awk '/^[\x80-\xff]+ +Test [^ ].* passed after/ && !/Test run with/'` under LC_ALL=C).
extension OutputParserTests {

    private struct Expected {
        var xctest: ResultCounts
        var swiftTesting: ResultCounts
        var xctestSummaries: [String]
        var swiftTestingSummaries: [String]
        var failures: Int
        var crashes: Int
        var buildErrors = 0
    }

    /// Exact per-file facts.
    private static let expected: [String: Expected] = [
        "MixedTestLog_6_0_Linux.txt": Expected(
            xctest: ResultCounts(passed: 3, failed: 1, skipped: 0),
            swiftTesting: ResultCounts(passed: 1, failed: 1, skipped: 0),
            xctestSummaries: Array(repeating: "xctest-summary 4/0/1/0 0.002s", count: 3),
            swiftTestingSummaries: ["st-summary 2 in - failed issues 1 0.001s"],
            failures: 2, crashes: 0),
        "MixedTestLog_6_0_macOS.txt": Expected(
            xctest: ResultCounts(passed: 3, failed: 1, skipped: 0),
            swiftTesting: ResultCounts(passed: 1, failed: 1, skipped: 0),
            xctestSummaries: Array(repeating: "xctest-summary 4/0/1/0 0.166s", count: 3),
            swiftTestingSummaries: ["st-summary 2 in - failed issues 1 0.001s"],
            failures: 2, crashes: 0),
        "ParallelTestLog.txt": Expected(
            xctest: ResultCounts(passed: 19, failed: 1, skipped: 1),
            swiftTesting: ResultCounts(),
            xctestSummaries: [], swiftTestingSummaries: [],
            failures: 0, crashes: 0),
        "TestLog.txt": Expected(
            xctest: ResultCounts(passed: 81, failed: 1, skipped: 1),
            swiftTesting: ResultCounts(),
            xctestSummaries: ["xctest-summary 6/0/0/0 0.055s", "xctest-summary 77/0/1/0 0.147s",
                              "xctest-summary 83/0/1/0 0.202s", "xctest-summary 83/0/1/0 0.202s"],
            swiftTestingSummaries: [],
            failures: 1, crashes: 2),  // two `Restarting after unexpected exit…` lines
        "clean_build_xcode_15_1.txt": Expected(
            // `grep -c error` over the file is 0: no build error may be reported.
            xctest: ResultCounts(), swiftTesting: ResultCounts(),
            xctestSummaries: [], swiftTestingSummaries: [],
            failures: 0, crashes: 0, buildErrors: 0),
        "demo_swift_testing_log.txt": Expected(
            xctest: ResultCounts(),
            swiftTesting: ResultCounts(passed: 1, failed: 1, skipped: 1),
            xctestSummaries: ["xctest-summary 0/0/0/0 0.0s"],
            swiftTestingSummaries: ["st-summary 3 in - failed issues 1 0.001s"],
            failures: 1, crashes: 0),
        "spi_swift_testing_short_log.txt": Expected(
            xctest: ResultCounts(),
            swiftTesting: ResultCounts(passed: 1, failed: 3, skipped: 0),
            xctestSummaries: ["xctest-summary 0/0/0/0 0.0s"],
            swiftTestingSummaries: ["st-summary 4 in - failed issues 3 1.2s"],
            failures: 3, crashes: 0),
        "swift_test_log_macOS.txt": Expected(
            xctest: ResultCounts(passed: 113, failed: 0, skipped: 0),
            // 347 + 2 + 2 = 351, the run summary's count.
            swiftTesting: ResultCounts(passed: 347, failed: 2, skipped: 2),
            xctestSummaries: ["xctest-summary 54/0/0/0 0.032s", "xctest-summary 13/0/0/0 0.006s",
                              "xctest-summary 10/0/0/0 0.001s", "xctest-summary 36/0/0/0 1.03s",
                              "xctest-summary 113/0/0/0 1.069s", "xctest-summary 113/0/0/0 1.069s"],
            swiftTestingSummaries: ["st-summary 351 in - failed issues 6 3.787s"],
            failures: 6, crashes: 0),
    ]

    /// RATCHET: recognised events per file and kind. These numbers may only go UP as the parser
    /// learns more lines; lowering one to make a test pass is a regression.
    private static let ratchet: [String: [String: Int]] = [
        "MixedTestLog_6_0_Linux.txt": ["suiteStarted": 4, "suiteFinished": 4, "testStarted": 6, "testFinished": 6,
                                       "testFailure": 2, "xctestSummary": 3, "swiftTestingSummary": 1],
        "MixedTestLog_6_0_macOS.txt": ["suiteStarted": 4, "suiteFinished": 4, "testStarted": 6, "testFinished": 6,
                                       "testFailure": 2, "xctestSummary": 3, "swiftTestingSummary": 1],
        "ParallelTestLog.txt": ["suiteStarted": 4, "testFinished": 21],
        "TestLog.txt": ["suiteStarted": 4, "suiteFinished": 4, "testStarted": 83, "testFinished": 83,
                        "testFailure": 1, "xctestSummary": 4, "crash": 2],
        "clean_build_xcode_15_1.txt": [:],
        "demo_swift_testing_log.txt": ["suiteStarted": 1, "suiteFinished": 1, "testStarted": 2, "testFinished": 3,
                                       "testFailure": 1, "testSkipped": 1, "xctestSummary": 1, "swiftTestingSummary": 1],
        "spi_swift_testing_short_log.txt": ["suiteStarted": 2, "suiteFinished": 2, "testStarted": 4, "testFinished": 4,
                                            "testFailure": 3, "xctestSummary": 1, "swiftTestingSummary": 1],
        "swift_test_log_macOS.txt": ["suiteStarted": 56, "suiteFinished": 56, "testStarted": 462, "testFinished": 464,
                                     "testFailure": 6, "testSkipped": 2, "xctestSummary": 6, "swiftTestingSummary": 1],
    ]

    private static func kind(_ event: TestEvent) -> String {
        switch event {
        case .suiteStarted: return "suiteStarted"
        case .suiteFinished: return "suiteFinished"
        case .testStarted: return "testStarted"
        case .testFinished: return "testFinished"
        case .testFailure: return "testFailure"
        case .testSkipped: return "testSkipped"
        case .xctestSummary: return "xctestSummary"
        case .swiftTestingSummary: return "swiftTestingSummary"
        case .crash: return "crash"
        case .buildError: return "buildError"
        case .metric: return "metric"
        case .runnerStatement: return "runnerStatement"
        case .failingTestListed: return "failingTestListed"
        case .unreadableResult: return "unreadableResult"
        case .witnessDisagreement: return "witnessDisagreement"
        case .backtraceFrame: return "backtraceFrame"
        case .attachmentRecorded: return "attachmentRecorded"
        }
    }

    func testRecordedLogsExactCounts() throws {
        let dir = try ParserFixtures.sharedLogs()
        let names = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasSuffix(".txt") }.sorted()
        XCTAssertEqual(Set(names), Set(Self.expected.keys), "a recorded log without expectations (or one missing)")
        for name in names {
            guard let expected = Self.expected[name] else { continue }
            let events = OutputParser.parse(try ParserFixtures.data(dir.appendingPathComponent(name)))
            XCTAssertEqual(ResultCounts(events, framework: .xctest), expected.xctest, "\(name): XCTest results")
            XCTAssertEqual(ResultCounts(events, framework: .swiftTesting), expected.swiftTesting, "\(name): Swift Testing results")
            let compacted = events.map(compact)
            XCTAssertEqual(compacted.filter { $0.hasPrefix("xctest-summary") }, expected.xctestSummaries, "\(name): XCTest summaries")
            XCTAssertEqual(compacted.filter { $0.hasPrefix("st-summary") }, expected.swiftTestingSummaries, "\(name): Swift Testing summaries")
            XCTAssertEqual(compacted.filter { $0.hasPrefix("fail ") }.count, expected.failures, "\(name): failures")
            XCTAssertEqual(compacted.filter { $0.hasPrefix("crash ") }.count, expected.crashes, "\(name): crashes")
            XCTAssertEqual(compacted.filter { $0.hasPrefix("build-error ") }, [], "\(name): build errors")
        }
    }

    func testRecordedLogsRatchet() throws {
        let dir = try ParserFixtures.sharedLogs()
        for (name, minimums) in Self.ratchet.sorted(by: { $0.key < $1.key }) {
            let events = OutputParser.parse(try ParserFixtures.data(dir.appendingPathComponent(name)))
            var counts: [String: Int] = [:]
            for event in events { counts[Self.kind(event), default: 0] += 1 }
            for (kind, minimum) in minimums {
                XCTAssertGreaterThanOrEqual(counts[kind, default: 0], minimum, "\(name): \(kind) went down (ratchet)")
            }
            if name == "clean_build_xcode_15_1.txt" {
                XCTAssertEqual(events, [], "the build log has no tests and no errors")
            }
        }
    }

    /// Failures name their test and location in the recorded logs.
    func testRecordedFailuresAreAttributed() throws {
        let dir = try ParserFixtures.sharedLogs()
        let mixed = OutputParser.parse(try ParserFixtures.data(dir.appendingPathComponent("MixedTestLog_6_0_macOS.txt")))
        let failures = mixed.map(compact).filter { $0.hasPrefix("fail ") }
        XCTAssertEqual(failures, [
            "fail XcbeautifyLibTests.CaptureGroupTests|testForceFailure /Users/runner/work/xcbeautify/xcbeautify/Tests/XcbeautifyLibTests/CaptureGroupTests.swift:34 XCTAssertTrue failed - True is never false.",
            "fail testFailTrueIsFalse() Test.swift:17 Expectation failed: true == false",
        ])
        let parallel = OutputParser.parse(try ParserFixtures.data(dir.appendingPathComponent("ParallelTestLog.txt")))
        XCTAssertTrue(parallel.map(compact).contains(
            "end xctest BuildFlagTests|test_failIntentionally failed 0.278s on Clone 1 of iPhone 13 mini - xctest (59522)"))
    }

    /// The recorded logs also give the same events in 7-byte and random chunks (1-byte for the small ones).
    func testRecordedLogsChunking() throws {
        let dir = try ParserFixtures.sharedLogs()
        var random = SeededGenerator(seed: 2024)
        for name in Self.expected.keys.sorted() {
            let data = try ParserFixtures.data(dir.appendingPathComponent(name))
            let whole = OutputParser.parse(data)
            if data.count < 200_000 {
                XCTAssertEqual(parseChunked(data) { 1 }, whole, "\(name) in 1-byte chunks")
            }
            XCTAssertEqual(parseChunked(data) { 7 }, whole, "\(name) in 7-byte chunks")
            XCTAssertEqual(parseChunked(data) { Int.random(in: 1...70_000, using: &random) }, whole, "\(name) in random chunks")
        }
    }
}
