/*
 * retrace calibrate --from: the CPU costs of collective calls ([calls]) fitted to the
 * recorded run's own collectives (docs/calibrate.md, "A model from a trace").
 *
 * A blocking collective is one instance on every rank of its communicator: each rank's k-th
 * blocking collective on a communicator is the same instance (MPI has every rank call a
 * communicator's collectives in one order, and the blocking ones are a subsequence of that
 * order). Where every rank of the instance is in the trace, none shared its host's CPUs with
 * more ranks, and the call is one retrace replays without per-peer data, the instance gives
 * a time: from the last rank's entry to the last rank's exit, when every rank was there and
 * only the collective itself was left to do. The engine replays the same call (each rank's
 * recorded bytes, root and op; all ranks entering together, the links just fitted, no call
 * costs, the algorithms of the MPI that recorded the trace, the recorded placement) and the
 * cost of an instance is the recorded time less the engine's, as the mpiexec form measures
 * it (calib_calls.c). Per function, each size's median cost is a point; the points give a
 * fixed part and, when the cost grows with the size, a rate (a least-squares line, each point
 * weighted by its instances). A cost below zero (the engine charges more) is no cost.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt__calib.h"
#include "rt_calib_from.h"
#include "rt_coll.h"
#include "rt_hash.h"
#include "rt_sim.h"
#include "rt_trace.h"
#include "rt_vec.h"

#define COLL_MAX_KEYS 64 /* distinct (communicator, call, root, size) replayed */
#define COLL_MAX_P 4096  /* the largest communicator replayed */

/* One rank's part of one blocking collective. */
typedef struct coll_part {
    uint32_t comm, rank; /* rank: world */
    uint64_t seq;        /* the rank's seq-th blocking collective on comm */
    uint64_t enter, leave;
    uint64_t bytes, rbytes;
    int32_t root;
    uint16_t call;
    uint8_t op;
} coll_part;

/* A kind of instance: one engine replay, and the recorded times of its instances. */
typedef struct coll_key {
    uint32_t comm;
    int32_t root;
    uint16_t call;
    uint64_t bytes; /* the largest of the ranks' */
    size_t first;   /* the first instance's parts in calib_colls.parts */
    uint64_t *ps;   /* the instances' times */
    size_t n, room;
    uint64_t engine_ps;
    int replayed; /* engine_ps is set, or failed */
    int failed;   /* the engine could not replay it */
} coll_key;

struct calib_colls {
    uint32_t nranks;
    coll_part *open; /* per rank: the collective of the call it is in (call 0: none) */
    coll_part *parts;
    size_t nparts, room;
    rt_hmap seq; /* (rank, comm) -> blocking collectives so far */
};

int calib_colls_new(calib_colls **out, uint32_t nranks)
{
    calib_colls *c = calloc(1, sizeof *c);
    if (c)
        c->open = calloc(nranks ? nranks : 1, sizeof *c->open);
    if (!c || !c->open) {
        free(c);
        return -RT_E_NOMEM;
    }
    c->nranks = nranks;
    *out = c;
    return 0;
}

void calib_colls_free(calib_colls *c)
{
    if (!c)
        return;
    free(c->open);
    free(c->parts);
    rt_hmap_free(&c->seq);
    free(c);
}

int calib_colls_event(calib_colls *c, const rt_event *ev, uint64_t enter)
{
    if (ev->rank >= c->nranks)
        return 0;
    coll_part *o = &c->open[ev->rank];
    int created;
    uint64_t *k;
    switch (ev->kind) {
    case RT_EV_ENTER:
        o->call = RT_FN_NONE;
        return 0;
    case RT_EV_COLL_END:
        if (!(k = rt_hmap_put(&c->seq, ev->rank, ev->comm, &created)))
            return -RT_E_NOMEM;
        *o = (coll_part){.comm = ev->comm,
                         .rank = ev->rank,
                         .seq = (*k)++,
                         .enter = enter,
                         .bytes = ev->bytes,
                         .rbytes = ev->rbytes,
                         .root = ev->peer,
                         .call = ev->call,
                         .op = ev->op};
        return 0;
    case RT_EV_LEAVE:
        if (o->call == RT_FN_NONE || o->call != ev->call || ev->time < o->enter) {
            o->call = RT_FN_NONE;
            return 0;
        }
        o->leave = ev->time;
        if (RT_VEC_RESERVE(c->parts, c->room, (uint64_t)c->nparts + 1, 1024) < 0)
            return -RT_E_NOMEM;
        c->parts[c->nparts++] = *o;
        o->call = RT_FN_NONE;
        return 0;
    default:
        return 0;
    }
}

static int part_cmp(const void *a, const void *b)
{
    const coll_part *x = a, *y = b;
    if (x->comm != y->comm)
        return x->comm < y->comm ? -1 : 1;
    if (x->seq != y->seq)
        return x->seq < y->seq ? -1 : 1;
    return x->rank < y->rank ? -1 : x->rank > y->rank;
}

/* ---- the engine's time for a key --------------------------------------------------------- */

typedef struct key_trace {
    const coll_part *parts; /* the instance's, by world rank */
    const rt_comm_def *comm;
} key_trace;

/* The instance as a CSV trace of comm's size on communicator 0, rank i being member i. */
static void key_write(FILE *f, const void *ctx)
{
    const key_trace *kt = ctx;
    uint32_t p = kt->comm->size;
    fprintf(f, "ranks,%u\n", (unsigned)p);
    for (uint32_t j = 0; j < p; j++) {
        const coll_part *x = &kt->parts[j];
        int64_t i = rt_comm_position(kt->comm, x->rank);
        const char *fn = rt_func_name(x->call);
        char root[16] = "";
        if (x->root >= 0)
            snprintf(root, sizeof root, "%d", (int)x->root);
        fprintf(f,
                "%lld,0,enter,%s,,,,,,,,\n%lld,0,coll_begin,%s,,,,,,,,\n"
                "%lld,0,coll_end,%s,0,%s,,%llu,%llu,,,%s\n%lld,0,leave,%s,,,,,,,,\n",
                (long long)i, fn, (long long)i, fn, (long long)i, fn, root,
                (unsigned long long)x->bytes, (unsigned long long)x->rbytes,
                rt_event_op_name(RT_EV_COLL_END, x->op), (long long)i, fn);
    }
}

static void key_engine(coll_key *k, const coll_part *parts, const rt_comm_def *comm,
                       const rt_defs *d, const rt_net_model *m)
{
    uint32_t p = comm->size;
    uint32_t *node = malloc((size_t)p * sizeof *node), *module = malloc((size_t)p * sizeof *module);
    if (!node || !module) {
        free(node);
        free(module);
        k->failed = 1;
        return;
    }
    for (uint32_t i = 0; i < p; i++) {
        node[i] = d->node[comm->members[i]];
        module[i] = d->module[comm->members[i]];
    }
    rt_sim_config cfg;
    rt_sim_config_default(&cfg);
    rt_coll_alg base = rt_coll_library_choice(d->library);
    for (unsigned op = 0; op < RT_COLL_COUNT; op++)
        cfg.alg[op] = (uint8_t)base;
    cfg.model = *m;
    memset(cfg.model.call, 0, sizeof cfg.model.call);
    cfg.node = node;
    cfg.module = module;
    const key_trace kt = {.parts = parts, .comm = comm};
    k->failed = calib_engine_replay(key_write, &kt, &cfg, &k->engine_ps) < 0;
    free(node);
    free(module);
}

/* ---- instances ------------------------------------------------------------------------------ */

/* Whether the instance of parts[0..n) gives a time, and the key it belongs to. */
static int usable(const coll_part *x, size_t n, const rt_defs *d, const uint8_t *shared,
                  rt_calib_from_result *res, const rt_comm_def **comm)
{
    const rt_comm_def *c = rt_defs_comm(d, x->comm);
    if (c && !c->remote_size && c->size < 2)
        return 0; /* one rank: nothing to fit, not counted */
    if (!c || c->remote_size || c->size > COLL_MAX_P || n != c->size ||
        rt_coll_count_sides(x->op) || rt_coll_is_neighbor(x->op) || x->op >= RT_COLL_COUNT) {
        res->coll_other++;
        return 0;
    }
    for (size_t i = 0; i < n; i++) {
        if (x[i].call != x->call || x[i].op != x->op || x[i].root != x->root) {
            res->coll_other++;
            return 0;
        }
        if (shared && shared[x[i].rank]) {
            res->coll_shared++;
            return 0;
        }
    }
    *comm = c;
    return 1;
}

static coll_key *find_key(coll_key *keys, size_t *nkeys, const coll_part *x, uint64_t bytes,
                          size_t first)
{
    for (size_t i = 0; i < *nkeys; i++)
        if (keys[i].comm == x->comm && keys[i].call == x->call && keys[i].root == x->root &&
            keys[i].bytes == bytes)
            return &keys[i];
    if (*nkeys == COLL_MAX_KEYS)
        return NULL;
    keys[*nkeys] = (coll_key){
        .comm = x->comm, .root = x->root, .call = x->call, .bytes = bytes, .first = first};
    return &keys[(*nkeys)++];
}

/* ---- the fit -------------------------------------------------------------------------------- */

typedef struct cost_point {
    uint64_t bytes, n;         /* size, instances */
    double cost;               /* the median time less the engine's, ps */
    uint64_t measured, engine; /* the median time and the engine's, ps */
} cost_point;

static int point_cmp(const void *a, const void *b)
{
    const cost_point *x = a, *y = b;
    if (x->bytes != y->bytes)
        return x->bytes < y->bytes ? -1 : 1;
    return x->cost < y->cost ? -1 : x->cost > y->cost;
}

static int cost_cmp(const void *a, const void *b)
{
    const cost_point *x = a, *y = b;
    return x->cost < y->cost ? -1 : x->cost > y->cost;
}

/* The cost of one function from its points (sorted by size, at most COLL_MAX_KEYS): a
 * least-squares line when the cost grows with the size, else the median cost, each point
 * weighted by its instances. */
static rt_net_call fit_call(const cost_point *pt, size_t n)
{
    double sw = 0, sx = 0, sy = 0;
    for (size_t i = 0; i < n; i++) {
        sw += (double)pt[i].n;
        sx += (double)pt[i].n * (double)pt[i].bytes;
        sy += (double)pt[i].n * pt[i].cost;
    }
    double mx = sx / sw, my = sy / sw, sxx = 0, sxy = 0;
    for (size_t i = 0; i < n; i++) {
        double dx = (double)pt[i].bytes - mx;
        sxx += (double)pt[i].n * dx * dx;
        sxy += (double)pt[i].n * dx * (pt[i].cost - my);
    }
    rt_net_call c = {0, 0};
    if (sxx > 0 && sxy > 0) {
        c.bandwidth = calib_round_sig4(1e12 * sxx / sxy); /* the slope is ps per byte */
        if (c.bandwidth) {
            double fixed = my - mx * 1e12 / (double)c.bandwidth;
            c.fixed_ps = fixed > 0 ? rt_mul_sat(rt_u64_of_double(fixed / 1000), 1000) : 0;
            return c;
        }
    }
    cost_point by_cost[COLL_MAX_KEYS];
    memcpy(by_cost, pt, n * sizeof *pt);
    qsort(by_cost, n, sizeof *by_cost, cost_cmp);
    uint64_t acc = 0;
    double med = 0;
    for (size_t i = 0; i < n && 2 * acc < (uint64_t)sw; i++) {
        acc += by_cost[i].n;
        med = by_cost[i].cost;
    }
    c.fixed_ps = med > 0 ? rt_mul_sat(rt_u64_of_double(med / 1000), 1000) : 0;
    return c;
}

static uint64_t median_u64(uint64_t *v, size_t n)
{
    qsort(v, n, sizeof *v, rt_cmp_u64);
    return v[(n - 1) / 2];
}

static int fitted(const rt_calib_from_result *res, unsigned fn)
{
    for (unsigned i = 0; i < res->ncalls; i++)
        if (res->calls[i].fn == fn)
            return 1;
    return 0;
}

/* Each function's points from its keys, its fit into m and res. */
static int fit_calls(coll_key *keys, size_t nkeys, rt_net_model *m, rt_calib_from_result *res)
{
    cost_point *pt = malloc((nkeys ? nkeys : 1) * sizeof *pt);
    uint8_t *done = calloc(nkeys ? nkeys : 1, 1);
    if (!pt || !done) {
        free(pt);
        free(done);
        return -RT_E_NOMEM;
    }
    for (size_t i = 0; i < nkeys; i++) {
        if (done[i] || keys[i].failed || !keys[i].n)
            continue;
        unsigned fn = keys[i].call;
        size_t npt = 0;
        uint64_t calls = 0;
        for (size_t j = i; j < nkeys; j++) {
            coll_key *k = &keys[j];
            if (k->call != fn || k->failed || !k->n)
                continue;
            done[j] = 1;
            uint64_t med = median_u64(k->ps, k->n);
            pt[npt++] = (cost_point){.bytes = k->bytes,
                                     .n = k->n,
                                     .cost = (double)med - (double)k->engine_ps,
                                     .measured = med,
                                     .engine = k->engine_ps};
            calls += k->n;
        }
        if (res->ncalls == RT_CALIB_MAX_CALLS) {
            res->coll_other += calls;
            continue;
        }
        qsort(pt, npt, sizeof *pt, point_cmp);
        rt_calib_from_call *rc = &res->calls[res->ncalls++];
        *rc = (rt_calib_from_call){
            .fn = fn, .calls = calls, .lo = pt[0].bytes, .hi = pt[npt - 1].bytes};
        size_t most = 0;
        for (size_t j = 0; j < npt; j++) {
            rc->sizes += j == 0 || pt[j].bytes != pt[j - 1].bytes;
            if (pt[j].n > pt[most].n)
                most = j;
        }
        rc->at = pt[most].bytes;
        rc->measured_ps = pt[most].measured;
        rc->engine_ps = pt[most].engine;
        rc->cost = fit_call(pt, npt);
        m->call[fn] = rc->cost;
    }
    for (unsigned fn = 0; fn < RT_FN_COUNT;
         fn++) { /* MPI_Allreduce_c costs what MPI_Allreduce does */
        unsigned b = rt_net_call_base(fn);
        if (b != RT_FN_NONE && !fitted(res, fn) && fitted(res, b))
            m->call[fn] = m->call[b];
    }
    free(pt);
    free(done);
    return 0;
}

int calib_colls_fit(calib_colls *c, const rt_defs *d, const uint8_t *shared, rt_net_model *m,
                    rt_calib_from_result *res)
{
    if (c->nparts)
        qsort(c->parts, c->nparts, sizeof *c->parts, part_cmp);
    coll_key keys[COLL_MAX_KEYS];
    size_t nkeys = 0;
    int rc = 0;
    for (size_t i = 0, j; !rc && i < c->nparts; i = j) {
        const coll_part *x = &c->parts[i];
        for (j = i + 1; j < c->nparts && c->parts[j].comm == x->comm && c->parts[j].seq == x->seq;)
            j++;
        const rt_comm_def *comm;
        if (!usable(x, j - i, d, shared, res, &comm))
            continue;
        uint64_t bytes = 0, last_in = 0, last_out = 0;
        for (size_t k = i; k < j; k++) {
            bytes = c->parts[k].bytes > bytes ? c->parts[k].bytes : bytes;
            last_in = c->parts[k].enter > last_in ? c->parts[k].enter : last_in;
            last_out = c->parts[k].leave > last_out ? c->parts[k].leave : last_out;
        }
        coll_key *k = find_key(keys, &nkeys, x, bytes, i);
        if (!k) {
            res->coll_other++;
            continue;
        }
        if (!k->replayed) {
            key_engine(k, &c->parts[i], comm, d, m);
            k->replayed = 1;
        }
        if (k->failed) {
            res->coll_failed++;
            continue;
        }
        if (RT_VEC_RESERVE(k->ps, k->room, (uint64_t)k->n + 1, 64) < 0) {
            rc = -RT_E_NOMEM;
            break;
        }
        k->ps[k->n++] = rt_mul_sat(last_out - last_in, 1000);
        res->coll_used++;
    }
    if (!rc)
        rc = fit_calls(keys, nkeys, m, res);
    for (size_t i = 0; i < nkeys; i++)
        free(keys[i].ps);
    return rc;
}
