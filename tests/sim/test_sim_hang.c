/*
 * Unit tests of the wait-for cycle finder of the built-in engine's deadlock report
 * (replayer/sim/sim_hang.c, sim_cycle_find): graphs given by source, as the report builds
 * them from the unmatched operations (an edge a -> b: rank a waits for rank b).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "../unit/rt_test_main.h"

#include "rt__sim.h"

#define MAXN 8

/* The cycle of the graph with n nodes and edges (from[i], to[i]) sorted by source, as node
 * sequence text "0>1>2>0"; "" when there is none. */
static void cycle_of(uint32_t n, const uint32_t *from, const uint32_t *to, uint32_t ne, char *out,
                     size_t cap)
{
    uint32_t off[MAXN + 1] = {0}, scratch[4 * MAXN], cyc[MAXN];
    for (uint32_t i = 0; i < ne; i++)
        off[from[i] + 1]++;
    for (uint32_t i = 0; i < n; i++)
        off[i + 1] += off[i];
    uint32_t len = sim_cycle_find(n, off, to, scratch, cyc);
    size_t at = 0;
    out[0] = '\0';
    for (uint32_t k = 0; k < len; k++) {
        uint32_t e = cyc[k];
        assert_true(e < ne);
        if (k) /* edges follow each other */
            assert_int_equal(from[e], to[cyc[k - 1]]);
        at += (size_t)snprintf(out + at, cap - at, "%u>", (unsigned)from[e]);
    }
    if (len) {
        assert_int_equal(to[cyc[len - 1]], from[cyc[0]]); /* and close the cycle */
        snprintf(out + at, cap - at, "%u", (unsigned)from[cyc[0]]);
    }
}

static void test_two_ranks(void **state)
{
    (void)state;
    const uint32_t from[] = {0, 1}, to[] = {1, 0};
    char s[64];
    cycle_of(2, from, to, 2, s, sizeof s);
    assert_string_equal(s, "0>1>0");
}

/* Found from rank 3 (0 only waits for 3 and 1 for nobody), written from its lowest rank. */
static void test_three_ranks_from_lowest(void **state)
{
    (void)state;
    const uint32_t from[] = {0, 2, 3, 4}, to[] = {3, 4, 2, 3};
    char s[64];
    cycle_of(5, from, to, 4, s, sizeof s);
    assert_string_equal(s, "2>4>3>2");
}

static void test_no_cycle(void **state)
{
    (void)state;
    const uint32_t from[] = {0, 0, 1, 2}, to[] = {1, 2, 3, 3};
    char s[64];
    cycle_of(4, from, to, 4, s, sizeof s);
    assert_string_equal(s, "");
    cycle_of(4, from, to, 0, s, sizeof s); /* no edges at all */
    assert_string_equal(s, "");
}

/* A rank that waits for itself (a receive from itself that nothing sends). */
static void test_self_loop(void **state)
{
    (void)state;
    const uint32_t from[] = {0, 1}, to[] = {1, 1};
    char s[64];
    cycle_of(2, from, to, 2, s, sizeof s);
    assert_string_equal(s, "1>1");
}

/* Two cycles: the one the search from the lowest rank meets first, its edges in order. */
static void test_first_of_two(void **state)
{
    (void)state;
    const uint32_t from[] = {0, 1, 1, 2, 3, 4, 5}, to[] = {1, 2, 4, 0, 4, 5, 3};
    char s[64];
    cycle_of(6, from, to, 7, s, sizeof s);
    assert_string_equal(s, "0>1>2>0");
}

/* A long chain into a cycle at its end: the chain is not part of it. */
static void test_chain_into_cycle(void **state)
{
    (void)state;
    const uint32_t from[] = {0, 1, 2, 3, 4, 5, 6, 7}, to[] = {1, 2, 3, 4, 5, 6, 7, 5};
    char s[64];
    cycle_of(8, from, to, 8, s, sizeof s);
    assert_string_equal(s, "5>6>7>5");
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_two_ranks),    cmocka_unit_test(test_three_ranks_from_lowest),
        cmocka_unit_test(test_no_cycle),     cmocka_unit_test(test_self_loop),
        cmocka_unit_test(test_first_of_two), cmocka_unit_test(test_chain_into_cycle),
    };
    return rt_test_main("sim_hang", tests, argc, argv);
}
