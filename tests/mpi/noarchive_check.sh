#!/bin/sh
# MPI_Finalize cannot write the archive (the program put a file where it goes, after MPI_Init):
# `retrace record` says that every rank reached MPI_Finalize (the raw files say so), not that
# the program ended before it; the retried assembly fails the same way and the raw trace stays,
# readable. The program's output and exit status are those of the plain run.
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
    printf "retrace: warning: every rank reached MPI_Finalize, but no archive was written there (exit status 0; the tracer's warning above says why); assembling it from %s.raw\n" \
        "$work/t"
    printf 'retrace: %s: Not a directory\n' "$work/t"
} > want.err
cmp -s want.err traced.err || { echo "standard error differs:"; diff want.err traced.err; ok=0; }
"$retrace" info "$work/t.raw" > info.out 2>&1 || { echo "the raw trace stayed unreadable:"; cat info.out; ok=0; }
grep -q '^ranks  *2$' info.out || { echo "retrace info of the raw trace:"; cat info.out; ok=0; }
[ $ok = 1 ] && echo "ok: no archive at MPI_Finalize: said so, the raw trace kept"
[ $ok = 1 ]
