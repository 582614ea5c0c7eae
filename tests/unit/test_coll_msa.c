/*
 * Unit tests of the modular (MSA) collective algorithms, msa and msa2: the messages that
 * cross a module (or node) boundary counted by hand on an 8-rank layout, and with no
 * modules, one module or one rank per module the same steps as the flat algorithm.
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

/* ---- MSA ------------------------------------------------------------------------------------- */

/* Messages (over all ranks) whose two ends have different ids. */
static uint64_t crossing(const world *w, const uint32_t *id)
{
    uint64_t n = 0;
    for (uint32_t r = 0; r < w->p; r++)
        for (size_t i = 0; i < w->r[r].n; i++)
            if (w->r[r].v[i].kind == RT_STEP_SEND && id[w->r[r].v[i].peer] != id[r])
                n++;
    return n;
}

static void test_msa_crossings(void **state)
{
    (void)state;
    static const uint32_t module[8] = {0, 0, 1, 1, 1, 2, 2, 2};
    static const uint32_t node[8] = {0, 0, 1, 2, 2, 3, 3, 4};
    world w;
    for (unsigned alg = RT_ALG_MSA; alg <= RT_ALG_MSA2; alg++) {
        const uint32_t *nd = alg == RT_ALG_MSA2 ? node : NULL;
        for (int32_t root = 0; root < 8; root++) {
            /* bcast and reduce: a tree among the 3 module leaders, 2 crossings; msa2 also
             * crosses each node boundary once (5 nodes: 4) */
            static const unsigned trees[] = {RT_COLL_BCAST, RT_COLL_REDUCE};
            for (unsigned k = 0; k < 2; k++) {
                setup su = {trees[k], alg, 8, root, 1000, module, nd};
                check_all(&su, &w);
                assert_int_equal(crossing(&w, module), 2);
                assert_int_equal(sum_world(&w).msgs, 7);
                if (nd)
                    assert_int_equal(crossing(&w, node), 4);
                world_free(&w);
            }
        }
        /* allreduce: recursive doubling among 3 leaders (fold in, 1 exchange, fold out) */
        setup su = {RT_COLL_ALLREDUCE, alg, 8, RT_PEER_NONE, 1000, module, nd};
        check_all(&su, &w);
        assert_int_equal(crossing(&w, module), 4);
        assert_int_equal(sum_world(&w).msgs, 2 * 5 + 4); /* 5 fan-in + 5 fan-out + 4 */
        world_free(&w);
        /* barrier: dissemination among 3 leaders, 3 * 2 */
        su.op = RT_COLL_BARRIER;
        su.b = 0;
        check_all(&su, &w);
        assert_int_equal(crossing(&w, module), 6);
        world_free(&w);
        /* scan, exscan: recursive-doubling exscan among the 3 runs' last ranks: 0<->1 and
         * 0<->2 */
        for (unsigned op = RT_COLL_SCAN; op <= RT_COLL_EXSCAN; op++) {
            setup sc = {op, alg, 8, RT_PEER_NONE, 1000, module, nd};
            check_all(&sc, &w);
            assert_int_equal(crossing(&w, module), 4);
            world_free(&w);
        }
    }
}

/* With no modules, or one, or one rank per module, msa is the flat algorithm. */
static void assert_same(const setup *a, const setup *b)
{
    world x, y;
    gen(&x, a);
    gen(&y, b);
    for (uint32_t r = 0; r < x.p; r++) {
        assert_same_steps(&x.r[r], &y.r[r]);
    }
    world_free(&x);
    world_free(&y);
}

static void test_msa_degenerate(void **state)
{
    (void)state;
    static const struct {
        unsigned op, flat;
    } pairs[] = {{RT_COLL_BCAST, RT_ALG_BINOMIAL}, {RT_COLL_REDUCE, RT_ALG_BINOMIAL},
                 {RT_COLL_ALLREDUCE, RT_ALG_RDB},  {RT_COLL_BARRIER, RT_ALG_DISSEMINATION},
                 {RT_COLL_SCAN, RT_ALG_RDB},       {RT_COLL_EXSCAN, RT_ALG_RDB}};
    uint32_t same[16], own[16];
    for (uint32_t i = 0; i < 16; i++) {
        same[i] = 7;
        own[i] = i;
    }
    for (size_t k = 0; k < sizeof pairs / sizeof *pairs; k++)
        for (uint32_t p = 1; p <= 16; p++)
            for (unsigned alg = RT_ALG_MSA; alg <= RT_ALG_MSA2; alg++) {
                uint64_t b = pairs[k].op == RT_COLL_BARRIER ? 0 : 999;
                int32_t root = rooted(pairs[k].op) ? (int32_t)(p / 2) : RT_PEER_NONE;
                setup flat = {pairs[k].op, pairs[k].flat, p, root, b, NULL, NULL};
                setup m = {pairs[k].op, alg, p, root, b, NULL, NULL};
                assert_same(&m, &flat);
                m.module = same;
                m.node = same;
                assert_same(&m, &flat);
                if (pairs[k].op != RT_COLL_SCAN && pairs[k].op != RT_COLL_EXSCAN) {
                    m.module = own; /* the leaders are everyone */
                    assert_same(&m, &flat);
                }
            }
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_msa_crossings),
        cmocka_unit_test(test_msa_degenerate),
    };
    return rt_test_main("coll_msa", tests, argc, argv);
}
