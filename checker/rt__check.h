/* checker/ internals: the findings table, text helpers and the passes' entry points. */
#ifndef RT__CHECK_H
#define RT__CHECK_H

#include <stddef.h>
#include <stdint.h>

#include "rt_check.h"
#include "rt_event.h"
#include "rt_hash.h"
#include "rt_trace.h"

/* ---- text --------------------------------------------------------------------------------- */

#define CHK_TEXT 1024u /* one cell of a finding; longer text is cut with "..." */

typedef struct chk_text {
    char s[CHK_TEXT];
    size_t len;
} chk_text;

void chk_add(chk_text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* "1.5 us" for a recorded time in ns since the trace's origin (saturating past 2^64 ps). */
void chk_add_time(chk_text *t, uint64_t ns);
/* "comm world", "comm self", "comm 3"; "window 2" for windows. */
void chk_add_comm(chk_text *t, uint32_t comm);
/* "rank 0 MPI_Bcast(root 1, 8 bytes) at 1.2 us": the call of ev and the fields that matter
 * for a finding (peers as the event holds them: ranks of its communicator or window). */
void chk_add_call(chk_text *t, const rt_event *ev);

/* ---- findings ------------------------------------------------------------------------------ */

typedef struct chk {
    const rt_check_opts *o;
    rt_check_result *res;
    rt_table *findings;
    int nomem;
    uint32_t threaded;  /* a rank whose calls overlap (several threads); UINT32_MAX: none */
    uint64_t wildcards; /* completed receives from MPI_ANY_SOURCE (the race pass runs when any) */
} chk;

/* 1 when class cls is to be checked. */
static inline int chk_on(const chk *c, unsigned cls)
{
    return (c->o->classes >> cls) & 1u;
}

/* Counts a finding of class cls and, while fewer than max are kept, adds its row. ranks and
 * where may be "" (where: no communicator or window). 0 or -RT_E_NOMEM. */
int chk_find(chk *c, unsigned cls, const char *ranks, const char *where, const char *calls,
             const char *why);

/* The bytes an RMA transfer of this kind touches at its target (rt_event.h, RMA_TARGET): a get
 * reads rbytes; an atomic with a result (Get_accumulate, Fetch_and_op, Compare_and_swap) as many
 * as its result holds, its origin may be ignored (MPI_NO_OP); a put or an accumulate bytes. */
static inline uint64_t chk_target_bytes(unsigned kind, uint64_t bytes, uint64_t rbytes)
{
    return kind == RT_EV_RMA_GET || (kind == RT_EV_RMA_ATOMIC && rbytes) ? rbytes : bytes;
}

/* ---- the passes ---------------------------------------------------------------------------- */

/* How a rank's run went, as far as the streaming pass has read. */
typedef struct chk_rank {
    uint8_t finalized;     /* entered MPI_Finalize */
    uint8_t in_pending;    /* between a PENDING event and the next ENTER or LEAVE */
    uint8_t ended_pending; /* its run ended in a call that never returned */
    uint8_t freed;         /* called MPI_Request_free without a REQUEST_FREE ... */
    uint8_t free_known;    /* the current MPI_Request_free has its REQUEST_FREE */
    uint64_t freed_ns;     /* ... last at this time */
    uint32_t depth;        /* calls entered and not left (more than 1: several threads) */
} chk_rank;

/* One collective call of a rank. */
typedef struct chk_call {
    rt_event ev; /* COLL_END or NBC_COMPLETE; kind 0 for a nonblocking one never completed */
    uint64_t start_ns;
    uint32_t row0, nrows; /* its COLL_PEER rows: the rank's rows[row0 .. row0 + nrows) */
} chk_call;

/* One block of a v or w collective whose blocks differ (a COLL_PEER row, rt_event.h). */
typedef struct chk_row {
    int32_t peer; /* the block: a rank of the communicator */
    uint64_t bytes, rbytes;
} chk_row;

/* Every rank's collective calls, in the order each rank called them, and their rows. */
typedef struct chk_colls {
    uint32_t nranks;
    chk_call **calls;
    uint32_t *ncalls, *room;
    chk_row **rows;
    uint32_t *nrows, *rows_room;
    uint32_t *last; /* per rank: the call its next rows belong to (UINT32_MAX: none) */
} chk_colls;

/* The streaming pass (check_stream.c): requests and RMA epochs rank by rank, and then the
 * collective calls compared, while the definitions are there. */
int chk_stream(chk *c, const char *path, rt_err *err);
/* The blocks of a v or w collective instance, pair by pair (check_pairs.c), for traces that
 * record them (RT_DEFS_COLL_PEERS). Above CHK_PAIRS_MAX members an instance with rows has only its
 * totals compared (p^2 blocks). */
#define CHK_PAIRS_MAX 1024u
typedef struct chk_pairs {
    const chk_colls *cs;
    const rt_comm_def *cd;
    const rt_event *const *ev; /* per member: its call's event, the first member of its chk_call */
    uint32_t p;
    int (*report)(void *ctx, uint32_t a, uint32_t b, const char *text); /* 1: reported */
    void *ctx;
} chk_pairs;
/* 1 when a finding was reported, 0 when the blocks agree, or a negative code. */
int chk_pairs_compare(const chk_pairs *pp, unsigned op, uint32_t root);

/* Compares the collective calls of every communicator's members (check_coll.c). */
int chk_colls_compare(chk *c, const rt_defs *defs, const chk_rank *ranks, const chk_colls *cs);

/* Message races of the receives from MPI_ANY_SOURCE (check_race.c). */
int chk_race(chk *c, const char *path, rt_err *err);

/* Deadlock and buffering hazards from replays of the trace at path (check_replay.c). */
int chk_replay(chk *c, const char *path, rt_err *err);

/* RMA conflicts (check_rma.c): the streaming pass gives it every RMA event of a rank that is
 * not in a pending call, then asks for the findings once at the end. */
typedef struct chk_conf chk_conf;
chk_conf *chk_conf_new(void); /* NULL: no memory */
int chk_conf_event(chk_conf *k, const rt_defs *defs, const rt_event *ev);
int chk_conf_report(chk *c, chk_conf *k, const rt_defs *defs);
void chk_conf_free(chk_conf *k);

/* Resource leaks (check_leak.c): the streaming pass gives it every window creation and free, and
 * every COMM_HANDLE, of a rank that is not in a pending call; the findings come at the end. */
typedef struct chk_leak chk_leak;
chk_leak *chk_leak_new(void); /* NULL: no memory */
int chk_leak_event(chk_leak *k, const rt_event *ev);
int chk_leak_report(chk *c, chk_leak *k, const chk_rank *ranks);
void chk_leak_free(chk_leak *k);

/* The assertions of fences, posts and starts (check_assert.c): the streaming pass gives it every
 * RMA event of a rank that is not in a pending call; the findings that pair ranks come at the end
 * (class rma-epoch). */
typedef struct chk_assert chk_assert;
chk_assert *chk_assert_new(void); /* NULL: no memory */
int chk_assert_event(chk *c, chk_assert *k, const rt_defs *defs, const rt_event *ev);
int chk_assert_report(chk *c, chk_assert *k);
void chk_assert_free(chk_assert *k);

/* Memory of dynamic windows (check_dyn.c, class rma-epoch): the streaming pass gives it every
 * RMA event of a rank that is not in a pending call; attaches and detaches are checked at once,
 * transfers against their targets' attached memory at the end. */
typedef struct chk_dyn chk_dyn;
chk_dyn *chk_dyn_new(void); /* NULL: no memory */
int chk_dyn_event(chk *c, chk_dyn *k, const rt_defs *defs, const rt_event *ev);
int chk_dyn_report(chk *c, chk_dyn *k);
void chk_dyn_free(chk_dyn *k);

/* Buffers of operations and window memory (check_buf.c: rma-conflict local, rma-epoch
 * MPI_MODE_NOSTORE) in traces recorded with buffers: the streaming pass gives it every event of a
 * rank that is not in a pending call, ENTERs included; notes come at the end. */
typedef struct chk_buf chk_buf;
chk_buf *chk_buf_new(uint32_t nranks); /* NULL: no memory */
int chk_buf_event(chk *c, chk_buf *k, const rt_event *ev);
int chk_buf_report(chk *c, chk_buf *k);
void chk_buf_free(chk_buf *k);

/* The place of key (k1, k2)'s entry in the array *items of *n entries of size bytes (room for
 * *room), found through the map at; a new one is appended zeroed (*created = 1, created may be
 * NULL). SIZE_MAX: no memory. The passes keep their state per rank and window so. */
size_t chk_entry(rt_hmap *at, void *items, size_t *n, size_t *room, size_t size, uint64_t k1,
                 uint64_t k2, int *created);

/* Appends a line to the result's notes. 0 or -RT_E_NOMEM. */
int chk_note(chk *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif /* RT__CHECK_H */
