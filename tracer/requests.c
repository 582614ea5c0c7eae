/*
 * What the tracer remembers about each pending request, keyed by the MPI_Request handle.
 * MPI reuses handles once a request completes, so an entry lives exactly from the call that
 * creates the request to the call that completes or frees it.
 *
 * Open addressing with linear probing and backward-shift deletion, split into shards by
 * hash. Under MPI_THREAD_MULTIPLE each shard has its own lock (a request may complete on
 * another thread than the one that started it); otherwise no lock is taken at all.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "rt__tracer.h"
#include "rt_hash.h"

#define NSHARDS 64u
#define INITIAL_CAP 64u

typedef struct slot {
    uint64_t key; /* 0: empty */
    rt__req val;
} slot;

typedef struct shard {
    pthread_mutex_t lock;
    slot *slots;
    uint32_t cap, used, limit; /* limit: the used count that makes it grow */
} shard;

static shard shards[NSHARDS];
atomic_uint_fast64_t rt__req_ids;

static uint64_t key_of(MPI_Request h)
{
    uint64_t k = 0;
    memcpy(&k, &h, sizeof h < sizeof k ? sizeof h : sizeof k);
    return k + 1; /* never 0, whatever the handle's bits */
}

static uint64_t mix(uint64_t k)
{
    k ^= k >> 33;
    k *= UINT64_C(0xff51afd7ed558ccd);
    k ^= k >> 33;
    return k;
}

void rt__requests_init(void)
{
    for (unsigned i = 0; i < NSHARDS; i++) {
        pthread_mutex_init(&shards[i].lock, NULL);
        shards[i].slots = NULL;
        shards[i].cap = shards[i].used = shards[i].limit = 0;
    }
    atomic_store(&rt__req_ids, 1);
}

void rt__requests_free(void)
{
    for (unsigned i = 0; i < NSHARDS; i++) {
        for (uint32_t k = 0; k < shards[i].cap; k++) /* never completed, or persistent */
            if (shards[i].slots[k].key)
                free(shards[i].slots[k].val.rows);
        free(shards[i].slots);
        shards[i].slots = NULL;
        shards[i].cap = shards[i].used = shards[i].limit = 0;
    }
}

uint64_t rt__req_last_id(void)
{
    return atomic_load_explicit(&rt__req_ids, memory_order_relaxed) - 1;
}

/* The shard of a key (its hash in *h), locked under MPI_THREAD_MULTIPLE. */
static shard *shard_of(uint64_t key, uint64_t *h)
{
    *h = mix(key);
    shard *s = &shards[*h % NSHARDS];
    if (rt__g.mt)
        pthread_mutex_lock(&s->lock);
    return s;
}

static void shard_done(shard *s)
{
    if (rt__g.mt)
        pthread_mutex_unlock(&s->lock);
}

#define NONE UINT32_MAX

/* The slot of the oldest entry of key in s, or NONE. */
static uint32_t find_at(const shard *s, uint64_t key, uint64_t h)
{
    if (!s->cap)
        return NONE;
    uint32_t mask = s->cap - 1;
    for (uint32_t i = (uint32_t)(h >> 8) & mask;; i = (i + 1) & mask) {
        if (s->slots[i].key == key)
            return i;
        if (!s->slots[i].key)
            return NONE;
    }
}

static slot *find(shard *s, uint64_t key, uint64_t h)
{
    uint32_t i = find_at(s, key, h);
    return i == NONE ? NULL : &s->slots[i];
}

/* The frame of every look-up: the shard of handle, locked (shard_done unlocks it), and the
 * oldest entry of handle in it, or NULL. Inline: each caller is one function on its path. */
static inline __attribute__((always_inline)) slot *lookup(MPI_Request handle, shard **s)
{
    uint64_t key = key_of(handle), h;
    *s = shard_of(key, &h);
    return find(*s, key, h);
}

static int slot_empty(const void *e)
{
    return !((const slot *)e)->key;
}

static void slot_clear(void *e)
{
    ((slot *)e)->key = 0;
}

static uint64_t slot_hash(const void *e)
{
    return mix(((const slot *)e)->key) >> 8; /* the low bits chose the shard */
}

static const rt_htab_ops slot_ops = {
    .size = sizeof(slot), .empty = slot_empty, .clear = slot_clear, .hash = slot_hash};

/* Twice the room: 0, or -RT_E_RANGE (a shard holds at most 2^31 requests) or -RT_E_NOMEM. */
static int grow(shard *s)
{
    size_t cap = s->cap;
    if (cap > UINT32_MAX / 2)
        return -RT_E_RANGE;
    if (rt_htab_grow(&s->slots, &cap, INITIAL_CAP, &slot_ops) < 0)
        return -RT_E_NOMEM;
    s->cap = (uint32_t)cap;
    s->limit = s->cap / 4 * 3; /* at most three quarters full */
    return 0;
}

/* An empty slot for key in s (locked), taken: its record. */
static rt__req *take(shard *s, uint64_t key, uint64_t h)
{
    uint32_t mask = s->cap - 1;
    uint32_t i = (uint32_t)(h >> 8) & mask;
    while (s->slots[i].key)
        i = (i + 1) & mask;
    slot *e = &s->slots[i];
    e->key = key;
    s->used++;
    return &e->val;
}

/* rt__req_add under MPI_THREAD_MULTIPLE (the shard locked), or when the shard must grow. */
__attribute__((noinline)) static rt__req *add_slow(uint64_t key, uint64_t h)
{
    shard *s = &shards[h % NSHARDS];
    if (rt__g.mt)
        pthread_mutex_lock(&s->lock);
    int rc;
    if (s->used >= s->limit && (rc = grow(s)) < 0) {
        shard_done(s);
        if (rc == -RT_E_RANGE)
            rt__fail("rank %d: too many requests pending for the request table", rt__g.rank);
        else
            rt__fail("rank %d: out of memory for the request table", rt__g.rank);
        return NULL;
    }
    return take(s, key, h);
}

rt__req *rt__req_add(MPI_Request handle)
{
    if (handle == MPI_REQUEST_NULL || RT__COST_OFF(REQUESTS))
        return NULL;
    /* A handle may be pending more than once: MPICH hands out one shared handle for sends
     * that completed at once. Such entries queue up in probe order (the first found is
     * the oldest, and backward-shift deletion keeps that order), so each completion
     * claims the oldest. */
    uint64_t key = key_of(handle), h = mix(key);
    shard *s = &shards[h % NSHARDS];
    if (RT__UNLIKELY(rt__g.mt || s->used >= s->limit))
        return add_slow(key, h);
    return take(s, key, h); /* no lock, no call: nothing to save */
}

void rt__req_unlock(MPI_Request handle)
{
    uint64_t h = mix(key_of(handle));
    pthread_mutex_unlock(&shards[h % NSHARDS].lock);
}

void rt__req_put(MPI_Request handle, const rt__req *info)
{
    rt__req *q = rt__req_add(handle);
    if (q) {
        *q = *info;
        rt__req_added(handle);
    }
}

/* Backward-shift deletion keeps probe chains unbroken without tombstones, and the entries of
 * one handle in their order. Inline with slot_ops: no call on the completion path. 1. */
__attribute__((noinline)) static int erase_shift(shard *s, slot *e)
{
    rt_htab_erase(s->slots, s->cap, (size_t)(e - s->slots), &slot_ops);
    s->used--;
    return 1;
}

/* Erases slot i: at once when the slot after it is empty (a chain of one, the usual case),
 * else by shifting back the entries after it. 1. */
static inline __attribute__((always_inline)) int erase_at(shard *s, uint32_t i)
{
    if (RT__UNLIKELY(s->slots[(i + 1) & (s->cap - 1)].key))
        return erase_shift(s, &s->slots[i]);
    s->slots[i].key = 0;
    s->used--;
    return 1;
}

static int erase(shard *s, slot *e)
{
    return erase_at(s, (uint32_t)(e - s->slots));
}

/* rt__req_claim under MPI_THREAD_MULTIPLE, the shard locked. */
__attribute__((noinline)) static int claim_locked(MPI_Request handle, rt__req *out)
{
    shard *s;
    slot *e = lookup(handle, &s);
    if (e) {
        *out = e->val;
        if (!e->val.persistent)
            erase(s, e);
    }
    shard_done(s);
    return e != NULL;
}

int rt__req_claim(MPI_Request handle, rt__req *out)
{
    if (RT__COST_OFF(REQUESTS))
        return 0;
    if (RT__UNLIKELY(rt__g.mt))
        return claim_locked(handle, out);
    uint64_t key = key_of(handle), h = mix(key);
    shard *s = &shards[h % NSHARDS];
    uint32_t i = find_at(s, key, h);
    if (i == NONE)
        return 0;
    *out = s->slots[i].val;
    if (out->persistent)
        return 1;
    return erase_at(s, i); /* erase_shift, if at all, as a tail call: nothing to save */
}

void rt__req_unclaim(MPI_Request handle, const rt__req *q)
{
    if (!q->persistent)
        rt__req_put(handle, q);
}

void rt__req_done(MPI_Request handle)
{
    if (RT__COST_OFF(REQUESTS))
        return;
    shard *s;
    slot *e = lookup(handle, &s);
    if (e)
        e->val.active = 0;
    shard_done(s);
}

int rt__req_drop(MPI_Request handle, uint64_t *id)
{
    if (RT__COST_OFF(REQUESTS))
        return 0;
    shard *s;
    slot *e = lookup(handle, &s);
    int found = e != NULL;
    if (e) {
        *id = e->val.id;
        free(e->val.rows); /* a nonblocking collective freed before it completed */
        erase(s, e);
    }
    shard_done(s);
    return found;
}

/* rt__req_start (restart 0) and rt__req_restart (restart 1). */
static int req_start(MPI_Request handle, rt__req *out, int restart)
{
    if (RT__COST_OFF(REQUESTS))
        return 0;
    shard *s;
    slot *e = lookup(handle, &s);
    int rc = 0;
    if (e && e->val.persistent) {
        rc = e->val.active && !restart ? 2 : 1;
        if (rc == 1) { /* a new activation */
            e->val.active = 1;
            e->val.id = rt__req_next_id();
            e->val.parts_left = e->val.parts; /* partitioned: none ready yet, none arrived */
            e->val.arrived = 0;
        }
        *out = e->val;
    }
    shard_done(s);
    return rc;
}

int rt__req_start(MPI_Request handle, rt__req *out)
{
    return req_start(handle, out, 0);
}

int rt__req_restart(MPI_Request handle, rt__req *out)
{
    return req_start(handle, out, 1);
}

int rt__req_peek(MPI_Request handle, rt__req *out)
{
    if (handle == MPI_REQUEST_NULL || RT__COST_OFF(REQUESTS))
        return 0;
    shard *s;
    slot *e = lookup(handle, &s);
    if (e)
        *out = e->val;
    shard_done(s);
    return e != NULL;
}

int rt__req_pready(MPI_Request handle, uint64_t n, rt__req *out)
{
    if (handle == MPI_REQUEST_NULL || RT__COST_OFF(REQUESTS))
        return 0;
    shard *s;
    slot *e = lookup(handle, &s);
    int last = 0;
    if (e && e->val.part && e->val.kind == RT__RQ_SEND && e->val.active && e->val.parts_left) {
        /* More than were left is the program's error (a partition made ready twice): the
         * message still goes once, with the last of them. */
        e->val.parts_left = n >= e->val.parts_left ? 0 : e->val.parts_left - (uint32_t)n;
        last = !e->val.parts_left;
        if (last)
            *out = e->val;
    }
    shard_done(s);
    return last;
}

int rt__req_parrived(MPI_Request handle, rt__req *out)
{
    if (handle == MPI_REQUEST_NULL || RT__COST_OFF(REQUESTS))
        return 0;
    shard *s;
    slot *e = lookup(handle, &s);
    int first = 0;
    if (e && e->val.part && e->val.kind == RT__RQ_RECV && e->val.active && !e->val.arrived) {
        e->val.arrived = 1;
        *out = e->val;
        first = 1;
    }
    shard_done(s);
    return first;
}

int rt__req_move(MPI_Request handle, MPI_Request to)
{
    if (RT__COST_OFF(REQUESTS))
        return 0;
    shard *s;
    slot *e = lookup(handle, &s);
    rt__req q;
    if (e) {
        q = e->val;
        erase(s, e);
    }
    shard_done(s);
    if (e)
        rt__req_put(to, &q);
    return e != NULL;
}
