/*
 * Unit tests of the table of collective algorithms (replayer/coll/rt_coll_algs.def) walked
 * through the public API: for every op and algorithm, the name, the validity, the list
 * --coll prints, MPICH's name for it and the schedule agree with each other; mpich exists
 * exactly for the ops some algorithm has; MPICH 4.0's selection only picks algorithms the
 * table gives the op, and ones MPICH's variables can name.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "rt_test_main.h"

#include <stdio.h>
#include <string.h>

#include "rt_coll.h"

static int is_word(const char *s)
{
    if (!s || !*s)
        return 0;
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '_'))
            return 0;
    return 1;
}

static void test_names(void **state)
{
    (void)state;
    assert_string_equal(rt_coll_alg_name(RT_ALG_MPICH), "mpich");
    for (unsigned a = 0; a < RT_ALG_COUNT; a++) {
        const char *name = rt_coll_alg_name(a);
        assert_true(is_word(name));
        assert_int_equal(rt_coll_alg_lookup(name), (int)a);
        for (unsigned b = 0; b < a; b++)
            assert_string_not_equal(rt_coll_alg_name(b), name);
    }
    assert_null(rt_coll_alg_name(RT_ALG_COUNT));
}

/* Every rank of a world of p, all sizes 0 (consistent for every op), with ring neighbours. */
static int schedule_all(unsigned op, unsigned alg, uint32_t p, char *why, size_t len)
{
    for (uint32_t me = 0; me < p; me++) {
        int32_t v[2] = {(int32_t)((me + p - 1) % p), (int32_t)((me + 1) % p)};
        rt_nbr_def nb = {.rank = me, .nin = 2, .nout = 2, .in = v, .out = v};
        rt_coll_call c = {.op = op, .size = p, .me = me, .root = (int32_t)(p / 2), .nbrs = &nb};
        rt_coll_totals t;
        rt_err err = {0};
        int rc = rt_coll_totals_of(alg, &c, &t, NULL, &err);
        if (rc) {
            snprintf(why, len, "%s", err.msg);
            return rc;
        }
    }
    return 0;
}

static void test_cells(void **state)
{
    (void)state;
    for (unsigned op = 0; op < RT_COLL_COUNT; op++) {
        const char *opname = rt_event_op_name(RT_EV_COLL_END, op);
        char want[1024] = "", got[1024];
        int any = 0;
        assert_null(rt_coll_mpich_name(op, RT_ALG_MPICH));
        for (unsigned a = 0; a < RT_ALG_COUNT; a++) {
            int valid = rt_coll_alg_valid(op, a);
            const char *mpich = rt_coll_mpich_name(op, a);
            if (a != RT_ALG_MPICH && a != RT_ALG_OMPI)
                any |= valid;
            if (mpich) { /* MPICH's name: a word, for a valid cell, naming one choice */
                if (!valid || !is_word(mpich))
                    fail_msg("%s, %s: MPICH name '%s' on a cell without a schedule", opname,
                             rt_coll_alg_name(a), mpich);
                for (unsigned b = 0; b < a; b++) {
                    const char *other = rt_coll_mpich_name(op, b);
                    if (other && !strcmp(other, mpich))
                        fail_msg("%s: %s and %s are both MPICH's '%s'", opname, rt_coll_alg_name(b),
                                 rt_coll_alg_name(a), mpich);
                }
            }
            if (valid)
                snprintf(want + strlen(want), sizeof want - strlen(want), "%s%s", *want ? ", " : "",
                         rt_coll_alg_name(a));
            /* valid cells schedule (a builder exists), the others are refused */
            for (uint32_t p = 1; p <= 9; p++) {
                char why[sizeof((rt_err *)0)->msg] = "";
                int rc = schedule_all(op, a, p, why, sizeof why);
                if (valid && rc)
                    fail_msg("%s, %s on %u ranks: %s", opname, rt_coll_alg_name(a), p, why);
                if (!valid)
                    assert_int_equal(rc, -RT_E_INVAL);
            }
        }
        /* mpich exists exactly for the ops some algorithm exists for */
        assert_int_equal(rt_coll_alg_valid(op, RT_ALG_MPICH), any);
        assert_int_equal(rt_coll_alg_valid(op, RT_ALG_OMPI), any);
        rt_coll_alg_list(op, got, sizeof got);
        assert_string_equal(got, want);
        assert_int_equal(rt_coll_alg_valid(op, RT_ALG_COUNT), 0);
    }
    for (unsigned a = 0; a <= RT_ALG_COUNT; a++) {
        assert_int_equal(rt_coll_alg_valid(RT_COLL_COUNT, a), 0);
        assert_null(rt_coll_mpich_name(RT_COLL_COUNT, a));
    }
    assert_null(rt_coll_mpich_name(RT_COLL_BCAST, RT_ALG_COUNT));
}

/* MPICH's choice for any call is an algorithm of the op, and (neighbourhood collectives
 * aside, which MPICH 4.0 has one algorithm for and no variable) one its variable can name,
 * so that a replay forcing that algorithm asks MPICH for what it would have run. */
static void test_selection(void **state)
{
    (void)state;
    for (unsigned op = 0; op < RT_COLL_COUNT; op++) {
        if (!rt_coll_alg_valid(op, RT_ALG_MPICH))
            continue;
        for (uint32_t p = 1; p <= 70; p++)
            for (unsigned i = 0; i < 3 * 24 * 3; i++) { /* 1, 3 and 5 times 2^k, and one off */
                uint64_t n = ((uint64_t)(1 + 2 * (i % 3)) << (i / 9)) + (i / 3 % 3) - 1;
                rt_coll_call c = {.op = op, .size = p, .me = 0, .root = 0};
                c.bytes = c.rbytes = op == RT_COLL_ALLTOALL ? n * p : n;
                rt_coll_alg a = rt_coll_select_mpich(&c);
                const char *name = rt_event_op_name(RT_EV_COLL_END, op);
                if (a == RT_ALG_MPICH || !rt_coll_alg_valid(op, a))
                    fail_msg("%s on %u ranks, %llu bytes: MPICH selects '%s', not an algorithm "
                             "of the op",
                             name, p, (unsigned long long)n, rt_coll_alg_name(a));
                if (!rt_coll_is_neighbor(op) && !rt_coll_mpich_name(op, a))
                    fail_msg("%s: MPICH selects '%s', which has no MPICH name", name,
                             rt_coll_alg_name(a));
            }
    }
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_names),
        cmocka_unit_test(test_cells),
        cmocka_unit_test(test_selection),
    };
    return rt_test_main("coll_table", tests, argc, argv);
}
