/*
 * ompi_wire: blocking collectives whose sizes reach most of Open MPI 4.1's fixed decision
 * rules on 2 to 8 ranks (bcast pipeline, binary tree, binomial, linear and chain; reduce
 * binary, chain, binomial and linear; allreduce recursive doubling, Rabenseifner and, on 2
 * and 3 ranks, the ring; barrier; allgather and allgatherv (default, neighbor exchange, ring,
 * Bruck, with unequal blocks); alltoall and alltoallv; gather and scatter binomial and linear;
 * reduce_scatter and reduce_scatter_block), with roots 0 and 2. Reductions are sums of doubles
 * and bcasts send doubles, so that the element count retrace assumes is the real one.
 * tests/mpi/ompi_wire.sh compares the messages Open MPI sends for them (its pml monitoring
 * component) with retrace's wire level on the trace of the same program. Prints nothing: the
 * comparison is the test.
 */
#include <mpi.h>
#include <stdlib.h>

#define W MPI_COMM_WORLD

static void rooted(char *a, char *b, int p)
{
    /* 16, 104, 200, 4096, 20000 and 1048576 bytes, as doubles: the element count retrace
     * assumes is the real one, which Open MPI's scatter_allgather bcasts cut by */
    static const int bcast[] = {2, 13, 25, 512, 2500, 131072};
    for (int i = 0; i < 6; i++)
        MPI_Bcast(a, bcast[i], MPI_DOUBLE, i % 2 ? 2 % p : 0, W);
    static const int reduce[] = {100, 1000, 12500, 37500}; /* doubles */
    for (int i = 0; i < 4; i++)
        MPI_Reduce(a, b, reduce[i], MPI_DOUBLE, MPI_SUM, i % 2, W);
    MPI_Gather(a, 100, MPI_CHAR, b, 100, MPI_CHAR, 1, W);
    MPI_Gather(a, 2000, MPI_CHAR, b, 2000, MPI_CHAR, 0, W);
    MPI_Scatter(a, 100, MPI_CHAR, b, 100, MPI_CHAR, 1, W);
    MPI_Scatter(a, 3000, MPI_CHAR, b, 3000, MPI_CHAR, 0, W);
}

static void rootless(char *a, char *b, int p, int me)
{
    static const int allreduce[] = {1, 100, 625, 2500, 10000}; /* doubles */
    for (int i = 0; i < 5; i++)
        MPI_Allreduce(a, b, allreduce[i], MPI_DOUBLE, MPI_SUM, W);
    MPI_Barrier(W);
    MPI_Allgather(a, 8, MPI_CHAR, b, 8, MPI_CHAR, W);
    MPI_Allgather(a, 4096, MPI_CHAR, b, 4096, MPI_CHAR, W);
    MPI_Alltoall(a, 100, MPI_CHAR, b, 100, MPI_CHAR, W);
    int *cnt = malloc(sizeof *cnt * (size_t)p), *dsp = malloc(sizeof *dsp * (size_t)p);
    if (!cnt || !dsp)
        MPI_Abort(W, 1);
    for (int i = 0; i < p; i++)
        cnt[i] = 300, dsp[i] = 300 * i;
    MPI_Alltoallv(a, cnt, dsp, MPI_CHAR, b, cnt, dsp, MPI_CHAR, W);
    /* allgatherv: rank i gives base + i bytes (default, neighbor exchange, ring, Bruck) */
    static const int base[] = {100, 300, 5000, 20000};
    for (int j = 0; j < 4; j++) {
        for (int i = 0, at = 0; i < p; at += cnt[i++])
            cnt[i] = base[j] + i, dsp[i] = at;
        MPI_Allgatherv(a, cnt[me], MPI_CHAR, b, cnt, dsp, MPI_CHAR, W);
    }
    for (int i = 0; i < p; i++)
        cnt[i] = 100;
    MPI_Reduce_scatter_block(a, b, 100, MPI_DOUBLE, MPI_SUM, W);
    /* blocks of 2, 5, 16, 64 and 160 KiB bytes: recursive doubling, butterfly and basic linear
     * (reduce, then scatter) on 2 to 8 ranks, by the fixed rules (docs/analyzer.md) */
    static const int rsb[] = {2, 5, 16, 64, 160 << 10};
    for (int j = 0; j < 5; j++)
        MPI_Reduce_scatter_block(a, b, rsb[j], MPI_UNSIGNED_CHAR, MPI_SUM, W);
    MPI_Reduce_scatter(a, b, cnt, MPI_DOUBLE, MPI_SUM, W);
    /* reduce_scatter of 1 and of 40000 bytes a rank: non-overlapping (reduce, then scatterv) on
     * 4 and 5 ranks, the butterfly on 2 and 3 */
    static const int rs[] = {1, 40000};
    for (int j = 0; j < 2; j++) {
        for (int i = 0; i < p; i++)
            cnt[i] = rs[j];
        MPI_Reduce_scatter(a, b, cnt, MPI_UNSIGNED_CHAR, MPI_SUM, W);
    }
    free(cnt);
    free(dsp);
}

int main(int argc, char **argv)
{
    int p, me;
    MPI_Init(&argc, &argv);
    MPI_Comm_size(W, &p);
    MPI_Comm_rank(W, &me);
    char *a = calloc(1 << 21, 1), *b = calloc((size_t)p << 21, 1);
    if (!a || !b)
        MPI_Abort(W, 1);
    rooted(a, b, p);
    rootless(a, b, p, me);
    free(a);
    free(b);
    MPI_Finalize();
    return 0;
}
