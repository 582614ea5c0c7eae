/* Mappings shared by the OTF2 writer and reader. */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "rt__otf2.h"

// clang-format off
const char *const rt__otf2_attr_names[RT__ATTR_COUNT] = {
    [RT__ATTR_CONTYPE] = "retrace::contype",
    [RT__ATTR_CALL] = "retrace::call",
    [RT__ATTR_OP] = "retrace::op",
    [RT__ATTR_BYTES] = "retrace::bytes",
    [RT__ATTR_RBYTES] = "retrace::rbytes",
    [RT__ATTR_DISP] = "retrace::disp",
    [RT__ATTR_REDUCE_OP] = "retrace::reduce_op",
    [RT__ATTR_ASSERT] = "retrace::assert",
    [RT__ATTR_ESIZE] = "retrace::esize",
    [RT__ATTR_WIN] = "retrace::win",
};
// clang-format on

/* Their descriptions and types in the archive's definitions. */
const char *const rt__otf2_attr_desc[RT__ATTR_COUNT] = {
    [RT__ATTR_CONTYPE] = "connection type: 1 loop, 2 shm, 3 net, 4 gw",
    [RT__ATTR_CALL] = "retrace MPI function id of the call in effect",
    [RT__ATTR_OP] = "retrace op of the event; on a receive the wildcards it was posted with: "
                    "1 MPI_ANY_SOURCE, 2 MPI_ANY_TAG, 3 both; on a send or receive 4 a "
                    "partitioned message",
    [RT__ATTR_BYTES] = "bytes of send block retrace::coll_peer of a v or w collective",
    [RT__ATTR_RBYTES] = "bytes of receive block retrace::coll_peer of a v or w collective",
    [RT__ATTR_DISP] = "target displacement in bytes of an RMA transfer (its retrace::rma_target)",
    [RT__ATTR_REDUCE_OP] =
        "reduction op of an RMA atomic: 1 sum, 2 prod, 3 max, 4 min, 5 land, 6 band, "
        "7 lor, 8 bor, 9 lxor, 10 bxor, 11 maxloc, 12 minloc, 13 replace, 14 no_op",
    [RT__ATTR_ASSERT] = "assert of MPI_Win_fence, MPI_Win_post or MPI_Win_start, bits: 1 nocheck, "
                        "2 nostore, 4 noput, 8 noprecede, 16 nosucceed",
    [RT__ATTR_ESIZE] = "element sizes (datatype sizes) of the bytes and the rbytes side: "
                       "code of bytes + 256 * code of rbytes; code c: 0 unknown, 1 to 96 c bytes, "
                       "97 to 127 2^(c - 90) bytes",
    [RT__ATTR_WIN] = "window of retrace::attach and retrace::detach (a dynamic window's memory)",
};
const OTF2_Type rt__otf2_attr_type[RT__ATTR_COUNT] = {
    [RT__ATTR_CONTYPE] = OTF2_TYPE_UINT8,   [RT__ATTR_CALL] = OTF2_TYPE_UINT32,
    [RT__ATTR_OP] = OTF2_TYPE_UINT8,        [RT__ATTR_BYTES] = OTF2_TYPE_UINT64,
    [RT__ATTR_RBYTES] = OTF2_TYPE_UINT64,   [RT__ATTR_DISP] = OTF2_TYPE_UINT64,
    [RT__ATTR_REDUCE_OP] = OTF2_TYPE_UINT8, [RT__ATTR_ASSERT] = OTF2_TYPE_UINT8,
    [RT__ATTR_ESIZE] = OTF2_TYPE_UINT16,    [RT__ATTR_WIN] = OTF2_TYPE_RMA_WIN,
};

OTF2_CollectiveOp rt__otf2_coll_op(unsigned op)
{
    static const OTF2_CollectiveOp map[RT_COLL_COUNT] = {
        [RT_COLL_BARRIER] = OTF2_COLLECTIVE_OP_BARRIER,
        [RT_COLL_BCAST] = OTF2_COLLECTIVE_OP_BCAST,
        [RT_COLL_GATHER] = OTF2_COLLECTIVE_OP_GATHER,
        [RT_COLL_GATHERV] = OTF2_COLLECTIVE_OP_GATHERV,
        [RT_COLL_SCATTER] = OTF2_COLLECTIVE_OP_SCATTER,
        [RT_COLL_SCATTERV] = OTF2_COLLECTIVE_OP_SCATTERV,
        [RT_COLL_ALLGATHER] = OTF2_COLLECTIVE_OP_ALLGATHER,
        [RT_COLL_ALLGATHERV] = OTF2_COLLECTIVE_OP_ALLGATHERV,
        [RT_COLL_ALLTOALL] = OTF2_COLLECTIVE_OP_ALLTOALL,
        [RT_COLL_ALLTOALLV] = OTF2_COLLECTIVE_OP_ALLTOALLV,
        [RT_COLL_ALLTOALLW] = OTF2_COLLECTIVE_OP_ALLTOALLW,
        [RT_COLL_ALLREDUCE] = OTF2_COLLECTIVE_OP_ALLREDUCE,
        [RT_COLL_REDUCE] = OTF2_COLLECTIVE_OP_REDUCE,
        [RT_COLL_REDUCE_SCATTER] = OTF2_COLLECTIVE_OP_REDUCE_SCATTER,
        [RT_COLL_REDUCE_SCATTER_BLOCK] = OTF2_COLLECTIVE_OP_REDUCE_SCATTER_BLOCK,
        [RT_COLL_SCAN] = OTF2_COLLECTIVE_OP_SCAN,
        [RT_COLL_EXSCAN] = OTF2_COLLECTIVE_OP_EXSCAN,
        /* OTF2 3.0 has no neighbourhood collectives: the closest pattern, plus our op
         * as an attribute (the derivation below never yields them). */
        [RT_COLL_NEIGHBOR_ALLGATHER] = OTF2_COLLECTIVE_OP_ALLGATHER,
        [RT_COLL_NEIGHBOR_ALLGATHERV] = OTF2_COLLECTIVE_OP_ALLGATHERV,
        [RT_COLL_NEIGHBOR_ALLTOALL] = OTF2_COLLECTIVE_OP_ALLTOALL,
        [RT_COLL_NEIGHBOR_ALLTOALLV] = OTF2_COLLECTIVE_OP_ALLTOALLV,
        [RT_COLL_NEIGHBOR_ALLTOALLW] = OTF2_COLLECTIVE_OP_ALLTOALLW,
        [RT_COLL_CREATE_HANDLE] = OTF2_COLLECTIVE_OP_CREATE_HANDLE,
        [RT_COLL_DESTROY_HANDLE] = OTF2_COLLECTIVE_OP_DESTROY_HANDLE,
        [RT_COLL_ALLOCATE] = OTF2_COLLECTIVE_OP_ALLOCATE,
        [RT_COLL_DEALLOCATE] = OTF2_COLLECTIVE_OP_DEALLOCATE,
        [RT_COLL_CREATE_HANDLE_AND_ALLOCATE] = OTF2_COLLECTIVE_OP_CREATE_HANDLE_AND_ALLOCATE,
        [RT_COLL_DESTROY_HANDLE_AND_DEALLOCATE] = OTF2_COLLECTIVE_OP_DESTROY_HANDLE_AND_DEALLOCATE,
    };
    return op < RT_COLL_COUNT ? map[op] : OTF2_COLLECTIVE_OP_BARRIER;
}

OTF2_RmaAtomicType rt__otf2_atomic_type(unsigned op)
{
    switch (op) {
    case RT_ATOMIC_ACCUMULATE:
        return OTF2_RMA_ATOMIC_TYPE_ACCUMULATE;
    case RT_ATOMIC_COMPARE_AND_SWAP:
        return OTF2_RMA_ATOMIC_TYPE_COMPARE_AND_SWAP;
    default: /* get_accumulate, fetch_and_op */
        return OTF2_RMA_ATOMIC_TYPE_FETCH_AND_ACCUMULATE;
    }
}

OTF2_LockType rt__otf2_lock_type(unsigned op)
{
    return op == RT_LOCK_SHARED ? OTF2_LOCK_SHARED : OTF2_LOCK_EXCLUSIVE;
}

/* Our op of each OTF2 collective op (OTF2_CollectiveOp is a byte), plus 1 (0: none, read as
 * a barrier): the inverse of rt__otf2_coll_op without the neighbourhood collectives, which it
 * maps onto others. A table, as each collective end without our op attribute (all of them
 * when the op is the one OTF2's implies) looked for it through every op; filled once
 * (pthread_once): ranks may be read in threads. */
static uint8_t coll_of_otf2[256];
static pthread_once_t coll_of_otf2_once = PTHREAD_ONCE_INIT;

_Static_assert(RT_COLL_COUNT < 255, "an op plus 1 is a byte");
_Static_assert(sizeof(OTF2_CollectiveOp) == 1, "the table is indexed by a byte");

static void fill_coll_of_otf2(void)
{
    for (unsigned op = RT_COLL_COUNT; op-- > 0;) /* the lowest op wins, should two share one */
        if (op < RT_COLL_NEIGHBOR_ALLGATHER || op > RT_COLL_NEIGHBOR_ALLTOALLW)
            coll_of_otf2[(uint8_t)rt__otf2_coll_op(op)] = (uint8_t)(op + 1);
}

static unsigned coll_from_otf2(unsigned v)
{
    pthread_once(&coll_of_otf2_once, fill_coll_of_otf2);
    unsigned op = v < 256 ? coll_of_otf2[v] : 0;
    return op ? op - 1 : RT_COLL_BARRIER;
}

unsigned rt__otf2_default_op(unsigned kind, unsigned v, unsigned call)
{
    switch (kind) {
    case RT_EV_COLL_END:
    case RT_EV_NBC_COMPLETE:
    case RT_EV_RMA_COLL_END:
        return coll_from_otf2(v);
    case RT_EV_RMA_ATOMIC:
        switch (v) {
        case OTF2_RMA_ATOMIC_TYPE_ACCUMULATE:
            return RT_ATOMIC_ACCUMULATE;
        case OTF2_RMA_ATOMIC_TYPE_COMPARE_AND_SWAP:
        case OTF2_RMA_ATOMIC_TYPE_TEST_AND_SET:
        case OTF2_RMA_ATOMIC_TYPE_SWAP:
            return RT_ATOMIC_COMPARE_AND_SWAP;
        default:
            return call == RT_FN_Fetch_and_op ? RT_ATOMIC_FETCH_AND_OP : RT_ATOMIC_GET_ACCUMULATE;
        }
    case RT_EV_RMA_GROUP_SYNC:
        switch (call) {
        case RT_FN_Win_start:
            return RT_PSCW_START;
        case RT_FN_Win_complete:
            return RT_PSCW_COMPLETE;
        case RT_FN_Win_wait:
        case RT_FN_Win_test:
            return RT_PSCW_WAIT;
        default:
            return RT_PSCW_POST;
        }
    case RT_EV_RMA_SYNC:
        switch (call) {
        case RT_FN_Win_flush_local:
        case RT_FN_Win_flush_local_all:
            return RT_SYNC_FLUSH_LOCAL;
        case RT_FN_Win_sync:
            return RT_SYNC_WIN_SYNC;
        default:
            return RT_SYNC_FLUSH;
        }
    case RT_EV_RMA_LOCK:
        return v == OTF2_LOCK_SHARED ? RT_LOCK_SHARED : RT_LOCK_EXCLUSIVE;
    default:
        return 0;
    }
}

/* OTF2 prints its errors to stderr by default; we report them ourselves, in one line. */
static _Thread_local char last_error[256];

static OTF2_ErrorCode on_otf2_error(void *data, const char *file, uint64_t line, const char *func,
                                    OTF2_ErrorCode code, const char *fmt, va_list va)
{
    vsnprintf(last_error, sizeof last_error, fmt ? fmt : "", va);
    return code;
}

void rt__otf2_quiet(void)
{
    last_error[0] = '\0';
    OTF2_Error_RegisterCallback(on_otf2_error, NULL);
}

const char *rt__otf2_last_error(void)
{
    return last_error;
}

int rt__otf2_fail(rt_err *err, int code, const char *path, const char *what, OTF2_ErrorCode ec)
{
    /* OTF2's own message says more than its error code's description. */
    if (last_error[0])
        return rt_err_set(err, code, "%s: %s (OTF2: %s)", path, what, last_error);
    if (ec == OTF2_ERROR_INVALID)
        return rt_err_set(err, code, "%s: %s", path, what);
    const char *desc = OTF2_Error_GetDescription(ec);
    return rt_err_set(err, code, "%s: %s (OTF2: %s)", path, what, desc ? desc : "error");
}
