/*
 * esize: the element sizes (datatype sizes) the trace records on messages and collectives, on 4
 * ranks (issue 18). An allreduce of 4 floats and one of 2 doubles move the same 16 bytes but
 * 4 and 2 elements: Open MPI's ring allreduce runs only with at least as many elements as
 * ranks, so forced (mpi.openmpi.wire_esize) the floats go round the ring and the doubles by
 * recursive doubling. Also a ring of 3 ints (Isend, Recv), a bcast of one element of a
 * contiguous type of 3 doubles (24 bytes: kept), one of a 100-byte type (not kept: unknown),
 * an Iallreduce of 4 floats, a gather of 2 shorts per rank, an Alltoallw whose blocks are all
 * 8 bytes but 2 ints to even ranks and 1 double to odd ones (rows for the sizes alone), an
 * Ialltoallv of k + 1 shorts to rank k (rows kept with the request until its Wait) and
 * mt_finish's reduce of 2 longs.
 * The expected trace, derived by hand, is expected/esize.dump.
 */
#include "mpitest.h"

#define W MPI_COMM_WORLD

int main(int argc, char **argv)
{
    int rank = mt_init(&argc, &argv, "esize", 4, MT_NO_THREADS);
    float f[4] = {1, 2, 3, 4}, fs[4];
    double d[2] = {rank, 2.0 * rank}, ds[2];
    MPI_Allreduce(f, fs, 4, MPI_FLOAT, MPI_SUM, W);
    MT_CHECK(fs[0] == 4 && fs[3] == 16);
    MPI_Allreduce(d, ds, 2, MPI_DOUBLE, MPI_SUM, W);
    MT_CHECK(ds[0] == 6 && ds[1] == 12);

    int out[3] = {rank, rank, rank}, in[3] = {-1, -1, -1};
    MPI_Request rq;
    MPI_Isend(out, 3, MPI_INT, (rank + 1) % 4, 5, W, &rq);
    MPI_Recv(in, 3, MPI_INT, (rank + 3) % 4, 5, W, MPI_STATUS_IGNORE);
    MPI_Wait(&rq, MPI_STATUS_IGNORE);
    MT_CHECK(in[2] == (rank + 3) % 4);

    MPI_Datatype three, hundred;
    MPI_Type_contiguous(3, MPI_DOUBLE, &three);
    MPI_Type_commit(&three);
    MPI_Type_contiguous(100, MPI_BYTE, &hundred);
    MPI_Type_commit(&hundred);
    double t[3] = {rank, rank, 7};
    MPI_Bcast(t, 1, three, 0, W);
    MT_CHECK(t[0] == 0 && t[2] == 7);
    char h[100] = {(char)rank};
    MPI_Bcast(h, 1, hundred, 1, W);
    MT_CHECK(h[0] == 1);
    MPI_Type_free(&three);
    MPI_Type_free(&hundred);

    MPI_Iallreduce(f, fs, 4, MPI_FLOAT, MPI_SUM, W, &rq);
    MPI_Wait(&rq, MPI_STATUS_IGNORE);
    MT_CHECK(fs[1] == 8);

    short s[2] = {(short)rank, 1}, all[8];
    MPI_Gather(s, 2, MPI_SHORT, all, 2, MPI_SHORT, 0, W);
    MT_CHECK(rank != 0 || all[6] == 3);

    int wi[8], ri[8], wc[4], wd[4];
    MPI_Datatype wt[4];
    for (int k = 0; k < 4; k++) {
        wc[k] = k % 2 ? 1 : 2;
        wd[k] = 8 * k;
        wt[k] = k % 2 ? MPI_DOUBLE : MPI_INT;
        wi[2 * k] = wi[2 * k + 1] = 10 * rank + k;
    }
    MPI_Alltoallw(wi, wc, wd, wt, ri, wc, wd, wt, W);
    MT_CHECK(ri[4] == 10 * 2 + rank);
    short vs[10], vr[4 * 4];
    int vc[4], vd[4], rc[4], rd[4];
    for (int k = 0, at = 0; k < 4; k++) {
        vc[k] = k + 1;
        vd[k] = at;
        at += k + 1;
        rc[k] = rank + 1;
        rd[k] = k * (rank + 1);
    }
    for (int i = 0; i < 10; i++)
        vs[i] = (short)(100 * rank + i);
    MPI_Ialltoallv(vs, vc, vd, MPI_SHORT, vr, rc, rd, MPI_SHORT, W, &rq);
    MPI_Wait(&rq, MPI_STATUS_IGNORE);
    MT_CHECK(vr[3 * (rank + 1)] == 300 + vd[rank]);
    mt_finish("esize");
    MPI_Finalize();
    return 0;
}
