/*
 * MPICH 4.0's default choice of algorithm. MPICH 4.0 selects through a built-in table
 * (src/mpi/coll/coll_selection.json, compiled into libmpich; the thresholds below are the
 * ones of 4.0.2, Debian 12's MPICH) rather than the MPIR_CVAR_*_MSG_SIZE variables of 3.x.
 * Only the flat intra-communicator branch is modelled (see rt_coll.h).
 */
#include "rt__coll.h"

/* MPICH 4.0.2 coll_selection.json thresholds, in bytes. */
#define BCAST_MIN_PROCS 8u          /* comm_size<8: binomial */
#define BCAST_SHORT 12288u          /* avg_msg_size<=12288: binomial */
#define BCAST_LONG 524288u          /* avg_msg_size<=524288 (pof2): scatter + rdb */
#define ALLREDUCE_SHORT 8u          /* avg_msg_size<=8: recursive doubling */
#define REDUCE_SHORT 2048u          /* avg_msg_size<=2048: binomial */
#define ALLGATHER_POF2_LONG 524288u /* pof2, total_msg_size<524288: recursive doubling */
#define ALLGATHER_SHORT 81920u      /* total_msg_size<81920: brucks */
#define ALLTOALL_MIN_PROCS 8u       /* comm_size<8: no brucks */
#define ALLTOALL_SHORT 256u         /* avg_msg_size<=256: brucks */
#define ALLTOALL_MEDIUM 32768u      /* avg_msg_size<=32768: scattered */
#define REDUCE_SCATTER_LONG 524288u /* total_msg_size<524288: recursive halving */

static int is_pof2(uint32_t p)
{
    return (p & (p - 1)) == 0;
}

unsigned rt_coll_elem_size(uint64_t n)
{
    return n % 8 == 0 ? 8 : n % 4 == 0 ? 4 : n % 2 == 0 ? 2 : 1;
}

/* MPICH's "count < pof2" rules (Rabenseifner needs a piece per rank) look at the element
 * count: of the recorded element size, else of rt_coll_elem_size's guess. */
static int count_below_pof2(const rt_coll_call *c, uint64_t n, uint32_t p)
{
    uint64_t e = rt_coll_esize(c->esize, n);
    return n / e < rt__pof2(p);
}

rt_coll_alg rt_coll_select_mpich(const rt_coll_call *c)
{
    uint32_t p = c->size ? c->size : 1;
    uint64_t n = rt__op_size(c);
    switch (c->op) {
    case RT_COLL_BARRIER:
        return RT_ALG_DISSEMINATION;
    case RT_COLL_BCAST:
        if (p < BCAST_MIN_PROCS || n <= BCAST_SHORT)
            return RT_ALG_BINOMIAL;
        return is_pof2(p) && n <= BCAST_LONG ? RT_ALG_SCATTER_RDB : RT_ALG_SCATTER_RING;
    case RT_COLL_GATHER:
    case RT_COLL_SCATTER:
        return RT_ALG_BINOMIAL;
    case RT_COLL_GATHERV:
    case RT_COLL_SCATTERV:
        return RT_ALG_LINEAR;
    case RT_COLL_ALLGATHER:
    case RT_COLL_ALLGATHERV:
        if (is_pof2(p))
            return n < ALLGATHER_POF2_LONG ? RT_ALG_RDB : RT_ALG_RING;
        return n < ALLGATHER_SHORT ? RT_ALG_BRUCK : RT_ALG_RING;
    case RT_COLL_ALLTOALL:
        if (p >= ALLTOALL_MIN_PROCS && n <= ALLTOALL_SHORT)
            return RT_ALG_BRUCK;
        return n <= ALLTOALL_MEDIUM ? RT_ALG_DIRECT : RT_ALG_PAIRWISE;
    case RT_COLL_ALLTOALLV:
    case RT_COLL_ALLTOALLW:
        return RT_ALG_DIRECT;
    case RT_COLL_ALLREDUCE:
        if (n <= ALLREDUCE_SHORT || count_below_pof2(c, n, p))
            return RT_ALG_RDB;
        return RT_ALG_RABENSEIFNER;
    case RT_COLL_REDUCE:
        if (n <= REDUCE_SHORT || count_below_pof2(c, n, p))
            return RT_ALG_BINOMIAL;
        return RT_ALG_RABENSEIFNER;
    case RT_COLL_REDUCE_SCATTER:
    case RT_COLL_REDUCE_SCATTER_BLOCK:
        return n < REDUCE_SCATTER_LONG ? RT_ALG_RECURSIVE_HALVING : RT_ALG_PAIRWISE;
    case RT_COLL_SCAN:
    case RT_COLL_EXSCAN:
        return RT_ALG_RDB;
    case RT_COLL_NEIGHBOR_ALLGATHER:
    case RT_COLL_NEIGHBOR_ALLGATHERV:
    case RT_COLL_NEIGHBOR_ALLTOALL:
    case RT_COLL_NEIGHBOR_ALLTOALLV:
    case RT_COLL_NEIGHBOR_ALLTOALLW:
        return RT_ALG_LINEAR;
    default:
        return RT_ALG_COUNT;
    }
}
