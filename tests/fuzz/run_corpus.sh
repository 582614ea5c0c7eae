#!/bin/sh
# run_corpus.sh HARNESS CORPUS: runs the libFuzzer harness once over every file of the corpus
# (no mutation) with the limits bench/fuzz.sh uses; fails on any finding.
set -eu
harness=$1 corpus=$2
[ -d "$corpus" ] || { echo "run_corpus.sh: $corpus: no such corpus" >&2; exit 2; }
abs=$(cd "$corpus" && pwd)
# A wrap-hunting build (-DRETRACE_FUZZ_WRAPS=ON) reports wraps recoverably: halt on the first.
UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
export UBSAN_OPTIONS
exec "$harness" -runs=0 -timeout=20 -rss_limit_mb=2048 -malloc_limit_mb=1024 -artifact_prefix="$PWD/" "$abs"
