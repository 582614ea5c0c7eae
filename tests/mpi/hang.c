/*
 * hang MODE: two ranks that deadlock, for `retrace record --timeout` (cases hang_*): the run
 * never ends by itself; the harness ends it after a few seconds (SIGTERM to mpiexec, which
 * passes it on to the ranks). The trace must hold every call each rank completed before it
 * blocked (expected/hang_MODE.dump, by hand); the call it blocks in is not recorded yet.
 *
 *   cycle        a barrier and an exchange, then a receive/receive cycle: rank 0 waits for
 *                tag 5 from rank 1, rank 1 for tag 7 from rank 0
 *   cycle_0ms    the same cycle as the first thing after MPI_Init
 *   cycle_300ms  300 ms of work first: 6 times 50 ms of computation and an allreduce
 *   sendsend     a barrier, then both ranks send 1 MiB to each other with MPI_Send:
 *                rendezvous, so neither send returns
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mpitest.h"

#define W MPI_COMM_WORLD
#define BIG (1 << 20)

static void cycle(int rank)
{
    int v = 0;
    if (rank == 0)
        MPI_Recv(&v, 1, MPI_INT, 1, 5, W, MPI_STATUS_IGNORE);
    else
        MPI_Recv(&v, 1, MPI_INT, 0, 7, W, MPI_STATUS_IGNORE);
}

int main(int argc, char **argv)
{
    int rank = mt_init(&argc, &argv, "hang", 2, MT_NO_THREADS);
    const char *mode = argc > 1 ? argv[1] : "";
    if (rank == 0) {
        printf("hang: 2 ranks started\n");
        fflush(stdout);
    }
    if (!strcmp(mode, "cycle")) {
        int mine = rank, other = -1;
        MPI_Barrier(W);
        MPI_Sendrecv(&mine, 1, MPI_INT, 1 - rank, 1, &other, 1, MPI_INT, 1 - rank, 1, W,
                     MPI_STATUS_IGNORE);
        cycle(rank);
    } else if (!strcmp(mode, "cycle_0ms")) {
        cycle(rank);
    } else if (!strcmp(mode, "cycle_300ms")) {
        double x = rank, sum;
        for (int i = 0; i < 6; i++) {
            usleep(50 * 1000);
            MPI_Allreduce(&x, &sum, 1, MPI_DOUBLE, MPI_SUM, W);
        }
        cycle(rank);
    } else if (!strcmp(mode, "sendsend")) {
        char *buf = calloc(BIG, 1);
        MPI_Barrier(W);
        MPI_Send(buf, BIG, MPI_CHAR, 1 - rank, 3, W);
        MPI_Recv(buf, BIG, MPI_CHAR, 1 - rank, 3, W, MPI_STATUS_IGNORE);
        free(buf);
    } else {
        if (rank == 0)
            fprintf(stderr, "hang: unknown mode '%s'\n", mode);
        MPI_Abort(W, 2);
    }
    MPI_Finalize(); /* never reached */
    return 0;
}
