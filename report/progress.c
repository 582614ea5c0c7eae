/* The progress bar of a long pass over a trace (rt_report.h). */
#include <stdio.h>
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
