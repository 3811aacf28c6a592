import Foundation
import XCTest
@testable import XCFleetKit
import XCFleetTestSupport

/// Host-side history: host classes (`HostProfile`), durations on comparable hosts
/// (`ComparableDurations`), the build-cache hit rate per host, and cost phases (provision, idle).
final class HostHistoryTests: XCTestCase {
    // MARK: Host class

    func testHostClassFollowsToolchainAndCPUAndTheHealthCheckReadsTheCPU() {
        let linux = "system: Linux x86_64\nSwift version 6.3.1 (swift-6.3.1-RELEASE)"
        let a = HostProfile(host: "a", toolchainIdentity: linux, system: "Linux x86_64", toolchain: "Swift version 6.3.1", cpu: "Xeon ×2")
        let b = HostProfile(host: "b", toolchainIdentity: linux, system: "Linux x86_64", toolchain: "Swift version 6.3.1", cpu: "Xeon ×2")
        let c = HostProfile(host: "c", toolchainIdentity: linux, system: "Linux x86_64", toolchain: "Swift version 6.3.1", cpu: "Xeon ×8")
        let d = HostProfile(host: "d", toolchainIdentity: linux.replacingOccurrences(of: "6.3.1", with: "6.2"), system: nil, toolchain: nil, cpu: "Xeon ×2")
        XCTAssertEqual(a.hostClass?.count, 12)
        XCTAssertEqual(a.hostClass, b.hostClass, "same toolchain, same CPU: one class whatever the name")
        XCTAssertNotEqual(a.hostClass, c.hostClass, "another CPU count")
        XCTAssertNotEqual(a.hostClass, d.hostClass, "another toolchain")
        XCTAssertEqual(a.label, "Linux x86_64 · Xeon ×2 · Swift version 6.3.1")
        XCTAssertNil(HostProfile(host: "e", toolchainIdentity: nil, system: nil, toolchain: nil, cpu: "x").hostClass)

        let output = "@@uname\nDarwin arm64\n@@df 0\nFilesystem 1024-blocks Used Available Capacity Mounted on\n/dev/disk3s5 971350180 1 900000000 1% /\n"
            + "@@private 0\n@@toolchain 0\nXcode 16.4\nBuild version 16F6\n@@cpu\nApple M2 Pro\n12\n@@end\n"
        var host = HostSpec(name: "mac-1", address: "10.0.0.5", user: "ci")
        host.toolchain.developerDir = "/Applications/Xcode.app/Contents/Developer"
        let health = HostHealth.evaluate(output: output, host: host, minimumFreeBytes: 0)
        XCTAssertEqual(health.cpu, "Apple M2 Pro ×12")
        XCTAssertEqual(HostProfile(host: "mac-1", health: health).label, "Darwin arm64 · Apple M2 Pro ×12 · Xcode 16.4")
    }

    func testTheLocalHealthCheckNamesThisMachinesCPU() async {
        let health = await HostHealth.check(shell: LocalShell(host: .local), host: .local, minimumFreeBytes: 0)
        let cpu = try? XCTUnwrap(health.cpu)
        XCTAssertTrue(cpu?.hasSuffix("×\(ProcessInfo.processInfo.activeProcessorCount)") == true, "\(String(describing: cpu))")
    }

    /// `xcfleet hosts check` after two runs on a fresh work root (the first builds cold, the second
    /// finds the build in the host's cache): the host's history line shows a 50% build-cache hit
    /// rate and the host's class. Real binary, real SQLite, the fake `swift`.
    func testHostsCheckShowsTheBuildCacheHitRateAndClass() throws {
        let dir = try TestPaths.temporaryDirectory()
        let fleet = try FakeToolchain.localFleet(in: dir, hostKeys: #""workRoot": "\#(dir.path)/work", "#)
        let runs = dir.appendingPathComponent("runs").path
        for _ in 0..<2 {
            let run = try FakeToolchain.xcfleet(["run", "Plans/cache-contract.json", "--fleet", fleet.path, "--runs", runs, "--quiet"])
            XCTAssertEqual(run.status, 0, run.stdout + run.stderr)
        }
        let check = try FakeToolchain.xcfleet(["hosts", "check", "--fleet", fleet.path, "--runs", runs])
        XCTAssertEqual(check.status, 0, check.stdout + check.stderr)
        let line = try XCTUnwrap(check.stdout.split(separator: "\n").first { $0.contains("history (7 d)") }, check.stdout)
        XCTAssertTrue(line.contains("build cache 50% hits (1 cached of 2 builds)"), String(line))
        XCTAssertTrue(line.contains("Swift version 6.3.1 (fake toolchain for xcfleet tests)"), String(line))
        XCTAssertTrue(line.contains("×\(ProcessInfo.processInfo.activeProcessorCount)"), String(line))
    }

    // MARK: Durations on comparable hosts

    func testComparableSamplesWinOnlyWithEnoughOfThem() {
        let all = ComparableDurations.Samples(tests: ["gate": ["A/t": [1, 1, 10, 10, 10], "A/u": [2, 2, 2]]], attempts: ["gate": [5, 50, 50]])
        let many = ComparableDurations.Samples(tests: ["gate": ["A/t": [1, 1, 1], "A/u": [9, 9]]], attempts: ["gate": [5, 6, 7]])
        let choice = ComparableDurations.choose(comparable: many, all: all)
        XCTAssertEqual(choice.history.expectedSeconds(suite: "gate", test: "A/t"), 1, "3 comparable samples: theirs")
        XCTAssertEqual(choice.history.expectedSeconds(suite: "gate", test: "A/u"), 2, "2 comparable samples are too few: every host's")
        XCTAssertEqual(choice.history.attemptSeconds["gate"], 6)
        XCTAssertEqual(choice.comparableTests, 1)
        XCTAssertEqual(choice.comparableSuites, 1)
        let only = ComparableDurations.choose(comparable: ComparableDurations.Samples(tests: ["gate": ["A/new": [4]]]), all: .init())
        XCTAssertEqual(only.history.expectedSeconds(suite: "gate", test: "A/new"), 4, "nothing else known: the comparable sample")
    }

    func testBuildCostsComeFromTheHistoryInOrderElseTheDefaults() {
        XCTAssertEqual(BuildCostEstimate(history: nil), .defaults)
        var history = DurationHistory()
        history.buildSeconds = [.cold: 12, .cached: 0.2, .incremental: 2]
        XCTAssertEqual(BuildCostEstimate(history: history), BuildCostEstimate(cold: 12, incremental: 2, cached: 0.2))
        history.buildSeconds = [.cold: 3]
        XCTAssertEqual(BuildCostEstimate(history: history), BuildCostEstimate(cold: 3, incremental: 3, cached: 0.5),
                       "a default never exceeds a measured cheaper kind")
        history.buildSeconds = [.cold: 10, .incremental: 40, .cached: 50]
        XCTAssertEqual(BuildCostEstimate(history: history), BuildCostEstimate(cold: 10, incremental: 10, cached: 10))
        XCTAssertFalse(history.isEmpty, "build costs alone are a history worth using")
    }

    // MARK: Cost phases

    /// Events as a run with a provisioner writes them: create took 20 s (ending at t=20), admission
    /// at t=25, one attempt busy 30 s in 2 phases, the run ends at t=100 — provision 20, build 10,
    /// test 20, idle 50 (leased but unused from t=20 to t=100, minus the 30 busy seconds).
    func testProvisionTimeIsProvisionAndIdleIsLeasedButUnusedTime() throws {
        let spec = SuiteSpec(name: "gate", template: "cache-contract", kind: .gate)
        let ref = AttemptRef(jobID: "gate", attempt: 1)
        let bodies: [(Double, RunEvent.Body)] = [
            (0, .runStarted(RunStarted(runID: "r", planName: "p", planPath: "p.json", startedAt: "2026-12-01T05:00:00Z", xcfleetVersion: "t", suites: [spec], hosts: []))),
            (0, .jobPlanned(JobPlanned(jobID: "gate", suite: "gate", kind: .gate, expectedTests: []))),
            (20, .hostProvisioned(host: "vm-1", seconds: 20)),
            (25, .hostAdmitted(HostProfile(host: "vm-1", hostClass: "c1", label: "vm"))),
            (30, .attemptStarted(ref, host: "vm-1", slot: 0)),
            (30, .phaseStarted(ref, phase: .build)), (40, .phaseFinished(ref, phase: .build)),
            (40, .phaseStarted(ref, phase: .test)), (60, .phaseFinished(ref, phase: .test)),
            (60, .attemptEnded(ref, AttemptEnded(termination: .exited(0)))),
            (99, .hostProvisioned(host: "vm-2", seconds: 5)),
            (100, .runFinished(interrupted: false)),
        ]
        let events = bodies.enumerated().map { RunEvent(seq: $0.offset, t: $0.element.0, body: $0.element.1) }
        let report = Collator(mutantFaults: [:]).collate(events)
        XCTAssertEqual(report.hostTimelines?.map(\.host), ["vm-1", "vm-2"])
        XCTAssertEqual(report.hostTimelines?.first?.admittedAt, 25)
        let cost = RunCost.compute(report, pricePerHour: [:], defaultPrice: 3.6)
        func seconds(_ host: String, _ phase: String) -> Double? { cost.lines.first { $0.host == host && $0.phase == phase }?.hostSeconds }
        XCTAssertEqual(seconds("vm-1", "provision"), 20)
        XCTAssertEqual(seconds("vm-1", "build"), 10)
        XCTAssertEqual(seconds("vm-1", "test"), 20)
        XCTAssertEqual(seconds("vm-1", "idle"), 50)
        XCTAssertEqual(seconds("vm-2", "provision"), 5, "a host created late still costs its create time")
        XCTAssertEqual(seconds("vm-2", "idle"), 1, "and is held to the end")
        XCTAssertEqual(cost.hostSeconds, 106, accuracy: 1e-9, "vm-1 from its create start (t=0), vm-2 from t=94")
        XCTAssertEqual(cost.total ?? 0, 0.106, accuracy: 1e-9)

        // Recorded: the host rows carry the class; the cost rows the phases.
        let record = HistoryRecord(report: report, cost: cost)
        XCTAssertEqual(record.rows["hosts"]?.map { $0[1] }, [.text("vm-1"), .text("vm-2")])
        XCTAssertEqual(record.rows["hosts"]?.first?[3], .text("c1"))
        XCTAssertTrue(record.rows["run_costs"]?.contains { $0[1] == .text("vm-1") && $0[2] == .text("provision") } == true)
    }

    /// A fleet host admitted at t=40 of a 100 s run that ran nothing is billed 60 s of idle; one set
    /// aside at admission is not billed; a run recorded before admissions were logged bills the whole run.
    func testAFleetHostIsBilledFromItsAdmission() {
        let suite = SampleReports.spec("gate")
        let attempt = SampleReports.attempt(1, host: "mac-1", start: 50, tests: [], phases: SampleReports.phases(from: 50, [(.test, 20)]))
        var report = SampleReports.report("r", suites: [SuiteReport(spec: suite, status: .green, reasons: [],
                                                                     jobs: [SampleReports.job("gate", suite: suite, expected: [], attempts: [attempt], state: .passed)])],
                                          hosts: ["mac-1", "mac-2", "mac-3"])
        report.duration = 100
        XCTAssertEqual(RunCost.compute(report, pricePerHour: [:]).hostSeconds, 100, accuracy: 1e-9, "old run: whole run")
        report.hostTimelines = [HostTimeline(host: "mac-1", admittedAt: 40), HostTimeline(host: "mac-2", admittedAt: 40)]
        let cost = RunCost.compute(report, pricePerHour: [:])
        XCTAssertEqual(cost.lines.filter { $0.host == "mac-1" }.map(\.phase), ["test", "idle"])
        XCTAssertEqual(cost.lines.first { $0.host == "mac-1" && $0.phase == "idle" }?.hostSeconds ?? 0, 40, accuracy: 1e-9)
        XCTAssertEqual(cost.lines.filter { $0.host == "mac-2" }.map(\.phase), ["idle"])
        XCTAssertEqual(cost.lines.first { $0.host == "mac-2" }?.hostSeconds ?? 0, 60, accuracy: 1e-9)
        XCTAssertFalse(cost.lines.contains { $0.host == "mac-3" }, "never admitted, never billed")
        XCTAssertNil(cost.byPhase["provision"])
    }

    /// A real run whose only host comes from the fake provisioner (its create sleeps 1 s), run
    /// through the built-in local shell with the fake `swift`: the create time is `provision`, the
    /// host's class is recorded, and everything the attempts did not use is `idle`.
    func testAProvisionedHostsCreateTimeIsBilledAsProvision() async throws {
        let base = try TestPaths.temporaryDirectory()
        let state = base.appendingPathComponent("state"), runs = base.appendingPathComponent("runs")
        try FileManager.default.createDirectory(at: state, withIntermediateDirectories: true)
        let swift = try FakeToolchain.install(in: base)
        var template = HostSpec(name: FleetLoader.provisionedTemplateName, user: "tester", hostKeyPolicy: .acceptNew, slots: 1,
                                workRoot: base.appendingPathComponent("work").path)
        template.toolchain.swiftPath = swift.path
        template.pricePerHour = 7.2
        let fixtures = TestPaths.packageRoot.appendingPathComponent("Tests/Fixtures/provisioner")
        let create = ["/usr/bin/env", "FAKE_STATE=\(state.path)", "FAKE_BEHAVIOUR=slow", fixtures.appendingPathComponent("fake-provisioner.sh").path]
        let provisioner = ProvisionerSpec(create: create + ["create"], release: create + ["release"], count: 1, template: template)
        let fleet = Fleet(hosts: [], provisioner: provisioner)
        let plan = try PlanLoader.parse(Data(#"{"name": "p", "suites": [{"name": "gate", "template": "cache-contract"}]}"#.utf8),
                                        path: "p.json", knownTemplates: ["cache-contract"])
        let config = RunConfiguration(plan: plan, fleet: fleet, root: TemplateRoot(url: TestPaths.packageRoot), runsDirectory: runs)
        // The created host's SSH address is fake: its commands run here, through the local shell.
        let runner = try Runner(config: config, shellFactory: { host, _ in LocalShell(host: host) })
        let report = try await runner.run()
        XCTAssertEqual(report.exitCode, 0, report.verdictLine + " " + report.notes.joined(separator: " | "))
        let timeline = try XCTUnwrap(report.hostTimelines?.first { $0.host == "vm-1" })
        XCTAssertGreaterThanOrEqual(timeline.provisionSeconds ?? 0, 1, "the create command sleeps 1 s")
        XCTAssertNotNil(timeline.hostClass)
        let cost = RunCost.compute(report, pricePerHour: fleet.pricing.perHost, defaultPrice: fleet.pricing.defaultPrice)
        let byPhase = cost.byPhase
        XCTAssertEqual(byPhase["provision"] ?? 0, timeline.provisionSeconds ?? -1, accuracy: 1e-9)
        XCTAssertGreaterThan(byPhase["test"] ?? 0, 0)
        XCTAssertNotNil(byPhase["idle"])
        let busy = byPhase.filter { $0.key != "provision" && $0.key != "idle" }.values.reduce(0, +)
        XCTAssertEqual(cost.hostSeconds, report.duration - (timeline.provisionedAt! - timeline.provisionSeconds!), accuracy: 0.01,
                       "billed from the create command's start to the end")
        XCTAssertEqual(byPhase["idle"] ?? 0, report.duration - timeline.provisionedAt! - busy, accuracy: 0.01,
                       "idle: held after the create, not used by an attempt")
        XCTAssertEqual(cost.total ?? 0, cost.hostSeconds * 7.2 / 3600, accuracy: 1e-9)
        let released = try FileManager.default.contentsOfDirectory(atPath: state.path).filter { $0.hasPrefix("released-") }
        XCTAssertEqual(released, ["released-vm-1.json"])
    }
}

/// Store tests for host history, run on both backends (see HistoryStoreTests).
extension HistoryStoreContract {
    /// The build-cache hit rate per host: 4 builds on mac-1 (cold, cached, cached, incremental) = 50%.
    static func buildCacheHitRatePerHost(_ location: HistoryLocation) async throws {
        let dir = try TestPaths.temporaryDirectory()
        let store = try await HistoryDatabase.open(location)
        for (i, origin) in [BuildOrigin.cold, .cached, .cached, .incremental].enumerated() {
            let run = try HistoryFixtures.writeRun(in: dir, runID: "b\(i)", startedAt: now - Double(4 - i) * 3600, host: "mac-1",
                                                   tests: [.init(name: "A/t", statuses: [.passed], seconds: 1)],
                                                   hostClass: "class-a", build: origin, buildSeconds: origin == .cached ? 0.2 : 20)
            try await store.record(try HistoryRecorder.record(runDirectory: run))
        }
        let other = try HistoryFixtures.writeRun(in: dir, runID: "b-other", startedAt: now, host: "mac-2",
                                                 tests: [.init(name: "A/t", statuses: [.passed], seconds: 1)])
        try await store.record(try HistoryRecorder.record(runDirectory: other))
        let hosts = try await store.hostHistory(since: 0)
        let mac1 = try XCTUnwrap(hosts.first { $0.host == "mac-1" })
        XCTAssertEqual(mac1.builds, 4)
        XCTAssertEqual(mac1.cachedBuilds, 2)
        XCTAssertEqual(mac1.buildCacheHitRate, 0.5)
        XCTAssertEqual(mac1.hostClass, "class-a")
        let line = HostHealthGate.describe(mac1)
        XCTAssertTrue(line.contains("build cache 50% hits (2 cached of 4 builds)"), line)
        XCTAssertTrue(line.contains("class class-a (class class-a)"), line)
        let mac2 = try XCTUnwrap(hosts.first { $0.host == "mac-2" })
        XCTAssertNil(mac2.buildCacheHitRate, "no build recorded")
        XCTAssertTrue(HostHealthGate.describe(mac2).contains("build cache -"), HostHealthGate.describe(mac2))
        // The scheduler's build costs: medians per origin (lock waits left out).
        let durations = try await store.durations(suites: ["gate"], lastRuns: 10, comparableTo: ["mac-1"])
        XCTAssertEqual(durations.buildSeconds, [.cold: 20, .cached: 0.2, .incremental: 20])
        XCTAssertEqual(BuildCostEstimate(history: durations), BuildCostEstimate(cold: 20, incremental: 20, cached: 0.2))
        await store.close()
    }

    /// Two host classes with very different durations: `fast` hosts run the test in 1 s, `slow`
    /// ones in 10 s, the slow runs being the most recent. A fleet of fast hosts gets 1 s, a fleet of
    /// slow hosts 10 s; a host whose class has fewer than 3 samples falls back to every host.
    static func durationsPreferComparableHosts(_ location: HistoryLocation) async throws {
        let dir = try TestPaths.temporaryDirectory()
        let store = try await HistoryDatabase.open(location)
        var runs: [(String, String, String, Double, Double)] = []   // id, host, class, seconds, age (h)
        for i in 0..<4 { runs.append(("fast\(i)", "fast-\(i % 2)", "class-fast", 1, 20 - Double(i))) }
        for i in 0..<5 { runs.append(("slow\(i)", "slow-\(i % 2)", "class-slow", 10, 10 - Double(i))) }
        for i in 0..<2 { runs.append(("odd\(i)", "odd-1", "class-odd", 100, 30 - Double(i))) }
        for (id, host, cls, seconds, age) in runs {
            let run = try HistoryFixtures.writeRun(in: dir, runID: id, startedAt: now - age * 3600, host: host,
                                                   tests: [.init(name: "A/t", statuses: [.passed], seconds: seconds)], hostClass: cls)
            try await store.record(try HistoryRecorder.record(runDirectory: run))
        }
        let fast = try await store.durations(suites: ["gate"], lastRuns: 10, comparableTo: ["fast-1"])
        XCTAssertEqual(fast.expectedSeconds(suite: "gate", test: "A/t"), 1, "fast-1's class: fast-0's runs count too")
        let slow = try await store.durations(suites: ["gate"], lastRuns: 10, comparableTo: ["slow-0"])
        XCTAssertEqual(slow.expectedSeconds(suite: "gate", test: "A/t"), 10)
        let mixed = try await store.durations(suites: ["gate"], lastRuns: 10, comparableTo: ["fast-0", "slow-0"])
        XCTAssertEqual(mixed.expectedSeconds(suite: "gate", test: "A/t"), 10, "median of 4 × 1 s and 5 × 10 s")
        let all = try await store.durations(suites: ["gate"], lastRuns: 10, comparableTo: [])
        let odd = try await store.durations(suites: ["gate"], lastRuns: 10, comparableTo: ["odd-1"])
        XCTAssertEqual(odd.expectedSeconds(suite: "gate", test: "A/t"), all.expectedSeconds(suite: "gate", test: "A/t"),
                       "2 samples of its class are too few: every host's")
        let unknown = try await store.durations(suites: ["gate"], lastRuns: 10, comparableTo: ["never-seen"])
        XCTAssertEqual(unknown, all, "a fleet the history never saw: every host")
        XCTAssertNotNil(fast.attemptSeconds["gate"], "attempt times come from the same hosts (the rule is tested in HostHistoryTests)")
        await store.close()
    }
}
