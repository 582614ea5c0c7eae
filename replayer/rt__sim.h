/*
 * Internals of the built-in MPI engine (rt_sim.h), shared by the replayer/sim_*.c files.
 *
 * The engine in one paragraph: every rank walks its recorded events. Computation is the
 * recorded gap between leaving one call and entering the next. Operations (sends, receives,
 * collective steps, RMA transfers) are posted at the rank's simulated clock; each gets a
 * request whose completion time becomes known when the operation is matched (all of a
 * message's timing follows from the model at that moment), so messages need no engine
 * events of their own. A call ends when the requests it waits for are done; a rank that
 * waits for unknown completions blocks and is woken when the last one becomes known. The
 * heap orders ranks and collective rounds by (time, sequence); a rank whose clock passes
 * the earliest pending engine event yields, so operations are posted in time order.
 */
#ifndef RT__SIM_H
#define RT__SIM_H

#include <stdio.h>

#include "rt_sim.h"

#define SIM_NEVER UINT64_MAX
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

/* ---- the loaded trace ----------------------------------------------------------------------- */

typedef struct sim_rank_events {
    rt_event *ev;
    uint32_t n, cap;
    uint32_t nslots; /* request slots the rank needs at most at once */
} sim_rank_events;

struct rt_sim_trace {
    rt_defs defs;
    sim_rank_events *ranks;
    uint64_t nevents;
    uint64_t t_first, t_last; /* ns */
    char *notes;
    size_t notes_len, notes_cap;
};

/* ---- a hash map from a pair of keys to a value ------------------------------------------------ */

typedef struct sim_map_slot {
    uint64_t k1, k2, v; /* k1 == SIM_MAP_EMPTY: free */
} sim_map_slot;

#define SIM_MAP_EMPTY UINT64_MAX

typedef struct sim_map {
    sim_map_slot *slots;
    size_t cap, n; /* cap a power of two */
} sim_map;

void sim_map_free(sim_map *m);
uint64_t *sim_map_get(const sim_map *m, uint64_t k1, uint64_t k2);
/* The value slot for the key, created (value 0, *created = 1) when absent; NULL: no memory. */
uint64_t *sim_map_put(sim_map *m, uint64_t k1, uint64_t k2, int *created);
void sim_map_del(sim_map *m, uint64_t k1, uint64_t k2);

/* ---- engine objects ----------------------------------------------------------------------- */

/* Who is told when a request's completion time becomes known. */
enum { SIM_W_NONE, SIM_W_RANK, SIM_W_COLL, SIM_W_DROP };

typedef struct sim_req {
    uint64_t done; /* SIM_NEVER until known */
    uint32_t waiter;
    uint8_t wkind;
    uint32_t next_free;
} sim_req;

/* Matching contexts: application point-to-point, collective schedules, window
 * synchronisation. Part of every channel key, so they never match each other. */
enum { SIM_CTX_P2P = 1, SIM_CTX_COLL, SIM_CTX_WIN, SIM_CTX_POST, SIM_CTX_DONE };

/* A posted send or receive waiting in a channel for its partner. */
typedef struct sim_pend {
    uint64_t time;    /* posted */
    uint64_t arrival; /* send: eager data, or rendezvous request, at the receiver */
    uint64_t bytes;
    uint32_t next;
    uint32_t req;
    uint32_t req2; /* rendezvous under way: the receive's request (req: the send's) */
    uint32_t rank; /* the rank that posted it (world) */
    uint32_t peer; /* the other side as posted (world rank) */
    uint32_t tag;
    uint8_t send, eager, ct, flags;
} sim_pend;

typedef struct sim_coll {
    rt_coll_step *steps;
    uint32_t nsteps, cap;
    uint32_t cur;     /* first step of the round in progress */
    uint32_t pending; /* its operations not done yet */
    uint64_t round_end;
    uint64_t reduce_ps; /* reductions of the round in progress */
    uint64_t key;  /* channel comm key: context and communicator or window */
    uint32_t tag;  /* the instance's sequence number on its communicator */
    uint32_t rank; /* world rank */
    uint32_t req;  /* done when the whole schedule is */
    uint32_t next_free;
    const uint32_t *members; /* communicator rank -> world rank */
    uint32_t first;          /* first step of the round in progress (output trace) */
    uint16_t call;           /* the MPI function (output trace) */
    uint8_t op;
} sim_coll;

enum { SIM_RANK_READY, SIM_RANK_BLOCKED, SIM_RANK_DONE };

typedef struct sim_rank {
    uint64_t clock;      /* ps */
    uint64_t call_start; /* clock when the current call was entered */
    uint64_t wait_until; /* latest known completion the current call waits for */
    uint64_t port_free;  /* injection port */
    uint64_t eject_free; /* ejection port (contention) */
    uint64_t mpi_ps, compute_ps;
    uint64_t last_rec; /* recorded ns of the last LEAVE: computation is measured from it */
    uint32_t pc;       /* next event */
    uint32_t waiting;  /* completions the current call waits for that are not known yet */
    uint32_t slot_base;
    uint16_t call;
    uint8_t state, in_call;
} sim_rank;

enum { SIM_H_RANK, SIM_H_COLL, SIM_H_RNDV };

typedef struct sim_heap_ent {
    uint64_t time, seq;
    const void *hint; /* memory the entry will touch first (prefetched) */
    uint32_t idx;
    uint8_t kind;
} sim_heap_ent;

typedef struct sim_buf {
    char *s;
    size_t len, cap;
    unsigned lines;
} sim_buf;

typedef struct sim {
    const rt_sim_trace *t;
    const rt_defs *defs;
    const rt_sim_config *cfg;
    const uint32_t *node, *module;
    uint32_t nranks;
    sim_rank *ranks;
    uint32_t *slots; /* request slots of all ranks: ranks[r].slot_base + slot -> req */

    sim_heap_ent *heap;
    size_t nheap, heap_cap;
    uint64_t seq;
    uint64_t now;

    sim_req *reqs;
    uint32_t nreqs, reqs_cap, req_free;
    sim_pend *pends;
    uint32_t npends, pends_cap, pend_free;
    sim_coll *colls;
    uint32_t ncolls, colls_cap, coll_free;

    sim_map chans;    /* (context|dst|src, comm key|tag) -> head | tail << 32 */
    sim_map collseq;  /* (rank, comm key) -> next collective sequence number */
    sim_map collchk;  /* (comm key, seq) -> op | root << 8 | arrived << 32 */
    sim_map rma_done; /* (rank << 32 | window, target or SIM_NONE) -> latest completion */
    sim_map locks;    /* (window, target) -> lock state index */
    sim_map members;  /* (comm key, 0) -> cached communicator -> world rank array */

    uint64_t *gw_free; /* per gateway, contention */
    struct sim_lock *lockv;
    uint32_t nlocks, locks_cap;
    uint32_t unscheduled[RT_COLL_COUNT], approx[RT_COLL_COUNT]; /* notes given once */

    sim_rank_events *out; /* --out-trace: the simulated events per rank */
    rt_sim_result *res;
    sim_buf report, notes;
    int stop; /* a mismatch ended the replay */
    int rc;   /* first hard error (no memory) */
    rt_err *err;
} sim;

/* sim_core.c */
int sim_heap_push(sim *s, uint64_t time, uint8_t kind, uint32_t idx);
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
void sim_buf_printf(sim_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* sim_p2p.c: matching, protocols and message timing */
unsigned sim_contype(const sim *s, uint32_t a, uint32_t b);
/* Posts a send or a receive at time t in channel (ctx, comm key, tag) between world ranks
 * src and dst; the returned request is done when the operation is. SIM_NONE: no memory. */
uint32_t sim_post_send(sim *s, uint8_t ctx, uint64_t comm, uint32_t tag, uint32_t src,
                       uint32_t dst, uint64_t bytes, uint64_t t);
uint32_t sim_post_recv(sim *s, uint8_t ctx, uint64_t comm, uint32_t tag, uint32_t dst,
                       uint32_t src, uint64_t bytes, uint64_t t, uint8_t flags);
/* One-sided transfer from origin to target posted at t: when the data is at the target
 * (put, accumulate) or back at the origin (get, fetching atomics). */
uint64_t sim_rma_transfer(sim *s, uint32_t origin, uint32_t target, uint64_t to_target,
                          uint64_t from_target, uint64_t t);
void sim_report_channels(sim *s, int deadlocked);
/* A rendezvous whose sender has the receiver's reply (heap event at that time). */
void sim_rndv_data(sim *s, uint32_t p);
uint32_t sim_pend_take(sim *s);
void sim_pend_give(sim *s, uint32_t p);

/* sim_coll.c */
/* Starts rank's collective (op, comm, root, bytes, rbytes) at time t; returns its request
 * or SIM_NONE (error or mismatch: s->stop / s->rc set). ctx SIM_CTX_COLL with a
 * communicator, SIM_CTX_WIN with a window (fence, window creation and freeing). */
uint32_t sim_coll_start(sim *s, uint32_t rank, uint8_t ctx, uint32_t id, const rt_comm_def *c,
                        unsigned op, int32_t root, uint64_t bytes, uint64_t rbytes,
                        uint64_t t);
void sim_coll_notify(sim *s, uint32_t coll);
void sim_coll_advance(sim *s, uint32_t coll);
void sim_coll_free_all(sim *s);

/* sim_rma.c */
int sim_rma_event(sim *s, uint32_t rank, const rt_event *ev);

/* sim_out.c */
int sim_out_init(sim *s);
void sim_out_free(sim *s);
/* Keeps ev (a copy, at t_ps) for the output trace; only when there is one (s->out). */
void sim_out_event(sim *s, uint32_t rank, const rt_event *ev, uint64_t t_ps);
/* The communicator rank of world rank world for an event on ev->comm (or its window). */
int32_t sim_out_peer(const sim *s, const rt_event *ev, uint32_t world);
int sim_out_write(sim *s);

/* sim_load.c */
void sim_trace_note(rt_sim_trace *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif /* RT__SIM_H */
