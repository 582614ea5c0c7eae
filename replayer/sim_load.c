/*
 * Loading a trace for replay: every rank's events in memory, then prepared so that the
 * engine never has to look ahead or resolve anything while it runs:
 *  - peers become world ranks (point-to-point and RMA targets);
 *  - a nonblocking receive is posted with the source, tag and size that its completion
 *    recorded, and a nonblocking collective with the op and sizes of its completion;
 *  - request ids become small per-rank slot numbers (reused once a request completes), so
 *    the engine keeps a short array per rank instead of a map;
 *  - what cannot be replayed is marked SIM_EV_SKIP and counted in the notes: a receive or
 *    nonblocking collective that never completed (its source or op is unknown), a completion
 *    whose request was never started, a cancelled request (it matched nothing).
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "rt__sim.h"

void sim_trace_note(rt_sim_trace *t, const char *fmt, ...)
{
    char line[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n >= sizeof line)
        n = sizeof line - 1;
    if (t->notes_len + (size_t)n + 2 > t->notes_cap) {
        size_t cap = (t->notes_cap ? t->notes_cap * 2 : 256) + (size_t)n + 2;
        char *p = realloc(t->notes, cap);
        if (!p)
            return;
        t->notes = p;
        t->notes_cap = cap;
    }
    memcpy(t->notes + t->notes_len, line, (size_t)n);
    t->notes_len += (size_t)n;
    t->notes[t->notes_len++] = '\n';
    t->notes[t->notes_len] = '\0';
}

static int is_post(unsigned k)
{
    return k == RT_EV_ISEND || k == RT_EV_IRECV_REQUEST || k == RT_EV_NBC_REQUEST ||
           k == RT_EV_RMA_PUT || k == RT_EV_RMA_GET || k == RT_EV_RMA_ATOMIC;
}

static int is_completion(unsigned k)
{
    return k == RT_EV_ISEND_COMPLETE || k == RT_EV_IRECV || k == RT_EV_NBC_COMPLETE ||
           k == RT_EV_RMA_OP_COMPLETE || k == RT_EV_REQUEST_CANCELLED;
}

typedef struct load_counts {
    uint64_t irecv_open, nbc_open, orphan, cancelled;
} load_counts;

#define LINKED (1ULL << 63)

/* Pass 1: link completions to their posts (copying what the post lacks), mark cancels. */
static int link_requests(sim_rank_events *re, sim_map *ids, load_counts *lc, rt_err *err)
{
    for (uint32_t i = 0; i < re->n; i++) {
        rt_event *ev = &re->ev[i];
        int created;
        if (is_post(ev->kind)) {
            uint64_t *v = sim_map_put(ids, ev->req, 0, &created);
            if (!v)
                return rt_err_set(err, RT_E_NOMEM, "out of memory loading the trace");
            *v = i; /* a reused id starts a new request */
        } else if (is_completion(ev->kind)) {
            uint64_t *v = sim_map_get(ids, ev->req, 0);
            if (!v || (*v & LINKED)) {
                ev->kind = SIM_EV_SKIP;
                lc->orphan++;
                continue;
            }
            rt_event *p = &re->ev[*v & ~LINKED];
            *v |= LINKED;
            if (ev->kind == RT_EV_REQUEST_CANCELLED) {
                p->kind = SIM_EV_SKIP;
                ev->kind = SIM_EV_SKIP;
                lc->cancelled++;
            } else if (ev->kind == RT_EV_IRECV && p->kind == RT_EV_IRECV_REQUEST) {
                p->comm = ev->comm;
                p->peer = ev->peer;
                p->tag = ev->tag;
                p->bytes = ev->bytes;
                p->contype = ev->contype;
                p->op = ev->op;
            } else if (ev->kind == RT_EV_NBC_COMPLETE && p->kind == RT_EV_NBC_REQUEST) {
                p->comm = ev->comm;
                p->peer = ev->peer;
                p->bytes = ev->bytes;
                p->rbytes = ev->rbytes;
                p->op = ev->op;
            }
        }
    }
    return 0;
}

/* Pass 2: slots for linked requests, world ranks for peers, skips for unlinked posts. */
static int assign_slots(sim_rank_events *re, const rt_defs *defs, sim_map *ids,
                        load_counts *lc, uint32_t rank, rt_err *err)
{
    uint32_t *free_slots = NULL, nfree = 0, next = 0;
    int rc = 0;
    for (uint32_t i = 0; i < re->n && !rc; i++) {
        rt_event *ev = &re->ev[i];
        unsigned k = ev->kind;
        if (k == SIM_EV_SKIP)
            continue;
        if (is_post(k)) {
            uint64_t *v = sim_map_get(ids, ev->req, 0);
            int linked = v && (*v & LINKED) && (*v & ~LINKED) == i;
            if (!linked && (k == RT_EV_IRECV_REQUEST || k == RT_EV_NBC_REQUEST)) {
                ev->kind = SIM_EV_SKIP;
                if (k == RT_EV_IRECV_REQUEST)
                    lc->irecv_open++;
                else
                    lc->nbc_open++;
                continue;
            }
            if (linked) {
                uint32_t slot;
                if (nfree) {
                    slot = free_slots[--nfree];
                } else {
                    slot = next++;
                    uint32_t *p = realloc(free_slots, (size_t)next * sizeof *p);
                    if (!p) {
                        rc = rt_err_set(err, RT_E_NOMEM, "out of memory loading the trace");
                        break;
                    }
                    free_slots = p;
                }
                *v = LINKED | ((uint64_t)slot << 32) | i; /* index fits: i < 2^31 */
                ev->req = slot;
            } else {
                ev->req = SIM_NONE;
            }
        } else if (is_completion(k)) {
            uint64_t *v = sim_map_get(ids, ev->req, 0);
            /* linked in pass 1, so present; the post saw it first */
            uint32_t slot = (uint32_t)(*v >> 32) & 0x7fffffffu;
            ev->req = slot;
            free_slots[nfree++] = slot;
            *v &= ~(0x7fffffffULL << 32);
        }
        if (sim_world_peer(ev)) {
            rt_event probe = *ev;
            if (k == RT_EV_IRECV_REQUEST)
                probe.kind = RT_EV_IRECV;
            int64_t w = rt_defs_peer_world(defs, &probe);
            if (w < 0)
                rc = rt_err_set(err, RT_E_FORMAT, "rank %u, event %u (%s): peer %d does not "
                                "resolve to a world rank", (unsigned)rank, (unsigned)i,
                                rt_event_kind_name(k), ev->peer);
            else
                ev->peer = (int32_t)w;
        }
    }
    re->nslots = next;
    free(free_slots);
    return rc;
}

static int append(rt_sim_trace *t, const rt_event *ev, rt_err *err)
{
    sim_rank_events *re = &t->ranks[ev->rank];
    if (re->n == re->cap) {
        uint32_t cap = re->cap ? re->cap * 2 : 16;
        if (cap <= re->cap || cap > (1u << 31))
            return rt_err_set(err, RT_E_INVAL, "rank %u has more than 2^31 events",
                              (unsigned)ev->rank);
        rt_event *p = realloc(re->ev, (size_t)cap * sizeof *p);
        if (!p)
            return rt_err_set(err, RT_E_NOMEM, "out of memory loading the trace (%llu events)",
                              (unsigned long long)t->nevents);
        re->ev = p;
        re->cap = cap;
    }
    re->ev[re->n++] = *ev;
    return 0;
}

int rt_sim_trace_load(rt_reader *r, rt_sim_trace **out, rt_err *err)
{
    rt_sim_trace *t = calloc(1, sizeof *t);
    if (!t)
        return rt_err_set(err, RT_E_NOMEM, "out of memory");
    int rc = rt_defs_copy(&t->defs, rt_reader_defs(r), err);
    if (rc == 0) /* neighbourhood collectives are scheduled from these: they must agree */
        rc = rt_defs_nbrs_check(&t->defs, err);
    if (rc < 0) {
        rt_defs_free(&t->defs);
        free(t);
        return rc;
    }
    t->ranks = calloc(t->defs.nranks ? t->defs.nranks : 1, sizeof *t->ranks);
    if (!t->ranks) {
        rt_sim_trace_free(t);
        return rt_err_set(err, RT_E_NOMEM, "out of memory");
    }
    t->t_first = UINT64_MAX;
    rt_event ev;
    while ((rc = rt_reader_next(r, &ev, err)) > 0) {
        if ((rc = append(t, &ev, err)) < 0)
            break;
        t->nevents++;
        if (ev.time < t->t_first)
            t->t_first = ev.time;
        if (ev.time > t->t_last)
            t->t_last = ev.time;
    }
    if (rc < 0) {
        rt_sim_trace_free(t);
        return rc;
    }
    if (!t->nevents)
        t->t_first = 0;
    load_counts lc = {0};
    sim_map ids = {0};
    for (uint32_t i = 0; i < t->defs.nranks && rc == 0; i++) {
        sim_rank_events *re = &t->ranks[i];
        for (uint32_t j = 1; j < re->n; j++)
            if (re->ev[j].time < re->ev[j - 1].time) {
                rc = rt_err_set(err, RT_E_ORDER, "rank %u, event %u: time goes back",
                                (unsigned)i, (unsigned)j);
                break;
            }
        if (rc == 0)
            rc = link_requests(re, &ids, &lc, err);
        if (rc == 0)
            rc = assign_slots(re, &t->defs, &ids, &lc, i, err);
        ids.n = 0;
        for (size_t j = 0; j < ids.cap; j++)
            ids.slots[j].k1 = SIM_MAP_EMPTY;
    }
    sim_map_free(&ids);
    if (rc < 0) {
        rt_sim_trace_free(t);
        return rc;
    }
    if (lc.irecv_open)
        sim_trace_note(t, "%llu nonblocking receives never completed: left out (their source "
                       "is unknown)", (unsigned long long)lc.irecv_open);
    if (lc.nbc_open)
        sim_trace_note(t, "%llu nonblocking collectives never completed: left out",
                       (unsigned long long)lc.nbc_open);
    if (lc.orphan)
        sim_trace_note(t, "%llu completions of requests the trace never started: left out",
                       (unsigned long long)lc.orphan);
    if (lc.cancelled)
        sim_trace_note(t, "%llu cancelled requests: not posted (they matched nothing)",
                       (unsigned long long)lc.cancelled);
    *out = t;
    return 0;
}

void rt_sim_trace_free(rt_sim_trace *t)
{
    if (!t)
        return;
    if (t->ranks)
        for (uint32_t i = 0; i < t->defs.nranks; i++)
            free(t->ranks[i].ev);
    free(t->ranks);
    rt_defs_free(&t->defs);
    free(t->notes);
    free(t);
}

const rt_defs *rt_sim_trace_defs(const rt_sim_trace *t) { return &t->defs; }
uint64_t rt_sim_trace_events(const rt_sim_trace *t) { return t->nevents; }
uint64_t rt_sim_trace_span_ps(const rt_sim_trace *t)
{
    return (t->t_last - t->t_first) * 1000;
}
const char *rt_sim_trace_notes(const rt_sim_trace *t) { return t->notes ? t->notes : ""; }

int rt_sim_trace_traffic(const rt_sim_trace *t, rt_map_edge **edges, size_t *nedges,
                         rt_err *err)
{
    sim_map pairs = {0};
    for (uint32_t r = 0; r < t->defs.nranks; r++) {
        const sim_rank_events *re = &t->ranks[r];
        for (uint32_t i = 0; i < re->n; i++) {
            const rt_event *ev = &re->ev[i];
            uint64_t b;
            switch (ev->kind) {
            case RT_EV_SEND:
            case RT_EV_ISEND:
            case RT_EV_RMA_PUT:
                b = ev->bytes;
                break;
            case RT_EV_RMA_GET:
                b = ev->rbytes;
                break;
            case RT_EV_RMA_ATOMIC:
                b = ev->bytes + ev->rbytes;
                break;
            default:
                continue;
            }
            uint32_t a = r, p = (uint32_t)ev->peer;
            if (a == p || !b)
                continue;
            uint64_t *v = sim_map_put(&pairs, a < p ? a : p, a < p ? p : a, NULL);
            if (!v) {
                sim_map_free(&pairs);
                return rt_err_set(err, RT_E_NOMEM, "out of memory");
            }
            *v += b;
        }
    }
    rt_map_edge *e = malloc((pairs.n ? pairs.n : 1) * sizeof *e);
    if (!e) {
        sim_map_free(&pairs);
        return rt_err_set(err, RT_E_NOMEM, "out of memory");
    }
    size_t n = 0;
    for (size_t i = 0; i < pairs.cap; i++)
        if (pairs.slots[i].k1 != SIM_MAP_EMPTY)
            e[n++] = (rt_map_edge){(uint32_t)pairs.slots[i].k1, (uint32_t)pairs.slots[i].k2,
                                   pairs.slots[i].v};
    sim_map_free(&pairs);
    *edges = e;
    *nedges = n;
    return 0;
}
