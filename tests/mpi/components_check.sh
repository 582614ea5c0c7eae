#!/bin/sh
# The tracer's bench build (libretrace-cost.so, -DRETRACE_TRACER_COST=ON) under
# bench/tracer_components.sh, briefly: every part of the call path switched off in turn
# (RETRACE_COST_OFF) leaves tracer_overhead.c running to its end, and the table has a row of
# numbers per pattern. The figures themselves are the benchmark's (docs/benchmarks.md).
# usage: components_check.sh SCRIPT BUILD_DIR
set -u
script=$1 build=$2
out=$(sh "$script" "$build" 2000 1 2>&1)
st=$?
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
[ $st -eq 0 ] || fail "tracer_components.sh exited $st"
for p in "pingpong (0 B)" "allreduce (8 B)" "ring (1 KiB, nb)"; do
    # the pattern, then untraced and eight signed parts, each a number with one decimal
    echo "$out" | grep -Eq "^$(echo "$p" | sed 's/[()]/\\&/g') +[0-9]+\.[0-9]( +[-+][0-9]+\.[0-9]){8}$" ||
        fail "no row of numbers for $p"
done
echo "$out" | grep -q '^tracer components: 2 ranks, 2000 iterations, median of 1 interleaved rounds$' ||
    fail "no heading"
if [ $fails -gt 0 ]; then
    echo "$out"
    exit 1
fi
echo "components_check: ok"
