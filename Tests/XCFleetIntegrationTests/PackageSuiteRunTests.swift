import Foundation
import XCTest
import XCFleetKit
import XCFleetTestSupport

/// A team's own SwiftPM package as a suite, through the real `xcfleet` binary: the package is copied
/// into a fresh git repository (real git), a plan is written beside it, and the run's tests are
/// compared test for test with what the package's own `swift test` says.
final class PackageSuiteRunTests: XCTestCase {
    var work: URL!

    override func setUpWithError() throws {
        work = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("xcfleet-pkgrun-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
    }

    override func tearDown() {
        if let work { try? FileManager.default.removeItem(at: work) }
    }

    static var shelf: URL { TestPaths.fixtures.appendingPathComponent("packages/Shelf") }

    // MARK: Our own fixture (no ../shared needed)

    func testAPackageInAFolderOfItsRepositoryMatchesItsOwnSwiftTest() throws {
        let repo = try repository(copying: Self.shelf, as: "Shelf", ignored: ["notes.secret"])
        let plan = try writePlan(in: repo, ["name": "shelf", "package": "Shelf"])
        let result = try run(plan, fleet: try localFleet())
        XCTAssertEqual(result.status, 0, result.output)
        let truth = try ownSwiftTest(repo.appendingPathComponent("Shelf")).outcomes
        XCTAssertEqual(truth, try ownSwiftTestTruthOfShelf(), "the fixture's own swift test: 6 pass, 1 disabled")
        XCTAssertEqual(outcomes(result.report), truth, "the same tests with the same outcomes")

        let discovered = result.events.compactMap { e -> TestsDiscovered? in if case .testsDiscovered(_, let d) = e.body { return d } else { return nil } }
        XCTAssertEqual(discovered.count, 1)
        XCTAssertEqual(discovered.first?.tests.count, 7)
        XCTAssertNil(discovered.first?.problem)

        // Swift Testing's `Attachment.record` lands in the attempt's attachments folder and comes
        // back beside its test.
        let attached = (result.report?.suites ?? []).flatMap(\.jobs).flatMap { $0.decisive?.tests ?? [] }
            .filter { !($0.attachments ?? []).isEmpty }
        XCTAssertEqual(attached.map(\.id.name), ["emptyShelfIsNotFull()"], result.output)
        let file = try XCTUnwrap(attached.first?.attachments?.first)
        XCTAssertEqual(file.name, "shelf-state.txt")
        XCTAssertEqual(try String(contentsOf: result.runDirectory.appendingPathComponent(file.path), encoding: .utf8), "a shelf of capacity 1, empty")

        // What was built: the repository's files, without what git ignores; the team's Package.swift as it is.
        let key = try XCTUnwrap(result.events.compactMap { e -> String? in if case .build(_, let r) = e.body { return r.key } else { return nil } }.first)
        let built = work.appendingPathComponent("work/builds/\(key)")
        XCTAssertTrue(FileManager.default.fileExists(atPath: built.appendingPathComponent("Shelf/Package.swift").path))
        XCTAssertFalse(FileManager.default.fileExists(atPath: built.appendingPathComponent("Shelf/notes.secret").path))
        XCTAssertEqual(try Data(contentsOf: built.appendingPathComponent("Shelf/Package.swift")),
                       try Data(contentsOf: Self.shelf.appendingPathComponent("Package.swift")))

        // `xcfleet report DIR` rebuilds the same report from events.jsonl alone.
        let rebuilt = try XCFleetCLI.run(["report", result.runDirectory.path])
        XCTAssertEqual(rebuilt.status, 0, rebuilt.output)
        let again = try JSONDecoder().decode(RunReport.self, from: Data(contentsOf: result.runDirectory.appendingPathComponent("report.json")))
        XCTAssertEqual(outcomes(again), truth)
        XCTAssertEqual(again.totals.tests, result.report?.totals.tests)
    }

    func testAnInjectedFailureOnShardsOverSSHIsRedNamingItAndOnlyItRuns() throws {
        let hosts = try TestHosts.hosts()
        let repo = try repository(copying: Self.shelf, as: "Shelf")
        // The working tree is tested as it is: the edit needs no commit.
        let file = repo.appendingPathComponent("Shelf/Tests/ShelfTests/ShelfTests.swift")
        let text = try String(contentsOf: file, encoding: .utf8)
        // Every test runs in the package's folder, as under its own `swift test` (chained or not).
        let edited = text.replacingOccurrences(of: #"XCTAssertEqual(shelf.take(), "Emma")"#, with: #"XCTAssertEqual(shelf.take(), "Mansfield Park")"#)
            .replacingOccurrences(of: "        var shelf = Shelf(capacity: 1)\n",
                                  with: "        var shelf = Shelf(capacity: 1)\n        XCTAssertTrue(FileManager.default.currentDirectoryPath.hasSuffix(\"/Shelf\"), FileManager.default.currentDirectoryPath)\n")
        XCTAssertNotEqual(edited.components(separatedBy: "currentDirectoryPath").count, 1)
        try Data(edited.utf8).write(to: file)
        let plan = try writePlan(in: repo, ["name": "shelf", "package": "Shelf", "shards": 3, "retries": ["testFailures": 1]])
        let result = try run(plan, fleet: try sshFleet(Array(hosts.prefix(2))))
        XCTAssertEqual(result.status, 1, result.output)
        XCTAssertTrue(result.output.contains("ShelfTests/testPutAndTake"), result.output)

        let jobs = try XCTUnwrap(result.report?.suites.first?.jobs)
        XCTAssertEqual(jobs.count, 3)
        // The shards' parts are disjoint and cover the discovered list.
        let parts = jobs.compactMap { $0.attempts.first?.discovery?.selected }
        XCTAssertEqual(parts.count, 3)
        XCTAssertEqual(parts.flatMap { $0 }.count, 7)
        XCTAssertEqual(Set(parts.flatMap { $0 }), Set(try XCTUnwrap(jobs.first?.attempts.first?.discovery?.tests)))
        // Only the failed test reran, in a fresh process.
        let failing = try XCTUnwrap(jobs.first { $0.attempts.count > 1 }, "the shard with the failure ran again")
        XCTAssertEqual(failing.attempts.count, 2)
        XCTAssertEqual(failing.attempts[1].discovery?.selected, ["ShelfTests.ShelfTests/testPutAndTake"])
        XCTAssertEqual(failing.attempts[1].discovery?.rerun, true)
        XCTAssertEqual(failing.attempts[1].tests.filter { $0.status == .failed }.map(\.id.name), ["testPutAndTake"])
        // The failure points at the file in the team's repository (the host built in its cache's
        // stage folder), in the report and on the terminal.
        let line = try XCTUnwrap(text.components(separatedBy: "\n").firstIndex { $0.contains(#"XCTAssertEqual(shelf.take(), "Emma")"#) }) + 1
        let failure = try XCTUnwrap(failing.attempts[1].tests.first { $0.status == .failed }?.failures.first)
        XCTAssertEqual(failure.file, "Shelf/Tests/ShelfTests/ShelfTests.swift", result.output)
        XCTAssertEqual(failure.line, line)
        XCTAssertEqual(failure.location?.kind, .repository)
        XCTAssertTrue(result.output.contains("Shelf/Tests/ShelfTests/ShelfTests.swift:\(line):"), result.output)
        XCTAssertEqual(jobs.filter { $0.attempts.count > 1 }.count, 1, "no other shard reran")
        // The third shard and the rerun knew the key's listing: each ran its part in its push's exec
        // (the push is logged when that exec ended, after the attempt's test events).
        func chained(_ ref: AttemptRef) -> Bool { AttemptTrace(result.events, ref).testsRodeThePush }
        let refs = jobs.flatMap { job in job.attempts.map { AttemptRef(jobID: job.planned.jobID, attempt: $0.number) } }
        XCTAssertTrue(chained(AttemptRef(jobID: failing.planned.jobID, attempt: 2)), "the rerun rode its push's exec")
        XCTAssertEqual(refs.filter(chained).count, 2, "the third shard and the rerun: \(refs.filter(chained))")
        var expected = try ownSwiftTestTruthOfShelf()
        expected["ShelfTests/testPutAndTake"] = .failed
        XCTAssertEqual(outcomes(result.report), expected, "every other test as its own swift test has it")
    }

    /// A discovery failure is the same for every attempt of the build: red after one attempt, even
    /// with retries for test failures, its reason named once.
    func testAPackageWhoseFilterSelectsNothingIsRedWithTheReasonAndNotRetried() throws {
        let repo = try repository(copying: Self.shelf, as: "Shelf")
        let plan = try writePlan(in: repo, ["name": "shelf", "package": "Shelf", "filter": ["ShelfTests.NoSuchClass"], "retries": ["testFailures": 2]])
        let result = try run(plan, fleet: try localFleet())
        XCTAssertEqual(result.status, 1, result.output)
        let why = "filter and skip select none of the 7 discovered tests"
        XCTAssertTrue(result.output.contains("test discovery: " + why), result.output)
        let job = try XCTUnwrap(result.report?.suites.first?.jobs.first)
        XCTAssertEqual(job.attempts.count, 1, "a discovery failure is never retried")
        XCTAssertEqual(job.finalState, .failed)
        XCTAssertTrue(job.attempts.first?.discovery?.problem?.hasPrefix(why) == true, "\(String(describing: job.attempts.first?.discovery))")
        XCTAssertEqual(result.events.filter { if case .attemptStarted = $0.body { return true } else { return false } }.count, 1)
        // One attempt's line in the live output, one line under the summary's "Why" (beside its headline).
        XCTAssertEqual(result.output.split(separator: "\n").filter { $0.contains("attempt") && $0.contains(why) }.count, 1, result.output)
        XCTAssertFalse(result.output.contains("attempt 2"), result.output)
        let summary = try String(contentsOf: result.runDirectory.appendingPathComponent("summary.md"), encoding: .utf8)
        XCTAssertEqual(summary.split(separator: "\n").filter { $0.hasPrefix("- ") && $0.contains(why) }.count, 1, summary)
    }

    // MARK: Real packages nobody here wrote (../shared/fixtures/packages)

    func testSwiftNumericsIsGreenWithTheSameTestsAsItsOwnSwiftTest() throws {
        let source = try sharedPackage("swift-numerics")
        let repo = try repository(copying: source, as: ".")
        let plan = try writePlan(in: repo, ["name": "numerics", "package": "."])
        let result = try run(plan, fleet: try localFleet())
        XCTAssertEqual(result.status, 0, result.output)
        let truth = try ownSwiftTest(repo)
        XCTAssertEqual(truth.executions, 75, "the fixture README: 75 XCTest tests")
        XCTAssertEqual(outcomes(result.report), truth.outcomes)
        let job = try XCTUnwrap(result.report?.suites.first?.jobs.first)
        XCTAssertEqual(job.decisive?.discovery?.tests.count, 75)
        // Linux XCTest prints no module: three classes of the same name in two modules read as one
        // name each, in its own swift test as here; every execution is there.
        let finished = result.events.filter { if case .test(_, .testFinished) = $0.body { return true } else { return false } }
        XCTAssertEqual(finished.count, truth.executions)
    }

    func testSwiftLogOnShardsOverSSHIsGreenWithTheSameTestsAsItsOwnSwiftTest() throws {
        let source = try sharedPackage("swift-log")
        let hosts = try TestHosts.hosts()
        let repo = try repository(copying: source, as: ".")
        // Some of swift-log's tests share global state: run as a subset (a shard's part) they fail now
        // and then, in its own bundle too (`--filter` with the same 55 tests failed 2 of 3 times
        // here). Reruns by test take them again, and they pass alone.
        let plan = try writePlan(in: repo, ["name": "log", "package": ".", "shards": 3, "retries": ["testFailures": 2], "allowFlaky": true])
        let result = try run(plan, fleet: try sshFleet(Array(hosts.prefix(2))))
        XCTAssertEqual(result.status, 0, result.output)
        for job in try XCTUnwrap(result.report?.suites.first?.jobs) {
            for (earlier, rerun) in zip(job.attempts, job.attempts.dropFirst()) {
                XCTAssertEqual(rerun.discovery?.rerun, true)
                XCTAssertLessThan(rerun.discovery?.selected.count ?? .max, earlier.discovery?.selected.count ?? 0, "a rerun runs only what did not pass")
            }
        }
        let jobs = try XCTUnwrap(result.report?.suites.first?.jobs)
        XCTAssertTrue(Set(jobs.compactMap { $0.decisive?.host }).isSubset(of: [hosts[0].name, hosts[1].name]), "the shards ran over SSH")
        XCTAssertEqual(jobs.count, 3)
        let parts = jobs.compactMap { $0.attempts.first?.discovery?.selected }
        XCTAssertEqual(parts.flatMap { $0 }.count, 164, "the fixture README: 164 Swift Testing tests")
        XCTAssertEqual(Set(parts.flatMap { $0 }).count, 164, "disjoint shards")
        XCTAssertGreaterThan(jobs.compactMap { $0.decisive?.discovery?.displayNames?.count }.reduce(0, +), 50, "display names came from Swift Testing's records")
        // Swift Testing's output names a test without its suite: two suites' `errorAndAbove()` read
        // as one name, in its own swift test as here; every execution is there.
        let truth = try ownSwiftTest(repo)
        XCTAssertEqual(truth.executions, 164)
        XCTAssertEqual(outcomes(result.report), truth.outcomes, "the same tests with the same outcomes")
        let firstRuns = result.events.filter { if case .test(let ref, .testFinished) = $0.body { return ref.attempt == 1 } else { return false } }
        XCTAssertEqual(firstRuns.count, truth.executions, "every test ran once in the shards' first attempts")
        XCTAssertEqual(result.report?.totals.tests.failed, 0)
        XCTAssertEqual(result.report?.totals.tests.notRun, 0)
    }

    func testRainbowIsARedBuildNamingTheError() throws {
        let source = try sharedPackage("Rainbow")
        let repo = try repository(copying: source, as: ".")
        let plan = try writePlan(in: repo, ["name": "rainbow", "package": "."])
        let result = try run(plan, fleet: try localFleet())
        XCTAssertEqual(result.status, 1, result.output)
        let job = try XCTUnwrap(result.report?.suites.first?.jobs.first)
        XCTAssertEqual(job.attempts.count, 1, "a build error is never retried")
        XCTAssertTrue(job.decisive?.buildErrors.contains { $0.message.contains("__allTests") } == true, "\(String(describing: job.decisive?.buildErrors))")
        XCTAssertTrue(result.output.contains("build error"), result.output)
    }

    // MARK: Helpers

    private func sharedPackage(_ name: String) throws -> URL {
        let dir = TestPaths.packageRoot.deletingLastPathComponent().appendingPathComponent("shared/fixtures/packages/\(name)")
        guard FileManager.default.fileExists(atPath: dir.appendingPathComponent("Package.swift").path) else {
            throw XCTSkip("../shared/fixtures/packages/\(name) is absent (a clone outside the project's machine); skipping the real-package run")
        }
        return dir
    }

    /// A fresh git repository holding `package` at `folder` ("." for the top), committed; `ignored`
    /// files are written and listed in `.gitignore`.
    private func repository(copying package: URL, as folder: String, ignored: [String] = []) throws -> URL {
        let repo = work.appendingPathComponent("repo")
        let target = folder == "." ? repo : repo.appendingPathComponent(folder)
        try FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
        _ = try TestHosts.shell(["cp", "-R", package.path, target.path])
        _ = try TestHosts.shell(["chmod", "-R", "u+w", repo.path])
        _ = try TestHosts.shell(["rm", "-rf", target.appendingPathComponent(".build").path])
        try Data(ignored.map { $0 + "\n" }.joined().utf8).write(to: repo.appendingPathComponent(".gitignore"))
        for name in ignored { try Data("not for the fleet\n".utf8).write(to: target.appendingPathComponent(name)) }
        _ = try TestHosts.shell(["git", "-C", repo.path, "init", "-q"])
        _ = try TestHosts.shell(["git", "-C", repo.path, "add", "-A"])
        _ = try TestHosts.shell(["git", "-C", repo.path, "-c", "user.email=t@example.invalid", "-c", "user.name=t", "commit", "-qm", "fixture"])
        return repo
    }

    private func writePlan(in repo: URL, _ suite: [String: Any]) throws -> String {
        let path = repo.appendingPathComponent("xcfleet.json").path
        let data = try JSONSerialization.data(withJSONObject: ["name": "packages", "suites": [suite]])
        try data.write(to: URL(fileURLWithPath: path))
        return path
    }

    private func localFleet(slots: Int = 1) throws -> String {
        let path = work.appendingPathComponent("local-fleet.json").path
        let json = #"{"hosts": [{"name": "local", "transport": "local", "slots": \#(slots), "workRoot": "\#(work.appendingPathComponent("work").path)"}]}"#
        try Data(json.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    private func sshFleet(_ hosts: [TestHosts.Host]) throws -> String {
        let path = work.appendingPathComponent("ssh-fleet.json").path
        let entries = hosts.map { h in
            """
            {"name": "\(h.name)", "address": "127.0.0.1", "port": \(h.port), "user": "\(h.user)",
             "identityFile": "\(h.identityFile)", "knownHostsFile": "\(h.knownHostsFile)", "slots": 1,
             "workRoot": "\(h.directory)/\(h.name)/pkgrun", "toolchain": {"swiftPath": "/opt/swift/usr/bin/swift"}}
            """
        }
        try Data("{\"hosts\": [\(entries.joined(separator: ","))]}".utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    struct Result {
        var status: Int32
        var output: String
        var runDirectory: URL
        var report: RunReport?
        var events: [RunEvent]
    }

    private func run(_ plan: String, fleet: String) throws -> Result {
        let runs = work.appendingPathComponent("runs-\(UUID().uuidString.prefix(6))")
        let cli = try XCFleetCLI.run(["run", plan, "--fleet", fleet, "--runs", runs.path, "--run-id", "run", "--no-history"])
        let dir = runs.appendingPathComponent("run")
        let report = try? JSONDecoder().decode(RunReport.self, from: Data(contentsOf: dir.appendingPathComponent("report.json")))
        let events = (try? EventLog.read(dir.appendingPathComponent("events.jsonl"))) ?? []
        return Result(status: cli.status, output: cli.output, runDirectory: dir, report: report, events: events)
    }

    /// Every test of the run's jobs (their decisive attempts) → its status, keyed `Class/test`.
    private func outcomes(_ report: RunReport?) -> [String: TestStatus] {
        var out: [String: TestStatus] = [:]
        for job in report?.suites.flatMap(\.jobs) ?? [] {
            for t in job.decisive?.tests ?? [] { out[t.id.className + "/" + t.id.name] = t.status }
        }
        return out
    }

    /// The package's own `swift test` in `folder` (its own build there), read by xcfleet's parser.
    private func ownSwiftTest(_ folder: URL) throws -> (outcomes: [String: TestStatus], executions: Int) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/opt/swift/usr/bin/swift")
        p.arguments = ["test", "--package-path", folder.path]
        let out = Pipe()
        p.standardOutput = out
        p.standardError = FileHandle.nullDevice
        try p.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        var parser = OutputParser()
        let events = parser.consume(Array(data)) + parser.finish()
        let report = Collator.attemptReport(events: events, ended: AttemptEnded(termination: .exited(p.terminationStatus)), host: "own", slot: 0, number: 1)
        var truth: [String: TestStatus] = [:]
        for t in report.tests { truth[t.id.className + "/" + t.id.name] = t.status }
        let executions = events.filter { if case .testFinished = $0 { return true } else { return false } }.count
        return (truth, executions)
    }

    /// The fixture's own `swift test` outcomes (`testAPackageInAFolderOfItsRepositoryMatchesItsOwnSwiftTest`
    /// checks them against a real `swift test`).
    private func ownSwiftTestTruthOfShelf() throws -> [String: TestStatus] {
        ["ShelfTests/testPutAndTake": .passed, "ShelfTests/testFullShelfRefuses": .passed, "CapacityTests/testZeroCapacity": .passed,
         "/lastInFirstOut()": .passed, "/fillsToCapacity(capacity:)": .passed, "/sortedByTitle()": .skipped, "/emptyShelfIsNotFull()": .passed]
    }
}

/// Runs the real `xcfleet` binary to its end.
enum XCFleetCLI {
    static func run(_ args: [String]) throws -> (status: Int32, output: String) {
        let p = Process()
        p.executableURL = XCFleetProcess.binary
        p.arguments = args
        p.currentDirectoryURL = TestHosts.packageRoot
        p.standardInput = FileHandle.nullDevice
        let out = Pipe()
        p.standardOutput = out
        p.standardError = out
        try p.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return (p.terminationStatus, String(decoding: data, as: UTF8.self))
    }
}
