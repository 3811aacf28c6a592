import Foundation
import XCFleetBasics
import XCFleetModel

/// What the scheduler shows without changing anything: job states, builds per host, expected
/// durations, probation (for the runner's progress display and for tests).
extension Scheduler {
    /// True once every job has its final state (`.runFinished` was returned).
    public var isFinished: Bool { run == .finished }

    /// True after `interrupt()`.
    public var isInterrupted: Bool {
        switch run {
        case .interrupted: return true
        case .notStarted, .running, .finished: return false
        }
    }

    /// Queued job ids in the order they will be offered to hosts.
    public var queuedJobIDs: [String] { queue.map { jobs[$0].job.id } }

    public func status(ofJob id: String) -> JobStatus? {
        guard let i = jobIndex[id] else { return nil }
        switch jobs[i].state {
        case .queued: return .queued
        case let .running(attempt, host, slot): return .running(attempt: attempt, host: host, slot: slot)
        case let .cancelling(attempt, host, slot): return .cancelling(attempt: attempt, host: host, slot: slot)
        case let .finished(state): return .finished(state)
        }
    }

    /// The duration used to order this job (its own, its suite's median, or the default).
    /// The job's build, as given (nil: unknown job, or no build key).
    public func build(ofJob id: String) -> SchedulerJob.Build? {
        jobIndex[id].flatMap { jobs[$0].job.build }
    }

    public func expectedSeconds(ofJob id: String) -> Double? {
        jobIndex[id].map { jobs[$0].expected }
    }

    /// Names of hosts that can take jobs now.
    public var activeHosts: [String] {
        hosts.compactMap { record in
            switch record.state {
            case .active: return record.probation == nil ? record.host.name : nil
            case .gone: return nil
            }
        }
    }

    /// Names of live hosts on probation (no new attempts until `hostRecovered`).
    public var hostsOnProbation: [String] {
        hosts.compactMap { record in
            switch record.state {
            case .active: return record.probation == nil ? nil : record.host.name
            case .gone: return nil
            }
        }
    }

    /// Whether `host` is live but on probation.
    public func isOnProbation(_ host: String) -> Bool {
        guard let h = hostIndex[host] else { return false }
        guard case .active = hosts[h].state else { return false }
        return hosts[h].probation != nil
    }

    /// True while jobs wait in the queue (the runner keeps probing set-aside hosts meanwhile).
    public var hasQueuedJobs: Bool { !queue.isEmpty }

    /// Where job `id`'s build would come from on `host` now; nil for a job without a build key or an unknown job/host.
    public func buildSource(ofJob id: String, onHost host: String) -> BuildSource? {
        guard let i = jobIndex[id], let h = hostIndex[host], let build = jobs[i].job.build else { return nil }
        return Scheduler.source(build, cached: hosts[h].cached)
    }

    /// The job's expected seconds on `host`: its tests plus its build as that host would get it.
    public func expectedSeconds(ofJob id: String, onHost host: String) -> Double? {
        guard let i = jobIndex[id], hostIndex[host] != nil else { return nil }
        return jobs[i].expected + buildSeconds(i, host: hostIndex[host] ?? 0)
    }

    /// Build keys cached on `host`, sorted.
    public func cachedBuilds(onHost host: String) -> [String] {
        hostIndex[host].map { hosts[$0].cached.sorted() } ?? []
    }

    /// Build keys being built on `host`, sorted.
    public func buildsInFlight(onHost host: String) -> [String] {
        hostIndex[host].map { hosts[$0].building.keys.sorted() } ?? []
    }

    /// Why a job cannot be placed: what it needs, and which hosts that had it are gone.
    func unschedulableReason(_ job: SchedulerJob) -> String {
        let needs = Array(Set(job.requires)).sorted()
        let what = needs.isEmpty ? "needs a host" : "needs " + needs.joined(separator: ", ")
        let gone = hosts.compactMap { record -> String? in
            switch record.state {
            case .active: return nil
            case let .gone(reason):
                return record.host.slots > 0 && record.host.satisfies(job.requires) ? "\(record.host.name) (\(reason))" : nil
            }
        }
        return gone.isEmpty ? what : what + "; the hosts that had it are gone: " + gone.joined(separator: ", ")
    }
}
