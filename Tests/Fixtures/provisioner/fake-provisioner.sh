#!/bin/sh
# Test provisioner for CommandProvisionerTests.
#   fake-provisioner.sh create   prints one host as JSON (index from XCFLEET_PROVISION_INDEX)
#   fake-provisioner.sh release  records the JSON it was given on stdin
# FAKE_STATE: directory for the records (required).
# FAKE_BEHAVIOUR: ok (default) | badjson | badfields | fail | failsecond | slowsecond | slow
set -u
state=${FAKE_STATE:?FAKE_STATE must name a directory}
n=${XCFLEET_PROVISION_INDEX:?XCFLEET_PROVISION_INDEX is set by xcfleet}
# A throwaway public key (public half only; no secret).
key="ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIAM+oU2s1zSsulJzAqSls6QCAVgCUq+LCjWM9E4GbMUs"
case "${1:-}" in
create)
  echo "cloning image for $XCFLEET_HOST_NAME" >&2
  case "${FAKE_BEHAVIOUR:-ok}" in
    badjson)
      echo "Booting VM..."
      echo '{"address": "10.0.0.'"$n"'",'
      exit 0 ;;
    badfields)
      echo '{"address": "-oProxyCommand=x", "port": 70000, "user": "a b", "hostKey": "ssh-dss AAAA", "slots": 0}'
      exit 0 ;;
    fail)
      echo "tart: not enough disk space to clone macos-sonoma" >&2
      exit 4 ;;
    failsecond)
      if [ "$n" = 2 ]; then echo "orka3: no capacity left in namespace ci" >&2; exit 5; fi ;;
    slow)
      : > "$state/slow-started-$n"; sleep 1 ;;
    slowsecond)
      if [ "$n" = 2 ]; then : > "$state/slow-started-$n"; sleep 60; fi ;;
  esac
  : > "$state/created-$n"
  printf '{"name": "vm-%s", "address": "127.0.0.%s", "port": %s, "user": "tester", "hostKey": "%s", "labels": ["vm", "tart"], "slots": 2, "vmID": "tart-%s"}\n' \
    "$n" "$n" "$((2200 + n))" "$key" "$n"
  ;;
release)
  cat > "$state/released-$XCFLEET_HOST_NAME.json"
  ;;
*)
  echo "usage: fake-provisioner.sh create|release" >&2
  exit 2 ;;
esac
