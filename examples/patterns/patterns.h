/*
 * What the example patterns share (docs/benchmarks.md, "Replay fidelity"): command-line
 * options, buffers, a fixed amount of "computation", and the timed region.
 *
 * Every program takes
 *   -i N    iterations timed (default: the program's)
 *   -w N    iterations before the timed region, not timed (default: a tenth, at least 1)
 *   -s N    message size in bytes, K and M suffixes allowed (default: the program's)
 *   -c US   microseconds of computation per iteration (default 0): a spin on MPI_Wtime, so
 *           that it lasts the same on every run, traced or not
 * and prints, from rank 0, one line
 *   NAME ranks=P iters=N bytes=S compute_us=C time_us=T
 * with T the time between the return of the MPI_Barrier that opens the timed region and
 * the return of the one that closes it, on rank 0 (MPI_Wtime). Those two barriers are the
 * program's last two: bench/fidelity.sh finds them in a simulated trace by that.
 * Communication is deterministic (no wildcards, no timing-dependent choices). A bad option
 * is one line on stderr from rank 0 and exit status 2 on every rank.
 */
#ifndef PATTERNS_H
#define PATTERNS_H

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct pattern {
    const char *name;
    int rank, size;
    long iters, warmup;
    size_t bytes;
    double compute_us;
    char *sbuf, *rbuf; /* bytes each (at least 1 byte), send buffer filled */
} pattern;

static inline int pattern_number(const char *text, double max, double *out)
{
    char *end;
    double v = strtod(text, &end);
    if (end == text || v < 0)
        return -1;
    if (*end == 'K' || *end == 'M')
        v *= *end++ == 'K' ? 1024 : 1048576;
    if (*end || v > max)
        return -1;
    *out = v;
    return 0;
}

/* MPI_Init and the options; 0, or the exit status after a bad option (MPI finalised). */
static inline int pattern_init(pattern *p, const char *name, long iters, size_t bytes, int *argc,
                               char ***argv)
{
    MPI_Init(argc, argv);
    memset(p, 0, sizeof *p);
    p->name = name;
    MPI_Comm_rank(MPI_COMM_WORLD, &p->rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p->size);
    p->iters = iters;
    p->warmup = -1;
    p->bytes = bytes;
    const char *bad = NULL;
    for (int i = 1; i < *argc && !bad; i++) {
        const char *a = (*argv)[i];
        if (strlen(a) != 2 || a[0] != '-' || !strchr("iwsc", a[1]) || i + 1 >= *argc) {
            bad = a;
            break;
        }
        const char *text = (*argv)[++i];
        double v;
        if (pattern_number(text, a[1] == 's' ? 1 << 30 : 1e9, &v) < 0 ||
            (a[1] != 'c' && v != (double)(long)v)) {
            bad = text;
        } else if (a[1] == 'i') {
            p->iters = (long)v;
        } else if (a[1] == 'w') {
            p->warmup = (long)v;
        } else if (a[1] == 's') {
            p->bytes = (size_t)v;
        } else {
            p->compute_us = v;
        }
    }
    if (bad) {
        if (p->rank == 0)
            fprintf(stderr,
                    "%s: bad argument '%s' (usage: %s [-i ITERATIONS] [-w WARMUP] "
                    "[-s BYTES] [-c COMPUTE_US])\n",
                    name, bad, name);
        MPI_Finalize();
        return 2;
    }
    if (p->warmup < 0)
        p->warmup = p->iters / 10 > 0 ? p->iters / 10 : 1;
    size_t n = p->bytes ? p->bytes : 1;
    p->sbuf = malloc(n);
    p->rbuf = malloc(n);
    if (!p->sbuf || !p->rbuf) {
        if (p->rank == 0)
            fprintf(stderr, "%s: out of memory for two buffers of %zu bytes\n", name, n);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    /* Touched now, so that no page fault lands in the timed region. */
    for (size_t i = 0; i < n; i++)
        p->sbuf[i] = (char)(i * 7 + (size_t)p->rank);
    memset(p->rbuf, 0, n);
    return 0;
}

/* Computation: spins until us microseconds have passed. */
static inline void pattern_compute(const pattern *p)
{
    if (p->compute_us <= 0)
        return;
    double end = MPI_Wtime() + p->compute_us * 1e-6;
    while (MPI_Wtime() < end)
        ;
}

/* Runs the warm-up, then the timed iterations between two barriers; rank 0 prints. */
static inline void pattern_run(pattern *p, void (*iteration)(pattern *, long))
{
    for (long i = 0; i < p->warmup; i++)
        iteration(p, i);
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (long i = 0; i < p->iters; i++)
        iteration(p, i);
    MPI_Barrier(MPI_COMM_WORLD);
    double t = MPI_Wtime() - t0;
    if (p->rank == 0)
        printf("%s ranks=%d iters=%ld bytes=%zu compute_us=%g time_us=%.3f\n", p->name, p->size,
               p->iters, p->bytes, p->compute_us, t * 1e6);
}

static inline int pattern_finish(pattern *p)
{
    free(p->sbuf);
    free(p->rbuf);
    MPI_Finalize();
    return 0;
}

#endif /* PATTERNS_H */
