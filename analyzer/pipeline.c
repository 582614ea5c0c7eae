/*
 * retrace pipeline: where software pipelining would pay (the Advanced-MPI seed's model).
 *
 * A chain is a large message with computation on both sides: the sender computes, then
 * sends s bytes; the receiver gets them, then computes. Computation is the recorded gap
 * between MPI calls: before the call that sends, after the call that completes the receive.
 * Cut into blocks of bs bytes (nblocks = ceil(s / bs)), the stages overlap:
 *   no pipeline  T  = Tcomp(s) + Tcomm(s) + Tstartc(s) + T'comp(s)
 *   pipeline     T  = Tcomp(bs) + Tcomm(bs) + Tstartc(bs)
 *                     + nblocks * max(Tcomp(bs), Tcomm(bs), Tstartc(bs), T'comp(bs))
 * with Tcomp and T'comp scaled linearly from the recorded gaps, Tcomm the model's wire time
 * and Tstartc the per-message overheads (o at each end). Sends and receives are matched per
 * (communicator, source, destination, tag, partitioned or not: rt_event_partitioned) in order.
 * Memory grows with the number of large messages only.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "rt_an.h"
#include "rt_util.h"

#define MIN_BLOCK_LOG2 10u /* blocks of 1 KiB, 2 KiB, ... */
#define CURVE_CHAINS 5u
#define GW_MTU_FIRST 10u /* gateway chunk candidates: 1 KiB .. */
#define GW_MTU_LAST 24u  /* .. 16 MiB */

typedef struct half {
    uint32_t comm, src, dst;
    int32_t tag;
    uint64_t seq, bytes, comp; /* comp: ns of computation before (send) or after (receive) */
    uint8_t contype;
    uint8_t part; /* rt_event_partitioned: MPI pairs those only with each other */
} half;

typedef struct halves {
    half *v;
    size_t n, cap;
} halves;

typedef struct rank_state {
    uint64_t enter, last_leave;
    unsigned depth;
    int left_once;
    size_t *open; /* receives completed in the current call: their comp is the next gap */
    size_t nopen, capopen;
    uint8_t in_ops; /* rt_pending_op */
} rank_state;

typedef struct pipe_pass {
    const rt_an_pipe_opts *o;
    const rt_defs *defs;
    uint32_t nranks;
    rank_state *rk;
    halves sends, recvs;
    uint64_t seq;
    uint64_t gw_msgs;
    rt_u128 gw_time[GW_MTU_LAST + 1]; /* wire time of all gw messages, chunk 2^i */
    uint64_t gw_long_bytes; /* the first gw message whose wire time does not fit (0: none) */
    uint32_t gw_long_src, gw_long_dst;
    uint64_t gw_empty; /* 0-byte gw messages: no chunk size changes them, left out */
} pipe_pass;

static int setup(void *ctx, const rt_defs *defs, rt_err *err)
{
    pipe_pass *p = ctx;
    p->defs = defs;
    p->nranks = defs->nranks;
    if (!(p->rk = calloc(defs->nranks, sizeof *p->rk)))
        return rt_err_set(err, RT_E_NOMEM, "out of memory for %u ranks", (unsigned)defs->nranks);
    return 0;
}

static int push(halves *h, const half *x)
{
    if (RT_VEC_RESERVE(h->v, h->cap, (uint64_t)h->n + 1, 256) < 0)
        return -RT_E_NOMEM;
    h->v[h->n++] = *x;
    return 0;
}

static int on_event(void *ctx, const rt_event *ev)
{
    pipe_pass *p = ctx;
    rank_state *s = &p->rk[ev->rank];
    /* A pending call's sends and receives never completed: no transfer, no chain. */
    if (rt_pending_op(&s->in_ops, ev))
        return 0;
    switch (ev->kind) {
    case RT_EV_ENTER:
        if (s->depth++ == 0) {
            for (size_t i = 0; i < s->nopen; i++)
                p->recvs.v[s->open[i]].comp = ev->time - s->last_leave;
            s->nopen = 0;
            s->enter = ev->time;
        }
        return 0;
    case RT_EV_LEAVE:
        if (s->depth && --s->depth == 0) {
            s->last_leave = ev->time;
            s->left_once = 1;
        }
        return 0;
    case RT_EV_SEND:
    case RT_EV_ISEND: {
        int64_t dst = rt_defs_peer_world(p->defs, ev);
        if (dst < 0)
            return 0;
        if (ev->contype == RT_CT_GW && !ev->bytes)
            p->gw_empty++;
        if (ev->contype == RT_CT_GW && ev->bytes) {
            p->gw_msgs++;
            for (unsigned i = GW_MTU_FIRST; i <= GW_MTU_LAST; i++) {
                uint64_t w = rt_net_wire_ps(&p->o->model, RT_CT_GW, ev->bytes, UINT64_C(1) << i);
                if (w == UINT64_MAX && !p->gw_long_bytes) { /* saturated: too long */
                    p->gw_long_bytes = ev->bytes;
                    p->gw_long_src = ev->rank;
                    p->gw_long_dst = (uint32_t)dst;
                }
                p->gw_time[i] += w;
            }
        }
        if (ev->bytes < p->o->min_bytes)
            return 0;
        uint64_t start = s->depth ? s->enter : ev->time;
        half h = {.comm = ev->comm,
                  .src = ev->rank,
                  .dst = (uint32_t)dst,
                  .tag = ev->tag,
                  .seq = p->seq++,
                  .bytes = ev->bytes,
                  .contype = ev->contype,
                  .part = (uint8_t)rt_event_partitioned(ev),
                  .comp = s->left_once && start > s->last_leave ? start - s->last_leave : 0};
        return push(&p->sends, &h);
    }
    case RT_EV_RECV:
    case RT_EV_IRECV: {
        int64_t src = rt_defs_peer_world(p->defs, ev);
        if (src < 0 || ev->bytes < p->o->min_bytes)
            return 0;
        half h = {.comm = ev->comm,
                  .src = (uint32_t)src,
                  .dst = ev->rank,
                  .tag = ev->tag,
                  .seq = p->seq++,
                  .bytes = ev->bytes,
                  .contype = ev->contype,
                  .part = (uint8_t)rt_event_partitioned(ev)};
        if (RT_VEC_RESERVE(s->open, s->capopen, (uint64_t)s->nopen + 1, 4) < 0)
            return -RT_E_NOMEM;
        s->open[s->nopen++] = p->recvs.n;
        return push(&p->recvs, &h);
    }
    default:
        return 0;
    }
}

static int cmp_half(const void *a, const void *b)
{
    const half *x = a, *y = b;
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
    return (x->seq > y->seq) - (x->seq < y->seq);
}

/* ---- the model ------------------------------------------------------------------------------- */

typedef struct chain {
    uint32_t src, dst;
    uint64_t bytes, comp_s, comp_r; /* comps in ps */
    uint8_t contype;
    uint64_t t0, t_best, block, saving, gw_mtu;
} chain;

static uint64_t scale(uint64_t v, uint64_t part, uint64_t whole)
{
    return (uint64_t)((unsigned __int128)v * part / whole);
}

static uint64_t max4(uint64_t a, uint64_t b, uint64_t c, uint64_t d)
{
    uint64_t m = a > b ? a : b;
    m = m > c ? m : c;
    return m > d ? m : d;
}

/* The overheads at both ends; UINT64_MAX when they do not fit (the model's o past 2^63 ps). */
static uint64_t startc(const rt_net_model *m, unsigned ct)
{
    const rt_net_link *l = &m->link[ct < RT_CT_COUNT ? ct : RT_CT_NET];
    return rt_add_sat(l->overhead_ps, l->overhead_ps);
}

/* Time of the chain cut into blocks of bs bytes (bs < s). In 128 bits: for small blocks of a
 * huge message nblocks times a stage passes 2^64 ps, and such a cut is never the best (nor is
 * one whose wire time saturated: it takes at least UINT64_MAX ps, more than t0). */
static rt_u128 pipelined(const rt_net_model *m, const chain *c, uint64_t bs)
{
    uint64_t nblocks = c->bytes / bs + (c->bytes % bs != 0);
    uint64_t tc = scale(c->comp_s, bs, c->bytes), tr = scale(c->comp_r, bs, c->bytes);
    uint64_t tm = rt_net_wire_ps(m, c->contype, bs, 0), ts = startc(m, c->contype);
    return (rt_u128)tc + tm + ts + (rt_u128)nblocks * max4(tc, tm, ts, tr);
}

/* The chain's times without and with pipelining (comps in ns). -RT_E_RANGE when they do not
 * fit in 64-bit picoseconds: a gap of more than 213 days, or a message the model takes that
 * long to move (its wire time saturated at UINT64_MAX). */
static int evaluate(const rt_net_model *m, chain *c, uint64_t comp_s_ns, uint64_t comp_r_ns)
{
    if (rt_mul_overflow(comp_s_ns, 1000, &c->comp_s) ||
        rt_mul_overflow(comp_r_ns, 1000, &c->comp_r))
        return -RT_E_RANGE;
    rt_u128 t0 = (rt_u128)c->comp_s + rt_net_wire_ps(m, c->contype, c->bytes, 0) +
                 startc(m, c->contype) + c->comp_r;
    if (t0 >= UINT64_MAX)
        return -RT_E_RANGE;
    c->t0 = c->t_best = (uint64_t)t0;
    c->block = 0;
    for (unsigned i = MIN_BLOCK_LOG2; i < 64 && UINT64_C(1) << i < c->bytes; i++) {
        rt_u128 t = pipelined(m, c, UINT64_C(1) << i);
        if (t < c->t_best) {
            c->t_best = (uint64_t)t;
            c->block = UINT64_C(1) << i;
        }
    }
    c->saving = c->t0 - c->t_best;
    c->gw_mtu = c->contype == RT_CT_GW ? rt_net_best_gw_mtu(m, c->bytes, NULL) : 0;
    return 0;
}

static int cmp_chain(const void *a, const void *b)
{
    const chain *x = a, *y = b;
    if (x->saving != y->saving)
        return x->saving < y->saving ? 1 : -1;
    if (x->src != y->src)
        return x->src < y->src ? -1 : 1;
    return (x->dst > y->dst) - (x->dst < y->dst);
}

/* Picoseconds as microseconds with three decimals (truncated), in buf. */
static const char *us_text(rt_u128 ps, char *buf, size_t len)
{
    char whole[RT_U128_LEN];
    snprintf(buf, len, "%s.%03u", rt_u128_str(ps / 1000000, whole, sizeof whole),
             (unsigned)(ps / 1000 % 1000));
    return buf;
}

static int cell_us(rt_table *t, rt_u128 ps)
{
    char buf[RT_U128_LEN + 8];
    return rt_table_cell(t, "%s", us_text(ps, buf, sizeof buf));
}

/* The summary table: the model, the size threshold and the totals over all chains. */
static int add_summary(const pipe_pass *p, const rt_an_pipe_result *res, rt_tables *ts)
{
    int rc;
    static const char *const scols[] = {"what", "value"};
    rt_table *t = rt_table_new("summary", "Software pipelining estimate", 2, scols, "ll");
    if ((rc = rt_tables_add(ts, t)))
        return rc;
    char minb[32];
    rt_an_size_label(p->o->min_bytes, minb, sizeof minb);
    char total[RT_U128_LEN + 16], us[RT_U128_LEN + 8];
    snprintf(total, sizeof total, "%s us", us_text(res->saving_ps, us, sizeof us));
    const char *rows[][2] = {{"model", p->o->model.source}, {"messages of at least", minb}};
    for (unsigned i = 0; i < 2; i++)
        if ((rc = rt_table_row(t)) || (rc = rt_table_cell(t, "%s", rows[i][0])) ||
            (rc = rt_table_cell(t, "%s", rows[i][1])))
            return rc;
    if ((rc = rt_table_row(t)) ||
        (rc = rt_table_cell(t, "chains (send, large message, receive)")) ||
        (rc = rt_table_cell_u64(t, res->chains)) || (rc = rt_table_row(t)) ||
        (rc = rt_table_cell(t, "chains that gain from pipelining")) ||
        (rc = rt_table_cell_u64(t, res->gaining)) || (rc = rt_table_row(t)) ||
        (rc = rt_table_cell(t, "total possible saving")) || (rc = rt_table_cell(t, "%s", total)))
        return rc;
    return 0;
}

/* The chains table: the first --top chains of ch (sorted, best first). */
static int add_chains(const pipe_pass *p, const chain *ch, size_t n, rt_tables *ts)
{
    int rc;
    static const char *const cols[] = {"rank",
                                       "from",
                                       "to",
                                       "bytes",
                                       "type",
                                       "send comp (us)",
                                       "recv comp (us)",
                                       "no pipeline (us)",
                                       "best block",
                                       "pipelined (us)",
                                       "saving (us)",
                                       "best gw mtu"};
    char line[256];
    unsigned shown = p->o->top && n > p->o->top ? p->o->top : (unsigned)n;
    snprintf(line, sizeof line, "Chains ranked by saving (%u of %zu)", shown, n);
    rt_table *t = rt_table_new("chains", line, 12, cols, "rrrrlrrrrrrr");
    if ((rc = rt_tables_add(ts, t)))
        return rc;
    for (unsigned i = 0; i < shown; i++) {
        const chain *c = &ch[i];
        char blk[32] = "-", mtu[32] = "-";
        if (c->block)
            rt_an_size_label(c->block, blk, sizeof blk);
        if (c->gw_mtu)
            rt_an_size_label(c->gw_mtu, mtu, sizeof mtu);
        if ((rc = rt_table_row(t)) || (rc = rt_table_cell(t, "%u", i + 1)) ||
            (rc = rt_table_cell_u64(t, c->src)) || (rc = rt_table_cell_u64(t, c->dst)) ||
            (rc = rt_table_cell_u64(t, c->bytes)) ||
            (rc = rt_table_cell(t, "%s", rt_contype_name(c->contype))) ||
            (rc = cell_us(t, c->comp_s)) || (rc = cell_us(t, c->comp_r)) ||
            (rc = cell_us(t, c->t0)) || (rc = rt_table_cell(t, "%s", blk)) ||
            (rc = cell_us(t, c->t_best)) || (rc = cell_us(t, c->saving)) ||
            (rc = rt_table_cell(t, "%s", mtu)))
            return rc;
    }
    return 0;
}

/* The gateway table: the chunk size that minimises the gateway wire time summed over every
 * message that crossed a gateway (chunks larger than a message cost what the message does).
 * None when no message crossed one. */
static int add_gateway(const pipe_pass *p, rt_tables *ts)
{
    int rc;
    if (!p->gw_msgs)
        return 0;
    static const char *const gcols[] = {"gw mtu", "wire time of all gw messages (us)"};
    char line[256];
    int k = snprintf(line, sizeof line,
                     "Gateway chunk size (PSP_GW_MTU) over the %" PRIu64
                     " message%s that cross%s a gateway",
                     p->gw_msgs, p->gw_msgs == 1 ? "" : "s", p->gw_msgs == 1 ? "es" : "");
    if (p->gw_empty && k > 0 && (size_t)k < sizeof line) /* say what is left out */
        snprintf(line + k, sizeof line - (size_t)k,
                 "; %" PRIu64 " of 0 bytes left out (no chunk size changes %s)", p->gw_empty,
                 p->gw_empty == 1 ? "it" : "them");
    rt_table *t = rt_table_new("gateway", line, 2, gcols, "rr");
    if ((rc = rt_tables_add(ts, t)))
        return rc;
    unsigned best = GW_MTU_FIRST;
    for (unsigned i = GW_MTU_FIRST; i <= GW_MTU_LAST; i++) {
        if (p->gw_time[i] < p->gw_time[best])
            best = i;
        char lab[32];
        rt_an_size_label(UINT64_C(1) << i, lab, sizeof lab);
        if ((rc = rt_table_row(t)) || (rc = rt_table_cell(t, "%s", lab)) ||
            (rc = cell_us(t, p->gw_time[i])))
            return rc;
    }
    char lab[32];
    rt_an_size_label(UINT64_C(1) << best, lab, sizeof lab);
    if ((rc = rt_table_row(t)) || (rc = rt_table_cell(t, "best: %s", lab)) ||
        (rc = cell_us(t, p->gw_time[best])))
        return rc;
    return 0;
}

/* The plot: saving against block size for the best chains that gain (at most CURVE_CHAINS of
 * them); none when no chain gains. */
static int add_curves(const pipe_pass *p, const chain *ch, size_t n, rt_an_pipe_result *res)
{
    int rc;
    unsigned nc = 0;
    while (nc < n && nc < CURVE_CHAINS && ch[nc].saving)
        nc++;
    if (!nc)
        return 0;
    const char *pcols[CURVE_CHAINS + 1];
    char names[CURVE_CHAINS][64];
    pcols[0] = "block";
    uint64_t maxbytes = 0;
    for (unsigned i = 0; i < nc; i++) {
        char sz[32];
        rt_an_size_label(ch[i].bytes, sz, sizeof sz);
        snprintf(names[i], sizeof names[i], "#%u %u->%u %s", i + 1, (unsigned)ch[i].src,
                 (unsigned)ch[i].dst, sz);
        pcols[i + 1] = names[i];
        maxbytes = ch[i].bytes > maxbytes ? ch[i].bytes : maxbytes;
    }
    rt_table *t = res->report.plot = rt_table_new("plot", NULL, nc + 1, pcols, "r");
    if (!t)
        return -RT_E_NOMEM;
    for (unsigned b = MIN_BLOCK_LOG2; b < 64 && UINT64_C(1) << b < maxbytes; b++) {
        uint64_t bs = UINT64_C(1) << b;
        if ((rc = rt_table_row(t)) || (rc = rt_table_cell_u64(t, bs)))
            return rc;
        for (unsigned i = 0; i < nc; i++) {
            if (bs >= ch[i].bytes) {
                rc = rt_table_cell(t, "%s", "");
            } else {
                __int128 d = (__int128)ch[i].t0 - (__int128)pipelined(&p->o->model, &ch[i], bs);
                rc = rt_table_cell(t, "%.3f", (double)d / 1e6);
            }
            if (rc)
                return rc;
        }
    }
    return 0;
}

/* The report of the chains ch (sorted, best first): its tables and its plot. */
static int build(const pipe_pass *p, const chain *ch, size_t n, rt_an_pipe_result *res)
{
    rt_tables *ts = &res->report.tables;
    int rc;
    if ((rc = add_summary(p, res, ts)) || (rc = add_chains(p, ch, n, ts)) ||
        (rc = add_gateway(p, ts)))
        return rc;
    return add_curves(p, ch, n, res);
}

/* A time of the analysis that does not fit (evaluate, the gateway table), as the message. */
static int too_long(rt_err *err, const char *path, const char *what, uint32_t src, uint32_t dst,
                    uint64_t bytes, const rt_net_model *m)
{
    return rt_err_set(err, RT_E_RANGE,
                      "%s: rank %u to rank %u, %llu bytes: %s under the model (%s) does not "
                      "fit in 64-bit picoseconds (about 213 days)",
                      path, (unsigned)src, (unsigned)dst, (unsigned long long)bytes, what,
                      m->source);
}

/* The chains: the i-th send of a channel with its i-th receive, when either side computes. */
static int match_chains(const pipe_pass *p, const char *path, chain *ch, size_t *nch,
                        rt_an_pipe_result *res, rt_err *err)
{
    size_t n = 0;
    for (size_t i = 0, j = 0; i < p->sends.n && j < p->recvs.n;) {
        const half *s = &p->sends.v[i], *r = &p->recvs.v[j];
        half a = *s, b = *r;
        a.seq = b.seq = 0;
        int c = cmp_half(&a, &b);
        if (c < 0) {
            i++;
            continue;
        }
        if (c > 0) {
            j++;
            continue;
        }
        if (s->comp || r->comp) {
            chain *x = &ch[n++];
            memset(x, 0, sizeof *x);
            x->src = s->src;
            x->dst = s->dst;
            x->bytes = s->bytes;
            x->contype = s->contype;
            if (evaluate(&p->o->model, x, s->comp, r->comp) < 0)
                return too_long(err, path, "the chain's time (computation and transfer)", s->src,
                                s->dst, s->bytes, &p->o->model);
            res->gaining += x->saving != 0;
            res->saving_ps += x->saving;
        }
        i++;
        j++;
    }
    *nch = n;
    return 0;
}

int rt_an_pipeline(const char *path, const rt_an_pipe_opts *o, rt_an_pipe_result *res, rt_err *err)
{
    memset(res, 0, sizeof *res);
    pipe_pass p = {.o = o};
    rt_an_pass pass = {.setup = setup, .event = on_event, .ctx = &p};
    int rc = rt_an_run(path, &pass, &res->report.truncated, err);
    chain *ch = NULL;
    size_t n = 0;
    if (!rc && p.gw_long_bytes)
        rc = too_long(err, path, "the wire time across a gateway", p.gw_long_src, p.gw_long_dst,
                      p.gw_long_bytes, &o->model);
    if (!rc) {
        if (p.sends.n) /* none: v is NULL, which qsort must not get */
            qsort(p.sends.v, p.sends.n, sizeof *p.sends.v, cmp_half);
        if (p.recvs.n)
            qsort(p.recvs.v, p.recvs.n, sizeof *p.recvs.v, cmp_half);
        ch = malloc((p.sends.n ? p.sends.n : 1) * sizeof *ch);
        if (!ch)
            rc = rt_err_set(err, RT_E_NOMEM, "out of memory");
    }
    if (!rc)
        rc = match_chains(&p, path, ch, &n, res, err);
    res->chains = n;
    if (!rc) {
        qsort(ch, n, sizeof *ch, cmp_chain);
        if ((rc = build(&p, ch, n, res)))
            rt_err_set(err, -rc, "%s: %s", path, rt_strerror(rc));
    }
    for (uint32_t r = 0; p.rk && r < p.nranks; r++)
        free(p.rk[r].open);
    free(p.rk);
    free(p.sends.v);
    free(p.recvs.v);
    free(ch);
    return rc;
}
