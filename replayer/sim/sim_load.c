/*
 * Loading a trace for replay: every rank's events in memory, then prepared so that the
 * engine never has to look ahead or resolve anything while it runs:
 *  - peers become world ranks (point-to-point and RMA targets);
 *  - a nonblocking receive is posted with the source, tag and size that its completion
 *    recorded, and a nonblocking collective with the op and sizes of its completion;
 *  - request ids become small per-rank slot numbers (reused once a request completes), so
 *    the engine keeps a short array per rank instead of a map;
 *  - what cannot be replayed is marked SIM_EV_SKIP and counted in the notes: a receive or
 *    nonblocking collective that never completed (its source or op is unknown), a completion
 *    whose request was never started, a cancelled request (it matched nothing).
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "rt__sim.h"

void sim_trace_note(rt_sim_trace *t, const char *fmt, ...)
{
    char line[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n >= sizeof line)
        n = sizeof line - 1;
    if (RT_VEC_RESERVE(t->notes, t->notes_cap, (uint64_t)t->notes_len + (size_t)n + 2, 256) < 0)
        return;
    memcpy(t->notes + t->notes_len, line, (size_t)n);
    t->notes_len += (size_t)n;
    t->notes[t->notes_len++] = '\n';
    t->notes[t->notes_len] = '\0';
}

typedef struct load_counts {
    uint64_t irecv_open, nbc_open, orphan, cancelled;
} load_counts;

#define LINKED (1ULL << 63)
#define NO_EVENT UINT32_MAX

/* Scratch space of the two passes, grown to the rank with the most events and reused. The
 * passes go through one rank at a time and can take its events in pieces, as a reader that
 * goes rank by rank hands them out: while a piece is still in cache. */
typedef struct load_scratch {
    /* By request id, the index of its latest post (| LINKED once a completion took it): a
     * plain array for ids below idcap (tracer and TI reader number a rank's requests 1, 2,
     * 3, ...; it grows up to twice the rank's events so far), the hash map for the others. */
    uint64_t *by_id;
    size_t idcap;
    rt_hmap ids;
    uint32_t *done_at; /* per post: the index of its completion, NO_EVENT when none */
    uint32_t *free_slots;
    size_t cap;               /* of done_at and free_slots */
    uint32_t linked, slotted; /* the rank's events each pass has been through */
    uint32_t nfree, next;     /* pass 2: free slots, and the next new one */
} load_scratch;

static uint64_t *id_get(load_scratch *s, uint64_t id)
{
    if (id < s->idcap)
        return s->by_id[id] == RT_HASH_EMPTY ? NULL : &s->by_id[id];
    return rt_hmap_get(&s->ids, id, 0);
}

/* The array covers ids below cap from now on: what the map held of them moves over. */
static int id_grow(load_scratch *s, size_t need)
{
    size_t old = s->idcap, cap;
    if (RT_VEC_RESERVE(s->by_id, s->idcap, need, 0) < 0)
        return -RT_E_NOMEM;
    cap = s->idcap;
    uint64_t *b = s->by_id;
    memset(b + old, 0xff, (cap - old) * sizeof *b); /* RT_HASH_EMPTY */
    for (size_t j = 0; j < s->ids.cap;) {
        rt_hmap_slot *m = &s->ids.slots[j];
        if (m->k1 != RT_HASH_EMPTY && m->k1 < cap) {
            b[m->k1] = m->v;
            rt_hmap_del(&s->ids, m->k1, 0); /* may move a later entry here: look again */
        } else {
            j++;
        }
    }
    return 0;
}

/* The value slot of id, created empty when absent; NULL: no memory. */
static uint64_t *id_put(load_scratch *s, uint64_t id, uint32_t n)
{
    if (id >= s->idcap && id < 2 * (uint64_t)n + 64 && id_grow(s, (size_t)id + 1) < 0)
        return NULL; /* the array doubles, or grows to id */
    if (id < s->idcap)
        return &s->by_id[id];
    return rt_hmap_put(&s->ids, id, 0, NULL);
}

/* Room in done_at and free_slots for n events. */
static int scratch_fit(load_scratch *s, uint32_t n, rt_err *err)
{
    size_t cap_d = s->cap, cap_f = s->cap; /* the two grow alike */
    if (RT_VEC_RESERVE(s->done_at, cap_d, n, 0) < 0 ||
        RT_VEC_RESERVE(s->free_slots, cap_f, n, 0) < 0)
        return rt_err_set(err, RT_E_NOMEM, "out of memory loading the trace");
    s->cap = cap_d < cap_f ? cap_d : cap_f;
    return 0;
}

/* Empties the scratch space for the next rank, of n events if known (else 0). */
static int scratch_begin(load_scratch *s, uint32_t n, rt_err *err)
{
    if (s->idcap)
        memset(s->by_id, 0xff, s->idcap * sizeof *s->by_id); /* RT_HASH_EMPTY */
    rt_hmap_clear(&s->ids);
    s->linked = s->slotted = s->nfree = s->next = 0;
    if (n + (size_t)1 > s->idcap && id_grow(s, n + (size_t)1) < 0)
        return rt_err_set(err, RT_E_NOMEM, "out of memory loading the trace");
    return scratch_fit(s, n, err);
}

/* What the two passes ask of an event's kind, from one table: they look at every event of
 * the trace, and most (enter, leave) are none of these, so each costs a load and a branch
 * instead of calls to the event model's predicates. Both prefetch a few events ahead: the
 * rank's events are mostly out of the caches by then, and the hardware prefetcher, with the
 * scattered stores of pass 1, does not keep up (measured: pass time down by about a fifth). */
enum { K_START = 1, K_END = 2, K_P2P = 4, K_PEER = 8, K_PEER_ONE = 16, K_PENDING = 32 };

static void kind_classes(uint8_t cls[256])
{
    for (unsigned k = 0; k < 256; k++) {
        rt_event one = {.kind = (uint8_t)k, .peer = 0},
                 all = {.kind = (uint8_t)k, .peer = RT_PEER_ALL};
        int skip = k == SIM_EV_SKIP;
        cls[k] = (uint8_t)((!skip && rt_event_starts_request(k) ? K_START : 0) |
                           (!skip && rt_event_ends_request(k) ? K_END : 0) |
                           (k == RT_EV_SEND || k == RT_EV_ISEND || k == RT_EV_RECV ||
                                    k == RT_EV_IRECV_REQUEST
                                ? K_P2P
                                : 0));
        /* sim_world_peer: for every event of the kind, or for those of one target */
        if (!skip && sim_world_peer(&one))
            cls[k] |= sim_world_peer(&all) ? K_PEER : K_PEER_ONE;
        if (k == RT_EV_PENDING)
            cls[k] = K_PENDING;
    }
}

/* Pass 1: link completions to their posts (copying what the post lacks), mark cancels;
 * events [s->linked, n) of the rank. */
static int link_requests(sim_rank_events *re, const uint8_t *cls, load_scratch *s, load_counts *lc,
                         rt_err *err)
{
    for (uint32_t i = s->linked; i < re->n; i++) {
        rt_event *ev = &re->ev[i];
        __builtin_prefetch((const void *)((uintptr_t)ev + 8 * sizeof *ev)); /* see kind_classes */
        unsigned c = cls[ev->kind];
        if (!(c & (K_START | K_END)))
            continue;
        if (c & K_START) {
            uint64_t *v = id_put(s, ev->req, re->n);
            if (!v)
                return rt_err_set(err, RT_E_NOMEM, "out of memory loading the trace");
            *v = i; /* a reused id starts a new request */
            s->done_at[i] = NO_EVENT;
        } else {
            uint64_t *v = id_get(s, ev->req);
            if (!v || (*v & LINKED)) {
                ev->kind = SIM_EV_SKIP;
                lc->orphan++;
                continue;
            }
            uint32_t at = (uint32_t)*v;
            rt_event *p = &re->ev[at];
            *v |= LINKED;
            s->done_at[at] = i;
            if (ev->kind == RT_EV_REQUEST_CANCELLED) {
                p->kind = SIM_EV_SKIP;
                ev->kind = SIM_EV_SKIP;
                lc->cancelled++;
            } else if (ev->kind == RT_EV_IRECV && p->kind == RT_EV_IRECV_REQUEST) {
                p->comm = ev->comm;
                p->peer = ev->peer;
                p->tag = ev->tag;
                p->bytes = ev->bytes;
                p->contype = ev->contype;
                p->op = ev->op;
            } else if (ev->kind == RT_EV_NBC_COMPLETE && p->kind == RT_EV_NBC_REQUEST) {
                p->tag = (int32_t)i; /* where its COLL_PEER rows follow (sim_core.c) */
                p->comm = ev->comm;
                p->peer = ev->peer;
                p->bytes = ev->bytes;
                p->rbytes = ev->rbytes;
                p->op = ev->op;
                p->esize = ev->esize;
                p->resize = ev->resize;
            }
        }
    }
    s->linked = re->n;
    return 0;
}

/* 1 when rank i of MPI_COMM_WORLD is world rank i, as in every trace retrace reads: then a
 * message's peer on it needs no lookup. */
static int world_is_identity(const rt_defs *defs)
{
    const rt_comm_def *c = rt_defs_comm(defs, RT_COMM_WORLD);
    if (!c || c->flags || c->size != defs->nranks)
        return 0;
    for (uint32_t i = 0; i < c->size; i++)
        if (c->members[i] != i)
            return 0;
    return 1;
}

/* Pass 2: slots for linked requests (a completion gets its post's), world ranks for peers,
 * skips for unlinked posts; events [s->slotted, s->linked). Unless final (all the rank's
 * events are linked), it stops at the first post not linked yet, whose completion may still
 * come, and at an event whose peer does not resolve (final reports it): what it did is
 * what one pass over the whole rank does. */
static int assign_slots(sim_rank_events *re, const rt_defs *defs, int world_ident,
                        const uint8_t *cls, load_scratch *s, load_counts *lc, uint32_t rank,
                        int final, rt_err *err)
{
    uint32_t nfree = s->nfree, next = s->next, i = s->slotted;
    for (; i < s->linked; i++) {
        rt_event *ev = &re->ev[i];
        __builtin_prefetch((const void *)((uintptr_t)ev + 8 * sizeof *ev)); /* see kind_classes */
        unsigned k = ev->kind, c = cls[k];
        if (!c) /* nothing to do; SIM_EV_SKIP too */
            continue;
        if (c & K_PENDING) { /* the rank's last call never returned */
            re->pending = i;
            continue;
        }
        uint32_t done = NO_EVENT;
        if (c & K_START) {
            done = s->done_at[i];
            if (done == NO_EVENT && !final)
                break;
            if (done == NO_EVENT && (k == RT_EV_IRECV_REQUEST || k == RT_EV_NBC_REQUEST)) {
                ev->kind = SIM_EV_SKIP;
                if (k == RT_EV_IRECV_REQUEST)
                    lc->irecv_open++;
                else
                    lc->nbc_open++;
                continue;
            }
        }
        /* the peer first, so that an event stopped at is left as it was */
        int64_t w = ev->peer;
        if (((c & K_PEER) || ((c & K_PEER_ONE) && ev->peer != RT_PEER_ALL)) &&
            !sim_recv_any_source(ev)) {
            if (world_ident && ev->comm == RT_COMM_WORLD && (c & K_P2P)) {
                if (ev->peer < 0 || (uint32_t)ev->peer >= defs->nranks)
                    w = -1;
            } else {
                rt_event probe = *ev;
                if (k == RT_EV_IRECV_REQUEST)
                    probe.kind = RT_EV_IRECV;
                w = rt_defs_peer_world(defs, &probe);
            }
            if (w < 0) {
                if (!final)
                    break;
                return rt_err_set(err, RT_E_FORMAT,
                                  "rank %u, event %u (%s): peer %d does not resolve to a world "
                                  "rank",
                                  (unsigned)rank, (unsigned)i, rt_event_kind_name(k), ev->peer);
            }
            ev->peer = (int32_t)w;
        }
        if (c & K_START) {
            if (done != NO_EVENT) {
                uint32_t slot = nfree ? s->free_slots[--nfree] : next++;
                ev->req = slot;
                re->ev[done].req = slot;
            } else {
                ev->req = SIM_NONE;
            }
        } else if (c & K_END) {
            s->free_slots[nfree++] = (uint32_t)ev->req; /* linked: its post set the slot */
        }
    }
    s->slotted = i;
    s->nfree = nfree;
    s->next = next;
    re->nslots = next;
    return 0;
}

/* ---- slabs: the events of a reader that goes rank by rank --------------------------------- */

/* Such a reader hands out each rank's events contiguously, so the ranks' arrays are carved
 * one after the other from a few large mappings instead of each growing with realloc: no
 * copies as an array grows, no allocator bookkeeping. The pages of a slab are populated a
 * MiB at a time just ahead of the writes (MADV_POPULATE_WRITE): faulting 80 MB of fresh
 * pages in costs about 35 ms on this kind of VM one page fault at a time, 25 ms populated
 * (a third of the load of a TI trace; docs/benchmarks.md). Transparent huge pages would
 * cost less still, but on a VM whose free memory is handed back to the host (free page
 * reporting, as here), a huge page is nearly always one the host must fault in again: the
 * load took three times longer (docs/benchmarks.md). A rank that does not fit in a slab moves
 * to the next one and leaves its start behind, populated and unused: slabs are few and
 * large, since what is not populated costs only address space. */
struct sim_evslab {
    rt_event *ev;
    size_t cap, used; /* events */
    size_t ready;     /* bytes populated from ev on */
};

#define SLAB_FIRST ((size_t)64 << 20) /* bytes of the first slab; each next one doubles */
#define SLAB_MAX ((size_t)1 << 30)    /* up to this, unless a rank needs more */
#define POP_STEP ((size_t)1 << 20)    /* bytes populated at a time */

static size_t slab_bytes(const struct sim_evslab *s)
{
    return (s->cap * sizeof *s->ev + POP_STEP - 1) & ~(POP_STEP - 1);
}

/* A new slab for rank re, whose re->n events so far move there, with room for n more. */
static int slab_new(rt_sim_trace *t, sim_rank_events *re, size_t n, rt_err *err)
{
    size_t bytes = t->nslabs ? slab_bytes(&t->slabs[t->nslabs - 1]) * 2 : SLAB_FIRST;
    if (bytes > SLAB_MAX)
        bytes = SLAB_MAX;
    size_t need = ((size_t)re->n + n) * 2 * sizeof(rt_event);
    if (bytes < need)
        bytes = need;
    bytes = (bytes + POP_STEP - 1) & ~(POP_STEP - 1);
    int room = RT_VEC_RESERVE(t->slabs, t->slabs_cap, (uint64_t)t->nslabs + 1, 8) == 0;
    void *m = room ? mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
                   : MAP_FAILED;
    if (m == MAP_FAILED)
        return rt_err_set(err, RT_E_NOMEM, "out of memory loading the trace (%llu events)",
                          (unsigned long long)t->nevents);
    rt_event *ev = m;
    if (re->n) { /* the rank's start, left behind in the old slab, is not used again */
        memcpy(ev, re->ev, (size_t)re->n * sizeof *ev);
        t->slabs[t->nslabs - 1].used -= re->n;
    }
    t->slabs[t->nslabs++] = (struct sim_evslab){.ev = ev, .cap = bytes / sizeof *ev, .used = re->n};
    re->ev = ev;
    return 0;
}

/* Room for n more events at the end of re, the rank being read. */
static int slab_room(rt_sim_trace *t, sim_rank_events *re, size_t n, rt_err *err)
{
    struct sim_evslab *s = t->nslabs ? &t->slabs[t->nslabs - 1] : NULL;
    if (s && !re->n)
        re->ev = s->ev + s->used;
    if (!s || n > s->cap - s->used) {
        int rc = slab_new(t, re, n, err);
        if (rc < 0)
            return rc;
        s = &t->slabs[t->nslabs - 1];
    }
    size_t end = (size_t)((char *)(re->ev + re->n + n) - (char *)s->ev);
    if (end > s->ready) {
        size_t to = (end + POP_STEP - 1) & ~(POP_STEP - 1), all = slab_bytes(s);
        if (to > all)
            to = all;
#ifdef MADV_POPULATE_WRITE /* Linux 5.14; elsewhere (or if it fails) the writes fault them in */
        madvise((char *)s->ev + s->ready, to - s->ready, MADV_POPULATE_WRITE);
#endif
        s->ready = to;
    }
    return 0;
}

static void slabs_free(rt_sim_trace *t)
{
    for (size_t i = 0; i < t->nslabs; i++)
        munmap(t->slabs[i].ev, slab_bytes(&t->slabs[i]));
    free(t->slabs);
}

/* Appends a block of one rank's events (checking their order while they are in cache: the
 * engine relies on it). */
static int append(rt_sim_trace *t, const rt_event *ev, size_t n, int by_rank, rt_err *err)
{
    sim_rank_events *re = &t->ranks[ev->rank];
    uint64_t prev = re->n ? re->ev[re->n - 1].time : 0;
    for (size_t j = 0; j < n; prev = ev[j++].time)
        if (ev[j].time < prev)
            return rt_err_set(err, RT_E_ORDER, "rank %u, event %llu: time goes back",
                              (unsigned)ev->rank, (unsigned long long)(re->n + j));
    if (re->n + (uint64_t)n > (1u << 31))
        return rt_err_set(err, RT_E_INVAL, "rank %u has more than 2^31 events", (unsigned)ev->rank);
    if (by_rank) {
        int rc = slab_room(t, re, n, err);
        if (rc < 0)
            return rc;
    } else if (RT_VEC_RESERVE(re->ev, re->cap, (uint64_t)re->n + n, 16) < 0) {
        return rt_err_set(err, RT_E_NOMEM, "out of memory loading the trace (%llu events)",
                          (unsigned long long)t->nevents);
    }
    memcpy(re->ev + re->n, ev, n * sizeof *ev);
    if (by_rank)
        t->slabs[t->nslabs - 1].used += n;
    re->n += (uint32_t)n;
    t->nevents += n;
    /* in time order: the first and last events bound the block */
    if (ev[0].time < t->t_first)
        t->t_first = ev[0].time;
    if (ev[n - 1].time > t->t_last)
        t->t_last = ev[n - 1].time;
    return 0;
}

/* What the two passes share over a whole load. */
typedef struct load_state {
    load_scratch s;
    load_counts lc;
    int world_ident;
    uint8_t cls[256]; /* kind_classes */
} load_state;

/* Passes 1 and 2 over rank i's events appended so far; final: they are all there. */
static int prepare(rt_sim_trace *t, load_state *ls, uint32_t i, int final, rt_err *err)
{
    sim_rank_events *re = &t->ranks[i];
    int rc = re->n > ls->s.cap ? scratch_fit(&ls->s, re->n, err) : 0; /* no call for nothing */
    if (rc == 0)
        rc = link_requests(re, ls->cls, &ls->s, &ls->lc, err);
    if (rc == 0)
        rc = assign_slots(re, &t->defs, ls->world_ident, ls->cls, &ls->s, &ls->lc, i, final, err);
    return rc;
}

/* Every block into its rank's events. From a reader that goes rank by rank, the two passes
 * take each block as soon as it is appended, while it is in cache (from memory they cost
 * several times more); otherwise each rank at the end. */
static int load_events(rt_reader *r, rt_sim_trace *t, load_state *ls, rt_err *err)
{
    int by_rank = rt_reader_by_rank(r), rc;
    uint32_t cur = 0;
    const rt_event *blk;
    size_t n;
    if (by_rank && (rc = scratch_begin(&ls->s, 0, err)) < 0)
        return rc;
    while ((rc = rt_reader_next_block(r, &blk, &n, err)) > 0) {
        if (by_rank && blk->rank != cur) {
            if (blk->rank < cur)
                return rt_err_set(err, RT_E_ORDER, "rank %u's events after rank %u's",
                                  (unsigned)blk->rank, (unsigned)cur);
            if ((rc = prepare(t, ls, cur, 1, err)) < 0 || (rc = scratch_begin(&ls->s, 0, err)) < 0)
                return rc;
            cur = blk->rank;
        }
        if ((rc = append(t, blk, n, by_rank, err)) < 0 ||
            (by_rank && (rc = prepare(t, ls, cur, 0, err)) < 0))
            return rc;
    }
    if (rc < 0)
        return rc;
    if (by_rank)
        return prepare(t, ls, cur, 1, err);
    for (uint32_t i = 0; i < t->defs.nranks; i++)
        if ((rc = scratch_begin(&ls->s, t->ranks[i].n, err)) < 0 ||
            (rc = prepare(t, ls, i, 1, err)) < 0)
            return rc;
    return 0;
}

/* The first call of rank re (its first ENTER among its first events: MPI_Init is a rank's
 * first call); RT_FN_NONE when there is none. */
static unsigned first_call(const sim_rank_events *re)
{
    for (uint32_t i = 0; i < re->n && i < 16; i++)
        if (re->ev[i].kind == RT_EV_ENTER)
            return re->ev[i].call;
    return RT_FN_NONE;
}

/* 1 when rank re entered MPI_Finalize: looked for from its end, where it is. */
static int entered_finalize(const sim_rank_events *re)
{
    for (uint32_t i = re->n; i-- > 0;)
        if (re->ev[i].kind == RT_EV_ENTER && re->ev[i].call == RT_FN_Finalize)
            return 1;
    return 0;
}

/* What the trace tells of how the run ended (rt_sim_trace_end). Traces that record
 * MPI_Init record MPI_Finalize too (the tracer writes both); only in them does a missing
 * MPI_Finalize say that the rank stopped early. */
static void trace_end(rt_sim_trace *t, const rt_reader *r)
{
    rt_sim_trace_end *e = &t->end;
    e->truncated = rt_reader_truncated(r) != NULL;
    e->pending_first = UINT64_MAX;
    for (uint32_t i = 0; i < t->defs.nranks && !e->records_init; i++) {
        unsigned fn = first_call(&t->ranks[i]);
        e->records_init = fn == RT_FN_Init || fn == RT_FN_Init_thread;
    }
    for (uint32_t i = 0; i < t->defs.nranks; i++) {
        sim_rank_events *re = &t->ranks[i];
        re->finalized = e->records_init && entered_finalize(re);
        if (re->pending != SIM_NONE) {
            uint64_t at = (re->ev[re->pending].time - t->t_first) * 1000; /* the span fits */
            e->pending++;
            e->pending_first = at < e->pending_first ? at : e->pending_first;
            e->pending_last = at > e->pending_last ? at : e->pending_last;
        }
        if (re->pending != SIM_NONE || (e->records_init && !re->finalized))
            e->unfinished++;
    }
    if (!e->pending)
        e->pending_first = 0;
}

int rt_sim_trace_load(rt_reader *r, rt_sim_trace **out, rt_err *err)
{
    rt_sim_trace *t = calloc(1, sizeof *t);
    if (!t)
        return rt_err_set(err, RT_E_NOMEM, "out of memory");
    int rc = rt_defs_copy(&t->defs, rt_reader_defs(r), err);
    if (rc == 0) /* neighbourhood collectives are scheduled from these: they must agree */
        rc = rt_defs_nbrs_check(&t->defs, err);
    if (rc < 0) {
        rt_defs_free(&t->defs);
        free(t);
        return rc;
    }
    t->ranks = calloc(t->defs.nranks ? t->defs.nranks : 1, sizeof *t->ranks);
    if (!t->ranks) {
        rt_sim_trace_free(t);
        return rt_err_set(err, RT_E_NOMEM, "out of memory");
    }
    for (uint32_t i = 0; i < t->defs.nranks; i++)
        t->ranks[i].pending = SIM_NONE;
    t->t_first = UINT64_MAX;
    load_state ls = {.world_ident = world_is_identity(&t->defs)};
    kind_classes(ls.cls);
    rc = load_events(r, t, &ls, err);
    rt_hmap_free(&ls.s.ids);
    free(ls.s.by_id);
    free(ls.s.done_at);
    free(ls.s.free_slots);
    if (rc < 0) {
        rt_sim_trace_free(t);
        return rc;
    }
    if (!t->nevents)
        t->t_first = 0;
    /* the engine counts picoseconds from the first event: the span must fit in them (then
     * every gap between two events of a rank does too) */
    if (t->t_last - t->t_first > SIM_TIME_MAX / 1000) {
        unsigned long long span = t->t_last - t->t_first;
        rt_sim_trace_free(t);
        return rt_err_set(err, RT_E_RANGE,
                          "the trace spans %llu ns: more than the engine's 64-bit picoseconds "
                          "hold (about 213 days)",
                          span);
    }
    trace_end(t, r);
    load_counts lc = ls.lc;
    t->end.left_out = lc.irecv_open + lc.nbc_open + lc.orphan;
    if (lc.irecv_open)
        sim_trace_note(t,
                       "%llu nonblocking receives never completed: left out (their source "
                       "is unknown)",
                       (unsigned long long)lc.irecv_open);
    if (lc.nbc_open)
        sim_trace_note(t, "%llu nonblocking collectives never completed: left out",
                       (unsigned long long)lc.nbc_open);
    if (lc.orphan)
        sim_trace_note(t, "%llu completions of requests the trace never started: left out",
                       (unsigned long long)lc.orphan);
    if (lc.cancelled)
        sim_trace_note(t, "%llu cancelled requests: not posted (they matched nothing)",
                       (unsigned long long)lc.cancelled);
    *out = t;
    return 0;
}

void rt_sim_trace_free(rt_sim_trace *t)
{
    if (!t)
        return;
    if (t->nslabs)
        slabs_free(t);
    else if (t->ranks)
        for (uint32_t i = 0; i < t->defs.nranks; i++)
            free(t->ranks[i].ev);
    free(t->ranks);
    rt_defs_free(&t->defs);
    free(t->notes);
    free(t);
}

const rt_defs *rt_sim_trace_defs(const rt_sim_trace *t)
{
    return &t->defs;
}
uint64_t rt_sim_trace_events(const rt_sim_trace *t)
{
    return t->nevents;
}
uint64_t rt_sim_trace_span_ps(const rt_sim_trace *t)
{
    return (t->t_last - t->t_first) * 1000;
}
const char *rt_sim_trace_notes(const rt_sim_trace *t)
{
    return t->notes ? t->notes : "";
}
const rt_sim_trace_end *rt_sim_trace_end_of(const rt_sim_trace *t)
{
    return &t->end;
}

int rt_sim_trace_traffic(const rt_sim_trace *t, rt_map_edge **edges, size_t *nedges, rt_err *err)
{
    rt_hmap pairs = {0};
    for (uint32_t r = 0; r < t->defs.nranks; r++) {
        const sim_rank_events *re = &t->ranks[r];
        for (uint32_t i = 0; i < re->n; i++) {
            const rt_event *ev = &re->ev[i];
            uint64_t b;
            switch (ev->kind) {
            case RT_EV_SEND:
            case RT_EV_ISEND:
            case RT_EV_RMA_PUT:
                b = ev->bytes;
                break;
            case RT_EV_RMA_GET:
                b = ev->rbytes;
                break;
            case RT_EV_RMA_ATOMIC:
                b = rt_add_sat(ev->bytes, ev->rbytes);
                break;
            default:
                continue;
            }
            uint32_t a = r, p = (uint32_t)ev->peer;
            if (a == p || !b)
                continue;
            uint64_t *v = rt_hmap_put(&pairs, a < p ? a : p, a < p ? p : a, NULL);
            if (!v) {
                rt_hmap_free(&pairs);
                return rt_err_set(err, RT_E_NOMEM, "out of memory");
            }
            *v = rt_add_sat(*v, b); /* weights for --map auto: past 2^64 - 1 they all weigh most */
        }
    }
    rt_map_edge *e = malloc((pairs.n ? pairs.n : 1) * sizeof *e);
    if (!e) {
        rt_hmap_free(&pairs);
        return rt_err_set(err, RT_E_NOMEM, "out of memory");
    }
    size_t n = 0;
    for (size_t i = 0; i < pairs.cap; i++)
        if (pairs.slots[i].k1 != RT_HASH_EMPTY)
            e[n++] = (rt_map_edge){(uint32_t)pairs.slots[i].k1, (uint32_t)pairs.slots[i].k2,
                                   pairs.slots[i].v};
    rt_hmap_free(&pairs);
    *edges = e;
    *nedges = n;
    return 0;
}
