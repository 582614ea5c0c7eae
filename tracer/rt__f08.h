/*
 * The mpi_f08 wrappers: the rows of f08.def expanded into complete mpi_<stem>_ functions.
 *
 * Why they exist: in MPICH 4.0 the `use mpi_f08` bindings without a choice buffer
 * (mpi_barrier_f08_, mpi_wait_f08_, mpi_comm_split_f08_, ...) call PMPI_<name> directly, so
 * the C wrappers never see them; those with a choice buffer (mpi_send_f08ts_, ...) call the
 * C MPI_<name> and need nothing here, and so do all of `mpif.h` and `use mpi`.
 *
 * How: the tracer defines the f08 entry point itself (LD_PRELOAD puts it before MPICH's),
 * runs the pre and post hooks of the same function's row of wrappers.def, and calls MPICH's
 * profiling twin pmpir_<stem>_ for the work, so that the Fortran semantics (logical flags,
 * MPI_UNWEIGHTED, the status objects) stay MPICH's own. The twin is a weak reference: a C
 * program never calls these, and the tracer loads without libmpichfort.
 *
 * Each wrap_<class>.c includes this header after wrappers.def. Its rows of wrappers.def are
 * expanded once more, into the functions rt__pre_<name> and rt__post_<name>, and then its
 * rows of f08.def into f08 wrappers calling them: in the same file as the static hooks and
 * the state they keep. The compiler checks what it can: an f08 row names an id of
 * rt_funcs.def (RT_FN_) and a row of wrappers.def of its class (rt__pre_), and gives its
 * hooks arguments of the C parameters' types.
 */
#ifndef RT__F08_H
#define RT__F08_H

#include <stddef.h>

#include "rt__tracer.h"

/*
 * MPICH 4.0's f08 Waitany, Testany, Waitsome and Testsome hand back C indices (from 0; MPICH
 * issue 6270, Fortran's from 1 since 4.1), which the hooks read as they are. With another
 * MPI library or version the tracer has no f08 wrappers (docs/tracer.md), rather than
 * wrappers that read indices wrong.
 */
#if defined(MPICH_NUMVERSION) && MPICH_NUMVERSION >= 40000000 && MPICH_NUMVERSION < 40100000
#define RT__F08 1
#else
#define RT__F08 0
#endif

#if RT__F08 || RT__OMPI_F
#define RT__F08_UNPAREN(...) __VA_ARGS__

/* The including file's rows of wrappers.def once more (RT__CLASS_<CLASS> is RT__WRAP for its
 * classes, RT__SKIP for the others): each row's hooks as functions of the C parameters, for
 * the f08 wrappers below and Open MPI's Fortran wrappers (rt__ompi_f.h). */
#define RT__F08_HOOKS(name, params, args, pre, post)                        \
    static inline void rt__pre_##name(rt__call *c, RT__F08_UNPAREN params)  \
    {                                                                       \
        pre;                                                                \
    }                                                                       \
    static inline void rt__post_##name(rt__call *c, RT__F08_UNPAREN params) \
    {                                                                       \
        post;                                                               \
    }
#undef RT__WRAP
#undef RT__COUNT_T
#undef RT__DISP_T
#define RT__WRAP RT__F08_HOOKS
#include "wrappers.def"
#endif

#if RT__F08
/* MPICH's Fortran handles are its C handles (the f2c "conversions" are casts), and its f08
 * status is its C status: so a TYPE(MPI_Comm) argument is read as an MPI_Comm, an array of
 * TYPE(MPI_Request) as an MPI_Request array. These fail to compile where that is not so. */
_Static_assert(_Generic((MPI_Fint)0, int : 1, default : 0), "MPI_Fint is int");
_Static_assert(MPI_Comm_f2c(7) == (MPI_Comm)7 && sizeof(MPI_Comm) == sizeof(MPI_Fint),
               "MPI_Comm is its Fortran handle");
_Static_assert(MPI_Request_f2c(7) == (MPI_Request)7 && sizeof(MPI_Request) == sizeof(MPI_Fint),
               "MPI_Request is its Fortran handle");
_Static_assert(MPI_Win_f2c(7) == (MPI_Win)7 && sizeof(MPI_Win) == sizeof(MPI_Fint),
               "MPI_Win is its Fortran handle");
_Static_assert(MPI_Group_f2c(7) == (MPI_Group)7 && sizeof(MPI_Group) == sizeof(MPI_Fint),
               "MPI_Group is its Fortran handle");
_Static_assert(MPI_Info_f2c(7) == (MPI_Info)7 && sizeof(MPI_Info) == sizeof(MPI_Fint),
               "MPI_Info is its Fortran handle");
_Static_assert(MPI_Message_f2c(7) == (MPI_Message)7 && sizeof(MPI_Message) == sizeof(MPI_Fint),
               "MPI_Message is its Fortran handle");
_Static_assert(sizeof(MPI_Status) == sizeof(MPI_F08_status) &&
                   offsetof(MPI_Status, MPI_SOURCE) == offsetof(MPI_F08_status, MPI_SOURCE) &&
                   offsetof(MPI_Status, MPI_TAG) == offsetof(MPI_F08_status, MPI_TAG) &&
                   offsetof(MPI_Status, MPI_ERROR) == offsetof(MPI_F08_status, MPI_ERROR),
               "MPI_Status is TYPE(MPI_Status)");

/* An f08 status or status array as the C hooks take it: MPI_F08_STATUS(ES)_IGNORE becomes
 * the C IGNORE. */
#define RT__F08_CST(s) \
    ((s) == MPI_F08_STATUS_IGNORE ? MPI_STATUS_IGNORE : (MPI_Status *)(void *)(s))
#define RT__F08_CSTV(s) \
    ((s) == MPI_F08_STATUSES_IGNORE ? MPI_STATUSES_IGNORE : (MPI_Status *)(void *)(s))
/* ... and what the twin gets, as RT__ST and RT__STV stand in for the C wrappers: the call's
 * own status when one was ignored, so that completion always has one to read. */
#define RT__F08_ST(s) \
    (c->on && (s) == MPI_F08_STATUS_IGNORE ? (MPI_F08_status *)(void *)&c->st : (s))
#define RT__F08_STV(s) (c->stv ? (MPI_F08_status *)(void *)c->stv : (s))

/*
 * One f08 entry point. Its ierror is optional (NULL when the caller left it out); the twin
 * always gets one, so that the post hooks see the return code.
 */
#define RT__F08_WRAP(name, stem, fparams, fargs, cargs)                                    \
    void pmpir_##stem##_(RT__F08_UNPAREN fparams, MPI_Fint *ierror) __attribute__((weak)); \
    RT__EXPORT void mpi_##stem##_(RT__F08_UNPAREN fparams, MPI_Fint *ierror);              \
    RT__EXPORT void mpi_##stem##_(RT__F08_UNPAREN fparams, MPI_Fint *ierror)               \
    {                                                                                      \
        rt__call c_;                                                                       \
        rt__call *const c = &c_;                                                           \
        MPI_Fint rc = MPI_SUCCESS;                                                         \
        if (rt__begin(c, RT_FN_##name)) {                                                  \
            rt__pre_##name(c, RT__F08_UNPAREN cargs);                                      \
            if (rt__can_block(RT_FN_##name))                                               \
                rt__pending_open(c);                                                       \
        }                                                                                  \
        pmpir_##stem##_(RT__F08_UNPAREN fargs, &rc);                                       \
        c->rc = rc;                                                                        \
        if (c->on) {                                                                       \
            if (rt__can_block(RT_FN_##name))                                               \
                rt__pending_close(c->t);                                                   \
            rt__post_##name(c, RT__F08_UNPAREN cargs);                                     \
            rt__end(c);                                                                    \
        }                                                                                  \
        if (ierror)                                                                        \
            *ierror = rc;                                                                  \
    }

/* The including file's rows of f08.def (RT__SKIP takes five arguments, as F passes them). */
#undef RT__WRAP
#define RT__WRAP RT__F08_WRAP
#define F(cls, name, stem, fparams, fargs, cargs) RT__CLASS_##cls(name, stem, fparams, fargs, cargs)
#include "f08.def"
#undef F
#endif /* RT__F08 */

#endif /* RT__F08_H */
