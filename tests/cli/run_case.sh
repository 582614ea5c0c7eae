#!/bin/sh
# One golden command-line test. tests/cli/NAME.cmd holds the arguments of one retrace call,
# one per line ($DATA is tests/data, $EXAMPLES is examples/, $WORK a fresh scratch folder).
# Its stdout, stderr and exit status must equal NAME.out, NAME.err and NAME.status (each
# optional: absent means empty output, and status 0). BLESS=1 writes them from a run instead.
# NAME.cat (optional) lists files the command writes, appended to stdout for the comparison;
# NAME.pre (optional) puts files in $WORK before the call (below).
# usage: run_case.sh RETRACE TESTS_DIR WORK_ROOT NAME
set -eu
retrace=$1 tests=$2 root=$3 name=$4
WORK=$root/$name
DATA=$tests/data
EXAMPLES=$tests/../examples
rm -rf "$WORK" && mkdir -p "$WORK"
export WORK DATA EXAMPLES

# Arguments, one per line, with $WORK, $DATA and $EXAMPLES expanded (and nothing else).
set --
while IFS= read -r line || [ -n "$line" ]; do
    case "$line" in "#"*) continue ;; esac
    line=$(printf '%s' "$line" | sed -e "s|\$WORK|$WORK|g" -e "s|\$DATA|$DATA|g" \
        -e "s|\$EXAMPLES|$EXAMPLES|g")
    set -- "$@" "$line"
done < "$tests/cli/$name.cmd"

# NAME.pre (optional) puts files in $WORK before the call (outputs that exist already), one
# a line: "PATH/" makes a folder, "PATH" a file holding the line "an earlier output",
# "PATH < SRC" a copy of SRC ($WORK, $DATA and $EXAMPLES expanded). PATH must be in $WORK.
if [ -f "$tests/cli/$name.pre" ]; then
    while IFS= read -r line || [ -n "$line" ]; do
        case "$line" in "#"* | "") continue ;; esac
        line=$(printf '%s' "$line" | sed -e "s|\$WORK|$WORK|g" -e "s|\$DATA|$DATA|g" \
            -e "s|\$EXAMPLES|$EXAMPLES|g")
        dst=${line%% < *}
        case "$dst" in "$WORK"/*) ;; *) echo "$name.pre: $dst is not in \$WORK" >&2; exit 2 ;; esac
        case "$line" in
        *" < "*) mkdir -p "$(dirname "$dst")" && cp -R "${line#* < }" "$dst" ;;
        */) mkdir -p "$dst" ;;
        *) mkdir -p "$(dirname "$dst")" && echo "an earlier output" > "$dst" ;;
        esac
    done < "$tests/cli/$name.pre"
fi

status=0
(cd "$WORK" && "$retrace" "$@") > "$WORK/stdout" 2> "$WORK/stderr" || status=$?

# NAME.cat lists files the command wrote ($WORK/...), one per line: each is appended to
# stdout under a "== FILE" line, so that the golden covers them too.
if [ -f "$tests/cli/$name.cat" ]; then
    while IFS= read -r f || [ -n "$f" ]; do
        f=$(printf '%s' "$f" | sed -e "s|\$WORK|$WORK|g")
        printf '== %s\n' "$f" >> "$WORK/stdout"
        cat "$f" >> "$WORK/stdout" 2>&1 || echo "(missing)" >> "$WORK/stdout"
    done < "$tests/cli/$name.cat"
fi

# Paths in the output are made relative to the placeholders so goldens are portable.
for f in stdout stderr; do
    sed -e "s|$WORK|\$WORK|g" -e "s|$DATA|\$DATA|g" -e "s|$EXAMPLES|\$EXAMPLES|g" \
        "$WORK/$f" > "$WORK/$f.norm"
done

if [ "${BLESS:-}" = 1 ]; then # write the goldens from this run (review them!)
    g=$tests/cli/$name
    if [ -s "$WORK/stdout.norm" ]; then cp "$WORK/stdout.norm" "$g.out"; else rm -f "$g.out"; fi
    if [ -s "$WORK/stderr.norm" ]; then cp "$WORK/stderr.norm" "$g.err"; else rm -f "$g.err"; fi
    if [ "$status" != 0 ]; then echo "$status" > "$g.status"; else rm -f "$g.status"; fi
    exit 0
fi

ok=1
check() { # FILE GOLDEN
    if [ -f "$2" ]; then
        diff -u "$2" "$1" || ok=0
    elif [ -s "$1" ]; then
        echo "unexpected output in $(basename "$1"):"; cat "$1"; ok=0
    fi
}
check "$WORK/stdout.norm" "$tests/cli/$name.out"
check "$WORK/stderr.norm" "$tests/cli/$name.err"
want=0
[ -f "$tests/cli/$name.status" ] && want=$(cat "$tests/cli/$name.status")
if [ "$status" != "$want" ]; then
    echo "exit status $status, expected $want"; ok=0
fi
[ $ok = 1 ] || { echo "FAIL: cli.$name"; exit 1; }
