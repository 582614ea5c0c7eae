/*
 * part: MPI-4 partitioned communication on 2 ranks, as docs/tracer.md records it under
 * MPICH 4.0: one partitioned send of 4 partitions of 8 ints (128 bytes) from rank 0 to rank 1,
 * tag 7, received as 2 partitions of 16 ints, started twice.
 *  - round 1 (MPI_Start): rank 0 makes partitions 2 and 3 ready (Pready_range), then 1 and 0
 *    (Pready_list: the last ones, its ISEND); rank 1 polls MPI_Parrived on partition 1 until it
 *    returns true (its IRECV), then waits (nothing more); rank 0's wait: ISEND_COMPLETE.
 *  - round 2 (MPI_Startall): rank 0 makes ready 3, 0, then 2 (Pready_list of one), then 1
 *    (Pready: its ISEND); rank 1 waits (its IRECV).
 *  - round 3 (MPI_Start): an ordinary message (MPI_Isend of one int, 4 bytes) on the same
 *    communicator, peers and tag as the partitioned one, sent before it (Pready_range of all
 *    4 partitions: its ISEND) and received after it was posted (rank 1's Start, then its
 *    MPI_Recv): MPI never pairs the two, and a matcher that pairs by communicator, peers, tag
 *    and order alone would (the mark, op=partitioned, keeps them apart).
 * Between rounds 1 and 2 a barrier, and an ordinary message on another tag from rank 1 to 0.
 * The expected trace, derived by hand, is expected/part.dump. With the argument "hang" it
 * makes a send that never goes instead (hang, below).
 */
#include <string.h>
#include <unistd.h>

#include "mpitest.h"

#define W MPI_COMM_WORLD
#define PARTS 4
#define COUNT 8
#define N (PARTS * COUNT)

static void fill(int *b, int base)
{
    for (int i = 0; i < N; i++)
        b[i] = base + i;
}

static int is_filled(const int *b, int base)
{
    for (int i = 0; i < N; i++)
        if (b[i] != base + i)
            return 0;
    return 1;
}

/* hang: rank 0 makes only 3 of its 4 partitions ready and waits for its send, rank 1 waits for
 * its receive: the message never goes, and both wait until the run is ended (the case
 * part_hang). */
static void hang(int rank, int *buf)
{
    MPI_Request rq;
    if (rank == 0) {
        printf("part: hang: 2 ranks started\n");
        fflush(stdout);
        MPI_Psend_init(buf, PARTS, COUNT, MPI_INT, 1, 7, W, MPI_INFO_NULL, &rq);
        fill(buf, 1000);
        MPI_Start(&rq);
        MPI_Pready_range(0, 2, rq);
    } else {
        MPI_Precv_init(buf, PARTS / 2, 2 * COUNT, MPI_INT, 0, 7, W, MPI_INFO_NULL, &rq);
        MPI_Start(&rq);
    }
    MPI_Wait(&rq, MPI_STATUS_IGNORE);
}

int main(int argc, char **argv)
{
    int buf[N], other = 0, flag = 0;
    MPI_Request rq;
    int rank = mt_init(&argc, &argv, "part", 2, MT_NO_THREADS);
    if (argc > 1 && !strcmp(argv[1], "hang")) {
        hang(rank, buf);
        return 1; /* not reached: the run is ended from outside */
    }
    if (rank == 0) {
        MPI_Psend_init(buf, PARTS, COUNT, MPI_INT, 1, 7, W, MPI_INFO_NULL, &rq);
        fill(buf, 1000);
        MPI_Start(&rq);
        MPI_Pready_range(2, 3, rq);
        int first[2] = {1, 0};
        MPI_Pready_list(2, first, rq);
        MPI_Wait(&rq, MPI_STATUS_IGNORE);
        MPI_Recv(&other, 1, MPI_INT, 1, 8, W, MPI_STATUS_IGNORE);
        MT_CHECK(other == 42);
        MPI_Barrier(W);
        fill(buf, 2000);
        MPI_Startall(1, &rq);
        MPI_Pready(3, rq);
        MPI_Pready(0, rq);
        int third[1] = {2};
        MPI_Pready_list(1, third, rq);
        MPI_Pready(1, rq);
        MPI_Wait(&rq, MPI_STATUS_IGNORE);
        int small = 7;
        MPI_Request ro;
        fill(buf, 3000);
        MPI_Start(&rq);
        MPI_Isend(&small, 1, MPI_INT, 1, 7, W, &ro);
        MPI_Pready_range(0, PARTS - 1, rq);
        MPI_Wait(&ro, MPI_STATUS_IGNORE);
        MPI_Wait(&rq, MPI_STATUS_IGNORE);
    } else {
        MPI_Precv_init(buf, PARTS / 2, 2 * COUNT, MPI_INT, 0, 7, W, MPI_INFO_NULL, &rq);
        MPI_Start(&rq);
        for (MPI_Parrived(rq, 1, &flag); !flag; MPI_Parrived(rq, 1, &flag))
            usleep(1000); /* a poll a millisecond: the trace stays small */
        MPI_Wait(&rq, MPI_STATUS_IGNORE);
        MT_CHECK(is_filled(buf, 1000));
        other = 42;
        MPI_Send(&other, 1, MPI_INT, 0, 8, W);
        MPI_Barrier(W);
        MPI_Startall(1, &rq);
        MPI_Wait(&rq, MPI_STATUS_IGNORE);
        MT_CHECK(is_filled(buf, 2000));
        MPI_Start(&rq);
        MPI_Recv(&other, 1, MPI_INT, 0, 7, W, MPI_STATUS_IGNORE);
        MT_CHECK(other == 7);
        MPI_Wait(&rq, MPI_STATUS_IGNORE);
        MT_CHECK(is_filled(buf, 3000));
    }
    MPI_Request_free(&rq);
    mt_finish("part");
    MPI_Finalize();
    return 0;
}
