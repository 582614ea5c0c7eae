/*
 * Unit tests for replayer/ collective schedules (rt_coll). Every op x algorithm x size x
 * root is expanded for all ranks of a small world and checked for global consistency:
 * sends and receives pair up per (src, dst) in order with equal bytes; a round-by-round
 * executor with rendezvous semantics finishes (no deadlock); data from every rank that
 * should arrive somewhere does (bitsets carried along the messages). Also bad input, the
 * approximations, the callback, the names. The worlds and checks: test_coll_world.c.
 * Elsewhere: neighbourhood collectives (test_coll_nbr.c, in this executable); textbook
 * counts (unit.coll_counts), the MSA algorithms (unit.coll_msa), MPICH's selection
 * (unit.coll_select).
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

/* ---- sweep --------------------------------------------------------------------------------- */

static const uint32_t sweep_p[] = {1, 2, 3, 4, 5, 7, 8, 16};
static const uint64_t sweep_b[] = {0, 1, 7, 13, 1000, 12288, 12289};

/* Module and node layouts for the MSA algorithms (NULL: none). */
static void layout(int which, uint32_t p, uint32_t *module, uint32_t *node, const uint32_t **m,
                   const uint32_t **n)
{
    for (uint32_t i = 0; i < p; i++) {
        switch (which) {
        case 1: /* three contiguous modules, two ranks per node */
            module[i] = i * 3 / p;
            node[i] = i / 2;
            break;
        case 2: /* interleaved modules, nodes spanning them */
            module[i] = i % 2;
            node[i] = i / 3;
            break;
        case 3: /* scattered ids */
            module[i] = (i * 7 + 3) % 4 * 10;
            node[i] = module[i] * 100 + i % 3;
            break;
        case 4: /* one module, several nodes */
            module[i] = 5;
            node[i] = i % 3;
            break;
        default: /* one rank per module */
            module[i] = i;
            node[i] = 0;
            break;
        }
    }
    *m = which ? module : NULL;
    *n = which ? node : NULL;
}

static void test_sweep(void **state)
{
    (void)state;
    world w;
    uint32_t module[MAXP], node[MAXP];
    unsigned runs = 0;
    for (unsigned op = 0; op < RT_COLL_COUNT; op++) {
        if (!has_schedule(op) || rt_coll_is_neighbor(op)) /* those: test_coll_nbr.c */
            continue;
        for (unsigned alg = 0; alg < RT_ALG_COUNT; alg++) {
            if (!rt_coll_alg_valid(op, alg))
                continue;
            int msa = alg == RT_ALG_MSA || alg == RT_ALG_MSA2;
            for (size_t ip = 0; ip < sizeof sweep_p / sizeof *sweep_p; ip++) {
                uint32_t p = sweep_p[ip];
                for (size_t ib = 0; ib < sizeof sweep_b / sizeof *sweep_b; ib++)
                    for (int lay = 0; lay <= (msa ? 5 : 0); lay++)
                        for (int32_t root = 0; root < (rooted(op) ? (int32_t)p : 1); root++) {
                            setup su = {op,          alg,  p,   rooted(op) ? root : RT_PEER_NONE,
                                        sweep_b[ib], NULL, NULL};
                            layout(lay, p, module, node, &su.module, &su.node);
                            if (lay == 5)
                                su.node = NULL;
                            check_all(&su, &w);
                            world_free(&w);
                            runs++;
                        }
            }
        }
    }
    print_message("%u worlds\n", runs);
    assert_true(runs > 10000);
}

/* Worlds beyond one batch of the direct alltoall and odd sizes for the folds. */
static void test_sweep_larger(void **state)
{
    (void)state;
    static const uint32_t ps[] = {33, 40, 64};
    static const unsigned ops[] = {RT_COLL_ALLTOALL,  RT_COLL_ALLTOALLV,      RT_COLL_ALLGATHER,
                                   RT_COLL_ALLREDUCE, RT_COLL_REDUCE_SCATTER, RT_COLL_BARRIER,
                                   RT_COLL_SCAN};
    uint32_t module[MAXP], node[MAXP];
    world w;
    for (size_t ip = 0; ip < 3; ip++)
        for (size_t io = 0; io < sizeof ops / sizeof *ops; io++)
            for (unsigned alg = 0; alg < RT_ALG_COUNT; alg++) {
                if (!rt_coll_alg_valid(ops[io], alg))
                    continue;
                setup su = {ops[io], alg, ps[ip], RT_PEER_NONE, 100, NULL, NULL};
                layout(1, ps[ip], module, node, &su.module, &su.node);
                check_all(&su, &w);
                world_free(&w);
            }
    /* rooted ops, a few roots */
    for (int32_t root = 0; root < 40; root += 13) {
        setup su = {RT_COLL_REDUCE, RT_ALG_RABENSEIFNER, 64, root, 4096, NULL, NULL};
        check_all(&su, &w);
        world_free(&w);
        su.p = 40;
        check_all(&su, &w);
        world_free(&w);
        su.op = RT_COLL_BCAST;
        su.alg = RT_ALG_SCATTER_RDB;
        check_all(&su, &w);
        world_free(&w);
    }
    /* the direct alltoall posts 32 peers per round: two rounds at p = 40 */
    setup su = {RT_COLL_ALLTOALL, RT_ALG_DIRECT, 40, RT_PEER_NONE, 8, NULL, NULL};
    gen(&w, &su);
    for (uint32_t r = 0; r < 40; r++) {
        assert_int_equal(w.r[r].n, 2 * 39);
        assert_int_equal(w.r[r].v[0].round, w.r[r].v[2 * 31 - 1].round);
        assert_int_not_equal(w.r[r].v[0].round, w.r[r].v[2 * 39 - 1].round);
    }
    world_free(&w);
}

/* ---- errors, approximations, the callback -------------------------------------------------- */

static void test_bad_input(void **state)
{
    (void)state;
    rt_coll_call c = {.op = RT_COLL_BCAST, .size = 4, .me = 1, .root = 0, .rbytes = 10};
    expect_inval(RT_ALG_RING, c, "no algorithm 'ring' (valid: mpich, ompi, linear, binomial");
    expect_inval(RT_ALG_COUNT, c, "out of range");
    rt_coll_call bad = c;
    bad.me = 4;
    expect_inval(RT_ALG_BINOMIAL, bad, "rank 4");
    bad = c;
    bad.root = 4;
    expect_inval(RT_ALG_BINOMIAL, bad, "root 4");
    bad.root = RT_PEER_NONE;
    expect_inval(RT_ALG_MPICH, bad, "root -1");
    bad = c;
    bad.size = 0;
    bad.me = 0;
    expect_inval(RT_ALG_BINOMIAL, bad, "size 0");
    bad = c;
    bad.op = RT_COLL_NEIGHBOR_ALLGATHER;
    expect_inval(RT_ALG_MPICH, bad, "neighbor_allgather: the trace holds no neighbour lists");
    bad.op = RT_COLL_ALLOCATE;
    expect_inval(RT_ALG_MPICH, bad, "allocate: not a data-moving");
    bad.op = RT_COLL_COUNT;
    expect_inval(RT_ALG_MPICH, bad, "out of range");
    /* bytes that contradict the op */
    bad = c;
    bad.bytes = 10;
    expect_inval(RT_ALG_BINOMIAL, bad, "away from the root");
    rt_coll_call ag = {
        .op = RT_COLL_ALLGATHER, .size = 4, .root = RT_PEER_NONE, .bytes = 10, .rbytes = 41};
    expect_inval(RT_ALG_RING, ag, "4 times bytes");
    rt_coll_call a2a = {
        .op = RT_COLL_ALLTOALL, .size = 4, .root = RT_PEER_NONE, .bytes = 10, .rbytes = 10};
    expect_inval(RT_ALG_MPICH, a2a, "multiple of 4");
    rt_coll_call ga = {.op = RT_COLL_GATHER, .size = 4, .root = 0, .bytes = 10, .rbytes = 30};
    expect_inval(RT_ALG_BINOMIAL, ga, "4 times bytes");
    rt_coll_call bar = {.op = RT_COLL_BARRIER, .size = 4, .root = RT_PEER_NONE, .bytes = 1};
    expect_inval(RT_ALG_MPICH, bar, "must be 0");
    rt_coll_call rsb = {.op = RT_COLL_REDUCE_SCATTER_BLOCK,
                        .size = 3,
                        .root = RT_PEER_NONE,
                        .bytes = 10,
                        .rbytes = 3};
    expect_inval(RT_ALG_MPICH, rsb, "3 times rbytes");
    rt_coll_call ex = {
        .op = RT_COLL_EXSCAN, .size = 3, .root = RT_PEER_NONE, .bytes = 10, .rbytes = 10};
    expect_inval(RT_ALG_MPICH, ex, "rbytes must be 0");
    rt_coll_call big = {
        .op = RT_COLL_GATHER, .size = 4, .me = 1, .root = 0, .bytes = UINT64_MAX / 2};
    expect_inval(RT_ALG_LINEAR, big, "overflows");
}

static int approx_of(unsigned op, unsigned alg, uint32_t p, uint32_t me, int32_t root)
{
    setup su = {op, alg, p, root, 100, NULL, NULL};
    rt_coll_call c = call_of(&su, me);
    int n = 0, approx = -1;
    assert_int_equal(rt_coll_schedule(alg, &c, count_only, &n, &approx, NULL), 0);
    return approx;
}

static void test_approx(void **state)
{
    (void)state;
    assert_int_equal(approx_of(RT_COLL_GATHERV, RT_ALG_LINEAR, 8, 2, 2), 1);   /* root */
    assert_int_equal(approx_of(RT_COLL_GATHERV, RT_ALG_LINEAR, 8, 3, 2), 0);   /* sends own */
    assert_int_equal(approx_of(RT_COLL_GATHERV, RT_ALG_BINOMIAL, 8, 3, 2), 0); /* leaf */
    assert_int_equal(approx_of(RT_COLL_GATHERV, RT_ALG_BINOMIAL, 8, 4, 2), 1); /* relays */
    assert_int_equal(approx_of(RT_COLL_SCATTERV, RT_ALG_LINEAR, 8, 0, 0), 1);
    assert_int_equal(approx_of(RT_COLL_SCATTERV, RT_ALG_LINEAR, 8, 1, 0), 0);
    assert_int_equal(approx_of(RT_COLL_GATHERV, RT_ALG_LINEAR, 1, 0, 0), 0);
    assert_int_equal(approx_of(RT_COLL_ALLGATHERV, RT_ALG_RING, 4, 0, RT_PEER_NONE), 1);
    assert_int_equal(approx_of(RT_COLL_ALLGATHER, RT_ALG_RING, 4, 0, RT_PEER_NONE), 0);
    assert_int_equal(approx_of(RT_COLL_ALLTOALLV, RT_ALG_BRUCK, 4, 0, RT_PEER_NONE), 1);
    assert_int_equal(approx_of(RT_COLL_ALLTOALLW, RT_ALG_DIRECT, 4, 0, RT_PEER_NONE), 1);
    assert_int_equal(approx_of(RT_COLL_ALLTOALL, RT_ALG_DIRECT, 4, 0, RT_PEER_NONE), 0);
    assert_int_equal(approx_of(RT_COLL_REDUCE_SCATTER, RT_ALG_RING, 4, 0, RT_PEER_NONE), 1);
    assert_int_equal(approx_of(RT_COLL_REDUCE_SCATTER_BLOCK, RT_ALG_RING, 4, 0, RT_PEER_NONE), 0);
    assert_int_equal(approx_of(RT_COLL_BCAST, RT_ALG_MPICH, 4, 0, 1), 0);
}

/* alltoallv with equal totals cut by distance: both ends agree even with a remainder;
 * reduce_scatter stays consistent whatever each rank's own count. */
static void test_v_consistency(void **state)
{
    (void)state;
    world w;
    static const unsigned a2a[] = {RT_ALG_DIRECT, RT_ALG_PAIRWISE, RT_ALG_BRUCK};
    static const unsigned rs[] = {RT_ALG_RING, RT_ALG_PAIRWISE, RT_ALG_RECURSIVE_HALVING};
    for (size_t k = 0; k < 3; k++)
        for (uint32_t p = 2; p <= 9; p++) {
            unsigned alg = a2a[k];
            setup su = {RT_COLL_ALLTOALLV, alg, p, RT_PEER_NONE, 0, NULL, NULL};
            gen(&w, &su);
            world_free(&w);
            /* totals of p*b + 3 bytes: pieces differ by distance */
            memset(&w, 0, sizeof w);
            w.p = p;
            for (uint32_t me = 0; me < p; me++) {
                rt_coll_call c = {.op = RT_COLL_ALLTOALLV,
                                  .size = p,
                                  .me = me,
                                  .root = RT_PEER_NONE,
                                  .bytes = 5 * p + 3,
                                  .rbytes = 5 * p + 3};
                assert_int_equal(rt_coll_schedule(alg, &c, push, &w.r[me], NULL, NULL), 0);
            }
            pairing f;
            uint64_t know[MAXP];
            match(&w, &f, "alltoallv with remainder");
            execute(&w, &f, know, "alltoallv with remainder");
            sums s = sum_world(&w);
            uint64_t t = 5 * p + 3, home = t / p + (t % p != 0); /* piece 0 stays home */
            if (alg != RT_ALG_BRUCK) /* Bruck relays blocks over several hops */
                assert_int_equal(s.bytes, p * (t - home));
            flat_free(&f);
            world_free(&w);
        }
    for (size_t k = 0; k < 3; k++) {
        unsigned alg = rs[k];
        memset(&w, 0, sizeof w);
        w.p = 6;
        for (uint32_t me = 0; me < 6; me++) {
            rt_coll_call c = {.op = RT_COLL_REDUCE_SCATTER,
                              .size = 6,
                              .me = me,
                              .root = RT_PEER_NONE,
                              .bytes = 1001,
                              .rbytes = me * 50};
            assert_int_equal(rt_coll_schedule(alg, &c, push, &w.r[me], NULL, NULL), 0);
        }
        pairing f;
        uint64_t know[MAXP];
        match(&w, &f, "reduce_scatter with unequal counts");
        execute(&w, &f, know, "reduce_scatter with unequal counts");
        flat_free(&f);
        world_free(&w);
    }
}

/* The per-peer counts of a trace's COLL_PEER rows (sblk, rblk): alltoallv direct and pairwise
 * send S[me][j] to j and receive S[i][me] from i, zero blocks included, exactly (approx 0);
 * allgatherv under ring, recursive doubling and Bruck moves the blocks of the counts; every
 * schedule pairs up and completes. */
static void test_v_counts(void **state)
{
    (void)state;
    static const uint64_t S[4][4] = {
        {0, 100, 0, 300}, {10, 5, 0, 30}, {0, 200, 0, 0}, {1000, 0, 2000, 0}};
    static const unsigned a2a[] = {RT_ALG_DIRECT, RT_ALG_PAIRWISE};
    for (size_t k = 0; k < 2; k++) {
        world w;
        memset(&w, 0, sizeof w);
        w.p = 4;
        uint64_t col[4][4];
        for (uint32_t me = 0; me < 4; me++) {
            uint64_t b = 0, rb = 0;
            for (uint32_t j = 0; j < 4; j++) {
                col[me][j] = S[j][me];
                b += S[me][j];
                rb += S[j][me];
            }
            rt_coll_call c = {.op = RT_COLL_ALLTOALLV,
                              .size = 4,
                              .me = me,
                              .root = RT_PEER_NONE,
                              .bytes = b,
                              .rbytes = rb,
                              .sblk = S[me],
                              .rblk = col[me]};
            int approx = -1;
            assert_int_equal(rt_coll_schedule(a2a[k], &c, push, &w.r[me], &approx, NULL), 0);
            assert_int_equal(approx, 0);
            for (size_t i = 0; i < w.r[me].n; i++) {
                const rt_coll_step *st = &w.r[me].v[i];
                if (st->kind == RT_STEP_SEND)
                    assert_int_equal(st->bytes, S[me][st->peer]);
                else if (st->kind == RT_STEP_RECV)
                    assert_int_equal(st->bytes, S[st->peer][me]);
            }
        }
        pairing f;
        uint64_t know[MAXP];
        match(&w, &f, "alltoallv with per-peer counts");
        execute(&w, &f, know, "alltoallv with per-peer counts");
        sums t = sum_world(&w);
        assert_int_equal(t.msgs, 12); /* zero blocks too: the shape does not change */
        assert_int_equal(t.bytes, 3640);
        flat_free(&f);
        world_free(&w);
    }
    static const uint64_t A[4] = {4, 0, 12, 8};
    static const unsigned ag[] = {RT_ALG_RING, RT_ALG_RDB, RT_ALG_BRUCK};
    for (size_t k = 0; k < 3; k++) {
        world w;
        memset(&w, 0, sizeof w);
        w.p = 4;
        for (uint32_t me = 0; me < 4; me++) {
            rt_coll_call c = {.op = RT_COLL_ALLGATHERV,
                              .size = 4,
                              .me = me,
                              .root = RT_PEER_NONE,
                              .bytes = A[me],
                              .rbytes = 24,
                              .rblk = A};
            int approx = -1;
            assert_int_equal(rt_coll_schedule(ag[k], &c, push, &w.r[me], &approx, NULL), 0);
            assert_int_equal(approx, 0);
        }
        pairing f;
        uint64_t know[MAXP];
        match(&w, &f, "allgatherv with per-peer counts");
        execute(&w, &f, know, "allgatherv with per-peer counts");
        /* every block reached every rank, but rank 1's, of 0 bytes, which moves nowhere */
        for (uint32_t me = 0; me < 4; me++)
            assert_int_equal(know[me] & ~UINT64_C(2), 0xd);
        flat_free(&f);
        world_free(&w);
    }
}

typedef struct stopper {
    int seen, after;
} stopper;

static int stop_after(void *ctx, const rt_coll_step *st)
{
    (void)st;
    stopper *s = ctx;
    return ++s->seen == s->after ? 7 : 0;
}

static void test_emit_stops(void **state)
{
    (void)state;
    rt_coll_call c = {.op = RT_COLL_ALLTOALL,
                      .size = 16,
                      .me = 3,
                      .root = RT_PEER_NONE,
                      .bytes = 1600,
                      .rbytes = 1600};
    stopper s = {0, 3};
    assert_int_equal(rt_coll_schedule(RT_ALG_DIRECT, &c, stop_after, &s, NULL, NULL), 7);
    assert_int_equal(s.seen, 3);
    rt_coll_totals t;
    assert_int_equal(rt_coll_totals_of(RT_ALG_DIRECT, &c, &t, NULL, NULL), 0);
    assert_int_equal(t.sends, 15);
    assert_int_equal(t.recvs, 15);
    assert_int_equal(t.send_bytes, 1500);
    assert_int_equal(t.rounds, 1);
    c.op = RT_COLL_BCAST;
    c.me = 2;
    c.root = 0;
    c.bytes = 0;
    c.rbytes = 64;
    assert_int_equal(rt_coll_totals_of(RT_ALG_BINOMIAL, &c, &t, NULL, NULL), 0);
    assert_int_equal(t.recvs, 1); /* relative rank 2: from 0, then to 3 */
    assert_int_equal(t.sends, 1);
    assert_int_equal(t.rounds, 2);
}

/* ---- names ------------------------------------------------------------------------------------
 */

static void test_names(void **state)
{
    (void)state;
    for (unsigned a = 0; a < RT_ALG_COUNT; a++)
        assert_int_equal(rt_coll_alg_lookup(rt_coll_alg_name(a)), (int)a);
    assert_null(rt_coll_alg_name(RT_ALG_COUNT));
    assert_string_equal(rt_coll_alg_name(RT_ALG_RDB), "recursive_doubling");
    assert_int_equal(rt_coll_alg_lookup("rdb"), RT_ALG_RDB);
    assert_int_equal(rt_coll_alg_lookup("RD"), RT_ALG_RDB);
    assert_int_equal(rt_coll_alg_lookup("rh"), RT_ALG_RECURSIVE_HALVING);
    assert_int_equal(rt_coll_alg_lookup("Binomial"), RT_ALG_BINOMIAL);
    assert_int_equal(rt_coll_alg_lookup("binomia"), -RT_E_NOTFOUND);
    assert_int_equal(rt_coll_alg_lookup(""), -RT_E_NOTFOUND);
    assert_int_equal(rt_coll_alg_lookup(NULL), -RT_E_NOTFOUND);

    assert_true(rt_coll_alg_valid(RT_COLL_BCAST, RT_ALG_SCATTER_RDB));
    assert_false(rt_coll_alg_valid(RT_COLL_BCAST, RT_ALG_RING));
    assert_true(rt_coll_alg_valid(RT_COLL_NEIGHBOR_ALLTOALL, RT_ALG_MPICH));
    assert_true(rt_coll_alg_valid(RT_COLL_NEIGHBOR_ALLTOALLW, RT_ALG_LINEAR));
    assert_false(rt_coll_alg_valid(RT_COLL_NEIGHBOR_ALLTOALL, RT_ALG_DIRECT));
    assert_false(rt_coll_alg_valid(RT_COLL_ALLOCATE, RT_ALG_MPICH));
    assert_false(rt_coll_alg_valid(RT_COLL_COUNT, RT_ALG_MPICH));
    assert_false(rt_coll_alg_valid(RT_COLL_BCAST, RT_ALG_COUNT));
    for (unsigned op = 0; op < RT_COLL_COUNT; op++)
        assert_int_equal(rt_coll_alg_valid(op, RT_ALG_MPICH), has_schedule(op));

    char buf[256];
    rt_coll_alg_list(RT_COLL_BCAST, buf, sizeof buf);
    assert_string_equal(
        buf, "mpich, ompi, linear, binomial, scatter_ring, scatter_rdb, msa, msa2, "
             "pipeline, binary_tree, bmtree, knomial, ompi_linear, ompi_scatter_allgather, "
             "ompi_scatter_allgather_ring, ompi_split_binary_tree");
    rt_coll_alg_list(RT_COLL_ALLTOALLV, buf, sizeof buf);
    assert_string_equal(buf, "mpich, ompi, bruck, direct, pairwise");
    rt_coll_alg_list(RT_COLL_NEIGHBOR_ALLGATHER, buf, sizeof buf);
    assert_string_equal(buf, "mpich, ompi, linear");
    rt_coll_alg_list(RT_COLL_DEALLOCATE, buf, sizeof buf);
    assert_string_equal(buf, "");
    rt_coll_alg_list(RT_COLL_BCAST, buf, 10);
    assert_int_equal(strlen(buf), 9);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_names),         cmocka_unit_test(test_bad_input),
        cmocka_unit_test(test_approx),        cmocka_unit_test(test_emit_stops),
        cmocka_unit_test(test_v_consistency), cmocka_unit_test(test_v_counts),
        cmocka_unit_test(test_sweep),         cmocka_unit_test(test_sweep_larger),
        cmocka_unit_test(test_nbr_steps),     cmocka_unit_test(test_nbr_consistency),
        cmocka_unit_test(test_nbr_bad_input),
    };
    return rt_test_main("coll", tests, argc, argv);
}
