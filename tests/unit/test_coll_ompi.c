/*
 * Unit tests of Open MPI 4.1's selection (rt_coll_select_ompi, rt_coll_ompi_pick): the
 * number tuned's fixed rules give and the algorithm retrace runs for it, either side of the
 * thresholds of every op; the Open MPI column of the table (rt_coll_ompi_id); and the exact
 * steps of the schedules written from Open MPI's source (pipeline, binary_tree, bmtree,
 * knomial, ompi_linear, ompi_recursive_doubling, ompi_ring, ompi_rabenseifner): peers, bytes,
 * rounds, order.
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

/* ---- selection ------------------------------------------------------------------------- */

/* Open MPI's number and retrace's algorithm for a call of every rank: b as in setup (for
 * alltoall and allgather one rank's block, for bcast, reduce and allreduce the message). */
static int pick(unsigned op, uint32_t p, uint64_t b)
{
    setup su = {op, RT_ALG_OMPI, p, 0, b, NULL, NULL};
    rt_coll_call c = call_of(&su, 0);
    return rt_coll_ompi_pick(&c);
}

static unsigned sel(unsigned op, uint32_t p, uint64_t b)
{
    setup su = {op, RT_ALG_OMPI, p, 0, b, NULL, NULL};
    rt_coll_call c = call_of(&su, p > 1 ? 1 : 0); /* away from the root: the same choice */
    return rt_coll_select_ompi(&c);
}

static void test_select_allreduce(void **state)
{
    (void)state;
    /* 2 and 3 ranks: ring below 8 bytes (recursive doubling with fewer elements than
     * ranks), rd below 4096, ring, rd, ring, segmented ring (= ring), Rabenseifner */
    assert_int_equal(pick(RT_COLL_ALLREDUCE, 2, 7), 4);
    assert_int_equal(sel(RT_COLL_ALLREDUCE, 2, 7), RT_ALG_OMPI_RING); /* 7 chars */
    assert_int_equal(sel(RT_COLL_ALLREDUCE, 3, 4), RT_ALG_RDB);       /* 1 int < 3 ranks */
    assert_int_equal(sel(RT_COLL_ALLREDUCE, 3, 6), RT_ALG_OMPI_RING); /* 3 shorts */
    assert_int_equal(pick(RT_COLL_ALLREDUCE, 2, 8), 3);
    assert_int_equal(pick(RT_COLL_ALLREDUCE, 2, 4095), 3);
    assert_int_equal(pick(RT_COLL_ALLREDUCE, 2, 4096), 4);
    assert_int_equal(pick(RT_COLL_ALLREDUCE, 3, 8191), 4);
    assert_int_equal(pick(RT_COLL_ALLREDUCE, 3, 8192), 3);
    assert_int_equal(pick(RT_COLL_ALLREDUCE, 3, 16384), 4);
    assert_int_equal(pick(RT_COLL_ALLREDUCE, 3, 65535), 4);
    assert_int_equal(pick(RT_COLL_ALLREDUCE, 3, 65536), 5);
    assert_int_equal(sel(RT_COLL_ALLREDUCE, 3, 65536), RT_ALG_OMPI_RING);
    assert_int_equal(pick(RT_COLL_ALLREDUCE, 3, 262143), 5);
    assert_int_equal(pick(RT_COLL_ALLREDUCE, 3, 262144), 6);
    assert_int_equal(sel(RT_COLL_ALLREDUCE, 3, 262144), RT_ALG_OMPI_RABENSEIFNER);
    /* 4 to 7 ranks: ring below 16, rd below 8192, Rabenseifner */
    assert_int_equal(sel(RT_COLL_ALLREDUCE, 4, 15), RT_ALG_OMPI_RING);
    assert_int_equal(sel(RT_COLL_ALLREDUCE, 4, 12), RT_ALG_RDB); /* 3 ints < 4 ranks */
    assert_int_equal(sel(RT_COLL_ALLREDUCE, 7, 16), RT_ALG_RDB);
    assert_int_equal(sel(RT_COLL_ALLREDUCE, 7, 8191), RT_ALG_RDB);
    assert_int_equal(sel(RT_COLL_ALLREDUCE, 7, 8192), RT_ALG_OMPI_RABENSEIFNER);
    /* 8 to 15: rd below 8192; 16 to 31: segmented ring below 64 */
    assert_int_equal(sel(RT_COLL_ALLREDUCE, 8, 8191), RT_ALG_RDB);
    assert_int_equal(sel(RT_COLL_ALLREDUCE, 15, 8192), RT_ALG_OMPI_RABENSEIFNER);
    assert_int_equal(pick(RT_COLL_ALLREDUCE, 16, 63), 5);
    assert_int_equal(sel(RT_COLL_ALLREDUCE, 16, 63), RT_ALG_OMPI_RING); /* 63 chars >= 16 */
    assert_int_equal(sel(RT_COLL_ALLREDUCE, 16, 8), RT_ALG_RDB);        /* 1 double */
    assert_int_equal(pick(RT_COLL_ALLREDUCE, 16, 64), 3);
    assert_int_equal(pick(RT_COLL_ALLREDUCE, 31, 4096), 6);
    /* 128 to 255 ranks: nonoverlapping (reduce + bcast) below 131072 */
    assert_int_equal(pick(RT_COLL_ALLREDUCE, 200, 131071), 2);
    assert_int_equal(sel(RT_COLL_ALLREDUCE, 200, 131071), RT_ALG_OMPI_REDUCE_BCAST);
    assert_int_equal(pick(RT_COLL_ALLREDUCE, 5000, 16383), 5);
    assert_int_equal(pick(RT_COLL_ALLREDUCE, 5000, 32768), 6);
}

static void test_select_bcast(void **state)
{
    (void)state;
    static const struct {
        uint32_t p;
        uint64_t n;
        int id;
        unsigned alg;
    } c[] = {
        {2, 31, 3, RT_ALG_PIPELINE},
        {2, 32, 5, RT_ALG_BINARY_TREE},
        {3, 255, 5, RT_ALG_BINARY_TREE},
        {3, 256, 3, RT_ALG_PIPELINE},
        {3, 512, 7, RT_ALG_KNOMIAL},
        {3, 1023, 7, RT_ALG_KNOMIAL},
        {3, 1024, 1, RT_ALG_OMPI_LINEAR},
        {3, 32768, 5, RT_ALG_BINARY_TREE},
        {3, 131072, 2, RT_ALG_PIPELINE}, /* chain, fanout 0 forced to 1 */
        {3, 262144, 1, RT_ALG_OMPI_LINEAR},
        {3, 524288, 6, RT_ALG_BMTREE},
        {3, 1048576, 5, RT_ALG_BINARY_TREE},
        {4, 63, 5, RT_ALG_BINARY_TREE},
        {4, 64, 6, RT_ALG_BMTREE},
        {5, 128, 5, RT_ALG_BINARY_TREE},
        {6, 2048, 6, RT_ALG_BMTREE},
        {7, 8191, 6, RT_ALG_BMTREE},
        {7, 8192, 1, RT_ALG_OMPI_LINEAR},
        {7, 1048576, 2, RT_ALG_PIPELINE},
        {8, 7, 7, RT_ALG_KNOMIAL},
        {8, 8, 5, RT_ALG_BINARY_TREE},
        {8, 64, 7, RT_ALG_KNOMIAL},
        {15, 4096, 5, RT_ALG_BINARY_TREE},
        {15, 16384, 6, RT_ALG_BMTREE},
        {15, 32768, 1, RT_ALG_OMPI_LINEAR},
        {16, 4095, 7, RT_ALG_KNOMIAL},
        {16, 4096, 6, RT_ALG_BMTREE},
        {31, 1048576, 8, RT_ALG_OMPI_SCATTER_RDB},
        {300, 16384, 4, RT_ALG_OMPI_SPLIT_BINTREE},
    };
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        if (pick(RT_COLL_BCAST, c[i].p, c[i].n) != c[i].id ||
            sel(RT_COLL_BCAST, c[i].p, c[i].n) != c[i].alg)
            fail_msg("bcast on %u ranks, %llu bytes: %d, %s (want %d, %s)", c[i].p,
                     (unsigned long long)c[i].n, pick(RT_COLL_BCAST, c[i].p, c[i].n),
                     rt_coll_alg_name(sel(RT_COLL_BCAST, c[i].p, c[i].n)), c[i].id,
                     rt_coll_alg_name(c[i].alg));
    }
}

static void test_select_reduce_barrier(void **state)
{
    (void)state;
    /* reduce, 2 and 3 ranks: Rabenseifner below 8 (linear with fewer elements than pof2),
     * binary, pipeline, linear below 262144, pipeline, chain (= pipeline), pipeline */
    assert_int_equal(pick(RT_COLL_REDUCE, 2, 7), 7);
    assert_int_equal(sel(RT_COLL_REDUCE, 2, 7), RT_ALG_RABENSEIFNER); /* 7 chars >= 2 */
    assert_int_equal(sel(RT_COLL_REDUCE, 2, 4), RT_ALG_OMPI_LINEAR);  /* 1 int < 2 */
    assert_int_equal(sel(RT_COLL_REDUCE, 3, 8), RT_ALG_BINARY_TREE);
    assert_int_equal(sel(RT_COLL_REDUCE, 3, 16), RT_ALG_PIPELINE);
    assert_int_equal(sel(RT_COLL_REDUCE, 3, 32), RT_ALG_OMPI_LINEAR);
    assert_int_equal(sel(RT_COLL_REDUCE, 3, 262143), RT_ALG_OMPI_LINEAR);
    assert_int_equal(sel(RT_COLL_REDUCE, 3, 262144), RT_ALG_PIPELINE);
    assert_int_equal(pick(RT_COLL_REDUCE, 3, 524288), 2);
    assert_int_equal(sel(RT_COLL_REDUCE, 3, 524288), RT_ALG_PIPELINE);
    /* 4 to 7 ranks */
    assert_int_equal(sel(RT_COLL_REDUCE, 4, 4095), RT_ALG_BINARY_TREE);
    assert_int_equal(pick(RT_COLL_REDUCE, 4, 4096), 2);
    assert_int_equal(sel(RT_COLL_REDUCE, 7, 65535), RT_ALG_PIPELINE);
    assert_int_equal(sel(RT_COLL_REDUCE, 7, 65536), RT_ALG_BINOMIAL);
    assert_int_equal(sel(RT_COLL_REDUCE, 5, 262144), RT_ALG_OMPI_LINEAR);
    assert_int_equal(sel(RT_COLL_REDUCE, 5, 524288), RT_ALG_BINOMIAL);
    assert_int_equal(sel(RT_COLL_REDUCE, 5, 1048576), RT_ALG_OMPI_LINEAR);
    /* 8 to 15: binary below 8192; 16 to 31 below 4096; then binomial */
    assert_int_equal(sel(RT_COLL_REDUCE, 8, 8191), RT_ALG_BINARY_TREE);
    assert_int_equal(sel(RT_COLL_REDUCE, 8, 8192), RT_ALG_BINOMIAL);
    assert_int_equal(sel(RT_COLL_REDUCE, 31, 4096), RT_ALG_BINOMIAL);
    assert_int_equal(pick(RT_COLL_REDUCE, 300, 8192), 6);
    assert_int_equal(sel(RT_COLL_REDUCE, 300, 8192), RT_ALG_OMPI_IN_ORDER_BINARY);
    /* barrier by size only: rd below 4, linear below 8, rd below 64, Bruck */
    assert_int_equal(sel(RT_COLL_BARRIER, 2, 0), RT_ALG_OMPI_RD);
    assert_int_equal(sel(RT_COLL_BARRIER, 3, 0), RT_ALG_OMPI_RD);
    assert_int_equal(sel(RT_COLL_BARRIER, 4, 0), RT_ALG_OMPI_LINEAR);
    assert_int_equal(sel(RT_COLL_BARRIER, 7, 0), RT_ALG_OMPI_LINEAR);
    assert_int_equal(sel(RT_COLL_BARRIER, 8, 0), RT_ALG_OMPI_RD);
    assert_int_equal(sel(RT_COLL_BARRIER, 63, 0), RT_ALG_OMPI_RD);
    assert_int_equal(sel(RT_COLL_BARRIER, 64, 0), RT_ALG_DISSEMINATION);
    assert_int_equal(pick(RT_COLL_BARRIER, 300, 0), 6);
    assert_int_equal(sel(RT_COLL_BARRIER, 300, 0), RT_ALG_OMPI_TREE);
}

static void test_select_alltoall_allgather(void **state)
{
    (void)state;
    /* alltoall (b = one block): 2 ranks pairwise or two_proc (both one exchange) */
    assert_int_equal(pick(RT_COLL_ALLTOALL, 2, 1), 2);
    assert_int_equal(pick(RT_COLL_ALLTOALL, 2, 2), 5);
    assert_int_equal(sel(RT_COLL_ALLTOALL, 2, 2), RT_ALG_PAIRWISE);
    assert_int_equal(pick(RT_COLL_ALLTOALL, 2, 262144), 5);
    assert_int_equal(pick(RT_COLL_ALLTOALL, 2, 1048576), 2);
    /* 3 to 7 ranks: linear_sync below 8192 (as direct), linear, ..., pairwise */
    assert_int_equal(pick(RT_COLL_ALLTOALL, 3, 8191), 4);
    assert_int_equal(sel(RT_COLL_ALLTOALL, 3, 8191), RT_ALG_DIRECT);
    assert_int_equal(pick(RT_COLL_ALLTOALL, 7, 8192), 1);
    assert_int_equal(pick(RT_COLL_ALLTOALL, 7, 524288), 2);
    assert_int_equal(sel(RT_COLL_ALLTOALL, 7, 524288), RT_ALG_PAIRWISE);
    assert_int_equal(pick(RT_COLL_ALLTOALL, 7, 1048576), 1);
    /* 16 to 31 ranks: Bruck from 4 to 511 bytes */
    assert_int_equal(sel(RT_COLL_ALLTOALL, 16, 3), RT_ALG_DIRECT);
    assert_int_equal(sel(RT_COLL_ALLTOALL, 16, 4), RT_ALG_BRUCK);
    assert_int_equal(sel(RT_COLL_ALLTOALL, 16, 511), RT_ALG_BRUCK);
    assert_int_equal(sel(RT_COLL_ALLTOALL, 16, 512), RT_ALG_DIRECT);
    /* alltoallv by size: pairwise below 4, linear below 64 */
    assert_int_equal(sel(RT_COLL_ALLTOALLV, 3, 8), RT_ALG_PAIRWISE);
    assert_int_equal(sel(RT_COLL_ALLTOALLV, 4, 8), RT_ALG_DIRECT);
    assert_int_equal(sel(RT_COLL_ALLTOALLV, 64, 8), RT_ALG_PAIRWISE);
    /* allgather (b = one block): two_proc on 2, rd below 32 (Bruck off powers of two) */
    assert_int_equal(pick(RT_COLL_ALLGATHER, 2, 8), 6);
    assert_int_equal(sel(RT_COLL_ALLGATHER, 2, 8), RT_ALG_RING);
    assert_int_equal(sel(RT_COLL_ALLGATHER, 4, 1 << 20), RT_ALG_RDB);
    assert_int_equal(sel(RT_COLL_ALLGATHER, 6, 8), RT_ALG_BRUCK);
    assert_int_equal(sel(RT_COLL_ALLGATHER, 32, 1023), RT_ALG_RDB);
    assert_int_equal(pick(RT_COLL_ALLGATHER, 32, 1024), 5);
    assert_int_equal(sel(RT_COLL_ALLGATHER, 32, 1024), RT_ALG_NEIGHBOR_EXCHANGE);
    assert_int_equal(pick(RT_COLL_ALLGATHER, 63, 65536), 4);
    /* allgatherv (b = one block, per-rank average): 4 to 7 ranks default below 256 */
    assert_int_equal(sel(RT_COLL_ALLGATHERV, 2, 2047), RT_ALG_RING);
    assert_int_equal(pick(RT_COLL_ALLGATHERV, 2, 2048), 5);
    assert_int_equal(sel(RT_COLL_ALLGATHERV, 4, 255), RT_ALG_GATHERV_BCAST);
    assert_int_equal(pick(RT_COLL_ALLGATHERV, 4, 256), 4);
    assert_int_equal(sel(RT_COLL_ALLGATHERV, 4, 256), RT_ALG_NEIGHBOR_EXCHANGE);
    assert_int_equal(sel(RT_COLL_ALLGATHERV, 4, 16384), RT_ALG_BRUCK);
    assert_int_equal(sel(RT_COLL_ALLGATHERV, 4, 262144), RT_ALG_NEIGHBOR_EXCHANGE);
    assert_int_equal(sel(RT_COLL_ALLGATHERV, 4, 4096), RT_ALG_RING);
}

static void test_select_others(void **state)
{
    (void)state;
    /* gather, scatter (b = one block) */
    assert_int_equal(pick(RT_COLL_GATHER, 2, 1), 3);
    assert_int_equal(sel(RT_COLL_GATHER, 2, 1), RT_ALG_OMPI_LINEAR_SYNC);
    assert_int_equal(pick(RT_COLL_GATHER, 3, 1 << 20), 3);
    assert_int_equal(sel(RT_COLL_GATHER, 3, 1 << 20), RT_ALG_OMPI_LINEAR_SYNC);
    assert_int_equal(sel(RT_COLL_GATHER, 3, 2), RT_ALG_OMPI_LINEAR);
    assert_int_equal(sel(RT_COLL_GATHER, 3, 4), RT_ALG_BINOMIAL);
    assert_int_equal(sel(RT_COLL_GATHER, 3, 32768), RT_ALG_OMPI_LINEAR);
    assert_int_equal(sel(RT_COLL_GATHER, 5, 1023), RT_ALG_BINOMIAL);
    assert_int_equal(sel(RT_COLL_GATHER, 5, 1024), RT_ALG_OMPI_LINEAR);
    assert_int_equal(sel(RT_COLL_GATHER, 8, 1 << 20), RT_ALG_BINOMIAL);
    assert_int_equal(pick(RT_COLL_SCATTER, 3, 1), 3);
    assert_int_equal(sel(RT_COLL_SCATTER, 3, 2), RT_ALG_OMPI_LINEAR);
    assert_int_equal(sel(RT_COLL_SCATTER, 4, 2047), RT_ALG_BINOMIAL);
    assert_int_equal(sel(RT_COLL_SCATTER, 4, 2048), RT_ALG_OMPI_LINEAR);
    /* reduce_scatter (b = the total... per rank: setup cuts it) and reduce_scatter_block */
    assert_int_equal(pick(RT_COLL_REDUCE_SCATTER_BLOCK, 2, 3), 2);
    assert_int_equal(pick(RT_COLL_REDUCE_SCATTER_BLOCK, 2, 131072), 1);
    assert_int_equal(sel(RT_COLL_REDUCE_SCATTER_BLOCK, 2, 131072), RT_ALG_OMPI_LINEAR);
    assert_int_equal(sel(RT_COLL_REDUCE_SCATTER_BLOCK, 2, 3), RT_ALG_OMPI_RD);
    assert_int_equal(pick(RT_COLL_REDUCE_SCATTER_BLOCK, 2, 4), 4);
    assert_int_equal(sel(RT_COLL_REDUCE_SCATTER_BLOCK, 2, 4), RT_ALG_BUTTERFLY);
    /* ops tuned does not decide: coll/basic's linear algorithms */
    assert_int_equal(pick(RT_COLL_GATHERV, 4, 8), 0);
    assert_int_equal(sel(RT_COLL_GATHERV, 4, 8), RT_ALG_LINEAR);
    assert_int_equal(sel(RT_COLL_SCATTERV, 4, 8), RT_ALG_LINEAR);
    assert_int_equal(sel(RT_COLL_SCAN, 4, 8), RT_ALG_LINEAR);
    assert_int_equal(sel(RT_COLL_EXSCAN, 4, 8), RT_ALG_LINEAR);
    assert_int_equal(sel(RT_COLL_ALLTOALLW, 4, 8), RT_ALG_DIRECT);
    rt_coll_call nb = {.op = RT_COLL_NEIGHBOR_ALLGATHER, .size = 4};
    assert_int_equal(rt_coll_select_ompi(&nb), RT_ALG_LINEAR);
    rt_coll_call none = {.op = RT_COLL_ALLOCATE, .size = 4};
    assert_int_equal(rt_coll_select_ompi(&none), RT_ALG_COUNT);
}

/* ---- the Open MPI column ---------------------------------------------------------------- */

/* The largest value of coll_tuned_<op>_algorithm in Open MPI 4.1.4 (ompi_info --param coll
 * tuned --level 9); 0 for ops without the variable. */
static int ompi_max(unsigned op)
{
    switch (op) {
    case RT_COLL_BCAST:
        return 9;
    case RT_COLL_REDUCE:
        return 7;
    case RT_COLL_ALLREDUCE:
    case RT_COLL_ALLGATHER:
    case RT_COLL_BARRIER:
        return 6;
    case RT_COLL_ALLTOALL:
    case RT_COLL_ALLGATHERV:
        return 5;
    case RT_COLL_REDUCE_SCATTER:
    case RT_COLL_REDUCE_SCATTER_BLOCK:
        return 4;
    case RT_COLL_GATHER:
    case RT_COLL_SCATTER:
        return 3;
    case RT_COLL_ALLTOALLV:
    case RT_COLL_SCAN:
    case RT_COLL_EXSCAN:
        return 2;
    default:
        return 0;
    }
}

static void test_ompi_ids(void **state)
{
    (void)state;
    assert_int_equal(rt_coll_ompi_id(RT_COLL_BCAST, RT_ALG_OMPI_LINEAR), 1);
    assert_int_equal(rt_coll_ompi_id(RT_COLL_BCAST, RT_ALG_PIPELINE), 3);
    assert_int_equal(rt_coll_ompi_id(RT_COLL_BCAST, RT_ALG_BINARY_TREE), 5);
    assert_int_equal(rt_coll_ompi_id(RT_COLL_BCAST, RT_ALG_BMTREE), 6);
    assert_int_equal(rt_coll_ompi_id(RT_COLL_BCAST, RT_ALG_KNOMIAL), 7);
    assert_int_equal(rt_coll_ompi_id(RT_COLL_BCAST, RT_ALG_BINOMIAL), 0); /* mirrored tree */
    assert_int_equal(rt_coll_ompi_id(RT_COLL_REDUCE, RT_ALG_BINARY_TREE), 4);
    assert_int_equal(rt_coll_ompi_id(RT_COLL_REDUCE, RT_ALG_BINOMIAL), 5);
    assert_int_equal(rt_coll_ompi_id(RT_COLL_REDUCE, RT_ALG_RABENSEIFNER), 7);
    assert_int_equal(rt_coll_ompi_id(RT_COLL_ALLREDUCE, RT_ALG_OMPI_LINEAR), 1);
    assert_int_equal(rt_coll_ompi_id(RT_COLL_ALLREDUCE, RT_ALG_RDB), 3);
    assert_int_equal(rt_coll_ompi_id(RT_COLL_ALLREDUCE, RT_ALG_OMPI_RING), 4);
    assert_int_equal(rt_coll_ompi_id(RT_COLL_ALLREDUCE, RT_ALG_RING), 0); /* pieces, order */
    assert_int_equal(rt_coll_ompi_id(RT_COLL_ALLREDUCE, RT_ALG_OMPI_RABENSEIFNER), 6);
    assert_int_equal(rt_coll_ompi_id(RT_COLL_ALLREDUCE, RT_ALG_RABENSEIFNER), 0);
    assert_int_equal(rt_coll_ompi_id(RT_COLL_ALLTOALL, RT_ALG_DIRECT), 1);
    assert_int_equal(rt_coll_ompi_id(RT_COLL_ALLTOALL, RT_ALG_PAIRWISE), 2);
    assert_int_equal(rt_coll_ompi_id(RT_COLL_ALLTOALL, RT_ALG_BRUCK), 3);
    assert_int_equal(rt_coll_ompi_id(RT_COLL_ALLGATHERV, RT_ALG_RING), 3);
    assert_int_equal(rt_coll_ompi_id(RT_COLL_BARRIER, RT_ALG_OMPI_LINEAR), 1);
    assert_int_equal(rt_coll_ompi_id(RT_COLL_BARRIER, RT_ALG_OMPI_RD), 3);
    assert_int_equal(rt_coll_ompi_id(RT_COLL_BARRIER, RT_ALG_DISSEMINATION), 4);
    assert_int_equal(rt_coll_ompi_id(RT_COLL_BARRIER, RT_ALG_OMPI_DOUBLE_RING), 2);
    assert_int_equal(rt_coll_ompi_id(RT_COLL_BCAST, RT_ALG_OMPI_SCATTER_RDB), 8);
    assert_int_equal(rt_coll_ompi_id(RT_COLL_BCAST, RT_ALG_OMPI_SCATTER_RING), 9);
    assert_int_equal(rt_coll_ompi_id(RT_COLL_BCAST, RT_ALG_OMPI_SPLIT_BINTREE), 4);
    assert_int_equal(rt_coll_ompi_id(RT_COLL_GATHER, RT_ALG_OMPI_LINEAR_SYNC), 3);
    /* split_bintree with one element: Open MPI's chain (number 2) */
    assert_int_equal(rt_coll_ompi_runs(RT_COLL_BCAST, 8, 8, 0, 4), 2);
    assert_int_equal(rt_coll_ompi_runs(RT_COLL_BCAST, 8, 16, 0, 4), 4);
    /* fewer elements than ranks: Open MPI's linear bcast (56 bytes: 7 doubles) */
    assert_int_equal(rt_coll_ompi_runs(RT_COLL_BCAST, 8, 56, 0, 8), 1);
    assert_int_equal(rt_coll_ompi_runs(RT_COLL_BCAST, 8, 64, 0, 9), 9);
    assert_int_equal(rt_coll_ompi_runs(RT_COLL_BCAST, 8, 7, 0, 9), 1);
    assert_int_equal(rt_coll_ompi_id(RT_COLL_BARRIER, RT_ALG_OMPI_TREE), 6);
    assert_int_equal(rt_coll_ompi_id(RT_COLL_REDUCE, RT_ALG_OMPI_IN_ORDER_BINARY), 6);
    assert_int_equal(rt_coll_ompi_id(RT_COLL_REDUCE_SCATTER_BLOCK, RT_ALG_RECURSIVE_HALVING), 3);
    assert_int_equal(rt_coll_ompi_id(RT_COLL_BCAST, RT_ALG_COUNT), 0);
    assert_int_equal(rt_coll_ompi_id(RT_COLL_COUNT, RT_ALG_LINEAR), 0);
    /* per op: numbers only on cells with a schedule, in Open MPI's range, each on one row;
     * mpich and ompi themselves have none */
    for (unsigned op = 0; op < RT_COLL_COUNT; op++) {
        const char *name = rt_event_op_name(RT_EV_COLL_END, op);
        assert_int_equal(rt_coll_ompi_id(op, RT_ALG_MPICH), 0);
        assert_int_equal(rt_coll_ompi_id(op, RT_ALG_OMPI), 0);
        for (unsigned a = 0; a < RT_ALG_COUNT; a++) {
            int id = rt_coll_ompi_id(op, a);
            if (id && (!rt_coll_alg_valid(op, a) || id < 0 || id > ompi_max(op)))
                fail_msg("%s, %s: Open MPI number %d out of place", name, rt_coll_alg_name(a), id);
            for (unsigned b = 0; id && b < a; b++)
                if (rt_coll_ompi_id(op, b) == id)
                    fail_msg("%s: %s and %s are both Open MPI's %d", name, rt_coll_alg_name(b),
                             rt_coll_alg_name(a), id);
        }
    }
}

/* Every call Open MPI's rules see gets a number in range and an algorithm of the op; when
 * that algorithm has an Open MPI number it is the one picked, unless Open MPI's own
 * algorithm hands over (ring, Rabenseifner, rd allgather) or a nearest one models it. */
static void test_select_sweep(void **state)
{
    (void)state;
    for (unsigned op = 0; op < RT_COLL_COUNT; op++) {
        if (!rt_coll_alg_valid(op, RT_ALG_OMPI) || rt_coll_is_neighbor(op))
            continue;
        const char *name = rt_event_op_name(RT_EV_COLL_END, op);
        for (uint32_t p = 1; p <= 70; p += p < 20 ? 1 : 7)
            for (unsigned i = 0; i < 3 * 24; i++) {
                uint64_t b = ((uint64_t)1 << (i / 3)) + (i % 3) - 1;
                setup su = {op, RT_ALG_OMPI, p, 0, b, NULL, NULL};
                rt_coll_call c = call_of(&su, 0);
                int id = rt_coll_ompi_pick(&c);
                rt_coll_alg a = rt_coll_select_ompi(&c);
                if (id < 0 || id > ompi_max(op) ||
                    (ompi_max(op) && !id && op != RT_COLL_SCAN && op != RT_COLL_EXSCAN))
                    fail_msg("%s on %u ranks, %llu: number %d", name, p, (unsigned long long)b, id);
                if (a == RT_ALG_MPICH || a == RT_ALG_OMPI || !rt_coll_alg_valid(op, a))
                    fail_msg("%s on %u ranks, %llu: Open MPI's %d runs as '%s'", name, p,
                             (unsigned long long)b, id, rt_coll_alg_name(a));
            }
    }
}

/* ---- exact steps ---------------------------------------------------------------------- */

/* Rank me's steps as text: "S3:10" a send to rank 3 of 10 bytes, "R0:10" a receive, "+10"
 * a reduction; rounds apart by " | ". */
static void render(unsigned op, unsigned alg, uint32_t p, int32_t root, uint64_t b, uint32_t me,
                   char *out, size_t len)
{
    setup su = {op, alg, p, root, b, NULL, NULL};
    rt_coll_call c = call_of(&su, me);
    steps st = {0};
    rt_err err = {0};
    assert_int_equal(rt_coll_schedule(alg, &c, push, &st, NULL, &err), 0);
    size_t n = 0;
    out[0] = 0;
    for (size_t i = 0; i < st.n && n < len; i++) {
        const rt_coll_step *s = &st.v[i];
        const char *sep = !i ? "" : s->round != st.v[i - 1].round ? " | " : " ";
        if (s->kind == RT_STEP_REDUCE)
            n += (size_t)snprintf(out + n, len - n, "%s+%llu", sep, (unsigned long long)s->bytes);
        else
            n += (size_t)snprintf(out + n, len - n, "%s%c%d:%llu", sep,
                                  s->kind == RT_STEP_SEND ? 'S' : 'R', s->peer,
                                  (unsigned long long)s->bytes);
    }
    free(st.v);
}

/* Every rank's steps, one string each, and the world's consistency (check_all). */
static void expect(unsigned op, unsigned alg, uint32_t p, int32_t root, uint64_t b,
                   const char *const *want)
{
    setup su = {op, alg, p, root, b, NULL, NULL};
    world w;
    check_all(&su, &w);
    for (uint32_t me = 0; me < p; me++) {
        char got[512];
        render(op, alg, p, root, b, me, got, sizeof got);
        if (strcmp(got, want[me]))
            fail_msg("%s %s on %u ranks, rank %u: '%s', want '%s'",
                     rt_event_op_name(RT_EV_COLL_END, op), rt_coll_alg_name(alg), p, me, got,
                     want[me]);
    }
    world_free(&w);
}

static void test_steps_bcast(void **state)
{
    (void)state;
    static const char *const pipe2[] = {"S1:10", "R0:10"};
    expect(RT_COLL_BCAST, RT_ALG_PIPELINE, 2, 0, 10, pipe2);
    static const char *const pipe4[] = {"R3:10 | S1:10", "R0:10", "S3:10", "R2:10 | S0:10"};
    expect(RT_COLL_BCAST, RT_ALG_PIPELINE, 4, 2, 10, pipe4);
    static const char *const bin3[] = {"S1:7 S2:7", "R0:7", "R0:7"};
    expect(RT_COLL_BCAST, RT_ALG_BINARY_TREE, 3, 0, 7, bin3);
    static const char *const bin8[] = {
        "S1:5 S2:5", "R0:5 | S3:5 S5:5", "R0:5 | S4:5 S6:5", "R1:5 | S7:5", "R2:5", "R1:5", "R2:5",
        "R3:5"};
    expect(RT_COLL_BCAST, RT_ALG_BINARY_TREE, 8, 0, 5, bin8);
    /* root 3 of 5: relative rank r is rank (r + 3) % 5 */
    static const char *const bin5[] = {"R3:9 | S2:9", "R4:9", "R0:9", "S4:9 S0:9", "R3:9 | S1:9"};
    expect(RT_COLL_BCAST, RT_ALG_BINARY_TREE, 5, 3, 9, bin5);
    static const char *const bm8[] = {"S1:4 S2:4 S4:4", "R0:4 | S3:4 S5:4",
                                      "R0:4 | S6:4",    "R1:4 | S7:4",
                                      "R0:4",           "R1:4",
                                      "R2:4",           "R3:4"};
    expect(RT_COLL_BCAST, RT_ALG_BMTREE, 8, 0, 4, bm8);
    static const char *const bm5[] = {"S1:4 S2:4 S4:4", "R0:4 | S3:4", "R0:4", "R1:4", "R0:4"};
    expect(RT_COLL_BCAST, RT_ALG_BMTREE, 5, 0, 4, bm5);
    static const char *const kn8[] = {"S4:3 S1:3 S2:3 S3:3",   "R0:3", "R0:3", "R0:3",
                                      "R0:3 | S5:3 S6:3 S7:3", "R4:3", "R4:3", "R4:3"};
    expect(RT_COLL_BCAST, RT_ALG_KNOMIAL, 8, 0, 3, kn8);
    static const char *const kn5[] = {"S4:3 S1:3 S2:3 S3:3", "R0:3", "R0:3", "R0:3", "R0:3"};
    expect(RT_COLL_BCAST, RT_ALG_KNOMIAL, 5, 0, 3, kn5);
    /* Open MPI's linear bcast goes in rank order whatever the root */
    static const char *const lin4[] = {"R2:6", "R2:6", "S0:6 S1:6 S3:6", "R2:6"};
    expect(RT_COLL_BCAST, RT_ALG_OMPI_LINEAR, 4, 2, 6, lin4);
    /* scatter_allgather_ring: 10 bytes are 5 elements of 2 (rt_coll_elem_size), blocks of 2, 2,
     * 1 and 0 elements; the scatter leaves out the empty part, the ring passes it on */
    static const char *const sar4[] = {"S2:2 | S1:4 | R3:0 S1:4 | R3:2 S1:0 | R3:4 S1:2",
                                       "R0:4 | R0:4 S2:4 | R0:0 S2:4 | R0:2 S2:0",
                                       "R0:2 | R1:4 S3:2 | R1:4 S3:4 | R1:0 S3:4",
                                       "R2:2 S0:0 | R2:4 S0:2 | R2:4 S0:4"};
    expect(RT_COLL_BCAST, RT_ALG_OMPI_SCATTER_RING, 4, 0, 10, sar4);
    /* scatter_allgather on 3: 9 one-byte elements; at distance 2 rank 1 has no partner (3 is
     * past p), so rank 0 passes on to it the block it got from rank 2 */
    static const char *const sa3[] = {"S2:3 | S1:3 | R1:3 S1:3 | R2:3 S2:6 | S1:3",
                                      "R0:3 | R0:3 S0:3 | R0:3", "R0:3 | R0:6 S0:3"};
    expect(RT_COLL_BCAST, RT_ALG_OMPI_SCATTER_RDB, 3, 0, 9, sa3);
    /* one element (2 bytes) on 3 ranks: Open MPI's linear bcast instead */
    static const char *const sal3[] = {"R1:2", "S0:2 S2:2", "R1:2"};
    expect(RT_COLL_BCAST, RT_ALG_OMPI_SCATTER_RING, 3, 1, 2, sal3);
    /* split binary tree: 10 bytes are 5 elements of 2, halves of 6 and 4 bytes; on 4 ranks the
     * root gives rank 3 the second half, ranks 1 and 2 swap */
    static const char *const sb4[] = {"S1:6 | S2:4 | S3:4", "R0:6 | S3:6 | R2:4 S2:6",
                                      "R0:4 | R1:6 S1:4", "R1:6 | R0:4"};
    expect(RT_COLL_BCAST, RT_ALG_OMPI_SPLIT_BINTREE, 4, 0, 10, sb4);
    /* root 1 of 3: relative ranks 1 and 2 (ranks 2 and 0) swap halves of 4 and 3 bytes */
    static const char *const sb3[] = {"R1:3 | R2:4 S2:3", "S2:4 | S0:3", "R1:4 | R0:3 S0:4"};
    expect(RT_COLL_BCAST, RT_ALG_OMPI_SPLIT_BINTREE, 3, 1, 7, sb3);
    /* one element: the chain */
    static const char *const sb1[] = {"S1:1", "R0:1 | S2:1", "R1:1"};
    expect(RT_COLL_BCAST, RT_ALG_OMPI_SPLIT_BINTREE, 3, 0, 1, sb1);
}

static void test_steps_reduce(void **state)
{
    (void)state;
    static const char *const pipe3[] = {"R1:8 +8", "R2:8 +8 | S0:8", "S1:8"};
    expect(RT_COLL_REDUCE, RT_ALG_PIPELINE, 3, 0, 8, pipe3);
    static const char *const bin5[] = {"R1:8 +8 | R2:8 +8", "R3:8 +8 | S0:8", "R4:8 +8 | S0:8",
                                       "S1:8", "S2:8"};
    expect(RT_COLL_REDUCE, RT_ALG_BINARY_TREE, 5, 0, 8, bin5);
    /* linear: the root takes rank p-1's value first, then combines the others down to 0,
     * its own at its place */
    static const char *const lin4[] = {"S1:8", "R3:8 | R2:8 +8 +8 | R0:8 +8", "S1:8", "S1:8"};
    expect(RT_COLL_REDUCE, RT_ALG_OMPI_LINEAR, 4, 1, 8, lin4);
    static const char *const lin3[] = {"S2:8", "S2:8", "R1:8 +8 | R0:8 +8"};
    expect(RT_COLL_REDUCE, RT_ALG_OMPI_LINEAR, 3, 2, 8, lin3);
    static const char *const all3[] = {"R2:4 | R1:4 +4 +4 | S1:4 S2:4", "S0:4 | R0:4",
                                       "S0:4 | R0:4"};
    expect(RT_COLL_ALLREDUCE, RT_ALG_OMPI_LINEAR, 3, 0, 4, all3);
    /* in-order binary: the tree rooted at rank p-1 (4: children 2 and 1, 1: child 0; 5:
     * children 3 and 1, 3: child 2, 1: child 0), then rank p-1 to the root if it is another */
    static const char *const io4[] = {"S1:8 | R3:8", "R0:8 +8 | S3:8", "S3:8",
                                      "R2:8 +8 | R1:8 +8 | S0:8"};
    expect(RT_COLL_REDUCE, RT_ALG_OMPI_IN_ORDER_BINARY, 4, 0, 8, io4);
    static const char *const io5[] = {"S1:8", "R0:8 +8 | S4:8", "S3:8", "R2:8 +8 | S4:8",
                                      "R3:8 +8 | R1:8 +8"};
    expect(RT_COLL_REDUCE, RT_ALG_OMPI_IN_ORDER_BINARY, 5, 4, 8, io5);
}

static void test_steps_allreduce(void **state)
{
    (void)state;
    /* 10 doubles on 3 ranks: pieces of 4, 3, 3 elements */
    static const char *const ring3[] = {
        "R2:24 S1:32 +24 | R2:24 S1:24 +24 | R2:32 S1:24 | R2:24 S1:32",
        "R0:32 S2:24 +32 | R0:24 S2:32 +24 | R0:24 S2:24 | R0:32 S2:24",
        "R1:24 S0:24 +24 | R1:32 S0:24 +32 | R1:24 S0:32 | R1:24 S0:24"};
    expect(RT_COLL_ALLREDUCE, RT_ALG_OMPI_RING, 3, RT_PEER_NONE, 80, ring3);
    /* 11 doubles on 3 ranks: ranks 0 and 1 fold (halves of 5 and 6), 0 and 2 the core */
    static const char *const rab3[] = {
        "R1:40 S1:48 +40 | R1:48 | R2:40 S2:48 +40 | R2:48 S2:40 | S1:88",
        "R0:48 S0:40 +48 | S0:48 | R0:88", "R0:48 S0:40 +48 | R0:40 S0:48"};
    expect(RT_COLL_ALLREDUCE, RT_ALG_OMPI_RABENSEIFNER, 3, RT_PEER_NONE, 88, rab3);
    static const char *const rab4[] = {"R1:16 S1:16 +16 | R2:8 S2:8 +8 | R2:8 S2:8 | R1:16 S1:16",
                                       "R0:16 S0:16 +16 | R3:8 S3:8 +8 | R3:8 S3:8 | R0:16 S0:16",
                                       "R3:16 S3:16 +16 | R0:8 S0:8 +8 | R0:8 S0:8 | R3:16 S3:16",
                                       "R2:16 S2:16 +16 | R1:8 S1:8 +8 | R1:8 S1:8 | R2:16 S2:16"};
    expect(RT_COLL_ALLREDUCE, RT_ALG_OMPI_RABENSEIFNER, 4, RT_PEER_NONE, 32, rab4);
}

static void test_steps_allgather(void **state)
{
    (void)state;
    /* neighbor exchange on 4 ranks: the own piece with the first neighbour, then a pair */
    static const char *const ne4[] = {"R1:10 S1:10 | R3:20 S3:20", "R0:10 S0:10 | R2:20 S2:20",
                                      "R3:10 S3:10 | R1:20 S1:20", "R2:10 S2:10 | R0:20 S0:20"};
    expect(RT_COLL_ALLGATHER, RT_ALG_NEIGHBOR_EXCHANGE, 4, RT_PEER_NONE, 10, ne4);
    static const char *const ne6[] = {
        "R1:3 S1:3 | R5:6 S5:6 | R1:6 S1:6", "R0:3 S0:3 | R2:6 S2:6 | R0:6 S0:6",
        "R3:3 S3:3 | R1:6 S1:6 | R3:6 S3:6", "R2:3 S2:3 | R4:6 S4:6 | R2:6 S2:6",
        "R5:3 S5:3 | R3:6 S3:6 | R5:6 S5:6", "R4:3 S4:3 | R0:6 S0:6 | R4:6 S4:6"};
    expect(RT_COLL_ALLGATHER, RT_ALG_NEIGHBOR_EXCHANGE, 6, RT_PEER_NONE, 3, ne6);
    /* gatherv to 0 in rank order, then Open MPI's bcast of 40 bytes on 4 ranks: binary tree */
    static const char *const gb4[] = {"R1:10 | R2:10 | R3:10 | S1:40 S2:40",
                                      "S0:10 | R0:40 | S3:40", "S0:10 | R0:40", "S0:10 | R1:40"};
    expect(RT_COLL_ALLGATHERV, RT_ALG_GATHERV_BCAST, 4, RT_PEER_NONE, 10, gb4);
}

static void test_steps_barrier_rooted(void **state)
{
    (void)state;
    static const char *const rd5[] = {"R4:0 | R1:0 S1:0 | R2:0 S2:0 | S4:0",
                                      "R0:0 S0:0 | R3:0 S3:0", "R3:0 S3:0 | R0:0 S0:0",
                                      "R2:0 S2:0 | R1:0 S1:0", "R0:0 S0:0"};
    expect(RT_COLL_BARRIER, RT_ALG_OMPI_RD, 5, RT_PEER_NONE, 0, rd5);
    static const char *const rd2[] = {"R1:0 S1:0", "R0:0 S0:0"};
    expect(RT_COLL_BARRIER, RT_ALG_OMPI_RD, 2, RT_PEER_NONE, 0, rd2);
    /* double ring: twice round, rank 0 sending first */
    static const char *const dr3[] = {"S1:0 | R2:0 | S1:0 | R2:0", "R0:0 | S2:0 | R0:0 | S2:0",
                                      "R1:0 | S0:0 | R1:0 | S0:0"};
    expect(RT_COLL_BARRIER, RT_ALG_OMPI_DOUBLE_RING, 3, RT_PEER_NONE, 0, dr3);
    static const char *const dr2[] = {"S1:0 | R1:0 | S1:0 | R1:0", "R0:0 | S0:0 | R0:0 | S0:0"};
    expect(RT_COLL_BARRIER, RT_ALG_OMPI_DOUBLE_RING, 2, RT_PEER_NONE, 0, dr2);
    /* tree on 5: up distances 1, 2, 4 to the lower rank, down 4, 2, 1 from it */
    static const char *const tr5[] = {"R1:0 | R2:0 | R4:0 | S4:0 | S2:0 | S1:0", "S0:0 | R0:0",
                                      "R3:0 | S0:0 | R0:0 | S3:0", "S2:0 | R2:0", "S0:0 | R0:0"};
    expect(RT_COLL_BARRIER, RT_ALG_OMPI_TREE, 5, RT_PEER_NONE, 0, tr5);
    static const char *const lin3[] = {"R1:0 R2:0 | S1:0 S2:0", "S0:0 | R0:0", "S0:0 | R0:0"};
    expect(RT_COLL_BARRIER, RT_ALG_OMPI_LINEAR, 3, RT_PEER_NONE, 0, lin3);
    static const char *const gat3[] = {"S1:5", "R0:5 | R2:5", "S1:5"};
    expect(RT_COLL_GATHER, RT_ALG_OMPI_LINEAR, 3, 1, 5, gat3);
    /* linear_sync: a 0-byte go-ahead before each block, an empty second segment after it */
    static const char *const gs3[] = {"R1:0 | S1:5 | S1:0", "R0:5 S0:0 | R2:5 S2:0 | R0:0 R2:0",
                                      "R1:0 | S1:5 | S1:0"};
    expect(RT_COLL_GATHER, RT_ALG_OMPI_LINEAR_SYNC, 3, 1, 5, gs3);
    static const char *const sca3[] = {"S1:5 | S2:5", "R0:5", "R0:5"};
    expect(RT_COLL_SCATTER, RT_ALG_OMPI_LINEAR, 3, 0, 5, sca3);
}

/* rt_coll_schedule with ompi runs exactly the chosen algorithm's steps. */
static void test_ompi_schedules_choice(void **state)
{
    (void)state;
    static const unsigned ops[] = {RT_COLL_BCAST,   RT_COLL_REDUCE,    RT_COLL_ALLREDUCE,
                                   RT_COLL_BARRIER, RT_COLL_ALLGATHER, RT_COLL_ALLTOALL};
    static const uint64_t sizes[] = {4, 100, 3000, 70000};
    for (size_t o = 0; o < sizeof ops / sizeof ops[0]; o++)
        for (uint32_t p = 2; p <= 8; p++)
            for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
                uint64_t b = ops[o] == RT_COLL_BARRIER ? 0 : sizes[k];
                setup su = {ops[o], RT_ALG_OMPI, p, 1, b, NULL, NULL};
                world a, want;
                check_all(&su, &a);
                su.alg = sel(ops[o], p, b);
                gen(&want, &su);
                for (uint32_t r = 0; r < p; r++)
                    assert_same_steps(&a.r[r], &want.r[r]);
                world_free(&a);
                world_free(&want);
            }
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_select_allreduce),
        cmocka_unit_test(test_select_bcast),
        cmocka_unit_test(test_select_reduce_barrier),
        cmocka_unit_test(test_select_alltoall_allgather),
        cmocka_unit_test(test_select_others),
        cmocka_unit_test(test_ompi_ids),
        cmocka_unit_test(test_select_sweep),
        cmocka_unit_test(test_steps_bcast),
        cmocka_unit_test(test_steps_reduce),
        cmocka_unit_test(test_steps_allreduce),
        cmocka_unit_test(test_steps_allgather),
        cmocka_unit_test(test_steps_barrier_rooted),
        cmocka_unit_test(test_ompi_schedules_choice),
    };
    return rt_test_main("coll_ompi", tests, argc, argv);
}
