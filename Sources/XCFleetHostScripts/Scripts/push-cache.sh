# The push cache's check (SSHShell), after work-root.sh and build-cache-common.sh (xcf_verify).
# Arguments: ROOT HASH DIR MANIFEST NEW THEN. NEW=1 creates DIR first (fresh: it must not exist).
# When the host already holds this exact tree (<ROOT>/.cache/HASH, ours, and the copy in DIR holds
# exactly the manifest's files and contents) it is copied into DIR: prints "XCFLEET-PUSH warm" and
# exits 0. Otherwise "XCFLEET-PUSH cold" (or "untrusted": a planted or damaged entry, removed) and
# exits 0, or 3 with THEN=1 so that a command chained after this one does not run. Exit 97: the
# work root is not private (one line on stderr); 96: DIR could not be created. POSIX sh.
root=$1; hash=$2; dir=$3; manifest=$4; new=$5; then=$6
cache="$root/.cache/$hash"; claim="$root/.cache/.claim-$hash"
glob="" # the shared functions' product glob: no product here
umask 077
xcf_private "$root" && xcf_private "$root/.cache" || exit 97
if [ "$new" = 1 ]; then mkdir "$dir" || { echo "xcfleet: cannot create the job directory $dir" >&2; exit 96; }; fi
# `cp -R`, as APFS clones on macOS (`cp -c`: no data copied), plain copies elsewhere.
xcf_cp() { if [ "$(uname)" = Darwin ]; then cp -Rc "$@" 2>/dev/null && return 0; fi; cp -R "$@"; }
if [ -d "$cache" ]; then
  if [ -O "$cache" ] && xcf_cp "$cache/." "$dir/" && xcf_verify "$dir"; then touch "$cache"; echo "XCFLEET-PUSH warm"; exit 0; fi
  rm -rf "$cache" "$claim" "$dir"; mkdir -p "$dir"; echo "XCFLEET-PUSH untrusted"
else
  echo "XCFLEET-PUSH cold"
fi
[ "$then" = 1 ] && exit 3
exit 0
