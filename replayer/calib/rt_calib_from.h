/*
 * The network model fitted to a trace's own timings: retrace calibrate --from TRACE
 * (calib_from.c, docs/calibrate.md "A model from a trace"). No MPI is run.
 */
#ifndef RT_CALIB_FROM_H
#define RT_CALIB_FROM_H

#include <stdint.h>
#include <stdio.h>

#include "rt_calib.h"

/* A call whose CPU cost ([calls]) the trace gave (calib_from_coll.c). */
typedef struct rt_calib_from_call {
    unsigned fn;                     /* rt_func */
    uint64_t calls;                  /* instances that gave a time */
    uint32_t sizes;                  /* distinct sizes among them (the largest bytes of a rank) */
    uint64_t lo, hi;                 /* the smallest and the largest size */
    uint64_t at;                     /* the size with the most instances, and there: */
    uint64_t measured_ps, engine_ps; /* the median recorded time and the engine's */
    rt_net_call cost;                /* the fit */
} rt_calib_from_call;

typedef struct rt_calib_from_result {
    char trace[256];
    char truncated[256]; /* the reader's note when the trace was cut short, else "" */
    uint32_t nranks;
    uint64_t messages; /* point-to-point messages matched sender to receiver */
    uint64_t waiting;  /* of which the receiver was already waiting: the samples */
    uint64_t shared;   /* of which sender or receiver shared its host's CPUs: left out */
    uint64_t samples[RT_CT_COUNT], isends[RT_CT_COUNT]; /* per connection type */
    /* per connection type: only the latency was fitted, from the eager size latency_bytes (the
     * sizes gave no bandwidth); error says why */
    int latency_only[RT_CT_COUNT];
    uint64_t latency_bytes[RT_CT_COUNT];
    /* per connection type: measured (samples that gave a fit), pts (each size's median
     * one-way time), o_send_ps (the median Isend call, when isends >= 3), fit, fitted,
     * error (a fit that failed) */
    rt_calib_link link[RT_CT_COUNT];
    /* the blocking collectives: instances that gave a time, left out because a rank shared its
     * host's CPUs, left out for another reason (a rank missing, an op with per-peer counts or
     * neighbour lists, an inter-communicator, more kinds than replayed), left out because the
     * engine could not replay them; and the calls fitted */
    uint64_t coll_used, coll_shared, coll_other, coll_failed;
    rt_calib_from_call calls[RT_CALIB_MAX_CALLS];
    unsigned ncalls;
} rt_calib_from_result;

/* Reads the trace at path and fits m's links to its messages (the types it has samples of;
 * the others keep m's values). 0, or the reader's error (err names the trace). */
int rt_calib_from(const char *path, rt_net_model *m, rt_calib_from_result *res, rt_err *err);

/* The model file, with comments on where each value came from; base names the model the
 * values not fitted come from. */
int rt_calib_from_write(const rt_calib_from_result *res, const rt_net_model *m, const char *base,
                        FILE *out);

#endif /* RT_CALIB_FROM_H */
