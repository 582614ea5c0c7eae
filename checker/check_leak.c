/*
 * Resource leaks (retrace check, class leak, docs/check.md): windows and communicators a rank
 * made and had not freed when it called MPI_Finalize. The trace records the creation of a window
 * (WIN_CREATE, with the creating call and its time) and its MPI_Win_free (WIN_FREE), each with
 * the window's id, on every member; and a communicator's making and its MPI_Comm_free
 * (COMM_HANDLE, op create and free) on every member that got it. MPI_COMM_WORLD and
 * MPI_COMM_SELF are never made. Groups are not checked: the trace does not record them
 * (docs/check.md, "Not checked yet").
 *
 * Both are made collectively: one finding per window or communicator names the ranks that left
 * it, and the creating call of the first of them.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "rt__check.h"
#include "rt_hash.h"
#include "rt_vec.h"

struct chk_leak {
    rt_hmap at;     /* (comm bit << 32 | rank, window or communicator) -> index in made */
    rt_event *made; /* the WIN_CREATE or COMM_HANDLE create of each alive; kind 0 once freed */
    size_t nmade, made_room;
};

chk_leak *chk_leak_new(void)
{
    return calloc(1, sizeof(chk_leak));
}

void chk_leak_free(chk_leak *k)
{
    if (!k)
        return;
    rt_hmap_free(&k->at);
    free(k->made);
    free(k);
}

/* 1 for a communicator's COMM_HANDLE, 0 for a window's event. */
static int is_comm(const rt_event *ev)
{
    return ev->kind == RT_EV_COMM_HANDLE;
}

int chk_leak_event(chk_leak *k, const rt_event *ev)
{
    uint64_t key = (uint64_t)is_comm(ev) << 32 | ev->rank;
    if (ev->kind == RT_EV_WIN_FREE || (ev->kind == RT_EV_COMM_HANDLE && ev->op == RT_COMMH_FREE)) {
        uint64_t *v = rt_hmap_get(&k->at, key, ev->comm);
        if (v) {
            k->made[*v].kind = 0;
            rt_hmap_del(&k->at, key, ev->comm);
        }
        return 0;
    }
    if (ev->kind != RT_EV_WIN_CREATE &&
        (ev->kind != RT_EV_COMM_HANDLE || ev->op != RT_COMMH_CREATE || ev->comm == RT_COMM_WORLD ||
         ev->comm == RT_COMM_SELF))
        return 0;
    int created;
    uint64_t *v = rt_hmap_put(&k->at, key, ev->comm, &created);
    if (!v)
        return -RT_E_NOMEM;
    if (!created) { /* the id again without a free between: the later creation stands */
        k->made[*v] = *ev;
        return 0;
    }
    if (RT_VEC_RESERVE(k->made, k->made_room, (uint64_t)k->nmade + 1, 16)) {
        rt_hmap_del(&k->at, key, ev->comm);
        return -RT_E_NOMEM;
    }
    *v = k->nmade;
    k->made[k->nmade++] = *ev;
    return 0;
}

/* Windows, then communicators; each by id, then by rank. */
static int by_object(const void *pa, const void *pb)
{
    const rt_event *a = pa, *b = pb;
    if (is_comm(a) != is_comm(b))
        return is_comm(a) - is_comm(b);
    if (a->comm != b->comm)
        return a->comm < b->comm ? -1 : 1;
    return a->rank < b->rank ? -1 : a->rank > b->rank;
}

/* One window's or communicator's creations left, made[0 .. n), by rank: "ranks 0, 1" (the first
 * 16, then how many more), the call of the first. */
static int report(chk *c, const rt_event *made, size_t n)
{
    chk_text ranks = {.len = 0}, where = {.len = 0}, calls = {.len = 0};
    for (size_t i = 0; i < n && i < 16; i++)
        chk_add(&ranks, "%s%" PRIu32, i ? ", " : "", made[i].rank);
    if (n > 16)
        chk_add(&ranks, " and %zu more", n - 16);
    chk_add_call(&calls, &made[0]);
    if (is_comm(&made[0])) {
        chk_add_comm(&where, made[0].comm);
        return chk_find(c, RT_CHK_LEAK, ranks.s, where.s, calls.s,
                        n > 1 ? "the communicator was not freed (MPI_Comm_free) when these "
                                "ranks called MPI_Finalize"
                              : "the communicator was not freed (MPI_Comm_free) when the rank "
                                "called MPI_Finalize");
    }
    chk_add(&where, "window %" PRIu32, made[0].comm);
    return chk_find(c, RT_CHK_LEAK, ranks.s, where.s, calls.s,
                    n > 1 ? "the window was not freed (MPI_Win_free) when these ranks called "
                            "MPI_Finalize"
                          : "the window was not freed (MPI_Win_free) when the rank called "
                            "MPI_Finalize");
}

int chk_leak_report(chk *c, chk_leak *k, const chk_rank *ranks)
{
    size_t n = 0;
    for (size_t i = 0; i < k->nmade; i++) { /* what ranks that finalized left */
        const chk_rank *r = &ranks[k->made[i].rank];
        if (k->made[i].kind && r->finalized && !r->ended_pending)
            k->made[n++] = k->made[i];
    }
    k->nmade = n;
    rt_hmap_clear(&k->at); /* its indices are gone */
    if (n > 1)             /* (qsort takes no NULL, even for nothing) */
        qsort(k->made, n, sizeof *k->made, by_object);
    for (size_t i = 0, j; i < n; i = j) {
        for (j = i + 1; j < n && k->made[j].comm == k->made[i].comm &&
                        is_comm(&k->made[j]) == is_comm(&k->made[i]);
             j++)
            ;
        int rc = report(c, &k->made[i], j - i);
        if (rc)
            return rc;
    }
    return 0;
}
