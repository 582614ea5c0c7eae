/*
 * Time sharing: a node with more ranks than cores (the model's `cores`). An MPI library
 * waits by polling, so every rank always wants a core, and the operating system runs the
 * ranks of a core in turn, each for a timeslice Q. The engine takes the simplest schedule
 * that behaves so: the k-th rank of a node (in world rank order) is on core k mod C, and
 * takes turn k / C among the T ranks of that core, T = ceil((R - k mod C) / C) with R ranks
 * on the node; turn j runs during [(iT + j) Q, (iT + j + 1) Q) for i = 0, 1, ..., counted
 * from the start of the replay. A rank computes and enters calls only while it runs (its
 * computation and the CPU cost of a call go on in its next turn when its turn ends), and a
 * call it waits in returns in its first turn after the completion. What the library does
 * meanwhile (a collective's later steps, rendezvous data) is not held back: shared-memory
 * MPIs let a peer copy into a descheduled rank's buffers. On a node with at most C ranks
 * nothing changes.
 */
#include <stdlib.h>

#include "rt__sim.h"

/* Who shares CPUs with whom: 1 when the replay is of the recorded placement and the trace
 * names every rank's real host (rt_rank_host): the groups are the hosts, with the CPUs their
 * ranks could run on together; else the model's: nodes of cores CPUs each. */
static int recorded_hosts(const sim *s)
{
    const rt_defs *d = s->defs;
    if (!s->cfg->share_hosts || s->cfg->node || !d->rank_host)
        return 0;
    for (uint32_t r = 0; r < d->nranks; r++)
        if (d->rank_host[r].host == RT_ID_NONE)
            return 0;
    return 1;
}

/* The turns of the ranks of one group v[0..n) (sorted: rank order) on cores CPUs. */
static void share_group(sim *s, const uint64_t *v, uint32_t n, uint32_t cores)
{
    for (uint32_t k = 0; k < n; k++) {
        sim_share_turn *st = &s->share[(uint32_t)v[k]];
        uint32_t core = k % cores;
        st->turn = k / cores;
        st->turns = (n - core + cores - 1) / cores;
    }
}

/* The note that says where the sharing comes from. */
static void share_note(sim *s, int hosts, uint32_t shared, uint32_t most, uint32_t cores)
{
    char q[32];
    rt_net_format_time(s->slice, q, sizeof q);
    if (hosts)
        sim_buf_printf(&s->notes,
                       "time sharing as recorded: %u host%s more ranks than the CPUs they could "
                       "run on (up to %u ranks on %u CPU%s, the trace's hosts): their ranks "
                       "run in turns of %s (docs/replay.md)\n",
                       (unsigned)shared, shared == 1 ? " had" : "s had", (unsigned)most,
                       (unsigned)cores, cores == 1 ? "" : "s", q);
    else
        sim_buf_printf(&s->notes,
                       "time sharing: %u node%s more ranks than cores = %u (up to %u ranks on "
                       "one node): their ranks run in turns of %s (docs/replay.md)\n",
                       (unsigned)shared, shared == 1 ? " has" : "s have", (unsigned)cores,
                       (unsigned)most, q);
}

int sim_share_init(sim *s)
{
    uint32_t n = s->nranks, *host_cpus = NULL;
    int hosts = recorded_hosts(s);
    if (!hosts && (!s->cfg->model.cores || n <= s->cfg->model.cores))
        return 0;
    /* (group << 32 | rank), sorted: each group's ranks together, in rank order. Node ids are
     * whatever the trace or the mapping says, so they are grouped by sorting. */
    uint64_t *v = malloc((size_t)n * sizeof *v);
    s->share = calloc(n, sizeof *s->share);
    if (hosts && (host_cpus = malloc((size_t)s->defs->nhosts * sizeof *host_cpus)) &&
        rt_defs_host_cpus(s->defs, host_cpus) < 0) {
        free(host_cpus);
        host_cpus = NULL;
    }
    if (!v || !s->share || (hosts && !host_cpus)) {
        free(v);
        free(host_cpus);
        sim_share_free(s);
        return sim_fail(s, RT_E_NOMEM, "out of memory (time sharing, %u ranks)", (unsigned)n);
    }
    for (uint32_t r = 0; r < n; r++)
        v[r] = (uint64_t)(hosts ? s->defs->rank_host[r].host : s->node[r]) << 32 | r;
    qsort(v, n, sizeof *v, rt_cmp_u64);
    uint32_t shared = 0, most = 0, most_cores = 0;
    for (uint32_t i = 0, j; i < n; i = j) {
        for (j = i + 1; j < n && v[j] >> 32 == v[i] >> 32;)
            j++;
        uint32_t on_group = j - i;
        uint32_t cores = hosts ? host_cpus[v[i] >> 32] : s->cfg->model.cores;
        if (on_group <= cores || !cores)
            continue; /* turns 0: runs all the time */
        shared++;
        if (on_group > most)
            most = on_group, most_cores = cores;
        share_group(s, v + i, on_group, cores);
    }
    free(v);
    free(host_cpus);
    if (!shared) {
        sim_share_free(s);
        return 0;
    }
    s->share_recorded = hosts;
    s->slice = s->cfg->model.timeslice_ps;
    share_note(s, hosts, shared, most, most_cores);
    return 0;
}

void sim_share_free(sim *s)
{
    free(s->share);
    s->share = NULL;
}

/* In 128 bits: the timeslice is the model's (up to 2^64 - 1 ps) and a core may have 2^32
 * turns, so a period and the start of a later turn may pass 2^64; sim_time checks what
 * comes out. A period past 2^64 holds every representable time in its first round. */
static rt_u128 phase_of(uint64_t t, rt_u128 period)
{
    return period > UINT64_MAX ? t : t % (uint64_t)period;
}

uint64_t sim_share_run_from(sim *s, uint32_t rank, uint64_t t)
{
    const sim_share_turn *st = &s->share[rank];
    if (st->turns <= 1)
        return t;
    rt_u128 q = s->slice, period = q * st->turns, start = q * st->turn;
    rt_u128 phase = phase_of(t, period);
    if (phase >= start && phase - start < q)
        return t;
    return sim_time(s, t - phase + start + (phase < start ? 0 : period));
}

uint64_t sim_share_advance(sim *s, uint32_t rank, uint64_t t, uint64_t d)
{
    const sim_share_turn *st = &s->share[rank];
    if (st->turns <= 1)
        return sim_add(s, t, d);
    t = sim_share_run_from(s, rank, t);
    if (s->rc) /* the run has failed (t past SIM_TIME_MAX is no time in a turn): stop here */
        return SIM_TIME_MAX;
    rt_u128 q = s->slice, period = q * st->turns;
    rt_u128 left = q - (phase_of(t, period) - q * st->turn); /* of this turn */
    if (d <= left)
        return sim_time(s, (rt_u128)t + d);
    d -= (uint64_t)left;
    rt_u128 next = t + left + period - q; /* the start of the next turn */
    uint64_t whole = (d - 1) / s->slice;  /* turns used up entirely: whole * period <= d turns */
    return sim_time(s, next + whole * period + (d - whole * s->slice));
}
