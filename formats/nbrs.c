/*
 * Neighbour lists of process topologies (rt_nbr_def): one entry per rank and communicator
 * that a neighbourhood collective used, kept sorted by (rank, comm). Readers add them rank
 * by rank, so the array grows at its end and the sort costs nothing.
 */
#include <stdlib.h>
#include <string.h>

#include "rt__trace.h"

static uint64_t key_of(uint32_t rank, uint32_t comm)
{
    return (uint64_t)rank << 32 | comm;
}

/* Position of (rank, comm) in defs->nbrs, or where it would go; *found says which. */
static uint32_t nbrs_slot(const rt_defs *defs, uint64_t key, int *found)
{
    uint32_t lo = 0, hi = defs->nnbrs;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        const rt_nbr_def *n = &defs->nbrs[mid];
        if (key_of(n->rank, n->comm) < key)
            lo = mid + 1;
        else
            hi = mid;
    }
    *found = lo < defs->nnbrs && key_of(defs->nbrs[lo].rank, defs->nbrs[lo].comm) == key;
    return lo;
}

const rt_nbr_def *rt_defs_nbrs(const rt_defs *defs, uint32_t comm, uint32_t rank)
{
    int found;
    uint32_t pos = nbrs_slot(defs, key_of(rank, comm), &found);
    return found ? &defs->nbrs[pos] : NULL;
}

static int check_list(const rt_comm_def *c, uint32_t rank, const char *what, uint32_t n,
                      const int32_t *v, rt_err *err)
{
    if (n > RT_MAX_DEGREE)
        return rt_err_set(
            err, RT_E_INVAL, "neighbour lists of rank %u on communicator %u: %u %s, more than %u",
            (unsigned)rank, (unsigned)c->id, (unsigned)n, what, (unsigned)RT_MAX_DEGREE);
    for (uint32_t i = 0; i < n; i++)
        if (v[i] != RT_PEER_NONE && (v[i] < 0 || (uint32_t)v[i] >= c->size))
            return rt_err_set(err, RT_E_INVAL,
                              "neighbour lists of rank %u on communicator %u: %s %u is %d, not "
                              "a rank of the communicator (0 to %u) or none",
                              (unsigned)rank, (unsigned)c->id, what, (unsigned)i, (int)v[i],
                              (unsigned)c->size - 1);
    return 0;
}

int rt_defs_add_nbrs(rt_defs *defs, uint32_t comm, uint32_t rank, uint32_t nin, const int32_t *in,
                     uint32_t nout, const int32_t *out, rt_err *err)
{
    const rt_comm_def *c = rt_defs_comm(defs, comm);
    if (!c)
        return rt_err_set(err, RT_E_INVAL,
                          "neighbour lists of rank %u: communicator %u is not defined",
                          (unsigned)rank, (unsigned)comm);
    if (c->flags & RT_COMM_IS_INTER)
        return rt_err_set(err, RT_E_INVAL,
                          "neighbour lists of rank %u: communicator %u is an inter-communicator",
                          (unsigned)rank, (unsigned)comm);
    if (rank >= defs->nranks)
        return rt_err_set(err, RT_E_INVAL,
                          "neighbour lists on communicator %u: rank %u is not a world rank "
                          "(0 to %u)",
                          (unsigned)comm, (unsigned)rank, (unsigned)defs->nranks - 1);
    if (!(c->flags & RT_COMM_IS_SELF) && rt_comm_position(c, rank) < 0)
        return rt_err_set(err, RT_E_INVAL,
                          "neighbour lists on communicator %u: rank %u is not a member",
                          (unsigned)comm, (unsigned)rank);
    int rc = check_list(c, rank, "sources", nin, in, err);
    if (!rc)
        rc = check_list(c, rank, "destinations", nout, out, err);
    if (rc)
        return rc;
    int found;
    uint32_t pos = nbrs_slot(defs, key_of(rank, comm), &found);
    if (found)
        return rt_err_set(err, RT_E_INVAL,
                          "neighbour lists of rank %u on communicator %u are defined twice",
                          (unsigned)rank, (unsigned)comm);
    if (RT_VEC_RESERVE(defs->nbrs, defs->nbrs_cap, (uint64_t)defs->nnbrs + 1, 16) < 0)
        return rt_err_set(err, RT_E_NOMEM, "out of memory for neighbour lists");
    int32_t *lists = malloc(((size_t)nin + nout + 1) * sizeof *lists);
    if (!lists)
        return rt_err_set(err, RT_E_NOMEM, "out of memory for neighbour lists");
    if (nin)
        memcpy(lists, in, (size_t)nin * sizeof *lists);
    if (nout)
        memcpy(lists + nin, out, (size_t)nout * sizeof *lists);
    memmove(&defs->nbrs[pos + 1], &defs->nbrs[pos],
            (size_t)(defs->nnbrs - pos) * sizeof *defs->nbrs);
    defs->nbrs[pos] = (rt_nbr_def){
        .rank = rank, .comm = comm, .nin = nin, .nout = nout, .in = lists, .out = lists + nin};
    defs->nnbrs++;
    return 0;
}

void rt__defs_free_nbrs(rt_defs *defs)
{
    for (uint32_t i = 0; i < defs->nnbrs; i++)
        free(defs->nbrs[i].in);
    free(defs->nbrs);
    defs->nbrs = NULL;
    defs->nnbrs = defs->nbrs_cap = 0;
}

/* ---- consistency ------------------------------------------------------------------------- */

/* One message direction of a topology: src sends to dst (communicator ranks). */
typedef struct edge {
    uint32_t comm, src, dst;
} edge;

static int cmp_edge(const void *a, const void *b)
{
    const edge *x = a, *y = b;
    if (x->comm != y->comm)
        return x->comm < y->comm ? -1 : 1;
    if (x->src != y->src)
        return x->src < y->src ? -1 : 1;
    return (x->dst > y->dst) - (x->dst < y->dst);
}

static uint32_t count_of(const edge *v, size_t n, size_t at)
{
    uint32_t k = 0;
    while (at + k < n && !cmp_edge(&v[at], &v[at + k]))
        k++;
    return k;
}

/* The lists of the member at position pos of c, or NULL. */
static const rt_nbr_def *lists_at(const rt_defs *defs, const rt_comm_def *c, uint32_t self,
                                  int32_t pos)
{
    uint32_t w = c->flags & RT_COMM_IS_SELF ? self : c->members[pos];
    return rt_defs_nbrs(defs, c->id, w);
}

int rt_defs_nbrs_check(const rt_defs *defs, rt_err *err)
{
    size_t total = 0;
    for (uint32_t i = 0; i < defs->nnbrs; i++)
        total += (size_t)defs->nbrs[i].nin + defs->nbrs[i].nout;
    edge *sent = malloc((total + 1) * sizeof *sent), *recvd = malloc((total + 1) * sizeof *recvd);
    if (!sent || !recvd) {
        free(sent);
        free(recvd);
        return rt_err_set(err, RT_E_NOMEM, "out of memory checking neighbour lists");
    }
    size_t ns = 0, nr = 0;
    for (uint32_t i = 0; i < defs->nnbrs; i++) {
        const rt_nbr_def *n = &defs->nbrs[i];
        const rt_comm_def *c = rt_defs_comm(defs, n->comm);
        uint32_t me = c->flags & RT_COMM_IS_SELF ? 0 : (uint32_t)rt_comm_position(c, n->rank);
        for (uint32_t k = 0; k < n->nout; k++)
            if (n->out[k] >= 0 && lists_at(defs, c, n->rank, n->out[k]))
                sent[ns++] = (edge){n->comm, me, (uint32_t)n->out[k]};
        for (uint32_t k = 0; k < n->nin; k++)
            if (n->in[k] >= 0 && lists_at(defs, c, n->rank, n->in[k]))
                recvd[nr++] = (edge){n->comm, (uint32_t)n->in[k], me};
    }
    qsort(sent, ns, sizeof *sent, cmp_edge);
    qsort(recvd, nr, sizeof *recvd, cmp_edge);
    size_t a = 0, b = 0;
    int rc = 0;
    while (!rc && (a < ns || b < nr)) {
        /* the smaller of the two heads: counted on both sides */
        const edge *e =
            b >= nr || (a < ns && cmp_edge(&sent[a], &recvd[b]) <= 0) ? &sent[a] : &recvd[b];
        uint32_t cs = a < ns && !cmp_edge(&sent[a], e) ? count_of(sent, ns, a) : 0;
        uint32_t cr = b < nr && !cmp_edge(&recvd[b], e) ? count_of(recvd, nr, b) : 0;
        if (cs != cr)
            rc = rt_err_set(err, RT_E_INVAL,
                            "communicator %u: neighbour lists disagree: rank %u lists rank %u "
                            "among its destinations %u time%s, rank %u lists rank %u among its "
                            "sources %u time%s",
                            (unsigned)e->comm, (unsigned)e->src, (unsigned)e->dst, (unsigned)cs,
                            cs == 1 ? "" : "s", (unsigned)e->dst, (unsigned)e->src, (unsigned)cr,
                            cr == 1 ? "" : "s");
        a += cs;
        b += cr;
    }
    free(sent);
    free(recvd);
    return rc;
}
