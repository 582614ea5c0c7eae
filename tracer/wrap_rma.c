/* One-sided communication: the RMA rows of wrappers.def. */
#include <limits.h>
#include <string.h>

#define RT__CLASS_RMA RT__WRAP
#include "rt__wrap.h"

/* What the rows of the "_all" calls pass rma_lock as the target: no rank, and no MPI's
 * MPI_PROC_NULL either (Open MPI's is -2, which is RT_PEER_ALL), so that a lock, unlock or flush of
 * MPI_PROC_NULL is told apart from one of every target. */
#define RT__ALL_TARGETS INT_MIN

/* disp_unit: the creating call's (1 for a dynamic window), kept in the window's definition
 * because the origin of a transfer knows only its own and the target's counts in the target's
 * (rt_raw.h). */
static void rma_created(rt__call *c, MPI_Comm comm, const MPI_Win *win, MPI_Aint disp_unit)
{
    rt__comm *cm = rt__comm_get(comm);
    if (!cm)
        return;
    /* Window creation is collective over comm: it takes a place in comm's creation order
     * whether or not it succeeds here, as it does on the other members. */
    uint32_t seq = atomic_fetch_add(&cm->seq, 1);
    if (c->rc != MPI_SUCCESS)
        return;
    uint32_t unit = disp_unit > 0 && disp_unit <= UINT32_MAX ? (uint32_t)disp_unit : 0;
    rt__win *w = rt__win_new(*win, cm, seq, unit);
    if (w)
        rt__rec_req(c, 1, RT_EV_WIN_CREATE, w->id, 0);
}

static void rma_free(rt__call *c, MPI_Win win)
{
    rt__win *w = rt__win_get(win);
    if (!w)
        return;
    rt__rec_req(c, 0, RT_EV_WIN_FREE, w->id, 0);
    rt__win_forget(win);
}

/* The window of a successful call with a real target, its event started (kind, op, window,
 * peer); NULL when there is nothing to record. */
static rt__win *rma_event(const rt__call *c, MPI_Win win, int target, unsigned kind, unsigned op,
                          rt_event *ev)
{
    rt__win *w;
    if (c->rc != MPI_SUCCESS || !rt__g.tracing || !(w = rt__win_get(win)))
        return NULL;
    memset(ev, 0, sizeof *ev);
    ev->kind = (uint8_t)kind;
    ev->op = (uint8_t)op;
    ev->comm = w->id;
    ev->peer = target;
    return w;
}

/* The reduction of an atomic (rt_reduce_op): NONE for MPI_OP_NULL and for what RMA does not take.
 */
static unsigned reduce_op(MPI_Op op)
{
    if (op == MPI_OP_NULL) /* a put, a get, a compare-and-swap: no search */
        return RT_REDOP_NONE;
    static const struct {
        MPI_Op op;
        unsigned id;
    } ops[] = {
        {MPI_SUM, RT_REDOP_SUM},         {MPI_PROD, RT_REDOP_PROD},
        {MPI_MAX, RT_REDOP_MAX},         {MPI_MIN, RT_REDOP_MIN},
        {MPI_LAND, RT_REDOP_LAND},       {MPI_BAND, RT_REDOP_BAND},
        {MPI_LOR, RT_REDOP_LOR},         {MPI_BOR, RT_REDOP_BOR},
        {MPI_LXOR, RT_REDOP_LXOR},       {MPI_BXOR, RT_REDOP_BXOR},
        {MPI_MAXLOC, RT_REDOP_MAXLOC},   {MPI_MINLOC, RT_REDOP_MINLOC},
        {MPI_REPLACE, RT_REDOP_REPLACE}, {MPI_NO_OP, RT_REDOP_NO_OP},
    };
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
        if (ops[i].op == op)
            return ops[i].id;
    return RT_REDOP_NONE;
}

/* A transfer to target at target_disp (in the target's disp_unit), with the reduction redop (an
 * MPI_Op; MPI_OP_NULL for none). */
static void rma_op(rt__call *c, unsigned kind, unsigned op, MPI_Win win, int target,
                   MPI_Aint target_disp, MPI_Op redop, uint64_t bytes, uint64_t rbytes,
                   const MPI_Request *request)
{
    rt_event ev;
    if (target == MPI_PROC_NULL)
        return;
    rt__win *w = rma_event(c, win, target, kind, op, &ev);
    if (!w)
        return;
    ev.contype = rt__contype(w->comm, target);
    ev.bytes = bytes;
    ev.rbytes = rbytes;
    ev.req = rt__req_next_id();
    rt_raw_event *r = rt__rec_event(c, 0, &ev);
    if (r) { /* the target (rt_raw.h): the same record, nothing more written */
        r->disp = (uint64_t)target_disp;
        r->redop = (uint8_t)reduce_op(redop);
    }
    if (request) {
        rt__req q = {.id = ev.req, .comm = w->id, .kind = RT__RQ_RMA};
        rt__req_put(*request, &q);
    }
}

static void rma_fence(rt__call *c, MPI_Win win)
{
    rt__win *w;
    if (c->rc == MPI_SUCCESS && (w = rt__win_get(win)))
        rt__rec_coll(c, RT_EV_RMA_COLL_END, RT_COLL_BARRIER, w->id, RT_PEER_NONE, 0, 0);
}

/* General active target synchronisation: post and start name their group, complete and
 * wait refer to the group of the epoch they end. */
static void rma_pscw(rt__call *c, MPI_Win win, unsigned op, MPI_Group group)
{
    rt_event ev;
    rt__win *w = rma_event(c, win, 0, RT_EV_RMA_GROUP_SYNC, op, &ev);
    if (!w)
        return;
    uint32_t gid;
    if (op == RT_PSCW_POST)
        gid = w->post_group = rt__group_id(group);
    else if (op == RT_PSCW_START)
        gid = w->start_group = rt__group_id(group);
    else
        gid = op == RT_PSCW_COMPLETE ? w->start_group : w->post_group;
    if (gid == RT_ID_NONE)
        return;
    ev.peer = (int32_t)gid;
    rt__rec_event(c, 1, &ev);
}

/* Lock, unlock (op: lock type) and flush/sync (op: rt_sync_op). A lock's id is derived from
 * window and target: a rank holds at most one lock per target and window at a time. */
static void rma_lock(rt__call *c, MPI_Win win, unsigned kind, int target, unsigned op)
{
    rt_event ev;
    if (target == RT__ALL_TARGETS)
        target = RT_PEER_ALL;
    else if (target == MPI_PROC_NULL)
        return;
    rt__win *w = rma_event(c, win, target, kind, kind == RT_EV_RMA_UNLOCK ? 0 : op, &ev);
    if (!w)
        return;
    ev.req = ((uint64_t)w->id << 32) | (uint32_t)(target - RT_PEER_ALL);
    rt__rec_event(c, 1, &ev);
}

#include "wrappers.def"
#include "rt__f08.h" /* the mpi_f08 wrappers of these rows (rt__f08.h says why) */
