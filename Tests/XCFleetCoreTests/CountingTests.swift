import Foundation
import XCTest
import XCFleetModel
@testable import XCFleetCore
import XCFleetTestSupport

/// Counting as a reviewer counts, over the hand-written logs in `Fixtures/counting/` (its README
/// says how each was made): distinct tests with their executions, timeouts, tests named only in
/// xcodebuild's recap, invisible prefixes, a banner spliced into a result line. Each class has its
/// failure path too: no way of writing the log may turn a failure green.
final class CountingTests: XCTestCase {
    static let dir = ParserFixtures.packageRoot.appendingPathComponent("Tests/Fixtures/counting")

    static func text(_ name: String) throws -> String {
        String(decoding: try Data(contentsOf: dir.appendingPathComponent(name)), as: UTF8.self)
    }

    /// The report `xcfleet parse` builds: one suite `log`, one attempt, the exit status unknown.
    static func report(_ text: String, allowFlaky: Bool = false) -> RunReport {
        var suite = SuiteSpec(name: "log", template: "parsed")
        suite.allowFlaky = allowFlaky
        let ref = AttemptRef(jobID: "log", attempt: 1)
        var log: [RunEvent.Body] = [
            .runStarted(RunStarted(runID: "parse", planName: "x", planPath: "x", startedAt: "", xcfleetVersion: "t", suites: [suite], hosts: ["log"])),
            .jobPlanned(JobPlanned(jobID: "log", suite: "log", kind: .gate, expectedTests: [])),
            .attemptStarted(ref, host: "log", slot: 0),
        ]
        log += OutputParser.parse(text).map { .test(ref, event: $0) }
        log += [.attemptEnded(ref, AttemptEnded(termination: .exited(0))), .runFinished(interrupted: false)]
        return Collator().collate(log.enumerated().map { RunEvent(seq: $0.offset + 1, t: 0, body: $0.element) })
    }

    static func tests(_ report: RunReport) -> [TestResult] { report.suites[0].jobs[0].attempts.last?.tests ?? [] }
    static func reasons(_ report: RunReport) -> [String] { report.suites[0].jobs[0].reasons }

    func testEveryFixtureIsDescribedInTheReadme() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: Self.dir.path).filter { $0.hasSuffix(".txt") }
        XCTAssertEqual(names.count, 6)
        let readme = try String(contentsOf: Self.dir.appendingPathComponent("README.md"), encoding: .utf8)
        for name in names { XCTAssertTrue(readme.contains(name), "README.md does not say how \(name) was made") }
    }

    // MARK: Repeated executions

    func testIterationsCountDistinctTestsWithTheirExecutions() throws {
        let report = Self.report(try Self.text("iterations_xcodebuild.txt"))
        let tests = Self.tests(report)
        XCTAssertEqual(tests.map(\.id.name), ["testGet", "testPut", "testEvict"])
        XCTAssertEqual(tests.map(\.executions), [4, 4, 4])
        XCTAssertEqual(tests.map(\.failedExecutions), [nil, 1, 1])
        // testPut failed in the second iteration and passed after: flaky; testEvict failed last: failed.
        XCTAssertEqual(tests.map(\.status), [.passed, .passed, .failed])
        XCTAssertEqual(tests.map(\.flaky), [false, true, false])
        XCTAssertEqual(tests[1].failures.map(\.line), [20])
        // One category per distinct test: testA passed, testPut flaky, testEvict failed.
        XCTAssertEqual(report.totals.tests.passed, 1)
        XCTAssertEqual(report.totals.tests.failed, 1)
        XCTAssertEqual(report.totals.tests.flaky, 1)
        XCTAssertEqual(report.exitCode, 1)
        // The runner's `Executed 12 tests` counts executions and agrees; xcodebuild's recap too.
        XCTAssertEqual(Self.reasons(report), ["1 test failed: CacheTests/testEvict", "xcodebuild reports failure: ** TEST FAILED **"])
    }

    func testFourTestsTimesAHundredIterationsAreFourTests() {
        var log = ""
        for _ in 0..<100 {
            for t in 0..<4 { log += "Test Case '-[M.C test\(t)]' started.\nTest Case '-[M.C test\(t)]' passed (0.001 seconds).\n" }
        }
        log += "Test Suite 'All tests' passed at 2026-11-30 09:00:00.000.\n\t Executed 400 tests, with 0 failures (0 unexpected) in 0.4 (0.4) seconds\n"
        let report = Self.report(log)
        XCTAssertEqual(report.totals.tests.passed, 4)
        XCTAssertEqual(Self.tests(report).map(\.executions), [100, 100, 100, 100])
        XCTAssertEqual(report.exitCode, 0, report.verdictLine)
        // One failed execution among the hundred: the gate is not green.
        let once = log.replacingOccurrences(of: "Test Case '-[M.C test2]' passed (0.001 seconds).\n", with: "Test Case '-[M.C test2]' failed (0.001 seconds).\n",
                                            options: [], range: log.range(of: "Test Case '-[M.C test2]' passed (0.001 seconds).\n"))
        XCTAssertEqual(Self.report(once).exitCode, 1)
        XCTAssertEqual(Self.report(once).totals.tests.flaky, 1)
        // Failing in the last iteration is a failed test, even with flaky allowed.
        let last = String(log[..<log.range(of: "Test Case '-[M.C test2]' passed", options: .backwards)!.lowerBound])
            + "Test Case '-[M.C test2]' failed (0.001 seconds).\nTest Case '-[M.C test3]' started.\nTest Case '-[M.C test3]' passed (0.001 seconds).\n"
        let failedLast = Self.report(last, allowFlaky: true)
        XCTAssertEqual(failedLast.exitCode, 1)
        XCTAssertEqual(failedLast.totals.tests.failed, 1)
        // Failed, passed, failed again is failed, not flaky.
        let events = "Test Case 'C.t' failed (0.1 seconds).\nTest Case 'C.t' passed (0.1 seconds).\nTest Case 'C.t' failed (0.1 seconds).\n"
        let flip = Self.report(events, allowFlaky: true)
        XCTAssertEqual(Self.tests(flip).map(\.status), [.failed])
        XCTAssertEqual(Self.tests(flip).map(\.failedExecutions), [2])
        XCTAssertEqual(flip.exitCode, 1)
    }

    func testAClonesRelaunchIsOneTestAndTheCrashStaysRed() throws {
        let report = Self.report(try Self.text("clone_relaunch_xcodebuild.txt"))
        let tests = Self.tests(report)
        // testA on iPhone 16 and on iPhone 16 Pro are two results; testB crashed on clone 1 and
        // passed on clone 2: one test, two executions, flaky.
        XCTAssertEqual(tests.map { "\($0.id.name)@\(Collator.device(ofClone: $0.clone))" },
                       ["testA@iPhone 16", "testB@iPhone 16", "testC@iPhone 16", "testA@iPhone 16 Pro"])
        XCTAssertEqual(tests.map(\.executions), [nil, 2, nil, nil])
        XCTAssertEqual(tests[1].flaky, true)
        XCTAssertTrue(tests[1].failures.first?.message.hasPrefix("crashed: Restarting after") == true)
        // The figures count distinct tests (testA ran on two devices): testA and testC passed, testB flaky.
        XCTAssertEqual(report.totals.tests.passed, 2)
        XCTAssertEqual(report.totals.tests.flaky, 1)
        XCTAssertEqual(report.totals.tests.failed, 0)
        XCTAssertEqual(report.exitCode, 1)
        XCTAssertTrue(Self.reasons(report).first?.hasPrefix("test process crashed: Restarting after") == true, "\(Self.reasons(report))")
        // Even with flaky allowed the crash keeps it red.
        XCTAssertEqual(Self.report(try Self.text("clone_relaunch_xcodebuild.txt"), allowFlaky: true).exitCode, 1)
    }

    func testDeviceOfAClone() {
        XCTAssertEqual(Collator.device(ofClone: "Clone 2 of iPhone 16 - App (4101)"), "iPhone 16")
        XCTAssertEqual(Collator.device(ofClone: "My Mac - xctest (123)"), "My Mac")
        XCTAssertEqual(Collator.device(ofClone: "iPhone 16 Pro"), "iPhone 16 Pro")
        XCTAssertEqual(Collator.device(ofClone: nil), "")
    }

    // MARK: Execution time allowance

    func testATimedOutTestIsAFailedTimedOutTest() throws {
        let report = Self.report(try Self.text("timeout_xcodebuild.txt"))
        let tests = Self.tests(report)
        XCTAssertEqual(tests.map(\.id.name), ["testFast", "testSlowButPrinted", "testAfter", "testHang"])
        XCTAssertEqual(tests.map(\.status), [.passed, .failed, .passed, .failed])
        XCTAssertEqual(tests.map(\.timedOut), [nil, true, nil, true])
        XCTAssertEqual(tests[3].failures.first?.message, "Test exceeded execution time allowance of 1 minute.")
        XCTAssertEqual(report.totals.tests.passed, 2)
        XCTAssertEqual(report.totals.tests.timedOut, 2, "a test over its time allowance is a timed-out test")
        XCTAssertEqual(report.totals.tests.failed, 0)
        XCTAssertEqual(report.exitCode, 1)
        XCTAssertTrue(Self.reasons(report).contains("2 tests timed out: SyncTests/testSlowButPrinted, SyncTests/testHang"), "\(Self.reasons(report))")
        // The runner's totals (4 tests, 2 failures) agree with what was counted.
        XCTAssertFalse(Self.reasons(report).contains { $0.hasPrefix("not proven") }, "\(Self.reasons(report))")
    }

    func testATimeoutStaysRedWithoutBannerTotalsOrRestartAndEvenIfARetryPasses() {
        // Only the timeout line, nothing after it.
        let bare = "Test Case '-[M.C testHang]' started.\nTest Case '-[M.C testHang]' exceeded execution time allowance of 10 minutes.\n"
        let report = Self.report(bare)
        XCTAssertEqual(report.totals.tests.timedOut, 1)
        XCTAssertEqual(Self.tests(report).first?.timedOut, true)
        XCTAssertEqual(report.exitCode, 1)
        // The parallel form is read too.
        let parallel = Self.report("Test case 'C.testHang()' exceeded execution time allowance on 'Clone 1 of iPhone - App (1)'\n")
        XCTAssertEqual(parallel.totals.tests.timedOut, 1)
        // A retry that passes after the timeout does not make it green, even with flaky allowed.
        let retried = bare + "Test Case '-[M.C testHang]' started.\nTest Case '-[M.C testHang]' passed (0.1 seconds).\n"
        let r = Self.report(retried, allowFlaky: true)
        XCTAssertEqual(Self.tests(r).map(\.status), [.failed])
        XCTAssertEqual(Self.tests(r).map(\.executions), [2])
        XCTAssertEqual(r.exitCode, 1)
    }

    // MARK: xcodebuild's recap

    func testTestsNamedOnlyInTheFailingTestsRecapAreFailed() throws {
        let report = Self.report(try Self.text("failing_recap_xcodebuild.txt"))
        let tests = Self.tests(report)
        XCTAssertEqual(tests.map { "\($0.id.name) \($0.status.rawValue)" }, ["testOpen passed", "testLogin failed", "testLogout failed"])
        XCTAssertEqual(tests[1].failures.map(\.message), ["listed as failing by xcodebuild (no result line in the output)"])
        XCTAssertEqual(report.totals.tests.passed, 1)
        XCTAssertEqual(report.totals.tests.failed, 2)
        XCTAssertEqual(report.exitCode, 1)
        XCTAssertEqual(Self.reasons(report).first, "2 tests failed: LoginUITests/testLogin, LoginUITests/testLogout")
        // Without the recap the prepare failure alone is still red, and counts no failed test.
        let cut = try Self.text("failing_recap_xcodebuild.txt").components(separatedBy: "Failing tests:")[0]
        let noRecap = Self.report(cut)
        XCTAssertEqual(noRecap.totals.tests.failed, 0)
        XCTAssertEqual(noRecap.exitCode, 1)
        // A listed test that printed a pass is not turned into a second result: the disagreement is red.
        let passedToo = try Self.text("failing_recap_xcodebuild.txt")
            .replacingOccurrences(of: "\t\tLoginUITests.testLogin() on", with: "\t\tLoginUITests.testOpen() on")
        let disagree = Self.report(passedToo)
        XCTAssertEqual(Self.tests(disagree).count, 2)
        XCTAssertTrue(Self.reasons(disagree).contains("not proven: xcodebuild lists 1 failing test xcfleet did not see fail: LoginUITests/testOpen"), "\(Self.reasons(disagree))")
    }

    // MARK: Invisible prefixes

    func testInvisiblePrefixesDoNotHideSwiftTestingResults() throws {
        let report = Self.report(try Self.text("invisible_prefix_swift_testing.txt"))
        let tests = Self.tests(report)
        XCTAssertEqual(tests.map { "\($0.id.name) \($0.status.rawValue)" }, ["add(a:b:) passed", "mul(a:b:) failed", "neg(x:) passed", "plain() passed"])
        XCTAssertEqual(tests[1].failures.first?.line, 12)
        XCTAssertEqual(report.totals.tests.passed, 3)
        XCTAssertEqual(report.totals.tests.failed, 1)
        XCTAssertEqual(Self.reasons(report), ["1 test failed: mul(a:b:)"])
        // The same log without its one failure line is still red: the runner's summary says failed.
        let text = try Self.text("invisible_prefix_swift_testing.txt")
        let lines = text.components(separatedBy: "\n").filter { !$0.contains("Test mul(a:b:) with 2 test cases failed") && !$0.contains("recorded an issue") }
        XCTAssertEqual(Self.report(lines.joined(separator: "\n")).exitCode, 1)
    }

    func testInvisibleCharactersAreStrippedOnlyWhereTheyPrefix() {
        XCTAssertEqual(OutputParser.parse("\u{200B}\u{200D}Test Case '-[M.C t]' passed (0.1 seconds).\n").map(compact), ["end xctest M.C|t passed 0.1s"])
        XCTAssertEqual(OutputParser.parse("\u{2714} Test \u{200B}x() passed after 0.1 seconds.\n").map(compact), ["end swiftTesting x() passed 0.1s"])
        // A glyph with no blank and nothing invisible after it is not a Swift Testing line.
        XCTAssertEqual(OutputParser.parse("\u{2714}Test x() passed after 0.1 seconds.\n"), [])
        // A cut invisible character (its first bytes only) is not skipped as one; the result
        // behind it is still read, as behind any other output spliced in front.
        XCTAssertEqual(OutputParser.parse(Data([0xE2, 0x80] + Array("Test Case '-[M.C t]' passed (0.1 seconds).\n".utf8))).map(compact),
                       ["end xctest M.C|t passed 0.1s"])
        XCTAssertEqual(OutputParser.parse(Data([0xE2, 0x80] + Array("Test Case '-[M.C t]' started.\n".utf8))).map(compact), ["start xctest M.C|t"])
    }

    // MARK: A banner spliced into a result line

    func testABannerSplicedIntoAResultLineIsRejoined() throws {
        let report = Self.report(try Self.text("banner_spliced_xcodebuild.txt"))
        XCTAssertEqual(Self.tests(report).map { "\($0.id.name) \($0.status.rawValue)" }, ["testOne passed", "testTwo passed"])
        XCTAssertEqual(report.exitCode, 0, "\(Self.reasons(report))")
        let events = OutputParser.parse("Test Case '-[M.C t]' pass** TEST SUCCEEDED **ed (0.002 seconds).\n").map(compact)
        XCTAssertEqual(events, ["runner succeeded ** TEST SUCCEEDED **", "end xctest M.C|t passed 0.002s"])
        // In front of and behind a result, and a Swift Testing result.
        XCTAssertEqual(OutputParser.parse("** TEST FAILED **Test Case 'C.t' failed (0.1 seconds).\n").map(compact),
                       ["runner failed ** TEST FAILED **", "end xctest C|t failed 0.1s"])
        XCTAssertEqual(OutputParser.parse("Test Case 'C.t' passed (0.1 seconds).** TEST SUCCEEDED **\n").map(compact),
                       ["runner succeeded ** TEST SUCCEEDED **", "end xctest C|t passed 0.1s"])
        XCTAssertEqual(OutputParser.parse("\u{2718} Test x() fai** BUILD SUCCEEDED **led after 0.1 seconds with 1 issue.\n").map(compact),
                       ["end swiftTesting x() failed 0.1s"])
        // A message that quotes a banner is left as it is.
        XCTAssertEqual(OutputParser.parse("\u{2718} Test x() recorded an issue at A.swift:3:4: Expectation failed: log == \"** TEST FAILED **\"\n").map(compact),
                       ["fail x() A.swift:3 Expectation failed: log == \"** TEST FAILED **\""])
    }

    func testAFailedResultSplitByABannerStaysFailedAndAnUnjoinableOneStaysRed() throws {
        let text = try Self.text("banner_spliced_xcodebuild.txt")
        // The banner lands in a failed result: the test is failed, not lost.
        let failed = Self.report(text.replacingOccurrences(of: "pass** TEST SUCCEEDED **ed (0.002", with: "fai** TEST SUCCEEDED **led (0.002"))
        XCTAssertEqual(Self.tests(failed).map(\.status), [.passed, .failed])
        XCTAssertEqual(failed.exitCode, 1)
        // The banner itself cut (the rest of it went elsewhere): unreadable, red.
        let cut = Self.report(text.replacingOccurrences(of: "pass** TEST SUCCEEDED **ed (0.002", with: "pass** TEST SUCCed (0.002"))
        XCTAssertEqual(cut.exitCode, 1)
        XCTAssertTrue(Self.reasons(cut).contains { $0.hasPrefix("unreadable result line 8:") }, "\(Self.reasons(cut))")
        // An unknown banner is not cut out.
        let unknown = Self.report(text.replacingOccurrences(of: "pass** TEST SUCCEEDED **ed (0.002", with: "pass** TESTS OK **ed (0.002"))
        XCTAssertEqual(unknown.exitCode, 1)
    }
}
