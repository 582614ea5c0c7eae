/*
 * Unit tests of MPICH's selection (rt_coll_select_mpich): the algorithm it picks at and
 * around each threshold of every op, and that rt_coll_schedule with mpich emits exactly the
 * chosen algorithm's steps.
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

/* ---- MPICH selection --------------------------------------------------------------------- */

static unsigned pick(unsigned op, uint32_t p, uint64_t b)
{
    setup su = {op, RT_ALG_MPICH, p, 0, b, NULL, NULL};
    rt_coll_call c = call_of(&su, 0);
    return rt_coll_select_mpich(&c);
}

static void test_select_mpich(void **state)
{
    (void)state;
    assert_int_equal(pick(RT_COLL_BARRIER, 8, 0), RT_ALG_DISSEMINATION);
    /* bcast: binomial below 8 ranks or up to 12288 bytes; then scatter + rdb (pof2, up to
     * 524288) or scatter + ring */
    assert_int_equal(pick(RT_COLL_BCAST, 7, 1 << 24), RT_ALG_BINOMIAL);
    assert_int_equal(pick(RT_COLL_BCAST, 8, 12288), RT_ALG_BINOMIAL);
    assert_int_equal(pick(RT_COLL_BCAST, 8, 12289), RT_ALG_SCATTER_RDB);
    assert_int_equal(pick(RT_COLL_BCAST, 8, 524288), RT_ALG_SCATTER_RDB);
    assert_int_equal(pick(RT_COLL_BCAST, 8, 524289), RT_ALG_SCATTER_RING);
    assert_int_equal(pick(RT_COLL_BCAST, 12, 12288), RT_ALG_BINOMIAL);
    assert_int_equal(pick(RT_COLL_BCAST, 12, 12289), RT_ALG_SCATTER_RING);
    /* reduce: binomial up to 2048 bytes or with fewer elements than pof2 */
    assert_int_equal(pick(RT_COLL_REDUCE, 8, 2048), RT_ALG_BINOMIAL);
    assert_int_equal(pick(RT_COLL_REDUCE, 8, 2056), RT_ALG_RABENSEIFNER);
    assert_int_equal(pick(RT_COLL_REDUCE, 1024, 4096), RT_ALG_BINOMIAL); /* 512 doubles */
    assert_int_equal(pick(RT_COLL_REDUCE, 1024, 8192), RT_ALG_RABENSEIFNER);
    /* allreduce: recursive doubling up to 8 bytes or fewer elements than pof2 */
    assert_int_equal(pick(RT_COLL_ALLREDUCE, 2, 8), RT_ALG_RDB);
    assert_int_equal(pick(RT_COLL_ALLREDUCE, 2, 16), RT_ALG_RABENSEIFNER);
    assert_int_equal(pick(RT_COLL_ALLREDUCE, 4, 16), RT_ALG_RDB);          /* 2 doubles < 4 */
    assert_int_equal(pick(RT_COLL_ALLREDUCE, 4, 12), RT_ALG_RDB);          /* 3 ints < 4 */
    assert_int_equal(pick(RT_COLL_ALLREDUCE, 4, 20), RT_ALG_RABENSEIFNER); /* 5 ints */
    assert_int_equal(pick(RT_COLL_ALLREDUCE, 8, 2048), RT_ALG_RABENSEIFNER);
    assert_int_equal(pick(RT_COLL_ALLREDUCE, 8, 63), RT_ALG_RABENSEIFNER); /* 63 bytes */
    /* allgather: pof2 below 524288 in all: rdb; else below 81920: bruck; else ring */
    assert_int_equal(pick(RT_COLL_ALLGATHER, 8, 65535), RT_ALG_RDB);
    assert_int_equal(pick(RT_COLL_ALLGATHER, 8, 65536), RT_ALG_RING);
    assert_int_equal(pick(RT_COLL_ALLGATHER, 5, 16383), RT_ALG_BRUCK);
    assert_int_equal(pick(RT_COLL_ALLGATHER, 5, 16384), RT_ALG_RING);
    assert_int_equal(pick(RT_COLL_ALLGATHERV, 5, 16383), RT_ALG_BRUCK);
    assert_int_equal(pick(RT_COLL_ALLGATHERV, 16, 32767), RT_ALG_RDB);
    /* alltoall by block: bruck (8+ ranks) up to 256, direct up to 32768, then pairwise */
    assert_int_equal(pick(RT_COLL_ALLTOALL, 8, 256), RT_ALG_BRUCK);
    assert_int_equal(pick(RT_COLL_ALLTOALL, 8, 257), RT_ALG_DIRECT);
    assert_int_equal(pick(RT_COLL_ALLTOALL, 8, 32768), RT_ALG_DIRECT);
    assert_int_equal(pick(RT_COLL_ALLTOALL, 8, 32769), RT_ALG_PAIRWISE);
    assert_int_equal(pick(RT_COLL_ALLTOALL, 7, 1), RT_ALG_DIRECT);
    assert_int_equal(pick(RT_COLL_ALLTOALL, 7, 32769), RT_ALG_PAIRWISE);
    assert_int_equal(pick(RT_COLL_ALLTOALLV, 8, 1), RT_ALG_DIRECT);
    assert_int_equal(pick(RT_COLL_ALLTOALLW, 8, 1 << 20), RT_ALG_DIRECT);
    /* reduce_scatter: total below 524288 */
    assert_int_equal(pick(RT_COLL_REDUCE_SCATTER, 8, 65535), RT_ALG_RECURSIVE_HALVING);
    assert_int_equal(pick(RT_COLL_REDUCE_SCATTER, 8, 65536), RT_ALG_PAIRWISE);
    assert_int_equal(pick(RT_COLL_REDUCE_SCATTER_BLOCK, 8, 65535), RT_ALG_RECURSIVE_HALVING);
    assert_int_equal(pick(RT_COLL_REDUCE_SCATTER_BLOCK, 8, 65536), RT_ALG_PAIRWISE);
    /* fixed choices */
    assert_int_equal(pick(RT_COLL_GATHER, 8, 1 << 20), RT_ALG_BINOMIAL);
    assert_int_equal(pick(RT_COLL_SCATTER, 8, 1), RT_ALG_BINOMIAL);
    assert_int_equal(pick(RT_COLL_GATHERV, 8, 1), RT_ALG_LINEAR);
    assert_int_equal(pick(RT_COLL_SCATTERV, 8, 1), RT_ALG_LINEAR);
    assert_int_equal(pick(RT_COLL_SCAN, 8, 1), RT_ALG_RDB);
    assert_int_equal(pick(RT_COLL_EXSCAN, 8, 1), RT_ALG_RDB);
    assert_int_equal(pick(RT_COLL_NEIGHBOR_ALLTOALL, 8, 1), RT_ALG_LINEAR);
    assert_int_equal(pick(RT_COLL_NEIGHBOR_ALLGATHERV, 8, 1), RT_ALG_LINEAR);
    assert_int_equal(pick(RT_COLL_ALLOCATE, 8, 1), RT_ALG_COUNT);

    /* rt_coll_schedule with mpich emits exactly the chosen algorithm's steps */
    for (unsigned op = 0; op < RT_COLL_NEIGHBOR_ALLGATHER; op++) {
        for (uint64_t b = 1; b <= 1 << 20; b *= 32) {
            world a, c;
            setup su = {op, RT_ALG_MPICH, 8, rooted(op) ? 3 : RT_PEER_NONE, b, NULL, NULL};
            gen(&a, &su);
            rt_coll_call call = call_of(&su, 0);
            su.alg = rt_coll_select_mpich(&call);
            gen(&c, &su);
            for (uint32_t r = 0; r < 8; r++) {
                assert_same_steps(&a.r[r], &c.r[r]);
            }
            world_free(&a);
            world_free(&c);
        }
    }
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_select_mpich),
    };
    return rt_test_main("coll_select", tests, argc, argv);
}
