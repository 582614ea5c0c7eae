/*
 * The engine's event queue: events ordered by (time, push order), as a binary heap of
 * (time, sequence number) would order them, but built for replays where thousands of events
 * share one exact time (every rank of a collective round, every rank leaving a barrier).
 *
 * Each distinct pending time has a bucket: a FIFO of events in push order. Because an event
 * pushed later always has the larger sequence number, FIFO order within a bucket is exactly
 * the (time, seq) order, so no sequence number is stored. Only the distinct times sit in a
 * binary heap; a push to a time already pending is a hash lookup (usually not even that: the
 * bucket last pushed to is remembered) and an append. A pop takes the head of the earliest
 * bucket, so long runs of events at one time are read in order from memory, and the engine
 * can look ahead of the head to prefetch what the next events will touch (sim_queue_ahead).
 *
 * A bucket's FIFO is a list of 64-byte chunks of 15 entries (kind << 30 | index) from one
 * pool, so a run is read one cache line per 15 events.
 */
#include <stdlib.h>

#include "rt__sim.h"

#define ENT_IDX_MASK SIM_QIDX_MASK

static uint32_t chunk_new(sim_queue *q)
{
    uint32_t c;
    if (q->chunk_free != SIM_NONE) {
        c = q->chunk_free;
        q->chunk_free = q->chunks[c].next;
    } else {
        if (q->nchunks == q->chunks_cap) {
            uint32_t cap = q->chunks_cap ? q->chunks_cap * 2 : 1024;
            /* cache-line aligned, so that a chunk is one line */
            sim_qchunk *p = cap > q->chunks_cap
                                ? sim_realloc_lines(q->chunks, (size_t)q->chunks_cap * sizeof *p,
                                                    (size_t)cap * sizeof *p)
                                : NULL;
            if (!p)
                return SIM_NONE;
            q->chunks = p;
            q->chunks_cap = cap;
        }
        c = q->nchunks++;
    }
    q->chunks[c].next = SIM_NONE;
    return c;
}

static uint32_t bucket_new(sim_queue *q, uint64_t time)
{
    uint32_t b;
    if (q->bucket_free != SIM_NONE) {
        b = q->bucket_free;
        q->bucket_free = q->buckets[b].head;
    } else {
        if (q->nbuckets == q->buckets_cap) {
            uint32_t cap = q->buckets_cap ? q->buckets_cap * 2 : 256;
            sim_bucket *p =
                cap > q->buckets_cap ? realloc(q->buckets, (size_t)cap * sizeof *p) : NULL;
            if (!p)
                return SIM_NONE;
            q->buckets = p;
            q->buckets_cap = cap;
        }
        b = q->nbuckets++;
    }
    uint32_t c = chunk_new(q);
    if (c == SIM_NONE) {
        q->buckets[b].head = q->bucket_free;
        q->bucket_free = b;
        return SIM_NONE;
    }
    q->buckets[b] = (sim_bucket){time, c, c, 0, 0};
    return b;
}

/* ---- the heap of distinct times --------------------------------------------------------- */

static int times_push(sim_queue *q, uint64_t time, uint32_t b)
{
    if (q->ntimes == q->times_cap) {
        size_t cap = q->times_cap ? q->times_cap * 2 : 256;
        sim_qtime *h = realloc(q->times, cap * sizeof *h);
        if (!h)
            return -RT_E_NOMEM;
        q->times = h;
        q->times_cap = cap;
    }
    size_t i = q->ntimes++;
    while (i) {
        size_t p = (i - 1) / 2;
        if (q->times[p].time <= time)
            break;
        q->times[i] = q->times[p];
        i = p;
    }
    q->times[i] = (sim_qtime){time, b};
    return 0;
}

static void times_pop(sim_queue *q)
{
    sim_qtime last = q->times[--q->ntimes];
    size_t i = 0, n = q->ntimes;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= n)
            break;
        if (c + 1 < n && q->times[c + 1].time < q->times[c].time)
            c++;
        if (q->times[c].time >= last.time)
            break;
        q->times[i] = q->times[c];
        i = c;
    }
    if (n)
        q->times[i] = last;
}

/* ---- push, pop ------------------------------------------------------------------------ */

int sim_queue_push_slow(sim *s, uint64_t time, uint8_t kind, uint32_t idx)
{
    sim_queue *q = &s->q;
    if (idx > ENT_IDX_MASK)
        return sim_fail(s, RT_E_NOMEM, "engine queue: index %u out of range", (unsigned)idx);
    uint32_t b = q->last;
    if (b == SIM_NONE || q->buckets[b].time != time) {
        int created;
        uint64_t *v = sim_map_put(&q->by_time, time, 0, &created);
        if (!v)
            return sim_fail(s, RT_E_NOMEM, "out of memory (engine queue)");
        if (created) {
            b = bucket_new(q, time);
            if (b == SIM_NONE || times_push(q, time, b) < 0) {
                sim_map_del(&q->by_time, time, 0);
                return sim_fail(s, RT_E_NOMEM, "out of memory (engine queue)");
            }
            *v = b;
        } else {
            b = (uint32_t)*v;
        }
        q->last = b;
    }
    sim_bucket *bk = &q->buckets[b];
    if (bk->tail_n == SIM_QCHUNK) {
        uint32_t c = chunk_new(q);
        if (c == SIM_NONE)
            return sim_fail(s, RT_E_NOMEM, "out of memory (engine queue)");
        bk = &q->buckets[b];
        q->chunks[bk->tail].next = c;
        bk->tail = c;
        bk->tail_n = 0;
    }
    q->chunks[bk->tail].ent[bk->tail_n++] = (uint32_t)kind << 30 | idx;
    q->n++;
    return 0;
}

/* sim_queue_pop took the last entry of its chunk, or of its bucket: free what is used up. */
void sim_queue_popped(sim_queue *q)
{
    uint32_t b = q->times[0].bucket;
    sim_bucket *bk = &q->buckets[b];
    sim_qchunk *c = &q->chunks[bk->head];
    if (bk->head == bk->tail && bk->head_n == bk->tail_n) {
        /* the time is done: drop its bucket */
        c->next = q->chunk_free;
        q->chunk_free = bk->head;
        times_pop(q);
        sim_map_del(&q->by_time, bk->time, 0);
        bk->head = q->bucket_free;
        q->bucket_free = b;
        if (q->last == b)
            q->last = SIM_NONE;
    } else if (bk->head_n == SIM_QCHUNK) {
        uint32_t next = c->next;
        c->next = q->chunk_free;
        q->chunk_free = bk->head;
        bk->head = next;
        bk->head_n = 0;
    }
}

/* The bucket that will most likely be popped after b: b's heap children hold the next
 * smallest times when b is the first. SIM_NONE when b is not the first or has no successor. */
static uint32_t bucket_after(const sim_queue *q, uint32_t b)
{
    if (b != q->times[0].bucket || q->ntimes < 2)
        return SIM_NONE;
    size_t c = q->ntimes > 2 && q->times[2].time < q->times[1].time ? 2 : 1;
    return q->times[c].bucket;
}

int sim_queue_ahead(sim_queue *q, uint32_t dist, uint32_t *ent)
{
    if (!q->ntimes)
        return 0;
    sim_qcursor *c = &q->ahead;
    if (c->left < 0) {
        /* (re)start dist events behind the head of the earliest bucket, or at its end */
        const sim_bucket *bk = &q->buckets[q->times[0].bucket];
        c->bucket = q->times[0].bucket;
        c->chunk = bk->head;
        c->pos = bk->head_n;
        c->left = 0;
        for (uint32_t i = 0; i < dist; i++) {
            if (c->chunk == bk->tail && c->pos + 1u >= bk->tail_n)
                break;
            if (++c->pos == SIM_QCHUNK) {
                c->chunk = q->chunks[c->chunk].next;
                c->pos = 0;
            }
            c->left++;
        }
    } else {
        const sim_bucket *bk = &q->buckets[c->bucket];
        if (c->chunk == bk->tail && c->pos + 1u >= bk->tail_n) {
            /* at the end of its bucket: go on into the bucket that comes next */
            uint32_t nb = bucket_after(q, c->bucket);
            if (nb == SIM_NONE)
                return 0;
            c->bucket = nb;
            c->chunk = q->buckets[nb].head;
            c->pos = q->buckets[nb].head_n;
        } else if (++c->pos == SIM_QCHUNK) {
            c->chunk = q->chunks[c->chunk].next;
            c->pos = 0;
        }
        c->left++;
    }
    *ent = q->chunks[c->chunk].ent[c->pos];
    return 1;
}

void sim_queue_init(sim_queue *q)
{
    *q = (sim_queue){.chunk_free = SIM_NONE, .bucket_free = SIM_NONE, .last = SIM_NONE};
    q->ahead.left = -1;
}

void sim_queue_free(sim_queue *q)
{
    sim_free_lines(q->chunks, (size_t)q->chunks_cap * sizeof *q->chunks);
    free(q->buckets);
    free(q->times);
    sim_map_free(&q->by_time);
    sim_queue_init(q);
}
