#!/bin/sh
# mpi.openmpi.fortran: a `use mpi_f08` program built with Open MPI (mpif90.openmpi). Open MPI's
# Fortran bindings call its internals without the C functions the tracer wraps, so nothing is
# recorded; retrace record must say why (a wrong cause would send the user looking at how the
# program was linked), run the program unchanged and exit with its status.
#
# usage: ompi_fortran.sh RETRACE WORK PROGRAM
set -u
[ $# -eq 3 ] || { echo "usage: ompi_fortran.sh RETRACE WORK PROGRAM" >&2; exit 2; }
retrace=$1 work=$2 prog=$3
rm -rf "$work" && mkdir -p "$work" || exit 1
cd "$work" || exit 1
timeout -k 5 60 "$retrace" record --out t -- mpirun.openmpi --allow-run-as-root --oversubscribe \
    -n 4 "$prog" > out.txt 2> err.txt
rc=$?
status=0
[ "$rc" = 0 ] || { echo "FAIL: record exited $rc" >&2; status=1; }
printf 'fort: 4 ranks, 44 checks\nfort: ok\n' > out.expected
cmp -s out.expected out.txt || { echo "FAIL: the program's output changed:" >&2; cat out.txt >&2; status=1; }
cat > err.expected <<MSG
retrace: warning: $prog links Open MPI's Fortran bindings (libmpi_usempif08.so.40), which call Open MPI's internals without the C functions the tracer wraps: its Fortran MPI calls are not recorded (C and C++ calls are; docs/tracer.md, "Open MPI")
retrace: warning: no trace was recorded (did mpirun.openmpi start MPI programs linked against a shared MPI library?)
MSG
diff -u err.expected err.txt >&2 || { echo "FAIL: record's stderr" >&2; status=1; }
[ ! -e t ] || { echo "FAIL: a trace t was written" >&2; status=1; }
exit "$status"
