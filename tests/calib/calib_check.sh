#!/bin/sh
# retrace calibrate under mpiexec (ctest label "mpi"): the model file it writes is read by
# replay and pipeline, its values are plausible, the sections measured are the ones the
# placement has, and every error is one line and a non-zero exit on all ranks.
# usage: calib_check.sh RETRACE EXAMPLES_DIR WORK CASE [OPEN_MPI_VERSION]
#   CASE: shm (2 ranks, one node), net (RETRACE_NODE_ID 0 and 1), gw (nodes 0 0 1,
#         from (calibrate --from on a recorded run; 5th argument: the allreduce pattern),
#         modules 0 0 1), single (no mpiexec, from a base model), errors; under Open MPI's
#         mpirun (OPEN_MPI_VERSION: pkg-config's, e.g. 4.1.4): openmpi (2 ranks, one node),
#         openmpi_errors (usage errors, and a retrace without its sibling retrace-openmpi)
set -u
retrace=$1 examples=$2 work=$3 case=$4 ompi_version=${5:-}
# Open MPI's launcher as root (the tests' user in CI) on 2 cores: docs/calibrate.md.
ompirun="mpirun.openmpi --allow-run-as-root --oversubscribe"
rm -rf "$work" && mkdir -p "$work" || exit 1
cd "$work" || exit 1
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
# The warning of a machine too noisy for a model (docs/calibrate.md, "Noise"): allowed
# alongside the last line, since a test cannot choose its machine's load.
noisy='^retrace: warning: calibrate: \[[a-z]*\] the median batch took [0-9]*% longer than the best in the median over sizes: the machine is too noisy, and the model (the best batches) is faster than what applications see here; rerun on a quieter machine$'
# Runs a command with a time limit: a calibration that hangs is a failure, not a stuck test.
run() { timeout 30 "$@"; }

# The model in effect, as "section key value-in-base-units" lines (ps, bytes/s, bytes).
values() {
    "$retrace" pipeline --print-model --model "$1" | awk '
        function num(v, u) { sub(/^[0-9.]+/, "", u); v = substr(v, 1, length(v) - length(u)); return v + 0 }
        /^\[/ { sec = substr($1, 2, length($1) - 2); next }
        /^[a-z_]+ = / {
            v = $3; u = v; n = num(v, u); sub(/^[0-9.]+/, "", u)
            f = 1
            if (u == "ps") f = 1; else if (u == "ns") f = 1e3; else if (u == "us") f = 1e6
            else if (u == "ms") f = 1e9; else if (u == "s") f = 1e12
            else if (u == "KB/s") f = 1e3; else if (u == "MB/s") f = 1e6; else if (u == "GB/s") f = 1e9
            else if (u == "KiB" || u == "KiB/s") f = 1024; else if (u == "MiB" || u == "MiB/s") f = 1048576
            else if (u == "GiB" || u == "GiB/s") f = 1073741824
            printf "%s %s %.0f\n", (sec == "" ? "global" : sec), $1, n * f
        }'
}

# KEY of SECTION within [LO, HI] (base units).
within() {
    v=$(values "$model" | awk -v s="$1" -v k="$2" '$1 == s && $2 == k { print $3 }')
    if [ -z "$v" ] || ! awk -v v="$v" -v lo="$3" -v hi="$4" 'BEGIN { exit !(v >= lo && v <= hi) }'; then
        fail "[$1] $2 = '$v' not within $3 .. $4"
    fi
}

# The section was measured (its comment says between which ranks) or not.
measured() {
    awk -v s="[$1]" '$0 == s { on = 1; next } /^\[/ { on = 0 } on && /^# measured / { found = 1 }
        END { exit !found }' "$model" || fail "[$1] not measured"
    # with the spread of its batches (docs/calibrate.md, "Noise")
    awk -v s="[$1]" '$0 == s { on = 1; next } /^\[/ { on = 0 }
        on && /^# spread: the median batch [0-9.]+% above the best in the median over sizes, [0-9.]+% at most \(at [0-9]+ bytes\)(: too noisy, the model is faster than what applications see here)?$/ { found = 1 }
        END { exit !found }' "$model" || fail "[$1] has no spread comment"
}
absent() {
    awk -v s="[$1]" -v why="$2" '$0 == s { on = 1; next } /^\[/ { on = 0 }
        on && index($0, "# not measured: " why) == 1 { found = 1 } END { exit !found }' "$model" ||
        fail "[$1] should be 'not measured: $2'"
}

# The file works where models are read, and a measured type's values are plausible.
usable() {
    run "$retrace" replay "$examples/halo.csv" --model "$model" > replay.out 2> replay.err ||
        fail "replay --model: $(cat replay.err)"
    grep -q '^predicted run time' replay.out || fail "replay printed no prediction"
    run "$retrace" pipeline "$examples/halo.csv" --model "$model" > pipeline.out 2> pipeline.err ||
        fail "pipeline --model: $(cat pipeline.err)"
    grep -qx 'injection = bytes' "$model" || fail "injection is not bytes"
    within global reduce_bandwidth 1e7 1e12
    # a cost per element (floats against doubles: 0.1 ps to 100 ns), or the note that none showed
    if grep -q '^reduce_element = ' "$model"; then
        within global reduce_element 0.1 1e5
        grep -q '^# reduce_bandwidth, reduce_element: MPI_Reduce_local (MPI_SUM) on doubles and on floats' \
            "$model" || fail "reduce_element comment"
    else
        grep -q '^# reduce_bandwidth: .*; reduce_element: 0, as floats cost no less than doubles' \
            "$model" || fail "no reduce_element, and no comment saying why"
    fi
    # time sharing: the CPUs this process may use (no binding here), a turn of 100 us to 1 s
    cpus=$(nproc)
    within global cores "$cpus" "$cpus"
    grep -q '^# cores: the CPUs the ranks of a node may run on' "$model" || fail "cores comment"
    within global timeslice 1e8 1e12
    grep -q '^# timeslice: ' "$model" || fail "timeslice comment"
}
# Bounds wide enough for a machine busy with other work, narrow enough to catch a unit
# mistake (a factor of 1000) or garbage.
plausible() { # SECTION
    within "$1" latency 0 1e9          # up to 1 ms
    within "$1" bandwidth 1e7 1e12     # 10 MB/s to 1 TB/s
    within "$1" overhead 1e3 1e9       # 1 ns to 1 ms
    within "$1" gap 0 1e9
    within "$1" eager 0 262144         # --quick measures up to 256 KiB
}

case $case in
shm)
    model=shm.conf
    echo "an earlier model" > "$model" # replaced with --force
    run mpiexec.mpich -n 2 "$retrace" calibrate --quick --force --out "$model" > out 2> err ||
        fail "calibrate exited $?: $(cat err)"
    [ -s out ] && fail "stdout should be empty with --out: $(cat out)"
    grep -q '^calibrate: 2 ranks on 1 node in 1 module; measured loop, shm in [0-9.]* s; not measured (kept from built-in defaults): net, gw; model written to shm.conf$' err ||
        fail "summary line: $(cat err)"
    # Nothing else on stderr but, on a busy machine, the warning about disturbed sizes.
    [ "$(grep -v '^retrace: warning: calibrate: \[[a-z]*\] at [0-9]* of [0-9]* sizes every batch was disturbed by other processes (left out of the fit): rerun on a quieter machine$' err | grep -cv "$noisy")" -eq 1 ] ||
        fail "stderr should be the summary line: $(cat err)"
    usable
    measured loop
    measured shm
    plausible shm
    plausible loop
    absent net "no two ranks on different nodes of one module"
    absent gw "no two ranks in different modules"
    grep -q '^# measured between ranks 0 and 1 (nodes 0 and 0, modules 0 and 0)' "$model" ||
        fail "shm pair comment"
    # [calls]: the CPU costs of the calls calibrate knows, each fixed or fixed + n / rate
    grep -q '^# CPU time of a call beyond its messages' "$model" || fail "[calls] comment"
    awk '$0 == "[calls]" { on = 1; next } /^\[/ { on = 0 } on && !/^#/ && NF { print }' \
        "$model" > calls
    [ -s calls ] || fail "no [calls] costs"
    grep -Evq '^MPI_(Isend|Irecv|Put|Win_fence|Barrier|Bcast|Reduce|Allreduce|Allgather|Alltoall)(/[a-z_]+)? = [0-9.]+[pnum]?s( \+ n / [0-9.]+[KMG]?B/s)?$' \
        calls && fail "bad [calls] line: $(cat calls)"
    # per-algorithm costs: every algorithm of these collectives that MPICH 4.0 can be forced
    # to run and retrace knows, each measured at a size MPICH runs it for on 2 ranks (its
    # ring allreduce cannot be forced: not among MPICH 4.0's choices), with its comment
    sed -n 's|^\(MPI_[A-Za-z]*/[a-z_]*\) = .*|\1|p' calls > algs
    printf '%s\n' MPI_Barrier/dissemination MPI_Bcast/binomial MPI_Bcast/scatter_ring \
        MPI_Bcast/scatter_rdb MPI_Allgather/recursive_doubling MPI_Allgather/ring \
        MPI_Allgather/bruck MPI_Alltoall/bruck MPI_Alltoall/direct MPI_Alltoall/pairwise \
        MPI_Allreduce/recursive_doubling MPI_Allreduce/rabenseifner MPI_Reduce/binomial \
        MPI_Reduce/rabenseifner > algs.want
    cmp -s algs algs.want || fail "algorithm costs: $(tr '\n' ' ' < algs)"
    grep -q "^# MPI_Name/alg: the same with MPICH's algorithm forced" "$model" ||
        fail "no algorithm comment"
    while read -r a; do
        grep -Eq "^#   $a:( [0-9]+ B \+[0-9]+%)+(; refused by MPICH at the small size)?$" "$model" ||
            fail "no spread comment for $a"
    done < algs
    grep -q '^#   MPI_Allreduce/rabenseifner: 65536 B +[0-9]*%; refused by MPICH at the small size$' \
        "$model" || fail "rabenseifner on one double is not refused"
    ;;
net)
    model=net.conf
    run mpiexec.mpich -n 1 -env RETRACE_NODE_ID 0 "$retrace" calibrate --quick --out "$model" : \
        -n 1 -env RETRACE_NODE_ID 1 "$retrace" calibrate --quick --out "$model" > out 2> err ||
        fail "calibrate exited $?: $(cat err)"
    grep -q 'on 2 nodes in 1 module; measured loop, net in' err || fail "summary: $(cat err)"
    usable
    measured net
    plausible net
    absent shm "no two ranks on one node"
    grep -q '^# measured between ranks 0 and 1 (nodes 0 and 1, modules 0 and 0)' "$model" ||
        fail "net pair comment"
    grep -q 'nodes from RETRACE_NODE_ID or PSP_SMP_NODE_ID' "$model" || fail "placement comment"
    ;;
gw)
    model=gw.conf
    run mpiexec.mpich -n 2 -env RETRACE_NODE_ID 0 "$retrace" calibrate --quick --out "$model" : \
        -n 1 -env RETRACE_NODE_ID 1 -env RETRACE_MODULE_ID 1 "$retrace" calibrate --quick \
        --out "$model" > out 2> err || fail "calibrate exited $?: $(cat err)"
    grep -q '^calibrate: 3 ranks on 2 nodes in 2 modules; measured loop, shm, gw in' err ||
        fail "summary: $(cat err)"
    usable
    measured shm
    measured gw
    plausible gw
    absent net "no two ranks on different nodes of one module"
    grep -q '^# measured between ranks 0 and 2 (nodes 0 and 1, modules 0 and 1)' "$model" ||
        fail "gw pair comment"
    ;;
single)
    # Without mpiexec, from a base model whose values not measured must stay.
    model=single.conf
    printf 'gateways = 3\n[net]\nlatency = 7us\n' > base.conf
    # RETRACE_PROGRESS=1: the progress line, as on a terminal (then cleared)
    RETRACE_PROGRESS=1 run "$retrace" calibrate --quick --model base.conf > "$model" 2> err ||
        fail "calibrate exited $?: $(cat err)"
    grep -q '^calibrate: one process can only measure loop' err || fail "no note: $(cat err)"
    tr '\r' '\n' < err | grep -q '^calibrate: 1 of 2: loop (rank 0) ([0-9]* s)' ||
        fail "no progress line: $(cat err)"
    tr '\r' '\n' < err | grep -q '^calibrate: 2 of 2: the reduction rate and the timeslice' ||
        fail "no second step: $(cat err)"
    usable
    measured loop
    plausible loop
    absent shm "no two ranks on one node"
    within global gateways 3 3
    within net latency 7000000 7000000
    grep -q '^# measured: loop; kept from base.conf: shm, net, gw, gateways, gw_mtu, contention$' \
        "$model" || fail "kept-from comment"
    grep -q '^\[calls\]' "$model" && fail "one process measures no [calls]"
    ;;
from)
    # calibrate --from on a recorded run (docs/calibrate.md, "A model from a trace"): the
    # allreduce loop of examples/patterns on 2 ranks (the 5th argument: its program). Its
    # blocking collectives give the [calls] costs of MPI_Allreduce and MPI_Barrier, each
    # instance once (every rank's call); ranks that shared CPUs (fewer than 2 here) give none.
    pattern=$ompi_version
    model=from.conf
    run "$retrace" record --out ar -- mpiexec.mpich -n 2 "$pattern" -i 300 -s 8 > rec.out 2> rec.err ||
        fail "record exited $?: $(cat rec.err)"
    run "$retrace" calibrate --from ar --out "$model" > out 2> err || fail "calibrate --from: $(cat err)"
    # instances: rank 0's calls of each function (the profile's per-rank table)
    calls() {
        "$retrace" profile ar | awk -v f="$1" '$1 == f && $2 == "0" && NF == 7 { print $3 }'
    }
    nar=$(calls MPI_Allreduce) nb=$(calls MPI_Barrier)
    [ "$nar" -ge 300 ] 2> /dev/null || fail "profile: $nar MPI_Allreduce calls on rank 0"
    if [ "$(nproc)" -ge 2 ]; then
        want="calibrate: 0 messages matched in ar, 0 with the receiver waiting; fitted: none; call costs: MPI_Allreduce, MPI_Barrier; model written to $model"
        [ "$(cat err)" = "$want" ] || fail "last line: $(cat err)"
        grep -q "^# blocking collectives: $((nar + nb)) gave call costs (\[calls\]); left out: 0 with a rank that shared its host's CPUs, 0 of other kinds" "$model" ||
            fail "no 'blocking collectives: $((nar + nb)) gave call costs' comment"
        grep -Eq "^#   MPI_Allreduce: $nar calls of 8 bytes; at 8 bytes [0-9.]+ [mun]?s recorded, [0-9.]+ [mun]?s engine( \(longer: no cost there\))?$" "$model" ||
            fail "no MPI_Allreduce line of $nar calls in [calls]'s comment"
        grep -q "^#   MPI_Barrier: $nb calls of 0 bytes; " "$model" || fail "no MPI_Barrier line"
    else
        grep -q "^# blocking collectives: 0 gave call costs (\[calls\]); left out: $((nar + nb)) with a rank that shared its host's CPUs" "$model" ||
            fail "one CPU: the collectives are not all left out"
    fi
    run "$retrace" replay ar --model "$model" > replay.out 2> replay.err ||
        fail "replay --model: $(cat replay.err)"
    grep -q '^predicted run time' replay.out || fail "replay printed no prediction"
    ;;
errors)
    # A usage error: its two lines from the first process only, status 2 on all.
    run mpiexec.mpich -n 2 "$retrace" calibrate --fast > out 2> err
    st=$?
    [ $st -eq 2 ] || fail "bad option: status $st"
    printf '%s\n' "retrace calibrate: --fast: unknown option" "Try 'retrace calibrate --help'." |
        cmp -s - err || fail "bad option: $(cat err)"
    # An unwritable output: found before measuring, one line, status 2.
    run mpiexec.mpich -n 2 "$retrace" calibrate --quick --out "$work/no/such/dir/m.conf" > out 2> err
    st=$?
    [ $st -eq 2 ] || fail "unwritable: status $st"
    [ "$(cat err)" = "retrace: calibrate: $work/no/such/dir/m.conf: cannot write the model: No such file or directory" ] ||
        fail "unwritable: $(cat err)"
    # A directory as output, and an existing file without --force: usage errors.
    run mpiexec.mpich -n 2 "$retrace" calibrate --quick --out "$work" > out 2> err
    st=$?
    printf '%s\n' "retrace calibrate: --out: $work: is a directory" \
        "Try 'retrace calibrate --help'." | cmp -s - err ||
        fail "directory: status $st: $(cat err)"
    [ $st -eq 2 ] || fail "directory: status $st"
    echo "an earlier model" > old.conf
    run mpiexec.mpich -n 2 "$retrace" calibrate --quick --out old.conf > out 2> err
    st=$?
    printf '%s\n' "retrace calibrate: --out: old.conf: exists (--force replaces it)" \
        "Try 'retrace calibrate --help'." | cmp -s - err || fail "existing: $(cat err)"
    [ $st -eq 2 ] || fail "existing: status $st"
    [ "$(cat old.conf)" = "an earlier model" ] || fail "existing: old.conf changed"
    # A node id that is not a number on one rank: every rank fails, rank 0 says why.
    run mpiexec.mpich -n 1 "$retrace" calibrate --quick --out m.conf : \
        -n 1 -env RETRACE_NODE_ID x1 "$retrace" calibrate --quick --out m.conf > out 2> err
    st=$?
    [ $st -eq 1 ] && [ "$(cat err)" = "retrace: calibrate: rank 1: RETRACE_NODE_ID=x1 is not a node id (a number)" ] ||
        fail "bad node id: status $st: $(cat err)"
    [ -e m.conf ] && fail "a failed calibration left m.conf behind"
    ;;
openmpi)
    # The shm case under Open MPI's mpirun: retrace runs retrace-openmpi, which writes the
    # same model format; its comments name Open MPI and its version.
    model=ompi.conf
    # shellcheck disable=SC2086 # $ompirun is a command and its options
    run $ompirun -n 2 "$retrace" calibrate --quick --out "$model" > out 2> err ||
        fail "calibrate exited $?: $(cat err)"
    [ -s out ] && fail "stdout should be empty with --out: $(cat out)"
    grep -q '^calibrate: 2 ranks on 1 node in 1 module; measured loop, shm in [0-9.]* s; not measured (kept from built-in defaults): net, gw; model written to ompi.conf$' err ||
        fail "summary line: $(cat err)"
    [ "$(grep -v '^retrace: warning: calibrate: \[[a-z]*\] at [0-9]* of [0-9]* sizes every batch was disturbed by other processes (left out of the fit): rerun on a quieter machine$' err | grep -cv "$noisy")" -eq 1 ] ||
        fail "stderr should be the summary line: $(cat err)"
    # the first comments; the MPI line is MPI_Get_library_version's (its package and date
    # are the distribution's)
    head -4 "$model" | sed -e 's/ in [0-9.]* s$/ in T s/' \
        -e "s/^# MPI: Open MPI v$ompi_version, .*/# MPI: Open MPI v$ompi_version, .../" > head.got
    cat > head.want <<TXT
# retrace network model (docs/model.md), from retrace calibrate
# measured by retrace calibrate with 2 ranks on 1 node in 1 module (nodes from MPI_COMM_TYPE_SHARED, modules from nowhere (all in module 0)), in T s
# MPI: Open MPI v$ompi_version, ...
# measured: loop, shm; kept from built-in defaults: net, gw, gateways, gw_mtu, contention
TXT
    cmp -s head.want head.got || fail "the model's first comments: $(diff head.want head.got)"
    usable
    measured loop
    measured shm
    plausible shm
    plausible loop
    absent net "no two ranks on different nodes of one module"
    absent gw "no two ranks in different modules"
    grep -q '^# measured between ranks 0 and 1 (nodes 0 and 0, modules 0 and 0)' "$model" ||
        fail "shm pair comment"
    # [calls]: measured by Open MPI's calls as by MPICH's (a call whose cost is lost in the
    # noise may be left out: no fixed list)
    awk '$0 == "[calls]" { on = 1; next } /^\[/ { on = 0 } on && !/^#/ && NF { print }' \
        "$model" > calls
    grep -q '^MPI_Isend = ' calls || fail "no [calls] MPI_Isend: $(cat calls)"
    # no algorithm costs under Open MPI, and one note that says why
    grep -q '^# algorithm costs (MPI_Allreduce/ring) not measured: Open MPI takes a forced algorithm only into communicators made after it is set' \
        "$model" || fail "no note on algorithm costs under Open MPI"
    grep -Evq '^MPI_(Isend|Irecv|Put|Win_fence|Barrier|Bcast|Reduce|Allreduce|Allgather|Alltoall) = [0-9.]+[pnum]?s( \+ n / [0-9.]+[KMG]?B/s)?$' \
        calls && fail "bad [calls] line: $(cat calls)"
    ;;
openmpi_errors)
    # A usage error: its two lines from the first process only (mpirun adds its own report
    # of the failed job, before or after them: the order of forwarded output varies), status 2.
    # shellcheck disable=SC2086 # $ompirun is a command and its options
    run $ompirun -n 2 "$retrace" calibrate --fast > out 2> err
    st=$?
    [ $st -eq 2 ] || fail "bad option: status $st"
    grep -E "^(retrace|Try ')" err > err.head
    printf '%s\n' "retrace calibrate: --fast: unknown option" "Try 'retrace calibrate --help'." |
        cmp -s - err.head || fail "bad option: $(cat err)"
    # retrace without retrace-openmpi beside it: one line from the first process, status 1,
    # nothing measured.
    # retrace and retrace-mpich (which runs calibrate for it), without retrace-openmpi
    mkdir alone && cp "$retrace" "$(dirname "$retrace")/retrace-mpich" alone/ || exit 1
    # shellcheck disable=SC2086 # $ompirun is a command and its options
    run $ompirun -n 2 alone/retrace calibrate --quick --out m.conf > out 2> err
    st=$?
    [ $st -eq 1 ] || fail "no sibling: status $st"
    want="retrace: started by Open MPI's mpirun, but this retrace uses MPICH and $work/alone/retrace-openmpi cannot be run (No such file or directory): build retrace where Open MPI's development files are installed, or run it under mpiexec.mpich"
    if [ "$(grep -c '^retrace: ' err)" != 1 ] || ! grep -qxF "$want" err; then
        fail "no sibling: $(cat err)"
    fi
    [ -e m.conf ] && fail "no sibling: m.conf written"
    model=none
    ;;
*)
    echo "calib_check: unknown case '$case'" >&2
    exit 2
    ;;
esac
if [ $fails -gt 0 ]; then
    echo "--- $model:"
    cat "$model" 2> /dev/null
    exit 1
fi
echo "calib_check $case: ok"
