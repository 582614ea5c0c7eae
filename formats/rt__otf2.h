/*
 * Internal: what the OTF2 writer and reader share. Our events map onto Score-P's record
 * conventions; where an OTF2 record has no slot for one of our fields, the writer attaches
 * an attribute, and only when the reader could not derive the value otherwise. Both sides
 * use the same derivation (rt__otf2_default_*), so the pair is lossless by construction.
 */
#ifndef RT__OTF2_H
#define RT__OTF2_H

#include <otf2/otf2.h>

#include "rt__trace.h"

/* Attribute definitions of a retrace archive (the ids are the OTF2 attribute refs). */
enum {
    RT__ATTR_CONTYPE = 0,   /* uint8 rt_contype: on every message and RMA transfer */
    RT__ATTR_CALL = 1,      /* uint32 rt_func, when not the innermost open region */
    RT__ATTR_OP = 2,        /* uint8 op, when not derivable from the record and the call (on
                             * MpiRecv, MpiIrecv and MpiIsend: the rt_recv_flag bits, absent
                             * when 0; RT_RECV_PARTITIONED marks a partitioned message) */
    RT__ATTR_BYTES = 3,     /* uint64 bytes of a COLL_PEER row (below), absent when 0 */
    RT__ATTR_RBYTES = 4,    /* uint64 rbytes of a COLL_PEER row, absent when 0 */
    RT__ATTR_DISP = 5,      /* uint64 the RMA_TARGET of a transfer: displacement in bytes (below) */
    RT__ATTR_REDUCE_OP = 6, /* uint8 its op (rt_reduce_op), absent when none */
    RT__ATTR_ASSERT = 7,    /* uint8 the assert of a fence, post or start (rt_rma_assert), absent
                             * when none */
    RT__ATTR_ESIZE = 8,     /* uint16 element sizes, esize | resize << 8 (rt_esize_code), on the
                             * events that carry them (rt_event_has_esize) in an archive with
                             * RT__ELEM_SIZES_PROPERTY, only when they are not
                             * rt_esize_default of bytes and rbytes: a message of doubles needs
                             * none, 4 floats do */
    RT__ATTR_WIN = 9,       /* the window of a WIN_ATTACH (below) */
    RT__ATTR_COUNT
};
extern const char *const rt__otf2_attr_names[RT__ATTR_COUNT];
extern const char *const rt__otf2_attr_desc[RT__ATTR_COUNT];
extern const OTF2_Type rt__otf2_attr_type[RT__ATTR_COUNT];

#define RT__OTF2_ARCHIVE_NAME "traces"
#define RT__OTF2_PROP_NODE "retrace::node"
#define RT__OTF2_PROP_MODULE "retrace::module"
/* The real host of a rank (rt_rank_host): its name and online CPUs, the rank's allowed CPUs
 * (their count, and their list when known), location group properties of the rank. */
#define RT__OTF2_PROP_HOST "retrace::host"
#define RT__OTF2_PROP_ONLINE "retrace::online_cpus"
#define RT__OTF2_PROP_NCPUS "retrace::ncpus"
#define RT__OTF2_PROP_CPUS "retrace::cpus"
/*
 * Neighbour lists (rt_nbr_def). OTF2 3.0 can describe Cartesian topologies but not graphs,
 * and not the per-rank order neighbourhood collectives use, so each list is a group of type
 * OTF2_GROUP_TYPE_UNKNOWN (paradigm MPI, no name) whose members are communicator ranks in
 * that order, OTF2_UNDEFINED_UINT64 for an MPI_PROC_NULL slot, duplicates kept; the rank's
 * location group names it in a property of type OTF2_TYPE_GROUP called PREFIX + C, C being
 * the OTF2 communicator ref. When a rank's two lists are equal both properties name one
 * group. Other OTF2 tools see an unnamed group and a property; readers of older archives
 * see no neighbour lists.
 */
#define RT__OTF2_PROP_SOURCES "retrace::sources::"
#define RT__OTF2_PROP_DESTS "retrace::destinations::"

/* Regions are MPI functions: region ref = rt_func - 1 in our archives. */

/*
 * A pending call (rt_event.h): its Enter record, then a ParameterUnsignedInt record of the
 * parameter named RT__OTF2_PARAM_PENDING with the value 1 ("in the current region,
 * retrace::pending is 1", as otf2-print shows it), then its operations as their usual records
 * (a receive that did not complete is an MpiRecv of length 0, a collective an
 * MpiCollectiveEnd ...), and no Leave: Score-P's convention for a call that never returned,
 * an Enter without Leave at the end of the location, with the record that tells it apart from
 * a location cut short and the reader that the operations after it did not complete.
 */
#define RT__OTF2_PARAM_PENDING "retrace::pending"
#define RT__OTF2_PARAM_PENDING_REF 0u /* its ref in our archives */

/*
 * The rows of a v or w collective (COLL_PEER, rt_event.h): OTF2 has no record for per-peer
 * counts, so each row is a ParameterUnsignedInt record of the parameter RT__OTF2_PARAM_PEER
 * whose value is the block (peer), with the attributes RT__ATTR_BYTES and RT__ATTR_RBYTES
 * where they are not 0, right after the collective's MpiCollectiveEnd or
 * NonBlockingCollectiveComplete, whose communicator and op it shares. otf2-print shows
 * "retrace::coll_peer" with its value and attributes; other tools skip the parameter.
 */
#define RT__OTF2_PARAM_PEER "retrace::coll_peer"
#define RT__OTF2_PARAM_PEER_REF 1u

/* A call that returned an error (ERROR, rt_event.h): a ParameterInt record of the parameter
 * RT__OTF2_PARAM_ERROR whose value is the code, right before the call's Leave, with the
 * attribute RT__ATTR_OP holding its class (rt_error_class) when not other. otf2-print shows
 * "retrace::error" and the code; other tools skip the parameter. */
#define RT__OTF2_PARAM_ERROR "retrace::error"
#define RT__OTF2_PARAM_ERROR_REF 2u

/* MPI_Request_free of a request (REQUEST_FREE, rt_event.h): OTF2 has no record for it, so it is a
 * ParameterUnsignedInt record of the parameter RT__OTF2_PARAM_REQUEST_FREE whose value is the
 * request id. otf2-print shows "retrace::request_free" and the id; other tools skip it. The
 * other ops of REQUEST_FREE are parameters of their own, named after the op
 * ("retrace::cancel_inactive", "retrace::restart_active"), of refs RT__OTF2_PARAM_REQUEST_FREE_REF
 * plus the op. A communicator made or freed (COMM_HANDLE) is OTF2's CommCreate or CommDestroy
 * record. */
#define RT__OTF2_PARAM_REQUEST_FREE "retrace::request_free"
#define RT__OTF2_PARAM_REQUEST_FREE_REF 3u
#define RT__OTF2_PARAM_REQUEST_PREFIX "retrace::" /* and the op's name */

/* A handle made or freed (HANDLE, rt_event.h): a ParameterUnsignedInt record of the parameter
 * named after the op ("retrace::group_made", "retrace::group_free"; of ref
 * RT__OTF2_PARAM_HANDLE_REF plus the op) whose value is the handle's id. OTF2's GroupCreate-like
 * records are for communicators only. */
#define RT__OTF2_PARAM_HANDLE_REF 6u

/* Memory attached to or detached from a dynamic window (WIN_ATTACH, rt_event.h): a
 * ParameterUnsignedInt record of the parameter named after the op ("retrace::attach",
 * "retrace::detach"; of ref RT__OTF2_PARAM_WIN_ATTACH_REF plus the op) whose value is the
 * memory's address, with the window in RT__ATTR_WIN and the size in RT__ATTR_BYTES (absent
 * when 0). Score-P records no attach. */
#define RT__OTF2_PARAM_WIN_ATTACH_REF 8u

/* The memory an operation uses (BUFFER, rt_event.h): a ParameterUnsignedInt record of the
 * parameter named after the op ("retrace::read", "retrace::write"; of ref
 * RT__OTF2_PARAM_BUFFER_REF plus the op) whose value is the address, with the extent in
 * RT__ATTR_BYTES (absent when 0), right after the record of its operation. A window's base
 * (WIN_ATTACH op base) is "retrace::base", as attach and detach are. */
#define RT__OTF2_PARAM_BUFFER_REF (RT__OTF2_PARAM_WIN_ATTACH_REF + RT_WATTACH_COUNT)

/* Windows: the RmaWin name of a window without one (printf: the window's id), and the archive
 * property of info key K of the window of ref W, "KEY=VALUE" (otf2_wins.c). */
#define RT__OTF2_WIN_NAME "MPI_Win %u"
#define RT__OTF2_WIN_INFO "RETRACE::WIN_%u_INFO_%u"
const char *rt__otf2_win_name(const rt_win_def *w, char *buf, size_t len);
OTF2_ErrorCode rt__otf2_write_win_info(OTF2_Archive *archive, const rt_defs *d);

/*
 * The target of an RMA transfer (RMA_TARGET, rt_event.h): Score-P's RmaPut, RmaGet and RmaAtomic
 * have no displacement and no reduction op, so the transfer's record carries them as the
 * attributes RT__ATTR_DISP (always, 0 included: its presence says the target is known) and
 * RT__ATTR_REDUCE_OP (when not none). The reader hands out the transfer, then its RMA_TARGET.
 * otf2-print shows them as "retrace::disp" and "retrace::reduce_op" on the record.
 */

/* Our op <-> the OTF2 enum value a record carries. */
OTF2_CollectiveOp rt__otf2_coll_op(unsigned op);
OTF2_RmaAtomicType rt__otf2_atomic_type(unsigned op);
OTF2_LockType rt__otf2_lock_type(unsigned op);

/* What a reader makes of a record's OTF2 enum value (or 0 where the record has none) and
 * the enclosing call, for the op field of an event of the given kind. */
unsigned rt__otf2_default_op(unsigned kind, unsigned otf2_value, unsigned call);

/* Silences OTF2's own error printing; the text of the last OTF2 error of this thread. */
void rt__otf2_quiet(void);
const char *rt__otf2_last_error(void);
/* err line "<path>: <what>: <OTF2's description>". */
int rt__otf2_fail(rt_err *err, int code, const char *path, const char *what, OTF2_ErrorCode ec);

#endif /* RT__OTF2_H */
