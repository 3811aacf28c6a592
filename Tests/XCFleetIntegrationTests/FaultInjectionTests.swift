import Foundation
import XCTest
import XCFleetKit
import XCFleetTestSupport

/// Real faults on real hosts: `sshd` in network namespaces (`NamespaceHosts`), the real `xcfleet`
/// binary, real SSH, pushes, scheduling, retries, deadlines and reports. Only the compiler is
/// faked: the hosts' `swift` is `scripts/fake-swift.sh`, which "builds" at once and prints
/// Linux XCTest output for the manifest's tests, `FAKE_SWIFT_DELAY` seconds apart, so a suite runs
/// long enough to be broken mid-run without costing a real build's minute of CPU on 2 cores.
/// (The real toolchain over SSH is covered by SSHRunTests and EndToEndTests.)
///
/// Needs root and `ip netns` (skipped otherwise, failed when `CI` is set). Every wait has a
/// deadline; the namespaces are deleted in tearDown and, failing that, at process exit.
final class FaultInjectionTests: XCTestCase {
    private var work: URL!
    private var swiftPath = ""
    private var hosts: NamespaceHosts?

    override func setUpWithError() throws {
        try NamespaceHosts.require()
        (work, swiftPath) = try NamespaceHosts.fakeToolchainWork("xcf-faults")
    }

    override func tearDown() {
        hosts?.stop()
        hosts = nil
        if let work { try? FileManager.default.removeItem(at: work) }
    }

    // MARK: - Helpers

    private func startHosts(_ n: Int) throws -> NamespaceHosts {
        let h = try NamespaceHosts(count: n, swiftPath: swiftPath)
        hosts = h
        return h
    }

    private func write(_ text: String, _ name: String) throws -> String {
        let url = work.appendingPathComponent(name)
        try Data(text.utf8).write(to: url)
        return url.path
    }

    private func launch(plan: String, fleet: String) throws -> XCFleetProcess {
        try XCFleetProcess(plan: try write(plan, "plan.json"), fleet: try write(fleet, "fleet.json"), workDir: work)
    }

    /// Waits until the first attempt of `jobID` is mid-suite (at least `tests` tests finished) and returns it with its host.
    private func midSuite(_ run: XCFleetProcess, jobID: String, tests: Int = 3) throws -> (ref: AttemptRef, host: String) {
        var found: (AttemptRef, String)?
        let events = run.waitForEvents(timeout: 40) { events in
            guard let a = events.attemptsStarted().first(where: { $0.ref.jobID == jobID && $0.ref.attempt == 1 }) else { return false }
            found = (a.ref, a.host)
            return events.testsFinished(a.ref) >= tests
        }
        guard events != nil, let found else {
            throw NSError(domain: "FaultInjectionTests", code: 1, userInfo: [NSLocalizedDescriptionKey: "job \(jobID) never got mid-suite; xcfleet said:\n\(run.output)"])
        }
        return found
    }

    private func index(of host: String) -> Int { Int(host.dropFirst()) ?? 0 }

    /// Seconds since the run started (the events' clock) at this instant.
    private func runClock(_ events: [RunEvent]) -> Double? {
        for e in events {
            if case let .runStarted(s) = e.body {
                let f = ISO8601DateFormatter()
                f.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
                // `startedAt` is stamped when this event is written, `e.t` seconds after the log's clock started.
                return f.date(from: s.startedAt).map { Date().timeIntervalSince($0) + e.t }
            }
        }
        return nil
    }

    private func job(_ report: RunReport, _ id: String) throws -> JobReport {
        try XCTUnwrap(report.suites.flatMap(\.jobs).first { $0.planned.jobID == id }, "no job \(id) in the report")
    }

    // MARK: - Tests

    /// sshd and every session process of the host running the suite are SIGKILLed mid-suite.
    func testKilledHostMidSuiteIsRerunOnAnotherHost() throws {
        let h = try startHosts(2)
        let env = ["FAKE_SWIFT_DELAY": "0.15"]
        let run = try launch(plan: FleetJSON.plan(suites: ["gate"]),
                             fleet: FleetJSON.fleet([1, 2].map { h.hostJSON($0, swiftPath: swiftPath, environment: env) }))
        let (ref, victim) = try midSuite(run, jobID: "gate")
        try h.killHost(index(of: victim))
        let status = run.waitForExit(timeout: 60)
        XCTAssertEqual(status, 0, run.output)
        let report = try run.report()
        let job = try job(report, "gate")
        XCTAssertEqual(job.finalState, .passed)
        XCTAssertEqual(job.attempts.count, 2, "\(job.attempts.map { ($0.host, $0.infraError ?? "-") })")
        let first = try XCTUnwrap(job.attempts.first)
        XCTAssertEqual(first.host, victim)
        XCTAssertTrue(first.lost, "the killed attempt is labelled lost")
        XCTAssertNotNil(first.infraError)
        XCTAssertTrue(first.problems.contains { $0.hasPrefix("infrastructure") }, "\(first.problems)")
        XCTAssertGreaterThan(first.tests.count, 0, "events of the lost attempt are kept")
        XCTAssertLessThan(first.tests.count, 36)
        let second = try XCTUnwrap(job.attempts.last)
        XCTAssertNotEqual(second.host, victim, "the rerun goes to another host")
        XCTAssertEqual(second.tests.filter { $0.status == .passed }.count, 36)
        XCTAssertEqual(report.totals.tests.passed, 36, "the lost attempt's results are not merged into the totals")
        XCTAssertEqual(report.totals.attempts, 2)
        let events = run.events()
        let ended = try XCTUnwrap(events.attemptEnded(ref))
        XCTAssertNotNil(ended.ended.infraError)
        XCTAssertEqual(events.attemptsStarted().count, 2)
    }

    /// The cable of the host running the suite is pulled: nothing more arrives, no reset, and
    /// reconnects hang (a silent partition).
    /// The dead-peer limit (fleet `deadPeerSeconds`, 6 s here; 30 s by default) must notice.
    func testLinkDownMidSuiteIsDetectedAsDeadPeerAndRerun() throws {
        let h = try startHosts(2)
        let deadPeer = 6.0
        let env = ["FAKE_SWIFT_DELAY": "0.25"]
        // Silence (30 s) is well above the dead-peer limit, so it is the dead peer that fires.
        // Connect deadline 10 s: a cleanup waiting for a reconnect would show.
        let run = try launch(plan: FleetJSON.plan(suites: ["gate"], silence: 30, connect: 10),
                             fleet: FleetJSON.fleet([1, 2].map { h.hostJSON($0, swiftPath: swiftPath, environment: env, deadPeerSeconds: deadPeer) }))
        let (ref, victim) = try midSuite(run, jobID: "gate")
        try h.linkDown(index(of: victim))
        let downAt = try XCTUnwrap(runClock(run.events()))
        let status = run.waitForExit(timeout: 60)
        XCTAssertEqual(status, 0, run.output)
        let events = run.events()
        let ended = try XCTUnwrap(events.attemptEnded(ref))
        let testEnd = try XCTUnwrap(events.last { e in
            if case let .phaseFinished(r, phase) = e.body { return r == ref && phase == .test }
            return false
        }?.t)
        let detection = testEnd - downAt
        let rerun = try XCTUnwrap(events.attemptsStarted().first { $0.ref.attempt == 2 })
        print("FaultInjectionTests: link down → dead peer after \(String(format: "%.1f", detection)) s (deadPeerSeconds \(Int(deadPeer))), "
              + "attempt ended after \(String(format: "%.1f", ended.t - downAt)) s, rerun on \(rerun.host) after \(String(format: "%.1f", rerun.t - downAt)) s")
        XCTAssertGreaterThan(detection, deadPeer - 1.5, "ended before the dead-peer limit could have fired")
        // The last byte arrived up to one test delay before the link went down; 1.5 s is slack
        // for a loaded machine (freeing the dead channel used to add a fixed 2 s here).
        XCTAssertLessThan(detection, deadPeer + 1.5, "dead peer noticed too late")
        // The unreachable host's cleanup gets 3 s, not the connect deadline, before the rerun.
        XCTAssertLessThan(ended.t - testEnd, 4.5, "cleanup on the dead host held the rerun back")
        XCTAssertLessThan(rerun.t - ended.t, 1)
        XCTAssertTrue(ended.ended.infraError?.contains("dead peer") ?? false, "\(String(describing: ended.ended.infraError))")
        let report = try run.report()
        let job = try job(report, "gate")
        XCTAssertEqual(job.finalState, .passed)
        XCTAssertEqual(job.attempts.map(\.host).first, victim)
        XCTAssertEqual(job.attempts.count, 2)
        XCTAssertTrue(job.attempts[0].lost)
        XCTAssertNotEqual(job.attempts[1].host, victim)
        XCTAssertEqual(report.exitCode, 0)
    }

    /// The remote test process is SIGSTOPped: no output, the silence deadline (3 s) fires, the
    /// whole process group is killed on the host, and the job is timed out in phase test.
    func testStoppedTestProcessHitsSilenceDeadlineAndItsGroupIsKilled() throws {
        let h = try startHosts(1)
        let env = ["FAKE_SWIFT_DELAY": "0.2"]
        let run = try launch(plan: FleetJSON.plan(suites: ["gate"], silence: 3),
                             fleet: FleetJSON.fleet([h.hostJSON(1, swiftPath: swiftPath, environment: env)]))
        let (ref, _) = try midSuite(run, jobID: "gate")
        // The fake test process inside the host's namespace (the cached test bundle, see docs/builds.md).
        let target = h.testProcess(1)
        let pid = try XCTUnwrap(target, "no `swift test` process in the host's namespace")
        let pgid = getpgid(pid)
        XCTAssertGreaterThan(pgid, 1)
        XCTAssertEqual(kill(pid, SIGSTOP), 0)
        let stoppedAt = try XCTUnwrap(runClock(run.events()))
        let status = run.waitForExit(timeout: 60)
        XCTAssertEqual(status, 1, "a timed-out gate is red\n\(run.output)")
        let events = run.events()
        let ended = try XCTUnwrap(events.attemptEnded(ref))
        XCTAssertEqual(ended.ended.termination, .timedOut("silence"))
        XCTAssertEqual(ended.ended.timedOutPhase, .test)
        let took = ended.t - stoppedAt
        print("FaultInjectionTests: SIGSTOP → silence deadline (3 s) → group killed, attempt ended after \(String(format: "%.1f", took)) s")
        XCTAssertGreaterThan(took, 2.5)
        XCTAssertLessThan(took, 12)
        // On the host: no live member of the process group is left (zombies waiting for a reaper are dead).
        let ps = try TestHosts.shell(["ps", "-A", "-o", "pgid=", "-o", "stat="])
        let live = ps.split(separator: "\n").filter { line in
            let f = line.split(separator: " ")
            return f.count >= 2 && Int32(f[0]) == pgid && !f[1].hasPrefix("Z")
        }
        XCTAssertEqual(live, [], "process group \(pgid) still has live members")
        let report = try run.report()
        let job = try job(report, "gate")
        XCTAssertEqual(job.finalState, .timedOut)
        XCTAssertEqual(job.attempts.count, 1, "a timeout is not an infrastructure failure: no rerun")
        XCTAssertEqual(job.attempts.first?.timedOutPhase, .test)
        XCTAssertEqual(report.exitCode, 1)
    }

    /// One host refuses connections from the start (its sshd is gone): it is set aside with the
    /// reason and the run completes on the other.
    func testHostRefusingConnectionsIsSetAsideAndTheRunCompletes() throws {
        let h = try startHosts(2)
        try h.killHost(2)
        let run = try launch(plan: FleetJSON.plan(suites: ["a", "b"]),
                             fleet: FleetJSON.fleet([1, 2].map { h.hostJSON($0, swiftPath: swiftPath) }))
        let status = run.waitForExit(timeout: 60)
        XCTAssertEqual(status, 0, run.output)
        let report = try run.report()
        let reason = try XCTUnwrap(report.hostsSetAside["h2"], "h2 is not listed as set aside: \(report.hostsSetAside)")
        XCTAssertTrue(reason.contains("refused") || reason.contains("connect"), reason)
        XCTAssertNil(report.hostsSetAside["h1"])
        let jobs = report.suites.flatMap(\.jobs)
        XCTAssertEqual(jobs.count, 2)
        XCTAssertEqual(Set(jobs.map(\.finalState)), [.passed])
        XCTAssertEqual(Set(jobs.compactMap { $0.decisive?.host }), ["h1"])
        XCTAssertEqual(run.events().setAside().keys.sorted(), ["h2"])
    }

    /// Both hosts die mid-suite: nothing can run the jobs any more. Exit 3, a clear message, and
    /// a report (with the lost attempts) written all the same.
    func testEveryHostDeadExitsThreeWithAPartialReport() throws {
        let h = try startHosts(2)
        let env = ["FAKE_SWIFT_DELAY": "0.2"]
        let run = try launch(plan: FleetJSON.plan(suites: ["a", "b"]),
                             fleet: FleetJSON.fleet([1, 2].map { h.hostJSON($0, swiftPath: swiftPath, environment: env) }))
        _ = try midSuite(run, jobID: "a")
        _ = try midSuite(run, jobID: "b")
        try h.killHost(1)
        try h.killHost(2)
        let status = run.waitForExit(timeout: 60)
        XCTAssertEqual(status, 3, run.output)
        let report = try run.report()
        XCTAssertEqual(report.exitCode, 3)
        // Both hosts ran jobs before they died: the line names the infra-failed suites and the lost
        // hosts, never "no host could be used".
        XCTAssertTrue(report.verdictLine.hasPrefix("infrastructure: a (a@h"), report.verdictLine)
        XCTAssertFalse(report.verdictLine.contains("no host could be used"), report.verdictLine)
        XCTAssertTrue(report.verdictLine.hasSuffix("hosts lost during the run: h1, h2"), "names every host lost: \(report.verdictLine)")
        print("FaultInjectionTests: every host dead → exit 3; verdict: \(report.verdictLine)")
        XCTAssertTrue(run.output.contains("infrastructure"), run.output)
        let jobs = report.suites.flatMap(\.jobs)
        XCTAssertEqual(jobs.count, 2)
        for job in jobs {
            XCTAssertEqual(job.finalState, .infraFailed, "\(job.planned.jobID): \(job.reasons)")
            XCTAssertTrue(job.attempts.first?.lost ?? false)
            XCTAssertGreaterThan(job.attempts.first?.tests.count ?? 0, 0, "the lost attempt's events are kept")
        }
        XCTAssertEqual(report.totals.jobs, 2)
        XCTAssertEqual(report.totals.jobsByState, ["infra-failed": 2])
        XCTAssertEqual(report.hostsSetAside.keys.sorted(), ["h1", "h2"], "\(report.hostsSetAside)")
    }
}
