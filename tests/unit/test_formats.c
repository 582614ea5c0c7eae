/* Unit tests of formats/: the event model, definitions, CSV and OTF2 readers and writers,
 * and every kind of bad input. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "rt_test_main.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <otf2/otf2.h>

#include "rt_place.h"
#include "rt_test.h"
#include "rt_trace.h"

#define ALL_KINDS RT_TEST_DATA "/all_kinds.csv"
#define NEIGHBORS RT_TEST_DATA "/neighbors.csv"

/* ---- helpers ------------------------------------------------------------------------------- */

static void remove_any(const char *path)
{
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", path);
    assert_int_equal(system(cmd), 0);
}

typedef rt_test_trace loaded;

/* Reads a whole trace; events ordered by rank (stable), as readers may interleave ranks
 * differently. Returns the reader's status (0, or the negative error). */
static int load(const char *path, loaded *out, rt_err *err)
{
    int rc = rt_test_load(path, out, err);
    for (size_t i = 1; i < out->n; i++)
        for (size_t j = i; j > 0 && out->ev[j - 1].rank > out->ev[j].rank; j--) {
            rt_event t = out->ev[j];
            out->ev[j] = out->ev[j - 1];
            out->ev[j - 1] = t;
        }
    return rc;
}

static void unload(loaded *l)
{
    rt_test_unload(l);
}

static void convert(const char *in, const char *out, rt_format fmt)
{
    loaded l;
    rt_err err;
    assert_int_equal(load(in, &l, &err), 0);
    rt_writer *w;
    int rc = rt_writer_open(out, fmt, &l.defs, &w, &err);
    if (rc)
        fail_msg("%s", err.msg);
    for (size_t i = 0; i < l.n; i++)
        if (rt_writer_write(w, &l.ev[i], &err) < 0)
            fail_msg("%s", err.msg);
    if (rt_writer_close(w, &err) < 0)
        fail_msg("%s", err.msg);
    unload(&l);
}

static void assert_same_defs(const rt_defs *a, const rt_defs *b)
{
    assert_int_equal(a->nranks, b->nranks);
    assert_memory_equal(a->node, b->node, a->nranks * sizeof *a->node);
    assert_memory_equal(a->module, b->module, a->nranks * sizeof *a->module);
    assert_int_equal(a->ncomms, b->ncomms);
    for (uint32_t i = 0; i < a->ncomms; i++) {
        const rt_comm_def *x = &a->comms[i], *y = &b->comms[i];
        assert_int_equal(x->id, y->id);
        assert_int_equal(x->parent, y->parent);
        assert_int_equal(x->flags, y->flags);
        assert_int_equal(x->size, y->size);
        assert_int_equal(x->remote_size, y->remote_size);
        assert_memory_equal(x->members, y->members,
                            (x->size + x->remote_size) * sizeof *x->members);
        assert_string_equal(x->name, y->name);
    }
    assert_int_equal(a->ngroups, b->ngroups);
    for (uint32_t i = 0; i < a->ngroups; i++) {
        assert_int_equal(a->groups[i].id, b->groups[i].id);
        assert_int_equal(a->groups[i].size, b->groups[i].size);
        assert_memory_equal(a->groups[i].members, b->groups[i].members,
                            a->groups[i].size * sizeof *a->groups[i].members);
    }
    assert_int_equal(a->nwins, b->nwins);
    for (uint32_t i = 0; i < a->nwins; i++) {
        assert_int_equal(a->wins[i].id, b->wins[i].id);
        assert_int_equal(a->wins[i].comm, b->wins[i].comm);
    }
    assert_int_equal(a->nnbrs, b->nnbrs);
    for (uint32_t i = 0; i < a->nnbrs; i++) {
        const rt_nbr_def *x = &a->nbrs[i], *y = &b->nbrs[i];
        assert_int_equal(x->rank, y->rank);
        assert_int_equal(x->comm, y->comm);
        assert_int_equal(x->nin, y->nin);
        assert_int_equal(x->nout, y->nout);
        assert_memory_equal(x->in, y->in, x->nin * sizeof *x->in);
        assert_memory_equal(x->out, y->out, x->nout * sizeof *x->out);
    }
}

static void assert_same_events(const loaded *a, const loaded *b)
{
    assert_int_equal(a->n, b->n);
    for (size_t i = 0; i < a->n; i++)
        if (!rt_event_equal(&a->ev[i], &b->ev[i]))
            fail_msg("event %zu differs: rank %u kind %s t=%llu vs rank %u kind %s t=%llu", i,
                     a->ev[i].rank, rt_event_kind_name(a->ev[i].kind),
                     (unsigned long long)a->ev[i].time, b->ev[i].rank,
                     rt_event_kind_name(b->ev[i].kind), (unsigned long long)b->ev[i].time);
}

/* Expects an error whose code is code and whose message contains text. */
static void expect_open_error(const char *path, int code, const char *text)
{
    loaded l;
    rt_err err = {0};
    int rc = load(path, &l, &err);
    if (rc == 0)
        fail_msg("%s: no error, expected '%s'", path, text);
    if (rc != -code || !strstr(err.msg, text))
        fail_msg("%s: got %d '%s', expected %d '%s'", path, rc, err.msg, -code, text);
    unload(&l);
}

/* ---- errors ---------------------------------------------------------------------------------- */

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

/* ---- emulated placement -------------------------------------------------------------------- */

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

/* ---- the event model ----------------------------------------------------------------------- */

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
    assert_int_equal(RT_RECV_ALL, 3);
    static const unsigned kinds[] = {RT_EV_RECV, RT_EV_IRECV};
    for (unsigned k = 0; k < 2; k++) {
        for (unsigned set = 0; set <= RT_RECV_ALL; set++) {
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
        assert_int_equal(rt_event_op_lookup(kinds[k], "any_tag|any_source"), RT_RECV_ALL);
        assert_int_equal(rt_event_op_lookup(kinds[k], "any_source|any_source"), -RT_E_NOTFOUND);
        assert_int_equal(rt_event_op_lookup(kinds[k], "any_source|"), -RT_E_NOTFOUND);
        assert_int_equal(rt_event_op_lookup(kinds[k], "|any_tag"), -RT_E_NOTFOUND);
        assert_int_equal(rt_event_op_lookup(kinds[k], "any"), -RT_E_NOTFOUND);
        assert_int_equal(rt_event_op_lookup(kinds[k], "barrier"), -RT_E_NOTFOUND);
        assert_string_equal(rt_event_op_name(kinds[k], RT_RECV_ALL + 1), "");
        assert_false(rt_event_op_valid(kinds[k], RT_RECV_ALL + 1));
        assert_false(rt_event_op_valid(kinds[k], 0x80));
    }
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

/* ---- definitions ----------------------------------------------------------------------------- */

static void test_defs(void **state)
{
    rt_defs d;
    rt_err err;
    assert_int_equal(rt_defs_init(&d, 4, &err), 0);
    assert_int_equal(d.ncomms, 2);
    assert_int_equal(rt_defs_comm(&d, RT_COMM_WORLD)->size, 4);
    assert_true(rt_defs_comm(&d, RT_COMM_SELF)->flags & RT_COMM_IS_SELF);
    uint32_t odd[] = {1, 3}, ab[] = {0, 1, 2, 3}, bad[] = {1, 4};
    assert_int_equal(rt_defs_add_comm(&d, 9, 0, 0, 2, 0, odd, "odd", &err), 0);
    assert_int_equal(rt_defs_add_comm(&d, 4, 0, 0, 2, 2, ab, "inter", &err), 0);
    assert_int_equal(rt_defs_add_comm(&d, 9, 0, 0, 2, 0, odd, "again", &err), -RT_E_INVAL);
    assert_string_equal(err.msg, "communicator 9 is defined twice");
    assert_int_equal(rt_defs_add_comm(&d, 10, 0, 0, 2, 0, bad, "", &err), -RT_E_INVAL);
    assert_string_equal(err.msg, "communicator 10: member 4 is not a world rank (0 to 3)");
    assert_int_equal(rt_defs_add_win(&d, 0, 77, &err), -RT_E_INVAL);
    assert_string_equal(err.msg, "window 0: communicator 77 is not defined");
    assert_int_equal(rt_defs_add_win(&d, 0, 9, &err), 0);
    assert_int_equal(rt_defs_add_group(&d, 3, 2, odd, &err), 0);
    /* sorted by id whatever the order of definition */
    assert_int_equal(d.comms[2].id, 4);
    assert_int_equal(d.comms[3].id, 9);
    assert_true(rt_defs_comm(&d, 4)->flags & RT_COMM_IS_INTER);
    assert_int_equal(rt_defs_count_nodes(&d), 1);
    d.node[3] = 7;
    d.module[3] = 2;
    assert_int_equal(rt_defs_count_nodes(&d), 2);
    assert_int_equal(rt_defs_count_modules(&d), 2);

    rt_event ev = {.kind = RT_EV_SEND, .rank = 3, .comm = 9, .peer = 0};
    assert_int_equal(rt_defs_peer_world(&d, &ev), 1);
    ev.peer = 2;
    assert_int_equal(rt_defs_peer_world(&d, &ev), -RT_E_NOTFOUND);
    ev = (rt_event){.kind = RT_EV_SEND, .rank = 0, .comm = 4, .peer = 1}; /* remote group */
    assert_int_equal(rt_defs_peer_world(&d, &ev), 3);
    ev.rank = 2;
    ev.peer = 0;
    assert_int_equal(rt_defs_peer_world(&d, &ev), 0);
    ev = (rt_event){.kind = RT_EV_SEND, .rank = 2, .comm = RT_COMM_SELF, .peer = 0};
    assert_int_equal(rt_defs_peer_world(&d, &ev), 2);
    ev = (rt_event){.kind = RT_EV_RMA_PUT, .rank = 1, .comm = 0, .peer = 1}; /* window 0 */
    assert_int_equal(rt_defs_peer_world(&d, &ev), 3);

    rt_defs c;
    assert_int_equal(rt_defs_copy(&c, &d, &err), 0);
    assert_same_defs(&d, &c);
    rt_defs_free(&c);
    rt_defs_free(&d);
    assert_int_equal(rt_defs_init(&d, 0, &err), -RT_E_INVAL);
}

/* Neighbour lists: what rt_defs_add_nbrs accepts, lookup, copy, and the consistency check. */
static void test_nbrs(void **state)
{
    rt_defs d;
    rt_err err;
    assert_int_equal(rt_defs_init(&d, 4, &err), 0);
    uint32_t rev[] = {3, 2, 1, 0}, ab[] = {0, 1, 2, 3};
    assert_int_equal(rt_defs_add_comm(&d, 2, 0, 0, 4, 0, rev, "graph", &err), 0);
    assert_int_equal(rt_defs_add_comm(&d, 3, 0, 0, 2, 2, ab, "inter", &err), 0);
    /* the ring 0 -> 1 -> 2 -> 3 -> 0 in communicator ranks, plus a border slot on rank 0 */
    int32_t in[4][2] = {{3, RT_PEER_NONE}, {0}, {1}, {2}}, out[4][2] = {{1}, {2}, {3}, {0}};
    for (uint32_t c = 0; c < 4; c++) /* world rank 3 - c: lists arrive out of order */
        assert_int_equal(rt_defs_add_nbrs(&d, 2, 3 - c, c ? 1 : 2, in[c], 1, out[c], &err), 0);
    assert_int_equal(d.nnbrs, 4);
    for (uint32_t i = 0; i < 4; i++)
        assert_int_equal(d.nbrs[i].rank, i); /* sorted by (rank, comm) */
    const rt_nbr_def *n = rt_defs_nbrs(&d, 2, 3);
    assert_non_null(n);
    assert_int_equal(n->nin, 2);
    assert_int_equal(n->in[1], RT_PEER_NONE);
    assert_int_equal(n->out[0], 1);
    assert_null(rt_defs_nbrs(&d, 2, 4));
    assert_null(rt_defs_nbrs(&d, RT_COMM_WORLD, 3));
    assert_int_equal(rt_defs_nbrs_check(&d, &err), 0);

    struct {
        uint32_t comm, rank, nin;
        int32_t v;
        const char *msg;
    } bad[] = {
        {7, 0, 1, 0, "neighbour lists of rank 0: communicator 7 is not defined"},
        {3, 0, 1, 0, "neighbour lists of rank 0: communicator 3 is an inter-communicator"},
        {2, 5, 1, 0, "neighbour lists on communicator 2: rank 5 is not a world rank (0 to 3)"},
        {2, 1, 1, 4,
         "neighbour lists of rank 1 on communicator 2: sources 0 is 4, not a rank of the "
         "communicator (0 to 3) or none"},
        {2, 1, 1, -2,
         "neighbour lists of rank 1 on communicator 2: sources 0 is -2, not a rank of the "
         "communicator (0 to 3) or none"},
        {2, 1, RT_MAX_DEGREE + 1, 0,
         "neighbour lists of rank 1 on communicator 2: 1048577 sources, more than 1048576"},
        {2, 1, 1, 0, "neighbour lists of rank 1 on communicator 2 are defined twice"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        assert_int_equal(
            rt_defs_add_nbrs(&d, bad[i].comm, bad[i].rank, bad[i].nin, &bad[i].v, 0, NULL, &err),
            -RT_E_INVAL);
        assert_string_equal(err.msg, bad[i].msg);
    }
    uint32_t odd[] = {1, 3};
    assert_int_equal(rt_defs_add_comm(&d, 4, 0, 0, 2, 0, odd, "odd", &err), 0);
    assert_int_equal(rt_defs_add_nbrs(&d, 4, 0, 0, NULL, 0, NULL, &err), -RT_E_INVAL);
    assert_string_equal(err.msg, "neighbour lists on communicator 4: rank 0 is not a member");

    rt_defs c;
    assert_int_equal(rt_defs_copy(&c, &d, &err), 0);
    assert_same_defs(&d, &c);
    rt_defs_free(&c);

    /* A rank without lists is left out of the check (it never called a neighbourhood
     * collective); a pair whose two lists disagree is named. */
    int32_t twice[] = {0, 0}, once[] = {1};
    assert_int_equal(rt_defs_add_nbrs(&d, 4, 3, 0, NULL, 2, twice, &err), 0);
    assert_int_equal(rt_defs_nbrs_check(&d, &err), 0);
    assert_int_equal(rt_defs_add_nbrs(&d, 4, 1, 1, once, 0, NULL, &err), 0);
    assert_int_equal(rt_defs_nbrs_check(&d, &err), -RT_E_INVAL);
    assert_string_equal(err.msg, "communicator 4: neighbour lists disagree: rank 1 lists rank 0 "
                                 "among its destinations 2 times, rank 0 lists rank 1 among its "
                                 "sources 1 time");
    rt_defs_free(&d);

    assert_int_equal(rt_defs_init(&d, 2, &err), 0);
    assert_int_equal(rt_defs_add_comm(&d, 2, 0, 0, 2, 0, ab, "pair", &err), 0);
    int32_t to1[] = {1}, to0[] = {0};
    assert_int_equal(rt_defs_add_nbrs(&d, 2, 0, 0, NULL, 1, to1, &err), 0);
    assert_int_equal(rt_defs_add_nbrs(&d, 2, 1, 1, to0, 1, to0, &err), 0);
    assert_int_equal(rt_defs_nbrs_check(&d, &err), -RT_E_INVAL);
    assert_string_equal(err.msg, "communicator 2: neighbour lists disagree: rank 1 lists rank 0 "
                                 "among its destinations 1 time, rank 0 lists rank 1 among its "
                                 "sources 0 times");
    rt_defs_free(&d);
}

/* The neighbour lists of tests/data/neighbors.csv through CSV and OTF2 (CSV -> OTF2 -> CSV),
 * field by field, and a few of them exactly. */
static void test_nbrs_roundtrip(void **state)
{
    const char *csv = rt_test_tmp_path("nbrs.csv"), *otf2 = rt_test_tmp_path("nbrs-otf2"),
               *back = rt_test_tmp_path("nbrs-back.csv");
    unlink(csv);
    unlink(back);
    remove_any(otf2);
    convert(NEIGHBORS, csv, RT_FMT_CSV);
    convert(NEIGHBORS, otf2, RT_FMT_OTF2);
    convert(otf2, back, RT_FMT_CSV);
    loaded a, b;
    rt_err err;
    assert_int_equal(load(NEIGHBORS, &a, &err), 0);
    assert_int_equal(a.defs.nnbrs, 8);
    const rt_nbr_def *n = rt_defs_nbrs(&a.defs, 2, 1);
    int32_t grid1[] = {3, 3, 0, RT_PEER_NONE};
    assert_int_equal(n->nin, 4);
    assert_memory_equal(n->in, grid1, sizeof grid1);
    assert_memory_equal(n->out, grid1, sizeof grid1);
    n = rt_defs_nbrs(&a.defs, 3, 0);
    assert_int_equal(n->nin, 0);
    assert_int_equal(n->nout, 0);
    n = rt_defs_nbrs(&a.defs, 3, 1);
    int32_t src1[] = {1, 0};
    assert_int_equal(n->nin, 2);
    assert_memory_equal(n->in, src1, sizeof src1);
    assert_int_equal(n->nout, 1);
    assert_int_equal(n->out[0], 0);
    assert_int_equal(rt_defs_nbrs_check(&a.defs, &err), 0);
    const char *paths[3] = {csv, otf2, back};
    for (int k = 0; k < 3; k++) {
        assert_int_equal(load(paths[k], &b, &err), 0);
        assert_same_defs(&a.defs, &b.defs);
        assert_same_events(&a, &b);
        unload(&b);
    }
    unload(&a);
    /* CSV writes them in (rank, comm) order, as the source file has them */
    FILE *f = fopen(csv, "r");
    char line[256];
    int k = 0;
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, "neighbors,", 10) && k++ == 3)
            assert_string_equal(line, "neighbors,3,1,1 0,0\n");
    if (f)
        fclose(f);
    assert_int_equal(k, 8);
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
        {{.kind = RT_EV_RECV, .rank = 1, .comm = 2, .op = RT_RECV_ALL + 1}, "recv: unknown op 4"},
        {{.kind = RT_EV_IRECV, .rank = 1, .comm = 2, .op = 0x80}, "irecv: unknown op 128"},
        {{.kind = RT_EV_ENTER, .rank = 1}, "enter: no MPI function named"},
        {{.kind = RT_EV_SEND, .rank = 1, .contype = RT_CT_COUNT},
         "send: unknown connection type 5"},
        {{.kind = RT_EV_RMA_PUT, .rank = 1, .comm = 3}, "put: window 3 is not defined"},
        {{.kind = RT_EV_RMA_GROUP_SYNC, .rank = 1, .peer = 0},
         "group_sync: group 0 is not defined"},
        {{.kind = RT_EV_COUNT}, "unknown event kind 25"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        assert_int_equal(rt_event_check(&d, &bad[i].ev, &err), -RT_E_INVAL);
        assert_string_equal(err.msg, bad[i].msg);
    }
    rt_event lock_all = {.kind = RT_EV_RMA_LOCK, .rank = 3, .comm = 0, .peer = RT_PEER_ALL};
    assert_int_equal(rt_event_check(&d, &lock_all, &err), 0);
    rt_event rootless = {.kind = RT_EV_COLL_END, .rank = 3, .comm = 0, .peer = RT_PEER_NONE};
    assert_int_equal(rt_event_check(&d, &rootless, &err), 0);
    rt_event wild = {.kind = RT_EV_IRECV, .rank = 1, .comm = 2, .peer = 1, .op = RT_RECV_ALL};
    assert_int_equal(rt_event_check(&d, &wild, &err), 0);
    rt_defs_free(&d);
}

/* ---- round trips ----------------------------------------------------------------------------- */

static void test_csv_read(void **state)
{
    loaded l;
    rt_err err;
    assert_int_equal(load(ALL_KINDS, &l, &err), 0);
    assert_null(l.truncated);
    assert_int_equal(l.defs.nranks, 4);
    assert_int_equal(l.defs.node[3], 5);
    assert_int_equal(l.defs.module[2], 1);
    const rt_comm_def *inter = rt_defs_comm(&l.defs, 3);
    assert_non_null(inter);
    assert_string_equal(inter->name, "split, inter");
    assert_int_equal(inter->remote_size, 2);
    assert_int_equal(l.n, 64);
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
    assert_int_equal(l.ev[10].req, 9223372036854775808ull);
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

/* CSV -> OTF2 -> CSV gives the same definitions and events, field by field. */
static void test_otf2_roundtrip(void **state)
{
    const char *otf2 = rt_test_tmp_path("rt-otf2"), *csv = rt_test_tmp_path("rt-back.csv");
    remove_any(otf2);
    unlink(csv);
    convert(ALL_KINDS, otf2, RT_FMT_OTF2);
    convert(otf2, csv, RT_FMT_CSV);
    loaded a, b, c;
    rt_err err;
    assert_int_equal(load(ALL_KINDS, &a, &err), 0);
    assert_int_equal(load(otf2, &b, &err), 0);
    assert_int_equal(load(csv, &c, &err), 0);
    assert_null(b.truncated);
    assert_same_defs(&a.defs, &b.defs);
    assert_same_events(&a, &b);
    assert_same_defs(&a.defs, &c.defs);
    assert_same_events(&a, &c);
    unload(&a);
    unload(&b);
    unload(&c);
    /* the anchor file names the archive as well as its directory */
    char anchor[1100];
    snprintf(anchor, sizeof anchor, "%s/traces.otf2", otf2);
    assert_int_equal(load(anchor, &b, &err), 0);
    assert_int_equal(b.n, 64);
    unload(&b);
}

/*
 * A receive's wildcards through every form: each set on RECV and IRECV, read from CSV,
 * written to CSV and to OTF2 (the retrace::op attribute, left out for the empty set) and
 * read back. The CSV form names the set in the OP column, empty for none.
 */
static void test_recv_flags_roundtrip(void **state)
{
    const char *in =
        rt_test_write_file("wild.csv", "ranks,2\n"
                                       "0,10,recv,MPI_Recv,0,1,5,8,,shm,,\n"
                                       "0,20,recv,MPI_Recv,0,1,5,8,,shm,,any_source\n"
                                       "0,30,recv,MPI_Recv,0,1,5,8,,shm,,any_tag\n"
                                       "0,40,recv,MPI_Recv,0,1,5,8,,shm,,any_tag|any_source\n"
                                       "1,10,irecv,MPI_Wait,0,0,6,4,,shm,1,\n"
                                       "1,20,irecv,MPI_Wait,0,0,6,4,,shm,2,any_source\n"
                                       "1,30,irecv,MPI_Wait,0,0,6,4,,shm,3,any_tag\n"
                                       "1,40,irecv,MPI_Test,0,0,6,4,,shm,4,"
                                       "any_source|any_tag\n");
    static const unsigned want[8] = {0, RT_RECV_ANY_SOURCE, RT_RECV_ANY_TAG, RT_RECV_ALL,
                                     0, RT_RECV_ANY_SOURCE, RT_RECV_ANY_TAG, RT_RECV_ALL};
    const char *csv = rt_test_tmp_path("wild-back.csv"), *otf2 = rt_test_tmp_path("wild-otf2"),
               *csv2 = rt_test_tmp_path("wild-otf2.csv");
    unlink(csv);
    unlink(csv2);
    remove_any(otf2);
    convert(in, csv, RT_FMT_CSV);
    convert(in, otf2, RT_FMT_OTF2);
    convert(otf2, csv2, RT_FMT_CSV);
    const char *paths[] = {in, csv, otf2, csv2};
    loaded l[4];
    rt_err err;
    for (int i = 0; i < 4; i++) {
        if (load(paths[i], &l[i], &err))
            fail_msg("%s", err.msg);
        assert_int_equal(l[i].n, 8);
        for (size_t j = 0; j < 8; j++) {
            assert_int_equal(l[i].ev[j].kind, j < 4 ? RT_EV_RECV : RT_EV_IRECV);
            if (l[i].ev[j].op != want[j])
                fail_msg("%s: event %zu has op %u, expected %u", paths[i], j, l[i].ev[j].op,
                         want[j]);
        }
        if (i)
            assert_same_events(&l[0], &l[i]);
    }
    for (int i = 0; i < 4; i++)
        unload(&l[i]);
    /* the names as written, the empty set as an empty column */
    FILE *f = fopen(csv, "rb");
    assert_non_null(f);
    char text[4096];
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = '\0';
    assert_non_null(strstr(text, "\n0,10,recv,MPI_Recv,0,1,5,8,,shm,,\n"));
    assert_non_null(strstr(text, "\n0,40,recv,MPI_Recv,0,1,5,8,,shm,,any_source|any_tag\n"));
    assert_non_null(strstr(text, "\n1,30,irecv,MPI_Wait,0,0,6,4,,shm,3,any_tag\n"));
}

/* OTF2 numbers definitions densely: sparse ids are renumbered in order, and every peer
 * still resolves to the same world rank. */
static void test_otf2_renumbers_sparse_ids(void **state)
{
    const char *in = rt_test_write_file("sparse.csv", "ranks,3\n"
                                                      "comm,20,0,c,2 0\n"
                                                      "comm,7,,b,1 2\n"
                                                      "group,40,2 1\n"
                                                      "win,30,20\n"
                                                      "0,1,send,,20,0,1,8,,,,\n"
                                                      "1,1,send,,7,1,1,8,,,,\n"
                                                      "2,1,put,,30,1,,4,,,1,\n"
                                                      "2,2,group_sync,,30,40,,,,,,post\n");
    const char *otf2 = rt_test_tmp_path("sparse-otf2");
    remove_any(otf2);
    convert(in, otf2, RT_FMT_OTF2);
    loaded a, b;
    rt_err err;
    assert_int_equal(load(in, &a, &err), 0);
    assert_int_equal(load(otf2, &b, &err), 0);
    assert_int_equal(b.defs.ncomms, 4);
    assert_int_equal(b.defs.comms[2].id, 2); /* was 7 */
    assert_int_equal(b.defs.comms[3].id, 3); /* was 20 */
    assert_int_equal(b.defs.comms[3].parent, 0);
    assert_int_equal(b.defs.comms[2].parent, RT_ID_NONE);
    assert_int_equal(b.defs.wins[0].id, 0);
    assert_int_equal(b.defs.wins[0].comm, 3);
    assert_int_equal(b.defs.groups[0].id, 0);
    assert_int_equal(b.n, a.n);
    for (size_t i = 0; i < a.n; i++)
        if (a.ev[i].kind != RT_EV_RMA_GROUP_SYNC)
            assert_int_equal(rt_defs_peer_world(&a.defs, &a.ev[i]),
                             rt_defs_peer_world(&b.defs, &b.ev[i]));
    assert_int_equal(b.ev[3].peer, 0);
    assert_int_equal(rt_defs_peer_world(&b.defs, &b.ev[0]), 2);
    unload(&a);
    unload(&b);
}

/* ---- bad input ---------------------------------------------------------------------------------
 */

static void test_missing_file(void **state)
{
    const char *p = rt_test_tmp_path("nosuch.csv");
    unlink(p);
    char want[1100];
    snprintf(want, sizeof want, "%s: No such file or directory", p);
    expect_open_error(p, RT_E_NOTFOUND, want);
}

static void test_not_a_trace(void **state)
{
    expect_open_error(rt_test_write_file("image.png", "\x89PNG\r\n\x1a\n binary"), RT_E_FORMAT,
                      "image.png: not a trace");
    const char *dir = rt_test_tmp_path("emptydir");
    remove_any(dir);
    mkdir(dir, 0777);
    expect_open_error(dir, RT_E_FORMAT, "emptydir: not a trace");
}

static void test_csv_bad_rows(void **state)
{
    static const struct {
        const char *text, *msg;
        int code;
    } cases[] = {
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
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        const char *p = rt_test_write_file("bad.csv", cases[i].text);
        expect_open_error(p, cases[i].code, cases[i].msg);
    }
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

static const char *fresh_archive(const char *name)
{
    const char *dir = rt_test_tmp_path(name);
    remove_any(dir);
    convert(ALL_KINDS, dir, RT_FMT_OTF2);
    return dir;
}

static void test_otf2_damaged(void **state)
{
    char f[1200];
    const char *a = fresh_archive("dmg-anchor");
    snprintf(f, sizeof f, "%s/traces.otf2", a);
    rt_test_write_file("dmg-anchor/traces.otf2", "this is no anchor\n");
    expect_open_error(a, RT_E_FORMAT,
                      "dmg-anchor/traces.otf2: damaged OTF2 anchor file: not an OTF2 anchor "
                      "file (no chunk header)");

    const char *d = fresh_archive("dmg-defs");
    snprintf(f, sizeof f, "%s/traces.def", d);
    struct stat st;
    assert_int_equal(stat(f, &st), 0);
    assert_int_equal(truncate(f, st.st_size / 2), 0);
    expect_open_error(d, RT_E_FORMAT, "dmg-defs: damaged OTF2 archive: definitions unreadable");

    const char *e = fresh_archive("dmg-empty-defs");
    snprintf(f, sizeof f, "%s/traces.def", e);
    assert_int_equal(truncate(f, 0), 0);
    expect_open_error(e, RT_E_FORMAT,
                      "dmg-empty-defs/traces.def: damaged OTF2 archive: cut short (0 bytes "
                      "cannot hold the ");
}

/* A killed run's event file ends early: read up to its last complete event, with a
 * warning that names the rank. */
static OTF2_FlushType no_flush_record(void *data, OTF2_FileType type, OTF2_LocationRef loc,
                                      void *caller, bool final)
{
    return OTF2_FLUSH;
}

/* A 2-rank archive written with OTF2 itself: one communicator (ref 0) of both ranks, and on
 * rank 0 the property retrace::sources::0 (and with dests retrace::destinations::0) naming
 * group ref `group`; group 2 has the one member `member`. */
static void write_nbr_archive(const char *dir, int dests, uint32_t group, uint64_t member)
{
    static const OTF2_FlushCallbacks flush = {.otf2_pre_flush = no_flush_record};
    remove_any(dir);
    OTF2_Archive *a = OTF2_Archive_Open(dir, "traces", OTF2_FILEMODE_WRITE, OTF2_CHUNK_SIZE_MIN,
                                        OTF2_CHUNK_SIZE_DEFINITIONS_DEFAULT, OTF2_SUBSTRATE_POSIX,
                                        OTF2_COMPRESSION_NONE);
    assert_non_null(a);
    assert_int_equal(OTF2_Archive_SetFlushCallbacks(a, &flush, NULL), OTF2_SUCCESS);
    assert_int_equal(OTF2_Archive_SetSerialCollectiveCallbacks(a), OTF2_SUCCESS);
    assert_int_equal(OTF2_Archive_OpenEvtFiles(a), OTF2_SUCCESS);
    for (uint64_t r = 0; r < 2; r++)
        assert_int_equal(OTF2_Archive_CloseEvtWriter(a, OTF2_Archive_GetEvtWriter(a, r)),
                         OTF2_SUCCESS);
    assert_int_equal(OTF2_Archive_CloseEvtFiles(a), OTF2_SUCCESS);
    OTF2_GlobalDefWriter *g = OTF2_Archive_GetGlobalDefWriter(a);
    static const char *const str[] = {
        "", "MPI Rank", "thread", "retrace::sources::0", "retrace::destinations::0", "node"};
    OTF2_GlobalDefWriter_WriteClockProperties(g, 1000000000u, 0, 1, OTF2_UNDEFINED_TIMESTAMP);
    for (uint32_t i = 0; i < 6; i++)
        OTF2_GlobalDefWriter_WriteString(g, i, str[i]);
    OTF2_GlobalDefWriter_WriteSystemTreeNode(g, 0, 5, 5, OTF2_UNDEFINED_SYSTEM_TREE_NODE);
    for (uint32_t r = 0; r < 2; r++) {
        OTF2_GlobalDefWriter_WriteLocationGroup(g, r, 1, OTF2_LOCATION_GROUP_TYPE_PROCESS, 0,
                                                OTF2_UNDEFINED_LOCATION_GROUP);
        OTF2_GlobalDefWriter_WriteLocation(g, r, 2, OTF2_LOCATION_TYPE_CPU_THREAD, 0, r);
    }
    uint64_t both[] = {0, 1};
    OTF2_GlobalDefWriter_WriteGroup(g, 0, 0, OTF2_GROUP_TYPE_COMM_LOCATIONS, OTF2_PARADIGM_MPI,
                                    OTF2_GROUP_FLAG_NONE, 2, both);
    OTF2_GlobalDefWriter_WriteGroup(g, 1, 0, OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI,
                                    OTF2_GROUP_FLAG_NONE, 2, both);
    OTF2_GlobalDefWriter_WriteComm(g, 0, 0, 1, OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE);
    OTF2_GlobalDefWriter_WriteGroup(g, 2, 0, OTF2_GROUP_TYPE_UNKNOWN, OTF2_PARADIGM_MPI,
                                    OTF2_GROUP_FLAG_NONE, 1, &member);
    OTF2_AttributeValue v;
    v.groupRef = group;
    OTF2_GlobalDefWriter_WriteLocationGroupProperty(g, 0, 3, OTF2_TYPE_GROUP, v);
    if (dests)
        OTF2_GlobalDefWriter_WriteLocationGroupProperty(g, 0, 4, OTF2_TYPE_GROUP, v);
    assert_int_equal(OTF2_Archive_Close(a), OTF2_SUCCESS);
}

/* Neighbour-list properties another writer got wrong: one error line each. */
static void test_otf2_bad_nbrs(void **state)
{
    const char *dir = rt_test_tmp_path("nbrs-made");
    write_nbr_archive(dir, 1, 2, 1);
    loaded l;
    rt_err err;
    assert_int_equal(load(dir, &l, &err), 0);
    assert_int_equal(l.defs.nnbrs, 1);
    assert_int_equal(l.defs.nbrs[0].rank, 0);
    assert_int_equal(l.defs.nbrs[0].comm, 0);
    assert_int_equal(l.defs.nbrs[0].in[0], 1);
    assert_int_equal(l.defs.nbrs[0].out[0], 1);
    unload(&l);
    write_nbr_archive(dir, 0, 2, 1);
    expect_open_error(dir, RT_E_FORMAT,
                      "damaged OTF2 archive: location group 0: neighbour lists of communicator "
                      "0 without a process, or not as a pair of sources and destinations");
    write_nbr_archive(dir, 1, 7, 1);
    expect_open_error(dir, RT_E_FORMAT,
                      "damaged OTF2 archive: rank 0: the neighbour list group 7 of "
                      "communicator 0 is missing or not ranks");
    write_nbr_archive(dir, 1, 2, 1ull << 40);
    expect_open_error(dir, RT_E_FORMAT, "rank 0: the neighbour list group 2 of communicator 0");
    write_nbr_archive(dir, 1, 2, 5);
    expect_open_error(dir, RT_E_INVAL,
                      "damaged OTF2 archive: neighbour lists of rank 0 on communicator 0: "
                      "sources 0 is 5, not a rank of the communicator (0 to 1) or none");
}

static void test_otf2_truncated_events(void **state)
{
    const char *a = fresh_archive("cut-otf2");
    char f[1200];
    snprintf(f, sizeof f, "%s/traces/0.evt", a);
    struct stat st;
    assert_int_equal(stat(f, &st), 0);
    assert_int_equal(truncate(f, st.st_size / 2), 0);
    loaded full, cut;
    rt_err err;
    assert_int_equal(load(ALL_KINDS, &full, &err), 0);
    assert_int_equal(load(a, &cut, &err), 0);
    assert_non_null(cut.truncated);
    assert_non_null(strstr(cut.truncated, "trace cut short: rank 0's events end early, after"));
    size_t rank0 = 0, rank0_cut = 0;
    while (rank0 < full.n && full.ev[rank0].rank == 0)
        rank0++;
    while (rank0_cut < cut.n && cut.ev[rank0_cut].rank == 0)
        rank0_cut++;
    assert_true(rank0_cut > 0 && rank0_cut < rank0);
    /* what was read is exactly the start of rank 0, and all of the other ranks */
    for (size_t i = 0; i < rank0_cut; i++)
        assert_true(rt_event_equal(&full.ev[i], &cut.ev[i]));
    assert_int_equal(cut.n - rank0_cut, full.n - rank0);
    for (size_t i = rank0_cut; i < cut.n; i++)
        assert_true(rt_event_equal(&full.ev[rank0 + i - rank0_cut], &cut.ev[i]));
    unload(&cut);

    /* Wherever the cut falls, what is read is a prefix of rank 0's events. */
    const char *b = fresh_archive("cut-otf2-many");
    snprintf(f, sizeof f, "%s/traces/0.evt", b);
    FILE *in = fopen(f, "rb");
    assert_non_null(in);
    static unsigned char bytes[1 << 16];
    size_t size = fread(bytes, 1, sizeof bytes, in);
    fclose(in);
    assert_true(size > 64 && size < sizeof bytes);
    size_t last = 0;
    for (size_t at = 40; at < size - 2; at++) {
        FILE *o = fopen(f, "wb");
        assert_non_null(o);
        assert_int_equal(fwrite(bytes, 1, at, o), at);
        fclose(o);
        assert_int_equal(load(b, &cut, &err), 0);
        assert_non_null(cut.truncated);
        size_t k = 0;
        while (k < cut.n && cut.ev[k].rank == 0)
            k++;
        for (size_t i = 0; i < k; i++)
            if (!rt_event_equal(&full.ev[i], &cut.ev[i]))
                fail_msg("cut at byte %zu: event %zu is not the original", at, i);
        if (k > last)
            last = k;
        unload(&cut);
    }
    assert_true(last >= rank0 - 2);
    unload(&full);
}

/* ---- writers -----------------------------------------------------------------------------------
 */

static void test_writer_checks(void **state)
{
    rt_defs d;
    rt_err err;
    assert_int_equal(rt_defs_init(&d, 2, &err), 0);
    const char *dir = rt_test_tmp_path("nonempty");
    remove_any(dir);
    mkdir(dir, 0777);
    rt_test_write_file("nonempty/keep.txt", "mine\n");
    rt_writer *w;
    assert_int_equal(rt_writer_open(dir, RT_FMT_OTF2, &d, &w, &err), -RT_E_INVAL);
    assert_non_null(strstr(err.msg, "nonempty: directory exists and is not empty"));
    assert_int_equal(rt_trace_remove(dir, &err), -RT_E_INVAL); /* not ours: left alone */
    assert_int_equal(access(rt_test_tmp_path("nonempty/keep.txt"), F_OK), 0);

    const char *out = rt_test_tmp_path("w-otf2");
    remove_any(out);
    assert_int_equal(rt_writer_open(out, RT_FMT_OTF2, &d, &w, &err), 0);
    rt_event ev = {.kind = RT_EV_SEND, .rank = 1, .time = 10, .peer = 0, .bytes = 1};
    assert_int_equal(rt_writer_write(w, &ev, &err), 0);
    ev.time = 9;
    assert_int_equal(rt_writer_write(w, &ev, &err), -RT_E_ORDER);
    assert_non_null(strstr(err.msg, "events out of time order: rank 1 at 9 ns after 10 ns"));
    ev.time = 11;
    ev.peer = 2;
    assert_int_equal(rt_writer_write(w, &ev, &err), -RT_E_INVAL);
    assert_non_null(strstr(err.msg, "send: peer 2 is not a rank of communicator 0"));
    rt_writer_abort(w); /* removes what it wrote */
    assert_int_equal(access(out, F_OK), -1);

    assert_int_equal(rt_writer_open(out, RT_FMT_OTF2, &d, &w, &err), 0);
    assert_int_equal(rt_writer_close(w, &err), 0); /* an archive without events is fine */
    loaded l;
    assert_int_equal(load(out, &l, &err), 0);
    assert_int_equal(l.n, 0);
    assert_int_equal(l.defs.nranks, 2);
    unload(&l);
    assert_int_equal(rt_trace_remove(out, &err), 0);
    assert_int_equal(access(out, F_OK), -1);
    rt_defs_free(&d);
}

/* rt_reader_next_block on formats without blocks of their own: the events of one rank in a
 * row, RT__GATHER (64) at most, the event of the next rank held for the next block, and
 * errors after the events before them. */
static void test_blocks_gathered(void **state)
{
    (void)state;
    rt_reader *r;
    rt_err err;
    const rt_event *ev;
    size_t n;
    rt_event one;
    /* send_ring.csv: rank 0's 6 events, then rank 1's; rt_reader_next takes the held one */
    assert_int_equal(rt_reader_open(RT_TEST_DATA "/send_ring.csv", &r, &err), 0);
    assert_int_equal(rt_reader_next_block(r, &ev, &n, &err), 1);
    assert_int_equal(n, 6);
    assert_int_equal(ev[0].rank, 0);
    assert_int_equal(ev[5].kind, RT_EV_LEAVE);
    assert_int_equal(ev[5].time, 2100);
    assert_int_equal(rt_reader_next(r, &one, &err), 1);
    assert_int_equal(one.rank, 1);
    assert_int_equal(one.kind, RT_EV_ENTER);
    assert_int_equal(rt_reader_next_block(r, &ev, &n, &err), 1);
    assert_int_equal(n, 5);
    assert_int_equal(ev[0].kind, RT_EV_SEND);
    assert_int_equal(ev[4].time, 2100);
    assert_int_equal(rt_reader_next_block(r, &ev, &n, &err), 0);
    assert_int_equal(rt_reader_next(r, &one, &err), 0);
    rt_reader_close(r);

    /* 70 events of one rank: 64, then 6 */
    char text[4096] = "ranks,1\n";
    size_t len = strlen(text);
    for (int i = 0; i < 35; i++)
        len += (size_t)snprintf(text + len, sizeof text - len,
                                "0,%d,enter,MPI_Barrier,,,,,,,,\n0,%d,leave,MPI_Barrier,,,,,,,,\n",
                                10 * i, 10 * i + 5);
    assert_int_equal(rt_reader_open(rt_test_write_file("seventy.csv", text), &r, &err), 0);
    assert_int_equal(rt_reader_next_block(r, &ev, &n, &err), 1);
    assert_int_equal(n, 64);
    assert_int_equal(ev[63].time, 315);
    assert_int_equal(rt_reader_next_block(r, &ev, &n, &err), 1);
    assert_int_equal(n, 6);
    assert_int_equal(ev[5].time, 345);
    assert_int_equal(rt_reader_next_block(r, &ev, &n, &err), 0);
    rt_reader_close(r);

    /* out_of_order.csv: rank 0's event, rank 1's, then the error, and again on asking */
    assert_int_equal(rt_reader_open(RT_TEST_DATA "/out_of_order.csv", &r, &err), 0);
    assert_int_equal(rt_reader_next_block(r, &ev, &n, &err), 1);
    assert_int_equal(n, 1);
    assert_int_equal(ev[0].time, 10);
    assert_int_equal(rt_reader_next_block(r, &ev, &n, &err), 1);
    assert_int_equal(n, 1);
    assert_int_equal(ev[0].rank, 1);
    for (int i = 0; i < 2; i++) {
        assert_int_equal(rt_reader_next_block(r, &ev, &n, &err), -RT_E_ORDER);
        assert_non_null(strstr(err.msg, "out_of_order.csv:4: events out of time order: rank 0 "
                                        "at 9 ns after 10 ns"));
    }
    rt_reader_close(r);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_escape),
        cmocka_unit_test(test_emulated_shapes),
        cmocka_unit_test(test_func_names),
        cmocka_unit_test(test_contype_names),
        cmocka_unit_test(test_error_messages),
        cmocka_unit_test(test_kind_and_op_names),
        cmocka_unit_test(test_kind_classes),
        cmocka_unit_test(test_recv_flag_names),
        cmocka_unit_test(test_event_equal_uses_only_kind_fields),
        cmocka_unit_test(test_defs),
        cmocka_unit_test(test_nbrs),
        cmocka_unit_test(test_nbrs_roundtrip),
        cmocka_unit_test(test_event_check),
        cmocka_unit_test(test_csv_read),
        cmocka_unit_test(test_csv_roundtrip),
        cmocka_unit_test(test_otf2_roundtrip),
        cmocka_unit_test(test_recv_flags_roundtrip),
        cmocka_unit_test(test_otf2_renumbers_sparse_ids),
        cmocka_unit_test(test_missing_file),
        cmocka_unit_test(test_not_a_trace),
        cmocka_unit_test(test_csv_bad_rows),
        cmocka_unit_test(test_csv_truncated),
        cmocka_unit_test(test_otf2_damaged),
        cmocka_unit_test(test_otf2_truncated_events),
        cmocka_unit_test(test_otf2_bad_nbrs),
        cmocka_unit_test(test_writer_checks),
        cmocka_unit_test(test_blocks_gathered),
    };
    return rt_test_main("formats", tests, argc, argv);
}
