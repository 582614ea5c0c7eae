#!/bin/sh
# retrace check against its test suite and on a large trace (docs/check.md, docs/benchmarks.md).
#
# 1. Every faulty and correct program of tests/mpi (faulty.c's modes, hang.c's deadlocks,
#    errors.c's refused calls) is
#    recorded under mpiexec.mpich and checked; per class: the faulty programs flagged with
#    their class, flagged with another class only, missed, and the correct programs flagged.
# 2. Throughput: retrace check on a synthetic OTF2 trace of EVENTS events (bench/synth_trace,
#    as bench/analyzer_throughput.sh), in events per second of wall and of CPU time (user +
#    system), every class and the streaming classes alone, beside retrace info (the reading
#    floor). Median of ROUNDS runs.
# 3. The RMA conflict sweep: a trace of 500000 accumulates with one operation, all overlapping in
#    ten fence epochs (no finding, the most work per transfer), checked for rma-epoch alone and
#    with rma-conflict.
# usage: bench/check.sh [BUILD_DIR] [EVENTS] [ROUNDS]
set -eu
build=$(cd "${1:-build}" && pwd)
events=${2:-10000000}
rounds=${3:-3}
retrace=$build/retrace tracer=$build/tracer/libretrace.so synth=$build/bench/synth_trace
faulty=$build/tests/mpi/mpi_faulty hang=$build/tests/mpi/mpi_hang errors=$build/tests/mpi/mpi_errors
for f in "$retrace" "$tracer" "$synth" "$faulty" "$hang" "$errors"; do
    [ -e "$f" ] || { echo "check.sh: $f not found (build first)" >&2; exit 2; }
done
command -v mpiexec.mpich > /dev/null || { echo "check.sh: needs mpiexec.mpich" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "check.sh: needs GNU time (apt-get install time)" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cpu=$(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -n 1)

# --- 1. the suite -------------------------------------------------------------------------------
# PROGRAM MODE RANKS EXPECTED-CLASS ('-': a correct program)
suite='faulty buf_sendsend 2 buffering
faulty buf_ring 3 buffering
faulty buf_isend 2 buffering
faulty ok_sendrecv 2 -
faulty ok_bsend 2 -
faulty coll_root 2 collective
faulty coll_count 2 collective
faulty coll_missing 2 collective
faulty ok_coll 2 -
faulty req_isend 2 request
faulty req_irecv 2 request
faulty req_both 2 request
faulty ok_free 2 -
faulty ok_rma 2 -
faulty rma_putput 2 rma-conflict
faulty rma_putget 2 rma-conflict
faulty rma_accops 2 rma-conflict
faulty rma_lockput 2 rma-conflict
faulty rma_pscw 3 rma-conflict
faulty ok_rma_conf 2 -
faulty ok_rma_pscw 3 -
faulty as_noprecede 2 rma-epoch
faulty as_mixed 2 rma-epoch
faulty as_noput 2 rma-epoch
faulty as_post_noput 2 rma-epoch
faulty as_nocheck 2 rma-epoch
faulty dyn_outside 2 rma-epoch
faulty dyn_past 2 rma-epoch
faulty dyn_detach 2 rma-epoch
faulty ok_dyn 2 -
faulty ok_assert 2 -
faulty leak_win 2 leak
faulty leak_alloc 2 leak
faulty leak_dyn 2 leak
faulty ok_leak 2 -
faulty leak_dup 2 leak
faulty leak_split 2 leak
faulty leak_cart 2 leak
faulty ok_leak_comm 2 -
faulty req_free_pbarrier 2 request
faulty req_free_pallreduce 2 request
faulty req_free_pbcast 2 request
faulty ok_free_pcoll 2 -
faulty race_tag 3 race
faulty race_any 3 race
faulty race_irecv 3 race
faulty ok_race_tag 3 -
faulty ok_race_order 3 -
errors rank 2 invalid-param
errors count 2 invalid-param
errors root 2 invalid-param
errors ok 2 -
hang cycle 2 deadlock
hang cycle3 3 deadlock
hang sendsend 2 deadlock
hang wait_irecv 2 deadlock
hang bcast_barrier 2 deadlock'
echo "retrace check on its test programs ($cpu, load average $(cut -d' ' -f1-3 /proc/loadavg))"
echo "$suite" | while read -r prog mode np want; do
    t=$work/$prog-$mode
    bin=$faulty
    limit=
    if [ "$prog" = hang ]; then
        bin=$hang limit="--timeout 2"
    elif [ "$prog" = errors ]; then
        bin=$errors
    fi
    # shellcheck disable=SC2086 # limit is a list of words
    "$retrace" record --tracer "$tracer" --out "$t" $limit -- mpiexec.mpich -n "$np" "$bin" "$mode" \
        > /dev/null 2>&1 < /dev/null || true
    "$retrace" check "$t" 2> /dev/null | sed -n 's/^\(error\|warning\) \([a-z-]*\):.*/\2/p' |
        sort -u > "$t.classes" || true
    printf '%s %s %s\n' "$want" "$prog:$mode" "$(tr '\n' ' ' < "$t.classes")"
done > "$work/results"
printf '%-13s %8s %14s %7s %16s\n' class faulty "right class" missed "correct flagged"
for class in deadlock buffering collective request leak rma-epoch rma-conflict race invalid-param; do
    awk -v c="$class" '
        $1 == c { n++; right = 0; any = NF > 2
                  for (i = 3; i <= NF; i++) if ($i == c) right = 1
                  if (right) r++; else if (!any) m++; else o++ }
        $1 == "-" { for (i = 3; i <= NF; i++) if ($i == c) fp++ }
        END { printf "%-13s %8d %14d %7d %16d\n", c, n, r, m, fp + 0
              if (o) printf "%-13s %d flagged with another class only\n", "", o }' "$work/results"
done
awk '$1 == "-" && NF > 2 { print "correct program flagged: " $2 ": " $3 }' "$work/results"

# timed N TRACE SPEC...: the median of ROUNDS runs of retrace SPEC TRACE, N events in it.
timed() {
    n=$1 trace=$2
    shift 2
    : > "$work/runs"
    i=0
    while [ $i -lt "$rounds" ]; do
        /usr/bin/time -f '%e %U %S %M' -o "$work/time" "$retrace" "$@" "$trace" > /dev/null || true
        cat "$work/time" >> "$work/runs"
        i=$((i + 1))
    done
    sort -n "$work/runs" | awk -v n="$n" -v spec="$*" '
        { w[NR] = $1; c[NR] = $2 + $3; r[NR] = $4 }
        END { k = int((NR + 1) / 2); if (w[k] <= 0) w[k] = 0.01; if (c[k] <= 0) c[k] = 0.01
              printf "%-56s %8.2f %8.2f %12.1f %12.1f %6.0f MiB\n", spec, w[k], c[k],
                     n / w[k] / 1e6, n / c[k] / 1e6, r[NR] / 1024 }'
}
header() {
    printf '%-56s %8s %8s %12s %12s %10s\n' command "wall s" "cpu s" "M ev/s wall" "M ev/s cpu" \
        "peak RSS"
}

# --- 2. throughput ---------------------------------------------------------------------------------
big=$work/big
"$synth" "$big" "$events" > "$work/big.txt"
n=$(awk '{print $1}' "$work/big.txt")
echo
echo "throughput: $(cat "$work/big.txt") (otf2, $(du -sh "$big" | cut -f1)), median of $rounds runs"
header
timed "$n" "$big" info
timed "$n" "$big" check
timed "$n" "$big" check --class collective,request,rma-epoch,rma-conflict

# --- 3. the RMA conflict sweep ---------------------------------------------------------------------
# Two ranks, each 250000 MPI_Accumulate (sum, 8 bytes) to rank 1, displacements cycling over
# 4 KiB, a fence every 50000: every transfer overlaps hundreds of others, none conflicts.
awk 'BEGIN { print "# retrace trace (CSV form, version 1)"; print "ranks,2"; print "win,0,0"
    for (r = 0; r < 2; r++) {
        t = 100
        call(r, "Win_create", "win_create,0,,,,,,,")
        for (i = 0; i < 250000; i++) {
            if (i % 50000 == 0)
                call(r, "Win_fence", "rma_coll_end,0,,,,,,,barrier")
            call(r, "Accumulate", "atomic,0,1,,8,0,shm," i + 1 ",accumulate",
                 "rma_target,0,1,," (i * 8) % 4096 ",,,,sum")
        }
        call(r, "Win_fence", "rma_coll_end,0,,,,,,,barrier")
    } }
    function call(r, fn, a, b) {
        printf "%d,%d,enter,MPI_%s,,,,,,,,\n", r, t, fn
        printf "%d,%d,%s,MPI_%s,%s\n", r, t + 1, substr(a, 1, index(a, ",") - 1), fn,
            substr(a, index(a, ",") + 1)
        if (b != "")
            printf "%d,%d,%s,MPI_%s,%s\n", r, t + 1, substr(b, 1, index(b, ",") - 1), fn,
                substr(b, index(b, ",") + 1)
        printf "%d,%d,leave,MPI_%s,,,,,,,,\n", r, t + 2, fn
        t += 10
    }' > "$work/rma.csv"
"$retrace" convert "$work/rma.csv" "$work/rma" > /dev/null
n=$(grep -c "^[0-9]" "$work/rma.csv")
echo
echo "RMA conflict sweep: 500000 overlapping accumulates, $n events (otf2), median of $rounds runs"
header
timed "$n" "$work/rma" check --class rma-epoch
timed "$n" "$work/rma" check --class rma-epoch,rma-conflict
