#!/bin/sh
# MPI_Finalize cannot write the archive (the program put a file where it goes after MPI_Init,
# and takes it away after MPI_Finalize): `retrace record` assembles the archive from the raw
# trace afterwards and says that every rank reached MPI_Finalize (the trace says so), not that
# the program ended before it. The program's output and exit status are those of the plain run.
# usage: noarchive_check.sh RETRACE PROGRAM WORK
set -u
retrace=$1 program=$2 work=$3
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
timeout -k 5 30 mpiexec.mpich -n 2 "$program" noarchive > plain.out 2> plain.err
plain=$?
timeout -k 5 60 "$retrace" record --out "$work/t" -- mpiexec.mpich -n 2 "$program" noarchive \
    > traced.out 2> traced.err
traced=$?
ok=1
[ "$plain" = 0 ] && [ "$traced" = 0 ] || { echo "exit status $traced, plain run $plain"; ok=0; }
cmp -s plain.out traced.out || { echo "output differs:"; diff plain.out traced.out; ok=0; }
{
    printf "retrace: warning: cannot write the OTF2 archive %s: %s: Not a directory; the raw trace stays in %s.raw ('retrace convert %s.raw %s' retries)\n" \
        "$work/t" "$work/t" "$work/t" "$work/t" "$work/t"
    echo "retrace: warning: every rank reached MPI_Finalize, but no archive was written there (exit status 0; the tracer's warning above says why): assembled afterwards"
    echo "retrace: trace written to $work/t"
} > want.err
cmp -s want.err traced.err || { echo "standard error differs:"; diff want.err traced.err; ok=0; }
"$retrace" info "$work/t" > info.out 2>&1 || { echo "retrace info failed:"; cat info.out; ok=0; }
grep -q '^ranks  *2$' info.out || { echo "retrace info of the trace:"; cat info.out; ok=0; }
grep -q 'cut short' info.out && { echo "the trace says it was cut short:"; cat info.out; ok=0; }
[ ! -e "$work/t.raw" ] || { echo "the raw trace was not removed"; ok=0; }
[ $ok = 1 ] && echo "ok: no archive at MPI_Finalize: assembled afterwards, the cause said"
[ $ok = 1 ]
