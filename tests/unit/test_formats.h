/* Helpers shared by the unit tests of formats/ (test_formats_*.c): whole traces read in
 * rank order, conversions from one format to another, and comparisons of definitions and
 * events field by field. Include it after cmocka.h. */
#ifndef TEST_FORMATS_H
#define TEST_FORMATS_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_test.h"
#include "rt_trace.h"

#define ALL_KINDS RT_TEST_DATA "/all_kinds.csv"
#define NEIGHBORS RT_TEST_DATA "/neighbors.csv"
#define HOSTS RT_TEST_DATA "/hosts.csv"

static inline void remove_any(const char *path)
{
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", path);
    assert_int_equal(system(cmd), 0);
}

typedef rt_test_trace loaded;

/* Reads a whole trace; events ordered by rank (stable), as readers may interleave ranks
 * differently. Returns the reader's status (0, or the negative error). */
static inline int load(const char *path, loaded *out, rt_err *err)
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

static inline void unload(loaded *l)
{
    rt_test_unload(l);
}

static inline void convert(const char *in, const char *out, rt_format fmt)
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

static inline void assert_same_defs(const rt_defs *a, const rt_defs *b)
{
    assert_int_equal(a->flags, b->flags);
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
        const rt_win_def *x = &a->wins[i], *y = &b->wins[i];
        assert_true((x->name == NULL) == (y->name == NULL));
        if (x->name)
            assert_string_equal(x->name, y->name);
        assert_int_equal(x->ninfo, y->ninfo);
        for (uint32_t k = 0; k < x->ninfo; k++) {
            assert_string_equal(x->info[k].key, y->info[k].key);
            assert_string_equal(x->info[k].value, y->info[k].value);
        }
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
    assert_int_equal(a->nhosts, b->nhosts);
    assert_true((a->rank_host == NULL) == (b->rank_host == NULL));
    for (uint32_t r = 0; a->rank_host && r < a->nranks; r++) {
        const rt_rank_host *x = &a->rank_host[r], *y = &b->rank_host[r];
        assert_int_equal(x->host, y->host);
        assert_int_equal(x->ncpus, y->ncpus);
        assert_true((x->cpus == NULL) == (y->cpus == NULL));
        if (x->cpus)
            assert_string_equal(x->cpus, y->cpus);
        if (x->host != RT_ID_NONE) {
            assert_string_equal(a->hosts[x->host].name, b->hosts[y->host].name);
            assert_int_equal(a->hosts[x->host].online, b->hosts[y->host].online);
        }
    }
}

static inline void assert_same_events(const loaded *a, const loaded *b)
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
static inline void expect_open_error(const char *path, int code, const char *text)
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

#endif /* TEST_FORMATS_H */
