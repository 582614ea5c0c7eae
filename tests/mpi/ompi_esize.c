/*
 * ompi_esize: an allreduce of 4 floats, then one of 2 doubles: the same 16 bytes, 4 and 2
 * elements. With Open MPI's ring allreduce forced (mpi.openmpi.wire_esize), which needs at
 * least as many elements as ranks and otherwise runs recursive doubling, the floats go round
 * the ring on 3 and 4 ranks and the doubles by recursive doubling: retrace's wire level must
 * count the same messages, which it can only from the element sizes the trace records.
 */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    float f[4] = {1, 2, 3, 4}, fs[4];
    double d[2] = {1, 2}, ds[2];
    MPI_Allreduce(f, fs, 4, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(d, ds, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    int p;
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    int bad = fs[3] != 4.0f * (float)p || ds[1] != 2.0 * p;
    if (bad)
        fprintf(stderr, "ompi_esize: wrong sums\n");
    MPI_Finalize();
    return bad;
}
