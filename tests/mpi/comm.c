/*
 * comm: every communicator-creating call of docs/tracer.md on 8 ranks, each new
 * communicator used at once for one MPI_Sendrecv with distinct tags (mostly a ring in the
 * communicator's rank order), so that the trace shows whether each peer resolves to the right
 * world rank. Several communicators order their ranks differently from MPI_COMM_WORLD
 * (split with reversed keys, create from a permuted group, an inter-communicator and its
 * merge). The expected traces, derived by hand, are expected/comm.dump (messages) and
 * expected/comm.calls (how often each MPI function was entered).
 */
#include "mpitest.h"

#define W MPI_COMM_WORLD
#define P 8

static int rank;

/* One message to dest and one from source (ranks of comm), checked by value. */
static void exchange(MPI_Comm comm, int dest, int source, int tag)
{
    int v = rank * 1000 + tag, got = -1, expect;
    MPI_Group g, wg;
    MPI_Status st;
    MPI_Sendrecv(&v, 1, MPI_INT, dest, tag, &got, 1, MPI_INT, source, tag, comm, &st);
    if (source == MPI_PROC_NULL)
        return;
    /* the world rank of source, from the group, to check the value */
    int inter, world_source;
    MPI_Comm_test_inter(comm, &inter);
    if (inter)
        MPI_Comm_remote_group(comm, &g);
    else
        MPI_Comm_group(comm, &g);
    MPI_Comm_group(W, &wg);
    MPI_Group_translate_ranks(g, 1, &source, wg, &world_source);
    MPI_Group_free(&g);
    MPI_Group_free(&wg);
    expect = world_source * 1000 + tag;
    MT_CHECK(got == expect);
}

/* A ring in comm's rank order: send to the next rank, receive from the previous one. */
static void ring(MPI_Comm comm, int tag)
{
    int me, n;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &n);
    exchange(comm, (me + 1) % n, (me + n - 1) % n, tag);
}

int main(int argc, char **argv)
{
    MPI_Comm dup, dupi, idup, split, stype, created = MPI_COMM_NULL, cgroup = MPI_COMM_NULL;
    MPI_Comm inter, merged, cart, sub, graph, dg, dga;
    MPI_Group world_group, g;
    MPI_Request rq;
    int me, even;
    rank = mt_init(&argc, &argv, "comm", P, MT_NO_THREADS);
    even = rank % 2 == 0;
    MPI_Comm_group(W, &world_group);

    MPI_Comm_dup(W, &dup);
    ring(dup, 1);
    MPI_Comm_dup_with_info(W, MPI_INFO_NULL, &dupi);
    ring(dupi, 2);
    MPI_Comm_idup(W, &idup, &rq);
    MPI_Wait(&rq, MPI_STATUS_IGNORE);
    ring(idup, 3);
    MPI_Comm_split(W, rank % 2, -rank, &split); /* 6,4,2,0 and 7,5,3,1 */
    ring(split, 4);
    MPI_Comm_split_type(W, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &stype);
    ring(stype, 5);

    {
        static const int odds[4] = {5, 1, 7, 3}, evens[4] = {0, 4, 2, 6};
        MPI_Group_incl(world_group, 4, odds, &g);
        MPI_Comm_create(W, g, &created); /* the odd ranks, as 5,1,7,3 */
        MPI_Group_free(&g);
        if (created != MPI_COMM_NULL)
            ring(created, 6);
        if (even) { /* only the members call Comm_create_group */
            MPI_Group_incl(world_group, 4, evens, &g);
            MPI_Comm_create_group(W, g, 7, &cgroup); /* 0,4,2,6 */
            MPI_Group_free(&g);
            ring(cgroup, 7);
        }
    }

    /* evens (6,4,2,0) and odds (7,5,3,1); local leaders world 6 and 7 */
    MPI_Intercomm_create(split, 0, W, even ? 7 : 6, 8, &inter);
    MPI_Comm_rank(inter, &me);
    exchange(inter, me, me, 8); /* with the rank of the same position on the other side */
    MPI_Intercomm_merge(inter, !even, &merged); /* 6,4,2,0,7,5,3,1 */
    ring(merged, 9);

    {
        int dims[2] = {2, 4}, periods[2] = {1, 0}, remain[2] = {0, 1}, src, dst;
        MPI_Cart_create(W, 2, dims, periods, 0, &cart);
        MPI_Cart_shift(cart, 1, 1, &src, &dst); /* along a row, not periodic */
        exchange(cart, dst, src, 10);
        MPI_Cart_shift(cart, 0, 1, &src, &dst); /* across the rows: rank +- 4 */
        exchange(cart, dst, src, 11);
        MPI_Cart_sub(cart, remain, &sub); /* the rows 0..3 and 4..7 */
        ring(sub, 12);
    }
    {
        int index[P], edges[2 * P];
        for (int i = 0; i < P; i++) {
            index[i] = 2 * (i + 1);
            edges[2 * i] = (i + P - 1) % P;
            edges[2 * i + 1] = (i + 1) % P;
        }
        MPI_Graph_create(W, P, index, edges, 0, &graph);
        ring(graph, 13);
    }
    {
        int src = rank, deg = 1, dst = (rank + 3) % P, in = (rank + P - 1) % P,
            out = (rank + 1) % P;
        MPI_Dist_graph_create(W, 1, &src, &deg, &dst, MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &dg);
        exchange(dg, (rank + 3) % P, (rank + 5) % P, 14);
        MPI_Dist_graph_create_adjacent(W, 1, &in, MPI_UNWEIGHTED, 1, &out, MPI_UNWEIGHTED,
                                       MPI_INFO_NULL, 0, &dga);
        ring(dga, 15);
    }
    exchange(MPI_COMM_SELF, 0, 0, 16);

    MPI_Comm_free(&dga);
    MPI_Comm_free(&dg);
    MPI_Comm_free(&graph);
    MPI_Comm_free(&sub);
    MPI_Comm_free(&cart);
    MPI_Comm_free(&merged);
    MPI_Comm_free(&inter);
    if (cgroup != MPI_COMM_NULL)
        MPI_Comm_free(&cgroup);
    if (created != MPI_COMM_NULL)
        MPI_Comm_free(&created);
    MPI_Comm_free(&stype);
    MPI_Comm_free(&split);
    MPI_Comm_free(&idup);
    MPI_Comm_free(&dupi);
    MPI_Comm_free(&dup);
    MPI_Group_free(&world_group);
    mt_finish("comm");
    MPI_Finalize();
    return 0;
}
