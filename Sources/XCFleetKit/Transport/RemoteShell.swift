import Foundation
import XCFleetModel

/// A place to run jobs: the built-in local machine (`LocalShell`) or an SSH host (`SSHShell`).
/// Every method is async and never blocks the concurrency pool.
public protocol RemoteShell: Sendable {
    var host: HostSpec { get }

    /// Creates a fresh, empty per-job directory under the host's work root; returns its absolute path.
    func makeJobDirectory(jobID: String) async throws -> String

    /// Puts `workspace` into `directory` (one tar stream on SSH hosts).
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
}
