/*
 * Calibration: measure this machine's MPI and fit the network model (rt_net.h) to it, for
 * `retrace calibrate` (docs/calibrate.md).
 *
 * Two halves. The fit (calib_fit.c, and calib_out.c for the model file) knows no MPI: it
 * turns measured one-way ping-pong times into the model's latency, bandwidths and
 * rendezvous time, computing what the model charges for a ping-pong exactly as the
 * simulator does, so that what is fitted is what a replay will charge. The measurement
 * (calib_run.c, calib_pair.c) runs under MPI: it finds the connection types present among
 * the ranks and measures one pair of ranks per type at a time (ping-pong curve, overheads,
 * gap, the eager switch by a late receiver) on a private duplicate of the communicator,
 * while the other ranks wait without spinning.
 */
#ifndef RT_CALIB_H
#define RT_CALIB_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <mpi.h>

#include "rt_checked.h"
#include "rt_error.h"
#include "rt_net.h"

/* ---- the fit (no MPI) ----------------------------------------------------------------------- */

/* One size of a ping-pong curve. Times are one-way: half a round trip. */
typedef struct rt_calib_point {
    uint64_t bytes;
    uint64_t time_ps;   /* the best undisturbed batch's mean (rank not switched out) */
    uint64_t median_ps; /* the median batch's mean: how noisy the size was */
    uint64_t model_ps;  /* what the fitted model charges (rt_calib_model_oneway) */
    int disturbed;      /* 1: no batch ran undisturbed: time_ps is not to be trusted, and
                         * the fit leaves the size out */
} rt_calib_point;

/* The model's one-way time of a ping-pong message of n bytes over ct, as the simulator
 * (replayer/sim_p2p.c) computes it: eager (n <= eager) o + wire(n) + o; rendezvous: the
 * request o + L, the answer L, then the data o + wire(n), taken in o: 3o + 2L + wire(n).
 * wire(n) is rt_net_wire_ps (L + n/B with the protocol's B, plus the rendezvous time for
 * rendezvous messages; two chunked hops for gw). */
uint64_t rt_calib_model_oneway(const rt_net_model *m, unsigned ct, uint64_t n);

/* How well one connection type's model fits its measurements. */
typedef struct rt_calib_fit {
    uint64_t latency_ps;
    uint64_t bandwidth;  /* bytes per second, 4 significant digits */
    double err_median;   /* |model - measured| / measured over the sizes fitted, median */
    double err_max;      /* and the largest */
    uint64_t err_max_at; /* bytes of the size with the largest error */
    double cost;         /* sum of squared relative errors (what the fit minimised) */
    int overhead_fitted; /* 1: the measured o exceeded what the curve allows; o was fitted
                          * with L = 0 instead */
} rt_calib_fit;

/*
 * Fits m->link[ct]'s latency L, bandwidth, eager_bandwidth and rendezvous time R to the
 * points (the disturbed ones left out), with o and eager as m holds them: each point's
 * model time is c + a L + b x + r R, x being ps per byte of its protocol's rate, linear in
 * the four parameters with c, a, b, r from the message's protocol and, for gw, its chunks
 * (rt_calib_model_oneway); weighted least squares on the relative error sum ((model - t) /
 * t)^2. L and R cannot be below 0: one that comes out so is held at 0 and the others fitted
 * again; when L is held (the given o is more than the curve's fixed cost allows), L = 0 and
 * o is fitted instead (fit->overhead_fitted). Without rendezvous sizes R stays 0 and the one
 * rate is the bandwidth; an eager rate equal to the bandwidth after rounding is left unset.
 * Writes the parameters into m, rounded (times to whole ns, rates to 4 significant digits),
 * sets every point's model_ps and fills fit. -RT_E_INVAL (err says why) with fewer than two
 * undisturbed sizes or when no positive rate fits (the times do not grow with the size); m
 * is then unchanged.
 */
int rt_calib_fit_link(rt_net_model *m, unsigned ct, rt_calib_point *pts, size_t n,
                      rt_calib_fit *fit, rt_err *err);

/* How far a link's typical batch was from its best: per undisturbed size with a time,
 * (median_ps - time_ps) / time_ps; *median the median of that over the sizes, *max the largest
 * and *max_at its size. The number of sizes counted (all three 0 when none). A median above
 * RT_CALIB_NOISY: the machine was too noisy for a model fitted to the best batches to be
 * what applications see there (calibrate warns). */
#define RT_CALIB_NOISY 0.25
size_t rt_calib_spread(const rt_calib_point *pts, size_t n, double *median, double *max,
                       uint64_t *max_at);

/* Bytes per second of a reduction, from (bytes, ps) pairs: the rate n/t that minimises the
 * relative error of t = n / rate over the pairs, 4 significant digits. 0 when no pair has
 * both numbers positive. */
uint64_t rt_calib_fit_rate(const uint64_t *bytes, const uint64_t *ps, size_t n);

/* The reduction model t = bytes / bandwidth + elements * element_ps fitted to reductions of
 * cnt[i] doubles (d[i] ps) and cnt[i] floats (f[i] ps): each type's time per element by
 * rt_calib_fit_rate, their difference over the 4 bytes that differ is the time per byte, the
 * rest the time per element. When the floats cost as much per element as the doubles (within
 * 5% of a double's time), or the doubles more than twice as much (a cost per byte alone, or
 * noise), the bandwidth comes
 * from the doubles alone and *element_ps is 0. Returns 1 when both were fitted, 0 when the
 * bandwidth alone, -1 when nothing (no usable point). */
int rt_calib_fit_reduce(const uint64_t *cnt, const uint64_t *d, const uint64_t *f, size_t n,
                        uint64_t *bandwidth, uint64_t *element_ps);

/* ---- the measurement (MPI) ------------------------------------------------------------------ */

#define RT_CALIB_MAX_POINTS 96

/* What one connection type's pair measured and what the fit made of it. */
typedef struct rt_calib_link {
    int measured;  /* 0: no pair of this type among the ranks */
    uint32_t a, b; /* the pair: world ranks (a == b for loop) */
    uint32_t node[2], module[2];
    rt_calib_point pts[RT_CALIB_MAX_POINTS];
    uint32_t npts;
    uint32_t batches;   /* batches per size */
    uint32_t disturbed; /* sizes with no batch undisturbed by other processes */
    uint64_t o_send_ps; /* median time of a blocking 8-byte send call */
    uint64_t o_recv_ps; /* median time of a receive call whose message has arrived */
    uint64_t gap_ps;    /* per-message time of a stream of 8-byte messages; 0: not measured */
    int switched;       /* 1: some size was rendezvous (the switch lies in eager_lo..hi) */
    uint64_t eager_lo;  /* the largest size found eager */
    uint64_t eager_hi;  /* the smallest size found rendezvous (when switched) */
    rt_calib_fit fit;
    rt_net_link fitted; /* the parameters for the model file */
    char error[200];    /* not empty: the fit failed, and why */
} rt_calib_link;

/* One call's CPU cost ([calls]), measured at one or two sizes (docs/calibrate.md); with alg
 * set, a blocking collective's under one of MPICH's algorithms forced ([calls]
 * MPI_Allreduce/ring), measured by the median batch. */
#define RT_CALIB_MAX_CALLS 48
typedef struct rt_calib_call {
    unsigned fn;             /* rt_func */
    unsigned op;             /* rt_coll_op of a collective */
    unsigned alg;            /* rt_coll_alg forced; RT_ALG_MPICH: the library's own choice */
    unsigned refused;        /* alg: bit s set when MPICH refused it at the s-th size tried */
    uint64_t best_ps[2];     /* alg: the best batch, for the spread (measured_ps is the median) */
    unsigned npts;           /* sizes measured: 0 (not measurable here), 1 or 2 */
    uint64_t size[2];        /* bytes per rank (per block for allgather and alltoall) */
    uint64_t measured_ps[2]; /* rank 0's time per call, the best batch */
    uint64_t engine_ps[2];   /* what the engine charges for the same call without a cost */
    rt_net_call cost;        /* the fit: the difference, fixed + n / rate */
} rt_calib_call;

typedef struct rt_calib_opts {
    uint64_t max_bytes; /* largest ping-pong size (default 1 MiB) */
    unsigned batches;   /* batches per size: the best one counts (default 15) */
    uint64_t batch_ps;  /* target length of one batch (default 200 us) */
    int quick;          /* fewer repetitions of the overhead and gap measurements (tests;
                         * --quick also sets the three fields above smaller) */
    /* Called on rank 0 as each step starts (a pair of ranks, the reduction rate and the
     * timeslice, the costs of calls): step k (from 1) of n, what it measures. NULL: none. */
    void (*step)(void *ctx, unsigned k, unsigned n, const char *what);
    void *step_ctx;
} rt_calib_opts;

typedef struct rt_calib_result {
    uint32_t nranks, nnodes, nmodules;
    char placement[192]; /* how node ids were found, for the model file's comments */
    char library[128];   /* first line of MPI_Get_library_version */
    char base[256];      /* where the values not measured come from (the model's source) */
    rt_calib_link link[RT_CT_COUNT];
    uint64_t reduce_bandwidth;  /* 0: not measured */
    uint64_t reduce_pts;        /* sizes measured for it */
    uint64_t reduce_element_ps; /* 0: not measured, or no cost per element found */
    int reduce_fit;             /* rt_calib_fit_reduce's result */
    rt_calib_call calls[RT_CALIB_MAX_CALLS];
    unsigned ncalls;           /* 0: not measured (a single rank) */
    unsigned calls_ct;         /* the connection type between ranks 0 and 1 */
    int calls_engine_failed;   /* some engine replay could not run: its cost is the whole time */
    int algs_unforced;         /* Open MPI: no algorithm costs measured (forced at run time) */
    uint32_t cores;            /* CPUs of the node with the fewest (calib_cores.c); 0: unknown */
    int cores_bound;           /* nodes whose ranks were each bound to one CPU: online CPUs */
    uint64_t timeslice_ps;     /* the scheduler's turn on a shared CPU; 0: not measured */
    unsigned timeslice_pauses; /* turns seen while measuring it */
    double seconds;            /* wall time of the measurement */
} rt_calib_result;

void rt_calib_opts_default(rt_calib_opts *o);

/*
 * Measures and fits, collectively over comm (MPI must be initialised; comm is duplicated,
 * so nothing is sent on it). model is the starting point: measured types and
 * reduce_bandwidth are replaced, injection becomes bytes when any pair was measured, the
 * rest stays. Returns the same status on every rank of comm; the result and the model are
 * complete on rank 0 of comm only. On failure err holds one line.
 */
int rt_calib_run(MPI_Comm comm, const rt_calib_opts *o, rt_net_model *model, rt_calib_result *res,
                 rt_err *err);

/* The model file with comments on what was measured (rank 0 after rt_calib_run). */
int rt_calib_write(const rt_calib_result *res, const rt_net_model *model, FILE *out);

/* The per-size table (measured, median, model, error) and the fit of each measured type,
 * for --verbose; also after a failed fit (rank 0 after rt_calib_run). */
void rt_calib_report(const rt_calib_result *res, FILE *out);

#endif /* RT_CALIB_H */
