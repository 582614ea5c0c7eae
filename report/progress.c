/* The progress bar of a long pass over a trace (rt_report.h). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "rt_report.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

#define PROGRESS_EVERY 262144u /* events between clock reads */

void rt_progress_begin(rt_progress *p, const rt_reader *r)
{
    memset(p, 0, sizeof *p);
    p->r = r;
    p->tty = isatty(2);
    p->start = now();
    p->next_check = PROGRESS_EVERY;
}

void rt_progress_update(rt_progress *p)
{
    p->next_check = p->events + PROGRESS_EVERY;
    if (!p->tty)
        return;
    double t = now() - p->start;
    if (t < 1.0)
        return; /* small traces: no bar */
    double f = rt_reader_progress(p->r);
    char bar[41];
    int fill = f < 0 ? 0 : (int)(f * 40);
    for (int i = 0; i < 40; i++)
        bar[i] = i < fill ? '#' : '.';
    bar[40] = 0;
    if (f >= 0)
        fprintf(stderr, "\r[%s] %3d%%  %llu events  %.1f M events/s", bar, (int)(f * 100),
                (unsigned long long)p->events, (double)p->events / t * 1e-6);
    else
        fprintf(stderr, "\r%llu events  %.1f M events/s", (unsigned long long)p->events,
                (double)p->events / t * 1e-6);
    p->shown = 1;
}

void rt_progress_end(rt_progress *p)
{
    if (p->shown)
        fprintf(stderr, "\r%*s\r", 79, "");
    p->shown = 0;
}

/* ---- a progress line for work in steps ------------------------------------------------------ */

static rt_steps *shown; /* the line on the terminal now, if any */

/* 1 when pid's standard error is a terminal, and *launcher when pid is an MPI launcher or its
 * proxy (it copies its children's output to its own); *parent is pid's parent. Linux /proc. */
static int on_terminal(long pid, int *launcher, long *parent)
{
    static const char *const launchers[] = {"hydra_pmi_proxy", "mpiexec", "mpiexec.hydra", "mpirun",
                                            "orted",           "prted",   "prterun"};
    char path[64], buf[512];
    *launcher = 0;
    *parent = 0;
    snprintf(path, sizeof path, "/proc/%ld/stat", pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    char *open = strchr(buf, '('), *close = strrchr(buf, ')'); /* "PID (COMM) S PPID" */
    if (!open || !close || close < open || sscanf(close + 1, " %*c %ld", parent) != 1)
        return 0;
    *close = '\0';
    for (size_t i = 0; i < sizeof launchers / sizeof *launchers; i++)
        *launcher |= !strcmp(open + 1, launchers[i]);
    snprintf(path, sizeof path, "/proc/%ld/fd/2", pid);
    ssize_t k = readlink(path, buf, sizeof buf - 1);
    buf[k > 0 ? k : 0] = '\0';
    return !strncmp(buf, "/dev/pts/", 9) || !strncmp(buf, "/dev/tty", 8);
}

/* Whether a progress line would reach a terminal: stderr is one, or under mpiexec (stderr a
 * pipe to the launcher, which copies it to its own) the launcher's is. RETRACE_PROGRESS=1 or
 * 0 decides instead. */
static int progress_wanted(void)
{
    const char *v = getenv("RETRACE_PROGRESS");
    if (v && *v)
        return strcmp(v, "0") != 0;
    if (isatty(2))
        return 1;
    long pid = (long)getppid(), parent;
    int launcher;
    for (int up = 0; up < 3 && pid > 1; up++, pid = parent) { /* proxy, mpiexec */
        int tty = on_terminal(pid, &launcher, &parent);
        if (!launcher) /* stderr redirected by a shell, say: not a launcher's copy */
            return 0;
        if (tty)
            return 1;
    }
    return 0;
}

void rt_steps_begin(rt_steps *s, const char *what, unsigned n)
{
    memset(s, 0, sizeof *s);
    s->what = what;
    s->n = n;
    s->out = stderr;
    s->tty = progress_wanted();
    s->start = now();
}

void rt_steps_next(rt_steps *s, const char *fmt, ...)
{
    s->k++;
    if (!s->tty)
        return;
    char detail[128], raw[200], line[4 * sizeof raw];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(detail, sizeof detail, fmt, ap);
    va_end(ap);
    snprintf(raw, sizeof raw, "%s: %u of %u: %s (%.0f s)", s->what, s->k, s->n, detail,
             now() - s->start);
    rt_escape(line, sizeof line, raw); /* a label from the command line, say */
    int len = (int)strlen(line) > 79 ? 79 : (int)strlen(line);
    /* over the previous line: spaces where it was longer */
    fprintf(s->out, "\r%.*s%*s", len, line, s->width > len ? s->width - len : 0, "");
    fflush(s->out);
    s->width = len;
    shown = s;
}

void rt_steps_clear(void)
{
    if (shown && shown->width) {
        fprintf(shown->out, "\r%*s\r", shown->width, "");
        fflush(shown->out);
        shown->width = 0;
    }
}

void rt_steps_end(rt_steps *s)
{
    if (s->tty && s->width) {
        fprintf(s->out, "\r%*s\r", s->width, "");
        fflush(s->out);
    }
    s->width = 0;
    if (shown == s)
        shown = NULL;
}
