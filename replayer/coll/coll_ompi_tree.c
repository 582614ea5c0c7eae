/*
 * Open MPI 4.1's trees and barriers, as its coll/base component builds them
 * (ompi/mca/coll/base/coll_base_topo.c, coll_base_bcast.c, coll_base_reduce.c and
 * coll_base_barrier.c of Open MPI 4.1.x, read in the open-mpi/ompi repository). The fixed
 * decision rules of coll/tuned call them with segment size 0, so a tree moves the whole
 * message once per edge. The root is group index 0 (callers rotate), as Open MPI shifts
 * ranks by the root.
 */
#include "rt__coll.h"

/* At most the children of one knomial node: 3 per base-4 digit of a 32-bit rank. */
#define MAX_CHILDREN 48u

typedef struct tree_node {
    int64_t parent; /* -1 at the root */
    uint32_t n;     /* children, in Open MPI's order */
    uint32_t child[MAX_CHILDREN];
} tree_node;

static void add_child(tree_node *t, uint64_t c)
{
    if (t->n < MAX_CHILDREN)
        t->child[t->n++] = (uint32_t)c;
}

/* ompi_coll_base_topo_build_chain with fanout 1: the pipeline. */
static void chain_node(uint32_t p, uint32_t r, tree_node *t)
{
    t->parent = r ? (int64_t)r - 1 : -1;
    if ((uint64_t)r + 1 < p)
        add_child(t, (uint64_t)r + 1);
}

/* ompi_coll_base_topo_build_tree with fanout 2: levels filled left to right, the children
 * of r on level l (delta = 2^l nodes) are r + delta and r + 2 * delta. */
static void binary_node(uint32_t p, uint32_t r, tree_node *t)
{
    uint64_t delta = 1, below = 1; /* nodes on levels up to and including r's */
    while (below <= r) {
        delta *= 2;
        below += delta;
    }
    for (uint64_t i = 1; i <= 2 && r + delta * i < p; i++)
        add_child(t, r + delta * i);
    if (r == 0) {
        t->parent = -1;
        return;
    }
    /* walk up one level at a time: the parent is on the level above, delta/2 apart */
    uint64_t parent = r, above = delta - 1; /* nodes on the levels above r's */
    if (parent < 2)
        parent = 0;
    else
        while (parent >= above)
            parent -= delta / 2;
    t->parent = (int64_t)parent;
}

/* ompi_coll_base_topo_build_bmtree: children r + m for the powers of two m above r (m
 * starts at the next power of two strictly above r, at 1 for the root), while below p; the
 * parent is r without its highest bit. */
static void bmtree_node(uint32_t p, uint32_t r, tree_node *t)
{
    uint64_t mask = 1;
    while (mask <= r)
        mask <<= 1;
    t->parent = r ? (int64_t)(r ^ (mask >> 1)) : -1;
    for (; mask < p && r + mask < p; mask <<= 1)
        add_child(t, r + mask);
}

/* ompi_coll_base_topo_build_kmtree, radix 4: the parent is r rounded down to the lowest
 * base-4 digit that is not 0; children r + j * m for j = 1..3, m from the digit below that
 * (below p for the root) down to 1. */
static void knomial_node(uint32_t p, uint32_t r, tree_node *t)
{
    const uint64_t radix = 4;
    uint64_t mask = 1;
    t->parent = -1;
    while (mask < p) {
        if (r % (radix * mask)) {
            t->parent = (int64_t)(r / (radix * mask) * (radix * mask));
            break;
        }
        mask *= radix;
    }
    for (mask /= radix; mask > 0; mask /= radix)
        for (uint64_t j = 1; j < radix; j++)
            if (r + mask * j < p)
                add_child(t, r + mask * j);
}

static void tree_of(rt__tree_kind kind, uint32_t p, uint32_t r, tree_node *t)
{
    t->n = 0;
    switch (kind) {
    case RT__TREE_CHAIN:
        chain_node(p, r, t);
        break;
    case RT__TREE_BINARY:
        binary_node(p, r, t);
        break;
    case RT__TREE_BMTREE:
        bmtree_node(p, r, t);
        break;
    default:
        knomial_node(p, r, t);
        break;
    }
}

/* ompi_coll_base_bcast_intra_generic with one segment: receive from the parent, then isend
 * to every child and wait for all of them. */
void rt__bcast_tree(rt__sched *s, const rt__grp *g, rt__tree_kind kind, uint64_t n)
{
    tree_node t;
    if (g->n < 2)
        return;
    tree_of(kind, g->n, g->me, &t);
    if (t.parent >= 0) {
        rt__next(s);
        rt__recv(s, rt__at(g, (uint32_t)t.parent), n);
    }
    rt__next(s);
    for (uint32_t i = 0; i < t.n && !rt__stopped(s); i++)
        rt__send(s, rt__at(g, t.child[i]), n);
}

/* ompi_coll_base_reduce_generic with one segment: the contribution of each child in child
 * order, combined as it arrives, then the partial result to the parent. */
void rt__reduce_tree(rt__sched *s, const rt__grp *g, rt__tree_kind kind, uint64_t n)
{
    tree_node t;
    if (g->n < 2)
        return;
    tree_of(kind, g->n, g->me, &t);
    for (uint32_t i = 0; i < t.n && !rt__stopped(s); i++) {
        rt__next(s);
        rt__recv(s, rt__at(g, t.child[i]), n);
        rt__reduce(s, n);
    }
    if (t.parent >= 0) {
        rt__next(s);
        rt__send(s, rt__at(g, (uint32_t)t.parent), n);
    }
}

/* ompi_coll_base_barrier_intra_basic_linear. */
void rt__barrier_ompi_linear(rt__sched *s, const rt__grp *g)
{
    uint32_t p = g->n;
    if (p < 2)
        return;
    if (g->me) {
        rt__next(s);
        rt__send(s, rt__at(g, 0), 0);
        rt__next(s);
        rt__recv(s, rt__at(g, 0), 0);
        return;
    }
    rt__next(s);
    for (uint32_t i = 1; i < p && !rt__stopped(s); i++)
        rt__recv(s, rt__at(g, i), 0);
    rt__next(s);
    for (uint32_t i = 1; i < p && !rt__stopped(s); i++)
        rt__send(s, rt__at(g, i), 0);
}

/* ompi_coll_base_barrier_intra_recursivedoubling; a sendrecv is one round, its receive
 * posted first (ompi_coll_base_sendrecv_zero). */
void rt__barrier_ompi_rd(rt__sched *s, const rt__grp *g)
{
    uint32_t p = g->n, me = g->me, pof2 = rt__pof2(p), extra = p - pof2;
    if (p < 2)
        return;
    if (me >= pof2) { /* waits in one sendrecv for the end */
        rt__next(s);
        rt__recv(s, rt__at(g, me - pof2), 0);
        rt__send(s, rt__at(g, me - pof2), 0);
        return;
    }
    if (me < extra) {
        rt__next(s);
        rt__recv(s, rt__at(g, me + pof2), 0);
    }
    for (uint32_t mask = 1; mask < pof2; mask <<= 1) {
        rt__next(s);
        rt__recv(s, rt__at(g, me ^ mask), 0);
        rt__send(s, rt__at(g, me ^ mask), 0);
    }
    if (me < extra) {
        rt__next(s);
        rt__send(s, rt__at(g, me + pof2), 0);
    }
}

/* ---- basic linear, in rank order (g unrotated: group index = rank) ------------------------ */

void rt__bcast_ompi_linear(rt__sched *s, const rt__grp *g, uint32_t root, uint64_t n)
{
    if (g->n < 2)
        return;
    rt__next(s);
    if (g->me != root) {
        rt__recv(s, rt__at(g, root), n);
        return;
    }
    for (uint32_t i = 0; i < g->n && !rt__stopped(s); i++)
        if (i != root)
            rt__send(s, rt__at(g, i), n);
}

void rt__reduce_ompi_linear(rt__sched *s, const rt__grp *g, uint32_t root, uint64_t n)
{
    uint32_t p = g->n;
    if (p < 2)
        return;
    if (g->me != root) {
        rt__next(s);
        rt__send(s, rt__at(g, root), n);
        return;
    }
    /* the first value (rank p-1's) is copied, every later one combined into it */
    for (uint32_t i = p; i-- > 0 && !rt__stopped(s);) {
        if (i != root) {
            rt__next(s);
            rt__recv(s, rt__at(g, i), n);
        }
        if (i != p - 1)
            rt__reduce(s, n);
    }
}

/* Gather (gather = 1) or scatter: the root's blocking receives or sends in rank order;
 * b holds the pieces by rank relative to the root (as coll_ops.c cuts them). */
void rt__gather_ompi_linear(rt__sched *s, const rt__grp *g, uint32_t root, const rt__blocks *b,
                            int gather)
{
    uint32_t p = g->n;
    if (p < 2)
        return;
    if (g->me != root) {
        uint64_t mine = rt__piece(b, (g->me + p - root) % p);
        rt__next(s);
        if (gather)
            rt__send(s, rt__at(g, root), mine);
        else
            rt__recv(s, rt__at(g, root), mine);
        return;
    }
    for (uint32_t i = 0; i < p && !rt__stopped(s); i++) {
        if (i == root)
            continue;
        uint64_t piece = rt__piece(b, (i + p - root) % p);
        rt__next(s);
        if (gather)
            rt__recv(s, rt__at(g, i), piece);
        else
            rt__send(s, rt__at(g, i), piece);
    }
}
