import Foundation
import XCTest
import XCFleetKit
import XCFleetTestSupport

/// The fleet heals itself, on network-namespace hosts with the real `xcfleet` binary
/// and the fake toolchain (`scripts/fake-swift.sh`, see FaultInjectionTests): orphaned process
/// groups are killed when their host is reachable again (same run) or at the next run's
/// admission; a host whose connection was lost is on probation (no retry is spent on it) and
/// rejoins after a fresh health check; a host set aside as unreachable rejoins when it comes back.
final class HealingTests: XCTestCase {
    private var work: URL!
    private var swiftPath = ""
    private var hosts: NamespaceHosts?

    override func setUpWithError() throws {
        try NamespaceHosts.require()
        (work, swiftPath) = try NamespaceHosts.fakeToolchainWork("xcf-heal")
    }

    override func tearDown() {
        hosts?.stop()
        hosts = nil
        if let work { try? FileManager.default.removeItem(at: work) }
    }

    // MARK: - Helpers

    private func write(_ text: String, _ name: String) throws -> String {
        let url = work.appendingPathComponent(name)
        try Data(text.utf8).write(to: url)
        return url.path
    }

    private func launch(plan: String, fleet: String, runID: String = "run") throws -> XCFleetProcess {
        try XCFleetProcess(plan: try write(plan, "plan-\(runID).json"), fleet: try write(fleet, "fleet-\(runID).json"), workDir: work, runID: runID)
    }

    private func midSuite(_ run: XCFleetProcess, jobID: String, tests: Int = 3) throws -> (ref: AttemptRef, host: String) {
        var found: (AttemptRef, String)?
        let events = run.waitForEvents(timeout: 40) { events in
            guard let a = events.attemptsStarted().first(where: { $0.ref.jobID == jobID && $0.ref.attempt == 1 }) else { return false }
            found = (a.ref, a.host)
            return events.testsFinished(a.ref) >= tests
        }
        guard events != nil, let found else { throw NSError(domain: "HealingTests", code: 1, userInfo: [NSLocalizedDescriptionKey: "\(jobID) never got mid-suite:\n\(run.output)"]) }
        return found
    }

    /// The fake `swift test` process running in host `i`'s namespace.
    /// Alive and not a zombie.
    private func isLive(_ pid: Int32) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8) else { return false }
        return stat.split(separator: ")").last?.split(separator: " ").first != "Z"
    }

    private func index(_ host: String) -> Int { Int(host.dropFirst()) ?? 0 }

    // MARK: - Tests

    /// Item 1 (same run), 2 and 3: the test process on h? is frozen (SIGSTOP) and its cable pulled.
    /// The dead peer ends the attempt; the host goes on probation at once, so no retry is sent
    /// there; the cable comes back, a probe passes, the frozen group is killed, and the host
    /// rejoins and takes queued jobs.
    func testFrozenGroupOnAHostThatComesBackIsKilledAndTheHostRejoins() throws {
        let h = try NamespaceHosts(count: 2, swiftPath: swiftPath)
        hosts = h
        let env = ["FAKE_SWIFT_DELAY": "0.15"]
        let run = try launch(plan: FleetJSON.plan(suites: ["a", "b", "c", "d", "e", "f"], silence: 60, connect: 3),
                             fleet: FleetJSON.fleet([1, 2].map { h.hostJSON($0, swiftPath: swiftPath, environment: env, deadPeerSeconds: 4) }))
        let (ref, victim) = try midSuite(run, jobID: "a")
        let frozen = try XCTUnwrap(h.testProcess(index(victim)), "no swift test process on \(victim)")
        XCTAssertEqual(kill(frozen, SIGSTOP), 0)
        try h.linkDown(index(victim))
        let probation = run.waitForEvents(timeout: 30) { events in
            events.contains { if case .hostProbation(victim, _) = $0.body { return true } else { return false } }
        }
        XCTAssertNotNil(probation, "\(victim) never went on probation:\n\(run.output)")
        XCTAssertTrue(isLive(frozen), "the frozen process outlives its lost connection (the orphan this test is about)")
        // The cable stays out a little longer than the connect deadline: an attempt sent there now
        // (the old behaviour) would fail to connect and spend a retry.
        Thread.sleep(forTimeInterval: 4)
        try h.linkUp(index(victim))
        let status = run.waitForExit(timeout: 90)
        XCTAssertEqual(status, 0, run.output)
        let events = run.events()
        let probationAt = try XCTUnwrap(events.first { if case .hostProbation(victim, _) = $0.body { return true } else { return false } }?.t)
        let rejoinedAt = try XCTUnwrap(events.first { if case .hostRejoined(victim) = $0.body { return true } else { return false } }?.t,
                                       "\(victim) never rejoined")
        XCTAssertLessThan(probationAt, rejoinedAt)
        let started = events.attemptsStarted()
        let onVictimMeanwhile = started.filter { $0.host == victim && $0.t > probationAt && $0.t < rejoinedAt }
        XCTAssertEqual(onVictimMeanwhile.map(\.ref.jobID), [], "attempts sent to a host on probation")
        XCTAssertTrue(started.contains { $0.host == victim && $0.t > rejoinedAt }, "the rejoined host took no queued job")
        XCTAssertFalse(isLive(frozen), "the frozen process group was not killed when \(victim) came back")
        let notes = events.compactMap { if case let .note(text) = $0.body { return text } else { return nil } }
        XCTAssertTrue(notes.contains { $0.contains("\(victim): killed the orphaned process group") && $0.contains(ProcessRecordTokens.token(ref)) }, "\(notes)")
        let report = try run.report()
        let jobs = report.suites.flatMap(\.jobs)
        XCTAssertEqual(Set(jobs.map(\.finalState)), [.passed])
        XCTAssertEqual(jobs.flatMap(\.attempts).filter { $0.infraError != nil }.count, 1, "only the lost attempt failed: no retry spent on the dead host")
        XCTAssertEqual(report.hostChanges?.filter { $0.host == victim }.map(\.change), [.probation, .rejoined])
        XCTAssertEqual(report.hostsSetAside, [:])
        XCTAssertEqual(h.nonSSHDProcesses(index(victim)), [], "left on \(victim)")
        if testRun?.failureCount ?? 0 > 0 { print(run.output); print(events.map { "\($0.t) \($0.body)" }.filter { !$0.contains("test(") }.joined(separator: "\n")) }
        print("HealingTests: lost at \(String(format: "%.1f", probationAt)) s, rejoined at \(String(format: "%.1f", rejoinedAt)) s, frozen group killed")
    }

    /// Item 1 (next run): the host stays unreachable until the run ends, with a frozen test process.
    /// The next run's admission there reaps the dead run's process record and kills the group.
    func testOrphanOfADeadRunIsKilledAtTheNextRunsAdmission() throws {
        let h = try NamespaceHosts(count: 2, swiftPath: swiftPath)
        hosts = h
        let env = ["FAKE_SWIFT_DELAY": "0.1"]
        let fleet = [1, 2].map { h.hostJSON($0, swiftPath: swiftPath, environment: env, deadPeerSeconds: 3) }
        let run = try launch(plan: FleetJSON.plan(suites: ["a", "b"], silence: 60, connect: 2), fleet: FleetJSON.fleet(fleet))
        let (_, victim) = try midSuite(run, jobID: "a")
        let frozen = try XCTUnwrap(h.testProcess(index(victim)))
        XCTAssertEqual(kill(frozen, SIGSTOP), 0)
        try h.linkDown(index(victim))
        XCTAssertEqual(run.waitForExit(timeout: 90), 0, run.output)
        XCTAssertTrue(isLive(frozen), "the frozen group outlived the run (its host was unreachable to the end)")
        try h.linkUp(index(victim))
        let next = try launch(plan: FleetJSON.plan(suites: ["c"]), fleet: FleetJSON.fleet([fleet[index(victim) - 1]]), runID: "next")
        XCTAssertEqual(next.waitForExit(timeout: 60), 0, next.output)
        let notes = next.events().compactMap { if case let .note(text) = $0.body { return text } else { return nil } }
        XCTAssertTrue(notes.contains { $0.contains("\(victim): reaped the process record of a dead run") && $0.contains("killed") }, "\(notes)")
        XCTAssertFalse(isLive(frozen), "the next run's admission did not kill the dead run's frozen group")
        XCTAssertEqual(h.nonSSHDProcesses(index(victim)), [])
    }

    /// Item 3: a host refusing connections at admission is set aside, probed while work is queued,
    /// and rejoins when its sshd is back; the report shows when it left and rejoined.
    func testHostSetAsideAtAdmissionRejoinsWhenItComesBack() throws {
        let h = try NamespaceHosts(count: 2, swiftPath: swiftPath)
        hosts = h
        try h.killHost(2)
        let env = ["FAKE_SWIFT_DELAY": "0.1"]
        let run = try launch(plan: FleetJSON.plan(suites: ["a", "b", "c", "d", "e", "f"]),
                             fleet: FleetJSON.fleet([1, 2].map { h.hostJSON($0, swiftPath: swiftPath, environment: env) }))
        XCTAssertNotNil(run.waitForEvents(timeout: 30) { $0.setAside()["h2"] != nil }, run.output)
        try h.reviveHost(2)
        XCTAssertEqual(run.waitForExit(timeout: 90), 0, run.output)
        let events = run.events()
        let rejoinedAt = try XCTUnwrap(events.first { if case .hostRejoined("h2") = $0.body { return true } else { return false } }?.t, run.output)
        XCTAssertTrue(events.attemptsStarted().contains { $0.host == "h2" && $0.t > rejoinedAt }, "h2 took no job after rejoining")
        let report = try run.report()
        XCTAssertEqual(report.hostChanges?.map(\.host), ["h2", "h2"])
        XCTAssertEqual(report.hostChanges?.map(\.change), [.setAside, .rejoined])
        XCTAssertEqual(report.hostsSetAside, [:], "a host that rejoined is not listed as set aside")
        XCTAssertEqual(Set(report.suites.flatMap(\.jobs).map(\.finalState)), [.passed])
    }
}

/// The process-record token of an attempt, as the runner names it.
enum ProcessRecordTokens {
    static func token(_ ref: AttemptRef) -> String { "\(ref.jobID)-a\(ref.attempt)" }
}
