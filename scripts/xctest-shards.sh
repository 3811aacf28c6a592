#!/usr/bin/env bash
# Runs the built XCTest suite (after `swift build --build-tests`) in two processes at once and
# prints one closing line with the totals: `tests: P passed, F failed, S skipped`.
#
# The classes that mostly compile real packages run in one process, everything else (much of it
# waiting on deadlines, hosts and processes) in the other, so the waiting overlaps the compiling.
# Each process starts its own sshd hosts and PostgreSQL server, in folders named by its pid, and has
# a cache folder of its own (XDG_CACHE_HOME), so the built-in local host's work root, its slot
# leases and its builds are the process's own: a run on the local host in one process never waits
# for the other's leases (nor touches the user's own ~/.cache/xcfleet). The
# test bundle is run directly: `swift test` holds the .build lock, so two of them would run one
# after the other. XCFLEET_TEST_SHARDS=1 runs one `swift test` process instead.
# Shard 2's output streams; shard 1's follows it. Exit status: the first failing process's.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
compiling='^[A-Za-z0-9_]+\.(PackageSuiteRunTests|TemplateDiscoveryRunTests|TemplateDiscoverySSHRunTests|LargeRepositoryRunTests|QuarantineEndToEndTests|SubjectContractRunTests|SourceLocationRunTests|BuildCacheTests|BuildSharingEndToEndTests|EndToEndTests)/'
tmp=$(mktemp -d -t xcfleet-test-XXXX)
trap 'chmod -R u+w "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT   # finished builds are read-only
if [ "${XCFLEET_TEST_SHARDS:-2}" = 1 ]; then
  swift test --skip-build --disable-swift-testing 2>&1 | tee "$tmp/2.log"; status=${PIPESTATUS[0]}
  : > "$tmp/1.log"
else
  bundle="$(swift build --show-bin-path)/xcfleetPackageTests.xctest"
  [ -x "$bundle" ] || { echo "xctest-shards: no test bundle at $bundle (run swift build --build-tests)"; exit 1; }
  "$bundle" --list-tests > "$tmp/list.txt" 2>&1 || { cat "$tmp/list.txt"; echo "xctest-shards: the bundle could not list its tests"; exit 1; }
  # `--list-tests` prints "Listing N tests in …:" then one Module.Class/test per line.
  grep -E '^[A-Za-z0-9_]+\.[A-Za-z0-9_]+/' "$tmp/list.txt" | sed 's#/.*##' | sort -u > "$tmp/classes.txt"
  one=$(grep -E "${compiling%/}\$" "$tmp/classes.txt" | paste -sd, -)
  two=$(grep -vE "${compiling%/}\$" "$tmp/classes.txt" | paste -sd, -)
  if [ -z "$one" ] || [ -z "$two" ]; then echo "xctest-shards: a shard would be empty (classes renamed?)"; exit 1; fi
  mkdir -m 700 "$tmp/cache-1" "$tmp/cache-2" || exit 1
  XDG_CACHE_HOME="$tmp/cache-1" "$bundle" "$one" > "$tmp/1.log" 2>&1 & pid1=$!
  XDG_CACHE_HOME="$tmp/cache-2" "$bundle" "$two" 2>&1 | tee "$tmp/2.log"; status2=${PIPESTATUS[0]}
  wait "$pid1"; status1=$?
  echo "xctest-shards: the classes that compile real packages (run at the same time as the above):"
  cat "$tmp/1.log"
  status=$(( status1 != 0 ? status1 : status2 ))
fi
executed=0; failures=0; skipped=0; missing=0
for log in "$tmp/1.log" "$tmp/2.log"; do
  [ -s "$log" ] || continue
  # A process's last "Executed" line is its overall one; none means it crashed before the end.
  summary=$(grep -E "Executed [0-9]+ tests?, with" "$log" | tail -n 1)
  [ -n "$summary" ] || { missing=1; continue; }
  e=$(grep -oE 'Executed [0-9]+' <<<"$summary" | grep -oE '[0-9]+' || echo 0)
  f=$(grep -oE '[0-9]+ failures?' <<<"$summary" | grep -oE '[0-9]+' || echo 0)
  k=$(grep -oE '[0-9]+ tests? skipped' <<<"$summary" | grep -oE '[0-9]+' || echo 0)
  executed=$((executed + ${e:-0})); failures=$((failures + ${f:-0})); skipped=$((skipped + ${k:-0}))
done
echo "tests: $((executed - failures - skipped)) passed, $failures failed, $skipped skipped"
[ "$missing" = 0 ] || { echo "xctest-shards: a test process ended without its totals (it crashed: see its output above)"; [ "$status" -ne 0 ] || status=1; }
exit "$status"
