/*
 * abort: a few messages, then rank 0 calls MPI_Abort(3) while ranks 1 to 3 wait in an
 * MPI_Recv that never completes. The trace must still be readable, reported as cut short,
 * and hold every call that completed before the abort and, as pending calls, the MPI_Recv
 * each other rank is blocked in (expected/abort.dump, by hand). Rank 0 aborts 600 ms after
 * each other rank has sent it "ready": MPI_Abort writes rank 0's records; the others' (which
 * mpiexec kills with SIGKILL) the tracer's flusher has written by then, their MPI_Recv
 * included, in which they have been blocked for about 400 ms (the flusher writes a call as
 * pending once it has lasted one period, 50 ms).
 */
#include <unistd.h>

#include "mpitest.h"

#define W MPI_COMM_WORLD

int main(int argc, char **argv)
{
    int rank, v = 42, none = 0;
    rank = mt_init(&argc, &argv, "abort", 4, MT_NO_THREADS);
    if (rank == 0)
        MPI_Send(&v, 1, MPI_INT, 1, 1, W);
    else if (rank == 1)
        MPI_Recv(&v, 1, MPI_INT, 0, 1, W, MPI_STATUS_IGNORE);
    MPI_Barrier(W);
    if (rank == 0) {
        for (int i = 1; i < 4; i++)
            MPI_Recv(&none, 0, MPI_INT, i, 2, W, MPI_STATUS_IGNORE);
        printf("abort: 4 ranks ready, value %d\n", v);
        fflush(stdout);
        usleep(600 * 1000);
        MPI_Abort(W, 3);
    } else {
        MPI_Send(&none, 0, MPI_INT, 0, 2, W);
        usleep(200 * 1000);
        MPI_Recv(&none, 0, MPI_INT, 0, 3, W, MPI_STATUS_IGNORE); /* never sent */
    }
    MPI_Finalize();
    return 0;
}
