/*
 * Internals of the tracer, shared by its files. Nothing here is exported from the shared
 * library: it is built with -fvisibility=hidden and only the MPI_* wrappers are visible.
 *
 * The call path: rt__wanted (one relaxed atomic load of the phase; rt__wrap.h jumps to PMPI
 * when it says no), rt__enter (thread-local re-entry check, a clock read), the hooks of the
 * wrapper table append fixed-size records to the thread's scratch area, rt__end copies the
 * call's records into the thread's buffer and publishes its new length (one release store: a
 * plain store on x86). No formatting, no locks (except the request table's shard locks under
 * MPI_THREAD_MULTIPLE), no system calls but the write of a full buffer; the flusher thread
 * (flush.c) writes the rest.
 */
#ifndef RT__TRACER_H
#define RT__TRACER_H

#include <mpi.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#if defined(__x86_64__)
#include <x86intrin.h>
#endif

#include "rt_event.h"
#include "rt_hist.h"
#include "rt_raw.h"

#define RT__HIDDEN __attribute__((visibility("hidden")))
#define RT__TLS __thread __attribute__((tls_model("initial-exec")))
#define RT__LIKELY(x) __builtin_expect(!!(x), 1)
#define RT__UNLIKELY(x) __builtin_expect(!!(x), 0)

/* ---- global state (state.c) ------------------------------------------------------------ */

typedef struct rt__state {
    atomic_int phase; /* 1 while recording: between MPI_Init and MPI_Finalize */
    int tracing;      /* writing raw records */
    int histogram;    /* counting sent messages into the live histogram */
    int hist_report;  /* rank 0 asked for the histogram: every rank joins its reduction */
    int need_contype; /* histogram filter needs the connection type */
    uint8_t hist_fn[RT_FN_COUNT]; /* histogram-only mode: the calls that still need a hook */
    int mt;                       /* MPI_THREAD_MULTIPLE: the request table locks its shards */
    MPI_Comm tool;                /* PMPI duplicate of MPI_COMM_WORLD: all tool traffic */
    int rank, nranks;
    uint32_t node, module;
    uint32_t *node_of, *module_of; /* per world rank */
    int tsc;                       /* the clock is the time-stamp counter (clock.c) */
    int status_direct;             /* statuses read without PMPI (rt__status_bytes) */
    uint64_t origin;               /* the clock (rt__ticks) at time 0 */
    uint64_t origin_mono;          /* CLOCK_MONOTONIC ns at time 0 */
    uint64_t origin_realtime;
    char library[RT_RAW_LIBRARY_LEN]; /* the MPI library, "MPICH 4.0.2" (rt_raw_header) */
    rt_hist_config hist_cfg;
    char out[4096];     /* archive directory */
    char raw[4096 + 8]; /* raw directory: out + ".raw" */
    atomic_uint nthreads;
} rt__state;

extern rt__state rt__g RT__HIDDEN;

/* Turns tracing off for this rank after an internal failure; the first call warns. */
void rt__fail(const char *fmt, ...) RT__HIDDEN __attribute__((format(printf, 1, 2)));
void rt__warn(const char *fmt, ...) RT__HIDDEN __attribute__((format(printf, 1, 2)));

void rt__init_after(int thread_level) RT__HIDDEN; /* after PMPI_Init[_thread] returned */
void rt__finalize_before(void) RT__HIDDEN;        /* before PMPI_Finalize */
void rt__abort_before(void) RT__HIDDEN;           /* before PMPI_Abort */

/* ---- parts switched off, in the bench build only (cost.c) -------------------------------- */

/* libretrace-cost.so (-DRETRACE_TRACER_COST=ON) reads RETRACE_COST_OFF at MPI_Init and leaves
 * out the parts it names, so that bench/tracer_components.sh can measure what each costs. In
 * the shipped libraries RT__COST_OFF is the constant 0: nothing of it is on their call path. */
#ifdef RT__COST
enum {
    RT__COST_CLOCK = 1,
    RT__COST_REQUESTS = 2,
    RT__COST_ENCODE = 4,
    RT__COST_BUFFER = 8,
    RT__COST_WRITE = 16
};
extern unsigned rt__cost_off RT__HIDDEN;
extern volatile uint64_t rt__cost_sink RT__HIDDEN; /* a clock read kept without its record */
void rt__cost_init(void) RT__HIDDEN;
#define RT__COST_OFF(part) RT__UNLIKELY(rt__cost_off &RT__COST_##part)
#else
#define RT__COST_OFF(part) 0
#endif

/* ---- the clock (clock.c) ---------------------------------------------------------------- */

static inline uint64_t rt__mono(void) /* CLOCK_MONOTONIC in ns */
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The clock of the records: the time-stamp counter's ticks (rt__g.tsc), else rt__mono. rdtsc,
 * not rdtscp: its reordering with the instructions around it moves a time by a few ns, far
 * below the cost of any MPI call, and waiting for them would cost more than the read. */
static inline uint64_t rt__ticks(void)
{
#if defined(__x86_64__)
    if (RT__LIKELY(rt__g.tsc))
        return __rdtsc();
#endif
    return rt__mono();
}

/* At MPI_Init: chooses the clock (RETRACE_CLOCK, the kernel's word) and, for the counter, takes
 * the first calibration sample; then, at time 0, sets rt__g.origin and origin_mono. */
void rt__clock_start(void) RT__HIDDEN;
void rt__clock_origin(void) RT__HIDDEN;
/* The counter: a new calibration sample, written in place into the definitions file. Does
 * nothing for CLOCK_MONOTONIC. Async-signal-safe. */
void rt__clock_calibrate(void) RT__HIDDEN;
/* The CLOCK definition as it stands (the definitions file's first record). */
void rt__clock_def(rt_raw_def_clock *d) RT__HIDDEN;
/* A span of the clock in ns, by the latest calibration (the tracer's own estimates only). */
uint64_t rt__ticks_ns(uint64_t ticks) RT__HIDDEN;

/* The clock since time 0. */
static inline uint64_t rt__now(void)
{
    if (RT__COST_OFF(CLOCK))
        return 0;
    uint64_t t = rt__ticks();
    return t > rt__g.origin ? t - rt__g.origin : 0;
}

/* ---- per-thread state (stream.c) --------------------------------------------------------- */

#define RT__SCRATCH_INLINE 4096 /* bytes of records one call keeps without allocating */

/* What the tracer knows of a pending request (requests.c keeps them by handle). */
typedef enum rt__req_kind {
    RT__RQ_SEND = 1, /* ISEND: completion gives ISEND_COMPLETE */
    RT__RQ_RECV,     /* IRECV_REQUEST: completion gives IRECV from the status */
    RT__RQ_COLL,     /* NBC_REQUEST: completion gives NBC_COMPLETE */
    RT__RQ_RMA,      /* R-form RMA: completion gives RMA_OP_COMPLETE */
    RT__RQ_NONE      /* known but records nothing on completion (e.g. MPI_PROC_NULL) */
} rt__req_kind;

/* The COLL_PEER rows of a nonblocking v or w collective whose blocks differ (rt_event.h), kept
 * on the heap from its start to its completion, which writes and frees them; a persistent
 * one's from its init call to MPI_Request_free (each completion writes them). */
typedef struct rt__rows {
    uint32_t n;
    rt_raw_coll row[];
} rt__rows;

typedef struct rt__req {
    uint64_t id;      /* request id of the current activation */
    uint64_t send_id; /* Isendrecv: its send half's ISEND id, completed with it (0: none);
                       * peer, tag and bytes then hold the receive half as posted */
    uint64_t bytes, rbytes;
    uint32_t comm;     /* local communicator or window id */
    int32_t peer, tag; /* a receive: source and tag as posted */
    uint8_t kind;      /* rt__req_kind */
    uint8_t op;        /* collective op; a message's rt_recv_flag bits (receive wildcards) */
    uint8_t persistent;
    uint8_t active;             /* persistent: started and not yet completed */
    uint8_t part;               /* partitioned (Psend_init, Precv_init): see wrap_p2p.c */
    uint8_t arrived;            /* partitioned receive: its IRECV went at a Parrived */
    uint8_t esize, resize;      /* element size codes (rt_esize_code) of bytes and rbytes */
    uint32_t parts, parts_left; /* partitioned send: partitions, those not yet ready */
    const struct rt__comm *cm;  /* the communicator of a receive (never freed while tracing) */
    rt__rows *rows;             /* a collective's rows, or NULL: its blocks are equal */
} rt__req;

#define RT__INLINE_REQS 16 /* requests a completion call follows without allocating */

/*
 * The call a thread is in, for the trailer of its file (rt_raw.h: a run that dies with a
 * thread blocked in MPI_Recv has that Recv in its trace). Only the calls that can wait for
 * another rank (RT__CAN_BLOCK below) publish it: their pre hooks leave what the call waits
 * for where a reader finds it, then the wrapper makes seq odd, and even again as soon as
 * PMPI returned, before the call's records are committed. Nothing is converted on the call
 * path; the reader does that (rt__pending_ops), from
 *  - the records the pre hook wrote to the thread's scratch area: a send's SEND, and the
 *    collectives' and RMA synchronisations' records, whose hooks run before PMPI for this
 *    (RT__BEFORE);
 *  - a receive or probe as posted (recv_cm, recv_peer, recv_tag);
 *  - a wait's requests: the records it claimed from the request table before the call
 *    (rt__req_claim), which req_save puts in claimed, so a reader never looks into the
 *    table. A wait over more than RT__INLINE_REQS requests shows the first of them.
 * Seqlock: the owner writes all this only while seq is even; a reader (the flusher thread,
 * or a signal handler, on this thread or another) takes a copy and keeps it only when seq
 * was odd before and unchanged after (rt__pending_copy). Whatever the owner does meanwhile,
 * the copy reads only memory that stays valid: this struct and the inline scratch area live
 * in the rt__thread, never freed while tracing, and a scratch area on the heap is not read.
 */
typedef struct rt__pending {
    _Atomic unsigned seq; /* odd while the thread is in the call below */
    unsigned fn;
    uint64_t t0;
    /* Only those of the call fn fills hold its values (rt__pending_ops asks fn): */
    const struct rt__comm *recv_cm; /* a receive or probe: its communicator */
    int32_t recv_peer, recv_tag;    /* its source and tag as posted (MPI's wildcards) */
    unsigned nwait;                 /* a wait: its requests */
    rt__req claimed[RT__INLINE_REQS];
} rt__pending;

/* A reader's copy of a thread's pending call (rt__pending_copy), taken under the buffer's
 * lock into the thread's own rt__thread, so that a signal handler on a small alternate stack
 * needs no room for it. */
#define RT__PENDING_SCRATCH 256 /* bytes of the pre hook's records looked at */
typedef struct rt__pending_snap {
    unsigned seq, fn, nwait;
    uint64_t t0;
    const struct rt__comm *recv_cm;
    int32_t recv_peer, recv_tag;
    rt__req claimed[RT__INLINE_REQS];
    size_t nscratch;
    uint8_t scratch[RT__PENDING_SCRATCH];
    rt_raw_event ops[RT_RAW_PENDING_MAX_OPS]; /* rt__pending_ops */
} rt__pending_snap;

/*
 * A thread's records go to its buffer; bytes [0, committed) of the buffer hold whole calls
 * (published with a release store after each call), of which [0, written) are in the file
 * already, at file_off onwards. Three parties write the buffer out (flush.c): the owner when
 * it is full, the flusher thread every RT__FLUSH_PERIOD_NS, and the crash paths (a signal,
 * MPI_Abort, exit without MPI_Finalize). They take turns through lock, an atomic word that
 * holds the taker's id (rt__lock_id): the owner takes it only to write a full buffer and
 * start it again, never on the common path of a call.
 */
typedef struct rt__thread {
    int depth;                /* re-entry: 1 inside a wrapper */
    uint32_t index;           /* thread number within the rank */
    int fd;                   /* raw file, -1 when not writing */
    uint8_t *buf, *pos, *end; /* the record buffer and the write position in it */
    _Atomic size_t committed; /* bytes of buf holding whole calls */
    size_t written;           /* bytes of buf in the file (under lock) */
    uint64_t file_off;        /* where buf[0] goes in the file (under lock) */
    _Atomic uintptr_t lock;   /* 0, or who writes or restarts the buffer */
    uint8_t *scratch;         /* this call's records */
    size_t scratch_len, scratch_cap;
    uint8_t scratch_inline[RT__SCRATCH_INLINE];
    rt_hist hist;            /* live histogram counts of this thread */
    rt__pending pending;     /* the call it is in (seqlock, above) */
    uint64_t trailer_off;    /* where the trailer starts in the file (under lock) */
    size_t trailer_len;      /* its bytes, 0: none */
    unsigned trailer_seq;    /* pending.seq of the call it describes */
    rt__pending_snap snap;   /* a reader's copy of pending (under lock) */
    struct rt__thread *next; /* registry (rt__threads_first), never changed once in it */
} rt__thread;

extern RT__TLS rt__thread *rt__self RT__HIDDEN;

rt__thread *rt__thread_create(void) RT__HIDDEN;
/* The first thread of the registry (acquire load; async-signal-safe). */
rt__thread *rt__threads_first(void) RT__HIDDEN;
/* Finishes every thread's raw file with a CLOSE record (MPI_Finalize). */
void rt__threads_close(uint64_t time) RT__HIDDEN;
/* Sum of every thread's histogram counts into h. */
void rt__threads_hist(rt_hist *h) RT__HIDDEN;
/* Opens the raw file of a thread (tracing must be on). 0, or -RT_E_NOMEM or -RT_E_IO (tracing
 * turned off). */
int rt__stream_open(rt__thread *t) RT__HIDDEN;
/* The header every raw file of this rank starts with. */
void rt__raw_header(rt_raw_header *h, uint32_t thread) RT__HIDDEN;
void *rt__scratch_grow(rt__thread *t, size_t len) RT__HIDDEN;

/* The buffer's lock (stream.c). Everything here is async-signal-safe. */
uintptr_t rt__lock_id(void) RT__HIDDEN;        /* this thread's id as a holder: never 0 */
int rt__buf_trylock(rt__thread *t) RT__HIDDEN; /* 1 when taken */
void rt__buf_unlock(rt__thread *t) RT__HIDDEN;
/* Under the lock: writes buf[written, committed) at its place in the file. 0, or -RT_E_IO
 * with errno set (the caller reports it, if it may). */
int rt__buf_write_committed(rt__thread *t) RT__HIDDEN;
/* Warns that a write of t's file failed (errno value err) and turns tracing off. */
void rt__stream_write_failed(rt__thread *t, int err) RT__HIDDEN;

/* ---- surviving a run that dies (flush.c) --------------------------------------------------- */

/* How often the flusher thread writes every thread's committed records. */
#define RT__FLUSH_PERIOD_NS UINT64_C(50000000)
/* At MPI_Init, once tracing: the flusher thread, the signal handlers, the exit handler. */
void rt__crash_start(void) RT__HIDDEN;
/* At MPI_Finalize, before the files are closed: stops the flusher, puts the application's
 * signal actions back. */
void rt__crash_stop(void) RT__HIDDEN;
/* Writes every thread's committed records (MPI_Abort, exit without MPI_Finalize). */
void rt__crash_flush_all(void) RT__HIDDEN;

static inline rt__thread *rt__thread_get(void)
{
    rt__thread *t = rt__self;
    return RT__LIKELY(t != NULL) ? t : rt__thread_create();
}

/* ---- identifiers (tables.c) ------------------------------------------------------------ */

/* A communicator the application may use. World ranks of its members: group a (local), then
 * group b (remote) of an inter-communicator; NULL members means "world rank = rank". */
typedef struct rt__comm {
    uint32_t id; /* local id */
    uint32_t size, remote_size;
    int inter;
    uint32_t *members;
    atomic_uint seq;       /* creating calls made on it so far */
    atomic_int topo_ready; /* 1 once the degrees below are known (rt__comm_degrees) */
    uint32_t topo_indeg, topo_outdeg;
} rt__comm;

typedef struct rt__win {
    uint32_t id;
    rt__comm *comm;
    uint32_t start_group, post_group; /* local group ids of the open PSCW epochs */
} rt__win;

void rt__tables_init(void) RT__HIDDEN;
int rt__defs_open(void) RT__HIDDEN; /* the rank's raw defs file; 0, or -RT_E_IO: tracing off */
void rt__defs_close(void) RT__HIDDEN;
/* Writes one DEF record of kind what (rt_raw_def_kind) to the rank's defs file. */
void rt__def_write(unsigned what, const void *payload, size_t len) RT__HIDDEN;
/* This rank's real host (host.c), into the defs file at MPI_Init. */
void rt__host_write(void) RT__HIDDEN;
/* Writes the CLOCK definition again over the first (async-signal-safe). */
void rt__defs_clock_write(const rt_raw_def_clock *d) RT__HIDDEN;
void rt__tables_free(void) RT__HIDDEN;
extern rt__comm rt__comm_world RT__HIDDEN;
rt__comm *rt__comm_lookup(MPI_Comm comm) RT__HIDDEN; /* NULL when unknown */
/* The communicator the tracer knows as comm, NULL when unknown. MPI_COMM_WORLD inline: the one
 * programs use most, without a call. */
static inline rt__comm *rt__comm_get(MPI_Comm comm)
{
    return comm == MPI_COMM_WORLD ? &rt__comm_world : rt__comm_lookup(comm);
}
/* Defines a communicator the application just got (writes the DEF record). */
rt__comm *rt__comm_new(MPI_Comm comm, rt__comm *parent, unsigned how, uint32_t seq,
                       int tag) RT__HIDDEN;
/* The same for a duplicate: members copied from the parent (Comm_idup's result may not be
 * queried before it completes). */
rt__comm *rt__comm_new_like(MPI_Comm comm, rt__comm *parent, unsigned how, uint32_t seq) RT__HIDDEN;
void rt__comm_forget(MPI_Comm comm) RT__HIDDEN;
/* Group handles the program holds (groups.c; HANDLE events, rt_event.h): made returns the id of
 * the handle just given to the program, freed that of the handle just freed, both 0 when it
 * is not followed (MPI_GROUP_EMPTY, a free of a handle not seen made, no memory). */
uint64_t rt__group_made(MPI_Group group) RT__HIDDEN;
uint64_t rt__group_freed(MPI_Group group) RT__HIDDEN;
void rt__groups_free(void) RT__HIDDEN;
rt__win *rt__win_get(MPI_Win win) RT__HIDDEN;
/* disp_unit: this rank's, as the creating call gave it (0 when it does not fit 32 bits). */
rt__win *rt__win_new(MPI_Win win, rt__comm *comm, uint32_t seq, uint32_t disp_unit) RT__HIDDEN;
void rt__win_forget(MPI_Win win) RT__HIDDEN;
/* Local group id for an MPI group (defined once per distinct member list). */
uint32_t rt__group_id(MPI_Group group) RT__HIDDEN;
/* In- and out-degree of comm's process topology (0 and 0 without one), found at the first
 * call and then kept; the first call also writes this rank's neighbour lists as a DEF
 * record (topology.c). */
void rt__comm_degrees(MPI_Comm comm, rt__comm *cm, uint64_t *in, uint64_t *out) RT__HIDDEN;

/* World rank of peer (a rank in comm, of the remote group for inter-communicators). */
static inline uint32_t rt__world(const rt__comm *cm, int peer)
{
    if (!cm->members)
        return (uint32_t)peer;
    return cm->members[(cm->inter ? cm->size : 0) + (uint32_t)peer];
}

static inline uint8_t rt__contype_world(uint32_t w)
{
    if (w == (uint32_t)rt__g.rank)
        return RT_CT_LOOP;
    if (w >= (uint32_t)rt__g.nranks)
        return RT_CT_NONE;
    if (rt__g.node_of[w] == rt__g.node)
        return RT_CT_SHM;
    return rt__g.module_of[w] == rt__g.module ? RT_CT_NET : RT_CT_GW;
}

static inline uint8_t rt__contype(const rt__comm *cm, int peer)
{
    if (!cm || peer < 0)
        return RT_CT_NONE;
    return rt__contype_world(rt__world(cm, peer));
}

/* ---- requests (requests.c) ---------------------------------------------------------------- */

void rt__requests_init(void) RT__HIDDEN;
void rt__requests_free(void) RT__HIDDEN;
extern atomic_uint_fast64_t rt__req_ids RT__HIDDEN; /* the next request id (requests.c) */
/* A new request id. Inline: every nonblocking call takes one. */
static inline uint64_t rt__req_next_id(void)
{
    if (rt__g.mt)
        return atomic_fetch_add_explicit(&rt__req_ids, 1, memory_order_relaxed);
    uint64_t id = atomic_load_explicit(&rt__req_ids, memory_order_relaxed);
    atomic_store_explicit(&rt__req_ids, id + 1, memory_order_relaxed);
    return id;
}
uint64_t rt__req_last_id(void) RT__HIDDEN; /* the last id given so far (0: none) */
/* A new entry for handle, to be filled in whole where it is (no record built and copied: a
 * nonblocking call's hot path) and then closed by rt__req_added; NULL for MPI_REQUEST_NULL or
 * when the table could not grow (rt__fail said so), with nothing to close. Under
 * MPI_THREAD_MULTIPLE the entry's shard stays locked until rt__req_added. */
rt__req *rt__req_add(MPI_Request handle) RT__HIDDEN;
void rt__req_unlock(MPI_Request handle) RT__HIDDEN;
static inline void rt__req_added(MPI_Request handle)
{
    if (rt__g.mt)
        rt__req_unlock(handle);
}
/* rt__req_add with a copy of info. */
void rt__req_put(MPI_Request handle, const rt__req *info) RT__HIDDEN;
/*
 * Completion calls claim their requests before PMPI completes them: once MPI has completed
 * a request its handle may be reused by another thread at once, so the record must already
 * be out of the table. claim copies the record into *out (1 when found) and removes it
 * unless it is persistent; unclaim puts back one that did not complete; done marks a
 * completed persistent request inactive; drop forgets a request (MPI_Request_free).
 */
int rt__req_claim(MPI_Request handle, rt__req *out) RT__HIDDEN;
void rt__req_unclaim(MPI_Request handle, const rt__req *q) RT__HIDDEN;
void rt__req_done(MPI_Request handle) RT__HIDDEN;
/* 1 and the id of the request's current activation in *id when the table knew it. */
int rt__req_drop(MPI_Request handle, uint64_t *id) RT__HIDDEN;
/* A persistent request's start (MPI_Start): 1 when found inactive, its record updated in place
 * (a new activation: new id, active) and copied into *out; 2 when found active, nothing changed
 * and its record in *out (a restart, rt_event.h's restart_active); 0 when not a persistent
 * request the table knows. restart starts a request found active anyway (an MPI accepted the
 * restart): 1 when found. */
int rt__req_start(MPI_Request handle, rt__req *out) RT__HIDDEN;
int rt__req_restart(MPI_Request handle, rt__req *out) RT__HIDDEN;
/* A copy of the request's record, the table unchanged: 1 when found. */
int rt__req_peek(MPI_Request handle, rt__req *out) RT__HIDDEN;
/* The record of handle from now on that of to (an MPI gave the request a new handle): 1 when
 * found. */
int rt__req_move(MPI_Request handle, MPI_Request to) RT__HIDDEN;
/* Partitioned requests (wrap_p2p.c says what they record). pready: n more partitions of an
 * active send are ready; 1, with its record in *out, when that makes the last one ready.
 * parrived: an active receive seen arrived for the first time in this activation; 1, with its
 * record in *out, and the record remembers it (arrived). */
int rt__req_pready(MPI_Request handle, uint64_t n, rt__req *out) RT__HIDDEN;
int rt__req_parrived(MPI_Request handle, rt__req *out) RT__HIDDEN;

/* ---- one intercepted call ---------------------------------------------------------------- */

typedef struct rt__call {
    int on; /* this call is recorded */
    int rc; /* what PMPI returned */
    unsigned fn;
    uint64_t t0;
    rt__thread *t;
    MPI_Status st;           /* stands in for MPI_STATUS_IGNORE */
    MPI_Status *stv;         /* stands in for MPI_STATUSES_IGNORE (heap) */
    MPI_Request *reqs;       /* copies of request handles before a completion call */
    struct rt__req *claimed; /* their records, claimed from the table (kind 0: unknown): the
                              * thread's pending.claimed for up to RT__INLINE_REQS */
    MPI_Request reqs_inline[RT__INLINE_REQS];
    MPI_Status stv_inline[RT__INLINE_REQS];
    void *heap; /* freed by rt__end */
    void *heap2;
    uint64_t aux; /* hook scratch */
    /* The live histogram's bins this call counted a message in (rt__hist_send), so that a
     * call that fails takes them back (rt__call_failed): the first RT__INLINE_REQS of them. */
    uint8_t hist_n;
    uint8_t hist_bin[RT__INLINE_REQS];
} rt__call;

/* Whether a call is followed at all: between MPI_Init and MPI_Finalize, and tracing, or a call
 * the histogram-only mode still has a hook for. */
static inline int rt__wanted(unsigned fn)
{
    return atomic_load_explicit(&rt__g.phase, memory_order_relaxed) &&
           (rt__g.tracing || rt__g.hist_fn[fn]);
}

/* A call not (or not yet) recorded: what rt__end and the IGNORE substitutes look at. */
static inline void rt__call_clear(rt__call *c)
{
    c->on = 0;
    c->stv = NULL;
    c->heap = c->heap2 = NULL;
}

/* Enters a call rt__wanted said yes to: 1 when it is recorded (c->on), 0 for a call made from
 * inside the tracer (or on a thread it has no memory for), which runs untraced. */
__attribute__((always_inline)) static inline int rt__enter(rt__call *c, unsigned fn)
{
    rt__call_clear(c);
    rt__thread *t = rt__thread_get();
    if (RT__UNLIKELY(!t || t->depth))
        return 0;
    t->depth = 1;
    t->scratch_len = 0;
    c->t = t;
    c->fn = fn;
    c->t0 = 0;
    c->hist_n = 0;
    if (rt__g.tracing)
        c->t0 = rt__now();
    c->on = 1;
    return 1;
}

static inline int rt__begin(rt__call *c, unsigned fn)
{
    if (rt__wanted(fn))
        return rt__enter(c, fn);
    rt__call_clear(c);
    return 0;
}

/* Writes the call's records (CALL first) to the thread's buffer and leaves the wrapper. */
void rt__end(rt__call *c) RT__HIDDEN;

/* Room for len bytes of records in this call's scratch area. */
static inline void *rt__rec(rt__call *c, size_t len)
{
    rt__thread *t = c->t;
    if (RT__UNLIKELY(t->scratch_len + len > t->scratch_cap))
        return rt__scratch_grow(t, len);
    void *p = t->scratch + t->scratch_len;
    t->scratch_len += len;
    return p;
}

/* The COLL record written, for a caller that fills in more (a fence's assert, in pad; element
 * sizes in at and pad) before its call ends; NULL when not tracing. Inline: every blocking
 * collective writes one. */
static inline rt_raw_coll *rt__rec_coll(rt__call *c, unsigned kind, unsigned op, uint32_t comm,
                                        int32_t peer, uint64_t bytes, uint64_t rbytes)
{
    if (!rt__g.tracing || RT__COST_OFF(ENCODE))
        return NULL;
    rt_raw_coll *r = rt__rec(c, sizeof *r);
    *r = (rt_raw_coll){.type = RT_RAW_COLL,
                       .at = 1,
                       .kind = (uint8_t)kind,
                       .op = (uint8_t)op,
                       .comm = comm,
                       .peer = peer,
                       .bytes = bytes,
                       .rbytes = rbytes};
    return r;
}

/* ---- the pending call (rt__pending above; trailers: stream.c) ----------------------------- */

/* The calls that can wait for another rank: those a deadlock or a dead peer can leave a
 * thread in. The nonblocking calls, the tests, local RMA operations and the local
 * communicator and group calls return by themselves, and are left out. */
// clang-format off
#define RT__CAN_BLOCK(X)                                                                  \
    X(Send) X(Bsend) X(Ssend) X(Rsend) X(Recv) X(Sendrecv) X(Sendrecv_replace)           \
    X(Probe) X(Mprobe) X(Mrecv)                                                           \
    X(Wait) X(Waitall) X(Waitany) X(Waitsome)                                             \
    X(Barrier) X(Bcast) X(Gather) X(Gatherv) X(Scatter) X(Scatterv) X(Allgather)          \
    X(Allgatherv) X(Alltoall) X(Alltoallv) X(Alltoallw) X(Reduce) X(Allreduce)            \
    X(Reduce_scatter) X(Reduce_scatter_block) X(Scan) X(Exscan)                           \
    X(Neighbor_allgather) X(Neighbor_allgatherv) X(Neighbor_alltoall)                     \
    X(Neighbor_alltoallv) X(Neighbor_alltoallw)                                           \
    X(Win_create) X(Win_allocate) X(Win_allocate_shared) X(Win_create_dynamic)            \
    X(Win_free) X(Win_fence) X(Win_start) X(Win_complete) X(Win_wait) X(Win_lock)         \
    X(Win_unlock) X(Win_lock_all) X(Win_unlock_all) X(Win_flush) X(Win_flush_all)         \
    X(Win_flush_local) X(Win_flush_local_all)                                             \
    X(Comm_dup) X(Comm_dup_with_info) X(Comm_split) X(Comm_split_type) X(Comm_create)     \
    X(Comm_create_group) X(Intercomm_create) X(Intercomm_merge) X(Cart_create)            \
    X(Cart_sub) X(Graph_create) X(Dist_graph_create) X(Dist_graph_create_adjacent)        \
    X(Comm_create_from_group) X(Intercomm_create_from_groups)                             \
    X(Send_c) X(Bsend_c) X(Ssend_c) X(Rsend_c) X(Recv_c) X(Sendrecv_c)                   \
    X(Sendrecv_replace_c) X(Mrecv_c) X(Bcast_c) X(Gather_c) X(Gatherv_c) X(Scatter_c)     \
    X(Scatterv_c) X(Allgather_c) X(Allgatherv_c) X(Alltoall_c) X(Alltoallv_c)             \
    X(Alltoallw_c) X(Reduce_c) X(Allreduce_c) X(Reduce_scatter_c)                         \
    X(Reduce_scatter_block_c) X(Scan_c) X(Exscan_c) X(Neighbor_allgather_c)               \
    X(Neighbor_allgatherv_c) X(Neighbor_alltoall_c) X(Neighbor_alltoallv_c)               \
    X(Neighbor_alltoallw_c) X(Win_create_c) X(Win_allocate_c) X(Win_allocate_shared_c)
// clang-format on

static inline int rt__can_block(unsigned fn)
{
    switch (fn) {
#define RT__CASE(name) case RT_FN_##name:
        RT__CAN_BLOCK(RT__CASE)
#undef RT__CASE
        return 1;
    default:
        return 0;
    }
}

/* A receive or probe about to wait: what it was posted with, for its pending record. */
static inline void rt__pending_recv(rt__call *c, const struct rt__comm *cm, int source, int tag)
{
    rt__pending *p = &c->t->pending;
    p->recv_cm = cm;
    p->recv_peer = source;
    p->recv_tag = tag;
}

/* The thread is in c from now on: seq odd, with a release store after everything above. */
static inline void rt__pending_open(rt__call *c)
{
    rt__pending *p = &c->t->pending;
    p->fn = c->fn;
    p->t0 = c->t0;
    unsigned s = atomic_load_explicit(&p->seq, memory_order_relaxed);
    atomic_store_explicit(&p->seq, s + 1, memory_order_release);
}

/* PMPI returned: seq even before anything else is written (the call's records, the next
 * call's operations), so that a reader's copy from before fails its check. */
static inline void rt__pending_close(rt__thread *t)
{
    rt__pending *p = &t->pending;
    unsigned s = atomic_load_explicit(&p->seq, memory_order_relaxed);
    atomic_store_explicit(&p->seq, s + 1, memory_order_relaxed);
    atomic_thread_fence(memory_order_release);
}

/* A consistent copy of t's pending call into t->snap (under t's lock): 1, or 0 when t is not
 * in a call that can block, or left it while the copy was taken. Async-signal-safe. */
int rt__pending_copy(rt__thread *t) RT__HIDDEN;
/* The operations of the call in s, into s->ops (rt_event.h, "A pending call"); their number.
 * s->nwait becomes 0 unless the call is a wait. Async-signal-safe (records.c). */
unsigned rt__pending_ops(rt__pending_snap *s) RT__HIDDEN;
/* Under t's lock: writes the committed records, then, when t is in a blocking call (final,
 * or for a whole flusher period already), that call as the file's trailer. 0, or -RT_E_IO
 * with errno set. Async-signal-safe. */
int rt__buf_write_all(rt__thread *t, int final) RT__HIDDEN;
/* Substitutes for the IGNORE statuses, so completion always tells source, tag and size. */
#define RT__ST(s) (c->on && (s) == MPI_STATUS_IGNORE ? (MPI_Status *)&c->st : (s))
#define RT__STV(s) (c->stv ? c->stv : (s))

/* ---- records (records.c; the common ones inline: every traced call writes one or two) ------ */

/* A SEND, ISEND, RECV or IRECV record (at: rt_raw_p2p's at byte, element size included). */
static inline void rt__rec_p2p(rt__call *c, int at, unsigned kind, const rt__comm *cm, int peer,
                               int tag, uint64_t bytes, uint64_t req)
{
    if (!rt__g.tracing || !cm || RT__COST_OFF(ENCODE))
        return;
    rt_raw_p2p *r = rt__rec(c, sizeof *r);
    *r = (rt_raw_p2p){.type = RT_RAW_P2P,
                      .at = (uint8_t)at,
                      .kind = (uint8_t)kind,
                      .contype = rt__contype(cm, peer),
                      .comm = cm->id,
                      .peer = peer,
                      .tag = tag,
                      .bytes = bytes,
                      .req = req};
}
/* A receive posted with wildcards (flags): an EVENT record, which has an op byte. */
void rt__rec_recv_flags(rt__call *c, unsigned kind, const rt__comm *cm, int peer, int tag,
                        uint64_t bytes, uint64_t req, unsigned flags, unsigned esize) RT__HIDDEN;
/* A RECV or IRECV at t1 with the wildcards it was posted with (rt_recv_flag bits). */
static inline void rt__rec_recv(rt__call *c, unsigned kind, const rt__comm *cm, int peer, int tag,
                                uint64_t bytes, uint64_t req, unsigned flags, unsigned esize)
{
    if (RT__LIKELY(!flags))
        rt__rec_p2p(c, 1 | (int)esize << 1, kind, cm, peer, tag, bytes, req);
    else
        rt__rec_recv_flags(c, kind, cm, peer, tag, bytes, req, flags, esize);
}
static inline void rt__rec_req(rt__call *c, int at, unsigned kind, uint32_t comm, uint64_t req)
{
    if (!rt__g.tracing || RT__COST_OFF(ENCODE))
        return;
    rt_raw_req *r = rt__rec(c, sizeof *r);
    *r = (rt_raw_req){
        .type = RT_RAW_REQ, .at = (uint8_t)at, .kind = (uint8_t)kind, .comm = comm, .req = req};
}
/* The call returned c->rc, not MPI_SUCCESS: its records before are dropped (but for
 * MPI_ERR_IN_STATUS) and an ERROR record (rt_event.h) takes their place (records.c). */
void rt__call_failed(rt__call *c) RT__HIDDEN __attribute__((cold));
/* The EVENT record written, for a caller that fills in more (an RMA transfer's target) before
 * its call ends; NULL when not tracing. */
rt_raw_event *rt__rec_event(rt__call *c, int at, const rt_event *ev) RT__HIDDEN;

/* Records the completion of one claimed request (Wait/Test families): every kind of request
 * (rt__complete below takes the common ones inline). */
void rt__complete_any(rt__call *c, const struct rt__req *q, MPI_Request handle,
                      const MPI_Status *st) RT__HIDDEN;
/* Live histogram: one message sent to peer of comm. Inline: in histogram-only mode it is all
 * a send's hook does. */
static inline void rt__hist_send(rt__call *c, const rt__comm *cm, int peer, uint64_t bytes)
{
    if (!rt__g.histogram || !cm || peer < 0)
        return;
    int ct = rt__g.need_contype ? rt__contype(cm, peer) : RT_CT_NONE;
    rt_hist *h = &c->t->hist;
    if (h->cfg.contype >= 0 && ct != h->cfg.contype)
        return; /* the filter leaves it out */
    unsigned bin = rt_hist_bin(h, bytes);
    h->count[bin]++;
    if (c->hist_n < sizeof c->hist_bin)
        c->hist_bin[c->hist_n++] = (uint8_t)bin;
}

/* The size of the predefined datatypes applications use most, which the standard fixes as
 * their C types' (MPI_INT is an int), without asking MPI: PMPI_Type_size costs MPICH 4.0 66
 * instructions, a sixth of what tracing a send costs (docs/benchmarks.md). 0 for the others. */
static inline int rt__type_size_known(MPI_Datatype type)
{
    if (type == MPI_BYTE || type == MPI_CHAR || type == MPI_UNSIGNED_CHAR)
        return 1;
    if (type == MPI_DOUBLE)
        return (int)sizeof(double);
    if (type == MPI_INT || type == MPI_UNSIGNED)
        return (int)sizeof(int);
    if (type == MPI_FLOAT)
        return (int)sizeof(float);
    if (type == MPI_LONG || type == MPI_UNSIGNED_LONG)
        return (int)sizeof(long);
    if (type == MPI_INT64_T || type == MPI_UINT64_T)
        return 8;
    return 0;
}

/* The size of datatype, 0 for MPI_DATATYPE_NULL or errors. */
static inline uint64_t rt__type_bytes(MPI_Datatype type)
{
    if (type == MPI_DATATYPE_NULL)
        return 0;
    int size = rt__type_size_known(type);
    if (!size && (PMPI_Type_size(type, &size) != MPI_SUCCESS || size < 0))
        return 0;
    return (uint64_t)size;
}

/* count * size of datatype, 0 for MPI_DATATYPE_NULL or errors. */
static inline uint64_t rt__bytes(MPI_Count count, MPI_Datatype type)
{
    return count <= 0 ? 0 : (uint64_t)count * rt__type_bytes(type);
}

/* The 'at' byte of a raw record (rt_raw.h, RT_RAW_FLAG_ELEM_SIZES): at and an element size. */
#define RT__AT(at, size) ((at) | rt_esize_code(size) << 1)

/* The wildcards a receive was posted with: the op field of its RECV or IRECV event. */
static inline unsigned rt__recv_flags(int source, int tag)
{
    return (source == MPI_ANY_SOURCE ? RT_RECV_ANY_SOURCE : 0u) |
           (tag == MPI_ANY_TAG ? RT_RECV_ANY_TAG : 0u);
}

/*
 * A completed receive's byte count and cancelled flag. PMPI_Get_elements_x and
 * PMPI_Test_cancelled cost MPICH 4.0 about 135 instructions a receive, a third of what tracing
 * it costs (docs/benchmarks.md), for two fields of the status its mpi.h declares: MPICH keeps
 * the count in bytes in count_lo and the upper bits of count_hi_and_cancelled, whose lowest bit
 * is the cancelled flag; Open MPI keeps them in _ucount and _cancelled. They are read directly
 * only once MPI_Init has seen this library's own setters and getters agree with that reading
 * (rt__status_direct_check); any other MPI, or one that disagrees, is asked through PMPI.
 */
uint64_t rt__status_bytes_pmpi(const MPI_Status *st) RT__HIDDEN;
int rt__status_cancelled_pmpi(const MPI_Status *st) RT__HIDDEN;
void rt__status_direct_check(void) RT__HIDDEN; /* sets rt__g.status_direct */

#if defined(MPICH) && defined(MPICH_NUMVERSION)
#define RT__STATUS_DIRECT 1
static inline uint64_t rt__status_bytes_direct(const MPI_Status *st)
{
    return (uint64_t)((unsigned)st->count_hi_and_cancelled >> 1) << 32 | (unsigned)st->count_lo;
}
static inline int rt__status_cancelled_direct(const MPI_Status *st)
{
    return (unsigned)st->count_hi_and_cancelled & 1u;
}
#elif defined(OPEN_MPI)
#define RT__STATUS_DIRECT 1
static inline uint64_t rt__status_bytes_direct(const MPI_Status *st)
{
    return (uint64_t)st->_ucount;
}
static inline int rt__status_cancelled_direct(const MPI_Status *st)
{
    return st->_cancelled != 0;
}
#else
#define RT__STATUS_DIRECT 0
#endif

/* Byte count of a completed receive from its status. */
static inline uint64_t rt__status_bytes(const MPI_Status *st)
{
#if RT__STATUS_DIRECT
    if (RT__LIKELY(rt__g.status_direct))
        return rt__status_bytes_direct(st);
#endif
    return rt__status_bytes_pmpi(st);
}

/* 1 when the status says its request was cancelled. */
static inline int rt__status_cancelled(const MPI_Status *st)
{
#if RT__STATUS_DIRECT
    if (RT__LIKELY(rt__g.status_direct))
        return rt__status_cancelled_direct(st);
#endif
    return rt__status_cancelled_pmpi(st);
}

/* rt__complete_any, with an Isend's and an Irecv's completion inline (the requests programs
 * make most; neither persistent, partitioned nor half of an Isendrecv): no call, no frame. */
static inline void rt__complete(rt__call *c, const rt__req *q, MPI_Request handle,
                                const MPI_Status *st)
{
    if (RT__LIKELY((q->kind == RT__RQ_SEND || q->kind == RT__RQ_RECV) && st && !q->send_id &&
                   !(q->persistent | q->part))) {
        if (RT__UNLIKELY(rt__status_cancelled(st)))
            rt__rec_req(c, 1, RT_EV_REQUEST_CANCELLED, q->comm, q->id);
        else if (q->kind == RT__RQ_SEND)
            rt__rec_req(c, 1, RT_EV_ISEND_COMPLETE, q->comm, q->id);
        else if (st->MPI_SOURCE != MPI_PROC_NULL)
            rt__rec_recv(c, RT_EV_IRECV, q->cm, st->MPI_SOURCE, st->MPI_TAG, rt__status_bytes(st),
                         q->id, q->op, q->esize);
        return;
    }
    rt__complete_any(c, q, handle, st);
}

#endif /* RT__TRACER_H */
