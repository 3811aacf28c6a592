import Foundation
import XCTest
@testable import XCFleetKit
import XCFleetTestSupport

/// The test riding the build cache's exec: the shell text that joins them (run by the real `sh`),
/// the split of the output at the nonce markers, and the two deadlines.
final class ChainedTestTests: XCTestCase {
    private final class Sink: @unchecked Sendable {
        private let lock = NSLock()
        private var bytes: [OutputStreamKind: [UInt8]] = [:]
        func add(_ c: OutputChunk) { lock.lock(); bytes[c.stream, default: []] += c.bytes; lock.unlock() }
        func text(_ s: OutputStreamKind) -> String { lock.lock(); defer { lock.unlock() }; return String(decoding: bytes[s] ?? [], as: UTF8.self) }
    }

    private func chained(bundle: String = "/nonexistent", build: Double = 30, test: Double = 30) -> (ChainedTest, Sink, Sink) {
        let b = Sink(), t = Sink()
        return (ChainedTest(bundle: bundle, buildSeconds: build, testSeconds: test, buildOutput: { b.add($0) }, testOutput: { t.add($0) }), b, t)
    }

    /// Runs `command` with the real `sh`, its output fed to `route` in small pieces.
    private func run(_ command: ShellCommand, into test: ChainedTest) throws -> Int32 {
        XCTAssertEqual(command.arguments.first, "sh")
        let r = try TestShell.runProcess("/bin/sh", Array(command.arguments.dropFirst()))
        for (stream, text) in [(OutputStreamKind.stdout, r.stdout), (.stderr, r.stderr)] {
            let bytes = Array(text.utf8)
            var i = 0
            while i < bytes.count { // chunks of 5 bytes: markers and lines split across chunks
                test.route(OutputChunk(stream: stream, bytes: Array(bytes[i..<min(i + 5, bytes.count)])))
                i += 5
            }
        }
        return r.status
    }

    func testAFailedBuildEndsTheExecWithItsStatusAndNoTest() throws {
        let (chain, build, tested) = chained()
        let command = try XCTUnwrap(chain.command(build: ShellCommand(["sh", "-c", "echo compiling; echo oops >&2; exit 3"]),
                                                  test: ShellCommand(["sh", "-c", "echo TEST-RAN"])))
        XCTAssertEqual(try run(command, into: chain), 3)
        chain.open()
        XCTAssertEqual(build.text(.stdout), "compiling\n")
        XCTAssertEqual(build.text(.stderr), "oops\n")
        XCTAssertEqual(tested.text(.stdout), "")
    }

    func testNoBundleMeansNoTestAndTheBuildsZero() throws {
        let (chain, build, tested) = chained(bundle: "/nonexistent/it's here?/x.xctest")
        let command = try XCTUnwrap(chain.command(build: ShellCommand(["sh", "-c", "echo built"]), test: ShellCommand(["sh", "-c", "echo TEST-RAN"])))
        XCTAssertEqual(try run(command, into: chain), 0)
        chain.open()
        XCTAssertEqual(build.text(.stdout), "built\n")
        XCTAssertEqual(tested.text(.stdout), "")
    }

    func testAfterABuildThatExitedZeroTheTestRunsWithItsEnvironmentAndItsStatusIsTheExecs() throws {
        let bundle = NSTemporaryDirectory() + "chained-\(UUID().uuidString.prefix(6)) it's.xctest"
        FileManager.default.createFile(atPath: bundle, contents: Data())
        defer { try? FileManager.default.removeItem(atPath: bundle) }
        let (chain, build, tested) = chained(bundle: bundle)
        let test = ShellCommand(["sh", "-c", #"echo "ran with $ODD"; echo "XCFLEET-TEST 0000"; echo err >&2; exit 5"#],
                                environment: ["ODD": "a 'quoted' $value"])
        // The build prints a line that looks like a marker without the nonce: it stays the build's.
        let command = try XCTUnwrap(chain.command(build: ShellCommand(["sh", "-c", "echo XCFLEET-TEST 0000; echo built; echo warn >&2"]), test: test))
        XCTAssertEqual(try run(command, into: chain), 5)
        XCTAssertEqual(build.text(.stdout), "XCFLEET-TEST 0000\nbuilt\n")
        XCTAssertEqual(build.text(.stderr), "warn\n")
        XCTAssertEqual(tested.text(.stdout), "", "the test's output waits for the test step")
        chain.open()
        XCTAssertEqual(tested.text(.stdout), "ran with a 'quoted' $value\nXCFLEET-TEST 0000\n")
        XCTAssertEqual(tested.text(.stderr), "err\n")
        XCTAssertNil(chain.command(build: ShellCommand(["true"]), test: ShellCommand(["true"], environment: ["BAD NAME": "x"])))
    }

    func testTheMarkerIsOnlyAWholeLine() {
        let marker = Array("XCFLEET-TEST ab\n".utf8)
        var s = MarkerSplitter(marker: marker)
        XCTAssertEqual(s.consume(Array("say XCFLEET-TEST ab\nXCFLEET-TEST abc\nXCFLE".utf8)).0, Array("say XCFLEET-TEST ab\nXCFLEET-TEST abc\n".utf8))
        XCTAssertFalse(s.switched)
        let (before, after) = s.consume(Array("ET-TEST ab\nafter\n".utf8))
        XCTAssertEqual(before, [])
        XCTAssertEqual(after, Array("after\n".utf8))
        XCTAssertTrue(s.switched)
        XCTAssertEqual(s.consume(Array("more".utf8)).1, Array("more".utf8))
        var partial = MarkerSplitter(marker: marker)
        XCTAssertEqual(partial.consume(Array("XCFLEET".utf8)).0, [])
        XCTAssertEqual(partial.flush(), Array("XCFLEET".utf8), "held back until the line is known, then handed on")
    }

    /// The build's deadline holds until the markers, the test's from then on: either cancels the exec.
    func testEachPartKeepsItsOwnDeadline() async throws {
        let (slowBuild, _, _) = chained(build: 0.2, test: 30)
        slowBuild.start { try await Task.sleep(nanoseconds: 20_000_000_000); throw CancellationError() }
        let reachedTest = await slowBuild.waitForTest()
        XCTAssertFalse(reachedTest)
        let built = await slowBuild.execEnded()
        XCTAssertTrue(built.timedOut)
        XCTAssertThrowsError(try built.result.get())

        let (slowTest, _, tested) = chained(build: 30, test: 0.3)
        let nonce = slowTest.nonce
        let started = Date()
        slowTest.start {
            for stream in [OutputStreamKind.stdout, .stderr] {
                slowTest.route(OutputChunk(stream: stream, bytes: Array("XCFLEET-TEST \(nonce)\ntesting\n".utf8)))
            }
            try await Task.sleep(nanoseconds: 20_000_000_000)
            return JobPreparation(directory: "/d", push: .unchanged, chained: .cancelled)
        }
        let ran = await slowTest.waitForTest()
        XCTAssertTrue(ran)
        slowTest.open()
        let ended = await slowTest.execEnded()
        XCTAssertTrue(ended.timedOut)
        XCTAssertLessThan(Date().timeIntervalSince(started), 10)
        XCTAssertEqual(tested.text(.stdout), "testing\n")

        let (quick, _, _) = chained(build: 0.2, test: 0.2)
        quick.start { JobPreparation(directory: "/d", push: .unchanged, chained: .exited(0)) }
        let quickEnd = await quick.execEnded()
        try await Task.sleep(nanoseconds: 400_000_000)
        XCTAssertFalse(quickEnd.timedOut, "a deadline after the exec's end changes nothing")
    }
}
