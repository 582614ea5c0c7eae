/*
 * The assertions of MPI_Win_fence, MPI_Win_post and MPI_Win_start (retrace check, class rma-epoch,
 * docs/check.md): what the program promised MPI about an epoch with the assert argument (MPI 4.0
 * section 12.5.5), against what the trace shows it did. The streaming pass gives every RMA event
 * of a rank that is not in a pending call here; the findings about one rank come at once, those
 * that pair ranks at the end.
 *
 * One rank, one window:
 *  - MPI_MODE_NOPRECEDE on a fence when the rank made RMA transfers on the window since its
 *    previous fence, outside lock and Win_start epochs ("the fence does not complete any
 *    sequence of locally issued RMA calls");
 *  - MPI_MODE_NOSUCCEED on a fence followed by an RMA transfer of the rank, outside lock and
 *    Win_start epochs, before its next fence ("the fence does not start any sequence of
 *    locally issued RMA calls").
 * Ranks together:
 *  - NOPRECEDE or NOSUCCEED given at the k-th fence of a window by some members and not by
 *    others ("if the assertion is given by any process in the window group, then it must be
 *    given by all processes in the group"): each member's k-th fence against the first the pass
 *    saw; one finding per window;
 *  - MPI_MODE_NOPUT on the k-th fence of target t, or on a Win_post of t, when an origin puts
 *    or accumulates to t in the epoch that follows (anything that writes: a put, an accumulate,
 *    a compare-and-swap, a get-accumulate or fetch-and-op whose operation is not MPI_NO_OP): the
 *    origin's transfers after its k-th fence and before its next, or in the access epoch matched
 *    to the post (the n-th Win_start of origin o naming t matches the n-th Win_post of t naming
 *    o, MPI 4.0 section 12.5.2);
 *  - MPI_MODE_NOCHECK given to a Win_start and not to its matching Win_post, or the other way
 *    round.
 * MPI_MODE_NOSTORE is checked elsewhere (check_buf.c), against the writes of MPI calls a trace
 * recorded with buffers shows: a local store of the program does not show in a trace.
 *
 * The instances that pair ranks (a fence of a window, a target's fence epoch with a NOPUT or a
 * write, a matched start and post) are kept, at most AS_MAX_PAIRS of them, about 180 bytes each;
 * past that, a note says how many were left out.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt__check.h"
#include "rt_hash.h"
#include "rt_vec.h"

#define AS_MAX_PAIRS (1u << 18)

/* One rank's use of one window. */
typedef struct as_win {
    uint32_t gen;    /* windows created with this id so far on the rank (ids are reused) */
    uint32_t nfence; /* fences of this window so far */
    uint32_t nlocks; /* targets locked (Win_lock) */
    uint8_t lock_all, start;
    uint8_t has_xfer;  /* xfer: the first transfer since the last fence, in its epoch */
    uint8_t nosucceed; /* fence: the last fence gave MPI_MODE_NOSUCCEED (not reported yet) */
    uint8_t has_pend;  /* pend: an atomic waiting for its RMA_TARGET (its reduction) */
    uint32_t pend_target;
    uint64_t pend_key;
    rt_event xfer, fence, pend;
} as_win;

/* The maps of the pairs: a fence of a window, a target's fence epoch, a start and a post. */
enum { AS_FENCE, AS_EPOCH, AS_PSCW };

/* a: the first member's fence (AS_FENCE), the target's NOPUT fence (AS_EPOCH) or its Win_post
 * (AS_PSCW); b: the origin's Win_start (AS_PSCW); w: the first write to the target in the epoch
 * (AS_EPOCH, AS_PSCW). */
typedef struct as_pair {
    rt_event a, b, w;
    uint8_t map, has_a, has_b, has_w;
} as_pair;

struct chk_assert {
    rt_hmap at; /* (rank, win) -> index in wins */
    as_win *wins;
    size_t nwins, wins_room;
    /* AS_FENCE: (win, gen << 32 | k) -> pair; the windows with a finding already: (win, gen) */
    rt_hmap fences, fence_done;
    /* AS_EPOCH: (win << 32 | target, gen << 32 | k) -> pair */
    rt_hmap epochs;
    /* AS_PSCW: (win << 32 | t, o << 32 | n) -> pair of t's n-th post naming o and o's n-th
     * start naming t; the starts and posts so far: (rank << 32 | win, other) -> how many named
     * the other */
    rt_hmap pscw, started, posted;
    as_pair *pairs; /* in the order the pass made them */
    size_t npairs, pairs_room;
    uint64_t dropped; /* instances past AS_MAX_PAIRS */
    unsigned given;   /* the assertion bits the trace holds anywhere */
};

chk_assert *chk_assert_new(void)
{
    return calloc(1, sizeof(chk_assert));
}

void chk_assert_free(chk_assert *k)
{
    if (!k)
        return;
    rt_hmap_free(&k->at);
    rt_hmap_free(&k->fences);
    rt_hmap_free(&k->fence_done);
    rt_hmap_free(&k->epochs);
    rt_hmap_free(&k->pscw);
    rt_hmap_free(&k->started);
    rt_hmap_free(&k->posted);
    free(k->wins);
    free(k->pairs);
    free(k);
}

static as_win *win_of(chk_assert *k, uint32_t rank, uint32_t win)
{
    size_t i =
        chk_entry(&k->at, &k->wins, &k->nwins, &k->wins_room, sizeof *k->wins, rank, win, NULL);
    return i == SIZE_MAX ? NULL : &k->wins[i];
}

/* The pair of map at (k1, k2), made when new; NULL when past AS_MAX_PAIRS, or out of memory
 * (*nomem set). */
static as_pair *pair_of(chk_assert *k, unsigned map, uint64_t k1, uint64_t k2, int *nomem)
{
    rt_hmap *m = map == AS_FENCE ? &k->fences : map == AS_EPOCH ? &k->epochs : &k->pscw;
    uint64_t *v = rt_hmap_get(m, k1, k2);
    if (v)
        return &k->pairs[*v];
    if (k->npairs >= AS_MAX_PAIRS) {
        k->dropped++;
        return NULL;
    }
    if (RT_VEC_RESERVE(k->pairs, k->pairs_room, (uint64_t)k->npairs + 1, 64) ||
        !(v = rt_hmap_put(m, k1, k2, NULL))) {
        *nomem = 1;
        return NULL;
    }
    *v = k->npairs;
    memset(&k->pairs[k->npairs], 0, sizeof *k->pairs);
    k->pairs[k->npairs].map = (uint8_t)map;
    return &k->pairs[k->npairs++];
}

/* The world rank of rank t of window win's communicator; -1 when the trace cannot tell. */
static int64_t world_of(const rt_defs *defs, uint32_t win, int32_t t)
{
    const rt_win_def *w = rt_defs_win(defs, win);
    const rt_comm_def *c = w ? rt_defs_comm(defs, w->comm) : NULL;
    if (!c || t < 0 || (uint32_t)t >= c->size)
        return -1;
    return c->members[t];
}

/* A finding about calls a and b, shown lower rank first, then in the order they were made. */
static int find(chk *c, const rt_event *a, const rt_event *b, const char *why)
{
    if (b->rank < a->rank || (b->rank == a->rank && b->time < a->time)) {
        const rt_event *t = a;
        a = b;
        b = t;
    }
    chk_text ranks = {.len = 0}, where = {.len = 0}, calls = {.len = 0};
    if (a->rank == b->rank)
        chk_add(&ranks, "%" PRIu32, a->rank);
    else
        chk_add(&ranks, "%" PRIu32 ", %" PRIu32, a->rank, b->rank);
    chk_add(&where, "window %" PRIu32, a->comm);
    chk_add_call(&calls, a);
    chk_add(&calls, "; ");
    chk_add_call(&calls, b);
    return chk_find(c, RT_CHK_RMA_EPOCH, ranks.s, where.s, calls.s, why);
}

/* ---- one rank ------------------------------------------------------------------------------ */

/* A fence: NOPRECEDE against the transfers before it; compared with the first member's fence of
 * the same number; a NOPUT kept for the writes of the epoch it opens. */
static int fence(chk *c, chk_assert *k, as_win *w, const rt_event *ev)
{
    int rc = 0, nomem = 0;
    const unsigned a = (unsigned)ev->tag, both = RT_ASSERT_NOPRECEDE | RT_ASSERT_NOSUCCEED;
    k->given |= a;
    if ((a & RT_ASSERT_NOPRECEDE) && w->has_xfer)
        rc = find(c, &w->xfer, ev,
                  "MPI_MODE_NOPRECEDE on a fence that completes RMA calls the rank made on the "
                  "window since its previous fence (the assertion says there are none)");
    w->has_xfer = 0;
    w->nosucceed = (a & RT_ASSERT_NOSUCCEED) != 0;
    w->fence = *ev;
    uint32_t nth = ++w->nfence;
    uint64_t inst = (uint64_t)w->gen << 32 | nth;
    as_pair *p = NULL;
    if (!rc && !rt_hmap_get(&k->fence_done, ev->comm, w->gen))
        p = pair_of(k, AS_FENCE, ev->comm, inst, &nomem);
    unsigned diff = p && p->has_a ? ((unsigned)p->a.tag ^ a) & both : 0;
    if (p && !p->has_a) {
        p->a = *ev;
        p->has_a = 1;
    } else if (diff) {
        char why[256];
        snprintf(why, sizeof why,
                 "fence %" PRIu32 " on this window: %s given by some members of the window and "
                 "not by others (if one gives it, all must)",
                 nth,
                 diff == both                 ? "MPI_MODE_NOPRECEDE and MPI_MODE_NOSUCCEED"
                 : diff & RT_ASSERT_NOPRECEDE ? "MPI_MODE_NOPRECEDE"
                                              : "MPI_MODE_NOSUCCEED");
        if (!rt_hmap_put(&k->fence_done, ev->comm, w->gen, NULL))
            return -RT_E_NOMEM;
        rc = find(c, &p->a, ev, why);
    }
    if (!rc && !nomem && (a & RT_ASSERT_NOPUT)) {
        p = pair_of(k, AS_EPOCH, (uint64_t)ev->comm << 32 | ev->rank, inst, &nomem);
        if (p && !p->has_a) {
            p->a = *ev;
            p->has_a = 1;
        }
    }
    return nomem ? -RT_E_NOMEM : rc;
}

/* A Win_post or Win_start: its pairs with the ranks of its group, by their number. */
static int pscw(chk_assert *k, const rt_defs *defs, as_win *w, const rt_event *ev)
{
    const rt_group_def *g = ev->peer >= 0 ? rt_defs_group(defs, (uint32_t)ev->peer) : NULL;
    int post = ev->op == RT_PSCW_POST, nomem = 0;
    k->given |= (unsigned)ev->tag;
    if (ev->op == RT_PSCW_START)
        w->start = 1;
    else if (ev->op == RT_PSCW_COMPLETE)
        w->start = 0;
    if (!g || (!post && ev->op != RT_PSCW_START))
        return 0;
    for (uint32_t i = 0; i < g->size && !nomem; i++) {
        uint32_t other = g->members[i];
        uint64_t *n = rt_hmap_put(post ? &k->posted : &k->started,
                                  (uint64_t)ev->rank << 32 | ev->comm, other, NULL);
        if (!n)
            return -RT_E_NOMEM;
        uint64_t t = post ? ev->rank : other, o = post ? other : ev->rank;
        as_pair *p = pair_of(k, AS_PSCW, (uint64_t)ev->comm << 32 | t, o << 32 | (*n)++, &nomem);
        if (p && post) {
            p->a = *ev;
            p->has_a = 1;
        } else if (p) {
            p->b = *ev;
            p->has_b = 1;
        }
    }
    return nomem ? -RT_E_NOMEM : 0;
}

/* A write of rank ev->rank to target t (a world rank) in the epoch of key (epoch_key): the first
 * one of each epoch and target is kept. */
static int write_to(chk_assert *k, const as_win *w, const rt_event *ev, uint32_t t, uint64_t key)
{
    int nomem = 0;
    uint64_t k1 = (uint64_t)ev->comm << 32 | t;
    as_pair *p = w->start ? pair_of(k, AS_PSCW, k1, (uint64_t)ev->rank << 32 | key, &nomem)
                          : pair_of(k, AS_EPOCH, k1, key, &nomem);
    if (p && !p->has_w) {
        p->w = *ev;
        p->has_w = 1;
    }
    return nomem ? -RT_E_NOMEM : 0;
}

/* The epoch of a transfer to t (a world rank): gen << 32 | k in the fence epoch after the
 * rank's k-th fence, or in a Win_start epoch the number of the origin's earlier starts naming
 * t; UINT64_MAX for none (a lock epoch, a start that does not name t, no fence yet). */
static uint64_t epoch_key(const chk_assert *k, const as_win *w, const rt_event *ev, uint32_t t)
{
    if (w->start) {
        const uint64_t *n = rt_hmap_get(&k->started, (uint64_t)ev->rank << 32 | ev->comm, t);
        return n && *n ? *n - 1 : UINT64_MAX;
    }
    if (w->nlocks || w->lock_all || !w->nfence)
        return UINT64_MAX;
    return (uint64_t)w->gen << 32 | w->nfence;
}

static int transfer(chk *c, chk_assert *k, const rt_defs *defs, as_win *w, const rt_event *ev)
{
    int rc = 0;
    if (!w->start && !w->nlocks && !w->lock_all && w->nfence) { /* in a fence epoch */
        if (w->nosucceed) {
            w->nosucceed = 0; /* one finding per fence */
            rc = find(c, &w->fence, ev,
                      "an RMA call after a fence with MPI_MODE_NOSUCCEED, before the rank's next "
                      "fence (the assertion says the fence starts no RMA calls)");
        }
        if (!w->has_xfer) {
            w->xfer = *ev;
            w->has_xfer = 1;
        }
    }
    int64_t t = world_of(defs, ev->comm, ev->peer);
    uint64_t key = t < 0 ? UINT64_MAX : epoch_key(k, w, ev, (uint32_t)t);
    if (rc || key == UINT64_MAX || ev->kind == RT_EV_RMA_GET)
        return rc;
    if (ev->kind == RT_EV_RMA_PUT || ev->op == RT_ATOMIC_ACCUMULATE ||
        ev->op == RT_ATOMIC_COMPARE_AND_SWAP)
        return write_to(k, w, ev, (uint32_t)t, key);
    w->has_pend = 1; /* get_accumulate, fetch_and_op: a write unless the op is MPI_NO_OP */
    w->pend = *ev;
    w->pend_target = (uint32_t)t;
    w->pend_key = key;
    return 0;
}

int chk_assert_event(chk *c, chk_assert *k, const rt_defs *defs, const rt_event *ev)
{
    if (ev->kind == RT_EV_RMA_OP_COMPLETE || ev->kind == RT_EV_RMA_COLL_BEGIN)
        return 0;
    as_win *w = win_of(k, ev->rank, ev->comm);
    if (!w)
        return -RT_E_NOMEM;
    if (w->has_pend) { /* its target, right after it, or none (its op unknown: not a write) */
        w->has_pend = 0;
        if (ev->kind == RT_EV_RMA_TARGET && ev->op != RT_REDOP_NO_OP)
            return write_to(k, w, &w->pend, w->pend_target, w->pend_key);
    }
    switch (ev->kind) {
    case RT_EV_WIN_CREATE:
        *w = (as_win){.gen = w->gen + 1};
        return 0;
    case RT_EV_RMA_PUT:
    case RT_EV_RMA_GET:
    case RT_EV_RMA_ATOMIC:
        return transfer(c, k, defs, w, ev);
    case RT_EV_RMA_COLL_END:
        return fence(c, k, w, ev);
    case RT_EV_RMA_GROUP_SYNC:
        return pscw(k, defs, w, ev);
    case RT_EV_RMA_LOCK:
        if (ev->peer == RT_PEER_ALL)
            w->lock_all = 1;
        else
            w->nlocks++;
        return 0;
    case RT_EV_RMA_UNLOCK:
        if (ev->peer == RT_PEER_ALL)
            w->lock_all = 0;
        else if (w->nlocks)
            w->nlocks--;
        return 0;
    default:
        return 0;
    }
}

/* ---- ranks together ------------------------------------------------------------------------- */

int chk_assert_report(chk *c, chk_assert *k)
{
    int rc = 0;
    for (size_t i = 0; i < k->npairs && !rc; i++) { /* in the order the pass met them */
        const as_pair *p = &k->pairs[i];
        if (p->map == AS_EPOCH && p->has_a && p->has_w) /* a NOPUT fence, a write after it */
            rc = find(c, &p->a, &p->w,
                      "MPI_MODE_NOPUT on the target's fence, but an origin puts or accumulates to "
                      "its window in the epoch that fence opens (the assertion says it is not "
                      "updated until the next fence)");
        if (p->map != AS_PSCW || !p->has_a || rc) /* below: a post and its matching start */
            continue;
        unsigned pa = (unsigned)p->a.tag, sa = p->has_b ? (unsigned)p->b.tag : 0;
        if (p->has_b && ((pa ^ sa) & RT_ASSERT_NOCHECK))
            rc = find(c, &p->b, &p->a,
                      pa & RT_ASSERT_NOCHECK
                          ? "MPI_MODE_NOCHECK given to the Win_post and not to the Win_start it "
                            "matches (it must be given to both or neither)"
                          : "MPI_MODE_NOCHECK given to the Win_start and not to the Win_post it "
                            "matches (it must be given to both or neither)");
        else if ((pa & RT_ASSERT_NOPUT) && p->has_w)
            rc = find(c, &p->a, &p->w,
                      "MPI_MODE_NOPUT on the Win_post, but an origin puts or accumulates to its "
                      "window in the exposure epoch it opens (the assertion says it is not "
                      "updated until the matching Win_wait)");
    }
    if (!rc && k->dropped && k->given) /* without any assertion nothing was missed */
        rc = chk_note(c,
                      "rma-epoch: assertions: only the first %u fences, fence epochs and "
                      "start-post pairs checked, %" PRIu64 " more left out",
                      AS_MAX_PAIRS, k->dropped);
    return rc;
}
