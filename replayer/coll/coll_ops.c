/*
 * Per op: check the recorded bytes and rbytes against docs/tracer.md's table, derive the
 * sizes all ranks agree on, and run the algorithm. Nothing is emitted when a check fails.
 */
#include <inttypes.h>

#include "rt__coll.h"

#define BAD(...) return rt_err_set(err, RT_E_INVAL, __VA_ARGS__)

/* x == p * y without overflow. */
static int is_times(uint64_t x, uint32_t p, uint64_t y)
{
    return x % p == 0 && x / p == y;
}

/* Binomial tree: does relative rank vr of p forward data to children? */
static int has_children(uint32_t vr, uint32_t p)
{
    if (vr == 0)
        return p > 1;
    return (vr & 1) == 0 && vr + 1 < p;
}

uint64_t rt__op_size(const rt_coll_call *c)
{
    switch (c->op) {
    case RT_COLL_BCAST:
        return c->root >= 0 && (uint32_t)c->root == c->me ? c->bytes : c->rbytes;
    case RT_COLL_ALLGATHER:
    case RT_COLL_ALLGATHERV:
        return c->rbytes;
    case RT_COLL_ALLTOALL:
        return c->size ? c->bytes / c->size : 0;
    default:
        return c->bytes;
    }
}

/* Gather, gatherv, scatter, scatterv. own: the block this rank sends (gather) or receives
 * (scatter); whole: the root's total. */
static int rooted_blocks(rt__sched *s, unsigned alg, const rt_coll_call *c, rt_err *err)
{
    const char *name = rt_event_op_name(RT_EV_COLL_END, c->op);
    uint32_t p = c->size, root = (uint32_t)c->root;
    int at_root = c->me == root;
    int gather = c->op == RT_COLL_GATHER || c->op == RT_COLL_GATHERV;
    int v = c->op == RT_COLL_GATHERV || c->op == RT_COLL_SCATTERV;
    uint64_t own = gather ? c->bytes : c->rbytes, whole = gather ? c->rbytes : c->bytes;
    const char *wname = gather ? "rbytes" : "bytes", *oname = gather ? "bytes" : "rbytes";

    if (!at_root && whole)
        BAD("%s: %s must be 0 away from the root (got %" PRIu64 ")", name, wname, whole);
    if (own > UINT64_MAX / p)
        BAD("%s: %s %" PRIu64 " times %" PRIu32 " ranks overflows", name, oname, own, p);
    if (at_root && !v && !is_times(whole, p, own))
        BAD("%s: at the root %s (%" PRIu64 ") must be %" PRIu32 " times %s (%" PRIu64 ")", name,
            wname, whole, p, oname, own);
    if (at_root && v && whole < own)
        BAD("%s: at the root %s (%" PRIu64 ") is less than its own block %s (%" PRIu64 ")", name,
            wname, whole, oname, own);

    /* Equal blocks unless a v-variant's root cuts its known total; pieces by rank. */
    rt__blocks b = rt__blocks_of(at_root ? whole : own * p, p, root);
    rt__grp g = rt__rotate((rt__grp){p, c->me, 0, NULL}, root);
    if (v) {
        s->skip0 = 0; /* same shape whatever the real counts */
        s->approx = p > 1 && (at_root || (alg == RT_ALG_BINOMIAL && has_children(g.me, p)));
    }
    if (alg == RT_ALG_LINEAR)
        (gather ? rt__gather_linear : rt__scatter_linear)(s, &g, &b);
    else
        (gather ? rt__gather_binomial : rt__scatter_binomial)(s, &g, &b);
    return 0;
}

static int bcast(rt__sched *s, unsigned alg, const rt_coll_call *c, rt_err *err)
{
    uint32_t p = c->size;
    int at_root = c->me == (uint32_t)c->root;
    if (at_root && c->rbytes)
        BAD("bcast: rbytes must be 0 at the root (got %" PRIu64 ")", c->rbytes);
    if (!at_root && c->bytes)
        BAD("bcast: bytes must be 0 away from the root (got %" PRIu64 ")", c->bytes);
    uint64_t n = at_root ? c->bytes : c->rbytes;
    rt__grp g = rt__rotate((rt__grp){p, c->me, 0, NULL}, (uint32_t)c->root);
    rt__blocks b = rt__blocks_of(n, p, 0); /* scatter pieces by relative rank, as MPICH */
    switch (alg) {
    case RT_ALG_LINEAR:
        rt__bcast_linear(s, &g, n);
        break;
    case RT_ALG_BINOMIAL:
        rt__bcast_binomial(s, &g, n);
        break;
    case RT_ALG_SCATTER_RING:
        rt__scatter_binomial(s, &g, &b);
        rt__allgather_ring(s, &g, &b);
        break;
    case RT_ALG_SCATTER_RDB:
        rt__scatter_binomial(s, &g, &b);
        rt__allgather_rd(s, &g, &b);
        break;
    default:
        return rt__msa(s, c, n, alg == RT_ALG_MSA2 ? 2 : 1);
    }
    return 0;
}

static int allgather(rt__sched *s, unsigned alg, const rt_coll_call *c, rt_err *err)
{
    uint32_t p = c->size;
    if (c->op == RT_COLL_ALLGATHER && !is_times(c->rbytes, p, c->bytes))
        BAD("allgather: rbytes (%" PRIu64 ") must be %" PRIu32 " times bytes (%" PRIu64 ")",
            c->rbytes, p, c->bytes);
    if (c->op == RT_COLL_ALLGATHERV) {
        if (c->rbytes < c->bytes)
            BAD("allgatherv: rbytes (%" PRIu64 ") is less than bytes (%" PRIu64 ")", c->rbytes,
                c->bytes);
        s->approx = p > 1; /* rbytes, the same everywhere, is cut into equal blocks */
    }
    rt__grp g = {p, c->me, 0, NULL};
    rt__blocks b = rt__blocks_of(c->rbytes, p, 0);
    switch (alg) {
    case RT_ALG_RING:
        rt__allgather_ring(s, &g, &b);
        break;
    case RT_ALG_RDB:
        rt__allgather_rd(s, &g, &b);
        break;
    case RT_ALG_BRUCK:
        rt__allgather_bruck(s, &g, &b);
        break;
    default: /* gather_bcast */
        rt__gather_binomial(s, &g, &b);
        rt__bcast_binomial(s, &g, c->rbytes);
        break;
    }
    return 0;
}

static int alltoall(rt__sched *s, unsigned alg, const rt_coll_call *c, rt_err *err)
{
    uint32_t p = c->size;
    if (c->op == RT_COLL_ALLTOALL && (c->bytes != c->rbytes || c->bytes % p))
        BAD("alltoall: bytes (%" PRIu64 ") and rbytes (%" PRIu64 ") must be equal and a "
            "multiple of %" PRIu32,
            c->bytes, c->rbytes, p);
    if (c->op != RT_COLL_ALLTOALL) {
        s->skip0 = 0;
        s->approx = p > 1;
    }
    rt__grp g = {p, c->me, 0, NULL};
    if (alg == RT_ALG_DIRECT)
        rt__alltoall_direct(s, &g, c->bytes, c->rbytes);
    else if (alg == RT_ALG_PAIRWISE)
        rt__alltoall_pairwise(s, &g, c->bytes, c->rbytes);
    else
        rt__alltoall_bruck(s, &g, c->bytes, c->rbytes);
    return 0;
}

static int reductions(rt__sched *s, unsigned alg, const rt_coll_call *c, rt_err *err)
{
    const char *name = rt_event_op_name(RT_EV_COLL_END, c->op);
    uint32_t p = c->size;
    uint64_t n = c->bytes;
    rt__grp g = {p, c->me, 0, NULL};
    int levels = alg == RT_ALG_MSA2 ? 2 : 1;
    switch (c->op) {
    case RT_COLL_REDUCE: {
        uint64_t want = c->me == (uint32_t)c->root ? n : 0;
        if (c->rbytes != want)
            BAD("reduce: rbytes must be %" PRIu64 " here (got %" PRIu64 ")", want, c->rbytes);
        rt__grp r = rt__rotate(g, (uint32_t)c->root);
        if (alg == RT_ALG_LINEAR)
            rt__reduce_linear(s, &r, n);
        else if (alg == RT_ALG_BINOMIAL)
            rt__reduce_binomial(s, &r, n);
        else if (alg == RT_ALG_RABENSEIFNER)
            rt__reduce_rabenseifner(s, &g, (uint32_t)c->root, n);
        else
            return rt__msa(s, c, n, levels);
        return 0;
    }
    case RT_COLL_ALLREDUCE:
    case RT_COLL_SCAN:
    case RT_COLL_EXSCAN: {
        int ex = c->op == RT_COLL_EXSCAN;
        uint64_t want = ex && c->me == 0 ? 0 : n;
        if (c->rbytes != want)
            BAD("%s: rbytes must be %" PRIu64 " here (got %" PRIu64 ")", name, want, c->rbytes);
        if (alg == RT_ALG_MSA || alg == RT_ALG_MSA2)
            return rt__msa(s, c, n, levels);
        if (c->op != RT_COLL_ALLREDUCE)
            (alg == RT_ALG_LINEAR ? rt__scan_linear : rt__scan_rd)(s, &g, n, ex);
        else if (alg == RT_ALG_REDUCE_BCAST) {
            rt__reduce_binomial(s, &g, n);
            rt__bcast_binomial(s, &g, n);
        } else if (alg == RT_ALG_RDB)
            rt__allreduce_rd(s, &g, n);
        else if (alg == RT_ALG_RING)
            rt__allreduce_ring(s, &g, n);
        else
            rt__allreduce_rabenseifner(s, &g, n);
        return 0;
    }
    default: { /* reduce_scatter, reduce_scatter_block: bytes is the total everywhere */
        if (c->op == RT_COLL_REDUCE_SCATTER_BLOCK && !is_times(n, p, c->rbytes))
            BAD("reduce_scatter_block: bytes (%" PRIu64 ") must be %" PRIu32
                " times rbytes (%" PRIu64 ")",
                n, p, c->rbytes);
        if (c->op == RT_COLL_REDUCE_SCATTER) {
            if (c->rbytes > n)
                BAD("reduce_scatter: rbytes (%" PRIu64 ") is more than bytes (%" PRIu64 ")",
                    c->rbytes, n);
            s->approx = p > 1;
        }
        rt__blocks b = rt__blocks_of(n, p, 0);
        if (alg == RT_ALG_RING)
            rt__reduce_scatter_ring(s, &g, &b);
        else if (alg == RT_ALG_PAIRWISE)
            rt__reduce_scatter_pairwise(s, &g, &b);
        else
            rt__reduce_scatter_rh(s, &g, &b);
        return 0;
    }
    }
}

int rt__expand(rt__sched *s, unsigned alg, const rt_coll_call *c, rt_err *err)
{
    s->skip0 = 1;
    if (rt_coll_is_neighbor(c->op))
        return rt__neighbor(s, c, err);
    switch (c->op) {
    case RT_COLL_BARRIER:
        if (c->bytes || c->rbytes)
            BAD("barrier: bytes and rbytes must be 0 (got %" PRIu64 " and %" PRIu64 ")", c->bytes,
                c->rbytes);
        s->skip0 = 0; /* its messages are all 0 bytes */
        if (alg == RT_ALG_DISSEMINATION)
            rt__barrier_dissemination(s, &(rt__grp){c->size, c->me, 0, NULL});
        else if (alg == RT_ALG_BINOMIAL)
            rt__barrier_binomial(s, &(rt__grp){c->size, c->me, 0, NULL});
        else
            return rt__msa(s, c, 0, alg == RT_ALG_MSA2 ? 2 : 1);
        return 0;
    case RT_COLL_BCAST:
        return bcast(s, alg, c, err);
    case RT_COLL_GATHER:
    case RT_COLL_GATHERV:
    case RT_COLL_SCATTER:
    case RT_COLL_SCATTERV:
        return rooted_blocks(s, alg, c, err);
    case RT_COLL_ALLGATHER:
    case RT_COLL_ALLGATHERV:
        return allgather(s, alg, c, err);
    case RT_COLL_ALLTOALL:
    case RT_COLL_ALLTOALLV:
    case RT_COLL_ALLTOALLW:
        return alltoall(s, alg, c, err);
    default:
        return reductions(s, alg, c, err);
    }
}
