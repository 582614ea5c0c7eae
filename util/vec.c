/* Growable arrays (rt_vec.h). */
#include <stdlib.h>
#include <string.h>

#include "rt_error.h"
#include "rt_vec.h"

void *rt_vec_realloc(void *p, size_t old, size_t bytes)
{
    (void)old;
    return realloc(p, bytes ? bytes : 1);
}

/* The room count is read and written at its own width, so that one function serves arrays
 * whose count is a uint32_t as well as those whose count is a size_t. */
static uint64_t room_get(const void *room, size_t width)
{
    switch (width) {
    case 1: {
        uint8_t v;
        memcpy(&v, room, sizeof v);
        return v;
    }
    case 2: {
        uint16_t v;
        memcpy(&v, room, sizeof v);
        return v;
    }
    case 4: {
        uint32_t v;
        memcpy(&v, room, sizeof v);
        return v;
    }
    default: {
        uint64_t v;
        memcpy(&v, room, sizeof v);
        return v;
    }
    }
}

static void room_set(void *room, size_t width, uint64_t n)
{
    uint8_t v8 = (uint8_t)n;
    uint16_t v16 = (uint16_t)n;
    uint32_t v32 = (uint32_t)n;
    switch (width) {
    case 1:
        memcpy(room, &v8, sizeof v8);
        break;
    case 2:
        memcpy(room, &v16, sizeof v16);
        break;
    case 4:
        memcpy(room, &v32, sizeof v32);
        break;
    default:
        memcpy(room, &n, sizeof n);
        break;
    }
}

int rt_vec_grow_(void *items, void *room, size_t room_size, uint64_t need, size_t size,
                 size_t first, rt_realloc_fn re)
{
    uint64_t have = room_get(room, room_size);
    if (need <= have)
        return 0;
    uint64_t type_max = room_size >= 8 ? UINT64_MAX : (UINT64_C(1) << (8 * room_size)) - 1;
    size_t max = type_max > SIZE_MAX ? SIZE_MAX : (size_t)type_max;
    size_t next = rt_vec_next((size_t)have, need, first, size, max);
    if (!next)
        return -RT_E_NOMEM;
    void *p;
    memcpy(&p, items, sizeof p);
    void *q = (re ? re : rt_vec_realloc)(p, (size_t)have * size, next * size);
    if (!q)
        return -RT_E_NOMEM;
    memcpy(items, &q, sizeof q);
    room_set(room, room_size, next);
    return 0;
}
