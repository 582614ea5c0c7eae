/*
 * Tracer overhead benchmark (run by tracer_overhead.sh, 2 ranks): a 0-byte ping-pong, a small
 * allreduce loop, and a nonblocking ring of 1 KiB (MPI_Irecv, MPI_Isend, MPI_Waitall: three
 * calls an iteration). Prints per pattern the wall time per MPI call of rank 0, so that the
 * script can compare untraced, traced and histogram-only runs of the same binary.
 * usage: tracer_overhead ITERATIONS
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static void pingpong(long iters, int rank)
{
    char byte = 0;
    int peer = 1 - rank;
    for (long i = 0; i < iters; i++) {
        if (rank == 0) {
            MPI_Send(&byte, 0, MPI_CHAR, peer, 0, MPI_COMM_WORLD);
            MPI_Recv(&byte, 0, MPI_CHAR, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(&byte, 0, MPI_CHAR, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(&byte, 0, MPI_CHAR, peer, 0, MPI_COMM_WORLD);
        }
    }
}

/* Both ranks post a receive from the other, send it 1 KiB and wait for both. */
static void ring(long iters, int rank)
{
    static char out[1024], in[1024];
    int peer = 1 - rank;
    MPI_Request rq[2];
    MPI_Status st[2]; /* not MPI_STATUSES_IGNORE: GCC 12 warns it is an empty array */
    for (long i = 0; i < iters; i++) {
        MPI_Irecv(in, (int)sizeof in, MPI_CHAR, peer, 1, MPI_COMM_WORLD, &rq[0]);
        MPI_Isend(out, (int)sizeof out, MPI_CHAR, peer, 1, MPI_COMM_WORLD, &rq[1]);
        MPI_Waitall(2, rq, st);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    long iters = argc > 1 ? atol(argv[1]) : 100000;
    if (size != 2 || iters <= 0) {
        if (rank == 0)
            fprintf(stderr, "tracer_overhead: needs 2 ranks and ITERATIONS > 0\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    pingpong(1000, rank); /* warm-up */
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    pingpong(iters, rank);
    double t1 = MPI_Wtime();
    double in = rank, out;
    for (long i = 0; i < iters; i++)
        MPI_Allreduce(&in, &out, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    double t2 = MPI_Wtime();
    ring(iters, rank);
    double t3 = MPI_Wtime();
    if (rank == 0)
        printf("pingpong_ns_per_call %.1f\nallreduce_ns_per_call %.1f\nring_ns_per_call %.1f\n",
               (t1 - t0) * 1e9 / (2.0 * (double)iters), (t2 - t1) * 1e9 / (double)iters,
               (t3 - t2) * 1e9 / (3.0 * (double)iters));
    MPI_Finalize();
    return 0;
}
