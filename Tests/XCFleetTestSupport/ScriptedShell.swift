import Foundation
@testable import XCFleetKit

/// A `RemoteShell` double for the Xcode flow: answers each command from a script keyed by the
/// command's rendered line prefix (first match wins), and records every command it ran.
package final class ScriptedShell: RemoteShell, @unchecked Sendable {
    package struct Reply {
        package var stdout: String = ""
        package var stderr: String = ""
        package var termination: CommandTermination = .exited(0)
        /// Output is delivered in chunks of this many bytes (to exercise chunk boundaries).
        package var chunkSize = 7

        package init(stdout: String = "", stderr: String = "", termination: CommandTermination = .exited(0), chunkSize: Int = 7) {
            self.stdout = stdout
            self.stderr = stderr
            self.termination = termination
            self.chunkSize = chunkSize
        }
    }

    package let host: HostSpec
    private let lock = NSLock()
    private var script: [(prefix: String, reply: Reply)]
    private var ranStore: [String] = []
    private var deadlinesStore: [String: CommandDeadlines] = [:]
    private var fixtures: [String: Data] = [:]

    package init(host: HostSpec, script: [(String, Reply)]) {
        self.host = host
        self.script = script.map { (prefix: $0.0, reply: $0.1) }
    }

    /// Every command run, rendered with `XcodeCommandLine.render`.
    package var ran: [String] { lock.lock(); defer { lock.unlock() }; return ranStore }
    package func deadlines(of prefix: String) -> CommandDeadlines? {
        lock.lock(); defer { lock.unlock() }
        return deadlinesStore.first { $0.key.hasPrefix(prefix) }?.value
    }

    package func makeJobDirectory(jobID: String) async throws -> String { "/Users/ci/xcfleet/jobs/\(jobID)" }
    package func push(_ workspace: Workspace, to directory: String) async throws -> PushOutcome { .pushed(bytes: workspace.totalBytes, files: workspace.files.count) }
    package func fetch(_ path: String, in directory: String) async throws -> Data {
        guard let data = fetched(path) else { throw RemoteShellError(.fetch, host: host.name, "no file \(path)") }
        return data
    }

    private func fetched(_ path: String) -> Data? {
        lock.lock(); defer { lock.unlock() }
        ranStore.append("fetch \(path)")
        return fixtures[path]
    }

    /// A reply matched before every other (a command the scripts of a test family all share).
    package func prepend(_ prefix: String, _ reply: Reply) {
        lock.lock(); defer { lock.unlock() }
        script.insert((prefix: prefix, reply: reply), at: 0)
    }

    /// What `fetch(path, …)` returns (a file the scripted commands "wrote" on the host).
    package func provide(_ path: String, _ data: Data) {
        lock.lock(); defer { lock.unlock() }
        fixtures[path] = data
    }
    package func removeJobDirectory(_ directory: String) async throws {}
    package func close() async {}

    package func run(_ command: ShellCommand, in directory: String, deadlines: CommandDeadlines,
             output: @escaping @Sendable (OutputChunk) -> Void) async throws -> CommandTermination {
        // A selection on standard input: the xcodebuild runs its script makes on the host, each scripted.
        if let ended = try await Self.eachSelectionRun(command, { try await self.run($0, in: directory, deadlines: deadlines, output: output) }) {
            return ended
        }
        let line = XcodeCommandLine.render(command)
        let reply: Reply = {
            lock.lock(); defer { lock.unlock() }
            ranStore.append(line)
            deadlinesStore[line] = deadlines
            return script.first { $0.prefix.hasPrefix("*") ? line.contains($0.prefix.dropFirst()) : line.hasPrefix($0.prefix) }?.reply ?? Reply(stderr: "scripted shell: no reply for \(line)", termination: .exited(127))
        }()
        for (stream, text) in [(OutputStreamKind.stdout, reply.stdout), (.stderr, reply.stderr)] {
            let bytes = Array(text.utf8)
            var i = 0
            while i < bytes.count {
                let end = min(bytes.count, i + max(1, reply.chunkSize))
                output(OutputChunk(stream: stream, bytes: Array(bytes[i..<end])))
                i = end
            }
        }
        return reply.termination
    }
}

extension ScriptedShell {
    /// For a test double: a selection command (`XcodeProjectCommands.runs(of:)`) run as the
    /// xcodebuild runs its script makes, one after the other, ending as the script does (the first
    /// failing run's status; 2 for a refused input). nil for any other command.
    package static func eachSelectionRun(_ command: ShellCommand, _ run: (ShellCommand) async throws -> CommandTermination) async throws -> CommandTermination? {
        guard let runs = XcodeProjectCommands.runs(of: command) else { return nil }
        var ended = CommandTermination.exited(runs.isEmpty ? 2 : 0)
        for r in runs {
            let t = try await run(r)
            if ended == .exited(0) { ended = t }
        }
        return ended
    }
}
