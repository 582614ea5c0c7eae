/*
 * Reader of SimGrid time-independent (TI) traces, the form SimGrid 3.32's SMPI writes
 * (smpirun -trace-ti) and replays (smpirun -replay): an index file naming one action file
 * per rank, or a single file shared by all ranks, each line "RANK ACTION ARGS...". The
 * grammar is that of src/smpi/internals/smpi_replay.cpp, argument for argument; lines and
 * their fields are read by ti_lines.c, each action turned into events by ti_actions.c.
 *
 * This is the reader's pass: the index, the rank files or the shared file, the ranks and
 * their ends, and the blocks. Rank files are read one after the other, each once, so memory
 * follows the longest line and the requests a rank has open, not the trace. Events are
 * handed out in blocks of one rank's events (rt__reader_ops.next_block): built from checked
 * fields, they need no second check.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt__ti_read.h"

/* ---- files and ranks ------------------------------------------------------------------------ */

/* Reads the next line of the index that is not empty (SimGrid skips those). 1: *line holds
 * it (a buffer of t); 0: the end. */
static int index_line(rt_reader *r, rt__ti_reader *t, char **line, rt_err *err)
{
    for (;;) {
        errno = 0;
        ssize_t got = getline(&t->iline, &t->iline_cap, t->index);
        if (got < 0) {
            if (feof(t->index))
                return 0;
            return rt_err_set(err, RT_E_IO, "%s: read failed: %s", r->path,
                              strerror(errno ? errno : EIO));
        }
        t->index_line++;
        if (t->iline[got - 1] == '\n')
            t->iline[--got] = '\0';
        if (memchr(t->iline, '\0', (size_t)got))
            return rt_err_set(err, RT_E_FORMAT, "%s:%lu: NUL byte in line", r->path, t->index_line);
        if (got > 0) {
            *line = t->iline;
            return 1;
        }
    }
}

static int open_file(rt_reader *r, rt__ti_reader *t, const char *line, rt_err *err)
{
    char *p = rt__ti_resolve(r->path, line);
    if (!p)
        return rt_err_set(err, errno == ENOMEM ? RT_E_NOMEM : RT_E_NOTFOUND,
                          "%s:%lu: cannot read '%.200s': %s (looked next to the index and in "
                          "the working directory)",
                          r->path, t->index_line, line, strerror(errno ? errno : ENOENT));
    return rt__ti_lines_open(&t->in, p, err);
}

static void rank_reset(rt__ti_rank_state *k)
{
    free(k->reqs);
    memset(k, 0, sizeof *k);
    k->type_size = 1; /* MPI_BYTE until an "init X" says MPI_DOUBLE */
}

/* The end of a rank's actions: SimGrid completes what it left open. 1: events queued. */
static int rank_end(rt__ti_reader *t, rt__ti_rank_state *k, uint32_t me, rt_err *err)
{
    k->done = 1;
    for (size_t i = 0; i < k->nreqs; i++)
        if (k->reqs[i].id) {
            int rc = rt__ti_wait_all(t, k, me, err);
            return rc ? rc : 1;
        }
    return 0;
}

/* The end of a rank's file: its own end, then the next rank's file. */
static int file_end(rt_reader *r, rt__ti_reader *t, rt_err *err)
{
    int rc;
    if (!t->ranks[0].done) {
        if ((rc = rank_end(t, &t->ranks[0], t->cur, err)) < 0)
            return rc;
        if (t->qn) /* the next file is another rank's */
            return 2;
    }
    rt__ti_lines_close(&t->in);
    char *line;
    if ((rc = index_line(r, t, &line, err)) <= 0)
        return rc;
    if (++t->cur >= r->defs.nranks) /* the index grew since it was counted */
        return rt_err_set(err, RT_E_FORMAT, "%s: changed while being read", r->path);
    rank_reset(&t->ranks[0]);
    return (rc = open_file(r, t, line, err)) ? rc : 1;
}

/* The end of a shared file: every rank's end, each in a block of its own. */
static int shared_end(rt_reader *r, rt__ti_reader *t, rt_err *err)
{
    if (t->qn)
        return 2;
    while (t->end_rank < r->defs.nranks) {
        uint32_t i = t->end_rank++;
        int rc;
        if (!t->ranks[i].done && (rc = rank_end(t, &t->ranks[i], i, err)) != 0)
            return rc < 0 ? rc : 2;
    }
    return 0;
}

/* ---- lines into blocks --------------------------------------------------------------------- */

/* An action (ti_actions.c): reads the line's arguments and queues its events. */
typedef int (*action_fn)(rt__ti_ctx *c, rt_err *err);

/* Every action SimGrid 3.32's replay registers (smpi_replay_init), and nothing else: a line
 * SimGrid would refuse is refused here too. The first letter leaves a few names to compare
 * (this runs once per line of the trace). */
static action_fn find_action(const char *n, size_t len)
{
    /* the length and a memcmp of constant size, which the compiler turns into a compare or
     * two: cheaper than strcmp or strlen calls */
#define IS(name) (len == sizeof name - 1 && !memcmp(n, name, sizeof name - 1))
    switch (n[0]) {
    case 'a':
        return IS("allreduce")                     ? rt__ti_act_reduce
               : IS("alltoall") || IS("allgather") ? rt__ti_act_fixed
               : IS("allgatherv")                  ? rt__ti_act_gatherv
               : IS("alltoallv")                   ? rt__ti_act_alltoallv
                                                   : NULL;
    case 'b':
        return IS("barrier") ? rt__ti_act_barrier : IS("bcast") ? rt__ti_act_bcast : NULL;
    case 'c':
        return IS("compute")                                           ? rt__ti_act_compute
               : IS("comm_size") || IS("comm_split") || IS("comm_dup") ? rt__ti_act_comm
                                                                       : NULL;
    case 'e':
        return IS("exscan") ? rt__ti_act_reduce : NULL;
    case 'f':
        return IS("finalize") ? rt__ti_act_finalize : NULL;
    case 'g':
        return IS("gather") ? rt__ti_act_fixed : IS("gatherv") ? rt__ti_act_gatherv : NULL;
    case 'i':
        return IS("isend") || IS("irecv") ? rt__ti_act_p2p : IS("init") ? rt__ti_act_init : NULL;
    case 'l':
        return IS("location") ? rt__ti_act_location : NULL;
    case 'r':
        return IS("recv")            ? rt__ti_act_p2p
               : IS("reduce")        ? rt__ti_act_reduce
               : IS("reducescatter") ? rt__ti_act_reducescatter
                                     : NULL;
    case 's':
        return IS("send")       ? rt__ti_act_p2p
               : IS("sendRecv") ? rt__ti_act_sendrecv
               : IS("sleep")    ? rt__ti_act_sleep
               : IS("scan")     ? rt__ti_act_reduce
               : IS("scatter")  ? rt__ti_act_fixed
               : IS("scatterv") ? rt__ti_act_scatterv
                                : NULL;
    case 't':
        return IS("test") ? rt__ti_act_wait : NULL;
    case 'w':
        return IS("wait") ? rt__ti_act_wait : IS("waitall") ? rt__ti_act_waitall : NULL;
    default:
        return NULL;
    }
#undef IS
}

/* Takes the next line (or the end of a file) into the block. 1: go on; 2: the block is
 * complete (what follows is another rank's); 0: the end of the trace. */
static int step(rt_reader *r, rt__ti_reader *t, rt_err *err)
{
    int rc;
    if (t->held)
        t->held = 0;
    else if ((rc = rt__ti_lines_next(&t->in, r, err)) <= 0)
        return rc < 0 ? rc : t->shared ? shared_end(r, t, err) : file_end(r, t, err);
    const rt__ti_lines *in = &t->in;
    uint64_t who;
    if ((rc = rt__ti_who(in, &who, err)))
        return rc;
    if (!t->shared && who != t->cur)
        return rt__ti_bad(in, err,
                          "action of rank %s in the file of rank %u (SimGrid's replay would "
                          "skip it)",
                          in->tok[0], (unsigned)t->cur);
    if (who >= r->defs.nranks)
        return rt__ti_bad(in, err, "rank %s out of range (0 to %u)", in->tok[0],
                          (unsigned)r->defs.nranks - 1);
    if (t->qn && t->q[0].rank != who) {
        t->held = 1;
        return 2;
    }
    action_fn fn = find_action(in->tok[1], in->namelen);
    if (!fn)
        return rt__ti_bad(in, err,
                          "unknown action (SimGrid 3.32's replay does not know it "
                          "either)");
    rt__ti_ctx c = {.r = r,
                    .t = t,
                    .k = t->shared ? &t->ranks[who] : &t->ranks[0],
                    .me = (uint32_t)who,
                    .p = r->defs.nranks};
    return (rc = fn(&c, err)) ? rc : 1;
}

static int ti_next_block(rt_reader *r, const rt_event **ev, size_t *n, rt_err *err)
{
    rt__ti_reader *t = r->impl;
    t->qn = 0;
    if (t->done < 0) {
        *err = t->fail;
        return -t->fail.code;
    }
    int rc = 1;
    while (!t->done && t->qn < RT__TI_BLOCK && (rc = step(r, t, err)) == 1)
        ;
    if (rc < 0) { /* hand out what came before first */
        t->done = -1;
        t->fail = *err;
    } else if (rc == 0) {
        t->done = 1;
    }
    if (!t->qn)
        return rc < 0 ? rc : 0;
    *ev = t->q;
    *n = t->qn;
    return 1;
}

static double ti_progress(const rt_reader *r)
{
    const rt__ti_reader *t = r->impl;
    if (t->done > 0)
        return 1.0;
    double in_file = rt__ti_lines_progress(&t->in);
    if (t->shared)
        return in_file;
    return ((double)t->cur + in_file) / (double)r->defs.nranks;
}

static void ti_close(rt_reader *r)
{
    rt__ti_reader *t = r->impl;
    if (!t)
        return;
    if (t->index)
        fclose(t->index);
    rt__ti_lines_free(&t->in);
    uint32_t n = t->shared ? r->defs.nranks : 1;
    for (uint32_t i = 0; t->ranks && i < n; i++)
        free(t->ranks[i].reqs);
    free(t->ranks);
    free(t->iline);
    free(t->q);
    free(t);
    r->impl = NULL;
}

static const rt__reader_ops ti_reader_ops = {
    .next_block = ti_next_block,
    .progress = ti_progress,
    .close = ti_close,
};

/* A shared file: the ranks are 0 to the largest rank named (SimGrid takes them from -np). */
static int count_shared_ranks(rt_reader *r, rt__ti_reader *t, uint32_t limit, uint32_t *n,
                              rt_err *err)
{
    uint64_t max = 0;
    int any = 0, rc;
    while ((rc = rt__ti_lines_next(&t->in, r, err)) > 0) {
        uint64_t who;
        if ((rc = rt__ti_who(&t->in, &who, err)))
            return rc;
        if (who >= limit)
            return rt_err_set(err, RT_E_RANGE,
                              "%s:%lu: rank %s: more ranks than the limit of %u (the environment "
                              "variable %s raises it, up to %u)",
                              t->in.path, t->in.lineno, t->in.tok[0], (unsigned)limit,
                              RT_MAX_RANKS_ENV, (unsigned)RT_MAX_RANKS);
        if (!any || who > max)
            max = who;
        any = 1;
    }
    if (rc < 0)
        return rc;
    if (!any)
        return rt_err_set(err, RT_E_FORMAT, "%s: no actions", t->in.path);
    *n = (uint32_t)max + 1;
    return rt__ti_lines_rewind(&t->in, err);
}

int rt__ti_open(rt_reader *r, rt_err *err)
{
    rt__ti_reader *t = calloc(1, sizeof *t);
    if (!t)
        return rt_err_set(err, RT_E_NOMEM, "%s: out of memory", r->path);
    t->in.fd = -1;
    r->ops = &ti_reader_ops; /* from here on, closing the reader frees t */
    r->impl = t;
    uint32_t limit;
    int rc = rt__ti_flop_rate(&t->flops, err);
    if (rc || (rc = rt_max_ranks(&limit, err)))
        return rc;
    if (!(t->index = fopen(r->path, "rb")))
        return rt_err_set(err, RT_E_IO, "%s: %s", r->path, strerror(errno));
    /* Count the ranks: one per line that is not empty (smpi_deployment.cpp). */
    uint64_t n = 0;
    char *line;
    while ((rc = index_line(r, t, &line, err)) > 0)
        if (++n > limit)
            return rt_err_set(err, RT_E_RANGE,
                              "%s:%lu: more ranks than the limit of %u (the environment "
                              "variable %s raises it, up to %u)",
                              r->path, t->index_line, (unsigned)limit, RT_MAX_RANKS_ENV,
                              (unsigned)RT_MAX_RANKS);
    if (rc < 0)
        return rc;
    if (n == 0)
        return rt_err_set(err, RT_E_FORMAT, "%s: empty TI index", r->path);
    rewind(t->index);
    t->index_line = 0;
    if ((rc = index_line(r, t, &line, err)) < 0 || (rc = open_file(r, t, line, err)))
        return rc;
    uint32_t nranks = (uint32_t)n;
    /* One line: SimGrid replays it as a trace shared by all ranks. */
    t->shared = n == 1;
    r->by_rank = !t->shared; /* one file after the other */
    if (t->shared && (rc = count_shared_ranks(r, t, limit, &nranks, err)))
        return rc;
    if (t->shared) {
        fclose(t->index);
        t->index = NULL;
    }
    if (!(t->ranks = calloc(t->shared ? nranks : 1, sizeof *t->ranks)))
        return rt_err_set(err, RT_E_NOMEM, "%s: out of memory", r->path);
    for (uint32_t i = 0; i < (t->shared ? nranks : 1); i++)
        rank_reset(&t->ranks[i]);
    if ((rc = rt_defs_init(&r->defs, nranks, err)))
        return rt__err_prefix(err, rc, r->path);
    for (uint32_t i = 0; i < nranks; i++)
        r->defs.node[i] = i; /* every rank on a node of its own, all in module 0 */
    /* its v actions carry every count (coll_v), and every count has a datatype: the element
     * size, but for MPI_BYTE (code_of) */
    r->defs.flags |= RT_DEFS_COLL_PEERS | RT_DEFS_ELEM_SIZES;
    return 0;
}
