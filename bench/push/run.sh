#!/usr/bin/env bash
# Release build of the push benchmark (xcfleet's incremental push ÷ rsync -a, one loopback sshd).
# Needs sshd and rsync (scripts/install-deps.sh --test).
set -euo pipefail
cd "$(dirname "$0")/../.."
[ -d /opt/swift/usr/bin ] && export PATH="/opt/swift/usr/bin:$PATH"
command -v rsync >/dev/null || { echo "bench-push: rsync is not installed (scripts/install-deps.sh --test)" >&2; exit 2; }
swift build -c release --product bench-push 2>&1 | grep -E "error|warning: unre" || true
exec .build/release/bench-push
