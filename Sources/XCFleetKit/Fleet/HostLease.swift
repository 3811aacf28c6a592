import Foundation
import XCFleetBasics
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import XCFleetModel
import XCFleetHostScripts

extension LeaseHolder {
    /// This process on this machine.
    public static var current: LeaseHolder {
        var buffer = [CChar](repeating: 0, count: 256)
        let name = gethostname(&buffer, buffer.count - 1) == 0
            ? String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) : "unknown"
        return LeaseHolder(hostname: name.isEmpty ? "unknown" : name, pid: getpid())
    }

    /// Whether `pid` names a live process on this machine (EPERM: alive but not ours).
    package static func isAlive(pid: Int32) -> Bool {
        guard pid > 0 else { return true }   // unknown: never declare it dead
        return kill(pid, 0) == 0 || errno == EPERM
    }
}

/// A lease problem on one host: the lease command could not run or failed as a whole.
public struct HostLeaseError: Error, Equatable, Sendable, CustomStringConvertible {
    public var host: String
    public var message: String

    public init(host: String, _ message: String) {
        self.host = host
        self.message = message
    }

    public var description: String {
        "\(host): slot leases: \(message) (the host needs perl and a writable work root)"
    }
}

/// What one `acquire` found on a host.
public struct LeaseAcquisition: Equatable, Sendable {
    /// Another holder's live lease.
    public struct Busy: Equatable, Sendable {
        public var slot: Int
        public var runID: String
        public var holderHost: String
        public var holderPID: Int32?
        /// Seconds since the holder's last heartbeat.
        public var heartbeatAge: Int?
    }

    /// A stale lease this call removed before taking the slot.
    public struct Reclaimed: Equatable, Sendable {
        public var slot: Int
        public var runID: String
        public var holderHost: String
        public var reason: String
    }

    /// Every slot this manager holds on the host after the call, ascending.
    public var slots: [Int]
    public var busy: [Busy]
    public var reclaimed: [Reclaimed]
    /// Per-slot failures (`slot 2: cannot create …`).
    public var errors: [String]
    /// Process records of dead runs this call reaped (`ProcessRecordScript`): `token pgid status`.
    public var reaped: [String] = []
    /// Process records this call did not act on (`ProcessRecordReport.ignored`): `token: why`.
    public var ignored: [String] = []
}

/// Slot leases held on the hosts themselves, so xcfleet processes sharing a fleet (even from
/// different machines) never run two jobs in one slot. See `HostLeaseScript` for the layout.
///
/// One manager per run. `acquire` takes every free (or stale) slot below `slots` on a host;
/// `startHeartbeats()` refreshes the held leases every `heartbeatInterval` seconds from one task
/// that sleeps with `Task.sleep`; `release()` removes only this manager's leases (holder run id and
/// lease id checked on the host). When this process dies, its leases go stale after `ttl` seconds
/// and are reclaimed by others; on this machine they are reclaimed at once (dead pid).
/// Slot leases handed by `HostLeaseManager.handOver` to an attempt's cleanup, whose exec runs
/// `command` after the job directory is gone; `HostLeaseManager.settle` takes the reply.
public struct SlotRelease: Sendable {
    public let host: String
    public let slots: [Int]
    fileprivate let held: HostLeaseManager.Held
    public let command: ShellCommand
}

public actor HostLeaseManager {
    /// The default refresh period and the age after which an unrefreshed lease is stale.
    public static let defaultHeartbeatInterval: Double = 5
    public static let defaultTTL: Double = 30

    public let holder: LeaseHolder
    public let heartbeatInterval: Double
    public let ttl: Double
    /// Limits for one lease command (they take milliseconds; a hung host must not hang the run).
    public let commandDeadlines: CommandDeadlines

    fileprivate struct Held: Sendable {
        var shell: any RemoteShell
        var runID: String
        var lease: String
        var slots: Set<Int>
        var root: String
    }

    private var held: [String: Held] = [:]
    private var heartbeatTask: Task<Void, Never>?
    private var onLost: (@Sendable (_ host: String, _ slots: [Int]) -> Void)?

    public init(holder: LeaseHolder = .current, heartbeatInterval: Double = HostLeaseManager.defaultHeartbeatInterval,
                ttl: Double = HostLeaseManager.defaultTTL,
                commandDeadlines: CommandDeadlines = CommandDeadlines(total: 30, silence: 30)) {
        self.holder = holder
        // Clamped so that no caller value can trap in a conversion later.
        self.heartbeatInterval = heartbeatInterval.isFinite ? min(max(0.05, heartbeatInterval), 3600) : Self.defaultHeartbeatInterval
        self.ttl = ttl.isFinite ? min(max(1, ttl), 86_400) : Self.defaultTTL
        self.commandDeadlines = commandDeadlines
    }

    /// Called (from the heartbeat task) when leases were found taken over by someone else, e.g.
    /// after this process was stopped for longer than the TTL. Jobs in those slots should stop.
    public func setLostHandler(_ handler: @escaping @Sendable (_ host: String, _ slots: [Int]) -> Void) {
        onLost = handler
    }

    /// Takes every free or stale slot in `0..<slots` on `shell`'s host for `runID`. Returns all
    /// slots this manager holds there afterwards (possibly none: every slot busy).
    public func acquire(shell: any RemoteShell, slots: Int, runID: String) async throws -> [Int] {
        try await acquireReporting(shell: shell, slots: slots, runID: runID).slots
    }

    /// The first acquire command for `shell`'s host (this run's lease there is named now), to run
    /// in the same round trip as the health check; its reply goes to `acquireReporting(…, firstReply:)`.
    public func acquireCommand(shell: any RemoteShell, slots: Int, runID: String) throws -> ShellCommand {
        let host = shell.host.name
        let root = Self.leaseRoot(shell.host)
        guard root.hasPrefix("/") else {
            throw HostLeaseError(host: host, "the work root \"\(shell.host.workRoot)\" must be an absolute path")
        }
        let run = HostLeaseScript.clean(runID)
        let lease = held[host]?.lease ?? HostLeaseScript.clean("\(holder.hostname)-\(holder.pid)-\(UUID().uuidString.lowercased())")
        if held[host] == nil { held[host] = Held(shell: shell, runID: run, lease: lease, slots: [], root: root) }
        return HostLeaseScript.acquire(root: root, want: min(max(0, slots), 1024), runID: run, lease: lease, holder: holder,
                                       ttl: Int(ttl.rounded(.up)), deadLeases: [])
    }

    /// `acquire`, with what was busy and what was reclaimed (for the run log). `firstReply`: the
    /// reply of `acquireCommand` when it already ran (chained after the health check).
    public func acquireReporting(shell: any RemoteShell, slots: Int, runID: String,
                                 firstReply: HostHealth.ChainedReply? = nil) async throws -> LeaseAcquisition {
        let host = shell.host.name
        let want = min(max(0, slots), 1024)
        let first = try acquireCommand(shell: shell, slots: slots, runID: runID)
        let root = Self.leaseRoot(shell.host)
        let run = HostLeaseScript.clean(runID)
        guard let lease = held[host]?.lease else { throw HostLeaseError(host: host, "no lease") }
        let ttlSeconds = Int(ttl.rounded(.up))
        var lines: [[String]]
        if let firstReply {
            lines = try Self.replyLines(host: host, termination: firstReply.termination, stdout: firstReply.stdout, stderrTail: firstReply.stderrTail)
        } else {
            lines = try await Self.perform(first, on: shell, deadlines: commandDeadlines)
        }
        // Holders on this machine whose process is gone are stale at once: name them and try again.
        let dead = Set(lines.compactMap { line -> String? in
            guard line.first == "busy", line.count >= 6, line[4] == holder.hostname,
                  let pid = Int32(line[5]), pid != holder.pid, !LeaseHolder.isAlive(pid: pid) else { return nil }
            return line[3]
        })
        if !dead.isEmpty {
            let first = lines
            lines = try await Self.perform(HostLeaseScript.acquire(root: root, want: want, runID: run, lease: lease, holder: holder,
                                                                   ttl: ttlSeconds, deadLeases: dead.sorted()),
                                           on: shell, deadlines: commandDeadlines)
            lines = first.filter { $0.first == "reclaimed" } + lines
        }
        var result = LeaseAcquisition(slots: [], busy: [], reclaimed: [], errors: [])
        var got = held[host]?.slots ?? []
        for line in lines {
            if let report = ProcessRecordReport.parse(line) {
                switch report {
                case .reaped: result.reaped.append(report.text)
                case .ignored: result.ignored.append(report.text)
                }
                continue
            }
            guard let kind = line.first, line.count >= 2, let slot = Int(line[1]) else { continue }
            switch kind {
            case "acquired", "held":
                got.insert(slot)
            case "busy" where line.count >= 7:
                result.busy.append(.init(slot: slot, runID: line[2], holderHost: line[4], holderPID: Int32(line[5]),
                                         heartbeatAge: Int(line[6])))
            case "reclaimed" where line.count >= 7:
                result.reclaimed.append(.init(slot: slot, runID: line[2], holderHost: line[4], reason: line[6]))
            case "error":
                result.errors.append("slot \(slot): \(line.dropFirst(2).joined(separator: " "))")
            default:
                continue
            }
        }
        held[host]?.slots = got
        result.slots = got.sorted()
        ensureHeartbeatsIfStarted()
        return result
    }

    /// This manager's lease id on `host` (names its process records there), nil before `acquire`.
    public func leaseID(host: String) -> String? { held[host]?.lease }

    /// Kills and removes this manager's process records on `shell`'s host except `keep` (tokens of
    /// attempts still running there): for a host that is reachable again after a lost connection.
    /// Returns what was done with each record (reaped, or ignored and why).
    public func reapOwnRecords(shell: any RemoteShell, keep: [String]) async throws -> [ProcessRecordReport] {
        guard let h = held[shell.host.name] else { return [] }
        let lines = try await Self.perform(ProcessRecordScript.reap(leaseRoot: h.root, lease: h.lease, keep: keep),
                                           on: shell, deadlines: commandDeadlines)
        return ProcessRecordReport.reports(in: lines)
    }

    /// Slots held on `host`, ascending.
    public func heldSlots(host: String) -> [Int] { (held[host]?.slots ?? []).sorted() }

    private var heartbeatsWanted = false

    /// Starts the heartbeat task (idempotent). It stops with `release()`.
    public func startHeartbeats() {
        heartbeatsWanted = true
        ensureHeartbeatsIfStarted()
    }

    private func ensureHeartbeatsIfStarted() {
        guard heartbeatsWanted, heartbeatTask == nil else { return }
        let interval = heartbeatInterval
        heartbeatTask = Task { [weak self] in
            while !Task.isCancelled {
                try? await Task.sleep(nanoseconds: UInt64(interval * 1_000_000_000))
                guard !Task.isCancelled, let self else { return }
                _ = await self.heartbeat()
            }
        }
    }

    /// Refreshes every held lease once (hosts in parallel). Returns the slots found lost per host;
    /// they are dropped from this manager and reported to the lost handler.
    @discardableResult
    public func heartbeat() async -> [String: [Int]] {
        let work = held.filter { !$0.value.slots.isEmpty }
        // A dead host must not hold up the round: with the full command deadline, healthy hosts'
        // heartbeats would age past the TTL and other runs could take their slots.
        let limit = min(commandDeadlines.total, heartbeatInterval * 2)
        let deadlines = CommandDeadlines(total: limit, silence: min(commandDeadlines.silence, limit))
        let replies = await withTaskGroup(of: (String, [[String]]?).self) { group in
            for (host, h) in work {
                let command = HostLeaseScript.heartbeat(root: h.root, runID: h.runID, lease: h.lease, slots: h.slots.sorted())
                group.addTask { (host, try? await Self.perform(command, on: h.shell, deadlines: deadlines)) }
            }
            var all: [(String, [[String]]?)] = []
            for await reply in group { all.append(reply) }
            return all
        }
        var lost: [String: [Int]] = [:]
        for (host, lines) in replies {
            // A failed heartbeat is retried next time; the host is probably gone anyway.
            guard let lines else { continue }
            // Only slots still held: one handed to a cleanup may be released while this heartbeat ran.
            let gone = lines.compactMap { $0.first == "lost" && $0.count >= 2 ? Int($0[1]) : nil }.filter { held[host]?.slots.contains($0) == true }
            guard !gone.isEmpty, held[host] != nil else { continue }
            for slot in gone { held[host]?.slots.remove(slot) }
            lost[host] = gone.sorted()
        }
        if let onLost { for (host, slots) in lost { onLost(host, slots) } }
        return lost
    }

    /// Hands the slots this manager holds on `host`, except `keeping`, to an attempt's cleanup,
    /// whose exec releases them after the job directory is gone: the run's end then saves a round
    /// trip. They are no longer refreshed or released here; `settle` says how the release went
    /// (nil: no slot to hand over).
    public func handOver(host: String, keeping: Set<Int>) -> SlotRelease? {
        guard var h = held[host] else { return nil }
        let taken = h.slots.subtracting(keeping)
        guard !taken.isEmpty else { return nil }
        h.slots.subtract(taken)
        held[host] = h
        var given = h
        given.slots = taken
        return SlotRelease(host: host, slots: taken.sorted(), held: given,
                           command: HostLeaseScript.release(root: h.root, runID: h.runID, lease: h.lease, slots: taken.sorted()))
    }

    /// The cleanup that carried `release` ended: `reply` is what its release printed with its exit
    /// status (`CleanupReply`), nil when the release did not report (it may not have run). Then the
    /// slots are held here again, and `release()` releases them (a slot already released answers
    /// `notours`). Returns the problem to note when the release failed.
    public func settle(_ release: SlotRelease, reply: (lines: [[String]], status: Int32)?) -> String? {
        guard let reply else {
            if held[release.host] == nil { held[release.host] = release.held }
            else { held[release.host]?.slots.formUnion(release.slots) }
            return nil
        }
        if let fatal = reply.lines.first(where: { $0.first == "fatal" }) { return fatal.dropFirst().joined(separator: " ") }
        if reply.status != 0 { return "lease command exited \(reply.status)" }
        return Self.releaseProblem(reply.lines)
    }

    /// Releases this manager's leases on one host (for a host set aside or lost mid-run).
    public func release(host: String) async {
        guard let h = held.removeValue(forKey: host) else { return }
        await Self.releaseDetached(h, deadlines: commandDeadlines)
    }

    /// Stops the heartbeats and releases every lease this manager holds. Runs to its end even
    /// when the calling task is cancelled (interrupt): the removals run in their own task.
    /// Returns the hosts where release failed, with the reason (their leases expire after the TTL).
    @discardableResult
    public func release() async -> [String: String] {
        heartbeatsWanted = false
        heartbeatTask?.cancel()
        heartbeatTask = nil
        let all = held
        held = [:]
        let deadlines = commandDeadlines
        let work = Task { () -> [String: String] in
            await withTaskGroup(of: (String, String?).self) { group in
                for (host, h) in all where !h.slots.isEmpty {
                    group.addTask { (host, await Self.releaseOne(h, deadlines: deadlines)) }
                }
                var failures: [String: String] = [:]
                for await (host, failure) in group { if let failure { failures[host] = failure } }
                return failures
            }
        }
        return await work.value
    }

    private static func releaseDetached(_ h: Held, deadlines: CommandDeadlines) async {
        guard !h.slots.isEmpty else { return }
        _ = await Task { await releaseOne(h, deadlines: deadlines) }.value
    }

    private static func releaseOne(_ h: Held, deadlines: CommandDeadlines) async -> String? {
        do {
            let lines = try await perform(HostLeaseScript.release(root: h.root, runID: h.runID, lease: h.lease, slots: h.slots.sorted()),
                                          on: h.shell, deadlines: deadlines)
            return releaseProblem(lines)
        } catch {
            return "\(error)"
        }
    }

    /// The `error` lines of a release reply, joined (nil: every slot released or no longer ours).
    private static func releaseProblem(_ lines: [[String]]) -> String? {
        let errors = lines.filter { $0.first == "error" }.map { $0.dropFirst().joined(separator: " ") }
        return errors.isEmpty ? nil : errors.joined(separator: "; ")
    }

    /// `<workRoot>/.xcfleet-leases`.
    static func leaseRoot(_ host: HostSpec) -> String {
        let base = host.workRoot.hasSuffix("/") && host.workRoot.count > 1 ? String(host.workRoot.dropLast()) : host.workRoot
        return base + "/" + HostLeaseScript.directoryName
    }

    /// Runs a lease command; returns its reply lines split at tabs.
    static func perform(_ command: ShellCommand, on shell: any RemoteShell, deadlines: CommandDeadlines) async throws -> [[String]] {
        let sink = OutputSink(limit: 1 << 20)
        let host = shell.host.name
        let termination: CommandTermination
        do {
            termination = try await shell.run(command, in: "/", deadlines: deadlines) { sink.add($0) }
        } catch {
            throw HostLeaseError(host: host, "\(error)")
        }
        return try replyLines(host: host, termination: termination, stdout: sink.stdoutText, stderrTail: sink.stderrTail)
    }

    /// A lease command's reply lines split at tabs; a `fatal` line or a failed command throws.
    static func replyLines(host: String, termination: CommandTermination, stdout: String, stderrTail: String) throws -> [[String]] {
        let lines = stdout.split(separator: "\n").map { $0.split(separator: "\t", omittingEmptySubsequences: false).map(String.init) }
        if let fatal = lines.first(where: { $0.first == "fatal" }) {
            throw HostLeaseError(host: host, fatal.dropFirst().joined(separator: " "))
        }
        guard termination == .exited(0) else {
            throw HostLeaseError(host: host, "lease command ended \(termination): \(stderrTail)")
        }
        return lines
    }
}

extension HostLeaseError: UserFacingError {
    public var userMessage: String { description }
    public var exitCode: Int32 { UserFacingErrors.ExitCode.infrastructure }
}
