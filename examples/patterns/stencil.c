/* Stencil: the loop of an iterative solver on a periodic 2D grid of ranks. Every iteration
 * exchanges -s bytes with each of the four neighbours (halo.h), computes -c us, then sums a
 * residual over all ranks (MPI_Allreduce of one double), as a solver tests for convergence.
 * Point-to-point messages, a collective and, on 4 ranks in 2 modules, gateway crossings:
 * `retrace demo` records it. Defaults: 1000 iterations of 8 KiB faces. */
#include "halo.h"

static void iteration(pattern *p, long i)
{
    halo_exchange(p);
    pattern_compute(p);
    double local = 1.0 / (double)(i + 1 + p->rank), residual;
    MPI_Allreduce(&local, &residual, 1, MPI_DOUBLE, MPI_SUM, halo_grid);
}

int main(int argc, char **argv)
{
    pattern p;
    int rc = pattern_init(&p, "stencil", 1000, 8192, &argc, &argv);
    if (rc)
        return rc;
    halo_setup(&p);
    pattern_run(&p, iteration);
    halo_teardown();
    return pattern_finish(&p);
}
