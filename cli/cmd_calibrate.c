/*
 * retrace calibrate: measure this machine's MPI under mpiexec and write a network model
 * (docs/calibrate.md). The only subcommand that initialises MPI.
 *
 * Every process parses the same command line and loads the same base model before MPI
 * starts, so a usage error stops them all alike without MPI; the output file is checked by
 * rank 0 before anything is measured, and each later outcome is rank 0's, shared with all,
 * so every process exits with the same status and none is left waiting.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <mpi.h>

#include "cli.h"
#include "mpi_launch.h"
#include "rt_calib.h"
#include "rt_calib_from.h"

static void calibrate_usage(FILE *out)
{
    fprintf(out,
            "usage: mpiexec -n P retrace calibrate [--out FILE [--force]] [--model FILE]\n"
            "                                      [--quick] [--max-size SIZE] [--batches N]\n"
            "                                      [--verbose]\n"
            "\n"
            "Measures latency, bandwidth, per-message overhead, gap and the eager/rendezvous\n"
            "switch of each connection type among the ranks (loop: a rank with itself; shm:\n"
            "same node; net: another node; gw: another module), one pair of ranks at a time,\n"
            "and the reduction rate; fits the network model to the measured ping-pong times\n"
            "and writes it (docs/model.md) for 'retrace replay --model' and 'retrace pipeline\n"
            "--model'. Without mpiexec only loop is measured. Under Open MPI's mpirun (as\n"
            "root with --allow-run-as-root; --oversubscribe for more processes than cores)\n"
            "retrace runs retrace-openmpi, built beside it, to measure Open MPI.\n"
            "  --out FILE       write the model to FILE (checked before measuring; an existing\n"
            "                   FILE only with --force); default: standard output\n"
            "  --force          replace an existing --out FILE\n"
            "  --model FILE     start from this model: types not measured and the gateway\n"
            "                   keys keep its values (default: the built-in defaults)\n"
            "  --quick          a short run for tests: sizes up to 256K, 5 batches\n"
            "  --max-size SIZE  largest ping-pong message (default 1M; 1K to 1G)\n"
            "  --batches N      batches per size; the best counts (default 15; 1 to 256)\n"
            "  --verbose        the measured and fitted time of every size, on stderr\n"
            "\n"
            "       retrace calibrate --from TRACE [--out FILE [--force]] [--model FILE]\n"
            "\n"
            "Fits the model to a recorded run's own timings instead, with no MPI run: the\n"
            "one-way times of the trace's point-to-point messages whose receiver was already\n"
            "waiting, per connection type (docs/calibrate.md). Types without such messages\n"
            "keep the --model values.\n");
}

/* Before MPI starts the rank is unknown, but launchers put it in the environment (hydra:
 * PMI_RANK; PMIx: PMIX_RANK; Open MPI: OMPI_COMM_WORLD_RANK). Only the first process
 * speaks, so that a usage error under mpiexec -n 8 is one line, not eight. */
static int first_process(void)
{
    static const char *const vars[] = {"PMI_RANK", "PMIX_RANK", "OMPI_COMM_WORLD_RANK"};
    for (size_t i = 0; i < sizeof vars / sizeof *vars; i++) {
        const char *v = getenv(vars[i]);
        if (v && *v)
            return !strcmp(v, "0");
    }
    return 1;
}

typedef struct cal_args {
    const char *out, *model, *from;
    int verbose, force;
    rt_calib_opts opts;
} cal_args;

/* Parses the command line; CLI_OK, a usage error's status, or -1 for --help (done). */
static int parse(int argc, char **argv, cal_args *c)
{
    const cli_command *cmd = &cli_cmd_calibrate;
    cli_args a = {.cmd = cmd, .argc = argc, .argv = argv};
    const char *max = NULL, *batches = NULL;
    int quick = 0;
    for (a.i = 1; a.i < argc; a.i++) {
        int k;
        if (cli_args_flag(&a, "--help") || cli_args_flag(&a, "-h")) {
            if (!cli_quiet)
                calibrate_usage(stdout);
            return -1;
        } else if (cli_args_flag(&a, "--quick")) {
            quick = 1;
        } else if (cli_args_flag(&a, "--verbose") || cli_args_flag(&a, "-v")) {
            c->verbose = 1;
        } else if (cli_args_flag(&a, "--force")) {
            c->force = 1;
        } else if ((k = cli_args_value(&a, "--out", &c->out)) ||
                   (k = cli_args_value(&a, "--model", &c->model)) ||
                   (k = cli_args_value(&a, "--from", &c->from)) ||
                   (k = cli_args_value(&a, "--max-size", &max)) ||
                   (k = cli_args_value(&a, "--batches", &batches))) {
            if (k < 0)
                return CLI_BAD;
        } else {
            return cli_args_unknown(&a);
        }
    }
    if (c->from && (quick || max || batches || c->verbose))
        return cli_usage_error(cmd, "--from: not with %s (nothing is measured)",
                               quick     ? "--quick"
                               : max     ? "--max-size"
                               : batches ? "--batches"
                                         : "--verbose");
    rt_calib_opts_default(&c->opts);
    if (quick) {
        c->opts.quick = 1;
        c->opts.max_bytes = 256u << 10;
        c->opts.batches = 5;
        c->opts.batch_ps = 50000000; /* 50 us */
    }
    rt_err err;
    if (max) {
        uint64_t v;
        if (rt_net_parse_size(max, &v, &err) < 0)
            return cli_usage_error(cmd, "--max-size: %s", err.msg);
        if (v < 1024 || v > (1u << 30))
            return cli_usage_error(cmd, "--max-size: '%s' is out of range (1K to 1G)", max);
        c->opts.max_bytes = v;
    }
    if (batches) {
        uint64_t v;
        if (rt_parse_uint(batches, 1, 256, &v, NULL) < 0)
            return cli_usage_error(cmd, "--batches: '%s' is not a number from 1 to 256", batches);
        c->opts.batches = (unsigned)v;
    }
    return CLI_OK;
}

/* Rank 0: can the model be written to path? Opens it for appending (which changes nothing
 * in an existing file); *created says whether it did not exist before. */
static int check_out(const char *path, int *created, char *why, size_t len)
{
    struct stat st;
    *created = stat(path, &st) != 0; /* not a directory: cli_out_claim said so */
    FILE *f = fopen(path, "a");
    if (!f) {
        snprintf(why, len, "%s: cannot write the model: %s", path, strerror(errno));
        return -1;
    }
    fclose(f);
    return 0;
}

/* Rank 0: the model file, then the summary on stderr. */
static int write_model(const cal_args *c, const rt_calib_result *res, const rt_net_model *m,
                       char *why, size_t len)
{
    FILE *f = c->out ? fopen(c->out, "w") : stdout;
    if (!f) {
        snprintf(why, len, "%s: cannot write the model: %s", c->out, strerror(errno));
        return -1;
    }
    int rc = rt_calib_write(res, m, f);
    if (c->out ? fclose(f) != 0 : fflush(f) != 0)
        rc = -RT_E_IO;
    if (rc < 0) {
        snprintf(why, len, "%s: cannot write the model: %s", c->out ? c->out : "standard output",
                 strerror(errno ? errno : EIO));
        return -1;
    }
    return 0;
}

static void summary(const cal_args *c, const rt_calib_result *res)
{
    char measured[64] = "", absent[64] = "";
    for (unsigned ct = RT_CT_NONE + 1; ct < RT_CT_COUNT; ct++) {
        char *dst = res->link[ct].measured ? measured : absent;
        size_t n = strlen(dst);
        snprintf(dst + n, 64 - n, "%s%s", n ? ", " : "", rt_contype_name(ct));
    }
    cli_line("calibrate: %u rank%s on %u node%s in %u module%s; measured %s in %.2f s; not "
             "measured (kept from %s): %s; model written to %s",
             (unsigned)res->nranks, res->nranks == 1 ? "" : "s", (unsigned)res->nnodes,
             res->nnodes == 1 ? "" : "s", (unsigned)res->nmodules, res->nmodules == 1 ? "" : "s",
             measured, res->seconds, res->base, absent[0] ? absent : "none",
             c->out ? c->out : "standard output");
    for (unsigned ct = RT_CT_NONE + 1; ct < RT_CT_COUNT; ct++) {
        const rt_calib_link *l = &res->link[ct];
        double med, max;
        uint64_t at;
        if (l->disturbed)
            cli_warning("calibrate: [%s] at %u of %u sizes every batch was disturbed by other "
                        "processes (left out of the fit): rerun on a quieter machine",
                        rt_contype_name(ct), (unsigned)l->disturbed, (unsigned)l->npts);
        if (l->measured && rt_calib_spread(l->pts, l->npts, &med, &max, &at) &&
            med > RT_CALIB_NOISY)
            cli_warning("calibrate: [%s] the median batch took %.0f%% longer than the best in the "
                        "median over sizes: the machine is too noisy, and the model (the best "
                        "batches) is faster than what applications see here; rerun on a quieter "
                        "machine",
                        rt_contype_name(ct), 100 * med);
    }
    if (res->nranks == 1)
        cli_line("calibrate: one process can only measure loop: run it under mpiexec -n 2 (or "
                 "more, across nodes) for shm, net and gw");
}

/* The progress line of rank 0 (rt_calib_opts.step). */
static void show_step(void *ctx, unsigned k, unsigned n, const char *what)
{
    rt_steps *s = ctx;
    s->n = n;
    s->k = k - 1;
    rt_steps_next(s, "%s", what);
}

/* --from TRACE: the model fitted to the trace, written as the mpiexec form writes it; no MPI. */
static int calibrate_from(const cal_args *c, rt_net_model *m)
{
    if (c->out &&
        cli_out_claim(&cli_cmd_calibrate, "--out", c->out, RT_FMT_AUTO, c->force, c->from))
        return CLI_BAD;
    rt_calib_from_result *res = calloc(1, sizeof *res);
    rt_err err;
    if (!res)
        return cli_error("calibrate: out of memory");
    if (rt_calib_from(c->from, m, res, &err) < 0) {
        free(res);
        return cli_input_error(c->from, err.msg);
    }
    FILE *f = c->out ? fopen(c->out, "w") : stdout;
    int rc = f ? rt_calib_from_write(res, m, c->model ? c->model : "the built-in defaults", f)
               : -RT_E_IO;
    if (f && (c->out ? fclose(f) != 0 : fflush(f) != 0))
        rc = -RT_E_IO;
    if (rc < 0) {
        int e = errno ? errno : EIO;
        free(res);
        return cli_error("calibrate: %s: cannot write the model: %s",
                         c->out ? c->out : "standard output", strerror(e));
    }
    char fitted[64] = "";
    for (unsigned ct = RT_CT_NONE + 1; ct < RT_CT_COUNT; ct++)
        if (res->link[ct].measured) {
            size_t n = strlen(fitted);
            snprintf(fitted + n, sizeof fitted - n, "%s%s", n ? ", " : "", rt_contype_name(ct));
        }
    char calls[400] = "";
    for (unsigned i = 0; i < res->ncalls; i++) {
        size_t n = strlen(calls);
        snprintf(calls + n, sizeof calls - n, "%s%s",
                 i ? ", " : "; call costs: ", rt_func_name(res->calls[i].fn));
    }
    char shared[96] = "";
    if (res->shared)
        snprintf(shared, sizeof shared, ", %" PRIu64 " left out (ranks that shared CPUs)",
                 res->shared);
    cli_line("calibrate: %" PRIu64 " messages matched in %s, %" PRIu64
             " with the receiver waiting%s; fitted: %s%s; model written to %s",
             res->messages, c->from, res->waiting, shared, fitted[0] ? fitted : "none", calls,
             c->out ? c->out : "standard output");
    if (res->truncated[0])
        cli_warning("%s (fitted to the messages up to there)", res->truncated);
    free(res);
    return CLI_OK;
}

/* Rank 0's verdict to all: 0, or the status every rank exits with. */
static int agree(int status)
{
    MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
    return status;
}

static int calibrate_run(int argc, char **argv)
{
    cal_args c = {0};
    cli_quiet = !first_process(); /* a usage error under mpiexec -n 8: one line, not eight */
    int rc = parse(argc, argv, &c);
    if (rc)
        return rc < 0 ? CLI_OK : rc;
    rt_net_model model;
    rt_err err;
    rt_net_model_default(&model);
    if (c.model && rt_net_model_load(&model, c.model, &err) < 0)
        return cli_error("%s", err.msg);

    if (c.from)
        return calibrate_from(&c, &model);
    if (cli_mpi_launch(argc, argv)) /* under Open MPI's mpirun: retrace-openmpi instead */
        return CLI_FAIL;

    if (MPI_Init(&argc, &argv) != MPI_SUCCESS) {
        cli_error("calibrate: MPI_Init failed");
        return CLI_FAIL;
    }
    int me;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    cli_quiet = me != 0;
    char why[RT_ERR_LEN] = "";
    int created = 0, st = CLI_OK;
    if (me == 0 && c.out) { /* nothing is overwritten without --force */
        st = cli_out_claim(&cli_cmd_calibrate, "--out", c.out, RT_FMT_AUTO, c.force, c.model);
        if (st == CLI_OK && check_out(c.out, &created, why, sizeof why) < 0)
            st = cli_error("calibrate: %s", why);
    }
    if (agree(st)) {
        MPI_Finalize();
        return CLI_BAD;
    }

    rt_calib_result *res = calloc(1, sizeof *res);
    int have = res != NULL, all_have = 0;
    MPI_Allreduce(&have, &all_have, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    int status = all_have ? CLI_OK : CLI_FAIL;
    rt_steps steps; /* on a terminal: which pair is measured */
    rt_steps_begin(&steps, "calibrate", 0);
    c.opts.step = me == 0 ? show_step : NULL;
    c.opts.step_ctx = &steps;
    if (status == CLI_OK) {
        if (rt_calib_run(MPI_COMM_WORLD, &c.opts, &model, res, &err) < 0) {
            status = CLI_FAIL;
            snprintf(why, sizeof why, "%s", err.msg);
        }
        rt_steps_end(&steps);
        if (me == 0 && c.verbose)
            rt_calib_report(res, stderr);
    }
    if (me == 0 && status == CLI_OK) {
        if (write_model(&c, res, &model, why, sizeof why) < 0)
            status = CLI_FAIL;
        else
            summary(&c, res);
    }
    status = agree(status);
    if (status && me == 0) {
        cli_error("calibrate: %s", why[0] ? why : "out of memory");
        if (created && c.out)
            unlink(c.out); /* no empty model file left behind */
    }
    free(res);
    MPI_Finalize();
    return status;
}

const cli_command cli_cmd_calibrate = {"calibrate", "measure MPI and write a network model",
                                       calibrate_run, calibrate_usage};
