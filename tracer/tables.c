/*
 * Rank-local identifiers for communicators, windows and groups, and their definitions in
 * the raw defs file.
 *
 * Every call looks up its communicator, so the lookup takes no lock: a fixed open-addressing
 * table whose slots are published with release stores. Inserts (communicator creation,
 * rare) take a mutex. An entry is never freed while the run is traced, so a lookup racing
 * with MPI_Comm_free reads a stale but valid entry. MPI reuses handles after a free; the
 * slot of a handle then points to the new entry.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rt__tracer.h"

#define COMM_SLOTS (1u << 15) /* MPICH allows a few thousand live communicators */
#define WIN_SLOTS (1u << 12)

typedef struct handle_slot {
    _Atomic uint64_t key; /* 0: empty */
    _Atomic(void *) val;  /* NULL: freed */
} handle_slot;

static handle_slot comm_slots[COMM_SLOTS];
static handle_slot win_slots[WIN_SLOTS];
static pthread_mutex_t defs_lock = PTHREAD_MUTEX_INITIALIZER;
static uint32_t next_comm_id = 2, next_win_id, next_group_id;
rt__comm rt__comm_world; /* rt__comm_get finds it inline */
static rt__comm self;
static uint32_t self_member;
static MPI_Group world_group = MPI_GROUP_NULL;
static int defs_fd = -1;

/* Every entry ever made, to free at the end. */
typedef struct owned {
    void *p;
    struct owned *next;
} owned;
static owned *all_entries;

typedef struct group_rec {
    uint32_t id, size;
    uint32_t *members;
    struct group_rec *next;
} group_rec;
static group_rec *groups;

static uint64_t handle_key(const void *h, size_t size)
{
    uint64_t k = 0;
    memcpy(&k, h, size < sizeof k ? size : sizeof k);
    return k + 1;
}

static uint32_t slot_hash(uint64_t k, uint32_t nslots)
{
    k ^= k >> 29;
    k *= UINT64_C(0xbf58476d1ce4e5b9);
    k ^= k >> 32;
    return (uint32_t)k & (nslots - 1);
}

static void *slot_get(handle_slot *t, uint32_t n, uint64_t key)
{
    for (uint32_t i = slot_hash(key, n), probes = 0; probes < n; i = (i + 1) & (n - 1), probes++) {
        uint64_t k = atomic_load_explicit(&t[i].key, memory_order_acquire);
        if (k == key)
            return atomic_load_explicit(&t[i].val, memory_order_acquire);
        if (!k)
            return NULL;
    }
    return NULL;
}

/* Under defs_lock. 0, or -RT_E_RANGE when the table is full. */
static int slot_set(handle_slot *t, uint32_t n, uint64_t key, void *val)
{
    for (uint32_t i = slot_hash(key, n), probes = 0; probes < n; i = (i + 1) & (n - 1), probes++) {
        uint64_t k = atomic_load_explicit(&t[i].key, memory_order_relaxed);
        if (k == key || !k) {
            atomic_store_explicit(&t[i].val, val, memory_order_release);
            atomic_store_explicit(&t[i].key, key, memory_order_release);
            return 0;
        }
    }
    return -RT_E_RANGE;
}

static int own(void *p)
{
    owned *o = malloc(sizeof *o);
    if (!o)
        return -RT_E_NOMEM;
    o->p = p;
    o->next = all_entries;
    all_entries = o;
    return 0;
}

/* Writes one DEF record (header slot, payload, zero padding) to the rank's defs file. */
static void write_def_locked(unsigned what, const void *payload, size_t len)
{
    if (!rt__g.tracing || defs_fd < 0)
        return;
    size_t padded = (len + RT_RAW_SLOT - 1) / RT_RAW_SLOT * RT_RAW_SLOT;
    size_t total = sizeof(rt_raw_def) + padded;
    uint8_t stackbuf[512];
    uint8_t *buf = total <= sizeof stackbuf ? stackbuf : calloc(1, total);
    if (!buf) {
        rt__fail("rank %d: out of memory for a definition", rt__g.rank);
        return;
    }
    memset(buf, 0, total);
    rt_raw_def d = {
        .type = RT_RAW_DEF, .what = (uint8_t)what, .nbytes = (uint32_t)len, .time = rt__now()};
    memcpy(buf, &d, sizeof d);
    memcpy(buf + sizeof d, payload, len);
    size_t done = 0;
    while (done < total) {
        ssize_t n = write(defs_fd, buf + done, total - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            rt__fail("rank %d: cannot write %s/" RT_RAW_DEFS_NAME ": %s", rt__g.rank, rt__g.raw,
                     (unsigned)rt__g.rank, n < 0 ? strerror(errno) : "short write");
            break;
        }
        done += (size_t)n;
    }
    if (buf != stackbuf)
        free(buf);
}

/* The same for a caller outside this file (neighbour lists: topology.c). */
void rt__def_write(unsigned what, const void *payload, size_t len)
{
    pthread_mutex_lock(&defs_lock);
    write_def_locked(what, payload, len);
    pthread_mutex_unlock(&defs_lock);
}

#define CLOCK_DEF_LEN (sizeof(rt_raw_def) + sizeof(rt_raw_def_clock))

static void clock_record(uint8_t out[CLOCK_DEF_LEN], const rt_raw_def_clock *d)
{
    rt_raw_def h = {.type = RT_RAW_DEF, .what = RT_RAW_DEF_CLOCK, .nbytes = sizeof *d};
    memcpy(out, &h, sizeof h);
    memcpy(out + sizeof h, d, sizeof *d);
}

void rt__defs_clock_write(const rt_raw_def_clock *d)
{
    uint8_t rec[CLOCK_DEF_LEN];
    clock_record(rec, d);
    /* A write that fails leaves the calibration before, a right one, only over a shorter span. */
    int fd = defs_fd;
    if (fd >= 0) {
        ssize_t n = pwrite(fd, rec, sizeof rec, sizeof(rt_raw_header));
        (void)n;
    }
}

int rt__defs_open(void)
{
    char path[sizeof rt__g.raw + 64];
    snprintf(path, sizeof path, "%s/" RT_RAW_DEFS_NAME, rt__g.raw, (unsigned)rt__g.rank);
    defs_fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (defs_fd < 0) {
        rt__fail("rank %d: cannot create %s: %s", rt__g.rank, path, strerror(errno));
        return -RT_E_IO;
    }
    /* The header, and with the counter for a clock its CLOCK definition, which the tracer writes
     * again in place (rt__defs_clock_write): no O_APPEND, so that pwrite goes where it says. */
    uint8_t head[sizeof(rt_raw_header) + CLOCK_DEF_LEN];
    size_t len = sizeof(rt_raw_header);
    rt_raw_header h;
    rt__raw_header(&h, RT_RAW_THREAD_DEFS);
    memcpy(head, &h, sizeof h);
    if (rt__g.tsc) {
        rt_raw_def_clock d;
        rt__clock_def(&d);
        clock_record(head + len, &d);
        len += CLOCK_DEF_LEN;
    }
    if (write(defs_fd, head, len) != (ssize_t)len) {
        rt__fail("rank %d: cannot write %s: %s", rt__g.rank, path, strerror(errno));
        return -RT_E_IO;
    }
    return 0;
}

void rt__defs_close(void)
{
    if (defs_fd >= 0)
        close(defs_fd);
    defs_fd = -1;
}

void rt__tables_init(void)
{
    rt__comm_world.id = RT_COMM_WORLD;
    rt__comm_world.size = (uint32_t)rt__g.nranks;
    rt__comm_world.members = NULL;
    rt__comm_world.topo_indeg = rt__comm_world.topo_outdeg = 0;
    atomic_store(&rt__comm_world.topo_ready, 0);
    self.id = RT_COMM_SELF;
    self.size = 1;
    self_member = (uint32_t)rt__g.rank;
    self.members = &self_member;
    self.topo_indeg = self.topo_outdeg = 0;
    atomic_store(&self.topo_ready, 0);
    MPI_Comm w = MPI_COMM_WORLD, s = MPI_COMM_SELF;
    slot_set(comm_slots, COMM_SLOTS, handle_key(&w, sizeof w), &rt__comm_world);
    slot_set(comm_slots, COMM_SLOTS, handle_key(&s, sizeof s), &self);
    PMPI_Comm_group(MPI_COMM_WORLD, &world_group);
}

void rt__tables_free(void)
{
    for (owned *o = all_entries, *n; o; o = n) {
        n = o->next;
        free(o->p);
        free(o);
    }
    all_entries = NULL;
    for (group_rec *g = groups, *n; g; g = n) {
        n = g->next;
        free(g->members);
        free(g);
    }
    groups = NULL;
    memset(comm_slots, 0, sizeof comm_slots);
    memset(win_slots, 0, sizeof win_slots);
    if (world_group != MPI_GROUP_NULL)
        PMPI_Group_free(&world_group);
}

rt__comm *rt__comm_lookup(MPI_Comm comm)
{
    return slot_get(comm_slots, COMM_SLOTS, handle_key(&comm, sizeof comm));
}

/* World ranks of a group's members, n of them, into out. 0, or -RT_E_NOMEM or -RT_E_MPI. */
static int translate(MPI_Group g, int n, uint32_t *out)
{
    int *in = calloc(2 * (size_t)n + 1, sizeof *in);
    if (!in)
        return -RT_E_NOMEM;
    int *res = in + n;
    for (int i = 0; i < n; i++)
        in[i] = i;
    int rc = PMPI_Group_translate_ranks(g, n, in, world_group, res);
    for (int i = 0; rc == MPI_SUCCESS && i < n; i++) {
        if (res[i] == MPI_UNDEFINED || res[i] < 0)
            rc = MPI_ERR_RANK;
        out[i] = (uint32_t)res[i];
    }
    free(in);
    return rc == MPI_SUCCESS ? 0 : -RT_E_MPI;
}

/* Registers a communicator whose members (world ranks, n = size + rsize) are known and
 * writes its definition. members is the DEF payload buffer (header slot reserved). */
static rt__comm *comm_register(MPI_Comm comm, const rt__comm *parent, unsigned how, uint32_t seq,
                               int tag, int inter, uint32_t size, uint32_t rsize, uint8_t *payload)
{
    size_t n = (size_t)size + rsize;
    const uint32_t *members = (const uint32_t *)(payload + sizeof(rt_raw_def_comm));
    rt__comm *cm = calloc(1, sizeof *cm);
    if (!cm) {
        rt__fail("rank %d: out of memory for a communicator", rt__g.rank);
        return NULL;
    }
    cm->size = size;
    cm->remote_size = rsize;
    cm->inter = inter != 0;
    int identity = !inter && size == (uint32_t)rt__g.nranks;
    for (size_t i = 0; identity && i < n; i++)
        identity = members[i] == i;
    if (!identity) {
        cm->members = malloc(n * sizeof *cm->members);
        if (!cm->members) {
            free(cm);
            rt__fail("rank %d: out of memory for a communicator", rt__g.rank);
            return NULL;
        }
        memcpy(cm->members, members, n * sizeof *members);
    }
    pthread_mutex_lock(&defs_lock);
    cm->id = next_comm_id++;
    rt_raw_def_comm d = {.id = cm->id,
                         .parent = parent->id,
                         .how = how,
                         .seq = seq,
                         .flags = inter ? RT_COMM_IS_INTER : 0,
                         .size = size,
                         .remote_size = rsize,
                         .tag = tag};
    memcpy(payload, &d, sizeof d);
    write_def_locked(RT_RAW_DEF_COMM, payload, sizeof d + n * sizeof(uint32_t));
    int rc = slot_set(comm_slots, COMM_SLOTS, handle_key(&comm, sizeof comm), cm);
    if (rc == 0)
        rc = own(cm);
    if (rc == 0 && cm->members)
        rc = own(cm->members);
    pthread_mutex_unlock(&defs_lock);
    if (rc == -RT_E_RANGE)
        rt__fail("rank %d: too many communicators for the tracer's table", rt__g.rank);
    else if (rc < 0)
        rt__fail("rank %d: out of memory for a communicator", rt__g.rank);
    return cm;
}

rt__comm *rt__comm_new(MPI_Comm comm, rt__comm *parent, unsigned how, uint32_t seq, int tag)
{
    if (comm == MPI_COMM_NULL || !parent)
        return NULL;
    int inter = 0, size = 0, rsize = 0;
    PMPI_Comm_test_inter(comm, &inter);
    PMPI_Comm_size(comm, &size);
    if (inter)
        PMPI_Comm_remote_size(comm, &rsize);
    size_t n = (size_t)size + (size_t)rsize;
    uint8_t *payload = malloc(sizeof(rt_raw_def_comm) + n * sizeof(uint32_t));
    if (!payload) {
        rt__fail("rank %d: out of memory for a communicator", rt__g.rank);
        return NULL;
    }
    uint32_t *members = (uint32_t *)(payload + sizeof(rt_raw_def_comm));
    MPI_Group g;
    int bad = PMPI_Comm_group(comm, &g) != MPI_SUCCESS;
    if (!bad) {
        bad = translate(g, size, members);
        PMPI_Group_free(&g);
    }
    if (inter && !bad) {
        bad = PMPI_Comm_remote_group(comm, &g) != MPI_SUCCESS;
        if (!bad) {
            bad = translate(g, rsize, members + size);
            PMPI_Group_free(&g);
        }
    }
    rt__comm *cm = NULL;
    if (bad)
        rt__warn("rank %d: cannot tell the members of a new communicator; its events are "
                 "not recorded",
                 rt__g.rank);
    else
        cm = comm_register(comm, parent, how, seq, tag, inter, (uint32_t)size, (uint32_t)rsize,
                           payload);
    free(payload);
    return cm;
}

rt__comm *rt__comm_new_like(MPI_Comm comm, rt__comm *parent, unsigned how, uint32_t seq)
{
    if (comm == MPI_COMM_NULL || !parent)
        return NULL;
    size_t n = (size_t)parent->size + parent->remote_size;
    uint8_t *payload = malloc(sizeof(rt_raw_def_comm) + n * sizeof(uint32_t));
    if (!payload) {
        rt__fail("rank %d: out of memory for a communicator", rt__g.rank);
        return NULL;
    }
    uint32_t *members = (uint32_t *)(payload + sizeof(rt_raw_def_comm));
    for (size_t i = 0; i < n; i++)
        members[i] = parent->members ? parent->members[i] : (uint32_t)i;
    rt__comm *cm = comm_register(comm, parent, how, seq, 0, parent->inter, parent->size,
                                 parent->remote_size, payload);
    free(payload);
    return cm;
}

void rt__comm_forget(MPI_Comm comm)
{
    if (comm == MPI_COMM_WORLD || comm == MPI_COMM_SELF || comm == MPI_COMM_NULL)
        return;
    pthread_mutex_lock(&defs_lock);
    uint64_t key = handle_key(&comm, sizeof comm);
    if (slot_get(comm_slots, COMM_SLOTS, key))
        slot_set(comm_slots, COMM_SLOTS, key, NULL);
    pthread_mutex_unlock(&defs_lock);
}

rt__win *rt__win_get(MPI_Win win)
{
    return slot_get(win_slots, WIN_SLOTS, handle_key(&win, sizeof win));
}

rt__win *rt__win_new(MPI_Win win, rt__comm *comm, uint32_t seq, uint32_t disp_unit)
{
    if (win == MPI_WIN_NULL || !comm)
        return NULL;
    rt__win *w = calloc(1, sizeof *w);
    if (!w) {
        rt__fail("rank %d: out of memory for a window", rt__g.rank);
        return NULL;
    }
    w->comm = comm;
    w->start_group = w->post_group = RT_ID_NONE;
    pthread_mutex_lock(&defs_lock);
    w->id = next_win_id++;
    rt_raw_def_win d = {.id = w->id, .comm = comm->id, .seq = seq, .disp_unit = disp_unit};
    write_def_locked(RT_RAW_DEF_WIN, &d, sizeof d);
    int rc = slot_set(win_slots, WIN_SLOTS, handle_key(&win, sizeof win), w);
    if (rc == 0)
        rc = own(w);
    pthread_mutex_unlock(&defs_lock);
    if (rc == -RT_E_RANGE)
        rt__fail("rank %d: too many windows for the tracer's table", rt__g.rank);
    else if (rc < 0)
        rt__fail("rank %d: out of memory for a window", rt__g.rank);
    return w;
}

void rt__win_forget(MPI_Win win)
{
    pthread_mutex_lock(&defs_lock);
    uint64_t key = handle_key(&win, sizeof win);
    if (slot_get(win_slots, WIN_SLOTS, key))
        slot_set(win_slots, WIN_SLOTS, key, NULL);
    pthread_mutex_unlock(&defs_lock);
}

uint32_t rt__group_id(MPI_Group group)
{
    int n = 0;
    if (group == MPI_GROUP_NULL || PMPI_Group_size(group, &n) != MPI_SUCCESS || n < 0)
        return RT_ID_NONE;
    uint8_t *payload = malloc(sizeof(rt_raw_def_group) + (size_t)n * sizeof(uint32_t) + 1);
    if (!payload)
        return RT_ID_NONE;
    uint32_t *members = (uint32_t *)(payload + sizeof(rt_raw_def_group));
    if (translate(group, n, members) < 0) {
        free(payload);
        return RT_ID_NONE;
    }
    uint32_t id = RT_ID_NONE;
    pthread_mutex_lock(&defs_lock);
    for (group_rec *g = groups; g && id == RT_ID_NONE; g = g->next)
        if (g->size == (uint32_t)n && !memcmp(g->members, members, (size_t)n * sizeof *members))
            id = g->id;
    if (id == RT_ID_NONE) {
        group_rec *g = malloc(sizeof *g);
        uint32_t *copy = malloc((size_t)n * sizeof *copy + 1);
        if (g && copy) {
            memcpy(copy, members, (size_t)n * sizeof *copy);
            g->id = id = next_group_id++;
            g->size = (uint32_t)n;
            g->members = copy;
            g->next = groups;
            groups = g;
            rt_raw_def_group d = {.id = id, .size = (uint32_t)n};
            memcpy(payload, &d, sizeof d);
            write_def_locked(RT_RAW_DEF_GROUP, payload, sizeof d + (size_t)n * sizeof(uint32_t));
        } else {
            free(g);
            free(copy);
        }
    }
    pthread_mutex_unlock(&defs_lock);
    free(payload);
    return id;
}
