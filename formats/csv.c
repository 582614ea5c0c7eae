/*
 * retrace's CSV trace form (version 1): one record per line, the definitions first, then one
 * event per line in 12 fixed columns. Each line goes through libcsv on its own, so errors
 * name the exact line and the reader streams: memory follows the longest line, not the trace.
 */
#include <csv.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rt__trace.h"

/* STRICT_FINI too: an unclosed quote must be an error, not a field that runs to the end. */
#define CSV_OPTS (CSV_STRICT | CSV_STRICT_FINI | CSV_APPEND_NULL)
#define WRITE_BUF (1u << 20)
#define SHOW_LEN 48 /* room for a field quoted in an error message */

enum {
    F_RANK,
    F_TIME,
    F_EVENT,
    F_CALL,
    F_COMM,
    F_PEER,
    F_TAG,
    F_BYTES,
    F_RBYTES,
    F_CONTYPE,
    F_REQ,
    F_OP,
    NFIELDS
};

static const char *const field_names[NFIELDS] = {
    "RANK", "TIME",  "EVENT",  "CALL",    "COMM", "PEER",
    "TAG",  "BYTES", "RBYTES", "CONTYPE", "REQ",  "OP",
};

/* The RT_EVENT_KINDS letter of each optional column (0: every event has it). */
static const char field_letters[NFIELDS] = {0, 0, 0, 0, 'c', 'p', 't', 'b', 'r', 'k', 'q', 'o'};

typedef struct csv_reader {
    FILE *f;
    struct csv_parser parser;
    char *line;
    size_t line_cap;
    unsigned long lineno;  /* the line of the record being handled */
    unsigned long ev_line; /* the line of the last event handed out */
    int unterminated;      /* the record's line had no newline, so it is the file's last */
    /* The record's fields, each NUL-terminated, in one buffer reused from line to line and
     * sized for the line before parsing. Fields past the twelfth are only counted. */
    char *text;
    size_t text_len, text_cap;
    size_t off[NFIELDS];
    size_t nfields;
    int have_ranks, in_events;
    unsigned char *proc_seen; /* bitmap over world ranks while definitions are read */
    rt_event pending;         /* the first event, read while looking for the definitions */
    int has_pending;
    unsigned long pending_line;
    int done;    /* 1: at the end; -1: failed, and fail says why */
    char *note;  /* a "# truncated: " comment: reported at the end */
    rt_err fail; /* replayed by later calls so a failed reader never resumes mid-file */
} csv_reader;

typedef struct csv_writer {
    FILE *f;
    char *buf;   /* stdio buffer: must outlive f */
    int regular; /* a regular file, so removing it on failure is safe (not /dev/stdout) */
} csv_writer;

/* ---- reading: lines and fields -------------------------------------------------------------- */

static char *fld(const csv_reader *cr, int i)
{
    return cr->text + cr->off[i];
}

/* A field as it may appear in a one-line message: short, printable ASCII. */
static const char *show(char out[SHOW_LEN], const char *s)
{
    size_t i = 0;
    for (; s[i] && i < SHOW_LEN - 4; i++)
        out[i] = (unsigned char)s[i] < 0x20 || (unsigned char)s[i] >= 0x7f ? '?' : s[i];
    if (s[i])
        memcpy(out + i, "...", 3), i += 3;
    out[i] = '\0';
    return out;
}

static void on_field(void *s, size_t len, void *data)
{
    csv_reader *cr = data;
    size_t n = cr->nfields++;
    if (n >= NFIELDS)
        return;
    if (len)
        memcpy(cr->text + cr->text_len, s, len);
    cr->text[cr->text_len + len] = '\0';
    cr->off[n] = cr->text_len;
    cr->text_len += len + 1;
}

/* Reads up to the next record and splits it into fields. 1: a record; 0: end of file. */
static int read_record(csv_reader *cr, rt_err *e)
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
        if (RT_VEC_RESERVE(cr->text, cr->text_cap, (uint64_t)n + NFIELDS, 0) < 0)
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

/* ---- reading: values ------------------------------------------------------------------------- */

static int get_u(const char *s, uint64_t max, const char *what, uint64_t *out, rt_err *e)
{
    char sb[SHOW_LEN];
    if (rt_parse_u64(s, out) || *out > max)
        return rt_err_set(e, RT_E_INVAL, "bad number '%s' in %s", show(sb, s), what);
    return 0;
}

static size_t count_list(const char *s)
{
    size_t n = 1;
    for (; *s; s++)
        n += *s == ' ';
    return n;
}

/* World ranks separated by single spaces; the field is split in place. */
static int parse_list(char *s, const char *what, uint32_t *dst, rt_err *e)
{
    if (!*s)
        return rt_err_set(e, RT_E_FORMAT, "field %s is empty", what);
    for (;;) {
        char *sp = strchr(s, ' ');
        if (sp)
            *sp = '\0';
        uint64_t v;
        int rc = get_u(s, UINT32_MAX, what, &v, e);
        if (rc)
            return rc;
        *dst++ = (uint32_t)v;
        if (!sp)
            return 0;
        s = sp + 1;
    }
}

/* The member lists of a comm or group record from field i on: MEMBERS, then REMOTE when
 * nlists is 2. n[k] is each list's length; *m is a new array of both. */
static int parse_members(csv_reader *cr, int i, int nlists, uint32_t **m, size_t n[2], rt_err *e)
{
    static const char *const what[2] = {"MEMBERS", "REMOTE"};
    n[0] = n[1] = 0;
    for (int k = 0; k < nlists; k++)
        n[k] = *fld(cr, i + k) ? count_list(fld(cr, i + k)) : 0;
    if (n[0] + n[1] > UINT32_MAX)
        return rt_err_set(e, RT_E_INVAL, "too many members");
    if (!(*m = malloc((n[0] + n[1] + 1) * sizeof **m)))
        return rt_err_set(e, RT_E_NOMEM, "out of memory for %zu members", n[0] + n[1]);
    int rc = 0;
    for (int k = 0; k < nlists && !rc; k++)
        rc = parse_list(fld(cr, i + k), what[k], *m + (k ? n[0] : 0), e);
    if (rc) {
        free(*m);
        *m = NULL;
    }
    return rc;
}

/* ---- reading: records ------------------------------------------------------------------------ */

/* Definition records get their leading numeric fields parsed into v[] before they run. */
static int def_ranks(rt_reader *r, csv_reader *cr, const uint32_t *v, rt_err *e)
{
    if (cr->have_ranks)
        return rt_err_set(e, RT_E_FORMAT, "ranks given twice");
    if (v[0] == 0 || v[0] > INT32_MAX)
        return rt_err_set(e, RT_E_INVAL, "number of ranks %u out of range (1 to %d)",
                          (unsigned)v[0], INT32_MAX);
    int rc = rt_defs_init(&r->defs, v[0], e);
    cr->have_ranks = !rc;
    return rc;
}

static int def_proc(rt_reader *r, csv_reader *cr, const uint32_t *v, rt_err *e)
{
    uint32_t rank = v[0];
    if (rank >= r->defs.nranks)
        return rt_err_set(e, RT_E_INVAL, "proc: rank %u is not a world rank (0 to %u)",
                          (unsigned)rank, (unsigned)r->defs.nranks - 1);
    if (!cr->proc_seen && !(cr->proc_seen = calloc(r->defs.nranks / 8 + 1, 1)))
        return rt_err_set(e, RT_E_NOMEM, "out of memory");
    unsigned char bit = (unsigned char)(1u << (rank % 8));
    if (cr->proc_seen[rank / 8] & bit)
        return rt_err_set(e, RT_E_INVAL, "proc: rank %u given twice", (unsigned)rank);
    cr->proc_seen[rank / 8] |= bit;
    r->defs.node[rank] = v[1];
    r->defs.module[rank] = v[2];
    return 0;
}

static int def_comm(rt_reader *r, csv_reader *cr, const uint32_t *v, rt_err *e)
{
    if (v[0] == RT_COMM_WORLD || v[0] == RT_COMM_SELF)
        return rt_err_set(e, RT_E_INVAL, "communicator %u is predefined", (unsigned)v[0]);
    int inter = cr->nfields == 6;
    uint32_t *m;
    size_t n[2];
    int rc = parse_members(cr, 4, inter ? 2 : 1, &m, n, e);
    if (rc)
        return rc;
    rc = rt_defs_add_comm(&r->defs, v[0], v[1], inter ? RT_COMM_IS_INTER : 0, (uint32_t)n[0],
                          (uint32_t)n[1], m, fld(cr, 3), e);
    free(m);
    return rc;
}

static int def_group(rt_reader *r, csv_reader *cr, const uint32_t *v, rt_err *e)
{
    uint32_t *m;
    size_t n[2];
    int rc = parse_members(cr, 2, 1, &m, n, e);
    if (rc)
        return rc;
    rc = rt_defs_add_group(&r->defs, v[0], (uint32_t)n[0], m, e);
    free(m);
    return rc;
}

static int def_win(rt_reader *r, csv_reader *cr, const uint32_t *v, rt_err *e)
{
    (void)cr;
    return rt_defs_add_win(&r->defs, v[0], v[1], e);
}

/* A neighbour list: communicator ranks or "none" (MPI_PROC_NULL), single spaces between
 * them; an empty field is an empty list. *v is a new array (n entries). */
static int parse_nbr_list(char *s, const char *what, int32_t **v, uint32_t *n, rt_err *e)
{
    size_t len = *s ? count_list(s) : 0;
    *n = 0;
    if (len > RT_MAX_DEGREE)
        return rt_err_set(e, RT_E_INVAL, "field %s has %zu entries, more than %u", what, len,
                          (unsigned)RT_MAX_DEGREE);
    if (!(*v = malloc((len + 1) * sizeof **v)))
        return rt_err_set(e, RT_E_NOMEM, "out of memory for %zu neighbours", len);
    for (size_t i = 0; i < len; i++) {
        char *sp = strchr(s, ' ');
        if (sp)
            *sp = '\0';
        uint64_t x;
        int rc = 0;
        if (!strcmp(s, "none"))
            (*v)[i] = RT_PEER_NONE;
        else if ((rc = get_u(s, INT32_MAX, what, &x, e)) == 0)
            (*v)[i] = (int32_t)x;
        if (rc) {
            free(*v);
            *v = NULL;
            return rc;
        }
        s = sp ? sp + 1 : s + strlen(s);
    }
    *n = (uint32_t)len;
    return 0;
}

static int def_nbrs(rt_reader *r, csv_reader *cr, const uint32_t *v, rt_err *e)
{
    int32_t *in = NULL, *out = NULL;
    uint32_t nin, nout;
    int rc = parse_nbr_list(fld(cr, 3), "SOURCES", &in, &nin, e);
    if (!rc)
        rc = parse_nbr_list(fld(cr, 4), "DESTINATIONS", &out, &nout, e);
    if (!rc)
        rc = rt_defs_add_nbrs(&r->defs, v[0], v[1], nin, in, nout, out, e);
    free(in);
    free(out);
    return rc;
}

static const struct def_record {
    const char *name;
    size_t lo, hi;      /* number of fields */
    const char *num[3]; /* the uint32 fields from the second on; PARENT may be empty (none) */
    int (*add)(rt_reader *r, csv_reader *cr, const uint32_t *v, rt_err *e);
} def_records[] = {
    {"ranks", 2, 2, {"N"}, def_ranks},          {"proc", 4, 4, {"R", "NODE", "MODULE"}, def_proc},
    {"comm", 5, 6, {"ID", "PARENT"}, def_comm}, {"group", 3, 3, {"ID"}, def_group},
    {"win", 3, 3, {"ID", "COMM"}, def_win},     {"neighbors", 5, 5, {"COMM", "RANK"}, def_nbrs},
};

static int definition(rt_reader *r, csv_reader *cr, const struct def_record *d, rt_err *e)
{
    if (cr->in_events)
        return rt_err_set(e, RT_E_FORMAT, "definition after the first event");
    if (cr->nfields < d->lo || cr->nfields > d->hi)
        return d->lo == d->hi ? rt_err_set(e, RT_E_FORMAT, "%s has %zu fields, expected %zu",
                                           d->name, cr->nfields, d->lo)
                              : rt_err_set(e, RT_E_FORMAT, "%s has %zu fields, expected %zu or %zu",
                                           d->name, cr->nfields, d->lo, d->hi);
    uint32_t v[3] = {0, 0, 0};
    for (int i = 0; i < 3 && d->num[i]; i++) {
        uint64_t x = RT_ID_NONE;
        int rc = 0;
        if (*fld(cr, i + 1) || strcmp(d->num[i], "PARENT"))
            rc = get_u(fld(cr, i + 1), UINT32_MAX, d->num[i], &x, e);
        if (rc)
            return rc;
        v[i] = (uint32_t)x;
    }
    return d->add(r, cr, v, e);
}

/* One column of an event that its kind uses and that is not empty. */
static int event_field(rt_event *ev, int i, const char *s, rt_err *e)
{
    char sb[SHOW_LEN];
    const char *name = field_names[i];
    uint64_t u;
    int64_t v;
    int x, rc = 0;
    switch (i) {
    case F_COMM:
        rc = get_u(s, UINT32_MAX, name, &u, e);
        ev->comm = (uint32_t)u;
        break;
    case F_PEER:
        if (!strcmp(s, "all") || !strcmp(s, "none")) {
            ev->peer = *s == 'a' ? RT_PEER_ALL : RT_PEER_NONE;
            break;
        }
        /* fall through */
    case F_TAG:
        if (rt_parse_i64(s, &v) || v < INT32_MIN || v > INT32_MAX)
            return rt_err_set(e, RT_E_INVAL, "bad number '%s' in %s", show(sb, s), name);
        *(i == F_PEER ? &ev->peer : &ev->tag) = (int32_t)v;
        break;
    case F_BYTES:
    case F_RBYTES:
        if (s[0] == '-' && !rt_parse_u64(s + 1, &u) && u > 0)
            return rt_err_set(e, RT_E_INVAL, "negative byte count %s in %s", show(sb, s), name);
        rc = get_u(s, UINT64_MAX, name, i == F_BYTES ? &ev->bytes : &ev->rbytes, e);
        break;
    case F_CONTYPE:
        if ((x = rt_contype_lookup(s)) < 0)
            return rt_err_set(e, RT_E_INVAL, "unknown connection type '%s'", show(sb, s));
        ev->contype = (uint8_t)x;
        break;
    case F_REQ:
        rc = get_u(s, UINT64_MAX, name, &ev->req, e);
        break;
    case F_OP:
        if ((x = rt_event_op_lookup(ev->kind, s)) < 0)
            return rt_err_set(e, RT_E_INVAL, "unknown op '%s' for event %s", show(sb, s),
                              rt_event_kind_name(ev->kind));
        ev->op = (uint8_t)x;
        break;
    }
    return rc;
}

static int rec_event(csv_reader *cr, rt_event *ev, rt_err *e)
{
    char sb[SHOW_LEN];
    uint64_t v;
    if (cr->nfields != NFIELDS)
        return rt_err_set(e, RT_E_FORMAT, "event has %zu fields, expected %d", cr->nfields,
                          NFIELDS);
    memset(ev, 0, sizeof *ev);
    int rc = get_u(fld(cr, F_RANK), UINT32_MAX, "RANK", &v, e);
    if (rc)
        return rc;
    ev->rank = (uint32_t)v;
    if ((rc = get_u(fld(cr, F_TIME), UINT64_MAX, "TIME", &ev->time, e)))
        return rc;
    int k = rt_event_kind_lookup(fld(cr, F_EVENT));
    if (k < 0)
        return rt_err_set(e, RT_E_INVAL, "unknown event '%s'", show(sb, fld(cr, F_EVENT)));
    ev->kind = (uint8_t)k;
    const char *kname = rt_event_kind_name((unsigned)k), *call = fld(cr, F_CALL);
    if (*call && (ev->call = (uint16_t)rt_func_lookup(call)) == RT_FN_NONE)
        return rt_err_set(e, RT_E_INVAL, "unknown MPI function '%s'", show(sb, call));
    if (!*call && (k == RT_EV_ENTER || k == RT_EV_LEAVE))
        return rt_err_set(e, RT_E_FORMAT, "field CALL is required by event %s", kname);
    const char *uses = rt_event_kind_fields((unsigned)k);
    for (int i = F_COMM; i < NFIELDS; i++) {
        const char *s = fld(cr, i);
        if (!strchr(uses, field_letters[i])) {
            if (*s)
                return rt_err_set(e, RT_E_FORMAT, "field %s is not used by event %s",
                                  field_names[i], kname);
            continue;
        }
        if (!*s) {
            if (i == F_CONTYPE)
                continue; /* RT_CT_NONE: the connection was not recorded */
            if (i == F_OP && rt_event_op_lookup((unsigned)k, "") == 0)
                continue; /* a receive posted without wildcards */
            if (i == F_PEER && (k == RT_EV_COLL_END || k == RT_EV_NBC_COMPLETE)) {
                ev->peer = RT_PEER_NONE; /* a rootless collective */
                continue;
            }
            return rt_err_set(e, RT_E_FORMAT, "field %s is required by event %s", field_names[i],
                              kname);
        }
        if ((rc = event_field(ev, i, s, e)))
            return rc;
    }
    return 0;
}

/* 1: an event in *ev; 2: a definition, now in r->defs; < 0: error (e without the place). */
static int handle_record(rt_reader *r, csv_reader *cr, rt_event *ev, rt_err *e)
{
    char sb[SHOW_LEN];
    const char *first = fld(cr, 0);
    int is_event = *first >= '0' && *first <= '9';
    if (!cr->have_ranks && (is_event || strcmp(first, "ranks")))
        return rt_err_set(e, RT_E_FORMAT, "first record must be 'ranks,N'");
    if (is_event) {
        cr->in_events = 1;
        int rc = rec_event(cr, ev, e);
        return rc ? rc : 1;
    }
    for (size_t i = 0; i < sizeof def_records / sizeof *def_records; i++)
        if (!strcmp(first, def_records[i].name)) {
            int rc = definition(r, cr, &def_records[i], e);
            return rc ? rc : 2;
        }
    return rt_err_set(e, RT_E_FORMAT, "unknown record '%s'", show(sb, first));
}

/* Reads and handles the next record: 1 an event; 2 a definition; 0 the end; < 0 an error
 * with its place. A bad last line without a newline is where a writer was cut off. */
static int step(rt_reader *r, csv_reader *cr, rt_event *ev, rt_err *err)
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
    csv_reader *cr = r->impl;
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
    const csv_reader *cr = r->impl;
    snprintf(buf, len, "%s:%lu", r->path, cr->ev_line);
}

static void csv_reader_close(rt_reader *r)
{
    csv_reader *cr = r->impl;
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
    const csv_reader *cr = r->impl;
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
    csv_reader *cr = calloc(1, sizeof *cr);
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

/* ---- writing --------------------------------------------------------------------------------- */

static int write_failed(const rt_writer *w, int errnum, rt_err *err)
{
    return rt_err_set(err, RT_E_IO, "%s: write failed: %s", w->path,
                      strerror(errnum ? errnum : EIO));
}

static char *put_u(char *p, uint64_t v)
{
    char tmp[20];
    int n = 0;
    do
        tmp[n++] = (char)('0' + v % 10);
    while ((v /= 10));
    while (n)
        *p++ = tmp[--n];
    return p;
}

static char *put_s(char *p, const char *s)
{
    size_t n = strlen(s);
    memcpy(p, s, n);
    return p + n;
}

/* ev is normalised and checked, so names exist and unused fields are zero. Formatting by
 * hand rather than with fprintf halves the time per event. */
static int event_write(rt_writer *w, const rt_event *ev, rt_err *err)
{
    csv_writer *cw = w->impl;
    const char *uses = rt_event_kind_fields(ev->kind);
    const char *peer = ev->peer == RT_PEER_ALL ? "all" : ev->peer == RT_PEER_NONE ? "" : NULL;
    const char *text[NFIELDS] = {
        [F_EVENT] = rt_event_kind_name(ev->kind),
        [F_CALL] = rt_func_name(ev->call),
        [F_PEER] = peer,
        [F_CONTYPE] = rt_contype_name(ev->contype),
        [F_OP] = rt_event_op_name(ev->kind, ev->op),
    };
    const uint64_t num[NFIELDS] = {
        [F_RANK] = ev->rank,   [F_TIME] = ev->time,     [F_COMM] = ev->comm,
        [F_BYTES] = ev->bytes, [F_RBYTES] = ev->rbytes, [F_REQ] = ev->req,
    };
    char row[512], *p = row; /* names are short: a row is at most about 260 bytes */
    for (int i = 0; i < NFIELDS; i++) {
        if (i)
            *p++ = ',';
        if (!strchr(uses, field_letters[i])) /* a 0 letter matches the NUL: every event */
            continue;
        if (text[i]) {
            p = put_s(p, text[i]);
        } else if (i == F_PEER || i == F_TAG) {
            int32_t v = i == F_PEER ? ev->peer : ev->tag;
            if (v < 0)
                *p++ = '-';
            p = put_u(p, v < 0 ? 0 - (uint64_t)v : (uint64_t)v);
        } else {
            p = put_u(p, num[i]);
        }
    }
    *p++ = '\n';
    if (fwrite(row, 1, (size_t)(p - row), cw->f) != (size_t)(p - row))
        return write_failed(w, errno, err);
    return 0;
}

/* Names are quoted only when an unquoted field would not read back the same. A line break
 * would split the record, so it becomes a space: the one change a name can suffer. */
static void put_name(FILE *f, const char *s)
{
    if (!s[strcspn(s, ",\" \t\r\n\v\f")]) {
        fputs(s, f);
        return;
    }
    putc('"', f);
    for (; *s; s++) {
        if (*s == '"')
            putc('"', f);
        putc(*s == '\n' || *s == '\r' ? ' ' : *s, f);
    }
    putc('"', f);
}

static void put_members(FILE *f, const uint32_t *m, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        fprintf(f, i ? " %u" : "%u", (unsigned)m[i]);
}

static void put_nbr_list(FILE *f, const int32_t *v, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) {
        if (i)
            putc(' ', f);
        if (v[i] == RT_PEER_NONE)
            fputs("none", f);
        else
            fprintf(f, "%d", (int)v[i]);
    }
}

/* Writes the header and definitions; stdio keeps an error flag, checked once at the end. */
static int write_defs(FILE *f, const rt_defs *d)
{
    fprintf(f, "# retrace trace (CSV form, version 1)\nranks,%u\n", (unsigned)d->nranks);
    for (uint32_t i = 0; i < d->nranks; i++)
        if (d->node[i] || d->module[i])
            fprintf(f, "proc,%u,%u,%u\n", (unsigned)i, (unsigned)d->node[i],
                    (unsigned)d->module[i]);
    for (uint32_t i = 0; i < d->ncomms; i++) {
        const rt_comm_def *c = &d->comms[i];
        if (c->id == RT_COMM_WORLD || c->id == RT_COMM_SELF)
            continue;
        fprintf(f, "comm,%u,", (unsigned)c->id);
        if (c->parent != RT_ID_NONE)
            fprintf(f, "%u", (unsigned)c->parent);
        putc(',', f);
        put_name(f, c->name ? c->name : "");
        putc(',', f);
        put_members(f, c->members, c->size);
        if (c->flags & RT_COMM_IS_INTER) {
            putc(',', f);
            put_members(f, c->members + c->size, c->remote_size);
        }
        putc('\n', f);
    }
    for (uint32_t i = 0; i < d->ngroups; i++) {
        fprintf(f, "group,%u,", (unsigned)d->groups[i].id);
        put_members(f, d->groups[i].members, d->groups[i].size);
        putc('\n', f);
    }
    for (uint32_t i = 0; i < d->nwins; i++)
        fprintf(f, "win,%u,%u\n", (unsigned)d->wins[i].id, (unsigned)d->wins[i].comm);
    for (uint32_t i = 0; i < d->nnbrs; i++) {
        const rt_nbr_def *n = &d->nbrs[i];
        fprintf(f, "neighbors,%u,%u,", (unsigned)n->comm, (unsigned)n->rank);
        put_nbr_list(f, n->in, n->nin);
        putc(',', f);
        put_nbr_list(f, n->out, n->nout);
        putc('\n', f);
    }
    fputs("# rank,time,event,call,comm,peer,tag,bytes,rbytes,contype,req,op\n", f);
    return ferror(f) ? -RT_E_IO : 0;
}

static void writer_free(rt_writer *w)
{
    csv_writer *cw = w->impl;
    free(cw->buf);
    free(cw);
    w->impl = NULL;
}

static int csv_writer_close(rt_writer *w, rt_err *err)
{
    csv_writer *cw = w->impl;
    if (w->truncated) { /* one line: newlines in the note would end the comment */
        fputs(RT__TRUNCATED_COMMENT, cw->f);
        for (const char *p = w->truncated; *p; p++)
            fputc(*p == '\n' || *p == '\r' ? ' ' : *p, cw->f);
        fputc('\n', cw->f);
    }
    int bad = ferror(cw->f);
    errno = 0;
    if (fclose(cw->f) != 0 || bad) {
        int rc = write_failed(w, errno, err);
        if (cw->regular) /* a half-written trace would read as a cut-short one */
            unlink(w->path);
        writer_free(w);
        return rc;
    }
    writer_free(w);
    return 0;
}

static void csv_writer_abort(rt_writer *w)
{
    csv_writer *cw = w->impl;
    fclose(cw->f);
    if (cw->regular)
        unlink(w->path);
    writer_free(w);
}

static const rt__writer_ops csv_writer_ops = {
    .write = event_write,
    .close = csv_writer_close,
    .abort = csv_writer_abort,
};

int rt__csv_create(rt_writer *w, rt_err *err)
{
    const rt_defs *d = &w->defs;
    for (uint32_t i = 0; i < d->ngroups; i++)
        if (d->groups[i].size == 0)
            return rt_err_set(err, RT_E_INVAL,
                              "%s: group %u has no members, which the CSV "
                              "form cannot hold",
                              w->path, (unsigned)d->groups[i].id);
    csv_writer *cw = calloc(1, sizeof *cw);
    if (!cw || !(cw->buf = malloc(WRITE_BUF))) {
        free(cw);
        return rt_err_set(err, RT_E_NOMEM, "%s: out of memory", w->path);
    }
    if (!(cw->f = fopen(w->path, "wb"))) {
        int rc = rt_err_set(err, RT_E_IO, "%s: %s", w->path, strerror(errno));
        free(cw->buf);
        free(cw);
        return rc;
    }
    struct stat st;
    cw->regular = fstat(fileno(cw->f), &st) == 0 && S_ISREG(st.st_mode);
    setvbuf(cw->f, cw->buf, _IOFBF, WRITE_BUF);
    w->ops = &csv_writer_ops;
    w->impl = cw;
    errno = 0;
    if (write_defs(cw->f, d) < 0) {
        int rc = write_failed(w, errno, err);
        csv_writer_abort(w);
        w->ops = NULL;
        return rc;
    }
    return 0;
}
