/* Unit tests of the SimGrid time-independent (TI) reader (formats/ti_reader.c,
 * ti_actions.c): each action as the events the tracer would have recorded, the ranks of a
 * shared file, SimGrid's own recording, and bad lines. test_ti_lines.c tests how the input
 * is read and the events handed out, test_ti_write.c the writer. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "rt_test_main.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_ti.h"

/* The events of rank (-1: all) whose kind name contains filter (NULL: all), one per line. */
static const char *rows(const rt_test_trace *l, int rank, const char *filter)
{
    static char out[1 << 16];
    size_t n = 0;
    out[0] = '\0';
    for (size_t i = 0; i < l->n; i++) {
        if ((rank >= 0 && l->ev[i].rank != (uint32_t)rank) ||
            (filter && !strstr(rt_event_kind_name(l->ev[i].kind), filter)))
            continue;
        char r[256];
        row(&l->ev[i], r, sizeof r);
        n += (size_t)snprintf(out + n, sizeof out - n, "%s\n", r);
        assert_true(n < sizeof out);
    }
    return out;
}

static void test_p2p_and_time(void **state)
{
    (void)state;
    const char *ti = ti_trace("p2p.ti",
                              "0 init\n"
                              "0 send 1 5 10 1\n"  /* 10 MPI_INT */
                              "0 compute 1500\n"   /* 1 flop = 1 ns */
                              "0 isend 1 6 3\n"    /* MPI_BYTE: init without argument */
                              "0 sleep 0.000002\n" /* 2000 ns */
                              "0 wait 0 1 6\n"
                              "0 sendRecv 2 1 3 1 0 6\n"
                              "0 recv 1 9 16\n"
                              "0 finalize\n",
                              "  1   init   1  \n" /* MPI_DOUBLE from here on; blanks */
                              "# a comment\n"
                              "\n"
                              "1\trecv 0 5 10 1\n"
                              "1 irecv 0 6 3 6\n"
                              "1 wait 0 1 6\n"
                              "1 sendRecv 3 0 2 0 6 0\n"
                              "1 send 0 9 2\n"  /* 2 MPI_DOUBLE */
                              "1 compute 2.4\n" /* rounds to 2 ns */
                              "1 finalize\n",
                              NULL);
    rt_test_trace l;
    load_ok(ti, &l);
    assert_int_equal(l.defs.nranks, 2);
    assert_int_equal(l.defs.node[0], 0);
    assert_int_equal(l.defs.node[1], 1);
    assert_int_equal(l.defs.module[1], 0);
    assert_string_equal(rows(&l, 0, NULL), "0 0 enter MPI_Init\n"
                                           "0 0 leave MPI_Init\n"
                                           "0 0 enter MPI_Send\n"
                                           "0 0 send MPI_Send c0 p1 t5 b40 knet s4/0\n"
                                           "0 0 leave MPI_Send\n"
                                           "0 1500 enter MPI_Isend\n"
                                           "0 1500 isend MPI_Isend c0 p1 t6 b3 knet q1\n"
                                           "0 1500 leave MPI_Isend\n"
                                           "0 3500 enter MPI_Wait\n"
                                           "0 3500 isend_complete MPI_Wait q1\n"
                                           "0 3500 leave MPI_Wait\n"
                                           "0 3500 enter MPI_Sendrecv\n"
                                           "0 3500 send MPI_Sendrecv c0 p1 t0 b16 knet s8/0\n"
                                           "0 3500 recv MPI_Sendrecv c0 p1 t0 b3 knet\n"
                                           "0 3500 leave MPI_Sendrecv\n"
                                           "0 3500 enter MPI_Recv\n"
                                           "0 3500 recv MPI_Recv c0 p1 t9 b16 knet\n"
                                           "0 3500 leave MPI_Recv\n"
                                           "0 3500 enter MPI_Finalize\n"
                                           "0 3500 leave MPI_Finalize\n");
    assert_string_equal(rows(&l, 1, NULL), "1 0 enter MPI_Init\n"
                                           "1 0 leave MPI_Init\n"
                                           "1 0 enter MPI_Recv\n"
                                           "1 0 recv MPI_Recv c0 p0 t5 b40 knet s4/0\n"
                                           "1 0 leave MPI_Recv\n"
                                           "1 0 enter MPI_Irecv\n"
                                           "1 0 irecv_request MPI_Irecv q1\n"
                                           "1 0 leave MPI_Irecv\n"
                                           "1 0 enter MPI_Wait\n"
                                           "1 0 irecv MPI_Wait c0 p0 t6 b3 knet q1\n"
                                           "1 0 leave MPI_Wait\n"
                                           "1 0 enter MPI_Sendrecv\n"
                                           "1 0 send MPI_Sendrecv c0 p0 t0 b3 knet\n"
                                           "1 0 recv MPI_Sendrecv c0 p0 t0 b16 knet s8/0\n"
                                           "1 0 leave MPI_Sendrecv\n"
                                           "1 0 enter MPI_Send\n"
                                           "1 0 send MPI_Send c0 p0 t9 b16 knet s8/0\n"
                                           "1 0 leave MPI_Send\n"
                                           "1 2 enter MPI_Finalize\n"
                                           "1 2 leave MPI_Finalize\n");
    rt_test_unload(&l);
}

/* wait and test take the oldest request under (source, destination, tag); a completing test
 * leaves a mark that the next wait or test of that key takes; waitall completes every open
 * request; what is open at finalize or at the end is completed there, as SimGrid does. */
static void test_requests(void **state)
{
    (void)state;
    const char *ti = ti_trace("req.ti",
                              "0 init\n"
                              "0 irecv 1 3 10\n"
                              "0 irecv 1 3 20\n"
                              "0 test 1 0 3\n"
                              "0 wait 1 0 3\n"
                              "0 wait 1 0 3\n"
                              "0 test 1 0 3\n"
                              "0 isend 1 4 5\n"
                              "0 irecv 1 4 6\n"
                              "0 waitall 2\n"
                              "0 isend 1 7 8\n"
                              "0 isend 0 8 1\n"
                              "0 finalize\n",
                              "1 init\n"
                              "1 isend 0 3 10\n"
                              "1 isend 0 3 20\n"
                              "1 waitall\n"
                              "1 irecv 0 4 5\n"
                              "1 isend 0 4 6\n"
                              "1 waitall\n"
                              "1 irecv 0 7 8\n",
                              NULL);
    rt_test_trace l;
    load_ok(ti, &l);
    assert_string_equal(rows(&l, 0, NULL),
                        "0 0 enter MPI_Init\n"
                        "0 0 leave MPI_Init\n"
                        "0 0 enter MPI_Irecv\n"
                        "0 0 irecv_request MPI_Irecv q1\n"
                        "0 0 leave MPI_Irecv\n"
                        "0 0 enter MPI_Irecv\n"
                        "0 0 irecv_request MPI_Irecv q2\n"
                        "0 0 leave MPI_Irecv\n"
                        "0 0 enter MPI_Test\n"
                        "0 0 irecv MPI_Test c0 p1 t3 b10 knet q1\n"
                        "0 0 leave MPI_Test\n"
                        "0 0 enter MPI_Wait\n"
                        "0 0 irecv MPI_Wait c0 p1 t3 b20 knet q2\n"
                        "0 0 leave MPI_Wait\n"
                        "0 0 enter MPI_Wait\n" /* takes the test's mark */
                        "0 0 leave MPI_Wait\n"
                        "0 0 enter MPI_Test\n" /* nothing left */
                        "0 0 leave MPI_Test\n"
                        "0 0 enter MPI_Isend\n"
                        "0 0 isend MPI_Isend c0 p1 t4 b5 knet q3\n"
                        "0 0 leave MPI_Isend\n"
                        "0 0 enter MPI_Irecv\n"
                        "0 0 irecv_request MPI_Irecv q4\n"
                        "0 0 leave MPI_Irecv\n"
                        "0 0 enter MPI_Waitall\n"
                        "0 0 isend_complete MPI_Waitall q3\n"
                        "0 0 irecv MPI_Waitall c0 p1 t4 b6 knet q4\n"
                        "0 0 leave MPI_Waitall\n"
                        "0 0 enter MPI_Isend\n"
                        "0 0 isend MPI_Isend c0 p1 t7 b8 knet q5\n"
                        "0 0 leave MPI_Isend\n"
                        "0 0 enter MPI_Isend\n"
                        "0 0 isend MPI_Isend c0 p0 t8 b1 kloop q6\n"
                        "0 0 leave MPI_Isend\n"
                        "0 0 enter MPI_Waitall\n" /* SimGrid waits for these at the end */
                        "0 0 isend_complete MPI_Waitall q5\n"
                        "0 0 isend_complete MPI_Waitall q6\n"
                        "0 0 leave MPI_Waitall\n"
                        "0 0 enter MPI_Finalize\n"
                        "0 0 leave MPI_Finalize\n");
    assert_string_equal(rows(&l, 1, "irecv"), "1 0 irecv_request MPI_Irecv q3\n"
                                              "1 0 irecv MPI_Waitall c0 p0 t4 b5 knet q3\n"
                                              "1 0 irecv_request MPI_Irecv q5\n"
                                              "1 0 irecv MPI_Waitall c0 p0 t7 b8 knet q5\n");
    /* The end of rank 1's file: an implicit Waitall is its last call. */
    assert_int_equal(l.ev[l.n - 1].kind, RT_EV_LEAVE);
    assert_int_equal(l.ev[l.n - 1].call, RT_FN_Waitall);
    rt_test_unload(&l);
}

/* Every collective, with datatypes and roots: COLL_END as docs/tracer.md defines it. */
static void test_collectives(void **state)
{
    (void)state;
    static const char *const lines[] = {
        "barrier",
        "bcast 5 1 1",      /* 5 MPI_INT from root 1 */
        "reduce 4 100 1 0", /* 4 MPI_DOUBLE to root 1, then 100 flops */
        "allreduce 2 50 5", /* 2 MPI_FLOAT, then 50 flops */
        "scan 3 0",         /* MPI_BYTE */
        "exscan 3 0 1",
        "alltoall 2 3 1 0", /* 2 MPI_INT out, 3 MPI_DOUBLE in, per rank */
        "allgather 2 2",
        "gather 2 2 1 1 1",
        "scatter 2 2 1 3 3", /* MPI_SHORT */
        "gatherv 2 1 2 3 1",
        "allgatherv 2 1 2 3",
        "allgatherv 2 1 2 3 1 1",       /* with datatypes */
        "allgatherv 2 1 2 3 0 4 8",     /* with displacements */
        "allgatherv 2 1 2 3 1 1 0 4 8", /* with datatypes and displacements */
        "scatterv 1 2 3 2 1",
        "reducescatter 1 2 3 10 1",
        "alltoallv 9 1 2 3 9 3 2 1",
        "alltoallv 9 1 2 3 9 3 2 1 1 0",
    };
    char text[3][2048];
    for (int r = 0; r < 3; r++) {
        int n = snprintf(text[r], sizeof text[r], "%d init\n", r);
        for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++)
            n += snprintf(text[r] + n, sizeof text[r] - (size_t)n, "%d %s\n", r, lines[i]);
    }
    const char *ti = ti_trace("coll.ti", text[0], text[1], text[2], NULL);
    rt_test_trace l;
    load_ok(ti, &l);
    assert_string_equal(rows(&l, 0, "coll_end"),
                        "0 0 coll_end MPI_Barrier c0 p-1 b0 r0 obarrier\n"
                        "0 0 coll_end MPI_Bcast c0 p1 b0 r20 obcast s0/4\n"
                        "0 0 coll_end MPI_Reduce c0 p1 b32 r0 oreduce s8/0\n"
                        "0 100 coll_end MPI_Allreduce c0 p-1 b8 r8 oallreduce s4/4\n"
                        "0 150 coll_end MPI_Scan c0 p-1 b3 r3 oscan\n"
                        "0 150 coll_end MPI_Exscan c0 p-1 b12 r0 oexscan s4/0\n"
                        "0 150 coll_end MPI_Alltoall c0 p-1 b24 r72 oalltoall s4/8\n"
                        "0 150 coll_end MPI_Allgather c0 p-1 b2 r6 oallgather\n"
                        "0 150 coll_end MPI_Gather c0 p1 b8 r0 ogather s4/0\n"
                        "0 150 coll_end MPI_Scatter c0 p1 b0 r4 oscatter s0/2\n"
                        "0 150 coll_end MPI_Gatherv c0 p1 b2 r0 ogatherv\n"
                        "0 150 coll_end MPI_Allgatherv c0 p-1 b2 r6 oallgatherv\n"
                        "0 150 coll_end MPI_Allgatherv c0 p-1 b8 r24 oallgatherv s4/4\n"
                        "0 150 coll_end MPI_Allgatherv c0 p-1 b2 r6 oallgatherv\n"
                        "0 150 coll_end MPI_Allgatherv c0 p-1 b8 r24 oallgatherv s4/4\n"
                        "0 150 coll_end MPI_Scatterv c0 p1 b0 r2 oscatterv\n"
                        "0 150 coll_end MPI_Reduce_scatter c0 p-1 b24 r4 oreduce_scatter s4/4\n"
                        "0 160 coll_end MPI_Alltoallv c0 p-1 b6 r6 oalltoallv\n"
                        "0 160 coll_end MPI_Alltoallv c0 p-1 b24 r48 oalltoallv s4/8\n");
    assert_string_equal(rows(&l, 1, "coll_end"),
                        "1 0 coll_end MPI_Barrier c0 p-1 b0 r0 obarrier\n"
                        "1 0 coll_end MPI_Bcast c0 p1 b20 r0 obcast s4/0\n"
                        "1 0 coll_end MPI_Reduce c0 p1 b32 r32 oreduce s8/8\n"
                        "1 100 coll_end MPI_Allreduce c0 p-1 b8 r8 oallreduce s4/4\n"
                        "1 150 coll_end MPI_Scan c0 p-1 b3 r3 oscan\n"
                        "1 150 coll_end MPI_Exscan c0 p-1 b12 r12 oexscan s4/4\n"
                        "1 150 coll_end MPI_Alltoall c0 p-1 b24 r72 oalltoall s4/8\n"
                        "1 150 coll_end MPI_Allgather c0 p-1 b2 r6 oallgather\n"
                        "1 150 coll_end MPI_Gather c0 p1 b8 r24 ogather s4/4\n"
                        "1 150 coll_end MPI_Scatter c0 p1 b12 r4 oscatter s2/2\n"
                        "1 150 coll_end MPI_Gatherv c0 p1 b2 r6 ogatherv\n"
                        "1 150 coll_end MPI_Allgatherv c0 p-1 b2 r6 oallgatherv\n"
                        "1 150 coll_end MPI_Allgatherv c0 p-1 b8 r24 oallgatherv s4/4\n"
                        "1 150 coll_end MPI_Allgatherv c0 p-1 b2 r6 oallgatherv\n"
                        "1 150 coll_end MPI_Allgatherv c0 p-1 b8 r24 oallgatherv s4/4\n"
                        "1 150 coll_end MPI_Scatterv c0 p1 b6 r2 oscatterv\n"
                        "1 150 coll_end MPI_Reduce_scatter c0 p-1 b24 r8 oreduce_scatter s4/4\n"
                        "1 160 coll_end MPI_Alltoallv c0 p-1 b6 r6 oalltoallv\n"
                        "1 160 coll_end MPI_Alltoallv c0 p-1 b24 r48 oalltoallv s4/8\n");
    /* Each collective is ENTER, COLL_BEGIN, COLL_END, LEAVE at one time. */
    assert_non_null(strstr(rows(&l, 2, NULL), "2 0 leave MPI_Init\n"
                                              "2 0 enter MPI_Barrier\n"
                                              "2 0 coll_begin MPI_Barrier\n"
                                              "2 0 coll_end MPI_Barrier c0 p-1 b0 r0 obarrier\n"
                                              "2 0 leave MPI_Barrier\n"
                                              "2 0 enter MPI_Bcast\n"));
    rt_test_unload(&l);
}

/* The communicator actions SimGrid's replay ignores, and location. */
static void test_comm_actions(void **state)
{
    (void)state;
    const char *ti = ti_trace("comm.ti",
                              "0 comm_size 4\n0 comm_split 1 2\n0 comm_dup\n"
                              "0 location app.c 12\n0 compute 7\n0 comm_dup 3\n",
                              NULL);
    rt_test_trace l;
    load_ok(ti, &l);
    assert_string_equal(rows(&l, -1, NULL), "0 0 enter MPI_Comm_split\n"
                                            "0 0 leave MPI_Comm_split\n"
                                            "0 0 enter MPI_Comm_dup\n"
                                            "0 0 leave MPI_Comm_dup\n"
                                            "0 7 enter MPI_Comm_dup\n"
                                            "0 7 leave MPI_Comm_dup\n");
    rt_test_unload(&l);
}

/* An index of one line: one file for every rank, read in one pass (ranks interleave). */
static void test_shared_file(void **state)
{
    (void)state;
    char *index = rt_test_tmp_path("shared.ti"), *actions = rt_test_tmp_path("shared.txt");
    rt_test_write_text(index, "shared.txt\n");
    rt_test_write_text(actions, "0 init\n2 init\n0 isend 2 1 4\n2 recv 0 1 4\n2 compute 5\n"
                                "2 finalize\n");
    rt_test_trace l;
    load_ok(index, &l);
    assert_int_equal(l.defs.nranks, 3); /* 0 to the largest rank named */
    assert_string_equal(rows(&l, -1, NULL), "0 0 enter MPI_Init\n"
                                            "0 0 leave MPI_Init\n"
                                            "2 0 enter MPI_Init\n"
                                            "2 0 leave MPI_Init\n"
                                            "0 0 enter MPI_Isend\n"
                                            "0 0 isend MPI_Isend c0 p2 t1 b4 knet q1\n"
                                            "0 0 leave MPI_Isend\n"
                                            "2 0 enter MPI_Recv\n"
                                            "2 0 recv MPI_Recv c0 p0 t1 b4 knet\n"
                                            "2 0 leave MPI_Recv\n"
                                            "2 5 enter MPI_Finalize\n"
                                            "2 5 leave MPI_Finalize\n"
                                            "0 0 enter MPI_Waitall\n"
                                            "0 0 isend_complete MPI_Waitall q1\n"
                                            "0 0 leave MPI_Waitall\n");
    rt_test_unload(&l);
}

/* The trace SimGrid 3.32 recorded of tests/data/ti/smpi/app.c: sizes by datatype. */
static void test_smpi_recording(void **state)
{
    (void)state;
    rt_test_trace l;
    load_ok(SMPI_TRACE, &l);
    assert_int_equal(l.defs.nranks, 4);
    /* Rank 1, as app.c says: bcast 10 doubles from 2, reduce 6 floats to 1, allreduce 6
     * longs, alltoall 2 ints, gather 3 shorts to 0, allgather 3 ints, gatherv 4 ints to 3,
     * allgatherv 4 x 4 ints, scatter 2 doubles from 1, scatterv 4 ints from 2, reduce_scatter
     * 4 x 4 ints, alltoallv 4 x 4 ints, scan and exscan 2 doubles. */
    const char *r1 = rows(&l, 1, "coll_end");
    const char *want[] = {
        "coll_end MPI_Barrier c0 p-1 b0 r0 obarrier\n",
        "coll_end MPI_Bcast c0 p2 b0 r80 obcast s0/8\n",
        "coll_end MPI_Reduce c0 p1 b24 r24 oreduce s4/4\n",
        "coll_end MPI_Allreduce c0 p-1 b48 r48 oallreduce s8/8\n",
        "coll_end MPI_Alltoall c0 p-1 b32 r32 oalltoall s4/4\n",
        "coll_end MPI_Gather c0 p0 b6 r0 ogather s2/0\n",
        "coll_end MPI_Allgather c0 p-1 b12 r48 oallgather s4/4\n",
        "coll_end MPI_Gatherv c0 p3 b16 r0 ogatherv s4/0\n",
        "coll_end MPI_Allgatherv c0 p-1 b16 r64 oallgatherv s4/4\n",
        "coll_end MPI_Scatter c0 p1 b64 r16 oscatter s8/8\n",
        "coll_end MPI_Scatterv c0 p2 b0 r16 oscatterv s0/4\n",
        "coll_end MPI_Reduce_scatter c0 p-1 b64 r16 oreduce_scatter s4/4\n",
        "coll_end MPI_Alltoallv c0 p-1 b64 r64 oalltoallv s4/4\n",
        "coll_end MPI_Scan c0 p-1 b16 r16 oscan s8/8\n",
        "coll_end MPI_Exscan c0 p-1 b16 r16 oexscan s8/8\n",
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        const char *at = strstr(r1, want[i]);
        if (!at)
            fail_msg("missing '%s' in\n%s", want[i], r1);
        r1 = at + strlen(want[i]);
    }
    /* Point-to-point of rank 1: the Recv of 8 doubles, Irecv/Isend of 5 ints, 3 chars, the
     * Sendrecv of 2 ints (tag 0 in TI), and the Send of 1 int: the sizes of the datatypes SMPI
     * wrote. */
    /* (47.56 and 47.64 flops of compute before the last two: 48 ns) */
    assert_string_equal(rows(&l, 1, "send"), "1 0 isend MPI_Isend c0 p2 t7 b20 knet q2 s4/0\n"
                                             "1 0 isend_complete MPI_Wait q2\n"
                                             "1 0 isend MPI_Isend c0 p2 t8 b3 knet q4 s1/0\n"
                                             "1 0 isend_complete MPI_Waitall q4\n"
                                             "1 48 send MPI_Sendrecv c0 p2 t0 b8 knet s4/0\n"
                                             "1 48 send MPI_Send c0 p2 t10 b4 knet s4/0\n");
    rt_test_unload(&l);
}

static void test_flop_rate(void **state)
{
    (void)state;
    const char *ti = ti_trace("flops.ti", "0 compute 1000\n0 barrier\n", NULL);
    rt_test_trace l;
    setenv("RETRACE_TI_FLOPS", "2e9", 1);
    load_ok(ti, &l);
    assert_int_equal(l.ev[0].time, 500);
    rt_test_unload(&l);
    static const char *const bad[] = {"abc", "0", "-1", "", "1e9x", "inf"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        setenv("RETRACE_TI_FLOPS", bad[i], 1);
        char msg[256];
        snprintf(msg, sizeof msg,
                 "RETRACE_TI_FLOPS: bad value '%s' (expected a positive number "
                 "of flop/s, e.g. 1e9)",
                 bad[i]);
        load_fails(ti, msg);
    }
    unsetenv("RETRACE_TI_FLOPS");
}

/* Each bad line: one error naming the file and the line. */
static void test_bad_lines(void **state)
{
    (void)state;
    static const struct {
        const char *line, *msg;
    } cases[] = {
        {"0 foo", "foo: unknown action (SimGrid 3.32's replay does not know it either)"},
        {"0 Ssend 1 0 4", "Ssend: unknown action (SimGrid 3.32's replay does not know it either)"},
        {"0 send 1 0", "send: expected 3 to 4 arguments (PARTNER TAG SIZE [DATATYPE]), got 2"},
        {"0 send 1 0 1 6 7",
         "send: expected 3 to 4 arguments (PARTNER TAG SIZE [DATATYPE]), got 5"},
        {"0 send 2 0 1", "send: partner 2 is not a rank (0 to 1)"},
        {"0 send x 0 1", "send: bad partner 'x' (expected a rank)"},
        {"0 send 1 0 1x", "send: bad size '1x' (expected a number >= 0)"},
        {"0 send 1 0 1 99", "send: unknown datatype id '99' (SimGrid 3.32 knows -1 to 59)"},
        {"0 send 1 0 1 06", "send: unknown datatype id '06' (SimGrid 3.32 knows -1 to 59)"},
        {"0 recv -555 0 1", "recv: partner -555 is not a rank (0 to 1): MPI_ANY_SOURCE is not "
                            "supported"},
        {"0 recv 1 -444 1", "recv: tag -444 out of range: MPI_ANY_TAG is not supported"},
        {"0 recv 1 0 -1", "recv: negative size '-1' (a receive of the sender's size, which "
                          "retrace cannot know)"},
        {"0 wait 0 1", "wait: expected 3 arguments (SRC DST TAG), got 2"},
        {"0 compute abc", "compute: bad flop count 'abc' (expected a number >= 0)"},
        {"0 compute -5", "compute: bad flop count '-5' (expected a number >= 0)"},
        {"0 sleep nan", "sleep: bad duration 'nan' (expected a number >= 0)"},
        {"0 barrier 1", "barrier: expected 0 arguments (barrier), got 1"},
        {"0 bcast 4 2", "bcast: root 2 is not a rank (0 to 1)"},
        {"0 gatherv 1 2", "gatherv: expected 3 to 6 arguments (SENDCOUNT RECVCOUNTS[p] [ROOT "
                          "[SENDTYPE [RECVTYPE]]]), got 2"},
        {"0 gatherv 1 2 1e3", "gatherv: bad receive count '1e3' (expected an integer)"},
        {"0 allgatherv 1 2 3 0 0 5", "allgatherv: with 6 arguments SimGrid reads SENDTYPE "
                                     "RECVTYPE and 2 displacements after the receive counts"},
        {"0 reducescatter 1 -2 0", "reducescatter: receive count -2 out of range (0 to "
                                   "2147483647)"},
        {"0 init 1 2", "init: expected 0 to 1 arguments (init [X]: with X, the default "
                       "datatype is MPI_DOUBLE), got 2"},
        {"1 init", "init: action of rank 1 in the file of rank 0 (SimGrid's replay would skip "
                   "it)"},
        {"x init", "init: bad rank 'x' (expected a rank number)"},
        {"00 init", "init: bad rank '00' (expected a rank number)"},
        {"0", "expected RANK ACTION [ARGUMENTS]"},
        /* time past what an event holds: a double out of the range of uint64_t was converted
         * anyway (undefined; fuzz_ti), and later events had time 0 */
        {"0 compute 1e30",
         "compute: the rank's clock would pass 2^64 ns (584 years): 1e+21 s after 0 s"},
        {"0 sleep 1e300",
         "sleep: the rank's clock would pass 2^64 ns (584 years): inf s after 0 s"},
        {"0 allreduce 1 1e300",
         "allreduce: the rank's clock would pass 2^64 ns (584 years): 1e+291 s after 0 s"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char text[256];
        snprintf(text, sizeof text, "0 init\n%s\n0 finalize\n", cases[i].line);
        const char *ti = ti_trace("bad.ti", text, "1 init\n", NULL);
        char msg[1200];
        snprintf(msg, sizeof msg, "%s_r0.txt:2: %s", ti, cases[i].msg);
        load_fails(ti, msg);
    }
    /* SimGrid's replay drops a last line without a newline: an error here. */
    const char *ti = ti_trace("nonl.ti", "0 init\n0 finalize", NULL);
    char msg[1200];
    snprintf(msg, sizeof msg,
             "%s_r0.txt:2: no newline at the end of the file (SimGrid's replay "
             "ignores this last line)",
             ti);
    load_fails(ti, msg);
    /* A file the index names that is not there. */
    ti = ti_trace("missing.ti", "0 init\n", NULL);
    FILE *f = fopen(ti, "ab");
    fputs("\nmissing.txt\n", f); /* an empty line does not count */
    fclose(f);
    snprintf(msg, sizeof msg,
             "%s:3: cannot read 'missing.txt': No such file or directory "
             "(looked next to the index and in the working directory)",
             ti);
    load_fails(ti, msg);
}

/* A rank's clock adds up to just below 2^64 ns and no further; a clock that stays below it
 * keeps every rank's events in time order (the generic reader checks it again). */
static void test_clock_limit(void **state)
{
    (void)state;
    const char *ti = ti_trace("clock.ti", "0 sleep 18446744073\n0 barrier\n", NULL);
    rt_test_trace l;
    load_ok(ti, &l);
    /* 18446744073 s in ns, to the double nearest (they are 2048 ns apart up there) */
    assert_true(l.ev[0].time > UINT64_C(18446744073000000000) - 2048);
    assert_true(l.ev[0].time < UINT64_C(18446744073000000000) + 2048);
    rt_test_unload(&l);
    ti = ti_trace("clock2.ti", "0 sleep 1e10\n0 barrier\n0 sleep 1e10\n0 barrier\n", NULL);
    char msg[1200];
    snprintf(msg, sizeof msg,
             "%s_r0.txt:3: sleep: the rank's clock would pass 2^64 ns (584 years): 1e+10 s "
             "after 1e+10 s",
             ti);
    load_fails(ti, msg);
}

/* The ranks a TI trace names, within RETRACE_MAX_RANKS (default 2^20): the lines of the index,
 * or the highest rank of a shared file, which used to make a reader of a few bytes allocate
 * for 16 million ranks. */
static void test_rank_limit(void **state)
{
    (void)state;
    const char *ti = ti_trace("big.ti", "16777215 init\n", NULL);
    char msg[1200];
    snprintf(msg, sizeof msg,
             "%s_r0.txt:1: rank 16777215: more ranks than the limit of 1048576 (the "
             "environment variable RETRACE_MAX_RANKS raises it, up to 16777216)",
             ti);
    load_fails(ti, msg);
    setenv("RETRACE_MAX_RANKS", "2", 1);
    ti = ti_trace("three.ti", "0 init\n", "1 init\n", "2 init\n", NULL);
    snprintf(msg, sizeof msg,
             "%s:3: more ranks than the limit of 2 (the environment variable RETRACE_MAX_RANKS "
             "raises it, up to 16777216)",
             ti);
    load_fails(ti, msg);
    ti = ti_trace("shared.ti", "0 init\n2 init\n", NULL);
    snprintf(msg, sizeof msg, "%s_r0.txt:2: rank 2: more ranks than the limit of 2", ti);
    rt_test_trace l;
    rt_err err;
    assert_true(rt_test_load(ti, &l, &err) < 0);
    assert_non_null(strstr(err.msg, msg));
    rt_test_unload(&l);
    unsetenv("RETRACE_MAX_RANKS");
}

/* Only an index whose first line names a file of actions is taken for TI. */
static void test_detection(void **state)
{
    (void)state;
    rt_reader *r;
    rt_err err;
    assert_int_equal(rt_reader_open(ROUNDTRIP, &r, &err), 0);
    assert_int_equal(rt_reader_format(r), RT_FMT_CSV);
    rt_reader_close(r);
    /* A list naming a CSV trace, and one naming nothing that exists. */
    char *list = rt_test_tmp_path("csvlist");
    rt_test_write_text(list, ROUNDTRIP "\n");
    assert_int_equal(rt_reader_open(list, &r, &err), -RT_E_FORMAT);
    assert_non_null(strstr(err.msg, "not a trace"));
    rt_test_write_text(list, "no such file\n");
    assert_int_equal(rt_reader_open(list, &r, &err), -RT_E_FORMAT);
    assert_string_equal(rt_format_name(RT_FMT_TI), "ti");
    assert_int_equal(rt_format_lookup("ti"), RT_FMT_TI);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_p2p_and_time), cmocka_unit_test(test_requests),
        cmocka_unit_test(test_collectives),  cmocka_unit_test(test_comm_actions),
        cmocka_unit_test(test_shared_file),  cmocka_unit_test(test_smpi_recording),
        cmocka_unit_test(test_flop_rate),    cmocka_unit_test(test_bad_lines),
        cmocka_unit_test(test_detection),    cmocka_unit_test(test_clock_limit),
        cmocka_unit_test(test_rank_limit),
    };
    return rt_test_main("ti", tests, argc, argv);
}
