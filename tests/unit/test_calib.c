/*
 * Unit tests of the calibration's fit and outputs (replayer/calib/calib_fit.c, calib_out.c): the
 * one-way time the fit matches is the one the engine charges (checked by replaying
 * ping-pong traces), curves made by the model give its parameters back, and the model
 * file written with comments loads back to the same model.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "rt_test_main.h"

#include <math.h>

#include "rt__calib.h"
#include "rt_calib_from.h"
#include "rt_test.h"
#include "test_sim.h"

#define KiB 1024ULL
#define MiB (1024ULL * 1024ULL)

/* shm: L = 250 ns, o = 100 ns, B = 10 GB/s (100 ps per byte), eager up to 8192 bytes;
 * gw hops: L = 1 us, B = 1 GB/s, gateway chunks of 1 KiB. */
static void model(rt_net_model *m)
{
    rt_net_model_default(m);
    m->link[RT_CT_SHM] = (rt_net_link){
        .latency_ps = 250 * NS, .overhead_ps = 100 * NS, .bandwidth = 10000000000, .eager = 8192};
    m->link[RT_CT_GW] = (rt_net_link){
        .latency_ps = US, .overhead_ps = 100 * NS, .bandwidth = 1000000000, .eager = 65536};
    m->gw_mtu = 1024;
}

/* The same with protocol rates: eager data at 5 GB/s (shm) and 500 MB/s (gw), rendezvous
 * messages 1.2 us (shm) and 3 us (gw) more. */
static void model_rates(rt_net_model *m)
{
    model(m);
    m->link[RT_CT_SHM].eager_bandwidth = 5000000000;
    m->link[RT_CT_SHM].rendezvous_ps = 1200 * NS;
    m->link[RT_CT_GW].eager_bandwidth = 500000000;
    m->link[RT_CT_GW].rendezvous_ps = 3 * US;
}

/* ---- the one-way time ---------------------------------------------------------------------- */

static void test_oneway(void **state)
{
    (void)state;
    rt_net_model m;
    model(&m);
    /* eager: o + L + n/B + o */
    assert_int_equal(rt_calib_model_oneway(&m, RT_CT_SHM, 0), 450 * NS);
    assert_int_equal(rt_calib_model_oneway(&m, RT_CT_SHM, 8192), 450 * NS + 819200);
    /* rendezvous: 3o + 3L + n/B */
    assert_int_equal(rt_calib_model_oneway(&m, RT_CT_SHM, 8193), 1050 * NS + 819300);
    /* gw: two hops of 1 KiB chunks (docs/model.md: 2500 bytes take 7.524 us on the wire) */
    assert_int_equal(rt_calib_model_oneway(&m, RT_CT_GW, 2500), 200 * NS + 7524 * NS);
    /* gw rendezvous: 3o + 2L (one hop each way for the handshake) + wire */
    uint64_t wire = rt_net_wire_ps(&m, RT_CT_GW, 100000, 0);
    assert_int_equal(rt_calib_model_oneway(&m, RT_CT_GW, 100000), 300 * NS + 2 * US + wire);
    /* with protocol rates: eager at 200 ps a byte, rendezvous 1.2 us more */
    model_rates(&m);
    assert_int_equal(rt_calib_model_oneway(&m, RT_CT_SHM, 8192), 450 * NS + 8192 * 200);
    assert_int_equal(rt_calib_model_oneway(&m, RT_CT_SHM, 8193), 2250 * NS + 819300);
}

/* k round trips of n bytes between ranks 0 and 1, no computation between calls. */
static char *pingpong_trace(unsigned k, uint64_t n)
{
    st_text t = {0};
    st_add(&t, "ranks,2\n");
    for (unsigned r = 0; r < 2; r++)
        for (unsigned i = 0; i < 2 * k; i++) {
            int sending = (i % 2 == 0) == (r == 0);
            const char *fn = sending ? "MPI_Send" : "MPI_Recv";
            st_add(&t, "%u,0,enter,%s,,,,,,,,\n", r, fn);
            st_add(&t, "%u,0,%s,%s,0,%u,0,%llu,,shm,,\n", r, sending ? "send" : "recv", fn, 1 - r,
                   (unsigned long long)n);
            st_add(&t, "%u,0,leave,%s,,,,,,,,\n", r, fn);
        }
    return t.s;
}

/* The engine replays a ping-pong in exactly 2k one-way times, for eager and rendezvous
 * sizes, on a node and through a gateway, with either injection rule: the fit matches
 * what a replay will charge. */
static void test_oneway_is_the_engines(void **state)
{
    (void)state;
    static const uint64_t sizes[] = {0, 1, 8192, 8193, 65536, 65537, 1000000};
    static const uint32_t same[2] = {0, 0}, apart[2] = {0, 1};
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
        char *csv = pingpong_trace(3, sizes[s]);
        rt_sim_trace *tr = st_load(csv);
        for (int v = 0; v < 8; v++) { /* gw or shm, injection rule, protocol rates or not */
            int gw = v & 1, inj = v >> 1 & 1, rates = v >> 2;
            rt_sim_config c;
            rt_sim_config_default(&c);
            if (rates)
                model_rates(&c.model);
            else
                model(&c.model);
            c.model.injection = inj ? RT_NET_INJECT_BYTES : RT_NET_INJECT_MESSAGE;
            c.node = gw ? apart : same;
            c.module = gw ? apart : same;
            rt_sim_result res;
            st_run(tr, &c, &res);
            assert_int_equal(res.completed, 1);
            uint64_t one = rt_calib_model_oneway(&c.model, gw ? RT_CT_GW : RT_CT_SHM, sizes[s]);
            assert_int_equal(res.time_ps, 6 * one);
            rt_sim_result_free(&res);
        }
        rt_sim_trace_free(tr);
        free(csv);
    }
}

/* ---- the fit ------------------------------------------------------------------------------- */

/* 0 and powers of two up to max, timed by the model (times scaled by 1 + noise * (-1)^i). */
static size_t curve(const rt_net_model *m, unsigned ct, uint64_t max, double noise,
                    rt_calib_point *pts)
{
    size_t n = 0;
    for (uint64_t b = 0; b <= max; b = b ? 2 * b : 1) {
        double f = 1 + (n % 2 ? -noise : noise);
        uint64_t t = rt_calib_model_oneway(m, ct, b);
        pts[n++] = (rt_calib_point){
            .bytes = b, .time_ps = (uint64_t)llround((double)t * f), .median_ps = t};
    }
    return n;
}

static void test_fit_recovers(void **state)
{
    (void)state;
    rt_net_model m, f;
    rt_calib_point pts[RT_CALIB_MAX_POINTS];
    for (unsigned v = 0; v < 4; v++) {
        unsigned ct = v & 1 ? RT_CT_GW : RT_CT_SHM;
        if (v < 2)
            model(&m);
        else
            model_rates(&m);
        size_t n = curve(&m, ct, 4 * MiB, 0, pts);
        assert_int_equal(n, 24);
        f = m;
        f.link[ct].latency_ps = 7 * US; /* to be replaced */
        f.link[ct].bandwidth = 1;
        f.link[ct].eager_bandwidth = 2;
        f.link[ct].rendezvous_ps = 3;
        rt_calib_fit fit;
        rt_err err = {0};
        assert_int_equal(rt_calib_fit_link(&f, ct, pts, n, &fit, &err), 0);
        assert_int_equal(f.link[ct].latency_ps, m.link[ct].latency_ps);
        assert_int_equal(f.link[ct].bandwidth, m.link[ct].bandwidth);
        assert_int_equal(f.link[ct].overhead_ps, m.link[ct].overhead_ps);
        assert_int_equal(f.link[ct].eager_bandwidth, m.link[ct].eager_bandwidth);
        assert_int_equal(f.link[ct].rendezvous_ps, m.link[ct].rendezvous_ps);
        assert_int_equal(fit.overhead_fitted, 0);
        assert_true(fit.err_max < 1e-9);
        for (size_t i = 0; i < n; i++)
            assert_int_equal(pts[i].model_ps, pts[i].time_ps);
    }
}

/* Sizes no batch of which ran undisturbed are left out: wild times there change nothing. */
static void test_fit_disturbed(void **state)
{
    (void)state;
    rt_net_model m, f;
    model_rates(&m);
    rt_calib_point pts[RT_CALIB_MAX_POINTS];
    size_t n = curve(&m, RT_CT_SHM, 4 * MiB, 0, pts);
    pts[0].time_ps = pts[3].time_ps = 270 * US; /* a scheduler's time slice, not MPI */
    pts[0].disturbed = pts[3].disturbed = 1;
    f = m;
    f.link[RT_CT_SHM].latency_ps = 0;
    rt_calib_fit fit;
    assert_int_equal(rt_calib_fit_link(&f, RT_CT_SHM, pts, n, &fit, NULL), 0);
    assert_memory_equal(&f.link[RT_CT_SHM], &m.link[RT_CT_SHM], sizeof m.link[RT_CT_SHM]);
    assert_true(fit.err_max < 1e-9);
    assert_int_equal(pts[3].model_ps, rt_calib_model_oneway(&m, RT_CT_SHM, 4));
}

/* +-3% alternating noise: parameters within a few per cent, median error 3%. */
static void test_fit_noise(void **state)
{
    (void)state;
    rt_net_model m, f;
    model(&m);
    rt_calib_point pts[RT_CALIB_MAX_POINTS];
    size_t n = curve(&m, RT_CT_SHM, 4 * MiB, 0.03, pts);
    f = m;
    rt_calib_fit fit;
    assert_int_equal(rt_calib_fit_link(&f, RT_CT_SHM, pts, n, &fit, NULL), 0);
    assert_true(fabs((double)f.link[RT_CT_SHM].latency_ps - 250e3) <= 30e3);
    assert_true(fabs((double)f.link[RT_CT_SHM].bandwidth - 1e10) <= 0.03e10);
    assert_true(fit.err_median > 0.025 && fit.err_median < 0.035);
    assert_true(fit.err_max < 0.06);
}

/* Overheads measured too large for the curve: latency 0, o fitted instead. */
static void test_fit_overhead(void **state)
{
    (void)state;
    rt_net_model m, f;
    model(&m);
    m.link[RT_CT_SHM].latency_ps = 0;
    m.link[RT_CT_SHM].overhead_ps = 150 * NS;
    rt_calib_point pts[RT_CALIB_MAX_POINTS];
    size_t n = curve(&m, RT_CT_SHM, 1 * MiB, 0, pts);
    f = m;
    f.link[RT_CT_SHM].overhead_ps = 400 * NS; /* 2o > the 300 ns of an empty message */
    rt_calib_fit fit;
    assert_int_equal(rt_calib_fit_link(&f, RT_CT_SHM, pts, n, &fit, NULL), 0);
    assert_int_equal(fit.overhead_fitted, 1);
    assert_int_equal(f.link[RT_CT_SHM].latency_ps, 0);
    assert_int_equal(f.link[RT_CT_SHM].overhead_ps, 150 * NS);
    assert_int_equal(f.link[RT_CT_SHM].bandwidth, 10000000000);
}

static void test_fit_errors(void **state)
{
    (void)state;
    rt_net_model m;
    model(&m);
    rt_calib_point pts[3] = {{.bytes = 0, .time_ps = 900000},
                             {.bytes = 1024, .time_ps = 600000},
                             {.bytes = 2048, .time_ps = 300000}};
    rt_calib_fit fit;
    rt_err err = {0};
    assert_int_equal(rt_calib_fit_link(&m, RT_CT_SHM, pts, 1, &fit, &err), -RT_E_INVAL);
    assert_string_equal(err.msg, "[shm] fewer than two sizes measured undisturbed: nothing to fit");
    pts[1].disturbed = 1; /* two sizes, one of them disturbed: still too few */
    assert_int_equal(rt_calib_fit_link(&m, RT_CT_SHM, pts, 2, &fit, &err), -RT_E_INVAL);
    assert_string_equal(err.msg, "[shm] fewer than two sizes measured undisturbed: nothing to fit");
    pts[1].disturbed = 0;
    rt_net_model before = m;
    assert_int_equal(rt_calib_fit_link(&m, RT_CT_NET, pts, 3, &fit, &err), -RT_E_INVAL);
    assert_string_equal(err.msg, "[net] no bandwidth fits: the measured times do not grow "
                                 "with the message size");
    assert_memory_equal(&m, &before, sizeof m);

    /* Times that grow faster than they start: the line's fixed part is below zero (-500 ns
     * beside 2 o), which is no latency, not 2^64 - 500 ns wrapped by a cast. */
    m.link[RT_CT_SHM].overhead_ps = 0;
    rt_calib_point neg[4];
    for (unsigned i = 0; i < 4; i++) {
        uint64_t b = KiB << i;
        neg[i] = (rt_calib_point){.bytes = b, .time_ps = b * 1000 - 500 * NS};
    }
    assert_int_equal(rt_calib_fit_link(&m, RT_CT_SHM, neg, 4, &fit, &err), 0);
    assert_int_equal(m.link[RT_CT_SHM].latency_ps, 0);
    assert_true(m.link[RT_CT_SHM].overhead_ps < US); /* whatever the fit makes of it, small */
}

static void test_fit_rate(void **state)
{
    (void)state;
    uint64_t bytes[4] = {1024, 8192, 65536, 1048576}, ps[4];
    for (int i = 0; i < 4; i++)
        ps[i] = bytes[i] * 200; /* 5 GB/s */
    assert_int_equal(rt_calib_fit_rate(bytes, ps, 4), 5000000000);
    ps[0] = 0;
    assert_int_equal(rt_calib_fit_rate(bytes, ps, 4), 5000000000);
    assert_int_equal(rt_calib_fit_rate(bytes, ps, 1), 0);
    /* 4 significant digits: 3 ps per byte is 333.3 GB/s */
    for (int i = 0; i < 4; i++)
        ps[i] = bytes[i] * 3;
    assert_int_equal(rt_calib_fit_rate(bytes, ps, 4), 333300000000);
}

/* Doubles and floats: 100 ps a byte (10 GB/s) and 670 ps an element give both back; the same
 * cost per element for both, or floats far cheaper, give a cost per byte alone. */
static void test_fit_reduce(void **state)
{
    (void)state;
    uint64_t cnt[4] = {128, 1024, 16384, 131072}, d[4], f[4], bw, el;
    for (int i = 0; i < 4; i++) {
        d[i] = cnt[i] * (8 * 100 + 670);
        f[i] = cnt[i] * (4 * 100 + 670);
    }
    assert_int_equal(rt_calib_fit_reduce(cnt, d, f, 4, &bw, &el), 1);
    assert_int_equal(bw, 10000000000);
    assert_int_equal(el, 670);
    for (int i = 0; i < 4; i++)
        f[i] = d[i] = cnt[i] * 800;
    assert_int_equal(rt_calib_fit_reduce(cnt, d, f, 4, &bw, &el), 0);
    assert_int_equal(bw, 10000000000);
    assert_int_equal(el, 0);
    for (int i = 0; i < 4; i++) {
        d[i] = cnt[i] * 1600;
        f[i] = cnt[i] * 400;
    }
    assert_int_equal(rt_calib_fit_reduce(cnt, d, f, 4, &bw, &el), 0);
    assert_int_equal(bw, 5000000000);
    assert_int_equal(el, 0);
    d[0] = d[1] = d[2] = d[3] = 0; /* nothing measured */
    assert_int_equal(rt_calib_fit_reduce(cnt, d, f, 4, &bw, &el), -1);
    assert_int_equal(bw, 0);
}

/* ---- the model file ------------------------------------------------------------------------ */

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    static char buf[16384];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

/* With no notes the writer's output is the plain one; notes land under their headers. */
static void test_write_notes(void **state)
{
    (void)state;
    rt_net_model m;
    model(&m);
    char *plain = rt_test_tmp_path("plain.conf"), *noted = rt_test_tmp_path("noted.conf");
    FILE *f = fopen(plain, "w");
    assert_int_equal(rt_net_model_write(&m, f), 0);
    fclose(f);
    f = fopen(noted, "w");
    assert_int_equal(rt_net_model_write_notes(&m, NULL, f), 0);
    fclose(f);
    char *a = strdup(slurp(plain));
    assert_string_equal(slurp(noted), a);
    free(a);
    const char *notes[RT_CT_COUNT] = {"first\nsecond", NULL, "on\n\nthe node"};
    f = fopen(noted, "w");
    assert_int_equal(rt_net_model_write_notes(&m, notes, f), 0);
    fclose(f);
    const char *text = slurp(noted);
    assert_non_null(strstr(text, "from built-in defaults\n# first\n# second\ngateways = 1\n"));
    assert_non_null(strstr(text, "\n[loop]\nlatency = "));
    assert_non_null(strstr(text, "\n[shm]\n# on\n#\n# the node\nlatency = 250ns\n"));
}

/* A result as a 2-rank run on one node leaves it: the file loads back to the model, and its
 * comments say what was measured and what was kept. */
static void test_write_result(void **state)
{
    (void)state;
    rt_net_model m;
    model(&m);
    static rt_calib_result res;
    memset(&res, 0, sizeof res);
    res.nranks = 2;
    res.nnodes = 1;
    res.nmodules = 1;
    snprintf(res.placement, sizeof res.placement, "nodes from MPI_COMM_TYPE_SHARED");
    snprintf(res.library, sizeof res.library, "MPICH Version: 4.0.2");
    snprintf(res.base, sizeof res.base, "built-in defaults");
    res.seconds = 1.25;
    res.reduce_bandwidth = 5000000000;
    res.reduce_pts = 11;
    res.reduce_fit = 1;
    res.reduce_element_ps = m.reduce_element_ps = 670;
    rt_calib_link *l = &res.link[RT_CT_SHM];
    l->measured = 1;
    l->a = 0;
    l->b = 1;
    l->batches = 15;
    l->o_send_ps = 90 * NS;
    l->o_recv_ps = 110 * NS;
    l->switched = 1;
    l->eager_lo = 8192;
    l->eager_hi = 8193;
    l->npts = (uint32_t)curve(&m, RT_CT_SHM, 4 * MiB, 0, l->pts);
    assert_int_equal(rt_calib_fit_link(&m, RT_CT_SHM, l->pts, l->npts, &l->fit, NULL), 0);
    m.injection = RT_NET_INJECT_BYTES;
    snprintf(m.source, sizeof m.source, "retrace calibrate");
    char *path = rt_test_tmp_path("calibrated.conf");
    FILE *f = fopen(path, "w");
    assert_int_equal(rt_calib_write(&res, &m, f), 0);
    fclose(f);
    rt_net_model back;
    rt_err err = {0};
    assert_int_equal(rt_net_model_load(&back, path, &err), 0);
    back.source[0] = m.source[0] = '\0';
    assert_memory_equal(&back.link, &m.link, sizeof m.link);
    assert_int_equal(back.injection, RT_NET_INJECT_BYTES);
    assert_int_equal(back.gw_mtu, 1024);
    const char *text = slurp(path);
    assert_non_null(strstr(text, "# measured by retrace calibrate with 2 ranks on 1 node in 1 "
                                 "module (nodes from MPI_COMM_TYPE_SHARED), in 1.25 s\n"));
    assert_non_null(strstr(text, "# measured: shm; kept from built-in defaults: loop, net, gw, "
                                 "gateways, gw_mtu, contention\n"));
    assert_non_null(strstr(text, "# reduce_bandwidth, reduce_element: MPI_Reduce_local (MPI_SUM) "
                                 "on doubles and on floats, 128 to 128 Ki elements (11 sizes "
                                 "each), rank 0: the time per byte is what a double costs more "
                                 "than a float, the rest a cost per element\n"));
    assert_non_null(strstr(text, "\nreduce_element = 670ps\n"));
    assert_int_equal(back.reduce_element_ps, 670);
    assert_non_null(strstr(text, "\n[shm]\n# measured between ranks 0 and 1 (nodes 0 and 0, "
                                 "modules 0 and 0): one-way times of 0 B and powers of two to "
                                 "4 MiB, best of 15 batches per size\n"));
    assert_non_null(strstr(text, "# overhead: mean of an 8-byte send call (90 ns) and of a "
                                 "receive call whose message had arrived (110 ns), medians\n"));
    assert_non_null(strstr(text, "# eager: a send of 8192 bytes finishes before a late receive "
                                 "is posted, one of 8193 bytes waits for it\n"));
    assert_non_null(strstr(text, "one-way time, eager o + L + n/eager_bandwidth + o, rendezvous "
                                 "3o + 3L + rendezvous + n/bandwidth;\n#   error median 0.0%, "
                                 "max 0.0% (at 0 B)\nlatency = 250ns\nbandwidth = 10GB/s\n"
                                 "overhead = 100ns\ngap = 0ns\neager = 8KiB\n\n[net]"));
    assert_non_null(strstr(text, "\n[net]\n# not measured: no two ranks on different nodes of "
                                 "one module; values from built-in defaults\nlatency = 1.5us\n"));
}

/* The CPU costs of calls: measured minus what the engine charges, a fixed part and a rate
 * through two sizes. A local call (Isend) costs its measured time; a collective what is
 * left after the engine's time for the same calls (found by a first fit with nothing
 * measured); a Put what is left of a Put-and-fence epoch after the engine's time for it with
 * the fence's cost; a negative difference is no cost; the large-count forms follow. */
static void test_fit_calls(void **state)
{
    (void)state;
    static rt_calib_result res;
    memset(&res, 0, sizeof res);
    res.nranks = 2;
    rt_calib_call *isend = &res.calls[0], *ar = &res.calls[1], *bc = &res.calls[2];
    *isend = (rt_calib_call){.fn = RT_FN_Isend, .npts = 2, .size = {8, 4096}};
    /* 100 ns + n / 8 GB/s */
    isend->measured_ps[0] = 100 * NS + 1000;
    isend->measured_ps[1] = 100 * NS + 512 * NS;
    *ar = (rt_calib_call){
        .fn = RT_FN_Allreduce, .op = RT_COLL_ALLREDUCE, .npts = 2, .size = {8, 65536}};
    *bc = (rt_calib_call){.fn = RT_FN_Bcast, .op = RT_COLL_BCAST, .npts = 2, .size = {8, 65536}};
    rt_calib_call *fence = &res.calls[3], *put = &res.calls[4];
    *fence = (rt_calib_call){.fn = RT_FN_Win_fence, .npts = 1};
    *put = (rt_calib_call){.fn = RT_FN_Put, .npts = 2, .size = {8, 4096}};
    res.ncalls = 5;
    rt_net_model m;
    model(&m);
    uint32_t node[2] = {0, 0}, module[2] = {0, 0};
    calib_calls_fit(&res, &m, node, module);
    assert_int_equal(res.calls_engine_failed, 0);
    assert_int_equal(isend->cost.fixed_ps, 100 * NS);
    assert_int_equal(isend->cost.bandwidth, 8000000000);
    assert_int_equal(isend->engine_ps[0], 0);
    assert_true(ar->engine_ps[0] > 0 && ar->engine_ps[1] > ar->engine_ps[0]);
    assert_int_equal(ar->cost.fixed_ps, 0); /* nothing measured: no cost */
    assert_true(fence->engine_ps[0] > 0);
    assert_true(put->engine_ps[0] > fence->engine_ps[0] && put->engine_ps[1] > put->engine_ps[0]);
    uint64_t put_engine[2] = {put->engine_ps[0], put->engine_ps[1]};
    fence->measured_ps[0] = fence->engine_ps[0] + US; /* a fence costs 1 us */
    /* allreduce: the engine's time plus 300 ns + n / 5 GB/s */
    for (unsigned s = 0; s < 2; s++)
        ar->measured_ps[s] = ar->engine_ps[s] + 300 * NS + ar->size[s] * 200;
    /* bcast: less than the engine at both sizes */
    for (unsigned s = 0; s < 2; s++)
        bc->measured_ps[s] = bc->engine_ps[s] / 2;
    calib_calls_fit(&res, &m, node, module);
    assert_int_equal(ar->cost.fixed_ps, 300 * NS);
    assert_int_equal(ar->cost.bandwidth, 5000000000);
    assert_int_equal(m.call[RT_FN_Allreduce].fixed_ps, 300 * NS);
    assert_int_equal(m.call[RT_FN_Allreduce_c].bandwidth, 5000000000);
    assert_int_equal(bc->cost.fixed_ps + bc->cost.bandwidth, 0);
    assert_int_equal(m.call[RT_FN_Bcast].fixed_ps, 0);
    assert_int_equal(fence->cost.fixed_ps, US);
    /* the engine's epoch now has the fence's cost (part of it overlaps the transfer) */
    for (unsigned s = 0; s < 2; s++) {
        assert_true(put->engine_ps[s] > put_engine[s] && put->engine_ps[s] <= put_engine[s] + US);
        put_engine[s] = put->engine_ps[s];
        /* an epoch 200 ns + n / 4 GB/s over that */
        put->measured_ps[s] = put->engine_ps[s] + 200 * NS + put->size[s] * 250;
    }
    calib_calls_fit(&res, &m, node, module);
    for (unsigned s = 0; s < 2; s++) /* without the Put's own cost */
        assert_int_equal(put->engine_ps[s], put_engine[s]);
    assert_int_equal(put->cost.fixed_ps, 200 * NS);
    assert_int_equal(put->cost.bandwidth, 4000000000);

    /* a call measured at 2^64 - 1 ps: its cost rounds to whole ns past 2^64 and saturates
     * (the product wrapped to 384 ps) */
    *isend = (rt_calib_call){.fn = RT_FN_Isend, .npts = 1, .size = {8}};
    isend->measured_ps[0] = UINT64_MAX;
    calib_calls_fit(&res, &m, node, module);
    assert_true(isend->cost.fixed_ps == UINT64_MAX);
}

/* Algorithm costs ([calls] MPI_Allreduce/ring): the engine replays the loop with that algorithm
 * (on 2 ranks their messages are the same), and the difference goes to alg_call, not to the
 * function's cost; a cost measured at the large size only (MPICH refused the small one) is a
 * rate through it. */
static void test_fit_alg_calls(void **state)
{
    (void)state;
    static rt_calib_result res;
    memset(&res, 0, sizeof res);
    res.nranks = 2;
    rt_calib_call *own = &res.calls[0], *ring = &res.calls[1], *rab = &res.calls[2];
    *own = (rt_calib_call){
        .fn = RT_FN_Allreduce, .op = RT_COLL_ALLREDUCE, .npts = 2, .size = {8, 65536}};
    *ring = *own;
    ring->alg = RT_ALG_RING;
    *rab = (rt_calib_call){.fn = RT_FN_Allreduce,
                           .op = RT_COLL_ALLREDUCE,
                           .alg = RT_ALG_RABENSEIFNER,
                           .refused = 1,
                           .npts = 1,
                           .size = {65536}};
    res.ncalls = 3;
    rt_net_model m;
    model(&m);
    uint32_t node[2] = {0, 0}, module[2] = {0, 0};
    calib_calls_fit(&res, &m, node, module); /* the engine's times */
    assert_int_equal(res.calls_engine_failed, 0);
    assert_int_equal(rab->engine_ps[0], own->engine_ps[1]); /* MPICH's choice there */
    for (unsigned s = 0; s < 2; s++) {
        own->measured_ps[s] = own->engine_ps[s] + 100 * NS;
        ring->measured_ps[s] = ring->engine_ps[s] + 300 * NS + ring->size[s] * 200;
    }
    rab->measured_ps[0] = rab->engine_ps[0] + 65536 * 125; /* n / 8 GB/s */
    calib_calls_fit(&res, &m, node, module);
    assert_int_equal(m.call[RT_FN_Allreduce].fixed_ps, 100 * NS);
    assert_int_equal(m.call[RT_FN_Allreduce].bandwidth, 0);
    assert_int_equal(m.alg_set[RT_COLL_ALLREDUCE][RT_ALG_RING], 1);
    assert_int_equal(m.alg_call[RT_COLL_ALLREDUCE][RT_ALG_RING].fixed_ps, 300 * NS);
    assert_int_equal(m.alg_call[RT_COLL_ALLREDUCE][RT_ALG_RING].bandwidth, 5000000000);
    assert_int_equal(m.alg_set[RT_COLL_ALLREDUCE][RT_ALG_RABENSEIFNER], 1);
    assert_int_equal(m.alg_call[RT_COLL_ALLREDUCE][RT_ALG_RABENSEIFNER].fixed_ps, 0);
    assert_int_equal(m.alg_call[RT_COLL_ALLREDUCE][RT_ALG_RABENSEIFNER].bandwidth, 8000000000);
    assert_int_equal(m.alg_set[RT_COLL_ALLREDUCE][RT_ALG_RDB], 0);
    /* the engine's share is taken without any cost of the model's: the same times again */
    uint64_t e = ring->engine_ps[1];
    calib_calls_fit(&res, &m, node, module);
    assert_int_equal(ring->engine_ps[1], e);
}

/* ---- call costs from a trace's collectives (calib_from_coll.c) ------------------------------ */

/* One MPI_Allreduce of n bytes on world ranks 0..2 in CSV, rank r entering at enter[r] and
 * leaving at leave[r] (ns). */
static void allreduce_rows(st_text *t, const uint64_t enter[3], const uint64_t leave[3], uint64_t n,
                           unsigned nranks)
{
    for (unsigned r = 0; r < nranks; r++)
        st_add(t,
               "%u,%llu,enter,MPI_Allreduce,,,,,,,,\n%u,%llu,coll_begin,MPI_Allreduce,,,,,,,,\n"
               "%u,%llu,coll_end,MPI_Allreduce,0,,,%llu,%llu,,,allreduce\n"
               "%u,%llu,leave,MPI_Allreduce,,,,,,,,\n",
               r, (unsigned long long)enter[r], r, (unsigned long long)enter[r], r,
               (unsigned long long)enter[r], (unsigned long long)n, (unsigned long long)n, r,
               (unsigned long long)leave[r]);
}

/* The engine's time of one 8-byte or 4096-byte MPI_Allreduce on 3 ranks entering together. */
static uint64_t allreduce_engine(const rt_net_model *m, uint64_t n)
{
    st_text t = {0};
    const uint64_t zero[3] = {0, 0, 0};
    st_add(&t, "ranks,3\n");
    allreduce_rows(&t, zero, zero, n, 3);
    rt_sim_config c;
    rt_sim_config_default(&c);
    c.model = *m;
    rt_sim_result res;
    st_replay(t.s, &c, &res);
    assert_true(res.completed);
    uint64_t ps = res.time_ps;
    rt_sim_result_free(&res);
    st_free(&t);
    return ps;
}

/* Instances whose time from the last entry to the last exit is the engine's plus 300 ns +
 * n / 1 GB/s give that cost back exactly; an outlier per size does not move the medians; an
 * instance a rank misses and a communicator of one rank give nothing. */
static void test_from_coll(void **state)
{
    (void)state;
    rt_net_model m;
    st_model(&m, US, 100 * NS, 1000000000, 1 << 20); /* whole ns for 8 and 4096 bytes */
    uint64_t e8 = allreduce_engine(&m, 8), e4k = allreduce_engine(&m, 4096);
    assert_int_equal(e8 % NS, 0);
    assert_int_equal(e4k % NS, 0);
    assert_true(e4k > e8);
    st_text t = {0};
    st_add(&t, "ranks,3\n");
    const uint64_t sizes[] = {8, 8, 8, 8, 4096, 4096, 4096};
    const uint64_t extra[] = {0, 0, 0, 50000, 0, 0, 90000}; /* outliers, ns */
    for (unsigned i = 0; i < 7; i++) {
        uint64_t s = 1000 + 100000 * (uint64_t)i, e = sizes[i] == 8 ? e8 : e4k;
        uint64_t T = e / NS + 300 + sizes[i] + extra[i]; /* ns */
        const uint64_t in[3] = {s, s + 100, s + 300};
        const uint64_t out[3] = {s + 300 + T - 50, s + 300 + T, s + 300 + T - 20};
        allreduce_rows(&t, in, out, sizes[i], 3);
    }
    const uint64_t in[3] = {800000, 800000, 800000}, out[3] = {801000, 801000, 801000};
    allreduce_rows(&t, in, out, 8, 2); /* rank 2 never calls it */
    st_add(&t, "0,900000,enter,MPI_Barrier,,,,,,,,\n0,900000,coll_begin,MPI_Barrier,,,,,,,,\n"
               "0,900000,coll_end,MPI_Barrier,1,,,0,0,,,barrier\n"
               "0,900100,leave,MPI_Barrier,,,,,,,,\n"); /* on MPI_COMM_SELF */
    char path[512];
    st_write(t.s, path, sizeof path);
    st_free(&t);
    static rt_calib_from_result res;
    rt_err err = {0};
    int rc = rt_calib_from(path, &m, &res, &err);
    unlink(path);
    if (rc < 0)
        fail_msg("calibrate --from: %s", err.msg);
    assert_int_equal(res.coll_used, 7);
    assert_int_equal(res.coll_other, 1);
    assert_int_equal(res.coll_shared + res.coll_failed, 0);
    assert_int_equal(res.ncalls, 1);
    const rt_calib_from_call *c = &res.calls[0];
    assert_int_equal(c->fn, RT_FN_Allreduce);
    assert_int_equal(c->calls, 7);
    assert_int_equal(c->sizes, 2);
    assert_int_equal(c->lo, 8);
    assert_int_equal(c->hi, 4096);
    assert_int_equal(c->at, 8); /* 4 instances against 3 */
    assert_int_equal(c->engine_ps, e8);
    assert_int_equal(c->measured_ps, e8 + 308 * NS);
    assert_int_equal(c->cost.fixed_ps, 300 * NS);
    assert_int_equal(c->cost.bandwidth, 1000000000);
    assert_int_equal(m.call[RT_FN_Allreduce].fixed_ps, 300 * NS);
    assert_int_equal(m.call[RT_FN_Allreduce_c].bandwidth, 1000000000);
    assert_int_equal(m.call[RT_FN_Barrier].fixed_ps, 0);
}

/* The spread of a link's batches: per undisturbed size (median - best) / best, its median over
 * the sizes and its largest; disturbed sizes, sizes without a time and medians below the best
 * do not count or count as 0. */
static void test_spread(void **state)
{
    (void)state;
    rt_calib_point p[] = {
        {.bytes = 0, .time_ps = 1000, .median_ps = 1100},  /* 10% */
        {.bytes = 8, .time_ps = 1000, .median_ps = 1500},  /* 50% */
        {.bytes = 64, .time_ps = 2000, .median_ps = 2000}, /* 0% */
        {.bytes = 512, .time_ps = 1000, .median_ps = 9000, .disturbed = 1},
        {.bytes = 4096, .time_ps = 0, .median_ps = 7000},        /* no time */
        {.bytes = 32768, .time_ps = 4000, .median_ps = 3000},    /* below: 0% */
        {.bytes = 262144, .time_ps = 10000, .median_ps = 12000}, /* 20% */
    };
    double med, max;
    uint64_t at;
    assert_int_equal(rt_calib_spread(p, 7, &med, &max, &at), 5);
    assert_true(fabs(med - 0.1) < 1e-12); /* 0, 0, 0.1, 0.2, 0.5 */
    assert_true(fabs(max - 0.5) < 1e-12);
    assert_int_equal(at, 8);
    assert_true(med <= RT_CALIB_NOISY);
    p[0].median_ps = 1400, p[2].median_ps = 2600, p[5].median_ps = 5200; /* 40%, 30%, 30% */
    assert_int_equal(rt_calib_spread(p, 7, &med, &max, &at), 5);
    assert_true(fabs(med - 0.3) < 1e-12 && med > RT_CALIB_NOISY);
    assert_int_equal(rt_calib_spread(p, 0, &med, &max, &at), 0);
    assert_true(med == 0 && max == 0 && at == 0);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_oneway),        cmocka_unit_test(test_oneway_is_the_engines),
        cmocka_unit_test(test_fit_recovers),  cmocka_unit_test(test_fit_noise),
        cmocka_unit_test(test_fit_overhead),  cmocka_unit_test(test_fit_errors),
        cmocka_unit_test(test_fit_rate),      cmocka_unit_test(test_fit_reduce),
        cmocka_unit_test(test_write_notes),   cmocka_unit_test(test_write_result),
        cmocka_unit_test(test_fit_disturbed), cmocka_unit_test(test_fit_calls),
        cmocka_unit_test(test_fit_alg_calls), cmocka_unit_test(test_from_coll),
        cmocka_unit_test(test_spread),
    };
    return rt_test_main("calib", tests, argc, argv);
}
