/*
 * The cores of a node and the scheduler's timeslice (model keys cores and timeslice,
 * docs/model.md): with more ranks than cores on a node the engine lets them take turns
 * (replayer/sim/sim_share.c), and these two numbers say when that happens and how long a turn is.
 *
 * cores: the CPUs the ranks of a node may run on, the union of their affinity masks. A rank
 * bound to a single CPU says nothing about the node (mpiexec -bind-to core gives each rank
 * one, however many the node has): when every rank of a node is bound so, the node's online
 * CPUs count instead. The model has one value for all nodes: the smallest node's.
 *
 * timeslice: rank 0 pins itself and a second thread to one of its CPUs; both spin, and rank
 * 0 reads the clock in a loop. Each pause in its readings longer than 100 us is a turn of the
 * other thread: the median pause is the timeslice.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "rt__calib.h"

#define CPU_BYTES (CPU_SETSIZE / 8)

typedef struct cpus_rec {
    uint32_t online; /* sysconf(_SC_NPROCESSORS_ONLN) */
    uint32_t own;    /* CPUs in this rank's mask */
    unsigned char mask[CPU_BYTES];
} cpus_rec;

static void my_cpus(cpus_rec *r)
{
    cpu_set_t set;
    memset(r, 0, sizeof *r);
    long on = sysconf(_SC_NPROCESSORS_ONLN);
    r->online = on > 0 ? (uint32_t)on : 0;
    if (sched_getaffinity(0, sizeof set, &set) < 0)
        return;
    r->own = (uint32_t)CPU_COUNT(&set);
    for (int i = 0; i < CPU_SETSIZE; i++)
        if (CPU_ISSET(i, &set))
            r->mask[i / 8] |= (unsigned char)(1u << (i % 8));
}

static unsigned bits(const unsigned char *m)
{
    unsigned n = 0;
    for (size_t i = 0; i < CPU_BYTES; i++)
        n += (unsigned)__builtin_popcount(m[i]);
    return n;
}

void calib_cores(MPI_Comm c, const uint32_t *node, rt_calib_result *res)
{
    int me, p;
    MPI_Comm_rank(c, &me);
    MPI_Comm_size(c, &p);
    cpus_rec mine, *all = me == 0 ? malloc((size_t)p * sizeof *all) : NULL;
    my_cpus(&mine);
    int ok = me != 0 || all, ok_all;
    MPI_Allreduce(&ok, &ok_all, 1, MPI_INT, MPI_MIN, c);
    if (!ok_all) { /* out of memory on rank 0: cores stays unknown */
        free(all);
        return;
    }
    MPI_Gather(&mine, (int)sizeof mine, MPI_BYTE, all, (int)sizeof mine, MPI_BYTE, 0, c);
    if (me != 0)
        return;
    uint32_t fewest = 0;
    int bound_nodes = 0;
    unsigned char u[CPU_BYTES];
    for (int i = 0; i < p; i++) {
        int first = 1;
        for (int j = 0; j < i && first; j++)
            first = node[j] != node[i];
        if (!first) /* the node was counted with its first rank */
            continue;
        memset(u, 0, sizeof u);
        int bound = 1;
        uint32_t online = all[i].online;
        for (int j = i; j < p; j++) {
            if (node[j] != node[i])
                continue;
            for (size_t k = 0; k < CPU_BYTES; k++)
                u[k] |= all[j].mask[k];
            bound &= all[j].own == 1;
        }
        uint32_t n = bound ? online : bits(u);
        bound_nodes += bound;
        if (n && (!fewest || n < fewest))
            fewest = n;
    }
    free(all);
    res->cores = fewest;
    res->cores_bound = bound_nodes;
}

/* ---- the timeslice ------------------------------------------------------------------------ */

static double now_us(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

static int pin(pthread_t th, int cpu)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    return pthread_setaffinity_np(th, sizeof set, &set);
}

static void *spinner(void *arg)
{
    int *stop = arg;
    while (!__atomic_load_n(stop, __ATOMIC_RELAXED))
        ;
    return NULL;
}

#define MAX_PAUSES 256

void calib_timeslice(const rt_calib_opts *o, rt_calib_result *res)
{
    cpu_set_t saved;
    if (pthread_getaffinity_np(pthread_self(), sizeof saved, &saved) != 0)
        return;
    int cpu = -1;
    for (int i = 0; i < CPU_SETSIZE && cpu < 0; i++)
        if (CPU_ISSET(i, &saved))
            cpu = i;
    if (cpu < 0 || pin(pthread_self(), cpu) != 0)
        return;
    int stop = 0;
    pthread_t th;
    if (pthread_create(&th, NULL, spinner, &stop) != 0) {
        pthread_setaffinity_np(pthread_self(), sizeof saved, &saved);
        return;
    }
    pin(th, cpu);
    double pause[MAX_PAUSES], span = o->quick ? 40000 : 100000; /* us */
    size_t n = 0;
    double t0 = now_us(), last = t0;
    for (;;) {
        double t = now_us();
        if (t - last > 100 && n < MAX_PAUSES)
            pause[n++] = t - last;
        last = t;
        if (t - t0 > span)
            break;
    }
    __atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
    pthread_join(th, NULL);
    pthread_setaffinity_np(pthread_self(), sizeof saved, &saved);
    res->timeslice_pauses = (unsigned)n;
    if (n >= 3) /* fewer: the scheduler did not share the CPU in turns; keep the model's */
        res->timeslice_ps = calib_round_sig4(calib_median(pause, n) * 1e6);
}
