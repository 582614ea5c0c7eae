/*
 * The TI writer's text (ti_writer.c): each rank's action lines, buffered and appended to
 * its file (PATH_files/rank-N.txt) when they grow, up to the first Irecv line still waiting
 * for its completion; and the refusal message that names the event TI cannot say.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt__ti_write.h"

#define RANK_FLUSH (64u << 10) /* a rank's text is appended to its file from this size on */

/* ---- errors -------------------------------------------------------------------------------- */

/* "PATH: rank R at T ns: KIND in CALL: problem". */
int rt__tiw_refuse(const rt_writer *w, const rt_event *ev, rt_err *err, const char *fmt, ...)
{
    char msg[RT_ERR_LEN];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return rt_err_set(err, RT_E_INVAL, "%s: rank %u at %" PRIu64 " ns: %s in %s: %s", w->path,
                      (unsigned)ev->rank, ev->time, rt_event_kind_name(ev->kind),
                      rt_func_name(ev->call), msg);
}

int rt__tiw_no_memory(const rt_writer *w, rt_err *err)
{
    return rt_err_set(err, RT_E_NOMEM, "%s: out of memory", w->path);
}

/* A count SimGrid reads as an int. */
int rt__tiw_int_count(const rt_writer *w, const rt_event *ev, uint64_t v, rt_err *err)
{
    if (v > INT_MAX)
        return rt__tiw_refuse(w, ev, err,
                              "%" PRIu64 " bytes in one count: SimGrid reads this count as "
                              "an int",
                              v);
    return 0;
}

/* ---- a rank's text ------------------------------------------------------------------------- */

char *rt__tiw_rank_file(const rt__ti_writer *tw, uint32_t r)
{
    size_t n = strlen(tw->dir) + 32;
    char *p = malloc(n);
    if (p)
        snprintf(p, n, "%s/rank-%u.txt", tw->dir, (unsigned)r);
    return p;
}

/* Appends the rank's text to its file, up to the first Irecv line still open. */
int rt__tiw_flush_rank(rt_writer *w, uint32_t r, rt_err *err)
{
    rt__ti_writer *tw = w->impl;
    rt__tiw_rank *k = &tw->ranks[r];
    size_t h = 0;
    while (h < k->nholds && k->holds[h].state != RT__TIW_HOLD_OPEN)
        h++;
    size_t end = h < k->nholds ? k->holds[h].off : k->len;
    if (end == 0 && h == 0)
        return 0;
    char *path = rt__tiw_rank_file(tw, r);
    if (!path)
        return rt__tiw_no_memory(w, err);
    FILE *f = fopen(path, k->created ? "ab" : "wb");
    if (!f) {
        int rc = rt_err_set(err, RT_E_IO, "%s: %s", path, strerror(errno));
        free(path);
        return rc;
    }
    k->created = 1;
    size_t pos = 0;
    for (size_t i = 0; i < h; i++) {
        const rt__tiw_hold *o = &k->holds[i];
        if (o->off > pos)
            fwrite(k->buf + pos, 1, o->off - pos, f);
        if (o->state == RT__TIW_HOLD_DONE)
            fprintf(f, "%u irecv %d %d %" PRIu64 "\n", (unsigned)r, (int)o->peer, (int)o->tag,
                    o->bytes);
        pos = o->off;
    }
    if (end > pos)
        fwrite(k->buf + pos, 1, end - pos, f);
    int bad = ferror(f);
    errno = 0;
    if (fclose(f) != 0 || bad) {
        int rc =
            rt_err_set(err, RT_E_IO, "%s: write failed: %s", path, strerror(errno ? errno : EIO));
        free(path);
        return rc;
    }
    free(path);
    if (k->len > end)
        memmove(k->buf, k->buf + end, k->len - end);
    k->len -= end;
    tw->buffered -= end;
    for (size_t i = h; i < k->nholds; i++)
        k->holds[i].off -= end;
    if (h > 0 && k->nholds > h)
        memmove(k->holds, k->holds + h, (k->nholds - h) * sizeof *k->holds);
    k->nholds -= h;
    k->hold_base += h;
    if (k->len == 0 && k->cap > RANK_FLUSH) { /* a rank done with gives its memory back */
        free(k->buf);
        k->buf = NULL;
        k->cap = 0;
    }
    return 0;
}

static int flush_all(rt_writer *w, rt_err *err)
{
    rt__ti_writer *tw = w->impl;
    for (uint32_t r = 0; r < w->defs.nranks; r++) {
        int rc = rt__tiw_flush_rank(w, r, err);
        if (rc)
            return rc;
    }
    /* Text held up behind open Irecv lines stays: let it grow before trying again. */
    if (tw->buffered > tw->budget / 2)
        tw->budget *= 2;
    return 0;
}

/* After text was added: write out what has grown large. */
int rt__tiw_text_added(rt_writer *w, uint32_t r, rt_err *err)
{
    rt__ti_writer *tw = w->impl;
    if (tw->ranks[r].len >= RANK_FLUSH) {
        int rc = rt__tiw_flush_rank(w, r, err);
        if (rc)
            return rc;
    }
    return tw->buffered > tw->budget ? flush_all(w, err) : 0;
}

int rt__tiw_append(rt_writer *w, rt__tiw_rank *k, const char *fmt, ...)
{
    rt__ti_writer *tw = w->impl;
    for (;;) {
        size_t room = k->cap - k->len;
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(k->buf ? k->buf + k->len : NULL, room, fmt, ap);
        va_end(ap);
        if (n < 0)
            return -RT_E_INVAL; /* an encoding error: not with these formats */
        if ((size_t)n < room) {
            k->len += (size_t)n;
            tw->buffered += (size_t)n;
            return 0;
        }
        if (RT_VEC_RESERVE(k->buf, k->cap, (uint64_t)k->len + (size_t)n + 1, 16) < 0)
            return -RT_E_NOMEM;
    }
}

/* Writes the compute time before the next action line of rank r. */
int rt__tiw_idle(rt_writer *w, uint32_t r, rt_err *err)
{
    rt__ti_writer *tw = w->impl;
    rt__tiw_rank *k = &tw->ranks[r];
    if (k->idle_ns) {
        int rc;
        if (tw->flops == 1e9) /* 1 flop per ns: exact */
            rc = rt__tiw_append(w, k, "%u compute %" PRIu64 "\n", (unsigned)r, k->idle_ns);
        else
            rc = rt__tiw_append(w, k, "%u compute %.17g\n", (unsigned)r,
                                (double)k->idle_ns * tw->flops / 1e9);
        if (rc)
            return rt__tiw_no_memory(w, err);
        k->idle_ns = 0;
    }
    return 0;
}

/* Starts an action line of rank r, after the compute time that precedes it. */
int rt__tiw_line(rt_writer *w, uint32_t r, rt_err *err)
{
    rt__ti_writer *tw = w->impl;
    int rc = rt__tiw_idle(w, r, err);
    if (rc)
        return rc;
    return rt__tiw_append(w, &tw->ranks[r], "%u ", (unsigned)r) ? rt__tiw_no_memory(w, err) : 0;
}

/* A whole action line "R TEXT". */
int rt__tiw_action(rt_writer *w, uint32_t r, rt_err *err, const char *fmt, ...)
{
    rt__ti_writer *tw = w->impl;
    rt__tiw_rank *k = &tw->ranks[r];
    int rc = rt__tiw_line(w, r, err);
    if (rc)
        return rc;
    char buf[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap); /* callers keep it short; long lines use append */
    va_end(ap);
    if (rt__tiw_append(w, k, "%s\n", buf))
        return rt__tiw_no_memory(w, err);
    return rt__tiw_text_added(w, r, err);
}

/* Every file starts with a bare init: sizes are then in MPI_BYTE. */
int rt__tiw_start_rank(rt_writer *w, uint32_t r, rt_err *err)
{
    rt__ti_writer *tw = w->impl;
    tw->ranks[r].started = 1;
    return rt__tiw_append(w, &tw->ranks[r], "%u init\n", (unsigned)r) ? rt__tiw_no_memory(w, err)
                                                                      : 0;
}

rt__tiw_type rt__tiw_type_of(unsigned code, const uint64_t *counts, size_t n)
{
    uint64_t size = rt_esize_of(code);
    const char *id = rt__ti_type_id(size);
    for (size_t i = 0; id && i < n; i++)
        if (counts[i] % size)
            id = NULL;
    return id ? (rt__tiw_type){size, id} : (rt__tiw_type){1, NULL};
}
