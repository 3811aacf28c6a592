import Foundation
import XCTest
@testable import XCFleetKit
import XCFleetTestSupport

/// Build once per fleet on two real loopback sshd hosts of one class (the same toolchain), through
/// the real binary: the shards of one suite start on both hosts at once; one host compiles, the
/// other waits for that build and receives it, and nothing is compiled twice.
final class BuildRelayTests: XCTestCase {
    func testTwoHostsOfOneClassCompileOnceAndTheOtherReceivesTheBuild() throws {
        let hosts = try TestHosts.hosts()
        let dir = try TestPaths.temporaryDirectory("relay")
        let entries = hosts.prefix(2).map { h in
            """
            {"name": "\(h.name)", "address": "127.0.0.1", "port": \(h.port), "user": "\(h.user)",
             "identityFile": "\(h.identityFile)", "knownHostsFile": "\(h.knownHostsFile)", "slots": 1,
             "labels": ["platform:linux", "swift"], "workRoot": "~/xcfleet-relay-\(UUID().uuidString.prefix(8))",
             "toolchain": {"swiftPath": "/opt/swift/usr/bin/swift"}}
            """
        }
        let fleet = dir.appendingPathComponent("fleet.json")
        try Data(#"{"hosts": [\#(entries.joined(separator: ","))]}"#.utf8).write(to: fleet)
        let plan = dir.appendingPathComponent("relay.json")
        try Data(#"{"name": "relay", "suites": [{"name": "cache-gate", "template": "cache-contract", "shards": 2}]}"#.utf8).write(to: plan)
        let runs = dir.appendingPathComponent("runs")
        let r = try TestShell.runProcess(XCFleetProcess.binary.path, ["run", plan.path, "--fleet", fleet.path, "--runs", runs.path],
                                         cwd: TestHosts.packageRoot)
        XCTAssertEqual(r.status, 0, r.stdout + r.stderr)
        let run = try XCTUnwrap(try FileManager.default.contentsOfDirectory(atPath: runs.path).first)
        let events = try EventLog.read(runs.appendingPathComponent(run).appendingPathComponent("events.jsonl"))
        let records = events.compactMap { if case .build(_, let b) = $0.body { return b } else { return nil } }
        let compiled = records.filter { $0.origin != .cached }
        XCTAssertEqual(compiled.count, 1, "one compilation in the fleet: \(records)")
        XCTAssertEqual(Set(records.map(\.host)).count, 2, "both hosts ran a shard: \(records)")
        let notes = events.compactMap { if case .note(let n) = $0.body { return n } else { return nil } }
        let received = notes.filter { $0.contains("received the build") }
        XCTAssertEqual(received.count, 1, notes.joined(separator: "\n"))
        XCTAssertTrue(received.first?.contains("not compiled on") == true, received.joined())
        XCTAssertEqual(Set(records.compactMap(\.product)).count, 1, "the same product on both hosts")
    }
}
