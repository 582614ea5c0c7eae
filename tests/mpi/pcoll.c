/*
 * pcoll: every MPI-4 persistent collective on 4 ranks, each request started twice (MPI_Start
 * and MPI_Wait, then MPI_Startall and MPI_Waitall) and then freed: first the MPI-3-count forms
 * (MPI_Barrier_init ... MPI_Neighbor_alltoallw_init), then the same calls in their large-count
 * forms (MPI_Bcast_init_c ...; MPI has no MPI_Barrier_init_c). The collectives are on
 * MPI_COMM_WORLD, the neighbourhood ones on a periodic Cartesian ring (left neighbour first).
 * The v and w forms have uneven blocks where their rows show which argument gave them. The
 * send data changes between the two activations and every result is checked after each. The
 * expected trace, derived by hand, is expected/pcoll.dump: each start an NBC_REQUEST, each
 * completion the NBC_COMPLETE (and rows) the I-form would record.
 */
#include <stdlib.h>
#include <string.h>

#include "mpitest.h"

#define W MPI_COMM_WORLD
#define P 4

static int rank, large;
static MPI_Comm ring;
static int left, right; /* the ring's neighbours: source and destination slots 0 and 1 */
static int s[64], r[64];

/* An int array and its large-count copies (MPI_Count counts, MPI_Aint displacements). */
typedef struct arr {
    int i[P];
    MPI_Count c[P];
    MPI_Aint a[P];
} arr;

static arr mk(int n, const int *v)
{
    arr x;
    memset(&x, 0, sizeof x);
    for (int k = 0; k < n; k++) {
        x.i[k] = v[k];
        x.c[k] = v[k];
        x.a[k] = v[k];
    }
    return x;
}

/* Element k of what rank src sends in activation t. */
static int val(int t, int src, int k)
{
    return 1000 * t + 100 * src + k;
}

static void fill(int t, int n)
{
    for (int k = 0; k < n; k++)
        s[k] = val(t, rank, k);
    memset(r, 0xff, sizeof r);
}

/* Activation t (0, 1) of req: MPI_Start and MPI_Wait, or MPI_Startall and MPI_Waitall. */
static void run(MPI_Request *req, int t)
{
    if (!t) {
        MPI_Start(req);
        MPI_Wait(req, MPI_STATUS_IGNORE);
    } else {
        MPI_Startall(1, req);
        MPI_Waitall(1, req, MPI_STATUSES_IGNORE);
    }
}

static void barrier(void)
{
    MPI_Request q;
    MPI_Barrier_init(W, MPI_INFO_NULL, &q); /* no large-count form */
    for (int t = 0; t < 2; t++)
        run(&q, t);
    MPI_Request_free(&q);
    MT_CHECK(q == MPI_REQUEST_NULL);
}

/* bcast of 2 ints from rank 1 */
static void bcast(void)
{
    MPI_Request q;
    if (large)
        MPI_Bcast_init_c(s, (MPI_Count)2, MPI_INT, 1, W, MPI_INFO_NULL, &q);
    else
        MPI_Bcast_init(s, 2, MPI_INT, 1, W, MPI_INFO_NULL, &q);
    for (int t = 0; t < 2; t++) {
        fill(t, 2);
        run(&q, t);
        MT_CHECK(s[0] == val(t, 1, 0) && s[1] == val(t, 1, 1));
    }
    MPI_Request_free(&q);
}

/* gather of 1 int to rank 2; gatherv of rank + 1 ints to rank 2 */
static void gather(void)
{
    static const int cnt[P] = {1, 2, 3, 4}, dsp[P] = {0, 1, 3, 6};
    arr c = mk(P, cnt), d = mk(P, dsp);
    MPI_Request q, qv;
    if (large) {
        MPI_Gather_init_c(s, (MPI_Count)1, MPI_INT, r, (MPI_Count)1, MPI_INT, 2, W, MPI_INFO_NULL,
                          &q);
        MPI_Gatherv_init_c(s, (MPI_Count)(rank + 1), MPI_INT, r, c.c, d.a, MPI_INT, 2, W,
                           MPI_INFO_NULL, &qv);
    } else {
        MPI_Gather_init(s, 1, MPI_INT, r, 1, MPI_INT, 2, W, MPI_INFO_NULL, &q);
        MPI_Gatherv_init(s, rank + 1, MPI_INT, r, c.i, d.i, MPI_INT, 2, W, MPI_INFO_NULL, &qv);
    }
    for (int t = 0; t < 2; t++) {
        fill(t, 1);
        run(&q, t);
        for (int j = 0; rank == 2 && j < P; j++)
            MT_CHECK(r[j] == val(t, j, 0));
    }
    for (int t = 0; t < 2; t++) {
        fill(t, rank + 1);
        run(&qv, t);
        for (int j = 0; rank == 2 && j < P; j++)
            for (int k = 0; k <= j; k++)
                MT_CHECK(r[dsp[j] + k] == val(t, j, k));
    }
    MPI_Request_free(&q);
    MPI_Request_free(&qv);
}

/* scatter of 1 int from rank 3; scatterv of j + 1 ints to rank j from rank 3 */
static void scatter(void)
{
    static const int cnt[P] = {1, 2, 3, 4}, dsp[P] = {0, 1, 3, 6};
    arr c = mk(P, cnt), d = mk(P, dsp);
    MPI_Request q, qv;
    if (large) {
        MPI_Scatter_init_c(s, (MPI_Count)1, MPI_INT, r, (MPI_Count)1, MPI_INT, 3, W, MPI_INFO_NULL,
                           &q);
        MPI_Scatterv_init_c(s, c.c, d.a, MPI_INT, r, (MPI_Count)(rank + 1), MPI_INT, 3, W,
                            MPI_INFO_NULL, &qv);
    } else {
        MPI_Scatter_init(s, 1, MPI_INT, r, 1, MPI_INT, 3, W, MPI_INFO_NULL, &q);
        MPI_Scatterv_init(s, c.i, d.i, MPI_INT, r, rank + 1, MPI_INT, 3, W, MPI_INFO_NULL, &qv);
    }
    for (int t = 0; t < 2; t++) {
        fill(t, P);
        run(&q, t);
        MT_CHECK(r[0] == val(t, 3, rank));
    }
    for (int t = 0; t < 2; t++) {
        fill(t, 10);
        run(&qv, t);
        for (int k = 0; k <= rank; k++)
            MT_CHECK(r[k] == val(t, 3, dsp[rank] + k));
    }
    MPI_Request_free(&q);
    MPI_Request_free(&qv);
}

/* allgather of 1 int; allgatherv of rank + 1 ints */
static void allgather(void)
{
    static const int cnt[P] = {1, 2, 3, 4}, dsp[P] = {0, 1, 3, 6};
    arr c = mk(P, cnt), d = mk(P, dsp);
    MPI_Request q, qv;
    if (large) {
        MPI_Allgather_init_c(s, (MPI_Count)1, MPI_INT, r, (MPI_Count)1, MPI_INT, W, MPI_INFO_NULL,
                             &q);
        MPI_Allgatherv_init_c(s, (MPI_Count)(rank + 1), MPI_INT, r, c.c, d.a, MPI_INT, W,
                              MPI_INFO_NULL, &qv);
    } else {
        MPI_Allgather_init(s, 1, MPI_INT, r, 1, MPI_INT, W, MPI_INFO_NULL, &q);
        MPI_Allgatherv_init(s, rank + 1, MPI_INT, r, c.i, d.i, MPI_INT, W, MPI_INFO_NULL, &qv);
    }
    for (int t = 0; t < 2; t++) {
        fill(t, 1);
        run(&q, t);
        for (int j = 0; j < P; j++)
            MT_CHECK(r[j] == val(t, j, 0));
    }
    for (int t = 0; t < 2; t++) {
        fill(t, rank + 1);
        run(&qv, t);
        for (int j = 0; j < P; j++)
            for (int k = 0; k <= j; k++)
                MT_CHECK(r[dsp[j] + k] == val(t, j, k));
    }
    MPI_Request_free(&q);
    MPI_Request_free(&qv);
}

/* alltoall of 1 int; alltoallv of j + 1 ints to rank j; alltoallw of one int to even ranks
 * and one double to odd ones */
static void alltoall(void)
{
    static const int sc[P] = {1, 2, 3, 4}, sd[P] = {0, 1, 3, 6};
    int rc[P], rd[P], one[P] = {1, 1, 1, 1}, wsd[P], wrd[P];
    MPI_Datatype st[P], rt[P];
    for (int j = 0; j < P; j++) {
        rc[j] = rank + 1, rd[j] = j * (rank + 1);
        st[j] = j % 2 ? MPI_DOUBLE : MPI_INT, wsd[j] = 8 * j;
        rt[j] = rank % 2 ? MPI_DOUBLE : MPI_INT, wrd[j] = 8 * j;
    }
    arr asc = mk(P, sc), asd = mk(P, sd), arc = mk(P, rc), ard = mk(P, rd), a1 = mk(P, one);
    arr awsd = mk(P, wsd), awrd = mk(P, wrd);
    double ws[P], wr[P];
    MPI_Request q, qv, qw;
    if (large) {
        MPI_Alltoall_init_c(s, (MPI_Count)1, MPI_INT, r, (MPI_Count)1, MPI_INT, W, MPI_INFO_NULL,
                            &q);
        MPI_Alltoallv_init_c(s, asc.c, asd.a, MPI_INT, r, arc.c, ard.a, MPI_INT, W, MPI_INFO_NULL,
                             &qv);
        MPI_Alltoallw_init_c(ws, a1.c, awsd.a, st, wr, a1.c, awrd.a, rt, W, MPI_INFO_NULL, &qw);
    } else {
        MPI_Alltoall_init(s, 1, MPI_INT, r, 1, MPI_INT, W, MPI_INFO_NULL, &q);
        MPI_Alltoallv_init(s, asc.i, asd.i, MPI_INT, r, arc.i, ard.i, MPI_INT, W, MPI_INFO_NULL,
                           &qv);
        MPI_Alltoallw_init(ws, a1.i, awsd.i, st, wr, a1.i, awrd.i, rt, W, MPI_INFO_NULL, &qw);
    }
    for (int t = 0; t < 2; t++) {
        fill(t, P);
        run(&q, t);
        for (int j = 0; j < P; j++)
            MT_CHECK(r[j] == val(t, j, rank));
    }
    for (int t = 0; t < 2; t++) {
        fill(t, 10);
        run(&qv, t);
        for (int j = 0; j < P; j++)
            for (int k = 0; k <= rank; k++)
                MT_CHECK(r[rd[j] + k] == val(t, j, sd[rank] + k));
    }
    for (int t = 0; t < 2; t++) {
        for (int j = 0; j < P; j++) {
            int v = val(t, rank, j);
            if (j % 2)
                ws[j] = v;
            else
                memcpy(&ws[j], &v, sizeof v);
        }
        memset(wr, 0xff, sizeof wr);
        run(&qw, t);
        for (int j = 0; j < P; j++) {
            int v;
            if (rank % 2)
                v = (int)wr[j];
            else
                memcpy(&v, &wr[j], sizeof v);
            MT_CHECK(v == val(t, j, rank));
        }
    }
    MPI_Request_free(&q);
    MPI_Request_free(&qv);
    MPI_Request_free(&qw);
}

/* reduce of 2 ints to rank 0, allreduce of 2 ints, reduce_scatter of j + 1 ints to rank j,
 * reduce_scatter_block of 2 ints each, scan and exscan of 1 int: all sums */
static void reduce(void)
{
    static const int cnt[P] = {1, 2, 3, 4};
    arr c = mk(P, cnt);
    MPI_Request q[6];
    if (large) {
        MPI_Reduce_init_c(s, r, (MPI_Count)2, MPI_INT, MPI_SUM, 0, W, MPI_INFO_NULL, &q[0]);
        MPI_Allreduce_init_c(s, r, (MPI_Count)2, MPI_INT, MPI_SUM, W, MPI_INFO_NULL, &q[1]);
        MPI_Reduce_scatter_init_c(s, r, c.c, MPI_INT, MPI_SUM, W, MPI_INFO_NULL, &q[2]);
        MPI_Reduce_scatter_block_init_c(s, r, (MPI_Count)2, MPI_INT, MPI_SUM, W, MPI_INFO_NULL,
                                        &q[3]);
        MPI_Scan_init_c(s, r, (MPI_Count)1, MPI_INT, MPI_SUM, W, MPI_INFO_NULL, &q[4]);
        MPI_Exscan_init_c(s, r, (MPI_Count)1, MPI_INT, MPI_SUM, W, MPI_INFO_NULL, &q[5]);
    } else {
        MPI_Reduce_init(s, r, 2, MPI_INT, MPI_SUM, 0, W, MPI_INFO_NULL, &q[0]);
        MPI_Allreduce_init(s, r, 2, MPI_INT, MPI_SUM, W, MPI_INFO_NULL, &q[1]);
        MPI_Reduce_scatter_init(s, r, c.i, MPI_INT, MPI_SUM, W, MPI_INFO_NULL, &q[2]);
        MPI_Reduce_scatter_block_init(s, r, 2, MPI_INT, MPI_SUM, W, MPI_INFO_NULL, &q[3]);
        MPI_Scan_init(s, r, 1, MPI_INT, MPI_SUM, W, MPI_INFO_NULL, &q[4]);
        MPI_Exscan_init(s, r, 1, MPI_INT, MPI_SUM, W, MPI_INFO_NULL, &q[5]);
    }
    /* sum over ranks 0..n-1 of val(t, j, k) */
#define SUM(t, n, k) ((n) * (1000 * (t) + (k)) + 100 * ((n) * ((n)-1) / 2))
    static const int first[P] = {0, 1, 3, 6}; /* reduce_scatter: rank j's block starts here */
    for (int i = 0; i < 6; i++)
        for (int t = 0; t < 2; t++) {
            fill(t, 10);
            run(&q[i], t);
            if (i == 0 && rank == 0)
                MT_CHECK(r[0] == SUM(t, P, 0) && r[1] == SUM(t, P, 1));
            if (i == 1)
                MT_CHECK(r[0] == SUM(t, P, 0) && r[1] == SUM(t, P, 1));
            for (int k = 0; i == 2 && k <= rank; k++)
                MT_CHECK(r[k] == SUM(t, P, first[rank] + k));
            if (i == 3)
                MT_CHECK(r[0] == SUM(t, P, 2 * rank) && r[1] == SUM(t, P, 2 * rank + 1));
            if (i == 4)
                MT_CHECK(r[0] == SUM(t, rank + 1, 0));
            if (i == 5 && rank > 0)
                MT_CHECK(r[0] == SUM(t, rank, 0));
        }
#undef SUM
    for (int i = 0; i < 6; i++)
        MPI_Request_free(&q[i]);
}

/* On the ring: neighbor_allgather and neighbor_alltoall of 1 int, neighbor_allgatherv of 1
 * int from each neighbour, neighbor_alltoallv of 1 int to the left and 2 to the right,
 * neighbor_alltoallw of 1 int each way. */
static void neighbor(void)
{
    static const int one[2] = {1, 1}, d01[2] = {0, 1}, sc[2] = {1, 2}, rc[2] = {2, 1},
                     sd[2] = {0, 1}, rd[2] = {0, 2}, wd[2] = {0, 4};
    arr a1 = mk(2, one), ad = mk(2, d01), asc = mk(2, sc), arc = mk(2, rc), asd = mk(2, sd),
        ard = mk(2, rd);
    MPI_Aint wda[2] = {wd[0], wd[1]};
    MPI_Datatype ty[2] = {MPI_INT, MPI_INT};
    MPI_Request q[5];
    if (large) {
        MPI_Neighbor_allgather_init_c(s, (MPI_Count)1, MPI_INT, r, (MPI_Count)1, MPI_INT, ring,
                                      MPI_INFO_NULL, &q[0]);
        MPI_Neighbor_allgatherv_init_c(s, (MPI_Count)1, MPI_INT, r, a1.c, ad.a, MPI_INT, ring,
                                       MPI_INFO_NULL, &q[1]);
        MPI_Neighbor_alltoall_init_c(s, (MPI_Count)1, MPI_INT, r, (MPI_Count)1, MPI_INT, ring,
                                     MPI_INFO_NULL, &q[2]);
        MPI_Neighbor_alltoallv_init_c(s, asc.c, asd.a, MPI_INT, r, arc.c, ard.a, MPI_INT, ring,
                                      MPI_INFO_NULL, &q[3]);
        MPI_Neighbor_alltoallw_init_c(s, a1.c, wda, ty, r, a1.c, wda, ty, ring, MPI_INFO_NULL,
                                      &q[4]);
    } else {
        MPI_Neighbor_allgather_init(s, 1, MPI_INT, r, 1, MPI_INT, ring, MPI_INFO_NULL, &q[0]);
        MPI_Neighbor_allgatherv_init(s, 1, MPI_INT, r, a1.i, ad.i, MPI_INT, ring, MPI_INFO_NULL,
                                     &q[1]);
        MPI_Neighbor_alltoall_init(s, 1, MPI_INT, r, 1, MPI_INT, ring, MPI_INFO_NULL, &q[2]);
        MPI_Neighbor_alltoallv_init(s, asc.i, asd.i, MPI_INT, r, arc.i, ard.i, MPI_INT, ring,
                                    MPI_INFO_NULL, &q[3]);
        MPI_Neighbor_alltoallw_init(s, a1.i, wda, ty, r, a1.i, wda, ty, ring, MPI_INFO_NULL, &q[4]);
    }
    for (int i = 0; i < 5; i++)
        for (int t = 0; t < 2; t++) {
            fill(t, 10);
            run(&q[i], t);
            if (i <= 1) /* element 0 of each neighbour */
                MT_CHECK(r[0] == val(t, left, 0) && r[1] == val(t, right, 0));
            if (i == 2 || i == 4) /* the left neighbour's slot 1, the right one's slot 0 */
                MT_CHECK(r[0] == val(t, left, 1) && r[1] == val(t, right, 0));
            if (i == 3) /* 2 from the left (its elements 1 and 2), 1 from the right */
                MT_CHECK(r[0] == val(t, left, 1) && r[1] == val(t, left, 2) &&
                         r[2] == val(t, right, 0));
        }
    for (int i = 0; i < 5; i++)
        MPI_Request_free(&q[i]);
}

int main(int argc, char **argv)
{
    /* MPICH 4.0.2 gets its default schedules of persistent MPI_Gather_init (wrong data),
     * MPI_Scatter_init (its second start fails: "Invalid communicator") and MPI_Allgather_init
     * (wrong data) on 4 ranks wrong, with or without the tracer; its transport-based ones are
     * right. MPICH reads these at MPI_Init; a value the user set stays. */
    setenv("MPIR_CVAR_IGATHER_INTRA_ALGORITHM", "tsp_tree", 0);
    setenv("MPIR_CVAR_ISCATTER_INTRA_ALGORITHM", "tsp_tree", 0);
    setenv("MPIR_CVAR_IALLGATHER_INTRA_ALGORITHM", "tsp_ring", 0);
    rank = mt_init(&argc, &argv, "pcoll", P, MT_NO_THREADS);
    int dims[1] = {P}, periods[1] = {1};
    MPI_Cart_create(W, 1, dims, periods, 0, &ring);
    MPI_Cart_shift(ring, 0, 1, &left, &right);
    for (large = 0; large < 2; large++) {
        if (!large)
            barrier();
        bcast();
        gather();
        scatter();
        allgather();
        alltoall();
        reduce();
        neighbor();
    }
    MPI_Comm_free(&ring);
    mt_finish("pcoll");
    MPI_Finalize();
    return 0;
}
