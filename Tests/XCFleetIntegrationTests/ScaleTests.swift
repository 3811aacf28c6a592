import Foundation
import XCTest
import XCFleetKit
import XCFleetTestSupport

/// 32 real `sshd` hosts on 127.0.0.1 × 2 slots, 128 short jobs, through the real `xcfleet`
/// binary: every job's result arrives exactly once, and the orchestrator's peak memory and thread
/// count are printed. The compiler is faked (`scripts/fake-swift.sh`: instant build, XCTest output
/// for the manifest's 36 tests) so that 128 jobs fit in a minute on 2 cores; SSH, pushes, leases,
/// scheduling, parsing and reports are real. (The real toolchain: SSHRunTests, EndToEndTests.)
final class ScaleTests: XCTestCase {
    private var work: URL!

    override func setUpWithError() throws {
        if !FileManager.default.isExecutableFile(atPath: "/usr/sbin/sshd") {
            if ProcessInfo.processInfo.environment["CI"] != nil {
                throw NSError(domain: "ScaleTests", code: 1, userInfo: [NSLocalizedDescriptionKey: "sshd missing on CI (apt-get install openssh-server)"])
            }
            throw XCTSkip("sshd is not installed (apt-get install openssh-server); skipping the scale test")
        }
        work = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("xcf-scale-\(getpid())-\(UUID().uuidString.prefix(6))")
        try FileManager.default.createDirectory(at: work.appendingPathComponent("bin"), withIntermediateDirectories: true)
    }

    override func tearDown() {
        guard let work else { return }
        _ = try? TestHosts.shell([TestHosts.packageRoot.appendingPathComponent("scripts/testhosts.sh").path, "stop", work.appendingPathComponent("hosts").path])
        for i in 1...Self.hostCount { try? FileManager.default.removeItem(atPath: workRoot(i)) }
        try? FileManager.default.removeItem(at: work)
    }

    static let hostCount = 32
    static let slots = 2
    private func workRoot(_ i: Int) -> String { work.appendingPathComponent("root-h\(i)").path }

    func test128JobsOn32HostsArriveExactlyOnce() throws {
        let swiftPath = work.appendingPathComponent("bin/swift").path
        try FileManager.default.copyItem(atPath: TestHosts.packageRoot.appendingPathComponent("scripts/fake-swift.sh").path, toPath: swiftPath)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: swiftPath)
        let hostsDir = work.appendingPathComponent("hosts").path
        let started = Date()
        try TestHosts.shell(["env", "TESTHOSTS_SWIFT=\(swiftPath)", TestHosts.packageRoot.appendingPathComponent("scripts/testhosts.sh").path,
                             "start", String(Self.hostCount), hostsDir])
        let startup = Date().timeIntervalSince(started)
        var hosts: [String] = []
        for i in 1...Self.hostCount {
            let port = try String(contentsOfFile: "\(hostsDir)/h\(i)/port", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
            hosts.append(FleetJSON.host(name: "h\(i)", address: "127.0.0.1", port: Int(port) ?? 0, identityFile: "\(hostsDir)/client_ed25519",
                                        knownHostsFile: "\(hostsDir)/known_hosts", slots: Self.slots, workRoot: workRoot(i), swiftPath: swiftPath))
        }
        let fleet = work.appendingPathComponent("fleet.json")
        try Data(FleetJSON.fleet(hosts).utf8).write(to: fleet)
        // Two suites × 64 repetitions = 128 jobs, each the full 36-test manifest.
        let plan = work.appendingPathComponent("plan.json")
        try Data(FleetJSON.plan(suites: ["scale-a", "scale-b"], repetitions: 64).utf8).write(to: plan)

        let runStart = Date()
        let run = try XCFleetProcess(plan: plan.path, fleet: fleet.path, workDir: work)
        let status = run.waitForExit(timeout: 170)
        let wall = Date().timeIntervalSince(runStart)
        let peaks = run.peaks
        print("ScaleTests: \(Self.hostCount) hosts × \(Self.slots) slots, 128 jobs: xcfleet ran \(String(format: "%.1f", wall)) s "
              + "(hosts started in \(String(format: "%.1f", startup)) s); peak RSS \(peaks.rssKiB / 1024) MiB (VmHWM \(peaks.rssKiB) KiB), peak threads \(peaks.threads)")
        XCTAssertEqual(status, 0, run.output)

        let report = try run.report()
        let jobs = report.suites.flatMap(\.jobs)
        XCTAssertEqual(jobs.count, 128)
        XCTAssertEqual(Set(jobs.map(\.planned.jobID)).count, 128, "job ids are unique")
        XCTAssertEqual(report.totals.jobs, 128)
        XCTAssertEqual(report.totals.jobsByState, ["passed": 128])
        XCTAssertEqual(report.totals.jobsByState.values.reduce(0, +), report.totals.jobs, "totals add up")
        XCTAssertEqual(report.totals.tests.passed, 128 * 36)
        XCTAssertEqual(report.totals.tests.red, 0)
        for job in jobs {
            XCTAssertEqual(job.attempts.count, 1, "\(job.planned.jobID) ran \(job.attempts.count) times")
            XCTAssertEqual(job.decisive?.tests.filter { $0.status == .passed }.count, 36, job.planned.jobID)
        }
        let usedHosts = Set(jobs.compactMap { $0.decisive?.host })
        XCTAssertGreaterThanOrEqual(usedHosts.count, Self.hostCount / 2, "queue mode spreads the jobs: \(usedHosts.sorted())")

        // The event log: each job planned once, each attempt started and ended exactly once,
        // every test event belongs to a started attempt, and each attempt saw each test finish once.
        let events = run.events()
        var planned: [String: Int] = [:], startedCount: [AttemptRef: Int] = [:], endedCount: [AttemptRef: Int] = [:]
        var finished: [AttemptRef: [String: Int]] = [:]
        for e in events {
            switch e.body {
            case .jobPlanned(let p): planned[p.jobID, default: 0] += 1
            case .attemptStarted(let ref, let host, let slot):
                startedCount[ref, default: 0] += 1
                XCTAssertTrue(host.hasPrefix("h") && (0..<Self.slots).contains(slot), "\(host)#\(slot)")
            case .attemptEnded(let ref, _):
                endedCount[ref, default: 0] += 1
            case .test(let ref, .testFinished(let id, _, _, _, _)):
                XCTAssertNotNil(startedCount[ref], "test event of an attempt that never started")
                finished[ref, default: [:]]["\(id.suite)/\(id.name)", default: 0] += 1
            default: break
            }
        }
        XCTAssertEqual(planned.count, 128)
        XCTAssertTrue(planned.values.allSatisfy { $0 == 1 })
        XCTAssertEqual(startedCount.count, 128)
        XCTAssertTrue(startedCount.values.allSatisfy { $0 == 1 })
        XCTAssertEqual(endedCount, startedCount, "every attempt ends exactly once")
        XCTAssertEqual(finished.count, 128)
        XCTAssertTrue(finished.values.allSatisfy { $0.count == 36 && $0.values.allSatisfy { $0 == 1 } }, "each test finishes once per attempt")
        XCTAssertLessThan(peaks.rssKiB, 1_000_000, "peak RSS above 1 GB")
        XCTAssertGreaterThan(peaks.threads, 0, "/proc was sampled")
    }
}
