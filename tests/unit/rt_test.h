/* Helpers shared by the unit tests of formats/ (test_formats.c, test_raw.c); include it
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

#endif /* RT_TEST_H */
