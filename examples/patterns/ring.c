/* Ring: every rank sends -s bytes to the next rank and receives from the previous one
 * (MPI_Sendrecv), after -c us of computation. Defaults: 5000 steps of 1 KiB. */
#include "patterns.h"

static void iteration(pattern *p, long i)
{
    (void)i;
    int n = (int)p->bytes;
    int next = (p->rank + 1) % p->size, prev = (p->rank + p->size - 1) % p->size;
    pattern_compute(p);
    MPI_Sendrecv(p->sbuf, n, MPI_BYTE, next, 0, p->rbuf, n, MPI_BYTE, prev, 0, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
}

int main(int argc, char **argv)
{
    pattern p;
    int rc = pattern_init(&p, "ring", 5000, 1024, &argc, &argv);
    if (rc)
        return rc;
    pattern_run(&p, iteration);
    return pattern_finish(&p);
}
