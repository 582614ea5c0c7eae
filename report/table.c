/*
 * Tables: every result of the analyzer is one, so that text, CSV and plots come from the
 * same cells. Cells are kept as text; tables hold results, not events, so they stay small.
 */
#define _GNU_SOURCE /* asprintf */
#include <csv.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "rt_report.h"
#include "rt_vec.h"

struct rt_table {
    char *name, *title;
    unsigned ncols, nrows;
    size_t cell_cap; /* cells */
    char **columns;
    char *align;
    char **cells;    /* nrows * ncols, row-major; NULL until set */
    unsigned filled; /* cells of the last row set so far */
};

rt_table *rt_table_new(const char *name, const char *title, unsigned ncols,
                       const char *const *columns, const char *align)
{
    rt_table *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    t->ncols = ncols;
    t->name = strdup(name);
    t->title = title ? strdup(title) : NULL;
    t->columns = calloc(ncols, sizeof *t->columns);
    t->align = calloc(ncols + 1, 1);
    if (!t->name || (title && !t->title) || !t->columns || !t->align) {
        rt_table_free(t);
        return NULL;
    }
    for (unsigned i = 0; i < ncols; i++) {
        t->align[i] = align && i < strlen(align) ? align[i] : 'r';
        if (!(t->columns[i] = strdup(columns[i]))) {
            rt_table_free(t);
            return NULL;
        }
    }
    return t;
}

void rt_table_free(rt_table *t)
{
    if (!t)
        return;
    for (size_t i = 0; i < (size_t)t->nrows * t->ncols; i++)
        free(t->cells[i]);
    for (unsigned i = 0; t->columns && i < t->ncols; i++)
        free(t->columns[i]);
    free(t->cells);
    free(t->columns);
    free(t->align);
    free(t->name);
    free(t->title);
    free(t);
}

int rt_table_row(rt_table *t)
{
    if (RT_VEC_RESERVE(t->cells, t->cell_cap, ((uint64_t)t->nrows + 1) * t->ncols,
                       (size_t)16 * t->ncols) < 0)
        return -RT_E_NOMEM;
    memset(t->cells + (size_t)t->nrows * t->ncols, 0, t->ncols * sizeof *t->cells);
    t->nrows++;
    t->filled = 0;
    return 0;
}

int rt_table_cell(rt_table *t, const char *fmt, ...)
{
    if (!t->nrows || t->filled >= t->ncols)
        return -RT_E_INVAL;
    va_list ap;
    va_start(ap, fmt);
    char *s = NULL;
    int n = vasprintf(&s, fmt, ap);
    va_end(ap);
    if (n < 0)
        return -RT_E_NOMEM;
    t->cells[(size_t)(t->nrows - 1) * t->ncols + t->filled++] = s;
    return 0;
}

int rt_table_cell_u64(rt_table *t, uint64_t v)
{
    return rt_table_cell(t, "%" PRIu64, v);
}

int rt_table_cell_u128(rt_table *t, rt_u128 v)
{
    char buf[RT_U128_LEN];
    return rt_table_cell(t, "%s", rt_u128_str(v, buf, sizeof buf));
}

unsigned rt_table_nrows(const rt_table *t)
{
    return t->nrows;
}

unsigned rt_table_ncols(const rt_table *t)
{
    return t->ncols;
}

const char *rt_table_name(const rt_table *t)
{
    return t->name;
}

const char *rt_table_get(const rt_table *t, unsigned row, unsigned col)
{
    if (row >= t->nrows || col >= t->ncols)
        return "";
    const char *s = t->cells[(size_t)row * t->ncols + col];
    return s ? s : "";
}

const char *rt_table_column(const rt_table *t, unsigned col)
{
    return col < t->ncols ? t->columns[col] : "";
}

int rt_table_write_text(const rt_table *t, FILE *out)
{
    size_t *w = calloc(t->ncols, sizeof *w);
    if (!w)
        return -RT_E_NOMEM;
    for (unsigned c = 0; c < t->ncols; c++) {
        w[c] = strlen(t->columns[c]);
        for (unsigned r = 0; r < t->nrows; r++) {
            size_t n = strlen(rt_table_get(t, r, c));
            if (n > w[c])
                w[c] = n;
        }
    }
    if (t->title)
        fprintf(out, "%s\n", t->title);
    for (int r = -1; r < (int)t->nrows; r++) {
        for (unsigned c = 0; c < t->ncols; c++) {
            const char *s = r < 0 ? t->columns[c] : rt_table_get(t, (unsigned)r, c);
            int last = c + 1 == t->ncols;
            if (t->align[c] == 'l')
                fprintf(out, "%s%-*s", c ? "  " : "", last ? 0 : (int)w[c], s);
            else
                fprintf(out, "%s%*s", c ? "  " : "", (int)w[c], s);
        }
        fputc('\n', out);
    }
    free(w);
    return ferror(out) ? -RT_E_IO : 0;
}

static int csv_row(FILE *out, char *const *cells, unsigned n)
{
    for (unsigned i = 0; i < n; i++) {
        const char *s = cells[i] ? cells[i] : "";
        if ((i && fputc(',', out) == EOF) || csv_fwrite(out, s, strlen(s)) != 0)
            return -RT_E_IO;
    }
    return fputc('\n', out) == EOF ? -RT_E_IO : 0;
}

int rt_table_write_csv(const rt_table *t, FILE *out)
{
    int rc = csv_row(out, t->columns, t->ncols);
    for (unsigned r = 0; !rc && r < t->nrows; r++)
        rc = csv_row(out, t->cells + (size_t)r * t->ncols, t->ncols);
    return rc;
}

int rt_tables_add(rt_tables *ts, rt_table *t)
{
    if (!t)
        return -RT_E_NOMEM;
    if (RT_VEC_RESERVE(ts->t, ts->cap, (uint64_t)ts->n + 1, 4) < 0) {
        rt_table_free(t);
        return -RT_E_NOMEM;
    }
    ts->t[ts->n++] = t;
    return 0;
}

void rt_tables_free(rt_tables *ts)
{
    for (unsigned i = 0; i < ts->n; i++)
        rt_table_free(ts->t[i]);
    free(ts->t);
    ts->t = NULL;
    ts->n = ts->cap = 0;
}

void rt_tables_csv_path(const rt_tables *ts, unsigned i, const char *path, char *buf, size_t len)
{
    if (i == 0) {
        snprintf(buf, len, "%s", path);
        return;
    }
    /* The extension is the last dot after the last slash. */
    const char *slash = strrchr(path, '/');
    const char *dot = strrchr(slash ? slash : path, '.');
    size_t stem = dot ? (size_t)(dot - path) : strlen(path);
    snprintf(buf, len, "%.*s-%s%s", (int)stem, path, rt_table_name(ts->t[i]), dot ? dot : "");
}

int rt_tables_write_csv(const rt_tables *ts, const char *path, rt_err *err)
{
    for (unsigned i = 0; i < ts->n; i++) {
        char p[4096];
        rt_tables_csv_path(ts, i, path, p, sizeof p);
        FILE *f = fopen(p, "w");
        if (!f)
            return rt_err_set(err, RT_E_IO, "%s: cannot write: %s", p, strerror(errno));
        int rc = rt_table_write_csv(ts->t[i], f);
        if (fclose(f) != 0 || rc)
            return rt_err_set(err, RT_E_IO, "%s: write failed: %s", p,
                              strerror(errno ? errno : EIO));
    }
    return 0;
}

void rt_report_free(rt_report *r)
{
    rt_tables_free(&r->tables);
    rt_table_free(r->plot);
    free(r->truncated);
    memset(r, 0, sizeof *r);
}
