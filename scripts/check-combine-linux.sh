#!/usr/bin/env bash
# Linux approximation for the combine-lifetime template: builds its tests, the shared contract kit
# and xcfleet's reference types with their adapter (Templates/adapters/combine-lifetime) against the
# self-written Combine stand-in in scripts/combine-shim (type checking in Swift 6 mode), runs its K tests,
# then swaps in the files each Combine mutant changes (its edits applied by
# `xcfleet render --mutant ID`, see scripts/mutant-render.sh) and requires a failing test named
# after the mutant's contract id. macOS hosts with the real Combine stay the authority; this catches type errors
# and logic slips before a push.
# Usage: scripts/check-combine-linux.sh   (XCFLEET_COMBINE_DIR: scratch under /tmp; XCFLEET_BIN: the
# xcfleet binary that applies the edits, default built here)
# Exit status: 0 all good, 1 a failure, 2 setup error.
set -u -o pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
scratch="${XCFLEET_COMBINE_DIR:-/tmp/xcfleet-check-combine}"
limit="${XCFLEET_COMBINE_TIMEOUT:-900}"
case "$scratch" in /tmp/*) ;; *) echo "check-combine-linux: scratch folder must be under /tmp" >&2; exit 2 ;; esac
pkg="$scratch/pkg"; logs="$scratch/logs"
. "$root/scripts/mutant-render.sh"
field() { sed -n "s/.*\"$1\"[[:space:]]*:[[:space:]]*\"\([^\"]*\)\".*/\1/p" "$2" | head -n 1; }

mkdir -p "$pkg/Sources/Combine" "$pkg/Tests/CombineLifetimeTests" "$logs"
mutant_bin "$root" "$scratch" || exit 2
cat > "$pkg/Package.swift" <<'SWIFT'
// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "CombineCheck",
    targets: [
        .target(name: "Combine", swiftSettings: [.swiftLanguageMode(.v5)]),
        .testTarget(name: "CombineLifetimeTests", dependencies: ["Combine"]),
    ]
)
SWIFT
sleep 1  # fresh times: the incremental build compares modification times by whole seconds
rm -rf "$pkg/Sources/Combine/"*.swift "$pkg/Tests/CombineLifetimeTests/"*.swift "$scratch/base"
mkdir -p "$scratch/base"
cp "$root/scripts/combine-shim/"*.swift "$pkg/Sources/Combine/"
# What `xcfleet render` puts in the test target of a combine-lifetime suite without a subject.
cp "$root/Templates/combine-lifetime/"*.swift "$root/Templates/contract-kit/"*.swift \
   "$root/Templates/adapters/combine-lifetime/"*.swift "$scratch/base/"
cp "$scratch/base/"*.swift "$pkg/Tests/CombineLifetimeTests/"

if mutant_swift_test "$pkg" "$logs/real.log" "$logs/real.failed"; then
  echo "PASS template: $(grep -cE "Test Case '.*' passed" "$logs/real.log") test cases passed"
else
  echo "FAIL template (see $logs/real.log)"; grep -E "error:|failed" "$logs/real.log" | head -n 30; exit 1
fi

bad=0
for spec in "$root"/Templates/mutants/*/mutant.json; do
  [ -f "$spec" ] || continue
  [ "$(field template "$spec")" = "combine-lifetime" ] || continue
  id="$(field id "$spec")"; contract="$(field contract "$spec")"
  if ! rendered="$(mutant_render "$root" "$scratch" "$id" combine-lifetime 2>"$logs/$id.render")"; then
    echo "FAIL $id: the mutant does not apply: $(cat "$logs/$id.render")"; bad=1; continue
  fi
  changed="$(mutant_changed "$rendered" Tests/CombineLifetimeTests "$scratch/base")"
  [ -n "$changed" ] || { echo "FAIL $id: changes no file of the template"; bad=1; continue; }
  sleep 1
  for name in $changed; do cp "$rendered/Tests/CombineLifetimeTests/$name" "$pkg/Tests/CombineLifetimeTests/$name"; touch "$pkg/Tests/CombineLifetimeTests/$name"; done
  mutant_swift_test "$pkg" "$logs/$id.log" "$logs/$id.failed"
  mutant_verdict "$id" "$contract" $? "$logs/$id.log" "$logs/$id.failed" CombineLifetimeTests || bad=1
  sleep 1
  for name in $changed; do cp "$scratch/base/$name" "$pkg/Tests/CombineLifetimeTests/$name"; touch "$pkg/Tests/CombineLifetimeTests/$name"; done
done
exit "$bad"
