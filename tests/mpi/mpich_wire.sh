#!/bin/sh
# mpi.mpich.wire_esize: MPICH's own choice of allreduce algorithm against retrace's (issue 18).
# mpich_esize runs allreduces of 4 floats and of 2 doubles (16 bytes, 4 and 2 elements) under
# MPICH 4.0.2 (ch4:ucx) with ucp_count preloaded, which counts the messages MPICH hands to UCX
# between the program's marks: once with MPICH's own choice (MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM
# =auto) and once with each algorithm forced (recursive_doubling, reduce_scatter_allgather:
# MPICH's names for recursive doubling and Rabenseifner). retrace records the same program
# (one kind a run) and counts its allreduce messages at the wire level with MPICH's selection
# (retrace's prediction), and in replays with each algorithm forced (--coll allreduce=ALG
# --out-trace). Per call and kind: the two forced algorithms must send different counts in
# MPICH (else nothing is told apart) and the same counts as retrace's, retrace's prediction
# must equal one of its forced algorithms, and MPICH's own choice must send what MPICH sends
# with that algorithm forced. MPICH falls back to recursive doubling when Rabenseifner is
# forced on fewer elements than the power of two below the ranks: that is checked too.
# usage: mpich_wire.sh RETRACE PROGRAM PRELOAD WORK NP...
set -u
[ $# -ge 5 ] || { echo "usage: mpich_wire.sh RETRACE PROGRAM PRELOAD WORK NP..." >&2; exit 2; }
retrace=$1 prog=$2 preload=$3 work=$4
shift 4
k=10 # calls counted per kind; mpich_esize makes one more first (connections)
rm -rf "$work" && mkdir -p "$work" || exit 2
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# MPICH's messages per call of each kind with algorithm $1 on $2 ranks: "FLOATS DOUBLES", or
# nothing when the run failed (said).
mpich_counts() { # ALG NP
    c=$work/np$2/mpich-$1
    mkdir -p "$c"
    if ! MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM=$1 RT_UCP_COUNT=$c timeout -k 5 60 \
        mpiexec.mpich -n "$2" -env LD_PRELOAD "$preload" "$prog" fd "$k" > "$c.out" 2>&1; then
        fail "$2 ranks, MPICH with $1: the run failed: $(head -n 5 "$c.out")"
        return
    fi
    cat "$c"/* | awk -v k="$k" -v np="$2" '
        { n[$1] += $2; lines[$1]++ }
        END { if (lines["floats"] != np || lines["doubles"] != np) { print "bad"; exit }
              if (n["floats"] % k || n["doubles"] % k) { print "bad"; exit }
              print n["floats"] / k, n["doubles"] / k }'
}

# retrace's allreduce messages per call in trace $1 (hist --by-call, level $2): the sum of
# the MPI_Allreduce column over the bins, divided by the k + 1 calls of the trace.
retrace_count() { # TRACE LEVEL
    "$retrace" hist "$1" --level "$2" --by-call 2> "$1.hist.err" | awk -v k="$k" '
        NR == 1 { for (i = 1; i <= NF; i++) if ($i == "MPI_Allreduce") c = i; next }
        c { n += $c }
        END { if (!c || n % (k + 1)) print "bad"; else print n / (k + 1) }'
}

for np in "$@"; do
    d=$work/np$np
    mkdir -p "$d"
    auto=$(mpich_counts auto "$np") rdb=$(mpich_counts recursive_doubling "$np")
    rab=$(mpich_counts reduce_scatter_allgather "$np")
    [ -n "$auto" ] && [ -n "$rdb" ] && [ -n "$rab" ] || continue
    case "$auto $rdb $rab" in *bad*)
        fail "$np ranks: the counts of some rank are missing or not a multiple of $k"
        continue ;;
    esac
    echo "$np ranks, MPICH's messages per call (floats doubles): auto $auto," \
        "recursive_doubling $rdb, reduce_scatter_allgather $rab"
    i=0
    for kind in f d; do
        i=$((i + 1))
        name=$([ $kind = f ] && echo "4 floats" || echo "2 doubles")
        m_auto=$(echo "$auto" | cut -d' ' -f$i) m_rdb=$(echo "$rdb" | cut -d' ' -f$i)
        m_rab=$(echo "$rab" | cut -d' ' -f$i)
        t=$d/trace_$kind
        if ! timeout -k 5 120 "$retrace" record --out "$t" -- \
            mpiexec.mpich -n "$np" "$prog" $kind "$k" > "$t.out" 2>&1; then
            fail "$np ranks, $name: record failed: $(head -n 5 "$t.out")"
            continue
        fi
        r_pred=$(retrace_count "$t" wire)
        for alg in recursive_doubling rabenseifner; do
            "$retrace" replay "$t" --coll allreduce=$alg --out-trace "$t.$alg" \
                > "$t.$alg.out" 2>&1 || fail "$np ranks, $name: replay --coll allreduce=$alg failed"
        done
        r_rdb=$(retrace_count "$t.recursive_doubling" call)
        r_rab=$(retrace_count "$t.rabenseifner" call)
        echo "  $name: retrace's messages per call: MPICH's selection $r_pred," \
            "recursive_doubling $r_rdb, rabenseifner $r_rab"
        case "$r_pred $r_rdb $r_rab" in *bad*)
            fail "$np ranks, $name: retrace's allreduce messages are not $((k + 1)) equal calls"
            continue ;;
        esac
        [ "$r_rdb" = "$m_rdb" ] ||
            fail "$np ranks, $name: recursive doubling: MPICH sends $m_rdb, retrace $r_rdb"
        # the forced Rabenseifner: MPICH's fallback below a piece per rank is its choice
        if [ "$m_rab" = "$m_rdb" ]; then
            [ "$r_pred" = "$r_rdb" ] || fail "$np ranks, $name: MPICH falls back to recursive" \
                "doubling from Rabenseifner, retrace's selection sends $r_pred, not $r_rdb"
        elif [ "$r_rab" != "$m_rab" ]; then
            fail "$np ranks, $name: Rabenseifner: MPICH sends $m_rab, retrace $r_rab"
        fi
        if [ "$r_pred" = "$r_rdb" ] && [ "$r_pred" != "$r_rab" ]; then
            predicted=recursive_doubling m_pred=$m_rdb
        elif [ "$r_pred" = "$r_rab" ] && [ "$r_pred" != "$r_rdb" ]; then
            predicted=reduce_scatter_allgather m_pred=$m_rab
        else
            fail "$np ranks, $name: retrace's selection ($r_pred messages a call) is not told" \
                "apart from its recursive doubling ($r_rdb) and Rabenseifner ($r_rab)"
            continue
        fi
        [ "$m_auto" = "$m_pred" ] && echo "  $name: MPICH's own choice is $predicted, as retrace predicts" ||
            fail "$np ranks, $name: retrace predicts $predicted ($m_pred messages a call)," \
                "MPICH's own choice sends $m_auto"
    done
    # the two calls must differ in MPICH's own choice, or this test shows nothing
    [ "$(echo "$auto" | cut -d' ' -f1)" != "$(echo "$auto" | cut -d' ' -f2)" ] ||
        fail "$np ranks: MPICH sends as many messages for both calls ($auto): nothing told apart"
done
[ "$fails" = 0 ] || { echo "$fails failure(s)"; exit 1; }
