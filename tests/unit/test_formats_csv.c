/* Unit tests of the CSV form (formats/csv_*.c): reading every kind, the round trip, each
 * kind of bad row, and a trace cut short. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "rt_test_main.h"

#include <string.h>
#include <unistd.h>

#include "test_formats.h"

static void test_csv_read(void **state)
{
    loaded l;
    rt_err err;
    assert_int_equal(load(ALL_KINDS, &l, &err), 0);
    assert_null(l.truncated);
    assert_int_equal(l.defs.nranks, 4);
    assert_int_equal(l.defs.flags, RT_DEFS_COLL_PEERS | RT_DEFS_BUFFERS);
    assert_int_equal(l.defs.node[3], 5);
    assert_int_equal(l.defs.module[2], 1);
    const rt_comm_def *inter = rt_defs_comm(&l.defs, 3);
    assert_non_null(inter);
    assert_string_equal(inter->name, "split, inter");
    assert_int_equal(inter->remote_size, 2);
    assert_int_equal(l.n, 114);
    /* every kind appears */
    unsigned seen[RT_EV_COUNT] = {0};
    for (size_t i = 0; i < l.n; i++)
        seen[l.ev[i].kind]++;
    for (unsigned k = 0; k < RT_EV_COUNT; k++)
        if (!seen[k])
            fail_msg("all_kinds.csv has no %s event", rt_event_kind_name(k));
    /* a few fields exactly */
    const rt_event *isend = &l.ev[4];
    assert_int_equal(isend->kind, RT_EV_ISEND);
    assert_int_equal(isend->tag, 2147483647);
    assert_int_equal(isend->bytes, 1099511627776ull);
    assert_int_equal(isend->contype, RT_CT_GW);
    assert_int_equal(rt_defs_peer_world(&l.defs, isend), 3);
    assert_int_equal(l.ev[5].kind, RT_EV_BUFFER); /* the isend's */
    assert_int_equal(l.ev[5].req, 140737488289792ull);
    assert_int_equal(l.ev[5].bytes, 1099511627776ull);
    assert_int_equal(l.ev[5].op, RT_BUF_READ);
    assert_int_equal(l.ev[11].req, 9223372036854775808ull);
    /* the targets of rank 0's transfers: each right after its own, the get_accumulate's missing */
    size_t t = 0;
    while (t < l.n && l.ev[t].kind != RT_EV_RMA_TARGET)
        t++;
    assert_int_equal(t, 29);
    assert_int_equal(l.ev[t - 1].kind, RT_EV_RMA_PUT);
    assert_int_equal(l.ev[t].bytes, 4096);
    assert_int_equal(l.ev[t].peer, 3);
    assert_int_equal(l.ev[t].op, RT_REDOP_NONE);
    assert_int_equal(l.ev[t + 2].kind, RT_EV_RMA_TARGET);
    assert_int_equal(l.ev[t + 2].bytes, UINT64_MAX);
    assert_int_equal(l.ev[t + 4].op, RT_REDOP_NO_OP);
    assert_int_equal(l.ev[t + 5].op, RT_BUF_READ); /* the fetch_and_op's origin, result */
    assert_int_equal(l.ev[t + 6].op, RT_BUF_WRITE);
    assert_int_equal(l.ev[t + 6].req, 0);
    assert_int_equal(l.ev[t + 7].kind, RT_EV_RMA_ATOMIC); /* get_accumulate: no target */
    assert_int_equal(l.ev[t + 8].kind, RT_EV_RMA_ATOMIC);
    assert_int_equal(l.ev[t + 9].op, RT_REDOP_REPLACE);
    assert_int_equal(l.ev[t + 9].bytes, 24);
    /* rank 0's refused MPI_Send: its error, right before its leave */
    size_t e = 0;
    while (e < l.n && l.ev[e].kind != RT_EV_ERROR)
        e++;
    assert_int_equal(e, 65);
    assert_int_equal(l.ev[e].rank, 0);
    assert_int_equal(l.ev[e].call, RT_FN_Send);
    assert_int_equal(l.ev[e].time, 401);
    assert_int_equal(l.ev[e].op, RT_ERRCLASS_RANK);
    assert_int_equal(l.ev[e].tag, 6);
    assert_int_equal(l.ev[e + 1].kind, RT_EV_LEAVE);
    /* rank 0 frees communicator 3 and request 43; rank 2 made communicator 3 in MPI_Comm_dup */
    assert_int_equal(l.ev[e + 3].kind, RT_EV_COMM_HANDLE);
    assert_int_equal(l.ev[e + 3].comm, 3);
    assert_int_equal(l.ev[e + 3].op, RT_COMMH_FREE);
    assert_int_equal(l.ev[e + 6].kind, RT_EV_REQUEST_FREE);
    assert_int_equal(l.ev[e + 6].req, 43);
    assert_int_equal(l.ev[e + 6].call, RT_FN_Request_free);
    assert_int_equal(l.ev[e + 6].op, RT_REQH_FREE);
    /* then cancels a persistent request never started and restarts request 44 while active */
    assert_int_equal(l.ev[e + 9].kind, RT_EV_REQUEST_FREE);
    assert_int_equal(l.ev[e + 9].req, 0);
    assert_int_equal(l.ev[e + 9].op, RT_REQH_CANCEL_INACTIVE);
    assert_int_equal(l.ev[e + 12].req, 44);
    assert_int_equal(l.ev[e + 12].op, RT_REQH_RESTART_ACTIVE);
    assert_int_equal(l.ev[e + 12].call, RT_FN_Start);
    /* and makes group 1 (MPI_Comm_group), then frees it */
    assert_int_equal(l.ev[e + 15].kind, RT_EV_HANDLE);
    assert_int_equal(l.ev[e + 15].req, 1);
    assert_int_equal(l.ev[e + 15].op, RT_HANDLE_GROUP_MADE);
    assert_int_equal(l.ev[e + 18].op, RT_HANDLE_GROUP_FREE);
    assert_int_equal(l.ev[e + 18].call, RT_FN_Group_free);
    /* rank 1's pending MPI_Waitall: its receive from any source has no peer */
    size_t at = 0;
    while (at < l.n && l.ev[at].kind != RT_EV_PENDING)
        at++;
    assert_int_equal(at, 92);
    const rt_event *w = &l.ev[at - 1];
    assert_int_equal(w[0].kind, RT_EV_ENTER);
    assert_int_equal(w[1].kind, RT_EV_PENDING);
    assert_int_equal(w[1].call, RT_FN_Waitall);
    assert_int_equal(w[1].time, 130);
    assert_int_equal(w[2].kind, RT_EV_IRECV);
    assert_int_equal(w[2].peer, RT_PEER_NONE);
    assert_int_equal(w[2].op, RT_RECV_ANY_SOURCE);
    assert_int_equal(w[2].req, 44);
    assert_int_equal(w[3].kind, RT_EV_ISEND_COMPLETE);
    assert_int_equal(w[3].req, 42);
    assert_int_equal(l.ev[l.n - 1].time, 9007199254740993ull);
    unload(&l);
}

static void test_csv_roundtrip(void **state)
{
    const char *out = rt_test_tmp_path("rt.csv");
    unlink(out);
    convert(ALL_KINDS, out, RT_FMT_CSV);
    loaded a, b;
    rt_err err;
    assert_int_equal(load(ALL_KINDS, &a, &err), 0);
    assert_int_equal(load(out, &b, &err), 0);
    assert_same_defs(&a.defs, &b.defs);
    assert_same_events(&a, &b);
    unload(&a);
    unload(&b);
}

/* A CSV text that must not open, and the error it gives. */
typedef struct bad_csv {
    const char *text, *msg;
    int code;
} bad_csv;

static void expect_bad_csv(const bad_csv *cases, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const char *p = rt_test_write_file("bad.csv", cases[i].text);
        expect_open_error(p, cases[i].code, cases[i].msg);
    }
}

static void test_csv_bad_rows(void **state)
{
    static const bad_csv cases[] = {
        {"ranks,2\n0,5,frobnicate,,,,,,,,,\n", "bad.csv:2: unknown event 'frobnicate'", RT_E_INVAL},
        {"ranks,2\n0,5x,send,,0,1,0,8,,,,\n", "bad.csv:2: bad number '5x'", RT_E_INVAL},
        {"ranks,2\n0,5,send,,0,1,0,-8,,,,\n", "bad.csv:2: negative byte count -8", RT_E_INVAL},
        {"ranks,2\n# c\n0,5,send,,0,1,0,8,,,,\n0,4,send,,0,1,0,8,,,,\n",
         "bad.csv:4: events out of time order: rank 0 at 4 ns after 5 ns", RT_E_ORDER},
        {"ranks,2\n0,5,send,,0,2,0,8,,,,\n",
         "bad.csv:2: send: peer 2 is not a rank of communicator 0", RT_E_INVAL},
        {"0,5,send,,0,1,0,8,,,,\n", "bad.csv:1: first record must be 'ranks,N'", RT_E_FORMAT},
        {"", "bad.csv: empty trace", RT_E_FORMAT},
        {"ranks,2\n0,5,send,,0,1,0,8\n", "bad.csv:2: event has 8 fields, expected 12", RT_E_FORMAT},
        {"ranks,2\n0,5,recv,,0,1,0,8,,,,any\n", "bad.csv:2: unknown op 'any' for event recv",
         RT_E_INVAL},
        {"ranks,2\n0,5,irecv,,0,1,0,8,,,1,any_tag|any_tag\n",
         "bad.csv:2: unknown op 'any_tag|any_tag' for event irecv", RT_E_INVAL},
        {"ranks,2\n0,5,send,,0,1,0,8,,,,any_source\n",
         "bad.csv:2: field OP is not used by event send", RT_E_FORMAT},
        {"ranks,2\n0,5,coll_end,,0,,,0,0,,,\n", "bad.csv:2: field OP is required by event coll_end",
         RT_E_FORMAT},
        {"ranks,2\nneighbors,0,0,1 x,1\n", "bad.csv:2: bad number 'x' in SOURCES", RT_E_INVAL},
        {"ranks,2\nneighbors,0,0,1,-1\n", "bad.csv:2: bad number '-1' in DESTINATIONS", RT_E_INVAL},
        {"ranks,2\nneighbors,0,0,1  1,1\n", "bad.csv:2: bad number '' in SOURCES", RT_E_INVAL},
        {"ranks,2\nneighbors,5,0,1,1\n",
         "bad.csv:2: neighbour lists of rank 0: communicator 5 is not defined", RT_E_INVAL},
        {"ranks,2\nneighbors,0,1,none 2,\n",
         "bad.csv:2: neighbour lists of rank 1 on communicator 0: sources 1 is 2, not a rank of "
         "the communicator (0 to 1) or none",
         RT_E_INVAL},
        {"ranks,2\nneighbors,0,0,1,1,1\n", "bad.csv:2: neighbors has 6 fields, expected 5",
         RT_E_FORMAT},
        {"ranks,2\nneighbors,0,0,1,1\nneighbors,0,0,,\n",
         "bad.csv:3: neighbour lists of rank 0 on communicator 0 are defined twice", RT_E_INVAL},
        /* the ids that stand for none: reserved, not "defined twice" or "never started" */
        {"ranks,2\ncomm,4294967295,,c,0 1\n",
         "bad.csv:2: communicator id 4294967295 is reserved (it stands for none)", RT_E_INVAL},
        {"ranks,2\ngroup,4294967295,0\n",
         "bad.csv:2: group id 4294967295 is reserved (it stands for none)", RT_E_INVAL},
        {"ranks,2\nwin,4294967295,0\n",
         "bad.csv:2: window id 4294967295 is reserved (it stands for none)", RT_E_INVAL},
        {"ranks,2\n0,5,isend,MPI_Isend,0,1,0,8,,shm,18446744073709551615,\n",
         "bad.csv:2: isend: request id 18446744073709551615 is reserved (it stands for none)",
         RT_E_INVAL},
        /* ranks beyond the limit (RETRACE_MAX_RANKS, default 2^20; test_formats_trace.c) */
        {"ranks,16777216\n0,5,enter,MPI_Init,,,,,,,,\n",
         "bad.csv:1: 16777216 ranks, more than the limit of 1048576 (the environment variable "
         "RETRACE_MAX_RANKS raises it, up to 16777216)",
         RT_E_RANGE},
        {"ranks,0\n", "bad.csv:1: number of ranks 0 out of range (1 to 1048576)", RT_E_INVAL},
    };
    expect_bad_csv(cases, sizeof cases / sizeof *cases);
}

/* The shape of a pending call (rt_event.h), checked for every reader in one place
 * (formats/trace.c): each way to get it wrong is one error line naming the line. */
static void test_csv_pending_shape(void **state)
{
#define E(t, c) "0," #t ",enter," c ",,,,,,,,\n"
#define P(t, c) "0," #t ",pending," c ",,,,,,,,\n"
    static const bad_csv cases[] = {
        {"ranks,2\n" P(5, "MPI_Recv"),
         "bad.csv:2: pending MPI_Recv at 5 ns: not right after the enter of MPI_Recv at that time",
         RT_E_FORMAT},
        {"ranks,2\n" E(5, "MPI_Recv") P(6, "MPI_Recv"),
         "bad.csv:3: pending MPI_Recv at 6 ns: not right after the enter of MPI_Recv at that time",
         RT_E_FORMAT},
        {"ranks,2\n" E(5, "MPI_Send") P(5, "MPI_Recv"),
         "bad.csv:3: pending MPI_Recv at 5 ns: not right after the enter of MPI_Recv at that time",
         RT_E_FORMAT},
        {"ranks,2\n" E(5, "MPI_Wait") P(5, "MPI_Wait") "0,5,isend,MPI_Wait,0,1,0,8,,,3,\n",
         "bad.csv:4: isend at 5 ns after the pending call MPI_Wait at 5 ns: not an operation a "
         "call can be blocked in",
         RT_E_FORMAT},
        {"ranks,2\n" E(5, "MPI_Recv") P(5, "MPI_Recv") "0,6,recv,MPI_Recv,0,1,7,0,,,,\n",
         "bad.csv:4: recv at 6 ns in MPI_Recv after the pending call MPI_Recv at 5 ns: its "
         "operations must have its time and call",
         RT_E_FORMAT},
        {"ranks,2\n" E(5, "MPI_Recv") P(5, "MPI_Recv") "0,5,recv,,0,1,7,0,,,,\n",
         "bad.csv:4: recv at 5 ns in no call after the pending call MPI_Recv at 5 ns: its "
         "operations must have its time and call",
         RT_E_FORMAT},
        {"ranks,2\n" E(5, "MPI_Recv") P(5, "MPI_Recv") "0,5,recv,MPI_Recv,0,1,7,0,,,,\n"
                                                       "0,9,leave,MPI_Recv,,,,,,,,\n",
         "bad.csv:5: leave of MPI_Recv at 9 ns: the rank's call MPI_Recv at 5 ns is pending, it "
         "never returned",
         RT_E_FORMAT},
        {"ranks,2\n0,5,pending,,,,,,,,,\n", "bad.csv:2: field CALL is required by event pending",
         RT_E_FORMAT},
        {"ranks,2\n0,5,recv,MPI_Recv,0,,7,0,,,,any_source\n",
         "bad.csv:2: recv at 5 ns without a source (peer none): only a pending call's receive "
         "has none",
         RT_E_FORMAT},
        {"ranks,2\n" E(5, "MPI_Recv") P(5, "MPI_Recv") "0,5,recv,MPI_Recv,0,,7,0,,,,\n",
         "bad.csv:4: recv: no source (peer none), but not posted with any_source", RT_E_INVAL},
        /* the operations end at the next enter: a receive without a source after it is not
         * the pending call's */
        {"ranks,2\n" E(5, "MPI_Recv") P(5, "MPI_Recv")
             E(6, "MPI_Wait") "0,6,irecv,MPI_Wait,0,,7,0,,,4,any_source\n",
         "bad.csv:5: irecv at 6 ns without a source (peer none): only a pending call's receive "
         "has none",
         RT_E_FORMAT},
    };
#undef E
#undef P
    expect_bad_csv(cases, sizeof cases / sizeof *cases);
}

/* Where a BUFFER and a window's base (WIN_ATTACH base) may stand (rt_event.h, "The memory an
 * operation uses"), checked for every reader in one place (formats/trace.c). */
static void test_csv_buffer_shape(void **state)
{
#define E(t, c) "0," #t ",enter," c ",,,,,,,,\n"
#define B(t, c, n, a, op) "0," #t ",buffer," c ",,,," #n ",,," #a "," op "\n"
    static const bad_csv cases[] = {
        {"ranks,2\n" E(5, "MPI_Barrier") B(5, "MPI_Barrier", 8, 100, "read"),
         "bad.csv:3: buffer (read) at 5 ns: not right after a send, receive or RMA transfer at "
         "its time and call",
         RT_E_FORMAT},
        {"ranks,2\n" E(5, "MPI_Isend") "0,5,isend,MPI_Isend,0,1,0,8,,,3,\n" B(5, "MPI_Isend", 8,
                                                                              100, "write"),
         "bad.csv:4: buffer (write) at 5 ns: the isend before it only reads its buffer",
         RT_E_FORMAT},
        {"ranks,2\n" E(5, "MPI_Recv") "0,6,recv,MPI_Recv,0,1,0,8,,,,\n" B(6, "MPI_Recv", 8, 100,
                                                                          "read"),
         "bad.csv:4: buffer (read) at 6 ns: the recv before it only writes its buffer",
         RT_E_FORMAT},
        {"ranks,2\n" E(5, "MPI_Send") "0,5,send,MPI_Send,0,1,0,8,,,,\n" B(6, "MPI_Send", 8, 100,
                                                                          "read"),
         "bad.csv:4: buffer (read) at 6 ns: not right after a send, receive or RMA transfer at "
         "its time and call",
         RT_E_FORMAT},
        {"ranks,2\n" E(5, "MPI_Send") "0,5,send,MPI_Send,0,1,0,8,,,,\n" B(
             5, "MPI_Send", 8, 100, "read") B(5, "MPI_Send", 8, 200, "read"),
         "bad.csv:5: buffer (read) at 5 ns: a second buffer, but only an atomic's result "
         "(write) may follow its origin (read), at its time and call",
         RT_E_FORMAT},
        {"ranks,2\n" E(5, "MPI_Send") "0,5,send,MPI_Send,0,1,0,8,,,,\n" B(
             5, "MPI_Send", 2, 18446744073709551615, "read"),
         "bad.csv:4: buffer: 2 bytes from address 18446744073709551615 pass 2^64", RT_E_INVAL},
        {"ranks,2\n" E(5, "MPI_Send") "0,5,send,MPI_Send,0,1,0,8,,,,\n" B(5, "MPI_Send", 8, 100,
                                                                          "readwrite"),
         "bad.csv:4: unknown op 'readwrite' for event buffer", RT_E_INVAL},
        {"ranks,2\n" E(5, "MPI_Send") "0,5,pending,MPI_Send,,,,,,,,\n"
                                      "0,5,send,MPI_Send,0,1,0,8,,,,\n" B(5, "MPI_Send", 8, 100,
                                                                          "read"),
         "bad.csv:5: buffer (read) at 5 ns: in a pending call", RT_E_FORMAT},
        {"ranks,2\nwin,0,0\n" E(5, "MPI_Win_create") "0,5,win_attach,MPI_Win_create,0,,,8,,,100,"
                                                     "base\n",
         "bad.csv:4: win_attach base at 5 ns: not right after the win_create of its window (its "
         "time and call)",
         RT_E_FORMAT},
        {"ranks,2\nwin,0,0\nwin,1,0\n" E(5, "MPI_Win_create") "0,5,win_create,MPI_Win_create,0,,,,"
                                                              ",,,\n0,5,win_attach,MPI_Win_"
                                                              "create,1,,,8,,,100,base\n",
         "bad.csv:6: win_attach base at 5 ns: not right after the win_create of its window (its "
         "time and call)",
         RT_E_FORMAT},
    };
#undef E
#undef B
    expect_bad_csv(cases, sizeof cases / sizeof *cases);
}

/* tests/data/pending.csv: five ranks blocked, each pending call read as written, and what
 * may follow a pending call on its rank (another thread's calls) read too. */
static void test_csv_pending(void **state)
{
    loaded l;
    rt_err err;
    assert_int_equal(load(RT_TEST_DATA "/pending.csv", &l, &err), 0);
    assert_null(l.truncated);
    assert_int_equal(l.n, 38);
    unsigned pending = 0;
    for (size_t i = 0; i < l.n; i++)
        pending += l.ev[i].kind == RT_EV_PENDING;
    assert_int_equal(pending, 5);
    const rt_event *any = &l.ev[26]; /* rank 2's receive from any source */
    assert_int_equal(any->kind, RT_EV_IRECV);
    assert_int_equal(any->rank, 2);
    assert_int_equal(any->peer, RT_PEER_NONE);
    assert_int_equal(any->tag, 3);
    assert_int_equal(any->req, 1);
    assert_int_equal(any->op, RT_RECV_ANY_SOURCE);
    unload(&l);
    /* another thread's calls after the pending one, and a pending call with no operation */
    const char *p = rt_test_write_file("threads.csv", "ranks,2\n"
                                                      "0,5,enter,MPI_Recv,,,,,,,,\n"
                                                      "0,5,pending,MPI_Recv,,,,,,,,\n"
                                                      "0,5,recv,MPI_Recv,0,1,7,0,,,,\n"
                                                      "0,8,enter,MPI_Send,,,,,,,,\n"
                                                      "0,8,send,MPI_Send,0,1,2,4,,,,\n"
                                                      "0,9,leave,MPI_Send,,,,,,,,\n"
                                                      "1,3,enter,MPI_Comm_free,,,,,,,,\n"
                                                      "1,3,pending,MPI_Comm_free,,,,,,,,\n");
    assert_int_equal(load(p, &l, &err), 0);
    assert_int_equal(l.n, 8);
    assert_int_equal(l.ev[7].kind, RT_EV_PENDING);
    assert_int_equal(l.ev[7].call, RT_FN_Comm_free);
    unload(&l);
}

static void test_csv_truncated(void **state)
{
    /* the run died while the last line was being written */
    const char *p = rt_test_write_file("cut.csv", "ranks,2\n"
                                                  "0,5,send,,0,1,0,8,,,,\n"
                                                  "1,6,recv,,0,0,0,8,,,,\n"
                                                  "1,7,send,,0,0,0,1");
    loaded l;
    rt_err err;
    assert_int_equal(load(p, &l, &err), 0);
    assert_int_equal(l.n, 2);
    assert_non_null(l.truncated);
    assert_non_null(strstr(l.truncated, "cut.csv:4: trace cut short"));
    unload(&l);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_csv_read),         cmocka_unit_test(test_csv_roundtrip),
        cmocka_unit_test(test_csv_bad_rows),     cmocka_unit_test(test_csv_pending_shape),
        cmocka_unit_test(test_csv_pending),      cmocka_unit_test(test_csv_truncated),
        cmocka_unit_test(test_csv_buffer_shape),
    };
    return rt_test_main("formats_csv", tests, argc, argv);
}
