import XCTest
@testable import XCFleetKit
import XCFleetTestSupport

/// Slot leases on a real host directory through `LocalShell` (real `perl` processes): acquire and
/// release, busy slots, stale leases reclaimed by TTL and by dead pid, lost leases, and many
/// concurrent managers and processes racing for the same slots.
final class HostLeaseTests: XCTestCase {
    private func shell(_ name: String = #function) throws -> LocalShell {
        var host = HostSpec.local
        host.workRoot = try TestPaths.temporaryDirectory(name).path
        return LocalShell(host: host)
    }

    private func leaseRoot(_ shell: LocalShell) -> String { HostLeaseManager.leaseRoot(shell.host) }

    private func holderFile(_ shell: LocalShell, slot: Int) -> [String: String] {
        let text = (try? String(contentsOfFile: leaseRoot(shell) + "/slot-\(slot)/holder", encoding: .utf8)) ?? ""
        var fields: [String: String] = [:]
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: "=", maxSplits: 1).map(String.init)
            if parts.count == 2 { fields[parts[0]] = parts[1] }
        }
        return fields
    }

    /// Writes a lease as another orchestrator would have left it.
    private func plantLease(_ shell: LocalShell, slot: Int, run: String, lease: String, host: String, pid: Int32, heartbeat: Int) throws {
        let dir = leaseRoot(shell) + "/slot-\(slot)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let text = "run=\(run)\nlease=\(lease)\nhost=\(host)\npid=\(pid)\nacquired=\(heartbeat)\nheartbeat=\(heartbeat)\n"
        try text.write(toFile: dir + "/holder", atomically: true, encoding: .utf8)
    }

    private func slotDirectories(_ shell: LocalShell) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: leaseRoot(shell))) ?? []).filter { $0.hasPrefix("slot-") }.sorted()
    }

    private var now: Int { Int(Date().timeIntervalSince1970) }

    func testAcquireWritesTheHolderAndReleaseRemovesOnlyOurLeases() async throws {
        let shell = try shell()
        let manager = HostLeaseManager(holder: LeaseHolder(hostname: "orchestrator-a", pid: 4242))
        let slots = try await manager.acquire(shell: shell, slots: 2, runID: "run-1")
        XCTAssertEqual(slots, [0, 1])
        let holder = holderFile(shell, slot: 1)
        XCTAssertEqual(holder["run"], "run-1")
        XCTAssertEqual(holder["host"], "orchestrator-a")
        XCTAssertEqual(holder["pid"], "4242")
        XCTAssertEqual(Int(holder["heartbeat"] ?? ""), Int(holder["acquired"] ?? "x"))
        XCTAssertLessThanOrEqual(abs((Int(holder["heartbeat"] ?? "") ?? 0) - now), 5)
        // Asking again keeps what we hold and takes nothing twice.
        let again = try await manager.acquire(shell: shell, slots: 3, runID: "run-1")
        XCTAssertEqual(again, [0, 1, 2])

        // Someone else took slot 2 over meanwhile: release leaves it alone.
        try plantLease(shell, slot: 2, run: "run-other", lease: "other", host: "orchestrator-b", pid: 7, heartbeat: now)
        let failures = await manager.release()
        XCTAssertEqual(failures, [:])
        XCTAssertEqual(slotDirectories(shell), ["slot-2"])
        XCTAssertEqual(holderFile(shell, slot: 2)["run"], "run-other")
        let held = await manager.heldSlots(host: shell.host.name)
        XCTAssertEqual(held, [])
    }

    /// Slots handed to a cleanup leave the manager (no heartbeat, no release of its own); a cleanup
    /// that did not report gives them back for `release()`; one that reported an error is noted.
    func testSlotsHandedToACleanupAreSettledByItsReply() async throws {
        let shell = try shell()
        let manager = HostLeaseManager(holder: LeaseHolder(hostname: "orchestrator-a", pid: 4242))
        _ = try await manager.acquire(shell: shell, slots: 3, runID: "run-1")
        let handedOver = await manager.handOver(host: shell.host.name, keeping: [2])
        let handed = try XCTUnwrap(handedOver)
        XCTAssertEqual(handed.slots, [0, 1])
        let nothingMore = await manager.handOver(host: shell.host.name, keeping: [2])
        XCTAssertNil(nothingMore, "slots already handed over are not handed twice")
        var kept = await manager.heldSlots(host: shell.host.name)
        XCTAssertEqual(kept, [2])

        // The cleanup's exec ran the release: its reply settles it.
        let sink = OutputSink(limit: 1 << 20)
        let ended = try await shell.run(handed.command, in: "/", deadlines: CommandDeadlines(total: 30, silence: 30)) { sink.add($0) }
        XCTAssertEqual(ended, .exited(0))
        let lines = sink.stdoutText.split(separator: "\n").map { $0.split(separator: "\t").map(String.init) }
        let problem = await manager.settle(handed, reply: (lines, 0))
        XCTAssertNil(problem)
        XCTAssertEqual(slotDirectories(shell), ["slot-2"])
        let failed = await manager.settle(handed, reply: ([["error", "0", "cannot remove it"]], 0))
        XCTAssertEqual(failed, "0 cannot remove it")
        let exited = await manager.settle(handed, reply: ([], 3))
        XCTAssertEqual(exited, "lease command exited 3")

        // A cleanup that did not report: the slots are held again and `release()` releases them.
        let handedAgain = await manager.handOver(host: shell.host.name, keeping: [])
        let again = try XCTUnwrap(handedAgain)
        XCTAssertEqual(again.slots, [2])
        let unsettled = await manager.settle(again, reply: nil)
        XCTAssertNil(unsettled)
        kept = await manager.heldSlots(host: shell.host.name)
        XCTAssertEqual(kept, [2])
        let failures = await manager.release()
        XCTAssertEqual(failures, [:])
        XCTAssertEqual(slotDirectories(shell), [])
    }

    /// A cleanup's stdout: finish's lines, then the release's, framed (`CleanupReply`).
    func testACleanupReplySplitsFinishFromTheRelease() {
        let both = CleanupReply.split("reaped\tt1\t42\tkilled\n\n\(CleanupReply.releaseMarker)\nreleased\t0\nnotours\t1\n\(CleanupReply.statusMarker)\t0\n")
        XCTAssertEqual(both.finish, [["reaped", "t1", "42", "killed"]])
        XCTAssertEqual(both.release, [["released", "0"], ["notours", "1"]])
        XCTAssertEqual(both.releaseStatus, 0)
        let cut = CleanupReply.split("\(CleanupReply.releaseMarker)\nreleased\t0\n")
        XCTAssertNil(cut.releaseStatus, "a release without its status line did not report")
        let none = CleanupReply.split("fatal\tno lease directory given\n")
        XCTAssertEqual(none.finish, [["fatal", "no lease directory given"]])
        XCTAssertEqual(none.release, [])
        XCTAssertNil(none.releaseStatus)
    }

    func testSlotsHeldByALiveRunAreBusyUntilReleased() async throws {
        let shell = try shell()
        let a = HostLeaseManager(holder: LeaseHolder(hostname: "machine-a", pid: 100))
        let b = HostLeaseManager(holder: LeaseHolder(hostname: "machine-b", pid: 200))
        let got = try await a.acquire(shell: shell, slots: 2, runID: "run-a")
        XCTAssertEqual(got, [0, 1])
        let denied = try await b.acquireReporting(shell: shell, slots: 3, runID: "run-b")
        XCTAssertEqual(denied.slots, [2])
        XCTAssertEqual(denied.busy.map(\.slot), [0, 1])
        XCTAssertEqual(denied.busy.first?.runID, "run-a")
        XCTAssertEqual(denied.busy.first?.holderHost, "machine-a")
        XCTAssertEqual(denied.reclaimed, [])
        await a.release()
        let after = try await b.acquire(shell: shell, slots: 3, runID: "run-b")
        XCTAssertEqual(after, [0, 1, 2])
        await b.release()
        XCTAssertEqual(slotDirectories(shell), [])
    }

    func testALeaseWhoseHeartbeatIsOlderThanTheTTLIsReclaimed() async throws {
        let shell = try shell()
        try plantLease(shell, slot: 0, run: "crashed-run", lease: "old", host: "far-away", pid: 1, heartbeat: now - 120)
        try plantLease(shell, slot: 1, run: "live-run", lease: "live", host: "far-away", pid: 1, heartbeat: now - 5)
        let manager = HostLeaseManager(holder: LeaseHolder(hostname: "here", pid: 300), ttl: 30)
        let result = try await manager.acquireReporting(shell: shell, slots: 2, runID: "run-new")
        XCTAssertEqual(result.slots, [0])
        XCTAssertEqual(result.reclaimed.map(\.slot), [0])
        XCTAssertEqual(result.reclaimed.first?.runID, "crashed-run")
        XCTAssertTrue(result.reclaimed.first?.reason.contains("heartbeat") ?? false, "\(result.reclaimed)")
        XCTAssertEqual(result.busy.map(\.slot), [1])
        XCTAssertEqual(holderFile(shell, slot: 0)["run"], "run-new")
        XCTAssertEqual(holderFile(shell, slot: 1)["run"], "live-run")
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: leaseRoot(shell)).filter { $0.contains(".gone.") }
        XCTAssertEqual(leftovers, [], "the stale lease was removed, not left renamed")
        await manager.release()
    }

    func testALeaseOfADeadProcessOnThisMachineIsReclaimedAtOnce() async throws {
        let shell = try shell()
        let me = LeaseHolder.current
        // A process that has ended: its pid is free.
        let dead = try runCommand(URL(fileURLWithPath: "/bin/sh"), ["-c", "echo $$"])
        let deadPID = try XCTUnwrap(Int32(dead.stdout.trimmingCharacters(in: .whitespacesAndNewlines)))
        XCTAssertFalse(LeaseHolder.isAlive(pid: deadPID))
        let crashed = HostLeaseManager(holder: LeaseHolder(hostname: me.hostname, pid: deadPID))
        let held = try await crashed.acquire(shell: shell, slots: 1, runID: "crashed")
        XCTAssertEqual(held, [0])
        // A holder on this machine that is still alive (our parent) keeps its slot; the same dead
        // pid on another machine is not ours to judge: only the TTL frees it.
        try plantLease(shell, slot: 1, run: "alive", lease: "alive-lease", host: me.hostname, pid: getppid(), heartbeat: now)
        try plantLease(shell, slot: 2, run: "elsewhere", lease: "elsewhere-lease", host: "another-machine", pid: deadPID, heartbeat: now)

        let manager = HostLeaseManager(holder: me)
        let result = try await manager.acquireReporting(shell: shell, slots: 3, runID: "successor")
        XCTAssertEqual(result.slots, [0])
        XCTAssertEqual(result.reclaimed.map(\.runID), ["crashed"])
        XCTAssertEqual(result.reclaimed.first?.reason, "holder process is gone")
        XCTAssertEqual(result.busy.map(\.runID), ["alive", "elsewhere"])
        XCTAssertEqual(holderFile(shell, slot: 0)["run"], "successor")
        await manager.release()
        XCTAssertEqual(slotDirectories(shell), ["slot-1", "slot-2"])
    }

    func testHeartbeatsKeepTheLeaseFreshAndATakenOverLeaseIsReportedLost() async throws {
        let shell = try shell()
        let manager = HostLeaseManager(holder: LeaseHolder(hostname: "beater", pid: 11), heartbeatInterval: 0.3, ttl: 2)
        final class Lost: @unchecked Sendable {
            private let lock = NSLock()
            private var store: [(String, [Int])] = []
            func add(_ host: String, _ slots: [Int]) { lock.lock(); store.append((host, slots)); lock.unlock() }
            var calls: [(String, [Int])] { lock.lock(); defer { lock.unlock() }; return store }
        }
        let lost = Lost()
        await manager.setLostHandler { host, slots in lost.add(host, slots) }
        let got = try await manager.acquire(shell: shell, slots: 2, runID: "beating")
        XCTAssertEqual(got, [0, 1])
        try FileManager.default.removeItem(atPath: leaseRoot(shell) + "/slot-0")
        let firstBeat = Int(holderFile(shell, slot: 1)["heartbeat"] ?? "") ?? 0
        await manager.startHeartbeats()
        // Longer than the TTL: without heartbeats another run would reclaim slot 1 now.
        try await Task.sleep(nanoseconds: 3_500_000_000)
        let other = HostLeaseManager(holder: LeaseHolder(hostname: "other", pid: 12), ttl: 2)
        let otherGot = try await other.acquire(shell: shell, slots: 2, runID: "other")
        XCTAssertEqual(otherGot, [0], "slot 1 is kept fresh by the heartbeat; slot 0 was free")
        XCTAssertGreaterThan(Int(holderFile(shell, slot: 1)["heartbeat"] ?? "") ?? 0, firstBeat)
        // Slot 0 vanished from under the manager (removed, then taken by `other`): reported lost once.
        let calls = lost.calls
        XCTAssertEqual(calls.count, 1)
        XCTAssertEqual(calls.first?.0, "local")
        XCTAssertEqual(calls.first?.1, [0])
        let held = await manager.heldSlots(host: "local")
        XCTAssertEqual(held, [1])
        await manager.release()
        await other.release()
        XCTAssertEqual(slotDirectories(shell), [])
    }

    func testALeaseCommandThatCannotRunIsAClearError() async throws {
        var host = HostSpec.local
        let file = try TestPaths.temporaryDirectory().appendingPathComponent("not-a-directory")
        try Data("x".utf8).write(to: file)
        host.workRoot = file.path
        let manager = HostLeaseManager()
        do {
            _ = try await manager.acquire(shell: LocalShell(host: host), slots: 1, runID: "r")
            XCTFail("a work root under a file cannot hold leases")
        } catch let error as HostLeaseError {
            XCTAssertTrue(error.description.contains("cannot create"), error.description)
            XCTAssertTrue(error.description.contains("local"), error.description)
        }
    }

    /// Managers in this process (each acquire is its own perl process) race for the same slots.
    func testConcurrentManagersNeverHoldTheSameSlot() async throws {
        let shell = try shell()
        for round in 0..<12 {
            let managers = (0..<4).map { HostLeaseManager(holder: LeaseHolder(hostname: "m\($0)", pid: Int32(1000 + $0))) }
            let results = try await withThrowingTaskGroup(of: [Int].self) { group in
                for (i, m) in managers.enumerated() {
                    group.addTask { try await m.acquire(shell: shell, slots: 3, runID: "round\(round)-m\(i)") }
                }
                var all: [[Int]] = []
                for try await r in group { all.append(r) }
                return all
            }
            let taken = results.flatMap { $0 }
            XCTAssertEqual(taken.sorted(), [0, 1, 2], "round \(round): every slot exactly once, got \(results)")
            for m in managers { await m.release() }
            XCTAssertEqual(slotDirectories(shell), [], "round \(round)")
        }
    }

    /// Separate processes running the very same lease command, started together by one shell,
    /// race for free slots and then for stale ones; each slot has exactly one winner.
    func testConcurrentProcessesNeverHoldTheSameSlot() async throws {
        let shell = try shell()
        let outputs = try TestPaths.temporaryDirectory()
        let contenders = 8, slots = 3
        for round in 0..<10 {
            let stale = round % 2 == 1
            if stale {
                for slot in 0..<slots {
                    try plantLease(shell, slot: slot, run: "dead-\(round)", lease: "dead-\(round)-\(slot)", host: "gone", pid: 1, heartbeat: now - 500)
                }
            }
            let roundDir = outputs.appendingPathComponent("round-\(round)")
            try FileManager.default.createDirectory(at: roundDir, withIntermediateDirectories: true)
            var argv: [String] = []
            for i in 0..<contenders {
                let command = HostLeaseScript.acquire(root: leaseRoot(shell), want: slots, runID: "r\(round)-p\(i)", lease: "l\(round)-p\(i)",
                                                      holder: LeaseHolder(hostname: "proc-\(i)", pid: 1), ttl: 30, deadLeases: [])
                argv.append(command.arguments.joined(separator: "\u{1}"))
            }
            // Start every contender at once (fork + exec), then wait for all of them. (perl rather
            // than sh's `&` + `wait`: dash's `wait` once hung here with SIGCHLD pending.)
            let driver = """
            my $out = shift; my $i = 0; my @pids;
            for my $packed (@ARGV) {
              $i++; my @argv = split /\\x01/, $packed, -1;
              my $pid = fork(); die "fork: $!" unless defined $pid;
              if ($pid == 0) { open(STDOUT, '>', "$out/$i") or die; open(STDERR, '>&', \\*STDOUT); exec { $argv[0] } @argv; exit 127; }
              push @pids, $pid;
            }
            waitpid($_, 0) for @pids;
            """
            let status = try await ProcessRunner.run(["perl", "-e", driver, roundDir.path] + argv, directory: "/", environment: [:],
                                                     deadlines: CommandDeadlines(total: 60, silence: 60)) { _ in }
            XCTAssertEqual(status, .exited(0))
            var winners: [Int: [Int]] = [:]
            var reclaims = 0
            for i in 1...contenders {
                let text = try String(contentsOf: roundDir.appendingPathComponent("\(i)"), encoding: .utf8)
                for line in text.split(separator: "\n") {
                    let fields = line.split(separator: "\t").map(String.init)
                    if fields.first == "acquired", let slot = Int(fields[1]) { winners[slot, default: []].append(i - 1) }
                    if fields.first == "reclaimed" { reclaims += 1 }
                    XCTAssertFalse(fields.first == "error" || fields.first == "fatal", "round \(round): \(line)")
                }
            }
            XCTAssertEqual(winners.keys.sorted(), Array(0..<slots), "round \(round)")
            for (slot, who) in winners {
                XCTAssertEqual(who.count, 1, "round \(round): slot \(slot) won by \(who)")
                XCTAssertEqual(holderFile(shell, slot: slot)["lease"], who.first.map { "l\(round)-p\($0)" })
            }
            XCTAssertEqual(reclaims, stale ? slots : 0, "round \(round): each stale lease reclaimed exactly once")
            try FileManager.default.removeItem(atPath: leaseRoot(shell))
        }
    }
}
