#!/usr/bin/env bash
# Release build of the push benchmark (xcfleet's incremental push ÷ rsync -a, one loopback sshd).
# Target: warm push of 5 changed files over a reused connection ≤ 1.0 × rsync -a. Measured 2026-12-02
# under heavy load: 3.31 (1.24 s vs 0.37 s; 3.93 with every file hashed, as before the hash cache);
# on a quieter machine earlier 1.33. The host's fresh job directory of all 2,000 files is most of it
# (docs/builds.md, "Benchmarks").
# Needs sshd and rsync (scripts/install-deps.sh --test).
set -euo pipefail
cd "$(dirname "$0")/../.."
[ -d /opt/swift/usr/bin ] && export PATH="/opt/swift/usr/bin:$PATH"
command -v rsync >/dev/null || { echo "bench-push: rsync is not installed (scripts/install-deps.sh --test)" >&2; exit 2; }
swift build -c release --product bench-push 2>&1 | grep -E "error|warning: unre" || true
exec .build/release/bench-push
