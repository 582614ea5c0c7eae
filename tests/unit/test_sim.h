/* Helpers shared by the unit tests of the built-in engine (test_sim*.c): traces written as
 * retrace CSV text, one call per helper, loaded through a temporary file, replayed under a
 * model set field by field. Include it after cmocka.h. */
#ifndef TEST_SIM_H
#define TEST_SIM_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rt_sim.h"

#define US 1000000ULL /* ps */
#define NS 1000ULL

/* A trace being written: CSV text that grows. */
typedef struct st_text {
    char *s;
    size_t len, cap;
} st_text;

static inline void st_add(st_text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static inline void st_add(st_text *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    assert_true(n >= 0);
    if (t->len + (size_t)n + 1 > t->cap) {
        t->cap = (t->cap ? 2 * t->cap : 4096) + (size_t)n + 1;
        t->s = realloc(t->s, t->cap);
        assert_non_null(t->s);
    }
    va_start(ap, fmt);
    vsnprintf(t->s + t->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    t->len += (size_t)n;
}

static inline void st_free(st_text *t)
{
    free(t->s);
    memset(t, 0, sizeof *t);
}

/* Writes CSV text to a new temporary file (TMPDIR, else /tmp) whose name goes to path: the
 * caller removes it. */
static inline void st_write(const char *csv, char *path, size_t len)
{
    const char *dir = getenv("TMPDIR");
    snprintf(path, len, "%s/retrace-simtest-XXXXXX.csv", dir && *dir ? dir : "/tmp");
    int fd = mkstemps(path, 4);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "w");
    assert_non_null(f);
    assert_int_equal(fputs(csv, f) >= 0, 1);
    assert_int_equal(fclose(f), 0);
}

/* Loads CSV text for replay: written to a temporary file that is removed again. */
static inline rt_sim_trace *st_load(const char *csv)
{
    char path[512];
    st_write(csv, path, sizeof path);
    rt_reader *r;
    rt_err err = {0};
    int rc = rt_reader_open(path, &r, &err);
    if (rc < 0) {
        unlink(path);
        fail_msg("open: %s", err.msg);
    }
    rt_sim_trace *t = NULL;
    rc = rt_sim_trace_load(r, &t, &err);
    rt_reader_close(r);
    unlink(path);
    if (rc < 0)
        fail_msg("load: %s", err.msg);
    return t;
}

/* Every link: latency L, overhead o (ps), bandwidth bw (bytes/s), eager threshold, gap 0;
 * one-port injection by message, no contention, reductions at 500 MB/s (g = 2000 ps/B). */
static inline void st_model(rt_net_model *m, uint64_t L, uint64_t o, uint64_t bw, uint64_t eager)
{
    rt_net_model_default(m);
    for (unsigned ct = 0; ct < RT_CT_COUNT; ct++)
        m->link[ct] = (rt_net_link){
            .latency_ps = L, .overhead_ps = o, .gap_ps = 0, .bandwidth = bw, .eager = eager};
    m->reduce_bandwidth = 500000000;
    m->contention = 0;
    m->injection = RT_NET_INJECT_MESSAGE;
}

/* The plain alpha-beta model of the formulas: alpha = 1 us, 1/beta = 1000 ps per byte,
 * no overhead, never rendezvous. */
static inline void st_alpha_beta(rt_sim_config *c)
{
    rt_sim_config_default(c);
    st_model(&c->model, US, 0, 1000000000, 1ULL << 40);
}

static inline void st_run(const rt_sim_trace *t, const rt_sim_config *c, rt_sim_result *res)
{
    rt_err err = {0};
    int rc = rt_sim_run(t, c, res, &err);
    if (rc < 0)
        fail_msg("run: %s", err.msg);
}

/* Replays CSV text once: the result is the caller's to free. */
static inline void st_replay(const char *csv, const rt_sim_config *c, rt_sim_result *res)
{
    rt_sim_trace *t = st_load(csv);
    st_run(t, c, res);
    rt_sim_trace_free(t);
}

/* The "LogP" model most engine tests use: every link latency L = 1 us, overhead o = 100 ns,
 * bandwidth B = 1 GB/s (1000 ps per byte), eager up to `eager` bytes (usually EAGER), gap 0,
 * one message at a time per sender (injection = message), no contention. */
#define L_PS US
#define O_PS (100 * NS)
#define EAGER 4096

static inline void st_logp_config(rt_sim_config *c, uint64_t eager)
{
    rt_sim_config_default(c);
    st_model(&c->model, L_PS, O_PS, 1000000000, eager);
}

/* o + L + n/B: from the start of an injection to the last byte at the receiver. */
static inline uint64_t st_wire(uint64_t n)
{
    return O_PS + L_PS + n * 1000;
}

/* Trace writing: one call per helper, ENTER and LEAVE at the same recorded time. */

static inline void st_enter(st_text *t, unsigned r, uint64_t ns, const char *fn)
{
    st_add(t, "%u,%llu,enter,%s,,,,,,,,\n", r, (unsigned long long)ns, fn);
}

static inline void st_leave(st_text *t, unsigned r, uint64_t ns, const char *fn)
{
    st_add(t, "%u,%llu,leave,%s,,,,,,,,\n", r, (unsigned long long)ns, fn);
}

/* A call whose events are given after the rank and time: "send,MPI_Send,0,1,...". */
static inline void st_call(st_text *t, unsigned r, uint64_t ns, const char *fn, const char *ev1,
                           const char *ev2)
{
    st_enter(t, r, ns, fn);
    if (ev1)
        st_add(t, "%u,%llu,%s\n", r, (unsigned long long)ns, ev1);
    if (ev2)
        st_add(t, "%u,%llu,%s\n", r, (unsigned long long)ns, ev2);
    st_leave(t, r, ns, fn);
}

static inline void st_send(st_text *t, unsigned r, uint64_t ns, unsigned to, int tag, uint64_t n)
{
    char ev[128];
    snprintf(ev, sizeof ev, "send,MPI_Send,0,%u,%d,%llu,,shm,,", to, tag, (unsigned long long)n);
    st_call(t, r, ns, "MPI_Send", ev, NULL);
}

/* flags: "" or "any_source", "any_tag", "any_source|any_tag" as the receive was posted */
static inline void st_recv(st_text *t, unsigned r, uint64_t ns, unsigned from, int tag, uint64_t n,
                           const char *flags)
{
    char ev[128];
    snprintf(ev, sizeof ev, "recv,MPI_Recv,0,%u,%d,%llu,,shm,,%s", from, tag, (unsigned long long)n,
             flags);
    st_call(t, r, ns, "MPI_Recv", ev, NULL);
}

static inline void st_init(st_text *t, unsigned r)
{
    st_call(t, r, 0, "MPI_Init", NULL, NULL);
}

/* test_sim_coll.c */
void test_sim_coll_formulas(void **state);
void test_sim_coll_bcast_8x8192(void **state);
void test_sim_coll_large(void **state);
void test_sim_coll_reduce_element(void **state);
/* test_sim_check.c */
void test_sim_result_diff(void **state);
void test_sim_check_fast(void **state);

#endif /* TEST_SIM_H */
