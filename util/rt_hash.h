/*
 * Hash tables: open addressing with linear probing in a power-of-two array, and backward-shift
 * deletion (no tombstones, so tables that see millions of inserts and deletes keep short
 * probe runs).
 *
 * Two layers. rt_hmap is the map most code wants: a key of two 64-bit words (or one) to a
 * 64-bit value. Below it, the rt_htab functions are the probing written once for tables whose
 * slots hold more than a value (the engine's channel table, a cache line per slot; the
 * tracer's requests): the table describes its slots with an rt_htab_ops, and the functions,
 * inline, compile to what a table written for that slot type would (the ops are constants
 * where they are called).
 */
#ifndef RT_HASH_H
#define RT_HASH_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rt_checked.h"
#include "rt_error.h"

/* ---- hash functions --------------------------------------------------------------------- */

/* One 64-bit key (MurmurHash3's finaliser: every input bit reaches every output bit). */
RT_WRAPS static inline uint64_t rt_hash_u64(uint64_t k)
{
    k ^= k >> 33;
    k *= UINT64_C(0xff51afd7ed558ccd);
    k ^= k >> 33;
    k *= UINT64_C(0xc4ceb9fe1a85ec53);
    return k ^ (k >> 33);
}

/* A pair of 64-bit keys. */
RT_WRAPS static inline uint64_t rt_hash_pair(uint64_t k1, uint64_t k2)
{
    uint64_t h = k1 * UINT64_C(0x9e3779b97f4a7c15) ^
                 (k2 + UINT64_C(0x632be59bd9b4e019)) * UINT64_C(0xbf58476d1ce4e5b9);
    return h ^ h >> 31;
}

/* ---- the probing, for any slot type ----------------------------------------------------- */

typedef struct rt_htab_ops {
    size_t size;                        /* bytes per slot */
    int (*empty)(const void *slot);     /* 1: the slot is free */
    void (*clear)(void *slot);          /* marks the slot free */
    uint64_t (*hash)(const void *slot); /* of the key the slot holds; home = hash & (cap - 1) */
    /* where the slots live: NULL, NULL for malloc and free */
    void *(*alloc)(size_t bytes);
    void (*release)(void *slots, size_t bytes);
} rt_htab_ops;

/* k1 of a free slot in tables keyed by (k1, k2): a key whose k1 is RT_HASH_EMPTY cannot be
 * stored (rt_hmap's one-key calls put their key in k2, so any 64-bit key can). */
#define RT_HASH_EMPTY UINT64_MAX

/* The ops of slots that begin with two 64-bit keys k1, k2 (k1 RT_HASH_EMPTY: free), hashed with
 * rt_hash_pair: rt_hmap's and the engine's channel table's. */
static inline int rt_htab_pair_empty(const void *slot)
{
    uint64_t k1;
    memcpy(&k1, slot, sizeof k1);
    return k1 == RT_HASH_EMPTY;
}

static inline void rt_htab_pair_clear(void *slot)
{
    uint64_t k1 = RT_HASH_EMPTY;
    memcpy(slot, &k1, sizeof k1);
}

static inline uint64_t rt_htab_pair_hash(const void *slot)
{
    uint64_t k[2];
    memcpy(k, slot, sizeof k);
    return rt_hash_pair(k[0], k[1]);
}

/* 1 when a table of cap slots holding n must grow before one more goes in: it would be more
 * than num/den full (cap 0: always). */
static inline int rt_htab_full(size_t n, size_t cap, unsigned num, unsigned den)
{
    return (n + 1) * den > cap * num;
}

/* The capacity after cap (a power of two, or 0): twice cap, first when 0; 0 when the bytes
 * of size each would not fit size_t. */
static inline size_t rt_htab_next_cap(size_t cap, size_t first, size_t size)
{
    size_t next = !cap ? first : cap <= SIZE_MAX / 2 ? cap * 2 : 0;
    return next > cap && next <= SIZE_MAX / size ? next : 0;
}

/* Removes the key of slot i from a table of cap slots: later members of its probe run move
 * back into the hole when their home slot does not lie cyclically in (hole, their place], so
 * every key stays reachable from its home, and keys of one home keep their order. Distances
 * on the ring of slots (j - home, j - i) are taken modulo cap: RT_WRAPS. */
RT_WRAPS static inline void rt_htab_erase(void *slots, size_t cap, size_t i, const rt_htab_ops *o)
{
    char *t = slots;
    size_t mask = cap - 1;
    for (size_t j = (i + 1) & mask;; j = (j + 1) & mask) {
        char *s = t + j * o->size;
        if (o->empty(s))
            break;
        size_t home = (size_t)o->hash(s) & mask;
        if (((j - home) & mask) >= ((j - i) & mask)) {
            memcpy(t + i * o->size, s, o->size);
            i = j;
        }
    }
    o->clear(t + i * o->size);
}

/* Marks every slot of to (tocap, a power of two) free, then moves every key of from
 * (fromcap slots) into it, in from's order, so keys of one home keep their order. */
static inline void rt_htab_rehash(void *to, size_t tocap, const void *from, size_t fromcap,
                                  const rt_htab_ops *o)
{
    char *t = to;
    const char *f = from;
    size_t mask = tocap - 1;
    for (size_t i = 0; i < tocap; i++)
        o->clear(t + i * o->size);
    for (size_t i = 0; i < fromcap; i++) {
        const char *s = f + i * o->size;
        if (o->empty(s))
            continue;
        size_t j = (size_t)o->hash(s) & mask;
        while (!o->empty(t + j * o->size))
            j = (j + 1) & mask;
        memcpy(t + j * o->size, s, o->size);
    }
}

/* Doubles the table at *slotsp of *cap slots (first slots when it has none): a new array, every
 * key moved, the old one released. 0, or -RT_E_NOMEM with the table unchanged. */
static inline int rt_htab_grow(void *slotsp, size_t *cap, size_t first, const rt_htab_ops *o)
{
    size_t next = rt_htab_next_cap(*cap, first, o->size);
    void *old, *t = !next ? NULL : o->alloc ? o->alloc(next * o->size) : malloc(next * o->size);
    if (!t)
        return -RT_E_NOMEM;
    memcpy(&old, slotsp, sizeof old);
    rt_htab_rehash(t, next, old, *cap, o);
    if (o->release)
        o->release(old, *cap * o->size);
    else
        free(old);
    memcpy(slotsp, &t, sizeof t);
    *cap = next;
    return 0;
}

/* ---- rt_hmap: (k1, k2) -> 64-bit value -------------------------------------------------- */

typedef struct rt_hmap_slot {
    uint64_t k1, k2, v;
} rt_hmap_slot;

typedef struct rt_hmap {
    rt_hmap_slot *slots;
    size_t cap, n; /* cap 0 or a power of two; at most 3/4 full */
} rt_hmap;

void rt_hmap_free(rt_hmap *m);
/* Removes every key, keeping the room. */
void rt_hmap_clear(rt_hmap *m);
/* The value of (k1, k2), NULL when absent. Valid until the next put or del. */
uint64_t *rt_hmap_get(const rt_hmap *m, uint64_t k1, uint64_t k2);
/* The value of (k1, k2), created with value 0 (*created = 1; created may be NULL) when absent.
 * NULL: no memory. k1 must not be RT_HASH_EMPTY (not checked: the engine puts on its hot
 * path). Valid until the next put or del. */
uint64_t *rt_hmap_put(rt_hmap *m, uint64_t k1, uint64_t k2, int *created);
/* Removes (k1, k2) if present. */
void rt_hmap_del(rt_hmap *m, uint64_t k1, uint64_t k2);

/* The same with one 64-bit key (any value). */
static inline uint64_t *rt_hmap_get1(const rt_hmap *m, uint64_t k)
{
    return rt_hmap_get(m, 0, k);
}
static inline uint64_t *rt_hmap_put1(rt_hmap *m, uint64_t k, int *created)
{
    return rt_hmap_put(m, 0, k, created);
}
static inline void rt_hmap_del1(rt_hmap *m, uint64_t k)
{
    rt_hmap_del(m, 0, k);
}

#endif /* RT_HASH_H */
