#!/bin/sh
# One test of trace_dump itself (no MPI needed): runs it and checks its stdout, its exit
# status and its stderr.
#
# usage: dump_case.sh TRACE_DUMP EXPECTED_STDOUT STATUS STDERR [--via-otf2 RETRACE WORK] ARGS...
#   EXPECTED_STDOUT  file, or - for no output at all
#   STATUS           expected exit status
#   STDERR           none: nothing; else a prefix that the one line on stderr must start with
#   --via-otf2       the last argument is a CSV trace: convert it to OTF2 in WORK with
#                    'retrace convert' and dump the archive instead
set -u
dump=$1 expected=$2 want_status=$3 want_err=$4
shift 4
if [ "${1:-}" = --via-otf2 ]; then
    retrace=$2 work=$3
    shift 3
    n=$#
    rm -rf "$work" && mkdir -p "$work" || exit 1
    i=0
    for a in "$@"; do # the last argument becomes the archive
        i=$((i + 1))
        if [ $i = 1 ]; then set --; fi
        if [ $i = $n ]; then
            "$retrace" convert "$a" --to otf2 "$work/archive" || { echo "FAIL: convert"; exit 1; }
            a=$work/archive
        fi
        set -- "$@" "$a"
    done
fi
out=$(mktemp) err=$(mktemp)
trap 'rm -f "$out" "$err"' EXIT
"$dump" "$@" > "$out" 2> "$err"
status=$?
ok=1
[ "$status" = "$want_status" ] || { echo "FAIL: exit status $status, expected $want_status"; ok=0; }
if [ "$expected" = - ]; then
    [ -s "$out" ] && { echo "FAIL: unexpected output:"; head -n 20 "$out"; ok=0; }
else
    diff -u "$expected" "$out" || { echo "FAIL: stdout differs from $expected"; ok=0; }
fi
if [ "$want_err" = none ]; then
    [ -s "$err" ] && { echo "FAIL: unexpected stderr:"; cat "$err"; ok=0; }
else
    lines=$(wc -l < "$err")
    [ "$lines" = 1 ] || { echo "FAIL: expected one line on stderr, got $lines:"; cat "$err"; ok=0; }
    case "$(head -n 1 "$err")" in
    "$want_err"*) ;;
    *) echo "FAIL: stderr does not start with '$want_err':"; cat "$err"; ok=0 ;;
    esac
fi
[ $ok = 1 ] && echo "ok"
[ $ok = 1 ]
