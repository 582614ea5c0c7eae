/*
 * Reader of retrace's CSV trace form (version 1): one record per line, the definitions
 * first (csv_defs.c), then one event per line in 12 fixed columns. Each line goes through
 * libcsv on its own, so errors name the exact line and the reader streams: memory follows
 * the longest line, not the trace. csv_writer.c writes the form.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "rt__csv.h"

/* STRICT_FINI too: an unclosed quote must be an error, not a field that runs to the end. */
#define CSV_OPTS (CSV_STRICT | CSV_STRICT_FINI | CSV_APPEND_NULL)

const char *const rt__csv_field_names[RT__CSV_NFIELDS] = {
    "RANK", "TIME",  "EVENT",  "CALL",    "COMM", "PEER",
    "TAG",  "BYTES", "RBYTES", "CONTYPE", "REQ",  "OP",
};

const char rt__csv_field_letters[RT__CSV_NFIELDS] = {0,   0,   0,   0,   'c', 'p',
                                                     't', 'b', 'r', 'k', 'q', 'o'};

/* ---- reading: lines and fields -------------------------------------------------------------- */

/* A field as it may appear in a one-line message: short, printable ASCII. */
const char *rt__csv_show(char out[RT__CSV_SHOW_LEN], const char *s)
{
    size_t i = 0;
    for (; s[i] && i < RT__CSV_SHOW_LEN - 4; i++)
        out[i] = (unsigned char)s[i] < 0x20 || (unsigned char)s[i] >= 0x7f ? '?' : s[i];
    if (s[i])
        memcpy(out + i, "...", 3), i += 3;
    out[i] = '\0';
    return out;
}

int rt__csv_get_u(const char *s, uint64_t max, const char *what, uint64_t *out, rt_err *e)
{
    char sb[RT__CSV_SHOW_LEN];
    if (rt_parse_u64(s, out) || *out > max)
        return rt_err_set(e, RT_E_INVAL, "bad number '%s' in %s", rt__csv_show(sb, s), what);
    return 0;
}

static void on_field(void *s, size_t len, void *data)
{
    rt__csv_reader *cr = data;
    size_t n = cr->nfields++;
    if (n > RT__CSV_THREAD)
        return;
    if (len)
        memcpy(cr->text + cr->text_len, s, len);
    cr->text[cr->text_len + len] = '\0';
    cr->off[n] = cr->text_len;
    cr->text_len += len + 1;
}

/* Reads up to the next record and splits it into fields. 1: a record; 0: end of file. */
static int read_record(rt__csv_reader *cr, rt_err *e)
{
    for (;;) {
        errno = 0;
        ssize_t got = getline(&cr->line, &cr->line_cap, cr->f);
        if (got < 0) {
            if (feof(cr->f))
                return 0;
            if (errno == ENOMEM)
                return rt_err_set(e, RT_E_NOMEM, "out of memory reading a line");
            return rt_err_set(e, RT_E_IO, "read failed: %s", strerror(errno ? errno : EIO));
        }
        size_t n = (size_t)got;
        cr->lineno++;
        cr->unterminated = cr->line[n - 1] != '\n';
        n -= !cr->unterminated;
        if (n > 0 && cr->line[n - 1] == '\r') /* tolerate CRLF line ends */
            n--;
        if (n > strlen(RT__TRUNCATED_COMMENT) &&
            !strncmp(cr->line, RT__TRUNCATED_COMMENT, strlen(RT__TRUNCATED_COMMENT))) {
            free(cr->note);
            cr->note = strndup(cr->line + strlen(RT__TRUNCATED_COMMENT),
                               n - strlen(RT__TRUNCATED_COMMENT));
            continue;
        }
        if (strspn(cr->line, " \t\r\v\f") >= n || cr->line[0] == '#') /* blank or comment */
            continue;
        /* libcsv would end the row at a CR; a NUL would cut a field short unseen. */
        if (memchr(cr->line, '\0', n))
            return rt_err_set(e, RT_E_FORMAT, "NUL byte in line");
        if (memchr(cr->line, '\r', n))
            return rt_err_set(e, RT_E_FORMAT, "carriage return inside line");
        /* Unquoting only shrinks a field, so the line's length plus a NUL per kept field
         * bounds the text: no allocation inside libcsv's callback. */
        if (RT_VEC_RESERVE(cr->text, cr->text_cap, (uint64_t)n + RT__CSV_NFIELDS, 0) < 0)
            return rt_err_set(e, RT_E_NOMEM, "out of memory parsing a line");
        cr->nfields = cr->text_len = 0;
        /* libcsv grows its field buffer by blk_size: one step per long line, not many. */
        if (n + 2 > cr->parser.blk_size)
            csv_set_blk_size(&cr->parser, n + 2);
        if (csv_parse(&cr->parser, cr->line, n, on_field, NULL, cr) != n ||
            csv_fini(&cr->parser, on_field, NULL, cr) != 0) {
            int ce = csv_error(&cr->parser);
            csv_free(&cr->parser); /* reset: libcsv leaves a failed row half done */
            csv_init(&cr->parser, CSV_OPTS);
            if (ce == CSV_ENOMEM)
                return rt_err_set(e, RT_E_NOMEM, "out of memory parsing a line");
            return rt_err_set(e, RT_E_FORMAT, "%s",
                              ce == CSV_ETOOBIG ? "line too long" : "bad quoting");
        }
        return 1;
    }
}

/* ---- reading: events ------------------------------------------------------------------------ */

/* One column of an event that its kind uses and that is not empty. */
static int event_field(rt_event *ev, int i, const char *s, rt_err *e)
{
    char sb[RT__CSV_SHOW_LEN];
    const char *name = rt__csv_field_names[i];
    uint64_t u;
    int64_t v;
    int x, rc = 0;
    switch (i) {
    case RT__CSV_COMM:
        rc = rt__csv_get_u(s, UINT32_MAX, name, &u, e);
        ev->comm = (uint32_t)u;
        break;
    case RT__CSV_PEER:
        if (!strcmp(s, "all") || !strcmp(s, "none")) {
            ev->peer = *s == 'a' ? RT_PEER_ALL : RT_PEER_NONE;
            break;
        }
        /* fall through */
    case RT__CSV_TAG:
        if (i == RT__CSV_TAG &&
            (ev->kind == RT_EV_RMA_COLL_END || ev->kind == RT_EV_RMA_GROUP_SYNC)) {
            if ((x = rt_rma_assert_lookup(s)) < 0)
                return rt_err_set(e, RT_E_INVAL, "unknown assert '%s'", rt__csv_show(sb, s));
            ev->tag = x;
            break;
        }
        if (rt_parse_i64(s, &v) || v < INT32_MIN || v > INT32_MAX)
            return rt_err_set(e, RT_E_INVAL, "bad number '%s' in %s", rt__csv_show(sb, s), name);
        *(i == RT__CSV_PEER ? &ev->peer : &ev->tag) = (int32_t)v;
        break;
    case RT__CSV_BYTES:
    case RT__CSV_RBYTES:
        if (s[0] == '-' && !rt_parse_u64(s + 1, &u) && u > 0)
            return rt_err_set(e, RT_E_INVAL, "negative byte count %s in %s", rt__csv_show(sb, s),
                              name);
        rc = rt__csv_get_u(s, UINT64_MAX, name, i == RT__CSV_BYTES ? &ev->bytes : &ev->rbytes, e);
        break;
    case RT__CSV_CONTYPE:
        if ((x = rt_contype_lookup(s)) < 0)
            return rt_err_set(e, RT_E_INVAL, "unknown connection type '%s'", rt__csv_show(sb, s));
        ev->contype = (uint8_t)x;
        break;
    case RT__CSV_REQ:
        rc = rt__csv_get_u(s, UINT64_MAX, name, &ev->req, e);
        break;
    case RT__CSV_OP:
        if ((x = rt_event_op_lookup(ev->kind, s)) < 0)
            return rt_err_set(e, RT_E_INVAL, "unknown op '%s' for event %s", rt__csv_show(sb, s),
                              rt_event_kind_name(ev->kind));
        ev->op = (uint8_t)x;
        break;
    }
    return rc;
}

/* One side of the sizes column: "" (unknown) or a size rt_esize_code keeps. */
static int esize_side(const char *s, size_t len, uint8_t *code, rt_err *e)
{
    char num[24], sb[RT__CSV_SHOW_LEN];
    uint64_t v;
    if (!len)
        return 0;
    if (len >= sizeof num)
        return rt_err_set(e, RT_E_INVAL, "bad element size '%s'", rt__csv_show(sb, s));
    memcpy(num, s, len);
    num[len] = '\0';
    int rc = rt__csv_get_u(num, UINT64_MAX, "ESIZE", &v, e);
    if (rc)
        return rc;
    unsigned c = rt_esize_code(v);
    if (!c)
        return rt_err_set(e, RT_E_INVAL,
                          "element size %s is not one a trace keeps (1 to %u, or a power of two)",
                          num, RT_ESIZE_LITERAL);
    *code = (uint8_t)c;
    return 0;
}

/* The sizes column, "S/R" (rt__csv.h), on an event kind that carries sizes. */
static int esize_field(rt_event *ev, const char *s, rt_err *e)
{
    char sb[RT__CSV_SHOW_LEN];
    const char *slash = strchr(s, '/');
    if (!slash)
        return rt_err_set(e, RT_E_FORMAT, "bad element sizes '%s' (expected S/R)",
                          rt__csv_show(sb, s));
    if (!rt_event_has_esize(ev->kind))
        return rt_err_set(e, RT_E_FORMAT, "event %s has no element sizes",
                          rt_event_kind_name(ev->kind));
    int rc = esize_side(s, (size_t)(slash - s), &ev->esize, e);
    return rc ? rc : esize_side(slash + 1, strlen(slash + 1), &ev->resize, e);
}

static int rec_event(rt__csv_reader *cr, rt_event *ev, rt_err *e)
{
    char sb[RT__CSV_SHOW_LEN];
    uint64_t v;
    if (cr->nfields < RT__CSV_NFIELDS || cr->nfields > RT__CSV_THREAD + 1)
        return rt_err_set(e, RT_E_FORMAT,
                          "event has %zu fields, expected %d (%d with sizes, %d with a thread)",
                          cr->nfields, RT__CSV_NFIELDS, RT__CSV_NFIELDS + 1, RT__CSV_THREAD + 1);
    memset(ev, 0, sizeof *ev);
    int rc = rt__csv_get_u(rt__csv_fld(cr, RT__CSV_RANK), UINT32_MAX, "RANK", &v, e);
    if (rc)
        return rc;
    ev->rank = (uint32_t)v;
    if ((rc = rt__csv_get_u(rt__csv_fld(cr, RT__CSV_TIME), UINT64_MAX, "TIME", &ev->time, e)))
        return rc;
    int k = rt_event_kind_lookup(rt__csv_fld(cr, RT__CSV_EVENT));
    if (k < 0)
        return rt_err_set(e, RT_E_INVAL, "unknown event '%s'",
                          rt__csv_show(sb, rt__csv_fld(cr, RT__CSV_EVENT)));
    ev->kind = (uint8_t)k;
    const char *kname = rt_event_kind_name((unsigned)k), *call = rt__csv_fld(cr, RT__CSV_CALL);
    if (*call && (ev->call = (uint16_t)rt_func_lookup(call)) == RT_FN_NONE)
        return rt_err_set(e, RT_E_INVAL, "unknown MPI function '%s'", rt__csv_show(sb, call));
    if (!*call && (k == RT_EV_ENTER || k == RT_EV_LEAVE || k == RT_EV_PENDING))
        return rt_err_set(e, RT_E_FORMAT, "field CALL is required by event %s", kname);
    const char *uses = rt_event_kind_fields((unsigned)k);
    for (int i = RT__CSV_COMM; i < RT__CSV_NFIELDS; i++) {
        const char *s = rt__csv_fld(cr, i);
        if (!strchr(uses, rt__csv_field_letters[i])) {
            if (*s)
                return rt_err_set(e, RT_E_FORMAT, "field %s is not used by event %s",
                                  rt__csv_field_names[i], kname);
            continue;
        }
        if (!*s) {
            if (i == RT__CSV_CONTYPE)
                continue; /* RT_CT_NONE: the connection was not recorded */
            if (i == RT__CSV_OP && rt_event_op_lookup((unsigned)k, "") == 0)
                continue; /* a receive posted without wildcards */
            if (i == RT__CSV_TAG && (k == RT_EV_RMA_COLL_END || k == RT_EV_RMA_GROUP_SYNC))
                continue; /* no assert given */
            if (i == RT__CSV_PEER && (k == RT_EV_COLL_END || k == RT_EV_NBC_COMPLETE ||
                                      k == RT_EV_RECV || k == RT_EV_IRECV)) {
                /* a rootless collective, or a pending call's receive from any source */
                ev->peer = RT_PEER_NONE;
                continue;
            }
            return rt_err_set(e, RT_E_FORMAT, "field %s is required by event %s",
                              rt__csv_field_names[i], kname);
        }
        if ((rc = event_field(ev, i, s, e)))
            return rc;
    }
    if (cr->nfields > RT__CSV_THREAD) {
        if ((rc = rt__csv_get_u(rt__csv_fld(cr, RT__CSV_THREAD), RT_THREAD_MAX, "THREAD", &v, e)))
            return rc;
        ev->thread = (uint8_t)v;
        if (!*rt__csv_fld(cr, RT__CSV_ESIZE))
            return 0; /* a thread's event without sizes */
    }
    return cr->nfields > RT__CSV_NFIELDS ? esize_field(ev, rt__csv_fld(cr, RT__CSV_ESIZE), e) : 0;
}

/* 1: an event in *ev; 2: a definition, now in r->defs; < 0: error (e without the place). */
static int handle_record(rt_reader *r, rt__csv_reader *cr, rt_event *ev, rt_err *e)
{
    const char *first = rt__csv_fld(cr, 0);
    int is_event = *first >= '0' && *first <= '9';
    if (!cr->have_ranks && (is_event || strcmp(first, "ranks")))
        return rt_err_set(e, RT_E_FORMAT, "first record must be 'ranks,N'");
    if (is_event) {
        cr->in_events = 1;
        int rc = rec_event(cr, ev, e);
        return rc ? rc : 1;
    }
    return rt__csv_definition(r, cr, e);
}

/* Reads and handles the next record: 1 an event; 2 a definition; 0 the end; < 0 an error
 * with its place. A bad last line without a newline is where a writer was cut off. */
static int step(rt_reader *r, rt__csv_reader *cr, rt_event *ev, rt_err *err)
{
    rt_err e;
    int rc = read_record(cr, &e);
    if (rc > 0)
        rc = handle_record(r, cr, ev, &e);
    if (rc >= 0)
        return rc;
    /* Before 'ranks' there is nothing to hand out, so a cut there is an error all the same. */
    if (cr->unterminated && cr->have_ranks && (e.code == RT_E_FORMAT || e.code == RT_E_INVAL)) {
        rt__reader_set_truncated(r, "%s:%lu: trace cut short: last line incomplete", r->path,
                                 cr->lineno);
        return 0;
    }
    return rt_err_set(err, e.code, "%s:%lu: %s", r->path, cr->lineno, e.msg);
}

static int csv_next(rt_reader *r, rt_event *ev, rt_err *err)
{
    rt__csv_reader *cr = r->impl;
    if (cr->has_pending) {
        *ev = cr->pending;
        cr->ev_line = cr->pending_line;
        cr->has_pending = 0;
        return 1;
    }
    if (!cr->done) {
        int rc = step(r, cr, ev, &cr->fail);
        if (rc == 1) {
            cr->ev_line = cr->lineno;
            return 1;
        }
        cr->done = rc < 0 ? -1 : 1;
        if (rc == 0 && cr->note && !r->truncated)
            rt__reader_set_truncated(r, "%s", cr->note);
    }
    return cr->done < 0 ? rt_err_set(err, cr->fail.code, "%s", cr->fail.msg) : 0;
}

static void csv_where(const rt_reader *r, char *buf, size_t len)
{
    const rt__csv_reader *cr = r->impl;
    snprintf(buf, len, "%s:%lu", r->path, cr->ev_line);
}

static void csv_reader_close(rt_reader *r)
{
    rt__csv_reader *cr = r->impl;
    if (!cr)
        return;
    if (cr->f)
        fclose(cr->f);
    csv_free(&cr->parser);
    free(cr->note);
    free(cr->line);
    free(cr->text);
    free(cr->proc_seen);
    free(cr);
    r->impl = NULL;
}

static double csv_progress(const rt_reader *r)
{
    const rt__csv_reader *cr = r->impl;
    struct stat st;
    long pos = ftell(cr->f);
    if (pos < 0 || fstat(fileno(cr->f), &st) < 0 || st.st_size <= 0)
        return -1.0;
    return (double)pos / (double)st.st_size;
}

static const rt__reader_ops csv_reader_ops = {
    .next = csv_next,
    .where = csv_where,
    .close = csv_reader_close,
    .progress = csv_progress,
};

int rt__csv_open(rt_reader *r, rt_err *err)
{
    rt__csv_reader *cr = calloc(1, sizeof *cr);
    if (!cr)
        return rt_err_set(err, RT_E_NOMEM, "%s: out of memory", r->path);
    csv_init(&cr->parser, CSV_OPTS);
    r->ops = &csv_reader_ops; /* from here on, closing the reader frees cr */
    r->impl = cr;
    if (!(cr->f = fopen(r->path, "rb")))
        return rt_err_set(err, errno == ENOENT ? RT_E_NOTFOUND : RT_E_IO, "%s: %s", r->path,
                          strerror(errno));
    int rc;
    while ((rc = step(r, cr, &cr->pending, err)) == 2)
        continue;
    if (rc < 0)
        return rc;
    if (!cr->have_ranks)
        return rt_err_set(err, RT_E_FORMAT, "%s: empty trace", r->path); /* no line to name */
    free(cr->proc_seen);
    cr->proc_seen = NULL;
    cr->has_pending = rc == 1;
    cr->pending_line = cr->lineno;
    cr->done = rc == 0;
    return 0;
}
