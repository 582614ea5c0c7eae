#!/bin/sh
# One MPI integration test: runs a test program under mpiexec without the tracer and with it,
# and checks the two runs and the trace against expectations written by hand.
#
# usage: run_mpi_test.sh [--untraced] [--mpi-lib mpich|openmpi] --bin DIR --mpi DIR --work DIR
#                        [--retrace RETRACE --tracer LIBRETRACE.so --dump TRACE_DUMP] CASE
#
#   --bin DIR      where the test programs are (mpi_p2p, mpi_coll, ...)
#   --mpi DIR      tests/mpi (cases/ and expected/)
#   --work DIR     scratch root: the case runs in DIR/CASE, rebuilt each time
#   --untraced     only the plain run (no tracer needed): stdout = expected/PROG.out and
#                  exit status = STATUS
#   --mpi-lib LIB  the MPI library the programs in --bin are built with: mpich (default) or
#                  openmpi. Under openmpi the programs run under $MPIEXEC (default
#                  "mpirun.openmpi --allow-run-as-root --oversubscribe": root, 2 cores), record
#                  is not told the tracer (it must choose libretrace-openmpi.so itself), and
#                  the case variables OPENMPI and EXPECT_OPENMPI apply. Under mpich $MPIEXEC
#                  defaults to mpiexec.mpich. The replay on the real MPI library (below) runs
#                  under $MPIEXEC too: under Open MPI's mpirun, retrace runs its sibling
#                  retrace-openmpi, and the report counts the calls "by Open MPI's choice".
#
# A case is tests/mpi/cases/CASE.case, shell assignments:
#   PROG NP              program (BIN/mpi_PROG) and rank count
#   ARGS                 the program's arguments
#   NODES MODULES        emulated placement (RETRACE_EMULATE=nodes=NODES,modules=MODULES)
#   STATUS               the program's exit status (default 0)
#   RECORD_STATUS        the traced run's exit status, when record's differs from the
#                        program's (default: STATUS)
#   OUT                  base name of the expected stdout (default: PROG): expected/OUT.out
#   TIMEOUT              the program hangs: the plain run is ended by 'timeout TIMEOUT',
#                        the traced run by 'retrace record --timeout TIMEOUT' (both exit
#                        124, which STATUS must say)
#   LAUNCH               record (default): 'retrace record --out DIR --nodes N --modules M
#                        RECORD_ARGS -- $MPIEXEC -n NP PROG'; preload: by hand, with
#                        RETRACE_OUT, RETRACE_EMULATE and LD_PRELOAD=TRACER; linked: the same
#                        without LD_PRELOAD, running BIN/mpi_PROG_linked (linked with the
#                        tracer before the MPI library)
#   RECORD_ARGS          more 'retrace record' options (--histogram, --no-trace)
#   ENV                  environment settings for the traced run (VAR=value ...)
#   HISTOGRAM=1          the traced stdout is the plain one followed by expected/CASE.hist
#   (expected/CASE.err)  when it exists, the traced run's stderr must equal it
#   NOTRACE=1            no trace may be written
#   TRUNCATED=1          the trace must be reported cut short (trace_dump exit status 3);
#                        otf2-print is then not asked to read it
#   DUMP                 trace_dump options (the calls in $SKIP are always left out)
#   CHECK                dump: trace_dump output = expected/EXPECT.dump
#                        counts: each distinct line, counted ('sort | uniq -c') =
#                                expected/EXPECT.counts
#                        sends: the send and isend lines = expected/EXPECT.sends
#                        wildcards: each recv and irecv line as RANK KIND CALL and its
#                                op (the wildcards posted, '-' for none) =
#                                expected/EXPECT.wildcards
#                        none
#   CALLS=1              also: how often each MPI function was entered = expected/EXPECT.calls
#   REPORT=1             record's report on what the replay of the trace shows (its stderr from
#                        "retrace: record: the replay" on, every time shown as T) =
#                        expected/CASE.report; REPORT=0 (default): no such report may appear
#   HYDRA_HUP=1          the rank ends without MPI_Finalize: mpiexec.mpich (hydra) then now and
#                        then reports exit status 1 with "Hangup (signal 1)" on stdout in place
#                        of the process's own status (about 1 run in 100 here: its proxy sees
#                        the PMI socket close before it collects the exit status); a status of
#                        1 with that banner then counts as the expected one, in both runs
#   EXPECT               base name of the expected files (default: CASE)
#   OPENMPI=0            not run under Open MPI (the program needs calls Open MPI 4.1 lacks:
#                        MPI-4's; or its error makes Open MPI hang; tests/mpi/CMakeLists.txt
#                        adds no such test)
#   EXPECT_OPENMPI       under Open MPI, the base name of the expected files instead of
#                        EXPECT, where they differ from MPICH's (the case says why)
#   OPENMPI_ARGS         under Open MPI, launcher options after $MPIEXEC's, in both runs
#   STATUS_OPENMPI       under Open MPI, the exit status instead of STATUS: its mpirun exits
#                        128+N for a rank killed by signal N (hydra: N), and 1 for a rank that
#                        left without MPI_Finalize (hydra: 0)
#   OTF2_ATTRS=1         otf2-print's RMA transfers that carry retrace::disp, each as "RECORD
#                        LOCATION disp=BYTES [reduce_op=N]" (disp=ADDR from 2^32 on: a dynamic
#                        window's address), and the records that carry retrace::assert (fences,
#                        posts, starts: "RECORD LOCATION assert=BITS"), sorted =
#                        expected/EXPECT.otf2attrs
#   LOCATIONS=1          otf2-print's event records per location, as "COUNT rank R thread T
#                        RECORD", with "tag=N bytes=N" on sends and receives (a location ref
#                        is thread << 32 | rank), sorted from the rank on =
#                        expected/EXPECT.locations
#   THREAD_PROFILE=1     retrace profile's "Time per thread" table, as "RANK THREAD CALLS"
#                        lines = expected/EXPECT.threads
#   LIVE_HIST=1          retrace hist TRACE HIST_ARGS must print exactly what the tracer's
#                        live histogram printed (the traced stdout after the plain one)
#   ANALYZE="A B"        for each name: retrace $ARGS_A TRACE prints expected/EXPECT.A
#   REPLAY_ARGS          options for the replays below
#   MPI_REPLAY=0         no replay on the real MPI library (below)
#   MPI_LEFT_OUT         collective calls that replay may leave out (default 0; see its notes)
#   MPI_COLLS            "A B C D": that replay's collective calls by the MPI library's own
#                        choice, of them nonblocking, with its algorithm forced, and as
#                        retrace's schedule, exactly (default: only their sum is checked)
#   REPLAY=0             no replay at all (an erroneous program: its collectives do not match)
#   FINDINGS             what retrace check TRACE finds: its exit status (1: errors, 0: none or
#                        warnings only), its stdout = expected/EXPECT.check with every time
#                        shown as T (FINDINGS=0 without that file, and unset: the trace of a
#                        correct program, on which check must exit 0 and report no finding,
#                        no line starting "error " or "warning ")
# Every complete trace (not TRUNCATED) must also replay to completion: retrace replay
# REPLAY_ARGS TRACE exits 0 and prints a prediction; and, unless MPI_REPLAY=0, under
# $MPIEXEC -n NP with --engine mpi, sending the messages and bytes the trace holds.
#
# The traced run must print what the plain run prints and exit with the same status, and
# otf2-print must read the archive without a word on stderr. Each mpiexec run is limited to
# RUN_TIMEOUT seconds (default 12), and so are otf2-print and trace_dump.
set -u

# docs/tracer.md does not say what these record (MPI_Init and MPI_Finalize frame the trace,
# MPI_Abort never returns, the group calls are not listed): left out of every comparison.
SKIP=MPI_Init,MPI_Init_thread,MPI_Finalize,MPI_Abort,MPI_Comm_group,MPI_Group_incl,MPI_Group_free

untraced=0 mpi_lib=mpich bin='' mpi='' work='' retrace='' tracer='' dump=''
while [ $# -gt 1 ]; do
    case "$1" in
    --untraced) untraced=1; shift ;;
    --mpi-lib) mpi_lib=$2; shift 2 ;;
    --bin) bin=$2; shift 2 ;;
    --mpi) mpi=$2; shift 2 ;;
    --work) work=$2; shift 2 ;;
    --retrace) retrace=$2; shift 2 ;;
    --tracer) tracer=$2; shift 2 ;;
    --dump) dump=$2; shift 2 ;;
    *) echo "run_mpi_test.sh: unknown option $1" >&2; exit 2 ;;
    esac
done
if [ $# != 1 ] || [ -z "$bin" ] || [ -z "$mpi" ] || [ -z "$work" ]; then
    echo "usage: run_mpi_test.sh [--untraced] [--mpi-lib mpich|openmpi] --bin DIR --mpi DIR" \
        "--work DIR" \
        "[--retrace R --tracer SO --dump D] CASE" >&2
    exit 2
fi
case=$1
[ -f "$mpi/cases/$case.case" ] ||
    { echo "run_mpi_test.sh: no case $mpi/cases/$case.case" >&2; exit 2; }
if [ $untraced = 0 ]; then
    for f in "$retrace" "$tracer" "$dump"; do
        if [ -z "$f" ] || [ ! -f "$f" ]; then
            echo "run_mpi_test.sh: traced cases need --retrace, --tracer and --dump" \
                "(missing: '$f')" >&2
            exit 2
        fi
    done
fi

PROG='' ARGS='' OUT='' TIMEOUT='' NP='' NODES=1 MODULES=1 STATUS=0 RECORD_STATUS=''
LAUNCH=record RECORD_ARGS='' ENV='' HISTOGRAM=0 LOCATIONS=0 THREAD_PROFILE=0 NOTRACE=0 TRUNCATED=0 DUMP='' CHECK=none CALLS=0 REPORT=0
HYDRA_HUP=0 EXPECT=$case LIVE_HIST=0 OTF2_ATTRS=0 HIST_ARGS='' ANALYZE='' REPLAY_ARGS='' MPI_REPLAY=1 MPI_LEFT_OUT=0
MPI_COLLS=''
REPLAY=1 FINDINGS='' OPENMPI=1 EXPECT_OPENMPI='' STATUS_OPENMPI=''
OPENMPI_ARGS=''
# shellcheck source=/dev/null
. "$mpi/cases/$case.case"
exp=$mpi/expected
w=$work/$case
rm -rf "$w" && mkdir -p "$w" || exit 2
program=$bin/mpi_$PROG
timeout=${RUN_TIMEOUT:-12}
plain_timeout=${TIMEOUT:-$timeout} # a hanging program is ended sooner
[ -n "$TIMEOUT" ] && RECORD_ARGS="$RECORD_ARGS --timeout $TIMEOUT"
tracer_arg="--tracer $tracer"
case $mpi_lib in
mpich) mpiexec=${MPIEXEC:-mpiexec.mpich} ;;
openmpi)
    mpiexec=${MPIEXEC:-mpirun.openmpi --allow-run-as-root --oversubscribe}
    [ -n "$OPENMPI_ARGS" ] && mpiexec="$mpiexec $OPENMPI_ARGS"
    tracer_arg= # record chooses the tracer from the program's MPI library
    if [ "$OPENMPI" = 0 ]; then
        echo "run_mpi_test.sh: $case: not a case for Open MPI (OPENMPI=0)" >&2
        exit 2
    fi
    [ -n "$STATUS_OPENMPI" ] && STATUS=$STATUS_OPENMPI
    [ -n "$EXPECT_OPENMPI" ] && EXPECT=$EXPECT_OPENMPI ;;
*) echo "run_mpi_test.sh: --mpi-lib: mpich or openmpi, not '$mpi_lib'" >&2; exit 2 ;;
esac
launcher=${mpiexec%% *} # its command, as record names it

failed=0
fail() {
    echo "FAIL: $*"
    failed=1
}
# compare EXPECTED ACTUAL WHAT
compare() {
    if ! diff -u "$1" "$2" > "$2.diff" 2>&1; then
        fail "$3 differs from $1:"
        head -n 60 "$2.diff"
    fi
}
# What mpiexec (hydra) prints on stdout when a rank dies, and the warnings MPICH's UCX layer
# prints there at MPI_Finalize about messages nobody received: not the program's output.
hydra_filter() {
    sed -e '/^=/d' -e '/^$/d' -e '/^YOUR APPLICATION TERMINATED/d' \
        -e '/ UCX  WARN /d' \
        -e '/^This typically refers to a problem/d' -e '/^Please see the FAQ page/d' \
        "$1" > "$1.prog"
}
# HYDRA_HUP=1: status 1 with hydra's "Hangup" banner stands for the expected status
hydra_hup() { # STATUS STDOUT
    [ "$HYDRA_HUP" = 1 ] && [ "$1" = 1 ] && grep -q "EXIT STRING: Hangup (signal 1)" "$2" &&
        echo "note: $2: mpiexec reported hydra's Hangup (exit 1), taken as the expected status"
}
show() { # a file that explains a failure, if it has anything
    [ -s "$1" ] && { echo "--- $1:"; head -n 30 "$1"; }
    true
}

# 1. The plain run.
# shellcheck disable=SC2086 # ARGS is a list of words
(cd "$w" && exec timeout -k 5 "$plain_timeout" $mpiexec -n "$NP" "$program" $ARGS) \
    > "$w/plain.out" 2> "$w/plain.err"
plain_status=$?
hydra_hup "$plain_status" "$w/plain.out" && plain_status=$STATUS
[ "$plain_status" = "$STATUS" ] ||
    { fail "plain run exited $plain_status, expected $STATUS"; show "$w/plain.err"; }
hydra_filter "$w/plain.out"
compare "$exp/${OUT:-$PROG}.out" "$w/plain.out.prog" "the plain run's stdout"
if [ $untraced = 1 ]; then
    [ $failed = 0 ] && echo "ok: $PROG runs without the tracer"
    exit $failed
fi

# 2. The traced run.
trace=$w/trace
emulate=nodes=$NODES,modules=$MODULES
if [ "$LAUNCH" = preload ] || [ "$LAUNCH" = linked ]; then
    preload="LD_PRELOAD=$tracer"
    if [ "$LAUNCH" = linked ]; then # the program itself links the tracer before MPI
        preload=
        program=${program}_linked
    fi
    # shellcheck disable=SC2086 # ENV, preload and ARGS are lists of words
    (cd "$w" && exec timeout -k 5 "$timeout" env $ENV RETRACE_OUT="$trace" \
        RETRACE_EMULATE="$emulate" $preload $mpiexec -n "$NP" "$program" $ARGS) \
        > "$w/traced.out" 2> "$w/traced.err"
else
    out="--out $trace" # no archive to name when no trace is written
    [ "$NOTRACE" = 1 ] && out=
    # shellcheck disable=SC2086 # RECORD_ARGS, ENV, out and ARGS are lists of words
    (cd "$w" && exec env $ENV timeout -k 5 "$timeout" "$retrace" record $tracer_arg \
        $out --nodes "$NODES" --modules "$MODULES" $RECORD_ARGS \
        -- $mpiexec -n "$NP" "$program" $ARGS) \
        > "$w/traced.out" 2> "$w/traced.err"
fi
traced_status=$?
hydra_hup "$traced_status" "$w/traced.out" && traced_status=$plain_status
if [ -n "$RECORD_STATUS" ]; then
    [ "$traced_status" = "$RECORD_STATUS" ] ||
        { fail "traced run exited $traced_status, expected $RECORD_STATUS"; show "$w/traced.err"; }
elif [ "$traced_status" != "$plain_status" ]; then
    fail "traced run exited $traced_status, the plain run $plain_status"; show "$w/traced.err"
fi
if [ -n "$TIMEOUT" ]; then # record ended the run, not the harness's own timeout
    grep -q "^retrace: record: $launcher did not finish within $TIMEOUT s: ending it" \
        "$w/traced.err" || fail "record did not say that it ended the run after $TIMEOUT s"
fi
if [ "$HISTOGRAM" = 1 ]; then
    cat "$w/plain.out.prog" "$exp/$case.hist" > "$w/traced.expected"
else
    cp "$w/plain.out.prog" "$w/traced.expected"
fi
hydra_filter "$w/traced.out"
compare "$w/traced.expected" "$w/traced.out.prog" "the traced run's stdout"
if [ -f "$exp/$case.err" ]; then # the tracer's warnings, exactly
    compare "$exp/$case.err" "$w/traced.err" "the traced run's stderr"
fi
# record's deadlock report: its times vary from run to run, the rest may not
# (two pending calls entered in the same microsecond print one time, not a range)
sed -n '/^retrace: record: the replay/,$p' "$w/traced.err" |
    sed -E -e 's/[0-9]+(\.[0-9]+)? (ps|ns|us|ms|s)([ ,)]|$)/T\3/g' \
        -e "s/recorded T to T /recorded T /" > "$w/report.txt"
if [ "$REPORT" = 1 ]; then
    compare "$exp/$case.report" "$w/report.txt" "record's report"
elif [ -s "$w/report.txt" ]; then
    fail "record printed a report:"
    show "$w/report.txt"
fi

# 3. The trace.
if [ "$NOTRACE" = 1 ]; then
    for f in "$trace" "$w"/retrace-*; do # the archive named, or record's default name
        [ ! -e "$f" ] || fail "a trace was written with trace writing off: $f"
    done
    [ $failed = 0 ] && echo "ok: $case"
    exit $failed
fi
if [ ! -f "$trace/traces.otf2" ]; then
    fail "no OTF2 archive at $trace"
    show "$w/traced.err"
    exit 1
fi
# The trace names the MPI library that recorded it (the tracer asks MPI_Get_library_version).
lib_name="MPICH [0-9]"
[ "$mpi_lib" = openmpi ] && lib_name="Open MPI [0-9]"
timeout -k 5 "$timeout" "$retrace" info "$trace" 2> /dev/null | grep -q "^recorded with $lib_name" ||
    fail "retrace info does not say the trace was recorded with $lib_name..."
if [ "$TRUNCATED" != 1 ]; then
    timeout -k 5 "$timeout" otf2-print "$trace/traces.otf2" > "$w/otf2-print.out" 2> "$w/otf2-print.err" ||
        fail "otf2-print exited $? (124: did not finish in ${timeout} s)"
    [ -s "$w/otf2-print.err" ] && { fail "otf2-print complained:"; show "$w/otf2-print.err"; }
fi
if [ "$LOCATIONS" = 1 ] && [ "$TRUNCATED" != 1 ]; then
    awk '$2 ~ /^[0-9]+$/ && $3 ~ /^[0-9]+$/ {
        r = $2 % 4294967296; t = ($2 - r) / 4294967296; x = ""
        if ($1 ~ /^MPI_I?(SEND|RECV)$/) {
            tag = $0; sub(/.*Tag: /, "", tag); sub(/,.*/, "", tag)
            len = $0; sub(/.*Length: /, "", len); sub(/,.*/, "", len)
            x = " tag=" tag " bytes=" len
        }
        print "rank " r " thread " t " " $1 x }' "$w/otf2-print.out" | LC_ALL=C sort | uniq -c |
        sed 's/^ *//' | LC_ALL=C sort -k2 > "$w/locations.txt"
    compare "$exp/$EXPECT.locations" "$w/locations.txt" "otf2-print's records per location"
fi
if [ "$THREAD_PROFILE" = 1 ]; then
    timeout -k 5 "$timeout" "$retrace" profile "$trace" 2> "$w/profile.err" |
        awk '/^Time per thread/ { on = 1; getline; next } on && NF == 0 { on = 0 }
            on { print $1, $2, $NF }' > "$w/threads.txt"
    compare "$exp/$EXPECT.threads" "$w/threads.txt" "retrace profile's time per thread"
fi
if [ "$OTF2_ATTRS" = 1 ] && [ "$TRUNCATED" != 1 ]; then
    awk '/^[A-Z_]+ +[0-9]+ +[0-9]+ / { rec = $1 " " $2; next }
        /ADDITIONAL ATTRIBUTES/ && /"retrace::disp"/ {
            d = $0; sub(/.*"retrace::disp" <[0-9]+>; UINT64; /, "", d); sub(/\).*/, "", d)
            if (d + 0 >= 4294967296) d = "ADDR"
            o = ""
            if ($0 ~ /"retrace::reduce_op"/) {
                o = $0; sub(/.*"retrace::reduce_op" <[0-9]+>; UINT8; /, "", o); sub(/\).*/, "", o)
                o = " reduce_op=" o
            }
            print rec " disp=" d o }
        /ADDITIONAL ATTRIBUTES/ && /"retrace::assert"/ {
            a = $0; sub(/.*"retrace::assert" <[0-9]+>; UINT8; /, "", a); sub(/\).*/, "", a)
            print rec " assert=" a }' "$w/otf2-print.out" | sort > "$w/otf2attrs.txt"
    compare "$exp/$EXPECT.otf2attrs" "$w/otf2attrs.txt" "otf2-print's RMA targets"
fi

# shellcheck disable=SC2086 # DUMP is a list of options
timeout -k 5 "$timeout" "$dump" --skip "$SKIP" $DUMP "$trace" > "$w/dump.txt" 2> "$w/dump.err"
dump_status=$?
if [ "$TRUNCATED" = 1 ]; then
    [ "$dump_status" = 3 ] || fail "trace_dump exited $dump_status, expected 3 (cut short)"
    grep -q '^truncated: ' "$w/dump.err" || fail "the trace is not reported cut short"
    # record assembled the raw files and removed them: no message may send anyone there
    grep -q "$trace: rank " "$w/dump.err" || fail "the note does not name the archive"
    grep -F "$trace.raw" "$w/traced.err" "$w/dump.err" &&
        fail "a message names the raw files, which record removed"
else
    [ "$dump_status" = 0 ] || fail "trace_dump exited $dump_status"
    [ -s "$w/dump.err" ] && { fail "trace_dump complained:"; show "$w/dump.err"; }
fi

case "$CHECK" in
dump) compare "$exp/$EXPECT.dump" "$w/dump.txt" "the trace" ;;
counts)
    grep -v -E '^(ranks|proc) ' "$w/dump.txt" | LC_ALL=C sort | uniq -c | sed 's/^ *//' \
        > "$w/counts.txt"
    compare "$exp/$EXPECT.counts" "$w/counts.txt" "the trace's event counts" ;;
sends)
    awk '$2 == "send" || $2 == "isend"' "$w/dump.txt" > "$w/sends.txt"
    compare "$exp/$EXPECT.sends" "$w/sends.txt" "the trace's sends" ;;
wildcards)
    awk '$2 == "recv" || $2 == "irecv" {
        op = "-"
        for (i = 4; i <= NF; i++) if ($i ~ /^op=/) op = substr($i, 4)
        print $1, $2, $3, op
    }' "$w/dump.txt" > "$w/wildcards.txt"
    compare "$exp/$EXPECT.wildcards" "$w/wildcards.txt" "the receives' wildcards" ;;
none) ;;
*) fail "unknown CHECK=$CHECK in the case" ;;
esac
if [ "$CALLS" = 1 ]; then
    # shellcheck disable=SC2086
    timeout -k 5 "$timeout" "$dump" --skip "$SKIP" --no-header "$trace" 2> /dev/null |
        awk '$2 == "enter" { n[$3]++ } END { for (c in n) print c, n[c] }' | LC_ALL=C sort \
        > "$w/calls.txt"
    compare "$exp/$EXPECT.calls" "$w/calls.txt" "the calls entered"
fi

# 4. The analyzer on the trace.
if [ "$LIVE_HIST" = 1 ]; then
    # What the tracer printed at MPI_Finalize, byte for byte: the traced stdout after the
    # plain run's lines.
    tail -n +"$(($(wc -l < "$w/plain.out.prog") + 1))" "$w/traced.out.prog" > "$w/live.hist"
    # shellcheck disable=SC2086 # HIST_ARGS is a list of options
    timeout -k 5 "$timeout" "$retrace" hist "$trace" $HIST_ARGS > "$w/hist.out" 2> "$w/hist.err" ||
        { fail "retrace hist exited $?"; show "$w/hist.err"; }
    compare "$w/live.hist" "$w/hist.out" "retrace hist $HIST_ARGS against the live histogram"
fi
# A complete trace must replay to completion on the built-in engine: exit 0, a prediction
# (and the same results without the collective fast path: --check-fast).
if [ "$TRUNCATED" != 1 ] && [ "$REPLAY" = 1 ]; then
    # shellcheck disable=SC2086 # REPLAY_ARGS is a list of words
    timeout -k 5 "$timeout" "$retrace" replay --check-fast $REPLAY_ARGS "$trace" \
        > "$w/replay.out" 2> "$w/replay.err" ||
        { fail "retrace replay exited $?"; show "$w/replay.out"; show "$w/replay.err"; }
    grep -q '^predicted run time  ' "$w/replay.out" ||
        fail "retrace replay printed no prediction"
fi
# ... and on the real MPI library (retrace replay --engine mpi, one process per rank): it must
# complete and send exactly the messages and bytes the trace holds, as trace_dump counts them.
if [ "$TRUNCATED" != 1 ] && [ "$REPLAY" = 1 ] && [ "$MPI_REPLAY" = 1 ]; then
    # shellcheck disable=SC2086 # REPLAY_ARGS is a list of words
    # shellcheck disable=SC2086 # $mpiexec is a command and its options
    (cd "$w" && exec timeout -k 5 "$timeout" $mpiexec -n "$NP" "$retrace" replay --engine mpi \
        --check-fast $REPLAY_ARGS "$trace") > "$w/mpi_replay.out" 2> "$w/mpi_replay.err" ||
        { fail "retrace replay --engine mpi exited $?"; show "$w/mpi_replay.out"
          show "$w/mpi_replay.err"; }
    want=$(awk '$2 == "send" || $2 == "isend" {
            n++; for (i = 4; i <= NF; i++) if ($i ~ /^bytes=/) b += substr($i, 7)
        } END { printf "%d (%d bytes); the trace has %d (%d bytes)", n, b, n, b }' "$w/dump.txt")
    got=$(sed -n 's/^messages  *//p' "$w/mpi_replay.out")
    [ "$got" = "$want" ] || fail "the replay on MPI sent '$got', expected '$want'"
    left=$(sed -n 's/^collective calls .*, \([0-9]*\) left out$/\1/p' "$w/mpi_replay.out")
    [ "$left" = "$MPI_LEFT_OUT" ] ||
        fail "the replay on MPI left out '$left' collective calls, expected $MPI_LEFT_OUT"
    # every collective call of the trace is accounted for, nonblocking ones too
    calls=$(awk '$2 == "coll_end" || $2 == "nbc_request"' "$w/dump.txt" | wc -l)
    lib=MPICH
    [ "$mpi_lib" = openmpi ] && lib="Open MPI"
    counts=$(sed -n "s/^collective calls  *\([0-9]*\) by $lib's choice (\([0-9]*\) of them nonblocking), \([0-9]*\) with $lib's algorithm forced, \([0-9]*\) as retrace's schedule, \([0-9]*\) left out$/\1 \2 \3 \4 \5/p" \
        "$w/mpi_replay.out")
    got=$(echo "$counts" | awk '{ print $1 + $3 + $4 + $5 }')
    [ "$got" = "$calls" ] ||
        fail "the replay on MPI accounts for '$got' collective calls, the trace has $calls"
    [ -z "$MPI_COLLS" ] || [ "${counts% *}" = "$MPI_COLLS" ] ||
        fail "the replay on MPI ran collective calls '${counts% *}', expected '$MPI_COLLS'" \
            "(by $lib's choice, of them nonblocking, forced, as retrace's schedule)"
fi

# 5. retrace check: the findings of an erroneous program, none for a correct one.
timeout -k 5 "$timeout" "$retrace" check "$trace" > "$w/check.raw" 2> "$w/check.err"
check_status=$?
sed -E 's/[0-9]+(\.[0-9]+)? (ps|ns|us|ms|s)([ ,);:]|$)/T\3/g' "$w/check.raw" > "$w/check.out"
if [ -n "$FINDINGS" ] && { [ "$FINDINGS" != 0 ] || [ -f "$exp/$EXPECT.check" ]; }; then
    [ "$check_status" = "$FINDINGS" ] ||
        { fail "retrace check exited $check_status, expected $FINDINGS"; show "$w/check.err"; }
    compare "$exp/$EXPECT.check" "$w/check.out" "retrace check's findings"
else
    [ "$check_status" = 0 ] || { fail "retrace check exited $check_status"; show "$w/check.err"; }
    grep -E '^(error|warning) ' "$w/check.out" &&
        fail "retrace check found the above in a correct program"
fi

for a in $ANALYZE; do # each NAME runs 'retrace $ARGS_NAME TRACE': stdout = expected/EXPECT.NAME
    eval "args=\$ARGS_$a"
    # shellcheck disable=SC2086,SC2154 # args is a list of words, set by eval
    timeout -k 5 "$timeout" "$retrace" $args "$trace" > "$w/an.$a.out" 2> "$w/an.$a.err" ||
        { fail "retrace $args exited $?"; show "$w/an.$a.err"; }
    compare "$exp/$EXPECT.$a" "$w/an.$a.out" "retrace $args"
done

[ $failed = 0 ] && echo "ok: $case"
exit $failed
