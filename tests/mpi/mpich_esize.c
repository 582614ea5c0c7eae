/*
 * mpich_esize: allreduces of 4 floats and of 2 doubles (16 bytes each, 4 and 2 elements) for
 * mpi.mpich.wire_esize (mpich_wire.sh), which counts the messages MPICH really sends in them.
 * usage: mpich_esize f|d|fd K. For each kind named, in that order: one call that opens the
 * connections, a barrier, close(-MARK) (a system call that does nothing and that strace
 * shows), K calls, close(-MARK - 1), a barrier: between its two marks a rank sends exactly
 * its messages of the K calls, and no other rank's start or end (connection set-up, the
 * barriers, MPI_Finalize) makes it answer there. MARK is 1001 for the floats, 1003 for the
 * doubles. Exits 1 when a sum is wrong.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int run(const char *kind, int k, int p)
{
    float f[4] = {1, 2, 3, 4}, fs[4] = {0};
    double d[2] = {1, 2}, ds[2] = {0};
    int floats = *kind == 'f';
    for (int i = 0; i <= k; i++) {
        if (i == 1) {
            MPI_Barrier(MPI_COMM_WORLD);
            close(floats ? -1001 : -1003);
        }
        if (floats)
            MPI_Allreduce(f, fs, 4, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
        else
            MPI_Allreduce(d, ds, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    }
    close(floats ? -1002 : -1004);
    MPI_Barrier(MPI_COMM_WORLD);
    return floats ? fs[3] != 4.0f * (float)p : ds[1] != 2.0 * p;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int p, bad = 0;
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    long k = argc == 3 ? strtol(argv[2], NULL, 10) : 0;
    if (argc != 3 || strspn(argv[1], "fd") != strlen(argv[1]) || !*argv[1] || k < 1 || k > 100000) {
        fprintf(stderr, "usage: mpich_esize f|d|fd K (K from 1 to 100000)\n");
        MPI_Finalize();
        return 2;
    }
    for (const char *c = argv[1]; *c; c++)
        bad |= run(c, (int)k, p);
    if (bad)
        fprintf(stderr, "mpich_esize: wrong sums\n");
    MPI_Finalize();
    return bad;
}
