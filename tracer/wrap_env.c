/*
 * MPI_Init, MPI_Init_thread, MPI_Finalize and MPI_Abort start and stop the tracer, so they
 * are written out here rather than generated from wrappers.def: the tracer is off when
 * MPI_Init is entered, and MPI_Finalize must record itself before the files are closed.
 */
#include "rt__wrap.h"

/* MPI_Init's own call, recorded once the tracer runs: from time 0 to now. */
static void record_init(unsigned fn)
{
    rt__call c;
    if (!rt__begin(&c, fn))
        return;
    c.t0 = 0;
    rt__end(&c);
}

RT__EXPORT int MPI_Init(int *argc, char ***argv)
{
    int rc = PMPI_Init(argc, argv);
    if (rc == MPI_SUCCESS) {
        int provided = MPI_THREAD_SINGLE;
        PMPI_Query_thread(&provided);
        rt__init_after(provided);
        record_init(RT_FN_Init);
    }
    return rc;
}

RT__EXPORT int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    int rc = PMPI_Init_thread(argc, argv, required, provided);
    if (rc == MPI_SUCCESS) {
        rt__init_after(*provided);
        record_init(RT_FN_Init_thread);
    }
    return rc;
}

RT__EXPORT int MPI_Finalize(void)
{
    rt__call c;
    if (rt__begin(&c, RT_FN_Finalize))
        rt__end(&c);
    rt__finalize_before();
    return PMPI_Finalize();
}

RT__EXPORT int MPI_Abort(MPI_Comm comm, int errorcode)
{
    rt__call c;
    if (rt__begin(&c, RT_FN_Abort)) {
        /* It does not return: the trace shows it as a pending call with nothing to wait for
         * (rt_event.h), which the final writes below put in the trailer. */
        if (rt__g.tracing)
            rt__pending_open(&c);
        else
            rt__end(&c);
    }
    rt__abort_before();
    return PMPI_Abort(comm, errorcode);
}
