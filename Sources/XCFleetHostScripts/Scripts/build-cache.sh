# The build cache on a host (docs/builds.md), after work-root.sh and build-cache-common.sh.
# Arguments: ROOT KEY TOOLCHAIN GLOB SOURCES STEER JOB MAX MINFREE TRUST READONLY COMMAND...
# SOURCES: the SHA-256 of the build's `sha256  path` manifest, which is listed from JOB's files
# (the paths STEER left out) and must hash to it.
set -u
root=$1; key=$2; tool=$3; glob=$4; sources=$5; steer=$6; job=$7; max=$8; minfree=$9; trust=${10}; ro=${11}; shift 11
b="$root/builds"
xcf_private "$root" && xcf_private "$b" && xcf_private "$b/.pins" || exit 97
case "$key" in *[!0-9a-f]*|'') echo "xcfleet: bad build key" >&2; exit 97;; esac
xcf_read_manifest "$job" "$sources" "$steer" || exit 97
why=""; fresh=""
existed=0; { [ -e "$b/$key" ] || [ -L "$b/$key" ]; } && existed=1
# The builds there when this script started: one finished later was made by another builder while
# this one waited for the lock (`check`, and the nearest base below, accept it on its marker).
before=$(ls "$b")
# The product digest xcfleet recorded for build KEY on this host (empty: none). KEY is 64 hex digits.
trusted() { printf '%s\n' "$trust" | sed -n "s/^$1 \([0-9a-f]\{64\}\)\$/\1/p" | sed -n 1p; }
check() {
  m="$1/.xcfleet-build"
  [ -O "$1" ] && [ ! -L "$1" ] || { why="not a directory of $(id -un)"; return 1; }
  [ -f "$m" ] || { why="no marker"; return 1; }
  [ "$(sed -n 's/^key=//p' "$m")" = "$key" ] || { why="its marker names another key"; return 1; }
  xcf_verify "$1" || { why="a source file differs from the build's manifest"; return 1; }
  xcf_has_product "$1" || { why="its test product is missing"; return 1; }
  fresh=$(xcf_product_hash "$1")
  want=$(trusted "$key")
  if [ -n "$want" ]; then
    [ "$fresh" = "$want" ] || { why="the test product differs from the SHA-256 xcfleet recorded when it built it"; return 1; }
  elif [ "$existed" = 0 ] && [ "${2:-}" = locked ]; then
    # Finished by another builder (another xcfleet process) while this job waited for the lock.
    [ "$fresh" = "$(sed -n 's/^product=//p' "$m")" ] || { why="the test product differs from its recorded SHA-256"; return 1; }
  else
    why="xcfleet holds no record of building it on this host"; return 1
  fi
}
use() {
  touch "$b/$key" 2>/dev/null
  printf '%s\n' "$job" > "$b/.pins/$key.$(basename "$job")"
  (cd "$b/$key" && for p in $glob; do [ -e "$p" ] && say product "$b/$key/$p"; done)
  say digest "$fresh"
  say origin "$1"; exit 0
}
if [ -d "$b/$key" ]; then
  check "$b/$key" && use cached
  say untrusted "$why"
fi
exec 9>>"$b/.lock" || exit 97
# Blocks on the lock (taken the moment it is released), saying `waiting` at once and every 5 s.
perl -MFcntl=:flock -e 'open(my $f, ">&=", 9) or die "cannot use the lock: $!\n"; $| = 1;
  unless (flock($f, LOCK_EX | LOCK_NB)) { print "XCFLEET-BUILD waiting\n"; local $SIG{ALRM} = sub { print "XCFLEET-BUILD waiting\n"; alarm 5 };
    alarm 5; until (flock($f, LOCK_EX)) { $!{EINTR} or die "cannot take the lock: $!\n" } alarm 0 }' || exit 97
say locked
if [ -d "$b/$key" ]; then
  check "$b/$key" locked && { exec 9>&-; use cached; }
  say untrusted "$why"
  mv "$b/$key" "$b/.untrusted.$$" && xcf_rm "$b/.untrusted.$$"
fi
s="$b/.stage"
xcf_rm "$s" || { echo "xcfleet: cannot remove $s" >&2; exit 97; }
# Nearest finished build of the same toolchain that xcfleet recorded building here (or that another
# of this run's builders, named `pending`, finished while this one waited): fewest files to write
# (new or changed), at least one in common.
near="$b/.near.$$"
printf '%s\n' "$manifest" > "$near.want"; printf '%s\n' "$trust" > "$near.trust"; printf '%s\n' "$before" > "$near.before"
for m in "$b"/*/.xcfleet-build; do [ -f "$m" ] && printf '%s\n' "$m"; done > "$near.markers"
# One pass over every marker (no process per build): "files-to-write order key late" for each
# finished build of this toolchain that xcfleet recorded here (or that is pending and appeared during
# the wait: late=1) and has at least one file in common with the job; nearest first, ties in the
# markers' order. The list is of "key:late" words.
candidates=$(awk -v tool="$tool" -v t="$near" '
  function hex(s) { return s != "" && s !~ /[^0-9a-f]/ }
  BEGIN {
    while ((getline l < (t ".want")) > 0) if (l != "" && !(l in w)) { w[l] = 1; n++ }
    while ((getline l < (t ".trust")) > 0) {
      k = l; sub(/ .*$/, "", k); v = substr(l, length(k) + 2)
      if (v == "pending") pend[k] = 1
      else if (length(v) == 64 && hex(v)) rec[k] = 1
    }
    while ((getline l < (t ".before")) > 0) seen[l] = 1
    i = 0
    while ((getline m < (t ".markers")) > 0) {
      k = m; sub(/\/\.xcfleet-build$/, "", k); sub(/^.*\//, "", k)
      if (length(k) != 64 || !hex(k)) continue
      if (!(k in rec) && !((k in pend) && !(k in seen))) continue
      tools = 0; match1 = 0; body = 0; common = 0; split("", got)
      while ((getline l < m) > 0) {
        if (body) { if ((l in w) && !(l in got)) { got[l] = 1; common++ } }
        else if (l == "--") body = 1
        else if (substr(l, 1, 10) == "toolchain=") { tools++; match1 = (substr(l, 11) == tool) }
      }
      close(m)
      if (tools == 1 && match1 && common > 0) printf "%d %d %s:%d\n", n - common, i++, k, ((k in pend) && !(k in seen))
    }
  }' | sort -n -k1,1 -k2,2 | cut -d' ' -f3)
rm -f "$near.want" "$near.trust" "$near.before" "$near.markers"
best=""
for c in $candidates; do
  k=${c%:*}; m="$b/$k/.xcfleet-build"
  # A base holding this job's product that is not what xcfleet recorded is not built upon (the
  # product would be carried over when nothing it is made from changed); the next nearest may be.
  # A pending base finished by another builder while this one waited (xcfleet recorded it after
  # this command was made; a record of its key is of an older build) is held to its marker's product.
  if [ "${c#*:}" = 1 ]; then recorded=$(sed -n 's/^product=//p' "$m"); else recorded=$(trusted "$k"); fi
  [ -n "$recorded" ] || continue
  if xcf_has_product "$b/$k" && [ "$(xcf_product_hash "$b/$k")" != "$recorded" ]; then continue; fi
  best=$k; break
done
origin=cold
if [ -n "$best" ] && { if [ "$(uname)" = Darwin ]; then cp -Rpc "$b/$best" "$s" 2>/dev/null || { xcf_rm "$s"; cp -Rp "$b/$best" "$s"; }; else cp -a "$b/$best" "$s"; fi; }; then
  origin="incremental $best"
  chmod -R u+w "$s"
  rm -f "$s/.xcfleet-build"
  xcf_prune "$s"
  printf '%s\n' "$manifest" | (cd "$s" && xcf_h -c 2>/dev/null) | sed -n 's/: FAILED.*$//p' | while IFS= read -r f; do
    mkdir -p "$(dirname "$s/$f")" && cp -- "$job/$f" "$s/$f"
  done
else
  xcf_rm "$s"; mkdir "$s" && cp -R "$job/." "$s/" && rm -f "$s/.xcfleet-build" || { echo "xcfleet: cannot stage the package in $s" >&2; exit 97; }
  # Only what the key covers: steering files are left out of the build tree.
  xcf_prune "$s"
fi
xcf_verify "$s" || { echo "xcfleet: the staged package in $s does not match the files sent; not building from it" >&2; xcf_rm "$s"; exit 97; }
(cd "$s" && exec "$@" 9>&-); st=$?
if [ $st -ne 0 ]; then xcf_rm "$s"; exit $st; fi
xcf_has_product "$s" && ph=$(xcf_product_hash "$s") || { echo "xcfleet: the build made no test product matching $glob" >&2; xcf_rm "$s"; exit 97; }
{ printf 'key=%s\ntoolchain=%s\nproduct=%s\n--\n' "$key" "$tool" "$ph"; printf '%s\n' "$manifest"; } > "$s/.xcfleet-build.tmp" &&
  mv "$s/.xcfleet-build.tmp" "$s/.xcfleet-build" && mv "$s" "$b/$key" || { echo "xcfleet: cannot finish the build in $b/$key (disk full?)" >&2; xcf_rm "$s"; exit 97; }
# Test processes (the login user's, but not root's) cannot write into a finished build by accident.
[ "$ro" != 1 ] || chmod -R a-w "$b/$key"
fresh=$ph
xcf_evict "$b" "$root/.cache" "$max" "$minfree" "$key"
exec 9>&-
use "$origin"
