#!/usr/bin/env bash
# Builds the libFuzzer targets in fuzz/Targets and runs each for a bounded time.
#   scripts/fuzz.sh                 every target, FUZZ_SECONDS (default 30) each
#   scripts/fuzz.sh parser reports  only those targets
#   FUZZ_SECONDS=3600 FUZZ_JOBS=2 scripts/fuzz.sh parser   a longer session (docs/fuzzing.md)
#   scripts/fuzz.sh --build-only
#   FUZZ_SEED=N scripts/fuzz.sh     a fixed libFuzzer seed (0 or unset: a new seed each run)
#   FUZZ_LANES=N                    targets linked and run N at a time (default: one per core)
#   FUZZ_RUNS_<target>=N            stop a target after N inputs (FUZZ_SECONDS stays the cap):
#                                   with a fixed seed, the same inputs on every machine (test.sh)
# The package's own `swift build` is not involved: the library modules are compiled here by
# swiftc, with coverage instrumentation and AddressSanitizer, into .build/fuzz. Fails on a crash,
# a sanitizer or leak report, a timeout (-timeout), or a harness invariant (a trap).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
[ -d /opt/swift/usr/bin ] && export PATH="/opt/swift/usr/bin:$PATH"
seconds="${FUZZ_SECONDS:-30}"
seed="${FUZZ_SEED:-0}"
case "$seed" in ''|*[!0-9]*) echo "fuzz: FUZZ_SEED must be a number (got '$seed')"; exit 2 ;; esac
# The Swift runtime's own crash backtracer fights ASan (and can hang); libFuzzer reports crashes.
export SWIFT_BACKTRACE=enable=no
jobs="${FUZZ_JOBS:-1}"
out=.build/fuzz
all_targets=(plan fleet parser reports knownhosts xcresult quarantine historyurl historydb processrecords discovery)
build_only=0
targets=()
for a in "$@"; do
    case "$a" in
        --build-only) build_only=1 ;;
        *) targets+=("$a") ;;
    esac
done
[ ${#targets[@]} -eq 0 ] && targets=("${all_targets[@]}")
mkdir -p "$out/modules" "$out/artifacts"
# -j: one compiler process per core (swiftc alone runs one at a time: 294 s for the libraries and
# links on a 2-core CI machine, 105 s for the libraries with -j2).
flags=(-j"$(nproc)" -sanitize=fuzzer,address -enable-testing -swift-version 6 -Onone -parse-as-library -package-name xcfleet
       -I Sources/CLibSSH2 -I Sources/CSQLite3 -I Sources/CLibPQ $(pkg-config --cflags-only-I libpq sqlite3 2>/dev/null | sed "s/-I/-Xcc -I/g") -I "$out/modules" -suppress-warnings)

# Libraries: rebuilt only when their sources (or this script) changed.
library() { # name, source folder
    local name="$1" dir="$2" stamp="$out/$1.stamp" sum
    sum=$( (cat $(find "$dir" -name '*.swift' | sort); echo "${flags[*]}") | sha256sum | cut -c1-16)
    if [ -f "$out/lib$name.a" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$sum" ]; then return 0; fi
    echo "fuzz: building $name (instrumented)"
    swiftc "${flags[@]}" -module-name "$name" -emit-module -emit-module-path "$out/modules/$name.swiftmodule" \
        -emit-library -static -o "$out/lib$name.a" $(find "$dir" -name '*.swift' | sort) || return 1
    echo "$sum" > "$stamp"
}
start=$(date +%s)
# In dependency order (Package.swift): each layer sees only the modules built before it.
layers=(XCFleetBasics SSHClient XCFleetModel XCFleetCore XCFleetHostScripts XCFleetKit)
for m in "${layers[@]}"; do
    library "$m" "Sources/$m" || { echo "fuzz: $m failed to build"; exit 1; }
done
# Static archives link users before what they use: the reverse of the build order.
archives=(); for ((i=${#layers[@]}-1; i>=0; i--)); do archives+=("$out/lib${layers[$i]}.a"); done
for t in "${targets[@]}"; do
    [ -f "fuzz/Targets/$t.swift" ] || { echo "fuzz: no target '$t' (have: ${all_targets[*]})"; exit 2; }
done
link() { # target: the harness (with its markup checkers) is optimised: it is small, and otherwise dominates the reports target
    swiftc "${flags[@]}" -O -module-name "fuzz_$1" fuzz/Support/*.swift "fuzz/Targets/$1.swift" \
        "${archives[@]}" -lssh2 -lsqlite3 -lpq -o "$out/fuzz-$1" 2>&1 | grep -v "Cannot export local symbol" ; [ "${PIPESTATUS[0]}" -eq 0 ]
}
# Targets link and run `lanes` at a time (one per core; FUZZ_LANES overrides): each is one
# single-threaded process, so the fixed input counts take as long per target as one at a time.
lanes="${FUZZ_LANES:-$(nproc)}"
case "$lanes" in ''|*[!0-9]*|0) echo "fuzz: FUZZ_LANES must be a positive number (got '$lanes')"; exit 2 ;; esac
[ "$jobs" -gt 1 ] && lanes=1   # libFuzzer's -jobs writes fuzz-N.log into the working directory
throttle() { while [ "$(jobs -rp | wc -l)" -ge "$lanes" ]; do wait -n; done; }
for t in "${targets[@]}"; do
    throttle
    echo "fuzz: linking $t"
    ( link "$t" || { echo "fuzz: $t failed to link"; rm -f "$out/fuzz-$t"; exit 1; } ) &
done
wait
for t in "${targets[@]}"; do [ -x "$out/fuzz-$t" ] || { echo "fuzz: $t failed to link"; exit 1; }; done
echo "fuzz: built in $(( $(date +%s) - start )) s"
[ "$build_only" -eq 1 ] && exit 0

parallel=()
# -jobs=1 would still fork a job process (with its own log): only ask for jobs when there are several.
[ "$jobs" -gt 1 ] && parallel=(-jobs="$jobs" -workers="$jobs")
run_target() { # target: runs it, and writes its one summary line to $out/$t.result
    local t="$1" work="$out/corpus/$1" log="$out/$1.log" status execs
    mkdir -p "$work"
    rm -f "$out/artifacts/$t-"* "$out/$t.result"
    local seeds=(); [ -d "fuzz/corpus/$t" ] && seeds=("fuzz/corpus/$t")
    # New inputs go to the work corpus (under .build); the seeds in the repository are read only.
    # Report rendering is slow per input: shorter inputs keep its execution rate useful.
    local max_len=65536; [ "$t" = reports ] && max_len=8192
    local runs_var="FUZZ_RUNS_$t" runs=(); [ -n "${!runs_var:-}" ] && runs=(-runs="${!runs_var}")
    "$out/fuzz-$t" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len="$max_len" \
        -print_final_stats=1 -seed="$seed" "${runs[@]}" -artifact_prefix="$out/artifacts/$t-" "${parallel[@]}" \
        "$work" "${seeds[@]}" > "$log" 2>&1
    status=$?
    # With FUZZ_JOBS > 1 each job writes fuzz-N.log: appended to the target's log, stats summed.
    for f in fuzz-[0-9]*.log; do [ -f "$f" ] && { cat "$f" >> "$log"; rm -f "$f"; }; done
    execs=$(grep -oE 'stat::number_of_executed_units: [0-9]+' "$log" | grep -oE '[0-9]+' | awk '{s+=$1} END {if (NR) print s}')
    if [ "$status" -ne 0 ] || grep -qE 'ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|fuzz invariant violated|SUMMARY: ' "$log"; then
        { echo "FAILED"
          echo "$t: FAILED after ${execs:-?} executions (exit $status) — see $log; the input is in $out/artifacts/$t-*"
          grep -E 'ERROR:|invariant violated|SUMMARY:|Test unit written' "$log" | head -5 | sed 's/^/    /'
        } > "$out/$t.result"
    else
        printf 'ok\n%s\n' "$t: ok, ${execs:-?} executions (seed $seed, at most ${seconds} s), corpus $(ls "$work" | wc -l) inputs" > "$out/$t.result"
    fi
}
for t in "${targets[@]}"; do throttle; run_target "$t" & done
wait
failed=0
for t in "${targets[@]}"; do
    if [ "$(head -1 "$out/$t.result" 2>/dev/null)" = ok ]; then
        echo "fuzz: $(sed -n 2p "$out/$t.result")"
    else
        failed=1
        if [ -f "$out/$t.result" ]; then echo "fuzz: $(sed -n 2p "$out/$t.result")"; sed -n '3,$p' "$out/$t.result"
        else echo "fuzz: $t: FAILED (its runner ended without a result; see $out/$t.log)"; fi
    fi
done
exit "$failed"
