/*
 * Neighbourhood collectives as their exchange pattern: one round in which this rank sends a
 * block to each destination of its neighbour lists and receives one from each source (rules
 * and sizes in rt_coll.h). The lists come from the trace (rt_nbr_def), so unlike the other
 * ops nothing here depends on the communicator's size beyond the range of a neighbour.
 */
#include <inttypes.h>

#include "rt__coll.h"

#define BAD(...) return rt_err_set(err, RT_E_INVAL, __VA_ARGS__)

static int check_list(const rt_coll_call *c, const char *name, const char *what, uint32_t n,
                      const int32_t *v, rt_err *err)
{
    for (uint32_t k = 0; k < n; k++)
        if (v[k] != RT_PEER_NONE && (v[k] < 0 || (uint32_t)v[k] >= c->size))
            BAD("%s: %s %" PRIu32 " is rank %" PRId32 ", not in a communicator of %" PRIu32, name,
                what, k, v[k], c->size);
    return 0;
}

/* total split over n blocks: the exact forms must split evenly, and nothing goes nowhere. */
static int check_total(const char *name, const char *what, uint64_t total, uint32_t n, int exact,
                       rt_err *err)
{
    if (n == 0 && total)
        BAD("%s: %s is %" PRIu64 " with no neighbours to move it", name, what, total);
    if (exact && n && total % n)
        BAD("%s: %s (%" PRIu64 ") is not a multiple of the %" PRIu32 " neighbour blocks", name,
            what, total, n);
    return 0;
}

int rt__neighbor_check(rt__sched *s, const rt_coll_call *c, rt_err *err)
{
    const char *name = rt_event_op_name(RT_EV_COLL_END, c->op);
    const rt_nbr_def *nb = c->nbrs;
    if (!nb)
        BAD("%s: the trace holds no neighbour lists of rank %" PRIu32
            " on this communicator (its process topology is not recorded)",
            name, c->me);
    int rc = check_list(c, name, "source", nb->nin, nb->in, err);
    if (!rc)
        rc = check_list(c, name, "destination", nb->nout, nb->out, err);
    /* allgather and alltoall move one block size each way; allgatherv one send block */
    int exact_in = c->op == RT_COLL_NEIGHBOR_ALLGATHER || c->op == RT_COLL_NEIGHBOR_ALLTOALL;
    int exact_out = exact_in || c->op == RT_COLL_NEIGHBOR_ALLGATHERV;
    if (!rc)
        rc = check_total(name, "bytes", c->bytes, nb->nout, exact_out, err);
    if (!rc)
        rc = check_total(name, "rbytes", c->rbytes, nb->nin, exact_in, err);
    if (rc)
        return rc;
    s->skip0 = 0; /* MPICH posts every block, empty ones too */
    s->approx = !c->equal_blocks && ((!exact_in && nb->nin > 1 && !c->rblk) ||
                                     (!exact_out && nb->nout > 1 && !c->sblk));
    return 0;
}

void rt__neighbor_linear(rt__sched *s, const rt_coll_call *c)
{
    const rt_nbr_def *nb = c->nbrs;
    rt__blocks out = rt__blocks_of(c->bytes, nb->nout ? nb->nout : 1, 0);
    rt__blocks in = rt__blocks_of(c->rbytes, nb->nin ? nb->nin : 1, 0);
    out.v = c->sblk; /* the per-peer counts by slot, when the trace has them */
    in.v = c->rblk;
    rt__next(s);
    for (uint32_t k = 0; k < nb->nout && !rt__stopped(s); k++)
        if (nb->out[k] != RT_PEER_NONE)
            rt__send(s, nb->out[k], rt__piece(&out, k));
    for (uint32_t k = 0; k < nb->nin && !rt__stopped(s); k++)
        if (nb->in[k] != RT_PEER_NONE)
            rt__recv(s, nb->in[k], rt__piece(&in, k));
}
