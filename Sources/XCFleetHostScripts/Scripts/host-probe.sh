# The host probe (HostProbe reads its output): sections @@uname, @@os, @@df STATUS,
# @@private STATUS, @@toolchain STATUS, @@cpu, @@builds (the keys of finished builds in the build
# cache: a placement hint), @@end. Arguments: WORKROOT SWIFT DEVELOPER_DIR.
# Runs after work-root.sh (xcf_private). POSIX sh, Linux and macOS.
root=$1; swift=$2; devdir=$3
echo "@@uname"; uname -sm 2>&1
echo "@@os"; if command -v sw_vers >/dev/null 2>&1; then echo "macOS $(sw_vers -productVersion 2>/dev/null)"; elif [ -r /etc/os-release ]; then ( . /etc/os-release 2>/dev/null; echo "$PRETTY_NAME" ); fi
if (umask 077; mkdir -p "$root") 2>/dev/null; then out=$(df -Pk "$root" 2>&1); st=$?; else out="cannot create $root"; st=1; fi
echo "@@df $st"; printf '%s\n' "$out"
out=""; st=0
for d in "$root" "$root/.cache" "$root/builds" "$root/builds/.pins" "$root/.xcfleet-leases" "$root/jobs"; do
  if [ "$d" = "$root" ] || [ -e "$d" ] || [ -L "$d" ]; then o=$(xcf_private "$d" 2>&1) || { st=1; out="$o"; break; }; fi
done
echo "@@private $st"; printf '%s\n' "$out"
pst=$st
# The toolchain's version output is remembered in the (private) work root together with the path,
# device, inode, size, mtime and ctime of its binaries: `swift --version` costs a quarter of a
# second, `xcodebuild -version` more. A replaced or reinstalled toolchain changes the stamp.
if [ -n "$devdir" ]; then tool="$devdir/usr/bin/xcodebuild"; other="$devdir/../version.plist"
else tool=$(command -v "$swift" 2>/dev/null); other="$(dirname "$tool")/swift-frontend"; fi
stamp=""; [ -n "$tool" ] && stamp=$(perl -e 'for my $f (@ARGV) { my @s = stat($f) or next; print join(" ", $f, @s[0, 1, 7, 9, 10]), ";" }' "$tool" "$other" 2>/dev/null)
memo="$root/.xcfleet-toolchain"
if [ "$pst" = 0 ] && [ -n "$stamp" ] && [ -f "$memo" ] && [ ! -L "$memo" ] && [ "$(sed -n 1p "$memo")" = "$stamp" ]; then out=$(sed 1d "$memo"); st=0
else
  if [ -n "$devdir" ]; then out=$(DEVELOPER_DIR="$devdir" xcodebuild -version 2>&1); st=$?
  else out=$("$swift" --version 2>&1); st=$?; fi
  if [ "$st" = 0 ] && [ "$pst" = 0 ] && [ -n "$stamp" ]; then (umask 077; printf '%s\n%s\n' "$stamp" "$out" > "$memo.$$" && mv -f "$memo.$$" "$memo") 2>/dev/null; fi
fi
echo "@@toolchain $st"; printf '%s\n' "$out"
echo "@@cpu"; { sysctl -n machdep.cpu.brand_string 2>/dev/null || sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo 2>/dev/null | head -n 1; } | head -n 1
{ sysctl -n hw.ncpu 2>/dev/null || getconf _NPROCESSORS_ONLN 2>/dev/null; } | head -n 1
echo "@@builds"; for m in "$root"/builds/*/.xcfleet-build; do [ -f "$m" ] && basename "$(dirname "$m")"; done
echo "@@end"
