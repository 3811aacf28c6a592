# Lists an attempt's attachments folder ($ARGV[0]) without following any link: one line per entry,
# "f|l|o<TAB>size<TAB>hex of the path relative to the folder" (f: regular file, l: symbolic link,
# o: anything else), folders walked (never listed) up to $ARGV[2] deep; "t" when more than
# $ARGV[1] entries (then it stops). A folder that is missing or a link lists nothing.
use strict; use warnings;
my ($top, $limit, $depth) = @ARGV;
my $count = 0;
sub walk {
  my ($dir, $rel, $level) = @_;
  opendir(my $dh, $dir) or return;
  my @names = sort grep { $_ ne '.' && $_ ne '..' } readdir($dh);
  closedir($dh);
  for my $n (@names) {
    if (++$count > $limit) { print "t\n"; exit 0; }
    my $path = "$dir/$n";
    my $r = $rel eq '' ? $n : "$rel/$n";
    my @st = lstat($path) or next;
    my $hex = unpack('H*', $r);
    if (-l _) { print "l\t0\t$hex\n"; }
    elsif (-d _) { if ($level < $depth) { walk($path, $r, $level + 1); } else { print "o\t0\t$hex\n"; } }
    elsif (-f _) { print "f\t$st[7]\t$hex\n"; }
    else { print "o\t0\t$hex\n"; }
  }
}
my @top = lstat($top);
exit 0 unless @top && -d _ && !-l $top;
walk($top, '', 0);
