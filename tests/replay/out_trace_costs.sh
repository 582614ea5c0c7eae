#!/bin/sh
# The simulated run's trace (--out-trace) shows a call's [calls] cost inside the call: with
# MPI_Isend = 1us (tests/data/calls.conf) every MPI_Isend of examples/halo.csv lasts exactly
# 1000 ns from its enter to its leave in the written trace.
# usage: out_trace_costs.sh RETRACE TESTS_DIR WORK
set -eu
retrace=$1 tests=$2 work=$3
rm -rf "$work" && mkdir -p "$work"
"$retrace" replay "$tests/../examples/halo.csv" --model "$tests/data/calls.conf" \
    --out-trace "$work/sim" > "$work/out"
"$retrace" convert "$work/sim" --to csv "$work/sim.csv"
awk -F, '$3 == "enter" && $4 == "MPI_Isend" { t[$1] = $2 }
    $3 == "leave" && $4 == "MPI_Isend" { n++; if ($2 - t[$1] != 1000) bad++ }
    END { if (n != 24 || bad) { printf "MPI_Isend: %d calls, %d not 1000 ns\n", n, bad; exit 1 } }' \
    "$work/sim.csv"
echo "out_trace_costs: ok"
