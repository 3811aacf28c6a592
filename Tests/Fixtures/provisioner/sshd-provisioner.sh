#!/bin/sh
# A command provisioner for tests: "creates" a host by starting a throwaway sshd on 127.0.0.1
# (scripts/testhosts.sh) and prints it as xcfleet expects; "releases" it by stopping that sshd.
#   PROV_STATE  folder for the hosts and the records (required)
#   PROV_REPO   the repository (for scripts/testhosts.sh)
set -eu
state=${PROV_STATE:?}
repo=${PROV_REPO:?}
case "${1:-}" in
create)
  dir="$state/vm-$XCFLEET_PROVISION_INDEX"
  mkdir -p "$dir"
  cp "$state/client_ed25519" "$state/client_ed25519.pub" "$dir/"
  "$repo/scripts/testhosts.sh" start 1 "$dir" >/dev/null
  port=$(cat "$dir/h1/port")
  key=$(cut -d' ' -f1,2 "$dir/h1/host_ed25519.pub")
  printf '{"address": "127.0.0.1", "port": %s, "user": "%s", "hostKey": "%s", "vm": "%s"}\n' "$port" "$(id -un)" "$key" "$dir"
  ;;
release)
  json=$(cat)
  dir=$(printf '%s' "$json" | sed -n 's/.*"vm": *"\([^"]*\)".*/\1/p')
  "$repo/scripts/testhosts.sh" stop "$dir"
  printf '%s\n' "$json" > "$dir.released"
  ;;
*) echo "usage: $0 create|release" >&2; exit 2 ;;
esac
