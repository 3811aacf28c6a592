# The host probe (HostProbe reads its output): sections @@uname, @@os, @@df STATUS,
# @@private STATUS, @@toolchain STATUS, @@cpu, @@end. Arguments: WORKROOT SWIFT DEVELOPER_DIR.
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
if [ -n "$devdir" ]; then out=$(DEVELOPER_DIR="$devdir" xcodebuild -version 2>&1); st=$?
else out=$("$swift" --version 2>&1); st=$?; fi
echo "@@toolchain $st"; printf '%s\n' "$out"
echo "@@cpu"; { sysctl -n machdep.cpu.brand_string 2>/dev/null || sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo 2>/dev/null | head -n 1; } | head -n 1
{ sysctl -n hw.ncpu 2>/dev/null || getconf _NPROCESSORS_ONLN 2>/dev/null; } | head -n 1
echo "@@end"
