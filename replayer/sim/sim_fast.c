/*
 * The collective fast path. Usually each rank runs its collective schedule round by round,
 * one engine event per round (sim_coll.c). At a million ranks an 8-byte allreduce is twenty
 * rounds of a million ranks each, every one touching cache lines no recent event touched.
 * Here a collective whose every member's completion depends on every member's entry
 * (allreduce, barrier, allgather, alltoall, reduce_scatter and their v forms) waits until
 * its last member enters and is then computed whole, in sweeps over arrays of its members
 * in communicator rank order, with the cost functions and rules of the usual way (eager
 * timing as in sim_p2p.c, rounds, reductions as in sim_coll.c); each member's request is
 * then done at its completion time.
 *
 * Why the results are the same. Equal-time engine events run in queue order, and the fast
 * path changes that order (a member is woken from the queue in another place; its rounds
 * are no events at all). Nearly everything the engine computes is a function of times, not
 * of that order: a channel pairs the k-th send with the k-th receive whatever the
 * interleaving, every completion is a max and a sum of posting times and costs. What does
 * depend on the order is shared state used by two events at one time:
 *  - contention (receivers and gateways shared by all senders), free wildcard matching
 *    (which sender's message a wildcard meets first), RMA locks, the output trace (events
 *    in the order they happen): with any of these the fast path is not used;
 *  - a rank's injection port, booked by its own run, its collectives' rounds and its
 *    rendezvous data: sim_port_booked notices two events booking one port at one posting
 *    time, which the two orders could book either way round;
 *  - collective mismatches and deadlocks stop the replay at a point that depends on the
 *    order, and their reports list what was posted by then.
 * So a run in fast mode (rt_sim_run) is given up and done again the usual way when any of
 * these happens, and when a condition below fails; a run that completes in fast mode
 * computed every time the usual way would. A member is only deferred when nothing but its
 * collective can book its port until the collective ends: the collective is blocking and
 * the call ends with it (the rank posts nothing more), and no other collective of the rank
 * is running and no rendezvous data of it is still to be sent (sim_port.busy). Then its
 * rounds book the port in the same order at the same times as the usual way would. A
 * member's completion must not come before the last member's entry (the usual way would
 * have woken it earlier; by the dependence above it cannot), and every message must be
 * eager; the run gives up otherwise.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "rt__sim.h"

/* A collective instance taken by the fast path, while its members come. */
typedef struct sim_finst {
    uint32_t *memb; /* communicator rank -> its collective (sim_coll) */
    uint32_t size, next_free;
} sim_finst;

/* One member while its instance is computed. */
typedef struct sim_fmemb {
    const sim_step *st;
    uint64_t r;      /* start of the round in progress */
    uint64_t end;    /* the latest completion of the round so far */
    uint64_t port;   /* injection port free */
    uint64_t booked; /* posting time of its last port booking; SIM_NEVER: none yet */
    uint32_t j, je;  /* the round in progress: steps [j, je); je == j: not posted yet */
    uint32_t jr;     /* the first of its receives not yet matched */
    uint32_t nsteps;
    uint32_t head, tail; /* messages that reached it (sim_fmsg), in order */
} sim_fmemb;
_Static_assert(sizeof(sim_fmemb) == 64, "a member is one cache line");

/* A message on its way to a member. */
typedef struct sim_fmsg {
    uint64_t arrival;
    uint32_t src; /* sender's member index << 3 | connection type */
    uint32_t next;
} sim_fmsg;

void sim_fast_give_up(sim *s, const char *why)
{
    s->fast_gave_up = why;
    s->stop = 1;
}

/* The ops in which every member's result needs every member's data. */
static int fast_op(unsigned op)
{
    switch (op) {
    case RT_COLL_BARRIER:
    case RT_COLL_ALLGATHER:
    case RT_COLL_ALLGATHERV:
    case RT_COLL_ALLTOALL:
    case RT_COLL_ALLTOALLV:
    case RT_COLL_ALLTOALLW:
    case RT_COLL_ALLREDUCE:
    case RT_COLL_REDUCE_SCATTER:
    case RT_COLL_REDUCE_SCATTER_BLOCK:
        return 1;
    default:
        return 0;
    }
}

/* 1 when nothing but this collective can book the rank's port until it ends. */
static int member_ok(const sim *s, const sim_coll *co)
{
    const sim_rank *rk = &s->ranks[co->rank];
    const sim_rank_events *re = &s->t->ranks[co->rank];
    if (!co->nsteps || !co->eager || s->ports[co->rank].busy ||
        re->ev[rk->pc].kind != RT_EV_COLL_END)
        return 0;
    if (rk->in_call == 2) /* an operation outside a call: its own call ends with it */
        return 1;
    uint32_t next = rk->pc + 1; /* after its COLL_PEER rows, which book nothing (sim_core.c) */
    while (next < re->n && re->ev[next].kind == RT_EV_COLL_PEER)
        next++;
    return next < re->n && re->ev[next].kind == RT_EV_LEAVE;
}

static uint32_t finst_new(sim *s, uint32_t size)
{
    uint32_t i = RT_POOL_GET(s->finstp, s->finst, next_free, 16, NULL);
    if (i == RT_POOL_NONE)
        return SIM_NONE;
    sim_finst *fi = &s->finst[i];
    fi->memb = malloc((size_t)size * sizeof *fi->memb);
    if (!fi->memb) {
        RT_POOL_PUT(s->finstp, s->finst, next_free, i);
        return SIM_NONE;
    }
    fi->size = size;
    fi->next_free = SIM_NONE;
    return i;
}

static void finst_give(sim *s, uint32_t i)
{
    free(s->finst[i].memb);
    s->finst[i].memb = NULL;
    RT_POOL_PUT(s->finstp, s->finst, next_free, i);
}

void sim_fast_free(sim *s)
{
    for (uint32_t i = 0; i < s->finstp.n; i++)
        free(s->finst[i].memb);
    free(s->finst);
    rt_hmap_free(&s->fastinst);
    sim_free_lines(s->fm, (size_t)s->fm_cap * sizeof *s->fm);
    free(s->fmsg);
    free(s->fidx);
    sim_free_lines(s->factive, (size_t)s->fm_cap * sizeof *s->factive);
}

/* Grows the computation's arrays for n members (sim_realloc_lines: cache-line aligned; big
 * ones mapped on their own). 0, or -RT_E_NOMEM. */
static int arrays_for(sim *s, uint32_t n, int world)
{
    if (n > s->fm_cap) {
        sim_fmemb *m = sim_realloc_lines(NULL, 0, (size_t)n * sizeof *m);
#ifdef MADV_HUGEPAGE
        if (m && (size_t)n * sizeof *m >= ((size_t)4 << 20)) /* partners are anywhere in it */
            madvise(m, (size_t)n * sizeof *m, MADV_HUGEPAGE);
#endif
        uint32_t *a = sim_realloc_lines(NULL, 0, (size_t)n * sizeof *a);
        if (!m || !a) {
            sim_free_lines(m, (size_t)n * sizeof *m);
            sim_free_lines(a, (size_t)n * sizeof *a);
            return -RT_E_NOMEM;
        }
        sim_free_lines(s->fm, (size_t)s->fm_cap * sizeof *s->fm);
        sim_free_lines(s->factive, (size_t)s->fm_cap * sizeof *s->factive);
        s->fm = m;
        s->factive = a;
        s->fm_cap = n;
    }
    if (!world && !s->fidx && !(s->fidx = malloc((size_t)s->nranks * sizeof *s->fidx)))
        return -RT_E_NOMEM;
    return 0;
}

static uint32_t msg_new(sim *s)
{
    uint32_t k = RT_POOL_GET(s->fmsgp, s->fmsg, next, 1024, NULL);
    return k == RT_POOL_NONE ? SIM_NONE : k;
}

/* What a step of the computation tells its caller: go on, or the run gives up (the reason in
 * s->fast_gave_up; the run is then done again without the fast path, sim_core.c). No memory
 * is a reason to give up, not an error: the usual way may do with less. */
typedef enum fast_go { FAST_ON, FAST_GIVE_UP } fast_go;

static fast_go give_up(sim *s, const char *why)
{
    sim_fast_give_up(s, why);
    return FAST_GIVE_UP;
}

/* Counters of the computation, added to the result when it is done. */
typedef struct fast_count {
    uint64_t messages, gw_messages;
    rt_u128 bytes, gw_bytes;
} fast_count;

/* Member i's round starting at its step j: the sends go out (eager, as sim_send would post
 * them at the round's start, in step order), the reductions are summed. */
static fast_go post_sends(sim *s, uint32_t i, int world, fast_count *cnt)
{
    sim_fmemb *m = &s->fm[i];
    const rt_net_model *md = &s->cfg->model;
    const sim_step *st = m->st;
    uint64_t end = m->r;
    uint32_t j = m->j;
    for (; j < m->nsteps && (j == m->j || !st[j].first); j++) {
        if (st[j].kind != RT_STEP_SEND)
            continue;
        unsigned ct = st[j].ct;
        const rt_net_link *l = &md->link[ct];
        uint64_t n = st[j].bytes;
        if (n > l->eager)
            /* rendezvous: the data would go out at a later event */
            return give_up(s, "a rendezvous message");
        const sim_cost *c = sim_cost_of(s, ct, n);
        uint64_t start = m->r > m->port ? m->r : m->port;
        m->port = sim_add(s, start, c->busy);
        m->booked = m->r;
        if (m->port > end)
            end = m->port;
        uint32_t d = world ? st[j].peer : s->fidx[st[j].peer];
        uint32_t k = msg_new(s);
        if (k == SIM_NONE)
            return give_up(s, "no memory");
        uint64_t arrival = sim_add(s, start, c->arrive);
        s->fmsg[k] = (sim_fmsg){arrival, i << 3 | ct, SIM_NONE};
        sim_fmemb *md_ = &s->fm[d];
        if (md_->head == SIM_NONE)
            md_->head = k;
        else
            s->fmsg[md_->tail].next = k;
        md_->tail = k;
        cnt->messages++;
        cnt->bytes += n;
        if (ct == RT_CT_GW) {
            cnt->gw_messages++;
            cnt->gw_bytes += n;
        }
    }
    m->je = j;
    m->jr = m->j;
    m->end = end;
    return FAST_ON;
}

/* Where member i stands after advance. */
typedef enum fast_adv { ADV_WAITS, ADV_MOVED, ADV_DONE, ADV_GIVE_UP } fast_adv;

/* Takes member i through as many rounds as the messages in allow: done, moved on, waiting at
 * the same place, or the run gives up. */
static fast_adv advance(sim *s, uint32_t i, int world, fast_count *cnt)
{
    sim_fmemb *m = &s->fm[i];
    const rt_net_model *md = &s->cfg->model;
    int moved = 0;
    for (;;) {
        if (m->j == m->nsteps)
            return ADV_DONE;
        if (m->je == m->j) { /* the round starts */
            if (post_sends(s, i, world, cnt) == FAST_GIVE_UP)
                return ADV_GIVE_UP;
            moved = 1;
        }
        const sim_step *st = m->st;
        for (uint32_t j = m->jr; j < m->je; j++) {
            if (st[j].kind != RT_STEP_RECV)
                continue;
            uint32_t src = world ? st[j].peer : s->fidx[st[j].peer];
            uint32_t prev = SIM_NONE, k = m->head;
            while (k != SIM_NONE && s->fmsg[k].src >> 3 != src) {
                prev = k;
                k = s->fmsg[k].next;
            }
            if (k == SIM_NONE) { /* not sent yet: wait here */
                m->jr = j;
                return moved ? ADV_MOVED : ADV_WAITS;
            }
            const sim_fmsg *g = &s->fmsg[k];
            /* a receive is done o after the later of the data's arrival and its posting */
            uint64_t done =
                sim_add(s, g->arrival > m->r ? g->arrival : m->r, md->link[g->src & 7].overhead_ps);
            if (done > m->end)
                m->end = done;
            if (prev == SIM_NONE)
                m->head = g->next;
            else
                s->fmsg[prev].next = g->next;
            if (m->tail == k)
                m->tail = prev;
            RT_POOL_PUT(s->fmsgp, s->fmsg, next, k); /* taken: its slot is used again */
            moved = 1;
        }
        /* the round is done: its reductions, then the next round */
        uint64_t red = 0, elems = 0;
        const int per_elem = s->reduce_elems;
        for (uint32_t j = m->j; j < m->je; j++)
            if (st[j].kind == RT_STEP_REDUCE) {
                red = sim_reduce_add(s, red, st[j].bytes);
                if (per_elem)
                    elems = sim_reduce_elems(s, elems, &st[j]);
            }
        m->r = sim_add(s, m->end, sim_reduce_time(s, red, elems));
        m->j = m->je;
    }
}

/* All members are in (the last one at t): every member's completion. */
static fast_go compute(sim *s, sim_finst *fi, const rt_comm_def *c, uint64_t t)
{
    uint32_t n = fi->size;
    int world = 1;
    for (uint32_t i = 0; i < n && world; i++)
        world = c->members[i] == i;
    if (arrays_for(s, n, world) < 0)
        return give_up(s, "no memory");
    if (!world)
        for (uint32_t i = 0; i < n; i++)
            s->fidx[c->members[i]] = i;
    for (uint32_t i = 0; i < n; i++) {
        const sim_coll *co = &s->colls[fi->memb[i]];
        const sim_port *ps = &s->ports[co->rank];
        /* its first round books the port at its entry, as the event it entered in would
         * have: another event's booking then could come first or after (sim_port_booked);
         * later rounds come after its first one whatever the order */
        if (ps->tie_ev && ps->tie_t == co->round_end && ps->tie_ev != co->pending)
            return give_up(s, "its port booked at its entry by another event");
        s->fm[i] = (sim_fmemb){.st = co->steps,
                               .r = co->round_end,
                               .port = ps->inject,
                               .booked = SIM_NEVER,
                               .nsteps = co->nsteps,
                               .head = SIM_NONE,
                               .tail = SIM_NONE};
        s->factive[i] = i;
    }
    rt_pool_clear(&s->fmsgp);
    fast_count cnt = {0, 0, 0, 0};
    uint32_t nact = n;
    while (nact) { /* sweeps in rank order; a member goes as far as its messages allow */
        uint32_t k = 0;
        int moved = 0;
        for (uint32_t a = 0; a < nact; a++) {
            /* members are visited in order but their steps, messages and partners lie
             * anywhere: load them a few members ahead */
            if (a + 16 < nact) { /* the steps of the round it is in and of the next */
                const sim_fmemb *p = &s->fm[s->factive[a + 16]];
                __builtin_prefetch(&p->st[p->j]);
                __builtin_prefetch(&p->st[p->je] + 4);
            }
            if (a + 4 < nact) { /* the first partner of the round it will post */
                const sim_fmemb *p = &s->fm[s->factive[a + 4]];
                uint32_t j = p->je;
                if (p->head != SIM_NONE)
                    __builtin_prefetch(&s->fmsg[p->head]);
                if (j < p->nsteps && p->st[j].kind == RT_STEP_SEND)
                    __builtin_prefetch(&s->fm[world ? p->st[j].peer : s->fidx[p->st[j].peer]]);
            }
            uint32_t i = s->factive[a];
            fast_adv r = advance(s, i, world, &cnt);
            if (r == ADV_GIVE_UP)
                return FAST_GIVE_UP;
            moved |= r != ADV_WAITS;
            if (r != ADV_DONE)
                s->factive[k++] = i;
        }
        if (!moved) /* the schedules do not fit together: leave it to the usual way */
            return give_up(s, "schedules that do not fit");
        nact = k;
    }
    /* a member done before the last one came would have been woken then; a message nobody
     * receives would be reported unmatched */
    for (uint32_t i = 0; i < n; i++)
        if (s->fm[i].r < t || s->fm[i].head != SIM_NONE)
            return give_up(s, "a member done early or a message left");
    s->res->messages += cnt.messages;
    s->res->bytes += cnt.bytes;
    s->res->gw_messages += cnt.gw_messages;
    s->res->gw_bytes += cnt.gw_bytes;
    s->res->fast_colls++;
    /* the rounds were events of their own in the usual way: a number no real event has */
    uint32_t ev = --s->evsyn;
    /* the members' requests are done, in rank order (each one is woken at its time) */
    for (uint32_t i = 0; i < n; i++) {
        const sim_fmemb *m = &s->fm[i];
        uint32_t co_i = fi->memb[i];
        uint32_t req = s->colls[co_i].req;
        sim_port *ps = &s->ports[s->colls[co_i].rank];
        ps->inject = m->port;
        if (m->booked != SIM_NEVER) {
            ps->tie_t = m->booked;
            ps->tie_ev = ev;
        }
        ps->busy--;
        sim_coll_release(s, co_i);
        sim_req_done(s, req, s->fm[i].r);
    }
    return FAST_ON;
}

int sim_fast_join(sim *s, uint32_t co_i, const rt_comm_def *c, uint64_t key, uint32_t seq,
                  int first, int last, uint64_t t, int *taken)
{
    sim_coll *co = &s->colls[co_i];
    *taken = 0;
    if (c->size < 2 || !fast_op(co->op))
        return 0;
    int ok = member_ok(s, co);
    uint32_t f;
    if (first) {
        if (!ok) /* the whole instance goes the usual way */
            return 0;
        f = finst_new(s, c->size);
        uint64_t *v = f == SIM_NONE ? NULL : rt_hmap_put(&s->fastinst, key, seq, NULL);
        if (!v)
            return sim_fail(s, RT_E_NOMEM, "out of memory (collectives)");
        *v = f;
        *taken = 1;
    } else {
        const uint64_t *v = rt_hmap_get(&s->fastinst, key, seq);
        if (!v)
            return 0;
        *taken = 1;
        if (!ok) {
            sim_fast_give_up(s, "a later member cannot wait");
            return 0;
        }
        f = (uint32_t)*v;
    }
    sim_finst *fi = &s->finst[f];
    uint32_t w = co->rank;
    uint32_t me = w < c->size && c->members[w] == w ? w : (uint32_t)rt_comm_position(c, w);
    fi->memb[me] = co_i;
    co->round_end = t;
    co->pending = (uint32_t)s->evid;
    s->ports[w].busy++;
    if (!last)
        return 0;
    rt_hmap_del(&s->fastinst, key, seq);
    compute(s, fi, c, t); /* giving up stops the run: nothing more to do here */
    finst_give(s, f);
    return 0;
}
