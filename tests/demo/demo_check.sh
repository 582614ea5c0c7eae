#!/bin/sh
# retrace demo (make demo), one case:
#   recorded    it records examples/patterns/stencil under MPICH (4 ranks, 2 emulated nodes
#               in 2 modules) and analyses that trace; run twice into one folder
#   no_mpiexec  no mpiexec on PATH: one warning, then the bundled trace
#   run_fails   the recording fails (no tracer): record's error, one warning, the bundled trace
#   no_record   --no-record: the bundled trace, nothing on stderr
# usage: demo_check.sh RETRACE SOURCE_DIR WORK CASE
set -u
retrace=$1 src=$2 work=$3 case=$4
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
has() { grep -q -- "$1" out || fail "stdout lacks '$1'"; }
value() { awk -v k="$1" '$1 == k { print $2; exit }' out; } # a line of retrace info
bundled=$src/examples/halo.csv
warning="retrace: warning: demo: no run recorded:"

demo() { # COMMAND...: runs it (the demo into demo/), stdout to out, stderr to err
    timeout 170 "$@" > out 2> err
    st=$?
    [ $st -eq 0 ] || fail "demo: exit status $st: $(cat err)"
}

bundled_trace() { # the demo went on with the bundled trace
    has "== [12]\. The bundled trace: $bundled"
    [ "$(value ranks)" = 4 ] && [ "$(value nodes)" = 2 ] && [ "$(value modules)" = 2 ] ||
        fail "summary of the bundled trace: $(head -20 out)"
    has "Round trip: the 280 events are the same, field by field."
    [ -e demo/stencil-otf2 ] && fail "a trace was recorded"
}

common() { # what every demo ends with
    has "Gateway crossings (wire level): 4 ranks in 2 modules"
    has "^recorded "
    for f in hist.svg gateways.svg whatif.svg; do
        [ -s "demo/$f" ] || fail "no plot demo/$f"
    done
}

case $case in
recorded)
    for run in 1 2; do # the second run replaces the first one's results
        demo "$retrace" demo --out demo
        [ "$(cat err)" = "retrace: trace written to demo/stencil-otf2" ] ||
            fail "run $run: stderr: $(cat err)"
        has "^== 1\. A run of this machine, recorded: examples/patterns/stencil.c"
        has "^\$ retrace record --out demo/stencil-otf2 --nodes 2 --modules 2 -- .*mpiexec.* -n 4 .*/patterns/stencil "
        grep -Eq "^stencil ranks=4 iters=20 bytes=65536 " out || fail "no output of the program"
        has "^== 2\. The recorded trace: demo/stencil-otf2"
        # the summary of the recorded trace: 4 ranks, 2 nodes, 2 modules, messages through
        # the gateway, point-to-point and collective events
        [ "$(value ranks)" = 4 ] || fail "ranks: $(value ranks)"
        [ "$(value nodes)" = 2 ] || fail "nodes: $(value nodes)"
        [ "$(value modules)" = 2 ] || fail "modules: $(value modules)"
        gw=$(value gw) p2p=$(value point-to-point) coll=$(value collective)
        [ "${gw:-0}" -gt 0 ] || fail "no gateway messages: '$gw'"
        [ "${p2p:-0}" -gt 0 ] && [ "${coll:-0}" -gt 0 ] || fail "events: p2p '$p2p', coll '$coll'"
        grep -Eq "^Round trip: the [0-9]+ events are the same, field by field\.$" out ||
            fail "round trip: $(grep '^Round trip' out)"
        [ -s demo/stencil-otf2/traces.otf2 ] && [ -s demo/stencil.csv ] ||
            fail "run $run: no trace files"
        has "^The trace: demo/stencil-otf2$"
        common
    done
    # the trace holds the program's calls: 4 ranks, 22 iterations (2 of warm-up) of
    # 4 Irecv, 4 Isend, 1 Waitall, 1 Allreduce, and 2 barriers
    "$retrace" profile demo/stencil-otf2 > profile 2>&1 || fail "profile: $(cat profile)"
    calls=$(awk '/^Time in MPI per function \(all ranks\)/ { on = 1; next } on && NF == 0 { on = 0 }
        on && $1 ~ /^MPI_(Allreduce|Barrier|Irecv|Isend|Waitall)$/ { print $1, $2 }' profile |
        sort | tr '\n' ' ')
    [ "$calls" = "MPI_Allreduce 88 MPI_Barrier 8 MPI_Irecv 352 MPI_Isend 352 MPI_Waitall 88 " ] ||
        fail "calls: $calls"
    ;;
no_mpiexec)
    # a PATH with gnuplot (the plots) and no mpiexec
    mkdir bin && ln -s "$(command -v gnuplot)" bin/gnuplot || exit 1
    demo env PATH="$work/bin" "$retrace" demo --out demo
    [ "$(cat err)" = "$warning neither mpiexec.mpich nor mpiexec is on PATH (Debian package mpich); taking the bundled trace $bundled" ] ||
        fail "stderr: $(cat err)"
    has "^== 1\. A run of this machine, recorded"
    bundled_trace
    common
    ;;
run_fails)
    demo env RETRACE_TRACER="$work/no-such-tracer.so" "$retrace" demo --out demo
    [ "$(wc -l < err)" -eq 2 ] &&
        grep -q "^retrace: record: $work/no-such-tracer.so: No such file or directory$" err &&
        [ "$(tail -n 1 err)" = "$warning the run failed (exit status 2); taking the bundled trace $bundled" ] ||
        fail "stderr: $(cat err)"
    bundled_trace
    common
    ;;
no_record)
    demo "$retrace" demo --out demo --no-record
    [ -s err ] && fail "stderr: $(cat err)"
    grep -q "A run of this machine" out && fail "it tried to record"
    has "^== 1\. The bundled trace"
    bundled_trace
    common
    ;;
*)
    echo "demo_check.sh: unknown case $case" >&2
    exit 2
    ;;
esac
[ $fails -eq 0 ] || exit 1
echo "demo_check $case: ok"
