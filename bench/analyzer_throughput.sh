#!/bin/sh
# Analyzer throughput: retrace hist and gateways (call and wire level) on a synthetic trace
# of EVENTS events (bench/synth_trace: 64 ranks, 8 nodes, 2 modules, a halo exchange and an
# allreduce per iteration), in events per second (median of ROUNDS runs), and their peak
# memory on that trace and on one five times smaller: memory must not grow with the trace.
# 'retrace info' (the bare reading pass) is measured alongside as the floor.
# usage: bench/analyzer_throughput.sh [BUILD_DIR] [EVENTS] [ROUNDS] [FORMAT]
#        FORMAT: otf2 (default) or csv
set -eu
build=$(cd "${1:-build}" && pwd)
events=${2:-10000000}
rounds=${3:-3}
format=${4:-otf2}
retrace=$build/retrace
synth=$build/bench/synth_trace
for f in "$retrace" "$synth"; do
    [ -x "$f" ] || { echo "analyzer_throughput: $f not found (build first)" >&2; exit 2; }
done
[ -x /usr/bin/time ] || { echo "analyzer_throughput: needs GNU time (apt-get install time)" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
ext=
[ "$format" = csv ] && ext=.csv
big=$work/big$ext small=$work/small$ext
"$synth" "$big" "$events" > "$work/big.txt"
"$synth" "$small" $((events / 5)) > "$work/small.txt"
n=$(awk '{print $1}' "$work/big.txt")
ns=$(awk '{print $1}' "$work/small.txt")
echo "analyzer throughput: $(cat "$work/big.txt") ($format, $(du -sh "$big" | cut -f1)), median of $rounds runs"
printf '%-26s %9s %12s %14s %14s\n' command "time (s)" "M events/s" "peak RSS big" "RSS small"

run() { # TRACE ARGS... -> "seconds rss_kib"
    t=$1
    shift
    /usr/bin/time -f '%e %M' -o "$work/time" "$retrace" "$@" "$t" > /dev/null
    cat "$work/time"
}
for spec in "info" "hist" "hist --level wire" "gateways" "gateways --level wire"; do
    : > "$work/runs"
    i=0
    while [ $i -lt "$rounds" ]; do
        # shellcheck disable=SC2086 # spec is a list of words
        run "$big" $spec >> "$work/runs"
        i=$((i + 1))
    done
    # shellcheck disable=SC2086
    small_rss=$(run "$small" $spec | awk '{print $2}')
    sort -n "$work/runs" | awk -v n="$n" -v spec="$spec" -v srss="$small_rss" '
        { t[NR] = $1; r[NR] = $2 }
        END { m = t[int((NR + 1) / 2)]; if (m <= 0) m = 0.01
              printf "%-26s %9.2f %12.1f %11.1f MiB %10.1f MiB\n", spec, m, n / m / 1e6,
                     r[NR] / 1024, srss / 1024 }'
done
echo "(small trace: $ns events)"
