/*
 * Reader of SimGrid time-independent (TI) traces, the form SimGrid 3.32's SMPI writes
 * (smpirun -trace-ti) and replays (smpirun -replay): an index file naming one action file
 * per rank, or a single file shared by all ranks, each line "RANK ACTION ARGS...". The
 * grammar is that of src/smpi/internals/smpi_replay.cpp, argument for argument; lines and
 * their fields are read by ti_lines.c.
 *
 * Each action becomes the calls and events the tracer would record (docs/ti.md). Time is
 * synthesised: calls take 0 ns; compute and sleep advance the rank's clock. Rank files are
 * read one after the other, each once, so memory follows the longest line and the requests
 * a rank has open, not the trace. Events are handed out in blocks of one rank's events
 * (rt__reader_ops.next_block): built from checked fields, they need no second check.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt__ti_read.h"

/* Events per block handed out (about 230 KB, which stays in cache on its way to the
 * loader); a block ends earlier where the next line is of another rank. */
#define BLOCK 4096

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
    char *iline; /* the index line last read */
    size_t iline_cap;
    int shared;     /* one file for all ranks */
    uint32_t cur;   /* per-rank files: the rank whose file is open */
    ti_rank *ranks; /* shared: one per rank; else one, reused */
    rt__ti_lines in;
    int held;          /* in holds a line of another rank than the block's: the next block's */
    uint32_t end_rank; /* shared file at its end: the next rank to complete requests of */
    rt_event *q;       /* the block: events of one rank */
    size_t qn, qcap;
    int done;    /* 1: at the end; -1: failed, fail says why */
    rt_err fail; /* replayed by later calls */
} ti_reader;

/* ---- events --------------------------------------------------------------------------------- */

/* Room for one more event in the block (the block grows beyond BLOCK for a long action). */
static int grow(ti_reader *t, rt_err *err)
{
    if (RT_VEC_RESERVE(t->q, t->qcap, (uint64_t)t->qn + 1, BLOCK + 64) < 0)
        return rt_err_set(err, RT_E_NOMEM, "%s:%lu: out of memory", t->in.path, t->in.lineno);
    return 0;
}

/* Inline: every event of the trace passes here. */
static inline rt_event *push(ti_reader *t, unsigned kind, unsigned call, uint32_t me, uint64_t time,
                             rt_err *err)
{
    if (t->qn == t->qcap && grow(t, err))
        return NULL;
    rt_event *ev = &t->q[t->qn++];
    memset(ev, 0, sizeof *ev); /* the fields the kind does not use, and the padding */
    ev->kind = (uint8_t)kind;
    ev->call = (uint16_t)call;
    ev->rank = me;
    ev->time = time;
    return ev;
}

#define PUSH(ev, kind, call)                                 \
    do {                                                     \
        if (!((ev) = push(t, (kind), (call), me, now, err))) \
            return -RT_E_NOMEM;                              \
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
    if (RT_VEC_RESERVE(k->reqs, k->reqcap, (uint64_t)k->nreqs + 1, 8) < 0)
        return rt_err_set(err, RT_E_NOMEM, "%s:%lu: out of memory", t->in.path, t->in.lineno);
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

#define CTX                          \
    ti_reader *t = c->t;             \
    const rt__ti_lines *in = &t->in; \
    ti_rank *k = c->k;               \
    uint32_t me = c->me;             \
    uint64_t now = clock_ns(k);      \
    (void)t, (void)in, (void)k, (void)me, (void)now

static int a_init(ti_ctx *c, rt_err *err)
{
    CTX;
    int rc = rt__ti_arity(in, 0, 1, "init [X]: with X, the default datatype is MPI_DOUBLE", err);
    if (rc)
        return rc;
    k->type_size = in->ntok > 2 ? 8 : 1;
    return enter_leave(t, me, now, RT_FN_Init, err);
}

static int a_finalize(ti_ctx *c, rt_err *err)
{
    CTX;
    int rc = rt__ti_arity(in, 0, 0, "finalize", err), open = 0;
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
    if (!strcmp(in->tok[1], "comm_size"))
        return 0;
    return enter_leave(t, me, now,
                       !strcmp(in->tok[1], "comm_split") ? RT_FN_Comm_split : RT_FN_Comm_dup, err);
}

static int a_location(ti_ctx *c, rt_err *err)
{
    CTX;
    return rt__ti_arity(in, 2, 2, "location FILE LINE", err);
}

static int a_compute(ti_ctx *c, rt_err *err)
{
    CTX;
    double flops = 0;
    int rc = rt__ti_arity(in, 1, 1, "compute FLOPS", err);
    if (rc || (rc = rt__ti_double(in, 2, "flop count", &flops, err)))
        return rc;
    k->clock += flops / t->flops * 1e9;
    return 0;
}

static int a_sleep(ti_ctx *c, rt_err *err)
{
    CTX;
    double s = 0;
    int rc = rt__ti_arity(in, 1, 1, "sleep SECONDS", err);
    if (rc || (rc = rt__ti_double(in, 2, "duration", &s, err)))
        return rc;
    k->clock += s * 1e9;
    return 0;
}

/* send, isend, recv, irecv PARTNER TAG SIZE [DATATYPE] */
static int a_p2p(ti_ctx *c, rt_err *err)
{
    CTX;
    const char *name = in->tok[1];
    int32_t peer = 0, tag = 0;
    uint64_t count, bytes;
    uint32_t size = 0;
    int rc = rt__ti_arity(in, 3, 4, "PARTNER TAG SIZE [DATATYPE]", err);
    if (rc || (rc = rt__ti_rank(in, 2, "partner", c->p, &peer, err)) ||
        (rc = rt__ti_tag(in, 3, &tag, err)) || (rc = rt__ti_count(in, 4, "size", &count, err)) ||
        (rc = rt__ti_type(in, 5, k->type_size, &size, err)) ||
        (rc = rt__ti_mul(in, count, size, &bytes, err)))
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
    int rc = rt__ti_arity(in, 3, 3, "SRC DST TAG", err);
    if (rc || (rc = rt__ti_rank(in, 2, "source", c->p, &src, err)) ||
        (rc = rt__ti_rank(in, 3, "destination", c->p, &dst, err)) ||
        (rc = rt__ti_tag(in, 4, &tag, err)))
        return rc;
    int test = in->tok[1][0] == 't';
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
    int rc = rt__ti_arity(in, 0, 1, "waitall [COUNT]", err);
    if (rc || (in->ntok > 2 && (rc = rt__ti_double(in, 2, "count", &n, err))))
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
    int rc = rt__ti_arity(in, 6, 6, "SENDCOUNT DST RECVCOUNT SRC SENDTYPE RECVTYPE", err);
    if (rc || (rc = rt__ti_count(in, 2, "send count", &sc, err)) ||
        (rc = rt__ti_rank(in, 3, "destination", c->p, &dst, err)) ||
        (rc = rt__ti_count(in, 4, "receive count", &rc_, err)) ||
        (rc = rt__ti_rank(in, 5, "source", c->p, &src, err)) ||
        (rc = rt__ti_type(in, 6, k->type_size, &s1, err)) ||
        (rc = rt__ti_type(in, 7, k->type_size, &s2, err)) ||
        (rc = rt__ti_mul(in, sc, s1, &sb, err)) || (rc = rt__ti_mul(in, rc_, s2, &rb, err)))
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
    int rc = rt__ti_arity(&c->t->in, 0, 0, "barrier", err);
    return rc ? rc : coll(c, RT_FN_Barrier, RT_COLL_BARRIER, RT_PEER_NONE, 0, 0, 0, err);
}

static int opt_root(ti_ctx *c, size_t i, int32_t *root, rt_err *err)
{
    *root = 0;
    return i < c->t->in.ntok ? rt__ti_rank(&c->t->in, i, "root", c->p, root, err) : 0;
}

/* bcast SIZE [ROOT [DATATYPE]] */
static int a_bcast(ti_ctx *c, rt_err *err)
{
    CTX;
    uint64_t n, bytes;
    int32_t root;
    uint32_t size = 0;
    int rc = rt__ti_arity(in, 1, 3, "SIZE [ROOT [DATATYPE]]", err);
    if (rc || (rc = rt__ti_count(in, 2, "size", &n, err)) || (rc = opt_root(c, 3, &root, err)) ||
        (rc = rt__ti_type(in, 4, k->type_size, &size, err)) ||
        (rc = rt__ti_mul(in, n, size, &bytes, err)))
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
    char name = in->tok[1][0]; /* find_action checked the name: this tells them apart */
    int rooted = name == 'r';
    uint64_t n, bytes;
    double flops = 0;
    int32_t root = RT_PEER_NONE;
    uint32_t size = 0;
    int rc = rooted ? rt__ti_arity(in, 2, 4, "COUNT FLOPS [ROOT [DATATYPE]]", err)
                    : rt__ti_arity(in, 2, 3, "COUNT FLOPS [DATATYPE]", err);
    if (rc || (rc = rt__ti_count(in, 2, "count", &n, err)) ||
        (rc = rt__ti_double(in, 3, "flop count", &flops, err)) ||
        (rooted && (rc = opt_root(c, 4, &root, err))) ||
        (rc = rt__ti_type(in, rooted ? 5 : 4, k->type_size, &size, err)) ||
        (rc = rt__ti_mul(in, n, size, &bytes, err)))
        return rc;
    if (rooted)
        return coll(c, RT_FN_Reduce, RT_COLL_REDUCE, root, bytes, (uint32_t)root == me ? bytes : 0,
                    flops, err);
    if (name == 'a')
        return coll(c, RT_FN_Allreduce, RT_COLL_ALLREDUCE, RT_PEER_NONE, bytes, bytes, flops, err);
    if (name == 's')
        return coll(c, RT_FN_Scan, RT_COLL_SCAN, RT_PEER_NONE, bytes, bytes, flops, err);
    return coll(c, RT_FN_Exscan, RT_COLL_EXSCAN, RT_PEER_NONE, bytes, me ? bytes : 0, flops, err);
}

/* alltoall, allgather SEND RECV [SENDTYPE [RECVTYPE]];
 * gather, scatter SEND RECV [ROOT [SENDTYPE [RECVTYPE]]] (counts per rank) */
static int a_fixed(ti_ctx *c, rt_err *err)
{
    CTX;
    const char *name = in->tok[1];
    int rooted = name[0] == 'g' || name[0] == 's'; /* gather, scatter: find_action checked */
    uint64_t sc, rcnt, s, r;
    int32_t root = RT_PEER_NONE;
    uint32_t s1 = 0, s2 = 0;
    size_t ti = rooted ? 5 : 4;
    int rc = rooted
                 ? rt__ti_arity(in, 2, 5, "SENDCOUNT RECVCOUNT [ROOT [SENDTYPE [RECVTYPE]]]", err)
                 : rt__ti_arity(in, 2, 4, "SENDCOUNT RECVCOUNT [SENDTYPE [RECVTYPE]]", err);
    if (rc || (rc = rt__ti_count(in, 2, "send count", &sc, err)) ||
        (rc = rt__ti_count(in, 3, "receive count", &rcnt, err)) ||
        (rooted && (rc = opt_root(c, 4, &root, err))) ||
        (rc = rt__ti_type(in, ti, k->type_size, &s1, err)) ||
        (rc = rt__ti_type(in, ti + 1, k->type_size, &s2, err)) ||
        (rc = rt__ti_mul(in, sc, s1, &s, err)) || (rc = rt__ti_mul(in, rcnt, s2, &r, err)))
        return rc;
    uint64_t ps, pr;
    if ((rc = rt__ti_mul(in, s, c->p, &ps, err)) || (rc = rt__ti_mul(in, r, c->p, &pr, err)))
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
    int all = in->tok[1][0] == 'a';
    uint64_t sc, s, sum, r;
    int32_t root = RT_PEER_NONE;
    uint32_t s1 = k->type_size, s2 = k->type_size;
    size_t n = in->ntok;
    int rc =
        all ? rt__ti_arity(in, 1 + p, 3 + 2 * (size_t)p,
                           "SENDCOUNT RECVCOUNTS[p] [SENDTYPE [RECVTYPE]] or ... DISPLS[p] or ... "
                           "SENDTYPE RECVTYPE DISPLS[p]",
                           err)
            : rt__ti_arity(in, 1 + p, 4 + p, "SENDCOUNT RECVCOUNTS[p] [ROOT [SENDTYPE [RECVTYPE]]]",
                           err);
    if (rc || (rc = rt__ti_count(in, 2, "send count", &sc, err)) ||
        (rc = rt__ti_counts(in, 3, p, "receive count", &sum, 0, NULL, err)))
        return rc;
    size_t disps = 0; /* first displacement, 0 when none */
    if (!all) {
        if ((rc = opt_root(c, 3 + p, &root, err)) ||
            (rc = rt__ti_type(in, 4 + p, k->type_size, &s1, err)) ||
            (rc = rt__ti_type(in, 5 + p, k->type_size, &s2, err)))
            return rc;
    } else if (n > 3 + 2 * (size_t)p) {
        if ((rc = rt__ti_type(in, 3 + p, k->type_size, &s1, err)) ||
            (rc = rt__ti_type(in, 4 + p, k->type_size, &s2, err)))
            return rc;
        disps = 5 + p;
        if (n != 5 + 2 * (size_t)p)
            return rt__ti_bad(in, err,
                              "with %zu arguments SimGrid reads SENDTYPE RECVTYPE and %u "
                              "displacements after the receive counts",
                              n - 2, (unsigned)p);
    } else if (n > 5 + (size_t)p) {
        disps = 3 + p;
        if (n != 3 + 2 * (size_t)p)
            return rt__ti_bad(in, err,
                              "with %zu arguments SimGrid reads %u displacements after the "
                              "receive counts",
                              n - 2, (unsigned)p);
    } else if ((rc = rt__ti_type(in, 3 + p, k->type_size, &s1, err)) ||
               (rc = rt__ti_type(in, 4 + p, k->type_size, &s2, err))) {
        return rc;
    }
    for (size_t i = 0; disps && i < p; i++) {
        int64_t v;
        if ((rc = rt__ti_int(in, disps + i, "displacement", INT_MIN, INT_MAX, &v, err)))
            return rc;
    }
    if ((rc = rt__ti_mul(in, sc, s1, &s, err)) || (rc = rt__ti_mul(in, sum, s2, &r, err)))
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
    int rc =
        rt__ti_arity(in, 1 + p, 4 + p, "SENDCOUNTS[p] RECVCOUNT [ROOT [SENDTYPE [RECVTYPE]]]", err);
    if (rc || (rc = rt__ti_counts(in, 2, p, "send count", &sum, 0, NULL, err)) ||
        (rc = rt__ti_count(in, 2 + p, "receive count", &rcnt, err)) ||
        (rc = opt_root(c, 3 + p, &root, err)) ||
        (rc = rt__ti_type(in, 4 + p, k->type_size, &s1, err)) ||
        (rc = rt__ti_type(in, 5 + p, k->type_size, &s2, err)) ||
        (rc = rt__ti_mul(in, sum, s1, &s, err)) || (rc = rt__ti_mul(in, rcnt, s2, &r, err)))
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
    int rc = rt__ti_arity(in, 1 + p, 2 + p, "RECVCOUNTS[p] FLOPS [DATATYPE]", err);
    if (rc || (rc = rt__ti_counts(in, 2, p, "receive count", &sum, me, &mine, err)) ||
        (rc = rt__ti_double(in, 2 + p, "flop count", &flops, err)) ||
        (rc = rt__ti_type(in, 3 + p, k->type_size, &size, err)) ||
        (rc = rt__ti_mul(in, sum, size, &s, err)) || (rc = rt__ti_mul(in, mine, size, &r, err)))
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
    int rc = rt__ti_arity(in, 2 + 2 * (size_t)p, 4 + 2 * (size_t)p,
                          "SENDBUF SENDCOUNTS[p] RECVBUF RECVCOUNTS[p] [SENDTYPE [RECVTYPE]]", err);
    if (rc || (rc = rt__ti_count(in, 2, "send buffer size", &sbuf, err)) ||
        (rc = rt__ti_counts(in, 3, p, "send count", &ssum, 0, NULL, err)) ||
        (rc = rt__ti_count(in, 3 + p, "receive buffer size", &rbuf, err)) ||
        (rc = rt__ti_counts(in, 4 + p, p, "receive count", &rsum, 0, NULL, err)) ||
        (rc = rt__ti_type(in, 4 + 2 * (size_t)p, k->type_size, &s1, err)) ||
        (rc = rt__ti_type(in, 5 + 2 * (size_t)p, k->type_size, &s2, err)) ||
        (rc = rt__ti_mul(in, ssum, s1, &s, err)) || (rc = rt__ti_mul(in, rsum, s2, &r, err)))
        return rc;
    return coll(c, RT_FN_Alltoallv, RT_COLL_ALLTOALLV, RT_PEER_NONE, s, r, 0, err);
}

/* Every action SimGrid 3.32's replay registers (smpi_replay_init), and nothing else: a line
 * SimGrid would refuse is refused here too. The first letter leaves a few names to compare
 * (this runs once per line of the trace). */
static action_fn find_action(const char *n, size_t len)
{
    /* the length and a memcmp of constant size, which the compiler turns into a compare or
     * two: cheaper than strcmp or strlen calls */
#define IS(name) (len == sizeof name - 1 && !memcmp(n, name, sizeof name - 1))
    switch (n[0]) {
    case 'a':
        return IS("allreduce")                     ? a_reduce
               : IS("alltoall") || IS("allgather") ? a_fixed
               : IS("allgatherv")                  ? a_gatherv
               : IS("alltoallv")                   ? a_alltoallv
                                                   : NULL;
    case 'b':
        return IS("barrier") ? a_barrier : IS("bcast") ? a_bcast : NULL;
    case 'c':
        return IS("compute")                                           ? a_compute
               : IS("comm_size") || IS("comm_split") || IS("comm_dup") ? a_comm
                                                                       : NULL;
    case 'e':
        return IS("exscan") ? a_reduce : NULL;
    case 'f':
        return IS("finalize") ? a_finalize : NULL;
    case 'g':
        return IS("gather") ? a_fixed : IS("gatherv") ? a_gatherv : NULL;
    case 'i':
        return IS("isend") || IS("irecv") ? a_p2p : IS("init") ? a_init : NULL;
    case 'l':
        return IS("location") ? a_location : NULL;
    case 'r':
        return IS("recv")            ? a_p2p
               : IS("reduce")        ? a_reduce
               : IS("reducescatter") ? a_reducescatter
                                     : NULL;
    case 's':
        return IS("send")       ? a_p2p
               : IS("sendRecv") ? a_sendrecv
               : IS("sleep")    ? a_sleep
               : IS("scan")     ? a_reduce
               : IS("scatter")  ? a_fixed
               : IS("scatterv") ? a_scatterv
                                : NULL;
    case 't':
        return IS("test") ? a_wait : NULL;
    case 'w':
        return IS("wait") ? a_wait : IS("waitall") ? a_waitall : NULL;
    default:
        return NULL;
    }
#undef IS
}

/* ---- files and ranks ------------------------------------------------------------------------ */

/* Reads the next line of the index that is not empty (SimGrid skips those). 1: *line holds
 * it (a buffer of t); 0: the end. */
static int index_line(rt_reader *r, ti_reader *t, char **line, rt_err *err)
{
    for (;;) {
        errno = 0;
        ssize_t got = getline(&t->iline, &t->iline_cap, t->index);
        if (got < 0) {
            if (feof(t->index))
                return 0;
            return rt_err_set(err, RT_E_IO, "%s: read failed: %s", r->path,
                              strerror(errno ? errno : EIO));
        }
        t->index_line++;
        if (t->iline[got - 1] == '\n')
            t->iline[--got] = '\0';
        if (memchr(t->iline, '\0', (size_t)got))
            return rt_err_set(err, RT_E_FORMAT, "%s:%lu: NUL byte in line", r->path, t->index_line);
        if (got > 0) {
            *line = t->iline;
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
    return rt__ti_lines_open(&t->in, p, err);
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

/* The end of a rank's file: its own end, then the next rank's file. */
static int file_end(rt_reader *r, ti_reader *t, rt_err *err)
{
    int rc;
    if (!t->ranks[0].done) {
        if ((rc = rank_end(t, &t->ranks[0], t->cur, err)) < 0)
            return rc;
        if (t->qn) /* the next file is another rank's */
            return 2;
    }
    rt__ti_lines_close(&t->in);
    char *line;
    if ((rc = index_line(r, t, &line, err)) <= 0)
        return rc;
    if (++t->cur >= r->defs.nranks) /* the index grew since it was counted */
        return rt_err_set(err, RT_E_FORMAT, "%s: changed while being read", r->path);
    rank_reset(&t->ranks[0]);
    return (rc = open_file(r, t, line, err)) ? rc : 1;
}

/* The end of a shared file: every rank's end, each in a block of its own. */
static int shared_end(rt_reader *r, ti_reader *t, rt_err *err)
{
    if (t->qn)
        return 2;
    while (t->end_rank < r->defs.nranks) {
        uint32_t i = t->end_rank++;
        int rc;
        if (!t->ranks[i].done && (rc = rank_end(t, &t->ranks[i], i, err)) != 0)
            return rc < 0 ? rc : 2;
    }
    return 0;
}

/* Takes the next line (or the end of a file) into the block. 1: go on; 2: the block is
 * complete (what follows is another rank's); 0: the end of the trace. */
static int step(rt_reader *r, ti_reader *t, rt_err *err)
{
    int rc;
    if (t->held)
        t->held = 0;
    else if ((rc = rt__ti_lines_next(&t->in, r, err)) <= 0)
        return rc < 0 ? rc : t->shared ? shared_end(r, t, err) : file_end(r, t, err);
    const rt__ti_lines *in = &t->in;
    uint64_t who;
    if ((rc = rt__ti_who(in, &who, err)))
        return rc;
    if (!t->shared && who != t->cur)
        return rt__ti_bad(in, err,
                          "action of rank %s in the file of rank %u (SimGrid's replay would "
                          "skip it)",
                          in->tok[0], (unsigned)t->cur);
    if (who >= r->defs.nranks)
        return rt__ti_bad(in, err, "rank %s out of range (0 to %u)", in->tok[0],
                          (unsigned)r->defs.nranks - 1);
    if (t->qn && t->q[0].rank != who) {
        t->held = 1;
        return 2;
    }
    action_fn fn = find_action(in->tok[1], in->namelen);
    if (!fn)
        return rt__ti_bad(in, err,
                          "unknown action (SimGrid 3.32's replay does not know it "
                          "either)");
    ti_ctx c = {.r = r,
                .t = t,
                .k = t->shared ? &t->ranks[who] : &t->ranks[0],
                .me = (uint32_t)who,
                .p = r->defs.nranks};
    return (rc = fn(&c, err)) ? rc : 1;
}

static int ti_next_block(rt_reader *r, const rt_event **ev, size_t *n, rt_err *err)
{
    ti_reader *t = r->impl;
    t->qn = 0;
    if (t->done < 0) {
        *err = t->fail;
        return -t->fail.code;
    }
    int rc = 1;
    while (!t->done && t->qn < BLOCK && (rc = step(r, t, err)) == 1)
        ;
    if (rc < 0) { /* hand out what came before first */
        t->done = -1;
        t->fail = *err;
    } else if (rc == 0) {
        t->done = 1;
    }
    if (!t->qn)
        return rc < 0 ? rc : 0;
    *ev = t->q;
    *n = t->qn;
    return 1;
}

static double ti_progress(const rt_reader *r)
{
    const ti_reader *t = r->impl;
    if (t->done > 0)
        return 1.0;
    double in_file = rt__ti_lines_progress(&t->in);
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
    rt__ti_lines_free(&t->in);
    uint32_t n = t->shared ? r->defs.nranks : 1;
    for (uint32_t i = 0; t->ranks && i < n; i++)
        free(t->ranks[i].reqs);
    free(t->ranks);
    free(t->iline);
    free(t->q);
    free(t);
    r->impl = NULL;
}

static const rt__reader_ops ti_reader_ops = {
    .next_block = ti_next_block,
    .progress = ti_progress,
    .close = ti_close,
};

/* A shared file: the ranks are 0 to the largest rank named (SimGrid takes them from -np). */
static int count_shared_ranks(rt_reader *r, ti_reader *t, uint32_t *n, rt_err *err)
{
    uint64_t max = 0;
    int any = 0, rc;
    while ((rc = rt__ti_lines_next(&t->in, r, err)) > 0) {
        uint64_t who;
        if ((rc = rt__ti_who(&t->in, &who, err)))
            return rc;
        if (who >= RT_MAX_RANKS)
            return rt__ti_bad(&t->in, err, "rank %s out of range (at most %u ranks)", t->in.tok[0],
                              (unsigned)RT_MAX_RANKS);
        if (!any || who > max)
            max = who;
        any = 1;
    }
    if (rc < 0)
        return rc;
    if (!any)
        return rt_err_set(err, RT_E_FORMAT, "%s: no actions", t->in.path);
    *n = (uint32_t)max + 1;
    return rt__ti_lines_rewind(&t->in, err);
}

int rt__ti_open(rt_reader *r, rt_err *err)
{
    ti_reader *t = calloc(1, sizeof *t);
    if (!t)
        return rt_err_set(err, RT_E_NOMEM, "%s: out of memory", r->path);
    t->in.fd = -1;
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
    r->by_rank = !t->shared; /* one file after the other */
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
