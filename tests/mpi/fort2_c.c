/*
 * fort2_c: the calls of fort2_f08.f90 in C, one for one and in the same order, on 4 ranks:
 * probes, persistent requests and every test, a cancel, windows of every kind with every
 * synchronisation, and every communicator constructor. The two give the same output and the
 * same trace (expected/fort2.dump): `use mpi_f08` records what C records through the
 * tracer's own f08 wrappers (tracer/f08.def). Keep the two in step.
 */
#include "mpitest.h"

#define W MPI_COMM_WORLD

static int rank;

/* Rank 0 sends three messages to rank 1, which finds them with Iprobe, Mprobe and Improbe;
 * rank 2 cancels a receive that nothing matches. */
static void probes(void)
{
    int a[2] = {0}, b[3] = {0}, one = 0, flag = 0;
    MPI_Status st;
    MPI_Message message;
    MPI_Request req;
    if (rank == 0) {
        a[0] = 1, a[1] = 2;
        b[0] = 3, b[1] = 4, b[2] = 5;
        one = 6;
        MPI_Send(a, 2, MPI_INT, 1, 11, W);
        MPI_Send(b, 3, MPI_INT, 1, 12, W);
        MPI_Send(&one, 1, MPI_INT, 1, 13, W);
    } else if (rank == 1) {
        while (!flag)
            MPI_Iprobe(0, 11, W, &flag, &st);
        MPI_Recv(a, 2, MPI_INT, 0, 11, W, &st);
        MT_CHECK(a[1] == 2);
        MPI_Mprobe(0, 12, W, &message, &st);
        MPI_Mrecv(b, 3, MPI_INT, &message, &st);
        MT_CHECK(b[2] == 5 && st.MPI_TAG == 12);
        flag = 0;
        while (!flag)
            MPI_Improbe(0, 13, W, &flag, &message, &st);
        MPI_Imrecv(&one, 1, MPI_INT, &message, &req);
        MPI_Wait(&req, &st);
        MT_CHECK(one == 6);
    } else if (rank == 2) {
        MPI_Irecv(&one, 1, MPI_INT, 3, 99, W, &req);
        MPI_Cancel(&req);
        MPI_Wait(&req, &st);
        MPI_Test_cancelled(&st, &flag);
        MT_CHECK(flag);
    }
}

/* Rank 2 sends to rank 3 through persistent requests, completed by Wait, Testall, Testany and
 * Testsome in turn. */
static void persistent(void)
{
    int buf[4] = {0}, flag = 0, idx, outcount = 0, indices[1];
    MPI_Request reqs[1];
    MPI_Status sts[1];
    if (rank < 2)
        return;
    if (rank == 2) {
        for (int i = 0; i < 4; i++)
            buf[i] = i + 1;
        MPI_Send_init(buf, 4, MPI_INT, 3, 14, W, &reqs[0]);
    } else {
        MPI_Recv_init(buf, 4, MPI_INT, 2, 14, W, &reqs[0]);
    }
    MPI_Start(&reqs[0]);
    MPI_Wait(&reqs[0], &sts[0]);
    MPI_Startall(1, reqs);
    while (!flag)
        MPI_Testall(1, reqs, &flag, sts);
    MPI_Start(&reqs[0]);
    flag = 0;
    while (!flag)
        MPI_Testany(1, reqs, &idx, &flag, &sts[0]);
    MPI_Start(&reqs[0]);
    while (outcount == 0)
        MPI_Testsome(1, reqs, &outcount, indices, sts);
    MT_CHECK(buf[3] == 4);
    MPI_Request_free(&reqs[0]);
}

/* A dynamic window, a shared one, and an allocated one (large-count form) under
 * post/start/complete/wait and Win_test, and under lock, flush and sync. */
static void windows(void)
{
    int value = rank, seen = -1, right = (rank + 1) % 4, flag = 0;
    void *base;
    MPI_Win win;
    MPI_Comm node;
    MPI_Group world_group, peer;
    MPI_Win_create_dynamic(MPI_INFO_NULL, W, &win);
    MPI_Win_free(&win);
    MPI_Comm_split_type(W, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
    MPI_Win_allocate_shared(4, 4, MPI_INFO_NULL, node, &base, &win);
    MPI_Win_free(&win);
    MPI_Comm_free(&node);

    /* the large-count form, as fort2_f08 calls it; MPI-3 (Open MPI 4.1) lacks it */
#if MPI_VERSION >= 4
    MPI_Win_allocate_c(16, 4, MPI_INFO_NULL, W, &base, &win);
#else
    MPI_Win_allocate(16, 4, MPI_INFO_NULL, W, &base, &win);
#endif
    MPI_Comm_group(W, &world_group);
    if (rank % 2 == 0) {
        int target = rank + 1;
        MPI_Group_incl(world_group, 1, &target, &peer);
        MPI_Win_start(peer, 0, win);
        MPI_Put(&value, 1, MPI_INT, rank + 1, 0, 1, MPI_INT, win);
        MPI_Win_complete(win);
    } else {
        int origin = rank - 1;
        MPI_Group_incl(world_group, 1, &origin, &peer);
        MPI_Win_post(peer, 0, win);
        if (rank == 1)
            MPI_Win_wait(win);
        else
            while (!flag)
                MPI_Win_test(win, &flag);
    }
    MPI_Group_free(&peer);
    MPI_Group_free(&world_group);
    MPI_Barrier(W);

    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, right, 0, win);
    MPI_Put(&value, 1, MPI_INT, right, 0, 1, MPI_INT, win);
    MPI_Win_flush(right, win);
    MPI_Win_flush_local(right, win);
    MPI_Win_unlock(right, win);
    MPI_Barrier(W);
    MPI_Win_lock_all(0, win);
    MPI_Get(&seen, 1, MPI_INT, right, 0, 1, MPI_INT, win);
    MPI_Win_flush_all(win);
    MPI_Win_flush_local_all(win);
    MPI_Win_sync(win);
    MPI_Win_unlock_all(win);
    MT_CHECK(seen == rank);
    MPI_Win_free(&win);
}

/* Every constructor, each new communicator shown by a barrier on it, then freed. */
static void communicators(void)
{
    int sub_rank, evens_ranks[2] = {0, 2}, dims[2] = {2, 2}, periods[2] = {1, 1};
    int remain[2] = {1, 0}, nodes[4] = {2, 4, 6, 8}, edges[8] = {1, 3, 0, 2, 1, 3, 2, 0};
    int source = rank, degree = 1, destination = (rank + 1) % 4, weight = 1;
    MPI_Comm dup, dupi, idup, half, cre, grp, inter, merged, cart, sub, graph, dist, adj;
    MPI_Group world_group, evens;
    MPI_Request req;
    MPI_Comm_dup(W, &dup);
    MPI_Barrier(dup);
    MPI_Comm_dup_with_info(W, MPI_INFO_NULL, &dupi);
    MPI_Barrier(dupi);
    MPI_Comm_idup(W, &idup, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    MPI_Barrier(idup);
    MPI_Comm_split(W, rank % 2, rank, &half);
    MPI_Comm_group(W, &world_group);
    MPI_Group_incl(world_group, 2, evens_ranks, &evens);
    MPI_Comm_create(W, evens, &cre);
    if (rank % 2 == 0) {
        MPI_Barrier(cre);
        MPI_Comm_create_group(W, evens, 21, &grp);
        MPI_Barrier(grp);
        MPI_Comm_free(&grp);
        MPI_Comm_free(&cre);
    }
    MPI_Intercomm_create(half, 0, W, 1 - rank % 2, 22, &inter);
    MPI_Barrier(inter);
    MPI_Intercomm_merge(inter, rank % 2 == 1, &merged);
    MPI_Comm_rank(merged, &sub_rank);
    MT_CHECK(sub_rank == rank / 2 + 2 * (rank % 2));
    MPI_Barrier(merged);
    MPI_Cart_create(W, 2, dims, periods, 0, &cart);
    MPI_Barrier(cart);
    MPI_Cart_sub(cart, remain, &sub);
    MPI_Barrier(sub);
    MPI_Graph_create(W, 4, nodes, edges, 0, &graph);
    MPI_Barrier(graph);
    MPI_Dist_graph_create(W, 1, &source, &degree, &destination, MPI_UNWEIGHTED, MPI_INFO_NULL, 0,
                          &dist);
    MPI_Barrier(dist);
    source = (rank + 3) % 4;
    MPI_Dist_graph_create_adjacent(W, 1, &source, &weight, 1, &destination, &weight, MPI_INFO_NULL,
                                   0, &adj);
    MPI_Barrier(adj);
    MPI_Comm_free(&adj);
    MPI_Comm_free(&dist);
    MPI_Comm_free(&graph);
    MPI_Comm_free(&sub);
    MPI_Comm_free(&cart);
    MPI_Comm_free(&merged);
    MPI_Comm_free(&inter);
    MPI_Group_free(&evens);
    MPI_Group_free(&world_group);
    MPI_Comm_free(&half);
    MPI_Comm_free(&idup);
    MPI_Comm_free(&dupi);
    MPI_Comm_free(&dup);
}

int main(int argc, char **argv)
{
    rank = mt_init(&argc, &argv, "fort2", 4, MPI_THREAD_SINGLE);
    probes();
    MPI_Barrier(W);
    persistent();
    MPI_Barrier(W);
    windows();
    MPI_Barrier(W);
    communicators();
    mt_finish("fort2");
    MPI_Finalize();
    return 0;
}
