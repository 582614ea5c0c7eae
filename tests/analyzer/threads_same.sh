#!/bin/sh
# retrace's analyses give the same bytes on 1, 2 and 3 threads (--threads; issue 23). The
# traces: every CSV trace in tests/data converted to OTF2 (the format read in parts, one
# reader per thread), each once more with event files cut short (one rank's; the first and
# the last rank's: the note a single reader leaves is the last rank's), the OTF2 archives in
# tests/data, and a synthetic trace of 64 ranks (bench/synth_trace). The commands: info;
# hist at call level, with --coll --rma --by-call, at wire level with --per-rank; gateways at
# call level and at wire level with a comparison of algorithms; profile. Their stdout, stderr
# and exit status with --threads 2 and 3 must equal those with --threads 1.
# usage: threads_same.sh RETRACE SYNTH_TRACE TESTS_DIR WORK
set -eu
retrace=$1 synth=$2 tests=$3 work=$4
rm -rf "$work" && mkdir -p "$work/t"

# A copy of archive $1 at $2 whose event files of the ranks $3... end halfway.
cut_copy() {
    src=$1 dst=$2
    shift 2
    cp -R "$src" "$dst"
    evts=$(find "$dst" -name '*.evt' | awk -F/ '{ print $NF, $0 }' | sort -n |
        cut -d' ' -f2-)
    for rank in "$@"; do
        f=$(printf '%s\n' "$evts" | sed -n "$((rank + 1))p")
        [ -n "$f" ] || continue
        size=$(wc -c < "$f")
        head -c $((size / 2)) "$f" > "$f.half" && mv "$f.half" "$f"
    done
}

n=0
for csv in "$tests"/data/*.csv; do
    name=$(basename "$csv" .csv)
    "$retrace" convert "$csv" "$work/t/$name.otf2" > /dev/null 2>&1 || continue
    ranks=$("$retrace" info --threads 1 "$work/t/$name.otf2" 2> /dev/null | sed -n 's/^ranks *//p')
    [ "${ranks:-0}" -gt 1 ] || continue
    cut_copy "$work/t/$name.otf2" "$work/t/$name.cut1.otf2" 1
    cut_copy "$work/t/$name.otf2" "$work/t/$name.cut0l.otf2" 0 $((ranks - 1))
    n=$((n + 1))
done
for a in "$tests"/data/*.otf2; do cp -R "$a" "$work/t/"; done
"$synth" "$work/t/synth.otf2" 200000 > /dev/null

runs=0
check() { # TRACE ARGS...: the analysis with --threads 1, 2 and 3
    t=$1
    shift
    status=0
    "$retrace" "$@" "$t" --threads 1 > "$work/out1" 2> "$work/err1" || status=$?
    for k in 2 3; do
        s=0
        "$retrace" "$@" "$t" --threads $k > "$work/out$k" 2> "$work/err$k" || s=$?
        if [ "$s" != "$status" ] || ! cmp -s "$work/out1" "$work/out$k" ||
            ! cmp -s "$work/err1" "$work/err$k"; then
            echo "threads_same: retrace $* $t: --threads $k differs from --threads 1" \
                "(status $s, not $status):" >&2
            diff "$work/out1" "$work/out$k" >&2 || true
            diff "$work/err1" "$work/err$k" >&2 || true
            exit 1
        fi
    done
    runs=$((runs + 1))
}
for t in "$work"/t/*.otf2; do
    check "$t" info
    check "$t" hist
    check "$t" hist --coll --rma --by-call
    check "$t" hist --level wire --per-rank
    check "$t" gateways
    check "$t" gateways --level wire --coll all=linear --coll all=binomial
    check "$t" profile
done
# Most CSV traces of tests/data convert; fewer means the comparison lost its coverage.
if [ "$n" -lt 30 ]; then
    echo "threads_same: only $n traces converted to OTF2 (expected 30 or more)" >&2
    exit 1
fi
traces=$(find "$work/t" -mindepth 1 -maxdepth 1 | wc -l)
echo "threads_same: $runs analyses of $traces traces, the same on 1, 2 and 3 threads"
