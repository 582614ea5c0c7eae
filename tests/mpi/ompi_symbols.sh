#!/bin/sh
# mpi.openmpi.symbols: every Fortran function of Open MPI whose C function the Open MPI tracer
# records is recorded from Fortran too, or named in docs/tracer.md's line "Not recorded from
# Fortran under Open MPI: ..." (section "## Open MPI"). Read from the libraries themselves, so
# a function cannot be forgotten:
#  - libmpi_mpifh.so defines one body per function, ompi_<stem>_f, with the alias
#    MPI_<Name>_f that gives the C name; mpif.h and `use mpi` call its other aliases
#    (mpi_<stem>_, ...). When the tracer defines MPI_<Name>, it must define ompi_<stem>_f,
#    mpi_<stem>_ and pmpi_<stem>_ (tracer/ompi_f.def).
#  - libmpi_usempif08.so's mpi_*_f08_ call a body as ompi_<stem>_f or pmpi_<stem>_ (objdump):
#    each name called for a recorded function must be one the tracer defines.
# A listed function must be one the tracer records in C and not from Fortran.
# usage: ompi_symbols.sh LIBRETRACE-OPENMPI.so LIBMPI_MPIFH.so LIBMPI_USEMPIF08.so TRACER_MD
set -eu
if [ $# != 4 ]; then
    echo "usage: ompi_symbols.sh LIBRETRACE_OPENMPI LIBMPI_MPIFH LIBMPI_USEMPIF08 TRACER_MD" >&2
    exit 2
fi
for f in "$@"; do
    [ -r "$f" ] || { echo "ompi_symbols: cannot read $f" >&2; exit 2; }
done
command -v objdump > /dev/null || { echo "ompi_symbols: objdump not found (binutils)" >&2; exit 2; }
w=$(mktemp -d)
trap 'rm -rf "$w"' EXIT
nm -D --defined-only "$1" | awk '$2 == "T" || $2 == "W" { print $3 }' | LC_ALL=C sort -u > "$w/tracer"
# "ADDRESS NAME" of each body and of each MPI_<Name>_f alias.
nm -D --defined-only "$2" | awk '$2 == "T" && $3 ~ /^ompi_[a-z0-9_]+_f$/ { print $3 }' > "$w/bodies"
nm -D --defined-only "$2" | awk '$3 ~ /^MPI_[A-Z][a-z0-9_]*_f$/ { print $3 }' > "$w/names"
# The names libmpi_usempif08.so's f08 functions call: ompi_<stem>_f and pmpi_<stem>_.
objdump -d --no-show-raw-insn "$3" |
    awk '/^[0-9a-f]+ <[^>]*>:$/ { fn = $2 }
         fn ~ /^<mpi_.*_f08_(@@Base)?>:$/ && /call.*<(ompi_[a-z0-9_]+_f|pmpi_[a-z0-9_]+_)@plt>/ {
             match($0, /<[a-z0-9_]+@plt>/); print substr($0, RSTART + 1, RLENGTH - 6) }' |
    LC_ALL=C sort -u > "$w/f08calls"
[ -s "$w/bodies" ] || { echo "ompi_symbols: $2 defines no ompi_*_f" >&2; exit 2; }
[ -s "$w/f08calls" ] || { echo "ompi_symbols: no f08 function of $3 calls a body" >&2; exit 2; }
# The documented list: the names in backquotes on its line (up to the first full stop).
# shellcheck disable=SC2016 # the backquotes are the text looked for
awk '/^## Open MPI/ { on = 1; next } /^## / { on = 0 }
    on && /^ *Not recorded from Fortran under Open MPI:/ { go = 1 }
    go { print } go && /\.( |$)/ { exit }' "$4" | tr '\n' ' ' |
    grep -o '`MPI_[A-Za-z_]*`' | tr -d '`' > "$w/listed" || true
[ -s "$w/listed" ] || {
    echo "ompi_symbols: no line 'Not recorded from Fortran under Open MPI:' in $4" >&2
    exit 2
}

awk -v tracer="$w/tracer" -v names="$w/names" -v f08calls="$w/f08calls" \
    -v listed="$w/listed" '
function fail(msg) { print "ompi_symbols: " msg; bad++ }
BEGIN {
    while ((getline s < tracer) > 0) def[s] = 1
    while ((getline s < listed) > 0) { list[s] = 1; unused[s] = 1 }
    while ((getline s < names) > 0) {
        c = s
        sub(/_f$/, "", c)
        cname[tolower(c)] = c
    }
}
{ # a body, ompi_<stem>_f: its C function MPI_<Name> (the _cptr forms of mpif.h: the same)
    stem = $1
    sub(/^ompi_/, "", stem)
    sub(/_f$/, "", stem)
    if (!(("mpi_" stem) in cname)) { fail($1 ": no alias MPI_<Name>_f"); next }
    c = cname["mpi_" stem]
    sub(/_cptr$/, "", c)
    if (!(c in def)) next # the tracer records nothing of it in C
    stem_of[stem] = c
    if (c in list) {
        delete unused[c]
        if ($1 in def) fail(c " is listed in docs/tracer.md but recorded from Fortran")
        next
    }
    checked++
    n = split("ompi_" stem "_f mpi_" stem "_ pmpi_" stem "_", want, " ")
    for (i = 1; i <= n; i++)
        if (!(want[i] in def))
            fail(c ": the tracer records it in C but does not define " want[i])
}
END {
    while ((getline s < f08calls) > 0) {
        stem = s
        sub(/^(ompi|pmpi)_/, "", stem)
        sub(/_f?$/, "", stem)
        if ((stem in stem_of) && !(stem_of[stem] in list) && !(s in def))
            fail("use mpi_f08 calls " s " (" stem_of[stem] "), which the tracer does not define")
    }
    for (c in unused) fail(c " is listed in docs/tracer.md but not recorded in C, or unknown")
    if (checked < 100) fail("only " checked " recorded functions found: the libraries do not look like Open MPI 4")
    if (bad) exit 1
    print "ompi_symbols: " checked " Fortran functions recorded as in C"
}' "$w/bodies"
