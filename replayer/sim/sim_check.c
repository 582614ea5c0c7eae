/*
 * The collective fast path's self-check (docs/replay.md, "The collective fast path"): a
 * replay done again without the fast path must give the same results to the picosecond.
 * `retrace replay --check-fast` runs it after every replay, and the tests run every replay
 * that way.
 */
#include <string.h>

#include "rt_sim.h"

static int same_text(const char *a, const char *b)
{
    return (!a && !b) || (a && b && !strcmp(a, b));
}

const char *rt_sim_result_diff(const rt_sim_result *a, const rt_sim_result *b)
{
#define SAME(f)       \
    if (a->f != b->f) \
        return #f;
    SAME(completed)
    SAME(time_ps)
    SAME(critical_rank)
    SAME(mpi_ps)
    SAME(messages)
    SAME(bytes)
    SAME(gw_messages)
    SAME(gw_bytes)
    SAME(events)
    SAME(nranks)
#undef SAME
    if (!same_text(a->report, b->report))
        return "report";
    if (!same_text(a->notes, b->notes))
        return "notes";
    for (uint32_t r = 0; r < a->nranks; r++)
        if (memcmp(&a->ranks[r], &b->ranks[r], sizeof a->ranks[r]))
            return "ranks";
    return NULL;
}

int rt_sim_check_fast(const rt_sim_trace *t, const rt_sim_config *c, const rt_sim_result *a,
                      rt_err *err)
{
    if (c->out_trace || c->no_fast_coll) /* no fast path then: nothing to compare */
        return 0;
    rt_sim_config slow = *c;
    slow.no_fast_coll = 1;
    rt_sim_result b;
    rt_err why;
    int rc = rt_sim_run(t, &slow, &b, &why);
    if (rc < 0) {
        rt_sim_result_free(&b);
        return rt_err_set(err, -rc, "fast path check: the replay without it failed: %s", why.msg);
    }
    const char *diff = rt_sim_result_diff(a, &b);
    if (!diff && b.fast_colls)
        diff = "fast_colls";
    rt_sim_result_free(&b);
    if (diff)
        return rt_err_set(err, RT_E_INVAL,
                          "fast path check: results differ without the fast path (%s)", diff);
    return 0;
}
