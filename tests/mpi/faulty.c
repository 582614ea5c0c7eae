/*
 * faulty MODE: small MPI programs with one usage error each, and correct look-alikes, for
 * retrace check (tests/mpi/cases/check_*.case, docs/check.md). Every mode runs to completion
 * under MPICH: the errors are the kind MPI does not catch. (MPICH 4.0.2 catches the RMA epoch
 * errors at the call itself, MPI_ERR_RMA_SYNC, so the trace never holds them: ok_rma is the
 * look-alike that must give no finding; tests/data/check_rma_*.csv hold the faulty ones.)
 *
 *   buf_sendsend   2 ranks: each MPI_Send to the other, then MPI_Recv (buffering)
 *   buf_ring       3 ranks: each MPI_Send to the right, then MPI_Recv from the left (buffering)
 *   buf_isend      2 ranks: each MPI_Isend and MPI_Wait, then MPI_Recv (buffering)
 *   ok_sendrecv    2 ranks: the exchange with MPI_Sendrecv (no finding)
 *   ok_bsend       2 ranks: the exchange with MPI_Bsend, a buffer attached (no finding)
 *   coll_root      2 ranks: MPI_Bcast where each rank names itself the root (collective)
 *   coll_count     2 ranks: MPI_Reduce of 2 ints at the root, 1 int on the other (collective)
 *   coll_missing   2 ranks: rank 0 calls one more MPI_Bcast than rank 1 (collective)
 *   ok_coll        2 ranks: the same collectives, called right (no finding)
 *   req_isend      2 ranks: rank 0 never completes an MPI_Isend (request)
 *   req_irecv      2 ranks: rank 1 never completes an MPI_Irecv (request)
 *   req_both       2 ranks: both at once, on two tags (request)
 *   ok_free        2 ranks: rank 0 frees its MPI_Isend's request (allowed; no finding)
 *   ok_rma         2 ranks: fence and lock epochs, closed (no finding)
 *   rma_putput     2 ranks: both MPI_Put the same int of rank 1 in one fence epoch (rma-conflict)
 *   rma_putget     2 ranks: rank 0 MPI_Put and MPI_Get the same int of rank 1 in one fence epoch
 *                  (rma-conflict)
 *   rma_accops     2 ranks: MPI_Accumulate with MPI_SUM and with MPI_MAX on the same int of rank
 *                  1 in one fence epoch (rma-conflict)
 *   rma_lockput    2 ranks: rank 0 locks rank 1 and puts ints 1-2, then int 2 again, no flush
 *                  between (rma-conflict)
 *   ok_rma_conf    2 ranks: accumulates with one op, gets, puts side by side, a put in the next
 *                  epoch, a get after a flush (no finding)
 *   rma_pscw       3 ranks: rank 2 exposes its window to ranks 0 and 1 (Win_post), both put the
 *                  same int in that one epoch (rma-conflict)
 *   ok_rma_pscw    3 ranks: rank 0 puts in a first exposure epoch, rank 1 in a second (no
 *                  finding)
 *   leak_win       2 ranks: a window of MPI_Win_create never freed (leak)
 *   leak_alloc     2 ranks: a window of MPI_Win_allocate never freed (leak)
 *   leak_dyn       2 ranks: a window of MPI_Win_create_dynamic never freed (leak)
 *   ok_leak        2 ranks: the three windows, each freed (no finding)
 *   dyn_outside    2 ranks: rank 1 attaches 4 ints of an array to a dynamic window, rank 0
 *                  puts an int at the array's 9th int (rma-epoch: not attached memory)
 *   dyn_past       2 ranks: rank 0 puts 4 ints from the attached region's 3rd int, 2 past
 *                  its end (rma-epoch)
 *   dyn_detach     2 ranks: rank 1 detaches the region's 2nd int, not its base, then the base
 *                  (rma-epoch; Open MPI 4.1 refuses that detach itself)
 *   ok_dyn         2 ranks: rank 0 puts the 4 attached ints; rank 1 detaches them and checks
 *                  them (no finding)
 *   leak_dup       2 ranks: a communicator of MPI_Comm_dup never freed (leak)
 *   leak_split     2 ranks: a communicator of MPI_Comm_split never freed (leak)
 *   leak_cart      2 ranks: a communicator of MPI_Cart_create never freed, and one of MPI_Comm_dup
 *                  freed and made again by a second MPI_Comm_dup, never freed (leak)
 *   ok_leak_comm   2 ranks: the communicators of MPI_Comm_dup, MPI_Comm_split, MPI_Cart_create
 *                  and MPI_Comm_idup, each freed (no finding)
 *   ok_disconnect  as ok_leak_comm, the MPI_Comm_dup communicator freed by MPI_Comm_disconnect
 *                  (no finding)
 *   req_free_pbarrier    2 ranks: a persistent MPI_Barrier_init request started and freed
 *                        before it completed (request; MPICH refuses MPI_Request_free of a
 *                        nonblocking collective's request itself, not of a persistent one's)
 *   req_free_pallreduce  the same with MPI_Allreduce_init (request)
 *   req_free_pbcast      the same with MPI_Bcast_init (request)
 *   ok_free_pcoll  2 ranks: the persistent barrier started, completed, then freed (no finding)
 *   leak_group     2 ranks: the second MPI_Comm_group of MPI_COMM_WORLD never freed (leak)
 *   leak_group_incl   2 ranks: a group of MPI_Group_incl never freed (leak)
 *   leak_group_win    2 ranks: the group of MPI_Win_get_group never freed (leak)
 *   ok_leak_group  2 ranks: those groups, a union and an empty group, each freed but the
 *                  empty one (MPI_GROUP_EMPTY needs no free) (no finding)
 *   req_restart    2 ranks: rank 0 starts a persistent send again while active (request under
 *                  Open MPI, which accepts it; invalid-param under MPICH, which refuses it)
 *   req_cancel_done   2 ranks: rank 0 cancels a persistent receive whose start completed
 *                     (request under Open MPI; invalid-param under MPICH)
 *   req_cancel_never  2 ranks: rank 0 cancels a persistent receive never started (the same)
 *   ok_cancel      2 ranks: rank 0 cancels an MPI_Irecv nobody matches and an active
 *                  persistent receive, and completes both (no finding)
 *   as_noprecede   2 ranks: a fence with MPI_MODE_NOPRECEDE after rank 0's get (rma-epoch)
 *   as_mixed       2 ranks: MPI_MODE_NOPRECEDE on rank 0's first fence, not rank 1's (rma-epoch)
 *   as_noput       2 ranks: rank 0 puts to rank 1, whose fence gave MPI_MODE_NOPUT (rma-epoch)
 *   as_post_noput  2 ranks: rank 0 accumulates to rank 1 in the exposure epoch of its
 *                  MPI_Win_post with MPI_MODE_NOPUT (rma-epoch)
 *   as_nocheck     2 ranks: MPI_MODE_NOCHECK on rank 0's MPI_Win_start and not on rank 1's
 *                  matching MPI_Win_post (rma-epoch; Open MPI 4.1 hangs in the wait)
 *   ok_assert      2 ranks: fences, posts and starts with assertions kept (no finding)
 *   race_tag       3 ranks: rank 0 MPI_Recv(MPI_ANY_SOURCE, tag 5) gets rank 1's message; rank 2
 *                  sends it one of tag 5 too, later but with nothing in MPI ordering it after
 *                  the receive (a file in the working directory holds rank 2 back) (race)
 *   race_any       the same with MPI_ANY_TAG and rank 2's tag 6 (race)
 *   race_irecv     the same with MPI_Irecv and MPI_Wait (race)
 *   ok_race_tag    rank 2 sends tag 6 to a receive of tag 5: no other sender matches (no
 *                  finding)
 *   ok_race_order  rank 2 sends only once a message rank 0 sent after its receive came (no
 *                  finding)
 *
 * Each mode ends with mt_finish (one MPI_Reduce on MPI_COMM_WORLD) unless it says otherwise.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mpitest.h"

#define W MPI_COMM_WORLD

static int rank, size;

static void exchange(int how)
{
    int peer = 1 - rank, out = rank + 10, in = -1;
    MPI_Request rq;
    if (how == 0) {
        MPI_Send(&out, 1, MPI_INT, peer, 1, W);
        MPI_Recv(&in, 1, MPI_INT, peer, 1, W, MPI_STATUS_IGNORE);
    } else if (how == 1) {
        MPI_Isend(&out, 1, MPI_INT, peer, 1, W, &rq);
        MPI_Wait(&rq, MPI_STATUS_IGNORE);
        MPI_Recv(&in, 1, MPI_INT, peer, 1, W, MPI_STATUS_IGNORE);
    } else if (how == 2) {
        MPI_Sendrecv(&out, 1, MPI_INT, peer, 1, &in, 1, MPI_INT, peer, 1, W, MPI_STATUS_IGNORE);
    } else {
        static char buf[MPI_BSEND_OVERHEAD + 64];
        void *b;
        int bsize;
        MPI_Buffer_attach(buf, sizeof buf);
        MPI_Bsend(&out, 1, MPI_INT, peer, 1, W);
        MPI_Recv(&in, 1, MPI_INT, peer, 1, W, MPI_STATUS_IGNORE);
        MPI_Buffer_detach(&b, &bsize);
    }
    MT_CHECK(in == peer + 10);
}

static void ring(void)
{
    int out = rank, in = -1;
    MPI_Send(&out, 1, MPI_INT, (rank + 1) % size, 2, W);
    MPI_Recv(&in, 1, MPI_INT, (rank + size - 1) % size, 2, W, MPI_STATUS_IGNORE);
    MT_CHECK(in == (rank + size - 1) % size);
}

static void colls(const char *mode)
{
    int v[2] = {rank, rank}, r[2] = {0, 0};
    if (!strcmp(mode, "coll_root")) {
        MPI_Bcast(v, 1, MPI_INT, rank, W); /* every rank its own root: what moves is undefined */
        return;
    }
    MPI_Bcast(v, 1, MPI_INT, 0, W);
    MT_CHECK(v[0] == 0);
    int n = !strcmp(mode, "coll_count") && rank == 1 ? 1 : 2;
    MPI_Reduce(v, r, n, MPI_INT, MPI_SUM, 0, W);
    MT_CHECK(rank != 0 || r[0] == 0);
}

static void requests(const char *mode)
{
    int out[2] = {7, 8}, in[2] = {0, 0};
    MPI_Request rq[2];
    int isend = !strcmp(mode, "req_isend") || !strcmp(mode, "req_both");
    int irecv = !strcmp(mode, "req_irecv") || !strcmp(mode, "req_both");
    if (rank == 0) {
        MPI_Isend(&out[0], 1, MPI_INT, 1, 3, W, &rq[0]);
        if (!strcmp(mode, "ok_free"))
            MPI_Request_free(&rq[0]);
        else if (!isend)
            MPI_Wait(&rq[0], MPI_STATUS_IGNORE);
        MPI_Send(&out[1], 1, MPI_INT, 1, 4, W);
    } else {
        MPI_Recv(&in[0], 1, MPI_INT, 0, 3, W, MPI_STATUS_IGNORE);
        MPI_Irecv(&in[1], 1, MPI_INT, 0, 4, W, &rq[1]);
        if (!irecv) {
            MPI_Wait(&rq[1], MPI_STATUS_IGNORE);
            MT_CHECK(in[1] == 8);
        }
        MT_CHECK(in[0] == 7);
    }
    MPI_Barrier(W); /* the unwaited messages have arrived (eager) before the end */
}

static void rma(void)
{
    static int buf[2]; /* static: MPICH over UCX did not update a window on the stack here */
    int one = 1;
    MPI_Win win;
    MPI_Win_create(buf, sizeof buf, sizeof(int), MPI_INFO_NULL, W, &win);
    MPI_Win_fence(0, win);
    MPI_Put(&one, 1, MPI_INT, 1 - rank, 0, 1, MPI_INT, win);
    MPI_Win_fence(MPI_MODE_NOSUCCEED, win); /* no epoch after it: locks may follow */
    MPI_Barrier(W);
    MT_CHECK(buf[0] == 1);
    if (rank == 0) {
        MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win);
        MPI_Put(&one, 1, MPI_INT, 1, 1, 1, MPI_INT, win);
        MPI_Win_unlock(1, win);
    }
    MPI_Barrier(W);
    MPI_Win_free(&win);
}

/* Conflicting RMA accesses (rma_putput, rma_putget, rma_accops, rma_lockput) and a look-alike
 * without any (ok_rma_conf). The faulty ones check nothing: what they leave in the window is
 * undefined. */
static void rma_conflicts(const char *mode)
{
    static int buf[4]; /* static: see rma() */
    int v[2] = {rank + 1, rank + 2}, got[2] = {0, 0};
    MPI_Win win;
    MPI_Win_create(buf, sizeof buf, sizeof(int), MPI_INFO_NULL, W, &win);
    MPI_Win_fence(0, win);
    if (!strcmp(mode, "rma_putput")) { /* both ranks put rank 1's buf[0] */
        MPI_Put(&v[0], 1, MPI_INT, 1, 0, 1, MPI_INT, win);
    } else if (!strcmp(mode, "rma_putget") && rank == 0) { /* put and get rank 1's buf[0] */
        MPI_Put(&v[0], 1, MPI_INT, 1, 0, 1, MPI_INT, win);
        MPI_Get(&got[0], 1, MPI_INT, 1, 0, 1, MPI_INT, win);
    } else if (!strcmp(mode, "rma_accops")) { /* sum and max on rank 1's buf[0] */
        MPI_Accumulate(&v[0], 1, MPI_INT, 1, 0, 1, MPI_INT, rank ? MPI_MAX : MPI_SUM, win);
    } else if (!strcmp(mode, "ok_rma_conf")) {
        /* the same op on the same int, gets of the same int, puts of ints side by side */
        MPI_Accumulate(&v[0], 1, MPI_INT, 1, 0, 1, MPI_INT, MPI_SUM, win);
        MPI_Get(&got[0], 1, MPI_INT, 0, 1, 1, MPI_INT, win);
        MPI_Put(&v[1], 1, MPI_INT, 1, 2 + rank, 1, MPI_INT, win);
        MPI_Win_fence(0, win);
        if (rank == 0) /* the int the accumulates updated, in the next epoch */
            MPI_Put(&v[0], 1, MPI_INT, 1, 0, 1, MPI_INT, win);
    }
    MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
    if (rank == 0 && (!strcmp(mode, "rma_lockput") || !strcmp(mode, "ok_rma_conf"))) {
        int three = !strcmp(mode, "ok_rma_conf");
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win);
        MPI_Put(v, 2, MPI_INT, 1, 1, 2, MPI_INT, win); /* buf[1] and buf[2] ... */
        if (three)                                     /* ... done at the target before the get */
            MPI_Win_flush(1, win);
        if (three)
            MPI_Get(&got[1], 1, MPI_INT, 1, 2, 1, MPI_INT, win);
        else /* ... and buf[2] again */
            MPI_Put(&v[1], 1, MPI_INT, 1, 2, 1, MPI_INT, win);
        MPI_Win_unlock(1, win);
    }
    MPI_Barrier(W);
    if (!strcmp(mode, "ok_rma_conf")) {
        MT_CHECK(rank != 1 || (buf[0] == 1 && buf[1] == 1 && buf[2] == 2));
        MT_CHECK(rank != 0 || (got[0] == 0 && got[1] == 2));
    }
    MPI_Win_free(&win);
}

/* General active target: rank 2 exposes its window to ranks 0 and 1 (rma_pscw: in one epoch,
 * where both put the same int: rma-conflict; ok_rma_pscw: rank 0 in a first epoch, rank 1 in a
 * second, no finding). */
static void rma_pscw(const char *mode)
{
    int v = rank + 1, ok = !strcmp(mode, "ok_rma_pscw"), *buf;
    MPI_Win win;
    MPI_Group world, origins, first, second, target;
    MPI_Comm_group(W, &world);
    int ranks01[2] = {0, 1}, two = 2;
    MPI_Group_incl(world, 2, ranks01, &origins);
    MPI_Group_incl(world, 1, &ranks01[0], &first);
    MPI_Group_incl(world, 1, &ranks01[1], &second);
    MPI_Group_incl(world, 1, &two, &target);
    MPI_Win_allocate(2 * sizeof(int), sizeof(int), MPI_INFO_NULL, W, &buf, &win);
    buf[0] = 0;
    MPI_Barrier(W); /* buf[0] is 0 before any put */
    for (int epoch = 0; epoch < (ok ? 2 : 1); epoch++) {
        if (rank == 2) {
            MPI_Win_post(ok ? (epoch ? second : first) : origins, 0, win);
            MPI_Win_wait(win);
        } else if (!ok || rank == epoch) {
            MPI_Win_start(target, 0, win);
            MPI_Put(&v, 1, MPI_INT, 2, 0, 1, MPI_INT, win);
            MPI_Win_complete(win);
        }
    }
    if (ok)
        MT_CHECK(rank != 2 || buf[0] == 2);
    MPI_Win_free(&win);
    MPI_Group_free(&target);
    MPI_Group_free(&second);
    MPI_Group_free(&first);
    MPI_Group_free(&origins);
    MPI_Group_free(&world);
}

/* Assertions of fences, posts and starts broken (as_noprecede, as_mixed, as_noput, as_post_noput,
 * as_nocheck) and a look-alike that keeps every one it gives (ok_assert). Rank 0 is the origin,
 * rank 1 the target. The faulty ones check nothing: what MPI makes of a broken promise is
 * undefined. */
static void asserts(const char *mode)
{
    static int buf[2]; /* static: see rma() */
    int v = 5, got = 0, ok = !strcmp(mode, "ok_assert");
    MPI_Win win;
    MPI_Group world, peer;
    int other = 1 - rank;
    MPI_Comm_group(W, &world);
    MPI_Group_incl(world, 1, &other, &peer);
    MPI_Win_create(buf, sizeof buf, sizeof(int), MPI_INFO_NULL, W, &win);
    /* fences: NOPRECEDE on the first (as_mixed: on rank 0 only), NOPUT on the target's second */
    int first = !strcmp(mode, "as_mixed") && rank == 1 ? 0 : MPI_MODE_NOPRECEDE;
    MPI_Win_fence(first | MPI_MODE_NOSTORE, win);
    if (rank == 0 && strcmp(mode, "as_noprecede"))
        MPI_Put(&v, 1, MPI_INT, 1, 0, 1, MPI_INT, win);
    MPI_Win_fence(rank == 1 ? MPI_MODE_NOPUT : 0, win);
    if (rank == 0 && !strcmp(mode, "as_noput"))
        MPI_Put(&v, 1, MPI_INT, 1, 1, 1, MPI_INT, win); /* rank 1 said NOPUT */
    else if (rank == 0)
        MPI_Get(&got, 1, MPI_INT, 1, 0, 1, MPI_INT, win); /* reads only */
    MPI_Win_fence(!strcmp(mode, "as_noprecede") ? MPI_MODE_NOPRECEDE | MPI_MODE_NOSUCCEED
                                                : MPI_MODE_NOSUCCEED,
                  win);
    /* general active target: NOCHECK on both sides (as_nocheck: on the start only), then a post
     * with NOPUT that only a get follows (as_post_noput: an accumulate) */
    int nocheck = !strcmp(mode, "as_nocheck") || ok ? MPI_MODE_NOCHECK : 0;
    if (rank == 1)
        MPI_Win_post(peer, ok ? MPI_MODE_NOCHECK : 0, win);
    MPI_Barrier(W); /* NOCHECK: the matching post has been made */
    if (rank == 0) {
        MPI_Win_start(peer, nocheck, win);
        MPI_Put(&v, 1, MPI_INT, 1, 0, 1, MPI_INT, win);
        MPI_Win_complete(win);
    } else {
        MPI_Win_wait(win);
    }
    if (rank == 1) {
        MPI_Win_post(peer, MPI_MODE_NOPUT, win);
        MPI_Win_wait(win);
    } else {
        MPI_Win_start(peer, 0, win);
        if (!strcmp(mode, "as_post_noput"))
            MPI_Accumulate(&v, 1, MPI_INT, 1, 1, 1, MPI_INT, MPI_SUM, win); /* NOPUT broken */
        else
            MPI_Get(&got, 1, MPI_INT, 1, 1, 1, MPI_INT, win);
        MPI_Win_complete(win);
    }
    if (ok)
        MT_CHECK(rank != 0 || got == 0);
    MPI_Win_free(&win);
    MPI_Group_free(&peer);
    MPI_Group_free(&world);
}

/* Windows left to MPI_Finalize (leak_win: MPI_Win_create, leak_alloc: MPI_Win_allocate,
 * leak_dyn: MPI_Win_create_dynamic) and the look-alike that frees all three (ok_leak). The
 * windows left have no memory: MPICH 4.0.2 over UCX aborts in MPI_Finalize when one with
 * memory is left (its registration cache finds the region still in use). */
static void leaks(const char *mode)
{
    static int buf[2];
    int *mem;
    MPI_Win made, allocated, dynamic;
    int ok = !strcmp(mode, "ok_leak");
    MPI_Aint bytes = ok ? (MPI_Aint)sizeof buf : 0;
    MPI_Win_create(ok ? buf : NULL, bytes, sizeof(int), MPI_INFO_NULL, W, &made);
    MPI_Win_allocate(bytes, sizeof(int), MPI_INFO_NULL, W, &mem, &allocated);
    MPI_Win_create_dynamic(MPI_INFO_NULL, W, &dynamic);
    if (ok || strcmp(mode, "leak_win"))
        MPI_Win_free(&made);
    if (ok || strcmp(mode, "leak_alloc"))
        MPI_Win_free(&allocated);
    if (ok || strcmp(mode, "leak_dyn"))
        MPI_Win_free(&dynamic);
}

/* Memory of a dynamic window (dyn_outside, dyn_past, dyn_detach; ok_dyn): rank 1 attaches the
 * first 4 ints of a 16-int array and tells rank 0 their address, which puts under a lock.
 * Neither MPICH 4.0.2 nor Open MPI 4.1.4 checks that the bytes are attached: the puts outside
 * land in the array, which is the program's own memory either way. */
static void dynamic(const char *mode)
{
    static int arr[16];
    int v[4] = {1, 2, 3, 4};
    MPI_Aint base = 0;
    MPI_Win win;
    MPI_Win_create_dynamic(MPI_INFO_NULL, W, &win);
    if (rank == 1) {
        MPI_Win_attach(win, arr, 4 * sizeof(int));
        MPI_Get_address(arr, &base);
    }
    MPI_Bcast(&base, 1, MPI_AINT, 1, W);
    if (rank == 0) {
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win);
        if (!strcmp(mode, "dyn_outside"))
            MPI_Put(v, 1, MPI_INT, 1, base + 8 * (MPI_Aint)sizeof(int), 1, MPI_INT, win);
        else if (!strcmp(mode, "dyn_past"))
            MPI_Put(v, 4, MPI_INT, 1, base + 2 * (MPI_Aint)sizeof(int), 4, MPI_INT, win);
        else
            MPI_Put(v, 4, MPI_INT, 1, base, 4, MPI_INT, win);
        MPI_Win_unlock(1, win);
    }
    MPI_Barrier(W);
    if (rank == 1) {
        if (!strcmp(mode, "dyn_detach"))
            MPI_Win_detach(win, arr + 1);
        MPI_Win_detach(win, arr);
        for (int i = 0; i < 4 && !strcmp(mode, "ok_dyn"); i++)
            MT_CHECK(arr[i] == i + 1);
    }
    MPI_Win_free(&win);
}

/* Communicators left to MPI_Finalize (leak_dup, leak_split, leak_cart) and the look-alike that
 * frees all it makes (ok_leak_comm; ok_disconnect, with MPI_Comm_disconnect for one). */
static void comm_leaks(const char *mode)
{
    int ok = !strcmp(mode, "ok_leak_comm") || !strcmp(mode, "ok_disconnect"), dims[1] = {0},
        periods[1] = {0}, v = rank;
    MPI_Comm dup, split, cart, idup;
    MPI_Request rq;
    MPI_Comm_dup(W, &dup);
    MPI_Comm_split(W, 0, size - rank, &split);
    MPI_Dims_create(size, 1, dims);
    MPI_Cart_create(W, 1, dims, periods, 0, &cart);
    MPI_Comm_idup(W, &idup, &rq);
    MPI_Wait(&rq, MPI_STATUS_IGNORE);
    MPI_Allreduce(MPI_IN_PLACE, &v, 1, MPI_INT, MPI_SUM, split);
    MT_CHECK(v == size * (size - 1) / 2);
    if (!strcmp(mode, "ok_disconnect"))
        MPI_Comm_disconnect(&dup);
    else if (ok || strcmp(mode, "leak_dup"))
        MPI_Comm_free(&dup);
    if (ok || strcmp(mode, "leak_split"))
        MPI_Comm_free(&split);
    if (ok || strcmp(mode, "leak_cart"))
        MPI_Comm_free(&cart);
    if (!strcmp(mode, "leak_cart"))
        MPI_Comm_dup(W, &dup); /* made again after its free, and left: this one is named */
    MPI_Comm_free(&idup);
}

/*
 * Group handles left (leak_group*) and the look-alike (ok_leak_group): MPI_Comm_group of
 * MPI_COMM_WORLD twice (MPICH hands out the same handle both times, each to be freed), an
 * MPI_Group_incl of it, an MPI_Group_union of the two, and MPI_Win_get_group of a window.
 * leak_group leaves the second reference of the world group; leak_group_incl the MPI_Group_incl
 * group; leak_group_win the window's group. ok_leak_group frees each, and makes an empty
 * group (MPI_GROUP_EMPTY, predefined) that it need not free.
 */
static void group_leaks(const char *mode)
{
    int ok = !strcmp(mode, "ok_leak_group"), first = 0, buf = 0;
    MPI_Group world, again, one, both, empty, wg;
    MPI_Win win;
    MPI_Comm_group(W, &world);
    MPI_Comm_group(W, &again);
    MPI_Group_incl(world, 1, &first, &one);
    MPI_Group_union(world, one, &both);
    MPI_Group_incl(world, 0, &first, &empty);
    MPI_Win_create(&buf, sizeof buf, sizeof buf, MPI_INFO_NULL, W, &win);
    MPI_Win_get_group(win, &wg);
    int n = -1;
    MPI_Group_size(both, &n);
    MT_CHECK(n == size);
    MPI_Group_free(&world);
    if (ok || strcmp(mode, "leak_group"))
        MPI_Group_free(&again);
    if (ok || strcmp(mode, "leak_group_incl"))
        MPI_Group_free(&one);
    MPI_Group_free(&both);
    if (ok || strcmp(mode, "leak_group_win"))
        MPI_Group_free(&wg);
    MPI_Win_free(&win);
}

/* A persistent collective's request freed while active (req_free_*) and the look-alike that
 * frees it once it completed (ok_free_pcoll). MPI_Request_free returns at once; the barrier
 * after it keeps each rank's collective from being left behind by the other's MPI_Finalize. */
static void pcoll_free(const char *mode)
{
#if MPI_VERSION >= 4
    int v = rank + 1, r = 0;
    MPI_Request rq;
    if (!strcmp(mode, "req_free_pallreduce"))
        MPI_Allreduce_init(&v, &r, 1, MPI_INT, MPI_SUM, W, MPI_INFO_NULL, &rq);
    else if (!strcmp(mode, "req_free_pbcast"))
        MPI_Bcast_init(&v, 1, MPI_INT, 0, W, MPI_INFO_NULL, &rq);
    else
        MPI_Barrier_init(W, MPI_INFO_NULL, &rq);
    MPI_Start(&rq);
    if (!strcmp(mode, "ok_free_pcoll"))
        MPI_Wait(&rq, MPI_STATUS_IGNORE);
    MPI_Request_free(&rq);
    MPI_Barrier(W);
#else /* Open MPI 4.1 has no persistent collectives: the cases run under MPICH only */
    if (rank == 0)
        fprintf(stderr, "faulty: %s needs MPI 4\n", mode);
    MPI_Abort(W, 2);
#endif
}

/*
 * A persistent request misused on rank 0, which rank 1 feeds (pstart_*), and the look-alike
 * (ok_cancel). MPICH refuses both misuses (MPI_ERR_REQUEST: an invalid-param finding, the
 * errors returned here); Open MPI 4.1 accepts them (a request finding). req_restart starts a
 * send again while active: MPICH sends once, Open MPI twice (the first activation goes on
 * unwaited), so rank 1 takes tag 7 messages until the tag 8 one. req_cancel_done cancels a
 * receive whose start completed; req_cancel_never one never started. ok_cancel cancels an
 * MPI_Irecv nobody matches and an active persistent receive, and completes both.
 */
static void pstart(const char *mode)
{
    int v = 7, in = 0, n7 = 0;
    MPI_Request rq;
    MPI_Status st;
    MPI_Comm_set_errhandler(W, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    if (!strcmp(mode, "req_restart")) {
        if (rank == 0) {
            MPI_Send_init(&v, 1, MPI_INT, 1, 7, W, &rq);
            MPI_Start(&rq);
            MPI_Start(&rq);
            MPI_Wait(&rq, MPI_STATUS_IGNORE);
            MPI_Request_free(&rq);
            MPI_Send(&v, 1, MPI_INT, 1, 8, W);
        } else {
            do {
                MPI_Recv(&in, 1, MPI_INT, 0, MPI_ANY_TAG, W, &st);
                n7 += st.MPI_TAG == 7;
            } while (st.MPI_TAG != 8);
            MT_CHECK(n7 == 1 || n7 == 2);
        }
    } else if (!strcmp(mode, "req_cancel_done") || !strcmp(mode, "req_cancel_never")) {
        int done = !strcmp(mode, "req_cancel_done");
        if (rank == 0) {
            MPI_Recv_init(&in, 1, MPI_INT, 1, 7, W, &rq);
            if (done) {
                MPI_Start(&rq);
                MPI_Wait(&rq, MPI_STATUS_IGNORE);
                MT_CHECK(in == 7);
            }
            MPI_Cancel(&rq);
            MPI_Request_free(&rq);
        } else if (done) {
            MPI_Send(&v, 1, MPI_INT, 0, 7, W);
        }
    } else { /* ok_cancel */
        if (rank == 0) {
            int flag = 0;
            MPI_Irecv(&in, 1, MPI_INT, 1, 99, W, &rq);
            MPI_Cancel(&rq);
            MPI_Wait(&rq, &st);
            MPI_Test_cancelled(&st, &flag);
            MT_CHECK(flag);
            MPI_Recv_init(&in, 1, MPI_INT, 1, 98, W, &rq);
            MPI_Start(&rq);
            MPI_Cancel(&rq);
            MPI_Wait(&rq, &st);
            MPI_Request_free(&rq);
        }
    }
    MPI_Comm_set_errhandler(W, MPI_ERRORS_ARE_FATAL);
}

/* Rank 2 sends only once rank 0 made its wildcard receive, as told through a file in the
 * working directory that MPI does not see: in the trace nothing orders the two (at most 10 s). */
static const char gate[] = "faulty.race.gate";
static void gate_wait(void)
{
    for (int i = 0; i < 10000 && access(gate, F_OK); i++)
        usleep(1000);
}

static void races(const char *mode)
{
    int v = -1, tag2 = !strcmp(mode, "race_any") || !strcmp(mode, "ok_race_tag") ? 6 : 5;
    MPI_Status st;
    if (rank == 0)
        remove(gate);
    MPI_Barrier(W);
    if (rank == 1) {
        v = 1;
        MPI_Send(&v, 1, MPI_INT, 0, 5, W);
    } else if (rank == 2) {
        if (!strcmp(mode, "ok_race_order"))
            MPI_Recv(&v, 1, MPI_INT, 0, 9, W, MPI_STATUS_IGNORE); /* go */
        else
            gate_wait();
        v = 2;
        MPI_Send(&v, 1, MPI_INT, 0, tag2, W);
    } else {
        if (!strcmp(mode, "race_irecv")) {
            MPI_Request q;
            MPI_Irecv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 5, W, &q);
            MPI_Wait(&q, &st);
        } else {
            MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, !strcmp(mode, "race_any") ? MPI_ANY_TAG : 5, W,
                     &st);
        }
        MT_CHECK(v == 1 && st.MPI_SOURCE == 1);
        FILE *f = fopen(gate, "w");
        if (f)
            fclose(f);
        if (!strcmp(mode, "ok_race_order")) {
            int go = 0;
            MPI_Send(&go, 1, MPI_INT, 2, 9, W);
        }
        MPI_Recv(&v, 1, MPI_INT, 2, tag2, W, MPI_STATUS_IGNORE);
        MT_CHECK(v == 2);
        remove(gate);
    }
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    int want =
        !strcmp(mode, "buf_ring") || strstr(mode, "race_") || strstr(mode, "rma_pscw") ? 3 : 2;
    rank = mt_init(&argc, &argv, "faulty", want, MT_NO_THREADS);
    MPI_Comm_size(W, &size);
    if (!strcmp(mode, "buf_sendsend"))
        exchange(0);
    else if (!strcmp(mode, "buf_isend"))
        exchange(1);
    else if (!strcmp(mode, "ok_sendrecv"))
        exchange(2);
    else if (!strcmp(mode, "ok_bsend"))
        exchange(3);
    else if (!strcmp(mode, "buf_ring"))
        ring();
    else if (!strncmp(mode, "coll_", 5) || !strcmp(mode, "ok_coll"))
        colls(mode);
    else if (!strcmp(mode, "req_restart") || !strncmp(mode, "req_cancel_", 11) ||
             !strcmp(mode, "ok_cancel"))
        pstart(mode);
    else if (!strncmp(mode, "req_free_", 9) || !strcmp(mode, "ok_free_pcoll"))
        pcoll_free(mode);
    else if (!strncmp(mode, "req_", 4) || !strcmp(mode, "ok_free"))
        requests(mode);
    else if (!strcmp(mode, "ok_rma"))
        rma();
    else if (!strcmp(mode, "rma_pscw") || !strcmp(mode, "ok_rma_pscw"))
        rma_pscw(mode);
    else if (!strncmp(mode, "rma_", 4) || !strcmp(mode, "ok_rma_conf"))
        rma_conflicts(mode);
    else if (!strcmp(mode, "leak_dup") || !strcmp(mode, "leak_split") ||
             !strcmp(mode, "leak_cart") || !strcmp(mode, "ok_leak_comm") ||
             !strcmp(mode, "ok_disconnect"))
        comm_leaks(mode);
    else if (!strncmp(mode, "leak_group", 10) || !strcmp(mode, "ok_leak_group"))
        group_leaks(mode);
    else if (!strncmp(mode, "leak_", 5) || !strcmp(mode, "ok_leak"))
        leaks(mode);
    else if (!strncmp(mode, "dyn_", 4) || !strcmp(mode, "ok_dyn"))
        dynamic(mode);
    else if (!strncmp(mode, "as_", 3) || !strcmp(mode, "ok_assert"))
        asserts(mode);
    else if (strstr(mode, "race_"))
        races(mode);
    else {
        if (rank == 0)
            fprintf(stderr, "faulty: unknown mode '%s'\n", mode);
        MPI_Abort(W, 2);
    }
    mt_finish("faulty");
    if (!strcmp(mode, "coll_missing") && rank == 0) {
        int v = 5;
        MPI_Bcast(&v, 1, MPI_INT, 0, W); /* rank 1 never calls it */
    }
    MPI_Finalize();
    return 0;
}
