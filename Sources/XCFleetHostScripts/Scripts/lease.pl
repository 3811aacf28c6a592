# Slot leases and process records on a host (HostLeaseScript): MODE ROOT ARGS... The process-record
# subs (process-records.pl) are appended to this file when it is sent.
use strict; use warnings;
use Fcntl qw(:flock);
use File::Path qw(make_path remove_tree);
use Cwd ();
$| = 1;
umask(077);
my $mode = shift @ARGV // '';
my $root = shift @ARGV // '';
sub fatal { print "fatal\t$_[0]\n"; exit 3; }
fatal("no lease directory given") if $root eq '';
if (!-d $root) { eval { make_path($root, { mode => 0700 }) }; }
-d $root or fatal("cannot create $root: $!");
{
  my @l = lstat($root); my @st = stat($root);
  my $why = !@st || !-d _ ? 'not a directory' : ($l[4] != $< || $st[4] != $<) ? "not owned by uid $<"
          : ($st[2] & 022) ? 'group- or world-writable' : '';
  fatal("refusing lease folder $root: $why; run chmod go-w on it or remove it") if $why ne '';
}
open(my $lk, '>>', "$root/lock") or fatal("cannot open $root/lock: $!");
my $waited = 0;
until (flock($lk, LOCK_EX | LOCK_NB)) {
  fatal("$root/lock stayed locked for 30 s") if $waited++ > 600;
  select(undef, undef, undef, 0.05);
}
my $now = time;
sub holder {
  my ($dir) = @_; my %h;
  open(my $f, '<', "$dir/holder") or return undef;
  while (my $l = <$f>) { chomp $l; my ($k, $v) = split /=/, $l, 2; $h{$k} = $v if defined $v; }
  close $f;
  return ($h{heartbeat} // '') =~ /^\d{1,12}$/ ? \%h : undef;
}
sub put_holder {
  my ($dir, $h) = @_;
  open(my $f, '>', "$dir/holder.tmp") or return 0;
  print $f map { "$_=" . ($h->{$_} // '') . "\n" } qw(run lease host pid acquired heartbeat);
  close($f) or return 0;
  return rename("$dir/holder.tmp", "$dir/holder");
}
sub discard {
  my ($dir) = @_;
  my $gone = "$dir.gone.$$.$now." . int(rand(1e9));
  rename($dir, $gone) or return 0;
  remove_tree($gone);
  return 1;
}
sub fields { my ($h) = @_; return map { $h->{$_} // '' } qw(run lease host pid); }
my @slots;
if ($mode eq 'acquire') {
  my ($want, $run, $lease, $host, $pid, $ttl, $dead) = @ARGV;
  fatal("bad acquire arguments") unless defined $dead && $want =~ /^\d{1,4}$/ && $ttl =~ /^\d{1,9}$/ && $lease ne '';
  my %dead = map { $_ => 1 } grep { $_ ne '' } split /,/, $dead;
  # Process-record folders others could write are refused before any slot is taken.
  if (-e "$root/procs" || -l "$root/procs") {
    my $why = private_dir("$root/procs");
    fatal("refusing process-record folder $root/procs: $why; remove it (xcfleet makes it again, mode 700)") if $why ne '';
    if (opendir(my $ph, "$root/procs")) {
      for my $l (sort grep { !/^\./ } readdir $ph) {
        my $w = private_dir("$root/procs/$l");
        fatal("refusing process-record folder $root/procs/$l: $w; remove it (xcfleet makes it again, mode 700)") if $w ne '';
      }
      closedir $ph;
    }
  }
  if (opendir(my $dh, $root)) { for my $e (readdir $dh) { remove_tree("$root/$e") if $e =~ /^slot-\d+\.gone\./; } closedir $dh; }
  for my $n (0 .. $want - 1) {
    my $dir = "$root/slot-$n";
    if (-d $dir) {
      my $h = holder($dir);
      my $why = '';
      if (!$h) {
        my $age = $now - ((stat $dir)[9] // $now);
        if ($age > $ttl) { $why = "no holder file for $age s"; }
        else { print join("\t", 'busy', $n, '', '', '', '', 0), "\n"; next; }
      } elsif (($h->{lease} // '') eq $lease) {
        print "held\t$n\n"; next;
      } elsif ($dead{$h->{lease} // ''}) {
        $why = 'holder process is gone';
      } elsif ($now - $h->{heartbeat} > $ttl) {
        $why = 'heartbeat ' . ($now - $h->{heartbeat}) . ' s old';
      } else {
        print join("\t", 'busy', $n, fields($h), $now - $h->{heartbeat}), "\n"; next;
      }
      if (!discard($dir)) { print "error\t$n\tcannot reclaim $dir: $!\n"; next; }
      print join("\t", 'reclaimed', $n, ($h ? fields($h) : ('', '', '', '')), $why), "\n";
    }
    if (mkdir $dir) {
      if (put_holder($dir, { run => $run, lease => $lease, host => $host, pid => $pid, acquired => $now, heartbeat => $now })) {
        print "acquired\t$n\n";
      } else {
        my $err = "$!"; remove_tree($dir); print "error\t$n\tcannot write $dir/holder: $err\n";
      }
    } else {
      print "error\t$n\tcannot create $dir: $!\n";
    }
  }
  # Process records of leases no live slot lease holds any more (dead runs): kill and remove.
  my %live = ($lease => 1);
  if (opendir(my $dh, $root)) {
    for my $e (readdir $dh) {
      next unless $e =~ /^slot-\d+$/;
      my $h = holder("$root/$e") or next;
      my $l = $h->{lease} // '';
      $live{$l} = 1 if !$dead{$l} && $now - $h->{heartbeat} <= $ttl;
    }
    closedir $dh;
  }
  if (opendir(my $ph, "$root/procs")) {
    my @leases = grep { !/^\./ } readdir $ph;
    closedir $ph;
    for my $l (sort @leases) { reap_lease_dir("$root/procs/$l", {}, 1) unless $live{$l}; }
  }
} elsif ($mode eq 'finish' || $mode eq 'reap') {
  my ($lease, $arg) = @ARGV;
  fatal("bad $mode arguments") unless defined $arg && $lease =~ /^[A-Za-z0-9._:@+-]+$/ && $lease !~ /^\./;
  my $dir = "$root/procs/$lease";
  if ($mode eq 'finish') {
    fatal("bad record name") unless $arg =~ /^[A-Za-z0-9._:@+-]+$/ && $arg !~ /^\./;
    my $w = private_dir($dir);
    fatal("refusing process-record folder $dir: $w; remove it (xcfleet makes it again, mode 700)") if $w ne '' && $w ne 'missing';
    # The job folder stays: the cleanup that runs this keeps it as a tree for the next push or removes it.
    report_record($arg, reap_record("$dir/$arg", 1)) if -e "$dir/$arg" || -l "$dir/$arg";
  } else {
    my %keep = map { $_ => 1 } grep { $_ ne '' } split /,/, $arg;
    reap_lease_dir($dir, \%keep, 0);
  }
} elsif ($mode eq 'heartbeat' || $mode eq 'release') {
  my ($run, $lease, $list) = @ARGV;
  fatal("bad $mode arguments") unless defined $list && $lease ne '';
  for my $n (grep { /^\d{1,4}$/ } split /,/, $list) {
    my $dir = "$root/slot-$n";
    my $h = holder($dir);
    my $ours = $h && ($h->{lease} // '') eq $lease && ($h->{run} // '') eq $run;
    if ($mode eq 'heartbeat') {
      if ($ours) { $h->{heartbeat} = $now; print(put_holder($dir, $h) ? "ok\t$n\n" : "error\t$n\tcannot write $dir/holder: $!\n"); }
      else { print "lost\t$n\n"; }
    } else {
      if (!$ours) { print "notours\t$n\n"; }
      elsif (discard($dir)) { print "released\t$n\n"; }
      else { print "error\t$n\tcannot remove $dir: $!\n"; }
    }
  }
} else {
  fatal("unknown mode '$mode'");
}
exit 0;
