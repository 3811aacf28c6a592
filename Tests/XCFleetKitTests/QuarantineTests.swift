import Foundation
import XCTest
@testable import XCFleetKit
import XCFleetTestSupport

/// The quarantine file: its loader, its effect on the verdict (only the
/// quarantined tests' own failed executions are forgiven) and how every report shows it.
/// Logs go through the real `OutputParser` and `Collator`; JUnit is checked by the real `xmllint`.
final class QuarantineTests: XCTestCase {
    private static let fixtures = ReportingTestSupport.fixturesDir.appendingPathComponent("quarantine")
    /// 2026-12-01 12:00 UTC.
    private let today = Date(timeIntervalSince1970: 1_796_126_400)

    private func load(_ text: String, suites: [String]? = ["store-gate"], path: String = "Plans/quarantine.json") throws -> QuarantineLoader.Loaded {
        try QuarantineLoader.parse(Data(text.utf8), path: path, suites: suites, today: today)
    }

    private func problems(_ text: String, suites: [String]? = ["store-gate"]) -> [String] {
        do {
            _ = try load(text, suites: suites)
            XCTFail("expected problems in \(text)")
            return []
        } catch let error as ValidationError {
            return error.problems.map(\.description)
        } catch {
            XCTFail("\(error)")
            return []
        }
    }

    // MARK: Loader

    func testValidFileWithCommentsLoadsEveryEntryWithItsLine() throws {
        let path = Self.fixtures.appendingPathComponent("quarantine.json").path
        let loaded = try QuarantineLoader.load(path: path, suites: ["store-gate"], today: today)
        XCTAssertEqual(loaded.warnings, [])
        XCTAssertEqual(loaded.quarantine.entries.map(\.test), ["StoreTests/testFlaky", "StoreTests.StoreTests/testSlow", "/eventuallyConsistent()"])
        XCTAssertEqual(loaded.quarantine.entries.map(\.line), [4, 12, 13])
        XCTAssertEqual(loaded.quarantine.entries[0], QuarantineEntry(suite: "store-gate", test: "StoreTests/testFlaky", reason: "races the disk cache on shared hosts",
                                                                     owner: "ana", expires: "2027-02-28", line: 4))
    }

    func testEveryProblemIsReportedAtOnceWithLineColumnAndPath() {
        let text = """
        {
          "tests": [
            {"suite": "store-gate", "test": "A/b", "owner": "ana", "expires": "2027-01-01"},
            {"suite": "store-gate", "test": "A/c", "reason": "r", "expires": "2027-01-01"},
            {"suite": "store-gate", "test": "A/d", "reason": "r", "owner": "ana"},
            {"suite": "store-gate", "test": "A/e", "reason": "r", "owner": "ana", "expires": "2027-02-30"},
            {"suite": "store-gate", "test": "A/f", "reason": "r", "owner": "ana", "expires": "27-1-1"},
            {"suite": "store-gate", "test": "A/g", "reason": "r", "owner": "  ", "expires": "2027-01-01", "ownr": "x"},
            {"suite": "store-gate", "test": "A/", "reason": "r", "owner": "ana", "expires": "2027-01-01"},
            {"suite": "store-gate", "test": "A/h", "reason": 3, "owner": "ana", "expires": 20270101},
            {"suite": "store-gate", "test": "A/i", "reason": "r", "owner": "ana", "expires": "2027-01-01"},
            {"suite": "store-gate", "test": "Mod.A/i()", "reason": "r", "owner": "ana", "expires": "2027-01-01"},
            "A/j",
          ],
          "extra": true,
        }
        """
        let p = problems(text)
        let expected = [
            "Plans/quarantine.json:3:5: tests[0].reason: missing required key 'reason'",
            "Plans/quarantine.json:4:5: tests[1].owner: missing required key 'owner'",
            "Plans/quarantine.json:5:5: tests[2].expires: missing required key 'expires'",
            "Plans/quarantine.json:6:86: tests[3].expires: expected a date as YYYY-MM-DD that exists",
            "Plans/quarantine.json:7:86: tests[4].expires: expected a date as YYYY-MM-DD that exists",
            "Plans/quarantine.json:8:68: tests[5].owner: must not be empty",
            "Plans/quarantine.json:8:99: tests[5].ownr: unknown key 'ownr'; did you mean 'owner'?",
            "Plans/quarantine.json:9:37: tests[6].test: expected Class/testName or Module.Class/testName (got 'A/')",
            "Plans/quarantine.json:10:54: tests[7].reason: expected a string, got a number",
            "Plans/quarantine.json:10:84: tests[7].expires: expected a string, got a number",
            "Plans/quarantine.json:12:5: tests[9]: duplicate entry for store-gate Mod.A/i() (also at line 11); keep one",
            "Plans/quarantine.json:13:5: tests[10]: expected an object, got a string",
            "Plans/quarantine.json:15:3: extra: unknown key 'extra'; allowed keys are tests",
        ]
        XCTAssertEqual(p.count, expected.count, p.joined(separator: "\n"))
        for (line, prefix) in zip(p, expected) { XCTAssertTrue(line.hasPrefix(prefix), "\(line)\n  expected to start with\n\(prefix)") }
    }

    func testExpiredEntryWarnsAndStopsForgivingInRunsAndIsAnErrorForPlanCheck() throws {
        let text = """
        {"tests": [
          {"suite": "store-gate", "test": "StoreTests/testFlaky", "reason": "r", "owner": "ana", "expires": "2026-11-30"},
          {"suite": "store-gate", "test": "StoreTests/testToday", "reason": "r", "owner": "bo", "expires": "2026-12-01"},
        ]}
        """
        // A run: a warning naming owner and date; the entry forgives nothing; the expiry day itself still holds.
        let loaded = try load(text)
        XCTAssertEqual(loaded.quarantine.entries.map(\.test), ["StoreTests/testToday"])
        XCTAssertEqual(loaded.expired.map(\.test), ["StoreTests/testFlaky"])
        XCTAssertEqual(loaded.warnings, ["Plans/quarantine.json:2:3: tests[0]: quarantine of store-gate StoreTests/testFlaky (owner ana) expired on 2026-11-30: it no longer forgives, the test counts normally; renew it or remove the entry (xcfleet plan check fails on it)"])
        // plan check: an error, so a lint job catches it before it expires everywhere.
        do {
            _ = try QuarantineLoader.parse(Data(text.utf8), path: "Plans/quarantine.json", suites: ["store-gate"], today: today, strict: true)
            XCTFail("plan check must fail on an expired entry")
        } catch let error as ValidationError {
            XCTAssertEqual(error.problems.map(\.description), ["Plans/quarantine.json:2:3: tests[0]: quarantine of store-gate StoreTests/testFlaky (owner ana) expired on 2026-11-30; renew it with a later \"expires\" date (at most 90 days ahead) or remove the entry (and fix the test)"])
        }
    }

    func testOwnerMustNameSomeoneAndExpiryStaysWithinTheHorizon() throws {
        for placeholder in ["TODO", "todo: ana", "TBD", "?", "-", "none", "n/a", "123"] {
            let p = problems(#"{"tests": [{"suite": "store-gate", "test": "A/b", "reason": "r", "owner": "\#(placeholder)", "expires": "2027-01-01"}]}"#)
            XCTAssertEqual(p.count, 1, placeholder)
            XCTAssertTrue(p.first?.contains("tests[0].owner: must name the person or team who will fix the test") == true, "\(placeholder): \(p)")
        }
        for real in ["ana", "@org/cache-team", "Team Store", "todoist-team"] {
            XCTAssertNoThrow(try load(#"{"tests": [{"suite": "store-gate", "test": "A/b", "reason": "r", "owner": "\#(real)", "expires": "2027-01-01"}]}"#), real)
        }
        // 90 days from 2026-12-01 is 2027-03-01.
        XCTAssertNoThrow(try load(#"{"tests": [{"suite": "store-gate", "test": "A/b", "reason": "r", "owner": "ana", "expires": "2027-03-01"}]}"#))
        XCTAssertEqual(problems(#"{"tests": [{"suite": "store-gate", "test": "A/b", "reason": "r", "owner": "ana", "expires": "9999-12-31"}]}"#),
                       ["Plans/quarantine.json:1:93: tests[0].expires: 9999-12-31 is more than 90 days ahead; a quarantine must end soon: give 2027-03-01 or earlier and renew it when it runs out (\"horizonDays\" at the top of the file sets the limit, at most 365)"])
        // The file may set its own horizon, up to a year.
        XCTAssertNoThrow(try load(#"{"horizonDays": 200, "tests": [{"suite": "store-gate", "test": "A/b", "reason": "r", "owner": "ana", "expires": "2027-06-01"}]}"#))
        XCTAssertEqual(problems(#"{"horizonDays": 9999, "tests": []}"#).count, 1)
    }

    func testBadJSONAndWrongShapesAreOneLineEach() {
        XCTAssertEqual(problems("{\"tests\": [ {\"suite\": } ]}"), ["Plans/quarantine.json:1:23: invalid JSON: unexpected '}'; expected a value"])
        XCTAssertEqual(problems("[]"), ["Plans/quarantine.json:1:1: expected an object, got an array"])
        XCTAssertEqual(problems("{\"tests\": {}}"), ["Plans/quarantine.json:1:11: tests: expected an array of entries, got an object"])
        XCTAssertTrue(problems("{}")[0].hasPrefix("Plans/quarantine.json:1:1: tests: missing required key 'tests'"))
        XCTAssertNoThrow(try load("{\"tests\": []}"), "an empty quarantine is valid")
    }

    func testControlCharactersAndHugeTextAreRefused() {
        let long = String(repeating: "x", count: 600)
        let p = problems(#"{"tests": [{"suite": "store-gate", "test": "A/b", "reason": "\#(long)", "owner": "a\u001B[31m", "expires": "2027-01-01"}]}"#)
        XCTAssertEqual(p.count, 2, p.joined(separator: "\n"))
        XCTAssertTrue(p[0].contains("reason: must be at most 500 characters"), p[0])
        XCTAssertTrue(p[1].contains("owner: must not contain control characters"), p[1])
    }

    func testUnreadableOrMissingFileIsAProblemNotATrap() throws {
        let dir = try TestPaths.temporaryDirectory()
        XCTAssertThrowsError(try QuarantineLoader.load(path: dir.appendingPathComponent("none.json").path, suites: nil)) { error in
            XCTAssertTrue("\(error)".contains("cannot read the file"), "\(error)")
        }
        XCTAssertThrowsError(try QuarantineLoader.load(path: dir.path, suites: nil)) { error in
            XCTAssertTrue("\(error)".contains("it is a directory"), "\(error)")
        }
    }

    func testALinkToAFIFOIsRefusedWithoutBlocking() throws {
        let dir = try TestPaths.temporaryDirectory()
        let fifo = dir.appendingPathComponent("q.fifo").path
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        let link = dir.appendingPathComponent("quarantine.json").path
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: fifo)
        final class Box: @unchecked Sendable { var message = "" }
        let box = Box(), done = DispatchSemaphore(value: 0)
        Thread {
            do { _ = try QuarantineLoader.load(path: link, suites: nil); box.message = "loaded" } catch { box.message = "\(error)" }
            done.signal()
        }.start()
        XCTAssertEqual(done.wait(timeout: .now() + 5), .success, "the loader blocked on a FIFO")
        XCTAssertEqual(box.message, "\(link): cannot read the file: not a regular file (it is a FIFO, or a link to one); give a regular file")
    }

    func testEntryForASuiteNotInThePlanIsAWarning() throws {
        let loaded = try load(#"{"tests": [{"suite": "nightly", "test": "A/b", "reason": "r", "owner": "o", "expires": "2027-01-01"}]}"#)
        XCTAssertEqual(loaded.quarantine.entries.count, 1)
        XCTAssertEqual(loaded.warnings, ["Plans/quarantine.json:1:22: tests[0].suite: no suite 'nightly' in the plan; the entry has no effect (plan suites: store-gate)"])
        XCTAssertEqual(try load(#"{"tests": [{"suite": "nightly", "test": "A/b", "reason": "r", "owner": "o", "expires": "2027-01-01"}]}"#, suites: nil).warnings, [])
    }

    func testDatesAreRealDays() {
        for good in ["2028-02-29", "2000-02-29", "2026-12-31", "9999-01-01"] { XCTAssertTrue(QuarantineLoader.isDate(good), good) }
        for bad in ["2026-02-29", "1900-02-29", "2026-13-01", "2026-00-10", "2026-04-31", "2026-4-01", "2026/04/01", "２０２６-01-01", "2026-01-01T00:00"] {
            XCTAssertFalse(QuarantineLoader.isDate(bad), bad)
        }
    }

    func testDefaultFileSitsBesideThePlan() {
        XCTAssertEqual(QuarantineLoader.defaultPath(forPlan: "Plans/x.json"), "Plans/quarantine.json")
        XCTAssertEqual(QuarantineLoader.defaultPath(forPlan: "x.json"), "quarantine.json")
        XCTAssertEqual(QuarantineLoader.defaultPath(forPlan: "/ci/plans/nightly.json"), "/ci/plans/quarantine.json")
    }

    func testFlakySuggestionRoundTripsThroughTheLoader() throws {
        let flaky = [
            FlakyTest(suite: "store-gate", test: "StoreTests/testFlaky", executions: 10, flakes: 3, withinRun: 2, acrossRuns: 1, rate: 0.3,
                      lastSeen: 1_796_000_000, hosts: ["mac-1"], firstSeenCommit: nil),
            FlakyTest(suite: "store-gate", test: "/eventuallyConsistent()", executions: 50, flakes: 2, withinRun: 2, acrossRuns: 0, rate: 0.04,
                      lastSeen: 1_796_000_000, hosts: ["mac-2"], firstSeenCommit: "abc"),
            FlakyTest(suite: "store-gate", test: "StoreTests/testRare", executions: 100, flakes: 1, withinRun: 1, acrossRuns: 0, rate: 0.01,
                      lastSeen: 1_796_000_000, hosts: ["mac-2"], firstSeenCommit: nil),
        ]
        let printed = QuarantineSuggestion.json(for: flaky, minimumRate: 0.02, now: today, owner: "@org/store")
        // As the whole value of "tests" …
        let whole = try load("{\"tests\": " + printed + "}").quarantine.entries
        XCTAssertEqual(whole.map(\.test), ["StoreTests/testFlaky", "/eventuallyConsistent()"])
        XCTAssertEqual(whole.map(\.expires), ["2026-12-15", "2026-12-15"], "two weeks out")
        XCTAssertEqual(whole.map(\.owner), ["@org/store", "@org/store"])
        // Without --owner the entries name nobody, and the loader says so until someone is named.
        let unowned = QuarantineSuggestion.json(for: flaky, minimumRate: 0.02, now: today)
        XCTAssertFalse(unowned.contains("TODO"), unowned)
        XCTAssertEqual(problems("{\"tests\": " + unowned + "}").count, 2)
        XCTAssertTrue(whole[0].reason.hasPrefix("flaky: 3 of 10 executions (30%)"), whole[0].reason)
        // … and its entries pasted into an existing list.
        let body = printed.split(separator: "\n").filter { $0.hasPrefix("    {") }.joined(separator: "\n")
        let merged = try load("{\"tests\": [\n  {\"suite\": \"store-gate\", \"test\": \"A/b\", \"reason\": \"r\", \"owner\": \"o\", \"expires\": \"2027-01-01\"},\n" + body + "\n]}")
        XCTAssertEqual(merged.quarantine.entries.count, 3)
        // Nothing to suggest: still valid.
        XCTAssertEqual(try load("{\"tests\": " + QuarantineSuggestion.json(for: [], minimumRate: 0.02, now: today) + "}").quarantine.entries, [])
    }

    func testMatchingIgnoresAMissingModuleButNotADifferentOne() {
        let plain = QuarantineEntry(suite: "s", test: "StoreTests/testFlaky", reason: "r", owner: "o", expires: "2027-01-01")
        let qualified = QuarantineEntry(suite: "s", test: "StoreTests.StoreTests/testFlaky()", reason: "r", owner: "o", expires: "2027-01-01")
        for id in [TestIdentifier(suite: "StoreTests", name: "testFlaky"), TestIdentifier(suite: "StoreTests.StoreTests", name: "testFlaky"),
                   TestIdentifier(suite: "StoreTests", name: "testFlaky()")] {
            XCTAssertTrue(plain.matches(id), "\(id)")
            XCTAssertTrue(qualified.matches(id), "\(id)")
        }
        XCTAssertTrue(plain.matches(TestIdentifier(suite: "OtherModule.StoreTests", name: "testFlaky")))
        XCTAssertFalse(qualified.matches(TestIdentifier(suite: "OtherModule.StoreTests", name: "testFlaky")))
        XCTAssertFalse(plain.matches(TestIdentifier(suite: "StoreTests", name: "testFlakyToo")))
        XCTAssertFalse(plain.matches(TestIdentifier(suite: "StoreTestsX", name: "testFlaky")))
    }

    // MARK: Verdict

    private static let suite = "store-gate"
    private static let expected = ["StoreTests/testPut", "StoreTests/testFlaky", "StoreTests/testZap"]

    private func entry(_ test: String, suite: String = QuarantineTests.suite) -> QuarantineEntry {
        QuarantineEntry(suite: suite, test: test, reason: "races the <disk> cache | *shared* @ana", owner: "ana", expires: "2027-01-31", line: 3)
    }

    /// Linux XCTest output in the shape `swift test` prints (see scripts/fake-swift.sh); `fail` lists failing tests.
    private func linuxLog(_ tests: [String] = ["testPut", "testFlaky", "testZap"], fail: Set<String>, executedClaim: Int? = nil) -> String {
        var s = "Test Suite 'All tests' started at 2026-12-01 10:00:00.000\nTest Suite 'debug.xctest' started at 2026-12-01 10:00:00.000\n"
        s += "Test Suite 'StoreTests' started at 2026-12-01 10:00:00.000\n"
        for t in tests {
            s += "Test Case 'StoreTests.\(t)' started at 2026-12-01 10:00:00.001\n"
            if fail.contains(t) {
                s += "/src/Tests/StoreTests.swift:12: error: StoreTests.\(t) : XCTAssertTrue failed - \(t) broke\n"
                s += "Test Case 'StoreTests.\(t)' failed (0.002 seconds)\n"
            } else {
                s += "Test Case 'StoreTests.\(t)' passed (0.001 seconds)\n"
            }
        }
        let word = fail.isEmpty ? "passed" : "failed"
        for name in ["debug.xctest", "All tests"] {
            s += "Test Suite '\(name)' \(word) at 2026-12-01 10:00:00.010\n"
            s += "\t Executed \(executedClaim ?? tests.count) tests, with \(fail.count) failure\(fail.count == 1 ? "" : "s") (0 unexpected) in 0.005 (0.005) seconds\n"
        }
        return s
    }

    /// One gate suite with one job; each log is one attempt ending with `exit`.
    private func collate(_ attempts: [(log: String, exit: CommandTermination)], quarantine: [QuarantineEntry]?,
                         expected: [String] = QuarantineTests.expected, allowFlaky: Bool = false) -> (RunReport, [RunEvent]) {
        var spec = SuiteSpec(name: Self.suite, template: "cache-contract")
        spec.allowFlaky = allowFlaky
        var bodies: [RunEvent.Body] = [
            .runStarted(RunStarted(runID: "q", planName: "plan", planPath: "Plans/plan.json", startedAt: "2026-12-01T10:00:00Z",
                                   xcfleetVersion: "test", suites: [spec], hosts: ["mac-1"])),
        ]
        if let quarantine { bodies.append(.quarantine(quarantine)) }
        bodies.append(.jobPlanned(JobPlanned(jobID: "store-gate", suite: Self.suite, kind: .gate, expectedTests: expected)))
        for (i, a) in attempts.enumerated() {
            let ref = AttemptRef(jobID: "store-gate", attempt: i + 1)
            bodies.append(.attemptStarted(ref, host: "mac-1", slot: 0))
            bodies += OutputParser.parse(Data(a.log.utf8)).map { .test(ref, event: $0) }
            bodies.append(.attemptEnded(ref, AttemptEnded(termination: a.exit)))
        }
        bodies.append(.runFinished(interrupted: false))
        let events = bodies.enumerated().map { RunEvent(seq: $0.offset + 1, t: Double($0.offset), body: $0.element) }
        return (Collator().collate(events), events)
    }

    func testQuarantinedFailureKeepsTheGateGreenAndWithoutQuarantineItIsRed() {
        let log = linuxLog(fail: ["testFlaky"])
        let (red, _) = collate([(log, .exited(1))], quarantine: nil)
        XCTAssertEqual(red.exitCode, 1, "the failure path: the same log without quarantine is red")
        XCTAssertNil(red.quarantine)

        let (green, _) = collate([(log, .exited(1))], quarantine: [entry("StoreTests/testFlaky")])
        XCTAssertEqual(green.exitCode, 0, green.verdictLine + " " + green.suites[0].reasons.joined(separator: "; "))
        XCTAssertEqual(green.suites[0].jobs[0].finalState, .passed)
        let flaky = green.suites[0].jobs[0].decisive?.tests.first { $0.id.name == "testFlaky" }
        XCTAssertEqual(flaky?.status, .failed, "still reported as failed")
        XCTAssertEqual(flaky?.quarantined, true)
        XCTAssertNil(green.suites[0].jobs[0].decisive?.tests.first { $0.id.name == "testPut" }?.quarantined)
        XCTAssertEqual(green.quarantine?.tests.map(\.outcome), [.failed])
        XCTAssertEqual(green.quarantine?.summaryLine, "quarantined: 1 test ran, 1 failed (StoreTests/testFlaky: ana, expires 2027-01-31)")
    }

    func testAQuarantinedAndANonQuarantinedFailureIsRedNamingOnlyTheOther() {
        let (r, _) = collate([(linuxLog(fail: ["testFlaky", "testZap"]), .exited(1))], quarantine: [entry("StoreTests/testFlaky")])
        XCTAssertEqual(r.exitCode, 1)
        let problems = r.suites[0].jobs[0].decisive?.problems ?? []
        XCTAssertTrue(problems.contains("1 test failed: StoreTests/testZap"), "\(problems)")
        XCTAssertTrue(problems.contains("test process exited with status 1"), "the exit status is not put down to the quarantine: \(problems)")
    }

    func testOtherExitStatusesAndSignalsStayRed() {
        let log = linuxLog(fail: ["testFlaky"])
        for exit in [CommandTermination.exited(2), .signaled("SIGSEGV"), .exited(139)] {
            let (r, _) = collate([(log, exit)], quarantine: [entry("StoreTests/testFlaky")])
            XCTAssertEqual(r.exitCode, 1, "\(exit): \(r.verdictLine)")
        }
    }

    func testACrashStaysRedEvenInAQuarantinedTest() {
        let log = """
        Test Suite 'All tests' started at 2026-12-01 10:00:00.000
        Test Suite 'StoreTests' started at 2026-12-01 10:00:00.000
        Test Case 'StoreTests.testPut' started at 2026-12-01 10:00:00.001
        Test Case 'StoreTests.testPut' passed (0.001 seconds)
        Test Case 'StoreTests.testFlaky' started at 2026-12-01 10:00:00.002
        Tests/StoreTests.swift:41: Fatal error: Unexpectedly found nil while unwrapping an Optional value
        error: Exited with unexpected signal code 4
        """
        let (r, _) = collate([(log, .exited(1))], quarantine: [entry("StoreTests/testFlaky")])
        XCTAssertEqual(r.exitCode, 1, r.verdictLine)
        let problems = r.suites[0].jobs[0].decisive?.problems ?? []
        XCTAssertTrue(problems.contains { $0.hasPrefix("test process crashed") }, "\(problems)")
        XCTAssertTrue(problems.contains { $0.contains("not seen passing: StoreTests/testZap") }, "the crash stopped testZap: \(problems)")
    }

    func testMissingTestsAndRunnerTotalsStayStrict() {
        // The runner claims 5 tests; xcfleet saw 3: not proven, quarantine or not.
        let (totals, _) = collate([(linuxLog(fail: ["testFlaky"], executedClaim: 5), .exited(1))], quarantine: [entry("StoreTests/testFlaky")])
        XCTAssertEqual(totals.exitCode, 1)
        XCTAssertTrue(totals.suites[0].reasons.contains { $0.contains("not proven: the runner reports 5 tests") }, "\(totals.suites[0].reasons)")
        // A quarantined test that never ran is still missing.
        let (missing, _) = collate([(linuxLog(["testPut", "testZap"], fail: []), .exited(0))], quarantine: [entry("StoreTests/testFlaky")])
        XCTAssertEqual(missing.exitCode, 1)
        XCTAssertEqual(missing.quarantine?.tests.map(\.outcome), [.notSeen])
        XCTAssertEqual(missing.quarantine?.summaryLine, "quarantined: 0 tests ran, 0 failed, 1 not seen")
    }

    func testXcodebuildFailureSignalsAreForgivenOnlyWhenEveryFailureIsQuarantined() throws {
        let log = try String(contentsOf: Self.fixtures.appendingPathComponent("xcodebuild_quarantined_failure.txt"), encoding: .utf8)
        let (red, _) = collate([(log, .exited(65))], quarantine: nil)
        XCTAssertEqual(red.exitCode, 1)
        XCTAssertTrue(red.suites[0].reasons.contains { $0.contains("xcodebuild reports failure: ** TEST FAILED **") }, "\(red.suites[0].reasons)")

        let (green, _) = collate([(log, .exited(65))], quarantine: [entry("StoreTests.StoreTests/testFlaky")])
        XCTAssertEqual(green.exitCode, 0, "\(green.suites[0].reasons)")

        // The runner's `Failing tests:` block names a test that is not quarantined (and xcfleet never saw fail).
        let other = log.replacingOccurrences(of: "\tStoreTests.testFlaky()\n", with: "\tStoreTests.testFlaky()\n\tStoreTests.testZap()\n")
        let (mixed, _) = collate([(other, .exited(65))], quarantine: [entry("StoreTests/testFlaky")])
        XCTAssertEqual(mixed.exitCode, 1)
        let reasons = mixed.suites[0].reasons.joined(separator: "\n")
        XCTAssertTrue(reasons.contains("xcodebuild lists 1 failing test xcfleet did not see fail: StoreTests/testZap"), reasons)
        XCTAssertTrue(reasons.contains("** TEST FAILED **"), reasons)
    }

    func testQuarantinedTestFailingInEveryRetryOrPassingOnRetryIsNotRedOrFlaky() {
        let failing = linuxLog(fail: ["testFlaky"]), passing = linuxLog(fail: [])
        let q = [entry("StoreTests/testFlaky")]
        let (everyRetry, _) = collate([(failing, .exited(1)), (failing, .exited(1))], quarantine: q)
        XCTAssertEqual(everyRetry.exitCode, 0, "\(everyRetry.suites[0].reasons)")
        XCTAssertEqual(everyRetry.suites[0].jobs[0].finalState, .passed)
        XCTAssertEqual(everyRetry.quarantine?.tests.first?.failed, 2)

        let (recovered, _) = collate([(failing, .exited(1)), (passing, .exited(0))], quarantine: q)
        XCTAssertEqual(recovered.exitCode, 0, "\(recovered.suites[0].reasons)")
        XCTAssertEqual(recovered.quarantine?.tests.first?.outcome, .flaky)
        // Without the quarantine the same attempts are flaky, which this plan does not allow.
        XCTAssertEqual(collate([(failing, .exited(1)), (passing, .exited(0))], quarantine: nil).0.exitCode, 1)
    }

    func testQuarantineEventRebuildsTheSameReportAndOldEventsStillRead() throws {
        let (report, events) = collate([(linuxLog(fail: ["testFlaky"]), .exited(1))], quarantine: [entry("StoreTests/testFlaky"), entry("Gone/testGone")])
        let encoded = try events.map { try JSONEncoder().encode($0) }
        let decoded = try encoded.map { try JSONDecoder().decode(RunEvent.self, from: $0) }
        XCTAssertEqual(Collator().collate(decoded), report)
        XCTAssertEqual(report.quarantine?.tests.map(\.outcome), [.failed, .notSeen])

        let (plain, _) = collate([(linuxLog(fail: []), .exited(0))], quarantine: nil)
        let json = String(decoding: try JSONReportRenderer().render(plain), as: UTF8.self)
        XCTAssertFalse(json.contains("\"quarantine\""), "a run without quarantine writes report.json as before")
    }

    // MARK: Reports

    private func quarantinedReport() -> RunReport {
        var e = entry("StoreTests/testFlaky")
        e.reason = "races <script>alert(1)</script> & | *disk* @ana"
        return collate([(linuxLog(fail: ["testFlaky"]), .exited(1))],
                       quarantine: [e, entry("StoreTests/testZap"), entry("Gone/testGone")]).0
    }

    func testJSONMarksQuarantinedTestsAndHasAQuarantineSection() throws {
        let data = try JSONReportRenderer().render(quarantinedReport())
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: data) as? [String: Any])
        let q = try XCTUnwrap(object["quarantine"] as? [String: Any])
        let tests = try XCTUnwrap(q["tests"] as? [[String: Any]])
        XCTAssertEqual(tests.map { $0["outcome"] as? String }, ["failed", "passed", "not seen"])
        let text = String(decoding: data, as: UTF8.self)
        XCTAssertTrue(text.contains("\"quarantined\":true") || text.contains("\"quarantined\" : true"), "per test")
    }

    func testMarkdownListsQuarantinedTestsApartFromFailures() {
        let md = MarkdownSummaryRenderer().markdown(quarantinedReport())
        XCTAssertTrue(md.contains("### Quarantined (3)"), md)
        XCTAssertFalse(md.contains("### Failures"), "a quarantined failure is not listed as a failure:\n\(md)")
        XCTAssertTrue(md.contains("| store-gate | StoreTests/testFlaky | failed (1 of 1 executions): /src/Tests/StoreTests.swift:12: XCTAssertTrue failed"), md)
        XCTAssertTrue(md.contains("| Gone/testGone | not seen |"), md)
        XCTAssertTrue(md.contains("&lt;script&gt;"), "escaped")
        XCTAssertFalse(md.contains("<script>"), md)
        XCTAssertTrue(md.contains("\\| \\*disk\\*"), "table and emphasis characters escaped")
    }

    func testHTMLHasItsOwnEscapedSectionAndMarksTheRow() {
        let html = HTMLReportRenderer().html(quarantinedReport())
        XCTAssertTrue(html.contains("<section id=\"quarantine\""), "section")
        XCTAssertTrue(html.contains("<a href=\"#quarantine\">Quarantine</a>"), "toc")
        XCTAssertTrue(html.contains("<tr class=\"quarantined\"><td><span class=\"pill quarantined\">quarantined failure</span>"), "the row in the gate's table")
        XCTAssertTrue(html.contains("quarantined: 2 tests ran, 1 failed"), "summary")
        XCTAssertTrue(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"))
        XCTAssertFalse(html.contains("<script>"), "nothing from the file reaches the page unescaped")
        XCTAssertFalse(HTMLReportRenderer().html(collate([(linuxLog(fail: []), .exited(0))], quarantine: nil).0).contains("id=\"quarantine\""))
    }

    func testJUnitShowsAQuarantinedFailureAsSkippedWithItsReasonAndValidates() throws {
        let xml = JUnitReportRenderer().xml(quarantinedReport())
        XCTAssertTrue(xml.contains(#"<skipped message="quarantined: races &lt;script&gt;alert(1)&lt;/script&gt; &amp; | *disk* @ana (owner ana, expires 2027-01-31) — failed: XCTAssertTrue failed - testFlaky broke" type="quarantined">"#), xml)
        XCTAssertTrue(xml.contains(#"failures="0""#) && !xml.contains("<failure"), "no failure element, no failure count")
        XCTAssertTrue(xml.contains(#"skipped="1""#), xml)
        XCTAssertTrue(xml.contains("<system-out>quarantined: races the &lt;disk&gt; cache | *shared* @ana (owner ana, expires 2027-01-31) — passed</system-out>"), xml)
        XCTAssertTrue(xml.contains(#"<property name="quarantine.not-seen" value="Gone/testGone: "#), xml)

        guard let xmllint = ReportingTestSupport.which("xmllint") else { throw XCTSkip("xmllint not found: apt-get install libxml2-utils") }
        let url = try ReportingTestSupport.tempDir("quarantine-junit").appendingPathComponent("junit.xml")
        try Data(xml.utf8).write(to: url)
        let xsd = ReportingTestSupport.sharedDir.appendingPathComponent("fixtures/junit/junit-10.xsd")
        XCTAssertEqual(try ReportingTestSupport.run(xmllint, ["--noout", url.path]).status, 0)
        guard FileManager.default.fileExists(atPath: xsd.path) else { throw XCTSkip("junit-10.xsd not found at \(xsd.path) (../shared is absent): only well-formedness was checked") }
        let v = try ReportingTestSupport.run(xmllint, ["--noout", "--schema", xsd.path, url.path])
        XCTAssertEqual(v.status, 0, v.stderr)
    }

    func testGitHubAnnotationOfAQuarantinedFailureIsAWarning() {
        let lines = GitHubAnnotations.lines(quarantinedReport())
        XCTAssertTrue(lines.contains { $0.hasPrefix("::warning") && $0.contains("Quarantined") }, lines.joined(separator: "\n"))
        XCTAssertFalse(lines.contains { $0.hasPrefix("::error") }, lines.joined(separator: "\n"))
    }

    func testSwiftTestingDisplayNamesWithSpacesCanBeQuarantined() throws {
        let log = try Data(contentsOf: ReportingTestSupport.fixturesDir.appendingPathComponent("logs/swift_testing_linux.txt"))
        let events = OutputParser.parse(log)
        XCTAssertEqual(LogParse.report(events: events, name: "log").exitCode, 1)
        let both = try load(#"{"tests": [{"suite": "log", "test": "/overwrite()", "reason": "r", "owner": "o", "expires": "2027-01-01"}, {"suite": "log", "test": "/Loader miss path", "reason": "r", "owner": "o", "expires": "2027-01-01"}]}"#, suites: ["log"]).quarantine
        XCTAssertEqual(LogParse.report(events: events, name: "log", quarantine: both).exitCode, 0)
        let one = Quarantine(entries: Array(both.entries.prefix(1)))
        let red = LogParse.report(events: events, name: "log", quarantine: one)
        XCTAssertEqual(red.exitCode, 1)
        XCTAssertTrue(red.suites[0].reasons.contains { $0.contains("1 test failed: Loader miss path") }, "\(red.suites[0].reasons)")
    }

    func testAQuarantinedTestThatFailedThenPassedWithinTheAttemptForgivesTheExitStatus() {
        // The first testFlaky fails, the second passes (linuxLog fails every execution of a failing name: rewrite the second).
        var lines = linuxLog(["testPut", "testFlaky", "testFlaky", "testZap"], fail: ["testFlaky"]).components(separatedBy: "\n")
        if let i = lines.lastIndex(of: "Test Case 'StoreTests.testFlaky' failed (0.002 seconds)") {
            lines[i] = "Test Case 'StoreTests.testFlaky' passed (0.001 seconds)"
            lines.remove(at: i - 1)
        }
        let text = lines.joined(separator: "\n")
        XCTAssertEqual(collate([(text, .exited(1))], quarantine: nil).0.exitCode, 1)
        let (r, _) = collate([(text, .exited(1))], quarantine: [entry("StoreTests/testFlaky")])
        XCTAssertEqual(r.exitCode, 0, "\(r.suites[0].reasons)")
        XCTAssertEqual(r.quarantine?.tests.first?.outcome, .flaky)
    }

    func testParseAcceptsAQuarantine() {
        let events = OutputParser.parse(Data(linuxLog(fail: ["testFlaky"]).utf8))
        XCTAssertEqual(LogParse.report(events: events, name: "log").exitCode, 1)
        let q = Quarantine(entries: [entry("StoreTests/testFlaky", suite: "log")])
        XCTAssertEqual(LogParse.report(events: events, name: "log", quarantine: q).exitCode, 0)
    }
}
