/*
 * Raw trace reader: the per-rank, per-thread files the tracer writes (rt_raw.h) read as one
 * trace. Opening reads every rank's definitions and gives the rank-local communicator, group
 * and window ids dense global ids; reading streams one rank after the other, merging the
 * rank's thread files by time. Memory follows the number of ranks, threads and definitions
 * and the largest single call, never the number of events. The files themselves (names,
 * headers, reading in blocks) are raw_files.c's, the definitions raw_defs.c's.
 */
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rt__raw.h"

#define EVENT_BUF (1u << 20) /* per thread file: large reads keep the reader near disk speed */
#define HDR RT__RAW_HDR
#define BIT(k) (UINT64_C(1) << RT_EV_##k)

_Static_assert(RT_EV_COUNT <= 64, "event kinds fit a 64-bit mask");

/* The event kinds each record type may carry; the rest is a damaged file. */
static const uint64_t type_kinds[RT_RAW_TYPE_COUNT] = {
    [RT_RAW_P2P] = BIT(SEND) | BIT(ISEND) | BIT(RECV) | BIT(IRECV),
    [RT_RAW_REQ] = BIT(ISEND_COMPLETE) | BIT(IRECV_REQUEST) | BIT(REQUEST_CANCELLED) |
                   BIT(NBC_REQUEST) | BIT(RMA_OP_COMPLETE) | BIT(WIN_CREATE) | BIT(WIN_FREE) |
                   BIT(REQUEST_FREE),
    [RT_RAW_COLL] = BIT(COLL_END) | BIT(RMA_COLL_END) | BIT(COLL_PEER),
    [RT_RAW_EVENT] = (UINT64_MAX >> (64 - RT_EV_COUNT)) & ~(BIT(ENTER) | BIT(LEAVE)),
};

/* ---- the reader ----------------------------------------------------------------------------- */

enum { P_NEXT, P_ENTER, P_PENDING, P_AT0, P_AT1, P_LEAVE }; /* what a thread hands out next */

/* One thread file of the rank being read. Its current call group (a CALL record and the
 * records up to the next CALL) is held whole in the buffer at f.pos, end bytes long. */
typedef struct tstream {
    rt__rfile f;
    uint32_t thread;
    size_t end;
    uint64_t t0, t1;
    uint16_t fn;
    int phase;
    size_t at;        /* the group's next record to look at */
    int last;         /* the current group is the thread's last */
    int pending;      /* the current group is a pending call (no LEAVE) */
    uint64_t nevents; /* events of the groups taken so far */
    uint32_t cache_local[RT__RAW_WIN + 1], cache_global[RT__RAW_WIN + 1]; /* last translated */
    unsigned cached; /* bit kind: cache_*[kind] holds a translation */
    int have;
    rt_event ev;  /* the thread's next event, when have */
    rt_event tgt; /* the RMA_TARGET after the transfer in ev, when tgt_have */
    int tgt_have;
    uint64_t ev_off;
} tstream;

typedef struct raw_reader {
    char *dir;
    uint32_t nranks;
    rt__raw_file *files; /* thread files, by rank and thread */
    size_t nfiles;
    size_t *first;         /* per rank: its first entry in files; nranks + 1 entries */
    unsigned char *usable; /* per rank: has definitions, so its events can be read */
    rt__raw_clock *clock;  /* per rank: how its times become ns */
    rt__raw_ids *ids;      /* local ids -> global ids */
    unsigned char uses_comm[RT_EV_COUNT];
    int targets;   /* every rank's tracer wrote RMA targets (RT_RAW_FLAG_RMA_TARGETS) */
    int sizes;     /* every rank's tracer wrote element sizes (RT_RAW_FLAG_ELEM_SIZES) */
    int sizes_any; /* some rank's did: bits 1..7 of 'at' are sizes, not damage */
    /* streaming */
    uint32_t cur; /* the rank being read */
    int opened;   /* its thread files are open */
    tstream *ts;
    size_t nts, ts_cap;
    long last; /* the stream whose event went out last, to advance next time; -1 none */
    uint32_t out_rank, out_thread;
    uint64_t out_off;
    unsigned more_cuts; /* truncations after the first, which r->truncated names */
    int failed;
    rt_err fail;
} raw_reader;

static void note_truncated(rt_reader *r, raw_reader *rr, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* The first truncation is the one the message names; later ones are counted. */
static void note_truncated(rt_reader *r, raw_reader *rr, const char *fmt, ...)
{
    if (r->truncated) {
        rr->more_cuts++;
        return;
    }
    char msg[RT_ERR_LEN];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    rt__reader_set_truncated(r, "%s", msg);
}

static const char *const local_what[] = {"", "communicator", "group", "window"};

/* ---- the headers, the ranks, the definitions ----------------------------------------------- */

/* Reads the header of every defs file: the number of ranks, each rank's node and module. */
static int read_headers(rt_reader *r, raw_reader *rr, rt_err *err)
{
    char path[4096], from[64] = "";
    uint32_t nranks = 0;
    for (size_t i = 0; i < rr->nfiles; i++) {
        const rt__raw_file *t = &rr->files[i];
        if (t->thread != RT_RAW_THREAD_DEFS)
            continue;
        rt__raw_path(rr->dir, t->rank, t->thread, path, sizeof path);
        unsigned char buf[HDR];
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
            return rt__raw_read_failed(err, path);
        ssize_t n = pread(fd, buf, sizeof buf, 0);
        close(fd);
        if (n < 0)
            return rt__raw_read_failed(err, path);
        rt_raw_header h;
        int rc = n == 0 ? 0
                        : rt__raw_check_header(path, buf, (size_t)n, t->rank, t->thread, &nranks,
                                               from, &h, err);
        if (rc < 0)
            return rc;
        if (rc == 0)
            continue; /* an empty rank: counted as missing below */
        if (!r->defs.nranks) {
            snprintf(from, sizeof from, RT_RAW_DEFS_NAME, (unsigned)t->rank);
            if ((rc = rt_defs_init(&r->defs, nranks, err)))
                return rt__err_prefix(err, rc, path);
            rr->clock = calloc(nranks, sizeof *rr->clock);
            if (!(rr->usable = calloc(nranks, 1)) || !rr->clock)
                return rt_err_set(err, RT_E_NOMEM, "%s: out of memory", rr->dir);
            r->defs.flags = RT_DEFS_COLL_PEERS; /* unless a rank's tracer did not write rows */
            rr->targets = 1;
        }
        if (h.flags & RT_RAW_FLAG_ELEM_SIZES)
            rr->sizes_any = 1;
        else
            rr->sizes = -1; /* a rank without: none are decoded */
        if (!(h.flags & RT_RAW_FLAG_COLL_PEERS))
            r->defs.flags &= ~(uint32_t)RT_DEFS_COLL_PEERS;
        if (!(h.flags & RT_RAW_FLAG_RMA_TARGETS))
            rr->targets = 0;
        if (!r->defs.library[0] && h.library[0]) { /* the first rank that names it */
            if (!rt_library_valid(h.library, sizeof h.library))
                return rt_err_set(err, RT_E_FORMAT,
                                  "%s: damaged raw file: the MPI library's name is not text", path);
            memcpy(r->defs.library, h.library, sizeof h.library);
        }
        r->defs.node[t->rank] = h.node;
        r->defs.module[t->rank] = h.module;
        rr->usable[t->rank] = 1;
        rr->clock[t->rank].version = h.version;
    }
    if (!r->defs.nranks)
        return rt_err_set(err, RT_E_FORMAT,
                          "%s: not a trace (no raw definitions file with a header)", rr->dir);
    rr->nranks = nranks;
    rr->sizes = rr->sizes_any && rr->sizes == 0;
    if (rr->sizes)
        r->defs.flags |= RT_DEFS_ELEM_SIZES;
    return 0;
}

/* Indexes the thread files by rank; notes the ranks that left nothing usable. */
static int index_ranks(rt_reader *r, raw_reader *rr, rt_err *err)
{
    if (!(rr->first = calloc((size_t)rr->nranks + 1, sizeof *rr->first)))
        return rt_err_set(err, RT_E_NOMEM, "%s: out of memory", rr->dir);
    size_t n = 0;
    for (size_t i = 0; i < rr->nfiles; i++) {
        if (rr->files[i].rank >= rr->nranks) {
            char path[4096];
            rt__raw_path(rr->dir, rr->files[i].rank, rr->files[i].thread, path, sizeof path);
            return rt_err_set(err, RT_E_FORMAT, "%s: rank %u, but the trace has %u ranks", path,
                              (unsigned)rr->files[i].rank, (unsigned)rr->nranks);
        }
        if (rr->files[i].thread != RT_RAW_THREAD_DEFS)
            rr->files[n++] = rr->files[i];
    }
    rr->nfiles = n;
    size_t k = 0;
    for (uint32_t rank = 0; rank < rr->nranks; rank++) {
        rr->first[rank] = k;
        while (k < n && rr->files[k].rank == rank)
            k++;
        size_t threads = k - rr->first[rank];
        if (!rr->usable[rank] && !threads)
            note_truncated(r, rr, "%s: rank %u left no raw files", rr->dir, (unsigned)rank);
        else if (!rr->usable[rank])
            note_truncated(r, rr, "%s: rank %u left no definitions file (its events are left out)",
                           rr->dir, (unsigned)rank);
        else if (!threads)
            note_truncated(r, rr, "%s: rank %u left no event files", rr->dir, (unsigned)rank);
    }
    rr->first[rr->nranks] = k;
    return 0;
}

/* The definitions of every rank, ranks in order: new global ids by first appearance. */
static int read_defs(rt_reader *r, raw_reader *rr, rt_err *err)
{
    if (!(rr->ids = rt__raw_ids_new()))
        return rt_err_set(err, RT_E_NOMEM, "%s: out of memory", rr->dir);
    int rc = 0;
    for (uint32_t rank = 0; rank < rr->nranks && !rc; rank++) {
        if (!rr->usable[rank])
            continue;
        char path[4096];
        uint64_t cut_at;
        rt__raw_path(rr->dir, rank, RT_RAW_THREAD_DEFS, path, sizeof path);
        rc = rt__raw_read_defs(rr->ids, &r->defs, rank, path, &rr->clock[rank], &cut_at, err);
        if (!rc && cut_at != UINT64_MAX)
            note_truncated(r, rr, "%s: definitions cut short at offset %llu", path,
                           (unsigned long long)cut_at);
    }
    rt__raw_defs_done(rr->ids);
    return rc;
}

/* ---- events ------------------------------------------------------------------------------- */

static void stream_path(const raw_reader *rr, const tstream *ts, char *buf, size_t len)
{
    rt__raw_path(rr->dir, rr->cur, ts->thread, buf, len);
}

static void thread_cut(rt_reader *r, raw_reader *rr, tstream *ts)
{
    char path[4096];
    stream_path(rr, ts, path, sizeof path);
    note_truncated(r, rr,
                   "%s: rank %u thread %u was cut short after %llu events (the run did not finish)",
                   path, (unsigned)rr->cur, (unsigned)ts->thread, (unsigned long long)ts->nevents);
}

static int is_transfer(unsigned kind)
{
    return kind == RT_EV_RMA_PUT || kind == RT_EV_RMA_GET || kind == RT_EV_RMA_ATOMIC;
}

/* Checks one record of a call group (not a CALL); counts the events it stands for. */
static int check_record(const raw_reader *rr, tstream *ts, const unsigned char *p, int *have_time,
                        int long_call, uint64_t *nev, rt_err *err)
{
    char path[4096];
    unsigned type = p[0];
    uint64_t off = ts->f.base + (size_t)(p - ts->f.buf);
    if (type == RT_RAW_TIME) {
        if (!long_call || *have_time) {
            stream_path(rr, ts, path, sizeof path);
            return rt__raw_fail_at(err, path, off, "a TIME record where none belongs");
        }
        rt_raw_time t;
        memcpy(&t, p, sizeof t);
        ts->t1 = t.t1;
        *have_time = 1;
        return 0;
    }
    const char *bad = NULL;
    unsigned value = 0;
    if (p[2] >= RT_EV_COUNT || !(type_kinds[type] & (UINT64_C(1) << p[2])))
        bad = "event kind", value = p[2];
    else if ((p[1] > 1 && (!rr->sizes_any || type == RT_RAW_REQ)) ||
             (type == RT_RAW_COLL && !(p[1] & 1))) /* COLL: always at t1 */
        bad = "'at'", value = p[1];
    if (bad) {
        stream_path(rr, ts, path, sizeof path);
        return rt__raw_fail_at(err, path, off, "record type %u with bad %s %u", type, bad, value);
    }
    *nev += type == RT_RAW_COLL && p[2] != RT_EV_COLL_PEER ? 2 : 1;
    *nev += type == RT_RAW_EVENT && rr->targets && is_transfer(p[2]); /* and its RMA_TARGET */
    return 0;
}

/* The operation kinds a pending call may carry (rt_event.h, "A pending call"). */
static const uint64_t pending_kinds = BIT(SEND) | BIT(RECV) | BIT(IRECV) | BIT(ISEND_COMPLETE) |
                                      BIT(NBC_COMPLETE) | BIT(RMA_OP_COMPLETE) | BIT(COLL_END) |
                                      BIT(RMA_COLL_END) | BIT(RMA_GROUP_SYNC) | BIT(RMA_LOCK) |
                                      BIT(RMA_UNLOCK) | BIT(RMA_SYNC);

/* The current group's t0 and t1 in ns (its rank's clock: rt_raw_def_clock), at the group's
 * CALL or PENDING record. */
static int times_to_ns(const raw_reader *rr, tstream *ts, rt_err *err)
{
    const rt__raw_clock *c = &rr->clock[rr->cur];
    uint64_t t = ts->t0;
    if (!rt__raw_clock_ns(c, ts->t0, &ts->t0) && !rt__raw_clock_ns(c, t = ts->t1, &ts->t1))
        return 0;
    char path[4096];
    stream_path(rr, ts, path, sizeof path);
    return rt__raw_fail_at(err, path, ts->f.base + ts->f.pos,
                           "a time of %llu ticks is past 2^64 ns (%llu ticks in %llu ns)",
                           (unsigned long long)t, (unsigned long long)c->ticks,
                           (unsigned long long)c->ns);
}

/*
 * The thread's trailer at f->pos (rt_raw.h): its PENDING record and operations, which must
 * end the data. 1: the group (ENTER, PENDING, the operations, no LEAVE); 0: a trailer cut
 * off mid-record (left out, truncation noted); < 0 an error.
 */
static int load_pending(rt_reader *r, raw_reader *rr, tstream *ts, rt_err *err)
{
    char path[4096];
    rt__rfile *f = &ts->f;
    rt_raw_pending pd;
    memcpy(&pd, f->buf + f->pos, sizeof pd);
    stream_path(rr, ts, path, sizeof path);
    if (pd.nops > RT_RAW_PENDING_MAX_OPS)
        return rt__raw_fail_at(err, path, f->base + f->pos,
                               "a PENDING record with %u operations (at most %u)",
                               (unsigned)pd.nops, RT_RAW_PENDING_MAX_OPS);
    size_t end = RT_RAW_SLOT + (size_t)pd.nops * sizeof(rt_raw_event);
    int rc = rt__rf_need(f, end);
    if (rc < 0)
        return rt__raw_read_failed(err, path);
    if (rc == 0) {
        thread_cut(r, rr, ts);
        return 0;
    }
    for (size_t at = RT_RAW_SLOT; at < end; at += sizeof(rt_raw_event)) {
        const unsigned char *p = f->buf + f->pos + at;
        if (p[0] != RT_RAW_EVENT || p[1] != 0 || p[2] >= RT_EV_COUNT ||
            !(pending_kinds & (UINT64_C(1) << p[2])))
            return rt__raw_fail_at(err, path, f->base + f->pos + at,
                                   "operation %u of a pending call is not an EVENT record at t0 "
                                   "of a kind a pending call has (type %u, at %u, kind %u)",
                                   (unsigned)((at - RT_RAW_SLOT) / sizeof(rt_raw_event)),
                                   (unsigned)p[0], (unsigned)p[1], (unsigned)p[2]);
    }
    if ((rc = rt__rf_need(f, end + 1)) < 0)
        return rt__raw_read_failed(err, path);
    if (rc == 1 && f->buf[f->pos + end] != RT_RAW_NONE)
        return rt__raw_fail_at(err, path, f->base + f->pos + end,
                               "record type %u after a pending call, which must end the data",
                               (unsigned)f->buf[f->pos + end]);
    ts->t0 = ts->t1 = pd.t0;
    ts->fn = pd.fn;
    if ((rc = times_to_ns(rr, ts, err)))
        return rc;
    ts->pending = 1;
    ts->last = 1;
    ts->end = end;
    ts->nevents += 2u + pd.nops;
    thread_cut(r, rr, ts);
    return 1;
}
/*
 * Takes the thread's next call group into the buffer: 1 a group; 0 the thread's end
 * (truncation noted when there was no CLOSE record); < 0 an error. A group that the end of
 * the data cuts off mid-record, or a long call whose TIME record never came, is left out.
 */
static int load_group(rt_reader *r, raw_reader *rr, tstream *ts, rt_err *err)
{
    char path[4096];
    rt__rfile *f = &ts->f;
    f->pos += ts->end;
    ts->end = 0;
    if (ts->last)
        return 0;
    int rc = rt__rf_need(f, RT_RAW_SLOT);
    if (rc < 0)
        goto io;
    if (rc == 0 || f->buf[f->pos] == RT_RAW_NONE) {
        thread_cut(r, rr, ts);
        return 0;
    }
    unsigned type = f->buf[f->pos];
    if (type == RT_RAW_CLOSE)
        return 0;
    if (type == RT_RAW_PENDING)
        return load_pending(r, rr, ts, err);
    if (type != RT_RAW_CALL) {
        stream_path(rr, ts, path, sizeof path);
        if (!rt_raw_slots(type) || type == RT_RAW_DEF)
            return rt__raw_fail_at(err, path, f->base + f->pos, "unknown record type %u", type);
        return rt__raw_fail_at(err, path, f->base + f->pos, "record type %u outside a call", type);
    }
    rt_raw_call call;
    memcpy(&call, f->buf + f->pos, sizeof call);
    int long_call = call.dt == RT_RAW_DT_LONG, have_time = 0;
    ts->t0 = ts->t1 = call.t0; /* a long call's TIME record gives t1 */
    const char *unit = rr->clock[rr->cur].version == RT_RAW_VERSION_TICKS ? "ticks" : "ns";
    if (!long_call && __builtin_add_overflow(call.t0, call.dt, &ts->t1)) {
        stream_path(rr, ts, path, sizeof path);
        return rt__raw_fail_at(err, path, f->base + f->pos,
                               "a call at %llu %s lasting %u %s ends past 2^64 %s",
                               (unsigned long long)call.t0, unit, (unsigned)call.dt, unit, unit);
    }
    ts->fn = call.fn;
    uint64_t nev = 2;
    size_t at = RT_RAW_SLOT;
    for (;;) {
        if ((rc = rt__rf_need(f, at + 1)) < 0)
            goto io;
        if (rc == 0 || f->buf[f->pos + at] == RT_RAW_NONE) {
            ts->last = 1; /* the data ends after this group, without a CLOSE */
            break;
        }
        type = f->buf[f->pos + at];
        if (type == RT_RAW_CALL || type == RT_RAW_CLOSE || type == RT_RAW_PENDING)
            break;
        unsigned slots = rt_raw_slots(type);
        if (!slots || type == RT_RAW_DEF) {
            stream_path(rr, ts, path, sizeof path);
            return rt__raw_fail_at(err, path, f->base + f->pos + at, "unknown record type %u",
                                   type);
        }
        if ((rc = rt__rf_need(f, at + slots * RT_RAW_SLOT)) < 0)
            goto io;
        if (rc == 0) { /* cut in the middle of a record: the call is incomplete */
            thread_cut(r, rr, ts);
            return 0;
        }
        if ((rc = check_record(rr, ts, f->buf + f->pos + at, &have_time, long_call, &nev, err)))
            return rc;
        at += slots * RT_RAW_SLOT;
    }
    if (long_call && !have_time) {
        if (ts->last) { /* nothing of the call goes out */
            thread_cut(r, rr, ts);
            return 0;
        }
        stream_path(rr, ts, path, sizeof path);
        return rt__raw_fail_at(err, path, f->base + f->pos, "a long call without its TIME record");
    }
    if ((rc = times_to_ns(rr, ts, err)))
        return rc;
    ts->end = at;
    ts->nevents += nev;
    if (ts->last)
        thread_cut(r, rr, ts);
    return 1;
io:
    stream_path(rr, ts, path, sizeof path);
    return rt__raw_read_failed(err, path);
}

/* Global id of a local id in an event record, through a one-entry cache per kind. */
static int translate(const raw_reader *rr, tstream *ts, unsigned kind, uint32_t id, uint32_t *out,
                     rt_err *err)
{
    if ((ts->cached >> kind & 1) && ts->cache_local[kind] == id) {
        *out = ts->cache_global[kind];
        return 0;
    }
    if (rt__raw_global(rr->ids, kind, rr->cur, id, out)) {
        char path[4096];
        stream_path(rr, ts, path, sizeof path);
        return rt__raw_fail_at(err, path, ts->ev_off, "%s %u is not defined on rank %u",
                               local_what[kind], (unsigned)id, (unsigned)rr->cur);
    }
    ts->cache_local[kind] = id;
    ts->cache_global[kind] = *out;
    ts->cached |= 1u << kind;
    return 0;
}

/* The element sizes of a COLL_END or EVENT record (RT_RAW_FLAG_ELEM_SIZES). */
static void coll_sizes(rt_event *ev, unsigned at, uint32_t rcode)
{
    ev->esize = (uint8_t)(at >> 1);
    ev->resize = rcode <= RT_ESIZE_CODE_MAX ? (uint8_t)rcode : 0;
}

/* The event of record p (checked by load_group) in ts->ev; a COLL record gives its BEGIN
 * while the phase is P_AT0, its END while it is P_AT1. A COLL record of a COLL_PEER row stands
 * for that row alone, at t1. */
static int decode(const raw_reader *rr, tstream *ts, const unsigned char *p, rt_err *err)
{
    rt_event *ev = &ts->ev;
    memset(ev, 0, sizeof *ev);
    ev->rank = rr->cur;
    ev->call = ts->fn;
    ev->time = p[1] & 1 ? ts->t1 : ts->t0;
    uint32_t local = 0;
    if (p[0] == RT_RAW_P2P) {
        rt_raw_p2p x;
        memcpy(&x, p, sizeof x);
        ev->kind = x.kind;
        ev->contype = x.contype;
        local = x.comm;
        ev->peer = x.peer;
        ev->tag = x.tag;
        ev->bytes = x.bytes;
        ev->req = x.req;
        if (rr->sizes)
            ev->esize = (uint8_t)(x.at >> 1);
    } else if (p[0] == RT_RAW_REQ) {
        rt_raw_req x;
        memcpy(&x, p, sizeof x);
        ev->kind = x.kind;
        local = x.comm;
        ev->req = x.req;
    } else if (p[0] == RT_RAW_COLL) {
        rt_raw_coll x;
        memcpy(&x, p, sizeof x);
        if (ts->phase == P_AT0) {
            ev->kind = x.kind == RT_EV_COLL_END ? RT_EV_COLL_BEGIN : RT_EV_RMA_COLL_BEGIN;
            ev->time = ts->t0;
            return 0;
        }
        ev->kind = x.kind;
        ev->op = x.op;
        local = x.comm;
        ev->peer = x.peer;
        ev->tag = x.kind == RT_EV_RMA_COLL_END ? (int32_t)x.pad : 0; /* a fence's assert */
        ev->bytes = x.bytes;
        ev->rbytes = x.rbytes;
        if (rr->sizes && (x.kind == RT_EV_COLL_END || x.kind == RT_EV_COLL_PEER))
            coll_sizes(ev, x.at, x.pad);
    } else {
        rt_raw_event x;
        memcpy(&x, p, sizeof x);
        ev->kind = x.kind;
        ev->contype = x.contype;
        ev->op = x.op;
        local = x.comm;
        ev->peer = x.peer;
        ev->tag = x.tag;
        ev->bytes = x.bytes;
        ev->rbytes = x.rbytes;
        ev->req = x.req;
        if (rr->sizes && (x.kind == RT_EV_NBC_COMPLETE || x.kind == RT_EV_RECV ||
                          x.kind == RT_EV_IRECV || x.kind == RT_EV_ISEND))
            coll_sizes(ev, x.at, x.pad[0]);
    }
    int rc = 0;
    if (rr->uses_comm[ev->kind])
        rc = translate(rr, ts, rt_event_is_rma(ev->kind) ? RT__RAW_WIN : RT__RAW_COMM, local,
                       &ev->comm, err);
    if (!rc && ev->kind == RT_EV_RMA_GROUP_SYNC) {
        uint32_t g;
        rc = translate(rr, ts, RT__RAW_GROUP, (uint32_t)ev->peer, &g, err);
        ev->peer = (int32_t)g;
    }
    return rc;
}

/*
 * The RMA_TARGET after the transfer just decoded into ts->ev from EVENT record p (rt_raw.h): the
 * displacement from units of the target's disp_unit to bytes. A target whose unit the trace
 * does not hold (its definitions are missing) has no RMA_TARGET: its bytes are unknown.
 */
static int target_event(const rt_reader *r, const raw_reader *rr, tstream *ts,
                        const unsigned char *p, rt_err *err)
{
    rt_raw_event x;
    memcpy(&x, p, sizeof x);
    const rt_event *ev = &ts->ev;
    int64_t world = rt_defs_peer_world(&r->defs, ev);
    uint32_t unit = world >= 0 ? rt__raw_disp_unit(rr->ids, ev->comm, (uint32_t)world) : 0;
    uint64_t bytes;
    const char *bad = NULL;
    if (x.redop >= RT_REDOP_COUNT)
        bad = "reduction op";
    else if (x.disp > INT64_MAX || (unit && rt_mul_overflow(x.disp, unit, &bytes)))
        bad = "target displacement";
    if (bad) {
        char path[4096];
        stream_path(rr, ts, path, sizeof path);
        return rt__raw_fail_at(err, path, ts->ev_off,
                               "%s with a bad %s (%llu units of %u bytes, op %u)",
                               rt_event_kind_name(ev->kind), bad, (unsigned long long)x.disp,
                               (unsigned)unit, (unsigned)x.redop);
    }
    if (!unit)
        return 0;
    ts->tgt = (rt_event){.time = ev->time,
                         .rank = ev->rank,
                         .call = ev->call,
                         .kind = RT_EV_RMA_TARGET,
                         .comm = ev->comm,
                         .peer = ev->peer,
                         .bytes = bytes,
                         .op = x.redop};
    ts->tgt_have = 1;
    return 0;
}

static void call_event(const raw_reader *rr, tstream *ts, unsigned kind, uint64_t time)
{
    memset(&ts->ev, 0, sizeof ts->ev);
    ts->ev.kind = (uint8_t)kind;
    ts->ev.time = time;
    ts->ev.rank = rr->cur;
    ts->ev.call = ts->fn;
    ts->ev_off = ts->f.base + ts->f.pos;
}

/* Moves the thread to its next event: ENTER, the records at t0 in file order, those at t1,
 * LEAVE; then the next group. A pending call (the trailer) is ENTER, PENDING and its
 * operations, without LEAVE. ts->have is 0 at the thread's end. */
static int advance(rt_reader *r, raw_reader *rr, tstream *ts, rt_err *err)
{
    ts->have = 1;
    if (ts->tgt_have) { /* the target of the transfer that went out last */
        ts->ev = ts->tgt;
        ts->tgt_have = 0;
        return 0;
    }
    for (;;) {
        switch (ts->phase) {
        case P_NEXT: {
            int rc = load_group(r, rr, ts, err);
            if (rc <= 0) {
                ts->have = 0;
                return rc;
            }
            ts->phase = P_ENTER;
            break;
        }
        case P_ENTER:
            call_event(rr, ts, RT_EV_ENTER, ts->t0);
            ts->phase = ts->pending ? P_PENDING : P_AT0;
            ts->at = RT_RAW_SLOT;
            return 0;
        case P_PENDING: /* a call that never returned: then its operations, no LEAVE */
            call_event(rr, ts, RT_EV_PENDING, ts->t0);
            ts->phase = P_AT0;
            return 0;
        case P_AT0:
        case P_AT1: /* the records at t0, then those at t1; a COLL record in both: BEGIN, END */
            while (ts->at < ts->end) {
                const unsigned char *p = ts->f.buf + ts->f.pos + ts->at;
                size_t off = ts->at;
                ts->at += rt_raw_slots(p[0]) * RT_RAW_SLOT;
                /* a COLL record of a collective end stands for its BEGIN and END */
                int both = p[0] == RT_RAW_COLL && p[2] != RT_EV_COLL_PEER;
                if (p[0] == RT_RAW_TIME || (!both && (p[1] & 1u) != (ts->phase == P_AT1)))
                    continue;
                ts->ev_off = ts->f.base + ts->f.pos + off;
                int rc = decode(rr, ts, p, err);
                if (!rc && rr->targets && p[0] == RT_RAW_EVENT && is_transfer(ts->ev.kind))
                    rc = target_event(r, rr, ts, p, err);
                return rc;
            }
            ts->at = RT_RAW_SLOT;
            ts->phase++;
            break;
        case P_LEAVE:
            if (ts->pending) {
                ts->phase = P_NEXT;
                break;
            }
            call_event(rr, ts, RT_EV_LEAVE, ts->t1);
            ts->phase = P_NEXT;
            return 0;
        }
    }
}

static void close_rank(raw_reader *rr)
{
    for (size_t i = 0; i < rr->nts; i++)
        rt__rf_close(&rr->ts[i].f);
    rr->nts = 0;
    rr->opened = 0;
    rr->last = -1;
}

/* Opens the thread files of rank rr->cur and reads each one's first event. */
static int open_rank(rt_reader *r, raw_reader *rr, rt_err *err)
{
    rr->opened = 1;
    rr->last = -1;
    if (!rr->usable[rr->cur])
        return 0;
    size_t first = rr->first[rr->cur], n = rr->first[rr->cur + 1] - first;
    if (n == 0) /* definitions, no thread file (noted by index_ranks); rr->ts may be NULL */
        return 0;
    size_t old = rr->ts_cap;
    if (RT_VEC_RESERVE(rr->ts, rr->ts_cap, n, 0) < 0)
        return rt_err_set(err, RT_E_NOMEM, "%s: out of memory", rr->dir);
    memset(rr->ts + old, 0, (rr->ts_cap - old) * sizeof *rr->ts);
    for (size_t i = old; i < rr->ts_cap; i++)
        rr->ts[i].f.fd = -1;
    for (size_t i = 0; i < n; i++) {
        tstream *ts = &rr->ts[i];
        rt__rfile keep = ts->f; /* the buffer is kept from rank to rank */
        memset(ts, 0, sizeof *ts);
        ts->f = keep;
        ts->thread = rr->files[first + i].thread;
        char path[4096];
        stream_path(rr, ts, path, sizeof path);
        if (rt__rf_open(&ts->f, path, EVENT_BUF))
            return rt__raw_read_failed(err, path);
        rr->nts = i + 1;
        int rc = rt__rf_need(&ts->f, HDR);
        if (rc < 0)
            return rt__raw_read_failed(err, path);
        rt_raw_header h;
        uint32_t nranks = rr->nranks;
        char from[32];
        snprintf(from, sizeof from, RT_RAW_DEFS_NAME, (unsigned)rr->cur);
        rc = ts->f.len ? rt__raw_check_header(path, ts->f.buf, ts->f.len, rr->cur, ts->thread,
                                              &nranks, from, &h, err)
                       : 0;
        if (rc < 0)
            return rc;
        if (rc == 0) {
            thread_cut(r, rr, ts); /* died before it wrote its header */
            continue;
        }
        if (h.version != rr->clock[rr->cur].version)
            return rt_err_set(err, RT_E_FORMAT, "%s: raw format version %u, %s has %u", path,
                              (unsigned)h.version, from, (unsigned)rr->clock[rr->cur].version);
        ts->f.pos = HDR;
        if ((rc = advance(r, rr, ts, err)))
            return rc;
    }
    return 0;
}

/* The next event of the current rank: the earliest of its threads' next events (the lower
 * thread on a tie). The thread that gave the last one moves on only now, so that where()
 * still names that event's record. */
static int raw_next(rt_reader *r, rt_event *ev, rt_err *err)
{
    raw_reader *rr = r->impl;
    int rc = 0;
    while (!rr->failed && rr->cur < rr->nranks) {
        /* an RMA transfer's target goes out right after it, whatever the other threads hold */
        tstream *best = rr->last >= 0 && rr->ts[rr->last].tgt_have ? &rr->ts[rr->last] : NULL;
        if (rr->last >= 0)
            rc = advance(r, rr, &rr->ts[rr->last], &rr->fail);
        else if (!rr->opened)
            rc = open_rank(r, rr, &rr->fail);
        rr->last = -1;
        if (rc) {
            rr->failed = 1;
            break;
        }
        for (size_t i = 0; i < rr->nts; i++)
            if (rr->ts[i].have && (!best || rr->ts[i].ev.time < best->ev.time))
                best = &rr->ts[i];
        if (best) {
            *ev = best->ev;
            ev->thread = best->thread < RT_THREAD_MAX ? (uint8_t)best->thread : RT_THREAD_MAX;
            rr->last = best - rr->ts;
            rr->out_rank = rr->cur;
            rr->out_thread = best->thread;
            rr->out_off = best->ev_off;
            return 1;
        }
        close_rank(rr);
        if (++rr->cur == rr->nranks && rr->more_cuts)
            rt__reader_set_truncated(r, "%s (and %u more cut short)", r->truncated, rr->more_cuts);
    }
    if (rr->failed)
        return rt_err_set(err, rr->fail.code, "%s", rr->fail.msg);
    return 0;
}

static void raw_where(const rt_reader *r, char *buf, size_t len)
{
    const raw_reader *rr = r->impl;
    char path[4096];
    rt__raw_path(rr->dir, rr->out_rank, rr->out_thread, path, sizeof path);
    snprintf(buf, len, "%s: offset %llu", path, (unsigned long long)rr->out_off);
}

static void raw_close(rt_reader *r)
{
    raw_reader *rr = r->impl;
    if (!rr)
        return;
    close_rank(rr);
    for (size_t i = 0; i < rr->ts_cap; i++)
        free(rr->ts[i].f.buf);
    free(rr->ts);
    rt__raw_ids_free(rr->ids);
    free(rr->files);
    free(rr->first);
    free(rr->usable);
    free(rr->clock);
    free(rr->dir);
    free(rr);
    r->impl = NULL;
}

static const rt__reader_ops raw_reader_ops = {
    .next = raw_next,
    .where = raw_where,
    .close = raw_close,
};

int rt__raw_open(rt_reader *r, rt_err *err)
{
    raw_reader *rr = calloc(1, sizeof *rr);
    if (!rr)
        return rt_err_set(err, RT_E_NOMEM, "%s: out of memory", r->path);
    r->ops = &raw_reader_ops; /* from here on, closing the reader frees rr */
    r->impl = rr;
    rr->last = -1;
    if (!(rr->dir = rt__raw_trace_dir(r->path)))
        return rt_err_set(err, RT_E_NOMEM, "%s: out of memory", r->path);
    for (unsigned k = 0; k < RT_EV_COUNT; k++)
        rr->uses_comm[k] = rt_event_kind_uses(k, 'c');
    int rc = rt__raw_list(rr->dir, &rr->files, &rr->nfiles, err);
    if (!rc)
        rc = read_headers(r, rr, err);
    if (!rc)
        rc = index_ranks(r, rr, err);
    if (!rc)
        rc = read_defs(r, rr, err);
    return rc;
}
