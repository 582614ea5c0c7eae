/*
 * The OTF2 reader's definitions half: the global definitions as OTF2 hands them out, then
 * turned into rt_defs (ranks are the process location groups, communicators and groups as
 * world ranks, node and module from our properties or the system tree, neighbour lists from
 * our properties: rt__otf2.h).
 */
#define _GNU_SOURCE /* qsort_r */
#include <stdio.h>
#include <string.h>

#include "rt__otf2r.h"

static OTF2_CallbackCode def_string(void *data, OTF2_StringRef ref, const char *s)
{
    otf2r *o = data;
    char *copy = strdup(s);
    if (!copy)
        return OTF2_CALLBACK_ERROR;
    int added;
    uint64_t *at = rt_hmap_put1(&o->string_at, ref, &added);
    if (at && !added) { /* defined again: the last one counts */
        free(o->strings.v[*at]);
        o->strings.v[*at] = copy;
        return OTF2_CALLBACK_SUCCESS;
    }
    if (at) {
        *at = o->strings.n;
        if (!VEC_PUSH(o->strings, copy))
            return OTF2_CALLBACK_SUCCESS;
        rt_hmap_del1(&o->string_at, ref);
    }
    free(copy);
    return OTF2_CALLBACK_ERROR;
}

static const char *string_of(const otf2r *o, uint32_t ref)
{
    const uint64_t *at = rt_hmap_get1(&o->string_at, ref);
    return at ? o->strings.v[*at] : "";
}

static OTF2_CallbackCode def_clock(void *data, uint64_t resolution, uint64_t offset,
                                   uint64_t length, uint64_t realtime)
{
    otf2r *o = data;
    o->resolution = resolution;
    o->offset = offset;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_attribute(void *data, OTF2_AttributeRef ref, OTF2_StringRef name,
                                       OTF2_StringRef desc, OTF2_Type type)
{
    otf2r *o = data;
    for (unsigned i = 0; i < RT__ATTR_COUNT; i++)
        if (!strcmp(string_of(o, name), rt__otf2_attr_names[i]))
            o->attr_ref[i] = ref;
    /* a later definition may take a ref or a name again: the table from attr_ref anew */
    memset(o->attr_tab, 0, sizeof o->attr_tab);
    for (unsigned i = 0; i < RT__ATTR_COUNT; i++)
        if (o->attr_ref[i] < RT__OTF2R_ATTR_TAB)
            o->attr_tab[o->attr_ref[i]] |= (uint16_t)(1u << i);
    return OTF2_CALLBACK_SUCCESS;
}

/* A parameter "retrace::OP" of one of the ops [from, to) of an event kind (rt__otf2.h): its ref
 * into refs[op]. */
static void op_param(const char *s, OTF2_ParameterRef ref, unsigned kind, unsigned from,
                     unsigned to, uint32_t *refs)
{
    const char *pre = RT__OTF2_PARAM_REQUEST_PREFIX;
    if (strncmp(s, pre, strlen(pre)))
        return;
    for (unsigned op = from; op < to; op++)
        if (!strcmp(s + strlen(pre), rt_event_op_name(kind, op)))
            refs[op] = ref;
}

static OTF2_CallbackCode def_parameter(void *data, OTF2_ParameterRef ref, OTF2_StringRef name,
                                       OTF2_ParameterType type)
{
    otf2r *o = data;
    if (type == OTF2_PARAMETER_TYPE_UINT64 && !strcmp(string_of(o, name), RT__OTF2_PARAM_PENDING))
        o->param_pending = ref;
    if (type == OTF2_PARAMETER_TYPE_UINT64 && !strcmp(string_of(o, name), RT__OTF2_PARAM_PEER))
        o->param_peer = ref;
    if (type == OTF2_PARAMETER_TYPE_INT64 && !strcmp(string_of(o, name), RT__OTF2_PARAM_ERROR))
        o->param_error = ref;
    if (type == OTF2_PARAMETER_TYPE_UINT64 &&
        !strcmp(string_of(o, name), RT__OTF2_PARAM_REQUEST_FREE))
        o->param_reqh[RT_REQH_FREE] = ref;
    if (type == OTF2_PARAMETER_TYPE_UINT64) {
        op_param(string_of(o, name), ref, RT_EV_REQUEST_FREE, RT_REQH_FREE + 1, RT_REQH_COUNT,
                 o->param_reqh);
        op_param(string_of(o, name), ref, RT_EV_HANDLE, 0, RT_HANDLE_COUNT, o->param_handle);
        op_param(string_of(o, name), ref, RT_EV_WIN_ATTACH, 0, RT_WATTACH_COUNT, o->param_wattach);
        op_param(string_of(o, name), ref, RT_EV_BUFFER, 0, RT_BUF_COUNT, o->param_buffer);
    }
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_region(void *data, OTF2_RegionRef ref, OTF2_StringRef name,
                                    OTF2_StringRef canonical, OTF2_StringRef desc,
                                    OTF2_RegionRole role, OTF2_Paradigm paradigm,
                                    OTF2_RegionFlag flags, OTF2_StringRef file, uint32_t begin,
                                    uint32_t end)
{
    otf2r *o = data;
    uint64_t *fn = rt_hmap_put1(&o->regions, ref, NULL);
    if (!fn)
        return OTF2_CALLBACK_ERROR;
    *fn = rt_func_lookup(string_of(o, name));
    return OTF2_CALLBACK_SUCCESS;
}

/* The regions as a table by ref (rt__otf2r_region_fn) when the refs are dense: the highest
 * below twice their number (plus a little), so that the table costs what the definitions do.
 * -RT_E_NOMEM. */
static int region_table(otf2r *o)
{
    uint64_t max = 0;
    for (size_t i = 0; i < o->regions.cap; i++)
        if (o->regions.slots[i].k1 != RT_HASH_EMPTY && o->regions.slots[i].k2 > max)
            max = o->regions.slots[i].k2;
    o->region_sparse = max >= 2 * (uint64_t)o->regions.n + 1024;
    if (!o->regions.n || o->region_sparse)
        return 0;
    if (!(o->region_fn = malloc((max + 1) * sizeof *o->region_fn)))
        return -RT_E_NOMEM;
    for (uint64_t i = 0; i <= max; i++)
        o->region_fn[i] = RT_FN_NONE;
    for (size_t i = 0; i < o->regions.cap; i++)
        if (o->regions.slots[i].k1 != RT_HASH_EMPTY)
            o->region_fn[o->regions.slots[i].k2] = (uint16_t)o->regions.slots[i].v;
    o->nregion_fn = (uint32_t)max + 1;
    return 0;
}

static OTF2_CallbackCode def_tree(void *data, OTF2_SystemTreeNodeRef ref, OTF2_StringRef name,
                                  OTF2_StringRef cls, OTF2_SystemTreeNodeRef parent)
{
    otf2r *o = data;
    dtree t = {ref, name, cls, parent};
    return VEC_PUSH(o->tree, t) ? OTF2_CALLBACK_ERROR : OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_locgroup(void *data, OTF2_LocationGroupRef ref, OTF2_StringRef name,
                                      OTF2_LocationGroupType type, OTF2_SystemTreeNodeRef tree,
                                      OTF2_LocationGroupRef creator)
{
    otf2r *o = data;
    dlocgroup g = {ref, type, tree, -1, -1, OTF2_UNDEFINED_STRING, OTF2_UNDEFINED_STRING, 0, 0};
    return VEC_PUSH(o->locgroups, g) ? OTF2_CALLBACK_ERROR : OTF2_CALLBACK_SUCCESS;
}

/* A neighbour-list property (rt__otf2.h): 1 and *p filled, else 0. */
static int nbrs_prop(const char *name, OTF2_Type type, OTF2_AttributeValue value, dnbrs *p)
{
    static const char *const prefix[2] = {RT__OTF2_PROP_SOURCES, RT__OTF2_PROP_DESTS};
    for (int dest = 0; dest < 2; dest++) {
        size_t len = strlen(prefix[dest]);
        uint64_t comm;
        if (type == OTF2_TYPE_GROUP && !strncmp(name, prefix[dest], len) &&
            !rt_parse_u64(name + len, &comm) && comm < OTF2_UNDEFINED_COMM) {
            *p = (dnbrs){.comm = (uint32_t)comm, .group = value.groupRef, .dest = dest};
            return 1;
        }
    }
    return 0;
}

/* Our properties of a location group: node, module and the host facts (rt__otf2.h); others
 * are left to the tools that wrote them. */
static void locgroup_prop(dlocgroup *g, const char *n, OTF2_Type type, OTF2_AttributeValue value)
{
    if (type == OTF2_TYPE_UINT32 && !strcmp(n, RT__OTF2_PROP_NODE))
        g->node = value.uint32;
    else if (type == OTF2_TYPE_UINT32 && !strcmp(n, RT__OTF2_PROP_MODULE))
        g->module = value.uint32;
    else if (type == OTF2_TYPE_UINT32 && !strcmp(n, RT__OTF2_PROP_ONLINE))
        g->online = value.uint32;
    else if (type == OTF2_TYPE_UINT32 && !strcmp(n, RT__OTF2_PROP_NCPUS))
        g->ncpus = value.uint32;
    else if (type == OTF2_TYPE_STRING && !strcmp(n, RT__OTF2_PROP_HOST))
        g->host = value.stringRef;
    else if (type == OTF2_TYPE_STRING && !strcmp(n, RT__OTF2_PROP_CPUS))
        g->cpus = value.stringRef;
}

static OTF2_CallbackCode def_locgroup_prop(void *data, OTF2_LocationGroupRef ref,
                                           OTF2_StringRef name, OTF2_Type type,
                                           OTF2_AttributeValue value)
{
    otf2r *o = data;
    const char *n = string_of(o, name);
    dnbrs nb;
    if (nbrs_prop(n, type, value, &nb)) {
        nb.locgroup = ref;
        return VEC_PUSH(o->nbrs, nb) ? OTF2_CALLBACK_ERROR : OTF2_CALLBACK_SUCCESS;
    }
    for (size_t i = o->locgroups.n; i > 0; i--) /* the latest first: it is usually that one */
        if (o->locgroups.v[i - 1].ref == ref) {
            locgroup_prop(&o->locgroups.v[i - 1], n, type, value);
            break;
        }
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_location(void *data, OTF2_LocationRef ref, OTF2_StringRef name,
                                      OTF2_LocationType type, uint64_t nevents,
                                      OTF2_LocationGroupRef group)
{
    otf2r *o = data;
    dloc l = {ref, nevents, group, type};
    return VEC_PUSH(o->locs, l) ? OTF2_CALLBACK_ERROR : OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_group(void *data, OTF2_GroupRef ref, OTF2_StringRef name,
                                   OTF2_GroupType type, OTF2_Paradigm paradigm,
                                   OTF2_GroupFlag flags, uint32_t n, const uint64_t *members)
{
    otf2r *o = data;
    dgroup g = {ref, type, flags, n, malloc(((size_t)n + 1) * sizeof *members), 0};
    if (!g.members)
        return OTF2_CALLBACK_ERROR;
    memcpy(g.members, members, (size_t)n * sizeof *members);
    if (VEC_PUSH(o->groups, g)) {
        free(g.members);
        return OTF2_CALLBACK_ERROR;
    }
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_comm(void *data, OTF2_CommRef ref, OTF2_StringRef name,
                                  OTF2_GroupRef group, OTF2_CommRef parent, OTF2_CommFlag flags)
{
    otf2r *o = data;
    dcomm c = {ref, name, group, OTF2_UNDEFINED_GROUP, parent};
    return VEC_PUSH(o->comms, c) ? OTF2_CALLBACK_ERROR : OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_intercomm(void *data, OTF2_CommRef ref, OTF2_StringRef name,
                                       OTF2_GroupRef a, OTF2_GroupRef b, OTF2_CommRef common,
                                       OTF2_CommFlag flags)
{
    otf2r *o = data;
    dcomm c = {ref, name, a, b, common};
    return VEC_PUSH(o->comms, c) ? OTF2_CALLBACK_ERROR : OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_win(void *data, OTF2_RmaWinRef ref, OTF2_StringRef name,
                                 OTF2_CommRef comm, OTF2_RmaWinFlag flags)
{
    otf2r *o = data;
    dwin w = {ref, comm, name};
    return VEC_PUSH(o->wins, w) ? OTF2_CALLBACK_ERROR : OTF2_CALLBACK_SUCCESS;
}

/* ---- from OTF2's definitions to ours --------------------------------------------------------- */

static int cmp_locgroup(const void *a, const void *b)
{
    const dlocgroup *x = a, *y = b;
    return x->ref < y->ref ? -1 : x->ref > y->ref;
}

static int64_t rank_of_locgroup(const otf2r *o, uint32_t ref);

static int cmp_xloc(const void *a, const void *b)
{
    const dloc *x = a, *y = b;
    if (x->group != y->group)
        return x->group < y->group ? -1 : 1;
    return x->ref < y->ref ? -1 : x->ref > y->ref;
}

/* A location of a rank's other threads: a CPU thread of a process besides its master (not a
 * GPU's or a metric's, which Score-P also puts in a process's group); its rank, else -1. */
static int64_t other_thread(const otf2r *o, const dloc *l)
{
    int64_t rank = rank_of_locgroup(o, l->group);
    return rank >= 0 && l->type == OTF2_LOCATION_TYPE_CPU_THREAD && l->ref != o->rank_loc[rank]
               ? rank
               : -1;
}

/* The ranks' locations other than their master threads' (o->xloc, o->xfirst): a rank's
 * threads, which Score-P and our writer give locations of their own. */
static int build_threads(rt_reader *r, otf2r *o, size_t n, rt_err *err)
{
    size_t nx = 0;
    for (size_t i = 0; i < o->locs.n; i++) {
        nx += other_thread(o, &o->locs.v[i]) >= 0;
    }
    if (!nx)
        return 0;
    o->xloc = malloc(nx * sizeof *o->xloc);
    o->xfirst = calloc(n + 1, sizeof *o->xfirst);
    if (!o->xloc || !o->xfirst)
        return rt_err_set(err, RT_E_NOMEM, "%s: out of memory", r->path);
    size_t k = 0;
    for (size_t i = 0; i < o->locs.n; i++) {
        int64_t rank = other_thread(o, &o->locs.v[i]);
        if (rank < 0)
            continue;
        o->xloc[k] = o->locs.v[i];
        o->xloc[k++].group = (uint32_t)rank;
    }
    qsort(o->xloc, nx, sizeof *o->xloc, cmp_xloc);
    k = 0; /* a location defined twice (a damaged archive) is read once */
    for (size_t i = 0; i < nx; i++)
        if (!k || o->xloc[i].ref != o->xloc[k - 1].ref || o->xloc[i].group != o->xloc[k - 1].group)
            o->xloc[k++] = o->xloc[i];
    for (size_t i = 0; i < k; i++)
        o->xfirst[o->xloc[i].group + 1]++;
    for (size_t i = 0; i < n; i++)
        o->xfirst[i + 1] += o->xfirst[i];
    return 0;
}

static dgroup *find_group(otf2r *o, uint32_t ref)
{
    for (size_t i = 0; i < o->groups.n; i++)
        if (o->groups.v[i].ref == ref)
            return &o->groups.v[i];
    return NULL;
}

/* Rank of a location group ref (location groups are sorted by ref); -RT_E_NOTFOUND if none. */
static int64_t rank_of_locgroup(const otf2r *o, uint32_t ref)
{
    size_t lo = 0, hi = o->locgroups.n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (o->locgroups.v[mid].ref < ref)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < o->locgroups.n && o->locgroups.v[lo].ref == ref ? (int64_t)lo : -RT_E_NOTFOUND;
}

static int64_t rank_of_location(const otf2r *o, uint64_t loc)
{
    for (size_t i = 0; i < o->locs.n; i++)
        if (o->locs.v[i].ref == loc)
            return rank_of_locgroup(o, o->locs.v[i].group);
    return -RT_E_NOTFOUND;
}

/* World ranks of a communicator group's members: indices into the COMM_LOCATIONS group
 * (or location refs themselves with GLOBAL_MEMBERS); -RT_E_NOTFOUND when a member is none
 * of them. */
static int group_ranks(otf2r *o, const dgroup *g, const dgroup *locs, uint32_t *out)
{
    for (uint32_t i = 0; i < g->n; i++) {
        uint64_t loc = g->members[i];
        if (!(g->flags & OTF2_GROUP_FLAG_GLOBAL_MEMBERS)) {
            if (!locs || loc >= locs->n)
                return -RT_E_NOTFOUND;
            loc = locs->members[loc];
        }
        int64_t r = rank_of_location(o, loc);
        if (r < 0)
            return -RT_E_NOTFOUND;
        out[i] = (uint32_t)r;
    }
    return 0;
}

/* Ordinal of the nearest system tree ancestor of class cls among all nodes of that class;
 * -RT_E_NOTFOUND if there is none. */
static int64_t tree_ordinal(const otf2r *o, uint32_t ref, const char *cls)
{
    for (int hops = 0; ref != OTF2_UNDEFINED_SYSTEM_TREE_NODE && hops < 64; hops++) {
        const dtree *t = NULL;
        for (size_t i = 0; i < o->tree.n && !t; i++)
            if (o->tree.v[i].ref == ref)
                t = &o->tree.v[i];
        if (!t)
            return -RT_E_NOTFOUND;
        if (!strcmp(string_of(o, t->cls), cls)) {
            int64_t ord = 0;
            for (size_t i = 0; i < o->tree.n; i++)
                if (o->tree.v[i].ref < ref && !strcmp(string_of(o, o->tree.v[i].cls), cls))
                    ord++;
            return ord;
        }
        ref = t->parent;
    }
    return -RT_E_NOTFOUND;
}

static int cmp_dnbrs(const void *a, const void *b)
{
    const dnbrs *x = a, *y = b;
    if (x->locgroup != y->locgroup)
        return x->locgroup < y->locgroup ? -1 : 1;
    if (x->comm != y->comm)
        return x->comm < y->comm ? -1 : 1;
    return x->dest - y->dest;
}

static int cmp_group_ref(const void *a, const void *b, void *data)
{
    const dgroup *g = data;
    uint32_t x = g[*(const uint32_t *)a].ref, y = g[*(const uint32_t *)b].ref;
    return (x > y) - (x < y);
}

/* The group with ref among o->groups, through by_ref (group indices sorted by ref). */
static const dgroup *group_by_ref(const otf2r *o, const uint32_t *by_ref, uint32_t ref)
{
    size_t lo = 0, hi = o->groups.n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (o->groups.v[by_ref[mid]].ref < ref)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < o->groups.n && o->groups.v[by_ref[lo]].ref == ref ? &o->groups.v[by_ref[lo]] : NULL;
}

/* A neighbour list from its group: communicator ranks, OTF2_UNDEFINED_UINT64 for none; -RT_E_RANGE
 * for a rank past INT32_MAX. */
static int nbr_list(const dgroup *g, int32_t *out)
{
    for (uint32_t i = 0; i < g->n; i++) {
        if (g->members[i] == OTF2_UNDEFINED_UINT64)
            out[i] = RT_PEER_NONE;
        else if (g->members[i] <= INT32_MAX)
            out[i] = (int32_t)g->members[i];
        else
            return -RT_E_RANGE;
    }
    return 0;
}

/* The neighbour lists of our properties, a pair of properties (sources, destinations) per
 * rank and communicator; ranks in order, so that they append to r->defs. */
static int build_nbrs(rt_reader *r, otf2r *o, rt_err *err)
{
    const char *p = r->path;
    if (!o->nbrs.n)
        return 0;
    qsort(o->nbrs.v, o->nbrs.n, sizeof *o->nbrs.v, cmp_dnbrs);
    uint32_t *by_ref = malloc((o->groups.n + 1) * sizeof *by_ref);
    int32_t *lists[2] = {NULL, NULL};
    if (!by_ref)
        return rt_err_set(err, RT_E_NOMEM, "%s: out of memory", p);
    for (size_t i = 0; i < o->groups.n; i++)
        by_ref[i] = (uint32_t)i;
    qsort_r(by_ref, o->groups.n, sizeof *by_ref, cmp_group_ref, o->groups.v);
    int rc = 0;
    for (size_t i = 0; i < o->nbrs.n && !rc; i += 2) {
        const dnbrs *s = &o->nbrs.v[i], *d = i + 1 < o->nbrs.n ? &o->nbrs.v[i + 1] : NULL;
        int64_t rank = rank_of_locgroup(o, s->locgroup);
        if (rank < 0 || s->dest || !d || d->locgroup != s->locgroup || d->comm != s->comm ||
            !d->dest) {
            rc = rt_err_set(err, RT_E_FORMAT,
                            "%s: damaged OTF2 archive: location group %u: neighbour lists of "
                            "communicator %u without a process, or not as a pair of sources "
                            "and destinations",
                            p, (unsigned)s->locgroup, (unsigned)s->comm);
            break;
        }
        const dgroup *g[2] = {group_by_ref(o, by_ref, s->group), group_by_ref(o, by_ref, d->group)};
        for (int k = 0; k < 2 && !rc; k++) {
            free(lists[k]);
            lists[k] = g[k] ? malloc(((size_t)g[k]->n + 1) * sizeof *lists[k]) : NULL;
            if (!g[k] || !lists[k] || nbr_list(g[k], lists[k]))
                rc = !g[k] || lists[k]
                         ? rt_err_set(err, RT_E_FORMAT,
                                      "%s: damaged OTF2 archive: rank %u: the neighbour list "
                                      "group %u of communicator %u is missing or not ranks",
                                      p, (unsigned)rank, (unsigned)(k ? d : s)->group,
                                      (unsigned)s->comm)
                         : rt_err_set(err, RT_E_NOMEM, "%s: out of memory", p);
        }
        if (!rc)
            rc = rt_defs_add_nbrs(&r->defs, s->comm, (uint32_t)rank, g[0]->n, lists[0], g[1]->n,
                                  lists[1], err);
    }
    free(lists[0]);
    free(lists[1]);
    free(by_ref);
    return rc;
}

/* The host properties of rank i's location group (rt_defs_set_host checks them). */
static int set_host(rt_reader *r, const otf2r *o, size_t i, const dlocgroup *g, rt_err *err)
{
    const char *cpus = g->cpus != OTF2_UNDEFINED_STRING ? string_of(o, g->cpus) : NULL;
    int rc = rt_defs_set_host(&r->defs, (uint32_t)i, string_of(o, g->host), g->online, g->ncpus,
                              cpus, err);
    return rc < 0 ? rt__err_prefix(err, rc, r->path) : 0;
}

/* Ranks: the process location groups, in ref order (Score-P: ref = MPI rank); r->defs made
 * for that many, each rank's master thread location found and its node and module set. */
static int build_ranks(rt_reader *r, otf2r *o, rt_err *err)
{
    const char *p = r->path;
    size_t n = 0;
    for (size_t i = 0; i < o->locgroups.n; i++)
        if (o->locgroups.v[i].type == OTF2_LOCATION_GROUP_TYPE_PROCESS)
            o->locgroups.v[n++] = o->locgroups.v[i];
    o->locgroups.n = n;
    if (n == 0)
        return rt_err_set(err, RT_E_FORMAT, "%s: damaged OTF2 archive: no processes defined", p);
    qsort(o->locgroups.v, n, sizeof *o->locgroups.v, cmp_locgroup);
    if (n > UINT32_MAX)
        return rt_err_set(err, RT_E_RANGE, "%s: %zu processes, more than a trace may have", p, n);
    int rc = rt_defs_init(&r->defs, (uint32_t)n, err);
    if (rc)
        return rt__err_prefix(err, rc, p);
    o->rank_loc = malloc(n * sizeof *o->rank_loc);
    o->rank_nevents = calloc(n, sizeof *o->rank_nevents);
    if (!o->rank_loc || !o->rank_nevents)
        return rt_err_set(err, RT_E_NOMEM, "%s: out of memory", p);
    for (size_t i = 0; i < n; i++)
        o->rank_loc[i] = OTF2_UNDEFINED_LOCATION;
    for (size_t i = 0; i < o->locs.n; i++) {
        int64_t rank = rank_of_locgroup(o, o->locs.v[i].group);
        /* One location per rank: the master thread, i.e. the lowest ref. */
        if (rank >= 0 && o->locs.v[i].ref < o->rank_loc[rank]) {
            o->rank_loc[rank] = o->locs.v[i].ref;
            o->rank_nevents[rank] = o->locs.v[i].nevents;
        }
    }
    for (size_t i = 0; i < n; i++) {
        const dlocgroup *g = &o->locgroups.v[i];
        if (o->rank_loc[i] == OTF2_UNDEFINED_LOCATION)
            return rt_err_set(err, RT_E_FORMAT,
                              "%s: damaged OTF2 archive: rank %zu has no location", p, i);
        int64_t node = g->node >= 0 ? g->node : tree_ordinal(o, g->tree, "node");
        int64_t module = g->module >= 0 ? g->module : tree_ordinal(o, g->tree, "module");
        r->defs.node[i] = node >= 0 ? (uint32_t)node : 0;
        r->defs.module[i] = module >= 0 ? (uint32_t)module : 0;
        if (g->host != OTF2_UNDEFINED_STRING && (rc = set_host(r, o, i, g, err)) < 0)
            return rc;
    }
    return build_threads(r, o, n, err);
}

/* The communicators, their groups' members as world ranks (locs: the COMM_LOCATIONS group,
 * if any; m: room for two groups of every rank). */
static int build_comms(rt_reader *r, otf2r *o, const dgroup *locs, uint32_t *m, rt_err *err)
{
    const char *p = r->path;
    size_t n = o->locgroups.n;
    int rc = 0;
    for (size_t i = 0; i < o->comms.n && !rc; i++) {
        const dcomm *c = &o->comms.v[i];
        dgroup *ga = find_group(o, c->group);
        dgroup *gb = c->group_b == OTF2_UNDEFINED_GROUP ? NULL : find_group(o, c->group_b);
        if (!ga || (c->group_b != OTF2_UNDEFINED_GROUP && !gb) || ga->n > n || (gb && gb->n > n)) {
            rc = rt_err_set(err, RT_E_FORMAT,
                            "%s: damaged OTF2 archive: communicator %u has no valid group", p,
                            (unsigned)c->ref);
            break;
        }
        ga->used = 1;
        if (gb)
            gb->used = 1;
        uint32_t flags = 0, na = ga->n, nb = gb ? gb->n : 0;
        if (ga->type == OTF2_GROUP_TYPE_COMM_SELF) {
            flags = RT_COMM_IS_SELF;
            na = 1;
            m[0] = 0;
        } else if (group_ranks(o, ga, locs, m) || (gb && group_ranks(o, gb, locs, m + na))) {
            rc = rt_err_set(err, RT_E_FORMAT,
                            "%s: damaged OTF2 archive: communicator %u has unknown members", p,
                            (unsigned)c->ref);
            break;
        }
        rt__defs_drop_comm(&r->defs, c->ref);
        uint32_t parent = c->parent == OTF2_UNDEFINED_COMM ? RT_ID_NONE : c->parent;
        rc = rt_defs_add_comm(&r->defs, c->ref, parent, flags, na, nb, m, string_of(o, c->name),
                              err);
    }
    return rc;
}

/* The groups no communicator uses are MPI groups (PSCW names them): our ids number them
 * densely in definition order, as the writer wrote them (locs and m as for build_comms). */
static int build_groups(rt_reader *r, otf2r *o, const dgroup *locs, uint32_t *m, rt_err *err)
{
    size_t n = o->locgroups.n;
    uint32_t next_group = 0;
    int rc = 0;
    for (size_t i = 0; i < o->groups.n && !rc; i++) {
        const dgroup *g = &o->groups.v[i];
        if (g->used || g->type != OTF2_GROUP_TYPE_COMM_GROUP || g->n > n)
            continue;
        if (group_ranks(o, g, locs, m)) {
            rc = rt_err_set(err, RT_E_FORMAT,
                            "%s: damaged OTF2 archive: group %u has unknown members", r->path,
                            (unsigned)g->ref);
        } else {
            uint64_t *id = rt_hmap_put1(&o->group_id, g->ref, NULL);
            if (!id)
                return rt_err_set(err, RT_E_NOMEM, "%s: out of memory", r->path);
            *id = next_group;
            rc = rt_defs_add_group(&r->defs, next_group++, g->n, m, err);
        }
    }
    return rc;
}

int rt__otf2r_build_defs(rt_reader *r, otf2r *o, rt_err *err)
{
    const char *p = r->path;
    int rc = build_ranks(r, o, err);
    if (rc)
        return rc;
    const dgroup *locs = NULL;
    for (size_t i = 0; i < o->groups.n && !locs; i++)
        if (o->groups.v[i].type == OTF2_GROUP_TYPE_COMM_LOCATIONS)
            locs = &o->groups.v[i];
    uint32_t *m = malloc((2 * o->locgroups.n + 1) * sizeof *m);
    if (!m)
        return rt_err_set(err, RT_E_NOMEM, "%s: out of memory", p);
    rc = build_comms(r, o, locs, m, err);
    if (!rc)
        rc = build_groups(r, o, locs, m, err);
    free(m);
    for (size_t i = 0; i < o->wins.n && !rc; i++)
        rc = rt__otf2r_build_win(r, o, o->wins.v[i].ref, o->wins.v[i].comm,
                                 string_of(o, o->wins.v[i].name), err);
    if (!rc)
        rc = build_nbrs(r, o, err);
    if (rc && err && strncmp(err->msg, p, strlen(p))) {
        char msg[RT_ERR_LEN];
        snprintf(msg, sizeof msg, "%s", err->msg);
        rt_err_set(err, err->code, "%s: damaged OTF2 archive: %s", p, msg);
    }
    return rc;
}

int rt__otf2r_read_global_defs(rt_reader *r, otf2r *o, rt_err *err)
{
    /* OTF2 trusts the counts of the records and reads a short last chunk past the end of the
     * file: the file is walked first (otf2_defcheck.c). */
    int rc = rt__otf2r_check_defs(r, o, ".def", 0, NULL, err);
    if (rc)
        return rc;
    OTF2_GlobalDefReader *gdr = OTF2_Reader_GetGlobalDefReader(o->reader);
    if (!gdr)
        return rt__otf2_fail(err, RT_E_FORMAT, r->path,
                             "damaged OTF2 archive: definitions unreadable", OTF2_ERROR_INVALID);
    OTF2_GlobalDefReaderCallbacks *cb = OTF2_GlobalDefReaderCallbacks_New();
    if (!cb)
        return rt_err_set(err, RT_E_NOMEM, "%s: out of memory", r->path);
    OTF2_GlobalDefReaderCallbacks_SetStringCallback(cb, def_string);
    OTF2_GlobalDefReaderCallbacks_SetClockPropertiesCallback(cb, def_clock);
    OTF2_GlobalDefReaderCallbacks_SetAttributeCallback(cb, def_attribute);
    OTF2_GlobalDefReaderCallbacks_SetParameterCallback(cb, def_parameter);
    OTF2_GlobalDefReaderCallbacks_SetRegionCallback(cb, def_region);
    OTF2_GlobalDefReaderCallbacks_SetSystemTreeNodeCallback(cb, def_tree);
    OTF2_GlobalDefReaderCallbacks_SetLocationGroupCallback(cb, def_locgroup);
    OTF2_GlobalDefReaderCallbacks_SetLocationGroupPropertyCallback(cb, def_locgroup_prop);
    OTF2_GlobalDefReaderCallbacks_SetLocationCallback(cb, def_location);
    OTF2_GlobalDefReaderCallbacks_SetGroupCallback(cb, def_group);
    OTF2_GlobalDefReaderCallbacks_SetCommCallback(cb, def_comm);
    OTF2_GlobalDefReaderCallbacks_SetInterCommCallback(cb, def_intercomm);
    OTF2_GlobalDefReaderCallbacks_SetRmaWinCallback(cb, def_win);
    OTF2_ErrorCode ec = OTF2_Reader_RegisterGlobalDefCallbacks(o->reader, gdr, cb, o);
    OTF2_GlobalDefReaderCallbacks_Delete(cb);
    uint64_t n = 0;
    if (ec == OTF2_SUCCESS)
        ec = OTF2_Reader_ReadAllGlobalDefinitions(o->reader, gdr, &n);
    OTF2_Reader_CloseGlobalDefReader(o->reader, gdr);
    if (ec != OTF2_SUCCESS)
        return rt__otf2_fail(err, RT_E_FORMAT, r->path,
                             "damaged OTF2 archive: definitions unreadable", ec);
    if (o->resolution == 0)
        return rt_err_set(err, RT_E_FORMAT, "%s: damaged OTF2 archive: no clock properties",
                          r->path);
    if (region_table(o))
        return rt_err_set(err, RT_E_NOMEM, "%s: out of memory", r->path);
    return 0;
}
