/*
 * Writer of SimGrid time-independent (TI) traces, for SimGrid 3.32's replay (smpirun -replay
 * INDEX): the index file at the path given, naming one action file per rank in the directory
 * PATH_files, one line "rank-N.txt" path per rank, relative to the index's directory.
 *
 * Calls become actions (docs/ti.md); the time between leaving one call and entering the next
 * becomes `compute`, time inside calls is left to the simulator. Sizes are bytes of the
 * default datatype MPI_BYTE (each file starts with a bare `init`). What TI cannot say
 * (communicators other than MPI_COMM_WORLD, one-sided communication, nonblocking
 * collectives, cancelled requests) is refused, naming the first such event.
 *
 * Events of different ranks may interleave, so each rank's text is buffered and appended to
 * its file when it grows (one file open at a time). An Irecv line needs the source, tag and
 * size that only its completion tells: until then it is a hole in the rank's text, and the
 * text after it waits too.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rt__ti.h"

#define RANK_FLUSH (64u << 10) /* a rank's text is appended to its file from this size on */
#define BUDGET (64u << 20)     /* all ranks' text together: everything is written out past it */

enum { HOLD_OPEN, HOLD_DONE, HOLD_DROP };

/* An Irecv line waiting for its completion. */
typedef struct tw_hold {
    size_t off; /* where in the rank's text it goes */
    uint64_t bytes;
    int32_t peer, tag;
    int state;
} tw_hold;

/* A request the rank has open. */
typedef struct tw_req {
    uint64_t id;
    uint64_t hold;     /* Irecv: the sequence number of its hold */
    int32_t peer, tag; /* Isend: destination and tag */
    int recv;
} tw_req;

typedef struct tw_rank {
    char *buf; /* text not yet in the file */
    size_t len, cap;
    tw_hold *holds;
    size_t nholds, holdcap;
    uint64_t hold_base; /* sequence number of holds[0] */
    tw_req *reqs;
    size_t nreqs, reqcap;
    rt_event *call; /* the events of the call in progress */
    size_t ncall, callcap;
    uint64_t last_leave, idle_ns; /* compute time not yet written */
    uint32_t depth;
    uint16_t fn;
    uint8_t started, created, left;
} tw_rank;

typedef struct ti_writer {
    double flops;
    FILE *index;
    char *dir;                /* PATH_files */
    char *name;               /* its last component, for the index lines */
    int dir_made, index_made; /* what abort removes */
    tw_rank *ranks;
    size_t buffered, budget;
} ti_writer;

/* ---- errors -------------------------------------------------------------------------------- */

/* "PATH: rank R at T ns: KIND in CALL: problem". */
static int refuse(const rt_writer *w, const rt_event *ev, rt_err *err, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int refuse(const rt_writer *w, const rt_event *ev, rt_err *err, const char *fmt, ...)
{
    char msg[RT_ERR_LEN];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return rt_err_set(err, RT_E_INVAL, "%s: rank %u at %" PRIu64 " ns: %s in %s: %s", w->path,
                      (unsigned)ev->rank, ev->time, rt_event_kind_name(ev->kind),
                      rt_func_name(ev->call), msg);
}

static int no_memory(const rt_writer *w, rt_err *err)
{
    return rt_err_set(err, RT_E_NOMEM, "%s: out of memory", w->path);
}

/* ---- a rank's text ------------------------------------------------------------------------- */

static char *rank_file(const ti_writer *tw, uint32_t r)
{
    size_t n = strlen(tw->dir) + 32;
    char *p = malloc(n);
    if (p)
        snprintf(p, n, "%s/rank-%u.txt", tw->dir, (unsigned)r);
    return p;
}

/* Appends the rank's text to its file, up to the first Irecv line still open. */
static int flush_rank(rt_writer *w, uint32_t r, rt_err *err)
{
    ti_writer *tw = w->impl;
    tw_rank *k = &tw->ranks[r];
    size_t h = 0;
    while (h < k->nholds && k->holds[h].state != HOLD_OPEN)
        h++;
    size_t end = h < k->nholds ? k->holds[h].off : k->len;
    if (end == 0 && h == 0)
        return 0;
    char *path = rank_file(tw, r);
    if (!path)
        return no_memory(w, err);
    FILE *f = fopen(path, k->created ? "ab" : "wb");
    if (!f) {
        int rc = rt_err_set(err, RT_E_IO, "%s: %s", path, strerror(errno));
        free(path);
        return rc;
    }
    k->created = 1;
    size_t pos = 0;
    for (size_t i = 0; i < h; i++) {
        const tw_hold *o = &k->holds[i];
        if (o->off > pos)
            fwrite(k->buf + pos, 1, o->off - pos, f);
        if (o->state == HOLD_DONE)
            fprintf(f, "%u irecv %d %d %" PRIu64 "\n", (unsigned)r, (int)o->peer, (int)o->tag,
                    o->bytes);
        pos = o->off;
    }
    if (end > pos)
        fwrite(k->buf + pos, 1, end - pos, f);
    int bad = ferror(f);
    errno = 0;
    if (fclose(f) != 0 || bad) {
        int rc =
            rt_err_set(err, RT_E_IO, "%s: write failed: %s", path, strerror(errno ? errno : EIO));
        free(path);
        return rc;
    }
    free(path);
    if (k->len > end)
        memmove(k->buf, k->buf + end, k->len - end);
    k->len -= end;
    tw->buffered -= end;
    for (size_t i = h; i < k->nholds; i++)
        k->holds[i].off -= end;
    if (h > 0 && k->nholds > h)
        memmove(k->holds, k->holds + h, (k->nholds - h) * sizeof *k->holds);
    k->nholds -= h;
    k->hold_base += h;
    if (k->len == 0 && k->cap > RANK_FLUSH) { /* a rank done with gives its memory back */
        free(k->buf);
        k->buf = NULL;
        k->cap = 0;
    }
    return 0;
}

static int flush_all(rt_writer *w, rt_err *err)
{
    ti_writer *tw = w->impl;
    for (uint32_t r = 0; r < w->defs.nranks; r++) {
        int rc = flush_rank(w, r, err);
        if (rc)
            return rc;
    }
    /* Text held up behind open Irecv lines stays: let it grow before trying again. */
    if (tw->buffered > tw->budget / 2)
        tw->budget *= 2;
    return 0;
}

/* After text was added: write out what has grown large. */
static int text_added(rt_writer *w, uint32_t r, rt_err *err)
{
    ti_writer *tw = w->impl;
    if (tw->ranks[r].len >= RANK_FLUSH) {
        int rc = flush_rank(w, r, err);
        if (rc)
            return rc;
    }
    return tw->buffered > tw->budget ? flush_all(w, err) : 0;
}

static int append(rt_writer *w, tw_rank *k, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int append(rt_writer *w, tw_rank *k, const char *fmt, ...)
{
    ti_writer *tw = w->impl;
    for (;;) {
        size_t room = k->cap - k->len;
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(k->buf ? k->buf + k->len : NULL, room, fmt, ap);
        va_end(ap);
        if (n < 0)
            return -RT_E_INVAL; /* an encoding error: not with these formats */
        if ((size_t)n < room) {
            k->len += (size_t)n;
            tw->buffered += (size_t)n;
            return 0;
        }
        if (RT_VEC_RESERVE(k->buf, k->cap, (uint64_t)k->len + (size_t)n + 1, 16) < 0)
            return -RT_E_NOMEM;
    }
}

/* Writes the compute time before the next action line of rank r. */
static int idle(rt_writer *w, uint32_t r, rt_err *err)
{
    ti_writer *tw = w->impl;
    tw_rank *k = &tw->ranks[r];
    if (k->idle_ns) {
        int rc;
        if (tw->flops == 1e9) /* 1 flop per ns: exact */
            rc = append(w, k, "%u compute %" PRIu64 "\n", (unsigned)r, k->idle_ns);
        else
            rc = append(w, k, "%u compute %.17g\n", (unsigned)r,
                        (double)k->idle_ns * tw->flops / 1e9);
        if (rc)
            return no_memory(w, err);
        k->idle_ns = 0;
    }
    return 0;
}

/* Starts an action line of rank r, after the compute time that precedes it. */
static int line(rt_writer *w, uint32_t r, rt_err *err)
{
    ti_writer *tw = w->impl;
    int rc = idle(w, r, err);
    if (rc)
        return rc;
    return append(w, &tw->ranks[r], "%u ", (unsigned)r) ? no_memory(w, err) : 0;
}

/* A whole action line "R TEXT". */
static int action(rt_writer *w, uint32_t r, rt_err *err, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int action(rt_writer *w, uint32_t r, rt_err *err, const char *fmt, ...)
{
    ti_writer *tw = w->impl;
    tw_rank *k = &tw->ranks[r];
    int rc = line(w, r, err);
    if (rc)
        return rc;
    char buf[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap); /* callers keep it short; long lines use append */
    va_end(ap);
    if (append(w, k, "%s\n", buf))
        return no_memory(w, err);
    return text_added(w, r, err);
}

/* Every file starts with a bare init: sizes are then in MPI_BYTE. */
static int start_rank(rt_writer *w, uint32_t r, rt_err *err)
{
    ti_writer *tw = w->impl;
    tw->ranks[r].started = 1;
    return append(w, &tw->ranks[r], "%u init\n", (unsigned)r) ? no_memory(w, err) : 0;
}

/* ---- requests ------------------------------------------------------------------------------- */

static int open_req(rt_writer *w, tw_rank *k, tw_req q, rt_err *err)
{
    if (RT_VEC_RESERVE(k->reqs, k->reqcap, (uint64_t)k->nreqs + 1, 16) < 0)
        return no_memory(w, err);
    k->reqs[k->nreqs++] = q;
    return 0;
}

static tw_req *find_req(tw_rank *k, uint64_t id)
{
    for (size_t i = 0; i < k->nreqs; i++)
        if (k->reqs[i].id == id)
            return &k->reqs[i];
    return NULL;
}

/* Completes the request of a completion event: fills in its Irecv line, and gives SimGrid's
 * key (source, destination, tag) of the request. */
static int complete(rt_writer *w, const rt_event *ev, int32_t key[3], rt_err *err)
{
    ti_writer *tw = w->impl;
    tw_rank *k = &tw->ranks[ev->rank];
    tw_req *q = find_req(k, ev->req);
    if (!q)
        return refuse(w, ev, err, "request %" PRIu64 " was never started in this trace", ev->req);
    if (q->recv != (ev->kind == RT_EV_IRECV))
        return refuse(w, ev, err, "request %" PRIu64 " is not a%s", ev->req,
                      q->recv ? " receive" : " send");
    if (q->recv) {
        tw_hold *o = &k->holds[q->hold - k->hold_base];
        o->peer = ev->peer;
        o->tag = ev->tag;
        o->bytes = ev->bytes;
        o->state = HOLD_DONE;
        key[0] = ev->peer, key[1] = (int32_t)ev->rank, key[2] = ev->tag;
    } else {
        key[0] = (int32_t)ev->rank, key[1] = q->peer, key[2] = q->tag;
    }
    *q = k->reqs[--k->nreqs];
    return 0;
}

/* ---- translation ---------------------------------------------------------------------------- */

static int is_completion(const rt_event *ev)
{
    return ev->kind == RT_EV_ISEND_COMPLETE || ev->kind == RT_EV_IRECV;
}

/* A count SimGrid reads as an int. */
static int int_count(const rt_writer *w, const rt_event *ev, uint64_t v, rt_err *err)
{
    if (v > INT_MAX)
        return refuse(w, ev, err,
                      "%" PRIu64 " bytes in one count: SimGrid reads this count as "
                      "an int",
                      v);
    return 0;
}

/* v / parts, refusing a remainder: the per-rank count of a regular collective. */
static int per_rank(const rt_writer *w, const rt_event *ev, uint64_t v, uint32_t parts,
                    uint64_t *out, rt_err *err)
{
    if (v % parts)
        return refuse(w, ev, err, "%" PRIu64 " bytes do not split evenly among %u ranks", v,
                      (unsigned)parts);
    *out = v / parts;
    return int_count(w, ev, *out, err);
}

/* Appends the counts of total bytes split as evenly as the event model allows (it keeps
 * sums, not per-rank counts), the first total % n entries one byte larger; skip names an
 * entry that gets `fixed` instead (UINT32_MAX: none). */
static int put_split(rt_writer *w, const rt_event *ev, tw_rank *k, uint64_t total, uint32_t n,
                     uint32_t skip, uint64_t fixed, rt_err *err)
{
    uint32_t m = skip == UINT32_MAX ? n : n - 1;
    uint64_t base = m ? total / m : 0, extra = m ? total % m : 0;
    int rc;
    if ((rc = int_count(w, ev, base + (extra > 0), err)) || (rc = int_count(w, ev, fixed, err)))
        return rc;
    for (uint32_t i = 0, j = 0; i < n; i++) {
        uint64_t v = i == skip ? fixed : base + (j++ < extra);
        if (append(w, k, " %" PRIu64, v))
            return no_memory(w, err);
    }
    return 0;
}

/* The action of a blocking collective (COLL_END). Counts are bytes (MPI_BYTE). */
static int coll_action(rt_writer *w, const rt_event *ev, rt_err *err)
{
    ti_writer *tw = w->impl;
    uint32_t r = ev->rank, p = w->defs.nranks;
    tw_rank *k = &tw->ranks[r];
    int32_t root = ev->peer;
    int at_root = (uint32_t)root == r;
    uint64_t s = 0, x = 0;
    int rc = 0;
    switch (ev->op) {
    case RT_COLL_BARRIER:
        return action(w, r, err, "barrier");
    case RT_COLL_BCAST:
        return action(w, r, err, "bcast %" PRIu64 " %d", at_root ? ev->bytes : ev->rbytes,
                      (int)root);
    case RT_COLL_REDUCE:
    case RT_COLL_ALLREDUCE:
        if (ev->bytes > UINT_MAX)
            return refuse(w, ev, err,
                          "%" PRIu64 " bytes: SimGrid reads this count as an "
                          "unsigned int",
                          ev->bytes);
        if (ev->op == RT_COLL_REDUCE)
            return action(w, r, err, "reduce %" PRIu64 " 0 %d", ev->bytes, (int)root);
        return action(w, r, err, "allreduce %" PRIu64 " 0", ev->bytes);
    case RT_COLL_SCAN:
    case RT_COLL_EXSCAN:
        return action(w, r, err, "%s %" PRIu64 " 0", ev->op == RT_COLL_SCAN ? "scan" : "exscan",
                      ev->bytes);
    case RT_COLL_GATHER: /* the receive count matters at the root only */
        if ((rc = int_count(w, ev, ev->bytes, err)) ||
            (at_root && (rc = per_rank(w, ev, ev->rbytes, p, &x, err))))
            return rc;
        return action(w, r, err, "gather %" PRIu64 " %" PRIu64 " %d", ev->bytes,
                      at_root ? x : ev->bytes, (int)root);
    case RT_COLL_SCATTER: /* the send count matters at the root only */
        if ((rc = int_count(w, ev, ev->rbytes, err)) ||
            (at_root && (rc = per_rank(w, ev, ev->bytes, p, &s, err))))
            return rc;
        return action(w, r, err, "scatter %" PRIu64 " %" PRIu64 " %d", at_root ? s : ev->rbytes,
                      ev->rbytes, (int)root);
    case RT_COLL_ALLGATHER:
        if ((rc = int_count(w, ev, ev->bytes, err)) ||
            (rc = per_rank(w, ev, ev->rbytes, p, &x, err)))
            return rc;
        return action(w, r, err, "allgather %" PRIu64 " %" PRIu64, ev->bytes, x);
    case RT_COLL_ALLTOALL:
        if ((rc = per_rank(w, ev, ev->bytes, p, &s, err)) ||
            (rc = per_rank(w, ev, ev->rbytes, p, &x, err)))
            return rc;
        return action(w, r, err, "alltoall %" PRIu64 " %" PRIu64, s, x);
    default:
        break;
    }
    /* The v-forms: long lines, built piece by piece. */
    if ((rc = line(w, r, err)))
        return rc;
    switch (ev->op) {
    case RT_COLL_GATHERV:
    case RT_COLL_ALLGATHERV:
        if ((rc = int_count(w, ev, ev->bytes, err)))
            return rc;
        if (append(w, k, "%s %" PRIu64, ev->op == RT_COLL_GATHERV ? "gatherv" : "allgatherv",
                   ev->bytes))
            return no_memory(w, err);
        if ((rc = put_split(w, ev, k, ev->rbytes, p, UINT32_MAX, 0, err)))
            return rc;
        if (ev->op == RT_COLL_GATHERV && append(w, k, " %d", (int)root))
            return no_memory(w, err);
        break;
    case RT_COLL_SCATTERV:
        if (append(w, k, "scatterv"))
            return no_memory(w, err);
        if ((rc = put_split(w, ev, k, ev->bytes, p, UINT32_MAX, 0, err)) ||
            (rc = int_count(w, ev, ev->rbytes, err)))
            return rc;
        if (append(w, k, " %" PRIu64 " %d", ev->rbytes, (int)root))
            return no_memory(w, err);
        break;
    case RT_COLL_ALLTOALLV:
    case RT_COLL_ALLTOALLW:
        if ((rc = int_count(w, ev, ev->bytes, err)) || (rc = int_count(w, ev, ev->rbytes, err)))
            return rc;
        if (append(w, k, "alltoallv %" PRIu64, ev->bytes))
            return no_memory(w, err);
        if ((rc = put_split(w, ev, k, ev->bytes, p, UINT32_MAX, 0, err)))
            return rc;
        if (append(w, k, " %" PRIu64, ev->rbytes))
            return no_memory(w, err);
        if ((rc = put_split(w, ev, k, ev->rbytes, p, UINT32_MAX, 0, err)))
            return rc;
        break;
    case RT_COLL_REDUCE_SCATTER:
    case RT_COLL_REDUCE_SCATTER_BLOCK:
        if (ev->rbytes > ev->bytes || (p == 1 && ev->rbytes != ev->bytes))
            return refuse(w, ev, err,
                          "receives %" PRIu64 " of %" PRIu64 " bytes: no counts "
                          "can say that",
                          ev->rbytes, ev->bytes);
        if (append(w, k, "reducescatter"))
            return no_memory(w, err);
        if ((rc = put_split(w, ev, k, ev->bytes - ev->rbytes, p, r, ev->rbytes, err)))
            return rc;
        if (append(w, k, " 0"))
            return no_memory(w, err);
        break;
    default:
        return refuse(w, ev, err, "SimGrid 3.32's replay has no %s",
                      rt_event_op_name(ev->kind, ev->op));
    }
    if (append(w, k, "\n"))
        return no_memory(w, err);
    return text_added(w, r, err);
}

static int send_or_recv(rt_writer *w, const rt_event *ev, rt_err *err)
{
    return action(w, ev->rank, err, "%s %d %d %" PRIu64, ev->kind == RT_EV_SEND ? "send" : "recv",
                  (int)ev->peer, (int)ev->tag, ev->bytes);
}

/* Sendrecv: SimGrid's sendRecv uses tag 0 both ways, so other tags become an Isend, an
 * Irecv and two waits, which keep them. */
static int sendrecv(rt_writer *w, const rt_event *s, const rt_event *v, rt_err *err)
{
    uint32_t r = s->rank;
    int rc;
    if (s->tag == 0 && v->tag == 0) {
        if ((rc = int_count(w, s, s->bytes, err)) || (rc = int_count(w, v, v->bytes, err)))
            return rc;
        return action(w, r, err,
                      "sendRecv %" PRIu64 " %d %" PRIu64 " %d " RT__TI_TYPE_BYTE
                      " " RT__TI_TYPE_BYTE,
                      s->bytes, (int)s->peer, v->bytes, (int)v->peer);
    }
    if ((rc = action(w, r, err, "isend %d %d %" PRIu64, (int)s->peer, (int)s->tag, s->bytes)) ||
        (rc = action(w, r, err, "irecv %d %d %" PRIu64, (int)v->peer, (int)v->tag, v->bytes)) ||
        (rc = action(w, r, err, "wait %u %d %d", (unsigned)r, (int)s->peer, (int)s->tag)))
        return rc;
    return action(w, r, err, "wait %d %u %d", (int)v->peer, (unsigned)r, (int)v->tag);
}

static int one_event(rt_writer *w, const rt_event *ev, rt_err *err)
{
    ti_writer *tw = w->impl;
    uint32_t r = ev->rank;
    tw_rank *k = &tw->ranks[r];
    int rc;
    switch (ev->kind) {
    case RT_EV_SEND:
    case RT_EV_RECV:
        return send_or_recv(w, ev, err);
    case RT_EV_ISEND:
        if ((rc = open_req(w, k, (tw_req){.id = ev->req, .peer = ev->peer, .tag = ev->tag}, err)))
            return rc;
        return action(w, r, err, "isend %d %d %" PRIu64, (int)ev->peer, (int)ev->tag, ev->bytes);
    case RT_EV_IRECV_REQUEST:
        if (find_req(k, ev->req))
            return refuse(w, ev, err, "request %" PRIu64 " is already open", ev->req);
        if ((rc = idle(w, r, err)))
            return rc;
        if (RT_VEC_RESERVE(k->holds, k->holdcap, (uint64_t)k->nholds + 1, 16) < 0)
            return no_memory(w, err);
        k->holds[k->nholds] = (tw_hold){.off = k->len, .state = HOLD_OPEN};
        uint64_t seq = k->hold_base + k->nholds++;
        return open_req(w, k, (tw_req){.id = ev->req, .hold = seq, .recv = 1}, err);
    case RT_EV_ISEND_COMPLETE:
    case RT_EV_IRECV: {
        int32_t key[3];
        if ((rc = complete(w, ev, key, err)))
            return rc;
        return action(w, r, err, "wait %d %d %d", (int)key[0], (int)key[1], (int)key[2]);
    }
    case RT_EV_COLL_END:
        return coll_action(w, ev, err);
    default: /* COLL_BEGIN; the rest was refused on arrival */
        return 0;
    }
}

static int is_fn(unsigned fn, unsigned a, unsigned b)
{
    return fn == a || fn == b;
}

/* A call is over: its actions. */
static int translate(rt_writer *w, uint32_t r, unsigned fn, const rt_event *evs, size_t n,
                     rt_err *err)
{
    ti_writer *tw = w->impl;
    tw_rank *k = &tw->ranks[r];
    int rc;
    if (fn == RT_FN_Finalize)
        return action(w, r, err, "finalize");
    if (is_fn(fn, RT_FN_Comm_split, RT_FN_Comm_split_type))
        return action(w, r, err, "comm_split");
    if (is_fn(fn, RT_FN_Comm_dup, RT_FN_Comm_dup_with_info) || fn == RT_FN_Comm_idup)
        return action(w, r, err, "comm_dup");
    if (is_fn(fn, RT_FN_Sendrecv, RT_FN_Sendrecv_replace) ||
        is_fn(fn, RT_FN_Sendrecv_c, RT_FN_Sendrecv_replace_c)) {
        const rt_event *s = NULL, *v = NULL;
        for (size_t i = 0; i < n; i++)
            if (evs[i].kind == RT_EV_SEND && !s)
                s = &evs[i];
            else if (evs[i].kind == RT_EV_RECV && !v)
                v = &evs[i];
        if (s && v) {
            if ((rc = sendrecv(w, s, v, err)))
                return rc;
            for (size_t i = 0; i < n; i++)
                if (&evs[i] != s && &evs[i] != v && (rc = one_event(w, &evs[i], err)))
                    return rc;
            return 0;
        }
    }
    /* A Waitall that completes every open request: SimGrid's waitall says just that. */
    if (fn == RT_FN_Waitall && n > 0 && n == k->nreqs) {
        size_t i = 0;
        while (i < n && is_completion(&evs[i]) && find_req(k, evs[i].req))
            i++;
        if (i == n) {
            int32_t key[3];
            for (i = 0; i < n; i++)
                if ((rc = complete(w, &evs[i], key, err)))
                    return rc;
            return action(w, r, err, "waitall");
        }
    }
    for (size_t i = 0; i < n; i++)
        if ((rc = one_event(w, &evs[i], err)))
            return rc;
    return 0;
}

/* Refuses, on arrival, what no TI action can say. */
static int expressible(const rt_writer *w, const rt_event *ev, rt_err *err)
{
    unsigned k = ev->kind;
    if (rt_event_is_rma(k))
        return refuse(w, ev, err, "SimGrid's TI format has no one-sided communication");
    if (k == RT_EV_NBC_REQUEST || k == RT_EV_NBC_COMPLETE)
        return refuse(w, ev, err, "SimGrid 3.32's replay has no nonblocking collectives");
    if (k == RT_EV_REQUEST_CANCELLED)
        return refuse(w, ev, err, "TI has no cancelled requests");
    if ((rt_event_kind_mask(k) & RT_FIELD_COMM) && ev->comm != RT_COMM_WORLD)
        return refuse(w, ev, err,
                      "communicator %u is not MPI_COMM_WORLD: TI actions name world "
                      "ranks only",
                      (unsigned)ev->comm);
    return 0;
}

static int tw_write(rt_writer *w, const rt_event *ev, rt_err *err)
{
    ti_writer *tw = w->impl;
    uint32_t r = ev->rank;
    tw_rank *k = &tw->ranks[r];
    int rc;
    if (!k->started && (rc = start_rank(w, r, err)))
        return rc;
    if ((rc = expressible(w, ev, err)))
        return rc;
    switch (ev->kind) {
    case RT_EV_ENTER:
        if (k->depth++ == 0) {
            if (k->left)
                k->idle_ns += ev->time - k->last_leave;
            k->fn = ev->call;
            k->ncall = 0;
        }
        return 0;
    case RT_EV_LEAVE:
        if (k->depth == 0) /* a call whose start the trace lacks */
            return 0;
        if (--k->depth)
            return 0;
        k->last_leave = ev->time;
        k->left = 1;
        return translate(w, r, k->fn, k->call, k->ncall, err);
    default:
        if (k->depth == 0) /* outside any call: on its own */
            return translate(w, r, ev->call, ev, 1, err);
        if (RT_VEC_RESERVE(k->call, k->callcap, (uint64_t)k->ncall + 1, 16) < 0)
            return no_memory(w, err);
        k->call[k->ncall++] = *ev;
        return 0;
    }
}

/* ---- opening, closing ----------------------------------------------------------------------- */

static void rank_free(tw_rank *k)
{
    free(k->buf);
    free(k->holds);
    free(k->reqs);
    free(k->call);
}

static void tw_free(rt_writer *w)
{
    ti_writer *tw = w->impl;
    if (!tw)
        return;
    if (tw->index)
        fclose(tw->index);
    for (uint32_t r = 0; tw->ranks && r < w->defs.nranks; r++)
        rank_free(&tw->ranks[r]);
    free(tw->ranks);
    free(tw->dir);
    free(tw->name);
    free(tw);
    w->impl = NULL;
}

/* Removes what was written: the rank files, the directory, the index. */
static void tw_abort(rt_writer *w)
{
    ti_writer *tw = w->impl;
    for (uint32_t r = 0; tw->ranks && r < w->defs.nranks; r++)
        if (tw->ranks[r].created) {
            char *p = rank_file(tw, r);
            if (p)
                unlink(p);
            free(p);
        }
    if (tw->dir_made)
        rmdir(tw->dir);
    if (tw->index_made)
        unlink(w->path);
    tw_free(w);
}

/* The truncation note, as a comment SimGrid skips and retrace's reader reports. */
static int put_note(rt_writer *w, rt_err *err)
{
    ti_writer *tw = w->impl;
    tw_rank *k = &tw->ranks[0];
    if (append(w, k, "%s", RT__TRUNCATED_COMMENT))
        return no_memory(w, err);
    for (const char *p = w->truncated; *p; p++)
        if (append(w, k, "%c", *p == '\n' || *p == '\r' ? ' ' : *p))
            return no_memory(w, err);
    if (append(w, k, "\n"))
        return no_memory(w, err);
    return flush_rank(w, 0, err);
}

static int finish(rt_writer *w, rt_err *err)
{
    ti_writer *tw = w->impl;
    int rc;
    for (uint32_t r = 0; r < w->defs.nranks; r++) {
        tw_rank *k = &tw->ranks[r];
        if (!k->started && (rc = start_rank(w, r, err)))
            return rc;
        /* A call the trace's end cut short is left out, and so are the Irecv lines of a
         * trace cut short that never learnt what they receive. */
        for (size_t i = 0; i < k->nholds; i++) {
            if (k->holds[i].state != HOLD_OPEN)
                continue;
            if (!w->truncated) {
                uint64_t id = 0;
                for (size_t j = 0; j < k->nreqs; j++)
                    if (k->reqs[j].recv && k->reqs[j].hold == k->hold_base + i)
                        id = k->reqs[j].id;
                return rt_err_set(err, RT_E_INVAL,
                                  "%s: rank %u: receive request %" PRIu64
                                  " never completes, so its source, tag and size (which a TI "
                                  "irecv needs) are unknown",
                                  w->path, (unsigned)r, id);
            }
            k->holds[i].state = HOLD_DROP;
        }
        if ((rc = flush_rank(w, r, err)))
            return rc;
    }
    if (w->truncated && (rc = put_note(w, err)))
        return rc;
    for (uint32_t r = 0; r < w->defs.nranks; r++)
        fprintf(tw->index, "%s/rank-%u.txt\n", tw->name, (unsigned)r);
    int bad = ferror(tw->index);
    errno = 0;
    int closed = fclose(tw->index);
    tw->index = NULL;
    if (closed != 0 || bad)
        return rt_err_set(err, RT_E_IO, "%s: write failed: %s", w->path,
                          strerror(errno ? errno : EIO));
    return 0;
}

static int tw_close(rt_writer *w, rt_err *err)
{
    int rc = finish(w, err);
    if (rc) {
        tw_abort(w);
        return rc;
    }
    tw_free(w);
    return 0;
}

static const rt__writer_ops ti_writer_ops = {
    .write = tw_write,
    .close = tw_close,
    .abort = tw_abort,
};

int rt__ti_create(rt_writer *w, rt_err *err)
{
    double flops;
    int rc = rt__ti_flop_rate(&flops, err);
    if (rc)
        return rc;
    size_t n = strlen(w->path);
    if (n == 0 || w->path[n - 1] == '/')
        return rt_err_set(err, RT_E_INVAL, "%s: a TI index is a file: give its name", w->path);
    struct stat st;
    if (stat(w->path, &st) == 0)
        return rt_err_set(err, RT_E_INVAL,
                          "%s: already exists (remove it or choose another "
                          "name)",
                          w->path);
    ti_writer *tw = calloc(1, sizeof *tw);
    if (!tw || !(tw->dir = malloc(n + sizeof "_files")) ||
        !(tw->ranks = calloc(w->defs.nranks, sizeof *tw->ranks))) {
        if (tw)
            free(tw->dir);
        free(tw);
        return no_memory(w, err);
    }
    snprintf(tw->dir, n + sizeof "_files", "%s_files", w->path);
    const char *slash = strrchr(tw->dir, '/');
    tw->flops = flops;
    tw->budget = BUDGET;
    w->ops = &ti_writer_ops;
    w->impl = tw;
    if (!(tw->name = strdup(slash ? slash + 1 : tw->dir))) {
        tw_free(w);
        return no_memory(w, err);
    }
    if (stat(tw->dir, &st) == 0) {
        rc = rt_err_set(err, RT_E_INVAL,
                        "%s: already exists (remove it or choose another "
                        "name)",
                        tw->dir);
        tw_free(w);
        return rc;
    }
    int fd = open(w->path, O_WRONLY | O_CREAT | O_EXCL, 0666);
    if (fd < 0 || !(tw->index = fdopen(fd, "wb"))) {
        rc = rt_err_set(err, RT_E_IO, "%s: %s", w->path, strerror(errno));
        if (fd >= 0) {
            close(fd);
            unlink(w->path);
        }
        tw_free(w);
        return rc;
    }
    tw->index_made = 1;
    if (mkdir(tw->dir, 0777) != 0) {
        rc = rt_err_set(err, RT_E_IO, "%s: %s", tw->dir, strerror(errno));
        tw_abort(w);
        return rc;
    }
    tw->dir_made = 1;
    return 0;
}

int rt__ti_remove_files(const char *index, rt_err *err)
{
    size_t n = strlen(index) + sizeof "_files";
    char *dir = malloc(n);
    if (!dir)
        return rt_err_set(err, RT_E_NOMEM, "%s: out of memory", index);
    snprintf(dir, n, "%s_files", index);
    DIR *d = opendir(dir);
    if (!d) {
        free(dir);
        return 0; /* no rank files: nothing to do */
    }
    struct dirent *e;
    while ((e = readdir(d))) {
        unsigned r;
        char tail[8];
        /* only what the writer makes: rank-N.txt */
        if (sscanf(e->d_name, "rank-%u%7s", &r, tail) == 2 && !strcmp(tail, ".txt")) {
            size_t m = strlen(dir) + strlen(e->d_name) + 2;
            char *p = malloc(m);
            if (p) {
                snprintf(p, m, "%s/%s", dir, e->d_name);
                unlink(p);
                free(p);
            }
        }
    }
    closedir(d);
    int rc = rmdir(dir) == 0 ? 1
                             : rt_err_set(err, RT_E_INVAL,
                                          "%s: holds other files than a TI trace's rank files: "
                                          "left as it is",
                                          dir);
    free(dir);
    return rc;
}
