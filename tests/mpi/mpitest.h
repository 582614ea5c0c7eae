/*
 * Helpers of the MPI test programs. Each program checks what it received (MT_CHECK) and ends
 * with mt_finish, which brings every rank's check and failure counts to rank 0 in one
 * MPI_Reduce (two MPI_LONG: 16 bytes) on MPI_COMM_WORLD; rank 0 prints the two result lines
 * that the harness compares, with and without the tracer. Only rank 0 prints, so the output
 * does not depend on how mpiexec interleaves the ranks' output. A failed check also prints
 * one line on stderr naming the rank and the check.
 */
#ifndef MPITEST_H
#define MPITEST_H

#include <mpi.h>
#include <stdio.h>

static long mt_checks, mt_failures;

#define MT_CHECK(cond)                                                                          \
    do {                                                                                        \
        mt_checks++;                                                                            \
        if (!(cond)) {                                                                          \
            int mt_rank_;                                                                       \
            MPI_Comm_rank(MPI_COMM_WORLD, &mt_rank_);                                           \
            fprintf(stderr, "rank %d: %s:%d: check failed: %s\n", mt_rank_, __FILE__, __LINE__, \
                    #cond);                                                                     \
            mt_failures++;                                                                      \
        }                                                                                       \
    } while (0)

/* MPI_Init, or MPI_Init_thread when thread_level is not MT_NO_THREADS; ends the run (after
 * one line on stderr) unless there are nranks ranks and the thread level asked for.
 * Returns the world rank. */
#define MT_NO_THREADS (-1)
static inline int mt_init(int *argc, char ***argv, const char *name, int nranks, int thread_level)
{
    int rank, size, provided = thread_level;
    if (thread_level == MT_NO_THREADS)
        MPI_Init(argc, argv);
    else
        MPI_Init_thread(argc, argv, thread_level, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != nranks || provided < thread_level) {
        if (rank == 0)
            fprintf(stderr, "%s: run with %d ranks%s\n", name, nranks,
                    thread_level == MT_NO_THREADS ? "" : " and MPI_THREAD_MULTIPLE");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    return rank;
}

static inline void mt_finish(const char *name)
{
    int rank, size;
    long mine[2] = {mt_checks, mt_failures}, all[2] = {0, 0};
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Reduce(mine, all, 2, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        printf("%s: %d ranks, %ld checks\n", name, size, all[0]);
        printf("%s: %s\n", name, all[1] ? "FAILED" : "ok");
        fflush(stdout);
    }
}

#endif /* MPITEST_H */
