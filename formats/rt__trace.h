/* Internal: what the generic reader and writer (trace.c) share with the format back ends. */
#ifndef RT__TRACE_H
#define RT__TRACE_H

#include "rt_util.h"
#include "rt_trace.h"

#define RT__GATHER 64 /* events per block from back ends without next_block */

/*
 * Where one rank's stream stands with respect to pending calls (rt_event.h, "A pending
 * call"): what rt__pending_step needs of the events before. Zeroed: before the first event.
 * Every reader (rt_reader_next) and every writer (rt_writer_write) steps it over each event,
 * so that no format hands out, and none writes, a pending call of another shape.
 */
typedef struct rt__rank_state {
    uint64_t pending_time; /* time of the rank's last pending call */
    uint16_t pending_call; /* its call; RT_FN_NONE: the rank has none */
    uint16_t last_call;    /* call of the rank's last event */
    uint8_t last_kind;     /* kind of the rank's last event plus 1; 0: no event yet */
    uint8_t in_ops;        /* 1: the events now are the operations of the pending call */
    /* COLL_PEER rows (rt_event.h, "The per-peer counts"): rows is 1 right after a v or w
     * collective's end and its rows, with what its totals leave for more rows per side (0 for
     * a side the op has not), the last block (-1 before the first) and the collective. */
    uint8_t rows, row_op;
    uint8_t slow; /* pending_call or rows: every event needs rt__pending_check */
    int32_t row_peer;
    uint32_t row_comm;
    uint64_t row_bytes, row_rbytes;
    uint64_t row_time; /* the collective's time, for messages */
    /* RMA_TARGET (rt_event.h, "The target of an RMA transfer"): tgt is 1 right after a transfer,
     * whose kind, op, window and target an RMA_TARGET must repeat. */
    uint8_t tgt, tgt_kind, tgt_op;
    uint32_t tgt_comm;
    int32_t tgt_peer;
    /* BUFFER and WIN_ATTACH base (rt_event.h, "The memory an operation uses"): the event the
     * buffers after it belong to (buf_kind), the op of the last of them and how many so far;
     * the window of the last WIN_CREATE. */
    uint8_t buf_kind, buf_op, buf_n;
    uint32_t win_comm;
    /* ERROR (rt_event.h, "A call that returned an error"): 1 right after one, whose call's
     * LEAVE must come next. */
    uint8_t err;
} rt__rank_state;

/* rt__pending_step: checks ev against the shape of a pending call and advances st (ev is checked
 * already by rt_event_check and is not before last_time, the time of the rank's last event): a
 * PENDING right after the ENTER of its call at its time; after it, up to the next ENTER, LEAVE or
 * PENDING, only the kinds a pending call can wait for, at its time and with its call; no
 * LEAVE of a pending call later; a receive without a source (peer RT_PEER_NONE) only in a
 * pending call; the rows of a v or w collective (COLL_PEER) only right after it, at its time
 * and with its call, comm and op, blocks in increasing order, adding up to its totals; the target
 * of an RMA transfer (RMA_TARGET) only right after it, at its time and with its call, window and
 * target, with an op that suits it.
 * -RT_E_FORMAT with err naming the event, not the input. */
int rt__pending_check(rt__rank_state *st, uint64_t last_time, const rt_event *ev, rt_err *err);
/* At the end of a rank's events: rows that fall short of their collective's totals. */
int rt__rows_end(const rt__rank_state *st, uint32_t rank, rt_err *err);

/* What rt__event_check_memo looked up last for an event's communicator (an RMA kind's:
 * its window's): the communicator and the group a peer indexes, of one rank. Valid while the
 * definitions do not change; zero it to start. */
typedef struct rt__check_memo {
    const rt_comm_def *c;
    uint32_t n;        /* the size of the group a peer indexes (0 for MPI_COMM_SELF) */
    uint32_t rank, id; /* the event's rank and comm field */
    uint8_t rma, valid;
} rt__check_memo;
/* rt_event_check, with the lookup of the last communicator that passed kept in memo: a
 * block's events of one rank mostly name one or two. */
int rt__event_check_memo(const rt_defs *defs, const rt_event *ev, rt__check_memo *memo,
                         rt_err *err);
/* The same, inline where nothing is to check: no pending call on the rank so far, not a
 * PENDING, no peer RT_PEER_NONE, no collective end or row, no RMA transfer or target (every event
 * but a few at the end of a run that did not finish). A call per event would cost a reader a few
 * per cent. */
static inline int rt__pending_step(rt__rank_state *st, uint64_t last_time, const rt_event *ev,
                                   rt_err *err)
{
    /* the kinds that need a look: ev->kind < RT_EV_COUNT <= 64 (rt_event_check) */
    const uint64_t kinds = UINT64_C(1) << RT_EV_PENDING | UINT64_C(1) << RT_EV_COLL_END |
                           UINT64_C(1) << RT_EV_NBC_COMPLETE | UINT64_C(1) << RT_EV_RMA_PUT |
                           UINT64_C(1) << RT_EV_RMA_GET | UINT64_C(1) << RT_EV_RMA_ATOMIC |
                           UINT64_C(1) << RT_EV_RMA_TARGET | UINT64_C(1) << RT_EV_COLL_PEER |
                           UINT64_C(1) << RT_EV_ERROR | UINT64_C(1) << RT_EV_BUFFER |
                           UINT64_C(1) << RT_EV_WIN_CREATE | UINT64_C(1) << RT_EV_WIN_ATTACH;
    if (st->slow | ((kinds >> ev->kind) & 1) | (ev->peer == RT_PEER_NONE))
        return rt__pending_check(st, last_time, ev, err);
    st->last_kind = (uint8_t)(ev->kind + 1);
    st->last_call = ev->call;
    return 0;
}

/* For a next_block back end that builds its events as any reader would hand them to
 * next_checked (OTF2): checks n events of one rank (ev[0].rank), as rt_reader_next checks each
 * event of the other back ends, in one loop (rt_event_check, time order after the rank's last
 * event and after each other, rt__pending_step). The back end hands them normalised: it sets
 * only the fields of each event's kind, the rest 0 (rt_event_normalize would change nothing;
 * the OTF2 callbacks, formats/otf2_revents.c, and unit.formats_otf2.test_otf2_attr_lists), so
 * that the loop does not clear every event's eight fields again.
 * 0 when all pass; else < 0 with *ok the events that passed before the first that did not,
 * err its message without a place (the back end names the input and the record). *ok is n on
 * success. The rank's last time is left to the generic layer (next_block_checked). */
int rt__reader_check_block(rt_reader *r, rt_event *ev, size_t n, size_t *ok, rt_err *err);
/* For such a back end at the end of the trace: the checks rt_reader_next makes there
 * (v and w collectives' rows short of their totals); 0 for a part (rt_reader_end_check). */
int rt__reader_end(rt_reader *r, rt_err *err);

typedef struct rt__reader_ops {
    /* 1: an event; 0: the end (set r->truncated for a cut trace); < 0: error. */
    int (*next)(rt_reader *r, rt_event *ev, rt_err *err);
    /* Where the last event came from, e.g. "t.csv:12" or "t/traces.otf2: rank 3". */
    void (*where)(const rt_reader *r, char *buf, size_t len);
    /* Instead of next and where, for a back end that builds its events from fields it has
     * checked itself: *n >= 1 events of one rank, in time order after its earlier ones, each
     * passing rt_event_check and normalised (rt_event_normalize), valid until the next call.
     * The generic layer checks only the time order where blocks meet (each block's first
     * event against the rank's last, its last against its first): inside a block the order
     * is the back end's to keep. Checking nothing per event makes reading in blocks fast.
     * 1: a block; 0: the end; < 0: error (events before it come first). */
    int (*next_block)(rt_reader *r, const rt_event **ev, size_t *n, rt_err *err);
    /* Fraction of the trace read so far (0 to 1), or -1 when unknown; may be NULL. */
    double (*progress)(const rt_reader *r);
    /* Back ends that can read a part of the ranks (rt_reader_open_ranks): what reading rank
     * costs, in records or bytes, for balancing the parts; NULL for the others. */
    uint64_t (*rank_size)(const rt_reader *r, uint32_t rank);
    void (*close)(rt_reader *r);
} rt__reader_ops;

struct rt_reader {
    const rt__reader_ops *ops;
    void *impl;
    char *path;
    rt_format format;
    rt_defs defs;
    char *truncated;       /* message when the trace was cut short */
    uint64_t *last_time;   /* per rank: for the time-order check */
    rt__rank_state *state; /* per rank: for the pending-call checks */
    uint64_t nevents;
    int by_rank; /* set by a back end that hands out rank 0's events, then rank 1's, ... */
    /* rt_reader_open_ranks: only ranks rank_lo to rank_hi - 1 (part 1); a back end that
     * honours them sets rank_size. A part leaves the end-of-trace checks to
     * rt_reader_end_check. */
    uint32_t rank_lo, rank_hi;
    int part;
    const rt_event *blk; /* next_block back ends: the block rt_reader_next hands out */
    size_t blk_n, blk_i;
    /* Other back ends: rt_reader_next_block gathers their events, RT__GATHER at most, and
     * one more: the event of another rank that ended the block (held), handed out next. */
    rt_event *gather;
    int held;
    int stop; /* the back end ended (1) or failed (its < 0 code, stop_err) after the block */
    rt_err stop_err;
};

typedef struct rt__writer_ops {
    int (*write)(rt_writer *w, const rt_event *ev, rt_err *err);
    int (*close)(rt_writer *w, rt_err *err); /* finish; must free impl also on failure */
    void (*abort)(rt_writer *w);             /* free impl, remove output */
} rt__writer_ops;

struct rt_writer {
    const rt__writer_ops *ops;
    void *impl;
    char *path;
    rt_format format;
    rt_defs defs;
    uint64_t *last_time;
    rt__rank_state *state;
    char *truncated; /* rt_writer_set_truncated: back ends store it at close */
};

/* Back ends. open: fill r->ops, r->impl and r->defs. create: fill w->ops and w->impl. */
int rt__csv_open(rt_reader *r, rt_err *err);
int rt__otf2_open(rt_reader *r, rt_err *err);
int rt__raw_open(rt_reader *r, rt_err *err); /* reading only */
int rt__ti_open(rt_reader *r, rt_err *err);
int rt__csv_create(rt_writer *w, rt_err *err);
int rt__otf2_create(rt_writer *w, rt_err *err);
int rt__ti_create(rt_writer *w, rt_err *err);

/* The error rc (negative) of a call that wrote err without naming the input: err->msg
 * prefixed with "WHAT: " (a file of the trace, or r->path). Returns rc. */
int rt__err_prefix(rt_err *err, int rc, const char *what);

/* Sets r->truncated to a copy of the formatted message. */
void rt__reader_set_truncated(rt_reader *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Fields are parsed with rt_parse_u64 and rt_parse_i64 (rt_parse.h: inline, strict). */

/* Removes a communicator (used to replace the predefined ones by an archive's own). */
void rt__defs_drop_comm(rt_defs *defs, uint32_t id);
/* Frees the neighbour lists (nbrs.c; rt_defs_free). */
void rt__defs_free_nbrs(rt_defs *defs);
/* defs_win.c: a window's name and info keys freed; a window copied with them. */
void rt__defs_free_win(rt_win_def *w);
int rt__defs_copy_win(rt_defs *dst, const rt_win_def *w, rt_err *err);
void rt__defs_free_hosts(rt_defs *defs);
int rt__defs_copy_hosts(rt_defs *dst, const rt_defs *src, rt_err *err);

/* The name under which a trace cut short keeps its note: an OTF2 archive property, and in
 * CSV a comment line "# truncated: NOTE". */
#define RT__TRUNCATED_PROPERTY "RETRACE::TRUNCATED"
#define RT__TRUNCATED_COMMENT "# truncated: "
/* RT_DEFS_COLL_PEERS in an OTF2 archive: this property, "1" (in CSV: the line "peer_counts"). */
#define RT__PEER_COUNTS_PROPERTY "RETRACE::PEER_COUNTS"
/* The MPI library that recorded the trace (rt_defs.library), when known. */
#define RT__MPI_LIBRARY_PROPERTY "RETRACE::MPI_LIBRARY"
/* RT_DEFS_ELEM_SIZES in an OTF2 archive: this property, "1" (in CSV: the line "elem_sizes"). */
#define RT__ELEM_SIZES_PROPERTY "RETRACE::ELEM_SIZES"
/* RT_DEFS_BUFFERS in an OTF2 archive: this property, "1" (in CSV: the line "buffers"). */
#define RT__BUFFERS_PROPERTY "RETRACE::BUFFERS"

#endif /* RT__TRACE_H */
