/* Unit tests of the raw reader's definitions (formats/raw_defs.c): the rank-local ids of
 * communicators, groups and windows unified into global ones, the unified trace written as
 * CSV and OTF2, neighbour lists, and bad definitions. Raw files are written here by hand
 * (test_raw.h). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "rt_test_main.h"

#include "test_raw.h"

/* ---- unification of local ids ------------------------------------------------------------- */

static const uint32_t world4[] = {0, 1, 2, 3};
static const uint32_t evens[] = {0, 2}, odds[] = {1, 3};
static const uint32_t merged[] = {0, 2, 1, 3};

/* Local ids of each rank (different on purpose). */
enum { SPLIT, DUP1, DUP2, CG1, CG2, INTER, MERGE, WIN_DUP, WIN_WORLD, WIN_SELF, GROUP, NLOCAL };
static const uint32_t local_ids[4][NLOCAL] = {
    {2, 3, 4, 0, 0, 5, 6, 0, 1, 0, 0},
    {7, 8, 9, 10, 11, 12, 13, 5, 6, 0, 3},
    {3, 5, 8, 0, 0, 9, 10, 1, 2, 3, 4},
    {2, 3, 4, 5, 6, 7, 8, 0, 1, 2, 9},
};

/* Four ranks: split into evens and odds, two dups, two Comm_create_group on the odds, an
 * inter-communicator between evens and odds and its merge, windows on a dup, on world and on
 * self, and PSCW groups. */
static const char *unify_trace(void)
{
    const char *dir = fresh_dir("unify");
    for (uint32_t r = 0; r < 4; r++) {
        const uint32_t *id = local_ids[r];
        const uint32_t *mine = r % 2 ? odds : evens, *other = r % 2 ? evens : odds;
        rbuf d = defs_file(r, 4);
        def_comm(&d, id[SPLIT], 0, RT_FN_Comm_split, 0, 0, 2, 0, mine);
        def_comm(&d, id[DUP1], 0, RT_FN_Comm_dup, 1, 0, 4, 0, world4);
        def_comm(&d, id[DUP2], 0, RT_FN_Comm_dup, 2, 0, 4, 0, world4);
        if (r % 2) {
            def_comm(&d, id[CG1], 0, RT_FN_Comm_create_group, 0, 7, 2, 0, odds);
            def_comm(&d, id[CG2], 0, RT_FN_Comm_create_group, 0, 7, 2, 0, odds);
        }
        uint32_t inter[4];
        memcpy(inter, mine, sizeof evens);
        memcpy(inter + 2, other, sizeof evens);
        def_comm(&d, id[INTER], id[SPLIT], RT_FN_Intercomm_create, 1, 9, 2, 2, inter);
        def_comm(&d, id[MERGE], id[INTER], RT_FN_Intercomm_merge, 0, 0, 4, 0, merged);
        def_win(&d, id[WIN_DUP], id[DUP1], 0);
        def_win(&d, id[WIN_WORLD], 0, 3);
        if (r >= 2)
            def_win(&d, id[WIN_SELF], 1, 0);
        def_group(&d, id[GROUP], 2, other);
        save_defs(dir, r, &d);
    }
    rbuf t[4];
    for (uint32_t r = 0; r < 4; r++) {
        t[r] = thread_file(r, 4, 0);
        call(&t[r], RT_FN_Send, 10, 1);
    }
    p2p(&t[1], 0, RT_EV_SEND, local_ids[1][SPLIT], 1, 0, 8, 0); /* to world rank 3 */
    p2p(&t[0], 0, RT_EV_SEND, local_ids[0][INTER], 1, 0, 8, 0); /* to 3 */
    p2p(&t[3], 0, RT_EV_SEND, local_ids[3][INTER], 0, 0, 8, 0); /* to 0 */
    p2p(&t[2], 0, RT_EV_SEND, local_ids[2][MERGE], 2, 0, 8, 0); /* to 1 */
    call(&t[3], RT_FN_Send, 20, 1);
    p2p(&t[3], 0, RT_EV_SEND, local_ids[3][CG2], 0, 0, 8, 0); /* to 1 */
    call(&t[2], RT_FN_Put, 20, 1);
    event(&t[2], 0, RT_EV_RMA_PUT, 0, local_ids[2][WIN_DUP], 3, 8, 0, 1); /* to 3 */
    call(&t[2], RT_FN_Put, 30, 1);
    event(&t[2], 0, RT_EV_RMA_PUT, 0, local_ids[2][WIN_SELF], 0, 8, 0, 2); /* to itself */
    call(&t[0], RT_FN_Win_post, 20, 1);
    event(&t[0], 1, RT_EV_RMA_GROUP_SYNC, RT_PSCW_POST, local_ids[0][WIN_WORLD],
          (int32_t)local_ids[0][GROUP], 0, 0, 0);
    call(&t[1], RT_FN_Win_start, 20, 1);
    event(&t[1], 1, RT_EV_RMA_GROUP_SYNC, RT_PSCW_START, local_ids[1][WIN_WORLD],
          (int32_t)local_ids[1][GROUP], 0, 0, 0);
    for (uint32_t r = 0; r < 4; r++) {
        close_rec(&t[r], 100);
        save_thread(dir, r, 0, &t[r]);
    }
    return dir;
}

static void expect_comm(const rt_defs *d, uint32_t id, uint32_t parent, const char *name,
                        uint32_t size, uint32_t rsize, const uint32_t *members)
{
    const rt_comm_def *c = rt_defs_comm(d, id);
    assert_non_null(c);
    assert_int_equal(c->parent, parent);
    assert_string_equal(c->name, name);
    assert_int_equal(c->size, size);
    assert_int_equal(c->remote_size, rsize);
    assert_int_equal(!!(c->flags & RT_COMM_IS_INTER), rsize > 0);
    assert_memory_equal(c->members, members, (size + rsize) * sizeof *members);
}

static void test_unify(void **state)
{
    loaded l;
    load_ok(unify_trace(), &l);
    assert_null(l.truncated);
    const rt_defs *d = &l.defs;
    /* by first appearance: rank 0's definitions, then rank 1's new ones */
    const uint32_t inter0[] = {0, 2, 1, 3};
    assert_int_equal(d->ncomms, 10);
    expect_comm(d, 2, 0, "MPI_Comm_split", 2, 0, evens);
    expect_comm(d, 3, 0, "MPI_Comm_dup", 4, 0, world4);
    expect_comm(d, 4, 0, "MPI_Comm_dup", 4, 0, world4);
    expect_comm(d, 5, 2, "MPI_Intercomm_create", 2, 2, inter0);
    expect_comm(d, 6, 5, "MPI_Intercomm_merge", 4, 0, merged);
    expect_comm(d, 7, 0, "MPI_Comm_split", 2, 0, odds);
    expect_comm(d, 8, 0, "MPI_Comm_create_group", 2, 0, odds);
    expect_comm(d, 9, 0, "MPI_Comm_create_group", 2, 0, odds);
    assert_int_equal(d->nwins, 4);
    assert_int_equal(rt_defs_win(d, 0)->comm, 3);
    assert_int_equal(rt_defs_win(d, 1)->comm, 0);
    assert_int_equal(rt_defs_win(d, 2)->comm, 1); /* rank 2's own window on self */
    assert_int_equal(rt_defs_win(d, 3)->comm, 1); /* rank 3's */
    assert_int_equal(d->ngroups, 2);
    assert_memory_equal(rt_defs_group(d, 0)->members, odds, sizeof odds);
    assert_memory_equal(rt_defs_group(d, 1)->members, evens, sizeof evens);

    /* events on the unified communicators and windows, their peers as world ranks */
    static const struct {
        uint32_t rank;
        size_t k;
        uint32_t comm;
        int64_t world;
    } sends[] = {
        {1, 1, 7, 3}, /* on rank 1's split */
        {0, 1, 5, 3}, /* on the inter-communicator */
        {3, 1, 5, 0}, /* on it from the other side */
        {2, 1, 6, 1}, /* on its merge */
        {3, 4, 9, 1}, /* on the second create_group */
        {2, 4, 0, 3}, /* a put on the window on a dup */
        {2, 7, 2, 2}, /* a put on rank 2's window on self */
    };
    for (size_t i = 0; i < sizeof sends / sizeof *sends; i++) {
        const rt_event *e = nth_of_rank(&l, sends[i].rank, sends[i].k);
        assert_int_equal(e->comm, sends[i].comm);
        assert_int_equal(rt_defs_peer_world(d, e), sends[i].world);
    }
    assert_int_equal(nth_of_rank(&l, 2, 4)->kind, RT_EV_RMA_PUT);
    const rt_event *e = nth_of_rank(&l, 0, 4);
    assert_int_equal(e->kind, RT_EV_RMA_GROUP_SYNC);
    assert_int_equal(e->comm, 1);
    assert_int_equal(e->peer, 0);
    e = nth_of_rank(&l, 1, 4);
    assert_int_equal(e->peer, 1);
    rt_test_unload(&l);
}

/*
 * The MPI-4 constructors from groups (no parent: MPI_COMM_WORLD is written; the tag is a hash
 * of the string tag) are matched as Comm_create_group and Intercomm_create are, but never
 * with them: on the odd ranks a Comm_create_group and two Comm_create_from_group with the same
 * tag number and members (rank 3 makes the Comm_create_group last), on all an Intercomm_create and
 * an Intercomm_create_from_groups of the evens and odds with the same tag number. Local ids differ
 * between ranks.
 */
static void test_unify_from_groups(void **state)
{
    enum { CG, FG1, FG2, IC, IFG, N };
    static const uint32_t ids[4][N] = {
        {0, 0, 0, 2, 3}, {2, 3, 4, 5, 6}, {0, 0, 0, 7, 4}, {9, 5, 4, 3, 2}};
    const char *dir = fresh_dir("from_groups");
    for (uint32_t r = 0; r < 4; r++) {
        const uint32_t *id = ids[r];
        const uint32_t *mine = r % 2 ? odds : evens, *other = r % 2 ? evens : odds;
        uint32_t inter[4];
        memcpy(inter, mine, sizeof evens);
        memcpy(inter + 2, other, sizeof evens);
        rbuf d = defs_file(r, 4);
        if (r == 1) /* a Comm_create_group, then the two from the group */
            def_comm(&d, id[CG], 0, RT_FN_Comm_create_group, 0, 7, 2, 0, odds);
        if (r % 2) {
            def_comm(&d, id[FG1], 0, RT_FN_Comm_create_from_group, 0, 7, 2, 0, odds);
            def_comm(&d, id[FG2], 0, RT_FN_Comm_create_from_group, 0, 7, 2, 0, odds);
        }
        if (r == 3) /* the Comm_create_group last (another thread, say) */
            def_comm(&d, id[CG], 0, RT_FN_Comm_create_group, 0, 7, 2, 0, odds);
        for (int k = 0; k < 2; k++) /* ranks 2 and 3 in the other order */
            if ((k == 0) == (r < 2))
                def_comm(&d, id[IC], 0, RT_FN_Intercomm_create, 0, 9, 2, 2, inter);
            else
                def_comm(&d, id[IFG], 0, RT_FN_Intercomm_create_from_groups, 0, 9, 2, 2, inter);
        save_defs(dir, r, &d);
    }
    rbuf t[4];
    for (uint32_t r = 0; r < 4; r++) {
        t[r] = thread_file(r, 4, 0);
        call(&t[r], RT_FN_Send, 10, 1);
    }
    p2p(&t[3], 0, RT_EV_SEND, ids[3][FG2], 0, 0, 8, 0); /* to world rank 1 */
    p2p(&t[1], 0, RT_EV_SEND, ids[1][FG1], 1, 0, 8, 0); /* to 3 */
    p2p(&t[2], 0, RT_EV_SEND, ids[2][IFG], 1, 0, 8, 0); /* to 3 */
    p2p(&t[0], 0, RT_EV_SEND, ids[0][IC], 0, 0, 8, 0);  /* to 1 */
    for (uint32_t r = 0; r < 4; r++) {
        close_rec(&t[r], 100);
        save_thread(dir, r, 0, &t[r]);
    }
    loaded l;
    load_ok(dir, &l);
    const rt_defs *d = &l.defs;
    const uint32_t inter0[] = {0, 2, 1, 3};
    assert_int_equal(d->ncomms, 7); /* world, self and five: none merged with another */
    expect_comm(d, 2, 0, "MPI_Intercomm_create", 2, 2, inter0);
    expect_comm(d, 3, 0, "MPI_Intercomm_create_from_groups", 2, 2, inter0);
    expect_comm(d, 4, 0, "MPI_Comm_create_group", 2, 0, odds);
    expect_comm(d, 5, 0, "MPI_Comm_create_from_group", 2, 0, odds);
    expect_comm(d, 6, 0, "MPI_Comm_create_from_group", 2, 0, odds);
    static const struct {
        uint32_t rank, comm;
        int64_t world;
    } sends[] = {{3, 6, 1}, {1, 5, 3}, {2, 3, 3}, {0, 2, 1}};
    for (size_t i = 0; i < sizeof sends / sizeof *sends; i++) {
        const rt_event *e = nth_of_rank(&l, sends[i].rank, 1);
        assert_int_equal(e->kind, RT_EV_SEND);
        assert_int_equal(e->comm, sends[i].comm);
        assert_int_equal(rt_defs_peer_world(d, e), sends[i].world);
    }
    rt_test_unload(&l);
}

/* The unified definitions and events are a valid trace: CSV and OTF2 keep them. */
static void test_convert(void **state)
{
    loaded raw;
    load_ok(unify_trace(), &raw);
    const char *out[2] = {RT_TEST_TMP "/unify.csv", RT_TEST_TMP "/unify-otf2"};
    rt_format fmt[2] = {RT_FMT_CSV, RT_FMT_OTF2};
    for (int k = 0; k < 2; k++) {
        loaded back;
        rewrite(&raw, out[k], fmt[k], &back);
        assert_int_equal(back.n, raw.n);
        for (uint32_t r = 0; r < 4; r++) { /* rank by rank: formats interleave ranks freely */
            assert_int_equal(count_rank(&back, r), count_rank(&raw, r));
            for (size_t i = 0; i < count_rank(&raw, r); i++)
                assert_true(rt_event_equal(nth_of_rank(&raw, r, i), nth_of_rank(&back, r, i)));
        }
        assert_int_equal(back.defs.ncomms, raw.defs.ncomms);
        assert_int_equal(back.defs.nwins, raw.defs.nwins);
        assert_int_equal(back.defs.ngroups, raw.defs.ngroups);
        rt_test_unload(&back);
    }
    rt_test_unload(&raw);
}

/* ---- bad definitions --------------------------------------------------------------------------
 */

/* Case i of test_bad_defs: its bad definition (or pair of them) appended to d. */
static void bad_def(rbuf *d, size_t i)
{
    static const uint32_t two[] = {0, 1}, far[] = {0, 5};
    switch (i) {
    case 0:
        def_comm(d, 2, 7, RT_FN_Comm_dup, 0, 0, 2, 0, two);
        break;
    case 1:
        def_comm(d, 2, 0, RT_FN_Comm_split, 0, 0, 2, 0, far);
        break;
    case 2: {
        rt_raw_def_comm c = {.id = 2, .how = RT_FN_Comm_dup, .size = 2};
        def(d, RT_RAW_DEF_COMM, &c, sizeof c, two, 1);
        break;
    }
    case 3:
        def_comm(d, 2, 0, RT_FN_Comm_dup, 0, 0, 2, 0, two);
        def_comm(d, 2, 0, RT_FN_Comm_dup, 1, 0, 2, 0, two);
        break;
    case 4:
        def_comm(d, 2, 0, 999, 0, 0, 2, 0, two);
        break;
    case 5:
        def_win(d, 0, 4, 0);
        break;
    case 6: {
        rt_raw_def h = {.type = RT_RAW_DEF, .what = RT_RAW_DEF_GROUP, .nbytes = 4096};
        put(d, &h, sizeof h);
        break;
    }
    case 7: {
        rt_raw_def h = {.type = RT_RAW_DEF, .what = 9, .nbytes = 0};
        put(d, &h, sizeof h);
        break;
    }
    case 8:
        def_comm(d, 2, 0, RT_FN_Comm_split, 0, 0, 1, 0, two + 1);
        break;
    case 9:
        def_comm(d, 2, 0, RT_FN_Intercomm_create_from_groups, 0, 5, 2, 0, two);
        break;
    }
}

static void test_bad_defs(void **state)
{
    static const uint32_t two[] = {0, 1};
    struct {
        const char *name, *msg;
    } cases[] = {
        {"def-parent",
         "r0.defs.rtr: offset 64: communicator 2: parent communicator 7 is not defined"},
        {"def-member",
         "r0.defs.rtr: offset 64: communicator 2: member 5 is not a world rank (0 to 1)"},
        {"def-short",
         "r0.defs.rtr: offset 64: communicator 2: 2 members do not fit a payload of 36 bytes"},
        {"def-twice", "r0.defs.rtr: offset 128: communicator 2 is defined twice"},
        {"def-how", "r0.defs.rtr: offset 64: communicator 2: unknown creating function 999"},
        {"def-win", "r0.defs.rtr: offset 64: window 0: communicator 4 is not defined"},
        {"def-huge",
         "r0.defs.rtr: offset 64: a definition of 4096 bytes does not fit a trace of 2 ranks"},
        {"def-kind", "r0.defs.rtr: offset 64: unknown definition kind 9"},
        {"def-notme", "r0.defs.rtr: offset 64: communicator 2: rank 0 is not in its local group"},
        {"def-fromgroups", "r0.defs.rtr: offset 64: communicator 2: "
                           "MPI_Intercomm_create_from_groups without a remote group"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        rbuf d = defs_file(0, 2);
        bad_def(&d, i);
        const char *dir = fresh_dir(cases[i].name);
        save_defs(dir, 0, &d);
        expect_error(dir, RT_E_FORMAT, cases[i].msg);
    }

    /* two ranks disagree on the members of one communicator */
    const char *dir = fresh_dir("def-disagree");
    for (uint32_t r = 0; r < 2; r++) {
        rbuf d = defs_file(r, 2);
        const uint32_t rev[] = {1, 0};
        def_comm(&d, 2, 0, RT_FN_Comm_dup, 0, 0, 2, 0, r ? rev : two);
        save_defs(dir, r, &d);
    }
    expect_error(dir, RT_E_FORMAT,
                 "r1.defs.rtr: offset 64: communicator 2 (MPI_Comm_dup) has other members than the "
                 "same communicator on a lower rank");

    /* a definitions file cut in the middle of a record: the record is left out */
    dir = fresh_dir("def-cut");
    rbuf d = defs_file(0, 2);
    def_comm(&d, 2, 0, RT_FN_Comm_dup, 0, 0, 2, 0, two);
    def_comm(&d, 3, 0, RT_FN_Comm_dup, 1, 0, 2, 0, two);
    save_cut(dir, "r0.defs.rtr", &d, 64 + 64 + 20);
    d = defs_file(1, 2);
    save_defs(dir, 1, &d);
    for (uint32_t r = 0; r < 2; r++) {
        rbuf t = thread_file(r, 2, 0);
        close_rec(&t, 1);
        save_thread(dir, r, 0, &t);
    }
    loaded l;
    load_ok(dir, &l);
    assert_int_equal(l.defs.ncomms, 3);
    assert_non_null(l.truncated);
    if (!strstr(l.truncated, "r0.defs.rtr: definitions cut short at offset 128"))
        fail_msg("%s", l.truncated);
    rt_test_unload(&l);
}

/* ---- neighbour lists ------------------------------------------------------------------------ */

/* Each rank's lists arrive under its own local id of the communicator; MPI_PROC_NULL slots
 * and repeated neighbours are kept; CSV and OTF2 keep them too. */
static void test_neighbor_lists(void **state)
{
    const char *dir = fresh_dir("nbrs");
    static const uint32_t two[] = {0, 1}, one[] = {1};
    static const int32_t in0[] = {1, RT_PEER_NONE, 1}, out0[] = {RT_PEER_NONE, 1};
    static const int32_t in1[] = {0}, out1[] = {0, 0, RT_PEER_NONE};
    rbuf d = defs_file(0, 2);
    def_comm(&d, 2, 0, RT_FN_Comm_dup, 0, 0, 2, 0, two);
    def_comm(&d, 3, 0, RT_FN_Cart_create, 1, 0, 2, 0, two);
    def_nbrs(&d, 3, 3, in0, 2, out0);
    save_defs(dir, 0, &d);
    d = defs_file(1, 2);
    def_comm(&d, 2, 1, RT_FN_Comm_dup, 0, 0, 1, 0, one); /* a duplicate of self first */
    def_comm(&d, 3, 0, RT_FN_Comm_dup, 0, 0, 2, 0, two);
    def_comm(&d, 4, 0, RT_FN_Cart_create, 1, 0, 2, 0, two);
    def_nbrs(&d, 4, 1, in1, 3, out1);
    save_defs(dir, 1, &d);
    for (uint32_t r = 0; r < 2; r++) {
        rbuf t = thread_file(r, 2, 0);
        call(&t, RT_FN_Neighbor_alltoall, 5, 5);
        coll(&t, RT_EV_COLL_END, RT_COLL_NEIGHBOR_ALLTOALL, r ? 4 : 3, RT_PEER_NONE,
             8 * (r ? 3 : 2), 8 * (r ? 1 : 3));
        close_rec(&t, 20);
        save_thread(dir, r, 0, &t);
    }
    loaded raw;
    load_ok(dir, &raw);
    const char *out[2] = {RT_TEST_TMP "/nbrs.csv", RT_TEST_TMP "/nbrs-otf2"};
    rt_format fmt[2] = {RT_FMT_CSV, RT_FMT_OTF2};
    for (int k = -1; k < 2; k++) {
        loaded back, *l = &raw;
        if (k >= 0) { /* through CSV and OTF2 */
            rewrite(&raw, out[k], fmt[k], &back);
            l = &back;
        }
        const rt_defs *defs = &l->defs;
        assert_int_equal(defs->ncomms, 5);
        assert_int_equal(defs->nnbrs, 2);
        uint32_t cart = nth_of_rank(l, 0, 2)->comm; /* enter, coll_begin, coll_end */
        assert_int_equal(nth_of_rank(l, 1, 2)->comm, cart);
        assert_string_equal(rt_defs_comm(defs, cart)->name, "MPI_Cart_create");
        const rt_nbr_def *n0 = rt_defs_nbrs(defs, cart, 0), *n1 = rt_defs_nbrs(defs, cart, 1);
        assert_non_null(n0);
        assert_non_null(n1);
        assert_null(rt_defs_nbrs(defs, RT_COMM_WORLD, 0));
        assert_int_equal(n0->nin, 3);
        assert_int_equal(n0->nout, 2);
        assert_memory_equal(n0->in, in0, sizeof in0);
        assert_memory_equal(n0->out, out0, sizeof out0);
        assert_int_equal(n1->nin, 1);
        assert_int_equal(n1->nout, 3);
        assert_memory_equal(n1->in, in1, sizeof in1);
        assert_memory_equal(n1->out, out1, sizeof out1);
        /* 1 sends to 0 twice and 0 receives from 1 twice; 0 to 1 once each way */
        assert_int_equal(rt_defs_nbrs_check(defs, NULL), 0);
        if (k >= 0)
            rt_test_unload(&back);
    }
    rt_test_unload(&raw);
}

static void test_bad_neighbor_lists(void **state)
{
    static const uint32_t two[] = {0, 1}, three[] = {1, 0, 1};
    static const int32_t ok[] = {1, 0}, far[] = {1, 2};
    struct {
        const char *name, *msg;
    } cases[] = {
        {"nbrs-comm", "r0.defs.rtr: offset 64: neighbour lists: communicator 9 is not defined"},
        {"nbrs-rank",
         "r0.defs.rtr: offset 128: neighbour lists of rank 0 on communicator 2: destinations 1 "
         "is 2, not a rank of the communicator (0 to 1) or none"},
        {"nbrs-short",
         "r0.defs.rtr: offset 128: neighbour lists on communicator 2: 2 sources and 2 "
         "destinations do not fit a payload of 28 bytes"},
        {"nbrs-twice", "r0.defs.rtr: offset 176: neighbour lists of rank 0 on communicator 2 "
                       "are defined twice"},
        {"nbrs-huge",
         "r0.defs.rtr: offset 64: neighbour lists of 4294967295 bytes: more than 1048576 "
         "neighbours a list"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        rbuf d = defs_file(0, 2);
        if (i == 0) {
            def_nbrs(&d, 9, 2, ok, 2, ok);
        } else if (i == 4) {
            rt_raw_def h = {.type = RT_RAW_DEF, .what = RT_RAW_DEF_NBRS, .nbytes = UINT32_MAX};
            put(&d, &h, sizeof h);
        } else {
            def_comm(&d, 2, 0, RT_FN_Graph_create, 0, 0, 2, 0, two);
            if (i == 1) {
                def_nbrs(&d, 2, 2, ok, 2, far);
            } else if (i == 2) {
                rt_raw_def_nbrs h = {.comm = 2, .nin = 2, .nout = 2};
                def(&d, RT_RAW_DEF_NBRS, &h, sizeof h, three, 3);
            } else {
                def_nbrs(&d, 2, 2, ok, 2, ok);
                def_nbrs(&d, 2, 2, ok, 2, ok);
            }
        }
        const char *dir = fresh_dir(cases[i].name);
        save_defs(dir, 0, &d);
        expect_error(dir, RT_E_FORMAT, cases[i].msg);
    }
}

/* ---- hosts ---------------------------------------------------------------------------------- */

/* A host record (rt_raw_def_host) in the defs file of rank; cpus NULL: the count only. */
static void host_defs(const char *dir, uint32_t rank, const char *name, uint32_t online,
                      uint32_t ncpus, const char *cpus, uint16_t name_len)
{
    rbuf d = defs_file(rank, 2);
    unsigned char buf[512];
    rt_raw_def_host h = {.online = online,
                         .ncpus = ncpus,
                         .name_len = name_len,
                         .cpus_len = (uint16_t)(cpus ? strlen(cpus) : 0)};
    memcpy(buf, &h, sizeof h);
    memcpy(buf + sizeof h, name, strlen(name));
    if (cpus)
        memcpy(buf + sizeof h + strlen(name), cpus, h.cpus_len);
    def(&d, RT_RAW_DEF_HOST, buf, sizeof h + strlen(name) + h.cpus_len, NULL, 0);
    save_defs(dir, rank, &d);
}

/* Each rank's host as its defs file gives it; damaged host records refused. */
static void test_hosts(void **state)
{
    (void)state;
    const char *dir = fresh_dir("hosts");
    host_defs(dir, 0, "node-a", 8, 2, "0,4", 6);
    host_defs(dir, 1, "node-a", 8, 8, NULL, 6);
    for (uint32_t rank = 0; rank < 2; rank++) {
        rbuf t = thread_file(rank, 2, 0);
        close_rec(&t, 10);
        save_thread(dir, rank, 0, &t);
    }
    loaded raw;
    load_ok(dir, &raw);
    assert_int_equal(raw.defs.nhosts, 1);
    assert_string_equal(raw.defs.hosts[0].name, "node-a");
    assert_int_equal(raw.defs.hosts[0].online, 8);
    assert_string_equal(raw.defs.rank_host[0].cpus, "0,4");
    assert_int_equal(raw.defs.rank_host[1].ncpus, 8);
    assert_null(raw.defs.rank_host[1].cpus);
    rt_test_unload(&raw);
    host_defs(dir, 0, "node-a", 8, 2, "0,4", 200);
    expect_error(dir, RT_E_FORMAT,
                 "r0.defs.rtr: offset 64: host definition of 25 bytes: its lengths do not fit");
    host_defs(dir, 0, "node/a", 8, 2, "0,4", 6);
    expect_error(dir, RT_E_FORMAT,
                 "r0.defs.rtr: offset 64: host of rank 0: not a host name (1 to 64 letters, "
                 "digits, '-', '.' and '_')");
    host_defs(dir, 0, "node-a", 8, 3, "0,4", 6);
    expect_error(dir, RT_E_FORMAT,
                 "r0.defs.rtr: offset 64: host of rank 0: 3 CPUs allowed, but its list 0,4 has 2");
}
int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_unify),          cmocka_unit_test(test_unify_from_groups),
        cmocka_unit_test(test_convert),        cmocka_unit_test(test_bad_defs),
        cmocka_unit_test(test_neighbor_lists), cmocka_unit_test(test_bad_neighbor_lists),
        cmocka_unit_test(test_hosts),
    };
    return rt_test_main("raw_defs", tests, argc, argv);
}
