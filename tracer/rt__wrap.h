/*
 * Expands a row of wrappers.def into a complete MPI function. Each wrap_<class>.c file
 * defines the RT__CLASS_<CLASS> macro of its class to RT__WRAP and includes this header,
 * which turns the rows of the other classes into nothing.
 */
#ifndef RT__WRAP_H
#define RT__WRAP_H

#include "rt__tracer.h"
#include "rt_mpi_have.h"

#define RT__EXPORT __attribute__((visibility("default")))

/* The C entry point MPI_<name> decides first, before any frame is set up, whether the call is
 * followed at all (rt__wanted): a call that is not (histogram-only mode, a call without a
 * histogram hook; before MPI_Init or after MPI_Finalize) jumps straight to PMPI, and one that
 * is jumps to rt__wrap_<name>, which does the work. Both are tail calls with the parameters as
 * they came: the arguments are those of the PMPI call, where RT__ST and RT__STV read the
 * constant rt__call_off (not on, no statuses of its own), so they pass the parameters on.
 *
 * A call that can block (rt__can_block: a constant, so the test vanishes from the other
 * wrappers) is published as the thread's pending call once its pre hook has left what it
 * waits for, and withdrawn as soon as PMPI returns, before its records are committed. Only
 * while tracing: the pending call goes to the trailer of a raw file, and the histogram-only
 * mode writes none (pending_ keeps the choice made at the open, should tracing stop meanwhile). */
static const rt__call rt__call_off __attribute__((unused));

#define RT__WRAP(name, params, args, pre, post)                 \
    __attribute__((noinline)) static int rt__wrap_##name params \
    {                                                           \
        rt__call c_;                                            \
        rt__call *const c = &c_;                                \
        int pending_ = 0;                                       \
        if (rt__enter(c, RT_FN_##name)) {                       \
            pre;                                                \
            if (rt__can_block(RT_FN_##name) && rt__g.tracing) { \
                rt__pending_open(c);                            \
                pending_ = 1;                                   \
            }                                                   \
        }                                                       \
        c->rc = PMPI_##name args;                               \
        if (c->on) {                                            \
            if (rt__can_block(RT_FN_##name) && pending_)        \
                rt__pending_close(c->t);                        \
            post;                                               \
            rt__end(c);                                         \
        }                                                       \
        return c->rc;                                           \
    }                                                           \
    RT__EXPORT int MPI_##name params                            \
    {                                                           \
        const rt__call *const c = &rt__call_off;                \
        (void)c;                                                \
        if (rt__wanted(RT_FN_##name))                           \
            return rt__wrap_##name args;                        \
        return PMPI_##name args;                                \
    }

/* A blocking call's hook run before PMPI instead of after, so that its record (a collective,
 * an RMA synchronisation) is in the scratch area while the call may block, for the pending
 * call's record (rt__pending_ops). It runs as if the call succeeded; rt__before_failed, the
 * post hook, drops its records when the call did not. */
#define RT__BEFORE(hook) (c->rc = MPI_SUCCESS, (hook))

static inline void rt__before_failed(rt__call *c)
{
    if (c->rc != MPI_SUCCESS)
        c->t->scratch_len = 0;
}

/* Open MPI's Fortran wrappers (rt__ompi_f.h): tracer/tracer.cmake sets RT__OMPI_F to 1 for
 * the Open MPI tracer when Open MPI's libmpi_mpifh.so has the bodies they stand in for. */
#ifndef RT__OMPI_F
#define RT__OMPI_F 0
#endif

#define RT__SKIP(name, params, args, pre, post)

#ifndef RT__CLASS_P2P
#define RT__CLASS_P2P RT__SKIP
#endif
#ifndef RT__CLASS_REQ
#define RT__CLASS_REQ RT__SKIP
#endif
#ifndef RT__CLASS_COLL
#define RT__CLASS_COLL RT__SKIP
#endif
#ifndef RT__CLASS_RMA
#define RT__CLASS_RMA RT__SKIP
#endif
#ifndef RT__CLASS_COMM
#define RT__CLASS_COMM RT__SKIP
#endif

/* A row is kept only when this MPI declares its function (rt_mpi_have.h, generated at configure
 * time by tracer/tracer.cmake): Open MPI 4.1, for one, has no "_c" forms and no Isendrecv. */
#define W(cls, name, params, args, pre, post) \
    RT__HAVE_##name(RT__CLASS_##cls(name, params, args, pre, post))

#endif /* RT__WRAP_H */
