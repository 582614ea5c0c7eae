/* retrace info's summary of a trace: one streaming pass (rt_an.h, "info"). */
#include <stdlib.h>
#include <string.h>

#include "rt_an.h"

int rt_an_info_defs(rt_an_info_result *in, const rt_defs *d)
{
    in->nranks = d->nranks;
    memcpy(in->library, d->library, sizeof in->library);
    in->nodes = rt_defs_count_nodes(d);
    in->modules = rt_defs_count_modules(d);
    in->comms = d->ncomms;
    in->wins = d->nwins;
    in->nbr_lists = d->nnbrs;
    in->topologies = 0;
    if (!d->nnbrs)
        return 0;
    /* communicators whose process topology a neighbourhood collective used */
    unsigned char *seen = calloc(d->ncomms ? d->ncomms : 1, 1);
    if (!seen)
        return -RT_E_NOMEM;
    for (uint32_t j = 0; j < d->nnbrs; j++) {
        size_t at = (size_t)(rt_defs_comm(d, d->nbrs[j].comm) - d->comms);
        in->topologies += !seen[at];
        seen[at] = 1;
    }
    free(seen);
    return 0;
}

/* The per-event work, inline in rt_an_info's loop (a call per event costs about 1% of
 * `retrace info`, most of whose time is reading). */
static inline void account(rt_an_info_result *in, const rt_event *ev)
{
    if (in->events == 0 || ev->time < in->tmin)
        in->tmin = ev->time;
    if (ev->time > in->tmax)
        in->tmax = ev->time;
    in->events++;
    in->by_class[rt_event_class_of(ev->kind)]++; /* RT_EVC_COUNT: out of range */
    /* A pending call's operations did not complete: its sends count, posted as they are, its
     * collective does not (docs/analyzer.md). rt_pending_op sees only the kinds that change or
     * ask its state: a branch less for the others. */
    switch (ev->kind) {
    case RT_EV_PENDING:
        in->pending++;
        in->pending_ranks += !in->had_pending[ev->rank];
        in->had_pending[ev->rank] = 1;
        /* fall through */
    case RT_EV_ENTER:
    case RT_EV_LEAVE:
        rt_pending_op(&in->in_ops[ev->rank], ev);
        break;
    case RT_EV_SEND:
    case RT_EV_ISEND:
        /* A message moves once: counted where it is sent. */
        in->messages++;
        in->by_contype[ev->contype < RT_CT_COUNT ? ev->contype : 0]++;
        in->bytes_p2p += ev->bytes;
        break;
    case RT_EV_COLL_END:
    case RT_EV_NBC_COMPLETE:
        if (rt_pending_op(&in->in_ops[ev->rank], ev))
            break;
        in->colls++;
        in->bytes_coll += ev->bytes;
        break;
    case RT_EV_RMA_PUT:
    case RT_EV_RMA_GET:
    case RT_EV_RMA_ATOMIC:
        in->rma_ops++;
        in->bytes_rma += (rt_u128)ev->bytes + ev->rbytes;
        break;
    }
}

int rt_an_info_begin(rt_an_info_result *in, uint32_t nranks)
{
    in->in_ops = calloc(nranks ? nranks : 1, 1);
    in->had_pending = calloc(nranks ? nranks : 1, 1);
    return in->in_ops && in->had_pending ? 0 : -RT_E_NOMEM;
}

void rt_an_info_event(rt_an_info_result *in, const rt_event *ev)
{
    account(in, ev);
}

int rt_an_info(const char *path, rt_an_info_result *in, rt_err *err)
{
    memset(in, 0, sizeof *in);
    rt_reader *r;
    int rc = rt_reader_open(path, &r, err);
    if (rc < 0)
        return rc;
    in->format = rt_reader_format(r);
    rt_event ev;
    if (rt_an_info_begin(in, rt_reader_defs(r)->nranks) < 0)
        rc = rt_err_set(err, RT_E_NOMEM, "%s: out of memory", path);
    else
        while ((rc = rt_reader_next(r, &ev, err)) > 0)
            account(in, &ev);
    if (rc == 0 && rt_an_info_defs(in, rt_reader_defs(r)) < 0) /* as they are at the end */
        rc = rt_err_set(err, RT_E_NOMEM, "%s: out of memory", path);
    const char *note = rt_reader_truncated(r);
    if (rc == 0 && note && !(in->truncated = strdup(note)))
        rc = rt_err_set(err, RT_E_NOMEM, "%s: out of memory", path);
    rt_reader_close(r);
    if (rc < 0)
        rt_an_info_free(in);
    return rc;
}

void rt_an_info_free(rt_an_info_result *in)
{
    free(in->truncated);
    in->truncated = NULL;
    free(in->in_ops);
    free(in->had_pending);
    in->in_ops = in->had_pending = NULL;
}
