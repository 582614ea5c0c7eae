/*
 * Collectives: the COLL rows of wrappers.def. Each records the op, the communicator, the
 * root and the bytes this rank supplies and receives (docs/tracer.md has the table).
 */
#include <limits.h>
#include <stdlib.h>

#include "rt__tracer.h"

#define RT__CLASS_COLL RT__WRAP
#include "rt__wrap.h"

/* A rootless op: no rank, and neither MPI_ROOT nor MPI_PROC_NULL of any MPI (Open MPI's MPI_ROOT
 * is -4, MPICH's -3). */
#define RT__NO_ROOT INT_MIN

/* This rank's role in a collective with a root. */
typedef enum role { ROLE_ROOT, ROLE_OTHER, ROLE_IDLE } role;

typedef struct coll_ctx {
    const rt__comm *cm;
    uint64_t p; /* communicator size, or remote group size of an inter-communicator */
    MPI_Comm comm;
    int me; /* rank in the (local) group, -1 until coll_me asks */
    role role;
    int32_t peer;       /* root as recorded */
    uint64_t nin, nout; /* rootless ops: peers data comes from and goes to (coll_setup_peers) */
    MPI_Datatype stype, rtype; /* the datatypes of the send and receive sides (coll_types) */
    uint64_t size;             /* their size when the caller knew it (coll_size), else 0 */
} coll_ctx;

/* This rank's rank, asked only by the ops that need it. */
static int coll_me(coll_ctx *x)
{
    if (x->me < 0)
        PMPI_Comm_rank(x->comm, &x->me);
    return x->me;
}

static int coll_setup(rt__call *c, MPI_Comm comm, int root, coll_ctx *x)
{
    if (c->rc != MPI_SUCCESS || !(x->cm = rt__comm_get(comm)))
        return 0;
    x->p = x->cm->inter ? x->cm->remote_size : x->cm->size;
    x->comm = comm;
    x->me = -1;
    x->peer = RT_PEER_NONE;
    x->stype = x->rtype = MPI_DATATYPE_NULL;
    x->size = 0;
    x->role = ROLE_OTHER;
    if (root == RT__NO_ROOT)
        return 1;
    if (x->cm->inter) {
        /* MPI_ROOT: this rank is the root; MPI_PROC_NULL: its group's other ranks; else
         * root is a rank of the remote group, the one data comes from or goes to. */
        x->role = root == MPI_ROOT ? ROLE_ROOT : root == MPI_PROC_NULL ? ROLE_IDLE : ROLE_OTHER;
        if (root >= 0)
            x->peer = root;
    } else {
        x->role = root == coll_me(x) ? ROLE_ROOT : ROLE_OTHER;
        x->peer = root;
    }
    return 1;
}

/*
 * The count array of a v or w collective: int in the MPI-3 forms, MPI_Count in the
 * large-count (_c) forms. RT__COUNTS picks the member by the array's type, so one hook
 * serves both forms and a row passing any other type does not compile. The w forms' counts
 * come with a datatype per peer (RT__COUNTS_W), so one hook serves v and w too.
 */
typedef struct coll_counts {
    const int *i;
    const MPI_Count *c;
    const MPI_Datatype *types; /* w forms: per peer, in place of the hook's datatype */
} coll_counts;

#define RT__COUNTS_W(a, t) \
    _Generic((a), const int *: (coll_counts){.i = (const int *)(a), .types = (t)},    \
             const MPI_Count *: (coll_counts){.c = (const MPI_Count *)(a), .types = (t)})
#define RT__COUNTS(a) RT__COUNTS_W(a, NULL)
#define RT__NO_COUNTS ((coll_counts){NULL, NULL, NULL})

static int has_counts(coll_counts a)
{
    return a.i || a.c;
}

static MPI_Count count_at(coll_counts a, uint64_t k)
{
    return a.c ? a.c[k] : a.i[k];
}

/* Bytes of the first n blocks: their counts times type, or times their own datatypes. Sets
 * *uneven when the blocks differ (in count; for the w forms in bytes, or in the size of their
 * datatypes): the COLL_PEER rows are written then (coll_rows), with each block's element size;
 * the compare is all the equal case costs. */
static uint64_t sum_counts(coll_counts counts, uint64_t n, MPI_Datatype type, int *uneven)
{
    uint64_t total = 0;
    if (!has_counts(counts) || !n)
        return 0;
    int differ = 0;
    if (counts.types) { /* a block of no elements: its datatype is not looked at */
        uint64_t size0 = 0, first = 0;
        for (uint64_t i = 0; i < n; i++) {
            MPI_Count k = count_at(counts, i);
            uint64_t size = k > 0 ? rt__type_bytes(counts.types[i]) : 0, b = (uint64_t)k * size;
            if (!i) {
                size0 = size;
                first = b;
            }
            total += b;
            differ |= b != first || size != size0;
        }
        *uneven |= differ;
        return total;
    }
    if (counts.i) { /* the MPI-3 forms, most calls: one compare per block more than the sum */
        int first = counts.i[0];
        for (uint64_t i = 0; i < n; i++) {
            int k = counts.i[i];
            total += k > 0 ? (uint64_t)k : 0;
            differ |= k != first;
        }
    } else {
        MPI_Count first = counts.c[0];
        for (uint64_t i = 0; i < n; i++) {
            MPI_Count k = counts.c[i];
            total += k > 0 ? (uint64_t)k : 0;
            differ |= k != first;
        }
    }
    *uneven |= differ;
    return rt__bytes((MPI_Count)total, type);
}

/* One side of a v or w collective for its COLL_PEER rows: n blocks of counts (of type). */
typedef struct coll_side {
    coll_counts counts;
    MPI_Datatype type;
    uint64_t n;
} coll_side;

#define RT__NO_SIDE ((coll_side){RT__NO_COUNTS, MPI_DATATYPE_NULL, 0})

/* Block k of a side in bytes (0 past its end), and in *code its element size (rt_esize_code;
 * 0 for a block of no bytes); size: the type's, for the v forms. */
static uint64_t side_block(const coll_side *s, uint64_t k, uint64_t size, uint8_t *code)
{
    *code = 0;
    if (k >= s->n || !has_counts(s->counts))
        return 0;
    MPI_Count n = count_at(s->counts, k);
    if (n <= 0)
        return 0;
    if (s->counts.types)
        size = rt__type_bytes(s->counts.types[k]);
    if (!size)
        return 0;
    *code = (uint8_t)rt_esize_code(size);
    return (uint64_t)n * size;
}

/*
 * The COLL_PEER rows of a collective whose blocks differ (rt_event.h, "The per-peer counts"),
 * one per block with bytes on either side. A blocking call writes them after its COLL_END; a
 * nonblocking one keeps them with its request (q->rows, on the heap) until its completion
 * writes them after the NBC_COMPLETE (rt__complete), as MPI lets the count arrays go once
 * the call returned.
 */
static void coll_rows(rt__call *c, const coll_ctx *x, unsigned op, coll_side s, coll_side r,
                      rt__req *q)
{
    uint64_t n = s.n > r.n ? s.n : r.n;
    uint64_t ssize = rt__bytes(1, s.type), rsize = rt__bytes(1, r.type);
    rt__rows *kept = NULL;
    if (q && n && !(kept = malloc(sizeof *kept + n * sizeof *kept->row))) {
        rt__fail("rank %d: out of memory for the counts of a nonblocking collective", rt__g.rank);
        return;
    }
    uint32_t rows = 0;
    for (uint64_t k = 0; k < n; k++) {
        uint8_t es, rs;
        uint64_t b = side_block(&s, k, ssize, &es), rb = side_block(&r, k, rsize, &rs);
        if (!b && !rb)
            continue;
        if (!kept) {
            rt_raw_coll *row = rt__rec_coll(c, RT_EV_COLL_PEER, op, x->cm->id, (int32_t)k, b, rb);
            if (row) { /* element sizes, as a COLL_END's (rt_raw.h) */
                row->at = (uint8_t)(1 | es << 1);
                row->pad = rs;
            }
            continue;
        }
        kept->row[rows++] = (rt_raw_coll){.type = RT_RAW_COLL,
                                          .at = (uint8_t)(1 | es << 1),
                                          .pad = rs,
                                          .kind = RT_EV_COLL_PEER,
                                          .op = (uint8_t)op,
                                          .comm = x->cm->id,
                                          .peer = (int32_t)k,
                                          .bytes = b,
                                          .rbytes = rb};
    }
    if (kept)
        kept->n = rows;
    if (q)
        q->rows = kept;
}

/* The blocks of a v or w collective whose counts differ: its COLL_PEER rows (coll_rows). */
typedef struct coll_blocks {
    coll_side s, r;
} coll_blocks;

/*
 * The persistent collectives (MPI-4 MPI_<op>_init): their hooks are the I-forms', and the
 * record the I-form makes at once is kept with the request instead (persistent, inactive, its
 * rows on the heap until MPI_Request_free). Each MPI_Start of the request records it as an
 * NBC_REQUEST with a new request id (p2p_start), and the call that completes that activation
 * its NBC_COMPLETE and rows (rt__complete), as for an Ibcast. Open MPI 4.1 has none: its
 * tracer has no rows for them, and this only names ids.
 */
// clang-format off
#define RT__PERSISTENT_COLL(X)                                                                \
    X(Barrier_init) X(Bcast_init) X(Gather_init) X(Gatherv_init) X(Scatter_init)             \
    X(Scatterv_init) X(Allgather_init) X(Allgatherv_init) X(Alltoall_init) X(Alltoallv_init) \
    X(Alltoallw_init) X(Reduce_init) X(Allreduce_init) X(Reduce_scatter_init)                \
    X(Reduce_scatter_block_init) X(Scan_init) X(Exscan_init) X(Neighbor_allgather_init)      \
    X(Neighbor_allgatherv_init) X(Neighbor_alltoall_init) X(Neighbor_alltoallv_init)         \
    X(Neighbor_alltoallw_init) X(Bcast_init_c) X(Gather_init_c) X(Gatherv_init_c)            \
    X(Scatter_init_c) X(Scatterv_init_c) X(Allgather_init_c) X(Allgatherv_init_c)            \
    X(Alltoall_init_c) X(Alltoallv_init_c) X(Alltoallw_init_c) X(Reduce_init_c)              \
    X(Allreduce_init_c) X(Reduce_scatter_init_c) X(Reduce_scatter_block_init_c)              \
    X(Scan_init_c) X(Exscan_init_c) X(Neighbor_allgather_init_c)                             \
    X(Neighbor_allgatherv_init_c) X(Neighbor_alltoall_init_c) X(Neighbor_alltoallv_init_c)   \
    X(Neighbor_alltoallw_init_c)
// clang-format on

static int coll_persistent(unsigned fn)
{
    switch (fn) {
#define RT__CASE(name) case RT_FN_##name:
        RT__PERSISTENT_COLL(RT__CASE)
#undef RT__CASE
        return 1;
    default:
        return 0;
    }
}

/* The datatypes of the send side (bytes) and the receive side (rbytes), whose sizes
 * coll_done_rows records for a side that has bytes (a side without may name any datatype, which
 * MPI ignores; a side with bytes had its size asked already). A size costs a few compares for
 * the predefined types (rt__type_size_known). */
static void coll_types(coll_ctx *x, MPI_Datatype s, MPI_Datatype r)
{
    x->stype = s;
    x->rtype = r;
}

/* Both sides of one datatype, of the size the caller asked already (bcast, reductions: the
 * calls traced most), so that its size is not looked up twice. */
static void coll_size(coll_ctx *x, MPI_Datatype type, uint64_t size)
{
    x->stype = x->rtype = type;
    x->size = size;
}

/* The collective's record, and its rows when blocks (not NULL) say its blocks differ. */
static inline __attribute__((always_inline)) void
coll_done_rows(rt__call *c, const coll_ctx *x, unsigned op, uint64_t bytes, uint64_t rbytes,
               const MPI_Request *request, const coll_blocks *blocks)
{
    if (!rt__g.tracing)
        return;
    uint8_t es =
        (uint8_t)(!bytes ? 0 : rt_esize_code(x->size ? x->size : rt__type_bytes(x->stype)));
    uint8_t rs = (uint8_t)(!rbytes                      ? 0
                           : es && x->rtype == x->stype ? es
                           : x->size                    ? rt_esize_code(x->size)
                                                        : rt_esize_code(rt__type_bytes(x->rtype)));
    if (!request) {
        rt_raw_coll *r = rt__rec_coll(c, RT_EV_COLL_END, op, x->cm->id, x->peer, bytes, rbytes);
        if (r) { /* element sizes (rt_raw.h) */
            r->at = (uint8_t)(1 | es << 1);
            r->pad = rs;
        }
        if (blocks)
            coll_rows(c, x, op, blocks->s, blocks->r, NULL);
        return;
    }
    int persistent = coll_persistent(c->fn); /* its NBC_REQUEST at each start instead */
    rt__req q = {.id = persistent ? 0 : rt__req_next_id(),
                 .comm = x->cm->id,
                 .peer = x->peer,
                 .bytes = bytes,
                 .rbytes = rbytes,
                 .kind = RT__RQ_COLL,
                 .op = (uint8_t)op,
                 .persistent = (uint8_t)persistent,
                 .esize = es,
                 .resize = rs,
                 .cm = x->cm};
    if (blocks)
        coll_rows(c, x, op, blocks->s, blocks->r, &q);
    rt__req_put(*request, &q);
    if (!q.persistent)
        rt__rec_req(c, 0, RT_EV_NBC_REQUEST, x->cm->id, q.id);
}

__attribute__((noinline)) static void coll_done_nb(rt__call *c, const coll_ctx *x, unsigned op,
                                                   uint64_t bytes, uint64_t rbytes,
                                                   const MPI_Request *request)
{
    coll_done_rows(c, x, op, bytes, rbytes, request, NULL);
}

/* The record of a collective whose blocks are equal: a blocking one's COLL_END inline in its
 * hook (the collectives traced most: no call, no frame), a nonblocking one's request apart. */
static inline __attribute__((always_inline)) void coll_done(rt__call *c, const coll_ctx *x,
                                                            unsigned op, uint64_t bytes,
                                                            uint64_t rbytes,
                                                            const MPI_Request *request)
{
    if (request)
        coll_done_nb(c, x, op, bytes, rbytes, request);
    else
        coll_done_rows(c, x, op, bytes, rbytes, NULL, NULL);
}

/* coll_setup of a rootless op, and how many peers it receives from (nin) and sends to (nout):
 * every peer, or the process topology's neighbours. */
static int coll_setup_peers(rt__call *c, unsigned op, MPI_Comm comm, coll_ctx *x)
{
    if (!coll_setup(c, comm, RT__NO_ROOT, x))
        return 0;
    x->nin = x->nout = x->p;
    if (rt_coll_is_neighbor(op)) /* data per neighbour of the process topology */
        rt__comm_degrees(comm, (rt__comm *)x->cm, &x->nin, &x->nout);
    return 1;
}

static void coll_barrier(rt__call *c, MPI_Comm comm, const MPI_Request *request)
{
    coll_ctx x;
    if (coll_setup(c, comm, RT__NO_ROOT, &x))
        coll_done(c, &x, RT_COLL_BARRIER, 0, 0, request);
}

static void coll_bcast(rt__call *c, MPI_Count count, MPI_Datatype type, int root, MPI_Comm comm,
                       const MPI_Request *request)
{
    coll_ctx x;
    if (!coll_setup(c, comm, root, &x))
        return;
    uint64_t size = x.role == ROLE_IDLE ? 0 : rt__type_bytes(type);
    uint64_t n = count > 0 ? (uint64_t)count * size : 0;
    coll_size(&x, type, size);
    coll_done(c, &x, RT_COLL_BCAST, x.role == ROLE_ROOT ? n : 0, x.role == ROLE_OTHER ? n : 0,
              request);
}

/* Gather and scatter: the root's side is p blocks, the others' one block. */
static void coll_gather(rt__call *c, unsigned op, const void *sendbuf, const void *recvbuf,
                        MPI_Count scount, MPI_Datatype stype, MPI_Count rcount, MPI_Datatype rtype,
                        int root, MPI_Comm comm, const MPI_Request *request)
{
    coll_ctx x;
    if (!coll_setup(c, comm, root, &x))
        return;
    uint64_t s = rt__bytes(scount, stype), r = rt__bytes(rcount, rtype), b = 0, rb = 0;
    /* MPI_IN_PLACE is the root's send buffer in a gather, its receive buffer in a scatter */
    int in_place = (op == RT_COLL_GATHER ? sendbuf : recvbuf) == MPI_IN_PLACE;
    coll_types(&x, in_place && op == RT_COLL_GATHER ? rtype : stype,
               in_place && op == RT_COLL_SCATTER ? stype : rtype);
    if (op == RT_COLL_GATHER) {
        if (x.role == ROLE_ROOT) {
            b = x.cm->inter ? 0 : in_place ? r : s;
            rb = x.p * r;
        } else if (x.role == ROLE_OTHER) {
            b = s;
        }
    } else { /* scatter: for the root the receive buffer is the one that is ignored */
        if (x.role == ROLE_ROOT) {
            b = x.p * s;
            rb = x.cm->inter ? 0 : in_place ? s : r;
        } else if (x.role == ROLE_OTHER) {
            rb = r;
        }
    }
    coll_done(c, &x, op, b, rb, request);
}

/*
 * Gatherv and scatterv mirror each other: the root's side is the blocks of the count array
 * (vtype), the others' side one block (count, type); in place, the root's own block is its
 * entry of the array. Gatherv receives the array's side, scatterv sends it.
 */
static void coll_rootv(rt__call *c, unsigned op, int in_place, MPI_Count count, MPI_Datatype type,
                       coll_counts counts, MPI_Datatype vtype, int root, MPI_Comm comm,
                       const MPI_Request *request)
{
    coll_ctx x;
    if (!coll_setup(c, comm, root, &x))
        return;
    uint64_t all = 0, one = 0;
    int uneven = 0;
    if (x.role == ROLE_ROOT) {
        all = sum_counts(counts, x.p, vtype, &uneven);
        if (!x.cm->inter)
            one = in_place ? rt__bytes(count_at(counts, (uint64_t)coll_me(&x)), vtype)
                           : rt__bytes(count, type);
    } else if (x.role == ROLE_OTHER) {
        one = rt__bytes(count, type);
    }
    if (op == RT_COLL_GATHERV)
        coll_types(&x, in_place ? vtype : type, vtype);
    else
        coll_types(&x, vtype, in_place ? vtype : type);
    coll_side v = {counts, vtype, x.p};
    coll_blocks gv = {RT__NO_SIDE, v}, sv = {v, RT__NO_SIDE};
    if (op == RT_COLL_GATHERV)
        coll_done_rows(c, &x, op, one, all, request, uneven ? &gv : NULL);
    else
        coll_done_rows(c, &x, op, all, one, request, uneven ? &sv : NULL);
}

/* Allgather, alltoall and their neighbourhood forms: a block per peer or neighbour. */
static void coll_allgather(rt__call *c, unsigned op, const void *sendbuf, MPI_Count scount,
                           MPI_Datatype stype, MPI_Count rcount, MPI_Datatype rtype, MPI_Comm comm,
                           const MPI_Request *request)
{
    coll_ctx x;
    if (!coll_setup_peers(c, op, comm, &x))
        return;
    uint64_t s = rt__bytes(scount, stype), r = rt__bytes(rcount, rtype);
    int in_place = sendbuf == MPI_IN_PLACE;
    coll_types(&x, in_place ? rtype : stype, rtype);
    uint64_t b;
    if (op == RT_COLL_ALLGATHER)
        b = in_place ? r : s;
    else if (op == RT_COLL_ALLTOALL)
        b = x.p * (in_place ? r : s);
    else
        b = x.nout * s;
    coll_done(c, &x, op, b, x.nin * r, request);
}

static void coll_allgatherv(rt__call *c, unsigned op, const void *sendbuf, MPI_Count scount,
                            MPI_Datatype stype, coll_counts rcounts, MPI_Datatype rtype,
                            MPI_Comm comm, const MPI_Request *request)
{
    coll_ctx x;
    if (!coll_setup_peers(c, op, comm, &x))
        return;
    int neighbor = rt_coll_is_neighbor(op); /* else one block, gathered by all */
    coll_types(&x, sendbuf == MPI_IN_PLACE ? rtype : stype, rtype);
    uint64_t b = sendbuf == MPI_IN_PLACE && !neighbor && !x.cm->inter
                     ? rt__bytes(count_at(rcounts, (uint64_t)coll_me(&x)), rtype)
                     : (neighbor ? x.nout : 1) * rt__bytes(scount, stype);
    int uneven = 0;
    uint64_t rb = sum_counts(rcounts, x.nin, rtype, &uneven);
    coll_blocks rows = {RT__NO_SIDE, {rcounts, rtype, x.nin}};
    coll_done_rows(c, &x, op, b, rb, request, uneven ? &rows : NULL);
}

/* Alltoallv, alltoallw (datatypes in the counts, stype and rtype unused) and their
 * neighbourhood forms; in place, the receive counts are the send counts too. */
static void coll_alltoallv(rt__call *c, unsigned op, const void *sendbuf, coll_counts scounts,
                           MPI_Datatype stype, coll_counts rcounts, MPI_Datatype rtype,
                           MPI_Comm comm, const MPI_Request *request)
{
    coll_ctx x;
    if (!coll_setup_peers(c, op, comm, &x))
        return;
    int uneven = 0, in_place = sendbuf == MPI_IN_PLACE;
    coll_types(&x, in_place ? rtype : stype, rtype);
    uint64_t rb = sum_counts(rcounts, x.nin, rtype, &uneven);
    uint64_t b = in_place ? rb : sum_counts(scounts, x.nout, stype, &uneven);
    if (!uneven) {
        coll_done(c, &x, op, b, rb, request);
        return;
    }
    coll_blocks rows = {{scounts, stype, x.nout}, {rcounts, rtype, x.nin}};
    if (in_place)
        rows.s = rows.r;
    coll_done_rows(c, &x, op, b, rb, request, &rows);
}

/* Reduce, allreduce, scan, exscan: n bytes in, n bytes out where a result arrives. */
static void coll_reduce(rt__call *c, unsigned op, MPI_Count count, MPI_Datatype type, int root,
                        MPI_Comm comm, const MPI_Request *request)
{
    coll_ctx x;
    if (!coll_setup(c, comm, root, &x))
        return;
    uint64_t size = rt__type_bytes(type), n = count > 0 ? (uint64_t)count * size : 0, b = n, rb = n;
    coll_size(&x, type, size);
    if (op == RT_COLL_REDUCE) {
        b = x.role == ROLE_IDLE || (x.cm->inter && x.role == ROLE_ROOT) ? 0 : n;
        rb = x.role == ROLE_ROOT ? n : 0;
    } else if (op == RT_COLL_EXSCAN && coll_me(&x) == 0) {
        rb = 0;
    }
    coll_done(c, &x, op, b, rb, request);
}

/* Reduce_scatter (counts per rank) and Reduce_scatter_block (RT__NO_COUNTS, one count). The
 * rows of reduce_scatter give block k of the vector, reduced onto rank k; on an
 * inter-communicator (whose blocks are the other group's) there are none. */
static void coll_reduce_scatter(rt__call *c, coll_counts rcounts, MPI_Count rcount,
                                MPI_Datatype type, MPI_Comm comm, const MPI_Request *request)
{
    coll_ctx x;
    if (!coll_setup(c, comm, RT__NO_ROOT, &x))
        return;
    coll_types(&x, type, type);
    uint64_t local = x.cm->size;
    if (has_counts(rcounts)) {
        int uneven = 0;
        uint64_t b = sum_counts(rcounts, local, type, &uneven);
        coll_blocks rows = {{rcounts, type, local}, RT__NO_SIDE};
        coll_done_rows(c, &x, RT_COLL_REDUCE_SCATTER, b,
                       rt__bytes(count_at(rcounts, (uint64_t)coll_me(&x)), type), request,
                       uneven && !x.cm->inter ? &rows : NULL);
    } else {
        uint64_t r = rt__bytes(rcount, type);
        coll_done(c, &x, RT_COLL_REDUCE_SCATTER_BLOCK, local * r, r, request);
    }
}

#include "wrappers.def"
#include "rt__f08.h"    /* the mpi_f08 wrappers of these rows (rt__f08.h says why) */
#include "rt__ompi_f.h" /* Open MPI's Fortran wrappers of these rows (rt__ompi_f.h says why) */
