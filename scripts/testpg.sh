#!/usr/bin/env bash
# A throwaway PostgreSQL server on loopback for the history tests (team mode), run as the
# `postgres` user (the server refuses root).
#   scripts/testpg.sh start DIR   initdb in DIR (once), start on 127.0.0.1:<free port>, print the URL
#   scripts/testpg.sh stop DIR    stop it
# The URL carries a generated password (scram-sha-256 over TCP) so that redaction is exercised.
set -euo pipefail
cmd="${1:-}"; dir="${2:-}"
[ -n "$cmd" ] && [ -n "$dir" ] || { echo "usage: scripts/testpg.sh start|stop DIR" >&2; exit 2; }
bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
[ -x "$bin/initdb" ] || { echo "testpg: PostgreSQL server not installed (apt-get install postgresql)" >&2; exit 3; }
as_pg() { if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
# The server must not inherit a caller's pipe (a test reading our output would never see EOF).
for fd in /proc/$$/fd/*; do n=${fd##*/}; [ "$n" -gt 2 ] 2>/dev/null && eval "exec $n>&-" 2>/dev/null; done
case "$cmd" in
start)
  mkdir -p "$dir"
  [ "$(id -u)" -eq 0 ] && chown postgres "$dir"
  chmod 700 "$dir"
  if [ ! -f "$dir/data/PG_VERSION" ]; then
    pw=$(head -c 18 /dev/urandom | base64 | tr -dc 'A-Za-z0-9' | head -c 20)
    echo "$pw" > "$dir/pw"; [ "$(id -u)" -eq 0 ] && chown postgres "$dir/pw"
    as_pg "$bin/initdb" -D "$dir/data" -U xcfleet --pwfile="$dir/pw" --auth-local=trust --auth-host=scram-sha-256 >"$dir/initdb.log" 2>&1 \
      || { echo "testpg: initdb failed (see $dir/initdb.log)" >&2; exit 3; }
  fi
  port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
  as_pg "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 30 \
    -o "-k $dir -p $port -c listen_addresses=127.0.0.1 -c fsync=off" start >/dev/null 2>&1 </dev/null \
    || { echo "testpg: server did not start (see $dir/server.log)" >&2; exit 3; }
  as_pg "$bin/psql" -h "$dir" -p "$port" -U xcfleet -d postgres -qc "CREATE DATABASE history" >/dev/null 2>&1 || true
  echo "$port" > "$dir/port"
  echo "postgresql://xcfleet:$(cat "$dir/pw")@127.0.0.1:$port/history"
  ;;
stop)
  [ -d "$dir/data" ] && as_pg "$bin/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null 2>&1 || true
  ;;
*) echo "usage: scripts/testpg.sh start|stop DIR" >&2; exit 2 ;;
esac
