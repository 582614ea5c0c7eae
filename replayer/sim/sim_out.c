/*
 * --out-trace: the simulated run as a trace. Each rank's events are kept in memory while the
 * engine runs (a nonblocking collective's messages happen while its rank is elsewhere, so
 * they are sorted by time at the end) and written through rt_writer as OTF2.
 *
 * What the written trace holds: every call's ENTER and LEAVE at simulated times; the
 * point-to-point and RMA events as recorded, with simulated times and the connection types of
 * the simulated placement; and collectives as the wire messages of the algorithm that ran
 * (a SEND when a round posts it, a RECV when the round ends), inside the collective's call,
 * on its communicator, with the instance number as tag. COLL_BEGIN and COLL_END are not
 * written, so `retrace hist` and `retrace gateways` count exactly what the simulated library
 * sent, at call level and at wire level alike. Window synchronisation messages (barriers,
 * PSCW notices, lock requests) are not written.
 */
#include <stdlib.h>
#include <string.h>

#include "rt__sim.h"

int sim_out_init(sim *s)
{
    if (!s->cfg->out_trace)
        return 0;
    s->out = calloc(s->nranks ? s->nranks : 1, sizeof *s->out);
    if (!s->out)
        return sim_fail(s, RT_E_NOMEM, "out of memory (output trace)");
    return 0;
}

void sim_out_free(sim *s)
{
    if (!s->out)
        return;
    for (uint32_t r = 0; r < s->nranks; r++)
        free(s->out[r].ev);
    free(s->out);
    s->out = NULL;
}

void sim_out_event(sim *s, uint32_t rank, const rt_event *ev, uint64_t t_ps)
{
    if (s->rc)
        return;
    sim_rank_events *o = &s->out[rank];
    if (RT_VEC_RESERVE(o->ev, o->cap, (uint64_t)o->n + 1, 64) < 0) {
        sim_fail(s, RT_E_NOMEM, "out of memory (output trace)");
        return;
    }
    rt_event *e = &o->ev[o->n];
    *e = *ev;
    e->rank = rank;
    e->time = t_ps / 1000;
    o->n++;
}

/* Point-to-point and RMA events carry world ranks in the engine; traces want communicator
 * (or window communicator) ranks. */
int32_t sim_out_peer(const sim *s, const rt_event *ev, uint32_t world)
{
    uint32_t comm = ev->comm;
    if (rt_event_is_rma(ev->kind)) {
        const rt_win_def *w = rt_defs_win(s->defs, ev->comm);
        comm = w ? w->comm : ev->comm;
    }
    const rt_comm_def *c = rt_defs_comm(s->defs, comm);
    int64_t pos = c ? rt_comm_position(c, world) : -RT_E_NOTFOUND;
    if (c && (c->flags & RT_COMM_IS_INTER) && pos >= c->size)
        pos -= c->size;
    return pos < 0 ? 0 : (int32_t)pos;
}

/* Stable merge sort by time: events of one rank stay in engine order at equal times. */
static int sort_by_time(rt_event *a, uint32_t n)
{
    if (n < 2)
        return 0;
    rt_event *tmp = malloc((size_t)n * sizeof *tmp);
    if (!tmp)
        return -RT_E_NOMEM;
    for (uint32_t width = 1; width < n; width *= 2) {
        for (uint32_t lo = 0; lo < n; lo += 2 * width) {
            uint32_t mid = lo + width < n ? lo + width : n;
            uint32_t hi = lo + 2 * width < n ? lo + 2 * width : n;
            uint32_t i = lo, j = mid, k = lo;
            while (i < mid && j < hi)
                tmp[k++] = a[j].time < a[i].time ? a[j++] : a[i++];
            while (i < mid)
                tmp[k++] = a[i++];
            while (j < hi)
                tmp[k++] = a[j++];
        }
        memcpy(a, tmp, (size_t)n * sizeof *a);
    }
    free(tmp);
    return 0;
}

int sim_out_write(sim *s)
{
    if (!s->out)
        return 0;
    rt_defs defs;
    rt_err e;
    if (rt_defs_copy(&defs, s->defs, &e) < 0)
        return sim_fail(s, e.code ? e.code : RT_E_NOMEM, "%s", e.msg);
    memcpy(defs.node, s->node, (size_t)s->nranks * sizeof *defs.node);
    memcpy(defs.module, s->module, (size_t)s->nranks * sizeof *defs.module);
    rt_writer *w;
    int rc = rt_writer_open(s->cfg->out_trace, RT_FMT_OTF2, &defs, &w, &e);
    rt_defs_free(&defs);
    if (rc < 0)
        return sim_fail(s, e.code ? e.code : RT_E_IO, "%s", e.msg);
    for (uint32_t r = 0; r < s->nranks && rc == 0; r++) {
        sim_rank_events *o = &s->out[r];
        if (sort_by_time(o->ev, o->n) < 0) {
            rt_writer_abort(w);
            return sim_fail(s, RT_E_NOMEM, "out of memory (output trace)");
        }
        for (uint32_t i = 0; i < o->n && rc == 0; i++)
            rc = rt_writer_write(w, &o->ev[i], &e);
    }
    if (rc < 0) {
        rt_writer_abort(w);
        return sim_fail(s, e.code ? e.code : RT_E_IO, "%s: %s", s->cfg->out_trace, e.msg);
    }
    if (rt_writer_close(w, &e) < 0)
        return sim_fail(s, e.code ? e.code : RT_E_IO, "%s: %s", s->cfg->out_trace, e.msg);
    return 0;
}
