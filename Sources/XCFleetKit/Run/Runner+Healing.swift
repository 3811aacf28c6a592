import Foundation
import XCFleetBasics
import XCFleetModel
import XCFleetCore
import XCFleetHostScripts

// MARK: - Healing: probation, probes, re-admission, orphaned process groups

extension RunCoordinator {
    /// Probation 15 s; probes after 0.5 s, the wait doubled after each failed probe up to 8 s.
    static let recoveryTiming = HostRecovery.Timing(probationSeconds: 15, firstDelay: 0.5, maxDelay: 8)

    /// The attempt's process record on `host` (nil when the host holds no lease of this run).
    func processRecord(host: HostSpec, token: String) async -> AttemptExecutor.ProcessRecord? {
        guard let leases, let lease = await leases.leaseID(host: host.name) else { return nil }
        return AttemptExecutor.ProcessRecord(leaseRoot: HostLeaseManager.leaseRoot(host), lease: lease, runID: runID, token: token)
    }

    /// Seconds on a monotonic clock, for the host-recovery machines.
    private var now: Double { ProcessInfo.processInfo.systemUptime }

    /// An attempt on `host` ended with an infrastructure failure: the host goes on probation (the
    /// scheduler places nothing there) before the attempt is reported, and is probed until it
    /// passes a health check again or stays unreachable past the probation (then set aside).
    func suspect(_ host: String, reason: String) {
        guard !wasInterrupted, !finished, let spec = hosts[host], scheduler.activeHosts.contains(host) else { return }
        var recovery = recoveries[host] ?? HostRecovery(timing: Self.recoveryTiming)
        let actions = recovery.suspected(reason: reason, now: now)
        recoveries[host] = recovery
        applyRecovery(actions, spec)
    }

    /// `spec` could not be reached at admission: probed with backoff while work is queued, and admitted when back.
    func startRecovery(_ spec: HostSpec) {
        guard !finished, !wasInterrupted else { return }
        var recovery = recoveries[spec.name] ?? HostRecovery(timing: Self.recoveryTiming)
        let actions = recovery.unreachable()
        recoveries[spec.name] = recovery
        applyRecovery(actions, spec)
    }

    /// Performs a host-recovery machine's actions.
    private func applyRecovery(_ actions: [HostRecovery.Action], _ spec: HostSpec) {
        for action in actions {
            switch action {
            case .markUnreachable(let reason):
                log.append(.hostProbation(host: spec.name, reason: reason))
                apply(scheduler.hostUnreachable(spec.name, reason: reason))
            case .wait(let seconds):
                recovering[spec.name] = Task {
                    try? await Task.sleep(nanoseconds: UInt64(seconds * 1_000_000_000))
                    await self.recoveryWaited(spec)
                }
            case .probe:
                recovering[spec.name] = Task {
                    let problem = await self.probe(spec)
                    await self.probed(spec, problem: problem)
                }
            case .setAside(let reason):
                setAside(spec.name, reason: reason)
            case .rejoin:
                recovering[spec.name] = nil
                if scheduler.isOnProbation(spec.name) {
                    apply(scheduler.hostRecovered(spec.name))
                } else if let joined = rejoining.removeValue(forKey: spec.name) {
                    apply(scheduler.hostJoined(joined))
                }
            }
        }
    }

    private func recoveryWaited(_ spec: HostSpec) {
        guard !Task.isCancelled, !finished, !wasInterrupted, var recovery = recoveries[spec.name] else { return }
        let actions = recovery.waited(now: now, workQueued: scheduler.hasQueuedJobs)
        recoveries[spec.name] = recovery
        applyRecovery(actions, spec)
    }

    private func probed(_ spec: HostSpec, problem: String?) {
        guard !Task.isCancelled, !finished, !wasInterrupted, var recovery = recoveries[spec.name] else { return }
        let actions = problem.map { recovery.probeFailed($0, now: now) } ?? recovery.probePassed()
        recoveries[spec.name] = recovery
        applyRecovery(actions, spec)
    }

    /// One probe: connect, health check, leases (which also reaps dead runs' process records),
    /// then this run's own orphaned process groups there. Nil when the host rejoined, else why not.
    private func probe(_ spec: HostSpec) async -> String? {
        guard let leases else { return "no lease manager" }
        let factory = shellFactory
        let timeouts = admissionTimeouts
        let shell: any RemoteShell
        do {
            shell = try await withDeadline(timeouts.connect, phase: .connect, host: spec.name) { try await factory(spec, timeouts) }
        } catch {
            return (error as? RemoteShellError)?.description ?? "\(error)"
        }
        switch await HostAdmission.admit(spec, shell: shell, runID: runID, leases: leases, minimumFreeBytes: minimumFreeBytes) {
        case .setAside(let reason):
            await shell.close()
            return reason
        case .admitted(let schedulerHost, _, let health, let acquisition):
            let keep = attemptTokens.values.filter { $0.host == spec.name }.map(\.token)
            let reaped: [ProcessRecordReport]
            do { reaped = try await leases.reapOwnRecords(shell: shell, keep: keep) } catch {
                await shell.close()
                return "\(error)"
            }
            guard !finished, !wasInterrupted, !Task.isCancelled else {
                await shell.close()
                return nil
            }
            hosts[spec.name] = spec
            if shells["\(spec.name)#0"] == nil { shells["\(spec.name)#0"] = shell } else { await shell.close() }
            for r in acquisition.reaped { log.append(.note("\(spec.name): reaped the process record of a dead run: \(r)")) }
            for r in acquisition.ignored { log.append(.note("\(spec.name): ignored the process record \(r)")) }
            for r in reaped {
                switch r {
                case .reaped: log.append(.note("\(spec.name): killed the orphaned process group of an attempt lost earlier: \(r.text)"))
                case .ignored: log.append(.note("\(spec.name): ignored the process record \(r.text)"))
                }
            }
            log.append(.hostAdmitted(HostProfile(host: spec.name, health: health))) // a host first set aside is billed from here
            log.append(.hostRejoined(host: spec.name))
            noteCachedBuilds(on: spec.name, keys: schedulerBuildKeys(cached: health.cachedBuildKeys, toolchain: health.toolchainIdentity))
            rejoining[spec.name] = schedulerHost // joined by the recovery machine's `.rejoin`
            return nil
        }
    }
}
