/*
 * Checks a trace of mpi_clock (clock.c) against the CLOCK_MONOTONIC reads the program wrote:
 * every rank's raw files have the expected version (1: CLOCK_MONOTONIC, 2: the time-stamp
 * counter), the trace has exactly the program's Send calls on every rank, and the time from a
 * reference call's ENTER to each point's is the monotonic time between them, within the width
 * of the two reads around each of the two calls plus 1 us per second between them.
 *
 * usage: clock_check TRACE RAWDIR DIR NRANKS VERSION
 *   TRACE   the trace to read (the OTF2 archive, or the raw directory of a run cut short)
 *   RAWDIR  the raw directory, for the version in each rank's header
 *   DIR     where mpi_clock wrote clock.RANK.txt
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_raw.h"
#include "rt_trace.h"

#define POINTS 12
#define REPEATS 8 /* Sends a point, back to back */
#define CALLS (POINTS * REPEATS)
#define MAX_RANKS 8

typedef struct rank_times {
    uint64_t enter[CALLS]; /* the trace's ENTER of each Send, in ns */
    size_t n;
    uint64_t before[CALLS], after[CALLS]; /* the program's reads */
} rank_times;

static int check_version(const char *raw, unsigned rank, unsigned want)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/" RT_RAW_DEFS_NAME, raw, rank);
    FILE *f = fopen(path, "rb");
    rt_raw_header h;
    int ok = f && fread(&h, sizeof h, 1, f) == 1;
    if (f)
        fclose(f);
    if (!ok || h.version != want) {
        printf("%s: raw format version %u, expected %u\n", path, ok ? (unsigned)h.version : 0,
               want);
        return -1;
    }
    return 0;
}

static int read_trace(const char *path, rank_times *rt, unsigned nranks)
{
    rt_reader *r = NULL;
    rt_err err;
    rt_event ev;
    int rc = rt_reader_open(path, &r, &err);
    if (rc < 0) {
        printf("%s\n", err.msg);
        return -1;
    }
    while (rc == 0 && (rc = rt_reader_next(r, &ev, &err)) > 0) {
        rc = 0;
        if (ev.kind != RT_EV_ENTER || ev.call != RT_FN_Send)
            continue;
        if (ev.rank >= nranks || rt[ev.rank].n == CALLS) {
            printf("%s: more Send calls than %u ranks of %u\n", path, nranks, CALLS);
            rt_reader_close(r);
            return -1;
        }
        rt[ev.rank].enter[rt[ev.rank].n++] = ev.time;
    }
    if (rc < 0)
        printf("%s\n", err.msg);
    rt_reader_close(r);
    return rc < 0 ? -1 : 0;
}

static int read_points(const char *dir, unsigned rank, rank_times *t)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/clock.%u.txt", dir, rank);
    FILE *f = fopen(path, "r");
    int n = 0;
    unsigned long long a, b;
    while (f && n < CALLS && fscanf(f, "%llu %llu", &a, &b) == 2 && a <= b) {
        t->before[n] = a;
        t->after[n++] = b;
    }
    if (f)
        fclose(f);
    if (n != CALLS) {
        printf("%s: %d calls, expected %d\n", path, n, CALLS);
        return -1;
    }
    return 0;
}

/* The call of point p read most closely (its two reads nearest together). */
static int best_of_point(const rank_times *t, int p)
{
    int best = p * REPEATS;
    for (int k = best + 1; k < (p + 1) * REPEATS; k++)
        if (t->after[k] - t->before[k] < t->after[best] - t->before[best])
            best = k;
    return best;
}

/* Each point's time from the reference point by the trace against CLOCK_MONOTONIC's, both
 * taken at the call of the point read most closely; the reference is the point read most
 * closely of all. */
static int compare(unsigned rank, const rank_times *t)
{
    if (t->n != CALLS) {
        printf("rank %u: %zu Send calls in the trace, expected %d\n", rank, t->n, CALLS);
        return -1;
    }
    int ref = best_of_point(t, 0);
    for (int p = 1; p < POINTS; p++) {
        int k = best_of_point(t, p);
        if (t->after[k] - t->before[k] < t->after[ref] - t->before[ref])
            ref = k;
    }
    int ok = 1;
    double worst = 0, mid_ref = (double)(t->before[ref] + t->after[ref]) / 2;
    for (int p = 0; p < POINTS; p++) {
        int k = best_of_point(t, p);
        double mono = (double)(t->before[k] + t->after[k]) / 2 - mid_ref;
        double traced = (double)t->enter[k] - (double)t->enter[ref];
        double allowed = (double)(t->after[k] - t->before[k]) / 2 +
                         (double)(t->after[ref] - t->before[ref]) / 2 + fabs(mono) / 1e6;
        double off = fabs(traced - mono);
        if (off > allowed) {
            printf("rank %u call %d: %.0f ns from call %d in the trace, %.0f ns by "
                   "CLOCK_MONOTONIC: %.0f ns apart, more than the %.0f ns allowed\n",
                   rank, k, traced, ref, mono, off, allowed);
            ok = 0;
        }
        if (k != ref && allowed > 0 && off / allowed > worst)
            worst = off / allowed;
    }
    printf("rank %u: %d points over %.3f s, the farthest at %.0f%% of its bound\n", rank, POINTS,
           (double)(t->before[CALLS - 1] - t->before[0]) / 1e9, worst * 100);
    return ok ? 0 : -1;
}

int main(int argc, char **argv)
{
    if (argc != 6) {
        fprintf(stderr, "usage: clock_check TRACE RAWDIR DIR NRANKS VERSION\n");
        return 2;
    }
    unsigned nranks = (unsigned)atoi(argv[4]), version = (unsigned)atoi(argv[5]);
    if (nranks < 1 || nranks > MAX_RANKS) {
        fprintf(stderr, "clock_check: 1 to %d ranks\n", MAX_RANKS);
        return 2;
    }
    rank_times rt[MAX_RANKS];
    memset(rt, 0, sizeof rt);
    int bad = read_trace(argv[1], rt, nranks) < 0;
    for (unsigned r = 0; r < nranks; r++)
        bad |= check_version(argv[2], r, version) < 0 || read_points(argv[3], r, &rt[r]) < 0 ||
               compare(r, &rt[r]) < 0;
    return bad ? 1 : 0;
}
