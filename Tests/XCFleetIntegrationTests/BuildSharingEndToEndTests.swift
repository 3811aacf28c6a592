import Foundation
import XCTest
@testable import XCFleetKit
import XCFleetTestSupport

/// Two concurrent `xcfleet` processes with the same plan on one host (real toolchain) compile
/// the package once between them when their build phases overlap (twice when they do not: a build
/// is reused only against the orchestrator's own record, docs/builds.md); the reports show where each build came from and still
/// rebuild byte-identically from events.jsonl.
final class BuildSharingEndToEndTests: XCTestCase {
    func testTwoConcurrentProcessesWithTheSamePlanBuildOnce() throws {
        let dir = try TestPaths.temporaryDirectory()
        let root = dir.appendingPathComponent("work").path
        var processes: [(Process, URL)] = []
        for (i, slots) in [1, 2].enumerated() {
            // Different slot counts, so the second process finds a free slot lease beside the first.
            let fleet = dir.appendingPathComponent("fleet\(i).json")
            try Data(#"{"hosts": [{"name": "local", "transport": "local", "slots": \#(slots), "workRoot": "\#(root)", "toolchain": {"swiftPath": "/opt/swift/usr/bin/swift"}}]}"#.utf8).write(to: fleet)
            let runs = dir.appendingPathComponent("runs\(i)")
            let p = Process()
            p.executableURL = TestPaths.xcfleetBinary
            p.arguments = ["run", "Plans/cache-contract.json", "--fleet", fleet.path, "--runs", runs.path]
            p.currentDirectoryURL = TestPaths.packageRoot
            p.standardOutput = FileHandle.nullDevice
            p.standardError = FileHandle.nullDevice
            try p.run()
            processes.append((p, runs))
        }
        var records: [BuildRecord] = []
        for (p, runs) in processes {
            p.waitUntilExit()
            XCTAssertEqual(p.terminationStatus, 0)
            let run = try XCTUnwrap(try FileManager.default.contentsOfDirectory(atPath: runs.path).first)
            let runDir = runs.appendingPathComponent(run)
            let events = try EventLog.read(runDir.appendingPathComponent("events.jsonl"))
            records += events.compactMap { if case .build(_, let r) = $0.body { return r } else { return nil } }
            // Reports carry the build and rebuild byte-identically from the events.
            let html = try String(contentsOf: runDir.appendingPathComponent("report.html"), encoding: .utf8)
            XCTAssertTrue(html.contains("Builds: "), "report.html shows the builds")
            let report = try JSONDecoder().decode(RunReport.self, from: Data(contentsOf: runDir.appendingPathComponent("report.json")))
            XCTAssertNotNil(report.suites[0].jobs[0].attempts[0].build)
            let before = try ["report.json", "report.html", "summary.md", "junit.xml"].map { try Data(contentsOf: runDir.appendingPathComponent($0)) }
            let r = try TestShell.runProcess(TestPaths.xcfleetBinary.path, ["report", runDir.path])
            XCTAssertTrue(r.status == 0 || r.status == 1, r.stderr)
            let after = try ["report.json", "report.html", "summary.md", "junit.xml"].map { try Data(contentsOf: runDir.appendingPathComponent($0)) }
            XCTAssertEqual(before, after, "reports rebuild byte-identically")
        }
        XCTAssertEqual(records.count, 2, "one build record per attempt")
        XCTAssertEqual(Set(records.map(\.key)).count, 1)
        // One build when the second process waited for the first one's build lock; a process whose
        // build phase started after the other's build was finished has no record of it (the history
        // is written at the end of a run) and builds once more, saying so.
        let built = records.filter { $0.origin != .cached }
        if built.count == 2 {
            XCTAssertEqual(built.compactMap(\.untrusted), ["xcfleet holds no record of building it on this host"], "\(records)")
            // Each build records the digest of what it made (a rebuild need not be byte-identical:
            // two cold builds of one key gave different bundles on CI), and each run checks its own.
            XCTAssertEqual(built.compactMap(\.product).count, 2, "each build's product digest is recorded: \(records)")
        } else {
            XCTAssertEqual(built.count, 1, "exactly one build between both processes: \(records)")
        }
    }
}
