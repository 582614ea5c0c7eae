/*
 * Growable arrays: the one growth rule of retrace. An array is a typed pointer and the count
 * of items it has room for, in any unsigned integer type. It grows by doubling, so that
 * appending n items costs O(n) copies, and every size is checked before anything is
 * allocated: a room whose bytes would not fit size_t, or whose count would not fit the room's
 * own type, is refused (-RT_E_NOMEM) and the array is left as it was.
 */
#ifndef RT_VEC_H
#define RT_VEC_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rt_error.h"

/* Reallocates p (allocated with old bytes; NULL and 0 at first) to bytes; NULL when there is
 * no memory, p then kept. rt_vec_realloc is realloc; the engine passes its own, which puts
 * arrays on cache lines (or huge pages) and zeroes what is new. */
typedef void *(*rt_realloc_fn)(void *p, size_t old, size_t bytes);
void *rt_vec_realloc(void *p, size_t old, size_t bytes);

/* The room to grow an array of room items of size bytes to, so that it holds need (> room):
 * twice room (first when room is 0), need when that is more; never more than max items nor
 * than size_t bytes. 0: need items do not fit. */
static inline size_t rt_vec_next(size_t room, uint64_t need, size_t first, size_t size, size_t max)
{
    if (size && max > SIZE_MAX / size)
        max = SIZE_MAX / size;
    if (need > max)
        return 0;
    size_t next = !room ? first : room > max / 2 ? max : room * 2;
    if (next > max)
        next = max;
    return next < need ? (size_t)need : next;
}

/* The room count is read and written at its own width (room_size bytes), so that one rule
 * serves arrays whose count is a uint32_t as well as those whose count is a size_t. */
static inline uint64_t rt_vec_room_get_(const void *room, size_t room_size)
{
    uint8_t v8;
    uint16_t v16;
    uint32_t v32;
    uint64_t v64;
    switch (room_size) {
    case 1:
        return memcpy(&v8, room, 1), v8;
    case 2:
        return memcpy(&v16, room, 2), v16;
    case 4:
        return memcpy(&v32, room, 4), v32;
    default:
        return memcpy(&v64, room, 8), v64;
    }
}

static inline void rt_vec_room_set_(void *room, size_t room_size, uint64_t n)
{
    uint8_t v8 = (uint8_t)n;
    uint16_t v16 = (uint16_t)n;
    uint32_t v32 = (uint32_t)n;
    switch (room_size) {
    case 1:
        memcpy(room, &v8, 1);
        break;
    case 2:
        memcpy(room, &v16, 2);
        break;
    case 4:
        memcpy(room, &v32, 4);
        break;
    default:
        memcpy(room, &n, 8);
        break;
    }
}

/* The room the array should have for need items, 0 when they do not fit (rt_vec_next with the
 * room's type as the limit). */
static inline size_t rt_vec_want_(const void *room, size_t room_size, uint64_t need, size_t size,
                                  size_t first)
{
    uint64_t type_max = room_size >= 8 ? UINT64_MAX : (UINT64_C(1) << (8 * room_size)) - 1;
    size_t max = type_max > SIZE_MAX ? SIZE_MAX : (size_t)type_max;
    return rt_vec_next((size_t)rt_vec_room_get_(room, room_size), need, first, size, max);
}

/* What RT_VEC_RESERVE_WITH calls when the room is short: items points to the array pointer,
 * room to the count. 0 or -RT_E_NOMEM. */
int rt_vec_grow_(void *items, void *room, size_t room_size, uint64_t need, size_t size,
                 size_t first, rt_realloc_fn re);

/* The same on the C heap, inline: GCC knows that realloc touches no memory of the caller's,
 * so a hot loop that may grow an array keeps the caller's fields in registers, where an
 * out-of-line call would make it reload them on every turn. */
static inline int rt_vec_grow_heap_(void *items, void *room, size_t room_size, uint64_t need,
                                    size_t size, size_t first)
{
    size_t next = rt_vec_want_(room, room_size, need, size, first);
    void *p, *q;
    memcpy(&p, items, sizeof p);
    if (!next || !(q = realloc(p, next * size)))
        return -RT_E_NOMEM;
    memcpy(items, &q, sizeof q);
    rt_vec_room_set_(room, room_size, next);
    return 0;
}

/* need <= room, as a function: a macro comparing them would warn for constants. */
static inline int rt_vec_fits_(uint64_t need, uint64_t room)
{
    return need <= room;
}

/* Room for need items in the array (items, room): items a T * lvalue, room an unsigned integer
 * lvalue (uint32_t, size_t, ...) holding how many items it has room for; first: the room of
 * the first allocation. 0, or -RT_E_NOMEM with nothing changed. */
#define RT_VEC_RESERVE(items, room, need, first) \
    (rt_vec_fits_((need), (room))                \
         ? 0                                     \
         : rt_vec_grow_heap_(&(items), &(room), sizeof(room), (need), sizeof *(items), (first)))
/* The same with another allocator (rt_realloc_fn). */
#define RT_VEC_RESERVE_WITH(items, room, need, first, re) \
    (rt_vec_fits_((need), (room))                         \
         ? 0                                              \
         : rt_vec_grow_(&(items), &(room), sizeof(room), (need), sizeof *(items), (first), (re)))

/* qsort's comparison of two uint64_t, ascending (one for every array of 64-bit keys). */
int rt_cmp_u64(const void *a, const void *b);

#endif /* RT_VEC_H */
