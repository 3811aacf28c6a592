#!/usr/bin/env bash
# The main job on a fresh Debian machine: installs what is missing, builds xcfleet (release) and runs
# the cache-contract plan on the built-in local host. Extra arguments go to `xcfleet run`.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -d /opt/swift/usr/bin ] && export PATH="/opt/swift/usr/bin:$PATH"
scripts/install-deps.sh
swift build -c release --product xcfleet 2>&1 | grep -E 'error|warning: |Compiling xcfleet|Build complete' || true
exec .build/release/xcfleet run Plans/cache-contract.json "$@"
