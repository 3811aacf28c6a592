# Process-record subs, appended to lease.pl (they use its $root, fatal and remove_tree).
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
# reap_record(FILE, LEAVE): kills what is left of the record's group; removes its job folder unless
# LEAVE (an attempt's own cleanup: its caller keeps the folder as a tree for the next push, or removes it).
sub reap_record {
  my ($file, $leave) = @_;
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
    if ($status ne 'ignored' && !$leave) { my $d = job_dir($r->{dir}); remove_tree($d) if $d ne ''; }
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
