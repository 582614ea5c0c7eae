/*
 * Free-list pools of fixed-size objects named by index: the engine's requests, pending
 * messages, collectives, queue chunks and buckets. The objects live in one typed array of the
 * owner's (so that s->reqs[r] stays one indexed load), which grows by doubling (rt_vec.h);
 * a freed object's index is chained through a uint32_t field of the object itself, so taking
 * and giving back are O(1) and allocate nothing. The most recently freed object is taken
 * first: it is the one most likely still in the cache.
 *
 * Get and put are inline: with the object size and the link's offset known where they are
 * called, they compile to what a hand-written free list would.
 */
#ifndef RT_POOL_H
#define RT_POOL_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "rt_vec.h"

#define RT_POOL_NONE UINT32_MAX

typedef struct rt_pool {
    uint32_t n;    /* objects handed out at least once: items[0 .. n) */
    uint32_t room; /* objects the array has room for */
    uint32_t free; /* the first free object; RT_POOL_NONE: none */
} rt_pool;

#define RT_POOL_INIT       \
    {                      \
        0, 0, RT_POOL_NONE \
    }

/* The slow part of RT_POOL_GET: grows the array and hands out its next new object. */
uint32_t rt_pool_grow_(rt_pool *p, void *items, size_t size, uint32_t first, rt_realloc_fn re);

static inline uint32_t rt_pool_get_(rt_pool *p, void *items, size_t size, size_t link,
                                    uint32_t first, rt_realloc_fn re)
{
    uint32_t i = p->free;
    if (i != RT_POOL_NONE) {
        char *a;
        memcpy(&a, items, sizeof a);
        memcpy(&p->free, a + (size_t)i * size + link, sizeof p->free);
        return i;
    }
    if (p->n < p->room)
        return p->n++;
    return rt_pool_grow_(p, items, size, first, re);
}

static inline void rt_pool_put_(rt_pool *p, void *items, size_t size, size_t link, uint32_t i)
{
    memcpy((char *)items + (size_t)i * size + link, &p->free, sizeof p->free);
    p->free = i;
}

/* The byte offset of the uint32_t field link in an object of items (refused at compile time
 * when the field is not 4 bytes wide). */
#define RT_POOL_LINK(items, link) \
    (offsetof(__typeof__(*(items)), link) + 0 * sizeof(char[sizeof((items)->link) == 4 ? 1 : -1]))

/* The index of a free object of the pool (pool an rt_pool, items its T * array, link the name
 * of T's uint32_t field that chains free objects): a freed one, else a new one, the array
 * grown through re (rt_realloc_fn; first objects at the first growth) when it is full. Its
 * contents are what they were (freed) or what re left (new). RT_POOL_NONE: no memory. */
#define RT_POOL_GET(pool, items, link, first, re) \
    rt_pool_get_(&(pool), &(items), sizeof *(items), RT_POOL_LINK(items, link), (first), (re))
/* Gives object i back to the pool (its link field is overwritten). */
#define RT_POOL_PUT(pool, items, link, i) \
    rt_pool_put_(&(pool), (items), sizeof *(items), RT_POOL_LINK(items, link), (i))

#endif /* RT_POOL_H */
