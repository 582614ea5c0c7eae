/* Unit tests for the collective fast path's self-check (replayer/sim/sim_check.c): which
 * differences rt_sim_result_diff names, and rt_sim_check_fast on a replay that used the fast
 * path, and on a result that is not what the replay gives. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "test_sim.h"

/* 4 ranks, 3 rounds of 50 ns of computation and an 8-byte MPI_Allreduce: every instance
 * eager, blocking, alone on its ranks' ports: the fast path computes them. */
static rt_sim_trace *allreduce_trace(void)
{
    st_text t = {0};
    st_add(&t, "ranks,4\n");
    for (unsigned r = 0; r < 4; r++)
        for (unsigned k = 0; k < 3; k++) {
            unsigned ns = 100 * k;
            st_add(&t, "%u,%u,enter,MPI_Allreduce,,,,,,,,\n", r, ns + 50);
            st_add(&t, "%u,%u,coll_begin,MPI_Allreduce,,,,,,,,\n", r, ns + 50);
            st_add(&t, "%u,%u,coll_end,MPI_Allreduce,0,,,8,8,,,allreduce\n", r, ns + 100);
            st_add(&t, "%u,%u,leave,MPI_Allreduce,,,,,,,,\n", r, ns + 100);
        }
    rt_sim_trace *tr = st_load(t.s);
    st_free(&t);
    return tr;
}

/* A deep copy, to change fields of. */
static void copy_result(const rt_sim_result *a, rt_sim_result *b)
{
    *b = *a;
    b->ranks = malloc(a->nranks * sizeof *b->ranks);
    assert_non_null(b->ranks);
    memcpy(b->ranks, a->ranks, a->nranks * sizeof *b->ranks);
    b->report = a->report ? strdup(a->report) : NULL;
    b->notes = a->notes ? strdup(a->notes) : NULL;
}

void test_sim_result_diff(void **state)
{
    (void)state;
    rt_sim_trace *t = allreduce_trace();
    rt_sim_config c;
    rt_sim_config_default(&c);
    rt_sim_result a, b;
    st_run(t, &c, &a);
    copy_result(&a, &b);
    assert_null(rt_sim_result_diff(&a, &b));
    b.sim_events++; /* the engine's own counters do not count */
    b.fast_colls++;
    assert_null(rt_sim_result_diff(&a, &b));
    b.time_ps++;
    assert_string_equal(rt_sim_result_diff(&a, &b), "time_ps");
    b.time_ps--;
    b.gw_bytes++;
    assert_string_equal(rt_sim_result_diff(&a, &b), "gw_bytes");
    b.gw_bytes--;
    b.ranks[3].compute_ps++; /* one picosecond of one rank */
    assert_string_equal(rt_sim_result_diff(&a, &b), "ranks");
    b.ranks[3].compute_ps--;
    free(b.notes);
    b.notes = strdup("a note\n");
    assert_string_equal(rt_sim_result_diff(&a, &b), "notes");
    free(b.report);
    b.report = strdup("rank 1 waits\n");
    assert_string_equal(rt_sim_result_diff(&a, &b), "report"); /* before the notes */
    b.completed = !b.completed;
    assert_string_equal(rt_sim_result_diff(&a, &b), "completed"); /* the first field */
    rt_sim_result_free(&b);
    rt_sim_result_free(&a);
    rt_sim_trace_free(t);
}

void test_sim_check_fast(void **state)
{
    (void)state;
    rt_sim_trace *t = allreduce_trace();
    rt_sim_config c;
    rt_sim_config_default(&c);
    rt_sim_result a, b;
    rt_err err = {0};
    st_run(t, &c, &a);
    assert_int_equal(a.completed, 1);
    assert_int_equal(a.fast_colls, 3); /* the fast path took part */
    assert_int_equal(rt_sim_check_fast(t, &c, &a, &err), 0);
    /* the replay without the fast path is the same, and never uses it */
    c.no_fast_coll = 1;
    st_run(t, &c, &b);
    assert_int_equal(b.fast_colls, 0);
    assert_null(rt_sim_result_diff(&a, &b));
    rt_sim_result_free(&b);
    /* a result that differs from the replay without the fast path is caught */
    c.no_fast_coll = 0;
    a.ranks[0].mpi_ps += 1;
    assert_int_equal(rt_sim_check_fast(t, &c, &a, &err), -RT_E_INVAL);
    assert_string_equal(err.msg, "fast path check: results differ without the fast path (ranks)");
    /* nothing to check without the fast path */
    c.no_fast_coll = 1;
    assert_int_equal(rt_sim_check_fast(t, &c, &a, &err), 0);
    rt_sim_result_free(&a);
    rt_sim_trace_free(t);
}
