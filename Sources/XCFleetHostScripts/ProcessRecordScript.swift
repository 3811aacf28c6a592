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
        let script = WorkRootSafety.shellFunctions + #"""
d=$1; f=$2; r=$3; l=$4; shift 4
p=$(dirname "$d"); m=$(umask); umask 077
xcf_private "$(dirname "$p")" && xcf_private "$p" && xcf_private "$d" || exit 97
boot=$(cat /proc/sys/kernel/random/boot_id 2>/dev/null || sysctl -n kern.boottime 2>/dev/null)
printf 'pgid=%s\nstart=%s\nboot=%s\ndir=%s\nrun=%s\nlease=%s\n' "$$" "$(ps -o lstart= -p $$ 2>/dev/null)" "$boot" "$PWD" "$r" "$l" > "$d/.$f.tmp" && mv -f "$d/.$f.tmp" "$d/$f"
umask "$m"
exec "$@"
"""#
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

    /// Perl subs shared with `HostLeaseScript.perl` (needs `remove_tree`, `$root` and `fatal`).
    /// `reap_record(FILE)` returns `(pgid, status, why)`: status `killed`, `gone`, `reused`, or
    /// `ignored` with why. `reap_lease_dir(DIR, KEEP-HASHREF, REMOVE)` reaps every record in DIR not
    /// kept and prints `reaped TOKEN PGID STATUS` or `ignored TOKEN WHY` lines; removes DIR when
    /// empty and REMOVE (a dead lease's folder only: a live holder may be creating a record in it).
    /// `private_dir(DIR)` is '' for a directory of the user that others cannot write, else why not.
    package static let perlSubs = #"""
sub ps_groups {
  my %g; open(my $ps, '-|', 'ps', '-A', '-o', 'pid=', '-o', 'pgid=', '-o', 'stat=') or return \%g;
  while (my $l = <$ps>) { my ($p, $pg, $st) = split ' ', $l; next unless defined $st && $st !~ /^Z/; push @{$g{$pg}}, $p; }
  close $ps; return \%g;
}
sub norm { my ($s) = @_; $s //= ''; $s =~ s/\s+/ /g; $s =~ s/^ | $//g; return $s; }
sub ps_field { my ($f, $p) = @_; open(my $ps, '-|', 'ps', '-o', "$f=", '-p', $p) or return ''; local $/; my $s = <$ps>; close $ps; return norm($s); }
sub boot_id {
  if (open(my $f, '<', '/proc/sys/kernel/random/boot_id')) { local $/; my $b = <$f>; close $f; return norm($b); }
  open(my $s, '-|', 'sysctl', '-n', 'kern.boottime') or return ''; local $/; my $b = <$s>; close $s; return norm($b);
}
sub private_dir {
  my ($d) = @_;
  my @st = lstat($d);
  return 'missing' unless @st;
  return 'a symlink' if -l _;
  return 'not a directory' unless -d _;
  return "owned by uid $st[4], not by uid $<" if $st[4] != $<;
  return sprintf('group- or world-writable (mode %03o)', $st[2] & 07777) if $st[2] & 022;
  return '';
}
sub clean_why { my ($s) = @_; $s =~ s/[^ -~]/?/g; return substr($s, 0, 200); }
# A job folder of this work root: the local host's jobs/<id>-<8 hex> or an SSH host's <id>.<mktemp 8>,
# a directory of the user, its path free of symlinks. Returns the path to remove, or ''.
sub job_dir {
  my ($dir) = @_;
  (my $work = $root) =~ s{/[^/]+$}{};
  return '' if $work eq '' || $dir !~ m{^/} || $dir =~ m{(^|/)\.\.?(/|$)};
  my ($parent, $name) = $dir =~ m{^(.*)/([^/]+)$} or return '';
  my $rw = eval { Cwd::realpath($work) } // return '';
  my $rp = eval { Cwd::realpath($parent) } // return '';
  my $ok = ($rp eq "$rw/jobs" && $name =~ /^[A-Za-z0-9._-]*-[0-9a-f]{8}$/)
        || ($rp eq $rw && $name =~ /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,63}\.[A-Za-z0-9]{8}$/);
  return '' unless $ok && $name !~ /^\./;
  my @st = lstat("$rp/$name");
  return '' unless @st && -d _ && !-l _ && $st[4] == $<;
  return "$rp/$name";
}
sub read_record {
  my ($file) = @_;
  my @st = lstat($file);
  return (undef, 'not a regular file') unless @st && -f _ && !-l _;
  return (undef, "owned by uid $st[4], not by uid $<") if $st[4] != $<;
  return (undef, 'larger than 4 KiB') if $st[7] > 4096;
  open(my $f, '<', $file) or return (undef, "unreadable: $!");
  my %r; my %known = map { $_ => 1 } qw(pgid start boot dir run lease);
  while (my $l = <$f>) {
    chomp $l;
    my ($k, $v) = $l =~ /^([a-z]+)=(.*)$/ or return (undef, 'a line is not key=value');
    return (undef, "unknown key '$k'") unless $known{$k};
    return (undef, "key '$k' twice") if exists $r{$k};
    $r{$k} = $v;
  }
  close $f;
  for my $k (qw(pgid start boot dir run lease)) { return (undef, "no $k") unless exists $r{$k}; }
  return (undef, 'pgid is not a process group') unless $r{pgid} =~ /^\d{1,10}$/ && $r{pgid} > 1;
  return (undef, 'no start time of the group leader') if norm($r{start}) eq '';
  return (undef, 'no boot id') if norm($r{boot}) eq '';
  return (undef, 'dir is not an absolute path') unless $r{dir} =~ m{^/};
  return (\%r, '');
}
sub reap_record {
  my ($file) = @_;
  my ($r, $why) = read_record($file);
  my ($g, $status) = ($r ? $r->{pgid} : '', 'ignored');
  if ($r) {
    my $groups = ps_groups();
    if (norm($r->{boot}) ne boot_id()) { $why = 'written before the host last booted'; }
    elsif (!$groups->{$g}) { $status = 'gone'; }
    elsif (!grep { $_ == $g } @{$groups->{$g}}) { $why = 'its group leader is gone, so the group cannot be identified'; }
    elsif (ps_field('uid', $g) ne "$<") { $why = 'its group leader runs as another user'; }
    elsif (ps_field('lstart', $g) ne norm($r->{start})) { $status = 'reused'; }
    else {
      kill('-TERM', $g); kill('-CONT', $g);
      my $n = 0;
      while ($n++ < 20) { select(undef, undef, undef, 0.1); last unless ps_groups()->{$g}; }
      kill('-KILL', $g) if ps_groups()->{$g};
      $status = 'killed';
    }
    if ($status ne 'ignored') { my $d = job_dir($r->{dir}); remove_tree($d) if $d ne ''; }
  }
  unlink $file;
  return ($g, $status, clean_why($why));
}
sub report_record {
  my ($token, $g, $status, $why) = @_;
  if ($status eq 'ignored') { print join("\t", 'ignored', $token, $why), "\n"; }
  else { print join("\t", 'reaped', $token, $g, $status), "\n"; }
}
sub reap_lease_dir {
  my ($dir, $keep, $remove) = @_;
  my $unsafe = private_dir($dir);
  return if $unsafe eq 'missing';
  fatal("refusing process-record folder $dir: $unsafe; remove it (xcfleet makes it again, mode 700)") if $unsafe ne '';
  opendir(my $dh, $dir) or return;
  my @e = grep { $_ ne '.' && $_ ne '..' } readdir $dh; closedir $dh;
  for my $e (sort @e) {
    if ($e =~ /^\./) { unlink "$dir/$e"; next; }
    next if $keep->{$e};
    report_record($e, reap_record("$dir/$e"));
  }
  rmdir $dir if $remove;
}
"""#
}
