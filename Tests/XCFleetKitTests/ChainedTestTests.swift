import Foundation
import XCTest
@testable import XCFleetKit
import XCFleetTestSupport

/// The listing and the test riding the build cache's exec: the shell text that joins them (run by
/// the real `sh`), the split of the output at the nonce markers, and each part's deadline.
final class ChainedTestTests: XCTestCase {
    private final class Sink: @unchecked Sendable {
        private let lock = NSLock()
        private var bytes: [OutputStreamKind: [UInt8]] = [:]
        func add(_ c: OutputChunk) { lock.lock(); bytes[c.stream, default: []] += c.bytes; lock.unlock() }
        func text(_ s: OutputStreamKind) -> String { lock.lock(); defer { lock.unlock() }; return String(decoding: bytes[s] ?? [], as: UTF8.self) }
    }

    private struct Chain {
        let test: ChainedTest
        let build: Sink, listing: Sink, tested: Sink
    }

    private func chained(bundle: String = "/nonexistent", build: Double = 30, list: Double = 30, test: Double = 30) -> Chain {
        let sinks = (Sink(), Sink(), Sink())
        let c = ChainedTest(bundle: bundle, buildSeconds: build, listSeconds: list, testSeconds: test,
                            buildOutput: { sinks.0.add($0) }, listingOutput: { sinks.1.add($0) }, testOutput: { sinks.2.add($0) })
        return Chain(test: c, build: sinks.0, listing: sinks.1, tested: sinks.2)
    }

    /// A file for the listing, removed after the test.
    private func listingFile() -> String {
        let path = NSTemporaryDirectory() + "chained-listing-\(UUID().uuidString.prefix(6)) it's"
        addTeardownBlock { try? FileManager.default.removeItem(atPath: path) }
        return path
    }

    /// A bundle that exists (its contents do not matter: the test command here is a script).
    private func existingBundle() -> String {
        let bundle = NSTemporaryDirectory() + "chained-\(UUID().uuidString.prefix(6)) it's.xctest"
        _ = FileManager.default.createFile(atPath: bundle, contents: Data())
        addTeardownBlock { try? FileManager.default.removeItem(atPath: bundle) }
        return bundle
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

    private let list = ShellCommand(["sh", "-c", "echo T.C/testA; echo listing >&2"])

    func testAFailedBuildEndsTheExecWithItsStatusAndNoListingOrTest() throws {
        let c = chained(bundle: existingBundle())
        let command = try XCTUnwrap(c.test.command(build: ShellCommand(["sh", "-c", "echo compiling; echo oops >&2; exit 3"]), list: list,
                                                   listing: listingFile(), test: ShellCommand(["sh", "-c", "echo TEST-RAN"])))
        XCTAssertEqual(try run(command, into: c.test), 3)
        c.test.open()
        XCTAssertEqual(c.build.text(.stdout), "compiling\n")
        XCTAssertEqual(c.build.text(.stderr), "oops\n")
        XCTAssertEqual(c.listing.text(.stdout), "")
        XCTAssertEqual(c.tested.text(.stdout), "")
    }

    func testNoBundleMeansNoListingNoTestAndTheBuildsZero() throws {
        let c = chained(bundle: "/nonexistent/it's here?/x.xctest")
        let command = try XCTUnwrap(c.test.command(build: ShellCommand(["sh", "-c", "echo built"]), list: list, listing: listingFile(),
                                                   test: ShellCommand(["sh", "-c", "echo TEST-RAN"])))
        XCTAssertEqual(try run(command, into: c.test), 0)
        c.test.open()
        XCTAssertEqual(c.build.text(.stdout), "built\n")
        XCTAssertEqual(c.listing.text(.stdout), "")
        XCTAssertEqual(c.tested.text(.stdout), "")
    }

    func testAfterABuildThatExitedZeroTheListingThenTheTestRunAndTheTestsStatusIsTheExecs() throws {
        let c = chained(bundle: existingBundle())
        let file = listingFile()
        // The test reads the listing's file (as `PackageTestCommands.runListed` does): it was written first.
        let test = ShellCommand(["sh", "-c", #"echo "ran with $ODD"; sed 's/^/read /' "$0"; echo "XCFLEET-TEST 0000"; echo err >&2; exit 5"#, file],
                                environment: ["ODD": "a 'quoted' $value"])
        // The build prints lines that look like markers without the nonce: they stay the build's.
        let command = try XCTUnwrap(c.test.command(build: ShellCommand(["sh", "-c", "echo XCFLEET-LIST 0000; echo XCFLEET-TEST 0000; echo built; echo warn >&2"]),
                                                   list: list, listing: file, test: test))
        XCTAssertEqual(try run(command, into: c.test), 5)
        XCTAssertEqual(c.build.text(.stdout), "XCFLEET-LIST 0000\nXCFLEET-TEST 0000\nbuilt\n")
        XCTAssertEqual(c.build.text(.stderr), "warn\n")
        XCTAssertEqual(c.listing.text(.stdout), "T.C/testA\n")
        XCTAssertEqual(c.listing.text(.stderr), "listing\n")
        XCTAssertEqual(c.tested.text(.stdout), "", "the test's output waits for the test step")
        c.test.open()
        XCTAssertEqual(c.tested.text(.stdout), "ran with a 'quoted' $value\nread T.C/testA\nXCFLEET-TEST 0000\n")
        XCTAssertEqual(c.tested.text(.stderr), "err\n")
        XCTAssertNil(c.test.command(build: ShellCommand(["true"]), list: list, listing: file, test: ShellCommand(["true"], environment: ["BAD NAME": "x"])))
    }

    /// A listing that fails ends the exec with its status (the discover step's reason), and the
    /// test never starts; one a signal ended ends the exec by that signal.
    func testAFailedListingEndsTheExecWithItsStatusAndNoTest() throws {
        let c = chained(bundle: existingBundle())
        let command = try XCTUnwrap(c.test.command(build: ShellCommand(["sh", "-c", "echo built"]),
                                                   list: ShellCommand(["sh", "-c", "echo T.C/testA; echo broken >&2; exit 4"]),
                                                   listing: listingFile(), test: ShellCommand(["sh", "-c", "echo TEST-RAN"])))
        XCTAssertEqual(try run(command, into: c.test), 4)
        c.test.open()
        XCTAssertEqual(c.listing.text(.stdout), "T.C/testA\n", "what it printed is still the listing's")
        XCTAssertEqual(c.listing.text(.stderr), "broken\n")
        XCTAssertEqual(c.tested.text(.stdout), "")

        let killed = chained(bundle: existingBundle())
        let byKill = try XCTUnwrap(killed.test.command(build: ShellCommand(["true"]), list: ShellCommand(["sh", "-c", "kill -TERM $$"]),
                                                       listing: listingFile(), test: ShellCommand(["sh", "-c", "echo TEST-RAN"])))
        let status = try run(byKill, into: killed.test)
        XCTAssertNotEqual(status, 0)
        XCTAssertNotEqual(status, 143, "re-raised as a signal, not an exit status")
        XCTAssertEqual(killed.tested.text(.stdout), "")
    }

    /// The test step keeps the chained test only when it runs what the fresh listing chose: every
    /// test, or exactly the part chosen before the push from the key's known listing.
    func testTheChainedTestIsKeptOnlyWhenItRunsWhatTheFreshListingChose() {
        let every = chained().test
        XCTAssertTrue(every.runs(TestsDiscovered(tests: ["A.B/t1", "A.B/t2"], selected: ["A.B/t2", "A.B/t1"])))
        XCTAssertFalse(every.runs(TestsDiscovered(tests: ["A.B/t1", "A.B/t2"], selected: ["A.B/t1"])), "a part runs on its own")
        let part = ChainedTest(bundle: "/nonexistent", selection: .init(selected: ["A.B/t1", "A.C/t3"], all: ["A.B/t1", "A.B/t2", "A.C/t3"], swiftTesting: []),
                               buildSeconds: 30, listSeconds: 30, testSeconds: 30, buildOutput: { _ in }, listingOutput: { _ in }, testOutput: { _ in })
        XCTAssertTrue(part.runs(TestsDiscovered(tests: ["A.B/t1", "A.B/t2", "A.C/t3"], selected: ["A.C/t3", "A.B/t1"])))
        XCTAssertFalse(part.runs(TestsDiscovered(tests: ["A.B/t1", "A.B/t2", "A.C/t3", "A.C/t4"], selected: ["A.B/t1", "A.C/t3", "A.C/t4"])),
                       "the fresh listing chose more: the part runs on its own")
        XCTAssertFalse(part.runs(TestsDiscovered(tests: ["A.B/t1", "A.B/t2", "A.C/t3"], selected: ["A.B/t1"])), "or less")
        XCTAssertFalse(part.runs(TestsDiscovered(tests: ["A.B/t1", "A.B/t2", "A.C/t3"], selected: ["A.B/t1", "A.B/t2", "A.C/t3"])), "or everything")
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

    /// Both markers in one chunk, or the second before the first: each part gets its own bytes.
    func testThePartsSplitAtTheirMarkersInOrder() {
        var s = PartSplitter(markers: [Array("L n\n".utf8), Array("T n\n".utf8)])
        XCTAssertEqual(s.consume(Array("b\nT n\nL n\nl\nT n\nt\nL n\n".utf8)).map { String(decoding: $0, as: UTF8.self) },
                       ["b\nT n\n", "l\n", "t\nL n\n"], "a test marker before the listing's is the build's")
        XCTAssertEqual(s.part, 2)
        var split = PartSplitter(markers: [Array("L n\n".utf8), Array("T n\n".utf8)])
        XCTAssertEqual(split.consume(Array("L n\nl\nT".utf8)).map(\.count), [0, 2, 0])
        XCTAssertEqual(split.flush().map { String(decoding: $0, as: UTF8.self) }, ["", "T", ""], "a partial line is the listing's")
    }

    /// The build's deadline holds until the listing markers, the listing's until the test
    /// markers, the test's from then on: each cancels the exec.
    func testEachPartKeepsItsOwnDeadline() async throws {
        let slowBuild = chained(build: 0.2).test
        slowBuild.start { try await Task.sleep(nanoseconds: 20_000_000_000); throw CancellationError() }
        let reachedListing = await slowBuild.waitForListing()
        XCTAssertFalse(reachedListing)
        let built = await slowBuild.execEnded()
        XCTAssertTrue(built.timedOut)
        XCTAssertThrowsError(try built.result.get())

        let slowList = chained(build: 30, list: 0.3)
        let listNonce = slowList.test.nonce
        let listStarted = Date()
        slowList.test.start {
            for stream in [OutputStreamKind.stdout, .stderr] {
                slowList.test.route(OutputChunk(stream: stream, bytes: Array("XCFLEET-LIST \(listNonce)\nT.C/testA\n".utf8)))
            }
            try await Task.sleep(nanoseconds: 20_000_000_000)
            return JobPreparation(directory: "/d", push: .unchanged, chained: .cancelled)
        }
        let listed = await slowList.test.waitForListing()
        XCTAssertTrue(listed)
        let reachedTest = await slowList.test.waitForTest()
        XCTAssertFalse(reachedTest, "the listing's deadline ended the exec")
        let listEnd = await slowList.test.execEnded()
        XCTAssertTrue(listEnd.timedOut)
        XCTAssertLessThan(Date().timeIntervalSince(listStarted), 10)
        XCTAssertEqual(slowList.listing.text(.stdout), "T.C/testA\n")

        let slowTest = chained(build: 30, list: 30, test: 0.3)
        let nonce = slowTest.test.nonce
        let started = Date()
        slowTest.test.start {
            for stream in [OutputStreamKind.stdout, .stderr] {
                slowTest.test.route(OutputChunk(stream: stream, bytes: Array("XCFLEET-LIST \(nonce)\nXCFLEET-TEST \(nonce)\ntesting\n".utf8)))
            }
            try await Task.sleep(nanoseconds: 20_000_000_000)
            return JobPreparation(directory: "/d", push: .unchanged, chained: .cancelled)
        }
        let ran = await slowTest.test.waitForTest()
        XCTAssertTrue(ran)
        slowTest.test.open()
        let ended = await slowTest.test.execEnded()
        XCTAssertTrue(ended.timedOut)
        XCTAssertLessThan(Date().timeIntervalSince(started), 10)
        XCTAssertEqual(slowTest.tested.text(.stdout), "testing\n")

        let quick = chained(build: 0.2, list: 0.2, test: 0.2).test
        quick.start { JobPreparation(directory: "/d", push: .unchanged, chained: .exited(0)) }
        let quickEnd = await quick.execEnded()
        try await Task.sleep(nanoseconds: 400_000_000)
        XCTAssertFalse(quickEnd.timedOut, "a deadline after the exec's end changes nothing")
    }
}
