/* Growable arrays (rt_vec.h): growth through another allocator. */
#include "rt_vec.h"

void *rt_vec_realloc(void *p, size_t old, size_t bytes)
{
    (void)old;
    return realloc(p, bytes ? bytes : 1);
}

int rt_vec_grow_(void *items, void *room, size_t room_size, uint64_t need, size_t size,
                 size_t first, rt_realloc_fn re)
{
    uint64_t have = rt_vec_room_get_(room, room_size);
    if (need <= have)
        return 0;
    size_t next = rt_vec_want_(room, room_size, need, size, first);
    if (!next)
        return -RT_E_NOMEM;
    void *p;
    memcpy(&p, items, sizeof p);
    void *q = (re ? re : rt_vec_realloc)(p, (size_t)have * size, next * size);
    if (!q)
        return -RT_E_NOMEM;
    memcpy(items, &q, sizeof q);
    rt_vec_room_set_(room, room_size, next);
    return 0;
}

int rt_cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}
