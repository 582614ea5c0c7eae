/*
 * Collectives on real MPI: each recorded call is issued again with the recorded sizes
 * (docs/tracer.md, "Collectives", says what bytes and rbytes mean per op). A blocking call
 * whose algorithm was chosen runs MPICH's algorithm of that name when MPICH has one (forced
 * through its control variables, mpi_cvar.c), else retrace's own point-to-point schedule
 * of it (rt_coll) over a private duplicate of the communicator, round by round as the
 * simulator runs it. Nonblocking collectives always keep MPICH's own selection: MPICH's
 * nonblocking algorithms are other ones, under other variables.
 *
 * Reductions sum elements of the largest of 8, 4, 2 or 1 bytes that divides every count
 * (the simulator's and MPICH's selection rule for element counts, rt_coll.h); v-collectives
 * take every member's counts from the prepass (mpi_load.c). Per-pair sizes of alltoallv and
 * alltoallw are not in the trace: each rank's total is cut as rt_coll cuts it (piece
 * (dst - src) mod p), so every pair agrees.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "rt__mpirun.h"

static MPI_Datatype elem_type(uint64_t e)
{
    return e == 8 ? MPI_DOUBLE : e == 4 ? MPI_FLOAT : e == 2 ? MPI_SHORT : MPI_SIGNED_CHAR;
}

static int ensure_buf(mr_run *r, uint64_t need)
{
    if (need <= r->buf_bytes)
        return 0;
    char *s = realloc(r->sbuf, need), *q = s ? realloc(r->rbuf, need) : NULL;
    if (s)
        r->sbuf = s;
    if (!q)
        return -1;
    r->rbuf = q;
    memset(r->sbuf + r->buf_bytes, 0, need - r->buf_bytes);
    memset(r->rbuf + r->buf_bytes, 0, need - r->buf_bytes);
    r->buf_bytes = need;
    return 0;
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
} steps;

static int collect(void *ctx, const rt_coll_step *st)
{
    steps *v = ctx;
    if (RT_VEC_RESERVE(v->s, v->cap, (uint64_t)v->n + 1, 64) < 0)
        return -1;
    v->s[v->n++] = *st;
    return 0;
}

static int run_schedule(mr_run *r, int ci, const rt_event *ev, int p, int me)
{
    const rt_comm_def *c = &r->m->defs.comms[ci];
    uint32_t *node = NULL, *module = NULL;
    if (r->cfg->node && r->cfg->module) {
        node = malloc((size_t)p * sizeof *node);
        module = malloc((size_t)p * sizeof *module);
        if (!node || !module) {
            free(node);
            free(module);
            return MPI_ERR_NO_MEM;
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
                         .module = module};
    steps v = {0};
    rt_err err;
    int rc = rt_coll_schedule(r->cfg->alg[ev->op], &call, collect, &v, NULL, &err);
    free(node);
    free(module);
    if (rc != 0) {
        free(v.s);
        return MPI_ERR_OTHER;
    }
    uint64_t most = 0;
    for (size_t i = 0; i < v.n; i++)
        if (v.s[i].bytes > most)
            most = v.s[i].bytes;
    MPI_Request *rq = malloc((v.n ? v.n : 1) * sizeof *rq);
    if (!rq || most > INT_MAX || ensure_buf(r, most)) {
        free(rq);
        free(v.s);
        return MPI_ERR_NO_MEM;
    }
    MPI_Comm comm = r->sched[ci];
    rc = MPI_SUCCESS;
    for (size_t i = 0; i < v.n && rc == MPI_SUCCESS;) {
        size_t j = i, nq = 0;
        for (; j < v.n && v.s[j].round == v.s[i].round; j++) {
            const rt_coll_step *st = &v.s[j];
            if (st->kind == RT_STEP_SEND)
                rc = MPI_Isend(r->sbuf, (int)st->bytes, MPI_BYTE, st->peer, 0, comm, &rq[nq++]);
            else if (st->kind == RT_STEP_RECV)
                rc = MPI_Irecv(r->rbuf, (int)st->bytes, MPI_BYTE, st->peer, 0, comm, &rq[nq++]);
            if (rc != MPI_SUCCESS)
                break;
        }
        if (rc == MPI_SUCCESS)
            rc = MPI_Waitall((int)nq, rq, MPI_STATUSES_IGNORE);
        for (size_t k = i; k < j && rc == MPI_SUCCESS; k++)
            if (v.s[k].kind == RT_STEP_REDUCE) {
                uint64_t e = rt_coll_elem_size(v.s[k].bytes);
                rc = MPI_Reduce_local(r->rbuf, r->sbuf, (int)(v.s[k].bytes / e), elem_type(e),
                                      MPI_SUM);
            }
        i = j;
    }
    free(rq);
    free(v.s);
    return rc;
}

/* ---- v-collectives: every member's counts ------------------------------------------------ */

/* counts[i] = bytes (which = 0) or rbytes (which = 1) of member i, divided by e; displs the
 * prefix sums. -1 when the prepass does not know every member's part. */
static int member_counts(mr_run *r, const rt_event *ev, int p, int which, uint64_t e,
                         uint64_t *total)
{
    uint32_t n;
    const mr_vpart *v = mr_vparts_find(r->m, ev->comm, (uint32_t)ev->tag, &n);
    if (!v || n != (uint32_t)p)
        return -1;
    uint64_t sum = 0;
    for (int i = 0; i < p; i++) {
        uint64_t b = (which ? v[i].rbytes : v[i].bytes) / e;
        if (v[i].pos != (uint32_t)i || b > INT_MAX || sum > INT_MAX)
            return -1;
        r->counts[i] = (int)b;
        r->displs[i] = (int)sum;
        sum += b;
    }
    *total = sum * e;
    return sum > INT_MAX ? -1 : 0;
}

/* alltoallv, alltoallw: what this rank sends to and receives from each member. */
static int pair_counts(mr_run *r, const rt_event *ev, int p, int me, uint64_t *stot, uint64_t *rtot)
{
    uint32_t n;
    const mr_vpart *v = mr_vparts_find(r->m, ev->comm, (uint32_t)ev->tag, &n);
    if (!v || n != (uint32_t)p)
        return -1;
    uint64_t s = 0, q = 0;
    for (int j = 0; j < p; j++) {
        uint64_t out = piece(v[me].bytes, (uint64_t)p, (uint64_t)((j - me + p) % p));
        uint64_t in = piece(v[j].bytes, (uint64_t)p, (uint64_t)((me - j + p) % p));
        if (out > INT_MAX || in > INT_MAX || s > INT_MAX || q > INT_MAX)
            return -1;
        r->counts[j] = (int)out;
        r->displs[j] = (int)s;
        r->rcounts[j] = (int)in;
        r->rdispls[j] = (int)q;
        s += out;
        q += in;
    }
    *stot = s;
    *rtot = q;
    return s > INT_MAX || q > INT_MAX ? -1 : 0;
}

/* ---- neighbourhood collectives -------------------------------------------------------------- */

/* On the recorded neighbour graph (r->topo), each block as large as retrace's schedule of
 * the call makes it (rt_coll.h: the recorded totals over the degrees, MPI_PROC_NULL slots
 * counted; v and w forms cut evenly), so that senders and receivers agree. */
static int neighbor(mr_run *r, int ci, const rt_event *ev, MPI_Request *req)
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
                         .nbrs = rt_defs_nbrs(&r->m->defs, c->id, r->me)};
    if (comm == MPI_COMM_NULL || !call.nbrs)
        return -1;
    steps v = {0};
    rt_err err;
    if (rt_coll_schedule(RT_ALG_MPICH, &call, collect, &v, NULL, &err) != 0) {
        free(v.s);
        return -1;
    }
    size_t ns = 0, nr = 0;
    for (size_t i = 0; i < v.n; i++)
        ns += v.s[i].kind == RT_STEP_SEND, nr += v.s[i].kind == RT_STEP_RECV;
    int *sc = malloc((2 * (ns + nr) + 1) * sizeof *sc), *sd = sc + ns, *rc_ = sd + ns,
        *rd = rc_ + nr;
    uint64_t stot = 0, rtot = 0;
    int rc = MPI_ERR_NO_MEM;
    if (sc) {
        size_t a = 0, b = 0;
        for (size_t i = 0; i < v.n; i++)
            if (v.s[i].kind == RT_STEP_SEND) {
                sc[a] = (int)v.s[i].bytes, sd[a++] = (int)stot;
                stot += v.s[i].bytes;
            } else if (v.s[i].kind == RT_STEP_RECV) {
                rc_[b] = (int)v.s[i].bytes, rd[b++] = (int)rtot;
                rtot += v.s[i].bytes;
            }
        if (stot <= INT_MAX && rtot <= INT_MAX && ensure_buf(r, stot > rtot ? stot : rtot) == 0)
            rc = req ? MPI_Ineighbor_alltoallv(r->sbuf, sc, sd, MPI_BYTE, r->rbuf, rc_, rd,
                                               MPI_BYTE, comm, req)
                     : MPI_Neighbor_alltoallv(r->sbuf, sc, sd, MPI_BYTE, r->rbuf, rc_, rd, MPI_BYTE,
                                              comm);
    }
    free(sc);
    free(v.s);
    return rc;
}
/* ---- one collective --------------------------------------------------------------------- */

#define ISSUE(blocking, nonblocking) (req ? (nonblocking) : (blocking))

static int issue(mr_run *r, const rt_event *ev, MPI_Comm comm, int p, int me, MPI_Request *req)
{
    char *s = r->sbuf, *q = r->rbuf;
    int root = ev->peer >= 0 ? ev->peer : 0;
    uint64_t b = ev->bytes, rb = ev->rbytes, e, tot, rtot;
    switch (ev->op) {
    case RT_COLL_BARRIER:
        return ISSUE(MPI_Barrier(comm), MPI_Ibarrier(comm, req));
    case RT_COLL_BCAST: {
        int n = (int)(me == root ? b : rb);
        return ISSUE(MPI_Bcast(s, n, MPI_BYTE, root, comm),
                     MPI_Ibcast(s, n, MPI_BYTE, root, comm, req));
    }
    case RT_COLL_GATHER:
        return ISSUE(MPI_Gather(s, (int)b, MPI_BYTE, q, (int)b, MPI_BYTE, root, comm),
                     MPI_Igather(s, (int)b, MPI_BYTE, q, (int)b, MPI_BYTE, root, comm, req));
    case RT_COLL_SCATTER:
        return ISSUE(MPI_Scatter(s, (int)rb, MPI_BYTE, q, (int)rb, MPI_BYTE, root, comm),
                     MPI_Iscatter(s, (int)rb, MPI_BYTE, q, (int)rb, MPI_BYTE, root, comm, req));
    case RT_COLL_ALLGATHER:
        return ISSUE(MPI_Allgather(s, (int)b, MPI_BYTE, q, (int)b, MPI_BYTE, comm),
                     MPI_Iallgather(s, (int)b, MPI_BYTE, q, (int)b, MPI_BYTE, comm, req));
    case RT_COLL_ALLTOALL: {
        int n = (int)(b / (uint64_t)p);
        return ISSUE(MPI_Alltoall(s, n, MPI_BYTE, q, n, MPI_BYTE, comm),
                     MPI_Ialltoall(s, n, MPI_BYTE, q, n, MPI_BYTE, comm, req));
    }
    case RT_COLL_GATHERV:
        if (member_counts(r, ev, p, 0, 1, &tot) < 0 || ensure_buf(r, tot))
            return -1;
        return ISSUE(
            MPI_Gatherv(s, (int)b, MPI_BYTE, r->rbuf, r->counts, r->displs, MPI_BYTE, root, comm),
            MPI_Igatherv(s, (int)b, MPI_BYTE, r->rbuf, r->counts, r->displs, MPI_BYTE, root, comm,
                         req));
    case RT_COLL_SCATTERV:
        if (member_counts(r, ev, p, 1, 1, &tot) < 0 || ensure_buf(r, tot))
            return -1;
        return ISSUE(MPI_Scatterv(r->sbuf, r->counts, r->displs, MPI_BYTE, r->rbuf, (int)rb,
                                  MPI_BYTE, root, comm),
                     MPI_Iscatterv(r->sbuf, r->counts, r->displs, MPI_BYTE, r->rbuf, (int)rb,
                                   MPI_BYTE, root, comm, req));
    case RT_COLL_ALLGATHERV:
        if (member_counts(r, ev, p, 0, 1, &tot) < 0 || ensure_buf(r, tot))
            return -1;
        return ISSUE(MPI_Allgatherv(r->sbuf, (int)b, MPI_BYTE, r->rbuf, r->counts, r->displs,
                                    MPI_BYTE, comm),
                     MPI_Iallgatherv(r->sbuf, (int)b, MPI_BYTE, r->rbuf, r->counts, r->displs,
                                     MPI_BYTE, comm, req));
    case RT_COLL_ALLTOALLV:
    case RT_COLL_ALLTOALLW:
        if (pair_counts(r, ev, p, me, &tot, &rtot) < 0 || ensure_buf(r, tot > rtot ? tot : rtot))
            return -1;
        return ISSUE(MPI_Alltoallv(r->sbuf, r->counts, r->displs, MPI_BYTE, r->rbuf, r->rcounts,
                                   r->rdispls, MPI_BYTE, comm),
                     MPI_Ialltoallv(r->sbuf, r->counts, r->displs, MPI_BYTE, r->rbuf, r->rcounts,
                                    r->rdispls, MPI_BYTE, comm, req));
    case RT_COLL_ALLREDUCE:
        e = rt_coll_elem_size(b);
        return ISSUE(MPI_Allreduce(s, q, (int)(b / e), elem_type(e), MPI_SUM, comm),
                     MPI_Iallreduce(s, q, (int)(b / e), elem_type(e), MPI_SUM, comm, req));
    case RT_COLL_REDUCE:
        e = rt_coll_elem_size(b);
        return ISSUE(MPI_Reduce(s, q, (int)(b / e), elem_type(e), MPI_SUM, root, comm),
                     MPI_Ireduce(s, q, (int)(b / e), elem_type(e), MPI_SUM, root, comm, req));
    case RT_COLL_SCAN:
    case RT_COLL_EXSCAN:
        e = rt_coll_elem_size(b);
        if (ev->op == RT_COLL_SCAN)
            return ISSUE(MPI_Scan(s, q, (int)(b / e), elem_type(e), MPI_SUM, comm),
                         MPI_Iscan(s, q, (int)(b / e), elem_type(e), MPI_SUM, comm, req));
        return ISSUE(MPI_Exscan(s, q, (int)(b / e), elem_type(e), MPI_SUM, comm),
                     MPI_Iexscan(s, q, (int)(b / e), elem_type(e), MPI_SUM, comm, req));
    case RT_COLL_REDUCE_SCATTER_BLOCK:
        e = rt_coll_elem_size(rb);
        return ISSUE(
            MPI_Reduce_scatter_block(s, q, (int)(rb / e), elem_type(e), MPI_SUM, comm),
            MPI_Ireduce_scatter_block(s, q, (int)(rb / e), elem_type(e), MPI_SUM, comm, req));
    case RT_COLL_REDUCE_SCATTER: {
        uint32_t n;
        const mr_vpart *v = mr_vparts_find(r->m, ev->comm, (uint32_t)ev->tag, &n);
        e = 8;
        for (uint32_t i = 0; v && i < n; i++)
            while (v[i].rbytes % e)
                e /= 2;
        if (member_counts(r, ev, p, 1, e, &tot) < 0 || ensure_buf(r, tot))
            return -1;
        return ISSUE(
            MPI_Reduce_scatter(r->sbuf, r->rbuf, r->counts, elem_type(e), MPI_SUM, comm),
            MPI_Ireduce_scatter(r->sbuf, r->rbuf, r->counts, elem_type(e), MPI_SUM, comm, req));
    }
    default: /* handle creation and the like: the members synchronise */
        return ISSUE(MPI_Barrier(comm), MPI_Ibarrier(comm, req));
    }
}

int mr_coll(mr_run *r, const rt_event *ev, MPI_Request *req)
{
    if (req)
        *req = MPI_REQUEST_NULL;
    int ci = mr_comm_index(r, ev->comm);
    if (ci < 0 || r->comms[ci] == MPI_COMM_NULL)
        return MPI_ERR_COMM;
    const rt_comm_def *c = &r->m->defs.comms[ci];
    if (c->flags & RT_COMM_IS_INTER) {
        r->colls.skipped++;
        r->inter_skipped++;
        return MPI_SUCCESS;
    }
    if (rt_coll_is_neighbor(ev->op)) {
        int rc = neighbor(r, ci, ev, req);
        if (rc == -1) { /* no neighbour lists: the same on every member */
            r->colls.skipped++;
            r->neighbor_colls++;
            return MPI_SUCCESS;
        }
        r->colls.mpich++;
        r->colls.nonblocking += req != NULL;
        return rc;
    }
    MPI_Comm comm = r->comms[ci];
    int p, me;
    MPI_Comm_size(comm, &p);
    MPI_Comm_rank(comm, &me);
    if (ensure_buf(r, ev->bytes > ev->rbytes ? ev->bytes : ev->rbytes))
        return MPI_ERR_NO_MEM;
    unsigned alg = r->cfg->alg[ev->op];
    if (req || alg == RT_ALG_MPICH || !rt_coll_alg_valid(ev->op, RT_ALG_MPICH)) {
        int rc = issue(r, ev, comm, p, me, req);
        if (rc == -1) { /* the prepass lacks a member's counts: the same on every member */
            r->colls.skipped++;
            return MPI_SUCCESS;
        }
        r->colls.mpich++;
        r->colls.nonblocking += req != NULL;
        return rc;
    }
    if (mr_cvars_forced(r->cvars, ev->op)) {
        int rc = issue(r, ev, comm, p, me, NULL);
        if (rc == -1) {
            r->colls.skipped++;
            return MPI_SUCCESS;
        }
        if (rc == MPI_SUCCESS) {
            r->colls.forced++;
            return rc;
        }
        /* MPICH refused the algorithm for this call (COLLECTIVE_FALLBACK=error): on every
         * member alike, as its checks depend only on what all members share */
        r->fallbacks++;
    }
    r->colls.schedule++;
    return run_schedule(r, ci, ev, p, me);
}
