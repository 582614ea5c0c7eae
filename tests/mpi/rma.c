/*
 * rma: the one-sided calls of docs/tracer.md on 4 ranks: four kinds of window (created,
 * allocated, allocated shared on a Comm_split_type(SHARED) communicator, dynamic with
 * attach/detach), every transfer and atomic with its request-based form, and every
 * synchronisation: fence, post/start/complete/wait and Win_test, lock/unlock,
 * lock_all/unlock_all, the four flushes and Win_sync. Accesses within an epoch never overlap,
 * so the values each rank checks do not depend on timing. The expected trace, derived by
 * hand, is expected/rma.dump.
 */
#include "mpitest.h"

#define W MPI_COMM_WORLD

static int rank;

/* Active target with fences on a window from Win_create. */
static void fence_epoch(void)
{
    int base[16], two[2] = {7, 8}, three[3], four[4] = {1, 1, 1, 1}, ga[2] = {5, 5}, gr[2];
    int one = 1, old, cmp = 15, swap = 99, prev;
    MPI_Win win;
    for (int i = 0; i < 16; i++)
        base[i] = rank * 100 + i;
    MPI_Win_create(base, sizeof base, sizeof(int), MPI_INFO_NULL, W, &win);
    MPI_Win_fence(MPI_MODE_NOPRECEDE, win); /* recorded as noprecede (docs/tracer.md) */
    if (rank == 0) {
        MPI_Put(two, 2, MPI_INT, 1, 0, 2, MPI_INT, win);
        MPI_Get(three, 3, MPI_INT, 2, 4, 3, MPI_INT, win);
    } else if (rank == 1) {
        MPI_Accumulate(four, 4, MPI_INT, 3, 8, 4, MPI_INT, MPI_SUM, win);
    } else if (rank == 2) {
        MPI_Get_accumulate(ga, 2, MPI_INT, gr, 2, MPI_INT, 0, 12, 2, MPI_INT, MPI_SUM, win);
    } else {
        MPI_Fetch_and_op(&one, &old, MPI_INT, 3, 14, MPI_SUM, win);
        MPI_Compare_and_swap(&swap, &cmp, &prev, MPI_INT, 2, 15, win);
    }
    MPI_Win_fence(0, win);
    if (rank == 0)
        MT_CHECK(three[0] == 204 && three[2] == 206 && base[12] == 17 && base[13] == 18);
    if (rank == 1)
        MT_CHECK(base[0] == 7 && base[1] == 8);
    if (rank == 2)
        MT_CHECK(gr[0] == 12 && gr[1] == 13 && base[15] == 215);
    if (rank == 3)
        MT_CHECK(old == 314 && prev == 215 && base[14] == 315 && base[8] == 309 && base[11] == 312);
    MPI_Win_free(&win);
}

/* Passive target on a window from Win_allocate: rank 0 locks rank 3 exclusively, rank 1
 * locks all, rank 2 locks itself shared. */
static void passive_target(void)
{
    double *base, x = 2.5, y[2], acc = 1.0, gacc = 1.0, gres;
    MPI_Win win;
    MPI_Request q[2];
    MPI_Win_allocate(8 * sizeof(double), sizeof(double), MPI_INFO_NULL, W, &base, &win);
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, win);
    for (int i = 0; i < 8; i++)
        base[i] = rank * 10 + i;
    MPI_Win_unlock(rank, win);
    MPI_Barrier(W);
    if (rank == 0) {
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 3, 0, win);
        MPI_Put(&x, 1, MPI_DOUBLE, 3, 0, 1, MPI_DOUBLE, win);
        MPI_Win_flush(3, win);
        MPI_Rput(&x, 1, MPI_DOUBLE, 3, 1, 1, MPI_DOUBLE, win, &q[0]);
        MPI_Wait(&q[0], MPI_STATUS_IGNORE);
        MPI_Win_flush(3, win); /* the wait completes the put here only: at the target too */
        MPI_Rget(y, 2, MPI_DOUBLE, 3, 0, 2, MPI_DOUBLE, win, &q[0]);
        MPI_Wait(&q[0], MPI_STATUS_IGNORE);
        MPI_Win_flush_local(3, win);
        MPI_Win_unlock(3, win);
        MT_CHECK(y[0] == 2.5 && y[1] == 2.5);
    } else if (rank == 1) {
        MPI_Win_lock_all(0, win);
        MPI_Raccumulate(&acc, 1, MPI_DOUBLE, 0, 4, 1, MPI_DOUBLE, MPI_SUM, win, &q[0]);
        MPI_Rget_accumulate(&gacc, 1, MPI_DOUBLE, &gres, 1, MPI_DOUBLE, 2, 5, 1, MPI_DOUBLE,
                            MPI_SUM, win, &q[1]);
        MPI_Waitall(2, q, MPI_STATUSES_IGNORE);
        MPI_Win_flush_all(win);
        MPI_Win_flush_local_all(win);
        MPI_Win_sync(win);
        MPI_Win_unlock_all(win);
        MT_CHECK(gres == 25.0);
    } else if (rank == 2) {
        MPI_Win_lock(MPI_LOCK_SHARED, 2, 0, win);
        MPI_Get(&x, 1, MPI_DOUBLE, 2, 6, 1, MPI_DOUBLE, win);
        MPI_Win_unlock(2, win);
        MT_CHECK(x == 26.0);
    }
    MPI_Barrier(W);
    MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, win);
    if (rank == 0)
        MT_CHECK(base[4] == 5.0);
    if (rank == 2)
        MT_CHECK(base[5] == 26.0);
    MPI_Win_unlock(rank, win);
    MPI_Win_free(&win);
}

/* A shared-memory window on the ranks that share this node (here: all of them). */
static void shared_window(void)
{
    MPI_Comm node;
    MPI_Win win;
    int *base, v = 42;
    MPI_Comm_split_type(W, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
    MPI_Win_allocate_shared(2 * sizeof(int), sizeof(int), MPI_INFO_NULL, node, &base, &win);
    base[0] = base[1] = rank;
    MPI_Win_fence(0, win);
    if (rank == 0)
        MPI_Put(&v, 1, MPI_INT, 1, 1, 1, MPI_INT, win);
    MPI_Win_fence(MPI_MODE_NOSUCCEED | MPI_MODE_NOSTORE, win); /* nostore|nosucceed */
    if (rank == 1)
        MT_CHECK(base[0] == 1 && base[1] == 42);
    MPI_Win_free(&win);
    MPI_Comm_free(&node);
}

/* General active target on a dynamic window: ranks 0 and 1 access 2 and 3. */
static void pscw_dynamic(void)
{
    MPI_Win win;
    MPI_Group world, origins, targets;
    static const int origin_ranks[2] = {0, 1}, target_ranks[2] = {2, 3};
    int dyn[4] = {rank, rank, rank, rank}, v = 77, got = -1, flag = 0;
    MPI_Aint addr, addrs[4];
    MPI_Win_create_dynamic(MPI_INFO_NULL, W, &win);
    MPI_Win_attach(win, dyn, sizeof dyn);
    MPI_Get_address(dyn, &addr);
    MPI_Allgather(&addr, 1, MPI_AINT, addrs, 1, MPI_AINT, W);
    MPI_Comm_group(W, &world);
    MPI_Group_incl(world, 2, origin_ranks, &origins);
    MPI_Group_incl(world, 2, target_ranks, &targets);
    if (rank < 2) {
        MPI_Win_start(targets, 0, win);
        if (rank == 0)
            MPI_Put(&v, 1, MPI_INT, 2, addrs[2], 1, MPI_INT, win);
        else
            MPI_Get(&got, 1, MPI_INT, 3, addrs[3] + sizeof(int), 1, MPI_INT, win);
        MPI_Win_complete(win);
        if (rank == 1)
            MT_CHECK(got == 3);
    } else {
        MPI_Win_post(origins, rank == 3 ? MPI_MODE_NOPUT : 0, win); /* 3 is only read */
        if (rank == 2)
            MPI_Win_wait(win);
        else
            while (!flag)
                MPI_Win_test(win, &flag);
        if (rank == 2)
            MT_CHECK(dyn[0] == 77 && dyn[1] == 2);
    }
    MPI_Win_detach(win, dyn);
    MPI_Win_free(&win);
    MPI_Group_free(&targets);
    MPI_Group_free(&origins);
    MPI_Group_free(&world);
}

int main(int argc, char **argv)
{
    rank = mt_init(&argc, &argv, "rma", 4, MT_NO_THREADS);
    fence_epoch();
    passive_target();
    shared_window();
    pscw_dynamic();
    mt_finish("rma");
    MPI_Finalize();
    return 0;
}
