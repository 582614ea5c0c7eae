/* Unit tests of the raw trace reader (formats/raw_reader.c): raw directories written here by
 * hand, record by record, from the structs of rt_raw.h. */
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

#include "rt_raw.h"
#include "rt_test.h"
#include "rt_trace.h"

/* ---- writing raw files -------------------------------------------------------------------- */

typedef struct rbuf {
    unsigned char *p;
    size_t n, cap;
} rbuf;

static void put(rbuf *b, const void *data, size_t n)
{
    if (!n) /* data may be NULL then, and memcpy must not see a null pointer */
        return;
    if (b->n + n > b->cap) {
        b->cap = (b->n + n) * 2;
        b->p = realloc(b->p, b->cap);
        if (!b->p)
            abort();
    }
    memcpy(b->p + b->n, data, n);
    b->n += n;
}

static rbuf header(uint32_t rank, uint32_t nranks, uint32_t thread, uint32_t node, uint32_t module)
{
    rbuf b = {0};
    rt_raw_header h = {.version = RT_RAW_VERSION,
                       .rank = rank,
                       .nranks = nranks,
                       .thread = thread,
                       .node = node,
                       .module = module};
    memcpy(h.magic, RT_RAW_MAGIC, sizeof h.magic);
    put(&b, &h, sizeof h);
    return b;
}

static rbuf defs_file(uint32_t rank, uint32_t nranks)
{
    return header(rank, nranks, RT_RAW_THREAD_DEFS, 0, 0);
}

static rbuf thread_file(uint32_t rank, uint32_t nranks, uint32_t thread)
{
    return header(rank, nranks, thread, 0, 0);
}

static void call(rbuf *b, unsigned fn, uint64_t t0, uint32_t dt)
{
    rt_raw_call c = {.type = RT_RAW_CALL, .fn = (uint16_t)fn, .dt = dt, .t0 = t0};
    put(b, &c, sizeof c);
}

static void long_call(rbuf *b, unsigned fn, uint64_t t0, uint64_t t1)
{
    call(b, fn, t0, RT_RAW_DT_LONG);
    rt_raw_time t = {.type = RT_RAW_TIME, .t1 = t1};
    put(b, &t, sizeof t);
}

static void p2p(rbuf *b, int at, unsigned kind, uint32_t comm, int32_t peer, int32_t tag,
                uint64_t bytes, uint64_t req)
{
    rt_raw_p2p r = {.type = RT_RAW_P2P,
                    .at = (uint8_t)at,
                    .kind = (uint8_t)kind,
                    .contype = RT_CT_SHM,
                    .comm = comm,
                    .peer = peer,
                    .tag = tag,
                    .bytes = bytes,
                    .req = req};
    put(b, &r, sizeof r);
}

static void req(rbuf *b, int at, unsigned kind, uint32_t comm, uint64_t id)
{
    rt_raw_req r = {
        .type = RT_RAW_REQ, .at = (uint8_t)at, .kind = (uint8_t)kind, .comm = comm, .req = id};
    put(b, &r, sizeof r);
}

static void coll(rbuf *b, unsigned kind, unsigned op, uint32_t comm, int32_t root, uint64_t bytes,
                 uint64_t rbytes)
{
    rt_raw_coll r = {.type = RT_RAW_COLL,
                     .at = 1,
                     .kind = (uint8_t)kind,
                     .op = (uint8_t)op,
                     .comm = comm,
                     .peer = root,
                     .bytes = bytes,
                     .rbytes = rbytes};
    put(b, &r, sizeof r);
}

static void event(rbuf *b, int at, unsigned kind, unsigned op, uint32_t comm, int32_t peer,
                  uint64_t bytes, uint64_t rbytes, uint64_t id)
{
    rt_raw_event r = {.type = RT_RAW_EVENT,
                      .at = (uint8_t)at,
                      .kind = (uint8_t)kind,
                      .contype = RT_CT_NET,
                      .op = (uint8_t)op,
                      .comm = comm,
                      .peer = peer,
                      .bytes = bytes,
                      .rbytes = rbytes,
                      .req = id};
    put(b, &r, sizeof r);
}

/* A receive posted with wildcards, as the tracer writes it: an EVENT record at t1 (the P2P
 * record has no op byte). */
static void wild_recv(rbuf *b, unsigned kind, unsigned flags, uint32_t comm, int32_t peer,
                      int32_t tag, uint64_t bytes, uint64_t id)
{
    rt_raw_event r = {.type = RT_RAW_EVENT,
                      .at = 1,
                      .kind = (uint8_t)kind,
                      .contype = RT_CT_LOOP,
                      .op = (uint8_t)flags,
                      .comm = comm,
                      .peer = peer,
                      .tag = tag,
                      .bytes = bytes,
                      .req = id};
    put(b, &r, sizeof r);
}

static void close_rec(rbuf *b, uint64_t time)
{
    rt_raw_close c = {.type = RT_RAW_CLOSE, .time = time};
    put(b, &c, sizeof c);
}

static void def(rbuf *b, unsigned what, const void *head, size_t head_len, const uint32_t *m,
                uint32_t n)
{
    rt_raw_def d = {
        .type = RT_RAW_DEF, .what = (uint8_t)what, .nbytes = (uint32_t)(head_len + n * sizeof *m)};
    put(b, &d, sizeof d);
    put(b, head, head_len);
    put(b, m, n * sizeof *m);
    static const unsigned char zero[RT_RAW_SLOT];
    put(b, zero, (RT_RAW_SLOT - d.nbytes % RT_RAW_SLOT) % RT_RAW_SLOT);
}

static void def_comm(rbuf *b, uint32_t id, uint32_t parent, unsigned how, uint32_t seq, int32_t tag,
                     uint32_t size, uint32_t rsize, const uint32_t *members)
{
    rt_raw_def_comm d = {.id = id,
                         .parent = parent,
                         .how = how,
                         .seq = seq,
                         .size = size,
                         .remote_size = rsize,
                         .tag = tag};
    def(b, RT_RAW_DEF_COMM, &d, sizeof d, members, size + rsize);
}

static void def_group(rbuf *b, uint32_t id, uint32_t size, const uint32_t *members)
{
    rt_raw_def_group d = {.id = id, .size = size};
    def(b, RT_RAW_DEF_GROUP, &d, sizeof d, members, size);
}

static void def_win(rbuf *b, uint32_t id, uint32_t comm, uint32_t seq)
{
    rt_raw_def_win d = {.id = id, .comm = comm, .seq = seq};
    def(b, RT_RAW_DEF_WIN, &d, sizeof d, NULL, 0);
}

static char *path_in(const char *dir, const char *name)
{
    static char buf[8][2048];
    static int next;
    char *p = buf[next++ % 8];
    snprintf(p, sizeof buf[0], "%s/%s", dir, name);
    return p;
}

/* An empty directory RT_TEST_TMP/name (or dir itself when it is absolute). */
static const char *fresh_dir(const char *name)
{
    static char buf[4][2048];
    static int next;
    char *p = buf[next++ % 4];
    mkdir(RT_TEST_TMP, 0777);
    snprintf(p, sizeof buf[0], name[0] == '/' ? "%s" : RT_TEST_TMP "/%s", name);
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s'", p, p);
    if (system(cmd) != 0)
        abort();
    return p;
}

/* Writes the first n bytes of b (all of them for SIZE_MAX) as dir/name, and frees b. */
static void save_cut(const char *dir, const char *name, rbuf *b, size_t n)
{
    FILE *f = fopen(path_in(dir, name), "wb");
    if (!f)
        abort();
    if (n > b->n)
        n = b->n;
    if (fwrite(b->p, 1, n, f) != n || fclose(f) != 0)
        abort();
    free(b->p);
    memset(b, 0, sizeof *b);
}

static void save(const char *dir, const char *name, rbuf *b)
{
    save_cut(dir, name, b, SIZE_MAX);
}

static void save_thread(const char *dir, uint32_t rank, uint32_t thread, rbuf *b)
{
    char name[64];
    snprintf(name, sizeof name, RT_RAW_THREAD_NAME, (unsigned)rank, (unsigned)thread);
    save(dir, name, b);
}

static void save_defs(const char *dir, uint32_t rank, rbuf *b)
{
    char name[64];
    snprintf(name, sizeof name, RT_RAW_DEFS_NAME, (unsigned)rank);
    save(dir, name, b);
}

/* ---- reading ------------------------------------------------------------------------------ */

typedef rt_test_trace loaded;

static void load_ok(const char *path, loaded *l)
{
    rt_err err;
    if (rt_test_load(path, l, &err) < 0)
        fail_msg("%s", err.msg);
}

/* Opening or reading fails with code, and the message contains msg. */
static void expect_error(const char *path, int code, const char *msg)
{
    loaded l;
    rt_err err;
    int rc = rt_test_load(path, &l, &err);
    if (rc == 0)
        fail_msg("%s: read without an error, expected '%s'", path, msg);
    if (rc > 0 || -rc != code || !strstr(err.msg, msg))
        fail_msg("got '%s' (%d), expected '%s' (%d)", err.msg, -rc, msg, code);
    rt_test_unload(&l);
}

static size_t count_rank(const loaded *l, uint32_t rank)
{
    size_t n = 0;
    for (size_t i = 0; i < l->n; i++)
        n += l->ev[i].rank == rank;
    return n;
}

static const rt_event *nth_of_rank(const loaded *l, uint32_t rank, size_t k)
{
    for (size_t i = 0; i < l->n; i++)
        if (l->ev[i].rank == rank && k-- == 0)
            return &l->ev[i];
    fail_msg("rank %u has no event %zu", (unsigned)rank, k);
    return NULL;
}

/* The events of one rank are exactly these (kind, time, call). */
typedef struct want {
    unsigned kind;
    uint64_t time;
    unsigned call;
} want;

static void expect_rank(const loaded *l, uint32_t rank, const want *w, size_t n)
{
    assert_int_equal(count_rank(l, rank), n);
    for (size_t i = 0; i < n; i++) {
        const rt_event *e = nth_of_rank(l, rank, i);
        if (e->kind != w[i].kind || e->time != w[i].time || e->call != w[i].call)
            fail_msg("rank %u event %zu: %s at %llu in %s, expected %s at %llu in %s",
                     (unsigned)rank, i, rt_event_kind_name(e->kind), (unsigned long long)e->time,
                     rt_func_name(e->call), rt_event_kind_name(w[i].kind),
                     (unsigned long long)w[i].time, rt_func_name(w[i].call));
    }
}

/* ---- expansion of records ----------------------------------------------------------------- */

static void test_expand(void **state)
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
    coll(&t, RT_EV_RMA_COLL_END, RT_COLL_BARRIER, 4, RT_PEER_NONE, 0, 0);
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

    loaded l;
    load_ok(dir, &l);
    assert_int_equal(l.format, RT_FMT_RAW);
    assert_null(l.truncated);
    assert_int_equal(l.defs.nranks, 2);
    assert_int_equal(l.defs.node[1], 1);
    assert_int_equal(l.defs.module[1], 1);
    assert_int_equal(l.defs.ncomms, 2);
    assert_int_equal(l.defs.nwins, 1);
    const uint64_t L = 5000000000ull;
    const want w0[] = {
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
        {RT_EV_ISEND_COMPLETE, L + 500, RT_FN_Wait},
        {RT_EV_LEAVE, L + 500, RT_FN_Wait},
        {RT_EV_ENTER, L + 600, RT_FN_Sendrecv},
        {RT_EV_SEND, L + 600, RT_FN_Sendrecv},
        {RT_EV_RECV, L + 650, RT_FN_Sendrecv},
        {RT_EV_LEAVE, L + 650, RT_FN_Sendrecv},
        {RT_EV_ENTER, L + 700, RT_FN_Win_create},
        {RT_EV_WIN_CREATE, L + 710, RT_FN_Win_create},
        {RT_EV_LEAVE, L + 710, RT_FN_Win_create},
        {RT_EV_ENTER, L + 800, RT_FN_Win_fence},
        {RT_EV_RMA_COLL_BEGIN, L + 800, RT_FN_Win_fence},
        {RT_EV_RMA_COLL_END, L + 810, RT_FN_Win_fence},
        {RT_EV_LEAVE, L + 810, RT_FN_Win_fence},
        {RT_EV_ENTER, L + 900, RT_FN_Put},
        {RT_EV_RMA_PUT, L + 900, RT_FN_Put},
        {RT_EV_LEAVE, L + 910, RT_FN_Put},
        {RT_EV_ENTER, L + 1000, RT_FN_Barrier},
        {RT_EV_LEAVE, L + 1000, RT_FN_Barrier},
    };
    expect_rank(&l, 0, w0, sizeof w0 / sizeof *w0);
    const want w1[] = {
        {RT_EV_ENTER, 7, RT_FN_Barrier},
        {RT_EV_COLL_BEGIN, 7, RT_FN_Barrier},
        {RT_EV_COLL_END, 10, RT_FN_Barrier},
        {RT_EV_LEAVE, 10, RT_FN_Barrier},
    };
    expect_rank(&l, 1, w1, sizeof w1 / sizeof *w1);
    /* rank 0 comes first, whole */
    assert_int_equal(l.ev[0].rank, 0);
    assert_int_equal(l.ev[sizeof w0 / sizeof *w0].rank, 1);

    const rt_event *e = nth_of_rank(&l, 0, 1);
    assert_int_equal(e->comm, 0);
    assert_int_equal(e->peer, 1);
    assert_int_equal(e->tag, 5);
    assert_int_equal(e->bytes, 64);
    assert_int_equal(e->contype, RT_CT_SHM);
    e = nth_of_rank(&l, 0, 8); /* coll_end */
    assert_int_equal(e->op, RT_COLL_ALLREDUCE);
    assert_int_equal(e->peer, RT_PEER_NONE);
    assert_int_equal(e->bytes, 8);
    assert_int_equal(e->rbytes, 16);
    e = nth_of_rank(&l, 0, 11); /* isend */
    assert_int_equal(e->req, 77);
    assert_int_equal(e->bytes, 1000);
    e = nth_of_rank(&l, 0, 14); /* isend_complete */
    assert_int_equal(e->req, 77);
    e = nth_of_rank(&l, 0, 21); /* win_create: the window's global id */
    assert_int_equal(e->comm, 0);
    e = nth_of_rank(&l, 0, 28); /* put */
    assert_int_equal(e->comm, 0);
    assert_int_equal(e->bytes, 256);
    assert_int_equal(e->contype, RT_CT_NET);
    assert_int_equal(e->req, 3);
    assert_int_equal(rt_defs_peer_world(&l.defs, e), 1);
    rt_test_unload(&l);

    /* a .rtr file names its directory */
    load_ok(path_in(dir, "r1.t0.rtr"), &l);
    assert_int_equal(l.format, RT_FMT_RAW);
    assert_int_equal(l.n, sizeof w0 / sizeof *w0 + sizeof w1 / sizeof *w1);
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

/* ---- unification of local ids ------------------------------------------------------------- */

static const uint32_t world4[] = {0, 1, 2, 3};
static const uint32_t evens[] = {0, 2}, odds[] = {1, 3};
static const uint32_t merged[] = {0, 2, 1, 3};

/* Local ids of each rank (different on purpose). */
enum { SPLIT, DUP1, DUP2, CG1, CG2, INTER, MERGE, WIN_DUP, WIN_WORLD, WIN_SELF, GROUP, NLOCAL };
static const uint32_t local_ids[4][NLOCAL] = {
    {2, 3, 4, 0, 0, 5, 6, 0, 1, 0, 0},
    {7, 8, 9, 10, 11, 12, 13, 5, 6, 0, 3},
    {3, 5, 8, 0, 0, 9, 10, 1, 2, 3, 4},
    {2, 3, 4, 5, 6, 7, 8, 0, 1, 2, 9},
};

/* Four ranks: split into evens and odds, two dups, two Comm_create_group on the odds, an
 * inter-communicator between evens and odds and its merge, windows on a dup, on world and on
 * self, and PSCW groups. */
static const char *unify_trace(void)
{
    const char *dir = fresh_dir("unify");
    for (uint32_t r = 0; r < 4; r++) {
        const uint32_t *id = local_ids[r];
        const uint32_t *mine = r % 2 ? odds : evens, *other = r % 2 ? evens : odds;
        rbuf d = defs_file(r, 4);
        def_comm(&d, id[SPLIT], 0, RT_FN_Comm_split, 0, 0, 2, 0, mine);
        def_comm(&d, id[DUP1], 0, RT_FN_Comm_dup, 1, 0, 4, 0, world4);
        def_comm(&d, id[DUP2], 0, RT_FN_Comm_dup, 2, 0, 4, 0, world4);
        if (r % 2) {
            def_comm(&d, id[CG1], 0, RT_FN_Comm_create_group, 0, 7, 2, 0, odds);
            def_comm(&d, id[CG2], 0, RT_FN_Comm_create_group, 0, 7, 2, 0, odds);
        }
        uint32_t inter[4];
        memcpy(inter, mine, sizeof evens);
        memcpy(inter + 2, other, sizeof evens);
        def_comm(&d, id[INTER], id[SPLIT], RT_FN_Intercomm_create, 1, 9, 2, 2, inter);
        def_comm(&d, id[MERGE], id[INTER], RT_FN_Intercomm_merge, 0, 0, 4, 0, merged);
        def_win(&d, id[WIN_DUP], id[DUP1], 0);
        def_win(&d, id[WIN_WORLD], 0, 3);
        if (r >= 2)
            def_win(&d, id[WIN_SELF], 1, 0);
        def_group(&d, id[GROUP], 2, other);
        save_defs(dir, r, &d);
    }
    rbuf t[4];
    for (uint32_t r = 0; r < 4; r++) {
        t[r] = thread_file(r, 4, 0);
        call(&t[r], RT_FN_Send, 10, 1);
    }
    p2p(&t[1], 0, RT_EV_SEND, local_ids[1][SPLIT], 1, 0, 8, 0); /* to world rank 3 */
    p2p(&t[0], 0, RT_EV_SEND, local_ids[0][INTER], 1, 0, 8, 0); /* to 3 */
    p2p(&t[3], 0, RT_EV_SEND, local_ids[3][INTER], 0, 0, 8, 0); /* to 0 */
    p2p(&t[2], 0, RT_EV_SEND, local_ids[2][MERGE], 2, 0, 8, 0); /* to 1 */
    call(&t[3], RT_FN_Send, 20, 1);
    p2p(&t[3], 0, RT_EV_SEND, local_ids[3][CG2], 0, 0, 8, 0); /* to 1 */
    call(&t[2], RT_FN_Put, 20, 1);
    event(&t[2], 0, RT_EV_RMA_PUT, 0, local_ids[2][WIN_DUP], 3, 8, 0, 1); /* to 3 */
    call(&t[2], RT_FN_Put, 30, 1);
    event(&t[2], 0, RT_EV_RMA_PUT, 0, local_ids[2][WIN_SELF], 0, 8, 0, 2); /* to itself */
    call(&t[0], RT_FN_Win_post, 20, 1);
    event(&t[0], 1, RT_EV_RMA_GROUP_SYNC, RT_PSCW_POST, local_ids[0][WIN_WORLD],
          (int32_t)local_ids[0][GROUP], 0, 0, 0);
    call(&t[1], RT_FN_Win_start, 20, 1);
    event(&t[1], 1, RT_EV_RMA_GROUP_SYNC, RT_PSCW_START, local_ids[1][WIN_WORLD],
          (int32_t)local_ids[1][GROUP], 0, 0, 0);
    for (uint32_t r = 0; r < 4; r++) {
        close_rec(&t[r], 100);
        save_thread(dir, r, 0, &t[r]);
    }
    return dir;
}

static void expect_comm(const rt_defs *d, uint32_t id, uint32_t parent, const char *name,
                        uint32_t size, uint32_t rsize, const uint32_t *members)
{
    const rt_comm_def *c = rt_defs_comm(d, id);
    assert_non_null(c);
    assert_int_equal(c->parent, parent);
    assert_string_equal(c->name, name);
    assert_int_equal(c->size, size);
    assert_int_equal(c->remote_size, rsize);
    assert_int_equal(!!(c->flags & RT_COMM_IS_INTER), rsize > 0);
    assert_memory_equal(c->members, members, (size + rsize) * sizeof *members);
}

static void test_unify(void **state)
{
    loaded l;
    load_ok(unify_trace(), &l);
    assert_null(l.truncated);
    const rt_defs *d = &l.defs;
    /* by first appearance: rank 0's definitions, then rank 1's new ones */
    const uint32_t inter0[] = {0, 2, 1, 3};
    assert_int_equal(d->ncomms, 10);
    expect_comm(d, 2, 0, "MPI_Comm_split", 2, 0, evens);
    expect_comm(d, 3, 0, "MPI_Comm_dup", 4, 0, world4);
    expect_comm(d, 4, 0, "MPI_Comm_dup", 4, 0, world4);
    expect_comm(d, 5, 2, "MPI_Intercomm_create", 2, 2, inter0);
    expect_comm(d, 6, 5, "MPI_Intercomm_merge", 4, 0, merged);
    expect_comm(d, 7, 0, "MPI_Comm_split", 2, 0, odds);
    expect_comm(d, 8, 0, "MPI_Comm_create_group", 2, 0, odds);
    expect_comm(d, 9, 0, "MPI_Comm_create_group", 2, 0, odds);
    assert_int_equal(d->nwins, 4);
    assert_int_equal(rt_defs_win(d, 0)->comm, 3);
    assert_int_equal(rt_defs_win(d, 1)->comm, 0);
    assert_int_equal(rt_defs_win(d, 2)->comm, 1); /* rank 2's own window on self */
    assert_int_equal(rt_defs_win(d, 3)->comm, 1); /* rank 3's */
    assert_int_equal(d->ngroups, 2);
    assert_memory_equal(rt_defs_group(d, 0)->members, odds, sizeof odds);
    assert_memory_equal(rt_defs_group(d, 1)->members, evens, sizeof evens);

    const rt_event *e = nth_of_rank(&l, 1, 1);
    assert_int_equal(e->comm, 7);
    assert_int_equal(rt_defs_peer_world(d, e), 3);
    e = nth_of_rank(&l, 0, 1);
    assert_int_equal(e->comm, 5);
    assert_int_equal(rt_defs_peer_world(d, e), 3);
    e = nth_of_rank(&l, 3, 1);
    assert_int_equal(e->comm, 5);
    assert_int_equal(rt_defs_peer_world(d, e), 0);
    e = nth_of_rank(&l, 2, 1);
    assert_int_equal(e->comm, 6);
    assert_int_equal(rt_defs_peer_world(d, e), 1);
    e = nth_of_rank(&l, 3, 4);
    assert_int_equal(e->comm, 9); /* the second create_group */
    assert_int_equal(rt_defs_peer_world(d, e), 1);
    e = nth_of_rank(&l, 2, 4);
    assert_int_equal(e->kind, RT_EV_RMA_PUT);
    assert_int_equal(e->comm, 0);
    assert_int_equal(rt_defs_peer_world(d, e), 3);
    e = nth_of_rank(&l, 2, 7);
    assert_int_equal(e->comm, 2);
    assert_int_equal(rt_defs_peer_world(d, e), 2);
    e = nth_of_rank(&l, 0, 4);
    assert_int_equal(e->kind, RT_EV_RMA_GROUP_SYNC);
    assert_int_equal(e->comm, 1);
    assert_int_equal(e->peer, 0);
    e = nth_of_rank(&l, 1, 4);
    assert_int_equal(e->peer, 1);
    rt_test_unload(&l);
}

/* The unified definitions and events are a valid trace: CSV and OTF2 keep them. */
static void test_convert(void **state)
{
    loaded raw;
    load_ok(unify_trace(), &raw);
    const char *out[2] = {RT_TEST_TMP "/unify.csv", RT_TEST_TMP "/unify-otf2"};
    rt_format fmt[2] = {RT_FMT_CSV, RT_FMT_OTF2};
    for (int k = 0; k < 2; k++) {
        rt_err err;
        rt_trace_remove(out[k], &err);
        rt_writer *w;
        if (rt_writer_open(out[k], fmt[k], &raw.defs, &w, &err) < 0)
            fail_msg("%s", err.msg);
        for (size_t i = 0; i < raw.n; i++)
            if (rt_writer_write(w, &raw.ev[i], &err) < 0)
                fail_msg("%s", err.msg);
        assert_int_equal(rt_writer_close(w, &err), 0);
        loaded back;
        load_ok(out[k], &back);
        assert_int_equal(back.n, raw.n);
        for (uint32_t r = 0; r < 4; r++) { /* rank by rank: formats interleave ranks freely */
            assert_int_equal(count_rank(&back, r), count_rank(&raw, r));
            for (size_t i = 0; i < count_rank(&raw, r); i++)
                assert_true(rt_event_equal(nth_of_rank(&raw, r, i), nth_of_rank(&back, r, i)));
        }
        assert_int_equal(back.defs.ncomms, raw.defs.ncomms);
        assert_int_equal(back.defs.nwins, raw.defs.nwins);
        assert_int_equal(back.defs.ngroups, raw.defs.ngroups);
        rt_test_unload(&back);
    }
    rt_test_unload(&raw);
}

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

static const char *one_rank(const char *name, rbuf *defs, rbuf *t)
{
    const char *dir = fresh_dir(name);
    save_defs(dir, 0, defs);
    save_thread(dir, 0, 0, t);
    return dir;
}

static void test_bad_files(void **state)
{
    rbuf d = defs_file(0, 1), t = thread_file(0, 1, 0);
    memcpy(d.p, "NOTRAW!!", 8);
    expect_error(one_rank("bad-magic", &d, &t), RT_E_FORMAT, "r0.defs.rtr: not a retrace raw file");

    d = defs_file(0, 1), t = thread_file(0, 1, 0);
    t.p[7] = 9; /* the byte-order bytes differ */
    expect_error(one_rank("bad-magic2", &d, &t), RT_E_FORMAT, "r0.t0.rtr: not a retrace raw file");

    d = defs_file(0, 1), t = thread_file(0, 1, 0);
    d.p[8] = 2;
    expect_error(one_rank("bad-version", &d, &t), RT_E_FORMAT,
                 "r0.defs.rtr: raw format version 2 (this reader reads 1)");

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

    dir = fresh_dir("no-defs");
    expect_error(path_in(dir, "r0.t0.rtr"), RT_E_NOTFOUND, "r0.t0.rtr");
    t = thread_file(0, 1, 0);
    save_thread(dir, 0, 0, &t);
    expect_error(path_in(dir, "r0.t0.rtr"), RT_E_FORMAT,
                 "no-defs: not a trace (no raw definitions file with a header)");
}

static void test_bad_records(void **state)
{
    rbuf d = defs_file(0, 1), t = thread_file(0, 1, 0);
    call(&t, RT_FN_Send, 1, 1);
    uint8_t junk[16] = {9};
    put(&t, junk, sizeof junk);
    expect_error(one_rank("bad-type", &d, &t), RT_E_FORMAT,
                 "bad-type/r0.t0.rtr: offset 80: unknown record type 9");

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
}

/* The wildcards of receives: none on P2P records, the op of EVENT records; and through the
 * CSV and OTF2 writers unchanged. An op that is no set of wildcards is an error. */
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
    wild_recv(&t, RT_EV_IRECV, RT_RECV_ALL, 0, 0, 9, 1, 8);
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
        {18, RT_EV_IRECV, RT_RECV_ALL, 9, 1, 8, 65},
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
        rt_err err;
        rt_trace_remove(out[k], &err);
        rt_writer *w;
        if (rt_writer_open(out[k], fmt[k], &raw.defs, &w, &err) < 0)
            fail_msg("%s", err.msg);
        for (size_t i = 0; i < raw.n; i++)
            if (rt_writer_write(w, &raw.ev[i], &err) < 0)
                fail_msg("%s", err.msg);
        assert_int_equal(rt_writer_close(w, &err), 0);
        loaded back;
        load_ok(out[k], &back);
        assert_int_equal(back.n, raw.n);
        for (size_t i = 0; i < raw.n; i++)
            assert_true(rt_event_equal(&raw.ev[i], &back.ev[i]));
        rt_test_unload(&back);
    }
    rt_test_unload(&raw);

    d = defs_file(0, 1), t = thread_file(0, 1, 0);
    call(&t, RT_FN_Recv, 10, 5);
    wild_recv(&t, RT_EV_RECV, RT_RECV_ALL + 1, 0, 0, 3, 8, 0);
    close_rec(&t, 100);
    expect_error(one_rank("wild-bad", &d, &t), RT_E_INVAL, "recv: unknown op 4");
}

static void test_bad_defs(void **state)
{
    static const uint32_t two[] = {0, 1}, far[] = {0, 5};
    struct {
        const char *name, *msg;
    } cases[] = {
        {"def-parent",
         "r0.defs.rtr: offset 64: communicator 2: parent communicator 7 is not defined"},
        {"def-member",
         "r0.defs.rtr: offset 64: communicator 2: member 5 is not a world rank (0 to 1)"},
        {"def-short",
         "r0.defs.rtr: offset 64: communicator 2: 2 members do not fit a payload of 36 bytes"},
        {"def-twice", "r0.defs.rtr: offset 128: communicator 2 is defined twice"},
        {"def-how", "r0.defs.rtr: offset 64: communicator 2: unknown creating function 999"},
        {"def-win", "r0.defs.rtr: offset 64: window 0: communicator 4 is not defined"},
        {"def-huge",
         "r0.defs.rtr: offset 64: a definition of 4096 bytes does not fit a trace of 2 ranks"},
        {"def-kind", "r0.defs.rtr: offset 64: unknown definition kind 9"},
        {"def-notme", "r0.defs.rtr: offset 64: communicator 2: rank 0 is not in its local group"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        rbuf d = defs_file(0, 2);
        switch (i) {
        case 0:
            def_comm(&d, 2, 7, RT_FN_Comm_dup, 0, 0, 2, 0, two);
            break;
        case 1:
            def_comm(&d, 2, 0, RT_FN_Comm_split, 0, 0, 2, 0, far);
            break;
        case 2: {
            rt_raw_def_comm c = {.id = 2, .how = RT_FN_Comm_dup, .size = 2};
            def(&d, RT_RAW_DEF_COMM, &c, sizeof c, two, 1);
            break;
        }
        case 3:
            def_comm(&d, 2, 0, RT_FN_Comm_dup, 0, 0, 2, 0, two);
            def_comm(&d, 2, 0, RT_FN_Comm_dup, 1, 0, 2, 0, two);
            break;
        case 4:
            def_comm(&d, 2, 0, 999, 0, 0, 2, 0, two);
            break;
        case 5:
            def_win(&d, 0, 4, 0);
            break;
        case 6: {
            rt_raw_def h = {.type = RT_RAW_DEF, .what = RT_RAW_DEF_GROUP, .nbytes = 4096};
            put(&d, &h, sizeof h);
            break;
        }
        case 7: {
            rt_raw_def h = {.type = RT_RAW_DEF, .what = 9, .nbytes = 0};
            put(&d, &h, sizeof h);
            break;
        }
        case 8:
            def_comm(&d, 2, 0, RT_FN_Comm_split, 0, 0, 1, 0, two + 1);
            break;
        }
        const char *dir = fresh_dir(cases[i].name);
        save_defs(dir, 0, &d);
        expect_error(dir, RT_E_FORMAT, cases[i].msg);
    }

    /* two ranks disagree on the members of one communicator */
    const char *dir = fresh_dir("def-disagree");
    for (uint32_t r = 0; r < 2; r++) {
        rbuf d = defs_file(r, 2);
        const uint32_t rev[] = {1, 0};
        def_comm(&d, 2, 0, RT_FN_Comm_dup, 0, 0, 2, 0, r ? rev : two);
        save_defs(dir, r, &d);
    }
    expect_error(dir, RT_E_FORMAT,
                 "r1.defs.rtr: offset 64: communicator 2 (MPI_Comm_dup) has other members than the "
                 "same communicator on a lower rank");

    /* a definitions file cut in the middle of a record: the record is left out */
    dir = fresh_dir("def-cut");
    rbuf d = defs_file(0, 2);
    def_comm(&d, 2, 0, RT_FN_Comm_dup, 0, 0, 2, 0, two);
    def_comm(&d, 3, 0, RT_FN_Comm_dup, 1, 0, 2, 0, two);
    save_cut(dir, "r0.defs.rtr", &d, 64 + 64 + 20);
    d = defs_file(1, 2);
    save_defs(dir, 1, &d);
    for (uint32_t r = 0; r < 2; r++) {
        rbuf t = thread_file(r, 2, 0);
        close_rec(&t, 1);
        save_thread(dir, r, 0, &t);
    }
    loaded l;
    load_ok(dir, &l);
    assert_int_equal(l.defs.ncomms, 3);
    assert_non_null(l.truncated);
    if (!strstr(l.truncated, "r0.defs.rtr: definitions cut short at offset 128"))
        fail_msg("%s", l.truncated);
    rt_test_unload(&l);
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

/* ---- neighbour lists ------------------------------------------------------------------------ */

static void def_nbrs(rbuf *b, uint32_t comm, uint32_t nin, const int32_t *in, uint32_t nout,
                     const int32_t *out)
{
    uint32_t v[16];
    memcpy(v, in, nin * sizeof *in);
    memcpy(v + nin, out, nout * sizeof *out);
    rt_raw_def_nbrs d = {.comm = comm, .nin = nin, .nout = nout};
    def(b, RT_RAW_DEF_NBRS, &d, sizeof d, v, nin + nout);
}

/* Each rank's lists arrive under its own local id of the communicator; MPI_PROC_NULL slots
 * and repeated neighbours are kept; CSV and OTF2 keep them too. */
static void test_neighbor_lists(void **state)
{
    const char *dir = fresh_dir("nbrs");
    static const uint32_t two[] = {0, 1}, one[] = {1};
    static const int32_t in0[] = {1, RT_PEER_NONE, 1}, out0[] = {RT_PEER_NONE, 1};
    static const int32_t in1[] = {0}, out1[] = {0, 0, RT_PEER_NONE};
    rbuf d = defs_file(0, 2);
    def_comm(&d, 2, 0, RT_FN_Comm_dup, 0, 0, 2, 0, two);
    def_comm(&d, 3, 0, RT_FN_Cart_create, 1, 0, 2, 0, two);
    def_nbrs(&d, 3, 3, in0, 2, out0);
    save_defs(dir, 0, &d);
    d = defs_file(1, 2);
    def_comm(&d, 2, 1, RT_FN_Comm_dup, 0, 0, 1, 0, one); /* a duplicate of self first */
    def_comm(&d, 3, 0, RT_FN_Comm_dup, 0, 0, 2, 0, two);
    def_comm(&d, 4, 0, RT_FN_Cart_create, 1, 0, 2, 0, two);
    def_nbrs(&d, 4, 1, in1, 3, out1);
    save_defs(dir, 1, &d);
    for (uint32_t r = 0; r < 2; r++) {
        rbuf t = thread_file(r, 2, 0);
        call(&t, RT_FN_Neighbor_alltoall, 5, 5);
        coll(&t, RT_EV_COLL_END, RT_COLL_NEIGHBOR_ALLTOALL, r ? 4 : 3, RT_PEER_NONE,
             8 * (r ? 3 : 2), 8 * (r ? 1 : 3));
        close_rec(&t, 20);
        save_thread(dir, r, 0, &t);
    }
    loaded raw;
    load_ok(dir, &raw);
    const char *out[2] = {RT_TEST_TMP "/nbrs.csv", RT_TEST_TMP "/nbrs-otf2"};
    rt_format fmt[2] = {RT_FMT_CSV, RT_FMT_OTF2};
    for (int k = -1; k < 2; k++) {
        loaded back, *l = &raw;
        if (k >= 0) { /* through CSV and OTF2 */
            rt_err err;
            rt_trace_remove(out[k], &err);
            rt_writer *w;
            if (rt_writer_open(out[k], fmt[k], &raw.defs, &w, &err) < 0)
                fail_msg("%s", err.msg);
            for (size_t i = 0; i < raw.n; i++)
                if (rt_writer_write(w, &raw.ev[i], &err) < 0)
                    fail_msg("%s", err.msg);
            assert_int_equal(rt_writer_close(w, &err), 0);
            load_ok(out[k], &back);
            l = &back;
        }
        const rt_defs *defs = &l->defs;
        assert_int_equal(defs->ncomms, 5);
        assert_int_equal(defs->nnbrs, 2);
        uint32_t cart = nth_of_rank(l, 0, 2)->comm; /* enter, coll_begin, coll_end */
        assert_int_equal(nth_of_rank(l, 1, 2)->comm, cart);
        assert_string_equal(rt_defs_comm(defs, cart)->name, "MPI_Cart_create");
        const rt_nbr_def *n0 = rt_defs_nbrs(defs, cart, 0), *n1 = rt_defs_nbrs(defs, cart, 1);
        assert_non_null(n0);
        assert_non_null(n1);
        assert_null(rt_defs_nbrs(defs, RT_COMM_WORLD, 0));
        assert_int_equal(n0->nin, 3);
        assert_int_equal(n0->nout, 2);
        assert_memory_equal(n0->in, in0, sizeof in0);
        assert_memory_equal(n0->out, out0, sizeof out0);
        assert_int_equal(n1->nin, 1);
        assert_int_equal(n1->nout, 3);
        assert_memory_equal(n1->in, in1, sizeof in1);
        assert_memory_equal(n1->out, out1, sizeof out1);
        /* 1 sends to 0 twice and 0 receives from 1 twice; 0 to 1 once each way */
        assert_int_equal(rt_defs_nbrs_check(defs, NULL), 0);
        if (k >= 0)
            rt_test_unload(&back);
    }
    rt_test_unload(&raw);
}

static void test_bad_neighbor_lists(void **state)
{
    static const uint32_t two[] = {0, 1}, three[] = {1, 0, 1};
    static const int32_t ok[] = {1, 0}, far[] = {1, 2};
    struct {
        const char *name, *msg;
    } cases[] = {
        {"nbrs-comm", "r0.defs.rtr: offset 64: neighbour lists: communicator 9 is not defined"},
        {"nbrs-rank",
         "r0.defs.rtr: offset 128: neighbour lists of rank 0 on communicator 2: destinations 1 "
         "is 2, not a rank of the communicator (0 to 1) or none"},
        {"nbrs-short",
         "r0.defs.rtr: offset 128: neighbour lists on communicator 2: 2 sources and 2 "
         "destinations do not fit a payload of 28 bytes"},
        {"nbrs-twice", "r0.defs.rtr: offset 176: neighbour lists of rank 0 on communicator 2 "
                       "are defined twice"},
        {"nbrs-huge",
         "r0.defs.rtr: offset 64: neighbour lists of 4294967295 bytes: more than 1048576 "
         "neighbours a list"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        rbuf d = defs_file(0, 2);
        if (i == 0) {
            def_nbrs(&d, 9, 2, ok, 2, ok);
        } else if (i == 4) {
            rt_raw_def h = {.type = RT_RAW_DEF, .what = RT_RAW_DEF_NBRS, .nbytes = UINT32_MAX};
            put(&d, &h, sizeof h);
        } else {
            def_comm(&d, 2, 0, RT_FN_Graph_create, 0, 0, 2, 0, two);
            if (i == 1) {
                def_nbrs(&d, 2, 2, ok, 2, far);
            } else if (i == 2) {
                rt_raw_def_nbrs h = {.comm = 2, .nin = 2, .nout = 2};
                def(&d, RT_RAW_DEF_NBRS, &h, sizeof h, three, 3);
            } else {
                def_nbrs(&d, 2, 2, ok, 2, ok);
                def_nbrs(&d, 2, 2, ok, 2, ok);
            }
        }
        const char *dir = fresh_dir(cases[i].name);
        save_defs(dir, 0, &d);
        expect_error(dir, RT_E_FORMAT, cases[i].msg);
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
        cmocka_unit_test(test_expand),
        cmocka_unit_test(test_thread_merge),
        cmocka_unit_test(test_big_call),
        cmocka_unit_test(test_unify),
        cmocka_unit_test(test_convert),
        cmocka_unit_test(test_missing_rank),
        cmocka_unit_test(test_cut_thread),
        cmocka_unit_test(test_bad_files),
        cmocka_unit_test(test_bad_records),
        cmocka_unit_test(test_wildcard_receives),
        cmocka_unit_test(test_bad_defs),
        cmocka_unit_test(test_api),
        cmocka_unit_test(test_tiny_data),
        cmocka_unit_test(test_neighbor_lists),
        cmocka_unit_test(test_bad_neighbor_lists),
    };
    return rt_test_main("raw", tests, argc, argv);
}
