/*
 * The tracer's clock against CLOCK_MONOTONIC (tests/mpi/clock_check.sh): each rank makes
 * POINTS times REPEATS calls of MPI_Send to MPI_PROC_NULL back to back, each between two reads
 * of CLOCK_MONOTONIC, and writes those reads to DIR/clock.RANK.txt; between the points it
 * sleeps (0 to 300 ms) and moves itself to the other core (sched_setaffinity), so the trace's
 * times span sleeps and migrations. clock_check then finds each Send's ENTER in the trace.
 *
 * usage: mpi_clock DIR [abort]   (abort: rank 0 calls MPI_Abort at the end instead of
 *                                 MPI_Finalize, while rank 1 waits in a barrier)
 */
#define _GNU_SOURCE
#include <mpi.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#define POINTS 12
#define REPEATS 8 /* Sends a point: the checker keeps the one read most closely */

static uint64_t mono(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Onto the k-th processor this process may use (the first call notes them). */
static void move_to(int k)
{
    static cpu_set_t allowed;
    static int ncpu = -1;
    if (ncpu < 0) {
        ncpu = 0;
        if (sched_getaffinity(0, sizeof allowed, &allowed) == 0)
            ncpu = CPU_COUNT(&allowed);
    }
    if (ncpu < 2)
        return;
    for (int c = 0, seen = 0; c < CPU_SETSIZE; c++) {
        if (!CPU_ISSET(c, &allowed) || seen++ != k % ncpu)
            continue;
        cpu_set_t one;
        CPU_ZERO(&one);
        CPU_SET(c, &one);
        sched_setaffinity(0, sizeof one, &one);
        return;
    }
}

int main(int argc, char **argv)
{
    static const int sleep_ms[POINTS] = {0, 1, 0, 20, 5, 300, 0, 50, 100, 2, 150, 0};
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (argc < 2) {
        fprintf(stderr, "usage: mpi_clock DIR [abort]\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    uint64_t before[POINTS * REPEATS], after[POINTS * REPEATS];
    for (int i = 0; i < POINTS; i++) {
        move_to(i + rank);
        struct timespec pause = {sleep_ms[i] / 1000, (long)(sleep_ms[i] % 1000) * 1000000L};
        nanosleep(&pause, NULL);
        for (int k = i * REPEATS; k < (i + 1) * REPEATS; k++) {
            before[k] = mono();
            MPI_Send(NULL, 0, MPI_BYTE, MPI_PROC_NULL, k, MPI_COMM_WORLD);
            after[k] = mono();
        }
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/clock.%d.txt", argv[1], rank);
    FILE *f = fopen(path, "w");
    for (int i = 0; f && i < POINTS * REPEATS; i++)
        fprintf(f, "%llu %llu\n", (unsigned long long)before[i], (unsigned long long)after[i]);
    if (!f || fclose(f) != 0) {
        fprintf(stderr, "mpi_clock: cannot write %s\n", path);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    if (argc > 2 && !strcmp(argv[2], "abort")) {
        /* the flusher's next round (every 50 ms) writes the points of the rank left waiting */
        struct timespec pause = {0, 200000000L};
        nanosleep(&pause, NULL);
        if (rank == 0)
            MPI_Abort(MPI_COMM_WORLD, 3);
        MPI_Barrier(MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
