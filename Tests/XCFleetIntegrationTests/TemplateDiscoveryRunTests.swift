import XCTest
import XCFleetKit
import XCFleetTestSupport

/// A template suite's tests are what its built package lists, never what its source text seems to
/// hold: the real binary on the built-in local host, with a team's templates (`--templates DIR`).
/// A test inside `#if false` or a comment is not a test; an XCTest skip and a disabled Swift
/// Testing test are listed and shown as skipped (never required to pass); a package that lists no
/// tests is red with the reason.
final class TemplateDiscoveryRunTests: XCTestCase {
    private var dir: URL!
    private var runs: URL!

    override func setUpWithError() throws {
        dir = try TestPaths.temporaryDirectory("template-discovery")
        runs = dir.appendingPathComponent("runs")
    }

    private func run(_ plan: String) throws -> (CommandResult, RunReport) {
        let path = dir.appendingPathComponent("plan.json")
        try Data(plan.utf8).write(to: path)
        try? FileManager.default.removeItem(at: runs)
        let result = try FakeToolchain.xcfleet(["run", path.path, "--templates", dir.appendingPathComponent("templates").path,
                                                "--runs", runs.path, "--no-history"])
        let runDirs = try FileManager.default.contentsOfDirectory(atPath: runs.path)
        XCTAssertEqual(runDirs.count, 1, "one run directory: \(runDirs)")
        let report = try JSONDecoder().decode(RunReport.self, from: Data(contentsOf: runs.appendingPathComponent(try XCTUnwrap(runDirs.first))
            .appendingPathComponent("report.json")))
        return (result, report)
    }

    func testTheManifestIsWhatTheBuiltPackageListsAndAnEmptyListIsRed() throws {
        try TemplateDiscoveryFixture.write(into: dir.appendingPathComponent("templates"))
        let (result, report) = try run(#"""
        {"name": "discovery", "suites": [{"name": "mine", "template": "my-tests", "shards": 2},
                                         {"name": "empty", "template": "no-tests"}]}
        """#)
        XCTAssertEqual(result.status, 1, "the empty suite is red: " + result.stdout + result.stderr)

        let mine = try XCTUnwrap(report.suites.first { $0.spec.name == "mine" })
        XCTAssertEqual(mine.status, .green, "\(mine.reasons)")
        XCTAssertEqual(mine.jobs.count, 2)
        XCTAssertTrue(mine.jobs.allSatisfy { $0.planned.expectedTests.isEmpty }, "no job plans a list of tests")
        let discoveries = mine.jobs.compactMap { $0.decisive?.discovery }
        XCTAssertEqual(discoveries.count, 2)
        let listed = ["MyTests.MineTests/testOne", "MyTests.MineTests/testSkipped", "MyTests.adds()", "MyTests.later()"]
        for d in discoveries { XCTAssertEqual(Set(d.tests), Set(listed), "what the built bundle lists, nothing from #if false or comments") }
        // The shards split the discovered list between them, each test once.
        XCTAssertEqual(discoveries.flatMap(\.selected).sorted(), listed.sorted())
        XCTAssertTrue(discoveries.allSatisfy { $0.selected.count == 2 }, "\(discoveries.map(\.selected))")
        let results = Dictionary(mine.jobs.flatMap { $0.decisive?.tests ?? [] }.map { ($0.id.name, $0.status) }, uniquingKeysWith: { a, _ in a })
        XCTAssertEqual(results["testOne"], .passed)
        XCTAssertEqual(results["adds()"], .passed)
        XCTAssertEqual(results["testSkipped"], .skipped, "a test the code skips shows as skipped")
        XCTAssertEqual(results["later()"], .skipped, "a disabled test shows as skipped")
        XCTAssertNil(results["testGhost"])

        let empty = try XCTUnwrap(report.suites.first { $0.spec.name == "empty" })
        XCTAssertEqual(empty.status, .red)
        XCTAssertTrue(empty.reasons.contains { $0.contains("test discovery: the built products list no tests") }, "\(empty.reasons)")
        XCTAssertTrue(result.stdout.contains("test discovery"), result.stdout)
    }
}

/// The two team templates both discovery tests run (locally and over SSH): `my-tests`, whose
/// built package lists `testOne`, `testSkipped`, `adds()` and `later()` (not the test inside
/// `#if false` nor the one in a comment), and `no-tests`, whose only test is inside `#if false`.
enum TemplateDiscoveryFixture {
    static func write(into templates: URL) throws {
        for (name, file, source) in [("my-tests", "MineTests.swift", mine), ("no-tests", "NoTests.swift", none)] {
            let folder = templates.appendingPathComponent(name)
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try Data(source.utf8).write(to: folder.appendingPathComponent(file))
        }
    }

    static let mine = """
        import XCTest
        import Testing

        final class MineTests: XCTestCase {
            func testOne() { XCTAssertEqual(1 + 1, 2) }
            func testSkipped() throws { throw XCTSkip("not on this host") }
            #if false
            func testGhost() { XCTFail("never compiled") }
            #endif
            /* func testCommented() {} */
        }

        @Test func adds() { #expect(1 + 1 == 2) }
        @Test(.disabled("later")) func later() {}

        """

    static let none = """
        import XCTest

        final class NoTests: XCTestCase {
            #if false
            func testGhost() {}
            #endif
        }

        """
}
