/*
 * Linear and binomial-tree algorithms (bcast, reduce, gather, scatter) and the barriers.
 * The root is group index 0 (callers rotate). Trees follow MPICH: a rank's relative rank
 * vr receives from vr - m, m its lowest set bit, and serves children vr + m/2, ..., vr + 1
 * (those below p); MPICH's tree sends are blocking, so each is its own round.
 */
#include "rt__coll.h"

void rt__bcast_linear(rt__sched *s, const rt__grp *g, uint64_t n)
{
    if (g->n < 2)
        return;
    rt__next(s);
    if (g->me != 0) {
        rt__recv(s, rt__at(g, 0), n);
        return;
    }
    for (uint32_t i = 1; i < g->n && !rt__stopped(s); i++)
        rt__send(s, rt__at(g, i), n);
}

void rt__reduce_linear(rt__sched *s, const rt__grp *g, uint64_t n)
{
    if (g->n < 2)
        return;
    rt__next(s);
    if (g->me != 0) {
        rt__send(s, rt__at(g, 0), n);
        return;
    }
    for (uint32_t i = 1; i < g->n && !rt__stopped(s); i++)
        rt__recv(s, rt__at(g, i), n);
    /* the root combines the contributions once they are in, one REDUCE each */
    for (uint32_t i = 1; i < g->n && !rt__stopped(s); i++)
        rt__reduce(s, n);
}

void rt__gather_linear(rt__sched *s, const rt__grp *g, const rt__blocks *b)
{
    if (g->n < 2)
        return;
    rt__next(s);
    if (g->me != 0) {
        rt__send(s, rt__at(g, 0), rt__piece(b, g->me));
        return;
    }
    for (uint32_t i = 1; i < g->n && !rt__stopped(s); i++)
        rt__recv(s, rt__at(g, i), rt__piece(b, i));
}

void rt__scatter_linear(rt__sched *s, const rt__grp *g, const rt__blocks *b)
{
    if (g->n < 2)
        return;
    rt__next(s);
    if (g->me != 0) {
        rt__recv(s, rt__at(g, 0), rt__piece(b, g->me));
        return;
    }
    for (uint32_t i = 1; i < g->n && !rt__stopped(s); i++)
        rt__send(s, rt__at(g, i), rt__piece(b, i));
}

/* Pieces of the subtree of relative rank v whose span is m ranks (clipped at p). */
static uint64_t subtree(const rt__blocks *b, uint32_t p, uint32_t v, uint32_t m)
{
    return rt__span(b, v, v + m < p ? m : p - v);
}

void rt__bcast_binomial(rt__sched *s, const rt__grp *g, uint64_t n)
{
    uint32_t p = g->n, vr = g->me, mask = 1;
    for (; mask < p; mask <<= 1)
        if (vr & mask) {
            rt__next(s);
            rt__recv(s, rt__at(g, vr - mask), n);
            break;
        }
    for (mask >>= 1; mask > 0; mask >>= 1)
        if (vr + mask < p) {
            rt__next(s);
            rt__send(s, rt__at(g, vr + mask), n);
        }
}

void rt__scatter_binomial(rt__sched *s, const rt__grp *g, const rt__blocks *b)
{
    uint32_t p = g->n, vr = g->me, mask = 1;
    for (; mask < p; mask <<= 1)
        if (vr & mask) {
            rt__next(s);
            rt__recv(s, rt__at(g, vr - mask), subtree(b, p, vr, mask));
            break;
        }
    for (mask >>= 1; mask > 0; mask >>= 1)
        if (vr + mask < p) {
            rt__next(s);
            rt__send(s, rt__at(g, vr + mask), subtree(b, p, vr + mask, mask));
        }
}

void rt__reduce_binomial(rt__sched *s, const rt__grp *g, uint64_t n)
{
    uint32_t p = g->n, vr = g->me;
    for (uint32_t mask = 1; mask < p; mask <<= 1) {
        if (vr & mask) {
            rt__next(s);
            rt__send(s, rt__at(g, vr - mask), n);
            return;
        }
        if (vr + mask < p) {
            rt__next(s);
            rt__recv(s, rt__at(g, vr + mask), n);
            rt__reduce(s, n);
        }
    }
}

void rt__gather_binomial(rt__sched *s, const rt__grp *g, const rt__blocks *b)
{
    uint32_t p = g->n, vr = g->me;
    for (uint32_t mask = 1; mask < p; mask <<= 1) {
        if (vr & mask) {
            rt__next(s);
            rt__send(s, rt__at(g, vr - mask), subtree(b, p, vr, mask));
            return;
        }
        if (vr + mask < p) {
            rt__next(s);
            rt__recv(s, rt__at(g, vr + mask), subtree(b, p, vr + mask, mask));
        }
    }
}

void rt__barrier_dissemination(rt__sched *s, const rt__grp *g)
{
    uint32_t p = g->n, me = g->me;
    for (uint32_t mask = 1; mask < p; mask <<= 1) {
        rt__next(s);
        rt__recv(s, rt__at(g, (me + p - mask) % p), 0);
        rt__send(s, rt__at(g, (me + mask) % p), 0);
    }
}

/* Fan-in to index 0 and fan-out again, 0-byte messages (the barrier keeps them). */
void rt__barrier_binomial(rt__sched *s, const rt__grp *g)
{
    rt__reduce_binomial(s, g, 0);
    rt__bcast_binomial(s, g, 0);
}
