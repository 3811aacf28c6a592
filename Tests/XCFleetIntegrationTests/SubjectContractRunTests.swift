import XCTest
import XCFleetKit
import XCFleetTestSupport

/// The cache contract against a team's own implementation, with the real binary on the built-in
/// local host: Examples/AppCache is green with its certificate; its key equality broken (in a
/// temporary copy, never in the repository) is red naming C1; a stale mutant is a plan error;
/// Examples/AppFeed under the Combine contract is not run here (no Mac), and says so.
final class SubjectContractRunTests: XCTestCase {
    private var runs: URL!

    override func setUpWithError() throws {
        runs = try TestPaths.temporaryDirectory("subject-runs")
    }

    private func xcfleet(_ args: [String]) throws -> CommandResult {
        try FakeToolchain.xcfleet(args.first == "run" ? args + ["--no-history"] : args)
    }

    private func onlyReport() throws -> RunReport {
        let dirs = try FileManager.default.contentsOfDirectory(atPath: runs.path)
        XCTAssertEqual(dirs.count, 1, "one run directory: \(dirs)")
        let dir = runs.appendingPathComponent(try XCTUnwrap(dirs.first))
        return try JSONDecoder().decode(RunReport.self, from: Data(contentsOf: dir.appendingPathComponent("report.json")))
    }

    /// Examples/AppCache copied into its own repository (a `.git` marker) under a temporary folder.
    private func copyOfExample() throws -> URL {
        let repo = try TestPaths.temporaryDirectory("appcache-repo")
        try FileManager.default.createDirectory(at: repo.appendingPathComponent(".git"), withIntermediateDirectories: true)
        let dest = repo.appendingPathComponent("AppCache")
        try FileManager.default.copyItem(at: TestPaths.packageRoot.appendingPathComponent("Examples/AppCache"), to: dest)
        try? FileManager.default.removeItem(at: dest.appendingPathComponent(".build"))
        return dest
    }

    private func replace(_ find: String, with replacement: String, in file: URL) throws {
        let text = try String(contentsOf: file, encoding: .utf8)
        XCTAssertEqual(text.components(separatedBy: find).count, 2, "\(find) occurs once in \(file.lastPathComponent)")
        try Data(text.replacingOccurrences(of: find, with: replacement).utf8).write(to: file)
    }

    func testAppCacheUnderTheCacheContractIsGreenWithItsCertificate() throws {
        let result = try xcfleet(["run", "Examples/AppCache/Plans/app-cache-contract.json", "--runs", runs.path])
        XCTAssertEqual(result.status, 0, result.stdout + result.stderr)
        XCTAssertTrue(result.stdout.contains("mutants killed 2/2"), result.stdout)
        let report = try onlyReport()
        let certificate = try XCTUnwrap(report.certificates?.first)
        XCTAssertEqual(certificate.contract, "cache-contract/2")
        XCTAssertEqual(certificate.module, "AppCache")
        XCTAssertEqual(certificate.problems, [])
        let status = Dictionary(uniqueKeysWithValues: certificate.ids.map { ($0.id, $0.status) })
        for id in ["C1", "C2", "C3", "C4", "C5", "C6", "C8", "C10", "C11"] { XCTAssertEqual(status[id], .passed, id) }
        for id in ["C7", "C9", "C12", "C13", "K5", "K6"] { XCTAssertEqual(status[id], .notClaimed, "\(id) is not claimed, never passed") }
        let c7 = try XCTUnwrap(certificate.ids.first { $0.id == "C7" })
        XCTAssertFalse(c7.tests.isEmpty)
        XCTAssertTrue(c7.tests.allSatisfy { $0.status == "skipped" }, "\(c7.tests)")
        XCTAssertEqual(Set(certificate.mutants.map(\.id)), ["box-ignores-account", "empty-value-as-miss"])
        XCTAssertTrue(certificate.mutants.allSatisfy(\.killed))
    }

    /// Combine exists only on a Mac: on the local Linux host the AppFeed plan is not run (exit 3);
    /// its certificate says "not run" for every claimed id and mutant: never passed, never survived,
    /// and no "no gate tests" either (no attempt listed the tests).
    func testAppFeedUnderTheCombineContractIsNotRunWithoutAMac() throws {
        let result = try xcfleet(["run", "Examples/AppFeed/Plans/app-feed-combine-contract.json", "--runs", runs.path])
        XCTAssertEqual(result.status, 3, result.stdout + result.stderr)
        XCTAssertTrue(result.stdout.contains("unschedulable: needs combine"), result.stdout)
        let certificate = try XCTUnwrap(try onlyReport().certificates?.first)
        XCTAssertEqual(certificate.contract, "combine-lifetime/1")
        XCTAssertEqual(certificate.module, "AppFeed")
        let status = Dictionary(uniqueKeysWithValues: certificate.ids.map { ($0.id, $0.status) })
        for id in certificate.claimed { XCTAssertEqual(status[id], .notRun, id) }
        XCTAssertEqual(status["K9"], .notClaimed)
        // Nothing was built, so no test was listed: the certificate names none (it never guesses them).
        XCTAssertEqual(certificate.ids.first { $0.id == "K4" }?.tests.map(\.test), [])
        XCTAssertEqual(Set(certificate.mutants.map(\.id)), ["badge-sink-captures-self", "headline-without-generation-check"])
        XCTAssertTrue(certificate.mutants.allSatisfy { $0.notRun == true && !$0.killed }, "\(certificate.mutants)")
        XCTAssertTrue(certificate.problems.allSatisfy { $0.hasSuffix(" not run") }, "\(certificate.problems)")
    }

    func testKeyEqualityIgnoringTheAccountTurnsThePlanRedNamingC1() throws {
        let copy = try copyOfExample()
        try replace("lhs.owner == rhs.owner && ", with: "", in: copy.appendingPathComponent("Sources/AppCache/ItemKey.swift"))
        let plan = copy.appendingPathComponent("Plans/app-cache-contract.json")
        try replace(#""mutants": true,"#, with: #""mutants": false,"#, in: plan)
        let result = try xcfleet(["run", plan.path, "--runs", runs.path])
        XCTAssertEqual(result.status, 1, result.stdout + result.stderr)
        XCTAssertTrue(result.stdout.contains("RED"), result.stdout)
        let report = try onlyReport()
        let failed = report.suites[0].jobs[0].decisive?.tests.filter { $0.status == .failed } ?? []
        XCTAssertFalse(failed.isEmpty)
        // C1's own tests fail; tests of C3 and C10 that store under two accounts fail with them.
        XCTAssertTrue(failed.contains { $0.id.name == "testC1_sameResourceOtherAccountMisses" }, "\(failed.map(\.id))")
        XCTAssertTrue(failed.contains { $0.id.name == "testC1_equalityComparesEveryField" }, "\(failed.map(\.id))")
        XCTAssertTrue(failed.allSatisfy { !$0.failures.isEmpty }, "each failure has its message")
        let certificate = try XCTUnwrap(report.certificates?.first)
        XCTAssertEqual(certificate.problems.first, "C1 failed")
        XCTAssertEqual(certificate.ids.first { $0.id == "C2" }?.status, .passed)
        XCTAssertEqual(certificate.ids.first { $0.id == "C1" }?.status, .failed)
        XCTAssertEqual(certificate.ids.first { $0.id == "C7" }?.status, .notClaimed)
        let summary = try String(contentsOf: runs.appendingPathComponent(try FileManager.default.contentsOfDirectory(atPath: runs.path)[0]).appendingPathComponent("summary.md"), encoding: .utf8)
        XCTAssertTrue(summary.contains("does not hold: C1 failed"), summary)
        XCTAssertTrue(result.stdout.contains("testC1_"), "the console names the C1 tests: \(result.stdout)")
    }

    func testAStaleMutantOfTheTeamsCodeIsAPlanErrorNamingTheMutantAndTheFile() throws {
        let copy = try copyOfExample()
        try replace("(object as? Box)?.key == key", with: "(object as? Box).map { $0.key == key } ?? false",
                    in: copy.appendingPathComponent("Sources/AppCache/ItemCache.swift"))
        let result = try xcfleet(["plan", "check", copy.appendingPathComponent("Plans/app-cache-contract.json").path])
        XCTAssertEqual(result.status, 2, result.stdout + result.stderr)
        XCTAssertTrue(result.stderr.contains("mutant box-ignores-account does not apply: Sources/AppCache/ItemCache.swift does not contain the text of edits[0].find"), result.stderr)
        XCTAssertTrue(result.stderr.contains("Contract/mutants/box-ignores-account/mutant.json"), result.stderr)
    }

    func testPlanCheckFindsATeamTemplateOnlyWithTemplatesDir() throws {
        let dir = try TestPaths.temporaryDirectory("team-templates")
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("templates/my-tests"), withIntermediateDirectories: true)
        try Data("import XCTest\nfinal class MineTests: XCTestCase {\n    func testOne() {}\n}\n".utf8)
            .write(to: dir.appendingPathComponent("templates/my-tests/MineTests.swift"))
        let plan = dir.appendingPathComponent("mine.json")
        try Data(#"{"name": "mine", "suites": [{"name": "mine", "template": "my-tests"}]}"#.utf8).write(to: plan)

        let without = try xcfleet(["plan", "check", plan.path])
        XCTAssertEqual(without.status, 2, without.stdout + without.stderr)
        XCTAssertTrue(without.stderr.contains("unknown template 'my-tests'") && without.stderr.contains("--templates DIR"), without.stderr)
        let with = try xcfleet(["plan", "check", plan.path, "--templates", dir.appendingPathComponent("templates").path])
        XCTAssertEqual(with.status, 0, with.stdout + with.stderr)
        XCTAssertTrue(with.stdout.contains("mine (gate, my-tests)"), with.stdout)
        let out = dir.appendingPathComponent("out")
        let rendered = try xcfleet(["render", plan.path, "--out", out.path, "--templates", dir.appendingPathComponent("templates").path])
        XCTAssertEqual(rendered.status, 0, rendered.stdout + rendered.stderr)
        XCTAssertTrue(FileManager.default.fileExists(atPath: out.appendingPathComponent("mine/Tests/MyTests/MineTests.swift").path))
    }
}
