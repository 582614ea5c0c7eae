/* Free-list pools (rt_pool.h): the growth, out of the inline path. */
#include "rt_error.h"
#include "rt_pool.h"

uint32_t rt_pool_grow_(rt_pool *p, void *itemsp, size_t size, uint32_t first, rt_realloc_fn re)
{
    /* RT_POOL_NONE is never an index: the room stops one short of it */
    if (p->n >= RT_POOL_NONE - 1 ||
        rt_vec_grow_(itemsp, &p->room, sizeof p->room, (uint64_t)p->n + 1, size, first, re) < 0)
        return RT_POOL_NONE;
    if (p->room == RT_POOL_NONE)
        p->room--;
    return p->n++;
}
