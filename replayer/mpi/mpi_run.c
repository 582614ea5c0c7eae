/*
 * The real-MPI replay: setup (communicators, agreement on errors), the event loop that
 * re-issues one trace rank's calls, and the result.
 *
 * Calls are replayed call by call: the events between an ENTER and its LEAVE are issued in
 * their order (a blocking send or receive as a nonblocking one, so that a Sendrecv's two
 * halves are posted together as MPI_Sendrecv posts them), then every request the call
 * completed in the trace is waited for. Before each call the process spends the recorded
 * gap since the previous call's end as busy time (times compute_scale). Events outside any
 * call (hand-made traces) are calls of their own.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt__mpirun.h"

/* ---- agreeing on errors -------------------------------------------------------------------- */

int mr_mpi(int mpi_rc, const char *what, rt_err *err)
{
    if (mpi_rc == MPI_SUCCESS)
        return 0;
    char text[MPI_MAX_ERROR_STRING];
    int len = 0;
    if (MPI_Error_string(mpi_rc, text, &len) != MPI_SUCCESS)
        snprintf(text, sizeof text, "MPI error code %d", mpi_rc);
    return rt_err_set(err, RT_E_MPI, "%s: %s", what, text);
}

/* Every process learns the first failing process's error (its rank prefixed when the
 * processes may differ); returns that error's code, or 0 when none failed. Point-to-point
 * only: the replay may have forced the MPI's collective algorithms (MPICH's, with fallback
 * off), and one that does not apply to a call of one int would fail retrace's own
 * bookkeeping instead of the user's collectives. */
int mr_agree(MPI_Comm comm, int rc, rt_err *err, int same_everywhere)
{
    enum { TAG_FIRST = 7101, TAG_ERROR };
    int rank, size, first, mine;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    mine = first = rc ? rank : size;
    if (rank == 0) {
        for (int i = 1, other; i < size; i++) {
            MPI_Recv(&other, 1, MPI_INT, i, TAG_FIRST, comm, MPI_STATUS_IGNORE);
            first = other < first ? other : first;
        }
        for (int i = 1; i < size; i++)
            MPI_Send(&first, 1, MPI_INT, i, TAG_FIRST, comm);
    } else {
        MPI_Send(&mine, 1, MPI_INT, 0, TAG_FIRST, comm);
        MPI_Recv(&first, 1, MPI_INT, 0, TAG_FIRST, comm, MPI_STATUS_IGNORE);
    }
    if (first == size)
        return 0;
    struct {
        int code;
        char msg[sizeof err->msg + 32];
    } e = {.code = rc ? rc : -RT_E_INVAL};
    if (rank == first) {
        if (same_everywhere)
            snprintf(e.msg, sizeof e.msg, "%s", err->msg);
        else
            snprintf(e.msg, sizeof e.msg, "process %d: %s", rank, err->msg);
        for (int i = 0; i < size; i++)
            if (i != first)
                MPI_Send(&e, (int)sizeof e, MPI_BYTE, i, TAG_ERROR, comm);
    } else {
        MPI_Recv(&e, (int)sizeof e, MPI_BYTE, first, TAG_ERROR, comm, MPI_STATUS_IGNORE);
    }
    return rt_err_set(err, e.code < 0 ? -e.code : e.code, "%s", e.msg);
}

/* ---- open and close --------------------------------------------------------------------- */

int rt_mpirun_open(MPI_Comm comm, const char *path, rt_mpirun **out, rt_err *err)
{
    int prov;
    *out = NULL;
    MPI_T_init_thread(MPI_THREAD_SINGLE, &prov);
    rt_mpirun *m = calloc(1, sizeof *m);
    int rc = 0;
    if (!m || !(m->path = strdup(path)))
        rc = rt_err_set(err, RT_E_NOMEM, "out of memory");
    if (m) {
        m->comm = comm;
        m->own.rank = UINT32_MAX;
        MPI_Comm_size(comm, &m->size);
        MPI_Comm_rank(comm, &m->rank);
    }
    if (rc == 0)
        rc = mr_prepass(m, err);
    if (rc == 0 && m->defs.nranks != (uint32_t)m->size)
        rc = rt_err_set(err, RT_E_INVAL, "%s has %u rank%s but %d process%s it (mpiexec -n %u)",
                        path, (unsigned)m->defs.nranks, m->defs.nranks == 1 ? "" : "s", m->size,
                        m->size == 1 ? " replays" : "es replay", (unsigned)m->defs.nranks);
    rc = mr_agree(comm, rc, err, 1);
    if (rc) {
        rt_mpirun_close(m);
        MPI_T_finalize();
        return rc;
    }
    *out = m;
    return 0;
}

const rt_defs *rt_mpirun_defs(const rt_mpirun *m)
{
    return &m->defs;
}

void rt_mpirun_close(rt_mpirun *m)
{
    if (!m)
        return;
    int finalize = m->defs.nranks != 0 || m->path;
    rt_defs_free(&m->defs);
    free(m->vparts);
    free(m->win_bytes);
    free(m->own.ev);
    rt_hmap_free(&m->own.rows);
    free(m->path);
    free(m);
    if (finalize)
        MPI_T_finalize();
}

void rt_mpirun_config_default(rt_mpirun_config *c)
{
    memset(c, 0, sizeof *c);
    for (unsigned op = 0; op < RT_COLL_COUNT; op++)
        c->alg[op] = RT_ALG_MPICH;
    c->compute_scale = 1.0;
}

void rt_mpirun_result_free(rt_mpirun_result *res)
{
    free(res->end_s);
    free(res->rank_mpi_s);
    free(res->notes);
    memset(res, 0, sizeof *res);
}

/* ---- communicators ----------------------------------------------------------------------- */

int mr_comm_index(const mr_run *r, uint32_t id)
{
    const rt_comm_def *c = rt_defs_comm(&r->m->defs, id);
    return c ? (int)(c - r->m->defs.comms) : -RT_E_NOTFOUND;
}

/* Every trace communicator again, in id order, over the processes that play its members,
 * ranks in the recorded order. Collective over r->world. */
static int make_comm(mr_run *r, uint32_t i, rt_err *err)
{
    const rt_comm_def *c = &r->m->defs.comms[i];
    int64_t pos = rt_comm_position(c, r->me);
    MPI_Comm *out = &r->comms[i];
    int rc;
    if (c->flags & RT_COMM_IS_SELF)
        return mr_mpi(MPI_Comm_dup(MPI_COMM_SELF, out), "MPI_Comm_dup", err);
    if (!(c->flags & RT_COMM_IS_INTER))
        return mr_mpi(
            MPI_Comm_split(r->world, pos >= 0 ? 0 : MPI_UNDEFINED, (int)(pos >= 0 ? pos : 0), out),
            "MPI_Comm_split", err);
    /* an inter-communicator: each group by itself, then joined by their first members */
    int in_a = pos >= 0 && pos < c->size, color = pos < 0 ? MPI_UNDEFINED : in_a ? 0 : 1;
    int key = pos < 0 ? 0 : in_a ? (int)pos : (int)(pos - c->size);
    MPI_Comm local;
    if ((rc = mr_mpi(MPI_Comm_split(r->world, color, key, &local), "MPI_Comm_split", err)) < 0 ||
        pos < 0)
        return rc;
    uint32_t leader = in_a ? c->members[c->size] : c->members[0];
    int remote = (int)leader;
    if (r->cfg->play) /* the process that plays the other group's first member */
        for (int p = 0; p < r->m->size; p++)
            if (r->cfg->play[p] == leader)
                remote = p;
    rc = mr_mpi(MPI_Intercomm_create(local, 0, r->world, remote, (int)(i & 0x7fff), out),
                "MPI_Intercomm_create", err);
    MPI_Comm_free(&local);
    return rc;
}

/* The neighbour graph of communicator i as the trace recorded it (a distributed graph of
 * this rank's sources and destinations, MPI_PROC_NULL slots left out: they move nothing),
 * where any member has neighbour lists on it. Collective over the communicator. */
static int make_topo(mr_run *r, uint32_t i, rt_err *err)
{
    const rt_defs *d = &r->m->defs;
    const rt_comm_def *c = &d->comms[i];
    int any = 0;
    for (uint32_t k = 0; k < d->nnbrs && !any; k++)
        any = d->nbrs[k].comm == c->id;
    if (!any || (c->flags & RT_COMM_IS_INTER) || r->comms[i] == MPI_COMM_NULL)
        return 0;
    const rt_nbr_def *nb = rt_defs_nbrs(d, c->id, r->me);
    uint32_t nin = nb ? nb->nin : 0, nout = nb ? nb->nout : 0;
    int *in = malloc((nin + nout + 1) * sizeof *in), *out = in + nin, ni = 0, no = 0;
    if (!in)
        return rt_err_set(err, RT_E_NOMEM, "out of memory for %u neighbours",
                          (unsigned)(nin + nout));
    for (uint32_t k = 0; k < nin; k++)
        if (nb->in[k] != RT_PEER_NONE)
            in[ni++] = nb->in[k];
    for (uint32_t k = 0; k < nout; k++)
        if (nb->out[k] != RT_PEER_NONE)
            out[no++] = nb->out[k];
    int rc = mr_mpi(MPI_Dist_graph_create_adjacent(r->comms[i], ni, in, MPI_UNWEIGHTED, no, out,
                                                   MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &r->topo[i]),
                    "MPI_Dist_graph_create_adjacent", err);
    free(in);
    if (rc == 0)
        MPI_Comm_set_errhandler(r->topo[i], MPI_ERRORS_RETURN);
    return rc;
}

static int make_comms(mr_run *r, rt_err *err)
{
    const rt_defs *d = &r->m->defs;
    int rc = 0;
    for (uint32_t i = 0; i < d->ncomms && rc == 0; i++) {
        rc = make_comm(r, i, err);
        if (rc == 0 && r->comms[i] != MPI_COMM_NULL) {
            MPI_Comm_set_errhandler(r->comms[i], MPI_ERRORS_RETURN);
            if (!(d->comms[i].flags & RT_COMM_IS_INTER))
                rc = mr_mpi(MPI_Comm_dup(r->comms[i], &r->sched[i]), "MPI_Comm_dup", err);
            if (rc == 0)
                rc = make_topo(r, i, err);
        }
    }
    return rc;
}

/* ---- one-sided ------------------------------------------------------------------------------ */

/* The window of a trace window id and its index; -RT_E_NOTFOUND when it is not replayed. */
static int win_of(mr_run *r, uint32_t id, MPI_Win *win)
{
    const rt_win_def *w = rt_defs_win(&r->m->defs, id);
    if (!w || r->wins[w - r->m->defs.wins] == MPI_WIN_NULL)
        return -RT_E_NOTFOUND;
    *win = r->wins[w - r->m->defs.wins];
    return (int)(w - r->m->defs.wins);
}

static MPI_Datatype int_of_size(uint64_t n)
{
    return n == 8   ? MPI_INT64_T
           : n == 4 ? MPI_INT32_T
           : n == 2 ? MPI_INT16_T
           : n == 1 ? MPI_INT8_T
                    : MPI_DATATYPE_NULL;
}

static int is_rform(unsigned call)
{
    return call == RT_FN_Rput || call == RT_FN_Rget || call == RT_FN_Raccumulate ||
           call == RT_FN_Rget_accumulate || call == RT_FN_Rput_c || call == RT_FN_Rget_c ||
           call == RT_FN_Raccumulate_c || call == RT_FN_Rget_accumulate_c;
}

/* The group a PSCW call names, as ranks of the window's communicator. */
static int pscw_group(mr_run *r, const rt_event *ev, MPI_Win win, MPI_Group *out, rt_err *err)
{
    const rt_defs *d = &r->m->defs;
    const rt_group_def *g = rt_defs_group(d, (uint32_t)ev->peer);
    const rt_win_def *w = rt_defs_win(d, ev->comm);
    const rt_comm_def *c = w ? rt_defs_comm(d, w->comm) : NULL;
    if (!g || !c)
        return rt_err_set(err, RT_E_INVAL, "group %d or window %u is not defined", ev->peer,
                          (unsigned)ev->comm);
    int *ranks = malloc((g->size ? g->size : 1) * sizeof *ranks);
    if (!ranks)
        return rt_err_set(err, RT_E_NOMEM, "out of memory for a group of %u ranks",
                          (unsigned)g->size);
    for (uint32_t i = 0; i < g->size; i++) {
        int64_t pos = rt_comm_position(c, g->members[i]);
        if (pos < 0) {
            free(ranks);
            return rt_err_set(err, RT_E_INVAL,
                              "group %d: rank %u is not a member of window %u's communicator",
                              ev->peer, (unsigned)g->members[i], (unsigned)ev->comm);
        }
        ranks[i] = (int)pos;
    }
    MPI_Group all;
    int rc = mr_mpi(MPI_Win_get_group(win, &all), "MPI_Win_get_group", err);
    if (rc == 0) {
        rc = mr_mpi(MPI_Group_incl(all, (int)g->size, ranks, out), "MPI_Group_incl", err);
        MPI_Group_free(&all);
    }
    free(ranks);
    return rc;
}

/* The call's result with its name (the nonblocking form's when there is a request). */
#define CALL(name, call) mr_mpi((call), name, err)
#define CALL2(rname, rcall, name, call) (req ? CALL(rname, rcall) : CALL(name, call))

/* A window created: MPI allocates it as large as the largest transfer into it (the
 * prepass's win_bytes). */
static int win_create(mr_run *r, const rt_event *ev, rt_err *err)
{
    const rt_win_def *wd = rt_defs_win(&r->m->defs, ev->comm);
    int ci = wd ? mr_comm_index(r, wd->comm) : -RT_E_NOTFOUND;
    if (ci < 0 || r->comms[ci] == MPI_COMM_NULL)
        return rt_err_set(err, RT_E_INVAL,
                          "window %u on a communicator this process does not replay",
                          (unsigned)ev->comm);
    int w = (int)(wd - r->m->defs.wins);
    uint64_t bytes = r->m->win_bytes[w] ? r->m->win_bytes[w] : 8;
    int rc = CALL("MPI_Win_allocate", MPI_Win_allocate((MPI_Aint)bytes, 1, MPI_INFO_NULL,
                                                       r->comms[ci], &r->win_mem[w], &r->wins[w]));
    if (rc == 0)
        MPI_Win_set_errhandler(r->wins[w], MPI_ERRORS_RETURN);
    return rc;
}

/* An atomic operation: fetch-and-op and compare-and-swap of one integer as such, the rest as
 * (get-)accumulates of the largest integers that divide both sizes. */
static int rma_atomic(mr_run *r, const rt_event *ev, MPI_Win win, MPI_Request *req, rt_err *err)
{
    int t = ev->peer;
    uint64_t b = ev->bytes, rb = ev->rbytes;
    if (ev->op == RT_ATOMIC_FETCH_AND_OP && int_of_size(b) != MPI_DATATYPE_NULL)
        return CALL("MPI_Fetch_and_op",
                    MPI_Fetch_and_op(r->sbuf, r->rbuf, int_of_size(b), t, 0, MPI_SUM, win));
    if (ev->op == RT_ATOMIC_COMPARE_AND_SWAP && int_of_size(rb) != MPI_DATATYPE_NULL)
        return CALL("MPI_Compare_and_swap", MPI_Compare_and_swap(r->sbuf, r->sbuf + rb, r->rbuf,
                                                                 int_of_size(rb), t, 0, win));
    uint64_t e = b % 8 == 0 && rb % 8 == 0 ? 8 : b % 4 == 0 && rb % 4 == 0 ? 4 : 1;
    MPI_Datatype ty = e == 8 ? MPI_INT64_T : e == 4 ? MPI_INT32_T : MPI_INT8_T;
    int n = (int)(b / e), nr = (int)(rb / e);
    if (ev->op == RT_ATOMIC_GET_ACCUMULATE || ev->op == RT_ATOMIC_FETCH_AND_OP) {
        MPI_Op op = n ? MPI_SUM : MPI_NO_OP;
        int tn = n ? n : nr;
        return CALL2(
            "MPI_Rget_accumulate",
            MPI_Rget_accumulate(r->sbuf, n, ty, r->rbuf, nr, ty, t, 0, tn, ty, op, win, req),
            "MPI_Get_accumulate",
            MPI_Get_accumulate(r->sbuf, n, ty, r->rbuf, nr, ty, t, 0, tn, ty, op, win));
    }
    return CALL2("MPI_Raccumulate", MPI_Raccumulate(r->sbuf, n, ty, t, 0, n, ty, MPI_SUM, win, req),
                 "MPI_Accumulate", MPI_Accumulate(r->sbuf, n, ty, t, 0, n, ty, MPI_SUM, win));
}

/* A synchronisation of a window: fence, PSCW, locks, flushes. */
static int rma_sync(mr_run *r, const rt_event *ev, MPI_Win win, rt_err *err)
{
    int t = ev->peer, rc;
    switch (ev->kind) {
    case RT_EV_RMA_COLL_END:
        return CALL("MPI_Win_fence", MPI_Win_fence(0, win));
    case RT_EV_RMA_GROUP_SYNC:
        if (ev->op == RT_PSCW_COMPLETE)
            return CALL("MPI_Win_complete", MPI_Win_complete(win));
        if (ev->op == RT_PSCW_WAIT)
            return CALL("MPI_Win_wait", MPI_Win_wait(win));
        MPI_Group g;
        if ((rc = pscw_group(r, ev, win, &g, err)) < 0)
            return rc;
        rc = ev->op == RT_PSCW_POST ? CALL("MPI_Win_post", MPI_Win_post(g, 0, win))
                                    : CALL("MPI_Win_start", MPI_Win_start(g, 0, win));
        MPI_Group_free(&g);
        return rc;
    case RT_EV_RMA_LOCK:
        if (t == RT_PEER_ALL)
            return CALL("MPI_Win_lock_all", MPI_Win_lock_all(0, win));
        return CALL("MPI_Win_lock",
                    MPI_Win_lock(ev->op == RT_LOCK_EXCLUSIVE ? MPI_LOCK_EXCLUSIVE : MPI_LOCK_SHARED,
                                 t, 0, win));
    case RT_EV_RMA_UNLOCK:
        return t == RT_PEER_ALL ? CALL("MPI_Win_unlock_all", MPI_Win_unlock_all(win))
                                : CALL("MPI_Win_unlock", MPI_Win_unlock(t, win));
    case RT_EV_RMA_SYNC:
        if (ev->op == RT_SYNC_WIN_SYNC)
            return CALL("MPI_Win_sync", MPI_Win_sync(win));
        if (ev->op == RT_SYNC_FLUSH_LOCAL)
            return t == RT_PEER_ALL ? CALL("MPI_Win_flush_local_all", MPI_Win_flush_local_all(win))
                                    : CALL("MPI_Win_flush_local", MPI_Win_flush_local(t, win));
        return t == RT_PEER_ALL ? CALL("MPI_Win_flush_all", MPI_Win_flush_all(win))
                                : CALL("MPI_Win_flush", MPI_Win_flush(t, win));
    default:
        return 0;
    }
}

int mr_rma(mr_run *r, const rt_event *ev, rt_err *err)
{
    MPI_Win win;
    int w;
    if (ev->kind == RT_EV_WIN_CREATE)
        return win_create(r, ev, err);
    if (ev->kind == RT_EV_RMA_COLL_END && ev->op != RT_COLL_BARRIER)
        return 0; /* the collective part of creating or freeing a window */
    if ((w = win_of(r, ev->comm, &win)) < 0)
        return rt_err_set(err, RT_E_INVAL,
                          "window %u is not replayed here (freed, or never "
                          "created on this rank)",
                          (unsigned)ev->comm);
    MPI_Request *req = is_rform(ev->call) ? &r->reqs[ev->req] : NULL;
    int t = ev->peer;
    uint64_t b = ev->bytes, rb = ev->rbytes;
    switch (ev->kind) {
    case RT_EV_WIN_FREE:
        return CALL("MPI_Win_free", MPI_Win_free(&r->wins[w]));
    case RT_EV_RMA_PUT:
        r->rma_ops++;
        return CALL2("MPI_Rput",
                     MPI_Rput(r->sbuf, (int)b, MPI_BYTE, t, 0, (int)b, MPI_BYTE, win, req),
                     "MPI_Put", MPI_Put(r->sbuf, (int)b, MPI_BYTE, t, 0, (int)b, MPI_BYTE, win));
    case RT_EV_RMA_GET:
        r->rma_ops++;
        return CALL2("MPI_Rget",
                     MPI_Rget(r->rbuf, (int)rb, MPI_BYTE, t, 0, (int)rb, MPI_BYTE, win, req),
                     "MPI_Get", MPI_Get(r->rbuf, (int)rb, MPI_BYTE, t, 0, (int)rb, MPI_BYTE, win));
    case RT_EV_RMA_ATOMIC:
        r->rma_ops++;
        return rma_atomic(r, ev, win, req, err);
    default:
        return rma_sync(r, ev, win, err);
    }
}

/* ---- setup and teardown ---------------------------------------------------------------- */

/* What a run needs that can fail on one process alone (memory). 0 or -RT_E_NOMEM. */
int mr_setup_local(mr_run *r, rt_err *err)
{
    const rt_defs *d = &r->m->defs;
    uint32_t nc = d->ncomms ? d->ncomms : 1, nw = d->nwins ? d->nwins : 1, most = 1;
    for (uint32_t i = 0; i < d->ncomms; i++)
        if (d->comms[i].size + d->comms[i].remote_size > most)
            most = d->comms[i].size + d->comms[i].remote_size;
    uint32_t ns = r->m->own.nslots ? r->m->own.nslots : 1;
    r->comms = malloc(nc * sizeof *r->comms);
    r->sched = malloc(nc * sizeof *r->sched);
    r->topo = malloc(nc * sizeof *r->topo);
    r->wins = malloc(nw * sizeof *r->wins);
    r->win_mem = calloc(nw, sizeof *r->win_mem);
    r->reqs = malloc(ns * sizeof *r->reqs);
    r->counts = malloc(4 * (size_t)most * sizeof *r->counts);
    uint64_t buf = r->m->own.max_bytes > 64 ? r->m->own.max_bytes : 64;
    r->sbuf = calloc(1, buf);
    r->rbuf = calloc(1, buf);
    if (!r->comms || !r->sched || !r->topo || !r->wins || !r->win_mem || !r->reqs || !r->counts ||
        !r->sbuf || !r->rbuf)
        return rt_err_set(err, RT_E_NOMEM, "out of memory for the replay of trace rank %u",
                          (unsigned)r->me);
    r->buf_bytes = buf;
    r->ready = 1;
    r->displs = r->counts + most;
    r->rcounts = r->displs + most;
    r->rdispls = r->rcounts + most;
    for (uint32_t i = 0; i < nc; i++)
        r->comms[i] = r->sched[i] = r->topo[i] = MPI_COMM_NULL;
    for (uint32_t i = 0; i < nw; i++)
        r->wins[i] = MPI_WIN_NULL;
    for (uint32_t i = 0; i < ns; i++)
        r->reqs[i] = MPI_REQUEST_NULL;
    return 0;
}

/* The communicators (collective over m->comm). 0, or -RT_E_MPI or -RT_E_NOMEM. */
int mr_setup_comms(mr_run *r, rt_err *err)
{
    int rc = mr_mpi(MPI_Comm_dup(r->m->comm, &r->world), "MPI_Comm_dup", err);
    if (rc == 0)
        rc = mr_mpi(MPI_Comm_set_errhandler(r->world, MPI_ERRORS_RETURN), "MPI_Comm_set_errhandler",
                    err);
    if (rc == 0)
        rc = make_comms(r, err);
    if (rc < 0) {
        char why[RT_ERR_LEN];
        snprintf(why, sizeof why, "%s", err->msg);
        rt_err_set(err, -rc, "cannot create the replay's communicators: %s", why);
    }
    return rc;
}

void mr_teardown(mr_run *r)
{
    const rt_defs *d = &r->m->defs;
    if (!r->ready)
        goto out;
    for (uint32_t i = 0; r->reqs && i < (r->m->own.nslots ? r->m->own.nslots : 1); i++)
        if (r->reqs[i] != MPI_REQUEST_NULL) { /* never completed in the trace */
            int done = 0;
            MPI_Test(&r->reqs[i], &done, MPI_STATUS_IGNORE);
            if (!done) {
                MPI_Cancel(&r->reqs[i]);
                MPI_Wait(&r->reqs[i], MPI_STATUS_IGNORE);
            }
        }
    for (uint32_t i = 0; r->wins && i < d->nwins; i++)
        if (r->wins[i] != MPI_WIN_NULL) /* never freed in the trace */
            MPI_Win_free(&r->wins[i]);
    for (uint32_t i = 0; r->comms && i < d->ncomms; i++) {
        if (r->comms[i] != MPI_COMM_NULL)
            MPI_Comm_free(&r->comms[i]);
        if (r->sched[i] != MPI_COMM_NULL)
            MPI_Comm_free(&r->sched[i]);
        if (r->topo[i] != MPI_COMM_NULL)
            MPI_Comm_free(&r->topo[i]);
    }
    if (r->world != MPI_COMM_NULL)
        MPI_Comm_free(&r->world);
    mr_cvars_restore(r->cvars);
    r->cvars = NULL;
out:
    free(r->comms);
    free(r->sched);
    free(r->topo);
    free(r->wins);
    free(r->win_mem);
    free(r->reqs);
    free(r->counts);
    free(r->sbuf);
    free(r->rbuf);
}

void rt_mpirun_recorded(const rt_mpirun *m, uint64_t *messages, uint64_t *bytes)
{
    *messages = m->rec_messages;
    *bytes = m->rec_bytes;
}
