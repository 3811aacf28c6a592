import Foundation
import XCTest
@testable import XCFleetKit
import XCFleetTestSupport

/// The Combine lifetime contract as a kit: xcfleet's reference types plug in through their adapter;
/// a team's subject (the worked example Examples/AppFeed) gets the same harness as under the cache
/// contract, its claims and mutants checked against K ids. Combine does not exist here: the rendered
/// files are parsed with the real `swiftc -parse`; scripts/check-combine-subject.sh (run by
/// scripts/test.sh) builds and mutation-tests them against the Combine stand-in.
final class CombineSubjectTests: XCTestCase {
    let root = TemplateRoot(url: TestPaths.packageRoot)
    let examplePlan = TestPaths.packageRoot.appendingPathComponent("Examples/AppFeed/Plans/app-feed-combine-contract.json").path

    private func text(_ suite: RenderedSuite, _ path: String) throws -> String {
        String(decoding: try XCTUnwrap(suite.workspace.file(path), "no \(path)").contents, as: UTF8.self)
    }

    func testTheReferenceGatePlugsInThroughItsAdapterAndRunsEveryKTest() throws {
        let gate = try Renderer(root: root).renderGate(SuiteSpec(name: "gate", template: "combine-lifetime"))
        for file in ["ReferenceAdapter.swift", "RequestViewModel.swift", "ScreenModel.swift", "CombineContractSurface.swift", "ContractClaims.swift"] {
            XCTAssertNotNil(gate.workspace.file("Tests/CombineLifetimeTests/\(file)"), file)
        }
        let origin = Dictionary(uniqueKeysWithValues: gate.sourceMap.entries.map { ($0.path, $0.origin) })
        XCTAssertEqual(origin["Tests/CombineLifetimeTests/ReferenceAdapter.swift"], .template("Templates/adapters/combine-lifetime/ReferenceAdapter.swift"))
        XCTAssertEqual(origin["Tests/CombineLifetimeTests/ContractClaims.swift"], .template("Templates/contract-kit/ContractClaims.swift"))
        XCTAssertEqual(origin["Tests/CombineLifetimeTests/CombineContractSurface.swift"], .template("Templates/combine-lifetime/CombineContractSurface.swift"))
        // The cache kit gets the same shared file.
        let cache = try Renderer(root: root).renderGate(SuiteSpec(name: "gate", template: "cache-contract"))
        XCTAssertEqual(cache.workspace.file("Tests/CacheContractTests/ContractClaims.swift")?.contents,
                       gate.workspace.file("Tests/CombineLifetimeTests/ContractClaims.swift")?.contents)
        XCTAssertNil(cache.workspace.file("Tests/CacheContractTests/CombineContractSurface.swift"))
    }

    func testTheAppFeedHarnessDependsOnTheUntouchedPackageAndLeavesUnclaimedTestsOut() throws {
        let suite = try PlanLoader.load(path: examplePlan, knownTemplates: TemplateInfo.names).suites[0]
        let subject = try XCTUnwrap(suite.subject)
        XCTAssertEqual(subject.module, "AppFeed")
        XCTAssertEqual(subject.claims?.contains("K9"), false)
        XCTAssertEqual(subject.mutants.map(\.id).sorted(), ["badge-sink-captures-self", "headline-without-generation-check"])
        XCTAssertEqual(subject.mutants.map(\.contract).sorted(), ["K4", "K5"])

        let renderer = Renderer(root: root)
        let gate = try renderer.renderGate(suite)
        let paths = Set(gate.workspace.files.map(\.path))
        let example = TestPaths.packageRoot.appendingPathComponent("Examples/AppFeed")
        XCTAssertEqual(gate.workspace.file("Subject/AppFeed/Package.swift")?.contents, try Data(contentsOf: example.appendingPathComponent("Package.swift")))
        XCTAssertEqual(gate.workspace.file("Subject/AppFeed/Sources/AppFeed/FeedViewModel.swift")?.contents,
                       try Data(contentsOf: example.appendingPathComponent("Sources/AppFeed/FeedViewModel.swift")))
        XCTAssertTrue(paths.contains("Tests/CombineLifetimeTests/AppFeedAdapter.swift"))
        XCTAssertTrue(paths.contains("Tests/CombineLifetimeTests/CombineContractSurface.swift"))
        XCTAssertTrue(paths.contains("Tests/CombineLifetimeTests/ContractClaims.swift"))
        XCTAssertFalse(paths.contains { $0.hasSuffix("ReferenceAdapter.swift") || $0.hasSuffix("/RequestViewModel.swift") || $0.hasPrefix("Sources/") },
                       "no reference code: \(paths.sorted())")
        let harness = try text(gate, "Package.swift")
        XCTAssertTrue(harness.contains(#".package(path: "Subject/AppFeed")"#), harness)
        XCTAssertTrue(harness.contains(#".product(name: "AppFeed", package: "AppFeed")"#), harness)
        XCTAssertTrue(try text(gate, "Tests/CombineLifetimeTests/XCFleetSettings.swift")
            .contains(#"static let claims: Set<String>? = ["K1", "K10", "K11", "K2", "K3", "K4", "K5", "K6", "K7", "K8"]"#))
        // K9's tests are built and listed; unclaimed, they skip themselves (ContractClaims.require).

        for mutant in subject.mutants {
            let variant = try renderer.variant(of: gate, suite: suite, mutant: mutant)
            let edited = mutant.edits[0].file
            XCTAssertNotEqual(variant.workspace.file("Subject/AppFeed/\(edited)")?.contents, gate.workspace.file("Subject/AppFeed/\(edited)")?.contents, mutant.id)
            XCTAssertEqual(variant.workspace.file("Package.swift")?.contents, gate.workspace.file("Package.swift")?.contents)
        }
        let strong = try text(try renderer.variant(of: gate, suite: suite, mutant: try XCTUnwrap(subject.mutants.first { $0.contract == "K4" })),
                              "Subject/AppFeed/Sources/AppFeed/UnreadBadge.swift")
        XCTAssertTrue(strong.contains("self.count = latest") && !strong.contains("[weak self]"), strong)
    }

    /// Combine cannot type-check here, but every Swift file the Mac gets must at least parse.
    func testEveryRenderedSwiftFileOfTheAppFeedHarnessParses() throws {
        let swiftc = ["/opt/swift/usr/bin/swiftc", "/usr/bin/swiftc"].first { FileManager.default.isExecutableFile(atPath: $0) }
        guard let swiftc else { throw XCTSkip("no swiftc at /opt/swift/usr/bin or /usr/bin") }
        let suite = try PlanLoader.load(path: examplePlan, knownTemplates: TemplateInfo.names).suites[0]
        let gate = try Renderer(root: root).renderGate(suite)
        let dir = try TestPaths.temporaryDirectory("combine-harness")
        let swiftFiles = gate.workspace.files.filter { $0.path.hasSuffix(".swift") }
        XCTAssertGreaterThan(swiftFiles.count, 10)
        var urls: [URL] = []
        for file in swiftFiles {
            let url = dir.appendingPathComponent(file.path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try file.contents.write(to: url)
            urls.append(url)
        }
        // A file with a syntax error must fail the same check (the check can fail).
        let broken = dir.appendingPathComponent("Broken.swift")
        try Data("final class Broken {\n    func f( {\n}\n".utf8).write(to: broken)
        for url in urls + [broken] {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: swiftc)
            process.arguments = ["-parse", "-swift-version", "6", url.path]
            let pipe = Pipe()
            process.standardOutput = pipe
            process.standardError = pipe
            try process.run()
            let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            let parses = process.terminationStatus == 0 && !output.contains("error:")
            XCTAssertEqual(parses, url != broken, "\(url.lastPathComponent): \(output)")
        }
    }

    func testPlanCheckTakesKIdsUnderCombineAndCIdsUnderTheCache() throws {
        let repo = try TestPaths.temporaryDirectory("combine-subject-repo")
        let fm = FileManager.default
        try fm.createDirectory(at: repo.appendingPathComponent(".git"), withIntermediateDirectories: true)
        try fm.copyItem(at: TestPaths.packageRoot.appendingPathComponent("Examples/AppFeed"), to: repo.appendingPathComponent("AppFeed"))
        let path = repo.appendingPathComponent("AppFeed/Plans/p.json").path
        func problems(_ template: String, claims: String, mutantContract: String = "K5") throws -> [String] {
            try Data("""
            {"name": "p", "suites": [{"name": "gate", "template": "\(template)",
              "subject": {"package": "..", "module": "AppFeed", "adapter": "../Contract/AppFeedAdapter.swift", "claims": \(claims),
                "mutants": [{"id": "m", "fault": "f", "contract": "\(mutantContract)", "edits": [{"file": "Sources/AppFeed/FeedSync.swift", "find": "idle", "replace": "busy"}]}]}}]}
            """.utf8).write(to: URL(fileURLWithPath: path))
            do {
                _ = try PlanLoader.load(path: path, knownTemplates: TemplateInfo.names)
                return []
            } catch let e as ValidationError {
                return e.problems.map { $0.description.replacingOccurrences(of: path, with: "p.json") }
            }
        }
        XCTAssertEqual(try problems("combine-lifetime", claims: #"["K1", "K11"]"#), [])
        let c1 = try problems("combine-lifetime", claims: #"["K1", "C1"]"#)
        XCTAssertEqual(c1.count, 1, "\(c1)")
        XCTAssertTrue(c1[0].hasPrefix("p.json:2:"), c1[0])
        XCTAssertTrue(c1[0].contains("suites[0].subject.claims[1]: 'C1' is not an id of the combine-lifetime/1 contract (ids: K1, K2, K3, K4, K5, K6, K7, K8, K9, K10, K11)"), c1[0])
        XCTAssertTrue(try problems("combine-lifetime", claims: #"["K12"]"#).first?.contains("'K12' is not an id of the combine-lifetime/1 contract") == true)
        let mutant = try problems("combine-lifetime", claims: #"["K1"]"#, mutantContract: "C5")
        XCTAssertEqual(mutant.count, 1, "\(mutant)")
        XCTAssertTrue(mutant[0].contains("mutant m names 'C5', not an id of the combine-lifetime/1 contract"), mutant[0])
        XCTAssertTrue(try problems("cache-contract", claims: #"["C1", "K1"]"#, mutantContract: "C1").first?
            .contains("'K1' is not an id of the cache-contract/2 contract") == true)
        // AppFeed's mutant beside its adapter names K4: under the cache contract that is a plan problem too.
        let beside = try problems("cache-contract", claims: #"["C1", "K5"]"#, mutantContract: "C1")
        XCTAssertEqual(beside.count, 1, "\(beside)")
        XCTAssertTrue(beside[0].contains("mutant badge-sink-captures-self names 'K4', not an id of the cache-contract/2 contract"), beside[0])
        XCTAssertTrue(beside[0].contains("Contract/mutants/badge-sink-captures-self/mutant.json"), beside[0])
    }
}
