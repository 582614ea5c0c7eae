/* Unit tests of element sizes (RT_RAW_FLAG_ELEM_SIZES) and of the targets of RMA transfers in raw
 * traces (rt_raw.h, RT_RAW_FLAG_RMA_TARGETS): the displacement in the target's units turned into
 * bytes through each rank's disp_unit, the reduction op, the RMA_TARGET event right after its
 * transfer, its way through CSV and OTF2, and traces that carry no targets or bad ones; window
 * names and info keys. Raw files are written here by hand (test_raw.h). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "rt_test_main.h"

#include "test_raw.h"

/* A defs file of rank with window 4 on MPI_COMM_WORLD, disp_unit unit, and the header flags. */
static void targets_defs(const char *dir, uint32_t rank, uint32_t nranks, uint32_t unit,
                         uint32_t flags)
{
    rbuf d = defs_file(rank, nranks);
    rt_raw_header h;
    memcpy(&h, d.p, sizeof h);
    h.flags = flags;
    memcpy(d.p, &h, sizeof h);
    rt_raw_def_win w = {.id = 4, .comm = 0, .seq = 0, .disp_unit = unit};
    def(&d, RT_RAW_DEF_WIN, &w, sizeof w, NULL, 0);
    save_defs(dir, rank, &d);
}

/* A transfer as the tracer writes it: an EVENT record at t0 with its target. */
static void transfer(rbuf *b, unsigned kind, unsigned op, int32_t peer, uint64_t bytes,
                     uint64_t rbytes, uint64_t disp, unsigned redop, uint64_t id)
{
    rt_raw_event r = {.type = RT_RAW_EVENT,
                      .kind = (uint8_t)kind,
                      .contype = RT_CT_NET,
                      .op = (uint8_t)op,
                      .redop = (uint8_t)redop,
                      .comm = 4,
                      .peer = peer,
                      .disp = disp,
                      .bytes = bytes,
                      .rbytes = rbytes,
                      .req = id};
    put(b, &r, sizeof r);
}

/* Rank 0 (disp_unit 1) puts to rank 1 (disp_unit 8) at 3 units, gets from itself at 5 and
 * compare-and-swaps on rank 1 at 2; rank 1 accumulates onto rank 0 with MPI_SUM at 7 units and
 * fetches with MPI_NO_OP from rank 0 at 0 in a second thread. */
static const char *targets_trace(const char *name, uint32_t flags)
{
    const char *dir = fresh_dir(name);
    targets_defs(dir, 0, 2, 1, flags);
    targets_defs(dir, 1, 2, 8, flags);
    rbuf t = thread_file(0, 2, 0);
    call(&t, RT_FN_Put, 100, 10);
    transfer(&t, RT_EV_RMA_PUT, 0, 1, 16, 0, 3, RT_REDOP_NONE, 1);
    call(&t, RT_FN_Get, 200, 10);
    transfer(&t, RT_EV_RMA_GET, 0, 0, 0, 8, 5, RT_REDOP_NONE, 2);
    call(&t, RT_FN_Compare_and_swap, 300, 10);
    transfer(&t, RT_EV_RMA_ATOMIC, RT_ATOMIC_COMPARE_AND_SWAP, 1, 16, 8, 2, RT_REDOP_NONE, 3);
    close_rec(&t, 400);
    save_thread(dir, 0, 0, &t);
    rbuf u = thread_file(1, 2, 0);
    call(&u, RT_FN_Accumulate, 100, 10);
    transfer(&u, RT_EV_RMA_ATOMIC, RT_ATOMIC_ACCUMULATE, 0, 24, 0, 7, RT_REDOP_SUM, 1);
    close_rec(&u, 400);
    save_thread(dir, 1, 0, &u);
    rbuf v = thread_file(1, 2, 1);
    call(&v, RT_FN_Fetch_and_op, 100, 5);
    transfer(&v, RT_EV_RMA_ATOMIC, RT_ATOMIC_FETCH_AND_OP, 0, 8, 8, 0, RT_REDOP_NO_OP, 2);
    close_rec(&v, 400);
    save_thread(dir, 1, 1, &v);
    return dir;
}

static void expect_target(const rt_event *tr, uint64_t bytes, unsigned op)
{
    const rt_event *e = tr + 1;
    assert_int_equal(e->kind, RT_EV_RMA_TARGET);
    assert_int_equal(e->time, tr->time);
    assert_int_equal(e->call, tr->call);
    assert_int_equal(e->comm, tr->comm);
    assert_int_equal(e->peer, tr->peer);
    assert_int_equal(e->bytes, bytes);
    assert_int_equal(e->op, op);
}

static void test_targets(void **state)
{
    (void)state;
    loaded raw;
    load_ok(targets_trace("targets", RT_RAW_FLAG_RMA_TARGETS), &raw);
    static const want w0[] = {
        {RT_EV_ENTER, 100, RT_FN_Put},
        {RT_EV_RMA_PUT, 100, RT_FN_Put},
        {RT_EV_RMA_TARGET, 100, RT_FN_Put},
        {RT_EV_LEAVE, 110, RT_FN_Put},
        {RT_EV_ENTER, 200, RT_FN_Get},
        {RT_EV_RMA_GET, 200, RT_FN_Get},
        {RT_EV_RMA_TARGET, 200, RT_FN_Get},
        {RT_EV_LEAVE, 210, RT_FN_Get},
        {RT_EV_ENTER, 300, RT_FN_Compare_and_swap},
        {RT_EV_RMA_ATOMIC, 300, RT_FN_Compare_and_swap},
        {RT_EV_RMA_TARGET, 300, RT_FN_Compare_and_swap},
        {RT_EV_LEAVE, 310, RT_FN_Compare_and_swap},
    };
    expect_rank(&raw, 0, w0, sizeof w0 / sizeof *w0);
    expect_target(nth_of_rank(&raw, 0, 1), 24, RT_REDOP_NONE); /* 3 units of rank 1's 8 */
    expect_target(nth_of_rank(&raw, 0, 5), 5, RT_REDOP_NONE);  /* 5 of rank 0's 1 */
    expect_target(nth_of_rank(&raw, 0, 9), 16, RT_REDOP_NONE);
    /* rank 1's two threads start at the same time: each target right after its own transfer */
    static const want w1[] = {
        {RT_EV_ENTER, 100, RT_FN_Accumulate},        {RT_EV_RMA_ATOMIC, 100, RT_FN_Accumulate},
        {RT_EV_RMA_TARGET, 100, RT_FN_Accumulate},   {RT_EV_ENTER, 100, RT_FN_Fetch_and_op},
        {RT_EV_RMA_ATOMIC, 100, RT_FN_Fetch_and_op}, {RT_EV_RMA_TARGET, 100, RT_FN_Fetch_and_op},
        {RT_EV_LEAVE, 105, RT_FN_Fetch_and_op},      {RT_EV_LEAVE, 110, RT_FN_Accumulate},
    };
    expect_rank(&raw, 1, w1, sizeof w1 / sizeof *w1);
    expect_target(nth_of_rank(&raw, 1, 1), 7, RT_REDOP_SUM);
    expect_target(nth_of_rank(&raw, 1, 4), 0, RT_REDOP_NO_OP);
    /* through CSV and OTF2 and back: the same events */
    const char *out[2] = {RT_TEST_TMP "/targets.csv", RT_TEST_TMP "/targets-otf2"};
    rt_format fmt[2] = {RT_FMT_CSV, RT_FMT_OTF2};
    for (int k = 0; k < 2; k++) {
        loaded back;
        rewrite(&raw, out[k], fmt[k], &back);
        assert_int_equal(back.n, raw.n);
        for (size_t i = 0; i < raw.n; i++)
            assert_true(rt_event_equal(&raw.ev[i], &back.ev[i]));
        rt_test_unload(&back);
    }
    rt_test_unload(&raw);
}

/* Without the header flag (a tracer before it) the same bytes mean nothing: no targets. A rank
 * whose tracer had the flag does not make up for one that had not. */
static void test_no_targets(void **state)
{
    (void)state;
    loaded raw;
    const char *dir = targets_trace("no-targets", 0);
    targets_defs(dir, 0, 2, 1, RT_RAW_FLAG_RMA_TARGETS);
    load_ok(dir, &raw);
    assert_int_equal(raw.n, 15);
    for (size_t i = 0; i < raw.n; i++)
        assert_int_not_equal(raw.ev[i].kind, RT_EV_RMA_TARGET);
    rt_test_unload(&raw);
}

/* A target whose rank gave no disp_unit (0: a unit past 32 bits) has an unknown displacement:
 * its transfers have no RMA_TARGET, the others keep theirs. */
static void test_unknown_unit(void **state)
{
    (void)state;
    loaded raw;
    const char *dir = targets_trace("unknown-unit", RT_RAW_FLAG_RMA_TARGETS);
    targets_defs(dir, 1, 2, 0, RT_RAW_FLAG_RMA_TARGETS);
    load_ok(dir, &raw);
    assert_int_equal(count_rank(&raw, 0), 10); /* the get from rank 0 keeps its target */
    assert_int_equal(nth_of_rank(&raw, 0, 5)->kind, RT_EV_RMA_TARGET);
    assert_int_equal(nth_of_rank(&raw, 0, 5)->bytes, 5);
    assert_int_equal(count_rank(&raw, 1), 8);
    rt_test_unload(&raw);
}

/* A displacement whose bytes do not fit 64 bits, a negative one, and an op out of range. */
static void test_bad_targets(void **state)
{
    (void)state;
    static const struct {
        uint64_t disp;
        unsigned redop;
        const char *msg;
    } bad[] = {
        {UINT64_C(1) << 62, RT_REDOP_NONE,
         "put with a bad target displacement (4611686018427387904 units of 8 bytes, op 0)"},
        {UINT64_MAX, RT_REDOP_NONE,
         "put with a bad target displacement (18446744073709551615 units of 8 bytes, op 0)"},
        {3, RT_REDOP_COUNT, "put with a bad reduction op (3 units of 8 bytes, op 15)"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        const char *dir = fresh_dir("bad-target");
        targets_defs(dir, 0, 2, 1, RT_RAW_FLAG_RMA_TARGETS);
        targets_defs(dir, 1, 2, 8, RT_RAW_FLAG_RMA_TARGETS);
        rbuf t = thread_file(0, 2, 0);
        call(&t, RT_FN_Put, 100, 10);
        transfer(&t, RT_EV_RMA_PUT, 0, 1, 16, 0, bad[i].disp, bad[i].redop, 1);
        close_rec(&t, 400);
        save_thread(dir, 0, 0, &t);
        rbuf u = thread_file(1, 2, 0);
        close_rec(&u, 400);
        save_thread(dir, 1, 0, &u);
        char msg[300];
        snprintf(msg, sizeof msg, "r0.t0.rtr: offset 80: %s", bad[i].msg);
        expect_error(dir, RT_E_FORMAT, msg);
    }
}

/* A defs file of rank: window 4 (disp_unit 1) with the name and info key records given. */
static void text_defs(const char *dir, uint32_t rank, const char *const *names, size_t nnames,
                      const char *key, const char *value)
{
    rbuf d = defs_file(rank, 2);
    rt_raw_def_win w = {.id = 4, .comm = 0, .seq = 0, .disp_unit = 1};
    def(&d, RT_RAW_DEF_WIN, &w, sizeof w, NULL, 0);
    unsigned char buf[512];
    if (key) {
        rt_raw_def_win_info i = {
            .id = 4, .klen = (uint16_t)strlen(key), .vlen = (uint16_t)strlen(value)};
        memcpy(buf, &i, sizeof i);
        memcpy(buf + sizeof i, key, i.klen);
        memcpy(buf + sizeof i + i.klen, value, i.vlen);
        def(&d, RT_RAW_DEF_WIN_INFO, buf, sizeof i + i.klen + i.vlen, NULL, 0);
    }
    for (size_t k = 0; k < nnames; k++) {
        rt_raw_def_win_name n = {.id = 4, .len = (uint32_t)strlen(names[k])};
        memcpy(buf, &n, sizeof n);
        memcpy(buf + sizeof n, names[k], n.len);
        def(&d, RT_RAW_DEF_WIN_NAME, buf, sizeof n + n.len, NULL, 0);
    }
    save_defs(dir, rank, &d);
}

/* Names and info keys: the lowest rank's that gave any (its last name), not a higher rank's. */
static void test_win_texts(void **state)
{
    (void)state;
    const char *dir = fresh_dir("win-texts");
    static const char *const names0[] = {"first", "nam window"}, *const names1[] = {"other"};
    text_defs(dir, 0, names0, 2, NULL, NULL);
    text_defs(dir, 1, names1, 1, "psnam_structure", "managed");
    for (uint32_t rank = 0; rank < 2; rank++) {
        rbuf t = thread_file(rank, 2, 0);
        close_rec(&t, 10);
        save_thread(dir, rank, 0, &t);
    }
    loaded raw;
    load_ok(dir, &raw);
    const rt_win_def *w = rt_defs_win(&raw.defs, 0);
    assert_non_null(w);
    assert_string_equal(w->name, "nam window");
    assert_int_equal(w->ninfo, 1); /* rank 0 gave no key: rank 1's */
    assert_string_equal(w->info[0].key, "psnam_structure");
    assert_string_equal(w->info[0].value, "managed");
    rt_test_unload(&raw);
    /* a name longer than the limit, a key with '=' and one longer than its record: refused */
    char longname[RT_WIN_NAME_LEN + 2];
    memset(longname, 'n', sizeof longname - 1);
    longname[sizeof longname - 1] = '\0';
    const char *const too_long[] = {longname};
    text_defs(dir, 0, too_long, 1, NULL, NULL);
    expect_error(dir, RT_E_FORMAT,
                 "r0.defs.rtr: offset 96: window name of 136 bytes: its lengths "
                 "do not fit");
    text_defs(dir, 0, NULL, 0, "a=b", "c");
    expect_error(dir, RT_E_FORMAT, "offset 96: window 0: info key 'a=b': a key with '='");
}

/* ---- element sizes (RT_RAW_FLAG_ELEM_SIZES) ------------------------------------------------ */

/* One rank: a send of 3 ints and an allreduce of 4 floats, each with the size code given in
 * bits 1..7 of its 'at' byte (the allreduce's receive side in pad), under the header flags. */
static const char *sizes_trace(const char *name, uint32_t flags, unsigned code)
{
    rbuf d = defs_file(0, 1);
    rt_raw_header h;
    memcpy(&h, d.p, sizeof h);
    h.flags = flags;
    memcpy(d.p, &h, sizeof h);
    rbuf t = thread_file(0, 1, 0);
    call(&t, RT_FN_Send, 100, 10);
    p2p(&t, (int)(code << 1), RT_EV_SEND, 0, 0, 5, 12, 0);
    call(&t, RT_FN_Allreduce, 200, 10);
    rt_raw_coll c = {.type = RT_RAW_COLL,
                     .at = (uint8_t)(1 | code << 1),
                     .kind = RT_EV_COLL_END,
                     .op = RT_COLL_ALLREDUCE,
                     .comm = 0,
                     .peer = RT_PEER_NONE,
                     .pad = code,
                     .bytes = 16,
                     .rbytes = 16};
    put(&t, &c, sizeof c);
    close_rec(&t, 400);
    return one_rank(name, &d, &t);
}

static const rt_event *first_of(const loaded *l, unsigned kind)
{
    for (size_t i = 0; i < l->n; i++)
        if (l->ev[i].kind == kind)
            return &l->ev[i];
    fail_msg("no %s event", rt_event_kind_name(kind));
    return NULL;
}

/* Sizes where the tracer wrote them; none, and no flag, in a trace of a tracer before them
 * (whose 'at' bytes are 0 or 1: anything else there is damage). */
static void test_elem_sizes(void **state)
{
    (void)state;
    loaded l;
    load_ok(sizes_trace("sizes", RT_RAW_FLAG_COLL_PEERS | RT_RAW_FLAG_ELEM_SIZES, 4), &l);
    assert_true(l.defs.flags & RT_DEFS_ELEM_SIZES);
    assert_int_equal(first_of(&l, RT_EV_SEND)->esize, 4);
    assert_int_equal(first_of(&l, RT_EV_SEND)->time, 100);
    const rt_event *e = first_of(&l, RT_EV_COLL_END);
    assert_int_equal(e->esize, 4);
    assert_int_equal(e->resize, 4);
    assert_int_equal(e->time, 210);
    assert_int_equal(first_of(&l, RT_EV_COLL_BEGIN)->time, 200);
    rt_test_unload(&l);
    load_ok(sizes_trace("sizes-old", RT_RAW_FLAG_COLL_PEERS, 0), &l);
    assert_false(l.defs.flags & RT_DEFS_ELEM_SIZES);
    assert_int_equal(first_of(&l, RT_EV_SEND)->esize, 0);
    assert_int_equal(first_of(&l, RT_EV_COLL_END)->esize, 0);
    assert_int_equal(first_of(&l, RT_EV_COLL_END)->resize, 0);
    rt_test_unload(&l);
    expect_error(sizes_trace("sizes-damaged", RT_RAW_FLAG_COLL_PEERS, 4), RT_E_FORMAT,
                 "record type 3 with bad 'at' 8");
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_targets),      cmocka_unit_test(test_no_targets),
        cmocka_unit_test(test_unknown_unit), cmocka_unit_test(test_bad_targets),
        cmocka_unit_test(test_win_texts),    cmocka_unit_test(test_elem_sizes),
    };
    return rt_test_main("raw_targets", tests, argc, argv);
}
