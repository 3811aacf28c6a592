# The push (SSHShell, LocalShell), after work-root.sh. Stdin starts with push-blobs.pl (SIZE bytes:
# sent there, not on the exec line, which has room for ~30 kB), which then reads the file list (and,
# to fill, the missing blobs) from the rest of it. Arguments: MODE ROOT DIR NEW MAX THEN SIZE.
# MODE check: NEW=1 creates DIR first (fresh: it must not exist); a kept job tree is taken and
# brought to the list, and every other file whose blob the host holds is copied in; prints
# "XCFLEET-PUSH warm …" (all were there: exit 0) or "XCFLEET-PUSH cold" / "untrusted" and the
# missing hashes, or "XCFLEET-PUSH resend" (exit 0, or 3 with THEN=1 so that a command chained after
# this one does not run). MODE fill: the missing blobs arrive, are stored and copied in, and the
# store is bounded to MAX bytes. MODE keep: DIR becomes a kept tree (at most MAX stay); exit 1 when
# it cannot (the caller removes DIR). Exit 97: the work root is not private (one line on stderr); 96:
# DIR could not be created; 95: bad input or a damaged blob (one line on stderr). POSIX sh.
mode=$1; root=$2; dir=$3; new=$4; max=$5; then=$6; size=$7
umask 077
xcf_private "$root" && xcf_private "$root/.cache" && xcf_private "$root/.cache/blobs" && xcf_private "$root/.cache/trees" || exit 97
if [ "$new" = 1 ]; then mkdir "$dir" || { echo "xcfleet: cannot create the job directory $dir" >&2; exit 96; }; fi
# shellcheck disable=SC2016 # perl code, not shell
exec perl -e 'my $n = shift; my $c = ""; while (length($c) < $n) { read(STDIN, $c, $n - length($c), length($c)) or die "xcfleet: the push script ended early\n"; }
  eval $c; die $@ if $@; exit 0;' -- "$size" "$mode" "$root" "$dir" "$max" "$then"
