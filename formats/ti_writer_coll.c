/*
 * The TI writer's collective actions (ti_writer.c): a blocking collective's COLL_END
 * becomes the line SimGrid 3.32's replay reads, with counts in bytes (MPI_BYTE), but for the
 * reductions (reduce, allreduce, scan, exscan, reduce_scatter), whose counts are elements of
 * the datatype of their recorded size (rt__tiw_type_of): every rank of a reduction names the
 * same datatype, as SimGrid requires of the messages its algorithms exchange. The other
 * collectives' two sides may legally differ between ranks (a contiguous type at one, its
 * elements at another), which SimGrid refuses as mismatched datatypes, so they stay bytes.
 * Regular collectives divide the event's byte sums among the ranks; the v-forms write their
 * per-peer counts (the COLL_PEER rows after them), or, in a trace without them, split the
 * sums as evenly as they allow.
 */
#include <inttypes.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rt__ti_write.h"

/* v / parts, refusing a remainder: the per-rank count of a regular collective. */
static int per_rank(const rt_writer *w, const rt_event *ev, uint64_t v, uint32_t parts,
                    uint64_t *out, rt_err *err)
{
    if (v % parts)
        return rt__tiw_refuse(w, ev, err, "%" PRIu64 " bytes do not split evenly among %u ranks", v,
                              (unsigned)parts);
    *out = v / parts;
    return rt__tiw_int_count(w, ev, *out, err);
}

/* Appends the counts of total bytes split as evenly as the event model allows (it keeps
 * sums, not per-rank counts), the first total % n entries one byte larger; skip names an
 * entry that gets `fixed` instead (UINT32_MAX: none). */
static int put_split(rt_writer *w, const rt_event *ev, rt__tiw_rank *k, uint64_t total, uint32_t n,
                     uint32_t skip, uint64_t fixed, rt_err *err)
{
    uint32_t m = skip == UINT32_MAX ? n : n - 1;
    uint64_t base = m ? total / m : 0, extra = m ? total % m : 0;
    int rc;
    if ((rc = rt__tiw_int_count(w, ev, base + (extra > 0), err)) ||
        (rc = rt__tiw_int_count(w, ev, fixed, err)))
        return rc;
    for (uint32_t i = 0, j = 0; i < n; i++) {
        uint64_t v = i == skip ? fixed : base + (j++ < extra);
        if (rt__tiw_append(w, k, " %" PRIu64, v))
            return rt__tiw_no_memory(w, err);
    }
    return 0;
}

/* Appends n per-rank counts v (the per-peer counts of COLL_PEER rows), in elements of size
 * bytes. */
static int put_counts(rt_writer *w, const rt_event *ev, rt__tiw_rank *k, const uint64_t *v,
                      uint32_t n, uint64_t size, rt_err *err)
{
    int rc;
    for (uint32_t i = 0; i < n; i++) {
        if ((rc = rt__tiw_int_count(w, ev, v[i] / size, err)))
            return rc;
        if (rt__tiw_append(w, k, " %" PRIu64, v[i] / size))
            return rt__tiw_no_memory(w, err);
    }
    return 0;
}

/* A side of a v collective: its per-peer counts when the rows give them (blocks, not NULL),
 * else total split as evenly as it goes (put_split). */
static int put_side(rt_writer *w, const rt_event *ev, rt__tiw_rank *k, const uint64_t *blocks,
                    uint64_t total, uint32_t n, rt_err *err)
{
    return blocks ? put_counts(w, ev, k, blocks, n, 1, err)
                  : put_split(w, ev, k, total, n, UINT32_MAX, 0, err);
}

/* The blocks of nrows COLL_PEER rows in tw->blk: p send blocks, then p receive blocks (0
 * where no row says otherwise). -RT_E_NOMEM when memory runs out. */
static int row_blocks(rt_writer *w, const rt_event *rows, size_t nrows, uint32_t p, rt_err *err)
{
    rt__ti_writer *tw = w->impl;
    if (!tw->blk && !(tw->blk = malloc(2 * (size_t)p * sizeof *tw->blk)))
        return rt__tiw_no_memory(w, err);
    memset(tw->blk, 0, 2 * (size_t)p * sizeof *tw->blk);
    for (size_t i = 0; i < nrows; i++)
        if (rows[i].peer >= 0 && (uint32_t)rows[i].peer < p) { /* checked on arrival */
            tw->blk[rows[i].peer] = rows[i].bytes;
            tw->blk[p + (uint32_t)rows[i].peer] = rows[i].rbytes;
        }
    return 0;
}

/* The v-forms and reduce_scatter: long lines with a count per rank, built piece by piece,
 * from the per-peer counts of the rows when there are any. Other collectives are ones
 * SimGrid's replay lacks. */
static int counts_action(rt_writer *w, const rt_event *ev, const rt_event *rows, size_t nrows,
                         rt_err *err)
{
    rt__ti_writer *tw = w->impl;
    uint32_t r = ev->rank, p = w->defs.nranks;
    rt__tiw_rank *k = &tw->ranks[r];
    int32_t root = ev->peer;
    int rc = rt__tiw_line(w, r, err);
    if (rc || (nrows && (rc = row_blocks(w, rows, nrows, p, err))))
        return rc;
    const uint64_t *sblk = nrows ? tw->blk : NULL, *rblk = nrows ? tw->blk + p : NULL;
    switch (ev->op) {
    case RT_COLL_GATHERV:
    case RT_COLL_ALLGATHERV:
        if ((rc = rt__tiw_int_count(w, ev, ev->bytes, err)))
            return rc;
        if (rt__tiw_append(w, k, "%s %" PRIu64,
                           ev->op == RT_COLL_GATHERV ? "gatherv" : "allgatherv", ev->bytes))
            return rt__tiw_no_memory(w, err);
        if ((rc = put_side(w, ev, k, rblk, ev->rbytes, p, err)))
            return rc;
        if (ev->op == RT_COLL_GATHERV && rt__tiw_append(w, k, " %d", (int)root))
            return rt__tiw_no_memory(w, err);
        break;
    case RT_COLL_SCATTERV:
        if (rt__tiw_append(w, k, "scatterv"))
            return rt__tiw_no_memory(w, err);
        if ((rc = put_side(w, ev, k, sblk, ev->bytes, p, err)) ||
            (rc = rt__tiw_int_count(w, ev, ev->rbytes, err)))
            return rc;
        if (rt__tiw_append(w, k, " %" PRIu64 " %d", ev->rbytes, (int)root))
            return rt__tiw_no_memory(w, err);
        break;
    case RT_COLL_ALLTOALLV:
    case RT_COLL_ALLTOALLW:
        if ((rc = rt__tiw_int_count(w, ev, ev->bytes, err)) ||
            (rc = rt__tiw_int_count(w, ev, ev->rbytes, err)))
            return rc;
        if (rt__tiw_append(w, k, "alltoallv %" PRIu64, ev->bytes))
            return rt__tiw_no_memory(w, err);
        if ((rc = put_side(w, ev, k, sblk, ev->bytes, p, err)))
            return rc;
        if (rt__tiw_append(w, k, " %" PRIu64, ev->rbytes))
            return rt__tiw_no_memory(w, err);
        if ((rc = put_side(w, ev, k, rblk, ev->rbytes, p, err)))
            return rc;
        break;
    case RT_COLL_REDUCE_SCATTER:
    case RT_COLL_REDUCE_SCATTER_BLOCK:
        if (ev->rbytes > ev->bytes || (p == 1 && ev->rbytes != ev->bytes))
            return rt__tiw_refuse(w, ev, err,
                                  "receives %" PRIu64 " of %" PRIu64 " bytes: no counts "
                                  "can say that",
                                  ev->rbytes, ev->bytes);
        if (rt__tiw_append(w, k, "reducescatter"))
            return rt__tiw_no_memory(w, err);
        /* the rows give every rank's block, the same at every rank, and so the same datatype;
         * without them, in a trace that records per-peer counts the blocks are equal, this
         * rank's p times (in elements); else this rank's is known, the rest split, in bytes */
        int equal = !sblk && (w->defs.flags & RT_DEFS_COLL_PEERS) && ev->bytes % p == 0 &&
                    ev->bytes / p == ev->rbytes;
        rt__tiw_type t =
            rt__tiw_type_of(sblk || equal ? ev->esize : 0, sblk ? sblk : &ev->rbytes, sblk ? p : 1);
        if (sblk)
            rc = put_counts(w, ev, k, sblk, p, t.size, err);
        else if (equal)
            for (uint32_t i = 0; i < p && !rc; i++)
                rc = put_counts(w, ev, k, &ev->rbytes, 1, t.size, err);
        else
            rc = put_split(w, ev, k, ev->bytes - ev->rbytes, p, r, ev->rbytes, err);
        if (rc)
            return rc;
        if (rt__tiw_append(w, k, " 0%s%s", t.id ? " " : "", t.id ? t.id : ""))
            return rt__tiw_no_memory(w, err);
        break;
    default:
        return rt__tiw_refuse(w, ev, err, "SimGrid 3.32's replay has no %s",
                              rt_event_op_name(ev->kind, ev->op));
    }
    if (rt__tiw_append(w, k, "\n"))
        return rt__tiw_no_memory(w, err);
    return rt__tiw_text_added(w, r, err);
}

/* The action of a blocking collective (COLL_END). */
int rt__tiw_coll_action(rt_writer *w, const rt_event *ev, const rt_event *rows, size_t nrows,
                        rt_err *err)
{
    uint32_t r = ev->rank, p = w->defs.nranks;
    int32_t root = ev->peer;
    int at_root = (uint32_t)root == r;
    uint64_t s = 0, x = 0;
    int rc = 0;
    rt__tiw_type t = rt__tiw_type_of(ev->esize, &ev->bytes, 1); /* of a reduction */
    const char *sp = t.id ? " " : "", *id = t.id ? t.id : "";
    switch (ev->op) {
    case RT_COLL_BARRIER:
        return rt__tiw_action(w, r, err, "barrier");
    case RT_COLL_BCAST:
        return rt__tiw_action(w, r, err, "bcast %" PRIu64 " %d", at_root ? ev->bytes : ev->rbytes,
                              (int)root);
    case RT_COLL_REDUCE:
    case RT_COLL_ALLREDUCE:
        if (ev->bytes / t.size > UINT_MAX)
            return rt__tiw_refuse(w, ev, err,
                                  "%" PRIu64 " elements: SimGrid reads this count as an "
                                  "unsigned int",
                                  ev->bytes / t.size);
        if (ev->op == RT_COLL_REDUCE)
            return rt__tiw_action(w, r, err, "reduce %" PRIu64 " 0 %d%s%s", ev->bytes / t.size,
                                  (int)root, sp, id);
        return rt__tiw_action(w, r, err, "allreduce %" PRIu64 " 0%s%s", ev->bytes / t.size, sp, id);
    case RT_COLL_SCAN:
    case RT_COLL_EXSCAN:
        return rt__tiw_action(w, r, err, "%s %" PRIu64 " 0%s%s",
                              ev->op == RT_COLL_SCAN ? "scan" : "exscan", ev->bytes / t.size, sp,
                              id);
    case RT_COLL_GATHER: /* the receive count matters at the root only */
        if ((rc = rt__tiw_int_count(w, ev, ev->bytes, err)) ||
            (at_root && (rc = per_rank(w, ev, ev->rbytes, p, &x, err))))
            return rc;
        return rt__tiw_action(w, r, err, "gather %" PRIu64 " %" PRIu64 " %d", ev->bytes,
                              at_root ? x : ev->bytes, (int)root);
    case RT_COLL_SCATTER: /* the send count matters at the root only */
        if ((rc = rt__tiw_int_count(w, ev, ev->rbytes, err)) ||
            (at_root && (rc = per_rank(w, ev, ev->bytes, p, &s, err))))
            return rc;
        return rt__tiw_action(w, r, err, "scatter %" PRIu64 " %" PRIu64 " %d",
                              at_root ? s : ev->rbytes, ev->rbytes, (int)root);
    case RT_COLL_ALLGATHER:
        if ((rc = rt__tiw_int_count(w, ev, ev->bytes, err)) ||
            (rc = per_rank(w, ev, ev->rbytes, p, &x, err)))
            return rc;
        return rt__tiw_action(w, r, err, "allgather %" PRIu64 " %" PRIu64, ev->bytes, x);
    case RT_COLL_ALLTOALL:
        if ((rc = per_rank(w, ev, ev->bytes, p, &s, err)) ||
            (rc = per_rank(w, ev, ev->rbytes, p, &x, err)))
            return rc;
        return rt__tiw_action(w, r, err, "alltoall %" PRIu64 " %" PRIu64, s, x);
    default:
        return counts_action(w, ev, rows, nrows, err);
    }
}
