/*
 * hang MODE: ranks that deadlock, for `retrace record --timeout` (cases hang_*): the run
 * never ends by itself; the harness ends it after a few seconds (SIGTERM to mpiexec, which
 * passes it on to the ranks). The trace must hold every call each rank completed before it
 * blocked and, as a pending call (ENTER, PENDING and what it waits for, no LEAVE), the call
 * it blocks in (expected/hang_MODE.dump, by hand).
 *
 *   cycle          a barrier and an exchange, then a receive/receive cycle: rank 0 waits for
 *                  tag 5 from rank 1, rank 1 for tag 7 from rank 0
 *   cycle_0ms      the same cycle as the first thing after MPI_Init
 *   cycle_300ms    300 ms of work first: 6 times 50 ms of computation and an allreduce
 *   cycle3         3 ranks: rank r waits for tag 10 + r from rank r + 1 (mod 3)
 *   sendsend       a barrier, then both ranks send 1 MiB to each other with MPI_Send:
 *                  rendezvous, so neither send returns
 *   bcast_barrier  collectives in a different order: rank 0 calls MPI_Bcast with root 1,
 *                  rank 1 MPI_Barrier, each waiting for the other's; rank 0 enters 200 ms
 *                  later, so that the recorded order (rank 1 first), which the report
 *                  follows, does not depend on the scheduler
 *   wait_irecv     rank 0 waits (MPI_Wait) for an MPI_Irecv of tag 9 from any source that
 *                  nobody sends; rank 1 waits in MPI_Recv for tag 8 from rank 0
 *   wait_pcoll     both ranks make a persistent MPI_Bcast_init (root 1); rank 0 starts it and
 *                  waits (MPI_Wait), rank 1, which never starts it, waits in MPI_Recv for tag 8
 *                  from rank 0 (MPI-4: not run under Open MPI)
 * and one that does not hang, for the other side of the pending call:
 *   late           rank 0 waits 300 ms in MPI_Recv for rank 1's message, long enough for the
 *                  flusher to write the call as pending; then a barrier and MPI_Finalize: the
 *                  trailer must be gone, the trace complete
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
    const char *mode = argc > 1 ? argv[1] : "";
    int nranks = !strcmp(mode, "cycle3") ? 3 : 2;
    int rank = mt_init(&argc, &argv, "hang", nranks, MT_NO_THREADS);
    if (rank == 0) {
        printf("hang: %d ranks started\n", nranks);
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
    } else if (!strcmp(mode, "cycle3")) {
        int v = 0;
        MPI_Barrier(W);
        MPI_Recv(&v, 1, MPI_INT, (rank + 1) % 3, 10 + rank, W, MPI_STATUS_IGNORE);
    } else if (!strcmp(mode, "bcast_barrier")) {
        int v = rank;
        if (rank == 0) {
            usleep(200000);
            MPI_Bcast(&v, 1, MPI_INT, 1, W);
        } else {
            MPI_Barrier(W);
        }
    } else if (!strcmp(mode, "wait_irecv")) {
        int v = 0;
        MPI_Request req;
        MPI_Barrier(W);
        if (rank == 0) {
            MPI_Irecv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 9, W, &req);
            MPI_Wait(&req, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(&v, 1, MPI_INT, 0, 8, W, MPI_STATUS_IGNORE);
        }
    } else if (!strcmp(mode, "wait_pcoll")) {
#if MPI_VERSION >= 4 /* Open MPI 4.1 has no persistent collectives; its cases leave this out */
        int v[2] = {0, 0};
        MPI_Request req;
        MPI_Barrier(W);
        MPI_Bcast_init(v, 2, MPI_INT, 1, W, MPI_INFO_NULL, &req);
        if (rank == 0) {
            MPI_Start(&req);
            MPI_Wait(&req, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(v, 1, MPI_INT, 0, 8, W, MPI_STATUS_IGNORE);
        }
#endif
    } else if (!strcmp(mode, "late")) {
        int v = 0;
        if (rank == 0) {
            MPI_Recv(&v, 1, MPI_INT, 1, 4, W, MPI_STATUS_IGNORE);
        } else {
            usleep(300 * 1000);
            MPI_Send(&v, 1, MPI_INT, 0, 4, W);
        }
        MPI_Barrier(W);
        MPI_Finalize();
        return 0;
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
