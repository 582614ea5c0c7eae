#!/bin/sh
# What-if answers against reality (issue 21): for each example pattern below, recorded under
# retrace record on 2 ranks, `retrace replay --engine mpi` runs the recorded configuration and
# each alternative collective algorithm on the real MPI (MPICH's algorithm forced through its
# CVARs where it has it, else retrace's schedule: the colls_* columns say which) and prints the
# built-in engine's prediction of the same configurations. Per alternative: the measured
# speedup (recorded / alternative, measured times), the predicted one (the same, predicted),
# whether they agree in sign (both faster, both slower, or both within 2% of no change), and
# the predicted speedup's error against the measured one (goal: the sign always right, the
# ratio within 15%).
# usage: bench/whatif.sh [BUILD_DIR] [MODEL] [REPEAT]
#   MODEL: a model file for the predictions (e.g. BUILD/fidelity/calibrated.conf, which
#   bench/fidelity.sh writes); default the built-in one. REPEAT: replays per configuration,
#   the median kept (default 3).
set -eu
build=$(cd "${1:-build}" && pwd)
model=${2:-}
repeat=${3:-3}
retrace=$build/retrace
for f in "$retrace" "$build/patterns/allreduce"; do
    [ -e "$f" ] || { echo "whatif: $f not found (build first)" >&2; exit 2; }
done
[ -z "$model" ] || [ -r "$model" ] || { echo "whatif: $model: cannot read the model" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# pattern, its options, then the alternatives
cat > "$work/configs" << 'EOF'
allreduce|-i 20000 -s 8|coll:allreduce=ring coll:allreduce=rabenseifner
allreduce|-i 2000 -s 64K|coll:allreduce=ring coll:allreduce=recursive_doubling
alltoall|-i 5000 -s 4K|coll:alltoall=pairwise coll:alltoall=bruck
EOF
echo "what-if speedups, predicted and measured: 2 ranks, median of $repeat replays each"
echo "($(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //'), load average $(cut -d' ' -f1-3 /proc/loadavg)," \
    "model ${model:-built-in})"
printf '%-10s %-14s %-34s %9s %9s %6s %8s\n' pattern options alternative measured predicted sign error
n=0
while IFS='|' read -r pat opts alts; do
    [ -x "$build/patterns/$pat" ] || { echo "whatif: no pattern $pat" >&2; continue; }
    n=$((n + 1))
    trace=$work/t$n
    # shellcheck disable=SC2086 # opts and alts are lists of words
    "$retrace" record --out "$trace" -- mpiexec.mpich -n 2 "$build/patterns/$pat" $opts \
        > /dev/null 2>&1 < /dev/null || { echo "whatif: recording $pat failed" >&2; continue; }
    set --
    for a in $alts; do set -- "$@" --compare "$a"; done
    # shellcheck disable=SC2086
    mpiexec.mpich -n 2 "$retrace" replay --engine mpi "$trace" --repeat "$repeat" \
        ${model:+--model "$model"} "$@" --csv "$work/w$n.csv" > /dev/null 2> "$work/w$n.err" \
        < /dev/null || { echo "whatif: replaying $pat failed: $(head -n 3 "$work/w$n.err")" >&2; continue; }
    awk -F'"' -v pat="$pat" -v opts="$opts" '
        NR == 1 { next }
        NR == 2 { bm = $4; bp = $6; next }
        { ms = bm / $4; ps = bp / $6
          sm = ms > 1.02 ? 1 : ms < 0.98 ? -1 : 0
          sp = ps > 1.02 ? 1 : ps < 0.98 ? -1 : 0
          printf "%-10s %-14s %-34s %8.3fx %8.3fx %6s %+7.1f%%\n", pat, opts, $2, ms, ps,
              sm == sp ? "yes" : "NO", (ps / ms - 1) * 100 }' "$work/w$n.csv"
done < "$work/configs"
echo "(measured = recorded / alternative of the measured times; sign: both above 1.02, both"
echo "below 0.98, or both between; error: predicted / measured speedup - 1)"
