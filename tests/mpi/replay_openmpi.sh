#!/bin/sh
# retrace replay --engine mpi on tests/data/coll3.csv (3 ranks) under Open MPI's mpirun:
# retrace runs its sibling retrace-openmpi there, whose report counts the calls "by Open
# MPI's choice" (tests/mpi/replay_mpi.sh is the same under MPICH).
#
# usage: replay_openmpi.sh RETRACE TRACE WORKDIR
# Expected, worked out by hand (5 collective calls per rank, 3 ranks, 3 messages of 100 bytes):
#   recorded            15 calls by Open MPI's own choice
#   allgather=recursive_doubling, allreduce=recursive_doubling, bcast=linear: no Open MPI
#                       algorithm is forced, so the 6, 6 and 3 calls of that operation run
#                       retrace's schedule of it, the others Open MPI's choice
#   map:cyclic          one node here: the same placement, 15 calls by Open MPI's choice
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
    --compare coll:bcast=linear --compare map:cyclic --csv "$w/cmp.csv" \
    > "$w/cmp.out" 2> "$w/cmp.err" || fail "the compare run exited $?"
head -1 "$w/cmp.csv" | tr -d '"' > "$w/cmp.head"
echo "configuration,measured_us,predicted_us,error_pct,mpi_us_per_rank,messages,bytes,speedup,colls_openmpi,colls_forced,colls_schedule" |
    cmp -s - "$w/cmp.head" || fail "the compare table's columns: $(cat "$w/cmp.head")"
awk -F, 'NR > 1 { gsub(/"/, ""); print $1, $6, $7, $9, $10, $11 }' "$w/cmp.csv" > "$w/cmp.got"
cat > "$w/cmp.want" <<'TXT'
recorded 3 300 15 0 0
coll:allgather=recursive_doubling 3 300 9 0 6
coll:allreduce=recursive_doubling 3 300 9 0 6
coll:bcast=linear 3 300 12 0 3
map:cyclic 3 300 15 0 0
TXT
diff -u "$w/cmp.want" "$w/cmp.got" || fail "the compare table's counts"
[ -s "$w/cmp.err" ] && fail "the compare run's stderr: $(cat "$w/cmp.err")"

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

# Bad use: rank 0 says it, status 2 (mpirun's own report of the failed job follows).
# shellcheck disable=SC2086 # $ompirun is a command and its options
timeout -k 5 "$t" $ompirun -n 2 "$retrace" replay --engine mpi "$trace" > "$w/bad.out" \
    2> "$w/bad.err"
st=$?
[ "$st" = 2 ] || fail "2 processes: exit status $st, expected 2"
[ "$(head -1 "$w/bad.err")" = "retrace: $trace has 3 ranks but 2 processes replay it (mpiexec -n 3)" ] ||
    fail "2 processes: stderr '$(cat "$w/bad.err")'"
[ "$(grep -c '^retrace' "$w/bad.err")" = 1 ] || fail "2 processes: not one line: $(cat "$w/bad.err")"

# retrace without retrace-openmpi beside it: one line, status 1.
mkdir "$w/alone" && cp "$retrace" "$w/alone/retrace" || exit 2
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
