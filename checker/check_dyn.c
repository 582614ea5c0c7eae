/*
 * Memory of dynamic windows (retrace check, class rma-epoch, docs/check.md): a window made by
 * MPI_Win_create_dynamic holds no memory until its ranks attach some (MPI 4.0 section 12.2.4),
 * and the rules are the MPI standard's:
 *  - MPI_Win_attach and MPI_Win_detach only on a window of MPI_Win_create_dynamic;
 *  - the regions attached to one window do not overlap ("multiple (but non-overlapping)
 *    memory regions may be attached to the same window");
 *  - MPI_Win_detach names the base address of a region attached before and not detached yet;
 *  - an RMA transfer to a dynamic window touches memory the target attached to it.
 * The first three are each rank's own: they are checked as the streaming pass hands the
 * events over. The last pairs ranks: each transfer to a dynamic window is kept with the bytes
 * its RMA_TARGET names (an address, rt_event.h) and, at the end, compared with everything its
 * target attached to that window over the window's life. The trace does not say when an
 * origin's transfer reached the target (two clocks), so bytes attached at any time while the
 * window lived count as attached: a finding is certain, a transfer that raced its target's
 * attach or detach is not found.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "rt__check.h"
#include "rt_checked.h"
#include "rt_hash.h"
#include "rt_vec.h"

/* Transfers to dynamic windows kept at most (88 bytes each), and regions attached (88 bytes
 * each); past either, the rest are counted and a note says so. Past the regions, no transfer is
 * compared (a region left out would make findings of correct transfers), and no later attach or
 * detach is checked (the detach of a region left out would look like no region's base). */
#define DYN_MAX_XFERS (1u << 20)
#define DYN_MAX_REGIONS (1u << 21)
/* Regions a rank holds attached to one window at once, compared with its next attach or
 * detach; past this the rank's further attaches and detaches of the window are not checked
 * (a note says so), though what they attach still counts for the transfers. */
#define DYN_MAX_ALIVE 4096u

/* One rank's view of one window id. */
typedef struct dyn_win {
    uint32_t gen;          /* windows created with this id so far (ids are reused) */
    uint8_t live;          /* created and not freed */
    uint8_t dynamic;       /* by MPI_Win_create_dynamic */
    uint8_t has_pend;      /* pend is a transfer waiting for its RMA_TARGET */
    uint8_t overflow;      /* more than DYN_MAX_ALIVE regions attached at once */
    rt_event pend, create; /* create: the last WIN_CREATE (kind 0: none seen) */
    uint32_t *alive;       /* the regions attached and not detached: indexes in regions */
    uint32_t nalive, alive_room;
} dyn_win;

/* A region attached by rank to window (win, gen): [lo, hi). */
typedef struct dyn_region {
    uint32_t rank, win, gen;
    uint64_t lo, hi;
    rt_event attach;
} dyn_region;

/* A transfer to a dynamic window: the target's bytes [lo, hi). */
typedef struct dyn_xfer {
    uint32_t target, win, gen; /* the target's world rank */
    uint64_t lo, hi;
    rt_event ev;
} dyn_xfer;

struct chk_dyn {
    rt_hmap at; /* (rank, win) -> index in wins */
    dyn_win *wins;
    size_t nwins, wins_room;
    dyn_region *regions;
    size_t nregions, regions_room;
    dyn_xfer *xfers;
    size_t nxfers, xfers_room;
    uint64_t dropped;         /* transfers past DYN_MAX_XFERS */
    uint64_t dropped_regions; /* attaches and detaches from the first past DYN_MAX_REGIONS */
    int any_attach;           /* the trace records MPI_Win_attach at all */
    uint64_t unchecked;       /* attaches and detaches past DYN_MAX_ALIVE */
};

chk_dyn *chk_dyn_new(void)
{
    return calloc(1, sizeof(chk_dyn));
}

void chk_dyn_free(chk_dyn *k)
{
    if (!k)
        return;
    rt_hmap_free(&k->at);
    for (size_t i = 0; i < k->nwins; i++)
        free(k->wins[i].alive);
    free(k->wins);
    free(k->regions);
    free(k->xfers);
    free(k);
}

static dyn_win *win_of(chk_dyn *k, uint32_t rank, uint32_t win)
{
    size_t i =
        chk_entry(&k->at, &k->wins, &k->nwins, &k->wins_room, sizeof *k->wins, rank, win, NULL);
    return i == SIZE_MAX ? NULL : &k->wins[i];
}

/* A finding about rank ev->rank's call ev (and the call before it, when given); target: the
 * world rank of a transfer's target, named too, or UINT32_MAX. */
static int find_in(chk *c, const rt_event *ev, const rt_event *before, uint32_t target,
                   const char *why)
{
    chk_text ranks = {.len = 0}, where = {.len = 0}, calls = {.len = 0};
    if (target == UINT32_MAX || target == ev->rank)
        chk_add(&ranks, "%" PRIu32, ev->rank);
    else
        chk_add(&ranks, "%" PRIu32 ", %" PRIu32, ev->rank < target ? ev->rank : target,
                ev->rank < target ? target : ev->rank);
    chk_add(&where, "window %" PRIu32, ev->comm);
    if (before) {
        chk_add_call(&calls, before);
        chk_add(&calls, "; ");
    }
    chk_add_call(&calls, ev);
    return chk_find(c, RT_CHK_RMA_EPOCH, ranks.s, where.s, calls.s, why);
}

static int find_one(chk *c, const rt_event *ev, const rt_event *before, const char *why)
{
    return find_in(c, ev, before, UINT32_MAX, why);
}

/* Which of w's attached regions overlaps [lo, hi), or starts at lo when hi is 0: its place in
 * w->alive, or UINT32_MAX. A rank holds few regions at once (DYN_MAX_ALIVE at most here). */
static uint32_t alive_at(const chk_dyn *k, const dyn_win *w, uint64_t lo, uint64_t hi)
{
    for (uint32_t i = 0; i < w->nalive; i++) {
        const dyn_region *r = &k->regions[w->alive[i]];
        if (hi ? r->lo < hi && lo < r->hi : r->lo == lo)
            return i;
    }
    return UINT32_MAX;
}

/* Keeps region [lo, hi) of ev's rank and window for the transfers; alive: also among the regions
 * its next attaches and detaches are compared with. */
static int keep_region(chk_dyn *k, dyn_win *w, const rt_event *ev, uint64_t hi, int alive)
{
    if (k->nregions >= DYN_MAX_REGIONS) {
        k->dropped_regions++;
        return 0;
    }
    if (RT_VEC_RESERVE(k->regions, k->regions_room, (uint64_t)k->nregions + 1, 16))
        return -RT_E_NOMEM;
    if (alive && !w->overflow && w->nalive >= DYN_MAX_ALIVE) {
        w->overflow = 1;
        k->unchecked++;
    } else if (alive && !w->overflow) {
        if (RT_VEC_RESERVE(w->alive, w->alive_room, (uint64_t)w->nalive + 1, 4))
            return -RT_E_NOMEM;
        w->alive[w->nalive++] = (uint32_t)k->nregions;
    }
    k->regions[k->nregions++] = (dyn_region){
        .rank = ev->rank, .win = ev->comm, .gen = w->gen, .lo = ev->req, .hi = hi, .attach = *ev};
    return 0;
}

static int attach_event(chk *c, chk_dyn *k, dyn_win *w, const rt_event *ev)
{
    k->any_attach = 1;
    if (w->create.kind && !w->live)
        return find_one(c, ev, &w->create,
                        ev->op == RT_WATTACH_ATTACH
                            ? "MPI_Win_attach on a window this rank has freed"
                            : "MPI_Win_detach on a window this rank has freed");
    if (w->create.kind && !w->dynamic)
        return find_one(c, ev, &w->create,
                        ev->op == RT_WATTACH_ATTACH
                            ? "MPI_Win_attach on a window not made by MPI_Win_create_dynamic: "
                              "only dynamic windows take attached memory"
                            : "MPI_Win_detach on a window not made by MPI_Win_create_dynamic: "
                              "only dynamic windows take attached memory");
    if (k->dropped_regions) { /* past DYN_MAX_REGIONS: nothing more is compared */
        k->dropped_regions++;
        return 0;
    }
    if (w->overflow) {
        k->unchecked++;
        if (ev->op == RT_WATTACH_DETACH)
            return 0;
    } else if (ev->op == RT_WATTACH_DETACH) {
        uint32_t i = alive_at(k, w, ev->req, 0);
        if (i == UINT32_MAX)
            return find_one(c, ev, NULL,
                            "MPI_Win_detach of an address that is not the base of a region "
                            "attached to the window (and not detached since): MPI requires the "
                            "base a Win_attach gave");
        w->alive[i] = w->alive[--w->nalive];
        return 0;
    }
    uint64_t hi = rt_add_sat(ev->req, ev->bytes);
    if (ev->bytes && !w->overflow) {
        uint32_t i = alive_at(k, w, ev->req, hi);
        if (i != UINT32_MAX) {
            const dyn_region *r = &k->regions[w->alive[i]];
            rt_event before = r->attach; /* keep_region may move k->regions */
            char why[256];
            uint64_t from = r->lo > ev->req ? r->lo : ev->req, to = r->hi < hi ? r->hi : hi;
            snprintf(why, sizeof why,
                     "the memory attached overlaps a region of %" PRIu64
                     " bytes attached before and not detached (%" PRIu64
                     " bytes shared): the regions of a window may not overlap",
                     r->hi - r->lo, to - from);
            /* MPI took it all the same: its bytes are window memory for the transfers, and its
             * base may be detached (MPICH 4.0.2 does) */
            int rc = keep_region(k, w, ev, hi, 1);
            return rc ? rc : find_one(c, ev, &before, why);
        }
    }
    return keep_region(k, w, ev, hi, 1);
}

/* The transfer w waits with gets its target's bytes from disp. */
static int keep_xfer(chk_dyn *k, const rt_defs *defs, dyn_win *w, uint64_t disp)
{
    const rt_event *o = &w->pend;
    w->has_pend = 0;
    uint64_t n = chk_target_bytes(o->kind, o->bytes, o->rbytes);
    const rt_win_def *wd = rt_defs_win(defs, o->comm);
    const rt_comm_def *cd = wd ? rt_defs_comm(defs, wd->comm) : NULL;
    /* Nothing touched, a target the trace does not resolve, or address 0 (MPI_BOTTOM): there the
     * target datatype holds the addresses, which the trace does not have. */
    if (n == 0 || disp == 0 || !cd || o->peer < 0 || (uint32_t)o->peer >= cd->size)
        return 0;
    if (k->nxfers >= DYN_MAX_XFERS) {
        k->dropped++;
        return 0;
    }
    if (RT_VEC_RESERVE(k->xfers, k->xfers_room, (uint64_t)k->nxfers + 1, 64))
        return -RT_E_NOMEM;
    k->xfers[k->nxfers++] = (dyn_xfer){.target = cd->members[o->peer],
                                       .win = o->comm,
                                       .gen = w->gen,
                                       .lo = disp,
                                       .hi = rt_add_sat(disp, n),
                                       .ev = *o};
    return 0;
}

int chk_dyn_event(chk *c, chk_dyn *k, const rt_defs *defs, const rt_event *ev)
{
    if (ev->kind == RT_EV_RMA_OP_COMPLETE || ev->kind == RT_EV_RMA_COLL_BEGIN)
        return 0;
    dyn_win *w = win_of(k, ev->rank, ev->comm);
    if (!w)
        return -RT_E_NOMEM;
    if (w->has_pend && ev->kind != RT_EV_RMA_TARGET)
        w->has_pend = 0; /* a transfer without its target: nothing to compare */
    switch (ev->kind) {
    case RT_EV_WIN_CREATE:
        w->gen++;
        w->nalive = 0;
        w->overflow = 0;
        w->live = 1;
        w->dynamic = ev->call == RT_FN_Win_create_dynamic;
        w->create = *ev;
        return 0;
    case RT_EV_WIN_FREE: /* what is attached is detached with it */
        w->nalive = 0;
        w->overflow = 0;
        w->live = 0;
        return 0;
    case RT_EV_WIN_ATTACH: /* (a base is a created window's memory, not attached) */
        return ev->op == RT_WATTACH_BASE ? 0 : attach_event(c, k, w, ev);
    case RT_EV_RMA_PUT:
    case RT_EV_RMA_GET:
    case RT_EV_RMA_ATOMIC:
        if (w->live && w->dynamic) {
            w->has_pend = 1;
            w->pend = *ev;
        }
        return 0;
    case RT_EV_RMA_TARGET:
        return w->has_pend ? keep_xfer(k, defs, w, ev->bytes) : 0;
    default:
        return 0;
    }
}

/* ---- the transfers against their targets' regions ------------------------------------------ */

static int region_order(const void *pa, const void *pb)
{
    const dyn_region *a = pa, *b = pb;
    if (a->rank != b->rank)
        return a->rank < b->rank ? -1 : 1;
    if (a->win != b->win)
        return a->win < b->win ? -1 : 1;
    if (a->gen != b->gen)
        return a->gen < b->gen ? -1 : 1;
    return a->lo < b->lo ? -1 : a->lo > b->lo;
}

static int key_cmp(uint32_t rank, uint32_t win, uint32_t gen, const dyn_region *r)
{
    if (rank != r->rank)
        return rank < r->rank ? -1 : 1;
    if (win != r->win)
        return win < r->win ? -1 : 1;
    return gen < r->gen ? -1 : gen > r->gen;
}

/* The first region of (rank, win, gen) in the sorted array; n when none. */
static size_t first_region(const chk_dyn *k, uint32_t rank, uint32_t win, uint32_t gen)
{
    size_t lo = 0, hi = k->nregions;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (key_cmp(rank, win, gen, &k->regions[mid]) > 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The regions sorted, each (rank, win, gen)'s merged in place into disjoint ranges (ranges that
 * overlap or touch become one). */
static void merge_regions(chk_dyn *k)
{
    if (k->nregions > 1)
        qsort(k->regions, k->nregions, sizeof *k->regions, region_order);
    size_t w = 0;
    for (size_t i = 0; i < k->nregions; i++) {
        const dyn_region *r = &k->regions[i];
        dyn_region *last = w ? &k->regions[w - 1] : NULL;
        if (last && !key_cmp(r->rank, r->win, r->gen, last) && r->lo <= last->hi) {
            if (r->hi > last->hi)
                last->hi = r->hi;
        } else {
            k->regions[w++] = *r;
        }
    }
    k->nregions = w;
}

/* Whether [x->lo, x->hi) lies in the target's merged ranges of the window; if not, the first
 * byte not covered in *gap; *any: whether the target attached anything there. */
static int covered(const chk_dyn *k, const dyn_xfer *x, uint64_t *gap, int *any)
{
    size_t i = first_region(k, x->target, x->win, x->gen), j = i;
    /* the last range of the key that starts at or below x->lo: binary search in [i, end) */
    size_t lo = i, hi = k->nregions;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const dyn_region *r = &k->regions[mid];
        if (!key_cmp(x->target, x->win, x->gen, r) && r->lo <= x->lo)
            lo = mid + 1;
        else
            hi = mid;
    }
    *any = j < k->nregions && !key_cmp(x->target, x->win, x->gen, &k->regions[j]);
    *gap = x->lo;
    if (lo > i && k->regions[lo - 1].hi > x->lo)
        *gap = k->regions[lo - 1].hi;
    return *gap >= x->hi;
}

int chk_dyn_report(chk *c, chk_dyn *k)
{
    int rc = 0;
    if (k->dropped_regions)
        rc = chk_note(c,
                      "rma-epoch: more than %u regions attached to dynamic windows: the %" PRIu64
                      " Win_attach and Win_detach calls from there on not checked, and no "
                      "transfer to a dynamic window compared with the memory attached",
                      DYN_MAX_REGIONS, k->dropped_regions);
    else if (!k->any_attach && k->nxfers)
        rc = chk_note(c, "rma-epoch: transfers to dynamic windows not compared with the memory "
                         "attached: the trace records no MPI_Win_attach (a trace of another "
                         "tool, or of retrace before it)");
    if (k->dropped_regions || !k->any_attach)
        k->nxfers = 0;
    merge_regions(k);
    for (size_t i = 0; !rc && i < k->nxfers; i++) {
        const dyn_xfer *x = &k->xfers[i];
        uint64_t gap;
        int any;
        if (covered(k, x, &gap, &any))
            continue;
        char why[320];
        uint64_t len = x->hi - x->lo;
        if (!any)
            snprintf(why, sizeof why,
                     "the target attached no memory to this dynamic window: the %" PRIu64
                     " bytes the transfer touches there are not window memory",
                     len);
        else if (gap == x->lo)
            snprintf(why, sizeof why,
                     "the %" PRIu64 " bytes the transfer touches at the target are not in "
                     "memory the target attached to this dynamic window",
                     len);
        else
            snprintf(why, sizeof why,
                     "the %" PRIu64 " bytes the transfer touches at the target run past the "
                     "memory the target attached to this dynamic window: only the first %" PRIu64
                     " of them are in it",
                     len, gap - x->lo);
        rc = find_in(c, &x->ev, NULL, x->target, why);
    }
    if (!rc && k->dropped)
        rc = chk_note(c,
                      "rma-epoch: only the first %u RMA transfers to dynamic windows compared "
                      "with the memory attached, %" PRIu64 " more left out",
                      DYN_MAX_XFERS, k->dropped);
    if (!rc && k->unchecked)
        rc = chk_note(c,
                      "rma-epoch: %" PRIu64 " Win_attach and Win_detach calls made while more than "
                      "%u regions were attached to the window: not compared with them",
                      k->unchecked, DYN_MAX_ALIVE);
    return rc;
}
