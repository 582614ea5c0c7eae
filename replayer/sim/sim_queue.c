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
    /* cache-line aligned, so that a chunk is one line */
    uint32_t c = RT_POOL_GET(q->chunkp, q->chunks, next, 1024, sim_realloc_lines);
    if (c != RT_POOL_NONE)
        q->chunks[c].next = SIM_NONE;
    return c;
}

static uint32_t bucket_new(sim_queue *q, uint64_t time)
{
    /* a free bucket's head links it to the next free one */
    uint32_t b = RT_POOL_GET(q->bucketp, q->buckets, head, 256, NULL);
    if (b == RT_POOL_NONE)
        return SIM_NONE;
    uint32_t c = chunk_new(q);
    if (c == SIM_NONE) {
        RT_POOL_PUT(q->bucketp, q->buckets, head, b);
        return SIM_NONE;
    }
    q->buckets[b] = (sim_bucket){time, c, c, 0, 0};
    return b;
}

/* ---- the heap of distinct times --------------------------------------------------------- */

static int times_push(sim_queue *q, uint64_t time, uint32_t b)
{
    if (RT_VEC_RESERVE(q->times, q->times_cap, (uint64_t)q->ntimes + 1, 256) < 0)
        return -RT_E_NOMEM;
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
        uint64_t *v = rt_hmap_put(&q->by_time, time, 0, &created);
        if (!v)
            return sim_fail(s, RT_E_NOMEM, "out of memory (engine queue)");
        if (created) {
            b = bucket_new(q, time);
            if (b == SIM_NONE || times_push(q, time, b) < 0) {
                rt_hmap_del(&q->by_time, time, 0);
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
        RT_POOL_PUT(q->chunkp, q->chunks, next, bk->head);
        times_pop(q);
        rt_hmap_del(&q->by_time, bk->time, 0);
        RT_POOL_PUT(q->bucketp, q->buckets, head, b);
        if (q->last == b)
            q->last = SIM_NONE;
    } else if (bk->head_n == SIM_QCHUNK) {
        uint32_t next = c->next;
        RT_POOL_PUT(q->chunkp, q->chunks, next, bk->head);
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
    *q = (sim_queue){.chunkp = RT_POOL_INIT, .bucketp = RT_POOL_INIT, .last = SIM_NONE};
    q->ahead.left = -1;
}

void sim_queue_free(sim_queue *q)
{
    sim_free_lines(q->chunks, (size_t)q->chunkp.room * sizeof *q->chunks);
    free(q->buckets);
    free(q->times);
    rt_hmap_free(&q->by_time);
    sim_queue_init(q);
}
