/*
 * Resource leaks (retrace check, class leak, docs/check.md): windows a rank created and had not
 * freed when it called MPI_Finalize. The trace records the creation of a window (WIN_CREATE,
 * with the creating call and its time) and its MPI_Win_free (WIN_FREE), each with the window's
 * id, on every member. Communicators and groups are not checked: their frees are not recorded
 * with the handle they free (docs/check.md, "Not checked yet").
 *
 * A window is collective: one finding per window names the ranks that left it, and the
 * creating call of the first of them.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "rt__check.h"
#include "rt_hash.h"
#include "rt_vec.h"

struct chk_leak {
    rt_hmap at;     /* (rank, window) -> index in made */
    rt_event *made; /* the WIN_CREATE of each window alive; kind 0 once freed */
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

int chk_leak_event(chk_leak *k, const rt_event *ev)
{
    if (ev->kind == RT_EV_WIN_FREE) {
        uint64_t *v = rt_hmap_get(&k->at, ev->rank, ev->comm);
        if (v) {
            k->made[*v].kind = 0;
            rt_hmap_del(&k->at, ev->rank, ev->comm);
        }
        return 0;
    }
    if (ev->kind != RT_EV_WIN_CREATE)
        return 0;
    int created;
    uint64_t *v = rt_hmap_put(&k->at, ev->rank, ev->comm, &created);
    if (!v)
        return -RT_E_NOMEM;
    if (!created) { /* the id again without a free between: the later creation stands */
        k->made[*v] = *ev;
        return 0;
    }
    if (RT_VEC_RESERVE(k->made, k->made_room, (uint64_t)k->nmade + 1, 16)) {
        rt_hmap_del(&k->at, ev->rank, ev->comm);
        return -RT_E_NOMEM;
    }
    *v = k->nmade;
    k->made[k->nmade++] = *ev;
    return 0;
}

static int by_window(const void *pa, const void *pb)
{
    const rt_event *a = pa, *b = pb;
    if (a->comm != b->comm)
        return a->comm < b->comm ? -1 : 1;
    return a->rank < b->rank ? -1 : a->rank > b->rank;
}

/* One window's creations left, made[0 .. n), by rank: "ranks 0, 1" (the first 16, then how
 * many more), the call of the first. */
static int report(chk *c, const rt_event *made, size_t n)
{
    chk_text ranks = {.len = 0}, where = {.len = 0}, calls = {.len = 0};
    for (size_t i = 0; i < n && i < 16; i++)
        chk_add(&ranks, "%s%" PRIu32, i ? ", " : "", made[i].rank);
    if (n > 16)
        chk_add(&ranks, " and %zu more", n - 16);
    chk_add(&where, "window %" PRIu32, made[0].comm);
    chk_add_call(&calls, &made[0]);
    return chk_find(c, RT_CHK_LEAK, ranks.s, where.s, calls.s,
                    n > 1 ? "the window was not freed (MPI_Win_free) when these ranks called "
                            "MPI_Finalize"
                          : "the window was not freed (MPI_Win_free) when the rank called "
                            "MPI_Finalize");
}

int chk_leak_report(chk *c, chk_leak *k, const chk_rank *ranks)
{
    size_t n = 0;
    for (size_t i = 0; i < k->nmade; i++) { /* the windows left by ranks that finalized */
        const chk_rank *r = &ranks[k->made[i].rank];
        if (k->made[i].kind && r->finalized && !r->ended_pending)
            k->made[n++] = k->made[i];
    }
    k->nmade = n;
    rt_hmap_clear(&k->at); /* its indices are gone */
    if (n > 1)             /* (qsort takes no NULL, even for nothing) */
        qsort(k->made, n, sizeof *k->made, by_window);
    for (size_t i = 0, j; i < n; i = j) {
        for (j = i + 1; j < n && k->made[j].comm == k->made[i].comm; j++)
            ;
        int rc = report(c, &k->made[i], j - i);
        if (rc)
            return rc;
    }
    return 0;
}
