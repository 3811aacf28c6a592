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
    /// What a listing on its own exec prints, without the `dropped` lines.
    static func dropping(_ dropped: Set<String>) -> InterposedShell.Run {
        { inner, command, directory, deadlines, output in
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
    }

    func testAChainedPartTheFreshListingDoesNotChooseIsStoppedAndThePartRunsOnItsOwn() async throws {
        let base = try TestPaths.temporaryDirectory("chained-part-mismatch")
        let templates = base.appendingPathComponent("templates")
        try TemplateDiscoveryFixture.write(into: templates)
        var host = try XCTUnwrap(try TestHosts.hosts().first).spec
        host.slots = 1
        host.workRoot += "-mismatch-" + UUID().uuidString.prefix(6)
        let plan = try PlanLoader.parse(Data(#"{"name": "p", "suites": [{"name": "sharded", "template": "my-tests", "shards": 2}]}"#.utf8),
                                        path: "p.json", knownTemplates: ["my-tests"])
        var config = RunConfiguration(plan: plan, fleet: Fleet(hosts: [host]), root: TemplateRoot(url: TestPaths.packageRoot),
                                      runsDirectory: base.appendingPathComponent("runs"))
        config.userTemplates = templates
        let runner = try Runner(config: config, shellFactory: { spec, timeouts in
            InterposedShell(try await Runner.defaultShellFactory(spec, timeouts), run: Self.dropping(["MyTests.adds()", "MyTests.later()"]))
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
        let trace = AttemptTrace(events, second)
        let order = trace.order
        XCTAssertEqual(order.filter { $0 == "push" }.count, 1, "the stopped exec's push is logged: \(order)")
        let push = try XCTUnwrap(order.firstIndex(of: "push")), firstTest = try XCTUnwrap(order.firstIndex(of: "test"))
        XCTAssertLessThan(push, firstTest, "the part ran on its own exec, after the stopped one ended")
        XCTAssertEqual(trace.selected.count, 2, "the fresh listing's part: 2 of its 4 tests")
        XCTAssertFalse(trace.ran.isEmpty)
        XCTAssertTrue(trace.ranOnlyItsPart, "\(trace.ran.keys) not all in \(trace.selected)")
    }
}
