#!/bin/sh
# mpi.openmpi.wire: the messages Open MPI 4.1 really sends inside collectives against
# retrace's wire level with its default choice on a trace Open MPI recorded (ompi, Open MPI's
# fixed decision rules: docs/analyzer.md). For each rank count, ompi_wire runs once untraced
# under Open MPI's pml monitoring component, which counts every message the PML sends per
# sender and receiver (E lines: user tags, I lines: collectives' internal ones), and once
# under retrace record with one rank per emulated module, so that retrace gateways --level
# wire gives the same counts per pair of ranks as its module x module matrices. Messages and
# bytes must agree for every pair. Exits 77 (skipped) when Open MPI has no monitoring.
# With --force OP=ID:ALG,... both runs force Open MPI's algorithm number ID for OP (coll
# tuned's dynamic rules, through the environment) and the wire level replays retrace's ALG for
# it (replay --coll OP=ALG --out-trace, whose simulated trace holds those messages): the
# algorithms the fixed rules pick only on large communicators.
# usage: ompi_wire.sh RETRACE PROGRAM WORK [--force OP=ID:ALG,...] NP...
set -u
usage="usage: ompi_wire.sh RETRACE PROGRAM WORK [--force OP=ID:ALG,...] NP..."
[ $# -ge 4 ] || { echo "$usage" >&2; exit 2; }
retrace=$1 prog=$2 work=$3
shift 3
coll=
if [ "$1" = --force ]; then
    [ $# -ge 3 ] || { echo "$usage" >&2; exit 2; }
    export OMPI_MCA_coll_tuned_use_dynamic_rules=1
    for f in $(echo "$2" | tr , ' '); do
        op=${f%%=*} rest=${f#*=}
        export "OMPI_MCA_coll_tuned_${op}_algorithm=${rest%%:*}"
        coll="${coll:+$coll,}$op=${rest#*:}"
    done
    shift 2
fi
mpirun="mpirun.openmpi --allow-run-as-root --oversubscribe"
if ! ompi_info --param pml monitoring --level 9 2>/dev/null | grep -q pml_monitoring_enable; then
    echo "skipped: this Open MPI has no pml monitoring component (ompi_info --param pml monitoring)"
    exit 77
fi
rm -rf "$work" && mkdir -p "$work" || exit 2
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# The pairs of ranks with messages from the module x module matrices (CSV: a header row, then
# one row per sending module, one column per receiving one): "FROM TO BYTES MESSAGES".
pairs_of_matrices() { # BYTES.csv MESSAGES.csv
    awk -F, 'FNR == 1 { f++; next }
        { gsub(/"/, "")
          for (i = 2; i <= NF; i++)
              if (f == 1) b[FNR, i] = $i
              else if ($i != 0) print FNR - 2, i - 2, b[FNR, i], $i }' "$1" "$2" |
        sort -n -k1,1 -k2,2
}

for np in "$@"; do
    d=$work/np$np
    mkdir -p "$d"
    # shellcheck disable=SC2086 # mpirun is a list of words
    if ! timeout -k 5 120 $mpirun -n "$np" --mca pml_monitoring_enable 2 \
        --mca pml_monitoring_enable_output 3 --mca pml_monitoring_filename "$d/mon" \
        "$prog" > "$d/plain.out" 2>&1; then
        fail "$np ranks: the monitored run failed: $(head -n 5 "$d/plain.out")"
        continue
    fi
    cat "$d"/mon.*.prof |
        awk '$1 == "E" || $1 == "I" { k = $2 " " $3; b[k] += $4; m[k] += $6 }
             END { for (k in b) if (m[k]) print k, b[k], m[k] }' |
        sort -n -k1,1 -k2,2 > "$d/mpi.pairs"
    # shellcheck disable=SC2086 # mpirun is a list of words
    if ! timeout -k 5 120 "$retrace" record --out "$d/trace" --nodes "$np" --modules "$np" \
        -- $mpirun -n "$np" "$prog" > "$d/record.out" 2>&1; then
        fail "$np ranks: record failed: $(head -n 5 "$d/record.out")"
        continue
    fi
    "$retrace" info "$d/trace" > "$d/info.out" 2>&1
    grep -q "^recorded with Open MPI" "$d/info.out" ||
        fail "$np ranks: the trace does not say Open MPI recorded it: $(head -n 3 "$d/info.out")"
    # with --force the wire messages are those of the simulated run under that choice
    # (replay --out-trace writes collectives as their algorithm's messages)
    wire="$d/trace" level=wire
    if [ -n "$coll" ]; then
        wire="$d/sim" level=call
        "$retrace" replay "$d/trace" --coll "$coll" --out-trace "$wire" > "$d/replay.out" 2>&1 ||
            { fail "$np ranks: replay failed: $(head -n 5 "$d/replay.out")"; continue; }
    fi
    if ! "$retrace" gateways "$wire" --level "$level" --csv "$d/gw.csv" \
        > "$d/gateways.out" 2> "$d/gateways.err"; then
        fail "$np ranks: gateways failed: $(head -n 5 "$d/gateways.err")"
        continue
    fi
    pairs_of_matrices "$d/gw-matrix_bytes.csv" "$d/gw-matrix_messages.csv" > "$d/retrace.pairs"
    [ -s "$d/mpi.pairs" ] || fail "$np ranks: the monitoring counted no messages"
    if ! diff -u "$d/mpi.pairs" "$d/retrace.pairs" > "$d/pairs.diff"; then
        fail "$np ranks: Open MPI's messages (-) and retrace's (+), FROM TO BYTES MESSAGES:"
        cat "$d/pairs.diff"
    else
        echo "$np ranks: $(wc -l < "$d/mpi.pairs") pairs of ranks, $(awk '{ m += $4 } END { print m }' \
            "$d/mpi.pairs") messages, $(awk '{ b += $3 } END { print b }' "$d/mpi.pairs") bytes: the same"
    fi
done
[ "$fails" = 0 ] || { echo "$fails failure(s)"; exit 1; }
