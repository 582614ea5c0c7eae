/*
 * retrace replay --engine mpi: the trace re-executed on the real MPI library, under
 * mpiexec, one process per trace rank; each configuration measured, next to the built-in
 * engine's prediction for the same machine (the nodes and modules the processes run on).
 *
 * Rank 0 of MPI_COMM_WORLD does what only needs doing once (the built-in replay, the
 * placement of trace ranks on processes) and prints; every error is agreed on so that all
 * processes leave with the same status, except an MPI failure in the middle of a replay,
 * where the others may be blocked in a call: that one ends the job with MPI_Abort.
 */
#include <signal.h>
#include <mpi.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "mpi_launch.h"
#include "replay.h"
#include "rt_mpirun.h"

static int world_rank;

/* Errors are the same on every process: only rank 0 says them (cli_quiet on the others). */
#define fail cli_error
#define usage_fail(...) cli_usage_error(&cli_cmd_replay, __VA_ARGS__)

typedef struct mpi_opts {
    const char *path;
    rt_whatif_conf base;
    const char *alts[RT_WHATIF_MAX_ALTS];
    unsigned nalts;
    unsigned repeat;
    double compute_scale;
    uint64_t compute_scale_ppm; /* the same exactly, for the built-in engine */
    double timeout;             /* seconds; 0: none; < 0: not given (derived from the trace) */
    int timing;
    replay_fast fast; /* for the built-in engine's predictions */
    cli_out out;
} mpi_opts;

static int refuse(const char *arg, const char *why)
{
    return usage_fail("%.*s: not with --engine mpi (%s)", (int)strcspn(arg, "="), arg, why);
}

/* argv[i] is the option name, alone or as "name=VALUE" (the other engine's options). */
static int is_option(const char *arg, const char *name)
{
    size_t n = strlen(name);
    return !strncmp(arg, name, n) && (arg[n] == '\0' || arg[n] == '=');
}

static int parse(int argc, char **argv, mpi_opts *o)
{
    cli_args a = {.cmd = &cli_cmd_replay, .argc = argc, .argv = argv};
    o->repeat = 1;
    o->compute_scale = 1.0;
    o->compute_scale_ppm = 1000000;
    o->timeout = -1;
    for (a.i = 1; a.i < argc; a.i++) {
        const char *v, *arg = argv[a.i];
        int k;
        if (cli_args_flag(&a, "--help") || cli_args_flag(&a, "-h")) {
            if (world_rank == 0)
                cli_cmd_replay.usage(stdout);
            return -1;
        } else if (cli_args_flag(&a, "--free-wildcards")) {
            o->base.free_wild = 1;
        } else if (cli_args_flag(&a, "--timing")) {
            o->timing = 1;
        } else if (replay_fast_option(&a, &o->fast)) { /* --no-fast, --check-fast */
        } else if ((k = cli_args_value(&a, "--engine", &v)) ||
                   (k = cli_args_value(&a, "--model", &o->base.model)) ||
                   (k = cli_args_value(&a, "--coll", &o->base.coll)) ||
                   (k = cli_args_value(&a, "--map", &o->base.map)) ||
                   (k = cli_out_option(&a, &o->out))) {
            if (k < 0)
                return CLI_BAD;
        } else if ((k = cli_args_value(&a, "--repeat", &v))) {
            uint64_t n;
            if (k < 0 || rt_parse_uint(v, 1, 1000, &n, NULL) < 0)
                return k < 0 ? CLI_BAD
                             : usage_fail("--repeat: bad value '%s' (expected 1 to 1000)", v);
            o->repeat = (unsigned)n;
        } else if ((k = cli_args_value(&a, "--compute-scale", &v))) {
            if (k < 0)
                return CLI_BAD;
            if (rt_whatif_parse_scale(v, &o->compute_scale_ppm) < 0)
                return usage_fail("--compute-scale: bad value '%s' (expected %s)", v,
                                  RT_WHATIF_SCALE_EXPECTED);
            o->compute_scale = (double)o->compute_scale_ppm / 1e6;
        } else if ((k = cli_args_value(&a, "--timeout", &v))) {
            char *end;
            double s = k < 0 ? 0 : strtod(v, &end);
            if (k < 0 || !*v || *end || !(s >= 0) || s > 1e7)
                return k < 0 ? CLI_BAD
                             : usage_fail("--timeout: bad value '%s' (expected seconds, 0 for "
                                          "none)",
                                          v);
            o->timeout = s;
        } else if ((k = cli_args_value(&a, "--compare", &v))) {
            if (k < 0)
                return CLI_BAD;
            if (o->nalts == RT_WHATIF_MAX_ALTS)
                return usage_fail("--compare: at most %d alternatives", RT_WHATIF_MAX_ALTS);
            o->alts[o->nalts++] = v;
        } else if (is_option(arg, "--eager")) {
            return refuse(arg, "the MPI library has its own eager threshold");
        } else if (is_option(arg, "--contention")) {
            return refuse(arg, "the machine has its own");
        } else if (is_option(arg, "--nodes") || is_option(arg, "--modules") ||
                   is_option(arg, "--ranks-per-node")) {
            return refuse(arg, "the machine is the one mpiexec runs the processes on");
        } else if (is_option(arg, "--out-trace")) {
            return refuse(arg, "record the replay with the tracer instead");
        } else if (arg[0] != '-' && !o->path) {
            o->path = arg;
        } else {
            return cli_args_unknown(&a);
        }
    }
    if (!o->path)
        return usage_fail("no trace given");
    if (o->out.plot && !o->nalts)
        return usage_fail("--plot: draws the --compare table; give --compare");
    return replay_fast_finish(&o->fast);
}

/* ---- output (rank 0) ---------------------------------------------------------------------- */

typedef struct outcome {
    const char *label;
    char coll[256];
    rt_mpirun_result run; /* the median run */
    rt_sim_result sim;
    int sim_ok;
    int check_failed; /* --check-fast found the prediction changed without the fast path */
} outcome;

static double pct(double measured, double predicted)
{
    return measured > 0 ? 100.0 * (predicted - measured) / measured : 0.0;
}

static void print_summary(const mpi_opts *o, const rt_mpirun_machine *mc,
                          const rt_mpirun_placement *pl, const rt_mpirun *m, const rt_sim_trace *t,
                          const outcome *oc, const char *model)
{
    char a[32];
    uint64_t rm, rb;
    rt_mpirun_recorded(m, &rm, &rb);
    const rt_mpirun_result *r = &oc->run;
    printf("ranks               %u (%llu events)\n", (unsigned)mc->n,
           (unsigned long long)rt_sim_trace_events(t));
    printf("machine             %u process%s on %u node%s, %u module%s; map %s\n", (unsigned)mc->n,
           mc->n == 1 ? "" : "es", (unsigned)mc->nodes, mc->nodes == 1 ? "" : "s",
           (unsigned)mc->modules, mc->modules == 1 ? "" : "s", pl->map_name);
    printf("collectives         %s\n", oc->coll);
    rt_net_format_time(rt_sim_trace_span_ps(t), a, sizeof a);
    printf("recorded run time   %s\n", a);
    rt_net_format_time((uint64_t)(r->time_s * 1e12 + 0.5), a, sizeof a);
    printf("measured run time   %s", a);
    if (o->repeat > 1)
        printf(" (median of %u runs)", o->repeat);
    printf("\n");
    if (oc->sim_ok) {
        rt_net_format_time(oc->sim.time_ps, a, sizeof a);
        printf("predicted run time  %s (built-in engine, model %s; %+.1f %%)\n", a, model,
               pct(r->time_s, oc->sim.time_ps / 1e12));
    }
    rt_net_format_time((uint64_t)(r->mpi_s / (mc->n ? mc->n : 1) * 1e12 + 0.5), a, sizeof a);
    printf("time in MPI         %s per rank on average\n", a);
    printf("messages            %llu (%llu bytes); the trace has %llu (%llu bytes)\n",
           (unsigned long long)r->messages, (unsigned long long)r->bytes, (unsigned long long)rm,
           (unsigned long long)rb);
    printf("collective calls    %llu by %s's choice (%llu of them nonblocking), %llu with "
           "%s's algorithm forced, %llu as retrace's schedule, %llu left out\n",
           (unsigned long long)r->colls.mpich, cli_mpi_name,
           (unsigned long long)r->colls.nonblocking, (unsigned long long)r->colls.forced,
           cli_mpi_name, (unsigned long long)r->colls.schedule,
           (unsigned long long)r->colls.skipped);
    printf("one-sided transfers %llu\n", (unsigned long long)r->rma_ops);
}

static rt_table *rank_table(const outcome *oc)
{
    static const char *const cols[] = {"rank", "end_us", "mpi_us", "predicted_end_us"};
    rt_table *tb =
        rt_table_new("ranks", "per rank, measured (times in microseconds)", 4, cols, "rrrr");
    for (uint32_t i = 0; tb && i < oc->run.nranks && i < 64; i++)
        if (rt_table_row(tb) || rt_table_cell_u64(tb, i) ||
            rt_table_cell(tb, "%.3f", oc->run.end_s[i] * 1e6) ||
            rt_table_cell(tb, "%.3f", oc->run.rank_mpi_s[i] * 1e6) ||
            (oc->sim_ok ? rt_table_cell(tb, "%.3f", oc->sim.ranks[i].end_ps / 1e6)
                        : rt_table_cell(tb, "-"))) {
            rt_table_free(tb);
            return NULL;
        }
    return tb;
}

static int compare_row(rt_table *tb, const outcome *oc, double base)
{
    const rt_mpirun_result *r = &oc->run;
    return rt_table_row(tb) || rt_table_cell(tb, "%s", oc->label) ||
           rt_table_cell(tb, "%.3f", r->time_s * 1e6) ||
           (oc->sim_ok ? rt_table_cell(tb, "%.3f", oc->sim.time_ps / 1e6) ||
                             rt_table_cell(tb, "%+.1f", pct(r->time_s, oc->sim.time_ps / 1e12))
                       : rt_table_cell(tb, "-") || rt_table_cell(tb, "-")) ||
           rt_table_cell(tb, "%.3f", r->nranks ? r->mpi_s / r->nranks * 1e6 : 0.0) ||
           rt_table_cell_u64(tb, r->messages) || rt_table_cell_u64(tb, r->bytes) ||
           rt_table_cell(tb, "%.2fx", r->time_s > 0 ? base / r->time_s : 0.0) ||
           rt_table_cell_u64(tb, r->colls.mpich) || rt_table_cell_u64(tb, r->colls.forced) ||
           rt_table_cell_u64(tb, r->colls.schedule);
}

/* ---- the command ------------------------------------------------------------------------ */

static int by_time(const void *a, const void *b)
{
    const rt_mpirun_result *x = a, *y = b;
    return x->time_s < y->time_s ? -1 : x->time_s > y->time_s;
}

/* Rank 0's status to everyone; rank 0 has reported a failure itself. */
static int shared_status(int rc)
{
    MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
    return rc;
}

/* The configurations: the base and one per --compare, checked on every process alike. */
static int make_confs(mpi_opts *o, rt_whatif_conf *confs, char **texts,
                      uint8_t (*alg)[RT_COLL_COUNT])
{
    rt_err err;
    int rc;
    confs[0] = o->base;
    confs[0].label = rt_whatif_base_label(&o->base);
    for (unsigned i = 0; i < o->nalts; i++) {
        confs[i + 1] = o->base;
        if (!(texts[i] = strdup(o->alts[i])))
            return fail("out of memory");
        if ((rc = rt_whatif_parse_alt(texts[i], o->alts[i], &confs[i + 1], &err)) < 0)
            return replay_error(rc, &err);
        const rt_whatif_conf *c = &confs[i + 1];
        if (c->eager || c->contention || c->nodes || c->modules || c->rpn || c->compute_scale)
            return usage_fail("--compare: '%s': only coll, map and model can change with "
                              "--engine mpi (the machine and its MPI library are what they "
                              "are; --compute-scale applies to every configuration)",
                              o->alts[i]);
    }
    for (unsigned i = 0; i <= o->nalts; i++) {
        uint64_t ppm;
        for (unsigned op = 0; op < RT_COLL_COUNT; op++)
            alg[i][op] = RT_ALG_MPICH;
        if ((rc = rt_whatif_check(&confs[i], alg[i], &ppm, &err)) < 0)
            return replay_error(rc, &err);
    }
    return 0;
}

/* Rank 0: the built-in engine's copy of the trace, for the placements and predictions. */
static int load(const mpi_opts *o, rt_sim_trace **t)
{
    rt_reader *rd = NULL;
    rt_err err;
    int rc = CLI_OK;
    if (cli_out_claim_report(&o->out, o->path)) /* rank 0 writes them */
        rc = CLI_BAD;
    else if (rt_reader_open(o->path, &rd, &err) < 0)
        rc = cli_error("%s", err.msg);
    else if (rt_sim_trace_load(rd, t, &err) < 0)
        rc = cli_input_error(o->path, err.msg);
    if (rd)
        rt_reader_close(rd);
    return rc;
}

/* The placement under c's --map (recorded by default), worked out by rank 0, on every
 * process. */
static int share_placement(const rt_whatif_conf *c, const rt_sim_trace *t,
                           const rt_mpirun_machine *mc, rt_mpirun_placement *pl)
{
    int rc = 0;
    if (world_rank == 0) {
        rt_map_spec spec = {.kind = RT_MAP_RECORDED};
        rt_map_edge *edges = NULL;
        size_t nedges = 0;
        rt_err err;
        if ((c->map && rt_map_parse(c->map, &spec, &err) < 0) ||
            rt_whatif_traffic(&spec, t, &edges, &nedges, &err) < 0 ||
            rt_mpirun_place(&spec, rt_sim_trace_defs(t), edges, nedges, mc, pl, &err) < 0)
            rc = cli_error("%s", err.msg);
        free(edges);
    }
    if (shared_status(rc))
        return CLI_BAD;
    MPI_Bcast(pl->play, (int)mc->n, MPI_UINT32_T, 0, MPI_COMM_WORLD);
    MPI_Bcast(pl->node, (int)mc->n, MPI_UINT32_T, 0, MPI_COMM_WORLD);
    MPI_Bcast(pl->module, (int)mc->n, MPI_UINT32_T, 0, MPI_COMM_WORLD);
    return 0;
}

/* c replayed o->repeat times under cfg: the median run into *median (every process). */
static int measure(const mpi_opts *o, const rt_whatif_conf *c, const rt_mpirun_config *cfg,
                   rt_mpirun *m, rt_mpirun_result *median, rt_steps *steps)
{
    rt_err err;
    rt_mpirun_result *runs = calloc(o->repeat, sizeof *runs);
    int rc = runs ? 0 : 1;
    MPI_Allreduce(MPI_IN_PLACE, &rc, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (rc) {
        free(runs);
        return fail("out of memory");
    }
    for (unsigned k = 0; k < o->repeat; k++) {
        if (world_rank == 0) /* a terminal sees where a replay of minutes is */
            rt_steps_next(steps, "%s, run %u of %u", c->label, k + 1, o->repeat);
        double t0 = MPI_Wtime();
        rc = rt_mpirun_run(m, cfg, &runs[k], &err);
        if (rc < 0 && runs[k].stuck) {
            char line[RT_ERR_LEN + 512], out[4 * sizeof line]; /* any process says it */
            snprintf(line, sizeof line, "retrace: replay %s: %s", c->label, err.msg);
            rt_steps_clear();
            fprintf(stderr, "%s\n", rt_escape(out, sizeof out, line));
            fflush(stderr);
            /* The launcher forwards stderr through a pipe; an abort at once can end the job
             * before the line is passed on (mpi.replay_engine_nomem saw an empty stderr). */
            usleep(200000);
            MPI_Abort(MPI_COMM_WORLD, CLI_FAIL);
        }
        if (rc < 0) {
            for (unsigned j = 0; j < k; j++)
                rt_mpirun_result_free(&runs[j]);
            free(runs);
            return fail("replay %s: %s", c->label, err.msg);
        }
        if (o->timing && world_rank == 0)
            cli_line("retrace: timing: replay %s on MPI, run %u: %.3f s (measured %.6f s)",
                     c->label, k + 1, MPI_Wtime() - t0, runs[k].time_s);
    }
    qsort(runs, o->repeat, sizeof *runs, by_time);
    *median = runs[o->repeat / 2];
    for (unsigned k = 0; k < o->repeat; k++)
        if (k != o->repeat / 2)
            rt_mpirun_result_free(&runs[k]);
    free(runs);
    return 0;
}

/* Rank 0: the built-in engine's prediction of c on the same placement (a warning when it
 * cannot be made). */
static void predict(const mpi_opts *o, const rt_whatif_conf *c, const rt_sim_trace *t,
                    const rt_mpirun_placement *pl, outcome *oc)
{
    rt_sim_config sc;
    rt_err err;
    if (rt_whatif_sim_config(c, cli_mpi_choice, &sc, &err) < 0) { /* checked in make_confs */
        cli_warning("built-in replay %s: %s", c->label, err.msg);
        return;
    }
    sc.node = pl->node;
    sc.module = pl->module;
    sc.compute_scale_ppm = o->compute_scale_ppm;
    sc.no_fast_coll = o->fast.off;
    if (rt_sim_run(t, &sc, &oc->sim, &err) < 0) {
        cli_warning("built-in replay %s: %s", c->label, err.msg);
        return;
    }
    oc->sim_ok = oc->sim.completed;
    if (o->fast.check && rt_sim_check_fast(t, &sc, &oc->sim, &err) < 0) {
        cli_error("%s", err.msg);
        oc->check_failed = 1;
    }
}

/* One configuration: its placement, o->repeat runs on MPI (the median into oc->run, on every
 * process) and the built-in engine's prediction (oc->sim, rank 0). */
static int run_conf(const mpi_opts *o, const rt_whatif_conf *c, const uint8_t *alg, rt_mpirun *m,
                    const rt_sim_trace *t, const rt_mpirun_machine *mc, rt_mpirun_placement *pl,
                    outcome *oc, rt_steps *steps)
{
    if (share_placement(c, t, mc, pl))
        return CLI_BAD;
    rt_mpirun_config cfg;
    rt_mpirun_config_default(&cfg);
    memcpy(cfg.alg, alg, sizeof cfg.alg);
    cfg.play = pl->play;
    cfg.node = pl->node;
    cfg.module = pl->module;
    cfg.free_wildcards = c->free_wild;
    cfg.compute_scale = o->compute_scale;
    int rc = measure(o, c, &cfg, m, &oc->run, steps);
    if (rc)
        return rc;
    uint8_t named[RT_COLL_COUNT]; /* RT_ALG_MPICH runs the library's own choice: name it */
    for (unsigned op = 0; op < RT_COLL_COUNT; op++)
        named[op] = alg[op] == RT_ALG_MPICH ? (uint8_t)cli_mpi_choice : alg[op];
    rt_coll_algs_name(named, oc->coll, sizeof oc->coll);
    oc->label = c->label;
    if (world_rank == 0)
        predict(o, c, t, pl, oc);
    return 0;
}

static int report(const mpi_opts *o, const rt_mpirun_machine *mc, const rt_mpirun_placement *pl,
                  rt_mpirun *m, const rt_sim_trace *t, outcome *oc, unsigned n,
                  const rt_whatif_conf *confs)
{
    rt_report rep;
    memset(&rep, 0, sizeof rep);
    int rc = CLI_OK;
    if (!o->nalts) {
        rt_sim_config sc;
        rt_err err;
        rt_whatif_sim_config(&confs[0], cli_mpi_choice, &sc, &err); /* checked: its model's name */
        print_summary(o, mc, pl, m, t, &oc[0], sc.model.source);
        printf("\n");
        rt_table *tb = rank_table(&oc[0]);
        if (!tb || rt_tables_add(&rep.tables, tb) < 0)
            rc = cli_error("out of memory");
    } else {
        /* the calls by the MPI library's own choice: colls_mpich or colls_openmpi */
        const char *own = strcmp(cli_mpi_name, "MPICH") ? "colls_openmpi" : "colls_mpich";
        const char *const cols[] = {"configuration", "measured_us",     "predicted_us",
                                    "error_pct",     "mpi_us_per_rank", "messages",
                                    "bytes",         "speedup",         own,
                                    "colls_forced",  "colls_schedule"};
        rt_table *cmp = rt_table_new("compare",
                                     "measured on MPI, and predicted (times in "
                                     "microseconds)",
                                     11, cols, "lrrrrrrrrrr");
        if (!cmp || rt_tables_add(&rep.tables, cmp) < 0)
            rc = cli_error("out of memory");
        rep.plot = cmp;
        for (unsigned i = 0; i < n && rc == CLI_OK; i++)
            if (compare_row(cmp, &oc[i], oc[0].run.time_s))
                rc = cli_error("out of memory");
    }
    for (unsigned i = 0; i < n; i++)
        replay_print_notes(o->nalts ? oc[i].label : NULL, oc[i].run.notes);
    /* the prediction tells whether the run could finish (a trace with pending calls:
     * docs/replay.md) */
    int failed = 0;
    for (unsigned i = 0; i < n; i++)
        if (oc[i].sim.nranks)
            failed |= replay_report_failure("prediction", o->nalts ? oc[i].label : NULL, &oc[i].sim,
                                            rt_sim_trace_end_of(t));
    if (rc == CLI_OK) {
        static const cli_plot plot = {RT_PLOT_BARS,    "Measured run time on MPI (us)",
                                      "configuration", "microseconds",
                                      "no plot",       0};
        rc = cli_out_report(&o->out, &rep, 1, &plot);
    }
    rep.plot = NULL;
    rt_report_free(&rep);
    return rc == CLI_OK && failed ? CLI_FAIL : rc;
}

/* ---- the watchdog --------------------------------------------------------------------------- */

/* A replay that cannot finish (the trace's order deadlocks on this MPI library, e.g. a
 * wildcard receive replayed as recorded) would wait forever: after the timeout every process
 * leaves with status 1, and hydra ends the job. Only async-signal-safe calls here. */
static char alarm_msg[256];

static void on_alarm(int sig)
{
    (void)sig;
    if (world_rank == 0)
        (void)!write(2, alarm_msg, strlen(alarm_msg));
    _exit(CLI_FAIL);
}

static void watchdog(const mpi_opts *o, const rt_sim_trace *t)
{
    double s = o->timeout;
    if (s < 0) { /* 60 s, plus 20 times the recorded run for every replay */
        double span = world_rank == 0 ? rt_sim_trace_span_ps(t) / 1e12 : 0;
        MPI_Bcast(&span, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
        s = 60 +
            20 * span * (o->compute_scale > 1 ? o->compute_scale : 1) * o->repeat * (o->nalts + 1);
    }
    if (s <= 0)
        return;
    snprintf(alarm_msg, sizeof alarm_msg,
             "%sretrace: replay --engine mpi did not finish within %.0f s: stopped (a deadlock "
             "in this order on this MPI library? see docs/replay.md; --timeout changes the "
             "limit)\n",
             isatty(2) ? "\n" : "", s); /* below the progress line on a terminal */
    signal(SIGALRM, on_alarm);
    /* the other processes a second later, so that rank 0 says why before hydra ends it */
    unsigned secs = s > 4e6 ? 4000000u : (unsigned)(s + 0.999);
    alarm(secs + (world_rank != 0));
}

static int run(int argc, char **argv)
{
    mpi_opts o;
    memset(&o, 0, sizeof o);
    int rc = parse(argc, argv, &o);
    if (rc)
        return rc < 0 ? CLI_OK : rc;
    rt_whatif_conf confs[RT_WHATIF_MAX_ALTS + 1];
    char *texts[RT_WHATIF_MAX_ALTS] = {0};
    uint8_t alg[RT_WHATIF_MAX_ALTS + 1][RT_COLL_COUNT];
    rt_sim_trace *t = NULL;
    rt_mpirun *m = NULL;
    rt_mpirun_machine mc = {0};
    rt_mpirun_placement pl = {0};
    outcome oc[RT_WHATIF_MAX_ALTS + 1];
    unsigned done = 0;
    memset(oc, 0, sizeof oc);
    rt_err err;
    rc = make_confs(&o, confs, texts, alg);
    int loaded = rc; /* make_confs: alike everywhere */
    if (rc == 0 && world_rank == 0)
        rc = load(&o, &t);
    if (loaded == 0)
        rc = shared_status(rc);
    if (rc == 0 && rt_mpirun_open(MPI_COMM_WORLD, o.path, &m, &err) < 0)
        rc = fail("%s", err.msg);
    if (rc == 0 && rt_mpirun_machine_locate(MPI_COMM_WORLD, &mc, &err) < 0)
        rc = fail("%s", err.msg);
    if (rc == 0)
        watchdog(&o, t);
    if (rc == 0) {
        int bad = rt_mpirun_placement_init(&pl, mc.n, &err) < 0;
        MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
        if (bad)
            rc = fail("out of memory");
    }
    rt_steps steps;
    rt_steps_begin(&steps, "replay on MPI", (o.nalts + 1) * o.repeat);
    for (; rc == 0 && done <= o.nalts; done++)
        rc = run_conf(&o, &confs[done], alg[done], m, t, &mc, &pl, &oc[done], &steps);
    rt_steps_end(&steps);
    if (rc == 0 && world_rank == 0)
        rc = report(&o, &mc, &pl, m, t, oc, done, confs);
    for (unsigned i = 0; i < done; i++) {
        if (rc == 0 && oc[i].check_failed) /* --check-fast: said where it failed */
            rc = CLI_FAIL;
        rt_mpirun_result_free(&oc[i].run);
        rt_sim_result_free(&oc[i].sim);
    }
    for (unsigned i = 0; i < o.nalts; i++)
        free(texts[i]);
    rt_mpirun_placement_free(&pl);
    rt_mpirun_machine_free(&mc);
    rt_mpirun_close(m);
    rt_sim_trace_free(t);
    /* rank 0's report may fail (an unwritable --csv): everyone exits alike */
    MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
    return rc;
}

int replay_mpi_run(int argc, char **argv)
{
    if (cli_mpi_launch(argc, argv)) /* under Open MPI's mpirun: retrace-openmpi instead */
        return CLI_FAIL;
    int inited = 0;
    MPI_Initialized(&inited);
    rt_mpirun_prepare(); /* Open MPI: collective algorithms can be forced */
    if (!inited)
        MPI_Init(NULL, NULL);
    MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    cli_quiet = world_rank != 0; /* errors alike everywhere: rank 0 says them */
    if (world_rank != 0)         /* one copy of the report */
        (void)!freopen("/dev/null", "w", stdout);
    int rc = run(argc, argv);
    MPI_Finalize();
    return rc;
}
