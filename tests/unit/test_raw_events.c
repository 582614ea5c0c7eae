/* Unit tests of the raw reader's events (formats/raw_reader.c): records expanded into events,
 * the threads of a rank merged by time, calls larger than the reader's blocks, bad records,
 * and the wildcards of receives. Raw files are written here by hand (test_raw.h). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "rt_test_main.h"

#include "test_raw.h"

/* ---- expansion of records ----------------------------------------------------------------- */

#define LONG_NS 5000000000ull /* past 2^32 ns: rank 0's calls after its long call */

/* Rank 0: a call of each record type, a long one among them; rank 1: a barrier. */
static const want expand_rank0[] = {
    {RT_EV_ENTER, 100, RT_FN_Send},
    {RT_EV_SEND, 100, RT_FN_Send},
    {RT_EV_LEAVE, 120, RT_FN_Send},
    {RT_EV_ENTER, 200, RT_FN_Recv},
    {RT_EV_RECV, 230, RT_FN_Recv},
    {RT_EV_LEAVE, 230, RT_FN_Recv},
    {RT_EV_ENTER, 300, RT_FN_Allreduce},
    {RT_EV_COLL_BEGIN, 300, RT_FN_Allreduce},
    {RT_EV_COLL_END, 340, RT_FN_Allreduce},
    {RT_EV_LEAVE, 340, RT_FN_Allreduce},
    {RT_EV_ENTER, 400, RT_FN_Isend},
    {RT_EV_ISEND, 400, RT_FN_Isend},
    {RT_EV_LEAVE, 405, RT_FN_Isend},
    {RT_EV_ENTER, 500, RT_FN_Wait},
    {RT_EV_ISEND_COMPLETE, LONG_NS + 500, RT_FN_Wait},
    {RT_EV_LEAVE, LONG_NS + 500, RT_FN_Wait},
    {RT_EV_ENTER, LONG_NS + 600, RT_FN_Sendrecv},
    {RT_EV_SEND, LONG_NS + 600, RT_FN_Sendrecv},
    {RT_EV_RECV, LONG_NS + 650, RT_FN_Sendrecv},
    {RT_EV_LEAVE, LONG_NS + 650, RT_FN_Sendrecv},
    {RT_EV_ENTER, LONG_NS + 700, RT_FN_Win_create},
    {RT_EV_WIN_CREATE, LONG_NS + 710, RT_FN_Win_create},
    {RT_EV_LEAVE, LONG_NS + 710, RT_FN_Win_create},
    {RT_EV_ENTER, LONG_NS + 800, RT_FN_Win_fence},
    {RT_EV_RMA_COLL_BEGIN, LONG_NS + 800, RT_FN_Win_fence},
    {RT_EV_RMA_COLL_END, LONG_NS + 810, RT_FN_Win_fence},
    {RT_EV_LEAVE, LONG_NS + 810, RT_FN_Win_fence},
    {RT_EV_ENTER, LONG_NS + 900, RT_FN_Put},
    {RT_EV_RMA_PUT, LONG_NS + 900, RT_FN_Put},
    {RT_EV_LEAVE, LONG_NS + 910, RT_FN_Put},
    {RT_EV_ENTER, LONG_NS + 1000, RT_FN_Barrier},
    {RT_EV_LEAVE, LONG_NS + 1000, RT_FN_Barrier},
};
static const want expand_rank1[] = {
    {RT_EV_ENTER, 7, RT_FN_Barrier},
    {RT_EV_COLL_BEGIN, 7, RT_FN_Barrier},
    {RT_EV_COLL_END, 10, RT_FN_Barrier},
    {RT_EV_LEAVE, 10, RT_FN_Barrier},
};
#define N_RANK0 (sizeof expand_rank0 / sizeof *expand_rank0)
#define N_RANK1 (sizeof expand_rank1 / sizeof *expand_rank1)

/* The records of expand_rank0 and expand_rank1, on two nodes and modules, window 4 defined
 * on both ranks. */
static const char *expand_trace(void)
{
    const char *dir = fresh_dir("expand");
    for (uint32_t rank = 0; rank < 2; rank++) {
        rbuf d = header(rank, 2, RT_RAW_THREAD_DEFS, rank, rank);
        def_win(&d, 4, 0, 0);
        save_defs(dir, rank, &d);
    }
    rbuf t = thread_file(0, 2, 0);
    call(&t, RT_FN_Send, 100, 20);
    p2p(&t, 0, RT_EV_SEND, 0, 1, 5, 64, 0);
    call(&t, RT_FN_Recv, 200, 30);
    p2p(&t, 1, RT_EV_RECV, 0, 1, 6, 8, 0);
    call(&t, RT_FN_Allreduce, 300, 40);
    coll(&t, RT_EV_COLL_END, RT_COLL_ALLREDUCE, 0, RT_PEER_NONE, 8, 16);
    call(&t, RT_FN_Isend, 400, 5);
    p2p(&t, 0, RT_EV_ISEND, 0, 1, 7, 1000, 77);
    long_call(&t, RT_FN_Wait, 500, 5000000500ull); /* longer than 2^32 ns */
    req(&t, 1, RT_EV_ISEND_COMPLETE, 0, 77);
    call(&t, RT_FN_Sendrecv, 5000000600ull, 50);
    p2p(&t, 1, RT_EV_RECV, 0, 1, 8, 4, 0); /* written first, happened last */
    p2p(&t, 0, RT_EV_SEND, 0, 1, 8, 4, 0);
    call(&t, RT_FN_Win_create, 5000000700ull, 10);
    req(&t, 1, RT_EV_WIN_CREATE, 4, 0);
    call(&t, RT_FN_Win_fence, 5000000800ull, 10);
    rt_raw_coll fence = {.type = RT_RAW_COLL,
                         .at = 1,
                         .kind = RT_EV_RMA_COLL_END,
                         .op = RT_COLL_BARRIER,
                         .comm = 4,
                         .peer = RT_PEER_NONE,
                         .pad = RT_ASSERT_NOPRECEDE | RT_ASSERT_NOSTORE}; /* its assert */
    put(&t, &fence, sizeof fence);
    call(&t, RT_FN_Put, 5000000900ull, 10);
    event(&t, 0, RT_EV_RMA_PUT, 0, 4, 1, 256, 0, 3);
    call(&t, RT_FN_Barrier, 5000001000ull, 0);
    close_rec(&t, 5000002000ull);
    save_thread(dir, 0, 0, &t);
    rbuf u = thread_file(1, 2, 0);
    call(&u, RT_FN_Barrier, 7, 3);
    coll(&u, RT_EV_COLL_END, RT_COLL_BARRIER, 0, RT_PEER_NONE, 0, 0);
    close_rec(&u, 10);
    save_thread(dir, 1, 0, &u);
    return dir;
}

/* The fields of rank 0's events beyond kind, time and call, as its records hold them. */
static void expect_rank0_fields(const loaded *l)
{
    const rt_event *e = nth_of_rank(l, 0, 1);
    assert_int_equal(e->comm, 0);
    assert_int_equal(e->peer, 1);
    assert_int_equal(e->tag, 5);
    assert_int_equal(e->bytes, 64);
    assert_int_equal(e->contype, RT_CT_SHM);
    e = nth_of_rank(l, 0, 8); /* coll_end */
    assert_int_equal(e->op, RT_COLL_ALLREDUCE);
    assert_int_equal(e->peer, RT_PEER_NONE);
    assert_int_equal(e->bytes, 8);
    assert_int_equal(e->rbytes, 16);
    e = nth_of_rank(l, 0, 11); /* isend */
    assert_int_equal(e->req, 77);
    assert_int_equal(e->bytes, 1000);
    e = nth_of_rank(l, 0, 14); /* isend_complete */
    assert_int_equal(e->req, 77);
    e = nth_of_rank(l, 0, 21); /* win_create: the window's global id */
    assert_int_equal(e->comm, 0);
    e = nth_of_rank(l, 0, 25); /* rma_coll_end: the fence's assert from the record's pad */
    assert_int_equal(e->kind, RT_EV_RMA_COLL_END);
    assert_int_equal(e->tag, RT_ASSERT_NOPRECEDE | RT_ASSERT_NOSTORE);
    e = nth_of_rank(l, 0, 28); /* put */
    assert_int_equal(e->comm, 0);
    assert_int_equal(e->bytes, 256);
    assert_int_equal(e->contype, RT_CT_NET);
    assert_int_equal(e->req, 3);
    assert_int_equal(rt_defs_peer_world(&l->defs, e), 1);
}

static void test_expand(void **state)
{
    const char *dir = expand_trace();
    loaded l;
    load_ok(dir, &l);
    assert_int_equal(l.format, RT_FMT_RAW);
    assert_null(l.truncated);
    assert_int_equal(l.defs.nranks, 2);
    assert_int_equal(l.defs.node[1], 1);
    assert_int_equal(l.defs.module[1], 1);
    assert_int_equal(l.defs.ncomms, 2);
    assert_int_equal(l.defs.nwins, 1);
    expect_rank(&l, 0, expand_rank0, N_RANK0);
    expect_rank(&l, 1, expand_rank1, N_RANK1);
    /* rank 0 comes first, whole */
    assert_int_equal(l.ev[0].rank, 0);
    assert_int_equal(l.ev[N_RANK0].rank, 1);
    expect_rank0_fields(&l);
    rt_test_unload(&l);

    /* a .rtr file names its directory */
    load_ok(path_in(dir, "r1.t0.rtr"), &l);
    assert_int_equal(l.format, RT_FMT_RAW);
    assert_int_equal(l.n, N_RANK0 + N_RANK1);
    rt_test_unload(&l);
}

/* Threads of one rank merge by time; on a tie the lower thread goes first. Thread numbers
 * need not be contiguous. */
static void test_thread_merge(void **state)
{
    const char *dir = fresh_dir("threads");
    rbuf d = defs_file(0, 1);
    save_defs(dir, 0, &d);
    rbuf a = thread_file(0, 1, 0), b = thread_file(0, 1, 3);
    call(&a, RT_FN_Send, 10, 10);
    p2p(&a, 0, RT_EV_SEND, 1, 0, 0, 8, 0);
    call(&a, RT_FN_Barrier, 30, 10);
    close_rec(&a, 50);
    call(&b, RT_FN_Recv, 15, 5);
    p2p(&b, 1, RT_EV_RECV, 1, 0, 0, 8, 0);
    call(&b, RT_FN_Iprobe, 30, 2);
    call(&b, RT_FN_Iprobe, 45, 0);
    close_rec(&b, 50);
    save_thread(dir, 0, 0, &a);
    save_thread(dir, 0, 3, &b);
    loaded l;
    load_ok(dir, &l);
    assert_null(l.truncated);
    const want w[] = {
        {RT_EV_ENTER, 10, RT_FN_Send},    {RT_EV_SEND, 10, RT_FN_Send},
        {RT_EV_ENTER, 15, RT_FN_Recv},    {RT_EV_LEAVE, 20, RT_FN_Send},
        {RT_EV_RECV, 20, RT_FN_Recv},     {RT_EV_LEAVE, 20, RT_FN_Recv},
        {RT_EV_ENTER, 30, RT_FN_Barrier}, {RT_EV_ENTER, 30, RT_FN_Iprobe},
        {RT_EV_LEAVE, 32, RT_FN_Iprobe},  {RT_EV_LEAVE, 40, RT_FN_Barrier},
        {RT_EV_ENTER, 45, RT_FN_Iprobe},  {RT_EV_LEAVE, 45, RT_FN_Iprobe},
    };
    expect_rank(&l, 0, w, sizeof w / sizeof *w);
    rt_test_unload(&l);
}

/* Calls straddle the reader's 1 MiB blocks, and one call is larger than a block. */
static void test_big_call(void **state)
{
    const char *dir = fresh_dir("big");
    rbuf d = defs_file(0, 1);
    save_defs(dir, 0, &d);
    rbuf t = thread_file(0, 1, 0);
    enum { SMALL = 30000, WAITED = 100000 };
    uint64_t time = 0;
    for (int i = 0; i < SMALL; i++, time += 10) {
        call(&t, RT_FN_Isend, time, 5);
        p2p(&t, 0, RT_EV_ISEND, 0, 0, 1, 8, (uint64_t)i);
    }
    call(&t, RT_FN_Waitall, time, 5);
    for (int i = 0; i < WAITED; i++)
        req(&t, 1, RT_EV_ISEND_COMPLETE, 0, (uint64_t)i);
    call(&t, RT_FN_Barrier, time + 10, 5);
    close_rec(&t, time + 100);
    assert_true(t.n > (2u << 20));
    save_thread(dir, 0, 0, &t);
    loaded l;
    load_ok(dir, &l);
    assert_null(l.truncated);
    assert_int_equal(l.n, 3 * SMALL + 2 + WAITED + 2);
    for (int i = 0; i < SMALL; i++)
        assert_int_equal(l.ev[3 * i + 1].req, i);
    for (int i = 0; i < WAITED; i++)
        assert_int_equal(l.ev[3 * SMALL + 1 + i].req, i);
    assert_int_equal(l.ev[l.n - 1].kind, RT_EV_LEAVE);
    assert_int_equal(l.ev[l.n - 1].call, RT_FN_Barrier);
    rt_test_unload(&l);
}

/* ---- bad records ---------------------------------------------------------------------------- */

static void test_bad_records(void **state)
{
    rbuf d = defs_file(0, 1), t = thread_file(0, 1, 0);
    call(&t, RT_FN_Send, 1, 1);
    uint8_t junk[16] = {RT_RAW_TYPE_COUNT};
    put(&t, junk, sizeof junk);
    expect_error(one_rank("bad-type", &d, &t), RT_E_FORMAT,
                 "bad-type/r0.t0.rtr: offset 80: unknown record type 10");

    d = defs_file(0, 1), t = thread_file(0, 1, 0);
    p2p(&t, 0, RT_EV_SEND, 0, 0, 0, 1, 0);
    expect_error(one_rank("bad-outside", &d, &t), RT_E_FORMAT,
                 "r0.t0.rtr: offset 64: record type 3 outside a call");

    d = defs_file(0, 1), t = thread_file(0, 1, 0);
    call(&t, RT_FN_Send, 1, 1);
    p2p(&t, 0, RT_EV_COLL_END, 0, 0, 0, 1, 0);
    expect_error(one_rank("bad-kind", &d, &t), RT_E_FORMAT,
                 "r0.t0.rtr: offset 80: record type 3 with bad event kind 10");

    d = defs_file(0, 1), t = thread_file(0, 1, 0);
    call(&t, RT_FN_Send, 1, 1);
    p2p(&t, 0, RT_EV_SEND, 9, 0, 0, 1, 0);
    close_rec(&t, 5);
    expect_error(one_rank("bad-comm", &d, &t), RT_E_FORMAT,
                 "r0.t0.rtr: offset 80: communicator 9 is not defined on rank 0");

    d = defs_file(0, 1), t = thread_file(0, 1, 0);
    call(&t, RT_FN_Win_fence, 1, 1);
    coll(&t, RT_EV_RMA_COLL_END, RT_COLL_BARRIER, 2, RT_PEER_NONE, 0, 0);
    close_rec(&t, 5);
    expect_error(one_rank("bad-win", &d, &t), RT_E_FORMAT,
                 "r0.t0.rtr: offset 80: window 2 is not defined on rank 0");

    d = defs_file(0, 1), t = thread_file(0, 1, 0);
    call(&t, RT_FN_Wait, 1, RT_RAW_DT_LONG);
    call(&t, RT_FN_Wait, 2, 1);
    expect_error(one_rank("bad-time", &d, &t), RT_E_FORMAT,
                 "r0.t0.rtr: offset 64: a long call without its TIME record");

    d = defs_file(0, 1), t = thread_file(0, 1, 0);
    call(&t, RT_FN_Send, 10, 1);
    call(&t, RT_FN_Send, 5, 1);
    close_rec(&t, 20);
    expect_error(one_rank("bad-order", &d, &t), RT_E_ORDER,
                 "r0.t0.rtr: offset 80: events out of time order: rank 0 at 5 ns after 11 ns");

    /* t0 + dt past 2^64 ns: refused, not wrapped round to an early time */
    d = defs_file(0, 1), t = thread_file(0, 1, 0);
    call(&t, RT_FN_Send, UINT64_MAX - 5, 10);
    close_rec(&t, 20);
    expect_error(one_rank("bad-end", &d, &t), RT_E_FORMAT,
                 "r0.t0.rtr: offset 64: a call at 18446744073709551610 ns lasting 10 ns ends past "
                 "2^64 ns");
}

/* The wildcards of receives: none on P2P records, the op of EVENT records; and through the
 * CSV and OTF2 writers unchanged. The same for the mark of a partitioned message, on its ISEND
 * and its IRECV (EVENT records). An op that is no set of wildcards is an error. */
static void test_wildcard_receives(void **state)
{
    rbuf d = defs_file(0, 1), t = thread_file(0, 1, 0);
    call(&t, RT_FN_Recv, 10, 5);
    p2p(&t, 1, RT_EV_RECV, 0, 0, 3, 8, 0);
    call(&t, RT_FN_Recv, 20, 5);
    wild_recv(&t, RT_EV_RECV, RT_RECV_ANY_SOURCE, 0, 0, 4, 16, 0);
    call(&t, RT_FN_Sendrecv, 30, 5);
    p2p(&t, 0, RT_EV_SEND, 0, 0, 5, 4, 0);
    wild_recv(&t, RT_EV_RECV, RT_RECV_ANY_TAG, 0, 0, 5, 4, 0);
    call(&t, RT_FN_Irecv, 40, 5);
    req(&t, 0, RT_EV_IRECV_REQUEST, 0, 7);
    call(&t, RT_FN_Irecv, 50, 5);
    req(&t, 0, RT_EV_IRECV_REQUEST, 0, 8);
    call(&t, RT_FN_Waitall, 60, 5);
    p2p(&t, 1, RT_EV_IRECV, 0, 0, 6, 2, 7);
    wild_recv(&t, RT_EV_IRECV, RT_RECV_WILD, 0, 0, 9, 1, 8);
    call(&t, RT_FN_Pready, 70, 5);
    wild_recv(&t, RT_EV_ISEND, RT_RECV_PARTITIONED, 0, 0, 7, 128, 9);
    call(&t, RT_FN_Wait, 80, 5);
    wild_recv(&t, RT_EV_IRECV, RT_RECV_PARTITIONED, 0, 0, 7, 128, 10);
    close_rec(&t, 100);
    const char *dir = one_rank("wild", &d, &t);
    loaded raw;
    load_ok(dir, &raw);
    assert_null(raw.truncated);
    static const struct {
        size_t index;
        unsigned kind, op;
        int32_t tag;
        uint64_t bytes, req, time;
    } checks[] = {
        {1, RT_EV_RECV, 0, 3, 8, 0, 15},
        {4, RT_EV_RECV, RT_RECV_ANY_SOURCE, 4, 16, 0, 25},
        {8, RT_EV_RECV, RT_RECV_ANY_TAG, 5, 4, 0, 35},
        {17, RT_EV_IRECV, 0, 6, 2, 7, 65},
        {18, RT_EV_IRECV, RT_RECV_WILD, 9, 1, 8, 65},
        {21, RT_EV_ISEND, RT_RECV_PARTITIONED, 7, 128, 9, 75},
        {24, RT_EV_IRECV, RT_RECV_PARTITIONED, 7, 128, 10, 85},
    };
    for (size_t i = 0; i < sizeof checks / sizeof *checks; i++) {
        const rt_event *e = nth_of_rank(&raw, 0, checks[i].index);
        assert_int_equal(e->kind, checks[i].kind);
        assert_int_equal(e->op, checks[i].op);
        assert_int_equal(e->tag, checks[i].tag);
        assert_int_equal(e->bytes, checks[i].bytes);
        assert_int_equal(e->req, checks[i].req);
        assert_int_equal(e->time, checks[i].time);
        assert_int_equal(e->peer, 0);
        assert_int_equal(e->contype, i == 0 || i == 3 ? RT_CT_SHM : RT_CT_LOOP);
    }
    const char *out[2] = {RT_TEST_TMP "/wild.csv", RT_TEST_TMP "/wild-otf2"};
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

    d = defs_file(0, 1), t = thread_file(0, 1, 0);
    call(&t, RT_FN_Recv, 10, 5);
    wild_recv(&t, RT_EV_RECV, RT_RECV_PARTITIONED, 0, 0, 3, 8, 0);
    close_rec(&t, 100);
    expect_error(one_rank("wild-bad", &d, &t), RT_E_INVAL, "recv: unknown op 4");
}

/* ---- the trailer: a pending call ---------------------------------------------------------- */

static void pending(rbuf *b, unsigned fn, uint64_t t0, unsigned nops, uint32_t nwait)
{
    rt_raw_pending p = {.type = RT_RAW_PENDING,
                        .nops = (uint8_t)nops,
                        .fn = (uint16_t)fn,
                        .nwait = nwait,
                        .t0 = t0};
    put(b, &p, sizeof p);
}

/* A pending operation as the tracer writes it: an EVENT record at t0. */
static void pending_op(rbuf *b, unsigned kind, unsigned op, int32_t peer, int32_t tag, uint64_t id)
{
    rt_raw_event r = {.type = RT_RAW_EVENT,
                      .kind = (uint8_t)kind,
                      .contype = RT_CT_SHM,
                      .op = (uint8_t)op,
                      .peer = peer,
                      .tag = tag,
                      .req = id};
    put(b, &r, sizeof r);
}

/*
 * The per-peer counts of v collectives (COLL_PEER rows, rt_raw.h): a COLL record of kind
 * COLL_PEER is its row alone, at t1 (no BEGIN), after a blocking call's COLL_END or after the
 * NBC_COMPLETE EVENT record of a nonblocking one; the headers' flag becomes
 * RT_DEFS_COLL_PEERS when every rank's defs file has it. Rows come out the same through CSV
 * and OTF2.
 */
static void test_coll_peer_rows(void **state)
{
    (void)state;
    const char *dir = fresh_dir("peers");
    for (uint32_t rank = 0; rank < 2; rank++) {
        rbuf d = defs_file(rank, 2);
        rt_raw_header h;
        memcpy(&h, d.p, sizeof h);
        h.flags = RT_RAW_FLAG_COLL_PEERS;
        memcpy(d.p, &h, sizeof h);
        save_defs(dir, rank, &d);
    }
    rbuf t = thread_file(0, 2, 0);
    call(&t, RT_FN_Alltoallv, 100, 10);
    coll(&t, RT_EV_COLL_END, RT_COLL_ALLTOALLV, 0, RT_PEER_NONE, 30, 12);
    coll(&t, RT_EV_COLL_PEER, RT_COLL_ALLTOALLV, 0, 0, 10, 0);
    coll(&t, RT_EV_COLL_PEER, RT_COLL_ALLTOALLV, 0, 1, 20, 12);
    call(&t, RT_FN_Ialltoallv, 200, 5);
    req(&t, 0, RT_EV_NBC_REQUEST, 0, 9);
    call(&t, RT_FN_Wait, 300, 7);
    event(&t, 1, RT_EV_NBC_COMPLETE, RT_COLL_ALLTOALLV, 0, RT_PEER_NONE, 12, 30, 9);
    coll(&t, RT_EV_COLL_PEER, RT_COLL_ALLTOALLV, 0, 0, 0, 10);
    coll(&t, RT_EV_COLL_PEER, RT_COLL_ALLTOALLV, 0, 1, 12, 20);
    close_rec(&t, 400);
    save_thread(dir, 0, 0, &t);
    rbuf u = thread_file(1, 2, 0);
    close_rec(&u, 400);
    save_thread(dir, 1, 0, &u);
    loaded raw;
    load_ok(dir, &raw);
    assert_int_equal(raw.defs.flags, RT_DEFS_COLL_PEERS);
    static const want w[] = {
        {RT_EV_ENTER, 100, RT_FN_Alltoallv},     {RT_EV_COLL_BEGIN, 100, RT_FN_Alltoallv},
        {RT_EV_COLL_END, 110, RT_FN_Alltoallv},  {RT_EV_COLL_PEER, 110, RT_FN_Alltoallv},
        {RT_EV_COLL_PEER, 110, RT_FN_Alltoallv}, {RT_EV_LEAVE, 110, RT_FN_Alltoallv},
        {RT_EV_ENTER, 200, RT_FN_Ialltoallv},    {RT_EV_NBC_REQUEST, 200, RT_FN_Ialltoallv},
        {RT_EV_LEAVE, 205, RT_FN_Ialltoallv},    {RT_EV_ENTER, 300, RT_FN_Wait},
        {RT_EV_NBC_COMPLETE, 307, RT_FN_Wait},   {RT_EV_COLL_PEER, 307, RT_FN_Wait},
        {RT_EV_COLL_PEER, 307, RT_FN_Wait},      {RT_EV_LEAVE, 307, RT_FN_Wait},
    };
    expect_rank(&raw, 0, w, sizeof w / sizeof *w);
    const rt_event *e = nth_of_rank(&raw, 0, 4);
    assert_int_equal(e->peer, 1);
    assert_int_equal(e->op, RT_COLL_ALLTOALLV);
    assert_int_equal(e->bytes, 20);
    assert_int_equal(e->rbytes, 12);
    e = nth_of_rank(&raw, 0, 11);
    assert_int_equal(e->peer, 0);
    assert_int_equal(e->bytes, 0);
    assert_int_equal(e->rbytes, 10);
    const char *out[2] = {RT_TEST_TMP "/peers.csv", RT_TEST_TMP "/peers-otf2"};
    rt_format fmt[2] = {RT_FMT_CSV, RT_FMT_OTF2};
    for (int k = 0; k < 2; k++) {
        loaded back;
        rewrite(&raw, out[k], fmt[k], &back);
        assert_int_equal(back.defs.flags, RT_DEFS_COLL_PEERS);
        assert_int_equal(back.n, raw.n);
        for (size_t i = 0; i < raw.n; i++)
            assert_true(rt_event_equal(&raw.ev[i], &back.ev[i]));
        rt_test_unload(&back);
    }
    rt_test_unload(&raw);
    rbuf d = defs_file(1, 2); /* a rank whose tracer wrote no rows: the trace says nothing */
    save_defs(dir, 1, &d);
    load_ok(dir, &raw);
    assert_int_equal(raw.defs.flags, 0);
    rt_test_unload(&raw);
}

/* Thread 0 blocked in a Recv, thread 1 in a Waitall on an any-source Irecv and an Isend: each
 * ends in ENTER, PENDING and the operations at t0, without LEAVE; the trace is cut short. */
static void test_pending_trailer(void **state)
{
    const char *dir = fresh_dir("pending");
    rbuf d = defs_file(0, 2);
    save_defs(dir, 0, &d);
    rbuf t = thread_file(0, 2, 0);
    call(&t, RT_FN_Send, 100, 20);
    p2p(&t, 0, RT_EV_SEND, 0, 1, 5, 64, 0);
    pending(&t, RT_FN_Recv, 300, 1, 0);
    pending_op(&t, RT_EV_RECV, 0, 1, 7, 0);
    static const unsigned char erased[48]; /* the zeros of an older trailer behind it */
    put(&t, erased, sizeof erased);
    save_thread(dir, 0, 0, &t);
    rbuf u = thread_file(0, 2, 1);
    pending(&u, RT_FN_Waitall, 250, 2, 2);
    pending_op(&u, RT_EV_IRECV, RT_RECV_ANY_SOURCE, RT_PEER_NONE, 9, 41);
    pending_op(&u, RT_EV_ISEND_COMPLETE, 0, 0, 0, 42);
    save_thread(dir, 0, 1, &u);
    d = defs_file(1, 2);
    save_defs(dir, 1, &d);
    t = thread_file(1, 2, 0);
    call(&t, RT_FN_Recv, 90, 40);
    p2p(&t, 1, RT_EV_RECV, 0, 0, 5, 64, 0);
    close_rec(&t, 200);
    save_thread(dir, 1, 0, &t);
    loaded l;
    load_ok(dir, &l);
    static const want rank0[] = {
        {RT_EV_ENTER, 100, RT_FN_Send},
        {RT_EV_SEND, 100, RT_FN_Send},
        {RT_EV_LEAVE, 120, RT_FN_Send},
        {RT_EV_ENTER, 250, RT_FN_Waitall},
        {RT_EV_PENDING, 250, RT_FN_Waitall},
        {RT_EV_IRECV, 250, RT_FN_Waitall},
        {RT_EV_ISEND_COMPLETE, 250, RT_FN_Waitall},
        {RT_EV_ENTER, 300, RT_FN_Recv},
        {RT_EV_PENDING, 300, RT_FN_Recv},
        {RT_EV_RECV, 300, RT_FN_Recv},
    };
    expect_rank(&l, 0, rank0, sizeof rank0 / sizeof *rank0);
    const rt_event *e = nth_of_rank(&l, 0, 5); /* the wait's receive, as posted */
    assert_int_equal(e->peer, RT_PEER_NONE);
    assert_int_equal(e->op, RT_RECV_ANY_SOURCE);
    assert_int_equal(e->tag, 9);
    assert_int_equal(e->bytes, 0);
    assert_int_equal(e->req, 41);
    assert_int_equal(nth_of_rank(&l, 0, 6)->req, 42);
    e = nth_of_rank(&l, 0, 9);
    assert_int_equal(e->peer, 1);
    assert_int_equal(e->tag, 7);
    assert_int_equal(e->comm, 0);
    assert_int_equal(e->contype, RT_CT_SHM);
    assert_int_equal(count_rank(&l, 1), 3);
    assert_non_null(l.truncated);
    if (!strstr(l.truncated, "pending/r0.t1.rtr: rank 0 thread 1 was cut short after 4 events "
                             "(the run did not finish) (and 1 more cut short)"))
        fail_msg("truncated: '%s'", l.truncated);
    rt_test_unload(&l);
}

/* A trailer is the end of the data: anything after it, a PENDING inside the data, a bad
 * operation are damaged files; a trailer cut mid-record is left out, the calls before kept. */
static void test_pending_bad(void **state)
{
    rbuf d = defs_file(0, 1), t = thread_file(0, 1, 0);
    pending(&t, RT_FN_Recv, 10, 1, 0);
    pending_op(&t, RT_EV_RECV, 0, 0, 3, 0);
    call(&t, RT_FN_Send, 20, 1);
    expect_error(one_rank("pending-more", &d, &t), RT_E_FORMAT,
                 "pending-more/r0.t0.rtr: offset 128: record type 1 after a pending call, which "
                 "must end the data");

    d = defs_file(0, 1), t = thread_file(0, 1, 0);
    call(&t, RT_FN_Send, 1, 1);
    pending(&t, RT_FN_Recv, 10, 0, 0);
    close_rec(&t, 20);
    expect_error(one_rank("pending-close", &d, &t), RT_E_FORMAT,
                 "r0.t0.rtr: offset 96: record type 8 after a pending call, which must end the "
                 "data");

    d = defs_file(0, 1), t = thread_file(0, 1, 0);
    pending(&t, RT_FN_Waitall, 10, 17, 20);
    expect_error(one_rank("pending-many", &d, &t), RT_E_FORMAT,
                 "r0.t0.rtr: offset 64: a PENDING record with 17 operations (at most 16)");

    d = defs_file(0, 1), t = thread_file(0, 1, 0);
    pending(&t, RT_FN_Isend, 10, 1, 0);
    pending_op(&t, RT_EV_ISEND, 0, 0, 3, 0);
    expect_error(one_rank("pending-kind", &d, &t), RT_E_FORMAT,
                 "r0.t0.rtr: offset 80: operation 0 of a pending call is not an EVENT record at "
                 "t0 of a kind a pending call has (type 6, at 0, kind 3)");

    d = defs_file(0, 1), t = thread_file(0, 1, 0);
    pending(&t, RT_FN_Recv, 10, 1, 0);
    p2p(&t, 0, RT_EV_RECV, 0, 0, 3, 0, 0);
    close_rec(&t, 20); /* the rest of the operation's 48 bytes */
    expect_error(one_rank("pending-p2p", &d, &t), RT_E_FORMAT,
                 "operation 0 of a pending call is not an EVENT record at t0 of a kind a pending "
                 "call has (type 3, at 0, kind 5)");

    d = defs_file(0, 1), t = thread_file(0, 1, 0);
    pending(&t, RT_FN_Recv, 10, 1, 0);
    pending_op(&t, RT_EV_RECV, 0, 9, 3, 0); /* peer 9 of a one-rank world */
    expect_error(one_rank("pending-peer", &d, &t), RT_E_INVAL, "peer 9");

    /* cut in the middle of its operation: left out, the call before it kept */
    d = defs_file(0, 1), t = thread_file(0, 1, 0);
    call(&t, RT_FN_Send, 1, 1);
    p2p(&t, 0, RT_EV_SEND, 0, 0, 0, 1, 0);
    pending(&t, RT_FN_Recv, 10, 1, 0);
    pending_op(&t, RT_EV_RECV, 0, 0, 3, 0);
    const char *dir = fresh_dir("pending-cut");
    save_defs(dir, 0, &d);
    save_cut(dir, "r0.t0.rtr", &t, 64 + 48 + 16 + 20);
    loaded l;
    load_ok(dir, &l);
    static const want kept[] = {
        {RT_EV_ENTER, 1, RT_FN_Send}, {RT_EV_SEND, 1, RT_FN_Send}, {RT_EV_LEAVE, 2, RT_FN_Send}};
    expect_rank(&l, 0, kept, 3);
    assert_non_null(strstr(l.truncated, "rank 0 thread 0 was cut short after 3 events"));
    rt_test_unload(&l);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_expand),
        cmocka_unit_test(test_thread_merge),
        cmocka_unit_test(test_big_call),
        cmocka_unit_test(test_bad_records),
        cmocka_unit_test(test_wildcard_receives),
        cmocka_unit_test(test_coll_peer_rows),
        cmocka_unit_test(test_pending_trailer),
        cmocka_unit_test(test_pending_bad),
    };
    return rt_test_main("raw_events", tests, argc, argv);
}
