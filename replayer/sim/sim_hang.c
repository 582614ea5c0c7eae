/*
 * What a replay that cannot go on reports (docs/replay.md, "Runs that did not finish"): for
 * every rank that did not finish, the call it is in and what that call waits for; the
 * wait-for cycle, when there is one, from the unmatched operations left in the channels;
 * the collectives some members never entered; and the time of the hang, recorded (the
 * pending calls) and predicted. Ranks are world ranks throughout.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "rt__sim.h"

#define SHOWN RT_SIM_SHOWN /* lines of one kind shown before "... and N more" */
#define ITEMS 4            /* operations shown for one call */
#define TEXT 1024u         /* a call's text */

int sim_pending_waits(const sim_rank_events *re)
{
    if (re->pending == SIM_NONE)
        return 1;
    for (uint32_t i = re->pending + 1; i < re->n; i++)
        if (re->ev[i].kind != SIM_EV_SKIP && re->ev[i].kind != RT_EV_PENDING)
            return 1;
    return 0;
}

/* ---- a call and what it waits for, as text ------------------------------------------------ */

typedef struct text {
    char s[TEXT];
    size_t len;
} text;

static void text_add(text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void text_add(text *t, const char *fmt, ...)
{
    if (t->len >= sizeof t->s - 1)
        return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(t->s + t->len, sizeof t->s - t->len, fmt, ap);
    va_end(ap);
    if (n > 0)
        t->len += (size_t)n < sizeof t->s - t->len ? (size_t)n : sizeof t->s - 1 - t->len;
}

static void comm_text(text *t, uint32_t comm)
{
    if (comm == RT_COMM_WORLD)
        text_add(t, "comm world");
    else if (comm == RT_COMM_SELF)
        text_add(t, "comm self");
    else
        text_add(t, "comm %u", (unsigned)comm);
}

/* A source or destination (a world rank; RT_PEER_NONE: any) and a tag (< 0: any). */
static void peer_tag_text(text *t, const char *what, int32_t peer, int32_t tag)
{
    if (peer == RT_PEER_NONE)
        text_add(t, "%s any, ", what);
    else
        text_add(t, "%s %d, ", what, peer);
    if (tag < 0)
        text_add(t, "tag any");
    else
        text_add(t, "tag %d", tag);
}

/* The post of request slot req before event at of the rank (kind: ISEND or IRECV_REQUEST). */
static const rt_event *post_of(const sim_rank_events *re, uint32_t at, uint64_t req, unsigned kind)
{
    for (uint32_t i = at; i-- > 0;)
        if (re->ev[i].kind == kind && re->ev[i].req == req)
            return &re->ev[i];
    return NULL;
}

/* What operation ev (event at of the rank) makes its call wait for; 0 for an event that
 * makes it wait for nothing (posts, begins, the PENDING mark). */
static int op_text(text *t, const sim_rank_events *re, uint32_t at)
{
    const rt_event *ev = &re->ev[at], *p;
    switch (ev->kind) {
    case RT_EV_SEND:
        text_add(t, "dest %d, tag %d, ", ev->peer, ev->tag);
        comm_text(t, ev->comm);
        text_add(t, ", %llu bytes", (unsigned long long)ev->bytes);
        return 1;
    case RT_EV_RECV:
        peer_tag_text(t, "source", ev->peer, ev->tag);
        text_add(t, ", ");
        comm_text(t, ev->comm);
        return 1;
    case RT_EV_IRECV:
        text_add(t, "request of an Irecv");
        if ((p = post_of(re, at, ev->req, RT_EV_IRECV_REQUEST)) != NULL) {
            text_add(t, ": ");
            peer_tag_text(t, "source", p->peer, p->tag);
        }
        return 1;
    case RT_EV_ISEND_COMPLETE:
        text_add(t, "request of an Isend");
        if ((p = post_of(re, at, ev->req, RT_EV_ISEND)) != NULL)
            text_add(t, ": dest %d, tag %d", p->peer, p->tag);
        return 1;
    case RT_EV_NBC_COMPLETE:
        text_add(t, "request of a nonblocking %s on ", rt_event_op_name(ev->kind, ev->op));
        comm_text(t, ev->comm);
        return 1;
    case RT_EV_RMA_OP_COMPLETE:
        text_add(t, "request of an RMA operation on window %u", (unsigned)ev->comm);
        return 1;
    case RT_EV_COLL_END:
        if (ev->peer >= 0)
            text_add(t, "root %d, ", ev->peer);
        comm_text(t, ev->comm);
        return 1;
    case RT_EV_RMA_LOCK:
    case RT_EV_RMA_UNLOCK:
        if (ev->peer == RT_PEER_ALL)
            text_add(t, "%s of every rank, window %u", rt_event_kind_name(ev->kind),
                     (unsigned)ev->comm);
        else
            text_add(t, "%s of rank %d, window %u", rt_event_kind_name(ev->kind), ev->peer,
                     (unsigned)ev->comm);
        return 1;
    case RT_EV_RMA_COLL_END:
    case RT_EV_RMA_GROUP_SYNC:
    case RT_EV_RMA_SYNC:
        text_add(t, "window %u", (unsigned)ev->comm);
        return 1;
    default:
        return 0;
    }
}

/* "MPI_Recv(source 1, tag 5, comm world)": rank r's current call and what it waits for. */
static void call_text(const sim *s, uint32_t r, text *t)
{
    const sim_rank *rk = &s->ranks[r];
    const sim_rank_events *re = &s->t->ranks[r];
    if (!rk->in_call) {
        text_add(t, "its trace");
        return;
    }
    text_add(t, "%s", rt_func_name(rk->call));
    uint32_t start = rk->pc, end = rk->pc < re->n ? rk->pc : re->n;
    while (start > 0 && re->ev[start - 1].kind != RT_EV_ENTER &&
           re->ev[start - 1].kind != RT_EV_LEAVE)
        start--;
    unsigned items = 0, more = 0;
    for (uint32_t i = start; i < end; i++) {
        text one = {.len = 0};
        if (!op_text(&one, re, i))
            continue;
        if (items < ITEMS)
            text_add(t, "%s%s", items ? ", " : "(", one.s);
        else
            more++;
        items++;
    }
    if (more)
        text_add(t, ", and %u more", more);
    if (items)
        text_add(t, ")");
    else if (rk->in_call == SIM_IN_PENDING)
        text_add(t, " (waiting for what the trace does not describe)");
}

/* ---- the wait-for graph ------------------------------------------------------------------ */

/* Rank from waits for rank to: a receive from it, or a rendezvous send to it, unmatched. */
typedef struct wait_edge {
    uint32_t from, to, tag;
    uint8_t ctx;
} wait_edge;

typedef struct wait_graph {
    wait_edge *e;
    size_t n, cap;
    int nomem;
} wait_graph;

static void edge_add(const sim *s, wait_graph *g, const sim_op *op, uint32_t me, uint32_t peer,
                     uint32_t tag, unsigned ctx)
{
    if ((op->send && op->eager) || s->ranks[me].state == SIM_RANK_DONE || peer >= s->nranks)
        return; /* an eager send waits for nobody */
    if (RT_VEC_RESERVE(g->e, g->cap, (uint64_t)g->n + 1, 64) < 0) {
        g->nomem = 1;
        return;
    }
    g->e[g->n++] = (wait_edge){me, peer, tag, (uint8_t)ctx};
}

static int edge_cmp(const void *a, const void *b)
{
    const wait_edge *x = a, *y = b;
    if (x->from != y->from)
        return x->from < y->from ? -1 : 1;
    if (x->to != y->to)
        return x->to < y->to ? -1 : 1;
    if (x->ctx != y->ctx)
        return x->ctx < y->ctx ? -1 : 1;
    return x->tag < y->tag ? -1 : x->tag > y->tag;
}

/* The edges from the channels' unmatched operations, sorted, one per pair of ranks (the
 * lowest context and tag). Mailbox entries (free wildcard matching) name their peer too. */
static void graph_make(const sim *s, wait_graph *g)
{
    for (size_t i = 0; i < s->chans.cap; i++) {
        const sim_chan *c = &s->chans.slots[i];
        if (c->k1 == RT_HASH_EMPTY)
            continue;
        uint32_t me, peer;
        unsigned ctx = sim_chan_ends(c, &me, &peer);
        edge_add(s, g, &c->op, me, peer, (uint32_t)c->k2, ctx);
        for (uint32_t q = c->more; q != SIM_NONE; q = s->pends[q].next)
            edge_add(s, g, &s->pends[q].op, me, peer, (uint32_t)c->k2, ctx);
    }
    for (size_t i = 0; i < s->mail.cap; i++) {
        const rt_hmap_slot *c = &s->mail.slots[i];
        if (c->k1 == RT_HASH_EMPTY)
            continue;
        for (uint32_t q = (uint32_t)c->v; q != SIM_NONE; q = s->pends[q].next) {
            const sim_pend *e = &s->pends[q];
            if (!(e->op.flags & RT_RECV_ANY_SOURCE))
                edge_add(s, g, &e->op, e->rank, e->peer, e->tag, SIM_CTX_P2P);
        }
    }
    if (g->n)
        qsort(g->e, g->n, sizeof *g->e, edge_cmp);
    size_t k = 0;
    for (size_t i = 0; i < g->n; i++)
        if (!k || g->e[i].from != g->e[k - 1].from || g->e[i].to != g->e[k - 1].to)
            g->e[k++] = g->e[i];
    g->n = k;
}

uint32_t sim_cycle_find(uint32_t n, const uint32_t *off, const uint32_t *to, uint32_t *scratch,
                        uint32_t *cyc)
{
    enum { WHITE, ON_PATH, DONE };
    uint32_t *color = scratch, *pos = scratch + n, *via = scratch + 2 * (size_t)n,
             *path = scratch + 3 * (size_t)n;
    memset(color, 0, (size_t)n * sizeof *color);
    for (uint32_t root = 0; root < n; root++) {
        if (color[root] != WHITE)
            continue;
        uint32_t depth = 0;
        path[depth++] = root;
        color[root] = ON_PATH;
        pos[root] = off[root];
        while (depth) {
            uint32_t u = path[depth - 1];
            if (pos[u] == off[u + 1]) { /* every way out of u tried */
                color[u] = DONE;
                depth--;
                continue;
            }
            uint32_t e = pos[u]++, v = to[e];
            if (color[v] == WHITE) {
                via[v] = e;
                color[v] = ON_PATH;
                pos[v] = off[v];
                path[depth++] = v;
            } else if (color[v] == ON_PATH) { /* back to the path: v ... u, then e */
                uint32_t first = depth - 1, len = 0, low = 0;
                while (path[first] != v)
                    first--;
                for (uint32_t k = first + 1; k < depth; k++)
                    cyc[len++] = via[path[k]];
                cyc[len++] = e;
                for (uint32_t k = 1; k < len; k++) /* the edge out of the lowest node first */
                    if (path[first + k] < path[first + low])
                        low = k;
                for (uint32_t k = 0; k < low; k++) { /* rotate left by low */
                    uint32_t x = cyc[0];
                    memmove(cyc, cyc + 1, (len - 1) * sizeof *cyc);
                    cyc[len - 1] = x;
                }
                return len;
            }
        }
    }
    return 0;
}

/* "cycle: rank 0 waits for rank 1 in MPI_Recv(tag 5) <- rank 1 waits for ..." */
static void report_cycle(sim *s, const wait_graph *g)
{
    uint32_t n = s->nranks;
    uint32_t *off = calloc((size_t)n + 1, sizeof *off), *to = malloc((g->n ? g->n : 1) * 4),
             *scratch = malloc(((size_t)4 * n + 1) * sizeof *scratch),
             *cyc = malloc(((size_t)n + 1) * sizeof *cyc);
    if (!off || !to || !scratch || !cyc) {
        sim_fail(s, RT_E_NOMEM, "out of memory (deadlock report)");
    } else {
        for (size_t i = 0; i < g->n; i++) {
            off[g->e[i].from + 1]++;
            to[i] = g->e[i].to; /* sorted by from: in order */
        }
        for (uint32_t i = 0; i < n; i++)
            off[i + 1] += off[i];
        uint32_t len = sim_cycle_find(n, off, to, scratch, cyc);
        rt_sim_hang *h = &s->res->hang;
        h->ncycle = len;
        for (uint32_t k = 0; k < len && k < RT_SIM_SHOWN; k++)
            h->cycle[k] = g->e[cyc[k]].from;
        for (uint32_t k = 0; k < len && k < SHOWN; k++) {
            const wait_edge *e = &g->e[cyc[k]];
            const sim_rank *rk = &s->ranks[e->from];
            sim_buf_printf(&s->report, "%s rank %u waits for rank %u in %s",
                           k ? " <-" : "cycle:", (unsigned)e->from, (unsigned)e->to,
                           rk->in_call ? rt_func_name(rk->call) : "its trace");
            if (e->ctx == SIM_CTX_P2P || e->ctx == SIM_CTX_PART)
                sim_buf_printf(&s->report, "(tag %u)", (unsigned)e->tag);
        }
        if (len > SHOWN)
            sim_buf_printf(&s->report, " <- ... and %u more", (unsigned)(len - SHOWN));
        if (len)
            sim_buf_printf(&s->report, "\n");
    }
    free(off);
    free(to);
    free(scratch);
    free(cyc);
}

/* ---- the report ---------------------------------------------------------------------------- */

/* 1 when rank r called MPI_Abort: the tracer records it as a pending call with nothing to
 * wait for (rt_event.h). */
static int aborted(const sim *s, uint32_t r)
{
    const sim_rank_events *re = &s->t->ranks[r];
    return re->pending != SIM_NONE && re->ev[re->pending].call == RT_FN_Abort;
}

/* 1 when rank r's trace stops outside MPI before MPI_Finalize, with no call pending: the
 * process ended there (a crash, a kill, an exit without MPI_Finalize). Only traces that
 * record MPI_Init can tell. */
static int stopped(const sim *s, uint32_t r)
{
    const sim_rank_events *re = &s->t->ranks[r];
    return s->t->end.records_init && re->n && !re->finalized && re->pending == SIM_NONE &&
           s->ranks[r].state == SIM_RANK_DONE;
}

/* How many ranks did not finish while waiting for something the trace describes. */
static uint32_t waits_known(const sim *s)
{
    uint32_t known = 0;
    for (uint32_t r = 0; r < s->nranks; r++) {
        const sim_rank *rk = &s->ranks[r];
        known += rk->state != SIM_RANK_DONE &&
                 (rk->in_call != SIM_IN_PENDING || sim_pending_waits(&s->t->ranks[r]));
    }
    return known;
}

/* Every rank that did not finish: "rank 1 blocked in MPI_Recv(...) at 2 us (event 5 of 5)". */
static void report_ranks(sim *s, const char *verb)
{
    uint32_t left = 0, shown = 0;
    for (uint32_t r = 0; r < s->nranks; r++) {
        const sim_rank *rk = &s->ranks[r];
        if (rk->state == SIM_RANK_DONE ||
            aborted(s, r)) /* an aborted rank waits for nothing: report_failed */
            continue;
        const sim_rank_events *re = &s->t->ranks[r];
        left++;
        if (shown++ >= SHOWN)
            continue;
        text t = {.len = 0};
        call_text(s, r, &t);
        char tb[32];
        rt_net_format_time(rk->clock, tb, sizeof tb);
        rt_sim_hang *h = &s->res->hang;
        if (h->nshown < RT_SIM_SHOWN) {
            uint32_t at = rk->pc < re->n ? rk->pc : re->n; /* the event it stopped after */
            rt_sim_blocked *b = &h->blocked[h->nshown++];
            *b = (rt_sim_blocked){.rank = r,
                                  .event = rk->pc,
                                  .time_ps = rk->clock,
                                  .recorded_ns = at ? re->ev[at - 1].time : 0,
                                  .call = rk->in_call ? rk->call : RT_FN_NONE,
                                  .pending = re->pending != SIM_NONE};
            size_t len = t.len < sizeof b->what ? t.len : sizeof b->what - 1;
            memcpy(b->what, t.s, len);
            b->what[len] = '\0';
        }
        sim_buf_printf(&s->report, "rank %u %s in %s at %s (event %u of %u%s)\n", (unsigned)r, verb,
                       t.s, tb, (unsigned)rk->pc, (unsigned)re->n,
                       re->pending != SIM_NONE ? ", pending when recorded" : "");
    }
    if (left > SHOWN)
        sim_buf_printf(&s->report, "... and %u more ranks %s\n", (unsigned)(left - SHOWN), verb);
    s->res->hang.nblocked = left;
}

/* Collective instances that some members of their communicator or window never entered. */
static void report_collectives(sim *s)
{
    uint64_t n = 0;
    for (size_t i = 0; i < s->collchk.cap; i++) {
        const rt_hmap_slot *c = &s->collchk.slots[i];
        if (c->k1 == RT_HASH_EMPTY || n++ >= SHOWN)
            continue;
        unsigned ctx = (unsigned)(c->k1 >> 32), id = (unsigned)(uint32_t)c->k1;
        const rt_comm_def *cd = ctx == SIM_CTX_COLL ? rt_defs_comm(s->defs, id) : NULL;
        char size[32] = "";
        if (cd)
            snprintf(size, sizeof size, " of %u", (unsigned)cd->size);
        sim_buf_printf(&s->report,
                       "unfinished: %s, call %u on %s %u: %u%s ranks entered it (rank %u first)\n",
                       rt_event_op_name(RT_EV_COLL_END, (unsigned)(c->v & 0xff)),
                       (unsigned)c->k2 + 1, cd ? "communicator" : "window", id,
                       (unsigned)(c->v >> 32), size, (unsigned)(c->v >> 8) & 0xffffffu);
    }
    if (n > SHOWN)
        sim_buf_printf(&s->report, "... and %llu more unfinished collectives\n",
                       (unsigned long long)(n - SHOWN));
}

/* When the run hung: the pending calls' recorded times, and when the replay's last rank
 * blocked. */
static void report_time(sim *s)
{
    const rt_sim_trace_end *e = &s->t->end;
    uint64_t last = 0;
    for (uint32_t r = 0; r < s->nranks; r++)
        if (s->ranks[r].state != SIM_RANK_DONE && s->ranks[r].clock > last)
            last = s->ranks[r].clock;
    char a[32], b[32], p[32];
    rt_net_format_time(last, p, sizeof p);
    if (!e->pending) {
        sim_buf_printf(&s->report, "time of the hang: predicted %s (when the last rank blocked)\n",
                       p);
        return;
    }
    rt_net_format_time(e->pending_first, a, sizeof a);
    rt_net_format_time(e->pending_last, b, sizeof b);
    if (e->pending_first == e->pending_last)
        sim_buf_printf(&s->report,
                       "time of the hang: recorded %s (when the pending calls were "
                       "entered), predicted %s (when the last rank blocked)\n",
                       a, p);
    else
        sim_buf_printf(&s->report,
                       "time of the hang: recorded %s to %s (when the pending calls "
                       "were entered), predicted %s (when the last rank blocked)\n",
                       a, b, p);
}

/* ---- ranks that ended the run ---------------------------------------------------------------- */

/* The ranks that ended the run rather than waited ("the run failed: ..."): how many. */
static uint32_t report_failed(sim *s)
{
    uint32_t n = 0;
    for (uint32_t r = 0; r < s->nranks; r++) {
        int ab = aborted(s, r);
        if (!ab && !stopped(s, r))
            continue;
        if (n++ >= SHOWN)
            continue;
        const sim_rank_events *re = &s->t->ranks[r];
        const rt_event *last = ab ? &re->ev[re->pending] : &re->ev[re->n - 1];
        char tb[32];
        rt_net_format_time((last->time - s->t->t_first) * 1000, tb, sizeof tb); /* it fits */
        if (ab)
            sim_buf_printf(&s->report,
                           "the run failed: rank %u called MPI_Abort at %s (recorded)\n",
                           (unsigned)r, tb);
        else
            sim_buf_printf(&s->report,
                           "the run failed: rank %u stopped at %s (recorded), after %s, outside "
                           "MPI and before MPI_Finalize: it crashed, was killed or exited\n",
                           (unsigned)r, tb, rt_func_name(last->call));
    }
    if (n > SHOWN)
        sim_buf_printf(&s->report, "... and %u more ranks ended the run\n", (unsigned)(n - SHOWN));
    return n;
}

int sim_hang_report(sim *s)
{
    const rt_sim_trace_end *e = &s->t->end;
    if (s->stop) { /* a collective mismatch: its line is in the report */
        s->res->hang.outcome = RT_SIM_MISMATCH;
        report_ranks(s, "stopped");
        report_collectives(s);
        sim_report_channels(s, 1);
        if (e->pending)
            report_time(s);
        return s->rc;
    }
    /* every rank reached MPI_Finalize: events are missing, the run did not hang */
    int cut = e->truncated && e->records_init && !e->unfinished;
    uint32_t failed = cut ? 0 : report_failed(s); /* not a hang: a rank ended the run */
    if (cut)
        sim_buf_printf(&s->report, "the replay cannot go on, but the run did not hang: every "
                                   "rank reached MPI_Finalize and the trace is cut short\n");
    else if (!failed && waits_known(s))
        sim_buf_printf(&s->report, "deadlock: no rank can go on\n");
    else if (!failed) /* nothing shows that the ranks wait for each other */
        sim_buf_printf(&s->report, "the replay cannot go on: the ranks left are in calls that "
                                   "never returned, waiting for what the trace does not "
                                   "describe\n");
    s->res->hang.outcome = cut              ? RT_SIM_CUT
                           : failed         ? RT_SIM_FAILED
                           : waits_known(s) ? RT_SIM_DEADLOCK
                                            : RT_SIM_UNDESCRIBED;
    report_ranks(s, "blocked");
    wait_graph g = {0};
    graph_make(s, &g);
    if (g.nomem)
        sim_fail(s, RT_E_NOMEM, "out of memory (deadlock report)");
    else if (!cut)
        report_cycle(s, &g);
    free(g.e);
    report_collectives(s);
    sim_report_channels(s, 1);
    if (!cut && !failed)
        report_time(s);
    return s->rc;
}
