/*
 * The tracer's clock: the processor's time-stamp counter (rdtsc) where the kernel vouches for
 * it, else CLOCK_MONOTONIC through clock_gettime, as before (docs/tracer.md, "The clock").
 *
 * Why the counter: clock_gettime costs 20 to 30 ns in a virtual machine even through the vDSO
 * (it reads the counter too, then scales it), twice a call; rdtsc alone costs a few ns. The
 * calls keep raw ticks; the rate is measured against CLOCK_MONOTONIC over the whole run, from a
 * sample before time 0 to the latest one, taken by every flusher round, MPI_Finalize and the
 * crash paths, and written in place into the rank's definitions file (rt_raw_def_clock), so
 * that even a run killed without warning leaves a calibration at most one flusher round old.
 * The reader turns ticks into ns once.
 *
 * Why only when the kernel says so: a counter that changes rate with the processor's frequency
 * or stops in deep sleep states (no constant_tsc or nonstop_tsc), or differs between cores
 * (the kernel then does not use it as its clocksource), would not be a clock.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "rt__tracer.h"

#define CPUINFO "/proc/cpuinfo"
#define CLOCKSOURCE "/sys/devices/system/clocksource/clocksource0/current_clocksource"
#define MIN_SPAN_NS UINT64_C(1000000) /* the first calibration spans at least 1 ms */
#define SAMPLE_TRIES 5

static uint64_t start_ticks, start_ns; /* the calibration span's start, before time 0 */
/* The latest calibration, for the tracer's own estimates (rt__ticks_ns). */
static _Atomic uint64_t cal_ticks, cal_ns;
static atomic_flag calibrating = ATOMIC_FLAG_INIT;

/* ---- which clock --------------------------------------------------------------------------- */

/* 1 when the first "flags" line of /proc/cpuinfo has both words. */
static int cpu_flags_say_invariant(void)
{
    FILE *f = fopen(CPUINFO, "r");
    if (!f)
        return 0;
    char line[8192];
    int constant = 0, nonstop = 0;
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "flags", 5))
            continue;
        char *save = NULL, *colon = strchr(line, ':');
        for (char *w = colon ? strtok_r(colon + 1, " \t\n", &save) : NULL; w;
             w = strtok_r(NULL, " \t\n", &save)) {
            constant |= !strcmp(w, "constant_tsc");
            nonstop |= !strcmp(w, "nonstop_tsc");
        }
        break;
    }
    fclose(f);
    return constant && nonstop;
}

static int kernel_clocksource_is_tsc(void)
{
    char buf[32] = "";
    int fd = open(CLOCKSOURCE, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    return n > 0 && !strcmp(buf, "tsc\n");
}

/* 1: the counter; 0: CLOCK_MONOTONIC. RETRACE_CLOCK decides, else the kernel's word. */
static int choose_tsc(void)
{
    const char *v = getenv("RETRACE_CLOCK");
    if (v && !strcmp(v, "monotonic"))
        return 0;
    if (v && *v && strcmp(v, "tsc")) {
        if (rt__g.rank == 0)
            rt__warn("RETRACE_CLOCK=%s: expected monotonic or tsc; using monotonic", v);
        return 0;
    }
#if defined(__x86_64__)
    if (v && *v)
        return 1; /* tsc: forced, whatever the kernel says */
    return cpu_flags_say_invariant() && kernel_clocksource_is_tsc();
#else
    if (v && *v && rt__g.rank == 0)
        rt__warn("RETRACE_CLOCK=tsc: no time-stamp counter on this processor; using monotonic");
    return 0;
#endif
}

/* ---- samples ------------------------------------------------------------------------------- */

/* The counter and CLOCK_MONOTONIC at one moment: of a few tries, the one whose clock_gettime
 * took the fewest ticks, paired with the middle of that read. Async-signal-safe. */
static void sample(uint64_t *ticks, uint64_t *ns)
{
    uint64_t best = UINT64_MAX;
    for (int i = 0; i < SAMPLE_TRIES; i++) {
        uint64_t a = rt__ticks();
        uint64_t m = rt__mono();
        uint64_t b = rt__ticks();
        if (b >= a && b - a < best) {
            best = b - a;
            *ticks = a + (b - a) / 2;
            *ns = m;
        }
    }
    if (best == UINT64_MAX) { /* never: the counter ran backwards every time */
        *ticks = rt__ticks();
        *ns = rt__mono();
    }
}

void rt__clock_start(void)
{
    rt__g.tsc = choose_tsc();
    if (rt__g.tsc)
        sample(&start_ticks, &start_ns);
}

void rt__clock_origin(void)
{
    if (!rt__g.tracing)
        rt__g.tsc = 0; /* histogram-only: no times are kept, no calibration is needed */
    if (!rt__g.tsc) {
        rt__g.origin = rt__g.origin_mono = rt__mono();
        return;
    }
    sample(&rt__g.origin, &rt__g.origin_mono);
    /* A first calibration over at least a millisecond, for a run killed before the flusher's
     * first round; the later ones span the whole run. */
    uint64_t t, ns;
    sample(&t, &ns);
    if (ns - start_ns < MIN_SPAN_NS) {
        struct timespec rest = {0, (long)(MIN_SPAN_NS - (ns - start_ns))};
        nanosleep(&rest, NULL);
        sample(&t, &ns);
    }
    atomic_store_explicit(&cal_ticks, t - start_ticks, memory_order_relaxed);
    atomic_store_explicit(&cal_ns, ns - start_ns, memory_order_relaxed);
}

void rt__clock_def(rt_raw_def_clock *d)
{
    d->tsc0 = rt__g.origin;
    d->mono0 = rt__g.origin_mono;
    d->ticks = atomic_load_explicit(&cal_ticks, memory_order_relaxed);
    d->ns = atomic_load_explicit(&cal_ns, memory_order_relaxed);
}

void rt__clock_calibrate(void)
{
    if (!rt__g.tsc || atomic_flag_test_and_set(&calibrating))
        return; /* another thread is at it: its figures are as fresh */
    uint64_t t, ns;
    sample(&t, &ns);
    if (t > start_ticks && ns > start_ns) {
        rt_raw_def_clock d = {.tsc0 = rt__g.origin,
                              .mono0 = rt__g.origin_mono,
                              .ticks = t - start_ticks,
                              .ns = ns - start_ns};
        atomic_store_explicit(&cal_ticks, d.ticks, memory_order_relaxed);
        atomic_store_explicit(&cal_ns, d.ns, memory_order_relaxed);
        rt__defs_clock_write(&d);
    }
    atomic_flag_clear(&calibrating);
}

uint64_t rt__ticks_ns(uint64_t ticks)
{
    if (!rt__g.tsc)
        return ticks;
    uint64_t ct = atomic_load_explicit(&cal_ticks, memory_order_relaxed);
    uint64_t cn = atomic_load_explicit(&cal_ns, memory_order_relaxed);
    if (!ct)
        return ticks;
    unsigned __int128 v = (unsigned __int128)ticks * cn / ct;
    return v > UINT64_MAX ? UINT64_MAX : (uint64_t)v;
}
