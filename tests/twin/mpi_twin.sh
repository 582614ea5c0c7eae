#!/bin/sh
# retrace links no MPI: calibrate and replay --engine mpi run retrace-mpich from retrace's
# directory with the same arguments (cli/mpi_exec.c). Checked here: the two commands and
# `retrace help calibrate` give retrace-mpich's output; ldd finds no MPI library in retrace;
# a retrace without retrace-mpich beside it says so in one line with status 1, and under a
# launcher only rank 0 says it.
# usage: mpi_twin.sh RETRACE WORK
set -u
retrace=$1 work=$2
twin=$(dirname "$retrace")/retrace-mpich
fails=0
fail() {
    echo "FAIL: $*"
    fails=$((fails + 1))
}
rm -rf "$work" && mkdir -p "$work/alone" || exit 2
cd "$work" || exit 2
"$retrace" help calibrate > a.out 2>&1
"$twin" help calibrate > b.out 2>&1
if ! { cmp -s a.out b.out && [ -s a.out ]; }; then fail "help calibrate: $(head -n 2 a.out)"; fi
for cmd in "calibrate --batches 0" "replay --engine mpi"; do
    # shellcheck disable=SC2086 # $cmd is a command and its options
    "$retrace" $cmd > a.out 2> a.err
    a=$?
    # shellcheck disable=SC2086
    "$twin" $cmd > b.out 2> b.err
    b=$?
    if [ "$a" != "$b" ] || [ "$a" = 0 ]; then fail "$cmd: status $a, retrace-mpich's $b"; fi
    if ! { cmp -s a.out b.out && cmp -s a.err b.err && [ -s a.err ]; }; then
        fail "$cmd: $(cat a.err)"
    fi
done
if command -v ldd > /dev/null; then
    ldd "$retrace" | grep -i mpi && fail "retrace loads an MPI library"
fi
cp "$retrace" alone/retrace || exit 2
alone/retrace calibrate --quick > out 2> err
st=$?
want="retrace: calibrate: needs $work/alone/retrace-mpich, which cannot be run (No such file or directory): build retrace again"
[ $st = 1 ] || fail "no retrace-mpich: status $st"
[ "$(cat err)" = "$want" ] || fail "no retrace-mpich: '$(cat err)'"
[ -s out ] && fail "no retrace-mpich: stdout '$(cat out)'"
PMI_RANK=1 alone/retrace replay --engine mpi t > out 2> err
st=$?
[ $st = 1 ] || fail "no retrace-mpich, rank 1: status $st"
[ -s err ] && fail "no retrace-mpich, rank 1: '$(cat err)'"
PMI_RANK=0 alone/retrace replay --engine mpi t > out 2> err
[ "$(cat err)" = "retrace: replay: needs $work/alone/retrace-mpich, which cannot be run (No such file or directory): build retrace again" ] ||
    fail "no retrace-mpich, rank 0: '$(cat err)'"
[ $fails = 0 ] || exit 1
echo "mpi_twin: ok"
