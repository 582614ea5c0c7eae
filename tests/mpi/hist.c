/*
 * hist: a known mix of point-to-point message sizes on 8 ranks for the live psmpi
 * histogram. Under RETRACE_EMULATE=nodes=4,modules=2 (node = rank / 2, module = rank / 4)
 * the messages counted (each once, where it is sent) are:
 *
 *   from -> to  contype  bytes                 call
 *   0 -> 1      shm      0, 1, 64              Send
 *   0 -> 1      shm      65                    Isend
 *   0 -> 2      net      100                   Ssend
 *   0 -> 2      net      4096                  Bsend
 *   0 -> 4      gw       1048576               Send
 *   0 -> 0      loop     8                     the send half of a Sendrecv
 *   3 -> 6      gw       128, 128              one Send_init, started twice
 *   5 -> 4      shm      200                   Sendrecv
 *   4 -> 5      shm      300                   Sendrecv
 *   7 -> 0      gw       67108865 (64 MiB + 1) Isend
 *   6 -> 2      gw       1048577               Send
 *
 * and these are not: the receives, sends to MPI_PROC_NULL (blocking and not), collectives
 * (a Bcast, an Allreduce, the final Reduce) and RMA (a Put). The expected histograms, by
 * hand, are expected/hist.*.out.
 */
#include <stdlib.h>
#include <string.h>

#include "mpitest.h"

#define W MPI_COMM_WORLD
#define BIG (64 * 1024 * 1024 + 1)
#define MIB (1024 * 1024)

static int rank;

/* Receives posted before any send, so that no blocking send waits on a later receive. */
typedef struct receives {
    MPI_Request q[8];
    int n;
} receives;

static void post(receives *r, void *buf, int bytes, int from, int tag)
{
    MPI_Irecv(buf, bytes, MPI_BYTE, from, tag, W, &r->q[r->n++]);
}

int main(int argc, char **argv)
{
    static char bsend_buffer[8192];
    char small[4096 + 100], rsmall[4][128], r4096[4096], self_in[8];
    char *big = NULL, *mib = NULL;
    int size, tmp;
    void *detached;
    receives rc = {.n = 0};
    MPI_Request q;

    rank = mt_init(&argc, &argv, "hist", 8, MT_NO_THREADS);
    MPI_Buffer_attach(bsend_buffer, sizeof bsend_buffer);
    memset(small, 'h', sizeof small);
    if (rank == 0 || rank == 7)
        big = malloc(BIG);
    if (rank == 0 || rank == 4 || rank == 6 || rank == 2)
        mib = malloc(MIB + 1);
    if ((rank == 0 || rank == 7) && !big) {
        fprintf(stderr, "hist: out of memory\n");
        MPI_Abort(W, 1);
    }

    /* Receives first. */
    if (rank == 0)
        post(&rc, big, BIG, 7, 9);
    if (rank == 1)
        for (int i = 0; i < 4; i++)
            post(&rc, rsmall[i], 128, 0, i);
    if (rank == 2) {
        post(&rc, rsmall[0], 128, 0, 4);
        post(&rc, r4096, 4096, 0, 5);
        post(&rc, mib, MIB + 1, 6, 10);
    }
    if (rank == 4)
        post(&rc, mib, MIB, 0, 6);
    if (rank == 6)
        for (int i = 0; i < 2; i++)
            post(&rc, rsmall[i], 128, 3, 7);
    MPI_Barrier(W);

    /* Sends. */
    if (rank == 0) {
        MPI_Send(small, 0, MPI_BYTE, 1, 0, W);
        MPI_Send(small, 1, MPI_BYTE, 1, 1, W);
        MPI_Send(small, 64, MPI_BYTE, 1, 2, W);
        MPI_Isend(small, 65, MPI_BYTE, 1, 3, W, &q);
        MPI_Wait(&q, MPI_STATUS_IGNORE);
        MPI_Ssend(small, 100, MPI_BYTE, 2, 4, W);
        MPI_Bsend(small, 4096, MPI_BYTE, 2, 5, W);
        memset(mib, 'm', MIB);
        MPI_Send(mib, MIB, MPI_BYTE, 4, 6, W);
        MPI_Sendrecv(small, 8, MPI_BYTE, 0, 8, self_in, 8, MPI_BYTE, 0, 8, W, MPI_STATUS_IGNORE);
        MT_CHECK(self_in[7] == 'h');
    } else if (rank == 1) {
        MPI_Send(small, 100, MPI_BYTE, MPI_PROC_NULL, 0, W);
        MPI_Isend(small, 100, MPI_BYTE, MPI_PROC_NULL, 0, W, &q);
        MPI_Wait(&q, MPI_STATUS_IGNORE);
    } else if (rank == 3) {
        MPI_Send_init(small, 128, MPI_BYTE, 6, 7, W, &q);
        for (int i = 0; i < 2; i++) {
            MPI_Start(&q);
            MPI_Wait(&q, MPI_STATUS_IGNORE);
        }
        MPI_Request_free(&q);
    } else if (rank == 4 || rank == 5) {
        int other = rank == 4 ? 5 : 4, out = rank == 4 ? 300 : 200, got;
        MPI_Status st;
        MPI_Sendrecv(small, out, MPI_BYTE, other, 11, r4096, 4096, MPI_BYTE, other, 11, W, &st);
        MPI_Get_count(&st, MPI_BYTE, &got);
        MT_CHECK(got == 500 - out);
    } else if (rank == 6) {
        memset(mib, 'g', MIB + 1);
        MPI_Send(mib, MIB + 1, MPI_BYTE, 2, 10, W);
    } else if (rank == 7) {
        memset(big, 'b', BIG);
        MPI_Isend(big, BIG, MPI_BYTE, 0, 9, W, &q);
        MPI_Wait(&q, MPI_STATUS_IGNORE);
    }
    if (rc.n)
        MPI_Waitall(rc.n, rc.q, MPI_STATUSES_IGNORE);
    if (rank == 0)
        MT_CHECK(big[0] == 'b' && big[BIG - 1] == 'b');
    if (rank == 2)
        MT_CHECK(mib[MIB] == 'g' && r4096[4095] == 'h');
    if (rank == 4)
        MT_CHECK(mib[MIB - 1] == 'm');

    /* Not counted: collectives and RMA. */
    tmp = rank;
    MPI_Bcast(&tmp, 1, MPI_INT, 3, W);
    MT_CHECK(tmp == 3);
    MPI_Allreduce(MPI_IN_PLACE, &tmp, 1, MPI_INT, MPI_SUM, W);
    {
        char window[64] = {0};
        MPI_Win win;
        MPI_Win_create(window, sizeof window, 1, MPI_INFO_NULL, W, &win);
        MPI_Win_fence(0, win);
        if (rank == 2)
            MPI_Put(small, 64, MPI_BYTE, 3, 0, 64, MPI_BYTE, win);
        MPI_Win_fence(0, win);
        if (rank == 3)
            MT_CHECK(window[63] == 'h');
        MPI_Win_free(&win);
    }
    MPI_Buffer_detach(&detached, &size);
    free(big);
    free(mib);
    mt_finish("hist");
    MPI_Finalize();
    return 0;
}
