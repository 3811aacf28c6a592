import Foundation

/// One SSH connection to one host.
///
/// The libssh2 session (`SSHSession`, not Sendable) lives on a dedicated thread owned by this
/// object; every public method hops onto that thread and resumes its continuation exactly once.
/// Operations on one connection run one after another (channels are sequential). Cancelling the
/// calling task stops the work: a running command's process group is killed.
public final class SSHConnection: Sendable {
    public let target: SSHTarget
    private let thread: SessionThread
    private let session: ThreadConfined<SSHSession?>
    private let state: ConnectionState

    private init(target: SSHTarget, thread: SessionThread, session: ThreadConfined<SSHSession?>, state: ConnectionState) {
        self.target = target
        self.thread = thread
        self.session = session
        self.state = state
    }

    /// False once the transport broke or `close()` was called: the connection will not run commands again.
    public var isUsable: Bool { state.usable }

    deinit {
        let session = self.session
        let thread = self.thread
        thread.submit {
            session.value?.disconnect()
            session.value = nil
        }
        thread.stop()
    }

    /// Connects, verifies the host key against `knownHostsFile` (before authenticating) and
    /// authenticates. Throws `SSHError` whose message says what to fix.
    public static func connect(to target: SSHTarget, auth: SSHAuthMethod, knownHostsFile: String,
                               hostKeyPolicy: SSHHostKeyPolicy = .strict,
                               deadlines: SSHDeadlines = SSHDeadlines()) async throws -> SSHConnection {
        let thread = SessionThread(name: "ssh \(target.host):\(target.port)")
        let box = ThreadConfined<SSHSession?>(nil)
        let flag = CancelFlag()
        let state = ConnectionState()
        do {
            try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, Error>) in
                    let accepted = thread.submit {
                        do {
                            let s = try SSHSession.open(target: target, auth: auth, knownHostsPath: knownHostsFile,
                                                        policy: hostKeyPolicy, deadlines: deadlines, cancel: flag)
                            s.onLost = { state.markUnusable() }
                            box.value = s
                            continuation.resume()
                        } catch {
                            continuation.resume(throwing: error)
                        }
                    }
                    if !accepted { continuation.resume(throwing: SSHError(.closed, host: "\(target.host):\(target.port)", "connection thread stopped")) }
                }
            } onCancel: {
                flag.cancel()
            }
        } catch {
            thread.submit { box.value = nil }
            thread.stop()
            throw error
        }
        return SSHConnection(target: target, thread: thread, session: box, state: state)
    }

    /// Runs `command` through the remote user's shell. `output` is called on the connection's
    /// thread, serially, with chunks in arrival order (stderr without xcfleet's pgid marker).
    /// `silence`: longest stretch without output; `total`: wall-clock limit (seconds).
    public func exec(_ command: String, stdin: SSHInput? = nil, silence: Double? = nil, total: Double? = nil,
                     output: @escaping @Sendable (SSHStream, [UInt8]) -> Void) async throws -> SSHExitResult {
        try await perform { session, flag in
            try session.exec(command, stdin: stdin, silence: silence, total: total, cancel: flag, output: output)
        }
    }

    /// Runs `command` and collects its output (for small bookkeeping commands).
    public func run(_ command: String, stdin: SSHInput? = nil, total: Double? = nil) async throws -> (result: SSHExitResult, stdout: [UInt8], stderr: [UInt8]) {
        let collected = ThreadConfined<([UInt8], [UInt8])>(([], []))
        let result = try await exec(command, stdin: stdin, silence: nil, total: total) { stream, bytes in
            // Called on the connection thread only.
            switch stream {
            case .stdout: collected.value.0 += bytes
            case .stderr: collected.value.1 += bytes
            }
        }
        return try await perform { _, _ in (result, collected.value.0, collected.value.1) }
    }

    /// Says goodbye to the server and frees the session; later calls throw `.closed`.
    public func close() async {
        state.markUnusable()
        let session = self.session
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let accepted = thread.submit {
                session.value?.disconnect()
                session.value = nil
                continuation.resume()
            }
            if !accepted { continuation.resume() }
        }
        thread.stop()
    }

    private func perform<T: Sendable>(_ body: @escaping @Sendable (SSHSession, CancelFlag) throws -> T) async throws -> T {
        let flag = CancelFlag()
        let session = self.session
        let label = "\(target.host):\(target.port)"
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, Error>) in
                let accepted = thread.submit {
                    guard let s = session.value else {
                        continuation.resume(throwing: SSHError(.closed, host: label, "the connection is closed"))
                        return
                    }
                    do { continuation.resume(returning: try body(s, flag)) } catch { continuation.resume(throwing: error) }
                }
                if !accepted { continuation.resume(throwing: SSHError(.closed, host: label, "the connection is closed")) }
            }
        } onCancel: {
            flag.cancel()
        }
    }
}

/// Whether a connection can still be used; written on the connection thread, read anywhere.
private final class ConnectionState: @unchecked Sendable {
    private let lock = NSLock()
    private var isUsable = true

    var usable: Bool {
        lock.lock()
        defer { lock.unlock() }
        return isUsable
    }

    func markUnusable() {
        lock.lock()
        isUsable = false
        lock.unlock()
    }
}
