#!/bin/sh
# Replay throughput: retrace replay on synthetic traces (bench/synth_trace: per iteration and
# rank a ring halo exchange of four nonblocking messages and an 8-byte allreduce, 22 events).
#  1. 1024 ranks (64 nodes, 4 modules), about 2.2 million events, OTF2 and CSV, and 64 ranks
#     (one per node), 1.4 million events, as a SimGrid time-independent trace: trace events
#     replayed per second (the replay alone, from --timing), load time, peak memory.
#  2. SimGrid side by side, when smpirun is installed: the same workload at 64 ranks written as
#     a SimGrid time-independent trace (retrace convert --to ti) and replayed by both
#     (bench/simgrid_replay.sh for SimGrid); wall-clock times and their ratio.
#  3. With --large: 131072 ranks (8192 nodes, 16 modules), three iterations (8.7 million
#     events, CSV), and 1,048,576 ranks (65536 nodes, 16 modules), two iterations (46 million
#     events, a 2 GB CSV trace): the memory-bound regime; how long, how much memory.
# usage: bench/replay_throughput.sh [BUILD_DIR] [--large]
set -eu
build=$(cd "${1:-build}" && pwd)
large=${2:-}
retrace=$build/retrace
synth=$build/bench/synth_trace
here=$(cd "$(dirname "$0")" && pwd)
for f in "$retrace" "$synth"; do
    [ -x "$f" ] || { echo "replay_throughput: $f not found (build first)" >&2; exit 2; }
done
[ -x /usr/bin/time ] || { echo "replay_throughput: needs GNU time (apt-get install time)" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

replay() { # NAME TRACE ARGS... : one replay with --timing and GNU time
    name=$1 trace=$2
    shift 2
    /usr/bin/time -f '%e %M' -o "$work/time" "$retrace" replay "$trace" --timing "$@" \
        > "$work/out" 2> "$work/err"
    load=$(sed -n 's/.*loaded [0-9]* events in \([0-9.]*\) s.*/\1/p' "$work/err")
    sim=$(sed -n 's/.*replay [a-z]*: \([0-9.]*\) s, \([0-9.]*\) M events.*/\1 \2/p' "$work/err")
    read -r wall rss < "$work/time"
    printf '%-22s %10s %10s %12s %10s %12s\n' "$name" "$load" "${sim% *}" "${sim#* }" "$wall" \
        "$((rss / 1024)) MiB"
}

echo "retrace replay throughput ($(nproc) cores; times in seconds)"
printf '%-22s %10s %10s %12s %10s %12s\n' trace load replay "M events/s" wall "peak RSS"
"$synth" "$work/k1.otf2" 2200000 1024 64 4 > /dev/null
replay "1024 ranks, 2.2M ev" "$work/k1.otf2"
"$synth" "$work/k1.csv" 2200000 1024 64 4 > /dev/null
replay "  same, CSV" "$work/k1.csv"
rm -rf "$work/k1.otf2" "$work/k1.csv"
"$synth" "$work/t64.csv" 1408000 64 64 1 > /dev/null
"$retrace" convert "$work/t64.csv" --to ti "$work/t64.ti" > /dev/null
replay "64 ranks, 1.4M ev, TI" "$work/t64.ti"
rm -rf "$work/t64.csv" "$work/t64.ti" "$work/t64.ti_files"

if command -v smpirun > /dev/null 2>&1; then
    echo
    echo "SimGrid side by side (64 ranks, one host per rank, retrace's net link)"
    "$synth" "$work/s64.csv" 140800 64 64 1 > /dev/null
    "$retrace" convert "$work/s64.csv" --to ti "$work/s64.ti" > /dev/null
    /usr/bin/time -f '%e' -o "$work/rt" "$retrace" replay "$work/s64.ti" > "$work/rt.out"
    "$here/simgrid_replay.sh" "$work/s64.ti" 64 > "$work/sg.out"
    rt=$(cat "$work/rt")
    sg=$(sed -n 's/^wall_seconds *\([0-9.]*\).*/\1/p' "$work/sg.out")
    echo "retrace replay (TI trace): $rt s wall, predicted $(sed -n 's/^predicted run time *//p' "$work/rt.out")"
    sed 's/^/SimGrid: /' "$work/sg.out"
    [ -n "$sg" ] && awk -v a="$sg" -v b="$rt" 'BEGIN { if (b > 0) printf "retrace is %.1fx faster (wall clock)\n", a / b }'
else
    echo
    echo "SimGrid side by side: skipped (smpirun not found; apt-get install libsimgrid-dev)"
fi

if [ "$large" = --large ]; then
    echo
    "$synth" "$work/r131k.csv" 5800000 131072 8192 16 > /dev/null
    replay "131072 ranks, 8.7M ev" "$work/r131k.csv"
    rm -f "$work/r131k.csv"
    "$synth" "$work/m1.csv" 46137344 1048576 65536 16 > /dev/null
    replay "1048576 ranks, 46M ev" "$work/m1.csv"
    grep -E '^(predicted run time|messages|gateway crossings)' "$work/out"
fi
