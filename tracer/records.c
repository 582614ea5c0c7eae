/* Building raw records inside a call, request completion, and the live histogram. */
#include <stdlib.h>
#include <string.h>

#include "rt__tracer.h"

/* A completed receive (RECV or IRECV, at t1). The P2P record has no op byte, so a receive
 * posted with a wildcard goes as an EVENT record (rt_raw.h): one slot more, only for those. */
void rt__rec_recv_flags(rt__call *c, unsigned kind, const rt__comm *cm, int peer, int tag,
                        uint64_t bytes, uint64_t req, unsigned flags, unsigned esize)
{
    if (!rt__g.tracing || !cm || RT__COST_OFF(ENCODE))
        return;
    rt_raw_event *r = rt__rec(c, sizeof *r);
    memset(r, 0, sizeof *r);
    r->type = RT_RAW_EVENT;
    r->at = (uint8_t)(1 | esize << 1);
    r->kind = (uint8_t)kind;
    r->contype = rt__contype(cm, peer);
    r->op = (uint8_t)flags;
    r->comm = cm->id;
    r->peer = peer;
    r->tag = tag;
    r->bytes = bytes;
    r->req = req;
}

rt_raw_event *rt__rec_event(rt__call *c, int at, const rt_event *ev)
{
    if (!rt__g.tracing || RT__COST_OFF(ENCODE))
        return NULL;
    rt_raw_event *r = rt__rec(c, sizeof *r);
    memset(r, 0, sizeof *r);
    r->type = RT_RAW_EVENT;
    r->at = (uint8_t)(at | ev->esize << 1); /* element sizes (rt_raw.h) */
    r->pad[0] = ev->resize;
    r->kind = ev->kind;
    r->contype = ev->contype;
    r->op = ev->op;
    r->comm = ev->comm;
    r->peer = ev->peer;
    r->tag = ev->tag;
    r->bytes = ev->bytes;
    r->rbytes = ev->rbytes;
    r->req = ev->req;
    return r;
}

uint64_t rt__status_bytes_pmpi(const MPI_Status *st)
{
    MPI_Count n;
    if (PMPI_Get_elements_x(st, MPI_BYTE, &n) != MPI_SUCCESS || n == MPI_UNDEFINED || n < 0)
        return 0;
    return (uint64_t)n;
}

int rt__status_cancelled_pmpi(const MPI_Status *st)
{
    int cancelled = 0;
    if (PMPI_Test_cancelled(st, &cancelled) != MPI_SUCCESS)
        return 0;
    return cancelled != 0;
}

void rt__status_direct_check(void)
{
    rt__g.status_direct = 0;
#if RT__STATUS_DIRECT
    /* counts on both sides of 2^32 (MPICH splits them there), each with either flag */
    static const MPI_Count counts[] = {
        0, 1, 1024, INT32_MAX, (MPI_Count)1 << 32, ((MPI_Count)1 << 40) + 12345};
    for (size_t i = 0; i < sizeof counts / sizeof *counts; i++)
        for (int flag = 0; flag <= 1; flag++) {
            MPI_Status st;
            memset(&st, 0, sizeof st);
            if (PMPI_Status_set_elements_x(&st, MPI_BYTE, counts[i]) != MPI_SUCCESS ||
                PMPI_Status_set_cancelled(&st, flag) != MPI_SUCCESS) {
                if (counts[i] > INT32_MAX)
                    continue; /* a library that keeps fewer bits: the others still decide */
                return;
            }
            if (rt__status_bytes_direct(&st) != rt__status_bytes_pmpi(&st) ||
                rt__status_cancelled_direct(&st) != rt__status_cancelled_pmpi(&st) ||
                rt__status_cancelled_direct(&st) != flag)
                return;
        }
    rt__g.status_direct = 1;
#endif
}

/*
 * The status the receive half of an Isendrecv is recorded from. MPICH 4.0.2 completes a
 * two-sided Isendrecv with a schedule request whose status is not the receive's and may hold
 * anything, so a status that disagrees with what was posted (a named source or tag, at most
 * the buffer's size) is replaced: the posted source and tag, the buffer's size, not
 * cancelled. Only a status can name a wildcard's match; an impossible source drops the IRECV.
 */
static const MPI_Status *isendrecv_status(const rt__req *q, const MPI_Status *st, MPI_Status *fixed)
{
    if ((q->peer == MPI_ANY_SOURCE || st->MPI_SOURCE == q->peer) &&
        (q->tag == MPI_ANY_TAG || st->MPI_TAG == q->tag) && rt__status_bytes(st) <= q->bytes)
        return st;
    *fixed = *st;
    int size = (int)(q->cm->inter ? q->cm->remote_size : q->cm->size);
    if (q->peer != MPI_ANY_SOURCE)
        fixed->MPI_SOURCE = q->peer;
    else if (st->MPI_SOURCE < 0 || st->MPI_SOURCE >= size)
        fixed->MPI_SOURCE = MPI_PROC_NULL;
    if (q->tag != MPI_ANY_TAG)
        fixed->MPI_TAG = q->tag;
    PMPI_Status_set_elements_x(fixed, MPI_BYTE, (MPI_Count)q->bytes);
    PMPI_Status_set_cancelled(fixed, 0);
    return fixed;
}

void rt__complete_any(rt__call *c, const rt__req *qp, MPI_Request handle, const MPI_Status *st)
{
    if (!qp->kind)
        return;            /* not a request the tracer knows */
    const rt__req *q = qp; /* c->claimed's copy: nothing changes it meanwhile */
    if (q->persistent) {
        if (!q->active)
            return; /* an inactive persistent request completes at once, recording nothing */
        rt__req_done(handle);
    }
    MPI_Status fixed;
    if (q->send_id && st)
        st = isendrecv_status(q, st, &fixed);
    int cancelled =
        st && (q->kind == RT__RQ_SEND || q->kind == RT__RQ_RECV) && rt__status_cancelled(st);
    /* The send half of an Isendrecv has no request of its own: it ends with the receive's. */
    if (q->send_id)
        rt__rec_req(c, 1, cancelled ? RT_EV_REQUEST_CANCELLED : RT_EV_ISEND_COMPLETE, q->comm,
                    q->send_id);
    if (cancelled) {
        rt__rec_req(c, 1, RT_EV_REQUEST_CANCELLED, q->comm, q->id);
        return;
    }
    switch (q->kind) {
    case RT__RQ_SEND:
        if (q->part && q->parts_left)
            break; /* a partitioned send whose ISEND never went (not all partitions ready) */
        rt__rec_req(c, 1, RT_EV_ISEND_COMPLETE, q->comm, q->id);
        break;
    case RT__RQ_RECV:
        if (q->part) { /* partitioned: as posted (wrap_p2p.c), unless a Parrived saw it first */
            if (!q->arrived)
                rt__rec_recv(c, RT_EV_IRECV, q->cm, q->peer, q->tag, q->bytes, q->id, q->op,
                             q->esize);
            break;
        }
        if (st && st->MPI_SOURCE != MPI_PROC_NULL)
            rt__rec_recv(c, RT_EV_IRECV, q->cm, st->MPI_SOURCE, st->MPI_TAG, rt__status_bytes(st),
                         q->id, q->op, q->esize);
        break;
    case RT__RQ_COLL: {
        rt_event ev;
        memset(&ev, 0, sizeof ev);
        ev.kind = RT_EV_NBC_COMPLETE;
        ev.comm = q->comm;
        ev.peer = q->peer;
        ev.bytes = q->bytes;
        ev.rbytes = q->rbytes;
        ev.op = q->op;
        ev.req = q->id;
        ev.esize = q->esize;
        ev.resize = q->resize;
        rt__rec_event(c, 1, &ev);
        if (q->rows) { /* after its completion, as the rows of a blocking one follow its end */
            for (uint32_t i = 0; i < q->rows->n && rt__g.tracing; i++)
                memcpy(rt__rec(c, sizeof q->rows->row[i]), &q->rows->row[i],
                       sizeof q->rows->row[i]);
            if (!q->persistent) /* a persistent one keeps them for its next start */
                free(q->rows);
        }
        break;
    }
    case RT__RQ_RMA:
        rt__rec_req(c, 1, RT_EV_RMA_OP_COMPLETE, q->comm, q->id);
        break;
    default:
        break;
    }
}

/* ---- the operations of a pending call (rt__pending in rt__tracer.h) ------------------------ */

static rt_raw_event *pending_op(rt__pending_snap *s, unsigned *n, unsigned kind)
{
    if (*n >= RT_RAW_PENDING_MAX_OPS)
        return NULL;
    rt_raw_event *r = &s->ops[(*n)++];
    memset(r, 0, sizeof *r);
    r->type = RT_RAW_EVENT;
    r->kind = (uint8_t)kind;
    return r;
}

/* A receive as posted: source and tag, which were wildcards, bytes unknown. */
static void pending_recv(rt__pending_snap *s, unsigned *n, unsigned kind, const rt__comm *cm,
                         int source, int tag, unsigned flags, uint64_t req)
{
    rt_raw_event *r;
    if (!cm || source == MPI_PROC_NULL || !(r = pending_op(s, n, kind)))
        return;
    r->op = (uint8_t)(flags | rt__recv_flags(source, tag));
    r->comm = cm->id;
    r->peer = source == MPI_ANY_SOURCE ? RT_PEER_NONE : source;
    r->tag = tag == MPI_ANY_TAG ? -1 : tag;
    r->contype = rt__contype(cm, r->peer);
    r->req = req;
}

/* The records the call's pre hook wrote (a send's SEND, a collective's COLL_END, an RMA
 * synchronisation) as its operations, at t0. The copy may end inside a record: that one is
 * left out. */
static void pending_scratch(rt__pending_snap *s, unsigned *n)
{
    size_t at = 0;
    while (at < s->nscratch) {
        const uint8_t *p = s->scratch + at;
        size_t len = (size_t)rt_raw_slots(p[0]) * RT_RAW_SLOT;
        if (!len || p[0] == RT_RAW_DEF || len > s->nscratch - at)
            return;
        at += len;
        rt_raw_event *r;
        if (p[0] == RT_RAW_P2P && p[2] == RT_EV_SEND && (r = pending_op(s, n, RT_EV_SEND))) {
            rt_raw_p2p x;
            memcpy(&x, p, sizeof x);
            r->contype = x.contype;
            r->comm = x.comm;
            r->peer = x.peer;
            r->tag = x.tag;
            r->bytes = x.bytes;
        } else if (p[0] == RT_RAW_COLL && p[2] != RT_EV_COLL_PEER &&
                   (r = pending_op(s, n, p[2]))) { /* a pending collective has no rows */
            rt_raw_coll x;
            memcpy(&x, p, sizeof x);
            r->op = x.op;
            r->comm = x.comm;
            r->peer = x.peer;
            r->tag = (int32_t)x.pad; /* a fence's assert (rt_raw.h) */
            r->bytes = x.bytes;
            r->rbytes = x.rbytes;
        } else if (p[0] == RT_RAW_EVENT &&
                   (p[2] == RT_EV_RMA_GROUP_SYNC || p[2] == RT_EV_RMA_LOCK ||
                    p[2] == RT_EV_RMA_UNLOCK || p[2] == RT_EV_RMA_SYNC) &&
                   (r = pending_op(s, n, p[2]))) {
            memcpy(r, p, sizeof *r);
            r->at = 0;
        }
    }
}

/* One request a wait is blocked on. */
static void pending_request(rt__pending_snap *s, unsigned *n, const rt__req *q)
{
    rt_raw_event *r;
    if (q->send_id && (r = pending_op(s, n, RT_EV_ISEND_COMPLETE))) {
        r->comm = q->comm; /* an Isendrecv's send half */
        r->req = q->send_id;
    }
    /* A partitioned send not all of whose partitions were made ready has no ISEND yet (the
     * wait then shows nothing of it); a partitioned receive a Parrived saw has its IRECV. */
    if (q->part && (q->kind == RT__RQ_SEND ? q->parts_left != 0 : q->arrived))
        return;
    if (q->kind == RT__RQ_RECV) {
        pending_recv(s, n, RT_EV_IRECV, q->cm, q->peer, q->tag, q->op, q->id);
        return;
    }
    static const uint8_t kinds[] = {[RT__RQ_SEND] = RT_EV_ISEND_COMPLETE,
                                    [RT__RQ_COLL] = RT_EV_NBC_COMPLETE,
                                    [RT__RQ_RMA] = RT_EV_RMA_OP_COMPLETE};
    if (q->kind >= sizeof kinds || !kinds[q->kind] || !(r = pending_op(s, n, kinds[q->kind])))
        return;
    r->comm = q->comm;
    r->req = q->id;
    if (q->kind == RT__RQ_COLL) {
        r->peer = q->peer;
        r->op = q->op;
        r->bytes = q->bytes;
        r->rbytes = q->rbytes;
    }
}

/* The calls whose pre hook fills the receive fields, and the waits. */
static int receives(unsigned fn)
{
    return fn == RT_FN_Recv || fn == RT_FN_Recv_c || fn == RT_FN_Sendrecv ||
           fn == RT_FN_Sendrecv_c || fn == RT_FN_Sendrecv_replace ||
           fn == RT_FN_Sendrecv_replace_c || fn == RT_FN_Probe || fn == RT_FN_Mprobe;
}

static int waits(unsigned fn)
{
    return fn == RT_FN_Wait || fn == RT_FN_Waitall || fn == RT_FN_Waitany || fn == RT_FN_Waitsome;
}

unsigned rt__pending_ops(rt__pending_snap *s)
{
    unsigned n = 0;
    pending_scratch(s, &n);
    if (receives(s->fn))
        pending_recv(s, &n, RT_EV_RECV, s->recv_cm, s->recv_peer, s->recv_tag, 0, 0);
    if (!waits(s->fn))
        s->nwait = 0; /* left from an earlier wait */
    unsigned nreq = s->nwait < RT__INLINE_REQS ? s->nwait : RT__INLINE_REQS;
    for (unsigned i = 0; i < nreq; i++) {
        const rt__req *q = &s->claimed[i];
        if (q->kind && !(q->persistent && !q->active)) /* not one that completes at once */
            pending_request(s, &n, q);
    }
    return n;
}

/* MPI's error class of a code, by retrace's name for it (rt_error_class). */
static unsigned error_class(int rc)
{
    int c = MPI_ERR_UNKNOWN;
    if (PMPI_Error_class(rc, &c) != MPI_SUCCESS)
        return RT_ERRCLASS_UNKNOWN;
    static const struct {
        int mpi;
        unsigned rt;
    } classes[] = {
        {MPI_ERR_BUFFER, RT_ERRCLASS_BUFFER},
        {MPI_ERR_COUNT, RT_ERRCLASS_COUNT_ARG},
        {MPI_ERR_TYPE, RT_ERRCLASS_TYPE},
        {MPI_ERR_TAG, RT_ERRCLASS_TAG},
        {MPI_ERR_COMM, RT_ERRCLASS_COMM},
        {MPI_ERR_RANK, RT_ERRCLASS_RANK},
        {MPI_ERR_REQUEST, RT_ERRCLASS_REQUEST},
        {MPI_ERR_ROOT, RT_ERRCLASS_ROOT},
        {MPI_ERR_GROUP, RT_ERRCLASS_GROUP},
        {MPI_ERR_OP, RT_ERRCLASS_OP},
        {MPI_ERR_TOPOLOGY, RT_ERRCLASS_TOPOLOGY},
        {MPI_ERR_DIMS, RT_ERRCLASS_DIMS},
        {MPI_ERR_ARG, RT_ERRCLASS_ARG},
        {MPI_ERR_UNKNOWN, RT_ERRCLASS_UNKNOWN},
        {MPI_ERR_TRUNCATE, RT_ERRCLASS_TRUNCATE},
        {MPI_ERR_INTERN, RT_ERRCLASS_INTERN},
        {MPI_ERR_IN_STATUS, RT_ERRCLASS_IN_STATUS},
        {MPI_ERR_PENDING, RT_ERRCLASS_PENDING},
        {MPI_ERR_KEYVAL, RT_ERRCLASS_KEYVAL},
        {MPI_ERR_NO_MEM, RT_ERRCLASS_NO_MEM},
        {MPI_ERR_INFO, RT_ERRCLASS_INFO},
        {MPI_ERR_WIN, RT_ERRCLASS_WIN},
        {MPI_ERR_SIZE, RT_ERRCLASS_SIZE},
        {MPI_ERR_DISP, RT_ERRCLASS_DISP},
        {MPI_ERR_LOCKTYPE, RT_ERRCLASS_LOCKTYPE},
        {MPI_ERR_ASSERT, RT_ERRCLASS_ASSERT},
        {MPI_ERR_RMA_CONFLICT, RT_ERRCLASS_RMA_CONFLICT},
        {MPI_ERR_RMA_SYNC, RT_ERRCLASS_RMA_SYNC},
        {MPI_ERR_RMA_RANGE, RT_ERRCLASS_RMA_RANGE},
        {MPI_ERR_RMA_ATTACH, RT_ERRCLASS_RMA_ATTACH},
        {MPI_ERR_RMA_SHARED, RT_ERRCLASS_RMA_SHARED},
        {MPI_ERR_RMA_FLAVOR, RT_ERRCLASS_RMA_FLAVOR},
#ifdef MPI_ERR_PROC_ABORTED /* MPI-4 */
        {MPI_ERR_PROC_ABORTED, RT_ERRCLASS_PROC_ABORTED},
#endif
    };
    for (size_t i = 0; i < sizeof classes / sizeof classes[0]; i++)
        if (classes[i].mpi == c)
            return classes[i].rt;
    return RT_ERRCLASS_OTHER;
}

void rt__call_failed(rt__call *c)
{
    rt__thread *t = c->t;
    /* A call that failed did none of what its hooks recorded before it (a blocking send, a
     * collective): its ENTER and LEAVE stay, its operations go, so that the trace holds no
     * message that was not sent and no peer that is not a rank. MPI_ERR_IN_STATUS: some
     * requests completed, and the hooks read each one's status. */
    if (c->rc != MPI_ERR_IN_STATUS) {
        t->scratch_len = 0;
        /* nor a message the live histogram counted (a Startall of more sends than
         * hist_bin holds keeps the rest: docs/tracer.md) */
        for (unsigned i = 0; i < c->hist_n; i++)
            t->hist.count[c->hist_bin[i]]--;
        c->hist_n = 0;
    }
    if (!rt__g.tracing || RT__COST_OFF(ENCODE))
        return;
    rt_raw_event *e = rt__rec(c, sizeof *e);
    memset(e, 0, sizeof *e);
    e->type = RT_RAW_EVENT;
    e->at = 1;
    e->kind = RT_EV_ERROR;
    e->op = (uint8_t)error_class(c->rc);
    e->tag = c->rc;
}
