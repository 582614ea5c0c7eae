/*
 * Open MPI 4.1's default choice of algorithm: the fixed decision rules of its coll/tuned
 * component, ompi/mca/coll/tuned/coll_tuned_decision_fixed.c of Open MPI 4.1.x (the
 * "ompi-collectives-tuning" rules of 4.1.0, unchanged up to 4.1.4, Debian 12's: its
 * ompi_info lists the same algorithm numbers), read in the open-mpi/ompi repository. Each
 * ompi_coll_tuned_<op>_intra_dec_fixed picks a number by communicator size band, then by a
 * size band; the tables below are those bands, transcribed rule for rule for commutative
 * operations. Only the intra-communicator rules are modelled (see rt_coll.h).
 */
#include "rt__coll.h"

/* One band of communicator sizes: below `procs` ranks (0: any larger size), the first step
 * whose size is below `below` (0: any larger size) gives the algorithm number. */
typedef struct step {
    uint32_t below;
    uint8_t alg;
} step;

typedef struct band {
    uint32_t procs;
    step steps[11];
} band;

#define K 1024u
#define M (1024u * 1024u)

/* ompi_coll_tuned_allreduce_intra_dec_fixed, commutative ops; size = dsize * count. */
static const band allreduce[] = {
    {4, {{8, 4}, {4 * K, 3}, {8 * K, 4}, {16 * K, 3}, {64 * K, 4}, {256 * K, 5}, {0, 6}}},
    {8, {{16, 4}, {8 * K, 3}, {0, 6}}},
    {16, {{8 * K, 3}, {0, 6}}},
    {32, {{64, 5}, {4 * K, 3}, {0, 6}}},
    {64, {{128, 5}, {0, 6}}},
    {128, {{256 * K, 3}, {0, 6}}},
    {256, {{128 * K, 2}, {256 * K, 3}, {0, 6}}},
    {512, {{4 * K, 2}, {0, 6}}},
    {2048, {{2 * K, 2}, {16 * K, 3}, {0, 6}}},
    {4096, {{2 * K, 2}, {4 * K, 5}, {16 * K, 3}, {0, 6}}},
    {0, {{2 * K, 2}, {16 * K, 5}, {32 * K, 3}, {0, 6}}},
};

/* ompi_coll_tuned_alltoall_intra_dec_fixed; size = dsize * scount (one block). The first
 * band is communicator_size == 2. */
static const band alltoall[] = {
    {3,
     {{2, 2},
      {4, 5},
      {16, 2},
      {64, 5},
      {256, 2},
      {4 * K, 5},
      {32 * K, 2},
      {256 * K, 4},
      {M, 5},
      {0, 2}}},
    {8, {{8 * K, 4}, {16 * K, 1}, {64 * K, 4}, {512 * K, 1}, {M, 2}, {0, 1}}},
    {16, {{256 * K, 4}, {0, 1}}},
    {32, {{4, 4}, {512, 3}, {8 * K, 4}, {32 * K, 1}, {256 * K, 4}, {512 * K, 1}, {0, 4}}},
    {64, {{512, 3}, {512 * K, 1}, {0, 4}}},
    {128, {{K, 3}, {2 * K, 1}, {4 * K, 4}, {256 * K, 1}, {0, 2}}},
    {256, {{K, 3}, {2 * K, 4}, {256 * K, 1}, {0, 2}}},
    {512, {{K, 3}, {8 * K, 4}, {32 * K, 1}, {0, 2}}},
    {1024, {{512, 3}, {8 * K, 4}, {16 * K, 1}, {128 * K, 4}, {256 * K, 1}, {0, 2}}},
    {2048, {{512, 3}, {K, 4}, {2 * K, 1}, {16 * K, 4}, {256 * K, 1}, {0, 4}}},
    {4096, {{K, 3}, {4 * K, 4}, {8 * K, 1}, {128 * K, 4}, {0, 1}}},
    {0, {{2 * K, 3}, {8 * K, 4}, {16 * K, 1}, {32 * K, 4}, {64 * K, 1}, {0, 4}}},
};

/* ompi_coll_tuned_alltoallv_intra_dec_fixed: by communicator size only. */
static const band alltoallv[] = {
    {4, {{0, 2}}},   {64, {{0, 1}}},   {128, {{0, 2}}},
    {256, {{0, 1}}}, {1024, {{0, 2}}}, {0, {{0, 1}}},
};

/* ompi_coll_tuned_barrier_intra_dec_fixed: by communicator size only. */
static const band barrier[] = {
    {4, {{0, 3}}},   {8, {{0, 1}}},    {64, {{0, 3}}},   {256, {{0, 4}}},
    {512, {{0, 6}}}, {1024, {{0, 4}}}, {4096, {{0, 6}}}, {0, {{0, 4}}},
};

/* ompi_coll_tuned_bcast_intra_dec_fixed; size = dsize * count. */
static const band bcast[] = {
    {4,
     {{32, 3},
      {256, 5},
      {512, 3},
      {K, 7},
      {32 * K, 1},
      {128 * K, 5},
      {256 * K, 2},
      {512 * K, 1},
      {M, 6},
      {0, 5}}},
    {8, {{64, 5}, {128, 6}, {2 * K, 5}, {8 * K, 6}, {M, 1}, {0, 2}}},
    {16, {{8, 7}, {64, 5}, {4 * K, 7}, {16 * K, 5}, {32 * K, 6}, {0, 1}}},
    {32, {{4 * K, 7}, {M, 6}, {0, 8}}},
    {64, {{2 * K, 6}, {0, 7}}},
    {128, {{0, 7}}},
    {256, {{2, 6}, {16 * K, 5}, {32 * K, 1}, {64 * K, 5}, {0, 7}}},
    {1024, {{16 * K, 7}, {32 * K, 4}, {0, 7}}},
    {2048, {{512 * K, 7}, {0, 8}}},
    {4096, {{256 * K, 7}, {0, 8}}},
    {0, {{8 * K, 7}, {16 * K, 5}, {256 * K, 7}, {0, 8}}},
};

/* ompi_coll_tuned_reduce_intra_dec_fixed, commutative ops; size = dsize * count. */
static const band reduce[] = {
    {4, {{8, 7}, {16, 4}, {32, 3}, {256 * K, 1}, {512 * K, 3}, {M, 2}, {0, 3}}},
    {8, {{4 * K, 4}, {64 * K, 2}, {256 * K, 5}, {512 * K, 1}, {M, 5}, {0, 1}}},
    {16, {{8 * K, 4}, {0, 5}}},
    {32, {{4 * K, 4}, {0, 5}}},
    {256, {{0, 5}}},
    {512, {{8 * K, 5}, {16 * K, 6}, {0, 5}}},
    {2048, {{0, 5}}},
    {4096, {{512, 5}, {K, 6}, {8 * K, 5}, {16 * K, 6}, {0, 5}}},
    {0, {{16, 5}, {32, 6}, {K, 5}, {2 * K, 6}, {8 * K, 5}, {16 * K, 6}, {0, 5}}},
};

/* ompi_coll_tuned_reduce_scatter_intra_dec_fixed, commutative ops; size = the sum of
 * rcounts times dsize (the total). */
static const band reduce_scatter[] = {
    {4, {{64 * K, 3}, {128 * K, 4}, {0, 3}}},
    {8, {{8, 1}, {256 * K, 2}, {0, 3}}},
    {32, {{256 * K, 2}, {0, 3}}},
    {64, {{64, 1}, {2 * K, 2}, {512 * K, 4}, {0, 3}}},
    {128, {{256, 1}, {512, 2}, {2 * K, 4}, {4 * K, 2}, {0, 4}}},
    {256, {{256, 1}, {512, 2}, {0, 4}}},
    {512, {{256, 1}, {K, 2}, {0, 4}}},
    {1024, {{512, 1}, {2 * K, 2}, {8 * K, 4}, {16 * K, 2}, {0, 4}}},
    {2048, {{512, 1}, {4 * K, 2}, {16 * K, 4}, {32 * K, 2}, {0, 4}}},
    {4096, {{512, 1}, {4 * K, 2}, {0, 4}}},
    {0, {{K, 1}, {8 * K, 2}, {0, 4}}},
};

/* ompi_coll_tuned_reduce_scatter_block_intra_dec_fixed, commutative ops; size = dsize *
 * rcount (one block). */
static const band reduce_scatter_block[] = {
    {4,
     {{4, 2}, {8, 4}, {16, 3}, {128, 4}, {256, 3}, {4 * K, 4}, {8 * K, 3}, {128 * K, 4}, {0, 1}}},
    {8, {{8, 3}, {32, 2}, {256, 4}, {8 * K, 3}, {16 * K, 4}, {M, 3}, {0, 1}}},
    {16, {{4, 1}, {32, 3}, {128, 4}, {512 * K, 3}, {4 * M, 1}, {0, 4}}},
    {32, {{32, 1}, {512 * K, 3}, {2 * M, 1}, {4 * M, 3}, {0, 4}}},
    {0, {{4, 3}, {16, 1}, {64 * K, 4}, {256 * K, 1}, {0, 4}}},
};

/* ompi_coll_tuned_allgather_intra_dec_fixed; size = dsize * scount (one block). The first
 * band is communicator_size == 2. */
static const band allgather[] = {
    {3, {{0, 6}}},
    {32, {{0, 3}}},
    {64, {{K, 3}, {64 * K, 5}, {0, 4}}},
    {128, {{512, 3}, {64 * K, 5}, {0, 4}}},
    {256, {{512, 3}, {128 * K, 5}, {512 * K, 4}, {M, 5}, {0, 4}}},
    {512, {{32, 3}, {128, 2}, {K, 3}, {128 * K, 5}, {512 * K, 4}, {M, 5}, {0, 4}}},
    {1024, {{64, 3}, {256, 2}, {2 * K, 3}, {0, 5}}},
    {2048, {{4, 3}, {8, 2}, {16, 3}, {32, 2}, {256, 3}, {512, 2}, {4 * K, 3}, {0, 5}}},
    {4096, {{32, 2}, {128, 3}, {512, 2}, {4 * K, 3}, {0, 5}}},
    {0, {{2, 3}, {8, 2}, {16, 3}, {512, 2}, {4 * K, 3}, {0, 5}}},
};

/* ompi_coll_tuned_allgatherv_intra_dec_fixed; size = the total over the ranks / p. The
 * first band is communicator_size == 2. */
static const band allgatherv[] = {
    {3, {{2 * K, 3}, {4 * K, 5}, {8 * K, 3}, {0, 5}}},
    {8, {{256, 1}, {4 * K, 4}, {8 * K, 3}, {16 * K, 4}, {256 * K, 2}, {0, 4}}},
    {16, {{K, 1}, {0, 2}}},
    {32, {{128, 1}, {256 * K, 2}, {0, 3}}},
    {64, {{256, 1}, {8 * K, 2}, {0, 3}}},
    {128, {{256, 1}, {4 * K, 2}, {0, 3}}},
    {256, {{K, 2}, {64 * K, 4}, {0, 3}}},
    {512, {{K, 2}, {0, 3}}},
    {1024, {{512, 2}, {K, 1}, {4 * K, 2}, {M, 4}, {0, 3}}},
    {0, {{4 * K, 2}, {0, 4}}},
};

/* ompi_coll_tuned_gather_intra_dec_fixed; size = one rank's block. */
static const band gather[] = {
    {4, {{2, 3}, {4, 1}, {32 * K, 2}, {64 * K, 1}, {128 * K, 2}, {0, 3}}},
    {8, {{K, 2}, {8 * K, 1}, {32 * K, 2}, {256 * K, 1}, {0, 3}}},
    {256, {{0, 2}}},
    {512, {{2 * K, 2}, {8 * K, 1}, {0, 2}}},
    {0, {{0, 2}}},
};

/* ompi_coll_tuned_scatter_intra_dec_fixed; size = one rank's block. */
static const band scatter[] = {
    {4, {{2, 3}, {128 * K, 1}, {256 * K, 3}, {0, 1}}},
    {8, {{2 * K, 2}, {4 * K, 1}, {8 * K, 2}, {32 * K, 1}, {M, 3}, {0, 1}}},
    {16, {{16 * K, 2}, {M, 3}, {0, 1}}},
    {32, {{16 * K, 2}, {32 * K, 1}, {0, 3}}},
    {64, {{512, 2}, {8 * K, 3}, {16 * K, 2}, {0, 3}}},
    {0, {{512, 2}, {0, 3}}},
};

static int decide(const band *b, uint32_t p, uint64_t size)
{
    while (b->procs && p >= b->procs)
        b++;
    const step *s = b->steps;
    while (s->below && size >= s->below)
        s++;
    return s->alg;
}

static int is_pof2(uint32_t p)
{
    return (p & (p - 1)) == 0;
}

/* The element count tuned's algorithms compare with the number of ranks. */
static uint64_t elements(const rt_coll_call *c, uint64_t n)
{
    return n / rt_coll_esize(c->esize, n);
}

int rt_coll_ompi_pick(const rt_coll_call *c)
{
    uint32_t p = c->size ? c->size : 1;
    switch (c->op) {
    case RT_COLL_ALLREDUCE:
        return decide(allreduce, p, c->bytes);
    case RT_COLL_ALLTOALL:
        return decide(alltoall, p, c->bytes / p);
    case RT_COLL_ALLTOALLV:
        return decide(alltoallv, p, 0);
    case RT_COLL_BARRIER:
        return decide(barrier, p, 0);
    case RT_COLL_BCAST:
        return decide(bcast, p, rt__op_size(c));
    case RT_COLL_REDUCE:
        return decide(reduce, p, c->bytes);
    case RT_COLL_REDUCE_SCATTER:
        return decide(reduce_scatter, p, c->bytes);
    case RT_COLL_REDUCE_SCATTER_BLOCK:
        return decide(reduce_scatter_block, p, c->rbytes);
    case RT_COLL_ALLGATHER:
        return decide(allgather, p, c->bytes);
    case RT_COLL_ALLGATHERV:
        return decide(allgatherv, p, c->rbytes / p);
    case RT_COLL_GATHER:
        return decide(gather, p, c->bytes);
    case RT_COLL_SCATTER:
        return decide(scatter, p, c->rbytes);
    default:
        return 0;
    }
}

/* Open MPI's algorithms that move the same messages as another row, by that row (rt_coll.h). */
static const struct {
    uint8_t op, id;
    rt_coll_alg alg;
} nearest[] = {
    {RT_COLL_BCAST, 2, RT_ALG_PIPELINE},      /* chain: fanout 0 is forced to 1 */
    {RT_COLL_ALLREDUCE, 5, RT_ALG_OMPI_RING}, /* segmented ring, segment size 0: the ring */
    {RT_COLL_ALLTOALL, 4, RT_ALG_DIRECT},
    {RT_COLL_ALLTOALL, 5, RT_ALG_PAIRWISE},
    {RT_COLL_ALLGATHER, 6, RT_ALG_RING},
    {RT_COLL_ALLGATHERV, 5, RT_ALG_RING},
    {RT_COLL_BARRIER, 5, RT_ALG_OMPI_RD},
    {RT_COLL_REDUCE, 2, RT_ALG_PIPELINE}, /* chain: fanout 0 is forced to 1 */
    {RT_COLL_SCATTER, 3, RT_ALG_OMPI_LINEAR},
};

/* Where Open MPI's own algorithm hands over to another one for this call. */
static int handed_over(const rt_coll_call *c, int id)
{
    uint32_t p = c->size ? c->size : 1;
    switch (c->op) {
    case RT_COLL_BCAST: /* split_bintree: count < 2; scatter_allgather(_ring): count < p */
        if (id == 4 && elements(c, rt__op_size(c)) < 2)
            return 2;
        return (id == 8 || id == 9) && elements(c, rt__op_size(c)) < p ? 1 : id;
    case RT_COLL_ALLREDUCE: /* ring: count < p; Rabenseifner: count < pof2 */
        if ((id == 4 || id == 5) && elements(c, c->bytes) < p)
            return 3;
        if (id == 6 && elements(c, c->bytes) < rt__pof2(p))
            return 1;
        return id;
    case RT_COLL_REDUCE: /* Rabenseifner: count < pof2 (or pof2 < 2) */
        return id == 7 && (p < 2 || elements(c, c->bytes) < rt__pof2(p)) ? 1 : id;
    case RT_COLL_ALLGATHER: /* recursive doubling on a non-power of two: Bruck */
        return id == 3 && !is_pof2(p) ? 2 : id;
    default:
        return id;
    }
}

int rt_coll_ompi_runs(unsigned op, uint32_t p, uint64_t bytes, uint32_t esize, int id)
{
    rt_coll_call c = {.op = op, .size = p, .bytes = bytes, .esize = esize};
    return handed_over(&c, id);
}

rt_coll_alg rt_coll_select_ompi(const rt_coll_call *c)
{
    switch (c->op) { /* not decided by tuned: coll/basic's linear algorithms */
    case RT_COLL_GATHERV:
    case RT_COLL_SCATTERV:
    case RT_COLL_SCAN:
    case RT_COLL_EXSCAN:
        return RT_ALG_LINEAR;
    case RT_COLL_ALLTOALLW:
        return RT_ALG_DIRECT;
    default:
        if (rt_coll_is_neighbor(c->op))
            return RT_ALG_LINEAR;
        break;
    }
    int id = rt_coll_ompi_pick(c);
    if (!id)
        return RT_ALG_COUNT;
    id = handed_over(c, id);
    int row = rt__ompi_row(c->op, id);
    if (row >= 0)
        return (rt_coll_alg)row;
    for (size_t i = 0; i < sizeof nearest / sizeof nearest[0]; i++)
        if (nearest[i].op == c->op && nearest[i].id == id)
            return nearest[i].alg;
    return RT_ALG_COUNT; /* unreachable: unit.coll checks every number the rules give */
}
