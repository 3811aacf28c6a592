import Foundation
import XCFleetModel

/// Process records: every attempt's remote process group, written on the host next to the slot
/// leases, so a group whose connection was lost can be killed later — by this run when the host
/// is reachable again, or by the next run's admission.
///
/// Layout: `<workRoot>/.xcfleet-leases/procs/<lease>/<token>` (lease: the holder's lease id on
/// that host, as in `HostLeaseScript`; token: the attempt, `<job>-a<n>`), a `key=value` file:
/// `pgid` (the command's process group, `$$` of the shell sshd started: the group leader),
/// `start` (the leader's `ps -o lstart=`, so a reused pid is never killed), `dir` (the job
/// directory), `run`, `lease`. The wrapper writes it (atomic rename) and then `exec`s the command,
/// so signals, exit statuses and the group are the command's own.
///
/// Killing a record's group: nothing when no live (non-zombie) member is left; skipped when the
/// leader is alive but started at another time (pid reused); else `TERM` + `CONT` (a stopped
/// process gets the TERM), up to 2 s for the group to go, then `KILL`. The record's job directory
/// is removed too (only below the work root, never a dot folder there), then the record.
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
        let script = #"d=$1; f=$2; r=$3; l=$4; shift 4; "#
            + #"mkdir -p "$d" 2>/dev/null && printf 'pgid=%s\nstart=%s\ndir=%s\nrun=%s\nlease=%s\n' "$$" "$(ps -o lstart= -p $$ 2>/dev/null)" "$PWD" "$r" "$l" > "$d/.$f.tmp" && mv -f "$d/.$f.tmp" "$d/$f"; "#
            + #"exec "$@""#
        return ShellCommand(["sh", "-c", script, "xcfleet-job", directory, token, HostLeaseScript.clean(runID), HostLeaseScript.clean(lease)]
                            + command.arguments, environment: command.environment)
    }

    /// Reaps one record (the attempt's end): `finish ROOT LEASE TOKEN`.
    package static func finish(leaseRoot: String, lease: String, token: String) -> ShellCommand {
        HostLeaseScript.command(["finish", leaseRoot, HostLeaseScript.clean(lease), token])
    }

    /// Reaps this holder's records on the host except `keep` (tokens of attempts still running): `reap ROOT LEASE KEEP`.
    package static func reap(leaseRoot: String, lease: String, keep: [String]) -> ShellCommand {
        HostLeaseScript.command(["reap", leaseRoot, HostLeaseScript.clean(lease), keep.joined(separator: ",")])
    }

    /// Perl subs shared with `HostLeaseScript.perl` (needs `remove_tree` and `$root`).
    /// `reap_record(FILE)` returns `(pgid, status)`: status `killed`, `gone`, `reused` or `none`.
    /// `reap_lease_dir(DIR, KEEP-HASHREF, REMOVE)` reaps every record in DIR not kept and prints
    /// `reaped TOKEN PGID STATUS` lines; removes DIR when empty and REMOVE (a dead lease's folder
    /// only: a live holder may be creating a record in it).
    package static let perlSubs = #"""
sub ps_groups {
  my %g; open(my $ps, '-|', 'ps', '-A', '-o', 'pid=', '-o', 'pgid=', '-o', 'stat=') or return \%g;
  while (my $l = <$ps>) { my ($p, $pg, $st) = split ' ', $l; next unless defined $st && $st !~ /^Z/; push @{$g{$pg}}, $p; }
  close $ps; return \%g;
}
sub norm { my ($s) = @_; $s //= ''; $s =~ s/\s+/ /g; $s =~ s/^ | $//g; return $s; }
sub lstart { my ($p) = @_; open(my $ps, '-|', 'ps', '-o', 'lstart=', '-p', $p) or return ''; local $/; my $s = <$ps>; close $ps; return norm($s); }
sub reap_record {
  my ($file) = @_;
  my %r;
  if (open(my $f, '<', $file)) { while (my $l = <$f>) { chomp $l; my ($k, $v) = split /=/, $l, 2; $r{$k} = $v if defined $v; } close $f; }
  my $g = $r{pgid} // ''; my $status = 'none';
  if ($g =~ /^\d{1,10}$/ && $g > 1) {
    my $groups = ps_groups();
    if (!$groups->{$g}) { $status = 'gone'; }
    else {
      my $leader = grep { $_ == $g } @{$groups->{$g}};
      my $start = norm($r{start});
      if ($leader && $start ne '' && lstart($g) ne $start) { $status = 'reused'; }
      else {
        kill('-TERM', $g); kill('-CONT', $g);
        my $n = 0;
        while ($n++ < 20) { select(undef, undef, undef, 0.1); last unless ps_groups()->{$g}; }
        kill('-KILL', $g) if ps_groups()->{$g};
        $status = 'killed';
      }
    }
  }
  (my $work = $root) =~ s{/[^/]+$}{};
  my $dir = $r{dir} // '';
  my $below = index($dir, "$work/") == 0 ? substr($dir, length($work) + 1) : '';
  if ($work ne '' && $below =~ m{[^/]} && $below !~ m{(^|/)\.}) { remove_tree($dir); }
  unlink $file;
  return ($g, $status);
}
sub reap_lease_dir {
  my ($dir, $keep, $remove) = @_;
  opendir(my $dh, $dir) or return;
  my @e = grep { $_ ne '.' && $_ ne '..' } readdir $dh; closedir $dh;
  for my $e (sort @e) {
    if ($e =~ /^\./) { unlink "$dir/$e"; next; }
    next if $keep->{$e};
    my ($g, $status) = reap_record("$dir/$e");
    print join("\t", 'reaped', $e, $g, $status), "\n";
  }
  rmdir $dir if $remove;
}
"""#
}
