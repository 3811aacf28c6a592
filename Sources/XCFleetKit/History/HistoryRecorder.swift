import Foundation
import XCFleetModel
import XCFleetCore

/// The history as a run sees it: every call returns a result or a one-line note and never throws,
/// never stalls past its deadline, and never changes a run's outcome or exit code.
///
/// Writes that cannot reach a PostgreSQL server are queued: the run directory's path is appended
/// to `history-pending.txt` beside the runs directory and replayed (re-read from its events) the
/// next time the server answers. A local SQLite failure is not queued (it needs a person: move
/// the file, free the disk); the note says so, and `xcfleet history import RUN_DIR` backfills.
public struct HistoryRecorder: Sendable {
    public var location: HistoryLocation
    /// Where unsent runs wait (team mode); nil: drop with a note.
    public var pendingFile: URL?
    public var options: HistoryDatabase.Options
    /// Longest a history step may take before the run goes on without it.
    public var deadline: Double

    public init(location: HistoryLocation, pendingFile: URL? = nil, options: HistoryDatabase.Options = .init(), deadline: Double = 30) {
        self.location = location
        self.pendingFile = pendingFile
        self.options = options
        self.deadline = deadline
    }

    public struct Outcome: Sendable {
        public var recorded: [String] = []
        public var notes: [String] = []
    }

    /// Records the run in `runDirectory` plus any queued runs. `report` is the run's collated
    /// report when the caller has it (`Runner.run` collates `events.jsonl` once for every report);
    /// without it the events are read again (an interrupted or failed run).
    public func record(runDirectory: URL, report: RunReport? = nil, source: HistoryRecord.Source? = nil, pricing: HistoryPricing = .init()) async -> Outcome {
        var outcome = Outcome()
        let record: HistoryRecord
        do {
            // Reading events and .git is blocking file I/O: off the concurrency pool.
            record = try await offPool {
                if let report {
                    return HistoryRecord(report: report, source: source ?? GitSource.read(), cost: RunCost.of(report, pricing: pricing))
                }
                return try Self.record(runDirectory: runDirectory, source: source, pricing: pricing)
            }
        } catch {
            outcome.notes.append("history: not recorded — \(runDirectory.path): \(error)")
            return outcome
        }
        do {
            let store = try await open()
            defer { Task { await store.close() } }
            try await within { try await store.record(record) }
            outcome.recorded.append(record.runID)
            outcome = await replayPending(into: store, outcome: outcome, source: source, pricing: pricing)
        } catch {
            outcome.notes.append(note(for: error, runDirectory: runDirectory))
        }
        return outcome
    }

    /// Durations for the scheduler from the database (nil with a note when it cannot be read).
    /// `hosts`: the run's fleet hosts; durations from hosts of their classes are preferred (`ComparableDurations`).
    public func durations(suites: [String], lastRuns: Int = HistoryRecorder.durationRuns, hosts: [String] = []) async -> (DurationHistory?, String?) {
        do {
            let store = try await open()
            defer { Task { await store.close() } }
            let history = try await within { try await store.durations(suites: suites, lastRuns: lastRuns, comparableTo: hosts) }
            return (history.isEmpty ? nil : history, nil)
        } catch {
            return (nil, "history: durations not used (\(Self.oneLine(error)))")
        }
    }

    /// Hosts over the fleet's infra-failure threshold (host → reason), or a note.
    public func hostsToSetAside(_ fleet: Fleet, now: Date = Date()) async -> ([String: String], String?) {
        guard fleet.maxInfraFailureRate != nil else { return ([:], nil) }
        do {
            let store = try await open()
            defer { Task { await store.close() } }
            let since = now.timeIntervalSince1970 - Double(HostHealthGate.days) * 86_400
            let history = try await within { try await store.hostHistory(since: since) }
            return (HostHealthGate.decide(history, hosts: fleet.hosts.map(\.name), threshold: fleet.maxInfraFailureRate), nil)
        } catch {
            return ([:], "history: host health not checked (\(Self.oneLine(error)))")
        }
    }

    /// The builds xcfleet recorded making on these hosts (`BuildTrust`), or a note: without them a
    /// cached build from an earlier run is not trusted and is built again.
    public func trustedBuilds(hosts: [String]) async -> (BuildTrust, String?) {
        do {
            let store = try await open()
            defer { Task { await store.close() } }
            return (BuildTrust(try await within { try await store.trustedBuilds(hosts: hosts) }), nil)
        } catch {
            return (BuildTrust(), "history: earlier builds not trusted, cached builds are built again (\(Self.oneLine(error)))")
        }
    }

    /// Each host's record for `hosts check` (empty with a note when unreadable).
    public func hostHistory(now: Date = Date()) async -> ([HostHistory], String?) {
        do {
            let store = try await open()
            defer { Task { await store.close() } }
            let since = now.timeIntervalSince1970 - Double(HostHealthGate.days) * 86_400
            return (try await within { try await store.hostHistory(since: since) }, nil)
        } catch {
            return ([], "history: \(Self.oneLine(error))")
        }
    }

    /// How many recent runs of a suite the durations come from.
    public static let durationRuns = 10

    /// Opens the store within the deadline.
    public func open() async throws -> HistoryDatabase {
        let location = self.location, options = self.options
        return try await within { try await HistoryDatabase.open(location, options: options) }
    }

    /// Runs `work` but gives up (with a `.timeout` error) after `deadline` seconds; the blocked
    /// database thread is left behind, the caller goes on.
    public func within<T: Sendable>(_ work: @escaping @Sendable () async throws -> T) async throws -> T {
        let seconds = deadline, location = self.location
        return try await withCheckedThrowingContinuation { continuation in
            let once = ResumeOnce(continuation)
            let worker = Task { do { once.resume(.success(try await work())) } catch { once.resume(.failure(error)) } }
            Task {
                try? await Task.sleep(nanoseconds: UInt64(seconds * 1_000_000_000))
                if once.resume(.failure(HistoryError(.timeout, "\(location): no answer within \(Int(seconds)) s"))) { worker.cancel() }
            }
        }
    }

    /// `record(runDirectory:)` off the concurrency pool.
    public static func load(runDirectory: URL) async throws -> HistoryRecord {
        try await offPool { try record(runDirectory: runDirectory) }
    }

    /// A run directory's events → collated report → rows.
    public static func record(runDirectory: URL, source: HistoryRecord.Source? = nil, pricing: HistoryPricing = .init()) throws -> HistoryRecord {
        let events = runDirectory.appendingPathComponent("events.jsonl")
        guard FileManager.default.fileExists(atPath: events.path) else { throw EventLogError.missing(events.path) }
        let report = Collator(mutantFaults: [:]).collate(try EventLog.read(events))
        let cost = RunCost.compute(report, pricePerHour: pricing.perHost, defaultPrice: pricing.defaultPrice)
        return HistoryRecord(report: report, source: source ?? GitSource.read(), cost: cost)
    }

    private func replayPending(into store: HistoryDatabase, outcome: Outcome, source: HistoryRecord.Source?, pricing: HistoryPricing) async -> Outcome {
        var outcome = outcome
        guard let pendingFile, let text = try? String(contentsOf: pendingFile, encoding: .utf8) else { return outcome }
        var left: [String] = []
        for path in Set(text.split(separator: "\n").map(String.init)).sorted() where !path.isEmpty {
            guard FileManager.default.fileExists(atPath: path) else { continue }
            do {
                let record = try await offPool { try Self.record(runDirectory: URL(fileURLWithPath: path), source: source, pricing: pricing) }
                try await within { try await store.record(record) }
                outcome.recorded.append(record.runID)
            } catch {
                left.append(path)
            }
        }
        if left.isEmpty { try? FileManager.default.removeItem(at: pendingFile) } else {
            try? (left.joined(separator: "\n") + "\n").write(to: pendingFile, atomically: true, encoding: .utf8)
        }
        let replayed = outcome.recorded.count - 1
        if replayed > 0 { outcome.notes.append("history: recorded \(replayed) queued run(s) from \(pendingFile.lastPathComponent)") }
        return outcome
    }

    private func note(for error: Error, runDirectory: URL) -> String {
        let reason = Self.oneLine(error)
        if case .postgres = location, let pendingFile, let kind = (error as? HistoryError)?.kind, [.unreachable, .timeout].contains(kind) {
            let line = runDirectory.standardizedFileURL.path + "\n"
            var queued = true
            if let handle = FileHandle(forWritingAtPath: pendingFile.path) {
                do {
                    try handle.seekToEnd()
                    try handle.write(contentsOf: Data(line.utf8))
                } catch { queued = false }
                try? handle.close()
            } else {
                try? FileManager.default.createDirectory(at: pendingFile.deletingLastPathComponent(), withIntermediateDirectories: true)
                queued = FileManager.default.createFile(atPath: pendingFile.path, contents: Data(line.utf8))
            }
            guard queued else {
                return "history: not recorded (\(reason)) and not queued (\(pendingFile.path) cannot be written); the run is unaffected — 'xcfleet history import \(runDirectory.path)' adds it later"
            }
            return "history: not recorded now (\(reason)); queued in \(pendingFile.path), recorded when the server answers"
        }
        return "history: not recorded (\(reason)); the run is unaffected — 'xcfleet history import \(runDirectory.path)' adds it later"
    }

    static func oneLine(_ error: Error) -> String {
        let text = "\(error)"
        return text.split(whereSeparator: \.isNewline).first.map(String.init) ?? text
    }
}

/// Resumes a continuation exactly once, whoever comes first.
final class ResumeOnce<T: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var continuation: CheckedContinuation<T, Error>?
    init(_ continuation: CheckedContinuation<T, Error>) { self.continuation = continuation }
    @discardableResult
    func resume(_ result: Result<T, Error>) -> Bool {
        lock.lock()
        let c = continuation
        continuation = nil
        lock.unlock()
        c?.resume(with: result)
        return c != nil
    }
}

/// The checkout's commit and branch: CI variables first, then `.git` read directly (no process).
public enum GitSource {
    public static func read(directory: String = FileManager.default.currentDirectoryPath,
                            environment: [String: String] = ProcessInfo.processInfo.environment) -> HistoryRecord.Source {
        if let sha = environment["GITHUB_SHA"] ?? environment["CI_COMMIT_SHA"] ?? environment["BUILDKITE_COMMIT"], !sha.isEmpty {
            return .init(commit: sha, branch: environment["GITHUB_REF_NAME"] ?? environment["CI_COMMIT_REF_NAME"] ?? environment["BUILDKITE_BRANCH"])
        }
        var dir = URL(fileURLWithPath: directory).standardizedFileURL
        for _ in 0..<32 {
            let dotGit = dir.appendingPathComponent(".git")
            var isDir: ObjCBool = false
            if FileManager.default.fileExists(atPath: dotGit.path, isDirectory: &isDir) {
                var gitDir = dotGit
                if !isDir.boolValue, let text = try? String(contentsOf: dotGit, encoding: .utf8), text.hasPrefix("gitdir:") {
                    let target = text.dropFirst("gitdir:".count).trimmingCharacters(in: .whitespacesAndNewlines)
                    gitDir = target.hasPrefix("/") ? URL(fileURLWithPath: target) : dir.appendingPathComponent(target)
                }
                return resolve(gitDir)
            }
            let parent = dir.deletingLastPathComponent()
            if parent.path == dir.path { break }
            dir = parent
        }
        return .init()
    }

    static func resolve(_ gitDir: URL) -> HistoryRecord.Source {
        guard let head = try? String(contentsOf: gitDir.appendingPathComponent("HEAD"), encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines) else { return .init() }
        guard head.hasPrefix("ref: ") else { return .init(commit: head, branch: nil) }
        let ref = String(head.dropFirst(5))
        let branch = ref.hasPrefix("refs/heads/") ? String(ref.dropFirst("refs/heads/".count)) : ref
        // A worktree's refs live in the common directory.
        var common = gitDir
        if let text = try? String(contentsOf: gitDir.appendingPathComponent("commondir"), encoding: .utf8) {
            let c = text.trimmingCharacters(in: .whitespacesAndNewlines)
            common = c.hasPrefix("/") ? URL(fileURLWithPath: c) : gitDir.appendingPathComponent(c).standardizedFileURL
        }
        for base in [gitDir, common] {
            if let sha = try? String(contentsOf: base.appendingPathComponent(ref), encoding: .utf8) {
                return .init(commit: sha.trimmingCharacters(in: .whitespacesAndNewlines), branch: branch)
            }
            if let packed = try? String(contentsOf: base.appendingPathComponent("packed-refs"), encoding: .utf8) {
                for line in packed.split(separator: "\n") where line.hasSuffix(" " + ref) {
                    return .init(commit: String(line.prefix { $0 != " " }), branch: branch)
                }
            }
        }
        return .init(commit: nil, branch: branch)
    }
}
