#!/bin/sh
# mpi.openmpi.symbols: every Fortran function of Open MPI whose C function the Open MPI tracer
# records is recorded from Fortran too, under every name a program can call it by, or is named
# in docs/tracer.md's line "Not recorded from Fortran under Open MPI: ..." (section
# "## Open MPI"). Read from the libraries themselves, so a function or a name cannot be
# forgotten:
#  - libmpi_mpifh.so defines one body per function, ompi_<stem>_f, with the alias
#    MPI_<Name>_f that gives the C name, and the other spellings at the body's address.
#    When the tracer defines MPI_<Name>, it must define each spelling a compiler emits for
#    mpif.h and `use mpi` (mpi_<stem>_, mpi_<stem>__, mpi_<stem>: gfortran by default, with
#    -fsecond-underscore, with -fno-underscoring), ompi_<stem>_f and pmpi_<stem>_ (which
#    `use mpi_f08` calls). The body's other spellings are accounted for by their form, each
#    counted: uppercase (MPI_<STEM>, PMPI_<STEM>: compilers that emit uppercase names, which
#    gfortran, the compiler of Debian's mpif.h and modules, does not), Open MPI's own names
#    (P?MPI_<Name>_f, P?MPI_<Name>_f08: nothing calls them but the next check's calls) and
#    the other profiling names (pmpi_<stem>, pmpi_<stem>__: a tool's own calls, and the
#    tracer's twin). A spelling of none of these forms fails the test.
#  - libmpi_usempif08.so's mpi_*_f08_ call a body by one of its names (objdump): each name
#    called for a recorded function must be one the tracer defines.
# A listed function must be one the tracer records in C and not from Fortran; the line may
# list none ("none.").
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
# "ADDRESS NAME" of every name of the library; the bodies, ompi_<stem>_f, by name.
nm -D --defined-only "$2" | awk 'NF == 3 { print $1, $3 }' > "$w/all"
awk '$2 ~ /^ompi_[a-z0-9_]+_f$/ { print $2 }' "$w/all" > "$w/bodies"
awk '$2 ~ /^MPI_[A-Z][a-z0-9_]*_f$/ { print $2 }' "$w/all" > "$w/names"
# The names libmpi_usempif08.so's f08 functions call through the PLT.
objdump -d --no-show-raw-insn "$3" |
    awk '/^[0-9a-f]+ <[^>]*>:$/ { fn = $2 }
         fn ~ /^<mpi_.*_f08_(@@Base)?>:$/ && /call.*<[A-Za-z0-9_]+@plt>/ {
             match($0, /<[A-Za-z0-9_]+@plt>/); print substr($0, RSTART + 1, RLENGTH - 6) }' |
    LC_ALL=C sort -u > "$w/f08calls"
[ -s "$w/bodies" ] || { echo "ompi_symbols: $2 defines no ompi_*_f" >&2; exit 2; }
[ -s "$w/f08calls" ] || { echo "ompi_symbols: no f08 function of $3 calls anything" >&2; exit 2; }
# The documented list: the names in backquotes on its line (up to the first full stop).
# shellcheck disable=SC2016 # the backquotes are the text looked for
awk '/^## Open MPI/ { on = 1; next } /^## / { on = 0 }
    on && /^ *Not recorded from Fortran under Open MPI:/ { go = 1 }
    go { print } go && /\.( |$)/ { exit }' "$4" | tr '\n' ' ' > "$w/line"
[ -s "$w/line" ] || {
    echo "ompi_symbols: no line 'Not recorded from Fortran under Open MPI:' in $4" >&2
    exit 2
}
grep -o '`MPI_[A-Za-z_]*`' "$w/line" | tr -d '`' > "$w/listed" || true
[ -s "$w/listed" ] || grep -q 'Open MPI: none\.' "$w/line" || {
    echo "ompi_symbols: the line 'Not recorded from Fortran under Open MPI:' names no function" \
        "and does not say 'none.'" >&2
    exit 2
}

awk -v tracer="$w/tracer" -v names="$w/names" -v f08calls="$w/f08calls" \
    -v listed="$w/listed" -v all="$w/all" '
function fail(msg) { print "ompi_symbols: " msg; bad++ }
BEGIN {
    while ((getline s < tracer) > 0) def[s] = 1
    while ((getline s < listed) > 0) { list[s] = 1; unused[s] = 1 }
    while ((getline s < names) > 0) {
        c = s
        sub(/_f$/, "", c)
        cname[tolower(c)] = c
    }
    while ((getline s < all) > 0) {
        split(s, f, " ")
        at[f[1]] = at[f[1]] " " f[2]
        addr[f[2]] = f[1]
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
    if (c in list) {
        delete unused[c]
        if ($1 in def) fail(c " is listed in docs/tracer.md but recorded from Fortran")
        next
    }
    checked++
    recorded[$1] = c
    n = split("ompi_" stem "_f mpi_" stem "_ mpi_" stem "__ mpi_" stem " pmpi_" stem "_", want, " ")
    for (i = 1; i <= n; i++)
        if (!(want[i] in def))
            fail(c ": the tracer records it in C but does not define " want[i])
    # every other name at the body address: hooked, or of a form accounted for
    k = split(at[addr[$1]], alias, " ")
    for (i = 1; i <= k; i++) {
        a = alias[i]
        if (a in def) { hooked++; continue }
        if (a ~ /^P?MPIX?_[A-Z0-9_]+$/) { upper++; continue }
        if (a ~ /^P?MPIX?_[A-Z][a-z0-9_]*_f(08)?$/) { own++; continue }
        if (a ~ /^pmpix?_[a-z0-9_]*[a-z0-9]$/ || a ~ /^pmpix?_[a-z0-9_]*[a-z0-9]__$/) { prof++; continue }
        fail(c ": Open MPI exports " a ", which the tracer neither defines nor accounts for")
    }
}
END {
    while ((getline s < f08calls) > 0) {
        if (!(s in addr) || (s in def)) continue
        k = split(at[addr[s]], alias, " ")
        for (i = 1; i <= k; i++)
            if (alias[i] in recorded)
                fail("use mpi_f08 calls " s " (" recorded[alias[i]] "), which the tracer does not define")
    }
    for (c in unused) fail(c " is listed in docs/tracer.md but not recorded in C, or unknown")
    if (checked < 100) fail("only " checked " recorded functions found: the libraries do not look like Open MPI 4")
    if (bad) exit 1
    print "ompi_symbols: " checked " Fortran functions recorded as in C; of their names, " hooked \
        " defined by the tracer, " upper " uppercase, " own " Open MPI'"'"'s own and " prof \
        " other profiling names not"
}' "$w/bodies"
