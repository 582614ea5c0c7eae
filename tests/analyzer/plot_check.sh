#!/bin/sh
# The plots of every analysis command, as SVG and as PNG, drawn by the real gnuplot: each
# file must exist and be a valid, non-empty image of its kind (PNG: the signature and an
# IHDR chunk with a non-zero size; SVG: an XML document with an <svg> root, closed, that
# holds drawn paths), and a gnuplot that fails must give one clear error.
# usage: plot_check.sh RETRACE TRACE WORK
set -u
retrace=$1 trace=$2 work=$3
rm -rf "$work" && mkdir -p "$work" || exit 2
failed=0
fail() { echo "FAIL: $*"; failed=1; }

check_png() { # FILE
    [ -s "$1" ] || { fail "$1: missing or empty"; return; }
    sig=$(od -An -tx1 -N8 "$1" | tr -d ' \n')
    [ "$sig" = 89504e470d0a1a0a ] || fail "$1: no PNG signature ($sig)"
    ihdr=$(od -An -c -j12 -N4 "$1" | tr -d ' \n')
    [ "$ihdr" = IHDR ] || fail "$1: no IHDR chunk first"
    w=$(od -An -tu1 -j16 -N4 "$1" | awk '{print $1*16777216 + $2*65536 + $3*256 + $4}')
    h=$(od -An -tu1 -j20 -N4 "$1" | awk '{print $1*16777216 + $2*65536 + $3*256 + $4}')
    [ "$w" -gt 100 ] && [ "$h" -gt 100 ] || fail "$1: image of ${w}x${h}"
    [ "$(wc -c < "$1")" -gt 2000 ] || fail "$1: too small to hold a chart"
}
check_svg() { # FILE
    [ -s "$1" ] || { fail "$1: missing or empty"; return; }
    head -c 5 "$1" | grep -q '<?xml' || fail "$1: not an XML document"
    grep -q '<svg' "$1" || fail "$1: no <svg> element"
    tail -c 200 "$1" | grep -q '</svg>' || fail "$1: <svg> not closed"
    [ "$(grep -c '<path' "$1")" -gt 10 ] || fail "$1: nothing drawn"
}

for cmd in hist gateways profile pipeline; do
    for ext in svg png; do
        out=$work/$cmd.$ext
        "$retrace" "$cmd" "$trace" --plot "$out" > "$work/$cmd.$ext.stdout" 2> "$work/$cmd.$ext.err" ||
            { fail "retrace $cmd --plot $out exited $?"; cat "$work/$cmd.$ext.err"; continue; }
        [ -s "$work/$cmd.$ext.err" ] && { fail "retrace $cmd --plot: stderr not empty"; cat "$work/$cmd.$ext.err"; }
        "check_$ext" "$out"
    done
done

# Nothing to draw, legitimately (no chain of 64M gains from pipelining): the tables say so,
# the plot is an empty chart with the note, one note on stderr, exit status 0.
for ext in svg png; do
    out=$work/empty.$ext
    "$retrace" pipeline "$trace" --min-size 64M --plot "$out" > "$work/empty.$ext.stdout" \
        2> "$work/empty.$ext.err" || fail "pipeline --plot with no gaining chain exited $?"
    grep -q '^chains that gain from pipelining  *0$' "$work/empty.$ext.stdout" ||
        fail "pipeline with no gaining chain: no summary table"
    echo "retrace: note: no chain gains from pipelining: the plot is empty" |
        cmp -s - "$work/empty.$ext.err" || { fail "empty plot: stderr"; cat "$work/empty.$ext.err"; }
    [ -s "$out" ] || fail "$out: no empty chart"
done
grep -q 'no chain gains from pipelining' "$work/empty.svg" || fail "empty.svg: no note"
tail -c 200 "$work/empty.svg" | grep -q '</svg>' || fail "empty.svg: <svg> not closed"
check_png "$work/empty.png"

# A gnuplot that cannot run: one error line naming the plot, exit status 2, no image.
RETRACE_GNUPLOT=$work/no-such-gnuplot "$retrace" hist "$trace" --plot "$work/x.svg" \
    > /dev/null 2> "$work/nognuplot.err"
st=$?
[ "$st" = 2 ] || fail "missing gnuplot: exit status $st, expected 2"
[ "$(wc -l < "$work/nognuplot.err")" = 1 ] || fail "missing gnuplot: not one error line"
grep -q "x.svg: cannot run" "$work/nognuplot.err" || { fail "missing gnuplot: unclear error"; cat "$work/nognuplot.err"; }
[ ! -e "$work/x.svg" ] || fail "missing gnuplot: an image was left behind"

[ $failed = 0 ] && echo "ok: plots"
exit $failed
