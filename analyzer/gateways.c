/*
 * retrace gateways: messages and bytes that cross module boundaries (connection type gw),
 * in total, module by module, per MPI function, per collective operation and per
 * communicator; and, for a list of collective algorithm choices, the crossings each one
 * costs. State: a module x module matrix and counters per function, op and communicator.
 */
#define _GNU_SOURCE /* asprintf */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "rt_an.h"

/* Byte totals in 128 bits: a message stands for count of them (a collective's flow to many
 * ranks), and a trace may move more than 2^64 - 1 bytes. */
typedef struct counts {
    uint64_t msgs, gw_msgs;
    rt_u128 bytes, gw_bytes;
} counts;

typedef struct gw_pass {
    const rt_an_gw_opts *o;
    rt_an_gw_result *res;
    const rt_defs *defs;
    rt_an_msgs *ms;
    rt_an_msgs *alt_ms[RT_AN_MAX_CHOICES]; /* one per alternative: each holds its own v and w
                                            * collectives until their rows are in */
    uint32_t nmod;
    uint32_t *mod_index; /* per world rank: index of its module in mods */
    uint32_t *mods;      /* distinct module ids, ascending */
    rt_u128 *mat_bytes;  /* nmod * nmod */
    uint64_t *mat_msgs;  /* nmod * nmod */
    counts call[RT_FN_COUNT], op[RT_COLL_COUNT], total;
    counts *comm;                      /* per entry of defs->comms */
    counts alt[RT_AN_MAX_CHOICES + 1]; /* collective traffic per choice (0: mpich) */
    unsigned cur_alt;
} gw_pass;

/* What one message adds to each table it counts in, worked out once. */
static counts of(const rt_an_msg *m)
{
    rt_u128 bytes = (rt_u128)m->bytes * m->count;
    int gw = m->contype == RT_CT_GW;
    return (counts){m->count, gw ? m->count : 0, bytes, gw ? bytes : 0};
}

static void add(counts *c, const counts *x)
{
    c->msgs += x->msgs;
    c->gw_msgs += x->gw_msgs;
    c->bytes += x->bytes;
    c->gw_bytes += x->gw_bytes;
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

static int setup(void *ctx, const rt_defs *defs, rt_err *err)
{
    gw_pass *g = ctx;
    g->defs = defs;
    uint32_t n = defs->nranks;
    g->mods = malloc(n * sizeof *g->mods);
    g->mod_index = malloc(n * sizeof *g->mod_index);
    g->comm = calloc(defs->ncomms ? defs->ncomms : 1, sizeof *g->comm);
    if (!g->mods || !g->mod_index || !g->comm)
        return rt_err_set(err, RT_E_NOMEM, "out of memory");
    memcpy(g->mods, defs->module, n * sizeof *g->mods);
    qsort(g->mods, n, sizeof *g->mods, cmp_u32);
    uint32_t k = 0;
    for (uint32_t i = 0; i < n; i++)
        if (!k || g->mods[i] != g->mods[k - 1])
            g->mods[k++] = g->mods[i];
    g->nmod = k;
    for (uint32_t r = 0; r < n; r++) {
        uint32_t *p = bsearch(&defs->module[r], g->mods, k, sizeof *g->mods, cmp_u32);
        g->mod_index[r] = (uint32_t)(p - g->mods);
    }
    g->mat_bytes = calloc((size_t)k * k, sizeof *g->mat_bytes);
    g->mat_msgs = calloc((size_t)k * k, sizeof *g->mat_msgs);
    if (!g->mat_bytes || !g->mat_msgs)
        return rt_err_set(err, RT_E_NOMEM, "out of memory for %u modules", (unsigned)k);
    int rc = rt_an_msgs_new(defs, &g->ms, err);
    for (unsigned i = 0; !rc && i < g->o->nchoices; i++)
        rc = rt_an_msgs_new(defs, &g->alt_ms[i], err);
    return rc;
}

static int on_msg(void *ctx, const rt_an_msg *m)
{
    gw_pass *g = ctx;
    counts x = of(m);
    size_t cell = (size_t)g->mod_index[m->src] * g->nmod + g->mod_index[m->dst];
    g->mat_bytes[cell] += x.bytes;
    g->mat_msgs[cell] += m->count;
    /* total and alt[0] are the sums of call and op, added up at the end (sum_up) */
    if (m->call < RT_FN_COUNT)
        add(&g->call[m->call], &x);
    else
        add(&g->total, &x);
    if (m->origin == RT_AN_COLL)
        add(&g->op[m->op], &x);
    const rt_comm_def *c = rt_defs_comm(g->defs, m->comm);
    if (c)
        add(&g->comm[c - g->defs->comms], &x);
    return 0;
}

static int on_alt_msg(void *ctx, const rt_an_msg *m)
{
    gw_pass *g = ctx;
    counts x = of(m);
    add(&g->alt[g->cur_alt], &x);
    return 0;
}

static int on_event(void *ctx, const rt_event *ev)
{
    gw_pass *g = ctx;
    int rc = rt_an_msgs_of(g->ms, &g->o->level, ev, on_msg, g, &g->res->notes);
    if (rc || !g->o->nchoices ||
        (ev->kind != RT_EV_COLL_END && ev->kind != RT_EV_NBC_COMPLETE &&
         ev->kind != RT_EV_COLL_PEER))
        return rc;
    rt_an_level l = g->o->level;
    for (unsigned i = 0; !rc && i < g->o->nchoices; i++) {
        memcpy(l.alg, g->o->choice[i], sizeof l.alg);
        g->cur_alt = i + 1;
        rc = rt_an_msgs_of(g->alt_ms[i], &l, ev, on_alt_msg, g, NULL); /* notes: the tables' */
    }
    return rc;
}

/* Without alternatives to compare, the messages of a block of events in one loop. */
static int on_events(void *ctx, const rt_event *ev, size_t n)
{
    gw_pass *g = ctx;
    return rt_an_msgs_block(g->ms, &g->o->level, ev, n, on_msg, g, &g->res->notes);
}

/* ---- tables ---------------------------------------------------------------------------------- */

static char *pct(char *buf, size_t len, rt_u128 part, rt_u128 whole)
{
    if (!whole)
        snprintf(buf, len, "-");
    else
        snprintf(buf, len, "%.1f%%", 100.0 * (double)part / (double)whole);
    return buf;
}

static const char *const count_cols[] = {"messages", "across gw",       "% messages",
                                         "bytes",    "bytes across gw", "% bytes"};

static int count_cells(rt_table *t, const counts *c)
{
    char a[32], b[32];
    int rc;
    if ((rc = rt_table_cell_u64(t, c->msgs)) || (rc = rt_table_cell_u64(t, c->gw_msgs)) ||
        (rc = rt_table_cell(t, "%s", pct(a, sizeof a, c->gw_msgs, c->msgs))) ||
        (rc = rt_table_cell_u128(t, c->bytes)) || (rc = rt_table_cell_u128(t, c->gw_bytes)) ||
        (rc = rt_table_cell(t, "%s", pct(b, sizeof b, c->gw_bytes, c->bytes))))
        return rc;
    return 0;
}

/* A table with a first column named first, then the count columns. */
static rt_table *count_table(const char *name, const char *title, const char *first,
                             const char *extra)
{
    const char *cols[8];
    unsigned n = 0;
    cols[n++] = first;
    if (extra)
        cols[n++] = extra;
    for (unsigned i = 0; i < 6; i++)
        cols[n++] = count_cols[i];
    return rt_table_new(name, title, n, cols, extra ? "llrrrrrr" : "lrrrrrr");
}

/* A module x module table of bytes (vb) or of messages (vm). */
static int matrix(gw_pass *g, const char *name, const char *title, const rt_u128 *vb,
                  const uint64_t *vm, rt_table **out)
{
    const char **cols = calloc(g->nmod + 1, sizeof *cols);
    char **names = calloc(g->nmod, sizeof *names);
    int rc = -RT_E_NOMEM;
    rt_table *t = NULL;
    if (!cols || !names)
        goto out;
    cols[0] = "from \\ to";
    for (uint32_t i = 0; i < g->nmod; i++) {
        if (asprintf(&names[i], "module %u", (unsigned)g->mods[i]) < 0) {
            names[i] = NULL;
            goto out;
        }
        cols[i + 1] = names[i];
    }
    if (!(t = rt_table_new(name, title, g->nmod + 1, cols, "l")))
        goto out;
    for (uint32_t r = 0; r < g->nmod; r++) {
        if ((rc = rt_table_row(t)) || (rc = rt_table_cell(t, "%s", names[r])))
            goto out;
        for (uint32_t c = 0; c < g->nmod; c++)
            if ((rc = vb ? rt_table_cell_u128(t, vb[(size_t)r * g->nmod + c])
                         : rt_table_cell_u64(t, vm[(size_t)r * g->nmod + c])))
                goto out;
    }
    rc = 0;
out:
    for (uint32_t i = 0; names && i < g->nmod; i++)
        free(names[i]);
    free(names);
    free(cols);
    if (rc)
        rt_table_free(t);
    else
        *out = t;
    return rc;
}

/* What a choice saves over the base: base - c, negative when it costs more. */
static int cell_saved(rt_table *t, rt_u128 base, rt_u128 c)
{
    char b[RT_U128_LEN];
    return rt_table_cell(t, "%s%s", base < c ? "-" : "",
                         rt_u128_str(base < c ? c - base : base - c, b, sizeof b));
}

static int build_tables(gw_pass *g, const char *level)
{
    rt_an_gw_result *res = g->res;
    rt_tables *ts = &res->report.tables;
    char title[160];
    int rc;
    snprintf(title, sizeof title, "Gateway crossings (%s level): %u ranks in %u modules", level,
             (unsigned)g->defs->nranks, (unsigned)g->nmod);
    rt_table *t = count_table("summary", title, "traffic", NULL);
    if ((rc = rt_tables_add(ts, t)) || (rc = rt_table_row(t)) ||
        (rc = rt_table_cell(t, "all messages")) || (rc = count_cells(t, &g->total)))
        return rc;
    rt_table *mb = NULL, *mm = NULL;
    if ((rc = matrix(g, "matrix_bytes", "Bytes from module (rows) to module (columns)",
                     g->mat_bytes, NULL, &mb)) ||
        (rc = rt_tables_add(ts, mb)) ||
        (rc = matrix(g, "matrix_messages", "Messages from module (rows) to module (columns)", NULL,
                     g->mat_msgs, &mm)) ||
        (rc = rt_tables_add(ts, mm)))
        return rc;
    if ((rc = matrix(g, "plot", NULL, g->mat_bytes, NULL, &res->report.plot)))
        return rc;

    t = count_table("calls", "By MPI function", "function", NULL);
    if ((rc = rt_tables_add(ts, t)))
        return rc;
    for (unsigned f = 0; f < RT_FN_COUNT; f++)
        if (g->call[f].msgs &&
            ((rc = rt_table_row(t)) || (rc = rt_table_cell(t, "%s", rt_func_name(f))) ||
             (rc = count_cells(t, &g->call[f]))))
            return rc;
    int any_op = 0;
    for (unsigned op = 0; op < RT_COLL_COUNT; op++)
        any_op |= g->op[op].msgs != 0;
    if (any_op) {
        t = count_table("ops", "By collective operation", "operation", NULL);
        if ((rc = rt_tables_add(ts, t)))
            return rc;
        for (unsigned op = 0; op < RT_COLL_COUNT; op++)
            if (g->op[op].msgs &&
                ((rc = rt_table_row(t)) ||
                 (rc = rt_table_cell(t, "%s", rt_event_op_name(RT_EV_COLL_END, op))) ||
                 (rc = count_cells(t, &g->op[op]))))
                return rc;
    }
    t = count_table("comms", "By communicator", "communicator", "name");
    if ((rc = rt_tables_add(ts, t)))
        return rc;
    for (uint32_t i = 0; i < g->defs->ncomms; i++) {
        const rt_comm_def *c = &g->defs->comms[i];
        if (g->comm[i].msgs &&
            ((rc = rt_table_row(t)) || (rc = rt_table_cell(t, "%u", (unsigned)c->id)) ||
             (rc = rt_table_cell(t, "%s", c->name[0] ? c->name : "-")) ||
             (rc = count_cells(t, &g->comm[i]))))
            return rc;
    }
    if (g->o->nchoices) {
        static const char *const cols[] = {"collective algorithms",
                                           "coll messages across gw",
                                           "coll bytes across gw",
                                           "all messages across gw",
                                           "all bytes across gw",
                                           "messages saved",
                                           "bytes saved"};
        t = rt_table_new("compare", "Collective algorithm choices compared (wire level)", 7, cols,
                         "lrrrrrr");
        if ((rc = rt_tables_add(ts, t)))
            return rc;
        uint64_t other_msgs = g->total.gw_msgs - g->alt[0].gw_msgs;
        rt_u128 other_bytes = g->total.gw_bytes - g->alt[0].gw_bytes;
        for (unsigned i = 0; i <= g->o->nchoices; i++) {
            char name[512];
            if (i && g->o->label[i - 1])
                snprintf(name, sizeof name, "%s", g->o->label[i - 1]);
            else {
                const uint8_t *given = i ? g->o->choice[i - 1] : g->o->level.alg;
                uint8_t algs[RT_COLL_COUNT]; /* RT_AN_ALG_TRACE: the recording MPI's */
                for (unsigned op = 0; op < RT_COLL_COUNT; op++)
                    algs[op] = (uint8_t)rt_an_alg(given[op], g->defs);
                rt_coll_algs_name(algs, name, sizeof name);
            }
            const counts *c = &g->alt[i], *base = &g->alt[0];
            if ((rc = rt_table_row(t)) || (rc = rt_table_cell(t, "%s", name)) ||
                (rc = rt_table_cell_u64(t, c->gw_msgs)) ||
                (rc = rt_table_cell_u128(t, c->gw_bytes)) ||
                (rc = rt_table_cell_u64(t, other_msgs + c->gw_msgs)) ||
                (rc = rt_table_cell_u128(t, other_bytes + c->gw_bytes)) ||
                (rc = cell_saved(t, base->gw_msgs, c->gw_msgs)) ||
                (rc = cell_saved(t, base->gw_bytes, c->gw_bytes)))
                return rc;
        }
    }
    return 0;
}

/* After the last event: the v and w collectives still waiting for their rows. */
/* The totals on_msg leaves out: all messages (the sum per call, plus any of no call), and the
 * collectives' at the tables' choice, alt[0] (the sum per op). Once per state, at its end. */
static void sum_up(gw_pass *g)
{
    for (unsigned i = 0; i < RT_FN_COUNT; i++)
        add(&g->total, &g->call[i]);
    for (unsigned i = 0; i < RT_COLL_COUNT; i++)
        add(&g->alt[0], &g->op[i]);
}

static int end(void *ctx)
{
    gw_pass *g = ctx;
    int rc = rt_an_msgs_flush(g->ms, &g->o->level, on_msg, g, &g->res->notes);
    rt_an_level l = g->o->level;
    for (unsigned i = 0; !rc && i < g->o->nchoices; i++) {
        memcpy(l.alg, g->o->choice[i], sizeof l.alg);
        g->cur_alt = i + 1;
        rc = rt_an_msgs_flush(g->alt_ms[i], &l, on_alt_msg, g, NULL);
    }
    if (!rc)
        sum_up(g);
    return rc;
}

static int finish(void *ctx, rt_err *err)
{
    (void)err;
    gw_pass *g = ctx;
    rt_an_gw_result *res = g->res;
    res->messages = g->total.msgs;
    res->bytes = g->total.bytes;
    res->gw_messages = g->total.gw_msgs;
    res->gw_bytes = g->total.gw_bytes;
    return build_tables(g, g->o->level.level == RT_AN_WIRE ? "wire" : "call");
}

static void pass_free(gw_pass *g)
{
    rt_an_msgs_free(g->ms);
    for (unsigned i = 0; i < g->o->nchoices; i++)
        rt_an_msgs_free(g->alt_ms[i]);
    free(g->mods);
    free(g->mod_index);
    free(g->mat_bytes);
    free(g->mat_msgs);
    free(g->comm);
    free(g);
}

/* A part's state (threads, rt_an_run): a pass of its own whose result holds its notes. */
static void drop(void *part)
{
    gw_pass *g = part;
    free(g->res);
    pass_free(g);
}

static int fork_part(void *ctx, void **part, rt_err *err)
{
    const gw_pass *g = ctx;
    gw_pass *p = calloc(1, sizeof *p);
    rt_an_gw_result *res = calloc(1, sizeof *res);
    if (!p || !res) {
        free(p);
        free(res);
        return rt_err_set(err, RT_E_NOMEM, "out of memory");
    }
    p->o = g->o;
    p->res = res;
    int rc = setup(p, g->defs, err);
    if (rc < 0)
        drop(p);
    else
        *part = p;
    return rc;
}

static void add_all(counts *to, const counts *from, size_t n)
{
    for (size_t i = 0; i < n; i++)
        add(&to[i], &from[i]);
}

/* Every count is a sum: the part's are added. */
static int merge(void *ctx, void *part, uint32_t lo, uint32_t hi)
{
    (void)lo, (void)hi;
    gw_pass *g = ctx;
    const gw_pass *p = part;
    for (size_t i = 0; i < (size_t)g->nmod * g->nmod; i++) {
        g->mat_bytes[i] += p->mat_bytes[i];
        g->mat_msgs[i] += p->mat_msgs[i];
    }
    add_all(g->call, p->call, RT_FN_COUNT);
    add_all(g->op, p->op, RT_COLL_COUNT);
    add_all(&g->total, &p->total, 1);
    add_all(g->comm, p->comm, g->defs->ncomms);
    add_all(g->alt, p->alt, RT_AN_MAX_CHOICES + 1);
    g->res->notes.approx += p->res->notes.approx;
    g->res->notes.unexpanded += p->res->notes.unexpanded;
    return 0;
}

int rt_an_gateways(const char *path, const rt_an_gw_opts *o, rt_an_gw_result *res, rt_err *err)
{
    memset(res, 0, sizeof *res);
    gw_pass *g = calloc(1, sizeof *g);
    if (!g)
        return rt_err_set(err, RT_E_NOMEM, "out of memory");
    g->o = o;
    g->res = res;
    rt_an_pass pass = {.setup = setup,
                       .event = on_event,
                       .events = o->nchoices ? NULL : on_events,
                       .end = end,
                       .finish = finish,
                       .ctx = g,
                       .fork = fork_part,
                       .merge = merge,
                       .drop = drop,
                       .threads = o->threads};
    int rc = rt_an_run(path, &pass, &res->report.truncated, err);
    pass_free(g);
    return rc;
}
