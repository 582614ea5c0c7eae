/* Unit tests of the raw trace reader (formats/raw_reader.c, raw_files.c): a trace directory
 * as a whole: ranks or threads missing or cut short, bad files and headers, the API, and the
 * tiny traces of tests/data. Raw files are written here by hand (test_raw.h); the events are
 * test_raw_events.c's, the definitions test_raw_defs.c's. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "rt_test_main.h"

#include "test_raw.h"

/* ---- cut traces ---------------------------------------------------------------------------- */

static void test_missing_rank(void **state)
{
    const char *dir = fresh_dir("missing");
    for (uint32_t r = 0; r < 3; r += 2) {
        rbuf d = header(r, 3, RT_RAW_THREAD_DEFS, r, 1);
        save_defs(dir, r, &d);
        rbuf t = thread_file(r, 3, 0);
        call(&t, RT_FN_Barrier, 5, 5);
        close_rec(&t, 20);
        save_thread(dir, r, 0, &t);
    }
    loaded l;
    load_ok(dir, &l);
    assert_int_equal(l.defs.nranks, 3);
    assert_int_equal(l.defs.node[1], 0);
    assert_int_equal(l.defs.module[1], 0);
    assert_int_equal(l.defs.node[2], 2);
    assert_int_equal(count_rank(&l, 0), 2);
    assert_int_equal(count_rank(&l, 1), 0);
    assert_int_equal(count_rank(&l, 2), 2);
    assert_non_null(l.truncated);
    assert_non_null(strstr(l.truncated, "missing: rank 1 left no raw files"));
    rt_test_unload(&l);

    /* events without definitions cannot be read: left out */
    rbuf t = thread_file(1, 3, 0);
    call(&t, RT_FN_Barrier, 5, 5);
    close_rec(&t, 20);
    save_thread(dir, 1, 0, &t);
    load_ok(dir, &l);
    assert_int_equal(count_rank(&l, 1), 0);
    assert_non_null(strstr(l.truncated, "rank 1 left no definitions file"));
    rt_test_unload(&l);

    /* rank 0 missing: the trace is still one (reached through another rank's file) */
    unlink(path_in(dir, "r0.defs.rtr"));
    load_ok(path_in(dir, "r2.defs.rtr"), &l);
    assert_int_equal(l.defs.nranks, 3);
    assert_int_equal(count_rank(&l, 2), 2);
    assert_non_null(strstr(l.truncated, "rank 0 left no definitions file"));
    assert_non_null(strstr(l.truncated, "(and 1 more cut short)"));
    rt_test_unload(&l);
}

/* A rank with definitions but no thread file, the first rank read (fuzz_raw found the reader
 * offsetting its still unallocated array of thread streams: UBSan, "applying zero offset to
 * null pointer"). */
static void test_no_thread_file(void **state)
{
    (void)state;
    const char *dir = fresh_dir("no-thread-file");
    for (uint32_t r = 0; r < 2; r++) {
        rbuf d = header(r, 2, RT_RAW_THREAD_DEFS, r, 0);
        save_defs(dir, r, &d);
    }
    rbuf t = thread_file(1, 2, 0);
    call(&t, RT_FN_Barrier, 5, 5);
    close_rec(&t, 20);
    save_thread(dir, 1, 0, &t);
    loaded l;
    load_ok(dir, &l);
    assert_int_equal(count_rank(&l, 0), 0);
    assert_int_equal(count_rank(&l, 1), 2);
    assert_non_null(l.truncated);
    assert_non_null(strstr(l.truncated, "no-thread-file: rank 0 left no event files"));
    rt_test_unload(&l);
}

/* A thread file of four calls, no CLOSE; offsets of its records. */
typedef struct cut_file {
    rbuf b;
    size_t rec_end[16]; /* end offset of each record */
    int rec_group[16];  /* the group (call) each record belongs to */
    int rec_time[16];   /* the record is a TIME record */
    int rec_events[16]; /* events the record adds to its call */
    size_t nrec;
} cut_file;

static void mark(cut_file *c, int group, int events, int is_time)
{
    c->rec_end[c->nrec] = c->b.n;
    c->rec_group[c->nrec] = group;
    c->rec_events[c->nrec] = events;
    c->rec_time[c->nrec++] = is_time;
}

static cut_file cut_source(void)
{
    cut_file c = {.b = thread_file(0, 1, 0)};
    call(&c.b, RT_FN_Send, 10, 5);
    mark(&c, 0, 2, 0);
    p2p(&c.b, 0, RT_EV_SEND, 0, 0, 0, 8, 0);
    mark(&c, 0, 1, 0);
    call(&c.b, RT_FN_Barrier, 20, 5);
    mark(&c, 1, 2, 0);
    coll(&c.b, RT_EV_COLL_END, RT_COLL_BARRIER, 0, RT_PEER_NONE, 0, 0);
    mark(&c, 1, 2, 0);
    call(&c.b, RT_FN_Wait, 30, RT_RAW_DT_LONG);
    mark(&c, 2, 2, 0);
    rt_raw_time tm = {.type = RT_RAW_TIME, .t1 = 40};
    put(&c.b, &tm, sizeof tm);
    mark(&c, 2, 0, 1);
    req(&c.b, 1, RT_EV_ISEND_COMPLETE, 0, 1);
    mark(&c, 2, 1, 0);
    call(&c.b, RT_FN_Recv, 50, 5);
    mark(&c, 3, 2, 0);
    p2p(&c.b, 1, RT_EV_RECV, 0, 0, 0, 8, 0);
    mark(&c, 3, 1, 0);
    return c;
}

/* Events a reader must give for the file cut at byte n: every call whose records up to
 * the cut are all complete, the last call without a TIME record it needs excepted. */
static size_t expected_after_cut(const cut_file *c, size_t n)
{
    size_t total = 0, group_events = 0;
    int group = -1, needs_time = 0, has_time = 0;
    size_t start = 64;
    for (size_t i = 0; i < c->nrec; start = c->rec_end[i++]) {
        if (c->rec_group[i] != group) { /* a new call: the last one was complete */
            total += group < 0 || (needs_time && !has_time) ? 0 : group_events;
            group = c->rec_group[i];
            group_events = 0;
            needs_time = group == 2;
            has_time = 0;
        }
        if (c->rec_end[i] > n) /* cut inside this record (or before it) */
            return total + (start == n && !(needs_time && !has_time) ? group_events : 0);
        group_events += (size_t)c->rec_events[i];
        has_time |= c->rec_time[i];
    }
    return total + group_events;
}

static void test_cut_thread(void **state)
{
    const char *dir = fresh_dir("cut");
    cut_file c = cut_source();
    size_t size = c.b.n;
    for (size_t n = 64; n <= size; n++) {
        rbuf d = defs_file(0, 1);
        save_defs(dir, 0, &d);
        FILE *f = fopen(path_in(dir, "r0.t0.rtr"), "wb");
        assert_non_null(f);
        assert_int_equal(fwrite(c.b.p, 1, n, f), n);
        fclose(f);
        for (int zeros = 0; zeros < 2; zeros++) { /* also as a preallocated file: zeros */
            if (zeros) {
                f = fopen(path_in(dir, "r0.t0.rtr"), "ab");
                static const unsigned char z[4096];
                assert_int_equal(fwrite(z, 1, sizeof z, f), sizeof z);
                fclose(f);
                int boundary = n == 64;
                for (size_t i = 0; i < c.nrec; i++)
                    boundary |= c.rec_end[i] == n;
                if (!boundary) /* zeros would complete a torn record: nothing tells */
                    continue;
            }
            loaded l;
            load_ok(dir, &l);
            size_t expect = expected_after_cut(&c, n);
            if (l.n != expect)
                fail_msg("cut at %zu%s: %zu events, expected %zu", n, zeros ? " + zeros" : "", l.n,
                         expect);
            assert_non_null(l.truncated);
            char msg[128];
            snprintf(msg, sizeof msg, "r0.t0.rtr: rank 0 thread 0 was cut short after %zu events",
                     expect);
            if (!strstr(l.truncated, msg))
                fail_msg("cut at %zu: '%s', expected '%s'", n, l.truncated, msg);
            for (size_t i = 1; i < l.n; i++) /* in time order, ENTER and LEAVE paired */
                assert_true(l.ev[i].time >= l.ev[i - 1].time);
            if (l.n)
                assert_int_equal(l.ev[l.n - 1].kind, RT_EV_LEAVE);
            rt_test_unload(&l);
        }
    }
    /* the spot checks the rules name */
    assert_int_equal(expected_after_cut(&c, 64 + 16), 2);      /* a CALL alone */
    assert_int_equal(expected_after_cut(&c, 64 + 40), 0);      /* a P2P half written */
    assert_int_equal(expected_after_cut(&c, 64 + 48), 3);      /* one whole call */
    assert_int_equal(expected_after_cut(&c, 64 + 96 + 16), 7); /* long call without TIME */
    assert_int_equal(expected_after_cut(&c, 64 + 96 + 32), 9); /* with TIME, no REQ */
    /* with a CLOSE the trace is whole */
    close_rec(&c.b, 100);
    save_thread(dir, 0, 0, &c.b);
    loaded l;
    load_ok(dir, &l);
    assert_null(l.truncated);
    assert_int_equal(l.n, 13);
    rt_test_unload(&l);
}

/* ---- bad input ----------------------------------------------------------------------------- */

static void test_bad_files(void **state)
{
    rbuf d = defs_file(0, 1), t = thread_file(0, 1, 0);
    memcpy(d.p, "NOTRAW!!", 8);
    expect_error(one_rank("bad-magic", &d, &t), RT_E_FORMAT, "r0.defs.rtr: not a retrace raw file");

    d = defs_file(0, 1), t = thread_file(0, 1, 0);
    t.p[7] = 9; /* the byte-order bytes differ */
    expect_error(one_rank("bad-magic2", &d, &t), RT_E_FORMAT, "r0.t0.rtr: not a retrace raw file");

    d = defs_file(0, 1), t = thread_file(0, 1, 0);
    d.p[8] = 3;
    expect_error(one_rank("bad-version", &d, &t), RT_E_FORMAT,
                 "r0.defs.rtr: raw format version 3 (this reader reads 1 and 2)");

    d = defs_file(0, 1), t = thread_file(0, 1, 0);
    uint32_t swapped = __builtin_bswap32(RT_RAW_VERSION);
    memcpy(d.p + 8, &swapped, 4);
    expect_error(one_rank("bad-order", &d, &t), RT_E_FORMAT,
                 "r0.defs.rtr: written on a machine of the other byte order");

    const char *dir = fresh_dir("bad-nranks");
    for (uint32_t r = 0; r < 2; r++) {
        rbuf x = defs_file(r, 2 + r);
        save_defs(dir, r, &x);
    }
    expect_error(dir, RT_E_FORMAT, "r1.defs.rtr: the header says 3 ranks, r0.defs.rtr says 2");

    d = defs_file(0, 1), t = thread_file(0, 2, 0);
    expect_error(one_rank("bad-nranks-thread", &d, &t), RT_E_FORMAT,
                 "r0.t0.rtr: the header says 2 ranks, r0.defs.rtr says 1");

    d = defs_file(0, 1), t = thread_file(0, 1, 1);
    expect_error(one_rank("bad-thread", &d, &t), RT_E_FORMAT,
                 "r0.t0.rtr: the header is that of rank 0, thread 1");

    dir = fresh_dir("bad-rank");
    d = defs_file(0, 1);
    save_defs(dir, 0, &d);
    t = thread_file(3, 1, 0);
    save_thread(dir, 3, 0, &t);
    expect_error(dir, RT_E_FORMAT, "r3.t0.rtr: rank 3, but the trace has 1 ranks");

    /* a header claiming more ranks than RETRACE_MAX_RANKS (default 2^20) */
    d = defs_file(0, 1u << 24), t = thread_file(0, 1u << 24, 0);
    expect_error(one_rank("many-ranks", &d, &t), RT_E_RANGE,
                 "r0.defs.rtr: 16777216 ranks, more than the limit of 1048576 (the environment "
                 "variable RETRACE_MAX_RANKS raises it, up to 16777216)");

    dir = fresh_dir("no-defs");
    expect_error(path_in(dir, "r0.t0.rtr"), RT_E_NOTFOUND, "r0.t0.rtr");
    t = thread_file(0, 1, 0);
    save_thread(dir, 0, 0, &t);
    expect_error(path_in(dir, "r0.t0.rtr"), RT_E_FORMAT,
                 "no-defs: not a trace (no raw definitions file with a header)");
}

static void test_api(void **state)
{
    assert_string_equal(rt_format_name(RT_FMT_RAW), "raw");
    assert_int_equal(rt_format_lookup("raw"), -RT_E_NOTFOUND); /* not a format to write */
    rt_defs d;
    rt_err err;
    assert_int_equal(rt_defs_init(&d, 2, &err), 0);
    rt_writer *w;
    assert_int_equal(rt_writer_open(RT_TEST_TMP "/out.raw", RT_FMT_RAW, &d, &w, &err), -RT_E_INVAL);
    assert_non_null(strstr(err.msg, "out.raw: cannot write raw traces"));
    rt_defs_free(&d);
}

/* ---- the tiny traces of tests/data -------------------------------------------------------- */

/* Two ranks on two nodes in two modules: a dup of world, a message on it, an allreduce.
 * cut: rank 1 did not finish (no CLOSE). */
static void write_tiny(const char *dir, int cut)
{
    static const uint32_t two[] = {0, 1};
    for (uint32_t r = 0; r < 2; r++) {
        rbuf d = header(r, 2, RT_RAW_THREAD_DEFS, r, r);
        def_comm(&d, 2, 0, RT_FN_Comm_dup, 0, 0, 2, 0, two);
        save_defs(dir, r, &d);
        rbuf t = header(r, 2, 0, r, r);
        call(&t, RT_FN_Comm_dup, 1000, 500);
        if (r == 0) {
            call(&t, RT_FN_Send, 2000, 300);
            p2p(&t, 0, RT_EV_SEND, 2, 1, 42, 65536, 0);
            t.p[t.n - sizeof(rt_raw_p2p) + 3] = RT_CT_GW; /* the contype byte */
        } else {
            call(&t, RT_FN_Recv, 1900, 900);
            p2p(&t, 1, RT_EV_RECV, 2, 0, 42, 65536, 0);
            t.p[t.n - sizeof(rt_raw_p2p) + 3] = RT_CT_GW;
        }
        call(&t, RT_FN_Allreduce, 3000, 200);
        coll(&t, RT_EV_COLL_END, RT_COLL_ALLREDUCE, 0, RT_PEER_NONE, 8, 8);
        if (!cut || r == 0)
            close_rec(&t, 4000);
        save_thread(dir, r, 0, &t);
    }
}

static void same_files(const char *a, const char *b)
{
    static const char *const names[] = {"r0.defs.rtr", "r1.defs.rtr", "r0.t0.rtr", "r1.t0.rtr"};
    for (size_t i = 0; i < 4; i++) {
        char cmd[4200];
        snprintf(cmd, sizeof cmd, "cmp -s '%s' '%s'", path_in(a, names[i]), path_in(b, names[i]));
        if (system(cmd) != 0)
            fail_msg("%s differs from %s: regenerate the test data with test_raw --write-tiny",
                     path_in(a, names[i]), path_in(b, names[i]));
    }
}

/* tests/data/raw_tiny and raw_cut are what write_tiny makes (the CLI tests read them). */
static void test_tiny_data(void **state)
{
    const char *dir = fresh_dir("tiny");
    write_tiny(dir, 0);
    same_files(dir, RT_TEST_DATA "/raw_tiny");
    loaded l;
    load_ok(dir, &l);
    assert_null(l.truncated);
    assert_int_equal(l.n, 18);
    rt_test_unload(&l);
    dir = fresh_dir("tiny-cut");
    write_tiny(dir, 1);
    same_files(dir, RT_TEST_DATA "/raw_cut");
    load_ok(dir, &l);
    assert_non_null(l.truncated);
    assert_int_equal(l.n, 18);
    rt_test_unload(&l);
}

int main(int argc, char **argv)
{
    if (argc == 3 && !strcmp(argv[1], "--write-tiny")) { /* test_raw --write-tiny tests/data */
        char *data = realpath(argv[2], NULL), path[2048];
        if (!data)
            return 1;
        snprintf(path, sizeof path, "%s/raw_tiny", data);
        write_tiny(fresh_dir(path), 0);
        snprintf(path, sizeof path, "%s/raw_cut", data);
        write_tiny(fresh_dir(path), 1);
        free(data);
        return 0;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_missing_rank), cmocka_unit_test(test_cut_thread),
        cmocka_unit_test(test_bad_files),    cmocka_unit_test(test_api),
        cmocka_unit_test(test_tiny_data),    cmocka_unit_test(test_no_thread_file),
    };
    return rt_test_main("raw", tests, argc, argv);
}
