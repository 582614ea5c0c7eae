/*
 * The schedules of Open MPI 4.1's own algorithms, as its coll/base component runs them
 * (ompi/mca/coll/base/coll_base_topo.c, coll_base_bcast.c, coll_base_reduce.c,
 * coll_base_barrier.c, coll_base_gather.c, coll_base_scatter.c, coll_base_allreduce.c,
 * coll_base_allgather.c and coll_base_allgatherv.c of Open MPI 4.1.x, read in the
 * open-mpi/ompi repository): its trees, linear algorithms, barriers, ring and Rabenseifner
 * allreduce and neighbor exchange. The fixed decision rules of coll/tuned call them with
 * segment size 0, so a tree moves the whole message once per edge. In the trees the root is
 * group index 0 (callers rotate), as Open MPI shifts ranks by the root; the linear ones go
 * in rank order. mpi.openmpi.wire checks them against the messages Open MPI sends.
 */
#include <stdlib.h>

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

/* ompi_coll_base_topo_build_in_order_bintree: rooted at rank p-1, not relative to a root. A
 * subtree of size nodes whose top is its last rank has the left child top-1 and, when that is
 * above 0, the right child size/2 - 1, which tops the first size/2 ranks; the left subtree is
 * the size - size/2 - 1 ranks between. Walks down from the top to r, shifting the ranks of a
 * left subtree by the size of the right one. */
static void in_order_node(uint32_t p, uint32_t r, tree_node *t)
{
    int64_t size = p, me = r, top = (int64_t)p - 1, delta = 0;
    t->parent = -1;
    for (;;) {
        int64_t rightsize = size >> 1, lchild = -1, rchild = -1;
        if (size > 1) {
            lchild = top - 1;
            if (lchild > 0)
                rchild = rightsize - 1;
        }
        if (me == top) {
            if (lchild >= 0)
                add_child(t, (uint64_t)(lchild + delta));
            if (rchild >= 0)
                add_child(t, (uint64_t)(rchild + delta));
            return;
        }
        if (me > rchild) { /* in the left subtree */
            if (me == lchild)
                t->parent = top + delta;
            size -= rightsize + 1;
            delta += rightsize;
            me -= rightsize;
            top = size - 1;
        } else { /* in the right subtree */
            if (me == rchild)
                t->parent = top + delta;
            size = rightsize;
            top = rchild;
        }
    }
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
    case RT__TREE_IN_ORDER:
        in_order_node(p, r, t);
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

/* ompi_coll_base_barrier_intra_doublering: twice round the ring of 0-byte messages. Rank 0
 * sends to rank 1 and waits for rank p-1; every other rank waits for its left neighbour, then
 * sends to its right one (rank p-1 to rank 0); then all of it once more (the second time
 * with synchronous sends, the same messages). */
void rt__barrier_ompi_double_ring(rt__sched *s, const rt__grp *g)
{
    uint32_t p = g->n, me = g->me;
    if (p < 2)
        return;
    int32_t left = rt__at(g, (me + p - 1) % p), right = rt__at(g, (me + 1) % p);
    for (int lap = 0; lap < 2; lap++) {
        if (me > 0) {
            rt__next(s);
            rt__recv(s, left, 0);
        }
        rt__next(s);
        rt__send(s, right, 0);
        if (me == 0) {
            rt__next(s);
            rt__recv(s, left, 0);
        }
    }
}

/* ompi_coll_base_barrier_intra_tree: up a tree of distances 1, 2, 4, ... (below the smallest
 * power of two >= p), each rank with no bits set below the distance pairing with rank ^
 * distance: the higher one sends to the lower one; then down it in the reverse order, the
 * lower one sending. One blocking message a round. */
void rt__barrier_ompi_tree(rt__sched *s, const rt__grp *g)
{
    uint32_t p = g->n, me = g->me;
    uint64_t depth = 1;
    while (depth < p)
        depth <<= 1;
    for (uint64_t jump = 1; jump < depth; jump <<= 1) {
        uint64_t partner = me ^ jump;
        if ((partner & (jump - 1)) || partner >= p)
            continue;
        rt__next(s);
        if (partner > me)
            rt__recv(s, rt__at(g, (uint32_t)partner), 0);
        else
            rt__send(s, rt__at(g, (uint32_t)partner), 0);
    }
    for (uint64_t jump = depth >> 1; jump > 0; jump >>= 1) {
        uint64_t partner = me ^ jump;
        if ((partner & (jump - 1)) || partner >= p)
            continue;
        rt__next(s);
        if (partner > me)
            rt__send(s, rt__at(g, (uint32_t)partner), 0);
        else
            rt__recv(s, rt__at(g, (uint32_t)partner), 0);
    }
}

/* ompi_coll_base_reduce_intra_in_order_binary: the generic reduce on the in-order binary tree,
 * whose root is rank p-1 whatever the call's root; when the root is another rank, rank p-1
 * then sends it the result. */
void rt__reduce_ompi_in_order(rt__sched *s, const rt__grp *g, uint32_t root, uint64_t n)
{
    uint32_t io_root = g->n - 1;
    if (g->n < 2)
        return;
    rt__reduce_tree(s, g, RT__TREE_IN_ORDER, n);
    if (root == io_root || rt__stopped(s))
        return;
    if (g->me == root) {
        rt__next(s);
        rt__recv(s, rt__at(g, io_root), n);
    } else if (g->me == io_root) {
        rt__next(s);
        rt__send(s, rt__at(g, root), n);
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

/* ---- allreduce: Open MPI's ring and Rabenseifner (coll_base_allreduce.c) ------------------ */

/* Bytes of block k when Open MPI cuts count elements of e bytes into p blocks: the first
 * count % p blocks one element larger (COLL_BASE_COMPUTE_BLOCKCOUNT). */
static uint64_t ring_block(uint64_t count, uint32_t p, uint32_t k, unsigned e)
{
    return (count / p + (k < count % p)) * e;
}

/* ompi_coll_base_allreduce_intra_ring, count >= p: the computation phase sends block me,
 * then me-1, ..., each combined with the one received from the left; block me+1 ends
 * complete here; the distribution phase passes blocks me+1, me, ... to the right. */
void rt__allreduce_ompi_ring(rt__sched *s, const rt__grp *g, uint64_t n)
{
    uint32_t p = g->n, me = g->me;
    uint64_t e = rt_coll_esize(g->esize, n);
    uint64_t count = n / e;
    if (p < 2)
        return;
    int32_t right = rt__at(g, (me + 1) % p), left = rt__at(g, (me + p - 1) % p);
    for (uint32_t k = 1; k < p && !rt__stopped(s); k++) { /* receive block me-k */
        uint64_t in = ring_block(count, p, (me + p - k) % p, e);
        rt__next(s);
        rt__recv(s, left, in);
        rt__send(s, right, ring_block(count, p, (me + p - k + 1) % p, e));
        rt__reduce(s, in);
    }
    for (uint32_t k = 0; k + 1 < p && !rt__stopped(s); k++) {
        rt__next(s);
        rt__recv(s, left, ring_block(count, p, (me + p - k) % p, e));
        rt__send(s, right, ring_block(count, p, (me + 1 + p - k) % p, e));
    }
}

/* Real rank of virtual rank v after the fold of the first 2 * rem ranks. */
static uint32_t rab_real(uint32_t v, uint32_t rem)
{
    return v < rem ? v * 2 : v + rem;
}

/* Steps 2 and 3 of ompi_coll_base_allreduce_intra_redscat_allgather for virtual rank v:
 * recursive vector halving with distance doubling, then the allgather in reverse. */
static void rab_core(rt__sched *s, const rt__grp *g, uint32_t v, uint32_t pof2, uint32_t rem,
                     uint64_t count, unsigned e)
{
    uint64_t rcount[32], scount[32], wsize = count;
    uint32_t steps = 0;
    for (uint32_t mask = 1; mask < pof2 && !rt__stopped(s); mask <<= 1, steps++) {
        uint32_t dest = rab_real(v ^ mask, rem);
        if (g->me < dest) { /* keep the left half */
            rcount[steps] = wsize / 2;
            scount[steps] = wsize - rcount[steps];
        } else {
            scount[steps] = wsize / 2;
            rcount[steps] = wsize - scount[steps];
        }
        rt__next(s);
        rt__recv(s, rt__at(g, dest), rcount[steps] * e);
        rt__send(s, rt__at(g, dest), scount[steps] * e);
        rt__reduce(s, rcount[steps] * e);
        wsize = rcount[steps];
    }
    for (uint32_t mask = pof2 >> 1; mask > 0 && steps > 0 && !rt__stopped(s); mask >>= 1) {
        uint32_t dest = rab_real(v ^ mask, rem);
        steps--;
        rt__next(s);
        rt__recv(s, rt__at(g, dest), scount[steps] * e);
        rt__send(s, rt__at(g, dest), rcount[steps] * e);
    }
}

/* ompi_coll_base_allreduce_intra_redscat_allgather, count >= pof2: in the first 2 * rem
 * ranks, even ranks send their right half to me+1 and odd ranks their left half to me-1,
 * each combines its half and the odd one sends its combined right half back; the even ones
 * and the ranks above 2 * rem run the power-of-two core, then even ranks send the whole
 * result to me+1. */
void rt__allreduce_ompi_rabenseifner(rt__sched *s, const rt__grp *g, uint64_t n)
{
    uint32_t p = g->n, me = g->me, pof2 = rt__pof2(p), rem = p - pof2;
    uint64_t e = rt_coll_esize(g->esize, n);
    uint64_t count = n / e, lhalf = count / 2, rhalf = count - lhalf;
    if (p < 2)
        return;
    uint32_t v = me >= 2 * rem ? me - rem : me / 2;
    if (me < 2 * rem && me % 2) { /* folded out: waits for the result */
        int32_t peer = rt__at(g, me - 1);
        rt__next(s);
        rt__recv(s, peer, rhalf * e);
        rt__send(s, peer, lhalf * e);
        rt__reduce(s, rhalf * e);
        rt__next(s);
        rt__send(s, peer, rhalf * e);
        rt__next(s);
        rt__recv(s, peer, n);
        return;
    }
    if (me < 2 * rem) {
        int32_t peer = rt__at(g, me + 1);
        rt__next(s);
        rt__recv(s, peer, lhalf * e);
        rt__send(s, peer, rhalf * e);
        rt__reduce(s, lhalf * e);
        rt__next(s);
        rt__recv(s, peer, rhalf * e); /* the odd rank's combined half: no REDUCE */
    }
    rab_core(s, g, v, pof2, rem, count, e);
    if (me < 2 * rem) {
        rt__next(s);
        rt__send(s, rt__at(g, me + 1), n);
    }
}

/* ---- allgather(v): Open MPI's neighbor exchange (coll_base_allgather(v).c) ----------------- */

/* ompi_coll_base_allgather(v)_intra_neighborexchange on an even number of ranks (Open MPI
 * runs the ring on an odd one, which is rt__allgather_ring's): a first exchange of the own
 * piece with neighbour 0 (rank+1 for even ranks, rank-1 for odd ones), then p/2 - 1
 * exchanges of two pieces (an even-aligned pair), alternating between the two neighbours,
 * each passing on the pair received before. */
void rt__allgather_ompi_neighbor(rt__sched *s, const rt__grp *g, const rt__blocks *b)
{
    uint32_t p = g->n, me = g->me;
    if (p % 2) {
        rt__allgather_ring(s, g, b);
        return;
    }
    int even = me % 2 == 0;
    uint32_t nb[2] = {even ? (me + 1) % p : (me + p - 1) % p,
                      even ? (me + p - 1) % p : (me + 1) % p};
    uint32_t from[2] = {even ? me : nb[0], even ? me : nb[0]};
    uint32_t step[2] = {even ? 2 : p - 2, even ? p - 2 : 2}; /* +2 and -2, mod p */
    rt__next(s);
    rt__recv(s, rt__at(g, nb[0]), rt__piece(b, nb[0]));
    rt__send(s, rt__at(g, nb[0]), rt__piece(b, me));
    uint32_t send_from = even ? me : from[0];
    for (uint32_t i = 1; i < p / 2 && !rt__stopped(s); i++) {
        unsigned par = i % 2;
        from[par] = (from[par] + step[par]) % p;
        rt__next(s);
        rt__recv(s, rt__at(g, nb[par]), rt__span(b, from[par], 2));
        rt__send(s, rt__at(g, nb[par]), rt__span(b, send_from, 2));
        send_from = from[par];
    }
}

/* ---- bcast: Open MPI's scatter_allgather and scatter_allgather_ring (coll_base_bcast.c) ---- */

/* Elements of blocks [from, from + len) when count elements are cut into blocks of sc (the
 * last one shorter, the ones past the end empty). */
static uint64_t sa_elems(uint64_t count, uint64_t sc, uint64_t from, uint64_t len)
{
    if (from >= (count + sc - 1) / sc) /* from * sc >= count: no overflow below */
        return 0;
    uint64_t rem = count - from * sc;
    return len >= (rem + sc - 1) / sc ? rem : len * sc;
}

/* The binomial scatter both begin with, on relative ranks (g rotated, root at index 0): rank v
 * receives blocks [v, v + m) from v - m (m its lowest bit), then passes blocks [v + k, v + 2k)
 * to v + k for each power of two k below m (below p at the root), largest first; a part with
 * no elements is neither sent nor received. */
static void sa_scatter(rt__sched *s, const rt__grp *g, uint64_t count, uint64_t sc, unsigned e)
{
    uint32_t p = g->n, v = g->me;
    uint64_t mask = 1;
    while (mask < p && !(v & mask))
        mask <<= 1;
    if (v) {
        uint64_t got = sa_elems(count, sc, v, mask);
        if (got) {
            rt__next(s);
            rt__recv(s, rt__at(g, (uint32_t)(v - mask)), got * e);
        }
    }
    for (mask >>= 1; mask > 0 && !rt__stopped(s); mask >>= 1) {
        if (v + mask >= p)
            continue;
        uint64_t put = sa_elems(count, sc, v + mask, mask);
        if (put) {
            rt__next(s);
            rt__send(s, rt__at(g, (uint32_t)(v + mask)), put * e);
        }
    }
}

/* ompi_coll_base_bcast_intra_scatter_allgather_ring, count >= p elements of e bytes (the
 * caller runs the linear bcast below, as Open MPI does): blocks of ceil(count / p) elements
 * scattered, then p - 1 steps of a ring, each sending the block received last to rank + 1
 * and receiving the next from rank - 1 (0-byte messages for blocks past the end). */
void rt__bcast_ompi_scatter_ring(rt__sched *s, const rt__grp *g, uint64_t n)
{
    uint32_t p = g->n, v = g->me;
    uint64_t e = rt_coll_esize(g->esize, n);
    uint64_t count = n / e, sc = (count + p - 1) / p;
    if (p < 2 || count < p)
        return;
    sa_scatter(s, g, count, sc, e);
    int32_t left = rt__at(g, (v + p - 1) % p), right = rt__at(g, (v + 1) % p);
    uint32_t sb = v, rb = (v + p - 1) % p;
    for (uint32_t i = 1; i < p && !rt__stopped(s); i++) {
        rt__next(s);
        rt__recv(s, left, sa_elems(count, sc, rb, 1) * e);
        rt__send(s, right, sa_elems(count, sc, sb, 1) * e);
        sb = rb;
        rb = (rb + p - 1) % p;
    }
}

/*
 * ompi_coll_base_bcast_intra_scatter_allgather, count >= p: the scatter, then a recursive
 * doubling allgather. At distance m (1, 2, 4, ...) rank v exchanges what it holds (its
 * subtree's blocks, from rounddown(v, m)) with v ^ m where that rank exists; where the other
 * subtree is cut short by p, the ranks that got its data pass on what they received last to
 * those that did not, by recursive halving inside the subtree. How much each rank holds and
 * received last follows from all the ranks' exchanges before, so they are followed for every
 * rank (two counts each): Open MPI's variables curr_count and recv_count, the latter starting
 * from the scatter's bound count - v * sc (0 at the root). 0-byte exchanges are messages.
 * -RT_E_NOMEM when those counts get no memory.
 */
int rt__bcast_ompi_scatter_rdb(rt__sched *s, const rt__grp *g, uint64_t n)
{
    uint32_t p = g->n, me = g->me;
    uint64_t e = rt_coll_esize(g->esize, n);
    uint64_t count = n / e, sc = (count + p - 1) / p;
    if (p < 2 || count < p)
        return 0;
    sa_scatter(s, g, count, sc, e);
    uint64_t *curr = malloc((size_t)p * 2 * sizeof *curr); /* p < 2^32: no overflow */
    if (!curr)
        return -RT_E_NOMEM;
    uint64_t *last = curr + p;
    for (uint32_t v = 0; v < p; v++) {
        curr[v] = sa_elems(count, sc, v, 1);
        last[v] = v && count > (uint64_t)v * sc ? count - (uint64_t)v * sc : 0;
    }
    for (uint64_t mask = 1; mask < p && !rt__stopped(s); mask <<= 1) {
        /* the exchanges: each pair once, both ways */
        for (uint32_t v = 0; v < p; v++) {
            uint64_t w = v ^ mask;
            if (w >= p || w < v)
                continue;
            uint64_t a = curr[v], b = curr[w];
            if (v == me || w == me) {
                rt__next(s);
                rt__recv(s, rt__at(g, (uint32_t)(v == me ? w : v)), (v == me ? b : a) * e);
                rt__send(s, rt__at(g, (uint32_t)(v == me ? w : v)), (v == me ? a : b) * e);
            }
            curr[v] = curr[(uint32_t)w] = a + b;
            last[v] = b;
            last[(uint32_t)w] = a;
        }
        /* the subtrees whose partner subtree is cut short: recursive halving inside them */
        for (uint64_t half = mask >> 1; half > 0; half >>= 1)
            for (uint32_t v = 0; v < p; v++) {
                uint64_t root = v & ~(mask - 1), other = root ^ mask;
                if (other + mask <= p)
                    continue;
                uint64_t have = p > root + mask ? p - root - mask : 0; /* ranks with data */
                uint64_t w = v ^ half, sub = v & ~(2 * half - 1);
                if (w < v || w >= p || !(v < sub + have && w >= sub + have))
                    continue;
                if (v == me || w == me) { /* v sends to w what it received last */
                    rt__next(s);
                    if (v == me)
                        rt__send(s, rt__at(g, (uint32_t)w), last[v] * e);
                    else
                        rt__recv(s, rt__at(g, v), last[v] * e);
                }
                curr[(uint32_t)w] += last[v];
                last[(uint32_t)w] = last[v];
            }
    }
    free(curr);
    return 0;
}

/*
 * ompi_coll_base_bcast_intra_split_bintree with segment size 0, on relative ranks (g rotated,
 * root at index 0): the message cut in two halves of elements (the first one element larger);
 * down the binary tree (binary_node) the root sends the first half to its child 1 and the
 * second to its child 2, each rank receives its subtree's half (the odd ranks are child 1's,
 * the even ones child 2's) and sends it on to its children, one blocking send each; then each
 * rank swaps halves with its pair in the other subtree, odd v with v + 1 (on an even number
 * of ranks rank p - 1 gets the second half from the root instead). With fewer than two
 * elements Open MPI runs its chain, fanout 1: the pipeline.
 */
void rt__bcast_ompi_split_bintree(rt__sched *s, const rt__grp *g, uint64_t n)
{
    uint32_t p = g->n, v = g->me;
    uint64_t e = rt_coll_esize(g->esize, n);
    uint64_t count = n / e, half[2] = {(count + 1) / 2 * e, count / 2 * e};
    if (p < 2)
        return;
    if (count < 2) {
        rt__bcast_tree(s, g, RT__TREE_CHAIN, n);
        return;
    }
    tree_node t;
    tree_of(RT__TREE_BINARY, p, v, &t);
    unsigned lr = (v + 1) % 2; /* 0: the left subtree (odd v), 1: the right one and the root */
    if (v == 0) {
        for (uint32_t i = 0; i < t.n && i < 2; i++) {
            rt__next(s);
            rt__send(s, rt__at(g, t.child[i]), half[i]);
        }
    } else {
        rt__next(s);
        rt__recv(s, rt__at(g, (uint32_t)t.parent), half[lr]);
        for (uint32_t i = 0; i < t.n && !rt__stopped(s); i++) {
            rt__next(s);
            rt__send(s, rt__at(g, t.child[i]), half[lr]);
        }
    }
    uint32_t pair = lr == 0 ? (v + 1) % p : (v + p - 1) % p;
    if (p % 2 == 0 && v == 0) {
        rt__next(s);
        rt__send(s, rt__at(g, p - 1), half[1]);
    } else if (p % 2 == 0 && v == p - 1) {
        rt__next(s);
        rt__recv(s, rt__at(g, 0), half[1]);
    } else if (v != 0) {
        rt__next(s);
        rt__recv(s, rt__at(g, pair), half[1 - lr]);
        rt__send(s, rt__at(g, pair), half[lr]);
    }
}

/* ompi_coll_base_gather_intra_linear_sync with first segment size 0 (the rules' segment size:
 * the first segment is the whole block): in rank order, the root receives rank i's block after
 * sending it a 0-byte go-ahead, and each rank sends its block after that message, then an
 * empty second segment, which the root receives at the end. b holds the pieces by rank
 * relative to the root. */
void rt__gather_ompi_linear_sync(rt__sched *s, const rt__grp *g, uint32_t root, const rt__blocks *b)
{
    uint32_t p = g->n;
    if (p < 2)
        return;
    if (g->me != root) {
        rt__next(s);
        rt__recv(s, rt__at(g, root), 0);
        rt__next(s);
        rt__send(s, rt__at(g, root), rt__piece(b, (g->me + p - root) % p));
        rt__next(s);
        rt__send(s, rt__at(g, root), 0);
        return;
    }
    for (uint32_t i = 0; i < p && !rt__stopped(s); i++) {
        if (i == root)
            continue;
        rt__next(s);
        rt__recv(s, rt__at(g, i), rt__piece(b, (i + p - root) % p));
        rt__send(s, rt__at(g, i), 0);
    }
    rt__next(s);
    for (uint32_t i = 0; i < p && !rt__stopped(s); i++)
        if (i != root)
            rt__recv(s, rt__at(g, i), 0);
}
