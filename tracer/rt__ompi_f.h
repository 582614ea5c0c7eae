/*
 * Open MPI's Fortran bindings: the rows of ompi_f.def expanded into complete functions.
 *
 * Why they exist: Open MPI's libmpi_mpifh.so defines one body per function (ompi_send_f),
 * whose weak aliases are what `mpif.h` and `use mpi` call (mpi_send_, ...), and which
 * `use mpi_f08`'s mpi_send_f08_ (libmpi_usempif08.so) calls through the PLT; its bindings with
 * a LOGICAL argument (mpi_test_f08_, mpi_iprobe_f08_, mpi_cart_create_f08_, ...) call the
 * body's alias pmpi_<stem>_ instead. The body calls PMPI_Send, so the C wrappers never see a
 * Fortran program's calls.
 *
 * How: the tracer defines ompi_<stem>_f and those names (mpi_<stem>_, mpi_<stem>__,
 * mpi_<stem>, pmpi_<stem>_) itself, so that LD_PRELOAD puts them before Open MPI's, runs the
 * pre and post hooks of the same function's row of wrappers.def, and calls the body under an
 * alias nobody else calls, pmpi_<stem>__, for the work, so that the Fortran semantics
 * (sentinels, logical flags, indices from 1, ierror) stay Open MPI's. The twin is a weak
 * reference: a C program never calls these, and the tracer loads without libmpi_mpifh.so.
 *
 * The hooks get C arguments: Fortran handles through Open MPI's f2c functions, statuses
 * through PMPI_Status_f2c after the call, indices less one, MPI_IN_PLACE recognised by the
 * address Open MPI's own bindings compare with. A request made in Fortran is the C request
 * PMPI_Request_f2c gives back, so the request table (keyed on C handles) follows requests
 * started and completed in either language.
 *
 * Each wrap_<class>.c includes this header after rt__f08.h, which has turned its rows of
 * wrappers.def into the functions rt__pre_<name> and rt__post_<name> (RT__F08_HOOKS).
 */
#ifndef RT__OMPI_F_H
#define RT__OMPI_F_H

#include <stdint.h>
#include <stdlib.h>

#include "rt__tracer.h"

#if RT__OMPI_F
/* What the conversions below take for granted of Open MPI 4.1's Fortran types. */
_Static_assert(_Generic((MPI_Fint)0, int : 1, default : 0), "MPI_Fint is int");
_Static_assert(sizeof(MPI_Status) % sizeof(MPI_Fint) == 0, "a status is a whole number of Fints");

/* Open MPI's MPI_STATUS_SIZE: its Fortran status holds the C status's ints. */
#define RT__OF_STATUS_SIZE (sizeof(MPI_Status) / sizeof(MPI_Fint))

/* Open MPI's Fortran MPI_IN_PLACE: the common block mpi_fortran_in_place_, whose address all
 * three bindings pass. The dynamic linker gives the process one: a program that names
 * MPI_IN_PLACE holds a copy (LD_DEBUG=bindings), which libmpi.so, libmpi_mpifh.so (whose
 * bodies compare with it) and this reference all bind to. */
extern int mpi_fortran_in_place_ __attribute__((weak));

/* The conversion state of one Fortran call: arrays of n requests, statuses and indices
 * (inline up to RT__INLINE_REQS, else one allocation), and the Fortran statuses the twin
 * fills when the caller ignored them; or, for the w collectives (which have none of those),
 * their datatypes per peer (rt__of_wtypes). after: the twin has returned. */
typedef struct rt__of {
    int after;
    int n;
    MPI_Fint *fst;  /* the Fortran status the twin got */
    MPI_Fint *fstv; /* the Fortran statuses the twin got */
    MPI_Status *cs; /* the hooks' C statuses */
    MPI_Request *rq;
    MPI_Fint *fs; /* stands in for MPI_STATUS(ES)_IGNORE */
    int *ix;
    void *heap;
    const MPI_Datatype *ty[2]; /* w collectives: the send and the receive datatypes */
    union {
        struct {
            MPI_Status cs_inline[RT__INLINE_REQS];
            MPI_Request rq_inline[RT__INLINE_REQS];
            MPI_Fint fs_inline[RT__INLINE_REQS * RT__OF_STATUS_SIZE];
            int ix_inline[RT__INLINE_REQS];
        };
        MPI_Datatype ty_inline[2 * RT__INLINE_REQS];
    };
} rt__of;

/* Leaves a call the tracer cannot follow untraced (it still runs): as rt__begin not taken. */
static inline int rt__of_drop(rt__call *c)
{
    c->t->depth = 0;
    c->on = 0;
    return 0;
}

/* Room for the call's arrays of n (a count the program passed: bounded by int). The row's n
 * column, evaluated just before, may have left the call untraced (rt__of_wtypes) or taken
 * x->heap (which the wrapper sets to NULL first). */
static inline int rt__of_alloc(rt__call *c, rt__of *x, int n)
{
    if (!c->on)
        return 0;
    x->n = n > 0 ? n : 0;
    x->fst = x->fstv = NULL;
    if (x->n <= RT__INLINE_REQS) {
        x->cs = x->cs_inline;
        x->rq = x->rq_inline;
        x->fs = x->fs_inline;
        x->ix = x->ix_inline;
        return 1;
    }
    size_t k = (size_t)x->n; /* < 2^31: each product below fits in size_t */
    size_t each = sizeof(MPI_Status) + sizeof(MPI_Request) + sizeof(int) +
                  RT__OF_STATUS_SIZE * sizeof(MPI_Fint);
    char *p = malloc(k * each);
    if (!p)
        return rt__of_drop(c);
    x->heap = p;
    x->cs = (MPI_Status *)(void *)p;
    x->rq = (MPI_Request *)(void *)(p + k * sizeof(MPI_Status));
    x->fs = (MPI_Fint *)(void *)(p + k * (sizeof(MPI_Status) + sizeof(MPI_Request)));
    x->ix = (int *)(void *)(x->fs + k * RT__OF_STATUS_SIZE);
    return 1;
}

/* ---- what the twin gets ---------------------------------------------------------------- */

/* A status: the call's own when one was ignored, so that completion always has one to read. */
static inline MPI_Fint *rt__of_st(const rt__call *c, rt__of *x, MPI_Fint *s)
{
    x->fst = c->on && s == MPI_F_STATUS_IGNORE ? x->fs : s;
    return x->fst;
}

static inline MPI_Fint *rt__of_stv(const rt__call *c, rt__of *x, MPI_Fint *s)
{
    x->fstv = c->on && s == MPI_F_STATUSES_IGNORE ? x->fs : s;
    return x->fstv;
}

/* ---- what the hooks get ---------------------------------------------------------------- */

/* The status the twin filled, once it has (the hooks read statuses only after the call). */
static inline MPI_Status *rt__of_cst(rt__call *c, const rt__of *x)
{
    if (x->after && x->fst != MPI_F_STATUS_IGNORE)
        PMPI_Status_f2c(x->fst, &c->st);
    return &c->st;
}

/* The first n statuses the twin filled, as C statuses (n: the count, or Waitsome's outcount,
 * which is MPI_UNDEFINED when there was nothing to complete). */
static inline MPI_Status *rt__of_cstv(rt__of *x, int n)
{
    if (x->after && x->fstv != MPI_F_STATUSES_IGNORE)
        for (int i = 0; i < n && i < x->n; i++)
            PMPI_Status_f2c(x->fstv + (size_t)i * RT__OF_STATUS_SIZE, &x->cs[i]);
    return x->cs;
}

/* The C requests of a Fortran array of them, before the call (completion frees them). */
static inline MPI_Request *rt__of_reqv(rt__of *x, const MPI_Fint *f)
{
    if (!x->after)
        for (int i = 0; i < x->n; i++)
            x->rq[i] = PMPI_Request_f2c(f[i]);
    return x->rq;
}

/* Fortran's indices count from 1; MPI_UNDEFINED stays. */
static inline int rt__of_index(MPI_Fint i)
{
    return i == MPI_UNDEFINED ? MPI_UNDEFINED : i - 1;
}

static inline int *rt__of_indices(rt__of *x, const MPI_Fint *f, int n)
{
    if (x->after)
        for (int i = 0; i < n && i < x->n; i++)
            x->ix[i] = rt__of_index(f[i]);
    return x->ix;
}

static inline const void *rt__of_buf(const void *b)
{
    return b && b == (const void *)&mpi_fortran_in_place_ ? MPI_IN_PLACE : b;
}

/* A Fortran datatype handle as a C one; a handle Open MPI does not know (PMPI_Type_f2c gives
 * NULL, and the call itself fails) as MPI_DATATYPE_NULL, which the hooks count as 0 bytes. */
static inline MPI_Datatype rt__of_type(MPI_Fint f)
{
    MPI_Datatype t = PMPI_Type_f2c(f);
    return t ? t : MPI_DATATYPE_NULL;
}

/*
 * The w collectives' datatypes, one per peer, as their hooks read them (RT__COUNTS_W): the
 * send side's for the peers data goes to, the receive side's for those it comes from, as
 * many as coll_setup_peers counts (the group, the remote group of an inter-communicator, or
 * the out and in neighbours of the process topology); the send side's not at all in place,
 * where MPI ignores them. Converted once, before the call, from the row's n column (these
 * rows have no requests or statuses to convert, so it returns 0 for them): inline up to
 * 2 * RT__INLINE_REQS peers, else in x->heap, freed by the wrapper. When that allocation
 * fails the call runs untraced. The other Fortran wrappers never come here.
 */
static inline int rt__of_wtypes(rt__call *c, rt__of *x, const MPI_Fint *comm, const void *sendbuf,
                                const MPI_Fint *sendtypes, const MPI_Fint *recvtypes, int neighbor)
{
    x->ty[0] = x->ty[1] = NULL;
    MPI_Comm cc = PMPI_Comm_f2c(*comm);
    rt__comm *cm = cc ? rt__comm_get(cc) : NULL;
    if (!cm) /* not a communicator the tracer knows: the hook records nothing either */
        return 0;
    uint64_t nin = cm->inter ? cm->remote_size : cm->size, nout = nin;
    if (neighbor)
        rt__comm_degrees(cc, cm, &nin, &nout);
    if (rt__of_buf(sendbuf) == MPI_IN_PLACE)
        nout = 0;
    uint64_t n = nin + nout; /* each < 2^32 */
    MPI_Datatype *t = x->ty_inline;
    if (n > 2 * RT__INLINE_REQS) {
        t = n <= SIZE_MAX / sizeof *t ? malloc((size_t)n * sizeof *t) : NULL;
        if (!t)
            return rt__of_drop(c);
        x->heap = t;
    }
    for (uint64_t i = 0; i < nout; i++)
        t[i] = rt__of_type(sendtypes[i]);
    for (uint64_t i = 0; i < nin; i++)
        t[nout + i] = rt__of_type(recvtypes[i]);
    x->ty[0] = nout ? t : NULL;
    x->ty[1] = t + nout;
    return 0;
}

/* The conversions as ompi_f.def's rows spell them (x: the call's rt__of). An input handle
 * is converted where the hooks read it; an output handle reads as null before the call. */
#define RT__OF_COMM(p) PMPI_Comm_f2c(*(p))
#define RT__OF_TYPE(p) PMPI_Type_f2c(*(p))
#define RT__OF_OP(p) PMPI_Op_f2c(*(p))
#define RT__OF_WIN(p) PMPI_Win_f2c(*(p))
#define RT__OF_GROUP(p) PMPI_Group_f2c(*(p))
#define RT__OF_GROUPP(p) (&(MPI_Group){PMPI_Group_f2c(*(p))})
#define RT__OF_NEWGROUP(p) (&(MPI_Group){x->after ? PMPI_Group_f2c(*(p)) : MPI_GROUP_NULL})
#define RT__OF_INFO(p) PMPI_Info_f2c(*(p))
#define RT__OF_BUF(b) rt__of_buf(b)
#define RT__OF_REQP(p) (&(MPI_Request){PMPI_Request_f2c(*(p))})
#define RT__OF_NEWREQ(p) (&(MPI_Request){x->after ? PMPI_Request_f2c(*(p)) : MPI_REQUEST_NULL})
#define RT__OF_COMMP(p) (&(MPI_Comm){PMPI_Comm_f2c(*(p))})
#define RT__OF_NEWCOMM(p) (&(MPI_Comm){x->after ? PMPI_Comm_f2c(*(p)) : MPI_COMM_NULL})
#define RT__OF_WINP(p) (&(MPI_Win){PMPI_Win_f2c(*(p))})
#define RT__OF_NEWWIN(p) (&(MPI_Win){x->after ? PMPI_Win_f2c(*(p)) : MPI_WIN_NULL})
#define RT__OF_MSGP(p) (&(MPI_Message){PMPI_Message_f2c(*(p))})
#define RT__OF_NEWMSG(p) (&(MPI_Message){x->after ? PMPI_Message_f2c(*(p)) : MPI_MESSAGE_NULL})
#define RT__OF_INDEX(p) (&(int){x->after ? rt__of_index(*(p)) : MPI_UNDEFINED})
#define RT__OF_INDICES(p, n) rt__of_indices(x, p, x->after ? (n) : 0)
#define RT__OF_REQV(p) rt__of_reqv(x, p)
#define RT__OF_ST(s) rt__of_st(c, x, s)
#define RT__OF_STV(s) rt__of_stv(c, x, s)
#define RT__OF_CST(s) rt__of_cst(c, x)
#define RT__OF_CSTV(s, n) rt__of_cstv(x, x->after ? (n) : 0)
/* The w collectives: their n column converts the datatypes, RT__OF_TYPEV(0) and (1) are the
 * send and the receive side's (neighbor: 1 for the neighbourhood forms). */
#define RT__OF_W(neighbor) rt__of_wtypes(c, x, comm, sendbuf, sendtypes, recvtypes, neighbor)
#define RT__OF_TYPEV(k) (x->ty[k])

/*
 * One Fortran function: Open MPI's body name and the names the compilers call, aliases of
 * one definition. ierror may be NULL (Open MPI's bindings allow it); the twin always gets
 * one, so that the post hooks see the return code.
 */
#define RT__OF_ALIAS(stem, name) RT__EXPORT __attribute__((alias("ompi_" #stem "_f"))) void name
#define RT__OF_WRAP(name, stem, fparams, fargs, cargs, n)                                  \
    void pmpi_##stem##__(RT__F08_UNPAREN fparams, MPI_Fint *ierror) __attribute__((weak)); \
    RT__EXPORT void ompi_##stem##_f(RT__F08_UNPAREN fparams, MPI_Fint *ierror);            \
    RT__EXPORT void ompi_##stem##_f(RT__F08_UNPAREN fparams, MPI_Fint *ierror)             \
    {                                                                                      \
        rt__call c_;                                                                       \
        rt__call *const c = &c_;                                                           \
        rt__of x_;                                                                         \
        rt__of *const x = &x_;                                                             \
        MPI_Fint rc = MPI_SUCCESS;                                                         \
        x->after = 0;                                                                      \
        x->heap = NULL;                                                                    \
        if (rt__begin(c, RT_FN_##name) && rt__of_alloc(c, x, (n))) {                       \
            rt__pre_##name(c, RT__F08_UNPAREN cargs);                                      \
            if (rt__can_block(RT_FN_##name))                                               \
                rt__pending_open(c);                                                       \
        }                                                                                  \
        pmpi_##stem##__(RT__F08_UNPAREN fargs, &rc);                                       \
        c->rc = rc;                                                                        \
        x->after = 1;                                                                      \
        if (c->on) {                                                                       \
            if (rt__can_block(RT_FN_##name))                                               \
                rt__pending_close(c->t);                                                   \
            rt__post_##name(c, RT__F08_UNPAREN cargs);                                     \
            free(x->heap);                                                                 \
            rt__end(c);                                                                    \
        }                                                                                  \
        if (ierror)                                                                        \
            *ierror = rc;                                                                  \
    }                                                                                      \
    RT__OF_ALIAS(stem, mpi_##stem##_)(RT__F08_UNPAREN fparams, MPI_Fint * ierror);         \
    RT__OF_ALIAS(stem, mpi_##stem##__)(RT__F08_UNPAREN fparams, MPI_Fint * ierror);        \
    RT__OF_ALIAS(stem, mpi_##stem)(RT__F08_UNPAREN fparams, MPI_Fint * ierror);            \
    RT__OF_ALIAS(stem, pmpi_##stem##_)(RT__F08_UNPAREN fparams, MPI_Fint * ierror);

/* The including file's rows of ompi_f.def (RT__SKIP takes five arguments, O passes six). */
#define RT__OF_SKIP6(name, stem, fparams, fargs, cargs, n)
#undef RT__WRAP
#undef RT__SKIP
#define RT__WRAP RT__OF_WRAP
#define RT__SKIP RT__OF_SKIP6
#define O(cls, name, stem, fparams, fargs, cargs, n) \
    RT__HAVE_##name(RT__CLASS_##cls(name, stem, fparams, fargs, cargs, n))
#include "ompi_f.def"
#undef O
#endif /* RT__OMPI_F */

#endif /* RT__OMPI_F_H */
