/* Trace definitions: ranks and their placement, communicators, groups, windows. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt__trace.h"

int rt_max_ranks(uint32_t *max, rt_err *err)
{
    const char *s = getenv(RT_MAX_RANKS_ENV);
    uint64_t v;
    *max = RT_DEFAULT_MAX_RANKS;
    if (!s)
        return 0;
    if (rt_parse_uint(s, 1, RT_MAX_RANKS, &v, NULL) < 0) {
        char shown[64];
        return rt_err_set(
            err, RT_E_INVAL, "%s: bad value '%s' (expected a whole number of ranks from 1 to %u)",
            RT_MAX_RANKS_ENV, rt_escape(shown, sizeof shown, s), (unsigned)RT_MAX_RANKS);
    }
    *max = (uint32_t)v;
    return 0;
}

int rt_defs_init(rt_defs *defs, uint32_t nranks, rt_err *err)
{
    memset(defs, 0, sizeof *defs);
    uint32_t max;
    int rc = rt_max_ranks(&max, err);
    if (rc)
        return rc;
    if (nranks == 0)
        return rt_err_set(err, RT_E_INVAL, "number of ranks 0 out of range (1 to %u)",
                          (unsigned)max);
    if (nranks > max)
        return rt_err_set(err, RT_E_RANGE,
                          "%u ranks, more than the limit of %u (the environment variable %s "
                          "raises it, up to %u)",
                          (unsigned)nranks, (unsigned)max, RT_MAX_RANKS_ENV,
                          (unsigned)RT_MAX_RANKS);
    defs->nranks = nranks;
    defs->node = calloc(nranks, sizeof *defs->node);
    defs->module = calloc(nranks, sizeof *defs->module);
    uint32_t *all = malloc((size_t)nranks * sizeof *all);
    rc = -RT_E_NOMEM;
    if (!defs->node || !defs->module || !all)
        goto fail;
    for (uint32_t i = 0; i < nranks; i++)
        all[i] = i;
    rc =
        rt_defs_add_comm(defs, RT_COMM_WORLD, RT_ID_NONE, 0, nranks, 0, all, "MPI_COMM_WORLD", err);
    if (rc == 0) {
        uint32_t zero = 0;
        rc = rt_defs_add_comm(defs, RT_COMM_SELF, RT_ID_NONE, RT_COMM_IS_SELF, 1, 0, &zero,
                              "MPI_COMM_SELF", err);
    }
    free(all);
    all = NULL;
    if (rc == 0)
        return 0;
fail:
    free(all);
    rt_defs_free(defs);
    if (rc == -RT_E_NOMEM)
        rt_err_set(err, RT_E_NOMEM, "out of memory for %u ranks", (unsigned)nranks);
    return rc;
}

void rt_defs_free(rt_defs *defs)
{
    for (uint32_t i = 0; i < defs->ncomms; i++) {
        free(defs->comms[i].members);
        free(defs->comms[i].by_world);
        free(defs->comms[i].name);
    }
    for (uint32_t i = 0; i < defs->ngroups; i++)
        free(defs->groups[i].members);
    for (uint32_t i = 0; i < defs->nwins; i++)
        rt__defs_free_win(&defs->wins[i]);
    free(defs->comms);
    free(defs->groups);
    free(defs->wins);
    rt__defs_free_nbrs(defs);
    rt__defs_free_hosts(defs);
    free(defs->node);
    free(defs->module);
    memset(defs, 0, sizeof *defs);
}

/* Position of id in a sorted array of structs whose first member is the uint32_t id; sets
 * *found. Works for the three definition arrays, which all start with id. */
static uint32_t find_slot(const void *base, uint32_t n, size_t size, uint32_t id, int *found)
{
    uint32_t lo = 0, hi = n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        uint32_t v;
        memcpy(&v, (const char *)base + (size_t)mid * size, sizeof v);
        if (v < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    uint32_t v = 0;
    if (lo < n)
        memcpy(&v, (const char *)base + (size_t)lo * size, sizeof v);
    *found = lo < n && v == id;
    return lo;
}

/* Makes room for one element at position pos of a sorted array. */
static int insert_slot(void **base, uint32_t *n, size_t size, uint32_t pos)
{
    char *p = realloc(*base, ((size_t)*n + 1) * size);
    if (!p)
        return -RT_E_NOMEM;
    memmove(p + (size_t)(pos + 1) * size, p + (size_t)pos * size, (size_t)(*n - pos) * size);
    *base = p;
    (*n)++;
    return 0;
}

static int check_members(const rt_defs *defs, const char *what, uint32_t id, uint32_t n,
                         const uint32_t *members, rt_err *err)
{
    for (uint32_t i = 0; i < n; i++)
        if (members[i] >= defs->nranks)
            return rt_err_set(err, RT_E_INVAL, "%s %u: member %u is not a world rank (0 to %u)",
                              what, (unsigned)id, (unsigned)members[i], (unsigned)defs->nranks - 1);
    return 0;
}

int rt_defs_add_comm(rt_defs *defs, uint32_t id, uint32_t parent, uint32_t flags, uint32_t size,
                     uint32_t remote_size, const uint32_t *members, const char *name, rt_err *err)
{
    int found;
    uint32_t pos = find_slot(defs->comms, defs->ncomms, sizeof *defs->comms, id, &found);
    if (id == RT_ID_NONE)
        return rt_err_set(err, RT_E_INVAL, "communicator id %u is reserved (it stands for none)",
                          (unsigned)id);
    if (found)
        return rt_err_set(err, RT_E_INVAL, "communicator %u is defined twice", (unsigned)id);
    if (size == 0)
        return rt_err_set(err, RT_E_INVAL, "communicator %u has no members", (unsigned)id);
    if (!(flags & RT_COMM_IS_INTER) && remote_size)
        flags |= RT_COMM_IS_INTER;
    if ((flags & RT_COMM_IS_INTER) && remote_size == 0)
        return rt_err_set(err, RT_E_INVAL, "inter-communicator %u has an empty remote group",
                          (unsigned)id);
    uint64_t n = (uint64_t)size + remote_size;
    int rc = check_members(defs, "communicator", id, (uint32_t)n, members, err);
    if (rc)
        return rc;
    rt_comm_def c = {
        .id = id, .parent = parent, .flags = flags, .size = size, .remote_size = remote_size};
    c.members = malloc(n * sizeof *c.members);
    c.by_world = malloc(n * sizeof *c.by_world);
    c.name = strdup(name ? name : "");
    if (!c.members || !c.by_world || !c.name ||
        insert_slot((void **)&defs->comms, &defs->ncomms, sizeof *defs->comms, pos)) {
        free(c.members);
        free(c.by_world);
        free(c.name);
        return rt_err_set(err, RT_E_NOMEM, "out of memory for communicator %u", (unsigned)id);
    }
    memcpy(c.members, members, n * sizeof *c.members);
    for (uint64_t i = 0; i < n; i++)
        c.by_world[i] = (uint64_t)members[i] << 32 | i;
    qsort(c.by_world, n, sizeof *c.by_world, rt_cmp_u64);
    defs->comms[pos] = c;
    return 0;
}

int rt_defs_add_group(rt_defs *defs, uint32_t id, uint32_t size, const uint32_t *members,
                      rt_err *err)
{
    int found;
    uint32_t pos = find_slot(defs->groups, defs->ngroups, sizeof *defs->groups, id, &found);
    if (id == RT_ID_NONE)
        return rt_err_set(err, RT_E_INVAL, "group id %u is reserved (it stands for none)",
                          (unsigned)id);
    if (found)
        return rt_err_set(err, RT_E_INVAL, "group %u is defined twice", (unsigned)id);
    int rc = check_members(defs, "group", id, size, members, err);
    if (rc)
        return rc;
    rt_group_def g = {.id = id, .size = size};
    g.members = malloc(((size_t)size + 1) * sizeof *g.members);
    if (!g.members ||
        insert_slot((void **)&defs->groups, &defs->ngroups, sizeof *defs->groups, pos)) {
        free(g.members);
        return rt_err_set(err, RT_E_NOMEM, "out of memory for group %u", (unsigned)id);
    }
    if (size)
        memcpy(g.members, members, (size_t)size * sizeof *g.members);
    defs->groups[pos] = g;
    return 0;
}

int rt_defs_add_win(rt_defs *defs, uint32_t id, uint32_t comm, rt_err *err)
{
    int found;
    uint32_t pos = find_slot(defs->wins, defs->nwins, sizeof *defs->wins, id, &found);
    if (id == RT_ID_NONE)
        return rt_err_set(err, RT_E_INVAL, "window id %u is reserved (it stands for none)",
                          (unsigned)id);
    if (found)
        return rt_err_set(err, RT_E_INVAL, "window %u is defined twice", (unsigned)id);
    const rt_comm_def *c = rt_defs_comm(defs, comm);
    if (!c)
        return rt_err_set(err, RT_E_INVAL, "window %u: communicator %u is not defined",
                          (unsigned)id, (unsigned)comm);
    if (c->flags & RT_COMM_IS_INTER)
        return rt_err_set(err, RT_E_INVAL, "window %u: communicator %u is an inter-communicator",
                          (unsigned)id, (unsigned)comm);
    if (insert_slot((void **)&defs->wins, &defs->nwins, sizeof *defs->wins, pos))
        return rt_err_set(err, RT_E_NOMEM, "out of memory for window %u", (unsigned)id);
    defs->wins[pos] = (rt_win_def){.id = id, .comm = comm};
    return 0;
}

const rt_comm_def *rt_defs_comm(const rt_defs *defs, uint32_t id)
{
    if (id < defs->ncomms && defs->comms[id].id == id)
        return &defs->comms[id]; /* dense ids, the usual case: no search */
    int found;
    uint32_t pos = find_slot(defs->comms, defs->ncomms, sizeof *defs->comms, id, &found);
    return found ? &defs->comms[pos] : NULL;
}

const rt_group_def *rt_defs_group(const rt_defs *defs, uint32_t id)
{
    int found;
    uint32_t pos = find_slot(defs->groups, defs->ngroups, sizeof *defs->groups, id, &found);
    return found ? &defs->groups[pos] : NULL;
}

const rt_win_def *rt_defs_win(const rt_defs *defs, uint32_t id)
{
    if (id < defs->nwins && defs->wins[id].id == id)
        return &defs->wins[id];
    int found;
    uint32_t pos = find_slot(defs->wins, defs->nwins, sizeof *defs->wins, id, &found);
    return found ? &defs->wins[pos] : NULL;
}

int rt_defs_copy(rt_defs *dst, const rt_defs *src, rt_err *err)
{
    int rc = rt_defs_init(dst, src->nranks, err);
    if (rc)
        return rc;
    dst->flags = src->flags;
    memcpy(dst->library, src->library, sizeof dst->library);
    memcpy(dst->node, src->node, (size_t)src->nranks * sizeof *dst->node);
    memcpy(dst->module, src->module, (size_t)src->nranks * sizeof *dst->module);
    for (uint32_t i = 0; i < src->ncomms && !rc; i++) {
        const rt_comm_def *c = &src->comms[i];
        if (c->id == RT_COMM_WORLD || c->id == RT_COMM_SELF)
            rt__defs_drop_comm(dst, c->id); /* src may have renamed or reshaped them */
        rc = rt_defs_add_comm(dst, c->id, c->parent, c->flags, c->size, c->remote_size, c->members,
                              c->name, err);
    }
    for (uint32_t i = 0; i < src->ngroups && !rc; i++)
        rc = rt_defs_add_group(dst, src->groups[i].id, src->groups[i].size, src->groups[i].members,
                               err);
    for (uint32_t i = 0; i < src->nwins && !rc; i++)
        rc = rt__defs_copy_win(dst, &src->wins[i], err);
    for (uint32_t i = 0; i < src->nnbrs && !rc; i++) {
        const rt_nbr_def *n = &src->nbrs[i];
        rc = rt_defs_add_nbrs(dst, n->comm, n->rank, n->nin, n->in, n->nout, n->out, err);
    }
    if (!rc)
        rc = rt__defs_copy_hosts(dst, src, err);
    if (rc)
        rt_defs_free(dst);
    return rc;
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

static uint32_t count_distinct(const uint32_t *v, uint32_t n)
{
    /* Ids are usually dense and small: a bitmap up to the largest id; for sparse ids
     * (a bitmap larger than 8 bytes a rank) sort a copy instead. */
    uint32_t max = 0, count = 0;
    for (uint32_t i = 0; i < n; i++)
        if (v[i] > max)
            max = v[i];
    if ((uint64_t)max < 8 * (uint64_t)n + 64) {
        unsigned char *seen = calloc((size_t)max + 1, 1);
        if (seen) {
            for (uint32_t i = 0; i < n; i++)
                if (!seen[v[i]]++)
                    count++;
            free(seen);
            return count;
        }
    }
    uint32_t *s = malloc((size_t)n * sizeof *s);
    if (!s)
        return 0;
    memcpy(s, v, (size_t)n * sizeof *s);
    qsort(s, n, sizeof *s, cmp_u32);
    for (uint32_t i = 0; i < n; i++)
        count += i == 0 || s[i] != s[i - 1];
    free(s);
    return count;
}

uint32_t rt_defs_count_nodes(const rt_defs *defs)
{
    return count_distinct(defs->node, defs->nranks);
}

uint32_t rt_defs_count_modules(const rt_defs *defs)
{
    return count_distinct(defs->module, defs->nranks);
}

int64_t rt_comm_position(const rt_comm_def *c, uint32_t w)
{
    if (w < c->size && c->members[w] == w)
        return w; /* MPI_COMM_WORLD and its like: members in world rank order, no search */
    uint64_t n = (uint64_t)c->size + c->remote_size, lo = 0, hi = n;
    uint64_t key = (uint64_t)w << 32;
    while (lo < hi) {
        uint64_t mid = lo + (hi - lo) / 2;
        if (c->by_world[mid] < key)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < n && c->by_world[lo] >> 32 == w)
        return (int64_t)(c->by_world[lo] & UINT32_MAX);
    return -RT_E_NOTFOUND;
}

/* The group an event's peer indexes, as a slice of members; -RT_E_NOTFOUND if self is not
 * a member. */
static int peer_group(const rt_comm_def *c, uint32_t self, const uint32_t **g, uint32_t *n)
{
    int64_t pos = rt_comm_position(c, self);
    if (pos < 0)
        return -RT_E_NOTFOUND;
    if (!(c->flags & RT_COMM_IS_INTER)) {
        *g = c->members;
        *n = c->size;
    } else if (pos < c->size) {
        *g = c->members + c->size;
        *n = c->remote_size;
    } else {
        *g = c->members;
        *n = c->size;
    }
    return 0;
}

int64_t rt_defs_peer_world(const rt_defs *defs, const rt_event *ev)
{
    uint32_t comm = ev->comm;
    if (rt_event_is_rma(ev->kind)) {
        const rt_win_def *w = rt_defs_win(defs, ev->comm);
        if (!w)
            return -RT_E_NOTFOUND;
        comm = w->comm;
    }
    const rt_comm_def *c = rt_defs_comm(defs, comm);
    if (!c || ev->peer < 0)
        return -RT_E_NOTFOUND;
    if (c->flags & RT_COMM_IS_SELF)
        return ev->peer == 0 ? (int64_t)ev->rank : -RT_E_NOTFOUND;
    const uint32_t *g;
    uint32_t n;
    if (peer_group(c, ev->rank, &g, &n) || (uint32_t)ev->peer >= n)
        return -RT_E_NOTFOUND;
    return g[ev->peer];
}

/* A COLL_PEER row (rt_event.h, "The per-peer counts"): an op with count arrays, a block that
 * exists (a rank of the peer group, or a slot of the rank's neighbour lists) and bytes only
 * on the sides the op has. */
static int coll_peer_check(const rt_defs *defs, const rt_comm_def *c, const rt_event *ev,
                           rt_err *err)
{
    unsigned sides = rt_coll_count_sides(ev->op);
    if (!sides)
        return rt_err_set(err, RT_E_INVAL, "coll_peer: %s has no per-peer counts",
                          rt_event_op_name(RT_EV_COLL_PEER, ev->op));
    if (!ev->bytes && !ev->rbytes)
        return rt_err_set(err, RT_E_INVAL,
                          "coll_peer: block %d of %s has no bytes (a block of 0 "
                          "bytes is left out)",
                          ev->peer, rt_event_op_name(RT_EV_COLL_PEER, ev->op));
    if ((ev->bytes && !(sides & RT_SIDE_SEND)) || (ev->rbytes && !(sides & RT_SIDE_RECV)))
        return rt_err_set(err, RT_E_INVAL, "coll_peer: %s has no %s counts",
                          rt_event_op_name(RT_EV_COLL_PEER, ev->op),
                          ev->bytes && !(sides & RT_SIDE_SEND) ? "send" : "receive");
    uint32_t nsend, nrecv;
    if (rt_coll_is_neighbor(ev->op)) {
        const rt_nbr_def *nb = rt_defs_nbrs(defs, c->id, ev->rank);
        if (!nb)
            return rt_err_set(err, RT_E_INVAL,
                              "coll_peer: rank %u has no neighbour lists on communicator %u",
                              (unsigned)ev->rank, (unsigned)c->id);
        nsend = nb->nout;
        nrecv = nb->nin;
    } else {
        const uint32_t *g;
        if (c->flags & RT_COMM_IS_SELF)
            nsend = 1;
        else if (peer_group(c, ev->rank, &g, &nsend))
            nsend = 0; /* membership was checked: not reached */
        nrecv = nsend;
    }
    uint32_t n = ev->bytes ? nsend : nrecv;
    if (ev->rbytes && nrecv < n)
        n = nrecv;
    if (ev->peer < 0 || (uint32_t)ev->peer >= n)
        return rt_err_set(err, RT_E_INVAL,
                          "coll_peer: block %d of %s on communicator %u: "
                          "the rank has %u blocks",
                          ev->peer, rt_event_op_name(RT_EV_COLL_PEER, ev->op), (unsigned)c->id,
                          (unsigned)n);
    return 0;
}

/* The kind's name, looked up for a message only: every event comes through here. */
#define kname rt_event_kind_name(k)
static int event_check(const rt_defs *defs, const rt_event *ev, rt__check_memo *memo, rt_err *err)
{
    unsigned k = ev->kind;
    unsigned m = rt_event_kind_mask(k);
    if (k >= RT_EV_COUNT)
        return rt_err_set(err, RT_E_INVAL, "unknown event kind %u", k);
    if (ev->rank >= defs->nranks)
        return rt_err_set(err, RT_E_INVAL, "%s: rank %u is not a world rank (0 to %u)", kname,
                          (unsigned)ev->rank, (unsigned)defs->nranks - 1);
    if (ev->call >= RT_FN_COUNT)
        return rt_err_set(err, RT_E_INVAL, "%s: unknown MPI function id %u", kname,
                          (unsigned)ev->call);
    if ((k == RT_EV_ENTER || k == RT_EV_LEAVE || k == RT_EV_PENDING) && ev->call == RT_FN_NONE)
        return rt_err_set(err, RT_E_INVAL, "%s: no MPI function named", kname);
    if ((m & RT_FIELD_CONTYPE) && ev->contype >= RT_CT_COUNT)
        return rt_err_set(err, RT_E_INVAL, "%s: unknown connection type %u", kname,
                          (unsigned)ev->contype);
    if ((m & RT_FIELD_OP) && !rt_event_op_valid(k, ev->op))
        return rt_err_set(err, RT_E_INVAL, "%s: unknown op %u", kname, (unsigned)ev->op);
    if ((k == RT_EV_RMA_COLL_END || k == RT_EV_RMA_GROUP_SYNC) && ev->tag &&
        ((uint32_t)ev->tag & ~rt_rma_asserts_allowed(k, ev->op)))
        return rt_err_set(err, RT_E_INVAL, "%s: assert %" PRId32 " has bits a %s does not take",
                          kname, ev->tag,
                          k == RT_EV_RMA_COLL_END ? "fence" : rt_event_op_name(k, ev->op));
    if ((k == RT_EV_BUFFER || k == RT_EV_WIN_ATTACH) && ev->bytes > UINT64_MAX - ev->req)
        return rt_err_set(err, RT_E_INVAL, "%s: %llu bytes from address %llu pass 2^64", kname,
                          (unsigned long long)ev->bytes, (unsigned long long)ev->req);
    if (ev->req == RT_REQ_NONE && (m & RT_FIELD_REQ) &&
        (rt_event_starts_request(k) || rt_event_ends_request(k)))
        return rt_err_set(err, RT_E_INVAL, "%s: request id %llu is reserved (it stands for none)",
                          kname, (unsigned long long)ev->req);
    if (!(m & RT_FIELD_COMM))
        return 0;
    const rt_comm_def *c;
    const uint32_t *g = NULL;
    uint32_t n = 0;
    uint8_t rma = rt_event_is_rma(k) != 0;
    if (memo && memo->valid && memo->id == ev->comm && memo->rank == ev->rank && memo->rma == rma) {
        c = memo->c;
        n = memo->n;
    } else {
        if (rma) {
            const rt_win_def *w = rt_defs_win(defs, ev->comm);
            if (!w)
                return rt_err_set(err, RT_E_INVAL, "%s: window %u is not defined", kname,
                                  (unsigned)ev->comm);
            c = rt_defs_comm(defs, w->comm);
        } else {
            c = rt_defs_comm(defs, ev->comm);
            if (!c)
                return rt_err_set(err, RT_E_INVAL, "%s: communicator %u is not defined", kname,
                                  (unsigned)ev->comm);
        }
        if (!(c->flags & RT_COMM_IS_SELF) && peer_group(c, ev->rank, &g, &n))
            return rt_err_set(err, RT_E_INVAL, "%s: rank %u is not a member of communicator %u",
                              kname, (unsigned)ev->rank, (unsigned)c->id);
        if (memo)
            *memo = (rt__check_memo){
                .c = c, .n = n, .rank = ev->rank, .id = ev->comm, .rma = rma, .valid = 1};
    }
    if (k == RT_EV_COLL_PEER)
        return coll_peer_check(defs, c, ev, err);
    if (!(m & RT_FIELD_PEER))
        return 0;
    if (k == RT_EV_RMA_GROUP_SYNC) {
        if (ev->peer < 0 || !rt_defs_group(defs, (uint32_t)ev->peer))
            return rt_err_set(err, RT_E_INVAL, "%s: group %d is not defined", kname, ev->peer);
        return 0;
    }
    int coll = k == RT_EV_COLL_END || k == RT_EV_NBC_COMPLETE;
    int all_ok = k == RT_EV_RMA_LOCK || k == RT_EV_RMA_UNLOCK || k == RT_EV_RMA_SYNC;
    /* a receive that did not complete, posted with MPI_ANY_SOURCE, has no source (a pending
     * call, rt_event.h) */
    int recv = k == RT_EV_RECV || k == RT_EV_IRECV;
    if (recv && ev->peer == RT_PEER_NONE)
        return ev->op & RT_RECV_ANY_SOURCE
                   ? 0
                   : rt_err_set(err, RT_E_INVAL,
                                "%s: no source (peer none), but not posted with any_source", kname);
    if ((coll && ev->peer == RT_PEER_NONE) || (all_ok && ev->peer == RT_PEER_ALL))
        return 0;
    /* as rt_defs_peer_world finds it: in the group just looked up */
    if (ev->peer < 0 || (c->flags & RT_COMM_IS_SELF ? ev->peer != 0 : (uint32_t)ev->peer >= n))
        return rt_err_set(err, RT_E_INVAL, "%s: peer %d is not a rank of %s %u", kname, ev->peer,
                          rma ? "window" : "communicator", (unsigned)ev->comm);
    return 0;
}
#undef kname

int rt_event_check(const rt_defs *defs, const rt_event *ev, rt_err *err)
{
    return event_check(defs, ev, NULL, err);
}

int rt__event_check_memo(const rt_defs *defs, const rt_event *ev, rt__check_memo *memo, rt_err *err)
{
    return event_check(defs, ev, memo, err);
}

void rt__defs_drop_comm(rt_defs *defs, uint32_t id)
{
    int found;
    uint32_t pos = find_slot(defs->comms, defs->ncomms, sizeof *defs->comms, id, &found);
    if (!found)
        return;
    free(defs->comms[pos].members);
    free(defs->comms[pos].by_world);
    free(defs->comms[pos].name);
    memmove(&defs->comms[pos], &defs->comms[pos + 1],
            (size_t)(defs->ncomms - pos - 1) * sizeof *defs->comms);
    defs->ncomms--;
}

/* ---- the MPI library --------------------------------------------------------------------------
 */

static int library_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == ' ' ||
           c == '.' || c == '_' || c == '+' || c == '-';
}

/* Copies the token at s (up to a blank, a comma or the line's end) after prefix into out. */
static void library_token(const char *prefix, const char *s, char *out, size_t len)
{
    size_t n = (size_t)snprintf(out, len, "%s", prefix);
    while (*s == ' ' || *s == '\t')
        s++;
    for (; *s && *s != ' ' && *s != '\t' && *s != ',' && *s != '\n' && n + 1 < len; s++)
        out[n++] = library_char(*s) ? *s : '_';
    out[n < len ? n : len - 1] = '\0';
}

void rt_library_name(const char *version, char *out, size_t len)
{
    if (!len)
        return;
    static const char mpich[] = "MPICH Version:", ompi[] = "Open MPI v";
    if (!strncmp(version, mpich, sizeof mpich - 1)) {
        library_token("MPICH ", version + sizeof mpich - 1, out, len);
        return;
    }
    if (!strncmp(version, ompi, sizeof ompi - 1)) {
        library_token("Open MPI ", version + sizeof ompi - 1, out, len);
        return;
    }
    size_t n = 0; /* another library: its first line, blanks kept single */
    for (const char *s = version; *s && *s != '\n' && n + 1 < len; s++) {
        char c = *s == '\t' ? ' ' : library_char(*s) ? *s : '_';
        if (c == ' ' && (n == 0 || out[n - 1] == ' '))
            continue;
        out[n++] = c;
    }
    while (n && out[n - 1] == ' ')
        n--;
    out[n] = '\0';
}

int rt_library_valid(const char *s, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        if (!s[i])
            return 1;
        if (!library_char(s[i]))
            return 0;
    }
    return 0;
}
