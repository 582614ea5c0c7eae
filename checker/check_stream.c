/*
 * The streaming pass of retrace check: what each rank did on its own. Requests must be
 * completed (or freed) before MPI_Finalize; RMA calls must follow the epoch rules of MPI 4.0
 * chapter 12.5 (docs/check.md, "request" and "rma-epoch"); and each rank's collective calls
 * are kept, in the order they were called, for check_coll.c.
 *
 * A rank whose run ended in a call (a pending call) or before MPI_Finalize is checked as far
 * as it went: what it left open is not a finding, since the run ended for another reason.
 * What the events of a pending call describe never happened to completion, so only its
 * collective is kept (it was called).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "rt__check.h"
#include "rt_an.h"
#include "rt_hash.h"
#include "rt_vec.h"

/* ---- state ----------------------------------------------------------------------------------- */

/* An RMA window as one rank uses it. */
typedef struct win_st {
    uint32_t rank, win;
    uint8_t fence, start, post, lock_all;
    uint32_t nlocks;
    int32_t group;      /* the Win_start group (its id), while start */
    rt_event opened[3]; /* the call that opened: 0 Win_start, 1 Win_post, 2 Win_lock_all */
} win_st;

typedef struct stream {
    chk *c;
    const rt_defs *defs;
    uint32_t nranks;
    chk_rank *ranks;
    /* open requests: (rank, req) -> index in open[] */
    rt_hmap open_at;
    rt_event *open;
    size_t nopen, open_room;
    /* windows: (rank, win) -> index in wins[]; locks: (rank << 32 | win, target) -> index in
     * lockv[] (the Win_lock event) */
    rt_hmap win_at, locks;
    rt_event *lockv;
    size_t nlockv, lockv_room;
    win_st *wins;
    size_t nwins, wins_room;
    /* nonblocking collectives: (rank, req) -> index in the rank's calls */
    rt_hmap nbc_at;
    chk_colls colls;
    chk_conf *conf;      /* RMA conflicts (NULL: not checked) */
    chk_leak *leak;      /* resource leaks (NULL: not checked) */
    chk_assert *asserts; /* fence, post and start assertions (NULL: not checked) */
    chk_dyn *dyn;        /* memory of dynamic windows (NULL: not checked) */
    chk_buf *buf;        /* buffers of operations and window memory (NULL: not checked) */
} stream;

/* ---- findings of one rank ----------------------------------------------------------------------
 */

/* A finding about one rank's call ev (and the call before it, when given). */
static int find_one(stream *s, unsigned cls, const rt_event *ev, const rt_event *before,
                    const char *why)
{
    if (!chk_on(s->c, cls))
        return 0;
    chk_text ranks = {.len = 0}, where = {.len = 0}, calls = {.len = 0};
    chk_add(&ranks, "%" PRIu32, ev->rank);
    if (rt_event_is_rma(ev->kind))
        chk_add(&where, "window %" PRIu32, ev->comm);
    else if (rt_event_kind_mask(ev->kind) & RT_FIELD_COMM)
        chk_add_comm(&where, ev->comm);
    if (before) {
        chk_add_call(&calls, before);
        chk_add(&calls, "; ");
    }
    chk_add_call(&calls, ev);
    return chk_find(s->c, cls, ranks.s, where.s, calls.s, why);
}

/* ---- requests ----------------------------------------------------------------------------------
 */

static int req_open(stream *s, const rt_event *ev)
{
    int created;
    uint64_t *v = rt_hmap_put(&s->open_at, ev->rank, ev->req, &created);
    if (!v || RT_VEC_RESERVE(s->open, s->open_room, (uint64_t)s->nopen + 1, 64))
        return -RT_E_NOMEM;
    if (!created) { /* the same id again: the reader's shape checks allow it after an end */
        s->open[*v] = *ev;
        return 0;
    }
    *v = s->nopen;
    s->open[s->nopen++] = *ev;
    return 0;
}

static void req_close(stream *s, uint32_t rank, uint64_t req)
{
    uint64_t *v = rt_hmap_get(&s->open_at, rank, req);
    if (!v)
        return;
    size_t i = (size_t)*v, last = s->nopen - 1;
    rt_hmap_del(&s->open_at, rank, req);
    if (i != last) { /* the last one fills the hole */
        s->open[i] = s->open[last];
        uint64_t *w = rt_hmap_get(&s->open_at, s->open[i].rank, s->open[i].req);
        if (w)
            *w = i;
    }
    s->nopen--;
}

/* Requests left open on ranks that reached MPI_Finalize (and were not in a pending call). A
 * request started before the rank's last MPI_Request_free without a REQUEST_FREE (a trace of
 * retrace before it, a request of a call the tracer does not record) may be the one it freed: it
 * is given the benefit of the doubt. */
static int req_left(stream *s)
{
    for (size_t i = 0; i < s->nopen; i++) {
        const rt_event *ev = &s->open[i];
        const chk_rank *r = &s->ranks[ev->rank];
        int nbc = ev->kind == RT_EV_NBC_REQUEST; /* MPI forbids freeing these */
        if (!r->finalized || r->ended_pending || (!nbc && r->freed && ev->time <= r->freed_ns) ||
            (!nbc && !rt_event_in_class(ev->kind, RT_EVC_P2P)))
            continue;
        int rc = find_one(s, RT_CHK_REQUEST, ev, NULL,
                          nbc ? "the nonblocking collective was never completed before "
                                "MPI_Finalize"
                          : ev->kind == RT_EV_IRECV_REQUEST
                              ? "the receive request was neither completed nor freed before "
                                "MPI_Finalize"
                              : "the send request was neither completed nor freed before "
                                "MPI_Finalize");
        if (rc)
            return rc;
    }
    return 0;
}

/* ---- RMA epochs
 * ---------------------------------------------------------------------------------- */

static win_st *win_of(stream *s, uint32_t rank, uint32_t win)
{
    int created;
    size_t i = chk_entry(&s->win_at, &s->wins, &s->nwins, &s->wins_room, sizeof *s->wins, rank, win,
                         &created);
    if (i == SIZE_MAX)
        return NULL;
    if (created)
        s->wins[i] = (win_st){.rank = rank, .win = win, .group = -1};
    return &s->wins[i];
}

static uint64_t lock_key(const rt_event *ev)
{
    return (uint64_t)ev->rank << 32 | ev->comm;
}

/* The world rank of target t of window win; -1 when the trace cannot tell. */
static int64_t target_world(const stream *s, uint32_t win, int32_t t)
{
    const rt_win_def *w = rt_defs_win(s->defs, win);
    const rt_comm_def *c = w ? rt_defs_comm(s->defs, w->comm) : NULL;
    if (!c || t < 0 || (uint32_t)t >= c->size)
        return -1;
    return c->members[t];
}

/* 1 when target t of the window is in group g (an access epoch of Win_start); 1 too when the
 * trace cannot tell (no finding without proof). */
static int in_group(const stream *s, uint32_t win, int32_t g, int32_t t)
{
    const rt_group_def *gd = g >= 0 ? rt_defs_group(s->defs, (uint32_t)g) : NULL;
    int64_t w = target_world(s, win, t);
    if (!gd || w < 0)
        return 1;
    for (uint32_t i = 0; i < gd->size; i++)
        if (gd->members[i] == (uint32_t)w)
            return 1;
    return 0;
}

static int rma_transfer(stream *s, win_st *w, const rt_event *ev)
{
    int locked = w->lock_all || rt_hmap_get(&s->locks, lock_key(ev), (uint64_t)ev->peer);
    if (w->start && !locked && !in_group(s, w->win, w->group, ev->peer))
        return find_one(s, RT_CHK_RMA_EPOCH, ev, &w->opened[0],
                        "the target is not in the group of the access epoch Win_start opened");
    if (!w->fence && !w->start && !locked)
        return find_one(s, RT_CHK_RMA_EPOCH, ev, NULL,
                        "an RMA operation outside any access epoch: no Win_fence, Win_start "
                        "or lock of this target came before it on this window");
    return 0;
}

static int rma_lock(stream *s, win_st *w, const rt_event *ev)
{
    if (ev->peer == RT_PEER_ALL) {
        if (w->lock_all)
            return find_one(s, RT_CHK_RMA_EPOCH, ev, &w->opened[2],
                            "Win_lock_all while this rank holds Win_lock_all on the window");
        if (w->nlocks)
            return find_one(s, RT_CHK_RMA_EPOCH, ev, NULL,
                            "Win_lock_all while this rank holds a Win_lock on the window");
        w->lock_all = 1;
        w->opened[2] = *ev;
        w->fence = 0;
        return 0;
    }
    w->fence = 0; /* nor a lock */
    if (w->lock_all)
        return find_one(s, RT_CHK_RMA_EPOCH, ev, &w->opened[2],
                        "Win_lock while this rank holds Win_lock_all on the window");
    int created;
    uint64_t *v = rt_hmap_put(&s->locks, lock_key(ev), (uint64_t)ev->peer, &created);
    if (!v)
        return -RT_E_NOMEM;
    if (!created)
        return find_one(s, RT_CHK_RMA_EPOCH, ev, &s->lockv[*v],
                        "Win_lock of a target this rank holds locked already");
    if (RT_VEC_RESERVE(s->lockv, s->lockv_room, (uint64_t)s->nlockv + 1, 16)) {
        rt_hmap_del(&s->locks, lock_key(ev), (uint64_t)ev->peer);
        return -RT_E_NOMEM;
    }
    *v = s->nlockv;
    s->lockv[s->nlockv++] = *ev;
    w->nlocks++;
    return 0;
}

static int rma_unlock(stream *s, win_st *w, const rt_event *ev)
{
    if (ev->peer == RT_PEER_ALL) {
        if (!w->lock_all)
            return find_one(s, RT_CHK_RMA_EPOCH, ev, NULL,
                            "Win_unlock_all without Win_lock_all on the window");
        w->lock_all = 0;
        return 0;
    }
    if (!rt_hmap_get(&s->locks, lock_key(ev), (uint64_t)ev->peer))
        return find_one(s, RT_CHK_RMA_EPOCH, ev, NULL,
                        "Win_unlock of a target this rank has not locked");
    rt_hmap_del(&s->locks, lock_key(ev), (uint64_t)ev->peer);
    w->nlocks--;
    return 0;
}

static int rma_group_sync(stream *s, win_st *w, const rt_event *ev)
{
    switch (ev->op) {
    case RT_PSCW_START:
        if (w->start)
            return find_one(s, RT_CHK_RMA_EPOCH, ev, &w->opened[0],
                            "Win_start while the access epoch of an earlier Win_start is open");
        w->start = 1;
        w->group = ev->peer;
        w->fence = 0; /* MPI allows Win_start only when no fence epoch is open */
        w->opened[0] = *ev;
        return 0;
    case RT_PSCW_COMPLETE:
        if (!w->start)
            return find_one(s, RT_CHK_RMA_EPOCH, ev, NULL, "Win_complete without Win_start");
        w->start = 0;
        return 0;
    case RT_PSCW_POST:
        if (w->post)
            return find_one(s, RT_CHK_RMA_EPOCH, ev, &w->opened[1],
                            "Win_post while the exposure epoch of an earlier Win_post is open");
        w->post = 1;
        w->opened[1] = *ev;
        return 0;
    default: /* RT_PSCW_WAIT */
        if (!w->post)
            return find_one(s, RT_CHK_RMA_EPOCH, ev, NULL, "Win_wait without Win_post");
        w->post = 0;
        return 0;
    }
}

/* "epochs open: Win_start, lock of 2 targets": what w has open, for a message. */
static int epochs_open(const win_st *w, chk_text *t)
{
    int n = 0;
    if (w->start)
        chk_add(t, "%sWin_start", n++ ? ", " : "");
    if (w->post)
        chk_add(t, "%sWin_post", n++ ? ", " : "");
    if (w->lock_all)
        chk_add(t, "%sWin_lock_all", n++ ? ", " : "");
    if (w->nlocks)
        chk_add(t, "%sWin_lock of %" PRIu32 " target%s", n++ ? ", " : "", w->nlocks,
                w->nlocks > 1 ? "s" : "");
    return n;
}

/* The window is gone: its epochs and locks with it (a later window may reuse the id). */
static void win_forget(stream *s, win_st *w)
{
    uint64_t key = (uint64_t)w->rank << 32 | w->win;
    for (size_t j = 0; w->nlocks && j < s->locks.cap;) {
        const rt_hmap_slot *l = &s->locks.slots[j];
        if (l->k1 == key) { /* deleting moves later keys back: look at j again */
            rt_hmap_del(&s->locks, key, l->k2);
            w->nlocks--;
        } else {
            j++;
        }
    }
    *w = (win_st){.rank = w->rank, .win = w->win, .group = -1};
}

static int rma_event(stream *s, const rt_event *ev)
{
    if (ev->kind == RT_EV_RMA_OP_COMPLETE || ev->kind == RT_EV_RMA_COLL_BEGIN)
        return 0;
    win_st *w = win_of(s, ev->rank, ev->comm);
    if (!w)
        return -RT_E_NOMEM;
    chk_text open = {.len = 0};
    switch (ev->kind) {
    case RT_EV_WIN_CREATE:
        *w = (win_st){.rank = ev->rank, .win = ev->comm, .group = -1};
        return 0;
    case RT_EV_WIN_FREE: {
        int rc = 0;
        if (epochs_open(w, &open)) {
            chk_add(&open, " still open when the window is freed");
            rc = find_one(s, RT_CHK_RMA_EPOCH, ev, NULL, open.s);
        }
        win_forget(s, w);
        return rc;
    }
    case RT_EV_RMA_PUT:
    case RT_EV_RMA_GET:
    case RT_EV_RMA_ATOMIC:
        return rma_transfer(s, w, ev);
    case RT_EV_RMA_COLL_END: /* a fence */
        if (w->lock_all || w->nlocks || w->start || w->post) {
            epochs_open(w, &open);
            chk_add(&open, " open: Win_fence may not end or start an epoch then");
            return find_one(s, RT_CHK_RMA_EPOCH, ev, NULL, open.s);
        }
        w->fence = 1;
        return 0;
    case RT_EV_RMA_GROUP_SYNC:
        return rma_group_sync(s, w, ev);
    case RT_EV_RMA_LOCK:
        return rma_lock(s, w, ev);
    case RT_EV_RMA_UNLOCK:
        return rma_unlock(s, w, ev);
    case RT_EV_RMA_SYNC:
        if (ev->op == RT_SYNC_WIN_SYNC || w->lock_all ||
            (ev->peer == RT_PEER_ALL
                 ? w->nlocks != 0
                 : rt_hmap_get(&s->locks, lock_key(ev), (uint64_t)ev->peer) != NULL))
            return 0;
        return find_one(s, RT_CHK_RMA_EPOCH, ev, NULL,
                        "a flush outside a passive target epoch: no lock of this target is held");
    default:
        return 0;
    }
}

/* Epochs left open on ranks that reached MPI_Finalize. */
static int rma_left(stream *s)
{
    for (size_t i = 0; i < s->nwins; i++) {
        const win_st *w = &s->wins[i];
        const chk_rank *r = &s->ranks[w->rank];
        chk_text open = {.len = 0};
        if (!r->finalized || r->ended_pending || !epochs_open(w, &open))
            continue;
        chk_add(&open, " still open at MPI_Finalize");
        chk_text ranks = {.len = 0}, where = {.len = 0}, calls = {.len = 0};
        chk_add(&ranks, "%" PRIu32, w->rank);
        chk_add(&where, "window %" PRIu32, w->win);
        for (int k = 0; k < 3; k++)
            if ((k == 0 && w->start) || (k == 1 && w->post) || (k == 2 && w->lock_all)) {
                chk_add(&calls, "%s", calls.len ? "; " : "");
                chk_add_call(&calls, &w->opened[k]);
            }
        for (size_t j = 0; j < s->locks.cap; j++) { /* the locks it holds */
            const rt_hmap_slot *l = &s->locks.slots[j];
            if (l->k1 == ((uint64_t)w->rank << 32 | w->win)) {
                chk_add(&calls, "%s", calls.len ? "; " : "");
                chk_add_call(&calls, &s->lockv[l->v]);
            }
        }
        int rc = chk_find(s->c, RT_CHK_RMA_EPOCH, ranks.s, where.s, calls.s, open.s);
        if (rc)
            return rc;
    }
    return 0;
}

/* ---- collectives -------------------------------------------------------------------------------
 */

static chk_call *call_add(stream *s, uint32_t rank)
{
    chk_colls *cs = &s->colls;
    if (RT_VEC_RESERVE(cs->calls[rank], cs->room[rank], (uint64_t)cs->ncalls[rank] + 1, 16))
        return NULL;
    chk_call *k = &cs->calls[rank][cs->ncalls[rank]++];
    memset(k, 0, sizeof *k);
    return k;
}

/* A COLL_PEER row: one block of the collective the rank recorded last. */
static int row_add(stream *s, const rt_event *ev)
{
    chk_colls *cs = &s->colls;
    uint32_t r = ev->rank, at = cs->last[r];
    if (at == UINT32_MAX)
        return 0; /* the reader placed it: after a call the pass did not keep */
    if (RT_VEC_RESERVE(cs->rows[r], cs->rows_room[r], (uint64_t)cs->nrows[r] + 1, 16))
        return -RT_E_NOMEM;
    chk_call *k = &cs->calls[r][at];
    if (!k->nrows)
        k->row0 = cs->nrows[r];
    cs->rows[r][cs->nrows[r]++] = (chk_row){ev->peer, ev->bytes, ev->rbytes};
    k->nrows++;
    return 0;
}

/* A blocking collective (COLL_END), a nonblocking one started (NBC_REQUEST: its fields come
 * with its completion) or completed (NBC_COMPLETE). */
static int coll_event(stream *s, const rt_event *ev)
{
    chk_call *k;
    uint64_t *v;
    int created;
    switch (ev->kind) {
    case RT_EV_COLL_END:
        if (!(k = call_add(s, ev->rank)))
            return -RT_E_NOMEM;
        k->ev = *ev;
        k->start_ns = ev->time;
        s->colls.last[ev->rank] = s->colls.ncalls[ev->rank] - 1;
        return 0;
    case RT_EV_NBC_REQUEST:
        if (!(v = rt_hmap_put(&s->nbc_at, ev->rank, ev->req, &created)) ||
            !(k = call_add(s, ev->rank)))
            return -RT_E_NOMEM;
        *v = s->colls.ncalls[ev->rank] - 1;
        k->start_ns = ev->time;
        return 0;
    case RT_EV_NBC_COMPLETE:
        if (s->ranks[ev->rank].in_pending) /* waited for, never completed */
            return 0;
        s->colls.last[ev->rank] = UINT32_MAX;
        if ((v = rt_hmap_get(&s->nbc_at, ev->rank, ev->req)) != NULL) {
            s->colls.calls[ev->rank][*v].ev = *ev;
            s->colls.last[ev->rank] = (uint32_t)*v;
            rt_hmap_del(&s->nbc_at, ev->rank, ev->req);
        }
        return 0;
    case RT_EV_COLL_PEER:
        return row_add(s, ev);
    default:
        return 0;
    }
}

/* ---- the pass -----------------------------------------------------------------------------------
 */

static int on_defs(void *ctx, const rt_defs *defs, rt_err *err)
{
    stream *s = ctx;
    s->defs = defs;
    s->nranks = defs->nranks;
    s->c->res->nranks = defs->nranks;
    s->c->res->buffers = (defs->flags & RT_DEFS_BUFFERS) != 0;
    if ((chk_on(s->c, RT_CHK_RMA_CONFLICT) || chk_on(s->c, RT_CHK_RMA_EPOCH)) &&
        !(s->buf = chk_buf_new(defs->nranks)))
        return rt_err_set(err, RT_E_NOMEM, "out of memory");
    chk_colls *cs = &s->colls;
    cs->nranks = defs->nranks;
    s->ranks = calloc(defs->nranks, sizeof *s->ranks);
    cs->calls = calloc(defs->nranks, sizeof *cs->calls);
    cs->ncalls = calloc(defs->nranks, sizeof *cs->ncalls);
    cs->room = calloc(defs->nranks, sizeof *cs->room);
    cs->rows = calloc(defs->nranks, sizeof *cs->rows);
    cs->nrows = calloc(defs->nranks, sizeof *cs->nrows);
    cs->rows_room = calloc(defs->nranks, sizeof *cs->rows_room);
    cs->last = malloc((defs->nranks ? defs->nranks : 1) * sizeof *cs->last);
    if (cs->last)
        memset(cs->last, 0xff, (defs->nranks ? defs->nranks : 1) * sizeof *cs->last);
    if (!s->ranks || !cs->calls || !cs->ncalls || !cs->room || !cs->rows || !cs->nrows ||
        !cs->rows_room || !cs->last)
        return rt_err_set(err, RT_E_NOMEM, "out of memory");
    return 0;
}

static int on_call(stream *s, const rt_event *ev)
{
    chk_rank *r = &s->ranks[ev->rank];
    r->in_pending = 0;
    if (ev->kind == RT_EV_LEAVE && r->depth)
        r->depth--;
    else if (ev->kind == RT_EV_ENTER && ++r->depth > 1 && s->c->threaded == UINT32_MAX)
        s->c->threaded = ev->rank;
    if (ev->kind == RT_EV_ENTER && ev->call == RT_FN_Finalize)
        r->finalized = 1;
    if (ev->kind == RT_EV_ENTER && ev->call == RT_FN_Request_free)
        r->free_known = 0;
    if (ev->kind == RT_EV_LEAVE && ev->call == RT_FN_Request_free && !r->free_known) {
        r->freed = 1;
        r->freed_ns = ev->time;
    }
    return 0;
}

/* A call that returned an error (ERROR, rt_event.h): class invalid-param, one finding per call
 * (docs/check.md). The code itself is left out: MPICH's carry an index that differs from run to
 * run, and its class says what went wrong. */
static int invalid_param(chk *c, const rt_event *ev)
{
    chk_text ranks = {.len = 0}, calls = {.len = 0}, why = {.len = 0};
    chk_add(&ranks, "%" PRIu32, ev->rank);
    chk_add(&calls, "rank %" PRIu32 " %s at ", ev->rank, rt_func_name(ev->call));
    chk_add_time(&calls, ev->time);
    char cls[32] = "";
    const char *name = rt_event_op_name(RT_EV_ERROR, ev->op);
    for (size_t i = 0; name[i] && i + 1 < sizeof cls; i++)
        cls[i] = (char)(name[i] >= 'a' && name[i] <= 'z' ? name[i] - 'a' + 'A' : name[i]);
    if (ev->op == RT_ERRCLASS_IN_STATUS)
        chk_add(&why, "the call returned MPI_ERR_IN_STATUS: some of its requests failed, and "
                      "their statuses say which");
    else if (ev->op == RT_ERRCLASS_OTHER)
        chk_add(&why, "the call returned an error (of a class retrace does not name): MPI "
                      "refused it, and it did nothing");
    else
        chk_add(&why,
                "the call returned an error of class MPI_ERR_%s: MPI refused it, and it did "
                "nothing",
                cls);
    return chk_find(c, RT_CHK_INVALID_PARAM, ranks.s, "", calls.s, why.s);
}

/*
 * MPI_Request_free of a request (REQUEST_FREE): its operation is no longer the program's to
 * complete. A nonblocking collective's request may not be freed (MPI 4.0 section 3.7.3), nor is an
 * active persistent collective's taken to be (the same collective in progress): a finding of
 * class request. A point-to-point one may be (its operation still completes), and is no longer
 * left open.
 */
static int request_free(stream *s, const rt_event *ev)
{
    s->ranks[ev->rank].free_known = 1;
    uint64_t *v = rt_hmap_get(&s->open_at, ev->rank, ev->req);
    if (!v)
        return 0;
    int rc = 0;
    const rt_event start = s->open[*v];
    int persistent = start.call == RT_FN_Start || start.call == RT_FN_Startall;
    if (start.kind == RT_EV_NBC_REQUEST)
        rc = find_one(s, RT_CHK_REQUEST, ev, &start,
                      persistent ? "the request of a persistent collective was freed "
                                   "(MPI_Request_free) while active: MPI forbids it"
                                 : "the request of a nonblocking collective was freed "
                                   "(MPI_Request_free): MPI forbids it");
    req_close(s, ev->rank, ev->req);
    return rc;
}

/* A persistent request misused (REQUEST_FREE events of other ops than the free, rt_event.h): a
 * restart while active (with the start it was still active from, when the trace holds it) or a
 * cancel while inactive. Neither ends or opens anything. */
static int request_misuse(stream *s, const rt_event *ev)
{
    if (ev->op == RT_REQH_RESTART_ACTIVE) {
        const uint64_t *v = rt_hmap_get(&s->open_at, ev->rank, ev->req);
        return find_one(s, RT_CHK_REQUEST, ev, v ? &s->open[*v] : NULL,
                        "the persistent request was started again while its last start was "
                        "still active (not completed by a wait or a test): MPI forbids it");
    }
    return find_one(s, RT_CHK_REQUEST, ev, NULL,
                    ev->req ? "MPI_Cancel of a persistent request whose last start had "
                              "completed: it was inactive, and MPI cancels only an active "
                              "operation"
                            : "MPI_Cancel of a persistent request never started: it was "
                              "inactive, and MPI cancels only an active operation");
}

static int on_event(void *ctx, const rt_event *ev)
{
    stream *s = ctx;
    chk_rank *r = &s->ranks[ev->rank];
    s->c->res->events++;
    if (s->buf && ev->kind != RT_EV_PENDING && (ev->kind == RT_EV_ENTER || !r->in_pending)) {
        int rc = chk_buf_event(s->c, s->buf, ev);
        if (rc)
            return rc;
    }
    if (ev->kind == RT_EV_ENTER || ev->kind == RT_EV_LEAVE)
        return on_call(s, ev);
    if (ev->kind == RT_EV_ERROR)
        return chk_on(s->c, RT_CHK_INVALID_PARAM) ? invalid_param(s->c, ev) : 0;
    if (ev->kind == RT_EV_PENDING) {
        r->in_pending = r->ended_pending = 1;
        return 0;
    }
    if (ev->kind == RT_EV_REQUEST_FREE)
        return ev->op == RT_REQH_FREE ? request_free(s, ev) : request_misuse(s, ev);
    if (ev->kind == RT_EV_COMM_HANDLE || ev->kind == RT_EV_HANDLE)
        return s->leak ? chk_leak_event(s->leak, ev) : 0;
    if (rt_event_is_coll(ev->kind)) {
        int rc = coll_event(s, ev);
        if (rc || r->in_pending)
            return rc;
    } else if (r->in_pending) {
        return 0; /* what a call that never returned waited for did not happen */
    }
    if ((ev->kind == RT_EV_RECV || ev->kind == RT_EV_IRECV) && (ev->op & RT_RECV_ANY_SOURCE))
        s->c->wildcards++;
    if (rt_event_is_rma(ev->kind)) {
        int rc = s->conf ? chk_conf_event(s->conf, s->defs, ev) : 0;
        if (!rc && s->leak && (ev->kind == RT_EV_WIN_CREATE || ev->kind == RT_EV_WIN_FREE))
            rc = chk_leak_event(s->leak, ev);
        if (!rc && s->asserts)
            rc = chk_assert_event(s->c, s->asserts, s->defs, ev);
        if (!rc && s->dyn)
            rc = chk_dyn_event(s->c, s->dyn, s->defs, ev);
        return rc || !chk_on(s->c, RT_CHK_RMA_EPOCH) ? rc : rma_event(s, ev);
    }
    if (rt_event_starts_request(ev->kind))
        return req_open(s, ev);
    if (rt_event_ends_request(ev->kind))
        req_close(s, ev->rank, ev->req);
    return 0;
}

static int on_finish(void *ctx, rt_err *err)
{
    stream *s = ctx;
    int rc = 0;
    if (chk_on(s->c, RT_CHK_REQUEST))
        rc = req_left(s);
    if (!rc && chk_on(s->c, RT_CHK_RMA_EPOCH))
        rc = rma_left(s);
    if (!rc && chk_on(s->c, RT_CHK_COLLECTIVE))
        rc = chk_colls_compare(s->c, s->defs, s->ranks, &s->colls);
    if (!rc && s->conf)
        rc = chk_conf_report(s->c, s->conf, s->defs);
    if (!rc && s->leak)
        rc = chk_leak_report(s->c, s->leak, s->ranks);
    if (!rc && s->asserts)
        rc = chk_assert_report(s->c, s->asserts);
    if (!rc && s->dyn)
        rc = chk_dyn_report(s->c, s->dyn);
    if (!rc && s->buf)
        rc = chk_buf_report(s->c, s->buf);
    if (rc)
        return rt_err_set(err, -rc, "out of memory");
    return 0;
}

int chk_stream(chk *c, const char *path, rt_err *err)
{
    stream s = {.c = c};
    if (chk_on(c, RT_CHK_RMA_CONFLICT) && !(s.conf = chk_conf_new()))
        return rt_err_set(err, RT_E_NOMEM, "%s: out of memory", path);
    if (chk_on(c, RT_CHK_LEAK) && !(s.leak = chk_leak_new())) {
        chk_conf_free(s.conf);
        return rt_err_set(err, RT_E_NOMEM, "%s: out of memory", path);
    }
    if (chk_on(c, RT_CHK_RMA_EPOCH) &&
        (!(s.asserts = chk_assert_new()) || !(s.dyn = chk_dyn_new()))) {
        chk_conf_free(s.conf);
        chk_leak_free(s.leak);
        chk_assert_free(s.asserts);
        return rt_err_set(err, RT_E_NOMEM, "%s: out of memory", path);
    }
    rt_an_pass pass = {.setup = on_defs, .event = on_event, .finish = on_finish, .ctx = &s};
    char *truncated = NULL;
    int rc = rt_an_run(path, &pass, &truncated, err);
    c->res->report.truncated = truncated;
    for (uint32_t r = 0; r < s.colls.nranks; r++) {
        if (s.colls.calls)
            free(s.colls.calls[r]);
        if (s.colls.rows)
            free(s.colls.rows[r]);
    }
    free(s.colls.rows);
    free(s.colls.nrows);
    free(s.colls.rows_room);
    free(s.colls.last);
    free(s.colls.calls);
    free(s.colls.ncalls);
    free(s.colls.room);
    free(s.ranks);
    free(s.open);
    free(s.wins);
    free(s.lockv);
    chk_conf_free(s.conf);
    chk_leak_free(s.leak);
    chk_assert_free(s.asserts);
    chk_dyn_free(s.dyn);
    chk_buf_free(s.buf);
    rt_hmap_free(&s.open_at);
    rt_hmap_free(&s.win_at);
    rt_hmap_free(&s.locks);
    rt_hmap_free(&s.nbc_at);
    return rc;
}
