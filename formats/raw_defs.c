/*
 * The raw reader's definitions pass: every rank's DEF records, ranks in order, each file in
 * order, and one global id for each communicator, group and window however many ranks
 * defined it under their own local ids. Which records of different ranks describe the same
 * object is decided by keys (rt_raw.h says which), kept in hash tables: thousands of ranks
 * and communicators cost time in proportion to what their files hold.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rt__raw.h"

#define DEFS_BUF (64u << 10)

/* ---- hash maps ------------------------------------------------------------------------------ */

/* Local ids and occurrence counts: rt_hmap with one key. */
static int imap_put(rt_hmap *m, uint64_t key, uint32_t val)
{
    uint64_t *v = rt_hmap_put1(m, key, NULL);
    if (!v)
        return -RT_E_NOMEM;
    *v = val;
    return 0;
}

/* Keys of 32-bit words (member lists and the like) to 32-bit values. The keys live in one
 * growing arena, so a map of thousands of communicators costs a few allocations; the table
 * keeps each key's hash, so growing it reads no key. */
typedef struct kslot {
    uint64_t hash;
    size_t off;   /* of the key in the arena */
    uint32_t len; /* words; 0 marks an empty slot */
    uint32_t val;
} kslot;

typedef struct kmap {
    kslot *slots;
    size_t cap, n;
    uint32_t *arena;
    size_t alen, acap;
} kmap;

static int kslot_empty(const void *s)
{
    return !((const kslot *)s)->len;
}

static void kslot_clear(void *s)
{
    ((kslot *)s)->len = 0;
}

static uint64_t kslot_hash(const void *s)
{
    return ((const kslot *)s)->hash;
}

static const rt_htab_ops kslot_ops = {
    .size = sizeof(kslot), .empty = kslot_empty, .clear = kslot_clear, .hash = kslot_hash};

RT_WRAPS static uint64_t hash_words(const uint32_t *k, uint32_t len)
{
    uint64_t h = len;
    for (uint32_t i = 0; i < len; i++)
        h = (h ^ k[i]) * 0x9e3779b97f4a7c15ULL;
    return rt_hash_u64(h);
}

/* The value of key (len >= 1 words) in *val; a new key gets the value *val holds, and
 * *added says which. 0, or -RT_E_NOMEM. */
static int kmap_get(kmap *m, const uint32_t *key, uint32_t len, uint32_t *val, int *added)
{
    *added = 0;
    if (rt_htab_full(m->n, m->cap, 1, 2) && rt_htab_grow(&m->slots, &m->cap, 64, &kslot_ops) < 0)
        return -RT_E_NOMEM;
    uint64_t h = hash_words(key, len);
    size_t mask = m->cap - 1, i = h & mask;
    for (; m->slots[i].len; i = (i + 1) & mask) {
        const kslot *s = &m->slots[i];
        if (s->hash == h && s->len == len && !memcmp(m->arena + s->off, key, len * sizeof *key)) {
            *val = s->val;
            return 0;
        }
    }
    if (RT_VEC_RESERVE(m->arena, m->acap, (uint64_t)m->alen + len, 1024) < 0)
        return -RT_E_NOMEM;
    memcpy(m->arena + m->alen, key, len * sizeof *key);
    m->slots[i] = (kslot){.hash = h, .off = m->alen, .len = len, .val = *val};
    m->alen += len;
    m->n++;
    *added = 1;
    return 0;
}

static void kmap_free(kmap *m)
{
    free(m->slots);
    free(m->arena);
    memset(m, 0, sizeof *m);
}

/* ---- ids ------------------------------------------------------------------------------------ */

enum { K_COLL = 1, K_TRIPLE, K_PAIR, K_CREATE_GROUP, K_INTERCOMM, K_GROUP, K_WIN };
enum { O_TRIPLE = 1, O_PAIR }; /* occurrence counters, keyed like local ids */

struct rt__raw_ids {
    rt_hmap local;    /* (kind, rank, local id) -> global id */
    rt_hmap units;    /* (global window id, world rank) -> the rank's disp_unit, when known */
    rt_hmap win_from; /* (global window id, RT_RAW_DEF_WIN_NAME or _INFO) -> 1 + the rank that gave
                         it */
    /* while the definitions are read */
    kmap keys;
    rt_hmap occ;
    uint32_t *key, *mem; /* scratch: a key being built, a definition's members */
    size_t key_cap, mem_cap;
    uint32_t ncomms, ngroups, nwins, ntriples, npairs; /* ids handed out so far */
    rt__rfile f;
};

static const char *const local_what[] = {"", "communicator", "group", "window"};

static uint64_t local_key(unsigned kind, uint32_t rank, uint32_t id)
{
    return (uint64_t)kind << 56 | (uint64_t)rank << 32 | id; /* ranks are below 2^24 */
}

rt__raw_ids *rt__raw_ids_new(void)
{
    rt__raw_ids *u = calloc(1, sizeof *u);
    if (u) {
        u->ncomms = RT_COMM_SELF + 1;
        u->f.fd = -1;
    }
    return u;
}

void rt__raw_defs_done(rt__raw_ids *u)
{
    kmap_free(&u->keys);
    rt_hmap_free(&u->occ);
    rt_hmap_free(&u->win_from);
    free(u->key);
    free(u->mem);
    free(u->f.buf);
    u->key = u->mem = NULL;
    u->key_cap = u->mem_cap = 0;
    u->f = (rt__rfile){.fd = -1};
}

void rt__raw_ids_free(rt__raw_ids *u)
{
    if (!u)
        return;
    rt__raw_defs_done(u);
    rt_hmap_free(&u->local);
    rt_hmap_free(&u->units);
    free(u);
}

int rt__raw_global(const rt__raw_ids *u, unsigned kind, uint32_t rank, uint32_t id, uint32_t *out)
{
    if (kind == RT__RAW_COMM && id <= RT_COMM_SELF) {
        *out = id;
        return 0;
    }
    const uint64_t *v = rt_hmap_get1(&u->local, local_key(kind, rank, id));
    if (!v)
        return -RT_E_NOTFOUND;
    *out = (uint32_t)*v;
    return 0;
}

uint32_t rt__raw_disp_unit(const rt__raw_ids *u, uint32_t win, uint32_t rank)
{
    const uint64_t *v = rt_hmap_get(&u->units, win, rank);
    return v ? (uint32_t)*v : 0;
}

/* Appends n words to the key being built in u->key, *len words long so far. */
static int key_add(rt__raw_ids *u, uint32_t *len, const uint32_t *w, uint32_t n)
{
    if (RT_VEC_RESERVE(u->key, u->key_cap, (uint64_t)*len + n, 64) < 0)
        return -RT_E_NOMEM;
    memcpy(u->key + *len, w, n * sizeof *w);
    *len += n;
    return 0;
}

/* The id of the key u->key[0, len): found, or *next (then incremented; *added = 1).
 * 0, or -RT_E_NOMEM. */
static int key_id(rt__raw_ids *u, uint32_t len, uint32_t *next, uint32_t *id, int *added)
{
    *id = *next;
    int rc = kmap_get(&u->keys, u->key, len, id, added);
    if (rc == 0 && *added)
        (*next)++;
    return rc;
}

/* How often this rank has seen the (triple or pair) id before; counts this time. */
static int occurrence(rt__raw_ids *u, unsigned kind, uint32_t rank, uint32_t id, uint32_t *occ)
{
    uint64_t k = local_key(kind, rank, id);
    uint64_t *v = rt_hmap_get1(&u->occ, k);
    if (v) {
        *occ = (uint32_t)(*v)++;
        return 0;
    }
    *occ = 0;
    return imap_put(&u->occ, k, 1);
}

static uint32_t lowest(const uint32_t *m, uint32_t n)
{
    uint32_t lo = UINT32_MAX;
    for (uint32_t i = 0; i < n; i++)
        if (m[i] < lo)
            lo = m[i];
    return lo;
}

/* Members of an existing communicator equal these, read from either side of an
 * inter-communicator. */
static int same_members(const rt_comm_def *c, uint32_t size, uint32_t remote, const uint32_t *m)
{
    if (c->size == size && c->remote_size == remote &&
        !memcmp(c->members, m, ((size_t)size + remote) * sizeof *m))
        return 1;
    return remote && c->size == remote && c->remote_size == size &&
           !memcmp(c->members, m + size, (size_t)remote * sizeof *m) &&
           !memcmp(c->members + remote, m, (size_t)size * sizeof *m);
}

/* The key of a new communicator (members in u->mem) in u->key, by the rules of rt_raw.h. */
static int comm_key(rt__raw_ids *u, uint32_t rank, const rt_raw_def_comm *d, uint32_t gparent,
                    uint32_t *len)
{
    const uint32_t *m = u->mem;
    uint32_t n = d->size + d->remote_size, id, occ;
    int added;
    *len = 0;
    if (d->how == RT_FN_Comm_create_group || d->how == RT_FN_Comm_create_from_group) {
        uint32_t head[5] = {K_TRIPLE, gparent, d->how, (uint32_t)d->tag, n};
        if (key_add(u, len, head, 5) || key_add(u, len, m, n) ||
            key_id(u, *len, &u->ntriples, &id, &added) < 0 ||
            occurrence(u, O_TRIPLE, rank, id, &occ))
            return -RT_E_NOMEM;
        uint32_t k[3] = {K_CREATE_GROUP, id, occ};
        *len = 0;
        return key_add(u, len, k, 3);
    }
    if (d->how == RT_FN_Intercomm_create || d->how == RT_FN_Intercomm_create_from_groups) {
        /* The two sides see the groups swapped: the one with the lower lowest rank first. */
        const uint32_t *a = m, *b = m + d->size;
        uint32_t na = d->size, nb = d->remote_size;
        if (lowest(b, nb) < lowest(a, na)) {
            a = b, b = m;
            na = nb, nb = d->size;
        }
        uint32_t head[4] = {K_PAIR, d->how, (uint32_t)d->tag, na};
        if (key_add(u, len, head, 4) || key_add(u, len, a, na) || key_add(u, len, &nb, 1) ||
            key_add(u, len, b, nb) || key_id(u, *len, &u->npairs, &id, &added) < 0 ||
            occurrence(u, O_PAIR, rank, id, &occ))
            return -RT_E_NOMEM;
        uint32_t k[3] = {K_INTERCOMM, id, occ};
        *len = 0;
        return key_add(u, len, k, 3);
    }
    uint32_t k[4] = {K_COLL, gparent, d->seq, lowest(m, n)};
    return key_add(u, len, k, 4);
}

/* ---- definition records -------------------------------------------------------------------- */

/* Everything a definition handler needs to know about the record in hand. */
typedef struct defctx {
    rt__raw_ids *u;
    rt_defs *defs;
    rt__raw_clock *clock;
    uint32_t rank;
    const char *path;
    uint64_t off;
    const unsigned char *payload;
    uint32_t nbytes;
} defctx;

/* Copies n member world ranks from the payload at byte at into u->mem, checking them. */
static int get_members(const defctx *c, size_t at, uint64_t n, const char *what, uint32_t id,
                       rt_err *err)
{
    if (at + n * 4 > c->nbytes)
        return rt__raw_fail_at(err, c->path, c->off,
                               "%s %u: %llu members do not fit a payload of %u bytes", what,
                               (unsigned)id, (unsigned long long)n, (unsigned)c->nbytes);
    if (RT_VEC_RESERVE(c->u->mem, c->u->mem_cap, (uint64_t)n + 1, 64) < 0)
        return rt_err_set(err, RT_E_NOMEM, "%s: out of memory", c->path);
    memcpy(c->u->mem, c->payload + at, n * 4);
    for (uint64_t i = 0; i < n; i++)
        if (c->u->mem[i] >= c->defs->nranks)
            return rt__raw_fail_at(
                err, c->path, c->off, "%s %u: member %u is not a world rank (0 to %u)", what,
                (unsigned)id, (unsigned)c->u->mem[i], (unsigned)c->defs->nranks - 1);
    return 0;
}

/* Records local id -> global id, refusing a local id used twice. */
static int map_local(const defctx *c, unsigned kind, uint32_t id, uint32_t gid, rt_err *err)
{
    uint64_t k = local_key(kind, c->rank, id);
    if (rt_hmap_get1(&c->u->local, k) || (kind == RT__RAW_COMM && id <= RT_COMM_SELF))
        return rt__raw_fail_at(err, c->path, c->off, "%s %u is defined twice", local_what[kind],
                               (unsigned)id);
    if (imap_put(&c->u->local, k, gid))
        return rt_err_set(err, RT_E_NOMEM, "%s: out of memory", c->path);
    return 0;
}

/* An error of rt_defs_add_* (already in err), with the place. */
static int add_failed(const defctx *c, rt_err *err)
{
    char msg[RT_ERR_LEN];
    snprintf(msg, sizeof msg, "%s", err->msg);
    if (err->code == RT_E_NOMEM)
        return rt_err_set(err, RT_E_NOMEM, "%s: %s", c->path, msg);
    return rt__raw_fail_at(err, c->path, c->off, "%s", msg);
}

static int no_memory(const defctx *c, rt_err *err)
{
    return rt_err_set(err, RT_E_NOMEM, "%s: out of memory", c->path);
}

static int def_comm(const defctx *c, rt_err *err)
{
    rt_raw_def_comm d;
    if (c->nbytes < sizeof d)
        return rt__raw_fail_at(err, c->path, c->off,
                               "communicator definition of %u bytes is too short",
                               (unsigned)c->nbytes);
    memcpy(&d, c->payload, sizeof d);
    const char *name = d.how ? rt_func_name(d.how) : NULL;
    if (!name)
        return rt__raw_fail_at(err, c->path, c->off,
                               "communicator %u: unknown creating function %u", (unsigned)d.id,
                               (unsigned)d.how);
    if (d.size == 0)
        return rt__raw_fail_at(err, c->path, c->off, "communicator %u has no members",
                               (unsigned)d.id);
    if ((d.how == RT_FN_Intercomm_create || d.how == RT_FN_Intercomm_create_from_groups) &&
        d.remote_size == 0)
        return rt__raw_fail_at(err, c->path, c->off, "communicator %u: %s without a remote group",
                               (unsigned)d.id, name);
    int rc = get_members(c, sizeof d, (uint64_t)d.size + d.remote_size, "communicator", d.id, err);
    if (rc)
        return rc;
    uint32_t gparent;
    if (rt__raw_global(c->u, RT__RAW_COMM, c->rank, d.parent, &gparent))
        return rt__raw_fail_at(err, c->path, c->off,
                               "communicator %u: parent communicator %u is not defined",
                               (unsigned)d.id, (unsigned)d.parent);
    int member = 0;
    for (uint32_t i = 0; i < d.size && !member; i++)
        member = c->u->mem[i] == c->rank;
    if (!member)
        return rt__raw_fail_at(err, c->path, c->off,
                               "communicator %u: rank %u is not in its local group", (unsigned)d.id,
                               (unsigned)c->rank);
    uint32_t len, gid;
    int added;
    if (comm_key(c->u, c->rank, &d, gparent, &len) ||
        key_id(c->u, len, &c->u->ncomms, &gid, &added) < 0)
        return no_memory(c, err);
    if (added) {
        if (rt_defs_add_comm(c->defs, gid, gparent, d.remote_size ? RT_COMM_IS_INTER : 0, d.size,
                             d.remote_size, c->u->mem, name, err))
            return add_failed(c, err);
    } else if (!same_members(rt_defs_comm(c->defs, gid), d.size, d.remote_size, c->u->mem)) {
        return rt__raw_fail_at(
            err, c->path, c->off,
            "communicator %u (%s) has other members than the same communicator on a lower rank",
            (unsigned)d.id, name);
    }
    return map_local(c, RT__RAW_COMM, d.id, gid, err);
}

static int def_group(const defctx *c, rt_err *err)
{
    rt_raw_def_group d;
    if (c->nbytes < sizeof d)
        return rt__raw_fail_at(err, c->path, c->off, "group definition of %u bytes is too short",
                               (unsigned)c->nbytes);
    memcpy(&d, c->payload, sizeof d);
    int rc = get_members(c, sizeof d, d.size, "group", d.id, err);
    if (rc)
        return rc;
    uint32_t head[2] = {K_GROUP, d.size}, len = 0, gid;
    int added;
    if (key_add(c->u, &len, head, 2) || key_add(c->u, &len, c->u->mem, d.size) ||
        key_id(c->u, len, &c->u->ngroups, &gid, &added) < 0)
        return no_memory(c, err);
    if (added && rt_defs_add_group(c->defs, gid, d.size, c->u->mem, err))
        return add_failed(c, err);
    return map_local(c, RT__RAW_GROUP, d.id, gid, err);
}

static int def_win(const defctx *c, rt_err *err)
{
    rt_raw_def_win d;
    if (c->nbytes < sizeof d)
        return rt__raw_fail_at(err, c->path, c->off, "window definition of %u bytes is too short",
                               (unsigned)c->nbytes);
    memcpy(&d, c->payload, sizeof d);
    uint32_t gcomm;
    if (rt__raw_global(c->u, RT__RAW_COMM, c->rank, d.comm, &gcomm))
        return rt__raw_fail_at(err, c->path, c->off, "window %u: communicator %u is not defined",
                               (unsigned)d.id, (unsigned)d.comm);
    /* Each rank's MPI_COMM_SELF is a communicator of its own, though all share id 1: a
     * window on it is the rank's own too. */
    uint32_t k[4] = {K_WIN, gcomm, d.seq, gcomm == RT_COMM_SELF ? c->rank : 0}, len = 0, gid;
    int added;
    if (key_add(c->u, &len, k, 4) || key_id(c->u, len, &c->u->nwins, &gid, &added) < 0)
        return no_memory(c, err);
    if (added && rt_defs_add_win(c->defs, gid, gcomm, err))
        return add_failed(c, err);
    if (d.disp_unit) { /* 0: a tracer before RT_RAW_FLAG_RMA_TARGETS, or a unit it could not keep */
        uint64_t *unit = rt_hmap_put(&c->u->units, gid, c->rank, NULL);
        if (!unit)
            return no_memory(c, err);
        *unit = d.disp_unit;
    }
    return map_local(c, RT__RAW_WIN, d.id, gid, err);
}

/* 1 when this rank's name (what RT_RAW_DEF_WIN_NAME) or info keys (_INFO) of global window gid
 * are the trace's: no lower rank gave any (rt_raw.h); 0 when they are left out; < 0 no memory. */
static int win_from_rank(const defctx *c, uint32_t gid, unsigned what)
{
    int created;
    uint64_t *from = rt_hmap_put(&c->u->win_from, gid, what, &created);
    if (!from)
        return -RT_E_NOMEM;
    if (created)
        *from = (uint64_t)c->rank + 1;
    return *from == (uint64_t)c->rank + 1;
}

/* A window's name, or one of its info keys (rt_raw_def_win_name, rt_raw_def_win_info). */
static int def_win_text(const defctx *c, unsigned what, rt_err *err)
{
    rt_raw_def_win_name n = {0};
    rt_raw_def_win_info i = {0};
    size_t head = what == RT_RAW_DEF_WIN_NAME ? sizeof n : sizeof i;
    if (c->nbytes >= head)
        memcpy(what == RT_RAW_DEF_WIN_NAME ? (void *)&n : (void *)&i, c->payload, head);
    uint32_t id = what == RT_RAW_DEF_WIN_NAME ? n.id : i.id, gid;
    uint64_t len = what == RT_RAW_DEF_WIN_NAME ? n.len : (uint64_t)i.klen + i.vlen;
    const char *kind = what == RT_RAW_DEF_WIN_NAME ? "window name" : "window info key";
    if (c->nbytes < head || len > c->nbytes - head || n.len > RT_WIN_NAME_LEN ||
        i.klen > RT_WIN_INFO_KEY_LEN || i.vlen > RT_WIN_INFO_VALUE_LEN)
        return rt__raw_fail_at(err, c->path, c->off, "%s of %u bytes: its lengths do not fit", kind,
                               (unsigned)c->nbytes);
    if (rt__raw_global(c->u, RT__RAW_WIN, c->rank, id, &gid))
        return rt__raw_fail_at(err, c->path, c->off, "%s: window %u is not defined", kind,
                               (unsigned)id);
    int take = win_from_rank(c, gid, what);
    if (take <= 0)
        return take < 0 ? no_memory(c, err) : 0;
    _Static_assert(RT_WIN_NAME_LEN >= RT_WIN_INFO_KEY_LEN, "a name or a key fits a");
    char a[RT_WIN_NAME_LEN + 1], b[RT_WIN_INFO_VALUE_LEN + 1];
    const unsigned char *s = c->payload + head;
    size_t alen = what == RT_RAW_DEF_WIN_NAME ? n.len : i.klen;
    memcpy(a, s, alen);
    a[alen] = 0;
    memcpy(b, s + alen, i.vlen);
    b[i.vlen] = 0;
    if (strlen(a) != alen || strlen(b) != i.vlen)
        return rt__raw_fail_at(err, c->path, c->off, "%s with a NUL byte inside", kind);
    int rc = what == RT_RAW_DEF_WIN_NAME ? rt_defs_set_win_name(c->defs, gid, a, err)
                                         : rt_defs_add_win_info(c->defs, gid, a, b, err);
    if (!rc)
        return 0;
    char msg[sizeof err->msg];
    snprintf(msg, sizeof msg, "%s", err->msg);
    return rt__raw_fail_at(err, c->path, c->off, "%s", msg);
}

/* The rank's real host (rt_raw_def_host). */
static int def_host(const defctx *c, rt_err *err)
{
    rt_raw_def_host h = {0};
    if (c->nbytes >= sizeof h)
        memcpy(&h, c->payload, sizeof h);
    if (c->nbytes < sizeof h || h.name_len > RT_HOST_NAME_LEN || h.cpus_len > RT_CPU_LIST_LEN ||
        (uint64_t)h.name_len + h.cpus_len > c->nbytes - sizeof h)
        return rt__raw_fail_at(err, c->path, c->off,
                               "host definition of %u bytes: its lengths do not fit",
                               (unsigned)c->nbytes);
    char name[RT_HOST_NAME_LEN + 1], cpus[RT_CPU_LIST_LEN + 1];
    memcpy(name, c->payload + sizeof h, h.name_len);
    name[h.name_len] = 0;
    memcpy(cpus, c->payload + sizeof h + h.name_len, h.cpus_len);
    cpus[h.cpus_len] = 0;
    int rc =
        rt_defs_set_host(c->defs, c->rank, name, h.online, h.ncpus, h.cpus_len ? cpus : NULL, err);
    if (!rc)
        return 0;
    char msg[sizeof err->msg];
    snprintf(msg, sizeof msg, "%s", err->msg);
    return rt__raw_fail_at(err, c->path, c->off, "%s", msg);
}

static int def_nbrs(const defctx *c, rt_err *err)
{
    rt_raw_def_nbrs d;
    if (c->nbytes < sizeof d)
        return rt__raw_fail_at(err, c->path, c->off,
                               "neighbour lists definition of %u bytes is too short",
                               (unsigned)c->nbytes);
    memcpy(&d, c->payload, sizeof d);
    if (d.nin > RT_MAX_DEGREE || d.nout > RT_MAX_DEGREE ||
        sizeof d + 4 * ((uint64_t)d.nin + d.nout) > c->nbytes)
        return rt__raw_fail_at(err, c->path, c->off,
                               "neighbour lists on communicator %u: %u sources and %u "
                               "destinations do not fit a payload of %u bytes",
                               (unsigned)d.comm, (unsigned)d.nin, (unsigned)d.nout,
                               (unsigned)c->nbytes);
    uint32_t gcomm;
    if (rt__raw_global(c->u, RT__RAW_COMM, c->rank, d.comm, &gcomm))
        return rt__raw_fail_at(err, c->path, c->off,
                               "neighbour lists: communicator %u is not defined", (unsigned)d.comm);
    if (RT_VEC_RESERVE(c->u->mem, c->u->mem_cap, (uint64_t)d.nin + d.nout + 1, 64) < 0)
        return no_memory(c, err);
    memcpy(c->u->mem, c->payload + sizeof d, 4 * ((size_t)d.nin + d.nout));
    const int32_t *lists = (const int32_t *)c->u->mem;
    if (rt_defs_add_nbrs(c->defs, gcomm, c->rank, d.nin, lists, d.nout, lists + d.nin, err))
        return add_failed(c, err);
    return 0;
}

/* The rank's CLOCK definition: in a version 2 file only, as its first record. */
static int def_clock(const defctx *c, rt_err *err)
{
    if (c->clock->version != RT_RAW_VERSION_TICKS)
        return rt__raw_fail_at(err, c->path, c->off,
                               "a clock definition in a file of version %u (times in ns)",
                               (unsigned)c->clock->version);
    if (c->off != RT__RAW_HDR)
        return rt__raw_fail_at(err, c->path, c->off,
                               "a clock definition that is not the file's first record");
    if (c->nbytes != sizeof(rt_raw_def_clock))
        return rt__raw_fail_at(err, c->path, c->off, "a clock definition of %u bytes (%u expected)",
                               (unsigned)c->nbytes, (unsigned)sizeof(rt_raw_def_clock));
    rt_raw_def_clock d;
    memcpy(&d, c->payload, sizeof d);
    char why[200];
    if (rt__raw_clock_set(c->clock, &d, why, sizeof why))
        return rt__raw_fail_at(err, c->path, c->off, "%s", why);
    return 0;
}

/* ---- the file ------------------------------------------------------------------------------- */

/* One record at f->pos: 1 handled (f->pos moves past it); 0 the end of the data (*cut_at set
 * when it ends in the middle of a record); < 0 error. */
static int next_def(defctx *c, rt__rfile *f, uint64_t *cut_at, rt_err *err)
{
    int got = rt__rf_need(f, RT_RAW_SLOT);
    if (got < 0)
        return rt__raw_read_failed(err, c->path);
    unsigned type = f->len > f->pos ? f->buf[f->pos] : RT_RAW_NONE;
    c->off = f->base + f->pos;
    if (type == RT_RAW_NONE || type == RT_RAW_CLOSE)
        return 0;
    if (type != RT_RAW_DEF)
        return rt__raw_fail_at(err, c->path, c->off, "record type %u in a definitions file", type);
    rt_raw_def def = {0};
    size_t len = 0;
    if (got) {
        memcpy(&def, f->buf + f->pos, sizeof def);
        /* the largest payload there can be: a communicator of every rank, or two lists of
         * the most neighbours a rank may have */
        uint64_t most = def.what == RT_RAW_DEF_NBRS
                            ? sizeof(rt_raw_def_nbrs) + 8 * (uint64_t)RT_MAX_DEGREE
                            : sizeof(rt_raw_def_comm) + 4 * (uint64_t)c->defs->nranks;
        if (most < sizeof(rt_raw_def_win_info) + RT_WIN_INFO_KEY_LEN + RT_WIN_INFO_VALUE_LEN)
            most = sizeof(rt_raw_def_win_info) + RT_WIN_INFO_KEY_LEN + RT_WIN_INFO_VALUE_LEN;
        if (def.nbytes > most && def.what == RT_RAW_DEF_NBRS)
            return rt__raw_fail_at(err, c->path, c->off,
                                   "neighbour lists of %u bytes: more than %u neighbours a list",
                                   (unsigned)def.nbytes, (unsigned)RT_MAX_DEGREE);
        if (def.nbytes > most)
            return rt__raw_fail_at(err, c->path, c->off,
                                   "a definition of %u bytes does not fit a trace of %u ranks",
                                   (unsigned)def.nbytes, (unsigned)c->defs->nranks);
        len = RT_RAW_SLOT + ((size_t)def.nbytes + RT_RAW_SLOT - 1) / RT_RAW_SLOT * RT_RAW_SLOT;
        if ((got = rt__rf_need(f, len)) < 0)
            return rt__raw_read_failed(err, c->path);
    }
    if (!got) {
        *cut_at = c->off;
        return 0;
    }
    c->payload = f->buf + f->pos + RT_RAW_SLOT;
    c->nbytes = def.nbytes;
    int rc;
    if (def.what == RT_RAW_DEF_COMM)
        rc = def_comm(c, err);
    else if (def.what == RT_RAW_DEF_GROUP)
        rc = def_group(c, err);
    else if (def.what == RT_RAW_DEF_WIN)
        rc = def_win(c, err);
    else if (def.what == RT_RAW_DEF_NBRS)
        rc = def_nbrs(c, err);
    else if (def.what == RT_RAW_DEF_WIN_NAME || def.what == RT_RAW_DEF_WIN_INFO)
        rc = def_win_text(c, def.what, err);
    else if (def.what == RT_RAW_DEF_HOST)
        rc = def_host(c, err);
    else if (def.what == RT_RAW_DEF_CLOCK)
        rc = def_clock(c, err);
    else
        rc =
            rt__raw_fail_at(err, c->path, c->off, "unknown definition kind %u", (unsigned)def.what);
    f->pos += len;
    return rc ? rc : 1;
}

int rt__raw_read_defs(rt__raw_ids *u, rt_defs *defs, uint32_t rank, const char *path,
                      rt__raw_clock *clock, uint64_t *cut_at, rt_err *err)
{
    *cut_at = UINT64_MAX;
    if (rt__rf_open(&u->f, path, DEFS_BUF))
        return rt__raw_read_failed(err, path);
    defctx c = {.u = u, .defs = defs, .clock = clock, .rank = rank, .path = path};
    errno = 0;
    int rc = rt__rf_need(&u->f, RT__RAW_HDR) > 0 ? 1 : rt__raw_read_failed(err, path);
    u->f.pos = RT__RAW_HDR;
    while (rc == 1)
        rc = next_def(&c, &u->f, cut_at, err);
    rt__rf_close(&u->f);
    if (rc == 0 && clock->version == RT_RAW_VERSION_TICKS && !clock->have)
        rc = rt_err_set(err, RT_E_FORMAT,
                        "%s: times in clock ticks (raw format version %u) but no clock definition",
                        path, RT_RAW_VERSION_TICKS);
    return rc;
}
