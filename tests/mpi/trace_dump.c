/*
 * trace_dump: a trace as stable text, one line per event, for the MPI integration tests.
 *
 * Times and request ids differ from run to run; what a test can compare is everything else.
 * Each line is
 *
 *   RANK KIND CALL [comm=C|win=C] [peer=W|root=W|group=G] [tag=T] [bytes=B] [rbytes=R]
 *                  [ct=CONTYPE] [op=OP] [req=N]
 *
 * with only the fields the event kind uses (rt_event_kind_fields), except that a receive shows
 * op= only when it was posted with a wildcard ("any_source", "any_tag", "any_source|any_tag"),
 * and a receive or an isend only when it is partitioned ("partitioned").
 * CALL is the MPI name, or "-" for an event outside any call. Communicators are shown by their
 * members, not their ids (ids depend on the order in which a trace's writer met them):
 * "world", "self", else the members as world ranks in communicator rank order ("6,4,2,0"),
 * and for an inter-communicator the recording rank's own group, '|', then the remote group.
 * Windows (the comm of RMA kinds) are shown as their communicator. Peers are world ranks; a
 * collective's root is "root=", RT_PEER_NONE prints "none", RT_PEER_ALL "all", and a
 * group_sync shows its group's world members. Request ids are left out, or with --req
 * renumbered per rank in the order they first appear (1, 2, ...), which is stable when the
 * events are. Lock and unlock events never show their lock id (docs/tracer.md does not say
 * whether a new lock of the same target gets a new id).
 * An rma_target shows its displacement as disp=BYTES (ADDR for one of 2^32 or more: the
 * address of a dynamic window, which differs from run to run) and its reduction as op= when it
 * has one. A win_attach and a buffer show addr=ADDR for their address, never a request number.
 * A fence, post or start shows its assert as assert=NAMES (rt_rma_assert_name, "noput|noprecede")
 * when it has one, and never a tag. An error shows its class as op= and not its code: MPICH's
 * codes carry an index of the message that differs from run to run.
 * With --sizes the events that carry element sizes show them as esize=S/R, the bytes side's
 * and the rbytes side's datatype size, ? where the trace does not know it.
 *
 * Ranks are printed in order, each rank's events in trace order, after a header that gives
 * the rank count, each rank's node and module, and each rank's neighbour lists on the
 * communicators with a process topology:
 *
 *   nbrs RANK comm=C [name=NAME] in=SOURCES out=DESTINATIONS
 *
 * (NAME: the communicator's name, for the tracer the MPI call that made it), with the lists as
 * communicator ranks in MPI's neighbour order, "none" for MPI_PROC_NULL and "-" for an empty list.
 * Windows with a name or info keys (MPI_Win_set_name, the MPI_Info they were created with) come
 * before them, a line for the name and one for each key: "win comm=C name=NAME",
 * "win comm=C info KEY=VALUE".
 *
 * Exit status: 0; 2 after one error line for bad usage or a bad trace (nothing on stdout);
 * 3 when the reader reports the trace cut short (the events are printed, then
 * "truncated: ..." on stderr).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_trace.h"

enum { DUMP_OK = 0, DUMP_BAD = 2, DUMP_TRUNCATED = 3 };

typedef struct options {
    int header;          /* ranks and placement lines first */
    int enter_leave;     /* print ENTER and LEAVE events */
    int drop_idle_polls; /* drop ENTER/LEAVE pairs of polling calls with nothing inside */
    int req;             /* renumbered request ids */
    int sizes;           /* element sizes */
    int64_t rank;        /* only this rank, or -1 */
    unsigned char skip[RT_FN_COUNT]; /* calls whose events are left out */
} options;

/* One rank's output so far, and what it takes to render the next event. */
typedef struct rank_out {
    char *buf;
    size_t len;
    FILE *f;
    int pending; /* an ENTER of a polling call not printed yet */
    uint16_t pending_call;
    uint64_t *reqs; /* request ids in order of first appearance */
    size_t nreqs, capreqs;
} rank_out;

static int is_polling_call(unsigned fn)
{
    switch (fn) {
    case RT_FN_Test:
    case RT_FN_Testall:
    case RT_FN_Testany:
    case RT_FN_Testsome:
    case RT_FN_Iprobe:
    case RT_FN_Improbe:
    case RT_FN_Win_test:
    case RT_FN_Parrived:
        return 1;
    default:
        return 0;
    }
}

static void print_members(FILE *f, const uint32_t *m, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        fprintf(f, "%s%" PRIu32, i ? "," : "", m[i]);
}

static void print_comm(FILE *f, const rt_defs *defs, uint32_t id, uint32_t self)
{
    if (id == RT_COMM_WORLD) {
        fputs("world", f);
        return;
    }
    if (id == RT_COMM_SELF) {
        fputs("self", f);
        return;
    }
    const rt_comm_def *c = rt_defs_comm(defs, id);
    if (!c) {
        fprintf(f, "?%" PRIu32, id);
        return;
    }
    if (c->flags & RT_COMM_IS_SELF) {
        fprintf(f, "self%" PRIu32, self);
        return;
    }
    if (!(c->flags & RT_COMM_IS_INTER)) {
        print_members(f, c->members, c->size);
        return;
    }
    const uint32_t *a = c->members, *b = c->members + c->size;
    uint32_t na = c->size, nb = c->remote_size;
    for (uint32_t i = 0; i < nb; i++)
        if (b[i] == self) { /* the recording rank is in group b: show it first */
            const uint32_t *t = a;
            a = b;
            b = t;
            na = c->remote_size;
            nb = c->size;
            break;
        }
    print_members(f, a, na);
    fputc('|', f);
    print_members(f, b, nb);
}

static int req_number(rank_out *o, uint64_t req, size_t *num)
{
    for (size_t i = 0; i < o->nreqs; i++)
        if (o->reqs[i] == req) {
            *num = i + 1;
            return 0;
        }
    if (o->nreqs == o->capreqs) {
        size_t cap = o->capreqs ? 2 * o->capreqs : 64;
        uint64_t *r = realloc(o->reqs, cap * sizeof *r);
        if (!r)
            return -1;
        o->reqs = r;
        o->capreqs = cap;
    }
    o->reqs[o->nreqs++] = req;
    *num = o->nreqs;
    return 0;
}

static void print_peer(FILE *f, const rt_defs *defs, const rt_event *ev)
{
    int coll = ev->kind == RT_EV_COLL_END || ev->kind == RT_EV_NBC_COMPLETE;
    if (ev->kind == RT_EV_RMA_GROUP_SYNC) {
        const rt_group_def *g = ev->peer >= 0 ? rt_defs_group(defs, (uint32_t)ev->peer) : NULL;
        fputs(" group=", f);
        if (g)
            print_members(f, g->members, g->size);
        else
            fprintf(f, "?%" PRId32, ev->peer);
        return;
    }
    fputs(coll ? " root=" : " peer=", f);
    if (ev->peer == RT_PEER_NONE) {
        fputs("none", f);
    } else if (ev->peer == RT_PEER_ALL) {
        fputs("all", f);
    } else {
        int64_t w = rt_defs_peer_world(defs, ev);
        if (w >= 0)
            fprintf(f, "%" PRId64, w);
        else
            fprintf(f, "?%" PRId32, ev->peer);
    }
}

/* An rma_target's displacement from here on is an address (a dynamic window's: MPI_Get_address),
 * which differs from run to run. */
#define DISP_ADDRESS (UINT64_C(1) << 32)

/* The windows that have a name or info keys, a line each for the name and for every key:
 *   win comm=C name=NAME       win comm=C info KEY=VALUE */
static void print_wins(const rt_defs *defs)
{
    for (uint32_t i = 0; i < defs->nwins; i++) {
        const rt_win_def *w = &defs->wins[i];
        if (w->name) {
            fputs("win comm=", stdout);
            print_comm(stdout, defs, w->comm, 0);
            printf(" name=%s\n", w->name);
        }
        for (uint32_t k = 0; k < w->ninfo; k++) {
            fputs("win comm=", stdout);
            print_comm(stdout, defs, w->comm, 0);
            printf(" info %s=%s\n", w->info[k].key, w->info[k].value);
        }
    }
}

/* One event as a line; -1 when out of memory. */
static int print_event(rank_out *o, const rt_defs *defs, const rt_event *ev, const options *opt)
{
    FILE *f = o->f;
    const char *fields = rt_event_kind_fields(ev->kind);
    const char *call = rt_func_name(ev->call);
    fprintf(f, "%" PRIu32 " %s %s", ev->rank, rt_event_kind_name(ev->kind),
            call && *call ? call : "-");
    if (strchr(fields, 'c')) {
        uint32_t comm = ev->comm;
        if (rt_event_is_rma(ev->kind)) {
            const rt_win_def *w = rt_defs_win(defs, ev->comm);
            fputs(" win=", f);
            if (!w) {
                fprintf(f, "?%" PRIu32, ev->comm);
                comm = RT_ID_NONE;
            } else {
                comm = w->comm;
            }
        } else {
            fputs(" comm=", f);
        }
        if (comm != RT_ID_NONE)
            print_comm(f, defs, comm, ev->rank);
    }
    if (strchr(fields, 'p'))
        print_peer(f, defs, ev);
    char a[64];
    if (strchr(fields, 't') && rt_event_is_rma(ev->kind) && ev->tag) /* an assert */
        fprintf(f, " assert=%s", rt_rma_assert_name((unsigned)ev->tag, a, sizeof a));
    else if (strchr(fields, 't') && !rt_event_is_rma(ev->kind) && ev->kind != RT_EV_ERROR)
        fprintf(f, " tag=%" PRId32, ev->tag);
    int target = ev->kind == RT_EV_RMA_TARGET;
    if (target && ev->bytes >= DISP_ADDRESS)
        fputs(" disp=ADDR", f);
    else if (target)
        fprintf(f, " disp=%" PRIu64, ev->bytes);
    else if (strchr(fields, 'b'))
        fprintf(f, " bytes=%" PRIu64, ev->bytes);
    if (strchr(fields, 'r'))
        fprintf(f, " rbytes=%" PRIu64, ev->rbytes);
    if (strchr(fields, 'k'))
        fprintf(f, " ct=%s", ev->contype ? rt_contype_name(ev->contype) : "unknown");
    /* A receive's op is its set of wildcards, or partitioned, as an isend's: shown only when
     * it has one. An rma_target's is its reduction, shown for the atomics that have one; a
     * request_free's only when it is not a free. */
    int recv = ev->kind == RT_EV_RECV || ev->kind == RT_EV_IRECV || ev->kind == RT_EV_ISEND;
    if (strchr(fields, 'o') && (!(recv || target || ev->kind == RT_EV_REQUEST_FREE) || ev->op))
        fprintf(f, " op=%s", rt_event_op_name(ev->kind, ev->op));
    if (opt->sizes && rt_event_has_esize(ev->kind)) {
        fputs(" esize=", f);
        if (ev->esize)
            fprintf(f, "%" PRIu64, rt_esize_of(ev->esize));
        else
            putc('?', f);
        putc('/', f);
        if (ev->resize)
            fprintf(f, "%" PRIu64, rt_esize_of(ev->resize));
        else
            putc('?', f);
    }
    /* Lock ids name a lock, not a request: a tracer may give every lock of a window on a
     * target the same id, so they are left out. */
    int lock = ev->kind == RT_EV_RMA_LOCK || ev->kind == RT_EV_RMA_UNLOCK;
    if (ev->kind == RT_EV_WIN_ATTACH ||
        ev->kind == RT_EV_BUFFER) /* req: an address, run-dependent */
        fputs(" addr=ADDR", f);
    else if (opt->req && strchr(fields, 'q') && !lock) {
        size_t n;
        if (req_number(o, ev->req, &n) < 0)
            return -1;
        fprintf(f, " req=%zu", n);
    }
    fputc('\n', f);
    return 0;
}

/* Takes one event of a rank through the filters. */
static int take(rank_out *o, const rt_defs *defs, const rt_event *ev, const options *opt)
{
    if (opt->skip[ev->call])
        return 0;
    if (opt->drop_idle_polls) {
        if (o->pending) {
            o->pending = 0;
            if (ev->kind == RT_EV_LEAVE && ev->call == o->pending_call)
                return 0; /* an idle poll: gone */
            if (opt->enter_leave)
                fprintf(o->f, "%" PRIu32 " enter %s\n", ev->rank, rt_func_name(o->pending_call));
        }
        if (ev->kind == RT_EV_ENTER && is_polling_call(ev->call)) {
            o->pending = 1;
            o->pending_call = ev->call;
            return 0;
        }
    }
    if (!opt->enter_leave && (ev->kind == RT_EV_ENTER || ev->kind == RT_EV_LEAVE))
        return 0;
    return print_event(o, defs, ev, opt);
}

/* A neighbour list as communicator ranks: "3,none,1", or "-" when empty. */
static void print_nbr_list(const int32_t *v, uint32_t n)
{
    if (!n)
        fputs("-", stdout);
    for (uint32_t i = 0; i < n; i++) {
        if (i)
            putchar(',');
        if (v[i] == RT_PEER_NONE)
            fputs("none", stdout);
        else
            printf("%" PRId32, v[i]);
    }
}

static void usage(FILE *out)
{
    fputs(
        "usage: trace_dump [OPTIONS] TRACE\n"
        "\n"
        "Prints a trace one event a line, without times and request ids, ranks in order.\n"
        "\n"
        "  --no-header         no 'ranks' and 'proc' lines\n"
        "  --no-enter-leave    leave out ENTER and LEAVE events\n"
        "  --drop-idle-polls   leave out Test*, Iprobe, Improbe, Win_test and Parrived calls that\n"
        "                      recorded nothing between their ENTER and LEAVE\n"
        "  --req               request ids, renumbered per rank by first appearance\n"
        "  --sizes             element sizes as esize=S/R (bytes side, rbytes side; ? unknown)\n"
        "                      (not the lock ids of lock and unlock events)\n"
        "  --skip CALL,...     leave out every event whose call is one of these\n"
        "  --rank R            only world rank R\n"
        "\n"
        "Exit status: 0; 2 for bad usage or a bad trace; 3 for a trace cut short.\n",
        out);
}

static int parse_skip(options *opt, const char *list)
{
    char name[64];
    while (*list) {
        size_t n = strcspn(list, ",");
        if (n >= sizeof name)
            n = sizeof name - 1;
        memcpy(name, list, n);
        name[n] = 0;
        rt_func fn = rt_func_lookup(name);
        if (fn == RT_FN_NONE) {
            fprintf(stderr, "trace_dump: --skip: unknown MPI function '%s'\n", name);
            return -1;
        }
        opt->skip[fn] = 1;
        list += strcspn(list, ",");
        list += *list == ',';
    }
    return 0;
}

static int parse_args(int argc, char **argv, options *opt, const char **path)
{
    memset(opt, 0, sizeof *opt);
    opt->header = opt->enter_leave = 1;
    opt->rank = -1;
    *path = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help")) {
            usage(stdout);
            exit(DUMP_OK);
        } else if (!strcmp(a, "--no-header")) {
            opt->header = 0;
        } else if (!strcmp(a, "--no-enter-leave")) {
            opt->enter_leave = 0;
        } else if (!strcmp(a, "--drop-idle-polls")) {
            opt->drop_idle_polls = 1;
        } else if (!strcmp(a, "--req")) {
            opt->req = 1;
        } else if (!strcmp(a, "--sizes")) {
            opt->sizes = 1;
        } else if (!strcmp(a, "--skip") && i + 1 < argc) {
            if (parse_skip(opt, argv[++i]) < 0)
                return -1;
        } else if (!strcmp(a, "--rank") && i + 1 < argc) {
            char *end;
            long long r = strtoll(argv[++i], &end, 10);
            if (*argv[i] < '0' || *argv[i] > '9' || *end || r >= (long long)RT_MAX_RANKS) {
                fprintf(stderr, "trace_dump: --rank: bad rank '%s'\n", argv[i]);
                return -1;
            }
            opt->rank = r;
        } else if (a[0] == '-' && a[1]) {
            fprintf(stderr, "trace_dump: unknown option or missing value: '%s'\n", a);
            return -1;
        } else if (*path) {
            fprintf(stderr, "trace_dump: more than one trace given\n");
            return -1;
        } else {
            *path = a;
        }
    }
    if (!*path) {
        fprintf(stderr, "trace_dump: no trace given (--help for usage)\n");
        return -1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    options opt;
    const char *path;
    if (parse_args(argc, argv, &opt, &path) < 0)
        return DUMP_BAD;

    rt_reader *r;
    rt_err err;
    if (rt_reader_open(path, &r, &err) < 0) {
        fprintf(stderr, "trace_dump: %s\n", err.msg);
        return DUMP_BAD;
    }
    const rt_defs *defs = rt_reader_defs(r);
    if (opt.rank >= (int64_t)defs->nranks) {
        fprintf(stderr, "trace_dump: --rank %" PRId64 ": the trace has %" PRIu32 " ranks\n",
                opt.rank, defs->nranks);
        rt_reader_close(r);
        return DUMP_BAD;
    }
    rank_out *out = calloc(defs->nranks, sizeof *out);
    int status = out ? DUMP_OK : DUMP_BAD;
    if (!out)
        fprintf(stderr, "trace_dump: out of memory\n");

    rt_event ev;
    int rc = 0;
    while (status == DUMP_OK && (rc = rt_reader_next(r, &ev, &err)) > 0) {
        if (opt.rank >= 0 && ev.rank != (uint32_t)opt.rank)
            continue;
        rank_out *o = &out[ev.rank];
        if (!o->f && !(o->f = open_memstream(&o->buf, &o->len))) {
            fprintf(stderr, "trace_dump: out of memory\n");
            status = DUMP_BAD;
        } else if (take(o, defs, &ev, &opt) < 0) {
            fprintf(stderr, "trace_dump: out of memory\n");
            status = DUMP_BAD;
        }
    }
    if (status == DUMP_OK && rc < 0) {
        fprintf(stderr, "trace_dump: %s\n", err.msg);
        status = DUMP_BAD;
    }

    if (status == DUMP_OK) {
        if (opt.header) {
            printf("ranks %" PRIu32 "\n", defs->nranks);
            for (uint32_t i = 0; i < defs->nranks; i++)
                if (opt.rank < 0 || i == (uint32_t)opt.rank)
                    printf("proc %" PRIu32 " node=%" PRIu32 " module=%" PRIu32 "\n", i,
                           defs->node[i], defs->module[i]);
            print_wins(defs);
            for (uint32_t i = 0; i < defs->nnbrs; i++) {
                const rt_nbr_def *n = &defs->nbrs[i];
                if (opt.rank >= 0 && n->rank != (uint32_t)opt.rank)
                    continue;
                printf("nbrs %" PRIu32 " comm=", n->rank);
                print_comm(stdout, defs, n->comm, n->rank);
                const rt_comm_def *c = rt_defs_comm(defs, n->comm);
                if (c && c->name && *c->name)
                    printf(" name=%s", c->name);
                fputs(" in=", stdout);
                print_nbr_list(n->in, n->nin);
                fputs(" out=", stdout);
                print_nbr_list(n->out, n->nout);
                putchar('\n');
            }
        }
        for (uint32_t i = 0; i < defs->nranks; i++) {
            rank_out *o = &out[i];
            if (!o->f)
                continue;
            /* A trace that ends inside a polling call's ENTER: show what is there. */
            if (o->pending && opt.enter_leave)
                fprintf(o->f, "%" PRIu32 " enter %s\n", i, rt_func_name(o->pending_call));
            fclose(o->f);
            o->f = NULL;
            fwrite(o->buf, 1, o->len, stdout);
        }
        if (fflush(stdout) != 0 || ferror(stdout)) {
            fprintf(stderr, "trace_dump: error writing the output\n");
            status = DUMP_BAD;
        } else if (rt_reader_truncated(r)) {
            fprintf(stderr, "truncated: %s\n", rt_reader_truncated(r));
            status = DUMP_TRUNCATED;
        }
    }
    for (uint32_t i = 0; out && i < defs->nranks; i++) {
        if (out[i].f)
            fclose(out[i].f);
        free(out[i].buf);
        free(out[i].reqs);
    }
    free(out);
    rt_reader_close(r);
    return status;
}
