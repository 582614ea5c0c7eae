/* retrace info's summary of a trace: one streaming pass (rt_an.h, "info"). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_an.h"

/* The hosts part of the summary. */
static int info_hosts(rt_an_info_result *in, const rt_defs *d)
{
    uint32_t *cpus = malloc((size_t)d->nhosts * sizeof *cpus);
    if (!cpus || rt_defs_host_cpus(d, cpus) < 0) {
        free(cpus);
        return -RT_E_NOMEM;
    }
    in->nhosts = d->nhosts;
    uint32_t shown = d->nhosts < RT_AN_INFO_HOSTS ? d->nhosts : RT_AN_INFO_HOSTS;
    for (uint32_t h = 0; h < shown; h++) {
        struct rt_an_info_host *x = &in->host[h];
        snprintf(x->name, sizeof x->name, "%s", d->hosts[h].name);
        x->ranks = 0;
        x->cpus = cpus[h];
        x->online = d->hosts[h].online;
    }
    in->hosts_unknown = 0;
    for (uint32_t r = 0; r < d->nranks; r++) {
        uint32_t h = d->rank_host[r].host;
        in->hosts_unknown += h == RT_ID_NONE;
        if (h < shown)
            in->host[h].ranks++;
    }
    free(cpus);
    return 0;
}

int rt_an_info_defs(rt_an_info_result *in, const rt_defs *d)
{
    in->nranks = d->nranks;
    memcpy(in->library, d->library, sizeof in->library);
    in->nodes = rt_defs_count_nodes(d);
    in->modules = rt_defs_count_modules(d);
    in->comms = d->ncomms;
    in->wins = d->nwins;
    in->nbr_lists = d->nnbrs;
    in->topologies = 0;
    if (d->nhosts && info_hosts(in, d) < 0)
        return -RT_E_NOMEM;
    if (!d->nnbrs)
        return 0;
    /* communicators whose process topology a neighbourhood collective used */
    unsigned char *seen = calloc(d->ncomms ? d->ncomms : 1, 1);
    if (!seen)
        return -RT_E_NOMEM;
    for (uint32_t j = 0; j < d->nnbrs; j++) {
        size_t at = (size_t)(rt_defs_comm(d, d->nbrs[j].comm) - d->comms);
        in->topologies += !seen[at];
        seen[at] = 1;
    }
    free(seen);
    return 0;
}

/* The per-event work, inline in rt_an_info's loop (a call per event costs about 1% of
 * `retrace info`, most of whose time is reading). */
static inline void account(rt_an_info_result *in, const rt_event *ev)
{
    if (in->events == 0 || ev->time < in->tmin)
        in->tmin = ev->time;
    if (ev->time > in->tmax)
        in->tmax = ev->time;
    in->events++;
    in->by_class[rt_event_class_of(ev->kind)]++; /* RT_EVC_COUNT: out of range */
    /* A pending call's operations did not complete: its sends count, posted as they are, its
     * collective does not (docs/analyzer.md). rt_pending_op sees only the kinds that change or
     * ask its state: a branch less for the others. */
    switch (ev->kind) {
    case RT_EV_PENDING:
        in->pending++;
        in->pending_ranks += !in->had_pending[ev->rank];
        in->had_pending[ev->rank] = 1;
        /* fall through */
    case RT_EV_ENTER:
    case RT_EV_LEAVE:
        rt_pending_op(&in->in_ops[ev->rank], ev);
        break;
    case RT_EV_SEND:
    case RT_EV_ISEND:
        /* A message moves once: counted where it is sent. */
        in->messages++;
        in->by_contype[ev->contype < RT_CT_COUNT ? ev->contype : 0]++;
        in->bytes_p2p += ev->bytes;
        break;
    case RT_EV_ERROR:
        in->errors++;
        break;
    case RT_EV_COLL_END:
    case RT_EV_NBC_COMPLETE:
        if (rt_pending_op(&in->in_ops[ev->rank], ev))
            break;
        in->colls++;
        in->bytes_coll += ev->bytes;
        break;
    case RT_EV_RMA_PUT:
    case RT_EV_RMA_GET:
    case RT_EV_RMA_ATOMIC:
        in->rma_ops++;
        in->bytes_rma += (rt_u128)ev->bytes + ev->rbytes;
        break;
    }
}

int rt_an_info_begin(rt_an_info_result *in, uint32_t nranks)
{
    in->in_ops = calloc(nranks ? nranks : 1, 1);
    in->had_pending = calloc(nranks ? nranks : 1, 1);
    return in->in_ops && in->had_pending ? 0 : -RT_E_NOMEM;
}

void rt_an_info_event(rt_an_info_result *in, const rt_event *ev)
{
    account(in, ev);
}

/* The pass (rt_an_run): ctx is an info_pass; a part's (threads) has a result of its own. */
typedef struct info_pass {
    rt_an_info_result *in;
    const rt_defs *defs;
} info_pass;

static int setup(void *ctx, const rt_defs *defs, rt_err *err)
{
    info_pass *p = ctx;
    p->defs = defs;
    return rt_an_info_begin(p->in, defs->nranks) < 0 ? rt_err_set(err, RT_E_NOMEM, "out of memory")
                                                     : 0;
}

static int on_event(void *ctx, const rt_event *ev)
{
    account(((info_pass *)ctx)->in, ev);
    return 0;
}

static int on_events(void *ctx, const rt_event *ev, size_t n)
{
    rt_an_info_result *in = ((info_pass *)ctx)->in;
    for (size_t i = 0; i < n; i++)
        account(in, &ev[i]);
    return 0;
}

/* The counts of the definitions, as they are at the end. */
static int finish(void *ctx, rt_err *err)
{
    (void)err;
    info_pass *p = ctx;
    return rt_an_info_defs(p->in, p->defs);
}

static void drop(void *part)
{
    info_pass *p = part;
    rt_an_info_free(p->in);
    free(p->in);
    free(p);
}

static int fork_part(void *ctx, void **part, rt_err *err)
{
    info_pass *p = calloc(1, sizeof *p);
    if (!p || !(p->in = calloc(1, sizeof *p->in))) {
        free(p);
        return rt_err_set(err, RT_E_NOMEM, "out of memory");
    }
    int rc = setup(p, ((info_pass *)ctx)->defs, err);
    if (rc < 0)
        drop(p);
    else
        *part = p;
    return rc;
}

/* Sums, the earliest and latest times, and the part's ranks' pending flags. */
static int merge(void *ctx, void *part, uint32_t lo, uint32_t hi)
{
    rt_an_info_result *in = ((info_pass *)ctx)->in;
    const rt_an_info_result *q = ((info_pass *)part)->in;
    if (q->events && (in->events == 0 || q->tmin < in->tmin))
        in->tmin = q->tmin;
    if (q->events && q->tmax > in->tmax)
        in->tmax = q->tmax;
    in->events += q->events;
    for (int c = 0; c <= RT_EVC_COUNT; c++)
        in->by_class[c] += q->by_class[c];
    in->messages += q->messages;
    for (int ct = 0; ct < RT_CT_COUNT; ct++)
        in->by_contype[ct] += q->by_contype[ct];
    in->bytes_p2p += q->bytes_p2p;
    in->colls += q->colls;
    in->bytes_coll += q->bytes_coll;
    in->rma_ops += q->rma_ops;
    in->bytes_rma += q->bytes_rma;
    in->pending += q->pending;
    in->errors += q->errors;
    in->pending_ranks += q->pending_ranks;
    memcpy(in->in_ops + lo, q->in_ops + lo, hi - lo);
    memcpy(in->had_pending + lo, q->had_pending + lo, hi - lo);
    return 0;
}

int rt_an_info(const char *path, unsigned threads, rt_an_info_result *in, rt_err *err)
{
    memset(in, 0, sizeof *in);
    info_pass p = {.in = in};
    rt_an_pass pass = {.setup = setup,
                       .event = on_event,
                       .events = on_events,
                       .finish = finish,
                       .ctx = &p,
                       .fork = fork_part,
                       .merge = merge,
                       .drop = drop,
                       .threads = threads,
                       .format = &in->format};
    int rc = rt_an_run(path, &pass, &in->truncated, err);
    if (rc < 0)
        rt_an_info_free(in);
    return rc;
}

void rt_an_info_free(rt_an_info_result *in)
{
    free(in->truncated);
    in->truncated = NULL;
    free(in->in_ops);
    free(in->had_pending);
    in->in_ops = in->had_pending = NULL;
}
