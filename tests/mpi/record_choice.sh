#!/bin/sh
# mpi.openmpi.record_choice: retrace record without --tracer picks Open MPI's tracer where
# only the launcher can tell (the program after mpirun.openmpi is sh, which links no MPI
# library, and execs the Open MPI program), and where the program comes after launcher
# options with values (--mca takes two, -x and -np one each), also with the user's own
# OMPI_MCA_mca_base_env_list (which mpirun refuses together with -x). Each time the run
# records a complete trace of both ranks without a word from record but its last line;
# MPICH's tracer preloaded into an Open MPI program would crash it instead.
# usage: record_choice.sh RETRACE TRACE_DUMP WORK PROGRAM MODE (a 2-rank Open MPI program, and
# its one argument)
set -u
[ $# = 5 ] || { echo "usage: record_choice.sh RETRACE TRACE_DUMP WORK PROGRAM MODE" >&2; exit 2; }
retrace=$1 dump=$2 work=$3 prog=$4 mode=$5
rm -rf "$work" && mkdir -p "$work" || exit 2
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
mpirun="mpirun.openmpi --allow-run-as-root --oversubscribe"

run() { # NAME COMMAND...: record it, then check status, stderr and the trace
    name=$1
    shift
    # shellcheck disable=SC2086 # mpirun is a list of words
    timeout -k 5 60 "$retrace" record --out "$work/$name" -- $mpirun "$@" \
        > "$work/$name.out" 2> "$work/$name.err"
    status=$?
    [ "$status" = 0 ] || fail "$name: record exited $status: $(head -n 5 "$work/$name.err")"
    [ "$(cat "$work/$name.err")" = "retrace: trace written to $work/$name" ] ||
        fail "$name: stderr: $(head -n 5 "$work/$name.err")"
    ranks=$(timeout -k 5 30 "$dump" "$work/$name" 2> "$work/$name.dump.err" |
        awk '$1 == "ranks" { print $2 }')
    [ "$ranks" = 2 ] ||
        fail "$name: the trace has '$ranks' ranks, not 2: $(cat "$work/$name.dump.err")"
}
run launcher -np 2 sh -c "exec '$prog' '$mode'"
run options --mca btl self,vader -x RETRACE_CHOICE_TEST=1 -np 2 "$prog" "$mode"
# A mca_base_env_list of the user's own: record adds to it rather than -x, which mpirun refuses
# together with it.
OMPI_MCA_mca_base_env_list=HOME
export OMPI_MCA_mca_base_env_list
run env_list -np 2 "$prog" "$mode"
unset OMPI_MCA_mca_base_env_list
[ "$fails" = 0 ] && echo "ok: record chose Open MPI's tracer by the launcher and past its options"
[ "$fails" = 0 ]
