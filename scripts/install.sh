#!/usr/bin/env bash
# Installs xcfleet under PREFIX (default /usr/local): the binary in PREFIX/bin, and the files it pushes
# (Templates/ and Sources/CacheContract/) in PREFIX/share/xcfleet, where the binary finds them.
#   scripts/install.sh [PREFIX]          release build
#   XCFLEET_BIN=path/to/xcfleet scripts/install.sh PREFIX   (install an already built binary)
set -euo pipefail
cd "$(dirname "$0")/.."
prefix="${1:-/usr/local}"
[ -d /opt/swift/usr/bin ] && export PATH="/opt/swift/usr/bin:$PATH"
bin="${XCFLEET_BIN:-}"
if [ -z "$bin" ]; then
  swift build -c release --product xcfleet >/dev/null
  bin="$(swift build -c release --show-bin-path)/xcfleet"
fi
mkdir -p "$prefix/bin" "$prefix/share/xcfleet/Sources"
install -m 0755 "$bin" "$prefix/bin/xcfleet"
rm -rf "$prefix/share/xcfleet/Templates" "$prefix/share/xcfleet/Sources/CacheContract"
cp -R Templates "$prefix/share/xcfleet/Templates"
cp -R Sources/CacheContract "$prefix/share/xcfleet/Sources/CacheContract"
echo "installed $prefix/bin/xcfleet (templates in $prefix/share/xcfleet)"
