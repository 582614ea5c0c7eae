/*
 * RMA conflicts (retrace check, class rma-conflict, docs/check.md): two transfers of one epoch
 * that touch overlapping bytes of the same target's window memory where at least one writes
 * (MPI 4.0 section 12.7: the outcome is undefined). The streaming pass hands every RMA event of
 * a rank here; each transfer, once its RMA_TARGET came (rt_event.h), is kept with its byte range
 * and its epoch. A fence epoch is global: the k-th fence of every member of the window opens the
 * same one, so transfers of all origins are compared. A Win_start epoch goes to the exposure
 * epoch (Win_post) of its target that it matches, and all origins' transfers there are compared
 * too. Lock epochs (Win_lock, Win_lock_all) are compared origin by origin: which of two origins'
 * lock epochs overlapped in time the trace does not tell for certain. A flush or an unlock
 * completes what came before it at the target, so it starts a new group.
 *
 * At the end the transfers are sorted by window, epoch, target and first byte and swept once:
 * for each kind of access (put, get, and an atomic per reduction op) the one reaching furthest
 * is kept, and a transfer conflicts when one of those still reaches its first byte and the two
 * kinds conflict. A group of a window, epoch and target gives at most one finding.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "rt__check.h"
#include "rt_checked.h"
#include "rt_hash.h"
#include "rt_vec.h"

/* Transfers kept at most (72 bytes each); the rest are counted and a note says so. */
#define CONF_MAX_OPS (1u << 21)
/* Group members named by Win_start and Win_post calls at most (the exposure matching's
 * tables grow with them); past it, Win_start epochs are compared origin by origin. */
#define CONF_MAX_NAMED (1u << 22)

typedef struct conf_op {
    uint64_t lo, hi; /* the target's bytes [lo, hi) */
    uint64_t time, bytes, rbytes;
    uint64_t epoch; /* fence: generation << 32 | fences before; else the origin's sequence */
    uint32_t win, origin;
    int32_t target;
    uint32_t nth; /* in a Win_start epoch: the origin's starts naming the target before it, else
                   * UINT32_MAX */
    uint16_t call;
    uint8_t kind, aop, redop, local; /* local: compared origin by origin */
} conf_op;

/* The epoch of a transfer matched to its target's exposure epoch (Win_post): this bit, and the
 * post's number among the target's posts on the window. */
#define CONF_EXPOSURE (UINT64_C(1) << 63)

/* A Win_post: world rank, window, group, and its number among the rank's posts on the window. */
typedef struct conf_post {
    uint32_t rank, win, group, nth;
} conf_post;

/* One rank's use of one window. */
typedef struct conf_win {
    uint64_t seq;     /* bumped at every lock, unlock, flush, start, complete */
    uint32_t nfence;  /* fences so far */
    uint32_t gen;     /* windows created with this id so far (ids are reused) */
    uint8_t local;    /* in a lock or Win_start epoch, not a fence one */
    uint8_t start;    /* in a Win_start epoch */
    uint32_t nposts;  /* its Win_posts so far */
    uint8_t has_pend; /* pend is a transfer waiting for its RMA_TARGET */
    conf_op pend;
} conf_win;

struct chk_conf {
    rt_hmap at; /* (rank, win) -> index in wins */
    conf_win *wins;
    size_t nwins, wins_room;
    conf_op *ops;
    size_t nops, ops_room;
    uint64_t dropped;    /* transfers past CONF_MAX_OPS */
    uint64_t untargeted; /* transfers without RMA_TARGET */
    uint64_t named;      /* group members named by starts and posts, up to CONF_MAX_NAMED */
    /* general active target: (origin << 32 | window, target's world rank) -> the origin's
     * Win_starts naming the target; and every Win_post */
    rt_hmap started;
    conf_post *posts;
    size_t nposts, posts_room;
};

chk_conf *chk_conf_new(void)
{
    return calloc(1, sizeof(chk_conf));
}

void chk_conf_free(chk_conf *k)
{
    if (!k)
        return;
    rt_hmap_free(&k->at);
    rt_hmap_free(&k->started);
    free(k->posts);
    free(k->wins);
    free(k->ops);
    free(k);
}

static conf_win *win_of(chk_conf *k, uint32_t rank, uint32_t win)
{
    size_t i =
        chk_entry(&k->at, &k->wins, &k->nwins, &k->wins_room, sizeof *k->wins, rank, win, NULL);
    return i == SIZE_MAX ? NULL : &k->wins[i];
}

/* The transfer w waits with gets its target at byte disp and reduction redop. */
static int conf_keep(chk_conf *k, conf_win *w, uint64_t disp, unsigned redop)
{
    conf_op *o = &w->pend;
    w->has_pend = 0;
    uint64_t n = chk_target_bytes(o->kind, o->bytes, o->rbytes);
    if (n == 0 || (!o->local && w->nfence == 0))
        return 0; /* touches nothing, or outside any epoch (an rma-epoch finding) */
    if (k->nops >= CONF_MAX_OPS) {
        k->dropped++;
        return 0;
    }
    if (RT_VEC_RESERVE(k->ops, k->ops_room, (uint64_t)k->nops + 1, 256))
        return -RT_E_NOMEM;
    o->lo = disp;
    o->hi = rt_add_sat(disp, n);
    o->redop = (uint8_t)redop;
    k->ops[k->nops++] = *o;
    return 0;
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

/* Win_start counts, for every member of its group, one more start naming it; Win_post is kept
 * with its number. */
static int pscw_event(chk_conf *k, const rt_defs *defs, conf_win *w, const rt_event *ev)
{
    const rt_group_def *g = ev->peer >= 0 ? rt_defs_group(defs, (uint32_t)ev->peer) : NULL;
    if (g && (ev->op == RT_PSCW_START || ev->op == RT_PSCW_POST) && k->named <= CONF_MAX_NAMED)
        k->named += g->size; /* past the limit: counted no more */
    if (k->named > CONF_MAX_NAMED)
        g = NULL;
    if (ev->op == RT_PSCW_START) {
        w->local = w->start = 1;
        for (uint32_t i = 0; g && i < g->size; i++) {
            uint64_t *v =
                rt_hmap_put(&k->started, (uint64_t)ev->rank << 32 | ev->comm, g->members[i], NULL);
            if (!v)
                return -RT_E_NOMEM;
            ++*v;
        }
    } else if (ev->op == RT_PSCW_COMPLETE) {
        w->start = 0;
    } else if (ev->op == RT_PSCW_POST && g) {
        if (RT_VEC_RESERVE(k->posts, k->posts_room, (uint64_t)k->nposts + 1, 16))
            return -RT_E_NOMEM;
        k->posts[k->nposts++] = (conf_post){ev->rank, ev->comm, (uint32_t)ev->peer, w->nposts++};
    }
    return 0;
}

/* For a transfer in a Win_start epoch: the origin's earlier starts naming its target. */
static uint32_t nth_start(const chk_conf *k, const rt_defs *defs, const rt_event *ev)
{
    int64_t t = world_of(defs, ev->comm, ev->peer);
    const uint64_t *v =
        t < 0 ? NULL : rt_hmap_get(&k->started, (uint64_t)ev->rank << 32 | ev->comm, (uint64_t)t);
    return v && *v && *v <= UINT32_MAX ? (uint32_t)(*v - 1) : UINT32_MAX;
}

int chk_conf_event(chk_conf *k, const rt_defs *defs, const rt_event *ev)
{
    if (ev->kind == RT_EV_RMA_OP_COMPLETE || ev->kind == RT_EV_RMA_COLL_BEGIN)
        return 0;
    conf_win *w = win_of(k, ev->rank, ev->comm);
    if (!w)
        return -RT_E_NOMEM;
    if (w->has_pend && ev->kind != RT_EV_RMA_TARGET) {
        w->has_pend = 0;
        k->untargeted++;
    }
    switch (ev->kind) {
    case RT_EV_WIN_CREATE:
        *w = (conf_win){.seq = w->seq + 1, .gen = w->gen + 1, .nposts = w->nposts};
        return 0;
    case RT_EV_RMA_PUT:
    case RT_EV_RMA_GET:
    case RT_EV_RMA_ATOMIC:
        w->has_pend = 1;
        w->pend = (conf_op){
            .time = ev->time,
            .bytes = ev->bytes,
            .rbytes = ev->rbytes,
            .epoch = w->local ? w->seq : (uint64_t)w->gen << 32 | w->nfence,
            .win = ev->comm,
            .origin = ev->rank,
            .target = ev->peer,
            .nth = w->start ? nth_start(k, defs, ev) : UINT32_MAX,
            .call = ev->call,
            .kind = ev->kind,
            .aop = ev->op,
            .local = w->local,
        };
        return 0;
    case RT_EV_RMA_TARGET:
        return w->has_pend ? conf_keep(k, w, ev->bytes, ev->op) : 0;
    case RT_EV_RMA_COLL_END: /* a fence */
        w->nfence++;
        w->local = 0;
        return 0;
    case RT_EV_RMA_LOCK:
        w->local = 1;
        w->seq++;
        return 0;
    case RT_EV_RMA_GROUP_SYNC:
        w->seq++; /* post and wait change nothing here, and harm nothing */
        return pscw_event(k, defs, w, ev);
    case RT_EV_RMA_UNLOCK:
        w->seq++;
        return 0;
    case RT_EV_RMA_SYNC:
        if (ev->op == RT_SYNC_FLUSH)
            w->seq++;
        return 0;
    default:
        return 0;
    }
}

/* ---- the sweep ---------------------------------------------------------------------------- */

/* Kinds of access: a put, a get, or an atomic with its reduction (a compare-and-swap its own). */
enum { ACC_PUT, ACC_GET, ACC_CAS, ACC_ATOMIC0, ACC_COUNT = ACC_ATOMIC0 + RT_REDOP_COUNT };

static unsigned access_of(const conf_op *o)
{
    if (o->kind == RT_EV_RMA_PUT)
        return ACC_PUT;
    if (o->kind == RT_EV_RMA_GET)
        return ACC_GET;
    if (o->aop == RT_ATOMIC_COMPARE_AND_SWAP)
        return ACC_CAS;
    return ACC_ATOMIC0 + (o->redop < RT_REDOP_COUNT ? o->redop : 0);
}

/* An atomic that only reads (MPI_NO_OP). */
static int reads_only(unsigned a)
{
    return a == ACC_GET || a == ACC_ATOMIC0 + RT_REDOP_NO_OP;
}

/* 1 when accesses of kinds a and b to the same bytes in one epoch conflict: a put with
 * anything; a get with what writes; atomics with different operations, except MPI_NO_OP, which
 * the default accumulate_ops (same_op_no_op, MPI 4.0 section 12.2.1) lets mix with any; not when
 * the window was created with accumulate_ops same_op. */
static int conflicts(unsigned a, unsigned b, int same_op)
{
    if (a == ACC_PUT || b == ACC_PUT)
        return 1;
    if (reads_only(a) && reads_only(b))
        return 0;
    if (a == ACC_GET || b == ACC_GET)
        return 1; /* the other writes */
    return a != b && (same_op || (!reads_only(a) && !reads_only(b)));
}

static int cmp_u64(uint64_t a, uint64_t b)
{
    return a < b ? -1 : a > b;
}

static int op_order(const void *pa, const void *pb)
{
    const conf_op *a = pa, *b = pb;
    int c;
    if ((c = cmp_u64(a->win, b->win)) || (c = cmp_u64(a->local, b->local)) ||
        (c = cmp_u64(a->local ? a->origin : 0, b->local ? b->origin : 0)) ||
        (c = cmp_u64(a->epoch, b->epoch)) ||
        (c = cmp_u64((uint32_t)a->target, (uint32_t)b->target)) || (c = cmp_u64(a->lo, b->lo)) ||
        (c = cmp_u64(a->time, b->time)))
        return c;
    return cmp_u64(a->origin, b->origin);
}

static int same_group(const conf_op *a, const conf_op *b)
{
    return a->win == b->win && a->local == b->local && (!a->local || a->origin == b->origin) &&
           a->epoch == b->epoch && a->target == b->target;
}

/* "a put", "an accumulate (sum)" */
static void add_access(chk_text *t, const conf_op *o)
{
    if (o->kind == RT_EV_RMA_PUT || o->kind == RT_EV_RMA_GET) {
        chk_add(t, "a %s", o->kind == RT_EV_RMA_PUT ? "put" : "get");
        return;
    }
    const char *name = rt_event_op_name(RT_EV_RMA_ATOMIC, o->aop);
    chk_add(t, "a%s %s", name[0] == 'a' ? "n" : "", name);
    if (o->redop != RT_REDOP_NONE)
        chk_add(t, " (%s)", rt_event_op_name(RT_EV_RMA_TARGET, o->redop));
}

static void add_op_call(chk_text *t, const conf_op *o)
{
    rt_event ev = {.time = o->time,
                   .bytes = o->bytes,
                   .rbytes = o->rbytes,
                   .rank = o->origin,
                   .comm = o->win,
                   .peer = o->target,
                   .call = o->call,
                   .kind = o->kind,
                   .op = o->aop};
    chk_add_call(t, &ev);
}

static int report(chk *c, const conf_op *a, const conf_op *b, int same_op)
{
    chk_text ranks = {.len = 0}, where = {.len = 0}, calls = {.len = 0}, why = {.len = 0};
    uint64_t lo = a->lo > b->lo ? a->lo : b->lo, hi = a->hi < b->hi ? a->hi : b->hi;
    if (b->origin < a->origin || (b->origin == a->origin && b->time < a->time)) {
        const conf_op *t = a; /* shown by rank, then in the order it made them */
        a = b;
        b = t;
    }
    if (a->origin == b->origin)
        chk_add(&ranks, "%" PRIu32, a->origin);
    else
        chk_add(&ranks, "%" PRIu32 ", %" PRIu32, a->origin, b->origin);
    chk_add(&where, "window %" PRIu32, a->win);
    add_op_call(&calls, a);
    chk_add(&calls, "; ");
    add_op_call(&calls, b);
    unsigned x = access_of(a), y = access_of(b);
    if (x == ACC_PUT && y == ACC_PUT) {
        chk_add(&why, "two puts");
    } else {
        add_access(&why, a);
        chk_add(&why, " and ");
        add_access(&why, b);
    }
    chk_add(&why, " touch bytes %" PRIu64 " to %" PRIu64 " of target %" PRId32 "'s window memory",
            lo, hi - 1, a->target);
    if (a->local)
        chk_add(&why,
                " in one epoch of rank %" PRIu32 " (no flush, unlock or Win_complete between them)",
                a->origin);
    else if (a->epoch & CONF_EXPOSURE)
        chk_add(&why,
                " in one exposure epoch of target %" PRId32 " (its Win_post %" PRIu64
                " on the window)",
                a->target, (a->epoch & ~CONF_EXPOSURE) + 1);
    else
        chk_add(&why, " in one fence epoch (after the window's fence %" PRIu32 ")",
                (uint32_t)a->epoch);
    if (x >= ACC_CAS && y >= ACC_CAS)
        chk_add(&why,
                ": atomics with different operations on the same bytes, which the "
                "window's accumulate_ops (%s) rules out",
                same_op ? "same_op" : "same_op_no_op, the default");
    else
        chk_add(&why, ": %s, so the outcome is undefined (MPI 4.0 section 12.7)",
                reads_only(x) || reads_only(y) ? "one writes while the other reads" : "both write");
    return chk_find(c, RT_CHK_RMA_CONFLICT, ranks.s, where.s, calls.s, why.s);
}

/* One group (a window, epoch and target), ops sorted by first byte: its first conflict. */
static int sweep(chk *c, const conf_op *ops, size_t n, int same_op)
{
    const conf_op *far[ACC_COUNT] = {NULL}; /* per kind: the one reaching furthest */
    for (size_t i = 0; i < n; i++) {
        const conf_op *o = &ops[i];
        unsigned x = access_of(o);
        for (unsigned y = 0; y < ACC_COUNT; y++)
            if (far[y] && far[y]->hi > o->lo && conflicts(x, y, same_op))
                return report(c, far[y], o, same_op);
        if (!far[x] || o->hi > far[x]->hi)
            far[x] = o;
    }
    return 0;
}

/* Transfers of Win_start epochs go to their target's exposure epoch: the n-th start of origin o
 * naming target t matches the n-th post of t naming o (MPI 4.0 section 12.5.2), and every
 * origin's transfers to t in it are compared with each other. A transfer whose post the trace
 * does not hold stays compared with its origin's alone. */
static int exposures(chk *c, chk_conf *k, const rt_defs *defs)
{
    size_t i = 0;
    while (i < k->nops && k->ops[i].nth == UINT32_MAX)
        i++;
    if (i == k->nops)
        return 0;                       /* no Win_start epoch: nothing to match */
    rt_hmap named = {0}, post_of = {0}; /* (t << 32 | win, o) -> posts of t naming o so far;
                                         * (t << 32 | win, o << 32 | n) -> that post's number */
    int rc = 0;
    for (size_t p = 0; p < k->nposts && !rc; p++) {
        const conf_post *ps = &k->posts[p];
        const rt_group_def *g = rt_defs_group(defs, ps->group);
        uint64_t key = (uint64_t)ps->rank << 32 | ps->win;
        for (uint32_t m = 0; g && m < g->size && !rc; m++) {
            uint64_t *n = rt_hmap_put(&named, key, g->members[m], NULL), *at;
            if (!n || !(at = rt_hmap_put(&post_of, key, (uint64_t)g->members[m] << 32 | *n, NULL)))
                rc = -RT_E_NOMEM;
            else
                *at = ps->nth, ++*n;
        }
    }
    for (; i < k->nops && !rc; i++) {
        conf_op *o = &k->ops[i];
        int64_t t = o->nth == UINT32_MAX ? -1 : world_of(defs, o->win, o->target);
        const uint64_t *at = t < 0 ? NULL
                                   : rt_hmap_get(&post_of, (uint64_t)t << 32 | o->win,
                                                 (uint64_t)o->origin << 32 | o->nth);
        if (at) {
            o->local = 0;
            o->epoch = CONF_EXPOSURE | *at;
        }
    }
    rt_hmap_free(&named);
    rt_hmap_free(&post_of);
    return rc;
}

/* 1 when window win was created with the info key accumulate_ops set to same_op. */
static int same_op_only(const rt_defs *defs, uint32_t win)
{
    const rt_win_def *w = rt_defs_win(defs, win);
    for (uint32_t i = 0; w && i < w->ninfo; i++)
        if (!strcmp(w->info[i].key, "accumulate_ops"))
            return !strcmp(w->info[i].value, "same_op");
    return 0;
}

int chk_conf_report(chk *c, chk_conf *k, const rt_defs *defs)
{
    int rc = exposures(c, k, defs);
    if (rc)
        return rc;
    if (k->nops > 1) /* (qsort takes no NULL, even for nothing) */
        qsort(k->ops, k->nops, sizeof *k->ops, op_order);
    for (size_t i = 0, j; i < k->nops; i = j) {
        for (j = i + 1; j < k->nops && same_group(&k->ops[i], &k->ops[j]); j++)
            ;
        if ((rc = sweep(c, &k->ops[i], j - i, same_op_only(defs, k->ops[i].win))))
            return rc;
    }
    for (size_t i = 0; i < k->nwins; i++)
        k->untargeted += k->wins[i].has_pend;
    if (k->untargeted)
        rc = chk_note(c,
                      "rma-conflict: %" PRIu64 " RMA transfer%s without a target displacement "
                      "(a trace of another tool or an older retrace): not checked",
                      k->untargeted, k->untargeted > 1 ? "s" : "");
    if (!rc && k->dropped)
        rc = chk_note(
            c, "rma-conflict: only the first %u RMA transfers checked, %" PRIu64 " more left out",
            CONF_MAX_OPS, k->dropped);
    return rc;
}
