import Foundation
import XCTest
@testable import XCFleetKit
import XCFleetTestSupport

/// Process records (`ProcessRecordScript`) on a real host directory through `LocalShell`: real
/// `perl`, `ps` and process groups. A dead run's recorded group is killed at the next admission
/// (and a live run's is not), a reused pid is never killed, and a holder's own reap keeps the
/// attempts still running.
final class ProcessRecordTests: XCTestCase {
    private func shell(_ name: String = #function) throws -> LocalShell {
        var host = HostSpec.local
        host.workRoot = try TestPaths.temporaryDirectory(name).path
        return LocalShell(host: host)
    }

    /// A pid that was just used and is gone now.
    private func deadPID() throws -> Int32 {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/bin/true")
        try p.run()
        p.waitUntilExit()
        return p.processIdentifier
    }

    private func isLive(_ pid: Int32) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8) else { return false }
        return stat.split(separator: ")").last?.split(separator: " ").first != "Z"
    }

    private func record(_ path: String) -> [String: String] {
        let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
        var fields: [String: String] = [:]
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: "=", maxSplits: 1).map(String.init)
            if parts.count == 2 { fields[parts[0]] = parts[1] }
        }
        return fields
    }

    /// Starts `sleep 60` as a recorded attempt of `manager`'s lease; returns the task and the record's path once written.
    private func startRecorded(_ shell: LocalShell, _ manager: HostLeaseManager, token: String) async throws -> (Task<CommandTermination, Error>, String) {
        let held = await manager.leaseID(host: shell.host.name)
        let lease = try XCTUnwrap(held)
        let dir = ProcessRecordScript.directory(leaseRoot: HostLeaseManager.leaseRoot(shell.host), lease: lease)
        let jobDir = shell.host.workRoot + "/\(token).job"
        try FileManager.default.createDirectory(atPath: jobDir, withIntermediateDirectories: true)
        let command = ProcessRecordScript.wrap(ShellCommand(["sleep", "60"]), directory: dir, token: token, runID: "run", lease: lease)
        let task = Task { try await shell.run(command, in: jobDir, deadlines: CommandDeadlines(total: 120, silence: 120)) { _ in } }
        let path = dir + "/" + token
        let end = Date().addingTimeInterval(10)
        while !FileManager.default.fileExists(atPath: path), Date() < end { try await Task.sleep(nanoseconds: 20_000_000) }
        XCTAssertTrue(FileManager.default.fileExists(atPath: path), "no record at \(path)")
        return (task, path)
    }

    func testADeadRunsGroupIsKilledAtTheNextAdmissionAndALiveRunsIsNot() async throws {
        let shell = try shell()
        let me = LeaseHolder.current
        let dead = HostLeaseManager(holder: LeaseHolder(hostname: me.hostname, pid: try deadPID()))
        let live = HostLeaseManager(holder: me)
        _ = try await dead.acquire(shell: shell, slots: 1, runID: "dead-run")
        _ = try await live.acquireReporting(shell: shell, slots: 2, runID: "live-run")
        let (deadTask, deadRecord) = try await startRecorded(shell, dead, token: "gate-a1")
        let (liveTask, liveRecord) = try await startRecorded(shell, live, token: "gate-a2")
        let deadGroup = try XCTUnwrap(Int32(record(deadRecord)["pgid"] ?? ""))
        let liveGroup = try XCTUnwrap(Int32(record(liveRecord)["pgid"] ?? ""))
        XCTAssertEqual(record(deadRecord)["dir"], shell.host.workRoot + "/gate-a1.job")
        XCTAssertTrue(isLive(deadGroup) && isLive(liveGroup))

        // The next run's admission: the dead holder's group is killed and its job folder removed.
        let next = HostLeaseManager(holder: me)
        let acquisition = try await next.acquireReporting(shell: shell, slots: 3, runID: "next-run")
        // (The dead holder's slot lease itself was already reclaimed by the live run's acquire;
        // its process record stays until an admission finds no live lease for it.)
        XCTAssertEqual(acquisition.reaped, ["gate-a1 \(deadGroup) killed"])
        let ended = try await deadTask.value
        XCTAssertEqual(ended, .signaled("SIGTERM"))
        XCTAssertFalse(isLive(deadGroup))
        XCTAssertFalse(FileManager.default.fileExists(atPath: deadRecord))
        XCTAssertFalse(FileManager.default.fileExists(atPath: shell.host.workRoot + "/gate-a1.job"))
        // The live run's attempt is untouched.
        XCTAssertTrue(isLive(liveGroup), "a live run's process was killed")
        XCTAssertTrue(FileManager.default.fileExists(atPath: liveRecord))

        // Its own end: `finish` kills leftovers of the group and removes the record.
        let held = await live.leaseID(host: shell.host.name)
        let lease = try XCTUnwrap(held)
        let lines = try await HostLeaseManager.perform(ProcessRecordScript.finish(leaseRoot: HostLeaseManager.leaseRoot(shell.host), lease: lease, token: "gate-a2"),
                                                       on: shell, deadlines: CommandDeadlines(total: 30, silence: 30))
        XCTAssertEqual(lines, [["reaped", "gate-a2", "\(liveGroup)", "killed"]])
        _ = try await liveTask.value
        XCTAssertFalse(isLive(liveGroup))
        _ = await live.release()
        _ = await next.release()
    }

    /// A stopped (SIGSTOP) group dies too: TERM is followed by CONT, then KILL if needed.
    /// And a holder's own reap (a host reachable again) keeps the attempts named as still running.
    func testOwnReapKillsAStoppedGroupAndKeepsRunningAttempts() async throws {
        let shell = try shell()
        let manager = HostLeaseManager(holder: LeaseHolder.current)
        _ = try await manager.acquire(shell: shell, slots: 2, runID: "run")
        let (lostTask, lostRecord) = try await startRecorded(shell, manager, token: "a-a1")
        let (keptTask, keptRecord) = try await startRecorded(shell, manager, token: "b-a1")
        let lostGroup = try XCTUnwrap(Int32(record(lostRecord)["pgid"] ?? ""))
        let keptGroup = try XCTUnwrap(Int32(record(keptRecord)["pgid"] ?? ""))
        XCTAssertEqual(kill(-lostGroup, SIGSTOP), 0)
        let reaped = try await manager.reapOwnRecords(shell: shell, keep: ["b-a1"])
        XCTAssertEqual(reaped, ["a-a1 \(lostGroup) killed"])
        _ = try await lostTask.value
        XCTAssertFalse(isLive(lostGroup))
        XCTAssertTrue(isLive(keptGroup))
        XCTAssertTrue(FileManager.default.fileExists(atPath: keptRecord))
        keptTask.cancel()
        _ = try await keptTask.value
        _ = await manager.release()
    }

    /// A record whose group leader started at another time (the pid was reused) is never killed.
    func testAReusedPidIsNeverKilled() async throws {
        let shell = try shell()
        let manager = HostLeaseManager(holder: LeaseHolder.current)
        _ = try await manager.acquire(shell: shell, slots: 1, runID: "run")
        let (task, path) = try await startRecorded(shell, manager, token: "x-a1")
        var fields = record(path)
        let group = try XCTUnwrap(Int32(fields["pgid"] ?? ""))
        XCTAssertFalse((fields["start"] ?? "").isEmpty, "the leader's start time is recorded")
        fields["start"] = "Mon Jan  1 00:00:00 2001"
        try fields.map { "\($0.key)=\($0.value)" }.joined(separator: "\n").write(toFile: path, atomically: true, encoding: .utf8)
        let reaped = try await manager.reapOwnRecords(shell: shell, keep: [])
        XCTAssertEqual(reaped, ["x-a1 \(group) reused"])
        XCTAssertTrue(isLive(group), "a process that only shares the pid was killed")
        task.cancel()
        _ = try await task.value
        _ = await manager.release()
    }
}

extension ProcessRecordTests {
    /// A record's `dir` is removed only when it is a folder below the work root: never the work
    /// root itself, a dot folder there (the leases, the push cache) or anything outside.
    func testARecordNeverRemovesTheWorkRootOrAnythingOutsideIt() async throws {
        let shell = try shell()
        let manager = HostLeaseManager(holder: LeaseHolder.current)
        _ = try await manager.acquire(shell: shell, slots: 1, runID: "run")
        let held = await manager.leaseID(host: shell.host.name)
        let lease = try XCTUnwrap(held)
        let dir = ProcessRecordScript.directory(leaseRoot: HostLeaseManager.leaseRoot(shell.host), lease: lease)
        let outside = try TestPaths.temporaryDirectory("outside-\(UUID().uuidString.prefix(6))").path
        let root = shell.host.workRoot
        try FileManager.default.createDirectory(atPath: root + "/.cache/keep", withIntermediateDirectories: true)
        let targets = [root, root + "/", root + "/.cache", root + "/../" + URL(fileURLWithPath: outside).lastPathComponent, outside]
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        for (i, target) in targets.enumerated() {
            try "pgid=\nstart=\ndir=\(target)\n".write(toFile: dir + "/r\(i)", atomically: true, encoding: .utf8)
        }
        let reaped = try await manager.reapOwnRecords(shell: shell, keep: [])
        XCTAssertEqual(reaped.count, targets.count)
        XCTAssertTrue(FileManager.default.fileExists(atPath: root + "/.cache/keep"))
        XCTAssertTrue(FileManager.default.fileExists(atPath: outside))
        XCTAssertTrue(FileManager.default.fileExists(atPath: HostLeaseManager.leaseRoot(shell.host) + "/slot-0"))
        _ = await manager.release()
    }
}
