/*
 * Unit tests of what the built-in engine cannot represent (issue 16): simulated times past
 * 2^64 - 2 ps (SIM_TIME_MAX; SIM_NEVER is the one above) end the run with -RT_E_RANGE and
 * one message, never a wrapped time; byte totals are carried in 128 bits. Each case sits at
 * the edge: the last time that fits replays, one picosecond more is refused.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "rt_test_main.h"

#include "test_sim.h"

#define TIME_MAX (UINT64_MAX - 1) /* the engine's SIM_TIME_MAX */
#define RANGE_MSG "the simulated time does not fit in 64-bit picoseconds (about 213 days; model: "

/* Runs t under c and expects the run to be refused as out of range, with message msg. */
static void assert_range(const rt_sim_trace *t, const rt_sim_config *c, const char *msg)
{
    rt_sim_result res;
    rt_err err = {0};
    assert_int_equal(rt_sim_run(t, c, &res, &err), -RT_E_RANGE);
    assert_int_equal(err.code, RT_E_RANGE);
    assert_string_equal(err.msg, msg);
    rt_sim_result_free(&res);
}

/* One message of n bytes from rank 0 to rank 1, both posted at 0. */
static rt_sim_trace *one_message(uint64_t n)
{
    st_text t = {0};
    st_add(&t, "ranks,2\n");
    st_send(&t, 0, 0, 1, 0, n);
    st_recv(&t, 1, 0, 0, 0, n, "");
    rt_sim_trace *tr = st_load(t.s);
    st_free(&t);
    return tr;
}

/* A model's latency: the receive of an empty message is done at L (o = 0), which may be the
 * last representable time; one more and the sum passes it. */
static void test_latency_edge(void **state)
{
    (void)state;
    rt_sim_trace *tr = one_message(0);
    rt_sim_config c;
    st_logp_config(&c, EAGER);
    for (unsigned ct = 0; ct < RT_CT_COUNT; ct++) {
        c.model.link[ct].overhead_ps = 0;
        c.model.link[ct].latency_ps = TIME_MAX;
    }
    rt_sim_result res;
    st_run(tr, &c, &res);
    assert_int_equal(res.completed, 1);
    assert_true(res.ranks[1].end_ps == TIME_MAX);
    assert_true(res.time_ps == TIME_MAX);
    rt_sim_result_free(&res);
    for (unsigned ct = 0; ct < RT_CT_COUNT; ct++)
        c.model.link[ct].latency_ps = UINT64_MAX;
    assert_range(tr, &c, RANGE_MSG "built-in defaults)");
    rt_sim_trace_free(tr);
}

/* Two sends of 2^64 - 1 bytes: each one's wire time (2^64 - 1 ns at 1 GB/s) saturates, and
 * the run is refused; once a run of them completed in 1.7 us (issue 16). The byte total is
 * 2^65 - 2, exact. */
static void test_huge_messages(void **state)
{
    (void)state;
    st_text t = {0};
    st_add(&t, "ranks,2\n");
    for (unsigned i = 0; i < 2; i++) {
        st_send(&t, 0, 10 * i, 1, 0, UINT64_MAX);
        st_recv(&t, 1, 10 * i, 0, 0, UINT64_MAX, "");
    }
    rt_sim_trace *tr = st_load(t.s);
    rt_sim_config c;
    st_logp_config(&c, UINT64_MAX); /* eager */
    assert_range(tr, &c, RANGE_MSG "built-in defaults)");
    st_logp_config(&c, 0); /* rendezvous */
    assert_range(tr, &c, RANGE_MSG "built-in defaults)");
    /* at 2^64 - 1 bytes per second each takes 1 s (10^12 ps) */
    for (unsigned ct = 0; ct < RT_CT_COUNT; ct++)
        c.model.link[ct].bandwidth = UINT64_MAX;
    rt_sim_result res;
    st_run(tr, &c, &res);
    assert_int_equal(res.completed, 1);
    assert_int_equal(res.messages, 2);
    assert_true(res.bytes == (rt_u128)UINT64_MAX * 2);
    assert_true(res.ranks[1].end_ps > 2 * 1000000000000ULL);
    rt_sim_result_free(&res);
    rt_sim_trace_free(tr);
    st_free(&t);
}

/* Computation: a gap of 10^16 ns is 10^19 ps, which fits; scaled by 2 it does not (issue
 * 16: --compute-scale 2 wrapped). */
static void test_compute_scale(void **state)
{
    (void)state;
    st_text t = {0};
    st_add(&t, "ranks,1\n");
    st_init(&t, 0);
    st_call(&t, 0, 10000000000000000ULL, "MPI_Finalize", NULL, NULL);
    rt_sim_trace *tr = st_load(t.s);
    rt_sim_config c;
    st_logp_config(&c, EAGER);
    rt_sim_result res;
    st_run(tr, &c, &res);
    assert_true(res.time_ps == 10000000000000000000ULL);
    assert_true(res.ranks[0].compute_ps == 10000000000000000000ULL);
    rt_sim_result_free(&res);
    c.compute_scale_ppm = 1844674; /* 1.844674: 1.844674e19 ps, still below 2^64 */
    st_run(tr, &c, &res);
    assert_true(res.time_ps == 18446740000000000000ULL);
    rt_sim_result_free(&res);
    c.compute_scale_ppm = 2000000;
    assert_range(tr, &c, RANGE_MSG "built-in defaults, computation scaled by 2.000000)");
    rt_sim_trace_free(tr);
    st_free(&t);
}

/* Loads text, expecting the load to fail with code and message. */
static void assert_load_fails(const char *csv, int code, const char *msg)
{
    const char *dir = getenv("TMPDIR");
    char path[512];
    snprintf(path, sizeof path, "%s/retrace-simtest-XXXXXX.csv", dir && *dir ? dir : "/tmp");
    int fd = mkstemps(path, 4);
    assert_true(fd >= 0);
    assert_true(write(fd, csv, strlen(csv)) == (ssize_t)strlen(csv));
    close(fd);
    rt_reader *r;
    rt_err err = {0};
    assert_int_equal(rt_reader_open(path, &r, &err), 0);
    rt_sim_trace *t = NULL;
    assert_int_equal(rt_sim_trace_load(r, &t, &err), -code);
    assert_null(t);
    assert_string_equal(err.msg, msg);
    rt_reader_close(r);
    unlink(path);
}

/* The engine counts picoseconds from the first event: a trace spanning more than
 * SIM_TIME_MAX / 1000 ns (about 213 days) is refused when it is loaded (a 2 * 10^7 s gap
 * between two calls once wrapped), one spanning exactly that much replays. */
static void test_trace_span(void **state)
{
    (void)state;
    st_text t = {0};
    st_add(&t, "ranks,1\n");
    st_init(&t, 0);
    st_call(&t, 0, TIME_MAX / 1000, "MPI_Finalize", NULL, NULL);
    rt_sim_trace *tr = st_load(t.s);
    assert_true(rt_sim_trace_span_ps(tr) == TIME_MAX / 1000 * 1000);
    rt_sim_config c;
    st_logp_config(&c, EAGER);
    rt_sim_result res;
    st_run(tr, &c, &res);
    assert_true(res.time_ps == TIME_MAX / 1000 * 1000);
    rt_sim_result_free(&res);
    rt_sim_trace_free(tr);
    st_free(&t);

    st_add(&t, "ranks,1\n");
    st_init(&t, 0);
    st_call(&t, 0, TIME_MAX / 1000 + 1, "MPI_Finalize", NULL, NULL);
    assert_load_fails(t.s, RT_E_RANGE,
                      "the trace spans 18446744073709552 ns: more than the engine's 64-bit "
                      "picoseconds hold (about 213 days)");
    st_free(&t);
    st_add(&t, "ranks,2\n");
    st_init(&t, 0);
    st_call(&t, 1, 20000000000000000ULL, "MPI_Init", NULL, NULL); /* 2 * 10^7 s later */
    assert_load_fails(t.s, RT_E_RANGE,
                      "the trace spans 20000000000000000 ns: more than the engine's 64-bit "
                      "picoseconds hold (about 213 days)");
    st_free(&t);
}

/* Time sharing with a timeslice of 2^63 ps: two ranks on one core make a period of 2^64 ps,
 * which once wrapped to 0 and divided by it. Rank 1's turn starts at 2^63; rank 0, computing
 * past its first turn, would run again at 2^64: refused. */
static void test_share_period(void **state)
{
    (void)state;
    st_text t = {0};
    st_add(&t, "ranks,2\n");
    st_init(&t, 0);
    st_init(&t, 1);
    st_call(&t, 1, 1, "MPI_Finalize", NULL, NULL); /* 1 ns of computation */
    st_call(&t, 0, 1000, "MPI_Finalize", NULL, NULL);
    rt_sim_trace *tr = st_load(t.s);
    rt_sim_config c;
    st_logp_config(&c, EAGER);
    c.model.cores = 1;
    c.model.timeslice_ps = UINT64_C(1) << 63;
    c.model.waiting = RT_NET_WAIT_POLL;
    rt_sim_result res;
    st_run(tr, &c, &res);
    assert_int_equal(res.completed, 1);
    assert_true(res.ranks[0].end_ps == 1000 * NS);
    assert_true(res.ranks[1].end_ps == (UINT64_C(1) << 63) + NS);
    rt_sim_result_free(&res);
    c.model.timeslice_ps = (UINT64_C(1) << 63) + 1; /* a period past 2^64: rank 1 at 2^63 + 1 */
    st_run(tr, &c, &res);
    assert_true(res.ranks[1].end_ps == (UINT64_C(1) << 63) + 1 + NS);
    rt_sim_result_free(&res);
    st_free(&t);
    rt_sim_trace_free(tr);

    st_add(&t, "ranks,2\n");
    st_init(&t, 0);
    st_init(&t, 1);
    st_call(&t, 0, 10000000000ULL, "MPI_Finalize", NULL, NULL);
    st_call(&t, 1, 10000000000ULL, "MPI_Finalize", NULL, NULL);
    tr = st_load(t.s);
    c.model.timeslice_ps = UINT64_C(1) << 63;
    c.compute_scale_ppm = 1000000000000; /* 10 s become 10^19 ps: past a turn of 2^63 ps */
    assert_range(tr, &c, RANGE_MSG "built-in defaults, computation scaled by 1000000.000000)");
    rt_sim_trace_free(tr);
    st_free(&t);
}

/* Contention: the receiver takes a message in over in = n / bandwidth, ending at its
 * arrival and starting no earlier than the last intake's end: arrival = max(arrival, eject +
 * in). With eager data faster than the link (eager_bandwidth > bandwidth) in exceeds the
 * wire time, and arrival - in once wrapped below zero, so the rule was skipped for the
 * first message. 1000 bytes: wire o + L + 100 ns at 10 GB/s, in = 1 us at 1 GB/s. */
static void test_contention_intake(void **state)
{
    (void)state;
    rt_sim_trace *tr = one_message(1000);
    rt_sim_config c;
    st_logp_config(&c, EAGER);
    c.model.contention = 1;
    for (unsigned ct = 0; ct < RT_CT_COUNT; ct++) {
        c.model.link[ct].latency_ps = 0;
        c.model.link[ct].overhead_ps = 0;
        c.model.link[ct].eager_bandwidth = 10000000000;
    }
    rt_sim_result res;
    st_run(tr, &c, &res);
    assert_int_equal(res.completed, 1);
    assert_int_equal(res.ranks[0].end_ps, 100 * NS); /* the sender's port: n at 10 GB/s */
    assert_int_equal(res.ranks[1].end_ps, US);       /* taken in at 1 GB/s from 0 */
    rt_sim_result_free(&res);
    rt_sim_trace_free(tr);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_latency_edge),  cmocka_unit_test(test_huge_messages),
        cmocka_unit_test(test_compute_scale), cmocka_unit_test(test_trace_span),
        cmocka_unit_test(test_share_period),  cmocka_unit_test(test_contention_intake),
    };
    return rt_test_main("sim_range", tests, argc, argv);
}
