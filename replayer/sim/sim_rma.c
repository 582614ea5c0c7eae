/*
 * One-sided communication in the engine. Transfers (put, get, accumulate, atomics) are
 * network transfers that need nothing from the target's program: their completion time is
 * known when they are issued, and each rank keeps, per window, the latest completion of its
 * transfers overall and per target. Synchronisation then waits for those times:
 *  - fence: the rank's transfers on the window, then a barrier over the window's
 *    communicator (the barrier algorithm chosen for barriers);
 *  - window creation and freeing: a barrier (freeing waits for the transfers first);
 *  - post/start/complete/wait: a target's post sends a notice to each origin of its group,
 *    start waits for the notices of all its targets; complete waits for the rank's transfers
 *    and sends a notice to each target, wait waits for the notices of all its origins;
 *  - lock/unlock of one target: a lock request goes to the target (L), which grants it when
 *    compatible (shared with shared, exclusive alone) and answers (L); the call returns with
 *    the grant. Unlock waits for the transfers to that target, sends the release (L) and
 *    returns with its acknowledgement (L); the target grants waiting requests on release.
 *    lock_all takes effect without waiting (MPICH acquires it lazily) and unlock_all waits
 *    for the rank's transfers on the window;
 *  - flush (and flush_local, conservatively) waits for the transfers to that target or to
 *    all; win_sync costs nothing.
 */
#include <stdlib.h>

#include "rt__sim.h"

typedef struct sim_lock {
    uint64_t free_at;    /* last release reached the target */
    uint32_t head, tail; /* waiting requests (sim_pend: op.time = arrival, op.flags = type) */
    uint32_t shared;
    uint8_t exclusive;
} sim_lock;

static uint64_t *done_slot(sim *s, uint32_t rank, uint32_t win, uint32_t target)
{
    uint64_t *v = rt_hmap_put(&s->rma_done, (uint64_t)rank << 32 | win, target, NULL);
    if (!v)
        sim_fail(s, RT_E_NOMEM, "out of memory (RMA)");
    return v;
}

static uint64_t done_of(const sim *s, uint32_t rank, uint32_t win, uint32_t target)
{
    uint64_t *v = rt_hmap_get(&s->rma_done, (uint64_t)rank << 32 | win, target);
    return v ? *v : 0;
}

static void transfer(sim *s, uint32_t rank, const rt_event *ev, uint64_t t)
{
    uint64_t out = 0, back = 0;
    if (ev->kind == RT_EV_RMA_PUT)
        out = ev->bytes;
    else if (ev->kind == RT_EV_RMA_GET)
        back = ev->rbytes;
    else {
        out = ev->bytes;
        back = ev->rbytes;
    }
    uint32_t target = (uint32_t)ev->peer;
    uint64_t done = sim_rma_transfer(s, rank, target, out, back, t);
    uint64_t *a = done_slot(s, rank, ev->comm, target), *b;
    if (!a)
        return;
    if (done > *a)
        *a = done;
    if (!(b = done_slot(s, rank, ev->comm, SIM_NONE)))
        return;
    if (done > *b)
        *b = done;
    if (ev->req != SIM_NONE) {
        uint32_t r = sim_req_new(s);
        if (r == SIM_NONE)
            return;
        sim_req_done(s, r, done);
        sim_slot_set(s, rank, ev->req, r);
    }
}

static void wait_until(sim *s, uint32_t rank, uint64_t t)
{
    sim_rank *rk = &s->ranks[rank];
    if (t > rk->wait_until)
        rk->wait_until = t;
}

static void barrier(sim *s, uint32_t rank, uint32_t win, unsigned op, uint64_t t)
{
    const rt_win_def *w = rt_defs_win(s->defs, win);
    const rt_comm_def *c = rt_defs_comm(s->defs, w->comm);
    if (c->flags & (RT_COMM_IS_INTER | RT_COMM_IS_SELF)) {
        wait_until(s, rank, t);
        return;
    }
    sim_rank_wait(
        s, rank,
        sim_coll_start(s, rank, SIM_CTX_WIN, win, c, op, RT_PEER_NONE, 0, 0, 0, NULL, 0, t));
}

static void group_sync(sim *s, uint32_t rank, const rt_event *ev, uint64_t t)
{
    const rt_group_def *g = rt_defs_group(s->defs, (uint32_t)ev->peer);
    uint8_t ctx = ev->op == RT_PSCW_POST || ev->op == RT_PSCW_START ? SIM_CTX_POST : SIM_CTX_DONE;
    if (ev->op == RT_PSCW_COMPLETE) {
        uint64_t d = done_of(s, rank, ev->comm, SIM_NONE);
        if (d > t)
            t = d;
        wait_until(s, rank, t);
    }
    for (uint32_t i = 0; i < g->size && !s->rc; i++) {
        uint32_t m = g->members[i], r;
        if (ev->op == RT_PSCW_POST || ev->op == RT_PSCW_COMPLETE) {
            r = sim_post_send(s, ctx, ev->comm, 0, rank, m, 0, t, 0);
            if (ev->op == RT_PSCW_POST)
                sim_slot_set(s, rank, SIM_NONE, r);
            else
                sim_rank_wait(s, rank, r);
        } else {
            r = sim_post_recv(s, ctx, ev->comm, 0, rank, m, 0, t, 0);
            sim_rank_wait(s, rank, r);
        }
    }
}

static sim_lock *lock_of(sim *s, uint32_t win, uint32_t target)
{
    int created;
    uint64_t *v = rt_hmap_put(&s->locks, win, target, &created);
    if (!v) {
        sim_fail(s, RT_E_NOMEM, "out of memory (locks)");
        return NULL;
    }
    if (created) {
        if (RT_VEC_RESERVE(s->lockv, s->locks_cap, (uint64_t)s->nlocks + 1, 64) < 0) {
            sim_fail(s, RT_E_NOMEM, "out of memory (locks)");
            return NULL;
        }
        s->lockv[s->nlocks] = (sim_lock){0, SIM_NONE, SIM_NONE, 0, 0};
        *v = s->nlocks++;
    }
    return &s->lockv[*v];
}

static int compatible(const sim_lock *l, unsigned type)
{
    return !l->exclusive && (type == RT_LOCK_SHARED || l->shared == 0);
}

static void grant(sim *s, sim_lock *l, unsigned type, uint32_t req, uint64_t arrival, uint64_t back)
{
    if (type == RT_LOCK_EXCLUSIVE)
        l->exclusive = 1;
    else
        l->shared++;
    uint64_t at = arrival > l->free_at ? arrival : l->free_at;
    sim_req_done(s, req, sim_add(s, at, back));
}

static void lock(sim *s, uint32_t rank, const rt_event *ev, uint64_t t)
{
    uint32_t target = (uint32_t)ev->peer;
    sim_lock *l = lock_of(s, ev->comm, target);
    uint32_t req = l ? sim_req_new(s) : SIM_NONE;
    if (req == SIM_NONE)
        return;
    const rt_net_link *k = &s->cfg->model.link[sim_contype(s, rank, target)];
    uint64_t arrival = sim_add(s, sim_add(s, t, k->overhead_ps), k->latency_ps);
    if (l->head == SIM_NONE && compatible(l, ev->op)) {
        grant(s, l, ev->op, req, arrival, k->latency_ps);
    } else {
        uint32_t p = sim_pend_take(s);
        if (p == SIM_NONE)
            return;
        s->pends[p] = (sim_pend){.op = {.time = arrival, .who = req, .flags = ev->op},
                                 .rank = rank,
                                 .peer = target,
                                 .next = SIM_NONE};
        if (l->tail == SIM_NONE)
            l->head = p;
        else
            s->pends[l->tail].next = p;
        l->tail = p;
    }
    sim_rank_wait(s, rank, req);
}

static void unlock(sim *s, uint32_t rank, const rt_event *ev, uint64_t t)
{
    uint32_t target = (uint32_t)ev->peer;
    uint64_t d = done_of(s, rank, ev->comm, target);
    if (d > t)
        t = d;
    const rt_net_link *k = &s->cfg->model.link[sim_contype(s, rank, target)];
    uint64_t release = sim_add(s, sim_add(s, t, k->overhead_ps), k->latency_ps);
    wait_until(s, rank, sim_add(s, release, k->latency_ps));
    sim_lock *l = lock_of(s, ev->comm, target);
    if (!l)
        return;
    if (l->exclusive)
        l->exclusive = 0;
    else if (l->shared)
        l->shared--;
    if (release > l->free_at)
        l->free_at = release;
    while (l->head != SIM_NONE) {
        sim_pend *w = &s->pends[l->head];
        if (!compatible(l, w->op.flags))
            break;
        uint32_t p = l->head;
        l->head = w->next;
        if (l->head == SIM_NONE)
            l->tail = SIM_NONE;
        const rt_net_link *kw = &s->cfg->model.link[sim_contype(s, w->rank, target)];
        sim_pend e = *w;
        sim_pend_give(s, p);
        grant(s, l, e.op.flags, e.op.who, e.op.time, kw->latency_ps);
    }
}

int sim_rma_event(sim *s, uint32_t rank, const rt_event *ev)
{
    sim_rank *rk = &s->ranks[rank];
    uint64_t t = rk->clock;
    switch (ev->kind) {
    case RT_EV_WIN_CREATE:
        barrier(s, rank, ev->comm, RT_COLL_BARRIER, t);
        break;
    case RT_EV_WIN_FREE: {
        uint64_t d = done_of(s, rank, ev->comm, SIM_NONE);
        barrier(s, rank, ev->comm, RT_COLL_BARRIER, d > t ? d : t);
        break;
    }
    case RT_EV_RMA_PUT:
    case RT_EV_RMA_GET:
    case RT_EV_RMA_ATOMIC:
        transfer(s, rank, ev, t);
        break;
    case RT_EV_RMA_COLL_END: { /* fence */
        uint64_t d = done_of(s, rank, ev->comm, SIM_NONE);
        barrier(s, rank, ev->comm, RT_COLL_BARRIER, d > t ? d : t);
        break;
    }
    case RT_EV_RMA_GROUP_SYNC:
        group_sync(s, rank, ev, t);
        break;
    case RT_EV_RMA_LOCK:
        if (ev->peer != RT_PEER_ALL)
            lock(s, rank, ev, t);
        break;
    case RT_EV_RMA_UNLOCK:
        if (ev->peer != RT_PEER_ALL)
            unlock(s, rank, ev, t);
        else
            wait_until(s, rank, done_of(s, rank, ev->comm, SIM_NONE));
        break;
    case RT_EV_RMA_SYNC:
        if (ev->op != RT_SYNC_WIN_SYNC)
            wait_until(s, rank,
                       done_of(s, rank, ev->comm,
                               ev->peer == RT_PEER_ALL ? SIM_NONE : (uint32_t)ev->peer));
        break;
    default:
        break;
    }
    return s->rc;
}
