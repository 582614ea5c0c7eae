/*
 * Unit tests for the histogram configuration of histograms/: the PSP_HISTOGRAM_* environment
 * variables the live psmpi histogram reads (defaults, accepted values, one warning line per bad
 * value and its fallback, the warning buffer) and the command-line options of retrace hist
 * (--min, --max, --shift, --contype). Binning, the text report and merging are tested in
 * test_histograms.c.
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

#include "rt_event.h"
#include "rt_hist.h"
#include "rt_parse.h"

/* ---- environment configuration ------------------------------------------------------------ */

static void assert_default_config(const rt_hist_config *c)
{
    assert_int_equal(c->min, 64);
    assert_int_equal(c->max, 67108864);
    assert_int_equal(c->shift, 1);
    assert_int_equal(c->contype, -1);
    assert_string_equal(c->contype_name, "");
}

static void test_env_unset(void **state)
{
    (void)state;
    rt_hist_config c;
    char warnings[64] = "junk";
    assert_int_equal(rt_hist_config_from_env(&c, "PSP_HISTOGRAM", NULL, NULL, NULL, NULL, warnings,
                                             sizeof warnings),
                     0);
    assert_string_equal(warnings, "");
    assert_default_config(&c);
    /* Empty means unset (VAR= in a job script), not a bad value. */
    assert_int_equal(
        rt_hist_config_from_env(&c, "PSP_HISTOGRAM", "", "", "", "", warnings, sizeof warnings), 0);
    assert_default_config(&c);
    /* No buffer at all. */
    assert_int_equal(rt_hist_config_from_env(&c, NULL, NULL, NULL, "0", NULL, NULL, 0), 1);
}

static void test_env_good(void **state)
{
    (void)state;
    rt_hist_config c;
    char warnings[64];
    assert_int_equal(rt_hist_config_from_env(&c, "PSP_HISTOGRAM", "1", "16", "2", "shm", warnings,
                                             sizeof warnings),
                     0);
    assert_int_equal(c.min, 1);
    assert_int_equal(c.max, 16);
    assert_int_equal(c.shift, 2);
    assert_int_equal(c.contype, RT_CT_SHM);
    assert_string_equal(c.contype_name, "shm");
    /* The extremes that are still accepted. */
    assert_int_equal(rt_hist_config_from_env(&c, "PSP_HISTOGRAM", "4611686018427387904",
                                             "4611686018427387904", "63", NULL, warnings,
                                             sizeof warnings),
                     0);
    assert_int_equal(c.min, RT_HIST_LIMIT_CAP);
    assert_int_equal(c.max, RT_HIST_LIMIT_CAP);
    assert_int_equal(c.shift, 63);
    /* max = min is fine: one limit. */
    assert_int_equal(rt_hist_config_from_env(&c, "PSP_HISTOGRAM", "4096", "4096", NULL, NULL,
                                             warnings, sizeof warnings),
                     0);
}

/* A bad value (with good ones, or none, beside it): the one warning line it gives and the
 * configuration that results. */
struct env_case {
    const char *min, *max, *shift, *contype;
    const char *warning;
    uint64_t want_min, want_max;
    unsigned want_shift;
};

static const struct env_case bad_env[] = {
    {"abc", NULL, NULL, NULL,
     "PSP_HISTOGRAM_MIN=abc: not a number of bytes; using the default 64\n", 64, 67108864, 1},
    {"64x", NULL, NULL, NULL,
     "PSP_HISTOGRAM_MIN=64x: not a number of bytes; using the default 64\n", 64, 67108864, 1},
    {" 64", NULL, NULL, NULL,
     "PSP_HISTOGRAM_MIN= 64: not a number of bytes; using the default 64\n", 64, 67108864, 1},
    {"4K", NULL, NULL, NULL, "PSP_HISTOGRAM_MIN=4K: not a number of bytes; using the default 64\n",
     64, 67108864, 1},
    {"-5", NULL, NULL, NULL, "PSP_HISTOGRAM_MIN=-5: must not be negative; using the default 64\n",
     64, 67108864, 1},
    {"0", NULL, NULL, NULL, "PSP_HISTOGRAM_MIN=0: must be at least 1; using the default 64\n", 64,
     67108864, 1},
    {"4611686018427387905", NULL, NULL, NULL,
     "PSP_HISTOGRAM_MIN=4611686018427387905: must be at most 4611686018427387904; "
     "using the default 64\n",
     64, 67108864, 1},
    {NULL, "1e6", NULL, NULL,
     "PSP_HISTOGRAM_MAX=1e6: not a number of bytes; using the default 67108864\n", 64, 67108864, 1},
    {NULL, "-1", NULL, NULL,
     "PSP_HISTOGRAM_MAX=-1: must not be negative; using the default 67108864\n", 64, 67108864, 1},
    {NULL, "0", NULL, NULL, "PSP_HISTOGRAM_MAX=0: must be at least 1; using the default 67108864\n",
     64, 67108864, 1},
    {NULL, "9223372036854775808", NULL, NULL,
     "PSP_HISTOGRAM_MAX=9223372036854775808: must be at most 4611686018427387904; "
     "using the default 67108864\n",
     64, 67108864, 1},
    {NULL, "99999999999999999999999", NULL, NULL,
     "PSP_HISTOGRAM_MAX=99999999999999999999999: must be at most 4611686018427387904; "
     "using the default 67108864\n",
     64, 67108864, 1},
    {NULL, "32", NULL, NULL,
     "PSP_HISTOGRAM_MAX=32: less than the minimum 64; using the default 67108864\n", 64, 67108864,
     1},
    {"128", "100", NULL, NULL,
     "PSP_HISTOGRAM_MAX=100: less than the minimum 128; using the default 67108864\n", 128,
     67108864, 1},
    {"1073741824", "1048576", NULL, NULL,
     "PSP_HISTOGRAM_MAX=1048576: less than PSP_HISTOGRAM_MIN=1073741824, which is above "
     "the default maximum; using the defaults MIN=64 and MAX=67108864\n",
     64, 67108864, 1},
    {"1073741824", NULL, NULL, NULL,
     "PSP_HISTOGRAM_MIN=1073741824: more than the maximum 67108864; using the default 64\n", 64,
     67108864, 1},
    {NULL, NULL, "0", NULL, "PSP_HISTOGRAM_SHIFT=0: must be at least 1; using the default 1\n", 64,
     67108864, 1},
    {NULL, NULL, "64", NULL, "PSP_HISTOGRAM_SHIFT=64: must be at most 63; using the default 1\n",
     64, 67108864, 1},
    {NULL, NULL, "99999999999999999999999", NULL,
     "PSP_HISTOGRAM_SHIFT=99999999999999999999999: must be at most 63; using the default "
     "1\n",
     64, 67108864, 1},
    {NULL, NULL, "-2", NULL, "PSP_HISTOGRAM_SHIFT=-2: must not be negative; using the default 1\n",
     64, 67108864, 1},
    {NULL, NULL, "two", NULL, "PSP_HISTOGRAM_SHIFT=two: not a number; using the default 1\n", 64,
     67108864, 1},
    {NULL, NULL, "2 ", NULL, "PSP_HISTOGRAM_SHIFT=2 : not a number; using the default 1\n", 64,
     67108864, 1},
    {NULL, NULL, NULL, "infiniband",
     "PSP_HISTOGRAM_CONTYPE=infiniband: unknown connection type (expected loop, shm, net, "
     "gw, gateway or a psmpi network such as openib); counting all messages\n",
     64, 67108864, 1},
    /* control characters escaped: one warning is one line */
    {NULL, NULL, NULL, "gw\r",
     "PSP_HISTOGRAM_CONTYPE=gw\\r: unknown connection type (expected loop, shm, net, gw, "
     "gateway or a psmpi network such as openib); counting all messages\n",
     64, 67108864, 1},
    {NULL, NULL, NULL, "GW",
     "PSP_HISTOGRAM_CONTYPE=GW: unknown connection type (expected loop, shm, net, gw, "
     "gateway or a psmpi network such as openib); counting all messages\n",
     64, 67108864, 1},
    /* A bad value next to good ones: only the bad one falls back. */
    {"1", "abc", "2", NULL,
     "PSP_HISTOGRAM_MAX=abc: not a number of bytes; using the default 67108864\n", 1, 67108864, 2},
    {"128", "4096", "0", NULL, "PSP_HISTOGRAM_SHIFT=0: must be at least 1; using the default 1\n",
     128, 4096, 1},
};

/* Each bad value: exactly its warning, the fallback for its variable, a configuration that
 * rt_hist_init takes. */
static void test_env_bad_values(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof bad_env / sizeof *bad_env; i++) {
        const struct env_case *k = &bad_env[i];
        rt_hist_config c;
        rt_hist h;
        char warnings[512];
        int n = rt_hist_config_from_env(&c, "PSP_HISTOGRAM", k->min, k->max, k->shift, k->contype,
                                        warnings, sizeof warnings);
        if (n != 1 || strcmp(warnings, k->warning))
            fail_msg("case %zu: %d warnings:\n%s", i, n, warnings);
        assert_int_equal(c.min, k->want_min);
        assert_int_equal(c.max, k->want_max);
        assert_int_equal(c.shift, k->want_shift);
        assert_int_equal(c.contype, -1);
        assert_string_equal(c.contype_name, "");
        assert_int_equal(rt_hist_init(&h, &c), 0);
    }
}

static void test_env_several_warnings(void **state)
{
    (void)state;
    rt_hist_config c;
    char warnings[1024];
    /* One line per bad variable, named with the caller's prefix. */
    int n = rt_hist_config_from_env(&c, "RETRACE_HISTOGRAM", "0", "x", "0", "nope", warnings,
                                    sizeof warnings);
    assert_int_equal(n, 4);
    assert_string_equal(
        warnings,
        "RETRACE_HISTOGRAM_MIN=0: must be at least 1; using the default 64\n"
        "RETRACE_HISTOGRAM_MAX=x: not a number of bytes; using the default 67108864\n"
        "RETRACE_HISTOGRAM_SHIFT=0: must be at least 1; using the default 1\n"
        "RETRACE_HISTOGRAM_CONTYPE=nope: unknown connection type (expected loop, shm, net, gw, "
        "gateway or a psmpi network such as openib); counting all messages\n");
    assert_default_config(&c);
    /* MIN bad and MAX below the default MIN: two bad values, two warnings. */
    n = rt_hist_config_from_env(&c, "PSP_HISTOGRAM", "abc", "16", NULL, NULL, warnings,
                                sizeof warnings);
    assert_int_equal(n, 2);
    assert_string_equal(warnings,
                        "PSP_HISTOGRAM_MIN=abc: not a number of bytes; using the default 64\n"
                        "PSP_HISTOGRAM_MAX=16: less than the minimum 64; using the default "
                        "67108864\n");
    assert_default_config(&c);
}

static void test_env_warning_buffer(void **state)
{
    (void)state;
    rt_hist_config c;
    /* A short buffer: the count stays right and the text stays terminated. */
    char small[24];
    memset(small, 'x', sizeof small);
    int n = rt_hist_config_from_env(&c, "PSP_HISTOGRAM", "0", "0", "0", NULL, small, sizeof small);
    assert_int_equal(n, 3);
    assert_int_equal(strlen(small), sizeof small - 1);
    assert_memory_equal(small, "PSP_HISTOGRAM_MIN=0: mu", sizeof small);
    char one[1] = {'x'};
    assert_int_equal(rt_hist_config_from_env(&c, NULL, "0", NULL, NULL, NULL, one, 1), 1);
    assert_int_equal(one[0], '\0');

    /* A long or multi-line value is cut and kept on one line. */
    char value[200];
    memset(value, '7', sizeof value);
    value[0] = 'z';
    value[1] = '\n';
    value[sizeof value - 1] = '\0';
    char warnings[512];
    assert_int_equal(rt_hist_config_from_env(&c, "PSP_HISTOGRAM", NULL, NULL, value, NULL, warnings,
                                             sizeof warnings),
                     1);
    char want[512];
    snprintf(want, sizeof want,
             "PSP_HISTOGRAM_SHIFT=z\\n%.62s...: not a number; using the "
             "default 1\n",
             value + 2);
    assert_string_equal(warnings, want);
    assert_int_equal(strlen(want), strlen("PSP_HISTOGRAM_SHIFT=") + 65 + 3 +
                                       strlen(": not a number; using the default 1\n"));
}

/* ---- command-line configuration ----------------------------------------------------------- */

static void test_parse_size(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        uint64_t want;
    } good[] = {
        {"0", 0},
        {"64", 64},
        {"4096", 4096},
        {"4K", 4096},
        {"4k", 4096},
        {"4KiB", 4096},
        {"4kib", 4096},
        {"64M", 67108864},
        {"64m", 67108864},
        {"64MiB", 67108864},
        {"1G", UINT64_C(1073741824)},
        {"1GiB", UINT64_C(1073741824)},
        {"2T", UINT64_C(2) << 40},
        {"18446744073709551615", UINT64_MAX},
        {"16777215T", UINT64_C(16777215) << 40},
        {"1.5M", 1572864}, /* sizes may have a fraction (rt_parse.h) */
    };
    for (size_t i = 0; i < sizeof good / sizeof *good; i++) {
        uint64_t v = 12345;
        rt_err err = {0};
        if (rt_parse_size_opt("--max", good[i].text, &v, &err) != 0)
            fail_msg("'%s': %s", good[i].text, err.msg);
        assert_int_equal(v, good[i].want);
    }

    static const char *const bad[] = {"64X", "",    "K",    "-1",   " 64",    "64 ", "4KB",
                                      "4Kb", "4Ki", "1.5Q", "0x40", "64MiBs", "+64"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        uint64_t v = 12345;
        rt_err err = {0};
        char want[256];
        assert_int_equal(rt_parse_size_opt("--max", bad[i], &v, &err), -RT_E_INVAL);
        assert_int_equal(err.code, RT_E_INVAL);
        snprintf(want, sizeof want,
                 "--max: bad size '%s' (expected a number of bytes such as 4096, 4K, 64M)", bad[i]);
        assert_string_equal(err.msg, want);
        assert_int_equal(v, 12345);
    }

    uint64_t v = 7;
    rt_err err = {0};
    assert_int_equal(rt_parse_size_opt("--min", "18446744073709551616", &v, &err), -RT_E_INVAL);
    assert_string_equal(err.msg, "--min: size '18446744073709551616' is too large");
    assert_int_equal(rt_parse_size_opt("--min", "16777216T", &v, &err), -RT_E_INVAL);
    assert_string_equal(err.msg, "--min: size '16777216T' is too large");
    assert_int_equal(v, 7);
    /* No rt_err: the code alone. */
    assert_int_equal(rt_parse_size_opt("--min", "x", &v, NULL), -RT_E_INVAL);
}

static void test_config_from_args(void **state)
{
    (void)state;
    rt_hist_config c;
    rt_err err = {0};
    assert_int_equal(rt_hist_config_from_args(&c, NULL, NULL, NULL, NULL, &err), 0);
    assert_default_config(&c);
    assert_int_equal(rt_hist_config_from_args(&c, "1K", "64M", "2", "gateway", &err), 0);
    assert_int_equal(c.min, 1024);
    assert_int_equal(c.max, 67108864);
    assert_int_equal(c.shift, 2);
    assert_int_equal(c.contype, RT_CT_GW);
    assert_string_equal(c.contype_name, "gateway");

    static const struct {
        const char *min, *max, *shift, *contype, *msg;
    } bad[] = {
        {"64X", NULL, NULL, NULL,
         "--min: bad size '64X' (expected a number of bytes such as 4096, 4K, 64M)"},
        {NULL, "64X", NULL, NULL,
         "--max: bad size '64X' (expected a number of bytes such as 4096, 4K, 64M)"},
        {"0", NULL, NULL, NULL, "--min: must be at least 1 (got '0')"},
        {NULL, "8388608T", NULL, NULL,
         "--max: '8388608T' is too large (at most 4611686018427387904)"},
        {"8388608T", "8388608T", NULL, NULL,
         "--min: '8388608T' is too large (at most 4611686018427387904)"},
        {"4K", "1K", NULL, NULL, "--max (1024) is less than --min (4096)"},
        {NULL, "32", NULL, NULL, "--max (32) is less than the default minimum (64)"},
        {"1G", NULL, NULL, NULL, "--min (1073741824) is more than the default maximum (67108864)"},
        {NULL, NULL, "0", NULL, "--shift: bad value '0' (expected an integer from 1 to 63)"},
        {NULL, NULL, "64", NULL, "--shift: bad value '64' (expected an integer from 1 to 63)"},
        {NULL, NULL, "1K", NULL, "--shift: bad value '1K' (expected an integer from 1 to 63)"},
        {NULL, NULL, "-1", NULL, "--shift: bad value '-1' (expected an integer from 1 to 63)"},
        {NULL, NULL, NULL, "fast",
         "--contype: unknown connection type 'fast' (expected loop, shm, net, gw, gateway or "
         "a psmpi network such as openib)"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        rt_hist_config_default(&c);
        c.min = 99; /* must survive a failure */
        assert_int_equal(rt_hist_config_from_args(&c, bad[i].min, bad[i].max, bad[i].shift,
                                                  bad[i].contype, &err),
                         -RT_E_INVAL);
        assert_string_equal(err.msg, bad[i].msg);
        assert_int_equal(c.min, 99);
    }
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_env_unset),          cmocka_unit_test(test_env_good),
        cmocka_unit_test(test_env_bad_values),     cmocka_unit_test(test_env_several_warnings),
        cmocka_unit_test(test_env_warning_buffer), cmocka_unit_test(test_parse_size),
        cmocka_unit_test(test_config_from_args),
    };
    return rt_test_main("histograms_config", tests, argc, argv);
}
