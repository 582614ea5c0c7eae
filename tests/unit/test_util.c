/* Unit tests of util/: hash table, pool, growable array, integer and size grammars. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "rt_test_main.h"

#include "rt_util.h"

/* ---- hash table ----------------------------------------------------------------------------- */

/* The n-th one-key key (k2; k1 = 0) whose home in a table of cap slots is home. */
static uint64_t key_at(size_t cap, size_t home, unsigned n)
{
    for (uint64_t k = 1;; k++)
        if ((rt_hash_pair(0, k) & (cap - 1)) == home && n-- == 0)
            return k;
}

/* The slot index holding one-key key k, or -1. */
static long slot_of(const rt_hmap *m, uint64_t k)
{
    uint64_t *v = rt_hmap_get1(m, k);
    return v ? (long)((rt_hmap_slot *)((char *)v - offsetof(rt_hmap_slot, v)) - m->slots) : -1;
}

static void test_hmap_basic(void **state)
{
    (void)state;
    rt_hmap m = {0};
    assert_null(rt_hmap_get(&m, 1, 2));
    rt_hmap_del(&m, 1, 2); /* absent, empty table: nothing */
    int created = -1;
    uint64_t *v = rt_hmap_put(&m, 1, 2, &created);
    assert_non_null(v);
    assert_int_equal(created, 1);
    assert_int_equal(*v, 0);
    *v = 42;
    assert_ptr_equal(rt_hmap_put(&m, 1, 2, &created), v);
    assert_int_equal(created, 0);
    assert_int_equal(*rt_hmap_get(&m, 1, 2), 42);
    assert_null(rt_hmap_get(&m, 2, 1)); /* the keys are an ordered pair */
    assert_int_equal(m.n, 1);
    assert_int_equal(m.cap, 64);
    /* one-key form: any 64-bit key, RT_HASH_EMPTY included */
    *rt_hmap_put1(&m, UINT64_MAX, NULL) = 7;
    assert_int_equal(*rt_hmap_get1(&m, UINT64_MAX), 7);
    rt_hmap_del(&m, 1, 2);
    assert_null(rt_hmap_get(&m, 1, 2));
    assert_int_equal(m.n, 1);
    rt_hmap_del1(&m, UINT64_MAX);
    assert_int_equal(m.n, 0);
    assert_null(rt_hmap_get1(&m, UINT64_MAX));
    for (uint64_t k = 0; k < 10; k++)
        assert_non_null(rt_hmap_put(&m, k, k, NULL));
    rt_hmap_clear(&m); /* empty, the room kept */
    assert_int_equal(m.n, 0);
    assert_int_equal(m.cap, 64);
    assert_null(rt_hmap_get(&m, 3, 3));
    rt_hmap_free(&m);
    assert_null(m.slots);
    assert_int_equal(m.cap, 0);
}

/* A probe run that wraps from the last slot to the first: deleting its head shifts each later
 * member back one place, across the end of the array, and keeps every key reachable. */
static void test_hmap_backward_shift_wraps(void **state)
{
    (void)state;
    rt_hmap m = {0};
    uint64_t a = key_at(64, 63, 0), b = key_at(64, 63, 1), c = key_at(64, 63, 2);
    uint64_t z = key_at(64, 0, 0), y = key_at(64, 1, 0);
    assert_non_null(rt_hmap_put1(&m, a, NULL)); /* slot 63 */
    assert_non_null(rt_hmap_put1(&m, b, NULL)); /* 0 */
    assert_non_null(rt_hmap_put1(&m, c, NULL)); /* 1 */
    assert_non_null(rt_hmap_put1(&m, z, NULL)); /* home 0: 2 */
    assert_non_null(rt_hmap_put1(&m, y, NULL)); /* home 1: 3 */
    assert_int_equal(m.cap, 64);
    assert_int_equal(slot_of(&m, a), 63);
    assert_int_equal(slot_of(&m, b), 0);
    assert_int_equal(slot_of(&m, c), 1);
    assert_int_equal(slot_of(&m, z), 2);
    assert_int_equal(slot_of(&m, y), 3);

    rt_hmap_del1(&m, a);
    assert_int_equal(slot_of(&m, a), -1);
    assert_int_equal(slot_of(&m, b), 63); /* moved back across the end */
    assert_int_equal(slot_of(&m, c), 0);
    assert_int_equal(slot_of(&m, z), 1);
    assert_int_equal(slot_of(&m, y), 2);
    assert_int_equal(m.slots[3].k1, RT_HASH_EMPTY);

    /* a member already at its home does not move: delete c (slot 0), z comes to 0 (its
     * home), y to 1 (its home) */
    rt_hmap_del1(&m, c);
    assert_int_equal(slot_of(&m, z), 0);
    assert_int_equal(slot_of(&m, y), 1);
    assert_int_equal(slot_of(&m, b), 63);
    rt_hmap_del1(&m, z);
    assert_int_equal(slot_of(&m, y), 1); /* at home: stays */
    assert_int_equal(m.slots[0].k1, RT_HASH_EMPTY);
    assert_int_equal(m.n, 2);
    rt_hmap_free(&m);
}

static void test_hmap_growth(void **state)
{
    (void)state;
    rt_hmap m = {0};
    for (uint64_t k = 0; k < 1000; k++) {
        *rt_hmap_put(&m, k, ~k, NULL) = k * 3;
        /* a power of two, at most three quarters full */
        assert_int_equal(m.cap & (m.cap - 1), 0);
        assert_true(m.n * 4 <= m.cap * 3);
    }
    assert_int_equal(m.n, 1000);
    assert_int_equal(m.cap, 2048);
    for (uint64_t k = 0; k < 1000; k++)
        assert_int_equal(*rt_hmap_get(&m, k, ~k), k * 3);
    assert_null(rt_hmap_get(&m, 1000, ~(uint64_t)1000));
    rt_hmap_free(&m);
}

/* Millions of inserts and deletes in a pseudo-random order against a plain array. */
static void test_hmap_millions(void **state)
{
    (void)state;
    enum { KEYS = 1 << 16, OPS = 3000000 };
    uint8_t *in = calloc(KEYS, 1);
    assert_non_null(in);
    rt_hmap m = {0};
    uint64_t x = 88172645463325252ULL;
    size_t n = 0;
    for (unsigned i = 0; i < OPS; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        uint32_t k = (uint32_t)(x % KEYS);
        uint64_t k1 = k % 7, k2 = (uint64_t)k * 0x100000001ULL;
        if (x >> 63) {
            int created;
            uint64_t *v = rt_hmap_put(&m, k1, k2, &created);
            assert_non_null(v);
            assert_int_equal(created, !in[k]);
            if (created)
                *v = k, n++;
            in[k] = 1;
        } else {
            rt_hmap_del(&m, k1, k2);
            n -= in[k];
            in[k] = 0;
        }
    }
    assert_int_equal(m.n, n);
    for (uint32_t k = 0; k < KEYS; k++) {
        uint64_t *v = rt_hmap_get(&m, k % 7, (uint64_t)k * 0x100000001ULL);
        if (in[k]) {
            assert_non_null(v);
            assert_int_equal(*v, k);
        } else {
            assert_null(v);
        }
    }
    rt_hmap_free(&m);
    free(in);
}

/* The probing core under a slot type of its own: one key, 0 marking a free slot. */
typedef struct one_slot {
    uint64_t key;
    uint32_t val;
} one_slot;

static int one_empty(const void *s)
{
    return !((const one_slot *)s)->key;
}
static void one_clear(void *s)
{
    ((one_slot *)s)->key = 0;
}
static uint64_t one_hash(const void *s)
{
    return ((const one_slot *)s)->key; /* home = key & mask: placement by hand */
}
static const rt_htab_ops one_ops = {
    .size = sizeof(one_slot), .empty = one_empty, .clear = one_clear, .hash = one_hash};

static void test_htab_core(void **state)
{
    (void)state;
    /* 23, 7 and 15 have home 7: slots 7, 0 and 1; 8 (home 0) comes after them, at 2 */
    one_slot t[8] = {[0] = {7, 1}, [1] = {15, 2}, [2] = {8, 3}, [7] = {23, 4}};
    rt_htab_erase(t, 8, 7, &one_ops); /* remove 23 */
    assert_int_equal(t[7].key, 7);
    assert_int_equal(t[0].key, 15);
    assert_int_equal(t[1].key, 8); /* home 0: moves back to 1, not past its home */
    assert_int_equal(t[2].key, 0);

    one_slot big[16];
    rt_htab_rehash(big, 16, t, 8, &one_ops);
    assert_int_equal(big[7].key, 7);
    assert_int_equal(big[8].key, 8);
    assert_int_equal(big[15].key, 15);
    assert_int_equal(big[15].val, 2);
    int used = 0;
    for (int i = 0; i < 16; i++)
        used += !one_empty(&big[i]);
    assert_int_equal(used, 3);
    /* the same through rt_htab_grow, which allocates and frees */
    one_slot *g = malloc(8 * sizeof *g);
    assert_non_null(g);
    memcpy(g, t, 8 * sizeof *g);
    size_t gcap = 8;
    assert_int_equal(rt_htab_grow(&g, &gcap, 4, &one_ops), 0);
    assert_int_equal(gcap, 16);
    assert_int_equal(g[7].key, 7);
    assert_int_equal(g[8].key, 8);
    assert_int_equal(g[15].key, 15);
    free(g);
    one_slot *none = NULL;
    size_t ncap = 0;
    assert_int_equal(rt_htab_grow(&none, &ncap, 4, &one_ops), 0); /* first: an empty table */
    assert_int_equal(ncap, 4);
    assert_true(one_empty(&none[0]) && one_empty(&none[3]));
    free(none);

    assert_true(rt_htab_full(0, 0, 3, 4));
    assert_false(rt_htab_full(47, 64, 3, 4));
    assert_true(rt_htab_full(48, 64, 3, 4));
    assert_int_equal(rt_htab_next_cap(0, 64, 24), 64);
    assert_int_equal(rt_htab_next_cap(64, 64, 24), 128);
    assert_int_equal(rt_htab_next_cap((size_t)1 << 62, 64, 8), 0); /* bytes past size_t */
    assert_int_equal(rt_htab_next_cap((size_t)1 << 63, 64, 1), 0); /* the count itself */
    assert_int_equal(rt_hash_u64(0), 0);
    assert_true(rt_hash_u64(1) != 1);
}

/* ---- pool ----------------------------------------------------------------------------------- */

typedef struct obj {
    uint64_t payload;
    uint32_t next; /* the free-list link */
} obj;

static int re_calls;
static void *counting_realloc(void *p, size_t old, size_t bytes)
{
    re_calls++;
    void *q = realloc(p, bytes);
    if (q && bytes > old)
        memset((char *)q + old, 0, bytes - old);
    return q;
}

static void test_pool(void **state)
{
    (void)state;
    rt_pool p = RT_POOL_INIT;
    obj *items = NULL;
    re_calls = 0;
    for (uint32_t i = 0; i < 4; i++) {
        assert_int_equal(RT_POOL_GET(p, items, next, 4, counting_realloc), i);
        items[i].payload = 100 + i;
    }
    assert_int_equal(re_calls, 1);
    assert_int_equal(p.room, 4);
    /* freed objects come back last freed first, with nothing allocated */
    RT_POOL_PUT(p, items, next, 1);
    RT_POOL_PUT(p, items, next, 3);
    assert_int_equal(RT_POOL_GET(p, items, next, 4, counting_realloc), 3);
    assert_int_equal(RT_POOL_GET(p, items, next, 4, counting_realloc), 1);
    assert_int_equal(items[1].payload, 101); /* only the link was overwritten */
    assert_int_equal(p.free, RT_POOL_NONE);
    assert_int_equal(re_calls, 1);
    /* full: the array doubles, the objects move with it */
    assert_int_equal(RT_POOL_GET(p, items, next, 4, counting_realloc), 4);
    assert_int_equal(re_calls, 2);
    assert_int_equal(p.room, 8);
    assert_int_equal(items[0].payload, 100);
    assert_int_equal(items[3].payload, 103);
    assert_int_equal(p.n, 5);
    /* many */
    for (uint32_t i = 5; i < 100000; i++)
        assert_int_equal(RT_POOL_GET(p, items, next, 4, NULL), i);
    for (uint32_t i = 0; i < 100000; i += 2)
        RT_POOL_PUT(p, items, next, i);
    for (uint32_t i = 0; i < 50000; i++)
        assert_int_equal(RT_POOL_GET(p, items, next, 4, NULL), 99998 - 2 * i);
    assert_int_equal(p.n, 100000);
    rt_pool_clear(&p); /* all free, the room kept: new objects from 0 again */
    assert_int_equal(RT_POOL_GET(p, items, next, 4, NULL), 0);
    assert_true(p.room >= 100000);
    free(items);
}

static void *failing_realloc(void *p, size_t old, size_t bytes)
{
    (void)p, (void)old, (void)bytes;
    re_calls++;
    return NULL;
}

static void test_pool_no_memory(void **state)
{
    (void)state;
    rt_pool p = RT_POOL_INIT;
    obj *items = NULL;
    re_calls = 0;
    assert_int_equal(RT_POOL_GET(p, items, next, 16, failing_realloc), RT_POOL_NONE);
    assert_int_equal(re_calls, 1);
    assert_null(items);
    assert_int_equal(p.n, 0);
    assert_int_equal(p.room, 0);
}

/* ---- growable array ------------------------------------------------------------------------- */

static void test_vec_growth(void **state)
{
    (void)state;
    int *a = NULL;
    uint32_t room = 0;
    assert_int_equal(RT_VEC_RESERVE(a, room, 0, 16), 0); /* nothing needed: no allocation */
    assert_null(a);
    assert_int_equal(RT_VEC_RESERVE(a, room, 1, 16), 0);
    assert_int_equal(room, 16);
    for (int i = 0; i < 16; i++)
        a[i] = i;
    assert_int_equal(RT_VEC_RESERVE(a, room, 16, 16), 0); /* fits: unchanged */
    assert_int_equal(room, 16);
    assert_int_equal(RT_VEC_RESERVE(a, room, 17, 16), 0); /* doubles */
    assert_int_equal(room, 32);
    assert_int_equal(RT_VEC_RESERVE(a, room, 100, 16), 0); /* more than double: need */
    assert_int_equal(room, 100);
    for (int i = 0; i < 16; i++)
        assert_int_equal(a[i], i);
    free(a);

    size_t sroom = 0;
    char *s = NULL;
    assert_int_equal(RT_VEC_RESERVE(s, sroom, 5, 0), 0); /* first 0: exactly need */
    assert_int_equal(sroom, 5);
    free(s);

    assert_int_equal(rt_vec_next(0, 1, 64, 8, SIZE_MAX), 64);
    assert_int_equal(rt_vec_next(64, 65, 64, 8, SIZE_MAX), 128);
    assert_int_equal(rt_vec_next(64, 1000, 64, 8, SIZE_MAX), 1000);
    assert_int_equal(rt_vec_next(100, 101, 64, 1, 150), 150); /* capped at max */
    assert_int_equal(rt_vec_next(150, 151, 64, 1, 150), 0);
    assert_int_equal(rt_vec_next(0, 2, 64, SIZE_MAX / 2 + 1, SIZE_MAX), 0);
}

typedef struct huge_item {
    char b[(size_t)1 << 20];
} huge_item;

/* A count whose bytes overflow size_t, or that does not fit the room's type, is refused before
 * anything is allocated, and the array stays as it was. */
static void test_vec_overflow(void **state)
{
    (void)state;
    huge_item *h = NULL;
    size_t room = 0;
    re_calls = 0;
    assert_int_equal(RT_VEC_RESERVE_WITH(h, room, SIZE_MAX / sizeof *h + 1, 1, counting_realloc),
                     -RT_E_NOMEM);
    assert_int_equal(re_calls, 0);
    assert_null(h);
    assert_int_equal(room, 0);

    /* n * size overflows though n alone is small beside SIZE_MAX */
    uint64_t *w = NULL;
    size_t wroom = 0;
    assert_int_equal(RT_VEC_RESERVE_WITH(w, wroom, ((size_t)1 << 61) + 1, 1, counting_realloc),
                     -RT_E_NOMEM);
    assert_int_equal(re_calls, 0);

    /* the room's own type */
    char *c = NULL;
    uint8_t small = 0;
    assert_int_equal(RT_VEC_RESERVE_WITH(c, small, 256, 16, counting_realloc), -RT_E_NOMEM);
    assert_int_equal(re_calls, 0);
    assert_int_equal(RT_VEC_RESERVE_WITH(c, small, 200, 16, counting_realloc), 0);
    assert_int_equal(small, 200);
    assert_int_equal(RT_VEC_RESERVE_WITH(c, small, 201, 16, counting_realloc), 0);
    assert_int_equal(small, 255); /* doubling capped at the type's largest */
    assert_int_equal(re_calls, 2);
    free(c);

    /* no memory: nothing changes */
    int *a = NULL;
    uint32_t aroom = 0;
    assert_int_equal(RT_VEC_RESERVE_WITH(a, aroom, 1, 8, failing_realloc), -RT_E_NOMEM);
    assert_null(a);
    assert_int_equal(aroom, 0);
}

/* ---- integers ------------------------------------------------------------------------------- */

static void test_parse_uint(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        uint64_t min, max;
        int ok;
        uint64_t want;
        rt_parse_why why;
    } cases[] = {
        {"0", 0, UINT64_MAX, 1, 0, RT_PARSE_OK},
        {"007", 0, UINT64_MAX, 1, 7, RT_PARSE_OK},
        {"18446744073709551615", 0, UINT64_MAX, 1, UINT64_MAX, RT_PARSE_OK},
        {"18446744073709551616", 0, UINT64_MAX, 0, 0, RT_PARSE_LARGE},
        {"99999999999999999999999", 0, UINT64_MAX, 0, 0, RT_PARSE_LARGE},
        {"4294967295", 0, UINT32_MAX, 1, UINT32_MAX, RT_PARSE_OK},
        {"4294967296", 0, UINT32_MAX, 0, 0, RT_PARSE_LARGE},
        {"0", 1, 10, 0, 0, RT_PARSE_SMALL},
        {"1", 1, 10, 1, 1, RT_PARSE_OK},
        {"10", 1, 10, 1, 10, RT_PARSE_OK},
        {"11", 1, 10, 0, 0, RT_PARSE_LARGE},
        {"-1", 0, UINT64_MAX, 0, 0, RT_PARSE_NEGATIVE},
        {"-0", 0, UINT64_MAX, 0, 0, RT_PARSE_NEGATIVE},
        {"-", 0, UINT64_MAX, 0, 0, RT_PARSE_BAD},
        {"--1", 0, UINT64_MAX, 0, 0, RT_PARSE_BAD},
        {"", 0, UINT64_MAX, 0, 0, RT_PARSE_BAD},
        {" 1", 0, UINT64_MAX, 0, 0, RT_PARSE_BAD},
        {"1 ", 0, UINT64_MAX, 0, 0, RT_PARSE_BAD},
        {"+1", 0, UINT64_MAX, 0, 0, RT_PARSE_BAD},
        {"0x10", 0, UINT64_MAX, 0, 0, RT_PARSE_BAD},
        {"1e3", 0, UINT64_MAX, 0, 0, RT_PARSE_BAD},
        {"1.0", 0, UINT64_MAX, 0, 0, RT_PARSE_BAD},
        {"1K", 0, UINT64_MAX, 0, 0, RT_PARSE_BAD},
        {"99999999999999999999x", 0, UINT64_MAX, 0, 0, RT_PARSE_BAD},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        uint64_t v = 12345;
        rt_parse_why why = (rt_parse_why)99;
        int rc = rt_parse_uint(cases[i].text, cases[i].min, cases[i].max, &v, &why);
        if (rc != (cases[i].ok ? 0 : -RT_E_INVAL) || why != cases[i].why)
            fail_msg("'%s': rc %d why %d, expected why %d", cases[i].text, rc, (int)why,
                     (int)cases[i].why);
        assert_int_equal(v, cases[i].ok ? cases[i].want : 12345);
    }
    uint64_t v = 1;
    assert_int_equal(rt_parse_uint("x", 0, 9, &v, NULL), -RT_E_INVAL); /* why may be NULL */
    assert_int_equal(v, 1);

    /* the inline parsers of the text readers */
    assert_int_equal(rt_parse_u64("18446744073709551615", &v), 0);
    assert_int_equal(v, UINT64_MAX);
    assert_int_equal(rt_parse_u64("18446744073709551616", &v), -RT_E_INVAL);
    assert_int_equal(rt_parse_u64("1234567890123456789", &v), 0); /* 19 digits: no check */
    assert_int_equal(v, UINT64_C(1234567890123456789));
    assert_int_equal(rt_parse_u64("", &v), -RT_E_INVAL);
    assert_int_equal(rt_parse_u64("-1", &v), -RT_E_INVAL);
    assert_int_equal(rt_parse_u64("12a", &v), -RT_E_INVAL);
    int64_t s = 0;
    assert_int_equal(rt_parse_i64("-9223372036854775808", &s), 0);
    assert_true(s == INT64_MIN);
    assert_int_equal(rt_parse_i64("9223372036854775807", &s), 0);
    assert_true(s == INT64_MAX);
    assert_int_equal(rt_parse_i64("9223372036854775808", &s), -RT_E_INVAL);
    assert_int_equal(rt_parse_i64("-9223372036854775809", &s), -RT_E_INVAL);
    assert_int_equal(rt_parse_i64("-", &s), -RT_E_INVAL);
    assert_int_equal(rt_parse_i64("+1", &s), -RT_E_INVAL);

    const char *end;
    assert_int_equal(rt_parse_digits("123abc", &end, &v), 0);
    assert_int_equal(v, 123);
    assert_string_equal(end, "abc");
    assert_int_equal(rt_parse_digits("abc", &end, &v), -RT_E_INVAL);
    assert_string_equal(end, "abc");
    assert_int_equal(rt_parse_digits("18446744073709551616:x", &end, &v), -RT_E_INVAL);
    assert_string_equal(end, ":x");
}

/* ---- sizes ---------------------------------------------------------------------------------- */

/* Sizes rt_parse_size takes, with their values. */
static const struct {
    const char *text;
    uint64_t want;
} size_good[] = {
    {"0", 0},
    {"64", 64},
    {"4096", 4096},
    {"4K", 4096},
    {"4k", 4096},
    {"4KiB", 4096},
    {"4kib", 4096},
    {"4KIB", 4096},
    {"64M", UINT64_C(64) << 20},
    {"64m", UINT64_C(64) << 20},
    {"1G", UINT64_C(1) << 30},
    {"1T", UINT64_C(1) << 40}, /* one case rule: 1t is 1T */
    {"1t", UINT64_C(1) << 40},
    {"1TiB", UINT64_C(1) << 40},
    {"1P", UINT64_C(1) << 50},
    {"1E", UINT64_C(1) << 60},
    {"15E", UINT64_C(15) << 60},
    {"16777215T", UINT64_C(16777215) << 40},
    {"18446744073709551615", UINT64_MAX},
    {"18446744073709551615B", UINT64_MAX},
    {"64B", 64},
    {"64b", 64},
    {"1.5K", 1536},
    {"1.5k", 1536},
    {".5K", 512},
    {"2.", 2},
    {"2.000", 2},
    {"1.0000000000000000000000000000000000000000000000000", 1}, /* zeros do not count */
    {"0.0009765625K", 1},
    {"15.5E", (UINT64_C(31) << 59)},
    {"64 K", 65536},
    {"64\tKiB", 65536},
    {"007K", 7168},
};

/* Sizes it refuses, with the reason it gives. */
static const struct {
    const char *text;
    rt_parse_why why;
} size_bad[] = {
    {"", RT_PARSE_BAD},
    {"K", RT_PARSE_BAD},
    {"-1", RT_PARSE_BAD},
    {"+64", RT_PARSE_BAD},
    {" 64", RT_PARSE_BAD},
    {"64 ", RT_PARSE_BAD},
    {"64 K ", RT_PARSE_BAD},
    {"4KB", RT_PARSE_BAD},
    {"4kb", RT_PARSE_BAD},
    {"4Kb", RT_PARSE_BAD},
    {"4Ki", RT_PARSE_BAD},
    {"4KiBs", RT_PARSE_BAD},
    {"4X", RT_PARSE_BAD},
    {"4Z", RT_PARSE_BAD},
    {"0x40", RT_PARSE_BAD},
    {"1e3", RT_PARSE_BAD},
    {".", RT_PARSE_BAD},
    {".K", RT_PARSE_BAD},
    {"1.5.5", RT_PARSE_BAD},
    {"1,5K", RT_PARSE_BAD},
    {"99999999999999999999X", RT_PARSE_BAD},                      /* malformed before too large */
    {"0.000000000000000000000000000000000000001K", RT_PARSE_BAD}, /* 39 digits */
    {"18446744073709551616", RT_PARSE_LARGE},
    {"16E", RT_PARSE_LARGE},
    {"16777216T", RT_PARSE_LARGE},
    {"17179869184G", RT_PARSE_LARGE},
    {"15.9999999999E", RT_PARSE_FRACTION},
    {"16.5E", RT_PARSE_LARGE},
    {"18446744073709551615.5K", RT_PARSE_LARGE},
    {"1.5", RT_PARSE_FRACTION},
    {"1.3K", RT_PARSE_FRACTION},
    {"0.1K", RT_PARSE_FRACTION},
    {"0.00048828125K", RT_PARSE_FRACTION}, /* half a byte */
};

/* Each size of the two tables, then the messages of rt_parse_size_opt. */
static void test_parse_size(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof size_good / sizeof *size_good; i++) {
        uint64_t v = 12345;
        rt_parse_why why = (rt_parse_why)99;
        if (rt_parse_size(size_good[i].text, &v, &why) != 0)
            fail_msg("'%s' refused (why %d)", size_good[i].text, (int)why);
        assert_int_equal(why, RT_PARSE_OK);
        if (v != size_good[i].want)
            fail_msg("'%s': %llu, expected %llu", size_good[i].text, (unsigned long long)v,
                     (unsigned long long)size_good[i].want);
    }

    for (size_t i = 0; i < sizeof size_bad / sizeof *size_bad; i++) {
        uint64_t v = 12345;
        rt_parse_why why = RT_PARSE_OK;
        assert_int_equal(rt_parse_size(size_bad[i].text, &v, &why), -RT_E_INVAL);
        if (why != size_bad[i].why)
            fail_msg("'%s': why %d, expected %d", size_bad[i].text, (int)why, (int)size_bad[i].why);
        assert_int_equal(v, 12345);
    }

    uint64_t v = 0;
    rt_err err = {0};
    assert_int_equal(rt_parse_size_opt("--eager", "1T", &v, &err), 0);
    assert_int_equal(v, UINT64_C(1) << 40);
    assert_int_equal(rt_parse_size_opt("--min", "64X", &v, &err), -RT_E_INVAL);
    assert_string_equal(err.msg,
                        "--min: bad size '64X' (expected a number of bytes such as 4096, 4K, 64M)");
    assert_int_equal(rt_parse_size_opt("--min", "16E", &v, &err), -RT_E_INVAL);
    assert_string_equal(err.msg, "--min: size '16E' is too large");
    assert_int_equal(rt_parse_size_opt("--max", "1.3K", &v, &err), -RT_E_INVAL);
    assert_string_equal(err.msg, "--max: size '1.3K' is not a whole number of bytes");
    assert_int_equal(rt_parse_size_opt("--max", "x", &v, NULL), -RT_E_INVAL);
}

/* rt_checked.h: overflow seen at the edge, saturation, doubles out of range, 128-bit text. */
static void test_checked(void **state)
{
    (void)state;
    uint64_t r = 0;
    assert_false(rt_add_overflow(UINT64_MAX - 1, 1, &r));
    assert_true(r == UINT64_MAX);
    assert_true(rt_add_overflow(UINT64_MAX, 1, &r));
    assert_true(rt_add_overflow(UINT64_C(1) << 63, UINT64_C(1) << 63, &r));
    assert_false(rt_mul_overflow(UINT64_C(1) << 32, (UINT64_C(1) << 32) - 1, &r));
    assert_true(rt_mul_overflow(UINT64_C(1) << 32, UINT64_C(1) << 32, &r));
    assert_true(rt_mul_overflow(18446744073709552ULL, 1000, &r)); /* 2^64 ps in ns, times 1000 */
    assert_false(rt_mul_overflow(18446744073709551ULL, 1000, &r));
    assert_true(r == 18446744073709551000ULL);
    assert_true(rt_add_sat(UINT64_MAX - 2, 3) == UINT64_MAX);
    assert_true(rt_add_sat(2, 3) == 5);
    assert_true(rt_mul_sat(UINT64_C(1) << 63, 2) == UINT64_MAX);
    assert_true(rt_mul_sat(UINT64_C(1) << 62, 2) == UINT64_C(1) << 63);
    assert_true(rt_u128_sat((rt_u128)1 << 64) == UINT64_MAX);
    assert_true(rt_u128_sat(UINT64_MAX) == UINT64_MAX);

    assert_true(rt_u64_of_double(-1.0) == 0);
    assert_true(rt_u64_of_double(0.0 / 0.0) == 0);
    assert_true(rt_u64_of_double(2.5) == 3);
    assert_true(rt_u64_of_double(2.4) == 2);
    assert_true(rt_u64_of_double(1e30) == UINT64_MAX);
    assert_true(rt_u64_of_double(18446744073709551616.0) == UINT64_MAX);
    assert_true(rt_u64_of_double(9007199254740992.0) == UINT64_C(9007199254740992));

    char b[RT_U128_LEN];
    assert_string_equal(rt_u128_str(0, b, sizeof b), "0");
    assert_string_equal(rt_u128_str(UINT64_MAX, b, sizeof b), "18446744073709551615");
    /* two sends of 2^64 - 1 bytes: the total issue 16 saw wrap to 18446744073709551614 */
    assert_string_equal(rt_u128_str((rt_u128)UINT64_MAX * 2, b, sizeof b), "36893488147419103230");
    assert_string_equal(rt_u128_str(~(rt_u128)0, b, sizeof b),
                        "340282366920938463463374607431768211455");
    char small[4];
    assert_string_equal(rt_u128_str(123456, small, sizeof small), "123"); /* cut, terminated */
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hmap_basic),     cmocka_unit_test(test_hmap_backward_shift_wraps),
        cmocka_unit_test(test_hmap_growth),    cmocka_unit_test(test_hmap_millions),
        cmocka_unit_test(test_htab_core),      cmocka_unit_test(test_pool),
        cmocka_unit_test(test_pool_no_memory), cmocka_unit_test(test_vec_growth),
        cmocka_unit_test(test_vec_overflow),   cmocka_unit_test(test_parse_uint),
        cmocka_unit_test(test_parse_size),     cmocka_unit_test(test_checked),
    };
    return rt_test_main("util", tests, argc, argv);
}
