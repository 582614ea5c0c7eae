/*
 * MSA-aware collectives (psmpi's PSP_MSA_AWARE_COLLOPS): a phase inside each module, one
 * leader per module across the gateways, a phase inside each module again; msa2 splits each
 * module the same way by node. See rt_coll.h for the scheme of every op.
 *
 * Only this rank's path through the hierarchy is needed: at each level the group it belongs
 * to and the leaders of all groups. They are built before anything is emitted, so that an
 * allocation failure leaves no half-emitted schedule.
 */
#include <stdlib.h>
#include <string.h>

#include "rt__coll.h"
#include "rt_vec.h"

/* The root argument of split_groups for ops without a root (any negative value). */
#define NO_ROOT (-1)

typedef struct lvl {
    rt__grp local;        /* my group, ascending ranks; local.me = my index */
    rt__grp leaders;      /* one rank per group, ascending; leaders.me = my index if I lead */
    uint32_t local_root;  /* index in local of my group's leader */
    uint32_t leader_root; /* index in leaders of the root's group's leader (0: rootless) */
    int leader;           /* I lead my group */
    int first;            /* scan: my run is the first one */
    uint32_t *mem;
} lvl;

typedef struct hier {
    int n;     /* levels that split their ranks into more than one group */
    lvl l[2];  /* groups, or for scan runs */
    lvl bc[2]; /* scan: l[k]'s run split by the next level, led by the run's last rank */
} hier;

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

static uint32_t index_of(const uint32_t *v, uint32_t n, uint32_t rank)
{
    uint32_t i = 0;
    while (i < n && v[i] != rank)
        i++;
    return i;
}

static uint32_t rank_at(const rt__grp *m, uint32_t i)
{
    return (uint32_t)rt__at(m, i);
}

/* Groups of m (ascending ranks, off 0) by key, each led by its lowest rank, or by root (a
 * rank of m; NO_ROOT for none) in root's group. Returns the number of groups, or -RT_E_NOMEM. */
static int64_t split_groups(const rt__grp *m, const uint32_t *key, int64_t root, lvl *L)
{
    uint32_t n = m->n;
    uint64_t *pairs = malloc((size_t)n * sizeof *pairs);
    L->mem = malloc((size_t)n * 2 * sizeof *L->mem);
    if (!pairs || !L->mem) {
        free(pairs);
        free(L->mem);
        L->mem = NULL;
        return -RT_E_NOMEM;
    }
    /* sorting (key, index) brings each group together, ranks ascending inside it; with block
     * placement (ids non-decreasing in rank order) the pairs are sorted already */
    int sorted = 1;
    for (uint32_t i = 0; i < n; i++) {
        pairs[i] = (uint64_t)key[rank_at(m, i)] << 32 | i;
        sorted &= i == 0 || pairs[i] > pairs[i - 1];
    }
    if (!sorted)
        qsort(pairs, n, sizeof *pairs, rt_cmp_u64);
    uint32_t *loc = L->mem, *lead = L->mem + n, nloc = 0, nlead = 0;
    uint32_t me = rank_at(m, m->me), mykey = key[me];
    for (uint32_t i = 0, j; i < n; i = j) {
        uint32_t k = (uint32_t)(pairs[i] >> 32);
        for (j = i; j < n && (uint32_t)(pairs[j] >> 32) == k; j++)
            if (k == mykey)
                loc[nloc++] = rank_at(m, (uint32_t)pairs[j]);
        lead[nlead++] =
            root >= 0 && key[root] == k ? (uint32_t)root : rank_at(m, (uint32_t)pairs[i]);
    }
    free(pairs);
    qsort(lead, nlead, sizeof *lead, cmp_u32);
    uint32_t myleader = root >= 0 && key[root] == mykey ? (uint32_t)root : loc[0];
    L->local = (rt__grp){nloc, index_of(loc, nloc, me), 0, loc, m->esize};
    L->local_root = index_of(loc, nloc, myleader);
    L->leader = me == myleader;
    L->leaders = (rt__grp){nlead, L->leader ? index_of(lead, nlead, me) : 0, 0, lead, m->esize};
    L->leader_root = root >= 0 ? index_of(lead, nlead, (uint32_t)root) : 0;
    L->first = 0;
    return nlead;
}

/* Maximal runs of consecutive members of m with the same key, each led by its last rank.
 * Returns the number of runs, or -RT_E_NOMEM. */
static int64_t split_runs(const rt__grp *m, const uint32_t *key, lvl *L)
{
    uint32_t n = m->n, ntails = 0, a = 0, myrun = 0;
    L->mem = malloc((size_t)n * 2 * sizeof *L->mem);
    if (!L->mem)
        return -RT_E_NOMEM;
    uint32_t *loc = L->mem, *tails = L->mem + n;
    for (uint32_t i = 0; i < n; i++) {
        if (i + 1 < n && key[rank_at(m, i + 1)] == key[rank_at(m, i)])
            continue;
        if (m->me >= a && m->me <= i) {
            for (uint32_t t = a; t <= i; t++)
                loc[t - a] = rank_at(m, t);
            L->local = (rt__grp){i - a + 1, m->me - a, 0, loc, m->esize};
            myrun = ntails;
        }
        tails[ntails++] = rank_at(m, i);
        a = i + 1;
    }
    L->local_root = L->local.n - 1;
    L->leader = L->local.me == L->local_root;
    L->leaders = (rt__grp){ntails, L->leader ? myrun : 0, 0, tails, m->esize};
    L->leader_root = 0;
    L->first = myrun == 0;
    return ntails;
}

static void free_hier(hier *h)
{
    for (int k = 0; k < 2; k++) {
        free(h->l[k].mem);
        free(h->bc[k].mem);
    }
}

/* This rank's path: level k splits the previous level's group (all ranks first) by module,
 * then by node. A level that leaves one group is dropped. 0, or -RT_E_NOMEM. */
static int build(hier *h, const rt_coll_call *c, int levels, int scan)
{
    memset(h, 0, sizeof *h);
    rt__grp m = {c->size, c->me, 0, NULL, c->esize};
    int64_t root = rt__rooted(c->op) ? c->root : NO_ROOT;
    const uint32_t *keys[2] = {c->module, c->node};
    for (int k = 0; k < levels; k++) {
        if (!keys[k])
            continue;
        lvl *L = &h->l[h->n];
        int64_t groups = scan ? split_runs(&m, keys[k], L) : split_groups(&m, keys[k], root, L);
        if (groups < 0)
            return (int)groups;
        if (groups == 1) {
            free(L->mem);
            memset(L, 0, sizeof *L);
            continue;
        }
        if (scan && h->n > 0) { /* the offset bcast inside the run above, by this key */
            const lvl *P = &h->l[h->n - 1];
            if (split_groups(&P->local, keys[k], P->local.rank[P->local_root], &h->bc[h->n - 1]) <
                0)
                return -RT_E_NOMEM;
        }
        m = L->local;
        root = L->local.rank[L->local_root];
        h->n++;
    }
    return 0;
}

/* ---- the phases; L[0..nl-1] are the levels left, m the group at the current level ------- */

static void h_bcast(rt__sched *s, const lvl *L, int nl, const rt__grp *m, uint32_t root, uint64_t n)
{
    if (nl == 0) {
        rt__grp g = rt__rotate(*m, root);
        rt__bcast_binomial(s, &g, n);
        return;
    }
    if (L->leader) {
        rt__grp g = rt__rotate(L->leaders, L->leader_root);
        rt__bcast_binomial(s, &g, n);
    }
    h_bcast(s, L + 1, nl - 1, &L->local, L->local_root, n);
}

static void h_reduce(rt__sched *s, const lvl *L, int nl, const rt__grp *m, uint32_t root,
                     uint64_t n)
{
    if (nl == 0) {
        rt__grp g = rt__rotate(*m, root);
        rt__reduce_binomial(s, &g, n);
        return;
    }
    h_reduce(s, L + 1, nl - 1, &L->local, L->local_root, n);
    if (L->leader) {
        rt__grp g = rt__rotate(L->leaders, L->leader_root);
        rt__reduce_binomial(s, &g, n);
    }
}

static void h_allreduce(rt__sched *s, const lvl *L, int nl, const rt__grp *m, uint64_t n)
{
    if (nl == 0) {
        rt__allreduce_rd(s, m, n);
        return;
    }
    h_reduce(s, L + 1, nl - 1, &L->local, L->local_root, n);
    if (L->leader)
        rt__allreduce_rd(s, &L->leaders, n);
    h_bcast(s, L + 1, nl - 1, &L->local, L->local_root, n);
}

static void h_barrier(rt__sched *s, const lvl *L, int nl, const rt__grp *m)
{
    if (nl == 0) {
        rt__barrier_dissemination(s, m);
        return;
    }
    h_reduce(s, L + 1, nl - 1, &L->local, L->local_root, 0); /* 0-byte fan-in */
    if (L->leader)
        rt__barrier_dissemination(s, &L->leaders);
    h_bcast(s, L + 1, nl - 1, &L->local, L->local_root, 0);
}

/* Scan inside each run, exscan of the run totals among the runs' last ranks, bcast of that
 * offset inside each run but the first, folded in by every member. */
static void h_scan(rt__sched *s, const hier *h, int k, const rt__grp *m, uint64_t n, int ex)
{
    if (k >= h->n ||
        k >= (int)(sizeof h->l / sizeof h->l[0])) { /* the second test bounds k for the compiler */
        rt__scan_rd(s, m, n, ex);
        return;
    }
    const lvl *L = &h->l[k];
    h_scan(s, h, k + 1, &L->local, n, ex);
    if (L->leader) {
        if (ex && L->local.n > 1) { /* exscan left out the last rank's own value */
            rt__next(s);
            rt__reduce(s, n);
        }
        rt__scan_rd(s, &L->leaders, n, 1);
    }
    if (!L->first) {
        h_bcast(s, &h->bc[k], k + 1 < h->n, &L->local, L->local_root, n);
        rt__next(s);
        if (!ex || L->local.me > 0) /* an exscan head has nothing of its own to combine */
            rt__reduce(s, n);
    }
}

int rt__msa(rt__sched *s, const rt_coll_call *c, uint64_t n, int levels)
{
    hier h;
    int scan = c->op == RT_COLL_SCAN || c->op == RT_COLL_EXSCAN;
    int rc = build(&h, c, levels, scan);
    if (rc == 0) {
        rt__grp top = {c->size, c->me, 0, NULL, c->esize};
        switch (c->op) {
        case RT_COLL_BARRIER:
            h_barrier(s, h.l, h.n, &top);
            break;
        case RT_COLL_BCAST:
            h_bcast(s, h.l, h.n, &top, (uint32_t)c->root, n);
            break;
        case RT_COLL_REDUCE:
            h_reduce(s, h.l, h.n, &top, (uint32_t)c->root, n);
            break;
        case RT_COLL_ALLREDUCE:
            h_allreduce(s, h.l, h.n, &top, n);
            break;
        default:
            h_scan(s, &h, 0, &top, n, c->op == RT_COLL_EXSCAN);
            break;
        }
    }
    free_hier(&h);
    return rc;
}
