#!/bin/sh
# Fuzzing: runs each libFuzzer harness of tests/fuzz for SECONDS (default 60) on a copy of
# its seed corpus, one after the other, and prints per harness the runs, the speed, the
# coverage reached and the findings. Findings (crash-*, leak-*, timeout-*, oom-* inputs) are
# kept in WORK/artifacts; the corpus the fuzzer grew stays in WORK/corpus/KIND (the seeds in
# the tree are not touched). Exit status 1 when there was a finding.
# usage: bench/fuzz.sh [FUZZ_BUILD_DIR] [SECONDS] [KIND...]   or   bench/fuzz.sh [SECONDS] [KIND...]
#   FUZZ_BUILD_DIR: a build configured with CC=clang -DRETRACE_FUZZ=ON (make test-fuzz makes
#   build-fuzz/); KIND: csv ti raw otf2_anchor otf2_defs otf2_local_defs otf2_events model map
#   options env (default: all). WORK is $FUZZ_WORK or a new folder under /tmp.
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
case "${1:-}" in
*[!0-9]*) build=$1; shift ;;  # a folder
*) build=$src/build-fuzz ;;    # none, or the seconds
esac
build=$(cd "$build" && pwd)
seconds=${1:-60}
[ $# -ge 1 ] && shift
kinds=${*:-csv ti raw otf2_anchor otf2_defs otf2_local_defs otf2_events model map options env}
work=${FUZZ_WORK:-$(mktemp -d /tmp/retrace-fuzz-run-XXXXXX)}
mkdir -p "$work/artifacts" "$work/corpus"
work=$(cd "$work" && pwd)
found=0
# A wrap-hunting build (-DRETRACE_FUZZ_WRAPS=ON) reports wraps recoverably: each is a finding.
UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
export UBSAN_OPTIONS
echo "fuzzing ${seconds}s per harness on $(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //')," \
     "load average $(cut -d' ' -f1-3 /proc/loadavg); work folder $work"
printf '%-16s %10s %8s %7s %7s %8s %s\n' harness runs exec/s cov ft corpus findings
for k in $kinds; do
    h=$build/tests/fuzz/fuzz_$k
    [ -x "$h" ] || { echo "fuzz.sh: $h not found (build with -DRETRACE_FUZZ=ON)" >&2; exit 2; }
    mkdir -p "$work/corpus/$k" "$work/artifacts/$k"
    cp -n "$src/tests/fuzz/corpus/$k/"* "$work/corpus/$k/" 2>/dev/null || true
    log=$work/$k.log
    # Absolute paths: the harnesses work in a scratch folder of their own.
    "$h" -max_total_time="$seconds" -timeout=20 -rss_limit_mb=2048 -malloc_limit_mb=1024 \
        -print_final_stats=1 -artifact_prefix="$work/artifacts/$k/" "$work/corpus/$k" \
        > "$log" 2>&1 || true
    n=$(ls "$work/artifacts/$k" | wc -l)
    [ "$n" -eq 0 ] || found=1
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
    speed=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
    last=$(grep -E '^#[0-9]+' "$log" | tail -1)
    cov=$(echo "$last" | sed -n 's/.* cov: \([0-9]*\).*/\1/p')
    ft=$(echo "$last" | sed -n 's/.* ft: \([0-9]*\).*/\1/p')
    printf '%-16s %10s %8s %7s %7s %8s %s\n' "$k" "${runs:-?}" "${speed:-?}" "${cov:-?}" \
        "${ft:-?}" "$(ls "$work/corpus/$k" | wc -l)" \
        "$([ "$n" -eq 0 ] && echo none || ls "$work/artifacts/$k" | tr '\n' ' ')"
done
exit $found
