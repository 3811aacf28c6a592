import Foundation
import XCFleetBasics
import XCFleetModel

/// The scheduler's vocabulary — its options, the actions it returns, the outcomes it is told and
/// the job states it shows — and the pure helpers its decisions use (`Scheduler.swift` holds the
/// machine itself).
extension Scheduler {
    public struct Options: Equatable, Sendable {
        /// Expected duration of a job with no history and no sibling with history in its suite.
        public var defaultExpectedSeconds: Double
        /// A provisioner may still add hosts: wait for `noMoreHosts()` before declaring a job unschedulable.
        public var expectingMoreHosts: Bool
        /// After an infrastructure failure with no other capable host left, rerun on a host it already failed on.
        public var sameHostRetryWhenNoOther: Bool

        public init(defaultExpectedSeconds: Double = 60, expectingMoreHosts: Bool = false, sameHostRetryWhenNoOther: Bool = true) {
            self.defaultExpectedSeconds = defaultExpectedSeconds
            self.expectingMoreHosts = expectingMoreHosts
            self.sameHostRetryWhenNoOther = sameHostRetryWhenNoOther
        }
    }

    /// Which queued jobs one pass of placement offers free slots to.
    enum DispatchPass: Equatable, Sendable {
        /// Jobs that can work at once: their build is cached on the host, or they build it while
        /// fewer than `buildQueue` of the host's jobs are in their builds. A host compiles one build
        /// at a time (its build lock), so a further job that must build would only wait at the lock
        /// while a slot could run a job with its build there (a probe's repetition, a shard).
        case ready
        /// Jobs whose build is cached or incremental on the host.
        case cheap
        /// Every job.
        case any
    }

    /// Jobs of one host in their builds that keep its build lock busy: one compiles, one waits.
    static let buildQueue = 2

    /// What the runner must do, in the order returned.
    public enum Action: Equatable, Sendable {
        case start(jobID: String, attempt: Int, host: String, slot: Int)
        case cancel(jobID: String, attempt: Int, host: String, slot: Int)
        /// `attempts`: how many attempts were started (0 for unschedulable or never-run interrupted jobs).
        case jobFinished(jobID: String, state: JobFinalState, attempts: Int, reason: String?)
        case runFinished
    }

    /// How one attempt ended, as the runner judged it.
    public enum AttemptOutcome: Equatable, Sendable {
        case passed
        case testsFailed
        /// A deadline expired (build, test, output silence, …). Counts like a test failure; map
        /// connect/push deadlines that mean "host unreachable" to `infraFailure` to rerun elsewhere.
        case timedOut(phase: Phase)
        /// Connection lost, host unreachable, push failed, toolchain missing, process killed by the
        /// host, simulator wedged, cancelled (`AttemptFailure`).
        case infraFailure(AttemptFailure)
        /// The build's tests could not be discovered (listing them failed, none is enabled, the
        /// filter selects none): the same for every attempt of that build, so never retried, not
        /// even under `retries.testFailures`. The reason is the attempt's problem (`Verdict`).
        case discoveryFailed(String)
    }

    /// A job's state as seen from outside (for the runner's progress display and for tests).
    public enum JobStatus: Equatable, Sendable {
        case queued
        case running(attempt: Int, host: String, slot: Int)
        case cancelling(attempt: Int, host: String, slot: Int)
        case finished(JobFinalState)
    }

    package static func source(_ build: SchedulerJob.Build, cached: Set<String>) -> BuildSource {
        if cached.contains(build.key) { return .cached }
        if let base = build.bases.first(where: { cached.contains($0) }) { return .incremental(from: base) }
        return .cold
    }

    /// Each job's expected duration: its own; else the median of its suite's known ones; else the
    /// median of all known ones; else `fallback`. Non-finite or negative values count as unknown.
    package static func expectedDurations(for jobs: [SchedulerJob], default fallback: Double) -> [Double] {
        func known(_ job: SchedulerJob) -> Double? {
            guard let s = job.expectedSeconds, s.isFinite, s >= 0 else { return nil }
            return s
        }
        var bySuite: [String: [Double]] = [:]
        for job in jobs { if let s = known(job) { bySuite[job.suite, default: []].append(s) } }
        let overall = Statistics.median(jobs.compactMap(known))
        let safeDefault = fallback.isFinite && fallback >= 0 ? fallback : 60
        return jobs.map { job in
            known(job) ?? Statistics.median(bySuite[job.suite] ?? []) ?? overall ?? safeDefault
        }
    }

    /// Slots beyond this per host are ignored (a fleet file cannot make the scheduler allocate without bound).
    public static let maxSlotsPerHost = 256

    static func slotCount(_ host: SchedulerHost) -> Int {
        min(max(0, host.slots), maxSlotsPerHost)
    }

    /// Each job's rank (see `ordered`): the expected seconds of all jobs of its build key for the
    /// first of two or more jobs that share that key, otherwise its own expected seconds.
    static func ranks(_ jobs: [(key: String?, expected: Double)]) -> [Double] {
        var ranks = jobs.map(\.expected)
        var first: [String: Int] = [:], shared: [String: (count: Int, seconds: Double)] = [:]
        for (i, job) in jobs.enumerated() {
            guard let key = job.key else { continue }
            if first[key] == nil { first[key] = i }
            shared[key, default: (0, 0)].count += 1
            shared[key, default: (0, 0)].seconds += job.expected
        }
        for (key, i) in first { if let group = shared[key], group.count > 1 { ranks[i] = group.seconds } }
        return ranks
    }

    /// Longest expected first; among equals, the job whose build lets more work start (`rank`: a
    /// host builds one key at a time, so the build other jobs wait for goes early and their tests
    /// overlap the other builds); then input order.
    func ordered(_ a: Int, _ b: Int) -> Bool {
        let x = jobs[a], y = jobs[b]
        if x.expected != y.expected { return x.expected > y.expected }
        if x.rank != y.rank { return x.rank > y.rank }
        return x.order < y.order
    }
}
