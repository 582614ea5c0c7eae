/*
 * Reader of SimGrid time-independent (TI) traces, the form SimGrid 3.32's SMPI writes
 * (smpirun -trace-ti) and replays (smpirun -replay): an index file naming one action file
 * per rank, or a single file shared by all ranks, each line "RANK ACTION ARGS...". The
 * grammar is that of src/smpi/internals/smpi_replay.cpp, argument for argument.
 *
 * Each action becomes the calls and events the tracer would record (docs/ti.md). Time is
 * synthesised: calls take 0 ns; compute and sleep advance the rank's clock. Rank files are
 * read one after the other, each once, so memory follows the longest line and the requests
 * a rank has open, not the trace.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "rt__ti.h"

/* A nonblocking request a rank has open, under SimGrid's key for wait and test. */
typedef struct ti_req {
    uint64_t id; /* 0: the mark a completing test leaves (SimGrid's null request) */
    uint64_t bytes;
    int32_t src, dst, tag; /* world ranks of sender and receiver, and the tag */
    uint8_t recv;
} ti_req;

typedef struct ti_rank {
    double clock; /* ns: the sum of compute and sleep so far (exact, rounded when used) */
    uint64_t next_req;
    uint32_t type_size; /* of the default datatype: MPI_BYTE, or MPI_DOUBLE after "init X" */
    int done;           /* its end (the implicit completion of open requests) is queued */
    ti_req *reqs;       /* open, in posting order */
    size_t nreqs, reqcap;
} ti_rank;

typedef struct ti_reader {
    double flops; /* flop/s */
    FILE *index;  /* per-rank files: the index, read on as ranks follow each other */
    unsigned long index_line;
    int shared;   /* one file for all ranks */
    uint32_t cur; /* per-rank files: the rank whose file is open */
    FILE *f;
    char *fpath;
    long fsize;
    unsigned long lineno, ev_line;
    ti_rank *ranks; /* shared: one per rank; else one, reused */
    char *line;
    size_t line_cap;
    char **tok;
    size_t ntok, tokcap;
    rt_event *q; /* events of the current action, handed out in order */
    size_t qhead, qn, qcap;
    int done;    /* 1: at the end; -1: failed, fail says why */
    rt_err fail; /* replayed by later calls */
} ti_reader;

/* ---- errors and lines ------------------------------------------------------------------ */

/* "FILE:LINE: ACTION: problem". */
static int bad(const ti_reader *t, rt_err *err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int bad(const ti_reader *t, rt_err *err, const char *fmt, ...)
{
    char msg[RT_ERR_LEN];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (t->ntok > 1)
        return rt_err_set(err, RT_E_FORMAT, "%s:%lu: %.40s: %s", t->fpath, t->lineno, t->tok[1],
                          msg);
    return rt_err_set(err, RT_E_FORMAT, "%s:%lu: %s", t->fpath, t->lineno, msg);
}

/* Reads the next action line of t->f into t->tok (trimmed, split at blanks, as SimGrid's
 * xbt_replay.cpp does). 1: a line; 0: end of file. */
static int read_action(rt_reader *r, ti_reader *t, rt_err *err)
{
    for (;;) {
        errno = 0;
        ssize_t got = getline(&t->line, &t->line_cap, t->f);
        if (got < 0) {
            if (feof(t->f))
                return 0;
            return rt_err_set(err, errno == ENOMEM ? RT_E_NOMEM : RT_E_IO, "%s: read failed: %s",
                              t->fpath, strerror(errno ? errno : EIO));
        }
        t->lineno++;
        t->ntok = 0;
        size_t n = (size_t)got;
        if (memchr(t->line, '\0', n))
            return bad(t, err, "NUL byte in line");
        int newline = t->line[n - 1] == '\n';
        char *s = t->line, *end = t->line + n;
        while (s < end && strchr(" \t\r\n\v\f", *s))
            s++;
        while (end > s && strchr(" \t\r\n\v\f", end[-1]))
            end--;
        *end = '\0';
        if (s == end)
            continue;
        if (*s == '#') {
            size_t c = strlen(RT__TRUNCATED_COMMENT);
            if (!strncmp(s, RT__TRUNCATED_COMMENT, c) && s[c])
                rt__reader_set_truncated(r, "%s", s + c);
            continue;
        }
        /* SimGrid stops at the end of file before acting on a line it ends: say so rather
         * than replay what SimGrid would not. */
        if (!newline)
            return bad(t, err,
                       "no newline at the end of the file (SimGrid's replay ignores "
                       "this last line)");
        while (*s) {
            if (t->ntok == t->tokcap) {
                size_t cap = t->tokcap ? t->tokcap * 2 : 16;
                char **tk = realloc(t->tok, cap * sizeof *tk);
                if (!tk)
                    return rt_err_set(err, RT_E_NOMEM, "%s:%lu: out of memory", t->fpath,
                                      t->lineno);
                t->tok = tk;
                t->tokcap = cap;
            }
            t->tok[t->ntok++] = s;
            s += strcspn(s, " \t");
            if (*s)
                *s++ = '\0';
            s += strspn(s, " \t");
        }
        if (t->ntok < 2)
            return bad(t, err, "expected RANK ACTION [ARGUMENTS]");
        return 1;
    }
}

/* ---- arguments ------------------------------------------------------------------------------ */

/* The count of arguments after RANK ACTION must be in [min, max]. */
static int arity(const ti_reader *t, size_t min, size_t max, const char *usage, rt_err *err)
{
    size_t n = t->ntok - 2;
    if (n >= min && n <= max)
        return 0;
    if (min == max)
        return bad(t, err, "expected %zu argument%s (%s), got %zu", min, min == 1 ? "" : "s", usage,
                   n);
    return bad(t, err, "expected %zu to %zu arguments (%s), got %zu", min, max, usage, n);
}

/* An integer as SimGrid reads it with std::stoi (ranks, tags, roots, count vectors), but
 * strict: the whole token, in [lo, hi]. */
static int arg_int(const ti_reader *t, size_t i, const char *what, int64_t lo, int64_t hi,
                   int64_t *out, rt_err *err)
{
    if (rt__parse_i64(t->tok[i], out))
        return bad(t, err, "bad %s '%.40s' (expected an integer)", what, t->tok[i]);
    if (*out < lo || *out > hi)
        return bad(t, err, "%s %s out of range (%lld to %lld)", what, t->tok[i], (long long)lo,
                   (long long)hi);
    return 0;
}

/* A number as SimGrid's parse_double reads it (flops, seconds): >= 0 and finite. */
static int arg_double(const ti_reader *t, size_t i, const char *what, double *out, rt_err *err)
{
    char *end;
    errno = 0;
    double v = strtod(t->tok[i], &end);
    if (*end || errno == ERANGE || !isfinite(v) || v < 0)
        return bad(t, err, "bad %s '%.40s' (expected a number >= 0)", what, t->tok[i]);
    *out = v;
    return 0;
}

/* An element count as SimGrid's parse_integer reads it: a number (1e6 is allowed), the
 * fraction cut off. */
static int arg_count(const ti_reader *t, size_t i, const char *what, uint64_t *out, rt_err *err)
{
    double v = 0;
    if (t->tok[i][0] == '-' && strcmp(t->tok[i], "-0"))
        return bad(t, err, "negative %s '%.40s'%s", what, t->tok[i],
                   !strcmp(what, "size") ? " (a receive of the sender's size, which retrace "
                                           "cannot know)"
                                         : "");
    if (arg_double(t, i, what, &v, err))
        return -RT_E_FORMAT;
    if (v >= 9223372036854775808.0)
        return bad(t, err, "%s %s too large", what, t->tok[i]);
    *out = (uint64_t)v;
    return 0;
}

/* The size of the datatype in argument i, or the rank's default when the line stops short. */
static int arg_type(const ti_reader *t, const ti_rank *k, size_t i, uint32_t *size, rt_err *err)
{
    if (i >= t->ntok) {
        *size = k->type_size;
        return 0;
    }
    int s = rt__ti_type_size(t->tok[i]);
    if (s < 0)
        return bad(t, err, "unknown datatype id '%.40s' (SimGrid 3.32 knows -1 to 59)", t->tok[i]);
    *size = (uint32_t)s;
    return 0;
}

static int arg_rank(const ti_reader *t, const rt_reader *r, size_t i, const char *what,
                    int32_t *out, rt_err *err)
{
    int64_t v = 0;
    if (rt__parse_i64(t->tok[i], &v))
        return bad(t, err, "bad %s '%.40s' (expected a rank)", what, t->tok[i]);
    if (v < 0 || v >= r->defs.nranks)
        return bad(t, err, "%s %s is not a rank (0 to %u)%s", what, t->tok[i],
                   (unsigned)r->defs.nranks - 1,
                   v == -555 ? ": MPI_ANY_SOURCE is not supported" : "");
    *out = (int32_t)v;
    return 0;
}

static int arg_tag(const ti_reader *t, size_t i, int32_t *out, rt_err *err)
{
    int64_t v = 0;
    if (rt__parse_i64(t->tok[i], &v))
        return bad(t, err, "bad tag '%.40s' (expected an integer)", t->tok[i]);
    if (v < 0 || v > INT32_MAX)
        return bad(t, err, "tag %s out of range%s", t->tok[i],
                   v == -444 ? ": MPI_ANY_TAG is not supported" : " (0 to 2147483647)");
    *out = (int32_t)v;
    return 0;
}

/* n * size bytes, refusing overflow. */
static int mul_bytes(const ti_reader *t, uint64_t n, uint32_t size, uint64_t *out, rt_err *err)
{
    if (__builtin_mul_overflow(n, (uint64_t)size, out))
        return bad(t, err, "byte count overflows");
    return 0;
}

/* Sum of the counts in arguments first .. first + n - 1 (std::stoi integers >= 0). With
 * mine set, *mine is the count at position `at`. */
static int arg_counts(const ti_reader *t, size_t first, uint32_t n, const char *what, uint64_t *sum,
                      uint32_t at, uint64_t *mine, rt_err *err)
{
    *sum = 0;
    for (uint32_t i = 0; i < n; i++) {
        int64_t v;
        int rc = arg_int(t, first + i, what, 0, INT_MAX, &v, err);
        if (rc)
            return rc;
        *sum += (uint64_t)v; /* at most 2^24 counts of at most 2^31 */
        if (mine && i == at)
            *mine = (uint64_t)v;
    }
    return 0;
}

/* ---- events --------------------------------------------------------------------------------- */

static rt_event *push(ti_reader *t, unsigned kind, unsigned call, uint32_t me, uint64_t time,
                      rt_err *err)
{
    if (t->qn == t->qcap) {
        size_t cap = t->qcap ? t->qcap * 2 : 32;
        rt_event *q = realloc(t->q, cap * sizeof *q);
        if (!q) {
            rt_err_set(err, RT_E_NOMEM, "%s:%lu: out of memory", t->fpath, t->lineno);
            return NULL;
        }
        t->q = q;
        t->qcap = cap;
    }
    rt_event *ev = &t->q[t->qn++];
    memset(ev, 0, sizeof *ev);
    ev->kind = (uint8_t)kind;
    ev->call = (uint16_t)call;
    ev->rank = me;
    ev->time = time;
    return ev;
}

#define PUSH(ev, kind, call)                                                                       \
    do {                                                                                           \
        if (!((ev) = push(t, (kind), (call), me, now, err)))                                       \
            return -RT_E_NOMEM;                                                                    \
    } while (0)

static uint64_t clock_ns(const ti_rank *k)
{
    return (uint64_t)(k->clock + 0.5); /* >= 0: rounds to nearest */
}

/* Every rank on a node of its own: a message is loop to itself, net to anyone else. */
static uint8_t contype(uint32_t me, int32_t peer)
{
    return (uint32_t)peer == me ? RT_CT_LOOP : RT_CT_NET;
}

static int enter_leave(ti_reader *t, uint32_t me, uint64_t now, unsigned call, rt_err *err)
{
    rt_event *ev;
    PUSH(ev, RT_EV_ENTER, call);
    PUSH(ev, RT_EV_LEAVE, call);
    return 0;
}

/* The completion event of request q, inside call. */
static int complete(ti_reader *t, uint32_t me, uint64_t now, unsigned call, const ti_req *q,
                    rt_err *err)
{
    rt_event *ev;
    if (!q->recv) {
        PUSH(ev, RT_EV_ISEND_COMPLETE, call);
        ev->req = q->id;
        return 0;
    }
    PUSH(ev, RT_EV_IRECV, call);
    ev->comm = RT_COMM_WORLD;
    ev->peer = q->src;
    ev->tag = q->tag;
    ev->bytes = q->bytes;
    ev->contype = contype(me, q->src);
    ev->req = q->id;
    return 0;
}

/* A Waitall completing every open request of the rank (in posting order; marks dropped). */
static int wait_all(ti_reader *t, ti_rank *k, uint32_t me, rt_err *err)
{
    uint64_t now = clock_ns(k);
    rt_event *ev;
    PUSH(ev, RT_EV_ENTER, RT_FN_Waitall);
    for (size_t i = 0; i < k->nreqs; i++)
        if (k->reqs[i].id && complete(t, me, now, RT_FN_Waitall, &k->reqs[i], err))
            return -RT_E_NOMEM;
    k->nreqs = 0;
    PUSH(ev, RT_EV_LEAVE, RT_FN_Waitall);
    return 0;
}

static int open_req(const ti_reader *t, ti_rank *k, ti_req q, rt_err *err)
{
    if (k->nreqs == k->reqcap) {
        size_t cap = k->reqcap ? k->reqcap * 2 : 8;
        ti_req *v = realloc(k->reqs, cap * sizeof *v);
        if (!v)
            return rt_err_set(err, RT_E_NOMEM, "%s:%lu: out of memory", t->fpath, t->lineno);
        k->reqs = v;
        k->reqcap = cap;
    }
    k->reqs[k->nreqs++] = q;
    return 0;
}

/* Takes the oldest open request (or mark) under the key, as SimGrid's RequestStorage::pop
 * does. 1: *q holds it; 0: none. */
static int pop_req(ti_rank *k, int32_t src, int32_t dst, int32_t tag, ti_req *q)
{
    for (size_t i = 0; i < k->nreqs; i++)
        if (k->reqs[i].src == src && k->reqs[i].dst == dst && k->reqs[i].tag == tag) {
            *q = k->reqs[i];
            memmove(&k->reqs[i], &k->reqs[i + 1], (k->nreqs - i - 1) * sizeof *k->reqs);
            k->nreqs--;
            return 1;
        }
    return 0;
}

/* ---- actions -------------------------------------------------------------------------------- */

typedef struct ti_ctx {
    rt_reader *r;
    ti_reader *t;
    ti_rank *k;
    uint32_t me, p; /* the rank, and the world size */
} ti_ctx;

typedef int (*action_fn)(ti_ctx *c, rt_err *err);

#define CTX                                                                                        \
    ti_reader *t = c->t;                                                                           \
    ti_rank *k = c->k;                                                                             \
    uint32_t me = c->me;                                                                           \
    uint64_t now = clock_ns(k);                                                                    \
    (void)k, (void)me, (void)now

static int a_init(ti_ctx *c, rt_err *err)
{
    CTX;
    int rc = arity(t, 0, 1, "init [X]: with X, the default datatype is MPI_DOUBLE", err);
    if (rc)
        return rc;
    k->type_size = t->ntok > 2 ? 8 : 1;
    return enter_leave(t, me, now, RT_FN_Init, err);
}

static int a_finalize(ti_ctx *c, rt_err *err)
{
    CTX;
    int rc = arity(t, 0, 0, "finalize", err), open = 0;
    for (size_t i = 0; i < k->nreqs; i++)
        open |= k->reqs[i].id != 0;
    /* SimGrid completes what is left open at the end: do it before MPI_Finalize */
    if (rc || (open && (rc = wait_all(t, k, me, err))))
        return rc;
    return enter_leave(t, me, now, RT_FN_Finalize, err);
}

/* comm_size, comm_split and comm_dup: SimGrid's replay does nothing for them (every
 * operation stays on MPI_COMM_WORLD, its arguments world ranks), and takes any arguments. */
static int a_comm(ti_ctx *c, rt_err *err)
{
    CTX;
    if (!strcmp(t->tok[1], "comm_size"))
        return 0;
    return enter_leave(t, me, now,
                       !strcmp(t->tok[1], "comm_split") ? RT_FN_Comm_split : RT_FN_Comm_dup, err);
}

static int a_location(ti_ctx *c, rt_err *err)
{
    CTX;
    return arity(t, 2, 2, "location FILE LINE", err);
}

static int a_compute(ti_ctx *c, rt_err *err)
{
    CTX;
    double flops = 0;
    int rc = arity(t, 1, 1, "compute FLOPS", err);
    if (rc || (rc = arg_double(t, 2, "flop count", &flops, err)))
        return rc;
    k->clock += flops / t->flops * 1e9;
    return 0;
}

static int a_sleep(ti_ctx *c, rt_err *err)
{
    CTX;
    double s = 0;
    int rc = arity(t, 1, 1, "sleep SECONDS", err);
    if (rc || (rc = arg_double(t, 2, "duration", &s, err)))
        return rc;
    k->clock += s * 1e9;
    return 0;
}

/* send, isend, recv, irecv PARTNER TAG SIZE [DATATYPE] */
static int a_p2p(ti_ctx *c, rt_err *err)
{
    CTX;
    const char *name = t->tok[1];
    int32_t peer = 0, tag = 0;
    uint64_t count, bytes;
    uint32_t size = 0;
    int rc = arity(t, 3, 4, "PARTNER TAG SIZE [DATATYPE]", err);
    if (rc || (rc = arg_rank(t, c->r, 2, "partner", &peer, err)) ||
        (rc = arg_tag(t, 3, &tag, err)) || (rc = arg_count(t, 4, "size", &count, err)) ||
        (rc = arg_type(t, k, 5, &size, err)) || (rc = mul_bytes(t, count, size, &bytes, err)))
        return rc;
    int is_send = name[0] == 's' || name[1] == 's';
    int nonblocking = name[0] == 'i';
    unsigned call = is_send ? (nonblocking ? RT_FN_Isend : RT_FN_Send)
                            : (nonblocking ? RT_FN_Irecv : RT_FN_Recv);
    rt_event *ev;
    PUSH(ev, RT_EV_ENTER, call);
    if (nonblocking) {
        ti_req q = {.id = ++k->next_req,
                    .bytes = bytes,
                    .tag = tag,
                    .recv = !is_send,
                    .src = is_send ? (int32_t)me : peer,
                    .dst = is_send ? peer : (int32_t)me};
        if ((rc = open_req(t, k, q, err)))
            return rc;
        PUSH(ev, is_send ? RT_EV_ISEND : RT_EV_IRECV_REQUEST, call);
        ev->req = q.id;
    } else {
        PUSH(ev, is_send ? RT_EV_SEND : RT_EV_RECV, call);
    }
    if (ev->kind != RT_EV_IRECV_REQUEST) {
        ev->comm = RT_COMM_WORLD;
        ev->peer = peer;
        ev->tag = tag;
        ev->bytes = bytes;
        ev->contype = contype(me, peer);
    }
    PUSH(ev, RT_EV_LEAVE, call);
    return 0;
}

/* wait, test SRC DST TAG: the oldest open request under that key. A completing test leaves
 * a mark in its place, which the next wait or test with that key takes (SimGrid's null
 * request). Whether a test completes depends on timing in SimGrid; retrace, without timing,
 * lets the first test complete. */
static int a_wait(ti_ctx *c, rt_err *err)
{
    CTX;
    int32_t src = 0, dst = 0, tag = 0;
    int rc = arity(t, 3, 3, "SRC DST TAG", err);
    if (rc || (rc = arg_rank(t, c->r, 2, "source", &src, err)) ||
        (rc = arg_rank(t, c->r, 3, "destination", &dst, err)) || (rc = arg_tag(t, 4, &tag, err)))
        return rc;
    int test = t->tok[1][0] == 't';
    unsigned call = test ? RT_FN_Test : RT_FN_Wait;
    rt_event *ev;
    PUSH(ev, RT_EV_ENTER, call);
    ti_req q;
    if (pop_req(k, src, dst, tag, &q) && q.id) {
        if ((rc = complete(t, me, now, call, &q, err)))
            return rc;
        if (test && (rc = open_req(t, k, (ti_req){.src = src, .dst = dst, .tag = tag}, err)))
            return rc;
    }
    PUSH(ev, RT_EV_LEAVE, call);
    return 0;
}

/* waitall [COUNT]: every open request (the TI tracer writes the count; SimGrid ignores it). */
static int a_waitall(ti_ctx *c, rt_err *err)
{
    CTX;
    double n;
    int rc = arity(t, 0, 1, "waitall [COUNT]", err);
    if (rc || (t->ntok > 2 && (rc = arg_double(t, 2, "count", &n, err))))
        return rc;
    return wait_all(t, k, me, err);
}

/* sendRecv SENDCOUNT DST RECVCOUNT SRC SENDTYPE RECVTYPE: both tags 0, as SimGrid's replay
 * uses them. */
static int a_sendrecv(ti_ctx *c, rt_err *err)
{
    CTX;
    uint64_t sc, rc_, sb, rb;
    int32_t dst, src;
    uint32_t s1 = 0, s2 = 0;
    int rc = arity(t, 6, 6, "SENDCOUNT DST RECVCOUNT SRC SENDTYPE RECVTYPE", err);
    if (rc || (rc = arg_count(t, 2, "send count", &sc, err)) ||
        (rc = arg_rank(t, c->r, 3, "destination", &dst, err)) ||
        (rc = arg_count(t, 4, "receive count", &rc_, err)) ||
        (rc = arg_rank(t, c->r, 5, "source", &src, err)) || (rc = arg_type(t, k, 6, &s1, err)) ||
        (rc = arg_type(t, k, 7, &s2, err)) || (rc = mul_bytes(t, sc, s1, &sb, err)) ||
        (rc = mul_bytes(t, rc_, s2, &rb, err)))
        return rc;
    rt_event *ev;
    PUSH(ev, RT_EV_ENTER, RT_FN_Sendrecv);
    PUSH(ev, RT_EV_SEND, RT_FN_Sendrecv);
    ev->comm = RT_COMM_WORLD;
    ev->peer = dst;
    ev->bytes = sb;
    ev->contype = contype(me, dst);
    PUSH(ev, RT_EV_RECV, RT_FN_Sendrecv);
    ev->comm = RT_COMM_WORLD;
    ev->peer = src;
    ev->bytes = rb;
    ev->contype = contype(me, src);
    PUSH(ev, RT_EV_LEAVE, RT_FN_Sendrecv);
    return 0;
}

/* The events of a blocking collective on MPI_COMM_WORLD; flops of reduction work (the
 * COMP argument) follow the call as compute time. */
static int coll(ti_ctx *c, unsigned call, unsigned op, int32_t root, uint64_t bytes,
                uint64_t rbytes, double flops, rt_err *err)
{
    CTX;
    rt_event *ev;
    PUSH(ev, RT_EV_ENTER, call);
    PUSH(ev, RT_EV_COLL_BEGIN, call);
    PUSH(ev, RT_EV_COLL_END, call);
    ev->comm = RT_COMM_WORLD;
    ev->op = (uint8_t)op;
    ev->peer = root;
    ev->bytes = bytes;
    ev->rbytes = rbytes;
    PUSH(ev, RT_EV_LEAVE, call);
    k->clock += flops / t->flops * 1e9;
    return 0;
}

static int a_barrier(ti_ctx *c, rt_err *err)
{
    int rc = arity(c->t, 0, 0, "barrier", err);
    return rc ? rc : coll(c, RT_FN_Barrier, RT_COLL_BARRIER, RT_PEER_NONE, 0, 0, 0, err);
}

static int opt_root(ti_ctx *c, size_t i, int32_t *root, rt_err *err)
{
    *root = 0;
    return i < c->t->ntok ? arg_rank(c->t, c->r, i, "root", root, err) : 0;
}

/* bcast SIZE [ROOT [DATATYPE]] */
static int a_bcast(ti_ctx *c, rt_err *err)
{
    CTX;
    uint64_t n, bytes;
    int32_t root;
    uint32_t size = 0;
    int rc = arity(t, 1, 3, "SIZE [ROOT [DATATYPE]]", err);
    if (rc || (rc = arg_count(t, 2, "size", &n, err)) || (rc = opt_root(c, 3, &root, err)) ||
        (rc = arg_type(t, k, 4, &size, err)) || (rc = mul_bytes(t, n, size, &bytes, err)))
        return rc;
    int at_root = (uint32_t)root == me;
    return coll(c, RT_FN_Bcast, RT_COLL_BCAST, root, at_root ? bytes : 0, at_root ? 0 : bytes, 0,
                err);
}

/* reduce COUNT FLOPS [ROOT [DATATYPE]], allreduce COUNT FLOPS [DATATYPE],
 * scan and exscan COUNT FLOPS [DATATYPE] */
static int a_reduce(ti_ctx *c, rt_err *err)
{
    CTX;
    const char *name = t->tok[1];
    int rooted = !strcmp(name, "reduce");
    uint64_t n, bytes;
    double flops = 0;
    int32_t root = RT_PEER_NONE;
    uint32_t size = 0;
    int rc = rooted ? arity(t, 2, 4, "COUNT FLOPS [ROOT [DATATYPE]]", err)
                    : arity(t, 2, 3, "COUNT FLOPS [DATATYPE]", err);
    if (rc || (rc = arg_count(t, 2, "count", &n, err)) ||
        (rc = arg_double(t, 3, "flop count", &flops, err)) ||
        (rooted && (rc = opt_root(c, 4, &root, err))) ||
        (rc = arg_type(t, k, rooted ? 5 : 4, &size, err)) ||
        (rc = mul_bytes(t, n, size, &bytes, err)))
        return rc;
    if (rooted)
        return coll(c, RT_FN_Reduce, RT_COLL_REDUCE, root, bytes, (uint32_t)root == me ? bytes : 0,
                    flops, err);
    if (!strcmp(name, "allreduce"))
        return coll(c, RT_FN_Allreduce, RT_COLL_ALLREDUCE, RT_PEER_NONE, bytes, bytes, flops, err);
    if (!strcmp(name, "scan"))
        return coll(c, RT_FN_Scan, RT_COLL_SCAN, RT_PEER_NONE, bytes, bytes, flops, err);
    return coll(c, RT_FN_Exscan, RT_COLL_EXSCAN, RT_PEER_NONE, bytes, me ? bytes : 0, flops, err);
}

/* alltoall, allgather SEND RECV [SENDTYPE [RECVTYPE]];
 * gather, scatter SEND RECV [ROOT [SENDTYPE [RECVTYPE]]] (counts per rank) */
static int a_fixed(ti_ctx *c, rt_err *err)
{
    CTX;
    const char *name = t->tok[1];
    int rooted = !strcmp(name, "gather") || !strcmp(name, "scatter");
    uint64_t sc, rcnt, s, r;
    int32_t root = RT_PEER_NONE;
    uint32_t s1 = 0, s2 = 0;
    size_t ti = rooted ? 5 : 4;
    int rc = rooted ? arity(t, 2, 5, "SENDCOUNT RECVCOUNT [ROOT [SENDTYPE [RECVTYPE]]]", err)
                    : arity(t, 2, 4, "SENDCOUNT RECVCOUNT [SENDTYPE [RECVTYPE]]", err);
    if (rc || (rc = arg_count(t, 2, "send count", &sc, err)) ||
        (rc = arg_count(t, 3, "receive count", &rcnt, err)) ||
        (rooted && (rc = opt_root(c, 4, &root, err))) || (rc = arg_type(t, k, ti, &s1, err)) ||
        (rc = arg_type(t, k, ti + 1, &s2, err)) || (rc = mul_bytes(t, sc, s1, &s, err)) ||
        (rc = mul_bytes(t, rcnt, s2, &r, err)))
        return rc;
    uint64_t ps, pr;
    if ((rc = mul_bytes(t, s, c->p, &ps, err)) || (rc = mul_bytes(t, r, c->p, &pr, err)))
        return rc;
    int at_root = (uint32_t)root == me;
    switch (name[1]) {
    case 'l': /* alltoall, allgather */
        if (name[3] == 't')
            return coll(c, RT_FN_Alltoall, RT_COLL_ALLTOALL, root, ps, pr, 0, err);
        return coll(c, RT_FN_Allgather, RT_COLL_ALLGATHER, root, s, pr, 0, err);
    case 'a': /* gather */
        return coll(c, RT_FN_Gather, RT_COLL_GATHER, root, s, at_root ? pr : 0, 0, err);
    default: /* scatter */
        return coll(c, RT_FN_Scatter, RT_COLL_SCATTER, root, at_root ? ps : 0, r, 0, err);
    }
}

/* gatherv SEND RECVCOUNTS[p] [ROOT [SENDTYPE [RECVTYPE]]]; allgatherv SEND RECVCOUNTS[p]
 * followed by [SENDTYPE [RECVTYPE]], or DISPLS[p], or SENDTYPE RECVTYPE DISPLS[p]: SimGrid
 * tells them apart by the count of arguments, and so does this. */
static int a_gatherv(ti_ctx *c, rt_err *err)
{
    CTX;
    uint32_t p = c->p;
    int all = t->tok[1][0] == 'a';
    uint64_t sc, s, sum, r;
    int32_t root = RT_PEER_NONE;
    uint32_t s1 = k->type_size, s2 = k->type_size;
    size_t n = t->ntok;
    int rc =
        all ? arity(t, 1 + p, 3 + 2 * (size_t)p,
                    "SENDCOUNT RECVCOUNTS[p] [SENDTYPE [RECVTYPE]] or ... DISPLS[p] or ... "
                    "SENDTYPE RECVTYPE DISPLS[p]",
                    err)
            : arity(t, 1 + p, 4 + p, "SENDCOUNT RECVCOUNTS[p] [ROOT [SENDTYPE [RECVTYPE]]]", err);
    if (rc || (rc = arg_count(t, 2, "send count", &sc, err)) ||
        (rc = arg_counts(t, 3, p, "receive count", &sum, 0, NULL, err)))
        return rc;
    size_t disps = 0; /* first displacement, 0 when none */
    if (!all) {
        if ((rc = opt_root(c, 3 + p, &root, err)) || (rc = arg_type(t, k, 4 + p, &s1, err)) ||
            (rc = arg_type(t, k, 5 + p, &s2, err)))
            return rc;
    } else if (n > 3 + 2 * (size_t)p) {
        if ((rc = arg_type(t, k, 3 + p, &s1, err)) || (rc = arg_type(t, k, 4 + p, &s2, err)))
            return rc;
        disps = 5 + p;
        if (n != 5 + 2 * (size_t)p)
            return bad(t, err,
                       "with %zu arguments SimGrid reads SENDTYPE RECVTYPE and %u "
                       "displacements after the receive counts",
                       n - 2, (unsigned)p);
    } else if (n > 5 + (size_t)p) {
        disps = 3 + p;
        if (n != 3 + 2 * (size_t)p)
            return bad(t, err,
                       "with %zu arguments SimGrid reads %u displacements after the "
                       "receive counts",
                       n - 2, (unsigned)p);
    } else if ((rc = arg_type(t, k, 3 + p, &s1, err)) || (rc = arg_type(t, k, 4 + p, &s2, err))) {
        return rc;
    }
    for (size_t i = 0; disps && i < p; i++) {
        int64_t v;
        if ((rc = arg_int(t, disps + i, "displacement", INT_MIN, INT_MAX, &v, err)))
            return rc;
    }
    if ((rc = mul_bytes(t, sc, s1, &s, err)) || (rc = mul_bytes(t, sum, s2, &r, err)))
        return rc;
    if (all)
        return coll(c, RT_FN_Allgatherv, RT_COLL_ALLGATHERV, root, s, r, 0, err);
    return coll(c, RT_FN_Gatherv, RT_COLL_GATHERV, root, s, (uint32_t)root == me ? r : 0, 0, err);
}

/* scatterv SENDCOUNTS[p] RECV [ROOT [SENDTYPE [RECVTYPE]]] */
static int a_scatterv(ti_ctx *c, rt_err *err)
{
    CTX;
    uint32_t p = c->p;
    uint64_t sum, rcnt, s, r;
    int32_t root;
    uint32_t s1 = 0, s2 = 0;
    int rc = arity(t, 1 + p, 4 + p, "SENDCOUNTS[p] RECVCOUNT [ROOT [SENDTYPE [RECVTYPE]]]", err);
    if (rc || (rc = arg_counts(t, 2, p, "send count", &sum, 0, NULL, err)) ||
        (rc = arg_count(t, 2 + p, "receive count", &rcnt, err)) ||
        (rc = opt_root(c, 3 + p, &root, err)) || (rc = arg_type(t, k, 4 + p, &s1, err)) ||
        (rc = arg_type(t, k, 5 + p, &s2, err)) || (rc = mul_bytes(t, sum, s1, &s, err)) ||
        (rc = mul_bytes(t, rcnt, s2, &r, err)))
        return rc;
    return coll(c, RT_FN_Scatterv, RT_COLL_SCATTERV, root, (uint32_t)root == me ? s : 0, r, 0, err);
}

/* reducescatter RECVCOUNTS[p] FLOPS [DATATYPE] */
static int a_reducescatter(ti_ctx *c, rt_err *err)
{
    CTX;
    uint32_t p = c->p;
    uint64_t sum, mine = 0, s, r;
    double flops = 0;
    uint32_t size = 0;
    int rc = arity(t, 1 + p, 2 + p, "RECVCOUNTS[p] FLOPS [DATATYPE]", err);
    if (rc || (rc = arg_counts(t, 2, p, "receive count", &sum, me, &mine, err)) ||
        (rc = arg_double(t, 2 + p, "flop count", &flops, err)) ||
        (rc = arg_type(t, k, 3 + p, &size, err)) || (rc = mul_bytes(t, sum, size, &s, err)) ||
        (rc = mul_bytes(t, mine, size, &r, err)))
        return rc;
    return coll(c, RT_FN_Reduce_scatter, RT_COLL_REDUCE_SCATTER, RT_PEER_NONE, s, r, flops, err);
}

/* alltoallv SENDBUF SENDCOUNTS[p] RECVBUF RECVCOUNTS[p] [SENDTYPE [RECVTYPE]] */
static int a_alltoallv(ti_ctx *c, rt_err *err)
{
    CTX;
    uint32_t p = c->p;
    uint64_t sbuf, rbuf, ssum, rsum, s, r;
    uint32_t s1 = 0, s2 = 0;
    int rc = arity(t, 2 + 2 * (size_t)p, 4 + 2 * (size_t)p,
                   "SENDBUF SENDCOUNTS[p] RECVBUF RECVCOUNTS[p] [SENDTYPE [RECVTYPE]]", err);
    if (rc || (rc = arg_count(t, 2, "send buffer size", &sbuf, err)) ||
        (rc = arg_counts(t, 3, p, "send count", &ssum, 0, NULL, err)) ||
        (rc = arg_count(t, 3 + p, "receive buffer size", &rbuf, err)) ||
        (rc = arg_counts(t, 4 + p, p, "receive count", &rsum, 0, NULL, err)) ||
        (rc = arg_type(t, k, 4 + 2 * (size_t)p, &s1, err)) ||
        (rc = arg_type(t, k, 5 + 2 * (size_t)p, &s2, err)) ||
        (rc = mul_bytes(t, ssum, s1, &s, err)) || (rc = mul_bytes(t, rsum, s2, &r, err)))
        return rc;
    return coll(c, RT_FN_Alltoallv, RT_COLL_ALLTOALLV, RT_PEER_NONE, s, r, 0, err);
}

/* Every action SimGrid 3.32's replay registers (smpi_replay_init), and nothing else: a line
 * SimGrid would refuse is refused here too. */
static const struct {
    const char *name;
    action_fn fn;
} actions[] = {
    {"init", a_init},           {"finalize", a_finalize}, {"comm_size", a_comm},
    {"comm_split", a_comm},     {"comm_dup", a_comm},     {"send", a_p2p},
    {"isend", a_p2p},           {"recv", a_p2p},          {"irecv", a_p2p},
    {"test", a_wait},           {"wait", a_wait},         {"waitall", a_waitall},
    {"sendRecv", a_sendrecv},   {"barrier", a_barrier},   {"bcast", a_bcast},
    {"reduce", a_reduce},       {"allreduce", a_reduce},  {"scan", a_reduce},
    {"exscan", a_reduce},       {"alltoall", a_fixed},    {"allgather", a_fixed},
    {"gather", a_fixed},        {"scatter", a_fixed},     {"gatherv", a_gatherv},
    {"allgatherv", a_gatherv},  {"scatterv", a_scatterv}, {"reducescatter", a_reducescatter},
    {"alltoallv", a_alltoallv}, {"compute", a_compute},   {"sleep", a_sleep},
    {"location", a_location},
};

/* ---- files and ranks ------------------------------------------------------------------------ */

/* Reads the next line of the index that is not empty (SimGrid skips those). 1: *line holds
 * it (a buffer of t); 0: the end. */
static int index_line(rt_reader *r, ti_reader *t, char **line, rt_err *err)
{
    for (;;) {
        errno = 0;
        ssize_t got = getline(&t->line, &t->line_cap, t->index);
        if (got < 0) {
            if (feof(t->index))
                return 0;
            return rt_err_set(err, RT_E_IO, "%s: read failed: %s", r->path,
                              strerror(errno ? errno : EIO));
        }
        t->index_line++;
        if (t->line[got - 1] == '\n')
            t->line[--got] = '\0';
        if (memchr(t->line, '\0', (size_t)got))
            return rt_err_set(err, RT_E_FORMAT, "%s:%lu: NUL byte in line", r->path, t->index_line);
        if (got > 0) {
            *line = t->line;
            return 1;
        }
    }
}

static int open_file(rt_reader *r, ti_reader *t, const char *line, rt_err *err)
{
    char *p = rt__ti_resolve(r->path, line);
    if (!p)
        return rt_err_set(err, errno == ENOMEM ? RT_E_NOMEM : RT_E_NOTFOUND,
                          "%s:%lu: cannot read '%.200s': %s (looked next to the index and in "
                          "the working directory)",
                          r->path, t->index_line, line, strerror(errno ? errno : ENOENT));
    free(t->fpath);
    t->fpath = p;
    t->lineno = 0;
    if (!(t->f = fopen(p, "rb")))
        return rt_err_set(err, RT_E_IO, "%s: %s", p, strerror(errno));
    struct stat st;
    t->fsize = fstat(fileno(t->f), &st) == 0 ? (long)st.st_size : -1;
    return 0;
}

static void rank_reset(ti_rank *k)
{
    free(k->reqs);
    memset(k, 0, sizeof *k);
    k->type_size = 1; /* MPI_BYTE until an "init X" says MPI_DOUBLE */
}

/* The end of a rank's actions: SimGrid completes what it left open. 1: events queued. */
static int rank_end(ti_reader *t, ti_rank *k, uint32_t me, rt_err *err)
{
    k->done = 1;
    for (size_t i = 0; i < k->nreqs; i++)
        if (k->reqs[i].id) {
            int rc = wait_all(t, k, me, err);
            return rc ? rc : 1;
        }
    return 0;
}

/* Handles the next line (or end of file): 1 when events were queued or the clock moved, 0 at
 * the end of the trace. */
static int step(rt_reader *r, ti_reader *t, rt_err *err)
{
    for (;;) {
        int rc = read_action(r, t, err);
        if (rc < 0)
            return rc;
        if (rc == 0) {
            if (t->shared) {
                int queued = 0;
                for (uint32_t i = 0; i < r->defs.nranks; i++)
                    if (!t->ranks[i].done && (rc = rank_end(t, &t->ranks[i], i, err)) != 0) {
                        if (rc < 0)
                            return rc;
                        queued = 1;
                    }
                return queued;
            }
            if (!t->ranks[0].done && (rc = rank_end(t, &t->ranks[0], t->cur, err)) != 0)
                return rc;
            fclose(t->f);
            t->f = NULL;
            char *line;
            if ((rc = index_line(r, t, &line, err)) <= 0)
                return rc;
            if (++t->cur >= r->defs.nranks) /* the index grew since it was counted */
                return rt_err_set(err, RT_E_FORMAT, "%s: changed while being read", r->path);
            rank_reset(&t->ranks[0]);
            if ((rc = open_file(r, t, line, err)))
                return rc;
            continue;
        }
        uint64_t who;
        if (rt__parse_u64(t->tok[0], &who) || (t->tok[0][0] == '0' && t->tok[0][1]))
            return bad(t, err, "bad rank '%.40s' (expected a rank number)", t->tok[0]);
        if (!t->shared && who != t->cur)
            return bad(t, err,
                       "action of rank %s in the file of rank %u (SimGrid's replay would "
                       "skip it)",
                       t->tok[0], (unsigned)t->cur);
        if (who >= r->defs.nranks)
            return bad(t, err, "rank %s out of range (0 to %u)", t->tok[0],
                       (unsigned)r->defs.nranks - 1);
        size_t a = 0, na = sizeof actions / sizeof actions[0];
        while (a < na && strcmp(actions[a].name, t->tok[1]))
            a++;
        if (a == na)
            return bad(t, err, "unknown action (SimGrid 3.32's replay does not know it either)");
        ti_ctx c = {.r = r,
                    .t = t,
                    .k = t->shared ? &t->ranks[who] : &t->ranks[0],
                    .me = (uint32_t)who,
                    .p = r->defs.nranks};
        t->ev_line = t->lineno;
        if ((rc = actions[a].fn(&c, err)))
            return rc;
        return 1;
    }
}

static int ti_next(rt_reader *r, rt_event *ev, rt_err *err)
{
    ti_reader *t = r->impl;
    for (;;) {
        if (t->qhead < t->qn) {
            *ev = t->q[t->qhead++];
            return 1;
        }
        if (t->done > 0)
            return 0;
        if (t->done < 0) {
            *err = t->fail;
            return -t->fail.code;
        }
        t->qhead = t->qn = 0;
        int rc = step(r, t, err);
        if (rc < 0) {
            t->done = -1;
            t->fail = *err;
            return rc;
        }
        if (rc == 0)
            t->done = 1;
    }
}

static void ti_where(const rt_reader *r, char *buf, size_t len)
{
    const ti_reader *t = r->impl;
    snprintf(buf, len, "%s:%lu", t->fpath ? t->fpath : r->path, t->ev_line);
}

static double ti_progress(const rt_reader *r)
{
    const ti_reader *t = r->impl;
    if (t->done > 0)
        return 1.0;
    double in_file = 0;
    long pos;
    if (t->f && t->fsize > 0 && (pos = ftell(t->f)) >= 0)
        in_file = (double)pos / (double)t->fsize;
    if (t->shared)
        return in_file;
    return ((double)t->cur + in_file) / (double)r->defs.nranks;
}

static void ti_close(rt_reader *r)
{
    ti_reader *t = r->impl;
    if (!t)
        return;
    if (t->index)
        fclose(t->index);
    if (t->f)
        fclose(t->f);
    uint32_t n = t->shared ? r->defs.nranks : 1;
    for (uint32_t i = 0; t->ranks && i < n; i++)
        free(t->ranks[i].reqs);
    free(t->ranks);
    free(t->fpath);
    free(t->line);
    free(t->tok);
    free(t->q);
    free(t);
    r->impl = NULL;
}

static const rt__reader_ops ti_reader_ops = {
    .next = ti_next,
    .where = ti_where,
    .progress = ti_progress,
    .close = ti_close,
};

/* A shared file: the ranks are 0 to the largest rank named (SimGrid takes them from -np). */
static int count_shared_ranks(rt_reader *r, ti_reader *t, uint32_t *n, rt_err *err)
{
    uint64_t max = 0;
    int any = 0, rc;
    while ((rc = read_action(r, t, err)) > 0) {
        uint64_t who;
        if (rt__parse_u64(t->tok[0], &who) || (t->tok[0][0] == '0' && t->tok[0][1]))
            return bad(t, err, "bad rank '%.40s' (expected a rank number)", t->tok[0]);
        if (who >= RT_MAX_RANKS)
            return bad(t, err, "rank %s out of range (at most %u ranks)", t->tok[0],
                       (unsigned)RT_MAX_RANKS);
        if (!any || who > max)
            max = who;
        any = 1;
    }
    if (rc < 0)
        return rc;
    if (!any)
        return rt_err_set(err, RT_E_FORMAT, "%s: no actions", t->fpath);
    *n = (uint32_t)max + 1;
    rewind(t->f);
    t->lineno = 0;
    return 0;
}

int rt__ti_open(rt_reader *r, rt_err *err)
{
    ti_reader *t = calloc(1, sizeof *t);
    if (!t)
        return rt_err_set(err, RT_E_NOMEM, "%s: out of memory", r->path);
    r->ops = &ti_reader_ops; /* from here on, closing the reader frees t */
    r->impl = t;
    int rc = rt__ti_flop_rate(&t->flops, err);
    if (rc)
        return rc;
    if (!(t->index = fopen(r->path, "rb")))
        return rt_err_set(err, RT_E_IO, "%s: %s", r->path, strerror(errno));
    /* Count the ranks: one per line that is not empty (smpi_deployment.cpp). */
    uint64_t n = 0;
    char *line;
    while ((rc = index_line(r, t, &line, err)) > 0)
        if (++n > RT_MAX_RANKS)
            return rt_err_set(err, RT_E_FORMAT, "%s: more than %u ranks", r->path,
                              (unsigned)RT_MAX_RANKS);
    if (rc < 0)
        return rc;
    if (n == 0)
        return rt_err_set(err, RT_E_FORMAT, "%s: empty TI index", r->path);
    rewind(t->index);
    t->index_line = 0;
    if ((rc = index_line(r, t, &line, err)) < 0 || (rc = open_file(r, t, line, err)))
        return rc;
    uint32_t nranks = (uint32_t)n;
    /* One line: SimGrid replays it as a trace shared by all ranks. */
    t->shared = n == 1;
    if (t->shared && (rc = count_shared_ranks(r, t, &nranks, err)))
        return rc;
    if (t->shared) {
        fclose(t->index);
        t->index = NULL;
    }
    if (!(t->ranks = calloc(t->shared ? nranks : 1, sizeof *t->ranks)))
        return rt_err_set(err, RT_E_NOMEM, "%s: out of memory", r->path);
    for (uint32_t i = 0; i < (t->shared ? nranks : 1); i++)
        rank_reset(&t->ranks[i]);
    if ((rc = rt_defs_init(&r->defs, nranks, err)))
        return rc;
    for (uint32_t i = 0; i < nranks; i++)
        r->defs.node[i] = i; /* every rank on a node of its own, all in module 0 */
    return 0;
}
