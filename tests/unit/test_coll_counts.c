/*
 * Unit tests of rt_coll's schedules against the textbook: the messages, bytes and reduced
 * bytes of every algorithm summed over a world, exactly, for powers of two up to 16 ranks
 * (every root) and for the folds of a few other sizes. Each world also passes the checks of
 * test_coll.h (pairing, execution, data flow).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "rt_test_main.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_coll.h"

/* ---- exact counts for powers of two -------------------------------------------------------- */

static void expect(unsigned op, unsigned alg, uint32_t p, uint64_t b, uint64_t msgs, uint64_t bytes,
                   int64_t reduced)
{
    world w;
    for (int32_t root = 0; root < (rooted(op) ? (int32_t)p : 1); root++) {
        setup su = {op, alg, p, rooted(op) ? root : RT_PEER_NONE, b, NULL, NULL};
        check_all(&su, &w);
        sums s = sum_world(&w);
        if (s.msgs != msgs || s.bytes != bytes || (reduced >= 0 && s.reduced != (uint64_t)reduced))
            fail_msg("%s/%s p=%u root=%d: %llu messages, %llu bytes, %llu reduced; expected "
                     "%llu, %llu, %lld",
                     rt_event_op_name(RT_EV_COLL_END, op), rt_coll_alg_name(alg), p, root,
                     (unsigned long long)s.msgs, (unsigned long long)s.bytes,
                     (unsigned long long)s.reduced, (unsigned long long)msgs,
                     (unsigned long long)bytes, (long long)reduced);
        world_free(&w);
    }
}

static void test_counts_pow2(void **state)
{
    (void)state;
    for (uint32_t p = 2; p <= 16; p *= 2) {
        uint64_t lg = 0, n = 4096, b = 256; /* n and b divisible by every p */
        while ((1u << lg) < p)
            lg++;
        /* barrier */
        expect(RT_COLL_BARRIER, RT_ALG_DISSEMINATION, p, 0, p * lg, 0, 0);
        expect(RT_COLL_BARRIER, RT_ALG_BINOMIAL, p, 0, 2 * (p - 1), 0, 0);
        /* bcast: binomial p-1 messages of n; the scatter moves n/p * p/2 * lg */
        uint64_t scat = n / p * (p / 2) * lg;
        expect(RT_COLL_BCAST, RT_ALG_LINEAR, p, n, p - 1, (p - 1) * n, 0);
        expect(RT_COLL_BCAST, RT_ALG_BINOMIAL, p, n, p - 1, (p - 1) * n, 0);
        expect(RT_COLL_BCAST, RT_ALG_SCATTER_RING, p, n, p - 1 + p * (p - 1), scat + (p - 1) * n,
               0);
        expect(RT_COLL_BCAST, RT_ALG_SCATTER_RDB, p, n, p - 1 + p * lg, scat + (p - 1) * n, 0);
        /* reduce */
        expect(RT_COLL_REDUCE, RT_ALG_LINEAR, p, n, p - 1, (p - 1) * n, (p - 1) * n);
        expect(RT_COLL_REDUCE, RT_ALG_BINOMIAL, p, n, p - 1, (p - 1) * n, (p - 1) * n);
        expect(RT_COLL_REDUCE, RT_ALG_RABENSEIFNER, p, n, p * lg + p - 1, (p - 1) * n + lg * n / 2,
               (p - 1) * n);
        /* allreduce */
        expect(RT_COLL_ALLREDUCE, RT_ALG_REDUCE_BCAST, p, n, 2 * (p - 1), 2 * (p - 1) * n,
               (p - 1) * n);
        expect(RT_COLL_ALLREDUCE, RT_ALG_RDB, p, n, p * lg, p * lg * n, p * lg * n);
        expect(RT_COLL_ALLREDUCE, RT_ALG_RING, p, n, 2 * p * (p - 1), 2 * (p - 1) * n, (p - 1) * n);
        expect(RT_COLL_ALLREDUCE, RT_ALG_RABENSEIFNER, p, n, 2 * p * lg, 2 * (p - 1) * n,
               (p - 1) * n);
        /* gather, scatter: a tree moves b * p/2 per level */
        for (unsigned op = RT_COLL_GATHER; op <= RT_COLL_SCATTERV; op++) {
            expect(op, RT_ALG_LINEAR, p, b, p - 1, (p - 1) * b, 0);
            expect(op, RT_ALG_BINOMIAL, p, b, p - 1, b * (p / 2) * lg, 0);
        }
        /* allgather */
        for (unsigned op = RT_COLL_ALLGATHER; op <= RT_COLL_ALLGATHERV; op++) {
            expect(op, RT_ALG_RING, p, b, p * (p - 1), p * (p - 1) * b, 0);
            expect(op, RT_ALG_RDB, p, b, p * lg, p * (p - 1) * b, 0);
            expect(op, RT_ALG_BRUCK, p, b, p * lg, p * (p - 1) * b, 0);
            expect(op, RT_ALG_GATHER_BCAST, p, b, 2 * (p - 1), b * (p / 2) * lg + (p - 1) * p * b,
                   0);
        }
        /* alltoall */
        for (unsigned op = RT_COLL_ALLTOALL; op <= RT_COLL_ALLTOALLW; op++) {
            expect(op, RT_ALG_DIRECT, p, b, p * (p - 1), p * (p - 1) * b, 0);
            expect(op, RT_ALG_PAIRWISE, p, b, p * (p - 1), p * (p - 1) * b, 0);
            expect(op, RT_ALG_BRUCK, p, b, p * lg, p * lg * (p / 2) * b, 0);
        }
        /* reduce_scatter: total p*b, each rank ends with b */
        for (unsigned op = RT_COLL_REDUCE_SCATTER; op <= RT_COLL_REDUCE_SCATTER_BLOCK; op++) {
            uint64_t t = p * b;
            expect(op, RT_ALG_RING, p, b, p * (p - 1), (p - 1) * t, (p - 1) * t);
            expect(op, RT_ALG_PAIRWISE, p, b, p * (p - 1), (p - 1) * t, (p - 1) * t);
            expect(op, RT_ALG_RECURSIVE_HALVING, p, b, p * lg, (p - 1) * t, (p - 1) * t);
        }
        /* scan: a chain, or lg exchanges per rank */
        expect(RT_COLL_SCAN, RT_ALG_LINEAR, p, n, p - 1, (p - 1) * n, (p - 1) * n);
        expect(RT_COLL_SCAN, RT_ALG_RDB, p, n, p * lg, p * lg * n, -1);
        expect(RT_COLL_EXSCAN, RT_ALG_LINEAR, p, n, p - 1, (p - 1) * n, (p - 2) * n);
        expect(RT_COLL_EXSCAN, RT_ALG_RDB, p, n, p * lg, p * lg * n, -1);
    }
    /* 0 bytes: nothing but barriers moves */
    expect(RT_COLL_BCAST, RT_ALG_BINOMIAL, 8, 0, 0, 0, 0);
    expect(RT_COLL_ALLREDUCE, RT_ALG_RABENSEIFNER, 8, 0, 0, 0, 0);
    expect(RT_COLL_ALLTOALL, RT_ALG_BRUCK, 8, 0, 0, 0, 0);
    /* v-variants keep their shape: 0-byte messages stay */
    expect(RT_COLL_ALLTOALLV, RT_ALG_DIRECT, 4, 0, 12, 0, 0);
    expect(RT_COLL_GATHERV, RT_ALG_LINEAR, 4, 0, 3, 0, 0);
}

/* Non-power-of-two worlds: the folds add a message per extra rank at each end. */
static void test_counts_folded(void **state)
{
    (void)state;
    uint64_t n = 4096;
    /* p = 5 (pof2 4, rem 1): 2 fold messages + 4 * 2 exchanges */
    expect(RT_COLL_ALLREDUCE, RT_ALG_RDB, 5, n, 2 + 8, 10 * n, 9 * n);
    /* p = 7 (pof2 4, rem 3): 6 fold messages + 8 exchanges, 8 allgather, reductions
     * 3 * n (fold) + n * 3/4 per pof2 rank */
    expect(RT_COLL_ALLREDUCE, RT_ALG_RABENSEIFNER, 7, n, 6 + 8 + 8, 6 * n + 2 * 4 * n * 3 / 4,
           3 * n + 3 * n);
    /* Bruck allgather, p = 5: steps of 1, 2 and the last 1 block */
    expect(RT_COLL_ALLGATHER, RT_ALG_BRUCK, 5, 100, 15, 5 * 4 * 100, 0);
    /* dissemination, p = 5: ceil(log2 5) = 3 rounds */
    expect(RT_COLL_BARRIER, RT_ALG_DISSEMINATION, 5, 0, 15, 0, 0);
    /* binomial trees are p-1 messages whatever p */
    expect(RT_COLL_BCAST, RT_ALG_BINOMIAL, 7, n, 6, 6 * n, 0);
    expect(RT_COLL_REDUCE, RT_ALG_BINOMIAL, 7, n, 6, 6 * n, 6 * n);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_counts_pow2),
        cmocka_unit_test(test_counts_folded),
    };
    return rt_test_main("coll_counts", tests, argc, argv);
}
