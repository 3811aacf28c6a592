# Least-recently-used eviction of finished builds and push-cache entries (run by xcf_evict):
# ARGV = BUILDS_DIR CACHE_DIR MAX_KIB_TOTAL*1024 MIN_FREE_BYTES KEEP_KEY. Entries in use (a live pin,
# a claim younger than 10 minutes) stay. Prints `XCFLEET-BUILD evicted NAME KIB` per removal.
use strict; use warnings;
my ($bd, $c, $max, $minfree, $keep) = @ARGV;
my $now = time; my @e;
sub kib { my $o = `du -sk "$_[0]" 2>/dev/null`; return ($o =~ /^(\d+)/) ? $1 : 0; }
sub inuse { my ($k) = @_; my $u = 0;
  for my $p (glob("$bd/.pins/$k.*")) { open(my $f, "<", $p) or next; my $j = <$f> // ""; close $f; chomp $j;
    if (-d $j && $now - (stat $p)[9] < 86400) { $u = 1 } else { unlink $p } }
  return $u; }
for my $d (glob("$bd/*")) { my ($k) = $d =~ m{/([0-9a-f]{64})$} or next; next if $k eq $keep;
  push @e, [ (stat $d)[9], $d, kib($d), inuse($k), "" ]; }
if ($c ne "" && -d $c) { for my $d (glob("$c/*")) { my ($k) = $d =~ m{/([0-9a-f]{64})$} or next;
  push @e, [ (stat $d)[9], $d, kib($d), ($now - (stat $d)[9] < 600 ? 1 : 0), "$c/.claim-$k" ]; } }
my $total = 0; $total += $_->[2] for @e;
sub free { my @l = `df -Pk "$bd" 2>/dev/null`; my @f = split(/\s+/, $l[-1] // ""); return (@f >= 6 && $f[3] =~ /^\d+$/) ? $f[3] * 1024 : undef; }
for my $x (sort { $a->[0] <=> $b->[0] } @e) {
  my $fr = free();
  last unless $total * 1024 > $max || (defined $fr && $fr < $minfree);
  next if $x->[3];
  my $t = "$x->[1].evict.$$";
  rename($x->[1], $t) or next; system("chmod", "-R", "u+w", "--", $t); system("rm", "-rf", "--", $t); rmdir($x->[4]) if $x->[4] ne "";
  $total -= $x->[2]; print "XCFLEET-BUILD evicted ", ($x->[1] =~ m{([^/]+/[^/]+)$})[0], " $x->[2]\n";
}
