# Functions shared by the build, eviction and clean scripts (after work-root.sh). The caller sets
# $manifest and $glob; $xcf_evict_perl holds evict.pl. POSIX sh, Linux and macOS.
say() { printf 'XCFLEET-BUILD %s\n' "$*"; }
if command -v sha256sum >/dev/null 2>&1; then xcf_h() { sha256sum "$@"; }; else xcf_h() { shasum -a 256 "$@"; }; fi
# Every non-directory entry of a package tree except its scratch directories (at any depth: a
# team's package may sit in a folder of its repository) and markers, sorted.
xcf_list() { (cd "$1" && find . \( -name .build -o -name DerivedData -o -name '.xcfleet-*' \) -prune -o ! -type d -print) | sed 's|^\./||' | LC_ALL=C sort; }
# The tree holds exactly the manifest's files with their contents.
xcf_verify() {
  [ -z "$(cd "$1" && find . \( -name .build -o -name DerivedData \) -prune -o -type l -print)" ] || return 1
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
