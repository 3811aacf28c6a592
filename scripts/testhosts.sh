#!/usr/bin/env bash
# Throwaway OpenSSH test hosts on 127.0.0.1 for xcfleet's tests and benchmarks.
#
#   scripts/testhosts.sh start N DIR   start N sshd (free ports), write DIR/fleet.json, print it
#   scripts/testhosts.sh stop DIR      stop them (idempotent; kills by pid files)
#
# DIR gets: client_ed25519(.pub), known_hosts (hashed `[127.0.0.1]:PORT` lines), hN/ with the
# host key, sshd_config, pid file and log, and fleet.json in xcfleet's fleet format.
# Each host gets its own HOME (DIR/hN/home, via sshd SetEnv): the machine user's ~/.bashrc, which
# bash sources for every sshd command, is not run (here it spawns pyenv and costs ~0.2 s per command).
set -euo pipefail

die() { echo "testhosts: $*" >&2; exit 1; }

free_port() {
    # A port nothing listens on (checked by trying to bind it).
    python3 - <<'PY' 2>/dev/null || perl -MIO::Socket::INET -e '$s=IO::Socket::INET->new(LocalAddr=>"127.0.0.1",LocalPort=>0,Listen=>1) or die; print $s->sockport'
import socket
s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()
PY
}

cmd_stop() {
    local dir=$1
    [ -d "$dir" ] || return 0
    local pidfile pid
    for pidfile in "$dir"/h*/sshd.pid; do
        [ -f "$pidfile" ] || continue
        pid=$(cat "$pidfile" 2>/dev/null || true)
        if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
            kill -TERM "$pid" 2>/dev/null || true
            for _ in 1 2 3 4 5 6 7 8 9 10; do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
            kill -KILL "$pid" 2>/dev/null || true
        fi
        rm -f "$pidfile"
    done
}

cmd_start() {
    local n=$1 dir=$2
    [[ "$n" =~ ^[0-9]+$ ]] && [ "$n" -ge 1 ] || die "N must be a positive number"
    command -v sshd >/dev/null 2>&1 || [ -x /usr/sbin/sshd ] || die "sshd not found (apt-get install openssh-server)"
    local sshd; sshd=$(command -v sshd 2>/dev/null || echo /usr/sbin/sshd)
    mkdir -p "$dir"
    dir=$(cd "$dir" && pwd)
    cmd_stop "$dir"
    mkdir -p /run/sshd 2>/dev/null || true

    local swift_path swift_dir path_value
    swift_path=$(command -v swift 2>/dev/null || true)
    [ -n "$swift_path" ] || swift_path=/opt/swift/usr/bin/swift
    swift_dir=$(dirname "$swift_path")
    path_value="$swift_dir:/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin"

    [ -f "$dir/client_ed25519" ] || ssh-keygen -q -t ed25519 -N '' -C xcfleet-test-client -f "$dir/client_ed25519"
    : > "$dir/known_hosts"
    local user; user=$(id -un)
    local hosts_json="" i port hdir
    for i in $(seq 1 "$n"); do
        hdir="$dir/h$i"
        mkdir -p "$hdir/home"
        [ -f "$hdir/host_ed25519" ] || ssh-keygen -q -t ed25519 -N '' -C "h$i" -f "$hdir/host_ed25519"
        cp "$dir/client_ed25519.pub" "$hdir/authorized_keys"
        port=$(free_port)
        cat > "$hdir/sshd_config" <<CFG
Port $port
ListenAddress 127.0.0.1
HostKey $hdir/host_ed25519
AuthorizedKeysFile $hdir/authorized_keys
PidFile $hdir/sshd.pid
PasswordAuthentication no
KbdInteractiveAuthentication no
PubkeyAuthentication yes
PermitRootLogin yes
StrictModes no
UsePAM no
MaxStartups 200
MaxSessions 100
LogLevel ERROR
SetEnv PATH=$path_value HOME=$hdir/home
Subsystem sftp internal-sftp
CFG
        "$sshd" -f "$hdir/sshd_config" -E "$hdir/sshd.log" || die "sshd h$i failed to start (see $hdir/sshd.log)"
        echo "$port" > "$hdir/port"
        # Hashed known_hosts line for [127.0.0.1]:port (ssh-keygen -H hashes in place).
        echo "[127.0.0.1]:$port $(cut -d' ' -f1,2 "$hdir/host_ed25519.pub")" >> "$dir/known_hosts"
        [ -n "$hosts_json" ] && hosts_json+=","
        hosts_json+=$(printf '\n    {"name": "h%d", "address": "127.0.0.1", "port": %d, "user": "%s", "identityFile": "%s", "knownHostsFile": "%s", "hostKeyPolicy": "strict", "labels": ["platform:linux", "swift"], "slots": 2, "workRoot": "/tmp/xcfleet-h%d", "toolchain": {"swiftPath": "%s"}}' \
            "$i" "$port" "$user" "$dir/client_ed25519" "$dir/known_hosts" "$i" "$swift_path")
    done
    ssh-keygen -q -H -f "$dir/known_hosts" >/dev/null 2>&1
    rm -f "$dir/known_hosts.old"
    printf '{"hosts": [%s\n]}\n' "$hosts_json" > "$dir/fleet.json"

    # Wait until every port accepts TCP (sshd daemonizes before listening is guaranteed).
    for i in $(seq 1 "$n"); do
        port=$(cat "$dir/h$i/port")
        local ok=0
        for _ in $(seq 1 100); do
            if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then ok=1; break; fi
            sleep 0.05
        done
        [ "$ok" = 1 ] || die "h$i (port $port) does not accept connections (see $dir/h$i/sshd.log)"
    done
    cat "$dir/fleet.json"
}

case "${1:-}" in
    start) [ $# -eq 3 ] || die "usage: $0 start N DIR"; cmd_start "$2" "$3" ;;
    stop) [ $# -eq 2 ] || die "usage: $0 stop DIR"; cmd_stop "$2" ;;
    *) die "usage: $0 start N DIR | stop DIR" ;;
esac
