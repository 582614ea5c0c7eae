/* retrace gateways TRACE: traffic across module boundaries. */
#include <string.h>

#include "cli.h"

static void gateways_usage(FILE *out)
{
    fprintf(out,
            "usage: retrace gateways TRACE [--level call|wire] [--coll OP=ALG,... ...]\n"
            "                        [--csv FILE] [--plot FILE.svg|.png] [--force]\n"
            "                        [--threads N]\n"
            "\n"
            "Messages and bytes that cross module boundaries (through a gateway): in total,\n"
            "module by module, per MPI function, per collective operation and per\n"
            "communicator. Point-to-point, collective and RMA traffic all count.\n"
            "  --level call     what the application passed (default): a collective counts\n"
            "                   the data each rank hands to each other member\n"
            "  --level wire     what the MPI library sends: collectives are expanded into the\n"
            "                   point-to-point messages of an algorithm (the choice of the\n"
            "                   MPI that recorded the trace: Open MPI 4.1's, else MPICH 4.0's)\n"
            "  --coll OP=ALG,...  an algorithm choice (OP may be 'all', e.g. all=msa);\n"
            "                   implies --level wire. The tables stay those of that MPI's\n"
            "                   choice; a last table compares it with each choice given (up\n"
            "                   to 16) and says how many crossings each saves.\n"
            "                   'retrace hist --algorithms' lists the algorithms.\n"
            "  --csv FILE       every table as CSV: FILE, FILE-matrix_bytes.csv, ...\n"
            "  --plot FILE      a module x module heat map of the bytes (gnuplot)\n"
            "  --force          replace existing --csv and --plot files (nothing is\n"
            "                   overwritten without it)\n" CLI_THREADS_USAGE);
}

static int gateways_run(int argc, char **argv)
{
    const cli_command *cmd = &cli_cmd_gateways;
    cli_args a = {.cmd = cmd, .argc = argc, .argv = argv};
    const char *path = NULL, *level = NULL;
    cli_out out = {0};
    rt_an_gw_opts o;
    memset(&o, 0, sizeof o);
    rt_an_level_default(&o.level);
    const char *specs[RT_AN_MAX_CHOICES];
    unsigned nspecs = 0;
    for (a.i = 1; a.i < argc; a.i++) {
        const char *v;
        int k;
        if (cli_args_flag(&a, "--help") || cli_args_flag(&a, "-h")) {
            gateways_usage(stdout);
            return CLI_OK;
        } else if ((k = cli_args_value(&a, "--level", &level)) || (k = cli_out_option(&a, &out)) ||
                   (k = cli_threads_option(&a, &o.threads))) {
            if (k < 0)
                return CLI_BAD;
        } else if ((k = cli_args_value(&a, "--coll", &v))) {
            if (k < 0)
                return CLI_BAD;
            if (nspecs == RT_AN_MAX_CHOICES)
                return cli_usage_error(cmd, "--coll: at most %d choices", RT_AN_MAX_CHOICES);
            specs[nspecs++] = v;
        } else if (argv[a.i][0] != '-' && !path) {
            path = argv[a.i];
        } else {
            return cli_args_unknown(&a);
        }
    }
    if (!path)
        return cli_usage_error(cmd, "no trace given");
    int rc = cli_level_finish(cmd, &o.level, level, nspecs ? specs[0] : NULL);
    if (rc)
        return rc;
    /* the recording MPI's choice is the base of every choice (the pass resolves it) */
    unsigned base = RT_AN_ALG_TRACE;
    if (!nspecs)
        cli_level_trace_default(&o.level, NULL);
    for (unsigned i = 0; i < nspecs; i++) {
        rt_an_level l;
        rt_an_level_default(&l);
        if ((rc = cli_level_finish(cmd, &l, "wire", specs[i])))
            return rc;
        cli_level_apply_default(&l, base, specs[i]);
        memcpy(o.choice[i], l.alg, sizeof l.alg);
        o.label[i] = specs[i];
    }
    o.nchoices = nspecs;
    if (nspecs)
        cli_level_apply_default(&o.level, base, NULL);
    o.level.coll = RT_AN_COLL_FLOWS;
    o.level.rma = 1;
    if (cli_out_claim_report(&out, path))
        return CLI_BAD;
    rt_an_gw_result res;
    rt_err err;
    if (rt_an_gateways(path, &o, &res, &err)) {
        rt_report_free(&res.report);
        return cli_error("%s", err.msg);
    }
    static const cli_plot plot = {RT_PLOT_HEATMAP, "Bytes from module (rows) to module (columns)",
                                  "to module",     "from module",
                                  "no plot",       0};
    rc = cli_out_report(&out, &res.report, 1, &plot);
    fflush(stdout);
    rt_an_notes_print(&res.notes, o.level.level == RT_AN_WIRE ? "wire" : "call", stderr);
    cli_out_truncated(res.report.truncated);
    rt_report_free(&res.report);
    return rc;
}

const cli_command cli_cmd_gateways = {"gateways", "traffic that crosses module boundaries",
                                      gateways_run, gateways_usage};
