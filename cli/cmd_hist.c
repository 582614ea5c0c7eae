/* retrace hist TRACE: psmpi-style message-size histograms. */
#include <string.h>

#include "cli.h"

static void hist_usage(FILE *out)
{
    fprintf(out,
            "usage: retrace hist TRACE [--min SIZE] [--max SIZE] [--shift N] [--contype TYPE]\n"
            "                    [--level call|wire] [--coll [OP=ALG,...]] [--rma]\n"
            "                    [--per-rank | --by-call] [--csv FILE] [--plot FILE.svg|.png]\n"
            "                    [--force] [--threads N]\n"
            "\n"
            "Counts every message a rank sends, once, in bins of size like ParaStation MPI's\n"
            "PSP_HISTOGRAM, and prints psmpi's report. On a trace of the same run, the default\n"
            "output is byte for byte what the tracer's live histogram printed.\n"
            "  --min SIZE, --max SIZE  first and largest bin limits (default 64 and 64M);\n"
            "                   sizes take K, M, G suffixes (binary): 64, 4K, 64M\n"
            "  --shift N        each limit is the previous one times 2^N (default 1)\n"
            "  --contype TYPE   count only messages of that connection type: loop, shm, net,\n"
            "                   gw (or gateway), all; psmpi's openib, velo, ucp, tcp, extoll\n"
            "                   mean net\n"
            "  --level call     what the application passed (default): point-to-point sends;\n"
            "                   with --coll also one entry per rank and collective call of\n"
            "                   the bytes the rank supplies\n"
            "  --level wire     what the MPI library sends, as psmpi counts it: collectives\n"
            "                   are expanded into the point-to-point messages of an algorithm\n"
            "  --coll [OP=ALG,...]  call level: count collective payloads; wire level: the\n"
            "                   algorithm per collective (default: the choice of the MPI\n"
            "                   that recorded the trace, ompi for Open MPI 4.1's, else mpich\n"
            "                   for MPICH 4.0's; OP may be 'all'). See 'retrace hist\n"
            "                   --algorithms'.\n"
            "  --rma            also count RMA transfers (put, get, accumulate, atomics)\n"
            "  --per-rank       one column per sending rank\n"
            "  --by-call        one column per MPI function that sent\n"
            "  --csv FILE       the table as CSV (bin, freq, ...)\n"
            "  --plot FILE      a bar chart of the bins (gnuplot; .svg or .png)\n"
            "  --force          replace existing --csv and --plot files (nothing is\n"
            "                   overwritten without it)\n"
            "  --algorithms     list the collective algorithms per operation and "
            "exit\n" CLI_THREADS_USAGE);
}

/* "  bcast   mpich, ompi, ..." wrapped before column 80, continued under the first name. */
static void print_list(FILE *out, const char *op, const char *list)
{
    enum { INDENT = 25, WIDTH = 79 };
    int col = fprintf(out, "  %-22s", op);
    for (const char *p = list; *p;) {
        size_t n = strcspn(p, ",");
        int w = (int)n + (p[n] == ',');
        if (col + 1 + w > WIDTH && col > INDENT) {
            fprintf(out, "\n%*s", INDENT - 1, "");
            col = INDENT - 1;
        }
        col += fprintf(out, " %.*s", w, p);
        p += n + (p[n] == ',');
        p += *p == ' ';
    }
    fputc('\n', out);
}

static void list_algorithms(FILE *out)
{
    fprintf(out, "Collective algorithms (mpich = MPICH 4.0's selection, ompi = Open MPI 4.1's;\n"
                 "the default is the one of the MPI that recorded the trace):\n");
    for (unsigned op = 0; op <= RT_COLL_NEIGHBOR_ALLTOALLW; op++) {
        char list[512];
        rt_coll_alg_list(op, list, sizeof list);
        print_list(out, rt_event_op_name(RT_EV_COLL_END, op), list);
    }
}

static int hist_run(int argc, char **argv)
{
    const cli_command *cmd = &cli_cmd_hist;
    cli_args a = {.cmd = cmd, .argc = argc, .argv = argv};
    const char *path = NULL, *min = NULL, *max = NULL, *shift = NULL, *contype = NULL;
    const char *level = NULL, *coll_spec = NULL;
    int coll = 0;
    cli_out out = {0};
    rt_an_hist_opts o;
    memset(&o, 0, sizeof o);
    rt_an_level_default(&o.level);
    for (a.i = 1; a.i < argc; a.i++) {
        const char *v;
        int k;
        if (cli_args_flag(&a, "--help") || cli_args_flag(&a, "-h")) {
            hist_usage(stdout);
            return CLI_OK;
        } else if (cli_args_flag(&a, "--algorithms")) {
            list_algorithms(stdout);
            return CLI_OK;
        } else if ((k = cli_args_value(&a, "--min", &min)) ||
                   (k = cli_args_value(&a, "--max", &max)) ||
                   (k = cli_args_value(&a, "--shift", &shift)) ||
                   (k = cli_args_value(&a, "--contype", &contype)) ||
                   (k = cli_args_value(&a, "--level", &level)) || (k = cli_out_option(&a, &out)) ||
                   (k = cli_threads_option(&a, &o.threads))) {
            if (k < 0)
                return CLI_BAD;
        } else if (cli_args_optional(&a, "--coll", &v)) {
            coll = 1;
            if (v)
                coll_spec = v;
        } else if (cli_args_flag(&a, "--rma")) {
            o.level.rma = 1;
        } else if (cli_args_flag(&a, "--per-rank")) {
            o.per_rank = 1;
        } else if (cli_args_flag(&a, "--by-call")) {
            o.by_call = 1;
        } else if (argv[a.i][0] != '-' && !path) {
            path = argv[a.i];
        } else {
            return cli_args_unknown(&a);
        }
    }
    if (!path)
        return cli_usage_error(cmd, "no trace given");
    if (o.per_rank && o.by_call)
        return cli_usage_error(cmd, "--by-call: not with --per-rank (one or the other)");
    rt_err err;
    if (contype && !strcmp(contype, "all"))
        contype = NULL;
    if (rt_hist_config_from_args(&o.cfg, min, max, shift, contype, &err))
        return cli_usage_error(cmd, "%s", err.msg);
    int rc = cli_level_finish(cmd, &o.level, level, coll_spec);
    if (rc)
        return rc;
    cli_level_trace_default(&o.level, coll_spec);
    /* psmpi counts the messages inside collectives: the wire level always expands them. */
    if (o.level.level == RT_AN_WIRE)
        o.level.coll = RT_AN_COLL_FLOWS;
    else if (coll)
        o.level.coll = RT_AN_COLL_PAYLOAD;
    if (cli_out_claim_report(&out, path))
        return CLI_BAD;
    rt_an_hist_result res;
    if (rt_an_hist(path, &o, &res, &err)) {
        rt_report_free(&res.report);
        return cli_error("%s", err.msg);
    }
    /* psmpi's report, unless columns were asked for: then the table. */
    int psmpi = !o.per_rank && !o.by_call;
    if (psmpi && rt_hist_write_text(&res.total, stdout))
        rc = cli_error("cannot write the output");
    char title[256];
    snprintf(title, sizeof title, "Messages by size (%s level%s%s)",
             o.level.level == RT_AN_WIRE ? "wire" : "call", o.cfg.contype_name[0] ? ", " : "",
             o.cfg.contype_name);
    cli_plot plot = {RT_PLOT_BARS, title,     "message size (bytes, upper bin limit)",
                     "messages",   "no plot", 0};
    if (!rc)
        rc = cli_out_report(&out, &res.report, !psmpi, &plot);
    fflush(stdout);
    rt_an_notes_print(&res.notes, o.level.level == RT_AN_WIRE ? "wire" : "call", stderr);
    cli_out_truncated(res.report.truncated);
    rt_report_free(&res.report);
    return rc;
}

const cli_command cli_cmd_hist = {"hist", "message-size histograms like psmpi's PSP_HISTOGRAM",
                                  hist_run, hist_usage};
