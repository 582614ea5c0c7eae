#!/bin/sh
# The tracer's clock against CLOCK_MONOTONIC: mpi_clock (clock.c) on 2 ranks under the
# tracer, with sleeps and moves between cores, then clock_check (clock_check.c) compares the
# trace's times with the program's own reads, and checks the raw format version.
# usage: clock_check.sh TRACER PROGRAM CHECKER WORK MODE
#   MODE  tsc: RETRACE_CLOCK=tsc, version 2, the OTF2 archive read
#         monotonic: RETRACE_CLOCK=monotonic, version 1, the OTF2 archive read
#         bad: RETRACE_CLOCK=fast: one warning (rank 0), then as monotonic
#         abort: RETRACE_CLOCK=tsc, rank 0 calls MPI_Abort (the crash path writes the last
#                calibration), version 2, the raw trace read
set -u
tracer=$1 program=$2 checker=$3 work=$4 mode=$5
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
case $mode in
tsc) clock=tsc version=2 abort='' trace=$work/trace ;;
monotonic) clock=monotonic version=1 abort='' trace=$work/trace ;;
bad) clock=fast version=1 abort='' trace=$work/trace ;;
abort) clock=tsc version=2 abort=abort trace=$work/trace.raw ;;
*) echo "clock_check.sh: unknown mode $mode"; exit 2 ;;
esac
if [ "$clock" = tsc ] && [ "$(uname -m)" != x86_64 ]; then
    echo "skipped: no time-stamp counter on $(uname -m)"
    exit 0
fi
# shellcheck disable=SC2086 # $abort: the argument, or none
RETRACE_CLOCK=$clock RETRACE_OUT=$work/trace RETRACE_KEEP_RAW=1 LD_PRELOAD=$tracer \
    timeout -k 5 60 mpiexec.mpich -n 2 "$program" "$work" $abort > run.out 2> run.err
status=$?
want=''
[ "$mode" = bad ] &&
    want="retrace: warning: RETRACE_CLOCK=fast: expected monotonic or tsc; using monotonic"
if [ -n "$abort" ]; then
    [ "$status" != 0 ] || { echo "MPI_Abort, yet exit status 0"; exit 1; }
elif [ "$status" != 0 ] || [ "$(cat run.err)" != "$want" ]; then
    echo "exit status $status, standard error (expected: '$want'):"
    cat run.out run.err
    exit 1
fi
"$checker" "$trace" "$work/trace.raw" "$work" 2 "$version"
