/*
 * The engine's errors and the text it hands back (its report and notes): sim_fail stops a
 * run with a code and a message, sim_buf_printf appends a line to a growing buffer.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt__sim.h"

int sim_fail(sim *s, int code, const char *fmt, ...)
{
    if (!s->rc) {
        va_list ap;
        va_start(ap, fmt);
        if (s->err) {
            s->err->code = code;
            vsnprintf(s->err->msg, sizeof s->err->msg, fmt, ap);
        }
        va_end(ap);
        s->rc = -code;
    }
    return -code;
}

__attribute__((cold, noinline)) uint64_t sim_time_overflow(sim *s)
{
    char scaled[64] = "";
    uint64_t f = s->cfg->compute_scale_ppm;
    if (f != 1000000)
        snprintf(scaled, sizeof scaled, ", computation scaled by %llu.%06llu",
                 (unsigned long long)(f / 1000000), (unsigned long long)(f % 1000000));
    sim_fail(s, RT_E_RANGE,
             "the simulated time does not fit in 64-bit picoseconds (about 213 days; model: "
             "%s%s)",
             s->cfg->model.source, scaled);
    return SIM_TIME_MAX;
}

__attribute__((cold, noinline)) uint64_t sim_reduce_overflow(sim *s)
{
    sim_fail(s, RT_E_RANGE, "a collective round reduces more than 2^64 - 1 bytes");
    return UINT64_MAX;
}

void sim_buf_printf(sim_buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if (RT_VEC_RESERVE(b->s, b->cap, (uint64_t)b->len + (size_t)n + 1, 1024) < 0)
        return;
    va_start(ap, fmt);
    vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
    b->lines++;
}
