/*
 * The engine against the analytic collective costs (DESIGN.md "Cost models", from the
 * Intro-to-MPI seed): under the plain alpha-beta model (o = 0, never rendezvous, one message
 * at a time per sender, no contention) and p a power of two, the predicted time of every
 * algorithm that has a formula is the formula, exactly, in picoseconds. Message and byte
 * counts follow from the same textbook schedules.
 *
 * alpha = 1 us, 1/beta = 1000 ps per byte, g = 1/reduce_bandwidth = 2000 ps per byte. The
 * seed's n differs by op, and so does what a rank records (docs/tracer.md): bcast, reduce,
 * allreduce: the message; gather, allgather: one rank's block; scatter: the root's whole
 * buffer; reduce_scatter: the whole vector; alltoall: one rank's send buffer.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "test_sim.h"

#define ALPHA US
#define PS_B 1000ULL /* 1/beta */
#define G_B 2000ULL  /* g */

typedef struct expect {
    uint64_t ps, msgs, bytes;
} expect;

/* The seed's formula and the schedule's counts for p = 2^lg ranks and size n (above). */
static expect formula(unsigned op, unsigned alg, uint64_t p, uint64_t n)
{
    uint64_t lg = 0, q = n / p, a = ALPHA, b = PS_B, g = G_B;
    while ((1ULL << lg) < p)
        lg++;
    /* a binomial tree moves each non-root rank's subtree once: sum of subtree sizes p lg/2 */
    uint64_t tree = p * lg / 2;
    switch (op) {
    case RT_COLL_BCAST:
        switch (alg) {
        case RT_ALG_BINOMIAL: /* log p (alpha + n/beta) */
            return (expect){lg * (a + n * b), p - 1, (p - 1) * n};
        case RT_ALG_SCATTER_RING: /* alpha (p - 1 + log p) + 2 n/beta (p-1)/p */
            return (expect){a * (p - 1 + lg) + 2 * q * (p - 1) * b, p - 1 + p * (p - 1),
                            q * tree + (p - 1) * n};
        case RT_ALG_SCATTER_RDB: /* 2 alpha log p + 2 n/beta (p-1)/p */
            return (expect){2 * a * lg + 2 * q * (p - 1) * b, p - 1 + p * lg,
                            q * tree + (p - 1) * n};
        default: /* linear: (p - 1)(alpha + n/beta) */
            return (expect){(p - 1) * (a + n * b), p - 1, (p - 1) * n};
        }
    case RT_COLL_GATHER: /* alpha log p + (p - 1) n/beta, n the block */
        return (expect){a * lg + (p - 1) * n * b, p - 1, n * tree};
    case RT_COLL_SCATTER: /* alpha log p + (p-1)/p n/beta, n the root's buffer */
        return (expect){a * lg + (p - 1) * q * b, p - 1, q * tree};
    case RT_COLL_ALLGATHER:
        switch (alg) {
        case RT_ALG_RING: /* (p - 1)(alpha + n/beta) */
            return (expect){(p - 1) * (a + n * b), p * (p - 1), p * (p - 1) * n};
        case RT_ALG_RDB: /* swap: alpha log p + (p - 1) n/beta */
            return (expect){a * lg + (p - 1) * n * b, p * lg, p * (p - 1) * n};
        default: /* gather + bcast: 2 alpha log p + n/beta ((p - 1) + p log p) */
            return (expect){2 * a * lg + n * b * (p - 1 + p * lg), 2 * (p - 1),
                            n * tree + (p - 1) * p * n};
        }
    case RT_COLL_REDUCE:
        if (alg == RT_ALG_BINOMIAL) /* log p (alpha + n/beta + n g) */
            return (expect){lg * (a + n * b + n * g), p - 1, (p - 1) * n};
        /* reduce-scatter (swap) + gather: 2 alpha log p + 2 n/beta (p-1)/p + g n (p-1)/p */
        return (expect){2 * a * lg + 2 * q * (p - 1) * b + q * (p - 1) * g, p * lg + p - 1,
                        (p - 1) * n + lg * n / 2};
    case RT_COLL_REDUCE_SCATTER:
    case RT_COLL_REDUCE_SCATTER_BLOCK:
        if (alg == RT_ALG_RECURSIVE_HALVING) /* alpha log p + n/beta (p-1)/p + g n (p-1)/p */
            return (expect){a * lg + q * (p - 1) * (b + g), p * lg, (p - 1) * n};
        /* ring: alpha (p - 1) + n/beta (p-1)/p + g n (p-1)/p. Pairwise has no formula of
         * its own in the seed; its p - 1 rounds each move and combine one piece, so the
         * ring's formula is its cost too. */
        return (expect){a * (p - 1) + q * (p - 1) * (b + g), p * (p - 1), (p - 1) * n};
    case RT_COLL_ALLREDUCE:
        switch (alg) {
        case RT_ALG_REDUCE_BCAST: /* 2 log p (alpha + n/beta + n g/2) */
            return (expect){2 * lg * (a + n * b) + lg * n * g, 2 * (p - 1), 2 * (p - 1) * n};
        case RT_ALG_RING: /* 2 (p - 1) alpha + 2 n/beta (p-1)/p + g n (p-1)/p */
            return (expect){2 * (p - 1) * a + 2 * q * (p - 1) * b + q * (p - 1) * g,
                            2 * p * (p - 1), 2 * (p - 1) * n};
        default: /* rabenseifner: 2 alpha log p + 2 n/beta (p-1)/p + g n (p-1)/p */
            return (expect){2 * a * lg + 2 * q * (p - 1) * b + q * (p - 1) * g, 2 * p * lg,
                            2 * (p - 1) * n};
        }
    case RT_COLL_ALLTOALL: /* direct and pairwise: (p - 1)(alpha + n/(beta p)) */
        return (expect){(p - 1) * (a + q * b), p * (p - 1), (p - 1) * n};
    default: /* barrier, dissemination: alpha log p */
        return (expect){a * lg, p * lg, 0};
    }
}

/* Each op with its MPI function and the algorithms that have a formula. */
static const struct coll_op {
    unsigned op;
    const char *fn;
    int rooted;
    unsigned algs[5];
} ops[] = {
    {RT_COLL_BCAST,
     "MPI_Bcast",
     1,
     {RT_ALG_BINOMIAL, RT_ALG_SCATTER_RING, RT_ALG_SCATTER_RDB, RT_ALG_LINEAR}},
    {RT_COLL_GATHER, "MPI_Gather", 1, {RT_ALG_BINOMIAL}},
    {RT_COLL_SCATTER, "MPI_Scatter", 1, {RT_ALG_BINOMIAL}},
    {RT_COLL_ALLGATHER, "MPI_Allgather", 0, {RT_ALG_RING, RT_ALG_RDB, RT_ALG_GATHER_BCAST}},
    {RT_COLL_REDUCE, "MPI_Reduce", 1, {RT_ALG_BINOMIAL, RT_ALG_RABENSEIFNER}},
    {RT_COLL_REDUCE_SCATTER,
     "MPI_Reduce_scatter",
     0,
     {RT_ALG_RING, RT_ALG_PAIRWISE, RT_ALG_RECURSIVE_HALVING}},
    {RT_COLL_REDUCE_SCATTER_BLOCK,
     "MPI_Reduce_scatter_block",
     0,
     {RT_ALG_RING, RT_ALG_PAIRWISE, RT_ALG_RECURSIVE_HALVING}},
    {RT_COLL_ALLREDUCE,
     "MPI_Allreduce",
     0,
     {RT_ALG_REDUCE_BCAST, RT_ALG_RING, RT_ALG_RABENSEIFNER}},
    {RT_COLL_ALLTOALL, "MPI_Alltoall", 0, {RT_ALG_DIRECT, RT_ALG_PAIRWISE}},
    {RT_COLL_BARRIER, "MPI_Barrier", 0, {RT_ALG_DISSEMINATION}},
};

/* What rank me records for the seed's n (docs/tracer.md, "Collectives"). */
static void recorded(unsigned op, uint64_t p, uint32_t me, uint32_t root, uint64_t n,
                     uint64_t *bytes, uint64_t *rbytes)
{
    int at_root = me == root;
    switch (op) {
    case RT_COLL_BCAST:
        *bytes = at_root ? n : 0;
        *rbytes = at_root ? 0 : n;
        break;
    case RT_COLL_GATHER: /* n = the block */
        *bytes = n;
        *rbytes = at_root ? p * n : 0;
        break;
    case RT_COLL_SCATTER: /* n = the root's buffer */
        *bytes = at_root ? n : 0;
        *rbytes = n / p;
        break;
    case RT_COLL_ALLGATHER: /* n = the block */
        *bytes = n;
        *rbytes = p * n;
        break;
    case RT_COLL_REDUCE:
        *bytes = n;
        *rbytes = at_root ? n : 0;
        break;
    case RT_COLL_REDUCE_SCATTER: /* sum(recvcounts), recvcounts[me] */
    case RT_COLL_REDUCE_SCATTER_BLOCK:
        *bytes = n;
        *rbytes = n / p;
        break;
    case RT_COLL_ALLREDUCE:
    case RT_COLL_ALLTOALL: /* p*s, p*r */
        *bytes = *rbytes = n;
        break;
    default:
        *bytes = *rbytes = 0;
        break;
    }
}

static rt_sim_trace *coll_trace(const struct coll_op *o, uint32_t p, uint32_t root, uint64_t n)
{
    st_text t = {0};
    st_add(&t, "ranks,%u\n", (unsigned)p);
    for (uint32_t r = 0; r < p; r++) {
        uint64_t b, rb;
        recorded(o->op, p, r, root, n, &b, &rb);
        char rootf[16] = "";
        if (o->rooted)
            snprintf(rootf, sizeof rootf, "%u", (unsigned)root);
        st_add(&t, "%u,0,enter,%s,,,,,,,,\n%u,0,coll_begin,%s,,,,,,,,\n", (unsigned)r, o->fn,
               (unsigned)r, o->fn);
        st_add(&t, "%u,5,coll_end,%s,0,%s,,%llu,%llu,,,%s\n%u,5,leave,%s,,,,,,,,\n", (unsigned)r,
               o->fn, rootf, (unsigned long long)b, (unsigned long long)rb,
               rt_event_op_name(RT_EV_COLL_END, o->op), (unsigned)r, o->fn);
    }
    rt_sim_trace *tr = st_load(t.s);
    st_free(&t);
    return tr;
}

/* Every op, algorithm, p in 2..64 (64: alltoall direct runs two batches of 32 peers), three
 * sizes (one of 1 MiB), roots 0 and p - 1. Every disagreement is printed before the test
 * fails, so that one run shows them all. */
void test_sim_coll_formulas(void **state)
{
    (void)state;
    static const uint32_t ps[] = {2, 4, 8, 16, 32, 64};
    static const uint64_t sizes[] = {256, 24576, 1048576};
    unsigned bad = 0, runs = 0;
    rt_sim_config c;
    st_alpha_beta(&c);
    for (size_t oi = 0; oi < sizeof ops / sizeof ops[0]; oi++) {
        const struct coll_op *o = &ops[oi];
        for (size_t pi = 0; pi < sizeof ps / sizeof ps[0]; pi++) {
            uint32_t p = ps[pi];
            for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
                uint64_t n = o->op == RT_COLL_BARRIER ? 0 : sizes[si];
                for (uint32_t root = 0; root < p; root += p - 1) {
                    rt_sim_trace *t = coll_trace(o, p, root, n);
                    for (size_t ai = 0; ai < 5 && o->algs[ai]; ai++) {
                        unsigned alg = o->algs[ai];
                        assert_true(rt_coll_alg_valid(o->op, alg));
                        c.alg[o->op] = (uint8_t)alg;
                        rt_sim_result res;
                        st_run(t, &c, &res);
                        expect e = formula(o->op, alg, p, n);
                        runs++;
                        const char *note = o->op == RT_COLL_REDUCE_SCATTER
                                               ? "reduce_scatter: per-peer sizes are not "
                                                 "recorded; equal blocks assumed\n"
                                               : NULL;
                        int notes_ok = note ? res.notes && !strcmp(res.notes, note) : !res.notes;
                        if (!res.completed || res.report || !notes_ok || res.time_ps != e.ps ||
                            res.messages != e.msgs || res.bytes != e.bytes) {
                            bad++;
                            print_error("%s %s p=%u n=%llu root=%u: %llu ps (formula %llu), "
                                        "%llu messages (%llu), %llu bytes (%llu)%s%s%s%s\n",
                                        rt_event_op_name(RT_EV_COLL_END, o->op),
                                        rt_coll_alg_name(alg), (unsigned)p, (unsigned long long)n,
                                        (unsigned)root, (unsigned long long)res.time_ps,
                                        (unsigned long long)e.ps, (unsigned long long)res.messages,
                                        (unsigned long long)e.msgs, (unsigned long long)res.bytes,
                                        (unsigned long long)e.bytes,
                                        res.completed ? "" : ", not completed: ",
                                        res.report ? res.report : "", notes_ok ? "" : ", notes: ",
                                        notes_ok ? "" : (res.notes ? res.notes : "none"));
                        }
                        rt_sim_result_free(&res);
                    }
                    rt_sim_trace_free(t);
                    if (!o->rooted)
                        break;
                }
                if (o->op == RT_COLL_BARRIER)
                    break;
            }
        }
    }
    print_message("%u replays against the formulas, %u disagree\n", runs, bad);
    assert_int_equal(bad, 0);
}

/* The lead's check through the command line, as a fixed point: 8 ranks, 8192 bytes. */
void test_sim_coll_bcast_8x8192(void **state)
{
    (void)state;
    static const struct {
        unsigned alg;
        uint64_t ps;
    } want[] = {{RT_ALG_BINOMIAL, 27576000},
                {RT_ALG_SCATTER_RING, 24336000},
                {RT_ALG_SCATTER_RDB, 20336000},
                {RT_ALG_LINEAR, 64344000}};
    rt_sim_trace *t = coll_trace(&ops[0], 8, 0, 8192);
    rt_sim_config c;
    st_alpha_beta(&c);
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        c.alg[RT_COLL_BCAST] = (uint8_t)want[i].alg;
        rt_sim_result res;
        st_run(t, &c, &res);
        assert_int_equal(res.time_ps, want[i].ps);
        assert_int_equal(formula(RT_COLL_BCAST, want[i].alg, 8, 8192).ps, want[i].ps);
        rt_sim_result_free(&res);
    }
    rt_sim_trace_free(t);
}

/* At 16384 ranks the engine looks ahead in its queue (sim_core.c, PREFETCH_RANKS) and its
 * bigger arrays are huge-page mappings (sim_realloc_lines): the formulas still hold to the
 * picosecond, and a rank's second identical call, which runs on its kept schedule, takes
 * exactly as long as the first. */
void test_sim_coll_large(void **state)
{
    (void)state;
    static const struct {
        unsigned op, alg;
        uint64_t n;
    } cases[] = {{RT_COLL_ALLREDUCE, RT_ALG_RABENSEIFNER, 65536},
                 {RT_COLL_ALLGATHER, RT_ALG_RDB, 64},
                 {RT_COLL_BCAST, RT_ALG_BINOMIAL, 4096},
                 {RT_COLL_BARRIER, RT_ALG_DISSEMINATION, 0}};
    const uint32_t p = 16384;
    rt_sim_config c;
    st_alpha_beta(&c);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const struct coll_op *o = NULL;
        for (size_t k = 0; k < sizeof ops / sizeof ops[0]; k++)
            if (ops[k].op == cases[i].op)
                o = &ops[k];
        assert_non_null(o);
        c.alg[o->op] = (uint8_t)cases[i].alg;
        expect e = formula(o->op, cases[i].alg, p, cases[i].n);
        rt_sim_trace *t = coll_trace(o, p, 0, cases[i].n);
        rt_sim_result res;
        st_run(t, &c, &res);
        assert_int_equal(res.completed, 1);
        assert_null(res.report);
        assert_int_equal(res.time_ps, e.ps);
        assert_int_equal(res.messages, e.msgs);
        assert_int_equal(res.bytes, e.bytes);
        assert_int_equal(res.events, 4 * (uint64_t)p);
        rt_sim_result_free(&res);
        rt_sim_trace_free(t);
    }

    /* two allreduces back to back: every rank ends the first at the same time */
    st_text txt = {0};
    uint64_t b, rb;
    st_add(&txt, "ranks,%u\n", (unsigned)p);
    for (uint32_t r = 0; r < p; r++) {
        recorded(RT_COLL_ALLREDUCE, p, r, 0, 65536, &b, &rb);
        for (int k = 0; k < 2; k++)
            st_add(&txt,
                   "%u,0,enter,MPI_Allreduce,,,,,,,,\n%u,0,coll_begin,MPI_Allreduce,,,,,,,,\n"
                   "%u,0,coll_end,MPI_Allreduce,0,,,%llu,%llu,,,allreduce\n"
                   "%u,0,leave,MPI_Allreduce,,,,,,,,\n",
                   (unsigned)r, (unsigned)r, (unsigned)r, (unsigned long long)b,
                   (unsigned long long)rb, (unsigned)r);
    }
    rt_sim_trace *t = st_load(txt.s);
    st_free(&txt);
    c.alg[RT_COLL_ALLREDUCE] = RT_ALG_RABENSEIFNER;
    expect e = formula(RT_COLL_ALLREDUCE, RT_ALG_RABENSEIFNER, p, 65536);
    rt_sim_result res;
    st_run(t, &c, &res);
    assert_int_equal(res.completed, 1);
    assert_int_equal(res.time_ps, 2 * e.ps);
    assert_int_equal(res.messages, 2 * e.msgs);
    assert_int_equal(res.bytes, 2 * e.bytes);
    for (uint32_t r = 0; r < p; r++)
        assert_int_equal(res.ranks[r].end_ps, 2 * e.ps);
    rt_sim_result_free(&res);
    rt_sim_trace_free(t);
}

/* One allreduce of 16 bytes on 4 ranks: 4 floats, 2 doubles, or no recorded size (guessed:
 * 8 bytes, as doubles). With reduce_element = 700 ps every reduction also costs 700 ps an
 * element (docs/model.md): recursive doubling combines all 16 bytes in each of its 2 rounds,
 * 4 floats or 2 doubles, so the floats take 2 x 4 x 700 and the doubles 2 x 2 x 700 ps more
 * than the formula; Rabenseifner's rounds combine 8 and 4 bytes, 2 + 1 floats: 3 x 700 more.
 * Without the key all three take the formula's time. Each with and without the fast path. */
void test_sim_coll_reduce_element(void **state)
{
    (void)state;
    static const struct {
        const char *size; /* the S/R column */
        uint64_t rdb_elems, rab_elems;
    } kinds[] = {{"4/4", 2 * 4, 2 + 1}, {"8/8", 2 * 2, 0}, {"", 2 * 2, 0}};
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
        st_text txt = {0};
        st_add(&txt, "ranks,4\n%s", *kinds[k].size ? "elem_sizes\n" : "");
        for (unsigned r = 0; r < 4; r++)
            st_add(&txt,
                   "%u,0,enter,MPI_Allreduce,,,,,,,,\n%u,0,coll_begin,MPI_Allreduce,,,,,,,,\n"
                   "%u,0,coll_end,MPI_Allreduce,0,,,16,16,,,allreduce%s%s\n"
                   "%u,0,leave,MPI_Allreduce,,,,,,,,\n",
                   r, r, r, *kinds[k].size ? "," : "", kinds[k].size, r);
        rt_sim_trace *t = st_load(txt.s);
        st_free(&txt);
        for (unsigned alg = 0; alg < 2; alg++) {
            if (alg && !kinds[k].rab_elems) /* fewer doubles than ranks: no Rabenseifner */
                continue;
            unsigned a = alg ? RT_ALG_RABENSEIFNER : RT_ALG_RDB;
            /* recursive doubling: log p (alpha + n/beta + g n), no formula above */
            uint64_t base =
                alg ? formula(RT_COLL_ALLREDUCE, a, 4, 16).ps : 2 * (ALPHA + 16 * PS_B + 16 * G_B);
            uint64_t elems = alg ? kinds[k].rab_elems : kinds[k].rdb_elems;
            for (unsigned v = 0; v < 4; v++) {
                rt_sim_config c;
                st_alpha_beta(&c);
                c.alg[RT_COLL_ALLREDUCE] = (uint8_t)a;
                c.model.reduce_element_ps = v & 1 ? 700 : 0;
                c.no_fast_coll = (int)(v >> 1);
                rt_sim_result res;
                st_run(t, &c, &res);
                assert_int_equal(res.completed, 1);
                assert_int_equal(res.time_ps, base + (v & 1 ? elems * 700 : 0));
                rt_sim_result_free(&res);
            }
        }
        rt_sim_trace_free(t);
    }
}
