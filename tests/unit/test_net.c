/* Unit tests for the network model (replayer/net/rt_net.h): defaults, the model file, units,
 * exact picosecond arithmetic, the gateway pipeline and every error message. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "rt_test_main.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "rt_net.h"
#include "rt_test.h"

#define KiB 1024ULL
#define MiB (1024ULL * 1024ULL)

/* ---- helpers ------------------------------------------------------------------------------ */

/* Models are equal when every parameter is; the source only says where they came from. */
static void assert_model_equal(const rt_net_model *a, const rt_net_model *b)
{
    for (unsigned ct = 0; ct < RT_CT_COUNT; ct++) {
        assert_int_equal(a->link[ct].latency_ps, b->link[ct].latency_ps);
        assert_int_equal(a->link[ct].overhead_ps, b->link[ct].overhead_ps);
        assert_int_equal(a->link[ct].gap_ps, b->link[ct].gap_ps);
        assert_int_equal(a->link[ct].bandwidth, b->link[ct].bandwidth);
        assert_int_equal(a->link[ct].eager, b->link[ct].eager);
        assert_int_equal(a->link[ct].eager_bandwidth, b->link[ct].eager_bandwidth);
        assert_int_equal(a->link[ct].rendezvous_ps, b->link[ct].rendezvous_ps);
    }
    assert_int_equal(a->gateways, b->gateways);
    assert_int_equal(a->gw_mtu, b->gw_mtu);
    assert_int_equal(a->reduce_bandwidth, b->reduce_bandwidth);
    assert_int_equal(a->contention, b->contention);
    assert_int_equal(a->injection, b->injection);
    assert_int_equal(a->cores, b->cores);
    assert_int_equal(a->timeslice_ps, b->timeslice_ps);
    assert_int_equal(a->waiting, b->waiting);
    assert_int_equal(a->reduce_element_ps, b->reduce_element_ps);
    for (unsigned fn = 0; fn < RT_FN_COUNT; fn++) {
        assert_int_equal(a->call[fn].fixed_ps, b->call[fn].fixed_ps);
        assert_int_equal(a->call[fn].bandwidth, b->call[fn].bandwidth);
    }
}

/* Loads text as model.conf (in the temporary directory) and checks the load fails with code
 * and message "model.conf:LINE: problem" (the path is cut to its base name), leaving the
 * model unchanged. */
static void assert_load_error(const char *text, int code, const char *expected)
{
    const char *path = rt_test_write_file("model.conf", text);
    rt_net_model m, before;
    memset(&m, 0x5a, sizeof m);
    before = m;
    rt_err err = {0};
    assert_int_equal(rt_net_model_load(&m, path, &err), -code);
    assert_memory_equal(&m, &before, sizeof m);
    size_t dir = strlen(RT_TEST_TMP) + 1;
    assert_true(strncmp(err.msg, path, dir) == 0);
    assert_string_equal(err.msg + dir, expected);
    assert_null(strchr(err.msg, '\n'));
}

static void load_text(rt_net_model *m, const char *text)
{
    rt_err err = {0};
    int rc = rt_net_model_load(m, rt_test_write_file("ok.conf", text), &err);
    if (rc < 0)
        fail_msg("%s", err.msg);
}

static uint64_t time_of(const char *text)
{
    uint64_t v = 0;
    rt_err err = {0};
    if (rt_net_parse_time(text, &v, &err) < 0)
        fail_msg("%s", err.msg);
    return v;
}

static uint64_t bw_of(const char *text)
{
    uint64_t v = 0;
    rt_err err = {0};
    if (rt_net_parse_bandwidth(text, &v, &err) < 0)
        fail_msg("%s", err.msg);
    return v;
}

static uint64_t size_of(const char *text)
{
    uint64_t v = 0;
    rt_err err = {0};
    if (rt_net_parse_size(text, &v, &err) < 0)
        fail_msg("%s", err.msg);
    return v;
}

typedef int (*parser)(const char *, uint64_t *, rt_err *);

static void assert_parse_error(parser p, const char *text, const char *expected)
{
    uint64_t v = 12345;
    rt_err err = {0};
    assert_int_equal(p(text, &v, &err), -RT_E_INVAL);
    assert_int_equal(v, 12345);
    assert_string_equal(err.msg, expected);
}

/* A model whose gw links are easy to reckon with: L = 1 us, B = 1 GB/s (1000 ps a byte). */
static void simple_gw(rt_net_model *m)
{
    rt_net_model_default(m);
    m->link[RT_CT_GW].latency_ps = 1000000;
    m->link[RT_CT_GW].bandwidth = 1000000000;
}

/* ---- defaults ----------------------------------------------------------------------------- */

static void test_defaults(void **state)
{
    (void)state;
    rt_net_model m;
    rt_net_model_default(&m);
    static const struct {
        unsigned ct;
        uint64_t latency, bandwidth;
    } want[] = {
        {RT_CT_LOOP, 50000, 20000000000},   {RT_CT_SHM, 300000, 10000000000},
        {RT_CT_NET, 1500000, 12500000000},  {RT_CT_GW, 3000000, 10000000000},
        {RT_CT_NONE, 1500000, 12500000000}, /* none is net */
    };
    for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
        const rt_net_link *l = &m.link[want[i].ct];
        assert_int_equal(l->latency_ps, want[i].latency);
        assert_int_equal(l->bandwidth, want[i].bandwidth);
        assert_int_equal(l->overhead_ps, 100000);
        assert_int_equal(l->gap_ps, 0);
        assert_int_equal(l->eager, 65536);
    }
    assert_int_equal(m.gateways, 1);
    assert_int_equal(m.gw_mtu, 32768);
    assert_int_equal(m.reduce_bandwidth, 5000000000);
    assert_int_equal(m.contention, 0);
    assert_int_equal(m.cores, 0); /* no time sharing */
    assert_int_equal(m.timeslice_ps, 4000000000);
    assert_int_equal(m.waiting, RT_NET_WAIT_AUTO); /* yield for Open MPI traces, else poll */
    assert_string_equal(m.source, "built-in defaults");
}

static void test_example_is_defaults(void **state)
{
    (void)state;
    rt_net_model def, m;
    rt_net_model_default(&def);
    rt_err err = {0};
    int rc = rt_net_model_load(&m, RT_EXAMPLES "/model.conf", &err);
    if (rc < 0)
        fail_msg("%s", err.msg);
    assert_model_equal(&m, &def);
    assert_string_equal(m.source, RT_EXAMPLES "/model.conf");
}

static void test_partial_file(void **state)
{
    (void)state;
    rt_net_model def, m;
    rt_net_model_default(&def);
    load_text(&m, "[shm] # only this\nlatency = 200ns\n");
    assert_int_equal(m.link[RT_CT_SHM].latency_ps, 200000);
    def.link[RT_CT_SHM].latency_ps = 200000;
    assert_model_equal(&m, &def);

    /* An empty file, comments only, [global], CRLF ends and a net change that none follows. */
    rt_net_model_default(&def);
    load_text(&m, "");
    assert_model_equal(&m, &def);
    load_text(&m, "\xef\xbb\xbf# a comment\r\n\r\n   # indented comment\r\n[global]\r\n"
                  "gateways = 4   # four of them\r\ncontention=on\r\n[ net ]\r\n"
                  "\tbandwidth\t=\t100 Gbit/s\r\n");
    def.gateways = 4;
    def.contention = 1;
    assert_model_equal(&m, &def); /* 100 Gbit/s is the default */
    load_text(&m, "[net]\nlatency = 2us\n");
    assert_int_equal(m.link[RT_CT_NET].latency_ps, 2000000);
    assert_int_equal(m.link[RT_CT_NONE].latency_ps, 2000000);
    assert_int_equal(rt_net_wire_ps(&m, RT_CT_NONE, 0, 0), 2000000);
    assert_int_equal(rt_net_wire_ps(&m, 99, 0, 0), 2000000);
}

/* ---- writing ------------------------------------------------------------------------------ */

static char *written(const rt_net_model *m)
{
    char *text = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&text, &size);
    assert_non_null(f);
    assert_int_equal(rt_net_model_write(m, f), 0);
    assert_int_equal(fclose(f), 0);
    return text;
}

static void test_write_defaults(void **state)
{
    (void)state;
    rt_net_model m;
    rt_net_model_default(&m);
    char *text = written(&m);
    assert_string_equal(text, "# retrace network model (docs/model.md), from built-in defaults\n"
                              "gateways = 1\n"
                              "gw_mtu = 32KiB\n"
                              "reduce_bandwidth = 5GB/s\n"
                              "contention = off\n"
                              "injection = message\n"
                              "\n[loop]\nlatency = 50ns\nbandwidth = 20GB/s\noverhead = 100ns\n"
                              "gap = 0ns\neager = 64KiB\n"
                              "\n[shm]\nlatency = 300ns\nbandwidth = 10GB/s\noverhead = 100ns\n"
                              "gap = 0ns\neager = 64KiB\n"
                              "\n[net]\nlatency = 1.5us\nbandwidth = 12.5GB/s\noverhead = 100ns\n"
                              "gap = 0ns\neager = 64KiB\n"
                              "\n[gw]\nlatency = 3us\nbandwidth = 10GB/s\noverhead = 100ns\n"
                              "gap = 0ns\neager = 64KiB\n");
    free(text);
}

static void round_trip(const rt_net_model *m)
{
    char *text = written(m);
    rt_net_model back;
    load_text(&back, text);
    assert_model_equal(&back, m);
    free(text);
}

static void test_write_round_trip(void **state)
{
    (void)state;
    rt_net_model m;
    rt_net_model_default(&m);
    round_trip(&m);

    /* Awkward values: every one must come back to the bit. */
    static const uint64_t times[] = {
        0, 1, 999, 1000, 1001, 1234567, 999999999999, 1000000000001, UINT64_MAX};
    static const uint64_t bws[] = {1, 3, 999, 1000, 1234567891, 12500000001, UINT64_MAX};
    static const uint64_t sizes[] = {
        0, 1, 1000, 1023, 1024, 1536, 3 * MiB, 1ULL << 30, (1ULL << 40) + 1024, UINT64_MAX};
    for (unsigned i = 0; i < 9; i++) {
        for (unsigned ct = RT_CT_LOOP; ct < RT_CT_COUNT; ct++) {
            rt_net_link *l = &m.link[ct];
            /* latency and overhead below UINT64_MAX: a model whose smallest message does not
             * fit in 64-bit picoseconds is refused (test_file_errors) */
            l->latency_ps = times[(i + ct) % 8];
            l->overhead_ps = times[(i + 2 * ct) % 8];
            l->gap_ps = times[(i + 3 * ct) % 9];
            l->bandwidth = bws[(i + ct) % 7];
            l->eager = sizes[(i + ct) % 10];
            l->eager_bandwidth = i % 3 ? bws[(i + 2 * ct) % 7] : 0;
            l->rendezvous_ps = i % 2 ? times[(i + 4 * ct) % 9] : 0;
        }
        m.link[RT_CT_NONE] = m.link[RT_CT_NET];
        m.gateways = i == 8 ? RT_NET_MAX_GATEWAYS : i + 1;
        m.gw_mtu = sizes[i % 9 + 1];
        m.reduce_bandwidth = bws[i % 7];
        m.contention = i & 1;
        m.injection = (i >> 1) & 1;
        m.cores = i % 3 ? (uint32_t)i * 7 : 0;
        m.timeslice_ps = times[(i + 5) % 9] ? times[(i + 5) % 9] : 1;
        m.waiting = (int)(i % 3); /* auto, yield, poll */
        m.reduce_element_ps = times[(i + 6) % 9];
        m.call[RT_FN_Isend].fixed_ps = times[i];
        m.call[RT_FN_Isend].bandwidth = i % 2 ? bws[i % 7] : 0;
        m.call[RT_FN_Win_fence].fixed_ps = times[(i + 4) % 9];
        round_trip(&m);
    }
}

/* ---- units -------------------------------------------------------------------------------- */

static void test_time_units(void **state)
{
    (void)state;
    assert_int_equal(time_of("7ps"), 7);
    assert_int_equal(time_of("250ns"), 250000);
    assert_int_equal(time_of("1.5us"), 1500000);
    assert_int_equal(time_of("1.5 \xc2\xb5s"), 1500000);
    assert_int_equal(time_of("2.000 ms"), 2000000000);
    assert_int_equal(time_of("3s"), 3000000000000);
    assert_int_equal(time_of(" .5ns "), 500);
    assert_int_equal(time_of("0.001ns"), 1);
    assert_int_equal(time_of("0ns"), 0);
    assert_int_equal(time_of("1.000000000000000000000000000000us"), 1000000);
    assert_int_equal(time_of("18446744073709551615ps"), UINT64_MAX);
    assert_int_equal(time_of("18446744.073709551615s"), UINT64_MAX);
}

static void test_bandwidth_units(void **state)
{
    (void)state;
    assert_int_equal(bw_of("5B/s"), 5);
    assert_int_equal(bw_of("2KB/s"), 2000);
    assert_int_equal(bw_of("2MB/s"), 2000000);
    assert_int_equal(bw_of("12.5GB/s"), 12500000000);
    assert_int_equal(bw_of("2KiB/s"), 2048);
    assert_int_equal(bw_of("2MiB/s"), 2 * MiB);
    assert_int_equal(bw_of("1.5GiB/s"), 1610612736);
    assert_int_equal(bw_of("100Mbit/s"), 12500000);
    assert_int_equal(bw_of("100 Gbit/s"), 12500000000);
    assert_int_equal(bw_of("0.001Mbit/s"), 125);
}

static void test_size_units(void **state)
{
    (void)state;
    assert_int_equal(size_of("65536"), 65536);
    assert_int_equal(size_of("0"), 0);
    assert_int_equal(size_of("100B"), 100);
    assert_int_equal(size_of("64K"), 65536);
    assert_int_equal(size_of("1.5K"), 1536);
    assert_int_equal(size_of("2M"), 2 * MiB);
    assert_int_equal(size_of("1G"), 1ULL << 30);
    assert_int_equal(size_of("64KiB"), 65536);
    assert_int_equal(size_of("2 MiB"), 2 * MiB);
    assert_int_equal(size_of("0.5GiB"), 1ULL << 29);
}

static void test_parse_errors(void **state)
{
    (void)state;
    assert_parse_error(rt_net_parse_time, "300",
                       "bad value '300': needs a unit (ps, ns, us, ms or s)");
    assert_parse_error(rt_net_parse_time, "fast",
                       "bad value 'fast' (expected a number and a unit such as 1.5us)");
    assert_parse_error(rt_net_parse_time, "",
                       "bad value '' (expected a number and a unit such as 1.5us)");
    assert_parse_error(rt_net_parse_time, "-1ns",
                       "bad value '-1ns' (expected a number and a unit such as 1.5us)");
    assert_parse_error(rt_net_parse_time, "1e3ns",
                       "bad value '1e3ns' (expected a number and a unit such as 1.5us)");
    assert_parse_error(rt_net_parse_time, "1.2.3ns",
                       "bad value '1.2.3ns' (expected a number and a unit such as 1.5us)");
    assert_parse_error(rt_net_parse_time, "1 NS",
                       "bad value '1 NS' (expected a number and a unit such as 1.5us)");
    assert_parse_error(rt_net_parse_time, "1.0005ns",
                       "bad value '1.0005ns': not a whole number of picoseconds");
    assert_parse_error(rt_net_parse_time, "18446744073709551616ps",
                       "bad value '18446744073709551616ps': too large");
    assert_parse_error(rt_net_parse_time, "10000000000000000000000000s",
                       "bad value '10000000000000000000000000s': too large");
    assert_parse_error(rt_net_parse_time, "1.0000000000000000000000000000000000000000000001s",
                       "bad value '1.0000000000000000000000000000000000000000000001s': too many "
                       "digits");
    assert_parse_error(rt_net_parse_time, "0.0000000000000000000000000000000000000000000001s",
                       "bad value '0.0000000000000000000000000000000000000000000001s': too many "
                       "digits");
    assert_parse_error(rt_net_parse_bandwidth, "10 GB",
                       "bad value '10 GB' (expected a number and a unit such as 10GB/s)");
    assert_parse_error(rt_net_parse_bandwidth, "10",
                       "bad value '10': needs a unit (B/s, KB/s, MB/s, GB/s, KiB/s, MiB/s, "
                       "GiB/s, Mbit/s or Gbit/s)");
    assert_parse_error(rt_net_parse_bandwidth, "0GB/s",
                       "bad value '0GB/s': must be greater than zero");
    assert_parse_error(rt_net_parse_bandwidth, "1.5B/s",
                       "bad value '1.5B/s': not a whole number of bytes per second");
    assert_parse_error(rt_net_parse_bandwidth, "1bit/s",
                       "bad value '1bit/s' (expected a number and a unit such as 10GB/s)");
    assert_parse_error(rt_net_parse_size, "1.3K", "bad value '1.3K': not a whole number of bytes");
    assert_parse_error(rt_net_parse_size, "64KB",
                       "bad value '64KB' (expected a number of bytes such as 65536, 64K or 64KiB)");
    assert_parse_error(rt_net_parse_size, "lots",
                       "bad value 'lots' (expected a number of bytes such as 65536, 64K or 64KiB)");
    /* Long values are cut in messages. */
    char longv[200];
    memset(longv, '9', sizeof longv - 1);
    longv[sizeof longv - 1] = '\0';
    uint64_t v;
    rt_err err = {0};
    assert_int_equal(rt_net_parse_time(longv, &v, &err), -RT_E_INVAL);
    assert_true(strlen(err.msg) < 120);
    assert_non_null(strstr(err.msg, "...': too large"));
}

static void test_format_time(void **state)
{
    (void)state;
    static const struct {
        uint64_t ps;
        const char *text;
    } cases[] = {
        {0, "0 ps"},
        {7, "7 ps"},
        {999, "999 ps"},
        {1000, "1 ns"},
        {250000, "250 ns"},
        {1500000, "1.5 us"},
        {1234567, "1.235 us"},
        {2000000000, "2 ms"},
        {2000400000, "2.000 ms"},
        {999960, "1.000 us"},
        {999949, "999.9 ns"},
        {12345678, "12.35 us"},
        {3000000000000, "3 s"},
        {12345678000000000, "12350 s"},
        {UINT64_MAX, "18450000 s"},
    };
    char buf[32];
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        rt_net_format_time(cases[i].ps, buf, sizeof buf);
        assert_string_equal(buf, cases[i].text);
    }
    /* Exact outputs read back. */
    assert_int_equal(time_of("1.5 us"), 1500000);
    rt_net_format_time(1500000, buf, 4);
    assert_string_equal(buf, "1.5");
}

/* ---- costs -------------------------------------------------------------------------------- */

static void test_exact_arithmetic(void **state)
{
    (void)state;
    rt_net_model m;
    rt_net_model_default(&m);
    m.link[RT_CT_NET].latency_ps = 0;
    m.link[RT_CT_NET].bandwidth = 1000000000;
    assert_int_equal(rt_net_wire_ps(&m, RT_CT_NET, MiB, 0), 1048576000);
    m.link[RT_CT_NET].bandwidth = 3; /* 1/3 s a byte: rounded up */
    assert_int_equal(rt_net_wire_ps(&m, RT_CT_NET, 1, 0), 333333333334);
    assert_int_equal(rt_net_wire_ps(&m, RT_CT_NET, 3, 0), 1000000000000);
    m.link[RT_CT_NET].bandwidth = 1; /* 2^64 bytes at 1 B/s does not fit */
    assert_int_equal(rt_net_wire_ps(&m, RT_CT_NET, UINT64_MAX, 0), UINT64_MAX);

    /* Defaults: net 1 MiB = 1.5 us + 1048576 / 12.5e9 s = 1500000 + 83886080 ps. */
    rt_net_model_default(&m);
    assert_int_equal(rt_net_wire_ps(&m, RT_CT_NET, MiB, 0), 85386080);
    assert_int_equal(rt_net_msg_ps(&m, RT_CT_NET, MiB), 85586080);
    assert_int_equal(rt_net_msg_ps(&m, RT_CT_NONE, MiB), 85586080);
    assert_int_equal(rt_net_msg_ps(&m, RT_CT_LOOP, 0), 250000);
    assert_int_equal(rt_net_wire_ps(&m, RT_CT_SHM, 1, 0), 300100);
    /* 1 byte over 20 GB/s is 50 ps exactly, 3 bytes 150 ps, 1 byte over 12.5 GB/s 80 ps. */
    assert_int_equal(rt_net_wire_ps(&m, RT_CT_LOOP, 3, 0), 50150);
    assert_int_equal(rt_net_wire_ps(&m, RT_CT_NET, 1, 0), 1500080);
    /* Reductions at 5 GB/s: 200 ps a byte. */
    assert_int_equal(rt_net_reduce_ps(&m, 0, 0), 0);
    assert_int_equal(rt_net_reduce_ps(&m, MiB, MiB / 8), 209715200); /* no per-element cost */
    /* reduce_element 700 ps: 4 floats 16 * 200 + 4 * 700, 2 doubles 16 * 200 + 2 * 700 */
    m.reduce_element_ps = 700;
    assert_int_equal(rt_net_reduce_ps(&m, 16, 4), 6000);
    assert_int_equal(rt_net_reduce_ps(&m, 16, 2), 4600);
    m.reduce_element_ps = UINT64_MAX; /* saturates, never wraps */
    assert_int_equal(rt_net_reduce_ps(&m, 16, UINT64_MAX), UINT64_MAX);
    assert_int_equal(rt_net_reduce_ps(&m, UINT64_MAX, 1), UINT64_MAX);
    m.reduce_element_ps = 0;
    m.reduce_bandwidth = 3;
    assert_int_equal(rt_net_reduce_ps(&m, 2, 1), 666666666667);
}

/* The definition, chunk by chunk (docs/model.md): D_i = max(A_i, D_{i-1}) + h_i. */
static uint64_t gw_reference(const rt_net_model *m, uint64_t n, uint64_t mtu)
{
    const rt_net_link *l = &m->link[RT_CT_GW];
    uint64_t a = 0, d = 0, left = n;
    do {
        uint64_t c = left < mtu ? left : mtu;
        uint64_t h =
            l->latency_ps +
            (uint64_t)(((unsigned __int128)c * 1000000000000ULL + l->bandwidth - 1) / l->bandwidth);
        a += h;
        d = (a > d ? a : d) + h;
        left -= c;
    } while (left);
    return d;
}

static void test_gw_pipeline(void **state)
{
    (void)state;
    rt_net_model m;
    simple_gw(&m);
    /* n < mtu: one chunk, two hops of 1 us + 100 ns. */
    assert_int_equal(rt_net_wire_ps(&m, RT_CT_GW, 100, 1024), 2 * 1100000);
    /* n = 4 mtu: h = 1 us + 1.024 us; chunk i reaches the receiver at (i + 1) h. */
    assert_int_equal(rt_net_wire_ps(&m, RT_CT_GW, 4096, 1024), 5 * 2024000);
    /* n = 2500: chunks 1024, 1024, 452; the last one leaves the gateway at 3 h (when the
     * second has arrived) and takes 1 us + 452 ns. */
    assert_int_equal(rt_net_wire_ps(&m, RT_CT_GW, 2500, 1024), 3 * 2024000 + 1452000);
    /* n = mtu + 1: the one-byte chunk waits for the first to clear the second hop. */
    assert_int_equal(rt_net_wire_ps(&m, RT_CT_GW, 1025, 1024), 2 * 2024000 + 1001000);
    /* Zero bytes still cross two hops; mtu 0 means gw_mtu (32 KiB: 64 KiB is two chunks). */
    assert_int_equal(rt_net_wire_ps(&m, RT_CT_GW, 0, 0), 2000000);
    assert_int_equal(rt_net_wire_ps(&m, RT_CT_GW, 64 * KiB, 0), 3 * (1000000 + 32768000ULL));
    assert_int_equal(rt_net_msg_ps(&m, RT_CT_GW, 100), 2 * 1100000 + 200000);
    /* Huge messages saturate instead of wrapping. */
    assert_int_equal(rt_net_wire_ps(&m, RT_CT_GW, UINT64_MAX, 1), UINT64_MAX);

    /* The closed form against the definition, with rounding (B = 3 B/s, L = 7 ps). */
    m.link[RT_CT_GW].latency_ps = 7;
    m.link[RT_CT_GW].bandwidth = 3;
    for (uint64_t mtu = 1; mtu <= 9; mtu++)
        for (uint64_t n = 0; n <= 40; n++)
            assert_int_equal(rt_net_wire_ps(&m, RT_CT_GW, n, mtu), gw_reference(&m, n, mtu));
    rt_net_model_default(&m);
    for (uint64_t n = 0; n <= 300000; n += 4099)
        assert_int_equal(rt_net_wire_ps(&m, RT_CT_GW, n, 0), gw_reference(&m, n, m.gw_mtu));
}

/* eager_bandwidth for eager messages, rendezvous added once to a rendezvous message; both
 * only written when set. */
static void test_protocol_rates(void **state)
{
    (void)state;
    rt_net_model m;
    load_text(&m, "[shm]\nlatency = 200ns\nbandwidth = 20GB/s\neager = 8K\n"
                  "eager_bandwidth = 5GB/s\nrendezvous = 1.2us\n"
                  "[gw]\nlatency = 1us\nbandwidth = 1GB/s\neager = 2000\n"
                  "eager_bandwidth = 500MB/s\nrendezvous = 3us\n");
    assert_int_equal(m.link[RT_CT_SHM].eager_bandwidth, 5000000000);
    assert_int_equal(m.link[RT_CT_SHM].rendezvous_ps, 1200000);
    /* eager: 200 ns + 8192 * 200 ps; rendezvous: 200 ns + 8193 * 50 ps + 1.2 us */
    assert_int_equal(rt_net_wire_ps(&m, RT_CT_SHM, 8192, 0), 200000 + 1638400);
    assert_int_equal(rt_net_wire_ps(&m, RT_CT_SHM, 8193, 0), 200000 + 409650 + 1200000);
    assert_int_equal(rt_net_msg_ps(&m, RT_CT_SHM, 0), 100000 + 200000 + 100000);
    /* gw, chunks of 1 KiB: 1500 bytes eager at 2000 ps a byte, h = 1 us + 2.048 us, last
     * chunk 1 us + 0.952 us; 2500 bytes rendezvous at 1000 ps a byte (docs/model.md's
     * 7.524 us) plus 3 us once. */
    assert_int_equal(rt_net_wire_ps(&m, RT_CT_GW, 1500, 1024), 2 * 3048000 + 1952000);
    assert_int_equal(rt_net_wire_ps(&m, RT_CT_GW, 100, 1024), 2 * 1200000);
    assert_int_equal(rt_net_wire_ps(&m, RT_CT_GW, 2500, 1024), 7524000 + 3000000);
    char *text = written(&m);
    assert_non_null(strstr(text, "\n[shm]\nlatency = 200ns\nbandwidth = 20GB/s\noverhead = "
                                 "100ns\ngap = 0ns\neager = 8KiB\neager_bandwidth = 5GB/s\n"
                                 "rendezvous = 1.2us\n"));
    assert_non_null(strstr(text, "\n[net]\nlatency = 1.5us\nbandwidth = 12.5GB/s\noverhead = "
                                 "100ns\ngap = 0ns\neager = 64KiB\n\n[gw]\n"));
    free(text);
    round_trip(&m);
    assert_load_error("[net]\neager_bandwidth = 0GB/s\n", RT_E_INVAL,
                      "model.conf:2: [net] eager_bandwidth: bad value '0GB/s': must be greater "
                      "than zero");
    assert_load_error("[net]\nrendezvous = 2\n", RT_E_INVAL,
                      "model.conf:2: [net] rendezvous: bad value '2': needs a unit (ps, ns, us, "
                      "ms or s)");
}

static void test_best_gw_mtu(void **state)
{
    (void)state;
    rt_net_model m;
    simple_gw(&m);
    /* 1 MiB, L = 1 us, 1000 ps a byte: T(c) = (n/c + 1)(1 us + c ns):
     * 16 KiB: 65 * 17384000 = 1129960000; 32 KiB: 33 * 33768000 = 1114344000;
     * 64 KiB: 17 * 66536000 = 1131112000. */
    uint64_t t = 0;
    assert_int_equal(rt_net_best_gw_mtu(&m, MiB, &t), 32 * KiB);
    assert_int_equal(t, 1114344000);
    assert_int_equal(rt_net_wire_ps(&m, RT_CT_GW, MiB, 16 * KiB), 1129960000);
    assert_int_equal(rt_net_wire_ps(&m, RT_CT_GW, MiB, 64 * KiB), 1131112000);
    /* A tie goes to the larger chunk: with L = 1.024 us, 2 KiB in 1 KiB chunks takes
     * 3 * 2048 ns and in one 2 KiB chunk 2 * 3072 ns. */
    m.link[RT_CT_GW].latency_ps = 1024000;
    assert_int_equal(rt_net_best_gw_mtu(&m, 2048, &t), 2048);
    assert_int_equal(t, 6144000);
    assert_int_equal(rt_net_wire_ps(&m, RT_CT_GW, 2048, 1024), 6144000);
    /* Small messages: only 1 KiB is a candidate; time may be NULL. */
    assert_int_equal(rt_net_best_gw_mtu(&m, 10, NULL), 1024);
    assert_int_equal(rt_net_best_gw_mtu(&m, 0, &t), 1024);
    assert_int_equal(t, 2 * 1024000);
    /* The largest messages stop at 2^63 rather than overflowing. */
    assert_true(rt_net_best_gw_mtu(&m, UINT64_MAX, &t) >= 1024);
}

/* ---- model file errors -------------------------------------------------------------------- */

/* Model files that load_text refuses (RT_E_INVAL), each with the message that says why
 * (after the folder of the file). */
static const struct {
    const char *text, *msg;
} file_errors[] = {
    {"[net]\nlatency = 1us\n[infiniband]\n",
     "model.conf:3: unknown section [infiniband] (expected [global], [loop], "
     "[shm], [net], [gw] or [calls])"},
    {"[net\n", "model.conf:1: bad section header '[net' (expected [name])"},
    {"\n\n[shm]\nlatncy = 1us\n",
     "model.conf:4: [shm] unknown key 'latncy' (expected latency, bandwidth, "
     "overhead, gap, eager, eager_bandwidth or rendezvous)"},
    {"gw_mtu = 1K\nspeed = 1\n",
     "model.conf:2: unknown key 'speed' (expected gateways, gw_mtu, "
     "reduce_bandwidth, contention, injection, cores, timeslice, waiting or reduce_element)"},
    {"cores = -2\n", "model.conf:1: cores: bad value '-2' (expected a whole number from 0 to "
                     "4294967295)"},
    {"cores = 4294967296\n",
     "model.conf:1: cores: bad value '4294967296' (expected a whole number from "
     "0 to 4294967295)"},
    {"timeslice = 0ms\n", "model.conf:1: timeslice: bad value '0ms': must be greater than zero"},
    {"timeslice = 4\n", "model.conf:1: timeslice: bad value '4': needs a unit (ps, ns, us, ms "
                        "or s)"},
    {"cores = 2\ncores = 3\n", "model.conf:2: cores: duplicate key (first set on line 1)"},
    {"waiting = spin\n", "model.conf:1: waiting: bad value 'spin' (expected auto, yield or poll)"},
    {"waiting = poll\nwaiting = yield\n",
     "model.conf:2: waiting: duplicate key (first set on line 1)"},
    {"injection = fast\n", "model.conf:1: injection: bad value 'fast' (expected message or bytes)"},
    {"latency = 1us\n", "model.conf:1: latency is a per-connection-type key (put it in a [loop], "
                        "[shm], [net] or [gw] section)"},
    {"[gw]\ngw_mtu = 16K\n", "model.conf:2: [gw] gw_mtu is a global key (put it before the first "
                             "section or in [global])"},
    {"# a model\n\n\n\n\n[net]\nbandwidth = 10 GB\n",
     "model.conf:7: [net] bandwidth: bad value '10 GB' (expected a number "
     "and a unit such as 10GB/s)"},
    {"[loop]\nlatency = 50\n",
     "model.conf:2: [loop] latency: bad value '50': needs a unit (ps, ns, us, "
     "ms or s)"},
    {"[gw]\noverhead = 0.1234ns\n",
     "model.conf:2: [gw] overhead: bad value '0.1234ns': not a whole number "
     "of picoseconds"},
    {"[shm]\neager = 1.5\n",
     "model.conf:2: [shm] eager: bad value '1.5': not a whole number of bytes"},
    {"[net]\ngap = 1us#no blank before the hash\n",
     "model.conf:2: [net] gap: bad value '1us#no blank before the hash' "
     "(expected a number and a unit such as 1.5us)"},
    {"[net]\nlatency =   # nothing\n", "model.conf:2: [net] latency: missing value"},
    {"gateways = 0\n", "model.conf:1: gateways: bad value '0' (expected a whole number from 1 "
                       "to 16777216)"},
    /* gateways are nodes, no more than ranks: a clear error here, not a replay that runs
     * out of memory for them */
    {"gateways = 16777217\n",
     "model.conf:1: gateways: bad value '16777217' (expected a whole number "
     "from 1 to 16777216)"},
    {"# many\ngateways = 4000000000\n",
     "model.conf:2: gateways: bad value '4000000000' (expected a whole number "
     "from 1 to 16777216)"},
    {"gateways = 4294967296\n",
     "model.conf:1: gateways: bad value '4294967296' (expected a whole number "
     "from 1 to 16777216)"},
    {"gw_mtu = 0\n", "model.conf:1: gw_mtu: bad value '0': must be greater than zero"},
    {"reduce_bandwidth = 0B/s\n",
     "model.conf:1: reduce_bandwidth: bad value '0B/s': must be greater than "
     "zero"},
    {"contention = yes\n", "model.conf:1: contention: bad value 'yes' (expected on or off)"},
    {"reduce_element = 1\n",
     "model.conf:1: reduce_element: bad value '1': needs a unit (ps, ns, us, "
     "ms or s)"},
    {"reduce_element = 1ns\nreduce_element = 2ns\n",
     "model.conf:2: reduce_element: duplicate key (first set on line 1)"},
    {"[net]\nlatency = 1us\n[shm]\n[net]\nlatency = 2us\n",
     "model.conf:5: [net] latency: duplicate key (first set on line 2)"},
    {"gateways = 2\n[global]\ngateways = 3\n",
     "model.conf:3: gateways: duplicate key (first set on line 1)"},
    {"[net]\nlatency 1us\n", "model.conf:2: missing '=' in 'latency 1us' (expected key = value)"},
    {"= 1us\n", "model.conf:1: missing key before '='"},
    /* values that fit, a message that does not: a gw message crosses two hops (issue 16:
     * 18000000 s once wrapped into a faster run); the later of the two keys is named */
    {"[gw]\nlatency = 18000000s\n",
     "model.conf:2: [gw] latency: a message takes at least overhead + 2 x latency + overhead, "
     "which does not fit in 64-bit picoseconds (about 213 days)"},
    {"[net]\noverhead = 9300000s\n\nlatency = 1us\n",
     "model.conf:2: [net] overhead: a message takes at least overhead + latency + overhead, "
     "which does not fit in 64-bit picoseconds (about 213 days)"},
    {"[loop]\noverhead = 5000000s\nlatency = 8446745s\n",
     "model.conf:3: [loop] latency: a message takes at least overhead + latency + overhead, "
     "which does not fit in 64-bit picoseconds (about 213 days)"},
};

static void test_file_errors(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof file_errors / sizeof *file_errors; i++)
        assert_load_error(file_errors[i].text, RT_E_INVAL, file_errors[i].msg);
    rt_net_model fits; /* a second less than the last one: o + L + o just below 2^64 ps */
    load_text(&fits, "[loop]\noverhead = 5000000s\nlatency = 8446744s\n");
    assert_true(fits.link[RT_CT_LOOP].latency_ps == 8446744000000000000ULL);

    /* Lines: 4095 bytes are fine, 4096 are not (the terminator does not count). */
    static char text[3 * 4200];
    memset(text, 'x', 4095);
    text[0] = '#';
    strcpy(text + 4095, "\r\n[net]\n");
    size_t at = strlen(text);
    memset(text + at, ' ', 4095);
    text[at + 4095] = '\0';
    rt_net_model m;
    load_text(&m, text);
    strcat(text, " \nlatency = 1us\n");
    assert_load_error(text, RT_E_INVAL, "model.conf:3: line longer than 4095 bytes");

    /* A NUL byte is not text. */
    const char *path = rt_test_tmp_path("model.conf");
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fwrite("[net]\nlatency = 1\0us\n", 1, 21, f);
    assert_int_equal(fclose(f), 0);
    rt_err err = {0};
    assert_int_equal(rt_net_model_load(&m, path, &err), -RT_E_INVAL);
    assert_string_equal(err.msg + strlen(RT_TEST_TMP) + 1,
                        "model.conf:2: line contains a NUL byte");
}

/* [calls]: a fixed CPU time per call and optionally a per-byte part, by function name. */
static void test_call_costs(void **state)
{
    (void)state;
    rt_net_model m;
    load_text(&m, "[calls]\nMPI_Isend = 420ns + n / 12GB/s\nMPI_Irecv=77ns\n"
                  "  MPI_Allreduce = 0ns+n/4GB/s # copies\n");
    assert_int_equal(m.call[RT_FN_Isend].fixed_ps, 420000);
    assert_int_equal(m.call[RT_FN_Isend].bandwidth, 12000000000);
    assert_int_equal(rt_net_call_ps(&m, RT_FN_Isend, 0), 420000);
    /* 8192 bytes at 12 GB/s: 682666.67 ps, rounded up */
    assert_int_equal(rt_net_call_ps(&m, RT_FN_Isend, 8192), 420000 + 682667);
    assert_int_equal(rt_net_call_ps(&m, RT_FN_Irecv, 1 << 20), 77000);
    assert_int_equal(rt_net_call_ps(&m, RT_FN_Allreduce, 65536), 16384000);
    assert_int_equal(rt_net_call_ps(&m, RT_FN_Send, 65536), 0);
    assert_int_equal(rt_net_call_ps(&m, RT_FN_Allreduce_c, 65536), 16384000); /* large counts */
    assert_int_equal(rt_net_call_ps(&m, RT_FN_COUNT, 1), 0);
    m.call[RT_FN_Bcast].fixed_ps = UINT64_MAX;
    m.call[RT_FN_Bcast].bandwidth = 1;
    assert_int_equal(rt_net_call_ps(&m, RT_FN_Bcast, UINT64_MAX), UINT64_MAX);
    rt_net_model d;
    rt_net_model_default(&d);
    for (unsigned fn = 0; fn < RT_FN_COUNT; fn++)
        assert_int_equal(d.call[fn].fixed_ps + d.call[fn].bandwidth, 0);

    /* written in function order after the link sections, read back the same */
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    assert_int_equal(rt_net_model_write(&m, f), 0);
    fclose(f);
    assert_non_null(strstr(text, "\n[calls]\nMPI_Isend = 420ns + n / 12GB/s\nMPI_Irecv = 77ns\n"
                                 "MPI_Bcast = 18446744.073709551615s + n / 1B/s\n"
                                 "MPI_Allreduce = 0ns + n / 4GB/s\n"));
    free(text);
    round_trip(&m);

    assert_load_error("[calls]\nMPI_Sned = 1us\n", RT_E_INVAL,
                      "model.conf:2: [calls] unknown MPI function 'MPI_Sned' (expected a name "
                      "such as MPI_Allreduce)");
    assert_load_error("[calls]\nSend = 1us\n", RT_E_INVAL,
                      "model.conf:2: [calls] unknown MPI function 'Send' (expected a name such "
                      "as MPI_Allreduce)");
    assert_load_error("[calls]\nMPI_Send = 1us\nMPI_Send = 2us\n", RT_E_INVAL,
                      "model.conf:3: [calls] MPI_Send: duplicate key (first set on line 2)");
    assert_load_error("[calls]\nMPI_Send =\n", RT_E_INVAL,
                      "model.conf:2: [calls] MPI_Send: missing value");
    assert_load_error("[calls]\nMPI_Send = 1\n", RT_E_INVAL,
                      "model.conf:2: [calls] MPI_Send: bad value '1': needs a unit (ps, ns, "
                      "us, ms or s)");
    assert_load_error("[calls]\nMPI_Send = 1us + 5GB/s\n", RT_E_INVAL,
                      "model.conf:2: [calls] MPI_Send: bad per-byte part '5GB/s' (expected n / "
                      "BANDWIDTH, such as n / 5GB/s)");
    assert_load_error("[calls]\nMPI_Send = 1us + n * 5GB/s\n", RT_E_INVAL,
                      "model.conf:2: [calls] MPI_Send: bad per-byte part 'n * 5GB/s' (expected "
                      "n / BANDWIDTH, such as n / 5GB/s)");
    assert_load_error("[calls]\nMPI_Send = 1us + n / 0GB/s\n", RT_E_INVAL,
                      "model.conf:2: [calls] MPI_Send: bad value ' 0GB/s': must be greater "
                      "than zero");
}

/* [calls] MPI_Allreduce/ring: a blocking collective's cost under one algorithm, set apart from
 * the function's own; 0ns is a cost too (set); written after the functions, read back. */
static void test_alg_costs(void **state)
{
    (void)state;
    rt_net_model m;
    load_text(&m, "[calls]\nMPI_Allreduce = 1us\nMPI_Allreduce/ring = 250ns + n / 2GB/s\n"
                  " MPI_Alltoall / bruck = 0ns # none\nMPI_Bcast/scatter_rdb=3us\n"
                  "MPI_Allreduce/rd = 40ns\n");
    uint64_t ps = 7;
    assert_int_equal(rt_net_alg_call_ps(&m, RT_COLL_ALLREDUCE, RT_ALG_RING, 4096, &ps), 1);
    assert_int_equal(ps, 250000 + 2048000); /* 4096 B at 2 GB/s: 2.048 us */
    assert_int_equal(rt_net_alg_call_ps(&m, RT_COLL_ALLREDUCE, RT_ALG_RDB, 4096, &ps), 1);
    assert_int_equal(ps, 40000);
    assert_int_equal(rt_net_alg_call_ps(&m, RT_COLL_ALLTOALL, RT_ALG_BRUCK, 99, &ps), 1);
    assert_int_equal(ps, 0);
    ps = 7;
    assert_int_equal(rt_net_alg_call_ps(&m, RT_COLL_ALLREDUCE, RT_ALG_RABENSEIFNER, 8, &ps), 0);
    assert_int_equal(rt_net_alg_call_ps(&m, RT_COLL_COUNT, RT_ALG_RING, 8, &ps), 0);
    assert_int_equal(rt_net_alg_call_ps(&m, RT_COLL_ALLREDUCE, RT_ALG_COUNT, 8, &ps), 0);
    assert_int_equal(ps, 7);
    assert_int_equal(rt_net_call_ps(&m, RT_FN_Allreduce, 8), 1000000); /* its own stays */
    assert_int_equal(rt_net_coll_func(RT_COLL_REDUCE_SCATTER_BLOCK), RT_FN_Reduce_scatter_block);
    assert_int_equal(rt_net_coll_func(RT_COLL_BARRIER), RT_FN_Barrier);
    assert_int_equal(rt_net_coll_func(RT_COLL_CREATE_HANDLE), RT_FN_NONE);
    assert_int_equal(rt_net_coll_func(RT_COLL_COUNT), RT_FN_NONE);
    m.alg_call[RT_COLL_BCAST][RT_ALG_SCATTER_RDB] = (rt_net_call){UINT64_MAX, 1};
    assert_int_equal(rt_net_alg_call_ps(&m, RT_COLL_BCAST, RT_ALG_SCATTER_RDB, 2, &ps), 1);
    assert_int_equal(ps, UINT64_MAX); /* saturates */
    m.alg_call[RT_COLL_BCAST][RT_ALG_SCATTER_RDB] = (rt_net_call){3000000, 0};
    rt_net_model d;
    rt_net_model_default(&d);
    for (unsigned op = 0; op < RT_COLL_COUNT; op++)
        for (unsigned a = 0; a < RT_ALG_COUNT; a++)
            assert_int_equal(d.alg_set[op][a], 0);

    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    assert_int_equal(rt_net_model_write(&m, f), 0);
    fclose(f);
    assert_non_null(strstr(text, "\n[calls]\nMPI_Allreduce = 1us\nMPI_Bcast/scatter_rdb = 3us\n"
                                 "MPI_Alltoall/bruck = 0ns\n"
                                 "MPI_Allreduce/recursive_doubling = 40ns\n"
                                 "MPI_Allreduce/ring = 250ns + n / 2GB/s\n"));
    free(text);
    round_trip(&m);
    /* an algorithm cost alone makes the section */
    load_text(&m, "[calls]\nMPI_Barrier/dissemination = 1ns\n");
    text = NULL;
    f = open_memstream(&text, &len);
    assert_int_equal(rt_net_model_write(&m, f), 0);
    fclose(f);
    assert_non_null(strstr(text, "\n[calls]\nMPI_Barrier/dissemination = 1ns\n"));
    free(text);

    assert_load_error("[calls]\nMPI_Isend/ring = 1us\n", RT_E_INVAL,
                      "model.conf:2: [calls] MPI_Isend/ring: algorithm costs are for blocking "
                      "collectives (such as MPI_Allreduce/ring)");
    assert_load_error("[calls]\nMPI_Iallreduce/ring = 1us\n", RT_E_INVAL,
                      "model.conf:2: [calls] MPI_Iallreduce/ring: algorithm costs are for "
                      "blocking collectives (such as MPI_Allreduce/ring)");
    assert_load_error("[calls]\nMPI_Alreduce/ring = 1us\n", RT_E_INVAL,
                      "model.conf:2: [calls] unknown MPI function 'MPI_Alreduce' (expected a "
                      "name such as MPI_Allreduce)");
    assert_load_error("[calls]\nMPI_Barrier/ring = 1us\n", RT_E_INVAL,
                      "model.conf:2: [calls] MPI_Barrier/ring: no algorithm 'ring' for barrier "
                      "(expected binomial, dissemination, msa, msa2, ompi_linear, "
                      "ompi_recursive_doubling, ompi_double_ring, ompi_tree)");
    assert_load_error("[calls]\nMPI_Allreduce/mpich = 1us\n", RT_E_INVAL,
                      "model.conf:2: [calls] MPI_Allreduce/mpich: no algorithm 'mpich' for "
                      "allreduce (expected reduce_bcast, recursive_doubling, ring, rabenseifner, "
                      "msa, msa2, ompi_linear, ompi_reduce_bcast, ompi_ring, ompi_rabenseifner)");
    assert_load_error("[calls]\nMPI_Allreduce/ = 1us\n", RT_E_INVAL,
                      "model.conf:2: [calls] MPI_Allreduce/: no algorithm '' for allreduce "
                      "(expected reduce_bcast, recursive_doubling, ring, rabenseifner, msa, msa2, "
                      "ompi_linear, ompi_reduce_bcast, ompi_ring, ompi_rabenseifner)");
    assert_load_error("[calls]\nMPI_Allreduce/ring = 1us\nMPI_Allreduce/ring=2us\n", RT_E_INVAL,
                      "model.conf:3: [calls] MPI_Allreduce/ring: duplicate key (first set on "
                      "line 2)");
    assert_load_error("[calls]\nMPI_Allreduce/ring = 1us\nMPI_Allreduce/rdb = 1us\n"
                      "MPI_Allreduce/recursive_doubling = 2us\n",
                      RT_E_INVAL,
                      "model.conf:4: [calls] MPI_Allreduce/recursive_doubling: duplicate key "
                      "(first set on line 3)");
    assert_load_error("[calls]\nMPI_Allreduce/ring =\n", RT_E_INVAL,
                      "model.conf:2: [calls] MPI_Allreduce/ring: missing value");
    assert_load_error("[calls]\nMPI_Allreduce/ring = 1us + n / 5\n", RT_E_INVAL,
                      "model.conf:2: [calls] MPI_Allreduce/ring: bad value ' 5': needs a unit "
                      "(B/s, KB/s, MB/s, GB/s, KiB/s, MiB/s, GiB/s, Mbit/s or Gbit/s)");
}

static void test_file_not_found(void **state)
{
    (void)state;
    rt_net_model m, before;
    rt_net_model_default(&m);
    before = m;
    rt_err err = {0};
    assert_int_equal(rt_net_model_load(&m, "/nonexistent/model.conf", &err), -RT_E_NOTFOUND);
    assert_string_equal(err.msg, "/nonexistent/model.conf: cannot open model file: No such file or "
                                 "directory");
    assert_memory_equal(&m, &before, sizeof m);
    /* A directory opens but does not read. */
    assert_int_equal(rt_net_model_load(&m, rt_test_tmp_path(""), &err), -RT_E_IO);
    assert_non_null(strstr(err.msg, ":1: read error: Is a directory"));
    assert_memory_equal(&m, &before, sizeof m);
    /* No rt_err at all is fine too. */
    assert_int_equal(rt_net_model_load(&m, "/nonexistent/model.conf", NULL), -RT_E_NOTFOUND);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_defaults),         cmocka_unit_test(test_example_is_defaults),
        cmocka_unit_test(test_partial_file),     cmocka_unit_test(test_write_defaults),
        cmocka_unit_test(test_write_round_trip), cmocka_unit_test(test_time_units),
        cmocka_unit_test(test_bandwidth_units),  cmocka_unit_test(test_size_units),
        cmocka_unit_test(test_parse_errors),     cmocka_unit_test(test_format_time),
        cmocka_unit_test(test_exact_arithmetic), cmocka_unit_test(test_gw_pipeline),
        cmocka_unit_test(test_best_gw_mtu),      cmocka_unit_test(test_file_errors),
        cmocka_unit_test(test_file_not_found),   cmocka_unit_test(test_protocol_rates),
        cmocka_unit_test(test_call_costs),       cmocka_unit_test(test_alg_costs),
    };
    return rt_test_main("net", tests, argc, argv);
}
