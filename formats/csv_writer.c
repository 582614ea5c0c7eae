/*
 * Writer of retrace's CSV trace form (version 1; csv_reader.c reads it): a header comment,
 * the definitions, then one event per line in the 12 columns, formatted by hand.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rt__csv.h"

#define WRITE_BUF (1u << 20)

typedef struct csv_writer {
    FILE *f;
    char *buf;   /* stdio buffer: must outlive f */
    int regular; /* a regular file, so removing it on failure is safe (not /dev/stdout) */
} csv_writer;

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
    char asserts[64]; /* a fence's, post's or start's assert: its names, "" for none */
    const char *tag = ev->kind == RT_EV_RMA_COLL_END || ev->kind == RT_EV_RMA_GROUP_SYNC
                          ? rt_rma_assert_name((unsigned)ev->tag, asserts, sizeof asserts)
                          : NULL;
    const char *text[RT__CSV_NFIELDS] = {
        [RT__CSV_EVENT] = rt_event_kind_name(ev->kind),
        [RT__CSV_CALL] = rt_func_name(ev->call),
        [RT__CSV_PEER] = peer,
        [RT__CSV_TAG] = tag,
        [RT__CSV_CONTYPE] = rt_contype_name(ev->contype),
        [RT__CSV_OP] = rt_event_op_name(ev->kind, ev->op),
    };
    const uint64_t num[RT__CSV_NFIELDS] = {
        [RT__CSV_RANK] = ev->rank,   [RT__CSV_TIME] = ev->time,     [RT__CSV_COMM] = ev->comm,
        [RT__CSV_BYTES] = ev->bytes, [RT__CSV_RBYTES] = ev->rbytes, [RT__CSV_REQ] = ev->req,
    };
    char row[512], *p = row; /* names are short: a row is at most about 260 bytes */
    for (int i = 0; i < RT__CSV_NFIELDS; i++) {
        if (i)
            *p++ = ',';
        if (!strchr(uses, rt__csv_field_letters[i])) /* a 0 letter matches the NUL: every event */
            continue;
        if (text[i]) {
            p = put_s(p, text[i]);
        } else if (i == RT__CSV_PEER || i == RT__CSV_TAG) {
            int32_t v = i == RT__CSV_PEER ? ev->peer : ev->tag;
            if (v < 0)
                *p++ = '-';
            p = put_u(p, v < 0 ? (uint64_t) - (int64_t)v : (uint64_t)v);
        } else {
            p = put_u(p, num[i]);
        }
    }
    if (ev->esize || ev->resize) { /* the sizes column (rt__csv.h) */
        *p++ = ',';
        if (ev->esize)
            p = put_u(p, rt_esize_of(ev->esize));
        *p++ = '/';
        if (ev->resize)
            p = put_u(p, rt_esize_of(ev->resize));
    }
    if (ev->thread) { /* the thread column (rt__csv.h), after the sizes one, empty or not */
        if (!ev->esize && !ev->resize)
            *p++ = ',';
        *p++ = ',';
        p = put_u(p, ev->thread);
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

/* A window, with its name and info keys when it has them (a line each). */
static void put_win(FILE *f, const rt_win_def *w)
{
    fprintf(f, "win,%u,%u\n", (unsigned)w->id, (unsigned)w->comm);
    if (w->name) {
        fprintf(f, "win_name,%u,", (unsigned)w->id);
        put_name(f, w->name);
        putc('\n', f);
    }
    for (uint32_t k = 0; k < w->ninfo; k++) {
        fprintf(f, "win_info,%u,", (unsigned)w->id);
        put_name(f, w->info[k].key);
        putc(',', f);
        put_name(f, w->info[k].value);
        putc('\n', f);
    }
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

/* The real host of rank r, when known: host,R,ONLINE,NCPUS,NAME[,CPUS] (the list quoted: it
 * has commas). */
static void put_host(FILE *f, const rt_defs *d, uint32_t r)
{
    const rt_rank_host *rh = &d->rank_host[r];
    if (rh->host == RT_ID_NONE)
        return;
    fprintf(f, "host,%u,%u,%u,%s", (unsigned)r, (unsigned)d->hosts[rh->host].online,
            (unsigned)rh->ncpus, d->hosts[rh->host].name);
    if (rh->cpus) {
        putc(',', f);
        put_name(f, rh->cpus);
    }
    putc('\n', f);
}

/* Writes the header and definitions; stdio keeps an error flag, checked once at the end. */
static int write_defs(FILE *f, const rt_defs *d)
{
    fprintf(f, "# retrace trace (CSV form, version 1)\nranks,%u\n", (unsigned)d->nranks);
    if (d->flags & RT_DEFS_COLL_PEERS)
        fputs("peer_counts\n", f);
    if (d->flags & RT_DEFS_ELEM_SIZES)
        fputs("elem_sizes\n", f);
    if (d->library[0]) /* letters, digits, blanks and ._+- only: no quoting */
        fprintf(f, "mpi_library,%s\n", d->library);
    if (d->flags & RT_DEFS_BUFFERS)
        fputs("buffers\n", f);
    for (uint32_t i = 0; i < d->nranks; i++)
        if (d->node[i] || d->module[i])
            fprintf(f, "proc,%u,%u,%u\n", (unsigned)i, (unsigned)d->node[i],
                    (unsigned)d->module[i]);
    for (uint32_t i = 0; d->rank_host && i < d->nranks; i++)
        put_host(f, d, i);
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
        put_win(f, &d->wins[i]);
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
