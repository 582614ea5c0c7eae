/*
 * nbr: neighbourhood collectives on 6 ranks over every kind of process topology, so that the
 * trace's neighbour lists (MPI 4.0 section 8.6 order) can be checked exactly:
 *  - a 2 x 3 Cartesian grid, both dimensions periodic (the size-2 dimension names the other
 *    row as both its -1 and its +1 neighbour), its duplicate (the topology travels with it)
 *    and its rows from Cart_sub;
 *  - a non-periodic line of 6 (MPI_PROC_NULL at both ends);
 *  - a graph from MPI_Graph_create;
 *  - a distributed graph with a repeated edge (MPI_Dist_graph_create_adjacent).
 * Blocking, nonblocking and v forms; every rank checks what it received. The expected trace,
 * derived by hand, is expected/nbr.dump.
 */
#include "mpitest.h"

#define W MPI_COMM_WORLD
#define P 6

static int rank;

/* The grid: row i = rank / 3, column j = rank % 3; rows from Cart_sub. */
static void grid(void)
{
    MPI_Comm g, dup, row;
    MPI_Request rq;
    int dims[2] = {2, 3}, periods[2] = {1, 1}, keep[2] = {0, 1};
    int i = rank / 3, j = rank % 3;
    int other = (1 - i) * 3 + j, left = i * 3 + (j + 2) % 3, right = i * 3 + (j + 1) % 3;
    int nb[4] = {other, other, left, right}, s[8], r[16];

    MPI_Cart_create(W, 2, dims, periods, 0, &g);
    MPI_Neighbor_allgather(&rank, 1, MPI_INT, r, 1, MPI_INT, g);
    for (int k = 0; k < 4; k++)
        MT_CHECK(r[k] == nb[k]);
    /* block k of rank x is 10 x + k. From the left neighbour comes its +1 block (3), from
     * the right its -1 block (2); the other row's two blocks may come in either slot (MPI
     * 4.0 puts the -1 block in the +1 slot, older libraries did not). */
    for (int k = 0; k < 4; k++)
        s[k] = 10 * rank + k;
    MPI_Neighbor_alltoall(s, 1, MPI_INT, r, 1, MPI_INT, g);
    MT_CHECK(r[2] == 10 * left + 3 && r[3] == 10 * right + 2);
    MT_CHECK(r[0] + r[1] == 20 * other + 1 && (r[0] == 10 * other || r[1] == 10 * other));

    MPI_Comm_dup(g, &dup);
    s[0] = rank, s[1] = -rank;
    MPI_Ineighbor_allgather(s, 2, MPI_INT, r, 2, MPI_INT, dup, &rq);
    MPI_Wait(&rq, MPI_STATUS_IGNORE);
    for (int k = 0; k < 4; k++)
        MT_CHECK(r[2 * k] == nb[k] && r[2 * k + 1] == -nb[k]);

    MPI_Cart_sub(g, keep, &row); /* a ring of 3, periodic: neighbours (j - 1), (j + 1) */
    double d = rank, dr[2];
    MPI_Neighbor_allgather(&d, 1, MPI_DOUBLE, dr, 1, MPI_DOUBLE, row);
    MT_CHECK(dr[0] == left && dr[1] == right);
    MPI_Comm_free(&row);
    MPI_Comm_free(&dup);
    MPI_Comm_free(&g);
}

/* A line that does not wrap: rank 0 has no -1 neighbour, rank 5 no +1. */
static void line(void)
{
    MPI_Comm l;
    MPI_Request rq;
    int dims[1] = {P}, periods[1] = {0}, s[6], r[6];
    MPI_Cart_create(W, 1, dims, periods, 0, &l);
    for (int k = 0; k < 6; k++) {
        s[k] = 100 * rank + k;
        r[k] = -1;
    }
    MPI_Ineighbor_alltoall(s, 3, MPI_INT, r, 3, MPI_INT, l, &rq);
    MPI_Wait(&rq, MPI_STATUS_IGNORE);
    /* from rank - 1 its +1 block (3, 4, 5), from rank + 1 its -1 block (0, 1, 2) */
    MT_CHECK(rank == 0 ? r[0] == -1 : r[0] == 100 * (rank - 1) + 3);
    MT_CHECK(rank == P - 1 ? r[3] == -1 : r[3] == 100 * (rank + 1));
    MPI_Comm_free(&l);
}

/* A graph: 0-1, 0-2, 0-5, 1-2, 2-3, 3-4, 4-5 (MPI_Graph_create wants it symmetric). */
static void graph(void)
{
    static const int index[P] = {3, 5, 8, 10, 12, 14};
    static const int edges[14] = {1, 2, 5, 0, 2, 0, 1, 3, 2, 4, 3, 5, 4, 0};
    MPI_Comm gr;
    MPI_Graph_create(W, P, index, edges, 0, &gr);
    int first = rank ? index[rank - 1] : 0, n = index[rank] - first;
    const int *nb = edges + first;
    /* rank a sends a + b + 1 ints to b, starting with 100 a + b */
    int sc[3], sd[3], rc[3], rd[3], s[32], r[32];
    for (int k = 0, off = 0; k < n; k++) {
        sc[k] = rc[k] = rank + nb[k] + 1;
        sd[k] = rd[k] = off;
        for (int x = 0; x < sc[k]; x++)
            s[off + x] = 100 * rank + nb[k];
        off += sc[k];
    }
    MPI_Neighbor_alltoallv(s, sc, sd, MPI_INT, r, rc, rd, MPI_INT, gr);
    for (int k = 0; k < n; k++)
        MT_CHECK(r[rd[k]] == 100 * nb[k] + rank && r[rd[k] + rc[k] - 1] == 100 * nb[k] + rank);
    MPI_Comm_free(&gr);
}

/* A distributed graph: r -> r + 1 twice, r -> r + 3 once (mod 6). */
static void dist_graph(void)
{
    MPI_Comm dg;
    int out[3] = {(rank + 1) % P, (rank + 1) % P, (rank + 3) % P};
    int in[3] = {(rank + 5) % P, (rank + 5) % P, (rank + 3) % P};
    MPI_Dist_graph_create_adjacent(W, 3, in, MPI_UNWEIGHTED, 3, out, MPI_UNWEIGHTED, MPI_INFO_NULL,
                                   0, &dg);
    /* allgatherv: rank x sends x + 1 ints */
    int s[8], r[24], rc[3], rd[3];
    for (int k = 0; k < 8; k++)
        s[k] = rank;
    for (int k = 0, off = 0; k < 3; k++) {
        rc[k] = in[k] + 1;
        rd[k] = off;
        off += rc[k];
    }
    MPI_Neighbor_allgatherv(s, rank + 1, MPI_INT, r, rc, rd, MPI_INT, dg);
    for (int k = 0; k < 3; k++)
        MT_CHECK(r[rd[k]] == in[k] && r[rd[k] + rc[k] - 1] == in[k]);
    for (int k = 0; k < 3; k++)
        s[2 * k] = s[2 * k + 1] = 10 * rank + k;
    MPI_Neighbor_alltoall(s, 2, MPI_INT, r, 2, MPI_INT, dg);
    /* from r - 1 its blocks 0 and 1, in either of the two slots of the repeated edge; from
     * r + 3 its block 2 */
    MT_CHECK(r[0] + r[2] == 20 * in[0] + 1 && (r[0] == 10 * in[0] || r[2] == 10 * in[0]));
    MT_CHECK(r[4] == 10 * in[2] + 2);
    MPI_Comm_free(&dg);
}

int main(int argc, char **argv)
{
    rank = mt_init(&argc, &argv, "nbr", P, MT_NO_THREADS);
    grid();
    line();
    graph();
    dist_graph();
    mt_finish("nbr");
    MPI_Finalize();
    return 0;
}
