import Foundation
import XCFleetModel

/// The host side of the build cache: one POSIX sh script (plus perl for `flock`), the same on
/// Linux and macOS, run through the host's shell in the job directory. See docs/builds.md.
///
/// Layout under `<workRoot>/builds/`:
/// - `<key>/`: a finished build (the whole package tree with its scratch directory, e.g. `.build`
///   or DerivedData) and its marker `.xcfleet-build` (written last): `key=`, `toolchain=` (digest
///   of the toolchain identity), `product=` (SHA-256 over the test product's files), then the
///   `sha256  path` manifest of every source file.
/// - `.stage/`: the one place builds are made (SwiftPM and llbuild record absolute paths, so an
///   incremental build only recompiles what changed when it runs at the same path as its base).
///   Renamed to `<key>/` when complete; a `.stage` left by a killed builder has no marker and is
///   wiped by the next builder, never used.
/// - `.lock`: every builder holds an exclusive `flock` on it (the kernel drops it when the builder
///   dies; works across xcfleet processes). Readers of a finished build need no lock.
/// - `.pins/<key>.<job>`: the job directory using a build; a pin whose job directory is gone is stale.
///
/// Protocol lines on stdout (`XCFLEET-BUILD …`): `waiting`, `locked`, `untrusted WHY`,
/// `origin cached|cold|incremental BASE`, `product PATH`, `evicted NAME KIB`. Exit 0: the product
/// is ready; the command's own status on a build failure; 97 when the cache cannot be trusted or used.
public enum BuildCacheScript {
    public struct Input: Equatable, Sendable {
        public var workRoot: String
        public var key: BuildKey
        /// `BuildKey.toolchainDigest` of the host's identity: bases of another toolchain are never used.
        public var toolchainDigest: String
        /// The test product, relative to the package root, a shell glob matching one path
        /// (`.build/debug/*PackageTests.xctest`; on Xcode hosts e.g. `DerivedData/Build/Products/*.xctestrun`).
        public var productGlob: String
        /// `BuildKey.sourceManifest` of the workspace.
        public var manifest: [String]
        /// The job directory holding the pushed package.
        public var jobDirectory: String
        public var limits: CacheLimits
        /// The build command, run in the staging directory.
        public var command: [String]

        package init(workRoot: String, key: BuildKey, toolchainDigest: String, productGlob: String, manifest: [String], jobDirectory: String, limits: CacheLimits, command: [String]) {
            self.workRoot = workRoot
            self.key = key
            self.toolchainDigest = toolchainDigest
            self.productGlob = productGlob
            self.manifest = manifest
            self.jobDirectory = jobDirectory
            self.limits = limits
            self.command = command
        }
    }

    /// Exit status when the cache itself is unusable (ownership, lock, copy).
    public static let unusableStatus: Int32 = 97

    public static func command(_ input: Input) -> ShellCommand {
        ShellCommand(["sh", "-c", script, "sh", input.workRoot, input.key.hex, input.toolchainDigest, input.productGlob,
                      input.manifest.joined(separator: "\n"), input.jobDirectory, String(input.limits.maxBytes),
                      String(input.limits.minFreeBytes)] + input.command)
    }

    /// Functions shared by the build, eviction and clean scripts.
    package static let common = WorkRootSafety.shellFunctions + #"""
say() { printf 'XCFLEET-BUILD %s\n' "$*"; }
if command -v sha256sum >/dev/null 2>&1; then xcf_h() { sha256sum "$@"; }; else xcf_h() { shasum -a 256 "$@"; }; fi
# Every non-directory entry of a package tree except its scratch directories and markers, sorted.
xcf_list() { (cd "$1" && find . \( -path ./.build -o -path ./DerivedData -o -name '.xcfleet-*' \) -prune -o ! -type d -print) | sed 's|^\./||' | LC_ALL=C sort; }
# The tree holds exactly the manifest's files with their contents.
xcf_verify() {
  [ -z "$(cd "$1" && find . \( -path ./.build -o -path ./DerivedData \) -prune -o -type l -print)" ] || return 1
  [ "$(xcf_list "$1")" = "$(printf '%s\n' "$manifest" | sed 's/^[0-9a-f]*  //' | LC_ALL=C sort)" ] || return 1
  printf '%s\n' "$manifest" | (cd "$1" && xcf_h -c >/dev/null 2>&1)
}
# SHA-256 over every file of the product (a file or a bundle directory).
xcf_product_hash() {
  (cd "$1" && for p in $glob; do [ -e "$p" ] || exit 1; find "$p" -type f | LC_ALL=C sort | while IFS= read -r f; do xcf_h "$f"; done; done) | xcf_h | cut -c1-64
}
xcf_evict() { perl -e "$xcf_evict_perl" -- "$@"; }
xcf_evict_perl='
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
  rename($x->[1], $t) or next; system("rm", "-rf", "--", $t); rmdir($x->[4]) if $x->[4] ne "";
  $total -= $x->[2]; print "XCFLEET-BUILD evicted ", ($x->[1] =~ m{([^/]+/[^/]+)$})[0], " $x->[2]\n";
}'

"""#

    package static let script = common + #"""
set -u
root=$1; key=$2; tool=$3; glob=$4; manifest=$5; job=$6; max=$7; minfree=$8; shift 8
b="$root/builds"
xcf_private "$root" && xcf_private "$b" && xcf_private "$b/.pins" || exit 97
case "$key" in *[!0-9a-f]*|'') echo "xcfleet: bad build key" >&2; exit 97;; esac
why=""
check() {
  m="$1/.xcfleet-build"
  [ -O "$1" ] && [ ! -L "$1" ] || { why="not a directory of $(id -un)"; return 1; }
  [ -f "$m" ] || { why="no marker"; return 1; }
  [ "$(sed -n 's/^key=//p' "$m")" = "$key" ] || { why="its marker names another key"; return 1; }
  xcf_verify "$1" || { why="a source file differs from the build's manifest"; return 1; }
  [ "$(xcf_product_hash "$1")" = "$(sed -n 's/^product=//p' "$m")" ] || { why="the test product differs from its recorded SHA-256"; return 1; }
}
use() {
  touch "$b/$key" 2>/dev/null
  printf '%s\n' "$job" > "$b/.pins/$key.$(basename "$job")"
  (cd "$b/$key" && for p in $glob; do [ -e "$p" ] && say product "$b/$key/$p"; done)
  say origin "$1"; exit 0
}
if [ -d "$b/$key" ]; then
  check "$b/$key" && use cached
  say untrusted "$why"
fi
exec 9>>"$b/.lock" || exit 97
perl -MFcntl=:flock -e 'open(my $f, ">&=", 9) or die "cannot use the lock: $!\n"; $| = 1; my $t = 0;
  until (flock($f, LOCK_EX | LOCK_NB)) { if (time - $t >= 5) { print "XCFLEET-BUILD waiting\n"; $t = time; } select(undef, undef, undef, 0.1); }' || exit 97
say locked
if [ -d "$b/$key" ]; then
  check "$b/$key" && { exec 9>&-; use cached; }
  say untrusted "$why"
  mv "$b/$key" "$b/.untrusted.$$" && rm -rf "$b/.untrusted.$$"
fi
s="$b/.stage"
rm -rf "$s" || { echo "xcfleet: cannot remove $s" >&2; exit 97; }
# Nearest finished build of the same toolchain: fewest files to write (new or changed), at least
# one file in common.
printf '%s\n' "$manifest" | LC_ALL=C sort > "$b/.want.$$"
best=""; bestd=$(printf '%s\n' "$manifest" | wc -l)
for m in "$b"/*/.xcfleet-build; do
  [ -f "$m" ] || continue
  [ "$(sed -n 's/^toolchain=//p' "$m")" = "$tool" ] || continue
  d=$(sed -n '/^--$/,$p' "$m" | sed 1d | LC_ALL=C sort | LC_ALL=C comm -13 - "$b/.want.$$" | wc -l)
  if [ "$d" -lt "$bestd" ]; then bestd=$d; best=$(basename "$(dirname "$m")"); fi
done
rm -f "$b/.want.$$"
origin=cold
if [ -n "$best" ] && { if [ "$(uname)" = Darwin ]; then cp -Rpc "$b/$best" "$s" 2>/dev/null || { rm -rf "$s"; cp -Rp "$b/$best" "$s"; }; else cp -a "$b/$best" "$s"; fi; }; then
  origin="incremental $best"
  rm -f "$s/.xcfleet-build"
  want=$(printf '%s\n' "$manifest" | sed 's/^[0-9a-f]*  //' | LC_ALL=C sort)
  xcf_list "$s" | while IFS= read -r f; do printf '%s\n' "$want" | grep -qxF -- "$f" || rm -f -- "$s/$f"; done
  printf '%s\n' "$manifest" | (cd "$s" && xcf_h -c 2>/dev/null) | sed -n 's/: FAILED.*$//p' | while IFS= read -r f; do
    mkdir -p "$(dirname "$s/$f")" && cp -- "$job/$f" "$s/$f"
  done
else
  rm -rf "$s"; mkdir "$s" && cp -R "$job/." "$s/" && rm -f "$s/.xcfleet-build" || { echo "xcfleet: cannot stage the package in $s" >&2; exit 97; }
  # Only what the key covers: steering files are left out of the build tree.
  xcf_list "$s" | while IFS= read -r f; do printf '%s\n' "$manifest" | sed 's/^[0-9a-f]*  //' | grep -qxF -- "$f" || rm -f -- "$s/$f"; done
fi
xcf_verify "$s" || { echo "xcfleet: the staged package in $s does not match the files sent; not building from it" >&2; rm -rf "$s"; exit 97; }
(cd "$s" && exec "$@" 9>&-); st=$?
if [ $st -ne 0 ]; then rm -rf "$s"; exit $st; fi
ph=$(xcf_product_hash "$s") || { echo "xcfleet: the build made no test product matching $glob" >&2; rm -rf "$s"; exit 97; }
{ printf 'key=%s\ntoolchain=%s\nproduct=%s\n--\n' "$key" "$tool" "$ph"; printf '%s\n' "$manifest"; } > "$s/.xcfleet-build.tmp" &&
  mv "$s/.xcfleet-build.tmp" "$s/.xcfleet-build" && mv "$s" "$b/$key" || { echo "xcfleet: cannot finish the build in $b/$key (disk full?)" >&2; rm -rf "$s"; exit 97; }
xcf_evict "$b" "$root/.cache" "$max" "$minfree" "$key"
exec 9>&-
use "$origin"
"""#

    /// `xcfleet hosts clean`: under the build lock, removes every build and push-cache entry that
    /// no running job uses, and any leftover staging directory.
    public static func cleanCommand(workRoot: String) -> ShellCommand {
        ShellCommand(["sh", "-c", common + #"""
set -u
root=$1; b="$root/builds"
[ -d "$root" ] || { echo "XCFLEET-BUILD clean nothing"; exit 0; }
xcf_private "$root" || exit 97
if [ -d "$b" ]; then
  xcf_private "$b" && xcf_private "$b/.pins" || exit 97
  exec 9>>"$b/.lock" || exit 97
  perl -MFcntl=:flock -e 'open(my $f, ">&=", 9) or die; flock($f, LOCK_EX) or die' || exit 97
  rm -rf "$b/.stage" "$b"/.untrusted.* "$b"/*.evict.*
fi
if [ -d "$root/.cache" ]; then xcf_private "$root/.cache" || exit 97; rm -rf "$root/.cache"/.tmp-*; fi
mkdir -p "$b"
xcf_evict "$b" "$root/.cache" 0 0 ""
echo "XCFLEET-BUILD clean done"
"""#, "sh", workRoot])
    }
}

