/*
 * rt_sim: the built-in MPI engine. A trace is loaded once into memory (rt_sim_trace) and
 * replayed any number of times (rt_sim_run) on a simulated machine: a network model
 * (rt_net.h), a collective algorithm per op (rt_coll.h) and a placement of ranks on nodes
 * and modules (rt_map.h). The engine is a deterministic discrete-event simulation in
 * integer picoseconds; docs/replay.md says what it models and how.
 */
#ifndef RT_SIM_H
#define RT_SIM_H

#include <stddef.h>
#include <stdint.h>

#include "rt_checked.h"
#include "rt_coll.h"
#include "rt_error.h"
#include "rt_event.h"
#include "rt_map.h"
#include "rt_net.h"
#include "rt_trace.h"

/* ---- the trace, in memory ------------------------------------------------------------------ */

typedef struct rt_sim_trace rt_sim_trace;

/* Reads every event of r (which stays open and owned by the caller) and prepares it for
 * replay: peers resolved to world ranks, request ids linked to their completions. Events
 * that cannot be replayed (a receive that never completed, a nonblocking collective never
 * completed) are left out and counted in the notes. On failure err names what is wrong
 * ("rank 3, event 17: ..."; -RT_E_RANGE when its span does not fit in the engine's 64-bit
 * picoseconds, about 213 days), without the trace's path, or passes on the reader's
 * message, which names it. */
int rt_sim_trace_load(rt_reader *r, rt_sim_trace **out, rt_err *err);
void rt_sim_trace_free(rt_sim_trace *t);
const rt_defs *rt_sim_trace_defs(const rt_sim_trace *t);
uint64_t rt_sim_trace_events(const rt_sim_trace *t);
/* Recorded run time: last event minus first event over all ranks, in ps. */
uint64_t rt_sim_trace_span_ps(const rt_sim_trace *t);
/* Lines (each ending in '\n') about what loading left out or had to guess; "" if nothing. */
const char *rt_sim_trace_notes(const rt_sim_trace *t);
/* How the recorded run ended, as far as the trace tells (docs/replay.md, "Runs that did
 * not finish"). A rank reached MPI_Finalize when its trace has that call; traces that do
 * not record MPI_Init (hand-made, converted from TI) cannot tell, and count none as
 * unfinished. */
typedef struct rt_sim_trace_end {
    uint32_t pending;    /* ranks with a call that never returned (rt_event.h) */
    uint32_t unfinished; /* ranks that did not reach MPI_Finalize (pending ones included) */
    int records_init;    /* the trace records MPI_Init: unfinished counts every such rank */
    int truncated;       /* the reader says the trace is cut short */
    uint64_t pending_first, pending_last; /* recorded times of the pending calls, ps from
                                           * the trace's first event (when pending) */
    uint64_t left_out; /* operations that never completed, which the replay leaves out */
} rt_sim_trace_end;
const rt_sim_trace_end *rt_sim_trace_end_of(const rt_sim_trace *t);
/* Point-to-point and RMA bytes between world ranks as traced (each pair once, a < b),
 * for --map auto. *edges is malloc'ed; free() it. */
int rt_sim_trace_traffic(const rt_sim_trace *t, rt_map_edge **edges, size_t *nedges, rt_err *err);

/* ---- one replay -------------------------------------------------------------------------- */

typedef struct rt_sim_config {
    rt_net_model model;
    uint8_t alg[RT_COLL_COUNT]; /* rt_coll_alg per rt_coll_op; RT_ALG_MPICH by default */
    const uint32_t *node;       /* per world rank; NULL: as recorded */
    const uint32_t *module;     /* per world rank; NULL: as recorded */
    int free_wildcards;         /* match wildcard receives freely instead of as recorded */
    int share_hosts; /* 1: with the recorded placement, ranks that ran on one real host share its
                      * CPUs (rt_rank_host) in turns, instead of the model's cores per node */
    uint64_t compute_scale_ppm; /* recorded computation is spent times this / 10^6 (10^6) */
    const char *out_trace;      /* write the simulated run as OTF2 there; NULL: do not */
    int no_fast_coll;           /* 1: never use the collective fast path (the results are the
                                 * same, docs/replay.md; rt_sim_check_fast compares) */
    int sync_sends; /* 1: every send but a buffered one (MPI_Bsend, MPI_Ibsend) is synchronous,
                     * rendezvous whatever its size: a run that then deadlocks completed only
                     * because MPI buffered its messages (retrace check, docs/check.md) */
} rt_sim_config;

/* The built-in model, mpich for every op, the recorded placement, wildcards as recorded. */
void rt_sim_config_default(rt_sim_config *c);

typedef struct rt_sim_rank {
    uint64_t end_ps;     /* when the rank left its last call */
    uint64_t mpi_ps;     /* time inside MPI calls */
    uint64_t compute_ps; /* recorded computation between calls */
} rt_sim_rank;

/* Why a replay did not complete, as rt_sim_result.hang tells it. */
typedef enum rt_sim_outcome {
    RT_SIM_COMPLETED = 0,
    RT_SIM_DEADLOCK,    /* ranks wait for each other, or for ranks that finished */
    RT_SIM_MISMATCH,    /* a collective call is another op on some rank: the replay stopped */
    RT_SIM_FAILED,      /* a rank called MPI_Abort, or stopped outside MPI before MPI_Finalize */
    RT_SIM_CUT,         /* every rank reached MPI_Finalize, but the trace is cut short */
    RT_SIM_UNDESCRIBED, /* the ranks left are in pending calls that wait for what the trace
                         * does not describe */
    RT_SIM_OUTCOME_COUNT
} rt_sim_outcome;

#define RT_SIM_SHOWN 16 /* ranks a report describes one by one */

/* A rank that did not finish: where it stopped. */
typedef struct rt_sim_blocked {
    uint32_t rank;
    uint32_t event;       /* the rank's events replayed */
    uint64_t time_ps;     /* replay time when it blocked */
    uint64_t recorded_ns; /* recorded time of the event it stopped at */
    uint16_t call;        /* rt_func it is in; RT_FN_NONE: at the end of its trace */
    uint8_t pending;      /* the recorded run ended in this call */
    char what[200];       /* "MPI_Recv(source 1, tag 5, comm world)" (cut at 199 bytes) */
} rt_sim_blocked;

typedef struct rt_sim_hang {
    uint8_t outcome;   /* rt_sim_outcome */
    uint32_t nblocked; /* ranks that did not finish (aborted ones not counted) */
    uint32_t nshown;   /* the first of them, by rank */
    rt_sim_blocked blocked[RT_SIM_SHOWN];
    uint32_t ncycle;              /* ranks in the wait-for cycle found (0: none) */
    uint32_t cycle[RT_SIM_SHOWN]; /* its first ranks, the lowest first, each waiting for the
                                   * next and the last for the first */
} rt_sim_hang;

typedef struct rt_sim_result {
    int completed;          /* 1: every rank replayed its trace; 0: see report */
    uint64_t time_ps;       /* predicted run time: the last rank's end */
    uint32_t critical_rank; /* the rank that ends last (lowest such rank) */
    rt_u128 mpi_ps;         /* time in MPI summed over ranks (may pass 2^64) */
    uint64_t messages;      /* wire messages: point-to-point, collective steps, RMA data */
    rt_u128 bytes;          /* their bytes (may pass 2^64) */
    uint64_t gw_messages;   /* of which crossed a gateway */
    rt_u128 gw_bytes;
    uint64_t events;     /* trace events replayed */
    uint64_t sim_events; /* engine events processed (queue pops); fewer with the fast path */
    uint64_t fast_colls; /* collective instances the fast path computed (docs/replay.md) */
    uint32_t nranks;
    rt_sim_rank *ranks; /* nranks entries */
    char *report;       /* deadlock, mismatch and unmatched-message lines; NULL if none */
    char *notes;        /* approximations made during the run; NULL if none */
    rt_sim_hang hang;   /* when not completed: why, as data (report has it as text) */
} rt_sim_result;

/*
 * Replays t under c. Returns 0 when the replay ran (also when it ended in a deadlock or a
 * collective mismatch: then res->completed is 0 and res->report says which ranks waited for
 * what), or a negative code when it could not (bad configuration, out of memory, the output
 * trace could not be written; -RT_E_RANGE: a simulated time past 2^64 - 2 ps, or a round
 * reducing more than 2^64 - 1 bytes, which the engine cannot represent), with err saying
 * why. res must be freed either way.
 */
int rt_sim_run(const rt_sim_trace *t, const rt_sim_config *c, rt_sim_result *res, rt_err *err);
void rt_sim_result_free(rt_sim_result *res);

/* ---- the fast path's self-check (sim_check.c) ---------------------------------------------- */

/* Whether two replays of one trace gave the same results: NULL when every result is the same
 * to the picosecond (completion, times, critical rank, counts, report, notes and every
 * rank's times), else the name of the first field that differs ("time_ps", "ranks", ...).
 * The engine's own counters (sim_events, fast_colls) are not compared. */
const char *rt_sim_result_diff(const rt_sim_result *a, const rt_sim_result *b);

/* Replays t under c once more without the collective fast path and compares with a, the
 * result of a replay under c. 0 when they are the same (or when c uses no fast path: with
 * no_fast_coll or out_trace); else -RT_E_INVAL "fast path check: results differ without
 * the fast path (FIELD)", or the second replay's error as "fast path check: the replay
 * without it failed: ...". */
int rt_sim_check_fast(const rt_sim_trace *t, const rt_sim_config *c, const rt_sim_result *a,
                      rt_err *err);

#endif /* RT_SIM_H */
