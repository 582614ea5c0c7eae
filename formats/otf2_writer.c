/*
 * OTF2 writer: one archive per trace, one location group per world rank with a location per
 * thread (docs/tracer.md, "Threads"),
 * Score-P's record conventions for MPI events, the machine > module > node system tree,
 * and retrace's attributes where OTF2 has no slot for a field (see rt__otf2.h).
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rt__otf2.h"
#include "rt__ti.h"

/* Calls nested deeper than this are tracked by depth only; the reader does the same. */
#define CALL_STACK 8

typedef struct otf2w_rank {
    OTF2_EvtWriter *ew;
    uint64_t nevents;
    uint32_t depth;
    uint16_t stack[CALL_STACK];
    rt_event held; /* an RMA transfer waiting for its RMA_TARGET, when holding (rt__otf2.h) */
    int holding;
    int used; /* a thread location that has events (thread locations only) */
} otf2w_rank;

typedef struct otf2w {
    OTF2_Archive *archive;
    OTF2_AttributeList *attrs;
    otf2w_rank *ranks; /* the master thread of each rank: location ref = rank */
    /* Per rank, NULL unless it has events of other threads: RT_THREAD_MAX locations, thread
     * t at index t - 1 and location ref (t << 32) | rank, as Score-P numbers a process's
     * locations; a trace of one thread a rank writes what it wrote before threads. */
    otf2w_rank **threads;
    uint32_t nranks;
    uint64_t tmax;
    OTF2_GlobalDefWriter *gdw; /* while closing */
    OTF2_StringRef nstrings;
    OTF2_StringRef empty; /* the string "", written once */
    int made_dir;
    int sizes; /* the trace records element sizes (RT_DEFS_ELEM_SIZES) */
} otf2w;

static OTF2_FlushType pre_flush(void *data, OTF2_FileType type, OTF2_LocationRef loc, void *caller,
                                bool final)
{
    return OTF2_FLUSH;
}

static const OTF2_FlushCallbacks flush_callbacks = {
    .otf2_pre_flush = pre_flush,
    .otf2_post_flush = NULL, /* no BufferFlush records: they would carry no real time */
};

static unsigned innermost_call(const otf2w_rank *r)
{
    return r->depth && r->depth <= CALL_STACK ? r->stack[r->depth - 1] : RT_FN_NONE;
}

/* Region stack shared in behaviour with the reader: a leave pops only its own enter. */
static void track_call(otf2w_rank *r, const rt_event *ev)
{
    if (ev->kind == RT_EV_ENTER) {
        if (r->depth < CALL_STACK)
            r->stack[r->depth] = ev->call;
        r->depth++;
    } else if (ev->kind == RT_EV_LEAVE && r->depth &&
               (r->depth > CALL_STACK || r->stack[r->depth - 1] == ev->call)) {
        r->depth--;
    }
}

static uint32_t win_ref(const rt_defs *d, uint32_t id);

/* The element sizes of ev when the trace records them and they are not the ones a reader takes
 * without them (rt_esize_default). */
static OTF2_ErrorCode put_esize(otf2w *o, const rt_event *ev)
{
    if (!o->sizes || !rt_event_has_esize(ev->kind) ||
        (ev->esize == rt_esize_default(ev->bytes) && ev->resize == rt_esize_default(ev->rbytes)))
        return OTF2_SUCCESS;
    return OTF2_AttributeList_AddUint16(o->attrs, RT__ATTR_ESIZE,
                                        (uint16_t)(ev->esize | ev->resize << 8));
}

/* tgt: the RMA_TARGET of a transfer, its attributes (rt__otf2.h); else NULL. */
static OTF2_ErrorCode put_attrs(otf2w *o, const otf2w_rank *r, const rt_defs *d, const rt_event *ev,
                                unsigned otf2_value, const rt_event *tgt)
{
    OTF2_ErrorCode ec = OTF2_SUCCESS;
    OTF2_AttributeList_RemoveAllAttributes(o->attrs);
    unsigned fields = rt_event_kind_mask(ev->kind);
    if (fields & RT_FIELD_CONTYPE)
        ec = OTF2_AttributeList_AddUint8(o->attrs, RT__ATTR_CONTYPE, ev->contype);
    unsigned call = innermost_call(r);
    if (ec == OTF2_SUCCESS && ev->call != call)
        ec = OTF2_AttributeList_AddUint32(o->attrs, RT__ATTR_CALL, ev->call);
    if (ev->kind == RT_EV_COLL_PEER) { /* comm and op are its collective's (rt__otf2.h) */
        if (ec == OTF2_SUCCESS && ev->bytes)
            ec = OTF2_AttributeList_AddUint64(o->attrs, RT__ATTR_BYTES, ev->bytes);
        if (ec == OTF2_SUCCESS && ev->rbytes)
            ec = OTF2_AttributeList_AddUint64(o->attrs, RT__ATTR_RBYTES, ev->rbytes);
        return ec == OTF2_SUCCESS ? put_esize(o, ev) : ec;
    }
    if (ev->kind == RT_EV_BUFFER) { /* its op is its parameter (rt__otf2.h) */
        if (ec == OTF2_SUCCESS && ev->bytes)
            ec = OTF2_AttributeList_AddUint64(o->attrs, RT__ATTR_BYTES, ev->bytes);
        return ec;
    }
    if (ev->kind == RT_EV_WIN_ATTACH) { /* its op is its parameter (rt__otf2.h) */
        if (ec == OTF2_SUCCESS)
            ec = OTF2_AttributeList_AddRmaWinRef(o->attrs, RT__ATTR_WIN, win_ref(d, ev->comm));
        if (ec == OTF2_SUCCESS && ev->bytes)
            ec = OTF2_AttributeList_AddUint64(o->attrs, RT__ATTR_BYTES, ev->bytes);
        return ec;
    }
    if (ec == OTF2_SUCCESS && (fields & RT_FIELD_OP) &&
        rt__otf2_default_op(ev->kind, otf2_value, ev->call) != ev->op)
        ec = OTF2_AttributeList_AddUint8(o->attrs, RT__ATTR_OP, ev->op);
    if (ec == OTF2_SUCCESS && tgt)
        ec = OTF2_AttributeList_AddUint64(o->attrs, RT__ATTR_DISP, tgt->bytes);
    if (ec == OTF2_SUCCESS && tgt && tgt->op)
        ec = OTF2_AttributeList_AddUint8(o->attrs, RT__ATTR_REDUCE_OP, tgt->op);
    if (ec == OTF2_SUCCESS && ev->tag && rt_event_is_rma(ev->kind) && (fields & RT_FIELD_TAG))
        ec = OTF2_AttributeList_AddUint8(o->attrs, RT__ATTR_ASSERT, (uint8_t)ev->tag);
    return ec == OTF2_SUCCESS ? put_esize(o, ev) : ec;
}

/* OTF2 wants definitions numbered densely from 0: a communicator, group or window is
 * referred to by its position in our id-sorted arrays (the same as its id when the ids
 * are dense already, as the tracer writes them). */
static uint32_t comm_ref(const rt_defs *d, uint32_t id)
{
    const rt_comm_def *c = rt_defs_comm(d, id);
    return c ? (uint32_t)(c - d->comms) : OTF2_UNDEFINED_COMM;
}

static uint32_t group_ref(const rt_defs *d, uint32_t id)
{
    const rt_group_def *g = rt_defs_group(d, id);
    return g ? (uint32_t)(g - d->groups) + 1 : OTF2_UNDEFINED_GROUP; /* 0: COMM_LOCATIONS */
}

static uint32_t win_ref(const rt_defs *d, uint32_t id)
{
    const rt_win_def *w = rt_defs_win(d, id);
    return w ? (uint32_t)(w - d->wins) : OTF2_UNDEFINED_RMA_WIN;
}

static uint32_t peer_u32(int32_t peer)
{
    return peer < 0 ? OTF2_UNDEFINED_UINT32 : (uint32_t)peer;
}

/* The OTF2 enum value an event's record carries: the collective operation, the atomic
 * operation or the lock type; 0 for the kinds without one. */
static unsigned otf2_value(const rt_event *ev)
{
    switch (ev->kind) {
    case RT_EV_COLL_END:
    case RT_EV_NBC_COMPLETE:
    case RT_EV_RMA_COLL_END:
        return rt__otf2_coll_op(ev->op);
    case RT_EV_RMA_ATOMIC:
        return rt__otf2_atomic_type(ev->op);
    case RT_EV_RMA_LOCK:
        return rt__otf2_lock_type(ev->op);
    }
    return 0;
}

/* The records of the point-to-point class: messages and their requests. */
static OTF2_ErrorCode write_p2p(OTF2_EvtWriter *ew, OTF2_AttributeList *a, const rt_defs *d,
                                const rt_event *ev)
{
    const OTF2_TimeStamp t = ev->time;
    const uint32_t peer = peer_u32(ev->peer), tag = (uint32_t)ev->tag;
    switch (ev->kind) {
    case RT_EV_SEND:
        return OTF2_EvtWriter_MpiSend(ew, a, t, peer, comm_ref(d, ev->comm), tag, ev->bytes);
    case RT_EV_ISEND:
        return OTF2_EvtWriter_MpiIsend(ew, a, t, peer, comm_ref(d, ev->comm), tag, ev->bytes,
                                       ev->req);
    case RT_EV_ISEND_COMPLETE:
        return OTF2_EvtWriter_MpiIsendComplete(ew, a, t, ev->req);
    case RT_EV_RECV:
        return OTF2_EvtWriter_MpiRecv(ew, a, t, peer, comm_ref(d, ev->comm), tag, ev->bytes);
    case RT_EV_IRECV_REQUEST:
        return OTF2_EvtWriter_MpiIrecvRequest(ew, a, t, ev->req);
    case RT_EV_IRECV:
        return OTF2_EvtWriter_MpiIrecv(ew, a, t, peer, comm_ref(d, ev->comm), tag, ev->bytes,
                                       ev->req);
    case RT_EV_REQUEST_CANCELLED:
        return OTF2_EvtWriter_MpiRequestCancelled(ew, a, t, ev->req);
    }
    return OTF2_ERROR_INVALID_ARGUMENT;
}

/* The records of the collective class, blocking and nonblocking; v: the collective op. */
static OTF2_ErrorCode write_coll(OTF2_EvtWriter *ew, OTF2_AttributeList *a, const rt_defs *d,
                                 const rt_event *ev, unsigned v)
{
    const OTF2_TimeStamp t = ev->time;
    switch (ev->kind) {
    case RT_EV_COLL_BEGIN:
        return OTF2_EvtWriter_MpiCollectiveBegin(ew, a, t);
    case RT_EV_COLL_END:
        return OTF2_EvtWriter_MpiCollectiveEnd(ew, a, t, (OTF2_CollectiveOp)v,
                                               comm_ref(d, ev->comm), peer_u32(ev->peer), ev->bytes,
                                               ev->rbytes);
    case RT_EV_NBC_REQUEST:
        return OTF2_EvtWriter_NonBlockingCollectiveRequest(ew, a, t, ev->req);
    case RT_EV_NBC_COMPLETE:
        return OTF2_EvtWriter_NonBlockingCollectiveComplete(
            ew, a, t, (OTF2_CollectiveOp)v, comm_ref(d, ev->comm), peer_u32(ev->peer), ev->bytes,
            ev->rbytes, ev->req);
    }
    return OTF2_ERROR_INVALID_ARGUMENT;
}

/* The records of the one-sided class: windows, transfers, synchronisation; v: the collective
 * op, atomic type or lock type. */
static OTF2_ErrorCode write_rma(OTF2_EvtWriter *ew, OTF2_AttributeList *a, const rt_defs *d,
                                const rt_event *ev, unsigned v)
{
    const OTF2_RmaSyncLevel level = OTF2_RMA_SYNC_LEVEL_PROCESS | OTF2_RMA_SYNC_LEVEL_MEMORY;
    const OTF2_TimeStamp t = ev->time;
    const uint32_t win = win_ref(d, ev->comm), peer = peer_u32(ev->peer);
    switch (ev->kind) {
    case RT_EV_WIN_CREATE:
        return OTF2_EvtWriter_RmaWinCreate(ew, a, t, win);
    case RT_EV_WIN_FREE:
        return OTF2_EvtWriter_RmaWinDestroy(ew, a, t, win);
    case RT_EV_RMA_PUT:
        return OTF2_EvtWriter_RmaPut(ew, a, t, win, peer, ev->bytes, ev->req);
    case RT_EV_RMA_GET:
        return OTF2_EvtWriter_RmaGet(ew, a, t, win, peer, ev->rbytes, ev->req);
    case RT_EV_RMA_ATOMIC:
        return OTF2_EvtWriter_RmaAtomic(ew, a, t, win, peer, (OTF2_RmaAtomicType)v, ev->bytes,
                                        ev->rbytes, ev->req);
    case RT_EV_RMA_OP_COMPLETE:
        return OTF2_EvtWriter_RmaOpCompleteBlocking(ew, a, t, win, ev->req);
    case RT_EV_RMA_COLL_BEGIN:
        return OTF2_EvtWriter_RmaCollectiveBegin(ew, a, t);
    case RT_EV_RMA_COLL_END:
        return OTF2_EvtWriter_RmaCollectiveEnd(ew, a, t, (OTF2_CollectiveOp)v, level, win,
                                               OTF2_UNDEFINED_UINT32, 0, 0);
    case RT_EV_RMA_GROUP_SYNC:
        return OTF2_EvtWriter_RmaGroupSync(ew, a, t, level, win, group_ref(d, (uint32_t)ev->peer));
    case RT_EV_RMA_LOCK:
        return OTF2_EvtWriter_RmaRequestLock(ew, a, t, win, peer, ev->req, (OTF2_LockType)v);
    case RT_EV_RMA_UNLOCK:
        return OTF2_EvtWriter_RmaReleaseLock(ew, a, t, win, peer, ev->req);
    case RT_EV_RMA_SYNC:
        return OTF2_EvtWriter_RmaSync(ew, a, t, win, peer, OTF2_RMA_SYNC_TYPE_MEMORY);
    }
    return OTF2_ERROR_INVALID_ARGUMENT;
}

/* The event's record, written by the helper of its class. Every kind is listed here, so
 * that -Wswitch names a new one that has no record yet. */
static OTF2_ErrorCode write_record(OTF2_EvtWriter *ew, OTF2_AttributeList *a, const rt_defs *d,
                                   const rt_event *ev, unsigned v)
{
    switch ((rt_event_kind)ev->kind) {
    case RT_EV_ENTER:
        return OTF2_EvtWriter_Enter(ew, a, ev->time, ev->call - 1);
    case RT_EV_LEAVE:
        return OTF2_EvtWriter_Leave(ew, a, ev->time, ev->call - 1);
    case RT_EV_SEND:
    case RT_EV_ISEND:
    case RT_EV_ISEND_COMPLETE:
    case RT_EV_RECV:
    case RT_EV_IRECV_REQUEST:
    case RT_EV_IRECV:
    case RT_EV_REQUEST_CANCELLED:
        return write_p2p(ew, a, d, ev);
    case RT_EV_COLL_BEGIN:
    case RT_EV_COLL_END:
    case RT_EV_NBC_REQUEST:
    case RT_EV_NBC_COMPLETE:
        return write_coll(ew, a, d, ev, v);
    case RT_EV_WIN_CREATE:
    case RT_EV_WIN_FREE:
    case RT_EV_RMA_PUT:
    case RT_EV_RMA_GET:
    case RT_EV_RMA_ATOMIC:
    case RT_EV_RMA_OP_COMPLETE:
    case RT_EV_RMA_COLL_BEGIN:
    case RT_EV_RMA_COLL_END:
    case RT_EV_RMA_GROUP_SYNC:
    case RT_EV_RMA_LOCK:
    case RT_EV_RMA_UNLOCK:
    case RT_EV_RMA_SYNC:
        return write_rma(ew, a, d, ev, v);
    case RT_EV_PENDING: /* see rt__otf2.h */
        return OTF2_EvtWriter_ParameterUnsignedInt(ew, a, ev->time, RT__OTF2_PARAM_PENDING_REF, 1);
    case RT_EV_COLL_PEER: /* see rt__otf2.h */
        return OTF2_EvtWriter_ParameterUnsignedInt(ew, a, ev->time, RT__OTF2_PARAM_PEER_REF,
                                                   (uint64_t)ev->peer);
    case RT_EV_ERROR: /* see rt__otf2.h */
        return OTF2_EvtWriter_ParameterInt(ew, a, ev->time, RT__OTF2_PARAM_ERROR_REF, ev->tag);
    case RT_EV_COMM_HANDLE:
        return ev->op == RT_COMMH_CREATE
                   ? OTF2_EvtWriter_CommCreate(ew, a, ev->time, comm_ref(d, ev->comm))
                   : OTF2_EvtWriter_CommDestroy(ew, a, ev->time, comm_ref(d, ev->comm));
    case RT_EV_REQUEST_FREE: /* see rt__otf2.h */
        return OTF2_EvtWriter_ParameterUnsignedInt(
            ew, a, ev->time, RT__OTF2_PARAM_REQUEST_FREE_REF + ev->op, ev->req);
    case RT_EV_HANDLE: /* see rt__otf2.h */
        return OTF2_EvtWriter_ParameterUnsignedInt(ew, a, ev->time,
                                                   RT__OTF2_PARAM_HANDLE_REF + ev->op, ev->req);
    case RT_EV_WIN_ATTACH: /* see rt__otf2.h */
        return OTF2_EvtWriter_ParameterUnsignedInt(ew, a, ev->time,
                                                   RT__OTF2_PARAM_WIN_ATTACH_REF + ev->op, ev->req);
    case RT_EV_BUFFER: /* see rt__otf2.h */
        return OTF2_EvtWriter_ParameterUnsignedInt(ew, a, ev->time,
                                                   RT__OTF2_PARAM_BUFFER_REF + ev->op, ev->req);
    case RT_EV_RMA_TARGET: /* attributes of its transfer's record (see rt__otf2.h) */
    case RT_EV_COUNT:
        break;
    }
    return OTF2_ERROR_INVALID_ARGUMENT;
}

/* The event's record with its attributes; tgt: the RMA_TARGET of a transfer, or NULL. */
static OTF2_ErrorCode emit(otf2w *o, otf2w_rank *r, const rt_defs *d, const rt_event *ev,
                           const rt_event *tgt)
{
    unsigned v = otf2_value(ev); /* the OTF2 enum value the record carries */
    OTF2_ErrorCode ec;
    if (ev->kind == RT_EV_ENTER || ev->kind == RT_EV_LEAVE) {
        OTF2_AttributeList_RemoveAllAttributes(o->attrs);
        ec = OTF2_SUCCESS;
    } else {
        ec = put_attrs(o, r, d, ev, v, tgt);
    }
    if (ec == OTF2_SUCCESS)
        ec = write_record(r->ew, o->attrs, d, ev, v);
    if (ec != OTF2_SUCCESS)
        return ec;
    track_call(r, ev);
    r->nevents++;
    if (ev->time > o->tmax)
        o->tmax = ev->time;
    return OTF2_SUCCESS;
}

/* The location of ev's thread other than the master's (made on first use); NULL when out of
 * memory. */
static otf2w_rank *thread_loc(otf2w *o, const rt_event *ev)
{
    otf2w_rank **t = &o->threads[ev->rank];
    if (!*t && !(*t = calloc(RT_THREAD_MAX, sizeof **t)))
        return NULL;
    (*t)[ev->thread - 1].used = 1;
    return &(*t)[ev->thread - 1];
}

static uint64_t loc_ref(uint32_t rank, unsigned thread)
{
    return (uint64_t)thread << 32 | rank;
}

/* An RMA transfer waits for the next event of its rank: its RMA_TARGET, if it has one, goes into
 * the transfer's record as attributes. */
static int w_write(rt_writer *w, const rt_event *ev, rt_err *err)
{
    otf2w *o = w->impl;
    otf2w_rank *r = ev->thread ? thread_loc(o, ev) : &o->ranks[ev->rank];
    if (!r)
        return rt_err_set(err, RT_E_NOMEM, "%s: out of memory", w->path);
    if (!r->ew) {
        r->ew = OTF2_Archive_GetEvtWriter(o->archive, loc_ref(ev->rank, ev->thread));
        if (!r->ew)
            return rt__otf2_fail(err, RT_E_IO, w->path, "cannot open an event writer",
                                 OTF2_ERROR_INVALID);
    }
    OTF2_ErrorCode ec = OTF2_SUCCESS;
    int target = ev->kind == RT_EV_RMA_TARGET, done = 0;
    if (r->holding) {
        r->holding = 0;
        ec = emit(o, r, &w->defs, &r->held, target ? ev : NULL);
        done = target;
    }
    if (ec == OTF2_SUCCESS && !done) {
        if (ev->kind == RT_EV_RMA_PUT || ev->kind == RT_EV_RMA_GET ||
            ev->kind == RT_EV_RMA_ATOMIC) {
            r->held = *ev;
            r->holding = 1;
        } else {
            ec = emit(o, r, &w->defs, ev, NULL);
        }
    }
    if (ec != OTF2_SUCCESS)
        return rt__otf2_fail(err, RT_E_IO, w->path, "cannot write an event", ec);
    return 0;
}

/* ---- definitions, written at close -------------------------------------------------------- */

static OTF2_StringRef str(otf2w *o, const char *s, OTF2_ErrorCode *ec)
{
    OTF2_StringRef ref = o->nstrings++;
    if (*ec == OTF2_SUCCESS)
        *ec = OTF2_GlobalDefWriter_WriteString(o->gdw, ref, s);
    return ref;
}

static OTF2_RegionRole region_role(unsigned fn)
{
    switch (rt_func_class_of(fn)) {
    case RT_CLASS_P2P:
        return OTF2_REGION_ROLE_POINT2POINT;
    case RT_CLASS_COLL:
        return fn == RT_FN_Barrier || fn == RT_FN_Ibarrier ? OTF2_REGION_ROLE_BARRIER
                                                           : OTF2_REGION_ROLE_COLL_OTHER;
    case RT_CLASS_RMA:
        return OTF2_REGION_ROLE_RMA;
    default:
        return OTF2_REGION_ROLE_FUNCTION;
    }
}

/* The strings of the host properties (rt__otf2.h): the four names, and each host's name. */
typedef struct host_strings {
    OTF2_StringRef host, online, ncpus, cpus;
    OTF2_StringRef *name; /* per host */
} host_strings;

/* The parameters "retrace::OP" of the ops [from, to) of an event kind, of refs ref0 + op
 * (rt__otf2.h). */
static OTF2_ErrorCode op_params(otf2w *o, unsigned kind, unsigned from, unsigned to, unsigned ref0)
{
    OTF2_ErrorCode ec = OTF2_SUCCESS;
    for (unsigned op = from; op < to && ec == OTF2_SUCCESS; op++) {
        char name[64];
        snprintf(name, sizeof name, "%s%s", RT__OTF2_PARAM_REQUEST_PREFIX,
                 rt_event_op_name(kind, op));
        ec = OTF2_GlobalDefWriter_WriteParameter(o->gdw, ref0 + op, str(o, name, &ec),
                                                 OTF2_PARAMETER_TYPE_UINT64);
    }
    return ec;
}

static OTF2_ErrorCode host_strings_write(otf2w *o, const rt_defs *d, host_strings *hs)
{
    OTF2_ErrorCode ec = OTF2_SUCCESS;
    hs->name = NULL;
    if (!d->nhosts)
        return ec;
    if (!(hs->name = malloc((size_t)d->nhosts * sizeof *hs->name)))
        return OTF2_ERROR_MEM_ALLOC_FAILED;
    hs->host = str(o, RT__OTF2_PROP_HOST, &ec);
    hs->online = str(o, RT__OTF2_PROP_ONLINE, &ec);
    hs->ncpus = str(o, RT__OTF2_PROP_NCPUS, &ec);
    hs->cpus = str(o, RT__OTF2_PROP_CPUS, &ec);
    for (uint32_t h = 0; h < d->nhosts; h++)
        hs->name[h] = str(o, d->hosts[h].name, &ec);
    return ec;
}

/* Rank r's host properties, when its host is known. */
static OTF2_ErrorCode write_host(otf2w *o, const rt_defs *d, const host_strings *hs, uint32_t r)
{
    const rt_rank_host *rh = d->rank_host ? &d->rank_host[r] : NULL;
    if (!rh || rh->host == RT_ID_NONE)
        return OTF2_SUCCESS;
    OTF2_GlobalDefWriter *g = o->gdw;
    OTF2_AttributeValue v = {.stringRef = hs->name[rh->host]};
    OTF2_ErrorCode ec =
        OTF2_GlobalDefWriter_WriteLocationGroupProperty(g, r, hs->host, OTF2_TYPE_STRING, v);
    v.uint32 = d->hosts[rh->host].online;
    if (ec == OTF2_SUCCESS)
        ec = OTF2_GlobalDefWriter_WriteLocationGroupProperty(g, r, hs->online, OTF2_TYPE_UINT32, v);
    v.uint32 = rh->ncpus;
    if (ec == OTF2_SUCCESS)
        ec = OTF2_GlobalDefWriter_WriteLocationGroupProperty(g, r, hs->ncpus, OTF2_TYPE_UINT32, v);
    if (ec == OTF2_SUCCESS && rh->cpus) {
        v.stringRef = str(o, rh->cpus, &ec);
        if (ec == OTF2_SUCCESS)
            ec = OTF2_GlobalDefWriter_WriteLocationGroupProperty(g, r, hs->cpus, OTF2_TYPE_STRING,
                                                                 v);
    }
    return ec;
}

typedef struct placement {
    uint32_t module, node, rank;
} placement;

static int cmp_placement(const void *a, const void *b)
{
    const placement *x = a, *y = b;
    if (x->module != y->module)
        return x->module < y->module ? -1 : 1;
    if (x->node != y->node)
        return x->node < y->node ? -1 : 1;
    return x->rank < y->rank ? -1 : x->rank > y->rank;
}

/* machine > module > node; returns each rank's system tree node in tree_of[rank]. */
static OTF2_ErrorCode write_system_tree(otf2w *o, const rt_defs *d, uint32_t *tree_of)
{
    OTF2_ErrorCode ec = OTF2_SUCCESS;
    placement *p = malloc((size_t)d->nranks * sizeof *p);
    if (!p)
        return OTF2_ERROR_MEM_ALLOC_FAILED;
    for (uint32_t i = 0; i < d->nranks; i++)
        p[i] = (placement){d->module[i], d->node[i], i};
    qsort(p, d->nranks, sizeof *p, cmp_placement);
    OTF2_SystemTreeNodeRef next = 0, module_ref = 0, node_ref = 0;
    ec = OTF2_GlobalDefWriter_WriteSystemTreeNode(o->gdw, next++, str(o, "machine", &ec),
                                                  str(o, "machine", &ec),
                                                  OTF2_UNDEFINED_SYSTEM_TREE_NODE);
    char name[48];
    for (uint32_t i = 0; i < d->nranks && ec == OTF2_SUCCESS; i++) {
        int new_module = i == 0 || p[i].module != p[i - 1].module;
        if (new_module) {
            snprintf(name, sizeof name, "module %u", (unsigned)p[i].module);
            module_ref = next++;
            ec = OTF2_GlobalDefWriter_WriteSystemTreeNode(o->gdw, module_ref, str(o, name, &ec),
                                                          str(o, "module", &ec), 0);
        }
        if (ec == OTF2_SUCCESS && (new_module || p[i].node != p[i - 1].node)) {
            snprintf(name, sizeof name, "node %u", (unsigned)p[i].node);
            node_ref = next++;
            ec = OTF2_GlobalDefWriter_WriteSystemTreeNode(o->gdw, node_ref, str(o, name, &ec),
                                                          str(o, "node", &ec), module_ref);
        }
        tree_of[p[i].rank] = node_ref;
    }
    free(p);
    return ec;
}

static OTF2_ErrorCode write_group(otf2w *o, OTF2_GroupRef ref, const char *name,
                                  OTF2_GroupType type, uint32_t n, const uint32_t *members)
{
    OTF2_ErrorCode ec = OTF2_SUCCESS;
    uint64_t *m = malloc(((size_t)n + 1) * sizeof *m);
    if (!m)
        return OTF2_ERROR_MEM_ALLOC_FAILED;
    for (uint32_t i = 0; i < n; i++)
        m[i] = members ? members[i] : i;
    OTF2_StringRef s = *name ? str(o, name, &ec) : o->empty;
    if (ec == OTF2_SUCCESS)
        ec = OTF2_GlobalDefWriter_WriteGroup(o->gdw, ref, s, type, OTF2_PARADIGM_MPI,
                                             OTF2_GROUP_FLAG_NONE, n, m);
    free(m);
    return ec;
}

/* A neighbour list as a group of communicator ranks, OTF2_UNDEFINED_UINT64 for
 * MPI_PROC_NULL (see rt__otf2.h). */
static OTF2_ErrorCode write_nbr_group(otf2w *o, OTF2_GroupRef ref, uint32_t n, const int32_t *v)
{
    uint64_t *m = malloc(((size_t)n + 1) * sizeof *m);
    if (!m)
        return OTF2_ERROR_MEM_ALLOC_FAILED;
    for (uint32_t i = 0; i < n; i++)
        m[i] = v[i] == RT_PEER_NONE ? OTF2_UNDEFINED_UINT64 : (uint64_t)v[i];
    OTF2_ErrorCode ec =
        OTF2_GlobalDefWriter_WriteGroup(o->gdw, ref, o->empty, OTF2_GROUP_TYPE_UNKNOWN,
                                        OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE, n, m);
    free(m);
    return ec;
}

/* Each rank's neighbour lists: a group per list (one for both when they are equal, as in
 * Cartesian and graph topologies) and a property of the rank's location group naming it. */
static OTF2_ErrorCode write_nbrs(otf2w *o, const rt_defs *d, OTF2_GroupRef next)
{
    if (!d->nnbrs)
        return OTF2_SUCCESS;
    OTF2_ErrorCode ec = OTF2_SUCCESS;
    /* property names per communicator, written on first use */
    OTF2_StringRef *names = malloc(2 * (size_t)d->ncomms * sizeof *names);
    if (!names)
        return OTF2_ERROR_MEM_ALLOC_FAILED;
    for (size_t i = 0; i < 2 * (size_t)d->ncomms; i++)
        names[i] = OTF2_UNDEFINED_STRING;
    for (uint32_t i = 0; i < d->nnbrs && ec == OTF2_SUCCESS; i++) {
        const rt_nbr_def *n = &d->nbrs[i];
        uint32_t c = comm_ref(d, n->comm);
        if (names[2 * c] == OTF2_UNDEFINED_STRING) {
            char name[64];
            snprintf(name, sizeof name, "%s%u", RT__OTF2_PROP_SOURCES, (unsigned)c);
            names[2 * c] = str(o, name, &ec);
            snprintf(name, sizeof name, "%s%u", RT__OTF2_PROP_DESTS, (unsigned)c);
            names[2 * c + 1] = str(o, name, &ec);
        }
        int same = n->nin == n->nout && !memcmp(n->in, n->out, (size_t)n->nin * sizeof *n->in);
        OTF2_AttributeValue v;
        v.groupRef = next++;
        if (ec == OTF2_SUCCESS)
            ec = write_nbr_group(o, v.groupRef, n->nin, n->in);
        if (ec == OTF2_SUCCESS)
            ec = OTF2_GlobalDefWriter_WriteLocationGroupProperty(o->gdw, n->rank, names[2 * c],
                                                                 OTF2_TYPE_GROUP, v);
        if (!same) {
            v.groupRef = next++;
            if (ec == OTF2_SUCCESS)
                ec = write_nbr_group(o, v.groupRef, n->nout, n->out);
        }
        if (ec == OTF2_SUCCESS)
            ec = OTF2_GlobalDefWriter_WriteLocationGroupProperty(o->gdw, n->rank, names[2 * c + 1],
                                                                 OTF2_TYPE_GROUP, v);
    }
    free(names);
    return ec;
}

/* Group refs, ascending as OTF2 wants them: the COMM_LOCATIONS group (0), our groups
 * (ref = position + 1, see group_ref), the groups behind each communicator, then the
 * neighbour lists (write_nbrs). */
static OTF2_ErrorCode write_comms(otf2w *o, const rt_defs *d)
{
    OTF2_ErrorCode ec = OTF2_SUCCESS;
    char name[48];
    ec = write_group(o, 0, "", OTF2_GROUP_TYPE_COMM_LOCATIONS, d->nranks, NULL);
    for (uint32_t i = 0; i < d->ngroups && ec == OTF2_SUCCESS; i++) {
        snprintf(name, sizeof name, "MPI_Group %u", (unsigned)d->groups[i].id);
        ec = write_group(o, i + 1, name, OTF2_GROUP_TYPE_COMM_GROUP, d->groups[i].size,
                         d->groups[i].members);
    }
    OTF2_GroupRef next = d->ngroups + 1;
    for (uint32_t i = 0; i < d->ncomms && ec == OTF2_SUCCESS; i++) {
        const rt_comm_def *c = &d->comms[i];
        OTF2_CommRef parent =
            c->parent == RT_ID_NONE ? OTF2_UNDEFINED_COMM : comm_ref(d, c->parent);
        OTF2_GroupRef ga = next++;
        if (c->flags & RT_COMM_IS_SELF)
            ec = write_group(o, ga, "", OTF2_GROUP_TYPE_COMM_SELF, 0, NULL);
        else
            ec = write_group(o, ga, "", OTF2_GROUP_TYPE_COMM_GROUP, c->size, c->members);
        OTF2_StringRef cname = str(o, c->name, &ec);
        if (ec != OTF2_SUCCESS)
            break;
        if (c->flags & RT_COMM_IS_INTER) {
            OTF2_GroupRef gb = next++;
            ec = write_group(o, gb, "", OTF2_GROUP_TYPE_COMM_GROUP, c->remote_size,
                             c->members + c->size);
            if (ec == OTF2_SUCCESS)
                ec = OTF2_GlobalDefWriter_WriteInterComm(o->gdw, i, cname, ga, gb, parent,
                                                         OTF2_COMM_FLAG_NONE);
        } else {
            ec = OTF2_GlobalDefWriter_WriteComm(o->gdw, i, cname, ga, parent, OTF2_COMM_FLAG_NONE);
        }
    }
    for (uint32_t i = 0; i < d->nwins && ec == OTF2_SUCCESS; i++) {
        const char *wname = rt__otf2_win_name(&d->wins[i], name, sizeof name);
        ec = OTF2_GlobalDefWriter_WriteRmaWin(o->gdw, i, str(o, wname, &ec),
                                              comm_ref(d, d->wins[i].comm), OTF2_RMA_WIN_FLAG_NONE);
    }
    if (ec == OTF2_SUCCESS)
        ec = write_nbrs(o, d, next);
    return ec;
}

static OTF2_ErrorCode write_global_defs(otf2w *o, const rt_defs *d)
{
    OTF2_ErrorCode ec = OTF2_GlobalDefWriter_WriteClockProperties(o->gdw, 1000000000u, 0, o->tmax,
                                                                  OTF2_UNDEFINED_TIMESTAMP);
    OTF2_StringRef empty = o->empty = str(o, "", &ec);
    if (ec == OTF2_SUCCESS)
        ec = OTF2_GlobalDefWriter_WriteParadigm(o->gdw, OTF2_PARADIGM_MPI, str(o, "MPI", &ec),
                                                OTF2_PARADIGM_CLASS_PROCESS);
    for (unsigned i = 0; i < RT__ATTR_COUNT && ec == OTF2_SUCCESS; i++)
        ec = OTF2_GlobalDefWriter_WriteAttribute(o->gdw, i, str(o, rt__otf2_attr_names[i], &ec),
                                                 str(o, rt__otf2_attr_desc[i], &ec),
                                                 rt__otf2_attr_type[i]);
    if (ec == OTF2_SUCCESS)
        ec = OTF2_GlobalDefWriter_WriteParameter(o->gdw, RT__OTF2_PARAM_PENDING_REF,
                                                 str(o, RT__OTF2_PARAM_PENDING, &ec),
                                                 OTF2_PARAMETER_TYPE_UINT64);
    if (ec == OTF2_SUCCESS)
        ec = OTF2_GlobalDefWriter_WriteParameter(o->gdw, RT__OTF2_PARAM_PEER_REF,
                                                 str(o, RT__OTF2_PARAM_PEER, &ec),
                                                 OTF2_PARAMETER_TYPE_UINT64);
    if (ec == OTF2_SUCCESS)
        ec = OTF2_GlobalDefWriter_WriteParameter(o->gdw, RT__OTF2_PARAM_ERROR_REF,
                                                 str(o, RT__OTF2_PARAM_ERROR, &ec),
                                                 OTF2_PARAMETER_TYPE_INT64);
    if (ec == OTF2_SUCCESS)
        ec = OTF2_GlobalDefWriter_WriteParameter(o->gdw, RT__OTF2_PARAM_REQUEST_FREE_REF,
                                                 str(o, RT__OTF2_PARAM_REQUEST_FREE, &ec),
                                                 OTF2_PARAMETER_TYPE_UINT64);
    if (ec == OTF2_SUCCESS)
        ec = op_params(o, RT_EV_REQUEST_FREE, RT_REQH_FREE + 1, RT_REQH_COUNT,
                       RT__OTF2_PARAM_REQUEST_FREE_REF);
    if (ec == OTF2_SUCCESS)
        ec = op_params(o, RT_EV_HANDLE, 0, RT_HANDLE_COUNT, RT__OTF2_PARAM_HANDLE_REF);
    if (ec == OTF2_SUCCESS)
        ec = op_params(o, RT_EV_WIN_ATTACH, 0, RT_WATTACH_COUNT, RT__OTF2_PARAM_WIN_ATTACH_REF);
    if (ec == OTF2_SUCCESS)
        ec = op_params(o, RT_EV_BUFFER, 0, RT_BUF_COUNT, RT__OTF2_PARAM_BUFFER_REF);
    for (unsigned fn = 1; fn < RT_FN_COUNT && ec == OTF2_SUCCESS; fn++) {
        OTF2_StringRef s = str(o, rt_func_name(fn), &ec);
        ec =
            OTF2_GlobalDefWriter_WriteRegion(o->gdw, fn - 1, s, s, empty, region_role(fn),
                                             OTF2_PARADIGM_MPI, OTF2_REGION_FLAG_NONE, empty, 0, 0);
    }
    uint32_t *tree_of = malloc((size_t)d->nranks * sizeof *tree_of);
    if (!tree_of)
        return OTF2_ERROR_MEM_ALLOC_FAILED;
    if (ec == OTF2_SUCCESS)
        ec = write_system_tree(o, d, tree_of);
    OTF2_StringRef s_node = str(o, RT__OTF2_PROP_NODE, &ec);
    OTF2_StringRef s_module = str(o, RT__OTF2_PROP_MODULE, &ec);
    OTF2_StringRef s_thread = str(o, "Master thread", &ec);
    host_strings hs = {.name = NULL};
    if (ec == OTF2_SUCCESS)
        ec = host_strings_write(o, d, &hs);
    char name[48];
    for (uint32_t r = 0; r < d->nranks && ec == OTF2_SUCCESS; r++) {
        snprintf(name, sizeof name, "MPI Rank %u", (unsigned)r);
        ec = OTF2_GlobalDefWriter_WriteLocationGroup(o->gdw, r, str(o, name, &ec),
                                                     OTF2_LOCATION_GROUP_TYPE_PROCESS, tree_of[r],
                                                     OTF2_UNDEFINED_LOCATION_GROUP);
        OTF2_AttributeValue v;
        v.uint32 = d->node[r];
        if (ec == OTF2_SUCCESS)
            ec = OTF2_GlobalDefWriter_WriteLocationGroupProperty(o->gdw, r, s_node,
                                                                 OTF2_TYPE_UINT32, v);
        v.uint32 = d->module[r];
        if (ec == OTF2_SUCCESS)
            ec = OTF2_GlobalDefWriter_WriteLocationGroupProperty(o->gdw, r, s_module,
                                                                 OTF2_TYPE_UINT32, v);
        if (ec == OTF2_SUCCESS)
            ec = write_host(o, d, &hs, r);
        if (ec == OTF2_SUCCESS)
            ec = OTF2_GlobalDefWriter_WriteLocation(
                o->gdw, r, s_thread, OTF2_LOCATION_TYPE_CPU_THREAD, o->ranks[r].nevents, r);
        for (unsigned t = 1; t <= RT_THREAD_MAX && o->threads[r] && ec == OTF2_SUCCESS; t++) {
            const otf2w_rank *l = &o->threads[r][t - 1];
            if (!l->used)
                continue;
            snprintf(name, sizeof name, "Pthread thread %u", t);
            ec = OTF2_GlobalDefWriter_WriteLocation(o->gdw, loc_ref(r, t), str(o, name, &ec),
                                                    OTF2_LOCATION_TYPE_CPU_THREAD, l->nevents, r);
        }
    }
    free(hs.name);
    free(tree_of);
    if (ec == OTF2_SUCCESS)
        ec = write_comms(o, d);
    return ec;
}

static void otf2w_free(otf2w *o)
{
    if (o->attrs)
        OTF2_AttributeList_Delete(o->attrs);
    if (o->threads)
        for (size_t r = 0; r < o->nranks; r++)
            free(o->threads[r]);
    free(o->threads);
    free(o->ranks);
    free(o);
}

static int w_close(rt_writer *w, rt_err *err)
{
    otf2w *o = w->impl;
    const rt_defs *d = &w->defs;
    OTF2_ErrorCode ec = OTF2_SUCCESS;
    const char *what = "cannot finish the event files";
    /* Every location gets an event file, even an empty one, so that every OTF2 reader
     * finds what the definitions announce. */
    for (uint32_t r = 0; r < d->nranks && ec == OTF2_SUCCESS; r++) { /* a rank's last transfer */
        if (o->ranks[r].holding) {
            o->ranks[r].holding = 0;
            what = "cannot write an event";
            ec = emit(o, &o->ranks[r], d, &o->ranks[r].held, NULL);
        }
        for (unsigned t = 1; t <= RT_THREAD_MAX && o->threads[r] && ec == OTF2_SUCCESS; t++) {
            otf2w_rank *l = &o->threads[r][t - 1];
            if (l->holding) {
                l->holding = 0;
                what = "cannot write an event";
                ec = emit(o, l, d, &l->held, NULL);
            }
        }
    }
    if (ec == OTF2_SUCCESS)
        what = "cannot finish the event files";
    for (uint32_t r = 0; r < d->nranks && ec == OTF2_SUCCESS; r++) {
        if (!o->ranks[r].ew)
            o->ranks[r].ew = OTF2_Archive_GetEvtWriter(o->archive, r);
        ec = o->ranks[r].ew ? OTF2_Archive_CloseEvtWriter(o->archive, o->ranks[r].ew)
                            : OTF2_ERROR_INVALID;
        o->ranks[r].ew = NULL;
        for (unsigned t = 1; t <= RT_THREAD_MAX && o->threads[r] && ec == OTF2_SUCCESS; t++) {
            otf2w_rank *l = &o->threads[r][t - 1];
            if (l->ew)
                ec = OTF2_Archive_CloseEvtWriter(o->archive, l->ew);
            l->ew = NULL;
        }
    }
    if (ec == OTF2_SUCCESS)
        ec = OTF2_Archive_CloseEvtFiles(o->archive);
    if (ec == OTF2_SUCCESS) {
        what = "cannot write the local definitions";
        ec = OTF2_Archive_OpenDefFiles(o->archive);
        for (uint32_t r = 0; r < d->nranks && ec == OTF2_SUCCESS; r++) {
            OTF2_DefWriter *dw = OTF2_Archive_GetDefWriter(o->archive, r);
            ec = dw ? OTF2_Archive_CloseDefWriter(o->archive, dw) : OTF2_ERROR_INVALID;
            for (unsigned t = 1; t <= RT_THREAD_MAX && o->threads[r] && ec == OTF2_SUCCESS; t++) {
                if (!o->threads[r][t - 1].used)
                    continue;
                dw = OTF2_Archive_GetDefWriter(o->archive, loc_ref(r, t));
                ec = dw ? OTF2_Archive_CloseDefWriter(o->archive, dw) : OTF2_ERROR_INVALID;
            }
        }
        if (ec == OTF2_SUCCESS)
            ec = OTF2_Archive_CloseDefFiles(o->archive);
    }
    if (ec == OTF2_SUCCESS) {
        what = "cannot write the global definitions";
        o->gdw = OTF2_Archive_GetGlobalDefWriter(o->archive);
        ec = o->gdw ? write_global_defs(o, d) : OTF2_ERROR_INVALID;
    }
    if (ec == OTF2_SUCCESS && w->truncated) {
        what = "cannot note that the trace was cut short";
        ec = OTF2_Archive_SetProperty(o->archive, RT__TRUNCATED_PROPERTY, w->truncated, true);
    }
    if (ec == OTF2_SUCCESS && (d->flags & RT_DEFS_COLL_PEERS)) {
        what = "cannot note that the trace records per-peer counts";
        ec = OTF2_Archive_SetProperty(o->archive, RT__PEER_COUNTS_PROPERTY, "1", true);
    }
    if (ec == OTF2_SUCCESS && (d->flags & RT_DEFS_ELEM_SIZES)) {
        what = "cannot note that the trace records element sizes";
        ec = OTF2_Archive_SetProperty(o->archive, RT__ELEM_SIZES_PROPERTY, "1", true);
    }
    if (ec == OTF2_SUCCESS && (d->flags & RT_DEFS_BUFFERS)) {
        what = "cannot note that the trace records buffers";
        ec = OTF2_Archive_SetProperty(o->archive, RT__BUFFERS_PROPERTY, "1", true);
    }
    if (ec == OTF2_SUCCESS) {
        what = "cannot write the info keys of the windows";
        ec = rt__otf2_write_win_info(o->archive, d);
    }
    if (ec == OTF2_SUCCESS && d->library[0]) {
        what = "cannot note the MPI library";
        ec = OTF2_Archive_SetProperty(o->archive, RT__MPI_LIBRARY_PROPERTY, d->library, true);
    }
    OTF2_ErrorCode ec2 = OTF2_Archive_Close(o->archive);
    if (ec == OTF2_SUCCESS && ec2 != OTF2_SUCCESS) {
        what = "cannot close the archive";
        ec = ec2;
    }
    otf2w_free(o);
    if (ec != OTF2_SUCCESS)
        return rt__otf2_fail(err, RT_E_IO, w->path, what, ec);
    return 0;
}

static void remove_tree(const char *path)
{
    DIR *d = opendir(path);
    if (!d) {
        unlink(path);
        return;
    }
    struct dirent *e;
    while ((e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        size_t n = strlen(path) + strlen(e->d_name) + 2;
        char *p = malloc(n);
        if (p) {
            snprintf(p, n, "%s/%s", path, e->d_name);
            remove_tree(p);
            free(p);
        }
    }
    closedir(d);
    rmdir(path);
}

int rt_trace_remove(const char *path, rt_err *err)
{
    struct stat st;
    if (lstat(path, &st) != 0) {
        int e = errno, rc = rt__ti_remove_files(path, err); /* a TI index gone, its files not */
        if (rc)
            return rc < 0 ? rc : 0;
        return rt_err_set(err, RT_E_NOTFOUND, "%s: %s", path, strerror(e));
    }
    if (!S_ISDIR(st.st_mode)) {
        if (unlink(path) != 0)
            return rt_err_set(err, RT_E_IO, "%s: cannot remove: %s", path, strerror(errno));
        int rc = rt__ti_remove_files(path, err); /* a TI index: its rank files too */
        return rc < 0 ? rc : 0;
    }
    static const char *const parts[] = {RT__OTF2_ARCHIVE_NAME ".otf2", RT__OTF2_ARCHIVE_NAME ".def",
                                        RT__OTF2_ARCHIVE_NAME};
    size_t len = strlen(path) + 32;
    char *p = malloc(len);
    if (!p)
        return rt_err_set(err, RT_E_NOMEM, "%s: out of memory", path);
    snprintf(p, len, "%s/%s", path, parts[0]);
    if (access(p, F_OK) != 0) {
        free(p);
        return rt_err_set(err, RT_E_INVAL, "%s: not an OTF2 archive written by retrace", path);
    }
    for (size_t i = 0; i < sizeof parts / sizeof *parts; i++) {
        snprintf(p, len, "%s/%s", path, parts[i]);
        remove_tree(p);
    }
    free(p);
    rmdir(path);
    return 0;
}

static void w_abort(rt_writer *w)
{
    otf2w *o = w->impl;
    OTF2_Archive_Close(o->archive);
    if (o->made_dir)
        remove_tree(w->path);
    otf2w_free(o);
}

static const rt__writer_ops otf2_writer_ops = {
    .write = w_write,
    .close = w_close,
    .abort = w_abort,
};

/* The archive directory must be new or empty: never mix two runs in one archive. */
static int check_target(const char *path, int *made, rt_err *err)
{
    DIR *d = opendir(path);
    if (!d) {
        if (errno != ENOENT)
            return rt_err_set(err, RT_E_IO, "%s: %s", path, strerror(errno));
        if (mkdir(path, 0777) != 0)
            return rt_err_set(err, RT_E_IO, "%s: cannot create directory: %s", path,
                              strerror(errno));
        *made = 1;
        return 0;
    }
    closedir(d);
    if (!rt_path_is_free(path))
        return rt_err_set(err, RT_E_INVAL, "%s: directory exists and is not empty", path);
    return 0;
}

int rt__otf2_create(rt_writer *w, rt_err *err)
{
    rt__otf2_quiet();
    otf2w *o = calloc(1, sizeof *o);
    if (!o || !(o->ranks = calloc(w->defs.nranks, sizeof *o->ranks)) ||
        !(o->threads = calloc(w->defs.nranks, sizeof *o->threads)) ||
        !(o->attrs = OTF2_AttributeList_New())) {
        if (o)
            otf2w_free(o);
        return rt_err_set(err, RT_E_NOMEM, "%s: out of memory", w->path);
    }
    o->nranks = w->defs.nranks;
    o->sizes = (w->defs.flags & RT_DEFS_ELEM_SIZES) != 0;
    int rc = check_target(w->path, &o->made_dir, err);
    if (rc) {
        otf2w_free(o);
        return rc;
    }
    /* Small event chunks: a writer holds one chunk per rank in memory. */
    o->archive = OTF2_Archive_Open(w->path, RT__OTF2_ARCHIVE_NAME, OTF2_FILEMODE_WRITE,
                                   OTF2_CHUNK_SIZE_MIN, OTF2_CHUNK_SIZE_DEFINITIONS_DEFAULT,
                                   OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
    OTF2_ErrorCode ec = o->archive ? OTF2_SUCCESS : OTF2_ERROR_INVALID;
    if (ec == OTF2_SUCCESS)
        ec = OTF2_Archive_SetFlushCallbacks(o->archive, &flush_callbacks, NULL);
    if (ec == OTF2_SUCCESS)
        ec = OTF2_Archive_SetSerialCollectiveCallbacks(o->archive);
    if (ec == OTF2_SUCCESS)
        ec = OTF2_Archive_SetCreator(o->archive, "retrace");
    if (ec == OTF2_SUCCESS)
        ec = OTF2_Archive_SetDescription(o->archive, "MPI trace written by retrace");
    if (ec == OTF2_SUCCESS)
        ec = OTF2_Archive_OpenEvtFiles(o->archive);
    if (ec != OTF2_SUCCESS) {
        if (o->archive)
            OTF2_Archive_Close(o->archive);
        if (o->made_dir)
            remove_tree(w->path);
        otf2w_free(o);
        return rt__otf2_fail(err, RT_E_IO, w->path, "cannot create the OTF2 archive", ec);
    }
    w->impl = o;
    w->ops = &otf2_writer_ops;
    return 0;
}
