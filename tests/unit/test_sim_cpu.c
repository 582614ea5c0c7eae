/*
 * Unit tests of what the CPU adds to the built-in engine's replay: the CPU costs of calls
 * (the model's [calls]), computation scaled, collectives of one member that cost only
 * their call, and ranks taking turns on too few cores (replayer/sim/sim_share.c). Replay
 * times worked out by hand under the LogP model of test_sim.h; times in comments are in
 * microseconds.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "rt_test_main.h"

#include "test_sim.h"

/* ---- CPU costs of calls and scaled computation ----------------------------------------------- */

/* [calls] costs are spent when a call is entered, as MPI time, before its operations: rank
 * 0's send leaves 3 us late (2 us + 1000 B at 1 GB/s), rank 1's receive is posted 0.5 us
 * late. Computation is scaled: rank 0's 10 us gap becomes 5 us. */
static void test_call_costs(void **state)
{
    (void)state;
    st_text t = {0};
    st_add(&t, "ranks,2\n");
    st_init(&t, 0);
    st_init(&t, 1);
    st_send(&t, 0, 10000, 1, 0, 1000);
    st_recv(&t, 1, 0, 0, 0, 1000, "");
    rt_sim_config c;
    st_logp_config(&c, EAGER);
    rt_sim_result res;
    rt_sim_trace *tr = st_load(t.s);
    st_run(tr, &c, &res); /* without costs: sent at 10 us, in at 10 us + wire */
    assert_int_equal(res.ranks[0].end_ps, 10 * US + st_wire(1000));
    assert_int_equal(res.ranks[1].end_ps, 10 * US + st_wire(1000) + O_PS);
    rt_sim_result_free(&res);

    c.model.call[RT_FN_Send] = (rt_net_call){2 * US, 1000000000};
    c.model.call[RT_FN_Recv] = (rt_net_call){500 * NS, 0};
    c.compute_scale_ppm = 500000;
    st_run(tr, &c, &res);
    assert_int_equal(res.completed, 1);
    assert_int_equal(res.ranks[0].compute_ps, 5 * US);
    assert_int_equal(res.ranks[0].end_ps, 5 * US + 3 * US + st_wire(1000));
    assert_int_equal(res.ranks[0].mpi_ps, 3 * US + st_wire(1000));
    assert_int_equal(res.ranks[1].end_ps, 8 * US + st_wire(1000) + O_PS);
    assert_int_equal(res.ranks[1].mpi_ps, res.ranks[1].end_ps);
    rt_sim_result_free(&res);

    /* scale 0: communication only; 1.5: 15 us */
    c.compute_scale_ppm = 0;
    st_run(tr, &c, &res);
    assert_int_equal(res.ranks[0].end_ps, 3 * US + st_wire(1000));
    rt_sim_result_free(&res);
    c.compute_scale_ppm = 1500000;
    st_run(tr, &c, &res);
    assert_int_equal(res.ranks[0].end_ps, 18 * US + st_wire(1000));
    rt_sim_result_free(&res);
    rt_sim_trace_free(tr);
    st_free(&t);

    /* A collective's cost takes the bytes it sends (coll_begin carries none): a 1000-byte
     * allreduce costing n / 1 GB/s on both ranks ends exactly 1 us later, a barrier costing
     * 700 ns 700 ns later. */
    st_add(&t, "ranks,2\n");
    for (unsigned r = 0; r < 2; r++) {
        st_call(&t, r, 0, "MPI_Allreduce", "coll_begin,MPI_Allreduce,,,,,,,,",
                "coll_end,MPI_Allreduce,0,,,1000,1000,,,allreduce");
        st_call(&t, r, 0, "MPI_Barrier", "coll_begin,MPI_Barrier,,,,,,,,",
                "coll_end,MPI_Barrier,0,,,0,0,,,barrier");
    }
    tr = st_load(t.s);
    st_logp_config(&c, EAGER);
    st_run(tr, &c, &res);
    uint64_t base = res.time_ps;
    rt_sim_result_free(&res);
    c.model.call[RT_FN_Allreduce] = (rt_net_call){0, 1000000000};
    st_run(tr, &c, &res);
    assert_int_equal(res.time_ps, base + US);
    rt_sim_result_free(&res);
    c.model.call[RT_FN_Barrier] = (rt_net_call){700 * NS, 0};
    st_run(tr, &c, &res);
    assert_int_equal(res.time_ps, base + US + 700 * NS);
    assert_int_equal(res.mpi_ps, 2 * res.time_ps);
    rt_sim_result_free(&res);
    rt_sim_trace_free(tr);
    st_free(&t);
}

/* [calls] MPI_Allreduce/ring: a blocking collective run under an algorithm the model has a
 * cost for costs that, in place of its function's cost; under another algorithm the
 * function's. A 1000-byte allreduce on 2 ranks (MPICH's choice: 125 doubles, Rabenseifner)
 * with MPI_Allreduce = 1 us, ring = 300 ns + n / 1 GB/s (1.3 us), recursive_doubling = 0 ns:
 * each replay ends exactly its algorithm's cost after the one without costs, with and
 * without the fast path, and the 0 ns of recursive doubling replaces the function's 1 us. */
static void test_alg_costs(void **state)
{
    (void)state;
    st_text t = {0};
    st_add(&t, "ranks,2\n");
    for (unsigned r = 0; r < 2; r++)
        st_call(&t, r, 0, "MPI_Allreduce", "coll_begin,MPI_Allreduce,,,,,,,,",
                "coll_end,MPI_Allreduce,0,,,1000,1000,,,allreduce");
    rt_sim_trace *tr = st_load(t.s);
    st_free(&t);
    static const struct {
        unsigned alg;   /* --coll allreduce= */
        uint64_t extra; /* the cost charged */
    } cases[] = {
        {RT_ALG_MPICH, 1 * US},        /* Rabenseifner: no cost of its own */
        {RT_ALG_RABENSEIFNER, 1 * US}, /* the same, forced */
        {RT_ALG_RING, 1300 * NS},      /* its own */
        {RT_ALG_RDB, 0},               /* its own: none */
        {RT_ALG_REDUCE_BCAST, 1 * US}, /* none of its own */
    };
    for (int fast = 0; fast < 2; fast++)
        for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
            rt_sim_config c;
            st_logp_config(&c, EAGER);
            c.no_fast_coll = !fast;
            c.alg[RT_COLL_ALLREDUCE] = (uint8_t)cases[i].alg;
            rt_sim_result res;
            st_run(tr, &c, &res);
            uint64_t base = res.time_ps, base0 = res.ranks[0].mpi_ps;
            rt_sim_result_free(&res);
            c.model.call[RT_FN_Allreduce] = (rt_net_call){US, 0};
            c.model.alg_call[RT_COLL_ALLREDUCE][RT_ALG_RING] = (rt_net_call){300 * NS, 1000000000};
            c.model.alg_set[RT_COLL_ALLREDUCE][RT_ALG_RING] = 1;
            c.model.alg_set[RT_COLL_ALLREDUCE][RT_ALG_RDB] = 1;
            c.model.alg_call[RT_COLL_BCAST][RT_ALG_BINOMIAL] = (rt_net_call){50 * US, 0};
            c.model.alg_set[RT_COLL_BCAST][RT_ALG_BINOMIAL] = 1; /* another op: not charged */
            st_run(tr, &c, &res);
            assert_int_equal(res.completed, 1);
            assert_int_equal(res.time_ps, base + cases[i].extra);
            assert_int_equal(res.ranks[0].mpi_ps, base0 + cases[i].extra); /* time in MPI */
            rt_sim_result_free(&res);
        }
    /* MPICH's choice at 8 bytes is recursive doubling: its 0 ns, not the function's 1 us */
    st_add(&t, "ranks,2\n");
    for (unsigned r = 0; r < 2; r++)
        st_call(&t, r, 0, "MPI_Allreduce", "coll_begin,MPI_Allreduce,,,,,,,,",
                "coll_end,MPI_Allreduce,0,,,8,8,,,allreduce");
    rt_sim_trace *small = st_load(t.s);
    st_free(&t);
    rt_sim_config c;
    st_logp_config(&c, EAGER);
    rt_sim_result res;
    st_run(small, &c, &res);
    uint64_t base = res.time_ps;
    rt_sim_result_free(&res);
    c.model.call[RT_FN_Allreduce] = (rt_net_call){US, 0};
    c.model.alg_set[RT_COLL_ALLREDUCE][RT_ALG_RDB] = 1;
    c.model.alg_call[RT_COLL_ALLREDUCE][RT_ALG_RDB] = (rt_net_call){40 * NS, 0};
    st_run(small, &c, &res);
    assert_int_equal(res.time_ps, base + 40 * NS);
    rt_sim_result_free(&res);
    rt_sim_trace_free(small);
    rt_sim_trace_free(tr);
}

/* A collective with one member (a one-rank trace, or MPI_COMM_SELF) moves nothing: its
 * schedule has no steps and it completes where it starts, costing only its [calls] cost. It
 * used to fail the replay with "out of memory (collective schedule)" (a kept schedule with
 * no steps had no buffer), and one on MPI_COMM_SELF of a rank other than 0 took the rank for
 * a non-member ("takes no time in the replay" note). With and without the fast path. */
static void test_one_member_collectives(void **state)
{
    (void)state;
    st_text t = {0};
    st_add(&t, "ranks,1\n");
    st_call(&t, 0, 0, "MPI_Barrier", "coll_begin,MPI_Barrier,,,,,,,,",
            "coll_end,MPI_Barrier,0,,,0,0,,,barrier");
    st_call(&t, 0, 10, "MPI_Allreduce", "coll_begin,MPI_Allreduce,,,,,,,,",
            "coll_end,MPI_Allreduce,0,,,1000,1000,,,allreduce");
    st_call(&t, 0, 20, "MPI_Bcast", "coll_begin,MPI_Bcast,,,,,,,,",
            "coll_end,MPI_Bcast,0,0,,1000,0,,,bcast");
    rt_sim_trace *one = st_load(t.s);
    st_free(&t);
    /* two ranks, each: a barrier and an allreduce on MPI_COMM_SELF (communicator 1) */
    st_add(&t, "ranks,2\n");
    for (unsigned r = 0; r < 2; r++) {
        st_call(&t, r, 0, "MPI_Barrier", "coll_begin,MPI_Barrier,,,,,,,,",
                "coll_end,MPI_Barrier,1,,,0,0,,,barrier");
        st_call(&t, r, 0, "MPI_Allreduce", "coll_begin,MPI_Allreduce,,,,,,,,",
                "coll_end,MPI_Allreduce,1,,,1000,1000,,,allreduce");
    }
    rt_sim_trace *self = st_load(t.s);
    st_free(&t);
    for (int fast = 0; fast < 2; fast++) {
        rt_sim_config c;
        st_logp_config(&c, EAGER);
        c.no_fast_coll = !fast;
        rt_sim_result res;
        st_run(one, &c, &res); /* the recorded 20 ns between the calls, nothing else */
        assert_int_equal(res.completed, 1);
        assert_null(res.report);
        assert_null(res.notes);
        assert_int_equal(res.messages, 0);
        assert_int_equal(res.time_ps, 20 * NS);
        assert_int_equal(res.mpi_ps, 0);
        rt_sim_result_free(&res);
        st_run(self, &c, &res);
        assert_int_equal(res.completed, 1);
        assert_null(res.notes);
        assert_int_equal(res.time_ps, 0);
        rt_sim_result_free(&res);

        /* barrier 700 ns, allreduce 1000 B at 1 GB/s = 1 us, bcast 50 ns */
        c.model.call[RT_FN_Barrier] = (rt_net_call){700 * NS, 0};
        c.model.call[RT_FN_Allreduce] = (rt_net_call){0, 1000000000};
        c.model.call[RT_FN_Bcast] = (rt_net_call){50 * NS, 0};
        st_run(one, &c, &res);
        assert_int_equal(res.completed, 1);
        assert_int_equal(res.time_ps, 700 * NS + US + 50 * NS + 20 * NS);
        assert_int_equal(res.mpi_ps, 700 * NS + US + 50 * NS);
        rt_sim_result_free(&res);
        st_run(self, &c, &res);
        assert_int_equal(res.completed, 1);
        assert_null(res.notes);
        for (unsigned r = 0; r < 2; r++)
            assert_int_equal(res.ranks[r].end_ps, 700 * NS + US);
        rt_sim_result_free(&res);
    }
    rt_sim_trace_free(one);
    rt_sim_trace_free(self);
}

/* The LogP model of test_sim.h with ranks sharing cores cores, in slices of slice_ps, waiting as
 * RT_NET_WAIT_*. */
static void share_config(rt_sim_config *c, uint32_t cores, uint64_t slice_ps, int waiting)
{
    st_logp_config(c, EAGER);
    c->model.cores = cores;
    c->model.timeslice_ps = slice_ps;
    c->model.waiting = waiting;
}

/* Fixed turns (model waiting = poll). Four ranks on one node with two cores, turns of 10 us:
 * ranks 0 and 1 run in [0, 10),
 * [20, 30), ... (turn 0 of 2 on cores 0 and 1), ranks 2 and 3 in [10, 20), [30, 40), ... */
static void test_time_sharing(void **state)
{
    (void)state;
    st_text t = {0};
    st_add(&t, "ranks,4\n");
    for (unsigned r = 0; r < 4; r++) {
        st_init(&t, r);
        st_call(&t, r, 25000, "MPI_Finalize", NULL, NULL); /* 25 us of computation */
    }
    rt_sim_trace *tr = st_load(t.s);
    rt_sim_config c;
    share_config(&c, 2, 10 * US, RT_NET_WAIT_POLL);
    rt_sim_result res;
    st_run(tr, &c, &res);
    assert_int_equal(res.completed, 1);
    /* 25 us of turns from 0: [0, 10), [20, 30), [40, 45) */
    assert_int_equal(res.ranks[0].end_ps, 45 * US);
    assert_int_equal(res.ranks[1].end_ps, 45 * US);
    /* the first turn at 10 us: [10, 20), [30, 40), [50, 55) */
    assert_int_equal(res.ranks[2].end_ps, 55 * US);
    assert_int_equal(res.ranks[3].end_ps, 55 * US);
    assert_int_equal(res.ranks[2].compute_ps, 25 * US);
    assert_int_equal(res.ranks[2].mpi_ps, 0);
    assert_non_null(res.notes);
    assert_string_equal(res.notes, "time sharing: 1 node has more ranks than cores = 2 (up to 4 "
                                   "ranks on one node): their ranks run in turns of 10 us "
                                   "(docs/replay.md)\n");
    rt_sim_result_free(&res);
    c.model.cores = 4; /* a core each: no turns, no note */
    st_run(tr, &c, &res);
    for (unsigned r = 0; r < 4; r++)
        assert_int_equal(res.ranks[r].end_ps, 25 * US);
    assert_null(res.notes);
    rt_sim_result_free(&res);
    rt_sim_trace_free(tr);
    st_free(&t);

    /* 0 -> 2 and 3 -> 1, all posted at 0. Rank 2 receives in its first turn, the message
     * long in: at 10 us + o. Rank 3 sends when its turn starts, at 10 us; rank 1 waits,
     * polling: the message is in at 10 us + wire, and rank 1 sees it in its next turn. */
    st_add(&t, "ranks,4\n");
    st_send(&t, 0, 0, 2, 0, 1000);
    st_recv(&t, 2, 0, 0, 0, 1000, "");
    st_send(&t, 3, 0, 1, 0, 1000);
    st_recv(&t, 1, 0, 3, 0, 1000, "");
    tr = st_load(t.s);
    c.model.cores = 2;
    st_run(tr, &c, &res);
    assert_int_equal(res.completed, 1);
    assert_int_equal(res.ranks[2].end_ps, 10 * US + O_PS);
    assert_int_equal(res.ranks[3].end_ps, 10 * US + res.ranks[0].end_ps);
    assert_true(10 * US + st_wire(1000) + O_PS < 20 * US);
    assert_int_equal(res.ranks[1].end_ps, 20 * US);
    assert_int_equal(res.ranks[1].mpi_ps, 20 * US);
    rt_sim_result_free(&res);
    c.model.cores = 0; /* the default: no sharing */
    st_run(tr, &c, &res);
    assert_int_equal(res.ranks[1].end_ps, st_wire(1000) + O_PS);
    rt_sim_result_free(&res);
    rt_sim_trace_free(tr);
    st_free(&t);
}

/* Yielding (the default, model waiting = yield): a rank that waits in a call gives its core
 * to a rank of its group that wants it, and takes a core again when its wait ends: at once
 * when one is free, else at the end of a running rank's slice. */
static void test_time_sharing_yield(void **state)
{
    (void)state;
    st_text t = {0};
    /* four ranks computing 25 us on two cores, slices of 10 us: ranks 0 and 1 in [0, 10),
     * [20, 30), [40, 45); ranks 2 and 3 in [10, 20), [30, 40) and, once ranks 0 and 1 are
     * done and give their cores up, [45, 50) (fixed turns: [50, 55), test_time_sharing) */
    st_add(&t, "ranks,4\n");
    for (unsigned r = 0; r < 4; r++) {
        st_init(&t, r);
        st_call(&t, r, 25000, "MPI_Finalize", NULL, NULL);
    }
    rt_sim_trace *tr = st_load(t.s);
    rt_sim_config c;
    st_logp_config(&c, EAGER);
    c.model.cores = 2;
    c.model.timeslice_ps = 10 * US;
    rt_sim_result res;
    st_run(tr, &c, &res); /* waiting = auto, a trace of no known library: fixed turns */
    assert_int_equal(res.ranks[2].end_ps, 55 * US);
    rt_sim_result_free(&res);
    c.model.waiting = RT_NET_WAIT_YIELD;
    st_run(tr, &c, &res);
    assert_int_equal(res.completed, 1);
    assert_int_equal(res.ranks[0].end_ps, 45 * US);
    assert_int_equal(res.ranks[1].end_ps, 45 * US);
    assert_int_equal(res.ranks[2].end_ps, 50 * US);
    assert_int_equal(res.ranks[3].end_ps, 50 * US);
    assert_int_equal(res.ranks[3].compute_ps, 25 * US);
    assert_string_equal(res.notes, "time sharing: 1 node has more ranks than cores = 2 (up to 4 "
                                   "ranks on one node): their ranks share their CPUs, yielding "
                                   "them while they wait, in slices of 10 us (docs/replay.md)\n");
    rt_sim_result_free(&res);
    rt_sim_trace_free(tr);
    st_free(&t);

    /* two ranks on one core, slices of 4 ms: rank 0 waits in a receive from 0 on while rank
     * 1 computes 10 ms, then sends. Yielding, rank 1 has the core from 0 on and is not held
     * back: both end as with a core each. Polling in fixed turns, rank 0 keeps the core in
     * [0, 4), [8, 12) and [16, 20): rank 1 computes in [4, 8), [12, 16) and [20, 22), sends at
     * 22 ms, and rank 0 returns in its next turn, at 24 ms. */
    st_add(&t, "ranks,2\n");
    st_init(&t, 0);
    st_init(&t, 1);
    st_recv(&t, 0, 0, 1, 0, 1000, "");
    st_send(&t, 1, 10000000, 0, 0, 1000);
    tr = st_load(t.s);
    c.model.cores = 1;
    c.model.timeslice_ps = 4000 * US;
    st_run(tr, &c, &res);
    assert_int_equal(res.completed, 1);
    assert_int_equal(res.ranks[1].end_ps, 10000 * US + st_wire(1000));
    assert_int_equal(res.ranks[0].end_ps, 10000 * US + st_wire(1000) + O_PS);
    assert_int_equal(res.ranks[0].mpi_ps, 10000 * US + st_wire(1000) + O_PS);
    rt_sim_result_free(&res);
    c.model.waiting = RT_NET_WAIT_POLL;
    st_run(tr, &c, &res);
    assert_int_equal(res.ranks[1].end_ps, 22000 * US + st_wire(1000));
    assert_int_equal(res.ranks[0].end_ps, 24000 * US);
    rt_sim_result_free(&res);
    rt_sim_trace_free(tr);
    st_free(&t);

    /* three ranks on one core, slices of 4 ms. Rank 0 waits for rank 2's message from 0 on,
     * rank 1 computes 20 ms, rank 2 computes 1 ms and sends. The run queue is 1, 2: rank 1
     * runs in [0, 4), rank 2 in [4, 5); its send then waits for the message's injection (this
     * model's eager send ends when the data is in, at w = 5 ms + wire), yielding: rank 1 has the
     * core back at 5 ms for a slice to 9 ms. Rank 2 (at w) and rank 0 (its receive done at w
     * + o) queue for it: at 9 ms rank 2 leaves its send and ends, then rank 0, both at once,
     * and rank 1 has its 12 ms left from 9 ms on. */
    st_add(&t, "ranks,3\n");
    for (unsigned r = 0; r < 3; r++)
        st_init(&t, r);
    st_recv(&t, 0, 0, 2, 0, 1000, "");
    st_call(&t, 1, 20000000, "MPI_Finalize", NULL, NULL);
    st_send(&t, 2, 1000000, 0, 0, 1000);
    tr = st_load(t.s);
    c.model.waiting = RT_NET_WAIT_YIELD;
    st_run(tr, &c, &res);
    assert_int_equal(res.completed, 1);
    assert_true(5000 * US + st_wire(1000) + O_PS < 9000 * US);
    assert_int_equal(res.ranks[2].end_ps, 9000 * US);
    assert_int_equal(res.ranks[2].mpi_ps, 4000 * US);
    assert_int_equal(res.ranks[0].end_ps, 9000 * US);
    assert_int_equal(res.ranks[0].mpi_ps, 9000 * US);
    assert_int_equal(res.ranks[1].end_ps, 21000 * US);
    assert_int_equal(res.ranks[1].compute_ps, 20000 * US);
    rt_sim_result_free(&res);
    rt_sim_trace_free(tr);
    st_free(&t);
}

/* Recorded sharing, yielding: ranks 0 and 1 ran on one CPU. Rank 0 computed from 0 to 10 ms,
 * rank 1 from 0 to 4 ms, then waited in an allreduce. In [0, 4) both computed, each on half
 * of the CPU; in [4, 10) rank 0 alone, rank 1 yielding: rank 0 computed 2 + 6 = 8 ms, rank 1
 * 2 ms. The replay gives each that on the one CPU: rank 0 in [0, 4) and [6, 10), rank 1 in
 * [4, 6), and the allreduce ends when it ends with a CPU each (rank 0 entering it at 10 ms).
 * Recorded with Open MPI, the default waiting = auto yields. Fixed turns take 1/2 of each
 * gap: 5 ms and 2 ms. */
static void test_time_sharing_recorded(void **state)
{
    (void)state;
    st_text t = {0};
    st_add(&t, "ranks,2\nmpi_library,Open MPI 4.1.4\nhost,0,2,1,node-a,0\nhost,1,2,1,node-a,0\n");
    st_init(&t, 0);
    st_init(&t, 1);
    const char *ar[] = {"enter,MPI_Allreduce,,,,,,,,", "coll_begin,MPI_Allreduce,,,,,,,,",
                        "coll_end,MPI_Allreduce,0,,,8,8,,,allreduce",
                        "leave,MPI_Allreduce,,,,,,,,"};
    const unsigned long long at[2][4] = {{10000000, 10000000, 10000000, 10000000},
                                         {4000000, 4000000, 10000000, 10000000}};
    for (unsigned r = 0; r < 2; r++)
        for (unsigned k = 0; k < 4; k++)
            st_add(&t, "%u,%llu,%s\n", r, at[r][k], ar[k]);
    rt_sim_trace *tr = st_load(t.s);
    rt_sim_config c;
    st_logp_config(&c, EAGER);
    rt_sim_result alone, res;
    st_run(tr, &c, &alone); /* share_hosts 0: a CPU each, the gaps as recorded */
    assert_int_equal(alone.ranks[0].compute_ps, 10000 * US);
    c.share_hosts = 1;
    st_run(tr, &c, &res);
    assert_int_equal(res.completed, 1);
    assert_int_equal(res.ranks[0].compute_ps, 8000 * US);
    assert_int_equal(res.ranks[1].compute_ps, 2000 * US);
    assert_int_equal(res.ranks[0].end_ps, alone.ranks[0].end_ps);
    assert_int_equal(res.ranks[1].end_ps, alone.ranks[1].end_ps);
    assert_int_equal(res.ranks[1].mpi_ps, alone.ranks[1].end_ps - 6000 * US); /* from 6 ms */
    rt_sim_result_free(&res);
    c.model.waiting = RT_NET_WAIT_POLL;
    st_run(tr, &c, &res);
    assert_int_equal(res.ranks[0].compute_ps, 5000 * US);
    assert_int_equal(res.ranks[1].compute_ps, 2000 * US);
    rt_sim_result_free(&res);
    rt_sim_result_free(&alone);
    rt_sim_trace_free(tr);
    st_free(&t);
}

/* Yielding: a rendezvous message waits for its receiver's MPI to answer the request, which it
 * does on a core only. Two ranks on one core, slices of 4 ms: rank 0 waits in a receive of
 * 10000 bytes from 0 on, rank 1 takes the core at 0, computes 1 ms, posts the send, computes
 * on, then waits for the send. The request is in at 1 ms + o + L, when rank 1 holds the core:
 * rank 0 queues for it. With 2.5 ms of computation rank 1 gives the core up in its wait at
 * 3.5 ms; rank 0 answers then, the reply is back L later, and the data is in after its wire
 * time: the send is done at d = 3.5 ms + L + wire, the receive o later. With 10 ms rank 1's
 * slice ends at 4 ms, rank 0 answers, and its receive, done at 4 ms + L + wire + o, waits for
 * the end of rank 1's next slice: rank 0 ends at 8 ms, rank 1 at 11 ms. (When the request was
 * answered at once, rank 0 ended at 3.5 and 4 ms.) Fixed turns do not hold the request. */
static void test_time_sharing_rendezvous(void **state)
{
    (void)state;
    static const uint64_t wait_ns[] = {3500000, 11000000};
    rt_sim_config c;
    rt_sim_result res;
    for (unsigned k = 0; k < 2; k++) {
        share_config(&c, 1, 4000 * US, RT_NET_WAIT_YIELD);
        st_text t = {0};
        st_add(&t, "ranks,2\n");
        st_init(&t, 0);
        st_init(&t, 1);
        st_recv(&t, 0, 0, 1, 0, 10000, "");
        st_call(&t, 1, 1000000, "MPI_Isend", "isend,MPI_Isend,0,0,0,10000,,shm,1,", NULL);
        st_call(&t, 1, wait_ns[k], "MPI_Wait", "isend_complete,MPI_Wait,,,,,,,1,", NULL);
        rt_sim_trace *tr = st_load(t.s);
        st_run(tr, &c, &res);
        assert_int_equal(res.completed, 1);
        uint64_t d = 3500 * US + L_PS + st_wire(10000);
        if (k == 0) {
            assert_int_equal(res.ranks[1].end_ps, d);
            assert_int_equal(res.ranks[1].mpi_ps, d - 3500 * US);
            assert_int_equal(res.ranks[0].end_ps, d + O_PS);
        } else {
            assert_true(4000 * US + L_PS + st_wire(10000) + O_PS < 8000 * US);
            assert_int_equal(res.ranks[0].end_ps, 8000 * US);
            assert_int_equal(res.ranks[1].end_ps, 11000 * US);
            assert_int_equal(res.ranks[1].mpi_ps, 0);
        }
        rt_sim_result_free(&res);
        /* polling: rank 1 runs in [4, 8) and [12, 16) (rank 0 keeps its turns [0, 4), [8,
         * 12)), sends at 5 ms and is answered at once; rank 0's receive returns in its turn
         * from 8 ms on */
        c.model.waiting = RT_NET_WAIT_POLL;
        st_run(tr, &c, &res);
        assert_int_equal(res.completed, 1);
        assert_int_equal(res.ranks[0].end_ps, 8000 * US);
        rt_sim_result_free(&res);
        rt_sim_trace_free(tr);
        st_free(&t);
    }
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_call_costs),
        cmocka_unit_test(test_alg_costs),
        cmocka_unit_test(test_one_member_collectives),
        cmocka_unit_test(test_time_sharing),
        cmocka_unit_test(test_time_sharing_yield),
        cmocka_unit_test(test_time_sharing_recorded),
        cmocka_unit_test(test_time_sharing_rendezvous),
    };
    return rt_test_main("sim_cpu", tests, argc, argv);
}
