#!/bin/sh
# Analyzer throughput: retrace info, hist and gateways (call and wire level) on a synthetic
# trace of EVENTS events (bench/synth_trace: 64 ranks, 8 nodes, 2 modules, a halo exchange and
# an allreduce per iteration), in events per second of wall time and of CPU time (user +
# system, from rusage through bench/cputime), median of ROUNDS runs taken in turns, beside the
# floor: OTF2's own reading of the same archive with callbacks that only count
# (bench/otf2_floor; OTF2 traces only). Peak memory on that trace and on one five times
# smaller: memory must not grow with the trace. Each analysis runs with each of THREADS
# (--threads; default "1 2", in turns within a round), and the last column is its wall time
# with the first of THREADS over its wall time with these. The first line names the CPU, the
# clock source and the load average, the last the load average at the end.
# usage: bench/analyzer_throughput.sh [BUILD_DIR] [EVENTS] [ROUNDS] [FORMAT] [THREADS]
#        FORMAT: otf2 (default) or csv
set -eu
build=$(cd "${1:-build}" && pwd)
events=${2:-10000000}
rounds=${3:-3}
format=${4:-otf2}
threads=${5:-1 2}
retrace=$build/retrace
synth=$build/bench/synth_trace floor=$build/bench/otf2_floor cputime=$build/bench/cputime
for f in "$retrace" "$synth" "$floor" "$cputime"; do
    [ -x "$f" ] || { echo "analyzer_throughput: $f not found (build first)" >&2; exit 2; }
done
. "$(dirname "$0")/machine.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
ext=
[ "$format" = csv ] && ext=.csv
big=$work/big$ext small=$work/small$ext
"$synth" "$big" "$events" > "$work/big.txt"
"$synth" "$small" $((events / 5)) > "$work/small.txt"
n=$(awk '{print $1}' "$work/big.txt")
ns=$(awk '{print $1}' "$work/small.txt")
echo "analyzer throughput: $(cat "$work/big.txt") ($format, $(du -sh "$big" | cut -f1))"
echo "$(bench_machine) at the start;" \
    "median of $rounds rounds"

analyses="info|hist|hist --level wire|gateways|gateways --level wire"
specs=
[ "$format" = otf2 ] && specs=floor
for a in $(echo "$analyses" | tr ' |' '_ '); do
    for t in $threads; do
        specs="${specs:+$specs|}$(echo "$a" | tr _ ' ') --threads $t"
    done
done
run() { # OUT TRACE SPEC: one line "wall user sys rss_kib" appended to OUT
    out=$1 t=$2 spec=$3
    if [ "$spec" = floor ]; then
        "$cputime" -o "$work/one" "$floor" "$t" > /dev/null
    else
        # shellcheck disable=SC2086 # spec is a list of words
        "$cputime" -o "$work/one" "$retrace" $spec "$t" > /dev/null
    fi
    cat "$work/one" >> "$out"
}
i=0
while [ $i -lt "$rounds" ]; do # in turns, so that a busy moment hits every command alike
    k=0
    echo "$specs" | tr '|' '\n' | while IFS= read -r spec; do
        run "$work/runs.$k" "$big" "$spec"
        k=$((k + 1))
    done
    i=$((i + 1))
done
printf '%-34s %8s %8s %12s %12s %13s %13s %8s\n' command "wall s" "cpu s" "M ev/s wall" \
    "M ev/s cpu" "RSS big" "RSS small" speedup
first=${threads%% *}
k=0
echo "$specs" | tr '|' '\n' | while IFS= read -r spec; do
    run "$work/small.$k" "$small" "$spec"
    srss=$(awk '{print $4}' "$work/small.$k")
    # medians of wall and of CPU time, each over the rounds; the speedup against the same
    # analysis with the first of THREADS, whose median wall time base.wall keeps
    wall=$(awk '{ print $1 }' "$work/runs.$k" | sort -g | awk '{ v[NR] = $1 }
        END { print v[int((NR + 1) / 2)] }')
    case "$spec" in *" --threads $first") echo "$wall" > "$work/base.wall" ;; esac
    base=$wall
    [ "$spec" = floor ] || base=$(cat "$work/base.wall")
    awk '{ print $2 + $3, $4 }' "$work/runs.$k" | sort -g |
        awk -v n="$n" -v spec="$spec" -v srss="$srss" -v w="$wall" -v base="$base" '
        { c[NR] = $1; if ($2 > rss) rss = $2 }
        END { m = int((NR + 1) / 2); if (w <= 0) w = 1e-6; if (c[m] <= 0) c[m] = 1e-6
              printf "%-34s %8.3f %8.3f %12.1f %12.1f %9.1f MiB %9.1f MiB %7.2fx\n", spec, w,
                     c[m], n / w / 1e6, n / c[m] / 1e6, rss / 1024, srss / 1024, base / w }'
    k=$((k + 1))
done
echo "(floor: OTF2's own reading, bench/otf2_floor; small trace: $ns events;" \
    "load average $(bench_load) at the end)"
# What two threads can gain on this machine now: two floors at once against one, in wall time
# (on a busy machine well under 2, whatever the program).
if [ "$format" = otf2 ]; then
    "$cputime" -o "$work/c1" "$floor" "$big" > /dev/null
    "$cputime" -o "$work/c2" "$floor" "$big" > /dev/null &
    "$cputime" -o "$work/c3" "$floor" "$big" > /dev/null
    wait
    awk 'FNR == 1 { w[++k] = $1 } END { m = w[2] > w[3] ? w[2] : w[3]; if (m <= 0) m = 1e-6
         printf "parallel ceiling now: one floor %.3f s, two at once %.3f s: %.2fx\n", w[1], m,
                2 * w[1] / m }' "$work/c1" "$work/c2" "$work/c3"
fi
