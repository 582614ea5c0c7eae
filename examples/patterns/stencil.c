/* Stencil: the loop of an iterative solver on a periodic 2D grid of ranks (MPI_Dims_create,
 * MPI_Cart_create). Every iteration exchanges -s bytes with each of the four neighbours
 * (MPI_Irecv, MPI_Isend, MPI_Waitall), computes -c us, then sums a residual over all ranks
 * (MPI_Allreduce of one double), as a solver tests for convergence. Point-to-point messages,
 * a collective and, on 4 ranks in 2 modules, gateway crossings: `retrace demo` records it.
 * Defaults: 1000 iterations of 8 KiB faces. */
#include "patterns.h"

static MPI_Comm grid;
static int nbr[4]; /* -x, +x, -y, +y */
static char *halo[4];

static void iteration(pattern *p, long i)
{
    int n = (int)p->bytes;
    MPI_Request q[8];
    for (int d = 0; d < 4; d++)
        MPI_Irecv(halo[d], n, MPI_BYTE, nbr[d], d, grid, &q[d]);
    /* What goes to the -x neighbour arrives there as from its +x side: tag d ^ 1. */
    for (int d = 0; d < 4; d++)
        MPI_Isend(p->sbuf, n, MPI_BYTE, nbr[d], d ^ 1, grid, &q[4 + d]);
    MPI_Status st[8]; /* not MPI_STATUSES_IGNORE: GCC 12 takes it for an 8-entry array */
    MPI_Waitall(8, q, st);
    pattern_compute(p);
    double local = 1.0 / (double)(i + 1 + p->rank), residual;
    MPI_Allreduce(&local, &residual, 1, MPI_DOUBLE, MPI_SUM, grid);
}

int main(int argc, char **argv)
{
    pattern p;
    int rc = pattern_init(&p, "stencil", 1000, 8192, &argc, &argv);
    if (rc)
        return rc;
    int dims[2] = {0, 0}, periods[2] = {1, 1};
    MPI_Dims_create(p.size, 2, dims);
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &grid);
    MPI_Cart_shift(grid, 0, 1, &nbr[0], &nbr[1]);
    MPI_Cart_shift(grid, 1, 1, &nbr[2], &nbr[3]);
    for (int d = 0; d < 4; d++) {
        halo[d] = calloc(1, p.bytes ? p.bytes : 1);
        if (!halo[d])
            MPI_Abort(MPI_COMM_WORLD, 1);
    }
    pattern_run(&p, iteration);
    for (int d = 0; d < 4; d++)
        free(halo[d]);
    MPI_Comm_free(&grid);
    return pattern_finish(&p);
}
