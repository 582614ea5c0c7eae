/* Names and value semantics of the event model (rt_event.h). */
#include <string.h>

#include "rt_error.h"
#include "rt_event.h"

/* ---- MPI functions ------------------------------------------------------------------------ */

static const char *const func_names[RT_FN_COUNT] = {
    [RT_FN_NONE] = "",
#define RT_FUNC(name, cls, wrapper) [RT_FN_##name] = "MPI_" #name,
#include "rt_funcs.def"
#undef RT_FUNC
};

static const unsigned char func_classes[RT_FN_COUNT] = {
    [RT_FN_NONE] = RT_CLASS_NONE,
#define RT_FUNC(name, cls, wrapper) [RT_FN_##name] = RT_CLASS_##cls,
#include "rt_funcs.def"
#undef RT_FUNC
};

const char *rt_func_name(unsigned fn)
{
    return fn < RT_FN_COUNT ? func_names[fn] : NULL;
}

rt_func_class rt_func_class_of(unsigned fn)
{
    return fn < RT_FN_COUNT ? (rt_func_class)func_classes[fn] : RT_CLASS_NONE;
}

rt_func rt_func_lookup(const char *name)
{
    if (!strncmp(name, "PMPI_", 5))
        name += 1;
    if (!strncmp(name, "MPI_", 4))
        name += 4;
    if (!*name)
        return RT_FN_NONE;
    for (unsigned fn = 1; fn < RT_FN_COUNT; fn++)
        if (!strcmp(func_names[fn] + 4, name))
            return (rt_func)fn;
    return RT_FN_NONE;
}

/* ---- connection types --------------------------------------------------------------------- */

static const char *const contype_names[RT_CT_COUNT] = {
#define X(id, name) [RT_CT_##id] = name,
    RT_CONTYPES(X)
#undef X
};

const char *rt_contype_name(unsigned ct)
{
    return ct < RT_CT_COUNT ? contype_names[ct] : "";
}

int rt_contype_lookup(const char *name)
{
    /* psmpi's pscom plugin names for links between nodes of one module. */
    static const char *const net_aliases[] = {
        "openib", "velo", "ucp",  "tcp",  "extoll",  "psm", "mxm",
        "ofed",   "gm",   "elan", "dapl", "portals", "p4s", "suspend",
    };
    if (!*name)
        return -RT_E_NOTFOUND;
    for (int ct = 1; ct < RT_CT_COUNT; ct++)
        if (!strcmp(name, contype_names[ct]))
            return ct;
    if (!strcmp(name, "gateway"))
        return RT_CT_GW;
    for (size_t i = 0; i < sizeof net_aliases / sizeof *net_aliases; i++)
        if (!strcmp(name, net_aliases[i]))
            return RT_CT_NET;
    return -RT_E_NOTFOUND;
}

/* ---- event kinds and their ops ------------------------------------------------------------ */

static const char *const kind_names[RT_EV_COUNT] = {
#define X(id, name, cls, req, fields) [RT_EV_##id] = name,
    RT_EVENT_KINDS(X)
#undef X
};

static const char *const kind_fields[RT_EV_COUNT] = {
#define X(id, name, cls, req, fields) [RT_EV_##id] = fields,
    RT_EVENT_KINDS(X)
#undef X
};

static const char *const coll_names[RT_COLL_COUNT] = {
#define X(id, name) [RT_COLL_##id] = name,
    RT_COLL_OPS(X)
#undef X
};
static const char *const atomic_names[RT_ATOMIC_COUNT] = {
#define X(id, name) [RT_ATOMIC_##id] = name,
    RT_ATOMIC_OPS(X)
#undef X
};
static const char *const reduce_names[RT_REDOP_COUNT] = {
#define X(id, name) [RT_REDOP_##id] = name,
    RT_REDUCE_OPS(X)
#undef X
};
static const char *const pscw_names[RT_PSCW_COUNT] = {
#define X(id, name) [RT_PSCW_##id] = name,
    RT_PSCW_OPS(X)
#undef X
};
static const char *const sync_names[RT_SYNC_COUNT] = {
#define X(id, name) [RT_SYNC_##id] = name,
    RT_SYNC_OPS(X)
#undef X
};
static const char *const lock_names[RT_LOCK_COUNT] = {
#define X(id, name) [RT_LOCK_##id] = name,
    RT_LOCK_TYPES(X)
#undef X
};
static const char *const error_names[RT_ERRCLASS_COUNT] = {
#define X(id, name) [RT_ERRCLASS_##id] = name,
    RT_ERROR_CLASSES(X)
#undef X
};
static const char *const comm_handle_names[RT_COMMH_COUNT] = {
#define X(id, name) [RT_COMMH_##id] = name,
    RT_COMM_HANDLE_OPS(X)
#undef X
};
static const char *const handle_names[RT_HANDLE_COUNT] = {
#define X(id, name) [RT_HANDLE_##id] = name,
    RT_HANDLE_OPS(X)
#undef X
};
static const char *const win_attach_names[RT_WATTACH_COUNT] = {
#define X(id, name) [RT_WATTACH_##id] = name,
    RT_WIN_ATTACH_OPS(X)
#undef X
};
static const char *const buffer_names[RT_BUF_COUNT] = {
#define X(id, name) [RT_BUF_##id] = name,
    RT_BUFFER_OPS(X)
#undef X
};
static const char *const request_handle_names[RT_REQH_COUNT] = {
#define X(id, name) [RT_REQH_##id] = name,
    RT_REQUEST_HANDLE_OPS(X)
#undef X
};

/* Receive wildcards: the name of each bit, and of each set (op_name returns one string). */
static const struct {
    unsigned bit;
    const char *name;
} recv_bits[] = {
#define X(id, bit, name) {RT_RECV_##id, name},
    RT_RECV_FLAGS(X)
#undef X
};
#define NRECV_BITS (sizeof recv_bits / sizeof *recv_bits)
/* The sets an event may hold (rt_event_op_valid): wildcards, or partitioned alone. */
_Static_assert(RT_RECV_ALL == 7, "a new receive flag needs its sets named in recv_set_names");
static const char *const recv_set_names[RT_RECV_PARTITIONED + 1] = {
    [0] = "",
    [RT_RECV_ANY_SOURCE] = "any_source",
    [RT_RECV_ANY_TAG] = "any_tag",
    [RT_RECV_WILD] = "any_source|any_tag",
    [RT_RECV_PARTITIONED] = "partitioned",
};

/* The kinds whose op is a set of rt_recv_flag bits. */
static int is_recv_kind(unsigned kind)
{
    return kind == RT_EV_RECV || kind == RT_EV_IRECV || kind == RT_EV_ISEND;
}

const char *rt_event_kind_name(unsigned kind)
{
    return kind < RT_EV_COUNT ? kind_names[kind] : "";
}

int rt_event_kind_lookup(const char *name)
{
    for (int k = 0; k < RT_EV_COUNT; k++)
        if (!strcmp(name, kind_names[k]))
            return k;
    return -RT_E_NOTFOUND;
}

const char *rt_event_kind_fields(unsigned kind)
{
    return kind < RT_EV_COUNT ? kind_fields[kind] : "";
}

/* The name table for the op field of a kind, and its length. */
static const char *const *op_table(unsigned kind, unsigned *count)
{
    switch (kind) {
    case RT_EV_COLL_END:
    case RT_EV_NBC_COMPLETE:
    case RT_EV_COLL_PEER:
    case RT_EV_RMA_COLL_END:
        *count = RT_COLL_COUNT;
        return coll_names;
    case RT_EV_RMA_ATOMIC:
        *count = RT_ATOMIC_COUNT;
        return atomic_names;
    case RT_EV_RMA_TARGET:
        *count = RT_REDOP_COUNT;
        return reduce_names;
    case RT_EV_RMA_GROUP_SYNC:
        *count = RT_PSCW_COUNT;
        return pscw_names;
    case RT_EV_RMA_SYNC:
        *count = RT_SYNC_COUNT;
        return sync_names;
    case RT_EV_RMA_LOCK:
        *count = RT_LOCK_COUNT;
        return lock_names;
    case RT_EV_ERROR:
        *count = RT_ERRCLASS_COUNT;
        return error_names;
    case RT_EV_COMM_HANDLE:
        *count = RT_COMMH_COUNT;
        return comm_handle_names;
    case RT_EV_REQUEST_FREE:
        *count = RT_REQH_COUNT;
        return request_handle_names;
    case RT_EV_HANDLE:
        *count = RT_HANDLE_COUNT;
        return handle_names;
    case RT_EV_WIN_ATTACH:
        *count = RT_WATTACH_COUNT;
        return win_attach_names;
    case RT_EV_BUFFER:
        *count = RT_BUF_COUNT;
        return buffer_names;
    default:
        *count = 0;
        return NULL;
    }
}

const char *rt_event_op_name(unsigned kind, unsigned op)
{
    if (is_recv_kind(kind))
        return rt_event_op_valid(kind, op) ? recv_set_names[op] : "";
    unsigned n;
    const char *const *t = op_table(kind, &n);
    return t && op < n ? t[op] : "";
}

/* "any_tag|any_source" and the like: each bit named at most once; "" is the empty set. */
static int recv_lookup(const char *name)
{
    unsigned set = 0;
    while (*name) {
        size_t len = strcspn(name, "|");
        unsigned bit = 0;
        for (size_t i = 0; i < NRECV_BITS && !bit; i++)
            if (strlen(recv_bits[i].name) == len && !strncmp(name, recv_bits[i].name, len))
                bit = recv_bits[i].bit;
        if (!bit || (set & bit))
            return -RT_E_NOTFOUND;
        set |= bit;
        name += len;
        if (*name && !*++name) /* a trailing '|' */
            return -RT_E_NOTFOUND;
    }
    return (int)set;
}

int rt_event_op_lookup(unsigned kind, const char *name)
{
    if (is_recv_kind(kind)) {
        int set = recv_lookup(name);
        return set < 0 || rt_event_op_valid(kind, (unsigned)set) ? set : -RT_E_NOTFOUND;
    }
    unsigned n;
    const char *const *t = op_table(kind, &n);
    for (unsigned i = 0; t && i < n; i++)
        if (!strcmp(name, t[i]))
            return (int)i;
    return -RT_E_NOTFOUND;
}

int rt_event_op_valid(unsigned kind, unsigned op)
{
    if (kind == RT_EV_ISEND)
        return op == 0 || op == RT_RECV_PARTITIONED;
    if (kind == RT_EV_RECV)
        return (op & ~(unsigned)RT_RECV_WILD) == 0;
    if (kind == RT_EV_IRECV)
        return (op & ~(unsigned)RT_RECV_WILD) == 0 || op == RT_RECV_PARTITIONED;
    unsigned n;
    return op_table(kind, &n) ? op < n : op == 0;
}

/* The field letters as bit masks, built once: every event of every pass asks. */
uint8_t rt__field_mask[RT_EV_COUNT];

static int field_index(char field);

/* Built before main (and when the tracer library is loaded), so that rt_event_kind_mask, asked
 * for every event, is one load from a table. */
__attribute__((constructor)) static void build_masks(void)
{
    for (unsigned k = 0; k < RT_EV_COUNT; k++) {
        uint8_t m = 0;
        for (const char *f = kind_fields[k]; *f; f++)
            m |= (uint8_t)(1u << field_index(*f));
        rt__field_mask[k] = m;
    }
}

static int field_index(char field)
{
    switch (field) {
    case 'c':
        return 0;
    case 'p':
        return 1;
    case 't':
        return 2;
    case 'b':
        return 3;
    case 'r':
        return 4;
    case 'k':
        return 5;
    case 'q':
        return 6;
    case 'o':
        return 7;
    default:
        return -RT_E_NOTFOUND;
    }
}

int rt_event_kind_uses(unsigned kind, char field)
{
    int i = field_index(field);
    if (kind >= RT_EV_COUNT || i < 0)
        return 0;
    return (rt__field_mask[kind] >> i) & 1u;
}

void rt_event_normalize(rt_event *ev)
{
    unsigned m = rt_event_kind_mask(ev->kind);
    if (!(m & RT_FIELD_COMM))
        ev->comm = 0;
    if (!(m & RT_FIELD_PEER))
        ev->peer = 0;
    if (!(m & RT_FIELD_TAG))
        ev->tag = 0;
    if (!(m & RT_FIELD_BYTES))
        ev->bytes = 0;
    if (!(m & RT_FIELD_RBYTES))
        ev->rbytes = 0;
    if (!(m & RT_FIELD_CONTYPE))
        ev->contype = RT_CT_NONE;
    if (!(m & RT_FIELD_REQ))
        ev->req = 0;
    if (!(m & RT_FIELD_OP))
        ev->op = 0;
    if (!rt_event_has_esize(ev->kind))
        ev->esize = ev->resize = 0;
}

int rt_event_equal(const rt_event *a, const rt_event *b)
{
    rt_event x = *a, y = *b;
    rt_event_normalize(&x);
    rt_event_normalize(&y);
    return x.time == y.time && x.rank == y.rank && x.kind == y.kind && x.call == y.call &&
           x.comm == y.comm && x.peer == y.peer && x.tag == y.tag && x.bytes == y.bytes &&
           x.rbytes == y.rbytes && x.contype == y.contype && x.req == y.req && x.op == y.op &&
           x.esize == y.esize && x.resize == y.resize && x.thread == y.thread;
}

/* The req column of RT_EVENT_KINDS. */
enum { REQ_NO, REQ_START, REQ_END };
static const unsigned char kind_req[RT_EV_COUNT] = {
#define X(id, name, cls, req, fields) [RT_EV_##id] = REQ_##req,
    RT_EVENT_KINDS(X)
#undef X
};

int rt_event_starts_request(unsigned kind)
{
    return kind < RT_EV_COUNT && kind_req[kind] == REQ_START;
}

int rt_event_ends_request(unsigned kind)
{
    return kind < RT_EV_COUNT && kind_req[kind] == REQ_END;
}

/* ---- RMA assertions ---------------------------------------------------------------------------
 */

/* Each assertion bit and its name, for both directions. */
static const struct {
    unsigned bit;
    const char *name;
} assert_names[] = {
#define X(id, bit, name) {bit, name},
    RT_RMA_ASSERTS(X)
#undef X
};

const char *rt_rma_assert_name(unsigned a, char *buf, size_t len)
{
    size_t n = 0;
    if (!len)
        return buf;
    buf[0] = '\0';
    for (size_t i = 0; i < sizeof assert_names / sizeof assert_names[0]; i++) {
        if (!(a & assert_names[i].bit))
            continue;
        size_t k = strlen(assert_names[i].name) + (n ? 1 : 0);
        if (n + k >= len)
            break;
        if (n)
            buf[n++] = '|';
        memcpy(buf + n, assert_names[i].name, strlen(assert_names[i].name) + 1);
        n += strlen(assert_names[i].name);
    }
    return buf;
}

int rt_rma_assert_lookup(const char *s)
{
    unsigned a = 0;
    while (*s) {
        size_t n = strcspn(s, "|"), i;
        for (i = 0; i < sizeof assert_names / sizeof assert_names[0]; i++)
            if (strlen(assert_names[i].name) == n && !strncmp(s, assert_names[i].name, n))
                break;
        if (i == sizeof assert_names / sizeof assert_names[0] || (a & assert_names[i].bit))
            return -RT_E_NOTFOUND;
        a |= assert_names[i].bit;
        s += n;
        if (*s && !*++s) /* a "|" at the end */
            return -RT_E_NOTFOUND;
    }
    return (int)a;
}
