#!/bin/sh
# retrace replay --engine mpi on tests/data/coll3.csv (3 ranks) under Open MPI's mpirun:
# retrace runs its sibling retrace-openmpi there, whose report counts the calls "by Open
# MPI's choice" (tests/mpi/replay_mpi.sh is the same under MPICH).
#
# usage: replay_openmpi.sh RETRACE TRACE WORKDIR
# Expected, worked out by hand (5 collective calls per rank, 3 ranks, 3 messages of 100 bytes):
#   recorded            15 calls by Open MPI's own choice
#   allgather=recursive_doubling  Open MPI would run Bruck's on 3 ranks (not a power of two):
#                       the 6 allgather calls run retrace's schedule, the other 9 Open MPI's
#   allreduce=recursive_doubling  forced (coll_tuned_allreduce_algorithm): 6 calls
#   allreduce=ring      MPICH's ring, which Open MPI does not have (its ring cuts and orders the
#                       blocks otherwise): not forced, the 6 calls run retrace's schedule
#   allreduce=ompi_ring Open MPI's ring, forced, but Open MPI runs recursive doubling for 2
#                       elements on 3 ranks: the 6 calls run retrace's schedule, with a note
#   bcast=linear        MPICH's linear bcast, not Open MPI's basic_linear: not forced, 3
#                       calls on retrace's schedule
#   bcast=ompi_linear   Open MPI's basic_linear, forced: 3 calls
#   map:cyclic          one node here: the same placement, 15 calls by Open MPI's choice
# That forcing takes effect is seen in the messages Open MPI's pml monitoring counts: a ring
# allgather sends each block to the next rank, Bruck's one to each other rank.
set -u
retrace=$1 trace=$2 w=$3
rm -rf "$w" && mkdir -p "$w" || exit 2
t=${RUN_TIMEOUT:-30}
# as root (CI) on 2 cores: docs/replay.md, "Real MPI"
ompirun="mpirun.openmpi --allow-run-as-root --oversubscribe"
failed=0
fail() { echo "FAIL: $*"; failed=1; }

# shellcheck disable=SC2086 # $ompirun is a command and its options
timeout -k 5 "$t" $ompirun -n 3 "$retrace" replay --engine mpi "$trace" \
    --compare coll:allgather=recursive_doubling --compare coll:allreduce=recursive_doubling \
    --compare coll:allreduce=ring --compare coll:allreduce=ompi_ring --compare coll:bcast=linear \
    --compare coll:bcast=ompi_linear --compare map:cyclic \
    --csv "$w/cmp.csv" \
    > "$w/cmp.out" 2> "$w/cmp.err" || fail "the compare run exited $?"
head -1 "$w/cmp.csv" | tr -d '"' > "$w/cmp.head"
echo "configuration,measured_us,predicted_us,error_pct,mpi_us_per_rank,messages,bytes,speedup,colls_openmpi,colls_forced,colls_schedule" |
    cmp -s - "$w/cmp.head" || fail "the compare table's columns: $(cat "$w/cmp.head")"
awk -F, 'NR > 1 { gsub(/"/, ""); print $1, $6, $7, $9, $10, $11 }' "$w/cmp.csv" > "$w/cmp.got"
cat > "$w/cmp.want" <<'TXT'
recorded 3 300 15 0 0
coll:allgather=recursive_doubling 3 300 9 0 6
coll:allreduce=recursive_doubling 3 300 9 6 0
coll:allreduce=ring 3 300 9 0 6
coll:allreduce=ompi_ring 3 300 9 0 6
coll:bcast=linear 3 300 12 0 3
coll:bcast=ompi_linear 3 300 12 3 0
map:cyclic 3 300 15 0 0
TXT
diff -u "$w/cmp.want" "$w/cmp.got" || fail "the compare table's counts"
cat > "$w/cmp.err.want" <<'TXT'
retrace: note for coll:allgather=recursive_doubling: Open MPI would not run the chosen algorithm for 6 calls (it does not apply to them); they ran retrace's schedule of it
retrace: note for coll:allreduce=ompi_ring: Open MPI would not run the chosen algorithm for 6 calls (it does not apply to them); they ran retrace's schedule of it
TXT
diff -u "$w/cmp.err.want" "$w/cmp.err" || fail "the compare run's notes"

# Forcing takes effect: per pair of ranks, the messages Open MPI's pml monitoring counts
# (collectives' own included) under allgather=ring less those under allgather=bruck, both
# forced, over 3 runs: +9 to the next rank and -9 to the previous one. Per run 3 allgathers
# change: the 2 replayed and the one in MPI_Comm_split on the run's communicator (Open MPI's
# own, forced as well); without forcing, retrace's ring schedule would change only 2.
monitored() { # ALG: "FROM TO MSGS" per pair, in $w/mon_ALG
    # shellcheck disable=SC2086 # $ompirun is a command and its options
    timeout -k 5 "$t" $ompirun -n 3 --mca pml_monitoring_enable 1 \
        --mca pml_monitoring_enable_output 3 --mca pml_monitoring_filename "$w/mon_$1" \
        "$retrace" replay --engine mpi "$trace" --coll "allgather=$1" --repeat 3 \
        > "$w/mon_$1.out" 2> "$w/mon_$1.err" || fail "the monitored $1 run exited $?"
    grep -qx "collective calls    9 by Open MPI's choice (0 of them nonblocking), 6 with Open MPI's algorithm forced, 0 as retrace's schedule, 0 left out" "$w/mon_$1.out" ||
        fail "$1: $(grep '^collective calls' "$w/mon_$1.out")"
    cat "$w/mon_$1".*.prof | awk -F '\t' '$1 == "E" { sub(/ msgs sent/, "", $5); print $2, $3, $5 }' |
        sort > "$w/mon_$1.pairs"
}
monitored ring
monitored bruck
awk 'NR == FNR { n[$1 " " $2] = $3; next } { print $1, $2, n[$1 " " $2] - $3 }' \
    "$w/mon_ring.pairs" "$w/mon_bruck.pairs" > "$w/mon.diff"
cat > "$w/mon.want" <<'TXT'
0 1 9
0 2 -9
1 0 -9
1 2 9
2 0 9
2 1 -9
TXT
diff -u "$w/mon.want" "$w/mon.diff" || fail "ring less bruck messages per pair"

# The user's coll_tuned_use_dynamic_rules=0 stays: nothing is forced, retrace's schedule runs.
# shellcheck disable=SC2086 # $ompirun is a command and its options
OMPI_MCA_coll_tuned_use_dynamic_rules=0 timeout -k 5 "$t" $ompirun -n 3 "$retrace" replay \
    --engine mpi "$trace" --coll allgather=ring > "$w/off.out" 2> "$w/off.err" ||
    fail "the run without dynamic rules exited $?"
grep -qx "collective calls    9 by Open MPI's choice (0 of them nonblocking), 0 with Open MPI's algorithm forced, 6 as retrace's schedule, 0 left out" "$w/off.out" ||
    fail "without dynamic rules: $(grep '^collective calls' "$w/off.out")"

# One configuration: the summary, with Open MPI named where MPICH's says MPICH.
# shellcheck disable=SC2086 # $ompirun is a command and its options
timeout -k 5 "$t" $ompirun -n 3 "$retrace" replay --engine mpi "$trace" > "$w/one.out" \
    2> "$w/one.err" || fail "the single run exited $?"
grep -qx 'messages            3 (300 bytes); the trace has 3 (300 bytes)' "$w/one.out" ||
    fail "messages line: $(grep '^messages' "$w/one.out")"
grep -qx "collective calls    15 by Open MPI's choice (0 of them nonblocking), 0 with Open MPI's algorithm forced, 0 as retrace's schedule, 0 left out" "$w/one.out" ||
    fail "collective calls line: $(grep '^collective calls' "$w/one.out")"
grep -qx 'machine             3 processes on 1 node, 1 module; map recorded' "$w/one.out" ||
    fail "machine line: $(grep '^machine' "$w/one.out")"
[ "$(grep -c '^ *[0-2]  ' "$w/one.out")" = 3 ] || fail "not 3 rows of per-rank times"

# Bad use: rank 0 says it, status 2 (mpirun's own report of the failed job comes before or
# after the line: the order of forwarded output varies).
# shellcheck disable=SC2086 # $ompirun is a command and its options
timeout -k 5 "$t" $ompirun -n 2 "$retrace" replay --engine mpi "$trace" > "$w/bad.out" \
    2> "$w/bad.err"
st=$?
[ "$st" = 2 ] || fail "2 processes: exit status $st, expected 2"
[ "$(grep '^retrace' "$w/bad.err")" = "retrace: $trace has 3 ranks but 2 processes replay it (mpiexec -n 3)" ] ||
    fail "2 processes: stderr '$(cat "$w/bad.err")'"

# retrace without retrace-openmpi beside it: one line, status 1.
# retrace and retrace-mpich (which runs replay --engine mpi for it), without retrace-openmpi
mkdir "$w/alone" && cp "$retrace" "$(dirname "$retrace")/retrace-mpich" "$w/alone/" || exit 2
# shellcheck disable=SC2086 # $ompirun is a command and its options
timeout -k 5 "$t" $ompirun -n 3 "$w/alone/retrace" replay --engine mpi "$trace" \
    > "$w/alone.out" 2> "$w/alone.err"
st=$?
[ "$st" = 1 ] || fail "no sibling: exit status $st, expected 1"
want="retrace: started by Open MPI's mpirun, but this retrace uses MPICH and $w/alone/retrace-openmpi cannot be run (No such file or directory): build retrace where Open MPI's development files are installed, or run it under mpiexec.mpich"
if [ "$(grep -c '^retrace' "$w/alone.err")" != 1 ] || ! grep -qxF "$want" "$w/alone.err"; then
    fail "no sibling: stderr '$(cat "$w/alone.err")'"
fi
[ -s "$w/alone.out" ] && fail "no sibling: stdout '$(cat "$w/alone.out")'"

[ "$failed" = 0 ] && echo "replay_openmpi: ok"
exit "$failed"
