/*
 * Collective calls compared between the members of each communicator (docs/check.md,
 * "collective"). MPI requires every member to call the same collectives in the same order
 * (MPI 4.0 section 6.14), with the same root and with amounts of data sent and received that
 * match (section 6.1: type signatures). The k-th collective call of each member on a
 * communicator is one instance; an instance whose members call different operations, name
 * different roots, or pass byte counts that cannot match, is a finding, and so is a member
 * that reached MPI_Finalize without making a call the others made.
 *
 * The trace holds bytes, not datatypes, so a count and a datatype that differ but give the
 * same bytes are not seen (the check finds no false mismatch either). Inter-communicators are
 * compared by operation only; neighbourhood collectives by operation (their amounts depend
 * on the topology).
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt__check.h"

/* Each member's calls on one communicator: ranges of the member's calls sorted by
 * (communicator, order). */
typedef struct by_comm {
    uint32_t *idx; /* call indices of one rank, sorted by communicator then order */
    uint32_t n;
    uint32_t lost; /* nonblocking collectives whose communicator the trace never told */
} by_comm;

static const chk_call *sort_calls;

static int idx_cmp(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    uint32_t cx = sort_calls[x].ev.comm, cy = sort_calls[y].ev.comm;
    if (cx != cy)
        return cx < cy ? -1 : 1;
    return x < y ? -1 : x > y;
}

static int index_rank(const chk_colls *cs, uint32_t r, by_comm *b)
{
    uint32_t n = cs->ncalls[r];
    b->idx = malloc((n ? n : 1) * sizeof *b->idx);
    if (!b->idx)
        return -RT_E_NOMEM;
    for (uint32_t i = 0; i < n; i++) {
        if (cs->calls[r][i].ev.kind)
            b->idx[b->n++] = i;
        else
            b->lost++;
    }
    sort_calls = cs->calls[r];
    qsort(b->idx, b->n, sizeof *b->idx, idx_cmp);
    return 0;
}

/* The calls of rank r on comm: *first and the count. */
static uint32_t range_of(const chk_colls *cs, const by_comm *b, uint32_t r, uint32_t comm,
                         uint32_t *first)
{
    uint32_t lo = 0, hi = b->n;
    while (lo < hi) { /* the first with a communicator >= comm */
        uint32_t mid = lo + (hi - lo) / 2;
        if (cs->calls[r][b->idx[mid]].ev.comm < comm)
            lo = mid + 1;
        else
            hi = mid;
    }
    uint32_t end = lo;
    while (end < b->n && cs->calls[r][b->idx[end]].ev.comm == comm)
        end++;
    *first = lo;
    return end - lo;
}

/* ---- one instance ------------------------------------------------------------------------------
 */

typedef struct inst {
    chk *c;
    const rt_comm_def *cd;
    uint32_t k;          /* the instance: call k + 1 on the communicator */
    const rt_event **ev; /* per member (position in cd->members); NULL: no such call */
    uint32_t p;          /* members */
    const chk_colls *cs;
    int pairs; /* the trace records the blocks of v and w collectives (RT_DEFS_COLL_PEERS) */
} inst;

static int report(inst *in, uint32_t a, uint32_t b, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int report(inst *in, uint32_t a, uint32_t b, const char *fmt, ...)
{
    chk_text ranks = {.len = 0}, where = {.len = 0}, calls = {.len = 0}, why = {.len = 0};
    uint32_t ra = in->cd->members[a], rb = in->cd->members[b];
    chk_add(&ranks, "%" PRIu32 ", %" PRIu32, ra < rb ? ra : rb, ra < rb ? rb : ra);
    chk_add_comm(&where, in->cd->id);
    chk_add_call(&calls, in->ev[a]);
    chk_add(&calls, "; ");
    chk_add_call(&calls, in->ev[b]);
    chk_add(&why, "call %" PRIu32 " on this communicator: ", in->k + 1);
    va_list ap;
    va_start(ap, fmt);
    if (why.len < sizeof why.s - 1)
        vsnprintf(why.s + why.len, sizeof why.s - why.len, fmt, ap);
    va_end(ap);
    int rc = chk_find(in->c, RT_CHK_COLLECTIVE, ranks.s, where.s, calls.s, why.s);
    return rc ? rc : 1; /* 1: found */
}

#define BYTES_NOTE "the counts or the datatypes' sizes disagree"

/* Every member's field (bytes or rbytes) equal to the first member's. */
static int all_equal(inst *in, int rbytes, const char *what)
{
    for (uint32_t i = 1; i < in->p; i++) {
        uint64_t a = rbytes ? in->ev[0]->rbytes : in->ev[0]->bytes;
        uint64_t b = rbytes ? in->ev[i]->rbytes : in->ev[i]->bytes;
        if (a != b)
            return report(in, 0, i,
                          "%s %" PRIu64 " bytes on one rank and %" PRIu64 " on another (" BYTES_NOTE
                          ")",
                          what, a, b);
    }
    return 0;
}

/* The root's field against p times (or the sum of) the others' fields. */
static int root_total(inst *in, uint32_t root, int root_rbytes, int sum, const char *what)
{
    rt_u128 total = 0;
    uint32_t other = root ? 0 : in->p > 1 ? 1 : 0;
    for (uint32_t i = 0; i < in->p; i++)
        total += root_rbytes ? in->ev[i]->bytes : in->ev[i]->rbytes;
    if (!sum)
        total = (rt_u128)in->p * (root_rbytes ? in->ev[other]->bytes : in->ev[other]->rbytes);
    uint64_t r = root_rbytes ? in->ev[root]->rbytes : in->ev[root]->bytes;
    if (total == r)
        return 0;
    char t[48];
    return report(in, root, other,
                  "the root %s %" PRIu64 " bytes, the members together %s (" BYTES_NOTE ")", what,
                  r, rt_u128_str(total, t, sizeof t));
}

/* The byte counts of an instance of an intra-communicator, by the rules of docs/tracer.md. */
static int totals(inst *in, unsigned op, uint32_t root)
{
    rt_u128 sb = 0, sr = 0;
    char a[48], b[48];
    int rc;
    switch (op) {
    case RT_COLL_BCAST:
        for (uint32_t i = 0; i < in->p; i++)
            if (i != root && in->ev[i]->rbytes != in->ev[root]->bytes)
                return report(in, root, i,
                              "the root sends %" PRIu64 " bytes, a member receives %" PRIu64
                              " (" BYTES_NOTE ")",
                              in->ev[root]->bytes, in->ev[i]->rbytes);
        return 0;
    case RT_COLL_REDUCE:
    case RT_COLL_ALLREDUCE:
    case RT_COLL_SCAN:
    case RT_COLL_EXSCAN:
        return all_equal(in, 0, "reduces");
    case RT_COLL_GATHER:
        if ((rc = all_equal(in, 0, "sends")) != 0)
            return rc;
        return root_total(in, root, 1, 0, "receives");
    case RT_COLL_SCATTER:
        if ((rc = all_equal(in, 1, "receives")) != 0)
            return rc;
        return root_total(in, root, 0, 0, "sends");
    case RT_COLL_GATHERV:
        return root_total(in, root, 1, 1, "receives");
    case RT_COLL_SCATTERV:
        return root_total(in, root, 0, 1, "sends");
    case RT_COLL_ALLGATHER:
    case RT_COLL_ALLTOALL:
    case RT_COLL_REDUCE_SCATTER_BLOCK:
    case RT_COLL_ALLGATHERV:
    case RT_COLL_ALLTOALLV:
    case RT_COLL_ALLTOALLW:
    case RT_COLL_REDUCE_SCATTER:
        break;
    default:
        return 0;
    }
    for (uint32_t i = 0; i < in->p; i++) {
        sb += in->ev[i]->bytes;
        sr += in->ev[i]->rbytes;
    }
    rc = 0;
    if (op == RT_COLL_ALLGATHER || op == RT_COLL_ALLTOALL || op == RT_COLL_REDUCE_SCATTER_BLOCK) {
        if ((rc = all_equal(in, 0, "sends")) == 0)
            rc = all_equal(in, 1, "receives");
    } else if (op == RT_COLL_ALLGATHERV)
        rc = all_equal(in, 1, "receives");
    else if (op == RT_COLL_REDUCE_SCATTER)
        rc = all_equal(in, 0, "reduces");
    if (rc)
        return rc;
    /* what all receive must be what all send; allgather(v) hands each block to every member,
     * reduce_scatter(_block) hands each member its block of the whole every member reduces */
    rt_u128 want = op == RT_COLL_ALLGATHER || op == RT_COLL_ALLGATHERV ? sb * in->p
                   : op == RT_COLL_REDUCE_SCATTER_BLOCK || op == RT_COLL_REDUCE_SCATTER
                       ? (rt_u128)in->ev[0]->bytes
                       : sb;
    if (want == sr)
        return 0;
    return report(in, 0, in->p > 1 ? 1 : 0,
                  "the members receive %s bytes in all, where what they send makes %s (" BYTES_NOTE
                  ")",
                  rt_u128_str(sr, b, sizeof b), rt_u128_str(want, a, sizeof a));
}

static int pairs_report(void *ctx, uint32_t a, uint32_t b, const char *text)
{
    return report(ctx, a, b, "%s", text);
}

/* The totals by the rules above, then, where the trace has them, the blocks pair by pair. */
static int amounts(inst *in, unsigned op, uint32_t root)
{
    int rc = totals(in, op, root);
    if (rc || !in->pairs || !rt_coll_count_sides(op))
        return rc;
    chk_pairs pp = {in->cs, in->cd, in->ev, in->p, pairs_report, in};
    return chk_pairs_compare(&pp, op, root);
}

static int rooted(unsigned op)
{
    return op == RT_COLL_BCAST || op == RT_COLL_REDUCE || op == RT_COLL_GATHER ||
           op == RT_COLL_GATHERV || op == RT_COLL_SCATTER || op == RT_COLL_SCATTERV;
}

/* One instance whose members all made the call: 1 when it is a finding (the communicator's
 * later calls are then not compared: one finding per communicator), else 0 or a negative
 * code. */
static int compare_instance(inst *in)
{
    unsigned op = in->ev[0]->op;
    for (uint32_t i = 1; i < in->p; i++)
        if (in->ev[i]->op != op) {
            return report(in, 0, i,
                          "%s on one rank but %s on another (MPI requires the same "
                          "collectives in the same order on every member)",
                          rt_event_op_name(RT_EV_COLL_END, op),
                          rt_event_op_name(RT_EV_COLL_END, in->ev[i]->op));
        }
    if ((in->cd->flags & RT_COMM_IS_INTER) || rt_coll_is_neighbor(op))
        return 0;
    if (rooted(op)) {
        int32_t root = in->ev[0]->peer;
        for (uint32_t i = 1; i < in->p; i++)
            if (in->ev[i]->peer != root)
                return report(in, 0, i,
                              "the members name different roots (%" PRId32 " and %" PRId32 ")",
                              root, in->ev[i]->peer);
        if (root < 0 || (uint32_t)root >= in->p)
            return 0;
        return amounts(in, op, (uint32_t)root);
    }
    return amounts(in, op, 0);
}

/* Member m of the communicator did not make call k, which member a made: a finding when m
 * reached MPI_Finalize with nothing left unknown (a run that ended early is not a mismatch). */
static int missing(inst *in, const chk_rank *ranks, const by_comm *b, uint32_t a, uint32_t m)
{
    uint32_t rm = in->cd->members[m];
    if (!ranks[rm].finalized || ranks[rm].ended_pending || b[rm].lost)
        return 0;
    chk_text rk = {.len = 0}, where = {.len = 0}, calls = {.len = 0}, why = {.len = 0};
    chk_add(&rk, "%" PRIu32, rm);
    chk_add_comm(&where, in->cd->id);
    chk_add_call(&calls, in->ev[a]);
    chk_add(&why,
            "call %" PRIu32 " on this communicator: rank %" PRIu32 " made it, rank %" PRIu32
            " reached MPI_Finalize without making it",
            in->k + 1, in->cd->members[a], rm);
    int rc = chk_find(in->c, RT_CHK_COLLECTIVE, rk.s, where.s, calls.s, why.s);
    return rc ? rc : 1;
}

/* Every instance of one communicator, until the members' calls part ways. */
static int compare_comm(chk *c, const chk_rank *ranks, const chk_colls *cs, const by_comm *b,
                        const rt_comm_def *cd, int pairs, const rt_event **ev, uint32_t *first,
                        uint32_t *n)
{
    uint32_t p = cd->size + cd->remote_size, most = 0;
    for (uint32_t m = 0; m < p; m++) {
        uint32_t r = cd->members[m];
        n[m] = range_of(cs, &b[r], r, cd->id, &first[m]);
        most = n[m] > most ? n[m] : most;
    }
    inst in = {.c = c, .cd = cd, .ev = ev, .p = p, .cs = cs, .pairs = pairs};
    for (in.k = 0; in.k < most; in.k++) {
        uint32_t have = 0, any = 0;
        for (uint32_t m = 0; m < p; m++) {
            uint32_t r = cd->members[m];
            ev[m] = in.k < n[m] ? &cs->calls[r][b[r].idx[first[m] + in.k]].ev : NULL;
            if (ev[m]) {
                have++;
                any = m;
            }
        }
        if (have < p) { /* the calls stop somewhere: one finding at most, then stop */
            for (uint32_t m = 0; m < p; m++)
                if (!ev[m]) {
                    int rc = missing(&in, ranks, b, any, m);
                    if (rc)
                        return rc < 0 ? rc : 0;
                }
            return 0;
        }
        int rc = compare_instance(&in);
        if (rc)
            return rc < 0 ? rc : 0;
    }
    return 0;
}

int chk_colls_compare(chk *c, const rt_defs *defs, const chk_rank *ranks, const chk_colls *cs)
{
    by_comm *b = calloc(cs->nranks ? cs->nranks : 1, sizeof *b);
    uint32_t most = 0;
    for (uint32_t i = 0; i < defs->ncomms; i++) {
        uint32_t p = defs->comms[i].size + defs->comms[i].remote_size;
        most = p > most ? p : most;
    }
    const rt_event **ev = malloc((most ? most : 1) * sizeof *ev);
    uint32_t *first = malloc((most ? most : 1) * sizeof *first),
             *n = malloc((most ? most : 1) * sizeof *n);
    int rc = !b || !ev || !first || !n ? -RT_E_NOMEM : 0;
    for (uint32_t r = 0; r < cs->nranks && !rc; r++)
        rc = index_rank(cs, r, &b[r]);
    for (uint32_t i = 0; i < defs->ncomms && !rc; i++) {
        const rt_comm_def *cd = &defs->comms[i];
        if (!(cd->flags & RT_COMM_IS_SELF) && cd->size + cd->remote_size > 1)
            rc = compare_comm(c, ranks, cs, b, cd, (defs->flags & RT_DEFS_COLL_PEERS) != 0, ev,
                              first, n);
    }
    for (uint32_t r = 0; b && r < cs->nranks; r++)
        free(b[r].idx);
    free(b);
    free(ev);
    free(first);
    free(n);
    return rc;
}
