import Foundation
import XCFleetModel
import XCFleetCore
import XCFleetHostScripts

/// Lets a host into a run before its first job: the health check, then the slot leases, in one
/// round trip (the first lease request is chained after the probe on the same exec channel). The
/// runner calls it once per host (static or provisioned) with a shell it opened for the host, and
/// turns the outcome into `Scheduler.hostJoined` or `Scheduler.hostSetAside`.
public enum HostAdmission {
    public enum Outcome: Sendable {
        /// Join the scheduler with `host` (its `slots` is the number of leased slots);
        /// `leaseSlots[i]` is the on-host lease behind scheduler slot `i`.
        case admitted(host: SchedulerHost, leaseSlots: [Int], health: HostHealth.Result, leases: LeaseAcquisition)
        /// Not usable by this run; `reason` says why (unhealthy, or every slot leased by other runs).
        case setAside(reason: String)
    }

    /// `waitForSlots`: when every slot is leased by other live runs, keep asking (every 2 s) for up
    /// to this many seconds before setting the host aside — two runs sharing a fleet take turns.
    public static func admit(_ host: HostSpec, shell: any RemoteShell, runID: String, leases: HostLeaseManager,
                             minimumFreeBytes: Int64 = HostHealth.defaultMinimumFreeBytes,
                             waitForSlots: Double = 0) async -> Outcome {
        // One round trip: the probe, then the first lease request on the same exec channel.
        let first: ShellCommand
        let heldBefore = await leases.heldSlots(host: host.name)
        do { first = try await leases.acquireCommand(shell: shell, slots: host.slots, runID: runID) } catch {
            return .setAside(reason: "\(error)")
        }
        // The lease request runs only when the work root and the lease folder are private (as the
        // probe also judges): no slot is taken in a folder others could write.
        let guarded = ShellCommand(["sh", "-c", WorkRootSafety.shellFunctions + "xcf_private \"$1\" && xcf_private \"$2\" || exit 97; shift 2; exec \"$@\"",
                                    "sh", host.workRoot, HostLeaseManager.leaseRoot(host)] + first.arguments)
        let (health, reply) = await HostHealth.check(shell: shell, host: host, minimumFreeBytes: minimumFreeBytes, then: guarded)
        if let reason = health.reason {
            // Slots the chained request took on a host this run did not hold go back at once (a
            // host re-admitted after probation keeps the leases it holds).
            if let reply, heldBefore.isEmpty {
                _ = try? await leases.acquireReporting(shell: shell, slots: host.slots, runID: runID, firstReply: reply)
                await leases.release(host: host.name)
            }
            return .setAside(reason: "unhealthy: \(reason)")
        }
        var acquisition: LeaseAcquisition
        let giveUp = Date().addingTimeInterval(waitForSlots)
        var firstReply = reply
        while true {
            do {
                acquisition = try await leases.acquireReporting(shell: shell, slots: host.slots, runID: runID, firstReply: firstReply)
                firstReply = nil
            } catch {
                return .setAside(reason: "\(error)")
            }
            guard acquisition.slots.isEmpty, !acquisition.busy.isEmpty, Date() < giveUp, !Task.isCancelled else { break }
            try? await Task.sleep(nanoseconds: 2_000_000_000)
        }
        guard !acquisition.slots.isEmpty else {
            let holders = Set(acquisition.busy.map { "run \($0.runID) from \($0.holderHost)" }).sorted()
            let detail = holders.isEmpty ? acquisition.errors.joined(separator: "; ") : "held by " + holders.joined(separator: ", ")
            return .setAside(reason: "all \(host.slots) slot(s) are leased by other runs (\(detail))")
        }
        return .admitted(host: SchedulerHost(name: host.name, labels: host.labels, slots: acquisition.slots.count),
                         leaseSlots: acquisition.slots, health: health, leases: acquisition)
    }
}
