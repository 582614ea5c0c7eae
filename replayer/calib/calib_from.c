/*
 * retrace calibrate --from TRACE: the network model fitted to a recorded run's own timings,
 * no MPI run needed (docs/calibrate.md, "A model from a trace").
 *
 * Point-to-point messages are matched sender to receiver: per (communicator, source,
 * destination, tag, partitioned or not), the k-th send goes to the k-th receive the destination
 * posted (MPI's non-overtaking rule; a wildcard receive takes the source and tag its status gave).
 * A message whose receiver was already waiting (its Recv, or the call that completed its Irecv,
 * entered before the send started) gives a one-way time: the receive's completion less the
 * send's start, what the model charges as o + wire + o for an eager message (the same
 * quantity the mpiexec form measures with ping-pongs). Per connection type the times are
 * grouped by size, each size's median is a point, and the points are fitted as rt_calib_fit_link
 * fits measured ones; the overhead o is the median time of the trace's Isend calls of that
 * connection type (else the base model's).
 *
 * Blocking collectives give the [calls] costs (calib_from_coll.c), after the links.
 *
 * Times of different ranks are compared, so the ranks' clocks must agree: the tracer's
 * CLOCK_MONOTONIC agrees on one host; across hosts only as well as their clocks do.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt__calib.h"
#include "rt_calib_from.h"
#include "rt_hash.h"
#include "rt_trace.h"
#include "rt_vec.h"

/* One side of a message: what matching needs and what the sample needs. */
typedef struct side {
    uint32_t comm, src, dst; /* src and dst: world ranks */
    int32_t tag;
    uint64_t order; /* send: its start; receive: when it was posted (program order) */
    uint64_t t;     /* send: its start; receive: its completion */
    uint64_t wait;  /* receive: when the call that completed it was entered */
    uint64_t bytes;
    uint8_t ct;   /* send: its connection type */
    uint8_t part; /* rt_event_partitioned: MPI pairs those only with each other */
} side;

typedef struct rank_state {
    uint64_t enter;   /* the current call's entry time */
    uint16_t call;    /* and its function */
    uint32_t nsends;  /* Isend events in the current call */
    uint8_t isend_ct; /* the connection type of the last one */
    uint8_t in_ops;   /* rt_pending_op */
} rank_state;

typedef struct from_state {
    const rt_defs *defs;
    rank_state *ranks;
    uint8_t *shared; /* per rank: its host had more ranks than CPUs (rt_rank_host); or NULL */
    side *sends, *recvs;
    size_t nsends, sends_room, nrecvs, recvs_room;
    rt_hmap posted;                  /* (rank, request) -> time the Irecv was posted */
    uint64_t *isend_ps[RT_CT_COUNT]; /* durations of Isend calls, per connection type */
    size_t nisend[RT_CT_COUNT], isend_room[RT_CT_COUNT];
    calib_colls *colls; /* the blocking collectives (calib_from_coll.c) */
} from_state;

static int side_cmp(const void *a, const void *b)
{
    const side *x = a, *y = b;
    if (x->comm != y->comm)
        return x->comm < y->comm ? -1 : 1;
    if (x->src != y->src)
        return x->src < y->src ? -1 : 1;
    if (x->dst != y->dst)
        return x->dst < y->dst ? -1 : 1;
    if (x->tag != y->tag)
        return x->tag < y->tag ? -1 : 1;
    if (x->part != y->part)
        return x->part < y->part ? -1 : 1;
    return x->order < y->order ? -1 : x->order > y->order;
}

static int add_side(side **v, size_t *n, size_t *room, const side *s)
{
    if (RT_VEC_RESERVE(*v, *room, (uint64_t)*n + 1, 256) < 0)
        return -RT_E_NOMEM;
    (*v)[(*n)++] = *s;
    return 0;
}

/* The world ranks of a point-to-point event's two ends; -1 when the peer is unknown. */
static int ends(const from_state *s, const rt_event *ev, uint32_t *peer)
{
    int64_t w = ev->peer >= 0 ? rt_defs_peer_world(s->defs, ev) : -1;
    if (w < 0)
        return -1;
    *peer = (uint32_t)w;
    return 0;
}

static int on_call(from_state *s, const rt_event *ev)
{
    rank_state *r = &s->ranks[ev->rank];
    if (ev->kind == RT_EV_ENTER) {
        r->enter = ev->time;
        r->call = ev->call;
        r->nsends = 0;
        return 0;
    }
    /* an Isend alone in its call: its time is the per-message overhead o of a send */
    if ((ev->call == RT_FN_Isend || ev->call == RT_FN_Isend_c) && r->call == ev->call &&
        r->nsends == 1 && ev->time >= r->enter) {
        unsigned ct = r->isend_ct < RT_CT_COUNT ? r->isend_ct : RT_CT_NONE;
        if (RT_VEC_RESERVE(s->isend_ps[ct], s->isend_room[ct], (uint64_t)s->nisend[ct] + 1, 64))
            return -RT_E_NOMEM;
        s->isend_ps[ct][s->nisend[ct]++] = rt_mul_sat(ev->time - r->enter, 1000);
    }
    return 0;
}

static int on_event(from_state *s, const rt_event *ev)
{
    rank_state *r = &s->ranks[ev->rank];
    uint32_t peer;
    side x = {.comm = ev->comm,
              .tag = ev->tag,
              .bytes = ev->bytes,
              .t = ev->time,
              .part = (uint8_t)rt_event_partitioned(ev)};
    int created;
    uint64_t *v;
    if (rt_pending_op(&r->in_ops, ev))
        return 0; /* what a call that never returned waited for: no message went */
    switch (ev->kind) {
    case RT_EV_ENTER:
    case RT_EV_LEAVE:
        if (on_call(s, ev) < 0)
            return -RT_E_NOMEM;
        return calib_colls_event(s->colls, ev, r->enter);
    case RT_EV_COLL_END:
        return calib_colls_event(s->colls, ev, r->enter);
    case RT_EV_SEND:
    case RT_EV_ISEND:
        if (ends(s, ev, &peer))
            return 0;
        if (ev->kind == RT_EV_ISEND) {
            r->nsends++;
            r->isend_ct = ev->contype;
        }
        x.src = ev->rank, x.dst = peer, x.order = ev->time, x.ct = ev->contype;
        return add_side(&s->sends, &s->nsends, &s->sends_room, &x);
    case RT_EV_IRECV_REQUEST:
        if (!(v = rt_hmap_put(&s->posted, ev->rank, ev->req, &created)))
            return -RT_E_NOMEM;
        *v = ev->time;
        return 0;
    case RT_EV_RECV:
    case RT_EV_IRECV:
        if (ends(s, ev, &peer))
            return 0; /* a receive that never completed (a pending call's) */
        x.src = peer, x.dst = ev->rank, x.wait = r->enter, x.order = r->enter;
        if (ev->kind == RT_EV_IRECV) {
            if (!(v = rt_hmap_get(&s->posted, ev->rank, ev->req)))
                return 0;
            x.order = *v;
            rt_hmap_del(&s->posted, ev->rank, ev->req);
        }
        return add_side(&s->recvs, &s->nrecvs, &s->recvs_room, &x);
    default:
        return 0;
    }
}

/* ---- samples --------------------------------------------------------------------------------- */

/* Adds one-way time t (ps) of a message of n bytes to connection type ct's points: pts hold
 * a size each; times are kept per size in a growing list, the median taken later. */
typedef struct size_times {
    uint64_t bytes;
    uint64_t *ps;
    size_t n, room;
} size_times;

typedef struct ct_times {
    size_times *sizes;
    size_t n, room;
    uint64_t samples;
} ct_times;

static int sample(ct_times *c, uint64_t bytes, uint64_t ps)
{
    size_t i = 0;
    while (i < c->n && c->sizes[i].bytes != bytes)
        i++;
    if (i == c->n) {
        if (c->n >= RT_CALIB_MAX_POINTS)
            return 0; /* more sizes than a fit takes: the first ones found */
        if (RT_VEC_RESERVE(c->sizes, c->room, (uint64_t)c->n + 1, 16) < 0)
            return -RT_E_NOMEM;
        c->sizes[c->n++] = (size_times){.bytes = bytes};
    }
    size_times *st = &c->sizes[i];
    if (RT_VEC_RESERVE(st->ps, st->room, (uint64_t)st->n + 1, 16) < 0)
        return -RT_E_NOMEM;
    st->ps[st->n++] = ps;
    c->samples++;
    return 0;
}

/* Pairs sends and receives key by key, in order, and samples the messages whose receiver
 * was waiting. */
static int match(from_state *s, ct_times *cts, rt_calib_from_result *res)
{
    if (s->nsends) /* qsort wants an array, even of none */
        qsort(s->sends, s->nsends, sizeof *s->sends, side_cmp);
    if (s->nrecvs)
        qsort(s->recvs, s->nrecvs, sizeof *s->recvs, side_cmp);
    size_t i = 0, j = 0;
    while (i < s->nsends && j < s->nrecvs) {
        const side *a = &s->sends[i], *b = &s->recvs[j];
        side ka = *a, kb = *b; /* compare keys only */
        ka.order = kb.order = 0;
        int c = side_cmp(&ka, &kb);
        if (c) {
            c < 0 ? i++ : j++;
            continue;
        }
        res->messages++;
        if (s->shared && (s->shared[a->src] || s->shared[b->dst])) {
            res->shared++; /* its time holds waits for a CPU, not the network */
        } else if (b->wait <= a->t && b->t >= a->t) {
            res->waiting++;
            unsigned ct = a->ct < RT_CT_COUNT ? a->ct : RT_CT_NONE;
            if (sample(&cts[ct], a->bytes, rt_mul_sat(b->t - a->t, 1000)) < 0)
                return -RT_E_NOMEM;
        }
        i++, j++;
    }
    return 0;
}

/* The ranks whose host had more ranks than CPUs they could run on (the trace's hosts): NULL
 * when the trace names no host or none was shared, else a new array. -RT_E_NOMEM. */
static int shared_ranks(const rt_defs *d, uint8_t **out)
{
    *out = NULL;
    if (!d->nhosts)
        return 0;
    uint32_t *cpus = malloc((size_t)d->nhosts * sizeof *cpus);
    uint32_t *ranks = calloc(d->nhosts, sizeof *ranks);
    uint8_t *shared = calloc(d->nranks, 1);
    int rc = cpus && ranks && shared ? rt_defs_host_cpus(d, cpus) : -RT_E_NOMEM;
    int any = 0;
    for (uint32_t r = 0; !rc && r < d->nranks; r++)
        if (d->rank_host[r].host != RT_ID_NONE)
            ranks[d->rank_host[r].host]++;
    for (uint32_t r = 0; !rc && r < d->nranks; r++) {
        uint32_t h = d->rank_host[r].host;
        shared[r] = h != RT_ID_NONE && ranks[h] > cpus[h];
        any |= shared[r];
    }
    free(cpus);
    free(ranks);
    if (rc || !any)
        free(shared);
    else
        *out = shared;
    return rc;
}

static uint64_t median(uint64_t *v, size_t n)
{
    if (!n)
        return 0;
    qsort(v, n, sizeof *v, rt_cmp_u64);
    return v[(n - 1) / 2];
}

/* When the sizes cannot give a bandwidth (one size, or times that do not grow with the size):
 * the latency alone, from the size with the most samples, the rates kept. Only an eager size
 * qualifies (a rendezvous one mixes in the handshake). 0, or -1 when none does. */
static int latency_only(const ct_times *c, unsigned ct, rt_net_model *m, rt_calib_from_result *res)
{
    rt_calib_link *l = &res->link[ct];
    size_t best = c->n;
    for (size_t i = 0; i < c->n; i++)
        if (c->sizes[i].bytes <= m->link[ct].eager &&
            (best == c->n || c->sizes[i].n > c->sizes[best].n))
            best = i;
    if (best == c->n)
        return -1;
    uint64_t n = c->sizes[best].bytes, t = l->pts[best].time_ps;
    rt_net_model at = *m;
    at.link[ct].latency_ps = 0;
    uint64_t base = rt_calib_model_oneway(&at, ct, n);
    at.link[ct].latency_ps = 1000;
    uint64_t per_ns = rt_calib_model_oneway(&at, ct, n) - base; /* ps per ns of latency */
    uint64_t lat_ns = t > base && per_ns ? (t - base) / per_ns : 0;
    m->link[ct].latency_ps = lat_ns * 1000;
    res->latency_only[ct] = 1;
    res->latency_bytes[ct] = n;
    for (uint32_t i = 0; i < l->npts; i++)
        l->pts[i].model_ps = rt_calib_model_oneway(m, ct, l->pts[i].bytes);
    return 0;
}

/* Connection type ct's points and fit. */
static void fit_ct(from_state *s, ct_times *c, unsigned ct, rt_net_model *m,
                   rt_calib_from_result *res)
{
    rt_calib_link *l = &res->link[ct];
    l->measured = c->samples > 0;
    l->npts = 0;
    for (size_t i = 0; i < c->n; i++) {
        uint64_t med = median(c->sizes[i].ps, c->sizes[i].n);
        l->pts[l->npts++] =
            (rt_calib_point){.bytes = c->sizes[i].bytes, .time_ps = med, .median_ps = med};
    }
    res->samples[ct] = c->samples;
    if (!l->measured)
        return;
    uint64_t o = m->link[ct].overhead_ps;
    if (s->nisend[ct] >= 3) { /* o from the trace, when it has enough Isend calls */
        l->o_send_ps = median(s->isend_ps[ct], s->nisend[ct]);
        m->link[ct].overhead_ps = (l->o_send_ps + 500) / 1000 * 1000; /* whole ns */
        res->isends[ct] = s->nisend[ct];
    }
    rt_err err;
    if (rt_calib_fit_link(m, ct, l->pts, l->npts, &l->fit, &err) < 0) {
        size_t len = strnlen(err.msg, sizeof l->error - 1);
        memcpy(l->error, err.msg, len);
        l->error[len] = '\0';
        if (latency_only(c, ct, m, res) < 0) {
            m->link[ct].overhead_ps = o;
            l->measured = 0;
            return;
        }
    }
    l->fitted = m->link[ct];
}

int rt_calib_from(const char *path, rt_net_model *m, rt_calib_from_result *res, rt_err *err)
{
    memset(res, 0, sizeof *res);
    snprintf(res->trace, sizeof res->trace, "%s", path);
    rt_reader *r;
    int rc = rt_reader_open(path, &r, err);
    if (rc < 0)
        return rc;
    from_state s = {.defs = rt_reader_defs(r)};
    ct_times cts[RT_CT_COUNT];
    memset(cts, 0, sizeof cts);
    res->nranks = s.defs->nranks;
    s.ranks = calloc(s.defs->nranks, sizeof *s.ranks);
    rc = s.ranks ? 0 : -RT_E_NOMEM;
    if (!rc)
        rc = shared_ranks(s.defs, &s.shared);
    if (!rc)
        rc = calib_colls_new(&s.colls, s.defs->nranks);
    rt_event ev;
    int got;
    while (!rc && (got = rt_reader_next(r, &ev, err)) > 0)
        rc = on_event(&s, &ev);
    if (!rc && got < 0)
        rc = got; /* the reader's error, in err already */
    else if (!rc && (rc = match(&s, cts, res)) == 0)
        for (unsigned ct = RT_CT_NONE + 1; ct < RT_CT_COUNT; ct++)
            fit_ct(&s, &cts[ct], ct, m, res);
    if (!rc) /* after the links: the engine replays the collectives with them */
        rc = calib_colls_fit(s.colls, s.defs, s.shared, m, res);
    if (!rc && rt_reader_truncated(r))
        snprintf(res->truncated, sizeof res->truncated, "%s", rt_reader_truncated(r));
    for (unsigned ct = 0; ct < RT_CT_COUNT; ct++) {
        for (size_t i = 0; i < cts[ct].n; i++)
            free(cts[ct].sizes[i].ps);
        free(cts[ct].sizes);
        free(s.isend_ps[ct]);
    }
    calib_colls_free(s.colls);
    free(s.shared);
    free(s.ranks);
    free(s.sends);
    free(s.recvs);
    rt_hmap_free(&s.posted);
    rt_reader_close(r);
    if (rc == -RT_E_NOMEM)
        return rt_err_set(err, RT_E_NOMEM, "%s: out of memory", path);
    return rc;
}

/* ---- the model file ----------------------------------------------------------------------------
 */

static void link_note(const rt_calib_from_result *res, unsigned ct, const char *base, calib_note *t)
{
    const rt_calib_link *l = &res->link[ct];
    if (!l->measured) {
        if (l->error[0])
            calib_note_add(t, "not fitted: %" PRIu64 " samples, but %s; values from %s",
                           res->samples[ct], l->error, base);
        else
            calib_note_add(
                t, "not in the trace (no message with a waiting receiver); values from %s", base);
        return;
    }
    uint64_t lo = l->pts[0].bytes, hi = lo;
    for (uint32_t i = 0; i < l->npts; i++) {
        lo = l->pts[i].bytes < lo ? l->pts[i].bytes : lo;
        hi = l->pts[i].bytes > hi ? l->pts[i].bytes : hi;
    }
    calib_note_add(
        t, "fitted to %" PRIu64 " messages of the trace whose receiver was already waiting, ",
        res->samples[ct]);
    if (l->npts == 1)
        calib_note_add(t, "all of %" PRIu64 " bytes: their median one-way time\n", lo);
    else
        calib_note_add(t,
                       "%u sizes from %" PRIu64 " to %" PRIu64 " bytes: each size's median one-way "
                       "time\n",
                       (unsigned)l->npts, lo, hi);
    if (res->isends[ct])
        calib_note_add(t, "overhead: the median of %" PRIu64 " MPI_Isend calls of the trace\n",
                       res->isends[ct]);
    else
        calib_note_add(t, "overhead: from %s (fewer than 3 MPI_Isend calls in the trace)\n", base);
    calib_note_add(t, "gap, eager: from %s\n", base);
    if (res->latency_only[ct])
        calib_note_add(t,
                       "latency only, from the %" PRIu64 "-byte messages (%s); bandwidth, "
                       "eager_bandwidth, rendezvous: from %s",
                       res->latency_bytes[ct], l->error, base);
    else
        calib_note_add(t, "fit error: median %.1f%%, max %.1f%% (at %" PRIu64 " bytes)",
                       100 * l->fit.err_median, 100 * l->fit.err_max, l->fit.err_max_at);
}

/* The comment of [calls]: where the collectives' costs came from. 0 when none was fitted. */
static int calls_note(const rt_calib_from_result *res, const char *base, calib_note *t)
{
    if (!res->ncalls)
        return 0;
    calib_note_add(t, "CPU time of a call beyond its messages, fixed + n / rate (n: the call's "
                      "bytes), fitted to the trace's blocking collectives with every rank there: "
                      "per instance, the time from the last rank's entry to the last rank's exit "
                      "less the engine's for the same call (the links above, no call costs); each "
                      "size's median a point, a line through the points when the cost grows with "
                      "the size, else their median:\n");
    for (unsigned i = 0; i < res->ncalls; i++) {
        const rt_calib_from_call *c = &res->calls[i];
        char me[32], en[32];
        rt_net_format_time(c->measured_ps, me, sizeof me);
        rt_net_format_time(c->engine_ps, en, sizeof en);
        char sizes[96];
        if (c->sizes == 1)
            snprintf(sizes, sizeof sizes, "%" PRIu64 " bytes", c->lo);
        else
            snprintf(sizes, sizeof sizes, "%u sizes from %" PRIu64 " to %" PRIu64 " bytes",
                     (unsigned)c->sizes, c->lo, c->hi);
        calib_note_add(t,
                       "  %s: %" PRIu64 " calls of %s; at %" PRIu64 " bytes %s recorded, %s "
                       "engine%s\n",
                       rt_func_name(c->fn), c->calls, sizes, c->at, me, en,
                       c->measured_ps < c->engine_ps ? " (longer: no cost there)" : "");
    }
    calib_note_add(t, "the other calls: from %s", base);
    return 1;
}

int rt_calib_from_write(const rt_calib_from_result *res, const rt_net_model *m, const char *base,
                        FILE *out)
{
    calib_note notes[RT_CT_COUNT];
    const char *text[RT_CT_COUNT + 1] = {0};
    memset(notes, 0, sizeof notes);
    calib_note_add(&notes[RT_CT_NONE],
                   "fitted by retrace calibrate --from %s (%u ranks): %" PRIu64
                   " point-to-point messages matched, %" PRIu64
                   " with the receiver already waiting\n",
                   res->trace, (unsigned)res->nranks, res->messages, res->waiting);
    if (res->shared)
        calib_note_add(&notes[RT_CT_NONE],
                       "%" PRIu64 " messages left out: sender or receiver shared its host's CPUs "
                       "with more ranks (the trace's hosts), so their times hold waits for a "
                       "CPU\n",
                       res->shared);
    calib_note_add(&notes[RT_CT_NONE],
                   "one-way time: the receive's completion less the send's start, on the trace's "
                   "clocks (the ranks' clocks must agree)\n");
    if (res->coll_used || res->coll_shared || res->coll_other || res->coll_failed)
        calib_note_add(&notes[RT_CT_NONE],
                       "blocking collectives: %" PRIu64
                       " gave call costs ([calls]); left out: %" PRIu64
                       " with a rank that shared its host's CPUs, %" PRIu64
                       " of other kinds (per-peer counts, neighbour lists, inter-communicators, a "
                       "rank missing), %" PRIu64 " the engine could not replay\n",
                       res->coll_used, res->coll_shared, res->coll_other, res->coll_failed);
    if (res->truncated[0])
        calib_note_add(&notes[RT_CT_NONE], "the trace is cut short: %s\n", res->truncated);
    calib_note_add(&notes[RT_CT_NONE], "the keys not fitted: from %s", base);
    text[RT_CT_NONE] = notes[RT_CT_NONE].s;
    for (unsigned ct = RT_CT_NONE + 1; ct < RT_CT_COUNT; ct++) {
        link_note(res, ct, base, &notes[ct]);
        text[ct] = notes[ct].s;
    }
    calib_note calls = {.len = 0};
    if (calls_note(res, base, &calls))
        text[RT_CT_COUNT] = calls.s;
    return rt_net_model_write_notes(m, text, out);
}
