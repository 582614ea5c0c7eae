/*
 * The memory of operations (retrace check, docs/check.md), in traces recorded with buffers
 * (RT_DEFS_BUFFERS: BUFFER events and the WIN_ATTACH base of windows, rt_event.h; the tracer
 * does not record them yet, docs/check.md):
 *  - class rma-conflict, local: a buffer of a pending nonblocking operation (a nonblocking send
 *    or receive from its start to its completing wait or test, an RMA transfer until the
 *    synchronisation that completes it: a fence, Win_complete, an unlock or flush of its target,
 *    or the completion of an R-form's request) used by another MPI call of the same rank, where
 *    at least one of the two writes it (MPI 4.0 section 3.7.2: a send buffer may not be written,
 *    a receive buffer not used at all, until the operation completes; two sends may read one
 *    buffer at once);
 *  - class rma-epoch, MPI_MODE_NOSTORE: a fence or Win_post with the assertion, when since the
 *    window's last synchronisation on the rank an MPI call wrote into the rank's own window
 *    memory (a receive, a get's origin, an atomic's result), or such a write was still pending
 *    (MPI 4.0 section 12.5.5). Stores of the program itself are not in a trace.
 * Each rank is checked on its own as the streaming pass hands its events over: the buffers of its
 * pending operations are kept (at most BUF_MAX_PENDING at once, the rest counted and a note says
 * so), and each new buffer is compared with them. Operations of one call (the two halves of
 * MPI_Sendrecv_replace) are not compared with each other.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "rt__check.h"
#include "rt_vec.h"

/* Buffers of pending operations kept per rank at once (88 bytes each). */
#define BUF_MAX_PENDING 4096u

/* A buffer an operation uses: [lo, hi). */
typedef struct buf_use {
    uint64_t lo, hi;
    uint64_t enter; /* when its call was entered: with ev.call, which call it is */
    rt_event ev;    /* the operation (SEND, ISEND, RECV, IRECV_REQUEST, an RMA transfer) */
    uint8_t write;
} buf_use;

/* One window of a rank. */
typedef struct buf_win {
    uint32_t id;
    uint8_t live, has_base, dirty;
    uint64_t lo, hi; /* its memory, when has_base */
    buf_use first;   /* dirty: the first write into it since its last synchronisation */
} buf_win;

typedef struct buf_rank {
    uint64_t enter; /* the time of the call entered last */
    rt_event owner; /* the operation the next BUFFER belongs to (kind 0: none) */
    buf_use *pend;  /* buffers of pending operations */
    uint32_t npend, pend_room;
    buf_win *wins;
    uint32_t nwins, wins_room;
} buf_rank;

struct chk_buf {
    uint32_t nranks;
    buf_rank *ranks;
    uint64_t dropped; /* buffers of pending operations not kept (BUF_MAX_PENDING) */
};

chk_buf *chk_buf_new(uint32_t nranks)
{
    chk_buf *k = calloc(1, sizeof *k);
    if (!k)
        return NULL;
    k->ranks = calloc(nranks ? nranks : 1, sizeof *k->ranks);
    if (!k->ranks) {
        free(k);
        return NULL;
    }
    k->nranks = nranks;
    return k;
}

void chk_buf_free(chk_buf *k)
{
    if (!k)
        return;
    for (uint32_t i = 0; i < k->nranks; i++) {
        free(k->ranks[i].pend);
        free(k->ranks[i].wins);
    }
    free(k->ranks);
    free(k);
}

static buf_win *win_of(buf_rank *r, uint32_t id, int create)
{
    for (uint32_t i = 0; i < r->nwins; i++)
        if (r->wins[i].id == id)
            return &r->wins[i];
    if (!create || RT_VEC_RESERVE(r->wins, r->wins_room, (uint64_t)r->nwins + 1, 4))
        return NULL;
    buf_win *w = &r->wins[r->nwins++];
    memset(w, 0, sizeof *w);
    w->id = id;
    return w;
}

/* "MPI_Isend at 1.5 us" */
static void add_short(chk_text *t, const rt_event *ev)
{
    chk_add(t, "%s at ", rt_func_name(ev->call));
    chk_add_time(t, ev->time);
}

/* Use b of the rank overlaps the buffer of its pending operation a. */
static int conflict(chk *c, const buf_use *a, const buf_use *b)
{
    chk_text ranks = {.len = 0}, calls = {.len = 0}, why = {.len = 0};
    uint64_t lo = a->lo > b->lo ? a->lo : b->lo, hi = a->hi < b->hi ? a->hi : b->hi;
    chk_add(&ranks, "%" PRIu32, a->ev.rank);
    chk_add_call(&calls, &a->ev);
    chk_add(&calls, "; ");
    chk_add_call(&calls, &b->ev);
    chk_add(&why, "%s %s bytes %" PRIu64 " to %" PRIu64 " of the buffer the ",
            rt_func_name(b->ev.call), b->write ? "writes" : "reads", lo - a->lo, hi - 1 - a->lo);
    add_short(&why, &a->ev);
    chk_add(&why,
            " %s and had not completed: while an operation is pending MPI forbids %s its buffer "
            "(MPI 4.0 sections 3.7.2 and 12.7)",
            a->write ? "writes" : "reads",
            a->write ? "other calls to use" : "other calls to write");
    return chk_find(c, RT_CHK_RMA_CONFLICT, ranks.s, "", calls.s, why.s);
}

/* The fence or Win_post ev with MPI_MODE_NOSTORE on window w, which u wrote into. */
static int nostore(chk *c, const buf_win *w, const buf_use *u, const rt_event *ev, int pending)
{
    chk_text ranks = {.len = 0}, where = {.len = 0}, calls = {.len = 0}, why = {.len = 0};
    uint64_t lo = u->lo > w->lo ? u->lo : w->lo, hi = u->hi < w->hi ? u->hi : w->hi;
    chk_add(&ranks, "%" PRIu32, ev->rank);
    chk_add(&where, "window %" PRIu32, ev->comm);
    chk_add_call(&calls, &u->ev);
    chk_add(&calls, "; ");
    chk_add_call(&calls, ev);
    chk_add(&why,
            "the %s asserts MPI_MODE_NOSTORE (the rank's window memory was not updated since its "
            "last synchronisation of the window), but %s %s bytes %" PRIu64 " to %" PRIu64
            " of that memory (offsets from the window's base)%s: the outcome is undefined (MPI "
            "4.0 section 12.5.5)",
            ev->kind == RT_EV_RMA_COLL_END ? "fence" : "Win_post", rt_func_name(u->ev.call),
            pending ? "was still to write" : "wrote", lo - w->lo, hi - 1 - w->lo,
            pending ? ", an operation started before and not completed" : " in that span");
    return chk_find(c, RT_CHK_RMA_EPOCH, ranks.s, where.s, calls.s, why.s);
}

/* The rank's windows whose memory u writes are updated since their last synchronisation. */
static void mark_dirty(buf_rank *r, const buf_use *u)
{
    for (uint32_t i = 0; u->write && i < r->nwins; i++) {
        buf_win *w = &r->wins[i];
        if (w->live && w->has_base && !w->dirty && w->lo < u->hi && u->lo < w->hi) {
            w->dirty = 1;
            w->first = *u;
        }
    }
}

/* A BUFFER of the operation r->owner. */
static int use_event(chk *c, chk_buf *k, buf_rank *r, const rt_event *ev)
{
    if (!r->owner.kind || !ev->bytes)
        return 0;
    buf_use u = {.lo = ev->req,
                 .hi = ev->req + ev->bytes, /* rt_event_check: no wrap */
                 .enter = r->enter,
                 .ev = r->owner,
                 .write = ev->op == RT_BUF_WRITE};
    for (uint32_t i = 0; chk_on(c, RT_CHK_RMA_CONFLICT) && i < r->npend; i++) {
        const buf_use *p = &r->pend[i];
        if (p->enter == u.enter && p->ev.call == u.ev.call)
            continue; /* one call's operations */
        if (p->lo < u.hi && u.lo < p->hi && (p->write || u.write)) {
            int rc = conflict(c, p, &u);
            if (rc)
                return rc;
        }
    }
    mark_dirty(r, &u);
    if (u.ev.kind == RT_EV_SEND || u.ev.kind == RT_EV_RECV)
        return 0; /* done when its call returns */
    if (r->npend >= BUF_MAX_PENDING) {
        k->dropped++;
        return 0;
    }
    if (RT_VEC_RESERVE(r->pend, r->pend_room, (uint64_t)r->npend + 1, 16))
        return -RT_E_NOMEM;
    r->pend[r->npend++] = u;
    return 0;
}

/* Forgets the pending buffers for which done(p, ev) says 1. A write a wait or test completes
 * (dirty: 1) may have happened any time since its start, so in the window's span now too; one an
 * RMA synchronisation completes happened before it. */
static void complete(buf_rank *r, const rt_event *ev,
                     int (*done)(const buf_use *, const rt_event *), int dirty)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < r->npend; i++) {
        if (!done(&r->pend[i], ev))
            r->pend[n++] = r->pend[i];
        else if (dirty)
            mark_dirty(r, &r->pend[i]);
    }
    r->npend = n;
}

static int done_req(const buf_use *p, const rt_event *ev)
{
    return p->ev.req == ev->req && rt_event_is_rma(p->ev.kind) == rt_event_is_rma(ev->kind);
}

/* A synchronisation of window ev->comm that completes the rank's transfers on it: all of them
 * (a fence, Win_complete, Win_free), or those to its target (unlock, flush; all for
 * RT_PEER_ALL). */
static int done_sync(const buf_use *p, const rt_event *ev)
{
    if (!rt_event_is_rma(p->ev.kind) || p->ev.comm != ev->comm)
        return 0;
    int to_target = ev->kind == RT_EV_RMA_UNLOCK || ev->kind == RT_EV_RMA_SYNC;
    return !to_target || ev->peer == RT_PEER_ALL || ev->peer == p->ev.peer;
}

/* A synchronisation of window w (ev): MPI_MODE_NOSTORE checked, the span starts again. */
static int sync_event(chk *c, buf_rank *r, buf_win *w, const rt_event *ev)
{
    int rc = 0;
    int asserts = ev->kind == RT_EV_RMA_COLL_END ||
                  (ev->kind == RT_EV_RMA_GROUP_SYNC && ev->op == RT_PSCW_POST);
    if (chk_on(c, RT_CHK_RMA_EPOCH) && asserts && (ev->tag & RT_ASSERT_NOSTORE) && w->live &&
        w->has_base) {
        if (w->dirty) {
            rc = nostore(c, w, &w->first, ev, 0);
        } else {
            for (uint32_t i = 0; i < r->npend; i++) {
                const buf_use *p = &r->pend[i];
                if (p->write && p->lo < w->hi && w->lo < p->hi) {
                    rc = nostore(c, w, p, ev, 1);
                    break;
                }
            }
        }
    }
    w->dirty = 0;
    return rc;
}

int chk_buf_event(chk *c, chk_buf *k, const rt_event *ev)
{
    if (ev->rank >= k->nranks)
        return 0;
    buf_rank *r = &k->ranks[ev->rank];
    unsigned kind = ev->kind;
    if (kind == RT_EV_BUFFER)
        return use_event(c, k, r, ev);
    if (kind != RT_EV_RMA_TARGET)
        r->owner.kind = 0; /* a BUFFER follows its operation or the operation's target */
    switch (kind) {
    case RT_EV_ENTER:
        r->enter = ev->time;
        return 0;
    case RT_EV_SEND:
    case RT_EV_ISEND:
    case RT_EV_RECV:
    case RT_EV_IRECV_REQUEST:
    case RT_EV_RMA_PUT:
    case RT_EV_RMA_GET:
    case RT_EV_RMA_ATOMIC:
        r->owner = *ev;
        return 0;
    case RT_EV_ISEND_COMPLETE:
    case RT_EV_IRECV:
    case RT_EV_REQUEST_CANCELLED:
    case RT_EV_RMA_OP_COMPLETE:
        complete(r, ev, done_req, 1);
        return 0;
    case RT_EV_REQUEST_FREE: /* it completes some time after: not compared any more */
        if (ev->op == RT_REQH_FREE)
            complete(r, ev, done_req, 0);
        return 0;
    default:
        break;
    }
    if (!rt_event_is_rma(kind))
        return 0;
    buf_win *w = win_of(r, ev->comm, kind == RT_EV_WIN_CREATE);
    if (!w)
        return kind == RT_EV_WIN_CREATE ? -RT_E_NOMEM : 0;
    switch (kind) {
    case RT_EV_WIN_CREATE:
        memset(w, 0, sizeof *w);
        w->id = ev->comm;
        w->live = 1;
        return 0;
    case RT_EV_WIN_ATTACH:
        if (ev->op == RT_WATTACH_BASE) {
            w->has_base = 1;
            w->lo = ev->req;
            w->hi = ev->req + ev->bytes; /* rt_event_check: no wrap */
        }
        return 0;
    case RT_EV_WIN_FREE:
        complete(r, ev, done_sync, 0);
        w->live = 0;
        return 0;
    case RT_EV_RMA_COLL_END:
    case RT_EV_RMA_GROUP_SYNC:
    case RT_EV_RMA_LOCK:
    case RT_EV_RMA_UNLOCK:
    case RT_EV_RMA_SYNC: {
        int rc = sync_event(c, r, w, ev);
        int completes = kind == RT_EV_RMA_COLL_END || kind == RT_EV_RMA_UNLOCK ||
                        (kind == RT_EV_RMA_GROUP_SYNC && ev->op == RT_PSCW_COMPLETE) ||
                        (kind == RT_EV_RMA_SYNC && ev->op != RT_SYNC_WIN_SYNC);
        if (completes)
            complete(r, ev, done_sync, 0);
        return rc;
    }
    default:
        return 0;
    }
}

int chk_buf_report(chk *c, chk_buf *k)
{
    if (k->dropped)
        return chk_note(c,
                        "%" PRIu64 " buffers of pending operations were not kept (more than %u "
                        "pending on a rank at once): calls on them were not compared",
                        k->dropped, BUF_MAX_PENDING);
    return 0;
}
