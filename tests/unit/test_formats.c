/* Unit tests of formats/: the event model (kinds, ops, functions, connection types, the
 * check of an event against the definitions), error messages, and emulated placement. The
 * readers and writers have test_formats_*.c, test_raw.c and test_ti*.c. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "rt_test_main.h"

#include <string.h>

#include "rt_place.h"
#include "rt_trace.h"

/* ---- errors -------------------------------------------------------------------------------------
 */

static void test_escape(void **state)
{
    char buf[64];
    assert_string_equal(rt_escape(buf, sizeof buf, "t.csv:5: unknown event 'sned'"),
                        "t.csv:5: unknown event 'sned'");
    assert_string_equal(rt_escape(buf, sizeof buf, "a\rb\nc\td"), "a\\rb\\nc\\td");
    assert_string_equal(rt_escape(buf, sizeof buf, "\033[31m\x01\x7f"), "\\x1B[31m\\x01\\x7F");
    /* other bytes (UTF-8 in a path) stay; escaping escaped text changes nothing */
    assert_string_equal(rt_escape(buf, sizeof buf, "r\xc3\xa9sum\xc3\xa9 \\r"),
                        "r\xc3\xa9sum\xc3\xa9 \\r");
    char twice[64];
    rt_escape(buf, sizeof buf, "x\ry\033");
    assert_string_equal(rt_escape(twice, sizeof twice, buf), buf);
    /* cut short at the end of the buffer, never inside an escape */
    char small[6];
    assert_string_equal(rt_escape(small, sizeof small, "abc\rdef"), "abc\\r");
    assert_string_equal(rt_escape(small, sizeof small, "abcd\033"), "abcd");
    assert_string_equal(rt_escape(small, 1, "abc"), "");
}

/* ---- emulated placement -------------------------------------------------------------------------
 */

static void test_emulated_shapes(void **state)
{
    uint32_t nodes, modules, node, module;
    assert_int_equal(rt_place_parse_emulate("nodes=4,modules=2", &nodes, &modules), 0);
    assert_int_equal(nodes, 4);
    assert_int_equal(modules, 2);
    assert_int_equal(rt_place_parse_emulate("modules=2", &nodes, &modules), -RT_E_INVAL);
    rt_place_emulated(5, 8, 4, 2, &node, &module); /* 2 ranks per node, 2 nodes per module */
    assert_int_equal(node, 2);
    assert_int_equal(module, 1);
    /* every node gets a rank and every module a node, or the shape is refused */
    rt_err err;
    assert_int_equal(rt_place_check_emulated(8, 4, 2, &err), 0);
    assert_int_equal(rt_place_check_emulated(4, 4, 4, &err), 0);
    assert_int_equal(rt_place_check_emulated(4, 8, 2, &err), -RT_E_INVAL);
    assert_string_equal(err.msg, "8 nodes for 4 ranks leave 4 nodes without a rank (ranks go "
                                 "block-wise, 1 per node)");
    assert_int_equal(rt_place_check_emulated(5, 4, 1, &err), -RT_E_INVAL); /* 2, 2, 1, none */
    assert_string_equal(err.msg, "4 nodes for 5 ranks leave 1 node without a rank (ranks go "
                                 "block-wise, 2 per node)");
    assert_int_equal(rt_place_check_emulated(4, 1, 5, &err), -RT_E_INVAL);
    assert_string_equal(err.msg, "5 modules for 1 node leave 4 modules without a node (nodes go "
                                 "block-wise, 1 per module)");
    assert_int_equal(rt_place_check_emulated(0, 4, 3, &err), -RT_E_INVAL); /* ranks unknown */
    assert_int_equal(rt_place_check_emulated(0, 4, 2, &err), 0);
    assert_int_equal(rt_place_check_emulated(1, 1, 1, &err), 0);
}

/* ---- the event model ----------------------------------------------------------------------------
 */

/* Every code has a message of its own, so that rt_strerror(rc) tells the codes apart, and
 * either sign of a code gives it. */
static void test_error_messages(void **state)
{
    assert_string_equal(rt_strerror(0), "success");
    for (int a = 1; a < RT_E_COUNT; a++) {
        const char *m = rt_strerror(-a);
        assert_non_null(m);
        assert_true(m[0] != '\0');
        assert_string_equal(rt_strerror(a), m); /* either sign */
        assert_string_not_equal(m, "unknown error");
        assert_string_not_equal(m, "success");
        for (int b = 1; b < a; b++)
            assert_string_not_equal(rt_strerror(-b), m);
    }
    assert_string_equal(rt_strerror(-RT_E_COUNT), "unknown error");
    assert_string_equal(rt_strerror(-RT_E_NOMEM), "out of memory");
    assert_string_equal(rt_strerror(-RT_E_MPI), "MPI error");
    assert_string_equal(rt_strerror(-RT_E_RANGE), "value out of range");
    rt_err err;
    assert_int_equal(rt_err_set(&err, RT_E_MPI, "x %d", 1), -RT_E_MPI);
    assert_int_equal(err.code, RT_E_MPI);
    assert_string_equal(err.msg, "x 1");
    assert_int_equal(rt_err_set(NULL, RT_E_RANGE, "y"), -RT_E_RANGE);
}

static void test_func_names(void **state)
{
    assert_int_equal(rt_func_lookup("MPI_Send"), RT_FN_Send);
    assert_int_equal(rt_func_lookup("PMPI_Isend"), RT_FN_Isend);
    assert_int_equal(rt_func_lookup("Win_flush_local_all"), RT_FN_Win_flush_local_all);
    assert_int_equal(rt_func_lookup("MPI_Sendx"), RT_FN_NONE);
    assert_int_equal(rt_func_lookup(""), RT_FN_NONE);
    assert_int_equal(rt_func_lookup("MPI_"), RT_FN_NONE);
    assert_string_equal(rt_func_name(RT_FN_Ineighbor_alltoallw), "MPI_Ineighbor_alltoallw");
    assert_null(rt_func_name(RT_FN_COUNT));
    assert_int_equal(rt_func_class_of(RT_FN_Bsend), RT_CLASS_P2P);
    assert_int_equal(rt_func_class_of(RT_FN_Testsome), RT_CLASS_REQ);
    assert_int_equal(rt_func_class_of(RT_FN_Iexscan), RT_CLASS_COLL);
    assert_int_equal(rt_func_class_of(RT_FN_Win_sync), RT_CLASS_RMA);
    assert_int_equal(rt_func_class_of(RT_FN_Intercomm_merge), RT_CLASS_COMM);
    for (unsigned fn = 1; fn < RT_FN_COUNT; fn++)
        assert_int_equal(rt_func_lookup(rt_func_name(fn)), fn);
}

static void test_contype_names(void **state)
{
    assert_int_equal(rt_contype_lookup("loop"), RT_CT_LOOP);
    assert_int_equal(rt_contype_lookup("shm"), RT_CT_SHM);
    assert_int_equal(rt_contype_lookup("net"), RT_CT_NET);
    assert_int_equal(rt_contype_lookup("gw"), RT_CT_GW);
    assert_int_equal(rt_contype_lookup("gateway"), RT_CT_GW);
    assert_int_equal(rt_contype_lookup("openib"), RT_CT_NET);
    assert_int_equal(rt_contype_lookup("velo"), RT_CT_NET);
    assert_int_equal(rt_contype_lookup("ucp"), RT_CT_NET);
    assert_int_equal(rt_contype_lookup("extoll"), RT_CT_NET);
    assert_int_equal(rt_contype_lookup("GW"), -RT_E_NOTFOUND);
    assert_int_equal(rt_contype_lookup(""), -RT_E_NOTFOUND);
    assert_string_equal(rt_contype_name(RT_CT_GW), "gw");
    assert_string_equal(rt_contype_name(RT_CT_NONE), "");
}

static void test_kind_and_op_names(void **state)
{
    for (unsigned k = 0; k < RT_EV_COUNT; k++)
        assert_int_equal(rt_event_kind_lookup(rt_event_kind_name(k)), k);
    assert_int_equal(rt_event_kind_lookup("sendx"), -RT_E_NOTFOUND);
    assert_string_equal(rt_event_kind_fields(RT_EV_SEND), "cptbk");
    assert_int_equal(rt_event_op_lookup(RT_EV_COLL_END, "reduce_scatter_block"),
                     RT_COLL_REDUCE_SCATTER_BLOCK);
    assert_int_equal(rt_event_op_lookup(RT_EV_RMA_ATOMIC, "compare_and_swap"),
                     RT_ATOMIC_COMPARE_AND_SWAP);
    assert_int_equal(rt_event_op_lookup(RT_EV_RMA_GROUP_SYNC, "wait"), RT_PSCW_WAIT);
    assert_int_equal(rt_event_op_lookup(RT_EV_RMA_SYNC, "flush_local"), RT_SYNC_FLUSH_LOCAL);
    assert_int_equal(rt_event_op_lookup(RT_EV_RMA_LOCK, "shared"), RT_LOCK_SHARED);
    assert_int_equal(rt_event_op_lookup(RT_EV_SEND, "bcast"), -RT_E_NOTFOUND);
    assert_int_equal(rt_event_op_lookup(RT_EV_COLL_END, "broadcast"), -RT_E_NOTFOUND);
    for (unsigned op = 0; op < RT_COLL_COUNT; op++)
        assert_int_equal(
            rt_event_op_lookup(RT_EV_NBC_COMPLETE, rt_event_op_name(RT_EV_NBC_COMPLETE, op)), op);
    assert_string_equal(rt_event_op_name(RT_EV_RMA_LOCK, RT_LOCK_COUNT), "");
    assert_string_equal(rt_strerror(-RT_E_ORDER), "events out of time order");
}

/* The class and req columns of RT_EVENT_KINDS: every kind has a class, the predicates agree
 * with it, kinds out of range (an engine's own markers) have none; a request is started or
 * ended, never both, by kinds that carry its id. */
static void test_kind_classes(void **state)
{
    unsigned n[RT_EVC_COUNT] = {0};
    for (unsigned k = 0; k < RT_EV_COUNT; k++) {
        rt_event_class c = rt_event_class_of(k);
        assert_true(c < RT_EVC_COUNT);
        n[c]++;
        for (unsigned d = 0; d < RT_EVC_COUNT; d++)
            assert_int_equal(rt_event_in_class(k, (rt_event_class)d), c == d);
        assert_int_equal(rt_event_is_rma(k), c == RT_EVC_RMA);
        assert_int_equal(rt_event_is_coll(k), c == RT_EVC_COLL);
        int starts = rt_event_starts_request(k), ends = rt_event_ends_request(k);
        assert_false(starts && ends);
        if (starts || ends)
            assert_true(rt_event_kind_uses(k, 'q'));
    }
    for (unsigned d = 0; d < RT_EVC_COUNT; d++)
        assert_true(n[d] > 0);
    static const unsigned out[] = {RT_EV_COUNT, 63, 64, 0xff, 1000, UINT32_MAX};
    for (size_t i = 0; i < sizeof out / sizeof *out; i++) {
        assert_int_equal(rt_event_class_of(out[i]), RT_EVC_COUNT);
        assert_false(rt_event_is_rma(out[i]) || rt_event_is_coll(out[i]));
        assert_false(rt_event_starts_request(out[i]) || rt_event_ends_request(out[i]));
    }
    assert_int_equal(rt_event_class_of(RT_EV_LEAVE), RT_EVC_CALL);
    assert_int_equal(rt_event_class_of(RT_EV_REQUEST_CANCELLED), RT_EVC_P2P);
    assert_int_equal(rt_event_class_of(RT_EV_NBC_COMPLETE), RT_EVC_COLL);
    assert_int_equal(rt_event_class_of(RT_EV_RMA_COLL_BEGIN), RT_EVC_RMA);
    assert_true(rt_event_starts_request(RT_EV_RMA_ATOMIC));
    assert_true(rt_event_ends_request(RT_EV_REQUEST_CANCELLED));
    assert_false(rt_event_starts_request(RT_EV_RMA_LOCK)); /* its q is a lock id */
}

/* The op of RECV and IRECV is a set of wildcard bits, named by joining the bits' names. */
static void test_recv_flag_names(void **state)
{
    static const struct {
        unsigned bit;
        const char *name;
    } bits[] = {
#define X(id, bit, name) {RT_RECV_##id, name},
        RT_RECV_FLAGS(X)
#undef X
    };
    const unsigned nbits = sizeof bits / sizeof *bits;
    assert_string_equal(rt_event_kind_fields(RT_EV_RECV), "cptbko");
    assert_string_equal(rt_event_kind_fields(RT_EV_IRECV), "cptbkqo");
    assert_int_equal(RT_RECV_ANY_SOURCE, 1);
    assert_int_equal(RT_RECV_ANY_TAG, 2);
    assert_int_equal(RT_RECV_PARTITIONED, 4);
    assert_int_equal(RT_RECV_WILD, 3);
    assert_int_equal(RT_RECV_ALL, 7);
    static const unsigned kinds[] = {RT_EV_RECV, RT_EV_IRECV};
    for (unsigned k = 0; k < 2; k++) {
        for (unsigned set = 0; set <= RT_RECV_WILD; set++) {
            char want[64] = "";
            for (unsigned i = 0; i < nbits; i++)
                if (set & bits[i].bit) {
                    if (*want)
                        strcat(want, "|");
                    strcat(want, bits[i].name);
                }
            assert_string_equal(rt_event_op_name(kinds[k], set), want);
            assert_int_equal(rt_event_op_lookup(kinds[k], want), set);
            assert_true(rt_event_op_valid(kinds[k], set));
        }
        assert_int_equal(rt_event_op_lookup(kinds[k], "any_tag|any_source"), RT_RECV_WILD);
        assert_int_equal(rt_event_op_lookup(kinds[k], "any_source|any_source"), -RT_E_NOTFOUND);
        assert_int_equal(rt_event_op_lookup(kinds[k], "any_source|"), -RT_E_NOTFOUND);
        assert_int_equal(rt_event_op_lookup(kinds[k], "|any_tag"), -RT_E_NOTFOUND);
        assert_int_equal(rt_event_op_lookup(kinds[k], "any"), -RT_E_NOTFOUND);
        assert_int_equal(rt_event_op_lookup(kinds[k], "barrier"), -RT_E_NOTFOUND);
        assert_string_equal(rt_event_op_name(kinds[k], RT_RECV_ALL + 1), "");
        assert_false(rt_event_op_valid(kinds[k], RT_RECV_ALL + 1));
        assert_false(rt_event_op_valid(kinds[k], 0x80));
        /* partitioned takes no wildcards */
        for (unsigned set = RT_RECV_PARTITIONED + 1; set <= RT_RECV_ALL; set++) {
            assert_string_equal(rt_event_op_name(kinds[k], set), "");
            assert_false(rt_event_op_valid(kinds[k], set));
        }
        assert_int_equal(rt_event_op_lookup(kinds[k], "partitioned|any_tag"), -RT_E_NOTFOUND);
    }
    /* partitioned: an irecv's, not a recv's */
    assert_string_equal(rt_event_op_name(RT_EV_IRECV, RT_RECV_PARTITIONED), "partitioned");
    assert_int_equal(rt_event_op_lookup(RT_EV_IRECV, "partitioned"), RT_RECV_PARTITIONED);
    assert_true(rt_event_op_valid(RT_EV_IRECV, RT_RECV_PARTITIONED));
    assert_string_equal(rt_event_op_name(RT_EV_RECV, RT_RECV_PARTITIONED), "");
    assert_int_equal(rt_event_op_lookup(RT_EV_RECV, "partitioned"), -RT_E_NOTFOUND);
    assert_false(rt_event_op_valid(RT_EV_RECV, RT_RECV_PARTITIONED));
    /* an isend's op: none or partitioned, never a wildcard */
    assert_string_equal(rt_event_kind_fields(RT_EV_ISEND), "cptbkqo");
    assert_string_equal(rt_event_op_name(RT_EV_ISEND, 0), "");
    assert_int_equal(rt_event_op_lookup(RT_EV_ISEND, ""), 0);
    assert_string_equal(rt_event_op_name(RT_EV_ISEND, RT_RECV_PARTITIONED), "partitioned");
    assert_int_equal(rt_event_op_lookup(RT_EV_ISEND, "partitioned"), RT_RECV_PARTITIONED);
    for (unsigned set = 1; set <= RT_RECV_ALL; set++)
        assert_int_equal(rt_event_op_valid(RT_EV_ISEND, set), set == RT_RECV_PARTITIONED);
    assert_int_equal(rt_event_op_lookup(RT_EV_ISEND, "any_source"), -RT_E_NOTFOUND);
    assert_string_equal(rt_event_op_name(RT_EV_ISEND, RT_RECV_ANY_TAG), "");
    /* rt_event_partitioned: the mark on an isend or an irecv, nowhere else */
    rt_event pe = {.kind = RT_EV_ISEND, .op = RT_RECV_PARTITIONED};
    assert_true(rt_event_partitioned(&pe));
    pe.kind = RT_EV_IRECV;
    assert_true(rt_event_partitioned(&pe));
    pe.op = RT_RECV_ANY_SOURCE;
    assert_false(rt_event_partitioned(&pe));
    pe = (rt_event){.kind = RT_EV_COLL_END, .op = RT_RECV_PARTITIONED}; /* a gather */
    assert_false(rt_event_partitioned(&pe));
    /* the other kinds keep their tables; "" is no op of theirs */
    assert_int_equal(rt_event_op_lookup(RT_EV_COLL_END, ""), -RT_E_NOTFOUND);
    assert_int_equal(rt_event_op_lookup(RT_EV_SEND, ""), -RT_E_NOTFOUND);
    assert_int_equal(rt_event_op_lookup(RT_EV_SEND, "any_source"), -RT_E_NOTFOUND);
    assert_string_equal(rt_event_op_name(RT_EV_IRECV_REQUEST, RT_RECV_ANY_SOURCE), "");
    assert_true(rt_event_op_valid(RT_EV_RMA_LOCK, RT_LOCK_SHARED));
    assert_false(rt_event_op_valid(RT_EV_RMA_LOCK, RT_LOCK_COUNT));
    assert_true(rt_event_op_valid(RT_EV_SEND, 0));
    assert_false(rt_event_op_valid(RT_EV_SEND, 1));
}

static void test_event_equal_uses_only_kind_fields(void **state)
{
    rt_event a = {.time = 5, .rank = 1, .kind = RT_EV_ISEND_COMPLETE, .req = 9, .tag = 3};
    rt_event b = a;
    b.tag = 4; /* not a field of isend_complete */
    b.bytes = 100;
    assert_true(rt_event_equal(&a, &b));
    b.req = 10;
    assert_false(rt_event_equal(&a, &b));
    rt_event_normalize(&a);
    assert_int_equal(a.tag, 0);
    assert_int_equal(a.req, 9);
    /* a receive's wildcards are part of it; a send has no op to compare */
    rt_event r = {.kind = RT_EV_RECV, .rank = 1, .peer = 0, .op = RT_RECV_ANY_TAG};
    rt_event s = r;
    s.op = 0;
    assert_false(rt_event_equal(&r, &s));
    r.kind = s.kind = RT_EV_SEND;
    assert_true(rt_event_equal(&r, &s));
    rt_event_normalize(&r);
    assert_int_equal(r.op, 0);
}

static void test_event_check(void **state)
{
    rt_defs d;
    rt_err err;
    assert_int_equal(rt_defs_init(&d, 4, &err), 0);
    uint32_t odd[] = {1, 3};
    assert_int_equal(rt_defs_add_comm(&d, 2, 0, 0, 2, 0, odd, "odd", &err), 0);
    assert_int_equal(rt_defs_add_win(&d, 0, 0, &err), 0);
    rt_event ok = {.kind = RT_EV_SEND, .rank = 1, .comm = 2, .peer = 1, .call = RT_FN_Send};
    assert_int_equal(rt_event_check(&d, &ok, &err), 0);
    struct {
        rt_event ev;
        const char *msg;
    } bad[] = {
        {{.kind = RT_EV_SEND, .rank = 4}, "send: rank 4 is not a world rank (0 to 3)"},
        {{.kind = RT_EV_SEND, .rank = 0, .comm = 5}, "send: communicator 5 is not defined"},
        {{.kind = RT_EV_SEND, .rank = 0, .comm = 2},
         "send: rank 0 is not a member of communicator 2"},
        {{.kind = RT_EV_SEND, .rank = 1, .comm = 2, .peer = 2},
         "send: peer 2 is not a rank of communicator 2"},
        {{.kind = RT_EV_SEND, .rank = 1, .comm = 2, .peer = RT_PEER_ALL},
         "send: peer -2 is not a rank of communicator 2"},
        {{.kind = RT_EV_COLL_END, .rank = 1, .op = RT_COLL_COUNT}, "coll_end: unknown op 28"},
        {{.kind = RT_EV_RECV, .rank = 1, .comm = 2, .op = RT_RECV_PARTITIONED},
         "recv: unknown op 4"},
        {{.kind = RT_EV_ISEND, .rank = 1, .comm = 2, .op = RT_RECV_ANY_SOURCE},
         "isend: unknown op 1"},
        {{.kind = RT_EV_IRECV, .rank = 1, .comm = 2, .op = 0x80}, "irecv: unknown op 128"},
        {{.kind = RT_EV_ENTER, .rank = 1}, "enter: no MPI function named"},
        {{.kind = RT_EV_SEND, .rank = 1, .contype = RT_CT_COUNT},
         "send: unknown connection type 5"},
        {{.kind = RT_EV_RMA_PUT, .rank = 1, .comm = 3}, "put: window 3 is not defined"},
        {{.kind = RT_EV_RMA_GROUP_SYNC, .rank = 1, .peer = 0},
         "group_sync: group 0 is not defined"},
        {{.kind = RT_EV_COUNT}, "unknown event kind 34"},
        {{.kind = RT_EV_COLL_PEER, .rank = 1, .op = RT_COLL_ALLREDUCE, .bytes = 8},
         "coll_peer: allreduce has no per-peer counts"},
        {{.kind = RT_EV_COLL_PEER, .rank = 1, .op = RT_COLL_ALLTOALLV, .peer = 1},
         "coll_peer: block 1 of alltoallv has no bytes (a block of 0 bytes is left out)"},
        {{.kind = RT_EV_COLL_PEER, .rank = 1, .op = RT_COLL_GATHERV, .bytes = 5},
         "coll_peer: gatherv has no send counts"},
        {{.kind = RT_EV_COLL_PEER, .rank = 1, .op = RT_COLL_SCATTERV, .rbytes = 5},
         "coll_peer: scatterv has no receive counts"},
        {{.kind = RT_EV_COLL_PEER,
          .rank = 1,
          .comm = 2,
          .op = RT_COLL_ALLTOALLV,
          .peer = 2,
          .bytes = 5},
         "coll_peer: block 2 of alltoallv on communicator 2: the rank has 2 blocks"},
        {{.kind = RT_EV_COLL_PEER, .rank = 1, .op = RT_COLL_ALLTOALLV, .peer = -1, .rbytes = 5},
         "coll_peer: block -1 of alltoallv on communicator 0: the rank has 4 blocks"},
        {{.kind = RT_EV_COLL_PEER, .rank = 1, .op = RT_COLL_NEIGHBOR_ALLTOALLV, .rbytes = 5},
         "coll_peer: rank 1 has no neighbour lists on communicator 0"},
        {{.kind = RT_EV_ISEND_COMPLETE, .rank = 1, .req = RT_REQ_NONE},
         "isend_complete: request id 18446744073709551615 is reserved (it stands for none)"},
        {{.kind = RT_EV_RMA_OP_COMPLETE, .rank = 1, .comm = 0, .req = RT_REQ_NONE},
         "rma_complete: request id 18446744073709551615 is reserved (it stands for none)"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        assert_int_equal(rt_event_check(&d, &bad[i].ev, &err), -RT_E_INVAL);
        assert_string_equal(err.msg, bad[i].msg);
    }
    rt_event lock_all = {.kind = RT_EV_RMA_LOCK, .rank = 3, .comm = 0, .peer = RT_PEER_ALL};
    assert_int_equal(rt_event_check(&d, &lock_all, &err), 0);
    rt_event rootless = {.kind = RT_EV_COLL_END, .rank = 3, .comm = 0, .peer = RT_PEER_NONE};
    assert_int_equal(rt_event_check(&d, &rootless, &err), 0);
    rt_event wild = {.kind = RT_EV_IRECV, .rank = 1, .comm = 2, .peer = 1, .op = RT_RECV_WILD};
    assert_int_equal(rt_event_check(&d, &wild, &err), 0);
    rt_defs_free(&d);
}

/* The MPI library's name from MPI_Get_library_version: MPICH's and Open MPI's texts as
 * Debian 12's libraries give them, another library's first line, cut to fit, and what readers
 * accept. */
static void test_library_name(void **state)
{
    (void)state;
    char out[20];
    rt_library_name("MPICH Version:\t4.0.2\nMPICH Release date:\tThu Apr  7 12:34:45 CDT 2022\n",
                    out, sizeof out);
    assert_string_equal(out, "MPICH 4.0.2");
    rt_library_name("Open MPI v4.1.4, package: Debian OpenMPI, ident: 4.1.4, repo rev: v4.1.4, "
                    "May 26, 2022",
                    out, sizeof out);
    assert_string_equal(out, "Open MPI 4.1.4");
    rt_library_name("  Intel(R) MPI\tLibrary 2021.9 for Linux*\nmore", out, sizeof out);
    assert_string_equal(out, "Intel_R_ MPI Librar");
    rt_library_name("MPICH Version:", out, sizeof out);
    assert_string_equal(out, "MPICH ");
    rt_library_name("", out, sizeof out);
    assert_string_equal(out, "");
    char small[8];
    rt_library_name("Open MPI v4.1.4", small, sizeof small);
    assert_string_equal(small, "Open MP");
    assert_true(rt_library_valid("MPICH 4.0.2", 24));
    assert_true(rt_library_valid("", 24));
    assert_false(rt_library_valid("MPICH,4", 24));
    assert_false(rt_library_valid("a\nb", 24));
    assert_false(rt_library_valid("0123456789", 10)); /* no NUL within 10 */
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_escape),
        cmocka_unit_test(test_library_name),
        cmocka_unit_test(test_emulated_shapes),
        cmocka_unit_test(test_func_names),
        cmocka_unit_test(test_contype_names),
        cmocka_unit_test(test_error_messages),
        cmocka_unit_test(test_kind_and_op_names),
        cmocka_unit_test(test_kind_classes),
        cmocka_unit_test(test_recv_flag_names),
        cmocka_unit_test(test_event_equal_uses_only_kind_fields),
        cmocka_unit_test(test_event_check),
    };
    return rt_test_main("formats", tests, argc, argv);
}
