/* Unit tests for histograms/: psmpi binning, the exact text report and merging. The
 * configuration (environment and command line) is tested in test_histograms_config.c. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "rt_test_main.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_event.h"
#include "rt_hist.h"

/* ---- helpers ------------------------------------------------------------------------------ */

static void init_with(rt_hist *h, uint64_t min, uint64_t max, unsigned shift)
{
    rt_hist_config c;
    rt_hist_config_default(&c);
    c.min = min;
    c.max = max;
    c.shift = shift;
    assert_int_equal(rt_hist_init(h, &c), 0);
}

/* The report as a string (caller frees). */
static char *render(const rt_hist *h)
{
    char *text = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&text, &size);
    assert_non_null(f);
    assert_int_equal(rt_hist_write_text(h, f), 0);
    assert_int_equal(fclose(f), 0);
    return text;
}

static void assert_report(const rt_hist *h, const char *expected)
{
    char *text = render(h);
    assert_string_equal(text, expected);
    free(text);
}

/* Bin by the definition: the first limit >= len, or the last bin. */
static unsigned reference_bin(const rt_hist *h, uint64_t len)
{
    unsigned i = 0;
    while (i < h->nlimits && len > h->limit[i])
        i++;
    return i;
}

/* ---- limits and bins ---------------------------------------------------------------------- */

static void test_default_limits(void **state)
{
    (void)state;
    rt_hist_config c;
    rt_hist h;
    rt_hist_config_default(&c);
    assert_int_equal(c.min, 64);
    assert_int_equal(c.max, 67108864);
    assert_int_equal(c.shift, 1);
    assert_int_equal(c.contype, -1);
    assert_int_equal(rt_hist_init(&h, &c), 0);
    assert_int_equal(h.nlimits, 21);
    assert_int_equal(rt_hist_nbins(&h), 22);
    for (unsigned i = 0; i < 21; i++)
        assert_int_equal(h.limit[i], UINT64_C(64) << i);
    assert_int_equal(h.limit[20], 67108864);
    for (unsigned i = 0; i < RT_HIST_MAX_BINS; i++)
        assert_int_equal(h.count[i], 0);
}

static void test_small_limits(void **state)
{
    (void)state;
    rt_hist h;
    init_with(&h, 1, 16, 2);
    assert_int_equal(h.nlimits, 3);
    assert_int_equal(rt_hist_nbins(&h), 4);
    assert_int_equal(h.limit[0], 1);
    assert_int_equal(h.limit[1], 4);
    assert_int_equal(h.limit[2], 16);

    /* max between two limits: the last limit is the largest one <= max. */
    init_with(&h, 64, 4095, 2);
    assert_int_equal(h.nlimits, 3);
    assert_int_equal(h.limit[2], 1024);
    /* min = max: one limit, two bins. */
    init_with(&h, 100, 100, 5);
    assert_int_equal(h.nlimits, 1);
    assert_int_equal(rt_hist_bin(&h, 100), 0);
    assert_int_equal(rt_hist_bin(&h, 101), 1);
}

static void test_extreme_limits(void **state)
{
    (void)state;
    rt_hist h;
    /* The most limits the cap allows: 2^0 .. 2^62. */
    init_with(&h, 1, RT_HIST_LIMIT_CAP, 1);
    assert_int_equal(h.nlimits, 63);
    assert_int_equal(h.limit[62], RT_HIST_LIMIT_CAP);
    assert_int_equal(rt_hist_bin(&h, UINT64_MAX), 63);
    assert_int_equal(rt_hist_bin(&h, RT_HIST_LIMIT_CAP), 62);
    assert_int_equal(rt_hist_bin(&h, RT_HIST_LIMIT_CAP + 1), 63);
    /* The largest shift: the second limit would overflow without the max >> shift test. */
    init_with(&h, 3, RT_HIST_LIMIT_CAP, 63);
    assert_int_equal(h.nlimits, 1);
    init_with(&h, RT_HIST_LIMIT_CAP, RT_HIST_LIMIT_CAP, 1);
    assert_int_equal(h.nlimits, 1);
    assert_int_equal(rt_hist_bin(&h, 0), 0);
    assert_int_equal(rt_hist_bin(&h, UINT64_MAX), 1);
}

static void test_bin_edges(void **state)
{
    (void)state;
    rt_hist h;
    init_with(&h, 64, 67108864, 1);
    assert_int_equal(rt_hist_bin(&h, 0), 0);
    assert_int_equal(rt_hist_bin(&h, 1), 0);
    assert_int_equal(rt_hist_bin(&h, 64), 0);
    assert_int_equal(rt_hist_bin(&h, 65), 1);
    assert_int_equal(rt_hist_bin(&h, 128), 1);
    assert_int_equal(rt_hist_bin(&h, 129), 2);
    assert_int_equal(rt_hist_bin(&h, 67108864), 20);
    assert_int_equal(rt_hist_bin(&h, 67108865), 21);
    assert_int_equal(rt_hist_bin(&h, UINT64_MAX), 21);

    init_with(&h, 1, 16, 2);
    assert_int_equal(rt_hist_bin(&h, 0), 0);
    assert_int_equal(rt_hist_bin(&h, 1), 0);
    assert_int_equal(rt_hist_bin(&h, 2), 1);
    assert_int_equal(rt_hist_bin(&h, 4), 1);
    assert_int_equal(rt_hist_bin(&h, 5), 2);
    assert_int_equal(rt_hist_bin(&h, 16), 2);
    assert_int_equal(rt_hist_bin(&h, 17), 3);
}

/* The bit-length shortcut against the definition, for minimums that are and are not powers
 * of two, every shift, at every limit and its neighbours and at every power of two. */
static void test_bin_matches_reference(void **state)
{
    (void)state;
    static const uint64_t mins[] = {
        1, 2, 3, 5, 7, 64, 100, 1000, 4097, UINT64_C(1) << 40, (UINT64_C(1) << 61) + 1};
    static const uint64_t maxs[] = {16, 4096, 67108864, 1000000007, RT_HIST_LIMIT_CAP};
    rt_hist h;
    unsigned checked = 0;
    for (size_t a = 0; a < sizeof mins / sizeof *mins; a++) {
        for (size_t b = 0; b < sizeof maxs / sizeof *maxs; b++) {
            if (maxs[b] < mins[a])
                continue;
            for (unsigned s = 1; s <= RT_HIST_MAX_SHIFT; s++) {
                init_with(&h, mins[a], maxs[b], s);
                uint64_t probes[3 * 64 + 3 * 64 + 2];
                size_t n = 0;
                probes[n++] = 0;
                probes[n++] = UINT64_MAX;
                for (unsigned i = 0; i < h.nlimits; i++) {
                    probes[n++] = h.limit[i] - 1;
                    probes[n++] = h.limit[i];
                    probes[n++] = h.limit[i] + 1;
                }
                for (unsigned bit = 0; bit < 64; bit++) {
                    uint64_t p = UINT64_C(1) << bit;
                    probes[n++] = p - 1;
                    probes[n++] = p;
                    probes[n++] = p + 1;
                }
                for (size_t i = 0; i < n; i++) {
                    unsigned want = reference_bin(&h, probes[i]);
                    if (rt_hist_bin(&h, probes[i]) != want)
                        fail_msg("min %llu max %llu shift %u len %llu: bin %u, want %u",
                                 (unsigned long long)mins[a], (unsigned long long)maxs[b], s,
                                 (unsigned long long)probes[i], rt_hist_bin(&h, probes[i]), want);
                    checked++;
                }
            }
        }
    }
    assert_true(checked > 10000);
}

static void test_count_and_filter(void **state)
{
    (void)state;
    rt_hist h;
    init_with(&h, 1, 16, 2);
    rt_hist_count(&h, 0, RT_CT_SHM);
    rt_hist_count(&h, 3, RT_CT_NET);
    rt_hist_count(&h, 100, RT_CT_GW);
    rt_hist_count(&h, 100, RT_CT_LOOP);
    assert_int_equal(h.count[0], 1);
    assert_int_equal(h.count[1], 1);
    assert_int_equal(h.count[2], 0);
    assert_int_equal(h.count[3], 2);

    rt_hist_config c;
    rt_hist_config_default(&c);
    c.contype = RT_CT_GW;
    strcpy(c.contype_name, "gateway");
    assert_int_equal(rt_hist_init(&h, &c), 0);
    rt_hist_count(&h, 10, RT_CT_GW);
    rt_hist_count(&h, 10, RT_CT_NET);
    rt_hist_count(&h, 10, RT_CT_SHM);
    rt_hist_count(&h, 1000, RT_CT_GW);
    rt_hist_count(&h, 1000, RT_CT_LOOP);
    assert_int_equal(h.count[0], 1);
    assert_int_equal(h.count[rt_hist_bin(&h, 1000)], 1);
    uint64_t total = 0;
    for (unsigned i = 0; i < rt_hist_nbins(&h); i++)
        total += h.count[i];
    assert_int_equal(total, 2);
}

static void test_init_rejects(void **state)
{
    (void)state;
    rt_hist_config c;
    rt_hist h;
    rt_err err = {0};
    memset(&h, 0x5a, sizeof h);

    rt_hist_config_default(&c);
    c.min = 0;
    assert_int_equal(rt_hist_init(&h, &c), -RT_E_INVAL);
    assert_int_equal(rt_hist_config_check(&c, &err), -RT_E_INVAL);
    assert_string_equal(err.msg, "histogram minimum must be at least 1");
    rt_hist_config_default(&c);
    c.shift = 0;
    assert_int_equal(rt_hist_init(&h, &c), -RT_E_INVAL);
    c.shift = 64;
    assert_int_equal(rt_hist_init(&h, &c), -RT_E_INVAL);
    rt_hist_config_default(&c);
    c.max = 63;
    assert_int_equal(rt_hist_init(&h, &c), -RT_E_INVAL);
    c.max = RT_HIST_LIMIT_CAP + 1;
    assert_int_equal(rt_hist_init(&h, &c), -RT_E_INVAL);
    rt_hist_config_default(&c);
    c.contype = RT_CT_COUNT;
    assert_int_equal(rt_hist_init(&h, &c), -RT_E_INVAL);
    c.contype = RT_CT_NONE;
    assert_int_equal(rt_hist_init(&h, &c), -RT_E_INVAL);
    /* A failed init leaves h as it was. */
    assert_int_equal(h.nlimits, 0x5a5a5a5au);
}

/* ---- text report -------------------------------------------------------------------------- */

static void test_text_defaults(void **state)
{
    (void)state;
    rt_hist h;
    rt_hist_config c;
    rt_hist_config_default(&c);
    assert_int_equal(rt_hist_init(&h, &c), 0);
    for (int i = 0; i < 353913; i++)
        rt_hist_count(&h, (uint64_t)(i % 65), RT_CT_SHM);
    rt_hist_count(&h, 65, RT_CT_NET);
    rt_hist_count(&h, 4096, RT_CT_NET);
    rt_hist_count(&h, 4096, RT_CT_GW);
    rt_hist_count(&h, 67108864, RT_CT_GW);
    rt_hist_count(&h, 67108865, RT_CT_GW);
    h.count[21] += UINT64_C(10000000000); /* counts are 64-bit */
    assert_report(&h, "      bin  freq\n"
                      "       64  353913\n"
                      "      128  1\n"
                      "      256  0\n"
                      "      512  0\n"
                      "     1024  0\n"
                      "     2048  0\n"
                      "     4096  2\n"
                      "     8192  0\n"
                      "    16384  0\n"
                      "    32768  0\n"
                      "    65536  0\n"
                      "   131072  0\n"
                      "   262144  0\n"
                      "   524288  0\n"
                      "  1048576  0\n"
                      "  2097152  0\n"
                      "  4194304  0\n"
                      "  8388608  0\n"
                      " 16777216  0\n"
                      " 33554432  0\n"
                      " 67108864  1\n"
                      ">67108864  10000000001\n");
}

static void test_text_small(void **state)
{
    (void)state;
    rt_hist h;
    init_with(&h, 1, 16, 2);
    rt_hist_count(&h, 0, RT_CT_LOOP);
    rt_hist_count(&h, 1, RT_CT_LOOP);
    rt_hist_count(&h, 4, RT_CT_LOOP);
    rt_hist_count(&h, 17, RT_CT_LOOP);
    rt_hist_count(&h, 1 << 20, RT_CT_LOOP);
    assert_report(&h, " bin  freq\n"
                      "  1  2\n"
                      "  4  1\n"
                      " 16  0\n"
                      ">16  2\n");
    /* D narrower than "bin": psmpi's printf lets the header overflow; so do we. */
    init_with(&h, 1, 1, 1);
    assert_report(&h, " bin  freq\n"
                      " 1  0\n"
                      ">1  0\n");
    /* A power of ten as the last limit: D counts its digits exactly. */
    init_with(&h, 10, 1000, 63);
    rt_hist_count(&h, 11, RT_CT_LOOP);
    assert_report(&h, " bin  freq\n"
                      " 10  0\n"
                      ">10  1\n");
    init_with(&h, 125, 1000, 3);
    assert_report(&h, "  bin  freq\n"
                      "  125  0\n"
                      " 1000  0\n"
                      ">1000  0\n");
}

static void test_text_contype(void **state)
{
    (void)state;
    rt_hist_config c;
    rt_hist h;
    char warnings[256];
    assert_int_equal(rt_hist_config_from_env(&c, "PSP_HISTOGRAM", "64", "4096", "2", "gw", warnings,
                                             sizeof warnings),
                     0);
    assert_string_equal(warnings, "");
    assert_int_equal(c.contype, RT_CT_GW);
    assert_int_equal(rt_hist_init(&h, &c), 0);
    for (int i = 0; i < 12694; i++)
        rt_hist_count(&h, 8, RT_CT_GW);
    for (int i = 0; i < 4; i++)
        rt_hist_count(&h, 1000, RT_CT_GW);
    for (int i = 0; i < 100; i++) {
        rt_hist_count(&h, 8, RT_CT_SHM);
        rt_hist_count(&h, 1000, RT_CT_NET);
        rt_hist_count(&h, 5000, RT_CT_LOOP);
    }
    assert_report(&h, "  bin  freq (gw)\n"
                      "   64  12694\n"
                      "  256  0\n"
                      " 1024  4\n"
                      " 4096  0\n"
                      ">4096  0\n");

    /* The name as typed, whatever it maps to. */
    assert_int_equal(rt_hist_config_from_env(&c, "RETRACE_HISTOGRAM", NULL, "64", NULL, "gateway",
                                             warnings, sizeof warnings),
                     0);
    assert_string_equal(c.contype_name, "gateway");
    assert_int_equal(rt_hist_init(&h, &c), 0);
    rt_hist_count(&h, 1, RT_CT_GW);
    assert_report(&h, " bin  freq (gateway)\n"
                      " 64  1\n"
                      ">64  0\n");
    assert_int_equal(
        rt_hist_config_from_env(&c, NULL, NULL, "64", NULL, "openib", warnings, sizeof warnings),
        0);
    assert_int_equal(c.contype, RT_CT_NET);
    assert_int_equal(rt_hist_init(&h, &c), 0);
    assert_report(&h, " bin  freq (openib)\n"
                      " 64  0\n"
                      ">64  0\n");

    /* A config built by hand without a name shows ours. */
    rt_hist_config_default(&c);
    c.max = 64;
    c.contype = RT_CT_SHM;
    assert_int_equal(rt_hist_init(&h, &c), 0);
    assert_report(&h, " bin  freq (shm)\n"
                      " 64  0\n"
                      ">64  0\n");
}

static void test_text_errors(void **state)
{
    (void)state;
    rt_hist h;
    init_with(&h, 64, 67108864, 1);
    char buf[16] = "";
    FILE *f = fmemopen(buf, sizeof buf, "r"); /* writing to it fails */
    assert_non_null(f);
    assert_int_equal(rt_hist_write_text(&h, f), -RT_E_IO);
    fclose(f);

    rt_hist empty;
    memset(&empty, 0, sizeof empty);
    assert_int_equal(rt_hist_write_text(&empty, stdout), -RT_E_INVAL);
}

/* ---- merge -------------------------------------------------------------------------------- */

static void test_merge(void **state)
{
    (void)state;
    rt_hist a, b, other;
    init_with(&a, 1, 16, 2);
    init_with(&b, 1, 16, 2);
    rt_hist_count(&a, 0, RT_CT_SHM);
    rt_hist_count(&a, 20, RT_CT_SHM);
    rt_hist_count(&b, 0, RT_CT_SHM);
    rt_hist_count(&b, 3, RT_CT_SHM);
    b.count[3] += UINT64_C(1) << 40;
    assert_int_equal(rt_hist_merge(&a, &b), 0);
    assert_int_equal(a.count[0], 2);
    assert_int_equal(a.count[1], 1);
    assert_int_equal(a.count[2], 0);
    assert_int_equal(a.count[3], (UINT64_C(1) << 40) + 1);
    assert_int_equal(b.count[0], 1); /* src untouched */
    assert_report(&a, " bin  freq\n"
                      "  1  2\n"
                      "  4  1\n"
                      " 16  0\n"
                      ">16  1099511627777\n");

    /* Different limits or filter: refused, dst untouched. */
    init_with(&other, 1, 64, 2);
    rt_hist_count(&other, 0, RT_CT_SHM);
    assert_int_equal(rt_hist_merge(&a, &other), -RT_E_INVAL);
    init_with(&other, 2, 16, 2);
    assert_int_equal(rt_hist_merge(&a, &other), -RT_E_INVAL);
    rt_hist_config c = other.cfg;
    c.min = 1;
    c.contype = RT_CT_GW;
    assert_int_equal(rt_hist_init(&other, &c), 0);
    assert_int_equal(rt_hist_merge(&a, &other), -RT_E_INVAL);
    assert_int_equal(a.count[0], 2);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_default_limits),
        cmocka_unit_test(test_small_limits),
        cmocka_unit_test(test_extreme_limits),
        cmocka_unit_test(test_bin_edges),
        cmocka_unit_test(test_bin_matches_reference),
        cmocka_unit_test(test_count_and_filter),
        cmocka_unit_test(test_init_rejects),
        cmocka_unit_test(test_text_defaults),
        cmocka_unit_test(test_text_small),
        cmocka_unit_test(test_text_contype),
        cmocka_unit_test(test_text_errors),
        cmocka_unit_test(test_merge),
    };
    return rt_test_main("histograms", tests, argc, argv);
}
