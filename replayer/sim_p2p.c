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
 * done when the data is in (the receiver o later). Eager timing is computed when the send
 * is posted and the receive's when the two sides match: eager messages cost no engine events.
 */
#include <stdlib.h>

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

/* Injects n bytes from src to dst no earlier than t: returns the arrival time and sets
 * *freed to when src's port is free again. */
static uint64_t inject(sim *s, uint32_t src, uint32_t dst, unsigned ct, uint64_t n, uint64_t t,
                       uint64_t *freed)
{
    const rt_net_model *m = &s->cfg->model;
    const rt_net_link *l = &m->link[ct];
    sim_rank *rs = &s->ranks[src];
    uint64_t start = t > rs->port_free ? t : rs->port_free;
    uint64_t wire = rt_net_wire_ps(m, ct, n, 0);
    uint64_t busy = l->overhead_ps + (m->injection == RT_NET_INJECT_BYTES
                                          ? rt_net_xfer_ps(n, rt_net_bandwidth(m, ct, n))
                                          : wire);
    if (busy < l->gap_ps)
        busy = l->gap_ps;
    rs->port_free = start + busy;
    *freed = rs->port_free;
    uint64_t arrival = start + l->overhead_ps + wire;
    if (m->contention) {
        /* the receiver takes in one message at a time at its link's bandwidth */
        sim_rank *rd = &s->ranks[dst];
        uint64_t in = rt_net_xfer_ps(n, l->bandwidth);
        if (arrival - in < rd->eject_free)
            arrival = rd->eject_free + in;
        rd->eject_free = arrival;
        if (ct == RT_CT_GW) { /* and a gateway forwards one message at a time */
            uint64_t *g = &s->gw_free[(src + dst) % (m->gateways ? m->gateways : 1)];
            if (arrival - in < *g)
                arrival = *g + in;
            *g = arrival;
        }
    }
    return arrival;
}

uint32_t sim_pend_take(sim *s)
{
    uint32_t p;
    if (s->pend_free != SIM_NONE) {
        p = s->pend_free;
        s->pend_free = s->pends[p].next;
        return p;
    }
    if (s->npends == s->pends_cap) {
        uint32_t cap = s->pends_cap ? s->pends_cap * 2 : 1024;
        sim_pend *q = realloc(s->pends, (size_t)cap * sizeof *q);
        if (!q) {
            sim_fail(s, RT_E_NOMEM, "out of memory (pending messages)");
            return SIM_NONE;
        }
        s->pends = q;
        s->pends_cap = cap;
    }
    return s->npends++;
}

void sim_pend_give(sim *s, uint32_t p)
{
    s->pends[p].next = s->pend_free;
    s->pend_free = p;
}

/* Both sides known: completion times follow. snd is the send's entry, rcv the receive's. */
static void match(sim *s, const sim_pend *snd, const sim_pend *rcv)
{
    const rt_net_link *l = &s->cfg->model.link[snd->ct];
    if (snd->eager) {
        uint64_t at = snd->arrival > rcv->time ? snd->arrival : rcv->time;
        sim_req_done(s, rcv->req, at + l->overhead_ps);
        return;
    }
    /* The receiver answers the request once both are there; the data goes out when the
     * answer is back at the sender: an engine event then, so that the sender's port is
     * taken in time order (booking it now would delay sends it starts before that). */
    uint64_t tm = snd->arrival > rcv->time ? snd->arrival : rcv->time;
    uint32_t p = sim_pend_take(s);
    if (p == SIM_NONE)
        return;
    s->pends[p] = *snd;
    s->pends[p].req2 = rcv->req;
    s->pends[p].peer = rcv->rank;
    sim_heap_push(s, tm + l->latency_ps, SIM_H_RNDV, p);
}

void sim_rndv_data(sim *s, uint32_t p)
{
    sim_pend e = s->pends[p];
    sim_pend_give(s, p);
    const rt_net_link *l = &s->cfg->model.link[e.ct];
    uint64_t freed;
    uint64_t arrival = inject(s, e.rank, e.peer, e.ct, e.bytes, s->now, &freed);
    sim_req_done(s, e.req, arrival > freed ? arrival : freed);
    sim_req_done(s, e.req2, arrival + l->overhead_ps);
}

static uint64_t chan_k1(uint8_t ctx, uint32_t dst, uint32_t src)
{
    return (uint64_t)ctx << 56 | (uint64_t)dst << 28 | src;
}

/* The channel's queue: head | tail << 32; 0 when empty (entry 0 is never a head alone:
 * an empty channel is deleted). */
static int chan_push(sim *s, uint64_t k1, uint64_t k2, uint32_t p)
{
    int created;
    uint64_t *v = sim_map_put(&s->chans, k1, k2, &created);
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

/* Removes entry p (whose predecessor is prev, or SIM_NONE) from the queue at v. */
static void chan_unlink(sim *s, uint64_t k1, uint64_t k2, uint64_t *v, uint32_t prev, uint32_t p)
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
        sim_map_del(&s->chans, k1, k2);
    else
        *v = head | (uint64_t)tail << 32;
}

static int fits(const sim_pend *rcv, const sim_pend *snd)
{
    return (rcv->peer == snd->rank || (rcv->flags & RT_RECV_ANY_SOURCE)) &&
           (rcv->tag == snd->tag || (rcv->flags & RT_RECV_ANY_TAG));
}

/* Free matching: mailbox lists per (receiver, communicator): k2 tag 0 holds posted
 * receives, tag 1 unexpected messages. */
static void post_free(sim *s, uint64_t comm, uint32_t p, int is_send)
{
    sim_pend *e = &s->pends[p];
    uint32_t dst = is_send ? e->peer : e->rank;
    uint64_t k1 = chan_k1(CTX_FREE, dst, 0);
    uint64_t other = comm << 32 | (is_send ? 0u : 1u);
    uint64_t *v = sim_map_get(&s->chans, k1, other);
    uint32_t prev = SIM_NONE;
    for (uint32_t q = v ? (uint32_t)*v : SIM_NONE; q != SIM_NONE; prev = q, q = s->pends[q].next) {
        sim_pend *o = &s->pends[q];
        if (is_send ? fits(o, e) : fits(e, o)) {
            sim_pend a = *e, b = *o;
            chan_unlink(s, k1, other, v, prev, q);
            sim_pend_give(s, q);
            sim_pend_give(s, p);
            if (is_send)
                match(s, &a, &b);
            else
                match(s, &b, &a);
            return;
        }
    }
    chan_push(s, k1, comm << 32 | (is_send ? 1u : 0u), p);
}

static void post(sim *s, uint8_t ctx, uint64_t comm, uint32_t tag, uint32_t p, int is_send)
{
    if (ctx == SIM_CTX_P2P && s->cfg->free_wildcards) {
        post_free(s, comm, p, is_send);
        return;
    }
    sim_pend *e = &s->pends[p];
    uint32_t dst = is_send ? e->peer : e->rank, src = is_send ? e->rank : e->peer;
    uint64_t k1 = chan_k1(ctx, dst, src), k2 = comm << 32 | tag;
    uint64_t *v = sim_map_get(&s->chans, k1, k2);
    if (v) {
        uint32_t head = (uint32_t)*v;
        if (s->pends[head].send != is_send) {
            sim_pend a = *e, b = s->pends[head];
            chan_unlink(s, k1, k2, v, SIM_NONE, head);
            sim_pend_give(s, head);
            sim_pend_give(s, p);
            if (is_send)
                match(s, &a, &b);
            else
                match(s, &b, &a);
            return;
        }
    }
    chan_push(s, k1, k2, p);
}

uint32_t sim_post_send(sim *s, uint8_t ctx, uint64_t comm, uint32_t tag, uint32_t src,
                       uint32_t dst, uint64_t bytes, uint64_t t)
{
    uint32_t r = sim_req_new(s);
    uint32_t p = r == SIM_NONE ? SIM_NONE : sim_pend_take(s);
    if (p == SIM_NONE)
        return SIM_NONE;
    unsigned ct = sim_contype(s, src, dst);
    const rt_net_link *l = &s->cfg->model.link[ct];
    rt_sim_result *res = s->res;
    res->messages++;
    res->bytes += bytes;
    if (ct == RT_CT_GW) {
        res->gw_messages++;
        res->gw_bytes += bytes;
    }
    sim_pend *e = &s->pends[p];
    *e = (sim_pend){.time = t, .bytes = bytes, .req = r, .rank = src,
                    .peer = dst, .tag = tag, .send = 1, .eager = bytes <= l->eager,
                    .ct = (uint8_t)ct};
    if (e->eager) {
        uint64_t freed;
        e->arrival = inject(s, src, dst, ct, bytes, t, &freed);
        sim_req_done(s, r, freed);
    } else {
        e->arrival = t + l->overhead_ps + l->latency_ps; /* the rendezvous request */
    }
    post(s, ctx, comm, tag, p, 1);
    return r;
}

uint32_t sim_post_recv(sim *s, uint8_t ctx, uint64_t comm, uint32_t tag, uint32_t dst,
                       uint32_t src, uint64_t bytes, uint64_t t, uint8_t flags)
{
    uint32_t r = sim_req_new(s);
    uint32_t p = r == SIM_NONE ? SIM_NONE : sim_pend_take(s);
    if (p == SIM_NONE)
        return SIM_NONE;
    s->pends[p] = (sim_pend){.time = t, .bytes = bytes, .req = r,
                             .rank = dst, .peer = src, .tag = tag, .send = 0,
                             .flags = s->cfg->free_wildcards ? flags : 0};
    post(s, ctx, comm, tag, p, 0);
    return r;
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
        done = t + l->overhead_ps + l->latency_ps;
    }
    if (from_target) { /* the data comes back (served by the target's network interface) */
        done += rt_net_wire_ps(&s->cfg->model, ct, from_target, 0) + l->overhead_ps;
        res->messages++;
        res->bytes += from_target;
        res->gw_messages += (uint64_t)gw;
        res->gw_bytes += gw ? from_target : 0;
    }
    return done;
}

static const char *ctx_name(unsigned ctx)
{
    switch (ctx) {
    case SIM_CTX_P2P:
    case CTX_FREE:
        return "message";
    case SIM_CTX_COLL:
        return "collective message";
    case SIM_CTX_WIN:
        return "window synchronisation message";
    case SIM_CTX_POST:
        return "Win_post notice";
    default:
        return "Win_complete notice";
    }
}

/* Lists what is left in the channels: unmatched sends and receives. */
void sim_report_channels(sim *s, int deadlocked)
{
    uint64_t sends = 0, recvs = 0;
    unsigned shown = 0;
    for (size_t i = 0; i < s->chans.cap; i++) {
        sim_map_slot *c = &s->chans.slots[i];
        if (c->k1 == SIM_MAP_EMPTY)
            continue;
        unsigned ctx = (unsigned)(c->k1 >> 56);
        uint32_t comm = (uint32_t)(c->k2 >> 32);
        for (uint32_t q = (uint32_t)c->v; q != SIM_NONE; q = s->pends[q].next) {
            const sim_pend *e = &s->pends[q];
            if (e->send)
                sends++;
            else
                recvs++;
            if (shown >= 16)
                continue;
            shown++;
            const char *where = ctx <= SIM_CTX_COLL || ctx == CTX_FREE ? "communicator" : "window";
            if (e->send)
                sim_buf_printf(&s->report,
                               "unmatched: rank %u sent a %s to rank %u (%s %u, tag %u, %llu "
                               "bytes, %s)%s\n",
                               (unsigned)e->rank, ctx_name(ctx), (unsigned)e->peer, where,
                               (unsigned)comm, (unsigned)e->tag, (unsigned long long)e->bytes,
                               e->eager ? "eager" : "rendezvous: the sender waits for it",
                               deadlocked ? "" : ", never received");
            else
                sim_buf_printf(&s->report,
                               "unmatched: rank %u waits for a %s from rank %u (%s %u, tag "
                               "%u)\n",
                               (unsigned)e->rank, ctx_name(ctx), (unsigned)e->peer, where,
                               (unsigned)comm, (unsigned)e->tag);
        }
    }
    if (sends + recvs > shown)
        sim_buf_printf(&s->report, "... %llu unmatched sends and %llu unmatched receives in all\n",
                       (unsigned long long)sends, (unsigned long long)recvs);
}
