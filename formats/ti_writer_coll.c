/*
 * The TI writer's collective actions (ti_writer.c): a blocking collective's COLL_END
 * becomes the line SimGrid 3.32's replay reads, each side's counts in elements of the size
 * the trace records for it where a datatype has that size, else in bytes (rt__tiw_type_of).
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

/* v / parts, refusing a remainder: the per-rank bytes of a regular collective. */
static int per_rank(const rt_writer *w, const rt_event *ev, uint64_t v, uint32_t parts,
                    uint64_t *out, rt_err *err)
{
    if (v % parts)
        return rt__tiw_refuse(w, ev, err, "%" PRIu64 " bytes do not split evenly among %u ranks", v,
                              (unsigned)parts);
    *out = v / parts;
    return 0;
}

/* The count of v bytes in t's elements, checked to be one SimGrid reads as an int. */
static int count_of(const rt_writer *w, const rt_event *ev, uint64_t v, rt__tiw_type t,
                    uint64_t *out, rt_err *err)
{
    *out = v / t.size;
    return rt__tiw_int_count(w, ev, *out, err);
}

/* " ST RT" after the counts of a line whose datatypes are optional: nothing when both sides
 * are in bytes (MPI_BYTE, the default). */
static int put_types(rt_writer *w, rt__tiw_rank *k, rt__tiw_type s, rt__tiw_type r, rt_err *err)
{
    if ((s.id || r.id) && rt__tiw_append(w, k, " %s %s", rt__tiw_id(s), rt__tiw_id(r)))
        return rt__tiw_no_memory(w, err);
    return 0;
}

/* total bytes split into out[0..n) as evenly as the event model allows (it keeps sums, not
 * per-rank counts), the first entries one byte larger; skip names an entry that gets `fixed`
 * instead (UINT32_MAX: none). */
static void split(uint64_t total, uint32_t n, uint32_t skip, uint64_t fixed, uint64_t *out)
{
    uint32_t m = skip == UINT32_MAX ? n : n - 1;
    uint64_t base = m ? total / m : 0, extra = m ? total % m : 0;
    for (uint32_t i = 0, j = 0; i < n; i++)
        out[i] = i == skip ? fixed : base + (j++ < extra);
}

/* Appends the n per-rank counts of the side whose bytes are v, in t's elements. */
static int put_counts(rt_writer *w, const rt_event *ev, rt__tiw_rank *k, const uint64_t *v,
                      uint32_t n, rt__tiw_type t, rt_err *err)
{
    int rc;
    uint64_t c;
    for (uint32_t i = 0; i < n; i++) {
        if ((rc = count_of(w, ev, v[i], t, &c, err)))
            return rc;
        if (rt__tiw_append(w, k, " %" PRIu64, c))
            return rt__tiw_no_memory(w, err);
    }
    return 0;
}

/* The per-rank bytes of both sides of a v collective in tw->blk, p send blocks then p receive
 * blocks: from the nrows COLL_PEER rows when there are any (0 where no row says otherwise),
 * else the totals split (split). -RT_E_NOMEM when memory runs out. */
static int side_blocks(rt_writer *w, const rt_event *ev, const rt_event *rows, size_t nrows,
                       rt_err *err)
{
    rt__ti_writer *tw = w->impl;
    uint32_t p = w->defs.nranks;
    if (!tw->blk && !(tw->blk = malloc(2 * (size_t)p * sizeof *tw->blk)))
        return rt__tiw_no_memory(w, err);
    if (!nrows) {
        split(ev->bytes, p, UINT32_MAX, 0, tw->blk);
        split(ev->rbytes, p, UINT32_MAX, 0, tw->blk + p);
        return 0;
    }
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
    uint64_t sc, rc_;
    int rc = rt__tiw_line(w, r, err);
    if (!rc && (ev->op == RT_COLL_REDUCE_SCATTER || ev->op == RT_COLL_REDUCE_SCATTER_BLOCK) &&
        (ev->rbytes > ev->bytes || (p == 1 && ev->rbytes != ev->bytes)))
        return rt__tiw_refuse(w, ev, err,
                              "receives %" PRIu64 " of %" PRIu64 " bytes: no counts can say that",
                              ev->rbytes, ev->bytes);
    if (rc || (rc = side_blocks(w, ev, rows, nrows, err)))
        return rc;
    const uint64_t *sblk = tw->blk, *rblk = tw->blk + p;
    switch (ev->op) {
    case RT_COLL_GATHERV:
    case RT_COLL_ALLGATHERV: {
        rt__tiw_type ts = rt__tiw_type_of(ev->esize, &ev->bytes, 1);
        rt__tiw_type tr = rt__tiw_type_of(ev->resize, rblk, p);
        if ((rc = count_of(w, ev, ev->bytes, ts, &sc, err)))
            return rc;
        if (rt__tiw_append(w, k, "%s %" PRIu64,
                           ev->op == RT_COLL_GATHERV ? "gatherv" : "allgatherv", sc))
            return rt__tiw_no_memory(w, err);
        if ((rc = put_counts(w, ev, k, rblk, p, tr, err)))
            return rc;
        if (ev->op == RT_COLL_GATHERV && rt__tiw_append(w, k, " %d", (int)root))
            return rt__tiw_no_memory(w, err);
        if ((rc = put_types(w, k, ts, tr, err)))
            return rc;
        break;
    }
    case RT_COLL_SCATTERV: {
        rt__tiw_type ts = rt__tiw_type_of(ev->esize, sblk, p);
        rt__tiw_type tr = rt__tiw_type_of(ev->resize, &ev->rbytes, 1);
        if (rt__tiw_append(w, k, "scatterv"))
            return rt__tiw_no_memory(w, err);
        if ((rc = put_counts(w, ev, k, sblk, p, ts, err)) ||
            (rc = count_of(w, ev, ev->rbytes, tr, &rc_, err)))
            return rc;
        if (rt__tiw_append(w, k, " %" PRIu64 " %d", rc_, (int)root))
            return rt__tiw_no_memory(w, err);
        if ((rc = put_types(w, k, ts, tr, err)))
            return rc;
        break;
    }
    case RT_COLL_ALLTOALLV:
    case RT_COLL_ALLTOALLW: {
        /* SimGrid sizes its buffers by the first and the middle count: the sums */
        rt__tiw_type ts = rt__tiw_type_of(ev->esize, sblk, p);
        rt__tiw_type tr = rt__tiw_type_of(ev->resize, rblk, p);
        if ((rc = count_of(w, ev, ev->bytes, ts, &sc, err)) ||
            (rc = count_of(w, ev, ev->rbytes, tr, &rc_, err)))
            return rc;
        if (rt__tiw_append(w, k, "alltoallv %" PRIu64, sc))
            return rt__tiw_no_memory(w, err);
        if ((rc = put_counts(w, ev, k, sblk, p, ts, err)))
            return rc;
        if (rt__tiw_append(w, k, " %" PRIu64, rc_))
            return rt__tiw_no_memory(w, err);
        if ((rc = put_counts(w, ev, k, rblk, p, tr, err)) || (rc = put_types(w, k, ts, tr, err)))
            return rc;
        break;
    }
    case RT_COLL_REDUCE_SCATTER:
    case RT_COLL_REDUCE_SCATTER_BLOCK: {
        /* the rows give every rank's block; without them this rank's is known, the rest
         * split */
        if (!nrows)
            split(ev->bytes - ev->rbytes, p, r, ev->rbytes, tw->blk);
        rt__tiw_type t = rt__tiw_type_of(ev->esize, sblk, p);
        if (rt__tiw_append(w, k, "reducescatter"))
            return rt__tiw_no_memory(w, err);
        if ((rc = put_counts(w, ev, k, sblk, p, t, err)))
            return rc;
        if (rt__tiw_append(w, k, " 0%s%s", t.id ? " " : "", t.id ? t.id : ""))
            return rt__tiw_no_memory(w, err);
        break;
    }
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
    rt__ti_writer *tw = w->impl;
    uint32_t r = ev->rank, p = w->defs.nranks;
    int32_t root = ev->peer;
    int at_root = (uint32_t)root == r;
    uint64_t s = 0, x = 0, sc = 0, xc = 0;
    rt__tiw_type ts, tr;
    int rc = 0;
    switch (ev->op) {
    case RT_COLL_BARRIER:
        return rt__tiw_action(w, r, err, "barrier");
    case RT_COLL_BCAST:
        s = at_root ? ev->bytes : ev->rbytes;
        ts = rt__tiw_type_of(at_root ? ev->esize : ev->resize, &s, 1);
        return rt__tiw_action(w, r, err, "bcast %" PRIu64 " %d%s%s", s / ts.size, (int)root,
                              ts.id ? " " : "", ts.id ? ts.id : "");
    case RT_COLL_REDUCE:
    case RT_COLL_ALLREDUCE:
    case RT_COLL_SCAN:
    case RT_COLL_EXSCAN:
        ts = rt__tiw_type_of(ev->esize, &ev->bytes, 1);
        sc = ev->bytes / ts.size;
        if (sc > UINT_MAX)
            return rt__tiw_refuse(w, ev, err,
                                  "%" PRIu64 " elements: SimGrid reads this count as an "
                                  "unsigned int",
                                  sc);
        if (ev->op == RT_COLL_REDUCE)
            return rt__tiw_action(w, r, err, "reduce %" PRIu64 " 0 %d%s%s", sc, (int)root,
                                  ts.id ? " " : "", ts.id ? ts.id : "");
        return rt__tiw_action(w, r, err, "%s %" PRIu64 " 0%s%s",
                              ev->op == RT_COLL_ALLREDUCE ? "allreduce"
                              : ev->op == RT_COLL_SCAN    ? "scan"
                                                          : "exscan",
                              sc, ts.id ? " " : "", ts.id ? ts.id : "");
    case RT_COLL_GATHER:  /* the receive count matters at the root only */
    case RT_COLL_SCATTER: /* the send count matters at the root only */
    case RT_COLL_ALLGATHER:
    case RT_COLL_ALLTOALL:
        break;
    default:
        return counts_action(w, ev, rows, nrows, err);
    }
    /* the regular ones: s and x the per-rank bytes of the send and the receive side, each in
     * its own datatype; at a rank where one side does not matter, it is the other one's */
    int gather = ev->op == RT_COLL_GATHER, scatter = ev->op == RT_COLL_SCATTER;
    if (gather || ev->op == RT_COLL_ALLGATHER)
        s = ev->bytes;
    else if ((!scatter || at_root) && (rc = per_rank(w, ev, ev->bytes, p, &s, err)))
        return rc;
    if (scatter)
        x = ev->rbytes;
    else if ((!gather || at_root) && (rc = per_rank(w, ev, ev->rbytes, p, &x, err)))
        return rc;
    ts = rt__tiw_type_of(ev->esize, &s, 1);
    tr = rt__tiw_type_of(ev->resize, &x, 1);
    if (gather && !at_root)
        x = s, tr = ts;
    if (scatter && !at_root)
        s = x, ts = tr;
    rt__tiw_rank *k = &tw->ranks[r];
    if ((rc = count_of(w, ev, s, ts, &sc, err)) || (rc = count_of(w, ev, x, tr, &xc, err)) ||
        (rc = rt__tiw_line(w, r, err)))
        return rc;
    const char *name = gather                        ? "gather"
                       : scatter                     ? "scatter"
                       : ev->op == RT_COLL_ALLGATHER ? "allgather"
                                                     : "alltoall";
    if (rt__tiw_append(w, k, "%s %" PRIu64 " %" PRIu64, name, sc, xc) ||
        ((gather || scatter) && rt__tiw_append(w, k, " %d", (int)root)))
        return rt__tiw_no_memory(w, err);
    if ((rc = put_types(w, k, ts, tr, err)))
        return rc;
    if (rt__tiw_append(w, k, "\n"))
        return rt__tiw_no_memory(w, err);
    return rt__tiw_text_added(w, r, err);
}
