/*
 * Collectives in the engine: each rank runs its own schedule from rt_coll (the steps its
 * algorithm gives it), round by round. A round posts its sends and receives together, ends
 * when all are done, then spends the round's reductions at reduce_bandwidth (and reduce_element
 * per element: a reduce step keeps its element size in peer); the next round starts then.
 * Nonblocking collectives run the same way while their rank goes on, which is how they
 * overlap computation (progress is assumed, as with an asynchronous progress engine).
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
    /* aligned: a collective is one cache line */
    uint32_t c = RT_POOL_GET(s->collp, s->colls, next_free, 256, sim_realloc_lines);
    if (c == RT_POOL_NONE) {
        sim_fail(s, RT_E_NOMEM, "out of memory (collectives)");
        return SIM_NONE;
    }
    memset(&s->colls[c], 0, sizeof s->colls[c]);
    s->colls[c].next_free = SIM_NONE;
    return c;
}

void sim_coll_release(sim *s, uint32_t c)
{
    sim_coll *co = &s->colls[c];
    sim_step *steps = co->steps;
    if (!co->own && steps)
        s->sched[co->rank].users--;
    co->steps = NULL;
    /* before free(): GCC reloads s->colls after a call */
    RT_POOL_PUT(s->collp, s->colls, next_free, c);
    if (co->own)
        free(steps);
}

void sim_coll_free_all(sim *s)
{
    for (uint32_t i = 0; i < s->collp.n; i++)
        if (s->colls[i].own)
            free(s->colls[i].steps);
    sim_free_lines(s->colls, (size_t)s->collp.room * sizeof *s->colls);
    sim_free_lines(s->sched, (size_t)s->nranks * sizeof *s->sched);
    for (uint32_t i = 0; i < s->nslabs; i++)
        sim_free_lines(s->slabs[i].p, s->slabs[i].size);
    free(s->slabs);
    free(s->scratch);
    free(s->blk);
}

/* Kept schedules are carved from blocks of SLAB bytes (sim_realloc_lines: on huge pages but
 * in fast mode): at a million ranks they are a gigabyte, read at random one round at a time,
 * and separate mallocs would spread them over the heap's 4 KB pages. A rank whose schedule
 * grows takes a new piece; blocks go with the run. */
#define SLAB (32u << 20)

static sim_step *slab_steps(sim *s, uint32_t n)
{
    size_t bytes = ((size_t)n * sizeof(sim_step) + 63) & ~(size_t)63;
    if (bytes > s->slab_left) {
        size_t size = bytes > SLAB / 4 ? bytes : SLAB;
        if (RT_VEC_RESERVE(s->slabs, s->slabs_cap, (uint64_t)s->nslabs + 1, 16) < 0)
            return NULL;
        char *b = sim_realloc_lines(NULL, 0, size);
        if (!b)
            return NULL;
        s->slabs[s->nslabs++] = (struct sim_slab){b, size};
        if (size != SLAB) /* a block of its own: the current one stays open */
            return (sim_step *)b;
        s->slab = b;
        s->slab_left = size;
    }
    sim_step *p = (sim_step *)s->slab;
    s->slab += bytes;
    s->slab_left -= bytes;
    return p;
}

/* rt_coll_schedule's steps of one rank, turned into sim_steps in s->scratch as they come. */
typedef struct emit_ctx {
    sim *s;
    uint32_t rank;           /* world rank */
    const uint32_t *members; /* communicator rank -> world rank */
    uint32_t round;
    uint32_t esize; /* the element size: a reduce step keeps it in peer */
} emit_ctx;

static int emit_step(void *ctx, const rt_coll_step *st)
{
    emit_ctx *ec = ctx;
    sim *s = ec->s;
    uint32_t n = s->nscratch;
    if (RT_VEC_RESERVE(s->scratch, s->scratch_cap, (uint64_t)n + 1, 64) < 0)
        return -RT_E_NOMEM;
    sim_step *d = &s->scratch[n];
    *d = (sim_step){.bytes = st->bytes, .kind = st->kind, .first = !n || st->round != ec->round};
    d->peer = st->kind == RT_STEP_REDUCE ? ec->esize : ec->members[st->peer];
    if (st->kind == RT_STEP_SEND)
        d->ct = (uint8_t)sim_contype(s, ec->rank, d->peer);
    ec->round = st->round;
    s->nscratch = n + 1;
    return 0;
}

/* Module or node id per communicator rank, cached per communicator (msa algorithms). */
static const uint32_t *per_comm_rank(sim *s, const rt_comm_def *c, int modules)
{
    int created;
    uint64_t *v = rt_hmap_put(&s->members, c->id, (uint64_t)modules, &created);
    if (!v)
        return NULL;
    if (!created)
        return (const uint32_t *)(uintptr_t)*v;
    uint32_t *a = malloc((c->size ? c->size : 1) * sizeof *a);
    if (!a) {
        rt_hmap_del(&s->members, c->id, (uint64_t)modules);
        return NULL;
    }
    for (uint32_t i = 0; i < c->size; i++)
        a[i] = modules ? s->module[c->members[i]] : s->node[c->members[i]];
    *v = (uint64_t)(uintptr_t)a;
    return a;
}

/* World rank w's rank in communicator c. Most collectives run on communicators where the
 * two are equal (MPI_COMM_WORLD): one look at the members, not a binary search over them,
 * which at a million ranks is twenty cache misses. */
static uint32_t comm_rank(const rt_comm_def *c, uint32_t w)
{
    if (c->flags & RT_COMM_IS_SELF) /* each rank is the one member of its own */
        return 0;
    if (w < c->size && c->members[w] == w)
        return w;
    return (uint32_t)rt_comm_position(c, w);
}

/* The output trace's wire message of a collective step (communicator collectives only). */
static void out_step(sim *s, const sim_coll *co, const sim_step *st, uint64_t t)
{
    if (!s->out || co->ctx != SIM_CTX_COLL)
        return;
    const rt_comm_def *c = rt_defs_comm(s->defs, co->id);
    rt_event ev = {.kind = st->kind == RT_STEP_SEND ? RT_EV_SEND : RT_EV_RECV,
                   .call = co->call,
                   .comm = co->id,
                   .peer = (int32_t)comm_rank(c, st->peer),
                   .tag = (int32_t)(co->tag & 0x7fffffff),
                   .bytes = st->bytes,
                   .contype = st->ct};
    if (st->kind == RT_STEP_RECV)
        ev.contype = (uint8_t)sim_contype(s, co->rank, st->peer);
    sim_out_event(s, co->rank, &ev, t);
}

/* Posts the operations of the round that starts at co->cur, at time t. */
static void post_round(sim *s, uint32_t c, uint64_t t)
{
    sim_coll *co = &s->colls[c];
    uint32_t j = co->cur;
    co->round_end = t;
    co->pending = 0;
    uint64_t reduce = 0, elems = 0;
    const int per_elem = s->reduce_elems;
    for (; j < co->nsteps && (j == co->cur || !co->steps[j].first); j++) {
        const sim_step *st = &co->steps[j];
        if (st->kind == RT_STEP_REDUCE) {
            reduce = sim_reduce_add(s, reduce, st->bytes);
            if (per_elem)
                elems = sim_reduce_elems(s, elems, st);
            continue;
        }
        uint64_t d;
        if (st->kind == RT_STEP_SEND) {
            out_step(s, co, st, t);
            d = sim_send(s, co->ctx, co->id, co->tag, co->rank, st->peer, st->ct, st->bytes, t,
                         SIM_T_COLL, c);
        } else {
            d = sim_recv(s, co->ctx, co->id, co->tag, co->rank, st->peer, st->bytes, t, 0,
                         SIM_T_COLL, c);
        }
        if (s->rc)
            return;
        if (d == SIM_NEVER)
            co->pending++;
        else if (d > co->round_end)
            co->round_end = d;
    }
    co->cur = j;
    /* the round's reductions run once its data is in (sim_coll_round_done) */
    co->reduce_ps = sim_reduce_time(s, reduce, elems);
    if (!co->pending)
        sim_coll_round_done(s, c);
}

/* The round in progress is done (its last operation known): the next one starts, or the
 * collective ends. */
void sim_coll_round_done(sim *s, uint32_t c)
{
    sim_coll *co = &s->colls[c];
    if (s->out) {
        uint32_t j = co->cur;
        while (j > 0 && !co->steps[--j].first)
            ;
        for (; j < co->cur; j++)
            if (co->steps[j].kind == RT_STEP_RECV)
                out_step(s, co, &co->steps[j], co->round_end);
    }
    uint64_t end = sim_add(s, co->round_end, co->reduce_ps);
    co->reduce_ps = 0;
    if (co->cur < co->nsteps) {
        /* the next round starts at end: through the queue, never by recursion */
        sim_queue_push(s, end, SIM_H_COLL, c);
        return;
    }
    uint32_t req = co->req;
    if (s->fast)
        s->ports[co->rank].busy--;
    sim_coll_release(s, c);
    sim_req_done(s, req, end);
}

void sim_coll_advance(sim *s, uint32_t c)
{
    post_round(s, c, s->now);
}

/* Counts rank's arrival at instance (key, seq); *first, *last: it is the first, the last.
 * 0, or -RT_E_NOMEM (s->rc set). A call that is another op than the instance's first one
 * is reported and stops the replay (*mismatch = 1, s->stop). */
static int check_instance(sim *s, uint32_t rank, uint64_t key, uint32_t seq, unsigned op,
                          uint32_t size, const char *what, int *first, int *last, int *mismatch)
{
    *mismatch = 0;
    int created;
    uint64_t *v = rt_hmap_put(&s->collchk, key, seq, &created);
    if (!v)
        return sim_fail(s, RT_E_NOMEM, "out of memory (collectives)");
    *first = created;
    *last = 0;
    if (created) {
        *v = op | (uint64_t)rank << 8 | 1ULL << 32;
        if (size == 1) {
            rt_hmap_del(&s->collchk, key, seq);
            *last = 1;
        }
        return 0;
    }
    unsigned first_op = (unsigned)(*v & 0xff);
    if (first_op != op) {
        uint32_t first_rank = (uint32_t)(*v >> 8) & 0xffffffu;
        sim_buf_printf(&s->report,
                       "mismatched collectives: call %u on %s %u is %s on rank %u but %s on "
                       "rank %u\n",
                       (unsigned)seq + 1, what, (unsigned)(uint32_t)key,
                       rt_event_op_name(RT_EV_COLL_END, first_op), (unsigned)first_rank,
                       rt_event_op_name(RT_EV_COLL_END, op), (unsigned)rank);
        s->stop = 1;
        *mismatch = 1;
        return 0;
    }
    uint32_t arrived = (uint32_t)(*v >> 32) + 1;
    if (arrived >= size) {
        rt_hmap_del(&s->collchk, key, seq);
        *last = 1;
    } else {
        *v = (*v & 0xffffffffu) | (uint64_t)arrived << 32;
    }
    return 0;
}

/* The blocks of nrows COLL_PEER rows in s->blk for rt_coll_call (sblk, rblk): every block
 * the rows leave out is 0. 0, or -1 (no memory, s->rc set). */
static int rows_blocks(sim *s, rt_coll_call *call, const rt_event *rows, uint32_t nrows)
{
    uint32_t n = call->size;
    if (call->nbrs)
        n = call->nbrs->nin > call->nbrs->nout ? call->nbrs->nin : call->nbrs->nout;
    if (n > s->blk_cap) {
        uint64_t *b = realloc(s->blk, 2 * (size_t)n * sizeof *b);
        if (!b)
            return sim_fail(s, RT_E_NOMEM, "out of memory (per-peer counts)");
        s->blk = b;
        s->blk_cap = n;
    }
    memset(s->blk, 0, 2 * (size_t)s->blk_cap * sizeof *s->blk);
    for (uint32_t i = 0; i < nrows; i++)
        if (rows[i].peer >= 0 && (uint32_t)rows[i].peer < n) { /* checked by the reader */
            s->blk[rows[i].peer] = rows[i].bytes;
            s->blk[s->blk_cap + (uint32_t)rows[i].peer] = rows[i].rbytes;
        }
    unsigned sides = rt_coll_count_sides(call->op);
    call->sblk = sides & RT_SIDE_SEND ? s->blk : NULL;
    call->rblk = sides & RT_SIDE_RECV ? s->blk + s->blk_cap : NULL;
    return 0;
}

unsigned sim_coll_alg(const sim *s, uint32_t rank, const rt_event *ev)
{
    const rt_comm_def *c = rt_defs_comm(s->defs, ev->comm);
    unsigned op = ev->op, alg = op < RT_COLL_COUNT ? s->cfg->alg[op] : RT_ALG_COUNT;
    if (!c || (c->flags & RT_COMM_IS_INTER) || op >= RT_COLL_COUNT)
        return RT_ALG_COUNT;
    if (!rt_coll_alg_valid(op, alg)) /* as make_schedule: MPICH's choice */
        alg = RT_ALG_MPICH;
    if (alg != RT_ALG_MPICH && alg != RT_ALG_OMPI)
        return alg;
    rt_coll_call call = {.op = op,
                         .size = c->size,
                         .me = comm_rank(c, rank),
                         .root = ev->peer,
                         .bytes = ev->bytes,
                         .rbytes = ev->rbytes,
                         .forced = s->cfg->alg,
                         .esize = rt_coll_event_esize(ev->esize, ev->resize)};
    return alg == RT_ALG_MPICH ? rt_coll_select_mpich(&call) : rt_coll_select_ompi(&call);
}

/* Expands co's schedule: into the rank's kept schedule sc when no running collective uses
 * it, else into a buffer of co's own. Returns 0 (no steps: the op takes no time, noted), or
 * -1 (no memory, s->rc set). */
static int make_schedule(sim *s, sim_coll *co, sim_sched *sc, const rt_comm_def *c, int32_t root,
                         uint64_t bytes, uint64_t rbytes, uint32_t esize, const rt_event *rows,
                         uint32_t nrows)
{
    unsigned op = co->op;
    unsigned alg = co->ctx == SIM_CTX_WIN ? s->cfg->alg[RT_COLL_BARRIER] : s->cfg->alg[op];
    rt_coll_call call = {.op = op,
                         .size = c->size,
                         .me = comm_rank(c, co->rank),
                         .root = root,
                         .bytes = bytes,
                         .rbytes = rbytes,
                         .forced = s->cfg->alg,
                         .esize = esize};
    if (rt_coll_is_neighbor(op)) /* the peers: this rank's neighbour lists */
        call.nbrs = rt_defs_nbrs(s->defs, c->id, co->rank);
    if (nrows && rows_blocks(s, &call, rows, nrows) < 0)
        return -1;
    call.equal_blocks = !nrows && (s->defs->flags & RT_DEFS_COLL_PEERS);
    if (alg == RT_ALG_MSA || alg == RT_ALG_MSA2) {
        call.module = per_comm_rank(s, c, 1);
        call.node = alg == RT_ALG_MSA2 ? per_comm_rank(s, c, 0) : NULL;
        if (!call.module || (alg == RT_ALG_MSA2 && !call.node))
            return sim_fail(s, RT_E_NOMEM, "out of memory (collectives)");
    }
    if (!rt_coll_alg_valid(op, alg) && alg != RT_ALG_MPICH) {
        /* an algorithm chosen for another op family: fall back to MPICH's choice */
        alg = RT_ALG_MPICH;
    }
    int kept = sc->users == 0;
    if (kept)
        sc->valid = 0;
    /* recorded, else guessed from the bytes as the selection does; a size past 32 bits is
     * not recorded (rt_coll_event_esize) */
    emit_ctx ec = {s, co->rank, c->members, 0, (uint32_t)rt_coll_esize(esize, bytes)};
    rt_err e;
    int approx = 0;
    s->nscratch = 0;
    int rc = rt_coll_schedule(alg, &call, emit_step, &ec, &approx, &e);
    if (rc == -RT_E_NOMEM)
        return sim_fail(s, RT_E_NOMEM, "out of memory (collective schedule)");
    if (approx && s->approx[op]++ == 0) {
        if (s->fast && s->notes.lines) /* notes come in the order of events (sim_fast.c) */
            sim_fast_give_up(s, "a second note");
        sim_buf_printf(&s->notes, "%s: per-peer sizes are not recorded; equal blocks assumed\n",
                       rt_event_op_name(RT_EV_COLL_END, op));
    }
    if (rc < 0) {
        if (s->unscheduled[op]++ == 0) {
            if (s->fast) /* its text is the first rank's to come (sim_fast.c) */
                sim_fast_give_up(s, "a note of one rank");
            sim_buf_printf(&s->notes, "%s takes no time in the replay: %s\n",
                           rt_event_op_name(RT_EV_COLL_END, op), e.msg);
        }
        return 0; /* no steps */
    }
    uint32_t n = s->nscratch;
    sim_step *steps;
    if (!kept) {
        steps = malloc((n ? n : 1) * sizeof *steps);
        co->own = 1;
    } else if (n > sc->cap) {
        steps = slab_steps(s, n);
        sc->steps = steps;
        sc->cap = n;
    } else {
        steps = sc->steps;
    }
    if (!steps && n) /* none with no steps (one member): a kept schedule may have none yet */
        return sim_fail(s, RT_E_NOMEM, "out of memory (collective schedule)");
    if (n)
        memcpy(steps, s->scratch, (size_t)n * sizeof *steps);
    co->steps = steps;
    co->nsteps = n;
    co->eager = 1; /* the fast path takes eager messages only */
    for (uint32_t i = 0; i < n && co->eager; i++)
        co->eager = steps[i].kind != RT_STEP_SEND ||
                    steps[i].bytes <= s->cfg->model.link[steps[i].ct].eager;
    if (kept) {
        sc->nsteps = n;
        sc->id = co->id;
        sc->users = 1;
        sc->root = root;
        sc->ctx = co->ctx;
        sc->op = co->op;
        sc->valid = 1;
        sc->bytes = bytes;
        sc->rbytes = rbytes;
        sc->esize = esize;
        sc->eager = co->eager;
        sc->rows = nrows != 0;
    }
    return 0;
}

uint32_t sim_coll_start(sim *s, uint32_t rank, uint8_t ctx, uint32_t id, const rt_comm_def *c,
                        unsigned op, int32_t root, uint64_t bytes, uint64_t rbytes, uint32_t esize,
                        const rt_event *rows, uint32_t nrows, uint64_t t)
{
    if (!s->sched &&
        !(s->sched = sim_realloc_lines(NULL, 0, (size_t)s->nranks * sizeof *s->sched))) {
        sim_fail(s, RT_E_NOMEM, "out of memory (collective schedules)");
        return SIM_NONE;
    }
    sim_sched *sc = &s->sched[rank];
    uint64_t key = (uint64_t)ctx << 32 | id;
    if (sc->seq_key != key) {
        /* the rank's sequence numbers on the communicator it used last live in sc; the
         * others in collseq (a key is never 0: contexts start at 1) */
        uint64_t *v = sc->seq_key ? rt_hmap_put(&s->collseq, rank, sc->seq_key, NULL) : &key;
        if (!v) {
            sim_fail(s, RT_E_NOMEM, "out of memory (collectives)");
            return SIM_NONE;
        }
        if (sc->seq_key)
            *v = sc->seq_next;
        v = rt_hmap_get(&s->collseq, rank, key);
        sc->seq_key = key;
        sc->seq_next = v ? (uint32_t)*v : 0;
    }
    uint32_t seq = sc->seq_next++;
    const char *what = ctx == SIM_CTX_WIN ? "window" : "communicator";
    int first = 0, last = 0, mismatch;
    if (check_instance(s, rank, key, seq, op, c->size, what, &first, &last, &mismatch) < 0 ||
        mismatch)
        return SIM_NONE;
    uint32_t req = sim_req_new(s);
    uint32_t co_i = req == SIM_NONE ? SIM_NONE : coll_new(s);
    if (co_i == SIM_NONE)
        return SIM_NONE;
    sim_coll *co = &s->colls[co_i];
    co->ctx = ctx;
    co->id = id;
    co->tag = seq;
    co->rank = rank;
    co->req = req;
    co->op = (uint8_t)op;
    co->call = s->ranks[rank].call;
    /* A schedule is a function of these and of what is fixed per communicator (its members,
     * their nodes and modules): anything else make_schedule puts into rt_coll_call that can
     * differ between calls must join this test. */
    if (sc->valid && sc->ctx == ctx && sc->id == id && sc->op == op && sc->root == root &&
        sc->bytes == bytes && sc->rbytes == rbytes && sc->esize == esize && !sc->rows && !nrows) {
        /* the same call as the rank's last one: the same steps (its notes were given) */
        co->steps = sc->steps;
        co->nsteps = sc->nsteps;
        sc->users++;
        co->eager = sc->eager;
    } else if (make_schedule(s, co, sc, c, root, bytes, rbytes, esize, rows, nrows) < 0) {
        return SIM_NONE;
    }
    if (s->fast && ctx == SIM_CTX_COLL) {
        int taken;
        if (sim_fast_join(s, co_i, c, key, seq, first, last, t, &taken) < 0)
            return SIM_NONE;
        if (taken)
            return s->stop ? SIM_NONE : req;
    }
    if (!co->nsteps) {
        sim_coll_release(s, co_i);
        sim_req_done(s, req, t);
        return req;
    }
    if (s->fast) /* it books the rank's port from now on (sim_fast.c) */
        s->ports[rank].busy++;
    post_round(s, co_i, t);
    return req;
}

void sim_coll_prefetch(const sim *s, uint32_t c, int stage)
{
    const sim_coll *co = &s->colls[c];
    if (co->cur >= co->nsteps)
        return;
    const sim_step *st = &co->steps[co->cur];
    if (stage == 0) {
        __builtin_prefetch(st);
        __builtin_prefetch(&s->ports[co->rank]);
        return;
    }
    for (uint32_t j = co->cur; j < co->nsteps && j < co->cur + 3; j++, st++) {
        if (j > co->cur && st->first)
            break;
        if (st->kind == RT_STEP_SEND)
            sim_post_prefetch(s, co->ctx, co->id, co->tag, st->peer, co->rank);
        else if (st->kind == RT_STEP_RECV)
            sim_post_prefetch(s, co->ctx, co->id, co->tag, co->rank, st->peer);
    }
}
