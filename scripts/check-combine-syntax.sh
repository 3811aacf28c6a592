#!/usr/bin/env bash
# Linux has no Combine: the combine-lifetime template (its tests and surface, the shared contract kit,
# the reference types and their adapter, and the worked example under Examples/AppFeed) is checked
# for syntax only (`swiftc -parse`, no type checking), one file at a time. It compiles and runs on macOS hosts. Its mutants are exact
# edits (mutant.json), not files: scripts/check-combine-linux.sh applies and type-checks them.
# Exit status: 0 when every file parses, 1 otherwise (2 when swiftc is missing or no file is found).
set -u -o pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
swiftc="${SWIFTC:-$(command -v swiftc || true)}"
[ -n "$swiftc" ] || { echo "check-combine-syntax: swiftc not found" >&2; exit 2; }

files=()
for f in "$root"/Templates/combine-lifetime/*.swift "$root"/Templates/adapters/combine-lifetime/*.swift \
         "$root"/Templates/contract-kit/*.swift "$root"/Examples/AppFeed/Package.swift \
         "$root"/Examples/AppFeed/Sources/*/*.swift "$root"/Examples/AppFeed/Contract/*.swift; do
  [ -f "$f" ] && files+=("$f")
done
[ "${#files[@]}" -gt 0 ] || { echo "check-combine-syntax: no files found" >&2; exit 2; }

bad=0
for f in "${files[@]}"; do
  if out="$("$swiftc" -parse -swift-version 6 "$f" 2>&1)" && [ -z "$(printf '%s' "$out" | grep -E 'error:' || true)" ]; then
    echo "ok   ${f#"$root"/}"
  else
    echo "FAIL ${f#"$root"/}"
    printf '%s\n' "$out" | head -n 20
    bad=1
  fi
done
echo "check-combine-syntax: ${#files[@]} files, $([ "$bad" -eq 0 ] && echo all parse || echo errors)"
exit "$bad"
