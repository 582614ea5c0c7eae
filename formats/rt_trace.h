/*
 * Reading and writing traces: OTF2 archives and retrace's CSV form, behind one streaming
 * interface. A reader hands out each rank's events in time order (the interleaving between
 * ranks depends on the format); memory does not grow with the number of events.
 */
#ifndef RT_TRACE_H
#define RT_TRACE_H

#include <stdio.h>

#include "rt_error.h"
#include "rt_event.h"

typedef enum rt_format {
    RT_FMT_AUTO = 0, /* reading: detect; writing: from the path (".csv" means CSV) */
    RT_FMT_OTF2,
    RT_FMT_CSV,
    RT_FMT_RAW, /* the tracer's raw per-rank files (rt_raw.h): reading only */
    RT_FMT_TI   /* SimGrid's time-independent traces: an index and per-rank action files */
} rt_format;

const char *rt_format_name(rt_format fmt);
/* "otf2", "csv" or "ti" (formats retrace writes): the rt_format; -RT_E_NOTFOUND when the name
 * is unknown. */
int rt_format_lookup(const char *name);

/* ---- definitions ---------------------------------------------------------------------------- */

/* The MPI library that recorded a trace, as rt_defs.library holds it: from the text of
 * MPI_Get_library_version, its name and version ("MPICH 4.0.2", "Open MPI 4.1.4"; for another
 * library its first line), each character outside letters, digits, blank and ._+- replaced by
 * '_', cut to fit out (len bytes with the NUL). */
void rt_library_name(const char *version, char *out, size_t len);
/* 1 when s (at most len bytes) is such a name: NUL-terminated within len, the characters
 * above only. "" is the name of no library (unknown). */
int rt_library_valid(const char *s, size_t len);

/* nranks world ranks, all on node 0 of module 0, with the predefined communicators
 * RT_COMM_WORLD (every rank) and RT_COMM_SELF. nranks must be from 1 to rt_max_ranks: every
 * reader makes its definitions here, so the limit holds for every format (-RT_E_RANGE, the
 * message naming the limit and RT_MAX_RANKS_ENV). */
int rt_defs_init(rt_defs *defs, uint32_t nranks, rt_err *err);
/* The most ranks a trace may have: the environment variable RT_MAX_RANKS_ENV, a whole number
 * from 1 to RT_MAX_RANKS, else RT_DEFAULT_MAX_RANKS. -RT_E_INVAL for any other value of the
 * variable (the message names it). */
int rt_max_ranks(uint32_t *max, rt_err *err);
void rt_defs_free(rt_defs *defs);
int rt_defs_copy(rt_defs *dst, const rt_defs *src, rt_err *err);
/* Members are copied. Ids must be new; members must be world ranks. */
int rt_defs_add_comm(rt_defs *defs, uint32_t id, uint32_t parent, uint32_t flags, uint32_t size,
                     uint32_t remote_size, const uint32_t *members, const char *name, rt_err *err);
int rt_defs_add_group(rt_defs *defs, uint32_t id, uint32_t size, const uint32_t *members,
                      rt_err *err);
int rt_defs_add_win(rt_defs *defs, uint32_t id, uint32_t comm, rt_err *err);
const rt_comm_def *rt_defs_comm(const rt_defs *defs, uint32_t id);
const rt_group_def *rt_defs_group(const rt_defs *defs, uint32_t id);
const rt_win_def *rt_defs_win(const rt_defs *defs, uint32_t id);
/* A window's name (replacing an earlier one) and one more of its info keys (rt_win_def: the
 * limits). The window must be defined; -RT_E_RANGE for a string past its limit, a key that is
 * empty or given twice, or more keys than RT_WIN_INFO_MAX. Strings are copied. */
int rt_defs_set_win_name(rt_defs *defs, uint32_t id, const char *name, rt_err *err);
int rt_defs_add_win_info(rt_defs *defs, uint32_t id, const char *key, const char *value,
                         rt_err *err);
/* The neighbour lists (rt_nbr_def) of world rank rank on communicator comm, copied: nin
 * sources then nout destinations, each a rank of comm or RT_PEER_NONE. The communicator must
 * be defined and not an inter-communicator, rank one of its members, the pair new, each list
 * at most RT_MAX_DEGREE long. */
int rt_defs_add_nbrs(rt_defs *defs, uint32_t comm, uint32_t rank, uint32_t nin, const int32_t *in,
                     uint32_t nout, const int32_t *out, rt_err *err);
/* NULL when the trace holds no neighbour lists of rank on comm. O(log nnbrs). */
const rt_nbr_def *rt_defs_nbrs(const rt_defs *defs, uint32_t comm, uint32_t rank);
/*
 * Checks that the neighbour lists agree with each other, as MPI requires of a topology used
 * by neighbourhood collectives: on every communicator, each rank b appears in the
 * destinations of a as often as a appears in the sources of b. Only pairs whose two ranks
 * both have lists are compared (a rank that never called a neighbourhood collective on a
 * communicator has none). On failure err names the communicator and the two ranks.
 */
int rt_defs_nbrs_check(const rt_defs *defs, rt_err *err);
/* The real host of world rank rank (rt_rank_host): a host name (rt_host_name_valid), the
 * host's online CPUs, and the CPUs the rank was allowed to run on: ncpus of them, listed in
 * cpus when not NULL (rt_cpu_list_parse; the list's count must be ncpus). Once per rank; a
 * host named again with more online CPUs keeps the larger count. Strings are copied. */
int rt_defs_set_host(rt_defs *defs, uint32_t rank, const char *name, uint32_t online,
                     uint32_t ncpus, const char *cpus, rt_err *err);
/* 1 when s is a host name retrace keeps: 1 to RT_HOST_NAME_LEN letters, digits, '-', '.',
 * '_'. */
int rt_host_name_valid(const char *s);
/* 1 for the characters a host name may hold: letters, digits, '-', '.' and '_'. */
int rt_host_char(char c);
/* A CPU list in Linux's form ("0-3,8": ascending, disjoint numbers and ranges below
 * RT_CPU_MAX, at most RT_CPU_LIST_LEN bytes): *count CPUs, each set in set (RT_CPU_MAX bits)
 * when set is not NULL. -RT_E_FORMAT or -RT_E_RANGE (too long) otherwise. */
int rt_cpu_list_parse(const char *s, uint32_t *count, uint64_t *set);
/* For each host h, cpus[h]: the CPUs its ranks could run on together (the union of their
 * lists; the largest count when a list is missing). 0 or -RT_E_NOMEM. */
int rt_defs_host_cpus(const rt_defs *defs, uint32_t *cpus);
/* Number of distinct node and module ids in use. */
uint32_t rt_defs_count_nodes(const rt_defs *defs);
uint32_t rt_defs_count_modules(const rt_defs *defs);

/*
 * World rank of peer as seen by world rank self on communicator comm (the remote group of
 * an inter-communicator), or of a window's target when the event is an RMA kind. Returns
 * -RT_E_NOTFOUND when it does not resolve (no such communicator, peer out of range, self not
 * a member).
 */
int64_t rt_defs_peer_world(const rt_defs *defs, const rt_event *ev);

/* Position of world rank w in c->members (group a, then group b of an inter-communicator),
 * or -RT_E_NOTFOUND when w is not a member. O(log size). */
int64_t rt_comm_position(const rt_comm_def *c, uint32_t w);

/* Checks an event against the definitions: rank, communicator or window, peer, op and
 * contype in range. On failure err says what is wrong (without naming the input). */
int rt_event_check(const rt_defs *defs, const rt_event *ev, rt_err *err);

/* For the passes that count what completed: 1 when ev is an operation of a pending call
 * (rt_event.h: it never completed), else 0. *in_ops is the state of ev's rank (0 before its
 * first event), which it advances: set by the rank's PENDING, cleared by its next ENTER or
 * LEAVE. A reader hands out a rank's events in order and checks their shape, so a byte per
 * rank is all a pass needs. */
static inline int rt_pending_op(uint8_t *in_ops, const rt_event *ev)
{
    switch (ev->kind) {
    case RT_EV_PENDING:
        *in_ops = 1;
        return 0;
    case RT_EV_ENTER:
    case RT_EV_LEAVE:
        *in_ops = 0;
        return 0;
    default:
        return *in_ops;
    }
}

/* ---- reading -------------------------------------------------------------------------------- */

typedef struct rt_reader rt_reader;

/* path: an OTF2 archive (its directory or its .otf2 anchor file), a CSV trace, a raw trace
 * (its directory, or any .rtr file in it), or the index file of a SimGrid TI trace. */
int rt_reader_open(const char *path, rt_reader **out, rt_err *err);
const rt_defs *rt_reader_defs(const rt_reader *r);
rt_format rt_reader_format(const rt_reader *r);
/* 1: *ev holds the next event; 0: no more events; < 0: error (err says where and what). */
int rt_reader_next(rt_reader *r, rt_event *ev, rt_err *err);
/* The same events several at a time, for a pass that loads a whole trace: *ev points to
 * *n >= 1 events of one rank, in the order rt_reader_next would hand them out, valid until
 * the next call on r. Formats that build events in bulk (SimGrid TI) give blocks of many;
 * the others one event per call. Returns like rt_reader_next; both may be mixed. */
int rt_reader_next_block(rt_reader *r, const rt_event **ev, size_t *n, rt_err *err);
/* 1 when the reader hands out all of a rank's events before any of a higher rank's and none
 * of a lower one's (TI per-rank files, OTF2 archives): a rank is complete once the next
 * begins. */
int rt_reader_by_rank(const rt_reader *r);
/*
 * Reading a trace in parts, one reader per thread (analyzer/pass.c): rt_reader_can_split is 1
 * when the format allows it (OTF2: each part is an OTF2_Reader of its own, over the locations
 * of its ranks) and the trace has more than one rank; rt_reader_rank_size weighs a rank for
 * balancing the parts (its records); rt_reader_open_ranks opens path again for ranks lo to
 * hi - 1 only, handed out as rt_reader_open's reader would. A part leaves the checks made at
 * the end of the whole trace to rt_reader_end_check, to be called once every part has come
 * to its end without error, in rank order, so that the error reported is the one a single
 * reader would report.
 */
int rt_reader_can_split(const rt_reader *r);
uint64_t rt_reader_rank_size(const rt_reader *r, uint32_t rank);
int rt_reader_open_ranks(const char *path, uint32_t lo, uint32_t hi, rt_reader **out, rt_err *err);
int rt_reader_end_check(const rt_reader *r, rt_err *err);
/* After the end: non-NULL when the trace was cut short (the text says where). */
const char *rt_reader_truncated(const rt_reader *r);
/* Fraction of the trace read so far, 0 to 1, or -1 when the format cannot tell. */
double rt_reader_progress(const rt_reader *r);
void rt_reader_close(rt_reader *r);

/* ---- writing -------------------------------------------------------------------------------- */

typedef struct rt_writer rt_writer;

/* The definitions are copied. OTF2 writes an archive directory at path (which must not
 * exist, or be an empty directory); CSV writes one file; TI writes the index file at path and
 * one action file per rank in the directory path_files (neither may exist). RT_FMT_RAW is
 * refused: only the tracer writes raw traces. */
int rt_writer_open(const char *path, rt_format fmt, const rt_defs *defs, rt_writer **out,
                   rt_err *err);
/* Events of one rank must come in time order; ranks may interleave. */
int rt_writer_write(rt_writer *w, const rt_event *ev, rt_err *err);
/* Finishes the trace and frees the writer, also on failure. */
int rt_writer_close(rt_writer *w, rt_err *err);
/* Removes a trace retrace wrote: a CSV file, a TI index with the rank files of its
 * PATH_files directory, or an OTF2 archive directory holding a traces.otf2 anchor (its
 * anchor, definitions and event files); a directory only if nothing else is left in it.
 * Refuses anything else. */
int rt_trace_remove(const char *path, rt_err *err);

/* Marks the trace being written as cut short (a recording that did not finish); note says
 * where. Readers of the finished trace report it as truncated with that note. */
int rt_writer_set_truncated(rt_writer *w, const char *note, rt_err *err);

/* Removes the raw files the tracer wrote (r*.rtr) in dir, and dir if that empties it. */
void rt_raw_remove(const char *dir);

/* 1 when path does not exist or is an empty directory: where a new trace may go. */
int rt_path_is_free(const char *path);

/* Frees the writer and removes what it wrote so far (after a failure elsewhere). */
void rt_writer_abort(rt_writer *w);

#endif /* RT_TRACE_H */
