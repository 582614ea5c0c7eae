/*
 * Collectives in the engine: each rank runs its own schedule from rt_coll (the steps its
 * algorithm gives it), round by round. A round posts its sends and receives together, ends
 * when all are done, then spends the round's reductions at reduce_bandwidth; the next round
 * starts then. Nonblocking collectives run the same way while their rank goes on, which is
 * how they overlap computation (progress is assumed, as with an asynchronous progress
 * engine).
 *
 * Messages of the k-th collective a rank calls on a communicator use tag k in the
 * collective context, so instances never mix. The first rank to reach instance k records
 * its op; a rank that calls another op there is a mismatch, which stops the replay with a
 * report.
 */
#include <stdlib.h>
#include <string.h>

#include "rt__sim.h"

static uint32_t coll_new(sim *s)
{
    uint32_t c;
    if (s->coll_free != SIM_NONE) {
        c = s->coll_free;
        s->coll_free = s->colls[c].next_free;
    } else {
        if (s->ncolls == s->colls_cap) {
            uint32_t cap = s->colls_cap ? s->colls_cap * 2 : 256;
            sim_coll *p = realloc(s->colls, (size_t)cap * sizeof *p);
            if (!p) {
                sim_fail(s, RT_E_NOMEM, "out of memory (collectives)");
                return SIM_NONE;
            }
            memset(p + s->colls_cap, 0, (size_t)(cap - s->colls_cap) * sizeof *p);
            s->colls = p;
            s->colls_cap = cap;
        }
        c = s->ncolls++;
    }
    sim_coll *co = &s->colls[c];
    rt_coll_step *steps = co->steps;
    uint32_t cap = co->cap;
    memset(co, 0, sizeof *co);
    co->steps = steps; /* keep the step buffer for reuse */
    co->cap = cap;
    co->next_free = SIM_NONE;
    return c;
}

static void coll_release(sim *s, uint32_t c)
{
    s->colls[c].next_free = s->coll_free;
    s->coll_free = c;
}

void sim_coll_free_all(sim *s)
{
    for (uint32_t i = 0; i < s->ncolls; i++)
        free(s->colls[i].steps);
    free(s->colls);
}

static int emit_step(void *ctx, const rt_coll_step *st)
{
    sim_coll *co = ctx;
    if (co->nsteps == co->cap) {
        uint32_t cap = co->cap ? co->cap * 2 : 16;
        rt_coll_step *p = realloc(co->steps, (size_t)cap * sizeof *p);
        if (!p)
            return -RT_E_NOMEM;
        co->steps = p;
        co->cap = cap;
    }
    co->steps[co->nsteps++] = *st;
    return 0;
}

/* Module or node id per communicator rank, cached per communicator (msa algorithms). */
static const uint32_t *per_comm_rank(sim *s, const rt_comm_def *c, int modules)
{
    int created;
    uint64_t *v = sim_map_put(&s->members, c->id, (uint64_t)modules, &created);
    if (!v)
        return NULL;
    if (!created)
        return (const uint32_t *)(uintptr_t)*v;
    uint32_t *a = malloc((c->size ? c->size : 1) * sizeof *a);
    if (!a) {
        sim_map_del(&s->members, c->id, (uint64_t)modules);
        return NULL;
    }
    for (uint32_t i = 0; i < c->size; i++)
        a[i] = modules ? s->module[c->members[i]] : s->node[c->members[i]];
    *v = (uint64_t)(uintptr_t)a;
    return a;
}

/* The output trace's wire message of a collective step (communicator collectives only). */
static void out_step(sim *s, const sim_coll *co, const rt_coll_step *st, uint64_t t)
{
    if (!s->out || (uint8_t)(co->key >> 32) != SIM_CTX_COLL)
        return;
    uint32_t peer = co->members[st->peer];
    rt_event ev = {.kind = st->kind == RT_STEP_SEND ? RT_EV_SEND : RT_EV_RECV,
                   .call = co->call, .comm = (uint32_t)co->key, .peer = st->peer,
                   .tag = (int32_t)(co->tag & 0x7fffffff), .bytes = st->bytes,
                   .contype = (uint8_t)sim_contype(s, co->rank, peer)};
    sim_out_event(s, co->rank, &ev, t);
}

/* Posts the operations of the round that starts at co->cur, at time t. */
static void post_round(sim *s, uint32_t c, uint64_t t)
{
    sim_coll *co = &s->colls[c];
    uint32_t round = co->steps[co->cur].round, j = co->cur;
    co->round_end = t;
    co->pending = 0;
    co->first = j;
    uint64_t reduce = 0;
    for (; j < co->nsteps && co->steps[j].round == round; j++) {
        const rt_coll_step st = co->steps[j];
        if (st.kind == RT_STEP_REDUCE) {
            reduce += st.bytes;
            continue;
        }
        uint32_t peer = co->members[st.peer], r;
        if (st.kind == RT_STEP_SEND) {
            out_step(s, co, &st, t);
            r = sim_post_send(s, (uint8_t)(co->key >> 32), (uint32_t)co->key, co->tag,
                              co->rank, peer, st.bytes, t);
        } else {
            r = sim_post_recv(s, (uint8_t)(co->key >> 32), (uint32_t)co->key, co->tag,
                              co->rank, peer, st.bytes, t, 0);
        }
        if (r == SIM_NONE)
            return;
        sim_req *q = &s->reqs[r];
        if (q->done != SIM_NEVER) {
            if (q->done > co->round_end)
                co->round_end = q->done;
            sim_req_free(s, r);
        } else {
            q->wkind = SIM_W_COLL;
            q->waiter = c;
            co->pending++;
        }
    }
    co->cur = j;
    /* the round's reductions run once its data is in (sim_coll_notify) */
    co->reduce_ps = rt_net_reduce_ps(&s->cfg->model, reduce);
    if (!co->pending)
        sim_coll_notify(s, c);
}

/* Called when one of the round's operations is done (pending already decremented). */
void sim_coll_notify(sim *s, uint32_t c)
{
    sim_coll *co = &s->colls[c];
    if (co->pending)
        return;
    if (s->out)
        for (uint32_t j = co->first; j < co->cur; j++)
            if (co->steps[j].kind == RT_STEP_RECV)
                out_step(s, co, &co->steps[j], co->round_end);
    uint64_t end = co->round_end + co->reduce_ps;
    co->reduce_ps = 0;
    if (co->cur < co->nsteps) {
        /* the next round starts at end: through the heap, never by recursion */
        sim_heap_push(s, end, SIM_H_COLL, c);
        return;
    }
    uint32_t req = co->req;
    coll_release(s, c);
    sim_req_done(s, req, end);
}

void sim_coll_advance(sim *s, uint32_t c)
{
    post_round(s, c, s->now);
}

static int check_instance(sim *s, uint32_t rank, uint64_t key, uint32_t seq, unsigned op,
                          uint32_t size, const char *what)
{
    int created;
    uint64_t *v = sim_map_put(&s->collchk, key, seq, &created);
    if (!v)
        return sim_fail(s, RT_E_NOMEM, "out of memory (collectives)");
    if (created) {
        *v = op | (uint64_t)rank << 8 | 1ULL << 32;
        if (size == 1)
            sim_map_del(&s->collchk, key, seq);
        return 0;
    }
    unsigned first_op = (unsigned)(*v & 0xff);
    if (first_op != op) {
        uint32_t first = (uint32_t)(*v >> 8) & 0xffffffu;
        sim_buf_printf(&s->report,
                       "mismatched collectives: call %u on %s %u is %s on rank %u but %s on "
                       "rank %u\n",
                       (unsigned)seq + 1, what, (unsigned)(uint32_t)key,
                       rt_event_op_name(RT_EV_COLL_END, first_op), (unsigned)first,
                       rt_event_op_name(RT_EV_COLL_END, op), (unsigned)rank);
        s->stop = 1;
        return -1;
    }
    uint32_t arrived = (uint32_t)(*v >> 32) + 1;
    if (arrived >= size)
        sim_map_del(&s->collchk, key, seq);
    else
        *v = (*v & 0xffffffffu) | (uint64_t)arrived << 32;
    return 0;
}

uint32_t sim_coll_start(sim *s, uint32_t rank, uint8_t ctx, uint32_t id, const rt_comm_def *c,
                        unsigned op, int32_t root, uint64_t bytes, uint64_t rbytes, uint64_t t)
{
    uint64_t key = (uint64_t)ctx << 32 | id;
    uint64_t *seqp = sim_map_put(&s->collseq, rank, key, NULL);
    if (!seqp) {
        sim_fail(s, RT_E_NOMEM, "out of memory (collectives)");
        return SIM_NONE;
    }
    uint32_t seq = (uint32_t)(*seqp)++;
    const char *what = ctx == SIM_CTX_WIN ? "window" : "communicator";
    if (check_instance(s, rank, key, seq, op, c->size, what) < 0)
        return SIM_NONE;
    unsigned alg = ctx == SIM_CTX_WIN ? s->cfg->alg[RT_COLL_BARRIER] : s->cfg->alg[op];
    int64_t me = rt_comm_position(c, rank);
    rt_coll_call call = {.op = op, .size = c->size, .me = (uint32_t)me, .root = root,
                         .bytes = bytes, .rbytes = rbytes};
    if (rt_coll_is_neighbor(op)) /* the peers: this rank's neighbour lists */
        call.nbrs = rt_defs_nbrs(s->defs, c->id, rank);
    if (alg == RT_ALG_MSA || alg == RT_ALG_MSA2) {
        call.module = per_comm_rank(s, c, 1);
        call.node = alg == RT_ALG_MSA2 ? per_comm_rank(s, c, 0) : NULL;
        if (!call.module || (alg == RT_ALG_MSA2 && !call.node)) {
            sim_fail(s, RT_E_NOMEM, "out of memory (collectives)");
            return SIM_NONE;
        }
    }
    uint32_t req = sim_req_new(s);
    uint32_t co_i = req == SIM_NONE ? SIM_NONE : coll_new(s);
    if (co_i == SIM_NONE)
        return SIM_NONE;
    sim_coll *co = &s->colls[co_i];
    co->key = key;
    co->tag = seq;
    co->rank = rank;
    co->req = req;
    co->op = (uint8_t)op;
    co->call = s->ranks[rank].call;
    co->members = c->members;
    rt_err e;
    int approx = 0, rc = RT_OK;
    if (!rt_coll_alg_valid(op, alg) && alg != RT_ALG_MPICH) {
        /* an algorithm chosen for another op family: fall back to MPICH's choice */
        alg = RT_ALG_MPICH;
    }
    rc = rt_coll_schedule(alg, &call, emit_step, co, &approx, &e);
    co = &s->colls[co_i];
    if (rc == -RT_E_NOMEM) {
        sim_fail(s, RT_E_NOMEM, "out of memory (collective schedule)");
        return SIM_NONE;
    }
    if (rc < 0) {
        if (s->unscheduled[op]++ == 0)
            sim_buf_printf(&s->notes, "%s takes no time in the replay: %s\n",
                           rt_event_op_name(RT_EV_COLL_END, op), e.msg);
        co->nsteps = 0;
    }
    if (approx && s->approx[op]++ == 0)
        sim_buf_printf(&s->notes, "%s: per-peer sizes are not recorded; equal blocks assumed\n",
                       rt_event_op_name(RT_EV_COLL_END, op));
    if (!co->nsteps) {
        coll_release(s, co_i);
        sim_req_done(s, req, t);
        return req;
    }
    post_round(s, co_i, t);
    return req;
}
