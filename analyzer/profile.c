/*
 * retrace profile: time in MPI per function and rank (like mpiP), the rank x rank message
 * matrix of point-to-point sends, the busiest communicators and load imbalance.
 * Times are those of the outermost MPI calls (ENTER to LEAVE); computation is the time
 * between leaving one call and entering the next.
 */
#define _GNU_SOURCE /* asprintf */
#include <inttypes.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "rt_an.h"
#include "rt_util.h"

#define MATRIX_MAX_RANKS 32u /* full matrices in the text output up to this many ranks */
#define PLOT_MAX_RANKS 1024u /* heat map up to this many ranks */
#define TOP_PAIRS 100u
#define TOP_COMMS 10u

typedef struct fstat {
    uint16_t fn;
    uint64_t calls, time, min, max;
} fstat;

/* One thread of a rank (rt_event.thread): its own calls, from its own enters and leaves. */
typedef struct thread_state {
    uint64_t first, last, enter, mpi, calls;
    unsigned depth;
    int seen, pending;
    uint8_t id; /* its rt_event.thread */
} thread_state;

/* Times of one rank (sums of its calls' spans and of the gaps between them) fit in 64 bits,
 * its events being in time order; its bytes, and sums over ranks, may not: those are rt_u128. */
typedef struct rank_state {
    uint64_t first, last, enter, last_leave, mpi, compute, sent_msgs;
    rt_u128 sent_bytes;
    unsigned depth;
    int seen, left_once;
    uint16_t fn;
    uint32_t comm;    /* communicator index touched by the current call, or UINT32_MAX */
    uint8_t in_ops;   /* rt_pending_op */
    uint8_t pending;  /* the rank's outermost open call holds a pending call */
    thread_state t0;  /* the first thread */
    thread_state *th; /* its other threads seen so far, by id: memory follows the events */
    unsigned nth, thcap;
    fstat *f;
    unsigned nf, fcap;
} rank_state;

typedef struct pair {
    uint64_t key; /* src << 32 | dst, UINT64_MAX when empty */
    uint64_t msgs;
    rt_u128 bytes;
} pair;

typedef struct comm_stat {
    uint64_t p2p_msgs, colls;
    rt_u128 p2p_bytes, coll_bytes, time; /* time: summed over ranks */
} comm_stat;

typedef struct prof {
    const rt_defs *defs;
    uint32_t nranks;
    rt_an_profile_result *res;
    rank_state *rk;
    pair *pairs;
    size_t npairs, cap;
    comm_stat *comm;
    uint64_t tmax; /* the last event's time: where pending calls end */
} prof;

static int setup(void *ctx, const rt_defs *defs, rt_err *err)
{
    prof *p = ctx;
    p->defs = defs;
    p->nranks = defs->nranks;
    p->rk = calloc(defs->nranks, sizeof *p->rk);
    p->comm = calloc(defs->ncomms ? defs->ncomms : 1, sizeof *p->comm);
    p->cap = 1024;
    p->pairs = malloc(p->cap * sizeof *p->pairs);
    if (!p->rk || !p->comm || !p->pairs)
        return rt_err_set(err, RT_E_NOMEM, "out of memory for %u ranks", (unsigned)defs->nranks);
    for (size_t i = 0; i < p->cap; i++)
        p->pairs[i].key = UINT64_MAX;
    for (uint32_t r = 0; r < defs->nranks; r++)
        p->rk[r].comm = UINT32_MAX;
    return 0;
}

RT_WRAPS static uint64_t pair_hash_key(uint64_t key)
{
    return (key * UINT64_C(0x9E3779B97F4A7C15)) >> 20;
}

static int pair_empty(const void *s)
{
    return ((const pair *)s)->key == UINT64_MAX;
}

static void pair_clear(void *s)
{
    ((pair *)s)->key = UINT64_MAX;
}

static uint64_t pair_hash(const void *s)
{
    return pair_hash_key(((const pair *)s)->key);
}

/* The (src, dst) table: rt_hash.h's probing over slots of its own. */
static const rt_htab_ops pair_ops = {
    .size = sizeof(pair), .empty = pair_empty, .clear = pair_clear, .hash = pair_hash};

static size_t slot(const pair *t, size_t cap, uint64_t key)
{
    size_t i = (size_t)pair_hash_key(key) & (cap - 1);
    while (t[i].key != UINT64_MAX && t[i].key != key)
        i = (i + 1) & (cap - 1);
    return i;
}

/* msgs messages of bytes in all from the pair key (src << 32 | dst). */
static int add_pair(prof *p, uint64_t key, uint64_t msgs, rt_u128 bytes)
{
    if (rt_htab_full(p->npairs, p->cap, 1, 2) &&
        rt_htab_grow(&p->pairs, &p->cap, 1024, &pair_ops) < 0)
        return -RT_E_NOMEM;
    pair *e = &p->pairs[slot(p->pairs, p->cap, key)];
    if (e->key == UINT64_MAX) {
        e->key = key;
        e->msgs = e->bytes = 0;
        p->npairs++;
    }
    e->msgs += msgs;
    e->bytes += bytes;
    return 0;
}

static int count_pair(prof *p, uint32_t src, uint32_t dst, uint64_t bytes)
{
    return add_pair(p, (uint64_t)src << 32 | dst, 1, bytes);
}

static int add_time(rank_state *s, uint16_t fn, uint64_t t)
{
    for (unsigned i = 0; i < s->nf; i++)
        if (s->f[i].fn == fn) {
            fstat *f = &s->f[i];
            f->calls++;
            f->time += t;
            f->min = t < f->min ? t : f->min;
            f->max = t > f->max ? t : f->max;
            return 0;
        }
    if (RT_VEC_RESERVE(s->f, s->fcap, (uint64_t)s->nf + 1, 16) < 0)
        return -RT_E_NOMEM;
    s->f[s->nf++] = (fstat){.fn = fn, .calls = 1, .time = t, .min = t, .max = t};
    return 0;
}

/* A thread's own time in MPI: its outermost calls. */
static int thread_event(rank_state *s, const rt_event *ev)
{
    thread_state *t = &s->t0;
    if (ev->thread) {
        unsigned k = 0;
        while (k < s->nth && s->th[k].id < ev->thread)
            k++;
        if (k == s->nth || s->th[k].id != ev->thread) { /* the thread's first event */
            if (RT_VEC_RESERVE(s->th, s->thcap, (uint64_t)s->nth + 1, 4) < 0)
                return -RT_E_NOMEM;
            memmove(&s->th[k + 1], &s->th[k], (s->nth - k) * sizeof *s->th);
            s->th[k] = (thread_state){.id = ev->thread};
            s->nth++;
        }
        t = &s->th[k];
    }
    if (!t->seen) {
        t->first = ev->time;
        t->seen = 1;
    }
    t->last = ev->time;
    if (ev->kind == RT_EV_PENDING)
        t->pending = 1;
    else if (ev->kind == RT_EV_ENTER && t->depth++ == 0)
        t->enter = ev->time;
    else if (ev->kind == RT_EV_LEAVE && t->depth && --t->depth == 0) {
        t->mpi += ev->time - t->enter;
        t->calls++;
    }
    return 0;
}

static int on_event(void *ctx, const rt_event *ev)
{
    prof *p = ctx;
    rank_state *s = &p->rk[ev->rank];
    int trc = thread_event(s, ev);
    if (trc)
        return trc;
    if (!s->seen) {
        s->first = ev->time;
        s->seen = 1;
    }
    s->last = ev->time;
    const rt_comm_def *c;
    if (ev->time > p->tmax)
        p->tmax = ev->time;
    int pending_op = rt_pending_op(&s->in_ops, ev);
    switch (ev->kind) {
    case RT_EV_PENDING:
        s->pending = 1;
        return 0;
    case RT_EV_ENTER:
        if (s->depth++ == 0) {
            s->enter = ev->time;
            s->fn = ev->call;
            s->comm = UINT32_MAX;
            if (s->left_once)
                s->compute += ev->time - s->last_leave;
        }
        return 0;
    case RT_EV_LEAVE:
        if (s->depth == 0 || --s->depth)
            return 0;
        s->mpi += ev->time - s->enter;
        s->last_leave = ev->time;
        s->left_once = 1;
        if (s->comm != UINT32_MAX)
            p->comm[s->comm].time += ev->time - s->enter;
        return add_time(s, s->fn, ev->time - s->enter);
    case RT_EV_SEND:
    case RT_EV_ISEND: {
        int64_t dst = rt_defs_peer_world(p->defs, ev);
        s->sent_msgs++;
        s->sent_bytes += ev->bytes;
        if ((c = rt_defs_comm(p->defs, ev->comm))) {
            s->comm = (uint32_t)(c - p->defs->comms);
            p->comm[s->comm].p2p_msgs++;
            p->comm[s->comm].p2p_bytes += ev->bytes;
        }
        return dst < 0 ? 0 : count_pair(p, ev->rank, (uint32_t)dst, ev->bytes);
    }
    case RT_EV_RECV:
    case RT_EV_IRECV:
        if ((c = rt_defs_comm(p->defs, ev->comm)))
            s->comm = (uint32_t)(c - p->defs->comms);
        return 0;
    case RT_EV_COLL_END:
    case RT_EV_NBC_COMPLETE:
        if ((c = rt_defs_comm(p->defs, ev->comm))) {
            s->comm = (uint32_t)(c - p->defs->comms);
            if (pending_op) /* it did not complete: not counted */
                return 0;
            p->comm[s->comm].colls++;
            p->comm[s->comm].coll_bytes += ev->bytes;
        }
        return 0;
    default:
        return 0;
    }
}

/* ---- tables ---------------------------------------------------------------------------------- */

/* Nanoseconds as microseconds with three decimals: exact. */
static int cell_us(rt_table *t, rt_u128 ns)
{
    char b[RT_U128_LEN];
    return rt_table_cell(t, "%s.%03u", rt_u128_str(ns / 1000, b, sizeof b), (unsigned)(ns % 1000));
}

static int cell_pct(rt_table *t, rt_u128 part, rt_u128 whole)
{
    return whole ? rt_table_cell(t, "%.2f", 100.0 * (double)part / (double)whole)
                 : rt_table_cell(t, "-");
}

static int ranks_table(prof *p, rt_tables *ts)
{
    static const char *const cols[] = {"rank",         "app (us)",      "MPI (us)",  "MPI %",
                                       "compute (us)", "messages sent", "bytes sent"};
    rt_table *t = rt_table_new("ranks", "Time per rank", 7, cols, "r");
    int rc = rt_tables_add(ts, t);
    for (uint32_t r = 0; !rc && r < p->defs->nranks; r++) {
        rank_state *s = &p->rk[r];
        uint64_t app = s->last - s->first;
        (void)((rc = rt_table_row(t)) || (rc = rt_table_cell_u64(t, r)) || (rc = cell_us(t, app)) ||
               (rc = cell_us(t, s->mpi)) || (rc = cell_pct(t, s->mpi, app)) ||
               (rc = cell_us(t, s->compute)) || (rc = rt_table_cell_u64(t, s->sent_msgs)) ||
               (rc = rt_table_cell_u128(t, s->sent_bytes)));
    }
    return rc;
}

/* For the ranks of more than one thread, each thread's own time (docs/analyzer.md): a table only
 * when the trace has such a rank. */
static int threads_table(prof *p, rt_tables *ts)
{
    uint32_t r = 0;
    while (r < p->defs->nranks && !p->rk[r].nth)
        r++;
    if (r == p->defs->nranks)
        return 0;
    static const char *const cols[] = {"rank", "thread", "app (us)", "MPI (us)", "MPI %", "calls"};
    rt_table *t =
        rt_table_new("threads", "Time per thread (ranks of more than one thread)", 6, cols, "r");
    int rc = rt_tables_add(ts, t);
    for (; !rc && r < p->defs->nranks; r++) {
        const rank_state *s = &p->rk[r];
        for (unsigned k = 0; !rc && s->nth && k <= s->nth; k++) {
            const thread_state *h = k ? &s->th[k - 1] : &s->t0;
            if (!h->seen)
                continue; /* thread 0 without events */
            uint64_t app = h->last - h->first;
            (void)((rc = rt_table_row(t)) || (rc = rt_table_cell_u64(t, r)) ||
                   (rc = rt_table_cell_u64(t, h->id)) || (rc = cell_us(t, app)) ||
                   (rc = cell_us(t, h->mpi)) || (rc = cell_pct(t, h->mpi, app)) ||
                   (rc = rt_table_cell_u64(t, h->calls)));
        }
    }
    return rc;
}

typedef struct fagg {
    uint16_t fn;
    uint64_t calls, min, max;
    rt_u128 time; /* summed over ranks */
} fagg;

/* Most time first; functions never called last, where the tables stop (a call that took no
 * time, such as a pending call at the trace's last moment, still comes before them). */
static int cmp_fagg(const void *a, const void *b)
{
    const fagg *x = a, *y = b;
    if (!x->calls != !y->calls)
        return x->calls ? -1 : 1;
    if (x->time != y->time)
        return x->time < y->time ? 1 : -1;
    return (x->fn > y->fn) - (x->fn < y->fn);
}

static int functions_tables(prof *p, rt_tables *ts)
{
    fagg *agg = calloc(RT_FN_COUNT, sizeof *agg);
    if (!agg)
        return -RT_E_NOMEM;
    rt_u128 mpi = 0, app = 0;
    for (uint32_t r = 0; r < p->defs->nranks; r++) {
        rank_state *s = &p->rk[r];
        mpi += s->mpi;
        app += s->last - s->first;
        for (unsigned i = 0; i < s->nf; i++) {
            fagg *a = &agg[s->f[i].fn];
            a->fn = s->f[i].fn;
            a->min = a->calls && a->min < s->f[i].min ? a->min : s->f[i].min;
            a->max = a->max > s->f[i].max ? a->max : s->f[i].max;
            a->calls += s->f[i].calls;
            a->time += s->f[i].time;
        }
    }
    qsort(agg, RT_FN_COUNT, sizeof *agg, cmp_fagg);
    static const char *const cols[] = {"function", "calls",    "time (us)", "mean (us)",
                                       "min (us)", "max (us)", "% of MPI",  "% of app"};
    rt_table *t =
        rt_table_new("functions", "Time in MPI per function (all ranks)", 8, cols, "lrrrrrrr");
    int rc = rt_tables_add(ts, t);
    for (unsigned i = 0; !rc && i < RT_FN_COUNT && agg[i].calls; i++) {
        fagg *a = &agg[i];
        (void)((rc = rt_table_row(t)) || (rc = rt_table_cell(t, "%s", rt_func_name(a->fn))) ||
               (rc = rt_table_cell_u64(t, a->calls)) || (rc = cell_us(t, a->time)) ||
               (rc = cell_us(t, a->time / a->calls)) || (rc = cell_us(t, a->min)) ||
               (rc = cell_us(t, a->max)) || (rc = cell_pct(t, a->time, mpi)) ||
               (rc = cell_pct(t, a->time, app)));
    }
    static const char *const cols2[] = {"function",  "rank",     "calls",   "time (us)",
                                        "mean (us)", "min (us)", "max (us)"};
    t = rc ? NULL
           : rt_table_new("function_rank", "Time in MPI per function and rank", 7, cols2,
                          "lrrrrrr");
    if (!rc)
        rc = rt_tables_add(ts, t);
    for (unsigned i = 0; !rc && i < RT_FN_COUNT && agg[i].calls; i++)
        for (uint32_t r = 0; !rc && r < p->defs->nranks; r++) {
            rank_state *s = &p->rk[r];
            for (unsigned j = 0; !rc && j < s->nf; j++) {
                fstat *f = &s->f[j];
                if (f->fn != agg[i].fn)
                    continue;
                (void)((rc = rt_table_row(t)) ||
                       (rc = rt_table_cell(t, "%s", rt_func_name(f->fn))) ||
                       (rc = rt_table_cell_u64(t, r)) || (rc = rt_table_cell_u64(t, f->calls)) ||
                       (rc = cell_us(t, f->time)) || (rc = cell_us(t, f->time / f->calls)) ||
                       (rc = cell_us(t, f->min)) || (rc = cell_us(t, f->max)));
            }
        }
    free(agg);
    return rc;
}

static int cmp_pair(const void *a, const void *b)
{
    const pair *x = a, *y = b;
    if (x->bytes != y->bytes)
        return x->bytes < y->bytes ? 1 : -1;
    return (x->key > y->key) - (x->key < y->key);
}

static int square(prof *p, const char *name, const char *title, int bytes, rt_table **out)
{
    uint32_t n = p->defs->nranks;
    const char **cols = calloc(n + 1, sizeof *cols);
    char **names = calloc(n, sizeof *names);
    rt_u128 *v = calloc((size_t)n * n, sizeof *v);
    rt_table *t = NULL;
    int rc = -RT_E_NOMEM;
    if (!cols || !names || !v)
        goto out;
    cols[0] = "from \\ to";
    for (uint32_t i = 0; i < n; i++) {
        if (asprintf(&names[i], "rank %u", (unsigned)i) < 0) {
            names[i] = NULL;
            goto out;
        }
        cols[i + 1] = names[i];
    }
    for (size_t i = 0; i < p->cap; i++)
        if (p->pairs[i].key != UINT64_MAX)
            v[(p->pairs[i].key >> 32) * n + (p->pairs[i].key & UINT32_MAX)] =
                bytes ? p->pairs[i].bytes : p->pairs[i].msgs;
    if (!(t = rt_table_new(name, title, n + 1, cols, "l")))
        goto out;
    for (uint32_t r = 0; r < n; r++) {
        if ((rc = rt_table_row(t)) || (rc = rt_table_cell(t, "%s", names[r])))
            goto out;
        for (uint32_t c = 0; c < n; c++)
            if ((rc = rt_table_cell_u128(t, v[(size_t)r * n + c])))
                goto out;
    }
    rc = 0;
out:
    for (uint32_t i = 0; names && i < n; i++)
        free(names[i]);
    free(names);
    free(cols);
    free(v);
    if (rc)
        rt_table_free(t);
    else
        *out = t;
    return rc;
}

static int matrix_tables(prof *p, rt_an_profile_result *res)
{
    rt_tables *ts = &res->report.tables;
    uint32_t n = p->defs->nranks;
    int rc;
    rt_table *t;
    if (n <= PLOT_MAX_RANKS && (rc = square(p, "plot", NULL, 1, &res->report.plot)))
        return rc;
    if (n <= MATRIX_MAX_RANKS) {
        if ((rc = square(p, "matrix_messages",
                         "Point-to-point messages from rank (rows) to rank (columns)", 0, &t)) ||
            (rc = rt_tables_add(ts, t)) ||
            (rc = square(p, "matrix_bytes",
                         "Point-to-point bytes from rank (rows) to rank (columns)", 1, &t)))
            return rc;
        return rt_tables_add(ts, t);
    }
    pair *list = malloc((p->npairs ? p->npairs : 1) * sizeof *list);
    if (!list)
        return -RT_E_NOMEM;
    size_t k = 0;
    for (size_t i = 0; i < p->cap; i++)
        if (p->pairs[i].key != UINT64_MAX)
            list[k++] = p->pairs[i];
    qsort(list, k, sizeof *list, cmp_pair);
    char title[128];
    snprintf(title, sizeof title, "Busiest rank pairs (point-to-point, %zu of %zu pairs)",
             k < TOP_PAIRS ? k : (size_t)TOP_PAIRS, k);
    static const char *const cols[] = {"from", "to", "messages", "bytes"};
    t = rt_table_new("pairs", title, 4, cols, "r");
    rc = rt_tables_add(ts, t);
    for (size_t i = 0; !rc && i < k && i < TOP_PAIRS; i++)
        (void)((rc = rt_table_row(t)) || (rc = rt_table_cell_u64(t, list[i].key >> 32)) ||
               (rc = rt_table_cell_u64(t, list[i].key & UINT32_MAX)) ||
               (rc = rt_table_cell_u64(t, list[i].msgs)) ||
               (rc = rt_table_cell_u128(t, list[i].bytes)));
    free(list);
    return rc;
}

static int cmp_comm(const void *a, const void *b, void *base)
{
    const comm_stat *sort_base = base;
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    rt_u128 bx = sort_base[x].p2p_bytes + sort_base[x].coll_bytes;
    rt_u128 by = sort_base[y].p2p_bytes + sort_base[y].coll_bytes;
    if (bx != by)
        return bx < by ? 1 : -1;
    if (sort_base[x].time != sort_base[y].time)
        return sort_base[x].time < sort_base[y].time ? 1 : -1;
    return (x > y) - (x < y);
}

static int comms_table(prof *p, rt_tables *ts)
{
    uint32_t n = p->defs->ncomms, k = 0;
    uint32_t *idx = malloc((n ? n : 1) * sizeof *idx);
    if (!idx)
        return -RT_E_NOMEM;
    for (uint32_t i = 0; i < n; i++)
        if (p->comm[i].p2p_msgs || p->comm[i].colls || p->comm[i].time)
            idx[k++] = i;
    qsort_r(idx, k, sizeof *idx, cmp_comm, p->comm);
    static const char *const cols[] = {"communicator",
                                       "name",
                                       "size",
                                       "p2p messages",
                                       "p2p bytes",
                                       "collective calls",
                                       "collective bytes",
                                       "time in calls (us)"};
    rt_table *t =
        rt_table_new("comms", "Busiest communicators (by bytes sent)", 8, cols, "llrrrrrr");
    int rc = rt_tables_add(ts, t);
    for (uint32_t i = 0; !rc && i < k && i < TOP_COMMS; i++) {
        const rt_comm_def *c = &p->defs->comms[idx[i]];
        const comm_stat *s = &p->comm[idx[i]];
        (void)((rc = rt_table_row(t)) || (rc = rt_table_cell(t, "%u", (unsigned)c->id)) ||
               (rc = rt_table_cell(t, "%s", c->name[0] ? c->name : "-")) ||
               (rc = rt_table_cell(t, "%u", (unsigned)(c->size + c->remote_size))) ||
               (rc = rt_table_cell_u64(t, s->p2p_msgs)) ||
               (rc = rt_table_cell_u128(t, s->p2p_bytes)) ||
               (rc = rt_table_cell_u64(t, s->colls)) ||
               (rc = rt_table_cell_u128(t, s->coll_bytes)) || (rc = cell_us(t, s->time)));
    }
    free(idx);
    return rc;
}

/* One imbalance row: min, mean, max, the rank with the max, and (max - mean) / max. */
/* The per-rank values an imbalance row is about. */
enum { IMB_COMPUTE, IMB_MPI, IMB_MSGS, IMB_BYTES };

static rt_u128 imbalance_value(const rank_state *s, int what)
{
    switch (what) {
    case IMB_COMPUTE:
        return s->compute;
    case IMB_MPI:
        return s->mpi;
    case IMB_MSGS:
        return s->sent_msgs;
    default:
        return s->sent_bytes;
    }
}

/* sum / n exactly, whatever its size (a double holds 53 bits), rounded to even as printf
 * does: as microseconds with three decimals for times in ns (whole ns), else with one
 * decimal (whole tenths). */
static int cell_mean(rt_table *t, rt_u128 sum, uint32_t n, int is_time)
{
    if (!n)
        return is_time ? rt_table_cell(t, "0.000") : rt_table_cell(t, "0.0");
    unsigned scale = is_time ? 1 : 10;
    rt_u128 whole = sum / n;
    uint64_t r = (uint64_t)(sum % n) * scale;                              /* below 10 n < 2^36 */
    uint64_t part = r / n, rest = r % n;                                   /* part < scale */
    unsigned odd = is_time ? (unsigned)(whole % 2) : (unsigned)(part % 2); /* last digit kept */
    if (2 * rest > n || (2 * rest == n && odd))
        part++;
    whole += part / scale; /* 10 tenths: one more */
    part %= scale;
    if (is_time)
        return cell_us(t, whole);
    char b[RT_U128_LEN];
    return rt_table_cell(t, "%s.%u", rt_u128_str(whole, b, sizeof b), (unsigned)part);
}

static int imbalance_row(rt_table *t, const char *what, const rank_state *rk, uint32_t n, int which,
                         int is_time)
{
    /* the sum stays below 2^128: fewer than 2^64 events of fewer than 2^64 bytes each */
    rt_u128 min = n ? imbalance_value(&rk[0], which) : 0, max = 0, sum = 0;
    uint32_t at = 0;
    for (uint32_t r = 0; r < n; r++) {
        rt_u128 v = imbalance_value(&rk[r], which);
        sum += v;
        min = v < min ? v : min;
        if (v > max) {
            max = v;
            at = r;
        }
    }
    double mean = n ? (double)sum / n : 0;
    int rc;
    if ((rc = rt_table_row(t)) || (rc = rt_table_cell(t, "%s", what)))
        return rc;
    if (is_time) {
        if ((rc = cell_us(t, min)) || (rc = cell_mean(t, sum, n, 1)) || (rc = cell_us(t, max)))
            return rc;
    } else if ((rc = rt_table_cell_u128(t, min)) || (rc = cell_mean(t, sum, n, 0)) ||
               (rc = rt_table_cell_u128(t, max))) {
        return rc;
    }
    if ((rc = rt_table_cell_u64(t, at)))
        return rc;
    return max ? rt_table_cell(t, "%.1f", 100.0 * ((double)max - mean) / (double)max)
               : rt_table_cell(t, "-");
}

static int imbalance_table(prof *p, rt_tables *ts)
{
    static const char *const cols[] = {"per rank", "min",         "mean",
                                       "max",      "max at rank", "imbalance %"};
    rt_table *t =
        rt_table_new("imbalance", "Load imbalance: (max - mean) / max over ranks (times in us)", 6,
                     cols, "lrrrrr");
    int rc = rt_tables_add(ts, t);
    uint32_t n = p->defs->nranks;
    if (!rc)
        rc = imbalance_row(t, "computation", p->rk, n, IMB_COMPUTE, 1);
    if (!rc)
        rc = imbalance_row(t, "time in MPI", p->rk, n, IMB_MPI, 1);
    if (!rc)
        rc = imbalance_row(t, "messages sent", p->rk, n, IMB_MSGS, 0);
    if (!rc)
        rc = imbalance_row(t, "bytes sent", p->rk, n, IMB_BYTES, 0);
    return rc;
}

/* A pending call never returned: the rank was in it from its enter until the run ended, and
 * the last event of the trace is the latest moment the run is known to have lasted. So its
 * outermost call ends there (docs/analyzer.md), counted like a call that returned. */
static int close_pending(prof *p)
{
    int rc = 0;
    for (uint32_t r = 0; !rc && r < p->nranks; r++) {
        rank_state *s = &p->rk[r];
        for (unsigned k = 0; k <= s->nth; k++) { /* a thread's pending call */
            thread_state *h = k ? &s->th[k - 1] : &s->t0;
            if (h->pending && h->depth) {
                h->mpi += p->tmax - h->enter;
                h->calls++;
                h->last = p->tmax;
                h->depth = 0;
            }
        }
        if (!s->pending || !s->depth)
            continue;
        uint64_t t = p->tmax - s->enter;
        s->mpi += t;
        s->last = p->tmax;
        s->depth = 0;
        if (s->comm != UINT32_MAX)
            p->comm[s->comm].time += t;
        rc = add_time(s, s->fn, t);
    }
    return rc;
}

static int finish(void *ctx, rt_err *err)
{
    prof *p = ctx;
    rt_an_profile_result *res = p->res;
    int rc;
    if ((rc = close_pending(p)))
        return rc;
    if ((rc = ranks_table(p, &res->report.tables)) ||
        (rc = threads_table(p, &res->report.tables)) ||
        (rc = functions_tables(p, &res->report.tables)) || (rc = matrix_tables(p, res)) ||
        (rc = comms_table(p, &res->report.tables)))
        return rc;
    return imbalance_table(p, &res->report.tables);
}

static void pass_free(prof *p)
{
    for (uint32_t r = 0; p->rk && r < p->nranks; r++) {
        free(p->rk[r].f);
        free(p->rk[r].th);
    }
    free(p->rk);
    free(p->pairs);
    free(p->comm);
}

/* A part's state (threads, rt_an_run): a pass of its own over the same definitions. */
static void drop(void *part)
{
    pass_free(part);
    free(part);
}

static int fork_part(void *ctx, void **part, rt_err *err)
{
    const prof *p = ctx;
    prof *q = calloc(1, sizeof *q);
    if (!q)
        return rt_err_set(err, RT_E_NOMEM, "out of memory");
    q->res = p->res; /* never written before finish, which runs on ctx only */
    int rc = setup(q, p->defs, err);
    if (rc < 0)
        drop(q);
    else
        *part = q;
    return rc;
}

/* The part's ranks lo to hi - 1 are its own: their states move over; the rest are sums and
 * the latest time. */
static int merge(void *ctx, void *part, uint32_t lo, uint32_t hi)
{
    prof *p = ctx, *q = part;
    for (uint32_t r = lo; r < hi; r++) {
        rank_state s = p->rk[r];
        p->rk[r] = q->rk[r];
        q->rk[r] = s; /* freed with the part */
    }
    for (uint32_t i = 0; i < p->defs->ncomms; i++) {
        comm_stat *c = &p->comm[i];
        const comm_stat *d = &q->comm[i];
        c->p2p_msgs += d->p2p_msgs;
        c->colls += d->colls;
        c->p2p_bytes += d->p2p_bytes;
        c->coll_bytes += d->coll_bytes;
        c->time += d->time;
    }
    for (size_t i = 0; i < q->cap; i++)
        if (q->pairs[i].key != UINT64_MAX &&
            add_pair(p, q->pairs[i].key, q->pairs[i].msgs, q->pairs[i].bytes) < 0)
            return -RT_E_NOMEM;
    if (q->tmax > p->tmax)
        p->tmax = q->tmax;
    return 0;
}

int rt_an_profile(const char *path, unsigned threads, rt_an_profile_result *res, rt_err *err)
{
    memset(res, 0, sizeof *res);
    prof p = {0};
    p.res = res;
    rt_an_pass pass = {.setup = setup,
                       .event = on_event,
                       .finish = finish,
                       .ctx = &p,
                       .fork = fork_part,
                       .merge = merge,
                       .drop = drop,
                       .threads = threads};
    int rc = rt_an_run(path, &pass, &res->report.truncated, err);
    pass_free(&p);
    return rc;
}
