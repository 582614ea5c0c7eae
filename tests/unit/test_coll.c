/*
 * Unit tests for replayer/ collective schedules (rt_coll). Every op x algorithm x size x
 * root is expanded for all ranks of a small world and checked for global consistency:
 * sends and receives pair up per (src, dst) in order with equal bytes; a round-by-round
 * executor with rendezvous semantics finishes (no deadlock); data from every rank that
 * should arrive somewhere does (bitsets carried along the messages). Power-of-two worlds
 * are checked against the textbook message counts and volumes. Neighbourhood collectives:
 * test_coll_nbr.c.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "rt_test_main.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_coll.h"

/* ---- a world: every rank's schedule ------------------------------------------------------ */

int push(void *ctx, const rt_coll_step *st)
{
    steps *s = ctx;
    if (s->n == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 64;
        s->v = realloc(s->v, s->cap * sizeof *s->v);
        assert_non_null(s->v);
    }
    s->v[s->n++] = *st;
    return 0;
}

typedef struct setup {
    unsigned op, alg;
    uint32_t p;
    int32_t root;
    uint64_t b; /* per-rank block (bcast, reduce, allreduce, scan: the whole message) */
    const uint32_t *module, *node;
} setup;

static int rooted(unsigned op)
{
    return op == RT_COLL_BCAST || op == RT_COLL_GATHER || op == RT_COLL_GATHERV ||
           op == RT_COLL_SCATTER || op == RT_COLL_SCATTERV || op == RT_COLL_REDUCE;
}

static int has_schedule(unsigned op)
{
    return op <= RT_COLL_NEIGHBOR_ALLTOALLW;
}

/* What rank me records (docs/tracer.md) when every rank's block is b. */
static void recorded(const setup *su, uint32_t me, uint64_t *bytes, uint64_t *rbytes)
{
    uint64_t b = su->b, p = su->p;
    int at_root = su->root >= 0 && (uint32_t)su->root == me;
    switch (su->op) {
    case RT_COLL_BARRIER:
        *bytes = *rbytes = 0;
        break;
    case RT_COLL_BCAST:
        *bytes = at_root ? b : 0;
        *rbytes = at_root ? 0 : b;
        break;
    case RT_COLL_GATHER:
    case RT_COLL_GATHERV:
        *bytes = b;
        *rbytes = at_root ? p * b : 0;
        break;
    case RT_COLL_SCATTER:
    case RT_COLL_SCATTERV:
        *bytes = at_root ? p * b : 0;
        *rbytes = b;
        break;
    case RT_COLL_ALLGATHER:
    case RT_COLL_ALLGATHERV:
        *bytes = b;
        *rbytes = p * b;
        break;
    case RT_COLL_ALLTOALL:
    case RT_COLL_ALLTOALLV:
    case RT_COLL_ALLTOALLW:
        *bytes = *rbytes = p * b;
        break;
    case RT_COLL_REDUCE:
        *bytes = b;
        *rbytes = at_root ? b : 0;
        break;
    case RT_COLL_EXSCAN:
        *bytes = b;
        *rbytes = me ? b : 0;
        break;
    case RT_COLL_REDUCE_SCATTER:
    case RT_COLL_REDUCE_SCATTER_BLOCK:
        *bytes = p * b;
        *rbytes = b;
        break;
    default: /* allreduce, scan */
        *bytes = *rbytes = b;
        break;
    }
}

static rt_coll_call call_of(const setup *su, uint32_t me)
{
    rt_coll_call c = {.op = su->op,
                      .size = su->p,
                      .me = me,
                      .root = rooted(su->op) ? su->root : RT_PEER_NONE,
                      .module = su->module,
                      .node = su->node};
    recorded(su, me, &c.bytes, &c.rbytes);
    return c;
}

/* Field by field: the structs have padding. */
static void assert_same_steps(const steps *a, const steps *b)
{
    assert_int_equal(a->n, b->n);
    for (size_t i = 0; i < a->n; i++) {
        assert_int_equal(a->v[i].round, b->v[i].round);
        assert_int_equal(a->v[i].kind, b->v[i].kind);
        assert_int_equal(a->v[i].peer, b->v[i].peer);
        assert_int_equal(a->v[i].bytes, b->v[i].bytes);
    }
}

void world_free(world *w)
{
    for (uint32_t r = 0; r < w->p; r++)
        free(w->r[r].v);
    memset(w, 0, sizeof *w);
}

/* Every rank's steps; also checks the per-rank rules (rounds non-decreasing, peers). */
static void gen(world *w, const setup *su)
{
    memset(w, 0, sizeof *w);
    w->p = su->p;
    for (uint32_t me = 0; me < su->p; me++) {
        rt_coll_call c = call_of(su, me);
        rt_err err = {0};
        int rc = rt_coll_schedule(su->alg, &c, push, &w->r[me], &w->approx[me], &err);
        if (rc)
            fail_msg("%s/%s p=%u root=%d b=%llu rank %u: %d %s",
                     rt_event_op_name(RT_EV_COLL_END, su->op), rt_coll_alg_name(su->alg), su->p,
                     su->root, (unsigned long long)su->b, me, rc, err.msg);
        const steps *s = &w->r[me];
        for (size_t i = 0; i < s->n; i++) {
            if (i)
                assert_true(s->v[i].round >= s->v[i - 1].round);
            if (s->v[i].kind == RT_STEP_REDUCE) {
                assert_int_equal(s->v[i].peer, RT_PEER_NONE);
            } else {
                assert_true(s->v[i].peer >= 0 && (uint32_t)s->v[i].peer < su->p);
                assert_true((uint32_t)s->v[i].peer != me);
            }
        }
    }
}

/* ---- global checks: matching, execution, data flow --------------------------------------- */

static const rt_coll_step *step_at(const world *w, const pairing *f, size_t id)
{
    return &w->r[f->owner[id]].v[id - f->base[f->owner[id]]];
}

void match(const world *w, pairing *f, const char *what)
{
    uint32_t p = w->p;
    f->base[0] = 0;
    for (uint32_t r = 0; r < p; r++)
        f->base[r + 1] = f->base[r] + w->r[r].n;
    size_t total = f->base[p] ? f->base[p] : 1;
    f->partner = malloc(total * sizeof *f->partner);
    f->owner = malloc(total * sizeof *f->owner);
    f->ridx = malloc(total * sizeof *f->ridx);
    size_t *cnt = calloc((size_t)p * p * 2 + 1, sizeof *cnt);
    assert_true(f->partner && f->owner && f->ridx && cnt);
    for (uint32_t r = 0; r < p; r++) {
        uint32_t k = 0;
        for (size_t i = 0; i < w->r[r].n; i++) {
            const rt_coll_step *st = &w->r[r].v[i];
            size_t id = f->base[r] + i;
            if (i && st->round != w->r[r].v[i - 1].round)
                k++;
            f->owner[id] = r;
            f->ridx[id] = k;
            f->partner[id] = SIZE_MAX;
        }
        f->nrounds[r] = w->r[r].n ? k + 1 : 0;
    }
    /* queues per ordered pair: sends at [s*p+d][0], receives at [s*p+d][1] */
    size_t *off = calloc((size_t)p * p * 2 + 1, sizeof *off);
    assert_non_null(off);
    for (uint32_t r = 0; r < p; r++)
        for (size_t i = 0; i < w->r[r].n; i++) {
            const rt_coll_step *st = &w->r[r].v[i];
            if (st->kind == RT_STEP_SEND)
                cnt[((size_t)r * p + (uint32_t)st->peer) * 2]++;
            else if (st->kind == RT_STEP_RECV)
                cnt[((size_t)(uint32_t)st->peer * p + r) * 2 + 1]++;
        }
    for (size_t q = 0; q < (size_t)p * p; q++)
        if (cnt[2 * q] != cnt[2 * q + 1])
            fail_msg("%s: %zu sends %u->%u but %zu receives", what, cnt[2 * q], (unsigned)(q / p),
                     (unsigned)(q % p), cnt[2 * q + 1]);
    for (size_t q = 1; q <= (size_t)p * p * 2; q++)
        off[q] = off[q - 1] + cnt[q - 1];
    size_t *list = malloc((off[(size_t)p * p * 2] + 1) * sizeof *list);
    assert_non_null(list);
    memset(cnt, 0, ((size_t)p * p * 2 + 1) * sizeof *cnt);
    for (uint32_t r = 0; r < p; r++)
        for (size_t i = 0; i < w->r[r].n; i++) {
            const rt_coll_step *st = &w->r[r].v[i];
            size_t slot;
            if (st->kind == RT_STEP_SEND)
                slot = ((size_t)r * p + (uint32_t)st->peer) * 2;
            else if (st->kind == RT_STEP_RECV)
                slot = ((size_t)(uint32_t)st->peer * p + r) * 2 + 1;
            else
                continue;
            list[off[slot] + cnt[slot]++] = f->base[r] + i;
        }
    for (size_t q = 0; q < (size_t)p * p; q++)
        for (size_t k = 0; k < cnt[2 * q]; k++) {
            size_t s = list[off[2 * q] + k], d = list[off[2 * q + 1] + k];
            if (step_at(w, f, s)->bytes != step_at(w, f, d)->bytes)
                fail_msg("%s: message %zu %u->%u has %llu bytes sent, %llu received", what, k,
                         (unsigned)(q / p), (unsigned)(q % p),
                         (unsigned long long)step_at(w, f, s)->bytes,
                         (unsigned long long)step_at(w, f, d)->bytes);
            f->partner[s] = d;
            f->partner[d] = s;
        }
    free(list);
    free(off);
    free(cnt);
}

void flat_free(pairing *f)
{
    free(f->partner);
    free(f->owner);
    free(f->ridx);
}

/* A SEND carries what its rank knew when posting (rendezvous: the strictest MPI can be). */
void execute(const world *w, const pairing *f, uint64_t *know, const char *what)
{
    uint32_t p = w->p, cur[MAXP] = {0};
    size_t first[MAXP]; /* first step of the current round */
    uint64_t *snap = calloc(f->base[p] + 1, sizeof *snap);
    assert_non_null(snap);
    for (uint32_t r = 0; r < p; r++) {
        know[r] = 1ull << r;
        first[r] = 0;
    }
    for (uint32_t r = 0; r < p; r++) /* post round 0 */
        for (size_t i = 0; i < w->r[r].n && f->ridx[f->base[r] + i] == 0; i++)
            snap[f->base[r] + i] = know[r];
    for (int progress = 1; progress;) {
        progress = 0;
        for (uint32_t r = 0; r < p; r++) {
            if (cur[r] >= f->nrounds[r])
                continue;
            size_t i = first[r], end = i;
            int ready = 1;
            for (; end < w->r[r].n && f->ridx[f->base[r] + end] == cur[r]; end++) {
                size_t id = f->base[r] + end, q = f->partner[id];
                if (w->r[r].v[end].kind == RT_STEP_REDUCE)
                    continue;
                if (f->ridx[q] > cur[f->owner[q]])
                    ready = 0;
            }
            if (!ready)
                continue;
            for (; i < end; i++)
                if (w->r[r].v[i].kind == RT_STEP_RECV)
                    know[r] |= snap[f->partner[f->base[r] + i]];
            cur[r]++;
            first[r] = end;
            for (i = end; i < w->r[r].n && f->ridx[f->base[r] + i] == cur[r]; i++)
                snap[f->base[r] + i] = know[r];
            progress = 1;
        }
    }
    for (uint32_t r = 0; r < p; r++)
        if (cur[r] != f->nrounds[r])
            fail_msg("%s: deadlock, rank %u stuck in round %u of %u", what, r, cur[r],
                     f->nrounds[r]);
    free(snap);
}

/* Which ranks' data each rank must have heard of once the op is done. */
static void check_flow(const setup *su, const uint64_t *know, const char *what)
{
    uint32_t p = su->p;
    uint64_t all = p == 64 ? ~0ull : (1ull << p) - 1;
    for (uint32_t r = 0; r < p; r++) {
        uint64_t want;
        int at_root = su->root >= 0 && (uint32_t)su->root == r;
        switch (su->op) {
        case RT_COLL_BCAST:
        case RT_COLL_SCATTER:
        case RT_COLL_SCATTERV:
            want = 1ull << su->root;
            break;
        case RT_COLL_REDUCE:
        case RT_COLL_GATHER:
        case RT_COLL_GATHERV:
            want = at_root ? all : 0;
            break;
        case RT_COLL_SCAN:
            want = r == 63 ? all : (2ull << r) - 1;
            break;
        case RT_COLL_EXSCAN:
            want = (1ull << r) - 1;
            break;
        default:
            want = all;
            break;
        }
        if ((know[r] & want) != want)
            fail_msg("%s: rank %u heard of %#llx, needs %#llx", what, r,
                     (unsigned long long)know[r], (unsigned long long)want);
    }
}

/* Generate, match, execute, and check the data flow when every piece is non-empty. */
static void check_all(const setup *su, world *w)
{
    char what[160];
    snprintf(what, sizeof what, "%s/%s p=%u root=%d b=%llu%s%s",
             rt_event_op_name(RT_EV_COLL_END, su->op), rt_coll_alg_name(su->alg), su->p, su->root,
             (unsigned long long)su->b, su->module ? " modules" : "", su->node ? " nodes" : "");
    gen(w, su);
    pairing f;
    match(w, &f, what);
    uint64_t know[MAXP];
    execute(w, &f, know, what);
    if (su->op == RT_COLL_BARRIER || su->b >= su->p)
        check_flow(su, know, what);
    flat_free(&f);
}

/* ---- sweep --------------------------------------------------------------------------------- */

static const uint32_t sweep_p[] = {1, 2, 3, 4, 5, 7, 8, 16};
static const uint64_t sweep_b[] = {0, 1, 7, 13, 1000, 12288, 12289};

/* Module and node layouts for the MSA algorithms (NULL: none). */
static void layout(int which, uint32_t p, uint32_t *module, uint32_t *node, const uint32_t **m,
                   const uint32_t **n)
{
    for (uint32_t i = 0; i < p; i++) {
        switch (which) {
        case 1: /* three contiguous modules, two ranks per node */
            module[i] = i * 3 / p;
            node[i] = i / 2;
            break;
        case 2: /* interleaved modules, nodes spanning them */
            module[i] = i % 2;
            node[i] = i / 3;
            break;
        case 3: /* scattered ids */
            module[i] = (i * 7 + 3) % 4 * 10;
            node[i] = module[i] * 100 + i % 3;
            break;
        case 4: /* one module, several nodes */
            module[i] = 5;
            node[i] = i % 3;
            break;
        default: /* one rank per module */
            module[i] = i;
            node[i] = 0;
            break;
        }
    }
    *m = which ? module : NULL;
    *n = which ? node : NULL;
}

static void test_sweep(void **state)
{
    (void)state;
    world w;
    uint32_t module[MAXP], node[MAXP];
    unsigned runs = 0;
    for (unsigned op = 0; op < RT_COLL_COUNT; op++) {
        if (!has_schedule(op) || rt_coll_is_neighbor(op)) /* those: test_coll_nbr.c */
            continue;
        for (unsigned alg = 0; alg < RT_ALG_COUNT; alg++) {
            if (!rt_coll_alg_valid(op, alg))
                continue;
            int msa = alg == RT_ALG_MSA || alg == RT_ALG_MSA2;
            for (size_t ip = 0; ip < sizeof sweep_p / sizeof *sweep_p; ip++) {
                uint32_t p = sweep_p[ip];
                for (size_t ib = 0; ib < sizeof sweep_b / sizeof *sweep_b; ib++)
                    for (int lay = 0; lay <= (msa ? 5 : 0); lay++)
                        for (int32_t root = 0; root < (rooted(op) ? (int32_t)p : 1); root++) {
                            setup su = {op,          alg,  p,   rooted(op) ? root : RT_PEER_NONE,
                                        sweep_b[ib], NULL, NULL};
                            layout(lay, p, module, node, &su.module, &su.node);
                            if (lay == 5)
                                su.node = NULL;
                            check_all(&su, &w);
                            world_free(&w);
                            runs++;
                        }
            }
        }
    }
    print_message("%u worlds\n", runs);
    assert_true(runs > 10000);
}

/* Worlds beyond one batch of the direct alltoall and odd sizes for the folds. */
static void test_sweep_larger(void **state)
{
    (void)state;
    static const uint32_t ps[] = {33, 40, 64};
    static const unsigned ops[] = {RT_COLL_ALLTOALL,  RT_COLL_ALLTOALLV,      RT_COLL_ALLGATHER,
                                   RT_COLL_ALLREDUCE, RT_COLL_REDUCE_SCATTER, RT_COLL_BARRIER,
                                   RT_COLL_SCAN};
    uint32_t module[MAXP], node[MAXP];
    world w;
    for (size_t ip = 0; ip < 3; ip++)
        for (size_t io = 0; io < sizeof ops / sizeof *ops; io++)
            for (unsigned alg = 0; alg < RT_ALG_COUNT; alg++) {
                if (!rt_coll_alg_valid(ops[io], alg))
                    continue;
                setup su = {ops[io], alg, ps[ip], RT_PEER_NONE, 100, NULL, NULL};
                layout(1, ps[ip], module, node, &su.module, &su.node);
                check_all(&su, &w);
                world_free(&w);
            }
    /* rooted ops, a few roots */
    for (int32_t root = 0; root < 40; root += 13) {
        setup su = {RT_COLL_REDUCE, RT_ALG_RABENSEIFNER, 64, root, 4096, NULL, NULL};
        check_all(&su, &w);
        world_free(&w);
        su.p = 40;
        check_all(&su, &w);
        world_free(&w);
        su.op = RT_COLL_BCAST;
        su.alg = RT_ALG_SCATTER_RDB;
        check_all(&su, &w);
        world_free(&w);
    }
    /* the direct alltoall posts 32 peers per round: two rounds at p = 40 */
    setup su = {RT_COLL_ALLTOALL, RT_ALG_DIRECT, 40, RT_PEER_NONE, 8, NULL, NULL};
    gen(&w, &su);
    for (uint32_t r = 0; r < 40; r++) {
        assert_int_equal(w.r[r].n, 2 * 39);
        assert_int_equal(w.r[r].v[0].round, w.r[r].v[2 * 31 - 1].round);
        assert_int_not_equal(w.r[r].v[0].round, w.r[r].v[2 * 39 - 1].round);
    }
    world_free(&w);
}

/* ---- exact counts for powers of two -------------------------------------------------------- */

typedef struct sums {
    uint64_t msgs, bytes, reduced;
} sums;

static sums sum_world(const world *w)
{
    sums s = {0, 0, 0};
    for (uint32_t r = 0; r < w->p; r++)
        for (size_t i = 0; i < w->r[r].n; i++) {
            const rt_coll_step *st = &w->r[r].v[i];
            if (st->kind == RT_STEP_SEND) {
                s.msgs++;
                s.bytes += st->bytes;
            } else if (st->kind == RT_STEP_REDUCE) {
                s.reduced += st->bytes;
            }
        }
    return s;
}

static void expect(unsigned op, unsigned alg, uint32_t p, uint64_t b, uint64_t msgs, uint64_t bytes,
                   int64_t reduced)
{
    world w;
    for (int32_t root = 0; root < (rooted(op) ? (int32_t)p : 1); root++) {
        setup su = {op, alg, p, rooted(op) ? root : RT_PEER_NONE, b, NULL, NULL};
        check_all(&su, &w);
        sums s = sum_world(&w);
        if (s.msgs != msgs || s.bytes != bytes || (reduced >= 0 && s.reduced != (uint64_t)reduced))
            fail_msg("%s/%s p=%u root=%d: %llu messages, %llu bytes, %llu reduced; expected "
                     "%llu, %llu, %lld",
                     rt_event_op_name(RT_EV_COLL_END, op), rt_coll_alg_name(alg), p, root,
                     (unsigned long long)s.msgs, (unsigned long long)s.bytes,
                     (unsigned long long)s.reduced, (unsigned long long)msgs,
                     (unsigned long long)bytes, (long long)reduced);
        world_free(&w);
    }
}

static void test_counts_pow2(void **state)
{
    (void)state;
    for (uint32_t p = 2; p <= 16; p *= 2) {
        uint64_t lg = 0, n = 4096, b = 256; /* n and b divisible by every p */
        while ((1u << lg) < p)
            lg++;
        /* barrier */
        expect(RT_COLL_BARRIER, RT_ALG_DISSEMINATION, p, 0, p * lg, 0, 0);
        expect(RT_COLL_BARRIER, RT_ALG_BINOMIAL, p, 0, 2 * (p - 1), 0, 0);
        /* bcast: binomial p-1 messages of n; the scatter moves n/p * p/2 * lg */
        uint64_t scat = n / p * (p / 2) * lg;
        expect(RT_COLL_BCAST, RT_ALG_LINEAR, p, n, p - 1, (p - 1) * n, 0);
        expect(RT_COLL_BCAST, RT_ALG_BINOMIAL, p, n, p - 1, (p - 1) * n, 0);
        expect(RT_COLL_BCAST, RT_ALG_SCATTER_RING, p, n, p - 1 + p * (p - 1), scat + (p - 1) * n,
               0);
        expect(RT_COLL_BCAST, RT_ALG_SCATTER_RDB, p, n, p - 1 + p * lg, scat + (p - 1) * n, 0);
        /* reduce */
        expect(RT_COLL_REDUCE, RT_ALG_LINEAR, p, n, p - 1, (p - 1) * n, (p - 1) * n);
        expect(RT_COLL_REDUCE, RT_ALG_BINOMIAL, p, n, p - 1, (p - 1) * n, (p - 1) * n);
        expect(RT_COLL_REDUCE, RT_ALG_RABENSEIFNER, p, n, p * lg + p - 1, (p - 1) * n + lg * n / 2,
               (p - 1) * n);
        /* allreduce */
        expect(RT_COLL_ALLREDUCE, RT_ALG_REDUCE_BCAST, p, n, 2 * (p - 1), 2 * (p - 1) * n,
               (p - 1) * n);
        expect(RT_COLL_ALLREDUCE, RT_ALG_RDB, p, n, p * lg, p * lg * n, p * lg * n);
        expect(RT_COLL_ALLREDUCE, RT_ALG_RING, p, n, 2 * p * (p - 1), 2 * (p - 1) * n, (p - 1) * n);
        expect(RT_COLL_ALLREDUCE, RT_ALG_RABENSEIFNER, p, n, 2 * p * lg, 2 * (p - 1) * n,
               (p - 1) * n);
        /* gather, scatter: a tree moves b * p/2 per level */
        for (unsigned op = RT_COLL_GATHER; op <= RT_COLL_SCATTERV; op++) {
            expect(op, RT_ALG_LINEAR, p, b, p - 1, (p - 1) * b, 0);
            expect(op, RT_ALG_BINOMIAL, p, b, p - 1, b * (p / 2) * lg, 0);
        }
        /* allgather */
        for (unsigned op = RT_COLL_ALLGATHER; op <= RT_COLL_ALLGATHERV; op++) {
            expect(op, RT_ALG_RING, p, b, p * (p - 1), p * (p - 1) * b, 0);
            expect(op, RT_ALG_RDB, p, b, p * lg, p * (p - 1) * b, 0);
            expect(op, RT_ALG_BRUCK, p, b, p * lg, p * (p - 1) * b, 0);
            expect(op, RT_ALG_GATHER_BCAST, p, b, 2 * (p - 1), b * (p / 2) * lg + (p - 1) * p * b,
                   0);
        }
        /* alltoall */
        for (unsigned op = RT_COLL_ALLTOALL; op <= RT_COLL_ALLTOALLW; op++) {
            expect(op, RT_ALG_DIRECT, p, b, p * (p - 1), p * (p - 1) * b, 0);
            expect(op, RT_ALG_PAIRWISE, p, b, p * (p - 1), p * (p - 1) * b, 0);
            expect(op, RT_ALG_BRUCK, p, b, p * lg, p * lg * (p / 2) * b, 0);
        }
        /* reduce_scatter: total p*b, each rank ends with b */
        for (unsigned op = RT_COLL_REDUCE_SCATTER; op <= RT_COLL_REDUCE_SCATTER_BLOCK; op++) {
            uint64_t t = p * b;
            expect(op, RT_ALG_RING, p, b, p * (p - 1), (p - 1) * t, (p - 1) * t);
            expect(op, RT_ALG_PAIRWISE, p, b, p * (p - 1), (p - 1) * t, (p - 1) * t);
            expect(op, RT_ALG_RECURSIVE_HALVING, p, b, p * lg, (p - 1) * t, (p - 1) * t);
        }
        /* scan: a chain, or lg exchanges per rank */
        expect(RT_COLL_SCAN, RT_ALG_LINEAR, p, n, p - 1, (p - 1) * n, (p - 1) * n);
        expect(RT_COLL_SCAN, RT_ALG_RDB, p, n, p * lg, p * lg * n, -1);
        expect(RT_COLL_EXSCAN, RT_ALG_LINEAR, p, n, p - 1, (p - 1) * n, (p - 2) * n);
        expect(RT_COLL_EXSCAN, RT_ALG_RDB, p, n, p * lg, p * lg * n, -1);
    }
    /* 0 bytes: nothing but barriers moves */
    expect(RT_COLL_BCAST, RT_ALG_BINOMIAL, 8, 0, 0, 0, 0);
    expect(RT_COLL_ALLREDUCE, RT_ALG_RABENSEIFNER, 8, 0, 0, 0, 0);
    expect(RT_COLL_ALLTOALL, RT_ALG_BRUCK, 8, 0, 0, 0, 0);
    /* v-variants keep their shape: 0-byte messages stay */
    expect(RT_COLL_ALLTOALLV, RT_ALG_DIRECT, 4, 0, 12, 0, 0);
    expect(RT_COLL_GATHERV, RT_ALG_LINEAR, 4, 0, 3, 0, 0);
}

/* Non-power-of-two worlds: the folds add a message per extra rank at each end. */
static void test_counts_folded(void **state)
{
    (void)state;
    uint64_t n = 4096;
    /* p = 5 (pof2 4, rem 1): 2 fold messages + 4 * 2 exchanges */
    expect(RT_COLL_ALLREDUCE, RT_ALG_RDB, 5, n, 2 + 8, 10 * n, 9 * n);
    /* p = 7 (pof2 4, rem 3): 6 fold messages + 8 exchanges, 8 allgather, reductions
     * 3 * n (fold) + n * 3/4 per pof2 rank */
    expect(RT_COLL_ALLREDUCE, RT_ALG_RABENSEIFNER, 7, n, 6 + 8 + 8, 6 * n + 2 * 4 * n * 3 / 4,
           3 * n + 3 * n);
    /* Bruck allgather, p = 5: steps of 1, 2 and the last 1 block */
    expect(RT_COLL_ALLGATHER, RT_ALG_BRUCK, 5, 100, 15, 5 * 4 * 100, 0);
    /* dissemination, p = 5: ceil(log2 5) = 3 rounds */
    expect(RT_COLL_BARRIER, RT_ALG_DISSEMINATION, 5, 0, 15, 0, 0);
    /* binomial trees are p-1 messages whatever p */
    expect(RT_COLL_BCAST, RT_ALG_BINOMIAL, 7, n, 6, 6 * n, 0);
    expect(RT_COLL_REDUCE, RT_ALG_BINOMIAL, 7, n, 6, 6 * n, 6 * n);
}

/* ---- MPICH selection --------------------------------------------------------------------- */

static unsigned pick(unsigned op, uint32_t p, uint64_t b)
{
    setup su = {op, RT_ALG_MPICH, p, 0, b, NULL, NULL};
    rt_coll_call c = call_of(&su, 0);
    return rt_coll_select_mpich(&c);
}

static void test_select_mpich(void **state)
{
    (void)state;
    assert_int_equal(pick(RT_COLL_BARRIER, 8, 0), RT_ALG_DISSEMINATION);
    /* bcast: binomial below 8 ranks or up to 12288 bytes; then scatter + rdb (pof2, up to
     * 524288) or scatter + ring */
    assert_int_equal(pick(RT_COLL_BCAST, 7, 1 << 24), RT_ALG_BINOMIAL);
    assert_int_equal(pick(RT_COLL_BCAST, 8, 12288), RT_ALG_BINOMIAL);
    assert_int_equal(pick(RT_COLL_BCAST, 8, 12289), RT_ALG_SCATTER_RDB);
    assert_int_equal(pick(RT_COLL_BCAST, 8, 524288), RT_ALG_SCATTER_RDB);
    assert_int_equal(pick(RT_COLL_BCAST, 8, 524289), RT_ALG_SCATTER_RING);
    assert_int_equal(pick(RT_COLL_BCAST, 12, 12288), RT_ALG_BINOMIAL);
    assert_int_equal(pick(RT_COLL_BCAST, 12, 12289), RT_ALG_SCATTER_RING);
    /* reduce: binomial up to 2048 bytes or with fewer elements than pof2 */
    assert_int_equal(pick(RT_COLL_REDUCE, 8, 2048), RT_ALG_BINOMIAL);
    assert_int_equal(pick(RT_COLL_REDUCE, 8, 2056), RT_ALG_RABENSEIFNER);
    assert_int_equal(pick(RT_COLL_REDUCE, 1024, 4096), RT_ALG_BINOMIAL); /* 512 doubles */
    assert_int_equal(pick(RT_COLL_REDUCE, 1024, 8192), RT_ALG_RABENSEIFNER);
    /* allreduce: recursive doubling up to 8 bytes or fewer elements than pof2 */
    assert_int_equal(pick(RT_COLL_ALLREDUCE, 2, 8), RT_ALG_RDB);
    assert_int_equal(pick(RT_COLL_ALLREDUCE, 2, 16), RT_ALG_RABENSEIFNER);
    assert_int_equal(pick(RT_COLL_ALLREDUCE, 4, 16), RT_ALG_RDB);          /* 2 doubles < 4 */
    assert_int_equal(pick(RT_COLL_ALLREDUCE, 4, 12), RT_ALG_RDB);          /* 3 ints < 4 */
    assert_int_equal(pick(RT_COLL_ALLREDUCE, 4, 20), RT_ALG_RABENSEIFNER); /* 5 ints */
    assert_int_equal(pick(RT_COLL_ALLREDUCE, 8, 2048), RT_ALG_RABENSEIFNER);
    assert_int_equal(pick(RT_COLL_ALLREDUCE, 8, 63), RT_ALG_RABENSEIFNER); /* 63 bytes */
    /* allgather: pof2 below 524288 in all: rdb; else below 81920: bruck; else ring */
    assert_int_equal(pick(RT_COLL_ALLGATHER, 8, 65535), RT_ALG_RDB);
    assert_int_equal(pick(RT_COLL_ALLGATHER, 8, 65536), RT_ALG_RING);
    assert_int_equal(pick(RT_COLL_ALLGATHER, 5, 16383), RT_ALG_BRUCK);
    assert_int_equal(pick(RT_COLL_ALLGATHER, 5, 16384), RT_ALG_RING);
    assert_int_equal(pick(RT_COLL_ALLGATHERV, 5, 16383), RT_ALG_BRUCK);
    assert_int_equal(pick(RT_COLL_ALLGATHERV, 16, 32767), RT_ALG_RDB);
    /* alltoall by block: bruck (8+ ranks) up to 256, direct up to 32768, then pairwise */
    assert_int_equal(pick(RT_COLL_ALLTOALL, 8, 256), RT_ALG_BRUCK);
    assert_int_equal(pick(RT_COLL_ALLTOALL, 8, 257), RT_ALG_DIRECT);
    assert_int_equal(pick(RT_COLL_ALLTOALL, 8, 32768), RT_ALG_DIRECT);
    assert_int_equal(pick(RT_COLL_ALLTOALL, 8, 32769), RT_ALG_PAIRWISE);
    assert_int_equal(pick(RT_COLL_ALLTOALL, 7, 1), RT_ALG_DIRECT);
    assert_int_equal(pick(RT_COLL_ALLTOALL, 7, 32769), RT_ALG_PAIRWISE);
    assert_int_equal(pick(RT_COLL_ALLTOALLV, 8, 1), RT_ALG_DIRECT);
    assert_int_equal(pick(RT_COLL_ALLTOALLW, 8, 1 << 20), RT_ALG_DIRECT);
    /* reduce_scatter: total below 524288 */
    assert_int_equal(pick(RT_COLL_REDUCE_SCATTER, 8, 65535), RT_ALG_RECURSIVE_HALVING);
    assert_int_equal(pick(RT_COLL_REDUCE_SCATTER, 8, 65536), RT_ALG_PAIRWISE);
    assert_int_equal(pick(RT_COLL_REDUCE_SCATTER_BLOCK, 8, 65535), RT_ALG_RECURSIVE_HALVING);
    assert_int_equal(pick(RT_COLL_REDUCE_SCATTER_BLOCK, 8, 65536), RT_ALG_PAIRWISE);
    /* fixed choices */
    assert_int_equal(pick(RT_COLL_GATHER, 8, 1 << 20), RT_ALG_BINOMIAL);
    assert_int_equal(pick(RT_COLL_SCATTER, 8, 1), RT_ALG_BINOMIAL);
    assert_int_equal(pick(RT_COLL_GATHERV, 8, 1), RT_ALG_LINEAR);
    assert_int_equal(pick(RT_COLL_SCATTERV, 8, 1), RT_ALG_LINEAR);
    assert_int_equal(pick(RT_COLL_SCAN, 8, 1), RT_ALG_RDB);
    assert_int_equal(pick(RT_COLL_EXSCAN, 8, 1), RT_ALG_RDB);
    assert_int_equal(pick(RT_COLL_NEIGHBOR_ALLTOALL, 8, 1), RT_ALG_LINEAR);
    assert_int_equal(pick(RT_COLL_NEIGHBOR_ALLGATHERV, 8, 1), RT_ALG_LINEAR);
    assert_int_equal(pick(RT_COLL_ALLOCATE, 8, 1), RT_ALG_COUNT);

    /* rt_coll_schedule with mpich emits exactly the chosen algorithm's steps */
    for (unsigned op = 0; op < RT_COLL_NEIGHBOR_ALLGATHER; op++) {
        for (uint64_t b = 1; b <= 1 << 20; b *= 32) {
            world a, c;
            setup su = {op, RT_ALG_MPICH, 8, rooted(op) ? 3 : RT_PEER_NONE, b, NULL, NULL};
            gen(&a, &su);
            rt_coll_call call = call_of(&su, 0);
            su.alg = rt_coll_select_mpich(&call);
            gen(&c, &su);
            for (uint32_t r = 0; r < 8; r++) {
                assert_same_steps(&a.r[r], &c.r[r]);
            }
            world_free(&a);
            world_free(&c);
        }
    }
}

/* ---- MSA ------------------------------------------------------------------------------------- */

/* Messages (over all ranks) whose two ends have different ids. */
static uint64_t crossing(const world *w, const uint32_t *id)
{
    uint64_t n = 0;
    for (uint32_t r = 0; r < w->p; r++)
        for (size_t i = 0; i < w->r[r].n; i++)
            if (w->r[r].v[i].kind == RT_STEP_SEND && id[w->r[r].v[i].peer] != id[r])
                n++;
    return n;
}

static void test_msa_crossings(void **state)
{
    (void)state;
    static const uint32_t module[8] = {0, 0, 1, 1, 1, 2, 2, 2};
    static const uint32_t node[8] = {0, 0, 1, 2, 2, 3, 3, 4};
    world w;
    for (unsigned alg = RT_ALG_MSA; alg <= RT_ALG_MSA2; alg++) {
        const uint32_t *nd = alg == RT_ALG_MSA2 ? node : NULL;
        for (int32_t root = 0; root < 8; root++) {
            /* bcast and reduce: a tree among the 3 module leaders, 2 crossings; msa2 also
             * crosses each node boundary once (5 nodes: 4) */
            static const unsigned trees[] = {RT_COLL_BCAST, RT_COLL_REDUCE};
            for (unsigned k = 0; k < 2; k++) {
                setup su = {trees[k], alg, 8, root, 1000, module, nd};
                check_all(&su, &w);
                assert_int_equal(crossing(&w, module), 2);
                assert_int_equal(sum_world(&w).msgs, 7);
                if (nd)
                    assert_int_equal(crossing(&w, node), 4);
                world_free(&w);
            }
        }
        /* allreduce: recursive doubling among 3 leaders (fold in, 1 exchange, fold out) */
        setup su = {RT_COLL_ALLREDUCE, alg, 8, RT_PEER_NONE, 1000, module, nd};
        check_all(&su, &w);
        assert_int_equal(crossing(&w, module), 4);
        assert_int_equal(sum_world(&w).msgs, 2 * 5 + 4); /* 5 fan-in + 5 fan-out + 4 */
        world_free(&w);
        /* barrier: dissemination among 3 leaders, 3 * 2 */
        su.op = RT_COLL_BARRIER;
        su.b = 0;
        check_all(&su, &w);
        assert_int_equal(crossing(&w, module), 6);
        world_free(&w);
        /* scan, exscan: recursive-doubling exscan among the 3 runs' last ranks: 0<->1 and
         * 0<->2 */
        for (unsigned op = RT_COLL_SCAN; op <= RT_COLL_EXSCAN; op++) {
            setup sc = {op, alg, 8, RT_PEER_NONE, 1000, module, nd};
            check_all(&sc, &w);
            assert_int_equal(crossing(&w, module), 4);
            world_free(&w);
        }
    }
}

/* With no modules, or one, or one rank per module, msa is the flat algorithm. */
static void assert_same(const setup *a, const setup *b)
{
    world x, y;
    gen(&x, a);
    gen(&y, b);
    for (uint32_t r = 0; r < x.p; r++) {
        assert_same_steps(&x.r[r], &y.r[r]);
    }
    world_free(&x);
    world_free(&y);
}

static void test_msa_degenerate(void **state)
{
    (void)state;
    static const struct {
        unsigned op, flat;
    } pairs[] = {{RT_COLL_BCAST, RT_ALG_BINOMIAL}, {RT_COLL_REDUCE, RT_ALG_BINOMIAL},
                 {RT_COLL_ALLREDUCE, RT_ALG_RDB},  {RT_COLL_BARRIER, RT_ALG_DISSEMINATION},
                 {RT_COLL_SCAN, RT_ALG_RDB},       {RT_COLL_EXSCAN, RT_ALG_RDB}};
    uint32_t same[16], own[16];
    for (uint32_t i = 0; i < 16; i++) {
        same[i] = 7;
        own[i] = i;
    }
    for (size_t k = 0; k < sizeof pairs / sizeof *pairs; k++)
        for (uint32_t p = 1; p <= 16; p++)
            for (unsigned alg = RT_ALG_MSA; alg <= RT_ALG_MSA2; alg++) {
                uint64_t b = pairs[k].op == RT_COLL_BARRIER ? 0 : 999;
                int32_t root = rooted(pairs[k].op) ? (int32_t)(p / 2) : RT_PEER_NONE;
                setup flat = {pairs[k].op, pairs[k].flat, p, root, b, NULL, NULL};
                setup m = {pairs[k].op, alg, p, root, b, NULL, NULL};
                assert_same(&m, &flat);
                m.module = same;
                m.node = same;
                assert_same(&m, &flat);
                if (pairs[k].op != RT_COLL_SCAN && pairs[k].op != RT_COLL_EXSCAN) {
                    m.module = own; /* the leaders are everyone */
                    assert_same(&m, &flat);
                }
            }
}

/* ---- errors, approximations, the callback -------------------------------------------------- */

int count_only(void *ctx, const rt_coll_step *st)
{
    (void)st;
    (*(int *)ctx)++;
    return 0;
}

void expect_inval(unsigned alg, rt_coll_call c, const char *needle)
{
    rt_err err = {0};
    int n = 0, approx = 5;
    assert_int_equal(rt_coll_schedule(alg, &c, count_only, &n, &approx, &err), -RT_E_INVAL);
    assert_int_equal(n, 0);
    assert_int_equal(approx, 0);
    if (!strstr(err.msg, needle))
        fail_msg("error '%s' does not mention '%s'", err.msg, needle);
}

static void test_bad_input(void **state)
{
    (void)state;
    rt_coll_call c = {.op = RT_COLL_BCAST, .size = 4, .me = 1, .root = 0, .rbytes = 10};
    expect_inval(RT_ALG_RING, c, "no algorithm 'ring' (valid: mpich, linear, binomial");
    expect_inval(RT_ALG_COUNT, c, "out of range");
    rt_coll_call bad = c;
    bad.me = 4;
    expect_inval(RT_ALG_BINOMIAL, bad, "rank 4");
    bad = c;
    bad.root = 4;
    expect_inval(RT_ALG_BINOMIAL, bad, "root 4");
    bad.root = RT_PEER_NONE;
    expect_inval(RT_ALG_MPICH, bad, "root -1");
    bad = c;
    bad.size = 0;
    bad.me = 0;
    expect_inval(RT_ALG_BINOMIAL, bad, "size 0");
    bad = c;
    bad.op = RT_COLL_NEIGHBOR_ALLGATHER;
    expect_inval(RT_ALG_MPICH, bad, "neighbor_allgather: the trace holds no neighbour lists");
    bad.op = RT_COLL_ALLOCATE;
    expect_inval(RT_ALG_MPICH, bad, "allocate: not a data-moving");
    bad.op = RT_COLL_COUNT;
    expect_inval(RT_ALG_MPICH, bad, "out of range");
    /* bytes that contradict the op */
    bad = c;
    bad.bytes = 10;
    expect_inval(RT_ALG_BINOMIAL, bad, "away from the root");
    rt_coll_call ag = {
        .op = RT_COLL_ALLGATHER, .size = 4, .root = RT_PEER_NONE, .bytes = 10, .rbytes = 41};
    expect_inval(RT_ALG_RING, ag, "4 times bytes");
    rt_coll_call a2a = {
        .op = RT_COLL_ALLTOALL, .size = 4, .root = RT_PEER_NONE, .bytes = 10, .rbytes = 10};
    expect_inval(RT_ALG_MPICH, a2a, "multiple of 4");
    rt_coll_call ga = {.op = RT_COLL_GATHER, .size = 4, .root = 0, .bytes = 10, .rbytes = 30};
    expect_inval(RT_ALG_BINOMIAL, ga, "4 times bytes");
    rt_coll_call bar = {.op = RT_COLL_BARRIER, .size = 4, .root = RT_PEER_NONE, .bytes = 1};
    expect_inval(RT_ALG_MPICH, bar, "must be 0");
    rt_coll_call rsb = {.op = RT_COLL_REDUCE_SCATTER_BLOCK,
                        .size = 3,
                        .root = RT_PEER_NONE,
                        .bytes = 10,
                        .rbytes = 3};
    expect_inval(RT_ALG_MPICH, rsb, "3 times rbytes");
    rt_coll_call ex = {
        .op = RT_COLL_EXSCAN, .size = 3, .root = RT_PEER_NONE, .bytes = 10, .rbytes = 10};
    expect_inval(RT_ALG_MPICH, ex, "rbytes must be 0");
    rt_coll_call big = {
        .op = RT_COLL_GATHER, .size = 4, .me = 1, .root = 0, .bytes = UINT64_MAX / 2};
    expect_inval(RT_ALG_LINEAR, big, "overflows");
}

static int approx_of(unsigned op, unsigned alg, uint32_t p, uint32_t me, int32_t root)
{
    setup su = {op, alg, p, root, 100, NULL, NULL};
    rt_coll_call c = call_of(&su, me);
    int n = 0, approx = -1;
    assert_int_equal(rt_coll_schedule(alg, &c, count_only, &n, &approx, NULL), 0);
    return approx;
}

static void test_approx(void **state)
{
    (void)state;
    assert_int_equal(approx_of(RT_COLL_GATHERV, RT_ALG_LINEAR, 8, 2, 2), 1);   /* root */
    assert_int_equal(approx_of(RT_COLL_GATHERV, RT_ALG_LINEAR, 8, 3, 2), 0);   /* sends own */
    assert_int_equal(approx_of(RT_COLL_GATHERV, RT_ALG_BINOMIAL, 8, 3, 2), 0); /* leaf */
    assert_int_equal(approx_of(RT_COLL_GATHERV, RT_ALG_BINOMIAL, 8, 4, 2), 1); /* relays */
    assert_int_equal(approx_of(RT_COLL_SCATTERV, RT_ALG_LINEAR, 8, 0, 0), 1);
    assert_int_equal(approx_of(RT_COLL_SCATTERV, RT_ALG_LINEAR, 8, 1, 0), 0);
    assert_int_equal(approx_of(RT_COLL_GATHERV, RT_ALG_LINEAR, 1, 0, 0), 0);
    assert_int_equal(approx_of(RT_COLL_ALLGATHERV, RT_ALG_RING, 4, 0, RT_PEER_NONE), 1);
    assert_int_equal(approx_of(RT_COLL_ALLGATHER, RT_ALG_RING, 4, 0, RT_PEER_NONE), 0);
    assert_int_equal(approx_of(RT_COLL_ALLTOALLV, RT_ALG_BRUCK, 4, 0, RT_PEER_NONE), 1);
    assert_int_equal(approx_of(RT_COLL_ALLTOALLW, RT_ALG_DIRECT, 4, 0, RT_PEER_NONE), 1);
    assert_int_equal(approx_of(RT_COLL_ALLTOALL, RT_ALG_DIRECT, 4, 0, RT_PEER_NONE), 0);
    assert_int_equal(approx_of(RT_COLL_REDUCE_SCATTER, RT_ALG_RING, 4, 0, RT_PEER_NONE), 1);
    assert_int_equal(approx_of(RT_COLL_REDUCE_SCATTER_BLOCK, RT_ALG_RING, 4, 0, RT_PEER_NONE), 0);
    assert_int_equal(approx_of(RT_COLL_BCAST, RT_ALG_MPICH, 4, 0, 1), 0);
}

/* alltoallv with equal totals cut by distance: both ends agree even with a remainder;
 * reduce_scatter stays consistent whatever each rank's own count. */
static void test_v_consistency(void **state)
{
    (void)state;
    world w;
    static const unsigned a2a[] = {RT_ALG_DIRECT, RT_ALG_PAIRWISE, RT_ALG_BRUCK};
    static const unsigned rs[] = {RT_ALG_RING, RT_ALG_PAIRWISE, RT_ALG_RECURSIVE_HALVING};
    for (size_t k = 0; k < 3; k++)
        for (uint32_t p = 2; p <= 9; p++) {
            unsigned alg = a2a[k];
            setup su = {RT_COLL_ALLTOALLV, alg, p, RT_PEER_NONE, 0, NULL, NULL};
            gen(&w, &su);
            world_free(&w);
            /* totals of p*b + 3 bytes: pieces differ by distance */
            memset(&w, 0, sizeof w);
            w.p = p;
            for (uint32_t me = 0; me < p; me++) {
                rt_coll_call c = {.op = RT_COLL_ALLTOALLV,
                                  .size = p,
                                  .me = me,
                                  .root = RT_PEER_NONE,
                                  .bytes = 5 * p + 3,
                                  .rbytes = 5 * p + 3};
                assert_int_equal(rt_coll_schedule(alg, &c, push, &w.r[me], NULL, NULL), 0);
            }
            pairing f;
            uint64_t know[MAXP];
            match(&w, &f, "alltoallv with remainder");
            execute(&w, &f, know, "alltoallv with remainder");
            sums s = sum_world(&w);
            uint64_t t = 5 * p + 3, home = t / p + (t % p != 0); /* piece 0 stays home */
            if (alg != RT_ALG_BRUCK) /* Bruck relays blocks over several hops */
                assert_int_equal(s.bytes, p * (t - home));
            flat_free(&f);
            world_free(&w);
        }
    for (size_t k = 0; k < 3; k++) {
        unsigned alg = rs[k];
        memset(&w, 0, sizeof w);
        w.p = 6;
        for (uint32_t me = 0; me < 6; me++) {
            rt_coll_call c = {.op = RT_COLL_REDUCE_SCATTER,
                              .size = 6,
                              .me = me,
                              .root = RT_PEER_NONE,
                              .bytes = 1001,
                              .rbytes = me * 50};
            assert_int_equal(rt_coll_schedule(alg, &c, push, &w.r[me], NULL, NULL), 0);
        }
        pairing f;
        uint64_t know[MAXP];
        match(&w, &f, "reduce_scatter with unequal counts");
        execute(&w, &f, know, "reduce_scatter with unequal counts");
        flat_free(&f);
        world_free(&w);
    }
}

typedef struct stopper {
    int seen, after;
} stopper;

static int stop_after(void *ctx, const rt_coll_step *st)
{
    (void)st;
    stopper *s = ctx;
    return ++s->seen == s->after ? 7 : 0;
}

static void test_emit_stops(void **state)
{
    (void)state;
    rt_coll_call c = {.op = RT_COLL_ALLTOALL,
                      .size = 16,
                      .me = 3,
                      .root = RT_PEER_NONE,
                      .bytes = 1600,
                      .rbytes = 1600};
    stopper s = {0, 3};
    assert_int_equal(rt_coll_schedule(RT_ALG_DIRECT, &c, stop_after, &s, NULL, NULL), 7);
    assert_int_equal(s.seen, 3);
    rt_coll_totals t;
    assert_int_equal(rt_coll_totals_of(RT_ALG_DIRECT, &c, &t, NULL, NULL), 0);
    assert_int_equal(t.sends, 15);
    assert_int_equal(t.recvs, 15);
    assert_int_equal(t.send_bytes, 1500);
    assert_int_equal(t.rounds, 1);
    c.op = RT_COLL_BCAST;
    c.me = 2;
    c.root = 0;
    c.bytes = 0;
    c.rbytes = 64;
    assert_int_equal(rt_coll_totals_of(RT_ALG_BINOMIAL, &c, &t, NULL, NULL), 0);
    assert_int_equal(t.recvs, 1); /* relative rank 2: from 0, then to 3 */
    assert_int_equal(t.sends, 1);
    assert_int_equal(t.rounds, 2);
}

/* ---- names ------------------------------------------------------------------------------------
 */

static void test_names(void **state)
{
    (void)state;
    for (unsigned a = 0; a < RT_ALG_COUNT; a++)
        assert_int_equal(rt_coll_alg_lookup(rt_coll_alg_name(a)), (int)a);
    assert_null(rt_coll_alg_name(RT_ALG_COUNT));
    assert_string_equal(rt_coll_alg_name(RT_ALG_RDB), "recursive_doubling");
    assert_int_equal(rt_coll_alg_lookup("rdb"), RT_ALG_RDB);
    assert_int_equal(rt_coll_alg_lookup("RD"), RT_ALG_RDB);
    assert_int_equal(rt_coll_alg_lookup("rh"), RT_ALG_RECURSIVE_HALVING);
    assert_int_equal(rt_coll_alg_lookup("Binomial"), RT_ALG_BINOMIAL);
    assert_int_equal(rt_coll_alg_lookup("binomia"), -RT_E_NOTFOUND);
    assert_int_equal(rt_coll_alg_lookup(""), -RT_E_NOTFOUND);
    assert_int_equal(rt_coll_alg_lookup(NULL), -RT_E_NOTFOUND);

    assert_true(rt_coll_alg_valid(RT_COLL_BCAST, RT_ALG_SCATTER_RDB));
    assert_false(rt_coll_alg_valid(RT_COLL_BCAST, RT_ALG_RING));
    assert_true(rt_coll_alg_valid(RT_COLL_NEIGHBOR_ALLTOALL, RT_ALG_MPICH));
    assert_true(rt_coll_alg_valid(RT_COLL_NEIGHBOR_ALLTOALLW, RT_ALG_LINEAR));
    assert_false(rt_coll_alg_valid(RT_COLL_NEIGHBOR_ALLTOALL, RT_ALG_DIRECT));
    assert_false(rt_coll_alg_valid(RT_COLL_ALLOCATE, RT_ALG_MPICH));
    assert_false(rt_coll_alg_valid(RT_COLL_COUNT, RT_ALG_MPICH));
    assert_false(rt_coll_alg_valid(RT_COLL_BCAST, RT_ALG_COUNT));
    for (unsigned op = 0; op < RT_COLL_COUNT; op++)
        assert_int_equal(rt_coll_alg_valid(op, RT_ALG_MPICH), has_schedule(op));

    char buf[256];
    rt_coll_alg_list(RT_COLL_BCAST, buf, sizeof buf);
    assert_string_equal(buf, "mpich, linear, binomial, scatter_ring, scatter_rdb, msa, msa2");
    rt_coll_alg_list(RT_COLL_ALLTOALLV, buf, sizeof buf);
    assert_string_equal(buf, "mpich, bruck, direct, pairwise");
    rt_coll_alg_list(RT_COLL_NEIGHBOR_ALLGATHER, buf, sizeof buf);
    assert_string_equal(buf, "mpich, linear");
    rt_coll_alg_list(RT_COLL_DEALLOCATE, buf, sizeof buf);
    assert_string_equal(buf, "");
    rt_coll_alg_list(RT_COLL_BCAST, buf, 10);
    assert_int_equal(strlen(buf), 9);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_names),          cmocka_unit_test(test_bad_input),
        cmocka_unit_test(test_approx),         cmocka_unit_test(test_emit_stops),
        cmocka_unit_test(test_counts_pow2),    cmocka_unit_test(test_counts_folded),
        cmocka_unit_test(test_select_mpich),   cmocka_unit_test(test_msa_crossings),
        cmocka_unit_test(test_msa_degenerate), cmocka_unit_test(test_v_consistency),
        cmocka_unit_test(test_sweep),          cmocka_unit_test(test_sweep_larger),
        cmocka_unit_test(test_nbr_steps),      cmocka_unit_test(test_nbr_consistency),
        cmocka_unit_test(test_nbr_bad_input),
    };
    return rt_test_main("coll", tests, argc, argv);
}
