/*
 * Unit tests for the built-in engine (rt_sim): small hand-made traces whose replay times,
 * message counts and reports are worked out by hand from the timing rules at the top of
 * replayer/sim_p2p.c, sim_coll.c and sim_rma.c. The collective formulas are in
 * test_sim_coll.c.
 *
 * Unless a test says otherwise the model is the "LogP" one below: every link latency
 * L = 1 us, overhead o = 100 ns, bandwidth B = 1 GB/s (1000 ps per byte), eager up to 4096
 * bytes, gap 0, one message at a time per sender (injection = message), no contention. All
 * ranks sit on one node. Times in comments are in microseconds.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "rt_test_main.h"

#include "test_sim.h"

#define L_PS US
#define O_PS (100 * NS)
#define EAGER 4096

static void logp_config(rt_sim_config *c, uint64_t eager)
{
    rt_sim_config_default(c);
    st_model(&c->model, L_PS, O_PS, 1000000000, eager);
}

/* o + L + n/B: from the start of an injection to the last byte at the receiver. */
static uint64_t wire(uint64_t n)
{
    return O_PS + L_PS + n * 1000;
}

/* ---- trace writing: one call per helper, ENTER and LEAVE at the same recorded time -------- */

static void enter(st_text *t, unsigned r, uint64_t ns, const char *fn)
{
    st_add(t, "%u,%llu,enter,%s,,,,,,,,\n", r, (unsigned long long)ns, fn);
}

static void leave(st_text *t, unsigned r, uint64_t ns, const char *fn)
{
    st_add(t, "%u,%llu,leave,%s,,,,,,,,\n", r, (unsigned long long)ns, fn);
}

/* A call whose events are given after the rank and time: "send,MPI_Send,0,1,...". */
static void call(st_text *t, unsigned r, uint64_t ns, const char *fn, const char *ev1,
                 const char *ev2)
{
    enter(t, r, ns, fn);
    if (ev1)
        st_add(t, "%u,%llu,%s\n", r, (unsigned long long)ns, ev1);
    if (ev2)
        st_add(t, "%u,%llu,%s\n", r, (unsigned long long)ns, ev2);
    leave(t, r, ns, fn);
}

static void send(st_text *t, unsigned r, uint64_t ns, unsigned to, int tag, uint64_t n)
{
    char ev[128];
    snprintf(ev, sizeof ev, "send,MPI_Send,0,%u,%d,%llu,,shm,,", to, tag, (unsigned long long)n);
    call(t, r, ns, "MPI_Send", ev, NULL);
}

/* flags: "" or "any_source", "any_tag", "any_source|any_tag" as the receive was posted */
static void recv(st_text *t, unsigned r, uint64_t ns, unsigned from, int tag, uint64_t n,
                 const char *flags)
{
    char ev[128];
    snprintf(ev, sizeof ev, "recv,MPI_Recv,0,%u,%d,%llu,,shm,,%s", from, tag, (unsigned long long)n,
             flags);
    call(t, r, ns, "MPI_Recv", ev, NULL);
}

static void init(st_text *t, unsigned r)
{
    call(t, r, 0, "MPI_Init", NULL, NULL);
}

/* ---- 2. point-to-point timing --------------------------------------------------------------- */

/* Eager: the sender is done when its port frees (o + wire), the receive at max(arrival,
 * posted) + o. Ranks 0 -> 1 with the receive posted late (5 us), 2 -> 3 posted early. */
static void test_eager(void **state)
{
    (void)state;
    st_text t = {0};
    st_add(&t, "ranks,4\n");
    send(&t, 0, 0, 1, 0, 1000);
    recv(&t, 1, 5000, 0, 0, 1000, "");
    send(&t, 2, 0, 3, 0, 1000);
    recv(&t, 3, 0, 2, 0, 1000, "");
    rt_sim_config c;
    logp_config(&c, EAGER);
    rt_sim_result res;
    st_replay(t.s, &c, &res);
    uint64_t arrival = wire(1000); /* 2.1 */
    assert_int_equal(res.completed, 1);
    assert_null(res.report);
    assert_int_equal(res.ranks[0].end_ps, arrival);
    assert_int_equal(res.ranks[1].end_ps, 5 * US + O_PS); /* posted after the arrival */
    assert_int_equal(res.ranks[1].mpi_ps, O_PS);
    assert_int_equal(res.ranks[2].end_ps, arrival);
    assert_int_equal(res.ranks[3].end_ps, arrival + O_PS); /* 2.2 */
    assert_int_equal(res.time_ps, 5 * US + O_PS);
    assert_int_equal(res.critical_rank, 1);
    assert_int_equal(res.messages, 2);
    assert_int_equal(res.bytes, 2000);
    rt_sim_result_free(&res);
    st_free(&t);
}

/* Rendezvous (10000 > 4096 bytes): the request reaches the receiver at o + L (the code
 * charges the sender's o for the request too); once the receive is posted a reply takes L,
 * then the data goes out (o + L + n/B); the sender is done when it is in, the receiver o
 * later. */
static void test_rendezvous(void **state)
{
    (void)state;
    st_text t = {0};
    st_add(&t, "ranks,4\n");
    send(&t, 0, 0, 1, 0, 10000);
    recv(&t, 1, 5000, 0, 0, 10000, "");
    send(&t, 2, 0, 3, 0, 10000);
    recv(&t, 3, 0, 2, 0, 10000, "");
    rt_sim_config c;
    logp_config(&c, EAGER);
    rt_sim_result res;
    st_replay(t.s, &c, &res);
    assert_int_equal(res.completed, 1);
    /* late receive: reply at 5 + L = 6, data in at 6 + 11.1 = 17.1 */
    uint64_t late = 5 * US + L_PS + wire(10000);
    assert_int_equal(res.ranks[0].end_ps, late);
    assert_int_equal(res.ranks[1].end_ps, late + O_PS);
    /* early receive: request in at 1.1, reply at 2.1, data in at 13.2 */
    uint64_t early = O_PS + L_PS + L_PS + wire(10000);
    assert_int_equal(res.ranks[2].end_ps, early);
    assert_int_equal(res.ranks[3].end_ps, early + O_PS);
    rt_sim_result_free(&res);
    st_free(&t);
}

/*
 * KNOWN ENGINE DISCREPANCY (fails with the engine as of this test): rank s Isends a
 * rendezvous message R (10000 bytes) to rank a, whose receive is already posted, then an
 * eager message E (100 bytes) to rank b, both at 0. By the documented rules (sim_p2p.c: a
 * rank injects one message at a time; rendezvous data goes out once the reply is back) the
 * port is idle until R's reply arrives at o + L + L = 2.1, so E goes out at 0 and is in at
 * 1.2 (b done at 1.3); R's data starts at 2.1 and is in at 13.2 (a done at 13.3). The engine
 * instead reserves the port for R's data when R is matched (at 0, for a start at 2.1), so E,
 * posted after that in engine order, waits for the end of R's data (b done at 14.5) -- but
 * only when the receiver of R is numbered below the sender, so that its receive was posted
 * first: renumbering the ranks changes the predicted time.
 */
static const char *rdv_then_eager(st_text *t, unsigned s, unsigned a, unsigned b)
{
    char ev[128];
    st_add(t, "ranks,3\n");
    snprintf(ev, sizeof ev, "isend,MPI_Isend,0,%u,0,10000,,shm,1,", a);
    call(t, s, 0, "MPI_Isend", ev, NULL);
    snprintf(ev, sizeof ev, "isend,MPI_Isend,0,%u,0,100,,shm,2,", b);
    call(t, s, 0, "MPI_Isend", ev, NULL);
    call(t, s, 0, "MPI_Waitall", "isend_complete,MPI_Waitall,,,,,,,1,",
         "isend_complete,MPI_Waitall,,,,,,,2,");
    recv(t, a, 0, s, 0, 10000, "");
    recv(t, b, 0, s, 0, 100, "");
    return t->s;
}

static void test_rendezvous_port_idle(void **state)
{
    (void)state;
    static const unsigned order[][3] = {{0, 1, 2}, {1, 0, 2}}; /* s, a, b */
    for (size_t i = 0; i < 2; i++) {
        unsigned s = order[i][0], a = order[i][1], b = order[i][2];
        st_text t = {0};
        rt_sim_config c;
        logp_config(&c, EAGER);
        rt_sim_result res;
        st_replay(rdv_then_eager(&t, s, a, b), &c, &res);
        uint64_t r_in = O_PS + 2 * L_PS + wire(10000); /* 13.2 */
        assert_int_equal(res.completed, 1);
        if (res.ranks[b].end_ps != wire(100) + O_PS) /* 1.3 */
            fail_msg("sender %u: the eager message's receive ends at %llu ps, not %llu: it "
                     "waited for the rendezvous data that had reserved the idle port",
                     s, (unsigned long long)res.ranks[b].end_ps,
                     (unsigned long long)(wire(100) + O_PS));
        assert_int_equal(res.ranks[s].end_ps, r_in);
        assert_int_equal(res.ranks[a].end_ps, r_in + O_PS);
        rt_sim_result_free(&res);
        st_free(&t);
    }
}

/* Rank 0 Isends 1000 bytes to 1 and to 2 at once, then Waitalls; 1 and 2 receive at 0. */
static const char *two_isends(st_text *t)
{
    st_add(t, "ranks,3\n");
    call(t, 0, 0, "MPI_Isend", "isend,MPI_Isend,0,1,0,1000,,shm,1,", NULL);
    call(t, 0, 0, "MPI_Isend", "isend,MPI_Isend,0,2,0,1000,,shm,2,", NULL);
    call(t, 0, 0, "MPI_Waitall", "isend_complete,MPI_Waitall,,,,,,,1,",
         "isend_complete,MPI_Waitall,,,,,,,2,");
    recv(t, 1, 0, 0, 0, 1000, "");
    recv(t, 2, 0, 0, 0, 1000, "");
    return t->s;
}

/* injection = message: each message holds the port for o + wire, so the second starts when
 * the first is in. */
static void test_port_message(void **state)
{
    (void)state;
    st_text t = {0};
    rt_sim_config c;
    logp_config(&c, EAGER);
    rt_sim_result res;
    st_replay(two_isends(&t), &c, &res);
    uint64_t a = wire(1000); /* 2.1 */
    assert_int_equal(res.completed, 1);
    assert_int_equal(res.ranks[0].end_ps, 2 * a); /* 4.2 */
    assert_int_equal(res.ranks[1].end_ps, a + O_PS);
    assert_int_equal(res.ranks[2].end_ps, 2 * a + O_PS);
    rt_sim_result_free(&res);
    st_free(&t);
}

/* injection = bytes (model file tests/data/sim/loggp.conf): the port is busy o + n/B only,
 * latency overlaps the next injection; with a gap g larger than that, g. */
static void test_port_bytes(void **state)
{
    (void)state;
    st_text t = {0};
    rt_sim_config c;
    rt_sim_config_default(&c);
    rt_err err = {0};
    if (rt_net_model_load(&c.model, RT_TEST_DATA "/sim/loggp.conf", &err) < 0)
        fail_msg("%s", err.msg);
    assert_int_equal(c.model.injection, RT_NET_INJECT_BYTES);
    rt_sim_trace *tr = st_load(two_isends(&t));
    rt_sim_result res;
    st_run(tr, &c, &res);
    uint64_t busy = O_PS + 1000 * 1000; /* 1.1 */
    assert_int_equal(res.completed, 1);
    assert_int_equal(res.ranks[0].end_ps, 2 * busy);                 /* 2.2 */
    assert_int_equal(res.ranks[1].end_ps, wire(1000) + O_PS);        /* 2.2 */
    assert_int_equal(res.ranks[2].end_ps, busy + wire(1000) + O_PS); /* 3.3 */
    rt_sim_result_free(&res);

    c.model.link[RT_CT_SHM].gap_ps = 5 * US; /* g > o + n/B: the port is busy g */
    st_run(tr, &c, &res);
    assert_int_equal(res.ranks[0].end_ps, 10 * US);
    assert_int_equal(res.ranks[2].end_ps, 5 * US + wire(1000) + O_PS); /* 7.2 */
    rt_sim_result_free(&res);
    rt_sim_trace_free(tr);
    st_free(&t);
}

/* ---- 3. matching --------------------------------------------------------------------------- */

/* Two sends on one channel, 3000 then 100 bytes, match the two receives in order: the first
 * receive takes the large message even though the small one would be in sooner. */
static void test_non_overtaking(void **state)
{
    (void)state;
    st_text t = {0};
    st_add(&t, "ranks,2\n");
    send(&t, 0, 0, 1, 0, 3000);
    send(&t, 0, 0, 1, 0, 100);
    recv(&t, 1, 0, 0, 0, 3000, "");
    recv(&t, 1, 10000, 0, 0, 100, ""); /* after 10 us of computation */
    rt_sim_config c;
    logp_config(&c, EAGER);
    rt_sim_result res;
    st_replay(t.s, &c, &res);
    uint64_t big = wire(3000), small = big + wire(100); /* 4.1, 5.3 */
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
    send(&t, 0, 0, 1, 5, 1000);
    recv(&t, 1, 0, 2, 5, 1000, "any_source");
    recv(&t, 1, 0, 0, 5, 1000, "any_source");
    send(&t, 2, 10000, 1, 5, 1000);
    rt_sim_trace *tr = st_load(t.s);
    rt_sim_config c;
    logp_config(&c, EAGER);
    rt_sim_result res;
    st_run(tr, &c, &res);
    uint64_t from2 = 10 * US + wire(1000); /* 12.1 */
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
    send(&t, 0, 0, 1, 0, 1000);
    enter(&t, 1, 0, "MPI_Probe");
    leave(&t, 1, 50000, "MPI_Probe");
    recv(&t, 1, 50000, 0, 0, 1000, "");
    rt_sim_config c;
    logp_config(&c, EAGER);
    rt_sim_result res;
    st_replay(t.s, &c, &res);
    assert_int_equal(res.completed, 1);
    assert_int_equal(res.ranks[1].end_ps, wire(1000) + O_PS);
    assert_int_equal(res.ranks[1].mpi_ps, wire(1000) + O_PS);
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
    call(&t, 0, 0, "MPI_Send_init", NULL, NULL);
    call(&t, 1, 0, "MPI_Recv_init", NULL, NULL);
    for (unsigned i = 0; i < 2; i++) {
        char ev[128];
        snprintf(ev, sizeof ev, "isend,MPI_Start,0,1,3,1000,,shm,%u,", 10 + i);
        call(&t, 0, 0, "MPI_Start", ev, NULL);
        snprintf(ev, sizeof ev, "isend_complete,MPI_Wait,,,,,,,%u,", 10 + i);
        call(&t, 0, 0, "MPI_Wait", ev, NULL);
        snprintf(ev, sizeof ev, "irecv_request,MPI_Start,,,,,,,%u,", 20 + i);
        call(&t, 1, 0, "MPI_Start", ev, NULL);
        snprintf(ev, sizeof ev, "irecv,MPI_Wait,0,0,3,1000,,shm,%u,", 20 + i);
        call(&t, 1, 0, "MPI_Wait", ev, NULL);
    }
    rt_sim_config c;
    logp_config(&c, EAGER);
    rt_sim_result res;
    st_replay(t.s, &c, &res);
    assert_int_equal(res.completed, 1);
    assert_null(res.report);
    assert_int_equal(res.messages, 2);
    assert_int_equal(res.ranks[0].end_ps, 2 * wire(1000));        /* 4.2 */
    assert_int_equal(res.ranks[1].end_ps, 2 * wire(1000) + O_PS); /* 4.3 */
    rt_sim_result_free(&res);
    st_free(&t);
}

/* A cancelled Irecv is not posted: the Recv after it gets the message. */
static void test_cancelled(void **state)
{
    (void)state;
    st_text t = {0};
    st_add(&t, "ranks,2\n");
    send(&t, 0, 0, 1, 0, 1000);
    call(&t, 1, 0, "MPI_Irecv", "irecv_request,MPI_Irecv,,,,,,,1,", NULL);
    call(&t, 1, 0, "MPI_Cancel", NULL, NULL);
    call(&t, 1, 0, "MPI_Wait", "request_cancelled,MPI_Wait,,,,,,,1,", NULL);
    recv(&t, 1, 3000, 0, 0, 1000, "");
    rt_sim_trace *tr = st_load(t.s);
    assert_string_equal(rt_sim_trace_notes(tr),
                        "1 cancelled requests: not posted (they matched nothing)\n");
    rt_sim_config c;
    logp_config(&c, EAGER);
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
        send(&t, b, 10000, b + 1, 0, 1000);
        send(&t, b + 2, 0, b + 1, 0, 1000);
    }
    call(&t, 1, 0, "MPI_Irecv", "irecv_request,MPI_Irecv,,,,,,,1,", NULL);
    call(&t, 1, 0, "MPI_Irecv", "irecv_request,MPI_Irecv,,,,,,,2,", NULL);
    call(&t, 1, 0, "MPI_Waitany", "irecv,MPI_Waitany,0,2,0,1000,,shm,2,", NULL);
    call(&t, 1, 1000, "MPI_Waitany", "irecv,MPI_Waitany,0,0,0,1000,,shm,1,", NULL);
    call(&t, 4, 0, "MPI_Irecv", "irecv_request,MPI_Irecv,,,,,,,1,", NULL);
    call(&t, 4, 0, "MPI_Irecv", "irecv_request,MPI_Irecv,,,,,,,2,", NULL);
    call(&t, 4, 0, "MPI_Waitall", "irecv,MPI_Waitall,0,3,0,1000,,shm,1,",
         "irecv,MPI_Waitall,0,5,0,1000,,shm,2,");
    rt_sim_config c;
    logp_config(&c, EAGER);
    rt_sim_result res;
    st_replay(t.s, &c, &res);
    uint64_t late = 10 * US + wire(1000) + O_PS; /* 12.2 */
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
            call(t, r, 0, "MPI_Sendrecv", s, v);
        } else {
            send(t, r, 0, (r + 1) % 4, 0, 1000);
            recv(t, r, 0, (r + 3) % 4, 0, 1000, "");
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
    logp_config(&c, 0);
    rt_sim_result res;
    st_replay(ring(&t, 1), &c, &res);
    assert_int_equal(res.completed, 1);
    assert_null(res.report);
    for (unsigned r = 0; r < 4; r++)
        assert_int_equal(res.ranks[r].end_ps, O_PS + 2 * L_PS + wire(1000) + O_PS);
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
    logp_config(&c, 0);
    rt_sim_result res;
    st_run(tr, &c, &res);
    assert_int_equal(res.completed, 0);
    assert_non_null(res.report);
    const char *head = "deadlock: no rank can go on\n"
                       "rank 0 blocked in MPI_Send at 0 ps (event 2 of 6)\n"
                       "rank 1 blocked in MPI_Send at 0 ps (event 2 of 6)\n"
                       "rank 2 blocked in MPI_Send at 0 ps (event 2 of 6)\n"
                       "rank 3 blocked in MPI_Send at 0 ps (event 2 of 6)\n";
    assert_int_equal(strncmp(res.report, head, strlen(head)), 0);
    /* then the four unmatched sends, in the engine's channel order */
    assert_int_equal(count_lines(res.report), 9);
    for (unsigned r = 0; r < 4; r++) {
        char line[200];
        snprintf(line, sizeof line,
                 "unmatched: rank %u sent a message to rank %u (communicator 0, tag 0, 1000 "
                 "bytes, rendezvous: the sender waits for it)",
                 r, (r + 1) % 4);
        assert_true(has_line(res.report, line));
    }
    rt_sim_result_free(&res);

    logp_config(&c, 1 << 20);
    st_run(tr, &c, &res);
    assert_int_equal(res.completed, 1);
    assert_null(res.report);
    for (unsigned r = 0; r < 4; r++)
        assert_int_equal(res.ranks[r].end_ps, wire(1000) + O_PS);
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
    send(&t, 0, 0, 1, 7, 100);
    init(&t, 1);
    rt_sim_config c;
    logp_config(&c, EAGER);
    rt_sim_result res;
    st_replay(t.s, &c, &res);
    assert_int_equal(res.completed, 1);
    assert_string_equal(res.report, "unmatched: rank 0 sent a message to rank 1 (communicator "
                                    "0, tag 7, 100 bytes, eager), never received\n");
    assert_int_equal(res.time_ps, wire(100));
    rt_sim_result_free(&res);
    st_free(&t);
}

/* Rank 0's first collective on MPI_COMM_WORLD is a Bcast, rank 1's a Reduce. */
static void test_mismatched_collectives(void **state)
{
    (void)state;
    st_text t = {0};
    st_add(&t, "ranks,2\n");
    call(&t, 0, 0, "MPI_Bcast", "coll_begin,MPI_Bcast,,,,,,,,",
         "coll_end,MPI_Bcast,0,0,,100,0,,,bcast");
    call(&t, 1, 0, "MPI_Reduce", "coll_begin,MPI_Reduce,,,,,,,,",
         "coll_end,MPI_Reduce,0,0,,100,0,,,reduce");
    rt_sim_config c;
    logp_config(&c, EAGER);
    rt_sim_result res;
    st_replay(t.s, &c, &res);
    assert_int_equal(res.completed, 0);
    assert_non_null(res.report);
    /* rank 0 ran first: its bcast message went out and it finished; rank 1 stopped at the
     * LEAVE after its Reduce (event 3, counted from 0) */
    assert_string_equal(res.report,
                        "mismatched collectives: call 1 on communicator 0 is bcast on rank 0 but "
                        "reduce on rank 1\n"
                        "rank 1 stopped in MPI_Reduce at 0 ps (event 3 of 4)\n"
                        "unmatched: rank 0 sent a collective message to rank 1 (communicator 0, "
                        "tag 0, 100 bytes, eager)\n");
    rt_sim_result_free(&res);
    st_free(&t);
}

/* ---- 4. nonblocking collective overlap ------------------------------------------------------ */

/* Iallreduce of 4096 bytes on 4 ranks (Rabenseifner under the alpha-beta model: C = 2 alpha
 * log p + 2 n/beta (p-1)/p + g n (p-1)/p = 16.288 us), then computation, then Wait: rank 0
 * computes 30 us (ends at 30), the others 5 us (they wait until the collective ends at C).
 * The collective progresses while rank 0 computes. */
static void test_iallreduce_overlap(void **state)
{
    (void)state;
    st_text t = {0};
    st_add(&t, "ranks,4\n");
    for (unsigned r = 0; r < 4; r++) {
        call(&t, r, 0, "MPI_Iallreduce", "nbc_request,MPI_Iallreduce,,,,,,,1,", NULL);
        call(&t, r, r ? 5000 : 30000, "MPI_Wait",
             "nbc_complete,MPI_Wait,0,,,4096,4096,,1,allreduce", NULL);
    }
    rt_sim_config c;
    st_alpha_beta(&c);
    c.alg[RT_COLL_ALLREDUCE] = RT_ALG_RABENSEIFNER;
    rt_sim_result res;
    st_replay(t.s, &c, &res);
    uint64_t coll = 2 * US * 2 + 2 * 1024 * 3 * 1000 + 1024 * 3 * 2000;
    assert_int_equal(coll, 16288 * NS);
    assert_int_equal(res.completed, 1);
    assert_int_equal(res.ranks[0].end_ps, 30 * US);
    assert_int_equal(res.ranks[0].mpi_ps, 0);
    for (unsigned r = 1; r < 4; r++) {
        assert_int_equal(res.ranks[r].end_ps, coll);
        assert_int_equal(res.ranks[r].mpi_ps, coll - 5 * US);
    }
    rt_sim_result_free(&res);
    st_free(&t);
}

/* ---- 5. RMA --------------------------------------------------------------------------------- */

static void fence(st_text *t, unsigned r, uint64_t ns)
{
    call(t, r, ns, "MPI_Win_fence", "rma_coll_begin,MPI_Win_fence,,,,,,,,",
         "rma_coll_end,MPI_Win_fence,0,,,,,,,barrier");
}

/* Fence, rank 0 puts 1000 bytes into rank 1, fence; 4 ranks, alpha-beta model. The first
 * fence is a dissemination barrier (2 alpha); the put is in at 2 + alpha + n/beta = 4; rank
 * 0's second fence starts then and the barrier ends 2 alpha later for everyone (the others
 * entered at 2 and wait for rank 0's messages). */
static void test_fence_put(void **state)
{
    (void)state;
    st_text t = {0};
    st_add(&t, "ranks,4\nwin,0,0\n");
    for (unsigned r = 0; r < 4; r++) {
        fence(&t, r, 0);
        if (r == 0)
            call(&t, 0, 0, "MPI_Put", "put,MPI_Put,0,1,,1000,,shm,5,", NULL);
        fence(&t, r, 0);
    }
    rt_sim_config c;
    st_alpha_beta(&c);
    c.alg[RT_COLL_BARRIER] = RT_ALG_DISSEMINATION;
    rt_sim_result res;
    st_replay(t.s, &c, &res);
    uint64_t put_in = 2 * US + US + 1000 * 1000;
    assert_int_equal(res.completed, 1);
    assert_null(res.report);
    for (unsigned r = 0; r < 4; r++)
        assert_int_equal(res.ranks[r].end_ps, put_in + 2 * US);
    assert_int_equal(res.messages, 2 * 4 * 2 + 1); /* two barriers of 4 x log p, the put */
    assert_int_equal(res.bytes, 1000);
    rt_sim_result_free(&res);
    st_free(&t);
}

/* Post/start/complete/wait, alpha-beta: rank 1 posts at 0 (notice in at 1), rank 0's start
 * returns at 1, its put is in at 3, complete sends its notice at 3 (in at 4); rank 1's wait
 * returns at 4. */
static void test_pscw(void **state)
{
    (void)state;
    st_text t = {0};
    st_add(&t, "ranks,2\ngroup,0,0\ngroup,1,1\nwin,0,0\n");
    call(&t, 0, 0, "MPI_Win_start", "group_sync,MPI_Win_start,0,1,,,,,,start", NULL);
    call(&t, 0, 0, "MPI_Put", "put,MPI_Put,0,1,,1000,,shm,5,", NULL);
    call(&t, 0, 0, "MPI_Win_complete", "group_sync,MPI_Win_complete,0,1,,,,,,complete", NULL);
    call(&t, 1, 0, "MPI_Win_post", "group_sync,MPI_Win_post,0,0,,,,,,post", NULL);
    call(&t, 1, 0, "MPI_Win_wait", "group_sync,MPI_Win_wait,0,0,,,,,,wait", NULL);
    rt_sim_config c;
    st_alpha_beta(&c);
    rt_sim_result res;
    st_replay(t.s, &c, &res);
    assert_int_equal(res.completed, 1);
    assert_null(res.report);
    assert_int_equal(res.ranks[0].end_ps, 4 * US);
    assert_int_equal(res.ranks[1].end_ps, 4 * US);
    assert_int_equal(res.ranks[1].mpi_ps, 4 * US);
    assert_int_equal(res.messages, 3);
    assert_int_equal(res.bytes, 1000);
    rt_sim_result_free(&res);
    st_free(&t);
}

/* Ranks 0 and 1 each lock rank 2 exclusively, put 1000 bytes, unlock; rank 1 asks at 0.5.
 * Rank 0: request in at 1, grant back at 2, put in at 4, release in at 5, ack back at 6.
 * Rank 1's request (in at 1.5) waits for the release (5): grant back at 6, put in at 8,
 * release in at 9, ack back at 10. */
static void test_lock_exclusive(void **state)
{
    (void)state;
    st_text t = {0};
    st_add(&t, "ranks,3\nwin,0,0\n");
    for (unsigned r = 0; r < 2; r++) {
        uint64_t ns = r ? 500 : 0;
        call(&t, r, ns, "MPI_Win_lock", "lock,MPI_Win_lock,0,2,,,,,7,exclusive", NULL);
        call(&t, r, ns, "MPI_Put", "put,MPI_Put,0,2,,1000,,shm,8,", NULL);
        call(&t, r, ns, "MPI_Win_unlock", "unlock,MPI_Win_unlock,0,2,,,,,7,", NULL);
    }
    init(&t, 2);
    rt_sim_config c;
    st_alpha_beta(&c);
    rt_sim_result res;
    st_replay(t.s, &c, &res);
    assert_int_equal(res.completed, 1);
    assert_null(res.report);
    assert_int_equal(res.ranks[0].end_ps, 6 * US);
    assert_int_equal(res.ranks[1].end_ps, 10 * US);
    assert_int_equal(res.ranks[1].mpi_ps, 10 * US - 500 * NS);
    rt_sim_result_free(&res);
    st_free(&t);
}

/* lock_all, put 1000 bytes to rank 1 (in at 2), flush(1) waits for it; 1 us computation;
 * put 2000 bytes (in at 3 + 3 = 6), flush_all waits for it, unlock_all has nothing left. */
static void test_flush(void **state)
{
    (void)state;
    st_text t = {0};
    st_add(&t, "ranks,2\nwin,0,0\n");
    call(&t, 0, 0, "MPI_Win_lock_all", "lock,MPI_Win_lock_all,0,all,,,,,9,shared", NULL);
    call(&t, 0, 0, "MPI_Put", "put,MPI_Put,0,1,,1000,,shm,5,", NULL);
    call(&t, 0, 0, "MPI_Win_flush", "sync,MPI_Win_flush,0,1,,,,,,flush", NULL);
    call(&t, 0, 1000, "MPI_Put", "put,MPI_Put,0,1,,2000,,shm,6,", NULL);
    call(&t, 0, 1000, "MPI_Win_flush_all", "sync,MPI_Win_flush_all,0,all,,,,,,flush", NULL);
    call(&t, 0, 1000, "MPI_Win_unlock_all", "unlock,MPI_Win_unlock_all,0,all,,,,,9,", NULL);
    init(&t, 1);
    rt_sim_config c;
    st_alpha_beta(&c);
    rt_sim_result res;
    st_replay(t.s, &c, &res);
    assert_int_equal(res.completed, 1);
    assert_int_equal(res.ranks[0].end_ps, 6 * US);
    assert_int_equal(res.ranks[0].mpi_ps, 5 * US);
    assert_int_equal(res.ranks[0].compute_ps, 1 * US);
    rt_sim_result_free(&res);
    st_free(&t);
}

/* ---- 6. mapping ------------------------------------------------------------------------------ */

/* Point-to-point 0->1 100 B, 0->2 200 B, 1->3 400 B, 2->3 800 B, 3->0 1600 B, then a
 * binomial bcast of 1024 bytes from 0 (0->2, 0->1, 2->3). Recorded: all in one module. */
static void test_mapping_gateways(void **state)
{
    (void)state;
    st_text t = {0};
    st_add(&t, "ranks,4\n");
    send(&t, 0, 0, 1, 0, 100);
    send(&t, 0, 0, 2, 0, 200);
    recv(&t, 0, 0, 3, 0, 1600, "");
    recv(&t, 1, 0, 0, 0, 100, "");
    send(&t, 1, 0, 3, 0, 400);
    recv(&t, 2, 0, 0, 0, 200, "");
    send(&t, 2, 0, 3, 0, 800);
    recv(&t, 3, 0, 1, 0, 400, "");
    recv(&t, 3, 0, 2, 0, 800, "");
    send(&t, 3, 0, 0, 0, 1600);
    for (unsigned r = 0; r < 4; r++) {
        char ev[128];
        snprintf(ev, sizeof ev, "coll_end,MPI_Bcast,0,0,,%u,%u,,,bcast", r ? 0 : 1024,
                 r ? 1024 : 0);
        call(&t, r, 0, "MPI_Bcast", "coll_begin,MPI_Bcast,,,,,,,,", ev);
    }
    rt_sim_trace *tr = st_load(t.s);
    rt_sim_config c;
    st_alpha_beta(&c);
    c.alg[RT_COLL_BCAST] = RT_ALG_BINOMIAL;
    static const struct {
        uint32_t node[4], module[4];
        uint64_t gw_messages, gw_bytes;
    } cases[] = {
        /* modules {0,1} {2,3}: 0->2, 1->3, 3->0 and the bcast's 0->2 cross */
        {{0, 0, 1, 1}, {0, 0, 1, 1}, 4, 200 + 400 + 1600 + 1024},
        /* modules {0,3} {1,2}: all but 3->0 and the bcast's three messages cross */
        {{0, 1, 2, 3}, {0, 1, 1, 0}, 7, 100 + 200 + 400 + 800 + 3 * 1024},
    };
    rt_sim_result res;
    st_run(tr, &c, &res);
    assert_int_equal(res.completed, 1);
    assert_int_equal(res.messages, 8);
    assert_int_equal(res.bytes, 3100 + 3 * 1024);
    assert_int_equal(res.gw_messages, 0);
    assert_int_equal(res.gw_bytes, 0);
    rt_sim_result_free(&res);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        c.node = cases[i].node;
        c.module = cases[i].module;
        st_run(tr, &c, &res);
        assert_int_equal(res.completed, 1);
        assert_int_equal(res.messages, 8);
        assert_int_equal(res.gw_messages, cases[i].gw_messages);
        assert_int_equal(res.gw_bytes, cases[i].gw_bytes);
        rt_sim_result_free(&res);
    }
    rt_sim_trace_free(tr);
    st_free(&t);
}

/* ---- 7. CPU costs of calls and scaled computation ------------------------------------------ */

/* [calls] costs are spent when a call is entered, as MPI time, before its operations: rank
 * 0's send leaves 3 us late (2 us + 1000 B at 1 GB/s), rank 1's receive is posted 0.5 us
 * late. Computation is scaled: rank 0's 10 us gap becomes 5 us. */
static void test_call_costs(void **state)
{
    (void)state;
    st_text t = {0};
    st_add(&t, "ranks,2\n");
    init(&t, 0);
    init(&t, 1);
    send(&t, 0, 10000, 1, 0, 1000);
    recv(&t, 1, 0, 0, 0, 1000, "");
    rt_sim_config c;
    logp_config(&c, EAGER);
    rt_sim_result res;
    rt_sim_trace *tr = st_load(t.s);
    st_run(tr, &c, &res); /* without costs: sent at 10 us, in at 10 us + wire */
    assert_int_equal(res.ranks[0].end_ps, 10 * US + wire(1000));
    assert_int_equal(res.ranks[1].end_ps, 10 * US + wire(1000) + O_PS);
    rt_sim_result_free(&res);

    c.model.call[RT_FN_Send] = (rt_net_call){2 * US, 1000000000};
    c.model.call[RT_FN_Recv] = (rt_net_call){500 * NS, 0};
    c.compute_scale_ppm = 500000;
    st_run(tr, &c, &res);
    assert_int_equal(res.completed, 1);
    assert_int_equal(res.ranks[0].compute_ps, 5 * US);
    assert_int_equal(res.ranks[0].end_ps, 5 * US + 3 * US + wire(1000));
    assert_int_equal(res.ranks[0].mpi_ps, 3 * US + wire(1000));
    assert_int_equal(res.ranks[1].end_ps, 8 * US + wire(1000) + O_PS);
    assert_int_equal(res.ranks[1].mpi_ps, res.ranks[1].end_ps);
    rt_sim_result_free(&res);

    /* scale 0: communication only; 1.5: 15 us */
    c.compute_scale_ppm = 0;
    st_run(tr, &c, &res);
    assert_int_equal(res.ranks[0].end_ps, 3 * US + wire(1000));
    rt_sim_result_free(&res);
    c.compute_scale_ppm = 1500000;
    st_run(tr, &c, &res);
    assert_int_equal(res.ranks[0].end_ps, 18 * US + wire(1000));
    rt_sim_result_free(&res);
    rt_sim_trace_free(tr);
    st_free(&t);

    /* A collective's cost takes the bytes it sends (coll_begin carries none): a 1000-byte
     * allreduce costing n / 1 GB/s on both ranks ends exactly 1 us later, a barrier costing
     * 700 ns 700 ns later. */
    st_add(&t, "ranks,2\n");
    for (unsigned r = 0; r < 2; r++) {
        call(&t, r, 0, "MPI_Allreduce", "coll_begin,MPI_Allreduce,,,,,,,,",
             "coll_end,MPI_Allreduce,0,,,1000,1000,,,allreduce");
        call(&t, r, 0, "MPI_Barrier", "coll_begin,MPI_Barrier,,,,,,,,",
             "coll_end,MPI_Barrier,0,,,0,0,,,barrier");
    }
    tr = st_load(t.s);
    logp_config(&c, EAGER);
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
    call(&t, 0, 0, "MPI_Barrier", "coll_begin,MPI_Barrier,,,,,,,,",
         "coll_end,MPI_Barrier,0,,,0,0,,,barrier");
    call(&t, 0, 10, "MPI_Allreduce", "coll_begin,MPI_Allreduce,,,,,,,,",
         "coll_end,MPI_Allreduce,0,,,1000,1000,,,allreduce");
    call(&t, 0, 20, "MPI_Bcast", "coll_begin,MPI_Bcast,,,,,,,,",
         "coll_end,MPI_Bcast,0,0,,1000,0,,,bcast");
    rt_sim_trace *one = st_load(t.s);
    st_free(&t);
    /* two ranks, each: a barrier and an allreduce on MPI_COMM_SELF (communicator 1) */
    st_add(&t, "ranks,2\n");
    for (unsigned r = 0; r < 2; r++) {
        call(&t, r, 0, "MPI_Barrier", "coll_begin,MPI_Barrier,,,,,,,,",
             "coll_end,MPI_Barrier,1,,,0,0,,,barrier");
        call(&t, r, 0, "MPI_Allreduce", "coll_begin,MPI_Allreduce,,,,,,,,",
             "coll_end,MPI_Allreduce,1,,,1000,1000,,,allreduce");
    }
    rt_sim_trace *self = st_load(t.s);
    st_free(&t);
    for (int fast = 0; fast < 2; fast++) {
        rt_sim_config c;
        logp_config(&c, EAGER);
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
/* Four ranks on one node with two cores, turns of 10 us: ranks 0 and 1 run in [0, 10),
 * [20, 30), ... (turn 0 of 2 on cores 0 and 1), ranks 2 and 3 in [10, 20), [30, 40), ... */
static void test_time_sharing(void **state)
{
    (void)state;
    st_text t = {0};
    st_add(&t, "ranks,4\n");
    for (unsigned r = 0; r < 4; r++) {
        init(&t, r);
        call(&t, r, 25000, "MPI_Finalize", NULL, NULL); /* 25 us of computation */
    }
    rt_sim_trace *tr = st_load(t.s);
    rt_sim_config c;
    logp_config(&c, EAGER);
    c.model.cores = 2;
    c.model.timeslice_ps = 10 * US;
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
    send(&t, 0, 0, 2, 0, 1000);
    recv(&t, 2, 0, 0, 0, 1000, "");
    send(&t, 3, 0, 1, 0, 1000);
    recv(&t, 1, 0, 3, 0, 1000, "");
    tr = st_load(t.s);
    c.model.cores = 2;
    st_run(tr, &c, &res);
    assert_int_equal(res.completed, 1);
    assert_int_equal(res.ranks[2].end_ps, 10 * US + O_PS);
    assert_int_equal(res.ranks[3].end_ps, 10 * US + res.ranks[0].end_ps);
    assert_true(10 * US + wire(1000) + O_PS < 20 * US);
    assert_int_equal(res.ranks[1].end_ps, 20 * US);
    assert_int_equal(res.ranks[1].mpi_ps, 20 * US);
    rt_sim_result_free(&res);
    c.model.cores = 0; /* the default: no sharing */
    st_run(tr, &c, &res);
    assert_int_equal(res.ranks[1].end_ps, wire(1000) + O_PS);
    rt_sim_result_free(&res);
    rt_sim_trace_free(tr);
    st_free(&t);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sim_coll_bcast_8x8192),
        cmocka_unit_test(test_sim_coll_formulas),
        cmocka_unit_test(test_sim_coll_large),
        cmocka_unit_test(test_eager),
        cmocka_unit_test(test_rendezvous),
        cmocka_unit_test(test_rendezvous_port_idle),
        cmocka_unit_test(test_port_message),
        cmocka_unit_test(test_port_bytes),
        cmocka_unit_test(test_non_overtaking),
        cmocka_unit_test(test_wildcards),
        cmocka_unit_test(test_probe),
        cmocka_unit_test(test_persistent),
        cmocka_unit_test(test_cancelled),
        cmocka_unit_test(test_waitany_waitall),
        cmocka_unit_test(test_sendrecv_ring),
        cmocka_unit_test(test_send_recv_ring_deadlock),
        cmocka_unit_test(test_unmatched_send),
        cmocka_unit_test(test_mismatched_collectives),
        cmocka_unit_test(test_iallreduce_overlap),
        cmocka_unit_test(test_fence_put),
        cmocka_unit_test(test_pscw),
        cmocka_unit_test(test_lock_exclusive),
        cmocka_unit_test(test_flush),
        cmocka_unit_test(test_mapping_gateways),
        cmocka_unit_test(test_call_costs),
        cmocka_unit_test(test_one_member_collectives),
        cmocka_unit_test(test_time_sharing),
        cmocka_unit_test(test_sim_result_diff),
        cmocka_unit_test(test_sim_check_fast),
    };
    return rt_test_main("sim", tests, argc, argv);
}
