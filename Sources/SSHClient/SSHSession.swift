import CLibSSH2
import Foundation
import XCFleetBasics
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

private let libssh2Initialized: Bool = libssh2_init(0) == 0

#if canImport(Glibc)
private func closeFD(_ fd: Int32) -> Int32 { Glibc.close(fd) }
private func connectFD(_ fd: Int32, _ addr: UnsafeMutablePointer<sockaddr>!, _ len: socklen_t) -> Int32 { Glibc.connect(fd, addr, len) }
#else
private func closeFD(_ fd: Int32) -> Int32 { Darwin.close(fd) }
private func connectFD(_ fd: Int32, _ addr: UnsafeMutablePointer<sockaddr>!, _ len: socklen_t) -> Int32 { Darwin.connect(fd, addr, len) }
#endif

func monotonicNow() -> Double { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 }

/// One libssh2 session and its socket, in non-blocking mode and driven by `poll(2)`.
///
/// Not Sendable: it is created, used and freed on exactly one `SessionThread` (owned by
/// `SSHConnection`). Every wait is bounded by a deadline, the caller's cancel flag and the
/// dead-peer limit, checked at least every `tick` seconds.
final class SSHSession {
    let target: SSHTarget
    let deadlines: SSHDeadlines
    let label: String
    private var fd: Int32
    let session: OpaquePointer
    private let stats: UnsafeMutablePointer<xcf_io_stats>
    private var seenBytes: Int64 = 0
    private var lastReceived = monotonicNow()
    /// Set when the transport broke; later operations fail fast.
    private(set) var lostReason: String? {
        didSet {
            guard lostReason != nil else { return }
            // The connection is abandoned: shut the socket so libssh2 sees it closed. Otherwise
            // freeing a channel on a dead peer waits (2 s) for a CHANNEL_CLOSE that never comes.
            if fd >= 0 { _ = shutdown(fd, Int32(SHUT_RDWR)) }
            onLost()
        }
    }
    /// Told (on this thread) when the transport is gone, so the owner can stop reusing it.
    var onLost: () -> Void = {}
    private static let tick = 0.1

    private init(target: SSHTarget, deadlines: SSHDeadlines, fd: Int32, session: OpaquePointer,
                 stats: UnsafeMutablePointer<xcf_io_stats>) {
        self.target = target
        self.deadlines = deadlines
        self.label = "\(target.host):\(target.port)"
        self.fd = fd
        self.session = session
        self.stats = stats
    }

    deinit {
        libssh2_session_free(session)
        if fd >= 0 { _ = closeFD(fd) }
        stats.deallocate()
    }

    // MARK: - Connect

    /// TCP connect, handshake, host-key check (before any authentication), authentication.
    static func open(target: SSHTarget, auth: SSHAuthMethod, knownHostsPath: String, policy: SSHHostKeyPolicy,
                     deadlines: SSHDeadlines, cancel: CancelFlag) throws -> SSHSession {
        let label = "\(target.host):\(target.port)"
        guard libssh2Initialized else { throw SSHError(.connect, host: label, "libssh2_init failed") }
        let fd = try connectSocket(target: target, timeout: deadlines.connect, cancel: cancel)
        let stats = UnsafeMutablePointer<xcf_io_stats>.allocate(capacity: 1)
        stats.initialize(to: xcf_io_stats(bytes_received: 0))
        guard let raw = xcf_session_init(stats) else {
            _ = closeFD(fd)
            stats.deallocate()
            throw SSHError(.handshake, host: label, "libssh2 could not create a session (out of memory?)")
        }
        let s = SSHSession(target: target, deadlines: deadlines, fd: fd, session: raw, stats: stats)
        libssh2_session_set_blocking(raw, 0)

        let known: KnownHosts
        do { known = try KnownHosts.load(path: knownHostsPath) } catch {
            throw SSHError(.hostKeyFile, host: label, "cannot read known_hosts file \(knownHostsPath): \(error.localizedDescription)")
        }
        let name = target.knownHostsName
        // libssh2 1.10 offers ECDSA first; ask for the key types this host is known by.
        let supported = ["ssh-ed25519", "ecdsa-sha2-nistp256", "ecdsa-sha2-nistp384", "ecdsa-sha2-nistp521", "ssh-rsa", "ssh-dss"]
        var preferred = known.keyTypes(for: name).filter(supported.contains)
        if preferred.isEmpty { preferred = supported }
        _ = libssh2_session_method_pref(raw, xcf_method_hostkey(), preferred.joined(separator: ","))

        let handshakeDeadline = monotonicNow() + deadlines.handshake
        try s.retry(deadline: handshakeDeadline, cancel: cancel, phase: .handshake,
                    timeoutMessage: "no SSH handshake within \(deadlines.handshake) s: is an SSH server listening on port \(target.port)?") {
            libssh2_session_handshake(raw, fd)
        }
        try s.verifyHostKey(known: known, path: knownHostsPath, policy: policy)
        try s.authenticate(auth, cancel: cancel)
        if deadlines.keepaliveInterval > 0 {
            libssh2_keepalive_config(raw, 1, UInt32(deadlines.keepaliveInterval))
        }
        return s
    }

    private static func connectSocket(target: SSHTarget, timeout: Double, cancel: CancelFlag) throws -> Int32 {
        let label = "\(target.host):\(target.port)"
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        #if canImport(Glibc)
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        #else
        hints.ai_socktype = SOCK_STREAM
        #endif
        var list: UnsafeMutablePointer<addrinfo>?
        let rc = getaddrinfo(target.host, String(target.port), &hints, &list)
        guard rc == 0, let first = list else {
            let why = String(cString: gai_strerror(rc))
            throw SSHError(.resolve, host: label, "cannot resolve host name '\(target.host)': \(why); check the address in the fleet file")
        }
        defer { freeaddrinfo(list) }
        var problems: [String] = []
        var cursor: UnsafeMutablePointer<addrinfo>? = first
        let deadline = monotonicNow() + timeout
        while let ai = cursor {
            cursor = ai.pointee.ai_next
            #if canImport(Glibc)
            let sockType = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
            #else
            let sockType = SOCK_STREAM
            #endif
            let fd = socket(ai.pointee.ai_family, sockType, 0)
            if fd < 0 { problems.append(String(cString: strerror(errno))); continue }
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            var one: Int32 = 1
            _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
            if connectFD(fd, ai.pointee.ai_addr, ai.pointee.ai_addrlen) == 0 { return fd }
            if errno != EINPROGRESS {
                problems.append(String(cString: strerror(errno)))
                _ = closeFD(fd)
                continue
            }
            var connected = false
            while true {
                if cancel.isCancelled {
                    _ = closeFD(fd)
                    throw SSHError(.cancelled, host: label, "connect cancelled")
                }
                let remaining = deadline - monotonicNow()
                if remaining <= 0 { problems.append("no answer within \(timeout) s"); break }
                var pfd = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
                let n = poll(&pfd, 1, Int32(min(remaining, tick) * 1000) + 1)
                if n < 0 && errno == EINTR { continue }
                if n > 0 {
                    var err: Int32 = 0
                    var len = socklen_t(MemoryLayout<Int32>.size)
                    _ = getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len)
                    if err == 0 { connected = true } else { problems.append(String(cString: strerror(err))) }
                    break
                }
            }
            if connected { return fd }
            _ = closeFD(fd)
        }
        let detail = problems.isEmpty ? "no address" : problems.joined(separator: "; ")
        throw SSHError(.connect, host: label, "cannot connect to \(label): \(detail); check that the host is up and sshd listens on port \(target.port)")
    }

    // MARK: - Exec

    /// Runs `command` (wrapped for process-group kill) on a new channel and drains stdout and
    /// stderr together until EOF. The exit status is trusted only after the server closed the
    /// channel cleanly (OpenSSH sends exit-status/exit-signal before CHANNEL_CLOSE); a broken
    /// transport yields `.connectionLost`, never a made-up 0.
    func exec(_ command: String, stdin: SSHInput?, silence: Double?, total: Double?, cancel: CancelFlag,
              output: (SSHStream, [UInt8]) -> Void) throws -> SSHExitResult {
        if let lostReason { return .connectionLost(lostReason) }
        if cancel.isCancelled { return .cancelled }
        let start = monotonicNow()
        let channel: OpaquePointer
        do { channel = try openChannel(cancel: cancel) } catch let error as SSHError where error.kind == .cancelled {
            return .cancelled
        }
        var channelFreed = false
        defer { if !channelFreed { freeChannel(channel) } }
        let wrapped = RemoteCommand.wrap(command)
        do {
            try retry(deadline: start + deadlines.operation, cancel: cancel, phase: .channel,
                      timeoutMessage: "the server did not start the command within \(deadlines.operation) s") {
                xcf_channel_exec(channel, wrapped)
            }
        } catch let error as SSHError where error.kind == .cancelled {
            return .cancelled
        }

        var filter = PgidMarkerFilter()
        let clock = ExecDeadline(start: start, total: total, silence: silence, deadPeer: deadlines.deadPeer)
        var lastOutput = monotonicNow()
        var pending: [UInt8] = []
        var pendingOffset = 0
        var source: (@Sendable () throws -> [UInt8]?)?
        var stdinDone = true
        switch stdin {
        case .none: break
        case .bytes(let b): pending = b; stdinDone = false
        case .stream(let next): source = next; stdinDone = false
        }
        var eofSent = false
        var buffer = [UInt8](repeating: 0, count: 65536)
        let eagain = Int(xcf_error_eagain())

        func drain(_ stream: SSHStream) throws -> Bool {
            var progressed = false
            while true {
                let n = buffer.withUnsafeMutableBufferPointer { p -> Int in
                    p.baseAddress!.withMemoryRebound(to: CChar.self, capacity: p.count) { c in
                        stream == .stdout ? xcf_channel_read(channel, c, p.count) : xcf_channel_read_stderr(channel, c, p.count)
                    }
                }
                if n > 0 {
                    progressed = true
                    let chunk = Array(buffer[0..<n])
                    switch stream {
                    case .stdout:
                        lastOutput = monotonicNow()
                        output(.stdout, chunk)
                    case .stderr:
                        let visible = filter.feed(chunk)
                        if !visible.isEmpty {
                            lastOutput = monotonicNow()
                            output(.stderr, visible)
                        }
                    }
                    continue
                }
                if n == eagain || n == 0 { return progressed }
                throw SSHError(.connectionLost, host: label, "reading command output failed: \(lastError())")
            }
        }

        while true {
            var progressed = false
            do {
                progressed = try drain(.stdout) || progressed
                progressed = try drain(.stderr) || progressed
                if !stdinDone {
                    if pendingOffset >= pending.count {
                        pending = []
                        pendingOffset = 0
                        if let source {
                            do {
                                if let next = try source() { pending = next } else { stdinDone = true }
                            } catch {
                                // The input failed: stop the command, report it to the caller.
                                killRemote(pgid: filter.pgid, cancel: cancel)
                                throw SSHError(.input, host: label, "stdin source failed: \(error)")
                            }
                        } else {
                            stdinDone = true
                        }
                        progressed = true
                    }
                    if !pending.isEmpty && pendingOffset < pending.count {
                        let n = pending.withUnsafeBufferPointer { p -> Int in
                            p.baseAddress!.advanced(by: pendingOffset).withMemoryRebound(to: CChar.self, capacity: p.count - pendingOffset) {
                                xcf_channel_write(channel, $0, min(p.count - pendingOffset, 1 << 20))
                            }
                        }
                        if n > 0 {
                            pendingOffset += n
                            progressed = true
                        } else if n != eagain {
                            // The command closed its stdin (exited early): stop sending, keep reading.
                            stdinDone = true
                            pending = []
                        }
                    }
                }
                if stdinDone && !eofSent {
                    let rc = libssh2_channel_send_eof(channel)
                    if rc == 0 { eofSent = true } else if Int(rc) != eagain { eofSent = true }
                }
                if libssh2_channel_eof(channel) == 1 { break }
                if let sessionError = keepalive() { throw sessionError }
            } catch let error as SSHError where error.kind == .connectionLost {
                lostReason = error.message
                return .connectionLost(error.message)
            }

            let now = monotonicNow()
            switch clock.decide(now: now, lastOutput: lastOutput, lastReceived: noteTraffic(now: now), cancelled: cancel.isCancelled) {
            case .keepGoing:
                if !progressed { waitSocket(timeout: Self.tick) }
            case .cancelled:
                killRemote(pgid: awaitPgid(channel: channel, filter: &filter, cancel: nil), cancel: nil)
                return .cancelled
            case .timedOut(let kind):
                killRemote(pgid: awaitPgid(channel: channel, filter: &filter, cancel: cancel), cancel: cancel)
                // The kill found the peer dead: nothing was killed and the host is gone, not slow.
                if let lostReason { return .connectionLost(lostReason) }
                return .timedOut(kind.rawValue)
            case .deadPeer(let seconds):
                let why = "nothing received from \(label) for \(Int(seconds)) s (dead peer)"
                lostReason = why
                return .connectionLost(why)
            }
        }

        let rest = filter.flush()
        if !rest.isEmpty { output(.stderr, rest) }
        // Clean end: our CLOSE, then the server's CLOSE.
        let closeDeadline = monotonicNow() + deadlines.operation
        do {
            try retry(deadline: closeDeadline, cancel: nil, phase: .channel, timeoutMessage: "channel close timed out") {
                libssh2_channel_close(channel)
            }
            try retry(deadline: closeDeadline, cancel: nil, phase: .channel, timeoutMessage: "channel close timed out") {
                libssh2_channel_wait_closed(channel)
            }
        } catch let error as SSHError {
            if error.kind == .connectionLost { lostReason = error.message }
            return .connectionLost("the channel did not close cleanly, exit status unknown: \(error.message)")
        }
        var signal: UnsafeMutablePointer<CChar>?
        var signalLen = 0
        _ = libssh2_channel_get_exit_signal(channel, &signal, &signalLen, nil, nil, nil, nil)
        if let signal {
            let name = String(cString: signal)
            libssh2_free(session, signal)
            if !name.isEmpty { return .signaled(name) }
        }
        let status = libssh2_channel_get_exit_status(channel)
        freeChannel(channel)
        channelFreed = true
        return .exited(status)
    }

    private func openChannel(cancel: CancelFlag) throws -> OpaquePointer {
        let deadline = monotonicNow() + deadlines.operation
        while true {
            if let ch = xcf_channel_open_session(session) { return ch }
            var code: Int32 = 0
            let message = String(cString: xcf_last_error(session, &code))
            if code != xcf_error_eagain() {
                throw SSHError(isTransport(code) ? .connectionLost : .channel, host: label,
                               "cannot open a channel: \(message)")
            }
            try checkWait(deadline: deadline, cancel: cancel, phase: .channel, timeoutMessage: "cannot open a channel within \(deadlines.operation) s")
        }
    }

    private func freeChannel(_ channel: OpaquePointer) {
        let deadline = monotonicNow() + 2
        while libssh2_channel_free(channel) == xcf_error_eagain() && monotonicNow() < deadline {
            waitSocket(timeout: 0.05)
        }
    }

    /// The pgid marker is the first stderr line; if a kill comes before it was read, read a bit more.
    private func awaitPgid(channel: OpaquePointer, filter: inout PgidMarkerFilter, cancel: CancelFlag?) -> Int32? {
        if let pgid = filter.pgid { return pgid }
        let deadline = monotonicNow() + 3
        var buffer = [UInt8](repeating: 0, count: 4096)
        while filter.pgid == nil && monotonicNow() < deadline && lostReason == nil {
            let n = buffer.withUnsafeMutableBufferPointer { p in
                p.baseAddress!.withMemoryRebound(to: CChar.self, capacity: p.count) { xcf_channel_read_stderr(channel, $0, p.count) }
            }
            if n > 0 { _ = filter.feed(Array(buffer[0..<n])); continue }
            if n != Int(xcf_error_eagain()) { break }
            // Stdout may hold the window; discard it while we wait for the marker.
            _ = buffer.withUnsafeMutableBufferPointer { p in
                p.baseAddress!.withMemoryRebound(to: CChar.self, capacity: p.count) { xcf_channel_read(channel, $0, p.count) }
            }
            waitSocket(timeout: 0.05)
        }
        return filter.pgid
    }

    /// Kills process group `pgid` through a second channel (TERM, then KILL), bounded by the operation deadline.
    private func killRemote(pgid: Int32?, cancel: CancelFlag?) {
        guard let pgid, lostReason == nil else { return }
        let deadline = monotonicNow() + min(deadlines.operation, 10)
        guard let channel = try? openChannel(cancel: CancelFlag()) else { return }
        defer { freeChannel(channel) }
        let script = RemoteCommand.killScript(pgid: pgid)
        guard (try? retry(deadline: deadline, cancel: nil, phase: .channel, timeoutMessage: "kill") {
            xcf_channel_exec(channel, script)
        }) != nil else { return }
        _ = libssh2_channel_send_eof(channel)
        var buffer = [UInt8](repeating: 0, count: 4096)
        while monotonicNow() < deadline {
            let a = buffer.withUnsafeMutableBufferPointer { p in
                p.baseAddress!.withMemoryRebound(to: CChar.self, capacity: p.count) { xcf_channel_read(channel, $0, p.count) }
            }
            let b = buffer.withUnsafeMutableBufferPointer { p in
                p.baseAddress!.withMemoryRebound(to: CChar.self, capacity: p.count) { xcf_channel_read_stderr(channel, $0, p.count) }
            }
            if libssh2_channel_eof(channel) == 1 { break }
            if a < 0 && a != Int(xcf_error_eagain()) { break }
            if b < 0 && b != Int(xcf_error_eagain()) { break }
            if a <= 0 && b <= 0 { waitSocket(timeout: 0.05) }
        }
        _ = try? retry(deadline: deadline, cancel: nil, phase: .channel, timeoutMessage: "kill close") {
            libssh2_channel_close(channel)
        }
    }

    // MARK: - Close

    func disconnect() {
        guard lostReason == nil else { return }
        let deadline = monotonicNow() + 2
        while xcf_session_disconnect(session, "bye") == xcf_error_eagain() && monotonicNow() < deadline {
            waitSocket(timeout: 0.05)
        }
        lostReason = "connection closed"
    }

    // MARK: - Waiting

    enum Phase { case handshake, authentication, channel }

    /// Calls `op` until it stops returning EAGAIN; a negative result becomes an `SSHError`.
    @discardableResult
    func retry(deadline: Double, cancel: CancelFlag?, phase: Phase, timeoutMessage: String,
                       _ op: () -> Int32) throws -> Int32 {
        while true {
            let rc = op()
            if rc >= 0 { return rc }
            if rc != xcf_error_eagain() {
                let message = lastError()
                let kind: SSHError.Kind
                if isTransport(rc) {
                    kind = phase == .handshake ? .handshake : .connectionLost
                } else {
                    switch phase {
                    case .handshake: kind = .handshake
                    case .authentication: kind = .authentication
                    case .channel: kind = .channel
                    }
                }
                let prefix = phase == .handshake ? "SSH handshake failed: " : ""
                throw SSHError(kind, host: label, prefix + message)
            }
            try checkWait(deadline: deadline, cancel: cancel, phase: phase, timeoutMessage: timeoutMessage)
        }
    }

    private func checkWait(deadline: Double, cancel: CancelFlag?, phase: Phase, timeoutMessage: String) throws {
        if let cancel, cancel.isCancelled { throw SSHError(.cancelled, host: label, "cancelled") }
        let now = monotonicNow()
        if now >= deadline { throw SSHError(.timeout, host: label, timeoutMessage) }
        if phase == .channel, now - noteTraffic(now: now) > deadlines.deadPeer {
            lostReason = "nothing received for \(Int(deadlines.deadPeer)) s (dead peer)"
            throw SSHError(.connectionLost, host: label, lostReason ?? "")
        }
        waitSocket(timeout: min(deadline - now, Self.tick))
    }

    /// When a byte last came from the peer (updated from libssh2's transport counter).
    private func noteTraffic(now: Double) -> Double {
        let received = stats.pointee.bytes_received
        if received != seenBytes {
            seenBytes = received
            lastReceived = now
        }
        return lastReceived
    }

    /// Sends a keepalive when due; a send failure means the transport is gone.
    private func keepalive() -> SSHError? {
        guard deadlines.keepaliveInterval > 0 else { return nil }
        var next: Int32 = 0
        let rc = libssh2_keepalive_send(session, &next)
        if rc != 0 && rc != xcf_error_eagain() {
            return SSHError(.connectionLost, host: label, "keepalive failed: \(lastError())")
        }
        return nil
    }

    private func waitSocket(timeout: Double) {
        let dirs = libssh2_session_block_directions(session)
        var events: Int16 = 0
        if dirs & xcf_block_inbound() != 0 { events |= Int16(POLLIN) }
        if dirs & xcf_block_outbound() != 0 { events |= Int16(POLLOUT) }
        if events == 0 { events = Int16(POLLIN) }
        var pfd = pollfd(fd: fd, events: events, revents: 0)
        _ = poll(&pfd, 1, max(1, Int32(timeout * 1000)))
    }

    func lastError() -> String {
        var code: Int32 = 0
        let message = String(cString: xcf_last_error(session, &code))
        return message.isEmpty ? "libssh2 error \(code)" : message
    }

    /// Errors that mean the TCP connection or the SSH transport is gone.
    private func isTransport(_ code: Int32) -> Bool {
        [LIBSSH2_ERROR_SOCKET_SEND, LIBSSH2_ERROR_SOCKET_RECV, LIBSSH2_ERROR_SOCKET_DISCONNECT,
         LIBSSH2_ERROR_SOCKET_TIMEOUT, LIBSSH2_ERROR_BANNER_RECV, LIBSSH2_ERROR_BANNER_SEND,
         LIBSSH2_ERROR_KEX_FAILURE, LIBSSH2_ERROR_DECRYPT, LIBSSH2_ERROR_TIMEOUT].contains(code)
    }
}
