#!/usr/bin/env bash
# Shared by verify-mutants.sh, check-combine-linux.sh and check-combine-subject.sh (sourced, not
# run): applies a mutant's edits with xcfleet's own renderer (`xcfleet render --mutant ID`), so the
# scripts and real runs apply patches the same way, lists the files the mutant changed, and runs
# and judges a scratch package against it.
#
#   mutant_bin                       sets $xcfleet: $XCFLEET_BIN, else builds the xcfleet product here
#   mutant_render ROOT SCRATCH ID TEMPLATE   renders the patched package; prints its folder
#   mutant_changed RENDERED REL_DIR REAL_DIR  prints the .swift names under RENDERED/REL_DIR that differ
#                                             from REAL_DIR (XCFleetSettings.swift is generated: skipped)
#   mutant_swift_test PKG LOG FAILED  `swift test` in PKG (at most $limit s, default 900) into LOG;
#                                     the failed test cases into FAILED; returns swift test's status
#   mutant_verdict ID CONTRACT STATUS LOG FAILED TARGET
#                                     prints KILLED, or FAIL with the reason (TARGET not recompiled,
#                                     not killed, no test of CONTRACT failing); returns 0 only when killed

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

mutant_swift_test() {
  (cd "$1" && timeout "${limit:-900}" swift test >"$2" 2>&1)
  local status=$?
  grep -oE "Test Case '[^']+' failed" "$2" | sed -E "s/Test Case '(.*)' failed/\1/" | sort -u >"$3" || true
  return $status
}

mutant_verdict() {
  local id="$1" contract="$2" status="$3" log="$4" failed="$5" target="$6"
  if ! grep -q "Compiling $target" "$log"; then
    echo "FAIL $id: $target was not recompiled (stale build, or the mutant changes nothing it builds)"
  elif [ "$status" -eq 0 ]; then
    echo "FAIL $id ($contract): NOT killed"
  elif grep -q "test${contract}_" "$failed"; then
    echo "KILLED $id ($contract) by: $(paste -sd, "$failed")"
    return 0
  else
    echo "FAIL $id ($contract): failed without a $contract test failing: $(paste -sd, "$failed")"
    grep -m 5 "error:" "$log" || true
  fi
  return 1
}
