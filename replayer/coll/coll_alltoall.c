/*
 * All-to-all: direct (MPICH's "scattered"), pairwise and Bruck.
 *
 * The block a rank sends to dst is piece (dst - me) mod p of everything it sends, the block
 * it receives from src piece (me - src) mod p of everything it receives: cutting by ring
 * distance makes both ends of every pair agree whenever all ranks move the same totals,
 * which is exact for alltoall and the equal-blocks guess for alltoallv and alltoallw without
 * their per-peer counts (direct and pairwise use those when the trace has them).
 */
#include "rt__coll.h"

/* MPIR_CVAR_ALLTOALL_THROTTLE: requests MPICH keeps in flight per batch. */
#define THROTTLE 32u

typedef struct a2a {
    rt__blocks out, in;          /* by ring distance */
    const uint64_t *sblk, *rblk; /* the per-peer counts by group index, or NULL */
    uint32_t p, me;
} a2a;

static a2a a2a_of(const rt__grp *g, uint64_t sent, uint64_t recvd, const uint64_t *sblk,
                  const uint64_t *rblk)
{
    a2a x = {rt__blocks_of(sent, g->n, 0), rt__blocks_of(recvd, g->n, 0), sblk, rblk, g->n, g->me};
    return x;
}

static uint64_t to(const a2a *x, uint32_t dst)
{
    return x->sblk ? x->sblk[dst] : rt__piece(&x->out, (dst + x->p - x->me) % x->p);
}

static uint64_t from(const a2a *x, uint32_t src)
{
    return x->rblk ? x->rblk[src] : rt__piece(&x->in, (x->me + x->p - src) % x->p);
}

/* Batches of THROTTLE distances i (the first batch includes the local copy, i = 0): receive
 * from me + i and send to me - i, all posted at once. */
void rt__alltoall_direct(rt__sched *s, const rt__grp *g, uint64_t sent, uint64_t recvd,
                         const uint64_t *sblk, const uint64_t *rblk)
{
    a2a x = a2a_of(g, sent, recvd, sblk, rblk);
    uint32_t p = x.p, me = x.me;
    for (uint32_t first = 0; first < p && !rt__stopped(s); first += THROTTLE) {
        uint32_t end = p - first < THROTTLE ? p : first + THROTTLE;
        rt__next(s);
        for (uint32_t i = first ? first : 1; i < end; i++) {
            uint32_t src = (me + i) % p;
            rt__recv(s, rt__at(g, src), from(&x, src));
        }
        for (uint32_t i = first ? first : 1; i < end; i++) {
            uint32_t dst = (me + p - i) % p;
            rt__send(s, rt__at(g, dst), to(&x, dst));
        }
    }
}

/* p-1 exchanges; partner me ^ i for a power of two (both directions), else to me + i and
 * from me - i. */
void rt__alltoall_pairwise(rt__sched *s, const rt__grp *g, uint64_t sent, uint64_t recvd,
                           const uint64_t *sblk, const uint64_t *rblk)
{
    a2a x = a2a_of(g, sent, recvd, sblk, rblk);
    uint32_t p = x.p, me = x.me;
    int pow2 = (p & (p - 1)) == 0;
    for (uint32_t i = 1; i < p && !rt__stopped(s); i++) {
        uint32_t dst = pow2 ? me ^ i : (me + i) % p, src = pow2 ? me ^ i : (me + p - i) % p;
        rt__next(s);
        rt__recv(s, rt__at(g, src), from(&x, src));
        rt__send(s, rt__at(g, dst), to(&x, dst));
    }
}

/* Distances j in [0, m) with bit d set. */
static uint64_t with_bit(uint64_t m, uint64_t d)
{
    uint64_t over = m % (2 * d);
    return m / (2 * d) * d + (over > d ? over - d : 0);
}

/* Bytes of the blocks whose distance has bit d set: for n cut into p pieces, piece j has
 * n/p bytes plus one when j < n % p. */
static uint64_t bruck_bytes(const rt__blocks *b, uint64_t d)
{
    return with_bit(b->parts, d) * (b->n / b->parts) + with_bit(b->n % b->parts, d);
}

/* Step d = 1, 2, 4, ...: every block whose distance has bit d set moves d ranks on (to
 * me + d, from me - d); after the last step each block has covered its distance. */
void rt__alltoall_bruck(rt__sched *s, const rt__grp *g, uint64_t sent, uint64_t recvd)
{
    a2a x = a2a_of(g, sent, recvd, NULL, NULL);
    uint32_t p = x.p, me = x.me;
    for (uint64_t d = 1; d < p; d *= 2) {
        rt__next(s);
        rt__recv(s, rt__at(g, (uint32_t)((me + p - d) % p)), bruck_bytes(&x.in, d));
        rt__send(s, rt__at(g, (uint32_t)((me + d) % p)), bruck_bytes(&x.out, d));
    }
}
