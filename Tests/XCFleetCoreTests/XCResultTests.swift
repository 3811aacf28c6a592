import Foundation
import XCTest
@testable import XCFleetBasics
@testable import XCFleetModel
@testable import XCFleetCore
import XCFleetTestSupport

/// xcresulttool commands, both JSON shapes (hand-written samples in Fixtures/xcode, written from
/// Apple's documented shapes: not recorded on a Mac), and reconciliation with streamed events.
final class XCResultTests: XCTestCase {
    let bundle = "/Users/ci/xcfleet/jobs/j/result.xcresult"
    let dev = "/Applications/Xcode-16.4.app/Contents/Developer"

    func testGoldenCommands() {
        XCTAssertEqual(XcodeCommandLine.render(XCResultParser.testResultsCommand(bundle: bundle, developerDir: dev)),
                       "DEVELOPER_DIR=\(dev) xcrun xcresulttool get test-results tests --path \(bundle)")
        XCTAssertEqual(XcodeCommandLine.render(XCResultParser.legacyCommand(bundle: bundle, developerDir: dev, xcode16OrLater: true)),
                       "DEVELOPER_DIR=\(dev) xcrun xcresulttool get --legacy --format json --path \(bundle)")
        XCTAssertEqual(XcodeCommandLine.render(XCResultParser.legacyCommand(bundle: bundle, id: "0~abc", developerDir: nil, xcode16OrLater: false)),
                       "xcrun xcresulttool get --format json --path \(bundle) --id '0~abc'")
        XCTAssertEqual(XcodeCommandLine.render(XCResultParser.testResultsCommand(bundle: "/Users/ci/my jobs/r.xcresult", developerDir: nil)),
                       "xcrun xcresulttool get test-results tests --path '/Users/ci/my jobs/r.xcresult'")
        XCTAssertTrue(XCResultParser.hasTestResultsCommand(XcodeVersion(version: "16.0")))
        XCTAssertTrue(XCResultParser.hasTestResultsCommand(XcodeVersion(version: "26.0")))
        XCTAssertFalse(XCResultParser.hasTestResultsCommand(XcodeVersion(version: "15.4")))
        XCTAssertTrue(XCResultParser.hasTestResultsCommand(nil))
    }

    func testParsesXcode16TestResults() throws {
        let results = try XCResultParser.parseTestResults(XcodeFixtures.data("xcresult-test-results.json"))
        XCTAssertEqual(results.map(\.id.description), [
            "CacheContractTests.MemoryKeyTests/testC1_sameResourceOtherAccountMisses",
            "CacheContractTests.MemoryKeyTests/testC1_revisionChangeNeverReturnsOldValue",
            "CacheContractTests.DictionaryCacheTests/testC10_doubleNeverEvicts",
            "CacheContractTests.DictionaryCacheTests/testC10_seededDoubleHitsWithoutAStore",
            "CacheContractTests.KeySuite/keyEquality",
        ])
        XCTAssertEqual(results.map(\.status), [.passed, .failed, .passed, .skipped, .passed])
        XCTAssertEqual(results[0].seconds, 0.0031)
        XCTAssertEqual(results[1].seconds ?? 0, 0.12, accuracy: 1e-9)   // "0,12s": decimal comma
        XCTAssertEqual(results[1].failures, [
            FailureDetail(file: "MemoryKeyTests.swift", line: 41, message: "XCTAssertEqual failed: (\"Optional(1)\") is not equal to (\"nil\")"),
            FailureDetail(file: "MemoryKeyTests.swift", line: 44, message: "XCTAssertNil failed: \"stale\""),
        ])
        XCTAssertEqual(results[3].skipReason, "needs a Mac with 16 GB")
        XCTAssertEqual(results[1].contractIDs, ["C1"])
    }

    func testParsesLegacyShape() throws {
        let invocation = try XcodeFixtures.data("xcresult-legacy-invocation.json")
        XCTAssertEqual(try XCResultParser.legacyTestsRef(invocation), "0~Qw3rTy7uIoP1aSdFgHjKl2ZxCvBnM4qWeRtYuIoPaSdFgHjKlZxCvBnMqWeRtYu9")
        let results = try XCResultParser.parseLegacy(invocation: invocation, tests: XcodeFixtures.data("xcresult-legacy-tests.json"))
        XCTAssertEqual(results.map(\.id.description), [
            "CacheContractTests.MemoryKeyTests/testC1_sameResourceOtherAccountMisses",
            "CacheContractTests.MemoryKeyTests/testC1_revisionChangeNeverReturnsOldValue",
            "CacheContractTests.DictionaryCacheTests/testC10_doubleNeverEvicts",
            "CacheContractTests.DictionaryCacheTests/testC10_seededDoubleHitsWithoutAStore",
        ])
        XCTAssertEqual(results.map(\.status), [.passed, .failed, .passed, .skipped])
        XCTAssertEqual(results[1].seconds, 0.12)
        // StartingLineNumber=40 in the URL is 0-based: line 41.
        XCTAssertEqual(results[1].failures, [FailureDetail(file: "/Users/ci/xcfleet/jobs/cache-contract-1a2b/Tests/CacheContractTests/MemoryKeyTests.swift",
                                                           line: 41, message: "XCTAssertEqual failed: (\"Optional(1)\") is not equal to (\"nil\")")])
        // Both shapes agree on what the same run did.
        let modern = try XCResultParser.parseTestResults(XcodeFixtures.data("xcresult-test-results.json"))
        XCTAssertEqual(results.map(\.status), Array(modern.prefix(4)).map(\.status))
        XCTAssertEqual(results.map(\.id), Array(modern.prefix(4)).map(\.id))
    }

    func testMalformedBundlesThrowNotTrap() throws {
        for text in ["", "[]", "{}", "{\"testNodes\": 3}", "nul"] {
            XCTAssertThrowsError(try XCResultParser.parseTestResults(Data(text.utf8)), text)
        }
        XCTAssertThrowsError(try XCResultParser.parseLegacy(invocation: Data("[]".utf8), tests: Data("{}".utf8)))
        XCTAssertNil(try XCResultParser.legacyTestsRef(Data("{\"actions\":{\"_values\":[{}]}}".utf8)))
        // Odd but valid documents: no tests, unknown node types, missing fields, a deep tree.
        XCTAssertEqual(try XCResultParser.parseTestResults(Data("{\"testNodes\":[]}".utf8)), [])
        let odd = #"{"testNodes":[{"nodeType":"Future Node","children":[{"nodeType":"Test Case","name":"lonely()","result":"Mystery"}]}]}"#
        let r = try XCResultParser.parseTestResults(Data(odd.utf8))
        XCTAssertEqual(r.map(\.status), [.failed])   // unknown result: not proven green
        XCTAssertEqual(r.first?.failures.first?.message, "result bundle: result Mystery")
        var deep = #"{"nodeType":"Test Case","name":"t()","result":"Passed"}"#
        for _ in 0..<100 { deep = #"{"nodeType":"Test Suite","name":"S","children":[\#(deep)]}"# }
        XCTAssertEqual(try XCResultParser.parseTestResults(Data(#"{"testNodes":[\#(deep)]}"#.utf8)), [])
    }

    func testDurationsAndFailureText() {
        XCTAssertEqual(XCResultParser.seconds(["duration": "1m 3s"]), 63)
        XCTAssertEqual(XCResultParser.seconds(["duration": "12ms"]) ?? 0, 0.012, accuracy: 1e-12)
        XCTAssertNil(XCResultParser.seconds(["duration": "soon"]))
        XCTAssertNil(XCResultParser.seconds(["duration": "infs"]))
        XCTAssertEqual(XCResultParser.failureDetail("no location here"), FailureDetail(message: "no location here"))
        XCTAssertEqual(XCResultParser.failureDetail("A.swift:x: y"), FailureDetail(message: "A.swift:x: y"))
        XCTAssertEqual(XCResultParser.location("file:///a/My%20File.swift#StartingLineNumber=0").0, "/a/My File.swift")
        XCTAssertEqual(XCResultParser.location("file:///a/b.swift#StartingLineNumber=99999999999999999999999").1, nil)
    }

    // MARK: Reconciliation

    func id(_ s: String, _ n: String) -> TestIdentifier { TestIdentifier(suite: s, name: n) }

    func testAgreementAddsNothing() {
        let streamed: [TestEvent] = [
            .testStarted(id("CacheContractTests.A", "testX"), framework: .xctest),
            .testFinished(id("CacheContractTests.A", "testX"), status: .passed, seconds: 0.1, framework: .xctest, clone: nil),
        ]
        let bundle: [TestEvent] = [.testFinished(id("CacheContractTests.A", "testX"), status: .passed, seconds: 0.2, framework: .xctest, clone: nil)]
        let r = XCResultReconciler.reconcile(streamed: streamed, bundle: bundle)
        XCTAssertEqual(r.events, streamed)
        XCTAssertEqual(r.disagreements, [])
    }

    /// Two witnesses agree or the attempt is red. The streamed results stand
    /// (each execution counted once); every difference is an event the verdict turns into a reason.
    func testEveryDisagreementIsListedAndMakesTheAttemptRed() {
        let a = id("CacheContractTests.A", "testFlipped"), b = id("A", "testOnlyInBundle()"), c = id("CacheContractTests.A", "testOnlyInStream")
        let streamed: [TestEvent] = [
            .testFinished(a, status: .passed, seconds: 0.1, framework: .xctest, clone: nil),
            .testFinished(c, status: .passed, seconds: 0.1, framework: .xctest, clone: nil),
        ]
        let bundle = XCResultParser.events([
            TestResult(id: id("CacheContractTests.A", "testFlipped"), status: .failed, seconds: 0.1, failures: [FailureDetail(file: "A.swift", line: 3, message: "boom")]),
            TestResult(id: b, status: .skipped, skipReason: "later"),
        ])
        let r = XCResultReconciler.reconcile(streamed: streamed, bundle: bundle)
        let notes = [
            "A/testFlipped: the output said passed, the result bundle says failed",
            "A/testOnlyInBundle: skipped in the result bundle, missing from the output",
            "A/testOnlyInStream: passed in the output, missing from the result bundle",
        ]
        XCTAssertEqual(Array(r.events.prefix(2)), streamed, "streamed events are kept as they were")
        XCTAssertEqual(Array(r.events.dropFirst(2)), [
            .testSkipped(b, reason: "later"),
            .testFinished(b, status: .skipped, seconds: nil, framework: .xctest, clone: nil),
        ] + notes.map { .witnessDisagreement($0) })
        XCTAssertEqual(r.disagreements, notes)
        // Folded like the runner does: the output's results stand and the attempt is red.
        let report = Collator.attemptReport(events: r.events, ended: AttemptEnded(termination: .exited(0)), host: "mac-1", slot: 0, number: 1)
        XCTAssertEqual(report.tests.first { $0.id == a }?.status, .passed)
        XCTAssertEqual(report.tests.count, 3)
        let problems = Verdict.problems(of: report, expected: [])
        XCTAssertEqual(problems.filter { $0.hasPrefix("the output and the result bundle disagree: ") }.count, 3, "\(problems)")
        // Without the disagreement events the same results would be green.
        let alone = Collator.attemptReport(events: streamed, ended: AttemptEnded(termination: .exited(0)), host: "mac-1", slot: 0, number: 1)
        XCTAssertEqual(Verdict.problems(of: alone, expected: []), [])
    }

    func testDisagreementOnOutcomeOnly() {
        let a = id("M.A", "testX")
        let streamed: [TestEvent] = [
            .testFailure(a, file: "A.swift", line: 3, message: "boom"),
            .testFinished(a, status: .failed, seconds: 0.1, framework: .xctest, clone: nil),
        ]
        // The stream said failed, the bundle says passed.
        let bundle: [TestEvent] = [.testFailure(a, file: "A.swift", line: 3, message: "boom"), .testFinished(a, status: .passed, seconds: nil, framework: .xctest, clone: nil)]
        let r = XCResultReconciler.reconcile(streamed: streamed, bundle: bundle)
        XCTAssertEqual(Array(r.events.dropFirst(2)), [.witnessDisagreement("A/testX: the output said failed, the result bundle says passed")])
        XCTAssertEqual(r.disagreements.count, 1)
    }

    func testEmptyBundleIsADisagreement() {
        let streamed: [TestEvent] = [.testFinished(id("A", "t"), status: .passed, seconds: nil, framework: .xctest, clone: nil)]
        let r = XCResultReconciler.reconcile(streamed: streamed, bundle: [])
        XCTAssertEqual(r.disagreements, ["the result bundle lists no tests, the output showed 1"])
        XCTAssertEqual(r.events, streamed + [.witnessDisagreement("the result bundle lists no tests, the output showed 1")])
    }

    /// A test the output saw crash is "failed in the output", like the Collator counts it: a bundle
    /// that says failed agrees.
    func testCrashedTestAgreesWithAFailedBundleEntry() {
        let a = id("M.A", "testCrash")
        let streamed: [TestEvent] = [.testStarted(a, framework: .xctest), .crash(message: "Fatal error: boom")]
        let bundle = XCResultParser.events([TestResult(id: a, status: .failed, failures: [FailureDetail(message: "crashed")])])
        XCTAssertEqual(XCResultReconciler.reconcile(streamed: streamed, bundle: bundle).disagreements, [])
    }

    /// The real recorded xcodebuild logs through the parser, reconciled with a bundle that agrees
    /// except for one test: exactly that one is reported, and the attempt is red for it.
    func testReconcilesRealRecordedLogs() throws {
        for name in ["TestLog.txt", "ParallelTestLog.txt"] {
            let url = try ParserFixtures.sharedLogs().appendingPathComponent(name)
            let streamed = OutputParser.parse(try Data(contentsOf: url))
            let report = Collator.attemptReport(events: streamed, ended: AttemptEnded(), host: "h", slot: 0, number: 1)
            XCTAssertGreaterThan(report.tests.count, 10, name)
            var results = report.tests
            guard let flip = results.firstIndex(where: { $0.status == .passed }) else { return XCTFail(name) }
            results[flip].status = .failed
            results[flip].failures = [FailureDetail(message: "bundle says so")]
            let r = XCResultReconciler.reconcile(streamed: streamed, bundle: XCResultParser.events(results))
            XCTAssertEqual(r.disagreements.count, 1, "\(name): \(r.disagreements.prefix(3))")
            XCTAssertTrue(r.disagreements.first?.contains("the output said passed, the result bundle says failed") == true)
            let after = Collator.attemptReport(events: r.events, ended: AttemptEnded(), host: "h", slot: 0, number: 1)
            XCTAssertEqual(after.tests.count, report.tests.count, "\(name): no execution added")
            XCTAssertEqual(Verdict.problems(of: after, expected: []).filter { $0.hasPrefix("the output and the result bundle disagree") }.count, 1, name)
        }
    }
}
