import Foundation
import XCTest
@testable import XCFleetBasics
@testable import XCFleetModel
@testable import XCFleetCore
import XCFleetTestSupport

/// The parser over the repository's own fixtures (one per format), chunking and robustness.
/// The recorded logs from `../shared` are in `OutputParserTests+RecordedLogs.swift`.
final class OutputParserTests: XCTestCase {

    private func assertEvents(_ fixture: String, _ expected: [String], file: StaticString = #filePath, line: UInt = #line) throws {
        let events = OutputParser.parse(try ParserFixtures.repoLog(fixture)).map(compact)
        XCTAssertEqual(events.count, expected.count, "\(fixture): event count", file: file, line: line)
        for (i, pair) in zip(events, expected).enumerated() where pair.0 != pair.1 {
            XCTFail("\(fixture) event \(i):\n  got      \(pair.0)\n  expected \(pair.1)", file: file, line: line)
        }
    }

    // MARK: - Formats

    func testAppleXCTest() throws {
        let path = "/Users/ci/work/Cache/Tests/CacheTests/StoreTests.swift"
        try assertEvents("apple_xctest.txt", [
            "suite+ All tests",
            "suite+ CacheTests.xctest",
            "suite+ StoreTests",
            "start xctest CacheTests.StoreTests|testC1_missReturnsNil",
            "end xctest CacheTests.StoreTests|testC1_missReturnsNil passed 0.002s",
            "start xctest CacheTests.StoreTests|testC4_overwrite",
            "fail CacheTests.StoreTests|testC4_overwrite \(path):42 XCTAssertEqual failed: (\"1\") is not equal to (\"2\") - overwrite keeps the first value",
            "end xctest CacheTests.StoreTests|testC4_overwrite failed 0.01s",
            "start xctest CacheTests.StoreTests|testK2_skipOnMac",
            "skip CacheTests.StoreTests|testK2_skipOnMac needs a simulator",
            "end xctest CacheTests.StoreTests|testK2_skipOnMac skipped 0.001s",
            "start xctest CacheTests.StoreTests|testThrows",
            "fail CacheTests.StoreTests|testThrows <unknown>:0 failed: caught error: \"boom\"",
            "end xctest CacheTests.StoreTests|testThrows failed 0.0s",
            "crash Restarting after unexpected exit, crash, or test timeout in StoreTests.testCrash(); summary will include totals from previous launches.",
            "suite- StoreTests failed",
            "xctest-summary 4/1/2/1 0.013s",
            "suite- CacheTests.xctest failed",
            "xctest-summary 4/1/2/1 0.013s",
            "suite- All tests failed",
            "xctest-summary 4/1/2/1 0.013s",
            "suite- Selected tests passed",
            "xctest-summary 1/0/0/0 0.001s",
        ])
    }

    /// Real output of `swift test` on this Linux machine (Swift 6.3.1): XCTest pass, failure,
    /// XCTSkip, thrown error; Swift Testing pass, issue, disabled, display name, known issue,
    /// parameterised test.
    func testLinuxSwiftTestOutput() throws {
        try assertEvents("linux_swift_test_6_3.txt", [
            "suite+ All tests",
            "suite+ debug.xctest",
            "suite+ SampleTests",
            "start xctest SampleTests|testFail",
            "fail SampleTests|testFail /src/Sample/Tests/LibTests/LibTests.swift:6 XCTAssertEqual failed: (\"1\") is not equal to (\"2\") - x is one",
            "end xctest SampleTests|testFail failed 0.001s",
            "start xctest SampleTests|testPass",
            "end xctest SampleTests|testPass passed 0.003s",
            "start xctest SampleTests|testSkip",
            "skip SampleTests|testSkip not on Linux",
            "end xctest SampleTests|testSkip skipped 0.0s",
            "start xctest SampleTests|testThrow",
            "fail SampleTests|testThrow <EXPR>:0 threw error \"E()\"",
            "end xctest SampleTests|testThrow failed 0.0s",
            "suite- SampleTests failed",
            "xctest-summary 4/1/2/1 0.005s",
            "suite- debug.xctest failed",
            "xctest-summary 4/1/2/1 0.005s",
            "suite- All tests failed",
            "xctest-summary 4/1/2/1 0.005s",
            "suite+ STSuite",
            "start swiftTesting freeFunction()",
            "fail freeFunction() LibTests.swift:18 Expectation failed: y → nil",
            "skip off() off for now",
            "end swiftTesting off() skipped",
            "start swiftTesting known()",
            "start swiftTesting param(v:)",
            "start swiftTesting Display name here",
            "start swiftTesting fails()",
            "start swiftTesting passes()",
            "end swiftTesting freeFunction() failed 0.001s",
            "fail param(v:) LibTests.swift:16 Expectation failed: (v → 2) == 1",
            "fail fails() LibTests.swift:12 Expectation failed: (x → 1) == 2",
            "end swiftTesting known() passed 0.001s",
            "end swiftTesting Display name here passed 0.001s",
            "end swiftTesting param(v:) failed 0.001s",
            "end swiftTesting fails() failed 0.001s",
            "end swiftTesting passes() passed 0.001s",
            "suite- STSuite failed",
            "st-summary 7 in 1 failed issues 4 0.002s",
        ])
    }

    func testParallelXCTest() throws {
        try assertEvents("parallel_xctest.txt", [
            "suite+ StoreTests",
            "end xctest CacheTests.StoreTests|testC1_missReturnsNil passed 0.5s on Clone 1 of iPhone 15 - xctest (4101)",
            "end xctest CacheTests.StoreTests|testC4_overwrite failed 1.25s on Clone 2 of iPhone 15 - xctest (4102)",
            "suite+ LoaderTests",
            "end xctest LoaderTests|testMissPath passed 0.012s on My Mac - xctest (5120)",
            "end xctest LoaderTests|testSkipped skipped 0.0s on My Mac - xctest (5120)",
            "end xctest LoaderTests|testGeneration failed 0.3s on My Mac - xctest (5121)",
            "end xctest CacheTests.CacheSuite|overwrite passed 0.004s on My Mac - xctest (5122)",
        ])
    }

    func testSwiftTestingLinuxGlyphs() throws {
        try assertEvents("swift_testing_linux.txt", [
            "suite+ CacheSuite",
            "start swiftTesting missReturnsNil()",
            "start swiftTesting overwrite()",
            "end swiftTesting missReturnsNil() passed 0.001s",
            "fail overwrite() CacheTests.swift:21 Expectation failed: (value → 1) == 2",
            "end swiftTesting overwrite() failed 0.003s",
            "skip slowPath() takes too long",
            "end swiftTesting slowPath() skipped",
            "start swiftTesting legacy()",
            "end swiftTesting legacy() passed 0.002s",
            "fail Loader miss path -:- Caught error: LoaderError.offline",
            "end swiftTesting Loader miss path failed 0.01s",
            "suite- CacheSuite failed",
            "st-summary 5 in 1 failed issues 2 0.021s",
        ])
    }

    func testSwiftTestingMacOSGlyphs() throws {
        try assertEvents("swift_testing_macos.txt", [
            "suite+ CacheSuite",
            "start swiftTesting Miss returns nil",
            "start swiftTesting overwrite()",
            "end swiftTesting Miss returns nil passed 0.002s",
            "fail overwrite() CacheTests.swift:21 Expectation failed: (value → 1) == 2",
            "end swiftTesting overwrite() failed 0.004s",
            "skip slowPath() takes too long",
            "end swiftTesting slowPath() skipped",
            "skip Hidden -",
            "end swiftTesting Hidden skipped",
            "fail sizes(size:) CacheTests.swift:40 Expectation failed: size < 1024",
            "end swiftTesting sizes(size:) failed 0.01s",
            "suite- CacheSuite failed",
            "st-summary 5 in 1 failed issues 2 0.021s",
        ])
    }

    /// The Linux shape DESIGN.md decision 6 is about: the XCTest process dies before any test
    /// runs and the output still ends with a green Swift Testing summary.
    func testLinuxXCTestCrashThenGreenSwiftTestingSummary() throws {
        try assertEvents("linux_xctest_crash.txt", [
            "crash error: Process '/src/Sample/.build/x86_64-unknown-linux-gnu/debug/SamplePackageTests.xctest' exited with unexpected signal code 6",
            "crash Could not cast value of type '(LibTests.CrashTests) -> @Swift.MainActor () -> ()' (0x7f14a0d00030) to '(LibTests.CrashTests) -> () -> ()' (0x7f14a0d00248).",
            "crash Program crashed: Aborted at 0x000000000000232d",
            "st-summary 0 in 0 passed issues - 0.001s",
        ])
    }

    func testLinuxFatalErrorInsideATest() throws {
        try assertEvents("linux_fatal_error.txt", [
            "crash error: Process '/src/Sample/.build/x86_64-unknown-linux-gnu/debug/SamplePackageTests.xctest' exited with unexpected signal code 4",
            "suite+ All tests",
            "suite+ debug.xctest",
            "suite+ FatalTests",
            "start xctest FatalTests|testA",
            "end xctest FatalTests|testA passed 0.007s",
            "start xctest FatalTests|testB",
            "crash Swift/ContiguousArrayBuffer.swift:692: Fatal error: Index out of range",
            "crash Program crashed: Illegal instruction at 0x00007faff996df7f",
            // The backtracer's tagged frame (`3 [ra] 0x… FatalTests.testB() … at …:5:44`) is the test's line.
            "frame 3 FatalTests.testB() /src/Sample/Tests/LibTests/LibTests.swift:5",
            "st-summary 0 in 0 passed issues - 0.001s",
        ])
    }

    func testBuildErrors() throws {
        try assertEvents("build_errors.txt", [
            "build-error /src/Cache/Sources/Cache/Store.swift:12 cannot find 'valu' in scope",
            "build-error -:- emit-module command failed with exit code 1 (use -v to see invocation)",
            "build-error -:- linker command failed with exit code 1 (use -v to see invocation)",
            "build-error -:- Unable to find a destination matching the provided destination specifier:",
            "build-error /Users/ci/My Project/App/View.swift:3 no such module 'Missing'",
            // Xcodebuild's own failure statement is recorded too.
            "runner failed ** BUILD FAILED **",
        ])
    }

    func testMetricLines() throws {
        try assertEvents("metrics.txt", [
            "start xctest PressureProbes|testHitRate",
            "metric hit_rate=0.875 ratio object_bytes=4096 rep=1",
            "metric memory_delta=1048576.0 bytes rep=1 source=statm",
            "metric eviction_ms=-150.0 ms",
            "metric indented=3.0 count extra=yes",
            "metric nounit=7.0 ",
            "end xctest PressureProbes|testHitRate passed 0.01s",
        ])
    }

    func testANSICodesAndCRLFAndBareCR() throws {
        try assertEvents("ansi_crlf.txt", [
            "end swiftTesting passes() passed 0.001s",
            "fail fails() A.swift:3 Expectation failed",
            "end xctest A|testX passed 0.001s",
            "start xctest A|testY",
            "end xctest A|testY failed 0.002s",
            "xctest-summary 2/0/1/0 0.003s",
        ])
    }

    // MARK: - Lines that must not match

    func testNearMissesProduceNoEvents() {
        let text = """
        Test Case 'A.b' exploded (1 seconds)
        Test Case 'unterminated
        Test Suite 'A' wandered off
        Executed lots of tests
        Testing Library Version: 6.1
        XCFLEET-METRIC bad=notanumber unit=ratio
        XCFLEET-METRIC
        Some log line: error: this is text, not a build error
                ➜ Explicit dependency on target 'Foo'
        ✔ Test
        ◇ Test case passing 1 argument v → 2 to param(v:) started.
        ━ Test known() recorded a known issue at A.swift:1:2: fine
        /src/File.swift:20:9: warning: variable 'x' was never mutated
        r14 0x0000557cbf46e4c0  43 6f 75 6c 64  Could not cast v
        Fatal errors are bad
        ** BUILD SUCCEEDED **

        """
        // The two lines that start like a test result but cannot be read are
        // reported with their line numbers instead of being dropped; everything else stays silent.
        XCTAssertEqual(OutputParser.parse(text).map(compact), [
            "unreadable 1 Test Case 'A.b' exploded (1 seconds)",
            "unreadable 2 Test Case 'unterminated",
        ])
    }

    /// `file:line: error:` is an XCTest failure only without a column and with a test name;
    /// the same shape with a column, or without a test name, is a compiler error.
    func testXCTestFailureVersusCompilerError() {
        let text = """
        /a/B.swift:3: error: -[M.B testX] : XCTAssertTrue failed
        /a/B.swift:3: error: B.testX : XCTAssertTrue failed
        /a/B.swift:3:7: error: B.testX : looks like a test but has a column
        /a/B.swift:3: error: expected expression
        error: Exited with unexpected signal code 11
        Fatal error: Unexpectedly found nil while unwrapping an Optional value
        """
        XCTAssertEqual(OutputParser.parse(text).map(compact), [
            "fail M.B|testX /a/B.swift:3 XCTAssertTrue failed",
            "fail B|testX /a/B.swift:3 XCTAssertTrue failed",
            "build-error /a/B.swift:3 B.testX : looks like a test but has a column",
            "build-error /a/B.swift:3 expected expression",
            "crash error: Exited with unexpected signal code 11",
            "crash Fatal error: Unexpectedly found nil while unwrapping an Optional value",
        ])
    }

    func testSummaryShortForms() {
        let text = """
        Executed 1 test, with 0 failures (0 unexpected) in 0.001 (0.001) seconds
        Executed 3 tests, with 2 tests skipped and 1 failure (1 unexpected) in 1.5 (1.6) seconds
        Executed 5 tests, with 1 failure in 2 seconds
        ✔ Test run with 1 test passed after 0.004 seconds.
        ✘ Test run with 2 tests in 2 suites failed after 12.250 seconds with 1 issue.
        """
        XCTAssertEqual(OutputParser.parse(text).map(compact), [
            "xctest-summary 1/0/0/0 0.001s",
            "xctest-summary 3/2/1/1 1.5s",
            "xctest-summary 5/0/1/0 2.0s",
            "st-summary 1 in - passed issues - 0.004s",
            "st-summary 2 in 2 failed issues 1 12.25s",
        ])
    }

    /// A glyph may carry a variation selector (U+FE0E/FE0F) before the blanks; the words, not
    /// the glyph, decide the event.
    func testGlyphVariantsAndUnknownGlyphs() {
        let text = "\u{2714}\u{FE0E} Test a() passed after 0.5 seconds.\n"
            + "\u{2716}\u{FE0F}  Test b() passed after 0.25 seconds with 1 known issue.\n"
            + "\u{1F4A3} Program crashed: Bad pointer dereference at 0x0\n"
            + "\u{100884}Test c() started.\n"          // no blank after the glyph: not Swift Testing
            + "\u{FFFD} Suite S started.\n"
        XCTAssertEqual(OutputParser.parse(text).map(compact), [
            "end swiftTesting a() passed 0.5s",
            "end swiftTesting b() passed 0.25s",
            "crash Program crashed: Bad pointer dereference at 0x0",
            "suite+ S",
        ])
    }

    // MARK: - Chunking

    /// Every repository fixture gives the same events fed 1, 7 or a random number of bytes at a time.
    func testChunkingDoesNotChangeEvents() throws {
        let names = try ParserFixtures.repoLogNames()
        XCTAssertGreaterThanOrEqual(names.count, 10, "fixtures missing from \(ParserFixtures.repoLogs.path)")
        var random = SeededGenerator(seed: 42)
        for name in names {
            let data = try ParserFixtures.repoLog(name)
            let whole = OutputParser.parse(data)
            XCTAssertFalse(whole.isEmpty, "\(name) gives no events")
            XCTAssertEqual(parseChunked(data) { 1 }, whole, "\(name) in 1-byte chunks")
            XCTAssertEqual(parseChunked(data) { 7 }, whole, "\(name) in 7-byte chunks")
            for _ in 0..<3 {
                XCTAssertEqual(parseChunked(data) { Int.random(in: 1...300, using: &random) }, whole, "\(name) in random chunks")
            }
        }
    }

    func testGlyphSplitAcrossCallsAtEveryByte() {
        let line = Array("✔ Test a() passed after 0.5 seconds.\n􁁛  Test b() passed after 0.25 seconds.\n".utf8)
        let expected = ["end swiftTesting a() passed 0.5s", "end swiftTesting b() passed 0.25s"]
        for cut in 0...line.count {
            var parser = OutputParser()
            let events = parser.consume(line[..<cut]) + parser.consume(line[cut...]) + parser.finish()
            XCTAssertEqual(events.map(compact), expected, "cut at byte \(cut)")
        }
    }

    func testCRLFSplitBetweenCallsAndFinishFlushesLastLine() {
        var parser = OutputParser()
        var events = parser.consume(Array("Test Suite 'A' started at x\r".utf8))
        XCTAssertEqual(events.map(compact), ["suite+ A"], "a CR ends the line without waiting for LF")
        events = parser.consume(Array("\nTest Suite 'A' passed at y".utf8))
        XCTAssertEqual(events, [], "no terminator yet")
        XCTAssertEqual(parser.finish().map(compact), ["suite- A passed"])
        XCTAssertEqual(parser.finish(), [], "finish resets")
    }

    func testConsumeAcceptsAnyCollection() {
        var parser = OutputParser()
        let bytes = Array("Test Suite 'A' started at x\n".utf8)
        // A lazily mapped collection has no contiguous storage: the copying path.
        let events = parser.consume(bytes.lazy.map { $0 })
        XCTAssertEqual(events.map(compact), ["suite+ A"])
        XCTAssertEqual(parser.consume(Data("Test Suite 'B' started\n".utf8)).map(compact), ["suite+ B"])
    }

    // MARK: - Robustness

    func testInvalidUTF8NeverTraps() {
        var bytes: [UInt8] = []
        bytes += [0xF0, 0x0A]                                    // lone 4-byte lead
        bytes += [0xE2, 0x9C, 0x0A]                              // truncated glyph
        bytes += [0xFF, 0xFE, 0x20, 0x54, 0x65, 0x73, 0x74, 0x0A] // invalid bytes, then " Test"
        bytes += Array("Test Case 'A.t".utf8) + [0xC3, 0x28] + Array("x' passed (0.1 seconds)\n".utf8)
        bytes += [0xF4, 0x90, 0x80, 0x80] + Array("  Test z() passed after 1 seconds.\n".utf8) // beyond U+10FFFF
        let events = OutputParser.parse(Data(bytes))
        XCTAssertEqual(events.count, 2)
        guard events.count == 2 else { return }
        if case let .testFinished(id, .passed, 0.1, .xctest, nil) = events[0] {
            XCTAssertEqual(id.suite, "A")
            XCTAssertTrue(id.name.contains("\u{FFFD}"), "invalid bytes decode to U+FFFD: \(id.name)")
        } else {
            XCTFail("unexpected \(events[0])")
        }
        XCTAssertEqual(compact(events[1]), "end swiftTesting z() passed 1.0s")
    }

    func testRandomBytesNeverTrap() {
        var random = SeededGenerator(seed: 7)
        let alphabet = Array("Test Case '-[A b]' passed failed (0.1 seconds) : error: \"✔◇􀟈 XCFLEET-METRIC a=1 Executed 3 tests, with \n\r\u{1B}[".utf8)
        for round in 0..<20 {
            var bytes = [UInt8](repeating: 0, count: 20_000)
            for i in bytes.indices {
                bytes[i] = Bool.random(using: &random) ? UInt8.random(in: 0...255, using: &random)
                                                        : alphabet[Int.random(in: 0..<alphabet.count, using: &random)]
            }
            let whole = OutputParser.parse(Data(bytes))
            XCTAssertEqual(parseChunked(Data(bytes)) { Int.random(in: 1...64, using: &random) }, whole, "round \(round)")
        }
    }

    /// A 10 MB line: no trap, memory capped at `maxLineBytes`, the lines after it still parsed.
    func testTenMegabyteLine() {
        let huge = [UInt8]("/a/B.swift:3: error: -[M.B testX] : ".utf8) + [UInt8](repeating: UInt8(ascii: "x"), count: 10_000_000)
        let tail = Array("\nTest Case '-[M.B testX]' failed (0.5 seconds).\n".utf8)
        var parser = OutputParser()
        var events: [TestEvent] = []
        var offset = 0
        while offset < huge.count {
            let end = min(offset + 65_536, huge.count)
            events += parser.consume(huge[offset..<end])
            XCTAssertLessThanOrEqual(parser.bufferedByteCount, OutputParser.maxLineBytes)
            offset = end
        }
        events += parser.consume(tail) + parser.finish()
        XCTAssertEqual(events.count, 2)
        if case let .testFailure(id, _, 3, message) = events.first {
            XCTAssertEqual(id, TestIdentifier(suite: "M.B", name: "testX"))
            XCTAssertLessThan(message.utf8.count, OutputParser.maxLineBytes, "message capped")
        } else {
            XCTFail("expected the capped failure first, got \(events.first.map(compact) ?? "nothing")")
        }
        XCTAssertEqual(events.last.map(compact), "end xctest M.B|testX failed 0.5s")
        XCTAssertEqual(OutputParser.parse(Data(huge + tail)), events, "whole input gives the same")
    }

    /// Inputs built to make a naive matcher backtrack: must stay linear.
    func testPathologicalLinesStayFast() {
        let atLine = "✘ Test x() recorded an issue" + String(repeating: " at a", count: 12_000) + "\n"
        let colonLine = String(repeating: ":", count: 60_000) + " : Test skipped\n"
        let quoteLine = "✔ Test \"" + String(repeating: "\"x", count: 30_000) + "\n"
        let start = Date()
        let events = OutputParser.parse(atLine + colonLine + quoteLine)
        XCTAssertLessThan(Date().timeIntervalSince(start), 2.0)
        XCTAssertEqual(events.count, 2, "\(events.map(compact).map { String($0.prefix(60)) })")
        if case let .testFailure(id, nil, nil, _) = events.first {
            XCTAssertEqual(id?.name, "x()")
        } else {
            XCTFail("expected an unlocated failure first")
        }
    }
}
