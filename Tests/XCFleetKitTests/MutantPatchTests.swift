import Foundation
import XCTest
@testable import XCFleetKit
import XCFleetTestSupport

/// Mutants as exact edits of the real files, applied at render time; repetitions rendering the same
/// build inputs. Uses the repository's real templates and `Sources/CacheContract` (no fixtures).
final class MutantPatchTests: XCTestCase {
    let root = TemplateRoot(url: TestPaths.packageRoot)

    func suite(_ template: String = "cache-contract", repetitions: Int = 1, parameters: [String: PlanValue] = [:]) -> SuiteSpec {
        SuiteSpec(name: "gate", template: template, parameters: parameters, repetitions: repetitions)
    }

    // MARK: MutantEdit.apply

    func testEditsApplyInOrderByteForByte() throws {
        var files = ["a.swift": Data("let x = 1\nlet y = 2\n".utf8), "b.swift": Data("é\n".utf8)]
        try MutantEdit.apply([
            MutantEdit(file: "a.swift", find: "let x = 1\n", replace: "let x = 10\n"),
            MutantEdit(file: "a.swift", find: "x = 10", replace: "x = 11"), // sees the first edit
            MutantEdit(file: "b.swift", find: "é", replace: ""),
        ], mutant: "m", to: &files)
        XCTAssertEqual(String(decoding: files["a.swift"]!, as: UTF8.self), "let x = 11\nlet y = 2\n")
        XCTAssertEqual(String(decoding: files["b.swift"]!, as: UTF8.self), "\n")
    }

    func testFindThatIsMissingNamesTheMutantTheFileAndTheText() {
        var files = ["Sources/CacheContract/MemoryKey.swift": Data("hasher.combine(resource)\n".utf8)]
        let edit = MutantEdit(file: "Sources/CacheContract/MemoryKey.swift", find: "hasher.combine(account)\n", replace: "")
        XCTAssertThrowsError(try MutantEdit.apply([edit], mutant: "key-without-account", to: &files)) { error in
            XCTAssertEqual(error as? RenderError, .mutantDoesNotApply(mutant: "key-without-account", file: "Sources/CacheContract/MemoryKey.swift",
                                                                      edit: 0, find: "hasher.combine(account)\n", occurrences: 0))
            XCTAssertEqual("\(error)", #"mutant key-without-account does not apply: Sources/CacheContract/MemoryKey.swift does not contain the text of edits[0].find "hasher.combine(account)\n" (the file changed; update Templates/mutants/key-without-account/mutant.json)"#)
        }
        // Unchanged on failure: nothing half-applied is used.
        XCTAssertEqual(files["Sources/CacheContract/MemoryKey.swift"], Data("hasher.combine(resource)\n".utf8))
    }

    func testAmbiguousFindIsAnErrorNotTheFirstMatch() {
        var files = ["f.swift": Data("a == b\n&& a == b\n".utf8)]
        XCTAssertThrowsError(try MutantEdit.apply([MutantEdit(file: "f.swift", find: "a == b", replace: "true")], mutant: "m", to: &files)) { error in
            XCTAssertEqual(error as? RenderError, .mutantDoesNotApply(mutant: "m", file: "f.swift", edit: 0, find: "a == b", occurrences: 2))
            XCTAssertTrue("\(error)".contains("occurs more than once in f.swift"), "\(error)")
            XCTAssertTrue("\(error)".contains("exactly once"), "\(error)")
        }
        // Overlapping occurrences count too ("aa" twice in "aaa").
        XCTAssertEqual(MutantEdit.occurrences(of: Array("aa".utf8), in: Array("aaa".utf8), limit: 5), [0, 1])
        XCTAssertEqual(MutantEdit.occurrences(of: Array("abc".utf8), in: Array("ab".utf8), limit: 5), [])
    }

    func testEditOfAFileThePackageDoesNotHave() {
        var files: [String: Data] = [:]
        XCTAssertThrowsError(try MutantEdit.apply([MutantEdit(file: "Sources/CacheContract/Nope.swift", find: "x", replace: "y")], mutant: "m", to: &files)) { error in
            XCTAssertEqual("\(error)", "mutant m edits Sources/CacheContract/Nope.swift, which the rendered package does not have")
        }
    }

    // MARK: mutant.json

    func write(_ text: String) throws -> URL {
        let dir = try TestPaths.temporaryDirectory("mutant-json")
        let url = dir.appendingPathComponent("mutant.json")
        try Data(text.utf8).write(to: url)
        return url
    }

    func testMutantJSONAllowsCommentsAndRejectsBadSpecsWithTheFileNamed() throws {
        let good = try write("""
        // a comment
        { "id": "m-1", "fault": "f", "contract": "C1", "template": "cache-contract",
          "edits": [ { "file": "Sources/CacheContract/MemoryKey.swift", "find": "a", "replace": "b" }, ], }
        """)
        XCTAssertEqual(try MutantSpec.load(good).files, ["Sources/CacheContract/MemoryKey.swift"])

        let cases: [(String, String)] = [
            (#"{"id": "m", "fault": "f", "contract": "C1", "template": "t", "replaces": "Sources/CacheContract/MemoryKey.swift", "file": "MemoryKey.swift"}"#, "old full-file form"),
            (#"{"id": "m", "fault": "f", "contract": "C1", "template": "t", "edits": []}"#, "\"edits\" is empty"),
            (#"{"id": "m", "fault": "f", "contract": "C1", "template": "t", "edits": [{"file": "../x.swift", "find": "a", "replace": "b"}]}"#, "edits[0].file \"../x.swift\": '..' in path"),
            (#"{"id": "m", "fault": "f", "contract": "C1", "template": "t", "edits": [{"file": "x.swift", "find": "", "replace": "b"}]}"#, "edits[0].find is empty"),
            (#"{"id": "m", "fault": "f", "contract": "C1", "template": "t", "edits": [{"file": "x.swift", "replace": "b"}]}"#, "missing \"edits[0].find\""),
            (#"{"id": "../m", "fault": "f", "contract": "C1", "template": "t", "edits": [{"file": "x.swift", "find": "a", "replace": "b"}]}"#, "\"id\" must be"),
        ]
        for (text, expected) in cases {
            let url = try write(text)
            XCTAssertThrowsError(try MutantSpec.load(url), text) { error in
                let message = "\(error)"
                XCTAssertTrue(message.hasPrefix(url.path + ": not a valid mutant description: "), message)
                XCTAssertTrue(message.contains(expected), "\(message) should contain \(expected)")
            }
        }
    }

    // MARK: the shipped mutants

    func testEveryShippedMutantAppliesToTheRealFilesAndChangesOnlyThem() throws {
        let mutants = try MutantSpec.all(in: root)
        XCTAssertEqual(mutants.count, 9)
        XCTAssertEqual(mutants.filter { $0.template == "cache-contract" }.count, 6)
        let renderer = Renderer(root: root)
        var gates: [String: RenderedSuite] = [:]
        for mutant in mutants {
            let spec = suite(mutant.template)
            let gate = try gates[mutant.template] ?? renderer.renderGate(spec)
            gates[mutant.template] = gate
            let variant = try renderer.render(spec, mutant: mutant)
            XCTAssertEqual(variant.workspace, try renderer.variant(of: gate, suite: spec, mutant: mutant).workspace)
            XCTAssertEqual(variant.manifest.mutant, mutant.id)
            XCTAssertEqual(variant.directoryName, "gate-mutant-\(mutant.id)")
            // Differs from the gate only in the edited files and the run-only files.
            let a = gate.workspace.fileHashes, b = variant.workspace.fileHashes
            XCTAssertEqual(Set(a.keys), Set(b.keys))
            let changed = Set(a.keys.filter { a[$0] != b[$0] })
            XCTAssertEqual(changed.subtracting(Renderer.runOnlyPaths), Set(mutant.files), mutant.id)
            XCTAssertEqual(variant.workspace.excluding(Renderer.runOnlyPaths).files.count, gate.workspace.files.count - 2)
            XCTAssertEqual(variant.manifest.testTarget, gate.manifest.testTarget, mutant.id)
        }
    }

    func testAMutantThatNoLongerAppliesIsAClearRenderError() throws {
        let copy = try TestPaths.temporaryDirectory("stale-root")
        for part in ["Templates", "Sources/CacheContract"] {
            let dest = copy.appendingPathComponent(part)
            try FileManager.default.createDirectory(at: dest.deletingLastPathComponent(), withIntermediateDirectories: true)
            try FileManager.default.copyItem(at: TestPaths.packageRoot.appendingPathComponent(part), to: dest)
        }
        // Someone edits the real key: `hasher.combine(account)` becomes `hasher.combine(self.account)`.
        let key = copy.appendingPathComponent("Sources/CacheContract/MemoryKey.swift")
        let text = try String(contentsOf: key, encoding: .utf8)
        XCTAssertTrue(text.contains("hasher.combine(account)"))
        try Data(text.replacingOccurrences(of: "hasher.combine(account)", with: "hasher.combine(self.account)").utf8).write(to: key)
        let root = TemplateRoot(url: copy)
        let mutant = try XCTUnwrap(try MutantSpec.all(in: root).first { $0.id == "key-without-account" })
        XCTAssertThrowsError(try Renderer(root: root).render(suite(), mutant: mutant)) { error in
            let message = "\(error)"
            XCTAssertTrue(message.hasPrefix("mutant key-without-account does not apply: Sources/CacheContract/MemoryKey.swift does not contain the text of edits[0].find"), message)
        }
        // The CLI says the same in one line with exit code 2 (no backtrace).
        let plan = copy.appendingPathComponent("plan.json")
        try Data(#"{"name": "p", "suites": [{"name": "gate", "template": "cache-contract"}]}"#.utf8).write(to: plan)
        let result = try runCommand(TestPaths.xcfleetBinary, ["render", plan.path, "--out", copy.appendingPathComponent("out").path,
                                                              "--mutant", "key-without-account", "--templates", copy.path])
        XCTAssertEqual(result.status, 2, result.stdout + result.stderr)
        XCTAssertEqual(result.stderr.split(separator: "\n").count, 1, result.stderr)
        XCTAssertTrue(result.stderr.contains("mutant key-without-account does not apply: Sources/CacheContract/MemoryKey.swift"), result.stderr)
        // The unchanged mutants still render.
        let ok = try runCommand(TestPaths.xcfleetBinary, ["render", plan.path, "--out", copy.appendingPathComponent("out").path,
                                                          "--mutant", "empty-as-miss", "--templates", copy.path])
        XCTAssertEqual(ok.status, 0, ok.stderr)
        let patched = try String(contentsOf: copy.appendingPathComponent("out/gate-mutant-empty-as-miss/Sources/CacheContract/SessionMemoryCache.swift"), encoding: .utf8)
        XCTAssertTrue(patched.contains("value.length > 0 else { return nil }"))
    }

    // MARK: repetitions share a build

    func testRepetitionsRenderByteIdenticalPackages() throws {
        let renderer = Renderer(root: root)
        let spec = suite("pressure-probes", repetitions: 3, parameters: ["objectSizes": .string("512,4096")])
        let reps = try (0..<3).map { try renderer.render(spec, repetition: $0) }
        XCTAssertEqual(reps.map(\.directoryName), ["gate-rep0", "gate-rep1", "gate-rep2"])
        XCTAssertEqual(Set(reps.map(\.workspace.contentHash)).count, 1, "every repetition is the same package")
        let settings = try XCTUnwrap(reps[2].workspace.file("Tests/PressureProbeTests/XCFleetSettings.swift"))
        let text = String(decoding: settings.contents, as: UTF8.self)
        XCTAssertFalse(text.contains("repetition"), text)
        XCTAssertTrue(text.contains("\"objectSizes\": \"512,4096\""), text)
        XCTAssertFalse(text.contains("mutant"))

        // The planner gives every repetition (and shard) the same workspace and the repetition at run time.
        let plan = TestPlan(name: "p", suites: [spec], sourcePath: "p.json")
        let jobs = try JobPlanner(renderer: renderer, mutants: []).jobs(for: plan)
        XCTAssertEqual(jobs.count, 3)
        XCTAssertEqual(Set(jobs.map(\.workspace.contentHash)).count, 1)
        XCTAssertEqual(jobs.map { TestRunEnvironment.variables(for: $0.planned) },
                       [["XCFLEET_REPETITION": "0"], ["XCFLEET_REPETITION": "1"], ["XCFLEET_REPETITION": "2"]])
        XCTAssertEqual(TestRunEnvironment.xcodebuild(["XCFLEET_REPETITION": "2"]), ["TEST_RUNNER_XCFLEET_REPETITION": "2"])
        let command = SwiftPMDriver().testCommand(only: nil, environment: TestRunEnvironment.variables(for: jobs[1].planned))
        XCTAssertEqual(command.environment, ["XCFLEET_REPETITION": "1"])
    }

    func testFileHashesArePerFileSHA256() {
        let ws = Workspace(files: [WorkspaceFile(path: "b", contents: Data("abc".utf8)), WorkspaceFile(path: "a", contents: Data())])
        XCTAssertEqual(ws.fileHashes, [
            "a": "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
            "b": "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
        ])
        XCTAssertEqual(ws.excluding(["a"]).files.map(\.path), ["b"])
    }
}
