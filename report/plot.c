/*
 * Plots: a table handed to gnuplot as inline data with a short script. gnuplot runs as a
 * child with the script on its standard input; its messages are kept and the first one is
 * reported if it fails. The output file must exist and be non-empty afterwards.
 */
#include <ctype.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "rt_report.h"

static int ends_with_nocase(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    if (n < m)
        return 0;
    for (size_t i = 0; i < m; i++)
        if (tolower((unsigned char)s[n - m + i]) != suffix[i])
            return 0;
    return 1;
}

int rt_plot_check_path(const char *path, rt_err *err)
{
    if (ends_with_nocase(path, ".svg") || ends_with_nocase(path, ".png"))
        return 0;
    return rt_err_set(err, RT_E_INVAL, "%s: a plot must be a .svg or .png file", path);
}

/* A gnuplot string in double quotes: backslashes and quotes escaped. */
static void put_quoted(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            fputc('\\', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

/* A number cell as gnuplot data ("?" when empty, which gnuplot skips). */
static const char *num(const char *s)
{
    return *s ? s : "?";
}

static void script_head(FILE *f, const char *path, const char *title, const char *xlabel,
                        const char *ylabel, int wide)
{
    if (ends_with_nocase(path, ".svg"))
        fprintf(f, "set terminal svg size %d,560 dynamic font 'sans,11' background '#ffffff'\n",
                wide ? 1000 : 760);
    else
        fprintf(f, "set terminal pngcairo size %d,560 font 'sans,10' background '#ffffff'\n",
                wide ? 1000 : 760);
    fputs("set output ", f);
    put_quoted(f, path);
    fputs("\nset encoding utf8\nset datafile missing '?'\nset title noenhanced ", f);
    put_quoted(f, title ? title : "");
    fputc('\n', f);
    if (xlabel) {
        fputs("set xlabel noenhanced ", f);
        put_quoted(f, xlabel);
        fputc('\n', f);
    }
    if (ylabel) {
        fputs("set ylabel noenhanced ", f);
        put_quoted(f, ylabel);
        fputc('\n', f);
    }
}

static void script_bars(FILE *f, const rt_table *t)
{
    fputs("$d << EOD\n", f);
    for (unsigned r = 0; r < rt_table_nrows(t); r++) {
        put_quoted(f, rt_table_get(t, r, 0));
        fprintf(f, " %s\n", num(rt_table_get(t, r, 1)));
    }
    fputs("EOD\n"
          "set style fill solid 0.85 border rgb '#1f3f66'\n"
          "set boxwidth 0.8\n"
          "set xtics rotate by -60 noenhanced nomirror\n"
          "set grid ytics\n"
          "set yrange [0:*]\n"
          "plot $d using 0:2:xtic(1) with boxes lc rgb '#3b75af' notitle\n",
          f);
}

static void script_heatmap(FILE *f, const rt_table *t)
{
    unsigned n = rt_table_nrows(t), m = rt_table_ncols(t) - 1;
    fputs("$d << EOD\n", f);
    for (unsigned r = 0; r < n; r++)
        for (unsigned c = 0; c < m; c++)
            fprintf(f, "%u %u %s\n", c, r, num(rt_table_get(t, r, c + 1)));
    fputs("EOD\n", f);
    /* Tick labels from the header (columns) and the first column (rows); only when they
     * stay readable. */
    if (m <= 40) {
        fputs("set xtics rotate by -60 noenhanced (", f);
        for (unsigned c = 0; c < m; c++) {
            fputs(c ? ", " : "", f);
            put_quoted(f, rt_table_column(t, c + 1));
            fprintf(f, " %u", c);
        }
        fputs(")\n", f);
    }
    if (n <= 40) {
        fputs("set ytics noenhanced (", f);
        for (unsigned r = 0; r < n; r++) {
            fputs(r ? ", " : "", f);
            put_quoted(f, rt_table_get(t, r, 0));
            fprintf(f, " %u", r);
        }
        fputs(")\n", f);
    }
    fprintf(
        f,
        "set xrange [-0.5:%u.5]\nset yrange [%u.5:-0.5]\n"
        "set palette defined (0 '#ffffff', 1 '#fde0c5', 2 '#f3a25d', 3 '#c2410c', 4 '#6b1d05')\n"
        "set cbrange [0:*]\nset size ratio -1\n",
        m ? m - 1 : 0, n ? n - 1 : 0);
    if (n <= 12 && m <= 12)
        fputs("plot $d using 1:2:3 with image notitle, "
              "$d using 1:2:(sprintf('%.0f', $3)) with labels notitle\n",
              f);
    else
        fputs("plot $d using 1:2:3 with image notitle\n", f);
}

static void script_lines(FILE *f, const rt_table *t)
{
    unsigned n = rt_table_nrows(t), m = rt_table_ncols(t);
    fputs("$d << EOD\n", f);
    for (unsigned c = 0; c < m; c++) {
        fputs(c ? " " : "", f);
        put_quoted(f, rt_table_column(t, c));
    }
    fputc('\n', f);
    for (unsigned r = 0; r < n; r++) {
        for (unsigned c = 0; c < m; c++)
            fprintf(f, "%s%s", c ? " " : "", num(rt_table_get(t, r, c)));
        fputc('\n', f);
    }
    fprintf(
        f,
        "EOD\n"
        "set logscale x 2\nset format x '%%.0b %%BB'\nset grid\nset key outside right noenhanced\n"
        "plot for [i=2:%u] $d using 1:i with linespoints pt 7 ps 0.6 title columnheader(i)\n",
        m);
}

/* An empty chart with a note in the middle. */
static void script_note(FILE *f, const char *note)
{
    fputs("set xrange [0:1]\nset yrange [0:1]\nunset xtics\nunset ytics\nunset key\n"
          "set label 1 noenhanced ",
          f);
    put_quoted(f, note);
    fputs(" at graph 0.5, graph 0.5 center\nplot 2 notitle\n", f); /* nothing in range */
}

/* Runs gnuplot on the script for t (or, t NULL, on an empty chart with note). */
static int draw(const rt_table *t, const char *note, rt_plot_kind kind, const char *title,
                const char *xlabel, const char *ylabel, const char *path, rt_err *err)
{
    const char *prog = getenv("RETRACE_GNUPLOT");
    if (!prog || !*prog)
        prog = "gnuplot";
    char log[] = "/tmp/retrace-gnuplot-XXXXXX";
    int lfd = mkstemp(log);
    if (lfd < 0)
        return rt_err_set(err, RT_E_IO, "%s: cannot make a temporary file: %s", path,
                          strerror(errno));
    unlink(path); /* so that a stale plot is never taken for a new one */
    int pfd[2];
    if (pipe(pfd) < 0) {
        close(lfd);
        unlink(log);
        return rt_err_set(err, RT_E_IO, "%s: pipe: %s", path, strerror(errno));
    }
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        dup2(pfd[0], 0);
        dup2(lfd, 1);
        dup2(lfd, 2);
        close(pfd[0]);
        close(pfd[1]);
        execlp(prog, prog, (char *)NULL);
        fprintf(stderr, "cannot run %s: %s\n", prog, strerror(errno));
        _exit(127);
    }
    close(pfd[0]);
    if (pid < 0) {
        close(pfd[1]);
        close(lfd);
        unlink(log);
        return rt_err_set(err, RT_E_IO, "%s: fork: %s", path, strerror(errno));
    }
    /* gnuplot may die before it has read the script (it could not start, say): a write to
     * its pipe then fails with EPIPE instead of killing us with SIGPIPE. */
    struct sigaction ign = {.sa_handler = SIG_IGN}, old;
    sigemptyset(&ign.sa_mask);
    sigaction(SIGPIPE, &ign, &old);
    FILE *f = fdopen(pfd[1], "w");
    if (f) {
        script_head(f, path, title, xlabel, ylabel, kind == RT_PLOT_LINES);
        if (!t)
            script_note(f, note);
        else if (kind == RT_PLOT_BARS)
            script_bars(f, t);
        else if (kind == RT_PLOT_HEATMAP)
            script_heatmap(f, t);
        else
            script_lines(f, t);
        fputs("set output\n", f);
        fclose(f);
    } else {
        close(pfd[1]);
    }
    sigaction(SIGPIPE, &old, NULL);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        continue;
    char first[512] = "";
    FILE *lf = fdopen(lfd, "r");
    if (lf) {
        rewind(lf);
        while (fgets(first, sizeof first, lf) && strspn(first, " \t\r\n^") == strlen(first))
            continue; /* gnuplot echoes the bad line and a caret first: skip blank ones */
        fclose(lf);
    } else {
        close(lfd);
    }
    unlink(log);
    first[strcspn(first, "\n")] = 0;
    struct stat st;
    int ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
    if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
        return rt_err_set(err, RT_E_IO,
                          "%s: cannot run %s (install gnuplot-nox or set RETRACE_GNUPLOT)", path,
                          prog);
    if (!ok || stat(path, &st) < 0 || st.st_size == 0)
        return rt_err_set(err, RT_E_IO, "%s: gnuplot failed%s%s", path, *first ? ": " : "", first);
    return 0;
}

int rt_plot(const rt_table *t, rt_plot_kind kind, const char *title, const char *xlabel,
            const char *ylabel, const char *path, rt_err *err)
{
    int rc = rt_plot_check_path(path, err);
    if (rc)
        return rc;
    if (rt_table_nrows(t) == 0 || rt_table_ncols(t) < 2)
        return rt_err_set(err, RT_E_INVAL, "%s: nothing to plot (the table is empty)", path);
    return draw(t, NULL, kind, title, xlabel, ylabel, path, err);
}

int rt_plot_note(const char *note, rt_plot_kind kind, const char *title, const char *xlabel,
                 const char *ylabel, const char *path, rt_err *err)
{
    int rc = rt_plot_check_path(path, err);
    return rc ? rc : draw(NULL, note, kind, title, xlabel, ylabel, path, err);
}
