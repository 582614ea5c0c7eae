/* RMA fence exchange: every rank exposes a window of -s bytes; each iteration is a fence,
 * an MPI_Put of -s bytes into the next rank's window, and a fence, then -c us of
 * computation. Defaults: 5000 epochs of 1 KiB. */
#include "patterns.h"

static MPI_Win win;

static void iteration(pattern *p, long i)
{
    (void)i;
    int n = (int)p->bytes;
    MPI_Win_fence(0, win);
    MPI_Put(p->sbuf, n, MPI_BYTE, (p->rank + 1) % p->size, 0, n, MPI_BYTE, win);
    MPI_Win_fence(0, win);
    pattern_compute(p);
}

int main(int argc, char **argv)
{
    pattern p;
    int rc = pattern_init(&p, "rma_fence", 5000, 1024, &argc, &argv);
    if (rc)
        return rc;
    MPI_Win_create(p.rbuf, (MPI_Aint)(p.bytes ? p.bytes : 1), 1, MPI_INFO_NULL, MPI_COMM_WORLD,
                   &win);
    pattern_run(&p, iteration);
    MPI_Win_free(&win);
    return pattern_finish(&p);
}
