/*
 * The group handles the program holds, for the HANDLE events of their life (rt_event.h): each
 * handle has an id on its rank, from 1 in the order the rank first saw it, and a count of the
 * references the program holds to it. An MPI may return one handle more than once (MPICH's
 * MPI_Comm_group of a communicator returns its cached group each time, with one more
 * reference); it keeps its id until the program freed it as often, then the handle may come
 * back as a new group with a new id.
 *
 * Group calls are rare and local, so one lock guards the table under MPI_THREAD_MULTIPLE, and
 * none is taken otherwise.
 */
#include <pthread.h>
#include <string.h>

#include "rt__tracer.h"
#include "rt_hash.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static rt_hmap live;         /* the handle's bits -> id << 32 | references */
static uint64_t next_id = 1; /* ids past UINT32_MAX are not given: those handles are not followed */

static uint64_t key_of(MPI_Group g)
{
    uint64_t k = 0;
    memcpy(&k, &g, sizeof g < sizeof k ? sizeof g : sizeof k);
    return k;
}

static void take(void)
{
    if (rt__g.mt)
        pthread_mutex_lock(&lock);
}

static void give(void)
{
    if (rt__g.mt)
        pthread_mutex_unlock(&lock);
}

uint64_t rt__group_made(MPI_Group group)
{
    if (group == MPI_GROUP_NULL || group == MPI_GROUP_EMPTY)
        return 0;
    uint64_t id = 0;
    take();
    int created;
    uint64_t *v = rt_hmap_put1(&live, key_of(group), &created);
    if (v && created) {
        if (next_id <= UINT32_MAX) {
            *v = next_id++ << 32 | 1;
            id = *v >> 32;
        } else {
            rt_hmap_del1(&live, key_of(group)); /* out of ids: not followed */
        }
    } else if (v) {
        if ((uint32_t)*v < UINT32_MAX) /* (references past 2^32 - 1 are not counted) */
            (*v)++;
        id = *v >> 32;
    }
    give();
    return id;
}

uint64_t rt__group_freed(MPI_Group group)
{
    uint64_t id = 0;
    take();
    uint64_t *v = rt_hmap_get1(&live, key_of(group));
    if (v) {
        id = *v >> 32;
        if ((uint32_t)*v > 1)
            (*v)--;
        else
            rt_hmap_del1(&live, key_of(group));
    }
    give();
    return id;
}

void rt__groups_free(void)
{
    rt_hmap_free(&live);
    next_id = 1;
}
