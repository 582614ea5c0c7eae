/*
 * The program behind the SimGrid TI trace next to it (app.ti, app.ti_files/), recorded by
 * SimGrid 3.32 (Debian 12's libsimgrid-dev) in this directory with:
 *   smpicc -O1 -o /tmp/app app.c
 *   smpirun -np 4 -platform p.xml -hostfile h.txt -trace-ti --cfg=tracing/filename:app.ti /tmp/app
 * where p.xml is <cluster id="c" prefix="node-" suffix="" radical="0-3" speed="1Gf"
 * bw="12.5GBps" lat="1.5us"/> and h.txt lists node-0 to node-3. It makes every call whose
 * action SimGrid's replay knows, with several datatypes (tests/unit/test_ti.c reads it).
 */
#include <mpi.h>
#include <stdio.h>
int main(int argc, char **argv)
{
    int me, p;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    double buf[64] = {0}, rbuf[256] = {0};
    int counts[4] = {4, 4, 4, 4}, displs[4] = {0, 4, 8, 12};
    MPI_Request rq[2];
    if (me == 0)
        MPI_Send(buf, 8, MPI_DOUBLE, 1, 3, MPI_COMM_WORLD);
    if (me == 1)
        MPI_Recv(buf, 8, MPI_DOUBLE, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    int right = (me + 1) % p, left = (me + p - 1) % p;
    MPI_Irecv(rbuf, 5, MPI_INT, left, 7, MPI_COMM_WORLD, &rq[0]);
    MPI_Isend(buf, 5, MPI_INT, right, 7, MPI_COMM_WORLD, &rq[1]);
    MPI_Wait(&rq[0], MPI_STATUS_IGNORE);
    MPI_Wait(&rq[1], MPI_STATUS_IGNORE);
    MPI_Irecv(rbuf, 3, MPI_CHAR, left, 8, MPI_COMM_WORLD, &rq[0]);
    MPI_Isend(buf, 3, MPI_CHAR, right, 8, MPI_COMM_WORLD, &rq[1]);
    MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
    for (volatile long i = 0; i < 1000000; i++)
        ;
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Bcast(buf, 10, MPI_DOUBLE, 2, MPI_COMM_WORLD);
    MPI_Reduce(buf, rbuf, 6, MPI_FLOAT, MPI_SUM, 1, MPI_COMM_WORLD);
    MPI_Allreduce(buf, rbuf, 6, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    MPI_Alltoall(buf, 2, MPI_INT, rbuf, 2, MPI_INT, MPI_COMM_WORLD);
    MPI_Gather(buf, 3, MPI_SHORT, rbuf, 3, MPI_SHORT, 0, MPI_COMM_WORLD);
    MPI_Allgather(buf, 3, MPI_INT, rbuf, 3, MPI_INT, MPI_COMM_WORLD);
    MPI_Gatherv(buf, 4, MPI_INT, rbuf, counts, displs, MPI_INT, 3, MPI_COMM_WORLD);
    MPI_Allgatherv(buf, 4, MPI_INT, rbuf, counts, displs, MPI_INT, MPI_COMM_WORLD);
    MPI_Scatter(buf, 2, MPI_DOUBLE, rbuf, 2, MPI_DOUBLE, 1, MPI_COMM_WORLD);
    MPI_Scatterv(buf, counts, displs, MPI_INT, rbuf, 4, MPI_INT, 2, MPI_COMM_WORLD);
    MPI_Reduce_scatter(buf, rbuf, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Alltoallv(buf, counts, displs, MPI_INT, rbuf, counts, displs, MPI_INT, MPI_COMM_WORLD);
    MPI_Scan(buf, rbuf, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    MPI_Exscan(buf, rbuf, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    MPI_Sendrecv(buf, 2, MPI_INT, right, 9, rbuf, 2, MPI_INT, left, 9, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    MPI_Comm c2;
    MPI_Comm_split(MPI_COMM_WORLD, me % 2, me, &c2);
    MPI_Comm_free(&c2);
    int flag = 0;
    MPI_Irecv(rbuf, 1, MPI_INT, left, 10, MPI_COMM_WORLD, &rq[0]);
    MPI_Send(buf, 1, MPI_INT, right, 10, MPI_COMM_WORLD);
    while (!flag)
        MPI_Test(&rq[0], &flag, MPI_STATUS_IGNORE);
    MPI_Finalize();
    return 0;
}
