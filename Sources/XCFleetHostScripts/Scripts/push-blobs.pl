# The push's blob store and kept job trees (docs/builds.md, "Push"), run by push-cache.sh:
# ARGV = MODE ROOT DIR MAX THEN. <ROOT>/.cache/blobs/<sha256> holds each file content once;
# <ROOT>/.cache/trees/<id>/ are finished job directories kept for reuse, each with
# <id>.manifest: `xcfleet-tree 1`, then `SHA256 x|- STAMP PATH` per file as the push left it
# (STAMP: size:mtime:ctime:inode:device:mode:links:uid). A tree's id is its job directory's name.
# Input on stdin: optional `XCFLEET-TREE ID DIGEST` lines (trees whose manifest xcfleet knows by
# its SHA-256; the first is the base of a diff), an optional `XCFLEET-DIFF` line, then one line per
# file, `SHA256 x|- PATH` (x: executable; in a diff also `- PATH`: removed from the base), an empty
# line, and blobs `SHA256 SIZE\n` + SIZE bytes (any the host may lack: checked and stored).
# MODE check (MAX > 0: the store is bounded as by the fill when blobs came along): DIR (empty) takes a free tree (renamed onto it: trusted trees first), drops every
# entry that is not a wanted file as the list says (strays, links, changed files: a file is kept
# unread only when its manifest is one xcfleet named and its stamp is unchanged and older than
# the manifest by 2 s; otherwise it is hashed), then copies in every other file whose blob is
# present and hashes to its name (a damaged blob is removed, never used). A tree holding anything
# not the login user's is set aside, not used. Prints `XCFLEET-PUSH warm ID DIGEST TAKEN` (DIR's
# new manifest; TAKEN: the tree used or -) when none is missing, `XCFLEET-PUSH resend` when a diff's
# base is not the manifest named, else `XCFLEET-PUSH cold` (`untrusted` when a blob failed its
# hash) and one missing hash per line; exits 3 unless warm when THEN=1. MODE fill: the lines of the
# files missing, an empty line and their blobs; each is checked, stored and copied to its paths;
# then the least recently used blobs go until the store is under MAX bytes (blobs used in the last
# 10 minutes stay), and `XCFLEET-PUSH filled ID DIGEST TAKEN` is the one line printed (a command
# chained after the fill follows it on stdout). MODE keep (cleanup): DIR becomes a free tree when
# the push wrote its manifest (exit 1 otherwise: the caller removes it); at most MAX free trees stay.
# Paths are untrusted: no `..`, no empty or `.` component, no control character; parents are made
# here and never followed through a link; files are created with O_EXCL|O_NOFOLLOW.
use strict; use warnings; use Fcntl qw(O_RDONLY O_WRONLY O_CREAT O_EXCL O_NOFOLLOW :mode);
use Digest::SHA; use Time::HiRes ();
my ($mode, $root, $dir, $max, $then) = @ARGV;
my $store = "$root/.cache/blobs"; my $trees = "$root/.cache/trees";
my ($tmp, @partial); # what the blob being received was written to: removed when it fails
sub bad { unlink grep { defined } $tmp, @partial; print STDERR "xcfleet: $_[0]\n"; exit 95; }
umask 077; my $um = umask;
my $id = ($dir =~ m{/([A-Za-z0-9_-][A-Za-z0-9._-]{0,99})$})[0]; # DIR's tree id (undef: trees are not used)
sub safe { my ($p) = @_; bad("refusing workspace path with a control character") if $p =~ /[\x00-\x1f\x7f]/;
  for my $c (split m{/}, $p, -1) { bad("refusing workspace path '$p'") if $c eq "" || $c eq "." || $c eq ".."; } return $p; }
# The stamp of PATH (never following a link), or undef.
sub stamp { my @s = Time::HiRes::lstat($_[0]); return undef unless @s;
  return join(":", $s[7], sprintf("%.9f", $s[9]), sprintf("%.9f", $s[10]), $s[1], $s[0], $s[2], $s[3], $s[4]); }
# Removes PATH and everything under it without following a link; false when something stays.
sub remove { my ($p) = @_; my @s = lstat $p or return 1;
  return unlink($p) ? 1 : 0 unless S_ISDIR($s[2]);
  chmod 0700, $p if $s[4] == $<; opendir(my $dh, $p) or return 0;
  my @n = grep { $_ ne "." && $_ ne ".." } readdir $dh; closedir $dh;
  my $ok = 1; for my $n (@n) { $ok = 0 unless remove("$p/$n"); } return rmdir($p) ? $ok : 0; }
# A manifest of ours: { digest, ctime, files => { PATH => [SHA, perm, STAMP] } }, or undef.
sub manifest { my ($p) = @_; my @s = Time::HiRes::lstat($p);
  return undef unless @s && S_ISREG($s[2]) && $s[4] == $<;
  sysopen(my $f, $p, O_RDONLY | O_NOFOLLOW) or return undef; binmode $f;
  my $text = do { local $/; <$f> } // ""; close $f;
  my @l = split /\n/, $text; return undef unless @l && shift(@l) eq "xcfleet-tree 1";
  my %files; for (@l) { my ($h, $x, $st, $q) = /^([0-9a-f]{64}) ([x-]) (\S+) (.+)$/ or return undef; $files{$q} = [$h, $x eq "x" ? 0755 : 0644, $st]; }
  return { digest => Digest::SHA::sha256_hex($text), ctime => $s[10], files => \%files }; }
# Reads the lines (up to an empty line or the end) of the input.
my (@files, %want, %trusted, @trusted, $diff, @removed);
if ($mode ne "keep") {
  while (my $l = <STDIN>) {
    chomp $l; last if $l eq "";
    if (my ($t, $d) = $l =~ /^XCFLEET-TREE ([A-Za-z0-9_-][A-Za-z0-9._-]{0,99}) ([0-9a-f]{64})$/) { $trusted{$t} //= $d; push @trusted, $t; next; }
    if ($l eq "XCFLEET-DIFF") { $diff = 1; next; }
    if ($diff && $l =~ /^- (.+)$/) { push @removed, safe($1); next; }
    my ($h, $x, $p) = $l =~ /^([0-9a-f]{64}) ([x-]) (.+)$/ or bad("malformed push manifest line");
    push @files, [$h, $x eq "x" ? 0755 : 0644, safe($p)]; $want{$h} = 1;
  }
}
my %made;
# Parents of PATH inside DIR: made here (mode 0755 under the umask), an existing one must be a real directory.
sub parents { my @c = split m{/}, $_[0]; pop @c; my $d = $dir;
  for my $c (@c) { $d .= "/$c"; next if $made{$d};
    if (lstat $d) { bad("refusing to write through $d: not a directory") unless -d _ && ! -l _; }
    else { mkdir $d, 0755 or bad("cannot create $d: $!"); }
    $made{$d} = 1; } }
# Copies the blob at SRC to DIR/PATH when its contents hash to H; 0 (nothing left behind) otherwise.
sub place { my ($src, $h, $perm, $p) = @_;
  sysopen(my $in, $src, O_RDONLY | O_NOFOLLOW) or return 0;
  my @st = stat $in; return 0 unless @st && -f _ && $st[4] == $<;
  parents($p); my $dst = "$dir/$p";
  sysopen(my $out, $dst, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, $perm) or bad("cannot create $dst: $!");
  my $sha = Digest::SHA->new(256); my $buf;
  while (1) { my $n = sysread($in, $buf, 1 << 20); bad("cannot read $src: $!") unless defined $n; last if $n == 0;
    $sha->add($buf); my $o = 0; while ($o < $n) { my $w = syswrite($out, $buf, $n - $o, $o); bad("cannot write $dst: $!") unless $w; $o += $w; } }
  close $out or bad("cannot write $dst: $!"); close $in;
  if ($sha->hexdigest ne $h) { unlink $dst; return 0; }
  return 1; }
# Receives the blobs on stdin: each is written at once to the store (a temporary name until its hash
# is checked) and to the paths of FILES (path => [SHA, perm, PATH]) that use it.
my $received = 0;
sub receive { my ($paths) = @_; binmode STDIN;
  while (my $l = <STDIN>) { $received++;
    my ($h, $size) = $l =~ /^([0-9a-f]{64}) (\d+)\n$/ or bad("malformed blob header");
    $tmp = "$store/.in-$$-$h";
    sysopen(my $out, $tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0600) or bad("cannot create $tmp: $!");
    my @dst; @partial = ();
    for my $f (@{$paths->{$h} || []}) { parents($f->[2]); my $d = "$dir/$f->[2]";
      sysopen(my $o, $d, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, $f->[1]) or bad("cannot create $d: $!");
      push @dst, $o; push @partial, $d; $f->[3] = 1; }
    my $sha = Digest::SHA->new(256); my $left = $size; my $buf;
    while ($left > 0) { my $n = read(STDIN, $buf, $left > (1 << 20) ? 1 << 20 : $left); bad("the blob stream ended early") unless $n;
      $sha->add($buf); for my $o ($out, @dst) { print $o $buf or bad("cannot write blob $h: $!"); } $left -= $n; }
    for my $o ($out, @dst) { close $o or bad("cannot write blob $h: $!"); }
    bad("blob $h was damaged in transit") if $sha->hexdigest ne $h;
    rename $tmp, "$store/$h" or bad("cannot store blob $h: $!"); undef $tmp; @partial = ();
  } }
# Least recently used first, down to MAX bytes; blobs used in the last 10 minutes stay (a push in flight).
sub bound { opendir(my $dh, $store) or bad("cannot list $store: $!");
  my ($now, $total, @e) = (time, 0);
  for my $n (readdir $dh) { next unless $n =~ /^[0-9a-f]{64}$/; my @st = lstat "$store/$n" or next; $total += $st[7]; push @e, [$st[9], $n, $st[7]]; }
  closedir $dh;
  for my $x (sort { $a->[0] <=> $b->[0] } @e) { last if $total <= $max; next if $now - $x->[0] < 600;
    unlink "$store/$x->[1]" and $total -= $x->[2]; } }
# Writes DIR's manifest (FILES as they are now) as trees/ID.manifest; returns its SHA-256.
sub record { my ($list) = @_; my $text = "xcfleet-tree 1\n";
  for my $f (@$list) { my $st = stamp("$dir/$f->[2]") // bad("cannot read $dir/$f->[2]"); $text .= "$f->[0] " . ($f->[1] == 0755 ? "x" : "-") . " $st $f->[2]\n"; }
  my $t = "$trees/.$id.$$.tmp"; unlink $t;
  sysopen(my $o, $t, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0600) or bad("cannot create $t: $!");
  print $o $text or bad("cannot write $t: $!"); close $o or bad("cannot write $t: $!");
  rename $t, "$trees/$id.manifest" or bad("cannot write $trees/$id.manifest: $!");
  return Digest::SHA::sha256_hex($text); }
# Free trees beyond MAX go (oldest first), with manifests and lists of trees that no longer exist
# (older than 10 minutes: a push in flight may still read its base) and trees set aside.
sub prune { opendir(my $dh, $trees) or return; my @n = readdir $dh; closedir $dh; my @free; my $now = time;
  my $jobs = ($dir =~ m{^(.*)/[^/]+$})[0];
  for my $n (@n) { my $p = "$trees/$n";
    if ($n =~ /^\.discard-/) { remove($p); next; }
    if ($n =~ /^\.?([A-Za-z0-9_-][A-Za-z0-9._-]{0,99}?)(?:\.manifest|\.list|\.\d+\.tmp)$/) {
      my @s = lstat $p; unlink $p if @s && $now - $s[9] > 600 && ! -e "$trees/$1" && ! -e "$jobs/$1"; next; }
    next unless $n =~ /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,99}$/;
    push @free, [ (lstat "$trees/$n.manifest")[9] // 0, $n ]; }
  my @old = sort { $b->[0] <=> $a->[0] } @free; splice @old, 0, $max;
  for my $x (@old) { my $aside = "$trees/.discard-$$-$x->[1]"; rename("$trees/$x->[1]", $aside) and remove($aside); unlink "$trees/$x->[1].manifest"; } }
if ($mode eq "keep") {
  my @st = lstat $dir;
  exit 1 unless defined $id && @st && S_ISDIR($st[2]) && $st[4] == $< && ! -e "$trees/$id" && ! -l "$trees/$id";
  my @m = lstat "$trees/$id.manifest"; exit 1 unless @m && S_ISREG($m[2]) && $m[4] == $<;
  rename $dir, "$trees/$id" or exit 1;
  prune(); exit 0;
}
if ($mode eq "check") {
  receive({}); # blobs sent ahead (the contents a diff adds): stored, placed below
  my $taken = "-";
  if ($diff) { # the base: the first tree named, with the manifest xcfleet named
    my $base = @trusted ? manifest("$trees/$trusted[0].manifest") : undef;
    if (!$base || $base->{digest} ne $trusted{$trusted[0]}) { print "XCFLEET-PUSH resend\n"; exit($then ? 3 : 0); }
    my %list = %{$base->{files}}; delete $list{$_} for @removed, map { $_->[2] } @files;
    push @files, map { [$list{$_}[0], $list{$_}[1], $_] } sort keys %list; $want{$_->[0]} = 1 for @files;
  }
  my %wantFile = map { $_->[2] => $_ } @files; my %wantDir;
  for my $f (@files) { my $p = $f->[2]; $wantDir{$p} = 1 while $p =~ s{/[^/]*$}{}; }
  my %keep; my @top = lstat $dir; my $topMode = @top ? $top[2] & 07777 : 0700;
  opendir(my $eh, $dir) or bad("cannot read the job directory $dir: $!"); my $empty = !grep { $_ ne "." && $_ ne ".." } readdir $eh; closedir $eh;
  if (defined $id && $empty && -d $trees) {
    # A free tree, renamed onto the empty job directory: only one push can take each.
    opendir(my $th, $trees) or bad("cannot list $trees: $!");
    my %named = map { $_ => 1 } @trusted;
    my @others = grep { /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,99}$/ && !/\.(manifest|list)$/ && !$named{$_} } readdir $th; closedir $th;
    for my $t (@trusted, @others) { my @s = lstat "$trees/$t" or next;
      if (!S_ISDIR($s[2]) || $s[4] != $<) { my $aside = "$trees/.discard-$$-$t"; rename("$trees/$t", $aside) and remove($aside); next; }
      if (rename "$trees/$t", $dir) { $taken = $t; last; } }
  }
  if ($taken ne "-") {
    my $m = manifest("$trees/$taken.manifest");
    my $sure = $m && defined $trusted{$taken} && $m->{digest} eq $trusted{$taken};
    my ($old, $since) = $sure ? ($m->{files}, $m->{ctime} - 2) : ({}, 0);
    # Keeps DIR/REL when it is the file the list wants: its stamp vouches for it or its contents hash to it.
    my $keepable = sub { my ($r, $s) = @_; my $f = $wantFile{$r};
      return 0 unless ($s->[2] & 07777) == ($f->[1] & ~$um) && $s->[3] == 1;
      my $o = $old->{$r};
      if ($o && $o->[0] eq $f->[0] && $o->[1] == $f->[1]) { my @c = split /:/, $o->[2];
        return 1 if $c[2] < $since && $o->[2] eq join(":", $s->[7], sprintf("%.9f", $s->[9]), sprintf("%.9f", $s->[10]), @$s[1, 0, 2, 3, 4]); }
      sysopen(my $in, "$dir/$r", O_RDONLY | O_NOFOLLOW) or return 0;
      my $sha = Digest::SHA->new(256); $sha->addfile($in); close $in; return $sha->hexdigest eq $f->[0]; };
    my $walk; $walk = sub { my ($rel) = @_; my $abs = $rel eq "" ? $dir : "$dir/$rel";
      opendir(my $dh, $abs) or return 0; my @n = grep { $_ ne "." && $_ ne ".." } readdir $dh; closedir $dh;
      for my $n (@n) { my $r = $rel eq "" ? $n : "$rel/$n"; my @s = Time::HiRes::lstat("$dir/$r") or next;
        return 0 if $s[4] != $<; # not the login user's: the tree is not used
        if (S_ISDIR($s[2]) && $wantDir{$r}) { chmod 0755 & ~$um, "$dir/$r" if ($s[2] & 07777) != (0755 & ~$um); $walk->($r) or return 0; }
        elsif (S_ISREG($s[2]) && $wantFile{$r} && $keepable->($r, \@s)) { $keep{$r} = 1; }
        else { remove("$dir/$r") or return 0; } }
      return 1; };
    my @s = lstat $dir;
    unless (@s && S_ISDIR($s[2]) && $s[4] == $< && $walk->("")) {
      my $aside = "$trees/.discard-$$-$taken"; rename $dir, $aside or bad("cannot set aside the job tree $dir: $!"); remove($aside);
      mkdir $dir, 0700 or bad("cannot create the job directory $dir: $!"); %keep = (); }
    chmod $topMode, $dir;
  }
  my (%need, @order, $damaged);
  for my $f (@files) { my ($h, $perm, $p) = @$f; next if $keep{$p};
    if (!$need{$h} && place("$store/$h", $h, $perm, $p)) { utime undef, undef, "$store/$h"; next; }
    next if $need{$h}++;
    push @order, $h;
    if (-e "$store/$h" || -l "$store/$h") { unlink "$store/$h"; $damaged = 1; } }
  bound() if $received && $max > 0;
  if (!@order) { print defined $id && -d $trees ? "XCFLEET-PUSH warm $id " . record(\@files) . " $taken\n" : "XCFLEET-PUSH warm\n"; exit 0; }
  if (defined $id && -d $trees) { # the whole list, for the fill to record the manifest
    my $t = "$trees/$id.list"; unlink $t; sysopen(my $o, $t, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0600) or bad("cannot create $t: $!");
    print $o "taken $taken\n", map { "$_->[0] " . ($_->[1] == 0755 ? "x" : "-") . " $_->[2]\n" } @files; close $o or bad("cannot write $t: $!"); }
  print $damaged ? "XCFLEET-PUSH untrusted\n" : "XCFLEET-PUSH cold\n", map { "$_\n" } @order;
  exit($then ? 3 : 0);
}
bad("unknown mode $mode") unless $mode eq "fill";
my %paths; push @{$paths{$_->[0]}}, $_ for @files;
receive(\%paths);
for my $f (@files) { bad("the blob stream lacks $f->[0] for $f->[2]") unless $f->[3]; }
bound();
# The check's whole list: the job directory is complete, its manifest is recorded.
my @list; my $taken = "-";
if (defined $id && sysopen(my $l, "$trees/$id.list", O_RDONLY | O_NOFOLLOW)) {
  my $first = <$l> // ""; ($taken) = $first =~ /^taken (\S+)$/; $taken //= "-";
  while (my $x = <$l>) { chomp $x; my ($h, $m, $p) = $x =~ /^([0-9a-f]{64}) ([x-]) (.+)$/ or next; push @list, [$h, $m eq "x" ? 0755 : 0644, $p]; }
  close $l; unlink "$trees/$id.list"; }
print @list ? "XCFLEET-PUSH filled $id " . record(\@list) . " $taken\n" : "XCFLEET-PUSH filled\n";
