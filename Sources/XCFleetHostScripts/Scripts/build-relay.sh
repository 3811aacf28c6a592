# Installs a build another host of the same class made (docs/builds.md, "Build once per fleet"),
# after work-root.sh and build-cache-common.sh. The orchestrator pushed the package's sources and
# the test product it fetched from that host into SRC; it is used only when the sources match the
# build's manifest and the product's SHA-256 is the one xcfleet recorded when it built it there.
# Arguments: ROOT KEY TOOLCHAIN GLOB SOURCES STEER SRC DIGEST READONLY (SOURCES: the SHA-256 of the
# build's `sha256  path` manifest, which is listed from SRC's files, the paths STEER left out).
set -u
root=$1; key=$2; tool=$3; glob=$4; sources=$5; steer=$6; src=$7; digest=$8; ro=$9
b="$root/builds"
xcf_private "$root" && xcf_private "$b" && xcf_private "$b/.pins" || exit 97
case "$key" in *[!0-9a-f]*|'') echo "xcfleet: bad build key" >&2; exit 97;; esac
case "$digest" in *[!0-9a-f]*|'') echo "xcfleet: bad product digest" >&2; exit 97;; esac
xcf_read_manifest "$src" "$sources" "$steer" || { say relay refused "its sources differ from the build's manifest"; exit 96; }
if [ -d "$b/$key" ]; then say relay present; exit 0; fi
r="$b/.relay.$$"
xcf_rm "$r"
cp -R "$src/." "$r" 2>/dev/null || { echo "xcfleet: cannot stage the relayed build in $r" >&2; xcf_rm "$r"; exit 97; }
rm -f "$r/.xcfleet-build"
xcf_verify "$r" || { say relay refused "its sources differ from the build's manifest"; xcf_rm "$r"; exit 96; }
xcf_has_product "$r" || { say relay refused "its test product is missing"; xcf_rm "$r"; exit 96; }
ph=$(xcf_product_hash "$r")
[ "$ph" = "$digest" ] || { say relay refused "the test product differs from the SHA-256 xcfleet recorded when it built it"; xcf_rm "$r"; exit 96; }
{ printf 'key=%s\ntoolchain=%s\nproduct=%s\n--\n' "$key" "$tool" "$ph"; printf '%s\n' "$manifest"; } > "$r/.xcfleet-build" || { xcf_rm "$r"; exit 97; }
[ "$ro" != 1 ] || chmod -R a-w "$r"
exec 9>>"$b/.lock" || { xcf_rm "$r"; exit 97; }
perl -MFcntl=:flock -e 'open(my $f, ">&=", 9) or die "cannot use the lock: $!\n"; flock($f, LOCK_EX) or die "cannot lock: $!\n";' || { xcf_rm "$r"; exit 97; }
if [ -d "$b/$key" ]; then xcf_rm "$r"; say relay present; exit 0; fi
mv "$r" "$b/$key" || { echo "xcfleet: cannot finish the relayed build in $b/$key (disk full?)" >&2; xcf_rm "$r"; exit 97; }
exec 9>&-
say relay installed "$ph"
