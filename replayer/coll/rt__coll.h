/*
 * Internals of rt_coll shared by its files (not installed).
 *
 * Every algorithm is written for a group of ranks whose root (for rooted algorithms) is
 * index 0: callers rotate the group. Algorithms return nothing; the first non-zero result of
 * the emit callback is kept in the schedule and mutes the rest, so loops only check
 * rt__stopped() where a schedule can be long.
 */
#ifndef RT__COLL_H
#define RT__COLL_H

#include <stdint.h>

#include "rt_coll.h"

typedef struct rt__sched {
    rt_coll_emit_fn emit;
    void *ctx;
    uint32_t round;
    int used;  /* the current round has steps */
    int rc;    /* non-zero: emit said stop */
    int skip0; /* leave out 0-byte messages: every rank knows every size */
    int approx;
} rt__sched;

/* Group index i (relative to the group's root) is base index (i + off) mod n, which is
 * communicator rank rank[base], or the base index itself when rank is NULL. */
typedef struct rt__grp {
    uint32_t n, me, off;
    const uint32_t *rank;
    uint32_t esize; /* the data's element size (rt_coll_call.esize); 0: unknown, guessed */
} rt__grp;

static inline int32_t rt__at(const rt__grp *g, uint32_t i)
{
    uint64_t b = ((uint64_t)i + g->off) % g->n;
    return (int32_t)(g->rank ? g->rank[b] : b);
}

/* The same group with its index root as index 0. */
static inline rt__grp rt__rotate(rt__grp g, uint32_t root)
{
    g.off = (uint32_t)(((uint64_t)g.off + root) % g.n);
    g.me = (uint32_t)(((uint64_t)g.me + g.n - root) % g.n);
    return g;
}

static inline uint32_t rt__pof2(uint32_t p) /* largest power of two <= p (p >= 1) */
{
    uint32_t k = 1;
    while (k <= p / 2)
        k <<= 1;
    return k;
}

static inline int rt__stopped(const rt__sched *s)
{
    return s->rc != 0;
}

/* ---- steps (coll.c) ------------------------------------------------------------------- */

void rt__emit(rt__sched *s, rt_coll_step_kind kind, int32_t peer, uint64_t bytes);
/* Starts a new round unless the current one is still empty. */
void rt__next(rt__sched *s);

static inline void rt__send(rt__sched *s, int32_t peer, uint64_t bytes)
{
    if (bytes || !s->skip0)
        rt__emit(s, RT_STEP_SEND, peer, bytes);
}

static inline void rt__recv(rt__sched *s, int32_t peer, uint64_t bytes)
{
    if (bytes || !s->skip0)
        rt__emit(s, RT_STEP_RECV, peer, bytes);
}

static inline void rt__reduce(rt__sched *s, uint64_t bytes)
{
    if (bytes)
        rt__emit(s, RT_STEP_REDUCE, RT_PEER_NONE, bytes);
}

/* ---- pieces ----------------------------------------------------------------------------- */

/* n bytes cut into parts pieces (the first n % parts one byte larger), or the pieces v
 * gives (the per-peer counts of a v collective, summing to n) when v is not NULL; piece i is
 * base piece (i + rot) mod parts. */
typedef struct rt__blocks {
    uint64_t n;
    uint32_t parts, rot;
    const uint64_t *v;
} rt__blocks;

static inline rt__blocks rt__blocks_of(uint64_t n, uint32_t parts, uint32_t rot)
{
    rt__blocks b = {n, parts, rot, NULL};
    return b;
}

/* Bytes of pieces i .. i+len-1 (indices mod parts, len <= parts). */
uint64_t rt__span(const rt__blocks *b, uint32_t i, uint32_t len);

static inline uint64_t rt__piece(const rt__blocks *b, uint32_t i)
{
    return rt__span(b, i, 1);
}

/* ---- trees and linear (coll_tree.c); root = group index 0 --------------------------- */

void rt__bcast_linear(rt__sched *s, const rt__grp *g, uint64_t n);
void rt__bcast_binomial(rt__sched *s, const rt__grp *g, uint64_t n);
void rt__reduce_linear(rt__sched *s, const rt__grp *g, uint64_t n);
void rt__reduce_binomial(rt__sched *s, const rt__grp *g, uint64_t n);
/* Pieces are indexed by group index (blocks b covers g->n parts). */
void rt__gather_linear(rt__sched *s, const rt__grp *g, const rt__blocks *b);
void rt__gather_binomial(rt__sched *s, const rt__grp *g, const rt__blocks *b);
void rt__scatter_linear(rt__sched *s, const rt__grp *g, const rt__blocks *b);
void rt__scatter_binomial(rt__sched *s, const rt__grp *g, const rt__blocks *b);
void rt__barrier_dissemination(rt__sched *s, const rt__grp *g);
void rt__barrier_binomial(rt__sched *s, const rt__grp *g);

/* ---- recursive doubling and halving (coll_rd.c); rootless unless said ------------------ */

void rt__allreduce_rd(rt__sched *s, const rt__grp *g, uint64_t n);
void rt__allreduce_rabenseifner(rt__sched *s, const rt__grp *g, uint64_t n);
/* Rooted at group index root (the fold uses unrotated indices, as MPICH does). */
void rt__reduce_rabenseifner(rt__sched *s, const rt__grp *g, uint32_t root, uint64_t n);
/* Every member holds piece (group index) of b; afterwards all hold all. */
void rt__allgather_rd(rt__sched *s, const rt__grp *g, const rt__blocks *b);
void rt__reduce_scatter_rh(rt__sched *s, const rt__grp *g, const rt__blocks *b);
void rt__scan_rd(rt__sched *s, const rt__grp *g, uint64_t n, int exclusive);

/* ---- rings, Bruck, pairwise, chains (coll_ring.c) ------------------------------------- */

void rt__allgather_ring(rt__sched *s, const rt__grp *g, const rt__blocks *b);
void rt__allgather_bruck(rt__sched *s, const rt__grp *g, const rt__blocks *b);
void rt__reduce_scatter_ring(rt__sched *s, const rt__grp *g, const rt__blocks *b);
void rt__reduce_scatter_pairwise(rt__sched *s, const rt__grp *g, const rt__blocks *b);
void rt__allreduce_ring(rt__sched *s, const rt__grp *g, uint64_t n);
void rt__scan_linear(rt__sched *s, const rt__grp *g, uint64_t n, int exclusive);

/* ---- all-to-all (coll_alltoall.c) ------------------------------------------------------- */

/* This rank sends piece (dst - me) mod p of sent to dst and receives piece (me - src) mod p
 * of recvd from src: equal blocks when sent and recvd are p * block. */
/* With the per-peer counts (sblk, rblk not NULL, indexed by group index) direct and pairwise
 * send sblk[dst] and receive rblk[src] instead. */
void rt__alltoall_direct(rt__sched *s, const rt__grp *g, uint64_t sent, uint64_t recvd,
                         const uint64_t *sblk, const uint64_t *rblk);
void rt__alltoall_pairwise(rt__sched *s, const rt__grp *g, uint64_t sent, uint64_t recvd,
                           const uint64_t *sblk, const uint64_t *rblk);
void rt__alltoall_bruck(rt__sched *s, const rt__grp *g, uint64_t sent, uint64_t recvd);

/* ---- Open MPI 4.1's trees and barriers (coll_ompi.c); root = group index 0 ------- */

typedef enum rt__tree_kind {
    RT__TREE_CHAIN,   /* pipeline */
    RT__TREE_BINARY,  /* binary_tree */
    RT__TREE_BMTREE,  /* bmtree */
    RT__TREE_KNOMIAL, /* knomial, radix 4 */
    RT__TREE_IN_ORDER /* the in-order binary tree of reduce in_order_binary, rooted at p-1 */
} rt__tree_kind;

void rt__bcast_tree(rt__sched *s, const rt__grp *g, rt__tree_kind kind, uint64_t n);
void rt__reduce_tree(rt__sched *s, const rt__grp *g, rt__tree_kind kind, uint64_t n);
void rt__barrier_ompi_linear(rt__sched *s, const rt__grp *g);
void rt__barrier_ompi_rd(rt__sched *s, const rt__grp *g);
void rt__barrier_ompi_double_ring(rt__sched *s, const rt__grp *g);
void rt__barrier_ompi_tree(rt__sched *s, const rt__grp *g);
/* Rank order, not relative to the root: g is the communicator unrotated. b (gather,
 * scatter) holds the pieces by rank relative to the root. */
void rt__bcast_ompi_linear(rt__sched *s, const rt__grp *g, uint32_t root, uint64_t n);
void rt__reduce_ompi_linear(rt__sched *s, const rt__grp *g, uint32_t root, uint64_t n);
/* Open MPI's in_order_binary reduce: the in-order tree rooted at rank p-1, then to root. */
void rt__reduce_ompi_in_order(rt__sched *s, const rt__grp *g, uint32_t root, uint64_t n);
/* Open MPI's scatter_allgather (recursive doubling) and scatter_allgather_ring bcasts, g rotated
 * (root at index 0), at least p elements (rt_coll_elem_size); the first -RT_E_NOMEM when its
 * bookkeeping gets no memory. */
int rt__bcast_ompi_scatter_rdb(rt__sched *s, const rt__grp *g, uint64_t n);
void rt__bcast_ompi_scatter_ring(rt__sched *s, const rt__grp *g, uint64_t n);
/* Open MPI's split_bintree bcast (segment size 0), g rotated; the pipeline below 2 elements. */
void rt__bcast_ompi_split_bintree(rt__sched *s, const rt__grp *g, uint64_t n);
void rt__gather_ompi_linear(rt__sched *s, const rt__grp *g, uint32_t root, const rt__blocks *b,
                            int gather);
/* Open MPI's gather linear_sync (first segment: the whole block), rank order as above. */
void rt__gather_ompi_linear_sync(rt__sched *s, const rt__grp *g, uint32_t root,
                                 const rt__blocks *b);
/* Open MPI's ring and Rabenseifner allreduce, pieces cut by elements (rt_coll_elem_size). */
void rt__allreduce_ompi_ring(rt__sched *s, const rt__grp *g, uint64_t n);
void rt__allreduce_ompi_rabenseifner(rt__sched *s, const rt__grp *g, uint64_t n);
/* Open MPI's neighbor exchange allgather(v) (the ring on an odd number of ranks). */
void rt__allgather_ompi_neighbor(rt__sched *s, const rt__grp *g, const rt__blocks *b);
/* Open MPI's reduce_scatter_block recursive doubling and butterfly (coll_ompi_rsb.c), blocks
 * of block bytes. */
void rt__rsb_ompi_rd(rt__sched *s, const rt__grp *g, uint64_t block);
void rt__rsb_ompi_butterfly(rt__sched *s, const rt__grp *g, uint64_t block);
/* Open MPI's reduce_scatter butterfly: rank k's share is piece k of b. */
void rt__rs_ompi_butterfly(rt__sched *s, const rt__grp *g, const rt__blocks *b);

/* ---- MSA-aware hierarchies (coll_msa.c) ---------------------------------------------- */

/* levels: 1 (msa: module) or 2 (msa2: module, node). Builds the groups first, so that it
 * fails (-RT_E_NOMEM) before emitting anything; else 0. */
int rt__msa(rt__sched *s, const rt_coll_call *c, uint64_t n, int levels);

/* ---- neighbourhood collectives (coll_neighbor.c) ------------------------------------- */

/* Checks the lists and the sizes (see rt_coll.h); 0 or -RT_E_INVAL. */
int rt__neighbor_check(rt__sched *s, const rt_coll_call *c, rt_err *err);
/* One round over c->nbrs, checked. */
void rt__neighbor_linear(rt__sched *s, const rt_coll_call *c);

/* ---- per-op expansion (coll_ops.c) ------------------------------------------------------ */

/* Checks bytes and rbytes for the op, then emits with the builder rt_coll_algs.def names for
 * (alg, op); alg is resolved (not mpich). */
int rt__expand(rt__sched *s, unsigned alg, const rt_coll_call *c, rt_err *err);
/* The size MPICH selects on: bcast n, allgather total, alltoall block, ... */
uint64_t rt__op_size(const rt_coll_call *c);
/* The row whose Open MPI number for op is id (rt_coll_algs.def), or -1. */
int rt__ompi_row(unsigned op, int id);
/* 1 for ops with a root. */
int rt__rooted(unsigned op);

#endif /* RT__COLL_H */
