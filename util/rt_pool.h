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
#include <stdlib.h>
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

/* Every object free again (none handed out), the array and its room kept. */
static inline void rt_pool_clear(rt_pool *p)
{
    p->n = 0;
    p->free = RT_POOL_NONE;
}

/* The slow part of RT_POOL_GET: grows the array (*itemsp) and hands out its next new object. */
uint32_t rt_pool_grow_(rt_pool *p, void *itemsp, size_t size, uint32_t first, rt_realloc_fn re)
    __attribute__((cold));

/* The same for the pools on the C heap (re NULL), inline for the reason rt_vec_grow_heap_ is. */
static inline uint32_t rt_pool_grow_heap_(rt_pool *p, void *itemsp, size_t size, uint32_t first)
{
    /* RT_POOL_NONE is never an index: the room stops one short of it */
    if (p->n >= RT_POOL_NONE - 1 ||
        rt_vec_grow_heap_(itemsp, &p->room, sizeof p->room, (uint64_t)p->n + 1, size, first) < 0)
        return RT_POOL_NONE;
    if (p->room == RT_POOL_NONE)
        p->room--;
    return p->n++;
}

static inline uint32_t rt_pool_grow_any_(rt_pool *p, void *itemsp, size_t size, uint32_t first,
                                         rt_realloc_fn re)
{
    return re ? rt_pool_grow_(p, itemsp, size, first, re)
              : rt_pool_grow_heap_(p, itemsp, size, first);
}

/* The free list's head taken; link is the head object's link field. */
static inline uint32_t rt_pool_pop_(rt_pool *p, const uint32_t *link)
{
    uint32_t i = p->free;
    p->free = *link;
    return i;
}

static inline void rt_pool_push_(rt_pool *p, uint32_t *link, uint32_t i)
{
    *link = p->free;
    p->free = i;
}

/*
 * The index of a free object of the pool (pool an rt_pool, items its T * array, link the name
 * of T's uint32_t field that chains free objects): a freed one, else a new one, the array
 * grown through re (rt_realloc_fn; first objects at the first growth) when it is full. Its
 * contents are what they were (freed) or what re left (new). RT_POOL_NONE: no memory.
 *
 * Macros, so that the link is reached as items[i].link, a typed field: the compiler then
 * knows a get or a put writes no pointer and keeps the owner's array pointers in registers
 * (through memcpy at an offset it could not). pool and items are evaluated more than once.
 */
#define RT_POOL_GET(pool, items, link, first, re)                                    \
    ((pool).free != RT_POOL_NONE ? rt_pool_pop_(&(pool), &(items)[(pool).free].link) \
     : (pool).n < (pool).room                                                        \
         ? (pool).n++                                                                \
         : rt_pool_grow_any_(&(pool), &(items), sizeof *(items), (first), (re)))
/* Gives object i back to the pool (its link field is overwritten); i is evaluated twice. */
#define RT_POOL_PUT(pool, items, link, i) rt_pool_push_(&(pool), &(items)[(i)].link, (i))

#endif /* RT_POOL_H */
