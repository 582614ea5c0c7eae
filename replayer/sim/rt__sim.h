/*
 * Internals of the built-in MPI engine (rt_sim.h), shared by the replayer/sim_*.c files.
 *
 * The engine in one paragraph: every rank walks its recorded events. Computation is the
 * recorded gap between leaving one call and entering the next. Operations (sends, receives,
 * collective steps, RMA transfers) are posted at the rank's simulated clock; each one's
 * completion time becomes known when it is matched (all of a message's timing follows from
 * the model at that moment), so messages need no engine events of their own; it is then
 * told to a request (which a call waits for) or to the collective round it belongs to. A
 * call ends when the requests it waits for are done; a rank that waits for unknown
 * completions blocks and is woken when the last one becomes known. The queue (sim_queue.c)
 * orders ranks and collective rounds by (time, sequence); a rank whose clock passes the
 * earliest pending engine event yields, so operations are posted in time order. The
 * collective fast path (sim_fast.c) computes whole collectives at once instead, when the
 * results cannot differ.
 */
#ifndef RT__SIM_H
#define RT__SIM_H

#include <stdio.h>

#include "rt_sim.h"
#include "rt_util.h"

#define SIM_NEVER UINT64_MAX
#define SIM_TIME_MAX (SIM_NEVER - 1) /* the latest time a run may reach (ps) */
#define SIM_NONE UINT32_MAX
#define SIM_EV_SKIP 0xffu /* a loaded event left out of the replay */

/* 1 for the events whose peer the loader turns into a world rank: point-to-point messages,
 * RMA transfers, and lock, unlock and sync of one target. */
static inline int sim_world_peer(const rt_event *ev)
{
    unsigned k = ev->kind;
    return k == RT_EV_SEND || k == RT_EV_ISEND || k == RT_EV_RECV || k == RT_EV_IRECV_REQUEST ||
           k == RT_EV_RMA_PUT || k == RT_EV_RMA_GET || k == RT_EV_RMA_ATOMIC ||
           ((k == RT_EV_RMA_LOCK || k == RT_EV_RMA_UNLOCK || k == RT_EV_RMA_SYNC) &&
            ev->peer != RT_PEER_ALL);
}

/* A receive of a pending call (rt_event.h) posted with MPI_ANY_SOURCE: it has no source
 * (RT_PEER_NONE). Recorded receives that completed name the source they matched. */
static inline int sim_recv_any_source(const rt_event *ev)
{
    return (ev->kind == RT_EV_RECV || ev->kind == RT_EV_IRECV_REQUEST) &&
           ev->peer == RT_PEER_NONE && (ev->op & RT_RECV_ANY_SOURCE);
}

/* A receive of a pending call that matches more than one channel: any source, or any tag
 * (tag -1). Replayed as a wildcard receive (sim_p2p.c, sim_post_wild). */
static inline int sim_recv_wild(const rt_event *ev)
{
    return __builtin_expect(ev->peer < 0 || ev->tag < 0, 0) &&
           (sim_recv_any_source(ev) || (ev->tag == -1 && (ev->op & RT_RECV_ANY_TAG)));
}

/* ---- the loaded trace ----------------------------------------------------------------------- */

typedef struct sim_rank_events {
    rt_event *ev;
    uint32_t n, cap;
    uint32_t nslots;   /* request slots the rank needs at most at once */
    uint32_t pending;  /* the index of its pending call's PENDING event; SIM_NONE: none */
    uint8_t finalized; /* it entered MPI_Finalize */
} sim_rank_events;

struct rt_sim_trace {
    rt_defs defs;
    sim_rank_events *ranks; /* events in slabs (sim_load.c) when nslabs, else each its own */
    struct sim_evslab *slabs;
    size_t nslabs, slabs_cap;
    uint64_t nevents;
    uint64_t t_first, t_last; /* ns */
    rt_sim_trace_end end;     /* how the run ended (rt_sim_trace_end_of) */
    char *notes;
    size_t notes_len, notes_cap;
};

/* ---- engine objects ----------------------------------------------------------------------- */

/* Who is told when a request's completion time becomes known. */
enum { SIM_W_NONE, SIM_W_RANK, SIM_W_DROP };

typedef struct sim_req {
    uint64_t done; /* SIM_NEVER until known */
    uint32_t waiter;
    uint8_t wkind;
    uint32_t next_free;
} sim_req;

/* Whom a posted operation tells when its completion time becomes known: a request (which
 * a rank waits for), or a collective whose round it belongs to (no request in between:
 * a collective step's waiter is known when it is posted). */
enum { SIM_T_REQ, SIM_T_COLL };

/* Matching contexts: application point-to-point, collective schedules, window
 * synchronisation, partitioned messages (RT_RECV_PARTITIONED: MPI never pairs them with
 * ordinary ones). Part of every channel key, so they never match each other. */
enum { SIM_CTX_P2P = 1, SIM_CTX_COLL, SIM_CTX_WIN, SIM_CTX_POST, SIM_CTX_DONE, SIM_CTX_PART };

/* The context of an application message: an ISEND, or an IRECV_REQUEST with its IRECV's op
 * (sim_load.c), of a partitioned message has its own. */
static inline uint8_t sim_p2p_ctx(const rt_event *ev)
{
    return ev->op & RT_RECV_PARTITIONED ? SIM_CTX_PART : SIM_CTX_P2P;
}

/* A posted send or receive waiting for its partner (what matching needs of it). */
typedef struct sim_op {
    uint64_t time;    /* posted */
    uint64_t arrival; /* send: eager data, or rendezvous request, at the receiver */
    uint64_t bytes;
    uint32_t who; /* told when the operation is done (wk: SIM_T_*) */
    uint8_t wk, send, eager, ct, flags;
} sim_op;

/* A pending operation outside a channel's inline slot: the second and later ones of a
 * channel, mailbox entries (free wildcard matching), rendezvous under way, lock requests. */
typedef struct sim_pend {
    sim_op op;
    uint32_t next;
    uint32_t rank; /* the rank that posted it (world) */
    uint32_t peer; /* the other side as posted (world rank) */
    uint32_t tag;
    uint32_t who2; /* rendezvous under way: the receive's (op.who: the send's) */
    uint8_t wk2;
    uint8_t hs; /* ... 1 while its request waits for the receiver on a core (sim_share.c) */
} sim_pend;

/* A channel (context, receiver, sender, communicator, tag): one cache line holding its key,
 * its first pending operation (in most channels the only one: a collective round sends one
 * message per pair) and the list of further ones, in posting order. */
typedef struct sim_chan {
    uint64_t k1, k2; /* k1 == RT_HASH_EMPTY: free slot (first: rt_htab_pair_*) */
    sim_op op;
    uint32_t more, more_tail; /* sim_pend list; SIM_NONE: none */
} sim_chan;
_Static_assert(sizeof(sim_chan) == 64, "a channel is one cache line");

/* The ends of a used channel's first operation: its context (k1's top byte), the rank that
 * posted it (the source of a send, the destination of a receive) and the other one. */
static inline unsigned sim_chan_ends(const sim_chan *c, uint32_t *me, uint32_t *peer)
{
    uint32_t dst = (uint32_t)(c->k1 >> 28) & 0xfffffffu, src = (uint32_t)c->k1 & 0xfffffffu;
    *me = c->op.send ? src : dst;
    *peer = c->op.send ? dst : src;
    return (unsigned)(c->k1 >> 56);
}

typedef struct sim_chans {
    sim_chan *slots; /* 64-byte aligned */
    size_t cap, n;   /* cap a power of two */
} sim_chans;

/* One step of a collective schedule, ready to post: rt_coll_step with the peer as a world
 * rank and its connection type looked up once, in 16 bytes. */
typedef struct sim_step {
    uint64_t bytes;
    uint32_t peer; /* world rank */
    uint8_t kind;  /* rt_coll_step_kind */
    uint8_t ct;    /* connection type to the peer */
    uint8_t first; /* 1: the first step of its round */
} sim_step;

/* One rank's part of one collective call. The fields the engine touches on every round
 * fill one cache line. */
typedef struct sim_coll {
    sim_step *steps; /* the rank's kept schedule (sim_sched), or its own when own is set */
    uint32_t nsteps;
    uint32_t cur;     /* first step of the round in progress (of the next one once posted) */
    uint32_t pending; /* its operations not done yet */
    uint32_t id;      /* communicator or window */
    uint64_t round_end;
    uint64_t reduce_ps; /* reductions of the round in progress */
    uint32_t tag;       /* the instance's sequence number on its communicator */
    uint32_t rank;      /* world rank */
    union {
        uint32_t req;       /* done when the whole schedule is */
        uint32_t next_free; /* in the free list */
    };
    uint16_t call; /* the MPI function (output trace) */
    uint8_t ctx;   /* SIM_CTX_COLL or SIM_CTX_WIN */
    uint8_t op;
    uint8_t own;
    uint8_t eager; /* every message of its schedule is eager (sim_fast.c) */
} sim_coll;
_Static_assert(sizeof(sim_coll) == 64, "a collective is one cache line");

/* A rank's last collective schedule, kept for its next call with the same parameters: ranks
 * repeat their collectives (an allreduce per iteration), and a schedule is a function of the
 * call alone, so it is expanded once. */
typedef struct sim_sched {
    sim_step *steps;
    uint32_t nsteps, cap;
    uint32_t id;
    uint32_t users; /* running collectives that use it */
    int32_t root;
    uint8_t ctx, op, valid;
    uint8_t eager; /* every message is eager */
    uint8_t rows;  /* made from per-peer counts: never the same as another call's */
    uint64_t bytes, rbytes;
    uint64_t seq_key;  /* the communicator (context << 32 | id) it called a collective on last */
    uint32_t seq_next; /* its next sequence number there (collseq holds the others) */
    uint32_t esize;    /* the element size it was made for (rt_coll_call.esize) */
} sim_sched;

enum { SIM_RANK_READY, SIM_RANK_BLOCKED, SIM_RANK_DONE };

/* sim_rank.in_call: 0 between calls, 1 in a recorded call, 2 and 3 in an operation outside
 * any recorded call (sim_core.c), SIM_IN_PENDING in a call that never returned. */
#define SIM_IN_PENDING 4

/* A rank's state while it runs its trace: one cache line (the ranks array is aligned). Its
 * ports are elsewhere (sim_port): collective rounds use them without the rest. */
typedef struct sim_rank {
    uint64_t clock;      /* ps */
    uint64_t call_start; /* clock when the current call was entered */
    uint64_t wait_until; /* latest known completion the current call waits for */
    uint64_t mpi_ps, compute_ps;
    uint64_t last_rec; /* recorded ns of the last LEAVE: computation is measured from it */
    uint32_t pc;       /* next event */
    uint32_t waiting;  /* completions the current call waits for that are not known yet */
    uint32_t slot_base;
    uint16_t call;
    uint8_t state, in_call;
} sim_rank;
_Static_assert(sizeof(sim_rank) == 64, "a rank is one cache line");

/* A rank's network ports. The rest serves the collective fast path (sim_fast.c): who
 * booked the injection port last, and what may still book it. */
typedef struct sim_port {
    uint64_t inject; /* injection port free */
    uint64_t eject;  /* ejection port free (contention) */
    uint64_t tie_t;  /* fast mode: the posting time of the last booking */
    uint32_t tie_ev; /* ... and the engine event that made it (0: none yet) */
    uint32_t busy;   /* fast mode: collectives running and rendezvous data not yet sent */
} sim_port;
_Static_assert(sizeof(sim_port) == 32, "two ports a cache line");

/* A rank's place in the time sharing of its group (sim_share.c). Fixed turns (model `waiting =
 * poll`): turn of turns (0 or 1: it has a core to itself). Yielding (`waiting = yield`): its group
 * (SIM_NONE: a core to itself), the next rank in the group's run queue, where it is (SIM_CPU_*),
 * the end of its slice while it holds a core, and what it still has to run of the start of a
 * call (phase 1: the computation before it, 2: the call's [calls] cost; 0: nothing).
 * hs_head, hs_tail: the rendezvous requests that wait for it to take a core (sim_pend.next). */
typedef struct sim_share_rank {
    uint64_t slice_end;
    uint64_t left[3]; /* by phase: left[1] computation, left[2] the call's cost */
    uint32_t turn, turns;
    uint32_t group, next;
    uint32_t hs_head, hs_tail;
    uint8_t cpu, phase;
} sim_share_rank;
/* SIM_CPU_PROGRESS: queued for an instant on a core, to answer rendezvous requests only */
enum { SIM_CPU_OFF, SIM_CPU_ON, SIM_CPU_QUEUED, SIM_CPU_PROGRESS };

/* A group of ranks that share cores, yielding: its cores, how many hold one, its run queue (FIFO
 * of ranks that want a core, linked by sim_share_rank.next) and, when the sharing is the
 * recorded one, the CPU a computing rank got at each time of the recording: cum[i] ps up to
 * at[i] ns, the times where a rank of the group started or ended a computation. */
typedef struct sim_share_group {
    uint32_t cores, running, head, tail;
    uint32_t nsteps;
    uint64_t *at, *cum;
} sim_share_group;

enum { SIM_H_RANK, SIM_H_COLL, SIM_H_RNDV };

/* The event queue (sim_queue.c): per distinct pending time a FIFO bucket of events. */
#define SIM_QCHUNK 15
#define SIM_QIDX_MASK ((1u << 30) - 1) /* entries: kind << 30 | index */

typedef struct sim_qchunk {
    uint32_t ent[SIM_QCHUNK]; /* kind << 30 | index */
    uint32_t next;
} sim_qchunk;
_Static_assert(sizeof(sim_qchunk) == 64, "a queue chunk is one cache line");

typedef struct sim_bucket {
    uint64_t time;
    uint32_t head, tail;    /* chunks; head doubles as the free-list link */
    uint8_t head_n, tail_n; /* entries taken from the head chunk, put into the tail chunk */
} sim_bucket;

typedef struct sim_qtime {
    uint64_t time;
    uint32_t bucket;
} sim_qtime;

/* A look-ahead position (sim_queue_ahead); left < 0: to be started again. */
typedef struct sim_qcursor {
    int64_t left; /* events before it: pops until it is taken */
    uint32_t bucket, chunk;
    uint8_t pos;
} sim_qcursor;

typedef struct sim_queue {
    sim_qchunk *chunks;
    rt_pool chunkp;
    sim_bucket *buckets; /* a free bucket's head links the free list */
    rt_pool bucketp;
    sim_qtime *times; /* binary heap of the distinct pending times */
    size_t ntimes, times_cap;
    rt_hmap by_time; /* time -> bucket */
    uint32_t last;   /* the bucket last pushed to */
    sim_qcursor ahead;
    uint64_t n; /* events queued */
} sim_queue;

typedef struct sim_buf {
    char *s;
    size_t len, cap;
    unsigned lines;
} sim_buf;

/* A wildcard receive of a pending call, waiting for a send (sim_p2p.c, sim_post_wild). */
typedef struct sim_wild {
    sim_op op;
    uint32_t rank, comm;
    uint32_t src, tag; /* SIM_NONE: any */
} sim_wild;

#define SIM_AHEAD_RING 16

/* One message size's cost over one connection type (sim_p2p.c). */
typedef struct sim_cost {
    uint64_t n, wire, busy, in;
    uint64_t arrive; /* o + wire: from the start of the injection to the data's arrival */
    int valid;
} sim_cost;

typedef struct sim {
    const rt_sim_trace *t;
    const rt_defs *defs;
    const rt_sim_config *cfg;
    const uint32_t *node, *module;
    uint32_t nranks;
    sim_rank *ranks;
    sim_port *ports;
    uint32_t *slots; /* request slots of all ranks: ranks[r].slot_base + slot -> req */
    uint64_t nslots;

    sim_queue q;
    uint32_t ahead_ring[SIM_AHEAD_RING]; /* the events prefetch_ahead passed (sim_core.c) */
    unsigned ahead_at;
    uint64_t now;
    int call_costs; /* the model charges some MPI calls CPU time ([calls]) */
    int alg_costs;  /* ... and some collective algorithms ([calls] MPI_Allreduce/ring) */

    sim_req *reqs; /* the pools (rt_pool.h) of requests, pending messages, collectives */
    rt_pool reqp;
    sim_pend *pends;
    rt_pool pendp;
    sim_coll *colls;
    rt_pool collp;
    sim_sched *sched;  /* per rank, allocated with the first collective */
    sim_step *scratch; /* a schedule being expanded (sim_coll.c) */
    uint32_t nscratch, scratch_cap;
    uint64_t *blk; /* the per-peer counts of a call being expanded: blk_cap send blocks, then
                    * blk_cap receive blocks (sim_coll.c) */
    uint32_t blk_cap;
    char *slab; /* kept schedules: the open block and what is left in it */
    size_t slab_left;
    struct sim_slab {
        void *p;
        size_t size;
    } * slabs;
    uint32_t nslabs, slabs_cap;

    sim_chans chans; /* (context|dst|src, comm|tag) -> pending operations */
    sim_wild *wild;  /* wildcard receives of pending calls not matched yet */
    uint32_t nwild, wild_cap;
    rt_hmap mail;     /* free wildcards: (receiver, comm|0 or 1) -> head | tail << 32 */
    rt_hmap collseq;  /* (rank, comm key) -> next collective sequence number (sim_sched) */
    rt_hmap collchk;  /* (comm key, seq) -> op | root << 8 | arrived << 32 */
    rt_hmap rma_done; /* (rank << 32 | window, target or SIM_NONE) -> latest completion */
    rt_hmap locks;    /* (window, target) -> lock state index */
    rt_hmap members;  /* (comm key, 0) -> cached communicator -> world rank array */

    uint64_t *gw_free;       /* per gateway, contention */
    sim_share_rank *share;   /* per rank, when a node has more ranks than cores; else NULL */
    uint64_t slice;          /* ... and the timeslice, ps */
    int share_recorded;      /* ... taken from the trace's hosts (sim_share.c) */
    int share_yield;         /* ... a waiting rank yields its core (model `waiting`) */
    sim_share_group *groups; /* ... yielding: the groups that share */
    uint32_t ngroups;
    sim_cost cost[RT_CT_COUNT];             /* the last message size's per connection type */
    uint64_t reduce_n, reduce_e, reduce_ps; /* the last reduction size, elements and time */
    int reduce_elems; /* the model charges per element (reduce_element): count them */
    struct sim_lock *lockv;
    uint32_t nlocks, locks_cap;
    uint32_t unscheduled[RT_COLL_COUNT], approx[RT_COLL_COUNT]; /* notes given once */

    /* the collective fast path (sim_fast.c) */
    int fast;                 /* fast mode: on for this run (rt_sim_run decides) */
    const char *fast_gave_up; /* why it gave up (for a debugger); the run is done again */
    uint64_t evid;            /* the engine event in progress (numbered from 1) */
    uint32_t evsyn;           /* numbers for no real event, counted down from UINT32_MAX */
    rt_hmap fastinst;         /* (comm key, seq) -> fast instance index */
    struct sim_finst *finst;
    rt_pool finstp;
    struct sim_fmemb *fm; /* per member of the instance being computed */
    uint32_t fm_cap;
    struct sim_fmsg *fmsg; /* messages on their way in that computation */
    rt_pool fmsgp;
    uint32_t *fidx;    /* world rank -> member index (communicators other than world) */
    uint32_t *factive; /* members not done yet */

    sim_rank_events *out; /* --out-trace: the simulated events per rank */
    rt_sim_result *res;
    sim_buf report, notes;
    int stop; /* a mismatch ended the replay */
    int rc;   /* first hard error (no memory) */
    rt_err *err;
} sim;

/* sim_queue.c */
void sim_queue_init(sim_queue *q);
void sim_queue_free(sim_queue *q);
int sim_queue_push_slow(sim *s, uint64_t time, uint8_t kind, uint32_t idx);
/* Queues event (kind, idx) at time, after every event queued before at that time. Inline:
 * most pushes go to the bucket of the push before, which has room. */
static inline int sim_queue_push(sim *s, uint64_t time, uint8_t kind, uint32_t idx)
{
    sim_queue *q = &s->q;
    if (q->last != SIM_NONE && idx <= SIM_QIDX_MASK) {
        sim_bucket *bk = &q->buckets[q->last];
        if (bk->time == time && bk->tail_n < SIM_QCHUNK) {
            q->chunks[bk->tail].ent[bk->tail_n++] = (uint32_t)kind << 30 | idx;
            q->n++;
            return 0;
        }
    }
    return sim_queue_push_slow(s, time, kind, idx);
}
void sim_queue_popped(sim_queue *q);
/* Takes the first event (the queue must not be empty). Inline: the rest (a chunk or a
 * bucket used up) is sim_queue_popped. */
static inline void sim_queue_pop(sim_queue *q, uint64_t *time, uint8_t *kind, uint32_t *idx)
{
    sim_bucket *bk = &q->buckets[q->times[0].bucket];
    uint32_t ent = q->chunks[bk->head].ent[bk->head_n++];
    *time = bk->time;
    *kind = (uint8_t)(ent >> 30);
    *idx = ent & SIM_QIDX_MASK;
    q->n--;
    q->ahead.left--; /* one event fewer before the look-ahead cursor */
    if (bk->head_n == SIM_QCHUNK || (bk->head == bk->tail && bk->head_n == bk->tail_n))
        sim_queue_popped(q);
}
/* The time of the first event; SIM_NEVER when the queue is empty. */
static inline uint64_t sim_queue_first(const sim_queue *q)
{
    return q->ntimes ? q->times[0].time : SIM_NEVER;
}
/* An event (kind << 30 | index) about dist places behind the first one, each one once when
 * called after every pop, to prefetch what the events will touch; 0 when there is none new. */
int sim_queue_ahead(sim_queue *q, uint32_t dist, uint32_t *ent);

/* sim_mem.c */
/* p (old bytes long, the size it was allocated with; or NULL, 0) reallocated to bytes,
 * starting on a cache line, the new part zeroed, so that 64-byte objects take one line each;
 * big arrays on huge pages where available. NULL: no memory (p is kept). */
void *sim_realloc_lines(void *p, size_t old, size_t bytes);
/* Frees what sim_realloc_lines gave for bytes. */
void sim_free_lines(void *p, size_t bytes);
/* Whether big arrays the thread allocates from now on ask for huge pages (the default). */
void sim_lines_huge(int on);

/* sim_core.c */
uint32_t sim_req_new(sim *s);
void sim_req_free(sim *s, uint32_t r);
/* Sets a request's completion time and tells its waiter. */
void sim_req_done(sim *s, uint32_t r, uint64_t t);
/* The current call of rank waits for request r (freed once its time is known). */
void sim_rank_wait(sim *s, uint32_t rank, uint32_t r);
void sim_rank_wake(sim *s, uint32_t rank, uint64_t t);
/* Puts request r in a request slot of rank (SIM_NONE: nobody will wait for it). */
void sim_slot_set(sim *s, uint32_t rank, uint64_t slot, uint32_t r);
int sim_fail(sim *s, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Time arithmetic: every time the engine computes from the trace, the model and the options
 * goes through these. A result past SIM_TIME_MAX cannot be represented: the run ends with
 * -RT_E_RANGE (sim_time_overflow sets s->rc; the loops stop at their next check) and
 * SIM_TIME_MAX stands in for the result meanwhile. */
uint64_t sim_time_overflow(sim *s);
/* a + b for a time a (at most SIM_TIME_MAX) and a cost b (any value; a saturated one is
 * UINT64_MAX). a + 1 cannot wrap, and a + 1 + b carries exactly when a + b passes
 * SIM_TIME_MAX: one test for both (it runs for every message). */
static inline uint64_t sim_add(sim *s, uint64_t a, uint64_t b)
{
    uint64_t r;
    if (__builtin_expect(rt_add_overflow(a + 1, b, &r), 0))
        return sim_time_overflow(s);
    return r - 1;
}
/* The bytes a collective round reduces, summed: past 2^64 - 1 the run ends with -RT_E_RANGE
 * (sim_reduce_overflow). */
uint64_t sim_reduce_overflow(sim *s);
static inline uint64_t sim_reduce_add(sim *s, uint64_t a, uint64_t b)
{
    uint64_t r;
    if (__builtin_expect(rt_add_overflow(a, b, &r), 0))
        return sim_reduce_overflow(s);
    return r;
}
/* The elements a reduce step combines (its element size in peer, sim_coll.c) added to a; a
 * part of an element counts as one. Only when the model charges per element (reduce_elems):
 * callers look at that once per round. */
static inline uint64_t sim_reduce_elems(sim *s, uint64_t a, const sim_step *st)
{
    return sim_reduce_add(s, a, st->bytes / st->peer + (st->bytes % st->peer != 0));
}
/* A time computed in 128 bits. */
static inline uint64_t sim_time(sim *s, rt_u128 v)
{
    if (__builtin_expect(v > SIM_TIME_MAX, 0))
        return sim_time_overflow(s);
    return (uint64_t)v;
}
void sim_buf_printf(sim_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* sim_p2p.c: matching, protocols and message timing */
unsigned sim_contype(const sim *s, uint32_t a, uint32_t b);
/* Posts a send of bytes from world rank src to dst over connection type ct (sim_contype),
 * or a receive on dst from src, at time t in channel (ctx, comm, tag). Returns the
 * operation's completion time when it is known at once (an eager send, a receive whose
 * eager message is in), else SIM_NEVER: then who (wk: SIM_T_*) is told once it is
 * (sim_target_done). SIM_NEVER with s->rc set: no memory. */
uint64_t sim_send(sim *s, uint8_t ctx, uint64_t comm, uint32_t tag, uint32_t src, uint32_t dst,
                  unsigned ct, uint64_t bytes, uint64_t t, uint8_t wk, uint32_t who);
uint64_t sim_recv(sim *s, uint8_t ctx, uint64_t comm, uint32_t tag, uint32_t dst, uint32_t src,
                  uint64_t bytes, uint64_t t, uint8_t flags, uint8_t wk, uint32_t who);
/* The same with a new request, returned (done when the operation is); SIM_NONE: no memory.
 * sync: the send is synchronous whatever its size (rendezvous; rt_sim_config sync_sends). */
uint32_t sim_post_send(sim *s, uint8_t ctx, uint64_t comm, uint32_t tag, uint32_t src, uint32_t dst,
                       uint64_t bytes, uint64_t t, int sync);
uint32_t sim_post_recv(sim *s, uint8_t ctx, uint64_t comm, uint32_t tag, uint32_t dst, uint32_t src,
                       uint64_t bytes, uint64_t t, uint8_t flags);
/* One-sided transfer from origin to target posted at t: when the data is at the target
 * (put, accumulate) or back at the origin (get, fetching atomics). */
/* What a message of n bytes over connection type ct costs (kept per type for the last size). */
const sim_cost *sim_cost_of(sim *s, unsigned ct, uint64_t n);
uint64_t sim_rma_transfer(sim *s, uint32_t origin, uint32_t target, uint64_t to_target,
                          uint64_t from_target, uint64_t t);
/* Prefetches the channel a send from src to dst (or a receive on dst from src) will use. */
void sim_post_prefetch(const sim *s, uint8_t ctx, uint64_t comm, uint32_t tag, uint32_t dst,
                       uint32_t src);
/* A wildcard receive of a pending call (sim_recv_wild ev) posted by rank at t: its request
 * (SIM_NONE: no memory). Matched by sim_wild_match once the run can go no further. */
uint32_t sim_post_wild(sim *s, uint32_t rank, const rt_event *ev, uint64_t t);
/* Matches each waiting wildcard receive with the earliest unmatched send that fits; returns
 * how many it matched (their ranks may go on). */
uint32_t sim_wild_match(sim *s);
void sim_report_channels(sim *s, int deadlocked);
void sim_chans_free(sim_chans *t);
/* A rendezvous under way (when its request must wait for the receiver's core: sim_share_handshake
 * first), or one whose sender has the receiver's reply: its data goes out (engine event). */
void sim_rndv_data(sim *s, uint32_t p);
/* The receiver answers rendezvous p at t: its reply reaches the sender L later. */
void sim_rndv_reply(sim *s, uint32_t p, uint64_t t);
uint32_t sim_pend_take(sim *s);
void sim_pend_give(sim *s, uint32_t p);

/* sim_coll.c */
/* Starts rank's collective (op, comm, root, bytes, rbytes) at time t; returns its request
 * or SIM_NONE (error or mismatch: s->stop / s->rc set). ctx SIM_CTX_COLL with a
 * communicator, SIM_CTX_WIN with a window (fence, window creation and freeing). */
/* rows, nrows: the COLL_PEER rows of a v or w collective (rt_event.h), none when its blocks
 * are equal or the trace does not have them. esize: the data's element size (rt_coll_call.esize), 0
 * unknown. */
uint32_t sim_coll_start(sim *s, uint32_t rank, uint8_t ctx, uint32_t id, const rt_comm_def *c,
                        unsigned op, int32_t root, uint64_t bytes, uint64_t rbytes, uint32_t esize,
                        const rt_event *rows, uint32_t nrows, uint64_t t);
/* The algorithm the engine runs for rank's blocking collective ev (COLL_END): the replay's
 * choice for its op, MPICH's or Open MPI's selection resolved for the call, as the schedule
 * runs it; RT_ALG_COUNT for an inter-communicator. */
unsigned sim_coll_alg(const sim *s, uint32_t rank, const rt_event *ev);
/* Gives back a collective that is done (its schedule stays kept for the rank). */
void sim_coll_release(sim *s, uint32_t coll);
/* The collective's round in progress is done (its last operation known). */
void sim_coll_round_done(sim *s, uint32_t coll);
/* One operation of the collective's round in progress is done at t. */
static inline void sim_coll_op_done(sim *s, uint32_t c, uint64_t t)
{
    sim_coll *co = &s->colls[c];
    if (t > co->round_end)
        co->round_end = t;
    if (--co->pending == 0)
        sim_coll_round_done(s, c);
}

/* Operation completion: tells who (wk: SIM_T_*) that it is done at t. */
static inline void sim_target_done(sim *s, uint8_t wk, uint32_t who, uint64_t t)
{
    if (wk == SIM_T_COLL)
        sim_coll_op_done(s, who, t);
    else
        sim_req_done(s, who, t);
}
/* The collective's next round starts (engine event). */
void sim_coll_advance(sim *s, uint32_t coll);
void sim_coll_free_all(sim *s);
/* Prefetches what the collective's next round will touch: stage 0 its steps, stage 1 the
 * channels of its first operations. */
void sim_coll_prefetch(const sim *s, uint32_t coll, int stage);

/* sim_rma.c */
int sim_rma_event(sim *s, uint32_t rank, const rt_event *ev);

/* sim_share.c: ranks taking turns on the cores of a node (model `cores`, `timeslice`) */
/* Sets up s->share when some node has more ranks than cores, with a note; 0 or -RT_E_NOMEM. */
int sim_share_init(sim *s);
void sim_share_free(sim *s);
/* The first time from t on when rank runs (s->share set). */
uint64_t sim_share_run_from(sim *s, uint32_t rank, uint64_t t);
/* When rank, from t, has run for d more (d 0: sim_share_run_from). */
uint64_t sim_share_advance(sim *s, uint32_t rank, uint64_t t, uint64_t d);
/* Yielding (s->share_yield): rank wants to run at its clock: 1 when it holds a core, 0 when it
 * waits in its group's run queue (it runs again when a core is handed to it). */
int sim_share_take(sim *s, uint32_t rank);
/* rank stops wanting its core at its clock (it waits, or it is done): the run queue's first gets
 * it. */
void sim_share_release(sim *s, uint32_t rank);
/* rank runs for *left more of CPU from its clock: 1 when done (clock moved on, *left 0), 0 when
 * it stopped at the end of its slice (*left what remains; it runs again from there later). */
int sim_share_burn(sim *s, uint32_t rank, uint64_t *left);
/* Recorded sharing, yielding: the CPU rank had in the recorded interval [from, to] ns, ps. */
uint64_t sim_share_recorded_cpu(const sim *s, uint32_t rank, uint64_t from, uint64_t to);
/* Yielding: the rendezvous request p (sim_pend), in at rank at s->now, is answered once rank is on
 * a core: at once when it is or a core is free, else when the run queue hands it one. */
void sim_share_handshake(sim *s, uint32_t rank, uint32_t p);

/* sim_out.c */
int sim_out_init(sim *s);
void sim_out_free(sim *s);
/* Keeps ev (a copy, at t_ps) for the output trace; only when there is one (s->out). */
void sim_out_event(sim *s, uint32_t rank, const rt_event *ev, uint64_t t_ps);
/* The communicator rank of world rank world for an event on ev->comm (or its window). */
int32_t sim_out_peer(const sim *s, const rt_event *ev, uint32_t world);
int sim_out_write(sim *s);

/* sim_fast.c: the collective fast path (its comment says when it applies and why the results
 * are the same) */
/* Fast mode must give up: the run is stopped and done again without it. */
void sim_fast_give_up(sim *s, const char *why);
/* Fast mode: port ps is booked for a message posted at t by the engine event in progress.
 * Two events booking one port at one time would book it in queue order, which the fast path
 * changes: the run gives up. */
static inline void sim_port_booked(sim *s, sim_port *ps, uint64_t t)
{
    if (ps->tie_ev && ps->tie_t == t && ps->tie_ev != (uint32_t)s->evid)
        sim_fast_give_up(s, "two events book one port at one time");
    ps->tie_t = t;
    ps->tie_ev = (uint32_t)s->evid;
}
/* Rank's collective co_i (schedule expanded, nothing posted) on communicator c, instance
 * (key, seq), entered at t. *taken = 1 when the fast path takes it (deferred until its last
 * member comes, or computed now, or the run gave up: s->stop), 0 when it runs the usual way.
 * Returns 0, or -RT_E_NOMEM (s->rc set). first and last: the rank is the instance's first or
 * last to come. */
int sim_fast_join(sim *s, uint32_t co_i, const rt_comm_def *c, uint64_t key, uint32_t seq,
                  int first, int last, uint64_t t, int *taken);
void sim_fast_free(sim *s);
/* The reduction time of n bytes of e elements: the last one's is kept, rounds repeat sizes. */
static inline uint64_t sim_reduce_time(sim *s, uint64_t n, uint64_t e)
{
    if (n != s->reduce_n || e != s->reduce_e) {
        s->reduce_n = n;
        s->reduce_e = e;
        s->reduce_ps = rt_net_reduce_ps(&s->cfg->model, n, e);
    }
    return s->reduce_ps;
}

/* sim_hang.c: what a run that cannot go on reports (docs/replay.md) */
/* 1 when the pending call of re waits for an operation the replay posts; 0 when it is
 * blocked in something the event model does not describe (a PENDING with nothing after it). */
int sim_pending_waits(const sim_rank_events *re);
/* The report of a run that did not complete: every rank that did not finish, the call it is
 * in and what that call waits for, the wait-for cycle, unfinished collectives, the time of
 * the hang; then the unmatched operations (sim_report_channels). 0, or -RT_E_NOMEM. */
int sim_hang_report(sim *s);
/* A cycle in a wait-for graph of n nodes, its edges given by source: those of node i are
 * to[off[i]] .. to[off[i + 1] - 1]. The first cycle a depth-first search finds, from the
 * lowest node and trying edges in order; written to cyc as edge indices, starting at the
 * edge out of the cycle's lowest node. Returns its length (0: no cycle). scratch holds 4 n
 * entries, cyc n. */
uint32_t sim_cycle_find(uint32_t n, const uint32_t *off, const uint32_t *to, uint32_t *scratch,
                        uint32_t *cyc);

/* sim_load.c */
void sim_trace_note(rt_sim_trace *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif /* RT__SIM_H */
