/* Unit tests of the SimGrid time-independent (TI) writer (formats/ti_writer*.c): the round
 * trip through TI, what TI cannot say, the collectives' per-rank counts, and ranks
 * interleaved in a trace cut short. */
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

#include "test_ti.h"

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

/* CSV -> TI -> events: the same events (calls take 0 ns in that trace, as in TI); sized:
 * how many events of csv carry element sizes. */
static void round_trip(const char *csv, size_t sized)
{
    rt_test_trace in, back;
    rt_err err;
    assert_int_equal(rt_test_load(csv, &in, &err), 0);
    size_t n = 0;
    for (size_t i = 0; i < in.n; i++)
        n += in.ev[i].esize || in.ev[i].resize;
    assert_int_equal(n, sized);
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

static void test_round_trip(void **state)
{
    (void)state;
    round_trip(ROUNDTRIP, 0);
}

/* Element sizes: a reduction's counts in the datatype of its size (MPI_INT, MPI_DOUBLE ...),
 * read back as the same sizes. */
static void test_round_trip_sizes(void **state)
{
    (void)state;
    round_trip(ROUNDTRIP_SIZES, 15);
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

/* Writing evs is refused with "OUT: msg", and nothing is left behind. */
static void assert_refused(const char *out, const rt_defs *d, const rt_event *evs, size_t n,
                           const char *msg)
{
    rt_err err;
    char want[1200];
    assert_int_equal(write_events(out, d, evs, n, &err), -RT_E_INVAL);
    snprintf(want, sizeof want, "%s: %s", out, msg);
    assert_string_equal(err.msg, want);
    assert_nothing_left(out);
}

/* Existing output, the index or its directory, is never overwritten. */
static void assert_existing_kept(const char *out, const rt_defs *d)
{
    rt_err err;
    char msg[1200], dir[1100];
    rt_test_write_text(out, "x\n");
    assert_int_equal(write_events(out, d, NULL, 0, &err), -RT_E_INVAL);
    snprintf(msg, sizeof msg, "%s: already exists (remove it or choose another name)", out);
    assert_string_equal(err.msg, msg);
    assert_string_equal(read_text(out), "x\n");
    unlink(out);
    snprintf(dir, sizeof dir, "%s_files", out);
    mkdir(dir, 0777);
    assert_int_equal(write_events(out, d, NULL, 0, &err), -RT_E_INVAL);
    snprintf(msg, sizeof msg, "%s: already exists (remove it or choose another name)", dir);
    assert_string_equal(err.msg, msg);
    assert_false(exists(out));
    rmdir(dir);
}

/* What TI cannot say is refused, naming the event, and nothing is left behind. */
static void test_refusals(void **state)
{
    (void)state;
    static const struct {
        size_t n;
        rt_event ev[3];
        const char *msg; /* after "OUT: " */
    } cases[] = {
        {2,
         {{.rank = 0, .time = 0, .kind = RT_EV_ENTER, .call = RT_FN_Send},
          {.rank = 0, .time = 5, .kind = RT_EV_SEND, .call = RT_FN_Send, .comm = 5, .bytes = 4}},
         "rank 0 at 5 ns: send in MPI_Send: communicator 5 is not MPI_COMM_WORLD: TI actions "
         "name world ranks only"},
        {1,
         {{.rank = 1, .time = 3, .kind = RT_EV_NBC_REQUEST, .call = RT_FN_Ibarrier, .req = 1}},
         "rank 1 at 3 ns: nbc_request in MPI_Ibarrier: SimGrid 3.32's replay has no nonblocking "
         "collectives"},
        {1,
         {{.rank = 0, .time = 1, .kind = RT_EV_WIN_CREATE, .call = RT_FN_Win_create}},
         "rank 0 at 1 ns: win_create in MPI_Win_create: SimGrid's TI format has no one-sided "
         "communication"},
        /* A neighbourhood collective has no action. */
        {3,
         {{.kind = RT_EV_ENTER, .call = RT_FN_Neighbor_alltoall},
          {.kind = RT_EV_COLL_END,
           .call = RT_FN_Neighbor_alltoall,
           .op = RT_COLL_NEIGHBOR_ALLTOALL,
           .peer = RT_PEER_NONE},
          {.kind = RT_EV_LEAVE, .call = RT_FN_Neighbor_alltoall}},
         "rank 0 at 0 ns: coll_end in MPI_Neighbor_alltoall: SimGrid 3.32's replay has no "
         "neighbor_alltoall"},
        /* An allgather whose bytes do not split among the ranks. */
        {3,
         {{.kind = RT_EV_ENTER, .call = RT_FN_Allgather},
          {.kind = RT_EV_COLL_END,
           .call = RT_FN_Allgather,
           .op = RT_COLL_ALLGATHER,
           .peer = RT_PEER_NONE,
           .bytes = 2,
           .rbytes = 5},
          {.kind = RT_EV_LEAVE, .call = RT_FN_Allgather}},
         "rank 0 at 0 ns: coll_end in MPI_Allgather: 5 bytes do not split evenly among 2 ranks"},
        /* An Irecv that never completes: its line cannot be written. */
        {3,
         {{.rank = 1, .kind = RT_EV_ENTER, .call = RT_FN_Irecv},
          {.rank = 1, .kind = RT_EV_IRECV_REQUEST, .call = RT_FN_Irecv, .req = 7},
          {.rank = 1, .kind = RT_EV_LEAVE, .call = RT_FN_Irecv}},
         "rank 1: receive request 7 never completes, so its source, tag and size (which a TI "
         "irecv needs) are unknown"},
    };
    rt_defs d;
    rt_err err;
    assert_int_equal(rt_defs_init(&d, 2, &err), 0);
    uint32_t members[2] = {1, 0};
    assert_int_equal(rt_defs_add_comm(&d, 5, RT_COMM_WORLD, 0, 2, 0, members, "rev", &err), 0);
    assert_int_equal(rt_defs_add_win(&d, 0, RT_COMM_WORLD, &err), 0);
    char *out = rt_test_tmp_path("refused.ti");
    remove_any(out);
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
        assert_refused(out, &d, cases[i].ev, cases[i].n, cases[i].msg);
    assert_existing_kept(out, &d);
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

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_round_trip_sizes),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_v_collectives),
        cmocka_unit_test(test_interleaved_and_truncated),
    };
    return rt_test_main("ti_write", tests, argc, argv);
}
