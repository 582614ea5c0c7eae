/*
 * Message races (docs/check.md, "race"): a receive from MPI_ANY_SOURCE that took one sender's
 * message while another sender's message, not causally after the receive, could have matched
 * it under another timing.
 *
 * The trace says which message each receive got: the k-th receive by rank r of a message
 * from s on communicator c with tag t got the k-th message s sent to r on c with tag t (MPI's
 * non-overtaking rule). The pass replays the ranks' messages and collectives in an order
 * causality allows (a receive runs once its message was sent, a collective once every member
 * called it) and keeps vector clocks over the ranks that post wildcard receives: what each
 * rank knew of their progress. A message m from s' to r races with r's wildcard receive R
 * (which got another sender's message) when m was not received before R, matches R's
 * communicator and tag, and s' did not know of R when it sent m (its clock's entry for r is
 * below R's position): nothing orders R before m, so m could have arrived first. Per other
 * sender only its first such message counts (its later ones follow it in its program order).
 *
 * Happens-before is taken generously, so that a correct program is never flagged: every
 * blocking collective (and fence) orders all its members both ways, the completion of a
 * nonblocking one follows every member's start, and a synchronous send (MPI_Ssend, MPI_Issend
 * at its completion) orders the receive before the send's completion. Messages
 * from the same sender never race (non-overtaking), nor do receives with a named source.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "rt__check.h"
#include "rt_an.h"
#include "rt_hash.h"
#include "rt_vec.h"

#define RACE_MAX_CLOCKS 64u         /* ranks with wildcard receives given a clock entry */
#define RACE_MAX_ENTRIES (1u << 24) /* ranks times entries: 64 MiB of clocks at most */
#define RACE_SHOWN 4u               /* racing senders named in a finding */
#define RACE_SCAN 256u              /* messages looked at per sender and receive */
#define NONE32 UINT32_MAX

enum { OP_SEND, OP_RECV, OP_COLL, OP_ACK, OP_NBC_START, OP_NBC_WAIT };
/* rop.flags of sends and collectives; F_PART marks a partitioned message on both sides (a
 * receive's flags are its op, which has the same bit), which has channels of its own. */
enum { F_SYNC = 1, F_FENCE = 2, F_PART = RT_RECV_PARTITIONED };
_Static_assert(F_PART != F_SYNC && F_PART != F_FENCE, "F_PART is a bit of its own");

/* One operation that orders a rank's run against the others'. */
typedef struct rop {
    uint64_t time, bytes, req; /* req: an Issend's request; OP_ACK: the request completed */
    uint32_t comm;             /* communicator; a fence: its window */
    uint32_t world;            /* send: destination, receive: source (world ranks) */
    int32_t peer, tag;         /* as the event holds them */
    uint16_t call;
    uint8_t kind;   /* OP_* */
    uint8_t flags;  /* receive: RT_RECV_* bits; send: F_SYNC, F_PART; collective: F_FENCE */
    uint8_t evkind; /* the event's kind */
} rop;

/* A message sent and not yet received (or a synchronous one not yet acknowledged). */
typedef struct msg {
    uint32_t next;  /* the next message of its channel; the free list */
    uint32_t clock; /* slot of the sender's clock when it sent; once acknowledged, the
                     * receiver's when it received */
    uint32_t seen;  /* its index in the receiver's seen[], NONE32 when not kept */
    uint32_t src;
    uint8_t sync, acked, blocking;
} msg;

/* A message to a rank with a clock entry, kept to the end. */
typedef struct seen {
    uint32_t src, sidx; /* sender and its op index */
    uint32_t hb;        /* the sender's clock entry for the receiver when it sent */
    uint32_t recv;      /* the receiver's op index of the receive that got it, NONE32 */
} seen;

/* A wildcard receive (its op index) and the message it got (an index in seen[]). */
typedef struct wild {
    uint32_t op, got;
} wild;

/* One collective call of a communicator's members (its k-th on key: a communicator, or a
 * window's fences): the join of their clocks as they call. */
typedef struct inst {
    uint64_t key, number, members;
    uint32_t slot, arrived, waited, next_free;
} inst;

typedef struct rank_st {
    rop *ops;
    uint32_t nops, room, next;
    uint32_t wait_src, wait_comm; /* a receive blocked on the channel wait_src -> this rank */
    int32_t wait_tag;             /* ... on wait_comm with wait_tag; waiting 2: wait_src is
                                   * the message, 4: the instance */
    uint8_t waiting;   /* 0 runs, 1 a receive, 2 a synchronous send, 3 a collective, 4 the
                        * starts of a nonblocking collective */
    uint8_t wait_part; /* ... and a partitioned message (F_PART) or not (0) */
    uint8_t queued, has_wild;
    seen *seen;
    uint32_t nseen, seen_room;
    wild *wild;
    uint32_t nwild, wild_room;
} rank_st;

typedef struct race {
    chk *c;
    const rt_defs *defs;
    uint32_t nranks, k, cap; /* k clock entries given out, at most cap */
    uint32_t *entry;         /* per rank: its clock entry, NONE32 */
    uint32_t *clock;         /* per rank: k entries */
    uint32_t *slots;         /* copies of clocks, k entries each */
    uint32_t nslots, slots_room, free_slot;
    msg *msgs;
    uint32_t nmsgs, msgs_room, free_msg;
    rank_st *ranks;
    rt_hmap chan;    /* (src << 32 | dst, comm << 32 | tag) -> head << 32 | tail */
    rt_hmap inst_at; /* (key, number) -> index in insts[] */
    inst *insts;
    uint32_t ninsts, insts_room, free_inst;
    rt_hmap nbc;    /* (rank, req) -> a started nonblocking collective's instance */
    rt_hmap nbc_op; /* collecting: (rank, req) -> the op index of its start */
    rt_hmap count;  /* (rank, key) -> the rank's collective calls on key so far */
    rt_hmap issend; /* (rank, req) -> msg */
    uint32_t *work;
    uint32_t nwork;
    uint8_t *in_ops;
    uint64_t wildcards; /* receives from MPI_ANY_SOURCE */
    uint32_t wild_ranks;
    uint64_t skipped; /* wildcard receives of no message sent, left out */
} race;

/* ---- clocks --------------------------------------------------------------------------------- */

static uint32_t *slot_at(race *x, uint32_t s)
{
    return x->slots + (size_t)s * x->k;
}

static uint32_t *clock_of(race *x, uint32_t r)
{
    return x->clock + (size_t)r * x->k;
}

/* A copy of rank r's clock in a new slot; NONE32 when out of memory. */
static uint32_t slot_new(race *x, uint32_t r)
{
    uint32_t s = x->free_slot;
    if (s != NONE32) {
        x->free_slot = slot_at(x, s)[0];
    } else {
        if (x->nslots >= NONE32 / x->k - 1 ||
            RT_VEC_RESERVE(x->slots, x->slots_room, ((uint64_t)x->nslots + 1) * x->k, 64u * x->k))
            return NONE32;
        s = x->nslots++;
    }
    memcpy(slot_at(x, s), clock_of(x, r), (size_t)x->k * sizeof *x->slots);
    return s;
}

static void slot_free(race *x, uint32_t s)
{
    slot_at(x, s)[0] = x->free_slot;
    x->free_slot = s;
}

static void join(race *x, uint32_t *to, const uint32_t *from)
{
    for (uint32_t i = 0; i < x->k; i++)
        if (from[i] > to[i])
            to[i] = from[i];
}

/* Rank r did its op j: its own entry, if it has one, says so. */
static void tick(race *x, uint32_t r, uint32_t j)
{
    if (x->entry[r] != NONE32)
        clock_of(x, r)[x->entry[r]] = j + 1;
}

static void wake(race *x, uint32_t r)
{
    if (!x->ranks[r].queued) {
        x->ranks[r].queued = 1;
        x->work[x->nwork++] = r;
    }
}

/* ---- collecting the operations -------------------------------------------------------------- */

static int on_setup(void *ctx, const rt_defs *defs, rt_err *err)
{
    race *x = ctx;
    x->defs = defs;
    x->nranks = defs->nranks;
    x->cap = RACE_MAX_ENTRIES / x->nranks;
    if (x->cap > RACE_MAX_CLOCKS)
        x->cap = RACE_MAX_CLOCKS;
    x->ranks = calloc(x->nranks, sizeof *x->ranks);
    x->entry = malloc((size_t)x->nranks * sizeof *x->entry);
    x->in_ops = calloc(x->nranks, 1);
    x->work = malloc((size_t)x->nranks * sizeof *x->work);
    if (!x->ranks || !x->entry || !x->in_ops || !x->work)
        return rt_err_set(err, RT_E_NOMEM, "out of memory");
    memset(x->entry, 0xff, (size_t)x->nranks * sizeof *x->entry);
    return 0;
}

static int is_sync(unsigned call)
{
    return call == RT_FN_Ssend || call == RT_FN_Issend || call == RT_FN_Ssend_c ||
           call == RT_FN_Issend_c;
}

/* The operation ev stands for, if any: 1 when *o holds it, 0 when ev orders nothing. */
static int to_op(race *x, const rt_event *ev, rop *o)
{
    *o = (rop){.time = ev->time,
               .bytes = ev->bytes,
               .req = RT_REQ_NONE,
               .comm = ev->comm,
               .peer = ev->peer,
               .tag = ev->tag,
               .call = ev->call,
               .evkind = ev->kind};
    int64_t w;
    switch (ev->kind) {
    case RT_EV_SEND:
    case RT_EV_ISEND:
        if ((w = rt_defs_peer_world(x->defs, ev)) < 0)
            return 0;
        o->kind = OP_SEND;
        o->world = (uint32_t)w;
        o->flags = (uint8_t)((is_sync(ev->call) ? F_SYNC : 0) | (ev->op & F_PART));
        if (o->flags && ev->kind == RT_EV_ISEND)
            o->req = ev->req;
        return 1;
    case RT_EV_RECV:
    case RT_EV_IRECV:
        if ((w = rt_defs_peer_world(x->defs, ev)) < 0)
            return 0;
        o->kind = OP_RECV;
        o->world = (uint32_t)w;
        o->flags = ev->op;
        return 1;
    case RT_EV_ISEND_COMPLETE:
        o->kind = OP_ACK;
        o->req = ev->req;
        return 1;
    case RT_EV_COLL_END:
        o->kind = OP_COLL;
        return rt_defs_comm(x->defs, ev->comm) != NULL;
    case RT_EV_NBC_REQUEST: /* its communicator comes with its completion */
        o->kind = OP_NBC_START;
        o->comm = NONE32;
        o->req = ev->req;
        return 1;
    case RT_EV_NBC_COMPLETE:
        o->kind = OP_NBC_WAIT;
        o->req = ev->req;
        return rt_defs_comm(x->defs, ev->comm) != NULL;
    case RT_EV_RMA_COLL_END: /* a fence */
        o->kind = OP_COLL;
        o->flags = F_FENCE;
        const rt_win_def *wd = rt_defs_win(x->defs, ev->comm);
        return wd && rt_defs_comm(x->defs, wd->comm);
    default:
        return 0;
    }
}

static int on_event(void *ctx, const rt_event *ev)
{
    race *x = ctx;
    if (rt_pending_op(&x->in_ops[ev->rank], ev))
        return 0; /* a call that never returned: it did not happen */
    rop o;
    if (!to_op(x, ev, &o))
        return 0;
    rank_st *r = &x->ranks[ev->rank];
    if (o.kind == OP_RECV && (o.flags & RT_RECV_ANY_SOURCE)) {
        x->wildcards++;
        if (!r->has_wild) {
            r->has_wild = 1;
            x->wild_ranks++;
            if (x->k < x->cap)
                x->entry[ev->rank] = x->k++;
        }
    }
    if (o.kind == OP_NBC_WAIT) { /* its start learns the communicator */
        uint64_t *q = rt_hmap_get(&x->nbc_op, ev->rank, ev->req);
        if (q) {
            r->ops[*q].comm = o.comm;
            rt_hmap_del(&x->nbc_op, ev->rank, ev->req);
        } else {
            o.kind = OP_COLL; /* no start in the trace: taken as a blocking call */
        }
    }
    if (o.kind == OP_NBC_START) {
        uint64_t *q = rt_hmap_put(&x->nbc_op, ev->rank, ev->req, NULL);
        if (!q)
            return -RT_E_NOMEM;
        *q = r->nops;
    }
    if (r->nops >= NONE32 - 1 || RT_VEC_RESERVE(r->ops, r->room, (uint64_t)r->nops + 1, 64))
        return -RT_E_NOMEM;
    r->ops[r->nops++] = o;
    return 0;
}

/* ---- messages ------------------------------------------------------------------------------- */

static uint32_t msg_new(race *x)
{
    uint32_t m = x->free_msg;
    if (m != NONE32) {
        x->free_msg = x->msgs[m].next;
        return m;
    }
    if (x->nmsgs >= NONE32 - 1 || RT_VEC_RESERVE(x->msgs, x->msgs_room, (uint64_t)x->nmsgs + 1, 64))
        return NONE32;
    return x->nmsgs++;
}

static void msg_free(race *x, uint32_t m)
{
    x->msgs[m].next = x->free_msg;
    x->free_msg = m;
}

/* The channel's key: messages from src to dst on comm with tag, partitioned (rop.flags F_PART)
 * or not, matched in the order sent. Ranks are below 2^24: bit 63 is free. */
static uint64_t chan_k1(uint32_t src, uint32_t dst, const rop *o)
{
    return (uint64_t)(o->flags & F_PART ? 1u : 0u) << 63 | (uint64_t)src << 32 | dst;
}
static uint64_t chan_k2(uint32_t comm, int32_t tag)
{
    return (uint64_t)comm << 32 | (uint32_t)tag;
}

/* Rank r's op j, a send: the message joins its channel (0, 1 when the rank now waits for a
 * synchronous send's receive, or -RT_E_NOMEM). */
static int do_send(race *x, uint32_t r, uint32_t j, const rop *o)
{
    uint32_t m = msg_new(x), dst = o->world;
    if (m == NONE32)
        return -RT_E_NOMEM;
    msg *mp = &x->msgs[m];
    *mp = (msg){.next = NONE32,
                .src = r,
                .seen = NONE32,
                .sync = o->flags & F_SYNC,
                .blocking = o->evkind == RT_EV_SEND};
    if ((mp->clock = slot_new(x, r)) == NONE32)
        return -RT_E_NOMEM;
    if (x->entry[dst] != NONE32) { /* kept for the race test */
        rank_st *d = &x->ranks[dst];
        if (d->nseen >= NONE32 - 1 ||
            RT_VEC_RESERVE(d->seen, d->seen_room, (uint64_t)d->nseen + 1, 64))
            return -RT_E_NOMEM;
        d->seen[d->nseen] = (seen){r, j, clock_of(x, r)[x->entry[dst]], NONE32};
        x->msgs[m].seen = d->nseen++;
    }
    int created;
    uint64_t *v = rt_hmap_put(&x->chan, chan_k1(r, dst, o), chan_k2(o->comm, o->tag), &created);
    if (!v)
        return -RT_E_NOMEM;
    uint32_t head = created ? m : (uint32_t)(*v >> 32); /* an empty channel has no entry */
    if (!created)
        x->msgs[(uint32_t)*v].next = m;
    *v = (uint64_t)head << 32 | m;
    rank_st *d = &x->ranks[dst];
    if (d->waiting == 1 && d->wait_src == r && d->wait_comm == o->comm && d->wait_tag == o->tag &&
        d->wait_part == (o->flags & F_PART))
        wake(x, dst);
    if (!x->msgs[m].sync)
        return 0;
    if (o->req != RT_REQ_NONE) { /* MPI_Issend: acknowledged at its completion */
        uint64_t *q = rt_hmap_put(&x->issend, r, o->req, NULL);
        if (!q)
            return -RT_E_NOMEM;
        *q = m;
        return 0;
    }
    x->ranks[r].waiting = 2;
    x->ranks[r].wait_src = m;
    return 1;
}

/* A synchronous send's message m was received (its slot now holds the receiver's clock): the
 * sender, if it waits for that, learns the clock and goes on. */
static void ack_done(race *x, uint32_t m)
{
    msg *mp = &x->msgs[m];
    rank_st *s = &x->ranks[mp->src];
    if (s->waiting != 2 || s->wait_src != m)
        return; /* an Issend not yet at its completion: it looks when it gets there */
    join(x, clock_of(x, mp->src), slot_at(x, mp->clock));
    slot_free(x, mp->clock);
    msg_free(x, m);
    s->waiting = 0;
    wake(x, mp->src);
}

/* Rank r's op j, a receive: 0 done, 1 waiting for its message, or -RT_E_NOMEM. */
static int do_recv(race *x, uint32_t r, uint32_t j, const rop *o)
{
    rank_st *rs = &x->ranks[r];
    uint64_t *v = rt_hmap_get(&x->chan, chan_k1(o->world, r, o), chan_k2(o->comm, o->tag));
    if (!v) {
        rs->waiting = 1;
        rs->wait_src = o->world;
        rs->wait_comm = o->comm;
        rs->wait_tag = o->tag;
        rs->wait_part = o->flags & F_PART;
        return 1;
    }
    uint32_t m = (uint32_t)(*v >> 32), tail = (uint32_t)*v;
    if (m == tail)
        rt_hmap_del(&x->chan, chan_k1(o->world, r, o), chan_k2(o->comm, o->tag));
    else
        *v = (uint64_t)x->msgs[m].next << 32 | tail;
    msg *mp = &x->msgs[m];
    join(x, clock_of(x, r), slot_at(x, mp->clock));
    tick(x, r, j);
    if (mp->seen != NONE32) {
        rs->seen[mp->seen].recv = j;
        if (o->flags & RT_RECV_ANY_SOURCE) {
            if (RT_VEC_RESERVE(rs->wild, rs->wild_room, (uint64_t)rs->nwild + 1, 16))
                return -RT_E_NOMEM;
            rs->wild[rs->nwild++] = (wild){j, mp->seen};
        }
    }
    if (!mp->sync) {
        slot_free(x, mp->clock);
        msg_free(x, m);
        return 0;
    }
    memcpy(slot_at(x, mp->clock), clock_of(x, r), (size_t)x->k * sizeof *x->slots);
    mp->acked = 1;
    ack_done(x, m);
    return 0;
}

/* Rank r's op, the completion of an MPI_Issend: 0 done, 1 waiting for the receive. */
static int do_ack(race *x, uint32_t r, const rop *o)
{
    uint64_t *q = rt_hmap_get(&x->issend, r, o->req);
    if (!q)
        return 0; /* not a synchronous send's request */
    uint32_t m = (uint32_t)*q;
    rt_hmap_del(&x->issend, r, o->req);
    x->ranks[r].waiting = 2;
    x->ranks[r].wait_src = m;
    if (!x->msgs[m].acked)
        return 1;
    ack_done(x, m); /* wakes r, already running: harmless */
    return 0;
}

/* The members of the collective's communicator (a fence: its window's). */
static const rt_comm_def *coll_comm(race *x, const rop *o)
{
    if (o->flags & F_FENCE)
        return rt_defs_comm(x->defs, rt_defs_win(x->defs, o->comm)->comm);
    return rt_defs_comm(x->defs, o->comm);
}

static void inst_free(race *x, uint32_t i)
{
    inst *in = &x->insts[i];
    rt_hmap_del(&x->inst_at, in->key, in->number);
    slot_free(x, in->slot);
    in->next_free = x->free_inst;
    x->free_inst = i;
}

/* Rank r's op j joins its collective call: the instance (its index in *at) holds the join of
 * the clocks of the members that called so far. 0 or -RT_E_NOMEM. */
static int arrive(race *x, uint32_t r, uint32_t j, const rop *o, uint32_t *at)
{
    const rt_comm_def *cd = coll_comm(x, o);
    uint64_t key = (o->flags & F_FENCE ? UINT64_C(1) << 32 : 0) | o->comm;
    uint64_t *n = rt_hmap_put(&x->count, r, key, NULL);
    if (!n)
        return -RT_E_NOMEM;
    uint64_t number = (*n)++;
    int created;
    uint64_t *v = rt_hmap_put(&x->inst_at, key, number, &created);
    if (!v)
        return -RT_E_NOMEM;
    tick(x, r, j);
    if (created) {
        uint32_t i = x->free_inst;
        if (i != NONE32) {
            x->free_inst = x->insts[i].next_free;
        } else {
            if (x->ninsts >= NONE32 - 1 ||
                RT_VEC_RESERVE(x->insts, x->insts_room, (uint64_t)x->ninsts + 1, 16))
                return -RT_E_NOMEM;
            i = x->ninsts++;
        }
        uint32_t s = slot_new(x, r);
        if (s == NONE32)
            return -RT_E_NOMEM;
        x->insts[i] = (inst){.key = key,
                             .number = number,
                             .slot = s,
                             .next_free = NONE32,
                             .members = (uint64_t)cd->size + cd->remote_size};
        *v = i;
    } else {
        join(x, slot_at(x, x->insts[*v].slot), clock_of(x, r));
    }
    *at = (uint32_t)*v;
    x->insts[*at].arrived++;
    return 0;
}

/* Rank r's op j, a blocking collective (or fence): every member's clock becomes the join of all
 * of theirs once the last calls. 0 done (r was the last), 1 waiting, or -RT_E_NOMEM. */
static int do_coll(race *x, uint32_t r, uint32_t j, const rop *o)
{
    uint32_t i;
    int rc = arrive(x, r, j, o, &i);
    if (rc)
        return rc;
    inst *in = &x->insts[i];
    if (in->arrived < in->members) {
        x->ranks[r].waiting = 3;
        return 1;
    }
    const rt_comm_def *cd = coll_comm(x, o);
    for (uint64_t k = 0; k < in->members; k++) {
        uint32_t m = cd->members[k];
        join(x, clock_of(x, m), slot_at(x, in->slot));
        if (m != r && x->ranks[m].waiting == 3) {
            x->ranks[m].waiting = 0;
            x->ranks[m].next++;
            wake(x, m);
        }
    }
    inst_free(x, i);
    return 0;
}

/* Rank r's op j, the start of a nonblocking collective: it never waits; once every member
 * started, the waits of those that wait for it go on. 0 or -RT_E_NOMEM. */
static int do_nbc_start(race *x, uint32_t r, uint32_t j, const rop *o)
{
    uint32_t i;
    int rc = arrive(x, r, j, o, &i);
    if (rc)
        return rc;
    uint64_t *q = rt_hmap_put(&x->nbc, r, o->req, NULL);
    if (!q)
        return -RT_E_NOMEM;
    *q = i;
    inst *in = &x->insts[i];
    if (in->arrived < in->members)
        return 0;
    const rt_comm_def *cd = coll_comm(x, o);
    for (uint64_t k = 0; k < in->members; k++) {
        uint32_t m = cd->members[k];
        if (x->ranks[m].waiting == 4 && x->ranks[m].wait_src == i)
            wake(x, m);
    }
    return 0;
}

/* Rank r's op j, the completion of a nonblocking collective: after every member started it,
 * r knows what they knew then. 0 done, 1 waiting for the others' starts. */
static int do_nbc_wait(race *x, uint32_t r, uint32_t j, const rop *o)
{
    uint64_t *q = rt_hmap_get(&x->nbc, r, o->req);
    if (!q)
        return 0; /* its start was not followed (a trace without it) */
    uint32_t i = (uint32_t)*q;
    inst *in = &x->insts[i];
    if (in->arrived < in->members) {
        x->ranks[r].waiting = 4;
        x->ranks[r].wait_src = i;
        return 1;
    }
    rt_hmap_del(&x->nbc, r, o->req);
    join(x, clock_of(x, r), slot_at(x, in->slot));
    tick(x, r, j);
    if (++in->waited == in->members)
        inst_free(x, i);
    return 0;
}

/* Runs rank r until it waits or ends. */
static int step(race *x, uint32_t r)
{
    rank_st *rs = &x->ranks[r];
    if (rs->waiting == 1 || rs->waiting == 4)
        rs->waiting = 0; /* its message, or the collective's last start, may have come */
    while (!rs->waiting && rs->next < rs->nops) {
        uint32_t j = rs->next;
        const rop *o = &rs->ops[j];
        int rc = 0;
        switch (o->kind) {
        case OP_SEND:
            tick(x, r, j);
            rc = do_send(x, r, j, o);
            break;
        case OP_RECV:
            rc = do_recv(x, r, j, o);
            break;
        case OP_ACK:
            tick(x, r, j);
            rc = do_ack(x, r, o);
            break;
        case OP_COLL:
            rc = do_coll(x, r, j, o);
            break;
        case OP_NBC_START:
            rc = o->comm == NONE32 ? 0 : do_nbc_start(x, r, j, o);
            break;
        case OP_NBC_WAIT:
            rc = do_nbc_wait(x, r, j, o);
            break;
        }
        if (rc < 0)
            return rc;
        if (rc == 0 || o->kind == OP_SEND || o->kind == OP_ACK)
            rs->next++; /* a synchronous send waits after it was made */
    }
    return 0;
}

/* When every rank waits: the wildcard receives that wait for a message no rank sent are left
 * out (MPICH 4.0.2 leaves the status of MPI_Isendrecv with wildcards unset, so the trace names
 * a source and tag of no message), and their ranks go on. 1 when some were. */
static int skip_unmatched(race *x)
{
    int any = 0;
    for (uint32_t r = 0; r < x->nranks; r++) {
        rank_st *rs = &x->ranks[r];
        if (rs->waiting == 1 && (rs->ops[rs->next].flags & RT_RECV_WILD)) {
            rs->waiting = 0;
            rs->next++;
            x->skipped++;
            wake(x, r);
            any = 1;
        }
    }
    return any;
}

/* Every rank as far as causality lets it go; the number of ranks left waiting. */
static int run(race *x, uint32_t *stuck)
{
    size_t k = x->k ? x->k : 1;
    if (!(x->clock = calloc((size_t)x->nranks * k, sizeof *x->clock)))
        return -RT_E_NOMEM;
    x->free_slot = x->free_msg = x->free_inst = NONE32;
    for (uint32_t r = x->nranks; r-- > 0;)
        wake(x, r);
    for (;;) {
        while (x->nwork) {
            uint32_t r = x->work[--x->nwork];
            x->ranks[r].queued = 0;
            int rc = step(x, r);
            if (rc < 0)
                return rc;
        }
        if (!skip_unmatched(x))
            break;
    }
    *stuck = 0;
    for (uint32_t r = 0; r < x->nranks; r++)
        *stuck += x->ranks[r].next < x->ranks[r].nops;
    return 0;
}

/* ---- findings ------------------------------------------------------------------------------- */

/* A message to the rank, by communicator, sender and the sender's order. */
typedef struct mkey {
    uint32_t comm, src, sidx, i;
} mkey;

static int mkey_cmp(const void *a, const void *b)
{
    const mkey *p = a, *q = b;
    if (p->comm != q->comm)
        return p->comm < q->comm ? -1 : 1;
    if (p->src != q->src)
        return p->src < q->src ? -1 : 1;
    return p->sidx < q->sidx ? -1 : p->sidx > q->sidx;
}

/* The event an operation came from (the fields a finding shows). */
static rt_event op_event(uint32_t rank, const rop *o)
{
    return (rt_event){.time = o->time,
                      .bytes = o->bytes,
                      .rank = rank,
                      .comm = o->comm,
                      .peer = o->peer,
                      .tag = o->tag,
                      .call = o->call,
                      .kind = o->evkind,
                      .op = o->kind == OP_RECV ? o->flags : 0};
}

/* The wildcard receive w of rank r against the other senders' first messages that it could
 * have got: a finding when there is one. keys[0 .. n) are r's messages, sorted; at[] the
 * first of each sender's that is not yet received, moved on as the receives go by. */
static int judge(race *x, uint32_t r, const wild *w, const mkey *keys, uint32_t n, uint32_t *at)
{
    const rank_st *rs = &x->ranks[r];
    const rop *R = &rs->ops[w->op];
    const seen *got = &rs->seen[w->got];
    uint32_t lo = 0, hi = n, racing = 0;
    while (lo < hi) { /* the first message on R's communicator */
        uint32_t mid = lo + (hi - lo) / 2;
        if (keys[mid].comm < R->comm)
            lo = mid + 1;
        else
            hi = mid;
    }
    chk_text ranks = {.len = 0}, calls = {.len = 0};
    rt_event ev = op_event(r, R);
    chk_add_call(&calls, &ev);
    ev = op_event(got->src, &x->ranks[got->src].ops[got->sidx]);
    chk_add(&calls, " got the message of ");
    chk_add_call(&calls, &ev);
    chk_add(&ranks, "%" PRIu32 ", %" PRIu32, r, got->src);
    for (uint32_t g = lo; g < n && keys[g].comm == R->comm;) {
        uint32_t end = g;
        while (end < n && keys[end].comm == R->comm && keys[end].src == keys[g].src)
            end++;
        uint32_t *p = &at[g];
        while (*p < end && rs->seen[keys[*p].i].recv != NONE32 && rs->seen[keys[*p].i].recv < w->op)
            (*p)++;
        for (uint32_t i = *p, looked = 0; keys[g].src != got->src && i < end && looked < RACE_SCAN;
             i++, looked++) {
            const seen *e = &rs->seen[keys[i].i];
            const rop *S = &x->ranks[e->src].ops[e->sidx];
            if ((e->recv != NONE32 && e->recv < w->op) || (S->flags & F_PART) ||
                (!(R->flags & RT_RECV_ANY_TAG) && S->tag != R->tag))
                continue;
            if (e->hb <= w->op && ++racing <= RACE_SHOWN) { /* nothing orders R before S */
                ev = op_event(e->src, S);
                chk_add(&calls, "%s", racing == 1 ? "; could have got that of " : ", ");
                chk_add_call(&calls, &ev);
                chk_add(&ranks, ", %" PRIu32, e->src);
            }
            break;
        }
        g = end;
    }
    if (!racing)
        return 0;
    if (racing > RACE_SHOWN)
        chk_add(&calls, " and %" PRIu32 " more sender%s", racing - RACE_SHOWN,
                racing - RACE_SHOWN > 1 ? "s" : "");
    chk_text where = {.len = 0};
    chk_add_comm(&where, R->comm);
    return chk_find(x->c, RT_CHK_RACE, ranks.s, where.s, calls.s,
                    "a receive from MPI_ANY_SOURCE gets whichever matching message comes first, "
                    "and nothing orders these sends after it: under another timing it gets "
                    "another sender's message, and the program may take another path");
}

/* The wildcard receives of rank r, in the order it made them. */
static int judge_rank(race *x, uint32_t r)
{
    rank_st *rs = &x->ranks[r];
    if (!rs->nwild)
        return 0;
    mkey *keys = malloc((size_t)rs->nseen * sizeof *keys);
    uint32_t *at = malloc((size_t)rs->nseen * sizeof *at);
    if (!keys || !at) {
        free(keys);
        free(at);
        return -RT_E_NOMEM;
    }
    for (uint32_t i = 0; i < rs->nseen; i++) {
        const seen *e = &rs->seen[i];
        keys[i] = (mkey){x->ranks[e->src].ops[e->sidx].comm, e->src, e->sidx, i};
    }
    qsort(keys, rs->nseen, sizeof *keys, mkey_cmp);
    for (uint32_t i = 0; i < rs->nseen; i++) /* each sender's run starts at its first */
        at[i] =
            i && keys[i].comm == keys[i - 1].comm && keys[i].src == keys[i - 1].src ? at[i - 1] : i;
    int rc = 0;
    for (uint32_t i = 0; i < rs->nwild && rc == 0; i++)
        rc = judge(x, r, &rs->wild[i], keys, rs->nseen, at);
    free(keys);
    free(at);
    return rc < 0 ? rc : 0;
}

static int notes(race *x, uint32_t stuck)
{
    int rc = 0;
    if (x->k < x->wild_ranks)
        rc = chk_note(x->c,
                      "race: checked for the first %" PRIu32 " of the %" PRIu32 " ranks that "
                      "receive from MPI_ANY_SOURCE (a vector clock entry each, at most %" PRIu32
                      " at %" PRIu32 " ranks)",
                      x->k, x->wild_ranks, x->cap, x->nranks);
    if (rc == 0 && x->skipped)
        rc = chk_note(x->c,
                      "race: %" PRIu64 " wildcard receive%s left out: the trace names a source "
                      "and tag of no message sent to %s (MPICH 4.0.2, for one, leaves the "
                      "status of a wildcard MPI_Isendrecv unset)",
                      x->skipped, x->skipped > 1 ? "s" : "", x->skipped > 1 ? "them" : "it");
    if (rc == 0 && stuck)
        rc = chk_note(x->c,
                      "race: checked as far as the messages and collectives of the trace could "
                      "be followed in order (%" PRIu32 " rank%s left waiting for a message or "
                      "a collective no rank sent or joined)",
                      stuck, stuck > 1 ? "s" : "");
    return rc;
}

static void race_free(race *x)
{
    for (uint32_t r = 0; x->ranks && r < x->nranks; r++) {
        free(x->ranks[r].ops);
        free(x->ranks[r].seen);
        free(x->ranks[r].wild);
    }
    free(x->ranks);
    free(x->entry);
    free(x->clock);
    free(x->slots);
    free(x->msgs);
    free(x->work);
    free(x->in_ops);
    rt_hmap_free(&x->chan);
    rt_hmap_free(&x->inst_at);
    rt_hmap_free(&x->nbc);
    rt_hmap_free(&x->nbc_op);
    free(x->insts);
    rt_hmap_free(&x->count);
    rt_hmap_free(&x->issend);
}

static int on_finish(void *ctx, rt_err *err)
{
    race *x = ctx;
    if (!x->k)
        return 0; /* no receive from MPI_ANY_SOURCE */
    uint32_t stuck = 0;
    int rc = run(x, &stuck);
    for (uint32_t r = 0; rc == 0 && r < x->nranks; r++)
        if (x->entry[r] != NONE32)
            rc = judge_rank(x, r);
    if (rc == 0)
        rc = notes(x, stuck);
    return rc < 0 ? rt_err_set(err, -rc, "out of memory") : 0;
}

int chk_race(chk *c, const char *path, rt_err *err)
{
    if (c->threaded != UINT32_MAX)
        return chk_note(c,
                        "race not checked: the calls of rank %" PRIu32 " come from several "
                        "threads at once, which the trace does not tell apart",
                        c->threaded);
    race x = {.c = c};
    rt_an_pass pass = {.setup = on_setup, .event = on_event, .finish = on_finish, .ctx = &x};
    char *truncated = NULL;
    int rc = rt_an_run(path, &pass, &truncated, err);
    free(truncated); /* the streaming pass said so already */
    race_free(&x);
    return rc;
}
