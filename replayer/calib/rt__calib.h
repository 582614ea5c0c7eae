/* Internals of the calibration shared by its files (not installed). */
#ifndef RT__CALIB_H
#define RT__CALIB_H

#include "rt_calib.h"

/* A model file's comment, built piece by piece (calib_out.c, calib_from.c): the text stays
 * NUL-terminated; a note too long is cut. */
typedef struct calib_note {
    char s[2048];
    size_t len;
} calib_note;
void calib_note_add(calib_note *n, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Tags on the private communicator. */
enum { CALIB_TAG_CTRL = 1, CALIB_TAG_DATA = 2, CALIB_TAG_ACK = 3, CALIB_TAG_RESULT = 4 };

/* Buffers of one rank: max_bytes each, touched before any timing. */
typedef struct calib_bufs {
    char *s, *r;
    double *x, *y; /* reduction operands */
    size_t nx;     /* doubles in each */
} calib_bufs;

/* The initiator's side of one pair's measurement: drives the responder (peer) with
 * commands, or measures messages to itself when peer is the caller's own rank (loop).
 * Fills out (measurements, fit, fitted parameters; out->error when the fit failed). */
void calib_initiate(MPI_Comm c, int peer, unsigned ct, const rt_calib_opts *o,
                    const rt_net_model *base, const calib_bufs *b, rt_calib_link *out);

/* The responder's side: serves the initiator's commands until it says done. */
void calib_respond(MPI_Comm c, int initiator, const calib_bufs *b);

/* The reduction rate and time per element (rt_calib_fit_reduce), MPI_Reduce_local of doubles and
 * floats, 128 to nx elements: res->reduce_*. */
void calib_reduce(const rt_calib_opts *o, const calib_bufs *b, rt_calib_result *res);

/* Shared measuring helpers: the median of v (sorts it; calib_pair.c), the cost of reading
 * the clock once, in ps (the median of 101 back-to-back MPI_Wtime pairs), and v rounded to
 * 4 significant digits (calib_fit.c; 1 for 0 < v < 1, 0 for v <= 0). */
double calib_median(double *v, size_t n);
double calib_clock_cost(void);
uint64_t calib_round_sig4(double v);

/* The CPU costs of calls (calib_calls.c). Every rank of c measures (nothing with a single
 * rank), after the links; then rank 0, with the links fitted into m, replays the same calls
 * on the engine and sets m's [calls] to the differences. */
void calib_calls_measure(MPI_Comm c, const rt_calib_opts *o, const calib_bufs *b,
                         rt_calib_result *res);
void calib_calls_fit(rt_calib_result *res, rt_net_model *m, const uint32_t *node,
                     const uint32_t *module);

/* Replays on the built-in engine, under cfg, the CSV trace write() puts into a temporary file
 * (TMPDIR, else /tmp; removed after) and sets *time_ps to the simulated run's time
 * (calib_engine.c). 0, or -1 when the file could not be written or read or the replay did
 * not complete (*time_ps 0). */
struct rt_sim_config;
int calib_engine_replay(void (*write)(FILE *f, const void *ctx), const void *ctx,
                        const struct rt_sim_config *cfg, uint64_t *time_ps);

/* The costs of collective calls fitted to a trace (calib_from_coll.c; rt_calib_from): each
 * event of the trace goes to calib_colls_event (enter: the time its rank entered the call it
 * is in), then calib_colls_fit sets m's [calls] for the collectives that gave times and fills
 * res's coll_* and calls. shared: per world rank, 1 when it shared its host's CPUs (or NULL).
 * 0 or -RT_E_NOMEM. */
typedef struct calib_colls calib_colls;
struct rt_calib_from_result;
struct rt_defs;
int calib_colls_new(calib_colls **out, uint32_t nranks);
int calib_colls_event(calib_colls *c, const rt_event *ev, uint64_t enter);
int calib_colls_fit(calib_colls *c, const struct rt_defs *d, const uint8_t *shared, rt_net_model *m,
                    struct rt_calib_from_result *res);
void calib_colls_free(calib_colls *c);

/* The cores and the timeslice (calib_cores.c): calib_cores is collective over c (node: each
 * rank's node id) and sets res->cores on rank 0; calib_timeslice runs on one rank alone (its
 * CPU must be free of other ranks) and sets res->timeslice_ps. */
void calib_cores(MPI_Comm c, const uint32_t *node, rt_calib_result *res);
void calib_timeslice(const rt_calib_opts *o, rt_calib_result *res);

#endif /* RT__CALIB_H */
