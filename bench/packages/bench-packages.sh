#!/usr/bin/env bash
# A team's own package through xcfleet on the local host, side by side with SwiftPM run directly in
# a copy of the same package on the same machine, in the same run:
#   warm: `xcfleet run` of the built, unchanged package ÷ `swift test --skip-build`       (target ≤ 1.2)
#   cold: `xcfleet run` on an empty build cache ÷ `swift build --build-tests` + `swift test --skip-build`
#                                                                                          (target ≤ 1.15)
# Median of RUNS warm runs each (default 3); one cold run each (a second would not be cold).
# Measured (Shelf, release, 2-core machine with other builds running, 2026-12-02): warm 1.20 as the
# median of 7 pairs (`farm-bench --vs`, README "Benchmarks"), 1.22–1.34 with this script's medians;
# cold 1.00–1.24. The warm run's time, by its events: admission probe, build-cache check, discovery
# (the bundle listed twice), tests, cleanup, reports — each 0.13–0.22 s under load.
# Usage: bench/packages/bench-packages.sh [PACKAGE_DIR]   (default: Tests/Fixtures/packages/Shelf;
#        e.g. ../shared/fixtures/packages/swift-numerics). XCFLEET_BIN=path uses that binary instead
#        of building the release one. Run from the repository root.
set -euo pipefail
export PATH=/opt/swift/usr/bin:$PATH
repo=$(pwd)
package=$(cd "${1:-Tests/Fixtures/packages/Shelf}" && pwd)
runs=${RUNS:-3}
if [ -n "${XCFLEET_BIN:-}" ]; then bin=$XCFLEET_BIN; else swift build -c release --product xcfleet >/dev/null; bin="$repo/.build/release/xcfleet"; fi
work=$(mktemp -d /tmp/xcfleet-bench-packages.XXXXXX)
trap 'chmod -R u+w "$work" 2>/dev/null; rm -rf "$work"' EXIT
now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f\n", b - a }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else printf "-" }'; }
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
timed() { local s; s=$(now); "$@" >/dev/null 2>&1 || true; secs "$s" "$(now)"; }

# Two copies: one a git repository with a plan beside the package (xcfleet), one for SwiftPM alone.
for d in fleet direct; do cp -R "$package" "$work/$d"; chmod -R u+w "$work/$d"; rm -rf "$work/$d/.build"; done
git -C "$work/fleet" init -q && git -C "$work/fleet" add -A && git -C "$work/fleet" -c user.email=b@example.invalid -c user.name=b commit -qm bench
printf '{"name": "bench", "suites": [{"name": "pkg", "package": "."}]}\n' > "$work/fleet/xcfleet.json"
printf '{"hosts": [{"name": "local", "transport": "local", "slots": 1, "workRoot": "%s"}]}\n' "$work/root" > "$work/fleet.json"
xcf() { "$bin" run "$work/fleet/xcfleet.json" --fleet "$work/fleet.json" --runs "$work/runs" --history-db "$work/history.sqlite" --quiet; }

cold_x=$(timed xcf)
cold_build=$(timed swift build --build-tests --package-path "$work/direct")
cold_test=$(timed swift test --skip-build --package-path "$work/direct")
cold_s=$(awk -v a="$cold_build" -v b="$cold_test" 'BEGIN { printf "%.2f", a + b }')
warm_x=$(for _ in $(seq "$runs"); do timed xcf; done | median)
warm_s=$(for _ in $(seq "$runs"); do timed swift test --skip-build --package-path "$work/direct"; done | median)

echo "package: $package"
printf '%-6s %10s %28s %8s %8s\n' "" "xcfleet" "SwiftPM directly" "ratio" "target"
printf '%-6s %9ss %27ss %8s %8s\n' warm "$warm_x" "$warm_s" "$(ratio "$warm_x" "$warm_s")" "≤ 1.2"
printf '%-6s %9ss %13ss (%s + %s) %8s %8s\n' cold "$cold_x" "$cold_s" "$cold_build" "$cold_test" "$(ratio "$cold_x" "$cold_s")" "≤ 1.15"
grep -h '"build":' "$work"/runs/*/events.jsonl | grep -o '"origin":"[a-z]*' | sort | uniq -c | sed 's/"origin":"/  builds: /'
