#!/bin/sh
# Replay throughput: retrace replay on synthetic traces (bench/synth_trace: per iteration and
# rank a ring halo exchange of four nonblocking messages and an 8-byte allreduce, 22 events).
#  1. 1024 ranks (64 nodes, 4 modules), about 2.2 million events, OTF2 and CSV, and 64 ranks
#     (one per node), 1.4 million events, as a SimGrid time-independent trace: trace events
#     replayed per second (the replay alone, from --timing) and the replay's CPU time, load
#     time, peak memory.
#  2. SimGrid side by side, when smpirun is installed: the same workload, 22,000 events per
#     rank (1000 iterations) on one node per rank, written as a SimGrid time-independent trace
#     (retrace convert --to ti) and replayed by both (bench/simgrid_replay.sh for SimGrid).
#     Per size: the wall clock of the whole `retrace replay INDEX` run (reading the TI files
#     included; the median of RT_ROUNDS runs, default 5) and of the whole smpirun run (one:
#     it takes seconds to minutes), their ratio, and both predicted run times side by side.
#     At 64 ranks by default; --simgrid RANKS,... compares at those sizes and does only that.
#     RANKS:ITERATIONS runs fewer iterations at that size (the same workload: each rank's
#     calls per iteration do not change), so that SimGrid ends in minutes at thousands of
#     ranks; e.g. --simgrid 64,256,1024,2048:120,4096:60. 15 iterations cycle once through
#     the message sizes: a multiple of 15 keeps their mix.
#  3. With --large: 131072 ranks (8192 nodes, 16 modules), three iterations (8.7 million
#     events, CSV), and 1,048,576 ranks (65536 nodes, 16 modules), two iterations (46 million
#     events, a 2 GB CSV trace): the memory-bound regime; how long, how much memory.
# usage: bench/replay_throughput.sh [BUILD_DIR] [--large | --simgrid RANKS[:ITERATIONS][,...]]
set -eu
build=$(cd "${1:-build}" && pwd)
mode=${2:-}
sizes=64
case $mode in
'' | --large) ;;
--simgrid)
    sizes=$(printf '%s' "${3:-}" | tr ',' ' ')
    for n in $sizes; do
        case $n in *[!0-9:]* | 0 | 0:* | *:0 | *:*:* | :* | *:) sizes= ;; esac
    done
    [ -n "$sizes" ] || { echo "replay_throughput: --simgrid wants rank counts, e.g. 64,256,1024,2048:120" >&2; exit 2; }
    ;;
*) echo "usage: $0 [BUILD_DIR] [--large | --simgrid RANKS[:ITERATIONS][,...]]" >&2; exit 2 ;;
esac
rounds=${RT_ROUNDS:-5}
retrace=$build/retrace
synth=$build/bench/synth_trace cputime=$build/bench/cputime
here=$(cd "$(dirname "$0")" && pwd)
for f in "$retrace" "$synth" "$cputime"; do
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
    cpu=$(sed -n 's/.*, \([0-9.]*\) s CPU$/\1/p' "$work/err")
    read -r wall rss < "$work/time"
    printf '%-22s %10s %10s %10s %12s %10s %12s\n' "$name" "$load" "${sim% *}" "$cpu" \
        "${sim#* }" "$wall" "$((rss / 1024)) MiB"
}

median() { # the middle one of the numbers on stdin
    sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}

# "43.88 ms" (retrace's predicted run time) in seconds
seconds() {
    awk '{ f = $2 == "s" ? 1 : $2 == "ms" ? 1e-3 : $2 == "us" ? 1e-6 : $2 == "ns" ? 1e-9 : 1e-12
           printf "%.9g\n", $1 * f }'
}

compare() { # RANKS[:ITERATIONS]: the same workload replayed by retrace and by SimGrid, a row
    n=${1%%:*} iters=1000 la=$(cut -d" " -f1 /proc/loadavg 2>/dev/null || echo -)
    case $1 in *:*) iters=${1#*:} ;; esac
    "$synth" "$work/c.otf2" $((n * 22 * iters)) "$n" "$n" 1 > /dev/null
    "$retrace" convert "$work/c.otf2" --to ti "$work/c.ti" > /dev/null
    rm -rf "$work/c.otf2"
    for f in walls cpus loads sims; do : > "$work/$f"; done
    i=0
    while [ $i -lt "$rounds" ]; do
        # wall and CPU time (user + system) from wait4's rusage, in microseconds: these runs
        # take milliseconds, below GNU time's 10 ms steps
        "$cputime" -o "$work/cpu" "$retrace" replay "$work/c.ti" --timing \
            > "$work/rt.out" 2> "$work/rt.err"
        awk '{ printf "%.4f\n", $1 }' "$work/cpu" >> "$work/walls"
        awk '{ printf "%.4f\n", $2 + $3 }' "$work/cpu" >> "$work/cpus"
        sed -n 's/.*loaded [0-9]* events in \([0-9.]*\) s.*/\1/p' "$work/rt.err" >> "$work/loads"
        sed -n 's/.*replay [a-z]*: \([0-9.]*\) s,.*/\1/p' "$work/rt.err" >> "$work/sims"
        i=$((i + 1))
    done
    events=$(sed -n 's/^ranks  *[0-9]* (\([0-9]*\) events).*/\1/p' "$work/rt.out")
    rt_pred=$(sed -n 's/^predicted run time  *//p' "$work/rt.out" | seconds)
    if ! "$here/simgrid_replay.sh" "$work/c.ti" "$n" > "$work/sg.out"; then
        echo "replay_throughput: SimGrid failed at $n ranks" >&2
        exit 1
    fi
    field() { sed -n "s/^$1 *\([0-9.e+-]*\).*/\1/p" "$work/sg.out"; }
    awk -v n="$n" -v it="$iters" -v la="$la" -v ev="$events" -v w="$(median < "$work/walls")" \
        -v c="$(awk '{ s += $1 } END { print s / NR }' "$work/cpus")" \
        -v ld="$(median < "$work/loads")" -v rp="$(median < "$work/sims")" \
        -v sw="$(field wall_seconds)" -v sc="$(field cpu_seconds)" -v a="$rt_pred" \
        -v b="$(field simulated_time)" 'BEGIN {
        printf "%6d %5d %9.2fM %7.4f %6.4f %6.3f %6.3f %8.2f %8.2f", n, it, ev / 1e6, w, c, ld, rp, sw, sc
        printf " %6.1fx %6.1fx %9.3f %9.3f %+6.1f%% %7s\n", sw / w, (c > 0 ? sc / c : 0), a * 1e3,
               b * 1e3, (a - b) / b * 100, la }'
    rm -rf "$work/c.ti" "$work/c.ti_files"
}

. "$here/machine.sh"
load() { bench_load; }

simgrid() { # the comparison at every size in $sizes
    echo "$(bench_cpu), clock source $(bench_clock)"
    echo "retrace against SimGrid 3.32: the same TI trace, one host per rank on retrace's net"
    echo "link; iters: iterations of the workload (22 events per rank each); loadavg: the 1-minute"
    echo "load average as the row began (the machine may be shared; now: $(load)). Seconds;"
    echo "retrace: $rounds runs, the median wall clock, load and replay (--timing),"
    echo "the mean CPU time (user + system, from rusage: bench/cputime); SimGrid: GNU time; ratio: SimGrid /"
    echo "retrace; predicted run times in ms."
    printf "%6s %5s %10s %7s %6s %6s %6s %8s %8s %7s %7s %9s %9s %7s %7s\n" "" "" "" retrace "" "" "" \
        SimGrid "" ratio "" predicted "" "" ""
    printf "%6s %5s %10s %7s %6s %6s %6s %8s %8s %7s %7s %9s %9s %7s %7s\n" ranks iters events wall \
        cpu load replay wall cpu wall cpu retrace SimGrid diff loadavg
    for n in $sizes; do
        compare "$n"
    done
    echo "load average at the end: $(load)"
}

if [ "$mode" = --simgrid ]; then
    command -v smpirun > /dev/null 2>&1 ||
        { echo "replay_throughput: smpirun not found (apt-get install libsimgrid-dev)" >&2; exit 2; }
    simgrid
    exit 0
fi

echo "retrace replay throughput ($(nproc) cores; times in seconds)"
echo "$(bench_machine) at the start"
printf '%-22s %10s %10s %10s %12s %10s %12s\n' trace load replay "replay CPU" "M events/s" \
    wall "peak RSS"
"$synth" "$work/k1.otf2" 2200000 1024 64 4 > /dev/null
replay "1024 ranks, 2.2M ev" "$work/k1.otf2"
"$synth" "$work/k1.csv" 2200000 1024 64 4 > /dev/null
replay "  same, CSV" "$work/k1.csv"
rm -rf "$work/k1.otf2" "$work/k1.csv"
"$synth" "$work/t64.csv" 1408000 64 64 1 > /dev/null
"$retrace" convert "$work/t64.csv" --to ti "$work/t64.ti" > /dev/null
replay "64 ranks, 1.4M ev, TI" "$work/t64.ti"
rm -rf "$work/t64.csv" "$work/t64.ti" "$work/t64.ti_files"

echo
if command -v smpirun > /dev/null 2>&1; then
    simgrid
else
    echo "SimGrid side by side: skipped (smpirun not found; apt-get install libsimgrid-dev)"
fi

if [ "$mode" = --large ]; then
    echo
    "$synth" "$work/r131k.csv" 5800000 131072 8192 16 > /dev/null
    replay "131072 ranks, 8.7M ev" "$work/r131k.csv"
    rm -f "$work/r131k.csv"
    "$synth" "$work/m1.csv" 46137344 1048576 65536 16 > /dev/null
    replay "1048576 ranks, 46M ev" "$work/m1.csv"
    grep -E '^(predicted run time|messages|gateway crossings)' "$work/out"
fi
