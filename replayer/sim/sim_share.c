/*
 * Time sharing: a node with more ranks than cores (the model's `cores`), or a recorded host
 * with more ranks than the CPUs they could run on. Two schedules (model key `waiting`; auto,
 * the default, yields for a trace recorded with Open MPI and polls for any other):
 *
 * yield: a rank that waits in a call gives its core up, as an oversubscribed Open MPI does
 * (mpi_yield_when_idle, which mpirun sets when it oversubscribes). Each group of ranks sharing C
 * cores is a run queue: a rank that wants to run (to compute, to spend a call's cost, to return
 * from a call whose wait ended) takes a free core at once, else joins the queue's tail. A rank on a
 * core runs for a timeslice Q; at its end it goes on when the queue is empty, else it goes to the
 * tail and the queue's first takes the core (round robin among ranks that want to run). A
 * rank that starts to wait (blocks in a call, or waits for a completion whose time is known)
 * hands its core to the queue's first at once. Ranks are woken in the engine's order of
 * events, so the schedule is deterministic.
 *
 * poll: an MPI library that waits by polling (MPICH here) always wants a core, and the operating
 * system runs the ranks of a core in turn. The engine takes the simplest schedule that behaves so:
 * the k-th rank of a node (in world rank order) is on core k mod C, and takes turn k / C
 * among the T ranks of that core, T = ceil((R - k mod C) / C) with R ranks on the node; turn
 * j runs during [(iT + j) Q, (iT + j + 1) Q) for i = 0, 1, ..., counted from the start of
 * the replay. A rank computes and enters calls only while it runs (its computation and the
 * CPU cost of a call go on in its next turn when its turn ends), and a call it waits in
 * returns in its first turn after the completion.
 *
 * In both, what the library does meanwhile (a collective's later steps, rendezvous data) is
 * not held back: shared-memory MPIs let a peer copy into a descheduled rank's buffers. But,
 * yielding, a rendezvous request is answered by the receiver's library, which runs on a core
 * only: a receiver that holds none when the request is in (sim_p2p.c) queues for one, answers
 * at once when it gets it, and gives it on unless it wanted it anyway (SIM_CPU_PROGRESS). On
 * a node with at most C ranks nothing changes.
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
        sim_share_rank *st = &s->share[(uint32_t)v[k]];
        uint32_t core = k % cores;
        st->turn = k / cores;
        st->turns = (n - core + cores - 1) / cores;
    }
}

/* ---- the recorded CPU of a computation, yielding -------------------------------------------- */

/* The recorded computations of one rank, as call_enter (sim_core.c) measures them: from its
 * first event, a call's LEAVE or an operation outside any call, to the next call's ENTER or
 * operation outside any call. Each non-empty one adds two points to p (when not NULL), its
 * start (time << 1 | 1) and its end (time << 1), times from the trace's first event. Returns
 * how many points. */
static uint64_t rank_points(const sim *s, uint32_t rank, uint64_t *p)
{
    const sim_rank_events *re = &s->t->ranks[rank];
    uint64_t n = 0, last = re->n ? re->ev[0].time : 0, t0 = s->t->t_first;
    int in_call = 0;
    for (uint32_t i = 0; i < re->n; i++) {
        const rt_event *ev = &re->ev[i];
        if (ev->kind == RT_EV_LEAVE) {
            last = ev->time;
            in_call = 0;
            continue;
        }
        if (ev->kind == RT_EV_COLL_PEER || (in_call && ev->kind != RT_EV_ENTER))
            continue;
        if (ev->time > last) {
            if (p) {
                p[n] = (last - t0) << 1 | 1;
                p[n + 1] = (ev->time - t0) << 1;
            }
            n += 2;
        }
        last = ev->time;
        in_call = ev->kind == RT_EV_ENTER;
    }
    return n;
}

/* The steps of group g (ranks v[0..n)): while k of its ranks computed at once in the
 * recording, each had min(1, cores / k) of a CPU (the others waited in calls, yielding).
 * 0 or -RT_E_NOMEM. */
static int group_steps(sim *s, sim_share_group *g, const uint64_t *v, uint32_t n)
{
    uint64_t np = 0;
    for (uint32_t k = 0; k < n; k++)
        np += rank_points(s, (uint32_t)v[k], NULL);
    if (!np)
        return 0;
    uint64_t *p = malloc(np * sizeof *p);
    g->at = malloc(np * sizeof *g->at);
    g->cum = malloc(np * sizeof *g->cum);
    if (!p || !g->at || !g->cum) {
        free(p);
        return -RT_E_NOMEM;
    }
    for (uint64_t k = 0, at = 0; k < n; k++)
        at += rank_points(s, (uint32_t)v[k], p + at);
    qsort(p, np, sizeof *p, rt_cmp_u64);
    /* the span is below 2^64 / 1000 ns (the loader checked it), and so is the CPU in it */
    rt_u128 cum = 0;
    uint64_t busy = 0, prev = p[0] >> 1;
    uint32_t steps = 0;
    for (uint64_t i = 0; i < np;) {
        uint64_t t = p[i] >> 1;
        rt_u128 dt = (rt_u128)(t - prev) * 1000;
        cum += busy > g->cores ? dt * g->cores / busy : dt;
        g->at[steps] = t;
        g->cum[steps++] = (uint64_t)cum;
        for (; i < np && p[i] >> 1 == t; i++)
            busy = p[i] & 1 ? busy + 1 : busy - 1;
        prev = t;
    }
    free(p);
    g->nsteps = steps;
    return 0;
}

/* The CPU a computing rank of g had from the recording's start to t ns (a time of g's steps;
 * another one counts as the step before it). */
static uint64_t cpu_to(const sim_share_group *g, uint64_t t)
{
    uint32_t lo = 0, hi = g->nsteps;
    while (hi - lo > 1) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (g->at[mid] <= t)
            lo = mid;
        else
            hi = mid;
    }
    return g->cum[lo];
}

uint64_t sim_share_recorded_cpu(const sim *s, uint32_t rank, uint64_t from, uint64_t to)
{
    uint32_t gi = s->share[rank].group;
    if (gi == SIM_NONE || !s->groups[gi].nsteps)
        return (to - from) * 1000;
    const sim_share_group *g = &s->groups[gi];
    uint64_t t0 = s->t->t_first, a = cpu_to(g, from - t0), b = cpu_to(g, to - t0);
    return b > a ? b - a : 0;
}

/* ---- set up ----------------------------------------------------------------------------- */

/* The note that says where the sharing comes from. */
static void share_note(sim *s, int hosts, uint32_t shared, uint32_t most, uint32_t cores)
{
    char q[32];
    rt_net_format_time(s->slice, q, sizeof q);
    const char *how = s->share_yield ? "share their CPUs, yielding them while they wait, in "
                                       "slices of"
                                     : "run in turns of";
    if (hosts)
        sim_buf_printf(&s->notes,
                       "time sharing as recorded: %u host%s more ranks than the CPUs they could "
                       "run on (up to %u ranks on %u CPU%s, the trace's hosts): their ranks "
                       "%s %s (docs/replay.md)\n",
                       (unsigned)shared, shared == 1 ? " had" : "s had", (unsigned)most,
                       (unsigned)cores, cores == 1 ? "" : "s", how, q);
    else
        sim_buf_printf(&s->notes,
                       "time sharing: %u node%s more ranks than cores = %u (up to %u ranks on "
                       "one node): their ranks %s %s (docs/replay.md)\n",
                       (unsigned)shared, shared == 1 ? " has" : "s have", (unsigned)cores,
                       (unsigned)most, how, q);
}

/* Yielding: group gi is the ranks v[0..n) on cores CPUs. 0 or -RT_E_NOMEM. */
static int yield_group(sim *s, uint32_t gi, const uint64_t *v, uint32_t n, uint32_t cores,
                       int hosts)
{
    sim_share_group *g = &s->groups[gi];
    *g = (sim_share_group){cores, 0, SIM_NONE, SIM_NONE, 0, NULL, NULL};
    for (uint32_t k = 0; k < n; k++)
        s->share[(uint32_t)v[k]].group = gi;
    return hosts ? group_steps(s, g, v, n) : 0;
}

int sim_share_init(sim *s)
{
    uint32_t n = s->nranks, *host_cpus = NULL;
    int hosts = recorded_hosts(s);
    if (!hosts && (!s->cfg->model.cores || n <= s->cfg->model.cores))
        return 0;
    /* auto: Open MPI yields when oversubscribed, MPICH polls (docs/replay.md) */
    int waiting = s->cfg->model.waiting;
    s->share_yield =
        waiting == RT_NET_WAIT_YIELD ||
        (waiting == RT_NET_WAIT_AUTO && rt_coll_library_choice(s->defs->library) == RT_ALG_OMPI);
    /* (group << 32 | rank), sorted: each group's ranks together, in rank order. Node ids are
     * whatever the trace or the mapping says, so they are grouped by sorting. */
    uint64_t *v = malloc((size_t)n * sizeof *v);
    s->share = calloc(n, sizeof *s->share);
    if (s->share_yield)
        s->groups = calloc(n, sizeof *s->groups);
    if (hosts && (host_cpus = malloc((size_t)s->defs->nhosts * sizeof *host_cpus)) &&
        rt_defs_host_cpus(s->defs, host_cpus) < 0) {
        free(host_cpus);
        host_cpus = NULL;
    }
    int rc = !v || !s->share || (s->share_yield && !s->groups) || (hosts && !host_cpus)
                 ? -RT_E_NOMEM
                 : 0;
    for (uint32_t r = 0; !rc && r < n; r++) {
        v[r] = (uint64_t)(hosts ? s->defs->rank_host[r].host : s->node[r]) << 32 | r;
        s->share[r].group = s->share[r].next = SIM_NONE;
        s->share[r].hs_head = s->share[r].hs_tail = SIM_NONE;
    }
    if (!rc)
        qsort(v, n, sizeof *v, rt_cmp_u64);
    uint32_t shared = 0, most = 0, most_cores = 0;
    for (uint32_t i = 0, j; !rc && i < n; i = j) {
        for (j = i + 1; j < n && v[j] >> 32 == v[i] >> 32;)
            j++;
        uint32_t on_group = j - i;
        uint32_t cores = hosts ? host_cpus[v[i] >> 32] : s->cfg->model.cores;
        if (on_group <= cores || !cores)
            continue; /* turns 0: runs all the time */
        if (on_group > most)
            most = on_group, most_cores = cores;
        if (s->share_yield)
            rc = yield_group(s, shared, v + i, on_group, cores, hosts);
        else
            share_group(s, v + i, on_group, cores);
        shared++;
    }
    free(v);
    free(host_cpus);
    if (rc < 0) {
        sim_share_free(s);
        return sim_fail(s, RT_E_NOMEM, "out of memory (time sharing, %u ranks)", (unsigned)n);
    }
    if (!shared) {
        sim_share_free(s);
        return 0;
    }
    s->ngroups = shared;
    s->share_recorded = hosts;
    s->slice = s->cfg->model.timeslice_ps;
    share_note(s, hosts, shared, most, most_cores);
    return 0;
}

void sim_share_free(sim *s)
{
    for (uint32_t i = 0; s->groups && i < s->nranks; i++) {
        free(s->groups[i].at);
        free(s->groups[i].cum);
    }
    free(s->groups);
    free(s->share);
    s->groups = NULL;
    s->share = NULL;
    s->share_yield = 0;
    s->ngroups = 0;
}

/* ---- yielding ------------------------------------------------------------------------------ */

/* The rendezvous requests waiting for rank are answered at t: it is on a core (sim_pend.next
 * links them in the order they came in). */
static void answer(sim *s, sim_share_rank *sr, uint64_t t)
{
    for (uint32_t p = sr->hs_head, n; p != SIM_NONE; p = n) {
        n = s->pends[p].next;
        sim_rndv_reply(s, p, t);
    }
    sr->hs_head = sr->hs_tail = SIM_NONE;
}

/* rank takes a core of its group at its clock, for a slice. */
static void cpu_on(sim *s, uint32_t rank)
{
    sim_share_rank *sr = &s->share[rank];
    sr->cpu = SIM_CPU_ON;
    sr->slice_end = sim_add(s, s->ranks[rank].clock, s->slice);
    if (sr->hs_head != SIM_NONE)
        answer(s, sr, s->ranks[rank].clock);
}

static void queue_tail(sim_share_group *g, sim_share_rank *share, uint32_t rank)
{
    share[rank].cpu = SIM_CPU_QUEUED;
    share[rank].next = SIM_NONE;
    if (g->tail == SIM_NONE)
        g->head = rank;
    else
        share[g->tail].next = rank;
    g->tail = rank;
}

/* A core of g is free at t: the run queue's first, if any, takes it and runs from t. A rank
 * queued only to answer rendezvous requests has it for an instant (its clock stays: it still
 * waits), and the next one takes it. */
static void cpu_hand(sim *s, sim_share_group *g, uint64_t t)
{
    if (t < s->now)
        t = s->now;
    for (uint32_t h; (h = g->head) != SIM_NONE;) {
        g->head = s->share[h].next;
        if (g->head == SIM_NONE)
            g->tail = SIM_NONE;
        if (s->share[h].cpu == SIM_CPU_PROGRESS) {
            s->share[h].cpu = SIM_CPU_OFF;
            answer(s, &s->share[h], t);
            continue;
        }
        g->running++;
        if (s->ranks[h].clock < t)
            s->ranks[h].clock = t;
        cpu_on(s, h);
        sim_queue_push(s, s->ranks[h].clock, SIM_H_RANK, h);
        return;
    }
}

int sim_share_take(sim *s, uint32_t rank)
{
    sim_share_rank *sr = &s->share[rank];
    if (sr->group == SIM_NONE || sr->cpu == SIM_CPU_ON)
        return 1;
    if (sr->cpu == SIM_CPU_PROGRESS) /* queued already: now to run */
        sr->cpu = SIM_CPU_QUEUED;
    if (sr->cpu == SIM_CPU_QUEUED)
        return 0;
    sim_share_group *g = &s->groups[sr->group];
    if (g->running < g->cores) {
        g->running++;
        cpu_on(s, rank);
        return 1;
    }
    queue_tail(g, s->share, rank);
    return 0;
}

void sim_share_handshake(sim *s, uint32_t rank, uint32_t p)
{
    sim_share_rank *sr = &s->share[rank];
    const sim_share_group *g = &s->groups[sr->group];
    /* on a core, or one is free for it (then the run queue is empty) */
    if (sr->cpu == SIM_CPU_ON || (sr->cpu == SIM_CPU_OFF && g->running < g->cores)) {
        sim_rndv_reply(s, p, s->now);
        return;
    }
    s->pends[p].next = SIM_NONE;
    if (sr->hs_head == SIM_NONE)
        sr->hs_head = p;
    else
        s->pends[sr->hs_tail].next = p;
    sr->hs_tail = p;
    if (sr->cpu == SIM_CPU_OFF) { /* waiting in a call, or done: wants a core for this only */
        queue_tail(&s->groups[sr->group], s->share, rank);
        sr->cpu = SIM_CPU_PROGRESS;
    }
}

void sim_share_release(sim *s, uint32_t rank)
{
    sim_share_rank *sr = &s->share[rank];
    if (sr->cpu != SIM_CPU_ON)
        return;
    sim_share_group *g = &s->groups[sr->group];
    sr->cpu = SIM_CPU_OFF;
    g->running--;
    cpu_hand(s, g, s->ranks[rank].clock);
}

int sim_share_burn(sim *s, uint32_t rank, uint64_t *left)
{
    sim_share_rank *sr = &s->share[rank];
    sim_rank *rk = &s->ranks[rank];
    if (sr->group == SIM_NONE) {
        rk->clock = sim_add(s, rk->clock, *left);
        *left = 0;
        return 1;
    }
    sim_share_group *g = &s->groups[sr->group];
    while (!s->rc) {
        uint64_t room = sr->slice_end > rk->clock ? sr->slice_end - rk->clock : 0;
        if (*left <= room) {
            rk->clock += *left;
            *left = 0;
            return 1;
        }
        *left -= room;
        rk->clock += room; /* the slice's end */
        uint64_t next = sim_queue_first(&s->q);
        if (next < rk->clock) { /* what happens before may queue ranks: decide after it */
            sim_queue_push(s, rk->clock, SIM_H_RANK, rank);
            return 0;
        }
        if (g->head != SIM_NONE) { /* its turn is over: to the queue's tail */
            queue_tail(g, s->share, rank);
            g->running--;
            cpu_hand(s, g, rk->clock);
            return 0;
        }
        if (next - rk->clock >= *left) { /* nobody can want a core before it is done */
            rt_u128 slices = ((rt_u128)*left + s->slice - 1) / s->slice;
            sr->slice_end = sim_time(s, rk->clock + slices * s->slice);
            rk->clock = sim_add(s, rk->clock, *left);
            *left = 0;
            return 1;
        }
        sr->slice_end = sim_add(s, rk->clock, s->slice); /* another slice */
    }
    return 0;
}

/* ---- fixed turns ------------------------------------------------------------------------- */
/* In 128 bits: the timeslice is the model's (up to 2^64 - 1 ps) and a core may have 2^32
 * turns, so a period and the start of a later turn may pass 2^64; sim_time checks what
 * comes out. A period past 2^64 holds every representable time in its first round. */
static rt_u128 phase_of(uint64_t t, rt_u128 period)
{
    return period > UINT64_MAX ? t : t % (uint64_t)period;
}

uint64_t sim_share_run_from(sim *s, uint32_t rank, uint64_t t)
{
    const sim_share_rank *st = &s->share[rank];
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
    const sim_share_rank *st = &s->share[rank];
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
