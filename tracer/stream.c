/*
 * Per-thread raw files. Each thread fills its own buffer with records and writes it to its
 * own file when it is full, or when a call starts more than RT__FLUSH_AGE after the last write.
 * A run that dies therefore loses at most the last buffer or the last 100 ms of each
 * thread's events (also a rank killed while it waits in a blocking call, since the call
 * started by writing what was older), and everything written before stays readable.
 *
 * Why not a shared memory mapping of the file (which would survive even SIGKILL): on this
 * kind of machine the first store to each page of a shared file mapping costs a page fault
 * and block allocation, measured at 50 to 200 ns per record against about 12 ns for a
 * buffer and write() (bench/tracer_overhead.sh, docs/benchmarks.md).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rt__tracer.h"
#include "rt_vec.h"

#define BUFFER (256u << 10) /* bytes of records a thread keeps before writing */

RT__TLS rt__thread *rt__self;

static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static rt__thread *registry;

rt__thread *rt__thread_create(void)
{
    rt__thread *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    t->fd = -1;
    t->scratch = t->scratch_inline;
    t->scratch_cap = sizeof t->scratch_inline;
    if (rt__g.histogram)
        rt_hist_init(&t->hist, &rt__g.hist_cfg);
    pthread_mutex_lock(&registry_lock);
    t->index = rt__g.nthreads++;
    t->next = registry;
    registry = t;
    pthread_mutex_unlock(&registry_lock);
    rt__self = t;
    if (rt__g.tracing)
        rt__stream_open(t);
    return t;
}

/* Writes the buffer out. 0, or -RT_E_IO after a failure (tracing is then off for the rank). */
static int flush(rt__thread *t)
{
    size_t len = (size_t)(t->pos - t->buf), done = 0;
    while (done < len) {
        ssize_t n = write(t->fd, t->buf + done, len - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            rt__fail("rank %d: cannot write %s/" RT_RAW_THREAD_NAME ": %s", rt__g.rank, rt__g.raw,
                     (unsigned)rt__g.rank, (unsigned)t->index,
                     n < 0 ? strerror(errno) : "short write");
            t->pos = t->buf;
            return -RT_E_IO;
        }
        done += (size_t)n;
    }
    t->pos = t->buf;
    return 0;
}

void rt__raw_header(rt_raw_header *h, uint32_t thread)
{
    memset(h, 0, sizeof *h);
    memcpy(h->magic, RT_RAW_MAGIC, sizeof h->magic);
    h->version = RT_RAW_VERSION;
    h->rank = (uint32_t)rt__g.rank;
    h->nranks = (uint32_t)rt__g.nranks;
    h->thread = thread;
    h->node = rt__g.node;
    h->module = rt__g.module;
    h->origin = rt__g.origin_realtime;
}

int rt__stream_open(rt__thread *t)
{
    char path[sizeof rt__g.raw + 64];
    snprintf(path, sizeof path, "%s/" RT_RAW_THREAD_NAME, rt__g.raw, (unsigned)rt__g.rank,
             (unsigned)t->index);
    t->buf = malloc(BUFFER);
    if (!t->buf) {
        rt__fail("rank %d: out of memory for the trace buffer", rt__g.rank);
        return -RT_E_NOMEM;
    }
    t->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (t->fd < 0) {
        rt__fail("rank %d: cannot create %s: %s", rt__g.rank, path, strerror(errno));
        return -RT_E_IO;
    }
    t->pos = t->buf;
    t->end = t->buf + BUFFER;
    rt__raw_header((rt_raw_header *)t->pos, t->index);
    t->pos += sizeof(rt_raw_header);
    return flush(t); /* the header at once: a rank that dies early still has its file */
}

int rt__stream_write(rt__thread *t, const void *data, size_t len)
{
    const uint8_t *p = data;
    while (len) {
        if (t->pos == t->end && flush(t) < 0)
            return -RT_E_IO;
        size_t n = (size_t)(t->end - t->pos);
        if (n > len)
            n = len;
        memcpy(t->pos, p, n);
        t->pos += n;
        p += n;
        len -= n;
    }
    return 0;
}

void rt__stream_flush(rt__thread *t)
{
    if (t && t->fd >= 0 && t->buf)
        flush(t);
}

void rt__stream_age_flush(rt__thread *t, uint64_t now)
{
    t->flushed = now;
    if (t->fd >= 0 && t->buf && t->pos != t->buf)
        flush(t);
}

static void stream_close(rt__thread *t, uint64_t time)
{
    if (t->fd < 0)
        return;
    rt_raw_close cl;
    memset(&cl, 0, sizeof cl);
    cl.type = RT_RAW_CLOSE;
    cl.time = time;
    if (rt__stream_write(t, &cl, sizeof cl) == 0)
        flush(t);
    close(t->fd);
    t->fd = -1;
    free(t->buf);
    t->buf = t->pos = t->end = NULL;
}

void rt__threads_close(uint64_t time)
{
    pthread_mutex_lock(&registry_lock);
    for (rt__thread *t = registry; t; t = t->next)
        stream_close(t, time);
    pthread_mutex_unlock(&registry_lock);
}

void rt__threads_hist(rt_hist *h)
{
    pthread_mutex_lock(&registry_lock);
    for (rt__thread *t = registry; t; t = t->next)
        rt_hist_merge(h, &t->hist);
    pthread_mutex_unlock(&registry_lock);
}

void *rt__scratch_grow(rt__thread *t, size_t len)
{
    /* the first buffer is inline in the thread: this grows by copying, with the growth rule
     * of rt_vec.h */
    size_t cap = len > SIZE_MAX - t->scratch_len
                     ? 0
                     : rt_vec_next(t->scratch_cap, (uint64_t)t->scratch_len + len, 0, 1, SIZE_MAX);
    uint8_t *s = cap ? malloc(cap) : NULL;
    if (!s) {
        rt__fail("rank %d: out of memory for trace records", rt__g.rank);
        t->scratch_len = 0;
        return t->scratch_inline; /* the records are dropped; tracing is off */
    }
    memcpy(s, t->scratch, t->scratch_len);
    if (t->scratch != t->scratch_inline)
        free(t->scratch);
    t->scratch = s;
    t->scratch_cap = cap;
    void *p = t->scratch + t->scratch_len;
    t->scratch_len += len;
    return p;
}

void rt__end(rt__call *c)
{
    rt__thread *t = c->t;
    if (rt__g.tracing && t->fd >= 0) {
        /* A full buffer is written out before t1, inside the call: after it, the write
         * (a millisecond on a slow disk) would be recorded as the application's
         * computation, and a replay would charge it. */
        rt_raw_call rec[2];
        if ((size_t)(t->end - t->pos) < sizeof rec + t->scratch_len && t->pos != t->buf)
            flush(t);
        uint64_t t1 = rt__now();
        uint64_t dt = t1 - c->t0;
        memset(rec, 0, sizeof rec);
        rec[0].type = RT_RAW_CALL;
        rec[0].fn = (uint16_t)c->fn;
        rec[0].t0 = c->t0;
        size_t n = sizeof rec[0];
        if (dt >= RT_RAW_DT_LONG) {
            rec[0].dt = RT_RAW_DT_LONG;
            rt_raw_time *tm = (rt_raw_time *)&rec[1];
            tm->type = RT_RAW_TIME;
            tm->t1 = t1;
            n += sizeof rec[1];
        } else {
            rec[0].dt = (uint32_t)dt;
        }
        /* The common case, in one piece into the window. */
        if ((size_t)(t->end - t->pos) >= n + t->scratch_len) {
            memcpy(t->pos, rec, n);
            memcpy(t->pos + n, t->scratch, t->scratch_len);
            t->pos += n + t->scratch_len;
        } else if (rt__stream_write(t, rec, n) == 0) {
            rt__stream_write(t, t->scratch, t->scratch_len);
        }
    }
    if (t->scratch != t->scratch_inline && t->scratch_cap > (1u << 20)) {
        free(t->scratch); /* a huge Waitall does not pin its memory for the whole run */
        t->scratch = t->scratch_inline;
        t->scratch_cap = sizeof t->scratch_inline;
    }
    if (RT__UNLIKELY(c->heap || c->heap2)) { /* only completion calls over many requests */
        free(c->heap);
        free(c->heap2);
    }
    t->depth = 0;
}
