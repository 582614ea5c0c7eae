/*
 * retrace raw traces: what the tracer writes while the application runs, and what the raw
 * reader (formats/raw_reader.c) turns into events. This header is the contract between them.
 *
 * Why a raw form: the tracer must be cheap and must survive a run that dies. Each thread of
 * each rank appends fixed-size binary records to a buffer, which reaches its own file when
 * it is full, every 50 ms from a flusher thread, and from the crash paths (a signal,
 * MPI_Abort, exit without MPI_Finalize): tracer/stream.c and tracer/flush.c. No rank waits
 * for another. The OTF2 archive is assembled from these files at MPI_Finalize, or
 * afterwards by `retrace record` / `retrace convert`.
 *
 * A raw trace is a directory holding, for every world rank R:
 *   rR.defs.rtr    header, then DEF records (communicators, groups, windows, neighbour
 *                  lists) in creation order
 *   rR.tT.rtr      header, then event records of thread T (T = 0 is the thread that called
 *                  MPI_Init, the others are numbered in the order they first called MPI)
 * All integers are in the byte order of the machine that wrote them; a reader of the other
 * byte order sees a byte-swapped version field and says so.
 *
 * Records are made of 16-byte slots; byte 0 of a record is its type, which fixes its length
 * (DEF records carry their payload length). A zero byte where a record should start means
 * "no more records". A thread file that
 * ends without a CLOSE record belongs to a run that did not finish: the reader reports the
 * trace as truncated and hands out every complete call recorded before the end.
 *
 * The trailer: a thread that was inside a call when its file was last written (the final
 * write of a signal, MPI_Abort or exit; or the flusher's, once the thread has been in the
 * same call for a whole flusher period) has a PENDING record and that call's operations
 * written after its last complete call, as the file's last records. The writer keeps the
 * committed data where it is and puts the trailer behind it; before more data goes to the
 * file it overwrites the whole trailer with zeros, and only then writes the data over its
 * place, so a process killed in between leaves either the trailer or a zero byte, never a
 * torn record. A PENDING record anywhere but in a trailer (followed by anything but its
 * nops EVENT records and the end of the data) is a damaged file.
 *
 * One CALL record stands for one MPI call: an ENTER event at t0 and a LEAVE event at t1.
 * The records after it, up to the next CALL record, are the events inside that call; each
 * says whether it happened at t0 (a send posted before the call works) or at t1 (a receive
 * completed when the call returns). A COLL record of kind COLL_END or RMA_COLL_END also stands
 * for its COLL_BEGIN / RMA_COLL_BEGIN at t0. A COLL record of kind COLL_PEER is one row of the
 * per-peer counts of the collective before it (rt_event.h), at t1, and stands for nothing else. The
 * event's call field is the CALL's function. Communicator, group and window ids in records are
 * rank-local ("local ids", never reused within a rank; 0 is MPI_COMM_WORLD and 1 is MPI_COMM_SELF);
 * the reader unifies them.
 */
#ifndef RT_RAW_H
#define RT_RAW_H

#include <stdint.h>

#define RT_RAW_MAGIC "RTRAW\x01\x02\x03" /* 8 bytes */
/*
 * Two versions, which differ only in the unit of times. Version 1: every time (CALL t0 and dt,
 * TIME, PENDING, CLOSE, DEF) is in nanoseconds of CLOCK_MONOTONIC since the rank's time 0; the
 * tracer writes it when it reads clock_gettime, and every tracer before the TSC clock did.
 * Version 2: those times are ticks of the processor's time-stamp counter since time 0, and the
 * rank's definitions file starts with a CLOCK definition (rt_raw_def_clock) that turns them
 * into nanoseconds; all files of one rank have the same version, ranks may differ.
 */
#define RT_RAW_VERSION 1u       /* times in nanoseconds */
#define RT_RAW_VERSION_TICKS 2u /* times in clock ticks (rt_raw_def_clock) */
#define RT_RAW_SLOT 16u
#define RT_RAW_THREAD_DEFS UINT32_MAX /* the header's thread field in a defs file */

/* File names: "r%u.defs.rtr" and "r%u.t%u.rtr". */
#define RT_RAW_DEFS_NAME "r%u.defs.rtr"
#define RT_RAW_THREAD_NAME "r%u.t%u.rtr"

#define RT_RAW_LIBRARY_LEN 20

/* First 64 bytes of every raw file. */
typedef struct rt_raw_header {
    char magic[8];
    uint32_t version;
    uint32_t rank;   /* world rank */
    uint32_t nranks; /* world size */
    uint32_t thread; /* RT_RAW_THREAD_DEFS in the defs file */
    uint32_t node;   /* this rank's node id */
    uint32_t module; /* this rank's module id */
    uint64_t origin; /* CLOCK_REALTIME in ns at time 0 of this rank (information only) */
    uint32_t flags;  /* RT_RAW_FLAG_*; 0 in traces of tracers before them */
    char library[RT_RAW_LIBRARY_LEN]; /* the MPI library that recorded: name and version
                                       * ("MPICH 4.0.2", "Open MPI 4.1.4"), NUL-padded; all
                                       * 0 in traces of tracers before it (reserved bytes) */
} rt_raw_header;

/* rt_raw_header.flags. COLL_PEERS: the tracer writes COLL_PEER rows (rt_event.h) whenever a
 * v or w collective's blocks differ, so one without rows has equal blocks (RT_DEFS_COLL_PEERS
 * when every rank's defs file says so). */
#define RT_RAW_FLAG_COLL_PEERS 1u
/* RMA_TARGETS: the EVENT records of RMA transfers carry their target (rt_raw_event: disp and
 * redop), which the reader hands out as an RMA_TARGET event after the transfer; without the flag
 * (tracers before it) those bytes are 0 and mean nothing, and the reader hands out no target. */
#define RT_RAW_FLAG_RMA_TARGETS 2u
/* ELEM_SIZES: P2P and COLL records carry element sizes (rt_esize_code) in bits 1..7 of their 'at'
 * byte (bit 0 is at; the size code costs no byte): a P2P record its datatype's, a COLL record
 * of a COLL_END or a COLL_PEER row its send side's (a reduction's datatype; a row: its block's),
 * with the receive side's code as the value of pad; an EVENT record (NBC_COMPLETE, wildcard
 * receives) the same in 'at' and pad[0]. Without the flag (tracers before it) 'at' is 0 or 1 and
 * the sizes are unknown. */
#define RT_RAW_FLAG_ELEM_SIZES 4u

typedef enum rt_raw_type {
    RT_RAW_NONE = 0,    /* not a record: the end of the data */
    RT_RAW_CALL = 1,    /* rt_raw_call, 1 slot */
    RT_RAW_TIME = 2,    /* rt_raw_time, 1 slot: t1 of the CALL just before, when dt overflowed */
    RT_RAW_P2P = 3,     /* rt_raw_p2p, 2 slots */
    RT_RAW_REQ = 4,     /* rt_raw_req, 1 slot */
    RT_RAW_COLL = 5,    /* rt_raw_coll, 2 slots */
    RT_RAW_EVENT = 6,   /* rt_raw_event, 3 slots: any event kind */
    RT_RAW_DEF = 7,     /* rt_raw_def, 1 slot + payload rounded up to whole slots */
    RT_RAW_CLOSE = 8,   /* rt_raw_close, 1 slot: the thread's last record on a clean finish */
    RT_RAW_PENDING = 9, /* rt_raw_pending, 1 slot: the call the thread was in (trailer only) */
    RT_RAW_TYPE_COUNT
} rt_raw_type;

/* Slots a record of a given type takes, 0 for DEF (variable) and invalid types. */
static inline unsigned rt_raw_slots(unsigned type)
{
    static const unsigned char slots[RT_RAW_TYPE_COUNT] = {0, 1, 1, 2, 1, 2, 3, 0, 1, 1};
    return type < RT_RAW_TYPE_COUNT ? slots[type] : 0;
}

#define RT_RAW_DT_LONG UINT32_MAX /* rt_raw_call.dt: a TIME record follows */

typedef struct rt_raw_call {
    uint8_t type; /* RT_RAW_CALL */
    uint8_t flags;
    uint16_t fn; /* rt_func */
    uint32_t dt; /* t1 - t0 in ns, or RT_RAW_DT_LONG */
    uint64_t t0; /* ns since this rank's time 0 */
} rt_raw_call;

typedef struct rt_raw_time {
    uint8_t type; /* RT_RAW_TIME */
    uint8_t pad[7];
    uint64_t t1;
} rt_raw_time;

/* SEND, ISEND, RECV, IRECV. There is no op byte: a RECV or IRECV whose receive was posted
 * with a wildcard (op != 0, rt_recv_flag) is written as an EVENT record instead. */
typedef struct rt_raw_p2p {
    uint8_t type; /* RT_RAW_P2P */
    uint8_t at;   /* 0: at the call's t0, 1: at t1 */
    uint8_t kind; /* rt_event_kind */
    uint8_t contype;
    uint32_t comm; /* local communicator id */
    int32_t peer;  /* rank in comm (remote group of an inter-communicator) */
    int32_t tag;
    uint64_t bytes;
    uint64_t req;
} rt_raw_p2p;

/* ISEND_COMPLETE, IRECV_REQUEST, REQUEST_CANCELLED, NBC_REQUEST, RMA_OP_COMPLETE, WIN_CREATE,
 * WIN_FREE, REQUEST_FREE (comm 0): a communicator or window and a request id. A COMM_HANDLE,
 * which has an op, is an EVENT record. */
typedef struct rt_raw_req {
    uint8_t type; /* RT_RAW_REQ */
    uint8_t at;
    uint8_t kind;
    uint8_t pad;
    uint32_t comm; /* local communicator id, or local window id for RMA kinds */
    uint64_t req;
} rt_raw_req;

/* COLL_END and RMA_COLL_END of blocking calls (each also stands for its BEGIN at t0), and the
 * COLL_PEER rows of a v or w collective (kind COLL_PEER, peer the block; after the COLL_END, or
 * after the NBC_COMPLETE EVENT record of a nonblocking one). An RMA_COLL_END (a fence) has
 * its assert in pad (rt_rma_assert: retrace's bits, not MPI's); tracers before it wrote 0 there,
 * which reads as no assert given, so older traces need no flag. */
typedef struct rt_raw_coll {
    uint8_t type; /* RT_RAW_COLL */
    uint8_t at;   /* always 1 */
    uint8_t kind;
    uint8_t op;
    uint32_t comm; /* local communicator or window id */
    int32_t peer;  /* root, or RT_PEER_NONE */
    uint32_t pad;  /* RMA_COLL_END: the fence's assert bits (rt_rma_assert); else 0 */
    uint64_t bytes;
    uint64_t rbytes;
} rt_raw_coll;

/*
 * Any event kind with all its fields (NBC_COMPLETE, RMA transfers, RMA synchronisation, and
 * receives posted with a wildcard). An RMA transfer (RMA_PUT, RMA_GET, RMA_ATOMIC, which have no
 * tag) also carries its target, when the header has RT_RAW_FLAG_RMA_TARGETS: disp, the call's
 * target_disp as given, in units of the target's disp_unit (rt_raw_def_win; the origin does not
 * know the target's unit, so the reader multiplies), and redop, the reduction (rt_reduce_op).
 * The reader hands out an RMA_TARGET event after the transfer (rt_event.h); the record costs
 * nothing more. An RMA_GROUP_SYNC has the assert of a post or start in tag (rt_rma_assert; 0
 * from tracers before it, and for complete and wait).
 */
typedef struct rt_raw_event {
    uint8_t type; /* RT_RAW_EVENT */
    uint8_t at;
    uint8_t kind;
    uint8_t contype;
    uint8_t op;
    uint8_t redop; /* RMA transfers: rt_reduce_op; else 0 */
    uint8_t pad[2];
    uint32_t comm;
    int32_t peer;
    union {
        struct {
            int32_t tag;
            uint32_t pad2;
        };
        uint64_t disp; /* RMA transfers: target displacement in the target's units */
    };
    uint64_t bytes;
    uint64_t rbytes;
    uint64_t req;
} rt_raw_event;

typedef enum rt_raw_def_kind {
    RT_RAW_DEF_COMM = 1,     /* rt_raw_def_comm + uint32_t members[size + remote_size] */
    RT_RAW_DEF_GROUP = 2,    /* rt_raw_def_group + uint32_t members[size] */
    RT_RAW_DEF_WIN = 3,      /* rt_raw_def_win */
    RT_RAW_DEF_NBRS = 4,     /* rt_raw_def_nbrs + int32_t lists[nin + nout] */
    RT_RAW_DEF_WIN_NAME = 5, /* rt_raw_def_win_name + the name's bytes */
    RT_RAW_DEF_WIN_INFO = 6, /* rt_raw_def_win_info + the key's bytes, then the value's */
    RT_RAW_DEF_CLOCK = 7,    /* rt_raw_def_clock: version 2 only, the first record */
    RT_RAW_DEF_HOST = 8      /* rt_raw_def_host + the host name's bytes, then the CPU list's */
} rt_raw_def_kind;

typedef struct rt_raw_def {
    uint8_t type; /* RT_RAW_DEF */
    uint8_t what; /* rt_raw_def_kind */
    uint16_t pad;
    uint32_t nbytes; /* payload bytes after this slot (then zero padding to a whole slot) */
    uint64_t time;   /* ns since time 0, information only */
} rt_raw_def;

/*
 * A communicator this rank got from an MPI call. How the reader tells which records of
 * different ranks describe the same communicator (no messages needed at run time):
 *  - created by a call that is collective over the parent (dup, idup, idup_with_info, split,
 *    split_type, create, cart_create, cart_sub, graph_create, dist_graph_create*,
 *    intercomm_merge):
 *    same global parent, same seq, same lowest world rank among the members;
 *  - Comm_create_group (collective over the group only): same global parent, tag and member
 *    list, and the same occurrence count of that triple on each member;
 *  - Comm_create_from_group (MPI-4, collective over the group, no parent: MPI_COMM_WORLD is
 *    written as the parent, and the tag is a hash of the string tag): the same, kept apart
 *    from Comm_create_group's by the creating function;
 *  - Intercomm_create: the same two groups (in either order) and tag, and the same occurrence
 *    count of that pair on each member (seq is written but not needed);
 *  - Intercomm_create_from_groups (MPI-4: parent MPI_COMM_WORLD, the tag a hash of the string
 *    tag): the same, kept apart from Intercomm_create's by the creating function.
 * Windows: same global communicator and seq; on MPI_COMM_SELF also the same rank, since
 * every rank's self window is its own.
 */
typedef struct rt_raw_def_comm {
    uint32_t id;          /* local id (>= 2) */
    uint32_t parent;      /* local id of the parent (local_comm for Intercomm_create) */
    uint32_t how;         /* rt_func of the creating call */
    uint32_t seq;         /* creating calls made on the parent before this one (collective
                             over the parent only; else 0) */
    uint32_t flags;       /* rt_comm_flag */
    uint32_t size;        /* local group size */
    uint32_t remote_size; /* remote group size of an inter-communicator, else 0 */
    int32_t tag;          /* Intercomm_create and Comm_create_group; for Comm_create_from_group
                           * and Intercomm_create_from_groups the 32-bit FNV-1a hash of the
                           * string tag; else 0 */
    /* followed by world ranks: local group in rank order, then the remote group */
} rt_raw_def_comm;

/* A group used for PSCW synchronisation (Win_post, Win_start). Groups are local objects:
 * the reader gives equal member lists one global id. */
typedef struct rt_raw_def_group {
    uint32_t id; /* local id */
    uint32_t size;
    /* followed by world ranks in group rank order */
} rt_raw_def_group;

/* A window: created collectively over comm; same global comm and seq means same window. */
typedef struct rt_raw_def_win {
    uint32_t id;        /* local window id */
    uint32_t comm;      /* local communicator id */
    uint32_t seq;       /* creating calls made on comm before this one (shared with comms) */
    uint32_t disp_unit; /* this rank's disp_unit (1 for a dynamic window); 0 from tracers
                         * before RT_RAW_FLAG_RMA_TARGETS */
} rt_raw_def_win;

/* This rank's neighbour lists on a communicator with a process topology (rt_nbr_def in
 * rt_event.h), written once, at the rank's first neighbourhood collective on it: in-degree
 * sources, then out-degree destinations, as communicator ranks (RT_PEER_NONE for an
 * MPI_PROC_NULL slot). A topology is the communicator's, so no unification is needed. */
typedef struct rt_raw_def_nbrs {
    uint32_t comm; /* local communicator id */
    uint32_t nin, nout;
    uint32_t pad;
    /* followed by int32_t sources[nin], then int32_t destinations[nout] */
} rt_raw_def_nbrs;

/* A window's name (MPI_Win_set_name, each time it is set) and one of the info keys it was
 * created with (one record per key, right after its window's): strings without their NUL, cut by
 * the tracer to the limits of rt_win_def (formats/rt_event.h). Names and keys are the rank's own;
 * the reader keeps those of the lowest rank that gave any. */
typedef struct rt_raw_def_win_name {
    uint32_t id;  /* local window id */
    uint32_t len; /* bytes of the name, at most RT_WIN_NAME_LEN */
} rt_raw_def_win_name;

typedef struct rt_raw_def_win_info {
    uint32_t id;         /* local window id */
    uint16_t klen, vlen; /* bytes of the key (1 to RT_WIN_INFO_KEY_LEN) and of the value (at
                          * most RT_WIN_INFO_VALUE_LEN) */
} rt_raw_def_win_info;

/* The real host of the rank (rt_rank_host), once per defs file (tracers before it: none). */
typedef struct rt_raw_def_host {
    uint32_t online;   /* the host's online CPUs */
    uint32_t ncpus;    /* CPUs the rank may run on */
    uint16_t name_len; /* bytes of the host name, 1 to RT_HOST_NAME_LEN */
    uint16_t cpus_len; /* bytes of the CPU list, at most RT_CPU_LIST_LEN; 0: not kept */
    uint32_t pad;
} rt_raw_def_host;

/*
 * The clock of a version 2 rank: the first record of its definitions file, right after the
 * header (offset 64), which the tracer writes again in place whenever it calibrates (every
 * flusher round, MPI_Finalize, and the crash paths), so that a run cut short still carries the
 * latest figures. A time of t ticks is t * ns / ticks nanoseconds (rounded to the nearest): the
 * counter advanced ticks while CLOCK_MONOTONIC advanced ns, over the longest span the tracer
 * measured (from MPI_Init to the last calibration). The reader converts each time once, with
 * checked arithmetic, and refuses a calibration of 0, or a tick rate outside 1 MHz to 100 GHz.
 */
typedef struct rt_raw_def_clock {
    uint64_t tsc0;  /* the counter at time 0 (information: record times count from it) */
    uint64_t mono0; /* CLOCK_MONOTONIC in ns at time 0 (information) */
    uint64_t ticks; /* the calibration: ticks counted ... */
    uint64_t ns;    /* ... while CLOCK_MONOTONIC advanced this many ns */
} rt_raw_def_clock;

/* The least and most tick rates a reader accepts, in Hz. */
#define RT_RAW_CLOCK_MIN_HZ UINT64_C(1000000)
#define RT_RAW_CLOCK_MAX_HZ UINT64_C(100000000000)

typedef struct rt_raw_close {
    uint8_t type; /* RT_RAW_CLOSE */
    uint8_t pad[7];
    uint64_t time;
} rt_raw_close;

/*
 * The call a thread was in, and had not returned from, when its file was last written: the
 * trailer of a thread file without CLOSE (see the top of this file). nops rt_raw_event
 * records follow it (at 0): the operations the call had started or was waiting for, of the
 * kinds formats/rt_event.h lists under "A pending call". The reader hands out ENTER, PENDING
 * and the operations, all at t0, and no LEAVE. A wait over more requests than
 * RT_RAW_PENDING_MAX_OPS has the first of them only; nwait says how many it named.
 */
#define RT_RAW_PENDING_MAX_OPS 16u

typedef struct rt_raw_pending {
    uint8_t type;   /* RT_RAW_PENDING */
    uint8_t nops;   /* rt_raw_event records after this one, at most RT_RAW_PENDING_MAX_OPS */
    uint16_t fn;    /* rt_func */
    uint32_t nwait; /* a wait: the requests it named that the tracer knew; else 0 */
    uint64_t t0;    /* ns since this rank's time 0: the call's ENTER */
} rt_raw_pending;

_Static_assert(sizeof(rt_raw_header) == 64, "raw header is 64 bytes");
_Static_assert(sizeof(rt_raw_call) == 16, "CALL is one slot");
_Static_assert(sizeof(rt_raw_time) == 16, "TIME is one slot");
_Static_assert(sizeof(rt_raw_p2p) == 32, "P2P is two slots");
_Static_assert(sizeof(rt_raw_req) == 16, "REQ is one slot");
_Static_assert(sizeof(rt_raw_coll) == 32, "COLL is two slots");
_Static_assert(sizeof(rt_raw_event) == 48, "EVENT is three slots");
_Static_assert(sizeof(rt_raw_def) == 16, "DEF header is one slot");
_Static_assert(sizeof(rt_raw_def_clock) == 32, "CLOCK payload is two slots");
_Static_assert(sizeof(rt_raw_def_nbrs) == 16, "neighbour lists header is 16 bytes");
_Static_assert(sizeof(rt_raw_close) == 16, "CLOSE is one slot");
_Static_assert(sizeof(rt_raw_pending) == 16, "PENDING is one slot");

#endif /* RT_RAW_H */
