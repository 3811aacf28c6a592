#!/usr/bin/env bash
# Build-cache benchmarks, release binary, figures printed side by side as ratios:
#   1. warm re-run of Plans/cache-contract.json over loopback SSH ÷ `swift test` run directly in the
#      same rendered, already-built package on the same machine            (target ≤ 1.2)
#   2. Plans/nightly.json on the local host (empty cache) ÷ one cold run of Plans/cache-contract.json
#      on an empty cache                                                    (target ≤ 2.0)
#   3. a suite with "shards": 8 on two loopback hosts with two slots each: builds counted from
#      events.jsonl (target exactly 2) and wall ÷ (one build + longest shard chain)   (target ≤ 1.3)
# Measured for part 1 on a shared 2-core machine (load 5-6, so `swift test --skip-build` itself took
# 1.35-1.68 s instead of ~0.5 s): warm re-run ÷ swift test, medians of 9 pairs, 0.87 with the test in
# the push's exec against 0.91 before; the warm re-run alone, medians of 15 A/B pairs, 1.23 s against
# 1.45 s (ratio 0.95). Part 2 last measured 3.26 under load.
# Usage: bench/builds/bench-builds.sh [WORKDIR]   (needs sshd, python3; run from the repository root)
#        BENCH_ONLY="1 3" bench/builds/bench-builds.sh   runs only those parts
set -euo pipefail
export PATH=/opt/swift/usr/bin:$PATH
repo=$(pwd)
work=${1:-$(mktemp -d /tmp/xcfleet-bench-builds.XXXXXX)}
mkdir -p "$work"; chmod 700 "$work"
swift build -c release --product xcfleet >/dev/null
bin="$repo/.build/release/xcfleet"
now() { python3 -c 'import time; print(time.time())'; }
secs() { python3 -c "print(f'{$2 - $1:.2f}')"; }
ratio() { python3 -c "print(f'{$1 / $2:.2f}')"; }
trap 'scripts/testhosts.sh stop "$work/hosts" >/dev/null 2>&1 || true' EXIT
scripts/testhosts.sh start 2 "$work/hosts" >/dev/null
# fleet.json variants: host subsets, slots and work roots of our own.
fleet() { # NAME HOSTS(comma list of indices) ROOTTAG
  python3 - "$work/hosts/fleet.json" "$work/$1.json" "$2" "$work/roots/$3" <<'PY'
import json, sys
src, dst, idx, root = sys.argv[1], sys.argv[2], [int(i) for i in sys.argv[3].split(",")], sys.argv[4]
f = json.load(open(src))
hosts = [f["hosts"][i] for i in idx]
for h in hosts: h["workRoot"] = root + "-" + h["name"]; h["slots"] = 2
json.dump({"hosts": hosts}, open(dst, "w"))
PY
}
mkdir -p "$work/roots"; chmod 700 "$work/roots"
count_builds() { python3 - "$1" <<'PY'
import json, sys, glob
n = {}
for line in open(glob.glob(sys.argv[1] + "/*/events.jsonl")[0]):
    e = json.loads(line)
    b = e["body"].get("build")
    if b: o = b["_1"]["origin"]; n[o] = n.get(o, 0) + 1
print(" ".join(f"{k}={v}" for k, v in sorted(n.items())) or "none")
PY
}

want() { case " ${BENCH_ONLY:-1 2 3} " in *" $1 "*) return 0;; *) return 1;; esac; }
if want 1; then
echo "== 1. warm re-run over loopback SSH vs swift test in the built package"
fleet one 0 warm
"$bin" run Plans/cache-contract.json --fleet "$work/one.json" --runs "$work/runs1" --quiet >/dev/null   # fills the host's caches
t0=$(now); "$bin" run Plans/cache-contract.json --fleet "$work/one.json" --runs "$work/runs1w" --quiet >/dev/null; t1=$(now)
warm=$(secs "$t0" "$t1")
"$bin" render Plans/cache-contract.json --out "$work/rendered" >/dev/null
pkg=$(ls -d "$work"/rendered/*/ | head -1)
(cd "$pkg" && swift build --build-tests >/dev/null 2>&1)
best=999
for i in 1 2 3; do t0=$(now); (cd "$pkg" && swift test --skip-build >/dev/null 2>&1); t1=$(now); s=$(secs "$t0" "$t1"); best=$(python3 -c "print(min($best, $s))"); done
echo "   warm xcfleet run over SSH  ${warm} s   |  swift test --skip-build (best of 3)  ${best} s   |  ratio $(ratio "$warm" "$best")  (target ≤ 1.2)"
echo "   builds in the warm run: $(count_builds "$work/runs1w")"

fi
if want 2; then
echo "== 2. nightly on the local host vs one cold cache-contract run (both on empty caches)"
t0=$(now); XDG_CACHE_HOME="$work/roots/xdg-contract" "$bin" run Plans/cache-contract.json --runs "$work/runs2c" --quiet >/dev/null || true; t1=$(now)
cold=$(secs "$t0" "$t1")
t0=$(now); XDG_CACHE_HOME="$work/roots/xdg-nightly" "$bin" run Plans/nightly.json --runs "$work/runs2n" --quiet >/dev/null || true; t1=$(now)
nightly=$(secs "$t0" "$t1")
echo "   nightly  ${nightly} s   |  cold cache-contract  ${cold} s   |  ratio $(ratio "$nightly" "$cold")  (target ≤ 2.0)"
echo "   builds in nightly: $(count_builds "$work/runs2n")"

fi
if want 3; then
echo "== 3. shards: 8 on two loopback hosts, two slots each"
cat > "$work/shards.json" <<'PLAN'
{"name": "shards", "suites": [{"name": "sharded-gate", "template": "cache-contract", "shards": 8,
  "parameters": {"costLimitBytes": 4194304}}]}
PLAN
fleet warmup 0,1 warmup   # warm each host's compiler caches (a fresh HOME makes the first build slow)
"$bin" run "$work/shards.json" --fleet "$work/warmup.json" --runs "$work/runs3w" --quiet >/dev/null || true
fleet two 0,1 shards
t0=$(now); "$bin" run "$work/shards.json" --fleet "$work/two.json" --runs "$work/runs3" --quiet >/dev/null || true; t1=$(now)
wall=$(secs "$t0" "$t1")
python3 - "$work/runs3" "$wall" <<'PY'
import json, sys, glob
run = glob.glob(sys.argv[1] + "/*")[0]
wall = float(sys.argv[2])
r = json.load(open(run + "/report.json"))
builds, lanes = [], {}
for s in r["suites"]:
    for j in s["jobs"]:
        for a in j["attempts"]:
            b = a.get("build")
            bp = sum((p["end"] - p["start"]) for p in a["phases"] if p["phase"] == "build" and p.get("end") is not None)
            if b and b["origin"] != "cached": builds.append(b["seconds"] - b["waitedSeconds"])
            lanes.setdefault((a["host"], a["slot"]), 0.0)
            lanes[(a["host"], a["slot"])] += (a["end"] - a["start"]) - bp
one, chain = max(builds or [0]), max(lanes.values() or [0])
print(f"   builds counted from events: {len(builds)} (target 2)   |  wall {wall:.2f} s  |  one build {one:.2f} s + longest shard chain {chain:.2f} s = {one + chain:.2f} s  |  ratio {wall / (one + chain):.2f}  (target ≤ 1.3)")
PY
fi
