#!/bin/sh
# Tracer overhead: the same 2-rank program (tracer_overhead.c: 0-byte ping-pong, 8-byte
# allreduce loop, 1 KiB Irecv/Isend/Waitall ring) untraced, traced, and in histogram-only mode, interleaved ROUNDS times so
# that machine noise hits every mode alike; reports medians, the added ns per MPI call and
# the ratio, the same between the fastest rounds, and the raw trace bytes per event of a
# traced run.
# usage: bench/tracer_overhead.sh [BUILD_DIR] [ITERATIONS] [ROUNDS]
# RT_BASELINE=OTHER/libretrace.so adds that library's traced and histogram-only modes to the same
# interleaved rounds (rows "trace0" and "hist0"): a change's before and after, side by side.
set -eu
build=$(cd "${1:-build}" && pwd)
iters=${2:-200000}
rounds=${3:-7}
here=$(cd "$(dirname "$0")" && pwd)
. "$here/machine.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
lib=$build/tracer/libretrace.so
base=${RT_BASELINE:-}
modes="trace hist"
if [ -n "$base" ]; then
    [ -f "$base" ] || { echo "tracer_overhead: RT_BASELINE=$base not found" >&2; exit 2; }
    modes="trace0 trace hist0 hist"
fi
[ -f "$lib" ] || { echo "tracer_overhead: $lib not found (build first)" >&2; exit 2; }
mpicc.mpich -O2 -o "$work/ovh" "$here/tracer_overhead.c"

run() { # MODE -> appends "pingpong allreduce ring" to $work/MODE
    l=$lib
    case $1 in *0) l=$base ;; esac
    case $1 in
    plain) mpiexec.mpich -n 2 "$work/ovh" "$iters" ;;
    trace|trace0) rm -rf "$work/t" "$work/t.raw"
           RETRACE_OUT=$work/t LD_PRELOAD=$l mpiexec.mpich -n 2 "$work/ovh" "$iters" ;;
    hist|hist0) RETRACE_TRACE=0 RETRACE_HISTOGRAM=1 LD_PRELOAD=$l mpiexec.mpich -n 2 "$work/ovh" "$iters" ;;
    esac | awk '/^pingpong/ {p=$2} /^allreduce/ {a=$2} /^ring/ {r=$2} END {print p, a, r}' >> "$work/$1"
}
i=0
while [ $i -lt "$rounds" ]; do
    for m in plain $modes; do run $m; done
    i=$((i + 1))
done
median() { # FILE COLUMN
    sort -n -k"$2" "$1" | awk -v c="$2" '{v[NR]=$c} END {print v[int((NR+1)/2)]}'
}
fastest() { # FILE COLUMN: the fastest round's figure
    sort -n -k"$2" "$1" | awk -v c="$2" 'NR == 1 {print $c}'
}
echo "tracer overhead: 2 ranks, $iters iterations, median of $rounds interleaved rounds"
echo "$(bench_machine) at the end"
# The fastest rounds' columns: this VM slows a whole run down at times (all patterns, every
# mode alike), which only ever adds time; the fastest of the interleaved rounds of each mode is
# the one least slowed, so the difference between two modes' fastest rounds is what the tracer
# adds on a quiet machine. The medians stay: they say what a run meets on a busy one.
printf '%-22s %10s %10s %10s %8s  %10s %10s %10s\n' pattern "untraced" "mode" "added" ratio \
    "fastest" "mode" "added"
for m in $modes; do
    for col in 1 2 3; do
        case $col in
        1) name="pingpong (0 B)" ;;
        2) name="allreduce (8 B)" ;;
        *) name="ring (1 KiB, nb)" ;;
        esac
        b=$(median "$work/plain" $col)
        t=$(median "$work/$m" $col)
        fb=$(fastest "$work/plain" $col)
        ft=$(fastest "$work/$m" $col)
        awk -v n="$name" -v m="$m" -v b="$b" -v t="$t" -v fb="$fb" -v ft="$ft" 'BEGIN {
            printf "%-22s %8.1f ns %8.1f ns %+7.1f ns %7.3fx  %8.1f ns %8.1f ns %+7.1f ns  (%s)\n",
                n, b, t, t - b, t / b, fb, ft, ft - fb, m }'
    done
done
# Bytes per event: raw files of one traced run against the events they hold.
rm -rf "$work/t" "$work/t.raw"
RETRACE_KEEP_RAW=1 RETRACE_OUT=$work/t LD_PRELOAD=$lib mpiexec.mpich -n 2 "$work/ovh" "$iters" >/dev/null
bytes=$(cat "$work"/t.raw/r*.t*.rtr | wc -c)
events=$("$build/retrace" info "$work/t" | awk '$1 == "events" {print $2}')
awk -v b="$bytes" -v e="$events" 'BEGIN {
    printf "trace size: %d raw bytes for %d events = %.2f bytes per event\n", b, e, b / e }'
# Assembly (what rank 0 does at MPI_Finalize): raw files to OTF2, in events per second.
t0=$(date +%s%N)
"$build/retrace" convert "$work/t.raw" "$work/t2"
t1=$(date +%s%N)
awk -v e="$events" -v ns=$((t1 - t0)) 'BEGIN {
    printf "assembly: %d events to OTF2 in %.3f s = %.1f million events per second\n",
        e, ns / 1e9, e / (ns / 1e9) / 1e6 }'
