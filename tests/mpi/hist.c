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

/* What each rank sends and receives; big and mib only on the ranks that use them. */
typedef struct buffers {
    char small[4096 + 100], rsmall[4][128], r4096[4096], self_in[8];
    char *big, *mib;
} buffers;

/* The send buffer filled, big and mib allocated where they are used; a rank without its
 * 64 MiB buffer ends the run. */
static void alloc_buffers(buffers *b)
{
    memset(b->small, 'h', sizeof b->small);
    if (rank == 0 || rank == 7)
        b->big = malloc(BIG);
    if (rank == 0 || rank == 4 || rank == 6 || rank == 2)
        b->mib = malloc(MIB + 1);
    if ((rank == 0 || rank == 7) && !b->big) {
        fprintf(stderr, "hist: out of memory\n");
        MPI_Abort(W, 1);
    }
}

/* Every receive of the messages counted, posted before any send. */
static void post_receives(receives *rc, buffers *b)
{
    if (rank == 0)
        post(rc, b->big, BIG, 7, 9);
    if (rank == 1)
        for (int i = 0; i < 4; i++)
            post(rc, b->rsmall[i], 128, 0, i);
    if (rank == 2) {
        post(rc, b->rsmall[0], 128, 0, 4);
        post(rc, b->r4096, 4096, 0, 5);
        post(rc, b->mib, MIB + 1, 6, 10);
    }
    if (rank == 4)
        post(rc, b->mib, MIB, 0, 6);
    if (rank == 6)
        for (int i = 0; i < 2; i++)
            post(rc, b->rsmall[i], 128, 3, 7);
}

/* Rank 0's sends: shm to 1, net to 2, gw to 4 and the loop to itself (a Sendrecv). */
static void send_from_0(buffers *b)
{
    MPI_Request q;
    MPI_Send(b->small, 0, MPI_BYTE, 1, 0, W);
    MPI_Send(b->small, 1, MPI_BYTE, 1, 1, W);
    MPI_Send(b->small, 64, MPI_BYTE, 1, 2, W);
    MPI_Isend(b->small, 65, MPI_BYTE, 1, 3, W, &q);
    MPI_Wait(&q, MPI_STATUS_IGNORE);
    MPI_Ssend(b->small, 100, MPI_BYTE, 2, 4, W);
    MPI_Bsend(b->small, 4096, MPI_BYTE, 2, 5, W);
    memset(b->mib, 'm', MIB);
    MPI_Send(b->mib, MIB, MPI_BYTE, 4, 6, W);
    MPI_Sendrecv(b->small, 8, MPI_BYTE, 0, 8, b->self_in, 8, MPI_BYTE, 0, 8, W, MPI_STATUS_IGNORE);
    MT_CHECK(b->self_in[7] == 'h');
}

/* This rank's sends of the table above, and rank 1's to MPI_PROC_NULL. */
static void send_messages(buffers *b)
{
    MPI_Request q;
    if (rank == 0) {
        send_from_0(b);
    } else if (rank == 1) {
        MPI_Send(b->small, 100, MPI_BYTE, MPI_PROC_NULL, 0, W);
        MPI_Isend(b->small, 100, MPI_BYTE, MPI_PROC_NULL, 0, W, &q);
        MPI_Wait(&q, MPI_STATUS_IGNORE);
    } else if (rank == 3) {
        MPI_Send_init(b->small, 128, MPI_BYTE, 6, 7, W, &q);
        for (int i = 0; i < 2; i++) {
            MPI_Start(&q);
            MPI_Wait(&q, MPI_STATUS_IGNORE);
        }
        MPI_Request_free(&q);
    } else if (rank == 4 || rank == 5) {
        int other = rank == 4 ? 5 : 4, out = rank == 4 ? 300 : 200, got;
        MPI_Status st;
        MPI_Sendrecv(b->small, out, MPI_BYTE, other, 11, b->r4096, 4096, MPI_BYTE, other, 11, W,
                     &st);
        MPI_Get_count(&st, MPI_BYTE, &got);
        MT_CHECK(got == 500 - out);
    } else if (rank == 6) {
        memset(b->mib, 'g', MIB + 1);
        MPI_Send(b->mib, MIB + 1, MPI_BYTE, 2, 10, W);
    } else if (rank == 7) {
        memset(b->big, 'b', BIG);
        MPI_Isend(b->big, BIG, MPI_BYTE, 0, 9, W, &q);
        MPI_Wait(&q, MPI_STATUS_IGNORE);
    }
}

/* The large messages arrived whole, once every receive has completed. */
static void check_received(const buffers *b)
{
    if (rank == 0)
        MT_CHECK(b->big[0] == 'b' && b->big[BIG - 1] == 'b');
    if (rank == 2)
        MT_CHECK(b->mib[MIB] == 'g' && b->r4096[4095] == 'h');
    if (rank == 4)
        MT_CHECK(b->mib[MIB - 1] == 'm');
}

/* Not counted: collectives and RMA. */
static void not_counted(const buffers *b)
{
    int tmp = rank;
    MPI_Bcast(&tmp, 1, MPI_INT, 3, W);
    MT_CHECK(tmp == 3);
    MPI_Allreduce(MPI_IN_PLACE, &tmp, 1, MPI_INT, MPI_SUM, W);
    char window[64] = {0};
    MPI_Win win;
    MPI_Win_create(window, sizeof window, 1, MPI_INFO_NULL, W, &win);
    MPI_Win_fence(0, win);
    if (rank == 2)
        MPI_Put(b->small, 64, MPI_BYTE, 3, 0, 64, MPI_BYTE, win);
    MPI_Win_fence(0, win);
    if (rank == 3)
        MT_CHECK(window[63] == 'h');
    MPI_Win_free(&win);
}

int main(int argc, char **argv)
{
    static char bsend_buffer[8192];
    buffers b = {.big = NULL, .mib = NULL};
    receives rc = {.n = 0};
    int size;
    void *detached;

    rank = mt_init(&argc, &argv, "hist", 8, MT_NO_THREADS);
    MPI_Buffer_attach(bsend_buffer, sizeof bsend_buffer);
    alloc_buffers(&b);
    post_receives(&rc, &b);
    MPI_Barrier(W);
    send_messages(&b);
    if (rc.n)
        MPI_Waitall(rc.n, rc.q, MPI_STATUSES_IGNORE);
    check_received(&b);
    not_counted(&b);
    MPI_Buffer_detach(&detached, &size);
    free(b.big);
    free(b.mib);
    mt_finish("hist");
    MPI_Finalize();
    return 0;
}
