#!/bin/sh
# Tracer overhead: the same 2-rank program (tracer_overhead.c: 0-byte ping-pong, 8-byte
# allreduce loop, 1 KiB Irecv/Isend/Waitall ring) untraced, traced, and in histogram-only mode, interleaved ROUNDS times so
# that machine noise hits every mode alike; reports medians, the added ns per MPI call and
# the ratio, and the raw trace bytes per event of a traced run.
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
echo "tracer overhead: 2 ranks, $iters iterations, median of $rounds interleaved rounds"
echo "$(bench_machine) at the end"
printf '%-22s %10s %10s %10s %8s\n' pattern "untraced" "mode" "added" ratio
for m in $modes; do
    for col in 1 2 3; do
        case $col in
        1) name="pingpong (0 B)" ;;
        2) name="allreduce (8 B)" ;;
        *) name="ring (1 KiB, nb)" ;;
        esac
        b=$(median "$work/plain" $col)
        t=$(median "$work/$m" $col)
        awk -v n="$name" -v m="$m" -v b="$b" -v t="$t" 'BEGIN {
            printf "%-22s %8.1f ns %8.1f ns %+7.1f ns %7.3fx  (%s)\n", n, b, t, t - b, t / b, m }'
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
