/*
 * Unit tests of the built-in engine's matching (replayer/sim/sim_p2p.c): which receive takes
 * which message (order, wildcards, probes, persistent and cancelled requests, wait-any and
 * wait-all), and how a replay that cannot match ends (deadlock, an unmatched send,
 * collectives that differ). Hand-made traces under the LogP model of test_sim.h; times in
 * comments are in microseconds.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "rt_test_main.h"

#include "test_sim.h"

/* ---- matching -------------------------------------------------------------------------------- */

/* Two sends on one channel, 3000 then 100 bytes, match the two receives in order: the first
 * receive takes the large message even though the small one would be in sooner. */
static void test_non_overtaking(void **state)
{
    (void)state;
    st_text t = {0};
    st_add(&t, "ranks,2\n");
    st_send(&t, 0, 0, 1, 0, 3000);
    st_send(&t, 0, 0, 1, 0, 100);
    st_recv(&t, 1, 0, 0, 0, 3000, "");
    st_recv(&t, 1, 10000, 0, 0, 100, ""); /* after 10 us of computation */
    rt_sim_config c;
    st_logp_config(&c, EAGER);
    rt_sim_result res;
    st_replay(t.s, &c, &res);
    uint64_t big = st_wire(3000), small = big + st_wire(100); /* 4.1, 5.3 */
    assert_int_equal(res.completed, 1);
    assert_int_equal(res.ranks[0].end_ps, small);
    assert_int_equal(res.ranks[1].end_ps, big + O_PS + 10 * US + O_PS); /* 14.3 */
    assert_int_equal(res.ranks[1].mpi_ps, big + O_PS + O_PS);
    assert_int_equal(res.ranks[1].compute_ps, 10 * US);
    rt_sim_result_free(&res);
    st_free(&t);
}

/* Rank 1 receives twice with MPI_ANY_SOURCE; the trace says the first matched rank 2's
 * message (sent at 10 us), the second rank 0's (sent at 0). As recorded the first receive
 * waits for rank 2; with free matching it takes rank 0's message, which is there first. */
static void test_wildcards(void **state)
{
    (void)state;
    st_text t = {0};
    st_add(&t, "ranks,3\n");
    st_send(&t, 0, 0, 1, 5, 1000);
    st_recv(&t, 1, 0, 2, 5, 1000, "any_source");
    st_recv(&t, 1, 0, 0, 5, 1000, "any_source");
    st_send(&t, 2, 10000, 1, 5, 1000);
    rt_sim_trace *tr = st_load(t.s);
    rt_sim_config c;
    st_logp_config(&c, EAGER);
    rt_sim_result res;
    st_run(tr, &c, &res);
    uint64_t from2 = 10 * US + st_wire(1000); /* 12.1 */
    assert_int_equal(res.completed, 1);
    assert_int_equal(res.ranks[1].end_ps, from2 + O_PS + O_PS); /* 12.3 */
    rt_sim_result_free(&res);
    c.free_wildcards = 1;
    st_run(tr, &c, &res);
    assert_int_equal(res.completed, 1);
    assert_int_equal(res.ranks[1].end_ps, from2 + O_PS); /* 12.2 */
    rt_sim_result_free(&res);
    rt_sim_trace_free(tr);
    st_free(&t);
}

/* A probe records ENTER and LEAVE only: its recorded 50 us are not replayed. */
static void test_probe(void **state)
{
    (void)state;
    st_text t = {0};
    st_add(&t, "ranks,2\n");
    st_send(&t, 0, 0, 1, 0, 1000);
    st_enter(&t, 1, 0, "MPI_Probe");
    st_leave(&t, 1, 50000, "MPI_Probe");
    st_recv(&t, 1, 50000, 0, 0, 1000, "");
    rt_sim_config c;
    st_logp_config(&c, EAGER);
    rt_sim_result res;
    st_replay(t.s, &c, &res);
    assert_int_equal(res.completed, 1);
    assert_int_equal(res.ranks[1].end_ps, st_wire(1000) + O_PS);
    assert_int_equal(res.ranks[1].mpi_ps, st_wire(1000) + O_PS);
    assert_int_equal(res.ranks[1].compute_ps, 0);
    rt_sim_result_free(&res);
    st_free(&t);
}

/* Persistent requests: Send_init and Recv_init record nothing but ENTER and LEAVE; each
 * Start records an ISEND or IRECV_REQUEST with a new request id. */
static void test_persistent(void **state)
{
    (void)state;
    st_text t = {0};
    st_add(&t, "ranks,2\n");
    st_call(&t, 0, 0, "MPI_Send_init", NULL, NULL);
    st_call(&t, 1, 0, "MPI_Recv_init", NULL, NULL);
    for (unsigned i = 0; i < 2; i++) {
        char ev[128];
        snprintf(ev, sizeof ev, "isend,MPI_Start,0,1,3,1000,,shm,%u,", 10 + i);
        st_call(&t, 0, 0, "MPI_Start", ev, NULL);
        snprintf(ev, sizeof ev, "isend_complete,MPI_Wait,,,,,,,%u,", 10 + i);
        st_call(&t, 0, 0, "MPI_Wait", ev, NULL);
        snprintf(ev, sizeof ev, "irecv_request,MPI_Start,,,,,,,%u,", 20 + i);
        st_call(&t, 1, 0, "MPI_Start", ev, NULL);
        snprintf(ev, sizeof ev, "irecv,MPI_Wait,0,0,3,1000,,shm,%u,", 20 + i);
        st_call(&t, 1, 0, "MPI_Wait", ev, NULL);
    }
    rt_sim_config c;
    st_logp_config(&c, EAGER);
    rt_sim_result res;
    st_replay(t.s, &c, &res);
    assert_int_equal(res.completed, 1);
    assert_null(res.report);
    assert_int_equal(res.messages, 2);
    assert_int_equal(res.ranks[0].end_ps, 2 * st_wire(1000));        /* 4.2 */
    assert_int_equal(res.ranks[1].end_ps, 2 * st_wire(1000) + O_PS); /* 4.3 */
    rt_sim_result_free(&res);
    st_free(&t);
}

/* A cancelled Irecv is not posted: the Recv after it gets the message. */
static void test_cancelled(void **state)
{
    (void)state;
    st_text t = {0};
    st_add(&t, "ranks,2\n");
    st_send(&t, 0, 0, 1, 0, 1000);
    st_call(&t, 1, 0, "MPI_Irecv", "irecv_request,MPI_Irecv,,,,,,,1,", NULL);
    st_call(&t, 1, 0, "MPI_Cancel", NULL, NULL);
    st_call(&t, 1, 0, "MPI_Wait", "request_cancelled,MPI_Wait,,,,,,,1,", NULL);
    st_recv(&t, 1, 3000, 0, 0, 1000, "");
    rt_sim_trace *tr = st_load(t.s);
    assert_string_equal(rt_sim_trace_notes(tr),
                        "1 cancelled requests: not posted (they matched nothing)\n");
    rt_sim_config c;
    st_logp_config(&c, EAGER);
    rt_sim_result res;
    st_run(tr, &c, &res);
    assert_int_equal(res.completed, 1);
    assert_null(res.report);
    assert_int_equal(res.ranks[1].end_ps, 3 * US + O_PS);
    rt_sim_result_free(&res);
    rt_sim_trace_free(tr);
    st_free(&t);
}

/* Waitany and Waitall wait for the completions the trace recorded. Ranks 0-2: rank 1 posts
 * Irecvs from 0 (sent at 10 us) and 2 (sent at 0), Waitany completes 2's, 1 us of
 * computation, Waitany completes 0's. Ranks 3-5: the same with one Waitall. */
static void test_waitany_waitall(void **state)
{
    (void)state;
    st_text t = {0};
    st_add(&t, "ranks,6\n");
    for (unsigned b = 0; b < 6; b += 3) {
        st_send(&t, b, 10000, b + 1, 0, 1000);
        st_send(&t, b + 2, 0, b + 1, 0, 1000);
    }
    st_call(&t, 1, 0, "MPI_Irecv", "irecv_request,MPI_Irecv,,,,,,,1,", NULL);
    st_call(&t, 1, 0, "MPI_Irecv", "irecv_request,MPI_Irecv,,,,,,,2,", NULL);
    st_call(&t, 1, 0, "MPI_Waitany", "irecv,MPI_Waitany,0,2,0,1000,,shm,2,", NULL);
    st_call(&t, 1, 1000, "MPI_Waitany", "irecv,MPI_Waitany,0,0,0,1000,,shm,1,", NULL);
    st_call(&t, 4, 0, "MPI_Irecv", "irecv_request,MPI_Irecv,,,,,,,1,", NULL);
    st_call(&t, 4, 0, "MPI_Irecv", "irecv_request,MPI_Irecv,,,,,,,2,", NULL);
    st_call(&t, 4, 0, "MPI_Waitall", "irecv,MPI_Waitall,0,3,0,1000,,shm,1,",
            "irecv,MPI_Waitall,0,5,0,1000,,shm,2,");
    rt_sim_config c;
    st_logp_config(&c, EAGER);
    rt_sim_result res;
    st_replay(t.s, &c, &res);
    uint64_t late = 10 * US + st_wire(1000) + O_PS; /* 12.2 */
    assert_int_equal(res.completed, 1);
    assert_int_equal(res.ranks[1].end_ps, late);
    assert_int_equal(res.ranks[1].compute_ps, 1 * US);
    assert_int_equal(res.ranks[1].mpi_ps, late - 1 * US);
    assert_int_equal(res.ranks[4].end_ps, late);
    assert_int_equal(res.ranks[4].mpi_ps, late);
    rt_sim_result_free(&res);
    st_free(&t);
}

/* 4 ranks in a ring, 1000 bytes to the right. */
static const char *ring(st_text *t, int sendrecv)
{
    st_add(t, "ranks,4\n");
    for (unsigned r = 0; r < 4; r++) {
        if (sendrecv) {
            char s[128], v[128];
            snprintf(s, sizeof s, "send,MPI_Sendrecv,0,%u,0,1000,,shm,,", (r + 1) % 4);
            snprintf(v, sizeof v, "recv,MPI_Sendrecv,0,%u,0,1000,,shm,,", (r + 3) % 4);
            st_call(t, r, 0, "MPI_Sendrecv", s, v);
        } else {
            st_send(t, r, 0, (r + 1) % 4, 0, 1000);
            st_recv(t, r, 0, (r + 3) % 4, 0, 1000, "");
        }
    }
    return t->s;
}

/* Sendrecv posts both halves before it waits: a ring of them completes with every message
 * rendezvous (eager 0): request at 1.1, reply at 2.1, data in at 4.2, receive done 4.3. */
static void test_sendrecv_ring(void **state)
{
    (void)state;
    st_text t = {0};
    rt_sim_config c;
    st_logp_config(&c, 0);
    rt_sim_result res;
    st_replay(ring(&t, 1), &c, &res);
    assert_int_equal(res.completed, 1);
    assert_null(res.report);
    for (unsigned r = 0; r < 4; r++)
        assert_int_equal(res.ranks[r].end_ps, O_PS + 2 * L_PS + st_wire(1000) + O_PS);
    rt_sim_result_free(&res);
    st_free(&t);
}

/* 1 when line (without its '\n') is one of the lines of text. */
static int has_line(const char *text, const char *line)
{
    size_t n = strlen(line);
    for (const char *p = text; p && *p;) {
        if (!strncmp(p, line, n) && p[n] == '\n')
            return 1;
        if ((p = strchr(p, '\n')))
            p++;
    }
    return 0;
}

static unsigned count_lines(const char *text)
{
    unsigned n = 0;
    for (; text && *text; text++)
        n += *text == '\n';
    return n;
}

/* Blocking Send then Recv around a ring: with eager 0 every Send waits for a receive that is
 * never posted, so the replay deadlocks and says where each rank is stuck; with a large
 * eager threshold the same trace completes (send done at 2.1, receive at 2.2). */
static void test_send_recv_ring_deadlock(void **state)
{
    (void)state;
    st_text t = {0};
    rt_sim_trace *tr = st_load(ring(&t, 0));
    rt_sim_config c;
    st_logp_config(&c, 0);
    rt_sim_result res;
    st_run(tr, &c, &res);
    assert_int_equal(res.completed, 0);
    assert_non_null(res.report);
    const char *head =
        "deadlock: no rank can go on\n"
        "rank 0 blocked in MPI_Send(dest 1, tag 0, comm world, 1000 bytes) at 0 ps (event 2 of 6)\n"
        "rank 1 blocked in MPI_Send(dest 2, tag 0, comm world, 1000 bytes) at 0 ps (event 2 of 6)\n"
        "rank 2 blocked in MPI_Send(dest 3, tag 0, comm world, 1000 bytes) at 0 ps (event 2 of 6)\n"
        "rank 3 blocked in MPI_Send(dest 0, tag 0, comm world, 1000 bytes) at 0 ps (event 2 of "
        "6)\n";
    assert_int_equal(strncmp(res.report, head, strlen(head)), 0);
    /* the cycle, then the four unmatched sends in the engine's channel order, then the time */
    assert_true(has_line(res.report, "cycle: rank 0 waits for rank 1 in MPI_Send(tag 0) <- rank 1 "
                                     "waits for rank 2 in MPI_Send(tag 0) <- rank 2 waits for "
                                     "rank 3 in MPI_Send(tag 0) <- rank 3 waits for rank 0 in "
                                     "MPI_Send(tag 0)"));
    assert_true(
        has_line(res.report, "time of the hang: predicted 0 ps (when the last rank blocked)"));
    assert_int_equal(count_lines(res.report), 11);
    for (unsigned r = 0; r < 4; r++) {
        char line[200];
        snprintf(line, sizeof line,
                 "unmatched: rank %u sent a message to rank %u (communicator 0, tag 0, 1000 "
                 "bytes, rendezvous: the sender waits for it)",
                 r, (r + 1) % 4);
        assert_true(has_line(res.report, line));
    }
    rt_sim_result_free(&res);

    st_logp_config(&c, 1 << 20);
    st_run(tr, &c, &res);
    assert_int_equal(res.completed, 1);
    assert_null(res.report);
    for (unsigned r = 0; r < 4; r++)
        assert_int_equal(res.ranks[r].end_ps, st_wire(1000) + O_PS);
    rt_sim_result_free(&res);
    rt_sim_trace_free(tr);
    st_free(&t);
}

/* A message nobody receives is reported after a run that otherwise completed. */
static void test_unmatched_send(void **state)
{
    (void)state;
    st_text t = {0};
    st_add(&t, "ranks,2\n");
    st_send(&t, 0, 0, 1, 7, 100);
    st_init(&t, 1);
    rt_sim_config c;
    st_logp_config(&c, EAGER);
    rt_sim_result res;
    st_replay(t.s, &c, &res);
    assert_int_equal(res.completed, 1);
    assert_string_equal(res.report, "unmatched: rank 0 sent a message to rank 1 (communicator "
                                    "0, tag 7, 100 bytes, eager), never received\n");
    assert_int_equal(res.time_ps, st_wire(100));
    rt_sim_result_free(&res);
    st_free(&t);
}

/* A call whose LEAVE is missing (a trace cut or edited by hand): the next ENTER comes while
 * it still waits for its receive. The call ends once the message is in, then the next one
 * starts after the recorded gap from the call's ENTER. Its count of completions once went
 * from 0 to 2^32 - 1 there (the wrap-hunting fuzz build found it), and the rank never woke:
 * a deadlock that was none. */
static void test_missing_leave(void **state)
{
    (void)state;
    st_text t = {0};
    st_add(&t, "ranks,2\n");
    st_enter(&t, 0, 0, "MPI_Recv");
    st_add(&t, "0,0,recv,MPI_Recv,0,1,0,1000,,shm,,\n");
    st_call(&t, 0, 1000, "MPI_Finalize", NULL, NULL);
    st_send(&t, 1, 10000, 0, 0, 1000);
    rt_sim_config c;
    st_logp_config(&c, EAGER);
    rt_sim_result res;
    st_replay(t.s, &c, &res);
    assert_int_equal(res.completed, 1);
    assert_null(res.report);
    /* in at 10 us + wire, taken o later; 1 us of computation after the Recv's ENTER */
    assert_int_equal(res.ranks[0].end_ps, 10 * US + st_wire(1000) + O_PS + US);
    rt_sim_result_free(&res);
    st_free(&t);
}

/* Rank 0's first collective on MPI_COMM_WORLD is a Bcast, rank 1's a Reduce. */
static void test_mismatched_collectives(void **state)
{
    (void)state;
    st_text t = {0};
    st_add(&t, "ranks,2\n");
    st_call(&t, 0, 0, "MPI_Bcast", "coll_begin,MPI_Bcast,,,,,,,,",
            "coll_end,MPI_Bcast,0,0,,100,0,,,bcast");
    st_call(&t, 1, 0, "MPI_Reduce", "coll_begin,MPI_Reduce,,,,,,,,",
            "coll_end,MPI_Reduce,0,0,,100,0,,,reduce");
    rt_sim_config c;
    st_logp_config(&c, EAGER);
    rt_sim_result res;
    st_replay(t.s, &c, &res);
    assert_int_equal(res.completed, 0);
    assert_non_null(res.report);
    /* rank 0 ran first: its bcast message went out and it finished; rank 1 stopped at the
     * LEAVE after its Reduce (event 3, counted from 0) */
    assert_string_equal(res.report,
                        "mismatched collectives: call 1 on communicator 0 is bcast on rank 0 but "
                        "reduce on rank 1\n"
                        "rank 1 stopped in MPI_Reduce(root 0, comm world) at 0 ps (event 3 of 4)\n"
                        "unfinished: bcast, call 1 on communicator 0: 1 of 2 ranks entered it "
                        "(rank 0 first)\n"
                        "unmatched: rank 0 sent a collective message to rank 1 (communicator 0, "
                        "tag 0, 100 bytes, eager)\n");
    rt_sim_result_free(&res);
    st_free(&t);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_non_overtaking), cmocka_unit_test(test_wildcards),
        cmocka_unit_test(test_probe),          cmocka_unit_test(test_persistent),
        cmocka_unit_test(test_cancelled),      cmocka_unit_test(test_waitany_waitall),
        cmocka_unit_test(test_sendrecv_ring),  cmocka_unit_test(test_send_recv_ring_deadlock),
        cmocka_unit_test(test_unmatched_send), cmocka_unit_test(test_mismatched_collectives),
        cmocka_unit_test(test_missing_leave),
    };
    return rt_test_main("sim_match", tests, argc, argv);
}
