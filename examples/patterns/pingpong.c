/* Ping-pong: rank 0 sends -s bytes to rank 1 (MPI_Send), which sends them back; -c us of
 * computation on both before each round trip. Other ranks only take part in the barriers.
 * Defaults: 10000 round trips of 8 bytes. */
#include "patterns.h"

static void iteration(pattern *p, long i)
{
    (void)i;
    int n = (int)p->bytes;
    pattern_compute(p);
    if (p->rank == 0) {
        MPI_Send(p->sbuf, n, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
        MPI_Recv(p->rbuf, n, MPI_BYTE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (p->rank == 1) {
        MPI_Recv(p->rbuf, n, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(p->sbuf, n, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
    }
}

int main(int argc, char **argv)
{
    pattern p;
    int rc = pattern_init(&p, "pingpong", 10000, 8, &argc, &argv);
    if (rc)
        return rc;
    if (p.size < 2) {
        if (p.rank == 0)
            fprintf(stderr, "pingpong: needs at least 2 ranks (run it under mpiexec -n 2)\n");
        MPI_Finalize();
        return 2;
    }
    pattern_run(&p, iteration);
    return pattern_finish(&p);
}
