#!/usr/bin/env bash
# Throwaway OpenSSH test hosts on 127.0.0.1 for xcfleet's tests and benchmarks.
#
#   scripts/testhosts.sh start N DIR   start N sshd (free ports), write DIR/fleet.json, print it
#   scripts/testhosts.sh stop DIR      stop them (idempotent; kills by pid files; deletes namespaces)
#
# Network-namespace hosts (root and `ip netns` only), for fault injection:
#   scripts/testhosts.sh start-ns N DIR   host i runs sshd on port 22 inside its own netns
#                                         `xcf-<tag>-i`, joined to the root namespace by a veth pair
#                                         (root side 10.X.i.1/30, namespace side 10.X.i.2/30, X in
#                                         200..249 picked from DIR and checked unused). Traffic only ever
#                                         goes to these addresses. <tag> is 6 hex digits derived from DIR,
#                                         so test processes using different DIRs never clash.
#                                         A blackhole route for 10.X.i.0/24 keeps packets for a downed
#                                         link from leaving by the default route.
#   scripts/testhosts.sh link-down DIR i  pull host i's cable: its namespace-side veth goes down. The
#                                         root side keeps its address and route, so packets (new SYNs
#                                         too) go into the veth and vanish: no reset, no error, connects
#                                         hang until their deadline, as with a host gone far away.
#   scripts/testhosts.sh link-up DIR i    plug it back
#   scripts/testhosts.sh kill-host DIR i  SIGKILL every process in host i's namespace (sshd and all
#                                         its sessions): the address then refuses connections
#   scripts/testhosts.sh revive-host DIR i  start host i's sshd again after kill-host (the host comes back)
#   scripts/testhosts.sh ns-pids DIR i    print the pids of every process in host i's namespace
# start-ns records its caller's pid (or TESTHOSTS_OWNER_PID) in /run/xcfleet-testhosts; the next
# start-ns stops the namespace hosts of callers that died (SIGKILL) without stopping them.
#
# TESTHOSTS_SWIFT=/path/to/swift names the toolchain written into fleet.json and the hosts' PATH.
# DIR gets: client_ed25519(.pub), known_hosts (hashed `[127.0.0.1]:PORT` lines), hN/ with the
# host key, sshd_config, pid file and log, and fleet.json in xcfleet's fleet format.
# Each host gets its own HOME (DIR/hN/home, via sshd SetEnv): the machine user's ~/.bashrc, which
# bash sources for every sshd command, is not run (here it spawns pyenv and costs ~0.2 s per command).
set -euo pipefail

die() { echo "testhosts: $*" >&2; exit 1; }

# The `swift` the hosts run: TESTHOSTS_SWIFT (e.g. a fake toolchain for tests), else the one on PATH.
toolchain_swift() {
    local swift_path="${TESTHOSTS_SWIFT:-}"
    [ -n "$swift_path" ] || swift_path=$(command -v swift 2>/dev/null || true)
    echo "${swift_path:-/opt/swift/usr/bin/swift}"
}

# One host's keys and sshd_config: host_setup DIR HDIR PORT LISTEN_ADDRESS PATH_VALUE
host_setup() {
    local dir=$1 hdir=$2 port=$3 listen=$4 path_value=$5
    [ -f "$hdir/host_ed25519" ] || ssh-keygen -q -t ed25519 -N '' -C "$(basename "$hdir")" -f "$hdir/host_ed25519"
    cp "$dir/client_ed25519.pub" "$hdir/authorized_keys"
    cat > "$hdir/sshd_config" <<CFG
Port $port
ListenAddress $listen
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
}

free_port() {
    # A port nothing listens on (checked by trying to bind it).
    python3 - <<'PY' 2>/dev/null || perl -MIO::Socket::INET -e '$s=IO::Socket::INET->new(LocalAddr=>"127.0.0.1",LocalPort=>0,Listen=>1) or die; print $s->sockport'
import socket
s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()
PY
}

# Running and not a zombie (PID 1 here reaps orphans late; `kill -0` succeeds on a zombie).
alive() {
    local state
    state=$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null || true)
    [ -n "$state" ] && [ "$state" != Z ] && [ "$state" != X ]
}

cmd_stop() {
    local dir=$1
    [ -d "$dir" ] || return 0
    local pidfile pid
    for pidfile in "$dir"/h*/sshd.pid; do
        [ -f "$pidfile" ] || continue
        pid=$(cat "$pidfile" 2>/dev/null || true)
        if [ -n "$pid" ] && alive "$pid"; then
            kill -TERM "$pid" 2>/dev/null || true
            for _ in 1 2 3 4 5 6 7 8 9 10; do alive "$pid" || break; sleep 0.1; done
            kill -KILL "$pid" 2>/dev/null || true
        fi
        rm -f "$pidfile"
    done
    local nsfile ns veth
    for nsfile in "$dir"/h*/netns; do
        [ -f "$nsfile" ] || continue
        ns=$(cat "$nsfile" 2>/dev/null || true)
        veth=$(cat "$(dirname "$nsfile")/veth" 2>/dev/null || true)
        if [ -n "$ns" ] && ip netns list 2>/dev/null | grep -q "^$ns\b"; then
            ns_kill "$ns"
            ip netns del "$ns" 2>/dev/null || true
        fi
        # Deleting the namespace deletes its veth end and with it the pair; this is for half-made pairs.
        [ -n "$veth" ] && ip link del "$veth" 2>/dev/null || true
        local hole; hole=$(cat "$(dirname "$nsfile")/blackhole" 2>/dev/null || true)
        [ -n "$hole" ] && ip route del blackhole "$hole" 2>/dev/null || true
        rm -f "$nsfile" "$(dirname "$nsfile")/blackhole"
    done
    local tag; tag=$(cat "$dir/ns-tag" 2>/dev/null || true)
    [ -n "$tag" ] && rm -f "$registry/$tag"
    return 0
}

# SIGKILL every process of a namespace (bounded: a few rounds, new sessions may appear meanwhile).
ns_kill() {
    local ns=$1 pids
    for _ in 1 2 3 4 5; do
        pids=$(ip netns pids "$ns" 2>/dev/null || true)
        [ -n "$pids" ] || return 0
        kill -KILL $pids 2>/dev/null || true
        sleep 0.05
    done
}

registry=/run/xcfleet-testhosts

# Stops the namespace hosts of owners that died without stopping them.
sweep_stale() {
    local f owner odir
    for f in "$registry"/*; do
        [ -f "$f" ] || continue
        read -r owner odir < "$f" || continue
        if [ -n "$owner" ] && ! alive "$owner"; then
            [ -n "$odir" ] && [ -d "$odir" ] && cmd_stop "$odir"
            rm -f "$f"
        fi
    done
}

ns_of() {
    local f="$1/h$2/netns"
    [ -f "$f" ] || die "no namespace host h$2 under $1 (start-ns first)"
    cat "$f"
}

cmd_start_ns() {
    local n=$1 dir=$2
    [[ "$n" =~ ^[0-9]+$ ]] && [ "$n" -ge 1 ] && [ "$n" -le 60 ] || die "N must be 1..60"
    [ "$(id -u)" = 0 ] || die "start-ns needs root (ip netns)"
    command -v ip >/dev/null 2>&1 || die "ip not found (apt-get install iproute2)"
    command -v sshd >/dev/null 2>&1 || [ -x /usr/sbin/sshd ] || die "sshd not found (apt-get install openssh-server)"
    local sshd; sshd=$(command -v sshd 2>/dev/null || echo /usr/sbin/sshd)
    mkdir -p "$dir"
    dir=$(cd "$dir" && pwd)
    cmd_stop "$dir"
    mkdir -p /run/sshd 2>/dev/null || true
    local swift_path path_value
    swift_path=$(toolchain_swift)
    path_value="$(dirname "$swift_path"):/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin"

    local hash tag octet i
    hash=$(printf '%s' "$dir" | sha256sum | cut -c1-8)
    tag=${hash:0:6}
    # Second octet: 200..249 from the tag, moved on while the root namespace already uses it.
    octet=$(( 200 + 16#${hash:6:2} % 50 ))
    for _ in $(seq 1 50); do
        ip -o -4 addr show 2>/dev/null | grep -q " 10\.$octet\." || break
        octet=$(( 200 + (octet - 200 + 1) % 50 ))
    done
    echo "$tag" > "$dir/ns-tag"
    sweep_stale
    # Owner: the process that asked (a test process); when it is gone, a later start-ns sweeps
    # whatever it left (it may have been SIGKILLed before its cleanup ran).
    mkdir -p "$registry"
    echo "${TESTHOSTS_OWNER_PID:-$PPID} $dir" > "$registry/$tag"

    [ -f "$dir/client_ed25519" ] || ssh-keygen -q -t ed25519 -N '' -C xcfleet-test-client -f "$dir/client_ed25519"
    : > "$dir/known_hosts"
    local user; user=$(id -un)
    local hosts_json="" hdir ns vr vn addr
    for i in $(seq 1 "$n"); do
        hdir="$dir/h$i"
        mkdir -p "$hdir/home"
        ns="xcf-$tag-$i"; vr="xv${tag}r$i"; vn="xv${tag}n$i"; addr="10.$octet.$i.2"
        echo "$ns" > "$hdir/netns"
        echo "$vr" > "$hdir/veth"
        echo "$vn" > "$hdir/veth-ns"
        echo "$addr" > "$hdir/address"
        echo 22 > "$hdir/port"
        ip netns add "$ns" || die "ip netns add $ns failed"
        ip link add "$vr" type veth peer name "$vn" || die "ip link add $vr failed"
        ip link set "$vn" netns "$ns"
        ip addr add "10.$octet.$i.1/30" dev "$vr"
        # Safety net: when the veth is down its /30 route goes, and without this the kernel would
        # send the packets out the default route; the blackhole drops them here instead.
        ip route add blackhole "10.$octet.$i.0/24" 2>/dev/null || true
        echo "10.$octet.$i.0/24" > "$hdir/blackhole"
        ip link set "$vr" up
        ip netns exec "$ns" ip addr add "$addr/30" dev "$vn"
        ip netns exec "$ns" ip link set "$vn" up
        ip netns exec "$ns" ip link set lo up
        # A permanent neighbour entry: with the cable pulled (link-down), ARP would fail and
        # connects end at once with "No route to host"; a far-away host just never answers.
        ip neigh replace "$addr" lladdr "$(cat "/sys/class/net/$vn/address" 2>/dev/null || ip -n "$ns" -o link show "$vn" | grep -o 'link/ether [0-9a-f:]*' | cut -d' ' -f2)" dev "$vr" nud permanent 2>/dev/null || true
        host_setup "$dir" "$hdir" 22 "$addr" "$path_value"
        ip netns exec "$ns" "$sshd" -f "$hdir/sshd_config" -E "$hdir/sshd.log" || die "sshd h$i failed to start in $ns (see $hdir/sshd.log)"
        # Port 22: known_hosts names the bare address, as OpenSSH looks it up.
        echo "$addr $(cut -d' ' -f1,2 "$hdir/host_ed25519.pub")" >> "$dir/known_hosts"
        [ -n "$hosts_json" ] && hosts_json+=","
        hosts_json+=$(printf '\n    {"name": "h%d", "address": "%s", "port": 22, "user": "%s", "identityFile": "%s", "knownHostsFile": "%s", "hostKeyPolicy": "strict", "labels": ["platform:linux", "swift"], "slots": 2, "workRoot": "/tmp/xcfleet-%s-h%d", "toolchain": {"swiftPath": "%s"}}' \
            "$i" "$addr" "$user" "$dir/client_ed25519" "$dir/known_hosts" "$tag" "$i" "$swift_path")
    done
    ssh-keygen -q -H -f "$dir/known_hosts" >/dev/null 2>&1
    rm -f "$dir/known_hosts.old"
    printf '{"hosts": [%s\n]}\n' "$hosts_json" > "$dir/fleet.json"
    for i in $(seq 1 "$n"); do
        addr=$(cat "$dir/h$i/address")
        local ok=0
        for _ in $(seq 1 100); do
            if (exec 3<>"/dev/tcp/$addr/22") 2>/dev/null; then ok=1; break; fi
            sleep 0.05
        done
        [ "$ok" = 1 ] || die "h$i ($addr:22) does not accept connections (see $dir/h$i/sshd.log)"
    done
    cat "$dir/fleet.json"
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

    local swift_path path_value
    swift_path=$(toolchain_swift)
    path_value="$(dirname "$swift_path"):/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin"

    [ -f "$dir/client_ed25519" ] || ssh-keygen -q -t ed25519 -N '' -C xcfleet-test-client -f "$dir/client_ed25519"
    : > "$dir/known_hosts"
    local user; user=$(id -un)
    local hosts_json="" i port hdir
    for i in $(seq 1 "$n"); do
        hdir="$dir/h$i"
        mkdir -p "$hdir/home"
        port=$(free_port)
        host_setup "$dir" "$hdir" "$port" 127.0.0.1 "$path_value"
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
    start-ns) [ $# -eq 3 ] || die "usage: $0 start-ns N DIR"; cmd_start_ns "$2" "$3" ;;
    link-down) [ $# -eq 3 ] || die "usage: $0 link-down DIR i"; ip -n "$(ns_of "$2" "$3")" link set "$(cat "$2/h$3/veth-ns")" down ;;
    link-up) [ $# -eq 3 ] || die "usage: $0 link-up DIR i"; ip -n "$(ns_of "$2" "$3")" link set "$(cat "$2/h$3/veth-ns")" up ;;
    kill-host) [ $# -eq 3 ] || die "usage: $0 kill-host DIR i"; ns_kill "$(ns_of "$2" "$3")"; rm -f "$2/h$3/sshd.pid" ;;
    revive-host) [ $# -eq 3 ] || die "usage: $0 revive-host DIR i"
        [ -f "$2/h$3/sshd.pid" ] && kill -0 "$(cat "$2/h$3/sshd.pid")" 2>/dev/null && exit 0
        ip netns exec "$(ns_of "$2" "$3")" "$(command -v sshd 2>/dev/null || echo /usr/sbin/sshd)" -f "$2/h$3/sshd_config" -E "$2/h$3/sshd.log" || die "sshd h$3 did not restart"
        for _ in $(seq 1 100); do (exec 3<>"/dev/tcp/$(cat "$2/h$3/address")/22") 2>/dev/null && exit 0; sleep 0.05; done
        die "h$3 does not accept connections after revive-host" ;;
    ns-pids) [ $# -eq 3 ] || die "usage: $0 ns-pids DIR i"; ip netns pids "$(ns_of "$2" "$3")" ;;
    *) die "usage: $0 start N DIR | start-ns N DIR | stop DIR | link-down|link-up|kill-host|revive-host|ns-pids DIR i" ;;
esac
