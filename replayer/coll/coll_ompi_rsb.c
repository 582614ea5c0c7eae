/*
 * Open MPI 4.1's reduce_scatter_block and reduce_scatter algorithms that MPICH has no
 * counterpart of (ompi/mca/coll/base/coll_base_reduce_scatter_block.c and
 * coll_base_reduce_scatter.c, read in the open-mpi/ompi repository): recursive doubling and
 * the butterfly. reduce_scatter_block's sizes are in blocks of `block` bytes (the call's
 * rbytes, count times the type size): every message Open MPI sends is a whole number of
 * blocks, so bytes are exact whatever the element size. Group index = rank.
 */
#include "rt__coll.h"

/* rank rounded down to a multiple of factor (ompi_rounddown). */
static int64_t round_down(int64_t rank, int64_t factor)
{
    return rank / factor * factor;
}

/* Blocks a recursive-doubling step moves from or to a rank whose subtree starts at root:
 * the blocks outside [root, root + mask). */
static uint64_t rd_blocks(uint32_t p, int64_t root, int64_t mask)
{
    return (uint64_t)root + (p >= root + mask ? (uint64_t)(p - root - mask) : 0);
}

/* Recursive doubling: at distance mask = 1, 2, 4, ... each rank exchanges with rank ^ mask
 * everything outside both halves' subtrees; on a non-power of two, a rank whose partner does
 * not exist gets the partner's share from a rank of its own subtree that has it (recursive
 * halving over the subtree). */
void rt__rsb_ompi_rd(rt__sched *s, const rt__grp *g, uint64_t block)
{
    uint32_t p = g->n;
    int64_t me = g->me;
    for (int64_t mask = 1; mask < p && !rt__stopped(s); mask <<= 1) {
        int64_t remote = me ^ mask;
        int64_t mine = round_down(me, mask), theirs = round_down(remote, mask);
        uint64_t give = rd_blocks(p, mine, mask) * block, get = rd_blocks(p, theirs, mask) * block;
        int got = remote < p;
        rt__next(s);
        if (got) {
            rt__send(s, rt__at(g, (uint32_t)remote), give);
            rt__recv(s, rt__at(g, (uint32_t)remote), get);
        }
        if (theirs + mask <= p) {
            if (got)
                rt__reduce(s, get);
            continue;
        }
        /* the ranks of this subtree that have all the data pass it to those that have not */
        int64_t alldata = (int64_t)p - mine - mask;
        for (int64_t half = mask >> 1; half > 0; half >>= 1) {
            int64_t peer = me ^ half, root = round_down(me, half << 1);
            if (peer > me && me < root + alldata && peer >= root + alldata) {
                rt__next(s);
                rt__send(s, rt__at(g, (uint32_t)peer), get);
            } else if (peer < me && peer < root + alldata && me >= root + alldata) {
                rt__next(s);
                rt__recv(s, rt__at(g, (uint32_t)peer), get);
                got = 1;
            }
        }
        if (got) /* what arrived is combined once, after the last receive */
            rt__reduce(s, get);
    }
}

/* The lowest bits bits of x in reverse order (ompi_mirror_perm). */
static uint32_t mirror(uint32_t x, unsigned bits)
{
    uint32_t y = 0;
    for (unsigned i = 0; i < bits; i++)
        y |= ((x >> i) & 1u) << (bits - 1 - i);
    return y;
}

/* The rank that plays folded rank v (v < rem: the odd rank of pair v). */
static uint32_t real_of(uint32_t v, uint32_t rem)
{
    return v < rem ? 2 * v + 1 : v + rem;
}

/* The butterfly on a power of two: the vector (blocks in mirror order) halves at distance
 * 1, 2, 4, ...; each exchange sends and receives half of what is left. */
static void butterfly_pof2(rt__sched *s, const rt__grp *g, uint64_t block)
{
    uint32_t p = g->n;
    uint64_t left = (uint64_t)p * block;
    for (uint32_t mask = 1; mask < p && !rt__stopped(s); mask <<= 1) {
        int32_t peer = rt__at(g, g->me ^ mask);
        left /= 2;
        rt__next(s);
        rt__send(s, peer, left);
        rt__recv(s, peer, left);
        rt__reduce(s, left);
    }
}

/* Bytes of folded blocks lo to hi: after the fold, block i < rem holds ranks 2i and 2i + 1's
 * pieces of b, block i >= rem rank i + rem's (ompi_sum_counts). */
static uint64_t folded_span(const rt__blocks *b, uint32_t rem, uint32_t lo, uint32_t hi)
{
    uint32_t a = lo < rem ? 2 * lo : lo + rem, e = hi < rem ? 2 * hi + 1 : hi + rem;
    return rt__span(b, a, e - a + 1);
}

/* The butterfly (Traeff) of reduce_scatter, and of reduce_scatter_block on a non-power of
 * two: the first 2 * rem ranks fold in pairs (the even one sends its whole vector to the odd
 * one and drops out), the pof2 others halve the folded vector at distance 1, 2, 4, ..., then
 * pass each result to the rank of the mirror permutation (and the odd rank of a pair its
 * partner's). Rank k's share is piece k of b. */
void rt__rs_ompi_butterfly(rt__sched *s, const rt__grp *g, const rt__blocks *b)
{
    uint32_t p = g->n, me = g->me, pof2 = rt__pof2(p), rem = p - pof2, bits = 0;
    while ((1u << bits) < pof2)
        bits++;
    uint64_t total = rt__span(b, 0, p);
    int64_t v = me >= 2 * rem ? (int64_t)(me - rem) : me % 2 ? (int64_t)me / 2 : -1;
    if (me < 2 * rem) {
        rt__next(s);
        if (me % 2 == 0) {
            rt__send(s, rt__at(g, me + 1), total);
        } else {
            rt__recv(s, rt__at(g, me - 1), total);
            rt__reduce(s, total);
        }
    }
    if (v < 0) { /* dropped out: the result comes from the rank of the mirror permutation */
        rt__next(s);
        rt__recv(s, rt__at(g, real_of(mirror((me + 1) / 2, bits), rem)), rt__piece(b, me));
        return;
    }
    uint32_t nblocks = pof2, si = 0, ri = 0;
    for (uint32_t mask = 1; mask < pof2 && !rt__stopped(s); mask <<= 1) {
        int32_t peer = rt__at(g, real_of((uint32_t)v ^ mask, rem));
        nblocks /= 2;
        if (((uint32_t)v & mask) == 0)
            si += nblocks;
        else
            ri += nblocks;
        uint64_t give = folded_span(b, rem, si, si + nblocks - 1);
        uint64_t get = folded_span(b, rem, ri, ri + nblocks - 1);
        rt__next(s);
        rt__send(s, peer, give);
        rt__recv(s, peer, get);
        rt__reduce(s, get);
        si = ri;
    }
    uint32_t w = mirror((uint32_t)v, bits), peer = real_of(w, rem);
    uint32_t index = si < rem ? 2 * si : si + rem; /* the first piece of the result */
    if (w < rem) { /* two pieces: the first for the dropped-out partner of the receiver */
        rt__next(s);
        rt__send(s, rt__at(g, peer - 1), rt__piece(b, index));
        index++;
    }
    if (w != (uint32_t)v) {
        rt__next(s);
        rt__send(s, rt__at(g, peer), rt__piece(b, index));
        rt__recv(s, rt__at(g, peer), rt__piece(b, me));
    }
}

void rt__rsb_ompi_butterfly(rt__sched *s, const rt__grp *g, uint64_t block)
{
    uint32_t p = g->n;
    if (p == rt__pof2(p)) {
        butterfly_pof2(s, g, block);
        return;
    }
    rt__blocks b = rt__blocks_of((uint64_t)p * block, p, 0);
    rt__rs_ompi_butterfly(s, g, &b);
}
