/* Unit tests for the analyzer: its summary of a trace (rt_an_info, analyzer/info.c), the counts
 * of hand-made events and of test traces, worked out by hand from docs/analyzer.md ("retrace
 * info") and the traces' lines. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "rt_test_main.h"

#include <string.h>

#include "rt_an.h"

static rt_event event(unsigned kind, uint64_t time, uint64_t bytes, uint64_t rbytes,
                      unsigned contype)
{
    rt_event ev;
    memset(&ev, 0, sizeof ev);
    ev.kind = (uint8_t)kind;
    ev.time = time;
    ev.bytes = bytes;
    ev.rbytes = rbytes;
    ev.contype = (uint8_t)contype;
    return ev;
}

/* What each kind adds: messages at the sender only, collectives at their end, RMA bytes
 * both ways; the time span from the earliest to the latest event in any order. */
static void test_info_events(void **state)
{
    (void)state;
    rt_an_info_result in;
    memset(&in, 0, sizeof in);
    assert_int_equal(rt_an_info_begin(&in, 1), 0);
    const rt_event evs[] = {
        event(RT_EV_ENTER, 500, 0, 0, 0),
        event(RT_EV_SEND, 510, 100, 0, RT_CT_NET),
        event(RT_EV_ISEND, 520, 1000, 0, RT_CT_GW),
        event(RT_EV_RECV, 400, 100, 0, RT_CT_NET),     /* counted at the sender */
        event(RT_EV_IRECV, 900, 1000, 0, RT_CT_GW),    /* too */
        event(RT_EV_COLL_BEGIN, 530, 0, 0, 0),         /* not a call yet */
        event(RT_EV_COLL_END, 540, 64, 128, 0),        /* bytes sent: 64 */
        event(RT_EV_NBC_COMPLETE, 550, 32, 0, 0),      /* 32 */
        event(RT_EV_RMA_PUT, 560, 8, 0, RT_CT_SHM),    /* 8 put */
        event(RT_EV_RMA_GET, 570, 0, 16, RT_CT_SHM),   /* 16 got */
        event(RT_EV_RMA_ATOMIC, 580, 4, 4, RT_CT_SHM), /* 4 sent, 4 received */
        event(RT_EV_RMA_OP_COMPLETE, 590, 0, 0, 0),    /* no transfer */
        event(RT_EV_LEAVE, 1200, 0, 0, 0),
    };
    for (size_t i = 0; i < sizeof evs / sizeof *evs; i++)
        rt_an_info_event(&in, &evs[i]);
    assert_int_equal(in.events, 13);
    assert_int_equal(in.by_class[RT_EVC_CALL], 2);
    assert_int_equal(in.by_class[RT_EVC_P2P], 4);
    assert_int_equal(in.by_class[RT_EVC_COLL], 3);
    assert_int_equal(in.by_class[RT_EVC_RMA], 4);
    assert_int_equal(in.by_class[RT_EVC_COUNT], 0);
    assert_int_equal(in.tmin, 400);
    assert_int_equal(in.tmax, 1200);
    assert_int_equal(in.messages, 2);
    assert_int_equal(in.by_contype[RT_CT_NET], 1);
    assert_int_equal(in.by_contype[RT_CT_GW], 1);
    assert_int_equal(in.by_contype[RT_CT_SHM], 0);
    assert_int_equal(in.bytes_p2p, 1100);
    assert_int_equal(in.colls, 2);
    assert_int_equal(in.bytes_coll, 96);
    assert_int_equal(in.rma_ops, 3);
    assert_int_equal(in.bytes_rma, 8 + 16 + 4 + 4);
    /* a kind out of range is counted as an event of no class */
    rt_event odd = event(RT_EV_COUNT, 450, 0, 0, 0);
    rt_an_info_event(&in, &odd);
    assert_int_equal(in.events, 14);
    assert_int_equal(in.by_class[RT_EVC_COUNT], 1);
    rt_an_info_free(&in);
}

/* Pending calls: a rank's call that never returned (rt_event.h) counts once per PENDING, its
 * rank once; its collective did not complete (not counted), its send was posted (counted);
 * the next enter ends its operations, so a later collective counts again. Ranks 1 and 3. */
static void test_info_pending(void **state)
{
    (void)state;
    rt_an_info_result in;
    memset(&in, 0, sizeof in);
    assert_int_equal(rt_an_info_begin(&in, 4), 0);
    static const struct {
        unsigned rank, kind;
        uint64_t bytes;
    } evs[] = {
        {1, RT_EV_ENTER, 0}, {1, RT_EV_PENDING, 0},  {1, RT_EV_COLL_END, 64}, /* not counted */
        {3, RT_EV_ENTER, 0}, {3, RT_EV_PENDING, 0},  {3, RT_EV_SEND, 100},    /* counted */
        {1, RT_EV_ENTER, 0}, {1, RT_EV_COLL_END, 8}, /* another thread's: counted */
        {1, RT_EV_LEAVE, 0}, {3, RT_EV_ENTER, 0},    {3, RT_EV_PENDING, 0},
    };
    for (size_t i = 0; i < sizeof evs / sizeof *evs; i++) {
        rt_event ev = event(evs[i].kind, 10, evs[i].bytes, 0, RT_CT_NONE);
        ev.rank = evs[i].rank;
        rt_an_info_event(&in, &ev);
    }
    assert_int_equal(in.pending, 3);
    assert_int_equal(in.pending_ranks, 2);
    assert_int_equal(in.had_pending[0], 0);
    assert_int_equal(in.had_pending[1], 1);
    assert_int_equal(in.had_pending[3], 1);
    assert_int_equal(in.colls, 1);
    assert_int_equal(in.bytes_coll, 8);
    assert_int_equal(in.messages, 1);
    assert_int_equal(in.bytes_p2p, 100);
    assert_int_equal(in.by_class[RT_EVC_CALL], 8);
    rt_an_info_free(&in);
}

/* tests/data/neighbors.csv: 4 ranks, ranks 2 and 3 on node 1 of module 1; communicators
 * world, self, 2 (a Cartesian grid) and 3 (a graph), each with a neighbour list per rank;
 * per rank an MPI_Neighbor_allgather (enter, coll_begin, coll_end of 4000 bytes, leave) and
 * an MPI_Ineighbor_alltoallv (enter, nbc_request, leave) completed in MPI_Wait (enter,
 * nbc_complete of 0, 1000, 1000 and 2000 bytes on ranks 0 to 3, leave), from 0 to 12100 ns. */
static void test_info_neighbors(void **state)
{
    (void)state;
    rt_an_info_result in;
    rt_err err;
    assert_int_equal(rt_an_info(RT_TEST_DATA "/neighbors.csv", 1, &in, &err), 0);
    assert_int_equal(in.format, RT_FMT_CSV);
    assert_int_equal(in.nranks, 4);
    assert_int_equal(in.nodes, 2);
    assert_int_equal(in.modules, 2);
    assert_int_equal(in.comms, 4);
    assert_int_equal(in.wins, 0);
    assert_int_equal(in.topologies, 2);
    assert_int_equal(in.nbr_lists, 8);
    assert_int_equal(in.events, 40);
    assert_int_equal(in.by_class[RT_EVC_CALL], 24);
    assert_int_equal(in.by_class[RT_EVC_COLL], 16);
    assert_int_equal(in.by_class[RT_EVC_P2P], 0);
    assert_int_equal(in.tmin, 0);
    assert_int_equal(in.tmax, 12100);
    assert_int_equal(in.messages, 0);
    assert_int_equal(in.colls, 8);
    assert_int_equal(in.bytes_coll, 4 * 4000 + 0 + 1000 + 1000 + 2000);
    assert_null(in.truncated);
    rt_an_info_free(&in);
}

/* tests/data/truncated.csv: a send of 8 bytes over shm and its receive, then a line cut
 * short: the two events count, and the reader's note comes back. */
static void test_info_truncated(void **state)
{
    (void)state;
    rt_an_info_result in;
    rt_err err;
    assert_int_equal(rt_an_info(RT_TEST_DATA "/truncated.csv", 1, &in, &err), 0);
    assert_int_equal(in.nranks, 2);
    assert_int_equal(in.events, 2);
    assert_int_equal(in.tmin, 10);
    assert_int_equal(in.tmax, 12);
    assert_int_equal(in.messages, 1);
    assert_int_equal(in.by_contype[RT_CT_SHM], 1);
    assert_int_equal(in.bytes_p2p, 8);
    assert_non_null(in.truncated);
    assert_non_null(strstr(in.truncated, "trace cut short"));
    rt_an_info_free(&in);
}

/* A trace that cannot be read: the reader's error, naming the trace; nothing to free. */
static void test_info_errors(void **state)
{
    (void)state;
    rt_an_info_result in;
    rt_err err;
    assert_true(rt_an_info(RT_TEST_DATA "/no-such-trace.csv", 1, &in, &err) < 0);
    assert_non_null(strstr(err.msg, "no-such-trace.csv"));
    assert_int_equal(rt_an_info(RT_TEST_DATA "/out_of_order.csv", 1, &in, &err), -RT_E_ORDER);
    assert_non_null(strstr(err.msg, "out_of_order.csv"));
    assert_null(in.truncated);
}

/* The messages of rt_an_msgs_of, kept in order. */
typedef struct msg_log {
    rt_an_msg m[4096];
    size_t n;
} msg_log;

static int log_msg(void *ctx, const rt_an_msg *m)
{
    msg_log *g = ctx;
    assert_true(g->n < sizeof g->m / sizeof *g->m);
    g->m[g->n++] = *m;
    return 0;
}

/* Wire level keeps a rank's last schedule for the next collective with the same key: each
 * collective of a run that varies every field of the key, repeated and interleaved across
 * ranks, gives the messages and notes a new rt_an_msgs (nothing kept) gives it. */
static void test_msgs_wire_kept(void **state)
{
    (void)state;
    rt_defs d;
    rt_err err;
    assert_int_equal(rt_defs_init(&d, 8, &err), 0);
    for (uint32_t r = 0; r < 8; r++) {
        d.module[r] = r / 4; /* two modules of two nodes */
        d.node[r] = r / 2;
    }
    rt_an_level l;
    rt_an_level_default(&l);
    l.level = RT_AN_WIRE;
    l.coll = RT_AN_COLL_FLOWS;
    l.alg[RT_COLL_BCAST] = RT_ALG_OMPI;
    const struct {
        unsigned op;
        int32_t root;
        uint64_t bytes, rbytes;
        uint8_t esize;
    } calls[] = {
        {RT_COLL_ALLREDUCE, RT_PEER_NONE, 8, 8, 0},
        {RT_COLL_ALLREDUCE, RT_PEER_NONE, 1 << 20, 1 << 20, 0}, /* bytes */
        {RT_COLL_ALLREDUCE, RT_PEER_NONE, 1 << 20, 1 << 20, 4}, /* element size */
        {RT_COLL_BCAST, 3, 4096, 0, 0},                         /* rank 3 the root */
        {RT_COLL_BCAST, 1, 0, 4096, 0},
        {RT_COLL_BCAST, 0, 0, 4096, 0},    /* root */
        {RT_COLL_BCAST, 1, 4096, 4096, 0}, /* no schedule fits: unexpanded */
        {RT_COLL_REDUCE, 1, 64, 0, 0},     /* op */
        {RT_COLL_ALLGATHER, RT_PEER_NONE, 100, 800, 0},
        {RT_COLL_ALLGATHER, RT_PEER_NONE, 100, 1600, 0}, /* rbytes */
        {RT_COLL_BARRIER, RT_PEER_NONE, 0, 0, 0},
    };
    const size_t ncalls = sizeof calls / sizeof *calls;
    rt_an_msgs *kept;
    assert_int_equal(rt_an_msgs_new(&d, &kept, &err), 0);
    rt_an_notes notes_kept = {0};
    size_t hits = 0;
    for (unsigned round = 0; round < 3; round++)
        for (size_t i = 0; i < 2 * ncalls; i++) {
            size_t c = round == 1 ? i / 2 : i % ncalls; /* each twice in a row, or in turn */
            uint32_t rank = (uint32_t)(round == 2 ? i % 8 : 3);
            rt_event ev = event(RT_EV_COLL_END, 100 * i, calls[c].bytes, calls[c].rbytes, 0);
            ev.rank = rank;
            ev.comm = RT_COMM_WORLD;
            ev.op = (uint8_t)calls[c].op;
            ev.peer = calls[c].root;
            ev.esize = calls[c].esize;
            ev.call = RT_FN_Allreduce;
            msg_log a = {.n = 0}, b = {.n = 0};
            rt_an_notes before = notes_kept, notes_new = {0};
            assert_int_equal(rt_an_msgs_of(kept, &l, &ev, log_msg, &a, &notes_kept), 0);
            rt_an_msgs *fresh;
            assert_int_equal(rt_an_msgs_new(&d, &fresh, &err), 0);
            assert_int_equal(rt_an_msgs_of(fresh, &l, &ev, log_msg, &b, &notes_new), 0);
            rt_an_msgs_free(fresh);
            assert_int_equal(a.n, b.n);
            hits += a.n > 0;
            for (size_t k = 0; k < a.n; k++) {
                assert_int_equal(a.m[k].src, b.m[k].src);
                assert_int_equal(a.m[k].dst, b.m[k].dst);
                assert_int_equal(a.m[k].bytes, b.m[k].bytes);
                assert_int_equal(a.m[k].count, b.m[k].count);
                assert_int_equal(a.m[k].contype, b.m[k].contype);
                assert_int_equal(a.m[k].comm, b.m[k].comm);
                assert_int_equal(a.m[k].call, b.m[k].call);
                assert_int_equal(a.m[k].origin, b.m[k].origin);
                assert_int_equal(a.m[k].op, b.m[k].op);
            }
            assert_int_equal(notes_kept.approx - before.approx, notes_new.approx);
            assert_int_equal(notes_kept.unexpanded - before.unexpanded, notes_new.unexpanded);
        }
    assert_true(hits > 2 * ncalls); /* collectives with messages were compared */
    rt_an_msgs_free(kept);
    rt_defs_free(&d);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_info_events),    cmocka_unit_test(test_info_pending),
        cmocka_unit_test(test_info_neighbors), cmocka_unit_test(test_info_truncated),
        cmocka_unit_test(test_info_errors),    cmocka_unit_test(test_msgs_wire_kept),
    };
    return rt_test_main("analyzer", tests, argc, argv);
}
