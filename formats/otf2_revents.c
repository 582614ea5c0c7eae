/*
 * OTF2 reader, the events: OTF2's event records turned into rt_events of the current rank
 * (rt__otf2r_event_callbacks), with our attributes where our writer put them and defaults
 * from the record and the call where it did not (Score-P's archives). otf2_reader.c reads the
 * ranks with them. Each callback sets only the fields of its event's kind (rt_event_kind_mask),
 * the rest 0, so that the events need no normalising (rt__reader_check_block).
 */
#include <string.h>

#include "rt__otf2r.h"

/* ---- events --------------------------------------------------------------------------------- */

static uint32_t innermost(const otf2r *o)
{
    return o->depth && o->depth <= CALL_STACK ? o->stack[o->depth - 1] : RT_FN_NONE;
}

/* The record carries our attribute which, of its type (read_attrs). */
static inline int has_attr(const otf2r *o, int which)
{
    return o->attr_have >> which & 1;
}

/* The nanoseconds of ticks of a clock of another resolution than ours (1 ns; out of line, so
 * that begin stays small for our archives). A clock coarser than 1 ns may take them past what
 * an event's time holds (2^64 - 1 ns): such a time stamp is noted, and r_next stops before it
 * goes out. */
static uint64_t other_ns(otf2r *o, uint64_t ticks, uint64_t pos) __attribute__((noinline));
static uint64_t other_ns(otf2r *o, uint64_t ticks, uint64_t pos)
{
    unsigned __int128 ns = (unsigned __int128)ticks * 1000000000u / o->resolution;
    if (ns <= UINT64_MAX)
        return (uint64_t)ns;
    if (!o->time_past) {
        o->time_past = 1;
        o->time_past_ticks = ticks;
        o->time_past_pos = pos;
        o->read_end = 0;
    }
    return UINT64_MAX;
}

_Static_assert(RT__ATTR_COUNT <= 16, "our attributes are bits of otf2r.attr_tab");

/* Which of our attributes (bits of RT__ATTR_*) the attribute ref id is. */
static uint32_t attr_bits(const otf2r *o, OTF2_AttributeRef id)
{
    if (id < RT__OTF2R_ATTR_TAB)
        return o->attr_tab[id];
    uint32_t bits = 0;
    for (unsigned i = 0; i < RT__ATTR_COUNT; i++)
        if (o->attr_ref[i] == id && id != OTF2_UNDEFINED_ATTRIBUTE)
            bits |= 1u << i;
    return bits;
}

/* The record's attribute list in one pass (out of line: enter and leave read none, and begin
 * stays small): each of our attributes into o->attr_val, its bit in o->attr_have when its
 * first entry has our type. That is what OTF2's typed getters give (the first entry of the
 * ref; a wrong type is an error, read as absent), for one walk of the list instead of a test
 * and a get by id, a scan each, per attribute. The list is the reader's for this record only:
 * popping empties it, as OTF2 does before the next one. */
static void __attribute__((noinline)) read_attrs(otf2r *o, OTF2_AttributeList *a)
{
    uint32_t seen = 0, have = 0;
    for (uint32_t n = OTF2_AttributeList_GetNumberOfElements(a); n; n--) {
        OTF2_AttributeRef id;
        OTF2_Type type;
        OTF2_AttributeValue v;
        if (OTF2_AttributeList_PopAttribute(a, &id, &type, &v) != OTF2_SUCCESS)
            break;
        uint32_t bits = attr_bits(o, id) & ~seen;
        seen |= bits;
        for (; bits; bits &= bits - 1) {
            unsigned i = (unsigned)__builtin_ctz(bits);
            if (type == rt__otf2_attr_type[i]) {
                have |= 1u << i;
                o->attr_val[i] = v;
            }
        }
    }
    o->attr_have = have;
}

/* Starts the event of the record being read, at the block's free slot (o->blk[o->nblk], which
 * it takes; o->last: its index, o->pos: its record): time, rank, kind, default call and the
 * attributes, every other field 0 (written once, as a whole, not cleared and then filled). A
 * record begins one event at most; an RMA transfer's target takes the slot after it. */
static inline rt_event *begin(otf2r *o, unsigned kind, OTF2_TimeStamp t, uint64_t pos,
                              OTF2_AttributeList *a)
{
    size_t at = o->nblk++;
    rt_event *ev = &o->blk[at];
    o->last = at;
    o->pos[at] = pos;
    o->pending = 1;
    o->position = pos;
    uint64_t ticks = t >= o->offset ? t - o->offset : 0;
    uint16_t call = (uint16_t)innermost(o);
    uint8_t contype = 0;
    o->attr_have = 0;
    if (a && OTF2_AttributeList_GetNumberOfElements(a)) {
        read_attrs(o, a);
        if (has_attr(o, RT__ATTR_CONTYPE))
            contype = o->attr_val[RT__ATTR_CONTYPE].uint8;
        if (has_attr(o, RT__ATTR_CALL)) {
            uint32_t u32 = o->attr_val[RT__ATTR_CALL].uint32;
            call = (uint16_t)(u32 < RT_FN_COUNT ? u32 : RT_FN_COUNT);
        }
    }
    *ev = (rt_event){
        .time = o->resolution == 1000000000u ? ticks : other_ns(o, ticks, pos),
        .rank = o->cur,
        .call = call,
        .kind = (uint8_t)kind,
        /* a kind without a connection type has none (rt_event_normalize), whatever the record
         * says: the callbacks set only the fields of their kind (rt__reader_check_block) */
        .contype = rt_event_kind_mask(kind) & RT_FIELD_CONTYPE ? contype : (uint8_t)RT_CT_NONE,
    };
    return ev;
}

/* The element sizes of the event just read (RT__ATTR_ESIZE, else rt_esize_default), in an
 * archive that records them. */
static void sizes(otf2r *o, rt_event *ev)
{
    if (!rt_event_has_esize(ev->kind))
        return;
    int have = has_attr(o, RT__ATTR_ESIZE);
    uint16_t esz = o->attr_val[RT__ATTR_ESIZE].uint16;
    unsigned s = have ? esz & 0xffu : rt_esize_default(ev->bytes);
    unsigned rs = have ? (unsigned)esz >> 8 : rt_esize_default(ev->rbytes);
    ev->esize = (uint8_t)(s <= RT_ESIZE_CODE_MAX ? s : 0);
    ev->resize = (uint8_t)(rs <= RT_ESIZE_CODE_MAX ? rs : 0);
}

/* The end of a callback that began an event: its element sizes, once the record's byte counts
 * are in; OTF2 stops reading (ReadLocalEvents returns OTF2_ERROR_INTERRUPTED_BY_CALLBACK, and
 * may be called again) once the block is full or a time stamp was past what an event holds,
 * so that one call reads the records of a whole block. */
static inline OTF2_CallbackCode done(otf2r *o)
{
    if (o->sizes)
        sizes(o, &o->blk[o->last]);
    return o->nblk >= RT__OTF2R_BLOCK || o->time_past ? OTF2_CALLBACK_INTERRUPT
                                                      : OTF2_CALLBACK_SUCCESS;
}

/* The op: our attribute if present, else what the record and the call say. */
static void set_op(otf2r *o, rt_event *ev, unsigned v)
{
    if (has_attr(o, RT__ATTR_OP))
        ev->op = o->attr_val[RT__ATTR_OP].uint8;
    else
        ev->op = (uint8_t)rt__otf2_default_op(ev->kind, v, ev->call);
}

static int32_t peer_i32(uint32_t v, int32_t undefined)
{
    return v == OTF2_UNDEFINED_UINT32 ? undefined : (int32_t)v;
}

#define CB_ARGS \
    OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t pos, void *data, OTF2_AttributeList *a
#define OK OTF2_CALLBACK_SUCCESS

static OTF2_CallbackCode ev_enter(CB_ARGS, OTF2_RegionRef region)
{
    otf2r *o = data;
    unsigned fn = rt__otf2r_region_fn(o, region);
    o->position = pos;
    if (fn != RT_FN_NONE)
        begin(o, RT_EV_ENTER, t, pos, NULL)->call = (uint16_t)fn;
    if (o->depth < CALL_STACK)
        o->stack[o->depth] = (uint16_t)fn;
    o->depth++;
    return fn != RT_FN_NONE ? done(o) : OK;
}

static OTF2_CallbackCode ev_leave(CB_ARGS, OTF2_RegionRef region)
{
    otf2r *o = data;
    unsigned fn = rt__otf2r_region_fn(o, region);
    o->position = pos;
    if (fn != RT_FN_NONE)
        begin(o, RT_EV_LEAVE, t, pos, NULL)->call = (uint16_t)fn;
    if (o->depth && (o->depth > CALL_STACK || o->stack[o->depth - 1] == fn))
        o->depth--;
    return fn != RT_FN_NONE ? done(o) : OK;
}

static OTF2_CallbackCode p2p(otf2r *o, unsigned kind, OTF2_TimeStamp t, uint64_t pos,
                             OTF2_AttributeList *a, uint32_t peer, OTF2_CommRef comm, uint32_t tag,
                             uint64_t len, uint64_t req)
{
    rt_event *ev = begin(o, kind, t, pos, a);
    ev->peer = peer_i32(peer, RT_PEER_NONE);
    ev->comm = comm;
    ev->tag = (int32_t)tag;
    ev->bytes = len;
    ev->req = req;
    if (kind == RT_EV_RECV || kind == RT_EV_IRECV || kind == RT_EV_ISEND)
        set_op(o, ev, 0); /* wildcards, partitioned: 0 unless the attribute says otherwise */
    return done(o);
}

static OTF2_CallbackCode ev_send(CB_ARGS, uint32_t peer, OTF2_CommRef c, uint32_t tag, uint64_t len)
{
    return p2p(data, RT_EV_SEND, t, pos, a, peer, c, tag, len, 0);
}

static OTF2_CallbackCode ev_isend(CB_ARGS, uint32_t peer, OTF2_CommRef c, uint32_t tag,
                                  uint64_t len, uint64_t req)
{
    return p2p(data, RT_EV_ISEND, t, pos, a, peer, c, tag, len, req);
}

static OTF2_CallbackCode ev_recv(CB_ARGS, uint32_t peer, OTF2_CommRef c, uint32_t tag, uint64_t len)
{
    return p2p(data, RT_EV_RECV, t, pos, a, peer, c, tag, len, 0);
}

static OTF2_CallbackCode ev_irecv(CB_ARGS, uint32_t peer, OTF2_CommRef c, uint32_t tag,
                                  uint64_t len, uint64_t req)
{
    return p2p(data, RT_EV_IRECV, t, pos, a, peer, c, tag, len, req);
}

static OTF2_CallbackCode req_event(otf2r *o, unsigned kind, OTF2_TimeStamp t, uint64_t pos,
                                   OTF2_AttributeList *a, uint64_t req)
{
    begin(o, kind, t, pos, a)->req = req;
    return done(o);
}

static OTF2_CallbackCode ev_isend_complete(CB_ARGS, uint64_t req)
{
    return req_event(data, RT_EV_ISEND_COMPLETE, t, pos, a, req);
}

static OTF2_CallbackCode ev_irecv_request(CB_ARGS, uint64_t req)
{
    return req_event(data, RT_EV_IRECV_REQUEST, t, pos, a, req);
}

static OTF2_CallbackCode ev_cancelled(CB_ARGS, uint64_t req)
{
    return req_event(data, RT_EV_REQUEST_CANCELLED, t, pos, a, req);
}

static OTF2_CallbackCode ev_nbc_request(CB_ARGS, uint64_t req)
{
    return req_event(data, RT_EV_NBC_REQUEST, t, pos, a, req);
}

static OTF2_CallbackCode ev_coll_begin(CB_ARGS)
{
    begin(data, RT_EV_COLL_BEGIN, t, pos, a);
    return done(data);
}

static OTF2_CallbackCode coll_end(otf2r *o, unsigned kind, OTF2_TimeStamp t, uint64_t pos,
                                  OTF2_AttributeList *a, OTF2_CollectiveOp op, OTF2_CommRef c,
                                  uint32_t root, uint64_t sent, uint64_t received, uint64_t req)
{
    rt_event *ev = begin(o, kind, t, pos, a);
    ev->comm = c;
    ev->peer = peer_i32(root, RT_PEER_NONE);
    ev->bytes = sent;
    ev->rbytes = received;
    ev->req = req;
    set_op(o, ev, op);
    o->row_comm = c;
    o->row_op = ev->op;
    return done(o);
}

static OTF2_CallbackCode ev_coll_end(CB_ARGS, OTF2_CollectiveOp op, OTF2_CommRef c, uint32_t root,
                                     uint64_t sent, uint64_t received)
{
    return coll_end(data, RT_EV_COLL_END, t, pos, a, op, c, root, sent, received, 0);
}

static OTF2_CallbackCode ev_nbc_complete(CB_ARGS, OTF2_CollectiveOp op, OTF2_CommRef c,
                                         uint32_t root, uint64_t sent, uint64_t received,
                                         uint64_t req)
{
    return coll_end(data, RT_EV_NBC_COMPLETE, t, pos, a, op, c, root, sent, received, req);
}

/* The event of a kind whose ops are parameters of their own (rt__otf2.h), when param is one of
 * refs[0 .. n): the op its index, the request or handle id its value. 1 when it began one. */
static int op_event(otf2r *o, unsigned kind, const uint32_t *refs, unsigned n,
                    OTF2_ParameterRef param, OTF2_TimeStamp t, uint64_t pos, OTF2_AttributeList *a,
                    uint64_t value)
{
    for (unsigned op = 0; op < n; op++)
        if (param == refs[op]) {
            rt_event *ev = begin(o, kind, t, pos, a);
            ev->req = value;
            ev->op = (uint8_t)op;
            if (kind == RT_EV_BUFFER && has_attr(o, RT__ATTR_BYTES))
                ev->bytes = o->attr_val[RT__ATTR_BYTES].uint64;
            if (kind != RT_EV_WIN_ATTACH)
                return 1;
            /* its window and size (rt__otf2.h); without a window, one no trace defines */
            ev->comm = has_attr(o, RT__ATTR_WIN) ? o->attr_val[RT__ATTR_WIN].rmaWinRef
                                                 : OTF2_UNDEFINED_RMA_WIN;
            if (has_attr(o, RT__ATTR_BYTES))
                ev->bytes = o->attr_val[RT__ATTR_BYTES].uint64;
            return 1;
        }
    return 0;
}

/* A pending call's mark, a row of a v or w collective and a request freed (rt__otf2.h); other
 * parameters are outside the event model. A record begins one event: should a damaged
 * archive give two of our parameters one ref, the last of pending, row, request freed,
 * handle and attach is the event (tested in that order, from the last). */
static OTF2_CallbackCode ev_parameter(CB_ARGS, OTF2_ParameterRef param, uint64_t value)
{
    otf2r *o = data;
    if (param == OTF2_UNDEFINED_PARAMETER) /* the refs of parameters the archive lacks */
        return OK;
    if (op_event(o, RT_EV_WIN_ATTACH, o->param_wattach, RT_WATTACH_COUNT, param, t, pos, a,
                 value) ||
        op_event(o, RT_EV_BUFFER, o->param_buffer, RT_BUF_COUNT, param, t, pos, a, value) ||
        op_event(o, RT_EV_HANDLE, o->param_handle, RT_HANDLE_COUNT, param, t, pos, a, value) ||
        op_event(o, RT_EV_REQUEST_FREE, o->param_reqh, RT_REQH_COUNT, param, t, pos, a, value))
        return done(o);
    if (param == o->param_peer) {
        rt_event *ev = begin(o, RT_EV_COLL_PEER, t, pos, a);
        ev->peer = value <= INT32_MAX ? (int32_t)value : RT_PEER_NONE; /* refused then */
        ev->comm = o->row_comm;
        ev->op = o->row_op;
        if (has_attr(o, RT__ATTR_BYTES))
            ev->bytes = o->attr_val[RT__ATTR_BYTES].uint64;
        if (has_attr(o, RT__ATTR_RBYTES))
            ev->rbytes = o->attr_val[RT__ATTR_RBYTES].uint64;
        return done(o);
    }
    if (param == o->param_pending && value == 1) {
        begin(o, RT_EV_PENDING, t, pos, a);
        return done(o);
    }
    return OK;
}

/* An error a call returned (rt__otf2.h): the code, and its class in RT__ATTR_OP. A code past
 * 32 bits gets an op no class has, which the event check refuses. */
static OTF2_CallbackCode ev_parameter_int(CB_ARGS, OTF2_ParameterRef param, int64_t value)
{
    otf2r *o = data;
    if (param != o->param_error)
        return OK;
    rt_event *ev = begin(o, RT_EV_ERROR, t, pos, a);
    set_op(o, ev, 0);
    if (value < INT32_MIN || value > INT32_MAX)
        ev->op = UINT8_MAX;
    else
        ev->tag = (int32_t)value;
    return done(o);
}

static OTF2_CallbackCode comm_handle(otf2r *o, unsigned op, OTF2_TimeStamp t, uint64_t pos,
                                     OTF2_AttributeList *a, OTF2_CommRef c)
{
    rt_event *ev = begin(o, RT_EV_COMM_HANDLE, t, pos, a);
    ev->comm = c;
    ev->op = (uint8_t)op;
    return done(o);
}

static OTF2_CallbackCode ev_comm_create(CB_ARGS, OTF2_CommRef c)
{
    return comm_handle(data, RT_COMMH_CREATE, t, pos, a, c);
}

static OTF2_CallbackCode ev_comm_destroy(CB_ARGS, OTF2_CommRef c)
{
    return comm_handle(data, RT_COMMH_FREE, t, pos, a, c);
}

static OTF2_CallbackCode ev_win_create(CB_ARGS, OTF2_RmaWinRef win)
{
    begin(data, RT_EV_WIN_CREATE, t, pos, a)->comm = win;
    return done(data);
}

static OTF2_CallbackCode ev_win_free(CB_ARGS, OTF2_RmaWinRef win)
{
    begin(data, RT_EV_WIN_FREE, t, pos, a)->comm = win;
    return done(data);
}

/* The RMA_TARGET of the transfer just begun, right after it, when our attributes carry one
 * (rt__otf2.h). */
static void target(otf2r *o)
{
    if (!has_attr(o, RT__ATTR_DISP))
        return;
    uint64_t disp = o->attr_val[RT__ATTR_DISP].uint64;
    uint8_t op =
        has_attr(o, RT__ATTR_REDUCE_OP) ? o->attr_val[RT__ATTR_REDUCE_OP].uint8 : RT_REDOP_NONE;
    const rt_event *ev = &o->blk[o->last];
    o->pos[o->nblk] = o->pos[o->last];
    o->blk[o->nblk++] = (rt_event){.time = ev->time,
                                   .rank = ev->rank,
                                   .call = ev->call,
                                   .kind = RT_EV_RMA_TARGET,
                                   .comm = ev->comm,
                                   .peer = ev->peer,
                                   .bytes = disp,
                                   .op = op};
}

static OTF2_CallbackCode ev_put(CB_ARGS, OTF2_RmaWinRef win, uint32_t remote, uint64_t bytes,
                                uint64_t id)
{
    rt_event *ev = begin(data, RT_EV_RMA_PUT, t, pos, a);
    ev->comm = win;
    ev->peer = peer_i32(remote, RT_PEER_ALL);
    ev->bytes = bytes;
    ev->req = id;
    target(data);
    return done(data);
}

static OTF2_CallbackCode ev_get(CB_ARGS, OTF2_RmaWinRef win, uint32_t remote, uint64_t bytes,
                                uint64_t id)
{
    rt_event *ev = begin(data, RT_EV_RMA_GET, t, pos, a);
    ev->comm = win;
    ev->peer = peer_i32(remote, RT_PEER_ALL);
    ev->rbytes = bytes;
    ev->req = id;
    target(data);
    return done(data);
}

static OTF2_CallbackCode ev_atomic(CB_ARGS, OTF2_RmaWinRef win, uint32_t remote,
                                   OTF2_RmaAtomicType type, uint64_t sent, uint64_t received,
                                   uint64_t id)
{
    otf2r *o = data;
    rt_event *ev = begin(o, RT_EV_RMA_ATOMIC, t, pos, a);
    ev->comm = win;
    ev->peer = peer_i32(remote, RT_PEER_ALL);
    ev->bytes = sent;
    ev->rbytes = received;
    ev->req = id;
    set_op(o, ev, type);
    target(o);
    return done(o);
}

static OTF2_CallbackCode ev_op_complete(CB_ARGS, OTF2_RmaWinRef win, uint64_t id)
{
    rt_event *ev = begin(data, RT_EV_RMA_OP_COMPLETE, t, pos, a);
    ev->comm = win;
    ev->req = id;
    return done(data);
}

static OTF2_CallbackCode ev_rma_coll_begin(CB_ARGS)
{
    begin(data, RT_EV_RMA_COLL_BEGIN, t, pos, a);
    return done(data);
}

/* The assert of a fence, post or start: our attribute, else none (rt__otf2.h). */
static int32_t rma_assert(const otf2r *o)
{
    return has_attr(o, RT__ATTR_ASSERT) ? o->attr_val[RT__ATTR_ASSERT].uint8 : 0;
}

static OTF2_CallbackCode ev_rma_coll_end(CB_ARGS, OTF2_CollectiveOp op, OTF2_RmaSyncLevel level,
                                         OTF2_RmaWinRef win, uint32_t root, uint64_t sent,
                                         uint64_t received)
{
    otf2r *o = data;
    rt_event *ev = begin(o, RT_EV_RMA_COLL_END, t, pos, a);
    ev->comm = win;
    set_op(o, ev, op);
    ev->tag = rma_assert(o);
    return done(o);
}

static OTF2_CallbackCode ev_group_sync(CB_ARGS, OTF2_RmaSyncLevel level, OTF2_RmaWinRef win,
                                       OTF2_GroupRef group)
{
    otf2r *o = data;
    rt_event *ev = begin(o, RT_EV_RMA_GROUP_SYNC, t, pos, a);
    ev->comm = win;
    const uint64_t *id = rt_hmap_get1(&o->group_id, group);
    ev->peer = id ? (int32_t)*id : RT_PEER_NONE;
    set_op(o, ev, 0);
    ev->tag = rma_assert(o);
    return done(o);
}

static OTF2_CallbackCode ev_lock(CB_ARGS, OTF2_RmaWinRef win, uint32_t remote, uint64_t id,
                                 OTF2_LockType type)
{
    otf2r *o = data;
    rt_event *ev = begin(o, RT_EV_RMA_LOCK, t, pos, a);
    ev->comm = win;
    ev->peer = peer_i32(remote, RT_PEER_ALL);
    ev->req = id;
    set_op(o, ev, type);
    return done(o);
}

static OTF2_CallbackCode ev_unlock(CB_ARGS, OTF2_RmaWinRef win, uint32_t remote, uint64_t id)
{
    rt_event *ev = begin(data, RT_EV_RMA_UNLOCK, t, pos, a);
    ev->comm = win;
    ev->peer = peer_i32(remote, RT_PEER_ALL);
    ev->req = id;
    return done(data);
}

static OTF2_CallbackCode ev_sync(CB_ARGS, OTF2_RmaWinRef win, uint32_t remote,
                                 OTF2_RmaSyncType type)
{
    otf2r *o = data;
    rt_event *ev = begin(o, RT_EV_RMA_SYNC, t, pos, a);
    ev->comm = win;
    ev->peer = peer_i32(remote, RT_PEER_ALL);
    set_op(o, ev, type);
    return done(o);
}

OTF2_EvtReaderCallbacks *rt__otf2r_event_callbacks(void)
{
    OTF2_EvtReaderCallbacks *cb = OTF2_EvtReaderCallbacks_New();
    if (!cb)
        return NULL;
    OTF2_EvtReaderCallbacks_SetEnterCallback(cb, ev_enter);
    OTF2_EvtReaderCallbacks_SetLeaveCallback(cb, ev_leave);
    OTF2_EvtReaderCallbacks_SetMpiSendCallback(cb, ev_send);
    OTF2_EvtReaderCallbacks_SetMpiIsendCallback(cb, ev_isend);
    OTF2_EvtReaderCallbacks_SetMpiIsendCompleteCallback(cb, ev_isend_complete);
    OTF2_EvtReaderCallbacks_SetMpiRecvCallback(cb, ev_recv);
    OTF2_EvtReaderCallbacks_SetMpiIrecvRequestCallback(cb, ev_irecv_request);
    OTF2_EvtReaderCallbacks_SetMpiIrecvCallback(cb, ev_irecv);
    OTF2_EvtReaderCallbacks_SetMpiRequestCancelledCallback(cb, ev_cancelled);
    OTF2_EvtReaderCallbacks_SetMpiCollectiveBeginCallback(cb, ev_coll_begin);
    OTF2_EvtReaderCallbacks_SetMpiCollectiveEndCallback(cb, ev_coll_end);
    OTF2_EvtReaderCallbacks_SetNonBlockingCollectiveRequestCallback(cb, ev_nbc_request);
    OTF2_EvtReaderCallbacks_SetNonBlockingCollectiveCompleteCallback(cb, ev_nbc_complete);
    OTF2_EvtReaderCallbacks_SetRmaWinCreateCallback(cb, ev_win_create);
    OTF2_EvtReaderCallbacks_SetRmaWinDestroyCallback(cb, ev_win_free);
    OTF2_EvtReaderCallbacks_SetRmaPutCallback(cb, ev_put);
    OTF2_EvtReaderCallbacks_SetRmaGetCallback(cb, ev_get);
    OTF2_EvtReaderCallbacks_SetRmaAtomicCallback(cb, ev_atomic);
    OTF2_EvtReaderCallbacks_SetRmaOpCompleteBlockingCallback(cb, ev_op_complete);
    OTF2_EvtReaderCallbacks_SetRmaOpCompleteNonBlockingCallback(cb, ev_op_complete);
    OTF2_EvtReaderCallbacks_SetRmaCollectiveBeginCallback(cb, ev_rma_coll_begin);
    OTF2_EvtReaderCallbacks_SetRmaCollectiveEndCallback(cb, ev_rma_coll_end);
    OTF2_EvtReaderCallbacks_SetRmaGroupSyncCallback(cb, ev_group_sync);
    OTF2_EvtReaderCallbacks_SetRmaRequestLockCallback(cb, ev_lock);
    OTF2_EvtReaderCallbacks_SetRmaAcquireLockCallback(cb, ev_lock);
    OTF2_EvtReaderCallbacks_SetRmaTryLockCallback(cb, ev_lock);
    OTF2_EvtReaderCallbacks_SetRmaReleaseLockCallback(cb, ev_unlock);
    OTF2_EvtReaderCallbacks_SetRmaSyncCallback(cb, ev_sync);
    OTF2_EvtReaderCallbacks_SetParameterUnsignedIntCallback(cb, ev_parameter);
    OTF2_EvtReaderCallbacks_SetParameterIntCallback(cb, ev_parameter_int);
    OTF2_EvtReaderCallbacks_SetCommCreateCallback(cb, ev_comm_create);
    OTF2_EvtReaderCallbacks_SetCommDestroyCallback(cb, ev_comm_destroy);
    return cb;
}
