/*
 * Unit tests of the neighbourhood collectives' schedules (replayer/coll/coll_neighbor.c): the
 * exact steps of one rank on small Cartesian grids and graphs, and for whole worlds
 * (Cartesian grids with periodic dimensions of size 1 and 2, non-periodic borders, a
 * multigraph with self loops) that every send has its receive with the same bytes, in the
 * same order, and that the round runs to its end.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_coll.h"

#define NONE RT_PEER_NONE

static const unsigned nbr_ops[] = {RT_COLL_NEIGHBOR_ALLGATHER, RT_COLL_NEIGHBOR_ALLGATHERV,
                                   RT_COLL_NEIGHBOR_ALLTOALL, RT_COLL_NEIGHBOR_ALLTOALLV,
                                   RT_COLL_NEIGHBOR_ALLTOALLW};

/* One rank's lists, stored in the test. */
typedef struct lists {
    int32_t v[64];
    rt_nbr_def def;
} lists;

static void set_lists(lists *l, uint32_t nin, const int32_t *in, uint32_t nout, const int32_t *out)
{
    assert_true(nin + nout <= 64);
    memcpy(l->v, in, nin * sizeof *in);
    memcpy(l->v + nin, out, nout * sizeof *out);
    l->def = (rt_nbr_def){.nin = nin, .nout = nout, .in = l->v, .out = l->v + nin};
}

/* The neighbours MPI_Cart_shift gives rank r of a row-major grid: for each dimension the
 * -1 then the +1 neighbour, NONE past a non-periodic border. In and out alike. */
static void cart_lists(uint32_t ndims, const uint32_t *dims, const int *periods, uint32_t r,
                       lists *l)
{
    uint32_t coord[8], stride[8], s = 1;
    for (uint32_t d = ndims; d-- > 0;) {
        stride[d] = s;
        coord[d] = r / s % dims[d];
        s *= dims[d];
    }
    int32_t v[16];
    for (uint32_t d = 0; d < ndims; d++)
        for (int k = 0; k < 2; k++) {
            int64_t c = (int64_t)coord[d] + (k ? 1 : -1);
            if (c < 0 || c >= dims[d]) {
                if (!periods[d]) {
                    v[2 * d + k] = NONE;
                    continue;
                }
                c = (c + dims[d]) % dims[d];
            }
            v[2 * d + k] = (int32_t)(r + (uint32_t)(c - coord[d]) * stride[d]);
        }
    set_lists(l, 2 * ndims, v, 2 * ndims, v);
}

static uint32_t non_null(const int32_t *v, uint32_t n)
{
    uint32_t k = 0;
    for (uint32_t i = 0; i < n; i++)
        k += v[i] != NONE;
    return k;
}

/* Rank me's schedule under MPICH's choice; fails on an error. */
static int sched(unsigned op, uint32_t p, uint32_t me, const rt_nbr_def *nb, uint64_t bytes,
                 uint64_t rbytes, steps *s)
{
    rt_coll_call c = {
        .op = op, .size = p, .me = me, .root = NONE, .bytes = bytes, .rbytes = rbytes, .nbrs = nb};
    rt_err err = {0};
    int approx = -1;
    int rc = rt_coll_schedule(RT_ALG_MPICH, &c, push, s, &approx, &err);
    if (rc)
        fail_msg("%s rank %u: %s", rt_event_op_name(RT_EV_COLL_END, op), me, err.msg);
    return approx;
}

typedef struct want {
    uint8_t kind;
    int32_t peer;
    uint64_t bytes;
} want;

static void expect_steps(const steps *s, const want *w, size_t n)
{
    assert_int_equal(s->n, n);
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(s->v[i].round, 0);
        assert_int_equal(s->v[i].kind, w[i].kind);
        assert_int_equal(s->v[i].peer, w[i].peer);
        assert_int_equal(s->v[i].bytes, w[i].bytes);
    }
}

/* clang-format off */
#define S(peer, b) {RT_STEP_SEND, peer, b}
#define R(peer, b) {RT_STEP_RECV, peer, b}
/* clang-format on */

void test_nbr_steps(void **state)
{
    (void)state;
    lists l;
    steps s = {0};

    /* 2 x 3 grid, both periodic: rank 4 = (1, 1) has the other row twice, then 3 and 5 */
    static const uint32_t d23[] = {2, 3};
    static const int pp[] = {1, 1}, np[] = {0, 0};
    cart_lists(2, d23, pp, 4, &l);
    static const int32_t want4[] = {1, 1, 3, 5};
    assert_memory_equal(l.def.in, want4, sizeof want4);
    assert_int_equal(sched(RT_COLL_NEIGHBOR_ALLGATHER, 6, 4, &l.def, 32, 32, &s), 0);
    const want ag[] = {S(1, 8), S(1, 8), S(3, 8), S(5, 8), R(1, 8), R(1, 8), R(3, 8), R(5, 8)};
    expect_steps(&s, ag, 8);
    s.n = 0;

    /* a non-periodic line of 3: rank 0's -1 slot is MPI_PROC_NULL, counted in the sizes */
    static const uint32_t d3[] = {3};
    cart_lists(1, d3, np, 0, &l);
    static const int32_t want0[] = {NONE, 1};
    assert_memory_equal(l.def.out, want0, sizeof want0);
    assert_int_equal(sched(RT_COLL_NEIGHBOR_ALLTOALL, 3, 0, &l.def, 10, 10, &s), 0);
    const want a2a[] = {S(1, 5), R(1, 5)};
    expect_steps(&s, a2a, 2);
    s.n = 0;

    /* tests/mpi/coll.c's distributed graph, rank 0: sources 2, 3; destinations 1, 2 */
    static const int32_t in0[] = {2, 3}, out0[] = {1, 2};
    set_lists(&l, 2, in0, 2, out0);
    assert_int_equal(sched(RT_COLL_NEIGHBOR_ALLTOALLV, 4, 0, &l.def, 7, 5, &s), 1);
    const want a2av[] = {S(1, 4), S(2, 3), R(2, 3), R(3, 2)};
    expect_steps(&s, a2av, 4);
    s.n = 0;
    /* allgatherv: one send block (exact), receive total cut */
    assert_int_equal(sched(RT_COLL_NEIGHBOR_ALLGATHERV, 4, 0, &l.def, 8, 9, &s), 1);
    const want agv[] = {S(1, 4), S(2, 4), R(2, 5), R(3, 4)};
    expect_steps(&s, agv, 4);
    s.n = 0;
    /* one source: nothing to cut, exact; alltoallw likewise with one neighbour each way */
    set_lists(&l, 1, in0, 1, out0);
    assert_int_equal(sched(RT_COLL_NEIGHBOR_ALLGATHERV, 4, 0, &l.def, 8, 12, &s), 0);
    const want agv1[] = {S(1, 8), R(2, 12)};
    expect_steps(&s, agv1, 2);
    s.n = 0;
    assert_int_equal(sched(RT_COLL_NEIGHBOR_ALLTOALLW, 4, 0, &l.def, 0, 6, &s), 0);
    const want a2aw1[] = {S(1, 0), R(2, 6)}; /* 0-byte blocks are sent, as MPICH does */
    expect_steps(&s, a2aw1, 2);
    s.n = 0;

    /* no neighbours at all: nothing to do */
    set_lists(&l, 0, in0, 0, out0);
    assert_int_equal(sched(RT_COLL_NEIGHBOR_ALLTOALLV, 4, 3, &l.def, 0, 0, &s), 0);
    assert_int_equal(s.n, 0);

    /* one rank, a periodic dimension of size 1: two messages to itself each way */
    static const uint32_t d1[] = {1};
    cart_lists(1, d1, pp, 0, &l);
    assert_int_equal(sched(RT_COLL_NEIGHBOR_ALLGATHER, 1, 0, &l.def, 8, 8, &s), 0);
    const want self[] = {S(0, 4), S(0, 4), R(0, 4), R(0, 4)};
    expect_steps(&s, self, 4);
    free(s.v);

    rt_coll_totals t;
    cart_lists(2, d23, pp, 4, &l);
    rt_coll_call c = {.op = RT_COLL_NEIGHBOR_ALLTOALL,
                      .size = 6,
                      .me = 4,
                      .root = NONE,
                      .bytes = 400,
                      .rbytes = 400,
                      .nbrs = &l.def};
    assert_int_equal(rt_coll_totals_of(RT_ALG_LINEAR, &c, &t, NULL, NULL), 0);
    assert_int_equal(t.rounds, 1);
    assert_int_equal(t.sends, 4);
    assert_int_equal(t.recvs, 4);
    assert_int_equal(t.send_bytes, 400);
    assert_int_equal(t.reduces, 0);
}

/* Every rank's schedule of op on the given lists with blocks of b bytes; then pairing,
 * execution and the data each rank must have heard of (its sources, for b > 0). */
static void check_world(unsigned op, uint32_t p, const lists *l, uint64_t b, const char *shape)
{
    char what[160];
    snprintf(what, sizeof what, "%s %s b=%llu", rt_event_op_name(RT_EV_COLL_END, op), shape,
             (unsigned long long)b);
    world w;
    memset(&w, 0, sizeof w);
    w.p = p;
    uint64_t sent = 0, slots = 0;
    for (uint32_t me = 0; me < p; me++) {
        const rt_nbr_def *nb = &l[me].def;
        sched(op, p, me, nb, nb->nout * b, nb->nin * b, &w.r[me]);
        slots += non_null(nb->out, nb->nout);
        for (size_t i = 0; i < w.r[me].n; i++)
            if (w.r[me].v[i].kind == RT_STEP_SEND)
                sent += w.r[me].v[i].bytes;
    }
    if (sent != slots * b)
        fail_msg("%s: %llu bytes sent, expected %llu", what, (unsigned long long)sent,
                 (unsigned long long)(slots * b));
    pairing f;
    uint64_t know[MAXP];
    match(&w, &f, what);
    execute(&w, &f, know, what);
    for (uint32_t me = 0; me < p; me++)
        for (uint32_t k = 0; k < l[me].def.nin; k++)
            if (l[me].def.in[k] != NONE && !(know[me] >> l[me].def.in[k] & 1))
                fail_msg("%s: rank %u did not hear from its source %d", what, me, l[me].def.in[k]);
    flat_free(&f);
    world_free(&w);
}

void test_nbr_consistency(void **state)
{
    (void)state;
    static const struct {
        uint32_t ndims, dims[3];
        int periods[3];
    } grids[] = {
        {1, {4}, {1}},
        {1, {2}, {1}},
        {1, {1}, {1}},
        {1, {3}, {0}},
        {1, {2}, {0}},
        {2, {2, 3}, {1, 1}},
        {2, {2, 2}, {1, 0}},
        {2, {1, 4}, {1, 1}},
        {2, {3, 4}, {0, 1}},
        {3, {2, 2, 2}, {1, 1, 1}},
        {3, {2, 1, 3}, {1, 1, 0}},
    };
    static const uint64_t blocks[] = {0, 1, 8, 13};
    lists l[MAXP];
    unsigned runs = 0;
    for (size_t g = 0; g < sizeof grids / sizeof *grids; g++) {
        uint32_t p = 1;
        char shape[64];
        int n = snprintf(shape, sizeof shape, "cart");
        for (uint32_t d = 0; d < grids[g].ndims; d++) {
            p *= grids[g].dims[d];
            n += snprintf(shape + n, sizeof shape - (size_t)n, "%s%u%s", d ? "x" : " ",
                          grids[g].dims[d], grids[g].periods[d] ? "p" : "");
        }
        for (uint32_t r = 0; r < p; r++)
            cart_lists(grids[g].ndims, grids[g].dims, grids[g].periods, r, &l[r]);
        for (size_t o = 0; o < sizeof nbr_ops / sizeof *nbr_ops; o++)
            for (size_t k = 0; k < sizeof blocks / sizeof *blocks; k++, runs++)
                check_world(nbr_ops[o], p, l, blocks[k], shape);
    }

    /* A multigraph on 7 ranks: repeated edges, self loops, a rank with no edges (6). Each
     * rank lists its destinations in edge order and its sources in reverse edge order: the
     * k-th message of a pair still meets the k-th receive. */
    static const uint32_t edges[][2] = {{0, 1}, {1, 2}, {0, 1}, {2, 0}, {3, 3}, {4, 5},
                                        {5, 4}, {3, 3}, {1, 0}, {2, 5}, {5, 2}, {0, 1}};
    const size_t ne = sizeof edges / sizeof *edges;
    int32_t in[7][16], out[7][16];
    uint32_t nin[7] = {0}, nout[7] = {0};
    for (size_t e = 0; e < ne; e++)
        out[edges[e][0]][nout[edges[e][0]]++] = (int32_t)edges[e][1];
    for (size_t e = ne; e-- > 0;)
        in[edges[e][1]][nin[edges[e][1]]++] = (int32_t)edges[e][0];
    for (uint32_t r = 0; r < 7; r++)
        set_lists(&l[r], nin[r], in[r], nout[r], out[r]);
    for (size_t o = 0; o < sizeof nbr_ops / sizeof *nbr_ops; o++)
        for (size_t k = 0; k < sizeof blocks / sizeof *blocks; k++, runs++)
            check_world(nbr_ops[o], 7, l, blocks[k], "multigraph");
    assert_int_equal(runs, (11 + 1) * 5 * 4);
}

void test_nbr_bad_input(void **state)
{
    (void)state;
    static const int32_t in[] = {2, 3}, out[] = {1, 2}, far[] = {1, 4};
    lists l;
    set_lists(&l, 2, in, 2, out);
    rt_coll_call c = {.op = RT_COLL_NEIGHBOR_ALLTOALL,
                      .size = 4,
                      .me = 0,
                      .root = NONE,
                      .bytes = 8,
                      .rbytes = 8,
                      .nbrs = NULL};
    expect_inval(RT_ALG_MPICH, c,
                 "neighbor_alltoall: the trace holds no neighbour lists of "
                 "rank 0 on this communicator");
    c.nbrs = &l.def;
    expect_inval(RT_ALG_DIRECT, c, "no algorithm 'direct' (valid: mpich, ompi, linear)");
    c.bytes = 7;
    expect_inval(RT_ALG_MPICH, c, "bytes (7) is not a multiple of the 2 neighbour blocks");
    c.bytes = 8;
    c.rbytes = 9;
    expect_inval(RT_ALG_LINEAR, c, "rbytes (9) is not a multiple of the 2 neighbour blocks");
    c.op = RT_COLL_NEIGHBOR_ALLGATHERV; /* its receive total is cut, its one send block not */
    int n = 0;
    assert_int_equal(rt_coll_schedule(RT_ALG_MPICH, &c, count_only, &n, NULL, NULL), 0);
    assert_int_equal(n, 4);
    c.bytes = 9;
    expect_inval(RT_ALG_MPICH, c, "neighbor_allgatherv: bytes (9) is not a multiple");
    set_lists(&l, 2, in, 2, far);
    c.bytes = 8;
    expect_inval(RT_ALG_MPICH, c, "destination 1 is rank 4, not in a communicator of 4");
    set_lists(&l, 0, in, 0, out);
    c.op = RT_COLL_NEIGHBOR_ALLTOALLV;
    c.bytes = 0;
    c.rbytes = 4;
    expect_inval(RT_ALG_MPICH, c, "rbytes is 4 with no neighbours to move it");
}
