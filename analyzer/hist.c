/*
 * retrace hist: message-size histograms with psmpi's binning, over the messages of a trace
 * at call or wire level. Memory: one histogram, plus one row of bins per rank (--per-rank)
 * or per MPI function (--by-call); nothing per event.
 */
#define _GNU_SOURCE /* asprintf */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "rt_an.h"

typedef struct hist_pass {
    const rt_an_hist_opts *o;
    rt_an_hist_result *res;
    const rt_defs *defs;
    rt_an_msgs *ms;
    uint32_t nranks;
    unsigned nbins;
    uint64_t *per_rank; /* nranks * nbins */
    uint64_t *per_call; /* RT_FN_COUNT * nbins */
} hist_pass;

static int setup(void *ctx, const rt_defs *defs, rt_err *err)
{
    hist_pass *h = ctx;
    h->defs = defs;
    h->nranks = defs->nranks;
    h->nbins = rt_hist_nbins(&h->res->total);
    if (h->o->per_rank &&
        !(h->per_rank = calloc((size_t)defs->nranks * h->nbins, sizeof *h->per_rank)))
        return rt_err_set(err, RT_E_NOMEM, "out of memory for %u ranks' histograms",
                          (unsigned)defs->nranks);
    if (h->o->by_call &&
        !(h->per_call = calloc((size_t)RT_FN_COUNT * h->nbins, sizeof *h->per_call)))
        return rt_err_set(err, RT_E_NOMEM, "out of memory");
    return rt_an_msgs_new(defs, &h->ms, err);
}

static int on_msg(void *ctx, const rt_an_msg *m)
{
    hist_pass *h = ctx;
    rt_hist *t = &h->res->total;
    if (t->cfg.contype >= 0 && m->contype != t->cfg.contype)
        return 0;
    unsigned bin = rt_hist_bin(t, m->bytes);
    t->count[bin] += m->count;
    if (h->per_rank)
        h->per_rank[(size_t)m->src * h->nbins + bin] += m->count;
    if (h->per_call && m->call < RT_FN_COUNT)
        h->per_call[(size_t)m->call * h->nbins + bin] += m->count;
    return 0;
}

static int on_event(void *ctx, const rt_event *ev)
{
    hist_pass *h = ctx;
    return rt_an_msgs_of(h->ms, &h->o->level, ev, on_msg, h, &h->res->notes);
}

static int on_events(void *ctx, const rt_event *ev, size_t n)
{
    hist_pass *h = ctx;
    return rt_an_msgs_block(h->ms, &h->o->level, ev, n, on_msg, h, &h->res->notes);
}

/* After the last event: the v and w collectives still waiting for their rows. */
static int end(void *ctx)
{
    hist_pass *h = ctx;
    return rt_an_msgs_flush(h->ms, &h->o->level, on_msg, h, &h->res->notes);
}

static void pass_free(hist_pass *h)
{
    rt_an_msgs_free(h->ms);
    free(h->per_rank);
    free(h->per_call);
}

/* A part's state (threads, rt_an_run): a pass of its own, with a result of its own. */
typedef struct hist_part {
    hist_pass h;
    rt_an_hist_result res;
} hist_part;

static void drop(void *part)
{
    pass_free(&((hist_part *)part)->h);
    free(part);
}

static int fork_part(void *ctx, void **part, rt_err *err)
{
    const hist_pass *h = ctx;
    hist_part *p = calloc(1, sizeof *p);
    if (!p)
        return rt_err_set(err, RT_E_NOMEM, "out of memory");
    p->res.total = h->res->total; /* the bins; no event counted yet */
    p->h = (hist_pass){.o = h->o, .res = &p->res};
    int rc = setup(&p->h, h->defs, err);
    if (rc < 0)
        drop(p);
    else
        *part = p;
    return rc;
}

/* Every count is a sum: the part's are added. */
static int merge(void *ctx, void *part, uint32_t lo, uint32_t hi)
{
    (void)lo, (void)hi;
    hist_pass *h = ctx;
    const hist_part *p = part;
    for (unsigned b = 0; b < h->nbins; b++)
        h->res->total.count[b] += p->res.total.count[b];
    h->res->notes.approx += p->res.notes.approx;
    h->res->notes.unexpanded += p->res.notes.unexpanded;
    for (size_t i = 0; h->per_rank && i < (size_t)h->nranks * h->nbins; i++)
        h->per_rank[i] += p->h.per_rank[i];
    for (size_t i = 0; h->per_call && i < (size_t)RT_FN_COUNT * h->nbins; i++)
        h->per_call[i] += p->h.per_call[i];
    return 0;
}

/* The bin's label as psmpi prints it: its limit, or ">limit" for the last one. */
static void bin_label(const rt_hist *t, unsigned bin, char *buf, size_t len, int human)
{
    uint64_t lim = t->limit[bin < t->nlimits ? bin : t->nlimits - 1];
    char num[32];
    if (human)
        rt_an_size_label(lim, num, sizeof num);
    else
        snprintf(num, sizeof num, "%" PRIu64, lim);
    snprintf(buf, len, "%s%s", bin < t->nlimits ? "" : ">", num);
}

static int build_tables(hist_pass *h)
{
    const rt_hist *t = &h->res->total;
    unsigned nextra = 0;
    char **owned = NULL;
    unsigned *which = NULL; /* rank or function per extra column */
    int rc = -RT_E_NOMEM;
    if (h->per_rank)
        nextra = h->nranks;
    else if (h->per_call)
        for (unsigned f = 0; f < RT_FN_COUNT; f++)
            for (unsigned b = 0; b < h->nbins; b++)
                if (h->per_call[(size_t)f * h->nbins + b]) {
                    nextra++;
                    break;
                }
    const char **cols = calloc(nextra + 2, sizeof *cols);
    owned = calloc(nextra + 1, sizeof *owned);
    which = calloc(nextra + 1, sizeof *which);
    if (!cols || !owned || !which)
        goto out;
    cols[0] = "bin";
    cols[1] = "freq";
    unsigned k = 0;
    if (h->per_rank) {
        for (uint32_t r = 0; r < h->nranks; r++) {
            if (asprintf(&owned[k], "rank %u", (unsigned)r) < 0)
                goto out;
            which[k] = r;
            cols[2 + k] = owned[k];
            k++;
        }
    } else if (h->per_call) {
        for (unsigned f = 0; f < RT_FN_COUNT; f++)
            for (unsigned b = 0; b < h->nbins; b++)
                if (h->per_call[(size_t)f * h->nbins + b]) {
                    which[k] = f;
                    cols[2 + k++] = rt_func_name(f);
                    break;
                }
    }
    rt_table *tab = rt_table_new("histogram", NULL, nextra + 2, cols, "r");
    rt_table *plot = rt_table_new("plot", NULL, 2, (const char *const[]){"bin", "freq"}, "rr");
    if (!tab || !plot) {
        rt_table_free(tab);
        rt_table_free(plot);
        goto out;
    }
    h->res->report.plot = plot;
    if ((rc = rt_tables_add(&h->res->report.tables, tab)))
        goto out;
    for (unsigned b = 0; b < h->nbins; b++) {
        char label[40];
        bin_label(t, b, label, sizeof label, 0);
        if ((rc = rt_table_row(tab)) || (rc = rt_table_cell(tab, "%s", label)) ||
            (rc = rt_table_cell_u64(tab, t->count[b])))
            goto out;
        for (unsigned i = 0; i < nextra; i++) {
            uint64_t v = h->per_rank ? h->per_rank[(size_t)which[i] * h->nbins + b]
                                     : h->per_call[(size_t)which[i] * h->nbins + b];
            if ((rc = rt_table_cell_u64(tab, v)))
                goto out;
        }
        bin_label(t, b, label, sizeof label, 1);
        if ((rc = rt_table_row(plot)) || (rc = rt_table_cell(plot, "%s", label)) ||
            (rc = rt_table_cell_u64(plot, t->count[b])))
            goto out;
    }
    rc = 0;
out:
    for (unsigned i = 0; owned && i < nextra; i++)
        free(owned[i]);
    free(owned);
    free(which);
    free(cols);
    return rc;
}

int rt_an_hist(const char *path, const rt_an_hist_opts *o, rt_an_hist_result *res, rt_err *err)
{
    memset(res, 0, sizeof *res);
    int rc = rt_hist_init(&res->total, &o->cfg);
    if (rc)
        return rt_err_set(err, RT_E_INVAL, "bad histogram settings");
    hist_pass h = {.o = o, .res = res};
    rt_an_pass pass = {.setup = setup,
                       .event = on_event,
                       .events = on_events,
                       .end = end,
                       .ctx = &h,
                       .fork = fork_part,
                       .merge = merge,
                       .drop = drop,
                       .threads = o->threads};
    rc = rt_an_run(path, &pass, &res->report.truncated, err);
    if (!rc && (rc = build_tables(&h)))
        rt_err_set(err, -rc, "%s: %s", path, rt_strerror(rc));
    pass_free(&h);
    return rc;
}
