/*
 * Collectives on real MPI: each recorded call is issued again with the recorded sizes
 * (docs/tracer.md, "Collectives", says what bytes and rbytes mean per op). A blocking call
 * whose algorithm was chosen runs MPICH's algorithm of that name when MPICH has one (forced
 * through its control variables, mpi_cvar.c; Open MPI's: mpi_ompi.c), else retrace's own
 * point-to-point schedule of it (rt_coll) over a private duplicate of the communicator,
 * round by round as the simulator runs it. Nonblocking collectives always keep MPICH's own
 * selection: MPICH's nonblocking algorithms are other ones, under other variables.
 *
 * Reductions sum elements of the largest of 8, 4, 2 or 1 bytes that divides every count
 * (the simulator's and MPICH's selection rule for element counts, rt_coll.h); v-collectives
 * take every member's counts from the prepass (mpi_load.c). Per-pair sizes of alltoallv and
 * alltoallw are not in the trace: each rank's total is cut as rt_coll cuts it (piece
 * (dst - src) mod p), so every pair agrees.
 *
 * A call is left out (counted in r->colls.skipped, with a note) only for what every member
 * knows alike: an inter-communicator, a neighbourhood collective without neighbour lists, a
 * v-collective a member's record of which is missing. Anything else that goes wrong (no
 * memory for the buffers, counts past MPI's int, a failed MPI call) is an error of the
 * process it happens on.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "rt__mpirun.h"

static MPI_Datatype elem_type(uint64_t e)
{
    return e == 16  ? MPI_C_DOUBLE_COMPLEX
           : e == 8 ? MPI_DOUBLE
           : e == 4 ? MPI_FLOAT
           : e == 2 ? MPI_SHORT
                    : MPI_SIGNED_CHAR;
}

/* The element size a reduction of n bytes runs with: the recorded one (known, from
 * rt_coll_event_esize; the same on every member, as MPI wants the same datatype there) when
 * elem_type has a summable type of that size and it divides n, else rt_coll_elem_size's
 * guess (traces without sizes; derived types). */
static uint64_t reduce_esize(uint64_t known, uint64_t n)
{
    int typed = known == 1 || known == 2 || known == 4 || known == 8 || known == 16;
    return typed && n % known == 0 ? known : rt_coll_elem_size(n);
}

/* Both scratch buffers at least need bytes. 0, or -RT_E_NOMEM (the buffers are as before,
 * if one of them larger: the contents do not matter). */
static int ensure_buf(mr_run *r, uint64_t need, rt_err *err)
{
    if (need <= r->buf_bytes)
        return 0;
    char *s = realloc(r->sbuf, need), *q = s ? realloc(r->rbuf, need) : NULL;
    if (s)
        r->sbuf = s;
    if (!q)
        return rt_err_set(err, RT_E_NOMEM, "out of memory for two buffers of %llu bytes",
                          (unsigned long long)need);
    r->rbuf = q;
    memset(r->sbuf + r->buf_bytes, 0, need - r->buf_bytes);
    memset(r->rbuf + r->buf_bytes, 0, need - r->buf_bytes);
    r->buf_bytes = need;
    return 0;
}

/* A count or displacement for MPI's int: 0, or -RT_E_RANGE ("OP: WHAT N: more than ..."). */
static int int_count(uint64_t n, const rt_event *ev, const char *what, rt_err *err)
{
    if (n <= INT_MAX)
        return 0;
    return rt_err_set(err, RT_E_RANGE, "%s: %s %llu: more than MPI's int counts hold (%d)",
                      rt_event_op_name(RT_EV_COLL_END, ev->op), what, (unsigned long long)n,
                      INT_MAX);
}

/* Piece i of n bytes cut into k pieces (rt_coll.h). */
static uint64_t piece(uint64_t n, uint64_t k, uint64_t i)
{
    return n / k + (i < n % k);
}

/* ---- retrace's own schedules over MPI -------------------------------------------------- */

typedef struct steps {
    rt_coll_step *s;
    size_t n, cap;
    rt_err *err;
} steps;

static int collect(void *ctx, const rt_coll_step *st)
{
    steps *v = ctx;
    if (RT_VEC_RESERVE(v->s, v->cap, (uint64_t)v->n + 1, 64) < 0)
        return rt_err_set(v->err, RT_E_NOMEM, "out of memory for a schedule of %zu steps",
                          v->n + 1);
    v->s[v->n++] = *st;
    return 0;
}

/* The schedule of the call (alg) into v: 0, or a negative code with err set. */
static int schedule(unsigned alg, const rt_coll_call *call, steps *v, rt_err *err)
{
    *v = (steps){.err = err};
    int rc = rt_coll_schedule(alg, call, collect, v, NULL, err);
    if (rc < 0) {
        free(v->s);
        v->s = NULL;
    }
    return rc;
}

static int run_schedule(mr_run *r, int ci, const rt_event *ev, int p, int me, rt_err *err)
{
    const rt_comm_def *c = &r->m->defs.comms[ci];
    uint32_t *node = NULL, *module = NULL;
    if (r->cfg->node && r->cfg->module) {
        node = malloc((size_t)p * sizeof *node);
        module = malloc((size_t)p * sizeof *module);
        if (!node || !module) {
            free(node);
            free(module);
            return rt_err_set(err, RT_E_NOMEM, "out of memory for the placement of %d ranks", p);
        }
        for (int i = 0; i < p; i++) {
            node[i] = r->cfg->node[c->members[i]];
            module[i] = r->cfg->module[c->members[i]];
        }
    }
    rt_coll_call call = {.op = ev->op,
                         .size = (uint32_t)p,
                         .me = (uint32_t)me,
                         .root = ev->peer,
                         .bytes = ev->bytes,
                         .rbytes = ev->rbytes,
                         .node = node,
                         .module = module,
                         .esize = rt_coll_event_esize(ev->esize, ev->resize)};
    steps v;
    int rc = schedule(r->cfg->alg[ev->op], &call, &v, err);
    free(node);
    free(module);
    if (rc < 0)
        return rc;
    uint64_t most = 0;
    for (size_t i = 0; i < v.n; i++)
        if (v.s[i].bytes > most)
            most = v.s[i].bytes;
    MPI_Request *rq = malloc((v.n ? v.n : 1) * sizeof *rq);
    if (!rq)
        rc = rt_err_set(err, RT_E_NOMEM, "out of memory for %zu requests", v.n);
    if (rc == 0)
        rc = int_count(most, ev, "a message of its schedule has", err);
    if (rc == 0)
        rc = ensure_buf(r, most, err);
    MPI_Comm comm = r->sched[ci];
    for (size_t i = 0; i < v.n && rc == 0;) {
        size_t j = i, nq = 0;
        for (; j < v.n && v.s[j].round == v.s[i].round && rc == 0; j++) {
            const rt_coll_step *st = &v.s[j];
            if (st->kind == RT_STEP_SEND)
                rc = mr_mpi(
                    MPI_Isend(r->sbuf, (int)st->bytes, MPI_BYTE, st->peer, 0, comm, &rq[nq++]),
                    "MPI_Isend", err);
            else if (st->kind == RT_STEP_RECV)
                rc = mr_mpi(
                    MPI_Irecv(r->rbuf, (int)st->bytes, MPI_BYTE, st->peer, 0, comm, &rq[nq++]),
                    "MPI_Irecv", err);
        }
        if (rc == 0)
            rc = mr_mpi(MPI_Waitall((int)nq, rq, MPI_STATUSES_IGNORE), "MPI_Waitall", err);
        for (size_t k = i; k < j && rc == 0; k++)
            if (v.s[k].kind == RT_STEP_REDUCE) {
                uint64_t e = reduce_esize(call.esize, v.s[k].bytes);
                rc = mr_mpi(MPI_Reduce_local(r->rbuf, r->sbuf, (int)(v.s[k].bytes / e),
                                             elem_type(e), MPI_SUM),
                            "MPI_Reduce_local", err);
            }
        i = j;
    }
    free(rq);
    free(v.s);
    return rc;
}

/* ---- v-collectives: every member's counts ------------------------------------------------ */

/* Every member's record of the call, in member order; NULL when the prepass does not have
 * them all (the same on every member: the call is left out). */
static const mr_vpart *vparts_of(mr_run *r, const rt_event *ev, int p)
{
    uint32_t n;
    const mr_vpart *v = mr_vparts_find(r->m, ev->comm, (uint32_t)ev->tag, &n);
    if (!v || n != (uint32_t)p)
        return NULL;
    for (int i = 0; i < p; i++)
        if (v[i].pos != (uint32_t)i)
            return NULL;
    return v;
}

/* counts[i] = bytes (which = 0) or rbytes (which = 1) of member i, divided by e; displs the
 * prefix sums; *total the bytes of them all. 0, or -RT_E_RANGE when they pass MPI's int. */
static int member_counts(mr_run *r, const rt_event *ev, const mr_vpart *v, int p, int which,
                         uint64_t e, uint64_t *total, rt_err *err)
{
    uint64_t sum = 0; /* each below 2^31 (the prepass), at most 2^24 of them */
    for (int i = 0; i < p; i++) {
        uint64_t b = (which ? v[i].rbytes : v[i].bytes) / e;
        r->counts[i] = b <= INT_MAX ? (int)b : 0;
        r->displs[i] = sum <= INT_MAX ? (int)sum : 0;
        sum += b;
    }
    *total = sum * e;
    return int_count(sum, ev, "the members' counts add up to", err);
}

/* alltoallv, alltoallw: what this rank sends to and receives from each member. 0, or
 * -RT_E_RANGE when the totals pass MPI's int. */
static int pair_counts(mr_run *r, const rt_event *ev, const mr_vpart *v, int p, int me,
                       uint64_t *stot, uint64_t *rtot, rt_err *err)
{
    uint64_t s = 0, q = 0;
    for (int j = 0; j < p; j++) {
        uint64_t out = piece(v[me].bytes, (uint64_t)p, (uint64_t)((j - me + p) % p));
        uint64_t in = piece(v[j].bytes, (uint64_t)p, (uint64_t)((me - j + p) % p));
        r->counts[j] = out <= INT_MAX ? (int)out : 0;
        r->displs[j] = s <= INT_MAX ? (int)s : 0;
        r->rcounts[j] = in <= INT_MAX ? (int)in : 0;
        r->rdispls[j] = q <= INT_MAX ? (int)q : 0;
        s += out;
        q += in;
    }
    *stot = s;
    *rtot = q;
    return int_count(s > q ? s : q, ev, "this rank's counts add up to", err);
}

/* alltoallv, alltoallw in a trace that records per-peer counts (RT_DEFS_COLL_PEERS): this
 * rank's own, from the COLL_PEER rows after the call (after its completion for a nonblocking
 * one: mr_events.rows), or its totals in equal blocks when it has none. MPI made the counts of
 * each pair agree when they were recorded, so the members agree now. */
/* The COLL_PEER rows of this rank's collective ev (its own events): their number, the first
 * in *rows. */
static uint64_t own_rows(const mr_run *r, const rt_event *ev, const rt_event **rows)
{
    const mr_events *e = &r->m->own;
    uint64_t first = e->n, n = 0;
    if (ev >= e->ev && ev < e->ev + e->n) {
        uint64_t at = (uint64_t)(ev - e->ev);
        const uint64_t *v = ev->kind == RT_EV_NBC_REQUEST ? rt_hmap_get(&e->rows, 0, at) : NULL;
        first = ev->kind == RT_EV_NBC_REQUEST ? (v ? *v : e->n) : at + 1;
    }
    while (first + n < e->n && e->ev[first + n].kind == RT_EV_COLL_PEER)
        n++;
    *rows = n ? &e->ev[first] : NULL;
    return n;
}

static int own_pair_counts(mr_run *r, const rt_event *ev, int p, uint64_t *stot, uint64_t *rtot,
                           rt_err *err)
{
    const rt_event *rows;
    uint64_t nrows = own_rows(r, ev, &rows);
    for (int j = 0; j < p; j++)
        r->counts[j] = r->rcounts[j] = 0;
    for (uint64_t i = 0; i < nrows; i++) {
        const rt_event *row = &rows[i];
        if (row->peer >= 0 && row->peer < p) { /* the reader checked the block */
            r->counts[row->peer] = row->bytes <= INT_MAX ? (int)row->bytes : 0;
            r->rcounts[row->peer] = row->rbytes <= INT_MAX ? (int)row->rbytes : 0;
        }
    }
    uint64_t s = 0, q = 0;
    for (int j = 0; j < p; j++) {
        if (!nrows) { /* equal blocks */
            r->counts[j] = ev->bytes / (uint64_t)p <= INT_MAX ? (int)(ev->bytes / (uint64_t)p) : 0;
            r->rcounts[j] =
                ev->rbytes / (uint64_t)p <= INT_MAX ? (int)(ev->rbytes / (uint64_t)p) : 0;
        }
        r->displs[j] = s <= INT_MAX ? (int)s : 0;
        r->rdispls[j] = q <= INT_MAX ? (int)q : 0;
        s += (uint64_t)r->counts[j];
        q += (uint64_t)r->rcounts[j];
    }
    *stot = s;
    *rtot = q;
    return int_count(s > q ? s : q, ev, "this rank's counts add up to", err);
}

/* ---- neighbourhood collectives -------------------------------------------------------------- */

/* On the recorded neighbour graph (r->topo), each block as large as retrace's schedule of
 * the call makes it (rt_coll.h: the recorded totals over the degrees, MPI_PROC_NULL slots
 * counted; v and w forms cut evenly), so that senders and receivers agree. *skip: the trace
 * has no neighbour lists for the communicator (the same on every member). */
static int neighbor(mr_run *r, int ci, const rt_event *ev, MPI_Request *req, int *skip, rt_err *err)
{
    const rt_comm_def *c = &r->m->defs.comms[ci];
    MPI_Comm comm = r->topo[ci];
    int me;
    MPI_Comm_rank(r->comms[ci], &me);
    rt_coll_call call = {.op = ev->op,
                         .size = c->size,
                         .me = (uint32_t)me,
                         .root = RT_PEER_NONE,
                         .bytes = ev->bytes,
                         .rbytes = ev->rbytes,
                         .nbrs = rt_defs_nbrs(&r->m->defs, c->id, r->me),
                         .esize = rt_coll_event_esize(ev->esize, ev->resize)};
    if (comm == MPI_COMM_NULL || !call.nbrs) {
        *skip = 1;
        return 0;
    }
    /* the per-peer counts by neighbour slot, where the trace records them (rt_coll_call) */
    const rt_event *rows;
    uint64_t nrows = r->m->defs.flags & RT_DEFS_COLL_PEERS ? own_rows(r, ev, &rows) : 0;
    uint32_t nb = call.nbrs->nin > call.nbrs->nout ? call.nbrs->nin : call.nbrs->nout;
    uint64_t *blk = nrows ? calloc(2 * (size_t)nb + 1, sizeof *blk) : NULL;
    if (nrows && !blk)
        return rt_err_set(err, RT_E_NOMEM, "out of memory for the counts of %u neighbours",
                          (unsigned)nb);
    for (uint64_t i = 0; i < nrows; i++)
        if (rows[i].peer >= 0 && (uint32_t)rows[i].peer < nb) { /* the reader checked it */
            blk[rows[i].peer] = rows[i].bytes;
            blk[nb + (uint32_t)rows[i].peer] = rows[i].rbytes;
        }
    unsigned sides = rt_coll_count_sides(ev->op);
    call.sblk = blk && (sides & RT_SIDE_SEND) ? blk : NULL;
    call.rblk = blk && (sides & RT_SIDE_RECV) ? blk + nb : NULL;
    call.equal_blocks = !nrows && (r->m->defs.flags & RT_DEFS_COLL_PEERS);
    steps v;
    int rc = schedule(RT_ALG_MPICH, &call, &v, err);
    free(blk);
    if (rc < 0)
        return rc;
    size_t ns = 0, nr = 0;
    for (size_t i = 0; i < v.n; i++)
        ns += v.s[i].kind == RT_STEP_SEND, nr += v.s[i].kind == RT_STEP_RECV;
    int *sc = malloc((2 * (ns + nr) + 1) * sizeof *sc), *sd = sc + ns, *rc_ = sd + ns,
        *rd = rc_ + nr;
    uint64_t stot = 0, rtot = 0;
    if (!sc)
        rc = rt_err_set(err, RT_E_NOMEM, "out of memory for the counts of %zu neighbours", ns + nr);
    for (size_t i = 0, a = 0, b = 0; i < v.n && rc == 0; i++)
        if (v.s[i].kind == RT_STEP_SEND) {
            sc[a] = (int)v.s[i].bytes, sd[a++] = (int)stot;
            stot += v.s[i].bytes;
            rc = int_count(stot, ev, "this rank's counts add up to", err);
        } else if (v.s[i].kind == RT_STEP_RECV) {
            rc_[b] = (int)v.s[i].bytes, rd[b++] = (int)rtot;
            rtot += v.s[i].bytes;
            rc = int_count(rtot, ev, "this rank's counts add up to", err);
        }
    if (rc == 0)
        rc = ensure_buf(r, stot > rtot ? stot : rtot, err);
    if (rc == 0 && req)
        rc = mr_mpi(MPI_Ineighbor_alltoallv(r->sbuf, sc, sd, MPI_BYTE, r->rbuf, rc_, rd, MPI_BYTE,
                                            comm, req),
                    "MPI_Ineighbor_alltoallv", err);
    else if (rc == 0)
        rc = mr_mpi(
            MPI_Neighbor_alltoallv(r->sbuf, sc, sd, MPI_BYTE, r->rbuf, rc_, rd, MPI_BYTE, comm),
            "MPI_Neighbor_alltoallv", err);
    free(sc);
    free(v.s);
    return rc;
}

/* ---- one collective --------------------------------------------------------------------- */

/* The blocking call MPI_Name, or its nonblocking form MPI_Iname when there is a request. */
#define ISSUE(Name, name, blocking, nonblocking) \
    (req ? mr_mpi((nonblocking), "MPI_I" name, err) : mr_mpi((blocking), "MPI_" Name, err))

/* A v-collective (mr_is_vcoll), with every member's counts v from the prepass. */
static int issue_v(mr_run *r, const rt_event *ev, const mr_vpart *v, MPI_Comm comm, int p, int me,
                   MPI_Request *req, rt_err *err)
{
    int root = ev->peer >= 0 ? ev->peer : 0;
    uint64_t b = ev->bytes, rb = ev->rbytes, e, tot, rtot;
    int rc;
    switch (ev->op) {
    case RT_COLL_GATHERV:
        if ((rc = member_counts(r, ev, v, p, 0, 1, &tot, err)) < 0 ||
            (rc = ensure_buf(r, tot, err)) < 0)
            return rc;
        return ISSUE("Gatherv", "gatherv",
                     MPI_Gatherv(r->sbuf, (int)b, MPI_BYTE, r->rbuf, r->counts, r->displs, MPI_BYTE,
                                 root, comm),
                     MPI_Igatherv(r->sbuf, (int)b, MPI_BYTE, r->rbuf, r->counts, r->displs,
                                  MPI_BYTE, root, comm, req));
    case RT_COLL_SCATTERV:
        if ((rc = member_counts(r, ev, v, p, 1, 1, &tot, err)) < 0 ||
            (rc = ensure_buf(r, tot, err)) < 0)
            return rc;
        return ISSUE("Scatterv", "scatterv",
                     MPI_Scatterv(r->sbuf, r->counts, r->displs, MPI_BYTE, r->rbuf, (int)rb,
                                  MPI_BYTE, root, comm),
                     MPI_Iscatterv(r->sbuf, r->counts, r->displs, MPI_BYTE, r->rbuf, (int)rb,
                                   MPI_BYTE, root, comm, req));
    case RT_COLL_ALLGATHERV:
        if ((rc = member_counts(r, ev, v, p, 0, 1, &tot, err)) < 0 ||
            (rc = ensure_buf(r, tot, err)) < 0)
            return rc;
        return ISSUE("Allgatherv", "allgatherv",
                     MPI_Allgatherv(r->sbuf, (int)b, MPI_BYTE, r->rbuf, r->counts, r->displs,
                                    MPI_BYTE, comm),
                     MPI_Iallgatherv(r->sbuf, (int)b, MPI_BYTE, r->rbuf, r->counts, r->displs,
                                     MPI_BYTE, comm, req));
    case RT_COLL_ALLTOALLV:
    case RT_COLL_ALLTOALLW:
        rc = r->m->defs.flags & RT_DEFS_COLL_PEERS ? own_pair_counts(r, ev, p, &tot, &rtot, err)
                                                   : pair_counts(r, ev, v, p, me, &tot, &rtot, err);
        if (rc < 0 || (rc = ensure_buf(r, tot > rtot ? tot : rtot, err)) < 0)
            return rc;
        return ISSUE("Alltoallv", "alltoallv",
                     MPI_Alltoallv(r->sbuf, r->counts, r->displs, MPI_BYTE, r->rbuf, r->rcounts,
                                   r->rdispls, MPI_BYTE, comm),
                     MPI_Ialltoallv(r->sbuf, r->counts, r->displs, MPI_BYTE, r->rbuf, r->rcounts,
                                    r->rdispls, MPI_BYTE, comm, req));
    default: /* RT_COLL_REDUCE_SCATTER */
        e = 8;
        for (int i = 0; i < p; i++)
            while (v[i].rbytes % e)
                e /= 2;
        if ((rc = member_counts(r, ev, v, p, 1, e, &tot, err)) < 0 ||
            (rc = ensure_buf(r, tot, err)) < 0)
            return rc;
        return ISSUE(
            "Reduce_scatter", "reduce_scatter",
            MPI_Reduce_scatter(r->sbuf, r->rbuf, r->counts, elem_type(e), MPI_SUM, comm),
            MPI_Ireduce_scatter(r->sbuf, r->rbuf, r->counts, elem_type(e), MPI_SUM, comm, req));
    }
}

/* A reduction with the same count on every member: allreduce, reduce, scan, exscan,
 * reduce_scatter_block. */
static int issue_reduction(mr_run *r, const rt_event *ev, MPI_Comm comm, MPI_Request *req,
                           rt_err *err)
{
    char *s = r->sbuf, *q = r->rbuf;
    int root = ev->peer >= 0 ? ev->peer : 0;
    uint64_t b = ev->bytes, rb = ev->rbytes;
    uint64_t known = rt_coll_event_esize(ev->esize, ev->resize), e = reduce_esize(known, b);
    switch (ev->op) {
    case RT_COLL_ALLREDUCE:
        return ISSUE("Allreduce", "allreduce",
                     MPI_Allreduce(s, q, (int)(b / e), elem_type(e), MPI_SUM, comm),
                     MPI_Iallreduce(s, q, (int)(b / e), elem_type(e), MPI_SUM, comm, req));
    case RT_COLL_REDUCE:
        return ISSUE("Reduce", "reduce",
                     MPI_Reduce(s, q, (int)(b / e), elem_type(e), MPI_SUM, root, comm),
                     MPI_Ireduce(s, q, (int)(b / e), elem_type(e), MPI_SUM, root, comm, req));
    case RT_COLL_SCAN:
        return ISSUE("Scan", "scan", MPI_Scan(s, q, (int)(b / e), elem_type(e), MPI_SUM, comm),
                     MPI_Iscan(s, q, (int)(b / e), elem_type(e), MPI_SUM, comm, req));
    case RT_COLL_EXSCAN:
        return ISSUE("Exscan", "exscan",
                     MPI_Exscan(s, q, (int)(b / e), elem_type(e), MPI_SUM, comm),
                     MPI_Iexscan(s, q, (int)(b / e), elem_type(e), MPI_SUM, comm, req));
    default: /* RT_COLL_REDUCE_SCATTER_BLOCK */
        e = reduce_esize(known, rb);
        return ISSUE(
            "Reduce_scatter_block", "reduce_scatter_block",
            MPI_Reduce_scatter_block(s, q, (int)(rb / e), elem_type(e), MPI_SUM, comm),
            MPI_Ireduce_scatter_block(s, q, (int)(rb / e), elem_type(e), MPI_SUM, comm, req));
    }
}

/* Issues the call with MPICH's selection (or the algorithm forced for it). *skip: the call is
 * left out, the same on every member. */
static int issue(mr_run *r, const rt_event *ev, MPI_Comm comm, int p, int me, MPI_Request *req,
                 int *skip, rt_err *err)
{
    char *s = r->sbuf, *q = r->rbuf;
    int root = ev->peer >= 0 ? ev->peer : 0;
    uint64_t b = ev->bytes, rb = ev->rbytes;
    if (mr_is_vcoll(ev->op)) {
        const mr_vpart *v = vparts_of(r, ev, p);
        if (!v) {
            *skip = 1;
            return 0;
        }
        return issue_v(r, ev, v, comm, p, me, req, err);
    }
    switch (ev->op) {
    case RT_COLL_ALLREDUCE:
    case RT_COLL_REDUCE:
    case RT_COLL_SCAN:
    case RT_COLL_EXSCAN:
    case RT_COLL_REDUCE_SCATTER_BLOCK:
        return issue_reduction(r, ev, comm, req, err);
    case RT_COLL_BARRIER:
        return ISSUE("Barrier", "barrier", MPI_Barrier(comm), MPI_Ibarrier(comm, req));
    case RT_COLL_BCAST: {
        int n = (int)(me == root ? b : rb);
        return ISSUE("Bcast", "bcast", MPI_Bcast(s, n, MPI_BYTE, root, comm),
                     MPI_Ibcast(s, n, MPI_BYTE, root, comm, req));
    }
    case RT_COLL_GATHER:
        return ISSUE("Gather", "gather",
                     MPI_Gather(s, (int)b, MPI_BYTE, q, (int)b, MPI_BYTE, root, comm),
                     MPI_Igather(s, (int)b, MPI_BYTE, q, (int)b, MPI_BYTE, root, comm, req));
    case RT_COLL_SCATTER:
        return ISSUE("Scatter", "scatter",
                     MPI_Scatter(s, (int)rb, MPI_BYTE, q, (int)rb, MPI_BYTE, root, comm),
                     MPI_Iscatter(s, (int)rb, MPI_BYTE, q, (int)rb, MPI_BYTE, root, comm, req));
    case RT_COLL_ALLGATHER:
        return ISSUE("Allgather", "allgather",
                     MPI_Allgather(s, (int)b, MPI_BYTE, q, (int)b, MPI_BYTE, comm),
                     MPI_Iallgather(s, (int)b, MPI_BYTE, q, (int)b, MPI_BYTE, comm, req));
    case RT_COLL_ALLTOALL: {
        int n = (int)(b / (uint64_t)p);
        return ISSUE("Alltoall", "alltoall", MPI_Alltoall(s, n, MPI_BYTE, q, n, MPI_BYTE, comm),
                     MPI_Ialltoall(s, n, MPI_BYTE, q, n, MPI_BYTE, comm, req));
    }
    default: /* handle creation and the like: the members synchronise */
        return ISSUE("Barrier", "barrier", MPI_Barrier(comm), MPI_Ibarrier(comm, req));
    }
}

int mr_coll(mr_run *r, const rt_event *ev, MPI_Request *req, rt_err *err)
{
    if (req)
        *req = MPI_REQUEST_NULL;
    int ci = mr_comm_index(r, ev->comm), skip = 0, rc;
    if (ci < 0 || r->comms[ci] == MPI_COMM_NULL)
        return rt_err_set(err, RT_E_INVAL,
                          "%s on communicator %u, which this process does not "
                          "replay",
                          rt_event_op_name(RT_EV_COLL_END, ev->op), (unsigned)ev->comm);
    const rt_comm_def *c = &r->m->defs.comms[ci];
    if (c->flags & RT_COMM_IS_INTER) {
        r->colls.skipped++;
        r->inter_skipped++;
        return 0;
    }
    if (rt_coll_is_neighbor(ev->op)) {
        if ((rc = neighbor(r, ci, ev, req, &skip, err)) < 0)
            return rc;
        if (skip) { /* no neighbour lists: the same on every member */
            r->colls.skipped++;
            r->neighbor_colls++;
            return 0;
        }
        r->colls.mpich++;
        r->colls.nonblocking += req != NULL;
        return 0;
    }
    MPI_Comm comm = r->comms[ci];
    int p, me;
    MPI_Comm_size(comm, &p);
    MPI_Comm_rank(comm, &me);
    if ((rc = ensure_buf(r, ev->bytes > ev->rbytes ? ev->bytes : ev->rbytes, err)) < 0)
        return rc;
    unsigned alg = r->cfg->alg[ev->op];
    if (req || alg == RT_ALG_MPICH || !rt_coll_alg_valid(ev->op, RT_ALG_MPICH)) {
        if ((rc = issue(r, ev, comm, p, me, req, &skip, err)) < 0)
            return rc;
        if (skip) { /* the prepass lacks a member's counts: the same on every member */
            r->colls.skipped++;
            return 0;
        }
        r->colls.mpich++;
        r->colls.nonblocking += req != NULL;
        return 0;
    }
    if (mr_cvars_forced(r->cvars, ev->op) &&
        !mr_cvars_applies(r->cvars, ev->op, p, ev->bytes,
                          rt_coll_event_esize(ev->esize, ev->resize))) {
        r->fallbacks++; /* Open MPI would run another algorithm: the same on every member */
    } else if (mr_cvars_forced(r->cvars, ev->op)) {
        rt_err refused;
        rc = issue(r, ev, comm, p, me, NULL, &skip, &refused);
        if (rc == 0 && skip) {
            r->colls.skipped++;
            return 0;
        }
        if (rc == 0) {
            r->colls.forced++;
            return 0;
        }
        if (rc != -RT_E_MPI) { /* not MPICH's refusal: memory, or counts past int */
            *err = refused;
            return rc;
        }
        /* MPICH refused the algorithm for this call (COLLECTIVE_FALLBACK=error): on every
         * member alike, as its checks depend only on what all members share */
        r->fallbacks++;
    }
    r->colls.schedule++;
    return run_schedule(r, ci, ev, p, me, err);
}
