/* retrace replay TRACE: re-execute a trace on the built-in MPI engine, and compare choices.
 * The configurations and their replays are rt_whatif's and rt_sim's; this file reads the
 * options, prints, and decides the exit status. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "replay.h"

static void replay_usage(FILE *out)
{
    fprintf(out,
            "usage: retrace replay TRACE [--model FILE] [--coll OP=ALG,...] [--map SPEC]\n"
            "                      [--nodes N] [--modules M] [--ranks-per-node K]\n"
            "                      [--eager BYTES] [--contention on|off] [--free-wildcards]\n"
            "                      [--compute-scale F] [--sharing auto|hosts|model] [--force]\n"
            "                      [--no-fast | --check-fast]\n"
            "                      [--compare ALT ...] [--out-trace DIR] [--csv FILE]\n"
            "                      [--plot FILE.svg|.png] [--timing] [--engine sim|mpi]\n"
            "       mpiexec -n P retrace replay --engine mpi TRACE [--coll ...] [--map ...]\n"
            "                      [--model FILE] [--compare ALT ...] [--repeat N]\n"
            "                      [--compute-scale F] [--timeout SEC] [--free-wildcards]\n"
            "                      [--csv F] [--plot F] [--force] [--no-fast | --check-fast]\n"
            "\n"
            "Replays the trace on a simulated machine (docs/replay.md) and prints the\n"
            "predicted run time, the time per rank and the critical rank (the last to end).\n"
            "With --engine mpi, under mpiexec with as many processes as the trace has ranks,\n"
            "each process re-issues its rank's calls on the real MPI library and the run\n"
            "is measured, next to the built-in engine's prediction for the same machine.\n"
            "  --model FILE       network model (docs/model.md); default: built-in\n"
            "  --coll OP=ALG,...  collective algorithms (OP may be 'all'); default: the choice\n"
            "                     of the MPI that recorded the trace: ompi (Open MPI 4.1's)\n"
            "                     or mpich (MPICH 4.0's, for any other MPI).\n"
            "                     'retrace hist --algorithms' lists them\n"
            "  --map SPEC         placement of ranks: recorded (default), block, cyclic,\n"
            "                     random:SEED, file:FILE (lines 'RANK NODE'), auto (from the\n"
            "                     traced traffic: fewest gateway bytes, then inter-node bytes)\n"
            "  --nodes N, --modules M, --ranks-per-node K\n"
            "                     another machine shape (missing values follow from the\n"
            "                     others and the trace); implies --map block unless given\n"
            "  --eager BYTES      eager/rendezvous threshold for every connection type\n"
            "                     (e.g. 0 or 64K); default: the model's\n"
            "  --contention on|off  queue messages at receivers and gateways\n"
            "  --free-wildcards   match MPI_ANY_SOURCE/MPI_ANY_TAG receives freely instead of\n"
            "                     as recorded\n"
            "  --compute-scale F  spend F times each recorded computation gap (default 1;\n"
            "                     0.5: a CPU twice as fast; 0: communication only)\n"
            "  --sharing auto|hosts|model\n"
            "                     who takes turns on CPUs: hosts: ranks that ran on one host,\n"
            "                     on the CPUs they could use there (the trace's hosts; the\n"
            "                     recorded placement only); model: the model's cores per\n"
            "                     node; auto (default): hosts when the trace names them and\n"
            "                     no configuration moves a rank\n"
            "  --compare ALT      also replay an alternative and print one table with a row\n"
            "                     per configuration (repeat for more, up to 16). ALT is\n"
            "                     KEY:VALUE[+KEY:VALUE...] with KEY one of coll, map, model,\n"
            "                     eager, contention, compute-scale, nodes, modules,\n"
            "                     ranks-per-node, e.g. coll:all=msa  map:auto  eager:0\n"
            "                     map:cyclic+nodes:8  compute-scale:0.5\n"
            "  --out-trace DIR    write the simulated run as an OTF2 archive (its collectives\n"
            "                     as the wire messages of their algorithms)\n"
            "  --csv FILE         the tables as CSV (FILE, FILE-ranks.csv)\n"
            "  --plot FILE        a bar chart of the predicted times (with --compare)\n"
            "  --force            replace existing --csv, --plot files and a --out-trace\n"
            "                     archive retrace wrote (nothing is overwritten without it)\n"
            "  --timing           how long loading and each replay took, on stderr\n"
            "  --no-fast          diagnostics: replay without the built-in engine's collective\n"
            "                     fast path (the same results, only slower; docs/replay.md)\n"
            "  --check-fast       diagnostics: replay each configuration once more without the\n"
            "                     fast path; exit status 1 unless the results are the same to\n"
            "                     the picosecond (with --engine mpi: the predictions)\n"
            "  --engine sim|mpi   sim: the built-in engine (default); mpi: real MPI (above)\n"
            "  --repeat N         mpi: replay each configuration N times, report the median\n"
            "  --timeout SEC      mpi: stop a replay that has not finished after SEC seconds\n"
            "                     (0: never; default 60 + 20 times the recorded run per replay)\n"
            "Exit status 1 when a replay ends in a deadlock or a collective mismatch (the\n"
            "report says which ranks wait for what). A run some of whose ranks did not reach\n"
            "MPI_Finalize is never reported as finished (docs/replay.md).\n");
}

/* ---- shared with cmd_replay_mpi.c ------------------------------------------------------ */

int replay_fast_option(cli_args *a, replay_fast *f)
{
    if (cli_args_flag(a, "--no-fast"))
        f->off = 1;
    else if (cli_args_flag(a, "--check-fast"))
        f->check = 1;
    else
        return 0;
    return 1;
}

int replay_fast_finish(const replay_fast *f)
{
    if (f->off && f->check)
        return cli_usage_error(&cli_cmd_replay,
                               "--check-fast: not with --no-fast (no fast path to check)");
    return CLI_OK;
}

int replay_error(int rc, const rt_err *err)
{
    if (rc == -RT_E_USAGE)
        return cli_usage_error(&cli_cmd_replay, "%s", err->msg);
    return cli_error("%s", err->msg);
}

void replay_print_notes(const char *label, const char *notes)
{
    for (const char *p = notes; p && *p;) {
        const char *nl = strchr(p, '\n');
        int n = nl ? (int)(nl - p) : (int)strlen(p);
        cli_line("retrace: note%s%s: %.*s", label ? " for " : "", label ? label : "", n, p);
        p += n + (nl != NULL);
    }
}

/* ---- the options ------------------------------------------------------------------------ */

typedef struct replay_opts {
    const char *path;
    rt_whatif_conf base;
    const char *alts[RT_WHATIF_MAX_ALTS];
    unsigned nalts;
    int timing;
    const char *out_trace;
    replay_fast fast;
    int sharing; /* --sharing: SHARE_AUTO, SHARE_HOSTS or SHARE_MODEL */
    cli_out out;
} replay_opts;

enum { SHARE_AUTO, SHARE_HOSTS, SHARE_MODEL };

/* The options that set a value of the base configuration: 1, -1 after a usage error
 * (reported), 0 for another argument. */
static int conf_option(cli_args *a, rt_whatif_conf *c)
{
    const char *v;
    rt_err err;
    int k;
    if ((k = cli_args_value(a, "--model", &c->model)) ||
        (k = cli_args_value(a, "--coll", &c->coll)) || (k = cli_args_value(a, "--map", &c->map)) ||
        (k = cli_args_value(a, "--eager", &c->eager)) ||
        (k = cli_args_value(a, "--contention", &c->contention)) ||
        (k = cli_args_value(a, "--compute-scale", &c->compute_scale)))
        return k < 0 ? -1 : 1;
    static const char *const counts[] = {"--nodes", "--modules", "--ranks-per-node"};
    uint32_t *dst[] = {&c->nodes, &c->modules, &c->rpn};
    for (int i = 0; i < 3; i++)
        if ((k = cli_args_value(a, counts[i], &v))) {
            if (k < 0)
                return -1;
            if (rt_whatif_parse_count(counts[i], v, dst[i], &err) < 0) {
                replay_error(-RT_E_USAGE, &err);
                return -1;
            }
            return 1;
        }
    return 0;
}

/* CLI_OK with o filled, -1 after --help, or CLI_BAD (reported). */
static int parse(int argc, char **argv, replay_opts *o)
{
    const cli_command *cmd = &cli_cmd_replay;
    cli_args a = {.cmd = cmd, .argc = argc, .argv = argv};
    for (a.i = 1; a.i < argc; a.i++) {
        const char *v, *arg = argv[a.i];
        int k;
        if (cli_args_flag(&a, "--help") || cli_args_flag(&a, "-h")) {
            replay_usage(stdout);
            return -1;
        } else if (cli_args_flag(&a, "--free-wildcards")) {
            o->base.free_wild = 1;
        } else if (cli_args_flag(&a, "--timing")) {
            o->timing = 1;
        } else if ((k = cli_args_value(&a, "--sharing", &v))) {
            static const char *const names[] = {"auto", "hosts", "model"};
            if (k < 0)
                return CLI_BAD;
            o->sharing = -1;
            for (int s = 0; s < 3; s++)
                o->sharing = !strcmp(v, names[s]) ? s : o->sharing;
            if (o->sharing < 0)
                return cli_usage_error(
                    cmd, "--sharing: bad value '%s' (expected auto, hosts or model)", v);
        } else if (replay_fast_option(&a, &o->fast)) { /* --no-fast, --check-fast */
        } else if ((k = conf_option(&a, &o->base)) ||
                   (k = cli_args_value(&a, "--out-trace", &o->out_trace)) ||
                   (k = cli_out_option(&a, &o->out))) {
            if (k < 0)
                return CLI_BAD;
        } else if ((k = cli_args_value(&a, "--engine", &v))) {
            if (k < 0)
                return CLI_BAD;
            if (strcmp(v, "sim"))
                return cli_usage_error(cmd, "--engine: bad value '%s' (expected sim or mpi)", v);
        } else if ((k = cli_args_value(&a, "--compare", &v))) {
            if (k < 0)
                return CLI_BAD;
            if (o->nalts == RT_WHATIF_MAX_ALTS)
                return cli_usage_error(cmd, "--compare: at most %d alternatives",
                                       RT_WHATIF_MAX_ALTS);
            o->alts[o->nalts++] = v;
        } else if ((k = cli_args_value(&a, "--repeat", &v)) ||
                   (k = cli_args_value(&a, "--timeout", &v))) {
            return k < 0 ? CLI_BAD
                         : cli_usage_error(cmd, "%.*s: only with --engine mpi",
                                           (int)strcspn(arg, "="), arg);
        } else if (arg[0] != '-' && !o->path) {
            o->path = arg;
        } else {
            return cli_args_unknown(&a);
        }
    }
    if (!o->path)
        return cli_usage_error(cmd, "no trace given");
    if (o->out.plot && !o->nalts)
        return cli_usage_error(cmd, "--plot: draws the --compare table; give --compare");
    if (o->out_trace && o->nalts)
        return cli_usage_error(cmd, "--out-trace: writes one replay; not with --compare");
    return replay_fast_finish(&o->fast);
}

/* ---- output ------------------------------------------------------------------------------ */

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void print_summary(const rt_sim_trace *t, const rt_whatif_setup *su, const rt_sim_result *r,
                          const char *coll)
{
    char a[32], b[32];
    const rt_defs *defs = rt_sim_trace_defs(t);
    printf("ranks               %u (%llu events)\n", (unsigned)defs->nranks,
           (unsigned long long)rt_sim_trace_events(t));
    printf("machine             %u node%s, %u module%s, up to %u rank%s per node; map %s\n",
           (unsigned)su->shape.nodes, su->shape.nodes == 1 ? "" : "s", (unsigned)su->shape.modules,
           su->shape.modules == 1 ? "" : "s", (unsigned)su->shape.ranks_per_node,
           su->shape.ranks_per_node == 1 ? "" : "s", su->map_name);
    printf("model               %s\n", su->cfg.model.source);
    printf("collectives         %s\n", coll);
    rt_net_format_time(rt_sim_trace_span_ps(t), a, sizeof a);
    printf("recorded run time   %s\n", a);
    rt_net_format_time(r->time_ps, a, sizeof a);
    printf("predicted run time  %s%s\n", a, r->completed ? "" : " (did not complete)");
    rt_net_format_time(r->ranks ? r->ranks[r->critical_rank].mpi_ps : 0, b, sizeof b);
    printf("critical rank       %u (%s in MPI)\n", (unsigned)r->critical_rank, b);
    /* the mean of per-rank times fits where their sum may not */
    rt_net_format_time(defs->nranks ? (uint64_t)(r->mpi_ps / defs->nranks) : 0, a, sizeof a);
    printf("time in MPI         %s per rank on average\n", a);
    char nb[RT_U128_LEN];
    printf("messages            %llu (%s bytes)\n", (unsigned long long)r->messages,
           rt_u128_str(r->bytes, nb, sizeof nb));
    printf("gateway crossings   %llu (%s bytes)\n", (unsigned long long)r->gw_messages,
           rt_u128_str(r->gw_bytes, nb, sizeof nb));
}

/* The report of a deadlock or a mismatch, or a warning: 1 when the replay did not complete.
 * A run some of whose ranks did not reach MPI_Finalize never passes for a finished one: if
 * its replay completes, a line says that the run was cut short (docs/replay.md). */
int replay_report_failure(const char *what, const char *label, const rt_sim_result *r,
                          const rt_sim_trace_end *e)
{
    if (r->completed && e->unfinished) {
        char pend[64] = "";
        if (e->pending)
            snprintf(pend, sizeof pend, ", %u of them in a call that never returned",
                     (unsigned)e->pending);
        printf("the run was cut short%s%s%s: %u of %u ranks did not reach MPI_Finalize%s; every "
               "recorded call completes in the replay, and the prediction covers the recorded "
               "part\n",
               label ? " (" : "", label ? label : "", label ? ")" : "", (unsigned)e->unfinished,
               (unsigned)r->nranks, pend);
    }
    if (r->completed && !r->report)
        return 0;
    const char *head = r->completed ? "warning" : "did not complete";
    if (label)
        printf("%s %s (%s):\n%s", what, head, label, r->report ? r->report : "");
    else
        printf("%s %s:\n%s", what, head, r->report ? r->report : "");
    return !r->completed;
}

/* ---- the command ------------------------------------------------------------------------- */

/* One run of the command: the trace and the report being made. */
typedef struct replay_state {
    const replay_opts *o;
    rt_sim_trace *t;
    rt_report rep;
    rt_table *cmp;    /* with --compare: the compare table (one of rep's) */
    uint64_t base_ps; /* the first configuration's predicted time */
    int failed;       /* a replay did not complete */
    int share_hosts;  /* rt_sim_config.share_hosts for every configuration */
} replay_state;

static int load(replay_state *st)
{
    const replay_opts *o = st->o;
    rt_reader *rd = NULL;
    rt_err err;
    double t0 = now_s();
    int rc = CLI_OK;
    if (rt_reader_open(o->path, &rd, &err) < 0)
        rc = cli_error("%s", err.msg);
    else if (rt_sim_trace_load(rd, &st->t, &err) < 0)
        rc = cli_input_error(o->path, err.msg);
    else
        cli_out_truncated(rt_reader_truncated(rd));
    if (rd)
        rt_reader_close(rd);
    if (rc != CLI_OK)
        return rc;
    if (o->timing)
        fprintf(stderr, "retrace: timing: loaded %llu events in %.3f s\n",
                (unsigned long long)rt_sim_trace_events(st->t), now_s() - t0);
    replay_print_notes(NULL, rt_sim_trace_notes(st->t));
    if (o->nalts) {
        st->cmp = rt_whatif_compare_table();
        if (!st->cmp || rt_tables_add(&st->rep.tables, st->cmp) < 0) {
            st->cmp = NULL;
            return cli_error("out of memory");
        }
        st->rep.plot = st->cmp;
    }
    return CLI_OK;
}

/* What one replay shows: the summary and the per-rank table, or a row of the compare table;
 * then its report and notes. */
static int show(replay_state *st, const rt_whatif_conf *c, const rt_whatif_setup *su,
                const rt_sim_result *res)
{
    const replay_opts *o = st->o;
    const char *label = o->nalts ? c->label : NULL;
    int rc = CLI_OK;
    if (!o->nalts) {
        char coll[256];
        rt_coll_algs_name(su->cfg.alg, coll, sizeof coll);
        print_summary(st->t, su, res, coll);
        if (o->out_trace && res->completed)
            printf("simulated trace     %s\n", o->out_trace);
        rt_table *rt = rt_whatif_rank_table(res, 0);
        if (!rt || rt_tables_add(&st->rep.tables, rt) < 0)
            rc = cli_error("out of memory");
    } else if (rt_whatif_compare_row(st->cmp, c->label, res, st->base_ps) < 0) {
        rc = cli_error("out of memory");
    }
    st->failed |= replay_report_failure("replay", label, res, rt_sim_trace_end_of(st->t));
    replay_print_notes(label, res->notes);
    return rc;
}

/* Whether the ranks that shared a real host share its CPUs in the replays (--sharing,
 * docs/replay.md): with auto, when the trace names the hosts and no configuration moves a
 * rank, so that the rows of a comparison stand on the same machine. */
static int share_hosts(replay_state *st, const rt_whatif_set *set)
{
    if (st->o->sharing != SHARE_AUTO)
        return st->o->sharing == SHARE_HOSTS;
    for (unsigned i = 0; i < set->n; i++) {
        rt_whatif_setup su;
        rt_err err;
        int moved = rt_whatif_setup_make(&set->conf[i], st->t, &su, &err) < 0 || su.cfg.node;
        rt_whatif_setup_free(&su);
        if (moved)
            return 0;
    }
    return 1;
}

/* Configuration number i, replayed and shown. */
static int replay_one(replay_state *st, const rt_whatif_conf *c, unsigned i)
{
    const replay_opts *o = st->o;
    rt_whatif_setup su;
    rt_sim_result res;
    rt_err err;
    int rc = rt_whatif_setup_make(c, st->t, &su, &err);
    if (rc < 0) {
        rt_whatif_setup_free(&su);
        return replay_error(rc, &err);
    }
    su.cfg.out_trace = o->out_trace;
    su.cfg.share_hosts = st->share_hosts;
    su.cfg.no_fast_coll = o->fast.off;
    double t1 = now_s();
    clock_t c1 = clock();
    if ((rc = rt_sim_run(st->t, &su.cfg, &res, &err)) < 0) {
        /* a time or a total the engine cannot represent comes of the trace (with the model) */
        const char *in = rc == -RT_E_RANGE ? o->path : NULL;
        rc = cli_error("replay%s%s: %s%s%s", o->nalts ? " " : "", o->nalts ? c->label : "",
                       in ? in : "", in ? ": " : "", err.msg);
    } else {
        double dt = now_s() - t1, cpu = (double)(clock() - c1) / CLOCKS_PER_SEC;
        rc = CLI_OK;
        if (o->fast.check && rt_sim_check_fast(st->t, &su.cfg, &res, &err) < 0) {
            cli_error("%s", err.msg);
            rc = CLI_FAIL;
        }
        if (o->timing)
            cli_line("retrace: timing: replay %s: %.3f s, %.2f M events/s, %llu engine "
                     "events, %llu messages, %llu fast collectives, %.3f s CPU",
                     c->label, dt, dt > 0 ? res.events / dt / 1e6 : 0.0,
                     (unsigned long long)res.sim_events, (unsigned long long)res.messages,
                     (unsigned long long)res.fast_colls, cpu);
        if (i == 0)
            st->base_ps = res.time_ps;
        int shown = show(st, c, &su, &res);
        if (shown != CLI_OK)
            rc = shown;
    }
    rt_sim_result_free(&res);
    rt_whatif_setup_free(&su);
    return rc;
}

static int replay_run(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) { /* the real-MPI engine is another command line */
        const char *e = !strcmp(argv[i], "--engine") && i + 1 < argc ? argv[i + 1]
                        : !strncmp(argv[i], "--engine=", 9)          ? argv[i] + 9
                                                                     : NULL;
        if (e && !strcmp(e, "mpi"))
            return replay_mpi_run(argc, argv);
    }
    replay_opts o;
    memset(&o, 0, sizeof o);
    int rc = parse(argc, argv, &o);
    if (rc)
        return rc < 0 ? CLI_OK : rc;
    /* every configuration is checked before the (possibly long) load */
    rt_whatif_set set;
    rt_err err;
    if ((rc = rt_whatif_set_make(&set, &o.base, o.alts, o.nalts, &err)) < 0)
        rc = replay_error(rc, &err);
    if (rc == CLI_OK) /* the outputs last: --force may remove an earlier --out-trace */
        rc = cli_out_claim_report(&o.out, o.path);
    if (rc == CLI_OK && o.out_trace)
        rc = cli_out_claim(&cli_cmd_replay, "--out-trace", o.out_trace, RT_FMT_OTF2, o.out.force,
                           o.path);
    replay_state st = {.o = &o};
    if (rc == CLI_OK)
        rc = load(&st);
    if (rc == CLI_OK)
        st.share_hosts = share_hosts(&st, &set);
    for (unsigned i = 0; i < set.n && rc == CLI_OK; i++)
        rc = replay_one(&st, &set.conf[i], i);
    if (rc == CLI_OK) {
        if (!o.nalts)
            printf("\n");
        static const cli_plot plot = {
            RT_PLOT_BARS, "Predicted run time (us)", "configuration", "microseconds", "no plot", 0};
        rc = cli_out_report(&o.out, &st.rep, 1, &plot);
    }
    st.rep.plot = NULL; /* the compare table, owned by rep.tables */
    rt_report_free(&st.rep);
    rt_whatif_set_free(&set);
    rt_sim_trace_free(st.t);
    return rc != CLI_OK ? rc : st.failed ? CLI_FAIL : CLI_OK;
}

const cli_command cli_cmd_replay = {"replay", "predict the run on a simulated machine", replay_run,
                                    replay_usage};
