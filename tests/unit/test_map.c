/* Unit tests for rank placement (replayer/map/rt_map.h): the spec as text, machine shapes, every
 * placement on small cases with hand-computed results, every error message, and auto on a
 * million ranks. */
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
#include <time.h>

#include "rt_map.h"
#include "rt_test.h"
#include "rt_trace.h"

#define N_OF(a) (sizeof(a) / sizeof *(a))

/* ---- helpers ------------------------------------------------------------------------------ */

/* Definitions for n ranks with the given recorded placement (NULL: all on node 0, module 0). */
static rt_defs defs_of(uint32_t n, const uint32_t *node, const uint32_t *module)
{
    rt_defs d;
    rt_err err = {0};
    assert_int_equal(rt_defs_init(&d, n, &err), 0);
    for (uint32_t r = 0; r < n; r++) {
        d.node[r] = node ? node[r] : 0;
        d.module[r] = module ? module[r] : 0;
    }
    return d;
}

static rt_map_spec spec_of(const char *text)
{
    rt_map_spec s;
    rt_err err = {0};
    if (rt_map_parse(text, &s, &err) < 0)
        fail_msg("%s", err.msg);
    return s;
}

static void assert_u32s(const uint32_t *got, const uint32_t *want, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        if (got[i] != want[i])
            fail_msg("index %u: got %u, want %u", i, got[i], want[i]);
}

/* Places n ranks by text on shape; fails the test on error. */
static void place(const char *text, rt_map_shape shape, const rt_defs *d, const rt_map_edge *e,
                  size_t ne, uint32_t *node, uint32_t *module)
{
    rt_map_spec spec = spec_of(text);
    rt_err err = {0};
    if (rt_map_place(&spec, &shape, d, e, ne, node, module, &err) < 0)
        fail_msg("%s", err.msg);
}

/* Places and checks it fails with code and message, leaving node and module untouched. */
static void assert_place_error(const rt_map_spec *spec, rt_map_shape shape, const rt_defs *d,
                               const rt_map_edge *e, size_t ne, int code, const char *expected)
{
    uint32_t n = d->nranks;
    uint32_t *node = malloc(n * sizeof *node), *module = malloc(n * sizeof *module);
    assert_non_null(node);
    assert_non_null(module);
    memset(node, 0x5a, n * sizeof *node);
    memset(module, 0x5a, n * sizeof *module);
    rt_err err = {0};
    assert_int_equal(rt_map_place(spec, &shape, d, e, ne, node, module, &err), -code);
    assert_string_equal(err.msg, expected);
    for (uint32_t r = 0; r < n; r++) {
        assert_int_equal(node[r], 0x5a5a5a5a);
        assert_int_equal(module[r], 0x5a5a5a5a);
    }
    free(node);
    free(module);
}

static void cost(const rt_map_edge *e, size_t ne, const uint32_t *node, const uint32_t *module,
                 uint64_t gw, uint64_t net)
{
    uint64_t g, n;
    rt_map_cost(e, ne, node, module, &g, &n);
    assert_int_equal(g, gw);
    assert_int_equal(n, net);
}

/* ---- the spec as text --------------------------------------------------------------------- */

static void test_parse_format(void **state)
{
    (void)state;
    static const char *const texts[] = {
        "recorded",
        "block",
        "cyclic",
        "auto",
        "random:0",
        "random:7",
        "random:18446744073709551615",
        "file:map.txt",
        "file:/a b/c:d.txt",
    };
    static const rt_map_kind kinds[] = {
        RT_MAP_RECORDED, RT_MAP_BLOCK,  RT_MAP_CYCLIC, RT_MAP_AUTO, RT_MAP_RANDOM,
        RT_MAP_RANDOM,   RT_MAP_RANDOM, RT_MAP_FILE,   RT_MAP_FILE,
    };
    for (size_t i = 0; i < N_OF(texts); i++) {
        rt_map_spec s = spec_of(texts[i]);
        char buf[RT_MAP_PATH_MAX + 16];
        assert_int_equal(s.kind, kinds[i]);
        rt_map_format(&s, buf, sizeof buf);
        assert_string_equal(buf, texts[i]);
    }
    assert_int_equal(spec_of("random:7").seed, 7);
    assert_int_equal(spec_of("random:18446744073709551615").seed, UINT64_MAX);
    assert_string_equal(spec_of("file:/a b/c:d.txt").path, "/a b/c:d.txt");
    assert_int_equal(spec_of("random:007").seed, 7);

    char small[8];
    rt_map_spec s = spec_of("file:a-long-name.txt");
    rt_map_format(&s, small, sizeof small);
    assert_string_equal(small, "file:a-");
}

static void test_parse_errors(void **state)
{
    (void)state;
    static const char *const cases[][2] = {
        {"", "bad mapping '': expected recorded, block, cyclic, random:SEED, file:FILE or auto"},
        {"Block",
         "bad mapping 'Block': expected recorded, block, cyclic, random:SEED, file:FILE or auto"},
        {"blocks",
         "bad mapping 'blocks': expected recorded, block, cyclic, random:SEED, file:FILE or auto"},
        {"random", "bad mapping 'random': random needs a seed (random:SEED)"},
        {"random:", "bad mapping 'random:': SEED must be a decimal number"},
        {"random:x", "bad mapping 'random:x': SEED must be a decimal number"},
        {"random:-1", "bad mapping 'random:-1': SEED must be a decimal number"},
        {"random: 1", "bad mapping 'random: 1': SEED must be a decimal number"},
        {"random:0x10", "bad mapping 'random:0x10': SEED must be a decimal number"},
        {"random:18446744073709551616",
         "bad mapping 'random:18446744073709551616': SEED must be at most 18446744073709551615"},
        {"file", "bad mapping 'file': file needs a path (file:FILE)"},
        {"file:", "bad mapping 'file:': file needs a path (file:FILE)"},
        {"block:3", "bad mapping 'block:3': block takes no argument"},
        {"auto:", "bad mapping 'auto:': auto takes no argument"},
        {"recorded:x", "bad mapping 'recorded:x': recorded takes no argument"},
        {"cyclic:2", "bad mapping 'cyclic:2': cyclic takes no argument"},
    };
    for (size_t i = 0; i < N_OF(cases); i++) {
        rt_map_spec s, before;
        memset(&s, 0x5a, sizeof s);
        before = s;
        rt_err err = {0};
        assert_int_equal(rt_map_parse(cases[i][0], &s, &err), -RT_E_INVAL);
        assert_string_equal(err.msg, cases[i][1]);
        assert_memory_equal(&s, &before, sizeof s);
    }

    char *text = malloc(RT_MAP_PATH_MAX + 8);
    assert_non_null(text);
    strcpy(text, "file:");
    memset(text + 5, 'a', RT_MAP_PATH_MAX);
    text[5 + RT_MAP_PATH_MAX] = '\0';
    rt_map_spec s;
    rt_err err = {0};
    assert_int_equal(rt_map_parse(text, &s, &err), -RT_E_INVAL);
    assert_string_equal(err.msg, "bad mapping 'file:aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa...': "
                                 "FILE is longer than 4095 bytes");
    text[5 + RT_MAP_PATH_MAX - 1] = '\0'; /* 4095 bytes: the longest path that fits */
    assert_int_equal(rt_map_parse(text, &s, &err), 0);
    assert_int_equal(strlen(s.path), RT_MAP_PATH_MAX - 1);
    free(text);
}

/* ---- shapes ------------------------------------------------------------------------------- */

static void test_shape_recorded(void **state)
{
    (void)state;
    /* Ids as a real trace has them: a node's first world rank, modules from the environment. */
    static const uint32_t node[] = {20, 10, 10, 20, 30, 20}, module[] = {7, 5, 5, 7, 7, 7};
    rt_defs d = defs_of(6, node, module);
    rt_map_shape s;
    rt_map_shape_recorded(&d, &s);
    assert_int_equal(s.nodes, 3);
    assert_int_equal(s.modules, 2);
    assert_int_equal(s.ranks_per_node, 3);
    rt_defs_free(&d);

    d = defs_of(5, NULL, NULL);
    rt_map_shape_recorded(&d, &s);
    assert_int_equal(s.nodes, 1);
    assert_int_equal(s.modules, 1);
    assert_int_equal(s.ranks_per_node, 5);
    rt_defs_free(&d);
}

static void test_shape_complete(void **state)
{
    (void)state;
    const rt_map_shape rec = {4, 2, 2};
    static const struct {
        rt_map_shape given, want;
    } ok[] = {
        {{0, 0, 0}, {4, 2, 2}},   /* nothing given: the recorded shape */
        {{8, 0, 0}, {8, 2, 1}},   /* ranks per node from nodes */
        {{0, 0, 4}, {2, 2, 4}},   /* nodes from ranks per node */
        {{0, 0, 3}, {3, 2, 3}},   /* ceil(8 / 3) nodes, the last one not full */
        {{1, 0, 0}, {1, 1, 8}},   /* modules capped by nodes */
        {{0, 4, 0}, {4, 4, 2}},   /* modules given */
        {{16, 0, 0}, {16, 2, 1}}, /* more nodes than ranks */
        {{3, 3, 5}, {3, 3, 5}},   /* everything given */
    };
    for (size_t i = 0; i < N_OF(ok); i++) {
        rt_map_shape out;
        rt_err err = {0};
        if (rt_map_shape_complete(&ok[i].given, &rec, 8, &out, &err) < 0)
            fail_msg("case %zu: %s", i, err.msg);
        assert_int_equal(out.nodes, ok[i].want.nodes);
        assert_int_equal(out.modules, ok[i].want.modules);
        assert_int_equal(out.ranks_per_node, ok[i].want.ranks_per_node);
    }

    static const struct {
        rt_map_shape given, rec;
        const char *msg;
    } bad[] = {
        {{2, 0, 3}, {4, 2, 2}, "--nodes 2 --ranks-per-node 3 hold 6 ranks; the trace has 8"},
        {{2, 4, 0}, {4, 2, 2}, "--modules 4 exceeds --nodes 2"},
        {{0, 5, 0}, {4, 2, 2}, "--modules 5 exceeds --nodes 4"},
        {{0, 0, 0}, {2, 1, 2}, "--nodes 2 --ranks-per-node 2 hold 4 ranks; the trace has 8"},
        {{0, 0, 0}, {0, 0, 0}, "--nodes must be at least 1"},
        {{2, 0, 2}, {4, 2, 2}, "--nodes 2 --ranks-per-node 2 hold 4 ranks; the trace has 8"},
    };
    for (size_t i = 0; i < N_OF(bad); i++) {
        rt_map_shape out = {77, 77, 77};
        rt_err err = {0};
        int rc = rt_map_shape_complete(&bad[i].given, &bad[i].rec, 8, &out, &err);
        assert_int_equal(rc, -RT_E_INVAL);
        assert_string_equal(err.msg, bad[i].msg);
        assert_int_equal(out.nodes, 77);
    }
}

/* ---- fixed placements --------------------------------------------------------------------- */

static void test_block_cyclic(void **state)
{
    (void)state;
    rt_defs d = defs_of(8, NULL, NULL);
    uint32_t node[8], module[8];

    place("block", (rt_map_shape){4, 2, 2}, &d, NULL, 0, node, module);
    assert_u32s(node, (const uint32_t[]){0, 0, 1, 1, 2, 2, 3, 3}, 8);
    assert_u32s(module, (const uint32_t[]){0, 0, 0, 0, 1, 1, 1, 1}, 8);

    place("cyclic", (rt_map_shape){4, 2, 2}, &d, NULL, 0, node, module);
    assert_u32s(node, (const uint32_t[]){0, 1, 2, 3, 0, 1, 2, 3}, 8);
    assert_u32s(module, (const uint32_t[]){0, 0, 1, 1, 0, 0, 1, 1}, 8);

    /* 3 nodes on 2 modules: 0, 0, 1 (floor(n * 2 / 3)); the last node not full. */
    place("block", (rt_map_shape){3, 2, 3}, &d, NULL, 0, node, module);
    assert_u32s(node, (const uint32_t[]){0, 0, 0, 1, 1, 1, 2, 2}, 8);
    assert_u32s(module, (const uint32_t[]){0, 0, 0, 0, 0, 0, 1, 1}, 8);

    place("cyclic", (rt_map_shape){3, 1, 3}, &d, NULL, 0, node, module);
    assert_u32s(node, (const uint32_t[]){0, 1, 2, 0, 1, 2, 0, 1}, 8);
    assert_u32s(module, (const uint32_t[]){0, 0, 0, 0, 0, 0, 0, 0}, 8);

    /* 4 nodes on 3 modules: 0, 0, 1, 2, no module left empty. */
    place("block", (rt_map_shape){4, 3, 2}, &d, NULL, 0, node, module);
    assert_u32s(node, (const uint32_t[]){0, 0, 1, 1, 2, 2, 3, 3}, 8);
    assert_u32s(module, (const uint32_t[]){0, 0, 0, 0, 1, 1, 2, 2}, 8);

    /* 7 nodes on 3 modules: 3, 2, 2 nodes. */
    place("block", (rt_map_shape){7, 3, 2}, &d, NULL, 0, node, module);
    assert_u32s(node, (const uint32_t[]){0, 0, 1, 1, 2, 2, 3, 3}, 8);
    assert_u32s(module, (const uint32_t[]){0, 0, 0, 0, 0, 0, 1, 1}, 8);
    rt_defs_free(&d);

    d = defs_of(5, NULL, NULL);
    place("block", (rt_map_shape){4, 2, 2}, &d, NULL, 0, node, module);
    assert_u32s(node, (const uint32_t[]){0, 0, 1, 1, 2}, 5);
    assert_u32s(module, (const uint32_t[]){0, 0, 0, 0, 1}, 5);
    rt_defs_free(&d);
}

static void test_place_checks_shape(void **state)
{
    (void)state;
    rt_defs d = defs_of(8, NULL, NULL);
    static const char *const kinds[] = {"block", "cyclic", "random:1", "file:none", "auto"};
    for (size_t i = 0; i < N_OF(kinds); i++) {
        rt_map_spec spec = spec_of(kinds[i]);
        assert_place_error(&spec, (rt_map_shape){2, 1, 3}, &d, NULL, 0, RT_E_INVAL,
                           "--nodes 2 --ranks-per-node 3 hold 6 ranks; the trace has 8");
        assert_place_error(&spec, (rt_map_shape){2, 3, 4}, &d, NULL, 0, RT_E_INVAL,
                           "--modules 3 exceeds --nodes 2");
        assert_place_error(&spec, (rt_map_shape){0, 1, 8}, &d, NULL, 0, RT_E_INVAL,
                           "--nodes must be at least 1");
        assert_place_error(&spec, (rt_map_shape){8, 0, 1}, &d, NULL, 0, RT_E_INVAL,
                           "--modules must be at least 1");
        assert_place_error(&spec, (rt_map_shape){8, 1, 0}, &d, NULL, 0, RT_E_INVAL,
                           "--ranks-per-node must be at least 1");
    }
    rt_defs_free(&d);
}

static void test_random(void **state)
{
    (void)state;
    enum { P = 1000 };
    rt_defs d = defs_of(P, NULL, NULL);
    const rt_map_shape shape = {300, 7, 4}; /* 1200 slots, the last nodes partly empty */
    static uint32_t n1[P], m1[P], n2[P], m2[P], count[300];
    place("random:1", shape, &d, NULL, 0, n1, m1);

    /* A permutation of the block slots: the same load on every node. */
    for (uint32_t r = 0; r < P; r++) {
        assert_true(n1[r] < shape.nodes);
        assert_int_equal(m1[r], (uint64_t)n1[r] * shape.modules / shape.nodes);
        count[n1[r]]++;
    }
    for (uint32_t n = 0; n < shape.nodes; n++)
        assert_int_equal(count[n], n < 250 ? 4 : 0);

    place("random:1", shape, &d, NULL, 0, n2, m2);
    assert_memory_equal(n1, n2, sizeof n1);
    assert_memory_equal(m1, m2, sizeof m1);
    place("random:2", shape, &d, NULL, 0, n2, m2);
    assert_memory_not_equal(n1, n2, sizeof n1);
    rt_defs_free(&d);

    /* Pinned so that a change of generator or shuffle shows (the same on every machine). */
    d = defs_of(8, NULL, NULL);
    uint32_t node[8], module[8];
    place("random:7", (rt_map_shape){4, 2, 2}, &d, NULL, 0, node, module);
    assert_u32s(node, (const uint32_t[]){0, 2, 2, 1, 3, 0, 1, 3}, 8);
    for (uint32_t r = 0; r < 8; r++)
        assert_int_equal(module[r], node[r] / 2);
    rt_defs_free(&d);
}

static void test_recorded(void **state)
{
    (void)state;
    static const uint32_t node[] = {10, 10, 20, 20, 30, 30}, module[] = {5, 5, 5, 5, 7, 7};
    rt_defs d = defs_of(6, node, module);
    uint32_t n[6], m[6];
    place("recorded", (rt_map_shape){3, 2, 2}, &d, NULL, 0, n, m);
    assert_u32s(n, node, 6);
    assert_u32s(m, module, 6);

    rt_map_spec spec = spec_of("recorded");
    assert_place_error(&spec, (rt_map_shape){6, 2, 1}, &d, NULL, 0, RT_E_INVAL,
                       "mapping 'recorded' needs the recorded shape (--nodes 3 --modules 2 "
                       "--ranks-per-node 2), not --nodes 6 --modules 2 --ranks-per-node 1");
    rt_defs_free(&d);
}

/* ---- file:FILE ---------------------------------------------------------------------------- */

static void test_file(void **state)
{
    (void)state;
    const char *path = rt_test_write_file("good.txt", "# rank node\n"
                                                      "\n"
                                                      "3 0\n"
                                                      "  0\t2   # rank 0 alone with rank 5\r\n"
                                                      "1 1\n"
                                                      "   # indented comment\n"
                                                      "5 2\n"
                                                      "2 1\n"
                                                      "4 0"); /* no newline at the end */
    char text[4200];
    snprintf(text, sizeof text, "file:%s", path);
    rt_defs d = defs_of(6, NULL, NULL);
    uint32_t node[6], module[6];
    place(text, (rt_map_shape){3, 2, 2}, &d, NULL, 0, node, module);
    assert_u32s(node, (const uint32_t[]){2, 1, 1, 0, 0, 2}, 6);
    assert_u32s(module, (const uint32_t[]){1, 0, 0, 0, 0, 1}, 6);
    rt_defs_free(&d);
}

static void test_file_errors(void **state)
{
    (void)state;
    static const char *const cases[][2] = {
        {"0 0\n1\n", ":2: expected 'RANK NODE'"},
        {"0 0 0\n", ":1: expected 'RANK NODE'"},
        {"a 0\n", ":1: expected 'RANK NODE'"},
        {"0 -1\n", ":1: expected 'RANK NODE'"},
        {"0 0\n+1 0\n", ":2: expected 'RANK NODE'"},
        {"0 0\n1 0x1\n", ":2: expected 'RANK NODE'"},
        {"0 0\n1 0\n9 1\n", ":3: rank 9 is out of range (the trace has 8 ranks)"},
        {"99999999999999999999999 0\n",
         ":1: rank 99999999999999999999999 is out of range (the trace has 8 ranks)"},
        {"0 0\n1 4\n", ":2: node 4 is out of range (--nodes 4)"},
        {"0 0\n1 0\n0 1 # again\n", ":3: rank 0 appears twice (also on line 1)"},
        {"0 3\n1 3\n2 0\n3 1\n4 3\n5 1\n6 1\n",
         ":5: node 3 holds more than --ranks-per-node 2 ranks"},
        /* the first line that overfills a node, not the lowest node */
        {"0 3\n1 1\n2 1\n3 3\n4 3\n5 1\n", ":5: node 3 holds more than --ranks-per-node 2 ranks"},
        {"0 0\n1 0\n2 1\n3 1\n5 2\n6 2\n7 3\n", ": rank 4 is missing"},
        {"", ": rank 0 is missing"},
    };
    rt_defs d = defs_of(8, NULL, NULL);
    for (size_t i = 0; i < N_OF(cases); i++) {
        const char *path = rt_test_write_file("map.txt", cases[i][0]);
        rt_map_spec spec;
        char text[4200], want[4400];
        snprintf(text, sizeof text, "file:%s", path);
        snprintf(want, sizeof want, "%s%s", path, cases[i][1]);
        spec = spec_of(text);
        assert_place_error(&spec, (rt_map_shape){4, 2, 2}, &d, NULL, 0, RT_E_INVAL, want);
    }

    rt_map_spec spec = spec_of("file:" RT_TEST_TMP "/no-such-map.txt");
    assert_place_error(&spec, (rt_map_shape){4, 2, 2}, &d, NULL, 0, RT_E_NOTFOUND,
                       RT_TEST_TMP "/no-such-map.txt: no such file");
    spec = spec_of("file:" RT_TEST_TMP);
    assert_place_error(&spec, (rt_map_shape){4, 2, 2}, &d, NULL, 0, RT_E_IO,
                       RT_TEST_TMP ":1: read error: Is a directory");
    rt_defs_free(&d);
}

/* ---- cost and auto ------------------------------------------------------------------------ */

static void test_cost(void **state)
{
    (void)state;
    static const uint32_t node[] = {0, 0, 1, 1, 2, 2}, module[] = {0, 0, 0, 0, 1, 1};
    static const rt_map_edge e[] = {
        {0, 1, 5},  /* same node */
        {0, 2, 7},  /* net */
        {1, 3, 11}, /* net */
        {3, 4, 13}, /* gw */
        {5, 0, 17}, /* gw */
        {2, 2, 19}, /* the same rank */
        {4, 5, 23}, /* same node */
        {1, 2, 29}, /* net */
    };
    cost(e, N_OF(e), node, module, 13 + 17, 7 + 11 + 29);
    cost(e, 0, node, module, 0, 0);
    /* sums that pass 2^64 - 1 bytes stay there (the weights auto works with saturate):
     * 2^63 + 2^63 once wrapped to 0, the cheapest placement of all */
    static const rt_map_edge big[] = {
        {3, 4, UINT64_C(1) << 63}, {5, 0, UINT64_C(1) << 63}, {0, 2, UINT64_MAX}, {1, 3, 1}};
    cost(big, N_OF(big), node, module, UINT64_MAX, UINT64_MAX);
}

/* Heavy pairs 0-4, 1-5, 2-6, 3-7 that block puts across the gateway, and a light 0-1. */
static const rt_map_edge split_pairs[] = {
    {0, 4, 1000}, {1, 5, 1000}, {2, 6, 1000}, {3, 7, 1000}, {0, 1, 10},
};

static void test_auto_beats_block(void **state)
{
    (void)state;
    rt_defs d = defs_of(8, NULL, NULL);
    const rt_map_shape shape = {4, 2, 2};
    uint32_t node[8], module[8];
    place("block", shape, &d, NULL, 0, node, module);
    cost(split_pairs, N_OF(split_pairs), node, module, 4000, 0);

    /* Module 0 from rank 0 (1010 bytes, lowest): 4 (1000 to it), 1 (10), 5 (1000 to 1);
     * module 1 from 2: 6, then 3 (nothing talks to the module), 7. Nodes of module 0 from 0:
     * 4, then 1, 5. Only 0-1 crosses a node. */
    place("auto", shape, &d, split_pairs, N_OF(split_pairs), node, module);
    assert_u32s(node, (const uint32_t[]){0, 1, 2, 3, 0, 1, 2, 3}, 8);
    assert_u32s(module, (const uint32_t[]){0, 0, 1, 1, 0, 0, 1, 1}, 8);
    cost(split_pairs, N_OF(split_pairs), node, module, 0, 10);

    /* The same traffic as repeated pairs in either order, with self edges and zero-byte
     * edges: the same placement. */
    static const rt_map_edge repeated[] = {
        {4, 0, 400}, {1, 5, 1000}, {0, 4, 600}, {6, 2, 1000}, {3, 3, 99999}, {3, 7, 500},
        {7, 3, 500}, {0, 1, 4},    {1, 0, 6},   {2, 5, 0},    {7, 7, 1},
    };
    place("auto", shape, &d, repeated, N_OF(repeated), node, module);
    assert_u32s(node, (const uint32_t[]){0, 1, 2, 3, 0, 1, 2, 3}, 8);
    rt_defs_free(&d);
}

static void test_auto_keeps_block(void **state)
{
    (void)state;
    rt_defs d = defs_of(8, NULL, NULL);
    const rt_map_shape shape = {4, 2, 2};
    uint32_t node[8], module[8];

    /* Block is optimal (and greedy finds the same). */
    static const rt_map_edge pairs[] = {
        {0, 1, 1000}, {2, 3, 1000}, {4, 5, 1000}, {6, 7, 1000}, {0, 2, 10},
    };
    place("auto", shape, &d, pairs, N_OF(pairs), node, module);
    assert_u32s(node, (const uint32_t[]){0, 0, 1, 1, 2, 2, 3, 3}, 8);
    assert_u32s(module, (const uint32_t[]){0, 0, 0, 0, 1, 1, 1, 1}, 8);
    cost(pairs, N_OF(pairs), node, module, 0, 10);

    /* No traffic: block. */
    place("auto", shape, &d, NULL, 0, node, module);
    assert_u32s(node, (const uint32_t[]){0, 0, 1, 1, 2, 2, 3, 3}, 8);
    rt_defs_free(&d);

    /* Greedy takes 0-2 (101) and so splits 0-1 and 2-3 (100 each): gw 200 against block's
     * 101. Auto keeps block. */
    d = defs_of(4, NULL, NULL);
    static const rt_map_edge trap[] = {{0, 1, 100}, {2, 3, 100}, {0, 2, 101}};
    place("auto", (rt_map_shape){2, 2, 2}, &d, trap, N_OF(trap), node, module);
    assert_u32s(node, (const uint32_t[]){0, 0, 1, 1}, 4);
    assert_u32s(module, (const uint32_t[]){0, 0, 1, 1}, 4);
    cost(trap, N_OF(trap), node, module, 101, 0);

    /* Greedy's {0, 2} {1, 3} and block's {0, 1} {2, 3} both cut 10 bytes: block wins. */
    static const rt_map_edge tie[] = {{0, 2, 10}, {0, 1, 5}, {2, 3, 5}};
    place("auto", (rt_map_shape){2, 1, 2}, &d, tie, N_OF(tie), node, module);
    assert_u32s(node, (const uint32_t[]){0, 0, 1, 1}, 4);
    cost(tie, N_OF(tie), node, module, 0, 10);
    rt_defs_free(&d);
}

static void test_auto_keeps_recorded(void **state)
{
    (void)state;
    /* Recorded {0, 2} {1, 3}: gw 101; block and greedy both take {0, 1}: gw 200. */
    static const uint32_t rnode[] = {10, 20, 10, 20}, rmodule[] = {5, 7, 5, 7};
    static const rt_map_edge e[] = {{0, 2, 100}, {1, 3, 100}, {0, 1, 101}};
    rt_defs d = defs_of(4, rnode, rmodule);
    uint32_t node[4], module[4];
    place("auto", (rt_map_shape){2, 2, 2}, &d, e, N_OF(e), node, module);
    assert_u32s(node, rnode, 4);
    assert_u32s(module, rmodule, 4);
    cost(e, N_OF(e), node, module, 101, 0);

    /* Equal cost (no traffic): recorded first. */
    place("auto", (rt_map_shape){2, 2, 2}, &d, NULL, 0, node, module);
    assert_u32s(node, rnode, 4);

    /* Another shape: recorded is not a candidate. */
    place("auto", (rt_map_shape){4, 2, 1}, &d, e, N_OF(e), node, module);
    cost(e, N_OF(e), node, module, 200, 101);

    rt_map_spec spec = spec_of("auto");
    static const rt_map_edge bad[] = {{0, 1, 1}, {2, 4, 1}};
    assert_place_error(&spec, (rt_map_shape){2, 2, 2}, &d, bad, N_OF(bad), RT_E_INVAL,
                       "traffic edge 1: rank 4 is out of range (the trace has 4 ranks)");
    rt_defs_free(&d);
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* 2^20 ranks on a periodic 1024 x 1024 grid plus a ring, each vertical halo pair listed twice,
 * and the ranks scattered over the grid (grid cell c is rank c * 2654435761 mod 2^20, a
 * bijection) so that block splits nearly every pair and auto has to find the grid. */
static void test_auto_million(void **state)
{
    (void)state;
    enum { SIDE = 1024, P = SIDE * SIDE };
    const rt_map_shape shape = {8192, 3, 128};
    size_t ne = 0;
    rt_map_edge *e = malloc((size_t)4 * P * sizeof *e);
    uint32_t *node = malloc(P * sizeof *node), *module = malloc(P * sizeof *module);
    uint32_t *count = calloc(shape.nodes, sizeof *count);
    assert_true(e && node && module && count);
#define RANK(c) ((uint32_t)((c)*2654435761u) % P)
    for (uint32_t c = 0; c < P; c++) {
        uint32_t x = c % SIDE, y = c / SIDE, r = RANK(c);
        e[ne++] = (rt_map_edge){r, RANK((c + 1) % P), 100};
        e[ne++] = (rt_map_edge){r, RANK(y * SIDE + (x + 1) % SIDE), 1000};
        e[ne++] = (rt_map_edge){r, RANK((y + 1) % SIDE * SIDE + x), 500};
        e[ne++] = (rt_map_edge){r, RANK((y + SIDE - 1) % SIDE * SIDE + x), 500};
    }
#undef RANK
    rt_defs d = defs_of(P, NULL, NULL);
    double t0 = now();
    place("auto", shape, &d, e, ne, node, module);
    double t = now() - t0;
    print_message("auto on %u ranks, %zu edges: %.2f s\n", (unsigned)P, ne, t);

    for (uint32_t r = 0; r < P; r++) {
        assert_true(node[r] < shape.nodes);
        assert_int_equal(module[r], (uint64_t)node[r] * shape.modules / shape.nodes);
        count[node[r]]++;
    }
    for (uint32_t n = 0; n < shape.nodes; n++)
        assert_true(count[n] <= shape.ranks_per_node);

    uint64_t gw, net, bgw, bnet;
    rt_map_cost(e, ne, node, module, &gw, &net);
    place("block", shape, &d, NULL, 0, node, module);
    rt_map_cost(e, ne, node, module, &bgw, &bnet);
    print_message("auto gw %llu net %llu; block gw %llu net %llu\n", (unsigned long long)gw,
                  (unsigned long long)net, (unsigned long long)bgw, (unsigned long long)bnet);
    assert_true(gw * 100 < bgw); /* the grid found again (strips), not a scatter */
    rt_defs_free(&d);
    free(e);
    free(node);
    free(module);
    free(count);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_format),
        cmocka_unit_test(test_parse_errors),
        cmocka_unit_test(test_shape_recorded),
        cmocka_unit_test(test_shape_complete),
        cmocka_unit_test(test_block_cyclic),
        cmocka_unit_test(test_place_checks_shape),
        cmocka_unit_test(test_random),
        cmocka_unit_test(test_recorded),
        cmocka_unit_test(test_file),
        cmocka_unit_test(test_file_errors),
        cmocka_unit_test(test_cost),
        cmocka_unit_test(test_auto_beats_block),
        cmocka_unit_test(test_auto_keeps_block),
        cmocka_unit_test(test_auto_keeps_recorded),
        cmocka_unit_test(test_auto_million),
    };
    return rt_test_main("map", tests, argc, argv);
}
