#!/usr/bin/env bash
# Release build of the history benchmark, with a throwaway PostgreSQL server on loopback.
set -euo pipefail
cd "$(dirname "$0")/../.."
[ -d /opt/swift/usr/bin ] && export PATH="/opt/swift/usr/bin:$PATH"
swift build -c release --product bench-history 2>&1 | grep -E "error|warning: unre" || true
dir=$(mktemp -d -t xcfleet-bench-pg-XXXX); chmod 755 "$dir"  # the postgres user must reach its data folder
url=$(scripts/testpg.sh start "$dir/pg")
trap 'scripts/testpg.sh stop "$dir/pg"; rm -rf "$dir"' EXIT
.build/release/bench-history "$url"
