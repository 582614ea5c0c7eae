#!/bin/sh
# The tracer cannot write its trace (RETRACE_OUT under a file): one warning on standard
# error, no trace, and the program's output and exit status are those of the plain run.
# usage: unwritable_check.sh TRACER PROGRAM WORK
set -u
tracer=$1 program=$2 work=$3
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
touch file
timeout -k 5 30 mpiexec.mpich -n 4 "$program" > plain.out 2> plain.err
plain=$?
RETRACE_OUT=$work/file/trace LD_PRELOAD=$tracer timeout -k 5 30 mpiexec.mpich -n 4 "$program" \
    > traced.out 2> traced.err
traced=$?
ok=1
[ "$plain" = "$traced" ] || { echo "exit status $traced, plain run $plain"; ok=0; }
cmp -s plain.out traced.out || { echo "output differs:"; diff plain.out traced.out; ok=0; }
printf 'retrace: warning: RETRACE_OUT=%s: Not a directory; not tracing\n' "$work/file/trace" \
    > want.err
cmp -s want.err traced.err || { echo "standard error differs:"; diff want.err traced.err; ok=0; }
[ ! -e "$work/file/trace" ] && [ ! -e "$work/file/trace.raw" ] || { echo "a trace appeared"; ok=0; }
[ $ok = 1 ] && echo "ok: unwritable output: one warning, the program unaffected"
[ $ok = 1 ]
