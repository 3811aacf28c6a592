import Foundation
import SSHClient
import XCFleetBasics
import XCFleetModel
import XCFleetHostScripts

/// A `RemoteShell` over SSH (libssh2, via `SSHClient`).
///
/// Holds a small pool of connections to one host: a command occupies one connection (libssh2
/// channels run one at a time per connection here), so a host with 2 slots running 2 jobs gets a
/// second connection on demand. Every path and argument is shell-quoted; environment values
/// (secrets included) travel only inside the command sent to the host and are never logged.
public final class SSHShell: RemoteShell {
    public let host: HostSpec
    private let timeouts: PhaseTimeouts
    private let target: SSHTarget
    private let auth: SSHAuthMethod
    private let knownHostsFile: String
    private let deadlines: SSHDeadlines
    private let pool: ConnectionPool

    private init(host: HostSpec, timeouts: PhaseTimeouts, target: SSHTarget, auth: SSHAuthMethod,
                 knownHostsFile: String, deadlines: SSHDeadlines, first: SSHConnection) {
        self.host = host
        self.timeouts = timeouts
        self.target = target
        self.auth = auth
        self.knownHostsFile = knownHostsFile
        self.deadlines = deadlines
        self.pool = ConnectionPool(first)
    }

    /// Connects to `host` (host key verified per its policy before authenticating). The key's
    /// passphrase is read from `environment[host.passphraseEnv]`; the agent from `SSH_AUTH_SOCK`.
    /// Throws `RemoteShellError` (`.connect`, `.hostKey`, `.authentication`, `.timeout`).
    public static func connect(_ host: HostSpec, timeouts: PhaseTimeouts,
                               environment: [String: String] = ProcessInfo.processInfo.environment) async throws -> SSHShell {
        let target = SSHTarget(host: host.address, port: host.port, user: host.user)
        let auth = try authMethod(for: host, environment: environment)
        let knownHosts = host.knownHostsFile ?? ((environment["HOME"] ?? NSHomeDirectory()) + "/.ssh/known_hosts")
        let deadPeer = deadPeerSeconds(host)
        let deadlines = SSHDeadlines(connect: timeouts.connect, handshake: timeouts.connect, authentication: timeouts.connect,
                                     operation: max(10, timeouts.cleanup), keepaliveInterval: keepaliveInterval(deadPeer: deadPeer),
                                     deadPeer: deadPeer)
        let policy: SSHHostKeyPolicy = host.hostKeyPolicy == .acceptNew ? .acceptNew : .strict
        do {
            let first = try await SSHConnection.connect(to: target, auth: auth, knownHostsFile: knownHosts,
                                                        hostKeyPolicy: policy, deadlines: deadlines)
            var resolved = host
            if host.workRoot == "~" || host.workRoot.hasPrefix("~/") {
                // The default work root is private: under the login user's home on the host.
                let r = try await first.run(#"printf '%s' "$HOME""#, stdin: nil, total: timeouts.connect)
                let home = String(decoding: r.stdout, as: UTF8.self)
                guard r.result == .exited(0), home.hasPrefix("/"), home.count > 1, FleetLoader.remotePathProblem(home) == nil else {
                    await first.close()
                    throw RemoteShellError(.connect, host: host.name, "cannot read the login user's home directory for the work root \(host.workRoot); set \"workRoot\" to an absolute path")
                }
                resolved.workRoot = (home.hasSuffix("/") ? String(home.dropLast()) : home) + host.workRoot.dropFirst()
            }
            return SSHShell(host: resolved, timeouts: timeouts, target: target, auth: auth, knownHostsFile: knownHosts,
                            deadlines: deadlines, first: first)
        } catch let error as SSHError {
            if error.kind == .cancelled { throw CancellationError() }
            throw mapError(error, host: host.name)
        }
    }

    /// Dead-peer limit when the fleet file gives none.
    public static let defaultDeadPeerSeconds: Double = 30

    /// The host's `deadPeerSeconds`, clamped to 3 s … 1 day (default 30 s).
    static func deadPeerSeconds(_ host: HostSpec) -> Double {
        guard let s = host.deadPeerSeconds, s.isFinite else { return defaultDeadPeerSeconds }
        return min(max(3, s), 86_400)
    }

    /// Keepalives every 5 s, or often enough that a live server answers at least twice within the
    /// dead-peer limit (a 6 s limit sends one every 2 s).
    static func keepaliveInterval(deadPeer: Double) -> Int {
        max(1, min(5, Int(deadPeer / 3)))
    }

    static func authMethod(for host: HostSpec, environment: [String: String]) throws -> SSHAuthMethod {
        if let identity = host.identityFile {
            var passphrase: String?
            if let name = host.passphraseEnv {
                guard let value = environment[name] else {
                    throw RemoteShellError(.authentication, host: host.name,
                                           "the key passphrase variable \(name) (passphraseEnv) is not set in the environment")
                }
                passphrase = value
            }
            return .keyFile(path: identity, passphrase: passphrase)
        }
        if host.useAgent { return .agent(socketPath: environment["SSH_AUTH_SOCK"]) }
        throw RemoteShellError(.authentication, host: host.name,
                               "no identityFile and useAgent is false: name an ed25519 key file or set \"useAgent\": true")
    }

    static func mapError(_ error: SSHError, host: String) -> RemoteShellError {
        let kind: RemoteShellError.Kind
        switch error.kind {
        case .resolve, .connect, .handshake, .connectionLost, .closed: kind = .connect
        case .hostKeyUnknown, .hostKeyChanged, .hostKeyFile: kind = .hostKey
        case .authentication, .rsaUnsupported, .keyFile: kind = .authentication
        case .timeout: kind = .timeout
        case .channel, .input, .cancelled: kind = .command
        }
        return RemoteShellError(kind, host: host, error.message)
    }

    // MARK: - RemoteShell

    public func makeJobDirectory(jobID: String) async throws -> String {
        let safeID = String(jobID.unicodeScalars.map { c -> Character in
            let ok = ("a"..."z").contains(c) || ("A"..."Z").contains(c) || ("0"..."9").contains(c) || "._-".unicodeScalars.contains(c)
            return ok ? Character(c) : "_"
        }.prefix(64))
        let root = ShellQuote.quote(host.workRoot)
        let template = ShellQuote.quote("\(host.workRoot)/\(safeID.isEmpty ? "job" : safeID).XXXXXXXX")
        let r = try await runSmall("umask 077; mkdir -p \(root) && mktemp -d \(template)", phase: .command, total: timeouts.cleanup)
        let path = String(decoding: r.stdout, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard r.result == .exited(0), path.hasPrefix(host.workRoot + "/"), !path.contains("\n") else {
            throw RemoteShellError(.command, host: host.name,
                                   "cannot create a job directory under \(host.workRoot): \(Self.describe(r.result)) \(Self.tail(r.stderr)); check workRoot and free disk")
        }
        return path
    }

    public func push(_ workspace: Workspace, to directory: String) async throws -> PushOutcome {
        try Self.checkPaths(workspace, host: host.name)
        let plan = PushCacheScript.Plan(workspace)
        // A kept tree is brought to the list and every file the host holds is copied in; the answer names the missing ones.
        let check = PushCacheScript.check(workRoot: host.workRoot, directory: directory, createDirectory: false, chained: false, limits: host.cache ?? CacheLimits())
        let (answer, sent) = try await BlobPush.check(plan, host: host, limit: timeouts.push) { input, _ in
            let source = ChunkSource(input)
            let r = try await runSmall(ShellQuote.join(check.arguments), stdin: .stream({ source.next() }), phase: .push, total: timeouts.push)
            let lines = String(decoding: r.stdout, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            return (Self.termination(r.result), lines.first, Array(lines.dropFirst()), r.stderr)
        }
        guard case .missing(let missing) = answer else { return BlobPush.outcome(sent) }
        return try await fill(plan, missing: missing, in: directory, alreadySent: sent)
    }

    /// One round trip on a warm host: the job directory is made (from a kept tree when the host has a
    /// free one), every file put in place and `then` run there, on one exec channel; the check sends
    /// only what differs from the tree xcfleet last pushed to, with the contents the host lacks. On a
    /// host that lacks some files a second round trip sends only those (`fill`) and runs `then` after
    /// them on the same line.
    public func prepareJob(jobID: String, workspace: Workspace, pushSeconds: Double, directoryCreated: @escaping @Sendable (String) -> Void,
                           then: @escaping @Sendable (String) throws -> ShellCommand?, deadlines: CommandDeadlines,
                           output: @escaping @Sendable (OutputChunk) -> Void) async throws -> JobPreparation {
        try Self.checkPaths(workspace, host: host.name)
        let plan = PushCacheScript.Plan(workspace)
        let dir = Self.newJobDirectory(workRoot: host.workRoot, jobID: jobID)
        let chained = try then(dir).map { try commandLine($0, in: dir) }
        directoryCreated(dir) // removing a directory that was never made is harmless
        let limits = chained == nil ? CommandDeadlines(total: pushSeconds, silence: pushSeconds) : deadlines
        var chainEnded: CommandTermination?
        let (answer, sent) = try await BlobPush.check(plan, host: host, limit: limits.total) { input, whole in
            let check = PushCacheScript.check(workRoot: host.workRoot, directory: dir, createDirectory: !whole, chained: chained != nil,
                                                limits: host.cache ?? CacheLimits())
            var line = ShellQuote.join(check.arguments)
            if let chained { line += " || exit $?; " + chained }
            let split = FirstLineSplitter(forward: output) { PushCacheScript.starts($0, with: PushCacheScript.warmLine) }
            let source = ChunkSource(input)
            let termination = try await runLine(line, stdin: .stream({ source.next() }), deadlines: limits) { split.consume($0) }
            chainEnded = termination
            // Warm: the exit status is the chained command's. Not warm: the chain stopped with status 3.
            let warm = PushCacheScript.starts(split.firstLine, with: PushCacheScript.warmLine)
            let status: CommandTermination = warm || (chained != nil && termination == .exited(PushCacheScript.notWarmStatus)) ? .exited(0) : termination
            return (status, split.firstLine, split.kept, split.stderrTail)
        }
        let missing: [String]
        switch answer {
        case .warm: return JobPreparation(directory: dir, push: BlobPush.outcome(sent), chained: chained == nil ? nil : chainEnded)
        case .resend: throw RemoteShellError(.push, host: host.name, "the push check asked for the whole file list twice")
        case .missing(let hashes): missing = hashes
        }
        guard let chained else { return JobPreparation(directory: dir, push: try await fill(plan, missing: missing, in: dir, alreadySent: sent)) }
        // The fill, then the chained command once the job directory is complete.
        let source = ChunkSource(plan.fillInput(missing))
        let fill = PushCacheScript.fill(workRoot: host.workRoot, directory: dir, limits: host.cache ?? CacheLimits())
        let filled = FirstLineSplitter(forward: output) { PushCacheScript.starts($0, with: PushCacheScript.filledLine) }
        let ended = try await runLine(ShellQuote.join(fill.arguments) + " || exit $?; " + chained, stdin: .stream({ source.next() }),
                                      deadlines: limits) { filled.consume($0) }
        try BlobPush.checkFill(status: ended, filled: PushCacheScript.starts(filled.firstLine, with: PushCacheScript.filledLine),
                               stderr: filled.stderrTail, host: host.name, directory: dir)
        try await BlobPush.filled(filled.firstLine, plan: plan, host: host)
        return JobPreparation(directory: dir, push: .pushed(bytes: sent.bytes + source.bytesSent - PushCacheScript.scriptInput.count, files: plan.sent(missing).files + sent.filesAhead),
                              chained: ended)
    }

    /// `<workRoot>/<job id, safe>.<8 random letters and digits>`: made by `mkdir` on the host (it
    /// must not exist), so the name is known before the round trip that creates it.
    static func newJobDirectory(workRoot: String, jobID: String) -> String {
        let safeID = String(jobID.unicodeScalars.map { c -> Character in
            let ok = ("a"..."z").contains(c) || ("A"..."Z").contains(c) || ("0"..."9").contains(c) || "._-".unicodeScalars.contains(c)
            return ok ? Character(c) : "_"
        }.prefix(64))
        let letters = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
        var rng = SystemRandomNumberGenerator()
        let suffix = String((0..<8).map { _ in letters[Int(rng.next(upperBound: UInt64(letters.count)))] })
        let root = workRoot.hasSuffix("/") && workRoot.count > 1 ? String(workRoot.dropLast()) : workRoot
        return "\(root)/\(safeID.isEmpty ? "job" : safeID).\(suffix)"
    }

    /// Unsafe entries are rejected before anything is sent.
    static func checkPaths(_ workspace: Workspace, host: String) throws {
        for f in workspace.files {
            if let problem = Workspace.pathProblem(f.path) {
                throw RemoteShellError(.push, host: host, WorkspaceError.unsafePath(f.path, problem).description)
            }
        }
    }

    /// The second round trip: only the blobs the host lacks, stored and copied into the job directory.
    private func fill(_ plan: PushCacheScript.Plan, missing: [String], in directory: String, alreadySent: BlobPush.Sent) async throws -> PushOutcome {
        let source = ChunkSource(plan.fillInput(missing))
        let command = PushCacheScript.fill(workRoot: host.workRoot, directory: directory, limits: host.cache ?? CacheLimits())
        let r = try await runSmall(ShellQuote.join(command.arguments), stdin: .stream({ source.next() }), phase: .push, total: timeouts.push)
        let line = BlobPush.filledLine(r.stdout)
        try BlobPush.checkFill(status: Self.termination(r.result), filled: line != nil, stderr: r.stderr, host: host.name, directory: directory)
        try await BlobPush.filled(line, plan: plan, host: host)
        return .pushed(bytes: alreadySent.bytes + source.bytesSent - PushCacheScript.scriptInput.count, files: plan.sent(missing).files + alreadySent.filesAhead)
    }

    static func termination(_ r: SSHExitResult) -> CommandTermination {
        switch r {
        case .exited(let s): return .exited(s)
        case .signaled(let s): return .signaled(s)
        case .timedOut(let w): return .timedOut(w)
        case .connectionLost(let w): return .connectionLost(w)
        case .cancelled: return .cancelled
        }
    }

    public func run(_ command: ShellCommand, in directory: String, deadlines: CommandDeadlines,
                    output: @escaping @Sendable (OutputChunk) -> Void) async throws -> CommandTermination {
        try await runLine(try commandLine(command, in: directory), stdin: command.input.map { .bytes($0) }, deadlines: deadlines, output: output)
    }

    /// Runs one command line as the host's shell reads it, output streamed.
    func runLine(_ line: String, stdin: SSHInput? = nil, deadlines: CommandDeadlines,
                 output: @escaping @Sendable (OutputChunk) -> Void) async throws -> CommandTermination {
        let connection: SSHConnection
        do { connection = try await pool.acquire(self) } catch {
            if Task.isCancelled { return .cancelled }
            throw error
        }
        defer { pool.release(connection) }
        do {
            let r = try await connection.exec(line, stdin: stdin, silence: deadlines.silence, total: deadlines.total) { stream, bytes in
                output(OutputChunk(stream: stream == .stdout ? .stdout : .stderr, bytes: bytes))
            }
            switch r {
            case .exited(let s): return .exited(s)
            case .signaled(let s): return .signaled(s.hasPrefix("SIG") ? s : "SIG" + s) // same names as local processes
            case .timedOut(let which): return .timedOut(which)
            case .connectionLost(let why): return .connectionLost(why)
            case .cancelled: return .cancelled
            }
        } catch let error as SSHError {
            if error.kind == .connectionLost || error.kind == .closed { return .connectionLost(error.message) }
            if error.kind == .cancelled { return .cancelled }
            throw Self.mapError(error, host: host.name)
        }
    }

    /// The command line sent to the host: toolchain on PATH, environment exported, `cd`, `exec`.
    func commandLine(_ command: ShellCommand, in directory: String) throws -> String {
        guard !command.arguments.isEmpty else { throw RemoteShellError(.command, host: host.name, "empty command") }
        var parts: [String] = []
        if let swift = host.toolchain.swiftPath, swift.contains("/") {
            let dir = (swift as NSString).deletingLastPathComponent
            parts.append("PATH=\(ShellQuote.quote(dir)):\"$PATH\"; export PATH")
        }
        if let developerDir = host.toolchain.developerDir {
            parts.append("DEVELOPER_DIR=\(ShellQuote.quote(developerDir)); export DEVELOPER_DIR")
        }
        var env: [String: String] = [:]
        for (k, v) in host.environment { env[k] = v.value }
        for (k, v) in command.environment { env[k] = v }
        for k in env.keys.sorted() {
            guard ShellQuote.isValidName(k), let v = env[k] else {
                throw RemoteShellError(.command, host: host.name, "invalid environment variable name \(k.debugDescription)")
            }
            parts.append("\(k)=\(ShellQuote.quote(v)); export \(k)")
        }
        parts.append("cd \(ShellQuote.quote(directory)) && exec \(ShellQuote.join(command.arguments))")
        return parts.joined(separator: "; ")
    }

    public func fetch(_ path: String, in directory: String) async throws -> Data {
        let full = path.hasPrefix("/") ? path : directory + "/" + path
        let r = try await runSmall("cat -- \(ShellQuote.quote(full))", phase: .fetch, total: timeouts.push)
        guard r.result == .exited(0) else {
            throw RemoteShellError(.fetch, host: host.name, "cannot read \(full): \(Self.tail(r.stderr))")
        }
        return Data(r.stdout)
    }

    /// Refuses anything but a directory strictly inside the work root.
    private func checkJobDirectory(_ directory: String) throws {
        let root = host.workRoot.hasSuffix("/") ? String(host.workRoot.dropLast()) : host.workRoot
        guard SafePath.isStrictlyInside(directory, parent: root), directory.hasPrefix(root + "/"),
              Workspace.pathProblem(String(directory.dropFirst(root.count + 1))) == nil else {
            throw RemoteShellError(.cleanup, host: host.name, "refusing to remove \(directory): not a job directory under \(root)")
        }
    }

    /// One round trip: `finish`, then (the leftovers killed) the job directory is kept as a free
    /// tree for the next push (`PushCacheScript.keep`), or removed when it cannot be, then
    /// `release` (framed for `CleanupReply`). Exit status 125 from the line means the removal
    /// failed (and nothing was released). Lease commands share one copy of their script.
    public func finishAndRemoveJobDirectory(_ directory: String, finish: ShellCommand, release: ShellCommand?, deadlines: CommandDeadlines,
                                            output: @escaping @Sendable (OutputChunk) -> Void) async throws -> CommandTermination {
        try checkJobDirectory(directory)
        let keep = ShellQuote.join(PushCacheScript.keep(workRoot: host.workRoot, directory: directory, trees: host.slots).arguments)
        let shared = [finish] + (release.map { [$0] } ?? [])
        let invocations = shared.map(HostLeaseScript.invocation(of:))
        let lines: [String]
        var line = ""
        if invocations.allSatisfy({ $0 != nil }) {
            line = HostLeaseScript.definition + "; "
            lines = invocations.map { $0! }
        } else {
            lines = shared.map { ShellQuote.join($0.arguments) }
        }
        line += lines[0] + " </dev/null; s=$?; " + keep + " 2>/dev/null || rm -rf -- \(ShellQuote.quote(directory)) || exit 125; "
        if lines.count > 1 {
            line += "printf '\\n%s\\n' \(CleanupReply.releaseMarker); " + lines[1] + " </dev/null; printf '%s\\t%s\\n' \(CleanupReply.statusMarker) $?; "
        }
        line += "exit $s"
        let termination = try await runLine(line, stdin: .bytes(PushCacheScript.scriptInput), deadlines: deadlines, output: output)
        if termination == .exited(125) {
            throw RemoteShellError(.cleanup, host: host.name, "cannot remove \(directory)")
        }
        return termination
    }

    public func removeJobDirectory(_ directory: String) async throws {
        try checkJobDirectory(directory)
        let r = try await runSmall("rm -rf -- \(ShellQuote.quote(directory))", phase: .cleanup, total: timeouts.cleanup)
        guard r.result == .exited(0) else {
            throw RemoteShellError(.cleanup, host: host.name, "cannot remove \(directory): \(Self.tail(r.stderr))")
        }
    }

    public func close() async {
        for c in pool.drain() { await c.close() }
    }

    // MARK: - Helpers

    /// Runs a bookkeeping command and collects its output; infrastructure errors throw `phase`.
    func runSmall(_ command: String, stdin: SSHInput? = nil, phase: RemoteShellError.Kind,
                  total: Double) async throws -> (result: SSHExitResult, stdout: [UInt8], stderr: [UInt8]) {
        let connection = try await pool.acquire(self)
        defer { pool.release(connection) }
        do {
            let r = try await connection.run(command, stdin: stdin, total: total)
            if case .connectionLost(let why) = r.result { throw RemoteShellError(phase, host: host.name, "connection lost: \(why)") }
            if case .timedOut = r.result { throw RemoteShellError(.timeout, host: host.name, "\(phase.rawValue) did not finish within \(total) s") }
            if r.result == .cancelled { throw CancellationError() }
            return r
        } catch let error as SSHError {
            if error.kind == .cancelled { throw CancellationError() }
            throw RemoteShellError(phase, host: host.name, error.message)
        }
    }

    fileprivate func openConnection() async throws -> SSHConnection {
        do {
            return try await SSHConnection.connect(to: target, auth: auth, knownHostsFile: knownHostsFile,
                                                   hostKeyPolicy: host.hostKeyPolicy == .acceptNew ? .acceptNew : .strict,
                                                   deadlines: deadlines)
        } catch let error as SSHError {
            if error.kind == .cancelled { throw CancellationError() }
            throw Self.mapError(error, host: host.name)
        }
    }

    static func describe(_ r: SSHExitResult) -> String {
        switch r {
        case .exited(let s): return "exit status \(s)"
        case .signaled(let s): return "signal \(s)"
        case .connectionLost(let w): return "connection lost: \(w)"
        case .timedOut(let w): return "timed out (\(w))"
        case .cancelled: return "cancelled"
        }
    }

    static func tail(_ bytes: [UInt8]) -> String {
        String(decoding: bytes.suffix(500), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}

/// Idle and busy connections of one `SSHShell`.
private final class ConnectionPool: @unchecked Sendable {
    private let lock = NSLock()
    private var idle: [SSHConnection]
    private var all: [SSHConnection]

    init(_ first: SSHConnection) {
        idle = [first]
        all = [first]
    }

    func acquire(_ shell: SSHShell) async throws -> SSHConnection {
        if let c = takeIdle() { return c }
        let c = try await shell.openConnection()
        add(c)
        return c
    }

    private func add(_ c: SSHConnection) {
        lock.lock()
        all.append(c)
        lock.unlock()
    }

    private func takeIdle() -> SSHConnection? {
        lock.lock()
        defer { lock.unlock() }
        return idle.popLast()
    }

    /// Returns `c` for reuse; a broken connection is dropped (the next acquire opens a new one)
    /// and closed from our side: its socket, session and thread are freed at once, so the host's
    /// session for it ends as soon as a packet gets through (a link back up) instead of lingering.
    func release(_ c: SSHConnection) {
        lock.lock()
        if c.isUsable {
            idle.append(c)
            lock.unlock()
        } else {
            all.removeAll { $0 === c }
            lock.unlock()
            Task.detached { await c.close() }
        }
    }

    func drain() -> [SSHConnection] {
        lock.lock()
        defer { lock.unlock() }
        let everything = all
        all = []
        idle = []
        return everything
    }
}

/// Takes the first stdout line of a prepare (the push check's verdict) out of the stream. After a
/// line `forwards` accepts (warm) the rest (the chained command's output) is forwarded; after any other first
/// line it is kept (the missing hashes). Keeps the tail of stderr for messages. Chunks arrive serially.
private final class FirstLineSplitter: @unchecked Sendable {
    private let lock = NSLock()
    private let forward: @Sendable (OutputChunk) -> Void
    private let forwards: @Sendable (String) -> Bool
    private var head: [UInt8] = []
    private var done = false
    private var keeping = false
    private var keptBytes: [UInt8] = []
    private(set) var firstLineStore: String?
    private var stderr: [UInt8] = []

    init(forward: @escaping @Sendable (OutputChunk) -> Void, forwards: @escaping @Sendable (String) -> Bool) {
        self.forward = forward
        self.forwards = forwards
    }

    var firstLine: String? { lock.lock(); defer { lock.unlock() }; return firstLineStore }
    var stderrTail: [UInt8] { lock.lock(); defer { lock.unlock() }; return stderr }
    /// The lines after a first line `forwards` refused.
    var kept: [String] {
        lock.lock(); defer { lock.unlock() }
        return String(decoding: keptBytes, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    }

    /// Kept output beyond this is dropped (a missing-hash list is 65 bytes a file).
    static let keptLimit = 64 << 20

    func consume(_ chunk: OutputChunk) {
        lock.lock()
        if chunk.stream == .stderr {
            stderr = Array((stderr + chunk.bytes).suffix(4096))
            lock.unlock()
            forward(chunk)
            return
        }
        if done {
            if keeping {
                if keptBytes.count < Self.keptLimit { keptBytes += chunk.bytes }
                lock.unlock()
                return
            }
            lock.unlock()
            forward(chunk)
            return
        }
        head += chunk.bytes
        guard let nl = head.firstIndex(of: 0x0A) else {
            if head.count > 4096 { done = true; let rest = head; head = []; lock.unlock(); forward(OutputChunk(stream: .stdout, bytes: rest)); return }
            lock.unlock()
            return
        }
        let first = String(decoding: head[..<nl], as: UTF8.self)
        firstLineStore = first
        let rest = Array(head[(nl + 1)...])
        head = []
        done = true
        keeping = !forwards(first)
        if keeping {
            keptBytes = rest
            lock.unlock()
            return
        }
        lock.unlock()
        if !rest.isEmpty { forward(OutputChunk(stream: .stdout, bytes: rest)) }
    }
}

/// The stdin of one fill, pulled chunk by chunk on the connection's thread only.
private final class ChunkSource: @unchecked Sendable {
    private var chunks: [[UInt8]]
    private var index = 0
    private(set) var bytesSent = 0

    init(_ chunks: [[UInt8]]) { self.chunks = chunks }

    func next() -> [UInt8]? {
        guard index < chunks.count else { return nil }
        let chunk = chunks[index]
        chunks[index] = []
        index += 1
        bytesSent += chunk.count
        return chunk
    }
}
