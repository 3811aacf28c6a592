# Functions shared by the build, eviction and clean scripts (after work-root.sh). The caller sets
# $manifest (xcf_read_manifest) and $glob; $xcf_evict_perl holds evict.pl. POSIX sh, Linux and macOS.
say() { printf 'XCFLEET-BUILD %s\n' "$*"; }
if command -v sha256sum >/dev/null 2>&1; then xcf_hx="sha256sum"; else xcf_hx="shasum -a 256"; fi
xcf_h() { $xcf_hx "$@"; }
# Sets $manifest (`sha256  path` lines, by path) from the files of the pushed tree DIR, the
# newline-separated paths STEER left out, when it hashes to DIGEST: what xcfleet computed from the
# files it pushed (a repository's manifest is too long for a command line). Fails otherwise.
xcf_read_manifest() {
  manifest=$(xcf_list "$1" | grep -vxF -e "$3" | tr '\n' '\0' | (cd "$1" && xargs -0 $xcf_hx --)) &&
    [ "$(printf '%s\n' "$manifest" | xcf_h | cut -c1-64)" = "$2" ] ||
    { echo "xcfleet: the files in $1 are not the ones xcfleet sent (their manifest differs)" >&2; return 1; }
}
# The manifest's paths, sorted (what xcf_list of a matching tree prints).
xcf_paths() { printf '%s\n' "$manifest" | sed 's/^[0-9a-f]*  //' | LC_ALL=C sort; }
# Removes every file of the tree DIR that the manifest does not name (one pass, any number of files).
xcf_prune() {
  xcf_paths > "$1.paths.$$" || return 1
  xcf_list "$1" | LC_ALL=C comm -23 - "$1.paths.$$" | while IFS= read -r f; do rm -f -- "$1/$f"; done
  rm -f "$1.paths.$$"
}
# Every non-directory entry of a package tree except its scratch directories (at any depth: a
# team's package may sit in a folder of its repository) and markers, sorted.
xcf_list() { (cd "$1" && find . \( -name .build -o -name DerivedData -o -name '.xcfleet-*' \) -prune -o ! -type d -print) | sed 's|^\./||' | LC_ALL=C sort; }
# The tree holds exactly the manifest's files with their contents.
xcf_verify() {
  [ -z "$(cd "$1" && find . \( -name .build -o -name DerivedData \) -prune -o -type l -print)" ] || return 1
  [ "$(xcf_list "$1")" = "$(xcf_paths)" ] || return 1
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
