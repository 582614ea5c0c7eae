/* retrace pipeline TRACE: where software pipelining would pay. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static void pipeline_usage(FILE *out)
{
    fprintf(out, "usage: retrace pipeline TRACE [--model FILE] [--min-size SIZE] [--top N]\n"
                 "                        [--csv FILE] [--plot FILE.svg|.png] [--force]\n"
                 "       retrace pipeline --print-model [--model FILE]\n"
                 "\n"
                 "Finds chains of sender computation, a large message and receiver computation\n"
                 "(computation is the recorded gap between MPI calls) and estimates, with the\n"
                 "Advanced-MPI software-pipelining model, the time of each without pipelining,\n"
                 "the best block size, the time with it and the saving; then the total saving,\n"
                 "and for messages that cross a gateway the best gateway chunk size (PSP_GW_MTU).\n"
                 "  --model FILE     network model (docs/model.md; default: built-in, the same as\n"
                 "                   examples/model.conf)\n"
                 "  --min-size SIZE  smallest message considered (default 64K; K, M, G suffixes)\n"
                 "  --top N          chains listed, best first (default 20; 0 lists all)\n"
                 "  --csv FILE       every table as CSV: FILE, FILE-chains.csv, ...\n"
                 "  --plot FILE      saving against block size for the best chains (gnuplot)\n"
                 "  --force          replace existing --csv and --plot files (nothing is\n"
                 "                   overwritten without it)\n"
                 "  --print-model    print the model in effect, in the model file format\n");
}

static int pipeline_run(int argc, char **argv)
{
    const cli_command *cmd = &cli_cmd_pipeline;
    cli_args a = {.cmd = cmd, .argc = argc, .argv = argv};
    const char *path = NULL, *model = NULL, *min = NULL, *top = NULL;
    int print_model = 0;
    cli_out out = {0};
    for (a.i = 1; a.i < argc; a.i++) {
        int k;
        if (cli_args_flag(&a, "--help") || cli_args_flag(&a, "-h")) {
            pipeline_usage(stdout);
            return CLI_OK;
        } else if (cli_args_flag(&a, "--print-model")) {
            print_model = 1;
        } else if ((k = cli_args_value(&a, "--model", &model)) ||
                   (k = cli_args_value(&a, "--min-size", &min)) ||
                   (k = cli_args_value(&a, "--top", &top)) || (k = cli_out_option(&a, &out))) {
            if (k < 0)
                return CLI_BAD;
        } else if (argv[a.i][0] != '-' && !path) {
            path = argv[a.i];
        } else {
            return cli_args_unknown(&a);
        }
    }
    rt_an_pipe_opts o = {.min_bytes = 65536, .top = 20};
    rt_err err;
    rt_net_model_default(&o.model);
    if (model && rt_net_model_load(&o.model, model, &err))
        return cli_error("%s", err.msg);
    if (print_model) {
        if (path)
            return cli_usage_error(cmd, "--print-model: takes no trace");
        return rt_net_model_write(&o.model, stdout) ? cli_error("cannot write the output") : 0;
    }
    if (!path)
        return cli_usage_error(cmd, "no trace given");
    if (min && rt_parse_size_opt("--min-size", min, &o.min_bytes, &err))
        return cli_usage_error(cmd, "%s", err.msg);
    if (top) {
        uint64_t v;
        if (rt_parse_uint(top, 0, 1000000000, &v, NULL) < 0)
            return cli_usage_error(cmd, "--top: '%s' is not a count", top);
        o.top = (unsigned)v;
    }
    if (o.min_bytes < 2) { /* a message must split into two blocks at least */
        cli_warning("pipeline: --min-size %s taken as 2 bytes: a smaller message cannot be "
                    "split into blocks",
                    min);
        o.min_bytes = 2;
    }
    if (cli_out_claim_report(&out, path))
        return CLI_BAD;
    rt_an_pipe_result res;
    if (rt_an_pipeline(path, &o, &res, &err)) {
        rt_report_free(&res.report);
        return cli_error("%s", err.msg);
    }
    static const cli_plot plot = {RT_PLOT_LINES,
                                  "Saving from pipelining against block size",
                                  "block size",
                                  "saving (us)",
                                  "no chain gains from pipelining",
                                  1};
    int rc = cli_out_report(&out, &res.report, 1, &plot);
    fflush(stdout);
    cli_out_truncated(res.report.truncated);
    rt_report_free(&res.report);
    return rc;
}

const cli_command cli_cmd_pipeline = {"pipeline", "software-pipelining estimates", pipeline_run,
                                      pipeline_usage};
