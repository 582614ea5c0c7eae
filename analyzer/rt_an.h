/*
 * analyzer/: streaming passes over a trace (info, hist, gateways, pipeline, profile) and their
 * output as aligned text, CSV tables (libcsv) and gnuplot plots.
 *
 * Every pass reads the trace once through rt_reader. hist and gateways keep state that
 * depends on the number of ranks, modules, communicators and functions, never on the number
 * of events. Results are tables (rt_table) that the command line prints, writes as CSV or
 * plots.
 */
#ifndef RT_AN_H
#define RT_AN_H

#include <stdint.h>
#include <stdio.h>

#include "rt_coll.h"
#include "rt_error.h"
#include "rt_event.h"
#include "rt_hist.h"
#include "rt_net.h"
#include "rt_report.h"
#include "rt_trace.h"

/* ---- the messages of a trace ------------------------------------------------------------------
 */

typedef enum rt_an_origin { RT_AN_P2P, RT_AN_COLL, RT_AN_RMA } rt_an_origin;

/* One message: a point-to-point send, a collective's transfer (logical at call level, an
 * algorithm's point-to-point message at wire level) or an RMA transfer. */
typedef struct rt_an_msg {
    uint32_t src, dst; /* world ranks (for count > 1: one of the destinations, in the module
                        * and with the connection type of all of them) */
    uint64_t bytes;    /* per message */
    uint64_t count;    /* identical messages this one stands for (1 but for collective flows) */
    uint32_t comm;     /* communicator (for RMA: the window's communicator) */
    uint16_t call;     /* rt_func */
    uint8_t contype;   /* rt_contype */
    uint8_t origin;    /* rt_an_origin */
    uint8_t op;        /* collective op for RT_AN_COLL */
} rt_an_msg;

typedef enum rt_an_level_kind { RT_AN_CALL = 0, RT_AN_WIRE = 1 } rt_an_level_kind;

/* How collectives count. At wire level any mode but NONE expands them into the chosen
 * algorithm's messages. At call level PAYLOAD counts one message per rank and call of the
 * bytes the rank supplies (no destination: dst = src, contype none); FLOWS counts the data
 * each rank's call hands to each other member (docs/analyzer.md). */
typedef enum rt_an_coll_mode {
    RT_AN_COLL_NONE = 0,
    RT_AN_COLL_PAYLOAD,
    RT_AN_COLL_FLOWS
} rt_an_coll_mode;

/* Which messages a pass sees. */
typedef struct rt_an_level {
    int level;                  /* rt_an_level_kind */
    int coll;                   /* rt_an_coll_mode */
    int rma;                    /* RMA transfers: 1 include */
    uint8_t alg[RT_COLL_COUNT]; /* wire level: the algorithm per collective op, or
                                 * RT_AN_ALG_TRACE */
} rt_an_level;

/* In rt_an_level.alg: the choice of the MPI library that recorded the trace
 * (rt_coll_library_choice of its definitions: ompi for Open MPI, else mpich), which the pass
 * resolves from the definitions it reads, so that nobody opens the trace twice. */
#define RT_AN_ALG_TRACE 0xffu
_Static_assert(RT_ALG_COUNT < RT_AN_ALG_TRACE, "RT_AN_ALG_TRACE is no algorithm");
/* The algorithm alg stands for on the trace of defs. */
static inline unsigned rt_an_alg(unsigned alg, const rt_defs *defs)
{
    return alg == RT_AN_ALG_TRACE ? (unsigned)rt_coll_library_choice(defs->library) : alg;
}

/* Call level, point-to-point only, MPICH's selection for wire level. */
void rt_an_level_default(rt_an_level *l);

/* Messages out of events, one event at a time. */
typedef struct rt_an_msgs rt_an_msgs;
typedef int (*rt_an_msg_fn)(void *ctx, const rt_an_msg *m);

int rt_an_msgs_new(const rt_defs *defs, rt_an_msgs **out, rt_err *err);
void rt_an_msgs_free(rt_an_msgs *ms);
/* Counters for the notes a pass prints after its tables (each 0 when nothing to say). */
typedef struct rt_an_notes {
    uint64_t approx;     /* collectives whose per-peer sizes were assumed equal */
    uint64_t unexpanded; /* neighbourhood or inter-communicator collectives left out */
} rt_an_notes;
/* Calls fn for every message ev stands for at level l; returns fn's non-zero value, 0, or
 * -RT_E_NOMEM. Collectives that cannot be expanded, or only with guessed sizes, are counted
 * in notes (NULL: not counted). Every event of the trace must come through here, in the
 * reader's order: a pending call's collective did not complete and stands for no message
 * (rt_pending_op), its send was posted and counts like any other. */
int rt_an_msgs_of(rt_an_msgs *ms, const rt_an_level *l, const rt_event *ev, rt_an_msg_fn fn,
                  void *ctx, rt_an_notes *notes);
/* rt_an_msgs_of for each of the n events at ev, in order, until one returns non-zero (its
 * value): for a pass that takes a block of events at a time (rt_an_pass.events). */
int rt_an_msgs_block(rt_an_msgs *ms, const rt_an_level *l, const rt_event *ev, size_t n,
                     rt_an_msg_fn fn, void *ctx, rt_an_notes *notes);
/* A v or w collective waits for its per-peer counts (the COLL_PEER rows after it) and stands
 * for its messages at its rank's next event, through whichever call brings that event: so
 * one rt_an_msgs serves one level, fn and ctx. After the last event, this gives those of the
 * collectives still waiting. Returns as rt_an_msgs_of. */
int rt_an_msgs_flush(rt_an_msgs *ms, const rt_an_level *l, rt_an_msg_fn fn, void *ctx,
                     rt_an_notes *notes);
/* Prints the notes as lines "note: ..." to out. */
void rt_an_notes_print(const rt_an_notes *n, const char *level, FILE *out);

/* Connection type between two world ranks from the definitions' nodes and modules. */
unsigned rt_an_contype(const rt_defs *defs, uint32_t a, uint32_t b);

/* ---- passes ------------------------------------------------------------------------------------
 */

/* One streaming pass: opens path, calls setup once with the definitions, then event for every
 * event (progress bar included), end, and finish. *truncated gets a copy of the reader's note
 * when the trace was cut short (the caller frees it), else NULL. Errors name the trace.
 *
 * In threads (docs/design.md, "Passes in parts"): a pass that sets fork, merge and drop is run
 * on the trace's ranks in parts, one per thread, when the format can be read in parts
 * (rt_reader_can_split); else, and with threads 1, exactly as above. Each part gets a state of
 * its own from fork (empty, set up with the same definitions), sees its ranks' events in the
 * order one reader gives them, then end; the parts are merged into ctx in rank order; finish
 * runs on ctx alone. So a pass whose per-event work needs only its rank's events and whose
 * totals are sums, minima and maxima gives the same bytes on any number of threads. */
typedef struct rt_an_pass {
    int (*setup)(void *ctx, const rt_defs *defs, rt_err *err);
    int (*event)(void *ctx, const rt_event *ev);
    /* Instead of event (may be NULL): the n >= 1 events at ev of a block the reader handed
     * out, in order; 0 or -RT_E_*, as event's. A loop over a block in the pass costs less
     * than a call per event. */
    int (*events)(void *ctx, const rt_event *ev, size_t n);
    /* After the last event and end (and the merges), while the definitions are still valid
     * (may be NULL). */
    int (*finish)(void *ctx, rt_err *err);
    void *ctx;
    /* After a state's last event (may be NULL): on ctx, or on each part's state. 0 or -RT_E_*. */
    int (*end)(void *ctx);
    /* Threads (all three, or none: one thread). fork: a new empty state like ctx, set up;
     * merge: adds a part's state (ranks lo to hi - 1) into ctx; drop: frees a part's state. */
    int (*fork)(void *ctx, void **part, rt_err *err);
    int (*merge)(void *ctx, void *part, uint32_t lo, uint32_t hi);
    void (*drop)(void *part);
    unsigned threads;  /* 0: the CPUs available (rt_an_threads) */
    rt_format *format; /* if not NULL: gets the trace's format */
} rt_an_pass;
int rt_an_run(const char *path, const rt_an_pass *pass, char **truncated, rt_err *err);

/* The most threads a pass runs in. */
#define RT_AN_MAX_THREADS 256u
/* asked, or for 0 the CPUs this process may run on (sched_getaffinity); at most
 * RT_AN_MAX_THREADS. */
unsigned rt_an_threads(unsigned asked);
/* "4K", "64M", "100" (exact binary multiples get a suffix), for labels. */
void rt_an_size_label(uint64_t v, char *buf, size_t len);

/* ---- hist
 * ---------------------------------------------------------------------------------------- */

typedef struct rt_an_hist_opts {
    rt_hist_config cfg;
    rt_an_level level;
    int per_rank, by_call;
    unsigned threads; /* rt_an_pass.threads: 0 the CPUs available */
} rt_an_hist_opts;

typedef struct rt_an_hist_result {
    rt_hist total;
    rt_an_notes notes;
    /* tables: "histogram" (bin, freq[, per rank or per call columns]); plot: the bins with
     * size labels, for RT_PLOT_BARS */
    rt_report report;
} rt_an_hist_result;

int rt_an_hist(const char *path, const rt_an_hist_opts *o, rt_an_hist_result *res, rt_err *err);

/* ---- gateways
 * ------------------------------------------------------------------------------------ */

#define RT_AN_MAX_CHOICES 16

typedef struct rt_an_gw_opts {
    rt_an_level level; /* the tables' level and algorithms */
    unsigned nchoices; /* alternatives to compare (0: none) */
    uint8_t choice[RT_AN_MAX_CHOICES][RT_COLL_COUNT];
    const char *label[RT_AN_MAX_CHOICES]; /* how each choice is shown (NULL: its algorithms) */
    unsigned threads;                     /* rt_an_pass.threads: 0 the CPUs available */
} rt_an_gw_opts;

typedef struct rt_an_gw_result {
    uint64_t messages, gw_messages;
    rt_u128 bytes, gw_bytes; /* may pass 2^64 */
    rt_an_notes notes;
    /* tables: summary, matrix_bytes, matrix_messages, calls, ops, comms[, compare]; plot: the
     * module x module bytes, for RT_PLOT_HEATMAP */
    rt_report report;
} rt_an_gw_result;

int rt_an_gateways(const char *path, const rt_an_gw_opts *o, rt_an_gw_result *res, rt_err *err);

/* ---- profile
 * ------------------------------------------------------------------------------------- */

typedef struct rt_an_profile_result {
    /* tables: ranks, functions, function_rank, matrix_* or pairs, comms, imbalance; plot: rank
     * x rank bytes (up to 1024 ranks), for RT_PLOT_HEATMAP */
    rt_report report;
} rt_an_profile_result;

/* threads: rt_an_pass.threads (0: the CPUs available). */
int rt_an_profile(const char *path, unsigned threads, rt_an_profile_result *res, rt_err *err);

/* ---- pipeline
 * ------------------------------------------------------------------------------------ */

typedef struct rt_an_pipe_opts {
    rt_net_model model;
    uint64_t min_bytes; /* messages at least this large are candidates */
    unsigned top;       /* chains listed (0: all) */
} rt_an_pipe_opts;

typedef struct rt_an_pipe_result {
    uint64_t chains, gaining;
    rt_u128 saving_ps; /* sum over the chains that gain (may pass 2^64) */
    /* tables: summary, chains, gateway; plot: saving against block size of the best chains,
     * for RT_PLOT_LINES (NULL when no chain gains) */
    rt_report report;
} rt_an_pipe_result;

int rt_an_pipeline(const char *path, const rt_an_pipe_opts *o, rt_an_pipe_result *res, rt_err *err);

/* ---- info: what a trace holds (retrace info) --------------------------------------------- */

#define RT_AN_INFO_HOSTS 8

typedef struct rt_an_info_result {
    rt_format format;
    /* the definitions */
    uint32_t nranks, nodes, modules, comms, wins;
    char library[24]; /* the MPI library that recorded the trace; "" when the trace does not say */
    uint32_t topologies; /* communicators with neighbour lists (process topologies used) */
    uint32_t nbr_lists;  /* neighbour lists, one per rank and communicator */
    /* the events */
    uint64_t events, by_class[RT_EVC_COUNT + 1]; /* per rt_event_class (last: none) */
    uint64_t tmin, tmax;                         /* first and last event time, ns */
    uint64_t messages, by_contype[RT_CT_COUNT];  /* point-to-point sends, per connection */
    /* byte totals in 128 bits: a trace may move more than 2^64 - 1 bytes */
    rt_u128 bytes_p2p; /* bytes sent point-to-point, counted once at the sender */
    /* collective calls completed (blocking and nonblocking): a pending call's are not */
    uint64_t colls;
    rt_u128 bytes_coll; /* bytes sent in them, as each rank recorded its call */
    uint64_t rma_ops;   /* puts, gets and atomics */
    rt_u128 bytes_rma;  /* bytes put, got and exchanged by atomics */
    char *truncated;    /* the reader's note when the trace was cut short, else NULL */
    /* pending calls (rt_event.h): calls that never returned, and the ranks with one */
    uint64_t pending;
    uint32_t pending_ranks;
    uint64_t errors; /* calls that returned an error (ERROR events, rt_event.h) */
    /* the real hosts (rt_host_def): how many, the first RT_AN_INFO_HOSTS of them in the
     * order the ranks name them, and the ranks whose host the trace does not say */
    uint32_t nhosts, hosts_unknown;
    struct rt_an_info_host {
        char name[RT_HOST_NAME_LEN + 1];
        uint32_t ranks, cpus, online; /* cpus: the CPUs its ranks could run on together */
    } host[RT_AN_INFO_HOSTS];
    uint8_t *in_ops, *had_pending; /* per rank (rt_an_info_begin) */
} rt_an_info_result;

/* Reads the trace at path once and counts (docs/analyzer.md, "retrace info"). Errors are the
 * reader's, naming the trace. rt_an_info_free when it returns 0. */
int rt_an_info(const char *path, unsigned threads, rt_an_info_result *in, rt_err *err);
void rt_an_info_free(rt_an_info_result *in);
/* The pass in pieces: in zeroed, then rt_an_info_begin (required: the state per rank that tells
 * a pending call's operations; 0 or -RT_E_NOMEM), each event, the counts of the definitions
 * (0 or -RT_E_NOMEM), rt_an_info_free. */
int rt_an_info_begin(rt_an_info_result *in, uint32_t nranks);
int rt_an_info_defs(rt_an_info_result *in, const rt_defs *defs);
void rt_an_info_event(rt_an_info_result *in, const rt_event *ev);

#endif /* RT_AN_H */
