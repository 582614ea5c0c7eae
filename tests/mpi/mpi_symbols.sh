#!/bin/sh
# tracer.mpi_symbols: every MPI function the MPI library exports is either traced (the tracer
# defines it) or listed in docs/tracer.md, "What records nothing", with the reason; a function
# in neither fails the test with its name. Read from the libraries themselves (nm -D), so a
# new MPICH function cannot be forgotten:
#  - the C functions: the MPI_* functions of libmpich;
#  - the Fortran entry points of libmpichfort (mpif.h and `use mpi`: mpi_send_ and its other
#    spellings; `use mpi_f08`: mpi_send_f08ts_, mpi_barrier_f08_, ..._large_). In MPICH 4.0
#    those with a choice buffer (f08ts) and all of mpif.h and `use mpi` call the C MPI_<name>,
#    so they are traced when it is; the other f08 ones (f08, f08_large) call PMPI_<name>
#    directly, so the tracer must define them itself when it traces the C function
#    (tracer/f08.def). A Fortran entry point without a C function must be listed by its own
#    name.
# A listed pattern must match some exported function and no traced one.
# usage: mpi_symbols.sh LIBRETRACE.so LIBMPICH.so LIBMPICHFORT.so docs/tracer.md
set -eu
[ $# = 4 ] || { echo "usage: mpi_symbols.sh LIBRETRACE LIBMPICH LIBMPICHFORT TRACER_MD" >&2; exit 2; }
for f in "$@"; do
    [ -r "$f" ] || { echo "mpi_symbols: cannot read $f" >&2; exit 2; }
done
w=$(mktemp -d)
trap 'rm -rf "$w"' EXIT
functions() { # the functions a shared library defines
    nm -D --defined-only "$1" | awk '$2 == "T" || $2 == "W" || $2 == "i" { print $3 }' | sort -u
}
functions "$1" > "$w/tracer"
functions "$2" | grep '^MPI_' > "$w/c" || true
functions "$3" | grep -i '^mpi_' > "$w/fortran" || true
[ -s "$w/c" ] || { echo "mpi_symbols: $2 defines no MPI_ function" >&2; exit 2; }
# The list: the table rows of the section, "| `PATTERN`, `PATTERN` | reason |".
awk '/^## What records nothing/ { on = 1; next } /^## / { on = 0 } on && /^\| `/' "$4" > "$w/rows"
[ -s "$w/rows" ] || { echo "mpi_symbols: $4 has no list under '## What records nothing'" >&2; exit 2; }

awk -v tracer="$w/tracer" -v c="$w/c" -v fortran="$w/fortran" -v rows="$w/rows" '
function glob_re(p) { # a shell pattern with * as an anchored regular expression
    gsub(/[.+?()|^$[\]\\{}]/, "\\\\&", p)
    gsub(/\*/, ".*", p)
    return "^" p "$"
}
function listed(name,    i, hit) {
    hit = 0
    for (i = 1; i <= npat; i++)
        if (tolower(name) ~ re[i]) { used[i] = 1; hit = 1 }
    return hit
}
function fail(msg) { print "mpi_symbols: " msg; bad++ }
BEGIN {
    while ((getline s < tracer) > 0) traced[s] = 1
    while ((getline s < rows) > 0) {
        split(s, cell, "|")
        reason = cell[3]
        gsub(/^ +| +$/, "", reason)
        first = cell[2]
        while (match(first, /`[^`]+`/)) {
            p = substr(first, RSTART + 1, RLENGTH - 2)
            first = substr(first, RSTART + RLENGTH)
            pat[++npat] = p
            re[npat] = glob_re(tolower(p))
            if (reason == "") fail("`" p "` is listed without a reason")
        }
    }
    while ((getline s < c) > 0) {
        cname[tolower(s)] = s
        if (s in traced) {
            for (i = 1; i <= npat; i++)
                if (tolower(s) ~ re[i]) {
                    used[i] = 1
                    fail("`" pat[i] "` is listed but " s " is traced")
                }
        } else if (!listed(s)) {
            fail(s ": neither traced nor listed in docs/tracer.md")
        }
    }
    while ((getline s < fortran) > 0) {
        l = tolower(s)
        direct = l ~ /_f08_(large_)?$/ # calls PMPI_<name> itself
        base = l
        sub(/_f08(ts)?_large_$/, "_c", base)
        sub(/_f08(ts)?_$/, "", base)
        sub(/_+$/, "", base)
        if (!(base in cname)) {
            if (!listed(base) && !(base in reported))
                fail(base ": a Fortran function without a C one, neither traced nor listed")
            reported[base] = 1
            continue
        }
        if (direct && !(s in traced) && (cname[base] in traced))
            fail(s ": calls PMPI for " cname[base] ", which is traced, and the tracer does not define it (tracer/f08.def)")
    }
    for (i = 1; i <= npat; i++)
        if (!used[i]) fail("`" pat[i] "` is listed but matches no function the libraries export")
    exit bad > 0
}'
