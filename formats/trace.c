/*
 * The format-independent half of reading and writing: detection, and the checks every
 * trace must pass whatever its form (events valid against the definitions, each rank's
 * events in time order), so that no back end can hand a consumer a malformed stream.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rt__ti.h"
#include "rt__trace.h"

const char *rt_format_name(rt_format fmt)
{
    switch (fmt) {
    case RT_FMT_OTF2:
        return "otf2";
    case RT_FMT_CSV:
        return "csv";
    case RT_FMT_RAW:
        return "raw";
    case RT_FMT_TI:
        return "ti";
    default:
        return "auto";
    }
}

int rt_format_lookup(const char *name)
{
    if (!strcmp(name, "otf2"))
        return RT_FMT_OTF2;
    if (!strcmp(name, "csv"))
        return RT_FMT_CSV;
    if (!strcmp(name, "ti"))
        return RT_FMT_TI;
    return -RT_E_NOTFOUND;
}

void rt__reader_set_truncated(rt_reader *r, const char *fmt, ...)
{
    char buf[RT_ERR_LEN];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    free(r->truncated);
    r->truncated = strdup(buf);
}

/* What a path holds: a raw trace (a directory with r0.defs.rtr, or one of its .rtr files),
 * an OTF2 archive (a directory with a .otf2 anchor, or the anchor file), a CSV trace (by name
 * or by its first bytes), else a SimGrid TI index (its first line names a file of actions). */
static int detect(const char *path, rt_format *fmt, rt_err *err)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return rt_err_set(err, errno == ENOENT ? RT_E_NOTFOUND : RT_E_IO, "%s: %s", path,
                          strerror(errno));
    size_t len = strlen(path);
    if (S_ISDIR(st.st_mode)) {
        /* r0.defs.rtr marks a raw trace whatever else the directory holds; any other
         * directory is taken for an OTF2 archive. */
        char *defs = malloc(len + sizeof "/r0.defs.rtr");
        if (!defs)
            return rt_err_set(err, RT_E_NOMEM, "%s: out of memory", path);
        snprintf(defs, len + sizeof "/r0.defs.rtr", "%s/r0.defs.rtr", path);
        *fmt = access(defs, F_OK) == 0 ? RT_FMT_RAW : RT_FMT_OTF2;
        free(defs);
        return 0;
    }
    if (len > 4 && !strcmp(path + len - 4, ".rtr")) {
        *fmt = RT_FMT_RAW;
        return 0;
    }
    if (len > 5 && !strcmp(path + len - 5, ".otf2")) {
        *fmt = RT_FMT_OTF2;
        return 0;
    }
    FILE *f = fopen(path, "rb");
    if (!f)
        return rt_err_set(err, RT_E_IO, "%s: %s", path, strerror(errno));
    char head[16] = {0};
    size_t n = fread(head, 1, sizeof head - 1, f);
    fclose(f);
    if ((len > 4 && !strcmp(path + len - 4, ".csv")) || !strncmp(head, "ranks,", 6) ||
        (n > 0 && head[0] == '#')) {
        *fmt = RT_FMT_CSV;
        return 0;
    }
    if (!memcmp(head, "OTF2", 4)) {
        *fmt = RT_FMT_OTF2;
        return 0;
    }
    if (rt__ti_detect(path)) {
        *fmt = RT_FMT_TI;
        return 0;
    }
    return rt_err_set(err, RT_E_FORMAT,
                      "%s: not a trace (expected an OTF2 archive, a retrace CSV trace or a "
                      "SimGrid TI index)",
                      path);
}

/* Opens path; part: only ranks lo to hi - 1, from a back end that can (rank_size). */
static int reader_open(const char *path, int part, uint32_t lo, uint32_t hi, rt_reader **out,
                       rt_err *err)
{
    *out = NULL;
    rt_reader *r = calloc(1, sizeof *r);
    if (!r || !(r->path = strdup(path))) {
        free(r);
        return rt_err_set(err, RT_E_NOMEM, "%s: out of memory", path);
    }
    r->part = part;
    r->rank_lo = lo;
    r->rank_hi = hi;
    uint32_t max_ranks;
    int rc = rt_max_ranks(&max_ranks, err); /* a bad value is the variable's fault, not path's */
    if (!rc)
        rc = detect(path, &r->format, err);
    if (!rc && part && r->format != RT_FMT_OTF2)
        rc = rt_err_set(err, RT_E_INVAL, "%s: a %s trace is read as a whole", path,
                        rt_format_name(r->format));
    if (!rc && r->format == RT_FMT_RAW)
        rc = rt__raw_open(r, err);
    else if (!rc && r->format == RT_FMT_TI)
        rc = rt__ti_open(r, err);
    else if (!rc)
        rc = r->format == RT_FMT_OTF2 ? rt__otf2_open(r, err) : rt__csv_open(r, err);
    if (!rc && part && (hi > r->defs.nranks || lo >= hi))
        rc = rt_err_set(err, RT_E_RANGE, "%s: ranks %u to %u: the trace has %u", path, (unsigned)lo,
                        (unsigned)hi - 1, (unsigned)r->defs.nranks);
    if (!rc) {
        r->last_time = calloc(r->defs.nranks, sizeof *r->last_time);
        r->state = calloc(r->defs.nranks, sizeof *r->state);
        if (!r->last_time || !r->state)
            rc = rt_err_set(err, RT_E_NOMEM, "%s: out of memory", path);
    }
    if (rc) {
        rt_reader_close(r);
        return rc;
    }
    *out = r;
    return 0;
}

int rt_reader_open(const char *path, rt_reader **out, rt_err *err)
{
    return reader_open(path, 0, 0, 0, out, err);
}

int rt_reader_open_ranks(const char *path, uint32_t lo, uint32_t hi, rt_reader **out, rt_err *err)
{
    return reader_open(path, 1, lo, hi, out, err);
}

int rt_reader_can_split(const rt_reader *r)
{
    return r->ops && r->ops->rank_size && r->defs.nranks > 1;
}

uint64_t rt_reader_rank_size(const rt_reader *r, uint32_t rank)
{
    return r->ops && r->ops->rank_size && rank < r->defs.nranks ? r->ops->rank_size(r, rank) : 0;
}

const rt_defs *rt_reader_defs(const rt_reader *r)
{
    return &r->defs;
}

rt_format rt_reader_format(const rt_reader *r)
{
    return r->format;
}

/* ---- pending calls ---------------------------------------------------------------------- */

/* The kinds that can stand for an operation a pending call started or waited for (rt_event.h):
 * never one that starts a request or one that only marks where a call began. */
static int pending_op_kind(unsigned kind)
{
    switch (kind) {
    case RT_EV_SEND:
    case RT_EV_RECV:
    case RT_EV_IRECV:
    case RT_EV_ISEND_COMPLETE:
    case RT_EV_NBC_COMPLETE:
    case RT_EV_RMA_OP_COMPLETE:
    case RT_EV_COLL_END:
    case RT_EV_RMA_COLL_END:
    case RT_EV_RMA_GROUP_SYNC:
    case RT_EV_RMA_LOCK:
    case RT_EV_RMA_UNLOCK:
    case RT_EV_RMA_SYNC:
        return 1;
    default:
        return 0;
    }
}

/* The state's pending call, for messages: "MPI_Recv at 120 ns". */
static const char *pending_name(const rt__rank_state *st, char *buf, size_t len)
{
    snprintf(buf, len, "%s at %llu ns", rt_func_name(st->pending_call),
             (unsigned long long)st->pending_time);
    return buf;
}

/* An event inside the operations of the rank's pending call (st->in_ops). */
static int pending_op(const rt__rank_state *st, const rt_event *ev, rt_err *err)
{
    char p[96];
    const char *kname = rt_event_kind_name(ev->kind);
    if (!pending_op_kind(ev->kind))
        return rt_err_set(err, RT_E_FORMAT,
                          "%s at %llu ns after the pending call %s: not an operation a call "
                          "can be blocked in",
                          kname, (unsigned long long)ev->time, pending_name(st, p, sizeof p));
    if (ev->time != st->pending_time || ev->call != st->pending_call)
        return rt_err_set(err, RT_E_FORMAT,
                          "%s at %llu ns in %s after the pending call %s: its operations "
                          "must have its time and call",
                          kname, (unsigned long long)ev->time,
                          ev->call ? rt_func_name(ev->call) : "no call",
                          pending_name(st, p, sizeof p));
    return 0;
}

/* ---- the rows of a v or w collective ------------------------------------------------------- */

static int rows_short(const rt__rank_state *st, uint32_t rank, rt_err *err)
{
    return rt_err_set(err, RT_E_FORMAT,
                      "rank %u: the coll_peer rows of %s at %llu ns leave bytes %llu and rbytes "
                      "%llu of its totals to no block",
                      (unsigned)rank, rt_event_op_name(RT_EV_COLL_END, st->row_op),
                      (unsigned long long)st->row_time, (unsigned long long)st->row_bytes,
                      (unsigned long long)st->row_rbytes);
}

int rt__rows_end(const rt__rank_state *st, uint32_t rank, rt_err *err)
{
    return st->rows && st->row_peer >= 0 && (st->row_bytes || st->row_rbytes)
               ? rows_short(st, rank, err)
               : 0;
}

/* A COLL_PEER row against the collective before it (st->rows), and the rows' end. */
static int rows_step(rt__rank_state *st, uint64_t last_time, const rt_event *ev, rt_err *err)
{
    unsigned long long t = ev->time;
    if (ev->kind != RT_EV_COLL_PEER) {
        int rc = rt__rows_end(st, ev->rank, err);
        st->rows = 0;
        unsigned sides = rt_coll_count_sides(ev->op);
        if (!rc && !st->in_ops && sides &&
            (ev->kind == RT_EV_COLL_END || ev->kind == RT_EV_NBC_COMPLETE)) {
            st->rows = 1;
            st->row_op = ev->op;
            st->row_comm = ev->comm;
            st->row_peer = -1;
            st->row_time = ev->time;
            st->row_bytes = sides & RT_SIDE_SEND ? ev->bytes : 0;
            st->row_rbytes = sides & RT_SIDE_RECV ? ev->rbytes : 0;
        }
        return rc;
    }
    if (st->in_ops)
        return 0; /* the pending call's check names it */
    if (!st->rows)
        return rt_err_set(err, RT_E_FORMAT,
                          "coll_peer at %llu ns: not right after a v or w collective (its "
                          "coll_end or nbc_complete, or another coll_peer of it)",
                          t);
    if (ev->time != last_time || ev->call != st->last_call || ev->comm != st->row_comm ||
        ev->op != st->row_op)
        return rt_err_set(err, RT_E_FORMAT,
                          "coll_peer at %llu ns: not of the %s at %llu ns before it (its time, "
                          "call, communicator and op)",
                          t, rt_event_op_name(RT_EV_COLL_END, st->row_op),
                          (unsigned long long)st->row_time);
    if (ev->peer <= st->row_peer)
        return rt_err_set(err, RT_E_FORMAT,
                          "coll_peer at %llu ns: block %d after block %d (blocks go in "
                          "increasing order, each once)",
                          t, ev->peer, st->row_peer);
    if (ev->bytes > st->row_bytes || ev->rbytes > st->row_rbytes)
        return rt_err_set(err, RT_E_FORMAT,
                          "coll_peer at %llu ns: block %d makes the rows of %s add up to more "
                          "than its totals",
                          t, ev->peer, rt_event_op_name(RT_EV_COLL_END, st->row_op));
    st->row_bytes -= ev->bytes;
    st->row_rbytes -= ev->rbytes;
    st->row_peer = ev->peer;
    return 0;
}

/* ---- the target of an RMA transfer ------------------------------------------------------------
 */

static int is_transfer(unsigned kind)
{
    return kind == RT_EV_RMA_PUT || kind == RT_EV_RMA_GET || kind == RT_EV_RMA_ATOMIC;
}

/* 1 when the transfer names a reduction: the atomics but compare-and-swap. */
static int transfer_has_op(unsigned kind, unsigned atomic_op)
{
    return kind == RT_EV_RMA_ATOMIC && atomic_op != RT_ATOMIC_COMPARE_AND_SWAP;
}

/* An RMA_TARGET against the transfer right before it (st->tgt). */
static int target_step(rt__rank_state *st, uint64_t last_time, const rt_event *ev, rt_err *err)
{
    unsigned k = ev->kind;
    int after_transfer = st->tgt;
    st->tgt = 0;
    if (is_transfer(k) && !st->in_ops) {
        st->tgt = 1;
        st->tgt_kind = (uint8_t)k;
        st->tgt_op = ev->op;
        st->tgt_comm = ev->comm;
        st->tgt_peer = ev->peer;
        return 0;
    }
    if (k != RT_EV_RMA_TARGET || st->in_ops) /* a pending call's check names a target there */
        return 0;
    unsigned long long t = ev->time;
    if (!after_transfer)
        return rt_err_set(err, RT_E_FORMAT,
                          "rma_target at %llu ns: not right after a put, get or atomic", t);
    if (ev->time != last_time || ev->call != st->last_call || ev->comm != st->tgt_comm ||
        ev->peer != st->tgt_peer)
        return rt_err_set(err, RT_E_FORMAT,
                          "rma_target at %llu ns: not of the %s before it (its time, call, "
                          "window and target)",
                          t, rt_event_kind_name(st->tgt_kind));
    if (transfer_has_op(st->tgt_kind, st->tgt_op) == (ev->op != RT_REDOP_NONE))
        return 0;
    const char *what = st->tgt_kind == RT_EV_RMA_ATOMIC
                           ? rt_event_op_name(RT_EV_RMA_ATOMIC, st->tgt_op)
                           : rt_event_kind_name(st->tgt_kind);
    if (ev->op != RT_REDOP_NONE)
        return rt_err_set(err, RT_E_FORMAT,
                          "rma_target at %llu ns: op %s, but the %s before it names none", t,
                          rt_event_op_name(RT_EV_RMA_TARGET, ev->op), what);
    return rt_err_set(err, RT_E_FORMAT,
                      "rma_target at %llu ns: no op, but the %s before it names one", t, what);
}

/* ---- the memory of an operation and of a window -------------------------------------------------
 */

/* The op a BUFFER of an event of this kind may have as its first: RT_BUF_COUNT for either (an
 * atomic: its origin, or its result alone), UINT_MAX for none (a kind that has no buffer). */
static unsigned buffer_op_of(unsigned kind)
{
    switch (kind) {
    case RT_EV_SEND:
    case RT_EV_ISEND:
    case RT_EV_RMA_PUT:
        return RT_BUF_READ;
    case RT_EV_RECV:
    case RT_EV_IRECV_REQUEST:
    case RT_EV_RMA_GET:
        return RT_BUF_WRITE;
    case RT_EV_RMA_ATOMIC:
        return RT_BUF_COUNT;
    default:
        return UINT_MAX;
    }
}

/* A BUFFER against the event before it, and a WIN_ATTACH base against the WIN_CREATE before it
 * (rt_event.h, "The memory an operation uses"). last_kind is the kind before ev, plus 1. */
static int buffer_step(rt__rank_state *st, uint64_t last_time, const rt_event *ev, rt_err *err)
{
    unsigned k = ev->kind, prev = st->last_kind ? st->last_kind - 1u : RT_EV_COUNT;
    unsigned long long t = ev->time;
    int same = st->last_kind && ev->time == last_time && ev->call == st->last_call;
    if (k == RT_EV_WIN_CREATE)
        st->win_comm = ev->comm;
    if (k == RT_EV_WIN_ATTACH && ev->op == RT_WATTACH_BASE &&
        (st->in_ops || prev != RT_EV_WIN_CREATE || !same || ev->comm != st->win_comm))
        return rt_err_set(err, RT_E_FORMAT,
                          "win_attach base at %llu ns: not right after the win_create of its "
                          "window (its time and call)",
                          t);
    if (k != RT_EV_BUFFER)
        return 0;
    const char *op = rt_event_op_name(k, ev->op);
    if (st->in_ops)
        return rt_err_set(err, RT_E_FORMAT, "buffer (%s) at %llu ns: in a pending call", op, t);
    if (prev == RT_EV_BUFFER) {
        if (st->buf_kind != RT_EV_RMA_ATOMIC || st->buf_n != 1 || st->buf_op != RT_BUF_READ ||
            ev->op != RT_BUF_WRITE || !same)
            return rt_err_set(err, RT_E_FORMAT,
                              "buffer (%s) at %llu ns: a second buffer, but only an atomic's "
                              "result (write) may follow its origin (read), at its time and call",
                              op, t);
        st->buf_n = 2;
        st->buf_op = ev->op;
        return 0;
    }
    unsigned owner = prev == RT_EV_RMA_TARGET ? st->tgt_kind : prev;
    unsigned want = prev < RT_EV_COUNT ? buffer_op_of(owner) : UINT_MAX;
    if (want == UINT_MAX || !same)
        return rt_err_set(err, RT_E_FORMAT,
                          "buffer (%s) at %llu ns: not right after a send, receive or RMA "
                          "transfer at its time and call",
                          op, t);
    if (want != RT_BUF_COUNT && want != ev->op)
        return rt_err_set(err, RT_E_FORMAT, "buffer (%s) at %llu ns: the %s before it only %s", op,
                          t, rt_event_kind_name(owner),
                          want == RT_BUF_READ ? "reads its buffer" : "writes its buffer");
    st->buf_kind = (uint8_t)owner;
    st->buf_op = ev->op;
    st->buf_n = 1;
    return 0;
}

int rt__pending_check(rt__rank_state *st, uint64_t last_time, const rt_event *ev, rt_err *err)
{
    unsigned k = ev->kind;
    char p[96];
    int rc = 0;
    if (rows_step(st, last_time, ev, err) < 0)
        return -RT_E_FORMAT;
    if (target_step(st, last_time, ev, err) < 0)
        return -RT_E_FORMAT;
    if (buffer_step(st, last_time, ev, err) < 0)
        return -RT_E_FORMAT;
    if (st->err && (k != RT_EV_LEAVE || ev->call != st->last_call))
        return rt_err_set(err, RT_E_FORMAT,
                          "%s of %s at %llu ns after the error %s returned: only its leave may "
                          "follow",
                          rt_event_kind_name(k), rt_func_name(ev->call),
                          (unsigned long long)ev->time, rt_func_name(st->last_call));
    st->err = k == RT_EV_ERROR;
    if (k == RT_EV_ERROR && (st->in_ops || !st->last_kind || st->last_kind == RT_EV_LEAVE + 1 ||
                             st->last_call != ev->call))
        return rt_err_set(err, RT_E_FORMAT,
                          "error of %s at %llu ns: not inside a call of %s that returned (after "
                          "its enter, before its leave, not in a pending call)",
                          rt_func_name(ev->call), (unsigned long long)ev->time,
                          rt_func_name(ev->call));
    if (k == RT_EV_PENDING) {
        if (st->last_kind != RT_EV_ENTER + 1 || st->last_call != ev->call || last_time != ev->time)
            return rt_err_set(err, RT_E_FORMAT,
                              "pending %s at %llu ns: not right after the enter of %s at "
                              "that time",
                              rt_func_name(ev->call), (unsigned long long)ev->time,
                              rt_func_name(ev->call));
        st->pending_call = ev->call;
        st->pending_time = ev->time;
        st->in_ops = 1;
    } else if (k == RT_EV_ENTER || k == RT_EV_LEAVE) {
        st->in_ops = 0;
        if (k == RT_EV_LEAVE && st->pending_call != RT_FN_NONE && ev->call == st->pending_call)
            return rt_err_set(err, RT_E_FORMAT,
                              "leave of %s at %llu ns: the rank's call %s is pending, it never "
                              "returned",
                              rt_func_name(ev->call), (unsigned long long)ev->time,
                              pending_name(st, p, sizeof p));
    } else if (st->in_ops) {
        rc = pending_op(st, ev, err);
    } else if ((k == RT_EV_RECV || k == RT_EV_IRECV) && ev->peer == RT_PEER_NONE) {
        rc = rt_err_set(err, RT_E_FORMAT,
                        "%s at %llu ns without a source (peer none): only a pending call's "
                        "receive has none",
                        rt_event_kind_name(k), (unsigned long long)ev->time);
    }
    st->last_kind = (uint8_t)(k + 1);
    st->last_call = ev->call;
    st->slow = st->pending_call != RT_FN_NONE || st->rows || st->tgt || st->err;
    return rc;
}

/* The ranks whose last events are rows short of their collective's totals: an error. Once
 * per trace: out of the way of the per-event path. */
static int rows_at_end(const rt__rank_state *st, uint32_t nranks, const char *path, rt_err *err)
    __attribute__((noinline, cold));
static int rows_at_end(const rt__rank_state *st, uint32_t nranks, const char *path, rt_err *err)
{
    for (uint32_t i = 0; i < nranks; i++)
        if (rt__rows_end(&st[i], i, err) < 0)
            return rt__err_prefix(err, -RT_E_FORMAT, path);
    return 0;
}

/* The next event of a back end without next_block, checked. */
static int next_checked(rt_reader *r, rt_event *ev, rt_err *err)
{
    int rc = r->ops->next(r, ev, err);
    if (__builtin_expect(rc <= 0, 0))
        return rc < 0 || r->part ? rc : rows_at_end(r->state, r->defs.nranks, r->path, err);
    char where[512];
    rt_err e;
    if (rt_event_check(&r->defs, ev, &e) < 0) {
        r->ops->where(r, where, sizeof where);
        return rt_err_set(err, e.code, "%s: %s", where, e.msg);
    }
    if (ev->time < r->last_time[ev->rank]) {
        r->ops->where(r, where, sizeof where);
        return rt_err_set(err, RT_E_ORDER,
                          "%s: events out of time order: rank %u at %llu ns after %llu ns", where,
                          (unsigned)ev->rank, (unsigned long long)ev->time,
                          (unsigned long long)r->last_time[ev->rank]);
    }
    if (rt__pending_step(&r->state[ev->rank], r->last_time[ev->rank], ev, &e) < 0) {
        r->ops->where(r, where, sizeof where);
        return rt_err_set(err, e.code, "%s: %s", where, e.msg);
    }
    r->last_time[ev->rank] = ev->time;
    rt_event_normalize(ev);
    r->nevents++;
    return 1;
}

/* 1 when rt_event_check would pass ev without looking up a definition: a kind without a
 * communicator, connection type, op or request (enter and leave, most of a trace), of rank
 * (a world rank, checked), with a known call, named where the kind needs one. 0: ask
 * rt_event_check. */
static inline int plain_valid(const rt_event *ev, unsigned k, unsigned m, uint32_t rank)
{
    const unsigned looked_at = RT_FIELD_COMM | RT_FIELD_CONTYPE | RT_FIELD_OP | RT_FIELD_REQ;
    return k < RT_EV_COUNT && !(m & looked_at) && ev->rank == rank && ev->call < RT_FN_COUNT &&
           (ev->call != RT_FN_NONE || (k != RT_EV_ENTER && k != RT_EV_LEAVE && k != RT_EV_PENDING));
}

/* The point-to-point and collective kinds memo_valid takes: no window, no group, no assert. */
#define MEMO_KINDS                                                            \
    (UINT64_C(1) << RT_EV_SEND | UINT64_C(1) << RT_EV_ISEND |                 \
     UINT64_C(1) << RT_EV_ISEND_COMPLETE | UINT64_C(1) << RT_EV_RECV |        \
     UINT64_C(1) << RT_EV_IRECV_REQUEST | UINT64_C(1) << RT_EV_IRECV |        \
     UINT64_C(1) << RT_EV_REQUEST_CANCELLED | UINT64_C(1) << RT_EV_COLL_END | \
     UINT64_C(1) << RT_EV_NBC_REQUEST | UINT64_C(1) << RT_EV_NBC_COMPLETE)

/* 1 when rt_event_check would pass ev, a point-to-point or collective kind of rank (a world
 * rank, checked) whose communicator, if it names one, is memo's (checked, with the size of
 * its peer group): the checks of event_check (formats/defs.c) for these kinds, in line, where
 * an event names a known call, connection type, op, a request other than none and a peer of
 * that group (or none, on a collective). 0: ask rt_event_check, which then says what is
 * wrong. Every block of the OTF2 reader is mostly such events and enter and leave. */
static inline int memo_valid(const rt_event *ev, unsigned k, unsigned m, uint32_t rank,
                             const rt__check_memo *memo)
{
    if (k >= 64 || !(MEMO_KINDS >> k & 1) || ev->rank != rank || ev->call >= RT_FN_COUNT)
        return 0;
    if (((m & RT_FIELD_CONTYPE) && ev->contype >= RT_CT_COUNT) ||
        ((m & RT_FIELD_REQ) && ev->req == RT_REQ_NONE) ||
        ((m & RT_FIELD_OP) && ev->op && !rt_event_op_valid(k, ev->op)))
        return 0;
    if (!(m & RT_FIELD_COMM))
        return 1;
    if (!memo->valid || memo->rma || memo->id != ev->comm || memo->rank != rank)
        return 0;
    if (!(m & RT_FIELD_PEER))
        return 1;
    if (ev->peer == RT_PEER_NONE && (k == RT_EV_COLL_END || k == RT_EV_NBC_COMPLETE))
        return 1;
    return ev->peer >= 0 &&
           (memo->c->flags & RT_COMM_IS_SELF ? ev->peer == 0 : (uint32_t)ev->peer < memo->n);
}

int rt__reader_check_block(rt_reader *r, rt_event *ev, size_t n, size_t *ok, rt_err *err)
{
    rt_err e;
    rt__check_memo memo = {0};
    size_t i = 0;
    int rc = 0;
    if (n && rt__event_check_memo(&r->defs, &ev[0], &memo, &e) < 0)
        rc = rt_err_set(err, e.code, "%s", e.msg);
    uint32_t rank = !rc && n ? ev[0].rank : 0; /* checked: a world rank */
    uint64_t last = r->last_time[rank];
    rt__rank_state *st = &r->state[rank];
    /* the same checks as next_checked's, in its order, each event once */
    for (; !rc && i < n; i++) {
        rt_event *x = &ev[i];
        unsigned k = x->kind, m = rt_event_kind_mask(k);
        if (i && !plain_valid(x, k, m, rank) && !memo_valid(x, k, m, rank, &memo) &&
            rt__event_check_memo(&r->defs, x, &memo, &e) < 0) {
            rc = rt_err_set(err, e.code, "%s", e.msg);
            break;
        }
        if (x->time < last) {
            rc = rt_err_set(err, RT_E_ORDER,
                            "events out of time order: rank %u at %llu ns after "
                            "%llu ns",
                            (unsigned)rank, (unsigned long long)x->time, (unsigned long long)last);
            break;
        }
        if (rt__pending_step(st, last, x, &e) < 0) {
            rc = rt_err_set(err, e.code, "%s", e.msg);
            break;
        }
        last = x->time;
    }
    *ok = i;
    return rc;
}

int rt__reader_end(rt_reader *r, rt_err *err)
{
    return r->part ? 0 : rows_at_end(r->state, r->defs.nranks, r->path, err);
}

/* A block from a back end with next_block, checked for time order where blocks meet: its
 * first event not before the rank's last one, its last not before its first (the back end
 * keeps the order inside a block, where a check of every event would cost more than the
 * fastest back end, TI, spends on some of them). A block that fails stops the reader. */
static int next_block_checked(rt_reader *r, const rt_event **ev, size_t *n, rt_err *err)
{
    if (r->stop < 0) {
        if (err)
            *err = r->stop_err;
        return r->stop;
    }
    int rc = r->ops->next_block(r, ev, n, err);
    if (rc <= 0)
        return rc;
    const rt_event *b = *ev;
    uint32_t rank = b[0].rank;
    uint64_t last = r->last_time[rank];
    if (b[0].time < last || b[*n - 1].time < b[0].time) {
        uint64_t at = b[0].time < last ? b[0].time : b[*n - 1].time;
        uint64_t after = b[0].time < last ? last : b[0].time;
        r->stop =
            rt_err_set(&r->stop_err, RT_E_ORDER,
                       "%s: events out of time order: rank %u at %llu ns after %llu ns", r->path,
                       (unsigned)rank, (unsigned long long)at, (unsigned long long)after);
        if (err)
            *err = r->stop_err;
        return r->stop;
    }
    r->last_time[rank] = b[*n - 1].time;
    r->nevents += *n;
    return 1;
}

/* What the back end returned at the end of a gathered block, returned again now. */
static int gather_stop(rt_reader *r, rt_err *err)
{
    if (r->stop < 0 && err)
        *err = r->stop_err;
    return r->stop < 0 ? r->stop : 0;
}

int rt_reader_next(rt_reader *r, rt_event *ev, rt_err *err)
{
    if (r->blk_i < r->blk_n) {
        *ev = r->blk[r->blk_i++];
        return 1;
    }
    if (r->ops->next_block) {
        int rc = next_block_checked(r, &r->blk, &r->blk_n, err);
        r->blk_i = 0;
        if (rc <= 0) {
            r->blk_n = 0;
            return rc;
        }
        *ev = r->blk[r->blk_i++];
        return 1;
    }
    if (r->held) { /* the event that ended the last gathered block */
        r->held = 0;
        *ev = r->gather[RT__GATHER];
        return 1;
    }
    if (r->stop)
        return gather_stop(r, err);
    return next_checked(r, ev, err);
}

/* A block from a back end without next_block: its events up to the first of another rank
 * (held for the next block), RT__GATHER at most. */
static int gather(rt_reader *r, const rt_event **ev, size_t *n, rt_err *err)
{
    if (!r->gather && !(r->gather = malloc((RT__GATHER + 1) * sizeof *r->gather)))
        return rt_err_set(err, RT_E_NOMEM, "%s: out of memory", r->path);
    size_t k = 0;
    int rc = 1;
    if (r->held) {
        r->gather[k++] = r->gather[RT__GATHER];
        r->held = 0;
    } else if (r->stop) {
        return gather_stop(r, err);
    }
    while (k < RT__GATHER && (rc = next_checked(r, &r->gather[k], err)) > 0) {
        if (k && r->gather[k].rank != r->gather[0].rank) {
            r->gather[RT__GATHER] = r->gather[k];
            r->held = 1;
            break;
        }
        k++;
    }
    if (rc <= 0) {
        if (!k)
            return rc;
        r->stop = rc < 0 ? rc : 1; /* after these events */
        if (rc < 0 && err)
            r->stop_err = *err;
    }
    *ev = r->gather;
    *n = k;
    return 1;
}

int rt_reader_next_block(rt_reader *r, const rt_event **ev, size_t *n, rt_err *err)
{
    if (r->blk_i < r->blk_n) { /* the rest of a block rt_reader_next began */
        *ev = r->blk + r->blk_i;
        *n = r->blk_n - r->blk_i;
        r->blk_i = r->blk_n;
        return 1;
    }
    if (!r->ops->next_block)
        return gather(r, ev, n, err);
    return next_block_checked(r, ev, n, err);
}

int rt_reader_by_rank(const rt_reader *r)
{
    return r->by_rank;
}

const char *rt_reader_truncated(const rt_reader *r)
{
    return r->truncated;
}

int rt_reader_end_check(const rt_reader *r, rt_err *err)
{
    if (!r->part)
        return 0;
    for (uint32_t i = r->rank_lo; i < r->rank_hi; i++)
        if (rt__rows_end(&r->state[i], i, err) < 0)
            return rt__err_prefix(err, -RT_E_FORMAT, r->path);
    return 0;
}

void rt_reader_close(rt_reader *r)
{
    if (!r)
        return;
    if (r->ops)
        r->ops->close(r);
    rt_defs_free(&r->defs);
    free(r->last_time);
    free(r->state);
    free(r->gather);
    free(r->truncated);
    free(r->path);
    free(r);
}

int rt_writer_open(const char *path, rt_format fmt, const rt_defs *defs, rt_writer **out,
                   rt_err *err)
{
    *out = NULL;
    if (fmt == RT_FMT_AUTO) {
        size_t len = strlen(path);
        fmt = len > 4 && !strcmp(path + len - 4, ".csv") ? RT_FMT_CSV : RT_FMT_OTF2;
    }
    if (fmt == RT_FMT_RAW)
        return rt_err_set(err, RT_E_INVAL, "%s: cannot write raw traces", path);
    rt_writer *w = calloc(1, sizeof *w);
    if (!w || !(w->path = strdup(path))) {
        free(w);
        return rt_err_set(err, RT_E_NOMEM, "%s: out of memory", path);
    }
    w->format = fmt;
    int rc = rt_defs_copy(&w->defs, defs, err);
    if (!rc) {
        w->last_time = calloc(defs->nranks, sizeof *w->last_time);
        w->state = calloc(defs->nranks, sizeof *w->state);
        if (!w->last_time || !w->state)
            rc = rt_err_set(err, RT_E_NOMEM, "%s: out of memory", path);
    }
    if (!rc)
        rc = fmt == RT_FMT_CSV  ? rt__csv_create(w, err)
             : fmt == RT_FMT_TI ? rt__ti_create(w, err)
                                : rt__otf2_create(w, err);
    if (rc) {
        rt_defs_free(&w->defs);
        free(w->last_time);
        free(w->state);
        free(w->path);
        free(w);
        return rc;
    }
    *out = w;
    return 0;
}

int rt_writer_write(rt_writer *w, const rt_event *ev, rt_err *err)
{
    rt_err e;
    if (rt_event_check(&w->defs, ev, &e) < 0)
        return rt_err_set(err, e.code, "%s: %s", w->path, e.msg);
    if (ev->time < w->last_time[ev->rank])
        return rt_err_set(err, RT_E_ORDER,
                          "%s: events out of time order: rank %u at %llu ns after %llu ns", w->path,
                          (unsigned)ev->rank, (unsigned long long)ev->time,
                          (unsigned long long)w->last_time[ev->rank]);
    if (rt__pending_step(&w->state[ev->rank], w->last_time[ev->rank], ev, &e) < 0)
        return rt_err_set(err, e.code, "%s: %s", w->path, e.msg);
    w->last_time[ev->rank] = ev->time;
    rt_event e2 = *ev;
    rt_event_normalize(&e2);
    return w->ops->write(w, &e2, err);
}

int rt_writer_set_truncated(rt_writer *w, const char *note, rt_err *err)
{
    char *copy = strdup(note);
    if (!copy)
        return rt_err_set(err, RT_E_NOMEM, "%s: out of memory", w->path);
    free(w->truncated);
    w->truncated = copy;
    return 0;
}

static void writer_free(rt_writer *w)
{
    free(w->truncated);
    rt_defs_free(&w->defs);
    free(w->last_time);
    free(w->state);
    free(w->path);
    free(w);
}

int rt_writer_close(rt_writer *w, rt_err *err)
{
    if (!w)
        return 0;
    int rc = rows_at_end(w->state, w->defs.nranks, w->path, err);
    if (rc < 0) {
        rt_writer_abort(w);
        return rc;
    }
    rc = w->ops->close(w, err);
    writer_free(w);
    return rc;
}

void rt_writer_abort(rt_writer *w)
{
    if (!w)
        return;
    w->ops->abort(w);
    writer_free(w);
}

int rt_path_is_free(const char *path)
{
    DIR *d = opendir(path);
    if (!d)
        return errno == ENOENT;
    struct dirent *e;
    int empty = 1;
    while (empty && (e = readdir(d)))
        empty = !strcmp(e->d_name, ".") || !strcmp(e->d_name, "..");
    closedir(d);
    return empty;
}

double rt_reader_progress(const rt_reader *r)
{
    return r->ops && r->ops->progress ? r->ops->progress(r) : -1.0;
}

int rt__err_prefix(rt_err *err, int rc, const char *what)
{
    if (!err)
        return rc;
    char msg[RT_ERR_LEN];
    snprintf(msg, sizeof msg, "%s", err->msg);
    return rt_err_set(err, -rc, "%s: %s", what, msg);
}
