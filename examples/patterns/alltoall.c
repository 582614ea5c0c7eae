/* Alltoall: -c us of computation, then MPI_Alltoall with -s bytes from every rank to every
 * rank (the buffers hold P blocks). Defaults: 2000 alltoalls of 4 KiB blocks. */
#include "patterns.h"

static char *sendall, *recvall;

static void iteration(pattern *p, long i)
{
    (void)i;
    int n = (int)p->bytes;
    pattern_compute(p);
    MPI_Alltoall(sendall, n, MPI_BYTE, recvall, n, MPI_BYTE, MPI_COMM_WORLD);
}

int main(int argc, char **argv)
{
    pattern p;
    int rc = pattern_init(&p, "alltoall", 2000, 4096, &argc, &argv);
    if (rc)
        return rc;
    size_t all = (p.bytes ? p.bytes : 1) * (size_t)p.size;
    sendall = malloc(all);
    recvall = calloc(1, all);
    if (!sendall || !recvall)
        MPI_Abort(MPI_COMM_WORLD, 1);
    memset(sendall, p.rank + 1, all);
    pattern_run(&p, iteration);
    free(sendall);
    free(recvall);
    return pattern_finish(&p);
}
