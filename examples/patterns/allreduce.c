/* Allreduce loop: -c us of computation, then MPI_Allreduce (MPI_SUM) of -s bytes of
 * doubles. Defaults: 10000 allreduces of 8 bytes. */
#include "patterns.h"

static void iteration(pattern *p, long i)
{
    (void)i;
    pattern_compute(p);
    MPI_Allreduce(p->sbuf, p->rbuf, (int)(p->bytes / sizeof(double)), MPI_DOUBLE, MPI_SUM,
                  MPI_COMM_WORLD);
}

int main(int argc, char **argv)
{
    pattern p;
    int rc = pattern_init(&p, "allreduce", 10000, 8, &argc, &argv);
    if (rc)
        return rc;
    if (p.bytes % sizeof(double)) {
        if (p.rank == 0)
            fprintf(stderr, "allreduce: -s %zu is not a whole number of doubles\n", p.bytes);
        MPI_Finalize();
        return 2;
    }
    /* Doubles that stay finite however often they are summed. */
    for (size_t k = 0; k < p.bytes / sizeof(double); k++)
        ((double *)p.sbuf)[k] = 1.0 / (double)(k + 1);
    pattern_run(&p, iteration);
    return pattern_finish(&p);
}
