# `xcfleet hosts clean`, after work-root.sh and build-cache-common.sh. Argument: ROOT.
set -u
root=$1; b="$root/builds"
# The shared functions' inputs: cleaning verifies and hashes nothing.
manifest=""; glob=""
[ -d "$root" ] || { echo "XCFLEET-BUILD clean nothing"; exit 0; }
xcf_private "$root" || exit 97
if [ -d "$b" ]; then
  xcf_private "$b" && xcf_private "$b/.pins" || exit 97
  exec 9>>"$b/.lock" || exit 97
  perl -MFcntl=:flock -e 'open(my $f, ">&=", 9) or die; flock($f, LOCK_EX) or die' || exit 97
  for x in "$b/.stage" "$b"/.untrusted.* "$b"/*.evict.*; do xcf_rm "$x"; done
fi
if [ -d "$root/.cache" ]; then
  xcf_private "$root/.cache" || exit 97; rm -rf "$root/.cache"/.tmp-*
  # Kept job trees (a job in flight holds its own: it is a job directory, not under trees/).
  if [ -d "$root/.cache/trees" ]; then
    xcf_private "$root/.cache/trees" || exit 97
    kib=$(du -sk "$root/.cache/trees" | awk '{ print $1 + 0 }')
    chmod -R u+w "$root/.cache/trees" 2>/dev/null; rm -rf "$root/.cache/trees" && echo "XCFLEET-BUILD evicted .cache/trees $kib"
  fi
  # Push-store blobs not used in the last 10 minutes (a push in flight keeps its own).
  if [ -d "$root/.cache/blobs" ]; then
    xcf_private "$root/.cache/blobs" || exit 97
    s="$root/.cache/blobs"; n=$(find "$s" -type f -mmin +10 -print | wc -l | tr -d ' ')
    if [ "$n" -gt 0 ]; then
      kib=$(find "$s" -type f -mmin +10 -exec du -k {} + | awk '{ k += $1 } END { print k + 0 }')
      find "$s" -type f -mmin +10 -exec rm -f {} +
      echo "XCFLEET-BUILD evicted .cache/blobs($n) $kib"
    fi
  fi
fi
mkdir -p "$b"
xcf_evict "$b" "$root/.cache" 0 0 ""
echo "XCFLEET-BUILD clean done"
