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
/// Trust: a finished build is used only when the SHA-256 of its test product, computed afresh from
/// the files on disk, equals the digest xcfleet itself recorded when it built that key on this host
/// (`Input.trusted`, from the run and the history; never read from the host). The marker alone is a
/// file anything running as the login user can rewrite. One exception: an entry that did not exist
/// when this script started and was finished by another builder while this one waited for the lock
/// (a concurrent xcfleet process) is used on its own marker. Bases of incremental builds must pass
/// the same check. SwiftPM entries are made read-only (`chmod -R a-w`) once finished.
///
/// Protocol lines on stdout (`XCFLEET-BUILD …`): `waiting`, `locked`, `untrusted WHY`,
/// `origin cached|cold|incremental BASE`, `product PATH`, `digest SHA256` (of the product used),
/// `evicted NAME KIB`. Exit 0: the product is ready; the command's own status on a build failure;
/// 97 when the cache cannot be trusted or used.
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
        /// Product digests xcfleet recorded for builds it made on this host (`BuildKey.hex` → SHA-256):
        /// the only builds the script may use or start from.
        public var trusted: [String: String] = [:]
        /// Make a finished build read-only (SwiftPM: the tests run the bundle from the job folder and
        /// write nothing into the build; Xcode's test-without-building writes into DerivedData).
        public var readOnly: Bool = false

        package init(workRoot: String, key: BuildKey, toolchainDigest: String, productGlob: String, manifest: [String], jobDirectory: String,
                     limits: CacheLimits, command: [String], trusted: [String: String] = [:], readOnly: Bool = false) {
            self.workRoot = workRoot
            self.key = key
            self.toolchainDigest = toolchainDigest
            self.productGlob = productGlob
            self.manifest = manifest
            self.jobDirectory = jobDirectory
            self.limits = limits
            self.command = command
            self.trusted = trusted
            self.readOnly = readOnly
        }
    }

    /// Exit status when the cache itself is unusable (ownership, lock, copy).
    public static let unusableStatus: Int32 = 97

    public static func command(_ input: Input) -> ShellCommand {
        ShellCommand(["sh", "-c", script, "sh", input.workRoot, input.key.hex, input.toolchainDigest, input.productGlob,
                      input.manifest.joined(separator: "\n"), input.jobDirectory, String(input.limits.maxBytes),
                      String(input.limits.minFreeBytes), trustLines(input.trusted), input.readOnly ? "1" : "0"] + input.command)
    }

    /// `KEY DIGEST` lines, sorted; only well-formed pairs.
    package static func trustLines(_ trusted: [String: String]) -> String {
        trusted.filter { Self.isDigest($0.key) && Self.isDigest($0.value) }.sorted { $0.key < $1.key }
            .map { "\($0.key) \($0.value)" }.joined(separator: "\n")
    }

    /// 64 lower-case hex digits.
    package static func isDigest(_ s: String) -> Bool {
        s.utf8.count == 64 && s.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
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
# The product glob matches an existing path in the tree.
xcf_has_product() { (cd "$1" && for p in $glob; do [ -e "$p" ] || exit 1; done); }
xcf_evict() { perl -e "$xcf_evict_perl" -- "$@"; }
# Removes a tree that may be read-only (finished builds are).
xcf_rm() { [ -e "$1" ] || [ -L "$1" ] || return 0; chmod -R u+w "$1" 2>/dev/null; rm -rf "$1"; }
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
  rename($x->[1], $t) or next; system("chmod", "-R", "u+w", "--", $t); system("rm", "-rf", "--", $t); rmdir($x->[4]) if $x->[4] ne "";
  $total -= $x->[2]; print "XCFLEET-BUILD evicted ", ($x->[1] =~ m{([^/]+/[^/]+)$})[0], " $x->[2]\n";
}'

"""#

    package static let script = common + #"""
set -u
root=$1; key=$2; tool=$3; glob=$4; manifest=$5; job=$6; max=$7; minfree=$8; trust=$9; ro=${10}; shift 10
b="$root/builds"
xcf_private "$root" && xcf_private "$b" && xcf_private "$b/.pins" || exit 97
case "$key" in *[!0-9a-f]*|'') echo "xcfleet: bad build key" >&2; exit 97;; esac
why=""; fresh=""
existed=0; { [ -e "$b/$key" ] || [ -L "$b/$key" ]; } && existed=1
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
perl -MFcntl=:flock -e 'open(my $f, ">&=", 9) or die "cannot use the lock: $!\n"; $| = 1; my $t = 0;
  until (flock($f, LOCK_EX | LOCK_NB)) { if (time - $t >= 5) { print "XCFLEET-BUILD waiting\n"; $t = time; } select(undef, undef, undef, 0.1); }' || exit 97
say locked
if [ -d "$b/$key" ]; then
  check "$b/$key" locked && { exec 9>&-; use cached; }
  say untrusted "$why"
  mv "$b/$key" "$b/.untrusted.$$" && xcf_rm "$b/.untrusted.$$"
fi
s="$b/.stage"
xcf_rm "$s" || { echo "xcfleet: cannot remove $s" >&2; exit 97; }
# Nearest finished build of the same toolchain that xcfleet recorded building here: fewest files to
# write (new or changed), at least one file in common.
printf '%s\n' "$manifest" | LC_ALL=C sort > "$b/.want.$$"
best=""; bestd=$(printf '%s\n' "$manifest" | wc -l)
for m in "$b"/*/.xcfleet-build; do
  [ -f "$m" ] || continue
  [ "$(sed -n 's/^toolchain=//p' "$m")" = "$tool" ] || continue
  k=$(basename "$(dirname "$m")")
  case "$k" in *[!0-9a-f]*|'') continue;; esac
  [ ${#k} -eq 64 ] && [ -n "$(trusted "$k")" ] || continue
  d=$(sed -n '/^--$/,$p' "$m" | sed 1d | LC_ALL=C sort | LC_ALL=C comm -13 - "$b/.want.$$" | wc -l)
  if [ "$d" -lt "$bestd" ]; then bestd=$d; best=$(basename "$(dirname "$m")"); fi
done
rm -f "$b/.want.$$"
# A base holding this job's product that is not what xcfleet recorded is not built upon (the
# product would be carried over when nothing it is made from changed).
if [ -n "$best" ] && xcf_has_product "$b/$best" && [ "$(xcf_product_hash "$b/$best")" != "$(trusted "$best")" ]; then best=""; fi
origin=cold
if [ -n "$best" ] && { if [ "$(uname)" = Darwin ]; then cp -Rpc "$b/$best" "$s" 2>/dev/null || { xcf_rm "$s"; cp -Rp "$b/$best" "$s"; }; else cp -a "$b/$best" "$s"; fi; }; then
  origin="incremental $best"
  chmod -R u+w "$s"
  rm -f "$s/.xcfleet-build"
  want=$(printf '%s\n' "$manifest" | sed 's/^[0-9a-f]*  //' | LC_ALL=C sort)
  xcf_list "$s" | while IFS= read -r f; do printf '%s\n' "$want" | grep -qxF -- "$f" || rm -f -- "$s/$f"; done
  printf '%s\n' "$manifest" | (cd "$s" && xcf_h -c 2>/dev/null) | sed -n 's/: FAILED.*$//p' | while IFS= read -r f; do
    mkdir -p "$(dirname "$s/$f")" && cp -- "$job/$f" "$s/$f"
  done
else
  xcf_rm "$s"; mkdir "$s" && cp -R "$job/." "$s/" && rm -f "$s/.xcfleet-build" || { echo "xcfleet: cannot stage the package in $s" >&2; exit 97; }
  # Only what the key covers: steering files are left out of the build tree.
  xcf_list "$s" | while IFS= read -r f; do printf '%s\n' "$manifest" | sed 's/^[0-9a-f]*  //' | grep -qxF -- "$f" || rm -f -- "$s/$f"; done
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
  for x in "$b/.stage" "$b"/.untrusted.* "$b"/*.evict.*; do xcf_rm "$x"; done
fi
if [ -d "$root/.cache" ]; then xcf_private "$root/.cache" || exit 97; rm -rf "$root/.cache"/.tmp-*; fi
mkdir -p "$b"
xcf_evict "$b" "$root/.cache" 0 0 ""
echo "XCFLEET-BUILD clean done"
"""#, "sh", workRoot])
    }
}

