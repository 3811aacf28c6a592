import Foundation
import XCTest
@testable import XCFleetKit
import XCFleetTestSupport

/// Names from input never escape their parent directory.
final class SafePathTests: XCTestCase {
    static let templates: Set<String> = ["cache-contract", "pressure-probes", "combine-lifetime"]

    func problems(_ text: String) -> [String] {
        do {
            _ = try PlanLoader.parse(Data(text.utf8), path: "p.json", knownTemplates: Self.templates)
            return []
        } catch let error as PlanValidationError {
            return error.problems.map(\.description)
        } catch {
            return ["unexpected \(error)"]
        }
    }

    func testDotAndDotDotSuiteNamesAreRejectedAllAtOnceWithFileAndPath() {
        let p = problems("""
        {"name": "p", "suites": [
          {"name": "..", "template": "cache-contract"},
          {"name": ".", "template": "cache-contract"},
          {"name": ".hidden", "template": "cache-contract"},
          {"name": "ok.name_1-2", "template": "cache-contract"}
        ]}
        """)
        guard p.count == 3 else { return XCTFail("expected 3 problems, got: \(p)") }
        XCTAssertTrue(p[0].hasPrefix("p.json:2:12: suites[0].name: must not be '.' or '..'"), p[0])
        XCTAssertTrue(p[1].hasPrefix("p.json:3:12: suites[1].name: must not be '.' or '..'"), p[1])
        XCTAssertTrue(p[2].hasPrefix("p.json:4:12: suites[2].name: must not start with '.'"), p[2])
    }

    func testHostNamesAreRefusedTheSameWay() throws {
        let fleet = """
        {"hosts": [{"name": "..", "address": "10.0.0.1"}]}
        """
        XCTAssertThrowsError(try FleetLoader.parse(Data(fleet.utf8), path: "f.json")) { error in
            XCTAssertTrue("\(error)".contains("hosts[0].name: must not be '.' or '..'"), "\(error)")
        }
    }

    func testComponentAndInsideChecks() {
        for bad in ["", ".", "..", "a/b", "a\u{0}b", "a\nb", String(repeating: "x", count: 256)] {
            XCTAssertNotNil(SafePath.componentProblem(bad), bad.debugDescription)
        }
        XCTAssertNil(SafePath.componentProblem("suite.a_b-1"))
        XCTAssertTrue(SafePath.isStrictlyInside("/a/b/c", parent: "/a/b"))
        XCTAssertTrue(SafePath.isStrictlyInside("/a/b/./c", parent: "/a/b/"))
        XCTAssertFalse(SafePath.isStrictlyInside("/a/b", parent: "/a/b"))
        XCTAssertFalse(SafePath.isStrictlyInside("/a/b/..", parent: "/a/b"))
        XCTAssertFalse(SafePath.isStrictlyInside("/a/b/../b/c", parent: "/a/b"))
        XCTAssertFalse(SafePath.isStrictlyInside("/a/bc", parent: "/a/b"))
        XCTAssertFalse(SafePath.isStrictlyInside("a/b/c", parent: "/a/b"))
    }

    /// The shared mechanism, below the plan loader: even a rendered suite whose folder name is
    /// `..` (a loader bug, a hand-built spec) cannot make `render` remove `--out`'s parent.
    func testRenderOutputNeverRemovesOrWritesOutsideOut() throws {
        let victim = try TestPaths.temporaryDirectory("victim")
        let precious = victim.appendingPathComponent("precious.txt")
        try Data("keep me".utf8).write(to: precious)
        let out = victim.appendingPathComponent("out")
        let workspace = Workspace(files: [WorkspaceFile(path: "Package.swift", contents: Data("// x\n".utf8))])
        let manifest = SuiteManifest(suite: "..", template: "cache-contract", testTarget: "T", mutant: nil)
        for name in ["..", ".", "a/../..", ""] {
            let rendered = RenderedSuite(workspace: workspace, manifest: manifest, directoryName: name)
            XCTAssertThrowsError(try RenderOutput(directory: out).write(rendered), name)
        }
        XCTAssertEqual(try String(contentsOf: precious, encoding: .utf8), "keep me")
        XCTAssertFalse(FileManager.default.fileExists(atPath: victim.appendingPathComponent("Package.swift").path))
        // A symbolic link above the target that leads elsewhere is refused too.
        let elsewhere = try TestPaths.temporaryDirectory("elsewhere")
        try Data("keep".utf8).write(to: elsewhere.appendingPathComponent("ok"))
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(at: out.appendingPathComponent("link"), withDestinationURL: elsewhere)
        XCTAssertThrowsError(try SafePath.remove(out.appendingPathComponent("link/ok"), inside: out))
        XCTAssertTrue(FileManager.default.fileExists(atPath: elsewhere.appendingPathComponent("ok").path))
        // A suite folder that is itself a link is replaced (the link goes), its target is untouched.
        let rendered = RenderedSuite(workspace: workspace, manifest: manifest, directoryName: "link")
        let written = try RenderOutput(directory: out).write(rendered)
        XCTAssertEqual(written.lastPathComponent, "link")
        XCTAssertTrue(FileManager.default.fileExists(atPath: elsewhere.appendingPathComponent("ok").path))
        XCTAssertFalse(FileManager.default.fileExists(atPath: elsewhere.appendingPathComponent("Package.swift").path))
        XCTAssertTrue(FileManager.default.fileExists(atPath: out.appendingPathComponent("link/Package.swift").path))
    }

    func testLocalShellRemovesOnlyJobDirectoriesUnderItsWorkRoot() async throws {
        let root = try TestPaths.temporaryDirectory("localroot")
        let outside = try TestPaths.temporaryDirectory("outside")
        var host = HostSpec.local
        host.workRoot = root.path
        let shell = LocalShell(host: host)
        for path in [outside.path, root.path, root.path + "/jobs", root.path + "/jobs/..", root.path + "/jobs/../../" + outside.lastPathComponent] {
            do {
                try await shell.removeJobDirectory(path)
                XCTFail("removed \(path)")
            } catch let error as RemoteShellError {
                XCTAssertTrue(error.description.contains("refusing"), error.description)
            }
        }
        XCTAssertTrue(FileManager.default.fileExists(atPath: outside.path))
        let dir = try await shell.makeJobDirectory(jobID: "a")
        try await shell.removeJobDirectory(dir)
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir))
    }

    // MARK: run ids (item 7)

    func configuration(runs: URL, id: String, pick: Bool) -> RunConfiguration {
        let plan = TestPlan(name: "p", suites: [SuiteSpec(name: "s", template: "cache-contract")], sourcePath: "p.json")
        return RunConfiguration(plan: plan, fleet: .local, root: TemplateRoot(url: TestPaths.packageRoot), runsDirectory: runs,
                                runID: id, pickNewRunIDIfTaken: pick)
    }

    func testRunIDsAreValidatedAndRunDirectoriesCreatedExclusively() throws {
        let runs = try TestPaths.temporaryDirectory("runs")
        for bad in ["../../x", "..", ".", "a/b", "", ".hidden", "-rf", String(repeating: "a", count: 65), "sp ace", "é"] {
            XCTAssertNotNil(RunID.problem(bad), bad)
            XCTAssertThrowsError(try Runner(config: configuration(runs: runs, id: bad, pick: false)), bad)
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: runs.path), [])
        XCTAssertFalse(FileManager.default.fileExists(atPath: runs.deletingLastPathComponent().appendingPathComponent("x").path))

        let first = try Runner(config: configuration(runs: runs, id: "nightly-1", pick: false))
        let events = first.runDirectory.appendingPathComponent("events.jsonl")
        let before = try Data(contentsOf: events)
        try Data("{\"precious\": true}\n".utf8).write(to: events, options: .atomic)
        // The same id again: refused with a message, the first run's events untouched.
        XCTAssertThrowsError(try Runner(config: configuration(runs: runs, id: "nightly-1", pick: false))) { error in
            XCTAssertTrue("\(error)".contains("already exists"), "\(error)")
        }
        XCTAssertEqual(try String(contentsOf: events, encoding: .utf8), "{\"precious\": true}\n")
        _ = before
        // A default id that is taken: a fresh one is picked.
        let second = try Runner(config: configuration(runs: runs, id: "nightly-1", pick: true))
        XCTAssertNotEqual(second.config.runID, "nightly-1")
        XCTAssertNil(RunID.problem(second.config.runID))
        XCTAssertEqual(try String(contentsOf: events, encoding: .utf8), "{\"precious\": true}\n")
        // The event log itself never truncates an existing file.
        XCTAssertThrowsError(try EventLog(directory: first.runDirectory))
    }

    func testDefaultRunIDsCarryFortyRandomBits() {
        let now = Date()
        let ids = (0..<2000).map { _ in RunID.make(now: now) }
        XCTAssertEqual(Set(ids).count, ids.count, "2000 ids in the same second must not collide")
        let suffix = ids[0].split(separator: "-").last!
        XCTAssertEqual(suffix.count, 10)
        XCTAssertNil(RunID.problem(ids[0]))
    }

    // MARK: log names (item 8)

    func testLogNamesAreInjective() {
        let names = ["a.b", "a_b", "a-b", "a b", "a/b", "a#s1of2", "a_23s1of2", "é", "_c3_a9"]
        let logs = names.map { AttemptExecutor.logName(AttemptRef(jobID: $0, attempt: 1)) }
        XCTAssertEqual(Set(logs).count, names.count, logs.joined(separator: " "))
        XCTAssertEqual(AttemptExecutor.logName(AttemptRef(jobID: "a.b", attempt: 1)), "a_2eb-a1.log")
        XCTAssertEqual(AttemptExecutor.logName(AttemptRef(jobID: "a_b", attempt: 1)), "a_5fb-a1.log")
        for l in logs { XCTAssertNil(SafePath.componentProblem(l), l) }
        let long1 = String(repeating: "x", count: 300) + "1", long2 = String(repeating: "x", count: 300) + "2"
        XCTAssertNotEqual(SafePath.encodedComponent(long1), SafePath.encodedComponent(long2))
        XCTAssertLessThanOrEqual(SafePath.encodedComponent(long1).utf8.count, 200)
    }
}
