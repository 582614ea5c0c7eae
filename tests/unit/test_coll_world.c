/*
 * The worlds of rt_coll's unit tests (test_coll.h), linked into each of their executables:
 * every rank's schedule of one call (gen), the pairing of its sends and receives (match), a
 * round-by-round executor (execute), the data-flow check and all of them at once
 * (check_all), the totals of a world (sum_world), and the callbacks and refusal check that
 * count steps (count_only, expect_inval).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

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

int rooted(unsigned op)
{
    return op == RT_COLL_BCAST || op == RT_COLL_GATHER || op == RT_COLL_GATHERV ||
           op == RT_COLL_SCATTER || op == RT_COLL_SCATTERV || op == RT_COLL_REDUCE;
}

int has_schedule(unsigned op)
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

rt_coll_call call_of(const setup *su, uint32_t me)
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
void assert_same_steps(const steps *a, const steps *b)
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
void gen(world *w, const setup *su)
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
void check_all(const setup *su, world *w)
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

/* ---- the totals of a world, counting steps ---------------------------------------------- */

sums sum_world(const world *w)
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
