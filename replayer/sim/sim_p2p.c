/*
 * Point-to-point in the engine: matching, eager and rendezvous protocols, and the timing of
 * one message under the network model.
 *
 * Matching. A channel is (context, receiver, sender, communicator, tag); sends and receives
 * of one channel pair off in posting order, which is MPI's non-overtaking rule. Receives are
 * matched as recorded: the trace names the source and tag a wildcard receive matched, so it
 * is an ordinary channel. With free wildcard matching (rt_sim_config.free_wildcards) a
 * receive the trace marks as posted with MPI_ANY_SOURCE or MPI_ANY_TAG matches whichever
 * message of its communicator fits first; all point-to-point traffic then goes through one
 * mailbox per (receiver, communicator) holding posted receives and unexpected messages in
 * order, scanned linearly.
 *
 * Timing (docs/replay.md). A rank injects one message at a time (its port). Eager: the
 * message starts when the port is free, occupies it (model injection rule), arrives at
 * start + o + wire; the send is done when the port frees, the receive at max(arrival,
 * posted) + o. Rendezvous: a request reaches the receiver o + L after the send is posted;
 * once the receive is posted too, a reply (L) clears the sender, whose port then injects the
 * data (an engine event at that time, so ports are taken in time order); both sides are
 * done when the data is in (the receiver o later). With yielding time sharing the request waits,
 * where the receiver holds no core, until it gets one (sim_share.c). Eager timing is computed when
 * the send is posted and the receive's when the two sides match: eager messages cost no engine
 * events.
 */
#include <stdlib.h>
#include <string.h>

#include "rt__sim.h"

#define CTX_FREE 7 /* mailbox context (free wildcard matching) */

unsigned sim_contype(const sim *s, uint32_t a, uint32_t b)
{
    if (a == b)
        return RT_CT_LOOP;
    if (s->module[a] != s->module[b])
        return RT_CT_GW;
    return s->node[a] == s->node[b] ? RT_CT_SHM : RT_CT_NET;
}

/* What a message of n bytes over connection type ct costs, computed when n differs from the
 * last message's over that type (collectives send the same sizes over and over, and each
 * computation divides in 128 bits). */
const sim_cost *sim_cost_of(sim *s, unsigned ct, uint64_t n)
{
    sim_cost *c = &s->cost[ct];
    if (c->n != n || !c->valid) {
        const rt_net_model *m = &s->cfg->model;
        const rt_net_link *l = &m->link[ct];
        c->n = n;
        c->valid = 1;
        c->wire = rt_net_wire_ps(m, ct, n, 0);
        c->in = rt_net_xfer_ps(n, l->bandwidth);
        /* LogGP injection: the sender is busy while its bytes leave at the message's rate
         * (eager messages may have their own, eager_bandwidth) */
        c->busy = rt_add_sat(l->overhead_ps, m->injection == RT_NET_INJECT_BYTES
                                                 ? rt_net_xfer_ps(n, rt_net_bandwidth(m, ct, n))
                                                 : c->wire); /* saturated: sim_add fails */
        if (c->busy < l->gap_ps)
            c->busy = l->gap_ps;
        c->arrive = rt_add_sat(l->overhead_ps, c->wire); /* saturated: sim_add fails */
    }
    return c;
}

/* Injects n bytes from src to dst no earlier than t: returns the arrival time and sets
 * *freed to when src's port is free again. */
static uint64_t inject(sim *s, uint32_t src, uint32_t dst, unsigned ct, uint64_t n, uint64_t t,
                       uint64_t *freed)
{
    const rt_net_model *m = &s->cfg->model;
    const sim_cost *c = sim_cost_of(s, ct, n);
    sim_port *ps = &s->ports[src];
    if (s->fast)
        sim_port_booked(s, ps, t);
    uint64_t start = t > ps->inject ? t : ps->inject;
    ps->inject = sim_add(s, start, c->busy);
    *freed = ps->inject;
    uint64_t arrival = sim_add(s, start, c->arrive);
    if (m->contention) {
        /* the receiver takes in one message at a time at its link's bandwidth: its intake,
         * the in ps before arrival, starts once the last one's is over (in may exceed the
         * wire time, eager data moving at another rate: no arrival - in) */
        sim_port *pd = &s->ports[dst];
        uint64_t in = c->in, after = sim_add(s, pd->eject, in);
        if (arrival < after)
            arrival = after;
        pd->eject = arrival;
        if (ct == RT_CT_GW) { /* and a gateway forwards one message at a time */
            uint64_t *g = &s->gw_free[((uint64_t)src + dst) % (m->gateways ? m->gateways : 1)];
            after = sim_add(s, *g, in);
            if (arrival < after)
                arrival = after;
            *g = arrival;
        }
    }
    return arrival;
}

uint32_t sim_pend_take(sim *s)
{
    uint32_t p = RT_POOL_GET(s->pendp, s->pends, next, 1024, sim_realloc_lines);
    if (p == RT_POOL_NONE)
        sim_fail(s, RT_E_NOMEM, "out of memory (pending messages)");
    return p;
}

void sim_pend_give(sim *s, uint32_t p)
{
    RT_POOL_PUT(s->pendp, s->pends, next, p);
}

/* Both sides known: completion times follow. snd is the send (from src), rcv the receive
 * (on dst). Returns when the receive is done if that is known now (eager), else SIM_NEVER. */
static uint64_t match(sim *s, const sim_op *snd, const sim_op *rcv, uint32_t src, uint32_t dst)
{
    const rt_net_link *l = &s->cfg->model.link[snd->ct];
    uint64_t tm = snd->arrival > rcv->time ? snd->arrival : rcv->time;
    if (snd->eager)
        return sim_add(s, tm, l->overhead_ps);
    /* The receiver answers the request once both are there; the data goes out when the
     * answer is back at the sender: an engine event then, so that the sender's port is
     * taken in time order (booking it now would delay sends it starts before that). */
    uint32_t p = sim_pend_take(s);
    if (p == SIM_NONE)
        return SIM_NEVER;
    s->pends[p] =
        (sim_pend){.op = *snd, .rank = src, .peer = dst, .who2 = rcv->who, .wk2 = rcv->wk};
    /* Yielding time sharing: the receiver's MPI answers only on a core (sim_share.c). It holds
     * one now when it posted the receive after the request came in; else an engine event
     * when the request is in looks whether it does. */
    if (s->share_yield && s->share[dst].group != SIM_NONE &&
        (rcv->time < snd->arrival || s->share[dst].cpu != SIM_CPU_ON)) {
        s->pends[p].hs = 1;
        sim_queue_push(s, tm, SIM_H_RNDV, p);
    } else {
        sim_rndv_reply(s, p, tm);
    }
    return SIM_NEVER;
}

void sim_rndv_reply(sim *s, uint32_t p, uint64_t t)
{
    sim_pend *e = &s->pends[p];
    e->hs = 0;
    sim_queue_push(s, sim_add(s, t, s->cfg->model.link[e->op.ct].latency_ps), SIM_H_RNDV, p);
}

/* A match found when posting op (me, its peer): a receive learns its own completion from
 * the return value; the other side, waiting already, is told. */
static uint64_t matched(sim *s, const sim_op *op, const sim_op *waiting, uint32_t me, uint32_t peer)
{
    if (!op->send)
        return match(s, waiting, op, peer, me);
    uint64_t d = match(s, op, waiting, me, peer);
    if (d != SIM_NEVER)
        sim_target_done(s, waiting->wk, waiting->who, d);
    return SIM_NEVER;
}

void sim_rndv_data(sim *s, uint32_t p)
{
    if (s->pends[p].hs) { /* the request is in: is the receiver on a core? */
        sim_share_handshake(s, s->pends[p].peer, p);
        return;
    }
    sim_pend e = s->pends[p];
    sim_pend_give(s, p);
    if (s->fast) /* the sender's port is booked now: one thing less that may book it */
        s->ports[e.rank].busy--;
    const rt_net_link *l = &s->cfg->model.link[e.op.ct];
    uint64_t freed;
    uint64_t arrival = inject(s, e.rank, e.peer, e.op.ct, e.op.bytes, s->now, &freed);
    sim_target_done(s, e.op.wk, e.op.who, arrival > freed ? arrival : freed);
    sim_target_done(s, e.wk2, e.who2, sim_add(s, arrival, l->overhead_ps));
}

static uint64_t chan_k1(uint8_t ctx, uint32_t dst, uint32_t src)
{
    return (uint64_t)ctx << 56 | (uint64_t)dst << 28 | src;
}

/* ---- the channel table -------------------------------------------------------------------
 * Open addressing with linear probing over 64-byte slots, each one cache line holding a
 * channel's key and its first pending operation. Posting an operation is one probe
 * sequence: it finds the channel (and matches its first operation, or queues behind it) or
 * claims a free slot for it. At a million ranks every post lands on a line no other recent
 * post touched, so the point is to touch one line, not three (a map slot, a list entry and
 * the entry's request). The table stays at most half full, so probe sequences are short;
 * deletion shifts later members of a probe run back (no tombstones). */

static size_t home(const sim_chans *t, uint64_t k1, uint64_t k2)
{
    return (size_t)rt_hash_pair(k1, k2) & (t->cap - 1);
}

static void *chan_alloc(size_t bytes)
{
    return sim_realloc_lines(NULL, 0, bytes); /* on cache lines */
}

static const rt_htab_ops chan_ops = {.size = sizeof(sim_chan),
                                     .empty = rt_htab_pair_empty,
                                     .clear = rt_htab_pair_clear,
                                     .hash = rt_htab_pair_hash,
                                     .alloc = chan_alloc,
                                     .release = sim_free_lines};

static sim_chan *chan_add(sim *s, uint64_t k1, uint64_t k2, int *created)
{
    sim_chans *t = &s->chans;
    if (rt_htab_full(t->n, t->cap, 1, 2) && rt_htab_grow(&t->slots, &t->cap, 1024, &chan_ops) < 0) {
        sim_fail(s, RT_E_NOMEM, "out of memory (channels)");
        return NULL;
    }
    size_t mask = t->cap - 1;
    for (size_t i = home(t, k1, k2);; i = (i + 1) & mask) {
        sim_chan *c = &t->slots[i];
        if (c->k1 == k1 && c->k2 == k2) {
            *created = 0;
            return c;
        }
        if (c->k1 == RT_HASH_EMPTY) {
            c->k1 = k1;
            c->k2 = k2;
            c->more = c->more_tail = SIM_NONE;
            t->n++;
            *created = 1;
            return c;
        }
    }
}

static void chan_remove(sim *s, sim_chan *c)
{
    sim_chans *t = &s->chans;
    rt_htab_erase(t->slots, t->cap, (size_t)(c - t->slots), &chan_ops);
    t->n--;
}

/* Takes the channel's first operation: the next one waiting moves up into its slot, or the
 * channel goes when there is none. */
static sim_op chan_pop(sim *s, sim_chan *c)
{
    sim_op first = c->op;
    if (c->more != SIM_NONE) {
        uint32_t p = c->more;
        c->op = s->pends[p].op;
        c->more = s->pends[p].next;
        sim_pend_give(s, p);
    } else {
        chan_remove(s, c);
    }
    return first;
}

void sim_chans_free(sim_chans *t)
{
    sim_free_lines(t->slots, t->cap * sizeof *t->slots);
    memset(t, 0, sizeof *t);
}

/* ---- free wildcard matching: one mailbox per (receiver, communicator) ------------------ */

/* A mailbox list's value: head | tail << 32 (sim_pend indices); the list is deleted when it
 * empties. */
static int mail_push(sim *s, uint64_t k1, uint64_t k2, uint32_t p)
{
    int created;
    uint64_t *v = rt_hmap_put(&s->mail, k1, k2, &created);
    if (!v)
        return sim_fail(s, RT_E_NOMEM, "out of memory (channels)");
    s->pends[p].next = SIM_NONE;
    if (created) {
        *v = p | (uint64_t)p << 32;
    } else {
        uint32_t tail = (uint32_t)(*v >> 32);
        s->pends[tail].next = p;
        *v = (*v & 0xffffffffu) | (uint64_t)p << 32;
    }
    return 0;
}

/* Removes entry p (whose predecessor is prev, or SIM_NONE) from the list at v. */
static void mail_unlink(sim *s, uint64_t k1, uint64_t k2, uint64_t *v, uint32_t prev, uint32_t p)
{
    uint32_t head = (uint32_t)*v, tail = (uint32_t)(*v >> 32);
    uint32_t next = s->pends[p].next;
    if (prev == SIM_NONE)
        head = next;
    else
        s->pends[prev].next = next;
    if (tail == p)
        tail = prev;
    if (head == SIM_NONE)
        rt_hmap_del(&s->mail, k1, k2);
    else
        *v = head | (uint64_t)tail << 32;
}

static int fits(const sim_pend *rcv, const sim_pend *snd)
{
    return (rcv->peer == snd->rank || (rcv->op.flags & RT_RECV_ANY_SOURCE)) &&
           (rcv->tag == snd->tag || (rcv->op.flags & RT_RECV_ANY_TAG));
}

/* Mailbox lists: k2 = comm << 32 | 0 holds posted receives, | 1 unexpected messages. A new
 * entry is matched against the other list in order, else queued. Returns as post() does. */
static uint64_t post_free(sim *s, uint64_t comm, uint32_t tag, uint32_t me, uint32_t peer,
                          const sim_op *op)
{
    int is_send = op->send;
    uint32_t p = sim_pend_take(s);
    if (p == SIM_NONE)
        return SIM_NEVER;
    s->pends[p] = (sim_pend){.op = *op, .rank = me, .peer = peer, .tag = tag};
    const sim_pend *e = &s->pends[p];
    uint64_t k1 = chan_k1(CTX_FREE, is_send ? peer : me, 0);
    uint64_t other = comm << 32 | (is_send ? 0u : 1u);
    uint64_t *v = rt_hmap_get(&s->mail, k1, other);
    uint32_t prev = SIM_NONE;
    for (uint32_t q = v ? (uint32_t)*v : SIM_NONE; q != SIM_NONE; prev = q, q = s->pends[q].next) {
        const sim_pend *o = &s->pends[q];
        if (is_send ? fits(o, e) : fits(e, o)) {
            sim_op w = o->op;
            uint32_t wrank = o->rank;
            mail_unlink(s, k1, other, v, prev, q);
            sim_pend_give(s, q);
            sim_pend_give(s, p);
            return matched(s, op, &w, me, wrank);
        }
    }
    mail_push(s, k1, comm << 32 | (is_send ? 1u : 0u), p);
    return SIM_NEVER;
}

/* ---- channels --------------------------------------------------------------------------- */

/* Queues op (posted by world rank me, to or from peer) in its channel, or matches it with
 * the channel's first operation of the other kind. Returns a receive's completion time when
 * its eager message was there, else SIM_NEVER. */
static uint64_t post(sim *s, uint8_t ctx, uint64_t comm, uint32_t tag, uint32_t me, uint32_t peer,
                     const sim_op *op)
{
    if (ctx == SIM_CTX_P2P && s->cfg->free_wildcards)
        return post_free(s, comm, tag, me, peer, op);
    int created;
    sim_chan *c = chan_add(s, op->send ? chan_k1(ctx, peer, me) : chan_k1(ctx, me, peer),
                           comm << 32 | tag, &created);
    if (!c)
        return SIM_NEVER;
    if (created) {
        c->op = *op;
        return SIM_NEVER;
    }
    if (c->op.send == op->send) { /* the same kind waits already: queue behind it */
        uint32_t p = sim_pend_take(s);
        if (p == SIM_NONE)
            return SIM_NEVER;
        s->pends[p] = (sim_pend){.op = *op, .next = SIM_NONE};
        if (c->more == SIM_NONE)
            c->more = p;
        else
            s->pends[c->more_tail].next = p;
        c->more_tail = p;
        return SIM_NEVER;
    }
    sim_op w = chan_pop(s, c);
    return matched(s, op, &w, me, peer);
}

/* sim_send, where sync forces the rendezvous protocol whatever the size (rt_sim_config
 * sync_sends): the send completes only once its receive is posted. */
static uint64_t send_op(sim *s, uint8_t ctx, uint64_t comm, uint32_t tag, uint32_t src,
                        uint32_t dst, unsigned ct, uint64_t bytes, uint64_t t, uint8_t wk,
                        uint32_t who, int sync)
{
    const rt_net_link *l = &s->cfg->model.link[ct];
    rt_sim_result *res = s->res;
    res->messages++;
    res->bytes += bytes;
    if (ct == RT_CT_GW) {
        res->gw_messages++;
        res->gw_bytes += bytes;
    }
    sim_op op = {.time = t,
                 .bytes = bytes,
                 .who = who,
                 .wk = wk,
                 .send = 1,
                 .eager = !sync && bytes <= l->eager,
                 .ct = (uint8_t)ct};
    uint64_t done = SIM_NEVER;
    if (op.eager)
        op.arrival = inject(s, src, dst, ct, bytes, t, &done);
    else
        op.arrival = sim_add(s, sim_add(s, t, l->overhead_ps), l->latency_ps); /* the request */
    if (!op.eager && s->fast) /* its data will book the port later (sim_fast.c) */
        s->ports[src].busy++;
    post(s, ctx, comm, tag, src, dst, &op);
    return done;
}

uint64_t sim_send(sim *s, uint8_t ctx, uint64_t comm, uint32_t tag, uint32_t src, uint32_t dst,
                  unsigned ct, uint64_t bytes, uint64_t t, uint8_t wk, uint32_t who)
{
    return send_op(s, ctx, comm, tag, src, dst, ct, bytes, t, wk, who, 0);
}

uint64_t sim_recv(sim *s, uint8_t ctx, uint64_t comm, uint32_t tag, uint32_t dst, uint32_t src,
                  uint64_t bytes, uint64_t t, uint8_t flags, uint8_t wk, uint32_t who)
{
    sim_op op = {.time = t,
                 .bytes = bytes,
                 .who = who,
                 .wk = wk,
                 .flags = s->cfg->free_wildcards ? flags : 0};
    return post(s, ctx, comm, tag, dst, src, &op);
}

uint32_t sim_post_send(sim *s, uint8_t ctx, uint64_t comm, uint32_t tag, uint32_t src, uint32_t dst,
                       uint64_t bytes, uint64_t t, int sync)
{
    uint32_t r = sim_req_new(s);
    if (r == SIM_NONE)
        return SIM_NONE;
    uint64_t d = send_op(s, ctx, comm, tag, src, dst, sim_contype(s, src, dst), bytes, t, SIM_T_REQ,
                         r, sync);
    if (d != SIM_NEVER)
        s->reqs[r].done = d; /* nobody waits for r yet */
    return s->rc ? SIM_NONE : r;
}

uint32_t sim_post_recv(sim *s, uint8_t ctx, uint64_t comm, uint32_t tag, uint32_t dst, uint32_t src,
                       uint64_t bytes, uint64_t t, uint8_t flags)
{
    uint32_t r = sim_req_new(s);
    if (r == SIM_NONE)
        return SIM_NONE;
    uint64_t d = sim_recv(s, ctx, comm, tag, dst, src, bytes, t, flags, SIM_T_REQ, r);
    if (d != SIM_NEVER)
        s->reqs[r].done = d;
    return s->rc ? SIM_NONE : r;
}

uint64_t sim_rma_transfer(sim *s, uint32_t origin, uint32_t target, uint64_t to_target,
                          uint64_t from_target, uint64_t t)
{
    unsigned ct = sim_contype(s, origin, target);
    const rt_net_link *l = &s->cfg->model.link[ct];
    rt_sim_result *res = s->res;
    uint64_t freed, done;
    int gw = ct == RT_CT_GW;
    if (to_target || !from_target) { /* put, accumulate: the data goes out */
        done = inject(s, origin, target, ct, to_target, t, &freed);
        res->messages++;
        res->bytes += to_target;
        res->gw_messages += (uint64_t)gw;
        res->gw_bytes += gw ? to_target : 0;
    } else { /* get: a request goes out first */
        done = sim_add(s, sim_add(s, t, l->overhead_ps), l->latency_ps);
    }
    if (from_target) { /* the data comes back (served by the target's network interface) */
        done = sim_add(s, done, rt_net_wire_ps(&s->cfg->model, ct, from_target, 0));
        done = sim_add(s, done, l->overhead_ps);
        res->messages++;
        res->bytes += from_target;
        res->gw_messages += (uint64_t)gw;
        res->gw_bytes += gw ? from_target : 0;
    }
    return done;
}

/* ---- wildcard receives of pending calls ------------------------------------------------
 * A receive that never completed names no source (MPI_ANY_SOURCE) or no tag (MPI_ANY_TAG),
 * so it has no channel. Such a receive is its rank's last operation, so nothing waits for
 * it but that rank: it is kept aside and matched once the run can go no further (the queue
 * is empty), with the earliest unmatched send that fits (by posting time, then source and
 * tag). Every send that fits was posted by then, and a match's times follow from the two
 * sides' posting times alone, so matching late gives the times matching at once would. */

uint32_t sim_post_wild(sim *s, uint32_t rank, const rt_event *ev, uint64_t t)
{
    if (s->cfg->free_wildcards) /* the mailboxes match wildcards anyway */
        return sim_post_recv(s, SIM_CTX_P2P, ev->comm, (uint32_t)ev->tag, rank, (uint32_t)ev->peer,
                             0, t, ev->op);
    if (s->fast) /* matched out of the order of events (sim_fast.c) */
        sim_fast_give_up(s, "a wildcard receive of a pending call");
    uint32_t r = sim_req_new(s);
    if (r == SIM_NONE)
        return SIM_NONE;
    if (RT_VEC_RESERVE(s->wild, s->wild_cap, (uint64_t)s->nwild + 1, 16) < 0) {
        sim_fail(s, RT_E_NOMEM, "out of memory (receives)");
        return SIM_NONE;
    }
    s->wild[s->nwild++] = (sim_wild){.op = {.time = t, .who = r, .wk = SIM_T_REQ},
                                     .rank = rank,
                                     .comm = ev->comm,
                                     .src = sim_recv_any_source(ev) ? SIM_NONE : (uint32_t)ev->peer,
                                     .tag = ev->tag < 0 ? SIM_NONE : (uint32_t)ev->tag};
    return r;
}

/* Whether the unmatched send first in channel c (a P2P one, to the wildcard's rank) fits
 * wildcard receive w, and comes before the best one found so far (*best, SIM_NONE: none). */
static int wild_better(const sim *s, const sim_wild *w, const sim_chan *c, size_t best)
{
    uint32_t src = (uint32_t)c->k1 & 0xfffffffu, comm = (uint32_t)(c->k2 >> 32),
             tag = (uint32_t)c->k2;
    if (!c->op.send || comm != w->comm || (w->src != SIM_NONE && w->src != src) ||
        (w->tag != SIM_NONE && w->tag != tag))
        return 0;
    if (best == SIZE_MAX)
        return 1;
    const sim_chan *b = &s->chans.slots[best];
    if (c->op.time != b->op.time)
        return c->op.time < b->op.time;
    return c->k1 != b->k1 ? (c->k1 & 0xfffffffu) < (b->k1 & 0xfffffffu) : c->k2 < b->k2;
}

uint32_t sim_wild_match(sim *s)
{
    uint32_t matched_n = 0, kept = 0;
    for (uint32_t i = 0; i < s->nwild; i++) {
        sim_wild w = s->wild[i];
        size_t best = SIZE_MAX;
        uint64_t k1 = chan_k1(SIM_CTX_P2P, w.rank, 0);
        for (size_t j = 0; j < s->chans.cap; j++) {
            const sim_chan *c = &s->chans.slots[j];
            if (c->k1 != RT_HASH_EMPTY && (c->k1 & ~(uint64_t)0xfffffffu) == k1 &&
                wild_better(s, &w, c, best))
                best = j;
        }
        if (best == SIZE_MAX) {
            s->wild[kept++] = w;
            continue;
        }
        sim_chan *c = &s->chans.slots[best];
        uint32_t src = (uint32_t)c->k1 & 0xfffffffu;
        sim_op snd = chan_pop(s, c);
        uint64_t d = matched(s, &w.op, &snd, w.rank, src);
        if (d != SIM_NEVER)
            sim_req_done(s, w.op.who, d);
        matched_n++;
    }
    s->nwild = kept;
    return matched_n;
}
static const char *ctx_name(unsigned ctx)
{
    switch (ctx) {
    case SIM_CTX_P2P:
    case CTX_FREE:
        return "message";
    case SIM_CTX_COLL:
        return "collective message";
    case SIM_CTX_PART:
        return "partitioned message";
    case SIM_CTX_WIN:
        return "window synchronisation message";
    case SIM_CTX_POST:
        return "Win_post notice";
    default:
        return "Win_complete notice";
    }
}

/* An unmatched operation for the report; shown in the order of (rank, peer, context,
 * communicator, tag, posting order). */
typedef struct rep_ent {
    uint32_t rank, peer, comm, tag, seq;
    uint8_t ctx, send, eager;
    uint64_t bytes;
} rep_ent;

#define REP_SHOWN 16

static int rep_before(const rep_ent *a, const rep_ent *b)
{
    if (a->rank != b->rank)
        return a->rank < b->rank;
    if (a->peer != b->peer)
        return a->peer < b->peer;
    if (a->ctx != b->ctx)
        return a->ctx < b->ctx;
    if (a->comm != b->comm)
        return a->comm < b->comm;
    if (a->tag != b->tag)
        return a->tag < b->tag;
    return a->seq < b->seq;
}

/* Keeps the REP_SHOWN first entries in order, counts all. */
typedef struct rep_list {
    rep_ent e[REP_SHOWN];
    unsigned n;
    uint64_t sends, recvs;
} rep_list;

static void rep_add(rep_list *l, const rep_ent *e)
{
    if (e->send)
        l->sends++;
    else
        l->recvs++;
    if (l->n == REP_SHOWN && !rep_before(e, &l->e[REP_SHOWN - 1]))
        return;
    unsigned i = l->n < REP_SHOWN ? l->n++ : REP_SHOWN - 1;
    for (; i > 0 && rep_before(e, &l->e[i - 1]); i--)
        l->e[i] = l->e[i - 1];
    l->e[i] = *e;
}

static void rep_op(rep_list *l, const sim_op *op, unsigned ctx, uint32_t me, uint32_t peer,
                   uint32_t comm, uint32_t tag, uint32_t seq)
{
    rep_ent e = {me, peer, comm, tag, seq, (uint8_t)ctx, op->send, op->eager, op->bytes};
    rep_add(l, &e);
}

/* An unmatched receive's line; peer or tag SIM_NONE: any (a wildcard of a pending call). */
static void report_recv(sim *s, const rep_ent *e, const char *where)
{
    char from[32] = "any rank", tag[32] = "any tag";
    if (e->peer != SIM_NONE)
        snprintf(from, sizeof from, "rank %u", (unsigned)e->peer);
    if (e->tag != SIM_NONE)
        snprintf(tag, sizeof tag, "tag %u", (unsigned)e->tag);
    sim_buf_printf(&s->report, "unmatched: rank %u waits for a %s from %s (%s %u, %s)\n",
                   (unsigned)e->rank, ctx_name(e->ctx), from, where, (unsigned)e->comm, tag);
}

/* Lists what is left in the channels: unmatched sends and receives. */
void sim_report_channels(sim *s, int deadlocked)
{
    rep_list l = {.n = 0};
    for (size_t i = 0; i < s->chans.cap; i++) {
        const sim_chan *c = &s->chans.slots[i];
        if (c->k1 == RT_HASH_EMPTY)
            continue;
        uint32_t me, peer;
        unsigned ctx = sim_chan_ends(c, &me, &peer);
        uint32_t comm = (uint32_t)(c->k2 >> 32), tag = (uint32_t)c->k2, seq = 0;
        rep_op(&l, &c->op, ctx, me, peer, comm, tag, seq++);
        for (uint32_t q = c->more; q != SIM_NONE; q = s->pends[q].next)
            rep_op(&l, &s->pends[q].op, ctx, me, peer, comm, tag, seq++);
    }
    for (size_t i = 0; i < s->mail.cap; i++) {
        const rt_hmap_slot *c = &s->mail.slots[i];
        if (c->k1 == RT_HASH_EMPTY)
            continue;
        uint32_t comm = (uint32_t)(c->k2 >> 32), seq = 0;
        for (uint32_t q = (uint32_t)c->v; q != SIM_NONE; q = s->pends[q].next) {
            const sim_pend *e = &s->pends[q];
            rep_op(&l, &e->op, CTX_FREE, e->rank, e->peer, comm, e->tag, seq++);
        }
    }
    for (uint32_t i = 0; i < s->nwild; i++) { /* any source or tag: SIM_NONE */
        const sim_wild *w = &s->wild[i];
        rep_op(&l, &w->op, SIM_CTX_P2P, w->rank, w->src, w->comm, w->tag, i);
    }
    for (unsigned i = 0; i < l.n; i++) {
        const rep_ent *e = &l.e[i];
        const char *where = e->ctx <= SIM_CTX_COLL || e->ctx == CTX_FREE || e->ctx == SIM_CTX_PART
                                ? "communicator"
                                : "window";
        if (e->send)
            sim_buf_printf(&s->report,
                           "unmatched: rank %u sent a %s to rank %u (%s %u, tag %u, %llu "
                           "bytes, %s)%s\n",
                           (unsigned)e->rank, ctx_name(e->ctx), (unsigned)e->peer, where,
                           (unsigned)e->comm, (unsigned)e->tag, (unsigned long long)e->bytes,
                           e->eager ? "eager" : "rendezvous: the sender waits for it",
                           deadlocked ? "" : ", never received");
        else
            report_recv(s, e, where);
    }
    if (l.sends + l.recvs > l.n)
        sim_buf_printf(&s->report, "... %llu unmatched sends and %llu unmatched receives in all\n",
                       (unsigned long long)l.sends, (unsigned long long)l.recvs);
}

/* No static helper that only prefetches: GCC finds such a function pure and drops the calls. */
void sim_post_prefetch(const sim *s, uint8_t ctx, uint64_t comm, uint32_t tag, uint32_t dst,
                       uint32_t src)
{
    const sim_chans *t = &s->chans;
    if (t->cap && (ctx != SIM_CTX_P2P || !s->cfg->free_wildcards)) {
        /* the slot after it too: probes and deletions go on into it */
        size_t i = home(t, chan_k1(ctx, dst, src), comm << 32 | tag);
        __builtin_prefetch(&t->slots[i]);
        __builtin_prefetch(&t->slots[(i + 1) & (t->cap - 1)]);
    }
}
