/*
 * The engine's core: the event loop, requests, and each rank walking its recorded events.
 * rt__sim.h describes the design; this file holds the loop and the per-event rules.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "rt__sim.h"

/* ---- requests -----------------------------------------------------------------------------------
 */

uint32_t sim_req_new(sim *s)
{
    uint32_t r = RT_POOL_GET(s->reqp, s->reqs, next_free, 1024, sim_realloc_lines);
    if (r == RT_POOL_NONE) {
        sim_fail(s, RT_E_NOMEM, "out of memory (requests)");
        return SIM_NONE;
    }
    s->reqs[r] = (sim_req){SIM_NEVER, SIM_NONE, SIM_W_NONE, SIM_NONE};
    return r;
}

void sim_req_free(sim *s, uint32_t r)
{
    RT_POOL_PUT(s->reqp, s->reqs, next_free, r);
    s->reqs[r].wkind = SIM_W_NONE;
}

void sim_rank_wake(sim *s, uint32_t rank, uint64_t t)
{
    sim_rank *rk = &s->ranks[rank];
    if (rk->state != SIM_RANK_BLOCKED)
        return;
    if (t < s->now)
        t = s->now;
    rk->state = SIM_RANK_READY;
    sim_queue_push(s, t, SIM_H_RANK, rank);
}

void sim_req_done(sim *s, uint32_t r, uint64_t t)
{
    sim_req *q = &s->reqs[r];
    q->done = t;
    switch (q->wkind) {
    case SIM_W_RANK: {
        sim_rank *rk = &s->ranks[q->waiter];
        uint32_t rank = q->waiter;
        sim_req_free(s, r);
        if (t > rk->wait_until)
            rk->wait_until = t;
        if (--rk->waiting == 0)
            sim_rank_wake(s, rank, rk->wait_until);
        break;
    }
    case SIM_W_DROP:
        sim_req_free(s, r);
        break;
    default:
        break;
    }
}

void sim_rank_wait(sim *s, uint32_t rank, uint32_t r)
{
    if (r == SIM_NONE)
        return;
    sim_rank *rk = &s->ranks[rank];
    sim_req *q = &s->reqs[r];
    if (q->done != SIM_NEVER) {
        if (q->done > rk->wait_until)
            rk->wait_until = q->done;
        sim_req_free(s, r);
        return;
    }
    q->wkind = SIM_W_RANK;
    q->waiter = rank;
    rk->waiting++;
}

/* A request nobody will wait for: freed as soon as its time is known. */
static void req_drop(sim *s, uint32_t r)
{
    if (r == SIM_NONE)
        return;
    if (s->reqs[r].done != SIM_NEVER)
        sim_req_free(s, r);
    else
        s->reqs[r].wkind = SIM_W_DROP;
}

/* ---- ranks ---------------------------------------------------------------------------------- */

void sim_slot_set(sim *s, uint32_t rank, uint64_t slot, uint32_t r)
{
    if (slot == SIM_NONE)
        req_drop(s, r);
    else
        s->slots[s->ranks[rank].slot_base + slot] = r;
}

static void slot_wait(sim *s, uint32_t rank, uint64_t slot)
{
    uint32_t *p = &s->slots[s->ranks[rank].slot_base + slot];
    sim_rank_wait(s, rank, *p);
    *p = SIM_NONE;
}

/* The COLL_PEER rows of a v or w collective: after its COLL_END, or after the completion of a
 * nonblocking one, whose index the loader left in the NBC_REQUEST's tag (sim_load.c). */
static const rt_event *coll_rows(const sim *s, uint32_t rank, const rt_event *ev, uint32_t *n)
{
    const sim_rank_events *re = &s->t->ranks[rank];
    uint64_t at = ev->kind == RT_EV_COLL_END ? (uint64_t)(ev - re->ev) : (uint32_t)ev->tag;
    uint32_t k = 0;
    while (at + 1 + k < re->n && re->ev[at + 1 + k].kind == RT_EV_COLL_PEER)
        k++;
    *n = k;
    return k ? &re->ev[at + 1] : NULL;
}

static uint32_t coll_of_event(sim *s, uint32_t rank, const rt_event *ev, uint64_t t)
{
    const rt_comm_def *c = rt_defs_comm(s->defs, ev->comm);
    if (c->flags & RT_COMM_IS_INTER) {
        if (s->fast) /* one line per call, in the order of events (sim_fast.c) */
            sim_fast_give_up(s, "notes of ranks");
        sim_buf_printf(&s->notes,
                       "inter-communicator collectives take no time (rank %u, %s "
                       "on communicator %u)\n",
                       (unsigned)rank, rt_event_op_name(ev->kind, ev->op), (unsigned)ev->comm);
        return SIM_NONE;
    }
    uint32_t nrows = 0;
    const rt_event *rows = rt_coll_count_sides(ev->op) ? coll_rows(s, rank, ev, &nrows) : NULL;
    return sim_coll_start(s, rank, SIM_CTX_COLL, ev->comm, c, ev->op, ev->peer, ev->bytes,
                          ev->rbytes, rt_coll_event_esize(ev->esize, ev->resize), rows, nrows, t);
}

/* The output trace's copy of an operation event: communicator ranks, simulated contype. */
static void out_op(sim *s, uint32_t rank, const rt_event *ev)
{
    unsigned k = ev->kind;
    if (rt_event_is_coll(k) || k == SIM_EV_SKIP)
        return; /* collectives appear as their wire messages (sim_coll.c) */
    rt_event o = *ev;
    if (sim_world_peer(ev)) {
        o.contype = (uint8_t)sim_contype(s, rank, (uint32_t)ev->peer);
        o.peer = sim_out_peer(s, ev, (uint32_t)ev->peer);
    }
    if (k == RT_EV_IRECV) {
        const rt_comm_def *c = rt_defs_comm(s->defs, ev->comm);
        int64_t w = c ? rt_defs_peer_world(s->defs, ev) : -RT_E_NOTFOUND;
        if (w >= 0)
            o.contype = (uint8_t)sim_contype(s, rank, (uint32_t)w);
    }
    if (rt_event_kind_mask(k) & RT_FIELD_REQ)
        o.req = ev->req == SIM_NONE ? UINT64_MAX - 1 : ev->req + 1;
    sim_out_event(s, rank, &o, s->ranks[rank].clock);
}

/* 1 when the send of ev is to be synchronous (rt_sim_config sync_sends): every mode but the
 * buffered one, whose completion MPI guarantees, and but the send half of a send-receive,
 * which MPI runs concurrently with its receive (it cannot deadlock for want of buffering). A
 * persistent send started by MPI_Start counts as standard: the trace does not say which mode it was
 * made with. */
static int send_sync(const sim *s, const rt_event *ev)
{
    switch (ev->call) {
    case RT_FN_Bsend:
    case RT_FN_Ibsend:
    case RT_FN_Bsend_c:
    case RT_FN_Ibsend_c:
    case RT_FN_Sendrecv:
    case RT_FN_Sendrecv_replace:
    case RT_FN_Isendrecv:
    case RT_FN_Isendrecv_replace:
    case RT_FN_Sendrecv_c:
    case RT_FN_Sendrecv_replace_c:
    case RT_FN_Isendrecv_c:
    case RT_FN_Isendrecv_replace_c:
        return 0;
    default:
        return s->cfg->sync_sends;
    }
}

/* One operation event of a call (anything but ENTER and LEAVE). */
static void rank_op(sim *s, uint32_t rank, const rt_event *ev)
{
    sim_rank *rk = &s->ranks[rank];
    if (s->out)
        out_op(s, rank, ev);
    uint64_t t = rk->clock;
    uint32_t r;
    switch (ev->kind) {
    case RT_EV_SEND:
        r = sim_post_send(s, SIM_CTX_P2P, ev->comm, (uint32_t)ev->tag, rank, (uint32_t)ev->peer,
                          ev->bytes, t, send_sync(s, ev));
        sim_rank_wait(s, rank, r);
        break;
    case RT_EV_ISEND:
        r = sim_post_send(s, sim_p2p_ctx(ev), ev->comm, (uint32_t)ev->tag, rank, (uint32_t)ev->peer,
                          ev->bytes, t, send_sync(s, ev));
        sim_slot_set(s, rank, ev->req, r);
        break;
    case RT_EV_RECV:
        r = sim_recv_wild(ev) ? sim_post_wild(s, rank, ev, t)
                              : sim_post_recv(s, SIM_CTX_P2P, ev->comm, (uint32_t)ev->tag, rank,
                                              (uint32_t)ev->peer, ev->bytes, t, ev->op);
        sim_rank_wait(s, rank, r);
        break;
    case RT_EV_IRECV_REQUEST:
        r = sim_recv_wild(ev) ? sim_post_wild(s, rank, ev, t)
                              : sim_post_recv(s, sim_p2p_ctx(ev), ev->comm, (uint32_t)ev->tag, rank,
                                              (uint32_t)ev->peer, ev->bytes, t, ev->op);
        sim_slot_set(s, rank, ev->req, r);
        break;
    case RT_EV_ISEND_COMPLETE:
    case RT_EV_IRECV:
    case RT_EV_NBC_COMPLETE:
    case RT_EV_RMA_OP_COMPLETE:
        slot_wait(s, rank, ev->req);
        break;
    case RT_EV_COLL_END:
        sim_rank_wait(s, rank, coll_of_event(s, rank, ev, t));
        break;
    case RT_EV_NBC_REQUEST:
        sim_slot_set(s, rank, ev->req, coll_of_event(s, rank, ev, t));
        break;
    case RT_EV_COLL_BEGIN:
    case RT_EV_RMA_COLL_BEGIN: /* the END event does the work */
        break;
    case RT_EV_PENDING: /* a call that never returned: what follows is what it waits for */
        if (rk->in_call == 1)
            rk->in_call = SIM_IN_PENDING;
        break;
    default:
        if (!rt_event_is_rma(ev->kind)) /* REQUEST_CANCELLED: nothing to do */
            break;
        if (s->fast) { /* lock queues and the like go by the order of events */
            sim_fast_give_up(s, "RMA");
            break;
        }
        sim_rma_event(s, rank, ev);
        break;
    }
}

/* The operation a call's cost ([calls]) is charged for: its first one (ev is the call's ENTER
 * or, for an operation outside any recorded call, the operation itself); NULL when none. */
static const rt_event *call_op(const rt_event *ev, const rt_event *end)
{
    if (ev->kind == RT_EV_ENTER)
        ev++;
    for (; ev < end && ev->kind != RT_EV_LEAVE && ev->kind != RT_EV_ENTER; ev++)
        if (ev->kind != RT_EV_COLL_BEGIN && ev->kind != RT_EV_RMA_COLL_BEGIN &&
            ev->kind != SIM_EV_SKIP)
            return ev;
    return NULL;
}

/* A call's own CPU cost, for its first operation's bytes: the cost of the algorithm the engine
 * runs for a blocking collective when the model has one ([calls] MPI_Allreduce/ring), else
 * the function's. */
static uint64_t call_cost(sim *s, uint32_t rank, const rt_event *ev, const rt_event *end)
{
    const rt_event *op = call_op(ev, end);
    uint64_t n = op ? (op->bytes ? op->bytes : op->rbytes) : 0, ps;
    if (s->alg_costs && op && op->kind == RT_EV_COLL_END &&
        rt_net_alg_call_ps(&s->cfg->model, op->op, sim_coll_alg(s, rank, op), n, &ps))
        return ps;
    return rt_net_call_ps(&s->cfg->model, ev->call, n);
}

/* The recorded computation since the rank's last call (scaled), counted as its computation. */
static inline uint64_t call_compute(sim *s, sim_rank *rk, const rt_event *ev)
{
    if (ev->time <= rk->last_rec)
        return 0;
    /* fits: the loader checked the trace's span. Recorded on a CPU shared with ranks that
     * yielded theirs while they waited: the CPU the rank had in the gap (sim_share.c) */
    uint64_t d = s->share_recorded && s->share_yield
                     ? sim_share_recorded_cpu(s, (uint32_t)(rk - s->ranks), rk->last_rec, ev->time)
                     : (ev->time - rk->last_rec) * 1000;
    uint64_t scale = s->cfg->compute_scale_ppm;
    if (scale != 1000000)
        d = sim_time(s, ((rt_u128)d * scale + 500000) / 1000000);
    /* recorded on a CPU shared in fixed turns (the trace's hosts): the rank computed in its
     * share of the gap only, which the turns stretch again */
    if (s->share_recorded && s->share[rk - s->ranks].turns > 1)
        d = (d + s->share[rk - s->ranks].turns - 1) / s->share[rk - s->ranks].turns;
    /* no more than the clock moves on, but for a d that failed the run (then SIM_TIME_MAX) */
    rk->compute_ps = scale == 1000000 ? rk->compute_ps + d : rt_add_sat(rk->compute_ps, d);
    return d;
}

/* The rest of a call's start with yielding time sharing: the computation, then the call's own
 * CPU cost, each on a core of the rank's group only (sim_share.c). 0 when the rank stopped at
 * its slice's end first (it comes back to the same event and goes on from there), else 1. */
static int call_resume(sim *s, sim_rank *rk, sim_share_rank *sr)
{
    uint32_t rank = (uint32_t)(rk - s->ranks);
    if (sr->phase == 1) {
        if (!sim_share_burn(s, rank, &sr->left[1]))
            return 0;
        rk->call_start = rk->clock;
        sr->phase = 2;
    }
    if (!sim_share_burn(s, rank, &sr->left[2]))
        return 0;
    sr->phase = 0;
    rk->wait_until = rk->clock;
    rk->waiting = 0;
    return 1;
}

/* call_enter with yielding time sharing (call_resume). */
static int call_enter_yield(sim *s, sim_rank *rk, const rt_event *ev, const rt_event *end)
{
    sim_share_rank *sr = &s->share[rk - s->ranks];
    if (!sr->phase) {
        sr->left[1] = call_compute(s, rk, ev);
        rk->last_rec = ev->time;
        rk->call = ev->call;
        sr->left[2] = s->call_costs ? call_cost(s, (uint32_t)(rk - s->ranks), ev, end) : 0;
        sr->phase = 1;
    }
    return call_resume(s, rk, sr);
}

/* A call starts: the recorded computation since the last call (scaled), then the call's
 * own CPU cost, which counts as time in MPI. With time sharing both take the rank's turns
 * only (sim_share.c). 1 when the call has started; 0 when, yielding, the rank's slice ended
 * first (call_enter_yield). */
static int call_enter(sim *s, sim_rank *rk, const rt_event *ev, const rt_event *end)
{
    if (__builtin_expect(s->share_yield, 0))
        return call_enter_yield(s, rk, ev, end);
    uint64_t d = call_compute(s, rk, ev);
    uint32_t rank = s->share ? (uint32_t)(rk - s->ranks) : 0;
    rk->clock = s->share ? sim_share_advance(s, rank, rk->clock, d) : sim_add(s, rk->clock, d);
    rk->last_rec = ev->time;
    rk->call = ev->call;
    rk->call_start = rk->clock;
    if (s->call_costs) {
        uint64_t c = call_cost(s, (uint32_t)(rk - s->ranks), ev, end);
        rk->clock =
            s->share && c ? sim_share_advance(s, rank, rk->clock, c) : sim_add(s, rk->clock, c);
    }
    rk->wait_until = rk->clock;
    rk->waiting = 0;
    return 1;
}

/* A call ends when what it waits for is done; with time sharing, in the rank's next turn. */
static void call_leave(sim *s, sim_rank *rk, const rt_event *ev)
{
    if (rk->wait_until > rk->clock)
        rk->clock = rk->wait_until;
    if (s->share)
        rk->clock = sim_share_run_from(s, (uint32_t)(rk - s->ranks), rk->clock);
    rk->mpi_ps += rk->clock - rk->call_start; /* the calls' spans: no more than the clock */
    rk->last_rec = ev->time;
    rk->in_call = 0;
}

/* ---- prefetching ------------------------------------------------------------------------ */

/* Thousands of ranks often have events at one time (a collective round, a barrier's end),
 * and each such event touches another rank's state: without help every one of them waits
 * for main memory. The queue knows which events come next, so memory they will touch is
 * loaded while the engine works on the first. Three stages, each reading what the stage
 * before loaded: the rank or collective (AHEAD events ahead), then its next trace event or
 * steps (AHEAD_MID), then the channels its operations will use (AHEAD_NEAR). The events
 * the cursor passed are remembered in a ring, so each is found once.
 * With fewer than PREFETCH_RANKS ranks the engine's state (about a kilobyte a rank) stays
 * in a core's caches and looking ahead only costs instructions: measured on the synthetic
 * halo + allreduce traces, it is 10 % slower at 64 and 1024 ranks and 7 % at 4096, but 16 %
 * faster at 8192 and 30 % at 16384 (and a factor at a million). */
enum { AHEAD = 16, AHEAD_MID = 8, AHEAD_NEAR = 3, PREFETCH_RANKS = 6144 };

static void prefetch_rank_op(const sim *s, uint32_t rank, const rt_event *ev)
{
    unsigned k = ev->kind;
    if (k == RT_EV_SEND || k == RT_EV_ISEND) {
        sim_post_prefetch(s, sim_p2p_ctx(ev), ev->comm, (uint32_t)ev->tag, (uint32_t)ev->peer,
                          rank);
        __builtin_prefetch(&s->node[ev->peer]);
        __builtin_prefetch(&s->module[ev->peer]);
    } else if (k == RT_EV_RECV || k == RT_EV_IRECV_REQUEST) {
        sim_post_prefetch(s, sim_p2p_ctx(ev), ev->comm, (uint32_t)ev->tag, rank,
                          (uint32_t)ev->peer);
    }
}

static void prefetch_ahead(sim *s)
{
    uint32_t e;
    if (sim_queue_ahead(&s->q, AHEAD, &e)) {
        uint32_t i = e & SIM_QIDX_MASK;
        switch (e >> 30) {
        case SIM_H_RANK:
            __builtin_prefetch(&s->ranks[i]);
            __builtin_prefetch(&s->t->ranks[i]);
            break;
        case SIM_H_COLL:
            __builtin_prefetch(&s->colls[i]);
            break;
        default:
            __builtin_prefetch(&s->pends[i]);
            break;
        }
    } else {
        e = SIM_NONE;
    }
    unsigned at = s->ahead_at; /* kept below SIM_AHEAD_RING: a counter would wrap */
    s->ahead_at = (at + 1) & (SIM_AHEAD_RING - 1);
    s->ahead_ring[at] = e;
    e = s->ahead_ring[(at + SIM_AHEAD_RING - (AHEAD - AHEAD_MID)) & (SIM_AHEAD_RING - 1)];
    if (e != SIM_NONE) {
        uint32_t i = e & SIM_QIDX_MASK;
        if (e >> 30 == SIM_H_RANK) {
            const sim_rank_events *re = &s->t->ranks[i];
            uint32_t pc = s->ranks[i].pc;
            if (pc < re->n)
                __builtin_prefetch(&re->ev[pc]);
        } else if (e >> 30 == SIM_H_COLL) {
            sim_coll_prefetch(s, i, 0);
        }
    }
    e = s->ahead_ring[(at + SIM_AHEAD_RING - (AHEAD - AHEAD_NEAR)) & (SIM_AHEAD_RING - 1)];
    if (e != SIM_NONE) {
        uint32_t i = e & SIM_QIDX_MASK;
        if (e >> 30 == SIM_H_RANK) {
            const sim_rank_events *re = &s->t->ranks[i];
            uint32_t pc = s->ranks[i].pc;
            if (pc < re->n && re->ev[pc].kind == RT_EV_ENTER)
                pc++;
            if (pc < re->n)
                prefetch_rank_op(s, i, &re->ev[pc]);
        } else if (e >> 30 == SIM_H_COLL) {
            sim_coll_prefetch(s, i, 1);
        }
    }
}

/* 1 when rank, its clock past the next engine event, must let that event go first. In fast
 * mode a rank whose port nothing else can book (sim_port.busy 0) runs on instead: what it
 * posts early is matched by posting times, not by when it is done, and its port sees its
 * own bookings in order (sim_fast.c says why the results stay the same). */
static int must_yield(const sim *s, uint32_t rank)
{
    return s->ranks[rank].clock > sim_queue_first(&s->q) && !(s->fast && !s->ports[rank].busy);
}

/* Yielding time sharing: a call that waits for a completion whose time is known already gives
 * its core up until then (sim_share.c). 1 when it did: the rank comes back at the completion
 * and takes a core again before it leaves the call. Called when s->share_yield is set. */
static int wait_yield(sim *s, uint32_t rank)
{
    sim_rank *rk = &s->ranks[rank];
    if (rk->wait_until <= rk->clock || s->share[rank].cpu != SIM_CPU_ON)
        return 0;
    sim_share_release(s, rank);
    sim_queue_push(s, rk->wait_until, SIM_H_RANK, rank);
    return 1;
}

/* Runs rank from its clock until it blocks, finishes, or passes the next engine event. */
static void rank_walk(sim *s, uint32_t rank)
{
    sim_rank *rk = &s->ranks[rank];
    const sim_rank_events *re = &s->t->ranks[rank];
    s->now = rk->clock;
    if (rk->in_call == 2 && !rk->waiting) { /* woken inside an implicit call */
        call_leave(s, rk, &re->ev[rk->pc - 1]);
        s->res->events++;
    }
    while (rk->pc < re->n) {
        if (s->stop || s->rc)
            return;
        const rt_event *ev = &re->ev[rk->pc];
        /* the rank's next events: ranks take turns, and the hardware's own prefetching loses
         * track of hundreds of streams (at 256 ranks, most of this loop's time was the wait
         * for ev->kind; docs/benchmarks.md) */
        __builtin_prefetch((const void *)((uintptr_t)ev + 6 * sizeof *ev)); /* never faults */
        if (ev->kind == RT_EV_ENTER) {
            if (rk->waiting) { /* the call before never left (a trace missing its LEAVE): it
                                * ends when what it waits for is done, as its LEAVE would;
                                * call_enter must not drop the count (it wrapped below 0) */
                rk->state = SIM_RANK_BLOCKED;
                return;
            }
            if (!call_enter(s, rk, ev, re->ev + re->n))
                return; /* its slice ended first (yielding time sharing) */
            rk->in_call = 1;
            if (s->out)
                sim_out_event(s, rank, ev, rk->call_start); /* before its [calls] cost */
            rk->pc++;
            s->res->events++;
            if (must_yield(s, rank)) {
                sim_queue_push(s, rk->clock, SIM_H_RANK, rank);
                return;
            }
            s->now = rk->clock;
        } else if (ev->kind == RT_EV_LEAVE) {
            if (rk->waiting) {
                rk->state = SIM_RANK_BLOCKED;
                return;
            }
            if (s->share_yield && wait_yield(s, rank))
                return;
            call_leave(s, rk, ev);
            if (s->out)
                sim_out_event(s, rank, ev, rk->clock);
            rk->pc++;
            s->res->events++;
        } else if (ev->kind == RT_EV_COLL_PEER) { /* read with its collective (coll_rows) */
            rk->pc++;
            s->res->events++;
        } else {
            int implicit = !rk->in_call;
            if (implicit) { /* an operation outside any recorded call: a call of its own */
                if (!call_enter(s, rk, ev, re->ev + re->n))
                    return;
                rk->in_call = 2;
                if (must_yield(s, rank)) {
                    rk->in_call = 3; /* entered, operation not yet done */
                    sim_queue_push(s, rk->clock, SIM_H_RANK, rank);
                    return;
                }
                s->now = rk->clock;
            } else if (rk->in_call == 3) {
                rk->in_call = 2;
                implicit = 1;
            }
            if (ev->kind != SIM_EV_SKIP)
                rank_op(s, rank, ev);
            rk->pc++;
            if (implicit) {
                if (rk->waiting) {
                    rk->state = SIM_RANK_BLOCKED;
                    return;
                }
                if (s->share_yield && wait_yield(s, rank))
                    return;
                call_leave(s, rk, ev);
            }
            s->res->events++;
        }
    }
    if (s->stop || s->rc) /* its last operation ended the replay (a mismatch) */
        return;
    if (rk->in_call == SIM_IN_PENDING) {
        /* the pending call ends when what it waits for is done, as its LEAVE would; one
         * that waits for nothing the trace describes never ends */
        if (rk->waiting || !sim_pending_waits(re)) {
            rk->state = SIM_RANK_BLOCKED;
            return;
        }
        if (s->share_yield && wait_yield(s, rank))
            return;
        call_leave(s, rk, &re->ev[re->n - 1]);
    }
    rk->state = SIM_RANK_DONE;
    rt_sim_rank *out = &s->res->ranks[rank];
    out->end_ps = rk->clock;
    out->mpi_ps = rk->mpi_ps;
    out->compute_ps = rk->compute_ps;
}

/* rank_walk; with yielding time sharing on a core of the rank's group only, which it gives up
 * when it blocks or is done (sim_share.c). */
static void rank_run(sim *s, uint32_t rank)
{
    int yield = __builtin_expect(s->share_yield, 0);
    if (yield && !sim_share_take(s, rank))
        return;         /* in its group's run queue */
    rank_walk(s, rank); /* one call: inlined */
    if (yield && s->ranks[rank].state != SIM_RANK_READY)
        sim_share_release(s, rank);
}

/* ---- the run -------------------------------------------------------------------------------- */

void rt_sim_config_default(rt_sim_config *c)
{
    memset(c, 0, sizeof *c);
    rt_net_model_default(&c->model);
    c->compute_scale_ppm = 1000000;
    for (unsigned i = 0; i < RT_COLL_COUNT; i++)
        c->alg[i] = RT_ALG_MPICH;
}

static char *buf_take(sim_buf *b)
{
    char *p = b->s;
    b->s = NULL;
    b->len = b->cap = 0;
    return p;
}

static void sim_free(sim *s)
{
    sim_free_lines(s->ranks, (size_t)s->nranks * sizeof *s->ranks);
    sim_share_free(s);
    sim_free_lines(s->ports, (size_t)s->nranks * sizeof *s->ports);
    sim_free_lines(s->slots, s->nslots * sizeof *s->slots);
    sim_queue_free(&s->q);
    sim_free_lines(s->reqs, (size_t)s->reqp.room * sizeof *s->reqs);
    sim_free_lines(s->pends, (size_t)s->pendp.room * sizeof *s->pends);
    sim_coll_free_all(s);
    sim_out_free(s);
    sim_chans_free(&s->chans);
    rt_hmap_free(&s->mail);
    rt_hmap_free(&s->collseq);
    rt_hmap_free(&s->collchk);
    rt_hmap_free(&s->rma_done);
    rt_hmap_free(&s->locks);
    for (size_t i = 0; i < s->members.cap; i++)
        if (s->members.slots[i].k1 != RT_HASH_EMPTY)
            free((void *)(uintptr_t)s->members.slots[i].v);
    rt_hmap_free(&s->members);
    sim_fast_free(s);
    free(s->gw_free);
    free(s->lockv);
    free(s->wild);
    free(s->report.s);
    free(s->notes.s);
    sim_lines_huge(1);
}

/* The engine for one run over t: its arrays allocated and its queue empty. 0, or a
 * negative code with err set (s then freed). */
static int sim_setup(sim *s, const rt_sim_trace *t, const rt_sim_config *c, rt_sim_result *res,
                     rt_err *err, int fast)
{
    memset(s, 0, sizeof *s);
    s->t = t;
    s->defs = &t->defs;
    s->cfg = c;
    for (unsigned fn = 0; fn < RT_FN_COUNT; fn++)
        s->call_costs |= c->model.call[fn].fixed_ps || c->model.call[fn].bandwidth;
    for (unsigned op = 0; op < RT_COLL_COUNT; op++)
        for (unsigned alg = 0; alg < RT_ALG_COUNT; alg++)
            s->alg_costs |= c->model.alg_set[op][alg];
    s->call_costs |= s->alg_costs;
    s->err = err;
    s->res = res;
    sim_queue_init(&s->q);
    memset(s->ahead_ring, 0xff, sizeof s->ahead_ring);
    s->reduce_ps = rt_net_reduce_ps(&c->model, 0, 0); /* for reduce_n and reduce_e 0 */
    s->reduce_elems = c->model.reduce_element_ps != 0;
    s->nranks = t->defs.nranks;
    s->node = c->node ? c->node : t->defs.node;
    s->module = c->module ? c->module : t->defs.module;
    s->reqp = s->pendp = s->collp = s->finstp = s->fmsgp = (rt_pool)RT_POOL_INIT;
    s->fast = fast;
    sim_lines_huge(!fast);
    s->evsyn = UINT32_MAX;
    res->nranks = s->nranks;
    res->ranks = calloc(s->nranks ? s->nranks : 1, sizeof *res->ranks);
    s->ranks = sim_realloc_lines(NULL, 0, (size_t)s->nranks * sizeof *s->ranks);
    s->ports = sim_realloc_lines(NULL, 0, (size_t)s->nranks * sizeof *s->ports);
    /* a gw message between a and b waits for gateway (a + b) mod gateways: no index past
     * 2 nranks - 2 is used, whatever the model says */
    uint64_t gws = c->model.gateways ? c->model.gateways : 1;
    if (gws > 2 * (uint64_t)s->nranks)
        gws = s->nranks ? 2 * (uint64_t)s->nranks : 1;
    s->gw_free = calloc(gws, sizeof *s->gw_free);
    uint64_t nslots = 0;
    for (uint32_t r = 0; r < s->nranks; r++)
        nslots += t->ranks[r].nslots;
    s->nslots = nslots ? nslots : 1;
    s->slots = sim_realloc_lines(NULL, 0, s->nslots * sizeof *s->slots);
    if (!res->ranks || !s->ranks || !s->ports || !s->slots || !s->gw_free) {
        sim_free(s);
        return rt_err_set(err, RT_E_NOMEM, "out of memory (%u ranks)", (unsigned)s->nranks);
    }
    if (sim_share_init(s) < 0) {
        int rc = s->rc;
        sim_free(s);
        return rc;
    }
    return 0;
}

/* Every rank's request slots (none posted) and its first turn in the queue. */
static void ranks_start(sim *s)
{
    const rt_sim_trace *t = s->t;
    memset(s->slots, 0xff, s->nslots * sizeof *s->slots);
    uint64_t nslots = 0;
    for (uint32_t r = 0; r < s->nranks; r++) {
        sim_rank *rk = &s->ranks[r];
        const sim_rank_events *re = &t->ranks[r];
        rk->slot_base = (uint32_t)nslots;
        nslots += re->nslots;
        if (!re->n) {
            rk->state = SIM_RANK_DONE;
            continue;
        }
        /* every rank starts when it recorded its first event, relative to the earliest (in
         * picoseconds: the loader checked that the trace's span fits) */
        rk->last_rec = re->ev[0].time;
        rk->clock = (re->ev[0].time - t->t_first) * 1000;
        sim_queue_push(s, rk->clock, SIM_H_RANK, r);
    }
}

/* One engine event, popped at time: a rank's turn, a collective's next step, or the data of
 * a rendezvous message. */
static inline void event_dispatch(sim *s, uint64_t time, uint8_t kind, uint32_t idx)
{
    s->now = time;
    if (kind == SIM_H_RANK) {
        sim_rank *rk = &s->ranks[idx];
        if (time > rk->clock)
            rk->clock = time;
        rank_run(s, idx);
    } else if (kind == SIM_H_COLL) {
        sim_coll_advance(s, idx);
    } else {
        sim_rndv_data(s, idx);
    }
}

/* The event loop: engine events in the order of (time, sequence number) until none is
 * left, a mismatch stops the replay or an error ends it. */
static void events_run(sim *s, rt_sim_result *res)
{
    int prefetch = s->nranks >= PREFETCH_RANKS;
    while (s->q.n && !s->stop && !s->rc) {
        uint64_t time;
        uint8_t kind;
        uint32_t idx;
        sim_queue_pop(&s->q, &time, &kind, &idx);
        if (prefetch)
            prefetch_ahead(s);
        res->sim_events++;
        if (++s->evid >= s->evsyn && s->fast) /* event numbers must stay distinct */
            sim_fast_give_up(s, "event numbers");
        event_dispatch(s, time, kind, idx);
    }
}

/* 1 when every rank came to its end with no error and no mismatch. */
static int all_done(const sim *s)
{
    int done = !s->rc && !s->stop;
    for (uint32_t r = 0; r < s->nranks && done; r++)
        done = s->ranks[r].state == SIM_RANK_DONE;
    return done;
}

/* A run in fast mode given up: nothing of it is kept, and it is done again without. */
static int fast_again(sim *s, rt_sim_result *res, int *again)
{
    sim_free(s);
    rt_sim_result_free(res);
    *again = 1;
    return 0;
}

/* The totals: whether the run completed, the ranks that did not finish as far as they came,
 * the time in MPI, the run time and its critical rank. */
static void results_sum(const sim *s, rt_sim_result *res)
{
    res->completed = !s->stop;
    for (uint32_t r = 0; r < s->nranks; r++) {
        const sim_rank *rk = &s->ranks[r];
        if (rk->state != SIM_RANK_DONE) {
            res->completed = 0;
            res->ranks[r].end_ps = rk->clock;
            res->ranks[r].mpi_ps = rk->mpi_ps;
            res->ranks[r].compute_ps = rk->compute_ps;
        }
        res->mpi_ps += res->ranks[r].mpi_ps;
        if (res->ranks[r].end_ps > res->time_ps) {
            res->time_ps = res->ranks[r].end_ps;
            res->critical_rank = r;
        }
    }
}

/* The end of a run: why ranks did not finish, the channels' report, the output trace. 0, or
 * a negative code when writing the output failed. */
static int run_report(sim *s, const rt_sim_result *res)
{
    if (!res->completed)
        sim_hang_report(s);
    else
        sim_report_channels(s, 0);
    if (s->out) {
        if (res->completed && !s->stop)
            sim_out_write(s);
        else
            sim_buf_printf(&s->report, "no output trace written: the replay did not complete\n");
    }
    return s->rc;
}

/* One replay; fast: in fast mode (sim_fast.c), which may give up: then *again = 1, res is
 * freed and the run must be done again without it. 0, or a negative code with err set. */
static int run(const rt_sim_trace *t, const rt_sim_config *c, rt_sim_result *res, rt_err *err,
               int fast, int *again)
{
    *again = 0;
    memset(res, 0, sizeof *res);
    sim s_, *s = &s_;
    int rc = sim_setup(s, t, c, res, err, fast);
    if (rc < 0)
        return rc;
    if (s->share && fast) /* turns make every rank's times depend on the order of events */
        return fast_again(s, res, again);
    ranks_start(s);
    sim_out_init(s);
    events_run(s, res);
    /* wildcard receives of pending calls match once nothing else can happen (sim_p2p.c) */
    while (s->nwild && !s->stop && !s->rc && sim_wild_match(s))
        events_run(s, res);
    if (s->fast && !all_done(s)) /* anything but a complete run is done again (sim_fast.c) */
        return fast_again(s, res, again);
    if (!s->rc) {
        results_sum(s, res);
        if (!run_report(s, res)) {
            res->report = buf_take(&s->report);
            res->notes = buf_take(&s->notes);
        }
    }
    rc = s->rc;
    sim_free(s);
    return rc;
}

int rt_sim_run(const rt_sim_trace *t, const rt_sim_config *c, rt_sim_result *res, rt_err *err)
{
    /* the fast path never applies with these (sim_fast.c) */
    int fast = !c->no_fast_coll && !c->model.contention && !c->free_wildcards && !c->out_trace;
    int again = 0;
    if (fast) {
        int rc = run(t, c, res, err, 1, &again);
        if (rc < 0 || !again)
            return rc;
    }
    return run(t, c, res, err, 0, &again);
}

void rt_sim_result_free(rt_sim_result *res)
{
    free(res->ranks);
    free(res->report);
    free(res->notes);
    memset(res, 0, sizeof *res);
}
