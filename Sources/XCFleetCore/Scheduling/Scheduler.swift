import Foundation
import XCFleetBasics
import XCFleetModel

/// The scheduling decisions of one run, as a pure state machine: no I/O, no clock.
///
/// A thin loop (the runner) feeds it what happened and performs the actions it returns, in order:
/// ```
/// var scheduler = Scheduler(jobs: jobs, hosts: healthyHosts)
/// perform(scheduler.start())
/// // then, as things happen:
/// perform(scheduler.attemptFinished(jobID: id, attempt: n, outcome: .passed))
/// perform(scheduler.hostJoined(host))          // a provisioned host passed its health check
/// perform(scheduler.hostLost(name, reason: r)) // unhealthy / unreachable / died mid-run
/// perform(scheduler.interrupt())               // Ctrl-C, SIGTERM
/// // until `.runFinished` was returned (then `isFinished` is true).
/// ```
/// - `.start(jobID, attempt, host, slot)`: run that attempt on that host slot; report its end with
///   `attemptFinished` (same job id and attempt number). Attempts are numbered from 1 per job.
/// - `.cancel(...)`: kill that attempt (interrupt); still report its end (any outcome) with
///   `attemptFinished`, or call `hostLost` for its host; the job then ends `interrupted`.
/// - `.jobFinished(...)`: the job's one and only final state. Unschedulable jobs end this way too,
///   with the reason `needs combine, platform:macos`.
/// - `.runFinished`: every job has its final state; returned exactly once.
///
/// Placement (queue mode): whenever a slot frees or a host joins, queued jobs are taken longest
/// expected duration first (ties: the first job of a build key that other jobs share, by the work
/// its build lets start — the repetitions or shards behind it keep their places and go cached —
/// then input order) and each is put on a free slot of a host that has
/// every label it requires, preferring the host with the most free slots, then the one with fewer
/// labels (keeps specialised hosts for jobs that need them), then the host known first.
///
/// Retries: an infrastructure failure reruns the job on a host where it has not infra-failed yet,
/// waiting for such a host's slot even when an excluded host is free. Only when no live capable
/// host is left outside the excluded ones (and no more hosts are expected) may it rerun on an
/// excluded host (`Options.sameHostRetryWhenNoOther`, default true; false ends it `infraFailed`).
/// At most `infraRetries` reruns follow infrastructure failures and `testRetries` reruns follow
/// test failures or timeouts; a job that failed its tests and later passes ends `flaky`. A rerun
/// after test failures takes a free slot on a host where its tests have not failed over one where
/// they have (before build cost), but never waits for such a host.
///
/// Unschedulable: a job no live host can take ends `unschedulable` at `start()` (or, when the last
/// capable host is lost, at that moment; a job that already ran at least once ends `infraFailed`
/// instead). With `Options.expectingMoreHosts` (a provisioner may still add hosts) such jobs wait
/// until `noMoreHosts()`; no job is declared unschedulable before that.
///
/// Stale reports (an attempt number that is not the running one, an unknown job or host) are
/// ignored and return no actions, so a late report from a lost host never counts twice.
///
/// Probation: `hostUnreachable` (a connection to the host was lost) stops new attempts on that
/// host at once — before the lost attempt's own report frees its slot — so no job spends a retry
/// on a host known to be down. Attempts still running there go on. `hostRecovered` (a fresh
/// health check passed) or `hostJoined` lifts it; `hostLost` ends it. A host on probation still
/// counts as capable, so jobs wait for it rather than end `unschedulable`/`infraFailed`.
///
/// Builds (see `SchedulerJob.build`): the scheduler knows per host which build keys are cached
/// (`buildCached`, and every passed attempt of a keyed job) and which are being built (a keyed job
/// started on a host without its build, or `buildStarted`) until `buildFinished` or the attempt's
/// end. A keyed job never starts on a host where another job is building its key (at most one
/// build of a key per host in flight); among hosts with a free slot it takes the one where its
/// build is cheapest (cached, then incremental from a cached base, then cold), then the usual
/// order. It never waits for a busy host that holds its build (that could delay the run). A free
/// slot goes first to a job that can work there at once (`DispatchPass.ready`).
public struct Scheduler: Sendable {
    // The state below is module-internal only so that `Scheduler+Observing.swift` can read it; it
    // changes only through the mutating methods in this file.
    enum RunState: Equatable, Sendable {
        case notStarted, running, interrupted, finished
    }

    enum JobState: Equatable, Sendable {
        case queued
        case running(attempt: Int, host: String, slot: Int)
        case cancelling(attempt: Int, host: String, slot: Int)
        case finished(JobFinalState)
    }

    enum HostState: Equatable, Sendable {
        /// The job id running in each slot, nil when free.
        case active(slots: [String?])
        case gone(reason: String)
    }

    struct JobRecord: Sendable {
        var job: SchedulerJob
        var order: Int
        var expected: Double
        /// The expected seconds of every job of this job's build key when it is the first of two or
        /// more jobs that share that key (its build lets them all start); otherwise its own.
        var rank: Double = 0
        var state: JobState
        var attempts = 0
        var infraFailures = 0
        var testFailures = 0
        var excludedHosts: Set<String> = []
        /// Hosts where an attempt failed its tests: a rerun prefers a free slot elsewhere (never waits for one).
        var testFailedHosts: Set<String> = []
        var lastInfraError: String?
    }

    struct HostRecord: Sendable {
        var host: SchedulerHost
        var labels: Set<String>
        var order: Int
        var state: HostState
        /// Why the host is on probation (no new attempts), nil when it is not.
        var probation: String?
        /// Build keys with a complete build on the host.
        var cached: Set<String> = []
        /// Build keys being built on the host → the job building it.
        var building: [String: Int] = [:]
    }

    private var options: Options
    var run: RunState = .notStarted
    var jobs: [JobRecord] = []
    var jobIndex: [String: Int] = [:]
    var hosts: [HostRecord] = []
    var hostIndex: [String: Int] = [:]
    /// Indices of queued jobs, longest expected first, then input order.
    var queue: [Int] = []
    private var unfinished = 0
    /// Hosts were lost (or no more are expected) since the last check: every queued job may be stranded.
    private var recheckAll = true
    /// Jobs requeued after an infrastructure failure since the last check.
    private var recheck: [Int] = []

    /// Jobs with a duplicate id are dropped (the first one counts); hosts with a duplicate name likewise.
    public init(jobs: [SchedulerJob], hosts: [SchedulerHost], options: Options = Options()) {
        self.options = options
        for job in jobs where jobIndex[job.id] == nil {
            jobIndex[job.id] = self.jobs.count
            self.jobs.append(JobRecord(job: job, order: self.jobs.count, expected: 0, state: .queued))
        }
        unfinished = self.jobs.count
        let expected = Scheduler.expectedDurations(for: self.jobs.map(\.job), default: options.defaultExpectedSeconds)
        for i in self.jobs.indices { self.jobs[i].expected = expected[i] }
        let ranks = Scheduler.ranks(self.jobs.map { ($0.job.build?.key, $0.expected) })
        for i in self.jobs.indices { self.jobs[i].rank = ranks[i] }
        let all = Array(self.jobs.indices)
        queue = all.sorted { ordered($0, $1) }
        for host in hosts { addHost(host) }
    }

    // MARK: Events

    /// Begins the run: reports unschedulable jobs and hands out the first jobs. Only the first call acts.
    public mutating func start() -> [Action] {
        switch run {
        case .notStarted:
            run = .running
            return settle()
        case .running, .interrupted, .finished:
            return []
        }
    }

    /// An attempt ended. Ignored unless it is the job's running (or cancelling) attempt.
    public mutating func attemptFinished(jobID: String, attempt: Int, outcome: AttemptOutcome) -> [Action] {
        guard let i = jobIndex[jobID] else { return [] }
        switch jobs[i].state {
        case let .running(running, host, slot) where running == attempt:
            freeSlot(host: host, slot: slot)
            endBuilds(of: i, host: host, passed: outcome == .passed)
            var actions = conclude(i, host: host, outcome: outcome)
            actions += settle()
            return actions
        case let .cancelling(running, host, slot) where running == attempt:
            freeSlot(host: host, slot: slot)
            endBuilds(of: i, host: host, passed: false)
            var actions = finish(i, .interrupted, reason: "interrupted while running")
            actions += settle()
            return actions
        case .running, .cancelling, .queued, .finished:
            return []
        }
    }

    /// A host passed its health check and may take jobs (late joiners, provisioned hosts).
    /// A host that was lost may join again under the same name; jobs keep avoiding it after an infra failure there.
    public mutating func hostJoined(_ host: SchedulerHost) -> [Action] {
        if let h = hostIndex[host.name] {
            switch hosts[h].state {
            case .active:
                // A host on probation that passed its admission again.
                guard hosts[h].probation != nil else { return [] }
                hosts[h].probation = nil
            case .gone:
                hosts[h].host = host
                hosts[h].labels = Set(host.labels)
                hosts[h].state = .active(slots: Array(repeating: nil, count: Scheduler.slotCount(host)))
            }
        } else {
            addHost(host)
        }
        return settle()
    }

    /// A host is gone for this run (unhealthy, set aside, unreachable, died). Its free slots vanish;
    /// each attempt running on it counts as an infrastructure failure and is rerun elsewhere.
    public mutating func hostLost(_ name: String, reason: String) -> [Action] {
        guard let h = hostIndex[name] else { return [] }
        switch hosts[h].state {
        case .gone:
            return []
        case let .active(slots):
            hosts[h].state = .gone(reason: reason)
            hosts[h].probation = nil
            hosts[h].building = [:]
            recheckAll = true
            var actions: [Action] = []
            for jobID in slots.compactMap({ $0 }) {
                guard let i = jobIndex[jobID] else { continue }
                switch jobs[i].state {
                case .running:
                    actions += conclude(i, host: name, outcome: .infraFailure(.hostLost("host \(name) lost: \(reason)")))
                case .cancelling:
                    actions += finish(i, .interrupted, reason: "interrupted; host \(name) lost: \(reason)")
                case .queued, .finished:
                    break
                }
            }
            actions += settle()
            return actions
        }
    }

    /// A connection to the host was lost: no new attempt starts there until `hostRecovered` (a fresh
    /// health check passed) or `hostJoined`; attempts running there go on and report as usual.
    /// Jobs still count it as capable (they wait rather than end). Call it before reporting the lost attempt.
    public mutating func hostUnreachable(_ name: String, reason: String) -> [Action] {
        guard let h = hostIndex[name] else { return [] }
        switch hosts[h].state {
        case .gone:
            return []
        case .active:
            hosts[h].probation = reason
            return settle()
        }
    }

    /// A host on probation passed a fresh health check: it takes jobs again.
    public mutating func hostRecovered(_ name: String) -> [Action] {
        guard let h = hostIndex[name], hosts[h].probation != nil else { return [] }
        switch hosts[h].state {
        case .gone:
            return []
        case .active:
            hosts[h].probation = nil
            return settle()
        }
    }

    /// The host holds a complete build with this key (listed at admission, or a build finished).
    public mutating func buildCached(host: String, key: String) -> [Action] {
        guard let h = hostIndex[host] else { return [] }
        hosts[h].cached.insert(key)
        hosts[h].building[key] = nil
        return settle()
    }

    /// Job `jobID`, running on `host`, started building `key` there (when the scheduler did not
    /// expect it to, e.g. the cached build was evicted). Other jobs of that key wait for it.
    public mutating func buildStarted(host: String, key: String, jobID: String) -> [Action] {
        guard let h = hostIndex[host], let i = jobIndex[jobID] else { return [] }
        guard case .running(_, host, _) = jobs[i].state else { return [] }
        hosts[h].cached.remove(key)
        hosts[h].building[key] = i
        return []
    }

    /// A build of `key` on `host` ended: cached when it succeeded; either way, jobs of that key may go there again.
    public mutating func buildFinished(host: String, key: String, succeeded: Bool) -> [Action] {
        guard let h = hostIndex[host] else { return [] }
        hosts[h].building[key] = nil
        if succeeded { hosts[h].cached.insert(key) } else { hosts[h].cached.remove(key) }
        return settle()
    }

    /// Same as `hostLost`: an unhealthy host is set aside for the rest of the run.
    public mutating func hostSetAside(_ name: String, reason: String) -> [Action] {
        hostLost(name, reason: reason)
    }

    /// The provisioner will add no more hosts: jobs no live host can take end now.
    public mutating func noMoreHosts() -> [Action] {
        guard options.expectingMoreHosts else { return [] }
        options.expectingMoreHosts = false
        recheckAll = true
        return settle()
    }

    /// Stops handing out jobs: queued jobs end `interrupted`, running attempts are to be cancelled.
    /// A second call does nothing.
    public mutating func interrupt() -> [Action] {
        switch run {
        case .interrupted, .finished:
            return []
        case .notStarted, .running:
            break
        }
        run = .interrupted
        var actions: [Action] = []
        let waiting = queue.sorted { jobs[$0].order < jobs[$1].order }
        queue = []
        for i in waiting {
            actions += finish(i, .interrupted, reason: "interrupted before it ran", dequeue: false)
        }
        for i in jobs.indices {
            switch jobs[i].state {
            case let .running(attempt, host, slot):
                jobs[i].state = .cancelling(attempt: attempt, host: host, slot: slot)
                actions.append(.cancel(jobID: jobs[i].job.id, attempt: attempt, host: host, slot: slot))
            case .queued, .cancelling, .finished:
                break
            }
        }
        actions += settle()
        return actions
    }

    // MARK: Decisions

    /// Applies an attempt's outcome to a job that was running on `host`: final state or requeue.
    private mutating func conclude(_ i: Int, host: String, outcome: AttemptOutcome) -> [Action] {
        let job = jobs[i].job
        switch outcome {
        case .passed:
            let flaky = jobs[i].testFailures > 0
            return finish(i, flaky ? .flaky : .passed,
                          reason: flaky ? "passed on attempt \(jobs[i].attempts) after failing" : nil)
        case .testsFailed:
            jobs[i].testFailures += 1
            jobs[i].testFailedHosts.insert(host)
            if jobs[i].testFailures <= max(0, job.testRetries), !isInterrupted {
                return requeue(i)
            }
            return finish(i, .failed, reason: jobs[i].attempts > 1 ? "tests failed (\(jobs[i].attempts) attempts)" : "tests failed")
        case .discoveryFailed:
            // Deterministic for the build: another attempt would list the same tests. The reason
            // itself is the attempt's problem (`Verdict`), shown once there.
            return finish(i, .failed, reason: "test discovery failed (not retried: the same build lists the same tests)")
        case let .timedOut(phase):
            jobs[i].testFailures += 1
            if jobs[i].testFailures <= max(0, job.testRetries), !isInterrupted {
                return requeue(i)
            }
            return finish(i, .timedOut, reason: "timed out in \(phase.rawValue)")
        case let .infraFailure(failure):
            let message = failure.description
            jobs[i].infraFailures += 1
            jobs[i].excludedHosts.insert(host)
            jobs[i].lastInfraError = message
            if isInterrupted {
                return finish(i, .interrupted, reason: "interrupted; last attempt: \(message)")
            }
            if jobs[i].infraFailures > max(0, job.infraRetries) {
                return finish(i, .infraFailed, reason: "infrastructure failure after \(jobs[i].attempts) attempts: \(message)")
            }
            recheck.append(i)
            return requeue(i)
        }
    }

    private mutating func requeue(_ i: Int) -> [Action] {
        jobs[i].state = .queued
        let at = queue.firstIndex { ordered(i, $0) } ?? queue.count
        queue.insert(i, at: at)
        return []
    }

    /// Ends stranded jobs, hands out free slots, and reports the end of the run.
    private mutating func settle() -> [Action] {
        var actions: [Action] = []
        switch run {
        case .running:
            actions += endStranded()
            actions += dispatch()
        case .notStarted, .interrupted, .finished:
            break
        }
        if unfinished == 0 {
            switch run {
            case .running, .interrupted:
                run = .finished
                actions.append(.runFinished)
            case .notStarted, .finished:
                break
            }
        }
        return actions
    }

    /// Queued jobs that no live host can ever take end now (unless more hosts are expected).
    /// Only jobs whose chances changed are checked: all after a host loss, else the ones requeued after an infra failure.
    private mutating func endStranded() -> [Action] {
        guard !options.expectingMoreHosts else { return [] }
        let candidates: [Int]
        if recheckAll {
            candidates = queue
        } else {
            candidates = recheck
        }
        recheckAll = false
        recheck = []
        guard !candidates.isEmpty else { return [] }
        var actions: [Action] = []
        for i in candidates {
            switch jobs[i].state {
            case .queued: break
            case .running, .cancelling, .finished: continue
            }
            let capable = capableHosts(for: i)
            if capable.isEmpty {
                let record = jobs[i]
                if record.attempts == 0 {
                    actions += finish(i, .unschedulable, reason: unschedulableReason(record.job), dequeue: false)
                } else {
                    let last = record.lastInfraError.map { "; last failure: \($0)" } ?? ""
                    actions += finish(i, .infraFailed, reason: "no host left that can take it after \(record.attempts) attempts\(last)", dequeue: false)
                }
            } else if !options.sameHostRetryWhenNoOther, capable.allSatisfy({ jobs[i].excludedHosts.contains(hosts[$0].host.name) }) {
                let last = jobs[i].lastInfraError.map { ": \($0)" } ?? ""
                actions += finish(i, .infraFailed, reason: "infrastructure failure after \(jobs[i].attempts) attempts, no other host to rerun on\(last)", dequeue: false)
            }
        }
        queue.removeAll { i in
            switch jobs[i].state {
            case .finished: return true
            case .queued, .running, .cancelling: return false
            }
        }
        return actions
    }

    /// Offers free slots to queued jobs, longest first. When builds are known, three passes: first
    /// the jobs that can work at once (`DispatchPass.ready`), then those whose build is cached or
    /// incremental on a host with a free slot, then the rest — a free slot goes to a job that needs
    /// no cold build there before one that does, and no slot stays free for it (so it never delays the run).
    private mutating func dispatch() -> [Action] {
        guard freeSlotCount() > 0, !queue.isEmpty else { return [] }
        guard queue.contains(where: { jobs[$0].job.build != nil }) else { return dispatch(.any) }
        return dispatch(.ready) + dispatch(.cheap) + dispatch(.any)
    }

    private mutating func dispatch(_ pass: DispatchPass) -> [Action] {
        var free = freeSlotCount()
        guard free > 0, !queue.isEmpty else { return [] }
        var actions: [Action] = []
        var remaining: [Int] = []
        remaining.reserveCapacity(queue.count)
        for (k, i) in queue.enumerated() {
            guard free > 0 else {
                remaining.append(contentsOf: queue[k...])
                break
            }
            guard let (h, slot) = placement(for: i) else {
                remaining.append(i)
                continue
            }
            if pass != .any, let build = jobs[i].job.build, case let source = Scheduler.source(build, cached: hosts[h].cached),
               source == .cold || (pass == .ready && source != .cached && hosts[h].building.count >= Scheduler.buildQueue) {
                remaining.append(i)
                continue
            }
            switch hosts[h].state {
            case var .active(slots):
                slots[slot] = jobs[i].job.id
                hosts[h].state = .active(slots: slots)
            case .gone:
                remaining.append(i)
                continue
            }
            jobs[i].attempts += 1
            if let key = jobs[i].job.build?.key, !hosts[h].cached.contains(key) { hosts[h].building[key] = i }
            let name = hosts[h].host.name
            jobs[i].state = .running(attempt: jobs[i].attempts, host: name, slot: slot)
            actions.append(.start(jobID: jobs[i].job.id, attempt: jobs[i].attempts, host: name, slot: slot))
            free -= 1
        }
        queue = remaining
        return actions
    }

    /// Where job `i` should start now, or nil to keep it queued.
    private func placement(for i: Int) -> (host: Int, slot: Int)? {
        let capable = capableHosts(for: i)
        let fresh = capable.filter { !jobs[i].excludedHosts.contains(hosts[$0].host.name) }
        let candidates: [Int]
        if !fresh.isEmpty {
            candidates = fresh
        } else if options.sameHostRetryWhenNoOther, !options.expectingMoreHosts {
            candidates = capable
        } else {
            return nil
        }
        let key = jobs[i].job.build?.key
        var best: (host: Int, slot: Int, free: Int, build: Double)?
        // A rerun after test failures goes to a host where the tests have not failed, when one has a
        // free slot now (a host-specific cause shows as a pass elsewhere); otherwise anywhere.
        let failedOn = jobs[i].testFailedHosts
        func failedHere(_ h: Int) -> Bool { failedOn.contains(hosts[h].host.name) }
        for h in candidates {
            guard hosts[h].probation == nil, case let .active(slots) = hosts[h].state,
                  let slot = slots.firstIndex(where: { $0 == nil }) else { continue }
            // At most one build of a key per host in flight: the others wait for it or go elsewhere.
            if let key, !hosts[h].cached.contains(key), hosts[h].building[key] != nil { continue }
            let free = slots.reduce(0) { $0 + ($1 == nil ? 1 : 0) }
            let build = buildSeconds(i, host: h)
            if let current = best {
                if failedHere(h) != failedHere(current.host) {
                    if !failedHere(h) { best = (h, slot, free, build) }
                    continue
                }
                if build != current.build {
                    if build < current.build { best = (h, slot, free, build) }
                    continue
                }
                let a = (free, -hosts[h].labels.count, -hosts[h].order)
                let b = (current.free, -hosts[current.host].labels.count, -hosts[current.host].order)
                if a > b { best = (h, slot, free, build) }
            } else {
                best = (h, slot, free, build)
            }
        }
        return best.map { ($0.host, $0.slot) }
    }

    /// Live hosts with at least one slot and every label job `i` requires.
    private func capableHosts(for i: Int) -> [Int] {
        let requires = jobs[i].job.requires
        return hosts.indices.filter { h in
            switch hosts[h].state {
            case let .active(slots):
                return !slots.isEmpty && requires.allSatisfy { hosts[h].labels.contains($0) }
            case .gone:
                return false
            }
        }
    }

    private func freeSlotCount() -> Int {
        hosts.reduce(0) { sum, record in
            switch record.state {
            case let .active(slots): return record.probation != nil ? sum : sum + slots.reduce(0) { $0 + ($1 == nil ? 1 : 0) }
            case .gone: return sum
            }
        }
    }

    private mutating func freeSlot(host: String, slot: Int) {
        guard let h = hostIndex[host] else { return }
        switch hosts[h].state {
        case var .active(slots):
            if slots.indices.contains(slot) {
                slots[slot] = nil
                hosts[h].state = .active(slots: slots)
            }
        case .gone:
            break
        }
    }

    /// Job `i`'s attempt on `host` ended: its build there is no longer in flight (cached when it passed).
    private mutating func endBuilds(of i: Int, host: String, passed: Bool) {
        guard let h = hostIndex[host] else { return }
        for (key, j) in hosts[h].building where j == i { hosts[h].building[key] = nil }
        if passed, let key = jobs[i].job.build?.key { hosts[h].cached.insert(key) }
    }

    /// Seconds job `i`'s build costs on host `h` now (0 for a job without a build key).
    func buildSeconds(_ i: Int, host h: Int) -> Double {
        guard let build = jobs[i].job.build else { return 0 }
        return build.seconds(Scheduler.source(build, cached: hosts[h].cached))
    }

    private mutating func finish(_ i: Int, _ state: JobFinalState, reason: String?, dequeue: Bool = true) -> [Action] {
        let wasQueued: Bool
        switch jobs[i].state {
        case .finished:
            return []
        case .queued:
            wasQueued = true
        case .running, .cancelling:
            wasQueued = false
        }
        jobs[i].state = .finished(state)
        unfinished -= 1
        if dequeue, wasQueued { queue.removeAll { $0 == i } }
        return [.jobFinished(jobID: jobs[i].job.id, state: state, attempts: jobs[i].attempts, reason: reason)]
    }

    private mutating func addHost(_ host: SchedulerHost) {
        guard hostIndex[host.name] == nil else { return }
        hostIndex[host.name] = hosts.count
        hosts.append(HostRecord(host: host, labels: Set(host.labels), order: hosts.count,
                                state: .active(slots: Array(repeating: nil, count: Scheduler.slotCount(host)))))
    }
}
