/* Unit tests of raw traces whose times are clock ticks (raw format version 2, rt_raw_def_clock):
 * the reader turns every time into nanoseconds once, with the rank's calibration, next to a
 * rank of version 1 read as before; and every damaged or hostile clock is one clear error. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "rt_test_main.h"

#include "test_raw.h"

/* A header of version 2: times in ticks. */
static rbuf header_ticks(uint32_t rank, uint32_t nranks, uint32_t thread)
{
    rbuf b = header(rank, nranks, thread, 0, 0);
    uint32_t v = RT_RAW_VERSION_TICKS;
    memcpy(b.p + offsetof(rt_raw_header, version), &v, sizeof v);
    return b;
}

static void def_clock(rbuf *b, uint64_t ticks, uint64_t ns)
{
    rt_raw_def_clock c = {.tsc0 = 123456789, .mono0 = 5000, .ticks = ticks, .ns = ns};
    def(b, RT_RAW_DEF_CLOCK, &c, sizeof c, NULL, 0);
}

static void pending_rec(rbuf *b, unsigned fn, uint64_t t0)
{
    rt_raw_pending p = {.type = RT_RAW_PENDING, .fn = (uint16_t)fn, .t0 = t0};
    put(b, &p, sizeof p);
}

/* ---- conversion ------------------------------------------------------------------------------ */

/* Rank 0 counts 3 ticks to the ns but for a 1 in 3,000,000,000 drift (3,000,000,001 ticks in
 * 1 s), rank 1 counts ns (version 1). */
static const want ticks_rank0[] = {
    {RT_EV_ENTER, 100, RT_FN_Send},        /* 300 ticks */
    {RT_EV_SEND, 100, RT_FN_Send},         /* at t0 */
    {RT_EV_LEAVE, 110, RT_FN_Send},        /* 300 + 31 ticks: 110.33 ns, rounded down */
    {RT_EV_ENTER, 1000, RT_FN_Barrier},    /* 3000 ticks */
    {RT_EV_LEAVE, 1001, RT_FN_Barrier},    /* 3002 ticks: 1000.67 ns, rounded up */
    {RT_EV_ENTER, 2000000000, RT_FN_Recv}, /* 6,000,000,002 ticks */
    {RT_EV_RECV, 4999999999, RT_FN_Recv},  /* TIME: 15,000,000,002 ticks */
    {RT_EV_LEAVE, 4999999999, RT_FN_Recv}, /* 4,999,999,999.0000000003 ns */
    {RT_EV_ENTER, 6000000000, RT_FN_Wait}, /* PENDING: 18,000,000,006 ticks */
    {RT_EV_PENDING, 6000000000, RT_FN_Wait},
};
static const want ticks_rank1[] = {
    {RT_EV_ENTER, 300, RT_FN_Barrier},
    {RT_EV_LEAVE, 331, RT_FN_Barrier},
};

static void test_ticks_to_ns(void **state)
{
    (void)state;
    const char *dir = fresh_dir("clock-ticks");
    rbuf d = header_ticks(0, 2, RT_RAW_THREAD_DEFS);
    def_clock(&d, 3000000001ull, 1000000000ull);
    save_defs(dir, 0, &d);
    rbuf t = header_ticks(0, 2, 0);
    call(&t, RT_FN_Send, 300, 31);
    p2p(&t, 0, RT_EV_SEND, 0, 1, 5, 64, 0);
    call(&t, RT_FN_Barrier, 3000, 2);
    long_call(&t, RT_FN_Recv, 6000000002ull, 15000000002ull);
    p2p(&t, 1, RT_EV_RECV, 0, 1, 6, 8, 0);
    pending_rec(&t, RT_FN_Wait, 18000000006ull);
    save_thread(dir, 0, 0, &t);
    rbuf d1 = defs_file(1, 2), t1 = thread_file(1, 2, 0);
    call(&t1, RT_FN_Barrier, 300, 31);
    close_rec(&t1, 400);
    save_defs(dir, 1, &d1);
    save_thread(dir, 1, 0, &t1);
    loaded l;
    load_ok(dir, &l);
    expect_rank(&l, 0, ticks_rank0, sizeof ticks_rank0 / sizeof *ticks_rank0);
    expect_rank(&l, 1, ticks_rank1, sizeof ticks_rank1 / sizeof *ticks_rank1);
    assert_non_null(strstr(l.truncated, "r0.t0.rtr: rank 0 thread 0 was cut short after 10 events "
                                        "(the run did not finish)"));
    rt_test_unload(&l);
}

/* ---- bad clocks ------------------------------------------------------------------------------ */

/* A one-rank trace of version 2 with the given definitions and one call at 3000 ticks. */
static const char *ticks_trace(const char *name, rbuf *d)
{
    rbuf t = header_ticks(0, 1, 0);
    call(&t, RT_FN_Barrier, 3000, 3);
    close_rec(&t, 4000);
    return one_rank(name, d, &t);
}

static void test_bad_clocks(void **state)
{
    (void)state;
    rbuf d = header_ticks(0, 1, RT_RAW_THREAD_DEFS);
    def_clock(&d, 0, 1000);
    expect_error(ticks_trace("clock-zero", &d), RT_E_FORMAT,
                 "r0.defs.rtr: offset 64: a clock calibration of 0 ticks in 1000 ns");

    d = header_ticks(0, 1, RT_RAW_THREAD_DEFS);
    def_clock(&d, 5, 0);
    expect_error(ticks_trace("clock-zero-ns", &d), RT_E_FORMAT,
                 "r0.defs.rtr: offset 64: a clock calibration of 5 ticks in 0 ns");

    d = header_ticks(0, 1, RT_RAW_THREAD_DEFS);
    def_clock(&d, 999, 1000000);
    expect_error(ticks_trace("clock-slow", &d), RT_E_FORMAT,
                 "r0.defs.rtr: offset 64: a clock of 999000 Hz (999 ticks in 1000000 ns; 1 MHz "
                 "to 100 GHz expected)");

    d = header_ticks(0, 1, RT_RAW_THREAD_DEFS);
    def_clock(&d, UINT64_MAX, 1);
    expect_error(ticks_trace("clock-fast", &d), RT_E_FORMAT,
                 "r0.defs.rtr: offset 64: a clock of 18446744073709551615000000000 Hz "
                 "(18446744073709551615 ticks in 1 ns; 1 MHz to 100 GHz expected)");

    d = header_ticks(0, 1, RT_RAW_THREAD_DEFS);
    expect_error(ticks_trace("clock-missing", &d), RT_E_FORMAT,
                 "r0.defs.rtr: times in clock ticks (raw format version 2) but no clock "
                 "definition");

    d = header_ticks(0, 1, RT_RAW_THREAD_DEFS);
    def_win(&d, 4, 0, 0);
    def_clock(&d, 3, 1);
    expect_error(ticks_trace("clock-second", &d), RT_E_FORMAT,
                 "r0.defs.rtr: offset 96: a clock definition that is not the file's first record");

    d = header_ticks(0, 1, RT_RAW_THREAD_DEFS);
    uint64_t three[3] = {0, 3, 1};
    def(&d, RT_RAW_DEF_CLOCK, three, sizeof three, NULL, 0);
    expect_error(ticks_trace("clock-short", &d), RT_E_FORMAT,
                 "r0.defs.rtr: offset 64: a clock definition of 24 bytes (32 expected)");

    d = defs_file(0, 1);
    def_clock(&d, 3, 1);
    rbuf t = thread_file(0, 1, 0);
    expect_error(one_rank("clock-v1", &d, &t), RT_E_FORMAT,
                 "r0.defs.rtr: offset 64: a clock definition in a file of version 1 (times in ns)");
}

static void test_bad_times(void **state)
{
    (void)state;
    /* 1 MHz: 1000 ns a tick, so 2^63 ticks are far past 2^64 ns */
    rbuf d = header_ticks(0, 1, RT_RAW_THREAD_DEFS);
    def_clock(&d, 1000, 1000000);
    rbuf t = header_ticks(0, 1, 0);
    call(&t, RT_FN_Barrier, 1ull << 63, 3);
    expect_error(one_rank("clock-overflow", &d, &t), RT_E_FORMAT,
                 "r0.t0.rtr: offset 64: a time of 9223372036854775808 ticks is past 2^64 ns "
                 "(1000 ticks in 1000000 ns)");

    d = header_ticks(0, 1, RT_RAW_THREAD_DEFS);
    def_clock(&d, 3, 1);
    t = header_ticks(0, 1, 0);
    call(&t, RT_FN_Barrier, UINT64_MAX - 5, 10);
    expect_error(one_rank("clock-long", &d, &t), RT_E_FORMAT,
                 "r0.t0.rtr: offset 64: a call at 18446744073709551610 ticks lasting 10 ticks "
                 "ends past 2^64 ticks");

    /* the files of a rank disagree on the unit */
    d = header_ticks(0, 1, RT_RAW_THREAD_DEFS);
    def_clock(&d, 3, 1);
    t = thread_file(0, 1, 0);
    expect_error(one_rank("clock-mixed", &d, &t), RT_E_FORMAT,
                 "r0.t0.rtr: raw format version 1, r0.defs.rtr has 2");
    d = defs_file(0, 1);
    t = header_ticks(0, 1, 0);
    expect_error(one_rank("clock-mixed2", &d, &t), RT_E_FORMAT,
                 "r0.t0.rtr: raw format version 2, r0.defs.rtr has 1");
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ticks_to_ns),
        cmocka_unit_test(test_bad_clocks),
        cmocka_unit_test(test_bad_times),
    };
    return rt_test_main("raw_clock", tests, argc, argv);
}
