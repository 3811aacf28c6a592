#!/usr/bin/env bash
# Verifies that the cache contract suite kills every cache mutant (CONTRACT.md, M section).
#
# Builds ONE scratch SwiftPM package (CacheContract sources + Templates/cache-contract as the
# test target CacheContractTests), runs it with the real sources (must pass), then swaps in the
# files each mutant changes (its edits applied by `xcfleet render --mutant ID`, see
# scripts/mutant-render.sh) in turn (must fail, with a failing test named after the mutant's
# contract id), and restores the real files. Only CacheContract recompiles between runs.
#
# Usage: scripts/verify-mutants.sh [--fresh]
#   XCFLEET_MUTANT_DIR   scratch folder (default /tmp/xcfleet-verify-mutants)
#   XCFLEET_MUTANT_TIMEOUT  seconds per `swift test` run (default 900)
#   XCFLEET_BIN          the xcfleet binary that applies the edits (default: built here)
# Exit status: 0 when the real code passes and every cache mutant is killed; 1 otherwise; 2 on setup errors.
# Combine mutants (template combine-lifetime) need macOS; they are listed and skipped here.
set -u -o pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
scratch="${XCFLEET_MUTANT_DIR:-/tmp/xcfleet-verify-mutants}"
limit="${XCFLEET_MUTANT_TIMEOUT:-900}"
pkg="$scratch/pkg"
logs="$scratch/logs"

case "$scratch" in
  /tmp/*) ;;
  *) echo "verify-mutants: XCFLEET_MUTANT_DIR must be under /tmp (got $scratch)" >&2; exit 2 ;;
esac
if [ "${1:-}" = "--fresh" ]; then rm -rf "$scratch"; fi
command -v swift >/dev/null || { echo "verify-mutants: swift not on PATH" >&2; exit 2; }
. "$root/scripts/mutant-render.sh"

# Reads one string field of a flat mutant.json.
field() { sed -n "s/.*\"$1\"[[:space:]]*:[[:space:]]*\"\([^\"]*\)\".*/\1/p" "$2" | head -n 1; }

mkdir -p "$pkg/Sources/CacheContract" "$pkg/Tests/CacheContractTests" "$logs"
mutant_bin "$root" "$scratch" || exit 2
cat > "$pkg/Package.swift" <<'SWIFT'
// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "MutantCheck",
    platforms: [.macOS(.v13)],
    products: [.library(name: "CacheContract", targets: ["CacheContract"])],
    targets: [
        .target(name: "CacheContract"),
        .testTarget(name: "CacheContractTests", dependencies: ["CacheContract"]),
    ]
)
SWIFT
# Sync sources and tests with fresh times (everything recompiles once per invocation; robust
# even when an earlier invocation was stopped with a mutant in place).
sleep 1
rm -f "$pkg/Sources/CacheContract/"*.swift "$pkg/Tests/CacheContractTests/"*.swift
cp "$root/Sources/CacheContract/"*.swift "$pkg/Sources/CacheContract/"
cp "$root/Templates/cache-contract/"*.swift "$root/Templates/adapters/cache-contract/"*.swift "$root/Templates/contract-kit/"*.swift "$pkg/Tests/CacheContractTests/"

# Puts SRC at DST with a modification time in a later second than any earlier build saw:
# the incremental build compares times at whole-second granularity, so a file swapped back and
# forth within one second would otherwise not be recompiled (seen here: a stale mutant survived).
swap_in() {
  sleep 1
  cp "$1" "$2" && touch "$2"
}

# Whether the last run recompiled FILE (a swapped file must be; otherwise the result is stale).
recompiled() { grep -q "Compiling CacheContract $2" "$1"; }

# Runs the suite; prints the failing test names to $2; returns swift test's status.
run_suite() {
  local log="$1" failed="$2"
  (cd "$pkg" && timeout "$limit" swift test >"$log" 2>&1)
  local status=$?
  grep -oE "Test Case '[^']+' failed" "$log" | sed -E "s/Test Case '(.*)' failed/\1/" | sort -u >"$failed" || true
  return $status
}

echo "verify-mutants: scratch package $pkg"
if run_suite "$logs/real.log" "$logs/real.failed"; then
  echo "PASS real code: $(grep -cE "Test Case '.*' passed" "$logs/real.log") test cases passed"
else
  echo "FAIL real code: the suite must pass against the real sources (see $logs/real.log)"
  tail -n 30 "$logs/real.log"
  exit 1
fi

bad=0
killed=0
total=0
for spec in "$root"/Templates/mutants/*/mutant.json; do
  [ -f "$spec" ] || continue
  id="$(field id "$spec")"; template="$(field template "$spec")"; contract="$(field contract "$spec")"
  if [ "$template" != "cache-contract" ]; then
    echo "SKIP $id ($contract, template $template): needs macOS; see scripts/check-combine-syntax.sh and scripts/check-combine-linux.sh"
    continue
  fi
  total=$((total + 1))
  if ! rendered="$(mutant_render "$root" "$scratch" "$id" cache-contract 2>"$logs/$id.render")"; then
    echo "FAIL $id: the mutant does not apply: $(cat "$logs/$id.render")"; bad=1; continue
  fi
  changed="$(mutant_changed "$rendered" Sources/CacheContract "$root/Sources/CacheContract")"
  if [ -z "$changed" ]; then echo "FAIL $id: changes no file of Sources/CacheContract"; bad=1; continue; fi
  sleep 1
  for name in $changed; do cp "$rendered/Sources/CacheContract/$name" "$pkg/Sources/CacheContract/$name" && touch "$pkg/Sources/CacheContract/$name"; done
  run_suite "$logs/$id.log" "$logs/$id.failed"
  status=$?
  stale=""
  for name in $changed; do recompiled "$logs/$id.log" "$name" || stale="$stale $name"; done
  if [ -n "$stale" ]; then
    echo "FAIL $id:$stale not recompiled (stale build); rerun with --fresh"
    bad=1
  elif [ "$status" -eq 0 ]; then
    echo "FAIL $id ($contract): NOT killed — the suite passed against the mutant"
    bad=1
  else
    names="$(paste -sd, "$logs/$id.failed")"
    if [ -z "$names" ]; then
      echo "FAIL $id ($contract): swift test failed but no test case failed (build error or crash?); see $logs/$id.log"
      grep -m 5 "error:" "$logs/$id.log" || true
      bad=1
    elif grep -q "test${contract}_" "$logs/$id.failed"; then
      echo "KILLED $id ($contract) by: $names"
      killed=$((killed + 1))
    else
      echo "FAIL $id ($contract): killed only by tests of other requirements: $names"
      bad=1
    fi
  fi
  sleep 1
  for name in $changed; do cp "$root/Sources/CacheContract/$name" "$pkg/Sources/CacheContract/$name" && touch "$pkg/Sources/CacheContract/$name"; done
done

echo "verify-mutants: $killed of $total cache mutants killed"
[ "$bad" -eq 0 ] && [ "$total" -gt 0 ] || exit 1
exit 0
