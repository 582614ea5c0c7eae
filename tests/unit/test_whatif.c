/* Unit tests for the what-if configurations (replayer/whatif/rt_whatif.h): the ALT grammar,
 * counts and scales, the checks and the option each message names, the set of
 * configurations, the engine settings and placements they give on a trace, and the replay
 * tables. Expected values by hand from rt_whatif.h, rt_map.h and the test traces. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "rt_test_main.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_whatif.h"

#define AN_SMALL RT_TEST_DATA "/an_small.csv"

static rt_sim_trace *load(const char *path)
{
    rt_reader *r;
    rt_sim_trace *t = NULL;
    rt_err err = {0};
    if (rt_reader_open(path, &r, &err) < 0)
        fail_msg("%s", err.msg);
    if (rt_sim_trace_load(r, &t, &err) < 0)
        fail_msg("%s", err.msg);
    rt_reader_close(r);
    return t;
}

static void assert_u32s(const uint32_t *got, const uint32_t *want, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        if (got[i] != want[i])
            fail_msg("index %u: got %u, want %u", i, got[i], want[i]);
}

/* ---- values ------------------------------------------------------------------------------ */

static void test_parse_count(void **state)
{
    (void)state;
    uint32_t n = 7;
    rt_err err;
    assert_int_equal(rt_whatif_parse_count("--nodes", "4", &n, &err), 0);
    assert_int_equal(n, 4);
    char max[32], over[32], want[256];
    snprintf(max, sizeof max, "%u", RT_MAX_RANKS);
    snprintf(over, sizeof over, "%u", RT_MAX_RANKS + 1);
    assert_int_equal(rt_whatif_parse_count("--nodes", max, &n, &err), 0);
    assert_int_equal(n, RT_MAX_RANKS);
    const char *bad[] = {"0", "-1", "", "4x", "x", "+4", " 4", over, "99999999999999999999"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        n = 7;
        assert_int_equal(rt_whatif_parse_count("--modules", bad[i], &n, &err), -RT_E_USAGE);
        snprintf(want, sizeof want,
                 "--modules: bad value '%s' (expected a whole number from 1 to %u)", bad[i],
                 RT_MAX_RANKS);
        assert_string_equal(err.msg, want);
        assert_int_equal(n, 7);
    }
}

static void test_parse_scale(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        uint64_t ppm;
    } good[] = {
        {"1", 1000000},   {"0", 0},        {"0.5", 500000},       {".25", 250000},
        {"2.", 2000000},  {"0.000001", 1}, {"1.234567", 1234567}, {"1000000", 1000000000000ULL},
        {"007", 7000000},
    };
    for (size_t i = 0; i < sizeof good / sizeof *good; i++) {
        uint64_t ppm = 42;
        assert_int_equal(rt_whatif_parse_scale(good[i].text, &ppm), 0);
        assert_int_equal(ppm, good[i].ppm);
    }
    const char *bad[] = {"",   ".",         "-1",        "1.5x",    "1e3",
                         " 1", "0.0000001", "1000000.1", "1000001", "123456789"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        uint64_t ppm = 42;
        assert_int_equal(rt_whatif_parse_scale(bad[i], &ppm), -RT_E_INVAL);
        assert_int_equal(ppm, 42);
    }
}

/* ---- the ALT grammar ---------------------------------------------------------------------- */

static void test_parse_alt(void **state)
{
    (void)state;
    rt_whatif_conf base = {.model = "base.conf", .eager = "1K", .free_wild = 1};
    rt_whatif_conf c = base;
    const char *label = "coll:all=msa+map:cyclic+nodes:8+modules:2+ranks-per-node:3+"
                        "compute-scale:0.5+contention:on+eager:0";
    char text[256];
    snprintf(text, sizeof text, "%s", label);
    rt_err err;
    assert_int_equal(rt_whatif_parse_alt(text, label, &c, &err), 0);
    assert_string_equal(c.label, label);
    assert_int_equal(c.alt, 1);
    assert_string_equal(c.coll, "all=msa");
    assert_string_equal(c.map, "cyclic");
    assert_string_equal(c.compute_scale, "0.5");
    assert_string_equal(c.contention, "on");
    assert_string_equal(c.eager, "0"); /* the ALT's value over the base's */
    assert_string_equal(c.model, "base.conf");
    assert_int_equal(c.nodes, 8);
    assert_int_equal(c.modules, 2);
    assert_int_equal(c.rpn, 3);
    assert_int_equal(c.free_wild, 1);
    c = base;
    snprintf(text, sizeof text, "model:m.conf");
    assert_int_equal(rt_whatif_parse_alt(text, "model:m.conf", &c, &err), 0);
    assert_string_equal(c.model, "m.conf");
    assert_string_equal(c.eager, "1K");
}

static void test_parse_alt_errors(void **state)
{
    (void)state;
    static const struct {
        const char *alt, *msg;
    } bad[] = {
        {"speed:2", "--compare: 'speed:2': unknown key 'speed' (expected coll, map, model, "
                    "eager, contention, compute-scale, nodes, modules or ranks-per-node)"},
        {"map", "--compare: 'map': bad item 'map' (expected KEY:VALUE)"},
        {"map:", "--compare: 'map:': bad item 'map:' (expected KEY:VALUE)"},
        {":x", "--compare: ':x': bad item ':x' (expected KEY:VALUE)"},
        {"map:block+", "--compare: 'map:block+': bad item '' (expected KEY:VALUE)"},
        {"coll:all=msa+nodes:0", "--compare: 'coll:all=msa+nodes:0': nodes: bad value '0' "
                                 "(expected a whole number from 1 to 16777216)"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        rt_whatif_conf c = {0};
        char text[256];
        rt_err err;
        snprintf(text, sizeof text, "%s", bad[i].alt);
        assert_int_equal(rt_whatif_parse_alt(text, bad[i].alt, &c, &err), -RT_E_USAGE);
        assert_string_equal(err.msg, bad[i].msg);
    }
}

/* ---- checks --------------------------------------------------------------------------------- */

static void test_check(void **state)
{
    (void)state;
    rt_whatif_conf c = {.coll = "allreduce=ring",
                        .compute_scale = "0.25",
                        .map = "random:7",
                        .eager = "64K",
                        .contention = "off"};
    uint8_t alg[RT_COLL_COUNT];
    memset(alg, RT_ALG_MPICH, sizeof alg);
    uint64_t ppm = 0;
    rt_err err;
    assert_int_equal(rt_whatif_check(&c, alg, &ppm, &err), 0);
    assert_int_equal(alg[RT_COLL_ALLREDUCE], RT_ALG_RING);
    assert_int_equal(alg[RT_COLL_BCAST], RT_ALG_MPICH); /* not named: as it was */
    assert_int_equal(ppm, 250000);
    rt_whatif_conf none = {0};
    ppm = 7;
    assert_int_equal(rt_whatif_check(&none, alg, &ppm, &err), 0);
    assert_int_equal(ppm, 7); /* no scale given */
}

/* Each bad value names its option, or its ALT and key; only the command line is a usage
 * error. */
static void test_check_errors(void **state)
{
    (void)state;
    uint8_t alg[RT_COLL_COUNT];
    uint64_t ppm;
    rt_err err;
    rt_whatif_conf c = {.contention = "maybe"};
    assert_int_equal(rt_whatif_check(&c, alg, &ppm, &err), -RT_E_USAGE);
    assert_string_equal(err.msg, "--contention: bad value 'maybe' (expected on or off)");
    c = (rt_whatif_conf){.compute_scale = "1.5x"};
    assert_int_equal(rt_whatif_check(&c, alg, &ppm, &err), -RT_E_USAGE);
    assert_string_equal(err.msg, "--compute-scale: bad value '1.5x' (expected a number from 0 "
                                 "to 1000000 with at most 6 decimals)");
    c = (rt_whatif_conf){.label = "contention:maybe", .alt = 1, .contention = "maybe"};
    assert_int_equal(rt_whatif_check(&c, alg, &ppm, &err), -RT_E_USAGE);
    assert_string_equal(err.msg, "--compare: 'contention:maybe': contention: bad value 'maybe' "
                                 "(expected on or off)");
    /* the collective parser's own "--coll: " is not said twice */
    c = (rt_whatif_conf){.coll = "all=nosuch"};
    assert_int_equal(rt_whatif_check(&c, alg, &ppm, &err), -RT_E_USAGE);
    assert_memory_equal(err.msg, "--coll: ", 8);
    assert_null(strstr(err.msg + 1, "--coll"));
    c = (rt_whatif_conf){.label = "coll:all=nosuch", .alt = 1, .coll = "all=nosuch"};
    assert_int_equal(rt_whatif_check(&c, alg, &ppm, &err), -RT_E_USAGE);
    assert_memory_equal(err.msg, "--compare: 'coll:all=nosuch': coll: ", 36);
    assert_null(strstr(err.msg, "--coll"));
    c = (rt_whatif_conf){.map = "random:x"};
    assert_int_equal(rt_whatif_check(&c, alg, &ppm, &err), -RT_E_USAGE);
    assert_memory_equal(err.msg, "--map: bad mapping 'random:x'", 29);
    c = (rt_whatif_conf){.eager = "12Q"};
    assert_int_equal(rt_whatif_check(&c, alg, &ppm, &err), -RT_E_USAGE);
    assert_memory_equal(err.msg, "--eager: ", 9);
    /* a model file that is not there: the loader's error, not a usage error */
    c = (rt_whatif_conf){.model = RT_TEST_DATA "/no-such-model.conf", .contention = "maybe"};
    assert_int_equal(rt_whatif_check(&c, alg, &ppm, &err), -RT_E_NOTFOUND);
    assert_non_null(strstr(err.msg, "no-such-model.conf"));
}

static void test_set(void **state)
{
    (void)state;
    rt_whatif_set s;
    rt_err err;
    rt_whatif_conf base = {0};
    assert_int_equal(rt_whatif_set_make(&s, &base, NULL, 0, &err), 0);
    assert_int_equal(s.n, 1);
    assert_string_equal(s.conf[0].label, "recorded");
    rt_whatif_set_free(&s);
    base.coll = "all=ring";
    const char *alts[] = {"map:cyclic", "eager:0+coll:all=msa"};
    assert_int_equal(rt_whatif_set_make(&s, &base, alts, 2, &err), 0);
    assert_int_equal(s.n, 3);
    assert_string_equal(s.conf[0].label, "baseline");
    assert_int_equal(s.conf[0].alt, 0);
    assert_string_equal(s.conf[1].label, "map:cyclic");
    assert_string_equal(s.conf[1].map, "cyclic");
    assert_string_equal(s.conf[1].coll, "all=ring"); /* on top of the base */
    assert_string_equal(s.conf[2].coll, "all=msa");
    assert_string_equal(s.conf[2].eager, "0");
    rt_whatif_set_free(&s);
    /* the base is checked before any ALT is read; the ALTs in order */
    base.coll = "all=nosuch";
    const char *bad[] = {"speed:2"};
    assert_int_equal(rt_whatif_set_make(&s, &base, bad, 1, &err), -RT_E_USAGE);
    assert_memory_equal(err.msg, "--coll: ", 8);
    rt_whatif_set_free(&s);
    base.coll = NULL;
    const char *second[] = {"map:block", "contention:x", "speed:2"};
    assert_int_equal(rt_whatif_set_make(&s, &base, second, 3, &err), -RT_E_USAGE);
    assert_string_equal(
        err.msg, "--compare: 'contention:x': contention: bad value 'x' (expected on or off)");
    rt_whatif_set_free(&s);
    const char *many[RT_WHATIF_MAX_ALTS + 1];
    for (unsigned i = 0; i <= RT_WHATIF_MAX_ALTS; i++)
        many[i] = "map:block";
    assert_int_equal(rt_whatif_set_make(&s, &base, many, RT_WHATIF_MAX_ALTS, &err), 0);
    assert_int_equal(s.n, RT_WHATIF_MAX_ALTS + 1);
    rt_whatif_set_free(&s);
    assert_int_equal(rt_whatif_set_make(&s, &base, many, RT_WHATIF_MAX_ALTS + 1, &err),
                     -RT_E_USAGE);
    assert_string_equal(err.msg, "--compare: at most 16 alternatives");
    rt_whatif_set_free(&s);
}

/* ---- on a trace ------------------------------------------------------------------------------ */

static void test_sim_config(void **state)
{
    (void)state;
    rt_whatif_conf c = {.model = RT_TEST_DATA "/share.conf",
                        .coll = "allreduce=ring",
                        .eager = "64K",
                        .contention = "on",
                        .compute_scale = "0.5",
                        .free_wild = 1};
    rt_sim_config cfg;
    rt_err err;
    assert_int_equal(rt_whatif_sim_config(&c, RT_ALG_MPICH, &cfg, &err), 0);
    assert_int_equal(cfg.model.cores, 2); /* share.conf: cores = 2, timeslice = 100us */
    assert_int_equal(cfg.model.timeslice_ps, 100000000ULL);
    assert_string_equal(cfg.model.source, RT_TEST_DATA "/share.conf");
    for (unsigned ct = 0; ct < RT_CT_COUNT; ct++)
        assert_int_equal(cfg.model.link[ct].eager, 65536);
    assert_int_equal(cfg.model.contention, 1);
    assert_int_equal(cfg.alg[RT_COLL_ALLREDUCE], RT_ALG_RING);
    assert_int_equal(cfg.alg[RT_COLL_BCAST], RT_ALG_MPICH);
    assert_int_equal(cfg.compute_scale_ppm, 500000);
    assert_int_equal(cfg.free_wildcards, 1);
    assert_null(cfg.node);
    assert_null(cfg.out_trace);
    assert_int_equal(cfg.no_fast_coll, 0);
    /* nothing given: the defaults */
    rt_whatif_conf none = {0};
    rt_sim_config def;
    rt_sim_config_default(&def);
    assert_int_equal(rt_whatif_sim_config(&none, RT_ALG_MPICH, &cfg, &err), 0);
    assert_memory_equal(&cfg, &def, sizeof cfg);
    /* beside Open MPI: its choice where c names none */
    assert_int_equal(rt_whatif_sim_config(&c, RT_ALG_OMPI, &cfg, &err), 0);
    assert_int_equal(cfg.alg[RT_COLL_ALLREDUCE], RT_ALG_RING);
    assert_int_equal(cfg.alg[RT_COLL_BCAST], RT_ALG_OMPI);
    c = (rt_whatif_conf){.contention = "x"};
    assert_int_equal(rt_whatif_sim_config(&c, RT_ALG_MPICH, &cfg, &err), -RT_E_USAGE);
}

/* tests/data/an_small.csv: ranks 0 and 1 on node 0, rank 2 on node 1 (module 0), rank 3 on
 * node 2 (module 1): the recorded shape is 3 nodes, 2 modules, up to 2 ranks per node. */
static void test_setup(void **state)
{
    (void)state;
    rt_sim_trace *t = load(AN_SMALL);
    rt_whatif_setup su;
    rt_err err;
    rt_whatif_conf c = {0};
    assert_int_equal(rt_whatif_setup_make(&c, t, &su, &err), 0);
    assert_int_equal(su.shape.nodes, 3);
    assert_int_equal(su.shape.modules, 2);
    assert_int_equal(su.shape.ranks_per_node, 2);
    assert_string_equal(su.map_name, "recorded");
    assert_null(su.cfg.node); /* the engine takes the trace's own */
    rt_whatif_setup_free(&su);
    /* 2 nodes: 2 ranks per node, modules min(2, 2); block by default on another shape */
    c = (rt_whatif_conf){.nodes = 2};
    assert_int_equal(rt_whatif_setup_make(&c, t, &su, &err), 0);
    assert_int_equal(su.shape.nodes, 2);
    assert_int_equal(su.shape.modules, 2);
    assert_int_equal(su.shape.ranks_per_node, 2);
    assert_string_equal(su.map_name, "block");
    assert_ptr_equal(su.cfg.node, su.node);
    assert_u32s(su.node, (const uint32_t[]){0, 0, 1, 1}, 4);
    assert_u32s(su.module, (const uint32_t[]){0, 0, 1, 1}, 4);
    rt_whatif_setup_free(&su);
    /* cyclic on the recorded shape: rank r on node r % 3; node n in module n * 2 / 3 */
    c = (rt_whatif_conf){.map = "cyclic"};
    assert_int_equal(rt_whatif_setup_make(&c, t, &su, &err), 0);
    assert_string_equal(su.map_name, "cyclic");
    assert_u32s(su.node, (const uint32_t[]){0, 1, 2, 0}, 4);
    assert_u32s(su.module, (const uint32_t[]){0, 0, 1, 0}, 4);
    rt_whatif_setup_free(&su);
    /* auto: the traffic is taken from the trace; every rank placed somewhere */
    c = (rt_whatif_conf){.map = "auto"};
    assert_int_equal(rt_whatif_setup_make(&c, t, &su, &err), 0);
    assert_string_equal(su.map_name, "auto");
    assert_non_null(su.cfg.node);
    for (unsigned r = 0; r < 4; r++)
        assert_true(su.node[r] < 3);
    rt_whatif_setup_free(&su);
    rt_sim_trace_free(t);
}

/* A shape that cannot hold the trace is a usage error, named by the ALT it came from. */
static void test_setup_errors(void **state)
{
    (void)state;
    rt_sim_trace *t = load(AN_SMALL);
    rt_whatif_setup su;
    rt_err err;
    const char *shape = "--nodes 1 --ranks-per-node 2 hold 2 ranks; the trace has 4";
    rt_whatif_conf c = {.nodes = 1, .rpn = 2};
    assert_int_equal(rt_whatif_setup_make(&c, t, &su, &err), -RT_E_USAGE);
    assert_string_equal(err.msg, shape);
    rt_whatif_setup_free(&su);
    c.alt = 1;
    c.label = "nodes:1+ranks-per-node:2";
    assert_int_equal(rt_whatif_setup_make(&c, t, &su, &err), -RT_E_USAGE);
    char want[256];
    snprintf(want, sizeof want, "--compare: 'nodes:1+ranks-per-node:2': %s", shape);
    assert_string_equal(err.msg, want);
    rt_whatif_setup_free(&su);
    /* a mapping file that is not there: its error, not a usage error */
    c = (rt_whatif_conf){.map = "file:" RT_TEST_DATA "/no-such-map.txt"};
    assert_true(rt_whatif_setup_make(&c, t, &su, &err) < 0);
    assert_int_not_equal(err.code, RT_E_USAGE);
    assert_non_null(strstr(err.msg, "no-such-map.txt"));
    rt_whatif_setup_free(&su);
    rt_sim_trace_free(t);
}

/* ---- tables --------------------------------------------------------------------------------- */

static rt_sim_result result_of(uint32_t n)
{
    rt_sim_result r;
    memset(&r, 0, sizeof r);
    r.nranks = n;
    r.ranks = calloc(n, sizeof *r.ranks);
    assert_non_null(r.ranks);
    return r;
}

static void test_rank_table(void **state)
{
    (void)state;
    rt_sim_result r = result_of(4);
    r.ranks[1] = (rt_sim_rank){.end_ps = 2500000, .mpi_ps = 1000000, .compute_ps = 3000000};
    rt_table *tb = rt_whatif_rank_table(&r, 0);
    assert_non_null(tb);
    assert_string_equal(rt_table_name(tb), "ranks");
    assert_int_equal(rt_table_nrows(tb), 4);
    assert_string_equal(rt_table_get(tb, 1, 0), "1");
    assert_string_equal(rt_table_get(tb, 1, 1), "2.500");
    assert_string_equal(rt_table_get(tb, 1, 2), "1.000");
    assert_string_equal(rt_table_get(tb, 1, 3), "3.000");
    assert_string_equal(rt_table_get(tb, 1, 4), "25.0");
    assert_string_equal(rt_table_get(tb, 0, 4), "0.0"); /* no time at all */
    rt_table_free(tb);
    rt_sim_result_free(&r);
    /* 100 ranks: the 16 that end last, latest first (rank r ends at (r * 37) % 100 us) */
    r = result_of(100);
    for (uint32_t i = 0; i < 100; i++)
        r.ranks[i].end_ps = (uint64_t)(i * 37 % 100) * 1000000;
    tb = rt_whatif_rank_table(&r, 0);
    assert_int_equal(rt_table_nrows(tb), 16);
    /* ends 99, 98, ... : rank 27 ends at 99 us (27 * 37 = 999), rank 54 at 98 (1998) */
    assert_string_equal(rt_table_get(tb, 0, 0), "27");
    assert_string_equal(rt_table_get(tb, 0, 1), "99.000");
    assert_string_equal(rt_table_get(tb, 1, 0), "54");
    assert_string_equal(rt_table_get(tb, 15, 1), "84.000");
    rt_table_free(tb);
    tb = rt_whatif_rank_table(&r, 1); /* all */
    assert_int_equal(rt_table_nrows(tb), 100);
    assert_string_equal(rt_table_get(tb, 99, 0), "99");
    rt_table_free(tb);
    rt_sim_result_free(&r);
}

static void test_compare_table(void **state)
{
    (void)state;
    rt_table *tb = rt_whatif_compare_table();
    assert_non_null(tb);
    assert_string_equal(rt_table_name(tb), "compare");
    assert_int_equal(rt_table_ncols(tb), 7);
    rt_sim_result base = result_of(4), fast = result_of(4), dead = result_of(4);
    base = (rt_sim_result){.completed = 1,
                           .time_ps = 8000000,
                           .mpi_ps = 2000000,
                           .nranks = 4,
                           .messages = 10,
                           .bytes = 1000,
                           .gw_messages = 3,
                           .ranks = base.ranks};
    fast = (rt_sim_result){.completed = 1, .time_ps = 2000000, .nranks = 4, .ranks = fast.ranks};
    dead.messages = 5;
    dead.gw_messages = 1;
    assert_int_equal(rt_whatif_compare_row(tb, "recorded", &base, base.time_ps), 0);
    assert_int_equal(rt_whatif_compare_row(tb, "coll:all=msa", &fast, base.time_ps), 0);
    assert_int_equal(rt_whatif_compare_row(tb, "eager:0", &dead, base.time_ps), 0);
    const char *want[3][7] = {
        {"recorded", "8.000", "0.500", "10", "1000", "3", "1.00x"},
        {"coll:all=msa", "2.000", "0.000", "0", "0", "0", "4.00x"},
        {"eager:0", "deadlock", "-", "5", "0", "1", "-"},
    };
    assert_int_equal(rt_table_nrows(tb), 3);
    for (unsigned row = 0; row < 3; row++)
        for (unsigned col = 0; col < 7; col++)
            assert_string_equal(rt_table_get(tb, row, col), want[row][col]);
    rt_table_free(tb);
    rt_sim_result_free(&base);
    rt_sim_result_free(&fast);
    rt_sim_result_free(&dead);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_count), cmocka_unit_test(test_parse_scale),
        cmocka_unit_test(test_parse_alt),   cmocka_unit_test(test_parse_alt_errors),
        cmocka_unit_test(test_check),       cmocka_unit_test(test_check_errors),
        cmocka_unit_test(test_set),         cmocka_unit_test(test_sim_config),
        cmocka_unit_test(test_setup),       cmocka_unit_test(test_setup_errors),
        cmocka_unit_test(test_rank_table),  cmocka_unit_test(test_compare_table),
    };
    return rt_test_main("whatif", tests, argc, argv);
}
