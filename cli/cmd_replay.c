/* retrace replay TRACE: re-execute a trace on the built-in MPI engine, and compare choices. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "replay.h"
#include "rt_sim.h"

static void replay_usage(FILE *out)
{
    fprintf(out,
            "usage: retrace replay TRACE [--model FILE] [--coll OP=ALG,...] [--map SPEC]\n"
            "                      [--nodes N] [--modules M] [--ranks-per-node K]\n"
            "                      [--eager BYTES] [--contention on|off] [--free-wildcards]\n"
            "                      [--compute-scale F] [--force]\n"
            "                      [--compare ALT ...] [--out-trace DIR] [--csv FILE]\n"
            "                      [--plot FILE.svg|.png] [--timing] [--engine sim|mpi]\n"
            "       mpiexec -n P retrace replay --engine mpi TRACE [--coll ...] [--map ...]\n"
            "                      [--model FILE] [--compare ALT ...] [--repeat N]\n"
            "                      [--compute-scale F] [--timeout SEC] [--free-wildcards]\n"
            "                      [--csv F] [--plot F] [--force]\n"
            "\n"
            "Replays the trace on a simulated machine (docs/replay.md) and prints the\n"
            "predicted run time, the time per rank and the critical rank (the last to end).\n"
            "With --engine mpi, under mpiexec with as many processes as the trace has ranks,\n"
            "each process re-issues its rank's calls on the real MPI library and the run\n"
            "is measured, next to the built-in engine's prediction for the same machine.\n"
            "  --model FILE       network model (docs/model.md); default: built-in\n"
            "  --coll OP=ALG,...  collective algorithms (OP may be 'all'); default: mpich,\n"
            "                     MPICH 4.0's own choice. 'retrace hist --algorithms' lists them\n"
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
            "  --engine sim|mpi   sim: the built-in engine (default); mpi: real MPI (above)\n"
            "  --repeat N         mpi: replay each configuration N times, report the median\n"
            "  --timeout SEC      mpi: stop a replay that has not finished after SEC seconds\n"
            "                     (0: never; default 60 + 20 times the recorded run per replay)\n"
            "Exit status 1 when a replay ends in a deadlock or a collective mismatch (the\n"
            "report says which ranks wait for what).\n");
}

#define MAX_ALTS REPLAY_MAX_ALTS

int replay_parse_count(const char *what, const char *v, uint32_t *out)
{
    uint64_t n;
    if (rt_parse_uint(v, 1, RT_MAX_RANKS, &n, NULL) < 0)
        return cli_usage_error(&cli_cmd_replay,
                               "%s: bad value '%s' (expected a whole number from 1 to %u)", what, v,
                               (unsigned)RT_MAX_RANKS);
    *out = (uint32_t)n;
    return 0;
}

int replay_parse_scale(const char *v, uint64_t *ppm)
{
    uint64_t whole = 0, frac = 0;
    unsigned digits = 0, fdigits = 0;
    const char *p = v;
    for (; *p >= '0' && *p <= '9' && digits < 8; p++, digits++)
        whole = whole * 10 + (uint64_t)(*p - '0');
    if (*p == '.')
        for (p++; *p >= '0' && *p <= '9' && fdigits < 6; p++, fdigits++)
            frac = frac * 10 + (uint64_t)(*p - '0');
    for (unsigned i = fdigits; i < 6; i++)
        frac *= 10;
    if (*p || (!digits && !fdigits) || whole > 1000000 || (whole == 1000000 && frac))
        return -1;
    *ppm = whole * 1000000 + frac;
    return 0;
}

int replay_conf_error(const replay_conf *c, const char *key, const char *fmt, ...)
{
    char msg[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (c->alt)
        return cli_usage_error(&cli_cmd_replay, "--compare: '%s': %s: %s", c->label, key, msg);
    return cli_usage_error(&cli_cmd_replay, "--%s: %s", key, msg);
}

/* ALT: KEY:VALUE[+KEY:VALUE...] on top of the base configuration. */
int replay_parse_alt(char *text, const char *label, replay_conf *c)
{
    c->label = label;
    c->alt = 1;
    for (char *item = text, *next; item; item = next) {
        next = strchr(item, '+');
        if (next)
            *next++ = '\0';
        char *v = strchr(item, ':');
        if (!v || v == item || !v[1])
            return cli_usage_error(&cli_cmd_replay,
                                   "--compare: '%s': bad item '%s' (expected KEY:VALUE)", label,
                                   item);
        *v++ = '\0';
        if (!strcmp(item, "coll"))
            c->coll = v;
        else if (!strcmp(item, "map"))
            c->map = v;
        else if (!strcmp(item, "model"))
            c->model = v;
        else if (!strcmp(item, "eager"))
            c->eager = v;
        else if (!strcmp(item, "contention"))
            c->contention = v;
        else if (!strcmp(item, "compute-scale"))
            c->compute_scale = v;
        else if (!strcmp(item, "nodes") || !strcmp(item, "modules") ||
                 !strcmp(item, "ranks-per-node")) {
            uint32_t *dst = item[0] == 'n' ? &c->nodes : item[0] == 'm' ? &c->modules : &c->rpn;
            char what[512];
            snprintf(what, sizeof what, "--compare: '%s': %s", label, item);
            if (replay_parse_count(what, v, dst))
                return CLI_BAD;
        } else
            return cli_usage_error(&cli_cmd_replay,
                                   "--compare: '%s': unknown key '%s' (expected coll, map, model, "
                                   "eager, contention, compute-scale, nodes, modules or "
                                   "ranks-per-node)",
                                   label, item);
    }
    return 0;
}

int replay_check_conf(const replay_conf *c, uint8_t alg[RT_COLL_COUNT], uint64_t *scale_ppm)
{
    rt_err err;
    rt_net_model model;
    rt_net_model_default(&model);
    if (c->model && rt_net_model_load(&model, c->model, &err) < 0)
        return cli_error("%s", err.msg);
    if (c->coll && rt_coll_parse_algs(c->coll, alg, &err) < 0) {
        const char *m = err.msg;
        if (!strncmp(m, "--coll: ", 8)) /* the option is named by replay_conf_error */
            m += 8;
        return replay_conf_error(c, "coll", "%s", m);
    }
    if (c->compute_scale && replay_parse_scale(c->compute_scale, scale_ppm) < 0)
        return replay_conf_error(c, "compute-scale", "bad value '%s' (expected %s)",
                                 c->compute_scale, REPLAY_SCALE_EXPECTED);
    rt_map_spec spec;
    if (c->map && rt_map_parse(c->map, &spec, &err) < 0)
        return replay_conf_error(c, "map", "%s", err.msg);
    uint64_t e;
    if (c->eager && rt_net_parse_size(c->eager, &e, &err) < 0)
        return replay_conf_error(c, "eager", "%s", err.msg);
    if (c->contention && strcmp(c->contention, "on") && strcmp(c->contention, "off"))
        return replay_conf_error(c, "contention", "bad value '%s' (expected on or off)",
                                 c->contention);
    return 0;
}

/* Everything a replay needs from a configuration; placement arrays are owned. */
typedef struct replay_setup {
    rt_sim_config cfg;
    uint32_t *node, *module;
    rt_map_shape shape;
    char map_name[RT_MAP_PATH_MAX + 16];
} replay_setup;

static int setup(const replay_conf *c, const rt_sim_trace *t, replay_setup *su)
{
    const rt_defs *defs = rt_sim_trace_defs(t);
    rt_err err;
    memset(su, 0, sizeof *su);
    rt_sim_config_default(&su->cfg);
    /* checked before the load: this only takes the values */
    if (replay_check_conf(c, su->cfg.alg, &su->cfg.compute_scale_ppm))
        return CLI_BAD;
    if (c->model && rt_net_model_load(&su->cfg.model, c->model, &err) < 0)
        return cli_error("%s", err.msg);
    uint64_t e;
    if (c->eager && rt_net_parse_size(c->eager, &e, &err) == 0)
        for (unsigned ct = 0; ct < RT_CT_COUNT; ct++)
            su->cfg.model.link[ct].eager = e;
    if (c->contention)
        su->cfg.model.contention = !strcmp(c->contention, "on");
    su->cfg.free_wildcards = c->free_wild;
    rt_map_shape rec, given = {c->nodes, c->modules, c->rpn};
    rt_map_shape_recorded(defs, &rec);
    if (rt_map_shape_complete(&given, &rec, defs->nranks, &su->shape, &err) < 0)
        return c->alt ? cli_usage_error(&cli_cmd_replay, "--compare: '%s': %s", c->label, err.msg)
                      : cli_usage_error(&cli_cmd_replay, "%s", err.msg);
    int reshaped = memcmp(&su->shape, &rec, sizeof rec) != 0;
    rt_map_spec spec = {.kind = reshaped ? RT_MAP_BLOCK : RT_MAP_RECORDED};
    if (c->map)
        rt_map_parse(c->map, &spec, &err);
    rt_map_format(&spec, su->map_name, sizeof su->map_name);
    if (spec.kind == RT_MAP_RECORDED && !reshaped)
        return 0; /* the engine uses the trace's own placement */
    rt_map_edge *edges = NULL;
    size_t nedges = 0;
    if (spec.kind == RT_MAP_AUTO && rt_sim_trace_traffic(t, &edges, &nedges, &err) < 0)
        return cli_error("%s", err.msg);
    su->node = malloc((defs->nranks ? defs->nranks : 1) * sizeof *su->node);
    su->module = malloc((defs->nranks ? defs->nranks : 1) * sizeof *su->module);
    if (!su->node || !su->module) {
        free(edges);
        return cli_error("out of memory");
    }
    int rc = rt_map_place(&spec, &su->shape, defs, edges, nedges, su->node, su->module, &err);
    free(edges);
    if (rc < 0)
        return cli_error("%s", err.msg);
    su->cfg.node = su->node;
    su->cfg.module = su->module;
    return 0;
}

static void setup_free(replay_setup *su)
{
    free(su->node);
    free(su->module);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
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

/* The per-rank table: every rank up to 64, else the 16 that end last. */
static rt_table *rank_table(const rt_sim_result *res, int all)
{
    static const char *const cols[] = {"rank", "end_us", "mpi_us", "compute_us", "mpi_pct"};
    rt_table *tb = rt_table_new("ranks", "per rank (times in microseconds)", 5, cols, "rrrrr");
    if (!tb)
        return NULL;
    uint32_t n = res->nranks, *order = malloc((n ? n : 1) * sizeof *order);
    if (!order) {
        rt_table_free(tb);
        return NULL;
    }
    for (uint32_t i = 0; i < n; i++)
        order[i] = i;
    uint32_t shown = n;
    if (!all && n > 64) { /* the 16 latest, latest first (selection: n is large, 16 small) */
        shown = 16;
        for (uint32_t i = 0; i < shown; i++)
            for (uint32_t j = i + 1; j < n; j++)
                if (res->ranks[order[j]].end_ps > res->ranks[order[i]].end_ps) {
                    uint32_t x = order[i];
                    order[i] = order[j];
                    order[j] = x;
                }
    }
    for (uint32_t k = 0; k < shown; k++) {
        const rt_sim_rank *r = &res->ranks[order[k]];
        uint64_t total = r->mpi_ps + r->compute_ps;
        if (rt_table_row(tb) || rt_table_cell_u64(tb, order[k]) ||
            rt_table_cell(tb, "%.3f", r->end_ps / 1e6) ||
            rt_table_cell(tb, "%.3f", r->mpi_ps / 1e6) ||
            rt_table_cell(tb, "%.3f", r->compute_ps / 1e6) ||
            rt_table_cell(tb, "%.1f", total ? 100.0 * (double)r->mpi_ps / (double)total : 0.0)) {
            rt_table_free(tb);
            free(order);
            return NULL;
        }
    }
    free(order);
    return tb;
}

static void print_summary(const rt_sim_trace *t, const replay_setup *su, const rt_sim_result *r,
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
    rt_net_format_time(defs->nranks ? r->mpi_ps / defs->nranks : 0, a, sizeof a);
    printf("time in MPI         %s per rank on average\n", a);
    printf("messages            %llu (%llu bytes)\n", (unsigned long long)r->messages,
           (unsigned long long)r->bytes);
    printf("gateway crossings   %llu (%llu bytes)\n", (unsigned long long)r->gw_messages,
           (unsigned long long)r->gw_bytes);
}

static int compare_row(rt_table *tb, const char *label, const rt_sim_result *r, uint32_t nranks,
                       uint64_t base_ps)
{
    if (rt_table_row(tb) || rt_table_cell(tb, "%s", label))
        return -1;
    if (!r->completed)
        return rt_table_cell(tb, "deadlock") || rt_table_cell(tb, "-") ||
               rt_table_cell_u64(tb, r->messages) || rt_table_cell_u64(tb, r->bytes) ||
               rt_table_cell_u64(tb, r->gw_messages) || rt_table_cell(tb, "-");
    return rt_table_cell(tb, "%.3f", r->time_ps / 1e6) ||
           rt_table_cell(tb, "%.3f", nranks ? (double)r->mpi_ps / nranks / 1e6 : 0.0) ||
           rt_table_cell_u64(tb, r->messages) || rt_table_cell_u64(tb, r->bytes) ||
           rt_table_cell_u64(tb, r->gw_messages) ||
           rt_table_cell(tb, "%.2fx", r->time_ps ? (double)base_ps / (double)r->time_ps : 0.0);
}

static int report_failure(const char *label, const rt_sim_result *r)
{
    if (r->completed && !r->report)
        return 0;
    const char *head = r->completed ? "replay warning" : "replay did not complete";
    if (label)
        printf("%s (%s):\n%s", head, label, r->report ? r->report : "");
    else
        printf("%s:\n%s", head, r->report ? r->report : "");
    return !r->completed;
}

static int same_text(const char *a, const char *b)
{
    return (!a && !b) || (a && b && !strcmp(a, b));
}

/* Tests only (RETRACE_CHECK_FAST set): replays again without the collective fast path and
 * fails unless every result is the same to the picosecond (docs/replay.md). */
static int check_fast(const rt_sim_trace *t, const rt_sim_config *cfg, const rt_sim_result *a)
{
    if (cfg->out_trace) /* no fast path then (it would be written twice) */
        return CLI_OK;
    rt_sim_config c = *cfg;
    c.no_fast_coll = 1;
    rt_sim_result b;
    rt_err err;
    if (rt_sim_run(t, &c, &b, &err) < 0)
        return cli_error("fast path check: the replay without it failed: %s", err.msg);
    const char *diff = NULL;
#define SAME(f)                   \
    do {                          \
        if (!diff && a->f != b.f) \
            diff = #f;            \
    } while (0)
    SAME(completed);
    SAME(time_ps);
    SAME(critical_rank);
    SAME(mpi_ps);
    SAME(messages);
    SAME(bytes);
    SAME(gw_messages);
    SAME(gw_bytes);
    SAME(events);
    SAME(nranks);
#undef SAME
    if (!diff && !same_text(a->report, b.report))
        diff = "report";
    if (!diff && !same_text(a->notes, b.notes))
        diff = "notes";
    if (!diff && b.fast_colls)
        diff = "fast_colls";
    for (uint32_t r = 0; !diff && r < a->nranks; r++)
        if (memcmp(&a->ranks[r], &b.ranks[r], sizeof a->ranks[r]))
            diff = "ranks";
    rt_sim_result_free(&b);
    if (diff)
        return cli_error("fast path check: results differ without the fast path (%s)", diff);
    return CLI_OK;
}

static int replay_run(int argc, char **argv)
{
    const cli_command *cmd = &cli_cmd_replay;
    cli_args a = {.cmd = cmd, .argc = argc, .argv = argv};
    const char *path = NULL;
    replay_conf base = {0};
    const char *alts[MAX_ALTS];
    unsigned nalts = 0;
    int timing = 0;
    const char *out_trace = NULL;
    cli_out out = {0};
    for (int i = 1; i < argc; i++) { /* the real-MPI engine is another command line */
        const char *e = !strcmp(argv[i], "--engine") && i + 1 < argc ? argv[i + 1]
                        : !strncmp(argv[i], "--engine=", 9)          ? argv[i] + 9
                                                                     : NULL;
        if (e && !strcmp(e, "mpi"))
            return replay_mpi_run(argc, argv);
    }
    for (a.i = 1; a.i < argc; a.i++) {
        const char *v, *arg = argv[a.i];
        int k;
        if (cli_args_flag(&a, "--help") || cli_args_flag(&a, "-h")) {
            replay_usage(stdout);
            return CLI_OK;
        } else if (cli_args_flag(&a, "--free-wildcards")) {
            base.free_wild = 1;
        } else if (cli_args_flag(&a, "--timing")) {
            timing = 1;
        } else if ((k = cli_args_value(&a, "--model", &base.model)) ||
                   (k = cli_args_value(&a, "--coll", &base.coll)) ||
                   (k = cli_args_value(&a, "--map", &base.map)) ||
                   (k = cli_args_value(&a, "--eager", &base.eager)) ||
                   (k = cli_args_value(&a, "--contention", &base.contention)) ||
                   (k = cli_args_value(&a, "--compute-scale", &base.compute_scale)) ||
                   (k = cli_args_value(&a, "--out-trace", &out_trace)) ||
                   (k = cli_out_option(&a, &out))) {
            if (k < 0)
                return CLI_BAD;
        } else if ((k = cli_args_value(&a, "--engine", &v))) {
            if (k < 0)
                return CLI_BAD;
            if (strcmp(v, "sim"))
                return cli_usage_error(cmd, "--engine: bad value '%s' (expected sim or mpi)", v);
        } else if ((k = cli_args_value(&a, "--nodes", &v))) {
            if (k < 0 || replay_parse_count("--nodes", v, &base.nodes))
                return CLI_BAD;
        } else if ((k = cli_args_value(&a, "--modules", &v))) {
            if (k < 0 || replay_parse_count("--modules", v, &base.modules))
                return CLI_BAD;
        } else if ((k = cli_args_value(&a, "--ranks-per-node", &v))) {
            if (k < 0 || replay_parse_count("--ranks-per-node", v, &base.rpn))
                return CLI_BAD;
        } else if ((k = cli_args_value(&a, "--compare", &v))) {
            if (k < 0)
                return CLI_BAD;
            if (nalts == MAX_ALTS)
                return cli_usage_error(cmd, "--compare: at most %d alternatives", MAX_ALTS);
            alts[nalts++] = v;
        } else if ((k = cli_args_value(&a, "--repeat", &v)) ||
                   (k = cli_args_value(&a, "--timeout", &v))) {
            return k < 0 ? CLI_BAD
                         : cli_usage_error(cmd, "%.*s: only with --engine mpi",
                                           (int)strcspn(arg, "="), arg);
        } else if (argv[a.i][0] != '-' && !path) {
            path = argv[a.i];
        } else {
            return cli_args_unknown(&a);
        }
    }
    if (!path)
        return cli_usage_error(cmd, "no trace given");
    if (out.plot && !nalts)
        return cli_usage_error(cmd, "--plot: draws the --compare table; give --compare");
    if (out_trace && nalts)
        return cli_usage_error(cmd, "--out-trace: writes one replay; not with --compare");
    /* check every alternative before the (possibly long) load */
    replay_conf confs[MAX_ALTS + 1];
    char *texts[MAX_ALTS] = {0};
    confs[0] = base;
    confs[0].label = base.model || base.coll || base.map || base.eager || base.contention ||
                             base.compute_scale || base.nodes || base.modules || base.rpn ||
                             base.free_wild
                         ? "baseline"
                         : "recorded";
    uint8_t alg[RT_COLL_COUNT];
    uint64_t ppm;
    int rc = replay_check_conf(&confs[0], alg, &ppm);
    for (unsigned i = 0; i < nalts && rc == CLI_OK; i++) {
        confs[i + 1] = base;
        if (!(texts[i] = strdup(alts[i])))
            rc = cli_error("out of memory");
        else if (replay_parse_alt(texts[i], alts[i], &confs[i + 1]))
            rc = CLI_BAD;
        else if (replay_check_conf(&confs[i + 1], alg, &ppm))
            rc = CLI_BAD;
    }
    if (rc == CLI_OK) /* the outputs last: --force may remove an earlier --out-trace */
        rc = cli_out_claim_report(&out, path);
    if (rc == CLI_OK && out_trace)
        rc = cli_out_claim(cmd, "--out-trace", out_trace, RT_FMT_OTF2, out.force, path);
    rt_reader *rd = NULL;
    rt_sim_trace *t = NULL;
    rt_err err;
    double t0 = now_s();
    if (rc == CLI_OK && rt_reader_open(path, &rd, &err) < 0)
        rc = cli_error("%s", err.msg);
    if (rc == CLI_OK && rt_sim_trace_load(rd, &t, &err) < 0)
        rc = cli_input_error(path, err.msg);
    if (rc == CLI_OK)
        cli_out_truncated(rt_reader_truncated(rd));
    if (rd)
        rt_reader_close(rd);
    if (rc == CLI_OK && timing)
        fprintf(stderr, "retrace: timing: loaded %llu events in %.3f s\n",
                (unsigned long long)rt_sim_trace_events(t), now_s() - t0);
    if (rc == CLI_OK)
        replay_print_notes(NULL, rt_sim_trace_notes(t));
    rt_report rep;
    memset(&rep, 0, sizeof rep);
    rt_table *cmp = NULL;
    if (rc == CLI_OK && nalts) {
        static const char *const cols[] = {"configuration", "predicted_us", "mpi_us_per_rank",
                                           "messages",      "bytes",        "gw_crossings",
                                           "speedup"};
        cmp = rt_table_new("compare", "what if (times in microseconds)", 7, cols, "lrrrrrr");
        if (!cmp || rt_tables_add(&rep.tables, cmp) < 0)
            rc = cli_error("out of memory");
        rep.plot = cmp;
    }
    uint64_t base_ps = 0;
    int failed = 0;
    for (unsigned i = 0; i <= (nalts ? nalts : 0) && rc == CLI_OK; i++) {
        replay_setup su;
        if (setup(&confs[i], t, &su)) {
            setup_free(&su);
            rc = CLI_BAD;
            break;
        }
        rt_sim_result res;
        su.cfg.out_trace = out_trace;
        /* tests only: replay without the collective fast path (results are the same) */
        su.cfg.no_fast_coll = getenv("RETRACE_NO_FAST_COLL") != NULL;
        double t1 = now_s();
        clock_t c1 = clock();
        if (rt_sim_run(t, &su.cfg, &res, &err) < 0) {
            rc =
                cli_error("replay%s%s: %s", nalts ? " " : "", nalts ? confs[i].label : "", err.msg);
        } else {
            double dt = now_s() - t1, cpu = (double)(clock() - c1) / CLOCKS_PER_SEC;
            if (getenv("RETRACE_CHECK_FAST") && check_fast(t, &su.cfg, &res) != CLI_OK)
                rc = CLI_FAIL;
            if (timing)
                cli_line("retrace: timing: replay %s: %.3f s, %.2f M events/s, %llu engine "
                         "events, %llu messages, %llu fast collectives, %.3f s CPU",
                         confs[i].label, dt, dt > 0 ? res.events / dt / 1e6 : 0.0,
                         (unsigned long long)res.sim_events, (unsigned long long)res.messages,
                         (unsigned long long)res.fast_colls, cpu);
            char coll[256];
            rt_coll_algs_name(su.cfg.alg, coll, sizeof coll);
            if (i == 0)
                base_ps = res.time_ps;
            if (!nalts) {
                print_summary(t, &su, &res, coll);
                if (out_trace && res.completed)
                    printf("simulated trace     %s\n", out_trace);
                rt_table *rt = rank_table(&res, 0);
                if (!rt || rt_tables_add(&rep.tables, rt) < 0)
                    rc = cli_error("out of memory");
            } else if (compare_row(cmp, confs[i].label, &res, res.nranks, base_ps)) {
                rc = cli_error("out of memory");
            }
            failed |= report_failure(nalts ? confs[i].label : NULL, &res);
            replay_print_notes(nalts ? confs[i].label : NULL, res.notes);
        }
        rt_sim_result_free(&res);
        setup_free(&su);
    }
    if (rc == CLI_OK) {
        if (!nalts)
            printf("\n");
        static const cli_plot plot = {
            RT_PLOT_BARS, "Predicted run time (us)", "configuration", "microseconds", "no plot", 0};
        rc = cli_out_report(&out, &rep, 1, &plot);
    }
    rep.plot = NULL; /* the compare table, owned by rep.tables */
    rt_report_free(&rep);
    for (unsigned i = 0; i < nalts; i++)
        free(texts[i]);
    rt_sim_trace_free(t);
    return rc != CLI_OK ? rc : failed ? CLI_FAIL : CLI_OK;
}

const cli_command cli_cmd_replay = {"replay", "predict the run on a simulated machine", replay_run,
                                    replay_usage};
