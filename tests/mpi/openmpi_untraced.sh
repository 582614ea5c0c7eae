#!/bin/sh
# mpi.openmpi.untraced: the functions the Open MPI tracer leaves out are exactly those its
# configure-time feature test found undeclared (untraced.txt), exactly what the MPICH tracer
# defines and the Open MPI one does not (nm -D), and exactly what docs/tracer.md says: the
# line "Not traced under Open MPI: ..." of its section "## Open MPI", which names some
# functions in backquotes and "every large-count (`_c`) form".
# usage: openmpi_untraced.sh LIBRETRACE.so LIBRETRACE-OPENMPI.so UNTRACED.txt TRACER_MD
set -eu
if [ $# != 4 ]; then
    echo "usage: openmpi_untraced.sh MPICH_SO OPENMPI_SO UNTRACED TRACER_MD" >&2
    exit 2
fi
for f in "$@"; do
    [ -r "$f" ] || { echo "openmpi_untraced: cannot read $f" >&2; exit 2; }
done
w=$(mktemp -d)
trap 'rm -rf "$w"' EXIT
functions() { # the MPI_ functions a shared library defines
    nm -D --defined-only "$1" | awk '($2 == "T" || $2 == "W") && $3 ~ /^MPI_/ { print $3 }' |
        LC_ALL=C sort -u
}
words() { tr '\n' ' ' < "$1"; }
functions "$1" > "$w/mpich"
functions "$2" > "$w/openmpi"
LC_ALL=C sort -u "$3" > "$w/untraced"
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

[ -s "$w/openmpi" ] || fail "$2 defines no MPI_ function"
LC_ALL=C comm -13 "$w/mpich" "$w/openmpi" > "$w/only_openmpi"
[ -s "$w/only_openmpi" ] && fail "only the Open MPI tracer defines: $(words "$w/only_openmpi")"
LC_ALL=C comm -23 "$w/mpich" "$w/openmpi" > "$w/left_out"
if ! diff -u "$w/untraced" "$w/left_out" > "$w/diff"; then
    fail "the feature test's list ($3, -) and what the Open MPI tracer lacks (+) differ:"
    cat "$w/diff"
fi

# The documented list: the names in backquotes on its line, and the rule for the _c forms.
line=$(awk '/^## Open MPI/ { on = 1; next } /^## / { on = 0 }
    on && /^Not traced under Open MPI:/ { go = 1 }
    go { print } go && /\.$/ { exit }' "$4" | tr '\n' ' ')
if [ -z "$line" ]; then
    echo "openmpi_untraced: no line 'Not traced under Open MPI:' in $4" >&2
    exit 2
fi
# shellcheck disable=SC2016 # the backquotes are the text looked for
case "$line" in
*'every large-count (`_c`) form'*) ;;
*) fail "the documented line does not say 'every large-count (\`_c\`) form': $line" ;;
esac
# shellcheck disable=SC2016 # idem
printf '%s\n' "$line" | grep -o '`MPI_[A-Za-z_]*`' | tr -d '`' | LC_ALL=C sort -u > "$w/doc_named"
grep '_c$' "$w/mpich" > "$w/all_c" || true
grep -v '_c$' "$w/untraced" > "$w/untraced_named" || true
if ! diff -u "$w/doc_named" "$w/untraced_named" > "$w/diff"; then
    fail "docs/tracer.md names (-) other functions than the feature test leaves out (+):"
    cat "$w/diff"
fi
LC_ALL=C comm -23 "$w/all_c" "$w/untraced" > "$w/c_traced"
[ -s "$w/c_traced" ] &&
    fail "traced under Open MPI, though every _c form is said not to be: $(words "$w/c_traced")"
[ "$fails" = 0 ] || exit 1
echo "ok: $(wc -l < "$w/untraced") functions not traced under Open MPI, as documented"
