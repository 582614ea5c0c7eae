/*
 * The actions of a SimGrid time-independent (TI) trace, one line at a time: each action's
 * arguments read as SimGrid 3.32's smpi_replay.cpp reads them (fields by ti_lines.c), and
 * the calls and events the tracer would have recorded for it queued in the reader's block
 * (docs/ti.md). Time is synthesised: calls take 0 ns; compute and sleep advance the rank's
 * clock. The requests a rank has open are kept here under SimGrid's key for wait and test.
 * ti_reader.c finds the lines and the ranks, and hands the blocks out.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "rt__ti_read.h"

/* ---- events --------------------------------------------------------------------------------- */

/* Room for one more event in the block (it grows beyond RT__TI_BLOCK for a long action). */
static int grow(rt__ti_reader *t, rt_err *err)
{
    if (RT_VEC_RESERVE(t->q, t->qcap, (uint64_t)t->qn + 1, RT__TI_BLOCK + 64) < 0)
        return rt_err_set(err, RT_E_NOMEM, "%s:%lu: out of memory", t->in.path, t->in.lineno);
    return 0;
}

/* Inline: every event of the trace passes here. */
static inline rt_event *push(rt__ti_reader *t, unsigned kind, unsigned call, uint32_t me,
                             uint64_t time, rt_err *err)
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

static uint64_t clock_ns(const rt__ti_rank_state *k)
{
    return (uint64_t)(k->clock + 0.5); /* 0 to below 2^64 (tick): rounds to nearest */
}

static int clock_past(const rt__ti_reader *t, const rt__ti_rank_state *k, double ns, rt_err *err)
    __attribute__((cold, noinline));
static int clock_past(const rt__ti_reader *t, const rt__ti_rank_state *k, double ns, rt_err *err)
{
    return rt__ti_bad(&t->in, err,
                      "the rank's clock would pass 2^64 ns (584 years): %.6g s after %.6g s",
                      ns / 1e9, k->clock / 1e9);
}

/* Moves the rank's clock on by ns (what the action on the current line takes). The clock
 * must stay below 2^64 ns, the most an event's time holds (about 584 years): a value past it
 * has no integer, and converting it anyway would be undefined. This is where TI's time order
 * is kept: ns >= 0 (the fields' parsers refuse negative numbers and NaN, the flop rate is
 * positive), so the clock never goes back, and every event an action queues has the clock's
 * time. */
static inline int tick(const rt__ti_reader *t, rt__ti_rank_state *k, double ns, rt_err *err)
{
    double next = k->clock + ns;
    /* also inf and NaN; a double below 2^64 is at most 2^64 - 2048, and so is next + 0.5 */
    if (__builtin_expect(!(next < 0x1p64), 0))
        return clock_past(t, k, ns, err);
    k->clock = next;
    return 0;
}

/* The element size (rt_esize_code) the datatype of token i says, the rank's default datatype's
 * when the line stops before it; token i was checked (rt__ti_type). 0, not kept: MPI_BYTE, the
 * datatype of a count in bytes (every tool that writes TI without element sizes, retrace's
 * writer too), and a derived datatype (-1). */
static uint8_t code_of(const rt__ti_lines *in, size_t i, const rt__ti_rank_state *k)
{
    if (i >= in->ntok)
        return k->type_size == 8 ? (uint8_t)rt_esize_code(8) : 0;
    int s = rt__ti_type_size(in->tok[i]);
    return s > 0 && strcmp(in->tok[i], RT__TI_TYPE_BYTE) ? (uint8_t)rt_esize_code((unsigned)s) : 0;
}

/* Every rank on a node of its own: a message is loop to itself, net to anyone else. */
static uint8_t contype(uint32_t me, int32_t peer)
{
    return (uint32_t)peer == me ? RT_CT_LOOP : RT_CT_NET;
}

static int enter_leave(rt__ti_reader *t, uint32_t me, uint64_t now, unsigned call, rt_err *err)
{
    rt_event *ev;
    PUSH(ev, RT_EV_ENTER, call);
    PUSH(ev, RT_EV_LEAVE, call);
    return 0;
}

/* The completion event of request q, inside call. */
static int complete(rt__ti_reader *t, uint32_t me, uint64_t now, unsigned call, const rt__ti_req *q,
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
    ev->esize = q->esize;
    ev->contype = contype(me, q->src);
    ev->req = q->id;
    return 0;
}

/* A Waitall completing every open request of the rank (in posting order; marks dropped). */
int rt__ti_wait_all(rt__ti_reader *t, rt__ti_rank_state *k, uint32_t me, rt_err *err)
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

static int open_req(const rt__ti_reader *t, rt__ti_rank_state *k, rt__ti_req q, rt_err *err)
{
    if (RT_VEC_RESERVE(k->reqs, k->reqcap, (uint64_t)k->nreqs + 1, 8) < 0)
        return rt_err_set(err, RT_E_NOMEM, "%s:%lu: out of memory", t->in.path, t->in.lineno);
    k->reqs[k->nreqs++] = q;
    return 0;
}

/* Takes the oldest open request (or mark) under the key, as SimGrid's RequestStorage::pop
 * does. 1: *q holds it; 0: none. */
static int pop_req(rt__ti_rank_state *k, int32_t src, int32_t dst, int32_t tag, rt__ti_req *q)
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

#define CTX                          \
    rt__ti_reader *t = c->t;         \
    const rt__ti_lines *in = &t->in; \
    rt__ti_rank_state *k = c->k;     \
    uint32_t me = c->me;             \
    uint64_t now = clock_ns(k);      \
    (void)t, (void)in, (void)k, (void)me, (void)now

int rt__ti_act_init(rt__ti_ctx *c, rt_err *err)
{
    CTX;
    int rc = rt__ti_arity(in, 0, 1, "init [X]: with X, the default datatype is MPI_DOUBLE", err);
    if (rc)
        return rc;
    k->type_size = in->ntok > 2 ? 8 : 1;
    return enter_leave(t, me, now, RT_FN_Init, err);
}

int rt__ti_act_finalize(rt__ti_ctx *c, rt_err *err)
{
    CTX;
    int rc = rt__ti_arity(in, 0, 0, "finalize", err), open = 0;
    for (size_t i = 0; i < k->nreqs; i++)
        open |= k->reqs[i].id != 0;
    /* SimGrid completes what is left open at the end: do it before MPI_Finalize */
    if (rc || (open && (rc = rt__ti_wait_all(t, k, me, err))))
        return rc;
    return enter_leave(t, me, now, RT_FN_Finalize, err);
}

/* comm_size, comm_split and comm_dup: SimGrid's replay does nothing for them (every
 * operation stays on MPI_COMM_WORLD, its arguments world ranks), and takes any arguments. */
int rt__ti_act_comm(rt__ti_ctx *c, rt_err *err)
{
    CTX;
    if (!strcmp(in->tok[1], "comm_size"))
        return 0;
    return enter_leave(t, me, now,
                       !strcmp(in->tok[1], "comm_split") ? RT_FN_Comm_split : RT_FN_Comm_dup, err);
}

int rt__ti_act_location(rt__ti_ctx *c, rt_err *err)
{
    CTX;
    return rt__ti_arity(in, 2, 2, "location FILE LINE", err);
}

int rt__ti_act_compute(rt__ti_ctx *c, rt_err *err)
{
    CTX;
    double flops = 0;
    int rc = rt__ti_arity(in, 1, 1, "compute FLOPS", err);
    if (rc || (rc = rt__ti_double(in, 2, "flop count", &flops, err)))
        return rc;
    return tick(t, k, flops / t->flops * 1e9, err);
}

int rt__ti_act_sleep(rt__ti_ctx *c, rt_err *err)
{
    CTX;
    double s = 0;
    int rc = rt__ti_arity(in, 1, 1, "sleep SECONDS", err);
    if (rc || (rc = rt__ti_double(in, 2, "duration", &s, err)))
        return rc;
    return tick(t, k, s * 1e9, err);
}

/* send, isend, recv, irecv PARTNER TAG SIZE [DATATYPE] */
int rt__ti_act_p2p(rt__ti_ctx *c, rt_err *err)
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
        rt__ti_req q = {.id = ++k->next_req,
                        .bytes = bytes,
                        .tag = tag,
                        .recv = !is_send,
                        .esize = code_of(in, 5, k),
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
        ev->esize = code_of(in, 5, k);
        ev->contype = contype(me, peer);
    }
    PUSH(ev, RT_EV_LEAVE, call);
    return 0;
}

/* wait, test SRC DST TAG: the oldest open request under that key. A completing test leaves
 * a mark in its place, which the next wait or test with that key takes (SimGrid's null
 * request). Whether a test completes depends on timing in SimGrid; retrace, without timing,
 * lets the first test complete. */
int rt__ti_act_wait(rt__ti_ctx *c, rt_err *err)
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
    rt__ti_req q;
    if (pop_req(k, src, dst, tag, &q) && q.id) {
        if ((rc = complete(t, me, now, call, &q, err)))
            return rc;
        if (test && (rc = open_req(t, k, (rt__ti_req){.src = src, .dst = dst, .tag = tag}, err)))
            return rc;
    }
    PUSH(ev, RT_EV_LEAVE, call);
    return 0;
}

/* waitall [COUNT]: every open request (the TI tracer writes the count; SimGrid ignores it). */
int rt__ti_act_waitall(rt__ti_ctx *c, rt_err *err)
{
    CTX;
    double n;
    int rc = rt__ti_arity(in, 0, 1, "waitall [COUNT]", err);
    if (rc || (in->ntok > 2 && (rc = rt__ti_double(in, 2, "count", &n, err))))
        return rc;
    return rt__ti_wait_all(t, k, me, err);
}

/* sendRecv SENDCOUNT DST RECVCOUNT SRC SENDTYPE RECVTYPE: both tags 0, as SimGrid's replay
 * uses them. */
int rt__ti_act_sendrecv(rt__ti_ctx *c, rt_err *err)
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
    ev->esize = code_of(in, 6, k);
    ev->contype = contype(me, dst);
    PUSH(ev, RT_EV_RECV, RT_FN_Sendrecv);
    ev->comm = RT_COMM_WORLD;
    ev->peer = src;
    ev->bytes = rb;
    ev->esize = code_of(in, 7, k);
    ev->contype = contype(me, src);
    PUSH(ev, RT_EV_LEAVE, RT_FN_Sendrecv);
    return 0;
}

/* The element sizes of a collective's two sides (code_of), each kept only where its side
 * has bytes, as the tracer keeps them. */
typedef struct sizes {
    uint8_t s, r;
} sizes;

/* The end of a collective on MPI_COMM_WORLD, after its enter and begin. */
static int coll_end(rt__ti_ctx *c, unsigned call, unsigned op, int32_t root, uint64_t bytes,
                    uint64_t rbytes, sizes z, rt_err *err)
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
    ev->esize = bytes ? z.s : 0;
    ev->resize = rbytes ? z.r : 0;
    return 0;
}

/* The events of a blocking collective on MPI_COMM_WORLD; flops of reduction work (the
 * COMP argument) follow the call as compute time. */
static int coll(rt__ti_ctx *c, unsigned call, unsigned op, int32_t root, uint64_t bytes,
                uint64_t rbytes, sizes z, double flops, rt_err *err)
{
    CTX;
    rt_event *ev;
    int rc = coll_end(c, call, op, root, bytes, rbytes, z, err);
    if (rc)
        return rc;
    PUSH(ev, RT_EV_LEAVE, call);
    return tick(t, k, flops / t->flops * 1e9, err);
}

/* The count lists of a v action, for its COLL_PEER rows (rt_event.h): the token of its first
 * send count and of its first receive count (0: the side has none here) and their type
 * sizes. The counts were checked (rt__ti_counts) before. */
typedef struct v_lists {
    size_t s, r;
    uint32_t s1, s2;
    sizes z;
} v_lists;

/* Count k of the list at token first (0: none), in bytes. */
static uint64_t v_block(const rt__ti_lines *in, size_t first, uint32_t size, uint32_t k)
{
    int64_t v = 0;
    rt_err e;
    if (first && rt__ti_int(in, first + k, "count", 0, INT_MAX, &v, &e))
        v = 0;                 /* not reached: rt__ti_counts read them */
    return (uint64_t)v * size; /* below 2^31 times below 2^32 */
}

/* 1 when every count of the list at first (0: none) is the same. */
static int v_equal(const rt__ti_lines *in, size_t first, uint32_t p)
{
    for (uint32_t k = 1; first && k < p; k++)
        if (strcmp(in->tok[first + k], in->tok[first]))
            return 0;
    return 1;
}

/* A v collective: as coll, with the COLL_PEER rows of its per-peer counts after its end
 * when they are not all equal (SimGrid's lines carry every count, so the trace has them). */
static int coll_v(rt__ti_ctx *c, unsigned call, unsigned op, int32_t root, uint64_t bytes,
                  uint64_t rbytes, double flops, v_lists l, rt_err *err)
{
    CTX;
    rt_event *ev;
    int rc = coll_end(c, call, op, root, bytes, rbytes, l.z, err);
    if (rc)
        return rc;
    int uneven = !v_equal(in, l.s, c->p) || !v_equal(in, l.r, c->p);
    for (uint32_t i = 0; uneven && i < c->p; i++) {
        uint64_t b = v_block(in, l.s, l.s1, i), rb = v_block(in, l.r, l.s2, i);
        if (!b && !rb)
            continue;
        PUSH(ev, RT_EV_COLL_PEER, call);
        ev->comm = RT_COMM_WORLD;
        ev->op = (uint8_t)op;
        ev->peer = (int32_t)i;
        ev->bytes = b;
        ev->rbytes = rb;
    }
    PUSH(ev, RT_EV_LEAVE, call);
    return tick(t, k, flops / t->flops * 1e9, err);
}

int rt__ti_act_barrier(rt__ti_ctx *c, rt_err *err)
{
    int rc = rt__ti_arity(&c->t->in, 0, 0, "barrier", err);
    return rc ? rc
              : coll(c, RT_FN_Barrier, RT_COLL_BARRIER, RT_PEER_NONE, 0, 0, (sizes){0, 0}, 0, err);
}

static int opt_root(rt__ti_ctx *c, size_t i, int32_t *root, rt_err *err)
{
    *root = 0;
    return i < c->t->in.ntok ? rt__ti_rank(&c->t->in, i, "root", c->p, root, err) : 0;
}

/* bcast SIZE [ROOT [DATATYPE]] */
int rt__ti_act_bcast(rt__ti_ctx *c, rt_err *err)
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
    uint8_t z = code_of(in, 4, k);
    return coll(c, RT_FN_Bcast, RT_COLL_BCAST, root, at_root ? bytes : 0, at_root ? 0 : bytes,
                (sizes){z, z}, 0, err);
}

/* reduce COUNT FLOPS [ROOT [DATATYPE]], allreduce COUNT FLOPS [DATATYPE],
 * scan and exscan COUNT FLOPS [DATATYPE] */
int rt__ti_act_reduce(rt__ti_ctx *c, rt_err *err)
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
    uint8_t zc = code_of(in, rooted ? 5 : 4, k);
    sizes z = {zc, zc};
    if (rooted)
        return coll(c, RT_FN_Reduce, RT_COLL_REDUCE, root, bytes, (uint32_t)root == me ? bytes : 0,
                    z, flops, err);
    if (name == 'a')
        return coll(c, RT_FN_Allreduce, RT_COLL_ALLREDUCE, RT_PEER_NONE, bytes, bytes, z, flops,
                    err);
    if (name == 's')
        return coll(c, RT_FN_Scan, RT_COLL_SCAN, RT_PEER_NONE, bytes, bytes, z, flops, err);
    return coll(c, RT_FN_Exscan, RT_COLL_EXSCAN, RT_PEER_NONE, bytes, me ? bytes : 0, z, flops,
                err);
}

/* alltoall, allgather SEND RECV [SENDTYPE [RECVTYPE]];
 * gather, scatter SEND RECV [ROOT [SENDTYPE [RECVTYPE]]] (counts per rank) */
int rt__ti_act_fixed(rt__ti_ctx *c, rt_err *err)
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
    sizes z = {code_of(in, ti, k), code_of(in, ti + 1, k)};
    switch (name[1]) {
    case 'l': /* alltoall, allgather */
        if (name[3] == 't')
            return coll(c, RT_FN_Alltoall, RT_COLL_ALLTOALL, root, ps, pr, z, 0, err);
        return coll(c, RT_FN_Allgather, RT_COLL_ALLGATHER, root, s, pr, z, 0, err);
    case 'a': /* gather */
        return coll(c, RT_FN_Gather, RT_COLL_GATHER, root, s, at_root ? pr : 0, z, 0, err);
    default: /* scatter */
        return coll(c, RT_FN_Scatter, RT_COLL_SCATTER, root, at_root ? ps : 0, r, z, 0, err);
    }
}

/* gatherv SEND RECVCOUNTS[p] [ROOT [SENDTYPE [RECVTYPE]]]; allgatherv SEND RECVCOUNTS[p]
 * followed by [SENDTYPE [RECVTYPE]], or DISPLS[p], or SENDTYPE RECVTYPE DISPLS[p]: SimGrid
 * tells them apart by the count of arguments, and so does this. */
int rt__ti_act_gatherv(rt__ti_ctx *c, rt_err *err)
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
    size_t disps = 0;  /* first displacement, 0 when none */
    size_t ts = 3 + p; /* the send type's token (past the end: none) */
    if (!all) {
        ts = 4 + p;
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
        ts = SIZE_MAX;
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
    sizes z = {code_of(in, ts, k), code_of(in, ts == SIZE_MAX ? ts : ts + 1, k)};
    if (all)
        return coll_v(c, RT_FN_Allgatherv, RT_COLL_ALLGATHERV, root, s, r, 0,
                      (v_lists){0, 3, 0, s2, z}, err);
    int at_root = (uint32_t)root == me; /* the receive counts are the root's */
    return coll_v(c, RT_FN_Gatherv, RT_COLL_GATHERV, root, s, at_root ? r : 0, 0,
                  (v_lists){0, at_root ? 3 : 0, 0, s2, z}, err);
}

/* scatterv SENDCOUNTS[p] RECV [ROOT [SENDTYPE [RECVTYPE]]] */
int rt__ti_act_scatterv(rt__ti_ctx *c, rt_err *err)
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
    int at_root = (uint32_t)root == me; /* the send counts are the root's */
    return coll_v(
        c, RT_FN_Scatterv, RT_COLL_SCATTERV, root, at_root ? s : 0, r, 0,
        (v_lists){at_root ? 2 : 0, 0, s1, 0, {code_of(in, 4 + p, k), code_of(in, 5 + p, k)}}, err);
}

/* reducescatter RECVCOUNTS[p] FLOPS [DATATYPE] */
int rt__ti_act_reducescatter(rt__ti_ctx *c, rt_err *err)
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
    /* its rows: block k of the vector, reduced onto rank k (rt_event.h) */
    return coll_v(c, RT_FN_Reduce_scatter, RT_COLL_REDUCE_SCATTER, RT_PEER_NONE, s, r, flops,
                  (v_lists){2, 0, size, 0, {code_of(in, 3 + p, k), code_of(in, 3 + p, k)}}, err);
}

/* alltoallv SENDBUF SENDCOUNTS[p] RECVBUF RECVCOUNTS[p] [SENDTYPE [RECVTYPE]] */
int rt__ti_act_alltoallv(rt__ti_ctx *c, rt_err *err)
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
    return coll_v(c, RT_FN_Alltoallv, RT_COLL_ALLTOALLV, RT_PEER_NONE, s, r, 0,
                  (v_lists){3,
                            4 + (size_t)p,
                            s1,
                            s2,
                            {code_of(in, 4 + 2 * (size_t)p, k), code_of(in, 5 + 2 * (size_t)p, k)}},
                  err);
}
