/* retrace info TRACE: what a trace holds, in one streaming pass. */
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

typedef struct summary {
    uint64_t events, by_class[RT_EVC_COUNT + 1];
    uint64_t tmin, tmax;
    uint64_t messages, by_contype[RT_CT_COUNT];
    uint64_t bytes_p2p, bytes_coll, bytes_rma;
    uint64_t colls, rma_ops;
} summary;

static void account(summary *s, const rt_event *ev)
{
    if (s->events == 0 || ev->time < s->tmin)
        s->tmin = ev->time;
    if (ev->time > s->tmax)
        s->tmax = ev->time;
    s->events++;
    s->by_class[rt_event_class_of(ev->kind)]++; /* RT_EVC_COUNT: out of range */
    switch (ev->kind) {
    case RT_EV_SEND:
    case RT_EV_ISEND:
        /* A message moves once: counted where it is sent. */
        s->messages++;
        s->by_contype[ev->contype]++;
        s->bytes_p2p += ev->bytes;
        break;
    case RT_EV_COLL_END:
    case RT_EV_NBC_COMPLETE:
        s->colls++;
        s->bytes_coll += ev->bytes;
        break;
    case RT_EV_RMA_PUT:
    case RT_EV_RMA_GET:
    case RT_EV_RMA_ATOMIC:
        s->rma_ops++;
        s->bytes_rma += ev->bytes + ev->rbytes;
        break;
    }
}

static void print_summary(FILE *out, const char *path, const rt_reader *r, const summary *s)
{
    const rt_defs *d = rt_reader_defs(r);
    fprintf(out, "trace         %s (%s)\n", path, rt_format_name(rt_reader_format(r)));
    fprintf(out, "ranks         %" PRIu32 "\n", d->nranks);
    fprintf(out, "nodes         %" PRIu32 "\n", rt_defs_count_nodes(d));
    fprintf(out, "modules       %" PRIu32 "\n", rt_defs_count_modules(d));
    fprintf(out, "communicators %" PRIu32 "\n", d->ncomms);
    fprintf(out, "windows       %" PRIu32 "\n", d->nwins);
    if (d->nnbrs) {
        /* communicators whose process topology a neighbourhood collective used */
        unsigned char *seen = calloc(d->ncomms, 1);
        uint32_t ncomms = 0;
        for (uint32_t j = 0; seen && j < d->nnbrs; j++) {
            size_t at = (size_t)(rt_defs_comm(d, d->nbrs[j].comm) - d->comms);
            ncomms += !seen[at];
            seen[at] = 1;
        }
        free(seen);
        fprintf(out,
                "topologies    %" PRIu32 " (%" PRIu32
                " neighbour lists, one per rank and communicator)\n",
                ncomms, d->nnbrs);
    }
    if (s->events)
        fprintf(out, "time span     %" PRIu64 " ns (%.9f s, from %" PRIu64 " to %" PRIu64 " ns)\n",
                s->tmax - s->tmin, (double)(s->tmax - s->tmin) * 1e-9, s->tmin, s->tmax);
    else
        fprintf(out, "time span     0 ns (no events)\n");
    fprintf(out, "events        %" PRIu64 "\n", s->events);
    for (int c = 0; c < RT_EVC_COUNT; c++)
        fprintf(out, "  %-22s %14" PRIu64 "\n", class_names[c], s->by_class[c]);
    fprintf(out, "messages      %" PRIu64 "\n", s->messages);
    for (int ct = 0; ct < RT_CT_COUNT; ct++)
        fprintf(out, "  %-22s %14" PRIu64 "\n", ct ? rt_contype_name(ct) : "unknown",
                s->by_contype[ct]);
    fprintf(out, "bytes moved   %" PRIu64 "\n", s->bytes_p2p + s->bytes_coll + s->bytes_rma);
    fprintf(out, "  %-22s %14" PRIu64 "  (%" PRIu64 " messages)\n", "point-to-point", s->bytes_p2p,
            s->messages);
    fprintf(out, "  %-22s %14" PRIu64 "  (%" PRIu64 " calls, bytes sent)\n", "collective",
            s->bytes_coll, s->colls);
    fprintf(out, "  %-22s %14" PRIu64 "  (%" PRIu64 " operations)\n", "one-sided (RMA)",
            s->bytes_rma, s->rma_ops);
}

int cli_info_report(const char *path, FILE *out)
{
    rt_reader *r;
    rt_err err;
    if (rt_reader_open(path, &r, &err) < 0)
        return cli_error("%s", err.msg);
    summary s;
    memset(&s, 0, sizeof s);
    rt_event ev;
    int rc;
    while ((rc = rt_reader_next(r, &ev, &err)) > 0)
        account(&s, &ev);
    if (rc < 0) {
        rt_reader_close(r);
        return cli_error("%s", err.msg);
    }
    print_summary(out, path, r, &s);
    if (rt_reader_truncated(r))
        cli_warning("%s", rt_reader_truncated(r));
    rt_reader_close(r);
    return CLI_OK;
}

static void info_usage(FILE *out)
{
    fprintf(out, "usage: retrace info TRACE\n"
                 "\n"
                 "Summarises a trace: ranks, nodes, modules, communicators, windows, process\n"
                 "topologies (the communicators whose neighbour lists it holds), the time\n"
                 "span, events per class, messages per connection type and bytes moved\n"
                 "(point-to-point bytes counted once, at the sender; collective bytes as sent\n"
                 "by each rank; RMA bytes put, got and exchanged by atomics).\n");
}

static int info_run(int argc, char **argv)
{
    static const struct option opts[] = {{"help", no_argument, NULL, 'h'}, {0}};
    int c;
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, "+:h", opts, NULL)) != -1) {
        if (c == 'h') {
            info_usage(stdout);
            return CLI_OK;
        }
        return cli_getopt_error(&cli_cmd_info, c, argv);
    }
    if (argc - optind != 1)
        return cli_usage_error(&cli_cmd_info, "expected one TRACE");
    return cli_info_report(argv[optind], stdout);
}

const cli_command cli_cmd_info = {"info", "summarise a trace", info_run, info_usage};
