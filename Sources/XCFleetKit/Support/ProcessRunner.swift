import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import XCFleetModel

/// Runs a local process in its own process group and streams its output, without ever blocking
/// the Swift concurrency pool: the process is started through Foundation, and one dedicated
/// thread per command polls both pipes, enforces the deadlines and reaps the process.
public enum ProcessRunner {
    /// The process gets its own group (so a kill reaches its children) through perl's `setpgrp`,
    /// the same mechanism used on SSH hosts (macOS has no `setsid` binary).
    /// It also clears the signal mask and resets dispositions: a child inherits both from the thread
    /// that started it, and threads of the concurrency pool and of xcfleet's signal handling block or
    /// ignore signals (seen here: an `sh` job with `&`/`wait` hung with SIGCHLD blocked).
    static let groupWrapper = ["/usr/bin/env", "perl", "-e",
                               "use POSIX (); setpgrp(0,0); POSIX::sigprocmask(POSIX::SIG_SETMASK(), POSIX::SigSet->new()); $SIG{$_} = 'DEFAULT' for qw(INT TERM HUP QUIT PIPE CHLD); exec { $ARGV[0] } @ARGV or die \"xcfleet: cannot start $ARGV[0]: $!\\n\";",
                               "--"]

    public static func run(_ arguments: [String], directory: String?, environment: [String: String],
                           deadlines: CommandDeadlines,
                           output: @escaping @Sendable (OutputChunk) -> Void) async throws -> CommandTermination {
        let control = Control()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (cont: CheckedContinuation<CommandTermination, Error>) in
                let process = Process()
                process.executableURL = URL(fileURLWithPath: groupWrapper[0])
                process.arguments = Array(groupWrapper.dropFirst()) + arguments
                if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
                var env = ProcessInfo.processInfo.environment
                for (k, v) in environment { env[k] = v }
                process.environment = env
                let out = Pipe(), err = Pipe()
                process.standardOutput = out
                process.standardError = err
                process.standardInput = FileHandle.nullDevice
                do {
                    try process.run()
                } catch {
                    cont.resume(throwing: RemoteShellError(.command, host: "local", "cannot start \(arguments.first ?? "?"): \(error.localizedDescription)"))
                    return
                }
                let pid = process.processIdentifier
                let thread = Thread {
                    let result = pump(process: process, pid: pid, fds: [out.fileHandleForReading.fileDescriptor, err.fileHandleForReading.fileDescriptor],
                                      deadlines: deadlines, control: control, output: output)
                    try? out.fileHandleForReading.close()
                    try? err.fileHandleForReading.close()
                    cont.resume(returning: result)
                }
                thread.name = "xcfleet-process-\(pid)"
                thread.start()
            }
        } onCancel: {
            control.cancel()
        }
    }

    /// Cancellation flag shared between the caller and the pump thread.
    final class Control: @unchecked Sendable {
        private let lock = NSLock()
        private var cancelled = false
        func cancel() { lock.lock(); cancelled = true; lock.unlock() }
        var isCancelled: Bool { lock.lock(); defer { lock.unlock() }; return cancelled }
    }

    /// Kills the whole process group: TERM, then KILL after a grace period.
    static func killGroup(_ pid: Int32, grace: Double = 2) {
        if kill(-pid, SIGTERM) != 0 { _ = kill(pid, SIGTERM) }
        let deadline = Date().addingTimeInterval(grace)
        while Date() < deadline {
            if kill(-pid, 0) != 0 { return }
            usleep(50_000)
        }
        if kill(-pid, SIGKILL) != 0 { _ = kill(pid, SIGKILL) }
    }

    private static func pump(process: Process, pid: Int32, fds: [Int32], deadlines: CommandDeadlines, control: Control,
                             output: @Sendable (OutputChunk) -> Void) -> CommandTermination {
        let start = Date()
        var lastOutput = start
        var open = fds
        var buffer = [UInt8](repeating: 0, count: 65536)
        var verdict: CommandTermination?
        var killedAt: Date?
        while !open.isEmpty {
            // After a kill, drain what is left for a few seconds at most: a process that left the
            // group may still hold the pipes open, and must not hold the job with it.
            if let killedAt, Date().timeIntervalSince(killedAt) > 5 { break }
            var pollfds = open.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            let n = poll(&pollfds, nfds_t(pollfds.count), 200)
            if n > 0 {
                for p in pollfds where p.revents != 0 {
                    let count = read(p.fd, &buffer, buffer.count)
                    if count > 0 {
                        lastOutput = Date()
                        output(OutputChunk(stream: p.fd == fds[0] ? .stdout : .stderr, bytes: Array(buffer[0..<count])))
                    } else if count == 0 || (errno != EINTR && errno != EAGAIN) {
                        open.removeAll { $0 == p.fd }
                    }
                }
            }
            if verdict == nil {
                let now = Date()
                if control.isCancelled { verdict = .cancelled }
                else if now.timeIntervalSince(start) > deadlines.total { verdict = .timedOut("total") }
                else if now.timeIntervalSince(lastOutput) > deadlines.silence { verdict = .timedOut("silence") }
                if verdict != nil { killGroup(pid); killedAt = Date() }
            }
        }
        // Both pipes closed: the process (or at least every writer) is gone. A group member that
        // detached its output may still run: make sure the group is gone when we were asked to stop.
        process.waitUntilExit()
        if let verdict { return verdict }
        switch process.terminationReason {
        case .exit: return .exited(process.terminationStatus)
        case .uncaughtSignal: return .signaled(signalName(process.terminationStatus))
        @unknown default: return .exited(process.terminationStatus)
        }
    }

    static func signalName(_ n: Int32) -> String {
        let names: [Int32: String] = [SIGABRT: "SIGABRT", SIGKILL: "SIGKILL", SIGTERM: "SIGTERM", SIGSEGV: "SIGSEGV",
                                      SIGILL: "SIGILL", SIGTRAP: "SIGTRAP", SIGBUS: "SIGBUS", SIGINT: "SIGINT", SIGHUP: "SIGHUP"]
        return names[n] ?? "signal \(n)"
    }
}
