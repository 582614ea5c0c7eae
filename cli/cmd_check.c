/* retrace check TRACE: MPI usage errors found in a trace (rt_check, docs/check.md). */
#include <inttypes.h>
#include <string.h>

#include "cli.h"
#include "rt_check.h"

#define DEFAULT_MAX 20

static void check_usage(FILE *out)
{
    fprintf(out,
            "usage: retrace check TRACE [--class C,...] [--max N] [--csv FILE] [--force]\n"
            "\n"
            "Finds MPI usage errors in a trace, with no rerun of the program: one line per\n"
            "finding (severity, class, communicator or window, ranks, the calls with their\n"
            "parameters and recorded times, and what is wrong), then a count per class.\n"
            "A trace cut short, or of a run that hung or failed, is checked as far as it goes.\n"
            "Classes (docs/check.md defines each):\n"
            "  deadlock     error: the recorded run hung; the ranks that wait for each other\n"
            "  buffering    warning: the run completed only because MPI buffered sends\n"
            "  collective   error: members of a communicator call different collectives, in a\n"
            "               different order, with different roots or amounts, or one never does\n"
            "  request      error: a request neither completed nor freed by MPI_Finalize\n"
            "  leak         warning: a window not freed by MPI_Finalize\n"
            "  rma-epoch    error: an RMA call against the epoch rules (outside an epoch, an\n"
            "               unlock without lock, Win_complete without Win_start, ...)\n"
            "  rma-conflict error: two RMA transfers of one epoch on overlapping bytes of a\n"
            "               target, one of them writing (put and get, different accumulates)\n"
            "  race         warning: a receive from MPI_ANY_SOURCE that another sender's\n"
            "               message, unordered with it, could have matched\n"
            "  invalid-param error: a call returned an error (MPI_ERRORS_RETURN): an invalid\n"
            "               rank, count, tag, root ..., by the error's class\n"
            "  --class C,...    check only these classes (default: all)\n"
            "  --max N          findings listed per class (default %d; all are counted)\n"
            "  --csv FILE       the findings as CSV, and the counts in FILE-summary.csv\n"
            "  --force          replace an existing --csv file\n"
            "Exit status: 1 when an error was found, 0 when none (warnings do not count),\n"
            "2 for a bad trace or bad usage.\n",
            DEFAULT_MAX);
}

/* --class C,...: the classes' bits. CLI_BAD (reported) for an unknown name. */
static int parse_classes(const cli_command *cmd, const char *spec, uint32_t *bits)
{
    *bits = 0;
    char name[32];
    for (const char *p = spec;;) {
        size_t len = strcspn(p, ",");
        if (!len || len >= sizeof name)
            return cli_usage_error(cmd, "--class: '%s' is not a list of classes", spec);
        memcpy(name, p, len);
        name[len] = '\0';
        int c = rt_check_class_lookup(name);
        if (c < 0)
            return cli_usage_error(cmd,
                                   "--class: no class '%s' (deadlock, buffering, collective, "
                                   "request, leak, rma-epoch, rma-conflict, race)",
                                   name);
        *bits |= 1u << c;
        if (!p[len])
            return CLI_OK;
        p += len + 1;
    }
}

/* "error collective: comm 3, ranks 0, 2: CALLS: WHY", one line per finding. */
static void print_findings(const rt_table *t)
{
    for (unsigned i = 0; i < rt_table_nrows(t); i++) {
        const char *ranks = rt_table_get(t, i, 2), *where = rt_table_get(t, i, 3);
        printf("%s %s: ", rt_table_get(t, i, 1), rt_table_get(t, i, 0));
        if (*where)
            printf("%s, ", where);
        printf("%s %s: %s: %s\n", strchr(ranks, ',') || strstr(ranks, " more") ? "ranks" : "rank",
               ranks, rt_table_get(t, i, 4), rt_table_get(t, i, 5));
    }
}

static int check_run(int argc, char **argv)
{
    const cli_command *cmd = &cli_cmd_check;
    cli_args a = {.cmd = cmd, .argc = argc, .argv = argv};
    const char *path = NULL, *classes = NULL, *max = NULL;
    cli_out out = {0};
    for (a.i = 1; a.i < argc; a.i++) {
        int k;
        if (cli_args_flag(&a, "--help") || cli_args_flag(&a, "-h")) {
            check_usage(stdout);
            return CLI_OK;
        } else if ((k = cli_args_value(&a, "--class", &classes)) ||
                   (k = cli_args_value(&a, "--max", &max))) {
            if (k < 0)
                return CLI_BAD;
        } else if (!strcmp(argv[a.i], "--plot") || !strncmp(argv[a.i], "--plot=", 7)) {
            return cli_args_unknown(&a);
        } else if ((k = cli_out_option(&a, &out))) {
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
    rt_check_opts o = {.classes = (1u << RT_CHK_COUNT) - 1, .max = DEFAULT_MAX};
    if (classes && parse_classes(cmd, classes, &o.classes))
        return CLI_BAD;
    if (max && rt_parse_uint(max, 0, UINT64_MAX, &o.max, NULL) < 0)
        return cli_usage_error(cmd, "--max: '%s' is not a count", max);
    if (cli_out_claim_report(&out, path))
        return CLI_BAD;
    rt_check_result res;
    rt_err err;
    if (rt_check(path, &o, &res, &err)) {
        rt_check_result_free(&res);
        return cli_input_error(path, err.msg);
    }
    print_findings(res.report.tables.t[0]);
    for (unsigned i = 0; i < RT_CHK_COUNT; i++)
        if (res.found[i] > o.max)
            printf("(%" PRIu64 " more %s finding%s not listed: --max %" PRIu64 ")\n",
                   res.found[i] - o.max, rt_check_class_name(i),
                   res.found[i] - o.max > 1 ? "s" : "", o.max);
    if (res.notes)
        for (const char *p = res.notes; *p;) {
            const char *end = strchr(p, '\n');
            printf("note: %.*s\n", (int)(end - p), p);
            p = end + 1;
        }
    if (rt_table_nrows(res.report.tables.t[0]) || res.notes)
        putchar('\n');
    int rc = cli_out_report(&out, &res.report, 0, NULL);
    rt_table_write_text(res.report.tables.t[1], stdout);
    if (!res.buffers && (o.classes & (1u << RT_CHK_RMA_CONFLICT | 1u << RT_CHK_RMA_EPOCH)))
        printf("not checked: calls on the buffers of pending operations, MPI_MODE_NOSTORE (the "
               "trace records no buffers; docs/check.md)\n");
    fflush(stdout);
    if (res.report.truncated)
        cli_warning("%s (checked as far as it goes)", res.report.truncated);
    int errors = 0;
    for (unsigned i = 0; i < RT_CHK_COUNT; i++)
        errors |= res.found[i] && rt_check_class_severity(i) == RT_CHK_ERROR;
    rt_check_result_free(&res);
    return rc ? rc : errors ? CLI_FAIL : CLI_OK;
}

const cli_command cli_cmd_check = {"check", "MPI usage errors in a trace (deadlocks, ...)",
                                   check_run, check_usage};
