/*
 * crash MODE: rank 1 of 4 ends the run while ranks 0, 2 and 3 wait in an MPI_Recv that
 * never completes (cases crash and crash_abort):
 *
 *   segv   rank 1 writes through a null pointer (SIGSEGV)
 *   abort  rank 1 calls MPI_Abort(5)
 *
 * mpiexec then kills the other ranks (MPICH's with SIGKILL). The trace must hold every
 * call each rank completed (expected/crash.dump, by hand): rank 1's up to its MPI_Iprobe,
 * which returns just before the end (the tracer's signal handler or MPI_Abort writes it),
 * and the others' up to their "ready" send, then their MPI_Recv as a pending call: the
 * tracer's flusher has written both by the time rank 1 ends the run, 500 ms after it got
 * the last "ready" (a call is written as pending once it has lasted one flusher period).
 */
#include <string.h>
#include <unistd.h>

#include "mpitest.h"

#define W MPI_COMM_WORLD

int main(int argc, char **argv)
{
    int rank = mt_init(&argc, &argv, "crash", 4, MT_NO_THREADS), none = 0;
    const char *mode = argc > 1 ? argv[1] : "";
    int segv = !strcmp(mode, "segv");
    if (!segv && strcmp(mode, "abort")) {
        if (rank == 0)
            fprintf(stderr, "crash: unknown mode '%s'\n", mode);
        MPI_Abort(W, 2);
    }
    MPI_Barrier(W);
    if (rank == 1) {
        for (int i = 0; i < 4; i++)
            if (i != 1)
                MPI_Recv(&none, 0, MPI_INT, i, 2, W, MPI_STATUS_IGNORE);
        printf("crash: 4 ranks ready\n");
        fflush(stdout);
        usleep(500 * 1000);
        int flag;
        MPI_Iprobe(MPI_ANY_SOURCE, 99, W, &flag, MPI_STATUS_IGNORE);
        if (segv) {
            volatile int *volatile nowhere = NULL; /* the compiler must do the store */
            *nowhere = flag;
        } else {
            MPI_Abort(W, 5);
        }
    } else {
        MPI_Send(&none, 0, MPI_INT, 1, 2, W);
        MPI_Recv(&none, 0, MPI_INT, 1, 3, W, MPI_STATUS_IGNORE); /* never sent */
    }
    MPI_Finalize(); /* never reached */
    return 0;
}
