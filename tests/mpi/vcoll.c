/*
 * vcoll: v collectives with uneven per-peer counts on 4 ranks, the case the trace's COLL_PEER
 * rows are for (formats/rt_event.h, "The per-peer counts"). Rank i sends S[i][j] bytes to
 * rank j in an MPI_Alltoallv (zeros included: rank 2 sends to rank 1 only), the transpose in
 * an MPI_Ialltoallv; an MPI_Gatherv and an MPI_Scatterv rooted at 0 and an MPI_Allgatherv
 * with uneven blocks; then an MPI_Alltoallv of equal blocks, which must leave no rows. Every
 * byte received is checked. The expected trace, derived by hand, is expected/vcoll.dump.
 */
#include <string.h>

#include "mpitest.h"

#define W MPI_COMM_WORLD
#define P 4

static const int S[P][P] = {{0, 100, 0, 300}, {10, 5, 0, 30}, {0, 200, 0, 0}, {1000, 0, 2000, 0}};
static const int G[P] = {8, 16, 0, 24};  /* gatherv: rank r sends G[r] bytes to the root */
static const int A[P] = {4, 0, 12, 8};   /* allgatherv: rank r's block */
static const int SC[P] = {0, 40, 8, 16}; /* scatterv: the root's block for rank r */

static int rank;
static unsigned char sbuf[4096], rbuf[4096];

/* The byte at position k of the block rank src sends to rank dst in test t. */
static unsigned char byte_of(int t, int src, int dst, int k)
{
    return (unsigned char)(t * 61 + src * 17 + dst * 5 + k);
}

/* Counts and displacements of a row of blocks packed in order. */
static int pack(const int *n, int *displs)
{
    int at = 0;
    for (int j = 0; j < P; j++) {
        displs[j] = at;
        at += n[j];
    }
    return at;
}

/* Fills the blocks this rank sends (sn[j] bytes to j at sd[j]) in test t; check: those it
 * received (rn[j] from j at rd[j]). */
static void fill(int t, const int *sn, const int *sd)
{
    for (int j = 0; j < P; j++)
        for (int k = 0; k < sn[j]; k++)
            sbuf[sd[j] + k] = byte_of(t, rank, j, k);
}

static void check(int t, const int *rn, const int *rd)
{
    int bad = 0;
    for (int j = 0; j < P; j++)
        for (int k = 0; k < rn[j]; k++)
            bad += rbuf[rd[j] + k] != byte_of(t, j, rank, k);
    MT_CHECK(bad == 0);
}

/* alltoallv (blocking, t = 0) or ialltoallv (t = 1) of S, transposed when t is 1. */
static void alltoallv(int t)
{
    int sn[P], rn[P], sd[P], rd[P];
    for (int j = 0; j < P; j++) {
        sn[j] = t ? S[j][rank] : S[rank][j];
        rn[j] = t ? S[rank][j] : S[j][rank];
    }
    pack(sn, sd);
    pack(rn, rd);
    fill(t, sn, sd);
    memset(rbuf, 0, sizeof rbuf);
    if (!t) {
        MPI_Alltoallv(sbuf, sn, sd, MPI_BYTE, rbuf, rn, rd, MPI_BYTE, W);
    } else {
        MPI_Request req;
        MPI_Ialltoallv(sbuf, sn, sd, MPI_BYTE, rbuf, rn, rd, MPI_BYTE, W, &req);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
    }
    check(t, rn, rd);
}

/* gatherv to 0 (t = 2), allgatherv (t = 3), scatterv from 0 (t = 4). */
static void rooted_and_all(void)
{
    int d[P];
    pack(G, d);
    for (int k = 0; k < G[rank]; k++)
        sbuf[k] = byte_of(2, rank, 0, k);
    memset(rbuf, 0, sizeof rbuf);
    MPI_Gatherv(sbuf, G[rank], MPI_BYTE, rbuf, G, d, MPI_BYTE, 0, W);
    if (rank == 0) {
        int bad = 0;
        for (int j = 0; j < P; j++)
            for (int k = 0; k < G[j]; k++)
                bad += rbuf[d[j] + k] != byte_of(2, j, 0, k);
        MT_CHECK(bad == 0);
    }

    pack(A, d);
    for (int k = 0; k < A[rank]; k++)
        sbuf[k] = byte_of(3, rank, 0, k);
    memset(rbuf, 0, sizeof rbuf);
    MPI_Allgatherv(sbuf, A[rank], MPI_BYTE, rbuf, A, d, MPI_BYTE, W);
    int bad = 0;
    for (int j = 0; j < P; j++)
        for (int k = 0; k < A[j]; k++)
            bad += rbuf[d[j] + k] != byte_of(3, j, 0, k);
    MT_CHECK(bad == 0);

    pack(SC, d);
    if (rank == 0)
        for (int j = 0; j < P; j++)
            for (int k = 0; k < SC[j]; k++)
                sbuf[d[j] + k] = byte_of(4, 0, j, k);
    memset(rbuf, 0, sizeof rbuf);
    MPI_Scatterv(sbuf, SC, d, MPI_BYTE, rbuf, SC[rank], MPI_BYTE, 0, W);
    bad = 0;
    for (int k = 0; k < SC[rank]; k++)
        bad += rbuf[k] != byte_of(4, 0, rank, k);
    MT_CHECK(bad == 0);
}

/* An alltoallv whose blocks are all 16 bytes (t = 5): the totals say everything. */
static void equal_alltoallv(void)
{
    int n[P] = {16, 16, 16, 16}, d[P];
    pack(n, d);
    fill(5, n, d);
    memset(rbuf, 0, sizeof rbuf);
    MPI_Alltoallv(sbuf, n, d, MPI_BYTE, rbuf, n, d, MPI_BYTE, W);
    check(5, n, d);
}

int main(int argc, char **argv)
{
    rank = mt_init(&argc, &argv, "vcoll", P, MT_NO_THREADS);
    alltoallv(0);
    rooted_and_all();
    alltoallv(1);
    equal_alltoallv();
    mt_finish("vcoll");
    MPI_Finalize();
    return 0;
}
