/*
 * MPI_Init, MPI_Init_thread, MPI_Finalize and MPI_Abort start and stop the tracer, so they
 * are written out here rather than generated from wrappers.def: the tracer is off when
 * MPI_Init is entered, and MPI_Finalize must record itself before the files are closed.
 * Their mpi_f08 entry points (which call PMPI directly, rt__f08.h) do the same around
 * MPICH's profiling twins, and so do Open MPI's Fortran bodies (rt__ompi_f.h) around theirs.
 */
#include "rt__wrap.h"
/* after rt__wrap.h: every class is skipped here, RT__F08 is what this file needs of it */
#include "rt__f08.h"
#include "rt__ompi_f.h"

/* MPI_Init's own call, recorded once the tracer runs: from time 0 to now. */
static void record_init(unsigned fn)
{
    rt__call c;
    c.rc = MPI_SUCCESS;
    if (!rt__begin(&c, fn))
        return;
    c.t0 = 0;
    rt__end(&c);
}

/* After MPI_Init or MPI_Init_thread returned rc: the tracer starts. */
static void init_done(unsigned fn, int rc, int provided)
{
    if (rc != MPI_SUCCESS)
        return;
    rt__init_after(provided);
    record_init(fn);
}

static int thread_level(void)
{
    int provided = MPI_THREAD_SINGLE;
    PMPI_Query_thread(&provided);
    return provided;
}

/* Before PMPI_Finalize: the call records itself, and the files are closed. */
static void finalize_begin(void)
{
    rt__call c = {.rc = MPI_SUCCESS};
    if (rt__begin(&c, RT_FN_Finalize))
        rt__end(&c);
    rt__finalize_before();
}

static void abort_begin(void)
{
    rt__call c = {.rc = MPI_SUCCESS};
    if (rt__begin(&c, RT_FN_Abort)) {
        /* It does not return: the trace shows it as a pending call with nothing to wait for
         * (rt_event.h), which the final writes below put in the trailer. */
        if (rt__g.tracing)
            rt__pending_open(&c);
        else
            rt__end(&c);
    }
    rt__abort_before();
}

RT__EXPORT int MPI_Init(int *argc, char ***argv)
{
    int rc = PMPI_Init(argc, argv);
    init_done(RT_FN_Init, rc, rc == MPI_SUCCESS ? thread_level() : MPI_THREAD_SINGLE);
    return rc;
}

RT__EXPORT int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    int rc = PMPI_Init_thread(argc, argv, required, provided);
    init_done(RT_FN_Init_thread, rc, rc == MPI_SUCCESS ? *provided : MPI_THREAD_SINGLE);
    return rc;
}

RT__EXPORT int MPI_Finalize(void)
{
    finalize_begin();
    return PMPI_Finalize();
}

RT__EXPORT int MPI_Abort(MPI_Comm comm, int errorcode)
{
    abort_begin();
    return PMPI_Abort(comm, errorcode);
}

#if RT__F08
/* The f08 entry points and their twins (weak: see rt__f08.h). ierror may be NULL. */
void pmpir_init_f08_(MPI_Fint *ierror) __attribute__((weak));
void pmpir_init_thread_f08_(const MPI_Fint *required, MPI_Fint *provided, MPI_Fint *ierror)
    __attribute__((weak));
void pmpir_finalize_f08_(MPI_Fint *ierror) __attribute__((weak));
void pmpir_abort_f08_(const MPI_Comm *comm, const MPI_Fint *errorcode, MPI_Fint *ierror)
    __attribute__((weak));
RT__EXPORT void mpi_init_f08_(MPI_Fint *ierror);
RT__EXPORT void mpi_init_thread_f08_(const MPI_Fint *required, MPI_Fint *provided,
                                     MPI_Fint *ierror);
RT__EXPORT void mpi_finalize_f08_(MPI_Fint *ierror);
RT__EXPORT void mpi_abort_f08_(const MPI_Comm *comm, const MPI_Fint *errorcode, MPI_Fint *ierror);

RT__EXPORT void mpi_init_f08_(MPI_Fint *ierror)
{
    MPI_Fint rc = MPI_SUCCESS;
    pmpir_init_f08_(&rc);
    init_done(RT_FN_Init, rc, rc == MPI_SUCCESS ? thread_level() : MPI_THREAD_SINGLE);
    if (ierror)
        *ierror = rc;
}

RT__EXPORT void mpi_init_thread_f08_(const MPI_Fint *required, MPI_Fint *provided, MPI_Fint *ierror)
{
    MPI_Fint rc = MPI_SUCCESS;
    pmpir_init_thread_f08_(required, provided, &rc);
    init_done(RT_FN_Init_thread, rc, rc == MPI_SUCCESS ? *provided : MPI_THREAD_SINGLE);
    if (ierror)
        *ierror = rc;
}

RT__EXPORT void mpi_finalize_f08_(MPI_Fint *ierror)
{
    finalize_begin();
    pmpir_finalize_f08_(ierror);
}

RT__EXPORT void mpi_abort_f08_(const MPI_Comm *comm, const MPI_Fint *errorcode, MPI_Fint *ierror)
{
    abort_begin();
    pmpir_abort_f08_(comm, errorcode, ierror);
}
#endif

#if RT__OMPI_F
/* Open MPI's Fortran bodies (rt__ompi_f.h) and their profiling names in libmpi_mpifh.so. */
void pmpi_init__(MPI_Fint *ierror) __attribute__((weak));
void pmpi_init_thread__(MPI_Fint *required, MPI_Fint *provided, MPI_Fint *ierror)
    __attribute__((weak));
void pmpi_finalize__(MPI_Fint *ierror) __attribute__((weak));
void pmpi_abort__(MPI_Fint *comm, MPI_Fint *errorcode, MPI_Fint *ierror) __attribute__((weak));
RT__EXPORT void ompi_init_f(MPI_Fint *ierror);
RT__EXPORT void ompi_init_thread_f(MPI_Fint *required, MPI_Fint *provided, MPI_Fint *ierror);
RT__EXPORT void ompi_finalize_f(MPI_Fint *ierror);
RT__EXPORT void ompi_abort_f(MPI_Fint *comm, MPI_Fint *errorcode, MPI_Fint *ierror);

RT__EXPORT void ompi_init_f(MPI_Fint *ierror)
{
    MPI_Fint rc = MPI_SUCCESS;
    pmpi_init__(&rc);
    init_done(RT_FN_Init, rc, rc == MPI_SUCCESS ? thread_level() : MPI_THREAD_SINGLE);
    if (ierror)
        *ierror = rc;
}

RT__EXPORT void ompi_init_thread_f(MPI_Fint *required, MPI_Fint *provided, MPI_Fint *ierror)
{
    MPI_Fint rc = MPI_SUCCESS;
    pmpi_init_thread__(required, provided, &rc);
    init_done(RT_FN_Init_thread, rc, rc == MPI_SUCCESS ? *provided : MPI_THREAD_SINGLE);
    if (ierror)
        *ierror = rc;
}

RT__EXPORT void ompi_finalize_f(MPI_Fint *ierror)
{
    finalize_begin();
    pmpi_finalize__(ierror);
}

RT__EXPORT void ompi_abort_f(MPI_Fint *comm, MPI_Fint *errorcode, MPI_Fint *ierror)
{
    abort_begin();
    pmpi_abort__(comm, errorcode, ierror);
}

/* The names the Fortran compilers call (rt__ompi_f.h). */
#define RT__OF_ENV_ALIASES(stem, params)       \
    RT__OF_ALIAS(stem, mpi_##stem##_) params;  \
    RT__OF_ALIAS(stem, mpi_##stem##__) params; \
    RT__OF_ALIAS(stem, mpi_##stem) params;     \
    RT__OF_ALIAS(stem, pmpi_##stem##_) params;
RT__OF_ENV_ALIASES(init, (MPI_Fint * ierror))
RT__OF_ENV_ALIASES(init_thread, (MPI_Fint * required, MPI_Fint *provided, MPI_Fint *ierror))
RT__OF_ENV_ALIASES(finalize, (MPI_Fint * ierror))
RT__OF_ENV_ALIASES(abort, (MPI_Fint * comm, MPI_Fint *errorcode, MPI_Fint *ierror))
#endif
