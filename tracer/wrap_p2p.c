/* Point-to-point and request completion: the P2P and REQ rows of wrappers.def. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define RT__CLASS_P2P RT__WRAP
#define RT__CLASS_REQ RT__WRAP
#include "rt__wrap.h"

/* ---- point-to-point ------------------------------------------------------------------------ */

static void p2p_send(rt__call *c, MPI_Comm comm, int dest, int tag, MPI_Count count,
                     MPI_Datatype type)
{
    if (dest == MPI_PROC_NULL)
        return;
    const rt__comm *cm = rt__comm_get(comm);
    uint64_t size = rt__type_bytes(type), bytes = count > 0 ? (uint64_t)count * size : 0;
    rt__hist_send(c, cm, dest, bytes);
    rt__rec_p2p(c, RT__AT(0, size), RT_EV_SEND, cm, dest, tag, bytes, 0);
}

/* A blocking receive or probe about to wait: its communicator into c->aux for the post hook,
 * and what it was posted with for its pending record. */
static void p2p_posted(rt__call *c, MPI_Comm comm, int source, int tag)
{
    const rt__comm *cm = rt__comm_get(comm);
    c->aux = (uint64_t)(uintptr_t)cm;
    rt__pending_recv(c, cm, source, tag);
}

#define RT__POSTED_CM ((const rt__comm *)(uintptr_t)c->aux)

static void p2p_isend(rt__call *c, MPI_Comm comm, int dest, int tag, MPI_Count count,
                      MPI_Datatype type, const MPI_Request *request)
{
    if (c->rc != MPI_SUCCESS || dest == MPI_PROC_NULL)
        return;
    const rt__comm *cm = rt__comm_get(comm);
    if (!cm)
        return;
    uint64_t size = rt__type_bytes(type), bytes = count > 0 ? (uint64_t)count * size : 0;
    rt__hist_send(c, cm, dest, bytes);
    if (!rt__g.tracing)
        return;
    uint64_t id = rt__req_next_id();
    uint8_t esize = (uint8_t)rt_esize_code(size);
    rt__req *q = rt__req_add(*request);
    if (q) {
        *q = (rt__req){.id = id,
                       .comm = cm->id,
                       .peer = dest,
                       .tag = tag,
                       .bytes = bytes,
                       .kind = RT__RQ_SEND,
                       .esize = esize,
                       .cm = cm};
        rt__req_added(*request);
    }
    rt__rec_p2p(c, esize << 1, RT_EV_ISEND, cm, dest, tag, bytes, id);
}

/* flags: the wildcards posted (rt__recv_flags; 0 for Mrecv, whose probe chose the message). */
static void p2p_recv(rt__call *c, const rt__comm *cm, unsigned flags, MPI_Datatype type,
                     const MPI_Status *st)
{
    if (c->rc != MPI_SUCCESS || !cm || st->MPI_SOURCE == MPI_PROC_NULL)
        return;
    rt__rec_recv(c, RT_EV_RECV, cm, st->MPI_SOURCE, st->MPI_TAG, rt__status_bytes(st), 0, flags,
                 rt_esize_code(rt__type_bytes(type)));
}

/* The receive as posted waits in the request: its wildcards (flags) for the IRECV of its
 * completion, its source and tag for a wait that never returns (the pending call). An Imrecv's
 * message was chosen by its probe: any source, any tag. */
static void p2p_irecv(rt__call *c, const rt__comm *cm, int source, int tag, unsigned flags,
                      MPI_Datatype type, const MPI_Request *request)
{
    if (c->rc != MPI_SUCCESS || !cm || source == MPI_PROC_NULL || !rt__g.tracing)
        return;
    uint64_t id = rt__req_next_id();
    uint8_t esize = (uint8_t)rt_esize_code(rt__type_bytes(type));
    rt__req *q = rt__req_add(*request);
    if (q) {
        *q = (rt__req){.id = id,
                       .comm = cm->id,
                       .peer = source,
                       .tag = tag,
                       .kind = RT__RQ_RECV,
                       .op = (uint8_t)flags,
                       .esize = esize,
                       .cm = cm};
        rt__req_added(*request);
    }
    rt__rec_req(c, 0, RT_EV_IRECV_REQUEST, cm->id, id);
}

/*
 * Isendrecv and Isendrecv_replace: an Isend and an Irecv under one request. The send half is
 * an ISEND with a request id of its own (send_id); the request is the receive, whose
 * completion records the send half's ISEND_COMPLETE and then the IRECV. The receive half is
 * kept as posted (source, tag, buffer bytes) for a status that is not the receive's
 * (records.c). With MPI_PROC_NULL as source only the send half is left, and the request
 * completes it as an Isend's would. Unused where the MPI has no MPI_Isendrecv (Open MPI 4.1:
 * rt_mpi_have.h leaves its rows out).
 */
__attribute__((unused)) static void p2p_isendrecv(rt__call *c, MPI_Comm comm, int dest, int sendtag,
                                                  uint64_t sbytes, int source, int recvtag,
                                                  uint64_t rbytes, const MPI_Request *request)
{
    const rt__comm *cm;
    if (c->rc != MPI_SUCCESS || !(cm = rt__comm_get(comm)))
        return;
    rt__req q = {.comm = cm->id,
                 .peer = source,
                 .tag = recvtag,
                 .bytes = rbytes,
                 .kind = RT__RQ_RECV,
                 .op = (uint8_t)rt__recv_flags(source, recvtag),
                 .cm = cm};
    if (dest != MPI_PROC_NULL) {
        rt__hist_send(c, cm, dest, sbytes);
        q.send_id = rt__g.tracing ? rt__req_next_id() : 0;
        rt__rec_p2p(c, 0, RT_EV_ISEND, cm, dest, sendtag, sbytes, q.send_id);
    }
    if (!rt__g.tracing || (source == MPI_PROC_NULL && !q.send_id))
        return;
    if (source == MPI_PROC_NULL) {
        q.kind = RT__RQ_SEND;
        q.op = 0;
        q.id = q.send_id;
        q.send_id = 0;
    } else {
        q.id = rt__req_next_id();
        rt__rec_req(c, 0, RT_EV_IRECV_REQUEST, cm->id, q.id);
    }
    rt__req_put(*request, &q);
}

/*
 * Matched probes hand out a message handle that Mrecv/Imrecv later receive without naming
 * the communicator; remember it per handle. Few are ever pending at once.
 */
#define MAX_MESSAGES 256
static struct {
    MPI_Message handle;
    const rt__comm *cm;
} messages[MAX_MESSAGES];
static pthread_mutex_t messages_lock = PTHREAD_MUTEX_INITIALIZER;

static void p2p_matched(rt__call *c, MPI_Comm comm, const MPI_Message *message, int flag)
{
    if (c->rc != MPI_SUCCESS || !flag || *message == MPI_MESSAGE_NULL ||
        *message == MPI_MESSAGE_NO_PROC)
        return;
    const rt__comm *cm = rt__comm_get(comm);
    pthread_mutex_lock(&messages_lock);
    int slot = -1;
    for (int i = 0; i < MAX_MESSAGES && slot < 0; i++)
        if (!messages[i].cm || messages[i].handle == *message)
            slot = i;
    if (slot >= 0) {
        messages[slot].handle = *message;
        messages[slot].cm = cm;
    }
    pthread_mutex_unlock(&messages_lock);
}

/* The communicator of a matched message, into c->aux (0 when unknown). */
static void p2p_message(rt__call *c, MPI_Message message)
{
    c->aux = 0;
    pthread_mutex_lock(&messages_lock);
    for (int i = 0; i < MAX_MESSAGES; i++)
        if (messages[i].cm && messages[i].handle == message) {
            c->aux = (uint64_t)(uintptr_t)messages[i].cm;
            messages[i].cm = NULL;
            break;
        }
    pthread_mutex_unlock(&messages_lock);
}

/*
 * Partitioned communication (MPI 4.0 chapter 4), as MPICH 4.0 carries it: Psend_init and
 * Precv_init match each other once (a control message of MPICH's, not recorded), in queues of
 * their own that ordinary sends and receives never meet, and each activation moves the whole
 * buffer in one message, sent when the last partition is made ready (MPIDIG_mpi_pready_range
 * and _list count partitions down and issue the data at zero). So one activation records one
 * message, in the events of a persistent send and receive:
 *  - MPI_Start / Startall: the receive's IRECV_REQUEST (p2p_start); a send records nothing yet;
 *  - the Pready, Pready_range or Pready_list that makes the last partition ready: the send's
 *    ISEND, at its start, with every partition's bytes (partitions times count times the
 *    datatype's size): the time the data could leave;
 *  - the wait or test that completes the send: ISEND_COMPLETE; the one that completes the
 *    receive, or the first MPI_Parrived before it that returns true: IRECV, with the source,
 *    tag and bytes it was posted with (no wildcards are allowed, and MPI requires the two
 *    sides' bytes to agree whatever their partition counts; MPICH's status of a partitioned
 *    receive is not read).
 * docs/tracer.md, "Partitioned communication", says what this leaves out. Unused where the MPI
 * has no partitioned communication (Open MPI 4.1: rt_mpi_have.h leaves its rows out).
 */
__attribute__((unused)) static void p2p_pinit(rt__call *c, rt__req_kind kind, MPI_Comm comm,
                                              int peer, int tag, int partitions, MPI_Count count,
                                              MPI_Datatype type, const MPI_Request *request)
{
    if (c->rc != MPI_SUCCESS)
        return;
    const rt__comm *cm = rt__comm_get(comm);
    if (!cm)
        return;
    uint64_t part_bytes = rt__bytes(count, type), bytes = 0;
    int known =
        partitions >= 0 && !__builtin_mul_overflow(part_bytes, (uint64_t)partitions, &bytes);
    if (!known)
        rt__warn("rank %d: a partitioned request of %d partitions of %llu bytes: its message "
                 "is not recorded",
                 rt__g.rank, partitions, (unsigned long long)part_bytes);
    rt__req q = {.comm = cm->id,
                 .peer = peer,
                 .tag = tag,
                 .bytes = bytes,
                 .kind = (uint8_t)(peer == MPI_PROC_NULL || !known ? RT__RQ_NONE : kind),
                 .esize = (uint8_t)rt_esize_code(rt__type_bytes(type)),
                 .op = RT_RECV_PARTITIONED,
                 .persistent = 1,
                 .part = 1,
                 .parts = known ? (uint32_t)partitions : 0,
                 .cm = cm};
    rt__req_put(*request, &q);
}

/* The partitioned send's ISEND (above): its last partition made ready, or none to wait for.
 * An EVENT record, whose op byte holds the mark (RT_RECV_PARTITIONED): ordinary sends keep
 * their P2P record, which has none. */
static void p2p_psend(rt__call *c, const rt__req *q)
{
    rt__hist_send(c, q->cm, q->peer, q->bytes);
    if (!rt__g.tracing || !q->cm)
        return;
    rt_event ev = {.kind = RT_EV_ISEND,
                   .contype = rt__contype(q->cm, q->peer),
                   .op = q->op,
                   .comm = q->cm->id,
                   .peer = q->peer,
                   .tag = q->tag,
                   .bytes = q->bytes,
                   .req = q->id,
                   .esize = q->esize};
    rt__rec_event(c, 0, &ev);
}

/* Pready (n 1), Pready_range and Pready_list: n more partitions ready. */
__attribute__((unused)) static void p2p_pready(rt__call *c, MPI_Request request, int64_t n)
{
    rt__req q;
    if (c->rc == MPI_SUCCESS && n > 0 && rt__req_pready(request, (uint64_t)n, &q))
        p2p_psend(c, &q);
}

__attribute__((unused)) static void p2p_parrived(rt__call *c, MPI_Request request, const int *flag)
{
    rt__req q;
    if (c->rc == MPI_SUCCESS && *flag && rt__req_parrived(request, &q))
        rt__rec_recv(c, RT_EV_IRECV, q.cm, q.peer, q.tag, q.bytes, q.id, q.op, q.esize);
}

static void p2p_init(rt__call *c, rt__req_kind kind, MPI_Comm comm, int peer, int tag,
                     MPI_Count count, MPI_Datatype type, const MPI_Request *request)
{
    if (c->rc != MPI_SUCCESS)
        return;
    const rt__comm *cm = rt__comm_get(comm);
    if (!cm)
        return;
    rt__req q = {.comm = cm->id,
                 .peer = peer,
                 .tag = tag,
                 .bytes = rt__bytes(count, type),
                 .kind = (uint8_t)(peer == MPI_PROC_NULL ? RT__RQ_NONE : kind),
                 .esize = (uint8_t)rt_esize_code(rt__type_bytes(type)),
                 .op = (uint8_t)(kind == RT__RQ_RECV ? rt__recv_flags(peer, tag) : 0),
                 .persistent = 1,
                 .cm = cm};
    rt__req_put(*request, &q);
}

/* The REQUEST_FREE event of op (rt_request_handle_op) for request id. */
static void req_handle_op(rt__call *c, unsigned op, uint64_t id)
{
    rt_event ev = {.kind = RT_EV_REQUEST_FREE, .req = id, .op = (uint8_t)op};
    rt__rec_event(c, 0, &ev);
}

/* The records of a persistent request's new activation q. */
static void started(rt__call *c, const rt__req *q)
{
    if (q->kind == RT__RQ_SEND && q->part) {
        if (!q->parts)
            p2p_psend(c, q); /* no partition to wait for */
    } else if (q->kind == RT__RQ_SEND) {
        rt__hist_send(c, q->cm, q->peer, q->bytes);
        rt__rec_p2p(c, q->esize << 1, RT_EV_ISEND, q->cm, q->peer, q->tag, q->bytes, q->id);
    } else if (q->kind == RT__RQ_RECV) {
        rt__rec_req(c, 0, RT_EV_IRECV_REQUEST, q->comm, q->id);
    } else if (q->kind == RT__RQ_COLL) { /* a persistent collective (wrap_coll.c) */
        rt__rec_req(c, 0, RT_EV_NBC_REQUEST, q->comm, q->id);
    }
}

/*
 * MPI_Start and MPI_Startall, before the call: each inactive persistent request starts (a new
 * activation). One still active is a restart (rt_event.h's restart_active): recorded as such
 * and left as it is, since MPICH refuses it (and the call's records go), and p2p_restarted
 * starts it once the call returned MPI_SUCCESS (Open MPI accepts it). c->aux: the last request
 * id given before the call (ids only grow), and RESTARTED when there was a restart.
 */
#define RESTARTED (UINT64_C(1) << 63)
static void p2p_start(rt__call *c, int count, const MPI_Request *requests)
{
    c->aux = rt__req_last_id();
    for (int i = 0; i < count; i++) {
        rt__req q;
        int rc = requests[i] == MPI_REQUEST_NULL ? 0 : rt__req_start(requests[i], &q);
        if (i < RT__INLINE_REQS)
            c->reqs_inline[i] = rc == 2 ? requests[i] : MPI_REQUEST_NULL;
        if (rc == 2) {
            req_handle_op(c, RT_REQH_RESTART_ACTIVE, q.id);
            c->aux |= RESTARTED;
        } else if (rc == 1) {
            started(c, &q);
        }
    }
}

/* After MPI_Start or MPI_Startall. A call that failed started nothing: the requests p2p_start
 * made active for it (ids newer than those before the call) are inactive again (their records
 * went with the call's). The restarts an MPI accepted start their new activation (its records
 * at the call's start, as the others'): those still active with an id from before the call.
 * Open MPI 4.1 gives a restarted request a new handle: p2p_start kept the handles of the first
 * RT__INLINE_REQS requests in c->reqs_inline, and the record moves to the new handle (a
 * restart further in a Startall's array is lost with its handle). */
static void p2p_restarted(rt__call *c, int count, const MPI_Request *requests)
{
    uint64_t before = c->aux & ~RESTARTED;
    rt__req q;
    if (c->rc != MPI_SUCCESS) {
        for (int i = 0; i < count; i++)
            if (requests[i] != MPI_REQUEST_NULL && rt__req_peek(requests[i], &q) && q.active &&
                q.id > before)
                rt__req_done(requests[i]);
        return;
    }
    if (!(c->aux & RESTARTED))
        return;
    for (int i = 0; i < count && i < RT__INLINE_REQS; i++) {
        MPI_Request old = c->reqs_inline[i];
        if (old == MPI_REQUEST_NULL || !rt__req_peek(old, &q) || !q.active || q.id > before)
            continue;
        if (old != requests[i] && !rt__req_move(old, requests[i]))
            continue;
        if (rt__req_restart(requests[i], &q))
            started(c, &q);
    }
}

/* MPI_Cancel, before the call: of a persistent request that is not active, the REQUEST_FREE
 * event of op cancel_inactive (rt_event.h); a cancel of anything else records nothing more. */
static void req_cancel(rt__call *c, MPI_Request request)
{
    rt__req q;
    if (rt__req_peek(request, &q) && q.persistent && !q.active)
        req_handle_op(c, RT_REQH_CANCEL_INACTIVE, q.id);
}

/* ---- completion -------------------------------------------------------------------------- */

/*
 * Before the completion call: keep the handles (completion overwrites them), claim their
 * records from the table (rt__req_claim says why), and stand in for ignored statuses.
 */
static void req_save(rt__call *c, int count, const MPI_Request *requests, MPI_Status *statuses)
{
    c->reqs = NULL;
    if (count <= 0)
        return;
    size_t n = (size_t)count;
    if (n <= RT__INLINE_REQS) {
        c->reqs = c->reqs_inline;
        c->claimed = c->t->pending.claimed;
    } else {
        c->heap = malloc(n * (sizeof *c->reqs + sizeof *c->claimed));
        c->reqs = c->heap;
        c->claimed = c->heap ? (rt__req *)(c->reqs + n) : NULL;
    }
    if (statuses == MPI_STATUSES_IGNORE)
        c->stv = n <= RT__INLINE_REQS ? c->stv_inline : (c->heap2 = malloc(n * sizeof *c->stv));
    if (!c->reqs || (statuses == MPI_STATUSES_IGNORE && !c->stv)) {
        c->stv = NULL;
        c->reqs = NULL; /* cannot follow this call; it still runs */
        return;
    }
    memcpy(c->reqs, requests, n * sizeof *c->reqs);
    for (size_t i = 0; i < n; i++)
        if (c->reqs[i] == MPI_REQUEST_NULL || !rt__req_claim(c->reqs[i], &c->claimed[i]))
            c->claimed[i].kind = 0;
}

/* A wait (Wait, Waitall, Waitany, Waitsome): req_save, and its requests for its pending
 * record: those req_save claimed into the thread's pending.claimed, or the first of them. */
static void req_wait(rt__call *c, int count, const MPI_Request *requests, MPI_Status *statuses)
{
    req_save(c, count, requests, statuses);
    rt__pending *p = &c->t->pending;
    p->nwait = c->reqs ? (unsigned)count : 0; /* 0: a wait the tracer cannot follow */
    if (c->reqs && c->claimed != p->claimed)
        memcpy(p->claimed, c->claimed, sizeof p->claimed);
}

/* Puts back the claimed records of requests that did not complete (done[i] == 0). */
static void req_unclaim(rt__call *c, int count, const unsigned char *done)
{
    for (int i = 0; i < count; i++)
        if ((!done || !done[i]) && c->claimed[i].kind)
            rt__req_unclaim(c->reqs[i], &c->claimed[i]);
}

static int req_ok(const rt__call *c, const MPI_Status *st)
{
    return c->rc == MPI_SUCCESS || (c->rc == MPI_ERR_IN_STATUS && st->MPI_ERROR == MPI_SUCCESS);
}

/* Wait, Waitall, Test and Testall: all or none of the requests completed (flag). */
static void req_done_flag(rt__call *c, int flag, int count, const MPI_Status *st, int single)
{
    if (!c->reqs)
        return;
    if (!flag || (c->rc != MPI_SUCCESS && c->rc != MPI_ERR_IN_STATUS)) {
        req_unclaim(c, count, NULL);
        return;
    }
    for (int i = 0; i < count; i++) {
        const MPI_Status *s = single ? st : &st[i];
        if (req_ok(c, s))
            rt__complete(c, &c->claimed[i], c->reqs[i], s);
        else if (c->claimed[i].kind)
            rt__req_unclaim(c->reqs[i], &c->claimed[i]);
    }
}

static void req_done_all(rt__call *c, int count, const MPI_Status *st, int single)
{
    req_done_flag(c, 1, count, st, single);
}

/* Waitany and Testany: the one at index completed, if any. */
static void req_done_index(rt__call *c, int count, int index, const MPI_Status *st)
{
    if (!c->reqs)
        return;
    int ok = c->rc == MPI_SUCCESS && index != MPI_UNDEFINED && index >= 0 && index < count;
    for (int i = 0; i < count; i++) {
        if (ok && i == index)
            rt__complete(c, &c->claimed[i], c->reqs[i], st);
        else if (c->claimed[i].kind)
            rt__req_unclaim(c->reqs[i], &c->claimed[i]);
    }
}

/* Waitsome and Testsome: those listed in indices completed. */
static void req_done_some(rt__call *c, int incount, int outcount, const int *indices,
                          const MPI_Status *st)
{
    if (!c->reqs)
        return;
    unsigned char inline_done[RT__INLINE_REQS] = {0};
    unsigned char *done = incount <= RT__INLINE_REQS ? inline_done : calloc((size_t)incount, 1);
    if (!done) {
        req_unclaim(c, incount, NULL);
        return;
    }
    if (outcount != MPI_UNDEFINED && (c->rc == MPI_SUCCESS || c->rc == MPI_ERR_IN_STATUS)) {
        for (int i = 0; i < outcount; i++) {
            int k = indices[i];
            if (k < 0 || k >= incount || !req_ok(c, &st[i]))
                continue;
            done[k] = 1;
            rt__complete(c, &c->claimed[k], c->reqs[k], &st[i]);
        }
    }
    req_unclaim(c, incount, done);
    if (done != inline_done)
        free(done);
}

/* MPI_Request_free: the REQUEST_FREE of the request's current activation (rt_event.h). */
static void req_free(rt__call *c, MPI_Request request)
{
    uint64_t id;
    if (request != MPI_REQUEST_NULL && rt__req_drop(request, &id))
        rt__rec_req(c, 0, RT_EV_REQUEST_FREE, 0, id);
}

#include "wrappers.def"
#include "rt__f08.h"    /* the mpi_f08 wrappers of these rows (rt__f08.h says why) */
#include "rt__ompi_f.h" /* Open MPI's Fortran wrappers of these rows (rt__ompi_f.h says why) */
