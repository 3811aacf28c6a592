import Foundation
import XCTest
import XCFleetKit
import XCFleetTestSupport

/// A seeded, bounded chaos test on network-namespace hosts with the real
/// `xcfleet` binary and the fake toolchain (see FaultInjectionTests). Each run gets a handful of
/// random faults — hosts killed (and revived), cables pulled (plugged back, or not until the run
/// ends), test processes frozen with SIGSTOP (resumed, or not), SIGTERM to xcfleet — and then
/// every invariant is checked:
/// - no hang, and a documented exit code that matches report.json;
/// - every planned job has exactly one final state;
/// - every test of a passed job is in junit.xml exactly once;
/// - `xcfleet report RUN_DIR` rebuilds report.json and junit.xml byte for byte;
/// - the next run (all hosts restored) is admitted on every host at once — no lease blocks it —
///   and passes; after it, no process but sshd is left on any host (orphans of the chaos run are
///   killed at the latest by that admission).
///
/// CI runs 3 seeded runs (about a minute). A soak: `XCFLEET_CHAOS_RUNS=20` (and
/// `XCFLEET_CHAOS_SEED=N` to start elsewhere). On failure the seed and the fault schedule are
/// printed; `XCFLEET_CHAOS_SEED=<seed> XCFLEET_CHAOS_RUNS=1` replays that run's schedule.
final class ChaosTests: XCTestCase {
    private var work: URL!
    private var swiftPath = ""
    private var hosts: NamespaceHosts?

    override func setUpWithError() throws {
        try NamespaceHosts.require()
        (work, swiftPath) = try NamespaceHosts.fakeToolchainWork("xcf-chaos")
    }

    override func tearDown() {
        hosts?.stop()
        hosts = nil
        if let work { try? FileManager.default.removeItem(at: work) }
    }

    struct Fault: CustomStringConvertible {
        enum Kind {
            case kill(host: Int)
            case linkDown(host: Int, upAfter: Double?)
            case freeze(host: Int, resumeAfter: Double?)
            case sigterm
        }
        var at: Double
        var kind: Kind

        var description: String {
            let t = String(format: "%.2f s", at)
            switch kind {
            case let .kill(h): return "\(t): kill-host h\(h)"
            case let .linkDown(h, up): return "\(t): link-down h\(h)" + (up.map { String(format: ", up after %.2f s", $0) } ?? ", up after the run")
            case let .freeze(h, resume): return "\(t): SIGSTOP a test process on h\(h)" + (resume.map { String(format: ", SIGCONT after %.2f s", $0) } ?? ", never resumed")
            case .sigterm: return "\(t): SIGTERM to xcfleet"
            }
        }
    }

    static let hostCount = 4
    static let suites = (1...12).map { "s\($0)" }

    /// The fault schedule of one seed (pure: the replay gets the same schedule).
    static func schedule(seed: UInt64) -> [Fault] {
        var rng = SeededGenerator(seed: seed)
        var faults: [Fault] = []
        var terminated = false
        for _ in 0..<Int.random(in: 2...5, using: &rng) {
            let at = Double.random(in: 0.3...7, using: &rng)
            let host = Int.random(in: 1...hostCount, using: &rng)
            let roll = Int.random(in: 0..<100, using: &rng)
            let later = Bool.random(using: &rng) ? Double.random(in: 1...10, using: &rng) : nil
            let kind: Fault.Kind
            if roll < 25 { kind = .kill(host: host) }
            else if roll < 60 { kind = .linkDown(host: host, upAfter: later) }
            else if roll < 94 || terminated { kind = .freeze(host: host, resumeAfter: later) }
            else { kind = .sigterm; terminated = true }
            faults.append(Fault(at: at, kind: kind))
        }
        return faults.sorted { $0.at < $1.at }
    }

    func testSeededChaosKeepsEveryInvariant() throws {
        let env = ProcessInfo.processInfo.environment
        let runs = max(1, Int(env["XCFLEET_CHAOS_RUNS"] ?? "") ?? 3)
        let firstSeed = UInt64(env["XCFLEET_CHAOS_SEED"] ?? "") ?? 1
        let h = try NamespaceHosts(count: Self.hostCount, swiftPath: swiftPath)
        hosts = h
        let hostEnv = ["FAKE_SWIFT_DELAY": "0.1"]
        let fleet = FleetJSON.fleet((1...Self.hostCount).map { h.hostJSON($0, slots: 2, swiftPath: swiftPath, environment: hostEnv, deadPeerSeconds: 3) })
        let fleetPath = work.appendingPathComponent("fleet.json")
        try Data(fleet.utf8).write(to: fleetPath)
        var totalFaults = 0, violationsTotal = 0, exitCodes: [Int32: Int] = [:]
        let began = Date()
        for r in 0..<runs {
            let seed = firstSeed &+ UInt64(r)
            let faults = Self.schedule(seed: seed)
            totalFaults += faults.count
            var violations: [String] = []
            let status = try chaosRun(h, seed: seed, faults: faults, fleetPath: fleetPath, violations: &violations)
            if let status { exitCodes[status, default: 0] += 1 }
            if !violations.isEmpty {
                violationsTotal += violations.count
                XCTFail("chaos seed \(seed) (replay: XCFLEET_CHAOS_SEED=\(seed) XCFLEET_CHAOS_RUNS=1 swift test --filter ChaosTests)\n"
                        + "faults:\n  " + faults.map(\.description).joined(separator: "\n  ") + "\nviolations:\n  " + violations.joined(separator: "\n  "))
            }
        }
        print("ChaosTests: \(runs) run(s) from seed \(firstSeed), \(totalFaults) faults, \(violationsTotal) violation(s), exit codes "
              + exitCodes.sorted { $0.key < $1.key }.map { "\($0.key)×\($0.value)" }.joined(separator: " ")
              + String(format: ", %.0f s", Date().timeIntervalSince(began)))
    }

    /// One chaos run and its follow-up run; appends what broke to `violations`. Returns xcfleet's exit status.
    private func chaosRun(_ h: NamespaceHosts, seed: UInt64, faults: [Fault], fleetPath: URL, violations: inout [String]) throws -> Int32? {
        let planPath = work.appendingPathComponent("plan.json")
        try Data(FleetJSON.plan(suites: Self.suites, silence: 4, test: 60, connect: 3).utf8).write(to: planPath)
        let run = try XCFleetProcess(plan: planPath.path, fleet: fleetPath.path, workDir: work, runID: "chaos-\(seed)")
        guard run.waitForEvents(timeout: 30, { !$0.attemptsStarted().isEmpty }) != nil else {
            violations.append("no attempt started: \(run.output)")
            return nil
        }
        // Faults in time order, from the first attempt on; the later halves (link up, SIGCONT) queued.
        let start = Date()
        var pending: [(at: Double, action: () -> Void)] = []
        var frozen: [Int32] = []
        for fault in faults {
            pending.append((fault.at, {
                switch fault.kind {
                case let .kill(host): try? h.killHost(host)
                case let .linkDown(host, up):
                    try? h.linkDown(host)
                    if let up { pending.append((fault.at + up, { try? h.linkUp(host) })) }
                case let .freeze(host, resume):
                    if let pid = h.testProcess(host), kill(pid, SIGSTOP) == 0 {
                        frozen.append(pid)
                        if let resume { pending.append((fault.at + resume, { _ = kill(pid, SIGCONT) })) }
                    }
                case .sigterm: _ = kill(run.pid, SIGTERM)
                }
            }))
        }
        var status: Int32?
        let deadline = Date().addingTimeInterval(120)
        while Date() < deadline {
            pending.sort { $0.at < $1.at }
            let now = Date().timeIntervalSince(start)
            if let next = pending.first, next.at <= now {
                pending.removeFirst()
                next.action()
                continue
            }
            if let s = run.exitStatusIfEnded { status = s; break }
            Thread.sleep(forTimeInterval: 0.05)
            if pending.isEmpty { status = run.waitForExit(timeout: max(1, deadline.timeIntervalSinceNow)); break }
        }
        if status == nil, Date() >= deadline { status = run.waitForExit(timeout: 1) }
        // Restore the fleet: every cable in, every frozen process resumed, every host back.
        for i in 1...Self.hostCount {
            try? h.linkUp(i)
            try? h.reviveHost(i)
        }
        for pid in frozen { _ = kill(pid, SIGCONT) }
        guard let status else {
            violations.append("xcfleet hung (killed after 120 s)")
            return nil
        }
        check(run, status: status, violations: &violations)
        // The next run: admitted on every host at once, passes, and leaves nothing behind.
        let followPlan = work.appendingPathComponent("plan-follow.json")
        try Data(FleetJSON.plan(suites: ["after"], connect: 5).utf8).write(to: followPlan)
        let follow = try XCFleetProcess(plan: followPlan.path, fleet: fleetPath.path, workDir: work, runID: "after-\(seed)")
        let followStatus = follow.waitForExit(timeout: 60)
        if followStatus != 0 { violations.append("the next run exited \(followStatus.map(String.init) ?? "hung"): \(follow.output)") }
        let setAside = follow.events().setAside()
        if !setAside.isEmpty { violations.append("the next run could not use every host: \(setAside)") }
        var left: [String] = []
        let settle = Date().addingTimeInterval(8)
        repeat {
            left = (1...Self.hostCount).flatMap { i in h.nonSSHDProcesses(i).map { "h\(i): \($0)" } }
            if left.isEmpty { break }
            Thread.sleep(forTimeInterval: 0.2)
        } while Date() < settle
        if !left.isEmpty { violations.append("orphaned processes after the next run's admission: \(left)") }
        return status
    }

    private func check(_ run: XCFleetProcess, status: Int32, violations: inout [String]) {
        if ![0, 1, 3, 130].contains(status) { violations.append("undocumented exit status \(status): \(run.output)") }
        guard let report = try? run.report() else {
            violations.append("no report.json: \(run.output)")
            return
        }
        if report.exitCode != status { violations.append("exit status \(status) but report.json says \(report.exitCode)") }
        let planned = run.events().compactMap { e -> JobPlanned? in if case let .jobPlanned(p) = e.body { return p } else { return nil } }
        let jobs = report.suites.flatMap(\.jobs)
        if jobs.count != planned.count || Set(jobs.map(\.planned.jobID)) != Set(planned.map(\.jobID)) {
            violations.append("\(planned.count) jobs planned, \(jobs.count) in the report")
        }
        if report.totals.jobsByState.values.reduce(0, +) != planned.count { violations.append("final states do not add up: \(report.totals.jobsByState)") }
        // junit.xml: every test of a passed job exactly once, in its suite@host block.
        let junitURL = run.runDirectory.appendingPathComponent("junit.xml")
        let junit = (try? String(contentsOf: junitURL, encoding: .utf8)) ?? ""
        let blocks = Self.junitCases(junit)
        for job in jobs where job.finalState == .passed {
            guard let host = job.decisive?.host else { continue }
            let cases = blocks["\(job.planned.suite)@\(host)"] ?? []
            let names = cases.filter { !$0.hasPrefix("xcfleet job") }
            // The tests its decisive attempt discovered and ran (no job plans a list before its build).
            let expected = job.decisive?.discovery?.selected.count ?? job.planned.expectedTests.count
            if names.count != expected || Set(names).count != names.count {
                violations.append("junit.xml: \(job.planned.jobID) passed with \(expected) tests, junit has \(names.count) (\(Set(names).count) distinct)")
            }
        }
        // Rebuild from events.jsonl alone: byte-identical.
        let files = ["report.json", "junit.xml"]
        let before = files.map { try? Data(contentsOf: run.runDirectory.appendingPathComponent($0)) }
        let p = Process()
        p.executableURL = XCFleetProcess.binary
        p.arguments = ["report", run.runDirectory.path]
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        do { try p.run(); p.waitUntilExit() } catch { violations.append("xcfleet report: \(error)") }
        for (i, name) in files.enumerated() where before[i] != (try? Data(contentsOf: run.runDirectory.appendingPathComponent(name))) {
            violations.append("\(name) is not rebuilt byte for byte")
        }
    }

    /// `testsuite name` → its `testcase` `classname/name`s.
    static func junitCases(_ xml: String) -> [String: [String]] {
        var out: [String: [String]] = [:]
        var current = ""
        for line in xml.split(separator: "\n") {
            let l = line.trimmingCharacters(in: .whitespaces)
            if l.hasPrefix("<testsuite ") { current = attribute("name", l) ?? "" }
            if l.hasPrefix("<testcase ") { out[current, default: []].append((attribute("classname", l) ?? "") + "/" + (attribute("name", l) ?? "")) }
        }
        return out
    }

    static func attribute(_ name: String, _ tag: String) -> String? {
        guard let r = tag.range(of: " \(name)=\"") else { return nil }
        let rest = tag[r.upperBound...]
        return rest.firstIndex(of: "\"").map { String(rest[..<$0]) }
    }

}

