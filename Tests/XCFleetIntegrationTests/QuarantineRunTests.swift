import Foundation
import XCTest
@testable import XCFleetKit
import XCFleetTestSupport

/// `xcfleet run` with a quarantine file, as a user runs it: the real binary on the built-in local
/// host. `QuarantineRunTests` use the fake `swift` (scripts/fake-swift.sh, `FAKE_SWIFT_FAIL` fails
/// one test; the compiler is not what they are about); `QuarantineEndToEndTests` break the real
/// core and run the real toolchain.
final class QuarantineRunTests: XCTestCase {
    private var dir: URL!
    private var fleet: URL!
    private var plan: URL!
    private var runs: URL { dir.appendingPathComponent("runs") }
    private let failingTest = "CachedLoaderTests/testC6_alwaysMissDoubleStillLoadsFromSource"
    private var failing: [String: String] { ["FAKE_SWIFT_FAIL": failingTest] }

    override func setUpWithError() throws {
        dir = try TestPaths.temporaryDirectory()
        fleet = try FakeToolchain.localFleet(in: dir)
        // The plan in a folder of its own, so `quarantine.json` beside it is the default.
        let plans = dir.appendingPathComponent("Plans")
        try FileManager.default.createDirectory(at: plans, withIntermediateDirectories: true)
        plan = plans.appendingPathComponent("cache-contract.json")
        try FileManager.default.copyItem(at: TestPaths.packageRoot.appendingPathComponent("Plans/cache-contract.json"), to: plan)
    }

    private func xcfleet(_ args: [String], env: [String: String] = [:]) throws -> CommandResult {
        try FakeToolchain.xcfleet(args, env: env)
    }

    private func run(_ extra: [String] = [], env: [String: String] = [:], history: Bool = false) throws -> CommandResult {
        try xcfleet(["run", plan.path, "--fleet", fleet.path, "--runs", runs.path] + (history ? [] : ["--no-history"]) + extra, env: env)
    }

    private func writeQuarantine(_ entries: String, to url: URL? = nil) throws {
        try Data("// kept by the team\n{\n  \"tests\": [\n\(entries)\n  ],\n}\n".utf8).write(to: url ?? plan.deletingLastPathComponent().appendingPathComponent("quarantine.json"))
    }

    /// A day `days` ahead (UTC): entries must expire within the horizon (90 days by default).
    static func daysAhead(_ days: Int) -> String {
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.timeZone = TimeZone(identifier: "UTC")
        f.dateFormat = "yyyy-MM-dd"
        return f.string(from: Date().addingTimeInterval(Double(days) * 86_400))
    }
    static let soon = daysAhead(30)

    private func entry(_ test: String, suite: String = "cache-gate", expires: String = QuarantineRunTests.soon, owner: String = "ana") -> String {
        #"    {"suite": "\#(suite)", "test": "\#(test)", "reason": "fails under <load> & \"noise\"", "owner": "\#(owner)", "expires": "\#(expires)"},"#
    }

    /// The run that wrote its event log last (two runs started in the same second have ids whose
    /// order says nothing about which came first).
    private func newestRun() throws -> URL {
        let dirs = try FileManager.default.contentsOfDirectory(atPath: runs.path).map { runs.appendingPathComponent($0) }
        func written(_ dir: URL) -> Date {
            (try? FileManager.default.attributesOfItem(atPath: dir.appendingPathComponent("events.jsonl").path)[.modificationDate] as? Date) ?? .distantPast
        }
        return try XCTUnwrap(dirs.max { written($0) < written($1) })
    }

    func testQuarantinedFailureIsGreenShownInEveryReportAndRebuildsIdentically() throws {
        try writeQuarantine(entry(failingTest) + "\n" + entry("Gone/testRemoved"))
        let result = try run(env: failing)
        XCTAssertEqual(result.status, 0, result.stdout + result.stderr)
        XCTAssertTrue(result.stdout.contains("quarantined: 1 test ran, 1 failed (\(failingTest): ana, expires \(Self.soon)), 1 not seen"), result.stdout)
        XCTAssertTrue(result.stdout.contains("cache-gate: green, 35 passed, 1 quarantined failure of 36"), result.stdout)
        let runDir = try newestRun()
        let summary = try String(contentsOf: runDir.appendingPathComponent("summary.md"), encoding: .utf8)
        XCTAssertTrue(summary.contains("### Quarantined (2)"), summary)
        let testName = failingTest.replacingOccurrences(of: "_", with: "\\_")
        XCTAssertTrue(summary.contains("| cache-gate | \(testName) | failed (1 of 1 executions): /fake/CachedLoaderTests.swift:1: XCTAssertTrue failed - fake failure | fails under &lt;load&gt; &amp; \"noise\" | ana | \(Self.soon) |"), summary)
        XCTAssertTrue(summary.contains("| cache-gate | Gone/testRemoved | not seen |"), summary)
        let junit = try String(contentsOf: runDir.appendingPathComponent("junit.xml"), encoding: .utf8)
        XCTAssertTrue(junit.contains(#"<skipped message="quarantined: fails under &lt;load&gt; &amp; &quot;noise&quot; (owner ana, expires \#(Self.soon)) — failed: XCTAssertTrue failed - fake failure" type="quarantined">"#), junit)
        XCTAssertFalse(junit.contains("<failure"), junit)
        try validate(runDir.appendingPathComponent("junit.xml"))
        let report = try JSONDecoder().decode(RunReport.self, from: Data(contentsOf: runDir.appendingPathComponent("report.json")))
        XCTAssertEqual(report.quarantine?.tests.map(\.outcome), [.failed, .notSeen])
        XCTAssertEqual(report.totals.tests.failed, 0)
        XCTAssertEqual(report.totals.tests.quarantined, 1)
        XCTAssertEqual(report.totals.tests.red, 0)
        XCTAssertTrue(summary.contains("tests 35 passed, 1 quarantined failure of 36"), summary)
        let html = try String(contentsOf: runDir.appendingPathComponent("report.html"), encoding: .utf8)
        XCTAssertTrue(html.contains("<section id=\"quarantine\""))
        XCTAssertTrue(html.contains("<div class=\"card \"><div class=\"n\">0</div><div class=\"k\">failed</div></div>"), "the failed card counts only failures that count")
        XCTAssertTrue(html.contains("<div class=\"card \"><div class=\"n\">1</div><div class=\"k\">quarantined failures</div></div>"), "the quarantined card")

        // `xcfleet report` rebuilds the same files from events.jsonl alone.
        var before: [String: Data] = [:]
        for file in ["report.json", "junit.xml", "summary.md", "report.html"] { before[file] = try Data(contentsOf: runDir.appendingPathComponent(file)) }
        for file in before.keys { try FileManager.default.removeItem(at: runDir.appendingPathComponent(file)) }
        let rebuilt = try xcfleet(["report", runDir.path])
        XCTAssertEqual(rebuilt.status, 0, rebuilt.stderr)
        XCTAssertTrue(rebuilt.stdout.contains("quarantined: 1 test ran, 1 failed"), rebuilt.stdout)
        for (file, data) in before { XCTAssertEqual(try Data(contentsOf: runDir.appendingPathComponent(file)), data, "\(file) differs after rebuild") }

        // The failure path: the same run without the quarantine is red.
        let red = try run(["--no-quarantine"], env: failing)
        XCTAssertEqual(red.status, 1, red.stdout + red.stderr)
        XCTAssertFalse(red.stdout.contains("quarantined:"), red.stdout)
    }

    /// A failure the quarantine forgives is not retried (a retry could not change the gate, only
    /// cost host time); a failure it does not forgive still is.
    func testQuarantinedFailureIsNotRetried() throws {
        let text = try String(contentsOf: plan, encoding: .utf8)
        try Data(text.replacingOccurrences(of: #""testFailures": 0"#, with: #""testFailures": 2"#).utf8).write(to: plan)
        XCTAssertTrue(try String(contentsOf: plan, encoding: .utf8).contains(#""testFailures": 2"#))
        try writeQuarantine(entry(failingTest))
        let green = try run(env: failing)
        XCTAssertEqual(green.status, 0, green.stdout + green.stderr)
        var report = try JSONDecoder().decode(RunReport.self, from: Data(contentsOf: try newestRun().appendingPathComponent("report.json")))
        XCTAssertEqual(report.suites.flatMap(\.jobs).map(\.attempts.count), [1], "a quarantined failure is not retried")

        try FileManager.default.removeItem(at: runs) // the next run is then the only one
        let red = try run(["--no-quarantine"], env: failing)
        XCTAssertEqual(red.status, 1, red.stdout + red.stderr)
        report = try JSONDecoder().decode(RunReport.self, from: Data(contentsOf: try newestRun().appendingPathComponent("report.json")))
        XCTAssertEqual(report.suites.flatMap(\.jobs).map(\.attempts.count), [3], "an unforgiven failure is retried twice")
    }

    /// `plan check` checks the quarantine beside the plan too, so an entry about to lapse is
    /// caught before a run, not by it.
    func testPlanCheckValidatesTheQuarantine() throws {
        let sooner = Self.daysAhead(10)
        try writeQuarantine(entry(failingTest) + "\n" + entry("CachedLoaderTests/testSoon", expires: sooner, owner: "bo"))
        let ok = try xcfleet(["plan", "check", plan.path])
        XCTAssertEqual(ok.status, 0, ok.stdout + ok.stderr)
        let file = plan.deletingLastPathComponent().appendingPathComponent("quarantine.json").path
        XCTAssertTrue(ok.stdout.contains("\(file): ok — 2 quarantined tests, first to expire: cache-gate CachedLoaderTests/testSoon on \(sooner) (owner bo)"), ok.stdout)

        try writeQuarantine(entry("CachedLoaderTests/testOld", expires: "2020-01-31", owner: "bo"))
        let expired = try xcfleet(["plan", "check", plan.path])
        XCTAssertEqual(expired.status, 2, expired.stdout + expired.stderr)
        XCTAssertTrue(expired.stderr.contains("expired on 2020-01-31"), expired.stderr)
        let skipped = try xcfleet(["plan", "check", plan.path, "--no-quarantine"])
        XCTAssertEqual(skipped.status, 0, skipped.stdout + skipped.stderr)
        XCTAssertFalse(skipped.stdout.contains("quarantined"), skipped.stdout)
    }

    func testAnotherTestFailingIsStillRed() throws {
        try writeQuarantine(entry("CachedLoaderTests/testSomethingElse"))
        let result = try run(env: failing)
        XCTAssertEqual(result.status, 1, result.stdout + result.stderr)
        XCTAssertTrue(result.stdout.contains("quarantined: 0 tests ran, 0 failed, 1 not seen"), result.stdout)
    }

    func testExpiredEntryMissingFileAndOtherSuitesAtTheCommandLine() throws {
        try writeQuarantine(entry(failingTest) + "\n" + entry("CachedLoaderTests/testOld", expires: "2020-01-31", owner: "bo"))
        // The day an entry expires no run stops: it warns (owner and date) and the entry forgives nothing.
        let expired = try run(env: failing)
        XCTAssertEqual(expired.status, 0, expired.stdout + expired.stderr)
        let quarantineFile = plan.deletingLastPathComponent().appendingPathComponent("quarantine.json").path
        XCTAssertTrue(expired.stderr.contains("xcfleet: warning: \(quarantineFile):5:5: tests[1]: quarantine of cache-gate CachedLoaderTests/testOld (owner bo) expired on 2020-01-31: it no longer forgives"), expired.stderr)
        XCTAssertTrue(FileManager.default.fileExists(atPath: runs.path), "the run ran")

        let missing = try run(["--quarantine", dir.appendingPathComponent("nope.json").path])
        XCTAssertEqual(missing.status, 2)
        XCTAssertEqual(missing.stderr.split(separator: "\n").count, 1, missing.stderr)
        XCTAssertTrue(missing.stderr.hasPrefix("xcfleet: --quarantine \(dir.appendingPathComponent("nope.json").path): no such file"), missing.stderr)

        let both = try run(["--quarantine", plan.path, "--no-quarantine"])
        XCTAssertEqual(both.status, 2)
        XCTAssertEqual(both.stderr, "xcfleet: --quarantine and --no-quarantine contradict each other; give one of them\n")

        // An explicit file wins over the one beside the plan; an entry for another suite is a warning.
        let other = dir.appendingPathComponent("team-quarantine.json")
        try writeQuarantine(entry(failingTest) + "\n" + entry("A/b", suite: "nightly-gate"), to: other)
        let chosen = try run(["--quarantine", other.path], env: failing)
        XCTAssertEqual(chosen.status, 0, chosen.stdout + chosen.stderr)
        XCTAssertTrue(chosen.stderr.contains("xcfleet: warning: \(other.path):5:15: tests[1].suite: no suite 'nightly-gate' in the plan; the entry has no effect"), chosen.stderr)
    }

    func testFlakySuggestionPastedAsTheQuarantineMakesTheRunGreen() throws {
        XCTAssertEqual(try run(history: true).status, 0)
        XCTAssertEqual(try run(env: failing, history: true).status, 1)
        let suggest = try xcfleet(["flaky", "--suggest", "--owner", "@org/cache", "--runs", runs.path])
        XCTAssertEqual(suggest.status, 0, suggest.stderr)
        XCTAssertTrue(suggest.stdout.contains(failingTest), suggest.stdout)
        let file = dir.appendingPathComponent("suggested.json")
        try Data(("{\"tests\": " + suggest.stdout + "}").utf8).write(to: file)
        let result = try run(["--quarantine", file.path], env: failing, history: true)
        XCTAssertEqual(result.status, 0, result.stdout + result.stderr)
        XCTAssertTrue(result.stdout.contains("quarantined: 1 test ran, 1 failed (\(failingTest): @org/cache, expires "), result.stdout)
    }

    func testParseTakesAQuarantine() throws {
        try writeQuarantine(entry(failingTest))
        let log = """
        Test Suite 'All tests' started at 2026-12-01 10:00:00.000
        Test Case 'CachedLoaderTests.testC6_alwaysMissDoubleStillLoadsFromSource' started at 2026-12-01 10:00:00.001
        /fake/CachedLoaderTests.swift:1: error: CachedLoaderTests.testC6_alwaysMissDoubleStillLoadsFromSource : XCTAssertTrue failed - fake failure
        Test Case 'CachedLoaderTests.testC6_alwaysMissDoubleStillLoadsFromSource' failed (0.001 seconds)
        Test Suite 'All tests' failed at 2026-12-01 10:00:00.002
        \t Executed 1 test, with 1 failure (0 unexpected) in 0.001 (0.001) seconds

        """
        let file = plan.deletingLastPathComponent().appendingPathComponent("quarantine.json").path
        let plain = try runCommand(TestPaths.xcfleetBinary, ["parse", "-"], stdin: Data(log.utf8))
        XCTAssertEqual(plain.status, 1, plain.stdout)
        let forgiven = try runCommand(TestPaths.xcfleetBinary, ["parse", "-", "--quarantine", file], stdin: Data(log.utf8))
        XCTAssertEqual(forgiven.status, 0, forgiven.stdout + forgiven.stderr)
        XCTAssertTrue(forgiven.stdout.contains("quarantined: 1 test ran, 1 failed"), forgiven.stdout)
    }

    private func validate(_ url: URL) throws {
        guard let xmllint = ReportingTestSupport.which("xmllint") else { throw XCTSkip("xmllint not found: apt-get install libxml2-utils") }
        XCTAssertEqual(try ReportingTestSupport.run(xmllint, ["--noout", url.path]).status, 0)
        let xsd = ReportingTestSupport.sharedDir.appendingPathComponent("fixtures/junit/junit-10.xsd")
        guard FileManager.default.fileExists(atPath: xsd.path) else { return }
        let v = try ReportingTestSupport.run(xmllint, ["--noout", "--schema", xsd.path, url.path])
        XCTAssertEqual(v.status, 0, v.stderr)
    }
}

/// The real toolchain: a copy of the core with a contract rule broken fails real tests; the
/// quarantine made of exactly those tests turns the same run green, and without it it is red.
final class QuarantineEndToEndTests: XCTestCase {
    func testQuarantiningTheRealFailuresOfABrokenCoreMakesTheRunGreen() throws {
        let root = try TestPaths.temporaryDirectory("quarantine-root")
        for part in ["Templates", "Sources/CacheContract"] {
            let dest = root.appendingPathComponent(part)
            try FileManager.default.createDirectory(at: dest.deletingLastPathComponent(), withIntermediateDirectories: true)
            try FileManager.default.copyItem(at: TestPaths.packageRoot.appendingPathComponent(part), to: dest)
        }
        // Break C1 in the core: the key forgets the account (the mutant's own edit).
        let keyFile = root.appendingPathComponent("Sources/CacheContract/MemoryKey.swift")
        let mutant = try MutantSpec.load(root.appendingPathComponent("Templates/mutants/key-without-account/mutant.json"))
        var files = ["Sources/CacheContract/MemoryKey.swift": try Data(contentsOf: keyFile)]
        try MutantEdit.apply(mutant.edits, mutant: mutant.id, to: &files)
        try XCTUnwrap(files["Sources/CacheContract/MemoryKey.swift"]).write(to: keyFile)

        let runs = try TestPaths.temporaryDirectory("quarantine-runs")
        func xcfleet(_ extra: [String]) throws -> CommandResult {
            try runCommand(TestPaths.xcfleetBinary, ["run", "Plans/cache-contract.json", "--runs", runs.path, "--templates", root.path, "--no-history"] + extra,
                           cwd: TestPaths.packageRoot, environment: ["GITHUB_ACTIONS": "", "GITHUB_STEP_SUMMARY": ""])
        }
        let red = try xcfleet(["--run-id", "red"])
        XCTAssertEqual(red.status, 1, red.stdout + red.stderr)
        let redReport = try JSONDecoder().decode(RunReport.self, from: Data(contentsOf: runs.appendingPathComponent("red/report.json")))
        let failed = (redReport.suites[0].jobs[0].decisive?.tests ?? []).filter { $0.status == .failed }.map { Verdict.testKey($0.id) }
        XCTAssertFalse(failed.isEmpty)

        let file = runs.appendingPathComponent("quarantine.json")
        let entries = failed.map { #"{"suite": "cache-gate", "test": "\#($0)", "reason": "C1 broken on purpose", "owner": "e2e", "expires": "\#(QuarantineRunTests.soon)"}"# }
        try Data(("{\"tests\": [" + entries.joined(separator: ",\n") + "]}").utf8).write(to: file)
        let green = try xcfleet(["--run-id", "green", "--quarantine", file.path])
        XCTAssertEqual(green.status, 0, green.stdout + green.stderr)
        XCTAssertTrue(green.stdout.contains("quarantined: \(failed.count) test\(failed.count == 1 ? "" : "s") ran, \(failed.count) failed"), green.stdout)
        let junit = try String(contentsOf: runs.appendingPathComponent("green/junit.xml"), encoding: .utf8)
        XCTAssertEqual(junit.components(separatedBy: #"type="quarantined""#).count - 1, failed.count, junit)

        // One failure left out of the quarantine: red again.
        if failed.count > 1 {
            try Data(("{\"tests\": [" + entries.dropFirst().joined(separator: ",\n") + "]}").utf8).write(to: file)
            let partial = try xcfleet(["--run-id", "partial", "--quarantine", file.path])
            XCTAssertEqual(partial.status, 1, partial.stdout + partial.stderr)
        }
    }
}
