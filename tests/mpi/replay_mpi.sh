#!/bin/sh
# retrace replay --engine mpi on tests/data/coll3.csv (3 ranks): alternatives run and are
# reported, with how each collective call ran; bad use fails cleanly.
#
# usage: replay_mpi.sh RETRACE TRACE WORKDIR
# Expected, worked out by hand (5 collective calls per rank, 3 ranks, 3 messages of 100 bytes):
#   recorded            15 calls by MPICH's own choice
#   allgather=recursive_doubling  MPICH refuses it on 3 ranks (not a power of two): the 6
#                       allgather calls run retrace's schedule, the other 9 MPICH's choice
#   allreduce=recursive_doubling  MPICH has it: 6 calls with it forced
#   bcast=linear        MPICH has no linear bcast: 3 calls as retrace's schedule
#   map:cyclic          one node here: the same placement, 15 calls by MPICH's choice
# The refusal is only seen when MPIR_CVAR_ALLGATHER_INTRA_ALGORITHM written through MPI_T
# takes effect, so the row proves that forcing works.
set -u
retrace=$1 trace=$2 w=$3
rm -rf "$w" && mkdir -p "$w" || exit 2
t=${RUN_TIMEOUT:-30}
failed=0
fail() { echo "FAIL: $*"; failed=1; }

timeout -k 5 "$t" mpiexec.mpich -n 3 "$retrace" replay --engine mpi "$trace" \
    --compare coll:allgather=recursive_doubling --compare coll:allreduce=recursive_doubling \
    --compare coll:bcast=linear --compare map:cyclic --csv "$w/cmp.csv" \
    > "$w/cmp.out" 2> "$w/cmp.err" || fail "the compare run exited $?"
awk -F, 'NR > 1 { gsub(/"/, ""); print $1, $6, $7, $9, $10, $11 }' "$w/cmp.csv" > "$w/cmp.got"
cat > "$w/cmp.want" <<'TXT'
recorded 3 300 15 0 0
coll:allgather=recursive_doubling 3 300 9 0 6
coll:allreduce=recursive_doubling 3 300 9 6 0
coll:bcast=linear 3 300 12 0 3
map:cyclic 3 300 15 0 0
TXT
diff -u "$w/cmp.want" "$w/cmp.got" || fail "the compare table's counts"
grep -q '^configuration  *measured_us  *predicted_us  *error_pct' "$w/cmp.out" ||
    fail "no compare table on stdout"
want_note="retrace: note for coll:allgather=recursive_doubling: MPICH refused the chosen algorithm for 6 calls (it does not apply to them); they ran retrace's schedule of it"
grep -qxF "$want_note" "$w/cmp.err" || { fail "no note on the refused algorithm"; cat "$w/cmp.err"; }

# A forced algorithm that does not apply to retrace's own bookkeeping (Rabenseifner needs at
# least pof2 = 2 elements; retrace agrees on errors with one int): the replay of the trace's
# 16-byte allreduces runs it forced (6 calls) and the run ends normally. Retrace's agreement
# is point to point and its results travel after the variables are put back, so MPICH's
# refusal (fatal with MPIR_CVAR_COLLECTIVE_FALLBACK=error) never reaches them.
timeout -k 5 "$t" mpiexec.mpich -n 3 "$retrace" replay --engine mpi "$trace" \
    --coll allreduce=rabenseifner > "$w/rab.out" 2> "$w/rab.err" ||
    fail "the rabenseifner run exited $?: $(head -n 3 "$w/rab.err")"
grep -qxF "collective calls    9 by MPICH's choice (0 of them nonblocking), 6 with MPICH's algorithm forced, 0 as retrace's schedule, 0 left out" "$w/rab.out" ||
    fail "rabenseifner: the calls did not run as forced: $(cat "$w/rab.out")"

# One configuration, with per-process node ids (two emulated nodes): the summary.
RETRACE_PROGRESS=1 timeout -k 5 "$t" mpiexec.mpich -n 1 -env RETRACE_NODE_ID 0 "$retrace" replay \
    --engine mpi "$trace" --repeat 3 : -n 2 -env RETRACE_NODE_ID 1 "$retrace" replay \
    --engine mpi "$trace" --repeat 3 \
    > "$w/one.out" 2> "$w/one.err" || fail "the single run exited $?"
grep -qx 'machine             3 processes on 2 nodes, 1 module; map recorded' "$w/one.out" ||
    fail "machine line: $(grep '^machine' "$w/one.out")"
grep -qx 'messages            3 (300 bytes); the trace has 3 (300 bytes)' "$w/one.out" ||
    fail "messages line: $(grep '^messages' "$w/one.out")"
grep -q '^measured run time   .* (median of 3 runs)$' "$w/one.out" || fail "no measured time"
grep -q '^predicted run time  ' "$w/one.out" || fail "no prediction"
# The progress line of the replays (RETRACE_PROGRESS=1: as on a terminal), from rank 0 only.
tr '\r' '\n' < "$w/one.err" > "$w/one.lines"
for k in 1 2 3; do
    [ "$(grep -c "^replay on MPI: $k of 3: recorded, run $k of 3 ([0-9]* s)$" "$w/one.lines")" = 1 ] ||
        { fail "progress line $k"; cat "$w/one.err"; }
done
[ "$(grep -c '^ *[0-2]  ' "$w/one.out")" = 3 ] || fail "not 3 rows of per-rank times"

# Bad use: rank 0 says it (a usage error: its line and where to find help), exit status 2,
# no hang.
bad() { # WANT NP ARGS...
    want=$1 np=$2
    shift 2
    timeout -k 5 "$t" mpiexec.mpich -n "$np" "$retrace" replay --engine mpi "$@" > "$w/bad.out" \
        2> "$w/bad.err"
    st=$?
    [ "$st" = 2 ] || fail "$*: exit status $st, expected 2"
    [ "$(cat "$w/bad.err")" = "$want" ] || fail "$*: stderr '$(cat "$w/bad.err")', expected '$want'"
}
bad "retrace: $trace has 3 ranks but 2 processes replay it (mpiexec -n 3)" 2 "$trace"
try="Try 'retrace replay --help'."
bad "retrace replay: --eager: not with --engine mpi (the MPI library has its own eager threshold)
$try" 3 "$trace" --eager 0
bad "retrace replay: --compare: 'nodes:2': only coll, map and model can change with --engine mpi (the machine and its MPI library are what they are; --compute-scale applies to every configuration)
$try" 3 "$trace" --compare nodes:2
bad "retrace replay: --repeat: bad value '0' (expected 1 to 1000)
$try" 3 "$trace" --repeat 0
bad "retrace replay: --nodes: not with --engine mpi (the machine is the one mpiexec runs the processes on)
$try" 3 "$trace" --nodes=2
bad "retrace: $w/none.csv: No such file or directory" 3 "$w/none.csv"

# A trace no MPI library can run in its order: stopped at --timeout, with one line.
stuck=$(dirname "$trace")/recv_first.csv
start=$(date +%s)
timeout -k 5 "$t" mpiexec.mpich -n 2 "$retrace" replay --engine mpi "$stuck" --timeout 2 \
    > "$w/stuck.out" 2> "$w/stuck.err"
st=$?
[ "$st" != 0 ] && [ "$st" != 124 ] || fail "the stuck replay exited $st"
[ $(($(date +%s) - start)) -lt 15 ] || fail "the stuck replay took more than 15 s"
grep -qxF "retrace: replay --engine mpi did not finish within 2 s: stopped (a deadlock in this order on this MPI library? see docs/replay.md; --timeout changes the limit)" \
    "$w/stuck.err" || { fail "no timeout message"; cat "$w/stuck.err"; }
[ $failed = 0 ] && echo "ok: replay --engine mpi"
exit $failed
