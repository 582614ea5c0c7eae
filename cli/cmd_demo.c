/* retrace demo: the whole pipeline on a bundled example trace. */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

#define DEMO_EXAMPLE RETRACE_SOURCE_DIR "/examples/halo.csv"

static void demo_usage(FILE *out)
{
    fprintf(out,
            "usage: retrace demo [--out DIR] [--example TRACE]\n"
            "\n"
            "Runs retrace on a bundled example: a 4-rank halo exchange with an allreduce,\n"
            "on 2 nodes in 2 modules. It summarises the trace, converts it to an OTF2\n"
            "archive and back to CSV, summarises the archive, prints the psmpi message-size\n"
            "histogram and the traffic through the gateways (with what MSA-aware collectives\n"
            "would save), draws both with gnuplot (DIR/hist.svg, DIR/gateways.svg), and ends\n"
            "with a what-if table: the run replayed on the built-in MPI engine under other\n"
            "collective algorithms, placements, protocols and machine shapes (DIR/whatif.svg).\n"
            "  --out DIR        where the demo writes (default: retrace-demo); the demo\n"
            "                   replaces only its own earlier results there\n"
            "  --example TRACE  run on another trace (default: %s)\n",
            DEMO_EXAMPLE);
}

static int make_dir(const char *dir)
{
    if (mkdir(dir, 0777) == 0 || errno == EEXIST)
        return 0;
    return cli_error("%s: cannot create directory: %s", dir, strerror(errno));
}

/* Removes an earlier demo result (only a trace retrace wrote). */
static void remove_previous(const char *dir, const char *name)
{
    char p[4096];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    rt_err err;
    if (access(p, F_OK) == 0 && rt_trace_remove(p, &err) < 0)
        cli_warning("%s", err.msg);
}

/* Loads every event of a trace (small traces only), ordered by rank, stable within a rank. */
static int load_events(const char *path, rt_event **out, size_t *n)
{
    rt_reader *r;
    rt_err err;
    if (rt_reader_open(path, &r, &err) < 0)
        return cli_error("%s", err.msg);
    size_t cap = 0;
    rt_event ev, *v = NULL;
    int rc;
    *n = 0;
    while ((rc = rt_reader_next(r, &ev, &err)) > 0) {
        if (RT_VEC_RESERVE(v, cap, (uint64_t)*n + 1, 1024) < 0) {
            rc = rt_err_set(&err, RT_E_NOMEM, "%s: out of memory", path);
            break;
        }
        v[(*n)++] = ev;
    }
    rt_reader_close(r);
    if (rc < 0) {
        free(v);
        return cli_error("%s", err.msg);
    }
    /* Insertion by rank keeps each rank's order; the demo traces are small. */
    for (size_t i = 1; i < *n; i++)
        for (size_t j = i; j > 0 && v[j - 1].rank > v[j].rank; j--) {
            rt_event t = v[j];
            v[j] = v[j - 1];
            v[j - 1] = t;
        }
    *out = v;
    return CLI_OK;
}

/* Prints whether two traces hold the same events; CLI_FAIL when they differ. */
static int compare_traces(const char *a, const char *b)
{
    rt_event *x = NULL, *y = NULL;
    size_t nx, ny;
    int rc = load_events(a, &x, &nx);
    if (!rc)
        rc = load_events(b, &y, &ny);
    if (!rc) {
        size_t i = 0;
        while (i < nx && i < ny && rt_event_equal(&x[i], &y[i]))
            i++;
        if (i == nx && nx == ny) {
            printf("Round trip: the %zu events are the same, field by field.\n", nx);
        } else {
            printf("Round trip: the traces differ at event %zu of rank %u.\n", i,
                   i < nx ? (unsigned)x[i].rank : 0);
            rc = CLI_FAIL;
        }
    }
    free(x);
    free(y);
    return rc;
}

/* Step 4: the analyzer on the example: psmpi histogram, gateway traffic, two plots. */
static int demo_analyses(const char *dir, const char *example)
{
    char hist_svg[4096], gw_svg[4096];
    snprintf(hist_svg, sizeof hist_svg, "%s/hist.svg", dir);
    snprintf(gw_svg, sizeof gw_svg, "%s/gateways.svg", dir);
    rt_err err;
    rt_an_hist_opts ho;
    memset(&ho, 0, sizeof ho);
    rt_hist_config_default(&ho.cfg);
    rt_an_level_default(&ho.level);
    ho.level.level = RT_AN_WIRE;
    ho.level.coll = RT_AN_COLL_FLOWS;
    rt_an_hist_result hr;
    printf("\n== 4. Message sizes as psmpi counts them (retrace hist %s --level wire):\n"
           "      point-to-point messages and the allreduce's messages under MPICH's algorithm\n\n",
           example);
    int rc = rt_an_hist(example, &ho, &hr, &err);
    if (!rc)
        rc = rt_hist_write_text(&hr.total, stdout);
    if (!rc && rt_plot(hr.report.plot, RT_PLOT_BARS, "Messages by size (wire level)",
                       "message size (bytes, upper bin limit)", "messages", hist_svg, &err))
        rc = -1;
    rt_report_free(&hr.report);
    if (rc)
        return cli_error("%s", err.msg);

    rt_an_gw_opts go;
    memset(&go, 0, sizeof go);
    rt_an_level_default(&go.level);
    go.level.level = RT_AN_WIRE;
    go.level.coll = RT_AN_COLL_FLOWS;
    go.level.rma = 1;
    go.nchoices = 1;
    for (unsigned op = 0; op < RT_COLL_COUNT; op++)
        go.choice[0][op] = rt_coll_alg_valid(op, RT_ALG_MSA) ? RT_ALG_MSA : RT_ALG_MPICH;
    go.label[0] = "all=msa";
    rt_an_gw_result gr;
    printf("\n== 5. Traffic through the gateways between the modules (retrace gateways %s\n"
           "      --coll all=msa): the summary, the module x module bytes, and what MSA-aware\n"
           "      collectives would save\n\n",
           example);
    if (rt_an_gateways(example, &go, &gr, &err)) {
        rt_report_free(&gr.report);
        return cli_error("%s", err.msg);
    }
    for (unsigned i = 0; i < gr.report.tables.n; i++) {
        const char *name = rt_table_name(gr.report.tables.t[i]);
        if (strcmp(name, "summary") && strcmp(name, "matrix_bytes") && strcmp(name, "compare"))
            continue;
        rt_table_write_text(gr.report.tables.t[i], stdout);
        fputc('\n', stdout);
    }
    rc = rt_plot(gr.report.plot, RT_PLOT_HEATMAP, "Bytes from module (rows) to module (columns)",
                 "to module", "from module", gw_svg, &err);
    rt_report_free(&gr.report);
    if (rc)
        return cli_error("%s", err.msg);
    printf("Plots (gnuplot): %s (the histogram), %s (the module matrix)\n", hist_svg, gw_svg);
    return CLI_OK;
}

/* Step 6: the replayer's what-if table for the example. */
static int demo_whatif(const char *dir, const char *example)
{
    char svg[4096];
    snprintf(svg, sizeof svg, "%s/whatif.svg", dir);
    char *argv[] = {"replay",    (char *)example,
                    "--compare", "coll:all=msa",
                    "--compare", "map:cyclic",
                    "--compare", "eager:0",
                    "--compare", "contention:on",
                    "--compare", "nodes:4+map:cyclic",
                    "--plot",    svg,
                    NULL};
    printf("\n== 6. What if (retrace replay %s --compare ...): the run replayed on the\n"
           "      built-in MPI engine with MSA-aware collectives, another placement, no eager\n"
           "      messages, network contention, and four nodes instead of two\n\n",
           example);
    fflush(stdout);
    int rc = cli_cmd_replay.run((int)(sizeof argv / sizeof *argv) - 1, argv);
    if (rc == CLI_OK)
        printf("\nPlot (gnuplot): %s (the predicted times)\n", svg);
    return rc;
}

static int demo_run(int argc, char **argv)
{
    static const struct option opts[] = {
        {"out", required_argument, NULL, 'o'},
        {"example", required_argument, NULL, 'e'},
        {"help", no_argument, NULL, 'h'},
        {0},
    };
    const char *dir = "retrace-demo", *example = DEMO_EXAMPLE;
    int c;
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, ":ho:e:", opts, NULL)) != -1) {
        switch (c) {
        case 'h':
            demo_usage(stdout);
            return CLI_OK;
        case 'o':
            dir = optarg;
            break;
        case 'e':
            example = optarg;
            break;
        case ':':
            return cli_usage_error(&cli_cmd_demo, "demo: %s needs a value", argv[optind - 1]);
        default:
            return cli_usage_error(&cli_cmd_demo, "demo: unknown option '%s'", argv[optind - 1]);
        }
    }
    if (optind != argc)
        return cli_usage_error(&cli_cmd_demo, "demo: unexpected argument '%s'", argv[optind]);
    int rc = make_dir(dir);
    if (rc)
        return rc;
    char otf2[4096], csv[4096];
    snprintf(otf2, sizeof otf2, "%s/example-otf2", dir);
    snprintf(csv, sizeof csv, "%s/example-roundtrip.csv", dir);
    remove_previous(dir, "example-otf2");
    remove_previous(dir, "example-roundtrip.csv");

    printf("== 1. The example trace: %s\n\n", example);
    if ((rc = cli_info_report(example, stdout)))
        return rc;
    printf("\n== 2. Converted to OTF2: %s\n\n", otf2);
    if ((rc = cli_convert(example, otf2, RT_FMT_OTF2)) || (rc = cli_info_report(otf2, stdout)))
        return rc;
    printf("\n== 3. And back to CSV: %s\n\n", csv);
    if ((rc = cli_convert(otf2, csv, RT_FMT_CSV)))
        return rc;
    if ((rc = compare_traces(example, csv)))
        return rc;
    printf("Read the archive with any OTF2 tool, e.g.: otf2-print %s/traces.otf2\n", otf2);
    if ((rc = demo_analyses(dir, example)))
        return rc;
    if ((rc = demo_whatif(dir, example)))
        return rc;
    printf("More: retrace hist, gateways, pipeline, profile, replay (retrace COMMAND --help)\n");
    return CLI_OK;
}

const cli_command cli_cmd_demo = {"demo", "run retrace on a bundled example", demo_run, demo_usage};
