/*
 * Reading a trace for the real-MPI replay. Each process keeps only the events of the rank it
 * plays, but MPI wants from every process of a v-collective the counts of all the others,
 * and a window big enough for every transfer into it: one pass over all events (the
 * prepass) collects those facts, the per-rank load then prepares one rank's events.
 *
 * A collective's sequence number on its communicator is its position among the rank's
 * collectives on that communicator in the order they were started (COLL_BEGIN, or
 * NBC_REQUEST for a nonblocking one): MPI requires every member to start them in the same
 * order, so the k-th call of one member is the k-th call of every other.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "rt__mpirun.h"

/* One rank's events (below): the prepass keeps those of the process's own rank, so that
 * the usual replay, process i playing rank i, reads the trace once. */
static void own_reset(mr_events *e);
static int own_keep(mr_events *e, const rt_event *ev, rt_err *err);
static int own_prepare(rt_mpirun *m, uint32_t rank, rt_err *err);

/* ---- the prepass -------------------------------------------------------------------------- */

int mr_is_vcoll(unsigned op)
{
    return op == RT_COLL_GATHERV || op == RT_COLL_SCATTERV || op == RT_COLL_ALLGATHERV ||
           op == RT_COLL_ALLTOALLV || op == RT_COLL_ALLTOALLW || op == RT_COLL_REDUCE_SCATTER;
}

typedef struct coll_rec {
    uint64_t start; /* the rank's start counter */
    uint64_t bytes, rbytes;
    uint32_t comm, rank;
    uint8_t op, known; /* known: the completion was seen */
} coll_rec;

static int by_comm_rank_start(const void *a, const void *b)
{
    const coll_rec *x = a, *y = b;
    if (x->comm != y->comm)
        return x->comm < y->comm ? -1 : 1;
    if (x->rank != y->rank)
        return x->rank < y->rank ? -1 : 1;
    return x->start < y->start ? -1 : x->start > y->start;
}

static int by_comm_seq_pos(const void *a, const void *b)
{
    const mr_vpart *x = a, *y = b;
    if (x->comm != y->comm)
        return x->comm < y->comm ? -1 : 1;
    if (x->seq != y->seq)
        return x->seq < y->seq ? -1 : 1;
    return x->pos < y->pos ? -1 : x->pos > y->pos;
}

static int win_index(const rt_defs *d, uint32_t id)
{
    const rt_win_def *w = rt_defs_win(d, id);
    return w ? (int)(w - d->wins) : -RT_E_NOTFOUND;
}

/* Turns the collected calls into the v-collective parts, sorted for mr_vparts_find. */
static int build_vparts(rt_mpirun *m, coll_rec *cr, uint64_t n, rt_err *err)
{
    qsort(cr, n, sizeof *cr, by_comm_rank_start);
    uint64_t nv = 0;
    for (uint64_t i = 0; i < n; i++)
        nv += cr[i].known && mr_is_vcoll(cr[i].op);
    m->vparts = malloc((nv ? nv : 1) * sizeof *m->vparts);
    if (!m->vparts)
        return rt_err_set(err, RT_E_NOMEM, "out of memory for the v-collective counts");
    uint32_t seq = 0;
    for (uint64_t i = 0; i < n; i++) {
        if (i && (cr[i].comm != cr[i - 1].comm || cr[i].rank != cr[i - 1].rank))
            seq = 0;
        if (cr[i].known && mr_is_vcoll(cr[i].op)) {
            const rt_comm_def *c = rt_defs_comm(&m->defs, cr[i].comm);
            int64_t pos = c ? rt_comm_position(c, cr[i].rank) : -RT_E_NOTFOUND;
            if (pos >= 0)
                m->vparts[m->nvparts++] =
                    (mr_vpart){cr[i].comm, seq, (uint32_t)pos, cr[i].bytes, cr[i].rbytes};
        }
        seq++;
    }
    qsort(m->vparts, m->nvparts, sizeof *m->vparts, by_comm_seq_pos);
    return 0;
}

/* What the prepass gathers as it reads: per rank the collectives it started so far and the
 * start of its open blocking one, the calls seen, and the open nonblocking ones by request
 * (the index of their record). */
typedef struct prepass {
    uint32_t nr;
    uint64_t *counter, *begin;
    coll_rec *cr;
    uint64_t ncr, capcr;
    rt_hmap reqs;
} prepass;

static int prepass_nomem(const rt_mpirun *m, rt_err *err)
{
    return rt_err_set(err, RT_E_NOMEM, "out of memory reading %s", m->path);
}

static int prepass_init(rt_mpirun *m, prepass *p, rt_err *err)
{
    uint32_t nr = p->nr;
    p->counter = calloc(nr ? nr : 1, sizeof *p->counter);
    p->begin = malloc((nr ? nr : 1) * sizeof *p->begin);
    m->win_bytes = calloc(m->defs.nwins ? m->defs.nwins : 1, sizeof *m->win_bytes);
    if (!p->counter || !p->begin || !m->win_bytes)
        return prepass_nomem(m, err);
    for (uint32_t r = 0; r < nr; r++)
        p->begin[r] = UINT64_MAX;
    return 0;
}

static void prepass_free(prepass *p)
{
    rt_hmap_free(&p->reqs);
    free(p->cr);
    free(p->counter);
    free(p->begin);
}

/* A nonblocking collective started: its record, completed by its NBC_COMPLETE. */
static int prepass_nbc_request(rt_mpirun *m, prepass *p, const rt_event *ev, rt_err *err)
{
    uint64_t *s = rt_hmap_put(&p->reqs, ev->rank, ev->req, NULL);
    if (!s)
        return prepass_nomem(m, err);
    *s = p->counter[ev->rank]++;
    if (RT_VEC_RESERVE(p->cr, p->capcr, p->ncr + 1, 256) < 0)
        return prepass_nomem(m, err);
    p->cr[p->ncr++] = (coll_rec){.start = *s, .rank = ev->rank, .comm = UINT32_MAX};
    *s = p->ncr - 1; /* from now on: the record's index */
    return 0;
}

/* A collective's completion (COLL_END or NBC_COMPLETE): its communicator, kind and counts. */
static int prepass_coll_done(rt_mpirun *m, prepass *p, const rt_event *ev, rt_err *err)
{
    const rt_comm_def *c = rt_defs_comm(&m->defs, ev->comm);
    if (c && (c->flags & RT_COMM_IS_INTER))
        m->inter_colls++;
    coll_rec *r = NULL;
    if (ev->kind == RT_EV_NBC_COMPLETE) {
        uint64_t *s = rt_hmap_get(&p->reqs, ev->rank, ev->req);
        if (!s || *s == UINT64_MAX)
            return 0;
        r = &p->cr[*s];
        *s = UINT64_MAX;
    } else {
        if (RT_VEC_RESERVE(p->cr, p->capcr, p->ncr + 1, 256) < 0)
            return prepass_nomem(m, err);
        uint64_t *begin = &p->begin[ev->rank];
        uint64_t st = *begin != UINT64_MAX ? *begin : p->counter[ev->rank]++;
        *begin = UINT64_MAX;
        r = &p->cr[p->ncr++];
        *r = (coll_rec){.start = st, .rank = ev->rank};
    }
    r->comm = ev->comm;
    r->op = ev->op;
    r->bytes = ev->bytes;
    r->rbytes = ev->rbytes;
    r->known = 1;
    return 0;
}

/* One event of a rank of the trace: what it adds to the prepass's facts. */
static int prepass_event(rt_mpirun *m, prepass *p, const rt_event *ev, rt_err *err)
{
    if (ev->kind == RT_EV_RMA_TARGET) /* its bytes are a displacement: nothing to replay */
        return 0;
    if (ev->bytes > INT_MAX || ev->rbytes > INT_MAX)
        return rt_err_set(err, RT_E_RANGE,
                          "%s: rank %u has a transfer of %llu bytes, more than a real-MPI "
                          "replay issues at once (%d)",
                          m->path, (unsigned)ev->rank,
                          (unsigned long long)(ev->bytes > ev->rbytes ? ev->bytes : ev->rbytes),
                          INT_MAX);
    switch (ev->kind) {
    case RT_EV_ISEND:
#if MPI_VERSION < 4 /* partitioned messages replay as such (mpi_exec.c) */
        if (ev->op & RT_RECV_PARTITIONED)
            return rt_err_set(err, RT_E_INVAL,
                              "%s: rank %u sends a partitioned message, and this MPI has no "
                              "partitioned communication (MPI-4): replay it with MPICH",
                              m->path, (unsigned)ev->rank);
#endif
        /* fall through */
    case RT_EV_SEND:
        m->rec_messages++;
        m->rec_bytes += ev->bytes;
        return 0;
    case RT_EV_COLL_BEGIN:
        p->begin[ev->rank] = p->counter[ev->rank]++;
        return 0;
    case RT_EV_NBC_REQUEST:
        return prepass_nbc_request(m, p, ev, err);
    case RT_EV_COLL_END:
    case RT_EV_NBC_COMPLETE:
        return prepass_coll_done(m, p, ev, err);
    case RT_EV_RMA_PUT:
    case RT_EV_RMA_GET:
    case RT_EV_RMA_ATOMIC: {
        int w = win_index(&m->defs, ev->comm);
        uint64_t b = ev->bytes > ev->rbytes ? ev->bytes : ev->rbytes;
        if (w >= 0 && b > m->win_bytes[w])
            m->win_bytes[w] = b;
        return 0;
    }
    default:
        return 0;
    }
}

int mr_prepass(rt_mpirun *m, rt_err *err)
{
    rt_reader *rd = NULL;
    if (rt_reader_open(m->path, &rd, err) < 0)
        return err->code;
    int rc = rt_defs_copy(&m->defs, rt_reader_defs(rd), err);
    prepass p = {.nr = m->defs.nranks};
    if (rc == 0)
        rc = prepass_init(m, &p, err);
    uint32_t keep = (uint32_t)m->rank;
    own_reset(&m->own);
    rt_event ev;
    int k;
    while (rc == 0 && (k = rt_reader_next(rd, &ev, err)) > 0) {
        if (ev.rank >= p.nr)
            continue;
        if (ev.rank == keep && (rc = own_keep(&m->own, &ev, err)))
            break;
        rc = prepass_event(m, &p, &ev, err);
    }
    if (rc == 0 && k < 0)
        rc = err->code;
    if (rc == 0)
        rc = build_vparts(m, p.cr, p.ncr, err);
    if (rc == 0 && keep < p.nr)
        rc = own_prepare(m, keep, err);
    prepass_free(&p);
    rt_reader_close(rd);
    return rc;
}

const mr_vpart *mr_vparts_find(const rt_mpirun *m, uint32_t comm, uint32_t seq, uint32_t *n)
{
    uint64_t lo = 0, hi = m->nvparts;
    while (lo < hi) {
        uint64_t mid = lo + (hi - lo) / 2;
        const mr_vpart *v = &m->vparts[mid];
        if (v->comm < comm || (v->comm == comm && v->seq < seq))
            lo = mid + 1;
        else
            hi = mid;
    }
    uint64_t end = lo;
    while (end < m->nvparts && m->vparts[end].comm == comm && m->vparts[end].seq == seq)
        end++;
    *n = (uint32_t)(end - lo);
    return end > lo ? &m->vparts[lo] : NULL;
}

/* ---- one rank's events -------------------------------------------------------------------- */

/* Request ids become slots: a post takes the lowest free slot, its completion frees it. */
static int assign_slots(mr_events *e, rt_err *err)
{
    rt_hmap open = {0};
    uint32_t *free_list = NULL, nfree = 0, cap = 0;
    int rc = 0;
    for (uint64_t i = 0; i < e->n && rc == 0; i++) {
        rt_event *ev = &e->ev[i];
        if (ev->kind == MR_SKIP)
            continue;
        if (rt_event_starts_request(ev->kind)) {
            uint64_t *s = rt_hmap_put(&open, 0, ev->req, NULL);
            if (!s) {
                rc = rt_err_set(err, RT_E_NOMEM, "out of memory for requests");
                break;
            }
            uint32_t slot = nfree ? free_list[--nfree] : e->nslots++;
            *s = (uint64_t)slot + 1;
            ev->req = slot;
        } else if (rt_event_ends_request(ev->kind)) {
            uint64_t *s = rt_hmap_get(&open, 0, ev->req);
            if (!s || !*s) {
                ev->kind = MR_SKIP;
                continue;
            }
            uint32_t slot = (uint32_t)(*s - 1);
            *s = 0;
            ev->req = slot;
            if (RT_VEC_RESERVE(free_list, cap, (uint64_t)nfree + 1, 64) < 0) {
                rc = rt_err_set(err, RT_E_NOMEM, "out of memory for requests");
                break;
            }
            free_list[nfree++] = slot;
        }
    }
    rt_hmap_free(&open);
    free(free_list);
    return rc;
}

/* A receive or collective posted without what its completion knows is filled from it; one
 * that never completed, or was cancelled, is not replayed (nor is its completion). */
static int link_posts(mr_events *e, rt_err *err)
{
    rt_hmap open = {0};
    for (uint64_t i = 0; i < e->n; i++) {
        rt_event *ev = &e->ev[i];
        if (rt_event_starts_request(ev->kind)) {
            uint64_t *s = rt_hmap_put(&open, 0, ev->req, NULL);
            if (!s) {
                rt_hmap_free(&open);
                return rt_err_set(err, RT_E_NOMEM, "out of memory for requests");
            }
            *s = i + 1;
        } else if (rt_event_ends_request(ev->kind)) {
            uint64_t *s = rt_hmap_get(&open, 0, ev->req);
            if (!s || !*s)
                continue;
            rt_event *p = &e->ev[*s - 1];
            *s = 0;
            if (ev->kind == RT_EV_REQUEST_CANCELLED) {
                p->kind = MR_SKIP;
                ev->kind = MR_SKIP;
                e->skipped_requests++;
            } else if (ev->kind == RT_EV_IRECV || ev->kind == RT_EV_NBC_COMPLETE) {
                uint64_t *at;
                if (ev->kind == RT_EV_NBC_COMPLETE && i + 1 < e->n &&
                    e->ev[i + 1].kind == RT_EV_COLL_PEER) { /* where its rows are */
                    if (!(at = rt_hmap_put(&e->rows, 0, (uint64_t)(p - e->ev), NULL))) {
                        rt_hmap_free(&open);
                        return rt_err_set(err, RT_E_NOMEM, "out of memory for requests");
                    }
                    *at = i + 1;
                }
                uint64_t req = p->req;
                unsigned kind = p->kind;
                uint64_t t = p->time;
                *p = *ev;
                p->kind = (uint8_t)kind;
                p->req = req;
                p->time = t;
            }
        }
    }
    /* posts that never completed and need their completion's data */
    for (uint64_t j = 0; j < open.cap; j++)
        if (open.slots[j].k1 != RT_HASH_EMPTY && open.slots[j].v) {
            rt_event *p = &e->ev[open.slots[j].v - 1];
            if (p->kind == RT_EV_IRECV_REQUEST || p->kind == RT_EV_NBC_REQUEST) {
                p->kind = MR_SKIP;
                e->skipped_requests++;
            }
        }
    rt_hmap_free(&open);
    return 0;
}

/* The sequence number of each collective on its communicator, in start order. */
static int number_colls(mr_events *e, const rt_defs *d, rt_err *err)
{
    uint32_t *seq = calloc(d->ncomms ? d->ncomms : 1, sizeof *seq);
    if (!seq)
        return rt_err_set(err, RT_E_NOMEM, "out of memory");
    for (uint64_t i = 0; i < e->n; i++) {
        rt_event *ev = &e->ev[i];
        if (ev->kind != RT_EV_COLL_END && ev->kind != RT_EV_NBC_REQUEST)
            continue;
        const rt_comm_def *c = rt_defs_comm(d, ev->comm);
        if (!c) {
            ev->kind = MR_SKIP;
            continue;
        }
        ev->tag = (int32_t)seq[c - d->comms]++;
    }
    free(seq);
    return 0;
}

int mr_load_rank(rt_mpirun *m, uint32_t rank, rt_err *err)
{
    if (m->own.rank == rank)
        return 0;
    own_reset(&m->own);
    rt_reader *rd = NULL;
    if (rt_reader_open(m->path, &rd, err) < 0)
        return err->code;
    rt_event ev;
    int k, rc = 0;
    while ((k = rt_reader_next(rd, &ev, err)) > 0)
        if (ev.rank == rank && (rc = own_keep(&m->own, &ev, err)))
            break;
    if (rc == 0 && k < 0)
        rc = err->code;
    rt_reader_close(rd);
    return rc ? rc : own_prepare(m, rank, err);
}

/* ---- keeping one rank's events ------------------------------------------------------------ */

static void own_reset(mr_events *e)
{
    e->rank = UINT32_MAX;
    e->n = 0;
    e->nslots = 0;
    e->max_bytes = 0;
    e->skipped_requests = 0;
    e->pending_cut = 0;
    rt_hmap_clear(&e->rows);
}

static int own_keep(mr_events *e, const rt_event *ev, rt_err *err)
{
    if (ev->kind == RT_EV_RMA_TARGET) /* transfers are replayed at displacement 0 */
        return 0;
    if (RT_VEC_RESERVE(e->ev, e->cap, (uint64_t)e->n + 1, 256) < 0)
        return rt_err_set(err, RT_E_NOMEM, "out of memory for the events of rank %u",
                          (unsigned)ev->rank);
    e->ev[e->n++] = *ev;
    if (ev->bytes > e->max_bytes)
        e->max_bytes = ev->bytes;
    if (ev->rbytes > e->max_bytes)
        e->max_bytes = ev->rbytes;
    return 0;
}

/* A call that never returned in the recorded run (rt_event.h) is not executed: the rank's
 * replay ends before it. Replayed, it would wait as it did then, and the whole replay with it.
 * Its ENTER goes too, so that the rank ends with its last call that returned. */
static void cut_pending(mr_events *e)
{
    uint64_t i = 0;
    while (i < e->n && e->ev[i].kind != RT_EV_PENDING)
        i++;
    if (i == e->n)
        return;
    while (i > 0 && e->ev[i - 1].kind != RT_EV_ENTER && e->ev[i - 1].kind != RT_EV_LEAVE)
        i--;
    if (i > 0 && e->ev[i - 1].kind == RT_EV_ENTER)
        i--;
    e->n = i;
    e->pending_cut = 1;
}

static int own_prepare(rt_mpirun *m, uint32_t rank, rt_err *err)
{
    mr_events *e = &m->own;
    cut_pending(e);
    int rc = link_posts(e, err);
    if (rc == 0)
        rc = number_colls(e, &m->defs, err);
    if (rc == 0)
        rc = assign_slots(e, err);
    if (rc == 0)
        e->rank = rank;
    return rc;
}
