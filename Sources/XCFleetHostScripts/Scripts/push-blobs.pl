# The push's blob store (docs/builds.md, "Push"), run by push-cache.sh: ARGV = MODE ROOT DIR MAX THEN.
# <ROOT>/.cache/blobs/<sha256> holds each file content once. Input on stdin, one line per file:
# `SHA256 x|- PATH` (x: executable). MODE check: every file whose blob is present and hashes to its
# name is copied into DIR (read, hashed and written in one pass: a damaged blob is removed, never
# used); prints `XCFLEET-PUSH warm` when none is missing, else `XCFLEET-PUSH cold` (`untrusted`
# when a blob failed its hash) and one missing hash per line, and exits 3 when THEN=1. MODE fill:
# the lines, an empty line, then `SHA256 SIZE\n` + SIZE bytes per missing blob; each is checked,
# stored and copied to its paths; then the least recently used blobs go until the store is under
# MAX bytes (blobs used in the last 10 minutes stay), and `XCFLEET-PUSH filled` is the one line
# printed (a command chained after the fill follows it on stdout). Paths are untrusted: no `..`, no empty or
# `.` component, no control character; parents are made here and never followed through a link.
use strict; use warnings; use Fcntl qw(O_RDONLY O_WRONLY O_CREAT O_EXCL O_NOFOLLOW);
use Digest::SHA;
my ($mode, $root, $dir, $max, $then) = @ARGV;
my $store = "$root/.cache/blobs";
my ($tmp, @partial); # what the blob being received was written to: removed when it fails
sub bad { unlink grep { defined } $tmp, @partial; print STDERR "xcfleet: $_[0]\n"; exit 95; }
my (@files, %want);
while (my $l = <STDIN>) {
  chomp $l; last if $l eq "";
  my ($h, $x, $p) = $l =~ /^([0-9a-f]{64}) ([x-]) (.+)$/ or bad("malformed push manifest line");
  bad("refusing workspace path with a control character") if $p =~ /[\x00-\x1f\x7f]/;
  for my $c (split m{/}, $p, -1) { bad("refusing workspace path '$p'") if $c eq "" || $c eq "." || $c eq ".."; }
  push @files, [$h, $x eq "x" ? 0755 : 0644, $p]; $want{$h} = 1;
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
umask 077;
if ($mode eq "check") {
  my (%need, @order, $damaged);
  for my $f (@files) { my ($h, $perm, $p) = @$f;
    if (!$need{$h} && place("$store/$h", $h, $perm, $p)) { utime undef, undef, "$store/$h"; next; }
    next if $need{$h}++;
    push @order, $h;
    if (-e "$store/$h" || -l "$store/$h") { unlink "$store/$h"; $damaged = 1; } }
  if (!@order) { print "XCFLEET-PUSH warm\n"; exit 0; }
  print $damaged ? "XCFLEET-PUSH untrusted\n" : "XCFLEET-PUSH cold\n", map { "$_\n" } @order;
  exit($then ? 3 : 0);
}
bad("unknown mode $mode") unless $mode eq "fill";
my %paths; push @{$paths{$_->[0]}}, $_ for @files;
binmode STDIN;
# Each blob is written at once to the store (a temporary name until its hash is checked) and to its paths.
while (my $l = <STDIN>) {
  my ($h, $size) = $l =~ /^([0-9a-f]{64}) (\d+)\n$/ or bad("malformed blob header");
  $tmp = "$store/.in-$$-$h";
  sysopen(my $out, $tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0600) or bad("cannot create $tmp: $!");
  my @dst; @partial = ();
  for my $f (@{$paths{$h} || []}) { parents($f->[2]); my $d = "$dir/$f->[2]";
    sysopen(my $o, $d, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, $f->[1]) or bad("cannot create $d: $!");
    push @dst, $o; push @partial, $d; $f->[3] = 1; }
  my $sha = Digest::SHA->new(256); my $left = $size; my $buf;
  while ($left > 0) { my $n = read(STDIN, $buf, $left > (1 << 20) ? 1 << 20 : $left); bad("the blob stream ended early") unless $n;
    $sha->add($buf); for my $o ($out, @dst) { print $o $buf or bad("cannot write blob $h: $!"); } $left -= $n; }
  for my $o ($out, @dst) { close $o or bad("cannot write blob $h: $!"); }
  bad("blob $h was damaged in transit") if $sha->hexdigest ne $h;
  rename $tmp, "$store/$h" or bad("cannot store blob $h: $!"); undef $tmp; @partial = ();
}
for my $f (@files) { bad("the blob stream lacks $f->[0] for $f->[2]") unless $f->[3]; }
# Least recently used first, down to MAX bytes; blobs used in the last 10 minutes stay (a push in flight).
opendir(my $dh, $store) or bad("cannot list $store: $!");
my ($now, $total, @e) = (time, 0);
for my $n (readdir $dh) { next unless $n =~ /^[0-9a-f]{64}$/; my @st = lstat "$store/$n" or next; $total += $st[7]; push @e, [$st[9], $n, $st[7]]; }
closedir $dh;
for my $x (sort { $a->[0] <=> $b->[0] } @e) { last if $total <= $max; next if $now - $x->[0] < 600;
  unlink "$store/$x->[1]" and $total -= $x->[2]; }
print "XCFLEET-PUSH filled\n";
