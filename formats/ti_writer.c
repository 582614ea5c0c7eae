/*
 * Writer of SimGrid time-independent (TI) traces, for SimGrid 3.32's replay (smpirun -replay
 * INDEX): the index file at the path given, naming one action file per rank in the directory
 * PATH_files, one line "rank-N.txt" path per rank, relative to the index's directory.
 *
 * Calls become actions (docs/ti.md); the time between leaving one call and entering the next
 * becomes `compute`, time inside calls is left to the simulator. Sizes are bytes of the
 * default datatype MPI_BYTE (each file starts with a bare `init`). What TI cannot say
 * (communicators other than MPI_COMM_WORLD, one-sided communication, nonblocking
 * collectives, cancelled requests) is refused, naming the first such event. A call that never
 * returned (a pending call) ends its rank's actions as the action it was, after a comment
 * line; one waiting for a receive from any source, which no TI action names, is left out,
 * with the comment saying why.
 *
 * Events of different ranks may interleave, so each rank's text is buffered and appended to
 * its file when it grows (one file open at a time). An Irecv line needs the source, tag and
 * size that only its completion tells: until then it is a hole in the rank's text, and the
 * text after it waits too.
 *
 * This file translates events into actions, keeps each rank's open requests, and opens and
 * closes the trace; ti_writer_coll.c writes the collective actions, ti_writer_text.c the
 * ranks' text and their files (rt__ti_write.h).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rt__ti_write.h"

#define BUDGET (64u << 20) /* all ranks' text together: everything is written out past it */

/* ---- requests ------------------------------------------------------------------------------- */

static int open_req(rt_writer *w, rt__tiw_rank *k, rt__tiw_req q, rt_err *err)
{
    if (RT_VEC_RESERVE(k->reqs, k->reqcap, (uint64_t)k->nreqs + 1, 16) < 0)
        return rt__tiw_no_memory(w, err);
    k->reqs[k->nreqs++] = q;
    return 0;
}

static rt__tiw_req *find_req(rt__tiw_rank *k, uint64_t id)
{
    for (size_t i = 0; i < k->nreqs; i++)
        if (k->reqs[i].id == id)
            return &k->reqs[i];
    return NULL;
}

/* Completes the request of a completion event: fills in its Irecv line, and gives SimGrid's
 * key (source, destination, tag) of the request. */
static int complete(rt_writer *w, const rt_event *ev, int32_t key[3], rt_err *err)
{
    rt__ti_writer *tw = w->impl;
    rt__tiw_rank *k = &tw->ranks[ev->rank];
    rt__tiw_req *q = find_req(k, ev->req);
    if (!q)
        return rt__tiw_refuse(w, ev, err, "request %" PRIu64 " was never started in this trace",
                              ev->req);
    if (q->recv != (ev->kind == RT_EV_IRECV))
        return rt__tiw_refuse(w, ev, err, "request %" PRIu64 " is not a%s", ev->req,
                              q->recv ? " receive" : " send");
    if (q->recv) {
        rt__tiw_hold *o = &k->holds[q->hold - k->hold_base];
        o->peer = ev->peer;
        o->tag = ev->tag;
        o->bytes = ev->bytes;
        o->state = RT__TIW_HOLD_DONE;
        key[0] = ev->peer, key[1] = (int32_t)ev->rank, key[2] = ev->tag;
    } else {
        key[0] = (int32_t)ev->rank, key[1] = q->peer, key[2] = q->tag;
    }
    *q = k->reqs[--k->nreqs];
    return 0;
}

/* ---- translation ---------------------------------------------------------------------------- */

static int is_completion(const rt_event *ev)
{
    return ev->kind == RT_EV_ISEND_COMPLETE || ev->kind == RT_EV_IRECV;
}

static int send_or_recv(rt_writer *w, const rt_event *ev, rt_err *err)
{
    return rt__tiw_action(w, ev->rank, err, "%s %d %d %" PRIu64,
                          ev->kind == RT_EV_SEND ? "send" : "recv", (int)ev->peer, (int)ev->tag,
                          ev->bytes);
}

/* Sendrecv: SimGrid's sendRecv uses tag 0 both ways, so other tags become an Isend, an
 * Irecv and two waits, which keep them. */
static int sendrecv(rt_writer *w, const rt_event *s, const rt_event *v, rt_err *err)
{
    uint32_t r = s->rank;
    int rc;
    if (s->tag == 0 && v->tag == 0) {
        if ((rc = rt__tiw_int_count(w, s, s->bytes, err)) ||
            (rc = rt__tiw_int_count(w, v, v->bytes, err)))
            return rc;
        return rt__tiw_action(w, r, err,
                              "sendRecv %" PRIu64 " %d %" PRIu64 " %d " RT__TI_TYPE_BYTE
                              " " RT__TI_TYPE_BYTE,
                              s->bytes, (int)s->peer, v->bytes, (int)v->peer);
    }
    if ((rc = rt__tiw_action(w, r, err, "isend %d %d %" PRIu64, (int)s->peer, (int)s->tag,
                             s->bytes)) ||
        (rc = rt__tiw_action(w, r, err, "irecv %d %d %" PRIu64, (int)v->peer, (int)v->tag,
                             v->bytes)) ||
        (rc = rt__tiw_action(w, r, err, "wait %u %d %d", (unsigned)r, (int)s->peer, (int)s->tag)))
        return rc;
    return rt__tiw_action(w, r, err, "wait %d %u %d", (int)v->peer, (unsigned)r, (int)v->tag);
}

static int one_event(rt_writer *w, const rt_event *ev, rt_err *err)
{
    rt__ti_writer *tw = w->impl;
    uint32_t r = ev->rank;
    rt__tiw_rank *k = &tw->ranks[r];
    int rc;
    switch (ev->kind) {
    case RT_EV_SEND:
    case RT_EV_RECV:
        return send_or_recv(w, ev, err);
    case RT_EV_ISEND:
        if ((rc = open_req(w, k, (rt__tiw_req){.id = ev->req, .peer = ev->peer, .tag = ev->tag},
                           err)))
            return rc;
        return rt__tiw_action(w, r, err, "isend %d %d %" PRIu64, (int)ev->peer, (int)ev->tag,
                              ev->bytes);
    case RT_EV_IRECV_REQUEST:
        if (find_req(k, ev->req))
            return rt__tiw_refuse(w, ev, err, "request %" PRIu64 " is already open", ev->req);
        if ((rc = rt__tiw_idle(w, r, err)))
            return rc;
        if (RT_VEC_RESERVE(k->holds, k->holdcap, (uint64_t)k->nholds + 1, 16) < 0)
            return rt__tiw_no_memory(w, err);
        k->holds[k->nholds] = (rt__tiw_hold){.off = k->len, .state = RT__TIW_HOLD_OPEN};
        uint64_t seq = k->hold_base + k->nholds++;
        return open_req(w, k, (rt__tiw_req){.id = ev->req, .hold = seq, .recv = 1}, err);
    case RT_EV_ISEND_COMPLETE:
    case RT_EV_IRECV: {
        int32_t key[3];
        if ((rc = complete(w, ev, key, err)))
            return rc;
        return rt__tiw_action(w, r, err, "wait %d %d %d", (int)key[0], (int)key[1], (int)key[2]);
    }
    case RT_EV_COLL_END:
        return rt__tiw_coll_action(w, ev, NULL, 0, err);
    default: /* COLL_BEGIN; the rest was refused on arrival */
        return 0;
    }
}

static int is_fn(unsigned fn, unsigned a, unsigned b)
{
    return fn == a || fn == b;
}

/* A call is over: its actions. */
static int translate(rt_writer *w, uint32_t r, unsigned fn, const rt_event *evs, size_t n,
                     rt_err *err)
{
    rt__ti_writer *tw = w->impl;
    rt__tiw_rank *k = &tw->ranks[r];
    int rc;
    if (fn == RT_FN_Finalize)
        return rt__tiw_action(w, r, err, "finalize");
    if (is_fn(fn, RT_FN_Comm_split, RT_FN_Comm_split_type))
        return rt__tiw_action(w, r, err, "comm_split");
    if (is_fn(fn, RT_FN_Comm_dup, RT_FN_Comm_dup_with_info) ||
        is_fn(fn, RT_FN_Comm_idup, RT_FN_Comm_idup_with_info))
        return rt__tiw_action(w, r, err, "comm_dup");
    if (is_fn(fn, RT_FN_Sendrecv, RT_FN_Sendrecv_replace) ||
        is_fn(fn, RT_FN_Sendrecv_c, RT_FN_Sendrecv_replace_c)) {
        const rt_event *s = NULL, *v = NULL;
        for (size_t i = 0; i < n; i++)
            if (evs[i].kind == RT_EV_SEND && !s)
                s = &evs[i];
            else if (evs[i].kind == RT_EV_RECV && !v)
                v = &evs[i];
        if (s && v) {
            if ((rc = sendrecv(w, s, v, err)))
                return rc;
            for (size_t i = 0; i < n; i++)
                if (&evs[i] != s && &evs[i] != v && (rc = one_event(w, &evs[i], err)))
                    return rc;
            return 0;
        }
    }
    /* A Waitall that completes every open request: SimGrid's waitall says just that. */
    if (fn == RT_FN_Waitall && n > 0 && n == k->nreqs) {
        size_t i = 0;
        while (i < n && is_completion(&evs[i]) && find_req(k, evs[i].req))
            i++;
        if (i == n) {
            int32_t key[3];
            for (i = 0; i < n; i++)
                if ((rc = complete(w, &evs[i], key, err)))
                    return rc;
            return rt__tiw_action(w, r, err, "waitall");
        }
    }
    for (size_t i = 0; i < n; i++) {
        size_t rows = 0; /* a v collective's per-peer counts come right after its end */
        while (evs[i].kind == RT_EV_COLL_END && i + 1 + rows < n &&
               evs[i + 1 + rows].kind == RT_EV_COLL_PEER)
            rows++;
        rc = rows ? rt__tiw_coll_action(w, &evs[i], &evs[i + 1], rows, err)
                  : one_event(w, &evs[i], err);
        if (rc)
            return rc;
        i += rows;
    }
    return 0;
}

/* Refuses, on arrival, what no TI action can say. */
static int expressible(const rt_writer *w, const rt_event *ev, rt_err *err)
{
    unsigned k = ev->kind;
    if (rt_event_is_rma(k))
        return rt__tiw_refuse(w, ev, err, "SimGrid's TI format has no one-sided communication");
    if (k == RT_EV_NBC_REQUEST || k == RT_EV_NBC_COMPLETE)
        return rt__tiw_refuse(w, ev, err, "SimGrid 3.32's replay has no nonblocking collectives");
    if (k == RT_EV_REQUEST_CANCELLED)
        return rt__tiw_refuse(w, ev, err, "TI has no cancelled requests");
    if ((rt_event_kind_mask(k) & RT_FIELD_COMM) && ev->comm != RT_COMM_WORLD)
        return rt__tiw_refuse(w, ev, err,
                              "communicator %u is not MPI_COMM_WORLD: TI actions name world "
                              "ranks only",
                              (unsigned)ev->comm);
    return 0;
}

static int tw_write(rt_writer *w, const rt_event *ev, rt_err *err)
{
    rt__ti_writer *tw = w->impl;
    uint32_t r = ev->rank;
    rt__tiw_rank *k = &tw->ranks[r];
    int rc;
    if (!k->started && (rc = rt__tiw_start_rank(w, r, err)))
        return rc;
    if ((rc = expressible(w, ev, err)))
        return rc;
    switch (ev->kind) {
    case RT_EV_ENTER:
        if (k->depth++ == 0) {
            if (k->left)
                k->idle_ns += ev->time - k->last_leave;
            k->fn = ev->call;
            k->ncall = 0;
        }
        return 0;
    case RT_EV_LEAVE:
        if (k->depth == 0) /* a call whose start the trace lacks */
            return 0;
        if (--k->depth)
            return 0;
        k->last_leave = ev->time;
        k->left = 1;
        return translate(w, r, k->fn, k->call, k->ncall, err);
    default:
        if (k->depth == 0) /* outside any call: on its own */
            return translate(w, r, ev->call, ev, 1, err);
        if (RT_VEC_RESERVE(k->call, k->callcap, (uint64_t)k->ncall + 1, 16) < 0)
            return rt__tiw_no_memory(w, err);
        k->call[k->ncall++] = *ev;
        return 0;
    }
}

/* ---- opening, closing ----------------------------------------------------------------------- */

static void rank_free(rt__tiw_rank *k)
{
    free(k->buf);
    free(k->holds);
    free(k->reqs);
    free(k->call);
}

static void tw_free(rt_writer *w)
{
    rt__ti_writer *tw = w->impl;
    if (!tw)
        return;
    if (tw->index)
        fclose(tw->index);
    for (uint32_t r = 0; tw->ranks && r < w->defs.nranks; r++)
        rank_free(&tw->ranks[r]);
    free(tw->ranks);
    free(tw->blk);
    free(tw->dir);
    free(tw->name);
    free(tw);
    w->impl = NULL;
}

/* Removes what was written: the rank files, the directory, the index. */
static void tw_abort(rt_writer *w)
{
    rt__ti_writer *tw = w->impl;
    for (uint32_t r = 0; tw->ranks && r < w->defs.nranks; r++)
        if (tw->ranks[r].created) {
            char *p = rt__tiw_rank_file(tw, r);
            if (p)
                unlink(p);
            free(p);
        }
    if (tw->dir_made)
        rmdir(tw->dir);
    if (tw->index_made)
        unlink(w->path);
    tw_free(w);
}

/* The truncation note, as a comment SimGrid skips and retrace's reader reports. */
static int put_note(rt_writer *w, rt_err *err)
{
    rt__ti_writer *tw = w->impl;
    rt__tiw_rank *k = &tw->ranks[0];
    if (rt__tiw_append(w, k, "%s", RT__TRUNCATED_COMMENT))
        return rt__tiw_no_memory(w, err);
    for (const char *p = w->truncated; *p; p++)
        if (rt__tiw_append(w, k, "%c", *p == '\n' || *p == '\r' ? ' ' : *p))
            return rt__tiw_no_memory(w, err);
    if (rt__tiw_append(w, k, "\n"))
        return rt__tiw_no_memory(w, err);
    return rt__tiw_flush_rank(w, 0, err);
}

/*
 * A call that never returned (rt_event.h, "A pending call") ends its rank's actions as the
 * action it was, so that SimGrid's replay blocks where the run did; a comment line before it
 * says so. A receive from any source has no TI action (SimGrid's recv, irecv and wait name
 * the source): a call waiting for one is left out, and its comment says why. Returns 1 when
 * the rank has a pending call, 0 when not, < 0 on failure.
 */
static int pending_call(rt_writer *w, uint32_t r, rt_err *err)
{
    rt__ti_writer *tw = w->impl;
    rt__tiw_rank *k = &tw->ranks[r];
    size_t at = 0;
    while (at < k->ncall && k->call[at].kind != RT_EV_PENDING)
        at++;
    if (!k->depth || at == k->ncall)
        return 0;
    const rt_event *p = &k->call[at];
    int anysrc = 0;
    for (size_t i = at + 1; i < k->ncall; i++)
        anysrc |= (k->call[i].kind == RT_EV_RECV || k->call[i].kind == RT_EV_IRECV) &&
                  k->call[i].peer == RT_PEER_NONE;
    int rc = rt__tiw_idle(w, r, err);
    if (rc)
        return rc;
    if (rt__tiw_append(w, k, "# pending: %s at %" PRIu64 " ns never returned%s\n",
                       rt_func_name(p->call), p->time,
                       anysrc ? "; left out: it waits for a receive from any source, which TI "
                                "cannot say"
                              : ""))
        return rt__tiw_no_memory(w, err);
    if (!anysrc && (rc = translate(w, r, k->fn, k->call, k->ncall, err)))
        return rc;
    return 1;
}

static int finish(rt_writer *w, rt_err *err)
{
    rt__ti_writer *tw = w->impl;
    int rc;
    for (uint32_t r = 0; r < w->defs.nranks; r++) {
        rt__tiw_rank *k = &tw->ranks[r];
        if (!k->started && (rc = rt__tiw_start_rank(w, r, err)))
            return rc;
        int pending = pending_call(w, r, err);
        if (pending < 0)
            return pending;
        /* A call the trace's end cut short is left out, and so are the Irecv lines that never
         * learnt what they receive of a trace cut short or of a rank whose run did not finish
         * (it has a pending call). */
        for (size_t i = 0; i < k->nholds; i++) {
            if (k->holds[i].state != RT__TIW_HOLD_OPEN)
                continue;
            if (!w->truncated && !pending) {
                uint64_t id = 0;
                for (size_t j = 0; j < k->nreqs; j++)
                    if (k->reqs[j].recv && k->reqs[j].hold == k->hold_base + i)
                        id = k->reqs[j].id;
                return rt_err_set(err, RT_E_INVAL,
                                  "%s: rank %u: receive request %" PRIu64
                                  " never completes, so its source, tag and size (which a TI "
                                  "irecv needs) are unknown",
                                  w->path, (unsigned)r, id);
            }
            k->holds[i].state = RT__TIW_HOLD_DROP;
        }
        if ((rc = rt__tiw_flush_rank(w, r, err)))
            return rc;
    }
    if (w->truncated && (rc = put_note(w, err)))
        return rc;
    for (uint32_t r = 0; r < w->defs.nranks; r++)
        fprintf(tw->index, "%s/rank-%u.txt\n", tw->name, (unsigned)r);
    int bad = ferror(tw->index);
    errno = 0;
    int closed = fclose(tw->index);
    tw->index = NULL;
    if (closed != 0 || bad)
        return rt_err_set(err, RT_E_IO, "%s: write failed: %s", w->path,
                          strerror(errno ? errno : EIO));
    return 0;
}

static int tw_close(rt_writer *w, rt_err *err)
{
    int rc = finish(w, err);
    if (rc) {
        tw_abort(w);
        return rc;
    }
    tw_free(w);
    return 0;
}

static const rt__writer_ops ti_writer_ops = {
    .write = tw_write,
    .close = tw_close,
    .abort = tw_abort,
};

int rt__ti_create(rt_writer *w, rt_err *err)
{
    double flops;
    int rc = rt__ti_flop_rate(&flops, err);
    if (rc)
        return rc;
    size_t n = strlen(w->path);
    if (n == 0 || w->path[n - 1] == '/')
        return rt_err_set(err, RT_E_INVAL, "%s: a TI index is a file: give its name", w->path);
    struct stat st;
    if (stat(w->path, &st) == 0)
        return rt_err_set(err, RT_E_INVAL,
                          "%s: already exists (remove it or choose another "
                          "name)",
                          w->path);
    rt__ti_writer *tw = calloc(1, sizeof *tw);
    if (!tw || !(tw->dir = malloc(n + sizeof "_files")) ||
        !(tw->ranks = calloc(w->defs.nranks, sizeof *tw->ranks))) {
        if (tw)
            free(tw->dir);
        free(tw);
        return rt__tiw_no_memory(w, err);
    }
    snprintf(tw->dir, n + sizeof "_files", "%s_files", w->path);
    const char *slash = strrchr(tw->dir, '/');
    tw->flops = flops;
    tw->budget = BUDGET;
    w->ops = &ti_writer_ops;
    w->impl = tw;
    if (!(tw->name = strdup(slash ? slash + 1 : tw->dir))) {
        tw_free(w);
        return rt__tiw_no_memory(w, err);
    }
    if (stat(tw->dir, &st) == 0) {
        rc = rt_err_set(err, RT_E_INVAL,
                        "%s: already exists (remove it or choose another "
                        "name)",
                        tw->dir);
        tw_free(w);
        return rc;
    }
    int fd = open(w->path, O_WRONLY | O_CREAT | O_EXCL, 0666);
    if (fd < 0 || !(tw->index = fdopen(fd, "wb"))) {
        rc = rt_err_set(err, RT_E_IO, "%s: %s", w->path, strerror(errno));
        if (fd >= 0) {
            close(fd);
            unlink(w->path);
        }
        tw_free(w);
        return rc;
    }
    tw->index_made = 1;
    if (mkdir(tw->dir, 0777) != 0) {
        rc = rt_err_set(err, RT_E_IO, "%s: %s", tw->dir, strerror(errno));
        tw_abort(w);
        return rc;
    }
    tw->dir_made = 1;
    return 0;
}

int rt__ti_remove_files(const char *index, rt_err *err)
{
    size_t n = strlen(index) + sizeof "_files";
    char *dir = malloc(n);
    if (!dir)
        return rt_err_set(err, RT_E_NOMEM, "%s: out of memory", index);
    snprintf(dir, n, "%s_files", index);
    DIR *d = opendir(dir);
    if (!d) {
        free(dir);
        return 0; /* no rank files: nothing to do */
    }
    struct dirent *e;
    while ((e = readdir(d))) {
        unsigned r;
        char tail[8];
        /* only what the writer makes: rank-N.txt */
        if (sscanf(e->d_name, "rank-%u%7s", &r, tail) == 2 && !strcmp(tail, ".txt")) {
            size_t m = strlen(dir) + strlen(e->d_name) + 2;
            char *p = malloc(m);
            if (p) {
                snprintf(p, m, "%s/%s", dir, e->d_name);
                unlink(p);
                free(p);
            }
        }
    }
    closedir(d);
    int rc = rmdir(dir) == 0 ? 1
                             : rt_err_set(err, RT_E_INVAL,
                                          "%s: holds other files than a TI trace's rank files: "
                                          "left as it is",
                                          dir);
    free(dir);
    return rc;
}
