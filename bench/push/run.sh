#!/usr/bin/env bash
# Release build of the push benchmark (xcfleet's incremental push ÷ rsync -a, one loopback sshd).
# Target: warm push of 5 changed files over a reused connection ≤ 1.0 × rsync -a. Measured 2026-12-02
# (one run, kept job trees): 0.85 (0.42 s vs 0.50 s; 19.1 kB sent vs 60.5 kB). Before kept trees 3.31
# under heavy load (docs/builds.md, "Benchmarks").
# Needs sshd and rsync (scripts/install-deps.sh --test).
set -euo pipefail
cd "$(dirname "$0")/../.."
[ -d /opt/swift/usr/bin ] && export PATH="/opt/swift/usr/bin:$PATH"
command -v rsync >/dev/null || { echo "bench-push: rsync is not installed (scripts/install-deps.sh --test)" >&2; exit 2; }
swift build -c release --product bench-push 2>&1 | grep -E "error|warning: unre" || true
exec .build/release/bench-push
