#!/bin/sh
# retrace replay --engine mpi when memory runs out in the middle of the replay: a gatherv
# whose members send 512 MiB each (data/gatherv_512m.csv), under an address-space limit
# (ulimit -v) with room for each process's 2 x 512 MiB buffers, set up before the timed run,
# but not for the 2 x 1 GiB the call's counts need when it is issued. The failed allocation
# must end the job with an error that names the process, the event and the memory (exit
# status 1, from MPI_Abort), not count the call as left out (what the replay did before:
# "v-collective calls not replayed: some member's record of the call is missing").
#
# usage: replay_nomem.sh RETRACE TRACE WORKDIR
set -u
retrace=$1 trace=$2 w=$3
rm -rf "$w" && mkdir -p "$w" || exit 2
t=${RUN_TIMEOUT:-60}
failed=0
fail() { echo "FAIL: $*"; failed=1; }

# 1.5 GB: MPICH with UCX and the two 512 MiB buffers need about 1.2 GB; growing them to
# 1 GiB each needs 2 GB or more.
limit=1500000
(ulimit -v "$limit") 2> /dev/null || { echo "ulimit -v is not available: skipped"; exit 77; }
(
    ulimit -v "$limit"
    exec timeout -k 5 "$t" mpiexec.mpich -n 2 "$retrace" replay --engine mpi "$trace"
) > "$w/out" 2> "$w/err"
st=$?
[ "$st" = 1 ] || fail "exit status $st, expected 1 (MPI_Abort after the error)"
want="retrace: replay recorded: process [01] (trace rank [01]), event 2 (coll_end at 1500 ns): out of memory for two buffers of 1073741824 bytes"
grep -qx "$want" "$w/err" || { fail "no line matching: $want"; cat "$w/err"; }
if grep -q 'not replayed\|left out' "$w/out" "$w/err"; then
    fail "the call was counted as left out"
    cat "$w/out" "$w/err"
fi
[ $failed = 0 ] && echo "ok: replay --engine mpi, out of memory in a collective"
exit $failed
