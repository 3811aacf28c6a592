#!/usr/bin/env bash
# Cost per test of `xcfleet parse` and `xcfleet report` as a log grows (release build): bench-scale
# prints parse/collate/render per test at 5k, 50k and 200k tests in one attempt; then the real
# binary is timed end to end on the 50k log (`xcfleet parse LOG --junit FILE`) and on the same
# log as a run (`xcfleet report RUN_DIR`: every report rebuilt from events.jsonl), side by side
# with `wc -l` and `grep -c` over the same log. Median of 3 runs each.
set -euo pipefail
cd "$(dirname "$0")/../.."
[ -d /opt/swift/usr/bin ] && export PATH="/opt/swift/usr/bin:$PATH"
swift build -c release --product bench-scale 2>&1 | grep -E "error:" || true
swift build -c release --product xcfleet 2>&1 | grep -E "error:" || true
dir=$(mktemp -d -t xcfleet-bench-scale-XXXX)
trap 'rm -rf "$dir"' EXIT
.build/release/bench-scale "$dir"

ms() { # median wall time in ms of 3 runs of a command (its exit status is the verdict: ignored)
  local times=()
  for _ in 1 2 3; do
    local s; s=$(date +%s%N)
    "$@" >/dev/null 2>&1 || true
    times+=($(( ($(date +%s%N) - s) / 1000000 )))
  done
  printf '%s\n' "${times[@]}" | sort -n | sed -n 2p
}
sec() { awk -v a="$1" 'BEGIN { printf "%.3f", a / 1000 }'; }
log="$dir/log-50000.txt"
parse=$(ms .build/release/xcfleet parse "$log" --junit "$dir/junit.xml")
report=$(ms .build/release/xcfleet report "$dir/run-50000")
wc=$(ms wc -l "$log")
grep=$(ms grep -c "Test Case" "$log")
echo "real binary, 50,000 tests ($(wc -c < "$log") bytes), median of 3:"
echo "  xcfleet parse LOG --junit FILE   $(sec "$parse") s   (target ≤ 1.5 s)"
echo "  xcfleet report RUN_DIR           $(sec "$report") s   (report.json, junit.xml, summary.md, report.html from events.jsonl)"
echo "  reference: wc -l $(sec "$wc") s, grep -c 'Test Case' $(sec "$grep") s"
