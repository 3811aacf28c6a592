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

    /// Starts `sleep 60` as a recorded attempt of `manager`'s lease in a job folder of the host;
    /// returns the task and the record's path once written.
    private func startRecorded(_ shell: LocalShell, _ manager: HostLeaseManager, token: String,
                               umask: String? = nil) async throws -> (Task<CommandTermination, Error>, String) {
        let held = await manager.leaseID(host: shell.host.name)
        let lease = try XCTUnwrap(held)
        let dir = ProcessRecordScript.directory(leaseRoot: HostLeaseManager.leaseRoot(shell.host), lease: lease)
        let jobDir = try await shell.makeJobDirectory(jobID: token)
        var command = ProcessRecordScript.wrap(ShellCommand(["sleep", "60"]), directory: dir, token: token, runID: "run", lease: lease)
        if let umask { command = ShellCommand(["sh", "-c", "umask \(umask); exec \"$@\"", "sh"] + command.arguments) }
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
        let deadJob = try XCTUnwrap(record(deadRecord)["dir"])
        XCTAssertTrue(deadJob.hasPrefix(shell.host.workRoot + "/jobs/gate-a1-"), deadJob)
        XCTAssertFalse((record(deadRecord)["boot"] ?? "").isEmpty, "the host's boot id is recorded")
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
        XCTAssertFalse(FileManager.default.fileExists(atPath: deadJob), "the dead run's job folder is removed")
        // The live run's attempt is untouched.
        XCTAssertTrue(isLive(liveGroup), "a live run's process was killed")
        XCTAssertTrue(FileManager.default.fileExists(atPath: liveRecord))

        // Its own end: `finish` kills leftovers of the group and removes the record; the job folder
        // stays for the cleanup, which keeps it as a tree for the next push (or removes it).
        let liveJob = try XCTUnwrap(record(liveRecord)["dir"])
        let held = await live.leaseID(host: shell.host.name)
        let lease = try XCTUnwrap(held)
        let lines = try await HostLeaseManager.perform(ProcessRecordScript.finish(leaseRoot: HostLeaseManager.leaseRoot(shell.host), lease: lease, token: "gate-a2"),
                                                       on: shell, deadlines: CommandDeadlines(total: 30, silence: 30))
        XCTAssertEqual(lines, [["reaped", "gate-a2", "\(liveGroup)", "killed"]])
        _ = try await liveTask.value
        XCTAssertFalse(isLive(liveGroup))
        XCTAssertFalse(FileManager.default.fileExists(atPath: liveRecord))
        XCTAssertTrue(FileManager.default.fileExists(atPath: liveJob), "finish leaves the attempt's job folder to its cleanup")
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
        XCTAssertEqual(reaped, [.reaped(token: "a-a1", pgid: "\(lostGroup)", status: "killed")])
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
        XCTAssertEqual(reaped, [.reaped(token: "x-a1", pgid: "\(group)", status: "reused")])
        XCTAssertTrue(isLive(group), "a process that only shares the pid was killed")
        task.cancel()
        _ = try await task.value
        _ = await manager.release()
    }
}

extension ProcessRecordTests {
    /// The host's boot id, as the wrapper records it.
    private func bootID() throws -> String {
        try String(contentsOfFile: "/proc/sys/kernel/random/boot_id", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// `ps -o lstart=` of a pid, as the wrapper records it.
    private func startTime(_ pid: Int32) throws -> String {
        try TestShell.run("ps -o lstart= -p \(pid)").trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// A complete record (the fields the wrapper writes), with `fields` replacing or removing some.
    private func recordText(pgid: Int32, start: String, boot: String, dir: String, _ fields: [String: String?] = [:]) -> String {
        var all: [(String, String?)] = [("pgid", "\(pgid)"), ("start", start), ("boot", boot), ("dir", dir), ("run", "r"), ("lease", "l")]
        for (k, v) in fields { if let i = all.firstIndex(where: { $0.0 == k }) { all[i].1 = v } else { all.append((k, v)) } }
        return all.compactMap { k, v in v.map { "\(k)=\($0)" } }.joined(separator: "\n") + "\n"
    }

    /// A `setsid sleep 1000` of this user, detached from the test's output: its own session and
    /// group, led by itself. Returns its pid (= its pgid).
    private func startSleeper() throws -> Int32 {
        let out = try TestShell.run("perl -MPOSIX -e 'my $p = fork; die unless defined $p; if ($p) { print \"$p\\n\"; exit 0 } POSIX::setsid(); POSIX::close($_) for 3 .. 1023; open(STDIN, \"<\", \"/dev/null\"); open(STDOUT, \">\", \"/dev/null\"); open(STDERR, \">\", \"/dev/null\"); exec(\"sleep\", \"1000\")'")
        let pid = try XCTUnwrap(Int32(out.trimmingCharacters(in: .whitespacesAndNewlines)))
        let end = Date().addingTimeInterval(5)
        while Date() < end, (try? TestShell.run("ps -o pgid=,args= -p \(pid)").contains("\(pid) sleep")) != true { usleep(20_000) }
        return pid
    }

    /// A record whose `dir` is not a job folder of this work root removes nothing: the work root,
    /// a dot folder there, `builds`, a folder outside, `..` paths, a symlink to a job folder. A real
    /// job folder of a gone group is removed.
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
        try FileManager.default.createDirectory(atPath: root + "/builds/keep", withIntermediateDirectories: true)
        let job = try await shell.makeJobDirectory(jobID: "real")
        let other = try await shell.makeJobDirectory(jobID: "other")
        try FileManager.default.createSymbolicLink(atPath: root + "/jobs/link-0123abcd", withDestinationPath: other)
        let targets = [root, root + "/", root + "/.cache", root + "/builds", root + "/jobs", outside,
                       root + "/../" + URL(fileURLWithPath: outside).lastPathComponent, root + "/jobs/../builds",
                       root + "/jobs/link-0123abcd", outside + "/jobs/x-0123abcd"]
        try FileManager.default.createDirectory(atPath: outside + "/jobs/x-0123abcd", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let gone = try deadPID()
        for (i, target) in targets.enumerated() {
            try recordText(pgid: gone, start: "Mon Jan  1 00:00:00 2001", boot: try bootID(), dir: target).write(toFile: dir + "/r\(i)", atomically: true, encoding: .utf8)
        }
        try recordText(pgid: gone, start: "Mon Jan  1 00:00:00 2001", boot: try bootID(), dir: job).write(toFile: dir + "/real", atomically: true, encoding: .utf8)
        let reaped = try await manager.reapOwnRecords(shell: shell, keep: [])
        XCTAssertEqual(reaped.count, targets.count + 1)
        XCTAssertTrue(reaped.allSatisfy { if case .reaped(_, _, "gone") = $0 { return true } else { return false } }, "\(reaped)")
        for path in [root + "/.cache/keep", root + "/builds/keep", outside, outside + "/jobs/x-0123abcd", other, root + "/jobs/link-0123abcd"] {
            XCTAssertTrue(FileManager.default.fileExists(atPath: path), "removed \(path)")
        }
        XCTAssertTrue(FileManager.default.fileExists(atPath: HostLeaseManager.leaseRoot(shell.host) + "/slot-0"))
        XCTAssertFalse(FileManager.default.fileExists(atPath: job), "a job folder of this work root is removed")
        _ = await manager.release()
    }

    /// A crafted record for an unrelated process group (a `setsid sleep` of the same user) is
    /// never acted on unless it identifies the group leader completely: an empty or missing start
    /// time, another boot, a line that does not parse, a key twice, a symlink, a leader that is gone.
    func testACraftedRecordNeverKillsAnUnrelatedGroup() async throws {
        let shell = try shell()
        let manager = HostLeaseManager(holder: LeaseHolder.current)
        _ = try await manager.acquire(shell: shell, slots: 1, runID: "run")
        let held = await manager.leaseID(host: shell.host.name)
        let lease = try XCTUnwrap(held)
        let dir = ProcessRecordScript.directory(leaseRoot: HostLeaseManager.leaseRoot(shell.host), lease: lease)
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let g = try startSleeper()
        defer { kill(g, SIGKILL) }
        let start = try startTime(g), boot = try bootID()
        let job = try await shell.makeJobDirectory(jobID: "forged")
        let crafted: [String: String] = [
            "empty-start": recordText(pgid: g, start: "", boot: boot, dir: job),
            "no-start": recordText(pgid: g, start: start, boot: boot, dir: job, ["start": nil]),
            "no-boot": recordText(pgid: g, start: start, boot: "", dir: job),
            "other-boot": recordText(pgid: g, start: start, boot: "00000000-0000-0000-0000-000000000000", dir: job),
            "garbage": recordText(pgid: g, start: start, boot: boot, dir: job) + "this is not a record\n",
            "twice": recordText(pgid: g, start: start, boot: boot, dir: job) + "pgid=\(g)\n",
            "unknown": recordText(pgid: g, start: start, boot: boot, dir: job, ["extra": "1"]),
            "group-1": recordText(pgid: 1, start: start, boot: boot, dir: job),
            "relative": recordText(pgid: g, start: start, boot: boot, dir: "jobs/x"),
        ]
        for (name, text) in crafted { try text.write(toFile: dir + "/" + name, atomically: true, encoding: .utf8) }
        let target = try TestPaths.temporaryDirectory("record-target").appendingPathComponent("r").path
        try recordText(pgid: g, start: start, boot: boot, dir: job).write(toFile: target, atomically: true, encoding: .utf8)
        try FileManager.default.createSymbolicLink(atPath: dir + "/link", withDestinationPath: target)
        let reports = try await manager.reapOwnRecords(shell: shell, keep: [])
        XCTAssertEqual(Set(reports.compactMap { if case .ignored(let t, _) = $0 { return t } else { return nil } }), Set(crafted.keys).union(["link"]),
                       "\(reports)")
        XCTAssertTrue(reports.contains(.ignored(token: "empty-start", why: "no start time of the group leader")), "\(reports)")
        XCTAssertTrue(reports.contains(.ignored(token: "other-boot", why: "written before the host last booted")), "\(reports)")
        XCTAssertTrue(reports.contains(.ignored(token: "link", why: "not a regular file")), "\(reports)")
        XCTAssertTrue(isLive(g), "an unrelated process was killed")
        XCTAssertTrue(FileManager.default.fileExists(atPath: job), "an ignored record removes nothing")
        XCTAssertTrue(FileManager.default.fileExists(atPath: target), "the link's target is left alone")
        _ = await manager.release()
    }

    /// A `procs` folder (or a lease's folder in it) others can write, or that is not the user's,
    /// is refused at admission with one clear line, before any slot is taken.
    func testAProcessRecordFolderOthersCanWriteIsRefused() async throws {
        let shell = try shell()
        let procs = HostLeaseManager.leaseRoot(shell.host) + "/procs"
        try FileManager.default.createDirectory(atPath: procs + "/some-lease", withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: HostLeaseManager.leaseRoot(shell.host))
        for (path, mode) in [(procs, 0o777), (procs + "/some-lease", 0o770)] {
            try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: path)
            let manager = HostLeaseManager(holder: LeaseHolder.current)
            do {
                _ = try await manager.acquire(shell: shell, slots: 1, runID: "run")
                XCTFail("a \(String(mode, radix: 8)) folder \(path) was not refused")
            } catch let error as HostLeaseError {
                XCTAssertTrue("\(error)".contains("refusing process-record folder \(path): group- or world-writable"), "\(error)")
            }
            XCTAssertFalse(FileManager.default.fileExists(atPath: HostLeaseManager.leaseRoot(shell.host) + "/slot-0"), "no slot was taken")
            try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: path)
        }
    }

    /// Under `umask 000` the wrapper still makes the record's folders 700 and the record 600; the
    /// command itself keeps the umask it was given.
    func testRecordFoldersArePrivateWhateverTheUmask() async throws {
        let shell = try shell()
        let manager = HostLeaseManager(holder: LeaseHolder.current)
        _ = try await manager.acquire(shell: shell, slots: 1, runID: "run")
        let (task, path) = try await startRecorded(shell, manager, token: "u-a1", umask: "000")
        func mode(_ p: String) throws -> Int { (try FileManager.default.attributesOfItem(atPath: p)[.posixPermissions] as? NSNumber)?.intValue ?? -1 }
        let leaseDir = (path as NSString).deletingLastPathComponent
        XCTAssertEqual(try mode(leaseDir), 0o700)
        XCTAssertEqual(try mode((leaseDir as NSString).deletingLastPathComponent), 0o700)
        XCTAssertEqual(try mode(path), 0o600)
        task.cancel()
        _ = try await task.value
        let held = await manager.leaseID(host: shell.host.name)
        let lease = try XCTUnwrap(held)
        let dir = ProcessRecordScript.directory(leaseRoot: HostLeaseManager.leaseRoot(shell.host), lease: lease)
        let wrapped = ProcessRecordScript.wrap(ShellCommand(["sh", "-c", "umask"]), directory: dir, token: "u-a2", runID: "run", lease: lease)
        let sink = OutputSink(limit: 4096)
        let t = try await shell.run(ShellCommand(["sh", "-c", "umask 000; exec \"$@\"", "sh"] + wrapped.arguments), in: "/",
                                    deadlines: CommandDeadlines(total: 30, silence: 30)) { sink.add($0) }
        XCTAssertEqual(t, .exited(0))
        XCTAssertEqual(sink.stdoutText, "0000\n", "the command's own umask")
        _ = await manager.release()
    }
}
