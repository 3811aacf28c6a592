import XCTest
@testable import XCFleetKit
import XCFleetTestSupport

/// The real thing on the built-in local host: the `xcfleet` binary renders, pushes, builds and
/// runs the contract packages with `swift test`, and writes the run directory.
final class EndToEndTests: XCTestCase {
    private var runs: URL!

    override func setUpWithError() throws {
        runs = try TestPaths.temporaryDirectory("e2e-runs")
    }

    private func xcfleet(_ args: [String], environment: [String: String] = [:]) throws -> CommandResult {
        try runCommand(TestPaths.xcfleetBinary, args, cwd: TestPaths.packageRoot, environment: environment)
    }

    private func onlyRunDirectory() throws -> URL {
        let dirs = try FileManager.default.contentsOfDirectory(atPath: runs.path)
        XCTAssertEqual(dirs.count, 1, "one run directory: \(dirs)")
        return runs.appendingPathComponent(try XCTUnwrap(dirs.first))
    }

    private func report(_ dir: URL) throws -> RunReport {
        try JSONDecoder().decode(RunReport.self, from: Data(contentsOf: dir.appendingPathComponent("report.json")))
    }

    /// A copy of the templates and core sources, for tests that break the core on purpose.
    private func copyOfRoot() throws -> URL {
        let root = try TestPaths.temporaryDirectory("root")
        for part in ["Templates", "Sources/CacheContract"] {
            let dest = root.appendingPathComponent(part)
            try FileManager.default.createDirectory(at: dest.deletingLastPathComponent(), withIntermediateDirectories: true)
            try FileManager.default.copyItem(at: TestPaths.packageRoot.appendingPathComponent(part), to: dest)
        }
        return root
    }

    func testCacheContractPlanIsGreenOnTheLocalHostAndReportsRebuildIdentically() throws {
        let result = try xcfleet(["run", "Plans/cache-contract.json", "--runs", runs.path])
        XCTAssertEqual(result.status, 0, result.stdout + result.stderr)
        XCTAssertTrue(result.stdout.contains("GREEN"), result.stdout)
        let dir = try onlyRunDirectory()
        for file in ["events.jsonl", "report.json", "junit.xml", "summary.md", "report.html"] {
            XCTAssertTrue(FileManager.default.fileExists(atPath: dir.appendingPathComponent(file).path), "missing \(file)")
        }
        let report = try report(dir)
        let job = try XCTUnwrap(report.suites.first?.jobs.first)
        XCTAssertEqual(job.finalState, .passed)
        XCTAssertEqual(job.planned.expectedTests, [], "the manifest is what the build lists")
        let discovered = try XCTUnwrap(job.decisive?.discovery)
        XCTAssertGreaterThanOrEqual(discovered.selected.count, 9)
        XCTAssertEqual(report.totals.tests.passed, discovered.selected.count, "every discovered test observed passing")
        let ids = Set(job.decisive?.tests.flatMap(\.contractIDs) ?? [])
        for id in ["C1", "C2", "C3", "C4", "C5", "C6", "C7", "C10", "C11"] { XCTAssertTrue(ids.contains(id), "no test for \(id)") }

        // Rebuilding from events.jsonl alone gives byte-identical reports.
        var before: [String: Data] = [:]
        for file in ["report.json", "junit.xml", "summary.md", "report.html"] { before[file] = try Data(contentsOf: dir.appendingPathComponent(file)) }
        for file in before.keys { try FileManager.default.removeItem(at: dir.appendingPathComponent(file)) }
        let rebuilt = try xcfleet(["report", dir.path])
        XCTAssertEqual(rebuilt.status, 0, rebuilt.stderr)
        for (file, data) in before { XCTAssertEqual(try Data(contentsOf: dir.appendingPathComponent(file)), data, "\(file) differs after rebuild") }
    }

    func testBreakingAContractRuleTurnsTheGateRedWithItsContractID() throws {
        let root = try copyOfRoot()
        // Break C1 in the core: the key forgets the account.
        let keyFile = root.appendingPathComponent("Sources/CacheContract/MemoryKey.swift")
        let mutant = try MutantSpec.load(root.appendingPathComponent("Templates/mutants/key-without-account/mutant.json"))
        var files = ["Sources/CacheContract/MemoryKey.swift": try Data(contentsOf: keyFile)]
        try MutantEdit.apply(mutant.edits, mutant: mutant.id, to: &files)
        try XCTUnwrap(files["Sources/CacheContract/MemoryKey.swift"]).write(to: keyFile)
        let result = try xcfleet(["run", "Plans/cache-contract.json", "--runs", runs.path, "--templates", root.path])
        XCTAssertEqual(result.status, 1, result.stdout + result.stderr)
        XCTAssertTrue(result.stdout.contains("RED"), result.stdout)
        let report = try report(try onlyRunDirectory())
        let failed = report.suites[0].jobs[0].decisive?.tests.filter { $0.status == .failed } ?? []
        XCTAssertFalse(failed.isEmpty)
        XCTAssertTrue(failed.contains { $0.contractIDs.contains("C1") }, "\(failed.map(\.id))")
        XCTAssertTrue(failed.allSatisfy { !$0.failures.isEmpty }, "each failure has its message")
    }

    func testEveryCacheMutantIsKilled() throws {
        let result = try xcfleet(["run", "Plans/cache-contract.json", "--mutants", "--runs", runs.path])
        XCTAssertEqual(result.status, 0, result.stdout + result.stderr)
        let report = try report(try onlyRunDirectory())
        let mutants = report.suites[0].jobs.filter { $0.planned.mutant != nil }
        XCTAssertGreaterThanOrEqual(mutants.count, 6, "all cache mutants ran")
        for job in mutants { XCTAssertEqual(job.finalState, .failed, "mutant \(job.planned.mutant ?? "") survived") }
        XCTAssertTrue(result.stdout.contains("mutants killed \(mutants.count)/\(mutants.count)"), result.stdout)
    }

    func testSurvivingMutantFailsTheRunNamingTheFault() throws {
        let root = try copyOfRoot()
        // A "mutant" that changes nothing: the suite cannot catch it.
        let dir = root.appendingPathComponent("Templates/mutants/zz-no-change")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        // (It edits a comment only.)
        let spec = #"{"id": "zz-no-change", "fault": "a change the suite cannot see", "contract": "C1", "template": "cache-contract", "edits": [{"file": "Sources/CacheContract/MemoryKey.swift", "find": "compared field by field.", "replace": "compared field by field (a comment only)."}]}"#
        try Data(spec.utf8).write(to: dir.appendingPathComponent("mutant.json"))
        // Keep the run short: only this mutant.
        for other in try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("Templates/mutants").path) where other != "zz-no-change" {
            try FileManager.default.removeItem(at: root.appendingPathComponent("Templates/mutants/\(other)"))
        }
        let result = try xcfleet(["run", "Plans/cache-contract.json", "--mutants", "--runs", runs.path, "--templates", root.path])
        XCTAssertEqual(result.status, 1, result.stdout + result.stderr)
        XCTAssertTrue(result.stdout.contains("the suite does not catch: a change the suite cannot see"), result.stdout)
    }

    func testBrokenPlanListsEveryProblemWithExitCode2() throws {
        let dir = try TestPaths.temporaryDirectory()
        let plan = dir.appendingPathComponent("broken.json")
        try Data(#"""
        {
          "name": "broken",
          "suites": [
            {"name": "a", "template": "cache-contract", "timout": 5},
            {"name": "b", "template": "no-such-template", "timeoutSeconds": 0},
            {"name": "c", "template": "cache-contract", "shards": "two"}
          ]
        }
        """#.utf8).write(to: plan)
        let result = try xcfleet(["run", plan.path, "--runs", runs.path])
        XCTAssertEqual(result.status, 2)
        let lines = result.stderr.split(separator: "\n")
        XCTAssertGreaterThanOrEqual(lines.count, 4, result.stderr)
        for path in ["suites[0].timout", "suites[1].template", "suites[1].timeoutSeconds", "suites[2].shards"] {
            XCTAssertTrue(result.stderr.contains(path), "\(path) not reported in:\n\(result.stderr)")
        }
        XCTAssertTrue(lines.allSatisfy { $0.contains("broken.json") }, "every line names the file")
        XCTAssertFalse(result.stderr.contains("Fatal error"))
        let started = (try? FileManager.default.contentsOfDirectory(atPath: runs.path)) ?? []
        XCTAssertEqual(started, [], "no run started")
    }

    func testUsageErrorsAreOneLineWithExitCode2() throws {
        for args in [["run"], ["frobnicate"], ["run", "Plans/cache-contract.json", "--bogus"], ["run", "/no/such/plan.json"]] {
            let result = try xcfleet(args)
            XCTAssertEqual(result.status, 2, "\(args): \(result.stderr)")
            XCTAssertEqual(result.stderr.split(separator: "\n").count, 1, "\(args): \(result.stderr)")
        }
    }

    func testRenderedPackagePassesSwiftTestOnItsOwn() throws {
        let out = try TestPaths.temporaryDirectory("render")
        let result = try xcfleet(["render", "Plans/cache-contract.json", "--out", out.path])
        XCTAssertEqual(result.status, 0, result.stderr)
        let packages = try FileManager.default.contentsOfDirectory(atPath: out.path)
        let pkg = out.appendingPathComponent(try XCTUnwrap(packages.first))
        let manifest = try JSONDecoder().decode(SuiteManifest.self, from: Data(contentsOf: pkg.appendingPathComponent("xcfleet-manifest.json")))
        XCTAssertEqual(manifest.testTarget, "CacheContractTests")
        XCTAssertTrue(result.stdout.contains("its tests are listed once it is built"), result.stdout)
        let settings = try String(contentsOf: pkg.appendingPathComponent("Tests/CacheContractTests/XCFleetSettings.swift"), encoding: .utf8)
        XCTAssertTrue(settings.contains("Generated by xcfleet"))
        let swift = try runCommand(URL(fileURLWithPath: "/usr/bin/env"), ["swift", "test"], cwd: pkg)
        XCTAssertEqual(swift.status, 0, String(swift.stdout.suffix(2000)) + String(swift.stderr.suffix(2000)))
        // As many tests ran as the built package lists (what a run's discover step reads).
        let list = try runCommand(URL(fileURLWithPath: "/usr/bin/env"), ["swift", "test", "list", "--skip-build"], cwd: pkg)
        let listed = SwiftTestList.parse(list.stdout)
        XCTAssertGreaterThan(listed.count, 30, list.stdout)
        XCTAssertTrue(swift.stdout.contains("Executed \(listed.count) tests, with 0 failures"), String(swift.stdout.suffix(1500)))
    }

    func testInterruptWritesAPartialReportAndExits130() throws {
        let p = Process()
        p.executableURL = TestPaths.xcfleetBinary
        // A fresh work root: the build is cold (a cached build would end the run before the Ctrl-C).
        p.arguments = ["run", "Plans/cache-contract.json", "--runs", runs.path, "--fleet", try coldLocalFleet()]
        p.currentDirectoryURL = TestPaths.packageRoot
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        try p.run()
        // Wait until the build phase has started, then Ctrl-C.
        let deadline = Date().addingTimeInterval(60)
        var sawBuild = false
        while Date() < deadline, !sawBuild {
            Thread.sleep(forTimeInterval: 0.2)
            if let dir = try? FileManager.default.contentsOfDirectory(atPath: runs.path).first,
               let events = try? String(contentsOf: runs.appendingPathComponent(dir).appendingPathComponent("events.jsonl"), encoding: .utf8) {
                sawBuild = events.contains(#""phase":"build""#)
            }
        }
        XCTAssertTrue(sawBuild, "the run reached the build phase")
        kill(p.processIdentifier, SIGINT)
        p.waitUntilExit()
        XCTAssertEqual(p.terminationStatus, 130)
        let report = try report(try onlyRunDirectory())
        XCTAssertTrue(report.interrupted)
        XCTAssertEqual(report.suites[0].jobs[0].finalState, .interrupted)
        let jobDirs = report.suites[0].jobs[0].attempts.map(\.phases).flatMap { $0 }.map(\.phase)
        XCTAssertTrue(jobDirs.contains(.cleanup), "the job directory was cleaned up: \(jobDirs)")
    }

    func testProbesReportMetricsAndNeverChangeTheExitCode() throws {
        let result = try xcfleet(["run", "Plans/pressure-probes.json", "--runs", runs.path])
        XCTAssertEqual(result.status, 0, result.stdout + result.stderr)
        let report = try report(try onlyRunDirectory())
        let probe = try XCTUnwrap(report.probes.first)
        XCTAssertEqual(probe.status, .measured)
        let metrics = probe.jobs.compactMap(\.decisive).flatMap(\.metrics)
        XCTAssertTrue(metrics.contains { $0.name == "hit_rate" }, "\(metrics.map(\.name))")
        XCTAssertTrue(metrics.contains { $0.name == "memory_delta" }, "\(metrics.map(\.name))")
        XCTAssertGreaterThan(Set(metrics.compactMap { $0.labels["rep"] }).count, 1, "repetitions show the spread")
    }

    /// Repetitions share one build: the local host's second slot takes the next repetition as soon
    /// as the first has the build, not when the first repetition's tests end.
    func testARepetitionStartsWhenTheFirstHasTheBuildNotWhenItsTestsEnd() throws {
        // A cost limit no other run used: a build this run has to make (incremental from the cache).
        let limit = 4_194_304 + 4096 * Int.random(in: 1...100_000)
        let plan = runs.deletingLastPathComponent().appendingPathComponent("repetitions-\(limit).json")
        try #"{ "name": "reps", "suites": [ { "name": "pressure", "template": "pressure-probes", "kind": "probe", "repetitions": 2, "parameters": { "objectSizes": "512", "costLimitBytes": \#(limit) } } ] }"#
            .write(to: plan, atomically: true, encoding: .utf8)
        let result = try xcfleet(["run", plan.path, "--runs", runs.path, "--no-history"])
        XCTAssertEqual(result.status, 0, result.stdout + result.stderr)
        let events = try EventLog.read(try onlyRunDirectory().appendingPathComponent("events.jsonl"))
        var started: [String: Double] = [:], ended: [String: Double] = [:], origins: [String: BuildOrigin] = [:], built: [String: Double] = [:]
        for e in events {
            switch e.body {
            case .attemptStarted(let ref, _, _): started[ref.jobID] = e.t
            case .attemptEnded(let ref, _): ended[ref.jobID] = e.t
            case .build(let ref, let record): origins[ref.jobID] = record.origin; built[ref.jobID] = e.t
            default: break
            }
        }
        let builder = try XCTUnwrap(origins.first { $0.value != .cached }?.key, "one repetition builds: \(origins)")
        let other = try XCTUnwrap(origins.first { $0.key != builder }, "\(origins)")
        XCTAssertEqual(other.value, .cached, "the other repetition uses the build: \(origins)")
        let otherStart = try XCTUnwrap(started[other.key]), builderEnd = try XCTUnwrap(ended[builder]), builtAt = try XCTUnwrap(built[builder])
        XCTAssertGreaterThanOrEqual(otherStart, builtAt, "it waited for the build")
        XCTAssertLessThan(otherStart, builderEnd, "it started while \(builder) was still testing (built at \(builtAt) s, ended at \(builderEnd) s)")
    }

    func testCombineSuiteIsUnschedulableOnALinuxOnlyFleet() throws {
        let result = try xcfleet(["run", "Plans/combine-lifetime.json", "--runs", runs.path])
        XCTAssertEqual(result.status, 3, result.stdout + result.stderr)
        XCTAssertTrue(result.stdout.contains("unschedulable"), result.stdout)
        XCTAssertTrue(result.stdout.contains("combine"), result.stdout)
        let report = try report(try onlyRunDirectory())
        XCTAssertEqual(report.suites[0].status, .unschedulable)
    }

    func testParseCollatesAnExistingLog() throws {
        let log = TestPaths.packageRoot.appendingPathComponent("Tests/Fixtures/logs/linux_xctest_crash.txt")
        let junit = try TestPaths.temporaryDirectory().appendingPathComponent("junit.xml")
        let result = try xcfleet(["parse", log.path, "--junit", junit.path])
        XCTAssertEqual(result.status, 1, result.stdout + result.stderr)
        XCTAssertTrue(result.stdout.contains("crashed before tests ran"), result.stdout)
        XCTAssertTrue(FileManager.default.fileExists(atPath: junit.path))
    }
}

extension EndToEndTests {
    /// The installed binary finds its templates without being run from the repository.
    func testInstalledBinaryFindsItsTemplatesOutsideTheRepository() throws {
        let prefix = try TestPaths.temporaryDirectory("prefix")
        let install = try runCommand(URL(fileURLWithPath: "/bin/bash"), ["scripts/install.sh", prefix.path],
                                     cwd: TestPaths.packageRoot, environment: ["XCFLEET_BIN": TestPaths.xcfleetBinary.path])
        XCTAssertEqual(install.status, 0, install.stderr)
        let elsewhere = try TestPaths.temporaryDirectory("elsewhere")
        let plan = elsewhere.appendingPathComponent("plan.json")
        try FileManager.default.copyItem(at: TestPaths.packageRoot.appendingPathComponent("Plans/cache-contract.json"), to: plan)
        let render = try runCommand(prefix.appendingPathComponent("bin/xcfleet"), ["render", plan.path, "--out", elsewhere.appendingPathComponent("out").path],
                                    cwd: elsewhere, environment: ["XCFLEET_HOME": ""])
        XCTAssertEqual(render.status, 0, render.stderr)
        XCTAssertTrue(FileManager.default.fileExists(atPath: elsewhere.appendingPathComponent("out/cache-gate/Sources/CacheContract/MemoryKey.swift").path))
    }
}

extension EndToEndTests {
    /// Two xcfleet processes share the one-slot local host: the slot lease (held on the host) makes
    /// them take turns — both runs finish green and their attempts never overlap in time.
    func testTwoConcurrentRunsNeverShareASlot() throws {
        final class Box: @unchecked Sendable { var results: [CommandResult?] = [nil, nil] }
        let box = Box()
        let runs = self.runs!
        DispatchQueue.concurrentPerform(iterations: 2) { i in
            box.results[i] = try? runCommand(TestPaths.xcfleetBinary, ["run", "Plans/cache-contract.json", "--runs", runs.path, "--verbose"],
                                             cwd: TestPaths.packageRoot)
        }
        for r in box.results { XCTAssertEqual(r?.status, 0, (r?.stdout ?? "") + (r?.stderr ?? "")) }
        let dirs = try FileManager.default.contentsOfDirectory(atPath: runs.path).sorted()
        XCTAssertEqual(dirs.count, 2)
        let iso = ISO8601DateFormatter()
        iso.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        var intervals: [(Double, Double)] = []
        for dir in dirs {
            let events = try EventLog.read(runs.appendingPathComponent(dir).appendingPathComponent("events.jsonl"))
            guard case .runStarted(let start)? = events.first?.body, let t0 = iso.date(from: start.startedAt) else { return XCTFail("no start") }
            let started = events.first { if case .attemptStarted = $0.body { return true } else { return false } }
            let ended = events.last { if case .attemptEnded = $0.body { return true } else { return false } }
            let a = try XCTUnwrap(started).t + t0.timeIntervalSince1970
            let b = try XCTUnwrap(ended).t + t0.timeIntervalSince1970
            intervals.append((a, b))
        }
        intervals.sort { $0.0 < $1.0 }
        XCTAssertLessThanOrEqual(intervals[0].1, intervals[1].0 + 0.05, "attempts overlapped: \(intervals)")

        // The two runs compared: nothing changed, in all three formats.
        let head = runs.appendingPathComponent(dirs[1]), base = runs.appendingPathComponent(dirs[0])
        let compare = try xcfleet(["report", head.path, "--compare", base.path])
        XCTAssertEqual(compare.status, 0, compare.stderr)
        for file in ["compare.md", "compare.json", "compare.html"] {
            XCTAssertTrue(FileManager.default.fileExists(atPath: head.appendingPathComponent(file).path), "missing \(file)")
        }
        let comparison = try JSONDecoder().decode(RunComparison.self, from: Data(contentsOf: head.appendingPathComponent("compare.json")))
        XCTAssertTrue(comparison.newFailures.isEmpty && comparison.fixed.isEmpty && comparison.newlyFlaky.isEmpty, "\(comparison)")
        let md = try String(contentsOf: head.appendingPathComponent("compare.md"), encoding: .utf8)
        XCTAssertTrue(md.contains("Newly red: none"), md)
        XCTAssertTrue(md.contains("tests 36 passed of 36 → 36 passed of 36"), md)
    }
}

extension EndToEndTests {
    /// A test process killed by the host (SIGKILL: OOM killer, reboot) is an infrastructure failure,
    /// retried, and never a test verdict. The toolchain here is a stand-in script so the kill is certain.
    func testTestProcessKilledByTheHostIsAnInfrastructureFailure() throws {
        let dir = try TestPaths.temporaryDirectory("sigkill")
        let swift = dir.appendingPathComponent("swift")
        try Data("""
        #!/bin/sh
        case "$1" in
          --version) echo "Swift version 6.3.1 (stand-in)";;
          build) mkdir -p .build/debug && printf '#!/bin/sh\necho "Test Suite '"'"'All tests'"'"' started"; kill -KILL $$\n' > .build/debug/xcfleet-cache-gatePackageTests.xctest && chmod +x .build/debug/xcfleet-cache-gatePackageTests.xctest;;
        esac
        """.utf8).write(to: swift)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: swift.path)
        let fleet = dir.appendingPathComponent("fleet.json")
        try Data(#"{"hosts": [{"name": "local", "transport": "local", "workRoot": "\#(dir.path)/work", "toolchain": {"swiftPath": "\#(swift.path)"}}]}"#.utf8).write(to: fleet)
        let result = try xcfleet(["run", "Plans/cache-contract.json", "--fleet", fleet.path, "--runs", runs.path])
        XCTAssertEqual(result.status, 3, result.stdout + result.stderr)
        let report = try report(try onlyRunDirectory())
        let job = report.suites[0].jobs[0]
        XCTAssertEqual(job.finalState, .infraFailed)
        XCTAssertEqual(job.attempts.count, 3, "retried up to the plan's limit")
        XCTAssertTrue(job.attempts.allSatisfy { ($0.infraError ?? "").contains("SIGKILL") }, "\(job.attempts.map(\.infraError))")
    }
}

extension EndToEndTests {
    /// A fleet file naming the local host with a work root of its own in a fresh temporary
    /// directory: nothing is cached there, so the run's build is cold and takes seconds.
    func coldLocalFleet() throws -> String {
        let dir = try TestPaths.temporaryDirectory("cold-fleet")
        let fleet = dir.appendingPathComponent("fleet.json")
        let root = dir.appendingPathComponent("work").path
        try Data(#"{"hosts": [{"name": "local", "transport": "local", "workRoot": "\#(root)"}]}"#.utf8).write(to: fleet)
        return fleet.path
    }

    /// A run waiting for another run's slot lease stops at once on Ctrl-C.
    func testCtrlCWhileWaitingForALeaseStopsAtOnce() throws {
        // Both runs share one fresh work root (and so its slot lease); its first build is cold, so
        // the first run holds the slot long enough whatever other tests left in the default cache.
        let fleet = try coldLocalFleet()
        func start(_ dir: URL) throws -> Process {
            let p = Process()
            p.executableURL = TestPaths.xcfleetBinary
            p.arguments = ["run", "Plans/cache-contract.json", "--runs", dir.path, "--fleet", fleet]
            p.currentDirectoryURL = TestPaths.packageRoot
            p.standardOutput = FileHandle.nullDevice
            p.standardError = FileHandle.nullDevice
            try p.run()
            return p
        }
        func events(_ dir: URL) -> String {
            guard let run = try? FileManager.default.contentsOfDirectory(atPath: dir.path).first else { return "" }
            return (try? String(contentsOf: dir.appendingPathComponent(run).appendingPathComponent("events.jsonl"), encoding: .utf8)) ?? ""
        }
        let first = runs.appendingPathComponent("first"), second = runs.appendingPathComponent("second")
        let holder = try start(first)
        defer { holder.terminate(); holder.waitUntilExit() }
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline, !events(first).contains("attemptStarted") { Thread.sleep(forTimeInterval: 0.1) }
        XCTAssertTrue(events(first).contains("attemptStarted"), "the first run holds the slot")
        let waiter = try start(second)
        Thread.sleep(forTimeInterval: 2)
        XCTAssertFalse(events(second).contains("attemptStarted"), "the second run waits for the lease")
        let stopped = Date()
        kill(waiter.processIdentifier, SIGINT)
        waiter.waitUntilExit()
        XCTAssertEqual(waiter.terminationStatus, 130)
        XCTAssertLessThan(Date().timeIntervalSince(stopped), 10, "stopped promptly")
    }
}
