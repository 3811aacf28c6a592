import Foundation
import XCFleetModel

/// The run's slot leases at its end: the last cleanups release them in their own execs.
extension RunCoordinator {
    /// At a cleanup after the run's last verdict: the host's slot leases that no other slot still
    /// uses (this attempt's and idle ones), for the cleanup's exec to release. Nil while jobs may
    /// still need them; a slot whose cleanup is still running keeps its lease for now.
    func leasesToRelease(host: String, slot: Int) async -> SlotRelease? {
        guard finished, let leases, let mapping = leaseSlots[host], mapping.indices.contains(slot) else { return nil }
        var keeping = Set<Int>()
        for key in slotTasks.keys where key.hasPrefix(host + "#") {
            guard let other = Int(key.dropFirst(host.count + 1)), other != slot else { continue }
            guard mapping.indices.contains(other) else { return nil }
            keeping.insert(mapping[other])
        }
        return await leases.handOver(host: host, keeping: keeping)
    }

    /// The cleanup that carried `release` ended (`HostLeaseManager.settle`).
    func settled(_ release: SlotRelease, reply: (lines: [[String]], status: Int32)?) async {
        guard let leases, let problem = await leases.settle(release, reply: reply) else { return }
        log.append(.note("releasing the slot lease on \(release.host) failed: \(problem)"))
    }
}
