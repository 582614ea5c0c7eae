#!/bin/sh
# mpi.openmpi.fortran: the same calls through C (fort_c), `use mpi_f08` (fort_f08) and `use mpi`
# (fort_mpi), built with Open MPI, recorded as a user would (retrace record under
# mpirun.openmpi, no emulated placement, no --tracer). Each program's output is unchanged, record
# says nothing but where it wrote the trace (no warning that Fortran calls go unrecorded), and
# the two Fortran traces hold exactly the events of the C program's trace (trace_dump, times
# left out).
#
# usage: ompi_fortran.sh RETRACE TRACE_DUMP WORK BIN   (BIN: the Open MPI test programs)
set -u
[ $# -eq 4 ] || { echo "usage: ompi_fortran.sh RETRACE TRACE_DUMP WORK BIN" >&2; exit 2; }
retrace=$1 dump=$2 work=$3 bin=$4
rm -rf "$work" && mkdir -p "$work" || exit 1
cd "$work" || exit 1
printf 'fort: 4 ranks, 72 checks\nfort: ok\n' > out.expected
status=0
for prog in fort_c fort_f08 fort_mpi; do
    timeout -k 5 60 "$retrace" record --out "$prog.trace" -- mpirun.openmpi --allow-run-as-root \
        --oversubscribe -n 4 "$bin/mpi_$prog" > "$prog.out" 2> "$prog.err"
    rc=$?
    [ "$rc" = 0 ] || { echo "FAIL: $prog: record exited $rc" >&2; status=1; }
    cmp -s out.expected "$prog.out" || {
        echo "FAIL: $prog: the program's output changed:" >&2
        cat "$prog.out" >&2
        status=1
    }
    echo "retrace: trace written to $prog.trace" > "$prog.err.expected"
    diff -u "$prog.err.expected" "$prog.err" >&2 || { echo "FAIL: $prog: record's stderr" >&2; status=1; }
    "$dump" --req --drop-idle-polls "$prog.trace/traces.otf2" > "$prog.dump" 2> "$prog.dump.err" || {
        echo "FAIL: $prog: trace_dump:" >&2
        cat "$prog.dump.err" >&2
        status=1
    }
done
[ -s fort_c.dump ] || { echo "FAIL: fort_c's trace is empty" >&2; status=1; }
for prog in fort_f08 fort_mpi; do
    diff -u fort_c.dump "$prog.dump" >&2 || { echo "FAIL: $prog's trace is not fort_c's" >&2; status=1; }
done
exit "$status"
