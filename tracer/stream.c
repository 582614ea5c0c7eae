/*
 * Per-thread raw files. Each thread appends its calls' records to its own buffer and, after
 * each call, publishes how far the buffer holds whole calls (committed). The buffer reaches
 * the file in whole calls, each written at its own place in the file (pwrite), so writers
 * taking turns can neither interleave nor leave half a call behind:
 *  - the owner writes a full buffer before t1 of the call that found it full, and starts it
 *    again (a call whose records do not fit an empty buffer goes to the file on its own);
 *  - the flusher thread writes what was committed since its last round, every 50 ms, and
 *    the crash paths (a signal, MPI_Abort, exit without MPI_Finalize) everything committed:
 *    flush.c.
 * A run killed without warning (SIGKILL) thus loses the calls of the last 50 ms and one
 * round of the flusher; docs/tracer.md, "A run that dies", gives the bounds.
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
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "rt__tracer.h"
#include "rt_vec.h"

#define BUFFER (256u << 10)         /* bytes of records a thread keeps before writing */
#define RT__END_COPY 64u            /* bytes of records rt__end copies as one block */
#define RT__SCRATCH_KEEP (1u << 20) /* a larger scratch area is freed at the end of its call */
_Static_assert(RT__END_COPY <= RT__SCRATCH_INLINE, "the scratch area holds what rt__end copies");
#if defined(__x86_64__)
#define RT__END_CLOCK_INLINE rt__g.tsc
#else
#define RT__END_CLOCK_INLINE 1
#endif

RT__TLS rt__thread *rt__self;

static RT__TLS char lock_tag; /* its address tells the threads apart as lock holders */

static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER; /* inserts only */
static _Atomic(rt__thread *) registry;

rt__thread *rt__threads_first(void)
{
    return atomic_load_explicit(&registry, memory_order_acquire);
}

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
    t->index = atomic_fetch_add(&rt__g.nthreads, 1);
    rt__self = t;
    if (rt__g.tracing)
        rt__stream_open(t);
    /* In the registry only once its file is open: the flusher and the crash paths read
     * fd and buf without a word from the owner. */
    pthread_mutex_lock(&registry_lock);
    t->next = atomic_load_explicit(&registry, memory_order_relaxed);
    atomic_store_explicit(&registry, t, memory_order_release);
    pthread_mutex_unlock(&registry_lock);
    return t;
}

/* ---- the buffer's lock ------------------------------------------------------------------- */

uintptr_t rt__lock_id(void)
{
    return (uintptr_t)&lock_tag;
}

int rt__buf_trylock(rt__thread *t)
{
    uintptr_t none = 0;
    return atomic_compare_exchange_strong_explicit(&t->lock, &none, rt__lock_id(),
                                                   memory_order_acquire, memory_order_relaxed);
}

void rt__buf_unlock(rt__thread *t)
{
    atomic_store_explicit(&t->lock, 0, memory_order_release);
}

/* The owner's wait, when its buffer is full: the flusher holds the lock for one write. */
static void buf_lock(rt__thread *t)
{
    while (!rt__buf_trylock(t)) {
        struct timespec pause = {0, 20000};
        nanosleep(&pause, NULL);
    }
}

/* ---- writing ------------------------------------------------------------------------------ */

/* Writes iov (cnt pieces, changed) at off. 0, or -RT_E_IO with errno set. *done counts the
 * bytes written. Async-signal-safe. */
static int write_at(int fd, struct iovec *iov, int cnt, uint64_t off, size_t *done)
{
    while (cnt > 0) {
        if (!iov->iov_len) {
            iov++, cnt--;
            continue;
        }
        ssize_t n = pwritev(fd, iov, cnt, (off_t)(off + *done));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            if (n == 0)
                errno = EIO;
            return -RT_E_IO;
        }
        *done += (size_t)n;
        for (size_t left = (size_t)n; left;) {
            size_t k = left < iov->iov_len ? left : iov->iov_len;
            iov->iov_base = (uint8_t *)iov->iov_base + k;
            iov->iov_len -= k;
            left -= k;
            if (!iov->iov_len)
                iov++, cnt--;
        }
    }
    return 0;
}

static int erase_trailer(rt__thread *t);

int rt__buf_write_committed(rt__thread *t)
{
    size_t end = atomic_load_explicit(&t->committed, memory_order_acquire);
    if (t->fd < 0 || !t->buf || end <= t->written)
        return 0;
    if (RT__COST_OFF(WRITE)) { /* the bench build measuring the kernel's part: dropped */
        t->written = end;
        return 0;
    }
    if (erase_trailer(t) < 0)
        return -RT_E_IO;
    struct iovec iov = {t->buf + t->written, end - t->written};
    size_t done = 0;
    int rc = write_at(t->fd, &iov, 1, t->file_off + t->written, &done);
    t->written += done;
    return rc;
}

/* ---- the trailer: the call a thread is blocked in (rt_raw.h) ----------------------------- */

/* Overwrites the trailer with zeros (under the lock), so that data can go over its place:
 * a process killed between the two writes leaves a zero byte where the trailer began, the
 * end of the data, never a torn record. 0, or -RT_E_IO with errno set. */
static int erase_trailer(rt__thread *t)
{
    static const uint8_t
        zeros[sizeof(rt_raw_pending) + RT_RAW_PENDING_MAX_OPS * sizeof(rt_raw_event)];
    if (!t->trailer_len)
        return 0;
    struct iovec iov = {(void *)zeros, t->trailer_len};
    size_t done = 0;
    int rc = write_at(t->fd, &iov, 1, t->trailer_off, &done);
    if (rc == 0)
        t->trailer_len = 0;
    return rc;
}

int rt__pending_copy(rt__thread *t)
{
    const rt__pending *p = &t->pending;
    rt__pending_snap *s = &t->snap;
    unsigned seq = atomic_load_explicit(&p->seq, memory_order_acquire);
    if (!(seq & 1u))
        return 0;
    /* Read while the owner may be writing (after it left the call): the check below throws
     * such a copy away. The scratch area is looked at only where it is inline. */
    s->seq = seq;
    s->fn = p->fn;
    s->t0 = p->t0;
    s->recv_cm = p->recv_cm;
    s->recv_peer = p->recv_peer;
    s->recv_tag = p->recv_tag;
    s->nwait = p->nwait;
    memcpy(s->claimed, p->claimed, sizeof s->claimed);
    size_t n = t->scratch == t->scratch_inline ? t->scratch_len : 0;
    s->nscratch = n < sizeof s->scratch ? n : sizeof s->scratch;
    memcpy(s->scratch, t->scratch_inline, s->nscratch);
    atomic_thread_fence(memory_order_acquire);
    return atomic_load_explicit(&p->seq, memory_order_relaxed) == seq;
}

/* Writes t->snap (its nops operations) as t's trailer behind the committed data, unless it is
 * there already. */
static int write_trailer(rt__thread *t, unsigned nops)
{
    const rt__pending_snap *s = &t->snap;
    if (t->trailer_len && t->trailer_seq == s->seq)
        return 0; /* no data went to the file since: the trailer there is this call's */
    if (erase_trailer(t) < 0)
        return -RT_E_IO;
    rt_raw_pending rec;
    memset(&rec, 0, sizeof rec);
    rec.type = RT_RAW_PENDING;
    rec.nops = (uint8_t)nops;
    rec.fn = (uint16_t)s->fn;
    rec.nwait = s->nwait;
    rec.t0 = s->t0;
    size_t len = sizeof rec + nops * sizeof *s->ops;
    struct iovec iov[2] = {{&rec, sizeof rec}, {(void *)s->ops, nops * sizeof *s->ops}};
    size_t done = 0;
    t->trailer_off = t->file_off + t->written;
    int rc = write_at(t->fd, iov, 2, t->trailer_off, &done);
    t->trailer_len = done ? len : 0; /* even a part written is erased before data goes there */
    t->trailer_seq = s->seq;
    return rc;
}

int rt__buf_write_all(rt__thread *t, int final)
{
    int blocked = rt__pending_copy(t);
    int rc = rt__buf_write_committed(t);
    if (rc < 0 || !blocked || t->fd < 0 || !t->buf)
        return rc;
    uint64_t now = rt__now();
    if (!final && (now < t->snap.t0 || rt__ticks_ns(now - t->snap.t0) < RT__FLUSH_PERIOD_NS))
        return 0; /* a call this short may just be a slow one */
    /* Still the same call after the committed records were read: had it returned, its own
     * records might be among them (rt__pending_close comes before their commit). */
    atomic_thread_fence(memory_order_acquire);
    if (atomic_load_explicit(&t->pending.seq, memory_order_relaxed) != t->snap.seq)
        return 0;
    return write_trailer(t, rt__pending_ops(&t->snap));
}

void rt__stream_write_failed(rt__thread *t, int err)
{
    rt__fail("rank %d: cannot write %s/" RT_RAW_THREAD_NAME ": %s", rt__g.rank, rt__g.raw,
             (unsigned)rt__g.rank, (unsigned)t->index, strerror(err));
}

static void commit(rt__thread *t)
{
    atomic_store_explicit(&t->committed, (size_t)(t->pos - t->buf), memory_order_release);
}

/* The owner: writes what the buffer holds (whole calls: pos is committed) and starts it
 * again. 0, or -RT_E_IO (reported; tracing is then off for the rank). */
__attribute__((cold, noinline)) static int restart(rt__thread *t)
{
    buf_lock(t);
    int rc = rt__buf_write_committed(t);
    int err = errno;
    t->file_off += (size_t)(t->pos - t->buf);
    t->written = 0;
    t->pos = t->buf;
    commit(t);
    rt__buf_unlock(t);
    if (rc < 0)
        rt__stream_write_failed(t, err);
    return rc;
}

/* The owner: a call whose records (a, then b) do not fit an empty buffer, in one write
 * after what the buffer holds. */
__attribute__((cold, noinline)) static void write_direct(rt__thread *t, const void *a, size_t alen,
                                                         const void *b, size_t blen)
{
    if (t->pos != t->buf && restart(t) < 0)
        return;
    buf_lock(t);
    struct iovec iov[2] = {{(void *)a, alen}, {(void *)b, blen}};
    size_t done = 0;
    int rc = erase_trailer(t);
    if (rc == 0)
        rc = write_at(t->fd, iov, 2, t->file_off, &done);
    int err = errno;
    t->file_off += alen + blen;
    rt__buf_unlock(t);
    if (rc < 0)
        rt__stream_write_failed(t, err);
}

/* ---- opening and closing ----------------------------------------------------------------- */

void rt__raw_header(rt_raw_header *h, uint32_t thread)
{
    memset(h, 0, sizeof *h);
    memcpy(h->magic, RT_RAW_MAGIC, sizeof h->magic);
    h->version = rt__g.tsc ? RT_RAW_VERSION_TICKS : RT_RAW_VERSION;
    h->rank = (uint32_t)rt__g.rank;
    h->nranks = (uint32_t)rt__g.nranks;
    h->thread = thread;
    h->node = rt__g.node;
    h->module = rt__g.module;
    h->origin = rt__g.origin_realtime;
    h->flags = RT_RAW_FLAG_COLL_PEERS | RT_RAW_FLAG_RMA_TARGETS | RT_RAW_FLAG_ELEM_SIZES;
    memcpy(h->library, rt__g.library, sizeof h->library);
}

int rt__stream_open(rt__thread *t)
{
    char path[sizeof rt__g.raw + 64];
    snprintf(path, sizeof path, "%s/" RT_RAW_THREAD_NAME, rt__g.raw, (unsigned)rt__g.rank,
             (unsigned)t->index);
    uint8_t *buf = malloc(BUFFER + RT__END_COPY); /* rt__end copies RT__END_COPY bytes */
    if (!buf) {
        rt__fail("rank %d: out of memory for the trace buffer", rt__g.rank);
        return -RT_E_NOMEM;
    }
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) {
        rt__fail("rank %d: cannot create %s: %s", rt__g.rank, path, strerror(errno));
        free(buf);
        return -RT_E_IO;
    }
    /* The header at once: a rank that dies early still has its file. */
    rt_raw_header h;
    rt__raw_header(&h, t->index);
    struct iovec iov = {&h, sizeof h};
    size_t done = 0;
    if (write_at(fd, &iov, 1, 0, &done) < 0) {
        rt__fail("rank %d: cannot write %s: %s", rt__g.rank, path, strerror(errno));
        close(fd);
        free(buf);
        return -RT_E_IO;
    }
    t->buf = t->pos = buf;
    t->end = buf + BUFFER;
    t->file_off = sizeof h;
    t->fd = fd;
    return 0;
}

/* The thread's CLOSE record, then its file closed (MPI_Finalize: no call runs, the flusher
 * has stopped; a signal handler may still look, so the lock is taken). */
static void stream_close(rt__thread *t, uint64_t time)
{
    if (t->fd < 0)
        return;
    if (rt__g.tracing) { /* after a failed write, the file stays cut short */
        rt_raw_close cl;
        memset(&cl, 0, sizeof cl);
        cl.type = RT_RAW_CLOSE;
        cl.time = time;
        if ((size_t)(t->end - t->pos) >= sizeof cl || restart(t) == 0) {
            memcpy(t->pos, &cl, sizeof cl);
            t->pos += sizeof cl;
            commit(t);
        }
    }
    buf_lock(t);
    int rc = rt__buf_write_committed(t);
    int err = errno;
    close(t->fd);
    t->fd = -1;
    free(t->buf);
    t->buf = t->pos = t->end = NULL;
    t->written = 0;
    atomic_store_explicit(&t->committed, 0, memory_order_relaxed);
    rt__buf_unlock(t);
    if (rc < 0)
        rt__stream_write_failed(t, err);
}

void rt__threads_close(uint64_t time)
{
    for (rt__thread *t = rt__threads_first(); t; t = t->next)
        stream_close(t, time);
}

void rt__threads_hist(rt_hist *h)
{
    for (rt__thread *t = rt__threads_first(); t; t = t->next)
        rt_hist_merge(h, &t->hist);
}

/* ---- one call ------------------------------------------------------------------------------ */

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

/* The call's CALL record (and TIME record for a long call) into rec; its length. */
static size_t call_record(const rt__call *c, rt_raw_call rec[2], uint64_t t1)
{
    /* the counters of two cores may differ by a few ticks: a call never ends before it began */
    if (t1 < c->t0)
        t1 = c->t0;
    uint64_t dt = t1 - c->t0;
    memset(rec, 0, 2 * sizeof *rec);
    rec[0].type = RT_RAW_CALL;
    rec[0].fn = (uint16_t)c->fn;
    rec[0].t0 = c->t0;
    if (dt < RT_RAW_DT_LONG) {
        rec[0].dt = (uint32_t)dt;
        return sizeof rec[0];
    }
    rec[0].dt = RT_RAW_DT_LONG;
    rt_raw_time *tm = (rt_raw_time *)&rec[1];
    tm->type = RT_RAW_TIME;
    tm->t1 = t1;
    return 2 * sizeof *rec;
}

/* rt__end's other cases: a call that does not fit what is left of the buffer, a long one (a TIME
 * record follows its CALL), the bench build without the buffer. t1: the call's end, or
 * UINT64_MAX to take it here, after a full buffer went out. */
__attribute__((noinline)) static void end_slow(rt__call *c, uint64_t t1)
{
    rt__thread *t = c->t;
    /* A full buffer is written out before t1, inside the call: after it, the write (a
     * millisecond on a slow disk) would be recorded as the application's computation, and a
     * replay would charge it. */
    rt_raw_call rec[2];
    if ((size_t)(t->end - t->pos) < sizeof rec + t->scratch_len && t->pos != t->buf)
        restart(t);
    size_t n = call_record(c, rec, t1 == UINT64_MAX ? rt__now() : t1);
    if (RT__COST_OFF(BUFFER)) {
        /* the bench build measuring the buffer: records built, then dropped */
    } else if ((size_t)(t->end - t->pos) >= n + t->scratch_len) {
        memcpy(t->pos, rec, n);
        memcpy(t->pos + n, t->scratch, t->scratch_len);
        t->pos += n + t->scratch_len;
        commit(t);
    } else {
        write_direct(t, rec, n, t->scratch, t->scratch_len);
    }
}

/* The end of a call that fits the buffer (len bytes of records): its end time into *t1 and,
 * unless the call was too long for a CALL record alone (0: nothing written), its CALL record
 * and records written and published (1). block: the records go as one RT__END_COPY-byte copy
 * (rt__end's fast path), else slot by slot. */
static inline __attribute__((always_inline)) int end_short(rt__call *c, rt__thread *t, size_t len,
                                                           uint64_t *t1, int block)
{
    uint64_t now = rt__now();
    if (now < c->t0) /* the counters of two cores may differ by a few ticks */
        now = c->t0;
    *t1 = now;
    if (RT__UNLIKELY(now - c->t0 >= RT_RAW_DT_LONG))
        return 0;
    *(rt_raw_call *)(void *)t->pos = (rt_raw_call){
        .type = RT_RAW_CALL, .fn = (uint16_t)c->fn, .dt = (uint32_t)(now - c->t0), .t0 = c->t0};
    uint8_t *p = t->pos + sizeof(rt_raw_call);
    if (block)
        memcpy(p, t->scratch, RT__END_COPY);
    else
        for (size_t i = 0; i < len; i += RT_RAW_SLOT)
            memcpy(p + i, t->scratch + i, RT_RAW_SLOT);
    t->pos = p + len;
    commit(t);
    return 1;
}

/* rt__end's general case: a call that failed, does not fit what is left of the buffer, has more
 * records than the fast path copies or grew its scratch area, a completion call that took memory
 * for its requests, histogram-only mode, the bench build. */
__attribute__((noinline)) static void end_general(rt__call *c)
{
    rt__thread *t = c->t;
    if (RT__UNLIKELY(c->rc != MPI_SUCCESS)) /* an error returned (MPI_ERRORS_RETURN) */
        rt__call_failed(c);
    if (rt__g.tracing && t->fd >= 0 && !RT__COST_OFF(ENCODE)) {
        size_t len = t->scratch_len; /* whole slots */
        if (RT__LIKELY((size_t)(t->end - t->pos) >= sizeof(rt_raw_call) + len) &&
            !RT__COST_OFF(BUFFER)) {
            uint64_t t1;
            if (!end_short(c, t, len, &t1, 0))
                end_slow(c, t1); /* a long call: a TIME record follows its CALL */
        } else {
            end_slow(c, UINT64_MAX);
        }
    }
#ifdef RT__COST
    else if (rt__g.tracing && RT__COST_OFF(ENCODE))
        rt__cost_sink = rt__now(); /* the clock read is not the encoding's */
#endif
    if (t->scratch != t->scratch_inline && t->scratch_cap > RT__SCRATCH_KEEP) {
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

/* c->rc: what PMPI returned (the wrappers set it; the calls recorded without one, in
 * wrap_env.c, MPI_SUCCESS). The common cases inline here, with nothing to call, so nothing to
 * save: a call in histogram-only mode, and a traced call that succeeded, fits the buffer and
 * has at most RT__END_COPY bytes of records, which go as one fixed-size copy (the buffer has
 * that much room past its end, and the scratch area always holds that much: bytes past the
 * call's own are overwritten by the next call before they are committed), its end read from
 * the time-stamp counter where there is one (the other clock is a library call, whose
 * registers would have to be saved). Everything else: end_general. */
void rt__end(rt__call *c)
{
    rt__thread *t = c->t;
    size_t len = t->scratch_len; /* whole slots */
    if (RT__LIKELY(c->rc == MPI_SUCCESS && t->scratch_cap <= RT__SCRATCH_KEEP && !c->heap &&
                   !c->heap2)) {
        if (!rt__g.tracing) { /* histogram-only mode: nothing to write */
            t->depth = 0;
            return;
        }
        if (RT__LIKELY(t->fd >= 0 && len <= RT__END_COPY &&
                       (size_t)(t->end - t->pos) >= sizeof(rt_raw_call) + len &&
                       RT__END_CLOCK_INLINE && !RT__COST_OFF(ENCODE) && !RT__COST_OFF(BUFFER))) {
            uint64_t t1;
            if (RT__LIKELY(end_short(c, t, len, &t1, 1))) {
                t->depth = 0;
                return;
            }
        }
    }
    end_general(c);
}
