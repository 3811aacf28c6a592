import XCTest
@testable import XCFleetKit
import XCFleetTestSupport

/// Admission of a real local host: healthy and leased, fully leased by another run, unhealthy.
final class HostAdmissionTests: XCTestCase {
    private func host(slots: Int, _ name: String = #function) throws -> HostSpec {
        var host = HostSpec.local
        host.slots = slots
        host.workRoot = try TestPaths.temporaryDirectory(name).path
        if FileManager.default.isExecutableFile(atPath: "/opt/swift/usr/bin/swift") { host.toolchain.swiftPath = "/opt/swift/usr/bin/swift" }
        return host
    }

    func testAHealthyHostJoinsWithItsLeasedSlotsAndABusyOneIsSetAside() async throws {
        let host = try host(slots: 2)
        let shell = LocalShell(host: host)
        let first = HostLeaseManager(holder: LeaseHolder(hostname: "machine-a", pid: 1))
        guard case let .admitted(joined, leaseSlots, health, _) = await HostAdmission.admit(host, shell: shell, runID: "run-a", leases: first, minimumFreeBytes: 1) else {
            return XCTFail("a healthy host with free slots is admitted")
        }
        XCTAssertEqual(joined, SchedulerHost(name: "local", labels: host.labels, slots: 2))
        XCTAssertEqual(leaseSlots, [0, 1])
        XCTAssertTrue(health.isHealthy)

        let second = HostLeaseManager(holder: LeaseHolder(hostname: "machine-b", pid: 2))
        guard case let .setAside(reason) = await HostAdmission.admit(host, shell: shell, runID: "run-b", leases: second, minimumFreeBytes: 1) else {
            return XCTFail("every slot is leased by run-a")
        }
        XCTAssertEqual(reason, "all 2 slot(s) are leased by other runs (held by run run-a from machine-a)")
        await first.release()
        guard case let .admitted(afterRelease, _, _, _) = await HostAdmission.admit(host, shell: shell, runID: "run-b", leases: second, minimumFreeBytes: 1) else {
            return XCTFail("free again after release")
        }
        XCTAssertEqual(afterRelease.slots, 2)
        await second.release()
    }

    /// The built-in local host (no fleet file) leases three slots: one compiles, one waits at the
    /// build lock, one tests.
    func testTheBuiltInLocalHostIsAdmittedWithThreeSlots() async throws {
        var host = HostSpec.local
        host.workRoot = try TestPaths.temporaryDirectory(#function).path
        if FileManager.default.isExecutableFile(atPath: "/opt/swift/usr/bin/swift") { host.toolchain.swiftPath = "/opt/swift/usr/bin/swift" }
        let leases = HostLeaseManager()
        guard case let .admitted(joined, leaseSlots, _, _) = await HostAdmission.admit(host, shell: LocalShell(host: host), runID: "r", leases: leases, minimumFreeBytes: 1) else {
            return XCTFail("the local host is admitted")
        }
        XCTAssertEqual(joined.slots, 3)
        XCTAssertEqual(leaseSlots, [0, 1, 2])
        await leases.release()
    }

    func testAnUnhealthyHostIsSetAsideWithoutTakingLeases() async throws {
        var host = try host(slots: 1)
        host.toolchain.swiftPath = "/nonexistent/swift"
        let manager = HostLeaseManager()
        guard case let .setAside(reason) = await HostAdmission.admit(host, shell: LocalShell(host: host), runID: "r", leases: manager, minimumFreeBytes: 1) else {
            return XCTFail("a host without its toolchain is set aside")
        }
        XCTAssertTrue(reason.hasPrefix("unhealthy: toolchain missing: /nonexistent/swift --version failed"), reason)
        XCTAssertFalse(FileManager.default.fileExists(atPath: HostLeaseManager.leaseRoot(host) + "/slot-0"))
    }
}
