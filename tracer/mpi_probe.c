/*
 * The tracer's feature test (tracer/tracer.cmake), compiled at configure time and never
 * linked: it takes the address of MPI_<name> and PMPI_<name> for every function of
 * formats/rt_funcs.def that the generated rt_mpi_have.h keeps. It compiles only when the
 * MPI's mpi.h declares every function kept; the compiler names each one it does not.
 */
#include <mpi.h>

#include "rt_mpi_have.h"

/* Of the functions the tracer intercepts (ROW and OWN; a NO function is known by name only). */
#define RT__PROBE(name)                                                        \
    RT__HAVE_##name(void rt__probe_##name(void); void rt__probe_##name(void) { \
        (void)&MPI_##name;                                                     \
        (void)&PMPI_##name;                                                    \
    })
#define RT__PROBE_ROW(name) RT__PROBE(name)
#define RT__PROBE_OWN(name) RT__PROBE(name)
#define RT__PROBE_NO(name)
#define RT_FUNC(name, cls, wrapper) RT__PROBE_##wrapper(name)
#include "rt_funcs.def"
#undef RT_FUNC
