import Foundation
import XCTest
@testable import XCFleetKit
import XCFleetTestSupport

/// A suite's `subject` (a team's package, module and adapter): plan validation with file:line:col,
/// the harness package rendered around the team's untouched package, claims and the team's
/// mutants; a team's own templates under `--templates DIR`. Real files in temporary folders.
final class SubjectPlanTests: XCTestCase {
    private var repo: URL!
    let root = TemplateRoot(url: TestPaths.packageRoot)

    /// repo/.git, repo/App/Package.swift (targets AppCore, AppUI), repo/App/Sources/AppCore/Key.swift,
    /// repo/App/Contract/Adapter.swift, repo/App/Plans/ (where plans are written).
    override func setUpWithError() throws {
        repo = try TestPaths.temporaryDirectory("subject-repo")
        let fm = FileManager.default
        for dir in [".git", "App/Sources/AppCore", "App/Contract", "App/Plans"] {
            try fm.createDirectory(at: repo.appendingPathComponent(dir), withIntermediateDirectories: true)
        }
        try write("App/Package.swift", """
        // swift-tools-version:6.0
        import PackageDescription
        let package = Package(name: "App", products: [.library(name: "AppCoreKit", targets: ["AppCore"])],
            targets: [.target(name: "AppCore"), .target(
                name: "AppUI", dependencies: ["AppCore"])])
        """)
        try write("App/Sources/AppCore/Key.swift", "let sameAccount = lhs.owner == rhs.owner\n")
        try write("App/Contract/Adapter.swift", "// adapter\n")
    }

    private func write(_ rel: String, _ text: String) throws {
        try Data(text.utf8).write(to: repo.appendingPathComponent(rel))
    }

    private func plan(_ subject: String, template: String = "cache-contract", mutants: Bool = false) throws -> String {
        let path = repo.appendingPathComponent("App/Plans/p.json").path
        try Data("""
        {"name": "p", "suites": [{"name": "gate", "template": "\(template)", "mutants": \(mutants),
          "subject": \(subject)}]}
        """.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    private func problems(_ subject: String, template: String = "cache-contract") throws -> [String] {
        let path = try plan(subject, template: template)
        do {
            _ = try PlanLoader.load(path: path, knownTemplates: TemplateInfo.names)
            return []
        } catch let e as ValidationError {
            return e.problems.map { $0.description.replacingOccurrences(of: path, with: "p.json") }
        }
    }

    func testAValidSubjectResolvesItsPathsInsideTheRepository() throws {
        let path = try plan(#"{"package": "..", "module": "AppCore", "product": "AppCoreKit", "adapter": "../Contract/Adapter.swift", "claims": ["C1", "C5"]}"#)
        let suite = try PlanLoader.load(path: path, knownTemplates: TemplateInfo.names).suites[0]
        let subject = try XCTUnwrap(suite.subject)
        let real = SafePath.resolvedExisting(repo.path)
        XCTAssertEqual(subject.packageDirectory, real + "/App")
        XCTAssertEqual(subject.adapterPath, real + "/App/Contract/Adapter.swift")
        XCTAssertEqual(subject.product, "AppCoreKit")
        XCTAssertEqual(subject.claims, ["C1", "C5"])
    }

    func testEachProblemOfASubjectIsOneLineWithFileLineAndColumn() throws {
        XCTAssertEqual(try problems(#"{"package": "../Nope", "module": "AppCore", "adapter": "../Contract/Adapter.swift"}"#).first?
            .hasPrefix("p.json:2:26: suites[0].subject.package: package folder '../Nope' does not exist"), true)
        XCTAssertEqual(try problems(#"{"package": "../Contract", "module": "AppCore", "adapter": "../Contract/Adapter.swift"}"#),
                       ["p.json:2:26: suites[0].subject.package: '../Contract' holds no Package.swift; name the folder of a SwiftPM package"])
        XCTAssertEqual(try problems(#"{"package": "..", "module": "AppCore", "adapter": "../Contract/Missing.swift"}"#).first?
            .hasPrefix("p.json:2:64: suites[0].subject.adapter: adapter file '../Contract/Missing.swift' does not exist"), true)
        XCTAssertEqual(try problems(#"{"package": "..", "module": "AppCor", "adapter": "../Contract/Adapter.swift"}"#),
                       [#"p.json:2:42: suites[0].subject.module: unknown module 'AppCor': the package's Package.swift declares no target named "AppCor"; did you mean 'AppCore'? (targets: AppCore, AppUI)"#])
        XCTAssertEqual(try problems(#"{"package": "../../..", "module": "AppCore", "adapter": "../Contract/Adapter.swift"}"#).first?
            .contains("suites[0].subject.package: the package path '../../..' leaves the repository"), true)
        XCTAssertEqual(try problems(#"{"package": "..", "module": "AppCore", "adapter": "../Contract/Adapter.swift", "claims": ["C99"]}"#).first?
            .contains("'C99' is not an id of the cache-contract/2 contract"), true)
        XCTAssertEqual(try problems(#"{"package": "..", "module": "AppCore", "adapter": "../Contract/Adapter.swift", "claims": ["C1"]}"#, template: "combine-lifetime").first?
            .contains("'C1' is not an id of the combine-lifetime/1 contract (ids: K1, K2,"), true)
    }

    func testASymbolicLinkOutOfTheRepositoryIsRefused() throws {
        let outside = try TestPaths.temporaryDirectory("subject-outside")
        try Data("// swift-tools-version:6.0\n".utf8).write(to: outside.appendingPathComponent("Package.swift"))
        try FileManager.default.createSymbolicLink(at: repo.appendingPathComponent("App/Linked"), withDestinationURL: outside)
        XCTAssertEqual(try problems(#"{"package": "../Linked", "module": "AppCore", "adapter": "../Contract/Adapter.swift"}"#).first?
            .contains("leaves the repository"), true)
    }

    func testAStaleMutantOfTheTeamIsAPlanProblemNamingTheMutantTheFileAndWhereItIsDeclared() throws {
        let stale = #"{"package": "..", "module": "AppCore", "adapter": "../Contract/Adapter.swift", "mutants": [{"id": "m1", "fault": "f", "contract": "C1", "edits": [{"file": "Sources/AppCore/Key.swift", "find": "lhs.account == rhs.account", "replace": "true"}]}]}"#
        let lines = try problems(stale)
        XCTAssertEqual(lines.count, 1, "\(lines)")
        XCTAssertTrue(lines[0].contains(#"mutant m1 does not apply: Sources/AppCore/Key.swift does not contain the text of edits[0].find "lhs.account == rhs.account" (the file changed; update the plan's subject.mutants)"#), lines[0])
        let missing = #"{"package": "..", "module": "AppCore", "adapter": "../Contract/Adapter.swift", "mutants": [{"id": "m2", "fault": "f", "contract": "C1", "edits": [{"file": "Sources/AppCore/Gone.swift", "find": "a", "replace": "b"}]}]}"#
        let missingLines = try problems(missing)
        XCTAssertTrue(missingLines.first?.contains("mutant m2 edits Sources/AppCore/Gone.swift, which the package") == true, "\(missingLines)")
    }

    func testTheHarnessDependsOnTheTeamsUntouchedPackageAndLeavesUnclaimedTestsOut() throws {
        try FileManager.default.createDirectory(at: repo.appendingPathComponent("App/Contract/mutants/m1"), withIntermediateDirectories: true)
        try write("App/Contract/mutants/m1/mutant.json", #"{"id": "m1", "fault": "owner ignored", "contract": "C1", "edits": [{"file": "Sources/AppCore/Key.swift", "find": "lhs.owner == rhs.owner", "replace": "true"}]}"#)
        try FileManager.default.createDirectory(at: repo.appendingPathComponent("App/.build/debug"), withIntermediateDirectories: true)
        try write("App/.build/debug/junk", "built")
        let path = try plan(#"{"package": "..", "module": "AppCore", "product": "AppCoreKit", "adapter": "../Contract/Adapter.swift", "claims": ["C1", "C5"]}"#, mutants: true)
        let suite = try PlanLoader.load(path: path, knownTemplates: TemplateInfo.names).suites[0]
        let renderer = Renderer(root: root)
        let gate = try renderer.renderGate(suite)
        let paths = Set(gate.workspace.files.map(\.path))
        XCTAssertTrue(paths.contains("Subject/App/Package.swift"))
        XCTAssertTrue(paths.contains("Subject/App/Sources/AppCore/Key.swift"))
        XCTAssertTrue(paths.contains("Tests/CacheContractTests/Adapter.swift"))
        XCTAssertFalse(paths.contains { $0.contains(".build") }, "never .build")
        XCTAssertFalse(paths.contains { $0.hasPrefix("Sources/CacheContract/") || $0.hasSuffix("ReferenceAdapter.swift") }, "no reference code")
        XCTAssertEqual(gate.workspace.file("Subject/App/Package.swift")?.contents, try Data(contentsOf: repo.appendingPathComponent("App/Package.swift")))
        let harness = String(decoding: try XCTUnwrap(gate.workspace.file("Package.swift")).contents, as: UTF8.self)
        XCTAssertTrue(harness.contains(#".package(path: "Subject/App")"#), harness)
        XCTAssertTrue(harness.contains(#".product(name: "AppCoreKit", package: "App")"#), harness)
        let settings = String(decoding: try XCTUnwrap(gate.workspace.file("Tests/CacheContractTests/XCFleetSettings.swift")).contents, as: UTF8.self)
        XCTAssertTrue(settings.contains(#"static let claims: Set<String>? = ["C1", "C5"]"#), settings)

        let mutant = try XCTUnwrap(suite.subject?.mutants.first)
        XCTAssertEqual(mutant.declaredIn, SafePath.resolvedExisting(repo.path) + "/App/Contract/mutants/m1/mutant.json")
        let variant = try renderer.variant(of: gate, suite: suite, mutant: mutant)
        XCTAssertEqual(variant.workspace.file("Subject/App/Sources/AppCore/Key.swift")?.contents, Data("let sameAccount = true\n".utf8))
        XCTAssertEqual(variant.workspace.file("Package.swift")?.contents, gate.workspace.file("Package.swift")?.contents)
        // A location in the team's files is their repository's path (the adapter included); the mutated file names the mutant.
        XCTAssertEqual(gate.sourceMap.entry("Subject/App/Sources/AppCore/Key.swift")?.origin, .repository("App/Sources/AppCore/Key.swift"))
        XCTAssertEqual(gate.sourceMap.entry("Tests/CacheContractTests/Adapter.swift")?.origin, .repository("App/Contract/Adapter.swift"))
        let mapped = LocationMapper(sourceMap: gate.sourceMap, hostPrefixes: ["/w/gate-1a2b3c4d"])
            .map(file: "/w/gate-1a2b3c4d/Subject/App/Sources/AppCore/Key.swift", line: 1)
        XCTAssertEqual(mapped.path, "App/Sources/AppCore/Key.swift")
        XCTAssertEqual(mapped.kind, .repository)
        XCTAssertEqual(variant.sourceMap.entry("Subject/App/Sources/AppCore/Key.swift")?.origin,
                       .mutant(id: "m1", original: "App/Sources/AppCore/Key.swift", replacement: nil))

        // The same mutant against a changed file: the message names it, its file and where it is declared.
        var stale = mutant
        stale.edits[0].find = "lhs.owner != rhs.owner"
        XCTAssertThrowsError(try renderer.variant(of: gate, suite: suite, mutant: stale)) { error in
            XCTAssertTrue("\(error)".hasPrefix("mutant m1 does not apply: Sources/AppCore/Key.swift does not contain"), "\(error)")
            XCTAssertTrue("\(error)".contains("mutants/m1/mutant.json"), "\(error)")
        }
    }

    func testTheReferenceGatePlugsInThroughItsAdapterAndRunsEveryTest() throws {
        let gate = try Renderer(root: root).renderGate(SuiteSpec(name: "gate", template: "cache-contract"))
        XCTAssertNotNil(gate.workspace.file("Tests/CacheContractTests/ReferenceAdapter.swift"))
        XCTAssertNotNil(gate.workspace.file("Sources/CacheContract/MemoryKey.swift"))
        let settings = String(decoding: try XCTUnwrap(gate.workspace.file("Tests/CacheContractTests/XCFleetSettings.swift")).contents, as: UTF8.self)
        XCTAssertTrue(settings.contains("static let claims: Set<String>? = nil"), settings)
    }

    func testATeamTemplateResolvesOnlyUnderTemplatesDir() throws {
        let dir = try TestPaths.temporaryDirectory("user-templates")
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("my-tests"), withIntermediateDirectories: true)
        try Data("import XCTest\nfinal class MineTests: XCTestCase {\n    func testOne() {}\n}\n".utf8)
            .write(to: dir.appendingPathComponent("my-tests/MineTests.swift"))
        let path = repo.appendingPathComponent("App/Plans/mine.json").path
        try Data(#"{"name": "mine", "suites": [{"name": "mine", "template": "my-tests"}]}"#.utf8).write(to: URL(fileURLWithPath: path))

        XCTAssertThrowsError(try PlanLoader.load(path: path, knownTemplates: TemplateInfo.names)) { error in
            XCTAssertTrue("\(error)".contains("unknown template 'my-tests'"), "\(error)")
            XCTAssertTrue("\(error)".contains("--templates DIR"), "\(error)")
        }
        let catalog = try TemplateCatalog.locate(explicit: dir.path, environment: ["XCFLEET_HOME": TestPaths.packageRoot.path])
        XCTAssertEqual(catalog.names, TemplateInfo.names.union(["my-tests"]))
        let suite = try PlanLoader.load(path: path, knownTemplates: catalog.names).suites[0]
        let rendered = try catalog.renderer.renderGate(suite)
        XCTAssertNotNil(rendered.workspace.file("Tests/MyTests/MineTests.swift"))
        XCTAssertEqual(rendered.manifest.testTarget, "MyTests")
        XCTAssertTrue(String(decoding: rendered.workspace.file("Package.swift")!.contents, as: UTF8.self).contains(#"name: "MyTests""#))
    }
}
