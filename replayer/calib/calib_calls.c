/*
 * The CPU costs of calls ([calls] in the model, docs/model.md): what an MPI call costs the
 * rank that makes it beyond what the network model charges for its messages.
 *
 * Two kinds of measurement, both with every rank of the communicator:
 * - calls the engine charges nothing for (posting MPI_Isend and MPI_Irecv): rank 0 times each
 *   call on its own; the median of a batch, the best batch. The cost is that time.
 * - collectives, MPI_Win_fence and MPI_Put, whose messages the engine does charge:
 *   back-to-back calls by all ranks (for MPI_Put, epochs of one Put to the next rank and a
 *   fence), rank 0's time per call, the best batch; then rank 0 replays the same loop on the
 *   engine with the fitted links and no call costs (but Win_fence's, fitted before, in the
 *   Put loop), and the cost is the difference (the library's software and local copies that
 *   the messages leave out; for Put, also what a fence costs more with a transfer to finish
 *   than without: a Put's cost as timed on its own missed most of it).
 * Each call is measured at two sizes (8 bytes and a larger one) and its cost is a fixed part
 * and, when the larger size costs more, a per-byte part through both points.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rt__calib.h"
#include "rt_mpirun.h"
#include "rt_sim.h"

#define CALLS_K 32       /* calls per batch */
#define CALLS_ENGINE_K 8 /* calls per rank in the engine's replay of a loop */

typedef struct call_item {
    unsigned fn;
    unsigned op;      /* rt_coll_op, for collectives */
    int local;        /* 1: timed one call at a time on rank 0, the engine charges nothing */
    uint64_t size[2]; /* per-rank bytes of the two measurements (0 only: one measurement) */
} call_item;

static const call_item items[] = {
    {RT_FN_Isend, 0, 1, {8, 4096}},
    {RT_FN_Irecv, 0, 1, {8, 0}},
    {RT_FN_Win_fence, 0, 0, {0, 0}},
    {RT_FN_Put, 0, 0, {8, 4096}}, /* after Win_fence: its loop has fences */
    {RT_FN_Barrier, RT_COLL_BARRIER, 0, {0, 0}},
    {RT_FN_Bcast, RT_COLL_BCAST, 0, {8, 65536}},
    {RT_FN_Reduce, RT_COLL_REDUCE, 0, {8, 65536}},
    {RT_FN_Allreduce, RT_COLL_ALLREDUCE, 0, {8, 65536}},
    {RT_FN_Allgather, RT_COLL_ALLGATHER, 0, {8, 16384}},
    {RT_FN_Alltoall, RT_COLL_ALLTOALL, 0, {8, 16384}},
};
_Static_assert(sizeof items / sizeof *items <= RT_CALIB_MAX_CALLS, "room for every call");

/* One collective call of the item, its MPI result (on a communicator that returns errors). */
static int coll_try(const call_item *it, MPI_Comm c, uint64_t n, const calib_bufs *b)
{
    int k = (int)n;
    switch (it->fn) {
    case RT_FN_Barrier:
        return MPI_Barrier(c);
    case RT_FN_Bcast:
        return MPI_Bcast(b->s, k, MPI_BYTE, 0, c);
    case RT_FN_Reduce:
        return MPI_Reduce(b->x, b->y, k / 8, MPI_DOUBLE, MPI_SUM, 0, c);
    case RT_FN_Allreduce:
        return MPI_Allreduce(b->x, b->y, k / 8, MPI_DOUBLE, MPI_SUM, c);
    case RT_FN_Allgather:
        return MPI_Allgather(b->s, k, MPI_BYTE, b->r, k, MPI_BYTE, c);
    default: /* Alltoall */
        return MPI_Alltoall(b->s, k, MPI_BYTE, b->r, k, MPI_BYTE, c);
    }
}

/* One collective (or fence) call of the item with n bytes per rank. */
static void coll_call(const call_item *it, MPI_Comm c, uint64_t n, const calib_bufs *b, MPI_Win win)
{
    if (it->fn == RT_FN_Put) { /* an epoch: a Put to the next rank, then the fence that ends it */
        int me, p;
        MPI_Comm_rank(c, &me);
        MPI_Comm_size(c, &p);
        MPI_Put(b->s, (int)n, MPI_BYTE, (me + 1) % p, 0, (int)n, MPI_BYTE, win);
    }
    if (it->fn == RT_FN_Put || it->fn == RT_FN_Win_fence)
        MPI_Win_fence(0, win);
    else
        coll_try(it, c, n, b);
}

/* Rank 0's time of one local call (Isend, Irecv) of n bytes to or from rank 1: the best
 * batch's median. */
static double local_time(const call_item *it, MPI_Comm c, int me, uint64_t n, unsigned batches,
                         const calib_bufs *b, double tick)
{
    MPI_Request req[CALLS_K];
    MPI_Status st[CALLS_K];
    double t[CALLS_K], best = 1e300;
    int k = (int)n;
    for (unsigned r = 0; r < batches; r++) {
        if (it->fn == RT_FN_Isend && me == 1)
            for (int i = 0; i < CALLS_K; i++)
                MPI_Irecv(b->r + (size_t)i * n, k, MPI_BYTE, 0, CALIB_TAG_DATA, c, &req[i]);
        MPI_Barrier(c);
        if (me == 0)
            for (int i = 0; i < CALLS_K; i++) {
                double t0 = MPI_Wtime();
                if (it->fn == RT_FN_Isend)
                    MPI_Isend(b->s + (size_t)i * n, k, MPI_BYTE, 1, CALIB_TAG_DATA, c, &req[i]);
                else
                    MPI_Irecv(b->r + (size_t)i * n, k, MPI_BYTE, 1, CALIB_TAG_DATA, c, &req[i]);
                t[i] = (MPI_Wtime() - t0) * 1e12 - tick;
            }
        if (it->fn == RT_FN_Irecv) {
            MPI_Barrier(c); /* the receives are posted before the messages leave */
            if (me == 1)
                for (int i = 0; i < CALLS_K; i++)
                    MPI_Send(b->s + (size_t)i * n, k, MPI_BYTE, 0, CALIB_TAG_DATA, c);
        }
        if (me == 0 || it->fn == RT_FN_Isend)
            MPI_Waitall(CALLS_K, req, st);
        if (me == 0) {
            double m = calib_median(t, CALLS_K);
            best = m < best ? m : best;
        }
    }
    return best > 0 ? best : 0;
}

/* Rank 0's time per call of back-to-back collectives: the best batch; *median (when not NULL)
 * the median batch's. */
static double loop_time(const call_item *it, MPI_Comm c, uint64_t n, unsigned batches,
                        const calib_bufs *b, MPI_Win win, double *median)
{
    double best = 1e300, t[256]; /* batches: at most 256 (--batches) */
    unsigned k = 0;
    for (unsigned r = 0; r < batches; r++) {
        if (it->fn == RT_FN_Put)
            MPI_Win_fence(0, win); /* opens the first epoch */
        MPI_Barrier(c);
        double t0 = MPI_Wtime();
        for (int i = 0; i < CALLS_K; i++)
            coll_call(it, c, n, b, win);
        double d = (MPI_Wtime() - t0) * 1e12 / CALLS_K;
        best = d < best ? d : best;
        if (k < sizeof t / sizeof *t)
            t[k++] = d;
    }
    if (median)
        *median = calib_median(t, k);
    return best;
}

/* 1 when both ranks of c (two) say ok: point to point, as the collectives may be forced. */
static int both(MPI_Comm c, int ok)
{
    int me, other = 0;
    MPI_Comm_rank(c, &me);
    MPI_Sendrecv(&ok, 1, MPI_INT, 1 - me, CALIB_TAG_RESULT, &other, 1, MPI_INT, 1 - me,
                 CALIB_TAG_RESULT, c, MPI_STATUS_IGNORE);
    return ok && other;
}

/* The collectives' costs under each of MPICH's algorithms that retrace knows, forced as the
 * replay forces them (rt_mpirun_force), after the calls: both sizes of each collective item,
 * the median batch (what applications see; the best one too, for the spread), on a duplicate
 * of c that returns errors, so that a size MPICH refuses the algorithm for (fallback=error:
 * Rabenseifner on one double) is left out, on both ranks alike. Open MPI takes a forced
 * algorithm only into communicators made after it (mpi_ompi.c): nothing is measured there (the
 * model file says so). */
static void measure_algs(MPI_Comm c, const rt_calib_opts *o, const calib_bufs *b,
                         rt_calib_result *res)
{
#ifdef OPEN_MPI
    (void)c, (void)o, (void)b;
    res->algs_unforced = 1;
    return;
#endif
    int prov;
    if (MPI_T_init_thread(MPI_THREAD_SINGLE, &prov) != MPI_SUCCESS) /* rt_mpirun_mpich_alg */
        return;
    MPI_Comm ac;
    MPI_Comm_dup(c, &ac);
    MPI_Comm_set_errhandler(ac, MPI_ERRORS_RETURN);
    int p;
    MPI_Comm_size(ac, &p);
    unsigned batches = o->quick ? 5 : o->batches;
    for (size_t i = 0; i < sizeof items / sizeof *items; i++) {
        const call_item *it = &items[i];
        if (it->local || it->fn == RT_FN_Win_fence || it->fn == RT_FN_Put)
            continue;
        for (unsigned alg = RT_ALG_OMPI + 1; alg < RT_ALG_COUNT; alg++) {
            char name[96];
            if (!rt_coll_alg_valid(it->op, alg) ||
                rt_mpirun_mpich_alg(it->op, alg, name, sizeof name) < 0)
                continue;
            rt_mpirun_forced *f = NULL;
            rt_err e;
            if (!both(ac, rt_mpirun_force(it->op, alg, &f, &e) == 0)) {
                rt_mpirun_unforce(f);
                continue;
            }
            if (res->ncalls >= RT_CALIB_MAX_CALLS) {
                rt_mpirun_unforce(f);
                break;
            }
            rt_calib_call *out = &res->calls[res->ncalls++];
            memset(out, 0, sizeof *out);
            out->fn = it->fn;
            out->op = it->op;
            out->alg = alg;
            for (unsigned s = 0; s < 2; s++) {
                uint64_t n = it->size[s];
                if (s == 1 && !n)
                    break;
                uint64_t need =
                    it->fn == RT_FN_Alltoall || it->fn == RT_FN_Allgather ? n * (uint64_t)p : n;
                if (need > o->max_bytes || n / 8 > b->nx)
                    break;
                /* one call first: MPICH refuses an algorithm that does not apply, on every
                 * member alike (its checks depend only on what members share) */
                MPI_Barrier(ac);
                int ok = coll_try(it, ac, n, b) == MPI_SUCCESS;
                if (!both(ac, ok)) {
                    out->refused |= 1u << s;
                    continue;
                }
                double median, best = loop_time(it, ac, n, batches, b, MPI_WIN_NULL, &median);
                unsigned k = out->npts++;
                out->size[k] = n;
                out->measured_ps[k] = rt_u64_of_double(median);
                out->best_ps[k] = rt_u64_of_double(best);
            }
            rt_mpirun_unforce(f);
        }
    }
    MPI_Comm_free(&ac);
    MPI_T_finalize();
}

void calib_calls_measure(MPI_Comm c, const rt_calib_opts *o, const calib_bufs *b,
                         rt_calib_result *res)
{
    int me, p;
    MPI_Comm_rank(c, &me);
    MPI_Comm_size(c, &p);
    if (p < 2)
        return; /* no partner: the costs are left out (the file says so) */
    MPI_Win win;
    MPI_Win_create(b->r, (MPI_Aint)o->max_bytes, 1, MPI_INFO_NULL, c, &win);
    unsigned batches = o->quick ? 5 : o->batches;
    double tick = calib_clock_cost();
    unsigned ncalls = 0;
    for (size_t i = 0; i < sizeof items / sizeof *items; i++) {
        const call_item *it = &items[i];
        rt_calib_call *out = &res->calls[ncalls];
        memset(out, 0, sizeof *out);
        out->fn = it->fn;
        out->op = it->op;
        for (unsigned s = 0; s < 2; s++) {
            uint64_t n = it->size[s];
            if (s == 1 && !n)
                break;
            /* Isend's messages stay eager (it measures the posting, not a rendezvous) */
            int rendezvous = 0;
            for (unsigned ct = RT_CT_SHM; ct < RT_CT_COUNT; ct++)
                rendezvous |= res->link[ct].measured && n > res->link[ct].eager_lo;
            if (it->fn == RT_FN_Isend && rendezvous)
                break;
            uint64_t need = it->fn == RT_FN_Alltoall || it->fn == RT_FN_Allgather ? n * (uint64_t)p
                            : it->local                                           ? n * CALLS_K
                                                                                  : n;
            if (need > o->max_bytes || n / 8 > b->nx)
                break;
            double t = it->local ? local_time(it, c, me, n, batches, b, tick)
                                 : loop_time(it, c, n, batches, b, win, NULL);
            out->size[s] = n;
            out->measured_ps[s] = rt_u64_of_double(t);
            out->npts = s + 1;
        }
        ncalls++;
    }
    res->ncalls = ncalls;
    MPI_Win_free(&win);
    measure_algs(c, o, b, res);
}

/* ---- the engine's share, and the fit (rank 0) ------------------------------------------ */

/* The bytes a trace records for the call (what the cost's n is): a collective's send side,
 * Alltoall a block to each rank. */
static uint64_t traced_bytes(unsigned fn, uint64_t n, uint32_t p)
{
    return fn == RT_FN_Alltoall ? n * p : n;
}

/* One rank's call of cc with n bytes (n traced) in the engine's CSV trace; for Put the epoch
 * of the loop: a Put to the next rank (request req) and the fence. */
static void engine_call(FILE *f, const rt_calib_call *cc, uint32_t r, uint32_t p, uint64_t n,
                        unsigned req)
{
    const char *fn = rt_func_name(cc->fn);
    if (cc->fn == RT_FN_Put) {
        fprintf(f, "%u,0,enter,%s,,,,,,,,\n%u,0,put,%s,0,%u,,%llu,,,%u,\n%u,0,leave,%s,,,,,,,,\n",
                (unsigned)r, fn, (unsigned)r, fn, (unsigned)((r + 1) % p), (unsigned long long)n,
                req, (unsigned)r, fn);
        fn = rt_func_name(RT_FN_Win_fence);
    }
    fprintf(f, "%u,0,enter,%s,,,,,,,,\n", (unsigned)r, fn);
    if (cc->fn == RT_FN_Win_fence || cc->fn == RT_FN_Put) {
        fprintf(f, "%u,0,rma_coll_begin,%s,,,,,,,,\n%u,0,rma_coll_end,%s,0,,,,,,,barrier\n",
                (unsigned)r, fn, (unsigned)r, fn);
    } else {
        uint64_t b = traced_bytes(cc->fn, n, p), rb = cc->fn == RT_FN_Allgather ? n * p : b;
        int bcast = cc->op == RT_COLL_BCAST, rooted = bcast || cc->op == RT_COLL_REDUCE;
        fprintf(f, "%u,0,coll_begin,%s,,,,,,,,\n%u,0,coll_end,%s,0,%s,,%llu,%llu,,,%s\n",
                (unsigned)r, fn, (unsigned)r, fn, rooted ? "0" : "",
                (unsigned long long)(bcast && r ? 0 : b),
                (unsigned long long)((bcast && !r) || (cc->op == RT_COLL_REDUCE && r) ? 0 : rb),
                rt_event_op_name(RT_EV_COLL_END, cc->op));
    }
    fprintf(f, "%u,0,leave,%s,,,,,,,,\n", (unsigned)r, fn);
}

/* What engine_write writes: k back-to-back calls of cc with n bytes on each of p ranks. */
typedef struct loop_trace {
    const rt_calib_call *cc;
    uint64_t n;
    unsigned k;
    uint32_t p;
} loop_trace;

static void loop_write(FILE *f, const void *ctx)
{
    const loop_trace *lt = ctx;
    const rt_calib_call *cc = lt->cc;
    int rma = cc->fn == RT_FN_Win_fence || cc->fn == RT_FN_Put;
    fprintf(f, "ranks,%u\n%s", (unsigned)lt->p, rma ? "win,0,0\n" : "");
    const rt_calib_call fence = {.fn = RT_FN_Win_fence};
    for (uint32_t r = 0; r < lt->p; r++) {
        if (cc->fn == RT_FN_Put)
            engine_call(f, &fence, r, lt->p, 0, 0);
        for (unsigned i = 0; i < lt->k; i++)
            engine_call(f, cc, r, lt->p, lt->n, i + 1);
    }
}

/* The engine's time of k back-to-back calls of cc on every rank (Put: k epochs after an
 * opening fence), under m without call costs but Win_fence's for Put. 0 when the replay could
 * not run (*failed set). */
static uint64_t engine_run(const rt_calib_call *cc, uint64_t n, unsigned k, const rt_net_model *m,
                           const uint32_t *node, const uint32_t *module, uint32_t p, int *failed)
{
    rt_sim_config cfg;
    rt_sim_config_default(&cfg);
#ifdef OPEN_MPI /* Open MPI's mpi.h: measured under Open MPI, replayed with its algorithms */
    for (unsigned op = 0; op < RT_COLL_COUNT; op++)
        cfg.alg[op] = RT_ALG_OMPI;
#endif
    if (cc->alg != RT_ALG_MPICH) /* measured with MPICH's algorithm forced: the same */
        cfg.alg[cc->op] = (uint8_t)cc->alg;
    cfg.model = *m;
    memset(cfg.model.call, 0, sizeof cfg.model.call);
    memset(cfg.model.alg_set, 0, sizeof cfg.model.alg_set);
    if (cc->fn == RT_FN_Put)
        cfg.model.call[RT_FN_Win_fence] = m->call[RT_FN_Win_fence];
    cfg.node = node;
    cfg.module = module;
    const loop_trace lt = {.cc = cc, .n = n, .k = k, .p = p};
    uint64_t per;
    if (calib_engine_replay(loop_write, &lt, &cfg, &per) < 0)
        *failed = 1;
    return per;
}

/* The engine's time per call of CALLS_ENGINE_K back-to-back calls (for Put: per epoch, the
 * opening fence left out by taking the difference of two loop lengths). */
static uint64_t engine_time(const rt_calib_call *cc, uint64_t n, const rt_net_model *m,
                            const uint32_t *node, const uint32_t *module, uint32_t p, int *failed)
{
    uint64_t t = engine_run(cc, n, CALLS_ENGINE_K, m, node, module, p, failed);
    if (cc->fn != RT_FN_Put)
        return t / CALLS_ENGINE_K;
    uint64_t t2 = engine_run(cc, n, 2 * CALLS_ENGINE_K, m, node, module, p, failed);
    return t2 > t ? (t2 - t) / CALLS_ENGINE_K : 0;
}

void calib_calls_fit(rt_calib_result *res, rt_net_model *m, const uint32_t *node,
                     const uint32_t *module)
{
    for (unsigned i = 0; i < res->ncalls; i++) {
        rt_calib_call *cc = &res->calls[i];
        double r[2] = {0, 0};
        for (unsigned s = 0; s < cc->npts; s++) {
            cc->engine_ps[s] =
                cc->fn == RT_FN_Isend || cc->fn == RT_FN_Irecv
                    ? 0
                    : engine_time(cc, cc->size[s], m, node, module, 2, &res->calls_engine_failed);
            r[s] = (double)cc->measured_ps[s] - (double)cc->engine_ps[s];
        }
        if (!cc->npts)
            continue;
        rt_net_call cost = {0, 0};
        uint64_t n0 = traced_bytes(cc->fn, cc->size[0], 2);
        uint64_t n1 = cc->npts > 1 ? traced_bytes(cc->fn, cc->size[1], 2) : 0;
        /* a difference below zero (the engine charges more than was measured) is no cost */
        double r0 = r[0] > 0 ? r[0] : 0, r1 = r[1] > 0 ? r[1] : 0;
        if (cc->npts > 1 && r1 > r0 && n1 > n0) {
            cost.bandwidth = calib_round_sig4((double)(n1 - n0) * 1e12 / (r1 - r0));
            double fixed = r0 - (double)n0 * 1e12 / (double)cost.bandwidth;
            cost.fixed_ps = rt_mul_sat(rt_u64_of_double(fixed / 1000), 1000);
        } else if ((cc->refused & 1) && cc->npts == 1 && r0 > 0 && n0) {
            /* only the large size ran (MPICH refused the small one): a rate through it, so that
             * small calls, which the library would not run so, get no part of it */
            cost.bandwidth = calib_round_sig4((double)n0 * 1e12 / r0);
        } else {
            double fixed = cc->npts > 1 && r1 < r0 ? r1 : r0;
            cost.fixed_ps = rt_mul_sat(rt_u64_of_double(fixed / 1000), 1000);
        }
        cc->cost = cost;
        if (cc->alg == RT_ALG_MPICH) {
            m->call[cc->fn] = cost;
        } else {
            m->alg_call[cc->op][cc->alg] = cost;
            m->alg_set[cc->op][cc->alg] = 1;
        }
    }
    for (unsigned fn = 0; fn < RT_FN_COUNT; fn++) { /* MPI_Isend_c costs what MPI_Isend does */
        unsigned b = rt_net_call_base(fn);
        if (b != RT_FN_NONE)
            m->call[fn] = m->call[b];
    }
}
