/* Unit tests of the generic reader and writer (formats/trace.c): what is not a trace, the
 * writer's checks and the removal of its output, and events gathered into blocks for the
 * formats without blocks of their own, the time-order check of a back end with blocks of its
 * own, and the limit on ranks (RETRACE_MAX_RANKS). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "rt_test_main.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rt__trace.h"
#include "test_formats.h"

static void test_missing_file(void **state)
{
    const char *p = rt_test_tmp_path("nosuch.csv");
    unlink(p);
    char want[1100];
    snprintf(want, sizeof want, "%s: No such file or directory", p);
    expect_open_error(p, RT_E_NOTFOUND, want);
}

static void test_not_a_trace(void **state)
{
    expect_open_error(rt_test_write_file("image.png", "\x89PNG\r\n\x1a\n binary"), RT_E_FORMAT,
                      "image.png: not a trace");
    const char *dir = rt_test_tmp_path("emptydir");
    remove_any(dir);
    mkdir(dir, 0777);
    expect_open_error(dir, RT_E_FORMAT, "emptydir: not a trace");
}

static void test_writer_checks(void **state)
{
    rt_defs d;
    rt_err err;
    assert_int_equal(rt_defs_init(&d, 2, &err), 0);
    const char *dir = rt_test_tmp_path("nonempty");
    remove_any(dir);
    mkdir(dir, 0777);
    rt_test_write_file("nonempty/keep.txt", "mine\n");
    rt_writer *w;
    assert_int_equal(rt_writer_open(dir, RT_FMT_OTF2, &d, &w, &err), -RT_E_INVAL);
    assert_non_null(strstr(err.msg, "nonempty: directory exists and is not empty"));
    assert_int_equal(rt_trace_remove(dir, &err), -RT_E_INVAL); /* not ours: left alone */
    assert_int_equal(access(rt_test_tmp_path("nonempty/keep.txt"), F_OK), 0);

    const char *out = rt_test_tmp_path("w-otf2");
    remove_any(out);
    assert_int_equal(rt_writer_open(out, RT_FMT_OTF2, &d, &w, &err), 0);
    rt_event ev = {.kind = RT_EV_SEND, .rank = 1, .time = 10, .peer = 0, .bytes = 1};
    assert_int_equal(rt_writer_write(w, &ev, &err), 0);
    ev.time = 9;
    assert_int_equal(rt_writer_write(w, &ev, &err), -RT_E_ORDER);
    assert_non_null(strstr(err.msg, "events out of time order: rank 1 at 9 ns after 10 ns"));
    ev.time = 11;
    ev.peer = 2;
    assert_int_equal(rt_writer_write(w, &ev, &err), -RT_E_INVAL);
    assert_non_null(strstr(err.msg, "send: peer 2 is not a rank of communicator 0"));
    rt_writer_abort(w); /* removes what it wrote */
    assert_int_equal(access(out, F_OK), -1);

    assert_int_equal(rt_writer_open(out, RT_FMT_OTF2, &d, &w, &err), 0);
    assert_int_equal(rt_writer_close(w, &err), 0); /* an archive without events is fine */
    loaded l;
    assert_int_equal(load(out, &l, &err), 0);
    assert_int_equal(l.n, 0);
    assert_int_equal(l.defs.nranks, 2);
    unload(&l);
    assert_int_equal(rt_trace_remove(out, &err), 0);
    assert_int_equal(access(out, F_OK), -1);
    rt_defs_free(&d);
}

/* rt_reader_next_block on formats without blocks of their own: the events of one rank in a
 * row, RT__GATHER (64) at most, the event of the next rank held for the next block, and
 * errors after the events before them. */
/* Writers check the shape of a pending call as readers do (formats/trace.c): what one format
 * refuses to read, no writer writes. And tests/data/pending.csv goes through OTF2 and back
 * unchanged. */
static void test_writer_pending(void **state)
{
    rt_defs d;
    rt_err err;
    assert_int_equal(rt_defs_init(&d, 2, &err), 0);
    const char *out = rt_test_tmp_path("w-pending.csv");
    unlink(out);
    rt_writer *w;
    assert_int_equal(rt_writer_open(out, RT_FMT_CSV, &d, &w, &err), 0);
    rt_event ev = {.kind = RT_EV_ENTER, .rank = 1, .time = 10, .call = RT_FN_Recv};
    assert_int_equal(rt_writer_write(w, &ev, &err), 0);
    ev.kind = RT_EV_PENDING;
    ev.time = 11;
    assert_int_equal(rt_writer_write(w, &ev, &err), -RT_E_FORMAT);
    assert_non_null(strstr(err.msg, "w-pending.csv: pending MPI_Recv at 11 ns: not right after "
                                    "the enter of MPI_Recv at that time"));
    ev.time = 10; /* a write that failed changed nothing: now it is right */
    assert_int_equal(rt_writer_write(w, &ev, &err), 0);
    ev.kind = RT_EV_LEAVE;
    ev.time = 12;
    assert_int_equal(rt_writer_write(w, &ev, &err), -RT_E_FORMAT);
    assert_non_null(strstr(err.msg, "w-pending.csv: leave of MPI_Recv at 12 ns: the rank's call "
                                    "MPI_Recv at 10 ns is pending, it never returned"));
    rt_writer_abort(w);
    assert_int_equal(access(out, F_OK), -1);
    rt_defs_free(&d);

    const char *otf2 = rt_test_tmp_path("pending-otf2"), *back = rt_test_tmp_path("pending.csv");
    remove_any(otf2);
    unlink(back);
    convert(RT_TEST_DATA "/pending.csv", otf2, RT_FMT_OTF2);
    convert(otf2, back, RT_FMT_CSV);
    loaded a, b;
    assert_int_equal(load(RT_TEST_DATA "/pending.csv", &a, &err), 0);
    assert_int_equal(load(back, &b, &err), 0);
    assert_same_defs(&a.defs, &b.defs);
    assert_same_events(&a, &b);
    assert_null(b.truncated);
    unload(&a);
    unload(&b);
}

static void test_blocks_gathered(void **state)
{
    (void)state;
    rt_reader *r;
    rt_err err;
    const rt_event *ev;
    size_t n;
    rt_event one;
    /* send_ring.csv: rank 0's 6 events, then rank 1's; rt_reader_next takes the held one */
    assert_int_equal(rt_reader_open(RT_TEST_DATA "/send_ring.csv", &r, &err), 0);
    assert_int_equal(rt_reader_next_block(r, &ev, &n, &err), 1);
    assert_int_equal(n, 6);
    assert_int_equal(ev[0].rank, 0);
    assert_int_equal(ev[5].kind, RT_EV_LEAVE);
    assert_int_equal(ev[5].time, 2100);
    assert_int_equal(rt_reader_next(r, &one, &err), 1);
    assert_int_equal(one.rank, 1);
    assert_int_equal(one.kind, RT_EV_ENTER);
    assert_int_equal(rt_reader_next_block(r, &ev, &n, &err), 1);
    assert_int_equal(n, 5);
    assert_int_equal(ev[0].kind, RT_EV_SEND);
    assert_int_equal(ev[4].time, 2100);
    assert_int_equal(rt_reader_next_block(r, &ev, &n, &err), 0);
    assert_int_equal(rt_reader_next(r, &one, &err), 0);
    rt_reader_close(r);

    /* 70 events of one rank: 64, then 6 */
    char text[4096] = "ranks,1\n";
    size_t len = strlen(text);
    for (int i = 0; i < 35; i++)
        len += (size_t)snprintf(text + len, sizeof text - len,
                                "0,%d,enter,MPI_Barrier,,,,,,,,\n0,%d,leave,MPI_Barrier,,,,,,,,\n",
                                10 * i, 10 * i + 5);
    assert_int_equal(rt_reader_open(rt_test_write_file("seventy.csv", text), &r, &err), 0);
    assert_int_equal(rt_reader_next_block(r, &ev, &n, &err), 1);
    assert_int_equal(n, 64);
    assert_int_equal(ev[63].time, 315);
    assert_int_equal(rt_reader_next_block(r, &ev, &n, &err), 1);
    assert_int_equal(n, 6);
    assert_int_equal(ev[5].time, 345);
    assert_int_equal(rt_reader_next_block(r, &ev, &n, &err), 0);
    rt_reader_close(r);

    /* out_of_order.csv: rank 0's event, rank 1's, then the error, and again on asking */
    assert_int_equal(rt_reader_open(RT_TEST_DATA "/out_of_order.csv", &r, &err), 0);
    assert_int_equal(rt_reader_next_block(r, &ev, &n, &err), 1);
    assert_int_equal(n, 1);
    assert_int_equal(ev[0].time, 10);
    assert_int_equal(rt_reader_next_block(r, &ev, &n, &err), 1);
    assert_int_equal(n, 1);
    assert_int_equal(ev[0].rank, 1);
    for (int i = 0; i < 2; i++) {
        assert_int_equal(rt_reader_next_block(r, &ev, &n, &err), -RT_E_ORDER);
        assert_non_null(strstr(err.msg, "out_of_order.csv:4: events out of time order: rank 0 "
                                        "at 9 ns after 10 ns"));
    }
    rt_reader_close(r);
}

/* ---- a back end of blocks (as the TI reader's), made up here ------------------------------ */

static const rt_event fake_events[3] = {
    {.kind = RT_EV_ENTER, .call = RT_FN_Barrier, .time = 10},
    {.kind = RT_EV_LEAVE, .call = RT_FN_Barrier, .time = 20},
    {.kind = RT_EV_ENTER, .call = RT_FN_Barrier, .time = 5},
};

/* Blocks of fake_events: the first two, then the third (back in time). */
static int fake_next_block(rt_reader *r, const rt_event **ev, size_t *n, rt_err *err)
{
    (void)err;
    size_t *at = r->impl;
    if (*at >= 3)
        return 0;
    *ev = fake_events + *at;
    *n = *at ? 1 : 2;
    *at += *n;
    return 1;
}

static void fake_close(rt_reader *r)
{
    free(r->impl);
}

static const rt__reader_ops fake_ops = {.next_block = fake_next_block, .close = fake_close};

static rt_reader *fake_reader(void)
{
    rt_reader *r = calloc(1, sizeof *r);
    rt_err err;
    assert_non_null(r);
    r->path = strdup("fake");
    r->ops = &fake_ops;
    r->impl = calloc(1, sizeof(size_t));
    assert_int_equal(rt_defs_init(&r->defs, 1, &err), 0);
    r->last_time = calloc(1, sizeof *r->last_time);
    return r;
}

/* A back end that builds its own blocks gets the time-order check all the same, through
 * rt_reader_next_block and rt_reader_next alike; the error stays. */
static void test_blocks_time_order(void **state)
{
    (void)state;
    const rt_event *ev;
    size_t n;
    rt_err err;
    rt_reader *r = fake_reader();
    assert_int_equal(rt_reader_next_block(r, &ev, &n, &err), 1);
    assert_int_equal(n, 2);
    for (int i = 0; i < 2; i++) {
        assert_int_equal(rt_reader_next_block(r, &ev, &n, &err), -RT_E_ORDER);
        assert_string_equal(err.msg, "fake: events out of time order: rank 0 at 5 ns after 20 ns");
    }
    rt_reader_close(r);
    r = fake_reader();
    rt_event one;
    assert_int_equal(rt_reader_next(r, &one, &err), 1);
    assert_int_equal(rt_reader_next(r, &one, &err), 1);
    assert_int_equal(one.time, 20);
    assert_int_equal(rt_reader_next(r, &one, &err), -RT_E_ORDER);
    assert_string_equal(err.msg, "fake: events out of time order: rank 0 at 5 ns after 20 ns");
    rt_reader_close(r);
}

/* ---- the limit on ranks ---------------------------------------------------------------------- */

/* RETRACE_MAX_RANKS: every reader makes its definitions through rt_defs_init, which refuses
 * more ranks than the limit (default 2^20) before it allocates anything; a bad value of the
 * variable is its own error, naming no trace. */
static void test_rank_limit(void **state)
{
    (void)state;
    rt_defs d;
    rt_err err;
    uint32_t max;
    unsetenv("RETRACE_MAX_RANKS");
    assert_int_equal(rt_max_ranks(&max, &err), 0);
    assert_int_equal(max, 1u << 20);
    assert_int_equal(rt_defs_init(&d, (1u << 20) + 1, &err), -RT_E_RANGE);
    assert_string_equal(err.msg, "1048577 ranks, more than the limit of 1048576 (the environment "
                                 "variable RETRACE_MAX_RANKS raises it, up to 16777216)");
    /* raised, a trace of more ranks reads */
    setenv("RETRACE_MAX_RANKS", "1048577", 1);
    assert_int_equal(rt_defs_init(&d, (1u << 20) + 1, &err), 0);
    rt_defs_free(&d);
    /* lowered: every format refuses (OTF2 here; CSV, TI and raw in their own tests) */
    const char *otf2 = rt_test_tmp_path("limit-otf2");
    remove_any(otf2);
    convert(ALL_KINDS, otf2, RT_FMT_OTF2);
    setenv("RETRACE_MAX_RANKS", "2", 1);
    expect_open_error(otf2, RT_E_RANGE,
                      "limit-otf2: 4 ranks, more than the limit of 2 (the environment variable "
                      "RETRACE_MAX_RANKS raises it, up to 16777216)");
    expect_open_error(rt_test_write_file("limit.csv", "ranks,3\n"), RT_E_RANGE,
                      "limit.csv:1: 3 ranks, more than the limit of 2");
    static const char *const bad[] = {"abc", "0", "16777217", "", "-1", "1e6"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        setenv("RETRACE_MAX_RANKS", bad[i], 1);
        char msg[256];
        snprintf(msg, sizeof msg,
                 "RETRACE_MAX_RANKS: bad value '%s' (expected a whole number of ranks from 1 to "
                 "16777216)",
                 bad[i]);
        rt_reader *r;
        assert_int_equal(rt_reader_open(ALL_KINDS, &r, &err), -RT_E_INVAL);
        assert_string_equal(err.msg, msg);
        assert_int_equal(rt_defs_init(&d, 1, &err), -RT_E_INVAL);
        assert_string_equal(err.msg, msg);
    }
    unsetenv("RETRACE_MAX_RANKS");
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_missing_file),    cmocka_unit_test(test_not_a_trace),
        cmocka_unit_test(test_writer_checks),   cmocka_unit_test(test_writer_pending),
        cmocka_unit_test(test_blocks_gathered), cmocka_unit_test(test_blocks_time_order),
        cmocka_unit_test(test_rank_limit),
    };
    return rt_test_main("formats_trace", tests, argc, argv);
}
