/*
 * Recursive doubling and halving (allreduce, Rabenseifner's allreduce and reduce,
 * allgather, reduce_scatter, scan), after MPICH.
 *
 * A power of two pof2 <= p ranks does the exchanges; the rem = p - pof2 extra ranks are
 * folded in first and out at the end among the first 2*rem ranks. "Up" folds (allreduce,
 * allgather, reduce_scatter) have the even rank hand its data to the odd rank above it, so
 * new rank k is old rank 2k+1 for k < rem, else k + rem; Rabenseifner's reduce folds "down"
 * (odd to even: new rank k is old rank 2k) so that root 0 keeps working.
 */
#include "rt__coll.h"

/* The new rank of a rank folded out of the exchanges: none. */
#define FOLDED_OUT (-1)

static int64_t fold_up(uint32_t me, uint32_t rem)
{
    if (me < 2 * rem)
        return me % 2 ? (int64_t)(me / 2) : FOLDED_OUT;
    return (int64_t)me - rem;
}

static uint32_t real_up(uint32_t nr, uint32_t rem)
{
    return nr < rem ? 2 * nr + 1 : nr + rem;
}

static uint32_t real_down(uint32_t nr, uint32_t rem)
{
    return nr < rem ? 2 * nr : nr + rem;
}

/* Up fold: the even rank of each of the first rem pairs sends everything, the odd one
 * combines it (when it is a reduction). */
static void fold_in(rt__sched *s, const rt__grp *g, uint32_t rem, uint64_t n, int combine)
{
    uint32_t me = g->me;
    if (me >= 2 * rem)
        return;
    rt__next(s);
    if (me % 2 == 0) {
        rt__send(s, rt__at(g, me + 1), n);
    } else {
        rt__recv(s, rt__at(g, me - 1), n);
        if (combine)
            rt__reduce(s, n);
    }
}

/* And back out: the odd rank returns what its even partner lacks. */
static void fold_out(rt__sched *s, const rt__grp *g, uint32_t rem, uint64_t odd_sends,
                     uint64_t even_gets)
{
    uint32_t me = g->me;
    if (me >= 2 * rem)
        return;
    rt__next(s);
    if (me % 2)
        rt__send(s, rt__at(g, me - 1), odd_sends);
    else
        rt__recv(s, rt__at(g, me + 1), even_gets);
}

void rt__allreduce_rd(rt__sched *s, const rt__grp *g, uint64_t n)
{
    uint32_t pof2 = rt__pof2(g->n), rem = g->n - pof2;
    fold_in(s, g, rem, n, 1);
    int64_t nr = fold_up(g->me, rem);
    for (uint32_t mask = 1; nr >= 0 && mask < pof2; mask <<= 1) {
        int32_t peer = rt__at(g, real_up((uint32_t)nr ^ mask, rem));
        rt__next(s);
        rt__recv(s, peer, n);
        rt__send(s, peer, n);
        rt__reduce(s, n);
    }
    fold_out(s, g, rem, n, n);
}

/*
 * Recursive halving over pof2 pieces of n, distance 1 first (Rabenseifner): new rank nr
 * keeps the lower half of its range when bit mask of nr is clear. Leaves the kept range
 * in *lo (length 1: the bit-reversal of nr).
 */
static void halve_pieces(rt__sched *s, const rt__grp *g, const rt__blocks *b, uint32_t nr,
                         uint32_t pof2, uint32_t (*real)(uint32_t, uint32_t), uint32_t rem,
                         uint32_t *lo)
{
    uint32_t len = pof2;
    *lo = 0;
    for (uint32_t mask = 1; mask < pof2; mask <<= 1) {
        int32_t peer = rt__at(g, real(nr ^ mask, rem));
        len /= 2;
        uint32_t keep = nr & mask ? *lo + len : *lo, give = nr & mask ? *lo : *lo + len;
        rt__next(s);
        rt__recv(s, peer, rt__span(b, keep, len));
        rt__send(s, peer, rt__span(b, give, len));
        rt__reduce(s, rt__span(b, keep, len));
        *lo = keep;
    }
}

void rt__allreduce_rabenseifner(rt__sched *s, const rt__grp *g, uint64_t n)
{
    uint32_t pof2 = rt__pof2(g->n), rem = g->n - pof2;
    rt__blocks b = rt__blocks_of(n, pof2, 0);
    fold_in(s, g, rem, n, 1);
    int64_t nr = fold_up(g->me, rem);
    if (nr >= 0) {
        uint32_t lo, len = 1;
        halve_pieces(s, g, &b, (uint32_t)nr, pof2, real_up, rem, &lo);
        /* recursive-doubling allgather, undoing the halving from the last step back */
        for (uint32_t mask = pof2 / 2; mask > 0 && !rt__stopped(s); mask >>= 1, len *= 2) {
            int32_t peer = rt__at(g, real_up((uint32_t)nr ^ mask, rem));
            uint32_t other = nr & mask ? lo - len : lo + len;
            rt__next(s);
            rt__recv(s, peer, rt__span(&b, other, len));
            rt__send(s, peer, rt__span(&b, lo, len));
            if (nr & mask)
                lo = other;
        }
    }
    fold_out(s, g, rem, n, n);
}

void rt__reduce_rabenseifner(rt__sched *s, const rt__grp *g, uint32_t root, uint64_t n)
{
    uint32_t p = g->n, me = g->me, pof2 = rt__pof2(p), rem = p - pof2;
    rt__blocks b = rt__blocks_of(n, pof2, 0);
    int64_t nr = me >= 2 * rem ? (int64_t)me - rem : me % 2 ? FOLDED_OUT : (int64_t)(me / 2);
    if (me < 2 * rem) { /* down fold: odd ranks hand their data to the even one below */
        rt__next(s);
        if (me % 2) {
            rt__send(s, rt__at(g, me - 1), n);
        } else {
            rt__recv(s, rt__at(g, me + 1), n);
            rt__reduce(s, n);
        }
    }
    uint32_t lo = 0, len = 1;
    if (nr >= 0)
        halve_pieces(s, g, &b, (uint32_t)nr, pof2, real_down, rem, &lo);

    /* A root that was folded out gets new rank 0's piece and plays new rank 0. */
    int odd_root = root < 2 * rem && root % 2;
    uint32_t newroot = root >= 2 * rem ? root - rem : root / 2;
    if (odd_root) {
        newroot = 0;
        if (me == root) {
            rt__next(s);
            rt__recv(s, rt__at(g, 0), rt__span(&b, 0, 1));
            nr = 0;
            lo = 0;
        } else if (nr == 0) {
            rt__next(s);
            rt__send(s, rt__at(g, root), rt__span(&b, 0, 1));
            nr = FOLDED_OUT;
        }
    }
    /* Binomial gather of the pieces, undoing the halving: at each step the side whose
     * half does not hold the new root sends what it has and is done. */
    for (uint32_t mask = pof2 / 2; nr >= 0 && mask > 0; mask >>= 1, len *= 2) {
        uint32_t nd = (uint32_t)nr ^ mask;
        int32_t peer = nd == 0 && odd_root ? rt__at(g, root) : rt__at(g, real_down(nd, rem));
        uint32_t other = nr & mask ? lo - len : lo + len;
        rt__next(s);
        if ((nd & ~(mask - 1)) == (newroot & ~(mask - 1))) {
            rt__send(s, peer, rt__span(&b, lo, len));
            break;
        }
        rt__recv(s, peer, rt__span(&b, other, len));
        if (nr & mask)
            lo = other;
    }
}

/* Bytes held by new ranks k .. k+cnt-1 after an up fold: new rank k < rem also holds the
 * piece of the even rank folded into it. */
static uint64_t fold_span(const rt__blocks *b, uint32_t rem, uint32_t k, uint32_t cnt)
{
    uint32_t a = k < rem ? 2 * k : k + rem;
    uint32_t e = k + cnt < rem ? 2 * (k + cnt) : k + cnt + rem;
    return rt__span(b, a, e - a);
}

void rt__allgather_rd(rt__sched *s, const rt__grp *g, const rt__blocks *b)
{
    uint32_t p = g->n, me = g->me, pof2 = rt__pof2(p), rem = p - pof2;
    fold_in(s, g, rem, rt__piece(b, me - me % 2), 0); /* the even rank's piece */
    int64_t nr = fold_up(me, rem);
    /* exchange with distance 1, 2, ...: each side sends the block of mask new ranks it has */
    for (uint32_t mask = 1; nr >= 0 && mask < pof2 && !rt__stopped(s); mask <<= 1) {
        uint32_t nd = (uint32_t)nr ^ mask;
        int32_t peer = rt__at(g, real_up(nd, rem));
        rt__next(s);
        rt__recv(s, peer, fold_span(b, rem, nd & ~(mask - 1), mask));
        rt__send(s, peer, fold_span(b, rem, (uint32_t)nr & ~(mask - 1), mask));
    }
    uint64_t total = rt__span(b, 0, p);
    if (me < 2 * rem) /* the even rank lacks all but its own piece */
        fold_out(s, g, rem, total - rt__piece(b, me - (me % 2)), total - rt__piece(b, me));
}

void rt__reduce_scatter_rh(rt__sched *s, const rt__grp *g, const rt__blocks *b)
{
    uint32_t p = g->n, me = g->me, pof2 = rt__pof2(p), rem = p - pof2;
    fold_in(s, g, rem, rt__span(b, 0, p), 1);
    int64_t nr = fold_up(me, rem);
    /* halving with distance pof2/2 first: new rank nr ends with its own block (ranks a) */
    uint32_t a = 0, e = pof2;
    for (uint32_t mask = pof2 / 2; nr >= 0 && mask > 0; mask >>= 1) {
        int32_t peer = rt__at(g, real_up((uint32_t)nr ^ mask, rem));
        uint32_t mid = a + mask;
        int upper = (nr & mask) != 0;
        uint64_t keep = upper ? fold_span(b, rem, mid, e - mid) : fold_span(b, rem, a, mask);
        uint64_t give = upper ? fold_span(b, rem, a, mask) : fold_span(b, rem, mid, e - mid);
        rt__next(s);
        rt__recv(s, peer, keep);
        rt__send(s, peer, give);
        rt__reduce(s, keep);
        if (upper)
            a = mid;
        else
            e = mid;
    }
    if (me < 2 * rem)
        fold_out(s, g, rem, rt__piece(b, me - (me % 2)), rt__piece(b, me));
}

void rt__scan_rd(rt__sched *s, const rt__grp *g, uint64_t n, int exclusive)
{
    uint32_t p = g->n, me = g->me;
    int have = 0; /* exscan: the result buffer already holds something to combine with */
    for (uint32_t mask = 1; mask < p; mask <<= 1) {
        uint32_t dst = me ^ mask;
        if (dst >= p)
            continue;
        int32_t peer = rt__at(g, dst);
        rt__next(s);
        rt__recv(s, peer, n);
        rt__send(s, peer, n);
        rt__reduce(s, n); /* into the running partial result */
        if (me > dst) {   /* a lower contribution also goes into the result */
            if (!exclusive || have)
                rt__reduce(s, n);
            have = 1;
        }
    }
}
