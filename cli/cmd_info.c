/* retrace info TRACE: what a trace holds (rt_an_info), printed. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* The summary counts events per class of their kind (RT_EVENT_KINDS). */
static const char *const class_names[RT_EVC_COUNT] = {
    [RT_EVC_CALL] = "calls (enter, leave)",
    [RT_EVC_P2P] = "point-to-point",
    [RT_EVC_COLL] = "collective",
    [RT_EVC_RMA] = "one-sided (RMA)",
};

/* The most ranks the pending calls line names; more are counted. */
#define PENDING_RANKS_SHOWN 8

/* "pending calls 2 (ranks 1, 2)": the calls that never returned (a run that did not finish)
 * and the ranks that were in them, in rank order. */
static void print_pending(FILE *out, const rt_an_info_result *s)
{
    fprintf(out, "pending calls %" PRIu64 " (rank%s", s->pending, s->pending_ranks > 1 ? "s" : "");
    uint32_t shown = 0;
    for (uint32_t r = 0; r < s->nranks && shown < PENDING_RANKS_SHOWN; r++)
        if (s->had_pending[r])
            fprintf(out, "%s%" PRIu32, shown++ ? ", " : " ", r);
    if (s->pending_ranks > shown)
        fprintf(out, " and %" PRIu32 " more", s->pending_ranks - shown);
    fputs(")\n", out);
}

/* Under the windows line, the windows that have a name or info keys (rt_win_def). */
static void print_windows(FILE *out, const rt_defs *d)
{
    for (uint32_t i = 0; i < d->nwins; i++) {
        const rt_win_def *w = &d->wins[i];
        if (!w->name && !w->ninfo)
            continue;
        fprintf(out, "  window %" PRIu32 " on communicator %" PRIu32, w->id, w->comm);
        if (w->name)
            fprintf(out, ": \"%s\"", w->name);
        fputc('\n', out);
        for (uint32_t k = 0; k < w->ninfo; k++)
            fprintf(out, "    %s=%s\n", w->info[k].key, w->info[k].value);
    }
}

/* The real hosts (rt_host_def), when the trace names them. */
static void print_hosts(FILE *out, const rt_an_info_result *s)
{
    fprintf(out, "hosts         %" PRIu32 " (where the ranks ran)\n", s->nhosts);
    uint32_t shown = s->nhosts < RT_AN_INFO_HOSTS ? s->nhosts : RT_AN_INFO_HOSTS;
    for (uint32_t h = 0; h < shown; h++) {
        const struct rt_an_info_host *x = &s->host[h];
        fprintf(out, "  %-22s %" PRIu32 " rank%s on %" PRIu32 " of %" PRIu32 " online CPUs%s\n",
                x->name, x->ranks, x->ranks == 1 ? "" : "s", x->cpus, x->online,
                x->ranks > x->cpus ? ", time shared" : "");
    }
    if (s->nhosts > shown)
        fprintf(out, "  and %" PRIu32 " more hosts\n", s->nhosts - shown);
    if (s->hosts_unknown)
        fprintf(out, "  %" PRIu32 " rank%s without a recorded host\n", s->hosts_unknown,
                s->hosts_unknown == 1 ? "" : "s");
}

/* wins: the trace's definitions when it has windows, else NULL. */
static void print_summary(FILE *out, const char *path, const rt_an_info_result *s,
                          const rt_defs *wins)
{
    fprintf(out, "trace         %s (%s)\n", path, rt_format_name(s->format));
    if (s->library[0])
        fprintf(out, "recorded with %s\n", s->library);
    fprintf(out, "ranks         %" PRIu32 "\n", s->nranks);
    fprintf(out, "nodes         %" PRIu32 "\n", s->nodes);
    fprintf(out, "modules       %" PRIu32 "\n", s->modules);
    if (s->nhosts)
        print_hosts(out, s);
    fprintf(out, "communicators %" PRIu32 "\n", s->comms);
    fprintf(out, "windows       %" PRIu32 "\n", s->wins);
    if (wins)
        print_windows(out, wins);
    if (s->nbr_lists)
        fprintf(out,
                "topologies    %" PRIu32 " (%" PRIu32
                " neighbour lists, one per rank and communicator)\n",
                s->topologies, s->nbr_lists);
    if (s->events)
        fprintf(out, "time span     %" PRIu64 " ns (%.9f s, from %" PRIu64 " to %" PRIu64 " ns)\n",
                s->tmax - s->tmin, (double)(s->tmax - s->tmin) * 1e-9, s->tmin, s->tmax);
    else
        fprintf(out, "time span     0 ns (no events)\n");
    fprintf(out, "events        %" PRIu64 "\n", s->events);
    for (int c = 0; c < RT_EVC_COUNT; c++)
        fprintf(out, "  %-22s %14" PRIu64 "\n", class_names[c], s->by_class[c]);
    if (s->pending)
        print_pending(out, s);
    if (s->errors)
        fprintf(out,
                "errors        %" PRIu64 " call%s returned an error (retrace check lists them)\n",
                s->errors, s->errors == 1 ? "" : "s");
    fprintf(out, "messages      %" PRIu64 "\n", s->messages);
    for (int ct = 0; ct < RT_CT_COUNT; ct++)
        fprintf(out, "  %-22s %14" PRIu64 "\n", ct ? rt_contype_name(ct) : "unknown",
                s->by_contype[ct]);
    char b[RT_U128_LEN];
    fprintf(out, "bytes moved   %s\n",
            rt_u128_str(s->bytes_p2p + s->bytes_coll + s->bytes_rma, b, sizeof b));
    fprintf(out, "  %-22s %14s  (%" PRIu64 " messages)\n", "point-to-point",
            rt_u128_str(s->bytes_p2p, b, sizeof b), s->messages);
    fprintf(out, "  %-22s %14s  (%" PRIu64 " calls, bytes sent)\n", "collective",
            rt_u128_str(s->bytes_coll, b, sizeof b), s->colls);
    fprintf(out, "  %-22s %14s  (%" PRIu64 " operations)\n", "one-sided (RMA)",
            rt_u128_str(s->bytes_rma, b, sizeof b), s->rma_ops);
}

int cli_threads_parse(const cli_command *cmd, const char *value, unsigned *threads)
{
    char *end;
    errno = 0;
    unsigned long n = strtoul(value, &end, 10);
    if (*value < '0' || *value > '9' || *end || errno || n < 1 || n > RT_AN_MAX_THREADS)
        return cli_usage_error(cmd, "--threads: expected a whole number from 1 to %u, not '%s'",
                               RT_AN_MAX_THREADS, value);
    *threads = (unsigned)n;
    return 0;
}

int cli_threads_option(cli_args *a, unsigned *threads)
{
    const char *v;
    int k = cli_args_value(a, "--threads", &v);
    if (k <= 0)
        return k;
    if (cli_threads_parse(a->cmd, v, threads)) {
        a->bad = 1;
        return -1;
    }
    return 1;
}

int cli_info_report(const char *path, unsigned threads, FILE *out)
{
    rt_an_info_result s;
    rt_err err;
    if (rt_an_info(path, threads, &s, &err) < 0)
        return cli_error("%s", err.msg);
    /* the windows' names and keys: the definitions read once more, only when there are windows */
    rt_reader *r = NULL;
    if (s.wins && rt_reader_open(path, &r, &err) < 0) {
        rt_an_info_free(&s);
        return cli_error("%s", err.msg);
    }
    print_summary(out, path, &s, r ? rt_reader_defs(r) : NULL);
    rt_reader_close(r);
    if (s.truncated)
        cli_warning("%s", s.truncated);
    rt_an_info_free(&s);
    return CLI_OK;
}

static void info_usage(FILE *out)
{
    fprintf(out, "usage: retrace info TRACE [--threads N]\n"
                 "\n"
                 "Summarises a trace: ranks, nodes, modules, communicators, windows (with\n"
                 "the names and info keys of those that have them), process\n"
                 "topologies (the communicators whose neighbour lists it holds), the time\n"
                 "span, events per class, the calls that never returned (pending calls: the\n"
                 "run did not finish) and the ranks in them, messages per connection type\n"
                 "and bytes moved (point-to-point bytes counted once, at the sender, a\n"
                 "pending send too; collective bytes as sent by each rank in the calls that\n"
                 "completed; RMA bytes put, got and exchanged by atomics).\n"
                 "\n" CLI_THREADS_USAGE);
}

static int info_run(int argc, char **argv)
{
    static const struct option opts[] = {
        {"help", no_argument, NULL, 'h'}, {"threads", required_argument, NULL, 't'}, {0}};
    int c;
    unsigned threads = 0;
    opterr = 0;
    optind = 0; /* glibc: a full restart, also of the state a previous scan left */
    while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
        if (c == 'h') {
            info_usage(stdout);
            return CLI_OK;
        }
        if (c == 't') {
            if (cli_threads_parse(&cli_cmd_info, optarg, &threads))
                return CLI_BAD;
            continue;
        }
        return cli_getopt_error(&cli_cmd_info, c, argv);
    }
    if (argc - optind != 1)
        return cli_usage_error(&cli_cmd_info, "expected one TRACE");
    return cli_info_report(argv[optind], threads, stdout);
}

const cli_command cli_cmd_info = {"info", "summarise a trace", info_run, info_usage};
