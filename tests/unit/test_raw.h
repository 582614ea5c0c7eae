/* Helpers shared by the unit tests of the raw trace reader (test_raw.c, test_raw_events.c,
 * test_raw_defs.c): raw files written by hand, record by record, from the structs of
 * rt_raw.h, into scratch directories; traces read back whole and their events compared.
 * Include it after cmocka.h. */
#ifndef TEST_RAW_H
#define TEST_RAW_H

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

static inline void put(rbuf *b, const void *data, size_t n)
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

static inline rbuf header(uint32_t rank, uint32_t nranks, uint32_t thread, uint32_t node,
                          uint32_t module)
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

static inline rbuf defs_file(uint32_t rank, uint32_t nranks)
{
    return header(rank, nranks, RT_RAW_THREAD_DEFS, 0, 0);
}

static inline rbuf thread_file(uint32_t rank, uint32_t nranks, uint32_t thread)
{
    return header(rank, nranks, thread, 0, 0);
}

static inline void call(rbuf *b, unsigned fn, uint64_t t0, uint32_t dt)
{
    rt_raw_call c = {.type = RT_RAW_CALL, .fn = (uint16_t)fn, .dt = dt, .t0 = t0};
    put(b, &c, sizeof c);
}

static inline void long_call(rbuf *b, unsigned fn, uint64_t t0, uint64_t t1)
{
    call(b, fn, t0, RT_RAW_DT_LONG);
    rt_raw_time t = {.type = RT_RAW_TIME, .t1 = t1};
    put(b, &t, sizeof t);
}

static inline void p2p(rbuf *b, int at, unsigned kind, uint32_t comm, int32_t peer, int32_t tag,
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

static inline void req(rbuf *b, int at, unsigned kind, uint32_t comm, uint64_t id)
{
    rt_raw_req r = {
        .type = RT_RAW_REQ, .at = (uint8_t)at, .kind = (uint8_t)kind, .comm = comm, .req = id};
    put(b, &r, sizeof r);
}

static inline void coll(rbuf *b, unsigned kind, unsigned op, uint32_t comm, int32_t root,
                        uint64_t bytes, uint64_t rbytes)
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

static inline void event(rbuf *b, int at, unsigned kind, unsigned op, uint32_t comm, int32_t peer,
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
static inline void wild_recv(rbuf *b, unsigned kind, unsigned flags, uint32_t comm, int32_t peer,
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

static inline void close_rec(rbuf *b, uint64_t time)
{
    rt_raw_close c = {.type = RT_RAW_CLOSE, .time = time};
    put(b, &c, sizeof c);
}

static inline void def(rbuf *b, unsigned what, const void *head, size_t head_len, const uint32_t *m,
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

static inline void def_comm(rbuf *b, uint32_t id, uint32_t parent, unsigned how, uint32_t seq,
                            int32_t tag, uint32_t size, uint32_t rsize, const uint32_t *members)
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

static inline void def_group(rbuf *b, uint32_t id, uint32_t size, const uint32_t *members)
{
    rt_raw_def_group d = {.id = id, .size = size};
    def(b, RT_RAW_DEF_GROUP, &d, sizeof d, members, size);
}

static inline void def_win(rbuf *b, uint32_t id, uint32_t comm, uint32_t seq)
{
    rt_raw_def_win d = {.id = id, .comm = comm, .seq = seq};
    def(b, RT_RAW_DEF_WIN, &d, sizeof d, NULL, 0);
}

static inline void def_nbrs(rbuf *b, uint32_t comm, uint32_t nin, const int32_t *in, uint32_t nout,
                            const int32_t *out)
{
    uint32_t v[16];
    memcpy(v, in, nin * sizeof *in);
    memcpy(v + nin, out, nout * sizeof *out);
    rt_raw_def_nbrs d = {.comm = comm, .nin = nin, .nout = nout};
    def(b, RT_RAW_DEF_NBRS, &d, sizeof d, v, nin + nout);
}

static inline char *path_in(const char *dir, const char *name)
{
    static char buf[8][2048];
    static int next;
    char *p = buf[next++ % 8];
    snprintf(p, sizeof buf[0], "%s/%s", dir, name);
    return p;
}

/* An empty directory RT_TEST_TMP/name (or dir itself when it is absolute). */
static inline const char *fresh_dir(const char *name)
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
static inline void save_cut(const char *dir, const char *name, rbuf *b, size_t n)
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

static inline void save(const char *dir, const char *name, rbuf *b)
{
    save_cut(dir, name, b, SIZE_MAX);
}

static inline void save_thread(const char *dir, uint32_t rank, uint32_t thread, rbuf *b)
{
    char name[64];
    snprintf(name, sizeof name, RT_RAW_THREAD_NAME, (unsigned)rank, (unsigned)thread);
    save(dir, name, b);
}

static inline void save_defs(const char *dir, uint32_t rank, rbuf *b)
{
    char name[64];
    snprintf(name, sizeof name, RT_RAW_DEFS_NAME, (unsigned)rank);
    save(dir, name, b);
}

/* A one-rank trace in the fresh directory name: the definitions defs, thread 0 t; its path. */
static inline const char *one_rank(const char *name, rbuf *defs, rbuf *t)
{
    const char *dir = fresh_dir(name);
    save_defs(dir, 0, defs);
    save_thread(dir, 0, 0, t);
    return dir;
}

/* ---- reading ------------------------------------------------------------------------------ */

typedef rt_test_trace loaded;

static inline void load_ok(const char *path, loaded *l)
{
    rt_err err;
    if (rt_test_load(path, l, &err) < 0)
        fail_msg("%s", err.msg);
}

/* Opening or reading fails with code, and the message contains msg. */
static inline void expect_error(const char *path, int code, const char *msg)
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

static inline size_t count_rank(const loaded *l, uint32_t rank)
{
    size_t n = 0;
    for (size_t i = 0; i < l->n; i++)
        n += l->ev[i].rank == rank;
    return n;
}

static inline const rt_event *nth_of_rank(const loaded *l, uint32_t rank, size_t k)
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

static inline void expect_rank(const loaded *l, uint32_t rank, const want *w, size_t n)
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

/* Writes the trace raw as out in format fmt (out removed first) and reads it back. */
static inline void rewrite(const loaded *raw, const char *out, rt_format fmt, loaded *back)
{
    rt_err err;
    rt_trace_remove(out, &err);
    rt_writer *w;
    if (rt_writer_open(out, fmt, &raw->defs, &w, &err) < 0)
        fail_msg("%s", err.msg);
    for (size_t i = 0; i < raw->n; i++)
        if (rt_writer_write(w, &raw->ev[i], &err) < 0)
            fail_msg("%s", err.msg);
    assert_int_equal(rt_writer_close(w, &err), 0);
    load_ok(out, back);
}

#endif /* TEST_RAW_H */
