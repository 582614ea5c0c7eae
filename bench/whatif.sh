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
#
# The configurations are interleaved run by run: each of REPEAT rounds is one replay with
# --repeat 1 that runs every configuration once, the recorded one as `coll:OP=mpich` among the
# alternatives, in an order rotated by one each round (so that none always runs first, colder;
# the replay's own first row, the recorded configuration again, is a warm-up and not counted).
# Per configuration the median of its rounds counts.
# usage: bench/whatif.sh [BUILD_DIR] [MODEL] [REPEAT]
#   MODEL: a model file for the predictions; `calibrate` (the default) runs
#   `mpiexec.mpich -n 2 retrace calibrate` first and uses its model (with the per-algorithm
#   costs, docs/calibrate.md); `builtin` the built-in one. REPEAT: rounds (default 5).
set -eu
build=$(cd "${1:-build}" && pwd)
model=${2:-calibrate}
repeat=${3:-5}
retrace=$build/retrace
for f in "$retrace" "$build/patterns/allreduce"; do
    [ -e "$f" ] || { echo "whatif: $f not found (build first)" >&2; exit 2; }
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
case $model in
builtin) model= ;;
calibrate)
    mpiexec.mpich -n 2 "$retrace" calibrate --out "$work/model.conf" > /dev/null 2> "$work/calib.err" \
        < /dev/null || { echo "whatif: calibrate failed: $(head -n 3 "$work/calib.err")" >&2; exit 1; }
    model=$work/model.conf ;;
*) [ -r "$model" ] || { echo "whatif: $model: cannot read the model" >&2; exit 2; } ;;
esac

# pattern, its options, the op, then the alternatives
cat > "$work/configs" << 'EOF2'
allreduce|-i 20000 -s 8|allreduce|coll:allreduce=ring coll:allreduce=rabenseifner
allreduce|-i 2000 -s 64K|allreduce|coll:allreduce=ring coll:allreduce=recursive_doubling
alltoall|-i 5000 -s 4K|alltoall|coll:alltoall=pairwise coll:alltoall=bruck
EOF2
echo "what-if speedups, predicted and measured: 2 ranks, median of $repeat interleaved rounds"
echo "($(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //'), load average $(cut -d' ' -f1-3 /proc/loadavg)," \
    "model ${2:-calibrate}$([ -n "$model" ] && grep -q '^MPI_[A-Za-z]*/' "$model" && echo ' with algorithm costs'))"
printf '%-10s %-14s %-34s %9s %9s %6s %8s\n' pattern options alternative measured predicted sign error
n=0
while IFS='|' read -r pat opts op alts; do
    [ -x "$build/patterns/$pat" ] || { echo "whatif: no pattern $pat" >&2; continue; }
    n=$((n + 1))
    trace=$work/t$n
    # shellcheck disable=SC2086 # opts and alts are lists of words
    "$retrace" record --out "$trace" -- mpiexec.mpich -n 2 "$build/patterns/$pat" $opts \
        > /dev/null 2>&1 < /dev/null || { echo "whatif: recording $pat failed" >&2; continue; }
    list="coll:$op=mpich $alts"
    : > "$work/w$n.rows"
    r=0 ok=1
    while [ $r -lt "$repeat" ]; do
        # this round's order: the list rotated by r
        cmp=$(echo "$list" | awk -v r="$r" '{ for (i = 0; i < NF; i++) printf " --compare %s", $((i + r) % NF + 1) }')
        # shellcheck disable=SC2086 # cmp is a list of words
        if ! mpiexec.mpich -n 2 "$retrace" replay --engine mpi "$trace" --repeat 1 \
            ${model:+--model "$model"} $cmp --csv "$work/w$n.$r.csv" > /dev/null \
            2> "$work/w$n.err" < /dev/null; then
            echo "whatif: replaying $pat failed: $(head -n 3 "$work/w$n.err")" >&2
            ok=0
            break
        fi
        sed 1,2d "$work/w$n.$r.csv" >> "$work/w$n.rows" # the header and the warm-up row
        r=$((r + 1))
    done
    [ $ok = 1 ] || continue
    awk -F'"' -v pat="$pat" -v opts="$opts" -v base="coll:$op=mpich" -v alts="$alts" '
        function median(name,    m, i, j, t, v) {
            m = cnt[name]
            for (i = 1; i <= m; i++) v[i] = meas[name, i]
            for (i = 2; i <= m; i++)
                for (j = i; j > 1 && v[j - 1] > v[j]; j--) { t = v[j]; v[j] = v[j - 1]; v[j - 1] = t }
            return m % 2 ? v[(m + 1) / 2] : (v[m / 2] + v[m / 2 + 1]) / 2
        }
        { cnt[$2]++; meas[$2, cnt[$2]] = $4; pred[$2] = $6 }
        END {
            bm = median(base); bp = pred[base]
            na = split(alts, a, " ")
            for (x = 1; x <= na; x++) {
                ms = bm / median(a[x]); ps = bp / pred[a[x]]
                sm = ms > 1.02 ? 1 : ms < 0.98 ? -1 : 0
                sp = ps > 1.02 ? 1 : ps < 0.98 ? -1 : 0
                printf "%-10s %-14s %-34s %8.3fx %8.3fx %6s %+7.1f%%\n", pat, opts, a[x], ms, ps,
                    sm == sp ? "yes" : "NO", (ps / ms - 1) * 100
            }
        }' "$work/w$n.rows"
done < "$work/configs"
echo "(measured = recorded / alternative of the measured times, each the median of its rounds;"
echo "sign: both above 1.02, both below 0.98, or both between; error: predicted / measured"
echo "speedup - 1)"
