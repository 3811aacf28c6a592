#!/usr/bin/env bash
# Shared by verify-mutants.sh and check-combine-linux.sh (sourced, not run): applies a mutant's
# edits with xcfleet's own renderer (`xcfleet render --mutant ID`), so the scripts and real runs
# apply patches the same way, and lists the files the mutant changed.
#
#   mutant_bin                       sets $xcfleet: $XCFLEET_BIN, else builds the xcfleet product here
#   mutant_render ROOT SCRATCH ID TEMPLATE   renders the patched package; prints its folder
#   mutant_changed RENDERED REL_DIR REAL_DIR  prints the .swift names under RENDERED/REL_DIR that differ
#                                             from REAL_DIR (XCFleetSettings.swift is generated: skipped)

mutant_bin() {
  if [ -n "${XCFLEET_BIN:-}" ]; then xcfleet="$XCFLEET_BIN"; return 0; fi
  (cd "$1" && swift build --product xcfleet >"$2/xcfleet-build.log" 2>&1) || {
    echo "cannot build xcfleet (see $2/xcfleet-build.log)" >&2; return 1; }
  xcfleet="$(cd "$1" && swift build --product xcfleet --show-bin-path)/xcfleet"
  [ -x "$xcfleet" ] || { echo "no xcfleet binary at $xcfleet" >&2; return 1; }
}

mutant_render() {
  local root="$1" scratch="$2" id="$3" template="$4"
  local plan="$scratch/mutant-plan-$template.json" out="$scratch/rendered"
  printf '{"name": "mutants", "suites": [{"name": "gate", "template": "%s"}]}\n' "$template" >"$plan"
  rm -rf "$out/gate-mutant-$id"
  "$xcfleet" render "$plan" --out "$out" --mutant "$id" --templates "$root" >/dev/null || return 1
  printf '%s\n' "$out/gate-mutant-$id"
}

mutant_changed() {
  local f name
  for f in "$1/$2"/*.swift; do
    name="$(basename "$f")"
    [ "$name" = "XCFleetSettings.swift" ] && continue
    cmp -s "$f" "$3/$name" || printf '%s\n' "$name"
  done
}
