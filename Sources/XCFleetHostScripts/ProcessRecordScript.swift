import Foundation
import XCFleetModel

/// Process records: every attempt's remote process group, written on the host next to the slot
/// leases, so a group whose connection was lost can be killed later — by this run when the host
/// is reachable again, or by the next run's admission.
///
/// Layout: `<workRoot>/.xcfleet-leases/procs/<lease>/<token>` (lease: the holder's lease id on
/// that host, as in `HostLeaseScript`; token: the attempt, `<job>-a<n>`), a `key=value` file:
/// `pgid` (the command's process group, `$$` of the shell sshd started: the group leader),
/// `start` (the leader's `ps -o lstart=`), `boot` (the host's boot: Linux
/// `/proc/sys/kernel/random/boot_id`, macOS `sysctl -n kern.boottime`), `dir` (the job
/// directory), `run`, `lease`. The wrapper writes it (mode 600, atomic rename) into folders it
/// creates with mode 700 whatever the umask, and refuses (exit 97, one `xcfleet: refusing …` line)
/// folders that are not the login user's or that others can write; then it `exec`s the command,
/// so signals, exit statuses and the group are the command's own.
///
/// Killing a record's group, only when everything identifies it as the one xcfleet recorded: the
/// record is a regular file of the user in a private folder and parses completely (every key once,
/// nothing else; `pgid` a number above 1, `start` and `boot` not empty, `dir` absolute), it was
/// written since the host's last boot, the group's leader (pid = pgid) is alive, runs as the login
/// user and started at the recorded time. Then `TERM` + `CONT` (a stopped process gets the TERM),
/// up to 2 s for the group to go, then `KILL`. A record that fails any of these is reported
/// (`ignored TOKEN WHY`) and removed, nothing else; a live leader of another start time is a
/// reused pid (`reused`, not killed). The record's `dir` is removed only when it is a job folder
/// of this work root (`<workRoot>/jobs/<id>-<8 hex>` of the local host, `<workRoot>/<id>.<8>` of
/// `mktemp` on SSH hosts), the user's own directory, reached without symlinks.
///
/// Ownership, as for leases: `acquire` (every admission) reaps every lease folder whose lease is
/// not held by a live slot lease (heartbeat within the TTL, holder not named dead) — the records of
/// dead runs; `reap` reaps this holder's own records except the attempts still running (a host
/// that comes back mid-run); `finish` reaps one record at the end of its attempt.
package enum ProcessRecordScript {
    package static let directoryName = "procs"

    /// `<leaseRoot>/procs/<lease>`.
    package static func directory(leaseRoot: String, lease: String) -> String {
        leaseRoot + "/" + directoryName + "/" + HostLeaseScript.clean(lease)
    }

    /// `<job>-a<attempt>`, safe as a file name.
    package static func token(jobID: String, attempt: Int) -> String {
        HostLeaseScript.clean("\(jobID)-a\(attempt)")
    }

    /// `command`, recording its process group first: `sh -c '<record>; exec "$@"' … command…`.
    /// Every value travels as an argument.
    package static func wrap(_ command: ShellCommand, directory: String, token: String, runID: String, lease: String) -> ShellCommand {
        let script = WorkRootSafety.shellFunctions + HostScriptSource.processRecordWrap
        return ShellCommand(["sh", "-c", script, "xcfleet-job", directory, token, HostLeaseScript.clean(runID), HostLeaseScript.clean(lease)]
                            + command.arguments, environment: command.environment, input: command.input)
    }

    /// Reaps one record (the attempt's end): `finish ROOT LEASE TOKEN`.
    package static func finish(leaseRoot: String, lease: String, token: String) -> ShellCommand {
        HostLeaseScript.command(["finish", leaseRoot, HostLeaseScript.clean(lease), token])
    }

    /// Reaps this holder's records on the host except `keep` (tokens of attempts still running): `reap ROOT LEASE KEEP`.
    package static func reap(leaseRoot: String, lease: String, keep: [String]) -> ShellCommand {
        HostLeaseScript.command(["reap", leaseRoot, HostLeaseScript.clean(lease), keep.joined(separator: ",")])
    }

    /// Perl subs shared with `HostLeaseScript.perl` (needs `remove_tree`, `$root` and `fatal`).
    /// `reap_record(FILE)` returns `(pgid, status, why)`: status `killed`, `gone`, `reused`, or
    /// `ignored` with why. `reap_lease_dir(DIR, KEEP-HASHREF, REMOVE)` reaps every record in DIR not
    /// kept and prints `reaped TOKEN PGID STATUS` or `ignored TOKEN WHY` lines; removes DIR when
    /// empty and REMOVE (a dead lease's folder only: a live holder may be creating a record in it).
    /// `private_dir(DIR)` is '' for a directory of the user that others cannot write, else why not.
    package static let perlSubs = HostScriptSource.processRecordsPerl
}
