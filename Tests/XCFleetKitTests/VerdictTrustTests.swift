import Foundation
import XCTest
@testable import XCFleetKit
import XCFleetTestSupport

/// Verdict trust: one test per class over the hand-written fixtures in
/// `Fixtures/verdict/` (see its README for how each was made) and `Fixtures/xcode/`. Every log
/// fixture is also parsed in random chunk sizes and must give the same events and the same report.
final class VerdictTrustTests: XCTestCase {
    static let dir = ParserFixtures.packageRoot.appendingPathComponent("Tests/Fixtures/verdict")

    /// What `xcfleet parse` must say for each fixture: exit code, counts, and the job's reasons.
    struct Expected {
        var exit: Int32
        var passed: Int
        var failed: Int
        var skipped = 0
        var reasons: [String]
    }

    static let expected: [String: Expected] = [
        "c01_totals_trimmed.txt": Expected(exit: 1, passed: 5, failed: 0, reasons: [
            "not proven: the runner reports 259 tests with 38 failures; xcfleet saw 5 passed, 0 failed",
            "xcodebuild reports failure: ** TEST FAILED **",
        ]),
        "c01_totals_agree.txt": Expected(exit: 0, passed: 6, failed: 0, skipped: 1, reasons: []),
        "c01_swift_testing_totals.txt": Expected(exit: 1, passed: 2, failed: 0, reasons: [
            "not proven: the runner reports 12 Swift Testing tests, failed; xcfleet saw 2 passed, 0 failed",
        ]),
        "c02_crash_in_test_linux.txt": Expected(exit: 1, passed: 1, failed: 1, reasons: [
            "test process crashed: /src/Tests/StoreTests.swift:41: Fatal error: Unexpectedly found nil while unwrapping an Optional value",
            "1 test crashed: StoreTests/testLoad",
        ]),
        "c02_restart_xcodebuild.txt": Expected(exit: 1, passed: 2, failed: 1, reasons: [
            "test process crashed: Restarting after unexpected exit, crash, or test timeout in StoreTests.testCrash(); summary will include totals from previous launches.",
            "1 test crashed: StoreTests/testCrash",
            "xcodebuild reports failure: ** TEST FAILED **",
        ]),
        // Figures count tests, not executions: testHash passed (3 executions), testRace is flaky.
        "c03_executions.txt": Expected(exit: 1, passed: 2, failed: 0, reasons: [
            "flaky: KeyTests/testRace failed, then passed within attempt 1",
        ]),
        "c07_uitest_assertion.txt": Expected(exit: 1, passed: 0, failed: 1, reasons: ["1 test failed: HomeUITests/testLogin"]),
        "c09_early_exit.txt": Expected(exit: 1, passed: 1, failed: 0, reasons: [
            "xcodebuild reports failure: Testing failed; AppUITests-Runner (5555) encountered an error (Early unexpected exit, operation never finished bootstrapping - no restart will be attempted. (Underlying Error: Test crashed with signal kill before starting test execution.)); ** TEST FAILED **",
        ]),
        "c09_failed_to_launch.txt": Expected(exit: 1, passed: 1, failed: 0, reasons: [
            "xcodebuild reports failure: Failed to install or launch the test runner. (Underlying Error: The operation couldn\u{2019}t be completed. Unable to launch com.example.AppUITests.xctrunner)",
        ]),
        "c10_app_errors_green.txt": Expected(exit: 0, passed: 1, failed: 0, reasons: []),
        "c10_assertion_name_with_spaces.txt": Expected(exit: 1, passed: 0, failed: 1, reasons: [
            "1 test failed: CartSpec/a cart, when empty, has a zero total",
        ]),
        "c11_arbitrary_names.txt": Expected(exit: 1, passed: 5, failed: 0, reasons: [
            "not proven: the runner reports 6 tests with 0 failures; xcfleet saw 5 passed, 0 failed",
            "unreadable result line 12: Test Case '-[AppTests.Broken testCut]' pas",
        ]),
        "c12_double_print.txt": Expected(exit: 1, passed: 2, failed: 1, reasons: ["1 test failed: LoginUITests/testLogout"]),
        "c12_unfinished.txt": Expected(exit: 1, passed: 1, failed: 0, reasons: [
            "1 test started and never finished: LoginUITests/testHang",
        ]),
        "c13_crash_before_tests.txt": Expected(exit: 1, passed: 0, failed: 0, reasons: [
            "crashed before tests ran: Received signal 11. Backtrace:",
        ]),
        "c13_apple_crash_report.txt": Expected(exit: 1, passed: 0, failed: 1, reasons: [
            "test process crashed: Exception Type:  EXC_BAD_ACCESS (SIGSEGV)",
            "1 test crashed: ImageTests/testDecode",
        ]),
    ]

    static func data(_ name: String) throws -> Data {
        try Data(contentsOf: dir.appendingPathComponent(name))
    }

    static func report(_ name: String, allowFlaky: Bool = false) throws -> RunReport {
        LogParse.report(events: OutputParser.parse(try data(name)), name: name, allowFlaky: allowFlaky)
    }

    static func attempt(_ report: RunReport) -> AttemptReport? {
        report.suites.first?.jobs.first?.attempts.last
    }

    // MARK: Every class, every fixture

    func testEveryFixtureHasExpectationsAndAReadme() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: Self.dir.path).filter { $0.hasSuffix(".txt") }
        XCTAssertEqual(Set(names), Set(Self.expected.keys))
        let readme = try String(contentsOf: Self.dir.appendingPathComponent("README.md"), encoding: .utf8)
        for name in names { XCTAssertTrue(readme.contains(name), "README.md does not say how \(name) was made") }
    }

    /// `xcfleet parse`'s report for every fixture: exit code, per-status counts, exact reasons.
    func testParseVerdictForEveryFixture() throws {
        for (name, want) in Self.expected.sorted(by: { $0.key < $1.key }) {
            let report = try Self.report(name)
            XCTAssertEqual(report.exitCode, want.exit, "\(name): \(report.verdictLine)")
            XCTAssertEqual(report.totals.tests.passed + report.totals.tests.flaky, want.passed, "\(name): passed")
            XCTAssertEqual(report.totals.tests.failed + report.totals.tests.crashed + report.totals.tests.timedOut, want.failed, "\(name): failed")
            XCTAssertEqual(report.totals.tests.skipped, want.skipped, "\(name): skipped")
            XCTAssertEqual(report.suites.first?.jobs.first?.reasons, want.reasons, name)
            // The per-gate reason uses the same words (prefixed by the job's label).
            if let first = want.reasons.first {
                XCTAssertTrue(report.suites[0].reasons.contains { $0.contains(first) }, "\(name): \(report.suites[0].reasons)")
                // The verdict line names the cause of the exit code first: the reason, or at least its kind.
                let kind = first.split(separator: ":").first.map(String.init) ?? first
                XCTAssertTrue(report.verdictLine.contains(first) || report.verdictLine.contains(kind) || want.exit == 0, "\(name): \(report.verdictLine)")
            }
        }
    }

    /// The same bytes in random chunk sizes give the same events and the same report.
    func testEveryFixtureStreamedInRandomChunks() throws {
        var random = SeededGenerator(seed: 11)
        for name in Self.expected.keys.sorted() {
            let data = try Self.data(name)
            let whole = OutputParser.parse(data)
            for maxChunk in [1, 3, 17, 64, 4096] {
                let chunked = parseChunked(data) { Int.random(in: 1...maxChunk, using: &random) }
                XCTAssertEqual(chunked.map(compact), whole.map(compact), "\(name) in chunks of 1...\(maxChunk)")
            }
            // CRLF line ends give the same events too.
            let crlf = Data(String(decoding: data, as: UTF8.self).replacingOccurrences(of: "\n", with: "\r\n").utf8)
            let crlfEvents = parseChunked(crlf) { Int.random(in: 1...9, using: &random) }
            XCTAssertEqual(crlfEvents.filter { if case .unreadableResult = $0 { return false } else { return true } }.map(compact),
                           whole.filter { if case .unreadableResult = $0 { return false } else { return true } }.map(compact), "\(name) with CRLF")
        }
    }

    // MARK: 1. The runner's own totals

    func testOverallLinesAreSummedPerProcessNotPerSuite() throws {
        let evidence = try XCTUnwrap(Self.attempt(try Self.report("c01_totals_agree.txt"))?.evidence)
        // Two processes print `Selected tests` totals of 3 (1 skipped) and 2; the per-class and
        // per-bundle lines in between are not added again.
        XCTAssertEqual(evidence.xctest, RunnerCount(tests: 5, failures: 0, skipped: 1, failed: false, overall: true))
        XCTAssertEqual(evidence.swiftTesting, RunnerCount(tests: 2, failures: 0, failed: false, overall: true))
        XCTAssertTrue(evidence.succeeded)
    }

    func testTotalsCrossCheckRules() {
        let saw = { (p: Int, f: Int) -> ObservedCount in var o = ObservedCount(); o.passed = p; o.failed = f; return o }
        // Exact agreement, and a crashed test the runner may or may not count.
        XCTAssertNil(Verdict.xctestMismatch(RunnerCount(tests: 4, failures: 1, failed: true, overall: true), saw(3, 1), slack: 0))
        XCTAssertNil(Verdict.xctestMismatch(RunnerCount(tests: 4, failures: 1, failed: true, overall: true), saw(3, 0), slack: 1))
        XCTAssertNil(Verdict.xctestMismatch(RunnerCount(tests: 3, failures: 1, failed: true, overall: true), saw(3, 0), slack: 1))
        // More executions seen than the runner reports is a disagreement too.
        XCTAssertNotNil(Verdict.xctestMismatch(RunnerCount(tests: 2, failures: 0, failed: false, overall: true), saw(3, 0), slack: 0))
        // Failures the output never showed.
        XCTAssertEqual(Verdict.xctestMismatch(RunnerCount(tests: 3, failures: 2, failed: true, overall: true), saw(3, 0), slack: 0),
                       "not proven: the runner reports 3 tests with 2 failures; xcfleet saw 3 passed, 0 failed")
        // Only a per-suite line survived (trimmed log): it may be smaller than what was seen.
        XCTAssertNil(Verdict.xctestMismatch(RunnerCount(tests: 2, failures: 0, failed: false, overall: false), saw(9, 0), slack: 0))
        XCTAssertNotNil(Verdict.xctestMismatch(RunnerCount(tests: 20, failures: 0, failed: false, overall: false), saw(9, 0), slack: 0))
        // Swift Testing counts tests, not executions: between distinct names and executions is fine.
        var st = saw(6, 0); st.distinct = 2
        XCTAssertNil(Verdict.swiftTestingMismatch(RunnerCount(tests: 3, failures: 0, failed: false, overall: true), st))
        XCTAssertNotNil(Verdict.swiftTestingMismatch(RunnerCount(tests: 7, failures: 0, failed: false, overall: true), st))
        XCTAssertNotNil(Verdict.swiftTestingMismatch(RunnerCount(tests: 3, failures: 1, failed: true, overall: true), st))
    }

    /// The recorded logs from other projects: the runners' totals agree with what xcfleet reads,
    /// so no "not proven" reason appears for any of them.
    func testRecordedLogsAgreeWithTheirOwnTotals() throws {
        let dir = try ParserFixtures.sharedLogs()
        for name in try FileManager.default.contentsOfDirectory(atPath: dir.path).filter({ $0.hasSuffix(".txt") }).sorted() {
            let report = LogParse.report(events: OutputParser.parse(try ParserFixtures.data(dir.appendingPathComponent(name))), name: name)
            let reasons = report.suites[0].jobs[0].reasons
            XCTAssertFalse(reasons.contains { $0.contains("not proven") || $0.contains("unreadable") || $0.contains("never finished") }, "\(name): \(reasons)")
        }
    }

    // MARK: 2. A crash fails the running test

    func testCrashFailsTheRunningTestWithMessageAndLocation() throws {
        let report = try Self.report("c02_crash_in_test_linux.txt")
        let test = try XCTUnwrap(Self.attempt(report)?.tests.first { $0.id.name == "testLoad" })
        XCTAssertEqual(test.status, .failed)
        XCTAssertEqual(test.failures, [FailureDetail(file: "/src/Tests/StoreTests.swift", line: 41,
                                                      message: "crashed: /src/Tests/StoreTests.swift:41: Fatal error: Unexpectedly found nil while unwrapping an Optional value")])
        // Shown in JUnit (valid against the schema) and HTML.
        let junit = String(decoding: try ReportWriter.junit(report), as: UTF8.self)
        XCTAssertTrue(junit.contains("name=\"testLoad\""), junit)
        XCTAssertTrue(junit.contains("crashed: /src/Tests/StoreTests.swift:41: Fatal error"), junit)
        XCTAssertTrue(junit.contains("errors=\"1\""), junit)
        XCTAssertTrue(junit.contains("type=\"crashed\""), junit)
        XCTAssertFalse(junit.contains("crashed: crashed:"), junit)
        try assertValidJUnit(junit)
        let html = String(decoding: try HTMLReportRenderer().render(report), as: UTF8.self)
        XCTAssertTrue(html.contains("crashed: /src/Tests/StoreTests.swift:41: Fatal error"))
        // Without the crash line the test would be "started and never finished", not failed.
        let cut = String(decoding: try Self.data("c02_crash_in_test_linux.txt"), as: UTF8.self)
            .split(separator: "\n", omittingEmptySubsequences: false).prefix(6).joined(separator: "\n")
        let without = LogParse.report(events: OutputParser.parse(cut), name: "cut")
        XCTAssertEqual(without.suites[0].jobs[0].reasons, ["1 test started and never finished: StoreTests/testLoad"])
    }

    /// Concurrent Swift Testing tests end out of order: a crash while exactly one test is still
    /// running fails that one; with none running it stays an attempt-level crash only.
    func testCrashWithConcurrentTestsBlamesTheOneStillRunning() {
        let text = """
        \u{25C7} Test a() started.
        \u{25C7} Test b() started.
        \u{2714} Test b() passed after 0.001 seconds.
        \u{1F4A3} Program crashed: Bad pointer dereference at 0x0
        """
        let report = Collator.attemptReport(events: OutputParser.parse(text), ended: AttemptEnded(), host: "h", slot: 0, number: 1)
        XCTAssertEqual(report.tests.map { "\($0.id.name) \($0.status.rawValue)" }, ["b() passed", "a() failed"])
        let none = Collator.attemptReport(events: OutputParser.parse("\u{1F4A3} Program crashed: x\n"), ended: AttemptEnded(), host: "h", slot: 0, number: 1)
        XCTAssertEqual(none.tests, [])
        XCTAssertEqual(none.crashes, ["Program crashed: x"])
    }

    func testFailingTestsBlockShapes() {
        let text = "Failing tests:\n\tAppTests:\n\t\tAppTests.StoreTests.testA()\n\t-[StoreTests testB]\n\tApp/Suite/testC() on 'iPhone 16'\n\n** TEST FAILED **\n\tnot.listed()\n"
        XCTAssertEqual(OutputParser.parse(text).map(compact), [
            "listed-failing AppTests.StoreTests|testA", "listed-failing StoreTests|testB", "listed-failing Suite|testC",
            "runner failed ** TEST FAILED **",
        ])
    }

    func testRestartNamesTheCrashedTestAndTheFailingTestsBlockAgrees() throws {
        let attempt = try XCTUnwrap(Self.attempt(try Self.report("c02_restart_xcodebuild.txt")))
        XCTAssertEqual(attempt.evidence?.failingTests, [TestIdentifier(suite: "StoreTests", name: "testCrash")])
        let crashed = try XCTUnwrap(attempt.tests.first { $0.id.name == "testCrash" })
        XCTAssertEqual(crashed.status, .failed)
        XCTAssertTrue(crashed.failures.first?.message.hasPrefix("crashed: Restarting after") == true)
        // A Failing tests block naming a test xcfleet saw pass is a disagreement.
        let text = String(decoding: try Self.data("c02_restart_xcodebuild.txt"), as: UTF8.self)
            .replacingOccurrences(of: "\tStoreTests.testCrash()", with: "\tStoreTests.testCrash()\n\tStoreTests.testPut()")
        let report = LogParse.report(events: OutputParser.parse(text), name: "x")
        XCTAssertTrue(report.suites[0].jobs[0].reasons.contains("not proven: xcodebuild lists 1 failing test xcfleet did not see fail: StoreTests/testPut"),
                      "\(report.suites[0].jobs[0].reasons)")
    }

    // MARK: 3. Every execution counts, once per test

    func testEveryExecutionCountsAndFailedThenPassedIsFlaky() throws {
        let report = try Self.report("c03_executions.txt")
        let tests = try XCTUnwrap(Self.attempt(report)?.tests)
        // Two tests: one ran three times, one failed and then passed.
        XCTAssertEqual(tests.map(\.id.name), ["testHash", "testRace"])
        XCTAssertEqual(tests.map(\.status), [.passed, .passed])
        XCTAssertEqual(tests.map(\.flaky), [false, true])
        XCTAssertEqual(tests.map(\.executions), [3, 2])
        XCTAssertEqual(tests.map(\.failedExecutions), [nil, 1])
        XCTAssertEqual(tests[1].failures.count, 1, "the failed execution's failure is kept")
        // One category per test: testHash passed, testRace flaky.
        XCTAssertEqual(report.totals.tests.passed, 1)
        XCTAssertEqual(report.totals.tests.flaky, 1)
        XCTAssertEqual(report.totals.tests.failed, 0)
        // The runner's own count is of executions, and agrees.
        XCTAssertEqual(Self.attempt(report)?.evidence?.sawXCTest.executions, 5)
        XCTAssertEqual(report.suites[0].jobs[0].finalState, .flaky)
        XCTAssertEqual(report.suites[0].status, .red)
        XCTAssertEqual(report.suites[0].reasons, ["log@log: flaky: KeyTests/testRace failed, then passed within attempt 1 (the plan does not allow flaky)"])
        XCTAssertEqual(report.totals.tests.flaky, 1)
        // The plan may allow flaky tests.
        let allowed = try Self.report("c03_executions.txt", allowFlaky: true)
        XCTAssertEqual(allowed.suites[0].status, .green)
        XCTAssertEqual(allowed.exitCode, 0)
        // Failing twice is failed, not flaky.
        let twice = String(decoding: try Self.data("c03_executions.txt"), as: UTF8.self)
            .replacingOccurrences(of: "'-[KeyTests.KeyTests testRace]' passed (0.003", with: "'-[KeyTests.KeyTests testRace]' failed (0.003")
        let failed = LogParse.report(events: OutputParser.parse(twice), name: "x")
        XCTAssertEqual(failed.suites[0].jobs[0].finalState, .failed)
    }

    // MARK: 4, 5. Result bundles

    func testLegacyBundleWithSeveralActionsReadsEveryAction() throws {
        let invocation = try XcodeFixtures.data("xcresult-legacy-two-actions-invocation.json")
        XCTAssertEqual(try XCResultParser.legacyTestsRefs(invocation), ["0~action-one-tests", "0~action-two-tests"])
        let results = try XCResultParser.parseLegacy(invocation: invocation, tests: [
            try XcodeFixtures.data("xcresult-legacy-two-actions-tests-1.json"),
            try XcodeFixtures.data("xcresult-legacy-two-actions-tests-2.json"),
        ])
        XCTAssertEqual(results.map { "\($0.id) \($0.status.rawValue)" }, [
            "AppTests.StoreTests/testSave failed", "AppTests.StoreTests/testLoad passed",
            "AppTests.StoreTests/testSave passed", "AppTests.StoreTests/testLoad failed",
        ])
        // Each failure is attached to its own action's test; a URL without a file part has no file.
        XCTAssertEqual(results[0].failures, [FailureDetail(file: "/Users/ci/App/Tests/StoreTests.swift", line: 12, message: "XCTAssertTrue failed - iOS only")])
        XCTAssertEqual(results[3].failures, [FailureDetail(file: nil, line: nil, message: "Crash: AppTests (123) EXC_BAD_ACCESS")])
        XCTAssertEqual(XCResultParser.location("#CharacterRangeLen=0").0, nil)
        XCTAssertEqual(XCResultParser.location("file:///a/B.swift#CharacterRangeLen=0&StartingLineNumber=4").1, 5)
    }

    func testRepeatedFailureMessagesAreKeptOncePerTestWithACount() throws {
        let results = try XCResultParser.parseTestResults(try XcodeFixtures.data("xcresult-test-results-repetitions.json"))
        let race = try XCTUnwrap(results.first { $0.id.name == "testRace" })
        XCTAssertEqual(race.failures, [
            FailureDetail(file: "KeyTests.swift", line: 30, message: "XCTAssertEqual failed: (\"2\") is not equal to (\"1\") (3 times)"),
            FailureDetail(file: "KeyTests.swift", line: 31, message: "XCTAssertNil failed: \"late\""),
        ])
    }

    // MARK: 6. Old simctl layouts

    func testOldSimctlDevicesKeyedByRuntimeNameAreNormalized() throws {
        let devices = try SimctlJSON.devices(try XcodeFixtures.data("simctl-devices-xcode9.json"))
        XCTAssertEqual(Set(devices.map(\.runtime)), ["com.apple.CoreSimulator.SimRuntime.iOS-11-2", "com.apple.CoreSimulator.SimRuntime.watchOS-4-2",
                                                     "com.apple.CoreSimulator.SimRuntime.tvOS-11-2"])
        XCTAssertEqual(devices.first { $0.name == "Apple Watch - 38mm" }?.isAvailable, false)
        XCTAssertEqual(SimctlJSON.runtimeIdentifier("iOS 11.2 (15C107)"), "com.apple.CoreSimulator.SimRuntime.iOS-11-2")
        XCTAssertEqual(SimctlJSON.runtimeIdentifier("Something odd"), "Something odd")
        // Reuse by name and OS works on the old layout.
        let runtime = SimRuntime(identifier: "com.apple.CoreSimulator.SimRuntime.iOS-11-2", name: "iOS 11.2", version: "11.2", platform: "iOS",
                                 buildVersion: nil, isAvailable: true, supportedDeviceTypes: nil)
        let type = SimDeviceType(identifier: "com.apple.CoreSimulator.SimDeviceType.iPhone-8", name: "iPhone 8", productFamily: "iPhone")
        let decision = try SimulatorControl(developerDir: nil, host: "mac").decide(destination: try XcodeDestination.parse("platform=iOS Simulator,name=iPhone 8,OS=11.2"),
                                                                                  devices: devices, deviceTypes: [type], runtimes: [runtime],
                                                                                  reuse: true, createName: "xcfleet-1")
        XCTAssertEqual(decision, .useExisting(udid: "1D2C3B4A-0000-4000-8000-000000000001", name: "iPhone 8"))
    }

    // MARK: 7, 10, 11, 12, 13. Lines

    func testMessageLessActivityAssertionKeepsFileLineAndAssertion() throws {
        let events = OutputParser.parse(try Self.data("c07_uitest_assertion.txt")).map(compact)
        XCTAssertTrue(events.contains("fail - HomeUITests.swift:63 XCTAssertTrue failed"), "\(events)")
        let test = try XCTUnwrap(Self.attempt(try Self.report("c07_uitest_assertion.txt"))?.tests.first)
        XCTAssertEqual(test.failures, [FailureDetail(file: "HomeUITests.swift", line: 63, message: "XCTAssertTrue failed")])
    }

    func testAppErrorLinesAreOutputNotBuildErrors() throws {
        let events = OutputParser.parse(try Self.data("c10_app_errors_green.txt"))
        XCTAssertFalse(events.contains { if case .buildError = $0 { return true } else { return false } }, "\(events.map(compact))")
        // Compiler, linker and build-system lines still are.
        let build = OutputParser.parse("clang: error: linker command failed\nld: error: undefined symbol: _x\nxcodebuild: error: no scheme\nerror: fatalError\n/a/B.swift:3:4: error: nope\n")
        XCTAssertEqual(build.map(compact), [
            "build-error -:- linker command failed", "build-error -:- undefined symbol: _x", "build-error -:- no scheme",
            "build-error -:- fatalError", "build-error /a/B.swift:3 nope",
        ])
        let spaced = OutputParser.parse(try Self.data("c10_assertion_name_with_spaces.txt")).map(compact)
        XCTAssertTrue(spaced.contains("fail CartSpec|a cart, when empty, has a zero total /src/Tests/CartSpec.swift:12 XCTAssertEqual failed: (\"1\") is not equal to (\"0\") -"), "\(spaced)")
    }

    func testArbitraryNamesAreReadAndAnUnreadableLineIsReported() throws {
        let events = OutputParser.parse(try Self.data("c11_arbitrary_names.txt")).map(compact)
        XCTAssertEqual(events.filter { $0.hasPrefix("end ") }, [
            "end xctest AppTests.CartSpec|a cart, when it's empty, doesn't crash passed 0.001s",
            "end xctest AppTests.\u{DC}berSpec|gr\u{F6}\u{DF}e_\u{E4}ndert_sich \u{1F680} passed 0.001s",
            "end xctest AppTests.MathSpec|1 + 1 equals 2 passed 0.001s",
            "end xctest _TtC8AppTests11MangledSpec|test_mangled passed 0.001s",
            "end xctest AppTests.QuoteSpec|it handles 'single' quotes passed 0.001s",
        ])
        XCTAssertTrue(events.contains("unreadable 12 Test Case '-[AppTests.Broken testCut]' pas"), "\(events)")
        // A performance test's figures are a known line, not an unreadable result.
        XCTAssertEqual(OutputParser.parse("Test Case '-[M.C testPerf]' measured [Time, seconds] average: 0.001, relative standard deviation: 1.0%\n"), [])
        // Swift Testing display names with quotes and blanks.
        let st = OutputParser.parse("\u{2714} Test \"say \"hi\" twice\" passed after 0.001 seconds.\n\u{2718} Test \"x\" failed aft\n").map(compact)
        XCTAssertEqual(st, ["end swiftTesting say \"hi\" twice passed 0.001s"])
        let unreadable = OutputParser.parse("\u{2718} Test \"x y\" broken failed after 0.1 seconds.\n").map(compact)
        XCTAssertEqual(unreadable, ["unreadable 1 \u{2718} Test \"x y\" broken failed after 0.1 seconds."])
    }

    func testDoublePrintedResultsCountOnceAndSplicedLinesAreRecovered() throws {
        let attempt = try XCTUnwrap(Self.attempt(try Self.report("c12_double_print.txt")))
        XCTAssertEqual(attempt.tests.map { "\($0.id) \($0.status.rawValue)" }, [
            "AppUITests.LoginUITests/testLogin passed", "AppUITests.LoginUITests/testLogout failed", "AppUITests.LoginUITests/testSignup passed",
        ])
        XCTAssertEqual(attempt.tests.map(\.clone), Array(repeating: "iPhone 16 - AppUITests-Runner (12345)", count: 3))
        XCTAssertEqual(attempt.tests[1].failures.count, 1)
        XCTAssertEqual(attempt.evidence?.unfinished, [])
        // Parallel clones print only the new form: those executions are all counted.
        let clones = """
        Test case 'A.t()' passed on 'Clone 1 of iPhone - xctest (1)' (0.1 seconds)
        Test case 'A.t()' passed on 'Clone 2 of iPhone - xctest (2)' (0.1 seconds)
        """
        let cloned = Collator.attemptReport(events: OutputParser.parse(clones), ended: AttemptEnded(), host: "h", slot: 0, number: 1)
        XCTAssertEqual(cloned.tests.map(\.executions), [2], "two clones of one device ran the test twice: one test")
        XCTAssertEqual(cloned.evidence?.sawXCTest.executions, 2)
        // On two devices it is two tests.
        let devices = clones.replacingOccurrences(of: "Clone 2 of iPhone", with: "Clone 1 of iPad")
        XCTAssertEqual(Collator.attemptReport(events: OutputParser.parse(devices), ended: AttemptEnded(), host: "h", slot: 0, number: 1).tests.count, 2)
    }

    func testEveryCrashIsSeen() {
        let lines = [
            "Fatal error: boom", "/a/B.swift:3: Fatal error: boom", "/a/B.swift:3: Precondition failed: x", "Assertion failed: y",
            "\u{1F4A3} Program crashed: Bad pointer dereference at 0x0", "*** Program crashed: Aborted at 0x1 ***",
            "Got backtrace:", "Received signal 11. Backtrace:", "Illegal instruction (core dumped)", "Segmentation fault",
            "Aborted (core dumped)", "Trace/breakpoint trap", "Killed: 9", "Floating point exception (core dumped)", "Exception Type:  EXC_CRASH (SIGABRT)",
            "bash: line 1:  4242 Bus error               (core dumped) swift test", "zsh: segmentation fault  swift test",
            "error: Exited with unexpected signal code 11",
            "Could not cast value of type 'A' to 'B'.",
        ]
        for line in lines {
            let events = OutputParser.parse(line + "\n")
            XCTAssertEqual(events.count, 1, line)
            guard case .crash? = events.first else { return XCTFail("\(line): \(events)") }
        }
        // Words that only look like signals are output.
        XCTAssertEqual(OutputParser.parse("Killed the process early\nAborted retries: 3 left\nSegmentation faults are rare here\nbash: cd: no such dir\n"), [])
    }

    // MARK: Through the binary

    func testParseBinaryExitCodesAndReasons() throws {
        let binary = TestPaths.xcfleetBinary
        guard FileManager.default.isExecutableFile(atPath: binary.path) else { throw XCTSkip("xcfleet not built at \(binary.path)") }
        let trimmed = try runCommand(binary, ["parse", Self.dir.appendingPathComponent("c01_totals_trimmed.txt").path])
        XCTAssertEqual(trimmed.status, 1, trimmed.stdout + trimmed.stderr)
        XCTAssertTrue(trimmed.stdout.contains("not proven: the runner reports 259 tests with 38 failures; xcfleet saw 5 passed, 0 failed"), trimmed.stdout)
        let green = try runCommand(binary, ["parse", Self.dir.appendingPathComponent("c10_app_errors_green.txt").path])
        XCTAssertEqual(green.status, 0, green.stdout + green.stderr)
        let flaky = Self.dir.appendingPathComponent("c03_executions.txt").path
        XCTAssertEqual(try runCommand(binary, ["parse", flaky]).status, 1)
        XCTAssertEqual(try runCommand(binary, ["parse", flaky, "--allow-flaky"]).status, 0)
        let junit = try TestPaths.temporaryDirectory().appendingPathComponent("junit.xml")
        let crash = try runCommand(binary, ["parse", Self.dir.appendingPathComponent("c09_early_exit.txt").path, "--junit", junit.path])
        XCTAssertEqual(crash.status, 1)
        XCTAssertTrue(crash.stdout.contains("xcodebuild reports failure: Testing failed"), crash.stdout)
        try assertValidJUnit(String(decoding: try Data(contentsOf: junit), as: UTF8.self))
    }

    /// xmllint against the shared JUnit schema when present, else well-formedness only.
    private func assertValidJUnit(_ xml: String, file: StaticString = #filePath, line: UInt = #line) throws {
        guard let xmllint = ReportingTestSupport.which("xmllint") else { throw XCTSkip("xmllint not found: apt-get install libxml2-utils") }
        let url = try ReportingTestSupport.tempDir("verdict-junit").appendingPathComponent("j.xml")
        try Data(xml.utf8).write(to: url)
        let xsd = ReportingTestSupport.sharedDir.appendingPathComponent("fixtures/junit/junit-10.xsd")
        var args = ["--noout", url.path]
        if FileManager.default.fileExists(atPath: xsd.path) { args = ["--noout", "--schema", xsd.path, url.path] }
        let r = try ReportingTestSupport.run(xmllint, args)
        XCTAssertEqual(r.status, 0, "JUnit not valid: \(r.stderr)", file: file, line: line)
    }
}
