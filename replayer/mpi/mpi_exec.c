/*
 * rt_mpirun_run: one replay of the loaded trace on real MPI (see mpi_run.c for the rules
 * of the event loop), and the result gathered from all processes.
 */
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt__mpirun.h"

/* Spends s seconds of CPU time, as the recorded computation did. */
static void busy(double s)
{
    if (s <= 0)
        return;
    double end = MPI_Wtime() + s;
    while (MPI_Wtime() < end)
        ;
}

typedef struct pending {
    MPI_Request *q;
    size_t n, cap;
} pending;

static MPI_Request *pend_add(pending *p)
{
    if (RT_VEC_RESERVE(p->q, p->cap, (uint64_t)p->n + 1, 16) < 0)
        return NULL;
    p->q[p->n] = MPI_REQUEST_NULL;
    return &p->q[p->n++];
}

static MPI_Comm p2p_comm(mr_run *r, const rt_event *ev)
{
    int ci = mr_comm_index(r, ev->comm);
    return ci < 0 ? MPI_COMM_NULL : r->comms[ci];
}

/*
 * A partitioned message (RT_RECV_PARTITIONED) as partitioned communication, so that MPI pairs
 * it as it paired the recorded one, never with an ordinary message: a request of one partition
 * of all its bytes per activation, made when the activation starts (the ISEND, the
 * IRECV_REQUEST), started at once, the send's one partition made ready at once; the wait that
 * completes it frees it (replay). The k-th activation of a pair of ranks, communicator and tag
 * inits the k-th request on each side, which MPI matches in that order. The prepass refuses
 * them under an MPI without partitioned communication (Open MPI 4.1: mpi_load.c).
 */
static int part(mr_run *r, const rt_event *ev, MPI_Comm comm, MPI_Request *q, rt_err *err)
{
#if MPI_VERSION >= 4
    MPI_Count n = (MPI_Count)ev->bytes;
    int rc;
    if (ev->kind == RT_EV_ISEND) {
        r->messages++;
        r->bytes += ev->bytes;
        rc = mr_mpi(
            MPI_Psend_init(r->sbuf, 1, n, MPI_BYTE, ev->peer, ev->tag, comm, MPI_INFO_NULL, q),
            "MPI_Psend_init", err);
    } else {
        rc = mr_mpi(
            MPI_Precv_init(r->rbuf, 1, n, MPI_BYTE, ev->peer, ev->tag, comm, MPI_INFO_NULL, q),
            "MPI_Precv_init", err);
    }
    if (rc == 0)
        rc = mr_mpi(MPI_Start(q), "MPI_Start", err);
    if (rc == 0 && ev->kind == RT_EV_ISEND)
        rc = mr_mpi(MPI_Pready(0, *q), "MPI_Pready", err);
    return rc;
#else /* the prepass refuses these (mpi_load.c) */
    (void)r;
    (void)comm;
    (void)q;
    return rt_err_set(err, RT_E_INVAL, "rank %u: a partitioned message, and this MPI has none",
                      (unsigned)ev->rank);
#endif
}

static int p2p(mr_run *r, const rt_event *ev, MPI_Request *q, rt_err *err)
{
    MPI_Comm comm = p2p_comm(r, ev);
    if (comm == MPI_COMM_NULL)
        return rt_err_set(err, RT_E_INVAL, "communicator %u is not replayed on this process",
                          (unsigned)ev->comm);
    if (ev->bytes > INT_MAX) /* the prepass refuses these */
        return rt_err_set(err, RT_E_RANGE, "%llu bytes: more than MPI's int counts hold (%d)",
                          (unsigned long long)ev->bytes, INT_MAX);
    if (ev->op & RT_RECV_PARTITIONED) /* an ISEND, or an IRECV_REQUEST with its IRECV's op */
        return part(r, ev, comm, q, err);
    if (ev->kind == RT_EV_SEND || ev->kind == RT_EV_ISEND) {
        r->messages++;
        r->bytes += ev->bytes;
        return mr_mpi(MPI_Isend(r->sbuf, (int)ev->bytes, MPI_BYTE, ev->peer, ev->tag, comm, q),
                      "MPI_Isend", err);
    }
    int src = ev->peer, tag = ev->tag, count = (int)ev->bytes;
    if (r->cfg->free_wildcards && ev->op) {
        if (ev->op & RT_RECV_ANY_SOURCE)
            src = MPI_ANY_SOURCE;
        if (ev->op & RT_RECV_ANY_TAG)
            tag = MPI_ANY_TAG;
        /* another message than the recorded one may match: room for the largest */
        count = r->buf_bytes > INT_MAX ? INT_MAX : (int)r->buf_bytes;
    }
    return mr_mpi(MPI_Irecv(r->rbuf, count, MPI_BYTE, src, tag, comm, q), "MPI_Irecv", err);
}

/* Issues one event of the open call; requests the call waits for go to p. 0, or a negative
 * code with err set. */
static int issue(mr_run *r, const rt_event *ev, pending *p, rt_err *err)
{
    MPI_Request *q;
    switch (ev->kind) {
    case RT_EV_SEND:
    case RT_EV_RECV:
        if (!(q = pend_add(p)))
            return rt_err_set(err, RT_E_NOMEM, "out of memory for the requests of a call");
        return p2p(r, ev, q, err);
    case RT_EV_ISEND:
    case RT_EV_IRECV_REQUEST:
        return p2p(r, ev, &r->reqs[ev->req], err);
    case RT_EV_ISEND_COMPLETE:
    case RT_EV_IRECV:
    case RT_EV_NBC_COMPLETE:
    case RT_EV_RMA_OP_COMPLETE:
        if (!(q = pend_add(p)))
            return rt_err_set(err, RT_E_NOMEM, "out of memory for the requests of a call");
        *q = r->reqs[ev->req];
        r->reqs[ev->req] = MPI_REQUEST_NULL; /* the slot may be posted again */
        return 0;
    case RT_EV_COLL_END:
        return mr_coll(r, ev, NULL, err);
    case RT_EV_NBC_REQUEST:
        return mr_coll(r, ev, &r->reqs[ev->req], err);
    case RT_EV_COLL_BEGIN:
    case RT_EV_RMA_COLL_BEGIN: /* the END event does the work */
        return 0;
    default: /* the other RMA kinds; REQUEST_CANCELLED and skipped events: nothing */
        return rt_event_is_rma(ev->kind) ? mr_rma(r, ev, err) : 0;
    }
}

typedef struct clocks {
    double start, end, mpi, compute;
} clocks;

/* The event loop. 0, or a negative code with err set; *at is the failing event's index. */
static int replay(mr_run *r, clocks *ck, uint64_t *at, rt_err *err)
{
    const mr_events *e = &r->m->own;
    pending p = {0};
    int in_call = 0, have_prev = 0, rc = 0;
    uint64_t prev = 0; /* when the previous call ended, in the trace (ns) */
    double entered = 0;
    ck->end = ck->start;
    for (uint64_t i = 0; i < e->n && rc == 0; i++) {
        const rt_event *ev = &e->ev[i];
        *at = i;
        int open = ev->kind == RT_EV_ENTER || (!in_call && ev->kind != RT_EV_LEAVE);
        if (open) {
            if (have_prev && ev->time > prev) {
                double s = (double)(ev->time - prev) * 1e-9 * r->cfg->compute_scale;
                busy(s);
                ck->compute += s;
            }
            entered = MPI_Wtime();
            p.n = 0;
        }
        if (ev->kind != RT_EV_ENTER && ev->kind != RT_EV_LEAVE)
            rc = issue(r, ev, &p, err);
        if (ev->kind == RT_EV_ENTER) {
            in_call = 1;
            continue;
        }
        if (ev->kind == RT_EV_LEAVE || !in_call) {
            if (rc == 0 && p.n)
                rc = mr_mpi(MPI_Waitall((int)p.n, p.q, MPI_STATUSES_IGNORE), "MPI_Waitall", err);
            /* the persistent requests of partitioned messages (part) stay: done with them */
            for (size_t j = 0; rc == 0 && j < p.n; j++)
                if (p.q[j] != MPI_REQUEST_NULL)
                    rc = mr_mpi(MPI_Request_free(&p.q[j]), "MPI_Request_free", err);
            double now = MPI_Wtime();
            ck->mpi += now - entered;
            ck->end = now;
            prev = ev->time;
            have_prev = 1;
            in_call = 0;
        }
    }
    free(p.q);
    return rc;
}

/* ---- notes and result ---------------------------------------------------------------------- */

static void note(char **notes, const char *fmt, ...)
{
    char line[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    size_t old = *notes ? strlen(*notes) : 0, add = strlen(line);
    char *p = realloc(*notes, old + add + 2);
    if (!p)
        return;
    memcpy(p + old, line, add);
    p[old + add] = '\n';
    p[old + add + 1] = '\0';
    *notes = p;
}

enum {
    U_MSG,
    U_BYTES,
    U_RMA,
    U_MPICH,
    U_NONBLOCK,
    U_FORCED,
    U_SCHED,
    U_SKIP,
    U_REQS,
    U_NEIGH,
    U_INTER,
    U_FALLBACK,
    U_PENDING,
    U_COUNT
};

static int gather_result(mr_run *r, const clocks *ck, rt_mpirun_result *res, rt_err *err)
{
    rt_mpirun *m = r->m;
    uint64_t u[U_COUNT] = {[U_MSG] = r->messages,
                           [U_BYTES] = r->bytes,
                           [U_RMA] = r->rma_ops,
                           [U_MPICH] = r->colls.mpich,
                           [U_NONBLOCK] = r->colls.nonblocking,
                           [U_FORCED] = r->colls.forced,
                           [U_SCHED] = r->colls.schedule,
                           [U_SKIP] = r->colls.skipped,
                           [U_REQS] = m->own.skipped_requests,
                           [U_NEIGH] = r->neighbor_colls,
                           [U_INTER] = r->inter_skipped,
                           [U_FALLBACK] = r->fallbacks,
                           [U_PENDING] = m->own.pending_cut};
    uint64_t sum[U_COUNT];
    double d[2] = {ck->mpi, ck->compute}, dsum[2], span = ck->end - ck->start, most;
    MPI_Allreduce(u, sum, U_COUNT, MPI_UINT64_T, MPI_SUM, r->world);
    MPI_Allreduce(d, dsum, 2, MPI_DOUBLE, MPI_SUM, r->world);
    MPI_Allreduce(&span, &most, 1, MPI_DOUBLE, MPI_MAX, r->world);
    memset(res, 0, sizeof *res);
    res->time_s = most;
    res->mpi_s = dsum[0];
    res->compute_s = dsum[1];
    res->messages = sum[U_MSG];
    res->bytes = sum[U_BYTES];
    res->rma_ops = sum[U_RMA];
    res->colls = (rt_mpirun_colls){.mpich = sum[U_MPICH],
                                   .nonblocking = sum[U_NONBLOCK],
                                   .forced = sum[U_FORCED],
                                   .schedule = sum[U_SCHED],
                                   .skipped = sum[U_SKIP]};
    res->nranks = m->defs.nranks;
    double mine[3] = {(double)r->me, span, ck->mpi}, *all = NULL;
    int ok = 1;
    if (m->rank == 0) {
        all = malloc((size_t)m->size * 3 * sizeof *all);
        res->end_s = calloc(m->defs.nranks ? m->defs.nranks : 1, sizeof *res->end_s);
        res->rank_mpi_s = calloc(m->defs.nranks ? m->defs.nranks : 1, sizeof *res->rank_mpi_s);
        ok = all && res->end_s && res->rank_mpi_s;
    }
    MPI_Gather(mine, 3, MPI_DOUBLE, ok ? all : mine, 3, MPI_DOUBLE, 0, r->world);
    if (m->rank == 0 && ok)
        for (int i = 0; i < m->size; i++) {
            uint32_t t = (uint32_t)all[3 * i];
            if (t < m->defs.nranks) {
                res->end_s[t] = all[3 * i + 1];
                res->rank_mpi_s[t] = all[3 * i + 2];
            }
        }
    free(all);
    if (m->rank == 0) {
        if (sum[U_PENDING])
            note(&res->notes,
                 "%llu ranks stopped before their pending call (the recorded run never "
                 "returned from it): not executed",
                 (unsigned long long)sum[U_PENDING]);
        if (sum[U_REQS])
            note(&res->notes,
                 "%llu nonblocking receives or collectives never completed in "
                 "the trace, or were cancelled: not replayed",
                 (unsigned long long)sum[U_REQS]);
        if (sum[U_NEIGH])
            note(&res->notes,
                 "%llu neighbourhood collective calls not replayed: the trace "
                 "has no neighbour lists for their communicator",
                 (unsigned long long)sum[U_NEIGH]);
        if (sum[U_INTER])
            note(&res->notes, "%llu collective calls on inter-communicators not replayed",
                 (unsigned long long)sum[U_INTER]);
        if (sum[U_SKIP] > sum[U_NEIGH] + sum[U_INTER])
            note(&res->notes,
                 "%llu v-collective calls not replayed: some member's record of "
                 "the call is missing from the trace",
                 (unsigned long long)(sum[U_SKIP] - sum[U_NEIGH] - sum[U_INTER]));
        if (sum[U_FALLBACK])
            note(&res->notes,
#ifdef OPEN_MPI
                 "Open MPI would not run the chosen algorithm for %llu calls (it does "
                 "not apply to them); they ran retrace's schedule of it",
#else
                 "MPICH refused the chosen algorithm for %llu calls (it does not "
                 "apply to them); they ran retrace's schedule of it",
#endif
                 (unsigned long long)sum[U_FALLBACK]);
    }
    return ok ? 0
              : rt_err_set(err, RT_E_NOMEM, "out of memory for the result of %u ranks",
                           (unsigned)m->defs.nranks);
}

int rt_mpirun_run(rt_mpirun *m, const rt_mpirun_config *c, rt_mpirun_result *res, rt_err *err)
{
    memset(res, 0, sizeof *res);
    mr_run r = {.m = m, .cfg = c, .world = MPI_COMM_NULL};
    r.me = c->play ? c->play[m->rank] : (uint32_t)m->rank;
    int rc = r.me < m->defs.nranks
                 ? 0
                 : rt_err_set(err, RT_E_INVAL, "no trace rank %u to play", (unsigned)r.me);
    if (rc == 0)
        rc = mr_load_rank(m, r.me, err);
    /* the load may fail on one process only: agree before any collective setup */
    if ((rc = mr_agree(m->comm, rc, err, 0)))
        return rc;
    rc = mr_setup_local(&r, err);
    if ((rc = mr_agree(m->comm, rc, err, 0))) {
        mr_teardown(&r);
        return rc;
    }
    int early = mr_cvars_early();
    rc = early ? mr_cvars_set(&r.cvars, c->alg, err) : 0;
    if (rc == 0)
        rc = mr_setup_comms(&r, err);
    if (rc == 0 && !early)
        rc = mr_cvars_set(&r.cvars, c->alg, err);
    if ((rc = mr_agree(m->comm, rc, err, 0))) {
        mr_teardown(&r);
        return rc;
    }
    clocks ck = {0};
    uint64_t at = 0;
    MPI_Barrier(r.world);
    ck.start = MPI_Wtime();
    if ((rc = replay(&r, &ck, &at, err)) < 0) {
        /* this process alone: the others may wait for it in a collective, forever */
        char why[RT_ERR_LEN];
        snprintf(why, sizeof why, "%s", err->msg);
        const rt_event *ev = &m->own.ev[at];
        rt_err_set(err, -rc, "process %d (trace rank %u), event %llu (%s at %llu ns): %s", m->rank,
                   (unsigned)r.me, (unsigned long long)at, rt_event_kind_name(ev->kind),
                   (unsigned long long)ev->time, why);
        res->stuck = 1;
        return rc; /* no teardown: it is collective, and the others are in the replay */
    }
    /* the results travel in collectives of retrace's own: the MPI's own choice again */
    mr_cvars_restore(r.cvars);
    r.cvars = NULL;
    rc = gather_result(&r, &ck, res, err);
    mr_teardown(&r);
    return rc;
}
