import XCTest
@testable import XCFleetBasics
@testable import XCFleetModel
@testable import XCFleetCore
import XCFleetTestSupport

/// Probation and build-aware placement in the pure scheduler.
final class SchedulerHealingTests: XCTestCase {
    typealias Action = Scheduler.Action

    // MARK: Probation

    /// Two jobs on a 2-slot host; the connection to it is lost. The runner puts it on probation
    /// before reporting the lost attempt: the rerun must not go back to it (nor the queued job).
    func testLostConnectionPutsHostOnProbationBeforeTheRetryIsPlaced() {
        let jobs = ["a", "b", "c"].map { SchedulerJob(id: $0, suite: $0, expectedSeconds: 10, infraRetries: 1) }
        var s = Scheduler(jobs: jobs, hosts: [SchedulerHost(name: "h1", slots: 2), SchedulerHost(name: "h2", slots: 1)])
        let first = starts(s.start())
        XCTAssertEqual(first.count, 3)
        let onH1 = first.filter { $0.host == "h1" }.map(\.job)
        XCTAssertEqual(onH1.count, 2)
        XCTAssertEqual(s.hostUnreachable("h1", reason: "dead peer"), [])
        XCTAssertEqual(s.hostsOnProbation, ["h1"])
        XCTAssertEqual(s.activeHosts, ["h2"])
        // The lost attempt's report: its rerun waits (h2 is busy) instead of going to h1.
        XCTAssertEqual(starts(s.attemptFinished(jobID: onH1[0], attempt: 1, outcome: .infraFailure(.hostLost("connection lost")))).count, 0)
        XCTAssertEqual(s.status(ofJob: onH1[0]), .queued)
        // The other h1 attempt still runs and may finish normally (probation does not kill it).
        XCTAssertEqual(starts(s.attemptFinished(jobID: onH1[1], attempt: 1, outcome: .passed)).count, 0, "a free slot on probation takes nothing")
        // h2 frees up: the rerun goes there.
        let onH2 = first.first { $0.host == "h2" }!.job
        let next = starts(s.attemptFinished(jobID: onH2, attempt: 1, outcome: .passed))
        XCTAssertEqual(next.map(\.host), ["h2"])
        XCTAssertEqual(next.map(\.job), [onH1[0]])
        // A fresh health check passes: h1 takes jobs again.
        XCTAssertEqual(s.hostRecovered("h1"), [])
        XCTAssertEqual(s.activeHosts, ["h1", "h2"])
        XCTAssertEqual(s.hostsOnProbation, [])
    }

    /// Without probation (the old behaviour) the rerun went straight back to the host just lost:
    /// this is the failure the probation prevents.
    func testWithoutProbationTheRetryWouldGoToTheLostHost() {
        let jobs = ["a", "b"].map { SchedulerJob(id: $0, suite: $0, expectedSeconds: 10, infraRetries: 2) }
        var s = Scheduler(jobs: jobs, hosts: [SchedulerHost(name: "h1", slots: 2)])
        _ = s.start()
        let again = starts(s.attemptFinished(jobID: "a", attempt: 1, outcome: .infraFailure(.hostLost("lost"))))
        XCTAssertEqual(again.map(\.host), ["h1"], "only host left: same-host retry")
        var p = Scheduler(jobs: jobs, hosts: [SchedulerHost(name: "h1", slots: 2)])
        _ = p.start()
        _ = p.hostUnreachable("h1", reason: "lost")
        XCTAssertTrue(starts(p.attemptFinished(jobID: "a", attempt: 1, outcome: .infraFailure(.hostLost("lost")))).isEmpty)
        XCTAssertEqual(p.status(ofJob: "a"), .queued, "waits for the host's health check, retry not spent")
        XCTAssertEqual(starts(p.hostRecovered("h1")).map(\.job), ["a"])
    }

    /// Jobs wait for a host on probation (it may come back) and end only when it is lost for good.
    func testJobsWaitForAProbationHostAndEndWhenItIsLost() {
        var s = Scheduler(jobs: [SchedulerJob(id: "a", suite: "a", infraRetries: 3)], hosts: [SchedulerHost(name: "h", slots: 1)])
        _ = s.start()
        _ = s.hostUnreachable("h", reason: "lost")
        XCTAssertEqual(s.attemptFinished(jobID: "a", attempt: 1, outcome: .infraFailure(.hostLost("lost"))), [])
        XCTAssertFalse(s.isFinished)
        let end = s.hostLost("h", reason: "unreachable for 20 s")
        XCTAssertEqual(end.count, 2, "\(end)")
        if case let .jobFinished(_, state, attempts, _) = end.first {
            XCTAssertEqual(state, .infraFailed)
            XCTAssertEqual(attempts, 1, "only one retry-worthy attempt was spent")
        } else { XCTFail("\(end)") }
        XCTAssertEqual(end.last, .runFinished)
    }

    /// A host set aside comes back: queued jobs go there, except a job that infra-failed on it
    /// while another capable host is live (it keeps avoiding the host, as before).
    func testSetAsideHostRejoinsAndTakesQueuedJobs() {
        var s = Scheduler(jobs: ["a", "b", "c"].map { SchedulerJob(id: $0, suite: $0) },
                          hosts: [SchedulerHost(name: "h1"), SchedulerHost(name: "h2")])
        _ = s.start()
        _ = s.hostLost("h2", reason: "unreachable")
        XCTAssertEqual(s.queuedJobIDs, ["b", "c"], "b's rerun waits: h1 is busy")
        let back = starts(s.hostJoined(SchedulerHost(name: "h2")))
        XCTAssertEqual(s.activeHosts.sorted(), ["h1", "h2"])
        XCTAssertEqual(back.map(\.job), ["c"])
        XCTAssertEqual(back.map(\.host), ["h2"])
    }

    // MARK: Builds

    func build(_ key: String, bases: [String] = []) -> SchedulerJob.Build {
        SchedulerJob.Build(key: key, bases: bases, coldSeconds: 100, incrementalSeconds: 20, cachedSeconds: 1)
    }

    /// Never two cold builds of one key on one host: the second job of the key waits (or goes elsewhere).
    func testAtMostOneBuildOfAKeyPerHostInFlight() {
        let jobs = (0..<4).map { SchedulerJob(id: "k\($0)", suite: "s", expectedSeconds: 10, build: build("K")) }
        var s = Scheduler(jobs: jobs, hosts: [SchedulerHost(name: "h1", slots: 3), SchedulerHost(name: "h2", slots: 3)])
        let first = starts(s.start())
        XCTAssertEqual(first.count, 2, "one build of K per host: \(first)")
        XCTAssertEqual(Set(first.map(\.host)), ["h1", "h2"])
        XCTAssertEqual(s.buildsInFlight(onHost: "h1"), ["K"])
        // The build on h1 finishes (the runner saw the build phase end): the waiting jobs go there, cached.
        let next = starts(s.buildFinished(host: "h1", key: "K", succeeded: true))
        XCTAssertEqual(next.map(\.host), ["h1", "h1"])
        XCTAssertEqual(s.buildSource(ofJob: "k3", onHost: "h1"), .cached)
        XCTAssertEqual(s.buildSource(ofJob: "k3", onHost: "h2"), .cold)
    }

    /// Jobs of other keys use the slots meanwhile: waiting for a build never idles the host.
    func testOtherKeysUseTheSlotsWhileAKeyIsBuilding() {
        let jobs = [SchedulerJob(id: "k1", suite: "s", expectedSeconds: 50, build: build("K")),
                    SchedulerJob(id: "k2", suite: "s", expectedSeconds: 40, build: build("K")),
                    SchedulerJob(id: "m1", suite: "t", expectedSeconds: 5, build: build("M"))]
        var s = Scheduler(jobs: jobs, hosts: [SchedulerHost(name: "h", slots: 2)])
        XCTAssertEqual(starts(s.start()).map(\.job), ["k1", "m1"])
        XCTAssertTrue(starts(s.attemptFinished(jobID: "m1", attempt: 1, outcome: .passed)).isEmpty, "k2 waits for K build")
        XCTAssertEqual(starts(s.attemptFinished(jobID: "k1", attempt: 1, outcome: .passed)).map(\.job), ["k2"])
        XCTAssertEqual(s.cachedBuilds(onHost: "h"), ["K", "M"])
    }

    /// Among jobs of equal expected length, the first job of a key that others share goes first (its
    /// build lets them all start); the jobs behind it keep their places and go cached after it.
    func testTheBuildOthersWaitForGoesFirstAndItsSiblingsKeepTheirPlaces() {
        let jobs = [SchedulerJob(id: "gate", suite: "g", build: build("G")),
                    SchedulerJob(id: "m1", suite: "g", build: build("M1", bases: ["G"])),
                    SchedulerJob(id: "m2", suite: "g", build: build("M2", bases: ["G"])),
                    SchedulerJob(id: "r1", suite: "p", build: build("P")),
                    SchedulerJob(id: "r2", suite: "p", build: build("P"))]
        var s = Scheduler(jobs: jobs, hosts: [SchedulerHost(name: "h", slots: 2)])
        XCTAssertEqual(s.queuedJobIDs, ["r1", "gate", "m1", "m2", "r2"])
        XCTAssertEqual(starts(s.start()).map(\.job), ["r1", "gate"])
        XCTAssertEqual(starts(s.attemptFinished(jobID: "gate", attempt: 1, outcome: .passed)).map(\.job), ["m1"], "r2 waits for P's build")
        XCTAssertTrue(starts(s.buildFinished(host: "h", key: "P", succeeded: true)).isEmpty, "no free slot")
        XCTAssertEqual(starts(s.attemptFinished(jobID: "m1", attempt: 1, outcome: .passed)).map(\.job), ["m2"])
        XCTAssertEqual(starts(s.attemptFinished(jobID: "r1", attempt: 1, outcome: .passed)).map(\.job), ["r2"])
        XCTAssertEqual(s.buildSource(ofJob: "r2", onHost: "h"), .cached)
        // Longer expected work still goes first: the rank only breaks ties.
        let long = [SchedulerJob(id: "a", suite: "a", expectedSeconds: 60), SchedulerJob(id: "b1", suite: "b", expectedSeconds: 10, build: build("B")),
                    SchedulerJob(id: "b2", suite: "b", expectedSeconds: 10, build: build("B"))]
        XCTAssertEqual(Scheduler(jobs: long, hosts: [SchedulerHost(name: "h")]).queuedJobIDs, ["a", "b1", "b2"])
    }

    /// A host that holds the job's build wins over an emptier one; an incremental base beats cold.
    func testPrefersTheHostHoldingTheBuildThenAnIncrementalBase() {
        let jobs = [SchedulerJob(id: "gate", suite: "g", expectedSeconds: 10, build: build("G")),
                    SchedulerJob(id: "mutant", suite: "m", expectedSeconds: 10, build: build("M", bases: ["G"]))]
        var s = Scheduler(jobs: jobs, hosts: [SchedulerHost(name: "big", slots: 4), SchedulerHost(name: "small", slots: 1),
                                              SchedulerHost(name: "mid", slots: 2)])
        _ = s.buildCached(host: "small", key: "G")
        _ = s.buildCached(host: "mid", key: "X")
        let placed = starts(s.start())
        XCTAssertEqual(placed.first { $0.job == "gate" }?.host, "small", "cached beats more free slots")
        XCTAssertEqual(s.expectedSeconds(ofJob: "gate", onHost: "small"), 11)
        XCTAssertEqual(s.expectedSeconds(ofJob: "gate", onHost: "big"), 110)
        XCTAssertEqual(s.buildSource(ofJob: "mutant", onHost: "small"), .incremental(from: "G"))
        XCTAssertEqual(s.expectedSeconds(ofJob: "mutant", onHost: "small"), 30)
        // Without build keys nothing changes: the host with the most free slots.
        var plain = Scheduler(jobs: [SchedulerJob(id: "gate", suite: "g")], hosts: [SchedulerHost(name: "big", slots: 4), SchedulerHost(name: "small", slots: 1)])
        _ = plain.buildCached(host: "small", key: "G")
        XCTAssertEqual(starts(plain.start()).map(\.host), ["big"])
    }

    /// A free slot goes first to a job whose build the host holds, even before a longer job that
    /// would need a cold build there; the slot is used either way, and the longer job follows.
    func testAFreeSlotGoesFirstToAJobWhoseBuildTheHostHolds() {
        let jobs = [SchedulerJob(id: "long-cold", suite: "m", expectedSeconds: 100, build: build("M")),
                    SchedulerJob(id: "short-cached", suite: "k", expectedSeconds: 10, build: build("K"))]
        var s = Scheduler(jobs: jobs, hosts: [SchedulerHost(name: "h", slots: 1)])
        _ = s.buildCached(host: "h", key: "K")
        XCTAssertEqual(starts(s.start()).map(\.job), ["short-cached"])
        XCTAssertEqual(starts(s.attemptFinished(jobID: "short-cached", attempt: 1, outcome: .passed)).map(\.job), ["long-cold"])
        // Without keys: longest first, as always.
        var plain = Scheduler(jobs: jobs.map { var j = $0; j.build = nil; return j }, hosts: [SchedulerHost(name: "h", slots: 1)])
        XCTAssertEqual(starts(plain.start()).map(\.job), ["long-cold"])
    }

    /// A host compiles one build at a time: while one of its jobs compiles and another waits at its
    /// build lock, a free slot goes to a job whose build the host holds (a probe's repetition), even
    /// before a longer job that would only wait at the lock too. With fewer in their builds, the
    /// longer job that must build goes first, so the lock never idles.
    func testWhileOneJobCompilesAndOneWaitsAFreeSlotGoesToAJobThatCanTestAtOnce() {
        let jobs = [SchedulerJob(id: "m1", suite: "g", expectedSeconds: 30, build: build("M1", bases: ["G"])),
                    SchedulerJob(id: "m2", suite: "g", expectedSeconds: 30, build: build("M2", bases: ["G"])),
                    SchedulerJob(id: "m3", suite: "g", expectedSeconds: 30, build: build("M3", bases: ["G"])),
                    SchedulerJob(id: "p2", suite: "p", expectedSeconds: 10, build: build("P")),
                    SchedulerJob(id: "p3", suite: "p", expectedSeconds: 10, build: build("P"))]
        var s = Scheduler(jobs: jobs, hosts: [SchedulerHost(name: "h", slots: 3)])
        _ = s.buildCached(host: "h", key: "G")
        _ = s.buildCached(host: "h", key: "P")
        // Three free slots: the first two mutants keep the lock busy (one compiles, one waits); the
        // third slot runs a cached repetition instead of a third mutant that would wait as well.
        XCTAssertEqual(starts(s.start()).map(\.job), ["m1", "m2", "p2"])
        XCTAssertEqual(s.buildsInFlight(onHost: "h"), ["M1", "M2"])
        // m1's build is there: one job in its build, so the next mutant goes to the lock.
        _ = s.buildFinished(host: "h", key: "M1", succeeded: true)
        XCTAssertEqual(starts(s.attemptFinished(jobID: "m1", attempt: 1, outcome: .passed)).map(\.job), ["m3"])
        // Two in their builds again: p2's slot goes to p3, not to a waiter.
        XCTAssertEqual(starts(s.attemptFinished(jobID: "p2", attempt: 1, outcome: .passed)).map(\.job), ["p3"])
        // Nothing else to run: the slot is never kept free for that rule.
        var only = Scheduler(jobs: Array(jobs.prefix(3)), hosts: [SchedulerHost(name: "h", slots: 3)])
        _ = only.buildCached(host: "h", key: "G")
        XCTAssertEqual(starts(only.start()).map(\.job), ["m1", "m2", "m3"])
    }

    /// A failed build (or lost attempt) frees the key for the next job; a finished failed build is not cached.
    func testAFailedBuildIsNotCachedAndReleasesTheKey() {
        let jobs = (0..<2).map { SchedulerJob(id: "k\($0)", suite: "s", expectedSeconds: 10, infraRetries: 0, build: build("K")) }
        var s = Scheduler(jobs: jobs, hosts: [SchedulerHost(name: "h", slots: 2)])
        XCTAssertEqual(starts(s.start()).count, 1)
        XCTAssertEqual(starts(s.buildFinished(host: "h", key: "K", succeeded: false)).count, 1, "the next job may try the build")
        XCTAssertEqual(s.cachedBuilds(onHost: "h"), [])
        _ = s.attemptFinished(jobID: "k0", attempt: 1, outcome: .testsFailed)
        XCTAssertEqual(s.buildsInFlight(onHost: "h"), ["K"], "k1 builds K now")
        _ = s.attemptFinished(jobID: "k1", attempt: 1, outcome: .infraFailure(.hostLost("lost")))
        XCTAssertEqual(s.buildsInFlight(onHost: "h"), [], "the attempt's end ends its build")
        XCTAssertEqual(s.cachedBuilds(onHost: "h"), [])
    }

    // MARK: Property test

    /// Random runs with probation, recovery, build events and host losses: every job ends exactly
    /// once, nothing starts on a host on probation, never two builds of a key per host in flight.
    func testRandomRunsWithProbationAndBuildsKeepEveryInvariant() {
        var rng = SeededGenerator(seed: 0x4EA1_B01D)
        var probations = 0, recoveries = 0, cachedStarts = 0
        for round in 0..<400 {
            let hosts = (0..<Int.random(in: 1...4, using: &rng)).map { SchedulerHost(name: "h\($0)", slots: Int.random(in: 1...3, using: &rng)) }
            let keys = ["A", "B", "C"]
            let jobs = (0..<Int.random(in: 1...20, using: &rng)).map { n -> SchedulerJob in
                let key = Bool.random(using: &rng) ? keys.randomElement(using: &rng) : nil
                return SchedulerJob(id: "j\(n)", suite: "s\(n % 3)", expectedSeconds: Double.random(in: 1...50, using: &rng),
                                    infraRetries: Int.random(in: 0...2, using: &rng), testRetries: Int.random(in: 0...1, using: &rng),
                                    build: key.map { SchedulerJob.Build(key: $0, bases: ["A"], coldSeconds: 30, incrementalSeconds: 5, cachedSeconds: 1) })
            }
            var s = Scheduler(jobs: jobs, hosts: hosts)
            var ledger = SchedulerLedger(hosts: hosts, jobs: jobs)
            var probation: Set<String> = []
            var building: [String: String] = [:]   // host#key → job
            func apply(_ actions: [Action]) {
                for case let .start(id, _, host, _) in actions {
                    if probation.contains(host) { ledger.violations.append("\(id) started on \(host) on probation") }
                    if let key = jobs.first(where: { $0.id == id })?.build?.key {
                        if s.buildSource(ofJob: id, onHost: host) == .cached { cachedStarts += 1 }
                        else if let other = building["\(host)#\(key)"], other != id { ledger.violations.append("two builds of \(key) on \(host): \(other), \(id)") }
                        else { building["\(host)#\(key)"] = id }
                    }
                }
                ledger.apply(actions)
            }
            func endBuild(_ id: String) { for (k, v) in building where v == id { building[k] = nil } }
            apply(s.start())
            var steps = 0
            while !s.isFinished, steps < 3_000, ledger.violations.isEmpty {
                steps += 1
                let roll = Int.random(in: 0..<100, using: &rng)
                let live = ledger.liveHosts.sorted()
                if roll < 8, let h = live.filter({ !probation.contains($0) }).randomElement(using: &rng) {
                    probations += 1
                    probation.insert(h)
                    apply(s.hostUnreachable(h, reason: "lost"))
                } else if roll < 16, let h = probation.sorted().randomElement(using: &rng) {
                    probation.remove(h)
                    if Bool.random(using: &rng) {
                        recoveries += 1
                        apply(s.hostRecovered(h))
                    } else {
                        for (id, r) in ledger.running where r.host == h { endBuild(id) }
                        ledger.lost(h)
                        apply(s.hostLost(h, reason: "gone"))
                    }
                } else if roll < 22, let h = live.randomElement(using: &rng) {
                    let key = keys.randomElement(using: &rng)!
                    if let id = building["\(h)#\(key)"] {
                        building["\(h)#\(key)"] = nil
                        _ = id
                        apply(s.buildFinished(host: h, key: key, succeeded: Bool.random(using: &rng)))
                    } else if Bool.random(using: &rng) {
                        apply(s.buildCached(host: h, key: key))
                    }
                } else if let id = ledger.running.keys.sorted().randomElement(using: &rng), let attempt = ledger.running[id]?.attempt {
                    let outcome = [Scheduler.AttemptOutcome.passed, .testsFailed, .infraFailure(.hostLost("lost"))].randomElement(using: &rng)!
                    endBuild(id)
                    ledger.ended(id, outcome: outcome)
                    apply(s.attemptFinished(jobID: id, attempt: attempt, outcome: outcome))
                } else if let h = probation.sorted().first {
                    probation.remove(h)
                    apply(s.hostRecovered(h))
                } else if !ledger.liveHosts.isEmpty {
                    ledger.violations.append("stuck: queued \(s.queuedJobIDs), in flight \(live.map { s.buildsInFlight(onHost: $0) })")
                } else {
                    ledger.violations.append("stuck with no live host")
                }
            }
            if !s.isFinished, ledger.violations.isEmpty { ledger.violations.append("did not finish") }
            for job in jobs where ledger.finals[job.id]?.count != 1 { ledger.violations.append("\(job.id) finals \(ledger.finals[job.id] ?? [])") }
            if !ledger.violations.isEmpty {
                XCTFail("round \(round): \(ledger.violations.prefix(5).joined(separator: "\n"))")
                return
            }
        }
        XCTAssertGreaterThan(probations, 100)
        XCTAssertGreaterThan(recoveries, 30)
        XCTAssertGreaterThan(cachedStarts, 100)
    }

    private func starts(_ actions: [Action]) -> [(job: String, host: String)] {
        actions.compactMap { if case let .start(id, _, host, _) = $0 { return (id, host) } else { return nil } }
    }
}
