#!/bin/sh
# Where the tracer's time goes: tracer_overhead.c (2 ranks: ping-pong, allreduce, ring) run
# untraced, traced whole, and traced with one part of the call path switched off at a time
# (RETRACE_COST_OFF of libretrace-cost.so, built with -DRETRACE_TRACER_COST=ON; tracer/cost.c),
# interleaved ROUNDS times; each part's cost is the median of the whole minus the median
# without it, the dispatch the median with all five off minus the untraced one. "write" is
# the kernel's part of the buffer: the full buffer's write to the raw file (the "buffer"
# column is the copy and publication without it).
# usage: bench/tracer_components.sh [BUILD_DIR] [ITERATIONS] [ROUNDS]
set -eu
build=$(cd "${1:-build}" && pwd)
iters=${2:-200000}
rounds=${3:-7}
here=$(cd "$(dirname "$0")" && pwd)
. "$here/machine.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
lib=$build/tracer/libretrace-cost.so
[ -f "$lib" ] || {
    echo "tracer_components: $lib not found (cmake -DRETRACE_TRACER_COST=ON, then build)" >&2
    exit 2
}
mpicc.mpich -O2 -o "$work/ovh" "$here/tracer_overhead.c"
modes="plain whole clock requests buffer encode write all"

run() { # MODE -> appends "pingpong allreduce ring" (ns per call) to $work/MODE
    rm -rf "$work/t" "$work/t.raw"
    case $1 in
    plain) mpiexec.mpich -n 2 "$work/ovh" "$iters" ;;
    whole) RETRACE_OUT=$work/t LD_PRELOAD=$lib mpiexec.mpich -n 2 "$work/ovh" "$iters" ;;
    *) RETRACE_COST_OFF=$1 RETRACE_OUT=$work/t LD_PRELOAD=$lib \
           mpiexec.mpich -n 2 "$work/ovh" "$iters" ;;
    esac | awk '/^pingpong/ {p=$2} /^allreduce/ {a=$2} /^ring/ {r=$2} END {print p, a, r}' \
        >> "$work/$1"
}
i=0
while [ $i -lt "$rounds" ]; do
    for m in $modes; do run "$m"; done
    i=$((i + 1))
done
median() { # MODE COLUMN
    sort -n -k"$2" "$work/$1" | awk -v c="$2" '{v[NR]=$c} END {print v[int((NR+1)/2)]}'
}
echo "tracer components: 2 ranks, $iters iterations, median of $rounds interleaved rounds"
echo "$(bench_machine) at the end"
echo "ns per call; each part: whole minus without it (encode: without the buffer, minus"
echo "without both; buffer: without the write, minus without the buffer); dispatch: all five"
echo "off minus untraced; rest: what the parts leave"
printf '%-18s %9s %9s %9s %9s %9s %9s %9s %9s %9s\n' pattern untraced whole clock requests \
    encode buffer write dispatch rest
for col in 1 2 3; do
    case $col in
    1) name="pingpong (0 B)" ;;
    2) name="allreduce (8 B)" ;;
    *) name="ring (1 KiB, nb)" ;;
    esac
    set --
    for m in $modes; do set -- "$@" "$(median "$m" $col)"; done
    awk -v n="$name" -v p="$1" -v w="$2" -v c="$3" -v q="$4" -v b="$5" -v e="$6" -v r="$7" \
        -v a="$8" '
        BEGIN {
            clk = w - c; req = w - q; wr = w - r; buf = (w - b) - wr; enc = b - e; disp = a - p
            printf "%-18s %9.1f %+9.1f %+9.1f %+9.1f %+9.1f %+9.1f %+9.1f %+9.1f %+9.1f\n", n, p,
                w - p, clk, req, enc, buf, wr, disp, (w - p) - clk - req - enc - buf - wr - disp }'
done
