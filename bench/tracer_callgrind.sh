#!/bin/sh
# The tracer's own instructions per MPI call, counted by callgrind (deterministic, unlike wall
# time on a busy machine): tracer_overhead.c on 2 ranks under valgrind with the tracer
# preloaded; for each wrapper of a pattern, its inclusive cost minus that of the PMPI call it
# makes (MPI itself, polling included), per call. What stays is the tracer: clock reads,
# request table, records, buffer writes, and the helpers it calls (PMPI_Type_size).
# usage: bench/tracer_callgrind.sh LIBRETRACE.so [ITERATIONS] [ENV=VALUE ...]
#   e.g. bench/tracer_callgrind.sh build/tracer/libretrace.so 2000 RETRACE_CLOCK=monotonic
set -eu
lib=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
iters=${2:-2000}
if [ $# -ge 2 ]; then shift 2; else shift 1; fi
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
[ -f "$lib" ] || { echo "tracer_callgrind: $lib not found" >&2; exit 2; }
mpicc.mpich -O2 -o "$work/ovh" "$here/tracer_overhead.c"
env "$@" RETRACE_OUT="$work/t" LD_PRELOAD="$lib" mpiexec.mpich -n 2 valgrind --tool=callgrind \
    --callgrind-out-file="$work/cg.%p" "$work/ovh" "$iters" > /dev/null 2> "$work/valgrind.err"
# from / : annotated from a directory that holds the sources, callgrind_annotate 3.19 gives
# some inlined costs of a wrapper to another entry
cd /
for f in "$work"/cg.*; do
    callgrind_annotate --inclusive=yes --tree=calling --threshold=100 "$f" 2> /dev/null
done | awk '
    function num(s) { gsub(",", "", s); return s + 0 }
    # a function block: "COST (P%)  *  FILE:MPI_X [OBJECT]"; its callees: "COST (P%)  >   FN (Nx) [OBJECT]"
    { sub(/\([ 0-9.]*%\)/, ""); $0 = $0 } # the percentage, which may hold a space
    # MPI_X jumps to rt__wrap_X (rt__wrap.h), which makes the PMPI call: its callees count for MPI_X,
    # whose inclusive cost holds it. A function whose lines come from more than one file (inlined
    # code) may be shown as more than one block, the second without its object, each with the
    # inclusive cost from its first line on: the largest is the whole function.
    /^Profile data file/ { nf++ }
    $2 == "*" {
        fn = ""
        if ($3 ~ /^[?][?][?]:/ || ($4 != "" && $4 !~ /libretrace/)) next # not the tracer
        if ($3 ~ /:MPI_[A-Za-z]+$/) {
            fn = $3; sub(/.*:/, "", fn)
            if (num($1) > incl[nf, fn]) incl[nf, fn] = num($1)
        }
        else if ($3 ~ /:rt__wrap_[A-Za-z]+$/) { fn = $3; sub(/.*:rt__wrap_/, "MPI_", fn) }
        next
    }
    $2 == ">" && fn != "" && $3 == "???:P" fn { pm[fn] += num($1); n = $4; gsub(/[(x,)]/, "", n); calls[fn] += n }
    END {
        split("pingpong:Send,Recv allreduce:Allreduce ring:Irecv,Isend,Waitall", pats, " ")
        for (i = 1; i <= 3; i++) {
            split(pats[i], pn, ":"); k = split(pn[2], fns, ",")
            ins = 0; nc = 0
            for (j = 1; j <= k; j++) {
                f = "MPI_" fns[j]; ins -= pm[f]; nc += calls[f]
                for (r = 1; r <= nf; r++) ins += incl[r, f]
            }
            if (nc) printf "%-10s %8.1f tracer instructions per call (%d calls)\n", pn[1], ins / nc, nc
        }
    }'
