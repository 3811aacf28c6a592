#!/usr/bin/env bash
# Compiles and runs Templates/pressure-probes against Sources/CacheContract in a scratch SwiftPM
# package (as a rendered probe suite would be laid out) and prints its XCFLEET-METRIC lines.
# Exit status: swift test's (a probe never fails, so non-zero means a build error or crash),
# or 1 when no metric line was printed.
# Usage: scripts/check-probes.sh   (XCFLEET_PROBE_DIR: scratch folder under /tmp, default /tmp/xcfleet-check-probes)
set -u -o pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
scratch="${XCFLEET_PROBE_DIR:-/tmp/xcfleet-check-probes}"
case "$scratch" in /tmp/*) ;; *) echo "check-probes: scratch folder must be under /tmp" >&2; exit 2 ;; esac
pkg="$scratch/pkg"
mkdir -p "$pkg/Sources/CacheContract" "$pkg/Tests/PressureProbeTests"
cat > "$pkg/Package.swift" <<'SWIFT'
// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "ProbeCheck",
    platforms: [.macOS(.v13)],
    products: [.library(name: "CacheContract", targets: ["CacheContract"])],
    targets: [
        .target(name: "CacheContract"),
        .testTarget(name: "PressureProbeTests", dependencies: ["CacheContract"]),
    ]
)
SWIFT
rm -f "$pkg/Sources/CacheContract/"*.swift "$pkg/Tests/PressureProbeTests/"*.swift
cp -p "$root/Sources/CacheContract/"*.swift "$pkg/Sources/CacheContract/"
cp -p "$root/Templates/cache-contract/CacheContractSurface.swift" "$root/Templates/adapters/cache-contract/"*.swift "$root/Templates/contract-kit/"*.swift "$pkg/Tests/PressureProbeTests/"
cp -p "$root/Templates/pressure-probes/"*.swift "$pkg/Tests/PressureProbeTests/"
(cd "$pkg" && timeout "${XCFLEET_PROBE_TIMEOUT:-900}" swift test >"$scratch/probe.log" 2>&1)
status=$?
grep -E "XCFLEET-METRIC|Executed [0-9]+ tests" "$scratch/probe.log" | sort -u
[ "$status" -eq 0 ] || { echo "check-probes: swift test exited $status (see $scratch/probe.log)"; exit "$status"; }
grep -q "^XCFLEET-METRIC " "$scratch/probe.log" || { echo "check-probes: no metric line"; exit 1; }
