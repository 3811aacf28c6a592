#!/usr/bin/env bash
# The whole test suite on a fresh Debian machine: installs what is missing, builds, runs every test.
# Tests that need sshd, network namespaces or Chromium run for real here (CI=true makes a missing tool a failure).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
[ -d /opt/swift/usr/bin ] && export PATH="/opt/swift/usr/bin:$PATH"
scripts/install-deps.sh --test || exit 1
swift build --build-tests 2>&1 | grep -vE '^\[[0-9]+/[0-9]+\] (Compiling|Emitting|Linking|Write|Planning)' ; build=${PIPESTATUS[0]}
[ "$build" -eq 0 ] || { echo "test.sh: build failed"; exit 1; }
# Combine does not exist on Linux: its templates (and Examples/AppFeed) are checked for syntax
# (swiftc -parse), and built and mutation-tested against a small Combine stand-in (scripts/combine-shim; never pushed).
bash scripts/check-combine-syntax.sh || { echo "test.sh: Combine templates do not parse"; exit 1; }
bash scripts/check-combine-linux.sh || { echo "test.sh: Combine templates fail against the stand-in"; exit 1; }
# The worked example of a team's Combine code under the contract (Examples/AppFeed): its harness as
# rendered for a Mac, built against the stand-in, each of its mutants killed (the inline one named here).
bash scripts/check-combine-subject.sh Examples/AppFeed/Plans/app-feed-combine-contract.json headline-without-generation-check:K5 \
  || { echo "test.sh: Examples/AppFeed fails the Combine contract against the stand-in"; exit 1; }
# The XCTest suite, in two processes at once (scripts/xctest-shards.sh; XCFLEET_TEST_SHARDS=1 for
# one), with one closing line: "tests: P passed, F failed, S skipped".
bash scripts/xctest-shards.sh; status=$?
# Every libFuzzer target (docs/fuzzing.md): a crash, sanitizer report, hang or harness invariant
# fails the run. The seed and the number of inputs per target are fixed, so the test command tries
# the same inputs on every machine and a red here comes from the change under test (about 20 s per
# target on a 2-core machine, two targets at a time; FUZZ_SECONDS, 30 s here, caps a slow machine). Open-ended search: `scripts/fuzz.sh` (new seed).
export FUZZ_RUNS_plan=80000 FUZZ_RUNS_fleet=60000 FUZZ_RUNS_parser=60000 FUZZ_RUNS_reports=600 \
       FUZZ_RUNS_knownhosts=45000 FUZZ_RUNS_xcresult=80000 FUZZ_RUNS_quarantine=17000 \
       FUZZ_RUNS_historyurl=50000 FUZZ_RUNS_historydb=1700 FUZZ_RUNS_processrecords=100000 \
       FUZZ_RUNS_discovery=60000
FUZZ_SEED="${FUZZ_SEED:-1}" FUZZ_SECONDS="${FUZZ_SECONDS:-30}" bash scripts/fuzz.sh || { echo "test.sh: fuzzing failed (see above; docs/fuzzing.md)"; status=1; }
exit "$status"
