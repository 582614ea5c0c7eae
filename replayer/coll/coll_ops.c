/*
 * The table of algorithms (rt_coll_algs.def) and the schedules it names. Per op: check the
 * recorded bytes and rbytes against docs/tracer.md's table and derive the sizes all ranks
 * agree on (prep); per op and algorithm: the builder that emits the steps from them. Nothing
 * is emitted when a check fails.
 */
#include <inttypes.h>

#include "rt__coll.h"

#define BAD(...) return rt_err_set(err, RT_E_INVAL, __VA_ARGS__)

/* What an op's checks derive, for the builders. */
typedef struct args {
    const rt_coll_call *c;
    rt__grp g;    /* the communicator: group index = rank */
    rt__grp r;    /* rooted ops: g rotated so that the root is index 0; else g */
    rt__blocks b; /* the pieces the op cuts its data into (bcast, gather, scatter, allgather,
                   * reduce_scatter) */
    uint64_t n;   /* bcast: n; allgather: the total (rbytes); reductions: bytes */
} args;

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

/* ---- per op: checks and sizes ---------------------------------------------------------- */

static int prep_barrier(rt__sched *s, const rt_coll_call *c, rt_err *err)
{
    if (c->bytes || c->rbytes)
        BAD("barrier: bytes and rbytes must be 0 (got %" PRIu64 " and %" PRIu64 ")", c->bytes,
            c->rbytes);
    s->skip0 = 0; /* its messages are all 0 bytes */
    return 0;
}

static int prep_bcast(args *a, const rt_coll_call *c, rt_err *err)
{
    int at_root = c->me == (uint32_t)c->root;
    if (at_root && c->rbytes)
        BAD("bcast: rbytes must be 0 at the root (got %" PRIu64 ")", c->rbytes);
    if (!at_root && c->bytes)
        BAD("bcast: bytes must be 0 away from the root (got %" PRIu64 ")", c->bytes);
    a->n = at_root ? c->bytes : c->rbytes;
    a->b = rt__blocks_of(a->n, c->size, 0); /* scatter pieces by relative rank, as MPICH */
    return 0;
}

/* Gather, gatherv, scatter, scatterv. own: the block this rank sends (gather) or receives
 * (scatter); whole: the root's total. */
static int prep_rooted_blocks(rt__sched *s, args *a, const rt_coll_call *c, rt_err *err)
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

    /* Equal blocks unless a v-variant's root cuts its known total, by its per-peer counts
     * when the trace has them; pieces by rank. */
    a->b = rt__blocks_of(at_root ? whole : own * p, p, root);
    if (v) {
        s->skip0 = 0; /* same shape whatever the real counts */
        a->b.v = at_root ? (gather ? c->rblk : c->sblk) : NULL;
        s->approx = p > 1 && at_root && !a->b.v && !c->equal_blocks;
    }
    return 0;
}

static int prep_allgather(rt__sched *s, args *a, const rt_coll_call *c, rt_err *err)
{
    uint32_t p = c->size;
    if (c->op == RT_COLL_ALLGATHER && !is_times(c->rbytes, p, c->bytes))
        BAD("allgather: rbytes (%" PRIu64 ") must be %" PRIu32 " times bytes (%" PRIu64 ")",
            c->rbytes, p, c->bytes);
    if (c->op == RT_COLL_ALLGATHERV) {
        if (c->rbytes < c->bytes)
            BAD("allgatherv: rbytes (%" PRIu64 ") is less than bytes (%" PRIu64 ")", c->rbytes,
                c->bytes);
        /* rbytes, the same everywhere, is cut by the per-peer counts, else equally */
        s->approx = p > 1 && !c->rblk && !c->equal_blocks;
    }
    a->n = c->rbytes;
    a->b = rt__blocks_of(c->rbytes, p, 0);
    if (c->op == RT_COLL_ALLGATHERV)
        a->b.v = c->rblk;
    return 0;
}

static int prep_alltoall(rt__sched *s, const rt_coll_call *c, rt_err *err)
{
    uint32_t p = c->size;
    if (c->op == RT_COLL_ALLTOALL && (c->bytes != c->rbytes || c->bytes % p))
        BAD("alltoall: bytes (%" PRIu64 ") and rbytes (%" PRIu64 ") must be equal and a "
            "multiple of %" PRIu32,
            c->bytes, c->rbytes, p);
    if (c->op != RT_COLL_ALLTOALL) {
        s->skip0 = 0;
        s->approx = p > 1 && (!c->sblk || !c->rblk) && !c->equal_blocks;
    }
    return 0;
}

/* Reduce, allreduce, scan, exscan: n = bytes, and rbytes is n where the result lands. */
static int prep_reduction(const rt_coll_call *c, rt_err *err)
{
    const char *name = rt_event_op_name(RT_EV_COLL_END, c->op);
    uint64_t n = c->bytes, want = n;
    if (c->op == RT_COLL_REDUCE)
        want = c->me == (uint32_t)c->root ? n : 0;
    else if (c->op == RT_COLL_EXSCAN && c->me == 0)
        want = 0;
    if (c->rbytes != want)
        BAD("%s: rbytes must be %" PRIu64 " here (got %" PRIu64 ")", name, want, c->rbytes);
    return 0;
}

/* reduce_scatter, reduce_scatter_block: bytes is the total everywhere. */
static int prep_reduce_scatter(rt__sched *s, args *a, const rt_coll_call *c, rt_err *err)
{
    uint32_t p = c->size;
    uint64_t n = c->bytes;
    if (c->op == RT_COLL_REDUCE_SCATTER_BLOCK && !is_times(n, p, c->rbytes))
        BAD("reduce_scatter_block: bytes (%" PRIu64 ") must be %" PRIu32 " times rbytes (%" PRIu64
            ")",
            n, p, c->rbytes);
    a->b = rt__blocks_of(n, p, 0);
    if (c->op == RT_COLL_REDUCE_SCATTER) {
        if (c->rbytes > n)
            BAD("reduce_scatter: rbytes (%" PRIu64 ") is more than bytes (%" PRIu64 ")", c->rbytes,
                n);
        s->approx = p > 1 && !c->sblk && !c->equal_blocks;
        a->b.v = c->sblk; /* block k is rank k's share */
    }
    return 0;
}

static int prep(rt__sched *s, args *a, rt_err *err)
{
    const rt_coll_call *c = a->c;
    a->g = (rt__grp){c->size, c->me, 0, NULL, c->esize};
    a->r = rt__rooted(c->op) ? rt__rotate(a->g, (uint32_t)c->root) : a->g;
    a->n = c->bytes;
    s->skip0 = 1;
    if (rt_coll_is_neighbor(c->op))
        return rt__neighbor_check(s, c, err);
    switch (c->op) {
    case RT_COLL_BARRIER:
        return prep_barrier(s, c, err);
    case RT_COLL_BCAST:
        return prep_bcast(a, c, err);
    case RT_COLL_GATHER:
    case RT_COLL_GATHERV:
    case RT_COLL_SCATTER:
    case RT_COLL_SCATTERV:
        return prep_rooted_blocks(s, a, c, err);
    case RT_COLL_ALLGATHER:
    case RT_COLL_ALLGATHERV:
        return prep_allgather(s, a, c, err);
    case RT_COLL_ALLTOALL:
    case RT_COLL_ALLTOALLV:
    case RT_COLL_ALLTOALLW:
        return prep_alltoall(s, c, err);
    case RT_COLL_REDUCE_SCATTER:
    case RT_COLL_REDUCE_SCATTER_BLOCK:
        return prep_reduce_scatter(s, a, c, err);
    default: /* reduce, allreduce, scan, exscan */
        return prep_reduction(c, err);
    }
}

/* ---- per op and algorithm: the builders the table names ------------------------------- */

/* 0, or -RT_E_NOMEM (msa, msa2 only). */
typedef int (*build_fn)(rt__sched *s, const args *a);

static int barrier_dissemination(rt__sched *s, const args *a)
{
    rt__barrier_dissemination(s, &a->g);
    return 0;
}

static int barrier_binomial(rt__sched *s, const args *a)
{
    rt__barrier_binomial(s, &a->g);
    return 0;
}

static int bcast_linear(rt__sched *s, const args *a)
{
    rt__bcast_linear(s, &a->r, a->n);
    return 0;
}

static int bcast_binomial(rt__sched *s, const args *a)
{
    rt__bcast_binomial(s, &a->r, a->n);
    return 0;
}

static int bcast_scatter_ring(rt__sched *s, const args *a)
{
    rt__scatter_binomial(s, &a->r, &a->b);
    rt__allgather_ring(s, &a->r, &a->b);
    return 0;
}

static int bcast_scatter_rdb(rt__sched *s, const args *a)
{
    rt__scatter_binomial(s, &a->r, &a->b);
    rt__allgather_rd(s, &a->r, &a->b);
    return 0;
}

/* Gatherv and scatterv in a binomial tree: an inner node forwards blocks of sizes it does
 * not know. */
static void v_forwards(rt__sched *s, const args *a)
{
    unsigned op = a->c->op;
    /* the root knows every block when the trace has the per-peer counts */
    if ((op == RT_COLL_GATHERV || op == RT_COLL_SCATTERV) && has_children(a->r.me, a->r.n) &&
        !(a->r.me == 0 && (a->b.v || a->c->equal_blocks)))
        s->approx = 1;
}

static int gather_linear(rt__sched *s, const args *a)
{
    rt__gather_linear(s, &a->r, &a->b);
    return 0;
}

static int gather_binomial(rt__sched *s, const args *a)
{
    v_forwards(s, a);
    rt__gather_binomial(s, &a->r, &a->b);
    return 0;
}

static int scatter_linear(rt__sched *s, const args *a)
{
    rt__scatter_linear(s, &a->r, &a->b);
    return 0;
}

static int scatter_binomial(rt__sched *s, const args *a)
{
    v_forwards(s, a);
    rt__scatter_binomial(s, &a->r, &a->b);
    return 0;
}

static int allgather_ring(rt__sched *s, const args *a)
{
    rt__allgather_ring(s, &a->g, &a->b);
    return 0;
}

static int allgather_rd(rt__sched *s, const args *a)
{
    rt__allgather_rd(s, &a->g, &a->b);
    return 0;
}

static int allgather_bruck(rt__sched *s, const args *a)
{
    rt__allgather_bruck(s, &a->g, &a->b);
    return 0;
}

static int allgather_gather_bcast(rt__sched *s, const args *a)
{
    rt__gather_binomial(s, &a->g, &a->b);
    rt__bcast_binomial(s, &a->g, a->n);
    return 0;
}

static int alltoall_direct(rt__sched *s, const args *a)
{
    rt__alltoall_direct(s, &a->g, a->c->bytes, a->c->rbytes, a->c->sblk, a->c->rblk);
    return 0;
}

static int alltoall_pairwise(rt__sched *s, const args *a)
{
    rt__alltoall_pairwise(s, &a->g, a->c->bytes, a->c->rbytes, a->c->sblk, a->c->rblk);
    return 0;
}

static int alltoall_bruck(rt__sched *s, const args *a)
{
    /* Bruck forwards blocks of other ranks, whose counts no rank's array holds */
    s->approx |= a->c->op != RT_COLL_ALLTOALL && a->c->size > 1;
    rt__alltoall_bruck(s, &a->g, a->c->bytes, a->c->rbytes);
    return 0;
}

static int reduce_linear(rt__sched *s, const args *a)
{
    rt__reduce_linear(s, &a->r, a->n);
    return 0;
}

static int reduce_binomial(rt__sched *s, const args *a)
{
    rt__reduce_binomial(s, &a->r, a->n);
    return 0;
}

static int reduce_rabenseifner(rt__sched *s, const args *a)
{
    rt__reduce_rabenseifner(s, &a->g, (uint32_t)a->c->root, a->n);
    return 0;
}

static int allreduce_reduce_bcast(rt__sched *s, const args *a)
{
    rt__reduce_binomial(s, &a->g, a->n);
    rt__bcast_binomial(s, &a->g, a->n);
    return 0;
}

static int allreduce_rd(rt__sched *s, const args *a)
{
    rt__allreduce_rd(s, &a->g, a->n);
    return 0;
}

static int allreduce_ring(rt__sched *s, const args *a)
{
    rt__allreduce_ring(s, &a->g, a->n);
    return 0;
}

static int allreduce_rabenseifner(rt__sched *s, const args *a)
{
    rt__allreduce_rabenseifner(s, &a->g, a->n);
    return 0;
}

static int scan_linear(rt__sched *s, const args *a)
{
    rt__scan_linear(s, &a->g, a->n, a->c->op == RT_COLL_EXSCAN);
    return 0;
}

static int scan_rd(rt__sched *s, const args *a)
{
    rt__scan_rd(s, &a->g, a->n, a->c->op == RT_COLL_EXSCAN);
    return 0;
}

static int reduce_scatter_ring(rt__sched *s, const args *a)
{
    rt__reduce_scatter_ring(s, &a->g, &a->b);
    return 0;
}

static int reduce_scatter_pairwise(rt__sched *s, const args *a)
{
    rt__reduce_scatter_pairwise(s, &a->g, &a->b);
    return 0;
}

static int reduce_scatter_rh(rt__sched *s, const args *a)
{
    rt__reduce_scatter_rh(s, &a->g, &a->b);
    return 0;
}

static int rsb_ompi_rd(rt__sched *s, const args *a)
{
    rt__rsb_ompi_rd(s, &a->g, a->c->rbytes);
    return 0;
}

static int rsb_butterfly(rt__sched *s, const args *a)
{
    rt__rsb_ompi_butterfly(s, &a->g, a->c->rbytes);
    return 0;
}

static int rs_butterfly(rt__sched *s, const args *a)
{
    rt__rs_ompi_butterfly(s, &a->g, &a->b);
    return 0;
}

/* One collective of rank 0 inside another (c's communicator), as Open MPI's composed algorithms
 * call it through the communicator: by the algorithm forced for its op (rt_coll_call.forced),
 * else by Open MPI's own choice for its size. one: the part moves one element of a derived
 * datatype (Open MPI's default allgatherv), so that Open MPI's bcasts that cut the message by
 * elements hand over as with one element: scatter_allgather to linear, split_bintree to the
 * chain (the pipeline). */
static int ompi_part(rt__sched *s, const rt_coll_call *c, unsigned op, uint64_t bytes,
                     uint64_t rbytes, const uint64_t *sblk, int one)
{
    rt_coll_call part = *c;
    part.op = op;
    part.root = 0;
    part.bytes = bytes;
    part.rbytes = rbytes;
    part.sblk = sblk;
    part.rblk = NULL;
    rt_err err;
    unsigned alg = c->forced ? c->forced[op] : RT_ALG_OMPI;
    if (alg == RT_ALG_MPICH || alg == RT_ALG_OMPI || !rt_coll_alg_valid(op, alg))
        alg = rt_coll_select_ompi(&part);
    if (one && (alg == RT_ALG_OMPI_SCATTER_RDB || alg == RT_ALG_OMPI_SCATTER_RING))
        alg = RT_ALG_OMPI_LINEAR;
    else if (one && alg == RT_ALG_OMPI_SPLIT_BINTREE)
        alg = RT_ALG_PIPELINE;
    return rt__expand(s, alg, &part, &err);
}

/* Open MPI's basic linear reduce_scatter_block and non-overlapping reduce_scatter: a reduce of
 * the whole vector to rank 0, then a scatter (scatterv: coll/basic's linear) of the shares. */
static int rs_reduce_scatter(rt__sched *s, const args *a)
{
    const rt_coll_call *c = a->c;
    uint64_t n = c->bytes, at_root = c->me == 0 ? n : 0;
    int v = c->op == RT_COLL_REDUCE_SCATTER;
    int rc = ompi_part(s, c, RT_COLL_REDUCE, n, at_root, NULL, 0);
    return rc ? rc
              : ompi_part(s, c, v ? RT_COLL_SCATTERV : RT_COLL_SCATTER, at_root,
                          rt__piece(&a->b, c->me), v ? c->sblk : NULL, 0);
}

/* Open MPI's non-overlapping allreduce: a reduce to rank 0, then a bcast from it. */
static int allreduce_ompi_reduce_bcast(rt__sched *s, const args *a)
{
    const rt_coll_call *c = a->c;
    uint64_t n = a->n, at_root = c->me == 0 ? n : 0;
    int rc = ompi_part(s, c, RT_COLL_REDUCE, n, at_root, NULL, 0);
    return rc ? rc : ompi_part(s, c, RT_COLL_BCAST, at_root, n - at_root, NULL, 0);
}

/* Open MPI's basic linear allgather: a gather to rank 0, then a bcast of the whole. */
static int allgather_ompi_gather_bcast(rt__sched *s, const args *a)
{
    const rt_coll_call *c = a->c;
    uint64_t n = a->n, at_root = c->me == 0 ? n : 0;
    int rc = ompi_part(s, c, RT_COLL_GATHER, c->bytes, at_root, NULL, 0);
    return rc ? rc : ompi_part(s, c, RT_COLL_BCAST, at_root, n - at_root, NULL, 0);
}

static int neighbor_linear(rt__sched *s, const args *a)
{
    rt__neighbor_linear(s, a->c);
    return 0;
}

/* Open MPI's unsegmented trees and its barriers (coll_ompi.c). */
static int bcast_pipeline(rt__sched *s, const args *a)
{
    rt__bcast_tree(s, &a->r, RT__TREE_CHAIN, a->n);
    return 0;
}

static int bcast_binary_tree(rt__sched *s, const args *a)
{
    rt__bcast_tree(s, &a->r, RT__TREE_BINARY, a->n);
    return 0;
}

static int bcast_bmtree(rt__sched *s, const args *a)
{
    rt__bcast_tree(s, &a->r, RT__TREE_BMTREE, a->n);
    return 0;
}

static int bcast_knomial(rt__sched *s, const args *a)
{
    rt__bcast_tree(s, &a->r, RT__TREE_KNOMIAL, a->n);
    return 0;
}

static int reduce_pipeline(rt__sched *s, const args *a)
{
    rt__reduce_tree(s, &a->r, RT__TREE_CHAIN, a->n);
    return 0;
}

static int reduce_binary_tree(rt__sched *s, const args *a)
{
    rt__reduce_tree(s, &a->r, RT__TREE_BINARY, a->n);
    return 0;
}

static int barrier_ompi_linear(rt__sched *s, const args *a)
{
    rt__barrier_ompi_linear(s, &a->g);
    return 0;
}

static int barrier_ompi_rd(rt__sched *s, const args *a)
{
    rt__barrier_ompi_rd(s, &a->g);
    return 0;
}

static int barrier_ompi_double_ring(rt__sched *s, const args *a)
{
    rt__barrier_ompi_double_ring(s, &a->g);
    return 0;
}

static int barrier_ompi_tree(rt__sched *s, const args *a)
{
    rt__barrier_ompi_tree(s, &a->g);
    return 0;
}

static int reduce_ompi_in_order(rt__sched *s, const args *a)
{
    rt__reduce_ompi_in_order(s, &a->g, (uint32_t)a->c->root, a->n);
    return 0;
}

/* Open MPI's scatter_allgather bcasts; with fewer elements than ranks Open MPI runs its
 * linear bcast instead (rt_coll_ompi_runs says so too). */
static int bcast_ompi_scatter_handover(const args *a)
{
    return a->n / rt_coll_esize(a->g.esize, a->n) < a->g.n;
}

static int bcast_ompi_scatter_rdb(rt__sched *s, const args *a)
{
    if (bcast_ompi_scatter_handover(a)) {
        rt__bcast_ompi_linear(s, &a->g, (uint32_t)a->c->root, a->n);
        return 0;
    }
    s->skip0 = 0; /* Open MPI exchanges empty blocks too */
    return rt__bcast_ompi_scatter_rdb(s, &a->r, a->n);
}

static int bcast_ompi_scatter_ring(rt__sched *s, const args *a)
{
    if (bcast_ompi_scatter_handover(a))
        rt__bcast_ompi_linear(s, &a->g, (uint32_t)a->c->root, a->n);
    else {
        s->skip0 = 0; /* Open MPI passes empty blocks on too */
        rt__bcast_ompi_scatter_ring(s, &a->r, a->n);
    }
    return 0;
}

static int bcast_ompi_split_bintree(rt__sched *s, const args *a)
{
    rt__bcast_ompi_split_bintree(s, &a->r, a->n);
    return 0;
}

static int bcast_ompi_linear(rt__sched *s, const args *a)
{
    rt__bcast_ompi_linear(s, &a->g, (uint32_t)a->c->root, a->n);
    return 0;
}

static int reduce_ompi_linear(rt__sched *s, const args *a)
{
    rt__reduce_ompi_linear(s, &a->g, (uint32_t)a->c->root, a->n);
    return 0;
}

static int allreduce_ompi_linear(rt__sched *s, const args *a)
{
    rt__reduce_ompi_linear(s, &a->g, 0, a->n);
    rt__bcast_ompi_linear(s, &a->g, 0, a->n);
    return 0;
}

/* Open MPI's ring allreduce of fewer elements than ranks, and its Rabenseifner of fewer than
 * pof2, run its recursive doubling and its linear allreduce instead (rt_coll_ompi_runs says so
 * too): elements of the recorded size where the trace has it. */
static int allreduce_ompi_handover(const args *a, uint64_t least)
{
    return a->n / rt_coll_esize(a->g.esize, a->n) < least;
}

static int allreduce_ompi_ring(rt__sched *s, const args *a)
{
    if (allreduce_ompi_handover(a, a->g.n))
        return allreduce_rd(s, a);
    rt__allreduce_ompi_ring(s, &a->g, a->n);
    return 0;
}

static int allreduce_ompi_rabenseifner(rt__sched *s, const args *a)
{
    if (allreduce_ompi_handover(a, rt__pof2(a->g.n)))
        return allreduce_ompi_linear(s, a);
    rt__allreduce_ompi_rabenseifner(s, &a->g, a->n);
    return 0;
}

static int allgather_ompi_neighbor(rt__sched *s, const args *a)
{
    rt__allgather_ompi_neighbor(s, &a->g, &a->b);
    return 0;
}

/* Open MPI's default allgatherv: gatherv to rank 0, then a bcast of the total from it (Open
 * MPI's choice for its size, or the one forced: ompi_part). */
static int allgatherv_gatherv_bcast(rt__sched *s, const args *a)
{
    const rt_coll_call *c = a->c;
    uint64_t n = a->n, at_root = c->me == 0 ? n : 0;
    rt__gather_ompi_linear(s, &a->g, 0, &a->b, 1);
    return ompi_part(s, c, RT_COLL_BCAST, at_root, n - at_root, NULL, 1);
}

static int gather_ompi_linear(rt__sched *s, const args *a)
{
    rt__gather_ompi_linear(s, &a->g, (uint32_t)a->c->root, &a->b, 1);
    return 0;
}

static int gather_ompi_linear_sync(rt__sched *s, const args *a)
{
    s->skip0 = 0; /* the go-ahead and the empty second segment are messages */
    rt__gather_ompi_linear_sync(s, &a->g, (uint32_t)a->c->root, &a->b);
    return 0;
}

static int scatter_ompi_linear(rt__sched *s, const args *a)
{
    rt__gather_ompi_linear(s, &a->g, (uint32_t)a->c->root, &a->b, 0);
    return 0;
}

static int msa(rt__sched *s, const args *a)
{
    return rt__msa(s, a->c, a->n, 1);
}

static int msa2(rt__sched *s, const args *a)
{
    return rt__msa(s, a->c, a->n, 2);
}

/* ---- the table -------------------------------------------------------------------------- */

typedef struct cell {
    build_fn build; /* NULL: the algorithm does not exist for the op */
    const char *mpich;
    int ompi; /* coll_tuned_<op>_algorithm's value; 0: none */
} cell;

/* Per algorithm and op; the rows of RT_ALG_MPICH and RT_ALG_OMPI stay empty (their selections
 * pick a real one). An op named twice in a row fails to compile (-Woverride-init, in -Wextra). */
static const cell cells[RT_ALG_COUNT][RT_COLL_COUNT] = {
#define ON(op, builder, mpich, ompi) [RT_COLL_##op] = {builder, mpich, ompi},
#define RT_COLL_ALG(id, name, ons) [RT_ALG_##id] = {ons},
#include "rt_coll_algs.def"
#undef RT_COLL_ALG
#undef ON
};

/* The ops some algorithm exists for: those with a schedule, which mpich exists for. */
_Static_assert(RT_COLL_COUNT <= 32, "collective ops fit a 32-bit mask");
// clang-format off
static const uint32_t scheduled = 0u
#define ON(op, builder, mpich, ompi) | 1u << RT_COLL_##op
#define RT_COLL_ALG(id, name, ons) ons
#include "rt_coll_algs.def"
#undef RT_COLL_ALG
#undef ON
    ;
// clang-format on

int rt_coll_alg_valid(unsigned op, unsigned alg)
{
    if (op >= RT_COLL_COUNT || alg >= RT_ALG_COUNT)
        return 0;
    if (alg == RT_ALG_MPICH || alg == RT_ALG_OMPI)
        return (scheduled >> op) & 1u;
    return cells[alg][op].build != NULL;
}

const char *rt_coll_mpich_name(unsigned op, unsigned alg)
{
    return op < RT_COLL_COUNT && alg < RT_ALG_COUNT ? cells[alg][op].mpich : NULL;
}

int rt_coll_ompi_id(unsigned op, unsigned alg)
{
    return op < RT_COLL_COUNT && alg < RT_ALG_COUNT ? cells[alg][op].ompi : 0;
}

int rt__ompi_row(unsigned op, int id)
{
    for (unsigned a = 0; id > 0 && op < RT_COLL_COUNT && a < RT_ALG_COUNT; a++)
        if (cells[a][op].build && cells[a][op].ompi == id)
            return (int)a;
    return -1;
}

int rt__expand(rt__sched *s, unsigned alg, const rt_coll_call *c, rt_err *err)
{
    build_fn build = alg < RT_ALG_COUNT ? cells[alg][c->op].build : NULL;
    if (!build) /* a selection that picked what the table does not have */
        BAD("%s: no schedule of algorithm '%s'", rt_event_op_name(RT_EV_COLL_END, c->op),
            rt_coll_alg_name(alg));
    args a = {.c = c};
    int rc = prep(s, &a, err);
    return rc ? rc : build(s, &a);
}
