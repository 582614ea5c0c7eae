/*
 * retrace event model: the contract between tracer, analyzer and replayer.
 *
 * A trace is a set of definitions (ranks with their node and module, communicators, groups,
 * RMA windows, the neighbour lists of process topologies) and, for every world rank, a
 * time-ordered stream of events. Events are plain value structs of one fixed size so that a
 * pass can stream millions of them without allocating. Which fields an event uses depends on
 * its kind; see the table in RT_EVENT_KINDS.
 */
#ifndef RT_EVENT_H
#define RT_EVENT_H

#include <stddef.h>
#include <stdint.h>

/* ---- MPI functions ------------------------------------------------------------------- */

typedef enum rt_func_class {
    RT_CLASS_NONE = 0, /* not an MPI function (a user region) */
    RT_CLASS_ENV,
    RT_CLASS_P2P,
    RT_CLASS_REQ,
    RT_CLASS_COLL,
    RT_CLASS_RMA,
    RT_CLASS_COMM
} rt_func_class;

typedef enum rt_func {
    RT_FN_NONE = 0,
#define RT_FUNC(name, cls, wrapper) RT_FN_##name,
#include "rt_funcs.def"
#undef RT_FUNC
    RT_FN_COUNT
} rt_func;

/* "MPI_Send" for RT_FN_Send; "" for RT_FN_NONE; NULL when out of range. */
const char *rt_func_name(unsigned fn);
rt_func_class rt_func_class_of(unsigned fn);
/* Accepts "MPI_Send", "Send" and "PMPI_Send" (case-sensitive); RT_FN_NONE if unknown. */
rt_func rt_func_lookup(const char *name);

/* ---- connection types ------------------------------------------------------------------ */

#define RT_CONTYPES(X) \
    X(NONE, "")        \
    X(LOOP, "loop")    \
    X(SHM, "shm")      \
    X(NET, "net")      \
    X(GW, "gw")

// clang-format off
typedef enum rt_contype {
#define X(id, name) RT_CT_##id,
    RT_CONTYPES(X)
#undef X
    RT_CT_COUNT
} rt_contype;
// clang-format on

const char *rt_contype_name(unsigned ct);
/* Accepts our names, "gateway" for gw, and psmpi's network plugin names (openib, velo,
 * ucp, tcp, extoll, ...) for net. Returns -RT_E_NOTFOUND when the name is unknown. */
int rt_contype_lookup(const char *name);

/* ---- receive wildcards ------------------------------------------------------------------ */

/*
 * The op field of RECV and IRECV events is a bit set: the wildcards the receive was posted
 * with, 0 for a named source and tag. X(id, bit, name). A receive of a message matched by a
 * probe (Mrecv, Imrecv) has 0: the probe chose the message. The name of a set joins the
 * names of its bits with "|" in table order ("any_source|any_tag"); the empty set is "".
 *
 * PARTITIONED marks the message of one activation of a partitioned request (MPI_Psend_init,
 * MPI_Precv_init: docs/tracer.md, "Partitioned communication"): on its IRECV, and on its
 * ISEND, whose op is 0 or this bit alone. MPI never pairs a partitioned message with an
 * ordinary one, so every matcher keys on the bit (rt_event_partitioned) besides communicator,
 * peers and tag. It takes no wildcards (MPI allows none there) and is never on a RECV.
 */
#define RT_RECV_FLAGS(X)           \
    X(ANY_SOURCE, 1, "any_source") \
    X(ANY_TAG, 2, "any_tag")       \
    X(PARTITIONED, 4, "partitioned")

// clang-format off
typedef enum rt_recv_flag {
#define X(id, bit, name) RT_RECV_##id = bit,
    RT_RECV_FLAGS(X)
#undef X
    RT_RECV_ALL = 0 /* every bit */
#define X(id, bit, name) | bit
    RT_RECV_FLAGS(X)
#undef X
    ,
    RT_RECV_WILD = RT_RECV_ANY_SOURCE | RT_RECV_ANY_TAG /* the wildcards */
} rt_recv_flag;
// clang-format on

/* ---- collective operations --------------------------------------------------------------- */

/* X(id, name): the op field of COLL_END, NBC_COMPLETE and RMA_COLL_END events. */
#define RT_COLL_OPS(X)                                          \
    X(BARRIER, "barrier")                                       \
    X(BCAST, "bcast")                                           \
    X(GATHER, "gather")                                         \
    X(GATHERV, "gatherv")                                       \
    X(SCATTER, "scatter")                                       \
    X(SCATTERV, "scatterv")                                     \
    X(ALLGATHER, "allgather")                                   \
    X(ALLGATHERV, "allgatherv")                                 \
    X(ALLTOALL, "alltoall")                                     \
    X(ALLTOALLV, "alltoallv")                                   \
    X(ALLTOALLW, "alltoallw")                                   \
    X(ALLREDUCE, "allreduce")                                   \
    X(REDUCE, "reduce")                                         \
    X(REDUCE_SCATTER, "reduce_scatter")                         \
    X(REDUCE_SCATTER_BLOCK, "reduce_scatter_block")             \
    X(SCAN, "scan")                                             \
    X(EXSCAN, "exscan")                                         \
    X(NEIGHBOR_ALLGATHER, "neighbor_allgather")                 \
    X(NEIGHBOR_ALLGATHERV, "neighbor_allgatherv")               \
    X(NEIGHBOR_ALLTOALL, "neighbor_alltoall")                   \
    X(NEIGHBOR_ALLTOALLV, "neighbor_alltoallv")                 \
    X(NEIGHBOR_ALLTOALLW, "neighbor_alltoallw")                 \
    X(CREATE_HANDLE, "create_handle")                           \
    X(DESTROY_HANDLE, "destroy_handle")                         \
    X(ALLOCATE, "allocate")                                     \
    X(DEALLOCATE, "deallocate")                                 \
    X(CREATE_HANDLE_AND_ALLOCATE, "create_handle_and_allocate") \
    X(DESTROY_HANDLE_AND_DEALLOCATE, "destroy_handle_and_deallocate")

// clang-format off
typedef enum rt_coll_op {
#define X(id, name) RT_COLL_##id,
    RT_COLL_OPS(X)
#undef X
    RT_COLL_COUNT
} rt_coll_op;
// clang-format on

/* 1 for the neighbourhood collectives: their peers come from the process topology of the
 * communicator (rt_nbr_def), not from its size. */
static inline int rt_coll_is_neighbor(unsigned op)
{
    return op >= RT_COLL_NEIGHBOR_ALLGATHER && op <= RT_COLL_NEIGHBOR_ALLTOALLW;
}

/* The sides of a collective whose blocks come from count arrays (COLL_PEER rows, "The per-peer
 * counts" below): RT_SIDE_SEND, RT_SIDE_RECV, both, or 0 for the ops with one count. */
enum { RT_SIDE_SEND = 1, RT_SIDE_RECV = 2 };
static inline unsigned rt_coll_count_sides(unsigned op)
{
    switch (op) {
    case RT_COLL_ALLTOALLV:
    case RT_COLL_ALLTOALLW:
    case RT_COLL_NEIGHBOR_ALLTOALLV:
    case RT_COLL_NEIGHBOR_ALLTOALLW:
        return RT_SIDE_SEND | RT_SIDE_RECV;
    case RT_COLL_GATHERV:
    case RT_COLL_ALLGATHERV:
    case RT_COLL_NEIGHBOR_ALLGATHERV:
        return RT_SIDE_RECV;
    case RT_COLL_SCATTERV:
    case RT_COLL_REDUCE_SCATTER:
        return RT_SIDE_SEND;
    default:
        return 0;
    }
}

/* ---- RMA sub-operations ------------------------------------------------------------------- */

/* The op field of RMA_ATOMIC events. */
#define RT_ATOMIC_OPS(X)                \
    X(ACCUMULATE, "accumulate")         \
    X(GET_ACCUMULATE, "get_accumulate") \
    X(FETCH_AND_OP, "fetch_and_op")     \
    X(COMPARE_AND_SWAP, "compare_and_swap")

// clang-format off
typedef enum rt_atomic_op {
#define X(id, name) RT_ATOMIC_##id,
    RT_ATOMIC_OPS(X)
#undef X
    RT_ATOMIC_COUNT
} rt_atomic_op;
// clang-format on

/* The op field of RMA_TARGET events (below): the reduction an atomic applies at the target,
 * MPI's predefined operations (MPI 4.0 section 6.9.2; RMA takes no user-defined ones). NONE
 * for a put, a get and a compare-and-swap, which name none. */
#define RT_REDUCE_OPS(X)  \
    X(NONE, "")           \
    X(SUM, "sum")         \
    X(PROD, "prod")       \
    X(MAX, "max")         \
    X(MIN, "min")         \
    X(LAND, "land")       \
    X(BAND, "band")       \
    X(LOR, "lor")         \
    X(BOR, "bor")         \
    X(LXOR, "lxor")       \
    X(BXOR, "bxor")       \
    X(MAXLOC, "maxloc")   \
    X(MINLOC, "minloc")   \
    X(REPLACE, "replace") \
    X(NO_OP, "no_op")

// clang-format off
typedef enum rt_reduce_op {
#define X(id, name) RT_REDOP_##id,
    RT_REDUCE_OPS(X)
#undef X
    RT_REDOP_COUNT
} rt_reduce_op;
// clang-format on

/* The op field of RMA_GROUP_SYNC events (general active target synchronisation). */
#define RT_PSCW_OPS(X)      \
    X(POST, "post")         \
    X(START, "start")       \
    X(COMPLETE, "complete") \
    X(WAIT, "wait")

// clang-format off
typedef enum rt_pscw_op {
#define X(id, name) RT_PSCW_##id,
    RT_PSCW_OPS(X)
#undef X
    RT_PSCW_COUNT
} rt_pscw_op;
// clang-format on

/* The op field of RMA_SYNC events (passive target). */
#define RT_SYNC_OPS(X)            \
    X(FLUSH, "flush")             \
    X(FLUSH_LOCAL, "flush_local") \
    X(WIN_SYNC, "win_sync")

// clang-format off
typedef enum rt_sync_op {
#define X(id, name) RT_SYNC_##id,
    RT_SYNC_OPS(X)
#undef X
    RT_SYNC_COUNT
} rt_sync_op;
// clang-format on

/* The op field of RMA_LOCK events. */
#define RT_LOCK_TYPES(X)      \
    X(EXCLUSIVE, "exclusive") \
    X(SHARED, "shared")

// clang-format off
typedef enum rt_lock_type {
#define X(id, name) RT_LOCK_##id,
    RT_LOCK_TYPES(X)
#undef X
    RT_LOCK_COUNT
} rt_lock_type;
// clang-format on

/* ---- RMA synchronisation assertions --------------------------------------------------------- */

/*
 * The assert argument of MPI_Win_fence, MPI_Win_post and MPI_Win_start (MPI 4.0 section 12.5.5),
 * in the tag field of RMA_COLL_END (a fence) and RMA_GROUP_SYNC (post and start; 0 for complete
 * and wait, which take none): X(id, bit, name). The bits are retrace's own, not MPI's MPI_MODE_*
 * values (which differ between MPICH and Open MPI): the tracer translates them. An event holds
 * only bits its call takes (rt_rma_asserts_allowed); traces of retrace before the argument was
 * recorded, and of other tools, have 0 (none given).
 */
#define RT_RMA_ASSERTS(X)        \
    X(NOCHECK, 1, "nocheck")     \
    X(NOSTORE, 2, "nostore")     \
    X(NOPUT, 4, "noput")         \
    X(NOPRECEDE, 8, "noprecede") \
    X(NOSUCCEED, 16, "nosucceed")

// clang-format off
typedef enum rt_rma_assert {
#define X(id, bit, name) RT_ASSERT_##id = bit,
    RT_RMA_ASSERTS(X)
#undef X
    /* what each call takes */
    RT_ASSERT_FENCE = RT_ASSERT_NOSTORE | RT_ASSERT_NOPUT | RT_ASSERT_NOPRECEDE |
                      RT_ASSERT_NOSUCCEED,
    RT_ASSERT_POST = RT_ASSERT_NOCHECK | RT_ASSERT_NOSTORE | RT_ASSERT_NOPUT,
    RT_ASSERT_START = RT_ASSERT_NOCHECK
} rt_rma_assert;
// clang-format on

/* The names of the bits of a, joined by "|" in table order ("noput|noprecede"), in buf; "" for
 * none. Bits of no name are left out. Returns buf; 64 bytes hold every name. */
const char *rt_rma_assert_name(unsigned a, char *buf, size_t len);
/* The bits named by s (names joined by "|", each at most once, in any order; "" for none);
 * -RT_E_NOTFOUND for an unknown name. */
int rt_rma_assert_lookup(const char *s);

/* The op field of ERROR events (below): the class of the error code a call returned (MPI 4.0
 * section 9.4, MPI_Error_class), as retrace names them whatever the recording MPI's values;
 * OTHER for a class of MPI's that is not listed (I/O, sessions, dynamic processes ...). */
#define RT_ERROR_CLASSES(X)         \
    X(OTHER, "other")               \
    X(BUFFER, "buffer")             \
    X(COUNT_ARG, "count")           \
    X(TYPE, "type")                 \
    X(TAG, "tag")                   \
    X(COMM, "comm")                 \
    X(RANK, "rank")                 \
    X(REQUEST, "request")           \
    X(ROOT, "root")                 \
    X(GROUP, "group")               \
    X(OP, "op")                     \
    X(TOPOLOGY, "topology")         \
    X(DIMS, "dims")                 \
    X(ARG, "arg")                   \
    X(UNKNOWN, "unknown")           \
    X(TRUNCATE, "truncate")         \
    X(INTERN, "intern")             \
    X(IN_STATUS, "in_status")       \
    X(PENDING, "pending")           \
    X(KEYVAL, "keyval")             \
    X(NO_MEM, "no_mem")             \
    X(INFO, "info")                 \
    X(WIN, "win")                   \
    X(SIZE, "size")                 \
    X(DISP, "disp")                 \
    X(LOCKTYPE, "locktype")         \
    X(ASSERT, "assert")             \
    X(RMA_CONFLICT, "rma_conflict") \
    X(RMA_SYNC, "rma_sync")         \
    X(RMA_RANGE, "rma_range")       \
    X(RMA_ATTACH, "rma_attach")     \
    X(RMA_SHARED, "rma_shared")     \
    X(RMA_FLAVOR, "rma_flavor")     \
    X(PROC_ABORTED, "proc_aborted")

// clang-format off
typedef enum rt_error_class {
#define X(id, name) RT_ERRCLASS_##id,
    RT_ERROR_CLASSES(X)
#undef X
    RT_ERRCLASS_COUNT
} rt_error_class;
// clang-format on

/* The op field of COMM_HANDLE events (below): a communicator made or freed on the rank. */
#define RT_COMM_HANDLE_OPS(X) \
    X(CREATE, "create")       \
    X(FREE, "free")

/* The op field of HANDLE events (below): which kind of MPI object was made or freed. */
#define RT_HANDLE_OPS(X)        \
    X(GROUP_MADE, "group_made") \
    X(GROUP_FREE, "group_free")

// clang-format off
typedef enum rt_handle_op {
#define X(id, name) RT_HANDLE_##id,
    RT_HANDLE_OPS(X)
#undef X
    RT_HANDLE_COUNT
} rt_handle_op;
// clang-format on

/* The op field of WIN_ATTACH events (below). */
#define RT_WIN_ATTACH_OPS(X) \
    X(ATTACH, "attach")      \
    X(DETACH, "detach")      \
    X(BASE, "base")

// clang-format off
typedef enum rt_win_attach_op {
#define X(id, name) RT_WATTACH_##id,
    RT_WIN_ATTACH_OPS(X)
#undef X
    RT_WATTACH_COUNT
} rt_win_attach_op;
// clang-format on

/* The op field of BUFFER events (below): how the call uses the memory. */
#define RT_BUFFER_OPS(X) \
    X(READ, "read")      \
    X(WRITE, "write")

// clang-format off
typedef enum rt_buffer_op {
#define X(id, name) RT_BUF_##id,
    RT_BUFFER_OPS(X)
#undef X
    RT_BUF_COUNT
} rt_buffer_op;
// clang-format on

/* The op field of REQUEST_FREE events (below): what the call did to the request. The free is ""
 * (the only op of traces before the others), so that CSV files of those traces read the same. */
#define RT_REQUEST_HANDLE_OPS(X)          \
    X(FREE, "")                           \
    X(CANCEL_INACTIVE, "cancel_inactive") \
    X(RESTART_ACTIVE, "restart_active")

// clang-format off
typedef enum rt_request_handle_op {
#define X(id, name) RT_REQH_##id,
    RT_REQUEST_HANDLE_OPS(X)
#undef X
    RT_REQH_COUNT
} rt_request_handle_op;
// clang-format on

// clang-format off
typedef enum rt_comm_handle_op {
#define X(id, name) RT_COMMH_##id,
    RT_COMM_HANDLE_OPS(X)
#undef X
    RT_COMMH_COUNT
} rt_comm_handle_op;
// clang-format on

/* ---- event kinds ---------------------------------------------------------------------------- */

/*
 * X(id, name, class, req, fields), a row per kind:
 *   class   what the kind belongs to: CALL a call's bounds (enter, leave); P2P point-to-point
 *           messages and their requests; COLL collectives, blocking and nonblocking (comm is
 *           a communicator); RMA one-sided communication: windows, transfers, synchronisation
 *           (comm is a window). rt_event_class_of, rt_event_is_coll, rt_event_is_rma.
 *   req     START: the event starts a request (its id in req), END: it ends one, NO: neither
 *           (rt_event_starts_request, rt_event_ends_request).
 *   fields  which rt_event fields carry meaning (besides rank, time and call, which every
 *           event has):
 *             c comm (communicator, or window for RMA kinds)   p peer   t tag   b bytes
 *             r rbytes   k contype   q req   o op
 * Peers are ranks in the communicator (the remote group of an inter-communicator); for
 * RMA events the target's rank in the window's communicator. RMA_GROUP_SYNC keeps its group
 * id in peer. RMA_COLL_END (a fence) and RMA_GROUP_SYNC keep the call's assert bits
 * (rt_rma_assert) in tag.
 * A row's position is the kind number raw traces store (formats/rt_raw.h), so rows are only
 * ever appended at the end, whatever their class: code asks the class, never the position.
 *
 * The per-peer counts of a v or w collective (rt_coll_count_sides: gatherv, scatterv,
 * allgatherv, alltoallv, alltoallw, reduce_scatter and the neighbourhood v and w forms). Its
 * COLL_END or NBC_COMPLETE holds the rank's totals; when the blocks of its count arrays are
 * all equal they say everything (a side's total over its number of blocks each), so nothing
 * more is written and the equal case costs nothing. When they are not, COLL_PEER events
 * follow it right away, at its time, with its call, comm and op: one per block k with bytes
 * or rbytes not zero, in increasing k, with
 *   peer    k: a rank of the communicator (of the remote group of an inter-communicator);
 *           for the neighbourhood forms the slot in the rank's neighbour lists (rt_nbr_def:
 *           send block k goes to out[k], receive block k comes from in[k])
 *   bytes   send block k in bytes (count times the datatype's size), rbytes receive block k
 * A block left out is 0 bytes. Which sides an op's count arrays give (rt_coll_count_sides;
 * the other field is 0): both for alltoallv and alltoallw (in place: the receive counts for
 * both) and their neighbourhood forms; receive for gatherv (the root), allgatherv and
 * neighbour allgatherv; send for scatterv (the root) and reduce_scatter (block k of the
 * vector is reduced onto rank k; the array is the same on every rank, so each rank knows all
 * of them). A side's rows sum to the collective's total of that side. A collective without
 * rows has equal blocks: in traces retrace's tracer wrote that is a fact; traces of other
 * tools and of retrace before COLL_PEER have no rows at all, and consumers then assume equal
 * blocks and say so. A pending call's collective (below) never completed and has no rows.
 * Readers and writers refuse rows anywhere else, with a peer out of range, with bytes on a side
 * the op does not have, or whose sums disagree with the totals (formats/trace.c).
 *
 * The target of an RMA transfer (RMA_PUT, RMA_GET, RMA_ATOMIC): which bytes of the window it
 * touches and how. An RMA_TARGET event follows the transfer right away, at its time, with its
 * call, comm (the window) and peer (the target), one per transfer, with
 *   bytes   the target displacement in bytes from the start of the target's window memory:
 *           the call's target_disp times the disp_unit the target gave when it created the
 *           window (MPI 4.0 section 12.2.1); for a dynamic window (Win_create_dynamic) the
 *           address itself (MPI_Get_address; disp_unit 1). The bytes it touches are
 *           [bytes, bytes + n), n the transfer's bytes (a put, an accumulate) or rbytes (a
 *           get, and an atomic with a result: MPI ignores an MPI_NO_OP origin).
 *   op      the reduction (rt_reduce_op) of an atomic: Accumulate, Get_accumulate and
 *           Fetch_and_op give theirs (REPLACE, NO_OP included); a put, a get and a
 *           Compare_and_swap have NONE.
 * It is a separate kind so that programs without RMA pay nothing (no field of rt_event grows)
 * and the transfer's own fields keep their meaning for every consumer that needs no target. A
 * transfer without RMA_TARGET has an unknown target (traces of other tools and of retrace before
 * it); a pending call has no transfers, so none there. A consumer looking for conflicting
 * accesses within an epoch (two transfers to the same target and window whose byte ranges
 * overlap, unless both are atomics with the same op or both are gets) pairs each transfer with
 * the RMA_TARGET after it. Readers and writers refuse it anywhere else, or with an op that does
 * not suit the transfer (formats/trace.c).
 *
 * A call that returned an error (a program with MPI_ERRORS_RETURN, or a handler that returns):
 * an ERROR event, at the call's end and with its call, right before its LEAVE, with
 *   op      the code's class (rt_error_class: MPI_Error_class of the code, by name)
 *   tag     the code itself, as the recording MPI returned it (its values are the MPI's own)
 * A call that failed did nothing: its ENTER, its ERROR and its LEAVE are all the trace holds
 * of it, but for MPI_ERR_IN_STATUS (Waitall, Waitsome, Testall, Testsome), where the requests
 * that completed are recorded before it. At most one per call; never in a pending call.
 * Readers and writers refuse it anywhere else (formats/trace.c).
 *
 * A pending call: a call its thread was in when the run ended (a deadlock killed by a time
 * limit, a signal, MPI_Abort elsewhere) and that never returned. It is its ENTER, then a
 * PENDING event (same time and call), then the operations the call had started or was
 * waiting for, none of which completed, each an event of the kind that would have stood
 * for it, at the same time and with the same call, and no LEAVE:
 *   SEND            a blocking send (Send, Ssend, Bsend, Rsend; the send of a Sendrecv)
 *   RECV            a blocking receive or probe: source and tag as posted (op says which
 *                   were wildcards; with any_source peer is RT_PEER_NONE, with any_tag tag
 *                   is -1), bytes 0 (unknown)
 *   IRECV           a wait for a nonblocking receive: as RECV, with its request id
 *   ISEND_COMPLETE, NBC_COMPLETE, RMA_OP_COMPLETE
 *                   a wait for that request (req); NBC_COMPLETE has the collective's fields
 *   COLL_END        a blocking collective entered (comm, op, root, bytes as passed)
 *   RMA_COLL_END, RMA_GROUP_SYNC, RMA_LOCK, RMA_UNLOCK, RMA_SYNC
 *                   the RMA synchronisation the call was in
 * A PENDING with no operation after it is a call blocked in something the model does not
 * describe, or MPI_Abort (the tracer records it so: it never returns). The operations of a pending
 * call are the events right after its PENDING, up to the next ENTER, LEAVE or PENDING or the rank's
 * end; since the call never returned, they are its thread's last events. A rank has at most one
 * pending call per thread.
 *
 * A communicator's life on a rank (OTF2's CommCreate and CommDestroy): a COMM_HANDLE event with
 * op create at the end of the call that gave the rank the communicator (Comm_dup, Comm_split,
 * Cart_create, Intercomm_create ...; Comm_idup's at the Comm_idup), and one with op free at the
 * end of the MPI_Comm_free that freed it, each with the call and comm. MPI_COMM_WORLD and
 * MPI_COMM_SELF have none. A communicator the rank freed that it got while tracing was off (or
 * from an untraced call) has a free without a create. Traces of other tools and of retrace
 * before it have none: a consumer cannot tell a communicator left from one never recorded.
 *
 * MPI_Request_free: a REQUEST_FREE event at the call's start with the id (req) of the request's
 * current activation, the one the tracer knows the handle by (a persistent request's last
 * start, done or not); none for a handle the tracer does not know (MPI_REQUEST_NULL, a request
 * of a call it does not record). It ends nothing: a freed send or receive still completes, the
 * trace just holds no completion for it. Traces without it say only that Request_free was called.
 * Two misuses of a persistent request the tracer sees in its own table are REQUEST_FREE events
 * with another op (rt_request_handle_op), which free nothing:
 *  - cancel_inactive: MPI_Cancel of a persistent request that is not active (never started,
 *    or its last start completed); req is its last activation's id, 0 if it never started;
 *  - restart_active: MPI_Start or MPI_Startall of a persistent request still active; req is
 *    the active activation's id. An MPI that accepts the start (Open MPI 4.1 does) starts a
 *    new activation after it (its own ISEND, IRECV_REQUEST or NBC_REQUEST); one that refuses
 *    it leaves only the call's ERROR, as for every refused call.
 *
 * A group handle's life on a rank: a HANDLE event with op group_made at the end of each call
 * that gave the program a group handle (MPI_Comm_group, MPI_Comm_remote_group,
 * MPI_Win_get_group, MPI_Group_incl, _excl, _range_incl, _range_excl, _union, _intersection,
 * _difference), and one with op group_free at the end of each MPI_Group_free, with the call and
 * in req the handle's id on its rank (from 1, in the order the rank first saw each handle). An
 * MPI may hand out one handle more than once (MPICH's MPI_Comm_group of one communicator, each
 * time with a reference that MPI_Group_free must give back): it keeps its id until as many
 * frees as makes ended its life. MPI_GROUP_EMPTY, which MPI may return for an empty group, is
 * predefined and has none; nor has a free of a handle the tracer did not see made (id
 * unknown). Traces without them (other tools', retrace's before) say only that the calls
 * were made, if that.
 *
 * Memory of a dynamic window (MPI_Win_create_dynamic): a WIN_ATTACH event at the end of each
 * MPI_Win_attach that succeeded, op attach, with the window (comm), the address of the memory
 * (req: as MPI_Get_address gives it, the displacement an RMA call names it by, 0 included) and
 * its size in bytes (bytes); and one at the end of each MPI_Win_detach that succeeded, op
 * detach, with the window and the address (bytes 0: the attach of that address says how much).
 * Each rank attaches its own memory; a target's attached regions are the ones its own events
 * name, so a transfer's RMA_TARGET on a dynamic window can be checked against them. Traces
 * without them (other tools', retrace's before) say only that the calls were made.
 *
 * The base address and size of a window's memory (Win_create, Win_allocate, Win_allocate_shared)
 * in a trace recorded with buffers (RT_DEFS_BUFFERS): a WIN_ATTACH
 * event with op base right after the WIN_CREATE, at its time and with its call and window, the
 * address in req (as MPI_Get_address gives it) and the size in bytes (0 for no memory). A
 * dynamic window has none (its memory is attached).
 *
 * The memory an operation uses (RT_DEFS_BUFFERS): a BUFFER event
 * right after the event of the operation, at its time and with its call, with
 *   req     the lowest address it touches: MPI_Get_address of the pointer the call was given,
 *           plus the datatype's true lower bound
 *   bytes   the span up to the highest: (count - 1) times the datatype's extent plus its true
 *           extent; the gaps of a derived datatype are inside the span, though the call does
 *           not touch them (a conflict found in a gap is not one)
 *   op      read (a send's buffer, a put's or an accumulate's origin) or write (a receive's
 *           buffer, a get's origin, an atomic's result)
 * after SEND, ISEND (read), RECV, IRECV_REQUEST (write), RMA_PUT (read), RMA_GET (write), and
 * RMA_ATOMIC: its origin (read), then, for one with a result, the result (write); a transfer's
 * BUFFER comes after its RMA_TARGET. At most one BUFFER per event, but an atomic's two. A buffer
 * of MPI_BOTTOM, MPI_IN_PLACE or count 0 has none. Readers and writers refuse it anywhere else,
 * or with an op that does not suit the event, or with an address whose extent passes 2^64
 * (formats/trace.c).
 *
 * Kinds are at most 64 (the readers keep sets of them in 64-bit masks).
 */
// clang-format off
#define RT_EVENT_KINDS(X)                                             \
    /* call entered */                                                \
    X(ENTER,             "enter",             CALL, NO,    "")        \
    /* call left */                                                   \
    X(LEAVE,             "leave",             CALL, NO,    "")        \
    /* blocking send posted */                                        \
    X(SEND,              "send",              P2P,  NO,    "cptbk")   \
    /* nonblocking or persistent send started; o = partitioned or 0 */ \
    X(ISEND,             "isend",             P2P,  START, "cptbkqo") \
    X(ISEND_COMPLETE,    "isend_complete",    P2P,  END,   "q")       \
    /* blocking receive completed */                                  \
    X(RECV,              "recv",              P2P,  NO,    "cptbko")  \
    /* nonblocking receive posted */                                  \
    X(IRECV_REQUEST,     "irecv_request",     P2P,  START, "q")       \
    /* nonblocking receive completed */                               \
    X(IRECV,             "irecv",             P2P,  END,   "cptbkqo") \
    X(REQUEST_CANCELLED, "request_cancelled", P2P,  END,   "q")       \
    X(COLL_BEGIN,        "coll_begin",        COLL, NO,    "")        \
    /* p = root or RT_PEER_NONE */                                    \
    X(COLL_END,          "coll_end",          COLL, NO,    "cpbro")   \
    /* nonblocking collective started */                              \
    X(NBC_REQUEST,       "nbc_request",       COLL, START, "q")       \
    X(NBC_COMPLETE,      "nbc_complete",      COLL, END,   "cpbroq")  \
    X(WIN_CREATE,        "win_create",        RMA,  NO,    "c")       \
    X(WIN_FREE,          "win_free",          RMA,  NO,    "c")       \
    X(RMA_PUT,           "put",               RMA,  START, "cpbkq")   \
    /* r = bytes fetched from the target */                           \
    X(RMA_GET,           "get",               RMA,  START, "cprkq")   \
    /* b = bytes to target, r = bytes back */                         \
    X(RMA_ATOMIC,        "atomic",            RMA,  START, "cpbrkqo") \
    X(RMA_OP_COMPLETE,   "rma_complete",      RMA,  END,   "cq")      \
    X(RMA_COLL_BEGIN,    "rma_coll_begin",    RMA,  NO,    "")        \
    /* a fence: op barrier; t = assert bits (rt_rma_assert) */       \
    X(RMA_COLL_END,      "rma_coll_end",      RMA,  NO,    "cto")     \
    /* p = group; t = assert bits of a post or start */               \
    X(RMA_GROUP_SYNC,    "group_sync",        RMA,  NO,    "cpto")    \
    /* p may be RT_PEER_ALL; q = lock id */                           \
    X(RMA_LOCK,          "lock",              RMA,  NO,    "cpqo")    \
    X(RMA_UNLOCK,        "unlock",            RMA,  NO,    "cpq")     \
    /* p may be RT_PEER_ALL */                                        \
    X(RMA_SYNC,          "sync",              RMA,  NO,    "cpo")     \
    /* the call entered last never returned (see below) */           \
    X(PENDING,           "pending",           CALL, NO,    "")        \
    /* one block of a v or w collective's counts (see above) */     \
    X(COLL_PEER,         "coll_peer",         COLL, NO,    "cpbro")   \
    /* the target of the RMA transfer before it (see above) */    \
    X(RMA_TARGET,        "rma_target",        RMA,  NO,    "cpbo")   \
    /* the call returned an error: o its class, t its code (see above) */ \
    X(ERROR,             "error",             CALL, NO,    "to")      \
    /* a communicator made or freed on the rank: o rt_comm_handle_op (see above) */ \
    X(COMM_HANDLE,       "comm_handle",       CALL, NO,    "co")      \
    /* MPI_Request_free of the request q; o rt_request_handle_op */  \
    X(REQUEST_FREE,      "request_free",      CALL, NO,    "qo")      \
    /* a handle made or freed on the rank: o rt_handle_op, q its id (see above) */ \
    X(HANDLE,            "handle",            CALL, NO,    "qo")      \
    /* memory attached to or detached from a dynamic window: o rt_win_attach_op, q its \
     * address, b its size (see above) */                             \
    X(WIN_ATTACH,        "win_attach",        RMA,  NO,    "cbqo")    \
    /* the memory the event before it uses: o rt_buffer_op, q its address, b its extent \
     * (see above) */                                                 \
    X(BUFFER,            "buffer",            CALL, NO,    "bqo")

typedef enum rt_event_kind {
#define X(id, name, cls, req, fields) RT_EV_##id,
    RT_EVENT_KINDS(X)
#undef X
    RT_EV_COUNT
} rt_event_kind;
// clang-format on

/* The assert bits (rt_rma_assert) an event of this kind and op may hold in its tag:
 * RT_ASSERT_FENCE for RMA_COLL_END, RT_ASSERT_POST or RT_ASSERT_START for RMA_GROUP_SYNC's post
 * and start; 0 for every other. */
static inline unsigned rt_rma_asserts_allowed(unsigned kind, unsigned op)
{
    if (kind == RT_EV_RMA_COLL_END)
        return RT_ASSERT_FENCE;
    if (kind == RT_EV_RMA_GROUP_SYNC && op == RT_PSCW_POST)
        return RT_ASSERT_POST;
    if (kind == RT_EV_RMA_GROUP_SYNC && op == RT_PSCW_START)
        return RT_ASSERT_START;
    return 0;
}

typedef enum rt_event_class {
    RT_EVC_CALL,
    RT_EVC_P2P,
    RT_EVC_COLL,
    RT_EVC_RMA,
    RT_EVC_COUNT
} rt_event_class;

/* The class of a kind; RT_EVC_COUNT when out of range. */
static inline rt_event_class rt_event_class_of(unsigned kind)
{
    switch (kind) {
#define X(id, name, cls, req, fields) \
    case RT_EV_##id:                  \
        return RT_EVC_##cls;
        RT_EVENT_KINDS(X)
#undef X
    default:
        return RT_EVC_COUNT;
    }
}

/* A bit per kind of the class. Where cls is a constant, so is the mask, and a class test is
 * a compare, a shift and a mask: the engines ask for every event. */
_Static_assert(RT_EV_COUNT <= 64, "event kinds fit a 64-bit mask");
static inline uint64_t rt__event_class_mask(rt_event_class cls)
{
    // clang-format off
    return 0
#define X(id, name, c, req, fields) | (RT_EVC_##c == cls ? UINT64_C(1) << RT_EV_##id : 0)
        RT_EVENT_KINDS(X)
#undef X
        ;
    // clang-format on
}

/* 1 when kind is of class cls (0 for kinds out of range, such as an engine's own markers). */
static inline int rt_event_in_class(unsigned kind, rt_event_class cls)
{
    return kind < RT_EV_COUNT && ((rt__event_class_mask(cls) >> kind) & 1u);
}

static inline int rt_event_is_coll(unsigned kind)
{
    return rt_event_in_class(kind, RT_EVC_COLL);
}

/* Its comm field, if it has one, is a window. */
static inline int rt_event_is_rma(unsigned kind)
{
    return rt_event_in_class(kind, RT_EVC_RMA);
}

/* Named special peers (never a bare -1). */
#define RT_PEER_NONE (-1)     /* no peer: a rootless collective */
#define RT_PEER_ALL (-2)      /* every target of a window: lock_all, flush_all */
#define RT_ID_NONE UINT32_MAX /* no communicator, group or window: never an id of one */
/* No request: never the id of a request (OTF2 reserves it too), so that code may use it for
 * none and as a key that stands for an empty slot. */
#define RT_REQ_NONE UINT64_MAX
/* The most ranks a trace may have: well above the largest machines, and low enough that a
 * damaged or hostile trace header cannot make a reader allocate tens of GiB. */
#define RT_MAX_RANKS (1u << 24)
/* The most ranks rt_defs_init (and so every reader) accepts unless the environment variable
 * RT_MAX_RANKS_ENV says otherwise (rt_max_ranks): what a trace declares costs memory in every
 * pass (about 400 bytes a rank in profile), events or not, so a few bytes of input claiming
 * millions of ranks must meet a limit the user raises on purpose. */
#define RT_DEFAULT_MAX_RANKS (1u << 20)
#define RT_MAX_RANKS_ENV "RETRACE_MAX_RANKS"

typedef struct rt_event {
    uint64_t time;   /* nanoseconds since the trace's time origin */
    uint64_t bytes;  /* bytes sent (message length for send and receive events) */
    uint64_t rbytes; /* bytes received (collectives, get, atomics) */
    uint64_t req;    /* request id, RMA matching id or lock id */
    uint32_t rank;   /* world rank that recorded the event */
    uint32_t comm;   /* communicator id, or window id for RMA kinds */
    int32_t peer;    /* see RT_EVENT_KINDS */
    int32_t tag;
    uint16_t call;   /* rt_func in effect when the event happened */
    uint8_t kind;    /* rt_event_kind */
    uint8_t contype; /* rt_contype */
    uint8_t op;      /* rt_coll_op, rt_atomic_op, rt_pscw_op, rt_sync_op, rt_lock_type, or
                      * rt_recv_flag bits (see the kind) */
    /* Element sizes (rt_esize_code; 0: unknown) in 2 of the 3 bytes the struct had as padding
     * (it stays 56 bytes): esize of bytes (a message's datatype; a collective's send side, a
     * reduction's datatype), resize of rbytes (a collective's receive side). Set on SEND,
     * ISEND, RECV, IRECV, COLL_END, NBC_COMPLETE and COLL_PEER (a block's datatypes: a w
     * form's per peer) by traces whose tracer records them (RT_DEFS_ELEM_SIZES); 0
     * everywhere else. */
    uint8_t esize, resize;
    /* The thread of its rank that recorded it, in the last padding byte: 0 the thread that
     * called MPI_Init, then the others in the order of their first MPI call; a rank's threads
     * from RT_THREAD_MAX on share RT_THREAD_MAX. Formats without threads give 0. */
    uint8_t thread;
} rt_event;
_Static_assert(sizeof(rt_event) == 56, "rt_event stays 56 bytes");
#define RT_THREAD_MAX 255u

/* 1 for the ISEND and IRECV of a partitioned message (RT_RECV_PARTITIONED), 0 for every other
 * event: a matcher pairs a send with a receive only when this is the same for both. */
static inline int rt_event_partitioned(const rt_event *ev)
{
    return (ev->kind == RT_EV_ISEND || ev->kind == RT_EV_IRECV) &&
           (ev->op & RT_RECV_PARTITIONED) != 0;
}

/*
 * An element size (a datatype's size, MPI_Type_size) in 7 bits, so that it fits beside the
 * 'at' bit of a raw record and in the spare bytes of rt_event at no cost: 0 unknown or not
 * kept; 1 to RT_ESIZE_LITERAL that size itself (every predefined type, and small structs of 12,
 * 24 bytes); above it the powers of two 2^(code - RT_ESIZE_POW2_BIAS) from 128 to 2^37 bytes.
 * A size that is neither (a derived type of 100 or 1000 bytes) is not kept: 0, and consumers
 * guess from the bytes as for traces of tracers before sizes (rt_coll_elem_size).
 */
#define RT_ESIZE_LITERAL 96u
#define RT_ESIZE_POW2_BIAS 90u /* code 97 is 2^7 = 128 */
#define RT_ESIZE_CODE_MAX 127u
static inline unsigned rt_esize_code(uint64_t size)
{
    if (size <= RT_ESIZE_LITERAL)
        return (unsigned)size;
    if (size & (size - 1))
        return 0;
    unsigned k = (unsigned)__builtin_ctzll(size);
    return k + RT_ESIZE_POW2_BIAS <= RT_ESIZE_CODE_MAX ? k + RT_ESIZE_POW2_BIAS : 0;
}
/* 1 for the kinds that carry element sizes (rt_event.esize, resize). */
static inline int rt_event_has_esize(unsigned kind)
{
    return kind == RT_EV_SEND || kind == RT_EV_ISEND || kind == RT_EV_RECV || kind == RT_EV_IRECV ||
           kind == RT_EV_COLL_END || kind == RT_EV_NBC_COMPLETE || kind == RT_EV_COLL_PEER;
}
/* The sizes a reader takes when a trace that records sizes leaves them out (OTF2 writes them only
 * when they differ): the largest of 8, 4, 2 and 1 bytes that divides n, none for 0 bytes. */
static inline unsigned rt_esize_default(uint64_t n)
{
    return !n ? 0 : n % 8 == 0 ? 8 : n % 4 == 0 ? 4 : n % 2 == 0 ? 2 : 1;
}
/* The size a code stands for, 0 for unknown (and for codes above RT_ESIZE_CODE_MAX). */
static inline uint64_t rt_esize_of(unsigned code)
{
    if (code <= RT_ESIZE_LITERAL)
        return code;
    return code <= RT_ESIZE_CODE_MAX ? (uint64_t)1 << (code - RT_ESIZE_POW2_BIAS) : 0;
}

const char *rt_event_kind_name(unsigned kind);
int rt_event_kind_lookup(const char *name); /* -RT_E_NOTFOUND if unknown */
/* The field letters of RT_EVENT_KINDS for this kind ("" for out of range). */
const char *rt_event_kind_fields(unsigned kind);
/* Name of an op value for the given kind ("" when the kind has no op or it is out of range;
 * for RECV, IRECV and ISEND the name of the flag set, "" for none and for sets the kind does
 * not take: rt_event_op_valid). */
const char *rt_event_op_name(unsigned kind, unsigned op);
/* Op value named name for the kind; -RT_E_NOTFOUND when unknown. RECV and IRECV take "" (0) and
 * their flag names joined by "|", each at most once, in any order; ISEND "" and "partitioned";
 * a set the kind does not take (rt_event_op_valid) is unknown. */
int rt_event_op_lookup(unsigned kind, const char *name);
/* 1 when op is a value of the kind's op field; a kind without one takes only 0. */
int rt_event_op_valid(unsigned kind, unsigned op);
/* 1 when events of this kind use the field with that letter (RT_EVENT_KINDS). */
int rt_event_kind_uses(unsigned kind, char field);
/* The same for all fields at once: RT_FIELD_* bits (0 for out of range). */
enum {
    RT_FIELD_COMM = 1 << 0,    /* c */
    RT_FIELD_PEER = 1 << 1,    /* p */
    RT_FIELD_TAG = 1 << 2,     /* t */
    RT_FIELD_BYTES = 1 << 3,   /* b */
    RT_FIELD_RBYTES = 1 << 4,  /* r */
    RT_FIELD_CONTYPE = 1 << 5, /* k */
    RT_FIELD_REQ = 1 << 6,     /* q */
    RT_FIELD_OP = 1 << 7       /* o */
};
/* (the table behind it, built before main: formats/event.c) */
extern uint8_t rt__field_mask[RT_EV_COUNT];
static inline unsigned rt_event_kind_mask(unsigned kind)
{
    return kind < RT_EV_COUNT ? rt__field_mask[kind] : 0;
}
/* 1 for the kinds that start a request (its id in req) and for those that end one: the req
 * column of RT_EVENT_KINDS. */
int rt_event_starts_request(unsigned kind);
int rt_event_ends_request(unsigned kind);
/* Only the fields the kind uses, the rest zero (peer and tag: 0; comm: 0). */
void rt_event_normalize(rt_event *ev);
/* 1 when the two events are equal in every field their kind uses. */
int rt_event_equal(const rt_event *a, const rt_event *b);

/* ---- definitions -------------------------------------------------------------------------- */

#define RT_COMM_WORLD 0u
#define RT_COMM_SELF 1u

typedef enum rt_comm_flag {
    RT_COMM_IS_SELF = 1 << 0, /* MPI_COMM_SELF-like: its one member is the recording rank */
    RT_COMM_IS_INTER = 1 << 1 /* members split into group a (size) and group b (remote_size) */
} rt_comm_flag;

typedef struct rt_comm_def {
    uint32_t id;
    uint32_t parent;      /* RT_ID_NONE when none */
    uint32_t flags;       /* rt_comm_flag */
    uint32_t size;        /* members in (local) group a */
    uint32_t remote_size; /* members in group b of an inter-communicator, else 0 */
    uint32_t *members;    /* world ranks: group a then group b, in communicator rank order */
    uint64_t *by_world;   /* index: (world rank << 32 | position in members), sorted */
    char *name;
} rt_comm_def;

typedef struct rt_group_def {
    uint32_t id;
    uint32_t size;
    uint32_t *members; /* world ranks, in group rank order */
} rt_group_def;

/*
 * A window: its communicator, and what the program told MPI about it: its name
 * (MPI_Win_set_name) and the info keys it was created with (the MPI_Info of Win_create,
 * Win_allocate, Win_allocate_shared, Win_create_dynamic; ParaStation's psnam_* keys for windows
 * in Network Attached Memory among them). Bounded, so that a damaged trace cannot make a reader
 * allocate much: a name of at most RT_WIN_NAME_LEN bytes, at most RT_WIN_INFO_MAX keys, each key
 * at most RT_WIN_INFO_KEY_LEN bytes and its value at most RT_WIN_INFO_VALUE_LEN. What the tracer
 * finds longer it cuts to the limit, the last three bytes "..." (RT_WIN_CUT); a window with more
 * keys keeps the first RT_WIN_INFO_MAX - 1 and, as the last, the key "..." whose value is the
 * number of keys left out. Ranks may name a window differently: a trace keeps the names and keys
 * of the lowest rank that gave any (docs/tracer.md). A key holds no '=' (the tracer makes it '_').
 */
#define RT_WIN_NAME_LEN 127 /* MPI_MAX_OBJECT_NAME - 1 in MPICH and Open MPI */
#define RT_WIN_INFO_MAX 16
#define RT_WIN_INFO_KEY_LEN 64
#define RT_WIN_INFO_VALUE_LEN 256
#define RT_WIN_CUT "..."

typedef struct rt_win_info {
    char *key, *value;
} rt_win_info;

typedef struct rt_win_def {
    uint32_t id;
    uint32_t comm;
    char *name;     /* NULL: none */
    uint32_t ninfo; /* info keys, in the order MPI_Info_get_nthkey gave them */
    rt_win_info *info;
} rt_win_def;

/*
 * One rank's neighbours in the process topology of one communicator, in the order MPI's
 * neighbourhood collectives use them (MPI 4.0 section 8.6): in[k] is where receive block k
 * comes from, out[k] where send block k goes. Entries are ranks of the communicator, or
 * RT_PEER_NONE for an MPI_PROC_NULL slot (the border of a non-periodic Cartesian dimension):
 * its block has buffer space and moves no data. Cartesian: for each dimension the -1 then the
 * +1 neighbour of MPI_Cart_shift, in and out alike; graph: MPI_Graph_neighbors, in and out
 * alike; distributed graph: MPI_Dist_graph_neighbors' sources and destinations. A neighbour
 * may appear more than once (a periodic dimension of size 1 or 2, a multigraph).
 */
typedef struct rt_nbr_def {
    uint32_t rank;      /* world rank whose neighbours these are */
    uint32_t comm;      /* communicator id (an intra-communicator) */
    uint32_t nin, nout; /* in- and out-degree, MPI_PROC_NULL slots included */
    int32_t *in;        /* nin sources, then the nout destinations (out = in + nin) */
    int32_t *out;
} rt_nbr_def;

/* The most neighbours one list may have: far above real topologies, and low enough that a
 * damaged trace cannot make a reader allocate gigabytes for one rank. */
#define RT_MAX_DEGREE (1u << 20)

/*
 * The real machine that ran a rank, as the tracer saw it (the node and module ids describe
 * the machine asked about, which --nodes and RETRACE_EMULATE may make up): the host's name
 * (gethostname), its online CPUs, and the CPUs the rank was allowed to run on (its affinity
 * mask at MPI_Init, in Linux's list form "0-3,8"). Replaying the recorded run takes the time
 * sharing from them (docs/replay.md). A trace without them (another tool's, an older
 * retrace's) has rank_host NULL.
 */
#define RT_HOST_NAME_LEN 64 /* HOST_NAME_MAX on Linux */
#define RT_CPU_LIST_LEN 255 /* a longer list is not kept (the count is) */
#define RT_CPU_MAX 65536    /* CPU numbers below it */

typedef struct rt_host_def {
    char *name;
    uint32_t online; /* the host's online CPUs */
} rt_host_def;

typedef struct rt_rank_host {
    uint32_t host;  /* index into rt_defs.hosts; RT_ID_NONE: unknown */
    uint32_t ncpus; /* CPUs the rank was allowed to run on; 0: unknown */
    char *cpus;     /* ... as a list, or NULL when it did not fit RT_CPU_LIST_LEN */
} rt_rank_host;

/* rt_defs.flags */
enum {
    /* The trace records per-peer counts (COLL_PEER rows, "The per-peer counts" above): a v or
     * w collective without rows has equal blocks. Retrace's tracer sets it; a trace without it
     * (another tool's, an older retrace's) leaves the blocks of such collectives unknown. */
    RT_DEFS_COLL_PEERS = 1u << 0,
    /* The trace records element sizes (rt_event.esize, resize): 0 there means the size was not
     * kept (a derived type that rt_esize_code cannot hold), not unknown for the whole trace.
     * Without it (traces of tracers before sizes, other tools') consumers guess
     * (rt_coll_elem_size) and say so. */
    RT_DEFS_ELEM_SIZES = 1u << 1,
    /* The trace records the buffers of operations and the memory of windows (BUFFER events and
     * WIN_ATTACH base, "The memory an operation uses" above; retrace's tracer does not record
     * them yet: traces written by hand or by other tools, CSV and OTF2). Without
     * it a trace says nothing of memory, and the checks that need it do not run. */
    RT_DEFS_BUFFERS = 1u << 2
};

typedef struct rt_defs {
    uint32_t nranks;
    uint32_t flags;   /* RT_DEFS_* */
    char library[24]; /* the MPI library that recorded the trace (rt_library_name); "": unknown */
    uint32_t *node;   /* per world rank */
    uint32_t *module; /* per world rank */
    uint32_t ncomms, ngroups, nwins;
    rt_comm_def *comms; /* sorted by id */
    rt_group_def *groups;
    rt_win_def *wins;
    uint32_t nnbrs, nbrs_cap;
    rt_nbr_def *nbrs; /* sorted by (rank, comm); only communicators a neighbourhood
                       * collective used */
    uint32_t nhosts;
    rt_host_def *hosts;      /* in the order the ranks name them */
    rt_rank_host *rank_host; /* per world rank once one rank's host is known, else NULL */
    void *host_index;        /* the hosts by name (defs_host.c) */
} rt_defs;

#endif /* RT_EVENT_H */
