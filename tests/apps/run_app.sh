#!/bin/sh
# One real application from Debian's archive (lammps, hpcc), built by Debian against Open MPI,
# run once plain and once under 'retrace record', then every analysis and both replays of its
# trace. Nobody here wrote these programs: they are what a user of Debian's default MPI runs.
#
# usage: run_app.sh --retrace RETRACE --dump TRACE_DUMP --inputs DIR --work DIR APP
#
#   APP          lammps-melt, lammps-eam (lmp on DIR/in.melt, DIR/in.eam, 4 ranks) or hpcc
#                (DIR/hpccinf.txt, 2 ranks)
#   --inputs     tests/apps (the input files)
#   --work       scratch root: the case runs in DIR/APP, rebuilt each time
#
# What must hold:
# 1. The traced run exits 0 like the plain one, record says only where the trace went, and
#    the application's results are the same: LAMMPS's thermodynamic output and neighbour
#    statistics, HPCC's residuals, error counts and verdicts (their timings vary, so they are
#    left out).
# 2. otf2-print reads the archive without a word on stderr; the trace is complete, names
#    Open MPI as the MPI that recorded it and has the run's ranks.
# 3. info, hist (call and wire level), gateways, profile, pipeline exit 0 with nothing on
#    stderr; hist counts exactly the trace's sends; check finds nothing.
# 4. replay exits 0 with a prediction; the replay on a real MPI library sends exactly the
#    trace's messages and bytes and accounts for every collective call, under mpiexec.mpich
#    and under $MPIRUN (Open MPI's, where retrace runs retrace-openmpi: the MPI that
#    recorded the trace, as a user of Debian's default MPI replays it).
# Environment: MPIRUN (default "mpirun.openmpi --allow-run-as-root --oversubscribe"),
# RUN_TIMEOUT (seconds per run, default 60).
set -u

retrace='' dump='' inputs='' work=''
while [ $# -gt 1 ]; do
    case $1 in
    --retrace) retrace=$2; shift 2 ;;
    --dump) dump=$2; shift 2 ;;
    --inputs) inputs=$2; shift 2 ;;
    --work) work=$2; shift 2 ;;
    *) break ;;
    esac
done
if [ $# -ne 1 ] || [ -z "$retrace" ] || [ -z "$dump" ] || [ -z "$inputs" ] || [ -z "$work" ]; then
    echo "usage: run_app.sh --retrace R --dump D --inputs DIR --work DIR APP" >&2
    exit 2
fi
app=$1
mpirun=${MPIRUN:-mpirun.openmpi --allow-run-as-root --oversubscribe}
timeout=${RUN_TIMEOUT:-60}
case $app in
lammps-melt) np=4 prog=lmp args="-in $inputs/in.melt -log none" ;;
lammps-eam) np=4 prog=lmp args="-in $inputs/in.eam -log none" ;;
hpcc) np=2 prog=hpcc args='' ;;
*) echo "run_app.sh: unknown application '$app' (lammps-melt, lammps-eam, hpcc)" >&2; exit 2 ;;
esac

w=$work/$app
rm -rf "$w" && mkdir -p "$w/plain" "$w/traced" || exit 1
status=0
fail() {
    echo "FAIL $app: $*" >&2
    status=1
}
show() { sed 's/^/    | /' "$1" | head -n 30 >&2; }

# The results that do not depend on timing.
results() {
    case $app in
    lammps-*)
        sed -n -e '/^ *Step /,/^Loop time/{/^Loop time/!p;}' \
            -e '/^\(Nlocal\|Nghost\|Neighs\|Total # of neighbors\|Ave neighs\/atom\|Neighbor list builds\|Dangerous builds\):*/p' \
            "$1/stdout"
        ;;
    hpcc)
        grep -E '^(Success|CommWorldProcs|HPL_N|HPL_NB|HPL_nprow|HPL_npcol|HPL_RnormI|HPL_Anorm1|HPL_AnormI|HPL_Xnorm1|HPL_XnormI|HPL_BnormI|PTRANS_residual|PTRANS_n|MPIRandomAccess_LCG_N|MPIRandomAccess_LCG_Errors|MPIRandomAccess_N|MPIRandomAccess_Errors|MPIFFT_N|MPIFFT_maxErr|MPIFFT_Procs)=|tests completed and (passed|failed) residual checks' \
            "$1/hpccoutf.txt"
        ;;
    esac
}

# 1. Plain and traced runs (hpcc reads hpccinf.txt from, and writes hpccoutf.txt into, its
# working directory).
[ "$app" = hpcc ] && cp "$inputs/hpccinf.txt" "$w/plain/" && cp "$inputs/hpccinf.txt" "$w/traced/"
# shellcheck disable=SC2086 # mpirun and args are lists of words
(cd "$w/plain" && exec timeout -k 5 "$timeout" $mpirun -n "$np" "$prog" $args) \
    > "$w/plain/stdout" 2> "$w/plain/stderr"
rc=$?
[ "$rc" = 0 ] || { fail "the plain run exited $rc"; show "$w/plain/stderr"; exit 1; }
# shellcheck disable=SC2086
(cd "$w/traced" && exec timeout -k 5 "$timeout" "$retrace" record --out trace -- \
    $mpirun -n "$np" "$prog" $args) > "$w/traced/stdout" 2> "$w/traced/stderr"
rc=$?
[ "$rc" = 0 ] || { fail "the traced run exited $rc"; show "$w/traced/stderr"; exit 1; }
echo "retrace: trace written to trace" > "$w/record.expected"
cmp -s "$w/record.expected" "$w/traced/stderr" ||
    { fail "record's stderr is not just where the trace went:"; show "$w/traced/stderr"; }
results "$w/plain" > "$w/plain.results"
results "$w/traced" > "$w/traced.results"
[ -s "$w/plain.results" ] || { fail "the plain run printed no results:"; show "$w/plain/stdout"; }
grep -q -E '^(Success=1| +[0-9]+ +[0-9])' "$w/plain.results" ||
    fail "the plain run did not succeed (no Success=1 / no thermo line)"
diff -u "$w/plain.results" "$w/traced.results" > "$w/results.diff" ||
    { fail "the traced run's results differ from the plain run's:"; show "$w/results.diff"; }
trace=$w/traced/trace

# 2. The trace itself.
timeout -k 5 "$timeout" otf2-print "$trace/traces.otf2" > /dev/null 2> "$w/otf2-print.err" ||
    fail "otf2-print exited $?"
[ -s "$w/otf2-print.err" ] && { fail "otf2-print complained:"; show "$w/otf2-print.err"; }
timeout -k 5 "$timeout" "$dump" "$trace" > "$w/dump.txt" 2> "$w/dump.err" ||
    { fail "trace_dump exited $? (3: the trace is cut short)"; show "$w/dump.err"; }
[ "$(sed -n 1p "$w/dump.txt")" = "ranks $np" ] || fail "the trace does not have $np ranks"
sends=$(awk '$2 == "send" || $2 == "isend"' "$w/dump.txt" | wc -l)
[ "$sends" -gt 0 ] || fail "the trace holds no message"

# 3. Every analysis.
analyse() { # NAME ARGS...: retrace ARGS TRACE must exit 0, quietly (replay: notes only); stdout
    # in $w/NAME.out
    name=$1
    shift
    timeout -k 5 "$timeout" "$retrace" "$@" "$trace" > "$w/$name.out" 2> "$w/$name.err" ||
        { fail "retrace $* exited $?"; show "$w/$name.err"; }
    if [ "$name" = replay ]; then
        grep -v "^retrace: note: " "$w/$name.err" > "$w/$name.err.other"
    else
        cp "$w/$name.err" "$w/$name.err.other"
    fi
    [ -s "$w/$name.err.other" ] && { fail "retrace $* wrote to stderr:"; show "$w/$name.err.other"; }
}
analyse info info
grep -q '^recorded with Open MPI [0-9]' "$w/info.out" ||
    fail "info does not say Open MPI recorded the trace"
analyse hist hist
analyse hist_wire hist --level wire --coll
analyse gateways gateways
analyse profile profile
analyse pipeline pipeline
analyse check check
counted=$(awk '$1 ~ /^>?[0-9]+$/ && $2 ~ /^[0-9]+$/ { n += $2 } END { print n + 0 }' "$w/hist.out")
[ "$counted" = "$sends" ] || fail "hist counts $counted messages, the trace has $sends sends"
grep -q -E '^(error|warning) ' "$w/check.out" && { fail "check reports findings:"; show "$w/check.out"; }

# 4. Both replays.
analyse replay replay
grep -q '^predicted run time  ' "$w/replay.out" || fail "replay printed no prediction"
want=$(awk '$2 == "send" || $2 == "isend" {
        n++; for (i = 4; i <= NF; i++) if ($i ~ /^bytes=/) b += substr($i, 7)
    } END { printf "%d (%d bytes); the trace has %d (%d bytes)", n, b, n, b }' "$w/dump.txt")
calls=$(awk '$2 == "coll_end" || $2 == "nbc_request"' "$w/dump.txt" | wc -l)
replay_on() { # NAME LIB LAUNCHER...: retrace replay --engine mpi under the launcher
    name=$1 lib=$2
    shift 2
    (cd "$w" && exec timeout -k 5 "$timeout" "$@" -n "$np" "$retrace" replay --engine mpi \
        "$trace") > "$w/$name.out" 2> "$w/$name.err" ||
        { fail "$name: replay --engine mpi exited $?"; show "$w/$name.out"; show "$w/$name.err"; }
    got=$(sed -n 's/^messages  *//p' "$w/$name.out")
    [ "$got" = "$want" ] || fail "$name: the replay on MPI sent '$got', expected '$want'"
    got=$(sed -n "s/^collective calls  *\([0-9]*\) by $lib's choice ([0-9]* of them nonblocking), \([0-9]*\) with $lib's algorithm forced, \([0-9]*\) as retrace's schedule, \([0-9]*\) left out$/\1 \2 \3 \4/p" \
        "$w/$name.out" | awk '{ print $1 + $2 + $3 + $4 }')
    [ "$got" = "$calls" ] ||
        fail "$name: the replay on MPI accounts for '$got' collective calls, the trace has $calls"
}
replay_on mpi_replay MPICH mpiexec.mpich
# shellcheck disable=SC2086 # $mpirun is a command and its options
replay_on mpi_replay_openmpi "Open MPI" $mpirun

[ "$status" = 0 ] && echo "ok $app: $sends messages, $(sed -n 's/^events  *//p' "$w/info.out") events"
exit "$status"
