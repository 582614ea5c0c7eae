/*
 * killed: a few messages, then rank 2 kills itself with SIGKILL while the other ranks wait
 * in an MPI_Recv that never completes; mpiexec then ends them. Nothing of MPI_Finalize
 * runs anywhere, and SIGKILL leaves no process a chance to write: the trace holds what the
 * tracer's flusher wrote (every 50 ms). It must still be readable, reported as cut short,
 * and hold every call that completed before and, as pending calls, the MPI_Recv the other
 * ranks are blocked in, about 400 ms by then (expected/killed.dump, by hand). Rank 2 dies
 * 300 ms after its last call (an MPI_Iprobe), which is after each other rank has sent it
 * "ready" and paused, so that the flusher has written everybody's last call by then.
 */
#include <signal.h>
#include <unistd.h>

#include "mpitest.h"

#define W MPI_COMM_WORLD

int main(int argc, char **argv)
{
    int rank, v[2] = {1, 2}, none = 0;
    rank = mt_init(&argc, &argv, "killed", 4, MT_NO_THREADS);
    if (rank == 2)
        MPI_Send(v, 2, MPI_INT, 3, 1, W);
    else if (rank == 3)
        MPI_Recv(v, 2, MPI_INT, 2, 1, W, MPI_STATUS_IGNORE);
    MPI_Barrier(W);
    if (rank == 0) {
        printf("killed: 4 ranks started\n");
        fflush(stdout);
    }
    if (rank == 2) {
        for (int i = 0; i < 4; i++)
            if (i != 2)
                MPI_Recv(&none, 0, MPI_INT, i, 2, W, MPI_STATUS_IGNORE);
        usleep(300 * 1000);
        int flag;
        MPI_Iprobe(MPI_ANY_SOURCE, 99, W, &flag, MPI_STATUS_IGNORE);
        usleep(300 * 1000); /* the flusher writes the Iprobe out within 100 ms */
        raise(SIGKILL);
    } else {
        MPI_Send(&none, 0, MPI_INT, 2, 2, W);
        usleep(200 * 1000);
        MPI_Recv(&none, 0, MPI_INT, 2, 3, W, MPI_STATUS_IGNORE); /* never sent */
    }
    MPI_Finalize();
    return 0;
}
