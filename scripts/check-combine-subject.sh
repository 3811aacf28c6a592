#!/usr/bin/env bash
# Linux approximation for a team's subject under the combine-lifetime contract (the worked example
# Examples/AppFeed by default). Renders the plan's harness with `xcfleet render` (the very files a
# macOS host gets: contract tests, shared kit, the team's adapter, XCFleetSettings with the claims,
# the team's package under Subject/), rebuilds it as a Linux package against the Combine stand-in
# (scripts/combine-shim): one target for the subject's single library target, one for the rendered
# test target. Runs the claimed K tests (unclaimed ones skip), then renders each of the subject's
# mutants with `xcfleet render --mutant ID` and requires a failing test named after its contract id.
# macOS hosts with the real Combine stay the authority.
# Usage: scripts/check-combine-subject.sh [PLAN [ID:CONTRACT...]]
#   PLAN          default Examples/AppFeed/Plans/app-feed-combine-contract.json
#   ID:CONTRACT   mutants to check besides every mutants/*/mutant.json in the plan's package folder
#                 (name the plan's inline subject.mutants here)
# Env: XCFLEET_COMBINE_SUBJECT_DIR scratch under /tmp; XCFLEET_BIN the xcfleet binary (default built here).
# Exit status: 0 all good, 1 a failure, 2 setup error.
set -u -o pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
plan="${1:-$root/Examples/AppFeed/Plans/app-feed-combine-contract.json}"
[ "$#" -gt 0 ] && shift
scratch="${XCFLEET_COMBINE_SUBJECT_DIR:-/tmp/xcfleet-check-combine-subject}"
limit="${XCFLEET_COMBINE_TIMEOUT:-900}"
case "$scratch" in /tmp/*) ;; *) echo "check-combine-subject: scratch folder must be under /tmp" >&2; exit 2 ;; esac
[ -f "$plan" ] || { echo "check-combine-subject: no plan at $plan" >&2; exit 2; }
pkg="$scratch/pkg"; logs="$scratch/logs"
. "$root/scripts/mutant-render.sh"
field() { sed -n "s/.*\"$1\"[[:space:]]*:[[:space:]]*\"\([^\"]*\)\".*/\1/p" "$2" | head -n 1; }
ident() { [[ "$1" =~ ^[A-Za-z_][A-Za-z0-9_]*$ ]]; }
mkdir -p "$scratch" "$logs"
mutant_bin "$root" "$scratch" || exit 2

# Renders the plan (with a mutant when $2 is given) into $1; prints the one suite folder.
render() {
  rm -rf "$1"
  "$xcfleet" render "$plan" --out "$1" ${2:+--mutant "$2"} --templates "$root" >"$logs/render.out" 2>&1 || {
    cat "$logs/render.out" >&2; return 1; }
  local dirs=("$1"/*/)
  [ "${#dirs[@]}" -eq 1 ] || { echo "the plan must have exactly one suite (rendered: ${#dirs[@]})" >&2; return 1; }
  printf '%s\n' "${dirs[0]%/}"
}

# Copies every file of $1 that differs into $2 (fresh modification time), so only changed files rebuild.
sync_into() {
  local f rel
  (cd "$1" && find . -type f -name '*.swift') | while read -r rel; do
    f="$2/${rel#./}"
    cmp -s "$1/$rel" "$f" && continue
    mkdir -p "$(dirname "$f")"; cp "$1/$rel" "$f"; touch "$f"
  done
}

gate="$(render "$scratch/rendered" "")" || { echo "check-combine-subject: cannot render $plan" >&2; exit 2; }
subjects=("$gate"/Subject/*/)
[ "${#subjects[@]}" -eq 1 ] || { echo "check-combine-subject: the plan's suite has no subject (no Subject/ folder)" >&2; exit 2; }
folder="$(basename "${subjects[0]}")"
modules=("$gate/Subject/$folder/Sources"/*/)
[ "${#modules[@]}" -eq 1 ] || { echo "check-combine-subject: only a subject with one target under Sources/ is supported here (found ${#modules[@]})" >&2; exit 2; }
module="$(basename "${modules[0]}")"
target="$(field testTarget "$gate/xcfleet-manifest.json")"
ident "$module" && ident "$target" || { echo "check-combine-subject: unexpected module or test target name" >&2; exit 2; }

mkdir -p "$pkg/Sources/Combine" "$pkg/Sources/$module" "$pkg/Tests/$target"
cat > "$pkg/Package.swift" <<SWIFT
// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "CombineSubjectCheck",
    targets: [
        .target(name: "Combine", swiftSettings: [.swiftLanguageMode(.v5)]),
        .target(name: "$module", dependencies: ["Combine"]),
        .testTarget(name: "$target", dependencies: ["$module", "Combine"]),
    ]
)
SWIFT
sleep 1  # fresh times: the incremental build compares modification times by whole seconds
find "$pkg/Sources/$module" "$pkg/Tests/$target" -name '*.swift' -delete
cp "$root/scripts/combine-shim/"*.swift "$pkg/Sources/Combine/"
place() {  # the rendered folder $1 into the Linux package
  sync_into "$1/Subject/$folder/Sources/$module" "$pkg/Sources/$module"
  sync_into "$1/Tests/$target" "$pkg/Tests/$target"
}
place "$gate"

if mutant_swift_test "$pkg" "$logs/real.log" "$logs/real.failed"; then
  passed="$(grep -cE "Test Case '.*' passed" "$logs/real.log")"
  skipped="$(grep -cE "Test Case '.*' skipped" "$logs/real.log")"
  [ "$passed" -gt 0 ] || { echo "FAIL $module: no test ran (see $logs/real.log)"; exit 1; }
  echo "PASS $module under combine-lifetime: $passed test cases passed, $skipped skipped (not claimed)"
else
  echo "FAIL $module (see $logs/real.log)"; grep -E "error:|failed" "$logs/real.log" | head -n 30; exit 1
fi
rm -rf "$scratch/gate"; cp -R "$gate" "$scratch/gate"

specs=()
while IFS= read -r spec; do
  specs+=("$(field id "$spec"):$(field contract "$spec")")
done < <(find "$(dirname "$plan")/.." -path '*/.build' -prune -o -path '*/mutants/*/mutant.json' -print | sort)
specs+=("$@")
[ "${#specs[@]}" -gt 0 ] || { echo "check-combine-subject: no mutants to check"; exit 0; }

bad=0
for pair in "${specs[@]}"; do
  id="${pair%%:*}"; contract="${pair#*:}"
  if ! rendered="$(render "$scratch/rendered" "$id" 2>"$logs/$id.render")"; then
    echo "FAIL $id: the mutant does not render: $(cat "$logs/$id.render")"; bad=1; continue
  fi
  sleep 1
  place "$rendered"
  mutant_swift_test "$pkg" "$logs/$id.log" "$logs/$id.failed"
  mutant_verdict "$id" "$contract" $? "$logs/$id.log" "$logs/$id.failed" "$module" || bad=1
  sleep 1
  place "$scratch/gate"
done
exit "$bad"
