/*
 * Rings, Bruck's allgather, pairwise reduce_scatter and the scan chain. Every rank talks to
 * fixed neighbours; pieces are indexed by group index (b->rot maps them to ranks).
 */
#include "rt__coll.h"

/* MPICH's ring allgather: step i (1-based) passes piece me-i+1 to the right and takes
 * piece me-i from the left, so every piece travels p-1 hops. */
void rt__allgather_ring(rt__sched *s, const rt__grp *g, const rt__blocks *b)
{
    uint32_t p = g->n, me = g->me;
    if (p < 2)
        return;
    int32_t right = rt__at(g, (me + 1) % p), left = rt__at(g, (me + p - 1) % p);
    for (uint32_t i = 1; i < p && !rt__stopped(s); i++) {
        rt__next(s);
        rt__recv(s, left, rt__piece(b, (me + p - i) % p));
        rt__send(s, right, rt__piece(b, (me + p - i + 1) % p));
    }
}

/* Rank me holds pieces me .. me+cnt-1 and sends them to me - d, for d = 1, 2, 4, ...; a
 * last step sends the p - d pieces still missing (MPICH's brucks). */
void rt__allgather_bruck(rt__sched *s, const rt__grp *g, const rt__blocks *b)
{
    uint32_t p = g->n, me = g->me, cnt = 1, d = 1;
    for (; d <= p / 2; d *= 2, cnt *= 2) {
        uint32_t src = (me + d) % p;
        rt__next(s);
        rt__recv(s, rt__at(g, src), rt__span(b, src, cnt));
        rt__send(s, rt__at(g, (me + p - d) % p), rt__span(b, me, cnt));
    }
    if (p - d > 0) {
        uint32_t src = (me + d) % p;
        rt__next(s);
        rt__recv(s, rt__at(g, src), rt__span(b, src, p - d));
        rt__send(s, rt__at(g, (me + p - d) % p), rt__span(b, me, p - d));
    }
}

/* Ring reduce-scatter (MPICH's ring allreduce, first half): step i sends the partial sum of
 * piece me-1-i to the right and combines piece me-2-i from the left; rank me ends with its
 * own piece fully reduced. */
void rt__reduce_scatter_ring(rt__sched *s, const rt__grp *g, const rt__blocks *b)
{
    uint32_t p = g->n, me = g->me;
    if (p < 2)
        return;
    int32_t right = rt__at(g, (me + 1) % p), left = rt__at(g, (me + p - 1) % p);
    for (uint32_t i = 0; i + 1 < p && !rt__stopped(s); i++) {
        uint64_t in = rt__piece(b, (me + 2 * p - 2 - i) % p);
        rt__next(s);
        rt__recv(s, left, in);
        rt__send(s, right, rt__piece(b, (me + p - 1 - i) % p));
        rt__reduce(s, in);
    }
}

/* MPICH's pairwise reduce_scatter: step i sends dst = me + i its piece straight from the
 * input and combines its own piece from src = me - i. */
void rt__reduce_scatter_pairwise(rt__sched *s, const rt__grp *g, const rt__blocks *b)
{
    uint32_t p = g->n, me = g->me;
    uint64_t mine = rt__piece(b, me);
    for (uint32_t i = 1; i < p && !rt__stopped(s); i++) {
        uint32_t dst = (me + i) % p;
        rt__next(s);
        rt__recv(s, rt__at(g, (me + p - i) % p), mine);
        rt__send(s, rt__at(g, dst), rt__piece(b, dst));
        rt__reduce(s, mine);
    }
}

void rt__allreduce_ring(rt__sched *s, const rt__grp *g, uint64_t n)
{
    rt__blocks b = rt__blocks_of(n, g->n, 0);
    rt__reduce_scatter_ring(s, g, &b);
    rt__allgather_ring(s, g, &b); /* starts by passing on the piece just completed */
}

/* The chain: rank me takes the prefix of the ranks below from me-1, combines its own value
 * into it (exscan: only when there is someone to pass it to) and passes it to me+1. */
void rt__scan_linear(rt__sched *s, const rt__grp *g, uint64_t n, int exclusive)
{
    uint32_t p = g->n, me = g->me;
    if (me > 0) {
        rt__next(s);
        rt__recv(s, rt__at(g, me - 1), n);
        if (!exclusive || me + 1 < p)
            rt__reduce(s, n);
    }
    if (me + 1 < p) {
        rt__next(s);
        rt__send(s, rt__at(g, me + 1), n);
    }
}
