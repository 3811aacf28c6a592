import Foundation
import XCTest
@testable import XCFleetKit
import XCFleetModel
import XCFleetCore
import XCFleetTestSupport

/// A later shard chooses its part from the listing the run already has for its build key and runs
/// it behind its push's fresh listing; when the fresh listing chooses another part, the chained
/// test is stopped (none of its output is read), the push is still logged, and the part the fresh
/// listing chose runs on its own exec. The real toolchain on a real sshd host (a push is chained
/// over SSH only), one slot;
/// a listing on its own exec (the first shard's) is made to lack the two Swift Testing tests, as
/// if the bundle had listed so, so the second shard's two parts differ in size.
final class ChainedPartMismatchTests: XCTestCase {
    /// The SSH shell; what a listing on its own exec prints loses the `dropped` lines.
    struct ListingDroppingShell: RemoteShell {
        let inner: any RemoteShell
        let dropped: Set<String>
        var host: HostSpec { inner.host }
        func makeJobDirectory(jobID: String) async throws -> String { try await inner.makeJobDirectory(jobID: jobID) }
        func push(_ workspace: Workspace, to directory: String) async throws -> PushOutcome { try await inner.push(workspace, to: directory) }
        func run(_ command: ShellCommand, in directory: String, deadlines: CommandDeadlines,
                 output: @escaping @Sendable (OutputChunk) -> Void) async throws -> CommandTermination {
            guard command.arguments.contains(where: { $0.contains("--list-tests") }) else {
                return try await inner.run(command, in: directory, deadlines: deadlines, output: output)
            }
            let sink = OutputSink(limit: 16 << 20)
            let termination = try await inner.run(command, in: directory, deadlines: deadlines) { sink.add($0) }
            let kept = sink.stdoutText.split(separator: "\n", omittingEmptySubsequences: false).filter { !dropped.contains(String($0)) }
            output(OutputChunk(stream: .stdout, bytes: Array(kept.joined(separator: "\n").utf8)))
            if !sink.stderrText.isEmpty { output(OutputChunk(stream: .stderr, bytes: Array(sink.stderrText.utf8))) }
            return termination
        }
        func fetch(_ path: String, in directory: String) async throws -> Data { try await inner.fetch(path, in: directory) }
        func removeJobDirectory(_ directory: String) async throws { try await inner.removeJobDirectory(directory) }
        func close() async { await inner.close() }
        func prepareJob(jobID: String, workspace: Workspace, pushSeconds: Double, directoryCreated: @escaping @Sendable (String) -> Void,
                        then: @escaping @Sendable (String) throws -> ShellCommand?, deadlines: CommandDeadlines,
                        output: @escaping @Sendable (OutputChunk) -> Void) async throws -> JobPreparation {
            try await inner.prepareJob(jobID: jobID, workspace: workspace, pushSeconds: pushSeconds, directoryCreated: directoryCreated,
                                       then: then, deadlines: deadlines, output: output)
        }
        func finishAndRemoveJobDirectory(_ directory: String, finish: ShellCommand, deadlines: CommandDeadlines,
                                         output: @escaping @Sendable (OutputChunk) -> Void) async throws -> CommandTermination {
            try await inner.finishAndRemoveJobDirectory(directory, finish: finish, deadlines: deadlines, output: output)
        }
    }

    func testAChainedPartTheFreshListingDoesNotChooseIsStoppedAndThePartRunsOnItsOwn() async throws {
        let base = try TestPaths.temporaryDirectory("chained-part-mismatch")
        let templates = base.appendingPathComponent("templates")
        try TemplateDiscoveryFixture.write(into: templates)
        let h = try XCTUnwrap(try TestHosts.hosts().first)
        let workRoot = "\(h.directory)/\(h.name)/mismatch-\(UUID().uuidString.prefix(6))"
        let fleetFile = base.appendingPathComponent("fleet.json")
        try Data("""
        {"hosts": [{"name": "\(h.name)", "address": "127.0.0.1", "port": \(h.port), "user": "\(h.user)",
          "identityFile": "\(h.identityFile)", "knownHostsFile": "\(h.knownHostsFile)", "slots": 1,
          "labels": ["platform:linux", "swift"], "workRoot": "\(workRoot)",
          "toolchain": {"swiftPath": "/opt/swift/usr/bin/swift"}}]}
        """.utf8).write(to: fleetFile)
        let plan = try PlanLoader.parse(Data(#"{"name": "p", "suites": [{"name": "sharded", "template": "my-tests", "shards": 2}]}"#.utf8),
                                        path: "p.json", knownTemplates: ["my-tests"])
        var config = RunConfiguration(plan: plan, fleet: try FleetLoader.load(path: fleetFile.path), root: TemplateRoot(url: TestPaths.packageRoot),
                                      runsDirectory: base.appendingPathComponent("runs"))
        config.userTemplates = templates
        let runner = try Runner(config: config, shellFactory: { spec, timeouts in
            ListingDroppingShell(inner: try await Runner.defaultShellFactory(spec, timeouts), dropped: ["MyTests.adds()", "MyTests.later()"])
        })
        let report = try await runner.run()
        let events = try EventLog.read(runner.runDirectory.appendingPathComponent("events.jsonl"))
        XCTAssertEqual(report.exitCode, 0, report.verdictLine + " " + report.notes.joined(separator: " | "))

        let started = events.compactMap { e -> AttemptRef? in if case .attemptStarted(let ref, _, _) = e.body { return ref }; return nil }
        XCTAssertEqual(started.count, 2, "two shards, one attempt each")
        let second = try XCTUnwrap(started.last)
        let notes = report.notes.filter { $0.contains("not the part its fresh listing chose") }
        XCTAssertEqual(notes.count, 1, "\(report.notes)")
        XCTAssertTrue(notes.first?.hasPrefix(second.jobID + " attempt 1:") == true, "\(notes)")
        var order: [String] = [], selected: [String] = [], ran: Set<String> = []
        for body in events.map(\.body) {
            switch body {
            case .push(let r, _) where r == second: order.append("push")
            case .testsDiscovered(let r, let found) where r == second: order.append("discovered"); selected = found.selected
            case .test(let r, let e) where r == second:
                order.append("test")
                if case .testFinished(let id, _, _, _, _) = e { ran.insert(id.name) }
            default: break
            }
        }
        XCTAssertEqual(order.filter { $0 == "push" }.count, 1, "the stopped exec's push is logged: \(order)")
        let push = try XCTUnwrap(order.firstIndex(of: "push")), firstTest = try XCTUnwrap(order.firstIndex(of: "test"))
        XCTAssertLessThan(push, firstTest, "the part ran on its own exec, after the stopped one ended")
        XCTAssertEqual(selected.count, 2, "the fresh listing's part: 2 of its 4 tests")
        XCTAssertFalse(ran.isEmpty)
        for name in ran { XCTAssertTrue(selected.contains { $0.hasSuffix("/" + name) || $0.hasSuffix("." + name) }, "\(name) not in \(selected)") }
    }
}
