import XCTest
import XCFleetKit
import XCFleetTestSupport

/// A template job on an SSH host lists and runs its tests in the exec of its push check and build
/// cache (`ChainedTest`): still discovered from what was built before any runs, with no round
/// trip of its own. The real binary, a real sshd host and the real toolchain, with a team's
/// templates (`--templates DIR`): the listing is the manifest (XCTest and Swift Testing in one
/// bundle, a skip and a disabled test shown as skipped), and a chained listing that finds nothing
/// is red with the reason.
final class TemplateDiscoverySSHRunTests: XCTestCase {
    private var hosts: [TestHosts.Host] = []
    private var dir: URL!

    override func setUpWithError() throws {
        hosts = try TestHosts.hosts()
        dir = try TestPaths.temporaryDirectory("template-discovery-ssh")
    }

    private func fleet() throws -> String {
        let h = hosts[0]
        let path = dir.appendingPathComponent("fleet.json").path
        let workRoot = "\(h.directory)/\(h.name)/tmpldisc-\(UUID().uuidString.prefix(6))"
        try Data("""
        {"hosts": [{"name": "\(h.name)", "address": "127.0.0.1", "port": \(h.port), "user": "\(h.user)",
          "identityFile": "\(h.identityFile)", "knownHostsFile": "\(h.knownHostsFile)", "slots": 2,
          "labels": ["platform:linux", "swift"], "workRoot": "\(workRoot)",
          "toolchain": {"swiftPath": "/opt/swift/usr/bin/swift"}}]}
        """.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    func testTheChainedListingIsTheManifestAndAChainedEmptyListingIsRed() throws {
        try TemplateDiscoveryFixture.write(into: dir.appendingPathComponent("templates"))
        let plan = dir.appendingPathComponent("plan.json")
        try Data(#"""
        {"name": "discovery-ssh", "suites": [{"name": "mine", "template": "my-tests"}, {"name": "empty", "template": "no-tests"}]}
        """#.utf8).write(to: plan)
        let runs = dir.appendingPathComponent("runs")
        let result = try FakeToolchain.xcfleet(["run", plan.path, "--templates", dir.appendingPathComponent("templates").path,
                                                "--fleet", try fleet(), "--runs", runs.path, "--no-history"])
        XCTAssertEqual(result.status, 1, "the empty suite is red: " + result.stdout + result.stderr)
        let runDir = runs.appendingPathComponent(try XCTUnwrap(try FileManager.default.contentsOfDirectory(atPath: runs.path).first))
        let report = try JSONDecoder().decode(RunReport.self, from: Data(contentsOf: runDir.appendingPathComponent("report.json")))
        let events = try EventLog.read(runDir.appendingPathComponent("events.jsonl"))

        let mine = try XCTUnwrap(report.suites.first { $0.spec.name == "mine" })
        XCTAssertEqual(mine.status, .green, "\(mine.reasons)\n" + result.stdout)
        let job = try XCTUnwrap(mine.jobs.first)
        let found = try XCTUnwrap(job.decisive?.discovery)
        XCTAssertEqual(Set(found.tests), ["MyTests.MineTests/testOne", "MyTests.MineTests/testSkipped", "MyTests.adds()", "MyTests.later()"])
        XCTAssertEqual(found.selected.count, 4)
        let results = Dictionary((job.decisive?.tests ?? []).map { ($0.id.name, $0.status) }, uniquingKeysWith: { a, _ in a })
        XCTAssertEqual(results["testOne"], .passed, "XCTest ran")
        XCTAssertEqual(results["adds()"], .passed, "Swift Testing ran, in the same bundle")
        XCTAssertEqual(results["testSkipped"], .skipped)
        XCTAssertEqual(results["later()"], .skipped)

        // Both jobs rode their push's exec: the push's record comes when that exec ended, after the
        // listing (and, for the suite with tests, after its test events).
        for suite in ["mine", "empty"] {
            let jobID = try XCTUnwrap(report.suites.first { $0.spec.name == suite }?.jobs.first?.planned.jobID)
            let mineEvents = events.map(\.body).filter { body in
                switch body {
                case .push(let ref, _), .testsDiscovered(let ref, _), .test(let ref, _): return ref.jobID == jobID
                default: return false
                }
            }
            let pushed = try XCTUnwrap(mineEvents.firstIndex { if case .push = $0 { return true } else { return false } })
            let discovered = try XCTUnwrap(mineEvents.firstIndex { if case .testsDiscovered = $0 { return true } else { return false } })
            XCTAssertGreaterThan(pushed, discovered, "\(suite): listed in the push's exec")
            if suite == "mine" { XCTAssertEqual(pushed, mineEvents.count - 1, "the tests ran in the push's exec") }
        }

        let empty = try XCTUnwrap(report.suites.first { $0.spec.name == "empty" })
        XCTAssertEqual(empty.status, .red)
        XCTAssertTrue(empty.reasons.contains { $0.contains("test discovery: the built products list no tests") }, "\(empty.reasons)")
        XCTAssertEqual(empty.jobs.first?.attempts.count, 1, "never retried")
    }

    /// A later shard and a rerun of the tests that did not pass choose their part from the listing
    /// the run already has for their build key, and run it in their push's exec behind the fresh
    /// listing; the first shard of the key lists on its own exec. One slot, so the attempts follow
    /// each other.
    func testALaterShardAndARerunRunTheirPartInThePushsExec() throws {
        try TemplateDiscoveryFixture.write(into: dir.appendingPathComponent("templates"))
        let flag = "/tmp/xcfleet-flaky-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: flag) }
        let flaky = dir.appendingPathComponent("templates/flaky-tests")
        try FileManager.default.createDirectory(at: flaky, withIntermediateDirectories: true)
        try Data("""
            import XCTest
            import Foundation

            final class FlakyTests: XCTestCase {
                func testOnce() {
                    let flag = "\(flag)"
                    if !FileManager.default.fileExists(atPath: flag) {
                        FileManager.default.createFile(atPath: flag, contents: Data())
                        XCTFail("fails the first time")
                    }
                }
                func testSteady() { XCTAssertTrue(true) }
            }

            """.utf8).write(to: flaky.appendingPathComponent("FlakyTests.swift"))
        let plan = dir.appendingPathComponent("plan.json")
        try Data(#"""
        {"name": "parts-ssh", "suites": [{"name": "sharded", "template": "my-tests", "shards": 2},
          {"name": "flaky", "template": "flaky-tests", "retries": {"testFailures": 1}, "allowFlaky": true}]}
        """#.utf8).write(to: plan)
        let fleetPath = try fleet()
        let oneSlot = try String(contentsOfFile: fleetPath, encoding: .utf8).replacingOccurrences(of: #""slots": 2"#, with: #""slots": 1"#)
        try Data(oneSlot.utf8).write(to: URL(fileURLWithPath: fleetPath))
        let runs = dir.appendingPathComponent("runs")
        let result = try FakeToolchain.xcfleet(["run", plan.path, "--templates", dir.appendingPathComponent("templates").path,
                                                "--fleet", fleetPath, "--runs", runs.path, "--no-history"])
        XCTAssertEqual(result.status, 0, result.stdout + result.stderr)
        let runDir = runs.appendingPathComponent(try XCTUnwrap(try FileManager.default.contentsOfDirectory(atPath: runs.path).first))
        let report = try JSONDecoder().decode(RunReport.self, from: Data(contentsOf: runDir.appendingPathComponent("report.json")))
        let events = try EventLog.read(runDir.appendingPathComponent("events.jsonl"))

        let sharded = try XCTUnwrap(report.suites.first { $0.spec.name == "sharded" })
        XCTAssertEqual(sharded.status, .green, "\(sharded.reasons)\n" + result.stdout)
        XCTAssertEqual(sharded.jobs.count, 2)
        let parts = try sharded.jobs.map { job in
            AttemptTrace(events, AttemptRef(jobID: job.planned.jobID, attempt: try XCTUnwrap(job.decisive?.number)))
        }
        XCTAssertEqual(parts.filter(\.testsRodeThePush).count, 1, "the shard that ran second chained its part: \(parts.map(\.testsRodeThePush))")
        XCTAssertEqual(Set(parts.flatMap { $0.selected }), ["MyTests.MineTests/testOne", "MyTests.MineTests/testSkipped", "MyTests.adds()", "MyTests.later()"])
        XCTAssertEqual(parts.map { $0.selected.count }, [2, 2], "two and two")
        for part in parts { XCTAssertTrue(part.ranOnlyItsPart, "each shard ran its part only: \(part)") }
        XCTAssertEqual(parts.reduce(into: [String: TestStatus]()) { $0.merge($1.ran) { a, _ in a } }["testOne"], .passed)
        XCTAssertEqual(parts.reduce(into: [String: TestStatus]()) { $0.merge($1.ran) { a, _ in a } }["adds()"], .passed)

        let flakySuite = try XCTUnwrap(report.suites.first { $0.spec.name == "flaky" })
        let job = try XCTUnwrap(flakySuite.jobs.first)
        XCTAssertEqual(job.attempts.count, 2, "one rerun")
        let first = AttemptTrace(events, AttemptRef(jobID: job.planned.jobID, attempt: 1))
        let rerun = AttemptTrace(events, AttemptRef(jobID: job.planned.jobID, attempt: 2))
        XCTAssertTrue(first.testsRodeThePush, "every test: chained")
        XCTAssertEqual(first.ran, ["testOnce": .failed, "testSteady": .passed])
        XCTAssertTrue(rerun.testsRodeThePush, "the rerun's part rode its push's exec")
        XCTAssertEqual(rerun.selected, ["FlakyTests.FlakyTests/testOnce"])
        XCTAssertEqual(rerun.ran, ["testOnce": .passed], "only the test that did not pass ran again")
    }
}
