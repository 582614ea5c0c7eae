/*
 * Deadlocks and buffering hazards, from the built-in engine (docs/check.md).
 *
 * deadlock: the recorded run hung (some rank's trace ends in a call that never returned) and
 * the replay of the trace as recorded stops with ranks waiting for each other: the engine's
 * wait-for graph gives the cycle.
 * buffering: the recorded run completed, but a replay in which every send but a buffered one
 * is synchronous (it completes only once its receive is posted) deadlocks. MPI lets an
 * implementation buffer standard-mode sends and never requires it (MPI 4.0 section 3.5), so
 * such a program works only as long as the messages fit the buffers: a warning.
 */
#include <inttypes.h>
#include <string.h>

#include "rt__check.h"
#include "rt_sim.h"

/* The ranks of the cycle (or, without one, every rank the replay left blocked) and their
 * calls, as a finding of class cls. */
static int hang_finding(chk *c, unsigned cls, const rt_sim_hang *h, const char *why)
{
    chk_text ranks = {.len = 0}, calls = {.len = 0};
    uint32_t n = h->ncycle ? h->ncycle : h->nblocked;
    uint32_t shown = h->ncycle ? (n < RT_SIM_SHOWN ? n : RT_SIM_SHOWN) : h->nshown;
    for (uint32_t i = 0; i < shown; i++) {
        uint32_t r = h->ncycle ? h->cycle[i] : h->blocked[i].rank;
        chk_add(&ranks, "%s%" PRIu32, i ? ", " : "", r);
        for (uint32_t j = 0; j < h->nshown; j++) {
            const rt_sim_blocked *b = &h->blocked[j];
            if (b->rank != r)
                continue;
            chk_add(&calls, "%srank %" PRIu32 " %s at ", calls.len ? "; " : "", r, b->what);
            chk_add_time(&calls, b->recorded_ns);
        }
    }
    if (n > shown)
        chk_add(&ranks, " and %" PRIu32 " more", n - shown);
    return chk_find(c, cls, ranks.s, "", calls.s, why);
}

/* The engine's defaults, with the collective algorithms of the MPI that recorded the trace
 * (ompi for Open MPI, else mpich), as `retrace replay` chooses them. */
static void config(rt_sim_config *cfg, const rt_sim_trace *t)
{
    rt_sim_config_default(cfg);
    unsigned alg = rt_coll_library_choice(rt_sim_trace_defs(t)->library);
    for (unsigned op = 0; op < RT_COLL_COUNT; op++)
        cfg->alg[op] = (uint8_t)alg;
}

/* The replay's "the run failed: ..." lines, as notes. */
static int failed_notes(chk *c, const char *report)
{
    static const char lead[] = "the run failed: ";
    for (const char *p = report; p && *p;) {
        const char *end = strchr(p, '\n');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (len > sizeof lead - 1 && !strncmp(p, lead, sizeof lead - 1) &&
            chk_note(c, "%.*s", (int)len, p))
            return -RT_E_NOMEM;
        p = end ? end + 1 : NULL;
    }
    return 0;
}

static int recorded_hang(chk *c, const rt_sim_result *res)
{
    const rt_sim_hang *h = &res->hang;
    switch (h->outcome) {
    case RT_SIM_DEADLOCK:
        return hang_finding(c, RT_CHK_DEADLOCK, h,
                            h->ncycle ? "the recorded run hung: each of these ranks waits for "
                                        "the next, the last for the first"
                                      : "the recorded run hung: these ranks wait for messages "
                                        "or calls that no rank makes");
    case RT_SIM_MISMATCH:
        return hang_finding(c, RT_CHK_DEADLOCK, h,
                            "the recorded run hung in collectives that do not match (the "
                            "collective findings say how)");
    case RT_SIM_FAILED:
        return failed_notes(c, res->report);
    case RT_SIM_UNDESCRIBED:
        return chk_note(c, "the run ended with ranks in calls that wait for what the trace "
                           "does not describe: no deadlock can be shown");
    default:
        return 0;
    }
}

/* A run that completed: would it without buffering? Not asked when operations were left out
 * (a send whose receive is gone would wait for ever), when a rank's threads are merged into
 * one timeline (the engine would run their calls one after the other). The replay with
 * synchronous sends comes first, its wildcard receives matched freely (what such a run would
 * do: the order the run recorded may be one that only buffering allows). A deadlock there may
 * come from a wildcard that got another message than in the run and so left the path the
 * trace describes (a later receive naming the sender the run got waits for ever): only when
 * the same replay with the wildcards matched as recorded deadlocks too is it the buffering,
 * and only when the run replays as it is (recorded matching, sends as MPI ran them): when
 * that does not complete, the engine cannot follow the run (a note, no finding). */
static int buffering(chk *c, const rt_sim_trace *t, rt_err *err)
{
    const rt_sim_trace_end *end = rt_sim_trace_end_of(t);
    if (end->left_out)
        return chk_note(c,
                        "buffering not checked: %" PRIu64 " operation%s never completed, and a "
                        "replay without %s cannot tell",
                        end->left_out, end->left_out > 1 ? "s" : "",
                        end->left_out > 1 ? "them" : "it");
    if (c->threaded != UINT32_MAX)
        return chk_note(c,
                        "buffering not checked: the calls of rank %" PRIu32 " come from "
                        "several threads at once, which the trace does not tell apart",
                        c->threaded);
    rt_sim_config cfg;
    config(&cfg, t);
    cfg.free_wildcards = 1; /* matched as they would be then, not as recorded */
    cfg.sync_sends = 1;
    rt_sim_result freely, res, as_is;
    int rc = rt_sim_run(t, &cfg, &freely, err);
    int deadlock = rc == 0 && !freely.completed && freely.hang.outcome == RT_SIM_DEADLOCK;
    rt_sim_result_free(&freely);
    if (!deadlock)
        return rc;
    cfg.free_wildcards = 0; /* the path the trace describes */
    rc = rt_sim_run(t, &cfg, &res, err);
    if (rc < 0 || res.completed || res.hang.outcome != RT_SIM_DEADLOCK) {
        rt_sim_result_free(&res);
        return rc;
    }
    cfg.sync_sends = 0; /* a deadlock: is it the buffering? (only when the run as it is replays) */
    rc = rt_sim_run(t, &cfg, &as_is, err);
    int done = as_is.completed;
    rt_sim_result_free(&as_is);
    if (rc == 0 && !done)
        rc = chk_note(c, "buffering not checked: the replay of the run as recorded does not "
                         "complete");
    else if (rc == 0)
        rc = hang_finding(c, RT_CHK_BUFFERING, &res.hang,
                          res.hang.ncycle
                              ? "the run completed only because MPI buffered sends: were they "
                                "synchronous, each of these ranks would wait for the next, the "
                                "last for the first (MPI does not promise the buffering)"
                              : "the run completed only because MPI buffered sends: were they "
                                "synchronous, these ranks would wait for receives that are "
                                "never posted (MPI does not promise the buffering)");
    rt_sim_result_free(&res);
    return rc;
}

int chk_replay(chk *c, const char *path, rt_err *err)
{
    rt_reader *r;
    int rc = rt_reader_open(path, &r, err);
    if (rc < 0)
        return rc;
    rt_sim_trace *t = NULL;
    rc = rt_sim_trace_load(r, &t, err);
    rt_reader_close(r);
    if (rc < 0) {
        char msg[sizeof err->msg];
        snprintf(msg, sizeof msg, "%s", err->msg);
        return rt_err_set(err, -rc, "%s: %s", path, msg);
    }
    const rt_sim_trace_end *end = rt_sim_trace_end_of(t);
    rt_sim_config cfg;
    config(&cfg, t);
    rt_sim_result res;
    if (end->pending && chk_on(c, RT_CHK_DEADLOCK)) {
        rc = rt_sim_run(t, &cfg, &res, err);
        if (rc == 0 && !res.completed)
            rc = recorded_hang(c, &res);
        rt_sim_result_free(&res);
    }
    if (rc == 0 && !end->unfinished && !end->truncated && chk_on(c, RT_CHK_BUFFERING))
        rc = buffering(c, t, err);
    rt_sim_trace_free(t);
    if (rc == -RT_E_NOMEM)
        return rt_err_set(err, RT_E_NOMEM, "%s: out of memory", path);
    return rc;
}
