/*
 * fort_c: the calls of the Fortran programs fort_f08.f90 (use mpi_f08) and fort_mpi.f90 (use
 * mpi) in C, one for one and in the same order, on 4 ranks. The three give the same output
 * and the same trace (expected/fort.dump): the Fortran bindings record what C records.
 * Keep the three in step: a call added here is added there.
 */
#include "mpitest.h"

#define W MPI_COMM_WORLD

static int rank;

/* Blocking messages: a Recv with a status, one with MPI_STATUS_IGNORE, a Probe first. */
static void blocking(void)
{
    int ints[10] = {0}, five[5] = {0};
    double three[3] = {0};
    MPI_Status st;
    if (rank == 0) {
        for (int i = 0; i < 10; i++)
            ints[i] = i + 1;
        MPI_Send(ints, 10, MPI_INT, 1, 1, W);
    } else if (rank == 1) {
        MPI_Recv(ints, 10, MPI_INT, 0, 1, W, &st);
        MT_CHECK(st.MPI_SOURCE == 0 && st.MPI_TAG == 1 && ints[9] == 10);
    } else if (rank == 2) {
        three[2] = 2.5;
        MPI_Send(three, 3, MPI_DOUBLE, 3, 2, W);
        MPI_Probe(3, 3, W, &st);
        MT_CHECK(st.MPI_SOURCE == 3 && st.MPI_TAG == 3);
        MPI_Recv(five, 5, MPI_INT, 3, 3, W, MPI_STATUS_IGNORE);
        MT_CHECK(five[4] == 7);
    } else {
        MPI_Recv(three, 3, MPI_DOUBLE, 2, 2, W, MPI_STATUS_IGNORE);
        MT_CHECK(three[2] == 2.5);
        five[4] = 7;
        MPI_Send(five, 5, MPI_INT, 2, 3, W);
    }
}

/* Nonblocking: a ring completed by Waitall with statuses, a pair exchange completed by Wait
 * (the receive's status ignored), then Waitany, Waitsome and a Test loop, each over one live
 * request. */
static void nonblocking(void)
{
    int right = (rank + 1) % 4, left = (rank + 3) % 4, partner = rank ^ 1;
    int out[4], in[4] = {0}, two[2] = {rank, rank}, got[2] = {0}, one = rank, back = -1;
    MPI_Request reqs[2];
    MPI_Status sts[2];
    for (int i = 0; i < 4; i++)
        out[i] = rank * 10 + i;
    MPI_Irecv(in, 4, MPI_INT, left, 4, W, &reqs[0]);
    MPI_Isend(out, 4, MPI_INT, right, 4, W, &reqs[1]);
    MPI_Waitall(2, reqs, sts);
    MT_CHECK(sts[0].MPI_SOURCE == left && in[3] == left * 10 + 3);
    /* The ring once more, its requests the last of 20 (the others null): a completion over more
     * requests than the tracer follows without allocating (RT__INLINE_REQS), statuses ignored. */
    MPI_Request many[20];
    for (int i = 0; i < 18; i++)
        many[i] = MPI_REQUEST_NULL;
    in[3] = 0;
    MPI_Irecv(in, 4, MPI_INT, left, 10, W, &many[18]);
    MPI_Isend(out, 4, MPI_INT, right, 10, W, &many[19]);
    MPI_Waitall(20, many, MPI_STATUSES_IGNORE);
    MT_CHECK(in[3] == left * 10 + 3);

    MPI_Irecv(got, 2, MPI_INT, partner, 5, W, &reqs[0]);
    MPI_Isend(two, 2, MPI_INT, partner, 5, W, &reqs[1]);
    MPI_Wait(&reqs[1], &sts[1]);
    MPI_Wait(&reqs[0], MPI_STATUS_IGNORE); /* the tracer stands in a status */
    MT_CHECK(got[0] == partner && got[1] == partner);

    int index = -1, outcount = 0, indices[2] = {-1, -1}, flag = 0;
    reqs[0] = MPI_REQUEST_NULL;
    MPI_Irecv(&back, 1, MPI_INT, partner, 6, W, &reqs[1]);
    MPI_Send(&one, 1, MPI_INT, partner, 6, W);
    MPI_Waitany(2, reqs, &index, &sts[0]);
    MT_CHECK(back == partner && sts[0].MPI_TAG == 6);
    MPI_Irecv(&back, 1, MPI_INT, partner, 7, W, &reqs[1]);
    MPI_Send(&one, 1, MPI_INT, partner, 7, W);
    MPI_Waitsome(2, reqs, &outcount, indices, MPI_STATUSES_IGNORE);
    MT_CHECK(outcount == 1);
    MPI_Irecv(&back, 1, MPI_INT, partner, 8, W, &reqs[1]);
    MPI_Send(&one, 1, MPI_INT, partner, 8, W);
    while (!flag)
        MPI_Test(&reqs[1], &flag, &sts[0]);
    MT_CHECK(sts[0].MPI_SOURCE == partner);
}

/* Collectives on world, then on the halves of a Comm_split: a message and an Allreduce. */
static void collectives(void)
{
    int four[4] = {0}, sub_rank = -1, sum = 0, val = -1;
    double x = rank + 0.5, total = 0;
    MPI_Request req;
    if (rank == 0)
        for (int i = 0; i < 4; i++)
            four[i] = 100 + i;
    MPI_Bcast(four, 4, MPI_INT, 0, W);
    MT_CHECK(four[3] == 103);
    MPI_Allreduce(&x, &total, 1, MPI_DOUBLE, MPI_SUM, W);
    MT_CHECK(total == 8.0);
    MPI_Ibarrier(W, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    /* MPI_IN_PLACE at the root, with a send count it ignores: the root's own block is its
     * receive block (4 bytes, not 0), from Fortran's MPI_IN_PLACE too. */
    if (rank == 0)
        MPI_Gather(MPI_IN_PLACE, 0, MPI_INT, four, 1, MPI_INT, 0, W);
    else
        MPI_Gather(&rank, 1, MPI_INT, four, 1, MPI_INT, 0, W);
    MT_CHECK(rank != 0 || (four[0] == 100 && four[1] == 1 && four[2] == 2 && four[3] == 3));

    MPI_Comm half;
    MPI_Comm_split(W, rank % 2, rank, &half);
    MPI_Comm_rank(half, &sub_rank);
    if (sub_rank == 0)
        MPI_Send(&rank, 1, MPI_INT, 1, 9, half);
    else
        MPI_Recv(&val, 1, MPI_INT, 0, 9, half, MPI_STATUS_IGNORE);
    MT_CHECK(sub_rank == 0 || val == rank - 2);
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, half);
    MT_CHECK(sum == (rank % 2 ? 4 : 2));
    MPI_Comm_free(&half);
}

/*
 * The w collectives: a datatype per peer, an int or a pair of ints (MPI_Type_contiguous,
 * whose Fortran handle is not its C one), so that peers get different bytes and the trace has
 * a row per peer. On world an Alltoallw, an Ialltoallw and an Alltoallw in place; over 4
 * edges to the right (a multigraph, of no more edges than ranks: Open MPI 4.1's Fortran
 * MPI_Neighbor_alltoallw converts as many datatypes as the communicator has ranks) a
 * Neighbor_alltoallw; on a ring of two neighbours an Ineighbor_alltoallw. The nonblocking
 * ones send doubles in place of pairs: Open MPI 4.1's Fortran bindings free their arrays of
 * datatypes before the request completes, which crashes its MPI_Wait when one is not
 * predefined (open-mpi/ompi issue 8763). The ring is a distributed graph: MPICH 4.0's mpi_f08
 * MPI_Ineighbor_alltoallw asks a Cartesian one for its distributed-graph degrees.
 */
static void wcollectives(void)
{
    enum { E = 4 };
    int s[25], r[25], sc[E], rc[E], sd[4], rd[4], srcs[E], dsts[E];
    int left = (rank + 3) % 4, right = (rank + 1) % 4;
    MPI_Aint nsd[E], nrd[E];
    MPI_Datatype pair, st[E], rt[E];
    MPI_Comm graph, ring;
    MPI_Request req;
    MPI_Type_contiguous(2, MPI_INT, &pair);
    MPI_Type_commit(&pair);
    for (int i = 0; i < 25; i++)
        s[i] = rank * 100 + i;

    /* a pair to odd ranks and an int to even ones; one of this rank's kind from each */
    for (int j = 0, off = 0; j < 4; j++) {
        st[j] = j % 2 ? pair : MPI_INT;
        rt[j] = rank % 2 ? pair : MPI_INT;
        sc[j] = rc[j] = 1;
        sd[j] = off;
        off += j % 2 ? 8 : 4;
        rd[j] = j * (rank % 2 ? 8 : 4);
    }
    MPI_Alltoallw(s, sc, sd, st, r, rc, rd, rt, W);
    MT_CHECK(r[rd[3] / 4] == 300 + sd[rank] / 4);
    r[rd[3] / 4] = -1;
    for (int j = 0; j < 4; j++) {
        st[j] = j % 2 ? MPI_DOUBLE : MPI_INT;
        rt[j] = rank % 2 ? MPI_DOUBLE : MPI_INT;
    }
    MPI_Ialltoallw(s, sc, sd, st, r, rc, rd, rt, W, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    MT_CHECK(r[rd[3] / 4] == 300 + sd[rank] / 4);
    /* in place: a pair between ranks of different parity, an int between the others (the
     * send arguments, which MPI ignores, are the receive ones) */
    for (int j = 0, off = 0; j < 4; j++) {
        rt[j] = (rank + j) % 2 ? pair : MPI_INT;
        rd[j] = off;
        off += (rank + j) % 2 ? 8 : 4;
    }
    for (int i = 0; i < 25; i++)
        r[i] = rank * 100 + i;
    MPI_Alltoallw(MPI_IN_PLACE, rc, rd, rt, r, rc, rd, rt, W);
    MT_CHECK(r[0] == sd[rank] / 4); /* rank 0's block for this rank */

    /* edge i: a pair when i is odd, an int when even, both ways */
    for (int i = 0, off = 0; i < E; i++) {
        srcs[i] = left, dsts[i] = right;
        st[i] = rt[i] = i % 2 ? pair : MPI_INT;
        sc[i] = rc[i] = 1;
        nsd[i] = nrd[i] = off;
        off += i % 2 ? 8 : 4;
    }
    MPI_Dist_graph_create_adjacent(W, E, srcs, MPI_UNWEIGHTED, E, dsts, MPI_UNWEIGHTED,
                                   MPI_INFO_NULL, 0, &graph);
    MPI_Neighbor_alltoallw(s, sc, nsd, st, r, rc, nrd, rt, graph);
    MT_CHECK(r[4] == left * 100 + 4 && r[0] == left * 100);
    MPI_Comm_free(&graph);

    /* an int to the left, a double to the right: a double from the left, an int from the right */
    srcs[0] = dsts[0] = left, srcs[1] = dsts[1] = right;
    MPI_Dist_graph_create_adjacent(W, 2, srcs, MPI_UNWEIGHTED, 2, dsts, MPI_UNWEIGHTED,
                                   MPI_INFO_NULL, 0, &ring);
    st[0] = MPI_INT, st[1] = MPI_DOUBLE, rt[0] = MPI_DOUBLE, rt[1] = MPI_INT;
    nsd[0] = 0, nsd[1] = 4, nrd[0] = 0, nrd[1] = 8;
    MPI_Ineighbor_alltoallw(s, sc, nsd, st, r, rc, nrd, rt, ring, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    MT_CHECK(r[0] == left * 100 + 1 && r[1] == left * 100 + 2 && r[2] == right * 100);
    MPI_Comm_free(&ring);
    MPI_Type_free(&pair);
}

/* One fence epoch on an allocated window: a Put to the right neighbour, then a Get of what
 * the left one put here. */
static void rma(void)
{
    int *base = NULL, value = (rank + 1) * 10, seen = -1;
    MPI_Win win;
    MPI_Win_allocate(4 * sizeof(int), sizeof(int), MPI_INFO_NULL, W, &base, &win);
    MPI_Win_fence(MPI_MODE_NOPRECEDE, win);
    MPI_Put(&value, 1, MPI_INT, (rank + 1) % 4, 0, 1, MPI_INT, win);
    MPI_Win_fence(0, win);
    MPI_Get(&seen, 1, MPI_INT, rank, 0, 1, MPI_INT, win);
    MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
    MT_CHECK(seen == ((rank + 3) % 4 + 1) * 10);
    MPI_Win_free(&win);
}

int main(int argc, char **argv)
{
    rank = mt_init(&argc, &argv, "fort", 4, MT_NO_THREADS);
    MPI_Barrier(W);
    blocking();
    nonblocking();
    collectives();
    wcollectives();
    rma();
    mt_finish("fort");
    MPI_Finalize();
    return 0;
}
