/*
 * The streaming pass every analysis runs, on one thread or on several (docs/design.md,
 * "Passes in parts"), and small helpers shared by the passes.
 */
#define _GNU_SOURCE /* sched_getaffinity */
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "rt_an.h"

unsigned rt_an_threads(unsigned asked)
{
    if (asked)
        return asked < RT_AN_MAX_THREADS ? asked : RT_AN_MAX_THREADS;
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) != 0)
        return 1;
    int n = CPU_COUNT(&set);
    return n < 1 ? 1 : (unsigned)n < RT_AN_MAX_THREADS ? (unsigned)n : RT_AN_MAX_THREADS;
}

/* One part of a pass in threads: a reader over ranks lo to hi - 1 and the pass's partial
 * state for them. */
typedef struct an_part {
    const rt_an_pass *pass;
    const char *path;
    uint32_t lo, hi;
    rt_reader *r;
    void *state;
    int rc, tty; /* tty: this part shows the progress bar (the first one) */
    rt_err err;
    pthread_t tid;
} an_part;

/* Every event of r through the pass's events callback with state, else its event callback, a
 * block at a time (no copy of an event); 0 at the end, else rt_reader_next_block's error or
 * the pass's, named. */
static int feed(const rt_an_pass *pass, void *state, rt_reader *r, const char *path,
                rt_progress *prog, rt_err *err)
{
    const rt_event *blk;
    size_t n;
    int rc;
    while ((rc = rt_reader_next_block(r, &blk, &n, err)) > 0) {
        if (pass->events)
            rc = pass->events(state, blk, n);
        else
            for (size_t i = 0; i < n && rc >= 0; i++)
                rc = pass->event(state, &blk[i]);
        if (rc < 0)
            return rt_err_set(err, -rc, "%s: %s", path, rt_strerror(rc));
        rt_progress_add(prog, n);
    }
    return rc;
}

/* Every event of the part's ranks through the pass; errors as rt_an_run's. */
static void *read_part(void *arg)
{
    an_part *p = arg;
    rt_progress prog;
    rt_progress_begin(&prog, p->r);
    prog.tty = prog.tty && p->tty;
    p->rc = feed(p->pass, p->state, p->r, p->path, &prog, &p->err);
    rt_progress_end(&prog);
    return NULL;
}

/* Contiguous rank ranges, n of them, of about equal weight (rt_reader_rank_size; ranks count
 * alike when the trace does not tell): part k is ranks cut[k] to cut[k + 1] - 1, none empty. */
static void split_ranks(const rt_reader *r, unsigned n, uint32_t *cut)
{
    uint32_t nranks = rt_reader_defs(r)->nranks;
    rt_u128 total = 0;
    for (uint32_t i = 0; i < nranks; i++)
        total += rt_reader_rank_size(r, i);
    int even = total == 0;
    if (even)
        total = nranks;
    cut[0] = 0;
    rt_u128 sum = 0;
    uint32_t i = 0;
    for (unsigned k = 1; k < n; k++) {
        rt_u128 goal = total * k / n;
        while (i < nranks - (n - k) && (i <= cut[k - 1] || sum < goal)) {
            sum += even ? 1 : rt_reader_rank_size(r, i);
            i++;
        }
        cut[k] = i;
    }
    cut[n] = nranks;
}

/* The note of a cut trace, as one reader would leave it: the last one a part set while
 * reading (rank order), else the one the trace carries (base, every part's from the start). */
static int part_note(const an_part *parts, unsigned n, const char *base, char **truncated)
{
    const char *note = base;
    for (unsigned k = 0; k < n; k++) {
        const char *t = rt_reader_truncated(parts[k].r);
        if (t && (!base || strcmp(t, base)))
            note = t;
    }
    return note && !(*truncated = strdup(note)) ? -RT_E_NOMEM : 0;
}

/* After the parts read their events: the first error in rank order, the end-of-trace checks
 * of each part in rank order, the pass's end of each part and its merge into pass->ctx: what
 * one reader and one state would have done, in the same order. */
static int join_parts(const char *path, const rt_an_pass *pass, an_part *parts, unsigned n,
                      rt_err *err)
{
    for (unsigned k = 0; k < n; k++)
        if (parts[k].rc < 0) {
            *err = parts[k].err;
            return parts[k].rc;
        }
    int rc = 0;
    for (unsigned k = 0; k < n && !rc; k++)
        rc = rt_reader_end_check(parts[k].r, err);
    for (unsigned k = 0; k < n && !rc; k++) {
        if ((pass->end && (rc = pass->end(parts[k].state)) < 0) ||
            (rc = pass->merge(pass->ctx, parts[k].state, parts[k].lo, parts[k].hi)) < 0)
            rc = rt_err_set(err, -rc, "%s: %s", path, rt_strerror(rc));
    }
    return rc;
}

/* The pass in n threads over r's trace (r itself reads nothing: it gave the definitions). */
static int run_parts(const char *path, const rt_an_pass *pass, const rt_reader *r, unsigned n,
                     char **truncated, rt_err *err)
{
    uint32_t *cut = malloc((n + 1) * sizeof *cut);
    an_part *parts = calloc(n, sizeof *parts);
    int rc = cut && parts ? 0 : rt_err_set(err, RT_E_NOMEM, "%s: out of memory", path);
    if (!rc)
        split_ranks(r, n, cut);
    unsigned opened = 0, started = 0;
    for (; !rc && opened < n; opened++) {
        an_part *p = &parts[opened];
        *p = (an_part){.pass = pass, .path = path, .lo = cut[opened], .hi = cut[opened + 1]};
        p->tty = opened == 0;
        if ((rc = rt_reader_open_ranks(path, p->lo, p->hi, &p->r, err)) < 0)
            break;
        if ((rc = pass->fork(pass->ctx, &p->state, err)) < 0)
            rt_err_set(err, -rc, "%s: %s", path, rt_strerror(rc));
    }
    /* the first part reads in this thread, the others in threads of their own */
    for (; !rc && started + 1 < n; started++)
        if (pthread_create(&parts[started + 1].tid, NULL, read_part, &parts[started + 1]))
            rc = rt_err_set(err, RT_E_NOMEM, "%s: cannot start a thread", path);
    if (!rc)
        read_part(&parts[0]);
    for (unsigned k = 0; k < started; k++)
        pthread_join(parts[k + 1].tid, NULL);
    if (!rc)
        rc = join_parts(path, pass, parts, n, err);
    if (!rc && part_note(parts, n, rt_reader_truncated(r), truncated) < 0)
        rc = rt_err_set(err, RT_E_NOMEM, "%s: out of memory", path);
    for (unsigned k = 0; parts && k < opened; k++) {
        if (parts[k].state)
            pass->drop(parts[k].state);
        rt_reader_close(parts[k].r);
    }
    free(parts);
    free(cut);
    return rc;
}

/* The pass in this thread, with r's events. */
static int run_one(const char *path, const rt_an_pass *pass, rt_reader *r, char **truncated,
                   rt_err *err)
{
    rt_progress prog;
    rt_progress_begin(&prog, r);
    int rc = feed(pass, pass->ctx, r, path, &prog, err);
    rt_progress_end(&prog);
    if (rc == 0 && pass->end && (rc = pass->end(pass->ctx)) < 0)
        rt_err_set(err, -rc, "%s: %s", path, rt_strerror(rc));
    if (rc == 0 && rt_reader_truncated(r) && !(*truncated = strdup(rt_reader_truncated(r))))
        rc = rt_err_set(err, RT_E_NOMEM, "%s: out of memory", path);
    return rc;
}

int rt_an_run(const char *path, const rt_an_pass *pass, char **truncated, rt_err *err)
{
    *truncated = NULL;
    rt_reader *r;
    int rc = rt_reader_open(path, &r, err);
    if (rc < 0)
        return rc;
    if (pass->format)
        *pass->format = rt_reader_format(r);
    if (pass->setup && (rc = pass->setup(pass->ctx, rt_reader_defs(r), err)) < 0) {
        rt_reader_close(r);
        return rc;
    }
    unsigned n = pass->fork ? rt_an_threads(pass->threads) : 1;
    uint32_t nranks = rt_reader_defs(r)->nranks;
    if (n > nranks)
        n = nranks;
    if (n > 1 && rt_reader_can_split(r))
        rc = run_parts(path, pass, r, n, truncated, err);
    else
        rc = run_one(path, pass, r, truncated, err);
    if (rc == 0 && pass->finish && (rc = pass->finish(pass->ctx, err)) < 0)
        rt_err_set(err, -rc, "%s: %s", path, rt_strerror(rc));
    rt_reader_close(r);
    return rc;
}

void rt_an_size_label(uint64_t v, char *buf, size_t len)
{
    static const char units[] = "KMGTPE";
    int u = -1;
    while (v >= 1024 && v % 1024 == 0 && u < 5) {
        v /= 1024;
        u++;
    }
    if (u < 0)
        snprintf(buf, len, "%" PRIu64, v);
    else
        snprintf(buf, len, "%" PRIu64 "%c", v, units[u]);
}
