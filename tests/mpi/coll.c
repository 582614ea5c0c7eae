/*
 * coll: every blocking and nonblocking collective of docs/tracer.md on 4 ranks: on
 * MPI_COMM_WORLD (roots other than 0, and MPI_IN_PLACE wherever MPI allows it), on a
 * sub-communicator from Comm_split (ranks in reverse order), on an inter-communicator and its
 * merge, and the neighbourhood collectives on a periodic Cartesian ring and on an irregular
 * distributed graph. Counts differ between ranks and types differ between peers (the v and w
 * forms) so that every byte count in the trace says which argument it came from. The
 * expected trace, derived by hand, is expected/coll.dump.
 */
#include "mpitest.h"

#define W MPI_COMM_WORLD
#define P 4

static int rank;
static const int counts[P] = {1, 2, 3, 4}; /* rank r contributes r + 1 elements */
static const int displs[P] = {0, 1, 3, 6}; /* and they are packed in rank order */

/* Arguments of the alltoallv and alltoallw tests (blocking and not). */
typedef struct v_args {
    int sc[P], sd[P], rc[P], rd[P];
    MPI_Datatype st[P], rt[P]; /* alltoallw only */
} v_args;

/* alltoallv: j + 1 ints to rank j, so r + 1 ints from every rank. */
static void alltoallv_args(v_args *a)
{
    for (int j = 0; j < P; j++) {
        a->sc[j] = j + 1, a->sd[j] = displs[j];
        a->rc[j] = rank + 1, a->rd[j] = j * (rank + 1);
    }
}

/* alltoallw: j + 1 elements to rank j, doubles to odd ranks and ints to even ones;
 * displacements in bytes. */
static void alltoallw_args(v_args *a)
{
    for (int j = 0, off = 0; j < P; j++) {
        a->st[j] = j % 2 ? MPI_DOUBLE : MPI_INT;
        a->sc[j] = j + 1;
        a->sd[j] = off;
        off += (j + 1) * (j % 2 ? 8 : 4);
        a->rt[j] = rank % 2 ? MPI_DOUBLE : MPI_INT;
        a->rc[j] = rank + 1;
        a->rd[j] = j * (rank + 1) * 8;
    }
}

/* Blocking collectives on world, roots 1; v forms with counts 1, 2, 3, 4. */
static void world_blocking(void)
{
    int s[16], r[64];
    double d[2] = {rank, 1.0}, dr[2], ds[16] = {0}, dr16[32];
    v_args a;
    for (int i = 0; i < 16; i++)
        s[i] = rank * 100 + i;

    MPI_Barrier(W);
    MPI_Bcast(s, 5, MPI_INT, 1, W);
    MT_CHECK(s[0] == 100 && s[4] == 104);
    for (int i = 0; i < 16; i++)
        s[i] = rank * 100 + i;
    MPI_Gather(s, 1, MPI_INT, r, 1, MPI_INT, 1, W);
    if (rank == 1)
        MT_CHECK(r[0] == 0 && r[3] == 300);
    MPI_Gatherv(s, rank + 1, MPI_INT, r, counts, displs, MPI_INT, 1, W);
    if (rank == 1)
        MT_CHECK(r[0] == 0 && r[1] == 100 && r[9] == 303);
    MPI_Scatter(s, 2, MPI_INT, r, 2, MPI_INT, 1, W);
    MT_CHECK(r[0] == 100 + 2 * rank);
    MPI_Scatterv(s, counts, displs, MPI_INT, r, rank + 1, MPI_INT, 1, W);
    MT_CHECK(r[0] == 100 + displs[rank]);
    MPI_Allgather(s, 1, MPI_INT, r, 1, MPI_INT, W);
    MT_CHECK(r[2] == 200);
    MPI_Allgatherv(s, rank + 1, MPI_INT, r, counts, displs, MPI_INT, W);
    MT_CHECK(r[6] == 300 && r[9] == 303);
    MPI_Alltoall(s, 1, MPI_INT, r, 1, MPI_INT, W);
    MT_CHECK(r[3] == 300 + rank);
    alltoallv_args(&a);
    MPI_Alltoallv(s, a.sc, a.sd, MPI_INT, r, a.rc, a.rd, MPI_INT, W);
    MT_CHECK(r[a.rd[3]] == 300 + displs[rank]);
    alltoallw_args(&a);
    MPI_Alltoallw(ds, a.sc, a.sd, a.st, dr16, a.rc, a.rd, a.rt, W);
    MPI_Reduce(s, r, 3, MPI_INT, MPI_SUM, 1, W);
    if (rank == 1)
        MT_CHECK(r[0] == 600 && r[2] == 608);
    MPI_Allreduce(d, dr, 2, MPI_DOUBLE, MPI_SUM, W);
    MT_CHECK(dr[0] == 6.0 && dr[1] == 4.0);
    MPI_Reduce_scatter(s, r, counts, MPI_INT, MPI_SUM, W);
    MT_CHECK(r[0] == 600 + 4 * displs[rank]);
    MPI_Reduce_scatter_block(s, r, 2, MPI_INT, MPI_SUM, W);
    MT_CHECK(r[0] == 600 + 4 * 2 * rank);
    MPI_Scan(s, r, 3, MPI_INT, MPI_SUM, W);
    MT_CHECK(r[0] == 100 * rank * (rank + 1) / 2);
    MPI_Exscan(s, r, 3, MPI_INT, MPI_SUM, W);
    if (rank > 0)
        MT_CHECK(r[1] == 100 * rank * (rank - 1) / 2 + rank);
}

/* The MPI_IN_PLACE forms on world, roots 2. */
static void world_in_place(void)
{
    int s[16], r[64], c[P], d[P];
    for (int i = 0; i < 16; i++)
        s[i] = rank * 100 + i;
    for (int i = 0; i < 64; i++)
        r[i] = rank;

    if (rank == 2)
        MPI_Gather(MPI_IN_PLACE, 0, MPI_INT, r, 2, MPI_INT, 2, W);
    else
        MPI_Gather(s, 2, MPI_INT, NULL, 0, MPI_INT, 2, W);
    if (rank == 2)
        MPI_Gatherv(MPI_IN_PLACE, 0, MPI_INT, r, counts, displs, MPI_INT, 2, W);
    else
        MPI_Gatherv(s, rank + 1, MPI_INT, NULL, NULL, NULL, MPI_INT, 2, W);
    if (rank == 2)
        MPI_Scatter(s, 2, MPI_INT, MPI_IN_PLACE, 0, MPI_INT, 2, W);
    else
        MPI_Scatter(NULL, 0, MPI_INT, r, 2, MPI_INT, 2, W);
    if (rank == 2)
        MPI_Scatterv(s, counts, displs, MPI_INT, MPI_IN_PLACE, 0, MPI_INT, 2, W);
    else
        MPI_Scatterv(NULL, NULL, NULL, MPI_INT, r, rank + 1, MPI_INT, 2, W);
    if (rank != 2)
        MT_CHECK(r[0] == 200 + displs[rank]);

    MPI_Allgather(MPI_IN_PLACE, 0, MPI_INT, r, 1, MPI_INT, W);
    MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_INT, r, counts, displs, MPI_INT, W);
    MPI_Alltoall(MPI_IN_PLACE, 0, MPI_INT, r, 1, MPI_INT, W);
    /* in place alltoallv: rank i and j exchange i + j + 1 ints (symmetric, as MPI requires) */
    for (int j = 0, off = 0; j < P; j++) {
        c[j] = rank + j + 1;
        d[j] = off;
        off += c[j];
    }
    MPI_Alltoallv(MPI_IN_PLACE, NULL, NULL, MPI_INT, r, c, d, MPI_INT, W);

    for (int i = 0; i < 16; i++)
        r[i] = i;
    if (rank == 2)
        MPI_Reduce(MPI_IN_PLACE, r, 3, MPI_INT, MPI_SUM, 2, W);
    else
        MPI_Reduce(r, NULL, 3, MPI_INT, MPI_SUM, 2, W);
    if (rank == 2)
        MT_CHECK(r[0] == 0 && r[2] == 8);
    MPI_Allreduce(MPI_IN_PLACE, r, 2, MPI_INT, MPI_MAX, W);
    for (int i = 0; i < 16; i++)
        r[i] = 1;
    MPI_Reduce_scatter(MPI_IN_PLACE, r, counts, MPI_INT, MPI_SUM, W);
    MT_CHECK(r[0] == 4);
    for (int i = 0; i < 16; i++)
        r[i] = 1;
    MPI_Reduce_scatter_block(MPI_IN_PLACE, r, 1, MPI_INT, MPI_SUM, W);
    MT_CHECK(r[0] == 4);
    r[0] = 1;
    MPI_Scan(MPI_IN_PLACE, r, 1, MPI_INT, MPI_SUM, W);
    MT_CHECK(r[0] == rank + 1);
    r[0] = 1;
    MPI_Exscan(MPI_IN_PLACE, r, 1, MPI_INT, MPI_SUM, W);
    if (rank > 0)
        MT_CHECK(r[0] == rank);
}

/* Nonblocking collectives on world, roots 3; the first three completed by one Waitall. */
static void world_nonblocking(void)
{
    int s[16], r[64], one = 1, sum;
    double d2[2] = {1.0, 2.0}, x = 1.0, y, wsb[16] = {0}, wrb[32];
    v_args a;
    MPI_Request q[3];
    for (int i = 0; i < 16; i++)
        s[i] = rank * 100 + i;

    MPI_Ibarrier(W, &q[0]);
    MPI_Ibcast(d2, 2, MPI_DOUBLE, 3, W, &q[1]);
    MPI_Iallreduce(&one, &sum, 1, MPI_INT, MPI_SUM, W, &q[2]);
    MPI_Waitall(3, q, MPI_STATUSES_IGNORE);
    MT_CHECK(sum == 4);
    MPI_Igather(s, 1, MPI_INT, r, 1, MPI_INT, 3, W, &q[0]);
    MPI_Wait(&q[0], MPI_STATUS_IGNORE);
    MPI_Igatherv(s, rank + 1, MPI_INT, r, counts, displs, MPI_INT, 3, W, &q[0]);
    MPI_Wait(&q[0], MPI_STATUS_IGNORE);
    MPI_Iscatter(s, 1, MPI_INT, r, 1, MPI_INT, 3, W, &q[0]);
    MPI_Wait(&q[0], MPI_STATUS_IGNORE);
    MT_CHECK(r[0] == 300 + rank);
    MPI_Iscatterv(s, counts, displs, MPI_INT, r, rank + 1, MPI_INT, 3, W, &q[0]);
    MPI_Wait(&q[0], MPI_STATUS_IGNORE);
    MPI_Iallgather(s, 2, MPI_INT, r, 2, MPI_INT, W, &q[0]);
    MPI_Wait(&q[0], MPI_STATUS_IGNORE);
    MPI_Iallgatherv(s, rank + 1, MPI_INT, r, counts, displs, MPI_INT, W, &q[0]);
    MPI_Wait(&q[0], MPI_STATUS_IGNORE);
    MPI_Ialltoall(s, 2, MPI_INT, r, 2, MPI_INT, W, &q[0]);
    MPI_Wait(&q[0], MPI_STATUS_IGNORE);
    alltoallv_args(&a);
    MPI_Ialltoallv(s, a.sc, a.sd, MPI_INT, r, a.rc, a.rd, MPI_INT, W, &q[0]);
    MPI_Wait(&q[0], MPI_STATUS_IGNORE);
    alltoallw_args(&a);
    MPI_Ialltoallw(wsb, a.sc, a.sd, a.st, wrb, a.rc, a.rd, a.rt, W, &q[0]);
    MPI_Wait(&q[0], MPI_STATUS_IGNORE);
    MPI_Ireduce(&one, &sum, 1, MPI_INT, MPI_SUM, 3, W, &q[0]);
    MPI_Wait(&q[0], MPI_STATUS_IGNORE);
    if (rank == 3)
        MT_CHECK(sum == 4);
    MPI_Iallreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, W, &q[0]);
    MPI_Wait(&q[0], MPI_STATUS_IGNORE);
    MT_CHECK(y == 4.0);
    MPI_Ireduce_scatter(s, r, counts, MPI_INT, MPI_SUM, W, &q[0]);
    MPI_Wait(&q[0], MPI_STATUS_IGNORE);
    MPI_Ireduce_scatter_block(s, r, 1, MPI_INT, MPI_SUM, W, &q[0]);
    MPI_Wait(&q[0], MPI_STATUS_IGNORE);
    MPI_Iscan(s, r, 2, MPI_INT, MPI_SUM, W, &q[0]);
    MPI_Wait(&q[0], MPI_STATUS_IGNORE);
    MPI_Iexscan(s, r, 2, MPI_INT, MPI_SUM, W, &q[0]);
    MPI_Wait(&q[0], MPI_STATUS_IGNORE);
}

/* A sub-communicator (evens and odds, in reverse order), an inter-communicator between the
 * two halves, and their merge. */
static void sub_and_inter(void)
{
    MPI_Comm half, inter, merged;
    MPI_Request rq;
    int s[8], r[16], one = 1, sum, even = rank % 2 == 0;
    double d2[2] = {1.0, 1.0}, dr[2];
    for (int i = 0; i < 8; i++)
        s[i] = rank * 10 + i;

    MPI_Comm_split(W, rank % 2, -rank, &half); /* evens: 2,0; odds: 3,1 */
    MPI_Bcast(s, 5, MPI_INT, 0, half);         /* root world 2 or 3 */
    MT_CHECK(s[0] == (even ? 20 : 30));
    MPI_Gather(&rank, 1, MPI_INT, r, 1, MPI_INT, 1, half); /* root world 0 or 1 */
    if (rank < 2)
        MT_CHECK(r[0] == rank + 2 && r[1] == rank);
    MPI_Allreduce(d2, dr, 2, MPI_DOUBLE, MPI_SUM, half);
    MT_CHECK(dr[1] == 2.0);
    MPI_Ialltoall(s, 1, MPI_INT, r, 1, MPI_INT, half, &rq);
    MPI_Wait(&rq, MPI_STATUS_IGNORE);
    MPI_Scan(&one, &sum, 1, MPI_INT, MPI_SUM, half);
    MT_CHECK(sum == (rank < 2 ? 2 : 1));

    /* group A = evens (2, 0), group B = odds (3, 1); leaders world 2 and 3 */
    MPI_Intercomm_create(half, 0, W, even ? 3 : 2, 77, &inter);
    MPI_Barrier(inter);
    /* bcast from A's rank 0 (world 2) */
    if (even)
        MPI_Bcast(s, 3, MPI_INT, rank == 2 ? MPI_ROOT : MPI_PROC_NULL, inter);
    else
        MPI_Bcast(r, 3, MPI_INT, 0, inter);
    if (!even)
        MT_CHECK(r[0] == 20);
    /* gather to B's rank 1 (world 1); the root's send arguments are not used: count 0 */
    if (even)
        MPI_Gather(s, 2, MPI_INT, NULL, 0, MPI_INT, 1, inter);
    else
        MPI_Gather(NULL, 0, MPI_INT, r, 2, MPI_INT, rank == 1 ? MPI_ROOT : MPI_PROC_NULL, inter);
    if (rank == 1)
        MT_CHECK(r[0] == 20 && r[2] == 20);
    /* scatter from A's rank 1 (world 0); the root's receive count is not used: 0 */
    if (even)
        MPI_Scatter(s, 1, MPI_INT, NULL, 0, MPI_INT, rank == 0 ? MPI_ROOT : MPI_PROC_NULL, inter);
    else
        MPI_Scatter(NULL, 0, MPI_INT, r, 1, MPI_INT, 1, inter);
    MPI_Allgather(&rank, 1, MPI_INT, r, 1, MPI_INT, inter);
    MT_CHECK(r[0] == (even ? 3 : 2) && r[1] == (even ? 1 : 0));
    MPI_Alltoall(s, 1, MPI_INT, r, 1, MPI_INT, inter);
    MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, inter);
    MT_CHECK(sum == 2);
    /* ibcast from B's rank 0 (world 3) */
    if (even)
        MPI_Ibcast(r, 2, MPI_INT, 0, inter, &rq);
    else
        MPI_Ibcast(s, 2, MPI_INT, rank == 3 ? MPI_ROOT : MPI_PROC_NULL, inter, &rq);
    MPI_Wait(&rq, MPI_STATUS_IGNORE);

    MPI_Intercomm_merge(inter, !even, &merged); /* 2, 0, 3, 1 */
    MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, merged);
    MT_CHECK(sum == 4);
    MPI_Reduce(s, r, 2, MPI_INT, MPI_SUM, 3, merged); /* root world 1 */
    MPI_Comm_free(&merged);
    MPI_Comm_free(&inter);
    MPI_Comm_free(&half);
}

/* Neighbourhood collectives: a periodic ring (Cartesian) and an irregular graph. */
static void neighbours(void)
{
    /* the graph: 0 -> 1, 2; 1 -> 2; 2 -> 3, 0; 3 -> 0 */
    static const int outs[P][2] = {{1, 2}, {2, -1}, {3, 0}, {0, -1}};
    static const int ins[P][2] = {{2, 3}, {0, -1}, {0, 1}, {2, -1}};
    static const int deg[P] = {2, 1, 2, 1};
    static const int first[P] = {204, 0, 2, 200}; /* what alltoallv brings from ins[r][0] */
    MPI_Comm ring, graph;
    MPI_Request rq;
    int dims[1] = {P}, periods[1] = {1};
    int s[16], r[16], sc[2], rc[2], rd[2], vsc[2], vsd[2], vrc[2], vrd[2];
    MPI_Aint wsd[2], wrd[2];
    MPI_Datatype wst[2], wrt[2];
    double buf[8] = {0}, rbuf[8];
    int left = (rank + P - 1) % P, right = (rank + 1) % P, n = deg[rank];
    for (int i = 0; i < 16; i++)
        s[i] = rank * 100 + i;

    MPI_Cart_create(W, 1, dims, periods, 0, &ring);
    MPI_Neighbor_allgather(&rank, 1, MPI_INT, r, 1, MPI_INT, ring);
    MT_CHECK(r[0] == left && r[1] == right);
    MPI_Neighbor_alltoall(s, 2, MPI_INT, r, 2, MPI_INT, ring);
    /* allgatherv: rank r sends r + 1 ints */
    rc[0] = left + 1, rc[1] = right + 1, rd[0] = 0, rd[1] = left + 1;
    MPI_Ineighbor_allgatherv(s, rank + 1, MPI_INT, r, rc, rd, MPI_INT, ring, &rq);
    MPI_Wait(&rq, MPI_STATUS_IGNORE);
    MT_CHECK(r[0] == left * 100 && r[rd[1]] == right * 100);
    /* alltoallw: an int to the left, a double to the right */
    wst[0] = MPI_INT, wst[1] = MPI_DOUBLE, wsd[0] = 0, wsd[1] = 8;
    wrt[0] = MPI_DOUBLE, wrt[1] = MPI_INT, wrd[0] = 0, wrd[1] = 8;
    sc[0] = sc[1] = rc[0] = rc[1] = 1;
    MPI_Ineighbor_alltoallw(buf, sc, wsd, wst, rbuf, rc, wrd, wrt, ring, &rq);
    MPI_Wait(&rq, MPI_STATUS_IGNORE);

    MPI_Dist_graph_create_adjacent(W, n, ins[rank], MPI_UNWEIGHTED, n, outs[rank], MPI_UNWEIGHTED,
                                   MPI_INFO_NULL, 0, &graph);
    MPI_Neighbor_allgather(&rank, 1, MPI_INT, r, 1, MPI_INT, graph);
    MT_CHECK(r[0] == ins[rank][0]);
    /* allgatherv: rank r sends r + 1 ints */
    for (int i = 0, off = 0; i < n; i++) {
        rc[i] = ins[rank][i] + 1;
        rd[i] = off;
        off += rc[i];
    }
    MPI_Neighbor_allgatherv(s, rank + 1, MPI_INT, r, rc, rd, MPI_INT, graph);
    MPI_Neighbor_alltoall(s, 1, MPI_INT, r, 1, MPI_INT, graph);
    /* alltoallv (blocking and not): d + 1 ints to out-neighbour d */
    for (int i = 0, off = 0; i < n; i++) {
        vsc[i] = outs[rank][i] + 1;
        vsd[i] = off;
        off += vsc[i];
        vrc[i] = rank + 1;
        vrd[i] = i * (rank + 1);
    }
    MPI_Neighbor_alltoallv(s, vsc, vsd, MPI_INT, r, vrc, vrd, MPI_INT, graph);
    MT_CHECK(r[0] == first[rank]);
    /* alltoallw: one double to odd neighbours, one int to even ones */
    for (int i = 0; i < n; i++) {
        sc[i] = rc[i] = 1;
        wst[i] = outs[rank][i] % 2 ? MPI_DOUBLE : MPI_INT;
        wrt[i] = rank % 2 ? MPI_DOUBLE : MPI_INT;
        wsd[i] = wrd[i] = 8 * i;
    }
    MPI_Neighbor_alltoallw(buf, sc, wsd, wst, rbuf, rc, wrd, wrt, graph);
    MPI_Ineighbor_allgather(s, 2, MPI_INT, r, 2, MPI_INT, graph, &rq);
    MPI_Wait(&rq, MPI_STATUS_IGNORE);
    MPI_Ineighbor_alltoall(s, 1, MPI_INT, r, 1, MPI_INT, graph, &rq);
    MPI_Wait(&rq, MPI_STATUS_IGNORE);
    MPI_Ineighbor_alltoallv(s, vsc, vsd, MPI_INT, r, vrc, vrd, MPI_INT, graph, &rq);
    MPI_Wait(&rq, MPI_STATUS_IGNORE);
    MPI_Comm_free(&graph);
    MPI_Comm_free(&ring);
}

int main(int argc, char **argv)
{
    rank = mt_init(&argc, &argv, "coll", P, MT_NO_THREADS);
    world_blocking();
    world_in_place();
    world_nonblocking();
    sub_and_inter();
    neighbours();
    mt_finish("coll");
    MPI_Finalize();
    return 0;
}
