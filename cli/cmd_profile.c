/* retrace profile TRACE: time in MPI, message matrix, communicators, load imbalance. */
#include <string.h>

#include "cli.h"

static void profile_usage(FILE *out)
{
    fprintf(out, "usage: retrace profile TRACE [--csv FILE] [--plot FILE.svg|.png] [--force]\n"
                 "                       [--threads N]\n"
                 "\n"
                 "A profile like mpiP's from a trace: time per rank (application, MPI,\n"
                 "computation), time in MPI per function over all ranks and per rank, the\n"
                 "point-to-point message matrix rank x rank (up to 32 ranks; above, the busiest\n"
                 "pairs), the busiest communicators and the load imbalance. Times are in\n"
                 "microseconds; an MPI call's time runs from entering to leaving it.\n"
                 "  --csv FILE       every table as CSV: FILE, FILE-functions.csv, ...\n"
                 "  --plot FILE      a rank x rank heat map of the bytes sent (up to 1024 ranks)\n"
                 "  --force          replace existing --csv and --plot files (nothing is\n"
                 "                   overwritten without it)\n" CLI_THREADS_USAGE);
}

static int profile_run(int argc, char **argv)
{
    const cli_command *cmd = &cli_cmd_profile;
    cli_args a = {.cmd = cmd, .argc = argc, .argv = argv};
    const char *path = NULL;
    cli_out out = {0};
    unsigned threads = 0;
    for (a.i = 1; a.i < argc; a.i++) {
        int k;
        if (cli_args_flag(&a, "--help") || cli_args_flag(&a, "-h")) {
            profile_usage(stdout);
            return CLI_OK;
        } else if ((k = cli_out_option(&a, &out)) || (k = cli_threads_option(&a, &threads))) {
            if (k < 0)
                return CLI_BAD;
        } else if (argv[a.i][0] != '-' && !path) {
            path = argv[a.i];
        } else {
            return cli_args_unknown(&a);
        }
    }
    if (!path)
        return cli_usage_error(cmd, "no trace given");
    if (cli_out_claim_report(&out, path))
        return CLI_BAD;
    rt_an_profile_result res;
    rt_err err;
    if (rt_an_profile(path, threads, &res, &err)) {
        rt_report_free(&res.report);
        return cli_error("%s", err.msg);
    }
    static const cli_plot plot = {
        RT_PLOT_HEATMAP, "Point-to-point bytes from rank (rows) to rank (columns)", "to rank",
        "from rank",     "the rank x rank plot is drawn up to 1024 ranks",          0};
    int rc = cli_out_report(&out, &res.report, 1, &plot);
    fflush(stdout);
    cli_out_truncated(res.report.truncated);
    rt_report_free(&res.report);
    return rc;
}

const cli_command cli_cmd_profile = {"profile", "time in MPI, message matrix, imbalance",
                                     profile_run, profile_usage};
