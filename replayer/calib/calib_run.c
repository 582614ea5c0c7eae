/*
 * The calibration run (rt_calib.h): where each rank is, which pair of ranks stands for each
 * connection type, and one pair at a time measuring while the others sleep.
 *
 * Everything goes over a private duplicate of the caller's communicator, so no message of
 * ours can match one of the application's (or of a tracer around us). Ranks that wait
 * sleep between tests of a receive instead of spinning in a barrier: on a machine with
 * fewer cores than ranks a spinning rank would take a core from the pair being measured.
 * Every rank computes the same plan from the same gathered placement, so they agree on
 * who measures when without further messages; every outcome that decides the exit status
 * is broadcast from rank 0, so all ranks return the same status.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rt__calib.h"
#include "rt_place_mpi.h"

enum { CALIB_TAG_RELEASE = 5 };

void rt_calib_opts_default(rt_calib_opts *o)
{
    memset(o, 0, sizeof *o);
    o->max_bytes = 1u << 20;
    o->batches = 15;
    o->batch_ps = 200000000; /* 200 us */
}

/* How ids were found, bit by bit (OR-ed over the ranks for the model file's comments). */
enum {
    FROM_SHARED = 1, /* MPI_COMM_TYPE_SHARED */
    FROM_NODE_ENV = 2,
    FROM_MODULE_ENV = 4,
    FROM_INFO = 8, /* msa_module_id in MPI_INFO_ENV */
    FROM_EMULATE = 16,
};

/* This rank's node and module (DESIGN.md, "Connection types"; the tracer's rules). Sets
 * err for an environment variable that is set but not a number: the placement would then
 * not be the one the traces were recorded with. */
static int locate(MPI_Comm c, uint32_t *node, uint32_t *module, unsigned *how, rt_err *err)
{
    int me, p;
    MPI_Comm_rank(c, &me);
    MPI_Comm_size(c, &p);
    const char *em = getenv(RT_PLACE_EMULATE_VAR);
    /* Collective: every rank splits, whatever its own variables say. */
    *node = (uint32_t)me;
    *how = rt_place_shared_node(c, c, node) ? FROM_SHARED : 0;
    if (em && *em) {
        uint32_t nodes, modules;
        if (rt_place_parse_emulate(em, &nodes, &modules) < 0)
            return rt_err_set(err, RT_E_INVAL, "%s=%s: expected nodes=N,modules=M with N, M >= 1",
                              RT_PLACE_EMULATE_VAR, em);
        rt_place_emulated((uint32_t)me, (uint32_t)p, nodes, modules, node, module);
        *how = FROM_EMULATE;
        return 0;
    }
    const char *bad;
    uint32_t v;
    if (rt_place_env_id(RT_PLACE_NODE_VARS, &v, &bad)) {
        *node = v;
        *how = (*how & ~(unsigned)FROM_SHARED) | FROM_NODE_ENV;
    }
    if (bad)
        return rt_err_set(err, RT_E_INVAL, "rank %d: %s=%s is not a node id (a number)", me, bad,
                          getenv(bad));
    *module = 0;
    if (rt_place_env_id(RT_PLACE_MODULE_VARS, &v, &bad)) {
        *module = v;
        *how |= FROM_MODULE_ENV;
    } else if (bad) {
        return rt_err_set(err, RT_E_INVAL, "rank %d: %s=%s is not a module id (a number)", me, bad,
                          getenv(bad));
    } else if (rt_place_info_module(&v)) {
        *module = v;
        *how |= FROM_INFO;
    }
    return 0;
}

static void describe(unsigned how, char *buf, size_t len)
{
    if (how & FROM_EMULATE) {
        snprintf(buf, len, "emulated (%s)", RT_PLACE_EMULATE_VAR);
        return;
    }
    snprintf(buf, len, "nodes from %s%s, modules from %s",
             how & FROM_NODE_ENV ? "RETRACE_NODE_ID or PSP_SMP_NODE_ID" : "MPI_COMM_TYPE_SHARED",
             how & FROM_NODE_ENV && how & FROM_SHARED ? " (some ranks: MPI_COMM_TYPE_SHARED)" : "",
             how & FROM_MODULE_ENV ? "RETRACE_MODULE_ID or PSP_MSA_MODULE_ID"
             : how & FROM_INFO     ? "msa_module_id in MPI_INFO_ENV"
                                   : "nowhere (all in module 0)");
}

static unsigned contype(const uint32_t *node, const uint32_t *module, uint32_t a, uint32_t b)
{
    if (a == b)
        return RT_CT_LOOP;
    if (module[a] != module[b])
        return RT_CT_GW;
    return node[a] == node[b] ? RT_CT_SHM : RT_CT_NET;
}

static size_t distinct(const uint32_t *v, uint32_t n)
{
    size_t d = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t j = 0;
        while (j < i && v[j] != v[i])
            j++;
        d += j == i;
    }
    return d;
}

/* Waits, sleeping, for the release from rank `from` (a pair's initiator). Each wake-up
 * may take a core from the pair being measured for a moment, so the sleeps grow from
 * 100 us to 20 ms: a pair measures for a good part of a second, and a release noticed
 * 20 ms late costs little. */
static void calm_wait(MPI_Comm c, int from)
{
    MPI_Request q;
    int done = 0;
    long sleep_ns = 100000;
    MPI_Irecv(NULL, 0, MPI_BYTE, from, CALIB_TAG_RELEASE, c, &q);
    for (;;) {
        MPI_Test(&q, &done, MPI_STATUS_IGNORE);
        if (done)
            return;
        struct timespec ts = {0, sleep_ns};
        nanosleep(&ts, NULL);
        if (sleep_ns < 20000000)
            sleep_ns *= 2;
    }
}

static void release_others(MPI_Comm c, int p, int a, int b)
{
    for (int r = 0; r < p; r++)
        if (r != a && r != b)
            MPI_Send(NULL, 0, MPI_BYTE, r, CALIB_TAG_RELEASE, c);
}

/* Rank 0's outcome to every rank: status and message. */
static int share_outcome(MPI_Comm c, int rc, rt_err *err)
{
    struct {
        int rc, code;
        char msg[RT_ERR_LEN];
    } o = {rc, err ? err->code : 0, ""};
    if (rc && err)
        memcpy(o.msg, err->msg, sizeof o.msg);
    MPI_Bcast(&o, (int)sizeof o, MPI_BYTE, 0, c);
    if (o.rc && err) {
        err->code = o.code;
        memcpy(err->msg, o.msg, sizeof err->msg);
    }
    return o.rc;
}

/* When some rank failed (ok == 0 there), the lowest such rank's message becomes everyone's
 * error and its code everyone's status; else 0. */
static int first_failure(MPI_Comm c, int ok, const rt_err *local, rt_err *err)
{
    int me, p, bad = 0;
    MPI_Comm_rank(c, &me);
    MPI_Comm_size(c, &p);
    int mine = ok ? p : me;
    MPI_Allreduce(&mine, &bad, 1, MPI_INT, MPI_MIN, c);
    if (bad == p)
        return 0;
    rt_err e = *local;
    if (bad != 0 && me == bad)
        MPI_Send(&e, (int)sizeof e, MPI_BYTE, 0, CALIB_TAG_RESULT, c);
    else if (bad != 0 && me == 0)
        MPI_Recv(&e, (int)sizeof e, MPI_BYTE, bad, CALIB_TAG_RESULT, c, MPI_STATUS_IGNORE);
    int rc = share_outcome(c, -(e.code ? e.code : RT_E_IO), &e);
    if (err)
        *err = e;
    return rc;
}

static int alloc_bufs(calib_bufs *b, const rt_calib_opts *o)
{
    memset(b, 0, sizeof *b);
    size_t n = (size_t)o->max_bytes ? (size_t)o->max_bytes : 1;
    b->nx = (1u << 20) / sizeof(double); /* reductions up to 1 MiB */
    b->s = malloc(n);
    b->r = malloc(n);
    b->x = malloc(b->nx * sizeof *b->x);
    b->y = malloc(b->nx * sizeof *b->y);
    if (!b->s || !b->r || !b->x || !b->y)
        return -RT_E_NOMEM;
    /* Touched now, so that no page fault is timed. */
    memset(b->s, 1, n);
    memset(b->r, 0, n);
    for (size_t i = 0; i < b->nx; i++) {
        b->x[i] = 1.0;
        b->y[i] = 0.0;
    }
    return 0;
}

static void free_bufs(calib_bufs *b)
{
    free(b->s);
    free(b->r);
    free(b->x);
    free(b->y);
}

/* The pair of each type: the first (a, b), a < b, in rank order; loop is rank 0 alone. */
static int plan_pair(unsigned ct, const uint32_t *node, const uint32_t *module, uint32_t p,
                     uint32_t *a, uint32_t *b)
{
    if (ct == RT_CT_LOOP) {
        *a = *b = 0;
        return 1;
    }
    for (uint32_t i = 0; i < p; i++)
        for (uint32_t j = i + 1; j < p; j++)
            if (contype(node, module, i, j) == ct) {
                *a = i;
                *b = j;
                return 1;
            }
    return 0;
}

static void apply(const rt_calib_result *res, rt_net_model *m)
{
    int any = 0;
    for (unsigned ct = RT_CT_NONE + 1; ct < RT_CT_COUNT; ct++)
        if (res->link[ct].measured) {
            m->link[ct] = res->link[ct].fitted;
            any = 1;
        }
    m->link[RT_CT_NONE] = m->link[RT_CT_NET];
    if (res->reduce_bandwidth) {
        m->reduce_bandwidth = res->reduce_bandwidth;
        m->reduce_element_ps = res->reduce_element_ps; /* 0 when no cost per element showed */
    }
    if (res->cores)
        m->cores = res->cores;
    if (res->timeslice_ps)
        m->timeslice_ps = res->timeslice_ps;
    /* The sender is busy for o + n/B per message (at least g), and latency overlaps the
     * next message: that is what the measured gap describes. */
    if (any)
        m->injection = RT_NET_INJECT_BYTES;
    snprintf(m->source, sizeof m->source, "retrace calibrate");
}

/* One pair's turn. Rank 0 ends up with the link's result. */
static void pair_turn(MPI_Comm c, int me, int p, unsigned ct, uint32_t a, uint32_t b,
                      const rt_calib_opts *o, const rt_net_model *base, const calib_bufs *bufs,
                      rt_calib_link *out)
{
    if (me == (int)a) {
        calib_initiate(c, (int)b, ct, o, base, bufs, out);
        release_others(c, p, (int)a, (int)b);
        if (a != 0)
            MPI_Send(out, (int)sizeof *out, MPI_BYTE, 0, CALIB_TAG_RESULT, c);
    } else {
        if (me == (int)b)
            calib_respond(c, (int)a, bufs);
        else
            calm_wait(c, (int)a);
        if (me == 0)
            MPI_Recv(out, (int)sizeof *out, MPI_BYTE, (int)a, CALIB_TAG_RESULT, c,
                     MPI_STATUS_IGNORE);
    }
}

/* One calibration run's state, the same on every rank but for me: the private
 * communicator, every rank's node and module (by rank), the buffers, the progress. */
typedef struct run_ctx {
    MPI_Comm c;
    int me, p;
    const rt_calib_opts *o;
    uint32_t *node, *module;
    calib_bufs bufs;
    unsigned k, nsteps; /* progress: steps begun, steps in all */
} run_ctx;

/* The next step's progress line (rank 0, when the caller asked for them). */
static void progress(run_ctx *x, const char *what)
{
    if (x->me == 0 && x->o->step)
        x->o->step(x->o->step_ctx, ++x->k, x->nsteps, what);
}

/* Every rank's place from each rank's own (mine: node and module; how: how it was found;
 * both: room for 2 p), and what the result says of the machine: its nodes, modules and
 * cores, and the MPI library. */
static void survey(run_ctx *x, const uint32_t mine[2], unsigned how, uint32_t *both,
                   rt_calib_result *res)
{
    unsigned how_all = 0;
    MPI_Allgather(mine, 2, MPI_UINT32_T, both, 2, MPI_UINT32_T, x->c);
    MPI_Allreduce(&how, &how_all, 1, MPI_UNSIGNED, MPI_BOR, x->c);
    for (int i = 0; i < x->p; i++) {
        x->node[i] = both[2 * i];
        x->module[i] = both[2 * i + 1];
    }
    res->nnodes = (uint32_t)distinct(x->node, (uint32_t)x->p);
    res->nmodules = (uint32_t)distinct(x->module, (uint32_t)x->p);
    describe(how_all, res->placement, sizeof res->placement);
    calib_cores(x->c, x->node, res);
    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    int liblen = 0;
    MPI_Get_library_version(lib, &liblen);
    lib[strcspn(lib, "\n")] = '\0';
    snprintf(res->library, sizeof res->library, "%.*s", (int)sizeof res->library - 1, lib);
}

/* Each connection type's pair measures its link in turn (pair_turn) while the others sleep;
 * rank 0 ends up with every link's result. Counts the run's steps first. */
static void measure_links(run_ctx *x, const rt_net_model *model, rt_calib_result *res)
{
    uint32_t p = (uint32_t)x->p, a, b;
    /* the steps, for a progress line: each pair, the reduction rate, the calls (2 ranks) */
    x->nsteps = 1 + (x->p > 1);
    for (unsigned ct = RT_CT_NONE + 1; ct < RT_CT_COUNT; ct++)
        x->nsteps += plan_pair(ct, x->node, x->module, p, &a, &b);
    for (unsigned ct = RT_CT_NONE + 1; ct < RT_CT_COUNT; ct++) {
        if (!plan_pair(ct, x->node, x->module, p, &a, &b))
            continue;
        rt_calib_link *l = &res->link[ct];
        char what[64];
        if (a == b)
            snprintf(what, sizeof what, "%s (rank %u)", rt_contype_name(ct), (unsigned)a);
        else
            snprintf(what, sizeof what, "%s (ranks %u and %u)", rt_contype_name(ct), (unsigned)a,
                     (unsigned)b);
        progress(x, what);
        pair_turn(x->c, x->me, x->p, ct, a, b, x->o, model, &x->bufs, l);
        l->measured = 1;
        l->a = a;
        l->b = b;
        l->node[0] = x->node[a];
        l->node[1] = x->node[b];
        l->module[0] = x->module[a];
        l->module[1] = x->module[b];
    }
}

/* The reduction rate and the timeslice: rank 0 alone, the others asleep. */
static void measure_rank0(run_ctx *x, rt_calib_result *res)
{
    if (x->me == 0) {
        progress(x, "the reduction rate and the timeslice");
        calib_reduce(x->o, &x->bufs, res);
        calib_timeslice(x->o, res);
        release_others(x->c, x->p, 0, 0);
    } else {
        calm_wait(x->c, 0);
    }
}

/* The CPU costs of calls: ranks 0 and 1 alone (they need the eager switch found with the
 * links); the others sleep, as for the pairs: with more ranks than cores, ranks that poll
 * in a collective would measure the scheduler. */
static void measure_calls(run_ctx *x, rt_calib_result *res)
{
    MPI_Bcast(res->link, (int)sizeof res->link, MPI_BYTE, 0, x->c);
    if (x->p > 1)
        res->calls_ct = contype(x->node, x->module, 0, 1);
    MPI_Comm two;
    MPI_Comm_split(x->c, x->me < 2 ? 0 : MPI_UNDEFINED, x->me, &two);
    if (two != MPI_COMM_NULL) {
        if (x->p > 1)
            progress(x, "the costs of calls (ranks 0 and 1)");
        calib_calls_measure(two, x->o, &x->bufs, res);
        MPI_Comm_free(&two);
        if (x->me == 0)
            release_others(x->c, x->p, 0, 1);
    } else {
        calm_wait(x->c, 0);
    }
}

/* Rank 0: a link whose fit failed is the run's error, else the model takes the results.
 * Every rank returns rank 0's outcome. */
static int conclude(run_ctx *x, rt_net_model *model, rt_calib_result *res, rt_err *err)
{
    int rc = 0;
    if (x->me == 0) {
        for (unsigned ct = RT_CT_NONE + 1; ct < RT_CT_COUNT && !rc; ct++)
            if (res->link[ct].measured && res->link[ct].error[0])
                rc = rt_err_set(err, RT_E_INVAL, "%s", res->link[ct].error);
        if (!rc) {
            apply(res, model);
            calib_calls_fit(res, model, x->node, x->module);
        }
    }
    return share_outcome(x->c, rc, err);
}

int rt_calib_run(MPI_Comm comm, const rt_calib_opts *o, rt_net_model *model, rt_calib_result *res,
                 rt_err *err)
{
    double start = MPI_Wtime();
    memset(res, 0, sizeof *res);
    run_ctx x = {.o = o};
    if (MPI_Comm_dup(comm, &x.c) != MPI_SUCCESS)
        return rt_err_set(err, RT_E_IO, "cannot duplicate the communicator");
    MPI_Comm_rank(x.c, &x.me);
    MPI_Comm_size(x.c, &x.p);
    int p = x.p;
    res->nranks = (uint32_t)p;
    snprintf(res->base, sizeof res->base, "%s", model->source);

    uint32_t mine[2] = {0, 0}, *both = malloc(2 * (size_t)p * sizeof *both);
    x.node = malloc((size_t)p * sizeof *x.node);
    x.module = malloc((size_t)p * sizeof *x.module);
    unsigned how = 0;
    rt_err local = {0};
    int rc = locate(x.c, &mine[0], &mine[1], &how, &local);
    int ok = rc == 0 && both && x.node && x.module;
    if (ok && alloc_bufs(&x.bufs, o) < 0) {
        ok = 0;
        rt_err_set(&local, RT_E_NOMEM, "out of memory for two buffers of %llu bytes",
                   (unsigned long long)o->max_bytes);
    } else if (!ok && rc == 0) {
        rt_err_set(&local, RT_E_NOMEM, "out of memory for the placement of %d ranks", p);
    }
    if ((rc = first_failure(x.c, ok, &local, err)) == 0) {
        survey(&x, mine, how, both, res);
        measure_links(&x, model, res);
        measure_rank0(&x, res);
        measure_calls(&x, res);
        rc = conclude(&x, model, res, err);
        res->seconds = MPI_Wtime() - start;
    }
    free_bufs(&x.bufs);
    free(both);
    free(x.node);
    free(x.module);
    MPI_Comm_free(&x.c);
    return rc;
}
