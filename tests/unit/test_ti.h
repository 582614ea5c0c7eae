/* Helpers shared by the unit tests of the TI reader and writer (test_ti*.c): TI traces
 * written from texts, events as one-line text, traces read whole. Include it after
 * cmocka.h. */
#ifndef TEST_TI_H
#define TEST_TI_H

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "rt_test.h"
#include "rt_trace.h"

#define SMPI_TRACE RT_TEST_DATA "/ti/smpi/app.ti"
#define ROUNDTRIP RT_TEST_DATA "/ti/roundtrip.csv"
#define ROUNDTRIP_SIZES RT_TEST_DATA "/ti/roundtrip_sizes.csv"

static inline int exists(const char *path)
{
    return access(path, F_OK) == 0;
}

/* A TI trace NAME (index) with one file NAME_rI.txt per text, texts ending at NULL. */
static inline const char *ti_trace(const char *name, ...)
{
    char *index = rt_test_tmp_path(name);
    FILE *f = fopen(index, "wb");
    assert_non_null(f);
    va_list ap;
    va_start(ap, name);
    const char *text;
    for (int i = 0; (text = va_arg(ap, const char *)); i++) {
        char file[1100];
        snprintf(file, sizeof file, "%s_r%d.txt", index, i);
        rt_test_write_text(file, text);
        fprintf(f, "%s_r%d.txt\n", name, i); /* relative: next to the index */
    }
    va_end(ap);
    fclose(f);
    return index;
}

/* One event as a line: rank, time, kind, call, then each field the kind uses, as
 * c(omm) p(eer) t(ag) b(ytes) r(bytes) k(contype) q(request) o(p). */
static inline void row(const rt_event *ev, char *buf, size_t len)
{
    unsigned m = rt_event_kind_mask(ev->kind);
    int n = snprintf(buf, len, "%u %" PRIu64 " %s %s", (unsigned)ev->rank, ev->time,
                     rt_event_kind_name(ev->kind), rt_func_name(ev->call));
    if (m & RT_FIELD_COMM)
        n += snprintf(buf + n, len - (size_t)n, " c%u", (unsigned)ev->comm);
    if (m & RT_FIELD_PEER)
        n += snprintf(buf + n, len - (size_t)n, " p%d", (int)ev->peer);
    if (m & RT_FIELD_TAG)
        n += snprintf(buf + n, len - (size_t)n, " t%d", (int)ev->tag);
    if (m & RT_FIELD_BYTES)
        n += snprintf(buf + n, len - (size_t)n, " b%" PRIu64, ev->bytes);
    if (m & RT_FIELD_RBYTES)
        n += snprintf(buf + n, len - (size_t)n, " r%" PRIu64, ev->rbytes);
    if (m & RT_FIELD_CONTYPE)
        n += snprintf(buf + n, len - (size_t)n, " k%s", rt_contype_name(ev->contype));
    if (m & RT_FIELD_REQ)
        n += snprintf(buf + n, len - (size_t)n, " q%" PRIu64, ev->req);
    if ((m & RT_FIELD_OP) && *rt_event_op_name(ev->kind, ev->op))
        n += snprintf(buf + n, len - (size_t)n, " o%s", rt_event_op_name(ev->kind, ev->op));
    if (ev->esize || ev->resize)
        snprintf(buf + n, len - (size_t)n, " s%" PRIu64 "/%" PRIu64, rt_esize_of(ev->esize),
                 rt_esize_of(ev->resize));
}

static inline void load_ok(const char *path, rt_test_trace *l)
{
    rt_err err;
    int rc = rt_test_load(path, l, &err);
    if (rc)
        fail_msg("%s", err.msg);
    assert_int_equal(l->format, RT_FMT_TI);
}

/* Reading fails with exactly this message. */
static inline void load_fails(const char *path, const char *msg)
{
    rt_test_trace l;
    rt_err err;
    int rc = rt_test_load(path, &l, &err);
    assert_true(rc < 0);
    assert_string_equal(err.msg, msg);
    rt_test_unload(&l);
}

#endif /* TEST_TI_H */
