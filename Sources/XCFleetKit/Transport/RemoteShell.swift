import Foundation
import XCFleetModel

/// A place to run jobs: the built-in local machine (`LocalShell`) or an SSH host (`SSHShell`).
/// Every method is async and never blocks the concurrency pool.
public protocol RemoteShell: Sendable {
    var host: HostSpec { get }

    /// Creates a fresh, empty per-job directory under the host's work root; returns its absolute path.
    func makeJobDirectory(jobID: String) async throws -> String

    /// Puts `workspace` into `directory`, sending only the files the host does not hold (`PushCacheScript`).
    func push(_ workspace: Workspace, to directory: String) async throws -> PushOutcome

    /// Runs `command` with `directory` as working directory. `output` is called serially,
    /// never concurrently, with chunks in arrival order. Cancelling the calling task kills the
    /// command's process group and returns `.cancelled`.
    func run(_ command: ShellCommand, in directory: String, deadlines: CommandDeadlines,
             output: @escaping @Sendable (OutputChunk) -> Void) async throws -> CommandTermination

    /// Reads a file from the host (relative paths are relative to `directory`).
    func fetch(_ path: String, in directory: String) async throws -> Data

    /// Removes a per-job directory and everything under it.
    func removeJobDirectory(_ directory: String) async throws

    /// Ends the connection (no-op for the local host).
    func close() async

    /// A fresh job directory with `workspace` in it (`directoryCreated` is told its path before
    /// anything can fail after it was made). When the host already holds the workspace, the command
    /// `then(directory)` runs there in the same round trip, under `deadlines`, streamed to `output`,
    /// and `JobPreparation.chained` says how it ended; otherwise the caller runs it. `pushSeconds`
    /// bounds the directory and the push themselves.
    func prepareJob(jobID: String, workspace: Workspace, pushSeconds: Double, directoryCreated: @escaping @Sendable (String) -> Void,
                    then: @escaping @Sendable (String) throws -> ShellCommand?, deadlines: CommandDeadlines,
                    output: @escaping @Sendable (OutputChunk) -> Void) async throws -> JobPreparation

    /// Runs `finish` (in `/`, streamed to `output`; the attempt's process record: kill what is left
    /// of its process group), then removes the job directory, then runs `release` when given (the
    /// slot leases the run no longer needs, `SlotRelease`) — in one round trip where the transport
    /// can. `release`'s output follows finish's on stdout as `CleanupReply` reads it. Returns how
    /// `finish` ended; a directory that cannot be removed throws, and `release` has not run then.
    func finishAndRemoveJobDirectory(_ directory: String, finish: ShellCommand, release: ShellCommand?, deadlines: CommandDeadlines,
                                     output: @escaping @Sendable (OutputChunk) -> Void) async throws -> CommandTermination
}

/// The stdout of a cleanup that carried a lease release: finish's lines, then a `releaseMarker`
/// line, release's lines, and a `statusMarker` line with release's exit status.
public enum CleanupReply {
    static let releaseMarker = "xcfleet-release"
    static let statusMarker = "xcfleet-release-status"

    /// finish's tab-separated lines; release's, and its exit status (nil: it did not report one, so
    /// it may not have run or not to its end).
    static func split(_ stdout: String) -> (finish: [[String]], release: [[String]], releaseStatus: Int32?) {
        let lines = stdout.split(separator: "\n").map { $0.split(separator: "\t", omittingEmptySubsequences: false).map(String.init) }
        guard let marker = lines.firstIndex(of: [releaseMarker]) else { return (lines, [], nil) }
        var release = Array(lines[(marker + 1)...])
        var status: Int32?
        if let last = release.last, last.count == 2, last[0] == statusMarker {
            status = Int32(last[1])
            release.removeLast()
        }
        return (Array(lines[..<marker]), release, status)
    }

    /// The two lines a transport that runs `release` on its own writes around its output.
    static func markerChunk() -> OutputChunk { OutputChunk(stream: .stdout, bytes: Array("\n\(releaseMarker)\n".utf8)) }
    static func statusChunk(_ termination: CommandTermination) -> OutputChunk? {
        guard case .exited(let status) = termination else { return nil }
        return OutputChunk(stream: .stdout, bytes: Array("\(statusMarker)\t\(status)\n".utf8))
    }
}

/// What `RemoteShell.prepareJob` did.
public struct JobPreparation: Equatable, Sendable {
    public var directory: String
    public var push: PushOutcome
    /// How the chained command ended when it ran in the same round trip (a warm host); nil: it did not run.
    public var chained: CommandTermination?

    public init(directory: String, push: PushOutcome, chained: CommandTermination? = nil) {
        self.directory = directory
        self.push = push
        self.chained = chained
    }
}

extension RemoteShell {
    /// Two steps, nothing chained: `makeJobDirectory`, then `push` (the local host has no round trips to save).
    public func prepareJob(jobID: String, workspace: Workspace, pushSeconds: Double, directoryCreated: @escaping @Sendable (String) -> Void,
                           then: @escaping @Sendable (String) throws -> ShellCommand?, deadlines: CommandDeadlines,
                           output: @escaping @Sendable (OutputChunk) -> Void) async throws -> JobPreparation {
        let dir = try await withDeadline(pushSeconds, phase: .push, host: host.name) { try await self.makeJobDirectory(jobID: jobID) }
        directoryCreated(dir)
        let pushed = try await withDeadline(pushSeconds, phase: .push, host: host.name) { try await self.push(workspace, to: dir) }
        return JobPreparation(directory: dir, push: pushed)
    }

    /// Up to three steps: `finish`, `removeJobDirectory`, then `release`.
    public func finishAndRemoveJobDirectory(_ directory: String, finish: ShellCommand, release: ShellCommand?, deadlines: CommandDeadlines,
                                            output: @escaping @Sendable (OutputChunk) -> Void) async throws -> CommandTermination {
        let termination = try await run(finish, in: "/", deadlines: deadlines, output: output)
        try await removeJobDirectory(directory)
        try await runRelease(release, deadlines: deadlines, output: output)
        return termination
    }

    /// Runs a cleanup's `release` on its own, its output framed as `CleanupReply` reads it.
    func runRelease(_ release: ShellCommand?, deadlines: CommandDeadlines, output: @escaping @Sendable (OutputChunk) -> Void) async throws {
        guard let release else { return }
        output(CleanupReply.markerChunk())
        let ended = try await run(release, in: "/", deadlines: deadlines, output: output)
        if let status = CleanupReply.statusChunk(ended) { output(status) }
    }
}
