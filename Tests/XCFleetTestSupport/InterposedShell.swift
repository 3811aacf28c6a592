import Foundation
import XCFleetModel
import XCFleetKit

/// A real shell (local or SSH) with one or two of its calls changed by a test: every call goes to
/// `inner` unless `run` or `finishAndRemove` is given, which then get the call and `inner`;
/// `prepared` sees the command each `prepareJob` runs after its push (nil: none).
package struct InterposedShell: RemoteShell {
    package typealias Run = @Sendable (_ inner: any RemoteShell, ShellCommand, _ directory: String, CommandDeadlines,
                                       _ output: @escaping @Sendable (OutputChunk) -> Void) async throws -> CommandTermination
    package typealias FinishAndRemove = @Sendable (_ inner: any RemoteShell, _ directory: String, _ finish: ShellCommand, _ release: ShellCommand?,
                                                   CommandDeadlines, _ output: @escaping @Sendable (OutputChunk) -> Void) async throws -> CommandTermination
    package let inner: any RemoteShell
    package var run: Run?
    package var finishAndRemove: FinishAndRemove?
    package var prepared: (@Sendable (ShellCommand?) -> Void)?

    package init(_ inner: any RemoteShell, run: Run? = nil, finishAndRemove: FinishAndRemove? = nil,
                 prepared: (@Sendable (ShellCommand?) -> Void)? = nil) {
        self.inner = inner
        self.run = run
        self.finishAndRemove = finishAndRemove
        self.prepared = prepared
    }

    package var host: HostSpec { inner.host }
    package func makeJobDirectory(jobID: String) async throws -> String { try await inner.makeJobDirectory(jobID: jobID) }
    package func push(_ workspace: Workspace, to directory: String) async throws -> PushOutcome { try await inner.push(workspace, to: directory) }
    package func run(_ command: ShellCommand, in directory: String, deadlines: CommandDeadlines,
                     output: @escaping @Sendable (OutputChunk) -> Void) async throws -> CommandTermination {
        if let run { return try await run(inner, command, directory, deadlines, output) }
        return try await inner.run(command, in: directory, deadlines: deadlines, output: output)
    }
    package func fetch(_ path: String, in directory: String) async throws -> Data { try await inner.fetch(path, in: directory) }
    package func removeJobDirectory(_ directory: String) async throws { try await inner.removeJobDirectory(directory) }
    package func close() async { await inner.close() }
    package func prepareJob(jobID: String, workspace: Workspace, pushSeconds: Double, directoryCreated: @escaping @Sendable (String) -> Void,
                            then: @escaping @Sendable (String) throws -> ShellCommand?, deadlines: CommandDeadlines,
                            output: @escaping @Sendable (OutputChunk) -> Void) async throws -> JobPreparation {
        let seen = prepared
        return try await inner.prepareJob(jobID: jobID, workspace: workspace, pushSeconds: pushSeconds, directoryCreated: directoryCreated,
                                          then: { dir in let command = try then(dir); seen?(command); return command },
                                          deadlines: deadlines, output: output)
    }
    package func finishAndRemoveJobDirectory(_ directory: String, finish: ShellCommand, release: ShellCommand?, deadlines: CommandDeadlines,
                                             output: @escaping @Sendable (OutputChunk) -> Void) async throws -> CommandTermination {
        if let finishAndRemove { return try await finishAndRemove(inner, directory, finish, release, deadlines, output) }
        return try await inner.finishAndRemoveJobDirectory(directory, finish: finish, release: release, deadlines: deadlines, output: output)
    }
}
