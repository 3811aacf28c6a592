import Foundation
import XCFleetBasics
import XCFleetModel
import XCFleetHostScripts

/// The built-in `local` host: this machine, driven through the same interface as SSH hosts.
/// Each job gets a fresh directory under the host's work root (a temporary folder by default).
public struct LocalShell: RemoteShell {
    public let host: HostSpec

    public init(host: HostSpec = .local) {
        self.host = host
    }

    public func makeJobDirectory(jobID: String) async throws -> String {
        try await offPool {
            let root = URL(fileURLWithPath: host.workRoot).appendingPathComponent("jobs")
            try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            let safe = String(jobID.map { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" || $0 == "." ? $0 : "_" })
            let dir = root.appendingPathComponent("\(safe)-\(UUID().uuidString.prefix(8).lowercased())")
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: false)
            return dir.path
        }
    }

    /// The same steps as on SSH hosts (`PushCacheScript`): a kept tree is brought to the list and
    /// every file the work root's blob store holds is copied in, then only the missing ones are
    /// written and stored.
    public func push(_ workspace: Workspace, to directory: String) async throws -> PushOutcome {
        try SSHShell.checkPaths(workspace, host: host.name)
        let plan = PushCacheScript.Plan(workspace)
        let limit = Self.pushSeconds
        let check = PushCacheScript.check(workRoot: host.workRoot, directory: directory, createDirectory: false, chained: false, limits: host.cache ?? CacheLimits())
        let (answer, sent) = try await BlobPush.check(plan, host: host, limit: limit) { input, _ in
            let (status, out, err) = try await runScript(check, stdin: input, seconds: limit)
            let lines = String(decoding: out, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            return (status, lines.first, Array(lines.dropFirst()), err)
        }
        guard case .missing(let missing) = answer else { return BlobPush.outcome(sent) }
        let input = plan.fillInput(missing)
        let fill = PushCacheScript.fill(workRoot: host.workRoot, directory: directory, limits: host.cache ?? CacheLimits())
        let filled = try await runScript(fill, stdin: input, seconds: limit)
        let line = BlobPush.filledLine(filled.1)
        try BlobPush.checkFill(status: filled.0, filled: line != nil, stderr: filled.2, host: host.name, directory: directory)
        try await BlobPush.filled(line, plan: plan, host: host)
        return .pushed(bytes: sent.bytes + input.reduce(0) { $0 + $1.count } - PushCacheScript.scriptInput.count, files: plan.sent(missing).files + sent.filesAhead)
    }

    /// `finish`, then the job directory is kept as a free tree for the next push
    /// (`PushCacheScript.keep`), or removed when it cannot be, then `release`.
    public func finishAndRemoveJobDirectory(_ directory: String, finish: ShellCommand, release: ShellCommand?, deadlines: CommandDeadlines,
                                            output: @escaping @Sendable (OutputChunk) -> Void) async throws -> CommandTermination {
        let termination = try await run(finish, in: "/", deadlines: deadlines, output: output)
        let jobs = URL(fileURLWithPath: host.workRoot).appendingPathComponent("jobs").path
        var kept = false
        if SafePath.isStrictlyInside(directory, parent: jobs) {
            let keep = PushCacheScript.keep(workRoot: host.workRoot, directory: directory, trees: host.slots)
            kept = try await runScript(keep, stdin: [PushCacheScript.scriptInput], seconds: deadlines.total).0 == .exited(0)
        }
        if !kept { try await removeJobDirectory(directory) }
        try await runRelease(release, deadlines: deadlines, output: output)
        return termination
    }

    /// Bound on each local push step (the attempt's push deadline still applies around it).
    static let pushSeconds: Double = 600

    /// A new temporary file only the user can read, holding `chunks` (the caller removes it).
    private func privateInputFile(_ chunks: [[UInt8]], phase: RemoteShellError.Kind) async throws -> URL {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("xcfleet-input-\(UUID().uuidString)")
        let name = host.name
        try await offPool {
            guard FileManager.default.createFile(atPath: file.path, contents: nil, attributes: [.posixPermissions: 0o600]),
                  let handle = FileHandle(forWritingAtPath: file.path) else {
                throw RemoteShellError(phase, host: name, "cannot write \(file.path)")
            }
            defer { try? handle.close() }
            for chunk in chunks { try handle.write(contentsOf: Data(chunk)) }
        }
        return file
    }

    /// Runs a host script with `stdin` (through a private temporary file) and collects its output.
    private func runScript(_ command: ShellCommand, stdin: [[UInt8]], seconds: Double) async throws -> (CommandTermination, [UInt8], [UInt8]) {
        let file = try await privateInputFile(stdin, phase: .push)
        defer { try? FileManager.default.removeItem(at: file) }
        let sink = OutputSink(limit: 64 << 20)
        let status = try await ProcessRunner.run(["sh", "-c", "f=$1; shift; exec \"$@\" < \"$f\"", "sh", file.path] + command.arguments,
                                                 directory: "/", environment: [:], deadlines: CommandDeadlines(total: seconds, silence: seconds)) { sink.add($0) }
        return (status, sink.stdout, Array(sink.stderrText.utf8))
    }

    public func run(_ command: ShellCommand, in directory: String, deadlines: CommandDeadlines,
                    output: @escaping @Sendable (OutputChunk) -> Void) async throws -> CommandTermination {
        var env = command.environment
        for (k, v) in host.environment { env[k] = v.value }
        // The toolchain goes first on PATH (as on SSH hosts), so wrapped commands find it too.
        if let swift = host.toolchain.swiftPath, swift.contains("/") {
            env["PATH"] = (swift as NSString).deletingLastPathComponent + ":" + (env["PATH"] ?? ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
        }
        if let developerDir = host.toolchain.developerDir { env["DEVELOPER_DIR"] = developerDir }
        guard let input = command.input else {
            return try await ProcessRunner.run(command.arguments, directory: directory, environment: env, deadlines: deadlines, output: output)
        }
        // The input through a private temporary file, opened as the command's standard input.
        let file = try await privateInputFile([input], phase: .command)
        defer { try? FileManager.default.removeItem(at: file) }
        return try await ProcessRunner.run(["sh", "-c", "f=$1; shift; exec \"$@\" < \"$f\"", "sh", file.path] + command.arguments,
                                           directory: directory, environment: env, deadlines: deadlines, output: output)
    }

    public func fetch(_ path: String, in directory: String) async throws -> Data {
        try await offPool {
            let url = path.hasPrefix("/") ? URL(fileURLWithPath: path) : URL(fileURLWithPath: directory).appendingPathComponent(path)
            guard let data = FileManager.default.contents(atPath: url.path) else {
                throw RemoteShellError(.fetch, host: host.name, "no file \(url.path)")
            }
            return data
        }
    }

    public func removeJobDirectory(_ directory: String) async throws {
        try await offPool {
            let jobs = URL(fileURLWithPath: host.workRoot).appendingPathComponent("jobs")
            do { try SafePath.remove(URL(fileURLWithPath: directory), inside: jobs) } catch {
                throw RemoteShellError(.cleanup, host: host.name, "cannot remove \(directory): \((error as? SafePathError)?.description ?? error.localizedDescription)")
            }
        }
    }

    public func close() async {}
}

/// Runs blocking file-system work on a dispatch queue, not on the concurrency pool.
func offPool<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { cont in
        DispatchQueue.global(qos: .userInitiated).async {
            do { cont.resume(returning: try work()) } catch { cont.resume(throwing: error) }
        }
    }
}
