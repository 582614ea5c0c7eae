/* Communicators and topologies: the COMM rows of wrappers.def. */
#include <string.h>

#include "rt__tracer.h"

#define RT__CLASS_COMM RT__WRAP
#include "rt__wrap.h"

/*
 * A communicator from a call that is collective over its parent. The parent's creation
 * counter advances on every member, also where the result is MPI_COMM_NULL, so that all
 * members agree on the position of each new communicator (formats/rt_raw.h).
 */
static void comm_made(rt__call *c, MPI_Comm parent, const MPI_Comm *newcomm, int dup, int tag)
{
    rt__comm *p = rt__comm_get(parent);
    if (!p)
        return;
    uint32_t seq = atomic_fetch_add(&p->seq, 1);
    if (c->rc != MPI_SUCCESS || *newcomm == MPI_COMM_NULL)
        return;
    if (dup)
        rt__comm_new_like(*newcomm, p, c->fn, seq);
    else
        rt__comm_new(*newcomm, p, c->fn, seq, tag);
}

/* Comm_create_group is collective over the group only: no place in the parent's order. */
static void comm_made_by_group(rt__call *c, MPI_Comm parent, const MPI_Comm *newcomm, int tag)
{
    rt__comm *p = rt__comm_get(parent);
    if (p && c->rc == MPI_SUCCESS && *newcomm != MPI_COMM_NULL)
        rt__comm_new(*newcomm, p, c->fn, 0, tag);
}

static void comm_made_inter(rt__call *c, MPI_Comm local, const MPI_Comm *newcomm, int tag)
{
    rt__comm *p = rt__comm_get(local);
    if (!p)
        return;
    uint32_t seq = atomic_fetch_add(&p->seq, 1);
    if (c->rc == MPI_SUCCESS && *newcomm != MPI_COMM_NULL)
        rt__comm_new(*newcomm, p, c->fn, seq, tag);
}

static void comm_free_pre(rt__call *c, MPI_Comm comm)
{
    c->aux = 0;
    memcpy(&c->aux, &comm, sizeof comm < sizeof c->aux ? sizeof comm : sizeof c->aux);
}

static void comm_freed(rt__call *c)
{
    MPI_Comm comm;
    memcpy(&comm, &c->aux, sizeof comm < sizeof c->aux ? sizeof comm : sizeof c->aux);
    if (c->rc == MPI_SUCCESS)
        rt__comm_forget(comm);
}

#include "wrappers.def"
#include "rt__f08.h"    /* the mpi_f08 wrappers of these rows (rt__f08.h says why) */
#include "rt__ompi_f.h" /* Open MPI's Fortran wrappers of these rows (rt__ompi_f.h says why) */
