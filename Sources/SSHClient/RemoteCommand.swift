/// How commands are started so they can be killed: every command runs as
///
///     exec perl -e '<print pgid to stderr>; exec @ARGV' -- /bin/sh -c '<command>'
///
/// sshd starts an exec request in a new session (`setsid`), so the command's process group id is
/// its pid; perl makes sure of it (`setpgrp` otherwise), prints `XCFLEET-PGID=<pgid>` as the
/// first stderr line and execs `sh -c`. That marker line is removed from the output stream. On
/// cancel or deadline a second channel runs `kill -TERM -<pgid>`, then `kill -KILL` if the group
/// still has live members after ~2 s. macOS has neither `setsid(1)` nor GNU `timeout`; perl is on both.
enum RemoteCommand {
    static let markerPrefix: [UInt8] = Array("XCFLEET-PGID=".utf8)

    static func wrap(_ command: String) -> String {
        let script = #"setpgrp(0,0) if getpgrp() != $$; print STDERR "XCFLEET-PGID=".getpgrp()."\n"; exec @ARGV or exit 127"#
        return "exec perl -e '\(script)' -- /bin/sh -c \(quote(command))"
    }

    /// The kill script for process group `pgid`: TERM, wait up to ~2 s for every non-zombie
    /// member to go (`kill -0` alone would count zombies that nobody reaps), then KILL.
    /// `ps -A -o pgid= -o stat=` and awk behave the same on Linux and macOS.
    static func killScript(pgid: Int32) -> String {
        let g = "\(pgid)"
        return "kill -TERM -- -\(g) 2>/dev/null; i=0; while [ $i -lt 20 ]; do "
            + "ps -A -o pgid= -o stat= | awk -v g=\(g) '$1==g && $2 !~ /^Z/ {f=1} END {exit !f}' || exit 0; "
            + "sleep 0.1; i=$((i+1)); done; kill -KILL -- -\(g) 2>/dev/null; exit 0"
    }

    /// POSIX single-quote quoting.
    static func quote(_ s: String) -> String {
        "'" + s.replacingOccurrences(of: "'", with: #"'\''"#) + "'"
    }
}

/// Strips the `XCFLEET-PGID=<n>` first line from stderr, whatever the chunking, and remembers n.
struct PgidMarkerFilter {
    private enum State {
        case awaiting([UInt8])
        case passing
    }

    private var state: State = .awaiting([])
    private(set) var pgid: Int32?

    /// Bytes to deliver for an incoming stderr chunk.
    mutating func feed(_ chunk: [UInt8]) -> [UInt8] {
        switch state {
        case .passing:
            return chunk
        case .awaiting(var buffer):
            buffer += chunk
            let prefix = RemoteCommand.markerPrefix
            let compared = min(buffer.count, prefix.count)
            if Array(buffer[0..<compared]) != Array(prefix[0..<compared]) {
                state = .passing
                return buffer
            }
            guard let newline = buffer.firstIndex(of: 0x0A) else {
                if buffer.count > 64 {
                    state = .passing
                    return buffer
                }
                state = .awaiting(buffer)
                return []
            }
            let digits = String(decoding: buffer[prefix.count..<newline], as: UTF8.self)
            pgid = Int32(digits).flatMap { $0 > 1 ? $0 : nil }
            state = .passing
            return Array(buffer[(newline + 1)...])
        }
    }

    /// Bytes held back at the end of the stream (an incomplete marker-looking line).
    mutating func flush() -> [UInt8] {
        switch state {
        case .passing: return []
        case .awaiting(let buffer):
            state = .passing
            return buffer
        }
    }
}
