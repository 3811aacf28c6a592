# A cold push (SSHShell): the tar stream on stdin is extracted twice at once — into the job
# directory, and (through a fifo and `tee`) into a fresh copy that becomes the push cache entry
# <ROOT>/.cache/HASH for next time. Two jobs may push the same tree at once: `mkdir` of the claim
# is atomic, so exactly one renames its copy into place (a second `mv` would land inside it).
# Arguments: ROOT HASH DIR. Exit status: tar's into DIR (0 when the job has its files). POSIX sh.
root=$1; hash=$2; dir=$3
cache="$root/.cache/$hash"; claim="$root/.cache/.claim-$hash"; tmp="$root/.cache/.tmp-$hash-$$"
umask 077
mkdir -p "$dir" "$root/.cache" && rm -rf "$tmp" "$tmp.fifo" && mkdir "$tmp" && mkfifo "$tmp.fifo" || exit 1
tar -x -f - -C "$tmp" < "$tmp.fifo" & bg=$!
tee "$tmp.fifo" | tar -x -f - -C "$dir"; s=$?
wait $bg; t=$?
rm -f "$tmp.fifo"
[ $s -eq 0 ] || { rm -rf "$tmp"; exit $s; }
if [ $t -eq 0 ] && mkdir "$claim" 2>/dev/null; then mv "$tmp" "$cache"; fi
rm -rf "$tmp"
exit 0
