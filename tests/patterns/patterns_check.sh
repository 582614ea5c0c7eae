    # checked against a replay without the collective fast path too (--check-fast)
    run "$retrace" replay --check-fast trace > replay.out 2> replay.err ||
        fail "replay: exit $?: $(cat replay.err)"#!/bin/sh
# One example pattern (examples/patterns) under mpiexec with 2 ranks: its output line, its
# traced calls (how often each MPI function was called, from 'retrace profile'), and the
# trace replays to completion. With PATTERN=errors: bad arguments fail cleanly.
# usage: patterns_check.sh RETRACE PATTERNS_DIR WORK PATTERN
set -u
retrace=$1 bin=$2 work=$3 name=$4
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
run() { timeout 60 "$@"; }

# 20 timed iterations after 2 of warm-up, 64 bytes: 22 per rank in the trace.
expect() { # the calls expected, "FUNCTION COUNT" per line, all ranks together
    case $name in
    pingpong) printf 'MPI_Barrier 4\nMPI_Recv 44\nMPI_Send 44\n' ;;
    ring) printf 'MPI_Barrier 4\nMPI_Sendrecv 44\n' ;;
    halo2d) printf 'MPI_Barrier 4\nMPI_Irecv 176\nMPI_Isend 176\nMPI_Waitall 44\n' ;;
    allreduce) printf 'MPI_Allreduce 44\nMPI_Barrier 4\n' ;;
    alltoall) printf 'MPI_Alltoall 44\nMPI_Barrier 4\n' ;;
    rma_fence) printf 'MPI_Barrier 4\nMPI_Put 44\nMPI_Win_fence 88\n' ;;
    stencil) printf 'MPI_Allreduce 44\nMPI_Barrier 4\nMPI_Irecv 176\nMPI_Isend 176\nMPI_Waitall 44\n' ;;
    esac
}

if [ "$name" = errors ]; then
    for args in "-x 1" "-s 1.5" "-i" "-c -3" "-s 2G"; do
        # shellcheck disable=SC2086
        run mpiexec.mpich -n 2 "$bin/ring" $args > out 2> err
        st=$?
        [ $st -eq 2 ] || fail "ring $args: status $st"
        [ "$(wc -l < err)" -eq 1 ] && grep -q "^ring: bad argument '" err ||
            fail "ring $args: stderr: $(cat err)"
        [ -s out ] && fail "ring $args printed: $(cat out)"
    done
    run "$bin/pingpong" > out 2> err
    st=$?
    [ $st -eq 2 ] && [ "$(cat err)" = "pingpong: needs at least 2 ranks (run it under mpiexec -n 2)" ] ||
        fail "pingpong alone: status $st: $(cat err)"
    run mpiexec.mpich -n 2 "$bin/allreduce" -s 12 > out 2> err
    [ "$(cat err)" = "allreduce: -s 12 is not a whole number of doubles" ] || fail "allreduce -s 12: $(cat err)"
else
    run mpiexec.mpich -n 2 "$bin/$name" -i 20 -w 2 -s 64 > plain.out 2> plain.err || fail "exit $?: $(cat plain.err)"
    grep -Eq "^$name ranks=2 iters=20 bytes=64 compute_us=0 time_us=[0-9]+\.[0-9]{3}\$" plain.out ||
        fail "output: $(cat plain.out)"
    [ "$(wc -l < plain.out)" -eq 1 ] || fail "more than one line: $(cat plain.out)"
    run "$retrace" record --out trace -- mpiexec.mpich -n 2 "$bin/$name" -i 20 -w 2 -s 64 -c 1 \
        > traced.out 2> traced.err || fail "record: exit $?: $(cat traced.err)"
    grep -Eq "^$name ranks=2 iters=20 bytes=64 compute_us=1 time_us=" traced.out ||
        fail "traced output: $(cat traced.out)"
    "$retrace" profile trace > profile.out 2> profile.err || fail "profile: $(cat profile.err)"
    # "function calls ..." rows of the all-ranks table, for the functions expected
    awk '/^Time in MPI per function \(all ranks\)/ { on = 1; next } on && NF == 0 { on = 0 }
        on && $1 ~ /^MPI_/ { print $1, $2 }' profile.out | sort > calls
    expect | sort > calls.expected
    join -a 1 -e none -o 1.1,2.2 calls.expected calls > calls.found
    cmp -s calls.expected calls.found ||
        fail "calls: expected $(tr '\n' ' ' < calls.expected), found $(tr '\n' ' ' < calls)"
    # --check-fast: the results must be the same without the collective fast path
    run "$retrace" replay --check-fast trace > replay.out 2> replay.err ||
        fail "replay: exit $?: $(cat replay.err)"
    grep -q '^predicted run time' replay.out || fail "no prediction: $(cat replay.out)"
fi
[ $fails -eq 0 ] || exit 1
echo "patterns_check $name: ok"
