/*
 * report/: how results are shown, the same for analyses and replays: tables with aligned text
 * and CSV (libcsv) forms, gnuplot plots of a table, the report an analysis or a replay hands
 * back, and the progress bar of a long pass. It knows no trace format beyond the reader's
 * progress and no analysis or engine.
 */
#ifndef RT_REPORT_H
#define RT_REPORT_H

#include <stdint.h>
#include <stdio.h>

#include "rt_checked.h"
#include "rt_error.h"
#include "rt_trace.h"

/* ---- tables ------------------------------------------------------------------------------- */

typedef struct rt_table rt_table;

/* name: a short identifier (CSV file suffix, e.g. "matrix"); title: the heading printed
 * above the text form (may be NULL); columns: header names; align: one 'l' or 'r' per column. */
rt_table *rt_table_new(const char *name, const char *title, unsigned ncols,
                       const char *const *columns, const char *align);
void rt_table_free(rt_table *t);
/* Starts a row; its cells follow one by one, left to right. 0 or -RT_E_NOMEM. */
int rt_table_row(rt_table *t);
int rt_table_cell(rt_table *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int rt_table_cell_u64(rt_table *t, uint64_t v);
/* A total that may pass 2^64 (rt_checked.h), in decimal. */
int rt_table_cell_u128(rt_table *t, rt_u128 v);
unsigned rt_table_nrows(const rt_table *t);
unsigned rt_table_ncols(const rt_table *t);
const char *rt_table_name(const rt_table *t);
const char *rt_table_get(const rt_table *t, unsigned row, unsigned col);
const char *rt_table_column(const rt_table *t, unsigned col);
/* Aligned text: the title, the header, the rows; columns two spaces apart. */
int rt_table_write_text(const rt_table *t, FILE *out);
/* RFC 4180 CSV through libcsv: the header, then the rows. */
int rt_table_write_csv(const rt_table *t, FILE *out);

/* A list of tables a pass produces, in print order. */
typedef struct rt_tables {
    rt_table **t;
    unsigned n, cap;
} rt_tables;

int rt_tables_add(rt_tables *ts, rt_table *t); /* takes t (frees it on failure) */
void rt_tables_free(rt_tables *ts);
/* Writes the tables as CSV: the first to path, the others to path with "-NAME" put before
 * its extension (gw.csv, gw-matrix.csv, ...). Reports the path in err on failure. */
int rt_tables_write_csv(const rt_tables *ts, const char *path, rt_err *err);
/* The CSV path of table i (for messages and tests). */
void rt_tables_csv_path(const rt_tables *ts, unsigned i, const char *path, char *buf, size_t len);

/* ---- plots (gnuplot) ------------------------------------------------------------------------ */

typedef enum rt_plot_kind {
    RT_PLOT_BARS,    /* column 0: labels, column 1: values (log2 bins of a histogram) */
    RT_PLOT_HEATMAP, /* column 0: row labels, columns 1..: values (a square matrix) */
    RT_PLOT_LINES    /* column 0: x (log2 scale), columns 1..: one line each */
} rt_plot_kind;

/* Draws table t with gnuplot into path (.svg or .png decides the terminal). The gnuplot
 * program is $RETRACE_GNUPLOT, else "gnuplot". xlabel/ylabel may be NULL. */
int rt_plot(const rt_table *t, rt_plot_kind kind, const char *title, const char *xlabel,
            const char *ylabel, const char *path, rt_err *err);
/* The same chart, empty, with note in its middle: for a report asked for a plot that has
 * nothing to draw (its tables say why). */
int rt_plot_note(const char *note, rt_plot_kind kind, const char *title, const char *xlabel,
                 const char *ylabel, const char *path, rt_err *err);
/* 0 when path ends in .svg or .png (any case), else -RT_E_INVAL with the reason. */
int rt_plot_check_path(const char *path, rt_err *err);

/* ---- reports -------------------------------------------------------------------------------- */

/* What every analysis and replay hands back: its tables, the table its plot draws (NULL: no
 * plot), and the reader's note when the trace was cut short. Free with rt_report_free, also
 * after a failure. */
typedef struct rt_report {
    rt_tables tables;
    rt_table *plot;
    char *truncated;
} rt_report;
void rt_report_free(rt_report *r);

/* ---- progress ---------------------------------------------------------------------------------
 */

/* A progress bar on stderr, shown only when stderr is a terminal and the pass has run for
 * more than a second. Call rt_progress_tick every event (cheap), rt_progress_end at the end. */
typedef struct rt_progress {
    const rt_reader *r;
    uint64_t events, next_check;
    double start;
    int shown, tty;
} rt_progress;

void rt_progress_begin(rt_progress *p, const rt_reader *r);
void rt_progress_update(rt_progress *p);
static inline void rt_progress_tick(rt_progress *p)
{
    if (++p->events >= p->next_check)
        rt_progress_update(p);
}
/* The same for n events at once (a block). */
static inline void rt_progress_add(rt_progress *p, uint64_t n)
{
    if ((p->events += n) >= p->next_check)
        rt_progress_update(p);
}
void rt_progress_end(rt_progress *p);

/* A progress line on stderr for work in steps that take long each (replays on MPI, the pairs
 * of ranks calibrate measures), shown only when stderr is a terminal:
 * "WHAT: K of N: DETAIL (T s)", cut at 79 columns, rewritten at each step, cleared at the end.
 * rt_steps_next as each step starts. */
typedef struct rt_steps {
    const char *what;
    unsigned k, n;
    double start;
    int tty, width; /* width: of the line shown (0: none) */
    FILE *out;      /* stderr (tests may point it elsewhere, and set tty) */
} rt_steps;

void rt_steps_begin(rt_steps *s, const char *what, unsigned n);
void rt_steps_next(rt_steps *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void rt_steps_end(rt_steps *s);
/* Clears the line shown, if any, so that a message goes on a line of its own (the next
 * step shows it again): for whatever prints errors and warnings. */
void rt_steps_clear(void);

#endif /* RT_REPORT_H */
