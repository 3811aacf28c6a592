#!/usr/bin/env bash
# Installs what xcfleet needs on a Debian machine (idempotent; installs only what is missing).
#   scripts/install-deps.sh            build + run dependencies
#   scripts/install-deps.sh --test     also what the test suite uses (sshd, xmllint, chromium, tmux, shellcheck, junitparser, jsonschema)
set -euo pipefail
want=(libssh2-1-dev libsqlite3-dev libpq-dev pkg-config perl tar)
if [ "${1:-}" = "--test" ]; then
  want+=(openssh-server openssh-client libxml2-utils chromium tmux iproute2 iptables rsync procps zsh fish postgresql sqlite3 shellcheck python3-jsonschema)
fi
missing=()
for p in "${want[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "install-deps: installing ${missing[*]}"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
if [ "${1:-}" = "--test" ]; then
  python3 -c 'import junitparser' 2>/dev/null || python3 -m pip install -q junitparser
fi
command -v swift >/dev/null || { [ -x /opt/swift/usr/bin/swift ] && echo "install-deps: add /opt/swift/usr/bin to PATH" ; }
echo "install-deps: ok"
