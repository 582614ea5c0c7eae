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

/* Reallocates p (allocated with old bytes; NULL and 0 at first) to bytes; NULL when there is
 * no memory, p then kept. rt_vec_realloc is realloc; the engine passes its own, which puts
 * arrays on cache lines (or huge pages) and zeroes what is new. */
typedef void *(*rt_realloc_fn)(void *p, size_t old, size_t bytes);
void *rt_vec_realloc(void *p, size_t old, size_t bytes);

/* The room to grow an array of room items of size bytes to, so that it holds need (> room):
 * twice room (first when room is 0), need when that is more; never more than max items nor
 * than size_t bytes. 0: need items do not fit. Inline: pure arithmetic, which growth paths
 * inside hot loops can do without a call. */
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

/* What RT_VEC_RESERVE calls when the room is short: items points to the array pointer, room
 * to the count (room_size bytes wide). 0 or -RT_E_NOMEM. */
int rt_vec_grow_(void *items, void *room, size_t room_size, uint64_t need, size_t size,
                 size_t first, rt_realloc_fn re);

/* need <= room, as a function: a macro comparing them would warn for constants. */
static inline int rt_vec_fits_(uint64_t need, uint64_t room)
{
    return need <= room;
}

/* Room for need items in the array (items, room): items a T * lvalue, room an unsigned integer
 * lvalue (uint32_t, size_t, ...) holding how many items it has room for; first: the room of
 * the first allocation. 0, or -RT_E_NOMEM with nothing changed. */
#define RT_VEC_RESERVE(items, room, need, first) \
    RT_VEC_RESERVE_WITH(items, room, need, first, rt_vec_realloc)
/* The same with another allocator (rt_realloc_fn). */
#define RT_VEC_RESERVE_WITH(items, room, need, first, re) \
    (rt_vec_fits_((need), (room))                         \
         ? 0                                              \
         : rt_vec_grow_(&(items), &(room), sizeof(room), (need), sizeof *(items), (first), (re)))

#endif /* RT_VEC_H */
