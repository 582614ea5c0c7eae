#!/bin/sh
# sim.fast_same: the collective fast path (replayer/sim/sim_fast.c) changes no result. Every
# replay below runs twice:
#  - with --check-fast, retrace replays each configuration a second time without the
#    fast path and fails unless completion, total, per-rank end, MPI and compute times (in
#    picoseconds), critical rank, message, byte and gateway counts, report and notes are
#    the same;
#  - with --no-fast (no fast path at all): its whole output, stdout, stderr
#    and exit status, must equal the first run's byte for byte.
# Traces: synthetic ones of several sizes (bench/synth_trace: halo exchange and allreduce;
# gen_colls.sh: every collective family at eager and rendezvous sizes, a sub-communicator,
# a nonblocking allreduce, rendezvous sends in flight across an allreduce), the test data
# and the example. Options: every algorithm (--coll all=ALG), eager thresholds, a LogGP
# model with a gap, machine shapes (shm, net and gateway mixes), contention, wildcards, CPU
# costs of calls ([calls]) and a scaled computation.
# At the end it checks that the fast path took part (a count of its collectives).
# usage: fast_same.sh RETRACE SYNTH_TRACE SOURCE_DIR WORK_DIR
set -u
retrace=$1 synth=$2 src=$3 work=$4
rm -rf "$work" && mkdir -p "$work" || exit 2

cat > "$work/gap.conf" << 'EOF'
# LogGP injection with a gap and no overhead on shm; small eager limits
injection = bytes
reduce_bandwidth = 2GB/s
[shm]
overhead = 0ns
gap = 200ns
eager = 4096
[net]
gap = 1us
eager = 16KiB
[gw]
gap = 2us
EOF
cat > "$work/calls.conf" << 'EOF'
# CPU costs of calls (charged at call entry) and LogGP injection
injection = bytes
[calls]
MPI_Isend = 300ns + n / 10GB/s
MPI_Irecv = 50ns
MPI_Allreduce = 250ns + n / 5GB/s
MPI_Barrier = 500ns
MPI_Alltoall = 400ns + n / 8GB/s
MPI_Allgather = 300ns
EOF

algs="mpich linear binomial scatter_ring scatter_rdb reduce_bcast recursive_doubling ring
rabenseifner bruck gather_bcast direct pairwise recursive_halving dissemination msa msa2"
# the options of one replay, one set a line ("-" for none)
full_opts() {
    echo -
    for a in $algs; do echo "--coll all=$a"; done
    echo "--eager 0"
    echo "--eager 1M"
    echo "--model $work/gap.conf"
    echo "--model $work/gap.conf --coll all=ring --modules 2"
    echo "--ranks-per-node 1"
    echo "--nodes 1"
    echo "--modules 3"
    echo "--coll all=recursive_doubling --ranks-per-node 2 --modules 2"
    echo "--coll allreduce=rabenseifner,alltoall=pairwise --eager 8K"
    echo "--contention on"
    echo "--free-wildcards"
    echo "--model $work/calls.conf"
    echo "--model $work/calls.conf --compute-scale 0.5 --modules 2"
}
short_opts() {
    echo -
    echo "--coll all=ring"
    echo "--coll all=msa"
    echo "--eager 1M --modules 3"
    echo "--model $work/gap.conf"
    echo "--ranks-per-node 1"
}

n=0 failed=0
: > "$work/fast"
check() { # TRACE OPTIONS: one configuration both ways
    t=$1
    shift
    [ "$1" = - ] && shift
    n=$((n + 1))
    "$retrace" replay --check-fast "$t" "$@" --timing > "$work/a.out" 2> "$work/a.err"
    echo "status $?" >> "$work/a.out"
    "$retrace" replay --no-fast "$t" "$@" --timing > "$work/b.out" 2> "$work/b.err"
    echo "status $?" >> "$work/b.out"
    sed -n "s/.* \([0-9][0-9]*\) fast collectives.*/\1/p" "$work/a.err" >> "$work/fast"
    # the timing lines differ (seconds, engine events, fast collectives)
    for f in a b; do grep -v '^retrace: timing: ' "$work/$f.err" > "$work/$f.err2"; done
    if grep -q 'fast path check' "$work/a.err" || ! cmp -s "$work/a.out" "$work/b.out" ||
        ! cmp -s "$work/a.err2" "$work/b.err2"; then
        echo "FAIL: $t $*"
        grep 'fast path check' "$work/a.err"
        diff "$work/a.out" "$work/b.out" | head -20
        failed=$((failed + 1))
    fi
}
run_all() { # TRACE full|short
    "${2}_opts" > "$work/opts"
    while read -r o; do
        # shellcheck disable=SC2086
        check "$1" $o
    done < "$work/opts"
}

# synthetic halo + allreduce (64 B .. 1 MiB messages: eager and rendezvous)
for shape in 2:1:1 3:3:1 5:5:1 7:4:2 8:8:2 13:7:3 16:4:2 31:31:1 64:16:4 100:25:5; do
    IFS=: read -r p nodes modules << EOF
$shape
EOF
    "$synth" "$work/s$p.csv" $((p * 22 * 16)) "$p" "$nodes" "$modules" > /dev/null || exit 2
    run_all "$work/s$p.csv" full
done
for shape in 257:64:4 1000:100:4; do
    IFS=: read -r p nodes modules << EOF
$shape
EOF
    "$synth" "$work/s$p.csv" $((p * 22 * 6)) "$p" "$nodes" "$modules" > /dev/null || exit 2
    run_all "$work/s$p.csv" short
done
# every collective family
for shape in 2:1:1:0 3:3:1:1 6:3:2:0 6:3:2:1 7:7:1:0 13:5:2:1 16:4:2:0 33:8:3:1 64:16:4:0; do
    IFS=: read -r p nodes modules overlap << EOF
$shape
EOF
    sh "$src/tests/sim/gen_colls.sh" "$p" "$nodes" "$modules" 6 "$overlap" > "$work/c$p.csv"
    run_all "$work/c$p.csv" full
done
# the test data (deadlocks, mismatches and errors included) and the example
for t in "$src"/tests/data/*.csv "$src"/tests/data/ti/*.csv "$src"/examples/halo.csv; do
    run_all "$t" short
done

fast=$(awk '{ s += $1 } END { print s + 0 }' "$work/fast")
echo "$n configurations replayed both ways, $failed differ; $fast collectives on the fast path"
[ "$failed" = 0 ] || exit 1
[ "$fast" -gt 1000 ] || { echo "FAIL: the fast path took too little part"; exit 1; }
exit 0
