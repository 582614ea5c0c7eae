/* Unit tests of the SimGrid time-independent (TI) reader and writer (formats/ti_*.c). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "rt_test_main.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rt_test.h"
#include "rt_trace.h"

#define SMPI_TRACE RT_TEST_DATA "/ti/smpi/app.ti"
#define ROUNDTRIP RT_TEST_DATA "/ti/roundtrip.csv"

/* ---- helpers ------------------------------------------------------------------------------- */

static void remove_any(const char *path)
{
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "rm -rf '%s' '%s_files'", path, path);
    assert_int_equal(system(cmd), 0);
}

static char *read_text(const char *path)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    static char buf[1 << 16];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

static int exists(const char *path)
{
    return access(path, F_OK) == 0;
}

/* A TI trace NAME (index) with one file NAME_rI.txt per text, texts ending at NULL. */
static const char *ti_trace(const char *name, ...)
{
    char *index = rt_test_tmp_path(name);
    FILE *f = fopen(index, "wb");
    assert_non_null(f);
    va_list ap;
    va_start(ap, name);
    const char *text;
    for (int i = 0; (text = va_arg(ap, const char *)); i++) {
        char file[1100];
        snprintf(file, sizeof file, "%s_r%d.txt", index, i);
        rt_test_write_text(file, text);
        fprintf(f, "%s_r%d.txt\n", name, i); /* relative: next to the index */
    }
    va_end(ap);
    fclose(f);
    return index;
}

/* One event as a line: rank, time, kind, call, then each field the kind uses, as
 * c(omm) p(eer) t(ag) b(ytes) r(bytes) k(contype) q(request) o(p). */
static void row(const rt_event *ev, char *buf, size_t len)
{
    unsigned m = rt_event_kind_mask(ev->kind);
    int n = snprintf(buf, len, "%u %" PRIu64 " %s %s", (unsigned)ev->rank, ev->time,
                     rt_event_kind_name(ev->kind), rt_func_name(ev->call));
    if (m & RT_FIELD_COMM)
        n += snprintf(buf + n, len - (size_t)n, " c%u", (unsigned)ev->comm);
    if (m & RT_FIELD_PEER)
        n += snprintf(buf + n, len - (size_t)n, " p%d", (int)ev->peer);
    if (m & RT_FIELD_TAG)
        n += snprintf(buf + n, len - (size_t)n, " t%d", (int)ev->tag);
    if (m & RT_FIELD_BYTES)
        n += snprintf(buf + n, len - (size_t)n, " b%" PRIu64, ev->bytes);
    if (m & RT_FIELD_RBYTES)
        n += snprintf(buf + n, len - (size_t)n, " r%" PRIu64, ev->rbytes);
    if (m & RT_FIELD_CONTYPE)
        n += snprintf(buf + n, len - (size_t)n, " k%s", rt_contype_name(ev->contype));
    if (m & RT_FIELD_REQ)
        n += snprintf(buf + n, len - (size_t)n, " q%" PRIu64, ev->req);
    if ((m & RT_FIELD_OP) && *rt_event_op_name(ev->kind, ev->op))
        snprintf(buf + n, len - (size_t)n, " o%s", rt_event_op_name(ev->kind, ev->op));
}

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

static void load_ok(const char *path, rt_test_trace *l)
{
    rt_err err;
    int rc = rt_test_load(path, l, &err);
    if (rc)
        fail_msg("%s", err.msg);
    assert_int_equal(l->format, RT_FMT_TI);
}

/* Reading fails with exactly this message. */
static void load_fails(const char *path, const char *msg)
{
    rt_test_trace l;
    rt_err err;
    int rc = rt_test_load(path, &l, &err);
    assert_true(rc < 0);
    assert_string_equal(err.msg, msg);
    rt_test_unload(&l);
}

/* ---- reading -------------------------------------------------------------------------------- */

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
                                           "0 0 send MPI_Send c0 p1 t5 b40 knet\n"
                                           "0 0 leave MPI_Send\n"
                                           "0 1500 enter MPI_Isend\n"
                                           "0 1500 isend MPI_Isend c0 p1 t6 b3 knet q1\n"
                                           "0 1500 leave MPI_Isend\n"
                                           "0 3500 enter MPI_Wait\n"
                                           "0 3500 isend_complete MPI_Wait q1\n"
                                           "0 3500 leave MPI_Wait\n"
                                           "0 3500 enter MPI_Sendrecv\n"
                                           "0 3500 send MPI_Sendrecv c0 p1 t0 b16 knet\n"
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
                                           "1 0 recv MPI_Recv c0 p0 t5 b40 knet\n"
                                           "1 0 leave MPI_Recv\n"
                                           "1 0 enter MPI_Irecv\n"
                                           "1 0 irecv_request MPI_Irecv q1\n"
                                           "1 0 leave MPI_Irecv\n"
                                           "1 0 enter MPI_Wait\n"
                                           "1 0 irecv MPI_Wait c0 p0 t6 b3 knet q1\n"
                                           "1 0 leave MPI_Wait\n"
                                           "1 0 enter MPI_Sendrecv\n"
                                           "1 0 send MPI_Sendrecv c0 p0 t0 b3 knet\n"
                                           "1 0 recv MPI_Sendrecv c0 p0 t0 b16 knet\n"
                                           "1 0 leave MPI_Sendrecv\n"
                                           "1 0 enter MPI_Send\n"
                                           "1 0 send MPI_Send c0 p0 t9 b16 knet\n"
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
                        "0 0 coll_end MPI_Bcast c0 p1 b0 r20 obcast\n"
                        "0 0 coll_end MPI_Reduce c0 p1 b32 r0 oreduce\n"
                        "0 100 coll_end MPI_Allreduce c0 p-1 b8 r8 oallreduce\n"
                        "0 150 coll_end MPI_Scan c0 p-1 b3 r3 oscan\n"
                        "0 150 coll_end MPI_Exscan c0 p-1 b12 r0 oexscan\n"
                        "0 150 coll_end MPI_Alltoall c0 p-1 b24 r72 oalltoall\n"
                        "0 150 coll_end MPI_Allgather c0 p-1 b2 r6 oallgather\n"
                        "0 150 coll_end MPI_Gather c0 p1 b8 r0 ogather\n"
                        "0 150 coll_end MPI_Scatter c0 p1 b0 r4 oscatter\n"
                        "0 150 coll_end MPI_Gatherv c0 p1 b2 r0 ogatherv\n"
                        "0 150 coll_end MPI_Allgatherv c0 p-1 b2 r6 oallgatherv\n"
                        "0 150 coll_end MPI_Allgatherv c0 p-1 b8 r24 oallgatherv\n"
                        "0 150 coll_end MPI_Allgatherv c0 p-1 b2 r6 oallgatherv\n"
                        "0 150 coll_end MPI_Allgatherv c0 p-1 b8 r24 oallgatherv\n"
                        "0 150 coll_end MPI_Scatterv c0 p1 b0 r2 oscatterv\n"
                        "0 150 coll_end MPI_Reduce_scatter c0 p-1 b24 r4 oreduce_scatter\n"
                        "0 160 coll_end MPI_Alltoallv c0 p-1 b6 r6 oalltoallv\n"
                        "0 160 coll_end MPI_Alltoallv c0 p-1 b24 r48 oalltoallv\n");
    assert_string_equal(rows(&l, 1, "coll_end"),
                        "1 0 coll_end MPI_Barrier c0 p-1 b0 r0 obarrier\n"
                        "1 0 coll_end MPI_Bcast c0 p1 b20 r0 obcast\n"
                        "1 0 coll_end MPI_Reduce c0 p1 b32 r32 oreduce\n"
                        "1 100 coll_end MPI_Allreduce c0 p-1 b8 r8 oallreduce\n"
                        "1 150 coll_end MPI_Scan c0 p-1 b3 r3 oscan\n"
                        "1 150 coll_end MPI_Exscan c0 p-1 b12 r12 oexscan\n"
                        "1 150 coll_end MPI_Alltoall c0 p-1 b24 r72 oalltoall\n"
                        "1 150 coll_end MPI_Allgather c0 p-1 b2 r6 oallgather\n"
                        "1 150 coll_end MPI_Gather c0 p1 b8 r24 ogather\n"
                        "1 150 coll_end MPI_Scatter c0 p1 b12 r4 oscatter\n"
                        "1 150 coll_end MPI_Gatherv c0 p1 b2 r6 ogatherv\n"
                        "1 150 coll_end MPI_Allgatherv c0 p-1 b2 r6 oallgatherv\n"
                        "1 150 coll_end MPI_Allgatherv c0 p-1 b8 r24 oallgatherv\n"
                        "1 150 coll_end MPI_Allgatherv c0 p-1 b2 r6 oallgatherv\n"
                        "1 150 coll_end MPI_Allgatherv c0 p-1 b8 r24 oallgatherv\n"
                        "1 150 coll_end MPI_Scatterv c0 p1 b6 r2 oscatterv\n"
                        "1 150 coll_end MPI_Reduce_scatter c0 p-1 b24 r8 oreduce_scatter\n"
                        "1 160 coll_end MPI_Alltoallv c0 p-1 b6 r6 oalltoallv\n"
                        "1 160 coll_end MPI_Alltoallv c0 p-1 b24 r48 oalltoallv\n");
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
        "coll_end MPI_Bcast c0 p2 b0 r80 obcast\n",
        "coll_end MPI_Reduce c0 p1 b24 r24 oreduce\n",
        "coll_end MPI_Allreduce c0 p-1 b48 r48 oallreduce\n",
        "coll_end MPI_Alltoall c0 p-1 b32 r32 oalltoall\n",
        "coll_end MPI_Gather c0 p0 b6 r0 ogather\n",
        "coll_end MPI_Allgather c0 p-1 b12 r48 oallgather\n",
        "coll_end MPI_Gatherv c0 p3 b16 r0 ogatherv\n",
        "coll_end MPI_Allgatherv c0 p-1 b16 r64 oallgatherv\n",
        "coll_end MPI_Scatter c0 p1 b64 r16 oscatter\n",
        "coll_end MPI_Scatterv c0 p2 b0 r16 oscatterv\n",
        "coll_end MPI_Reduce_scatter c0 p-1 b64 r16 oreduce_scatter\n",
        "coll_end MPI_Alltoallv c0 p-1 b64 r64 oalltoallv\n",
        "coll_end MPI_Scan c0 p-1 b16 r16 oscan\n",
        "coll_end MPI_Exscan c0 p-1 b16 r16 oexscan\n",
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        const char *at = strstr(r1, want[i]);
        if (!at)
            fail_msg("missing '%s' in\n%s", want[i], r1);
        r1 = at + strlen(want[i]);
    }
    /* Point-to-point of rank 1: the Recv of 8 doubles, Irecv/Isend of 5 ints, 3 chars, the
     * Sendrecv of 2 ints (tag 0 in TI), and the Send of 1 int. */
    /* (47.56 and 47.64 flops of compute before the last two: 48 ns) */
    assert_string_equal(rows(&l, 1, "send"), "1 0 isend MPI_Isend c0 p2 t7 b20 knet q2\n"
                                             "1 0 isend_complete MPI_Wait q2\n"
                                             "1 0 isend MPI_Isend c0 p2 t8 b3 knet q4\n"
                                             "1 0 isend_complete MPI_Waitall q4\n"
                                             "1 48 send MPI_Sendrecv c0 p2 t0 b8 knet\n"
                                             "1 48 send MPI_Send c0 p2 t10 b4 knet\n");
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

/* ---- writing -------------------------------------------------------------------------------- */

static void write_all(const rt_test_trace *l, const char *out, rt_err *err, int *rc)
{
    rt_writer *w;
    *rc = rt_writer_open(out, RT_FMT_TI, &l->defs, &w, err);
    if (*rc)
        return;
    for (size_t i = 0; i < l->n; i++)
        if ((*rc = rt_writer_write(w, &l->ev[i], err)) < 0) {
            rt_writer_abort(w);
            return;
        }
    *rc = rt_writer_close(w, err);
}

/* Events ordered by rank, stably. */
static void by_rank(rt_test_trace *l)
{
    for (size_t i = 1; i < l->n; i++)
        for (size_t j = i; j > 0 && l->ev[j - 1].rank > l->ev[j].rank; j--) {
            rt_event t = l->ev[j];
            l->ev[j] = l->ev[j - 1];
            l->ev[j - 1] = t;
        }
}

static void assert_same_events(rt_test_trace *a, rt_test_trace *b)
{
    by_rank(a);
    by_rank(b);
    assert_int_equal(a->n, b->n);
    for (size_t i = 0; i < a->n; i++)
        if (!rt_event_equal(&a->ev[i], &b->ev[i])) {
            char x[256], y[256];
            row(&a->ev[i], x, sizeof x);
            row(&b->ev[i], y, sizeof y);
            fail_msg("event %zu differs:\n  %s\n  %s", i, x, y);
        }
}

/* CSV -> TI -> events: the same events (calls take 0 ns in that trace, as in TI). */
static void test_round_trip(void **state)
{
    (void)state;
    rt_test_trace in, back;
    rt_err err;
    assert_int_equal(rt_test_load(ROUNDTRIP, &in, &err), 0);
    char *out = rt_test_tmp_path("rt.ti");
    remove_any(out);
    int rc;
    write_all(&in, out, &err, &rc);
    if (rc)
        fail_msg("%s", err.msg);
    assert_string_equal(read_text(out), "rt.ti_files/rank-0.txt\nrt.ti_files/rank-1.txt\n"
                                        "rt.ti_files/rank-2.txt\n");
    load_ok(out, &back);
    assert_same_events(&in, &back);
    rt_test_unload(&back);
    /* And the events a TI trace gives write the same TI text again. */
    char *again = rt_test_tmp_path("rt2.ti");
    remove_any(again);
    load_ok(out, &back);
    write_all(&back, again, &err, &rc);
    assert_int_equal(rc, 0);
    char p[1100];
    for (int r = 0; r < 3; r++) {
        snprintf(p, sizeof p, "%s_files/rank-%d.txt", out, r);
        char *a = strdup(read_text(p)); /* read_text reuses its buffer */
        assert_non_null(a);
        snprintf(p, sizeof p, "%s_files/rank-%d.txt", again, r);
        assert_string_equal(a, read_text(p));
        free(a);
    }
    rt_test_unload(&back);
    rt_test_unload(&in);
}

static rt_event ev_at(uint32_t rank, uint64_t t, unsigned kind, unsigned call)
{
    rt_event e = {.rank = rank, .time = t, .kind = (uint8_t)kind, .call = (uint16_t)call};
    return e;
}

/* Writes events (of 2 ranks, or of the defs given) and closes; returns the status. */
static int write_events(const char *out, const rt_defs *defs, const rt_event *evs, size_t n,
                        rt_err *err)
{
    rt_defs own;
    if (!defs) {
        assert_int_equal(rt_defs_init(&own, 2, err), 0);
        defs = &own;
    }
    rt_writer *w;
    int rc = rt_writer_open(out, RT_FMT_TI, defs, &w, err);
    for (size_t i = 0; !rc && i < n; i++)
        rc = rt_writer_write(w, &evs[i], err);
    if (rc && w)
        rt_writer_abort(w);
    else if (!rc)
        rc = rt_writer_close(w, err);
    if (defs == &own)
        rt_defs_free(&own);
    return rc;
}

static void assert_nothing_left(const char *out)
{
    char dir[1100];
    snprintf(dir, sizeof dir, "%s_files", out);
    assert_false(exists(out));
    assert_false(exists(dir));
}

/* What TI cannot say is refused, naming the event, and nothing is left behind. */
static void test_refusals(void **state)
{
    (void)state;
    rt_defs d;
    rt_err err;
    assert_int_equal(rt_defs_init(&d, 2, &err), 0);
    uint32_t members[2] = {1, 0};
    assert_int_equal(rt_defs_add_comm(&d, 5, RT_COMM_WORLD, 0, 2, 0, members, "rev", &err), 0);
    char *out = rt_test_tmp_path("refused.ti");
    remove_any(out);
    rt_event evs[4] = {ev_at(0, 0, RT_EV_ENTER, RT_FN_Send), ev_at(0, 5, RT_EV_SEND, RT_FN_Send)};
    evs[1].comm = 5;
    evs[1].peer = 0;
    evs[1].bytes = 4;
    char msg[1200];
    assert_int_equal(write_events(out, &d, evs, 2, &err), -RT_E_INVAL);
    snprintf(msg, sizeof msg,
             "%s: rank 0 at 5 ns: send in MPI_Send: communicator 5 is not "
             "MPI_COMM_WORLD: TI actions name world ranks only",
             out);
    assert_string_equal(err.msg, msg);
    assert_nothing_left(out);

    evs[0] = ev_at(1, 3, RT_EV_NBC_REQUEST, RT_FN_Ibarrier);
    evs[0].req = 1;
    assert_int_equal(write_events(out, &d, evs, 1, &err), -RT_E_INVAL);
    snprintf(msg, sizeof msg,
             "%s: rank 1 at 3 ns: nbc_request in MPI_Ibarrier: SimGrid 3.32's "
             "replay has no nonblocking collectives",
             out);
    assert_string_equal(err.msg, msg);
    assert_nothing_left(out);

    assert_int_equal(rt_defs_add_win(&d, 0, RT_COMM_WORLD, &err), 0);
    evs[0] = ev_at(0, 1, RT_EV_WIN_CREATE, RT_FN_Win_create);
    assert_int_equal(write_events(out, &d, evs, 1, &err), -RT_E_INVAL);
    snprintf(msg, sizeof msg,
             "%s: rank 0 at 1 ns: win_create in MPI_Win_create: SimGrid's TI "
             "format has no one-sided communication",
             out);
    assert_string_equal(err.msg, msg);
    assert_nothing_left(out);

    /* A neighbourhood collective has no action. */
    evs[0] = ev_at(0, 0, RT_EV_ENTER, RT_FN_Neighbor_alltoall);
    evs[1] = ev_at(0, 0, RT_EV_COLL_END, RT_FN_Neighbor_alltoall);
    evs[1].op = RT_COLL_NEIGHBOR_ALLTOALL;
    evs[1].peer = RT_PEER_NONE;
    evs[2] = ev_at(0, 0, RT_EV_LEAVE, RT_FN_Neighbor_alltoall);
    assert_int_equal(write_events(out, &d, evs, 3, &err), -RT_E_INVAL);
    snprintf(msg, sizeof msg,
             "%s: rank 0 at 0 ns: coll_end in MPI_Neighbor_alltoall: SimGrid "
             "3.32's replay has no neighbor_alltoall",
             out);
    assert_string_equal(err.msg, msg);
    assert_nothing_left(out);

    /* An allgather whose bytes do not split among the ranks. */
    evs[0] = ev_at(0, 0, RT_EV_ENTER, RT_FN_Allgather);
    evs[1] = ev_at(0, 0, RT_EV_COLL_END, RT_FN_Allgather);
    evs[1].op = RT_COLL_ALLGATHER;
    evs[1].peer = RT_PEER_NONE;
    evs[1].bytes = 2;
    evs[1].rbytes = 5;
    evs[2] = ev_at(0, 0, RT_EV_LEAVE, RT_FN_Allgather);
    assert_int_equal(write_events(out, &d, evs, 3, &err), -RT_E_INVAL);
    snprintf(msg, sizeof msg,
             "%s: rank 0 at 0 ns: coll_end in MPI_Allgather: 5 bytes do not "
             "split evenly among 2 ranks",
             out);
    assert_string_equal(err.msg, msg);
    assert_nothing_left(out);

    /* An Irecv that never completes: its line cannot be written. */
    evs[0] = ev_at(1, 0, RT_EV_ENTER, RT_FN_Irecv);
    evs[1] = ev_at(1, 0, RT_EV_IRECV_REQUEST, RT_FN_Irecv);
    evs[1].req = 7;
    evs[2] = ev_at(1, 0, RT_EV_LEAVE, RT_FN_Irecv);
    assert_int_equal(write_events(out, &d, evs, 3, &err), -RT_E_INVAL);
    snprintf(msg, sizeof msg,
             "%s: rank 1: receive request 7 never completes, so its source, "
             "tag and size (which a TI irecv needs) are unknown",
             out);
    assert_string_equal(err.msg, msg);
    assert_nothing_left(out);

    /* Existing output is never overwritten. */
    rt_test_write_text(out, "x\n");
    assert_int_equal(write_events(out, &d, evs, 0, &err), -RT_E_INVAL);
    snprintf(msg, sizeof msg, "%s: already exists (remove it or choose another name)", out);
    assert_string_equal(err.msg, msg);
    assert_string_equal(read_text(out), "x\n");
    unlink(out);
    char dir[1100];
    snprintf(dir, sizeof dir, "%s_files", out);
    mkdir(dir, 0777);
    assert_int_equal(write_events(out, &d, evs, 0, &err), -RT_E_INVAL);
    snprintf(msg, sizeof msg, "%s: already exists (remove it or choose another name)", dir);
    assert_string_equal(err.msg, msg);
    assert_false(exists(out));
    rmdir(dir);
    rt_defs_free(&d);
}

/* Per-rank counts the event model does not keep are split evenly; non-root counts follow
 * the tracer's form. */
static void test_v_collectives(void **state)
{
    (void)state;
    rt_defs d;
    rt_err err;
    assert_int_equal(rt_defs_init(&d, 3, &err), 0);
    struct {
        unsigned fn, op;
        int32_t root;
        uint64_t b, r;
    } c[] = {
        {RT_FN_Alltoallv, RT_COLL_ALLTOALLV, RT_PEER_NONE, 10, 7},
        {RT_FN_Alltoallw, RT_COLL_ALLTOALLW, RT_PEER_NONE, 3, 0},
        {RT_FN_Gatherv, RT_COLL_GATHERV, 1, 4, 0},
        {RT_FN_Gatherv, RT_COLL_GATHERV, 0, 4, 11},
        {RT_FN_Scatterv, RT_COLL_SCATTERV, 0, 8, 2},
        {RT_FN_Reduce_scatter, RT_COLL_REDUCE_SCATTER, RT_PEER_NONE, 11, 5},
        {RT_FN_Reduce_scatter_block, RT_COLL_REDUCE_SCATTER_BLOCK, RT_PEER_NONE, 12, 4},
        {RT_FN_Gather, RT_COLL_GATHER, 2, 4, 0},
        {RT_FN_Scatter, RT_COLL_SCATTER, 2, 0, 4},
        {RT_FN_Sendrecv, 0, 0, 0, 0},
    };
    rt_event evs[64];
    size_t n = 0;
    uint64_t t = 0;
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++, t += 10) {
        evs[n++] = ev_at(0, t, RT_EV_ENTER, c[i].fn);
        if (c[i].fn == RT_FN_Sendrecv) { /* tags other than 0 */
            evs[n] = ev_at(0, t, RT_EV_SEND, c[i].fn);
            evs[n].peer = 1, evs[n].tag = 3, evs[n++].bytes = 8;
            evs[n] = ev_at(0, t, RT_EV_RECV, c[i].fn);
            evs[n].peer = 2, evs[n].tag = 4, evs[n++].bytes = 9;
        } else {
            evs[n] = ev_at(0, t, RT_EV_COLL_END, c[i].fn);
            evs[n].op = (uint8_t)c[i].op;
            evs[n].peer = c[i].root;
            evs[n].bytes = c[i].b;
            evs[n++].rbytes = c[i].r;
        }
        evs[n++] = ev_at(0, t + 1, RT_EV_LEAVE, c[i].fn);
    }
    char *out = rt_test_tmp_path("v.ti");
    remove_any(out);
    int rc = write_events(out, &d, evs, n, &err);
    if (rc)
        fail_msg("%s", err.msg);
    char p[1100];
    snprintf(p, sizeof p, "%s_files/rank-0.txt", out);
    assert_string_equal(read_text(p), "0 init\n"
                                      "0 alltoallv 10 4 3 3 7 3 2 2\n"
                                      "0 compute 9\n"
                                      "0 alltoallv 3 1 1 1 0 0 0 0\n"
                                      "0 compute 9\n"
                                      "0 gatherv 4 0 0 0 1\n"
                                      "0 compute 9\n"
                                      "0 gatherv 4 4 4 3 0\n"
                                      "0 compute 9\n"
                                      "0 scatterv 3 3 2 2 0\n"
                                      "0 compute 9\n"
                                      "0 reducescatter 5 3 3 0\n"
                                      "0 compute 9\n"
                                      "0 reducescatter 4 4 4 0\n"
                                      "0 compute 9\n"
                                      "0 gather 4 4 2\n"
                                      "0 compute 9\n"
                                      "0 scatter 4 4 2\n"
                                      "0 compute 9\n"
                                      "0 isend 1 3 8\n"
                                      "0 irecv 2 4 9\n"
                                      "0 wait 0 1 3\n"
                                      "0 wait 2 0 4\n");
    snprintf(p, sizeof p, "%s_files/rank-2.txt", out);
    assert_string_equal(read_text(p), "2 init\n");
    rt_defs_free(&d);
}

/* Ranks interleaved, enough text for many appends to each file, and Irecv lines held open
 * across them: the files come out in each rank's order. A trace cut short keeps its note
 * and drops the Irecv that never learnt its source. */
static void test_interleaved_and_truncated(void **state)
{
    (void)state;
    rt_defs d;
    rt_err err;
    assert_int_equal(rt_defs_init(&d, 2, &err), 0);
    char *out = rt_test_tmp_path("big.ti");
    remove_any(out);
    rt_writer *w;
    assert_int_equal(rt_writer_open(out, RT_FMT_TI, &d, &w, &err), 0);
    rt_event e;
    const int iters = 20000;
    for (uint32_t r = 0; r < 2; r++) { /* an Irecv: rank 0's completes half-way */
        e = ev_at(r, 0, RT_EV_ENTER, RT_FN_Irecv);
        assert_int_equal(rt_writer_write(w, &e, &err), 0);
        e.kind = RT_EV_IRECV_REQUEST, e.req = 1000000;
        assert_int_equal(rt_writer_write(w, &e, &err), 0);
        e.kind = RT_EV_LEAVE;
        assert_int_equal(rt_writer_write(w, &e, &err), 0);
    }
    for (int i = 0; i < iters; i++)
        for (uint32_t r = 0; r < 2; r++) {
            uint64_t t = 10 + (uint64_t)i * 10;
            e = ev_at(r, t, RT_EV_ENTER, RT_FN_Send);
            assert_int_equal(rt_writer_write(w, &e, &err), 0);
            e.kind = RT_EV_SEND, e.peer = (int32_t)(1 - r), e.tag = i, e.bytes = (uint64_t)i;
            assert_int_equal(rt_writer_write(w, &e, &err), 0);
            e = ev_at(r, t + 1, RT_EV_LEAVE, RT_FN_Send);
            assert_int_equal(rt_writer_write(w, &e, &err), 0);
            if (r == 0 && i == iters / 2) {
                e = ev_at(0, t + 5, RT_EV_ENTER, RT_FN_Wait);
                assert_int_equal(rt_writer_write(w, &e, &err), 0);
                e.kind = RT_EV_IRECV, e.peer = 1, e.tag = 2, e.bytes = 3, e.req = 1000000;
                assert_int_equal(rt_writer_write(w, &e, &err), 0);
                e = ev_at(0, t + 5, RT_EV_LEAVE, RT_FN_Wait);
                assert_int_equal(rt_writer_write(w, &e, &err), 0);
            }
        }
    assert_int_equal(rt_writer_set_truncated(w, "cut at\nthe end", &err), 0);
    assert_int_equal(rt_writer_close(w, &err), 0);
    rt_test_trace l;
    load_ok(out, &l);
    assert_string_equal(l.truncated, "cut at the end");
    size_t sends[2] = {0, 0}, irecvs = 0;
    for (size_t i = 0; i < l.n; i++) {
        const rt_event *ev = &l.ev[i];
        if (ev->kind == RT_EV_SEND) {
            assert_int_equal(ev->tag, (int)sends[ev->rank]);
            /* 10 ns before the first send, then 9 between sends (calls take 0 ns) */
            assert_int_equal(ev->time, 10 + 9 * sends[ev->rank]);
            sends[ev->rank]++;
        }
        if (ev->kind == RT_EV_IRECV) {
            assert_int_equal(ev->rank, 0);
            assert_int_equal(sends[0], iters / 2 + 1); /* in order among the sends */
            assert_int_equal(ev->time, 10 + 9 * (iters / 2) + 4);
        }
        irecvs += ev->kind == RT_EV_IRECV_REQUEST;
    }
    assert_int_equal(sends[0], iters);
    assert_int_equal(sends[1], iters);
    assert_int_equal(irecvs, 1); /* rank 1's never completed: dropped */
    rt_test_unload(&l);
    rt_defs_free(&d);
}

/* ---- reading in blocks ---------------------------------------------------------------------- */

static int same_fields(const rt_event *a, const rt_event *b)
{
    return a->time == b->time && a->rank == b->rank && a->kind == b->kind && a->call == b->call &&
           a->comm == b->comm && a->peer == b->peer && a->tag == b->tag && a->bytes == b->bytes &&
           a->rbytes == b->rbytes && a->contype == b->contype && a->req == b->req && a->op == b->op;
}

/* Reads path with rt_reader_next_block and returns the number of blocks, their sizes in
 * sizes (max at most). Every block must hold events of one rank, in time order, each valid
 * (rt_event_check) and normalised, since the generic layer checks none of them again; and
 * the blocks together must be the events rt_reader_next hands out. */
static size_t blocks_of(const char *path, size_t *sizes, size_t max)
{
    rt_test_trace l;
    load_ok(path, &l);
    rt_reader *r;
    rt_err err;
    assert_int_equal(rt_reader_open(path, &r, &err), 0);
    uint64_t *last = calloc(l.defs.nranks, sizeof *last);
    assert_non_null(last);
    size_t nb = 0, at = 0, n;
    const rt_event *ev;
    int rc;
    while ((rc = rt_reader_next_block(r, &ev, &n, &err)) > 0) {
        assert_true(n >= 1);
        if (nb < max)
            sizes[nb] = n;
        nb++;
        for (size_t i = 0; i < n; i++) {
            assert_int_equal(ev[i].rank, ev[0].rank);
            assert_true(ev[i].time >= last[ev[i].rank]);
            last[ev[i].rank] = ev[i].time;
            rt_err e;
            if (rt_event_check(&l.defs, &ev[i], &e) < 0)
                fail_msg("block %zu, event %zu: %s", nb, i, e.msg);
            rt_event c = ev[i];
            rt_event_normalize(&c);
            assert_true(same_fields(&c, &ev[i]));
            assert_true(at < l.n);
            assert_true(same_fields(&ev[i], &l.ev[at]));
            at++;
        }
    }
    assert_int_equal(rc, 0);
    assert_int_equal(at, l.n);
    free(last);
    rt_reader_close(r);
    rt_test_unload(&l);
    return nb;
}

/* The TI reader hands out events in blocks of one rank's: up to the first action that
 * takes a block to 4096 events (ti_reader.c, BLOCK), and never across ranks. */
static void test_blocks(void **state)
{
    (void)state;
    /* 3000 sends (3 events each) after MPI_Init (2): 2 + 3 * 1365 = 4097 events, then
     * 3 * 1366 = 4098, then the 807 left of 9002. */
    size_t len = 8 + 3000 * 16;
    char *t0 = malloc(len), *t1 = malloc(len);
    assert_non_null(t0);
    assert_non_null(t1);
    size_t n0 = (size_t)snprintf(t0, len, "0 init\n"), n1 = (size_t)snprintf(t1, len, "1 init\n");
    for (int i = 0; i < 3000; i++) {
        n0 += (size_t)snprintf(t0 + n0, len - n0, "0 send 1 %d 8\n", i % 10);
        n1 += (size_t)snprintf(t1 + n1, len - n1, "1 recv 0 %d 8\n", i % 10);
    }
    size_t sizes[16];
    assert_int_equal(blocks_of(ti_trace("blocks.ti", t0, t1, NULL), sizes, 16), 6);
    static const size_t want[] = {4097, 4098, 807, 4097, 4098, 807};
    for (size_t i = 0; i < 6; i++)
        assert_int_equal(sizes[i], want[i]);
    free(t0);
    free(t1);

    /* A shared file: a block ends where the next line is another rank's; the ends of the
     * ranks (rank 0's Waitall) come last, each in a block of its own. */
    char *index = rt_test_tmp_path("shared_blocks.ti");
    rt_test_write_text(index, "shared_blocks.txt\n");
    rt_test_write_text(rt_test_tmp_path("shared_blocks.txt"),
                       "0 init\n2 init\n0 isend 2 1 4\n2 recv 0 1 4\n2 compute 5\n"
                       "2 finalize\n");
    assert_int_equal(blocks_of(index, sizes, 16), 5);
    static const size_t shared[] = {2, 2, 3, 5, 3};
    for (size_t i = 0; i < 5; i++)
        assert_int_equal(sizes[i], shared[i]);

    /* rt_reader_next and rt_reader_next_block mixed: the block goes on where next left it. */
    rt_reader *r;
    rt_err err;
    rt_event one;
    const rt_event *ev;
    size_t n;
    assert_int_equal(rt_reader_open(index, &r, &err), 0);
    assert_int_equal(rt_reader_next(r, &one, &err), 1);
    assert_int_equal(one.kind, RT_EV_ENTER);
    assert_int_equal(rt_reader_next_block(r, &ev, &n, &err), 1);
    assert_int_equal(n, 1);
    assert_int_equal(ev[0].kind, RT_EV_LEAVE);
    assert_int_equal(ev[0].rank, 0);
    assert_int_equal(rt_reader_next_block(r, &ev, &n, &err), 1);
    assert_int_equal(n, 2);
    assert_int_equal(ev[0].rank, 2);
    rt_reader_close(r);

    /* The SimGrid recording: every datatype and action SimGrid writes. */
    assert_true(blocks_of(SMPI_TRACE, sizes, 16) > 0);
}

/* Action files are read in 1 MiB pieces: lines across their boundaries, a line longer than
 * one, a NUL byte far in. */
/* Lines that take the 16-bytes-at-a-time path (fields apart by blanks and tabs) and lines
 * that take the general one (leading blanks, \r before the newline, a comment, more than 16
 * fields, numbers with leading zeros or an exponent) give the same events as the plain form,
 * wherever a line falls against the 16-byte steps. */
static void test_blank_forms(void **state)
{
    (void)state;
    static const char *const plain =
        "0 init\n0 irecv 1 5 64\n0 compute 100\n0 isend 1 6 128\n0 waitall\n"
        "0 allreduce 8 0\n0 comm_split 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20\n0 "
        "finalize\n";
    static const char *const odd =
        "0\tinit\n  0 irecv\t1 \t 5    64 \n0 compute 00000000000000100\r\n# note\n"
        "0 isend 1 6 1.28e2\t\n\t0 waitall\n0  allreduce  8  0\n"
        "0 comm_split 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15\t16 17 18 19 20 \n0 finalize\n";
    /* The same per padding: each line shifted by 0 to 16 bytes against the buffer. */
    char *texts[2][17];
    for (int p = 0; p < 17; p++)
        for (int v = 0; v < 2; v++) {
            const char *src = v ? odd : plain;
            size_t len = strlen(src) + 64;
            texts[v][p] = malloc(len);
            assert_non_null(texts[v][p]);
            snprintf(texts[v][p], len, "0 comm_size%.*s\n%s", p, "                 ", src);
        }
    rt_test_trace a, b;
    for (int p = 0; p < 17; p++) {
        load_ok(ti_trace("plain.ti", texts[0][p],
                         "1 init\n1 irecv 0 6 128\n1 isend 0 5 64\n"
                         "1 waitall\n1 allreduce 8 0\n"
                         "1 finalize\n",
                         NULL),
                &a);
        load_ok(ti_trace("odd.ti", texts[1][p],
                         "1 init\n1 irecv 0 6 128\n1 isend 0 5 64\n"
                         "1 waitall\n1 allreduce 8 0\n"
                         "1 finalize\n",
                         NULL),
                &b);
        assert_true(a.n > 10);
        assert_int_equal(a.n, b.n);
        for (size_t i = 0; i < a.n; i++) {
            char x[256], y[256];
            row(&a.ev[i], x, sizeof x);
            row(&b.ev[i], y, sizeof y);
            assert_string_equal(x, y);
        }
        rt_test_unload(&a);
        rt_test_unload(&b);
        free(texts[0][p]);
        free(texts[1][p]);
    }
}

static void test_long_lines(void **state)
{
    (void)state;
    /* 100000 lines of 12 and 13 bytes: 1.25 MB, lines across the first 1 MiB boundary. */
    static const char *const lines[] = {"0 compute 7\n", "0 send 0 0 9\n"};
    size_t len = 8 + 100000 * 13 + 1;
    char *text = malloc(len);
    assert_non_null(text);
    size_t n = (size_t)snprintf(text, len, "0 init\n");
    for (int i = 0; i < 100000; i++)
        n += (size_t)snprintf(text + n, len - n, "%s", lines[i % 2]);
    rt_test_trace l;
    load_ok(ti_trace("long.ti", text, NULL), &l);
    size_t sends = 0;
    for (size_t i = 0; i < l.n; i++)
        if (l.ev[i].kind == RT_EV_SEND) {
            assert_int_equal(l.ev[i].time, 7 * (sends + 1)); /* a compute before each */
            assert_int_equal(l.ev[i].bytes, 9);
            sends++;
        }
    assert_int_equal(sends, 50000);
    assert_int_equal(l.n, 2 + 3 * 50000);
    rt_test_unload(&l);

    /* One line of 3 MB (a location with a long file name): the buffer grows to it. */
    len = 3 << 20;
    char *big = malloc(len + 64);
    assert_non_null(big);
    n = (size_t)snprintf(big, 64, "0 init\n0 location ");
    memset(big + n, 'x', len);
    snprintf(big + n + len, 64, " 12\n0 compute 5\n0 finalize\n");
    load_ok(ti_trace("longline.ti", big, NULL), &l);
    assert_int_equal(l.n, 4);
    assert_int_equal(l.ev[2].time, 5); /* MPI_Finalize after the compute */
    rt_test_unload(&l);

    /* A NUL byte in line 3 of 100002, past the first 1 MiB. */
    n = (size_t)snprintf(big, len, "0 init\n");
    for (int i = 0; i < 100000; i++)
        n += (size_t)snprintf(big + n, len - n, "0 compute %d\n", i);
    snprintf(big + n, len - n, "0 compute 1x\n");
    big[n + 11] = '\0';
    const char *index = ti_trace("nul.ti", "0 init\n", NULL);
    char file[1100];
    snprintf(file, sizeof file, "%s_r0.txt", index);
    FILE *f = fopen(file, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(big, 1, n + 13, f), n + 13);
    assert_int_equal(fclose(f), 0);
    char msg[1300];
    snprintf(msg, sizeof msg, "%s:100002: NUL byte in line", file);
    load_fails(index, msg);
    free(big);
    free(text);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_p2p_and_time),
        cmocka_unit_test(test_requests),
        cmocka_unit_test(test_collectives),
        cmocka_unit_test(test_comm_actions),
        cmocka_unit_test(test_shared_file),
        cmocka_unit_test(test_smpi_recording),
        cmocka_unit_test(test_flop_rate),
        cmocka_unit_test(test_bad_lines),
        cmocka_unit_test(test_detection),
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_v_collectives),
        cmocka_unit_test(test_interleaved_and_truncated),
        cmocka_unit_test(test_blocks),
        cmocka_unit_test(test_long_lines),
        cmocka_unit_test(test_blank_forms),
    };
    return rt_test_main("ti", tests, argc, argv);
}
