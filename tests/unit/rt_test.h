/* Helpers shared by the unit tests (whole traces, scratch files); include it
 * after cmocka.h. */
#ifndef RT_TEST_H
#define RT_TEST_H

#include <stdlib.h>
#include <string.h>

#include "rt_trace.h"

/* A whole trace in memory. */
typedef struct rt_test_trace {
    rt_defs defs;
    rt_event *ev;
    size_t n;
    char *truncated;
    rt_format format;
} rt_test_trace;

/* Reads a whole trace, events in the reader's order. Returns the reader's status (0, or the
 * negative error); out is to be unloaded whatever it returns. */
static inline int rt_test_load(const char *path, rt_test_trace *out, rt_err *err)
{
    memset(out, 0, sizeof *out);
    rt_reader *r;
    int rc = rt_reader_open(path, &r, err);
    if (rc < 0)
        return rc;
    out->format = rt_reader_format(r);
    assert_int_equal(rt_defs_copy(&out->defs, rt_reader_defs(r), err), 0);
    size_t cap = 0;
    rt_event ev;
    while ((rc = rt_reader_next(r, &ev, err)) > 0) {
        if (out->n == cap) {
            cap = cap ? cap * 2 : 64;
            out->ev = realloc(out->ev, cap * sizeof *out->ev);
            assert_non_null(out->ev);
        }
        out->ev[out->n++] = ev;
    }
    if (rt_reader_truncated(r))
        out->truncated = strdup(rt_reader_truncated(r));
    rt_reader_close(r);
    return rc;
}

static inline void rt_test_unload(rt_test_trace *t)
{
    rt_defs_free(&t->defs);
    free(t->ev);
    free(t->truncated);
}

#ifdef RT_TEST_TMP
#include <errno.h>
#include <stdio.h>
#include <sys/stat.h>

/* A path in the test's own scratch folder RT_TEST_TMP (made on first use); the last eight
 * paths returned stay valid. */
static inline char *rt_test_tmp_path(const char *name)
{
    static char buf[8][4096];
    static unsigned next;
    char *p = buf[next++ % 8];
    if (mkdir(RT_TEST_TMP, 0777) < 0 && errno != EEXIST)
        fail_msg("cannot create %s", RT_TEST_TMP);
    snprintf(p, sizeof buf[0], "%s/%s", RT_TEST_TMP, name);
    return p;
}

static inline void rt_test_write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    fputs(text, f);
    assert_int_equal(fclose(f), 0);
}

/* Writes text to the scratch file name; returns its path. */
static inline const char *rt_test_write_file(const char *name, const char *text)
{
    char *p = rt_test_tmp_path(name);
    rt_test_write_text(p, text);
    return p;
}
#endif
#endif /* RT_TEST_H */
