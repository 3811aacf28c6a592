#!/usr/bin/env bash
# Build-cache benchmarks, release binary, figures printed side by side as ratios:
#   1. warm re-run of Plans/cache-contract.json over loopback SSH ÷ `swift test` run directly in the
#      same rendered, already-built package on the same machine            (target ≤ 1.2)
#   2. Plans/nightly.json on the local host (empty cache) ÷ one cold run of Plans/cache-contract.json
#      on an empty cache                                                    (target ≤ 2.0)
#   3. build once per fleet: a suite with "shards": 8 on four loopback hosts of one class (the same
#      toolchain), two slots each, empty work roots: compilations counted from events.jsonl and the
#      attempts' logs (target exactly 1: the other hosts receive the build) and
#      wall ÷ (one build + longest shard chain)                             (target ≤ 1.3)
#      Measured 2026-12-02 (2-core machine, other builds running), two runs: 1 compilation each, the
#      three other hosts received it; 55.5 s ÷ (52.0 + 2.3) = 1.02 and 33.9 s ÷ (30.3 + 2.5) = 1.03.
# Parts 1 and 2, one run (`BENCH_ONLY="1 2"`), 2026-12-02, shared 2-core machine, load 3.9-5.1:
#   1. warm re-run 1.04 s ÷ swift test 1.15 s = 0.90 (before, load 9.6-7: 1.84 s ÷ 0.97 s = 1.90)
#   2. nightly 51.6 s ÷ cold cache-contract 32.2 s = 1.60: 1 cold build, 7 incremental, 2 cached
#      (on a quiet machine, load 1.2: 36.9 s ÷ 15.0 s = 2.46 and 40.9 s ÷ 17.5 s = 2.34: not met)
#      (the local host with one slot, load ~1: 41.95 s ÷ 15.30 s = 2.74; with two slots but a job
#      that waited for the build lock building cold: 3 cold builds, 4.33).
#      Later the same day (debug binary, same commands; docs/builds.md): three local slots, the
#      build handed over at the build step, the shared build first: 1.92, 1.58, 1.92, 2.82 (noisy
#      VM, load 1.6-2.2); the binary before those changes: 2.41 and 2.49 in the same session.
# 2026-12-03 (release, 2-core VM, load 0.4-1.4), after the cleanup moved behind the verdict and
# shards and reruns chained behind the push: part 1 single runs 1.69, 2.59, 1.29 (the one warm run
# here swings 0.8-2.1 s on this VM); paired with farm-bench -n 9 against `swift test --skip-build`
# in the built package: median 1.100 s ÷ 0.911 s, ratio 1.20 (0.97-1.90); against the binary of
# 9623c4b: 0.919 s ÷ 0.892 s, ratio 0.98 (no change on loopback: the process still waits for the
# cleanup and the lease release before it exits). Part 2: 56.08 s ÷ 33.09 s = 1.69.
# 2026-12-03 11:02 (release, quiet 2-core VM, load 0.7), after the last cleanup carried the lease
# release and kept job trees were kept in real runs: part 1, 7 pairs: 0.959 s ÷ 0.900 s, ratio 1.08
# (pairs 0.80-1.18); part 2: 45.16 s ÷ 22.17 s = 2.04, then 41.71 s ÷ 22.17 s = 1.88.
# 2026-12-03 13:04 (release, load 0.8-2.6), after every started attempt's key was named pending (an
# older history record no longer hides it) and a free slot went to a cached job while one job
# compiled and one waited at the lock: part 2: 44.24 s ÷ 23.33 s = 1.90, 41.19 s ÷ 21.43 s = 1.92
# (the binary before, same hour: 50.21 s ÷ 23.84 s = 2.11). Both parts at 14:36 (quiet, load 0.1-1.5):
# part 1, 7 pairs: 1.013 s ÷ 1.078 s, ratio 0.99 (0.61-1.56); part 2: 47.31 s ÷ 25.38 s = 1.86.
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
scripts/testhosts.sh start 4 "$work/hosts" >/dev/null
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
for path in glob.glob(sys.argv[1] + "/*/events.jsonl"):   # every run in the folder
  for line in open(path):
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
"$bin" render Plans/cache-contract.json --out "$work/rendered" >/dev/null
pkg=$(ls -d "$work"/rendered/*/ | head -1)
(cd "$pkg" && swift build --build-tests >/dev/null 2>&1)
# One warm run on this VM swings 0.4-2 s, so the two commands run in turn, pair by pair
# (BENCH_PAIRS, default 7), and the figure is the median of the pairs' ratios.
pairs=${BENCH_PAIRS:-7}
: > "$work/pairs1"
for i in $(seq "$pairs"); do
  t0=$(now); "$bin" run Plans/cache-contract.json --fleet "$work/one.json" --runs "$work/runs1w" --quiet >/dev/null; t1=$(now)
  (cd "$pkg" && swift test --skip-build >/dev/null 2>&1); t2=$(now)
  echo "$t0 $t1 $t2" >> "$work/pairs1"
done
python3 - "$work/pairs1" <<'PY2'
import sys, statistics as st
rows = [[float(x) for x in l.split()] for l in open(sys.argv[1]) if l.strip()]
warm = [b - a for a, b, c in rows]; ref = [c - b for a, b, c in rows]; ratio = [w / r for w, r in zip(warm, ref)]
print(f"   warm xcfleet run over SSH  median {st.median(warm):.3f} s   |  swift test --skip-build  median {st.median(ref):.3f} s   |  "
      f"ratio median {st.median(ratio):.2f} of {len(rows)} pairs (range {min(ratio):.2f}-{max(ratio):.2f})  (target ≤ 1.2)")
PY2
echo "   builds in the warm runs: $(count_builds "$work/runs1w")"

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
echo "== 3. shards: 8 on four loopback hosts of one class, two slots each (build once per fleet)"
cat > "$work/shards.json" <<'PLAN'
{"name": "shards", "suites": [{"name": "sharded-gate", "template": "cache-contract", "shards": 8,
  "parameters": {"costLimitBytes": 4194304}}]}
PLAN
# One compiler cache for the four hosts (each test host has a HOME of its own, and a fresh HOME makes
# the first build slow): hosts 2-4 use host 1's, warmed by one run on host 1 alone.
for i in 2 3 4; do rm -rf "$work/hosts/h$i/home"; ln -s "$work/hosts/h1/home" "$work/hosts/h$i/home"; done
fleet warmup 0 warmup
"$bin" run "$work/shards.json" --fleet "$work/warmup.json" --runs "$work/runs3w" --quiet >/dev/null || true
fleet four 0,1,2,3 shards   # empty work roots of their own: nothing cached, nothing trusted
t0=$(now); "$bin" run "$work/shards.json" --fleet "$work/four.json" --runs "$work/runs3" --no-history --quiet >/dev/null || true; t1=$(now)
wall=$(secs "$t0" "$t1")
python3 - "$work/runs3" "$wall" <<'PY'
import json, sys, glob, os
run = glob.glob(sys.argv[1] + "/*")[0]
wall = float(sys.argv[2])
r = json.load(open(run + "/report.json"))
builds, lanes, hosts = [], {}, set()
for s in r["suites"]:
    for j in s["jobs"]:
        for a in j["attempts"]:
            b = a.get("build")
            bp = sum((p["end"] - p["start"]) for p in a["phases"] if p["phase"] == "build" and p.get("end") is not None)
            if b and b["origin"] != "cached":
                builds.append(b["seconds"] - b["waitedSeconds"])
                if bp < b["seconds"]: bp += b["seconds"]   # built in the push's round trip
            hosts.add(a["host"])
            lanes.setdefault((a["host"], a["slot"]), 0.0)
            lanes[(a["host"], a["slot"])] += (a["end"] - a["start"]) - bp
# A lane's chain: its attempts without their build phase (waiting for a build, receiving it) and
# without a compilation made in the push's round trip.
# The same count from events.jsonl (build events whose origin is not cached) and from the attempts'
# logs (a compilation prints SwiftPM's "Compiling" lines; a received or cached build prints none).
events = [json.loads(l) for l in open(run + "/events.jsonl")]
compiled = sum(1 for e in events if e["body"].get("build") and e["body"]["build"]["_1"]["origin"] != "cached")
received = sum(1 for e in events if "received the build" in str(e["body"].get("note", {})))
logs = sum(1 for f in glob.glob(run + "/logs/**/*", recursive=True) if os.path.isfile(f) and "Compiling " in open(f, errors="replace").read())
one, chain = max(builds or [0]), max(lanes.values() or [0])
print(f"   compilations: {compiled} in events.jsonl, {logs} attempt logs with compiler output (target exactly 1); {received} hosts received the build; {len(hosts)} hosts ran shards")
print(f"   wall {wall:.2f} s  |  one build {one:.2f} s + longest shard chain {chain:.2f} s = {one + chain:.2f} s  |  ratio {wall / (one + chain):.2f}  (target ≤ 1.3)")
sys.exit(0 if compiled == 1 and logs <= 1 else 1)
PY
fi
