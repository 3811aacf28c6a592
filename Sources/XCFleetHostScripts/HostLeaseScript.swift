import Foundation
import XCFleetModel
import XCFleetBasics

/// The one command that reads and changes slot leases on a host (macOS or Linux: POSIX + perl 5).
///
/// Layout under `<workRoot>/.xcfleet-leases/`:
/// - `lock`: a file every lease command holds an exclusive `flock` on while it runs (milliseconds);
///   the kernel drops it when the command dies, so it can never go stale.
/// - `slot-N/`: the lease of slot N, made with an atomic `mkdir`; `slot-N/holder` holds
///   `key=value` lines: `run`, `lease` (a unique id per holder and host), `host`, `pid`
///   (the orchestrator's), `acquired` and `heartbeat` (epoch seconds of the host's own clock,
///   so clocks of different orchestrators never matter). The holder file is replaced atomically.
/// - A lease is stale when its heartbeat is older than the TTL, when it has no readable holder
///   and is older than the TTL, or when the caller names its lease id as dead (the orchestrator
///   found the holder's pid gone on its own machine). A stale lease is renamed to
///   `slot-N.gone.*` and removed, then the slot is taken with `mkdir` like a free one.
///
/// Arguments are positional (never spliced into the script): `MODE ROOT …`
/// - `acquire ROOT WANT RUN LEASE HOST PID TTL DEADLEASES` (comma-separated lease ids)
/// - `heartbeat ROOT RUN LEASE SLOTS` / `release ROOT RUN LEASE SLOTS` (comma-separated numbers)
/// - `finish ROOT LEASE TOKEN` / `reap ROOT LEASE KEEP`: process records (`ProcessRecordScript`);
///   `acquire` also reaps the records of every lease no live slot lease holds.
///
/// Output: one tab-separated line per slot: `acquired N`, `held N` (already ours),
/// `busy N RUN LEASE HOST PID AGE`, `reclaimed N RUN LEASE HOST PID WHY`, `ok N`, `lost N`,
/// `released N`, `notours N`, `error N WHY`, `reaped TOKEN PGID STATUS`, `ignored TOKEN WHY` (a process
/// record not acted on); a failure of the whole command is `fatal WHY`, exit 3 (e.g. a lease or
/// process-record folder that is not private to the login user).
package enum HostLeaseScript {
    package static let directoryName = ".xcfleet-leases"

    package static func acquire(root: String, want: Int, runID: String, lease: String, holder: LeaseHolder, ttl: Int,
                        deadLeases: [String]) -> ShellCommand {
        command(["acquire", root, String(want), runID, lease, holder.hostname, String(holder.pid), String(ttl),
                 deadLeases.joined(separator: ",")])
    }

    package static func heartbeat(root: String, runID: String, lease: String, slots: [Int]) -> ShellCommand {
        command(["heartbeat", root, runID, lease, slots.map(String.init).joined(separator: ",")])
    }

    package static func release(root: String, runID: String, lease: String, slots: [Int]) -> ShellCommand {
        command(["release", root, runID, lease, slots.map(String.init).joined(separator: ",")])
    }

    /// `sh -c 'exec perl -e "$0" -- "$@"' SCRIPT ARGS…`: the script and every value travel as arguments.
    package static func command(_ arguments: [String]) -> ShellCommand {
        ShellCommand(["sh", "-c", "exec perl -e \"$0\" -- \"$@\"", script] + arguments)
    }

    /// Shell text for a line that runs several lease commands: `definition` sets `$xcf_lease` to
    /// the script once, and `invocation(of:)` runs one `command(…)` through it (nil for any other
    /// command). Two commands then do not send the script twice in one exec request.
    package static let definition = "xcf_lease=" + ShellQuote.quote(script)
    package static func invocation(of command: ShellCommand) -> String? {
        let prefix = self.command([]).arguments
        guard command.environment.isEmpty, command.input == nil, command.arguments.starts(with: prefix) else { return nil }
        return "perl -e \"$xcf_lease\" -- " + ShellQuote.join(Array(command.arguments.dropFirst(prefix.count)))
    }

    /// `lease.pl` followed by the process-record subs it calls (perl compiles every sub before it runs).
    package static let script = HostScriptSource.leasePerl + ProcessRecordScript.perlSubs

    /// Keeps a value usable in a `key=value` line and a tab-separated reply.
    package static func clean(_ value: String) -> String {
        let kept = value.unicodeScalars.map { s -> Character in
            let c = Character(s)
            return (s.isASCII && (c.isLetter || c.isNumber)) || "._:@+-".unicodeScalars.contains(s) ? c : "_"
        }
        return String(String(kept).prefix(200))
    }

    }
