#!/bin/sh
# Real applications from Debian's archive (lammps, hpcc; built against Open MPI) under
# 'retrace record': what each trace holds and what tracing costs.
#
# usage: bench/apps.sh BUILD [ROUNDS]
#
# For each application (the inputs of tests/apps: LAMMPS's Lennard-Jones melt and EAM copper
# on 4 ranks, HPCC on 2), ROUNDS (default 5) interleaved pairs of runs, plain then traced,
# each timed wall clock from launch to exit (mpirun's start-up included, as a user sees it);
# prints the median of each, the ratio, and, from the last traced run's trace: events, trace
# bytes on disk and per event, messages, the five MPI functions with most time and the
# message-size histogram's non-empty bins. Names the CPU, the clock source and the load
# average, since figures on a shared VM move by tens of percent.
# Environment: MPIRUN (default "mpirun.openmpi --allow-run-as-root --oversubscribe").
set -eu
[ $# -ge 1 ] || { echo "usage: bench/apps.sh BUILD [ROUNDS]" >&2; exit 2; }
build=$(cd "$1" && pwd)
rounds=${2:-5}
case $rounds in '' | *[!0-9]*) echo "bench/apps.sh: ROUNDS must be a number" >&2; exit 2 ;; esac
src=$(cd "$(dirname "$0")/.." && pwd)
retrace=$build/retrace
mpirun=${MPIRUN:-mpirun.openmpi --allow-run-as-root --oversubscribe}
for p in lmp hpcc mpirun.openmpi; do
    command -v "$p" > /dev/null || { echo "bench/apps.sh: $p not found (Debian: lammps, hpcc, openmpi-bin)" >&2; exit 1; }
done
. "$(dirname "$0")/machine.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

echo "cpu:          $(bench_cpu)"
echo "clock source: $(bench_clock)"
echo "load average: $(bench_load) (before)"
echo "rounds:       $rounds interleaved plain/traced pairs, wall time, median"
echo

now_ns() { date +%s%N; }
median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

run_app() { # NAME NP PROG ARGS...
    name=$1 np=$2
    shift 2
    d=$work/$name
    mkdir -p "$d"
    cp "$src/tests/apps/hpccinf.txt" "$d/"
    : > "$d/plain.ns"
    : > "$d/traced.ns"
    i=0
    while [ "$i" -lt "$rounds" ]; do
        t0=$(now_ns)
        # shellcheck disable=SC2086 # mpirun is a list of words
        (cd "$d" && $mpirun -n "$np" "$@" > plain.out 2>&1) ||
            { echo "bench/apps.sh: $name: the plain run failed" >&2; exit 1; }
        t1=$(now_ns)
        rm -rf "$d/trace"
        # shellcheck disable=SC2086
        (cd "$d" && "$retrace" record --out trace -- $mpirun -n "$np" "$@" > traced.out 2>&1) ||
            { echo "bench/apps.sh: $name: the traced run failed" >&2; exit 1; }
        t2=$(now_ns)
        echo $((t1 - t0)) >> "$d/plain.ns"
        echo $((t2 - t1)) >> "$d/traced.ns"
        i=$((i + 1))
    done
    plain=$(median < "$d/plain.ns")
    traced=$(median < "$d/traced.ns")
    "$retrace" info "$d/trace" > "$d/info.txt"
    events=$(sed -n 's/^events  *//p' "$d/info.txt")
    messages=$(sed -n 's/^messages  *//p' "$d/info.txt")
    bytes=$(du -sb "$d/trace" | cut -f 1)
    echo "## $name ($np ranks)"
    awk -v p="$plain" -v t="$traced" -v e="$events" -v b="$bytes" -v m="$messages" 'BEGIN {
        printf "wall time     plain %.3f s, traced %.3f s (%.2fx, %+.3f s)\n", p / 1e9, t / 1e9, t / p, (t - p) / 1e9
        printf "trace         %d events, %d messages, %d bytes on disk (%.1f bytes per event)\n", e, m, b, b / e
    }'
    echo "top MPI functions by time (all ranks): function calls time_us"
    "$retrace" profile "$d/trace" |
        awk '/^Time in MPI per function/ { on = 1; next } on && /^function/ { next }
             on && NF == 0 { exit } on && n < 5 { printf "  %s %s %s\n", $1, $2, $3; n++ }'
    echo "message sizes (retrace hist, non-empty bins): bin count"
    "$retrace" hist "$d/trace" | awk 'NR > 1 && $2 > 0 { printf "  %s %s\n", $1, $2 }'
    echo
}

run_app lammps-melt 4 lmp -in "$src/tests/apps/in.melt" -log none
run_app lammps-eam 4 lmp -in "$src/tests/apps/in.eam" -log none
run_app hpcc 2 hpcc
echo "load average: $(bench_load) (after)"
