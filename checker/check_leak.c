/*
 * Resource leaks (retrace check, class leak, docs/check.md): windows and communicators a rank
 * made and had not freed when it called MPI_Finalize. The trace records the creation of a window
 * (WIN_CREATE, with the creating call and its time) and its MPI_Win_free (WIN_FREE), each with
 * the window's id, on every member; and a communicator's making and its MPI_Comm_free
 * (COMM_HANDLE, op create and free) on every member that got it. MPI_COMM_WORLD and
 * MPI_COMM_SELF are never made. And the group handles of each rank (HANDLE events of ops
 * group_made and group_free, with the handle's id on its rank): an MPI may give one handle
 * several times, each to be freed, so a group is left while it was made more often than freed.
 *
 * Windows and communicators are made collectively: one finding per window or communicator names
 * the ranks that left it, and the creating call of the first of them. Groups are local, their
 * ids too, but SPMD programs make the same groups in the same order everywhere: the ranks that
 * left a group of the same id made by the same call share one finding.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "rt__check.h"
#include "rt_hash.h"
#include "rt_vec.h"

struct chk_leak {
    rt_hmap at;     /* (what << 32 | rank, object id) -> index in made */
    rt_event *made; /* the WIN_CREATE, COMM_HANDLE create or HANDLE group_made of each alive
                     * (kind 0 once freed); of a group, bytes counts the references held */
    size_t nmade, made_room;
};

enum { WINDOW, COMMUNICATOR, GROUP };

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

/* Which object an event of the pass is about, and its id. */
static int what(const rt_event *ev)
{
    return ev->kind == RT_EV_COMM_HANDLE ? COMMUNICATOR : ev->kind == RT_EV_HANDLE ? GROUP : WINDOW;
}

static uint64_t object(const rt_event *ev)
{
    return what(ev) == GROUP ? ev->req : ev->comm;
}

int chk_leak_event(chk_leak *k, const rt_event *ev)
{
    uint64_t key = (uint64_t)what(ev) << 32 | ev->rank;
    if (ev->kind == RT_EV_WIN_FREE || (ev->kind == RT_EV_COMM_HANDLE && ev->op == RT_COMMH_FREE) ||
        (ev->kind == RT_EV_HANDLE && ev->op == RT_HANDLE_GROUP_FREE)) {
        uint64_t *v = rt_hmap_get(&k->at, key, object(ev));
        if (v && what(ev) == GROUP && k->made[*v].bytes > 1) {
            k->made[*v].bytes--; /* one reference given back, others held */
        } else if (v) {
            k->made[*v].kind = 0;
            rt_hmap_del(&k->at, key, object(ev));
        }
        return 0;
    }
    if (ev->kind != RT_EV_WIN_CREATE &&
        (ev->kind != RT_EV_COMM_HANDLE || ev->op != RT_COMMH_CREATE || ev->comm == RT_COMM_WORLD ||
         ev->comm == RT_COMM_SELF) &&
        (ev->kind != RT_EV_HANDLE || ev->op != RT_HANDLE_GROUP_MADE))
        return 0;
    int created;
    uint64_t *v = rt_hmap_put(&k->at, key, object(ev), &created);
    if (!v)
        return -RT_E_NOMEM;
    if (!created && what(ev) == GROUP) {
        /* One more reference to the same handle. A free is taken to give back the oldest
         * (programs get, use and free in order), so the latest making is among those left:
         * the one a finding names. */
        uint64_t refs = k->made[*v].bytes;
        k->made[*v] = *ev;
        k->made[*v].bytes = refs < UINT64_MAX ? refs + 1 : refs;
        return 0;
    }
    if (!created) { /* the id again without a free between: the later creation stands */
        k->made[*v] = *ev;
        return 0;
    }
    if (RT_VEC_RESERVE(k->made, k->made_room, (uint64_t)k->nmade + 1, 16)) {
        rt_hmap_del(&k->at, key, object(ev));
        return -RT_E_NOMEM;
    }
    *v = k->nmade;
    k->made[k->nmade] = *ev;
    k->made[k->nmade++].bytes = 1;
    return 0;
}

/* Windows, then communicators, then groups; each by id (and a group by its making call), then
 * by rank. */
static int by_object(const void *pa, const void *pb)
{
    const rt_event *a = pa, *b = pb;
    if (what(a) != what(b))
        return what(a) - what(b);
    if (object(a) != object(b))
        return object(a) < object(b) ? -1 : 1;
    if (what(a) == GROUP && a->call != b->call)
        return a->call < b->call ? -1 : 1;
    return a->rank < b->rank ? -1 : a->rank > b->rank;
}

/* 1 when a and b are the same object (by_object's order but for the rank). */
static int same_object(const rt_event *a, const rt_event *b)
{
    return what(a) == what(b) && object(a) == object(b) && (what(a) != GROUP || a->call == b->call);
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
    if (what(&made[0]) == GROUP)
        return chk_find(c, RT_CHK_LEAK, ranks.s, "", calls.s,
                        n > 1 ? "the group was not freed (MPI_Group_free) when these ranks "
                                "called MPI_Finalize"
                        : made[0].bytes > 1
                            ? "the group was not freed (MPI_Group_free, as often as MPI gave "
                              "the handle) when the rank called MPI_Finalize"
                            : "the group was not freed (MPI_Group_free) when the rank called "
                              "MPI_Finalize");
    if (what(&made[0]) == COMMUNICATOR) {
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
        for (j = i + 1; j < n && same_object(&k->made[j], &k->made[i]); j++)
            ;
        int rc = report(c, &k->made[i], j - i);
        if (rc)
            return rc;
    }
    return 0;
}
