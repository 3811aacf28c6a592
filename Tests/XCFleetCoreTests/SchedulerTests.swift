import XCTest
@testable import XCFleetBasics
@testable import XCFleetModel
@testable import XCFleetCore
import XCFleetTestSupport

/// Drives `Scheduler` back to back in memory, without hosts: the test plays the runner.
final class SchedulerTests: XCTestCase {
    typealias Action = Scheduler.Action

    // MARK: Ordering

    func testQueueHandsOutLongestExpectedFirst() {
        let jobs = [
            SchedulerJob(id: "short", suite: "a", expectedSeconds: 10),
            SchedulerJob(id: "long", suite: "b", expectedSeconds: 50),
            SchedulerJob(id: "mid", suite: "c", expectedSeconds: 30),
            SchedulerJob(id: "tie-first", suite: "d", expectedSeconds: 20),
            SchedulerJob(id: "tie-second", suite: "e", expectedSeconds: 20),
        ]
        var scheduler = Scheduler(jobs: jobs, hosts: [SchedulerHost(name: "h", slots: 1)])
        var order: [String] = []
        var actions = scheduler.start()
        while let next = startedJobs(actions).first {
            order.append(next.0)
            actions = scheduler.attemptFinished(jobID: next.0, attempt: next.1, outcome: .passed)
        }
        XCTAssertEqual(order, ["long", "mid", "tie-first", "tie-second", "short"])
        XCTAssertEqual(actions.last, .runFinished)
        XCTAssertTrue(scheduler.isFinished)
    }

    func testUnknownDurationUsesSuiteMedianThenOverallMedianThenDefault() {
        let jobs = [
            SchedulerJob(id: "a1", suite: "a", expectedSeconds: 10),
            SchedulerJob(id: "a2", suite: "a", expectedSeconds: 30),
            SchedulerJob(id: "a3", suite: "a", expectedSeconds: nil),
            SchedulerJob(id: "b1", suite: "b", expectedSeconds: .nan),
            SchedulerJob(id: "c1", suite: "c", expectedSeconds: 100),
        ]
        let scheduler = Scheduler(jobs: jobs, hosts: [])
        XCTAssertEqual(scheduler.expectedSeconds(ofJob: "a3"), 20)
        XCTAssertEqual(scheduler.expectedSeconds(ofJob: "b1"), 30, "median of 10, 30, 100")
        XCTAssertEqual(scheduler.queuedJobIDs, ["c1", "a2", "b1", "a3", "a1"])

        let none = Scheduler(jobs: [SchedulerJob(id: "x", suite: "x")], hosts: [],
                             options: .init(defaultExpectedSeconds: 42))
        XCTAssertEqual(none.expectedSeconds(ofJob: "x"), 42)
        XCTAssertNil(none.expectedSeconds(ofJob: "nope"))
    }

    func testJobFromSuiteSpecCarriesRequirementsAndRetries() {
        let spec = SuiteSpec(name: "combine", template: "combine-lifetime", requires: ["combine"],
                             retries: RetryPolicy(infrastructure: 3, testFailures: 1), xcode: "16.4")
        let job = SchedulerJob(id: "combine#0", spec: spec, expectedSeconds: 12)
        XCTAssertEqual(job, SchedulerJob(id: "combine#0", suite: "combine", requires: ["combine", "xcode:16.4"],
                                         expectedSeconds: 12, infraRetries: 3, testRetries: 1))
        XCTAssertTrue(SchedulerHost(name: "m", labels: ["xcode:16.4", "combine", "x"]).satisfies(job.requires))
        XCTAssertFalse(SchedulerHost(name: "m", labels: ["xcode:16.3", "combine"]).satisfies(job.requires))
        XCTAssertEqual(SchedulerHost(HostSpec(name: "mac", labels: ["platform:macos"], slots: 2)),
                       SchedulerHost(name: "mac", labels: ["platform:macos"], slots: 2))
    }

    // MARK: Placement

    func testLabelsAndSlotsAreHonoured() {
        let mac = SchedulerHost(name: "mac", labels: ["platform:macos", "combine", "xcode:16.4"], slots: 2)
        let linux = SchedulerHost(name: "linux", labels: ["platform:linux"], slots: 1)
        let jobs = (0..<4).map { SchedulerJob(id: "combine\($0)", suite: "c", requires: ["combine", "platform:macos"], expectedSeconds: 10) }
            + [SchedulerJob(id: "any", suite: "any", expectedSeconds: 1)]
        var scheduler = Scheduler(jobs: jobs, hosts: [mac, linux])
        let actions = scheduler.start()
        let starts = actions.compactMap { action -> (String, String, Int)? in
            if case let .start(id, _, host, slot) = action { return (id, host, slot) }
            return nil
        }
        XCTAssertEqual(starts.count, 3, "two slots on mac, one on linux")
        XCTAssertEqual(starts.filter { $0.1 == "mac" }.map(\.2).sorted(), [0, 1])
        XCTAssertEqual(starts.filter { $0.1 == "linux" }.map(\.0), ["any"], "combine jobs never go to linux")
        XCTAssertEqual(scheduler.queuedJobIDs, ["combine2", "combine3"])

        // A free linux slot does not take a combine job.
        let afterLinux = scheduler.attemptFinished(jobID: "any", attempt: 1, outcome: .passed)
        XCTAssertEqual(afterLinux, [.jobFinished(jobID: "any", state: .passed, attempts: 1, reason: nil)])
        // A free mac slot does, in the slot that freed.
        let afterMac = scheduler.attemptFinished(jobID: "combine0", attempt: 1, outcome: .passed)
        XCTAssertEqual(afterMac, [
            .jobFinished(jobID: "combine0", state: .passed, attempts: 1, reason: nil),
            .start(jobID: "combine2", attempt: 1, host: "mac", slot: 0),
        ])
    }

    func testPrefersHostWithMoreFreeSlotsThenFewerLabels() {
        let special = SchedulerHost(name: "special", labels: ["combine", "platform:macos"], slots: 1)
        let plain = SchedulerHost(name: "plain", labels: ["platform:macos"], slots: 1)
        var scheduler = Scheduler(jobs: [SchedulerJob(id: "j", suite: "s", requires: ["platform:macos"])], hosts: [special, plain])
        XCTAssertEqual(scheduler.start().first, .start(jobID: "j", attempt: 1, host: "plain", slot: 0))
    }

    func testUnschedulableAtOnceWithWhatItNeeds() {
        let hosts = [SchedulerHost(name: "linux", labels: ["platform:linux", "combine"], slots: 1),
                     SchedulerHost(name: "mac", labels: ["platform:macos"], slots: 1)]
        let jobs = [SchedulerJob(id: "needy", suite: "combine", requires: ["platform:macos", "combine"]),
                    SchedulerJob(id: "fine", suite: "s", requires: ["platform:macos"])]
        var scheduler = Scheduler(jobs: jobs, hosts: hosts)
        let actions = scheduler.start()
        XCTAssertEqual(actions, [
            .jobFinished(jobID: "needy", state: .unschedulable, attempts: 0, reason: "needs combine, platform:macos"),
            .start(jobID: "fine", attempt: 1, host: "mac", slot: 0),
        ])
        XCTAssertEqual(scheduler.status(ofJob: "needy"), .finished(.unschedulable))
    }

    func testHostWithNoSlotsTakesNothing() {
        var scheduler = Scheduler(jobs: [SchedulerJob(id: "j", suite: "s")], hosts: [SchedulerHost(name: "h", slots: 0)])
        XCTAssertEqual(scheduler.start(), [
            .jobFinished(jobID: "j", state: .unschedulable, attempts: 0, reason: "needs a host"),
            .runFinished,
        ])
    }

    func testAbsurdSlotCountsAreClamped() {
        let jobs = (0..<300).map { SchedulerJob(id: "j\($0)", suite: "s") }
        var scheduler = Scheduler(jobs: jobs, hosts: [SchedulerHost(name: "huge", slots: Int.max), SchedulerHost(name: "neg", slots: -5)])
        let starts = scheduler.start().filter { if case .start = $0 { return true } else { return false } }
        XCTAssertEqual(starts.count, Scheduler.maxSlotsPerHost)
        XCTAssertEqual(scheduler.queuedJobIDs.count, 300 - Scheduler.maxSlotsPerHost)
    }

    func testUnschedulableWhenLastCapableHostIsSetAside() {
        let hosts = [SchedulerHost(name: "mac", labels: ["platform:macos"], slots: 1),
                     SchedulerHost(name: "linux", labels: ["platform:linux"], slots: 1)]
        let jobs = [SchedulerJob(id: "m1", suite: "m", requires: ["platform:macos"], expectedSeconds: 9),
                    SchedulerJob(id: "m2", suite: "m", requires: ["platform:macos"], expectedSeconds: 5)]
        var scheduler = Scheduler(jobs: jobs, hosts: hosts)
        XCTAssertEqual(scheduler.start(), [.start(jobID: "m1", attempt: 1, host: "mac", slot: 0)])
        let actions = scheduler.hostSetAside("mac", reason: "toolchain missing")
        XCTAssertEqual(actions, [
            .jobFinished(jobID: "m1", state: .infraFailed, attempts: 1,
                         reason: "no host left that can take it after 1 attempts; last failure: host mac lost: toolchain missing"),
            .jobFinished(jobID: "m2", state: .unschedulable, attempts: 0,
                         reason: "needs platform:macos; the hosts that had it are gone: mac (toolchain missing)"),
            .runFinished,
        ])
    }

    func testExpectingMoreHostsWaitsThenDecidesAtNoMoreHosts() {
        let jobs = [SchedulerJob(id: "mac", suite: "m", requires: ["platform:macos"]),
                    SchedulerJob(id: "combine", suite: "c", requires: ["combine"])]
        var scheduler = Scheduler(jobs: jobs, hosts: [], options: .init(expectingMoreHosts: true))
        XCTAssertEqual(scheduler.start(), [], "nothing is unschedulable while hosts may still come")
        XCTAssertEqual(scheduler.hostJoined(SchedulerHost(name: "p1", labels: ["platform:macos"], slots: 1)),
                       [.start(jobID: "mac", attempt: 1, host: "p1", slot: 0)])
        XCTAssertEqual(scheduler.noMoreHosts(), [
            .jobFinished(jobID: "combine", state: .unschedulable, attempts: 0, reason: "needs combine"),
        ])
        XCTAssertEqual(scheduler.noMoreHosts(), [], "only once")
        XCTAssertEqual(scheduler.attemptFinished(jobID: "mac", attempt: 1, outcome: .passed),
                       [.jobFinished(jobID: "mac", state: .passed, attempts: 1, reason: nil), .runFinished])
    }

    func testLateHostTakesQueuedJobs() {
        let jobs = (0..<3).map { SchedulerJob(id: "j\($0)", suite: "s", expectedSeconds: Double(10 - $0)) }
        var scheduler = Scheduler(jobs: jobs, hosts: [SchedulerHost(name: "early", slots: 1)])
        XCTAssertEqual(startedJobs(scheduler.start()).map(\.0), ["j0"])
        let joined = scheduler.hostJoined(SchedulerHost(name: "late", slots: 2))
        XCTAssertEqual(joined, [.start(jobID: "j1", attempt: 1, host: "late", slot: 0),
                                .start(jobID: "j2", attempt: 1, host: "late", slot: 1)])
        XCTAssertEqual(scheduler.hostJoined(SchedulerHost(name: "late", slots: 5)), [], "an active host cannot join twice")
    }

    // MARK: Retries

    func testInfraFailureRerunsOnAnotherHostEvenIfItMustWait() {
        let jobs = [SchedulerJob(id: "j1", suite: "s", expectedSeconds: 10, infraRetries: 2),
                    SchedulerJob(id: "j2", suite: "s", expectedSeconds: 5)]
        var scheduler = Scheduler(jobs: jobs, hosts: [SchedulerHost(name: "a", slots: 1), SchedulerHost(name: "b", slots: 1)])
        XCTAssertEqual(scheduler.start(), [.start(jobID: "j1", attempt: 1, host: "a", slot: 0),
                                           .start(jobID: "j2", attempt: 1, host: "b", slot: 0)])
        XCTAssertEqual(scheduler.attemptFinished(jobID: "j1", attempt: 1, outcome: .infraFailure(.hostLost("connection lost"))), [],
                       "a is free but j1 failed there: it waits for b")
        XCTAssertEqual(scheduler.status(ofJob: "j1"), .queued)
        XCTAssertEqual(scheduler.attemptFinished(jobID: "j2", attempt: 1, outcome: .passed), [
            .jobFinished(jobID: "j2", state: .passed, attempts: 1, reason: nil),
            .start(jobID: "j1", attempt: 2, host: "b", slot: 0),
        ])
        XCTAssertEqual(scheduler.attemptFinished(jobID: "j1", attempt: 2, outcome: .passed), [
            .jobFinished(jobID: "j1", state: .passed, attempts: 2, reason: nil), .runFinished,
        ], "an infrastructure failure then a pass is not flaky")
    }

    func testInfraRetriesStopAtTheLimit() {
        let hosts = (0..<4).map { SchedulerHost(name: "h\($0)", slots: 1) }
        var scheduler = Scheduler(jobs: [SchedulerJob(id: "j", suite: "s", infraRetries: 2)], hosts: hosts)
        var actions = scheduler.start()
        var usedHosts: [String] = []
        for attempt in 1...3 {
            guard case let .start(_, n, host, _)? = actions.first else { return XCTFail("attempt \(attempt) not started: \(actions)") }
            XCTAssertEqual(n, attempt)
            usedHosts.append(host)
            actions = scheduler.attemptFinished(jobID: "j", attempt: n, outcome: .infraFailure(.hostLost("push failed")))
        }
        XCTAssertEqual(Set(usedHosts).count, 3, "every rerun on another host: \(usedHosts)")
        XCTAssertEqual(actions, [.jobFinished(jobID: "j", state: .infraFailed, attempts: 3,
                                              reason: "infrastructure failure after 3 attempts: push failed"), .runFinished])
    }

    func testInfraRetryOnSameHostOnlyWhenNoOtherIsLeft() {
        var allowed = Scheduler(jobs: [SchedulerJob(id: "j", suite: "s", infraRetries: 1)], hosts: [SchedulerHost(name: "only", slots: 1)])
        _ = allowed.start()
        XCTAssertEqual(allowed.attemptFinished(jobID: "j", attempt: 1, outcome: .infraFailure(.hostLost("killed"))),
                       [.start(jobID: "j", attempt: 2, host: "only", slot: 0)])

        var strict = Scheduler(jobs: [SchedulerJob(id: "j", suite: "s", infraRetries: 1)], hosts: [SchedulerHost(name: "only", slots: 1)],
                               options: .init(sameHostRetryWhenNoOther: false))
        _ = strict.start()
        XCTAssertEqual(strict.attemptFinished(jobID: "j", attempt: 1, outcome: .infraFailure(.hostLost("killed"))), [
            .jobFinished(jobID: "j", state: .infraFailed, attempts: 1,
                         reason: "infrastructure failure after 1 attempts, no other host to rerun on: killed"),
            .runFinished,
        ])
    }

    func testTestFailureIsRetriedOnlyWhenAskedAndFailThenPassIsFlaky() {
        var noRetry = Scheduler(jobs: [SchedulerJob(id: "j", suite: "s", testRetries: 0)], hosts: [SchedulerHost(name: "h")])
        _ = noRetry.start()
        XCTAssertEqual(noRetry.attemptFinished(jobID: "j", attempt: 1, outcome: .testsFailed),
                       [.jobFinished(jobID: "j", state: .failed, attempts: 1, reason: "tests failed"), .runFinished])

        var retry = Scheduler(jobs: [SchedulerJob(id: "j", suite: "s", testRetries: 1)], hosts: [SchedulerHost(name: "h")])
        _ = retry.start()
        XCTAssertEqual(retry.attemptFinished(jobID: "j", attempt: 1, outcome: .testsFailed),
                       [.start(jobID: "j", attempt: 2, host: "h", slot: 0)], "a test failure may rerun on the same host")
        XCTAssertEqual(retry.attemptFinished(jobID: "j", attempt: 2, outcome: .passed),
                       [.jobFinished(jobID: "j", state: .flaky, attempts: 2, reason: "passed on attempt 2 after failing"), .runFinished])

        var timeout = Scheduler(jobs: [SchedulerJob(id: "j", suite: "s", testRetries: 1)], hosts: [SchedulerHost(name: "h")])
        _ = timeout.start()
        _ = timeout.attemptFinished(jobID: "j", attempt: 1, outcome: .testsFailed)
        XCTAssertEqual(timeout.attemptFinished(jobID: "j", attempt: 2, outcome: .timedOut(phase: .test)),
                       [.jobFinished(jobID: "j", state: .timedOut, attempts: 2, reason: "timed out in test"), .runFinished])
    }

    /// A discovery failure is the same for every attempt of the build: never retried, whatever
    /// the test-failure retries allow.
    func testDiscoveryFailureIsNeverRetried() {
        var s = Scheduler(jobs: [SchedulerJob(id: "j", suite: "s", testRetries: 2)], hosts: [SchedulerHost(name: "h")])
        _ = s.start()
        XCTAssertEqual(s.attemptFinished(jobID: "j", attempt: 1, outcome: .discoveryFailed("the filter selects none of the 7 discovered tests")),
                       [.jobFinished(jobID: "j", state: .failed, attempts: 1,
                                     reason: "test discovery failed (not retried: the same build lists the same tests)"), .runFinished])
    }

    // MARK: Hosts lost, interrupts, stale reports

    func testHostLostMidJobRequeuesElsewhereAndIgnoresTheLateReport() {
        let jobs = [SchedulerJob(id: "j1", suite: "s", expectedSeconds: 10), SchedulerJob(id: "j2", suite: "s", expectedSeconds: 5)]
        var scheduler = Scheduler(jobs: jobs, hosts: [SchedulerHost(name: "a", slots: 2), SchedulerHost(name: "b", slots: 1)])
        XCTAssertEqual(scheduler.start(), [.start(jobID: "j1", attempt: 1, host: "a", slot: 0),
                                           .start(jobID: "j2", attempt: 1, host: "a", slot: 1)])
        XCTAssertEqual(scheduler.hostLost("a", reason: "sshd killed"), [.start(jobID: "j1", attempt: 2, host: "b", slot: 0)])
        XCTAssertEqual(scheduler.activeHosts, ["b"])
        XCTAssertEqual(scheduler.attemptFinished(jobID: "j1", attempt: 1, outcome: .passed), [], "stale attempt")
        XCTAssertEqual(scheduler.attemptFinished(jobID: "j1", attempt: 2, outcome: .passed), [
            .jobFinished(jobID: "j1", state: .passed, attempts: 2, reason: nil),
            .start(jobID: "j2", attempt: 2, host: "b", slot: 0),
        ])
        XCTAssertEqual(scheduler.hostLost("a", reason: "again"), [], "already gone")
        XCTAssertEqual(scheduler.hostLost("nobody", reason: "x"), [])
        XCTAssertEqual(scheduler.attemptFinished(jobID: "nobody", attempt: 1, outcome: .passed), [])
    }

    func testLostHostMayRejoin() {
        var scheduler = Scheduler(jobs: [SchedulerJob(id: "j", suite: "s", infraRetries: 3)], hosts: [SchedulerHost(name: "a")],
                                  options: .init(expectingMoreHosts: true))
        XCTAssertEqual(scheduler.start(), [.start(jobID: "j", attempt: 1, host: "a", slot: 0)])
        XCTAssertEqual(scheduler.hostLost("a", reason: "rebooted"), [], "more hosts may come")
        XCTAssertEqual(scheduler.hostJoined(SchedulerHost(name: "a")), [], "excluded while others may come")
        XCTAssertEqual(scheduler.noMoreHosts(), [.start(jobID: "j", attempt: 2, host: "a", slot: 0)])
    }

    func testInterruptEndsQueuedJobsAndCancelsRunningOnes() {
        let jobs = (0..<4).map { SchedulerJob(id: "j\($0)", suite: "s", expectedSeconds: Double(10 - $0)) }
        var scheduler = Scheduler(jobs: jobs, hosts: [SchedulerHost(name: "a", slots: 1), SchedulerHost(name: "b", slots: 1)])
        XCTAssertEqual(startedJobs(scheduler.start()).map(\.0), ["j0", "j1"])
        XCTAssertEqual(scheduler.interrupt(), [
            .jobFinished(jobID: "j2", state: .interrupted, attempts: 0, reason: "interrupted before it ran"),
            .jobFinished(jobID: "j3", state: .interrupted, attempts: 0, reason: "interrupted before it ran"),
            .cancel(jobID: "j0", attempt: 1, host: "a", slot: 0),
            .cancel(jobID: "j1", attempt: 1, host: "b", slot: 0),
        ])
        XCTAssertTrue(scheduler.isInterrupted)
        XCTAssertEqual(scheduler.interrupt(), [], "a second interrupt does nothing more")
        XCTAssertEqual(scheduler.hostJoined(SchedulerHost(name: "c", slots: 4)), [], "no job handed out after an interrupt")
        XCTAssertEqual(scheduler.attemptFinished(jobID: "j0", attempt: 1, outcome: .testsFailed),
                       [.jobFinished(jobID: "j0", state: .interrupted, attempts: 1, reason: "interrupted while running")])
        XCTAssertFalse(scheduler.isFinished)
        XCTAssertEqual(scheduler.hostLost("b", reason: "gone"), [
            .jobFinished(jobID: "j1", state: .interrupted, attempts: 1, reason: "interrupted; host b lost: gone"), .runFinished,
        ])
        XCTAssertTrue(scheduler.isFinished)
    }

    func testInterruptBeforeStartAndEmptyRuns() {
        var scheduler = Scheduler(jobs: [SchedulerJob(id: "j", suite: "s")], hosts: [SchedulerHost(name: "h")])
        XCTAssertEqual(scheduler.interrupt(), [.jobFinished(jobID: "j", state: .interrupted, attempts: 0, reason: "interrupted before it ran"), .runFinished])
        XCTAssertEqual(scheduler.start(), [])

        var empty = Scheduler(jobs: [], hosts: [])
        XCTAssertEqual(empty.start(), [.runFinished])
        XCTAssertEqual(empty.start(), [], "start acts once")
        XCTAssertTrue(empty.isFinished)
    }

    func testNoHostsAtAllMakesEveryJobUnschedulable() {
        var scheduler = Scheduler(jobs: [SchedulerJob(id: "a", suite: "s"), SchedulerJob(id: "a", suite: "dup")], hosts: [])
        XCTAssertEqual(scheduler.start(), [.jobFinished(jobID: "a", state: .unschedulable, attempts: 0, reason: "needs a host"), .runFinished],
                       "a duplicate id is dropped")
    }

    /// Thousands of jobs on a large fleet run through quickly (work per event stays small).
    func testLargeRunFinishesEveryJobOnce() {
        var jobs: [SchedulerJob] = []
        for i in 0..<5_000 {
            let requires: [String] = i % 7 == 0 ? ["combine"] : []
            let seconds = Double((i * 7_919) % 1_000)
            jobs.append(SchedulerJob(id: "j\(i)", suite: "s\(i % 50)", requires: requires, expectedSeconds: seconds))
        }
        var hosts: [SchedulerHost] = []
        for i in 0..<64 {
            let labels: [String] = i % 4 == 0 ? ["combine"] : []
            hosts.append(SchedulerHost(name: "h\(i)", labels: labels, slots: 2))
        }
        var scheduler = Scheduler(jobs: jobs, hosts: hosts)
        var running = startedJobs(scheduler.start())
        XCTAssertEqual(running.count, 128)
        var finished = 0, events = 0
        let clock = Date()
        while let next = running.popLast() {
            events += 1
            let outcome: Scheduler.AttemptOutcome = events % 97 == 0 ? .infraFailure(.hostLost("lost")) : .passed
            for action in scheduler.attemptFinished(jobID: next.0, attempt: next.1, outcome: outcome) {
                switch action {
                case let .start(id, attempt, _, _): running.insert((id, attempt), at: 0)
                case .jobFinished: finished += 1
                case .cancel, .runFinished: break
                }
            }
        }
        XCTAssertEqual(finished, 5_000)
        XCTAssertTrue(scheduler.isFinished)
        XCTAssertGreaterThan(events, 5_000, "some infrastructure failures were rerun")
        XCTAssertLessThan(Date().timeIntervalSince(clock), 30, "debug build, shared 2-core machine")
    }

    // MARK: Property test

    /// Many random event sequences (seeded): every invariant the runner relies on holds throughout.
    func testRandomEventSequencesKeepEveryInvariant() {
        var rng = SeededGenerator(seed: 0x5EED_F1EE7)
        var seen: Set<JobFinalState> = []
        var reruns = 0, lostWhileRunning = 0
        for round in 0..<400 {
            var model = SchedulerRandomRun(rng: &rng)
            model.play(rng: &rng)
            if !model.violations.isEmpty {
                XCTFail("round \(round): \(model.violations.prefix(5).joined(separator: "\n"))")
                return
            }
            seen.formUnion(model.ledger.finals.values.flatMap { $0 })
            reruns += model.ledger.attemptsStarted.values.filter { $0 > 1 }.count
            lostWhileRunning += model.lostWhileRunning
        }
        // The sequences really reach every corner, so the invariants above were exercised.
        XCTAssertEqual(seen, Set(JobFinalState.allCases), "final states reached")
        XCTAssertGreaterThan(reruns, 50)
        XCTAssertGreaterThan(lostWhileRunning, 20)
    }

    /// The checker itself notices a broken invariant (so the property test can fail).
    func testInvariantCheckerCatchesADoubleFinal() {
        var ledger = SchedulerLedger(hosts: [SchedulerHost(name: "h")], jobs: [SchedulerJob(id: "j", suite: "s")])
        ledger.apply([.jobFinished(jobID: "j", state: .passed, attempts: 0, reason: nil),
                      .jobFinished(jobID: "j", state: .failed, attempts: 0, reason: nil)])
        ledger.apply([.start(jobID: "x", attempt: 1, host: "h", slot: 3)])
        XCTAssertEqual(ledger.violations.count, 3, "\(ledger.violations)")
    }

    private func startedJobs(_ actions: [Action]) -> [(String, Int)] {
        actions.compactMap { action in
            if case let .start(id, attempt, _, _) = action { return (id, attempt) }
            return nil
        }
    }
}

// MARK: - Test runner model


/// What the runner knows from the actions it performed, checking each one against the invariants.
struct SchedulerLedger {
    var hosts: [String: SchedulerHost] = [:]
    var liveHosts: Set<String> = []
    var jobs: [String: SchedulerJob] = [:]
    /// host/slot → running job id and attempt.
    var occupied: [String: (job: String, attempt: Int)] = [:]
    var running: [String: (attempt: Int, host: String, slot: Int, cancelling: Bool)] = [:]
    var finals: [String: [JobFinalState]] = [:]
    var attemptsStarted: [String: Int] = [:]
    var infraFailedOn: [String: Set<String>] = [:]
    var runFinished = 0
    var interrupted = false
    var violations: [String] = []

    init(hosts: [SchedulerHost], jobs: [SchedulerJob]) {
        for host in hosts { self.hosts[host.name] = host; liveHosts.insert(host.name) }
        for job in jobs where self.jobs[job.id] == nil { self.jobs[job.id] = job }
    }

    mutating func apply(_ actions: [Scheduler.Action]) {
        for action in actions {
            switch action {
            case let .start(id, attempt, host, slot):
                let key = "\(host)#\(slot)"
                if runFinished > 0 { violations.append("start after runFinished: \(id)") }
                if interrupted { violations.append("start after interrupt: \(id)") }
                if occupied[key] != nil { violations.append("two jobs in slot \(key): \(id)") }
                guard let spec = hosts[host], liveHosts.contains(host) else { violations.append("start on dead/unknown host \(host)"); continue }
                if slot < 0 || slot >= spec.slots { violations.append("slot \(slot) out of range on \(host)") }
                guard let job = jobs[id] else { violations.append("unknown job \(id)"); continue }
                if !spec.satisfies(job.requires) { violations.append("\(id) needs \(job.requires) but \(host) has \(spec.labels)") }
                if running[id] != nil { violations.append("\(id) started while running") }
                if finals[id] != nil { violations.append("\(id) started after its final state") }
                let expected = (attemptsStarted[id] ?? 0) + 1
                if attempt != expected { violations.append("\(id) attempt \(attempt), expected \(expected)") }
                attemptsStarted[id] = expected
                let limit = max(0, job.infraRetries) + max(0, job.testRetries) + 1
                if attempt > limit { violations.append("\(id) attempt \(attempt) over the limit \(limit)") }
                let excluded = infraFailedOn[id] ?? []
                if excluded.contains(host) {
                    let others = liveHosts.filter { !excluded.contains($0) && (hosts[$0]?.slots ?? 0) > 0 && (hosts[$0]?.satisfies(job.requires) ?? false) }
                    if !others.isEmpty { violations.append("\(id) rerun on \(host) where it infra-failed while \(others.sorted()) could take it") }
                }
                occupied[key] = (id, attempt)
                running[id] = (attempt, host, slot, false)
            case let .cancel(id, attempt, host, slot):
                guard let r = running[id], r.attempt == attempt, r.host == host, r.slot == slot, !r.cancelling else {
                    violations.append("cancel of an attempt that is not running: \(id)#\(attempt)"); continue
                }
                running[id]?.cancelling = true
            case let .jobFinished(id, state, attempts, _):
                if runFinished > 0 { violations.append("jobFinished after runFinished: \(id)") }
                if running[id] != nil { violations.append("\(id) finished while an attempt still runs") }
                if attempts != (attemptsStarted[id] ?? 0) { violations.append("\(id) reports \(attempts) attempts, \(attemptsStarted[id] ?? 0) started") }
                finals[id, default: []].append(state)
                if finals[id, default: []].count > 1 { violations.append("\(id) has two final states \(finals[id] ?? [])") }
            case .runFinished:
                runFinished += 1
                if runFinished > 1 { violations.append("runFinished twice") }
                let missing = jobs.keys.filter { finals[$0] == nil }
                if !missing.isEmpty { violations.append("runFinished with jobs not final: \(missing.sorted())") }
            }
        }
    }

    /// The runner saw an attempt end: the slot is free again.
    mutating func ended(_ id: String, outcome: Scheduler.AttemptOutcome) {
        guard let r = running.removeValue(forKey: id) else { return }
        occupied["\(r.host)#\(r.slot)"] = nil
        if case .infraFailure = outcome, !r.cancelling { infraFailedOn[id, default: []].insert(r.host) }
    }

    mutating func lost(_ host: String) {
        guard liveHosts.remove(host) != nil else { return }
        for (id, r) in running where r.host == host {
            running[id] = nil
            occupied["\(r.host)#\(r.slot)"] = nil
            if !r.cancelling { infraFailedOn[id, default: []].insert(host) }
        }
    }
}

/// One random run: random fleet, random jobs, random events until the scheduler says it is finished.
struct SchedulerRandomRun {
    var scheduler: Scheduler
    var ledger: SchedulerLedger
    var spareHosts: [SchedulerHost]
    var expecting: Bool
    var lostWhileRunning = 0
    var violations: [String] { ledger.violations }

    static let labels = ["platform:macos", "platform:linux", "combine", "xcode:16.4"]

    init(rng: inout SeededGenerator) {
        func randomLabels(_ rng: inout SeededGenerator) -> [String] { SchedulerRandomRun.labels.filter { _ in Bool.random(using: &rng) } }
        let hostCount = Int.random(in: 0...5, using: &rng)
        var hosts = (0..<hostCount).map { SchedulerHost(name: "h\($0)", labels: randomLabels(&rng), slots: Int.random(in: 0...3, using: &rng)) }
        let spares = (0..<Int.random(in: 0...3, using: &rng)).map {
            SchedulerHost(name: "p\($0)", labels: randomLabels(&rng), slots: Int.random(in: 1...2, using: &rng))
        }
        hosts.shuffle(using: &rng)
        let jobs = (0..<Int.random(in: 0...25, using: &rng)).map { n in
            SchedulerJob(id: "j\(Int.random(in: 0...30, using: &rng))-\(n % 3 == 0 ? 0 : n)", suite: "s\(n % 4)",
                         requires: SchedulerRandomRun.labels.filter { _ in Int.random(in: 0..<4, using: &rng) == 0 },
                         expectedSeconds: Bool.random(using: &rng) ? Double.random(in: 0...100, using: &rng) : nil,
                         infraRetries: Int.random(in: -1...3, using: &rng), testRetries: Int.random(in: -1...2, using: &rng))
        }
        expecting = !spares.isEmpty && Bool.random(using: &rng)
        spareHosts = spares
        scheduler = Scheduler(jobs: jobs, hosts: hosts,
                              options: .init(expectingMoreHosts: expecting, sameHostRetryWhenNoOther: Bool.random(using: &rng)))
        ledger = SchedulerLedger(hosts: hosts, jobs: jobs)
    }

    mutating func play(rng: inout SeededGenerator) {
        ledger.apply(scheduler.start())
        var steps = 0
        while !scheduler.isFinished, steps < 2_000, ledger.violations.isEmpty {
            steps += 1
            let roll = Int.random(in: 0..<100, using: &rng)
            let runningIDs = ledger.running.keys.sorted()
            if roll < 3 {
                ledger.interrupted = true
                ledger.apply(scheduler.interrupt())
            } else if roll < 10, !spareHosts.isEmpty {
                let host = spareHosts.removeFirst()
                ledger.hosts[host.name] = host
                ledger.liveHosts.insert(host.name)
                ledger.apply(scheduler.hostJoined(host))
            } else if roll < 15, let victim = ledger.liveHosts.sorted().randomElement(using: &rng) {
                if ledger.running.values.contains(where: { $0.host == victim }) { lostWhileRunning += 1 }
                ledger.lost(victim)
                ledger.apply(scheduler.hostLost(victim, reason: "died"))
            } else if roll < 18, let id = ledger.jobs.keys.sorted().randomElement(using: &rng) {
                // A stale or bogus report must change nothing.
                let attempt = (ledger.running[id]?.attempt ?? 0) + Int.random(in: -3 ... -1, using: &rng)
                let actions = scheduler.attemptFinished(jobID: id, attempt: attempt, outcome: .passed)
                if !actions.isEmpty { ledger.violations.append("stale report of \(id)#\(attempt) acted: \(actions)") }
            } else if let id = runningIDs.randomElement(using: &rng), let attempt = ledger.running[id]?.attempt {
                let outcomes: [Scheduler.AttemptOutcome] = [.passed, .testsFailed, .timedOut(phase: .test), .infraFailure(.hostLost("lost"))]
                let outcome = outcomes.randomElement(using: &rng) ?? .passed
                ledger.ended(id, outcome: outcome)
                ledger.apply(scheduler.attemptFinished(jobID: id, attempt: attempt, outcome: outcome))
            } else if !spareHosts.isEmpty {
                let host = spareHosts.removeFirst()
                ledger.hosts[host.name] = host
                ledger.liveHosts.insert(host.name)
                ledger.apply(scheduler.hostJoined(host))
            } else if expecting {
                expecting = false
                ledger.apply(scheduler.noMoreHosts())
            } else {
                ledger.violations.append("stuck: nothing running, nothing to add, not finished; queued \(scheduler.queuedJobIDs)")
            }
        }
        if !scheduler.isFinished, ledger.violations.isEmpty { ledger.violations.append("did not finish in \(steps) steps") }
        if ledger.runFinished != 1 { ledger.violations.append("runFinished returned \(ledger.runFinished) times") }
        for id in ledger.jobs.keys where ledger.finals[id]?.count != 1 {
            ledger.violations.append("\(id) final states: \(ledger.finals[id] ?? [])")
        }
        for (id, states) in ledger.finals {
            guard let state = states.first else { continue }
            if case .finished(state)? = scheduler.status(ofJob: id) {} else { ledger.violations.append("\(id) status disagrees") }
        }
    }
}
