/*
 * The messages a trace's events stand for, at call level (what the application passed) or
 * wire level (what an MPI library sends: collectives expanded by the schedules of
 * replayer/, the same ones the replayer runs). hist and gateways both count these.
 */
#include <stdlib.h>
#include <string.h>

#include "rt_an.h"

typedef struct comm_cache {
    uint32_t *module, *node; /* per communicator rank */
    /* For flows to every other member, counted in bulk: per rank, the members on its node
     * and in its module (itself included); per module of the communicator, its members and
     * the world rank of the first. */
    uint32_t *same_node, *same_module;
    uint32_t nmods, *mod_id, *mod_count, *mod_rep;
} comm_cache;

/* A rank's v or w collective whose COLL_PEER rows (rt_event.h) may still come: it is
 * expanded at the rank's next other event, or at rt_an_msgs_flush. */
typedef struct held {
    rt_event ev;
    uint64_t *blk; /* cap send blocks, then cap receive blocks; valid when rows */
    uint32_t cap;  /* blocks of room */
    uint32_t n;    /* blocks of the held collective, once rows came */
    uint8_t on;    /* ev is held */
    uint8_t rows;  /* rows came (the blocks missing from them are 0) */
} held;

/* Wire level: the messages of a collective's schedule, kept by rank (rank % SCHED_WAYS) for
 * the next call with the same key, which gives the same messages: a trace repeats its
 * collectives, and its reader hands out one rank's events after another, so that running
 * the schedule again (a few hundred instructions a message) is mostly avoided. A schedule of
 * more than SCHED_MSGS messages is not kept. Memory: fixed, allocated at the first one. */
#define SCHED_WAYS 64u
#define SCHED_MSGS 32u

/* What a collective's schedule depends on, besides the definitions and the level, which
 * one rt_an_msgs keeps (only calls without per-peer blocks or neighbour lists are kept). */
typedef struct sched_key {
    uint64_t bytes, rbytes;
    uint32_t rank, comm;
    int32_t root;
    uint8_t op, alg, esize, resize;
} sched_key;

typedef struct sched_entry {
    sched_key key;
    uint8_t valid;
    uint8_t approx, unexpanded; /* what the call added to the notes */
    uint32_t n;                 /* messages, up to SCHED_MSGS kept; more: not kept */
    struct {
        uint64_t bytes;
        uint32_t dst;
        uint8_t contype;
    } msg[SCHED_MSGS];
} sched_entry;

struct rt_an_msgs {
    const rt_defs *defs; /* the reader's: gone once the pass ends */
    unsigned trace_alg;  /* what RT_AN_ALG_TRACE stands for on this trace */
    uint32_t ncomms;
    comm_cache *cc;  /* per entry of defs->comms */
    uint8_t *in_ops; /* per rank: rt_pending_op */
    held *held;      /* per rank */
    uint32_t nranks;
    uint32_t nheld;     /* ranks with a collective held: most events need no look at theirs */
    sched_entry *sched; /* SCHED_WAYS of them, NULL until a schedule runs */
};

void rt_an_level_default(rt_an_level *l)
{
    memset(l, 0, sizeof *l);
    l->level = RT_AN_CALL;
    for (unsigned op = 0; op < RT_COLL_COUNT; op++)
        l->alg[op] = RT_ALG_MPICH;
}

unsigned rt_an_contype(const rt_defs *defs, uint32_t a, uint32_t b)
{
    if (a == b)
        return RT_CT_LOOP;
    if (defs->module[a] != defs->module[b])
        return RT_CT_GW;
    return defs->node[a] == defs->node[b] ? RT_CT_SHM : RT_CT_NET;
}

int rt_an_msgs_new(const rt_defs *defs, rt_an_msgs **out, rt_err *err)
{
    rt_an_msgs *ms = calloc(1, sizeof *ms);
    if (ms) {
        ms->cc = calloc(defs->ncomms ? defs->ncomms : 1, sizeof *ms->cc);
        ms->in_ops = calloc(defs->nranks ? defs->nranks : 1, 1);
        ms->held = calloc(defs->nranks ? defs->nranks : 1, sizeof *ms->held);
    }
    if (!ms || !ms->cc || !ms->in_ops || !ms->held) {
        if (ms) {
            free(ms->cc);
            free(ms->in_ops);
            free(ms->held);
        }
        free(ms);
        return rt_err_set(err, RT_E_NOMEM, "out of memory");
    }
    ms->defs = defs;
    ms->ncomms = defs->ncomms;
    ms->trace_alg = rt_an_alg(RT_AN_ALG_TRACE, defs);
    ms->nranks = defs->nranks;
    *out = ms;
    return 0;
}

void rt_an_msgs_free(rt_an_msgs *ms)
{
    if (!ms)
        return;
    for (uint32_t i = 0; i < ms->ncomms; i++) {
        comm_cache *cc = &ms->cc[i];
        free(cc->module);
        free(cc->node);
        free(cc->same_node);
        free(cc->same_module);
        free(cc->mod_id);
        free(cc->mod_count);
        free(cc->mod_rep);
    }
    free(ms->cc);
    free(ms->in_ops);
    for (uint32_t r = 0; r < ms->nranks; r++)
        free(ms->held[r].blk);
    free(ms->held);
    free(ms->sched);
    free(ms);
}

void rt_an_notes_print(const rt_an_notes *n, const char *level, FILE *out)
{
    if (n->approx)
        fprintf(
            out,
            "retrace: note: %llu collective calls of variable size (v/w forms) were expanded at %s "
            "level with equal blocks per peer where their per-peer counts are unknown: the trace "
            "holds only their totals, or a rank forwards blocks whose counts only others know\n",
            (unsigned long long)n->approx, level);
    if (n->unexpanded)
        fprintf(out,
                "retrace: note: %llu collective calls on inter-communicators or without the "
                "neighbour lists of their process topology are not counted: the trace does not "
                "hold their peers\n",
                (unsigned long long)n->unexpanded);
}

/* (module, node) of a rank as one sortable key, with its communicator rank. */
typedef struct place {
    uint64_t key;
    uint32_t module, rank;
} place;

static int cmp_place(const void *a, const void *b)
{
    const place *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return (x->rank > y->rank) - (x->rank < y->rank);
}

/* Module and node of every rank of c, in communicator rank order, and the counts for bulk
 * flows (built on first use). */
static int comm_places(rt_an_msgs *ms, const rt_comm_def *c, comm_cache **out)
{
    comm_cache *cc = &ms->cc[c - ms->defs->comms];
    if (cc->module) {
        *out = cc;
        return 0;
    }
    uint32_t p = c->size;
    place *pl = malloc(p * sizeof *pl);
    cc->module = malloc(p * sizeof *cc->module);
    cc->node = malloc(p * sizeof *cc->node);
    cc->same_node = malloc(p * sizeof *cc->same_node);
    cc->same_module = malloc(p * sizeof *cc->same_module);
    cc->mod_id = malloc(p * sizeof *cc->mod_id);
    cc->mod_count = calloc(p, sizeof *cc->mod_count);
    cc->mod_rep = malloc(p * sizeof *cc->mod_rep);
    if (!pl || !cc->module || !cc->node || !cc->same_node || !cc->same_module || !cc->mod_id ||
        !cc->mod_count || !cc->mod_rep) {
        free(pl);
        uint32_t **all[] = {&cc->module, &cc->node,      &cc->same_node, &cc->same_module,
                            &cc->mod_id, &cc->mod_count, &cc->mod_rep};
        for (size_t i = 0; i < sizeof all / sizeof *all; i++) {
            free(*all[i]);
            *all[i] = NULL;
        }
        return -RT_E_NOMEM;
    }
    for (uint32_t i = 0; i < p; i++) {
        uint32_t w = c->members[i];
        cc->module[i] = ms->defs->module[w];
        cc->node[i] = ms->defs->node[w];
        pl[i] = (place){
            .key = (uint64_t)cc->module[i] << 32 | cc->node[i], .module = cc->module[i], .rank = i};
    }
    qsort(pl, p, sizeof *pl, cmp_place);
    cc->nmods = 0;
    for (uint32_t i = 0, j; i < p; i = j) { /* runs of one node */
        for (j = i; j < p && pl[j].key == pl[i].key; j++)
            continue;
        for (uint32_t k = i; k < j; k++)
            cc->same_node[pl[k].rank] = j - i;
    }
    for (uint32_t i = 0, j; i < p; i = j) { /* runs of one module */
        for (j = i; j < p && pl[j].module == pl[i].module; j++)
            continue;
        for (uint32_t k = i; k < j; k++)
            cc->same_module[pl[k].rank] = j - i;
        cc->mod_id[cc->nmods] = pl[i].module;
        cc->mod_count[cc->nmods] = j - i;
        cc->mod_rep[cc->nmods++] = c->members[pl[i].rank];
    }
    free(pl);
    *out = cc;
    return 0;
}

typedef struct emitter {
    rt_an_msgs *ms;
    const rt_comm_def *c;
    const comm_cache *cc;
    rt_an_notes *notes;
    rt_an_msg m; /* the fields every message of this call shares */
    rt_an_msg_fn fn;
    void *ctx;
    sched_entry *rec; /* the schedule's messages are kept there (wire level), or NULL */
} emitter;

static int send_to(emitter *e, uint32_t peer, uint64_t bytes)
{
    e->m.dst = e->c->members[peer];
    e->m.bytes = bytes;
    e->m.count = 1;
    e->m.contype = (uint8_t)rt_an_contype(e->ms->defs, e->m.src, e->m.dst);
    sched_entry *s = e->rec;
    if (s && s->n < SCHED_MSGS) {
        s->msg[s->n].bytes = bytes;
        s->msg[s->n].dst = e->m.dst;
        s->msg[s->n].contype = e->m.contype;
    }
    if (s)
        s->n += s->n <= SCHED_MSGS; /* SCHED_MSGS + 1: too many to keep */
    return e->fn(e->ctx, &e->m);
}

/* Piece i of n bytes cut into p pieces as evenly as possible (the first n % p get one more). */
static uint64_t piece(uint64_t n, uint32_t p, uint32_t i)
{
    return n / p + (i < n % p);
}

/* bytes from rank me to every other member, as a few bulk messages: one per connection
 * type inside the module and one per other module. */
static int everyone(emitter *e, uint32_t me, uint64_t bytes)
{
    const comm_cache *cc = e->cc;
    uint32_t my_mod = cc->module[me];
    uint64_t shm = cc->same_node[me] - 1u, net = cc->same_module[me] - cc->same_node[me];
    int rc = 0;
    e->m.bytes = bytes;
    for (uint32_t i = 0; !rc && i < cc->nmods; i++) {
        e->m.dst = cc->mod_rep[i];
        if (cc->mod_id[i] != my_mod) {
            e->m.count = cc->mod_count[i];
            e->m.contype = RT_CT_GW;
            rc = e->fn(e->ctx, &e->m);
            continue;
        }
        if (shm) {
            e->m.count = shm;
            e->m.contype = RT_CT_SHM;
            rc = e->fn(e->ctx, &e->m);
        }
        if (!rc && net) {
            e->m.count = net;
            e->m.contype = RT_CT_NET;
            rc = e->fn(e->ctx, &e->m);
        }
    }
    return rc;
}

/* A block of n / p bytes to every other member: in bulk when the blocks are equal. */
static int blocks(emitter *e, uint32_t me, uint32_t p, uint64_t n)
{
    if (n % p == 0)
        return everyone(e, me, n / p);
    int rc = 0;
    for (uint32_t i = 0; !rc && i < p; i++)
        if (i != me)
            rc = send_to(e, i, piece(n, p, i));
    return rc;
}

static int on_step(void *ctx, const rt_coll_step *s)
{
    emitter *e = ctx;
    return s->kind == RT_STEP_SEND ? send_to(e, (uint32_t)s->peer, s->bytes) : 0;
}

/* The send blocks of a v or w collective (sblk, its per-peer counts) to every other member,
 * or n bytes cut in equal blocks when the trace does not have them (noted). */
static int v_blocks(emitter *e, uint32_t me, uint32_t p, uint64_t n, const uint64_t *sblk)
{
    if (!sblk) { /* equal blocks: a fact when the trace records per-peer counts */
        e->notes->approx += p > 1 && !(e->ms->defs->flags & RT_DEFS_COLL_PEERS);
        return blocks(e, me, p, n);
    }
    int rc = 0;
    for (uint32_t i = 0; !rc && i < p; i++)
        if (i != me)
            rc = send_to(e, i, sblk[i]);
    return rc;
}

/* Call level: the data each rank's call hands to each other member (see docs/analyzer.md);
 * sblk: the send blocks of a v or w collective, NULL when the trace has none. */
static int logical_flows(emitter *e, const rt_event *ev, uint32_t me, uint32_t p,
                         const uint64_t *sblk)
{
    int rc = 0;
    int rooted = ev->peer >= 0;
    uint32_t root = rooted ? (uint32_t)ev->peer : 0;
    switch (ev->op) {
    case RT_COLL_BCAST:
        if (me == root)
            rc = everyone(e, me, ev->bytes);
        break;
    case RT_COLL_SCATTERV:
        if (me == root)
            rc = v_blocks(e, me, p, ev->bytes, sblk);
        break;
    case RT_COLL_SCATTER:
        if (me == root)
            rc = blocks(e, me, p, ev->bytes);
        break;
    case RT_COLL_GATHER:
    case RT_COLL_GATHERV:
    case RT_COLL_REDUCE:
        if (rooted && me != root)
            rc = send_to(e, root, ev->bytes);
        break;
    case RT_COLL_ALLGATHER:
    case RT_COLL_ALLGATHERV:
    case RT_COLL_ALLREDUCE:
        rc = everyone(e, me, ev->bytes);
        break;
    case RT_COLL_ALLTOALLV:
    case RT_COLL_ALLTOALLW:
    case RT_COLL_REDUCE_SCATTER:
        rc = v_blocks(e, me, p, ev->bytes, sblk);
        break;
    case RT_COLL_ALLTOALL:
    case RT_COLL_REDUCE_SCATTER_BLOCK:
        rc = blocks(e, me, p, ev->bytes);
        break;
    case RT_COLL_SCAN:
    case RT_COLL_EXSCAN:
        for (uint32_t i = me + 1; !rc && i < p; i++)
            rc = send_to(e, i, ev->bytes);
        break;
    default: /* barrier: no data */
        break;
    }
    return rc;
}

static int same_key(const sched_key *a, const sched_key *b)
{
    return a->bytes == b->bytes && a->rbytes == b->rbytes && a->rank == b->rank &&
           a->comm == b->comm && a->root == b->root && a->op == b->op && a->alg == b->alg &&
           a->esize == b->esize && a->resize == b->resize;
}

/* The entry of key's rank: valid when it holds key's messages, else emptied for them to be
 * kept (NULL when out of memory: the schedule then runs, kept nowhere). */
static sched_entry *sched_find(rt_an_msgs *ms, const sched_key *key)
{
    if (!ms->sched && !(ms->sched = calloc(SCHED_WAYS, sizeof *ms->sched)))
        return NULL;
    sched_entry *s = &ms->sched[key->rank % SCHED_WAYS];
    if (s->valid && same_key(&s->key, key))
        return s;
    s->key = *key;
    s->valid = 0;
    s->n = 0;
    return s;
}

/* The kept messages of a collective, through e's fn as send_to gave them, and its notes. */
static int sched_replay(const sched_entry *s, emitter *e, rt_an_notes *notes)
{
    for (uint32_t i = 0; i < s->n; i++) {
        e->m.dst = s->msg[i].dst;
        e->m.bytes = s->msg[i].bytes;
        e->m.count = 1;
        e->m.contype = s->msg[i].contype;
        int rc = e->fn(e->ctx, &e->m);
        if (rc)
            return rc;
    }
    notes->unexpanded += s->unexpanded;
    notes->approx += s->approx;
    return 0;
}

/* The messages of one collective; sblk and rblk: its per-peer counts (rt_coll_call), NULL
 * when the trace has none. */
static int collective(rt_an_msgs *ms, const rt_an_level *l, const rt_event *ev, rt_an_msg_fn fn,
                      void *ctx, rt_an_notes *notes, const uint64_t *sblk, const uint64_t *rblk)
{
    if (ev->op > RT_COLL_NEIGHBOR_ALLTOALLW)
        return 0; /* handle and allocation pseudo-operations move no data */
    emitter e = {.ms = ms,
                 .fn = fn,
                 .ctx = ctx,
                 .notes = notes,
                 .m = {.src = ev->rank,
                       .comm = ev->comm,
                       .call = ev->call,
                       .origin = RT_AN_COLL,
                       .op = ev->op}};
    if (l->coll == RT_AN_COLL_PAYLOAD && l->level == RT_AN_CALL) {
        if (!ev->bytes)
            return 0;
        e.m.dst = ev->rank;
        e.m.bytes = ev->bytes;
        e.m.count = 1;
        e.m.contype = RT_CT_NONE;
        return fn(ctx, &e.m);
    }
    int neighbor = rt_coll_is_neighbor(ev->op);
    /* Wire level: the messages kept from the rank's last call with the same key, before any
     * lookup (a call that was kept passed them all, and the definitions do not change). */
    unsigned alg = l->alg[ev->op] == RT_AN_ALG_TRACE ? ms->trace_alg : l->alg[ev->op];
    if (l->level != RT_AN_CALL && !neighbor && !sblk && !rblk && alg <= UINT8_MAX) {
        sched_key key = {.bytes = ev->bytes,
                         .rbytes = ev->rbytes,
                         .rank = ev->rank,
                         .comm = ev->comm,
                         .root = ev->peer,
                         .op = ev->op,
                         .alg = (uint8_t)alg,
                         .esize = ev->esize,
                         .resize = ev->resize};
        e.rec = sched_find(ms, &key);
        if (e.rec && e.rec->valid)
            return sched_replay(e.rec, &e, notes);
    }
    const rt_comm_def *c = rt_defs_comm(ms->defs, ev->comm);
    const rt_nbr_def *nb = c && neighbor ? rt_defs_nbrs(ms->defs, ev->comm, ev->rank) : NULL;
    if (!c || (c->flags & RT_COMM_IS_INTER) || (neighbor && !nb)) {
        notes->unexpanded++;
        return 0;
    }
    int64_t me = rt_comm_position(c, ev->rank);
    if (me < 0)
        return 0; /* the reader checked membership; nothing to count */
    comm_cache *cc;
    if (comm_places(ms, c, &cc))
        return -RT_E_NOMEM;
    e.c = c;
    e.cc = cc;
    /* A neighbourhood collective hands each neighbour its block directly: at call level too
     * it is its one-round schedule. */
    if (l->level == RT_AN_CALL && !neighbor)
        return logical_flows(&e, ev, (uint32_t)me, c->size, sblk);
    rt_coll_call call = {.op = ev->op,
                         .size = c->size,
                         .me = (uint32_t)me,
                         .root = ev->peer,
                         .bytes = ev->bytes,
                         .rbytes = ev->rbytes,
                         .module = cc->module,
                         .node = cc->node,
                         .nbrs = nb,
                         .sblk = sblk,
                         .rblk = rblk,
                         .equal_blocks = !sblk && !rblk && (ms->defs->flags & RT_DEFS_COLL_PEERS),
                         .esize = rt_coll_event_esize(ev->esize, ev->resize)};
    int approx = 0;
    rt_err err;
    int rc = rt_coll_schedule(alg, &call, on_step, &e, &approx, &err);
    int unexpanded = 0;
    if (rc == -RT_E_INVAL) { /* an algorithm that does not fit this call: MPICH's choice */
        rc = rt_coll_schedule(RT_ALG_MPICH, &call, on_step, &e, &approx, &err);
        if (rc == -RT_E_INVAL) {
            unexpanded = 1;
            rc = 0;
        }
    }
    notes->unexpanded += unexpanded;
    notes->approx += !unexpanded && approx != 0;
    if (e.rec && !rc && e.rec->n <= SCHED_MSGS) {
        e.rec->approx = !unexpanded && approx != 0;
        e.rec->unexpanded = (uint8_t)unexpanded;
        e.rec->valid = 1;
    }
    return rc;
}

static int rma(rt_an_msgs *ms, const rt_event *ev, rt_an_msg_fn fn, void *ctx)
{
    int64_t target = rt_defs_peer_world(ms->defs, ev);
    const rt_win_def *w = rt_defs_win(ms->defs, ev->comm);
    if (target < 0 || !w)
        return 0;
    rt_an_msg m = {.src = ev->rank,
                   .dst = (uint32_t)target,
                   .count = 1,
                   .comm = w->comm,
                   .call = ev->call,
                   .contype = ev->contype,
                   .origin = RT_AN_RMA,
                   .op = ev->kind};
    int rc = 0;
    if (ev->kind != RT_EV_RMA_GET) { /* data to the target */
        m.bytes = ev->bytes;
        rc = fn(ctx, &m);
    }
    if (!rc && (ev->kind == RT_EV_RMA_GET || ev->rbytes)) { /* data back from the target */
        m.src = (uint32_t)target;
        m.dst = ev->rank;
        m.bytes = ev->rbytes;
        rc = fn(ctx, &m);
    }
    return rc;
}

/* ---- v and w collectives: held until their rows are in ------------------------------------ */

/* Blocks of a v or w collective's count arrays on its rank: the communicator's size, or the
 * longer neighbour list; 0 where the analyzer expands nothing (inter-communicators, no
 * lists), so that their rows are not kept. */
static uint32_t nblocks(const rt_an_msgs *ms, const rt_event *ev)
{
    const rt_comm_def *c = rt_defs_comm(ms->defs, ev->comm);
    if (!c || (c->flags & RT_COMM_IS_INTER))
        return 0;
    if (!rt_coll_is_neighbor(ev->op))
        return c->size;
    const rt_nbr_def *nb = rt_defs_nbrs(ms->defs, ev->comm, ev->rank);
    return !nb ? 0 : nb->nin > nb->nout ? nb->nin : nb->nout;
}

/* A COLL_PEER row of the held collective (the reader checked it against the collective). */
static int add_row(rt_an_msgs *ms, held *h, const rt_event *ev)
{
    if (!h->rows) { /* the first: every block 0 until its row comes */
        uint32_t n = nblocks(ms, &h->ev);
        if (n > h->cap) {
            uint64_t *b = realloc(h->blk, 2 * (size_t)n * sizeof *b);
            if (!b)
                return -RT_E_NOMEM;
            h->blk = b;
            h->cap = n;
        }
        if (h->cap) {
            memset(h->blk, 0, (size_t)h->cap * sizeof *h->blk);
            memset(h->blk + h->cap, 0, (size_t)h->cap * sizeof *h->blk);
        }
        h->n = n;
        h->rows = 1;
    }
    if (ev->peer >= 0 && (uint32_t)ev->peer < h->n) {
        h->blk[ev->peer] = ev->bytes;
        h->blk[h->cap + (uint32_t)ev->peer] = ev->rbytes;
    }
    return 0;
}

/* Expands the held collective with its rows, if any came. */
static int release(rt_an_msgs *ms, held *h, const rt_an_level *l, rt_an_msg_fn fn, void *ctx,
                   rt_an_notes *notes)
{
    rt_an_notes scratch = {0}; /* notes nobody asked for */
    unsigned sides = rt_coll_count_sides(h->ev.op);
    const uint64_t *s = h->rows && (sides & RT_SIDE_SEND) ? h->blk : NULL;
    const uint64_t *r = h->rows && (sides & RT_SIDE_RECV) ? h->blk + h->cap : NULL;
    h->on = 0;
    ms->nheld--;
    return collective(ms, l, &h->ev, fn, ctx, notes ? notes : &scratch, s, r);
}

/* The rank's held collective and ev (rt_an_msgs_of): *done = 1 when ev was one of its rows,
 * else the collective is expanded (and ev is next). Out of line, so that the per-event path
 * stays as small as it was. */
static int held_step(rt_an_msgs *ms, const rt_an_level *l, const rt_event *ev, rt_an_msg_fn fn,
                     void *ctx, rt_an_notes *notes, int *done) __attribute__((noinline));
static int held_step(rt_an_msgs *ms, const rt_an_level *l, const rt_event *ev, rt_an_msg_fn fn,
                     void *ctx, rt_an_notes *notes, int *done)
{
    held *h = &ms->held[ev->rank];
    *done = ev->kind == RT_EV_COLL_PEER;
    return *done ? add_row(ms, h, ev) : release(ms, h, l, fn, ctx, notes);
}

/* Holds a v or w collective until its rows are in. */
static int hold(rt_an_msgs *ms, const rt_event *ev) __attribute__((noinline));
static int hold(rt_an_msgs *ms, const rt_event *ev)
{
    held *h = &ms->held[ev->rank];
    h->ev = *ev;
    h->on = 1;
    h->rows = 0;
    ms->nheld++;
    return 0;
}

int rt_an_msgs_flush(rt_an_msgs *ms, const rt_an_level *l, rt_an_msg_fn fn, void *ctx,
                     rt_an_notes *notes)
{
    int rc = 0;
    for (uint32_t r = 0; !rc && r < ms->nranks; r++)
        if (ms->held[r].on)
            rc = release(ms, &ms->held[r], l, fn, ctx, notes);
    return rc;
}

/* rt_an_msgs_of for an event that may stand for messages, or whose rank holds a collective. */
static int msgs_of(rt_an_msgs *ms, const rt_an_level *l, const rt_event *ev, rt_an_msg_fn fn,
                   void *ctx, rt_an_notes *notes) __attribute__((noinline));
static int msgs_of(rt_an_msgs *ms, const rt_an_level *l, const rt_event *ev, rt_an_msg_fn fn,
                   void *ctx, rt_an_notes *notes)
{
    rt_an_notes scratch = {0}; /* notes nobody asked for */
    /* A pending call's collective did not complete: no messages. Its send was posted, and
     * counts as every send does when posted (docs/analyzer.md). */
    int pending_op = rt_pending_op(&ms->in_ops[ev->rank], ev);
    if (ms->nheld && ms->held[ev->rank].on) { /* a v or w collective: its rows, or the event
                                               * after them */
        int done, rc = held_step(ms, l, ev, fn, ctx, notes, &done);
        if (rc || done)
            return rc;
    }
    switch (ev->kind) {
    case RT_EV_SEND:
    case RT_EV_ISEND: {
        int64_t dst = rt_defs_peer_world(ms->defs, ev);
        if (dst < 0)
            return 0;
        rt_an_msg m = {.src = ev->rank,
                       .dst = (uint32_t)dst,
                       .bytes = ev->bytes,
                       .count = 1,
                       .comm = ev->comm,
                       .call = ev->call,
                       .contype = ev->contype,
                       .origin = RT_AN_P2P};
        return fn(ctx, &m);
    }
    case RT_EV_COLL_END:
    case RT_EV_NBC_COMPLETE:
        if (pending_op || !l->coll)
            return 0;
        if (rt_coll_count_sides(ev->op)) /* its rows, if any, come next */
            return hold(ms, ev);
        return collective(ms, l, ev, fn, ctx, notes ? notes : &scratch, NULL, NULL);
    case RT_EV_RMA_PUT:
    case RT_EV_RMA_GET:
    case RT_EV_RMA_ATOMIC:
        return l->rma ? rma(ms, ev, fn, ctx) : 0;
    default:
        return 0;
    }
}

/* The kinds msgs_of turns into messages. */
#define MSG_KINDS                                                                             \
    (UINT64_C(1) << RT_EV_SEND | UINT64_C(1) << RT_EV_ISEND | UINT64_C(1) << RT_EV_COLL_END | \
     UINT64_C(1) << RT_EV_NBC_COMPLETE | UINT64_C(1) << RT_EV_RMA_PUT |                       \
     UINT64_C(1) << RT_EV_RMA_GET | UINT64_C(1) << RT_EV_RMA_ATOMIC)

/* Most events (enter, leave, receives, requests) stand for no message: for them only the
 * rank's pending-call state moves, unless a v or w collective waits there for its rows. This
 * test inline, and msgs_of, with its frame, only for the others. */
static inline int msgs_step(rt_an_msgs *ms, const rt_an_level *l, const rt_event *ev,
                            rt_an_msg_fn fn, void *ctx, rt_an_notes *notes)
{
    unsigned k = ev->kind;
    if ((k < 64 && (MSG_KINDS >> k & 1)) || (ms->nheld && ms->held[ev->rank].on))
        return msgs_of(ms, l, ev, fn, ctx, notes);
    rt_pending_op(&ms->in_ops[ev->rank], ev);
    return 0;
}

int rt_an_msgs_of(rt_an_msgs *ms, const rt_an_level *l, const rt_event *ev, rt_an_msg_fn fn,
                  void *ctx, rt_an_notes *notes)
{
    return msgs_step(ms, l, ev, fn, ctx, notes);
}

int rt_an_msgs_block(rt_an_msgs *ms, const rt_an_level *l, const rt_event *ev, size_t n,
                     rt_an_msg_fn fn, void *ctx, rt_an_notes *notes)
{
    for (size_t i = 0; i < n; i++) {
        int rc = msgs_step(ms, l, &ev[i], fn, ctx, notes);
        if (rc)
            return rc;
    }
    return 0;
}
