#!/bin/sh
# Replay fidelity on real applications (issue 21): does the replay of a recorded run, with the
# model `retrace calibrate --from` fits to that same trace, reproduce the run?
#
# usage: bench/fidelity_apps.sh BUILD [RECORDS]
#
# For each application of tests/apps (LAMMPS's Lennard-Jones melt and EAM copper on 4 ranks,
# HPCC on 2; Debian builds them with Open MPI), RECORDS (default 3) runs under `retrace record`;
# the fastest recording is kept (the least disturbed by other processes: a disturbance is
# recorded as computation and replayed). Its model comes from `retrace calibrate --from` on it
# (no MPI run); `retrace replay` then replays the recorded configuration (the ranks' recorded
# hosts: ranks that shared CPUs take turns) with that model and with the built-in defaults.
# Prints per application: events, the recorded run time (first event to last, as replay
# reports it), each prediction and its error, and the worst rank's time in MPI against the
# recording's (retrace profile). Goals: run time within 10%, each rank's MPI time within 20%.
# Names the CPU, the clock source and the load average, since figures on a shared VM move by
# tens of percent.
# Environment: MPIRUN (default "mpirun.openmpi --allow-run-as-root --oversubscribe").
set -eu
[ $# -ge 1 ] || { echo "usage: bench/fidelity_apps.sh BUILD [RECORDS]" >&2; exit 2; }
build=$(cd "$1" && pwd)
records=${2:-3}
case $records in '' | *[!0-9]* | 0) echo "bench/fidelity_apps.sh: RECORDS must be a positive number" >&2; exit 2 ;; esac
src=$(cd "$(dirname "$0")/.." && pwd)
retrace=$build/retrace
mpirun=${MPIRUN:-mpirun.openmpi --allow-run-as-root --oversubscribe}
for p in lmp hpcc mpirun.openmpi; do
    command -v "$p" > /dev/null || { echo "bench/fidelity_apps.sh: $p not found (Debian: lammps, hpcc, openmpi-bin)" >&2; exit 1; }
done
[ -x "$retrace" ] || { echo "bench/fidelity_apps.sh: $retrace not found (build first)" >&2; exit 2; }
. "$(dirname "$0")/machine.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

echo "cpu:          $(bench_cpu)"
echo "clock source: $(bench_clock)"
echo "load average: $(bench_load) (before)"
echo "records:      $records per application, the fastest kept"
echo

# The run time replay prints on its line "LABEL run time  VALUE UNIT", in microseconds.
run_time_us() { # LABEL FILE
    awk -v l="$1" '$1 == l && $2 == "run" && $3 == "time" {
        v = $4; u = $5
        f = u == "ns" ? 1e-3 : u == "us" ? 1 : u == "ms" ? 1e3 : u == "s" ? 1e6 : -1
        if (f > 0) printf "%.3f\n", v * f
    }' "$2"
}

# Per rank, the time in MPI: recorded (profile's "Time per rank") and replayed (replay --csv's
# FILE: the per-rank table when nothing is compared), as "rank us" lines.
recorded_mpi() {
    "$retrace" profile "$1" | awk '/^Time per rank/ { on = 1; next } on && /^rank/ { next }
        on && NF == 0 { exit } on { print $1, $3 }'
}
replayed_mpi() {
    awk -F, 'NR > 1 { gsub(/"/, ""); print $1, $3 }' "$1"
}

printf '%-13s %5s %8s %12s %12s %8s %12s %8s %10s\n' app ranks events recorded_us from_us error \
    default_us error worst_mpi
fidelity() { # NAME NP PROG ARGS...
    name=$1 np=$2
    shift 2
    d=$work/$name
    mkdir -p "$d"
    cp "$src/tests/apps/hpccinf.txt" "$src/tests/apps/in.melt" "$src/tests/apps/in.eam" "$d/"
    best=
    i=0
    while [ "$i" -lt "$records" ]; do
        rm -rf "$d/t.$i"
        # shellcheck disable=SC2086 # mpirun is a list of words
        (cd "$d" && "$retrace" record --out "t.$i" -- $mpirun -n "$np" "$@" > rec.out 2>&1) ||
            { echo "bench/fidelity_apps.sh: $name: the traced run failed" >&2; cat "$d/rec.out" >&2; exit 1; }
        "$retrace" replay "$d/t.$i" > "$d/r.$i" 2> /dev/null
        t=$(run_time_us recorded "$d/r.$i")
        if [ -z "$best" ] || awk -v a="$t" -v b="$best" 'BEGIN { exit !(a < b) }'; then
            best=$t
            keep=$i
        fi
        i=$((i + 1))
    done
    trace=$d/t.$keep
    "$retrace" calibrate --from "$trace" --out "$d/from.conf" > /dev/null 2> "$d/from.err" ||
        { echo "bench/fidelity_apps.sh: $name: calibrate --from failed" >&2; cat "$d/from.err" >&2; exit 1; }
    "$retrace" replay "$trace" --model "$d/from.conf" --csv "$d/from.csv" > "$d/from.out" 2> /dev/null
    "$retrace" replay "$trace" > "$d/default.out" 2> /dev/null
    events=$("$retrace" info "$trace" | sed -n 's/^events  *//p')
    rec=$(run_time_us recorded "$d/from.out")
    from=$(run_time_us predicted "$d/from.out")
    def=$(run_time_us predicted "$d/default.out")
    recorded_mpi "$trace" | sort -n > "$d/mpi.rec"
    replayed_mpi "$d/from.csv" | sort -n > "$d/mpi.from"
    worst=$(join "$d/mpi.rec" "$d/mpi.from" | awk '{
        e = $2 > 0 ? ($3 - $2) / $2 : 0
        if (e < 0 ? -e > w : e > w) { w = e < 0 ? -e : e; s = e }
    } END { printf "%+.1f%%\n", 100 * s }')
    awk -v n="$name" -v p="$np" -v ev="$events" -v r="$rec" -v f="$from" -v d="$def" -v w="$worst" 'BEGIN {
        printf "%-13s %5d %8d %12.1f %12.1f %+7.1f%% %12.1f %+7.1f%% %10s\n", n, p, ev, r, f,
            100 * (f - r) / r, d, 100 * (d - r) / r, w
    }'
}
fidelity lammps-melt 4 lmp -in in.melt -log none -echo none
fidelity lammps-eam 4 lmp -in in.eam -log none -echo none
fidelity hpcc 2 hpcc
echo
echo "load average: $(bench_load) (after)"
echo "goals: run time within 10% (from), each rank's MPI time within 20% (worst_mpi)"
